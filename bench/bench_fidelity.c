/* Flow fidelity against packet fidelity over the matrix of docs/scale.md:
 * every collective x every algorithm registered for it, on ring, full mesh,
 * hypercube, torus and switch of the seed platform's links, N in {4, 8, 16,
 * 32, 64}, sizes 1 KiB..256 MiB in x4 steps (at most 64 MiB from N = 64 on).
 * Prints one line per topology x collective x algorithm (its error over
 * every N and size: geomean and max, and where the max is), then the whole
 * matrix's, against the goal: geomean_err <= 2 %, max <= 10 %. Combinations
 * a shape or an algorithm does not admit are skipped and counted; a point
 * that runs and fails (a schedule that deadlocks, a run past the clock) is
 * no such thing: its curve misses the goal, the failure goes to stderr,
 * and the bench exits 1 once it has printed the rest. With
 * --jobs, curves run on that many threads; the lines come in the same
 * order, with the same errors (the wall times then share the cores). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "sim/algos/algo.h"
#include "sim/algos/runner.h"
#include "sim/algos/schedule.h"
#include "sim/cli.h"
#include "sim/config.h"
#include "sim/fidelity.h"
#include "sim/platform.h"
#include "sim/util/quote.h"
#include "sim/util/units.h"

#define GOAL_GEOMEAN 0.02
#define GOAL_MAX 0.10

static const enum coll colls[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
				    COLL_ALLTOALL, COLL_BROADCAST, COLL_REDUCE, COLL_P2P,
				    COLL_ALLGATHERV };

/* One point of a curve: its latency at both fidelities. */
struct sample {
	int ranks;
	uint64_t bytes;
	double us[2]; /* packet, flow */
};

/* One curve of the matrix: its points run by a worker of the pool. */
struct curve {
	const struct topo_ops *kind;
	enum coll c;
	const char *algo;
	struct fidelity_err e;
	GArray *samples; /* of struct sample, in the order they ran */
	uint32_t skipped;
	uint32_t failed;  /* points that ran and failed */
	char *fail_msg;   /* owned: the first of them, NULL none */
	bool done;
};

struct curves {
	GPtrArray *list;           /* of struct curve *, owned */
	const GArray *ranks;       /* int */
	uint64_t min_b, max_b, max64_b;
	const struct platform *base; /* the seed platform, --set and --arbiter applied */
	GMutex lock;
	GCond cond;
	bool sync;                 /* lock and cond are initialised */
};

/* Every N and size of a curve, as the sequential loop ran them. */
static void curve_run(struct curve *cv, const struct curves *all)
{
	for (guint ri = 0; ri < all->ranks->len; ri++) {
		int n = g_array_index(all->ranks, int, ri);
		uint64_t top = n >= 64 ? MIN(all->max_b, all->max64_b) : all->max_b;

		for (uint64_t b = all->min_b; b <= top; b *= 4) {
			g_autoptr(GError) perr = NULL;
			struct sample sm = { .ranks = n, .bytes = b };

			if (!fidelity_point(cv->kind, n, cv->c, cv->algo, all->base, b, &cv->e, sm.us,
					    &perr)) {
				if (perr->domain == RUNNER_ERROR && perr->code != RUNNER_ERROR_SIZE) {
					char size[32];

					units_format_size(b, size, sizeof(size));
					if (!cv->failed++)
						cv->fail_msg = g_strdup_printf("N=%d %s: %s", n, size,
									       perr->message);
					continue;
				}
				cv->skipped++;
				break; /* a rule on N or the shape: every size */
			}
			g_array_append_val(cv->samples, sm);
			if (b > UINT64_MAX / 4)
				break;
		}
	}
}

static void curve_work(gpointer data, gpointer user)
{
	struct curve *cv = data;
	struct curves *all = user;

	curve_run(cv, all);
	g_mutex_lock(&all->lock);
	cv->done = true;
	g_cond_broadcast(&all->cond);
	g_mutex_unlock(&all->lock);
}

static void curve_free(gpointer p)
{
	struct curve *cv = p;

	g_array_unref(cv->samples);
	g_free(cv->fail_msg);
	g_free(cv);
}

static gint sample_order(gconstpointer a, gconstpointer b)
{
	const struct sample *x = a, *y = b;

	if (x->ranks != y->ranks)
		return x->ranks < y->ranks ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* A point's signed error: t_flow / t_packet - 1. */
static double sample_err(const struct sample *sm)
{
	return sm->us[1] / sm->us[0] - 1;
}

/* Where flow fidelity is furthest from packet fidelity, either way: the
 * signed error of a point, and where it is. */
struct dev {
	double err;     /* most negative (fastest) or most positive (slowest) */
	int ranks;
	uint64_t bytes;
	const struct curve *cv; /* NULL: none yet */
};

static void dev_take(struct dev *fast, struct dev *slow, const struct curve *cv, const struct sample *sm)
{
	double err = sample_err(sm);

	if (!fast->cv || err < fast->err)
		*fast = (struct dev){ err, sm->ranks, sm->bytes, cv };
	if (!slow->cv || err > slow->err)
		*slow = (struct dev){ err, sm->ranks, sm->bytes, cv };
}

/* "ring allgather direct N=16 256MiB": where d is. */
static char *dev_at(const struct dev *d)
{
	char size[32];

	units_format_size(d->bytes, size, sizeof(size));
	return g_strdup_printf("%s %s %s N=%d %s", topo_name(d->cv->kind), coll_name(d->cv->c),
			       d->cv->algo, d->ranks, size);
}

/* A curve's points, by N and size (--points): both latencies and the
 * signed error of each. */
static void print_points(const struct curve *cv, bool json)
{
	g_autoptr(GArray) pts = g_array_copy(cv->samples);

	g_array_sort(pts, sample_order);
	for (guint i = 0; i < pts->len; i++) {
		const struct sample *sm = &g_array_index(pts, struct sample, i);
		char size[32];

		units_format_size(sm->bytes, size, sizeof(size));
		if (json)
			printf("{\"topology\": \"%s\", \"collective\": \"%s\", \"algo\": \"%s\", "
			       "\"ranks\": %d, \"bytes\": %" G_GUINT64_FORMAT ", \"packet_us\": %.6f, "
			       "\"flow_us\": %.6f, \"err\": %.6f}\n",
			       topo_name(cv->kind), coll_name(cv->c), cv->algo, sm->ranks, sm->bytes,
			       sm->us[0], sm->us[1], sample_err(sm));
		else
			printf("    %-9s %-13s %-10s N=%-3d %-8s packet %12.3f us  flow %12.3f us  %+8.3f %%\n",
			       topo_name(cv->kind), coll_name(cv->c), cv->algo, sm->ranks, size, sm->us[0],
			       sm->us[1], 100 * sample_err(sm));
	}
}

/* The picks of the curves [lo, hi) of one topology and collective, at each
 * N and size that two of them or more ran; each point where flow fidelity
 * picks an algorithm that is slower at packet fidelity is printed. */
static void group_picks(const GPtrArray *list, guint lo, guint hi, bool json,
			struct fidelity_picks *p)
{
	const struct curve *first = list->pdata[lo];
	g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(struct sample));
	g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(struct fidelity_time));

	for (guint i = lo; i < hi; i++) {
		const struct curve *cv = list->pdata[i];

		for (guint j = 0; j < cv->samples->len; j++) {
			const struct sample *sm = &g_array_index(cv->samples, struct sample, j);
			guint k = 0;

			while (k < keys->len && sample_order(&g_array_index(keys, struct sample, k), sm))
				k++;
			if (k == keys->len)
				g_array_append_val(keys, *sm);
		}
	}
	g_array_sort(keys, sample_order);
	for (guint k = 0; k < keys->len; k++) {
		const struct sample *key = &g_array_index(keys, struct sample, k);
		struct fidelity_where at = { topo_name(first->kind), coll_name(first->c), key->ranks,
					     key->bytes };
		guint f, pk;

		g_array_set_size(times, 0);
		for (guint i = lo; i < hi; i++) {
			const struct curve *cv = list->pdata[i];

			for (guint j = 0; j < cv->samples->len; j++) {
				const struct sample *sm = &g_array_index(cv->samples, struct sample, j);

				if (!sample_order(sm, key)) {
					struct fidelity_time t = { cv->algo, sm->us[0], sm->us[1] };

					g_array_append_val(times, t);
					break;
				}
			}
		}
		const struct fidelity_time *t = (const struct fidelity_time *)(void *)times->data;
		double loss = fidelity_picks_add(p, &at, t, times->len, &f, &pk);
		char size[32];

		if (!(loss > 0))
			continue;
		units_format_size(key->bytes, size, sizeof(size));
		if (json)
			printf("{\"topology\": \"%s\", \"collective\": \"%s\", \"ranks\": %d, "
			       "\"bytes\": %" G_GUINT64_FORMAT ", \"packet_pick\": \"%s\", "
			       "\"packet_pick_us\": %.6f, \"flow_pick\": \"%s\", \"flow_pick_us\": "
			       "%.6f, \"flow_pick_packet_us\": %.6f, \"loss\": %.6f}\n",
			       at.topo, at.coll, at.ranks, at.bytes, t[pk].algo, t[pk].packet_us, t[f].algo,
			       t[f].flow_us, t[f].packet_us, loss);
		else
			printf("#   pick differs: %-9s %-13s N=%-3d %-9s packet picks %-9s flow picks %-9s "
			       "(%.3f %% slower at packet fidelity)\n",
			       at.topo, at.coll, at.ranks, size, t[pk].algo, t[f].algo, 100 * loss);
	}
}

/* A sum of picks, of one topology or (topo NULL) of all. */
static void print_picks(const struct fidelity_picks *p, const char *topo, bool json)
{
	const struct fidelity_where *w = &p->max_at;
	char size[32];

	if (!p->points)
		return;
	units_format_size(w->bytes, size, sizeof(size));
	if (json)
		printf("{\"picks_topology\": \"%s\", \"picks\": %u, \"picks_agree\": %u, "
		       "\"picks_near\": %u, \"pick_geomean_loss\": %.6f, \"pick_max_loss\": %.6f, "
		       "\"pick_max_topology\": \"%s\", \"pick_max_collective\": \"%s\", "
		       "\"pick_max_ranks\": %d, \"pick_max_bytes\": %" G_GUINT64_FORMAT ", "
		       "\"pick_max_packet_pick\": \"%s\", \"pick_max_flow_pick\": \"%s\"}\n",
		       topo ? topo : "all", p->points, p->agree, p->near, fidelity_picks_geomean_loss(p),
		       p->max_loss, w->topo, w->coll, w->ranks, w->bytes, p->max_packet_pick,
		       p->max_flow_pick);
	else
		printf("# picks %s %s: %u of %u points agree, %u within %.0f %%; loss geomean %.3f %%, "
		       "max %.3f %% (%s%s%s N=%d %s: packet picks %s, flow picks %s)\n",
		       topo ? "on" : "over", topo ? topo : "all", p->agree, p->points, p->near,
		       100 * FIDELITY_PICK_NEAR, 100 * fidelity_picks_geomean_loss(p), 100 * p->max_loss,
		       topo ? "" : w->topo, topo ? "" : " ", w->coll, w->ranks, size, p->max_packet_pick,
		       p->max_flow_pick);
}

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
	gchar *min_s = NULL, *max_s = NULL, *max64_s = NULL, *arbiter_s = NULL, *platform_s = NULL;
	gchar **set = NULL;
	gboolean json = FALSE, points = FALSE;
	gint jobs = 1;
	GOptionEntry entries[] = {
		{ "topos", 0, 0, G_OPTION_ARG_STRING, &topos_s, "topologies (ring,fullmesh,hypercube,torus,switch)", "T,T" },
		{ "platform", 0, 0, G_OPTION_ARG_FILENAME, &platform_s, "a platform file instead of the seed platform's matrix: its topology and ranks, every collective x algorithm x size on it", "FILE" },
		{ "ranks", 0, 0, G_OPTION_ARG_STRING, &ranks_s, "rank counts (4,8,16,32,64)", "N,N" },
		{ "collective", 0, 0, G_OPTION_ARG_STRING, &coll_s, "one collective (default: every one)", "C" },
		{ "algo", 0, 0, G_OPTION_ARG_STRING, &algo_s, "one algorithm (default: every one)", "A" },
		{ "min-size", 0, 0, G_OPTION_ARG_STRING, &min_s, "first size (1KiB)", "SIZE" },
		{ "max-size", 0, 0, G_OPTION_ARG_STRING, &max_s, "last size (256MiB)", "SIZE" },
		{ "max-size-64", 0, 0, G_OPTION_ARG_STRING, &max64_s, "last size from 64 ranks on (64MiB)", "SIZE" },
		{ "arbiter", 0, 0, G_OPTION_ARG_STRING, &arbiter_s, "flow fidelity's flow.arbiter: maxmin (default), round-robin or buffers", "A" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &set, "set a key of the seed platform that both fidelities run, e.g. node.inject=unlimited (repeatable; not topology.* or fidelity, which the matrix sets)", "KEY=VALUE" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "one JSON object per line", NULL },
		{ "points", 0, 0, G_OPTION_ARG_NONE, &points, "each curve's points after it: both latencies and the signed error", NULL },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "curves run in parallel (default 1: the wall times are each run's alone; 0: one per core)", "N" },
		{ NULL }
	};
	int rc = cli_parse_entries("- flow fidelity against packet fidelity",
				   "Examples:\n"
				   "  g5 bench fidelity                     # the whole matrix (long)\n"
				   "  g5 bench fidelity --topos ring --ranks 8 --collective allreduce\n"
				   "  g5 bench fidelity --ranks 32,64 --jobs 2 --json\n"
				   "  g5 bench fidelity --topos hypercube --ranks 32 --algo direct --points\n"
				   "  g5 bench fidelity --platform configs/platforms/leafspine16.yaml --max-size 64MiB\n"
				   "  g5 bench fidelity --ranks 4,8 --set node.inject=unlimited --set node.eject=unlimited",
				   entries, &argc, &argv);
	g_autoptr(GError) err = NULL;
	GArray *topos = g_array_new(FALSE, FALSE, sizeof(const struct topo_ops *));
	GArray *ranks = g_array_new(FALSE, FALSE, sizeof(int));
	uint64_t min_b = 1024, max_b = 256u << 20, max64_b = 64u << 20;
	enum coll only = 0;
	struct curves cvs = { .list = g_ptr_array_new_with_free_func(curve_free), .ranks = ranks };
	GThreadPool *pool = NULL;
	struct platform base;

	platform_init_default(&base);
	cvs.base = &base;

	if (rc)
		goto out;
	rc = 2;
	if (platform_s && (topos_s || ranks_s)) {
		cli_usage_error(argv[0], "--platform gives the topology and its ranks: it takes no %s",
				topos_s ? "--topos" : "--ranks");
		goto out;
	}
	if (platform_s) {
		/* the file's topology at its ranks is the matrix's one shape */
		platform_release(&base);
		if (!config_platform_load(platform_s, &base, &err)) {
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
			platform_init_default(&base);
			goto out;
		}
		g_array_append_val(topos, base.fabric.topo);
		g_array_append_val(ranks, base.fabric.nranks);
	}
	if ((!platform_s &&
	     (!parse_list(topos_s ? topos_s : "ring,fullmesh,hypercube,torus,switch", "--topos", topos,
			  true, &err) ||
	      !parse_list(ranks_s ? ranks_s : "4,8,16,32,64", "--ranks", ranks, false, &err))) ||
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
	if (jobs < 0) {
		cli_usage_error(argv[0], "--jobs must be at least 0, got %d", jobs);
		goto out;
	}
	for (char **kv = set; kv && *kv; kv++)
		if (g_str_has_prefix(*kv, "topology.") || g_str_has_prefix(*kv, "fidelity=")) {
			cli_usage_error(argv[0], "--set %s: the matrix sets the topology, its ranks and "
					"the fidelity (--topos, --ranks)", quote_text(*kv).s);
			goto out;
		}
	if (!cli_platform_flags(argv[0], &base, set, NULL, NULL))
		goto out;
	/* the platform key's own grammar and names: --arbiter stands for it */
	if (arbiter_s && !config_platform_set_as(&base, "flow.arbiter", "--arbiter", arbiter_s, &err)) {
		cli_usage_error(argv[0], "%s", err->message);
		goto out;
	}
	rc = 0;
	cvs.min_b = min_b;
	cvs.max_b = max_b;
	cvs.max64_b = max64_b;
	g_mutex_init(&cvs.lock);
	g_cond_init(&cvs.cond);
	cvs.sync = true;
	for (guint ti = 0; ti < topos->len; ti++)
		for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++) {
			if (only && colls[ci] != only)
				continue;
			for (const struct algo_ops *const *a = algo_all(); *a; a++) {
				if (!((*a)->collectives & colls[ci]) || (algo_s && strcmp(algo_s, (*a)->name)))
					continue;
				struct curve *cv = g_new0(struct curve, 1);

				cv->kind = g_array_index(topos, const struct topo_ops *, ti);
				cv->samples = g_array_new(FALSE, FALSE, sizeof(struct sample));
				cv->c = colls[ci];
				cv->algo = (*a)->name;
				g_ptr_array_add(cvs.list, cv);
			}
		}
	if (jobs == 0)
		jobs = (int)g_get_num_processors();
	if (jobs > 1 && cvs.list->len > 1) {
		pool = g_thread_pool_new(curve_work, &cvs, MIN(jobs, (int)cvs.list->len), TRUE, NULL);
		for (guint i = 0; i < cvs.list->len; i++)
			g_thread_pool_push(pool, cvs.list->pdata[i], NULL);
	}

	struct fidelity_err all = { 0 };
	struct dev fast = { 0 }, slow = { 0 };
	uint32_t skipped = 0, missed = 0, failed = 0;

	if (!json)
		printf("# %-9s %-13s %-10s %6s %9s %8s  %-18s %9s %9s\n", "topology", "collective",
		       "algo", "points", "geomean%", "max%", "max at (N, bytes)", "packet_s", "flow_s");
	for (guint i = 0; i < cvs.list->len; i++) {
		struct curve *cv = cvs.list->pdata[i];

		if (pool) {
			g_mutex_lock(&cvs.lock);
			while (!cv->done)
				g_cond_wait(&cvs.cond, &cvs.lock);
			g_mutex_unlock(&cvs.lock);
		} else {
			curve_run(cv, &cvs);
		}
		skipped += cv->skipped;
		failed += cv->failed;
		if (cv->failed)
			fprintf(stderr, "%s: %s %s %s: %u point%s failed; the first, %s\n", argv[0],
				topo_name(cv->kind), coll_name(cv->c), cv->algo, cv->failed,
				cv->failed > 1 ? "s" : "", cv->fail_msg);
		if (!cv->e.points && !cv->failed)
			continue;
		const struct fidelity_err *e = &cv->e;
		double gm = fidelity_geomean_err(e);
		struct dev cf = { 0 }, cs = { 0 };

		for (guint k = 0; k < cv->samples->len; k++) {
			const struct sample *sm = &g_array_index(cv->samples, struct sample, k);

			dev_take(&cf, &cs, cv, sm);     /* the curve's */
			dev_take(&fast, &slow, cv, sm); /* the matrix's */
		}
		bool miss = gm > GOAL_GEOMEAN || e->max_err > GOAL_MAX || cv->failed;
		char size[32];

		missed += miss;
		units_format_size(e->max_bytes, size, sizeof(size));
		if (json)
			printf("{\"topology\": \"%s\", \"collective\": \"%s\", \"algo\": \"%s\", "
			       "\"points\": %u, \"geomean_err\": %.6f, \"max_err\": %.6f, "
			       "\"max_ranks\": %d, \"max_bytes\": %" G_GUINT64_FORMAT ", "
			       "\"fastest_err\": %.6f, \"slowest_err\": %.6f, "
			       "\"packet_wall_s\": %.3f, \"flow_wall_s\": %.3f, "
			       "\"packet_events\": %" G_GUINT64_FORMAT ", \"flow_events\": %" G_GUINT64_FORMAT
			       ", \"failed\": %u, \"goal_met\": %s}\n",
			       topo_name(cv->kind), coll_name(cv->c), cv->algo, e->points, gm, e->max_err,
			       e->max_ranks, e->max_bytes, cf.cv ? cf.err : 0, cs.cv ? cs.err : 0,
			       e->packet_wall_s, e->flow_wall_s, e->packet_events,
			       e->flow_events, cv->failed, miss ? "false" : "true");
		else
			printf("  %-9s %-13s %-10s %6u %9.3f %8.3f  N=%-3d %-12s %9.3f %9.3f%s\n",
			       topo_name(cv->kind), coll_name(cv->c), cv->algo, e->points, 100 * gm,
			       100 * e->max_err, e->max_ranks, size, e->packet_wall_s, e->flow_wall_s,
			       cv->failed ? "  FAILED" : miss ? "  MISS" : "");
		if (points)
			print_points(cv, json);
		fflush(stdout);
		fidelity_err_merge(&all, e);
	}
	if (!json)
		printf("# all: %u points, geomean_err %.3f %%, max %.3f %% (N=%d, %" G_GUINT64_FORMAT
		       " B); %u curves miss the goal (geomean <= %.0f %%, max <= %.0f %%); %u "
		       "combinations not admitted; wall: packet %.1f s, flow %.1f s\n",
		       all.points, 100 * fidelity_geomean_err(&all), 100 * all.max_err, all.max_ranks,
		       all.max_bytes, missed, 100 * GOAL_GEOMEAN, 100 * GOAL_MAX, skipped,
		       all.packet_wall_s, all.flow_wall_s);
	if (fast.cv) {
		g_autofree char *fat = dev_at(&fast), *sat = dev_at(&slow);

		/* the range either way: flow fidelity from most faster to most
		 * slower than packet fidelity */
		if (json)
			printf("{\"matrix\": \"all\", \"points\": %u, \"geomean_err\": %.6f, "
			       "\"max_err\": %.6f, \"fastest_err\": %.6f, \"fastest_at\": \"%s\", "
			       "\"slowest_err\": %.6f, \"slowest_at\": \"%s\", \"curves_missed\": %u}\n",
			       all.points, fidelity_geomean_err(&all), all.max_err, fast.err, fat, slow.err,
			       sat, missed);
		else
			printf("# range: flow fidelity from %.1f %% %s (%s) to %.1f %% %s (%s) than packet "
			       "fidelity\n",
			       100 * fabs(fast.err), fast.err < 0 ? "faster" : "slower", fat,
			       100 * fabs(slow.err), slow.err < 0 ? "faster" : "slower", sat);
	}

	/* the picks, per topology and collective (the list's runs of curves),
	 * summed per topology and over all */
	if (!json)
		printf("# picks: at each topology, collective, N and size that two algorithms or more "
		       "ran, the fastest by each fidelity (the first of equals, as g5 tune picks); a "
		       "point agrees where flow fidelity's pick is as fast as packet fidelity's at "
		       "packet fidelity, and its loss is how much slower it is there\n");
	struct fidelity_picks picks = { 0 }, topo_picks = { 0 };

	for (guint lo = 0, hi; lo < cvs.list->len; lo = hi) {
		const struct curve *a = cvs.list->pdata[lo];

		for (hi = lo + 1; hi < cvs.list->len; hi++) {
			const struct curve *b = cvs.list->pdata[hi];

			if (b->kind != a->kind || b->c != a->c)
				break;
		}
		group_picks(cvs.list, lo, hi, json, &topo_picks);
		if (hi == cvs.list->len || ((const struct curve *)cvs.list->pdata[hi])->kind != a->kind) {
			print_picks(&topo_picks, topo_name(a->kind), json);
			fidelity_picks_merge(&picks, &topo_picks);
			topo_picks = (struct fidelity_picks){ 0 };
		}
	}
	print_picks(&picks, NULL, json);
	if (failed) {
		fprintf(stderr, "%s: %u point%s failed to run (above): the matrix is incomplete\n",
			argv[0], failed, failed > 1 ? "s" : "");
		rc = 1;
	}
out:
	if (pool)
		g_thread_pool_free(pool, FALSE, TRUE);
	if (cvs.sync) {
		g_mutex_clear(&cvs.lock);
		g_cond_clear(&cvs.cond);
	}
	g_ptr_array_unref(cvs.list);
	g_array_unref(topos);
	g_array_unref(ranks);
	g_free(topos_s);
	g_free(ranks_s);
	g_free(coll_s);
	g_free(algo_s);
	g_free(arbiter_s);
	g_free(platform_s);
	g_strfreev(set);
	platform_release(&base);
	g_free(min_s);
	g_free(max_s);
	g_free(max64_s);
	return rc;
}
