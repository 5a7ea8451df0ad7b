/* Tests of sim/util/fit: known parameters of a model with the shape of a
 * measured collective (latency, bandwidth, a per-2-MiB-chunk overhead) come
 * back within their uncertainty, and that uncertainty is the spread over
 * noise draws; parameters the data cannot determine (unused, confounded,
 * too uncertain, pushed past a bound) are refused by name; too few
 * points, a failing residual function and non-convergence are errors;
 * ftol stops the solver early; two runs give the same bits. The data are
 * generated here from the model with fixed-seed noise, not by the code
 * under test. */
#include <glib.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "sim/util/fit.h"

#define NPTS 19             /* s = 4 KiB .. 1 GiB by x2 */
#define CHUNK 2097152.0     /* 2 MiB */
#define NOISE 0.005         /* +-0.5 %, uniform, multiplicative */
#define SEED 20260514u

/* The truth: a = 12.5 us, b = 340e3 bytes/us, c = 1.7 us per chunk. */
static const double truth[3] = { 12.5, 340e3, 1.7 };

enum model {
	MODEL_CHUNKED,    /* t = a + s / b + c ceil(s / 2 MiB) */
	MODEL_UNUSED,     /* t = a + s / b; the third parameter plays no part */
	MODEL_CONFOUNDED, /* t = a1 + a2 + s / b */
	MODEL_WEAK,       /* t = a + s / b + d sqrt(s) 1e-4: d barely matters */
};

struct data {
	enum model model;
	size_t n;
	double s[NPTS];       /* bytes */
	double t[NPTS];       /* measured, us */
	uint32_t calls;       /* of the residual function */
	uint32_t fail_at;     /* call that fails (1-based), 0: none */
};

static double model_time(enum model m, double s, const double *x)
{
	switch (m) {
	case MODEL_CHUNKED:
		return x[0] + s / x[1] + x[2] * ceil(s / CHUNK);
	case MODEL_UNUSED:
		return x[0] + s / x[1];
	case MODEL_CONFOUNDED:
		return x[0] + x[1] + s / x[2];
	case MODEL_WEAK:
		return x[0] + s / x[1] + x[2] * sqrt(s) * 1e-4;
	}
	g_assert_not_reached();
}

/* r_i = ln(model_i / measured_i) */
static bool residuals(const double *x, double *r, void *user, GError **error)
{
	struct data *d = user;

	if (++d->calls == d->fail_at) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "simulate: 'configs/platforms/ring8.yaml' vanished");
		return false;
	}
	for (size_t i = 0; i < d->n; i++)
		r[i] = log(model_time(d->model, d->s[i], x) / d->t[i]);
	return true;
}

/* Measured times of model m at x, each times (1 + u), u uniform in
 * [-NOISE, NOISE) from GRand with seed (a fixed sequence for a seed). */
static void data_make_seeded(struct data *d, enum model m, const double *x, guint32 seed)
{
	g_autoptr(GRand) rng = g_rand_new_with_seed(seed);

	memset(d, 0, sizeof(*d));
	d->model = m;
	d->n = NPTS;
	for (size_t i = 0; i < NPTS; i++) {
		d->s[i] = 4096.0 * (double)(1u << i);
		d->t[i] = model_time(m, d->s[i], x) * (1 + g_rand_double_range(rng, -NOISE, NOISE));
	}
}

static void data_make(struct data *d, enum model m, const double *x)
{
	data_make_seeded(d, m, x, SEED);
}

static void params_chunked(struct fit_param *fp)
{
	/* starts 2x away from the truth, each in its own direction */
	fp[0] = (struct fit_param){ .name = "overhead.launch", .value = 25, .lo = 0.1, .hi = 1e3 };
	fp[1] = (struct fit_param){ .name = "link.bandwidth", .value = 170e3, .lo = 1e3, .hi = 1e8 };
	fp[2] = (struct fit_param){ .name = "paxi.chunk", .value = 0.85, .lo = 1e-3, .hi = 1e3 };
}

static const char *params_name(int j)
{
	struct fit_param fp[3];

	params_chunked(fp);
	return fp[j].name;
}

static void test_recover(void)
{
	struct data d;
	struct fit_param fp[3];
	struct fit_result res;
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	params_chunked(fp);
	g_assert_true(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, &res, &err));
	g_assert_no_error(err);
	g_assert_cmpint(res.status, ==, GSL_SUCCESS);
	g_assert_cmpuint(res.iterations, <, 200);
	g_assert_cmpuint(res.evaluations, ==, d.calls);
	/* the noise sets the floor: chi2 / n near Var(ln(1 + u)) = NOISE^2 / 3 */
	g_assert_cmpfloat(res.chi2 / NPTS, <, NOISE * NOISE / 3 * 2);
	for (int j = 0; j < 3; j++) {
		g_test_message("%s = %g +- %g (truth %g)", fp[j].name, fp[j].value, fp[j].sigma, truth[j]);
		g_assert_true(fp[j].determined);
		g_assert_cmpfloat(fp[j].sigma, >, 0);
		g_assert_cmpfloat_with_epsilon(fp[j].value, truth[j], 0.02 * truth[j]);
		g_assert_cmpfloat_with_epsilon(fp[j].value, truth[j], 2 * fp[j].sigma);
	}
}

static void test_sigma(void)
{
	/* Over many noise draws, the spread of the fitted values is what the
	 * fit's sigma says it is (within the sampling error of 100 draws). */
	enum { DRAWS = 100 };
	double sum[3] = { 0 }, sum2[3] = { 0 }, sigma[3] = { 0 };

	for (guint32 k = 0; k < DRAWS; k++) {
		struct data d;
		struct fit_param fp[3];
		GError *err = NULL;

		data_make_seeded(&d, MODEL_CHUNKED, truth, SEED + 1 + k);
		params_chunked(fp);
		g_assert_true(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, NULL, &err));
		g_assert_no_error(err);
		for (int j = 0; j < 3; j++) {
			sum[j] += fp[j].value;
			sum2[j] += fp[j].value * fp[j].value;
			sigma[j] += fp[j].sigma / DRAWS;
		}
	}
	for (int j = 0; j < 3; j++) {
		double mean = sum[j] / DRAWS;
		double sd = sqrt((sum2[j] - DRAWS * mean * mean) / (DRAWS - 1));

		g_test_message("%s: mean %g, spread %g, mean sigma %g", params_name(j), mean, sd, sigma[j]);
		g_assert_cmpfloat_with_epsilon(mean, truth[j], 3 * sd / sqrt(DRAWS));
		g_assert_cmpfloat_with_epsilon(sigma[j] / sd, 1, 0.25);
	}
}

static void test_noise_free(void)
{
	/* Exact data and a start at the truth: converged at once, sigma 0. */
	struct data d;
	struct fit_param fp[3];
	struct fit_result res;
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	for (size_t i = 0; i < d.n; i++)
		d.t[i] = model_time(MODEL_CHUNKED, d.s[i], truth);
	params_chunked(fp);
	for (int j = 0; j < 3; j++)
		fp[j].value = truth[j];
	g_assert_true(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, &res, &err));
	g_assert_no_error(err);
	for (int j = 0; j < 3; j++) {
		g_assert_cmpfloat_with_epsilon(fp[j].value, truth[j], 1e-9 * truth[j]);
		g_assert_cmpfloat(fp[j].sigma, <=, 1e-6 * truth[j]);
	}
}

static void test_unused(void)
{
	struct data d;
	struct fit_param fp[3] = {
		{ .name = "overhead.launch", .value = 25, .lo = 0.1, .hi = 1e3 },
		{ .name = "link.bandwidth", .value = 170e3, .lo = 1e3, .hi = 1e8 },
		{ .name = "overhead.mpi", .value = 3, .lo = 0.01, .hi = 100 },
	};
	GError *err = NULL;

	data_make(&d, MODEL_UNUSED, truth);
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, NULL, &err));
	g_assert_error(err, FIT_ERROR, FIT_ERROR_UNDETERMINED);
	g_assert_cmpstr(err->message, ==,
			"the data cannot determine 'overhead.mpi' (no measured point depends on it)");
	/* the others are fitted and kept */
	g_assert_true(fp[0].determined);
	g_assert_true(fp[1].determined);
	g_assert_false(fp[2].determined);
	g_assert_cmpfloat(fp[2].sigma, ==, INFINITY);
	g_assert_cmpfloat_with_epsilon(fp[0].value, truth[0], 0.02 * truth[0]);
	g_assert_cmpfloat_with_epsilon(fp[1].value, truth[1], 0.02 * truth[1]);
	g_clear_error(&err);
}

static void test_confounded(void)
{
	const double x[3] = { 4.5, 8, 340e3 };
	struct data d;
	struct fit_param fp[3] = {
		{ .name = "link.lat", .value = 9, .lo = 0.01, .hi = 1e3 },
		{ .name = "paxi.setup", .value = 4, .lo = 0.01, .hi = 1e3 },
		{ .name = "link.bandwidth", .value = 170e3, .lo = 1e3, .hi = 1e8 },
	};
	GError *err = NULL;

	data_make(&d, MODEL_CONFOUNDED, x);
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, NULL, &err));
	g_assert_error(err, FIT_ERROR, FIT_ERROR_UNDETERMINED);
	g_assert_cmpstr(err->message, ==,
			"the data cannot determine 'link.lat' and 'paxi.setup' (they move the times together; fit one of them)");
	g_assert_false(fp[0].determined);
	g_assert_false(fp[1].determined);
	g_assert_true(fp[2].determined);
	/* the sum is what the data know */
	g_assert_cmpfloat_with_epsilon(fp[0].value + fp[1].value, x[0] + x[1], 0.02 * (x[0] + x[1]));
	g_clear_error(&err);
}

static void test_vague(void)
{
	/* d = 0.1 moves the times by at most 0.01 %, the noise by 0.5 %. */
	const double x[3] = { 12.5, 340e3, 0.1 };
	struct data d;
	struct fit_param fp[3] = {
		{ .name = "overhead.launch", .value = 25, .lo = 0.1, .hi = 1e3 },
		{ .name = "link.bandwidth", .value = 170e3, .lo = 1e3, .hi = 1e8 },
		{ .name = "overhead.sqrt", .value = 1, .lo = 1e-3, .hi = 1e3 },
	};
	GError *err = NULL;

	data_make(&d, MODEL_WEAK, x);
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, NULL, &err));
	g_assert_error(err, FIT_ERROR, FIT_ERROR_UNDETERMINED);
	g_assert_cmpstr(err->message, ==,
			"the data cannot determine 'overhead.sqrt' (its 1-sigma uncertainty is 124% of its value, more than 50%)");
	g_assert_true(fp[0].determined);
	g_assert_true(fp[1].determined);
	g_assert_false(fp[2].determined);
	g_assert_cmpfloat(fp[2].sigma, >, 0.5 * fp[2].value);
	g_assert_cmpfloat(fp[2].sigma, <, INFINITY);
	g_clear_error(&err);
}

static void test_at_bound(void)
{
	/* The chunk overhead is 1.7 us; bounds that stop it at 1 us. */
	struct data d;
	struct fit_param fp[3];
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	params_chunked(fp);
	fp[2].hi = 1;
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, NULL, &err));
	g_assert_error(err, FIT_ERROR, FIT_ERROR_UNDETERMINED);
	g_assert_cmpstr(err->message, ==,
			"'paxi.chunk' ends at its upper bound 1: the data pull it outside [0.001, 1], or the fit started too far away");
	g_assert_false(fp[2].determined);
	g_assert_cmpfloat(fp[2].value, <=, 1);
	g_assert_cmpfloat(fp[2].value, >, 0.999); /* within the difference step */
	g_clear_error(&err);
}

static void test_too_few_points(void)
{
	struct data d;
	struct fit_param fp[3];
	struct fit_result res;
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	d.n = 2;
	params_chunked(fp);
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, &res, &err));
	g_assert_error(err, FIT_ERROR, FIT_ERROR_INPUT);
	g_assert_cmpstr(err->message, ==, "2 points cannot determine 3 parameters");
	g_assert_cmpuint(d.calls, ==, 0);
	g_assert_cmpuint(res.evaluations, ==, 0);
	g_assert_cmpfloat(fp[0].value, ==, 25);
	g_clear_error(&err);
}

static void test_bad_input(void)
{
	static const struct {
		double value, lo, hi;
		const char *message;
	} cases[] = {
		{ 1, 0, 10, "'link.lat' needs bounds 0 < lo < hi, got [0, 10]" },
		{ 1, 10, 1, "'link.lat' needs bounds 0 < lo < hi, got [10, 1]" },
		{ 1, 1, 1.003, "'link.lat' has bounds [1, 1.003], too narrow for a step of 0.001 in ln(value): fix it instead" },
		{ 20, 1, 10, "'link.lat' starts at 20, outside its bounds [1, 10]" },
		{ NAN, 1, 10, "'link.lat' starts at nan, outside its bounds [1, 10]" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct data d;
		struct fit_param fp = { .name = "link.lat", .value = cases[i].value,
					.lo = cases[i].lo, .hi = cases[i].hi };
		GError *err = NULL;

		data_make(&d, MODEL_CHUNKED, truth);
		g_assert_false(fit_least_squares(&fp, 1, d.n, residuals, &d, NULL, NULL, &err));
		g_assert_error(err, FIT_ERROR, FIT_ERROR_INPUT);
		g_assert_cmpstr(err->message, ==, cases[i].message);
		g_assert_cmpuint(d.calls, ==, 0);
		g_clear_error(&err);
	}
}

static void test_residual_error(void)
{
	/* Call 1 is the start, calls 2-4 the first Jacobian: 6 is mid-fit. */
	struct data d;
	struct fit_param fp[3];
	struct fit_result res;
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	d.fail_at = 6;
	params_chunked(fp);
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, NULL, &res, &err));
	g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
	g_assert_cmpstr(err->message, ==, "simulate: 'configs/platforms/ring8.yaml' vanished");
	g_assert_cmpuint(d.calls, ==, 6); /* never called again */
	g_assert_cmpuint(res.evaluations, ==, 6);
	g_assert_cmpint(res.status, ==, GSL_EBADFUNC);
	g_assert_cmpfloat(fp[0].value, ==, 25); /* left alone */
	g_clear_error(&err);
}

static void test_no_convergence(void)
{
	const struct fit_options o = { .step_log = 1e-3, .max_iter = 2, .max_rel_sigma = 0.5,
				       .max_corr = 0.99 };
	struct data d;
	struct fit_param fp[3];
	struct fit_result res;
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	params_chunked(fp);
	g_assert_false(fit_least_squares(fp, 3, d.n, residuals, &d, &o, &res, &err));
	g_assert_error(err, FIT_ERROR, FIT_ERROR_CONVERGENCE);
	g_assert_true(g_str_has_prefix(err->message, "the fit did not converge in 2 iterations (chi2 = "));
	g_assert_cmpint(res.status, ==, GSL_EMAXITER);
	g_assert_cmpuint(res.iterations, ==, 2);
	g_assert_cmpfloat(fp[0].value, ==, 25);
	g_clear_error(&err);
}

static void test_ftol(void)
{
	/* ftol = 1 % stops at the first accepted step that gains less than
	 * 1 % of chi2, before GSL's step and gradient tests would, next to
	 * the minimum. */
	struct fit_options o = FIT_OPTIONS_INIT;
	struct fit_result full, early;
	struct data d;
	struct fit_param fp[3];
	GError *err = NULL;

	data_make(&d, MODEL_CHUNKED, truth);
	params_chunked(fp);
	g_assert_true(fit_least_squares(fp, 3, d.n, residuals, &d, &o, &full, &err));
	g_assert_no_error(err);
	o.ftol = 0.01;
	params_chunked(fp);
	g_assert_true(fit_least_squares(fp, 3, d.n, residuals, &d, &o, &early, &err));
	g_assert_no_error(err);
	g_assert_cmpuint(early.iterations, <, full.iterations);
	g_assert_cmpfloat(early.chi2, >=, full.chi2);
	g_assert_cmpfloat_with_epsilon(early.chi2, full.chi2, 1e-3 * full.chi2);
}

static void test_deterministic(void)
{
	/* Field by field (struct padding is not part of the result). */
	struct fit_param fp[2][3];
	struct fit_result res[2];

	for (int k = 0; k < 2; k++) {
		struct data d;
		GError *err = NULL;

		data_make(&d, MODEL_CHUNKED, truth);
		params_chunked(fp[k]);
		g_assert_true(fit_least_squares(fp[k], 3, d.n, residuals, &d, NULL, &res[k], &err));
		g_assert_no_error(err);
	}
	for (int j = 0; j < 3; j++) {
		g_assert_cmpmem(&fp[0][j].value, sizeof(double), &fp[1][j].value, sizeof(double));
		g_assert_cmpmem(&fp[0][j].sigma, sizeof(double), &fp[1][j].sigma, sizeof(double));
		g_assert_true(fp[0][j].determined == fp[1][j].determined);
	}
	g_assert_cmpmem(&res[0].chi2, sizeof(double), &res[1].chi2, sizeof(double));
	g_assert_cmpuint(res[0].iterations, ==, res[1].iterations);
	g_assert_cmpuint(res[0].evaluations, ==, res[1].evaluations);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/fit/recover/chunked-model", test_recover);
	g_test_add_func("/fit/recover/sigma-is-the-spread", test_sigma);
	g_test_add_func("/fit/recover/noise-free-at-truth", test_noise_free);
	g_test_add_func("/fit/refuse/unused-parameter", test_unused);
	g_test_add_func("/fit/refuse/confounded-pair", test_confounded);
	g_test_add_func("/fit/refuse/vague", test_vague);
	g_test_add_func("/fit/refuse/at-bound", test_at_bound);
	g_test_add_func("/fit/refuse/too-few-points", test_too_few_points);
	g_test_add_func("/fit/refuse/bad-input", test_bad_input);
	g_test_add_func("/fit/error/residual-fails", test_residual_error);
	g_test_add_func("/fit/error/no-convergence", test_no_convergence);
	g_test_add_func("/fit/options/ftol-stops-early", test_ftol);
	g_test_add_func("/fit/determinism/same-bits", test_deterministic);
	return g_test_run();
}
