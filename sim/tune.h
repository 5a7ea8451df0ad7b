/* sim/tune — which algorithm wins each collective on a platform, and the
 * tuning profile that says so (docs/workload.md, "g5 tune").
 *
 * `g5 tune` times every registered algorithm (and nchunks) of a collective
 * on a group of ranks placed on the platform (G ranks `stride` apart from
 * rank 0), at each size, each alone on the machine, as `g5 workload` runs a
 * call; the winner per size, its margin over the best other algorithm and
 * what the default (workload_auto_algo) loses make its table, and the
 * winners, merged into size ranges, its profile.
 *
 * A profile is a YAML file:
 *   schema_version: 1
 *   platform: seed-ring8
 *   entries:
 *     - {collective: allreduce, ranks: 8, stride: 1, up_to: 49152, algo: hd, nchunks: 1}
 *     - {collective: allreduce, ranks: 8, stride: 1, algo: ring, nchunks: 4}
 * The entries of one (collective, ranks, stride) are in increasing size
 * order; an entry covers sizes above the previous entry's up_to up to its
 * own (the last has none: every larger size). A range ends halfway (the
 * geometric mean) between the last size it won and the first it lost. */
#ifndef G5_SIM_TUNE_H
#define G5_SIM_TUNE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/ir.h"

struct tune_entry {
	enum coll coll;
	int ranks, stride;
	uint64_t up_to;     /* UINT64_MAX: no bound */
	char *algo;         /* owned */
	uint32_t nchunks;
};

struct tune_profile {
	char *platform;     /* owned: the platform's name, as tuned */
	GArray *entries;    /* of struct tune_entry */
};

/* Reads a profile (errors "FILE:LINE:COL: ..." of CONFIG_ERROR). */
struct tune_profile *tune_profile_load(const char *path, GError **error);
struct tune_profile *tune_profile_parse(const char *path, const char *text, size_t len,
					GError **error);
bool tune_profile_write(const struct tune_profile *p, const char *path, GError **error);
void tune_profile_free(struct tune_profile *p);

/* The entry for collective c of `bytes` on a group of `ranks` ranks
 * `stride` apart (0: not evenly spaced), or NULL when the profile has no
 * entry of that collective, rank count and stride: the caller falls back
 * to the default. */
const struct tune_entry *tune_lookup(const struct tune_profile *p, enum coll c, int ranks,
				     int stride, uint64_t bytes);

/* The stride of a group (members in group order): the constant step from
 * each member to the next, or 0 if there is none. */
int tune_group_stride(const int *members, int n);

#endif
