/* Figures of a results table (plot.h): picks what to draw from which
 * columns vary, writes one data file per figure (one block per algorithm,
 * blocks separated by two blank lines, columns x latency_us busbw_gbps
 * speedup) and a script made of variable definitions plus plots/style.gp and
 * a template from plots/, and runs gnuplot on it. Titles name the platform;
 * a swept value carries its unit in titles and file names (100GB/s,
 * 100GBps); size axes are labelled as configs write sizes (1KiB, 64MiB). */
#include "sim/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/util/files.h"
#include "sim/util/units.h"

char *plot_templates_dir(void)
{
	const char *env = g_getenv("G5_PLOTS");

	if (env && *env)
		return g_strdup(env);
	g_autofree char *size_gp = files_in_tree("plots/size.gp");

	return size_gp ? g_path_get_dirname(size_gp) : g_strdup("plots");
}

/* A parameter column that may vary. */
struct param {
	const struct rcol *col;
	const char *label;
	const char *unit; /* of its numbers: "GB/s", "us", "bytes"; NULL: plain */
};

struct ctx {
	const struct plot_request *req;
	const char *tmp_dir; /* OUT/plots/.NAME.tmp.PID: every temporary */
	const struct rcol *coll, *algo, *bytes, *lat, *bus;
	const struct rcol *platform, *ranks; /* NULL in a table without them */
	GPtrArray *params; /* of struct param *, owned */
};

/* Text of row i of a parameter column, for tags and grouping. */
static char *cell(const struct rcol *c, guint i)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	switch (c->type) {
	case RC_STR:
		return g_strdup(rcol_str(c, i));
	case RC_I64:
		return g_strdup_printf("%" G_GINT64_FORMAT, g_array_index(c->v, int64_t, i));
	case RC_F64:
		return g_strdup(g_ascii_formatd(buf, sizeof(buf), "%g", g_array_index(c->v, double, i)));
	}
	return g_strdup("?");
}

/* Row i's value of parameter p with its unit, for a title ("100 GB/s",
 * "4KiB", "2 us") or, with `file`, for a file name ("100GBps", "4KiB",
 * "2us"). */
static char *param_value(const struct param *p, guint i, bool file)
{
	if (!p->unit || p->col->type == RC_STR)
		return cell(p->col, i);
	double v = rcol_num(p->col, i);
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	if (!strcmp(p->unit, "bytes") && v >= 0 && v < 18446744073709551616.0 && v == floor(v)) {
		char sz[32];

		return g_strdup(units_format_size((uint64_t)v, sz, sizeof(sz)));
	}
	g_ascii_formatd(buf, sizeof(buf), "%g", v);
	if (!strcmp(p->unit, "GB/s"))
		return g_strdup_printf("%s%s", buf, file ? "GBps" : " GB/s");
	return g_strdup_printf("%s%s%s", buf, file ? "" : " ", p->unit);
}

static bool same(const struct rcol *c, guint a, guint b)
{
	if (c->type == RC_STR)
		return !strcmp(rcol_str(c, a), rcol_str(c, b));
	return rcol_num(c, a) == rcol_num(c, b);
}

/* File-name-safe form of s. */
static char *safe(const char *s)
{
	char *o = g_strdup(s);

	for (char *p = o; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '.' && *p != '_')
			*p = '_';
	return o;
}

/* Removes a temporary directory and the files in it (or a file of that
 * name); nothing when it does not exist. */
static void remove_tree(const char *path)
{
	g_autoptr(GDir) gd = path ? g_dir_open(path, 0, NULL) : NULL;
	const char *fn;

	if (!path)
		return;
	while (gd && (fn = g_dir_read_name(gd))) {
		g_autofree char *p = g_build_filename(path, fn, NULL);

		unlink(p);
	}
	if (gd)
		rmdir(path);
	else
		unlink(path);
}

/* Distinct values (row indices of first appearance) of column c among rows. */
static GArray *distinct(const struct rcol *c, GArray *rows)
{
	GArray *d = g_array_new(FALSE, FALSE, sizeof(guint));

	for (guint i = 0; i < rows->len; i++) {
		guint r = g_array_index(rows, guint, i);
		bool seen = false;

		for (guint j = 0; j < d->len && !seen; j++)
			seen = same(c, g_array_index(d, guint, j), r);
		if (!seen)
			g_array_append_val(d, r);
	}
	return d;
}

static int cmp_num_rows(gconstpointer a, gconstpointer b, gpointer user)
{
	const struct rcol *c = user;
	double x = rcol_num(c, *(const guint *)a), y = rcol_num(c, *(const guint *)b);

	return x < y ? -1 : x > y;
}

char *plot_template_read(const char *dir, const char *name, GError **error)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	char *text = NULL;
	GError *e = NULL;

	if (!g_file_get_contents(path, &text, NULL, &e)) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
			    "plot template %s: %s (set G5_PLOTS to the plots/ directory)", path,
			    e->message);
		g_error_free(e);
		return NULL;
	}
	return text;
}

void plot_gp_quote(GString *g, const char *s)
{
	g_string_append_c(g, '\'');
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			g_string_append_c(g, ' ');
		else if (*s == '\'')
			g_string_append(g, "'.\"'\".'");
		else
			g_string_append_c(g, *s);
	}
	g_string_append_c(g, '\'');
}

bool plot_path_ok(const char *what, const char *path, GError **error)
{
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			g_autofree char *shown = g_strescape(path, NULL);

			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
				    "%s '%s': a path with a control character cannot go to gnuplot", what,
				    shown);
			return false;
		}
	return true;
}

void plot_gp_var(GString *g, const char *var, const char *value)
{
	g_string_append_printf(g, "%s = ", var);
	plot_gp_quote(g, value);
	g_string_append_c(g, '\n');
}

/* The temporary name of `path` in the run's temporary directory. */
static char *tmp_name(const struct ctx *c, const char *path)
{
	g_autofree char *bn = g_path_get_basename(path);

	return g_build_filename(c->tmp_dir, bn, NULL);
}

/* Writes a data file or a script through the temporary directory and
 * lists it in req->written. */
static bool put_file(const struct ctx *c, const char *path, const GString *text, GError **error)
{
	g_autofree char *tmp = tmp_name(c, path);
	GError *e = NULL;

	if (!files_write_via(path, tmp, text->str, text->len, &e)) {
		g_set_error_literal(error, RESULTS_ERROR, RESULTS_ERROR_IO, e->message);
		g_error_free(e);
		return false;
	}
	if (c->req->written)
		g_ptr_array_add(c->req->written, g_strdup(path));
	return true;
}

/* Renders script `body` (variables + template) into OUT for one terminal.
 * The script names OUT as its output unless `outfile` is given, so that it
 * redraws its figure when run by hand; g5 gives gnuplot the temporary name
 * (-e) and renames the image into place. */
static bool render(const struct ctx *c, const char *base, const char *vars, const char *tmpl,
		   const char *term, const char *ext, guint *nfiles, GError **error)
{
	g_autofree char *out = g_strdup_printf("%s.%s", base, ext);
	g_autofree char *tmp = tmp_name(c, out);
	g_autofree char *script_path = g_strdup_printf("%s.%s.gp", base, ext);
	GPtrArray *written = c->req->written;
	GString *s = g_string_new(vars);
	g_autofree char *out_err = NULL;
	gint status = 0;
	GError *e = NULL;
	bool ok;

	plot_gp_var(s, "term", term);
	g_string_append(s, "if (!exists(\"outfile\")) outfile = ");
	plot_gp_quote(s, out);
	g_string_append_c(s, '\n');
	g_string_append(s, tmpl);
	ok = put_file(c, script_path, s, error);
	g_string_free(s, TRUE);
	if (!ok)
		return false;
	g_autoptr(GString) e_arg = g_string_new("outfile = ");

	plot_gp_quote(e_arg, tmp);
	char *argv[] = { "gnuplot", "-e", e_arg->str, script_path, NULL };

	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
			  NULL, NULL, &out_err, &status, &e)) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
			    "cannot run gnuplot (install gnuplot-nox): %s", e->message);
		g_error_free(e);
		return false;
	}
	if (!g_spawn_check_wait_status(status, NULL) || !g_file_test(tmp, G_FILE_TEST_IS_REGULAR)) {
		unlink(tmp);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "gnuplot failed on %s: %s",
			    script_path, out_err ? g_strstrip(out_err) : "");
		return false;
	}
	if (rename(tmp, out) != 0) {
		int err = errno;

		unlink(tmp);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot rename into place: %s",
			    out, g_strerror(err));
		return false;
	}
	if (written)
		g_ptr_array_add(written, g_strdup(out));
	(*nfiles)++;
	return true;
}

/* The ticks of a size axis over lo..hi bytes (arrays tick_at and
 * tick_label): powers of two from lo's, every 2^step with the smallest step
 * that keeps to six labels, so that labels do not run together; labelled as
 * configs write sizes ("256KiB", "1GiB"). */
static void bytes_ticks(GString *vars, double lo, double hi)
{
	int a = (int)floor(log2(lo)), b = (int)ceil(log2(hi)), step = 1;
	GString *at = g_string_new(NULL), *label = g_string_new(NULL);
	guint n = 0;

	if (b > 63)
		b = 63;
	while ((b - a) / step > 5)
		step++;
	for (int k = a; k <= b; k += step) {
		char sz[32];

		g_string_append_printf(at, "%s%" G_GUINT64_FORMAT, n ? ", " : "", (uint64_t)1 << k);
		if (n)
			g_string_append(label, ", ");
		plot_gp_quote(label, units_format_size((uint64_t)1 << k, sz, sizeof(sz)));
		n++;
	}
	g_string_append_printf(vars, "array tick_at[%u] = [%s]\narray tick_label[%u] = [%s]\n", n,
			       at->str, n, label->str);
	g_string_free(at, TRUE);
	g_string_free(label, TRUE);
}

/* One figure: rows (all of one collective and one fixed setting of the
 * other parameters), x column, lines per algorithm. */
static bool figure(const struct ctx *c, GArray *rows, const struct rcol *x, const char *xlabel,
		   bool xlog, bool xbytes, const char *baseline, const char *base, const char *title,
		   const char *tmpl, guint *nfiles, GError **error)
{
	g_autoptr(GArray) algos = distinct(c->algo, rows);
	GString *data = g_string_new(NULL), *names = g_string_new(NULL), *vars = g_string_new(NULL);
	bool ok = false;

	for (guint a = 0; a < algos->len; a++) {
		const char *an = rcol_str(c->algo, g_array_index(algos, guint, a));
		g_autoptr(GArray) mine = g_array_new(FALSE, FALSE, sizeof(guint));

		g_string_append_printf(names, "%s%s", a ? " " : "", an);
		for (guint i = 0; i < rows->len; i++) {
			guint r = g_array_index(rows, guint, i);

			if (!strcmp(rcol_str(c->algo, r), an))
				g_array_append_val(mine, r);
		}
		g_array_sort_with_data(mine, cmp_num_rows, (gpointer)x);
		g_string_append_printf(data, "%s# %s\n", a ? "\n\n" : "", an);
		for (guint i = 0; i < mine->len; i++) {
			guint r = g_array_index(mine, guint, i);
			double lat = rcol_num(c->lat, r), bl = NAN;
			char b1[G_ASCII_DTOSTR_BUF_SIZE], b2[G_ASCII_DTOSTR_BUF_SIZE];
			char b3[G_ASCII_DTOSTR_BUF_SIZE], b4[G_ASCII_DTOSTR_BUF_SIZE];

			if (isnan(lat)) /* a point that failed: no result to draw */
				continue;

			for (guint j = 0; j < rows->len; j++) {
				guint q = g_array_index(rows, guint, j);

				if (!strcmp(rcol_str(c->algo, q), baseline) && same(x, q, r))
					bl = rcol_num(c->lat, q);
			}
			double sp = isnan(bl) || lat <= 0 ? NAN : bl / lat;

			g_string_append_printf(data, "%s %s %s %s\n",
					       g_ascii_formatd(b1, sizeof(b1), "%.10g", rcol_num(x, r)),
					       g_ascii_formatd(b2, sizeof(b2), "%.10g", lat),
					       g_ascii_formatd(b3, sizeof(b3), "%.10g", rcol_num(c->bus, r)),
					       isnan(sp) ? "NaN" : g_ascii_formatd(b4, sizeof(b4), "%.10g", sp));
		}
	}
	g_autofree char *dat = g_strdup_printf("%s.dat", base);

	if (!put_file(c, dat, data, error))
		goto out;
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;

	for (guint i = 0; i < rows->len; i++) {
		guint r = g_array_index(rows, guint, i);

		xlo = fmin(xlo, rcol_num(x, r));
		xhi = fmax(xhi, rcol_num(x, r));
		if (rcol_num(c->lat, r) > 0) {
			ylo = fmin(ylo, rcol_num(c->lat, r));
			yhi = fmax(yhi, rcol_num(c->lat, r));
		}
	}
	g_string_append(vars, "# Generated by g5: variables, then plots/style.gp and a template.\n");
	plot_gp_var(vars, "datafile", dat);
	plot_gp_var(vars, "title", title);
	plot_gp_var(vars, "xlabel", xlabel);
	plot_gp_var(vars, "algos", names->str);
	plot_gp_var(vars, "baseline", baseline);
	/* a log axis over less than about a decade would carry one or two
	 * labels: latencies that close share a linear one */
	g_string_append_printf(vars, "xlog = %d\nxbytes = %d\nylog = %d\nnpanels = %d\n", xlog, xbytes,
			       ylo > 0 && yhi / ylo >= 20, algos->len > 1 ? 3 : 2);
	if (xbytes && xlo >= 1)
		bytes_ticks(vars, xlo, xhi);
	if (c->req->png && !render(c, base, vars->str, tmpl, "pngcairo", "png", nfiles, error))
		goto out;
	if (c->req->svg && !render(c, base, vars->str, tmpl, "svg", "svg", nfiles, error))
		goto out;
	ok = true;
out:
	g_string_free(data, TRUE);
	g_string_free(names, TRUE);
	g_string_free(vars, TRUE);
	return ok;
}

static const char *baseline_of(const char *baselines, const char *coll, GPtrArray *keep)
{
	g_auto(GStrv) parts = g_strsplit(baselines ? baselines : "", ",", -1);

	for (int i = 0; parts[i]; i++) {
		char *colon = strchr(parts[i], ':');

		if (colon && (size_t)(colon - parts[i]) == strlen(coll) &&
		    !strncmp(parts[i], coll, strlen(coll))) {
			char *b = g_strdup(colon + 1);

			g_ptr_array_add(keep, b);
			return b;
		}
	}
	return NULL;
}

/* The unit of a swept key's numbers in the results table: bandwidths in
 * GB/s, times in us, sizes in bytes; NULL for counts and rates. */
static const char *param_unit(const char *key)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ "bandwidth", "GB/s" }, { "inject", "GB/s" }, { "eject", "GB/s" }, { "reduce", "GB/s" },
		{ "beta", "GB/s" }, { "latency", "us" }, { "timeout", "us" }, { "credit_return", "us" },
		{ "setup", "us" }, { "ctrl_proc", "us" }, { "overhead", "us" }, { "alpha", "us" },
		{ "packet", "bytes" }, { "header", "bytes" }, { "slice", "bytes" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
		if (g_str_has_suffix(key, units[i].suffix))
			return units[i].unit;
	return NULL;
}

/* Axis label of a parameter: its key and the unit of its numbers. */
static char *param_label(const struct param *p)
{
	return p->unit ? g_strdup_printf("%s (%s)", p->label, p->unit) : g_strdup(p->label);
}

/* The start of a figure's title: "EXPERIMENT: COLLECTIVE on PLATFORM", and
 * ", N ranks" when the rank count is the same in every figure. */
static void where(const struct ctx *c, GString *title, const char *name, const char *coll, guint r,
		  GPtrArray *varied)
{
	bool ranks_vary = false;

	for (guint p = 0; p < varied->len; p++)
		ranks_vary |= ((struct param *)varied->pdata[p])->col == c->ranks;
	g_string_append_printf(title, "%s: %s", name, coll);
	if (c->platform)
		g_string_append_printf(title, " on %s", rcol_str(c->platform, r));
	if (c->ranks && !ranks_vary && c->ranks->type != RC_STR)
		g_string_append_printf(title, ", %.0f ranks", rcol_num(c->ranks, r));
}

static bool is_numeric_param(const struct rcol *c)
{
	return c->type != RC_STR;
}

bool plot_results(const struct plot_request *req, guint *nfiles, GError **error)
{
	const struct rtable *t = req->table;
	bool summary = !strcmp(t->name, "summary");
	struct ctx c = { .req = req };
	g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *size_tmpl = NULL, *param_tmpl = NULL;
	g_autofree char *style = NULL, *size_only = NULL, *param_only = NULL;
	g_autofree char *plot_dir = g_build_filename(req->out_dir, "plots", NULL);
	g_autofree char *sname = safe(req->name); /* file names stay in plot_dir */
	g_autofree char *tmp_dir = NULL;
	g_auto(GStrv) sweeps = g_strsplit(req->sweep_keys ? req->sweep_keys : "", ",", -1);
	bool ok = false;

	*nfiles = 0;
	c.coll = rtable_col(t, "collective");
	c.algo = rtable_col(t, "algo");
	c.bytes = rtable_col(t, "bytes");
	c.lat = rtable_col(t, summary ? "latency_us_mean" : "latency_us");
	c.bus = rtable_col(t, summary ? "busbw_gbps_mean" : "busbw_gbps");
	c.platform = rtable_col(t, "platform");
	c.ranks = rtable_col(t, "ranks");
	if (c.platform && c.platform->type != RC_STR)
		c.platform = NULL;
	if (!c.coll || !c.algo || !c.bytes || !c.lat || !c.bus || c.coll->type != RC_STR ||
	    c.algo->type != RC_STR || c.bytes->type == RC_STR || c.lat->type == RC_STR ||
	    c.bus->type == RC_STR) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
			    "table '%s' lacks the columns to plot (collective, algo, bytes, latency, busbw)",
			    t->name);
		return false;
	}
	if (!req->png && !req->svg)
		return true;
	if (!plot_path_ok("output directory", req->out_dir, error))
		return false;
	if (!(style = plot_template_read(req->templates, "style.gp", error)) ||
	    !(size_only = plot_template_read(req->templates, "size.gp", error)) ||
	    !(param_only = plot_template_read(req->templates, "param.gp", error)))
		return false;
	size_tmpl = g_strconcat(style, size_only, NULL);
	param_tmpl = g_strconcat(style, param_only, NULL);
	if (g_mkdir_with_parents(plot_dir, 0777) != 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot create: %s", plot_dir,
			    g_strerror(errno));
		return false;
	}
	tmp_dir = g_strdup_printf("%s/.%s.tmp.%d", plot_dir, sname, (int)getpid());
	remove_tree(tmp_dir); /* a killed run of the same process id */
	if (mkdir(tmp_dir, 0777) != 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot create: %s", tmp_dir,
			    g_strerror(errno));
		return false;
	}
	c.tmp_dir = tmp_dir;
	c.params = g_ptr_array_new_with_free_func(g_free);
	const char *fixed[][2] = { { "ranks", "ranks" }, { "nchunks", "nchunks" }, { "dtype", "dtype" } };

	for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++) {
		const struct rcol *col = rtable_col(t, fixed[i][0]);

		if (col) {
			struct param *p = g_new0(struct param, 1);

			p->col = col;
			p->label = fixed[i][1];
			g_ptr_array_add(c.params, p);
		}
	}
	for (int i = 0; sweeps[i]; i++) {
		const struct rcol *col = *sweeps[i] ? rtable_col(t, sweeps[i]) : NULL;

		if (col) {
			struct param *p = g_new0(struct param, 1);

			p->col = col;
			p->label = col->name;
			p->unit = param_unit(col->name);
			g_ptr_array_add(c.params, p);
		}
	}

	g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint));

	for (guint i = 0; i < t->nrows; i++)
		g_array_append_val(all, i);
	g_autoptr(GArray) colls = distinct(c.coll, all);

	for (guint ci = 0; ci < colls->len; ci++) {
		const char *cn = rcol_str(c.coll, g_array_index(colls, guint, ci));
		g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(guint));
		g_autoptr(GPtrArray) varied = g_ptr_array_new();
		const char *baseline;

		for (guint i = 0; i < t->nrows; i++)
			if (!strcmp(rcol_str(c.coll, i), cn))
				g_array_append_val(rows, i);
		baseline = baseline_of(req->baselines, cn, keep);
		if (!baseline)
			baseline = rcol_str(c.algo, g_array_index(rows, guint, 0));
		for (guint p = 0; p < c.params->len; p++) {
			struct param *pp = c.params->pdata[p];
			g_autoptr(GArray) d = distinct(pp->col, rows);

			if (d->len > 1)
				g_ptr_array_add(varied, pp);
		}
		g_autoptr(GArray) sizes = distinct(c.bytes, rows);

		g_array_sort_with_data(sizes, cmp_num_rows, (gpointer)c.bytes);
		g_autofree char *scn = safe(cn);

		/* Against size, one figure per setting of the varied parameters. */
		if (sizes->len > 1) {
			g_autoptr(GArray) done = g_array_new(FALSE, FALSE, sizeof(guint));

			for (guint i = 0; i < rows->len; i++) {
				guint r = g_array_index(rows, guint, i);
				bool seen = false;

				for (guint j = 0; j < done->len && !seen; j++) {
					guint q = g_array_index(done, guint, j);
					bool eq = true;

					for (guint p = 0; p < varied->len; p++)
						eq &= same(((struct param *)varied->pdata[p])->col, q, r);
					seen = eq;
				}
				if (seen)
					continue;
				g_array_append_val(done, r);
				g_autoptr(GArray) grp = g_array_new(FALSE, FALSE, sizeof(guint));
				GString *tag = g_string_new(NULL), *title = g_string_new(NULL);

				for (guint j = 0; j < rows->len; j++) {
					guint q = g_array_index(rows, guint, j);
					bool eq = true;

					for (guint p = 0; p < varied->len; p++)
						eq &= same(((struct param *)varied->pdata[p])->col, q, r);
					if (eq)
						g_array_append_val(grp, q);
				}
				where(&c, title, req->name, cn, r, varied);
				for (guint p = 0; p < varied->len; p++) {
					struct param *pp = varied->pdata[p];
					g_autofree char *v = param_value(pp, r, false);
					g_autofree char *fv = param_value(pp, r, true);
					g_autofree char *sv = safe(fv);

					g_string_append_printf(tag, "-%s%s", pp->label, sv);
					g_string_append_printf(title, ", %s %s", pp->label, v);
				}
				g_autofree char *stag = safe(tag->str);
				g_autofree char *base = g_strdup_printf("%s/%s-%s%s-size", plot_dir, sname,
									scn, stag);

				g_string_free(tag, TRUE);
				bool fok = figure(&c, grp, c.bytes, "size (bytes)", true, true, baseline, base,
						  title->str, size_tmpl, nfiles, error);

				g_string_free(title, TRUE);
				if (!fok)
					goto out;
			}
		}

		/* Against each varied numeric parameter, at fixed size. */
		for (guint p = 0; p < varied->len; p++) {
			struct param *pp = varied->pdata[p];

			if (!is_numeric_param(pp->col))
				continue;
			guint first_size = sizes->len <= 4 ? 0 : sizes->len - 1;

			for (guint si = first_size; si < sizes->len; si++) {
				guint sr = g_array_index(sizes, guint, si);
				g_autoptr(GArray) grp = g_array_new(FALSE, FALSE, sizeof(guint));
				char sz[32];

				for (guint j = 0; j < rows->len; j++) {
					guint q = g_array_index(rows, guint, j);
					bool eq = same(c.bytes, q, sr);

					for (guint o = 0; o < varied->len && eq; o++) {
						struct param *op = varied->pdata[o];

						/* Other varied parameters at their first value. */
						if (op != pp)
							eq = same(op->col, q, g_array_index(rows, guint, 0));
					}
					if (eq)
						g_array_append_val(grp, q);
				}
				units_format_size((uint64_t)rcol_num(c.bytes, sr), sz, sizeof(sz));
				g_autofree char *sp = safe(pp->label);
				g_autofree char *base = g_strdup_printf("%s/%s-%s-%s-%s", plot_dir, sname, scn,
									sp, sz);
				GString *title = g_string_new(NULL);

				where(&c, title, req->name, cn, sr, varied);
				for (guint o = 0; o < varied->len; o++) {
					struct param *op = varied->pdata[o];
					g_autofree char *v = NULL;

					if (op == pp)
						continue;
					v = param_value(op, g_array_index(rows, guint, 0), false);
					g_string_append_printf(title, ", %s %s", op->label, v);
				}
				g_string_append_printf(title, ", at %s", sz);
				bool in_bytes = pp->unit && !strcmp(pp->unit, "bytes");
				bool xlog = !strcmp(pp->label, "ranks") || !strcmp(pp->label, "nchunks") ||
					    in_bytes;
				g_autofree char *xl = param_label(pp);
				bool fok = figure(&c, grp, pp->col, xl, xlog, in_bytes, baseline, base,
						  title->str, param_tmpl, nfiles, error);

				g_string_free(title, TRUE);
				if (!fok)
					goto out;
			}
		}
	}
	ok = true;
out:
	g_ptr_array_unref(c.params);
	remove_tree(tmp_dir);
	return ok;
}

/* Whether `fn` is ".NAME.tmp.PID" (PID: decimal digits). No other
 * experiment's temporary directory has that name: NAME is what lies
 * between the dot and the last ".tmp.", since a PID holds no dot. */
static bool is_tmp_dir_of(const char *fn, const char *name)
{
	size_t n = strlen(name);
	const char *pid = fn + 1 + n + 5;

	if (fn[0] != '.' || strncmp(fn + 1, name, n) || strncmp(fn + 1 + n, ".tmp.", 5) || !*pid)
		return false;
	for (; *pid; pid++)
		if (!g_ascii_isdigit(*pid))
			return false;
	return true;
}

void plot_remove_tmps(const char *out_dir, const char *name)
{
	g_autofree char *plot_dir = g_build_filename(out_dir, "plots", NULL);
	g_autofree char *sname = safe(name);
	g_autoptr(GDir) gd = g_dir_open(plot_dir, 0, NULL);
	g_autoptr(GPtrArray) doomed = g_ptr_array_new_with_free_func(g_free);
	const char *fn;

	while (gd && (fn = g_dir_read_name(gd)))
		if (is_tmp_dir_of(fn, sname))
			g_ptr_array_add(doomed, g_build_filename(plot_dir, fn, NULL));
	for (guint i = 0; i < doomed->len; i++)
		remove_tree(doomed->pdata[i]);
}
