/* g5: the command-line front end. Looks the subcommand up in one table and
 * hands it the rest of argv. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/util/spell.h"
#include "sim/util/quote.h"

static const struct cli_command commands[] = {
	{ "sim", "simulate one collective on a platform", cmd_sim },
	{ "run", "run an experiment file: results (HDF5, CSV) and plots", cmd_run },
	{ "plot", "redraw the plots of a results file", cmd_plot },
	{ "bench", "measure the simulator's own speed (engine, fabric)", cmd_bench },
	{ "schedule", "write an algorithm's schedule file", cmd_schedule },
	{ "verify", "prove schedules compute their collective (registry or file)", cmd_verify },
	{ "algos", "the algorithms each collective accepts (from the registry)", cmd_algos },
	{ "compare", "simulated against measured curves, with their errors", cmd_compare },
	{ "calibrate", "fit platform keys to measured curves", cmd_calibrate },
	{ "workload", "run a training step's workload, check one, import PyTorch traces", cmd_workload },
	{ "tune", "the best algorithm per collective, group and size; a tuning profile", cmd_tune },
};

/* Results printed to a full disk or a closed pipe are lost: a command that
 * succeeded fails when its standard output could not be written. */
static int stdout_flushed(const char *prog, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the standard output: %s\n", prog,
			g_strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: g5 [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'g5 <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];

	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version")) {
		printf("g5 %s\n", cli_version());
		return 0;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
		if (strcmp(name, commands[i].name))
			continue;
		char prog[64];

		snprintf(prog, sizeof(prog), "g5 %s", name);
		argv[1] = prog;
		int rc = commands[i].run(argc - 1, argv + 1);

		return stdout_flushed(prog, rc);
	}
	GString *known = g_string_new(NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		g_string_append_printf(known, "%s%s", i ? ", " : "", commands[i].name);
	g_autofree char *hint = spell_hint(name, known->str);

	fprintf(stderr, "g5: unknown command '%s' (known: %s)%s\n", quote_text(name).s, known->str, hint);
	g_string_free(known, TRUE);
	return 2;
}
