/* `g5 bench NAME`: the table of benchmarks and `g5 bench all`. */
#include "bench/bench.h"

#include <stdio.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/util/spell.h"

static const struct bench benches[] = {
	{ "engine", "event engine, hold model (--pending N, --events N, --json)", bench_engine },
	{ "fabric", "8-node ring, 512 MiB per node to its neighbour (--mib N, --json)", bench_fabric },
	{ "fidelity", "flow fidelity's error against packet fidelity over every collective x algorithm x topology (long)", bench_fidelity },
	{ "fluid", "the buffers' event-driven fluid on raw traffic, a ring's shift or XOR step (--ranks, --pattern, --distance, --size, --packet, --json)", bench_fluid },
	{ "scale", "large runs: events, wall, cpu, peak RSS (--full, --repeat N, --row N)", bench_scale },
};

double bench_now_s(void)
{
	return (double)g_get_monotonic_time() / 1e6;
}

/* --help in the layout of every other command's (GLib's): usage, the
 * choices, then examples. */
static void usage(FILE *f)
{
	fprintf(f, "Usage:\n  g5 bench BENCHMARK|all [OPTION...] - measure the simulator's own speed\n\n"
		   "Benchmarks:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(benches); i++)
		fprintf(f, "  %-20s %s\n", benches[i].name, benches[i].summary);
	fprintf(f, "  %-20s every benchmark with its default settings\n\n", "all");
	fprintf(f, "'g5 bench BENCHMARK --help' lists a benchmark's options.\n\n"
		   "Examples:\n"
		   "  g5 bench all\n"
		   "  g5 bench engine --pending 1000000 --json\n"
		   "  g5 bench scale --full\n");
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(argv[0], "missing benchmark name");
	const char *name = argv[1];

	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "all")) {
		if (argc > 2)
			return cli_usage_error(argv[0], "'all' takes no options");
		int rc = 0;

		for (size_t i = 0; i < G_N_ELEMENTS(benches); i++) {
			char prog[64];
			char *av[] = { prog, NULL };

			snprintf(prog, sizeof(prog), "g5 bench %s", benches[i].name);
			rc |= benches[i].run(1, av);
		}
		return rc;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(benches); i++) {
		if (strcmp(name, benches[i].name))
			continue;
		char prog[64];

		snprintf(prog, sizeof(prog), "g5 bench %s", name);
		argv[1] = prog;
		return benches[i].run(argc - 1, argv + 1);
	}
	GString *known = g_string_new(NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(benches); i++)
		g_string_append_printf(known, "%s, ", benches[i].name);
	g_string_append(known, "all");
	g_autofree char *hint = spell_hint(name, known->str);
	int rc = cli_usage_error(argv[0], "unknown benchmark '%s' (known: %s)%s", name, known->str,
				 hint);

	g_string_free(known, TRUE);
	return rc;
}
