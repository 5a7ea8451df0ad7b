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

/* What g5 sim and g5 run say, in a printf format, where a run at flow
 * fidelity sends messages across two switches or more. */
#define FIDELITY_NOTE_SWITCHED                                                                   \
	"flow fidelity gives a message one rate over its whole route, where the packet fabric's "  \
	"buffers at each switch let its parts go at their own: over g5 bench fidelity "          \
	"--platform's curves, on leafspine16 and fattree128 ring, hd and dbtree follow "           \
	"packet fidelity to within 5.1 %%, but ring2p and direct have been measured up to 28 %% "  \
	"slower and 12.5 %% faster, and on dragonfly72 up to 74 %% slower (binomial Broadcast; "   \
	"direct 48 %%, ring 24 %%) (docs/scale.md, \"Messages pass at a switch once their rest "  \
	"fits its buffer\", \"Flow fidelity on the shipped platforms\")"

/* The measured range of flow fidelity against packet fidelity over the
 * matrix of `g5 bench fidelity` (4 to 64 ranks), on routes that ranks
 * forward, per flow.arbiter, as g5 sim and g5 run quote it (plain text,
 * not formats), from most faster to most slower (docs/scale.md, "The notes'
 * ranges", "The three sharings on the whole matrix"). */
#define FIDELITY_RANGE_MAXMIN "from 62 % faster to 32 % slower"
#define FIDELITY_RANGE_RR "from 45 % faster to 82 % slower"
#define FIDELITY_RANGE_BUFFERS "from 25 % faster to 31 % slower"

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
		    double times_us[2], GError **error);

/* Which algorithm is the fastest at a point (one topology, collective, N
 * and size), by each fidelity: whether flow fidelity picks what packet
 * fidelity picks, the question `g5 tune --set fidelity=flow` answers. */

/* One algorithm's latency at a point, at both fidelities. */
struct fidelity_time {
	const char *algo;       /* borrowed */
	double packet_us, flow_us;
};

/* A point, for the record of the worst pick. */
struct fidelity_where {
	const char *topo, *coll; /* borrowed: static names */
	int ranks;
	uint64_t bytes;
};

/* A loss this small is within the goal on a curve's geomean error. */
#define FIDELITY_PICK_NEAR 0.02

/* Running sums over points of two algorithms or more. A fidelity picks the
 * first of its fastest, in the order given (the registry's, as g5 tune
 * breaks ties). The loss of a point is what flow fidelity's pick takes at
 * packet fidelity over what packet fidelity's takes, less one: 0 where they
 * agree, or where flow fidelity picks another algorithm exactly as fast. */
struct fidelity_picks {
	uint32_t points;
	uint32_t agree;            /* points of loss 0 */
	uint32_t near;             /* points of loss <= FIDELITY_PICK_NEAR */
	double sum_log_loss;       /* sum of ln(1 + loss) */
	double max_loss;
	struct fidelity_where max_at;
	const char *max_flow_pick, *max_packet_pick; /* borrowed */
};

/* Adds the point of n algorithms' times t at `where` (n < 2: nothing) and
 * returns its loss; *flow_pick and *packet_pick (each may be NULL) are set
 * to the picks' indices in t. */
double fidelity_picks_add(struct fidelity_picks *p, const struct fidelity_where *where,
			  const struct fidelity_time *t, guint n, guint *flow_pick, guint *packet_pick);

/* Adds the other sum's points to p. */
void fidelity_picks_merge(struct fidelity_picks *p, const struct fidelity_picks *other);

/* exp(mean ln(1 + loss)) - 1; 0 with no points. */
double fidelity_picks_geomean_loss(const struct fidelity_picks *p);

#endif
