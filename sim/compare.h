/* sim/compare — measured curves against the simulator (docs/validation.md).
 *
 * A curve is the set of measured points that share one key: file, impl,
 * collective, schedule (algorithm, nchunks, schedule file), ranks, dtype,
 * in place, mode, timer, protocol and engine. Its points are its sizes; the
 * repeats of a size count once, at their median. Each curve is simulated on a
 * platform with what actually ran: the executor's rows with the same schedule
 * (built from the registry by algorithm and nchunks, or an override), NCCL's
 * rows with G5's model of NCCL (algorithm "nccl") and the protocol the row
 * names, or NCCL's pick when it says "auto"; the mode picks the launch cost.
 *
 * Error of a curve over its n sizes, with r_i = t_sim / t_meas:
 *   geomean_err = exp(mean_i |ln r_i|) - 1,  max_err = exp(max_i |ln r_i|) - 1
 * (symmetric: 10 % too slow and 10 % too fast count alike).
 *
 * Simulations of identical points (in place and out of place, repeats) run
 * once; the distinct ones run on a thread pool. Results do not depend on the
 * number of threads. */
#ifndef G5_SIM_COMPARE_H
#define G5_SIM_COMPARE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/schedule.h"
#include "sim/config.h"
#include "sim/measured.h"
#include "sim/platform.h"

struct curve {
	/* the key (strings interned, from the measured points) */
	const char *file, *format, *impl, *algo, *mode, *schedule, *timer, *proto, *engine;
	enum coll coll;
	int ranks, root;
	enum dtype dtype;
	bool inplace;
	uint32_t nchunks;
	uint32_t launches;   /* calls back to back that the times average */
	/* the points, by increasing size */
	guint n;
	uint64_t *bytes;      /* owned */
	double *meas_us;      /* owned: median of the repeats */
	double *sim_us;       /* owned: filled by compare_simulate */
	int *sim_proto;       /* owned: enum paxi_proto that the simulation ran */
	bool *fit;            /* owned: the point is in the fitting set (calibrate) */
	double geomean_err, max_err;
};

void curve_free(struct curve *c);

/* Groups measured points into curves, in a fixed order (file, then first
 * appearance). Returns a GPtrArray of struct curve *, owning them. */
GPtrArray *compare_curves(const GArray *points);

/* Reads every measured file (measured_read) and groups their points into
 * curves, keeping only the points that match `where` (NULL: all): terms
 * KEY=VALUE separated by commas, all of which must hold; KEY is one of impl,
 * collective, algo, nchunks, ranks, dtype, inplace (0/1), mode, timer,
 * proto, format; VALUE may list alternatives with '|' ("mode=single|mpi").
 * NULL with error set ("FILE:LINE: ..." for a bad file, "'where' ..." for a
 * bad term, or when nothing matches). */
GPtrArray *compare_load(char *const *files, const char *where, GError **error);

/* What to simulate instead of what ran (compare's --algo / --schedule). */
struct compare_override {
	const char *algo;            /* or NULL */
	const struct sched *schedule; /* borrowed, or NULL */
};

/* Simulates every point of every curve on `pl` (with the curve's rank count)
 * and fills sim_us, sim_proto and the errors over all points. `threads`
 * >= 1. Returns false with error set (naming the curve) when a curve cannot
 * be simulated (an algorithm the platform does not admit, ...). */
bool compare_simulate(GPtrArray *curves, const struct platform *pl,
		      const struct compare_override *ov, guint threads, GError **error);

/* The same for the points in the fitting set only (curve->fit); the others
 * keep their previous values. The errors are not updated. */
bool compare_simulate_fit(GPtrArray *curves, const struct platform *pl, guint threads,
			  GError **error);

/* The errors of curve c over its points whose `fit` flag equals `which`
 * (all points when all is true). Returns the number of points counted. */
guint curve_errors(const struct curve *c, bool all, bool which, double *geomean_err,
		   double *max_err);

/* The same over every point of every curve (fit flags as above). */
guint curves_errors(GPtrArray *curves, bool all, bool which, double *geomean_err,
		    double *max_err);

/* A file-name stem for curve c (letters, digits, '-', '.'), unique among the
 * curves by its index i. g_free() it. */
char *curve_stem(const struct curve *c, guint i);

/* One line naming the curve's key ("nccl allreduce nccl k1 float single
 * out-of-place wall auto"); g_free() it. */
char *curve_label(const struct curve *c);

#endif
