/* sim/workload — a training step as G5 reads it: communicators, and per rank
 * a program of compute intervals and collectives on streams.
 *
 * A workload file (YAML, docs/workload.md) names its ranks, its
 * communicators (each a partition of some of the ranks into groups: "dp"
 * of 8 groups of 2, "tp" of 2 groups of 8, or explicit lists) and a program
 * per rank, written once for ranks that run the same (SPMD) or generated
 * from a pattern (data-parallel, FSDP, tensor-parallel, MoE). An op is a
 * compute interval or a collective; it runs on a stream of its rank (ops of
 * one stream in program order, streams concurrently) once the ops it names
 * in `after` are done. A collective runs on the group of its communicator
 * that holds the rank; the k-th collective a rank issues on a group is the
 * same call as the k-th of every other member, so their sequences must
 * agree (collective, size, dtype, root): the reader checks it, since a
 * mismatch would hang the real job.
 *
 * workload_import_torch() reads PyTorch profiler traces (Chrome-trace JSON,
 * one file per rank) into the same structure: record_param_comms events give
 * the collectives (name, element count, dtype, group ranks), the CPU/GPU
 * time between them the compute. */
#ifndef G5_SIM_WORKLOAD_H
#define G5_SIM_WORKLOAD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/ir.h"
#include "sim/core/sim.h"

#define WORKLOAD_SCHEMA_VERSION 1
#define WORKLOAD_MAX_RANKS SCHED_MAX_RANKS
#define WORKLOAD_MAX_OPS (1u << 20)  /* ops over all ranks */
#define WORKLOAD_MAX_STREAMS 16      /* per rank */

enum wl_kind { WL_COMPUTE, WL_COLLECTIVE };

/* A communicator: `ngroups` groups of `group_size` ranks each (groups[g * group_size
 * + i] is member i of group g, in the group's rank order), disjoint. */
struct wl_comm {
	char *name;       /* owned */
	int ngroups, group_size;
	int *members;     /* ngroups x group_size, owned */
	int *group_of;    /* nranks: the group holding rank r, or -1; owned */
};

struct wl_op {
	enum wl_kind kind;
	char *id;         /* owned; unique in its rank's program */
	int stream;       /* index into workload.streams */
	uint32_t *after;  /* indices of earlier ops of the same rank; owned */
	uint32_t nafter;
	/* WL_COMPUTE */
	sim_time_t dur_ps;
	/* WL_COLLECTIVE */
	enum coll coll;
	uint64_t bytes;   /* the collective's size as nccl-tests counts it */
	enum ir_dtype dtype;
	int comm;         /* index into workload.comms */
	int root;         /* Broadcast, Reduce: member index within the group; P2P: the sender's */
	int peer;         /* P2P: the receiver's member index */
	uint32_t nchunks; /* the schedule's, >= 1 */
	char *algo;       /* owned: an algorithm name, or "auto" */
	bool repeated;    /* one of the copies of a `repeat` (its id ends in .K) */
};

struct wl_program {
	struct wl_op *ops; /* owned */
	uint32_t nops;
};

struct workload {
	char *name;        /* owned */
	int nranks;
	struct wl_comm *comms; /* owned */
	int ncomms;
	char **streams;    /* owned, NULL-terminated: stream names, index = id */
	int nstreams;
	struct wl_program *progs; /* nranks, owned */
};

/* Errors are CONFIG_ERROR's (sim/config.h), with its codes and its
 * "FILE:LINE:COL: " messages. */

/* Loads a workload file (errors "FILE:LINE:COL: ..."). Free with
 * workload_free. */
struct workload *workload_load(const char *path, GError **error);
struct workload *workload_parse(const char *path, const char *text, size_t len, GError **error);
void workload_free(struct workload *w);

/* Writes w as a workload file that workload_load reads back to the same
 * workload (one program per rank, communicators as explicit groups). */
bool workload_write(const struct workload *w, const char *path, GError **error);

/* A workload of one collective `op` (its kind, size, dtype, root, peer,
 * algo and nchunks; the rest is ignored) on the group `members` of n ranks
 * among nranks: what `g5 tune` times. */
struct workload *workload_one(int nranks, const int *members, int n, const struct wl_op *op);

/* Totals over the program of rank r: collectives, their bytes, compute time. */
struct wl_totals {
	uint32_t colls, computes;
	uint64_t coll_bytes;
	sim_time_t compute_ps;
};
void workload_totals(const struct workload *w, int r, struct wl_totals *out);

/* Reads PyTorch profiler traces, one per rank (`paths[i]` is any rank's:
 * the trace's distributedInfo.rank says which). Every collective becomes an
 * op on the communicator of its process group (communicators named after
 * the groups' descriptions), compute intervals fill the gaps between the
 * collectives on the rank's main thread; `streams` "compute" and "comm".
 * Errors name the file and, where a trace event is at fault, its line and
 * column. */
struct workload *workload_import_torch(const char *const *paths, int npaths, GError **error);

#endif
