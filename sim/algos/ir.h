/* sim/algos/ir — the schedule IR's plain-C core, compiled by both builds:
 * the simulator's (through schedule.h) and the CUDA executor's (gpu/core,
 * with nvcc, on hosts without GLib). What the two sides must agree on lives
 * here once, so it cannot drift: the enum values (collectives, op kinds,
 * buffers) and what each op kind uses, the limits, the names the schedule
 * file writes, the chunking rule, the windows each collective prescribes and
 * nccl-tests' bus bandwidth factor. No GLib, no allocation, no I/O.
 *
 * The chunking rule. E elements are split into nblocks blocks, block b
 * holding E / nblocks elements plus one if b < E % nblocks; AllGatherV with
 * weights w (sum W > 0) gives block b floor(E x w_b / W) elements, then the
 * R elements left over one each to the first R blocks of non-zero weight
 * (a zero weight gives an empty block; weights that sum to E give exactly
 * those counts). Each block is split into nchunks pieces by the even rule;
 * unit u is piece u % nchunks of block u / nchunks. An empty unit still
 * signals. */
#ifndef G5_SIM_ALGOS_IR_H
#define G5_SIM_ALGOS_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define IR_HD __host__ __device__
#else
#define IR_HD
#endif

enum coll {
	COLL_ALLREDUCE = 1 << 0,
	COLL_ALLGATHER = 1 << 1,
	COLL_REDUCESCATTER = 1 << 2,
	COLL_ALLTOALL = 1 << 3,
	COLL_BROADCAST = 1 << 4,
	COLL_REDUCE = 1 << 5,
	COLL_P2P = 1 << 6,
	COLL_ALLGATHERV = 1 << 7,
};

enum sched_buf {
	SBUF_NONE = 0,
	SBUF_IN,
	SBUF_OUT,
	SBUF_SCRATCH,
	SBUF_NBUFS
};

/* What an op does. R is the data received from recv_peer, L the local source
 * range (src), D the destination range (dst); all ranges have `count` units.
 *   SEND               send L to send_peer
 *   RECV               D = R
 *   RECV_REDUCE        D = R + L            (L may equal D)
 *   RECV_COPY_SEND     D = R, send R to send_peer
 *   RECV_REDUCE_SEND   send R + L to send_peer (nothing stored)
 *   RECV_REDUCE_COPY   same as RECV_REDUCE
 *   RECV_REDUCE_COPY_SEND  D = R + L, send D to send_peer
 *   COPY               D = L (nothing at all when D and L are the same
 *                      memory, e.g. input and output units in place).
 *                      L and D may hold different element counts (an
 *                      AllGatherV block and a padded slot): the copy moves
 *                      the first min(|L|, |D|) elements of L to the start
 *                      of D and leaves the rest of D alone; only L in
 *                      scratch may be the larger (a copy that would drop
 *                      input or output elements is refused at that size).
 *                      Every other kind needs equal counts.
 *   REDUCE             D = D + L
 *   COPY_SEND          D = L, send L to send_peer (one pass over L; nothing
 *                      stored when D and L are the same memory)
 * RECV_REDUCE_COPY and COPY_SEND exist so that NCCL's kernels map op for op
 * (COPY_SEND is its copySend: a root's or a ring's first step). */
enum sched_op_kind {
	SOP_SEND,
	SOP_RECV,
	SOP_RECV_REDUCE,
	SOP_RECV_COPY_SEND,
	SOP_RECV_REDUCE_SEND,
	SOP_RECV_REDUCE_COPY,
	SOP_RECV_REDUCE_COPY_SEND,
	SOP_COPY,
	SOP_REDUCE,
	SOP_COPY_SEND,
	SOP_NKINDS
};

/* What each op kind uses: a receive, a send, a local source L, a
 * destination D, and whether it adds (R + L, or D + L). */
enum {
	SOPF_RECV = 1 << 0,
	SOPF_SEND = 1 << 1,
	SOPF_SRC = 1 << 2,
	SOPF_DST = 1 << 3,
	SOPF_ADD = 1 << 4,
};

/* Limits that keep nunits and op fields in range, one per key: the
 * registry, both schedule file readers, the platform key table
 * (topology.ranks is LINK_MAX_RANKS, asserted equal) and the flags reject
 * larger values as user errors; the runner relies on them. */
#define SCHED_MAX_RANKS G5_MAX_RANKS
#define SCHED_MAX_NCHUNKS 256
#define SCHED_MAX_LANES 256

/* Each op kind's name and flags, indexed by kind: the one table that the
 * functions below read (a caller that has checked its kind may index it). */
struct ir_op_kind_info {
	const char *name;
	unsigned flags;
};
extern const struct ir_op_kind_info ir_op_kinds[SOP_NKINDS];

/* The flags of op kind k; 0 for a value that is no kind. */
unsigned ir_op_kind_flags(int k);
/* Names as the schedule file writes them ("recv_reduce_send", "in",
 * "allreduce"); "?" for a value that has none. The parsers return false on
 * an unknown name. */
const char *ir_op_kind_name(int k);
bool ir_op_kind_parse(const char *name, enum sched_op_kind *out);
const char *ir_buf_name(int b);
bool ir_buf_parse(const char *name, enum sched_buf *out);
const char *ir_coll_name(enum coll c);
bool ir_coll_parse(const char *name, enum coll *out);

/* Part i of n equal parts of `total`: floor division, the remainder one each
 * to the first parts. */
static inline IR_HD void ir_split(uint64_t total, uint64_t n, uint64_t i, uint64_t *first,
				  uint64_t *count)
{
	uint64_t q = total / n, rem = total % n;

	*first = i * q + (i < rem ? i : rem);
	*count = q + (i < rem ? 1 : 0);
}

/* Block b (< nblocks) of `elems` elements by the chunking rule; weights:
 * AllGatherV's nblocks relative counts, or NULL (even). Weights that sum to
 * zero give every block empty (the readers refuse them). */
void ir_block_range(enum coll c, uint32_t nblocks, const uint64_t *weights, uint64_t elems,
		    uint32_t b, uint64_t *first, uint64_t *count);
/* Unit u (< nblocks x nchunks) by the chunking rule. */
void ir_unit_range(enum coll c, uint32_t nblocks, uint32_t nchunks, const uint64_t *weights,
		   uint64_t elems, uint32_t u, uint64_t *first, uint64_t *count);

/* The windows collective c prescribes for rank r, in global units, from
 * nunits, nchunks, root and peer: w = { in_lo, in_hi, out_lo, out_hi }, an
 * empty window being [0, 0).
 *   AllReduce       in all, out all
 *   AllGather(V)    in block r, out all          (nblocks == nranks)
 *   ReduceScatter   in all, out block r          (nblocks == nranks)
 *   AllToAll        in all, out all              (nblocks == nranks)
 *   Broadcast       in all on root only, out all
 *   Reduce          in all, out all on root only
 *   P2P             in all on root only, out all on peer only
 * A block r that does not exist gives an empty block window. */
void ir_windows(enum coll c, uint32_t nunits, uint32_t nchunks, int root, int peer, int r,
		uint32_t w[4]);

/* Element types. One parser for every reader (files, flags, measured logs,
 * the executor's options): "fp32", "float" or "float32"; "fp16", "half" or
 * "float16"; "bf16" or "bfloat16" (G5's names and nccl-tests'). */
enum ir_dtype { IR_DTYPE_FP32, IR_DTYPE_FP16, IR_DTYPE_BF16, IR_NDTYPES };
bool ir_dtype_parse(const char *name, enum ir_dtype *out);
/* Bytes per element: 4, 2, 2; 0 for a value that is no dtype. */
uint32_t ir_dtype_size(int d);

/* nccl-tests' bus bandwidth factor (docs/design.md "Sizes and metrics"):
 * AllReduce 2(n-1)/n; AllGather(V), ReduceScatter, AllToAll (n-1)/n;
 * Broadcast, Reduce, P2P 1. */
double ir_busbw_factor(enum coll c, int nranks);

#ifdef __cplusplus
}
#endif

#endif
