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

/* Error domain of runner_run. */
#define RUNNER_ERROR (runner_error_quark())
GQuark runner_error_quark(void);
enum runner_error_code {
	RUNNER_ERROR_UNMATCHED, /* a send or receive with no partner, or no units */
	RUNNER_ERROR_DEADLOCK,  /* ops that never completed */
	RUNNER_ERROR_CLOCK,     /* the run's time passed the end of the clock */
	RUNNER_ERROR_EVENTS,    /* the run reached its limit of events */
	RUNNER_ERROR_SIZE,      /* the schedule cannot run at this size without losing data */
};

struct runner_step {
	int rank;
	uint32_t step;
	sim_time_t start_ps, end_ps; /* first op start, last op end */
	uint64_t bytes_sent;
};

/* Where the time of the critical path went: the chain of ops, transactions
 * and reductions that ended last, walked back from the end of the call. Each
 * picosecond of the latency is given to exactly one cause, so they sum to it.
 * The runner computes it as the run goes (each op's start and end carry the
 * causes of the chain behind them), keeping no op's history to the end. */
enum bd_cause {
	BD_OVERHEAD,      /* software (launch) overhead */
	BD_HANDSHAKE,     /* CDMA setup, RTS/CTS, completion flags and responses */
	BD_SERIAL,        /* serialisation and propagation at full link speed */
	BD_QUEUEING,      /* waiting behind other traffic: links, slots, nodes */
	BD_REDUCTION,     /* local reduction and copy work */
	BD_RETRANSMIT,    /* extra time of transfers that needed Go-Back-N replays */
	BD_DEPENDENCY,    /* idle: waiting on a dependency off the critical path */
	BD_NCAUSES
};

const char *bd_cause_name(enum bd_cause c);

struct runner_result {
	sim_time_t latency_ps;  /* start of the call to the end of its last op */
	sim_time_t overhead_ps; /* of which software overhead */
	uint64_t ops;
	GArray *steps;          /* of struct runner_step, by rank then step; owned */
	sim_time_t breakdown[BD_NCAUSES]; /* sums to latency_ps; zero for calls back
					   * to back (runner_run_launches) and with
					   * no_breakdown */
	GArray *spans;          /* of struct runner_op_span, if asked for; owned */
	uint64_t ops_live_peak; /* the most ops' run states alive at once (struct
				 * run_op: an op's from when the run reaches it until
				 * nothing reads it again) */
	uint64_t dormant_bytes; /* the lanes' windows of dormant ops' issue times at
				 * their largest (they only grow): 0 where nothing
				 * reads ops' starts (no steps, spans or breakdown) */
};

/* One op's life, for traces. */
struct runner_op_span {
	int rank;
	uint32_t op, lane, step, kind;
	int peer;               /* send peer, else receive peer, else -1 */
	sim_time_t start_ps, end_ps; /* from the call's start */
	uint64_t bytes;
};

/* Runs `s` for a collective of `bytes` (nccl-tests' size) with elements of
 * `elem_bytes` on `px` (whose sim must be otherwise idle), starting now, for
 * at most max_events events (UINT64_MAX: no limit). Returns false with
 * error set when the schedule cannot run on this fabric (rank count,
 * unmatched sends), when its time passes the end of the clock or when it
 * reaches max_events. res->steps must be freed with runner_result_clear(). */
bool runner_run(struct paxi *px, const struct sched *s, uint64_t bytes, uint32_t elem_bytes,
		sim_time_t overhead_ps, uint64_t max_events, struct runner_result *res,
		GError **error);

/* As runner_run, and also fills res->spans with every op's span. */
bool runner_run_spans(struct paxi *px, const struct sched *s, uint64_t bytes,
		      uint32_t elem_bytes, sim_time_t overhead_ps, uint64_t max_events,
		      struct runner_result *res, GError **error);

/* Calls back to back, as a timer that averages `calls` launches in a row
 * measures them: each rank's next call starts once its previous one has
 * ended and the launch cost has passed again, and not before the host has
 * issued it (one call every issue_ps from the first). The first
 * RUNNER_CALLS_SIMULATED calls are simulated, the rest taken at the pace of
 * the last. */
struct runner_launches {
	uint32_t calls;         /* the calls the timer averages; <= 1: one call alone */
	sim_time_t issue_ps;    /* the host's time to issue one call; 0: no bound */
	bool no_steps;          /* leave res->steps empty: no step table (a 32-byte
				 * row per rank and step, 1 GB for a ring at 4096) */
	bool no_breakdown;      /* leave res->breakdown zero: the critical path is
				 * not walked as the run goes (a walk and a set of
				 * causes per op start, usable time and end) */
};

#define RUNNER_CALLS_SIMULATED 3

/* Whether runner_run keeps issued sends that wait for their CDMA slot, and
 * receives whose sender has none yet, dormant (no state, no transaction):
 * everywhere but where a transaction must exist as soon as an op is
 * issued (an engine's work items, a receive's own setup, a ready flag
 * answering a post at once). Jobs (runner_job_new) never do. */
bool runner_lazy(const struct paxi_params *pp);

/* What a run of s on a paxi of parameters pp, with the options bb (NULL:
 * runner_run's) and spans (runner_run_spans), takes of memory, about,
 * beyond the schedule: for the whole run, per op of each simulated call
 * (`calls` as struct runner_launches counts them) its indices (partners and first
 * dependent in a 12-byte record, and an index per dependent, about one:
 * RUNNER_BYTES_PER_OP; in a schedule of several lanes its place in its
 * lane's list, RUNNER_BYTES_PER_LANE_OP more), counted for rank 0 alone
 * where every rank's ops are rank 0's with the peers turned by the rank
 * (one set of indices serves them all); per op alive at once its state
 * (128 bytes: 64-byte aligned; 48 more with the breakdown; a send that
 * waits only for its completion response, without the breakdown, keeps 16
 * instead, 24 where starts are read), its PAXI
 * transaction (192: 64-byte aligned; 72 more with the breakdown), its
 * causes (72, shared where equal) and its place in its rank's window of
 * live indices: at most RUNNER_BYTES_PER_LIVE_OP. Alive at
 * once: every op without runner_lazy; with it, about RUNNER_LIVE_PER_SLOT x
 * slots per rank and unit at most (measured on rings at 3 at most,
 * tests/sim /sim/runner/live-bounded). With runner_lazy, ops issued
 * dormant keep their issue time (8 bytes, 16 with the breakdown) in a
 * window per lane, where something reads ops' starts (the step table,
 * spans, the breakdown; nothing else does): a ring's all-gather ops wait
 * so from about N steps before their data comes, so a ring's window spans
 * about half its ops, rounded up to a power of two:
 * RUNNER_BYTES_PER_DORMANT_OP per op. Plus the step table (a row per rank
 * and step) unless no_steps. */
#define RUNNER_BYTES_PER_OP 16
#define RUNNER_BYTES_PER_LANE_OP 4
#define RUNNER_BYTES_PER_LIVE_OP 640
#define RUNNER_LIVE_PER_SLOT 4
#define RUNNER_BYTES_PER_DORMANT_OP 8
uint64_t runner_memory_bytes(const struct sched *s, const struct runner_launches *bb, bool spans,
			     const struct paxi_params *pp);

/* Tests: off, the runner indexes every rank on its own even where the
 * ranks are alike (the results are the same; the default is on). */
void runner_share_index(bool on);

/* Tests: off, a send that forwards what it receives makes its transaction
 * as soon as it has its slot, where it otherwise holds the slot with no
 * transaction until its data is about to move (paxi_unit_reserve: flow
 * fidelity, a Transfer, runner_lazy; the results are the same; the
 * default is on). */
void runner_park(bool on);

/* Tests: off, a send whose data has all gone out keeps its run state until
 * its completion response comes back, where it otherwise gives it back
 * meanwhile, its transaction carrying who it is (runner_lazy, without the
 * breakdown; the results are the same; the default is on). */
void runner_rest(bool on);

/* As runner_run, for calls back to back: latency_ps is the mean time of a
 * call; steps are those of the first call (bb->calls <= 1: runner_run). */
bool runner_run_launches(struct paxi *px, const struct sched *s, uint64_t bytes,
			 uint32_t elem_bytes, sim_time_t overhead_ps, uint64_t max_events,
			 const struct runner_launches *bb, struct runner_result *res,
			 GError **error);
void runner_result_clear(struct runner_result *res);

/* A job: one call of schedule s among others on the same PAXI, for a
 * workload (sim/workload.h) whose collectives run concurrently and share the
 * fabric. Schedule rank i runs on fabric node node_of[i] (borrowed, s->nranks
 * distinct nodes); each rank's part starts when runner_job_launch says, and
 * rank_done(user, i) is called once all of rank i's ops are done. The caller
 * runs the sim; the job must outlive it (free it after sim_free). `id`
 * names its component ("runner.jobID"): distinct per job of one sim. NULL with
 * error set when the schedule cannot run (no units, unmatched sends). */
struct runner_job;
struct runner_job *runner_job_new(struct paxi *px, uint64_t id, const struct sched *s,
				  const int *node_of, uint64_t bytes, uint32_t elem_bytes,
				  void (*rank_done)(void *user, int rank), void *user, GError **error);
/* Rank i's part starts delay_ps from now (its launch cost). Once per rank. */
void runner_job_launch(struct runner_job *j, int rank, sim_time_t delay_ps);
/* Its ops not done yet. */
uint64_t runner_job_left(const struct runner_job *j);
void runner_job_free(struct runner_job *j);

#endif
