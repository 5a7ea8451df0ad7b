/* sim/plot — figures of a results table through gnuplot.
 *
 * For each collective: when several sizes were run, one figure per
 * combination of the other varied parameters with the three panels of the
 * seed study (latency, bus bandwidth and speedup over the baseline algorithm
 * against size, log-x in bytes); and for each varied numeric parameter (ranks,
 * nchunks, a swept platform key), one figure of the same three metrics
 * against that parameter at fixed size (every size when there are at most
 * four, else the largest; other varied parameters at their first value).
 * Titles name the platform and every value held fixed, with its unit.
 * Lines are algorithms; speedup = baseline latency / latency at the same
 * point, so above 1 is faster than the baseline.
 *
 * Each figure is a data file and a gnuplot script under OUT/plots/: the
 * script is a few variable definitions followed by a template from the
 * plots/ directory (plots/style.gp, then plots/size.gp or plots/param.gp),
 * data only. Every file is written under its name in the temporary
 * directory OUT/plots/.NAME.tmp.PID (NAME: the experiment's, PID: g5's) and
 * renamed into place; the directory is removed at the end. */
#ifndef G5_SIM_PLOT_H
#define G5_SIM_PLOT_H

#include <glib.h>
#include <stdbool.h>

#include "sim/results.h"

struct plot_request {
	const struct rtable *table;  /* "results" or "summary" (means over seeds) */
	const char *name;            /* experiment name: file name prefix */
	const char *baselines;       /* "allreduce:ring,allgather:ring" */
	const char *sweep_keys;      /* "link.bandwidth,link.packet" or "" */
	const char *out_dir;         /* figures go to OUT_DIR/plots/ */
	const char *templates;       /* directory holding style.gp, size.gp, param.gp */
	bool png, svg;
	GPtrArray *written;          /* or NULL: gets the path of every file written
				      * (figures, their .gp and .dat), owned strings */
};

/* Draws every figure. Returns the number of image files written in
 * *nfiles; false with error set when gnuplot is missing or fails. */
bool plot_results(const struct plot_request *req, guint *nfiles, GError **error);

/* Removes the temporary directories that runs of experiment `name` left
 * under OUT/plots (a killed run's), whatever their process id; those of
 * other experiments, whatever their names, stay. */
void plot_remove_tmps(const char *out_dir, const char *name);

/* The template directory: $G5_PLOTS, else plots/ beside the g5 binary's
 * parent directory (build/g5 -> plots/), else ./plots. g_free() it. */
char *plot_templates_dir(void);

/* The text of template `name` in `dir` (g_free() it); NULL with an error
 * naming the path and G5_PLOTS when it cannot be read. */
char *plot_template_read(const char *dir, const char *name, GError **error);

/* Appends s as a gnuplot string expression that gnuplot takes as it is:
 * single-quoted pieces, in which no backquote command, no @macro and no
 * backslash escape is expanded, joined by "'" for each single quote
 * ('it'."'".'s': gnuplot's own doubling fails on leading and repeated
 * quotes); a control character (a line break would end the command)
 * becomes a space. */
void plot_gp_quote(GString *g, const char *s);

/* Whether `path` can go to gnuplot as a file name: a quoted literal holds
 * any other byte as it is, but a control character would become a space
 * (a line break would end the command). False with an error that names
 * `what` and the path, escaped. */
bool plot_path_ok(const char *what, const char *path, GError **error);

/* Appends the line `var = 'value'` (plot_gp_quote). */
void plot_gp_var(GString *g, const char *var, const char *value);

#endif
