/* sim/util/fit — nonlinear least squares: model parameters from measured points.
 *
 * Finds the parameter values x that minimise chi2 = sum_i r_i(x)^2 for a
 * caller's residual function, typically r_i = ln(simulated_i / measured_i),
 * with GSL's trust-region Levenberg-Marquardt solver with geodesic
 * acceleration (gsl_multifit_nlinear, QR linear solver, More scaling). This
 * module only sets the solver up, supplies its Jacobian and judges the
 * answer; it has no optimiser of its own.
 *
 * Model of a fit:
 *  - parameters live in log space, bounded by a smooth transform (MINUIT's):
 *    the solver moves u, and ln x = mid + half sin(u), mid and half the
 *    centre and half-width of [ln lo, ln hi]. So every x that fn sees is
 *    positive and within [lo, hi], and a parameter can come back from near
 *    a bound (a clamp would leave it stuck on a flat residual). A start
 *    closer than h (below) in ln x to a bound begins h inside it;
 *  - the Jacobian dr/d(ln x) is a forward difference with a fixed step h in
 *    ln x (fit_options.step_log, default 1e-3; backwards where forwards
 *    would cross the upper bound): each parameter moves by a factor e^h,
 *    about 0.1 %. Not GSL's own finite difference, whose step h_df x |u|
 *    would depend on where u happens to be and, at GSL's default h_df of
 *    1.5e-8, be far below the resolution of a simulator that works in whole
 *    picoseconds: a 1e-3 relative change of a 10 us time is 10^4 ps, so the
 *    difference sees the model and not its rounding, while the step stays
 *    small enough for a function that is only piecewise smooth. The solver
 *    gets dr/du = dr/d(ln x) d(ln x)/du. Each Jacobian costs p calls of fn,
 *    each accelerated step one more (GSL's difference for the second
 *    directional derivative);
 *  - converged means GSL's step test (|du_j| < 1e-8 (1e-8 + |u_j|)) or
 *    gradient test (||g .* max(u, 1)||_inf <= 6e-6 max(chi2 / 2, 1)) passed,
 *    or (with ftol > 0) an accepted step lowered chi2 by at most ftol x chi2,
 *    within max_iter iterations; with stall_ok, also a point from which no
 *    step lowers chi2. Anything else is an error, not a result;
 *  - uncertainties come from J = dr/d(ln x) at the solution (not dr/du, which
 *    sin(u) squeezes near a bound): C = (J^T J)^-1 chi2 / (n - p) and
 *    sigma_j = x_j sqrt(C_jj), the delta method for x = e^(ln x), so
 *    sigma_j / x_j is the 1-sigma uncertainty of ln x_j. With n == p no
 *    degree of freedom is left to estimate the noise: sigma is NAN;
 *  - identifiability, judged after the fit, in this order (the error names
 *    the parameters of the first rule that any of them breaks; every
 *    parameter's `determined` says whether it broke one):
 *      1. it ends within h (in ln x) of a bound;
 *      2. its Jacobian column is zero: no residual depends on it;
 *      3. it lies in a null direction of J (singular value below 1e-10 of
 *         the largest, columns scaled to unit length), or the correlation
 *         of its estimate with another's exceeds max_corr (the strongest
 *         such pair): they move the residuals together and only a
 *         combination is known;
 *      4. sigma_j / x_j > max_rel_sigma.
 *    The covariance of the others is computed with the parameters of rules
 *    1 and 2 held fixed and without the null directions of rule 3.
 *
 * Invariants: the same inputs give the same bits out (no randomness, no
 * threads; fn must be deterministic, as the simulator is). fn is called
 * only with values inside the bounds, and never again after it has failed.
 * The module never prints. While a fit runs, GSL's error handler is off so
 * that GSL neither prints nor aborts (it is process-wide state: do not run
 * fits in parallel with other GSL users that rely on the handler). */
#ifndef G5_SIM_UTIL_FIT_H
#define G5_SIM_UTIL_FIT_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIT_ERROR (fit_error_quark())
GQuark fit_error_quark(void);
enum fit_error_code {
	FIT_ERROR_INPUT,        /* bad bounds or start, or fewer points than parameters */
	FIT_ERROR_CONVERGENCE,  /* no convergence within max_iter, or stuck */
	FIT_ERROR_UNDETERMINED, /* fitted, but the data do not determine a parameter */
	FIT_ERROR_GSL,          /* a GSL call failed */
};

struct fit_param {
	const char *name;  /* borrowed: e.g. "link.bandwidth", quoted in errors */
	double value;      /* in: start, within [lo, hi]; out: fitted, same unit */
	double lo, hi;     /* bounds, 0 < lo < hi */
	double sigma;      /* out: 1-sigma uncertainty of value, same unit; INFINITY
	                      under rule 1, 2 or a null direction, NAN when n == p */
	bool determined;   /* out: false when an identifiability rule applies */
};

struct fit_options {
	double step_log;      /* finite-difference step in ln(value), 0 < h < 1 */
	uint32_t max_iter;    /* solver iterations before giving up, > 0 */
	double max_rel_sigma; /* sigma / value above this: not determined, > 0 */
	double max_corr;      /* |correlation| above this: confounded pair, (0, 1] */
	double ftol;          /* converged when an accepted step lowers chi2 by at
			       * most this fraction, >= 0; 0: off (GSL's step and
			       * gradient tests only). Our test: GSL 2.7's ftol
			       * argument is accepted and ignored */
	bool stall_ok;        /* a point where no step of the trust region lowers chi2
			       * counts as the minimum (for models that are only
			       * piecewise smooth, such as a simulator in whole
			       * picoseconds); false: an error */
};

#define FIT_OPTIONS_INIT \
	{ .step_log = 1e-3, .max_iter = 200, .max_rel_sigma = 0.5, .max_corr = 0.99, .ftol = 0, \
	  .stall_ok = false }

struct fit_result {
	double chi2;          /* sum of squared residuals at the last point */
	uint32_t iterations;  /* solver iterations (accepted steps), <= max_iter */
	uint32_t evaluations; /* calls of the residual function */
	int status;           /* GSL_SUCCESS when converged, else the GSL status
	                         that stopped it (GSL_EMAXITER, GSL_ENOPROG,
	                         GSL_EBADFUNC when fn failed, ...) */
};

/* Fills r[0..n-1] for the parameter values x[0..p-1] (in their own units).
 * Returns false with error set to abort the fit; the fit passes the error on
 * unchanged. Must be deterministic. */
typedef bool (*fit_residual_fn)(const double *x, double *r, void *user, GError **error);

/* Fits params[0..p-1] to n residuals of fn (user is passed through); opts
 * NULL means FIT_OPTIONS_INIT. True when the fit converged and every
 * parameter is determined: value, sigma and determined are written.
 * False with error set otherwise:
 *  - FIT_ERROR_UNDETERMINED: params and *res still hold the fit, so that a
 *    caller can show it; the message names the parameters, e.g.
 *    "the data cannot determine 'overhead.mpi' (no measured point depends on it)";
 *  - FIT_ERROR_INPUT (fn never called), FIT_ERROR_CONVERGENCE, FIT_ERROR_GSL,
 *    or fn's own error: params are left as they were; *res says how far
 *    the solver got.
 * res may be NULL. */
bool fit_least_squares(struct fit_param *params, size_t p, size_t n,
		       fit_residual_fn fn, void *user, const struct fit_options *opts,
		       struct fit_result *res, GError **error);

#endif
