/* sim/workload_run — a workload (sim/workload.h) run on a platform: every
 * rank's program at once, in one simulation, so that collectives on
 * different streams and groups share the fabric packet by packet (or flow by
 * flow) as any two transfers do.
 *
 * Ops start as their stream and `after` allow. A compute interval takes its
 * time. A collective is a call of its group (the k-th of each member, see
 * workload.h); each member's part starts when that member reaches it, after
 * the platform's launch cost for the mode, and ends when its own ops of the
 * call's schedule are done (the runner's jobs, sim/algos/runner.h), so a
 * member that arrives early waits in the schedule for the data of its peers
 * as a GPU kernel waits for its flags. Algorithm `auto` is the tuning
 * profile's choice for the call's collective, group shape and size, or
 * where it has none the default: ring (AllReduce, AllGather,
 * ReduceScatter), pairwise (AllToAll), chain (Broadcast, Reduce) or direct
 * (P2P); `nccl` is not run in workloads (its channel model applies to one
 * collective alone). docs/workload.md, "Running a workload". */
#ifndef G5_SIM_WORKLOAD_RUN_H
#define G5_SIM_WORKLOAD_RUN_H

#include "sim/platform.h"
#include "sim/workload.h"

struct tune_profile;

struct workload_run_opts {
	const struct platform *plat;
	const struct tune_profile *tune; /* `auto` per call from this profile
					  * (sim/tune.h), or NULL: the defaults */
	uint64_t seed;
	enum run_mode mode;     /* the launch cost of each collective */
	uint64_t max_events;    /* 0: SIMULATE_MAX_EVENTS */
};

/* One op of one rank: when it started and ended. */
struct wl_span {
	int rank;
	uint32_t op;
	int32_t call;            /* a collective's: its call (workload_result.calls); else -1 */
	sim_time_t start_ps, end_ps;
};

/* One call: a collective of one group. */
struct wl_call {
	int comm, group;
	uint32_t k;              /* the group's k-th call */
	const struct wl_op *op;  /* borrowed: the op of the group's first member */
	const char *algo;        /* the algorithm that ran: borrowed from the
				  * workload, the profile or workload_auto_algo */
	uint32_t nchunks;        /* and its nchunks */
	sim_time_t start_ps;     /* the first member's arrival */
	sim_time_t end_ps;       /* the last member's part done */
};

struct wl_rank_stats {
	sim_time_t end_ps;       /* its last op's end */
	sim_time_t compute_ps;   /* time with a compute interval running */
	sim_time_t comm_ps;      /* time with its part of a collective running */
	sim_time_t exposed_ps;   /* communication with no compute beside it */
};

struct workload_result {
	sim_time_t step_ps;      /* the last op's end, any rank */
	GArray *spans;           /* of struct wl_span: every op, by rank, in program order */
	GArray *calls;           /* of struct wl_call, by (communicator, group, k) */
	struct wl_rank_stats *ranks; /* nranks */
	int nranks;
	uint64_t events;
	double wall_s;
};

/* Runs w on o->plat. False with error set when it cannot: more ranks than
 * the platform, an algorithm that does not build for its group, a size
 * that is not whole elements, ops that never finish (a cycle of waits
 * across ranks: the ops are named), the clock's end or the event limit. */
bool workload_run(const struct workload *w, const struct workload_run_opts *o,
		  struct workload_result *res, GError **error);
void workload_result_clear(struct workload_result *res);

/* The algorithm `auto` stands for, for collective c. */
const char *workload_auto_algo(enum coll c);

/* Writes a Chrome/Perfetto trace: a process per rank, a track per stream,
 * every op a slice (collectives named with their size and algorithm).
 * Written to a temporary name and renamed. */
bool workload_trace_write(const struct workload *w, const struct workload_result *res,
			  const char *path, GError **error);

#define WORKLOAD_RUN_ERROR (workload_run_error_quark())
GQuark workload_run_error_quark(void);
enum workload_run_error_code {
	WORKLOAD_RUN_ERROR_RANKS,    /* more ranks than the platform */
	WORKLOAD_RUN_ERROR_OP,       /* an op that cannot run (algorithm, size) */
	WORKLOAD_RUN_ERROR_DEADLOCK, /* ops that never finished */
	WORKLOAD_RUN_ERROR_LIMIT,    /* the clock's end or the event limit */
};

#endif
