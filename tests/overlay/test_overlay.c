/* Tests of sim/overlay, the figure of `g5 compare`: a ten-point curve gives
 * non-empty PNG and SVG images and a data file of numbers only; the SVG
 * shows the title; a hostile title (quotes, backslashes, newlines, a
 * backquoted command, @macro, `system("rm -rf /")`) reaches the script
 * only as one balanced single-quoted literal without a backslash or a line
 * break, and gnuplot runs none of it; size ticks are binary units; a
 * missing template, a missing gnuplot, a failing template and an output
 * path with a line break are errors that leave no image behind, and so is
 * a curve with nothing a log axis can show. Needs
 * gnuplot (scripts/deps.sh installs it) and runs from the repository root,
 * whose plots/ it uses. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "sim/overlay.h"
#include "sim/plot.h"
#include "sim/results.h"

#define NPTS 10

static const char *const good_title =
	"allreduce ring float single (g5x CSV) on h200x2-nvlink";

struct rig {
	char *dir;                   /* g_dir_make_tmp, removed by rig_release */
	char *stem;                  /* DIR/curve */
	uint64_t bytes[NPTS];        /* 4 KiB .. 1 GiB by x4 (and one x2 at the end) */
	double meas_us[NPTS], sim_us[NPTS];
	struct overlay_curve c;
};

static void rig_init(struct rig *r, const char *title)
{
	GError *err = NULL;

	r->dir = g_dir_make_tmp("g5-overlay-XXXXXX", &err);
	g_assert_no_error(err);
	r->stem = g_build_filename(r->dir, "curve", NULL);
	for (guint i = 0; i < NPTS; i++) {
		r->bytes[i] = (uint64_t)4096 << MIN(2 * i, 18);
		if (i == NPTS - 1)
			r->bytes[i] = (uint64_t)1 << 30;
		r->meas_us[i] = 20.0 + (double)r->bytes[i] / 300e3;
		r->sim_us[i] = r->meas_us[i] * (1.0 + 0.04 * sin((double)i));
	}
	r->c = (struct overlay_curve){
		.title = title, .file_stem = r->stem, .n = NPTS, .bytes = r->bytes,
		.meas_us = r->meas_us, .sim_us = r->sim_us, .geomean_err = 2.5, .max_err = 3.9,
		.png = true, .svg = true,
	};
}

static void rm_rf(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };

	g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

static void rig_release(struct rig *r)
{
	rm_rf(r->dir);
	g_free(r->dir);
	g_free(r->stem);
}

static char *rig_file(const struct rig *r, const char *ext)
{
	return g_strdup_printf("%s.%s", r->stem, ext);
}

static char *slurp(const char *path, gsize *len)
{
	char *text = NULL;
	GError *err = NULL;

	g_file_get_contents(path, &text, len, &err);
	g_assert_no_error(err);
	return text;
}

/* Files in the rig's directory other than those named (temporaries left). */
static guint stray_files(const struct rig *r)
{
	g_autoptr(GDir) d = g_dir_open(r->dir, 0, NULL);
	const char *name;
	guint n = 0;

	while ((name = g_dir_read_name(d)))
		if (name[0] == '.')
			n++;
	return n;
}

/* The line of the script that defines `var`. */
static char *script_line(const char *script, const char *var)
{
	g_auto(GStrv) lines = g_strsplit(script, "\n", -1);
	g_autofree char *prefix = g_strdup_printf("%s = ", var);

	for (int i = 0; lines[i]; i++)
		if (g_str_has_prefix(lines[i], prefix))
			return g_strdup(lines[i]);
	g_error("no line '%s...' in the script", prefix);
}

static void test_draws_png_svg(void)
{
	struct rig r;
	GError *err = NULL;
	gsize len = 0;

	rig_init(&r, good_title);
	g_assert_true(overlay_plot(&r.c, &err));
	g_assert_no_error(err);

	g_autofree char *png = rig_file(&r, "png"), *svg = rig_file(&r, "svg");
	g_autofree char *dat = rig_file(&r, "dat"), *gp = rig_file(&r, "gp");
	g_autofree char *png_text = slurp(png, &len);

	g_assert_cmpuint(len, >, 1000);
	g_assert_cmpmem(png_text, 4, "\x89PNG", 4);
	g_autofree char *svg_text = slurp(svg, &len);

	g_assert_cmpuint(len, >, 1000);
	g_assert_nonnull(strstr(svg_text, "<svg"));
	g_assert_nonnull(strstr(svg_text, good_title));
	g_assert_nonnull(strstr(svg_text, "geomean 2.5%, max 3.9%"));
	g_assert_true(g_file_test(gp, G_FILE_TEST_IS_REGULAR));
	g_assert_cmpuint(stray_files(&r), ==, 0);

	/* The data file: one row of four numbers per point, nothing else. */
	g_autofree char *dat_text = slurp(dat, NULL);
	g_auto(GStrv) rows = g_strsplit(g_strchomp(dat_text), "\n", -1);

	g_assert_cmpuint(g_strv_length(rows), ==, NPTS);
	for (guint i = 0; i < NPTS; i++) {
		g_auto(GStrv) f = g_strsplit(rows[i], " ", -1);

		g_assert_cmpuint(g_strv_length(f), ==, 4);
		for (guint j = 0; j < 4; j++) {
			char *end;
			double v = g_ascii_strtod(f[j], &end);

			g_assert_cmpstr(end, ==, "");
			g_assert_true(isfinite(v));
		}
		g_assert_cmpfloat(g_ascii_strtod(f[0], NULL), ==, (double)r.bytes[i]);
	}
	rig_release(&r);
}

/* 4 KiB .. 1 GiB: ticks in binary units, at most ten, the largest 1G. */
static void test_size_ticks(void)
{
	struct rig r;
	GError *err = NULL;

	rig_init(&r, good_title);
	r.c.png = r.c.svg = false;
	g_assert_true(overlay_plot(&r.c, &err));
	g_assert_no_error(err);
	g_autofree char *gp = rig_file(&r, "gp");
	g_autofree char *script = slurp(gp, NULL);
	g_autoptr(GRegex) re = g_regex_new("^array tick_label\\[([0-9]+)\\] = \\[(.*)\\]$",
					   G_REGEX_MULTILINE, 0, NULL);
	g_autoptr(GMatchInfo) m = NULL;

	g_assert_true(g_regex_match(re, script, 0, &m));
	g_autofree char *count = g_match_info_fetch(m, 1), *labels = g_match_info_fetch(m, 2);

	g_assert_cmpuint(g_ascii_strtoull(count, NULL, 10), <=, 10);
	g_assert_nonnull(strstr(labels, "'4K'"));
	g_assert_nonnull(strstr(labels, "'1M'"));
	g_assert_true(g_str_has_suffix(labels, "'1G'"));
	rig_release(&r);
}

/* Every quote of the line balanced: single-quoted literals with '' inside. */
static void assert_quotes_balanced(const char *line)
{
	guint singles = 0, doubles = 0;

	for (const char *p = line; *p; p++) {
		singles += *p == '\'';
		doubles += *p == '"';
	}
	g_assert_cmpuint(singles % 2, ==, 0);
	g_assert_cmpuint(doubles % 2, ==, 0);
}

static void test_hostile_title(void)
{
	static const char *const hostile =
		"it's \"quoted\" \\back\\slash\nnew line`touch PWNED`@title\r\n"
		"'; system(\"rm -rf /\"); print '\\\";\tend <b>&amp;</b> caf\xc3\xa9";
	struct rig r;
	GError *err = NULL;

	rig_init(&r, hostile);
	g_assert_true(overlay_plot(&r.c, &err));
	g_assert_no_error(err);
	g_autofree char *gp = rig_file(&r, "gp");
	g_autofree char *script = slurp(gp, NULL);
	g_autofree char *line = script_line(script, "title");

	/* The whole title is one line: no line break got through. */
	g_assert_true(g_str_has_prefix(line, "title = '"));
	g_assert_true(g_str_has_suffix(line, "'"));
	g_assert_null(strchr(script, '\\'));
	g_assert_null(strchr(script, '`'));
	g_assert_null(strchr(script, '\r'));
	g_assert_null(strstr(script, "@title"));
	g_assert_null(strstr(script, "system(\""));
	/* Inside the literal, not a single quote at all (they became '_'). */
	g_autofree char *inner = g_strndup(line + strlen("title = '"), strlen(line) - strlen("title = ''"));

	g_assert_null(strchr(inner, '\''));
	g_auto(GStrv) lines = g_strsplit(script, "\n", -1);

	for (int i = 0; lines[i]; i++)
		if (lines[i][0] != '#')
			assert_quotes_balanced(lines[i]);
	/* Whatever was left of the text is drawn and nothing of it ran. */
	g_autofree char *svg = rig_file(&r, "svg");
	g_autofree char *svg_text = slurp(svg, NULL);

	g_assert_nonnull(strstr(svg_text, "it_s _quoted_ _back_slash_new line_touch PWNED__title"));
	g_assert_false(g_file_test("PWNED", G_FILE_TEST_EXISTS));
	rig_release(&r);
}

/* Whatever a string holds, gnuplot reads plot_gp_var's literal back as the
 * same text (control characters as spaces) and runs none of it: the quoting
 * the figures of `g5 run` and `g5 compare` rely on. */
static void test_gp_literal(void)
{
	static const char *const texts[] = {
		"plain ring", "it's", "''", "'", "'x'''y", "a\\b \\n \\\"", "`touch PWNED_B`",
		"@x", "x'; system('touch PWNED_S'); y = '", "two\nlines\r\tend", "caf\xc3\xa9 \"q\"",
	};
	g_autofree char *dir = g_dir_make_tmp("g5-gp-XXXXXX", NULL);

	g_assert_nonnull(dir);
	for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
		GString *g = g_string_new("set print '-'\nx = 1\n");
		g_autofree char *path = g_build_filename(dir, "t.gp", NULL);
		g_autofree char *out = NULL, *err = NULL;
		gint status = 0;

		plot_gp_var(g, "x", texts[i]);
		g_string_append(g, "print x\n");
		g_assert_true(g_file_set_contents(path, g->str, (gssize)g->len, NULL));
		g_string_free(g, TRUE);
		char *argv[] = { "gnuplot", path, NULL };

		g_assert_true(g_spawn_sync(dir, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
					   &status, NULL));
		if (!g_spawn_check_wait_status(status, NULL))
			g_test_message("gnuplot on text %zu: %s", i, err);
		g_assert_true(g_spawn_check_wait_status(status, NULL));
		g_autofree char *want = g_strdup(texts[i]);

		for (char *p = want; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = ' ';
		g_autofree char *got = g_strndup(out, strcspn(out, "\n"));

		g_assert_cmpstr(got, ==, want);
		g_autofree char *b = g_build_filename(dir, "PWNED_B", NULL);
		g_autofree char *sy = g_build_filename(dir, "PWNED_S", NULL);

		g_assert_false(g_file_test(b, G_FILE_TEST_EXISTS));
		g_assert_false(g_file_test(sy, G_FILE_TEST_EXISTS));
		g_unlink(path);
	}
	g_rmdir(dir);
}

static void test_missing_template(void)
{
	struct rig r;
	GError *err = NULL;
	g_autofree char *saved = g_strdup(g_getenv("G5_PLOTS"));

	rig_init(&r, good_title);
	g_setenv("G5_PLOTS", "/nonexistent/g5-plots", TRUE);
	g_assert_false(overlay_plot(&r.c, &err));
	g_setenv("G5_PLOTS", saved, TRUE);
	g_assert_error(err, RESULTS_ERROR, RESULTS_ERROR_IO);
	g_assert_nonnull(strstr(err->message, "/nonexistent/g5-plots/overlay.gp"));
	g_assert_nonnull(strstr(err->message, "G5_PLOTS"));
	g_clear_error(&err);
	g_autofree char *png = rig_file(&r, "png");

	g_assert_false(g_file_test(png, G_FILE_TEST_EXISTS));
	rig_release(&r);
}

static void test_missing_gnuplot(void)
{
	struct rig r;
	GError *err = NULL;
	g_autofree char *saved = g_strdup(g_getenv("PATH"));

	rig_init(&r, good_title);
	g_setenv("PATH", r.dir, TRUE);
	g_assert_false(overlay_plot(&r.c, &err));
	g_setenv("PATH", saved, TRUE);
	g_assert_error(err, RESULTS_ERROR, RESULTS_ERROR_IO);
	g_assert_nonnull(strstr(err->message, "cannot run gnuplot"));
	g_clear_error(&err);
	g_autofree char *png = rig_file(&r, "png");

	g_assert_false(g_file_test(png, G_FILE_TEST_EXISTS));
	rig_release(&r);
}

/* A template gnuplot rejects: the error quotes gnuplot, no image and no
 * temporary file are left. */
static void test_gnuplot_fails(void)
{
	struct rig r;
	GError *err = NULL;
	g_autofree char *saved = g_strdup(g_getenv("G5_PLOTS"));

	rig_init(&r, good_title);
	g_autofree char *tdir = g_build_filename(r.dir, "plots", NULL);
	g_autofree char *tmpl = g_build_filename(tdir, "overlay.gp", NULL);

	g_assert_cmpint(g_mkdir(tdir, 0777), ==, 0);
	g_assert_true(g_file_set_contents(tmpl, "set output outfile\nplot no_such_function(x)\n", -1,
					  NULL));
	g_setenv("G5_PLOTS", tdir, TRUE);
	g_assert_false(overlay_plot(&r.c, &err));
	g_setenv("G5_PLOTS", saved, TRUE);
	g_assert_error(err, RESULTS_ERROR, RESULTS_ERROR_IO);
	g_assert_nonnull(strstr(err->message, "gnuplot failed on"));
	g_assert_nonnull(strstr(err->message, "no_such_function"));
	g_clear_error(&err);
	g_autofree char *png = rig_file(&r, "png");

	g_assert_false(g_file_test(png, G_FILE_TEST_EXISTS));
	g_assert_cmpuint(stray_files(&r), ==, 0);
	rig_release(&r);
}

/* A line break in the output path would end a gnuplot command: refused,
 * and quoted escaped in the message. */
static void test_control_char_path(void)
{
	struct rig r;
	GError *err = NULL;

	rig_init(&r, good_title);
	g_autofree char *stem = g_strdup_printf("%s/a\nset output 'x'", r.dir);

	r.c.file_stem = stem;
	g_assert_false(overlay_plot(&r.c, &err));
	g_assert_error(err, RESULTS_ERROR, RESULTS_ERROR_IO);
	g_assert_nonnull(strstr(err->message, "a\\nset output"));
	g_assert_nonnull(strstr(err->message, "control character"));
	g_clear_error(&err);
	g_assert_cmpuint(stray_files(&r), ==, 0);
	rig_release(&r);
}

/* Nothing a log axis can show: no size above zero, or no time above zero
 * (NaN, 0, negative); one drawable time is enough. */
static void test_nothing_to_draw(void)
{
	struct rig r;
	GError *err = NULL;

	rig_init(&r, good_title);
	memset(r.bytes, 0, sizeof(r.bytes));
	g_assert_false(overlay_plot(&r.c, &err));
	g_assert_error(err, RESULTS_ERROR, RESULTS_ERROR_IO);
	g_assert_nonnull(strstr(err->message, "no point to draw"));
	g_clear_error(&err);
	rig_release(&r);

	rig_init(&r, good_title);
	for (guint i = 0; i < NPTS; i++) {
		r.meas_us[i] = i % 2 ? NAN : 0.0;
		r.sim_us[i] = -1.0;
	}
	g_assert_false(overlay_plot(&r.c, &err));
	g_assert_error(err, RESULTS_ERROR, RESULTS_ERROR_IO);
	g_assert_nonnull(strstr(err->message, "no point to draw"));
	g_clear_error(&err);
	r.sim_us[3] = 5.0;
	g_assert_true(overlay_plot(&r.c, &err));
	g_assert_no_error(err);
	rig_release(&r);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* The templates of this tree, whatever the environment says. */
	g_autofree char *cwd = g_get_current_dir();
	g_autofree char *plots = g_build_filename(cwd, "plots", NULL);
	g_autofree char *tmpl = g_build_filename(plots, "overlay.gp", NULL);

	if (!g_file_test(tmpl, G_FILE_TEST_IS_REGULAR))
		g_error("%s not found: run from the repository root", tmpl);
	g_setenv("G5_PLOTS", plots, TRUE);
	g_test_add_func("/overlay/draw/png-svg", test_draws_png_svg);
	g_test_add_func("/overlay/draw/size-ticks", test_size_ticks);
	g_test_add_func("/overlay/escape/hostile-title", test_hostile_title);
	g_test_add_func("/overlay/escape/gnuplot-literal", test_gp_literal);
	g_test_add_func("/overlay/errors/missing-template", test_missing_template);
	g_test_add_func("/overlay/errors/missing-gnuplot", test_missing_gnuplot);
	g_test_add_func("/overlay/errors/gnuplot-fails", test_gnuplot_fails);
	g_test_add_func("/overlay/errors/control-char-path", test_control_char_path);
	g_test_add_func("/overlay/errors/nothing-to-draw", test_nothing_to_draw);
	return g_test_run();
}
