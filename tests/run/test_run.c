/* End-to-end tests of `g5 run` and `g5 plot` (the binary named by $G5, set
 * by `make test`; skipped without it): results do not depend on the number
 * of threads (CSV bytes, HDF5 simulated columns), the HDF5 file reads with
 * h5dump and back through rtable_read_h5, the CSV mirrors it, plots are
 * drawn (and redrawn from the file), sweeps expand, and a bad file exits 2
 * with its FILE:LINE:COL message. Run from the repository root. */
#include <glib.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/results.h"

#include "tests/support/g5run.h"

static char *slurp(const char *path)
{
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		g_error("cannot read %s", path);
	return text;
}

static void assert_nonempty(const char *path)
{
	GStatBuf st;

	if (g_stat(path, &st) != 0)
		g_error("%s was not written", path);
	g_assert_cmpint(st.st_size, >, 0);
}

static void test_determinism(void)
{
	g_autofree char *d1 = tmpdir(), *d2 = tmpdir();
	struct run r1, r2;

	if (!g5(&r1, "run", "tests/run/tiny.yaml", "-o", d1, "--jobs", "1", "--no-plots", NULL))
		return;
	g_assert_cmpint(exit_code(&r1), ==, 0);
	g5(&r2, "run", "tests/run/tiny.yaml", "-o", d2, "--jobs", "2", "--no-plots", NULL);
	g_assert_cmpint(exit_code(&r2), ==, 0);
	g_assert_cmpstr(r2.err, ==, ""); /* no progress bar: stderr is not a terminal */

	g_autofree char *c1p = g_build_filename(d1, "tiny.csv", NULL);
	g_autofree char *c2p = g_build_filename(d2, "tiny.csv", NULL);
	g_autofree char *c1 = slurp(c1p), *c2 = slurp(c2p);

	g_assert_cmpstr(c1, ==, c2);
	g_autofree char *h1 = g_build_filename(d1, "tiny.h5", NULL);
	g_autofree char *h2 = g_build_filename(d2, "tiny.h5", NULL);
	const char *tables[] = { "results", "steps", "channels", "summary" };

	for (size_t i = 0; i < G_N_ELEMENTS(tables); i++)
		assert_h5_tables_equal(h1, h2, tables[i]);
	/* No temporary file left behind. */
	g_autoptr(GDir) dir = g_dir_open(d2, 0, NULL);
	const char *n;
	guint count = 0;

	while ((n = g_dir_read_name(dir))) {
		g_assert_false(g_str_has_prefix(n, "."));
		count++;
	}
	g_assert_cmpuint(count, ==, 3); /* NAME.h5, NAME.csv, NAME.manifest */
	run_clear(&r1);
	run_clear(&r2);
	rm_rf(d1);
	rm_rf(d2);
}

static void test_h5_contents(void)
{
	g_autofree char *d = tmpdir();
	struct run r;
	GError *err = NULL;

	if (!g5(&r, "run", "tests/run/tiny.yaml", "-o", d, "--no-plots", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autofree char *h5 = g_build_filename(d, "tiny.h5", NULL);

	/* h5dump reads it. */
	char *argv[] = { "h5dump", "-H", h5, NULL };
	g_autofree char *out = NULL;
	int status;

	g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
				   NULL, NULL, &out, NULL, &status, &err));
	g_assert_no_error(err);
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	g_assert_nonnull(strstr(out, "GROUP \"results\""));
	g_assert_nonnull(strstr(out, "GROUP \"steps\""));
	g_assert_nonnull(strstr(out, "GROUP \"channels\""));
	g_assert_nonnull(strstr(out, "GROUP \"summary\""));
	g_assert_nonnull(strstr(out, "DATASET \"latency_us\""));
	g_assert_nonnull(strstr(out, "ATTRIBUTE \"experiment_yaml\""));
	g_assert_nonnull(strstr(out, "ATTRIBUTE \"platform_yaml\""));

	/* The results table: 2 algorithms x 3 sizes x 2 seeds. */
	struct rtable *t = rtable_read_h5(h5, "results", &err);

	g_assert_no_error(err);
	g_assert_cmpuint(t->nrows, ==, 12);
	const char *want[] = { "point", "experiment", "platform", "collective", "algo", "topology",
			       "ranks", "bytes", "dtype", "nchunks", "seed", "latency_us", "algbw_gbps",
			       "busbw_gbps", "theory_us", "steps", "events", "wall_s" };
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
		if (!rtable_col(t, want[i]))
			g_error("results table lacks column '%s'", want[i]);
	const struct rcol *lat = rtable_col(t, "latency_us"), *bytes = rtable_col(t, "bytes");
	const struct rcol *alg = rtable_col(t, "algbw_gbps");

	for (guint i = 0; i < t->nrows; i++) {
		double expect = rcol_num(bytes, i) / (rcol_num(lat, i) * 1e-6) / 1e9;

		g_assert_cmpfloat(rcol_num(lat, i), >, 26.0); /* the software overhead */
		g_assert_cmpfloat(fabs(rcol_num(alg, i) - expect), <, 1e-9 * expect);
	}
	g_assert_cmpstr(rcol_str(rtable_col(t, "algo"), 0), ==, "ring");
	g_assert_cmpstr(rcol_str(rtable_col(t, "topology"), 0), ==, "ring");

	/* The summary: one row per seed group, mean of the two seeds. */
	struct rtable *s = rtable_read_h5(h5, "summary", &err);

	g_assert_no_error(err);
	g_assert_cmpuint(s->nrows, ==, 6);
	g_assert_null(rtable_col(s, "seed"));
	for (guint g = 0; g < s->nrows; g++) {
		double mean = (rcol_num(lat, 2 * g) + rcol_num(lat, 2 * g + 1)) / 2;

		g_assert_cmpfloat(fabs(rcol_num(rtable_col(s, "latency_us_mean"), g) - mean), <, 1e-9 * mean);
		g_assert_cmpint((int64_t)rcol_num(rtable_col(s, "seeds"), g), ==, 2);
	}
	/* Steps and channels are keyed by point index. */
	struct rtable *st = rtable_read_h5(h5, "steps", &err);

	g_assert_no_error(err);
	g_assert_cmpfloat(rcol_num(rtable_col(st, "point"), st->nrows - 1), ==, 11);
	struct rtable *ch = rtable_read_h5(h5, "channels", &err);

	g_assert_no_error(err);
	g_assert_cmpuint(ch->nrows, ==, 12 * 16); /* 8-rank ring: 16 channels */
	g_autofree char *yaml = results_read_attr(h5, "experiment_yaml");
	g_autofree char *file = slurp("tests/run/tiny.yaml");

	g_assert_cmpstr(yaml, ==, file);

	/* The CSV mirrors the results table, row for row. */
	g_autofree char *csvp = g_build_filename(d, "tiny.csv", NULL);
	g_autofree char *csv = slurp(csvp);
	g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);

	g_assert_cmpuint(g_strv_length(lines), ==, t->nrows + 2); /* header, rows, "" */
	g_assert_true(g_str_has_prefix(lines[0], "point,experiment,platform,collective,algo,"));
	g_assert_null(strstr(lines[0], "wall_s"));
	for (guint i = 0; i < t->nrows; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i + 1], ",", -1);

		g_assert_cmpfloat(g_ascii_strtod(f[11], NULL), ==, rcol_num(lat, i));
	}
	rtable_free(t);
	rtable_free(s);
	rtable_free(st);
	rtable_free(ch);
	rm_rf(d);
}

static void test_plots(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *d2 = g_build_filename(d, "again", NULL);
	struct run r;
	const char *files[] = { "plots/tiny-allreduce-size.png", "plots/tiny-allreduce-size.svg",
				"plots/tiny-allreduce-size.dat" };

	if (!g5(&r, "run", "tests/run/tiny.yaml", "-o", d, NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *p = g_build_filename(d, files[i], NULL);

		assert_nonempty(p);
	}
	g_autofree char *png = g_build_filename(d, files[0], NULL);
	g_autofree char *head = NULL;
	gsize len;

	g_assert_true(g_file_get_contents(png, &head, &len, NULL));
	g_assert_cmpmem(head, 4, "\x89PNG", 4);

	/* a kept script, run by hand, redraws its figure in place */
	g_autofree char *script = g_strconcat(png, ".gp", NULL);
	char *gp_argv[] = { "gnuplot", script, NULL };
	gint status = 1;

	g_assert_cmpint(g_unlink(png), ==, 0);
	g_assert_true(g_spawn_sync(NULL, gp_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
				   &status, NULL));
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	assert_nonempty(png);
	/* and no temporary is left, of g5's or of the script's */
	g_autofree char *pd = g_build_filename(d, "plots", NULL);
	g_autoptr(GDir) gd = g_dir_open(pd, 0, NULL);
	const char *fn;

	while ((fn = g_dir_read_name(gd)))
		g_assert_cmpint(fn[0], !=, '.');

	/* g5 plot redraws them from the results file alone. */
	g_autofree char *h5 = g_build_filename(d, "tiny.h5", NULL);

	g5(&r, "plot", h5, "-o", d2, "--format", "png", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autofree char *again = g_build_filename(d2, files[0], NULL);
	g_autofree char *svg_again = g_build_filename(d2, files[1], NULL);

	assert_nonempty(again);
	g_assert_false(g_file_test(svg_again, G_FILE_TEST_EXISTS));
	rm_rf(d);
}

/* Sets the file attribute `name` of an HDF5 file to `value`, as a crafted
 * or damaged results file may hold it. */
static void h5_set_attr(const char *path, const char *name, const char *value)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t type = H5Tcopy(H5T_C_S1);
	hid_t space = H5Screate(H5S_SCALAR);

	g_assert_cmpint(f, >=, 0);
	H5Tset_size(type, H5T_VARIABLE);
	g_assert_cmpint(H5Adelete(f, name), >=, 0);
	hid_t a = H5Acreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT);

	g_assert_cmpint(a, >=, 0);
	g_assert_cmpint(H5Awrite(a, type, &value), >=, 0);
	H5Aclose(a);
	H5Sclose(space);
	H5Tclose(type);
	H5Fclose(f);
}

/* A results file whose experiment name would lead out of the output
 * directory (or into gnuplot) is refused by `g5 plot`, and nothing is
 * written, there or outside. */
static void test_plot_hostile_name(void)
{
	static const char *const names[] = { "../../../zzz", "a/b", "x\nsystem('touch PW')", "" };
	g_autofree char *d = tmpdir();
	struct run r;

	if (!g5(&r, "run", "tests/run/tiny.yaml", "-o", d, "--no-plots", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autofree char *h5 = g_build_filename(d, "tiny.h5", NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree char *out = g_build_filename(d, "o", "p", NULL);

		h5_set_attr(h5, "experiment", names[i]);
		g5(&r, "plot", h5, "-o", out, NULL);
		g_assert_cmpint(exit_code(&r), ==, 1);
		g_assert_nonnull(strstr(r.err, "is not a plain name"));
		run_clear(&r);
		g_autofree char *o = g_build_filename(d, "o", NULL);
		g_autofree char *zzz = g_build_filename(d, "zzz-allreduce-size.png", NULL);

		g_assert_false(g_file_test(o, G_FILE_TEST_EXISTS));
		g_assert_false(g_file_test(zzz, G_FILE_TEST_EXISTS));
		g_assert_false(g_file_test("PW", G_FILE_TEST_EXISTS));
	}
	rm_rf(d);
}

/* An output directory (outputs.dir) whose name holds gnuplot commands and
 * quotes is a name: the plots are drawn there and none of it runs; one
 * with a line break, which gnuplot cannot name, is refused before the run,
 * with nothing written. */
static void test_plot_hostile_dir(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *pw = g_build_filename(d, "PW", NULL);
	g_autofree char *out = g_strdup_printf("%s/o'; system('touch %s'); x='1 `touch %s` @x", d, pw,
					       pw);
	g_autofree char *nl = g_strdup_printf("%s/n'\nsystem('touch %s')\nx='1", d, pw);
	g_autofree char *yaml = g_build_filename(d, "h.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	const char *fmt = "schema_version: 1\nname: h\nplatform: %s\ncollectives: [allreduce]\n"
			  "algorithms: [ring]\nsizes: [1MiB, 4MiB]\noutputs:\n  dir: \"%s\"\n"
			  "  formats: [csv, png]\n";
	g_autofree char *esc = g_strescape(out, NULL);
	g_autofree char *esc_nl = g_strescape(nl, NULL);
	g_autofree char *text = g_strdup_printf(fmt, plat, esc);
	g_autofree char *text_nl = g_strdup_printf(fmt, plat, esc_nl);
	g_autofree char *png = g_build_filename(out, "plots", "h-allreduce-size.png", NULL);
	struct run r;

	g_assert_true(g_file_set_contents(yaml, text, -1, NULL));
	if (!g5(&r, "run", yaml, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	assert_nonempty(png);
	g_assert_false(g_file_test(pw, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_set_contents(yaml, text_nl, -1, NULL));
	g5(&r, "run", yaml, "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "output directory '"));
	g_assert_nonnull(strstr(r.err, "n'\\nsystem("));
	g_assert_nonnull(strstr(r.err, "a path with a control character cannot go to gnuplot"));
	run_clear(&r);
	g_assert_false(g_file_test(nl, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(pw, G_FILE_TEST_EXISTS));
	rm_rf(d);
}

/* The value of `name = ...` in a generated gnuplot script (to the line's end). */
static char *gp_value(const char *script, const char *name)
{
	g_autofree char *pat = g_strdup_printf("\n%s = ", name);
	const char *p = strstr(script, pat);

	if (!p)
		g_error("no '%s = ' in the script", name);
	p += strlen(pat);
	return g_strndup(p, strcspn(p, "\n"));
}

/* Latency range of a figure's data file (column 2). */
static void dat_latency_range(const char *path, double *lo, double *hi)
{
	g_autofree char *text = slurp(path);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	*lo = INFINITY;
	*hi = 0;
	for (int i = 0; lines[i]; i++) {
		double x, y;

		if (sscanf(lines[i], "%lf %lf", &x, &y) == 2) {
			*lo = fmin(*lo, y);
			*hi = fmax(*hi, y);
		}
	}
}

/* What a reader of a figure relies on: its title names the experiment,
 * collective, platform, rank count and every value held fixed, swept values
 * with their units; the size axis has at most six labels, written as
 * configs write sizes (KiB, MiB); the latency axis is logarithmic only over
 * a wide range (twenty times or more); one algorithm gets no speedup panel. */
static void check_figure(const char *dir, const char *base, const char *title, const char *const *ticks,
			 int npanels)
{
	g_autofree char *gp_path = g_strdup_printf("%s/plots/%s.png.gp", dir, base);
	g_autofree char *dat_path = g_strdup_printf("%s/plots/%s.dat", dir, base);
	g_autofree char *png = g_strdup_printf("%s/plots/%s.png", dir, base);
	g_autofree char *gp = slurp(gp_path);
	g_autofree char *t = gp_value(gp, "title");
	g_autofree char *want_title = g_strdup_printf("'%s'", title);
	g_autofree char *ylog = gp_value(gp, "ylog");
	g_autofree char *np = gp_value(gp, "npanels");
	double lo, hi;

	assert_nonempty(png);
	g_assert_cmpstr(t, ==, want_title);
	dat_latency_range(dat_path, &lo, &hi);
	g_assert_cmpint(atoi(ylog), ==, hi / lo >= 20);
	g_assert_cmpint(atoi(np), ==, npanels);
	if (ticks) {
		g_auto(GStrv) lines = g_strsplit(gp, "\n", -1);
		const char *labels = NULL;

		for (int i = 0; lines[i]; i++)
			if (g_str_has_prefix(lines[i], "array tick_label["))
				labels = lines[i];
		g_assert_nonnull(labels);
		g_auto(GStrv) each = g_strsplit(strchr(labels, '=') + 1, ",", -1);

		g_assert_cmpuint(g_strv_length(each), <=, 6);
		g_assert_null(strstr(labels, "kiB"));
		for (int i = 0; ticks[i]; i++) {
			g_autofree char *q = g_strdup_printf("'%s'", ticks[i]);

			if (!strstr(labels, q))
				g_error("%s: no size label %s in %s", base, q, labels);
		}
	}
}

/* Relative luminance of "#rrggbb" (sRGB). */
static double luminance(const char *hex)
{
	double c[3];

	for (int i = 0; i < 3; i++) {
		char part[3] = { hex[1 + 2 * i], hex[2 + 2 * i], 0 };
		double v = (double)strtol(part, NULL, 16) / 255.0;

		c[i] = v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

static void test_plots_readable(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *d2 = tmpdir();
	g_autofree char *cwd = g_get_current_dir();
	g_autofree char *yaml = g_build_filename(d2, "one.yaml", NULL);
	g_autofree char *text = g_strdup_printf("schema_version: 1\nname: one\n"
						"platform: %s/configs/platforms/seed-ring8.yaml\n"
						"collectives: [p2p]\nalgorithms: [direct]\n"
						"sizes: 1KiB..512MiB\n", cwd);
	struct run r;

	if (!g5(&r, "run", "tests/run/sweep.yaml", "-o", d, NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	check_figure(d, "sweep-allreduce-ranks4-link.bandwidth100GBps-size",
		     "sweep: allreduce on seed-ring8, ranks 4, link.bandwidth 100 GB/s",
		     (const char *const[]){ "64KiB", "1MiB", NULL }, 3);
	check_figure(d, "sweep-allreduce-ranks-1MiB",
		     "sweep: allreduce on seed-ring8, link.bandwidth 100 GB/s, at 1MiB", NULL, 3);
	check_figure(d, "sweep-allreduce-link.bandwidth-64KiB",
		     "sweep: allreduce on seed-ring8, ranks 4, at 64KiB", NULL, 3);

	g_assert_true(g_file_set_contents(yaml, text, -1, NULL));
	g5(&r, "run", yaml, "-o", d2, NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	check_figure(d2, "one-p2p-size", "one: p2p on seed-ring8, 8 ranks",
		     (const char *const[]){ "1KiB", "256KiB", "64MiB", NULL }, 2);

	/* Every line colour reads on the white background: a contrast of 3:1
	 * or more (a yellow has about 1.2), and the key is placed on the
	 * canvas, under the panels, not inside one. */
	g_autofree char *style = slurp("plots/style.gp");
	g_autoptr(GRegex) lt = g_regex_new("set linetype [0-9]+ lc rgb \"(#[0-9a-fA-F]{6})\"", 0, 0, NULL);
	g_autoptr(GMatchInfo) m = NULL;
	guint n = 0;

	for (g_regex_match(lt, style, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
		g_autofree char *hex = g_match_info_fetch(m, 1);
		double contrast = 1.05 / (luminance(hex) + 0.05);

		if (contrast < 3.0)
			g_error("plots/style.gp: colour %s has a contrast of %.2f on white", hex, contrast);
		n++;
	}
	g_assert_cmpuint(n, >=, 6);
	g_assert_nonnull(strstr(style, "set key at screen 0.5, screen "));
	rm_rf(d);
	rm_rf(d2);
}

static void test_sweep(void)
{
	g_autofree char *d = tmpdir();
	struct run r;
	GError *err = NULL;

	if (!g5(&r, "run", "tests/run/sweep.yaml", "-o", d, NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autofree char *h5 = g_build_filename(d, "sweep.h5", NULL);
	struct rtable *t = rtable_read_h5(h5, "results", &err);

	g_assert_no_error(err);
	/* 2 bandwidths x 2 rank counts x 2 algorithms x 2 sizes */
	g_assert_cmpuint(t->nrows, ==, 16);
	const struct rcol *bw = rtable_col(t, "link.bandwidth");

	g_assert_nonnull(bw);
	g_assert_cmpint(bw->type, ==, RC_F64);
	g_assert_cmpfloat(rcol_num(bw, 0), ==, 100);
	g_assert_cmpfloat(rcol_num(bw, 15), ==, 450);
	/* Same point at 100 and 450 GB/s: the slower link is slower at 1 MiB. */
	const struct rcol *lat = rtable_col(t, "latency_us");

	g_assert_cmpfloat(rcol_num(lat, 1), >, rcol_num(lat, 9));
	g_assert_cmpint((int64_t)rcol_num(rtable_col(t, "ranks"), 0), ==, 4);
	g_assert_cmpint((int64_t)rcol_num(rtable_col(t, "ranks"), 4), ==, 8);
	rtable_free(t);
	g_assert_null(rtable_read_h5(h5, "summary", &err)); /* one seed: no summary */
	g_clear_error(&err);
	/* Plots against size per setting, and against each varied parameter. */
	const char *files[] = {
		"plots/sweep-allreduce-ranks4-link.bandwidth100GBps-size.png",
		"plots/sweep-allreduce-ranks8-link.bandwidth450GBps-size.png",
		"plots/sweep-allreduce-ranks-1MiB.png",
		"plots/sweep-allreduce-link.bandwidth-64KiB.png",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *p = g_build_filename(d, files[i], NULL);

		assert_nonempty(p);
	}
	rm_rf(d);
}

/* A root or peer out of range, a swept shape that a rank count does not
 * make and a disconnected edge list stop g5 run before any point runs:
 * exit 2, the file, line and column of the key, and nothing written. */
static void test_bad_shape_no_files(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *out = g_build_filename(d, "out", NULL);
	g_autofree char *yaml = g_build_filename(d, "edges.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("tests/config/bad/plat-edges-disconnected.yaml", NULL);
	g_autofree char *text = g_strdup_printf(
		"schema_version: 1\nname: edges\nplatform: %s\ncollectives: [allreduce]\n"
		"algorithms: [ring]\nsizes: [1MiB]\n", plat);
	const char *files[] = { "tests/config/bad/exp-root-range.yaml",
				"tests/config/bad/exp-peer-range.yaml",
				"tests/config/bad/exp-sweep-torus-prime.yaml", yaml };
	const char *where[] = { "exp-root-range.yaml:9:7: 'root' must be a rank in 0..3",
				"exp-peer-range.yaml:6:7: 'peer' must be a rank in 0..7",
				"exp-sweep-torus-prime.yaml:8:25: 'sweep.topology.kind' torus is not admitted on 7 ranks",
				"plat-edges-disconnected.yaml:5:5: 'topology.edges' is not admitted: "
				"edge list leaves rank 4 unreachable from rank 0" };
	struct run r;

	g_assert_true(g_file_set_contents(yaml, text, -1, NULL));
	for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
		if (!g5(&r, "run", files[i], "-o", out, NULL))
			return;
		g_assert_cmpint(exit_code(&r), ==, 2);
		if (!strstr(r.err, where[i]))
			g_error("g5 run %s said '%s', not '%s'", files[i], r.err, where[i]);
		g_assert_cmpstr(r.out, ==, "");
		g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
		run_clear(&r);
	}
	rm_rf(d);
}

/* A long token a user gives (a flag's value, a YAML scalar, a word of a
 * schedule file) comes back in the message as its first 40 bytes and
 * "...", never whole; g5 exits 2. */
static void test_long_token_quoted_short(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *flag = g_strnfill(100 << 10, 'z');
	g_autofree char *big = g_strnfill(512 << 10, 'z'); /* files: at most 1 MiB */
	g_autofree char *shown = g_strconcat("'", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "...'", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	g_autofree char *dtype = g_build_filename(d, "dtype.yaml", NULL);
	g_autofree char *bw = g_build_filename(d, "bw.yaml", NULL);
	g_autofree char *sched = g_build_filename(d, "long.g5s", NULL);
	g_autofree char *pf = g_build_filename(d, "plat.yaml", NULL);
	g_autofree char *t1 = g_strdup_printf("schema_version: 1\nplatform: %s\ncollectives: [allreduce]\n"
					      "algorithms: [ring]\nsizes: [1MiB]\ndtypes: [%s]\n", plat, big);
	g_autofree char *t2 = g_strdup_printf("schema_version: 1\nplatform: %s\ncollectives: [allreduce]\n"
					      "algorithms: [ring]\nsizes: [1MiB]\noverrides:\n"
					      "  link.bandwidth: %s\n", plat, big);
	g_autofree char *t3 = g_strdup_printf("g5-schedule 1\n%s 1\n", big);
	g_autofree char *t4 = g_strdup_printf("schema_version: 1\ntopology:\n  kind: %s\n", big);

	g_assert_true(g_file_set_contents(dtype, t1, -1, NULL));
	g_assert_true(g_file_set_contents(bw, t2, -1, NULL));
	g_assert_true(g_file_set_contents(sched, t3, -1, NULL));
	g_assert_true(g_file_set_contents(pf, t4, -1, NULL));
	const char *const cases[][5] = {
		{ "sim", "--collective", flag, NULL },
		{ "sim", "--dtype", flag, NULL },
		{ "sim", "--size", flag, NULL },
		{ "sim", "--set", flag, NULL },
		{ "sim", "--platform", pf, NULL },
		{ "run", dtype, NULL },
		{ "run", bw, NULL },
		{ "verify", "--schedule", sched, NULL },
		{ flag, NULL },
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct run r;

		if (!g5(&r, cases[i][0], cases[i][1], cases[i][2], cases[i][3], NULL))
			return;
		g_assert_cmpint(exit_code(&r), ==, 2);
		if (!strstr(r.err, shown) || strlen(r.err) > 1000)
			g_error("case %u: %zu bytes on stderr, not a short quote: %.300s", i,
				strlen(r.err), r.err);
		run_clear(&r);
	}
	rm_rf(d);
}

/* A run's outputs are one generation: a rerun with fewer sweep values
 * leaves no plot of the values it dropped, a leftover temporary of the
 * experiment is removed, and another experiment's files in the same
 * directory (its temporaries too) are untouched; the manifest lists
 * exactly the files written. */
static void test_generation(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *yaml = g_build_filename(d, "gen.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	const char *fmt = "schema_version: 1\nname: gen\nplatform: %s\ncollectives: [allreduce]\n"
			  "algorithms: [ring]\nsizes: [1MiB, 4MiB]\noutputs:\n  formats: [csv, svg]\n"
			  "sweep:\n  link.bandwidth: [%s]\n";
	g_autofree char *three = g_strdup_printf(fmt, plat, "100GB/s, 200GB/s, 450GB/s");
	g_autofree char *two = g_strdup_printf(fmt, plat, "200GB/s, 450GB/s");
	g_autofree char *dropped = g_build_filename(d, "plots", "gen-allreduce-link.bandwidth100GBps-size.svg", NULL);
	g_autofree char *kept = g_build_filename(d, "plots", "gen-allreduce-link.bandwidth200GBps-size.svg", NULL);
	const char *own_tmp[] = { ".gen.csv.tmp.99999", "plots/.gen.tmp.42" };
	const char *others[] = { "other.csv", "other.manifest", ".other.csv.tmp.7", "gen2.csv",
				 ".gen2.csv.tmp.7", "plots/other-allreduce-x.svg",
				 "plots/.other-allreduce-x.svg.tmp.7" };
	struct run r;

	g_assert_true(g_file_set_contents(yaml, three, -1, NULL));
	if (!g5(&r, "run", yaml, "-o", d, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_assert_true(g_file_test(dropped, G_FILE_TEST_IS_REGULAR));
	for (guint i = 0; i < G_N_ELEMENTS(own_tmp); i++) {
		g_autofree char *p = g_build_filename(d, own_tmp[i], NULL);

		g_assert_true(g_file_set_contents(p, "x", -1, NULL));
	}
	for (guint i = 0; i < G_N_ELEMENTS(others); i++) {
		g_autofree char *p = g_build_filename(d, others[i], NULL);

		g_assert_true(g_file_set_contents(p, others[i], -1, NULL));
	}
	g_assert_true(g_file_set_contents(yaml, two, -1, NULL));
	g5(&r, "run", yaml, "-o", d, "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_assert_false(g_file_test(dropped, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(kept, G_FILE_TEST_IS_REGULAR));
	for (guint i = 0; i < G_N_ELEMENTS(own_tmp); i++) {
		g_autofree char *p = g_build_filename(d, own_tmp[i], NULL);

		g_assert_false(g_file_test(p, G_FILE_TEST_EXISTS));
	}
	for (guint i = 0; i < G_N_ELEMENTS(others); i++) {
		g_autofree char *p = g_build_filename(d, others[i], NULL);
		g_autofree char *text = slurp(p);

		g_assert_cmpstr(text, ==, others[i]);
	}
	/* the manifest: every file it lists exists; no gen plot is unlisted */
	g_autofree char *mpath = g_build_filename(d, "gen.manifest", NULL);
	g_autofree char *m = slurp(mpath);
	g_auto(GStrv) lines = g_strsplit(m, "\n", -1);
	g_autoptr(GHashTable) listed = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; lines[i]; i++) {
		if (!*lines[i] || *lines[i] == '#')
			continue;
		g_autofree char *p = g_build_filename(d, lines[i], NULL);

		g_assert_true(g_file_test(p, G_FILE_TEST_IS_REGULAR));
		g_hash_table_add(listed, lines[i]);
	}
	g_assert_true(g_hash_table_contains(listed, "gen.csv"));
	g_autofree char *pd = g_build_filename(d, "plots", NULL);
	g_autoptr(GDir) gd = g_dir_open(pd, 0, NULL);
	const char *fn;

	while ((fn = g_dir_read_name(gd)))
		if (g_str_has_prefix(fn, "gen-")) {
			g_autofree char *rel = g_strconcat("plots/", fn, NULL);

			g_assert_true(g_hash_table_contains(listed, rel));
		}
	rm_rf(d);
}

/* Whether a file or directory exists under d. */
static bool exists_in(const char *d, const char *rel)
{
	g_autofree char *p = g_build_filename(d, rel, NULL);

	return g_file_test(p, G_FILE_TEST_EXISTS);
}

/* Creates d/rel with its directories and `rel` as its text. */
static void plant(const char *d, const char *rel)
{
	g_autofree char *p = g_build_filename(d, rel, NULL);
	g_autofree char *dir = g_path_get_dirname(p);

	g_assert_cmpint(g_mkdir_with_parents(dir, 0777), ==, 0);
	g_assert_true(g_file_set_contents(p, rel, -1, NULL));
}

/* A run removes the temporaries a killed run of its own experiment left,
 * and none of another experiment's, whose name may begin with its own
 * ("a" and "a_b", "a-allreduce", "a.tmp.7" in one directory). */
static void test_tmps_exact(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *yaml = g_build_filename(d, "a.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	g_autofree char *text = g_strdup_printf(
		"schema_version: 1\nname: a\nplatform: %s\ncollectives: [allreduce]\n"
		"algorithms: [ring]\nsizes: [1MiB, 4MiB]\noutputs:\n  formats: [h5, csv, svg]\n", plat);
	static const char *const own[] = {
		".a.csv.tmp.12", ".a.h5.tmp.3", ".a.manifest.tmp.77",
		"plots/.a.tmp.42/a-allreduce-size.svg", "plots/.a.tmp.42/.a-allreduce-size.dat.tmp.42",
		"plots/.a.tmp.9/a-allreduce-size.svg.gp",
	};
	static const char *const others[] = {
		".a_b.csv.tmp.12", ".a.h5.csv.tmp.12", ".a-x.h5.tmp.3", ".a.csv.tmp.12x",
		"plots/.a_b.tmp.42/a_b-allreduce-size.svg", "plots/.a-allreduce.tmp.42/f.svg",
		"plots/.a.tmp.7.tmp.8/a.tmp.7-allreduce-size.svg", "plots/.a.tmp.x/f",
		"plots/.a_b-allreduce-size.svg.tmp.42", "plots/a_b-allreduce-size.svg",
		"plots/a-allreduce-x-allreduce-size.svg",
	};
	struct run r;

	for (size_t i = 0; i < G_N_ELEMENTS(own); i++)
		plant(d, own[i]);
	for (size_t i = 0; i < G_N_ELEMENTS(others); i++)
		plant(d, others[i]);
	g_assert_true(g_file_set_contents(yaml, text, -1, NULL));
	if (!g5(&r, "run", yaml, "-o", d, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	for (size_t i = 0; i < G_N_ELEMENTS(own); i++)
		g_assert_false(exists_in(d, own[i]));
	g_assert_false(exists_in(d, "plots/.a.tmp.42"));
	g_assert_false(exists_in(d, "plots/.a.tmp.9"));
	for (size_t i = 0; i < G_N_ELEMENTS(others); i++) {
		g_autofree char *p = g_build_filename(d, others[i], NULL);
		g_autofree char *got = slurp(p);

		g_assert_cmpstr(got, ==, others[i]);
	}
	g_assert_true(exists_in(d, "plots/a-allreduce-size.svg"));
	/* nothing of its own left behind: no hidden file but the planted ones */
	g_autofree char *pd = g_build_filename(d, "plots", NULL);
	g_autoptr(GDir) gd = g_dir_open(pd, 0, NULL);
	const char *fn;

	while ((fn = g_dir_read_name(gd)))
		g_assert_false(g_str_has_prefix(fn, ".a.tmp.") && strcmp(fn, ".a.tmp.7.tmp.8") &&
			       strcmp(fn, ".a.tmp.x"));
	/* g5 plot cleans the plot temporaries of its experiment the same way */
	plant(d, "plots/.a.tmp.5/a-allreduce-size.png");
	g_autofree char *h5 = g_build_filename(d, "a.h5", NULL);

	g5(&r, "plot", h5, "--format", "svg", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_assert_false(exists_in(d, "plots/.a.tmp.5"));
	for (size_t i = 0; i < G_N_ELEMENTS(others); i++) {
		g_autofree char *p = g_build_filename(d, others[i], NULL);
		g_autofree char *got = slurp(p);

		g_assert_cmpstr(got, ==, others[i]);
	}
	rm_rf(d);
}

/* The lines of DIR/NAME.manifest that name files, as a set. */
static GHashTable *manifest_set(const char *d, const char *name)
{
	g_autofree char *file = g_strdup_printf("%s.manifest", name);
	g_autofree char *p = g_build_filename(d, file, NULL);
	g_autofree char *m = slurp(p);
	g_auto(GStrv) lines = g_strsplit(m, "\n", -1);
	GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; lines[i]; i++)
		if (*lines[i] && *lines[i] != '#')
			g_hash_table_add(set, g_strdup(lines[i]));
	return set;
}

/* g5 plot F.h5 -o DIR makes its plots the plots of the experiment's
 * generation in DIR: DIR/NAME.manifest lists them (and keeps listing the
 * results files g5 run wrote there), the plots it listed and that were not
 * drawn again are removed, and other experiments' files stay. */
static void test_plot_generation(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *d3 = g_build_filename(d, "three", NULL);
	g_autofree char *d2 = g_build_filename(d, "two", NULL);
	g_autofree char *out = g_build_filename(d, "out", NULL);
	g_autofree char *yaml = g_build_filename(d, "gen.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	const char *fmt = "schema_version: 1\nname: gen\nplatform: %s\ncollectives: [allreduce]\n"
			  "algorithms: [ring]\nsizes: [1MiB, 4MiB]\noutputs:\n  formats: [h5, csv, png, svg]\n"
			  "sweep:\n  link.bandwidth: [%s]\n";
	g_autofree char *three = g_strdup_printf(fmt, plat, "100GB/s, 200GB/s, 450GB/s");
	g_autofree char *two = g_strdup_printf(fmt, plat, "200GB/s, 450GB/s");
	g_autofree char *h5_3 = g_build_filename(d3, "gen.h5", NULL);
	g_autofree char *h5_2 = g_build_filename(d2, "gen.h5", NULL);
	const char *dropped = "plots/gen-allreduce-link.bandwidth100GBps-size.png";
	const char *kept = "plots/gen-allreduce-link.bandwidth200GBps-size.png";
	static const char *const others[] = { "other.manifest", "plots/other-allreduce-size.png",
					      "plots/gen2-allreduce-size.png", "gen2.manifest" };
	struct run r;

	g_assert_true(g_file_set_contents(yaml, three, -1, NULL));
	if (!g5(&r, "run", yaml, "-o", d3, "-q", "--no-plots", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_assert_true(g_file_set_contents(yaml, two, -1, NULL));
	g5(&r, "run", yaml, "-o", d2, "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	for (size_t i = 0; i < G_N_ELEMENTS(others); i++)
		plant(out, others[i]);

	/* a new directory: the manifest lists the plots, each one there */
	g5(&r, "plot", h5_3, "-o", out, "--format", "png", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autoptr(GHashTable) m3 = manifest_set(out, "gen");

	g_assert_true(g_hash_table_contains(m3, dropped));
	g_assert_true(g_hash_table_contains(m3, kept));
	GHashTableIter it;
	gpointer key;

	g_hash_table_iter_init(&it, m3);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_assert_true(g_str_has_prefix(key, "plots/gen-"));
		g_assert_true(exists_in(out, key));
	}
	/* a file with fewer values: the plot of the dropped one goes */
	g5(&r, "plot", h5_2, "-o", out, "--format", "png", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autoptr(GHashTable) m2 = manifest_set(out, "gen");

	g_assert_false(exists_in(out, dropped));
	g_assert_false(g_hash_table_contains(m2, dropped));
	g_assert_true(exists_in(out, kept));
	g_assert_true(g_hash_table_contains(m2, kept));
	for (size_t i = 0; i < G_N_ELEMENTS(others); i++) {
		g_autofree char *p = g_build_filename(out, others[i], NULL);
		g_autofree char *got = slurp(p);

		g_assert_cmpstr(got, ==, others[i]);
	}
	/* where g5 run wrote: the results files stay listed; the svg plots,
	 * not drawn again, go */
	const char *svg = "plots/gen-allreduce-link.bandwidth200GBps-size.svg";

	g_assert_true(exists_in(d2, svg));
	g5(&r, "plot", h5_2, "--format", "png", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_autoptr(GHashTable) mr = manifest_set(d2, "gen");

	g_assert_true(g_hash_table_contains(mr, "gen.h5"));
	g_assert_true(g_hash_table_contains(mr, "gen.csv"));
	g_assert_true(g_hash_table_contains(mr, kept));
	g_assert_false(g_hash_table_contains(mr, svg));
	g_assert_false(exists_in(d2, svg));
	g_assert_true(exists_in(d2, "gen.csv"));
	rm_rf(d);
}

/* An output that cannot be written says why, with the system's reason, in
 * g5 run and g5 plot, for root too (which no permission stops): -o under a
 * regular file (ENOTDIR, nothing written), an HDF5 file whose temporary
 * name is too long (ENAMETOOLONG). */
static void test_output_not_dir(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *file = g_build_filename(d, "file", NULL);
	g_autofree char *under = g_build_filename(file, "sub", NULL);
	g_autofree char *h5 = g_build_filename(d, "tiny.h5", NULL);
	struct run r;

	g_assert_true(g_file_set_contents(file, "x", -1, NULL));
	if (!g5(&r, "run", "tests/run/tiny.yaml", "-o", under, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "file/sub: cannot create: Not a directory"));
	run_clear(&r);
	g5(&r, "run", "tests/run/tiny.yaml", "-o", d, "-q", "--no-plots", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g5(&r, "plot", h5, "-o", under, NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "file/sub/plots: cannot create: Not a directory"));
	g_assert_cmpstr(r.out, ==, "");
	run_clear(&r);
	g_autofree char *text = slurp(file);

	g_assert_cmpstr(text, ==, "x");
	/* the HDF5 file's own creation failing says why too (not 'H5Fcreate'):
	 * a name that fits whose temporary (.NAME.h5.tmp.PID) does not */
	g_autofree char *name = g_strnfill(246, 'n');
	g_autofree char *yaml = g_build_filename(d, "long.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	g_autofree char *exp = g_strdup_printf(
		"schema_version: 1\nname: %s\nplatform: %s\ncollectives: [allreduce]\n"
		"algorithms: [ring]\nsizes: [1MiB]\noutputs:\n  formats: [h5]\n", name, plat);
	g_autofree char *want = g_strdup_printf("%s.h5: cannot write: File name too long", name);

	g_assert_true(g_file_set_contents(yaml, exp, -1, NULL));
	g5(&r, "run", yaml, "-o", d, "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, want));
	g_assert_null(strstr(r.err, "H5Fcreate"));
	run_clear(&r);
	rm_rf(d);
}

/* A device or a FIFO named as an output is never replaced by a regular
 * file (renaming a temporary over it would): --trace and schedule -o
 * write through it, so /dev/full fails with the system's reason and stays
 * a device; an HDF5 file, which cannot be written through, is refused. */
static void test_special_files(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *fifo = g_build_filename(d, "tiny.h5", NULL);
	struct stat st;
	struct run r;

	if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
		g_test_skip("no /dev/full");
		rm_rf(d);
		return;
	}
	if (!g5(&r, "sim", "--size", "4KiB", "--trace", "/dev/full", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "/dev/full: cannot write: No space left on device"));
	run_clear(&r);
	g5(&r, "schedule", "-c", "allreduce", "-a", "ring", "-n", "4", "-o", "/dev/full", NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "/dev/full: cannot write: No space left on device"));
	run_clear(&r);
	g_assert_cmpint(stat("/dev/full", &st), ==, 0);
	g_assert_true(S_ISCHR(st.st_mode));
	g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
	g5(&r, "run", "tests/run/tiny.yaml", "-o", d, "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "tiny.h5: not a regular file"));
	run_clear(&r);
	g_assert_cmpint(stat(fifo, &st), ==, 0);
	g_assert_true(S_ISFIFO(st.st_mode));
	rm_rf(d);
}

static void test_bad_file_exit_2(void)
{
	struct run r;
	g_autofree char *expect = slurp("tests/config/bad/exp-unknown-algo.expect");

	if (!g5(&r, "run", "tests/config/bad/exp-unknown-algo.yaml", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_cmpstr(r.err, ==, expect);
	g_assert_cmpstr(r.out, ==, "");
	run_clear(&r);
	g5(&r, "run", "tests/config/bad/plat-empty.yaml", NULL); /* not an experiment at all */
	g_assert_cmpint(exit_code(&r), ==, 2);
	run_clear(&r);
	g5(&r, "run", NULL);
	g_assert_cmpint(exit_code(&r), ==, 2);
	run_clear(&r);
	g5(&r, "sim", "--platform", "tests/config/bad/plat-bad-bandwidth.yaml", NULL);
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_nonnull(strstr(r.err, "plat-bad-bandwidth.yaml:6:14: 'link.bandwidth' must be a bandwidth"));
	run_clear(&r);
	g5(&r, "plot", "tests/run/tiny.yaml", NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "not an HDF5 file"));
	run_clear(&r);
}

/* A point whose run cannot fit the clock is a failed row with its
 * message; the other points are kept, the files are written and the run
 * exits 1 naming the point. */
static void test_failed_point(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *yaml = slow_experiment(d);
	struct run r;
	GError *err = NULL;

	if (!g5(&r, "run", yaml, "-o", d, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "point 1 (allreduce ring, 8 ranks, 8MiB"));
	g_assert_nonnull(strstr(r.err, "point 2 (allreduce ring, 8 ranks, 64MiB"));
	g_assert_null(strstr(r.err, "point 0 "));
	run_clear(&r);
	g_autofree char *h5 = g_build_filename(d, "slow.h5", NULL);
	struct rtable *t = rtable_read_h5(h5, "results", &err);

	g_assert_no_error(err);
	g_assert_cmpuint(t->nrows, ==, 6);
	const struct rcol *lat = rtable_col(t, "latency_us"), *msg = rtable_col(t, "error");

	g_assert_nonnull(msg);
	for (guint i = 0; i < 6; i++) {
		bool failed = i == 1 || i == 2;

		g_assert_cmpint(isnan(rcol_num(lat, i)), ==, failed);
		g_assert_cmpint(*rcol_str(msg, i) != 0, ==, failed);
	}
	g_assert_nonnull(strstr(rcol_str(msg, 1), "passed the end of the clock"));
	g_assert_nonnull(strstr(rcol_str(msg, 2), "past the end of the clock"));
	rtable_free(t);
	g_autofree char *csv = g_build_filename(d, "slow.csv", NULL);
	g_autofree char *ctext = slurp(csv);

	g_auto(GStrv) lines = g_strsplit(ctext, "\n", -1);

	g_assert_true(g_str_has_suffix(lines[0], ",error"));
	g_assert_cmpuint(g_strv_length(lines), ==, 8); /* header, 6 rows, "" */
	/* the limit of events: points above it fail, the others are kept */
	g5(&r, "run", yaml, "-o", d, "-q", "--max-events", "200000", NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "point 5 (allreduce ring, 8 ranks, 64MiB"));
	g_assert_nonnull(strstr(r.err, "more than the limit of 200000 (--max-events"));
	g_assert_null(strstr(r.err, "point 3 "));
	run_clear(&r);
	g5(&r, "run", yaml, "-o", d, "-q", "--max-events", "-1", NULL);
	g_assert_cmpint(exit_code(&r), ==, 2);
	run_clear(&r);
	rm_rf(d);
}

/* g5 plot on damaged results files ends with a status and a message, never
 * a signal: bytes of a results file changed at many places (libhdf5 1.10
 * itself may crash on some; g5 reads in a child first). A missing file and
 * an unwritable output say why. */
static void test_plot_damaged(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *h5 = g_build_filename(d, "tiny.h5", NULL);
	g_autofree char *bad = g_build_filename(d, "bad.h5", NULL);
	g_autofree char *out = g_build_filename(d, "o", NULL);
	g_autofree char *text = NULL;
	gsize len = 0;
	struct run r;
	guint32 x = 12345;

	if (!g5(&r, "run", "tests/run/tiny.yaml", "-o", d, "--no-plots", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g_assert_true(g_file_get_contents(h5, &text, &len, NULL));
	for (int k = 0; k < 40; k++) {
		g_autofree char *copy = g_memdup2(text, len);

		for (int j = 0; j < 8; j++) { /* a few bytes, at places of a fixed draw */
			x = x * 1103515245u + 12345u;
			copy[(x >> 8) % len] ^= (char)(1 + (x & 0x7f));
		}
		g_assert_true(g_file_set_contents(bad, copy, (gssize)len, NULL));
		g5(&r, "plot", bad, "-o", out, "--format", "png", NULL);
		g_assert_true(WIFEXITED(r.status));
		g_assert_cmpint(WEXITSTATUS(r.status), <=, 1);
		if (WEXITSTATUS(r.status))
			g_assert_true(g_str_has_prefix(r.err, "g5 plot: "));
		run_clear(&r);
	}
	g_autofree char *missing = g_build_filename(d, "none.h5", NULL);

	g5(&r, "plot", missing, NULL);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "none.h5: cannot read: No such file or directory"));
	run_clear(&r);
	if (getuid() != 0) { /* root writes anywhere */
		g_autofree char *ro = g_build_filename(d, "ro", NULL);

		g_assert_cmpint(g_mkdir(ro, 0555), ==, 0);
		g5(&r, "run", "tests/run/tiny.yaml", "-o", ro, "--no-plots", "-q", NULL);
		g_assert_cmpint(exit_code(&r), ==, 1);
		g_assert_nonnull(strstr(r.err, "tiny.h5: cannot write: Permission denied"));
		run_clear(&r);
	}
	rm_rf(d);
}

static void test_sim_platform(void)
{
	struct run a, b;

	/* The seed file gives exactly the built-in default platform. */
	if (!g5(&a, "sim", "--platform", "configs/platforms/seed-ring8.yaml", "--size", "1MiB", "--json", NULL))
		return;
	g_assert_cmpint(exit_code(&a), ==, 0);
	g5(&b, "sim", "--size", "1MiB", "--json", NULL);
	g_assert_cmpint(exit_code(&b), ==, 0);
	g_autoptr(GRegex) wall = g_regex_new("\"wall_s\": [0-9.e-]+", 0, 0, NULL);
	g_autofree char *ja = g_regex_replace(wall, a.out, -1, 0, "", 0, NULL);
	g_autofree char *jb = g_regex_replace(wall, b.out, -1, 0, "", 0, NULL);

	g_assert_cmpstr(ja, ==, jb);
	run_clear(&a);
	run_clear(&b);
	g5(&a, "sim", "--platform", "configs/platforms/torus16.yaml", "--size", "64KiB", "--json", NULL);
	g_assert_cmpint(exit_code(&a), ==, 0);
	g_assert_nonnull(strstr(a.out, "\"topology\": \"torus\", \"ranks\": 16"));
	run_clear(&a);
}

/* The Python snippet of README.md ("Read the results in Python"), as a user
 * copies it: the indented block from its `import h5py` line to the first
 * line that is not indented. */
static char *readme_snippet(void)
{
	g_autofree char *readme = slurp("README.md");
	g_auto(GStrv) lines = g_strsplit(readme, "\n", -1);
	GString *code = g_string_new(NULL);
	bool in = false;

	for (int i = 0; lines[i]; i++) {
		if (!in && !strcmp(lines[i], "    import h5py, pandas as pd"))
			in = true;
		if (in && strncmp(lines[i], "    ", 4))
			break;
		if (in)
			g_string_append_printf(code, "%s\n", lines[i] + 4);
	}
	g_assert_cmpuint(code->len, >, 0);
	return g_string_free(code, FALSE);
}

/* README's snippet runs verbatim with the system's Python on the results of
 * the tour's `g5 run`, and text columns compare as str: `df.algo == "ring"`
 * selects the ring rows (h5py alone reads them as bytes, and selects none).
 * Without h5py or pandas the test is skipped, except under CI=true, where
 * scripts/deps.sh has installed them and their absence fails. */
static void test_readme_python(void)
{
	static const char py[] = "/usr/bin/python3";
	char *probe[] = { (char *)py, "-c", "import h5py, pandas", NULL };
	gint status = -1;
	struct run r;

	if (!g_getenv("G5") || !*g_getenv("G5")) {
		g_test_skip("G5 is not set (make test sets it)");
		return;
	}
	if (!g_spawn_sync(NULL, probe, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
			  NULL, NULL, NULL, NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL)) {
		if (!g_strcmp0(g_getenv("CI"), "true"))
			g_error("%s cannot import h5py and pandas (scripts/deps.sh installs "
				"python3-h5py and python3-pandas)", py);
		g_test_skip("no h5py or pandas for /usr/bin/python3 (scripts/deps.sh installs them)");
		return;
	}
	g_autofree char *d = tmpdir();
	g_autofree char *out = g_build_filename(d, "results", "tiny", NULL);

	g5(&r, "run", "experiments/example-tiny.yaml", "-o", out, "--no-plots", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);

	/* what the snippet must find, counted in the CSV */
	g_autofree char *csv_path = g_build_filename(out, "example-tiny.csv", NULL);
	g_autofree char *csv = slurp(csv_path);
	g_auto(GStrv) rows = g_strsplit(csv, "\n", -1);
	g_auto(GStrv) head = g_strsplit(rows[0], ",", -1);
	int algo_col = -1;
	guint points = 0, ring = 0;

	for (int c = 0; head[c]; c++)
		if (!strcmp(head[c], "algo"))
			algo_col = c;
	g_assert_cmpint(algo_col, >=, 0);
	for (int i = 1; rows[i] && *rows[i]; i++) {
		g_auto(GStrv) f = g_strsplit(rows[i], ",", -1);

		points++;
		ring += !strcmp(f[algo_col], "ring");
	}
	g_assert_cmpuint(ring, >, 0);
	g_assert_cmpuint(ring, <, points);

	g_autofree char *code = readme_snippet();
	char *argv[] = { (char *)py, "-c", code, NULL };
	g_autofree char *py_out = NULL, *py_err = NULL;
	GError *err = NULL;

	g_assert_true(g_spawn_sync(d, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &py_out, &py_err,
				   &status, &err));
	g_assert_no_error(err);
	if (!g_spawn_check_wait_status(status, NULL))
		g_error("README's snippet failed:\n%s", py_err);
	g_autofree char *want = g_strdup_printf("%u points, %u ring\n", points, ring);

	g_assert_cmpstr(py_out, ==, want);
	rm_rf(d);
}

/* Algorithm 'auto': with 'tune', the profile's algorithm and nchunks for the
 * platform's rank count and the point's size (in the columns auto_algo and
 * auto_nchunks, and in the latency: the same as the named algorithm's row);
 * without, the default. A missing or damaged profile is the experiment's
 * error, at its 'tune' key. */
/* Runs `g5 run` on an experiment of `text` (its keys after schema_version
 * and platform) on the platform file `plat`, written into d, output into d. */
static void run_platform_text(struct run *r, const char *d, const char *plat, const char *text)
{
	g_autofree char *path = g_build_filename(d, "exp.yaml", NULL);
	g_autofree char *abs = g_canonicalize_filename(plat, NULL);
	g_autofree char *yaml = g_strdup_printf("schema_version: 1\nplatform: %s\n%s", abs, text);

	g_assert_true(g_file_set_contents(path, yaml, -1, NULL));
	g5(r, "run", path, "-o", d, "--no-plots", "-q", NULL);
}

/* At flow fidelity the results say how much of each point's message bytes
 * ranks forward on multi-hop routes and the largest such message, and g5 run
 * names the points whose messages outgrow a link's receive buffer, where
 * flow fidelity is not checked against packet fidelity (unless it runs the
 * buffers as a fluid). Direct AllGather on
 * a ring of 8 sends 5 of each rank's 7 messages past a neighbour; a ring
 * AllGather none. A packet-fidelity experiment has no such columns. It also
 * names the points at flow fidelity whose messages cross two switches. */
static void test_flow_forwarded(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *h5 = g_build_filename(d, "flow-forwarded.h5", NULL);
	g_autofree char *tiny = g_build_filename(d, "tiny.h5", NULL);
	struct run r;
	GError *err = NULL;

	if (!g5(&r, "run", "tests/run/flow-forwarded.yaml", "-o", d, "--no-plots", "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_nonnull(strstr(r.err, "note: 1 of the 4 points at flow fidelity have ranks "
				       "forward messages larger than a link's receive buffer"));
	g_assert_nonnull(strstr(r.err, "within 2 % of it, at 1949 of the 1960 points"));
	g_assert_nonnull(strstr(r.err, "measured from 62 % faster to 32 % slower than packet "
				       "fidelity at max-min sharing, from 45 % faster to 82 % slower "
				       "at flow.arbiter round-robin"));
	run_clear(&r);
	struct rtable *t = rtable_read_h5(h5, "results", &err);

	g_assert_no_error(err);
	g_assert_cmpuint(t->nrows, ==, 4);
	const struct rcol *algo = rtable_col(t, "algo"), *bytes = rtable_col(t, "bytes");
	const struct rcol *fwd = rtable_col(t, "forwarded"), *fmax = rtable_col(t, "forwarded_max_bytes");

	g_assert_nonnull(fwd);
	g_assert_nonnull(fmax);
	for (guint i = 0; i < 4; i++) {
		bool direct = !strcmp(rcol_str(algo, i), "direct");

		g_assert_cmpfloat_with_epsilon(rcol_num(fwd, i), direct ? 5.0 / 7 : 0, 1e-12);
		g_assert_cmpfloat(rcol_num(fmax, i), ==, direct ? rcol_num(bytes, i) / 8 : 0);
	}
	rtable_free(t);
	/* the buffers run as a fluid (flow.arbiter buffers): back-pressure
	 * is modelled, no note on them */
	run_platform_text(&r, d, "configs/platforms/seed-ring8.yaml",
			  "name: fluid\noverrides:\n  fidelity: flow\n  flow:\n    arbiter: buffers\n"
			  "collectives: [allgather]\nalgorithms: [direct]\nsizes: [4MiB]\n");
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_null(strstr(r.err, "note:"));
	run_clear(&r);
	/* below the buffer everywhere: no note */
	run_platform_text(&r, d, "configs/platforms/seed-ring8.yaml",
			  "name: small\noverrides:\n  fidelity: flow\ncollectives: [allgather]\n"
			  "algorithms: [direct]\nsizes: [64KiB]\n");
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_null(strstr(r.err, "note:"));
	run_clear(&r);
	g5(&r, "run", "tests/run/tiny.yaml", "-o", d, "--no-plots", "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_null(strstr(r.err, "note:"));
	run_clear(&r);
	t = rtable_read_h5(tiny, "results", &err);
	g_assert_no_error(err);
	g_assert_null(rtable_col(t, "forwarded"));
	rtable_free(t);
	/* across a leaf-spine (leaf, spine, leaf), at flow fidelity only */
	run_platform_text(&r, d, "configs/platforms/leafspine16.yaml",
			  "name: ls\ncollectives: [allreduce]\nalgorithms: [ring2p]\nsizes: [1MiB]\n"
			  "sweep: {fidelity: [packet, flow]}\n");
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_nonnull(strstr(r.err, "g5 run: note: 1 of the 1 points at flow fidelity send messages "
				       "across two switches or more"));
	g_assert_nonnull(strstr(r.err, ": fidelity: packet is the reference"));
	g_assert_null(strstr(r.err, "receive buffer"));
	run_clear(&r);
	rm_rf(d);
}

static void test_auto_tune(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *prof = g_build_filename(d, "prof.yaml", NULL);
	g_autofree char *exp = g_build_filename(d, "auto.yaml", NULL);
	g_autofree char *out = g_build_filename(d, "out", NULL);
	g_autofree char *cwd = g_get_current_dir();
	struct run r = { 0 };

	g_assert_true(g_file_set_contents(prof, "schema_version: 1\nentries:\n"
					  "  - {collective: allreduce, ranks: 8, stride: 1, up_to: 1MiB, algo: ring2p}\n"
					  "  - {collective: allreduce, ranks: 8, stride: 1, algo: ring2p, nchunks: 4}\n",
					  -1, NULL));
	g_autofree char *text = g_strdup_printf("schema_version: 1\nname: auto\n"
						"platform: %s/configs/platforms/seed-ring8.yaml\n"
						"tune: prof.yaml\ncollectives: [allreduce, alltoall]\n"
						"algorithms: {allreduce: [ring2p, auto], alltoall: [auto]}\n"
						"sizes: [4KiB, 32MiB]\n", cwd);

	g_assert_true(g_file_set_contents(exp, text, -1, NULL));
	if (!g5(&r, "run", exp, "-o", out, "--no-plots", "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_autofree char *csv_path = g_build_filename(out, "auto.csv", NULL);
	g_autofree char *csv = slurp(csv_path);
	g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);

	g_assert_true(g_str_has_prefix(lines[0], "point,experiment,platform,collective,algo,topology,"
					       "ranks,bytes,dtype,nchunks,seed,auto_algo,auto_nchunks,latency_us,"));
	/* rows: ring2p 4KiB, ring2p 32MiB, auto 4KiB, auto 32MiB, alltoall auto 4KiB, 32MiB */
	g_auto(GStrv) r0 = g_strsplit(lines[1], ",", -1);
	g_auto(GStrv) r1 = g_strsplit(lines[2], ",", -1);
	g_auto(GStrv) r2 = g_strsplit(lines[3], ",", -1);
	g_auto(GStrv) r3 = g_strsplit(lines[4], ",", -1);
	g_auto(GStrv) r4 = g_strsplit(lines[5], ",", -1);

	g_assert_cmpstr(r2[4], ==, "auto");
	g_assert_cmpstr(r2[11], ==, "ring2p");
	g_assert_cmpstr(r2[12], ==, "1");
	g_assert_cmpstr(r2[13], ==, r0[13]);  /* ring2p/1 at 4KiB, to the bit */
	g_assert_cmpstr(r3[11], ==, "ring2p");
	g_assert_cmpstr(r3[12], ==, "4");
	g_assert_cmpfloat(g_ascii_strtod(r3[13], NULL), <, g_ascii_strtod(r1[13], NULL));
	g_assert_cmpstr(r4[11], ==, "pairwise"); /* not in the profile: the default */
	run_clear(&r);

	/* without 'tune': the defaults */
	g_autofree char *plain = g_strdup_printf("schema_version: 1\nname: plain\n"
						 "platform: %s/configs/platforms/seed-ring8.yaml\n"
						 "collectives: [allreduce]\nalgorithms: [auto]\nsizes: [4KiB]\n", cwd);

	g_assert_true(g_file_set_contents(exp, plain, -1, NULL));
	g5(&r, "run", exp, "-o", out, "--no-plots", "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_autofree char *csv2_path = g_build_filename(out, "plain.csv", NULL);
	g_autofree char *csv2 = slurp(csv2_path);

	g_assert_nonnull(strstr(csv2, ",auto,ring,8,4096,fp32,1,1,ring,1,"));
	run_clear(&r);

	/* a damaged profile: the experiment's error at 'tune', then the profile's */
	g_assert_true(g_file_set_contents(prof, "schema_version: 1\nentries: [{collective: x}]\n", -1, NULL));
	g_assert_true(g_file_set_contents(exp, text, -1, NULL));
	g5(&r, "run", exp, "-o", out, "--no-plots", "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_nonnull(strstr(r.err, "auto.yaml:4:7: 'tune': "));
	g_assert_nonnull(strstr(r.err, "prof.yaml:2:24: 'entries[0].collective': unknown collective 'x'"));
	run_clear(&r);
	g_remove(prof);
	g5(&r, "run", exp, "-o", out, "--no-plots", "-q", NULL);
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_nonnull(strstr(r.err, "auto.yaml:4:7: 'tune': "));
	run_clear(&r);
	rm_rf(d);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/run/determinism/jobs", test_determinism);
	g_test_add_func("/run/h5/contents", test_h5_contents);
	g_test_add_func("/run/plots/drawn-and-redrawn", test_plots);
	g_test_add_func("/run/plots/hostile-name", test_plot_hostile_name);
	g_test_add_func("/run/plots/hostile-output-dir", test_plot_hostile_dir);
	g_test_add_func("/run/plots/readable", test_plots_readable);
	g_test_add_func("/run/sweep/params", test_sweep);
	g_test_add_func("/run/errors/exit-2", test_bad_file_exit_2);
	g_test_add_func("/run/errors/bad-shape-no-files", test_bad_shape_no_files);
	g_test_add_func("/run/outputs/one-generation", test_generation);
	g_test_add_func("/run/outputs/temporaries-exact", test_tmps_exact);
	g_test_add_func("/run/plot/generation", test_plot_generation);
	g_test_add_func("/run/errors/output-not-a-directory", test_output_not_dir);
	g_test_add_func("/run/errors/special-files", test_special_files);
	g_test_add_func("/run/errors/long-token-quoted-short", test_long_token_quoted_short);
	g_test_add_func("/run/sim/platform-file", test_sim_platform);
	g_test_add_func("/run/readme/python-snippet", test_readme_python);
	g_test_add_func("/run/errors/failed-point-kept", test_failed_point);
	g_test_add_func("/run/plot/damaged-files", test_plot_damaged);
	g_test_add_func("/run/auto-tune", test_auto_tune);
	g_test_add_func("/run/flow/forwarded", test_flow_forwarded);
	return g_test_run();
}
