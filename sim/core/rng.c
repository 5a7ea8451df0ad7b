/* xoshiro256** streams seeded through splitmix64; see rng.h. */
#include "sim/core/rng.h"

#include <glib.h>
#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t key)
{
	uint64_t x = seed ^ (key * 0xd1342543de82ef95ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;
}

uint64_t sim_rng_key(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)sim_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t t = -n % n;

		while (low < t) {
			m = (unsigned __int128)sim_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Exponential draws by the ziggurat method (Marsaglia and Tsang, 2000) with
 * 256 layers of equal area: about 99 % of draws cost one 64-bit number, a
 * multiply and a compare. The layer table depends on nothing but constants; it
 * is computed once, on first use, and only read afterwards. */
#define ZIG_LAYERS 256
#define ZIG_R 7.69711747013104972        /* start of the tail */
#define ZIG_V 0.0039496598225815571993   /* area of each layer */

struct zig_table {
	double x[ZIG_LAYERS + 1]; /* layer edges, x[0] = v / f(r) down to x[256] = 0 */
	double f[ZIG_LAYERS + 1]; /* exp(-x[i]) */
};

static const struct zig_table *zig_table(void)
{
	static struct zig_table t;
	static gsize ready;

	if (g_once_init_enter(&ready)) {
		t.x[0] = ZIG_V * exp(ZIG_R);
		t.x[1] = ZIG_R;
		for (int i = 2; i < ZIG_LAYERS; i++)
			t.x[i] = -log(exp(-t.x[i - 1]) + ZIG_V / t.x[i - 1]);
		t.x[ZIG_LAYERS] = 0;
		for (int i = 0; i <= ZIG_LAYERS; i++)
			t.f[i] = exp(-t.x[i]);
		g_once_init_leave(&ready, 1);
	}
	return &t;
}

static double exp_standard(struct sim_rng *r)
{
	const struct zig_table *t = zig_table();

	for (;;) {
		uint64_t bits = sim_rng_next(r);
		unsigned i = (unsigned)(bits & 0xff);
		double x = (double)(bits >> 11) * 0x1.0p-53 * t->x[i];

		if (x < t->x[i + 1])
			return x;
		if (i == 0)
			return ZIG_R - log(sim_rng_unit(r));
		if (t->f[i + 1] + (t->f[i] - t->f[i + 1]) * sim_rng_unit(r) < exp(-x))
			return x;
	}
}

uint64_t sim_rng_exp(struct sim_rng *r, double mean)
{
	double d = exp_standard(r) * mean;

	if (!(d < 1.8e19))
		return UINT64_MAX / 2;
	return (uint64_t)d;
}
