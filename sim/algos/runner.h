/* sim/algos/runner — runs a schedule on PAXI: the simulated collective.
 *
 * Every op becomes PAXI work: its receive is the matching transaction posted
 * at this rank (FIFO per sender, receiver, lane), its send a transaction it
 * starts, its reduction or copy work on the node's reducer. A fused op forwards
 * each slice as soon as it has arrived (and, for the reducing kinds, has been
 * reduced). An op starts once its deps are done and every earlier op of its
 * lane has started (a CDMA unit's descriptor queue is in order). All ranks
 * start after the collective's software overhead; the collective ends when the
 * last op is done. */
#ifndef G5_SIM_ALGOS_RUNNER_H
#define G5_SIM_ALGOS_RUNNER_H

#include <glib.h>
#include <stdint.h>

#include "sim/algos/schedule.h"
#include "sim/core/sim.h"
#include "sim/paxi/paxi.h"

struct runner_step {
	int rank;
	uint32_t step;
	sim_time_t start_ps, end_ps; /* first op start, last op end */
	uint64_t bytes_sent;
};

struct runner_result {
	sim_time_t latency_ps;  /* start of the call to the end of its last op */
	sim_time_t overhead_ps; /* of which software overhead */
	uint64_t ops;
	GArray *steps;          /* of struct runner_step, by rank then step; owned */
};

/* Runs `s` for a collective of `bytes` (nccl-tests' size) with elements of
 * `elem_bytes` on `px` (whose sim must be otherwise idle), starting now.
 * Returns false with error set when the schedule cannot run on this fabric
 * (rank count, unmatched sends). res->steps must be freed with
 * runner_result_clear(). */
bool runner_run(struct paxi *px, const struct sched *s, uint64_t bytes, uint32_t elem_bytes,
		sim_time_t overhead_ps, struct runner_result *res, GError **error);
void runner_result_clear(struct runner_result *res);

#endif
