/* `g5 workload`: workload files (sim/workload.h, docs/workload.md).
 *   g5 workload --check FILE             read and check FILE, print what it holds
 *   g5 workload --import TRACE... -o W   PyTorch profiler traces to a workload file
 * An import is written whole or not at all, then read back with the file
 * reader's checks. */
#include <stdio.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/config.h"
#include "sim/workload.h"

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

int cmd_workload(int argc, char **argv)
{
	gboolean check = FALSE, import = FALSE;
	char *out = NULL;
	GOptionEntry entries[] = {
		{ "check", 0, 0, G_OPTION_ARG_NONE, &check, "read and check a workload file", NULL },
		{ "import", 0, 0, G_OPTION_ARG_NONE, &import,
		  "import PyTorch profiler traces (one, or one per rank)", NULL },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "the workload file --import writes",
		  "W.yaml" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	const char *prog = argv[0];
	GOptionContext *ctx = g_option_context_new("FILE|TRACE... - workload files: check one, or "
						   "import PyTorch traces into one");
	GError *err = NULL;
	struct workload *w = NULL;
	int rc = 2;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 workload --check experiments/workloads/fsdp-16.yaml\n"
					 "  g5 workload --import trace-rank0.json -o step.yaml\n");
	bool parsed = cli_parse(ctx, prog, &argc, &argv);

	g_option_context_free(ctx);
	if (!parsed)
		goto done;
	rc = 2;
	if (check == import) {
		cli_usage_error(prog, "give one of --check FILE or --import TRACE... -o W.yaml");
		goto done;
	}
	if (argc < 2) {
		cli_usage_error(prog, "%s needs %s", check ? "--check" : "--import",
				check ? "a workload file" : "at least one trace");
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
	rc = 1;
	w = workload_import_torch((const char *const *)argv + 1, argc - 1, &err);
	if (!w || !workload_write(w, out, &err)) {
		fprintf(stderr, "%s: %s\n", prog, err->message);
		rc = 2;
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
	return rc;
}
