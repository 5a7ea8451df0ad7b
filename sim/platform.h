/* sim/platform — what the simulated machine is: the fabric (topology, links,
 * nodes), PAXI and CDMA parameters, software overhead, and the alpha-beta
 * reference of the analytical model, and the software that runs collectives
 * (launch cost per mode, channels; G5's schedules and NCCL). The default is
 * the seed platform of
 * docs/seed-study.md: an 8-rank bidirectional ring of 450 GB/s links, 26 us software
 * overhead per collective, alpha = 2 us, beta = the link bandwidth. */
#ifndef G5_SIM_PLATFORM_H
#define G5_SIM_PLATFORM_H

#include "sim/algos/schedule.h" /* enum coll */
#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "sim/paxi/paxi.h"

/* Error domain of the name parsers below. */
#define PLATFORM_ERROR (platform_error_quark())
GQuark platform_error_quark(void);
enum platform_error_code {
	PLATFORM_ERROR_UNKNOWN, /* an unknown name */
};

/* How the ranks are driven (the executor's and nccl-tests' two modes): one
 * process for all ranks, or one process per rank. */
enum run_mode {
	MODE_SINGLE,
	MODE_MPI,
};
const char *platform_mode_name(enum run_mode m);
bool platform_mode_parse(const char *name, enum run_mode *out);

/* The software that runs a collective on the platform: its launch cost per
 * mode and how many channels (parallel engines: a GPU's thread blocks) it
 * spreads a collective over. A run on `bytes` (nccl-tests' size) uses
 * clamp(bytes / channel_bytes, 1, max_channels) channels; each moves data at
 * most at its protocol's per-channel rate (paxi.protos[].channel_bw), so the
 * channels cap a node's injection and ejection together. */
struct impl_params {
	sim_time_t overhead_ps;      /* per collective, one process for all ranks */
	sim_time_t overhead_mpi_ps;  /* per collective, one process per rank; 0: overhead_ps */
	sim_time_t issue_ps;         /* calls back to back: the host's time to issue one
				      * call, one process for all ranks; 0: no bound */
	sim_time_t issue_mpi_ps;     /* the same, one process per rank; 0: issue_ps */
	sim_time_t issue_task_ps;    /* the host's time for each task of a call beyond
				      * one per GPU, one process for all ranks (NCCL:
				      * algo_nccl_tasks); 0: none */
	sim_time_t issue_task_mpi_ps; /* the same, one process per rank; 0: none (no
				      * fallback: the probe measured none there) */
	uint64_t channel_bytes;      /* bytes of the collective per channel, > 0 */
	uint32_t max_channels;       /* 0: channels not modelled (no cap) */
	uint64_t channel_bw_bytes_per_s; /* what one channel moves; 0: its protocol's rate */
	sim_time_t channel_lat_ps;   /* paxi.engine: a channel's fixed cost per slice
				      * round; 0: its protocol's latency */
	sim_time_t local_lat_ps;     /* the same for local work; 0: as channel_lat_ps */
	uint32_t send_done;          /* paxi.engine: enum paxi_send_done, when an op that
				      * stores to a peer is complete at its source */
	sim_time_t channel_spread_ps; /* paxi.engine: added to both fixed costs per
				      * doubling of the run's channels (a round in
				      * lockstep ends with its slowest channel); 0: none */
	uint32_t flag_poll;          /* paxi.engine: enum impl_flag_poll */
	sim_time_t ready_lat_ps;     /* paxi.engine, handshake ready: what raising a
				      * receive's ready flag costs the engine
				      * (paxi_params.engine_ready_ps); 0: nothing */
};

/* What a flag (a ready flag, a Send/Recv's completion flag, a response)
 * costs the engine that finds it (channels.flag_poll): paxi.ctrl_proc
 * each, or nothing of its own, the poll that finds it being part of every
 * round's fixed cost (the executor's leader scans its ops' flags before
 * each slice: gpu/core/interp.h, gx_find_work). */
enum impl_flag_poll {
	IMPL_FLAG_POLL_CTRL_PROC,
	IMPL_FLAG_POLL_ROUND,
};

struct platform {
	char *name;                  /* owned */
	struct fabric_config fabric; /* fabric.edges, .switches, .ports owned */
	struct paxi_params paxi;
	sim_time_t overhead_ps;      /* software (launch) overhead per collective */
	sim_time_t alpha_ps;         /* alpha-beta: per-step latency */
	uint64_t beta_bytes_per_s;   /* alpha-beta: bandwidth; 0 = the link's */
	sim_time_t overhead_mpi_ps;  /* the same in one process per rank; 0: overhead_ps */
	sim_time_t issue_ps, issue_mpi_ps; /* G5's schedules: see impl_params */
	uint64_t channel_bytes;      /* G5's schedules (the executor): see impl_params */
	uint32_t max_channels;
	uint64_t channel_bw_bytes_per_s;
	sim_time_t channel_lat_ps;
	sim_time_t local_lat_ps;
	uint32_t send_done;          /* enum paxi_send_done (channels.send_done) */
	sim_time_t channel_spread_ps; /* channels.spread */
	uint32_t flag_poll;          /* enum impl_flag_poll (channels.flag_poll) */
	sim_time_t ready_lat_ps;     /* channels.ready_latency */
	struct impl_params nccl;     /* NCCL; a zero overhead falls back to G5's */
};

/* The launch cost and channel rule of G5's own schedules (impl "g5") or of
 * NCCL (impl "nccl"). */
void platform_impl(const struct platform *p, bool nccl, struct impl_params *out);

/* Overhead of a run in mode m under impl. */
sim_time_t platform_overhead(const struct impl_params *impl, enum run_mode m);

/* The host's time to issue one call in mode m under impl (0: no bound). */
sim_time_t platform_issue(const struct impl_params *impl, enum run_mode m);

/* The host's time for the tasks of one call beyond one per GPU in mode m:
 * `tasks[r]` tasks on rank r of n; one process issues every rank's (single:
 * the sum) or its own (mpi: the most of one rank). */
sim_time_t platform_issue_tasks(const struct impl_params *impl, enum run_mode m,
				const uint32_t *tasks, int n);

/* Channels a run of `bytes` uses under impl (0: not modelled). */
uint32_t platform_channels(const struct impl_params *impl, uint64_t bytes);

void platform_init_default(struct platform *p);
void platform_release(struct platform *p);

/* The ranks of one node of a tiered platform (topology.kind tiers:
 * topology.node_ranks, or its default for the rank count), 0 for a flat
 * one. Hierarchical algorithms take it as their default node size. p's
 * shape is admitted (a loaded platform's is). */
int platform_node_ranks(const struct platform *p);

/* Busbw factor of a collective on n ranks (docs/design.md "Sizes and metrics"). */
double platform_busbw_factor(enum coll c, int nranks);

#endif
