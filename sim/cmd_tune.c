/* `g5 tune`: the best algorithm (and nchunks) per collective, group and size
 * on a platform, its margin over the best other algorithm, what the default
 * loses, and the tuning profile that `g5 workload` takes (sim/tune.h,
 * docs/workload.md "g5 tune"). Every point is one call alone on the
 * machine, run as `g5 workload` runs it, on a pool of threads (each point
 * owns its simulation: the table does not depend on --jobs). On a two-tier
 * platform the candidates are the flat algorithms and every hierarchical
 * pair (hier-INTRA-INTER) the registry builds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/cli.h"
#include "sim/config.h"
#include "sim/tune.h"
#include "sim/util/quote.h"
#include "sim/workload_run.h"

struct tpoint {
	enum coll coll;
	int ranks, stride;
	uint64_t bytes;
	const char *algo;      /* the registry's */
	uint32_t nchunks;
	/* out */
	bool ok, refused;      /* refused: the algorithm does not admit the shape */
	sim_time_t t_ps;
	char *why;
};

struct tctx {
	const struct platform *plat;
	enum run_mode mode;
	uint64_t seed;
	enum ir_dtype dtype;
};

static void run_point(gpointer data, gpointer user)
{
	struct tpoint *p = data;
	const struct tctx *x = user;
	g_autofree int *mem = g_new(int, p->ranks);
	struct wl_op op = { .kind = WL_COLLECTIVE, .coll = p->coll, .bytes = p->bytes,
			    .dtype = x->dtype, .peer = 1, .nchunks = p->nchunks,
			    .algo = (char *)p->algo, .id = (char *)"call" };
	struct workload_run_opts o = { .plat = x->plat, .seed = x->seed, .mode = x->mode };
	struct workload_result res;
	GError *err = NULL;

	for (int i = 0; i < p->ranks; i++)
		mem[i] = i * p->stride;
	struct workload *w = workload_one(x->plat->fabric.nranks, mem, p->ranks, &op);

	if (workload_run(w, &o, &res, &err)) {
		p->ok = true;
		p->t_ps = res.step_ps;
		workload_result_clear(&res);
	} else {
		p->refused = g_error_matches(err, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED);
		p->why = g_strdup(err->message);
		g_error_free(err);
	}
	workload_free(w);
}

/* The best of points [lo, hi) (one collective, group and size): the fastest,
 * the fastest of another algorithm, and the default's (nchunks 1). */
struct verdict {
	const struct tpoint *best, *second, *dflt;
};

static struct verdict judge(const struct tpoint *pts, size_t lo, size_t hi)
{
	struct verdict v = { 0 };
	const char *dname = workload_auto_algo(pts[lo].coll);

	for (size_t i = lo; i < hi; i++)
		if (pts[i].ok && (!v.best || pts[i].t_ps < v.best->t_ps))
			v.best = &pts[i];
	for (size_t i = lo; i < hi; i++) {
		if (!pts[i].ok)
			continue;
		if (v.best && strcmp(pts[i].algo, v.best->algo) &&
		    (!v.second || pts[i].t_ps < v.second->t_ps))
			v.second = &pts[i];
		if (!strcmp(pts[i].algo, dname) && pts[i].nchunks == 1)
			v.dflt = &pts[i];
	}
	return v;
}

static gint u64_cmp(gconstpointer a, gconstpointer b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static gint int_cmp(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static gint u32_cmp(gconstpointer a, gconstpointer b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Drops repeats from a sorted array. */
static void uniq(GArray *a)
{
	guint k = 0;
	size_t sz = g_array_get_element_size(a);

	for (guint i = 0; i < a->len; i++)
		if (!k || memcmp(a->data + (size_t)i * sz, a->data + (size_t)(k - 1) * sz, sz))
			memmove(a->data + (size_t)k++ * sz, a->data + (size_t)i * sz, sz);
	g_array_set_size(a, k);
}

/* The algorithms tried for collective c: every registered one but NCCL's
 * model, and on a two-tier platform (`tiers`) every hier-INTRA-INTER the
 * registry builds (their names kept in `keep`). */
static GPtrArray *candidates(enum coll c, bool tiers, GPtrArray *keep)
{
	GPtrArray *names = g_ptr_array_new();

	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		if (((*a)->collectives & c) && strcmp((*a)->name, "nccl") &&
		    (!tiers || !(*a)->tiers[0]))
			g_ptr_array_add(names, (gpointer)(*a)->name);
	if (!tiers)
		return names;
	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		for (const struct algo_ops *const *b = algo_all(); *b; b++) {
			if ((*a)->tiers[0] || (*b)->tiers[0] || !strcmp((*a)->name, "nccl") ||
			    !strcmp((*b)->name, "nccl"))
				continue;
			char *n = g_strdup_printf("hier-%s-%s", (*a)->name, (*b)->name);
			bool seen = false;

			for (guint i = 0; i < keep->len && !seen; i++)
				seen = !strcmp(keep->pdata[i], n);
			if (seen || !algo_find(c, n, NULL)) {
				g_free(n);
				continue;
			}
			g_ptr_array_add(keep, n);
			g_ptr_array_add(names, n);
		}
	return names;
}

static double us(sim_time_t ps)
{
	return (double)ps / 1e6;
}

int cmd_tune(int argc, char **argv)
{
	char *platform = NULL, *colls = NULL, *sizes_s = NULL, *ranks_s = NULL, *nchunks_s = NULL;
	char *mode_s = NULL, *dtype_s = NULL, *out = NULL;
	char **set = NULL;
	gint64 seed = 1, stride = 1, jobs = 0;
	GOptionEntry entries[] = {
		{ "platform", 'p', 0, G_OPTION_ARG_FILENAME, &platform, "the platform (required)", "P.yaml" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &set, "override a platform key (repeatable)", "KEY=VALUE" },
		{ "collective", 'c', 0, G_OPTION_ARG_STRING, &colls,
		  "collectives (allreduce,allgather,reducescatter,alltoall,broadcast,reduce)", "C,..." },
		{ "sizes", 's', 0, G_OPTION_ARG_STRING, &sizes_s, "sizes (1KiB..256MiB x4)", "S" },
		{ "ranks", 'n', 0, G_OPTION_ARG_STRING, &ranks_s, "group sizes (the platform's ranks)", "G,..." },
		{ "stride", 0, 0, G_OPTION_ARG_INT64, &stride, "the group's ranks are this far apart (1)", "S" },
		{ "nchunks", 0, 0, G_OPTION_ARG_STRING, &nchunks_s, "nchunks to try (1,2,4)", "K,..." },
		{ "dtype", 'd', 0, G_OPTION_ARG_STRING, &dtype_s, "element type (bf16)", "T" },
		{ "mode", 0, 0, G_OPTION_ARG_STRING, &mode_s, "single (default) or mpi: the launch cost", "M" },
		{ "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "RNG seed (1)", "N" },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT64, &jobs, "threads (0: one per core)", "N" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write the tuning profile here", "PROFILE.yaml" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	const char *prog = argv[0];
	GOptionContext *ctx = g_option_context_new("- the best algorithm per collective, group and size");
	struct platform pl;
	bool have_pl = false;
	GError *err = NULL;
	GArray *pts = g_array_new(FALSE, TRUE, sizeof(struct tpoint));
	g_autoptr(GArray) sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_autoptr(GArray) groups = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) chunks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_autoptr(GArray) cl = g_array_new(FALSE, FALSE, sizeof(enum coll));
	g_autoptr(GPtrArray) hier_names = g_ptr_array_new_with_free_func(g_free);
	struct tctx x = { .seed = 1, .dtype = IR_DTYPE_BF16 };
	int rc = 2;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 tune --platform configs/platforms/seed-ring8.yaml -c allreduce\n"
					 "  g5 tune -p configs/platforms/fullmesh8.yaml -n 4,8 -o tuned.yaml\n"
					 "  g5 tune -p configs/platforms/torus16.yaml --set fidelity=flow -s 1MiB..1GiB x8\n");
	bool parsed = cli_parse(ctx, prog, &argc, &argv);

	g_option_context_free(ctx);
	if (!parsed)
		goto done;
	if (argc > 1) {
		cli_usage_error(prog, "unexpected argument '%s'", quote_text(argv[1]).s);
		goto done;
	}
	if (!platform) {
		cli_usage_error(prog, "--platform P.yaml is required");
		goto done;
	}
	if (!config_platform_load(platform, &pl, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		goto done;
	}
	have_pl = true;
	if (!cli_platform_flags(prog, &pl, set, mode_s, &x.mode))
		goto done;
	if (dtype_s) {
		enum dtype d;

		if (!dtype_parse(dtype_s, &d)) {
			cli_usage_error(prog, "--dtype must be one of " DTYPE_KNOWN ", got '%s'",
					quote_text(dtype_s).s);
			goto done;
		}
		x.dtype = (enum ir_dtype)d;
	}
	if (seed < 0 || jobs < 0 || jobs > 1024) {
		cli_usage_error(prog, "%s", seed < 0 ? "--seed must be 0 or more" : "--jobs must be 0..1024");
		goto done;
	}
	x.seed = (uint64_t)seed;
	if (!config_size_list("--sizes", sizes_s ? sizes_s : "1KiB..256MiB x4", sizes, &err)) {
		cli_usage_error(prog, "%s", err->message);
		goto done;
	}
	{
		g_auto(GStrv) items = g_strsplit(colls ? colls : "allreduce,allgather,reducescatter,"
							     "alltoall,broadcast,reduce", ",", -1);

		for (int i = 0; items[i]; i++) {
			enum coll c;

			if (!coll_parse(items[i], &c) || c == COLL_ALLGATHERV) {
				cli_usage_error(prog, "--collective: unknown collective '%s' (known: allreduce, "
						"allgather, reducescatter, alltoall, broadcast, reduce, p2p)",
						quote_text(items[i]).s);
				goto done;
			}
			g_array_append_val(cl, c);
		}
	}
	if (stride < 1 || stride >= pl.fabric.nranks) {
		cli_usage_error(prog, "--stride must be 1..%d, got %" G_GINT64_FORMAT,
				pl.fabric.nranks - 1, stride);
		goto done;
	}
	{
		g_autofree char *def = g_strdup_printf("%d", pl.fabric.nranks);
		g_auto(GStrv) items = g_strsplit(ranks_s ? ranks_s : def, ",", -1);

		for (int i = 0; items[i]; i++) {
			gint64 g;
			GError *e = NULL;

			if (!g_ascii_string_to_signed(items[i], 10, 2, pl.fabric.nranks, &g, &e) ||
			    (g - 1) * stride >= pl.fabric.nranks) {
				cli_usage_error(prog, "--ranks: a group of '%s' ranks %" G_GINT64_FORMAT
						" apart does not fit the platform's %d ranks%s%s",
						quote_text(items[i]).s, stride, pl.fabric.nranks,
						e ? ": " : "", e ? e->message : "");
				if (e)
					g_error_free(e);
				goto done;
			}
			int gi = (int)g;

			g_array_append_val(groups, gi);
		}
	}
	{
		g_auto(GStrv) items = g_strsplit(nchunks_s ? nchunks_s : "1,2,4", ",", -1);

		for (int i = 0; items[i]; i++) {
			gint64 k;
			GError *e = NULL;

			if (!g_ascii_string_to_signed(items[i], 10, 1, SCHED_MAX_NCHUNKS, &k, &e)) {
				cli_usage_error(prog, "--nchunks: %s", e->message);
				g_error_free(e);
				goto done;
			}
			uint32_t ku = (uint32_t)k;

			g_array_append_val(chunks, ku);
		}
	}
	/* sizes ascending (the profile's ranges need it), repeats dropped */
	g_array_sort(sizes, u64_cmp);
	uniq(sizes);
	g_array_sort(groups, int_cmp);
	uniq(groups);
	g_array_sort(chunks, u32_cmp);
	uniq(chunks);
	x.plat = &pl;
	/* the points: collective x group x size x algorithm x nchunks */
	for (guint ci = 0; ci < cl->len; ci++) {
		enum coll c = g_array_index(cl, enum coll, ci);
		g_autoptr(GPtrArray) names = candidates(c, platform_node_ranks(&pl) > 0, hier_names);

		for (guint gi = 0; gi < groups->len; gi++)
			for (guint si = 0; si < sizes->len; si++)
				for (guint ai = 0; ai < names->len; ai++)
					for (guint ki = 0; ki < chunks->len; ki++) {
						struct tpoint p = {
							.coll = c, .ranks = g_array_index(groups, int, gi),
							.stride = (int)stride,
							.bytes = g_array_index(sizes, uint64_t, si),
							.algo = names->pdata[ai],
							.nchunks = g_array_index(chunks, uint32_t, ki),
						};

						g_array_append_val(pts, p);
					}
	}
	{
		GThreadPool *pool = g_thread_pool_new(run_point, &x,
						      jobs ? (int)jobs : (int)g_get_num_processors(),
						      TRUE, NULL);

		for (guint i = 0; i < pts->len; i++)
			g_thread_pool_push(pool, &g_array_index(pts, struct tpoint, i), NULL);
		g_thread_pool_free(pool, FALSE, TRUE);
	}
	rc = 1;
	/* a point that failed for another reason than its shape is an error */
	for (guint i = 0; i < pts->len; i++) {
		const struct tpoint *p = &g_array_index(pts, struct tpoint, i);

		if (!p->ok && !p->refused) {
			fprintf(stderr, "%s: %s %s nchunks %u, %d ranks, %" G_GUINT64_FORMAT " bytes: %s\n",
				prog, coll_name(p->coll), p->algo, p->nchunks, p->ranks, p->bytes, p->why);
			goto done;
		}
	}
	printf("# g5 tune on %s (%d ranks), mode %s, %s, seed %" G_GUINT64_FORMAT
	       ": per collective, group (ranks, stride) and size, the best algorithm/nchunks, the best "
	       "other algorithm, and the default\n",
	       pl.name ? pl.name : platform, pl.fabric.nranks, platform_mode_name(x.mode),
	       dtype_name((enum dtype)x.dtype), x.seed);
	printf("# collective     ranks stride        bytes  %-24s %10s  %-24s %8s  %-12s %10s %8s\n",
	       "best", "best_us", "runner_up", "margin_%", "default", "default_us", "loses_%");

	struct tune_profile prof = { .platform = pl.name,
				     .entries = g_array_new(FALSE, TRUE, sizeof(struct tune_entry)) };
	const struct tpoint *all = (const struct tpoint *)(void *)pts->data;

	for (size_t lo = 0; lo < pts->len;) {
		size_t hi = lo;

		while (hi < pts->len && all[hi].coll == all[lo].coll && all[hi].ranks == all[lo].ranks &&
		       all[hi].bytes == all[lo].bytes)
			hi++;
		struct verdict v = judge(all, lo, hi);
		char b[48] = "-", s[48] = "-", d[48] = "-";

		if (v.best)
			snprintf(b, sizeof(b), "%s/%u", v.best->algo, v.best->nchunks);
		if (v.second)
			snprintf(s, sizeof(s), "%s/%u", v.second->algo, v.second->nchunks);
		if (v.dflt)
			snprintf(d, sizeof(d), "%s/%u", v.dflt->algo, v.dflt->nchunks);
		printf("  %-14s %6d %6d %12" G_GUINT64_FORMAT "  %-24s %10.3f  %-24s %8.2f  %-12s %10.3f %8.2f\n",
		       coll_name(all[lo].coll), all[lo].ranks, all[lo].stride, all[lo].bytes, b,
		       v.best ? us(v.best->t_ps) : NAN, s,
		       v.best && v.second ? 100.0 * ((double)v.second->t_ps / (double)v.best->t_ps - 1) : NAN,
		       d, v.dflt ? us(v.dflt->t_ps) : NAN,
		       v.best && v.dflt ? 100.0 * ((double)v.dflt->t_ps / (double)v.best->t_ps - 1) : NAN);
		/* the profile: a new range where the winner changes, its bound
		 * halfway (geometric) to the next size */
		if (v.best) {
			struct tune_entry *last = prof.entries->len
				? &g_array_index(prof.entries, struct tune_entry, prof.entries->len - 1) : NULL;
			bool same_key = last && last->coll == all[lo].coll && last->ranks == all[lo].ranks &&
					last->stride == all[lo].stride;
			size_t next = hi;
			bool has_next = next < pts->len && all[next].coll == all[lo].coll &&
					all[next].ranks == all[lo].ranks;
			uint64_t bound = has_next ? (uint64_t)floor(sqrt((double)all[lo].bytes *
									 (double)all[next].bytes))
						  : UINT64_MAX;

			if (same_key && !strcmp(last->algo, v.best->algo) && last->nchunks == v.best->nchunks) {
				last->up_to = bound;
			} else {
				struct tune_entry e = { .coll = all[lo].coll, .ranks = all[lo].ranks,
							.stride = all[lo].stride, .up_to = bound,
							.algo = (char *)v.best->algo, .nchunks = v.best->nchunks };

				g_array_append_val(prof.entries, e);
			}
		}
		lo = hi;
	}
	rc = 0;
	if (out) {
		if (!tune_profile_write(&prof, out, &err)) {
			fprintf(stderr, "%s: %s\n", prog, err->message);
			rc = 1;
		} else {
			fprintf(stderr, "%s: wrote %s (%u entries)\n", prog, out, prof.entries->len);
		}
	}
	g_array_unref(prof.entries); /* the algo names are the registry's or hier_names' */
done:
	for (guint i = 0; i < pts->len; i++)
		g_free(g_array_index(pts, struct tpoint, i).why);
	g_array_unref(pts);
	if (err)
		g_error_free(err);
	if (have_pl)
		platform_release(&pl);
	g_free(platform);
	g_free(colls);
	g_free(sizes_s);
	g_free(ranks_s);
	g_free(nchunks_s);
	g_free(mode_s);
	g_free(dtype_s);
	g_free(out);
	g_strfreev(set);
	return rc;
}
