/* sim/simulate — one simulated collective, end to end: builds the schedule
 * (or takes a given one), the fabric and PAXI of a platform, runs it, and
 * computes the metrics of docs/design.md ("Sizes and metrics") beside the
 * alpha-beta prediction. The run's software is G5's schedules or NCCL's
 * (algorithm "nccl"): its launch cost for the job's mode and its channels
 * (struct impl_params) come from the platform, and the channels times the
 * protocol's per-channel rate cap each node's injection and ejection. Each call owns its own `struct sim`, so calls may run
 * on parallel threads. */
#ifndef G5_SIM_SIMULATE_H
#define G5_SIM_SIMULATE_H

#include "sim/algos/algo.h"
#include "sim/algos/runner.h"
#include "sim/platform.h"

struct simulate_job {
	const struct platform *plat;
	enum coll coll;
	const char *algo;            /* registry name; ignored when schedule is set */
	const struct sched *schedule; /* borrowed, or NULL to build from algo */
	const struct sched *built;    /* borrowed: algo's schedule as simulate_params()
				      * builds it, made once by a front end that runs
				      * it several times (sizes, the check); NULL: each
				      * run builds its own. Ignored when schedule is set */
	uint64_t bytes;              /* nccl-tests' size */
	uint32_t elem_bytes;         /* 4 fp32, 2 fp16/bf16 */
	struct algo_params params;   /* nranks is taken from the platform */
	uint64_t seed;
	bool trace;                  /* collect op spans and channel occupancy */
	enum run_mode mode;          /* picks the launch cost (platform overhead keys) */
	uint32_t launches;           /* calls back to back that the measured time averages
				      * (a timer's iterations); <= 1: one call alone */
	int proto;                   /* enum paxi_proto of the Transfers, or SIMULATE_PROTO_AUTO */
	uint64_t max_events;         /* 0: SIMULATE_MAX_EVENTS; UINT64_MAX: no limit */
	uint64_t max_memory_bytes;   /* the run's memory beyond its schedule, about
				      * (runner_memory_bytes), and its fabric's
				      * (fabric_memory_bytes), each; 0: the machine's */
	bool no_steps;               /* leave run.steps empty (the per-rank step table
				      * is not made: memory at thousands of ranks) */
	bool no_breakdown;           /* leave run.breakdown zero (the critical path is
				      * not walked: work and state per op) */
	bool inplace;                /* run in place: a schedule that is out-of-place only
				      * first copies each rank's input window aside (one
				      * more launch, then the copy at the reduce rate),
				      * before its ops, as the executor does inside the
				      * timed launch */
};

/* The default limit of a run's events: refused before it runs when its
 * estimate is above, stopped when it reaches it (about a minute of a
 * core at the simulator's usual 8 M events/s). */
#define SIMULATE_MAX_EVENTS 500000000ull

/* The protocol NCCL would pick: the one of least simulated time (algorithm
 * "nccl"; any other algorithm runs Simple). */
#define SIMULATE_PROTO_AUTO (-1)

/* Error domain of simulate (besides the layers' own: ALGO_ERROR, LINK_ERROR,
 * PAXI_ERROR, RUNNER_ERROR pass through). */
#define SIMULATE_ERROR (simulate_error_quark())
GQuark simulate_error_quark(void);
enum simulate_error_code {
	SIMULATE_ERROR_SIZE,  /* not a whole number of elements */
	SIMULATE_ERROR_RANKS, /* schedule and platform disagree on the rank count */
	SIMULATE_ERROR_CLOCK, /* a lower bound of the run's time is past the clock's end */
	SIMULATE_ERROR_EVENTS, /* the run's estimated events are above the limit */
	SIMULATE_ERROR_MEMORY, /* the run's estimated memory is above the machine's */
};

/* A busy interval of a channel (transmissions closer than 1 ns merged). */
struct chan_busy {
	int chan;
	sim_time_t start_ps, end_ps; /* from the call's start */
};

struct simulate_outcome {
	double latency_us, algbw_gbps, busbw_gbps;
	double theory_us;            /* the algorithm's alpha-beta time; NaN for a given
				      * schedule that is not, op for op, the schedule of
				      * the registered algorithm its `algo` line names */
	uint32_t steps;              /* schedule steps */
	uint64_t events;
	double wall_s;
	struct runner_result run;    /* steps table, owned */
	GArray *channels;            /* of struct channel_stats, owned */
	uint64_t rank_forwarded_bytes, payload_bytes; /* flow fidelity:
						  * fabric_rank_forwarded_bytes */
	uint64_t forwarded_largest;  /* ... and its largest message a rank forwards */
	uint64_t switched_bytes;     /* flow fidelity: fabric_switched_bytes */
	struct flow_rr_stats rr;     /* flow fidelity's round-robin sharing */
	struct paxi_stats paxi;
	sim_time_t sim_end_ps;
	GArray *busy;                /* of struct chan_busy, when job->trace; owned */
	enum paxi_proto proto;       /* the protocol that ran (the pick, under auto) */
	uint32_t nchannels;          /* channels of the run; 0: not modelled */
};

/* Writes a Chrome/Perfetto trace of a traced outcome: one track per rank and
 * lane with every op, one per channel with its occupancy. Written to a
 * temporary name and renamed. */
bool simulate_trace_write(const struct simulate_outcome *out, const char *collective,
			  const char *algo, const char *path, GError **error);

/* Applies to *pl (a shallow copy the run owns: only scalars change) what a
 * run of `nchannels` channels of `proto` under impl sees: each node's
 * injection and ejection capped at the channels' wire rate, and with
 * paxi.engine the engine's rate, its latencies and its round (a slice per
 * channel), and, where the engine runs the protocol's latency (impl without
 * channels.latency: NCCL), the protocol's per-call setup (launch_ps) added to
 * pl->overhead_ps. nchannels 0: channels not modelled, only the protocol set. */
void simulate_channels(struct platform *pl, const struct impl_params *impl, enum paxi_proto proto,
		       uint32_t nchannels);

/* The parameters job's schedule is built with: job->params on the
 * platform's rank count. The ranks per node (hierarchical algorithms) are
 * the job's when given (> 0), else the platform's: the one place where
 * that default is resolved. A platform without tiers is one node (its rank
 * count: a hierarchical algorithm runs its intra-node tier only). It asks
 * for a turned schedule (schedule.h), which the runner takes as it is. */
void simulate_params(const struct simulate_job *job, struct algo_params *out);

/* Simulates the job into *out (cleared first; simulate_outcome_clear it).
 * Refused before it runs, SIMULATE_ERROR_CLOCK, when a lower bound of its
 * time is past the end of the clock (SIM_TIME_END): the launch cost plus
 * every byte the ranks send over the whole fabric's capacity (the sum of
 * its channels' rates, or of the nodes' injection rates when lower). A run
 * that still passes the clock while it runs (loss stretches it, or traffic
 * the bound does not see) fails with RUNNER_ERROR_CLOCK. Refused the same
 * way, SIMULATE_ERROR_EVENTS, when an estimate of its events is above the
 * job's limit: 2 per packet of every byte sent (the smallest packet
 * payload), times 1 + p W / (1 - p) under a packet error rate p with a
 * Go-Back-N window W (a loss replays up to a window), and at flow
 * fidelity 2 for each message (a floor: its start and its landing, where a
 * message costs from a few events to about two a slice); stopped with
 * RUNNER_ERROR_EVENTS if it reaches the limit all the same. Refused,
 * SIMULATE_ERROR_MEMORY, when the runner's memory (runner_memory_bytes) is
 * above job->max_memory_bytes, by default the machine's physical memory;
 * and LINK_ERROR_MEMORY, before the fabric is made, when the fabric's
 * (fabric_memory_bytes: a full mesh's N (N - 1) channels, a switch's N^2
 * arbiter inputs at packet fidelity) is. */
bool simulate(const struct simulate_job *job, struct simulate_outcome *out, GError **error);
void simulate_outcome_clear(struct simulate_outcome *out);

/* The refusals of simulate() that need no run, for a front end to make
 * before any output: building the schedule and the fabric, the clock's
 * lower bound (without the launch cost) and the estimate of events. */
bool simulate_check(const struct simulate_job *job, GError **error);

/* The memory a run may take, about: max_memory_bytes, or where 0 the
 * machine's physical memory (0 if unknown: no bound). */
uint64_t simulate_memory_limit(uint64_t max_memory_bytes);

#endif
