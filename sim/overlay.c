/* The overlay figure of `g5 compare` (overlay.h), made the way sim/plot.c
 * makes its figures: a data file of numbers, a script of variable
 * definitions followed by a template from plots/, and gnuplot run on an
 * argv (never a shell), rendering to a temporary name that is then renamed.
 *
 * Everything that depends on the data is computed here and handed to the
 * template as numbers or as safe literals: the x range (half an octave
 * beyond the smallest and largest size), the size ticks (arrays tick_at and
 * tick_label), the ratio panel's y range and the error summary. One script
 * serves both images: it draws FILE_STEM.png unless `term` and `outfile`
 * are already defined, which is how overlay_plot() asks for each image
 * (gnuplot -e "term = '...'; outfile = '...'" FILE_STEM.gp). */
#include "sim/overlay.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot.h"
#include "sim/results.h"

#define OVERLAY_TEMPLATE "overlay.gp"
#define OVERLAY_MAX_TICKS 10

/* A number as gnuplot reads it: C locale, NaN for anything not finite. */
static void gp_number(GString *g, double v)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	if (!isfinite(v))
		g_string_append(g, "NaN");
	else
		g_string_append(g, g_ascii_formatd(buf, sizeof(buf), "%.10g", v));
}

/* The title as it may be drawn: one '_' for every character (a whole UTF-8
 * sequence counts as one) outside [A-Za-z0-9 ._,:/()+=-]. */
static char *title_text(const char *title)
{
	GString *g = g_string_new(NULL);
	bool utf8 = g_utf8_validate(title, -1, NULL);

	for (const char *p = title; *p; p = utf8 ? g_utf8_next_char(p) : p + 1) {
		if (g_ascii_isalnum(*p) || strchr(" ._,:/()+=-", *p))
			g_string_append_c(g, *p);
		else
			g_string_append_c(g, '_');
	}
	return g_string_free(g, FALSE);
}

/* "1", "512", "4K", "256M", "1G": 2^k bytes in binary units. */
static char *tick_label(int k)
{
	static const char *const unit[] = { "", "K", "M", "G", "T", "P", "E" };

	return g_strdup_printf("%u%s", 1u << (k % 10), unit[k / 10]);
}

/* Size ticks: powers 2^k inside [x_lo, x_hi], k a multiple of the smallest
 * power-of-two step that keeps them to OVERLAY_MAX_TICKS, so labels never
 * run together. */
static void size_ticks(GString *g, double x_lo, double x_hi)
{
	int k_lo = (int)ceil(log2(x_lo)), k_hi = (int)floor(log2(x_hi)), step = 1;
	g_autoptr(GArray) ks = g_array_new(FALSE, FALSE, sizeof(int));

	if (k_lo < 0)
		k_lo = 0;
	if (k_hi > 64)
		k_hi = 64;
	while ((k_hi - k_lo) / step + 1 > OVERLAY_MAX_TICKS)
		step *= 2;
	for (int k = k_lo; k <= k_hi; k++)
		if (k % step == 0)
			g_array_append_val(ks, k);
	g_string_append_printf(g, "array tick_at[%u] = [", ks->len);
	for (guint i = 0; i < ks->len; i++) {
		if (i)
			g_string_append(g, ", ");
		gp_number(g, ldexp(1.0, g_array_index(ks, int, i)));
	}
	g_string_append_printf(g, "]\narray tick_label[%u] = [", ks->len);
	for (guint i = 0; i < ks->len; i++) {
		g_autofree char *l = tick_label(g_array_index(ks, int, i));

		if (i)
			g_string_append(g, ", ");
		plot_gp_quote(g, l);
	}
	g_string_append(g, "]\n");
}

static void gp_var_num(GString *g, const char *var, double v)
{
	g_string_append_printf(g, "%s = ", var);
	gp_number(g, v);
	g_string_append_c(g, '\n');
}

static char *read_template(GError **error)
{
	g_autofree char *dir = plot_templates_dir();

	return plot_template_read(dir, OVERLAY_TEMPLATE, error);
}

/* Runs the script for one image: gnuplot draws into a temporary name in
 * the same directory, renamed to FILE_STEM.EXT when it succeeded. */
static bool render(const char *stem, const char *script, const char *term, const char *ext,
		   GError **error)
{
	g_autofree char *out = g_strdup_printf("%s.%s", stem, ext);
	g_autofree char *dir = g_path_get_dirname(out);
	g_autofree char *bn = g_path_get_basename(out);
	g_autofree char *tmp = g_strdup_printf("%s/.%s.tmp.%d", dir, bn, (int)getpid());
	g_autofree char *out_err = NULL;
	GString *e_arg = g_string_new(NULL);
	gint status = 0;
	GError *e = NULL;
	bool spawned;

	g_string_append(e_arg, "term = ");
	plot_gp_quote(e_arg, term);
	g_string_append(e_arg, "; outfile = ");
	plot_gp_quote(e_arg, tmp);
	char *argv[] = { "gnuplot", "-e", e_arg->str, (char *)script, NULL };

	spawned = g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
			       NULL, NULL, NULL, &out_err, &status, &e);
	g_string_free(e_arg, TRUE);
	if (!spawned) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
			    "cannot run gnuplot (install gnuplot-nox): %s", e->message);
		g_error_free(e);
		return false;
	}
	if (!g_spawn_check_wait_status(status, NULL) || !g_file_test(tmp, G_FILE_TEST_IS_REGULAR)) {
		unlink(tmp);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "gnuplot failed on %s: %s", script,
			    out_err && *g_strstrip(out_err) ? out_err : "no image written");
		return false;
	}
	if (rename(tmp, out) != 0) {
		int err = errno;

		unlink(tmp);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot rename into place: %s",
			    out, g_strerror(err));
		return false;
	}
	return true;
}

bool overlay_plot(const struct overlay_curve *c, GError **error)
{
	g_assert(c->n >= 1 && c->bytes && c->meas_us && c->sim_us && c->title && c->file_stem);
	g_autofree char *dat = g_strdup_printf("%s.dat", c->file_stem);
	g_autofree char *script = g_strdup_printf("%s.gp", c->file_stem);
	g_autofree char *png = g_strdup_printf("%s.png", c->file_stem);
	g_autofree char *title = title_text(c->title);
	g_autofree char *tmpl = NULL;
	double x_min = INFINITY, x_max = 0, r_min = INFINITY, r_max = -INFINITY;
	guint ntimes = 0; /* drawable times, measured or simulated, at a drawable size */
	GString *data, *vars;
	bool ok;

	if (!plot_path_ok("overlay figure", c->file_stem, error))
		return false;
	data = g_string_new(NULL);
	for (guint i = 0; i < c->n; i++) {
		double x = (double)c->bytes[i], m = c->meas_us[i], s = c->sim_us[i];
		bool mok = isfinite(m) && m > 0, sok = isfinite(s) && s > 0;
		double r = mok && sok ? s / m : NAN;

		/* a log axis cannot show zero: such a row is kept but not drawn */
		if (x > 0) {
			x_min = MIN(x_min, x);
			x_max = MAX(x_max, x);
			ntimes += mok + sok;
		}
		if (isfinite(r)) {
			r_min = MIN(r_min, r);
			r_max = MAX(r_max, r);
		}
		gp_number(data, x > 0 ? x : NAN);
		g_string_append_c(data, ' ');
		gp_number(data, mok ? m : NAN);
		g_string_append_c(data, ' ');
		gp_number(data, sok ? s : NAN);
		g_string_append_c(data, ' ');
		gp_number(data, r);
		g_string_append_c(data, '\n');
	}
	if (x_max <= 0 || ntimes == 0) {
		g_string_free(data, TRUE);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
			    "overlay figure %s: no point to draw (sizes and times must be above 0)",
			    c->file_stem);
		return false;
	}
	ok = results_write_atomic(dat, data->str, data->len, error);
	g_string_free(data, TRUE);
	if (!ok || !(tmpl = read_template(error)))
		return false;

	double x_lo = x_min / M_SQRT2, x_hi = x_max * M_SQRT2;
	double y_lo = 0.8, y_hi = 1.2;

	if (isfinite(r_min)) {
		double pad = 0.05 * (MAX(r_max, y_hi) - MIN(r_min, y_lo));

		y_lo = MIN(y_lo, r_min - pad);
		y_hi = MAX(y_hi, r_max + pad);
		if (y_lo < 0 && r_min >= 0)
			y_lo = 0;
	}
	vars = g_string_new("# Generated by g5 (overlay): variables, then plots/" OVERLAY_TEMPLATE ".\n"
			    "# Run by hand (gnuplot THIS), it draws the .png; g5 defines term and outfile first.\n");
	plot_gp_var(vars, "datafile", dat);
	plot_gp_var(vars, "title", title);
	gp_var_num(vars, "geomean_err", c->geomean_err);
	gp_var_num(vars, "max_err", c->max_err);
	gp_var_num(vars, "x_lo", x_lo);
	gp_var_num(vars, "x_hi", x_hi);
	gp_var_num(vars, "ratio_lo", y_lo);
	gp_var_num(vars, "ratio_hi", y_hi);
	size_ticks(vars, x_lo, x_hi);
	g_string_append(vars, "if (!exists(\"term\")) term = 'pngcairo'\n");
	g_string_append(vars, "if (!exists(\"outfile\")) outfile = ");
	plot_gp_quote(vars, png);
	g_string_append(vars, "\n\n");
	g_string_append(vars, tmpl);
	ok = results_write_atomic(script, vars->str, vars->len, error);
	g_string_free(vars, TRUE);
	if (!ok)
		return false;
	if (c->png && !render(c->file_stem, script, "pngcairo", "png", error))
		return false;
	if (c->svg && !render(c->file_stem, script, "svg", "svg", error))
		return false;
	return true;
}
