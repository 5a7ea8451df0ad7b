/* Helpers shared by the g5 subcommands: option parsing with one-line usage
 * errors, and the version string. */
#include "sim/cli.h"
#include "sim/config.h"
#include "sim/util/quote.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef G5_HAVE_VERSION_H
#include "g5_version.h"
#endif
#ifndef G5_VERSION
#define G5_VERSION "0.1.0"
#endif
#ifndef G5_COMMIT
#define G5_COMMIT "unknown"
#endif

const char *cli_version(void)
{
	return G5_VERSION " (" G5_COMMIT ")";
}

int cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s --help')\n", prog);
	return 2;
}

bool cli_parse(GOptionContext *ctx, const char *prog, int *argc, char ***argv)
{
	GError *err = NULL;

	if (!g_option_context_parse(ctx, argc, argv, &err)) {
		char *msg = g_utf8_strdown(err->message, -1);

		cli_usage_error(prog, "%s", msg);
		g_free(msg);
		g_error_free(err);
		return false;
	}
	return true;
}

int cli_parse_entries(const char *summary, const char *examples, GOptionEntry *entries, int *argc,
		      char ***argv)
{
	GOptionContext *ctx = g_option_context_new(summary);
	const char *prog = (*argv)[0];
	bool ok;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, examples);
	ok = cli_parse(ctx, prog, argc, argv);
	g_option_context_free(ctx);
	if (!ok)
		return 2;
	if (*argc > 1)
		return cli_usage_error(prog, "unexpected argument '%s'", quote_text((*argv)[1]).s);
	return 0;
}

G_STATIC_ASSERT(CLI_MAX_DIMS == LINK_MAX_DIMS);

bool cli_parse_dims(const char *text, int *dims, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text, "x", -1);
	guint n = g_strv_length(parts);

	memset(dims, 0, sizeof(int) * CLI_MAX_DIMS);
	for (guint i = 0; i < n && n <= CLI_MAX_DIMS; i++) {
		char *end = NULL;
		long v = strtol(parts[i], &end, 10);

		if (!g_ascii_isdigit(parts[i][0]) || *end || v < 1 || v > 65536)
			break;
		dims[i] = (int)v;
		if (i + 1 == n)
			return true;
	}
	memset(dims, 0, sizeof(int) * CLI_MAX_DIMS);
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
		    "--dims must look like 4x4x4 (1 to %d extents), got '%s'", CLI_MAX_DIMS,
		    quote_text(text).s);
	return false;
}

bool cli_platform_flags(const char *prog, struct platform *p, char **set, const char *mode_name,
			enum run_mode *mode)
{
	for (char **kv = set; kv && *kv; kv++) {
		g_auto(GStrv) parts = g_strsplit(*kv, "=", 2);
		GError *err = NULL;

		if (!parts[0] || !parts[1]) {
			cli_usage_error(prog, "--set must look like KEY=VALUE, got '%s'", quote_text(*kv).s);
			return false;
		}
		if (!config_platform_set(p, parts[0], parts[1], &err)) {
			cli_usage_error(prog, "--set %s", err->message);
			g_error_free(err);
			return false;
		}
	}
	if (mode_name && !platform_mode_parse(mode_name, mode)) {
		cli_usage_error(prog, "--mode must be single or mpi, got '%s'", quote_text(mode_name).s);
		return false;
	}
	return true;
}
