/* gpu/g5x.h — what the executor's units share (private to gpu/g5x*.cu):
 * the check macros, the options, one rank's state (struct grank) and the
 * run's (struct exec), and the functions each unit offers the others.
 *   g5x.cu          the harness: options, devices and memory, the timing
 *                   loop, the sweep, output, main
 *   g5x_kernels.cu  the device side: the interpreter's kernel, the data
 *                   kernels, and their launchers (plan upload, fill, check)
 *   g5x_nccl.cu     NCCL's collectives in the same harness
 *   g5x_ceilings.cu --baseline (copy-engine and SM-store ceilings) and
 *                   --probe (launch cost, flag round trip)
 * A kernel and the code that launches it stay in one unit, so no unit needs
 * relocatable device code. All state is owned by the struct exec of main. */
#ifndef G5_GPU_G5X_H
#define G5_GPU_G5X_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu/comm.h"
#include "gpu/core/gx.h"

#define CUDA_CHECK(call)                                                                   \
	do {                                                                               \
		cudaError_t cuda_rc_ = (call);                                             \
		if (cuda_rc_ != cudaSuccess) {                                             \
			fprintf(stderr, "g5x: %s failed: %s (%s:%d)\n", #call,             \
				cudaGetErrorString(cuda_rc_), __FILE__, __LINE__);         \
			gx_comm_abort(2);                                                  \
		}                                                                          \
	} while (0)

#define NCCL_CHECK(call)                                                                   \
	do {                                                                               \
		ncclResult_t nccl_rc_ = (call);                                            \
		if (nccl_rc_ != ncclSuccess) {                                             \
			fprintf(stderr, "g5x: %s failed: %s (%s:%d)\n", #call,             \
				ncclGetErrorString(nccl_rc_), __FILE__, __LINE__);         \
			gx_comm_abort(2);                                                  \
		}                                                                          \
	} while (0)

/* The interpreter kernel's arguments, one per local rank (g5x_kernels.cu). */
struct dev_args {
	const struct gx_xop *ops;   /* device copies of the rank's plan */
	const uint32_t *deps;
	const struct gx_conn *conns;
	char *const *regions;       /* nranks region pointers valid on this device */
	char *bufs[4];              /* by enum gx_buf */
	uint64_t *done;             /* nops completion counters */
	unsigned long long *error;  /* [0] set on a stall: 1 + op, [1] slice, [2] channel */
	uint64_t slice_elems, slice_bytes, iter, timeout_ns;
	uint32_t nops, nconns, ndeps, nchannels;
	int rank;
	bool copy_plan;             /* ops, conns, deps copied into shared memory */
	bool ll;                    /* slices travel as LL lines */
};

struct opts {
	const char *schedule;
	uint64_t minbytes, maxbytes, factor;
	enum gx_dtype dtype;        /* the one being run */
	enum gx_dtype dtypes[GX_NDTYPES];
	int ndtypes;
	int warmup, iters;
	bool events;        /* --timer events */
	bool host;          /* --timer host: the CPU's time to issue the calls */
	uint32_t channels, threads; /* channels 0: by size (channels_for) */
	uint32_t max_channels;
	uint64_t chan_bytes, slice_bytes, max_slots;
	int wire;                   /* enum gx_wire, or -1: by size (wire_for) */
	uint64_t ll_max;            /* by size: LL up to this many bytes (0: the rule) */
	uint64_t ll_chan_bytes;     /* on the LL wire: bytes per channel (channels_for) */
	bool check, nccl, baseline, executor, probe;
	bool share;                 /* --share-gpus: more ranks than GPUs allowed */
	bool nccl_pad;              /* --nccl-agv pad: NCCL's AllGatherV as a padded
				     * ncclAllGather (else one grouped ncclBroadcast per rank) */
	const char *csv;
	double timeout_s;
};

/* One GPU driven by this process. */
struct grank {
	int rank, dev;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	char *bufA, *bufB, *scratch; /* bufA: input; bufB: output or the in-place buffer */
	char *tmp_in;                /* in-place copy for out-of-place-only schedules = bufA */
	char *region;
	uint64_t region_bytes;
	char **dev_regions;          /* device array of nranks pointers */
	char **peer_regions;         /* host copy */
	uint64_t *done;
	unsigned long long *error, *wrong;
	uint64_t *block_first;
	struct gx_xop *d_ops;
	uint32_t *d_deps;
	struct gx_conn *d_conns;
	struct dev_args args;
	ncclComm_t comm;
	char *pad;                   /* --nccl-agv pad: nranks slots of the largest block */
	uint64_t pad_bytes;          /* its size, grown by nccl_measure */
	size_t smem;
};

struct exec {
	struct opts o;
	struct gx_sched *s;
	int nranks, nlocal, proc, nprocs;
	struct grank *g;             /* nlocal */
	uint64_t iter;               /* next iteration number of the plan */
	FILE *csv;
	uint32_t esize;
	double tol;
	uint32_t range;
	bool shared;                 /* ranks share GPUs (--share-gpus, fewer GPUs) */
};

/* ---- g5x.cu: the harness ---- */

typedef void (*launch_fn)(struct exec *x, void *ctx);

/* Prints "g5x: " and the message, and exits every process with status 1. */
void die(const char *fmt, ...);
/* Seconds of the monotonic clock. */
double wall_s(void);
/* Waits for every local rank's stream. */
void sync_all(struct exec *x);
/* Zeroes flags and counters of every rank; the next iteration is 0. */
void reset_flags(struct exec *x);
/* Microseconds per call of fn, timed as nccl-tests does (g5x.cu). */
double time_launches(struct exec *x, launch_fn fn, void *ctx);

/* ---- g5x_kernels.cu: the device side and its launchers ---- */

/* Uploads plan p and fills each local rank's kernel arguments. */
void load_plan(struct exec *x, const struct gx_plan *p);
/* Points rank g's kernel arguments at its buffers for this placement. */
void set_buffers(struct exec *x, struct grank *g, const struct gx_plan *p, bool inplace,
		 bool copy_in);
/* One collective on every local rank: iteration x->iter of the plan. */
void launch_all(struct exec *x, const struct gx_plan *p, bool copy_in);
/* Dies when a kernel reported a stall. */
void check_stall(struct exec *x);
/* Fresh inputs and poisoned outputs for E elements in this placement. */
void prepare_data(struct exec *x, uint64_t E, bool inplace);
/* Wrong output elements over every rank of every process. */
uint64_t count_wrong(struct exec *x, uint64_t E, bool inplace);

/* ---- g5x_nccl.cu ---- */

/* One NCCL communicator per local rank (x->g[l].comm). */
void setup_nccl(struct exec *x);
void release_nccl(struct exec *x);
/* Whether NCCL's collective takes E elements of this schedule. */
bool nccl_admits(const struct gx_sched *s, uint64_t E);
/* NCCL's collective on E elements in this placement: checked when
 * x->o.check (wrong elements into *wrong), then timed; returns
 * microseconds per collective. */
double nccl_measure(struct exec *x, uint64_t E, bool inplace, long long *wrong);

/* ---- g5x_ceilings.cu ---- */

/* --baseline: copy-engine and SM-store bandwidth between GPUs 0 and 1. */
void baseline(struct exec *x);
/* --probe: the launch cost and the one-way flag latency of 2 ranks. */
void probe(struct exec *x);

#endif
