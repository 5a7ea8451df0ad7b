/* sim/util/weights — AllGatherV per-rank weights drawn from a distribution.
 *
 * Three families, each with one parameter, each drawn from `seed` alone on
 * GLib's GRand (whose sequence is fixed for a seed), so the same (family,
 * parameter, nranks, seed) always gives the same weights:
 *   zipf:S        rank r gets round(1e6 / k^S) (at least 1), k its place
 *                 (1-based) in a permutation of the ranks (Fisher-Yates);
 *                 0 < S <= 10. A few large ranks and a long light tail.
 *   lognormal:SIGMA  rank r gets round(1e6 x exp(SIGMA x z_r)) (at least 1),
 *                 z_r standard normal (Box-Muller on two uniforms in (0, 1]
 *                 per rank, in rank order); 0 < SIGMA <= 5. Every rank
 *                 different, the spread set by SIGMA (sizes of partitions of
 *                 real data are often near lognormal).
 *   heavy:F       one rank, drawn uniformly, gets F x 1e6, every other 1e6;
 *                 1 <= F <= 1e6. The one-straggler case.
 * The skew of weights is max / mean (1 for equal weights, N for one rank
 * holding everything): results print it beside each AllGatherV row. */
#ifndef G5_SIM_UTIL_WEIGHTS_H
#define G5_SIM_UTIL_WEIGHTS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Error domain of the parsers below. */
#define WEIGHTS_ERROR (weights_error_quark())
GQuark weights_error_quark(void);
enum weights_error_code {
	WEIGHTS_ERROR_PARSE, /* not a list of n whole numbers, or not a family:PARAM */
};

enum weights_family { WEIGHTS_ZIPF, WEIGHTS_LOGNORMAL, WEIGHTS_HEAVY };

struct weights_dist {
	enum weights_family family;
	double param; /* zipf S, lognormal SIGMA or heavy F, in the ranges above */
};

/* nranks weights; g_free() them. s > 0. */
uint64_t *weights_zipf(int nranks, double s, uint64_t seed);

/* Parses "1,0,5,..." into exactly n weights (each 0..2^32-1); g_free() *out.
 * False with error set otherwise. */
bool weights_parse_list(const char *text, int n, uint64_t **out, GError **error);

/* Parses "zipf:S", "lognormal:SIGMA" or "heavy:F" (ranges above); false
 * with error set otherwise. */
bool weights_parse_dist(const char *text, struct weights_dist *d, GError **error);

/* nranks weights of distribution d drawn from seed; g_free() them. */
uint64_t *weights_draw(int nranks, const struct weights_dist *d, uint64_t seed);

/* "zipf:1.2" for d (%g of the parameter); g_free() it. */
char *weights_dist_name(const struct weights_dist *d);

/* max / mean of n weights (sum > 0); 1 for NULL (equal weights). */
double weights_skew(const uint64_t *w, int n);

#endif
