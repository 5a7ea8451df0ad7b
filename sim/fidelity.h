/* Flow fidelity checked against packet fidelity: the same job simulated both
 * ways, and the error of the flow-level time against the packet-level one
 * (the reference), per curve and summed up over a matrix of curves.
 *
 * The error of a set of points is docs/validation.md's: geomean_err =
 * exp(mean |ln(t_flow / t_packet)|) - 1, and the largest |t_flow / t_packet
 * - 1|. `g5 bench fidelity` runs the whole matrix of docs/scale.md;
 * tests/fidelity a reduced one in CI. */
#ifndef G5_SIM_FIDELITY_H
#define G5_SIM_FIDELITY_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/ir.h"
#include "sim/link/link.h"

/* Running sums of one set of points' errors. */
struct fidelity_err {
	uint32_t points;
	double sum_abs_log;     /* sum of |ln(t_flow / t_packet)| */
	double max_err;         /* max |t_flow / t_packet - 1| */
	uint64_t max_bytes;     /* where max_err is: size */
	int max_ranks;          /* and ranks */
	double packet_wall_s, flow_wall_s; /* wall time of the runs */
	uint64_t packet_events, flow_events;
};

/* exp(mean |ln ratio|) - 1; 0 with no points. */
double fidelity_geomean_err(const struct fidelity_err *e);

/* Adds the other set's points to e. */
void fidelity_err_merge(struct fidelity_err *e, const struct fidelity_err *other);

struct platform;

/* One point: collective c by algorithm `algo` (the registry's name) of
 * `bytes` on platform `base` (NULL: the seed platform) reshaped to `kind`
 * with `ranks` ranks, run at both fidelities; its error is added to *e.
 * False with error set when the combination is not admitted (an
 * algorithm's rank rule, a shape's), or a run fails; e is then unchanged.
 * base is only read: points may run on several threads at once. */
bool fidelity_point(const struct topo_ops *kind, int ranks, enum coll c, const char *algo,
		    const struct platform *base, uint64_t bytes, struct fidelity_err *e,
		    GError **error);

#endif
