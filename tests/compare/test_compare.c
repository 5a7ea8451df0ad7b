/* Tests of sim/compare and of `g5 compare` and `g5 calibrate` (the binary
 * named by $G5, set by `make test`): curves and their errors, the commands
 * on real and damaged measured files, and a calibration that recovers known
 * platform values from curves simulated with them. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/compare.h"
#include "sim/simulate.h"

#include "tests/support/g5run.h"

static struct measured_point point(enum coll c, uint64_t bytes, double us, bool inplace)
{
	return (struct measured_point){
		.file = g_intern_static_string("x.csv"), .line = 2,
		.format = g_intern_static_string("plain-csv"), .impl = g_intern_static_string("g5"),
		.coll = c, .algo = g_intern_static_string("ring"), .ranks = 2, .bytes = bytes,
		.dtype = DTYPE_FP32, .inplace = inplace, .mode = g_intern_static_string("single"),
		.nchunks = 1, .schedule = g_intern_static_string("-"),
		.timer = g_intern_static_string("wall"), .proto = g_intern_static_string("simple"),
		.engine = g_intern_static_string("sm"), .root = -1, .time_us = us,
	};
}

/* Points of one key make one curve; repeats of a size count at their median. */
static void test_curves(void)
{
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(struct measured_point));
	struct measured_point p[] = {
		point(COLL_ALLREDUCE, 8192, 30, false), point(COLL_ALLREDUCE, 4096, 10, false),
		point(COLL_ALLREDUCE, 4096, 14, false), point(COLL_ALLREDUCE, 4096, 11, false),
		point(COLL_ALLREDUCE, 4096, 99, true),  point(COLL_ALLGATHER, 4096, 5, false),
		point(COLL_ALLREDUCE, 8192, 20, false),
	};

	g_array_append_vals(pts, p, G_N_ELEMENTS(p));
	GPtrArray *cs = compare_curves(pts);

	g_assert_cmpuint(cs->len, ==, 3);
	const struct curve *c = cs->pdata[0];

	g_assert_cmpuint(c->n, ==, 2);
	g_assert_cmpuint(c->bytes[0], ==, 4096);
	g_assert_cmpfloat(c->meas_us[0], ==, 11);  /* median of 10, 14, 11 */
	g_assert_cmpuint(c->bytes[1], ==, 8192);
	g_assert_cmpfloat(c->meas_us[1], ==, 25);  /* median of 30, 20 */
	g_assert_true(((const struct curve *)cs->pdata[1])->inplace);
	g_assert_cmpint(((const struct curve *)cs->pdata[2])->coll, ==, COLL_ALLGATHER);
	g_ptr_array_unref(cs);
	g_array_unref(pts);
}

/* geomean_err = exp(mean |ln r|) - 1 and max_err = exp(max |ln r|) - 1: a
 * point 2x too slow and one 2x too fast count alike. */
static void test_errors(void)
{
	uint64_t b[3] = { 1, 2, 3 };
	double m[3] = { 10, 10, 10 }, s[3] = { 20, 5, 10 };
	bool fit[3] = { true, false, true };
	struct curve c = { .n = 3, .bytes = b, .meas_us = m, .sim_us = s, .fit = fit };
	double g, mx;

	g_assert_cmpuint(curve_errors(&c, true, false, &g, &mx), ==, 3);
	g_assert_cmpfloat_with_epsilon(g, exp(2 * log(2) / 3) - 1, 1e-12);
	g_assert_cmpfloat_with_epsilon(mx, 1.0, 1e-12);
	g_assert_cmpuint(curve_errors(&c, false, false, &g, &mx), ==, 1);  /* held out */
	g_assert_cmpfloat_with_epsilon(g, 1.0, 1e-12);
	g_assert_cmpuint(curve_errors(&c, false, true, &g, &mx), ==, 2);   /* fitted */
	g_assert_cmpfloat_with_epsilon(g, sqrt(2) - 1, 1e-12);
}

/* A real nccl-tests log: one JSON object per curve with its key and errors;
 * -o writes compare.csv and the overlay figures. */
static void test_cli_real(void)
{
	struct run r;
	g_autofree char *dir = tmpdir();
	g_autofree char *csv = g_build_filename(dir, "compare.csv", NULL);

	if (!g5(&r, "compare", "--json", "--threads", "2", "--platform",
		"configs/platforms/h200x2-nvlink.yaml", "-o", dir,
		"tests/measured/data/all_reduce_float_mpi_np2.txt", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_auto(GStrv) lines = g_strsplit(r.out, "\n", -1);

	g_assert_cmpuint(g_strv_length(lines), ==, 3); /* two curves and the end */
	for (int i = 0; i < 2; i++) {
		const char *keys[] = { "\"collective\": \"allreduce\"", "\"dtype\": \"fp32\"",
				       "\"ranks\": 2", "\"mode\": \"mpi\"", "\"impl\": \"nccl\"",
				       "\"algo\": \"nccl\"", "\"nchunks\": 1", "\"points\": 10",
				       "\"geomean_err\": ", "\"max_err\": " };

		for (guint k = 0; k < G_N_ELEMENTS(keys); k++)
			g_assert_nonnull(strstr(lines[i], keys[k]));
	}
	g_assert_nonnull(strstr(lines[0], "\"inplace\": 0"));
	g_assert_nonnull(strstr(lines[1], "\"inplace\": 1"));
	g_autofree char *text = NULL;

	g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
	g_auto(GStrv) rows = g_strsplit(text, "\n", -1);

	g_assert_cmpuint(g_strv_length(rows), ==, 1 + 20 + 1);
	g_assert_true(g_str_has_prefix(rows[1], "tests/measured/data/all_reduce_float_mpi_np2.txt,"
						"nccl-tests,nccl,allreduce,nccl,1,-,2,fp32,0,mpi,"));
	guint images = 0;
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;

	while ((n = g_dir_read_name(d)))
		images += g_str_has_suffix(n, ".png") || g_str_has_suffix(n, ".svg");
	g_dir_close(d);
	g_assert_cmpuint(images, ==, 4);
	run_clear(&r);
	rm_rf(dir);
}

/* A damaged file: its place and what is wrong, exit 2, nothing written. */
static void test_cli_damaged(void)
{
	struct run r;
	g_autofree char *dir = tmpdir();
	g_autofree char *sub = g_build_filename(dir, "out", NULL);

	if (!g5(&r, "compare", "--platform", "configs/platforms/h200x2-nvlink.yaml", "-o", sub,
		"tests/measured/data/all_reduce_float_g2.txt", "tests/measured/bad/nccl-wrong.txt",
		NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_true(g_str_has_prefix(r.err, "g5 compare: tests/measured/bad/nccl-wrong.txt:"));
	g_assert_cmpstr(r.out, ==, "");
	g_assert_false(g_file_test(sub, G_FILE_TEST_EXISTS));
	run_clear(&r);
	g_assert_true(g5(&r, "compare", "--platform", "configs/platforms/h200x2-nvlink.yaml",
			 "--where", "colour=red", "tests/measured/data/all_reduce_float_g2.txt", NULL));
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_nonnull(strstr(r.err, "'where' term 'colour=red'"));
	run_clear(&r);
	g_assert_true(g5(&r, "compare", "tests/measured/data/all_reduce_float_g2.txt", NULL));
	g_assert_cmpint(exit_code(&r), ==, 2);
	g_assert_nonnull(strstr(r.err, "--platform is required"));
	run_clear(&r);
	rm_rf(dir);
}

/* NCCL's padded AllGatherV (g5x --nccl-agv pad, algo nccl-pad) has no model:
 * refused by name (exit 1), not simulated as NCCL's grouped broadcasts;
 * with --algo it is simulated as that algorithm. */
static void test_cli_nccl_pad(void)
{
	struct run r;
	g_autofree char *dir = tmpdir();
	g_autofree char *sub = g_build_filename(dir, "out", NULL);
	g_autofree char *sub2 = g_build_filename(dir, "out2", NULL);

	if (!g5(&r, "compare", "--platform", "configs/platforms/h200x2-nvlink.yaml", "-o", sub,
		"tests/measured/data/g5x-new.csv", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "NCCL's padded AllGatherV (algo nccl-pad) has no model"));
	run_clear(&r);
	g_assert_true(g5(&r, "compare", "--platform", "configs/platforms/h200x2-nvlink.yaml", "-o",
			 sub2, "--where", "algo=nccl-pad", "--algo", "pad",
			 "tests/measured/data/g5x-new.csv", NULL));
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_nonnull(strstr(r.out, "points 1"));
	run_clear(&r);
	rm_rf(dir);
}

/* Writes a plain CSV of ring AllReduce (nchunks 1 and 4, both modes)
 * simulated on `pl`. */
static void write_simulated(const struct platform *pl, const char *path)
{
	GString *g = g_string_new("collective,ranks,bytes,dtype,time_us,impl,algo,mode,nchunks\n");

	for (int mode = 0; mode < 2; mode++)
		for (uint32_t k = 1; k <= 4; k += 3)
			for (uint64_t b = 4096; b <= (64u << 20); b *= 4) {
				struct simulate_job job = {
					.plat = pl, .coll = COLL_ALLREDUCE, .algo = "ring", .bytes = b,
					.elem_bytes = 4, .params = { .nchunks = k }, .seed = 1,
					.mode = (enum run_mode)mode, .proto = PAXI_PROTO_SIMPLE,
				};
				struct simulate_outcome o;
				GError *err = NULL;

				g_assert_true(simulate(&job, &o, &err));
				g_assert_no_error(err);
				g_string_append_printf(g, "allreduce,2,%" G_GUINT64_FORMAT
						       ",float,%.6f,g5,ring,%s,%u\n",
						       b, o.latency_us, mode ? "mpi" : "single", k);
				simulate_outcome_clear(&o);
			}
	g_assert_true(g_file_set_contents(path, g->str, (gssize)g->len, NULL));
	g_string_free(g, TRUE);
}

/* Curves simulated with known values: calibrating from other start values
 * recovers them; a key no point depends on is refused, naming it. */
static void test_calibrate_recovers(void)
{
	struct platform truth;
	GError *err = NULL;
	g_autofree char *dir = tmpdir();
	g_autofree char *csv = g_build_filename(dir, "sim.csv", NULL);
	g_autofree char *out = g_build_filename(dir, "fitted.yaml", NULL);
	struct run r;

	if (!g_getenv("G5")) {
		g_test_skip("G5 is not set (make test sets it)");
		return;
	}
	g_assert_true(config_platform_load("tests/compare/data/two.yaml", &truth, &err));
	g_assert_no_error(err);
	/* the truth: 7 us and 5 us launches, 300 GB/s, 2 us of setup */
	g_assert_true(config_platform_set(&truth, "overhead", "7us", NULL));
	g_assert_true(config_platform_set(&truth, "overhead_mpi", "5us", NULL));
	g_assert_true(config_platform_set(&truth, "link.bandwidth", "300GB/s", NULL));
	g_assert_true(config_platform_set(&truth, "paxi.setup", "2us", NULL));
	write_simulated(&truth, csv);
	platform_release(&truth);

	g_assert_true(g5(&r, "calibrate", "--threads", "2", "--platform",
			 "tests/compare/data/two.yaml", "-o", out, csv, NULL));
	if (exit_code(&r))
		g_printerr("%s%s", r.out, r.err);
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_nonnull(strstr(r.out, "on the sizes held out: geomean_err"));
	run_clear(&r);
	struct platform fitted;
	const struct {
		const char *key;
		double want;
	} keys[] = { { "overhead", 7e6 }, { "overhead_mpi", 5e6 }, { "link.bandwidth", 300e9 },
		     { "paxi.setup", 2e6 } };

	g_assert_true(config_platform_load(out, &fitted, &err));
	g_assert_no_error(err);
	for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
		double v;

		g_assert_true(config_platform_get_num(&fitted, keys[i].key, &v, NULL));
		if (fabs(v / keys[i].want - 1) > 0.02)
			g_error("'%s' fitted %g, the truth is %g", keys[i].key, v, keys[i].want);
	}
	platform_release(&fitted);

	/* NCCL's channels: no executor row depends on them */
	g_assert_true(g5(&r, "calibrate", "--platform", "tests/compare/data/two.yaml", "--fit",
			 "overhead,nccl.channel_bytes", "-o", out, csv, NULL));
	if (exit_code(&r) != 1)
		g_printerr("%s", r.err);
	g_assert_cmpint(exit_code(&r), ==, 1);
	g_assert_nonnull(strstr(r.err, "cannot determine 'nccl.channel_bytes'"));
	run_clear(&r);
	rm_rf(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/compare/curves/median", test_curves);
	g_test_add_func("/compare/errors", test_errors);
	g_test_add_func("/compare/cli/real-log", test_cli_real);
	g_test_add_func("/compare/cli/damaged", test_cli_damaged);
	g_test_add_func("/compare/cli/nccl-pad", test_cli_nccl_pad);
	g_test_add_func("/calibrate/recovers", test_calibrate_recovers);
	return g_test_run();
}
