/* `g5 workload`: workload files (sim/workload.h, docs/workload.md).
 *   g5 workload FILE --platform P.yaml [-o DIR]  run it: step time, exposed
 *                                        communication, per collective its time
 *   g5 workload --check FILE             read and check FILE, print what it holds
 *   g5 workload --import TRACE... -o W   PyTorch profiler traces to a workload file
 * Every file is written whole or not at all; an import is read back with the
 * file reader's checks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "sim/cli.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/tune.h"
#include "sim/util/files.h"
#include "sim/util/quote.h"
#include "sim/workload.h"
#include "sim/workload_run.h"

static void summary(const struct workload *w)
{
	printf("workload %s: %d ranks, %d streams (", w->name, w->nranks, w->nstreams);
	for (int i = 0; i < w->nstreams; i++)
		printf("%s%s", i ? ", " : "", w->streams[i]);
	printf(")\n");
	for (int i = 0; i < w->ncomms; i++)
		printf("communicator %s: %d group%s of %d\n", w->comms[i].name, w->comms[i].ngroups,
		       w->comms[i].ngroups == 1 ? "" : "s", w->comms[i].group_size);
	printf("# rank  ops  collectives  coll_MiB  compute_us\n");
	for (int r = 0; r < w->nranks; r++) {
		struct wl_totals t;

		workload_totals(w, r, &t);
		printf("%6d %4u %12u %9.3f %11.3f\n", r, w->progs[r].nops, t.colls,
		       (double)t.coll_bytes / (1 << 20), (double)t.compute_ps / 1e6);
	}
}

static double us(sim_time_t ps)
{
	return (double)ps / 1e6;
}

/* Calls of the same collective, size, dtype, communicator and algorithm,
 * in order of their first call. */
struct kind {
	const struct wl_call *first;
	uint32_t n;
	sim_time_t sum_ps, max_ps;
};

static GArray *kinds_of(const struct workload *w, const struct workload_result *res)
{
	GArray *k = g_array_new(FALSE, FALSE, sizeof(struct kind));

	for (guint i = 0; i < res->calls->len; i++) {
		const struct wl_call *c = &g_array_index(res->calls, struct wl_call, i);
		sim_time_t t = c->end_ps - c->start_ps;
		guint j;

		for (j = 0; j < k->len; j++) {
			const struct wl_call *f = g_array_index(k, struct kind, j).first;

			if (f->op->coll == c->op->coll && f->op->bytes == c->op->bytes &&
			    f->op->dtype == c->op->dtype && f->comm == c->comm && !strcmp(f->algo, c->algo) &&
			    f->nchunks == c->nchunks)
				break;
		}
		if (j == k->len) {
			struct kind x = { .first = c };

			g_array_append_val(k, x);
		}
		struct kind *x = &g_array_index(k, struct kind, j);

		x->n++;
		x->sum_ps += t;
		x->max_ps = MAX(x->max_ps, t);
	}
	(void)w;
	return k;
}

static void report(const struct workload *w, const char *platform, const char *mode,
		   uint64_t seed, const struct workload_result *res)
{
	struct wl_rank_stats mx = { 0 };

	for (int r = 0; r < res->nranks; r++) {
		mx.compute_ps = MAX(mx.compute_ps, res->ranks[r].compute_ps);
		mx.comm_ps = MAX(mx.comm_ps, res->ranks[r].comm_ps);
		mx.exposed_ps = MAX(mx.exposed_ps, res->ranks[r].exposed_ps);
	}
	printf("# workload %s on %s: %d ranks, mode %s, seed %" G_GUINT64_FORMAT ", %u calls\n",
	       w->name, platform, w->nranks, mode, seed, res->calls->len);
	printf("step_us %.3f  compute_us %.3f  comm_us %.3f  exposed_us %.3f  (the most of any rank)\n",
	       us(res->step_ps), us(mx.compute_ps), us(mx.comm_ps), us(mx.exposed_ps));
	printf("# collective     comm        bytes  dtype  algo/nchunks  calls   mean_us    max_us  share_%%\n");

	g_autoptr(GArray) k = kinds_of(w, res);

	for (guint i = 0; i < k->len; i++) {
		const struct kind *x = &g_array_index(k, struct kind, i);
		const struct wl_op *o = x->first->op;

		g_autofree char *an = g_strdup_printf("%s/%u", x->first->algo, x->first->nchunks);

		printf("  %-14s %-8s %12" G_GUINT64_FORMAT "  %-5s  %-12s %5u %9.3f %9.3f %8.2f\n",
		       coll_name(o->coll), w->comms[x->first->comm].name, o->bytes,
		       dtype_name((enum dtype)o->dtype), an, x->n,
		       us(x->sum_ps) / x->n, us(x->max_ps),
		       res->step_ps ? 100.0 * (double)x->sum_ps / (double)res->step_ps : 0);
	}
}

static void add_i(struct rtable *t, const char *col, int64_t v)
{
	g_array_append_val(rtable_col(t, col)->v, v);
}

static void add_f(struct rtable *t, const char *col, double v)
{
	g_array_append_val(rtable_col(t, col)->v, v);
}

static void add_s(struct rtable *t, const char *col, const char *v)
{
	g_ptr_array_add(rtable_col(t, col)->s, g_strdup(v));
}

/* The tables "calls" (one row per call) and "ranks" (one per rank). */
static void tables(const struct workload *w, const struct workload_result *res,
		   struct rtable **calls, struct rtable **ranks)
{
	struct rtable *c = rtable_new("calls"), *r = rtable_new("ranks");
	static const char *const cstr[] = { "comm", "collective", "dtype", "algo" };
	static const char *const cint[] = { "call", "group", "k", "bytes", "nchunks" };
	static const char *const cnum[] = { "start_us", "end_us", "time_us", "share" };
	static const char *const rnum[] = { "end_us", "compute_us", "comm_us", "exposed_us" };

	rtable_add(c, "call", RC_I64);
	rtable_add(c, "comm", RC_STR);
	rtable_add(c, "group", RC_I64);
	rtable_add(c, "k", RC_I64);
	rtable_add(c, "collective", RC_STR);
	rtable_add(c, "bytes", RC_I64);
	rtable_add(c, "dtype", RC_STR);
	rtable_add(c, "algo", RC_STR);
	rtable_add(c, "nchunks", RC_I64);
	for (size_t i = 0; i < G_N_ELEMENTS(cnum); i++)
		rtable_add(c, cnum[i], RC_F64);
	for (guint i = 0; i < res->calls->len; i++) {
		const struct wl_call *x = &g_array_index(res->calls, struct wl_call, i);
		const char *sv[] = { w->comms[x->comm].name, coll_name(x->op->coll),
				     dtype_name((enum dtype)x->op->dtype), x->algo };
		int64_t iv[] = { i, x->group, x->k, (int64_t)x->op->bytes, x->nchunks };
		double nv[] = { us(x->start_ps), us(x->end_ps), us(x->end_ps - x->start_ps),
				res->step_ps ? (double)(x->end_ps - x->start_ps) / (double)res->step_ps : 0 };

		for (size_t k = 0; k < 4; k++) {
			add_s(c, cstr[k], sv[k]);
			add_f(c, cnum[k], nv[k]);
		}
		for (size_t k = 0; k < G_N_ELEMENTS(cint); k++)
			add_i(c, cint[k], iv[k]);
	}
	c->nrows = res->calls->len;
	rtable_add(r, "rank", RC_I64);
	for (size_t i = 0; i < G_N_ELEMENTS(rnum); i++)
		rtable_add(r, rnum[i], RC_F64);
	for (int i = 0; i < res->nranks; i++) {
		const struct wl_rank_stats *st = &res->ranks[i];
		double nv[] = { us(st->end_ps), us(st->compute_ps), us(st->comm_ps), us(st->exposed_ps) };

		add_i(r, "rank", i);
		for (size_t k = 0; k < G_N_ELEMENTS(rnum); k++)
			add_f(r, rnum[k], nv[k]);
	}
	r->nrows = (guint)res->nranks;
	*calls = c;
	*ranks = r;
}

/* DIR/workload.h5 (the tables and the run's inputs), DIR/calls.csv,
 * DIR/ranks.csv and DIR/trace.json. */
static bool write_outputs(const struct workload *w, const struct workload_result *res,
			  const char *file, const char *platform, const char *mode, uint64_t seed,
			  const char *dir, GError **error)
{
	if (g_mkdir_with_parents(dir, 0755)) {
		g_set_error(error, FILES_ERROR, FILES_ERROR_IO, "%s: %s", dir, g_strerror(errno));
		return false;
	}
	struct rtable *calls, *ranks;
	g_autofree char *wtext = NULL, *ptext = NULL;
	g_autofree char *seed_s = g_strdup_printf("%" G_GUINT64_FORMAT, seed);
	g_autofree char *step_s = g_strdup_printf("%.6f", us(res->step_ps));

	if (!g_file_get_contents(file, &wtext, NULL, error) ||
	    !g_file_get_contents(platform, &ptext, NULL, error))
		return false;
	tables(w, res, &calls, &ranks);
	const char *const attrs[][2] = {
		{ "workload", w->name },        { "workload_path", file },
		{ "workload_yaml", wtext },     { "platform_path", platform },
		{ "platform_yaml", ptext },     { "mode", mode },
		{ "seed", seed_s },             { "step_us", step_s },
	};
	const struct rtable *const tabs[] = { calls, ranks };
	g_autofree char *ph = g_build_filename(dir, "workload.h5", NULL);
	g_autofree char *pc = g_build_filename(dir, "calls.csv", NULL);
	g_autofree char *pr = g_build_filename(dir, "ranks.csv", NULL);
	g_autofree char *pt = g_build_filename(dir, "trace.json", NULL);
	bool ok = results_write_tables_h5(ph, attrs, G_N_ELEMENTS(attrs), tabs, G_N_ELEMENTS(tabs),
					  error) &&
		  rtable_write_csv(calls, pc, error) && rtable_write_csv(ranks, pr, error) &&
		  workload_trace_write(w, res, pt, error);

	rtable_free(calls);
	rtable_free(ranks);
	return ok;
}

static int run_file(const char *prog, const char *file, const char *platform, char **set,
		    const char *mode_name, gint64 seed, const char *tune, const char *dir)
{
	struct platform pl;
	struct tune_profile *prof = NULL;
	struct workload_run_opts ro = { .plat = &pl, .seed = (uint64_t)seed };
	struct workload_result res = { 0 };
	GError *err = NULL;
	struct workload *w = NULL;
	int rc = 2;

	if (!config_platform_load(platform, &pl, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		g_error_free(err);
		return 2;
	}
	if (!cli_platform_flags(prog, &pl, set, mode_name, &ro.mode))
		goto out;
	if (seed < 0) {
		cli_usage_error(prog, "--seed must be 0 or more, got %" G_GINT64_FORMAT, seed);
		goto out;
	}
	if (tune && !(prof = tune_profile_load(tune, &err))) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		goto out;
	}
	ro.tune = prof;
	w = workload_load(file, &err);
	if (!w) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		goto out;
	}
	rc = 1;
	if (!workload_run(w, &ro, &res, &err)) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, err->message);
		goto out;
	}
	if (dir && !write_outputs(w, &res, file, platform, platform_mode_name(ro.mode), ro.seed, dir,
				  &err)) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		goto out;
	}
	report(w, pl.name ? pl.name : platform, platform_mode_name(ro.mode), ro.seed, &res);
	if (dir)
		fprintf(stderr, "%s: wrote %s/workload.h5, calls.csv, ranks.csv and trace.json\n", prog,
			dir);
	rc = 0;
out:
	if (err)
		g_error_free(err);
	workload_result_clear(&res);
	workload_free(w);
	tune_profile_free(prof);
	platform_release(&pl);
	return rc;
}

int cmd_workload(int argc, char **argv)
{
	gboolean check = FALSE, import = FALSE;
	char *out = NULL, *platform = NULL, *mode = NULL, *tune = NULL;
	char **set = NULL;
	gint64 seed = 1;
	GOptionEntry entries[] = {
		{ "platform", 'p', 0, G_OPTION_ARG_FILENAME, &platform, "run FILE on this platform", "P.yaml" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &set, "override a platform key (repeatable)", "KEY=VALUE" },
		{ "mode", 0, 0, G_OPTION_ARG_STRING, &mode, "single (default) or mpi: the launch cost of each collective", "M" },
		{ "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "RNG seed (1)", "N" },
		{ "tune", 0, 0, G_OPTION_ARG_FILENAME, &tune,
		  "algo auto from this tuning profile (g5 tune -o); else the defaults", "PROFILE.yaml" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "a run: the directory for workload.h5, calls.csv, ranks.csv, trace.json; "
		  "--import: the workload file",
		  "PATH" },
		{ "check", 0, 0, G_OPTION_ARG_NONE, &check, "read and check a workload file", NULL },
		{ "import", 0, 0, G_OPTION_ARG_NONE, &import,
		  "import PyTorch profiler traces (one, or one per rank)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	const char *prog = argv[0];
	GOptionContext *ctx = g_option_context_new("FILE|TRACE... - run a workload file on a "
						   "platform, check one, or import PyTorch traces");
	GError *err = NULL;
	struct workload *w = NULL;
	int rc = 2;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 workload experiments/workloads/tp-dp-8.yaml --platform configs/platforms/seed-ring8.yaml\n"
					 "  g5 workload --check experiments/workloads/fsdp-16.yaml\n"
					 "  g5 workload --import trace-rank0.json -o step.yaml\n");
	bool parsed = cli_parse(ctx, prog, &argc, &argv);

	g_option_context_free(ctx);
	if (!parsed)
		goto done;
	if (check && import) {
		cli_usage_error(prog, "give one of --check FILE, --import TRACE... -o W.yaml or FILE --platform P.yaml");
		goto done;
	}
	if (argc < 2) {
		cli_usage_error(prog, "%s", check ? "--check needs a workload file"
					  : import ? "--import needs at least one trace"
						   : "give a workload file (and --platform P.yaml)");
		goto done;
	}
	if (!check && !import) {
		if (argc != 2) {
			cli_usage_error(prog, "unexpected argument '%s'", quote_text(argv[2]).s);
			goto done;
		}
		if (!platform) {
			cli_usage_error(prog, "running a workload needs --platform P.yaml");
			goto done;
		}
		rc = run_file(prog, argv[1], platform, set, mode, seed, tune, out);
		goto done;
	}
	if (platform || set || mode || tune) {
		cli_usage_error(prog, "--platform, --set, --mode and --tune are for running a workload");
		goto done;
	}
	if (check) {
		if (argc != 2 || out) {
			cli_usage_error(prog, "--check takes one file and no --output");
			goto done;
		}
		w = workload_load(argv[1], &err);
		if (!w) {
			fprintf(stderr, "%s: %s\n", prog, err->message);
			goto done;
		}
		summary(w);
		rc = 0;
		goto done;
	}
	if (!out) {
		cli_usage_error(prog, "--import needs --output W.yaml");
		goto done;
	}
	w = workload_import_torch((const char *const *)argv + 1, argc - 1, &err);
	if (!w || !workload_write(w, out, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		goto done;
	}
	workload_free(w);
	w = workload_load(out, &err);
	if (!w) {
		fprintf(stderr, "%s: the traces do not make a consistent workload: %s\n", prog,
			err->message);
		remove(out);
		goto done;
	}
	fprintf(stderr, "%s: wrote %s (%d ranks, from %d trace%s)\n", prog, out, w->nranks,
		argc - 1, argc == 2 ? "" : "s");
	summary(w);
	rc = 0;
done:
	if (err)
		g_error_free(err);
	workload_free(w);
	g_free(out);
	g_free(platform);
	g_free(mode);
	g_free(tune);
	g_strfreev(set);
	return rc;
}
