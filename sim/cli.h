/* The g5 command line: one entry per subcommand, each in sim/cmd_*.c or
 * bench/. A command returns the process exit status: 0 success, 1 failure of
 * the work itself, 2 bad usage (after a one-line message on stderr). */
#ifndef G5_SIM_CLI_H
#define G5_SIM_CLI_H

#include <glib.h>
#include <stdbool.h>

struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is "g5 NAME" */
};

/* Parses argv with ctx. On a usage error prints "PROG: MESSAGE" and a hint on
 * one line to stderr and returns false (the caller exits with 2). */
bool cli_parse(GOptionContext *ctx, const char *prog, int *argc, char ***argv);

/* Parses argv against `entries` (NULL-terminated) for a command described by
 * `summary`, and rejects leftover arguments. `examples` ends --help: two or
 * three command lines under "Examples:", as every command's help ends.
 * Returns 0, or 2 after a one-line message on stderr. */
int cli_parse_entries(const char *summary, const char *examples, GOptionEntry *entries, int *argc,
		      char ***argv);

/* Prints "PROG: MESSAGE (see 'PROG --help')" on stderr and returns 2. */
int cli_usage_error(const char *prog, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

struct platform;
enum run_mode;

/* The front ends' platform flags: --set KEY=VALUE overrides (NULL-terminated,
 * may be NULL) applied to p, and --mode (may be NULL) parsed into *mode.
 * On a mistake prints the usage error naming the flag and returns false
 * (the caller exits with 2). */
bool cli_platform_flags(const char *prog, struct platform *p, char **set, const char *mode_name,
			enum run_mode *mode);

/* Parses a --dims value, extents joined by 'x' ("4x4x4", "8"): 1 to
 * CLI_MAX_DIMS extents of 1..65536 each into dims (CLI_MAX_DIMS entries,
 * the unused ones 0). False with error set ("--dims must look like ...")
 * otherwise. */
#define CLI_MAX_DIMS 8
bool cli_parse_dims(const char *text, int *dims, GError **error);

/* The version string: "MAJOR.MINOR.PATCH (COMMIT)" when the commit is known. */
const char *cli_version(void);

int cmd_bench(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_algos(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_tune(int argc, char **argv);

#endif
