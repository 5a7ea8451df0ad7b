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
 * multiply and a compare (inline, in rng.h); the rest is here. The layer
 * table is a constant (zig_table.h). */
#define ZIG_R 7.69711747013104972        /* start of the tail */

const struct sim_zig sim_zig = {
#include "sim/core/zig_table.h"
};

/* The draw's value in layer i: u * x[i], u = (bits >> 11) / 2^53. Scaling by
 * a power of two is exact, so (bits >> 11) * xs[i] rounds the same real
 * number as (bits >> 11) * 2^-53 * x[i], to the same double. */
static inline double zig_value(const struct sim_zig *t, uint64_t bits, unsigned i)
{
	return (double)(bits >> 11) * t->xs[i];
}

/* Everything but the first draw's rectangle test: the tail, the wedges and
 * the draws that follow a rejection. Out of line, so that the common path
 * saves no registers. */
static __attribute__((noinline, cold)) double exp_rest(struct sim_rng *r, const struct sim_zig *t,
						       uint64_t bits)
{
	for (;;) {
		unsigned i = (unsigned)(bits & 0xff);
		double x = zig_value(t, bits, i);

		if (x < t->x[i + 1])
			return x;
		if (i == 0)
			return ZIG_R - log(sim_rng_unit(r));
		if (t->f[i + 1] + (t->f[i] - t->f[i + 1]) * sim_rng_unit(r) < exp(-x))
			return x;
		bits = sim_rng_next(r);
	}
}

static uint64_t exp_round(double d)
{
	if (!(d < 1.8e19))
		return UINT64_MAX / 2;
	return (uint64_t)d;
}

uint64_t sim_rng_exp_slow(struct sim_rng *r, uint64_t bits, double mean)
{
	return exp_round(exp_rest(r, &sim_zig, bits) * mean);
}
