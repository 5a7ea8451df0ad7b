/* `g5 plot RESULTS.h5`: redraws the plots of a results file written by
 * `g5 run` (its summary table when there is one, else its results table),
 * under DIR/plots/ (DIR: -o, else the file's directory). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cli.h"
#include "sim/config.h"
#include "sim/plot.h"
#include "sim/results.h"
#include "sim/util/quote.h"

/* Reads everything g5 plot reads from path in a child process, and says
 * whether that ended: libhdf5 1.10 can crash or loop inside its own code on
 * a damaged file (H5HG_read), and that must end g5 with a message, not a
 * signal or a hang. The parent then reads the same file itself. */
#define PLOT_READ_SECONDS 60

static bool readable_in_child(const char *path, GError **error)
{
	int status = 0;

	fflush(NULL);
	pid_t pid = fork();

	if (pid < 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "cannot fork to read %s: %s",
			    path, g_strerror(errno));
		return false;
	}
	if (pid == 0) {
		static const char *const attrs[] = { "experiment", "baseline", "sweep" };

		for (size_t i = 0; i < G_N_ELEMENTS(attrs); i++)
			g_free(results_read_attr(path, attrs[i]));
		rtable_free(rtable_read_h5(path, "summary", NULL));
		rtable_free(rtable_read_h5(path, "results", NULL));
		_exit(0);
	}
	/* libhdf5 may also loop on a damaged file: the child gets a deadline */
	gint64 deadline = g_get_monotonic_time() + PLOT_READ_SECONDS * G_TIME_SPAN_SECOND;
	pid_t got;

	while ((got = waitpid(pid, &status, WNOHANG)) == 0 && g_get_monotonic_time() < deadline)
		g_usleep(10000);
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
			    "%s: reading it did not finish within %d s: the file is damaged", path,
			    PLOT_READ_SECONDS);
		return false;
	}
	if (got < 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "cannot wait for the reader of %s: %s",
			    path, g_strerror(errno));
		return false;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
		    "%s: reading it crashed the HDF5 library (%s): the file is damaged", path,
		    WIFSIGNALED(status) ? g_strsignal(WTERMSIG(status)) : "it failed");
	return false;
}

int cmd_plot(int argc, char **argv)
{
	g_autofree char *out_dir = NULL, *formats = NULL, *name = NULL, *baselines = NULL;
	g_autofree char *sweep = NULL, *tmpl = NULL;
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
	if (!readable_in_child(argv[1], &err)) {
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
	if (!name) {
		name = g_path_get_basename(argv[1]);
		char *dot = strrchr(name, '.');

		if (dot && dot != name)
			*dot = '\0';
	}
	tmpl = plot_templates_dir();
	struct plot_request req = {
		.table = t, .name = name, .baselines = baselines, .sweep_keys = sweep,
		.out_dir = out_dir, .templates = tmpl, .png = png, .svg = svg,
	};
	if (!plot_results(&req, &n, &err)) {
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
