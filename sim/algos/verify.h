/* sim/algos/verify — symbolic proof that a schedule computes its collective.
 *
 * Every memory cell (rank, buffer, unit) holds a symbolic value: the unit it
 * came from and the set of ranks whose contributions it sums, or nothing.
 * In place, a rank's input and output are one buffer addressed by global
 * unit (input unit u is output unit u). The verifier first checks the
 * structure (op fields against their kind, peers, lanes, ranges inside the
 * windows the collective prescribes, deps earlier, steps and lanes counted,
 * every send paired with a receive of the same count and PAXI kind in FIFO
 * order per (sender, receiver, lane)), then runs the ops in a legal order:
 *   - an op is issued once every earlier op of its lane is issued and its
 *     deps are done (the runner's CDMA descriptor queue);
 *   - it fires once issued, its received message has been sent, and, when it
 *     sends by Send/Recv, once the matching receive is issued (the CTS); a
 *     Transfer send does not wait for the receiver;
 *   - firing reads L (and D for reduce), combines with R, writes D and sends.
 * Reading a cell last written by an op that the reader does not depend on
 * (transitively, through local deps), overwriting a cell that an op not
 * among the writer's deps has read or written, reading a cell that holds
 * nothing, adding two values of different units or with a rank in common:
 * each is an error. Ops that cannot progress while some remain are a
 * deadlock. At the end each rank's output must hold exactly what the
 * collective defines (see verify.c), every contribution once.
 *
 * Errors name the rank, op index, step and kind: "rank 3 op 12 (step 5,
 * recv_reduce_send): ...", prefixed with "in place: " for the in-place run. */
#ifndef G5_SIM_ALGOS_VERIFY_H
#define G5_SIM_ALGOS_VERIFY_H

#include <glib.h>
#include <stdbool.h>

#include "sim/algos/schedule.h"

/* Where a failure was found: rank and op index, or -1 when the failure is
 * not about one op (a wrong output, bad header fields). */
struct verify_where {
	int rank;
	long op;
};

/* Verifies s in one mode; in place is refused (an error) when
 * !s->inplace_ok. Returns false with error (SCHED_ERROR_INVALID) and, when
 * where is not NULL, the failing op. */
bool verify_sched_mode(const struct sched *s, bool inplace, struct verify_where *where,
		       GError **error);

/* Verifies s out of place and, when s->inplace_ok, in place. */
bool verify_sched(const struct sched *s, struct verify_where *where, GError **error);

/* verify_sched on a schedule loaded from file `name`, whose op lines are
 * `lines` (sched_file_load's): the error names the file and the line of the
 * op at fault, "NAME:LINE: what", or the file alone. */
bool verify_sched_file(const struct sched *s, const GArray *lines, const char *name,
		       GError **error);

#endif
