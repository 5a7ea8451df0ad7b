/* `g5 calibrate --platform P.yaml MEASURED... -o P2.yaml`: fits a few named
 * platform keys to measured curves by nonlinear least squares on log time
 * (sim/util/fit.h, GSL), then writes P with the fitted values.
 *
 * The residual of a point is ln(t_sim / t_meas). By default each curve's
 * sizes alternate between the fit (1st, 3rd, ...) and a held-out set (2nd,
 * 4th, ...), whose error is reported separately; --all-sizes fits on all.
 * The keys: --fit KEY,KEY,...; by default, for the executor's rows (impl g5)
 * `overhead`, `link.bandwidth`, the fixed cost of its work (`channels.latency`
 * on a platform with `paxi.engine`, else `paxi.setup`), and `overhead_mpi`
 * when some row ran one process per GPU and the platform gives it a value of
 * its own; for NCCL's rows `nccl.overhead` (and `nccl.overhead_mpi`), the
 * per-channel rates of LL, LL128 and Simple and Simple's latency, or its
 * setup per call (`proto.simple.launch`) on a platform that gives that a
 * value (LL's is in the launch cost; LL128's only by --fit): what makes NCCL
 * pick one protocol over another.
 * A key the data cannot determine is refused with the fit's reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/compare.h"
#include "sim/util/fit.h"
#include "sim/util/quote.h"

struct cal {
	struct platform pl;   /* the platform being fitted (values change) */
	GPtrArray *curves;
	char **keys;
	guint nkeys;
	guint threads;
	size_t n;             /* residuals */
};

static bool residuals(const double *x, double *r, void *user, GError **error)
{
	struct cal *c = user;
	size_t i = 0;

	for (guint k = 0; k < c->nkeys; k++)
		if (!config_platform_set_num(&c->pl, c->keys[k], x[k], error))
			return false;
	if (!compare_simulate_fit(c->curves, &c->pl, c->threads, error))
		return false;
	for (guint j = 0; j < c->curves->len; j++) {
		const struct curve *cv = c->curves->pdata[j];

		for (guint k = 0; k < cv->n; k++)
			if (cv->fit[k])
				r[i++] = log(cv->sim_us[k] / cv->meas_us[k]);
	}
	g_assert(i == c->n);
	return true;
}

/* The default keys for the impls and modes in the data. */
static char **default_keys(GPtrArray *curves, const struct platform *pl)
{
	bool g5 = false, g5_mpi = false, nccl = false, nccl_mpi = false;
	GPtrArray *k = g_ptr_array_new();

	for (guint i = 0; i < curves->len; i++) {
		const struct curve *c = curves->pdata[i];
		bool is_nccl = !strcmp(c->impl, "nccl"), mpi = !strcmp(c->mode, "mpi");

		nccl |= is_nccl;
		g5 |= !is_nccl;
		nccl_mpi |= is_nccl && mpi;
		g5_mpi |= !is_nccl && mpi;
	}
	if (g5) {
		g_ptr_array_add(k, g_strdup("overhead"));
		if (g5_mpi && pl->overhead_mpi_ps)
			g_ptr_array_add(k, g_strdup("overhead_mpi"));
		g_ptr_array_add(k, g_strdup("link.bandwidth"));
		g_ptr_array_add(k, g_strdup(pl->paxi.engine ? "channels.latency" : "paxi.setup"));
	}
	if (nccl) {
		if (pl->nccl.issue_ps) { /* the host's time per call is NCCL's own */
			g_ptr_array_add(k, g_strdup("nccl.issue"));
			if (nccl_mpi)
				g_ptr_array_add(k, g_strdup("nccl.issue_mpi"));
		} else {
			g_ptr_array_add(k, g_strdup("nccl.overhead"));
			if (nccl_mpi)
				g_ptr_array_add(k, g_strdup("nccl.overhead_mpi"));
		}
		g_ptr_array_add(k, g_strdup("proto.ll.channel_bw"));
		g_ptr_array_add(k, g_strdup("proto.simple.channel_bw"));
		/* a platform that splits Simple's fixed cost into a part per
		 * step and one per call (proto.simple.launch) fits the latter */
		g_ptr_array_add(k, g_strdup(pl->paxi.protos[PAXI_PROTO_SIMPLE].launch_ps
						    ? "proto.simple.launch"
						    : "proto.simple.latency"));
		g_ptr_array_add(k, g_strdup("proto.ll128.channel_bw"));
	}
	g_ptr_array_add(k, NULL);
	return (char **)g_ptr_array_free(k, FALSE);
}

/* A key's value for people: us, GB/s, bytes or the number. */
static char *human(const char *key, double v, double sigma)
{
	if (strstr(key, "bandwidth") || strstr(key, "_bw") || !strcmp(key, "paxi.reduce"))
		return g_strdup_printf("%.3f GB/s +- %.3f", v / 1e9, sigma / 1e9);
	if (strstr(key, "overhead") || strstr(key, "latency") || strstr(key, "setup") ||
	    strstr(key, "ctrl_proc") || strstr(key, "issue") || strstr(key, "launch") ||
	    strstr(key, "spread"))
		return g_strdup_printf("%.3f us +- %.3f", v / 1e6, sigma / 1e6);
	return g_strdup_printf("%g +- %g", v, sigma);
}

static void errors_line(GString *g, const char *what, GPtrArray *curves, bool all, bool which)
{
	double ge, me;
	guint n = curves_errors(curves, all, which, &ge, &me);

	if (n)
		g_string_append_printf(g, "%s: geomean_err %.2f %%, max_err %.2f %% over %u points\n",
				       what, 100 * ge, 100 * me, n);
}

int cmd_calibrate(int argc, char **argv)
{
	g_autofree char *where = NULL, *src = NULL; /* before any goto */
	g_autofree char *platform = NULL, *out = NULL, *fit = NULL;
	gboolean all_sizes = FALSE;
	gint threads = 0;
	GOptionEntry entries[] = {
		{ "platform", 0, 0, G_OPTION_ARG_FILENAME, &platform, "platform file to start from (required)", "FILE" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the calibrated platform file to write (required)", "FILE" },
		{ "fit", 0, 0, G_OPTION_ARG_STRING, &fit, "platform keys to fit (default: see g5 calibrate in docs/validation.md)", "KEY,KEY" },
		{ "all-sizes", 0, 0, G_OPTION_ARG_NONE, &all_sizes, "fit on every size (default: every other size, the rest held out)", NULL },
		{ "where", 0, 0, G_OPTION_ARG_STRING, &where, "only the points that match: impl=g5,collective=allreduce,mode=single|mpi", "TERMS" },
		{ "threads", 0, 0, G_OPTION_ARG_INT, &threads, "simulation threads (default: the processors)", "N" },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("MEASURED... - fit platform keys to measured curves");
	struct cal c = { 0 };
	struct fit_param *params = NULL;
	GError *err = NULL;
	int rc = 2;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 calibrate --platform configs/platforms/h200x2-nvlink-start.yaml \\\n"
					 "      --where impl=g5,collective=allreduce,algo=ring -o mine.yaml \\\n"
					 "      docs/measurements/h200x2-validation/results.csv\n"
					 "  g5 calibrate --platform configs/platforms/h200x2-nvlink-start.yaml \\\n"
					 "      --fit link.bandwidth --all-sizes --where impl=g5,algo=ring -o bw.yaml \\\n"
					 "      docs/measurements/h200x2-validation/results.csv");
	platform_init_default(&c.pl);
	if (!cli_parse(ctx, argv[0], &argc, &argv))
		goto out;
	if (!platform || !out) {
		cli_usage_error(argv[0], "--platform and -o are required");
		goto out;
	}
	if (argc < 2) {
		cli_usage_error(argv[0], "no measured file given");
		goto out;
	}
	if (threads < 0 || threads > 1024) {
		cli_usage_error(argv[0], "--threads must be in 1..1024, got %d", threads);
		goto out;
	}
	platform_release(&c.pl);
	if (!config_platform_load(platform, &c.pl, &err)) {
		platform_init_default(&c.pl);
		goto fail;
	}
	c.curves = compare_load(argv + 1, where, &err);
	if (!c.curves)
		goto fail;
	c.keys = fit ? g_strsplit(fit, ",", -1) : default_keys(c.curves, &c.pl);
	c.nkeys = g_strv_length(c.keys);
	c.threads = threads ? (guint)threads : g_get_num_processors();
	if (!c.nkeys) {
		cli_usage_error(argv[0], "--fit names no key");
		goto out;
	}
	params = g_new0(struct fit_param, c.nkeys);
	for (guint k = 0; k < c.nkeys; k++) {
		double v;

		for (guint j = 0; j < k; j++)
			if (!strcmp(c.keys[j], c.keys[k])) {
				cli_usage_error(argv[0], "--fit names '%s' twice", quote_text(c.keys[k]).s);
				goto out;
			}
		if (!config_platform_get_num(&c.pl, c.keys[k], &v, &err)) {
			g_prefix_error(&err, "--fit: ");
			goto usage;
		}
		if (!(v > 0)) {
			cli_usage_error(argv[0], "--fit: '%s' is 0 (unlimited or off) in %s: give it a "
				       "starting value in the platform file", c.keys[k], platform);
			goto out;
		}
		params[k] = (struct fit_param){ .name = c.keys[k], .value = v, .lo = v / 20,
						.hi = v * 20 };
	}
	for (guint i = 0; i < c.curves->len; i++) {
		struct curve *cv = c.curves->pdata[i];

		for (guint k = 0; k < cv->n; k++) {
			cv->fit[k] = all_sizes || k % 2 == 0;
			c.n += cv->fit[k];
		}
	}
	rc = 1;
	struct fit_result res = { 0 };
	struct fit_options fo = FIT_OPTIONS_INIT;

	fo.step_log = 0.01; /* the simulator is piecewise smooth at this scale */
	fo.ftol = 1e-4;     /* chi2 that moves less than this is converged */
	fo.stall_ok = true;
	bool fitted = fit_least_squares(params, c.nkeys, c.n, residuals, &c, &fo, &res, &err);

	if (!fitted) {
		if (g_error_matches(err, FIT_ERROR, FIT_ERROR_UNDETERMINED))
			for (guint k = 0; k < c.nkeys; k++) {
				g_autofree char *h = human(params[k].name, params[k].value,
							   params[k].sigma);

				fprintf(stderr, "  %-24s %s%s\n", params[k].name, h,
					params[k].determined ? "" : "  (not determined)");
			}
		goto fail;
	}
	/* the final values, and the errors with them */
	for (guint k = 0; k < c.nkeys; k++)
		if (!config_platform_set_num(&c.pl, c.keys[k], params[k].value, &err))
			goto fail;
	if (!compare_simulate(c.curves, &c.pl, NULL, c.threads, &err))
		goto fail;
	GString *note = g_string_new(NULL);

	g_string_append_printf(note, "calibrated by g5 calibrate from %s on:\n", platform);
	for (int i = 1; i < argc; i++)
		g_string_append_printf(note, "  %s\n", argv[i]);
	g_string_append_printf(note, "%u curves, %zu points in the fit (%s); %u iterations, "
			       "%u simulations of every point\nfitted (1 sigma):\n",
			       c.curves->len, c.n, all_sizes ? "every size" : "every other size",
			       res.iterations, res.evaluations);
	for (guint k = 0; k < c.nkeys; k++) {
		g_autofree char *h = human(params[k].name, params[k].value, params[k].sigma);

		g_string_append_printf(note, "  %-24s %s\n", params[k].name, h);
	}
	errors_line(note, "on the sizes fitted", c.curves, all_sizes, true);
	if (!all_sizes)
		errors_line(note, "on the sizes held out", c.curves, false, false);
	fputs(note->str, stdout);
	/* the comment block of the platform it started from follows */
	if (g_file_get_contents(platform, &src, NULL, NULL)) {
		g_auto(GStrv) lines = g_strsplit(src, "\n", -1);

		if (lines[0] && lines[0][0] == '#')
			g_string_append_printf(note, "\nthe comments of %s:\n", platform);
		for (char **l = lines; *l && (*l)[0] == '#'; l++)
			g_string_append_printf(note, "%s\n", *l + ((*l)[1] == ' ' ? 2 : 1));
	}
	bool ok = config_platform_write(&c.pl, note->str, out, &err);

	g_string_free(note, TRUE);
	if (!ok)
		goto fail;
	printf("wrote %s\n", out);
	rc = 0;
	goto out;
usage:
	cli_usage_error(argv[0], "%s", err->message);
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", argv[0], err->message);
out:
	g_clear_error(&err);
	g_free(params);
	g_strfreev(c.keys);
	if (c.curves)
		g_ptr_array_unref(c.curves);
	platform_release(&c.pl);
	g_option_context_free(ctx);
	return rc;
}
