/* `g5 plot RESULTS.h5`: redraws the plots of a results file written by
 * `g5 run` (its summary table when there is one, else its results table),
 * under DIR/plots/ (DIR: -o, else the file's directory). The file is read
 * in a child first (results_h5_check). The plots become the plots of the
 * experiment's generation in DIR (sim/manifest): DIR/NAME.manifest lists
 * them, and the plots it listed before and that were not drawn again are
 * removed. */
#include <stdio.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/config.h"
#include "sim/manifest.h"
#include "sim/plot.h"
#include "sim/results.h"
#include "sim/util/quote.h"

/* The time g5 plot's reading child gets (results_h5_check): libhdf5 can
 * loop on a damaged file. */
#define PLOT_READ_MS 60000

int cmd_plot(int argc, char **argv)
{
	g_autofree char *out_dir = NULL, *formats = NULL, *name = NULL, *baselines = NULL;
	g_autofree char *sweep = NULL, *tmpl = NULL;
	g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func(g_free);
	guint n = 0;
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, "output directory (default: the results file's)", "DIR" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &formats, "png, svg or png,svg (default)", "F" },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("RESULTS.h5 - redraw the plots of a results file");
	struct rtable *t = NULL;
	GError *err = NULL;
	int rc = 2;
	bool png = true, svg = true;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 plot results/tiny/example-tiny.h5\n"
					 "  g5 plot results/01-allreduce.h5 -o figures --format svg");
	if (!cli_parse(ctx, argv[0], &argc, &argv))
		goto out;
	if (argc != 2) {
		cli_usage_error(argv[0], argc < 2 ? "missing the results file" : "unexpected argument '%s'",
				argc < 2 ? "" : quote_text(argv[2]).s);
		goto out;
	}
	if (formats) {
		g_auto(GStrv) f = g_strsplit(formats, ",", -1);

		png = svg = false;
		for (int i = 0; f[i]; i++) {
			if (!strcmp(f[i], "png")) {
				png = true;
			} else if (!strcmp(f[i], "svg")) {
				svg = true;
			} else {
				cli_usage_error(argv[0], "unknown format '%s' (known: png, svg)", quote_text(f[i]).s);
				goto out;
			}
		}
	}
	rc = 1;
	if (!results_h5_check(argv[1], PLOT_READ_MS, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err->message);
		goto out;
	}
	name = results_read_attr(argv[1], "experiment");
	baselines = results_read_attr(argv[1], "baseline");
	sweep = results_read_attr(argv[1], "sweep");

	t = rtable_read_h5(argv[1], "summary", NULL);
	if (!t)
		t = rtable_read_h5(argv[1], "results", &err);
	if (!t) {
		fprintf(stderr, "%s: %s\n", argv[0], err->message);
		goto out;
	}
	if (name && !config_name_ok(name)) {
		fprintf(stderr,
			"%s: %s: the experiment name it holds, '%s', is not a plain name "
			"(letters, digits, '-', '_' and '.', not . or ..); refusing to build file names "
			"from it\n",
			argv[0], argv[1], quote_text(name).s);
		goto out;
	}
	if (!out_dir)
		out_dir = g_path_get_dirname(argv[1]);
	for (size_t k = strlen(out_dir); k > 1 && out_dir[k - 1] == '/'; k--)
		out_dir[k - 1] = '\0';
	if (!name) { /* the file's name, as an experiment file's names it */
		name = g_path_get_basename(argv[1]);
		char *dot = strrchr(name, '.');

		if (dot && dot != name)
			*dot = '\0';
		if (!config_name_ok(name)) {
			g_free(name);
			name = g_strdup("experiment");
		}
	}
	tmpl = plot_templates_dir();
	struct plot_request req = {
		.table = t, .name = name, .baselines = baselines, .sweep_keys = sweep,
		.out_dir = out_dir, .templates = tmpl, .png = png, .svg = svg, .written = written,
	};
	plot_remove_tmps(out_dir, name);
	if (!plot_results(&req, &n, &err) || !manifest_update(out_dir, name, written, true, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err->message);
		goto out;
	}
	printf("wrote %u plots under %s/plots\n", n, out_dir);
	rc = 0;
out:
	g_clear_error(&err);
	rtable_free(t);
	g_option_context_free(ctx);
	return rc;
}
