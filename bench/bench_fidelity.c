/* Flow fidelity against packet fidelity over the matrix of docs/scale.md:
 * every collective x every algorithm registered for it, on ring, full mesh,
 * hypercube, torus and switch of the seed platform's links, N in {4, 8, 16,
 * 32, 64}, sizes 1 KiB..256 MiB in x4 steps (at most 64 MiB from N = 64 on).
 * Prints one line per topology x collective x algorithm (its error over
 * every N and size: geomean and max, and where the max is), then the whole
 * matrix's, against the goal: geomean_err <= 2 %, max <= 10 %. Combinations
 * a shape or an algorithm does not admit are skipped and counted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "sim/algos/algo.h"
#include "sim/algos/schedule.h"
#include "sim/cli.h"
#include "sim/fidelity.h"
#include "sim/platform.h"
#include "sim/util/units.h"

#define GOAL_GEOMEAN 0.02
#define GOAL_MAX 0.10

static const enum coll colls[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
				    COLL_ALLTOALL, COLL_BROADCAST, COLL_REDUCE, COLL_P2P,
				    COLL_ALLGATHERV };

static bool parse_list(const char *text, const char *flag, GArray *out, bool topo,
		       GError **error)
{
	g_auto(GStrv) items = g_strsplit(text, ",", -1);

	for (int i = 0; items[i]; i++) {
		if (topo) {
			const struct topo_ops *k = topo_find(items[i], error);

			if (!k) {
				g_prefix_error(error, "%s ", flag);
				return false;
			}
			g_array_append_val(out, k);
			continue;
		}
		char *end;
		long v = strtol(items[i], &end, 10);

		if (!*items[i] || *end || v < 2 || v > LINK_MAX_RANKS) {
			g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
				    "%s must be a list of rank counts in 2..%d, got '%s'", flag,
				    LINK_MAX_RANKS, items[i]);
			return false;
		}
		int n = (int)v;

		g_array_append_val(out, n);
	}
	return true;
}

int bench_fidelity(int argc, char **argv)
{
	gchar *topos_s = NULL, *ranks_s = NULL, *coll_s = NULL, *algo_s = NULL;
	gchar *min_s = NULL, *max_s = NULL, *max64_s = NULL;
	gboolean json = FALSE;
	GOptionEntry entries[] = {
		{ "topos", 0, 0, G_OPTION_ARG_STRING, &topos_s, "topologies (ring,fullmesh,hypercube,torus,switch)", "T,T" },
		{ "ranks", 0, 0, G_OPTION_ARG_STRING, &ranks_s, "rank counts (4,8,16,32,64)", "N,N" },
		{ "collective", 0, 0, G_OPTION_ARG_STRING, &coll_s, "one collective (default: every one)", "C" },
		{ "algo", 0, 0, G_OPTION_ARG_STRING, &algo_s, "one algorithm (default: every one)", "A" },
		{ "min-size", 0, 0, G_OPTION_ARG_STRING, &min_s, "first size (1KiB)", "SIZE" },
		{ "max-size", 0, 0, G_OPTION_ARG_STRING, &max_s, "last size (256MiB)", "SIZE" },
		{ "max-size-64", 0, 0, G_OPTION_ARG_STRING, &max64_s, "last size from 64 ranks on (64MiB)", "SIZE" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "one JSON object per line", NULL },
		{ NULL }
	};
	int rc = cli_parse_entries("- flow fidelity against packet fidelity",
				   "Examples:\n"
				   "  g5 bench fidelity                     # the whole matrix (long)\n"
				   "  g5 bench fidelity --topos ring --ranks 8 --collective allreduce",
				   entries, &argc, &argv);
	g_autoptr(GError) err = NULL;
	GArray *topos = g_array_new(FALSE, FALSE, sizeof(const struct topo_ops *));
	GArray *ranks = g_array_new(FALSE, FALSE, sizeof(int));
	uint64_t min_b = 1024, max_b = 256u << 20, max64_b = 64u << 20;
	enum coll only = 0;

	if (rc)
		goto out;
	rc = 2;
	if (!parse_list(topos_s ? topos_s : "ring,fullmesh,hypercube,torus,switch", "--topos", topos,
			true, &err) ||
	    !parse_list(ranks_s ? ranks_s : "4,8,16,32,64", "--ranks", ranks, false, &err) ||
	    (min_s && !units_parse_size(min_s, &min_b, &err)) ||
	    (max_s && !units_parse_size(max_s, &max_b, &err)) ||
	    (max64_s && !units_parse_size(max64_s, &max64_b, &err))) {
		cli_usage_error(argv[0], "%s", err->message);
		goto out;
	}
	if (min_b < 4 || min_b > max_b) {
		cli_usage_error(argv[0], "--min-size must be at least 4 bytes and at most --max-size");
		goto out;
	}
	if (coll_s && !coll_parse(coll_s, &only)) {
		cli_usage_error(argv[0], "unknown collective '%s'", coll_s);
		goto out;
	}
	rc = 0;

	struct fidelity_err all = { 0 };
	uint32_t skipped = 0, missed = 0;

	if (!json)
		printf("# %-9s %-13s %-10s %6s %9s %8s  %-18s %9s %9s\n", "topology", "collective",
		       "algo", "points", "geomean%", "max%", "max at (N, bytes)", "packet_s", "flow_s");
	for (guint ti = 0; ti < topos->len; ti++) {
		const struct topo_ops *kind = g_array_index(topos, const struct topo_ops *, ti);

		for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++) {
			enum coll c = colls[ci];

			if (only && c != only)
				continue;
			for (const struct algo_ops *const *a = algo_all(); *a; a++) {
				struct fidelity_err e = { 0 };

				if (!((*a)->collectives & c) || (algo_s && strcmp(algo_s, (*a)->name)))
					continue;
				for (guint ri = 0; ri < ranks->len; ri++) {
					int n = g_array_index(ranks, int, ri);
					uint64_t top = n >= 64 ? MIN(max_b, max64_b) : max_b;

					for (uint64_t b = min_b; b <= top; b *= 4) {
						g_autoptr(GError) perr = NULL;

						if (!fidelity_point(kind, n, c, (*a)->name, b, &e, &perr)) {
							skipped++;
							break; /* a rule on N or the shape: every size */
						}
						if (b > UINT64_MAX / 4)
							break;
					}
				}
				if (!e.points)
					continue;
				double gm = fidelity_geomean_err(&e);
				bool miss = gm > GOAL_GEOMEAN || e.max_err > GOAL_MAX;
				char size[32];

				missed += miss;
				units_format_size(e.max_bytes, size, sizeof(size));
				if (json)
					printf("{\"topology\": \"%s\", \"collective\": \"%s\", \"algo\": \"%s\", "
					       "\"points\": %u, \"geomean_err\": %.6f, \"max_err\": %.6f, "
					       "\"max_ranks\": %d, \"max_bytes\": %" G_GUINT64_FORMAT ", "
					       "\"packet_wall_s\": %.3f, \"flow_wall_s\": %.3f, "
					       "\"packet_events\": %" G_GUINT64_FORMAT ", \"flow_events\": %"
					       G_GUINT64_FORMAT ", \"goal_met\": %s}\n",
					       topo_name(kind), coll_name(c), (*a)->name, e.points, gm,
					       e.max_err, e.max_ranks, e.max_bytes, e.packet_wall_s, e.flow_wall_s,
					       e.packet_events, e.flow_events, miss ? "false" : "true");
				else
					printf("  %-9s %-13s %-10s %6u %9.3f %8.3f  N=%-3d %-12s %9.3f %9.3f%s\n",
					       topo_name(kind), coll_name(c), (*a)->name, e.points,
					       100 * gm, 100 * e.max_err, e.max_ranks, size, e.packet_wall_s,
					       e.flow_wall_s, miss ? "  MISS" : "");
				fflush(stdout);
				fidelity_err_merge(&all, &e);
			}
		}
	}
	if (!json)
		printf("# all: %u points, geomean_err %.3f %%, max %.3f %% (N=%d, %" G_GUINT64_FORMAT
		       " B); %u curves miss the goal (geomean <= %.0f %%, max <= %.0f %%); %u "
		       "combinations not admitted; wall: packet %.1f s, flow %.1f s\n",
		       all.points, 100 * fidelity_geomean_err(&all), 100 * all.max_err, all.max_ranks,
		       all.max_bytes, missed, 100 * GOAL_GEOMEAN, 100 * GOAL_MAX, skipped,
		       all.packet_wall_s, all.flow_wall_s);
out:
	g_array_unref(topos);
	g_array_unref(ranks);
	g_free(topos_s);
	g_free(ranks_s);
	g_free(coll_s);
	g_free(algo_s);
	g_free(min_s);
	g_free(max_s);
	g_free(max64_s);
	return rc;
}
