/* sim/util/weights — AllGatherV per-rank weights drawn from a distribution.
 *
 * Zipf: rank r gets round(1e6 / k^s) (at least 1), k its place (1-based) in
 * a permutation of the ranks drawn from `seed` (Fisher-Yates on GLib's GRand,
 * whose sequence is fixed for a seed). The same (nranks, s, seed) always gives
 * the same weights. */
#ifndef G5_SIM_UTIL_WEIGHTS_H
#define G5_SIM_UTIL_WEIGHTS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Error domain of the parsers below. */
#define WEIGHTS_ERROR (weights_error_quark())
GQuark weights_error_quark(void);
enum weights_error_code {
	WEIGHTS_ERROR_PARSE, /* not a list of n whole numbers, or not zipf:S */
};

/* nranks weights; g_free() them. s > 0. */
uint64_t *weights_zipf(int nranks, double s, uint64_t seed);

/* Parses "1,0,5,..." into exactly n weights (each 0..2^32-1); g_free() *out.
 * False with error set otherwise. */
bool weights_parse_list(const char *text, int n, uint64_t **out, GError **error);

/* Parses "zipf:S" (0 < S <= 10); false with error set otherwise. */
bool weights_parse_dist(const char *text, double *s, GError **error);

#endif
