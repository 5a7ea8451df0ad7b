/* `g5 run EXPERIMENT.yaml`: loads an experiment (and its platform), runs
 * every point in parallel, and writes DIR/NAME.h5, DIR/NAME.csv and the
 * plots under DIR/plots/ (DIR: -o, else the experiment's outputs.dir). A
 * file error prints "FILE:LINE:COL: message" and exits 2; an unwritable
 * output exits 1, and so does a failed point, after the files, in which it
 * is a row with its message (the other points are kept).
 *
 * An experiment's outputs are one generation (sim/manifest): a run first
 * removes the temporaries a killed run of the same experiment left, and
 * writes DIR/NAME.manifest last, listing what it wrote, after removing
 * what the previous manifest lists and it did not write again. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli.h"
#include "sim/config.h"
#include "sim/fidelity.h"
#include "sim/manifest.h"
#include "sim/plot.h"
#include "sim/results.h"
#include "sim/sweep_mpi.h"
#include "sim/util/quote.h"

int cmd_run(int argc, char **argv)
{
	g_autofree char *out_dir = NULL, *h5 = NULL, *csv = NULL;
	g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func(g_free);
	gint jobs = 0;
	gint64 max_events = G_MININT64; /* not given */
	gint64 t0;
	guint nplots = 0;
	gboolean quiet = FALSE, no_plots = FALSE;
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, "output directory (default: the experiment's outputs.dir)", "DIR" },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "points simulated in parallel (default: one per core)", "N" },
		{ "no-plots", 0, 0, G_OPTION_ARG_NONE, &no_plots, "write the results files only", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress bar and no summary line", NULL },
		{ "max-events", 0, 0, G_OPTION_ARG_INT64, &max_events, "a point estimated above N events fails before it runs, one that reaches N stops (500000000; 0: no limit)", "N" },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("EXPERIMENT.yaml - run an experiment");
	struct experiment *e = NULL;
	struct exp_results *r = NULL;
	struct exp_share share = { .size = 1 };
	GError *err = NULL;
	int rc = 2;
	bool root;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Writes DIR/NAME.h5 (docs/results.md), DIR/NAME.csv and "
					 "DIR/plots/. The keys of an experiment file are in docs/config.md.\n\n"
					 "Examples:\n"
					 "  g5 run experiments/example-tiny.yaml -o results/tiny\n"
					 "  g5 run experiments/01-allreduce.yaml --jobs 2\n"
					 "  g5 run experiments/example-link-sweep.yaml --no-plots -q");
	if (!cli_parse(ctx, argv[0], &argc, &argv))
		goto out;
	if (argc != 2) {
		cli_usage_error(argv[0], argc < 2 ? "missing the experiment file" : "unexpected argument '%s'",
				argc < 2 ? "" : quote_text(argv[2]).s);
		goto out;
	}
	if (jobs < 0) {
		cli_usage_error(argv[0], "--jobs must be at least 1, got %d", jobs);
		goto out;
	}
	if (max_events != G_MININT64 && max_events < 0) {
		cli_usage_error(argv[0], "--max-events must be 0 (no limit) or more, got %" G_GINT64_FORMAT,
				max_events);
		goto out;
	}
	/* under an MPI launcher: every process loads and checks the same
	 * experiment, runs its share of the points, and rank 0 alone writes */
	if (!sweep_mpi_start(&share, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err->message);
		goto out;
	}
	root = share.rank == 0;
	e = config_experiment_load(argv[1], &err);
	if (!e) {
		if (root)
			fprintf(stderr, "%s\n", err->message);
		goto out;
	}
	rc = 1;
	if (!out_dir)
		out_dir = g_strdup(e->out_dir);
	/* "DIR/" as DIR: the manifest names files relative to it */
	for (size_t n = strlen(out_dir); n > 1 && out_dir[n - 1] == '/'; n--)
		out_dir[n - 1] = '\0';
	/* plots into a directory gnuplot cannot name: refused before anything is written */
	if (!no_plots && (e->formats & (OUT_PNG | OUT_SVG)) &&
	    !plot_path_ok("output directory", out_dir, &err)) {
		if (root)
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
		goto out;
	}
	bool dir_ok = !root || g_mkdir_with_parents(out_dir, 0777) == 0;

	if (!dir_ok)
		fprintf(stderr, "%s: %s: cannot create: %s\n", argv[0], out_dir, g_strerror(errno));
	if (!sweep_mpi_agree(&share, dir_ok))
		goto out;
	if (root)
		manifest_remove_tmps(out_dir, e->name);
	t0 = g_get_monotonic_time();

	r = exp_run_share(e, jobs,
			  max_events == 0 ? UINT64_MAX : max_events > 0 ? (uint64_t)max_events : 0,
			  root && !quiet && isatty(STDERR_FILENO), &share, &err);
	if (!r) {
		if (share.size > 1)
			fprintf(stderr, "%s: process %d of %d: %s\n", argv[0], share.rank, share.size,
				err->message);
		else
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
		goto out;
	}
	if (!root) { /* its points are with rank 0, which writes and reports */
		rc = 0;
		goto out;
	}
	h5 = g_strdup_printf("%s/%s.h5", out_dir, e->name);
	csv = g_strdup_printf("%s/%s.csv", out_dir, e->name);

	if ((e->formats & OUT_H5) && !results_write_h5(r, h5, &err))
		goto fail;
	if (e->formats & OUT_H5)
		g_ptr_array_add(written, g_strdup(h5));
	if ((e->formats & OUT_CSV) && !results_write_csv(r, csv, &err))
		goto fail;
	if (e->formats & OUT_CSV)
		g_ptr_array_add(written, g_strdup(csv));
	if (!no_plots && (e->formats & (OUT_PNG | OUT_SVG))) {
		g_autofree char *tmpl = plot_templates_dir();
		g_autofree char *base = NULL;
		GString *sw = g_string_new(NULL);

		for (guint i = 0; i < e->sweeps->len; i++)
			g_string_append_printf(sw, "%s%s", i ? "," : "",
					       ((struct config_sweep *)e->sweeps->pdata[i])->key);
		GString *bl = g_string_new(NULL);

		for (guint i = 0; i < e->colls->len; i++) {
			enum coll c = g_array_index(e->colls, enum coll, i);

			g_string_append_printf(bl, "%s%s:%s", i ? "," : "", coll_name(c),
					       experiment_baseline(e, c));
		}
		struct plot_request req = {
			.table = r->summary ? r->summary : r->results,
			.name = e->name,
			.baselines = bl->str,
			.sweep_keys = sw->str,
			.out_dir = out_dir,
			.templates = tmpl,
			.png = (e->formats & OUT_PNG) != 0,
			.svg = (e->formats & OUT_SVG) != 0,
			.written = written,
		};
		bool ok = plot_results(&req, &nplots, &err);

		g_string_free(sw, TRUE);
		g_string_free(bl, TRUE);
		if (!ok)
			goto fail;
	}
	if (!manifest_update(out_dir, e->name, written, false, &err))
		goto fail;
	if (!quiet) {
		GString *what = g_string_new(NULL);

		if (e->formats & OUT_H5)
			g_string_append_printf(what, "%s, ", h5);
		if (e->formats & OUT_CSV)
			g_string_append_printf(what, "%s, ", csv);
		printf("%u points in %.1fs%s; wrote %s%u plots under %s/plots\n", r->results->nrows,
		       (double)(g_get_monotonic_time() - t0) / 1e6,
		       share.size > 1 ? " over the processes of an MPI job" : "", what->str, nplots,
		       out_dir);
		g_string_free(what, TRUE);
	}
	/* where flow fidelity is not checked well against packet fidelity */
	if (r->flow_beyond)
		fprintf(stderr,
			"%s: note: %u of the %u points at flow fidelity have ranks forward messages "
			"larger than a link's receive buffer on multi-hop routes (columns forwarded "
			"and forwarded_max_bytes); flow fidelity leaves out the packet fabric's "
			"receive buffers there and has been measured %s than "
			"packet fidelity at max-min sharing, %s at "
			"flow.arbiter round-robin (docs/scale.md, \"What flow fidelity misses on "
			"multi-hop routes is buffer space\", \"The notes' ranges\"): fidelity: "
			"packet is the reference; which algorithm "
			"is fastest it has found as packet fidelity does, or within 2 %% of it, at 1949 "
			"of the 1960 points of g5 bench fidelity's matrix (docs/scale.md, \"Does flow "
			"fidelity pick packet fidelity's fastest algorithm?\")\n",
			argv[0], r->flow_beyond, r->flow_points, FIDELITY_RANGE_MAXMIN, FIDELITY_RANGE_RR);
	if (r->flow_switched)
		fprintf(stderr,
			"%s: note: %u of the %u points at flow fidelity send messages across two "
			"switches or more; " FIDELITY_NOTE_SWITCHED ": fidelity: packet is the "
			"reference\n",
			argv[0], r->flow_switched, r->flow_points);
	/* the failed points are rows of the files just written; the run fails */
	for (guint i = 0; i < r->failed->len; i++)
		fprintf(stderr, "%s: %s\n", argv[0], (const char *)r->failed->pdata[i]);
	rc = r->failed->len ? 1 : 0;
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", argv[0], err->message);
out:
	g_clear_error(&err);
	exp_results_free(r);
	experiment_free(e);
	g_option_context_free(ctx);
	sweep_mpi_end(&share);
	return rc;
}
