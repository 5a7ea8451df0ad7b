/* sim/core/rng — small, fast, seedable random streams (xoshiro256**).
 *
 * Each simulation component owns one `struct sim_rng`; streams are derived
 * from a seed and a stream key with splitmix64, so streams are independent
 * and reproducible: the same (seed, key) always gives the same sequence. */
#ifndef G5_SIM_CORE_RNG_H
#define G5_SIM_CORE_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4]; /* never all zero */
};

/* Seeds a stream from a simulation seed and a stream key. */
void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t key);

/* A 64-bit stable hash of a string (FNV-1a), used as a stream key. */
uint64_t sim_rng_key(const char *name);

static inline uint64_t sim_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next 64 uniformly distributed bits. */
static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = sim_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rng_rotl(s[3], 45);
	return result;
}

/* Uniform in (0, 1]: never zero, so its logarithm is finite. */
static inline double sim_rng_unit(struct sim_rng *r)
{
	return (double)((sim_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire). */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);

/* True with probability p (p <= 0: never; p >= 1: always). */
static inline int sim_rng_bernoulli(struct sim_rng *r, double p)
{
	return sim_rng_unit(r) <= p;
}

/* The ziggurat layers of the exponential draws (sim/core/zig_table.h). */
struct sim_zig {
	double x[257];  /* layer edges, x[0] = v / f(r) down to x[256] = 0 */
	double f[257];  /* exp(-x[i]) */
	double xs[256]; /* x[i] * 2^-53, exactly */
};
extern const struct sim_zig sim_zig;

/* The draws the fast path below does not take (tail, wedges, rejections,
 * huge results). */
uint64_t sim_rng_exp_slow(struct sim_rng *r, uint64_t bits, double mean)
	__attribute__((noinline, cold));

/* An exponentially distributed draw with the given mean, rounded down to an
 * integer (used for picosecond delays). About 99 % of draws take one 64-bit
 * number, a multiply and a compare. */
static inline uint64_t sim_rng_exp(struct sim_rng *r, double mean)
{
	uint64_t bits = sim_rng_next(r);
	unsigned i = (unsigned)(bits & 0xff);
	double x = (double)(bits >> 11) * sim_zig.xs[i];
	double d = x * mean;

	/* Below 2^63 a signed conversion is exact and one instruction. */
	if (__builtin_expect(x < sim_zig.x[i + 1] && d < 0x1.0p63, 1))
		return (uint64_t)(int64_t)d;
	return sim_rng_exp_slow(r, bits, mean);
}

#endif
