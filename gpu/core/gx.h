/* gpu/core/gx — the executor's plain-C core: a schedule as read from a
 * schedule file, and the plan that turns it into byte ranges, connections
 * and flags for one collective size.
 *
 * The schedule mirrors sim/algos/schedule.h field for field. The executor
 * must not depend on GLib, so its containers are its own, but what both
 * sides must agree on (enum values, op-kind flags, limits, names, the
 * chunking rule, windows, the busbw factor) is sim/algos/ir.[ch], plain C
 * that both builds compile; the GX_ names below are that IR's values. Units
 * follow its chunking rule: E elements in nblocks blocks (floor division,
 * the remainder one each to the first blocks; AllGatherV by its weights),
 * each block in nchunks pieces by the same rule; unit u is piece u %
 * nchunks of block u / nchunks. A range
 * of units is a contiguous range of elements; scratch unit s lies at
 * (s / nunits) x E + first(s % nunits) elements into the scratch buffer.
 *
 * The plan (gx_plan_new) fixes, for one size E, element size, channel count
 * C and slice size S (elements):
 *   - every op's element count n and its source and destination element
 *     offsets in the rank's buffers (in, out, scratch; in place, in and out
 *     are one buffer holding all E elements);
 *   - its slicing: each channel c takes part c of the n elements (floor
 *     division, remainder to the first parts), cut into nslices slices of S
 *     elements, nslices = max(1, ceil(ceil(n / C) / S)) the same on every
 *     channel (a channel's last slices may be empty; an empty slice still
 *     signals);
 *   - connections, one per (sender, receiver, lane) that carries data, with
 *     FIFO matching: the k-th op of the sender that sends on it pairs with
 *     the k-th op of the receiver that receives on it; both must move the
 *     same element count in the same protocol;
 *   - a region of memory per rank holding, per channel, the staging slots of
 *     the connections it receives on (written by the sender), their data
 *     flags (written by the sender), and the credit and ready flags of the
 *     connections it sends on (written by the receiver). All flags are
 *     monotonic 64-bit counters that run on across iterations, so nothing is
 *     reset between launches: iteration `it` uses slice numbers
 *     it x slices + k and message numbers it x msgs + k of each connection.
 *
 * The flag protocol (interp.h) is the same on every backend:
 *   Transfer  the sender waits for a free slot (credit), writes the slice,
 *             then raises the receiver's data flag to slice + 1, per slice.
 *   Send/Recv the receiving op, once started, raises the sender's ready flag
 *             to message + 1; the sender waits for it, writes every slice of
 *             the message, then raises the data (done) flag once, so the
 *             data is usable only after completion.
 *   The receiver waits until the data flag passes the slice, uses it, and
 *   raises the sender's credit flag to slice + 1 (the slot is free again). */
#ifndef G5_GPU_CORE_GX_H
#define G5_GPU_CORE_GX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/algos/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define GX_HD __host__ __device__
#else
#define GX_HD
#endif

/* enum coll of the IR. */
enum gx_coll {
	GX_COLL_ALLREDUCE = COLL_ALLREDUCE,
	GX_COLL_ALLGATHER = COLL_ALLGATHER,
	GX_COLL_REDUCESCATTER = COLL_REDUCESCATTER,
	GX_COLL_ALLTOALL = COLL_ALLTOALL,
	GX_COLL_BROADCAST = COLL_BROADCAST,
	GX_COLL_REDUCE = COLL_REDUCE,
	GX_COLL_P2P = COLL_P2P,
	GX_COLL_ALLGATHERV = COLL_ALLGATHERV,
};

/* enum sched_op_kind of the IR: R received, L local source
 * (src), D destination (dst).
 *   SEND L | RECV D=R | RECV_REDUCE D=R+L | RECV_COPY_SEND D=R, send R
 *   RECV_REDUCE_SEND send R+L | RECV_REDUCE_COPY D=R+L
 *   RECV_REDUCE_COPY_SEND D=R+L, send D | COPY D=L | REDUCE D=D+L
 *   COPY_SEND D=L, send L */
enum gx_kind {
	GX_OP_SEND = SOP_SEND,
	GX_OP_RECV = SOP_RECV,
	GX_OP_RECV_REDUCE = SOP_RECV_REDUCE,
	GX_OP_RECV_COPY_SEND = SOP_RECV_COPY_SEND,
	GX_OP_RECV_REDUCE_SEND = SOP_RECV_REDUCE_SEND,
	GX_OP_RECV_REDUCE_COPY = SOP_RECV_REDUCE_COPY,
	GX_OP_RECV_REDUCE_COPY_SEND = SOP_RECV_REDUCE_COPY_SEND,
	GX_OP_COPY = SOP_COPY,
	GX_OP_REDUCE = SOP_REDUCE,
	GX_OP_COPY_SEND = SOP_COPY_SEND,
	GX_OP_NKINDS = SOP_NKINDS
};

/* What an op uses (SOPF_* of the IR). */
enum {
	GX_F_RECV = SOPF_RECV,
	GX_F_SEND = SOPF_SEND,
	GX_F_SRC = SOPF_SRC,
	GX_F_DST = SOPF_DST,
	GX_F_ADD = SOPF_ADD,
};

enum gx_buf {
	GX_BUF_NONE = SBUF_NONE,
	GX_BUF_IN = SBUF_IN,
	GX_BUF_OUT = SBUF_OUT,
	GX_BUF_SCRATCH = SBUF_SCRATCH
};
enum gx_proto { GX_TRANSFER = 0, GX_SENDRECV = 1 };
/* How a slice travels (the simulator's protocol names, sim/paxi/paxi.h):
 *   simple  the slice's data as it is, then the data flag (a release);
 *   ll      lines of 16 bytes, 8 of data and two 4-byte copies of the
 *           slice's flag, each line one store: the receiver polls the data
 *           itself, no flag follows it and no release waits for it; twice
 *           the bytes on the wire. */
enum gx_wire { GX_WIRE_SIMPLE = 0, GX_WIRE_LL = 1, GX_NWIRES };
#define GX_LL_DATA 8   /* data bytes per LL line */
#define GX_LL_LINE 16  /* bytes per LL line */
enum gx_dtype {
	GX_F32 = IR_DTYPE_FP32,
	GX_F16 = IR_DTYPE_FP16,
	GX_BF16 = IR_DTYPE_BF16,
	GX_NDTYPES = IR_NDTYPES
};

#define GX_MAX_RANKS SCHED_MAX_RANKS
#define GX_MAX_NCHUNKS SCHED_MAX_NCHUNKS
#define GX_MAX_LANES SCHED_MAX_LANES

struct gx_op {
	uint8_t kind;      /* enum gx_kind */
	uint8_t proto;     /* enum gx_proto of the transfer it sends or receives */
	uint8_t lane;
	uint8_t src_buf;   /* enum gx_buf */
	uint8_t dst_buf;
	int32_t recv_peer; /* -1: receives nothing */
	int32_t send_peer; /* -1: sends nothing */
	uint32_t src_off;  /* global units */
	uint32_t dst_off;
	uint32_t count;    /* units, >= 1 */
	uint32_t step;
	uint32_t dep_first; /* into gx_rank.deps */
	uint32_t ndeps;
};

struct gx_rank {
	struct gx_op *ops; /* nops, owned */
	uint32_t nops, ops_cap;
	uint32_t *deps;    /* ndeps, owned: indices of earlier ops of this rank */
	uint32_t ndeps, deps_cap;
	uint32_t in_lo, in_hi;   /* windows, global units; [0, 0) is empty */
	uint32_t out_lo, out_hi;
};

struct gx_sched {
	enum gx_coll coll;
	char *algo;          /* owned */
	int nranks;
	int root;
	int peer;            /* P2P destination, else -1 */
	uint32_t nblocks, nchunks, nunits; /* nunits = nblocks x nchunks */
	uint32_t scratch_units;
	uint32_t nsteps, nlanes;
	bool inplace_ok;
	uint64_t *weights;   /* AllGatherV: nblocks relative counts, owned; else NULL */
	struct gx_rank *ranks; /* nranks, owned */
};

/* ---- sched.c: the schedule in memory, names, the chunking rule. ---- */

/* A schedule with no ops; windows set by gx_sched_set_windows(). */
struct gx_sched *gx_sched_new(enum gx_coll coll, const char *algo, int nranks, uint32_t nblocks,
			      uint32_t nchunks);
void gx_sched_free(struct gx_sched *s);
/* Appends op (its dep_first/ndeps ignored) with deps to rank r; returns its index. */
uint32_t gx_sched_add(struct gx_sched *s, int r, const struct gx_op *op, const uint32_t *deps,
		      uint32_t ndeps);
/* The windows each collective prescribes (as sched_expected_windows). */
void gx_sched_set_windows(struct gx_sched *s);

unsigned gx_kind_flags(enum gx_kind k);
const char *gx_kind_name(enum gx_kind k);
bool gx_kind_parse(const char *name, enum gx_kind *out);
const char *gx_coll_name(enum gx_coll c);
bool gx_coll_parse(const char *name, enum gx_coll *out);
const char *gx_buf_name(enum gx_buf b);
bool gx_buf_parse(const char *name, enum gx_buf *out);
const char *gx_proto_name(enum gx_proto p);
bool gx_proto_parse(const char *name, enum gx_proto *out);
const char *gx_wire_name(enum gx_wire w);  /* "simple", "ll" */
bool gx_wire_parse(const char *name, enum gx_wire *out);
const char *gx_dtype_name(enum gx_dtype d);  /* nccl-tests' names: float, half, bfloat16 */
bool gx_dtype_parse(const char *name, enum gx_dtype *out);
uint32_t gx_dtype_size(enum gx_dtype d);

/* First element of unit u (0 <= u <= nunits; u == nunits gives E). */
uint64_t gx_unit_first(const struct gx_sched *s, uint64_t elems, uint32_t u);
/* First element of block b (0 <= b <= nblocks). */
uint64_t gx_block_first(const struct gx_sched *s, uint64_t elems, uint32_t b);

/* nccl-tests' bus bandwidth factor of the collective on n ranks. */
double gx_busbw_factor(enum gx_coll c, int nranks);

/* ---- parse.c: the schedule file (docs/schedule-format.md). ---- */

/* Reads a schedule file. Returns NULL and writes "FILE:LINE: message" into
 * err (errlen bytes) when the file is missing or damaged. */
struct gx_sched *gx_sched_read(const char *path, char *err, size_t errlen);
/* The same from a string; `name` is the FILE of messages. */
struct gx_sched *gx_sched_parse(const char *text, size_t len, const char *name, char *err,
				size_t errlen);

/* ---- plan.c: one size, its connections and its memory layout. ---- */

#define GX_FLAG_STRIDE 128 /* bytes between two flags (one per channel) */

struct gx_conn {
	int32_t sender, receiver;
	uint32_t lane;
	uint8_t proto_any;     /* bit p set: some message uses protocol p */
	uint64_t slices;       /* per iteration and channel */
	uint64_t msgs;         /* per iteration */
	uint64_t slots;        /* staging slots per channel, >= 1 */
	uint64_t stage_off;    /* receiver's region: [C][slots][S elements] */
	uint64_t data_off;     /* receiver's region: [C] flags */
	uint64_t credit_off;   /* sender's region: [C] flags */
	uint64_t ready_off;    /* sender's region: [C] flags */
};

/* An op ready to execute: every address is an element offset or an index. */
struct gx_xop {
	uint8_t kind;          /* enum gx_kind */
	uint8_t flags;         /* GX_F_* */
	uint8_t recv_proto;    /* protocol of the message it receives (the sender's) */
	uint8_t send_proto;
	uint8_t src_buf, dst_buf;
	int32_t in_conn;       /* connection it receives on, -1 */
	int32_t out_conn;      /* connection it sends on, -1 */
	int32_t lane_pred;     /* previous op of its lane, -1 */
	uint32_t dep_first, ndeps;
	uint32_t nslices;
	uint64_t n;            /* elements */
	uint64_t src_elem;     /* element offset in its source buffer */
	uint64_t dst_elem;
	uint64_t recv_base, send_base; /* first slice on the connection, per iteration */
	uint64_t recv_msg, send_msg;   /* message number on the connection, per iteration */
};

struct gx_rank_plan {
	struct gx_xop *ops;    /* nops, owned */
	uint32_t nops;
	const uint32_t *deps;  /* borrowed: the schedule's */
	uint64_t in_elems, out_elems, scratch_elems; /* buffer sizes; in place: in = out = E */
	uint64_t region_bytes; /* the rank's staging and flag region */
};

struct gx_plan {
	const struct gx_sched *s; /* borrowed */
	uint64_t elems;           /* E */
	uint32_t esize;           /* bytes per element */
	uint32_t nchannels;       /* C */
	uint64_t slice_elems;     /* S */
	enum gx_wire wire;        /* how every slice travels */
	uint64_t slot_bytes;      /* a staging slot: S elements, or their LL lines; 16-aligned */
	bool inplace;             /* in and out one buffer (the caller copies when !inplace_ok) */
	struct gx_conn *conns;    /* nconns, owned, sorted by (sender, receiver, lane) */
	uint32_t nconns;
	struct gx_rank_plan *ranks; /* nranks, owned */
};

/* Plans schedule s for E elements of esize bytes on nchannels channels with
 * slices of slice_elems elements and at most max_slots staging slots per
 * connection and channel (0: as many as one iteration needs, so no sender
 * ever waits for a slot within an iteration), every slice travelling by
 * `wire`. `inplace` requires
 * s->inplace_ok. Returns NULL with a message in err on an unmatched send or
 * receive, a size or protocol mismatch, or a range outside its buffer. */
struct gx_plan *gx_plan_new(const struct gx_sched *s, uint64_t elems, uint32_t esize,
			    uint32_t nchannels, uint64_t slice_elems, uint64_t max_slots,
			    enum gx_wire wire, bool inplace, char *err, size_t errlen);
void gx_plan_free(struct gx_plan *p);

/* Part c of n elements over C channels: first and count (the IR's even
 * split). */
static inline GX_HD void gx_split(uint64_t n, uint64_t parts, uint64_t i, uint64_t *first,
				  uint64_t *count)
{
	ir_split(n, parts, i, first, count);
}

/* ---- data.c: inputs, the reference, comparison. ---- */

/* Input element i (global index in the rank's input space) of rank r: an
 * integer in 1..range, rank- and index-dependent, never zero. */
static inline GX_HD uint32_t gx_input_value(int r, uint64_t i, uint32_t range)
{
	uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(r + 1) * 0xC2B2AE3D27D4EB4Full);

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return 1 + (uint32_t)(h % range);
}

/* The input range for a dtype on n ranks: the largest power of two <= 1024
 * such that n x range fits the dtype's exact integers (2^24, 2^11, 2^8), so
 * every partial sum of any reduction order is exact. */
uint32_t gx_input_range(enum gx_dtype d, int nranks);
/* Relative tolerance of the comparison: 0 for float, one unit in the last
 * place for half (2^-10) and bfloat16 (2^-7). */
double gx_tolerance(enum gx_dtype d);

/* What the collective leaves in element i of rank r's output (global
 * index): sets *v and returns true, or returns false when rank r's output
 * does not hold element i. block_first: nblocks + 1 entries. */
static inline GX_HD bool gx_expected(enum gx_coll c, int nranks, int root, int peer, int r,
				     uint64_t i, const uint64_t *block_first, uint32_t nblocks,
				     uint32_t range, double *v)
{
	uint32_t b = 0;
	double sum = 0;

	if (c == GX_COLL_ALLGATHER || c == GX_COLL_ALLGATHERV || c == GX_COLL_REDUCESCATTER ||
	    c == GX_COLL_ALLTOALL) {
		uint32_t lo = 0, hi = nblocks;

		while (hi - lo > 1) { /* last block whose first <= i */
			uint32_t mid = (lo + hi) / 2;

			if (block_first[mid] <= i)
				lo = mid;
			else
				hi = mid;
		}
		b = lo;
		/* skip empty blocks that start at i */
		while (b + 1 < nblocks && block_first[b + 1] <= i)
			b++;
	}
	switch (c) {
	case GX_COLL_ALLREDUCE:
		for (int q = 0; q < nranks; q++)
			sum += gx_input_value(q, i, range);
		*v = sum;
		return true;
	case GX_COLL_ALLGATHER:
	case GX_COLL_ALLGATHERV:
		*v = gx_input_value((int)b, i, range);
		return true;
	case GX_COLL_REDUCESCATTER:
		if ((int)b != r)
			return false;
		for (int q = 0; q < nranks; q++)
			sum += gx_input_value(q, i, range);
		*v = sum;
		return true;
	case GX_COLL_ALLTOALL:
		*v = gx_input_value((int)b, block_first[r] + (i - block_first[b]), range);
		return true;
	case GX_COLL_BROADCAST:
		*v = gx_input_value(root, i, range);
		return true;
	case GX_COLL_REDUCE:
		if (r != root)
			return false;
		for (int q = 0; q < nranks; q++)
			sum += gx_input_value(q, i, range);
		*v = sum;
		return true;
	case GX_COLL_P2P:
		if (r != peer)
			return false;
		*v = gx_input_value(root, i, range);
		return true;
	}
	return false;
}

/* Host conversions (round to nearest even). */
uint16_t gx_f32_to_f16(float f);
float gx_f16_to_f32(uint16_t h);
uint16_t gx_f32_to_bf16(float f);
float gx_bf16_to_f32(uint16_t h);
float gx_load_elem(const void *base, uint64_t i, enum gx_dtype d);
void gx_store_elem(void *base, uint64_t i, enum gx_dtype d, float v);

/* Fills rank r's input buffer (window [first, first + n) of its input
 * space) with gx_input_value. */
void gx_fill_input(void *buf, uint64_t first, uint64_t n, int r, enum gx_dtype d, uint32_t range);
/* Counts the elements of rank r's output (window [first, first + n)) that
 * differ from gx_expected beyond the tolerance. */
uint64_t gx_count_wrong(const void *buf, uint64_t first, uint64_t n, const struct gx_sched *s,
			uint64_t elems, int r, enum gx_dtype d, uint32_t range);

/* ---- host.c: the host backend (one thread per rank, C11 atomics). ---- */

struct gx_host_opts {
	uint32_t nchannels;     /* >= 1 */
	uint64_t slice_elems;   /* >= 1 */
	uint64_t max_slots;     /* 0: unbounded */
	uint32_t iters;         /* iterations run back to back (flags run on), >= 1 */
	enum gx_wire wire;      /* how slices travel (0: simple) */
	double timeout_s;       /* a rank that makes no progress this long fails */
};

/* Runs schedule s for E elements of dtype d on the host, in place or out of
 * place, `iters` times back to back, checking the output after each
 * iteration (inputs are refilled before each). Returns the number of wrong
 * elements over all ranks and iterations, or -1 with a message in err. */
int64_t gx_host_run(const struct gx_sched *s, uint64_t elems, enum gx_dtype d, bool inplace,
		    const struct gx_host_opts *o, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
