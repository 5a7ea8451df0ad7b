/* sim/overlay — the figure of `g5 compare`: one simulated curve against the
 * measurement it claims to reproduce, drawn through gnuplot.
 *
 * Two panels sharing a log-2 size axis: on top, time (us) against size on
 * log-log axes, measured points over the simulated line, the error summary
 * (geometric mean and maximum of |sim/measured - 1|, in percent) in the
 * key; below, the ratio sim/measured on a linear axis with a dashed line at
 * 1, its range at least 0.8..1.2 and widened to hold every point. Size
 * ticks are powers of two written in binary units (4K, 64K, 1M, 1G), chosen
 * here from the data's range so that there are at most ten of them.
 *
 * Files, all beside FILE_STEM: FILE_STEM.dat (numbers only: bytes,
 * measured us, simulated us, ratio; NaN where a value cannot be drawn on
 * its axis), FILE_STEM.gp (variable definitions followed by the template
 * plots/overlay.gp; `gnuplot FILE_STEM.gp` redraws FILE_STEM.png by hand)
 * and the images. Each file is written under a temporary name and renamed.
 *
 * Nothing of the caller's text reaches gnuplot raw: the title is cut down to
 * [A-Za-z0-9 ._,:/()+=-] (any other character becomes '_'), and every
 * string goes into the script as a single-quoted gnuplot literal, in which
 * gnuplot expands neither backquotes nor @macros; a path holding a control
 * character is refused. */
#ifndef G5_SIM_OVERLAY_H
#define G5_SIM_OVERLAY_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct overlay_curve {
	const char *title;      /* borrowed; e.g. "allreduce ring float single (g5x CSV) on h200x2-nvlink" */
	const char *file_stem;  /* borrowed; output path without extension, e.g.
				 * DIR/allreduce-ring-float-single; the caller makes it safe */
	guint n;                /* points, >= 1 */
	const uint64_t *bytes;  /* borrowed, n: sizes, increasing */
	const double *meas_us;  /* borrowed, n: measured time per size */
	const double *sim_us;   /* borrowed, n: simulated time per size */
	double geomean_err, max_err; /* percent, shown in the key; NaN: not shown */
	bool png, svg;          /* which images to draw (neither: .dat and .gp only) */
};

/* Writes FILE_STEM.dat and FILE_STEM.gp and renders FILE_STEM.png (pngcairo,
 * 900x700) and/or FILE_STEM.svg from the template overlay.gp in
 * plot_templates_dir(). Returns false with error set (RESULTS_ERROR_IO)
 * when no point has a size and a time above 0, a path holds a control character, the template
 * cannot be read, a file cannot be written, or gnuplot is missing or fails;
 * an image is then either the previous one or absent, never half-written. */
bool overlay_plot(const struct overlay_curve *c, GError **error);

#endif
