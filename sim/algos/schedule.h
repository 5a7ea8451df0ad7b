/* sim/algos/schedule — the schedule IR: what each rank does, op by op.
 *
 * A schedule is, per rank, an ordered list of ops. Each op may receive a range
 * of units from one peer, combine it with local data, store it, and send it on
 * to one peer; pure local ops copy or reduce. The same IR is verified
 * symbolically (verify.c), simulated (runner.c on sim/paxi), written to the
 * schedule file (schedule_file.c, docs/schedule-format.md) and run by the CUDA
 * executor (gpu/).
 *
 * Units and the chunking rule (ir.h, the one definition both builds compile).
 * The collective's data is E elements (nccl-tests' count for the whole
 * buffer, see docs/design.md "Sizes and metrics"). It is split
 * into `nblocks` blocks, block b holding E / nblocks elements plus one if
 * b < E % nblocks (or, for AllGatherV, the per-rank counts scaled to E by the
 * same rule); each block is split into `nchunks` pieces by the same rule. Unit
 * u = block u / nchunks, piece u % nchunks; there are nunits = nblocks x
 * nchunks units, and an empty unit (zero elements) still signals.
 *
 * Buffers are addressed in global units: a buffer of a rank holds the units of
 * its window [lo, hi) (e.g. AllGather's input of rank r is block r); scratch
 * holds `scratch_units` units, scratch unit s having the size of unit
 * s % nunits. In place, input unit u and output unit u are the same memory
 * (nccl's convention: AllGather's input is its block of the output,
 * ReduceScatter's output is its block of the input).
 *
 * Ordering. Ops of one lane are issued in list order; an op starts once every
 * op it depends on (deps: indices of earlier ops of the same rank) is done
 * and, for the data it forwards, per slice as the slice arrives. Sends and
 * receives match in FIFO order per (sender, receiver, lane): the k-th op of A
 * that sends to B on lane l pairs with the k-th op of B that receives from A
 * on lane l. */
#ifndef G5_SIM_ALGOS_SCHEDULE_H
#define G5_SIM_ALGOS_SCHEDULE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/ir.h"   /* enums, flags, limits, chunking rule: shared with gpu/ */
#include "sim/paxi/paxi.h" /* enum paxi_kind */

/* An op, 32 bytes: a ring's rank 0 stores 2 (N - 1) of them. */
struct sched_op {
	uint8_t kind;        /* enum sched_op_kind */
	uint8_t lane;        /* CDMA unit that issues it (lane % units on the platform) */
	uint8_t paxi : 2;    /* enum paxi_kind, for the transfer this op sends or receives */
	uint8_t src_buf : 3; /* enum sched_buf, SBUF_NONE when unused */
	uint8_t dst_buf : 3;
	int16_t recv_peer;   /* -1: receives nothing (ranks < SCHED_MAX_RANKS) */
	int16_t send_peer;   /* -1: sends nothing */
	uint32_t src_off;    /* global units */
	uint32_t dst_off;    /* global units */
	uint32_t count;      /* units, >= 1 */
	uint32_t step;       /* algorithm step, from 0 */
	uint32_t dep_first;  /* deps are rank->deps[dep_first .. dep_first + ndeps) */
	uint32_t ndeps;
};
G_STATIC_ASSERT(sizeof(struct sched_op) == 32);
G_STATIC_ASSERT(SCHED_MAX_RANKS <= INT16_MAX + 1 && SBUF_NBUFS <= 8 && SCHED_MAX_LANES <= 256);

/* A rank's ops, 32 bytes (a turned schedule keeps one per rank). */
struct sched_rank {
	GArray *ops;  /* of struct sched_op, owned */
	GArray *deps; /* of uint32_t: indices of earlier ops of this rank, owned */
	uint32_t in_lo, in_hi;   /* input window, global units */
	uint32_t out_lo, out_hi; /* output window, global units */
};
G_STATIC_ASSERT(sizeof(struct sched_rank) == 32);

struct sched {
	enum coll coll;
	char *algo;            /* owned: the generator's name */
	int nranks;
	int root;              /* broadcast, reduce, p2p source; else 0 */
	int peer;              /* p2p destination; else -1 */
	uint32_t nblocks;
	uint32_t nchunks;
	uint32_t nunits;       /* nblocks x nchunks */
	uint32_t scratch_units;
	uint32_t nsteps;       /* max step + 1 */
	uint32_t nlanes;       /* max lane + 1 */
	bool inplace_ok;       /* correct when input and output alias */
	bool turned;           /* only rank 0's ops are stored: every rank's are
				* them turned by the rank (sched_op_get) */
	uint32_t turn_units;   /* turned: the units an offset moves per rank */
	uint64_t *weights;     /* AllGatherV: nblocks relative counts, owned; else NULL */
	struct sched_rank *ranks; /* nranks, owned */
	GArray *none_ops, *none_deps; /* owned: empty, the arrays of every rank that has
				* stored no op (a turned schedule's but rank
				* 0's), each a reference; its own from its first */
	uint64_t nops;         /* ops added, all ranks */
	uint32_t *added;       /* owned, once more ops were added than stored
				* (sched_over): per rank, its ops added; else NULL
				* (sched_added) */
	uint64_t max_ops;      /* the ops that half the machine's memory holds
				* (SCHED_BYTES_PER_OP each), set by sched_new */
};

/* What a stored op takes of memory, about: its record and a dep's index. */
#define SCHED_BYTES_PER_OP (sizeof(struct sched_op) + sizeof(uint32_t))

/* The machine's physical memory in bytes, 0 when unknown. */
uint64_t sched_machine_memory(void);

struct sched *sched_new(enum coll coll, const char *algo, int nranks, uint32_t nblocks,
			uint32_t nchunks);
void sched_free(struct sched *s);

/* True when more ops were added to s than it stores (max_ops): s is only
 * good for sched_free; algo_build refuses it with its size. */
static inline bool sched_over(const struct sched *s)
{
	return s->nops > s->max_ops;
}

/* The ops added to rank r (sched_add): its ops->len unless the schedule
 * outgrew its bound (sched_over). */
static inline uint32_t sched_added(const struct sched *s, int r)
{
	return s->added ? s->added[r] : s->ranks[r].ops->len;
}

/* Appends an op to rank r with the given deps and returns its index. Past
 * max_ops (a schedule of every rank's ops that grows with the ranks squared,
 * at thousands of ranks) ops are counted, not stored, so that building one
 * too large for memory ends (sched_over) instead of exhausting it. */
uint32_t sched_add(struct sched *s, int r, const struct sched_op *op,
		   const uint32_t *deps, uint32_t ndeps);

/* Makes room on rank r for `nops` more ops and `ndeps` more deps, so that a
 * generator that knows its sizes builds its lists without regrowing them. */
void sched_reserve(struct sched *s, int r, uint32_t nops, uint32_t ndeps);

/* Element range of unit u (u < nunits) for a collective of `elems` elements:
 * first element and count, by the chunking rule above. */
void sched_unit_range(const struct sched *s, uint64_t elems, uint32_t u,
		      uint64_t *first, uint64_t *count);
/* The elements of units 0 .. u - 1 for each u in 0 .. nunits (newly
 * allocated, nunits + 1 entries), for a collective of `elems` elements;
 * sched_units_elems reads it: the elements of units off .. off + count - 1,
 * taken mod nunits, in constant time. */
uint64_t *sched_elems_before(const struct sched *s, uint64_t elems);
uint64_t sched_units_elems(const struct sched *s, const uint64_t *before, uint32_t off,
			   uint32_t count);

const char *coll_name(enum coll c);
/* Parses "allreduce", "allgather", ...; false if unknown. */
bool coll_parse(const char *name, enum coll *out);
const char *sched_op_kind_name(enum sched_op_kind k);

/* Error domain of the schedule file and the verifier (the registry and the
 * generators have ALGO_ERROR). */
#define SCHED_ERROR (sched_error_quark())
GQuark sched_error_quark(void);
enum sched_error_code {
	SCHED_ERROR_PARSE,   /* a damaged schedule file */
	SCHED_ERROR_INVALID, /* a schedule that does not compute its collective */
};

/* ir_op_kind_flags, with the kind asserted valid; inline, as the runner
 * asks it several times per op. */
static inline unsigned sched_op_kind_flags(enum sched_op_kind k)
{
	g_assert((unsigned)k < SOP_NKINDS);
	return ir_op_kinds[k].flags;
}

/* Names as the schedule file writes them ("recv_reduce_send", "in"); the
 * parsers return false on an unknown name (PAXI kinds: paxi_kind_name). */
bool sched_op_kind_parse(const char *name, enum sched_op_kind *out);
const char *sched_buf_name(enum sched_buf b);
bool sched_buf_parse(const char *name, enum sched_buf *out);

/* The windows the collective prescribes for rank r (ir_windows, from coll,
 * nunits, nchunks, root, peer). sched_new sets them with root 0 (and peer 1
 * for P2P); a generator that changes root or peer calls sched_set_windows()
 * again. The verifier rejects a schedule whose windows differ. */
void sched_expected_windows(const struct sched *s, int r, uint32_t w[4]);
void sched_set_windows(struct sched *s);

/* The deps of op i of rank r (ndeps of them). */
const uint32_t *sched_op_deps(const struct sched *s, int r, uint32_t i);
static inline const struct sched_op *sched_op_at(const struct sched *s, int r, uint32_t i)
{
	return &g_array_index(s->ranks[r].ops, struct sched_op, i);
}

/* Turned schedules. Where every rank does what rank 0 does, turned by its
 * rank (a ring: peers r - 1 and r + 1, blocks moved by r), a generator may
 * store rank 0's ops alone (algo_params.turned asks for it): rank r's op i
 * is rank 0's op i with each peer p made (p + r) mod nranks and each offset
 * of a buffer (IN, OUT or SCRATCH) moved r x turn_units units within its
 * copy of nunits units (u - u % nunits + (u % nunits + r x turn_units) mod
 * nunits); its deps are rank 0's. The schedule then takes memory for one
 * rank, not nranks. The runner reads them as they are; the verifier, the
 * schedule file and the rest take every rank's ops stored: sched_expand()
 * stores them. sched_add() on a turned schedule takes rank 0's ops only. */
static inline int sched_turn_peer(const struct sched *s, int r, int peer)
{
	return s->turned && peer >= 0 ? (peer + r) % s->nranks : peer;
}

static inline uint32_t sched_turn_unit(const struct sched *s, int r, uint8_t buf, uint32_t off)
{
	if (!s->turned || buf == SBUF_NONE)
		return off;
	uint32_t n = s->nunits, u = off % n;

	return off - u + (uint32_t)((u + (uint64_t)r * s->turn_units) % n);
}

/* Rank r's op i, turned or stored (dep_first indexes rank 0's deps when
 * turned). */
struct sched_op sched_op_get(const struct sched *s, int r, uint32_t i);
/* Rank r's op count. */
static inline uint32_t sched_rank_len(const struct sched *s, int r)
{
	return s->ranks[s->turned ? 0 : r].ops->len;
}
/* Stores every rank's ops of a turned schedule (sched_equal to the schedule
 * built without turning); a schedule that is not turned stays as it is. */
void sched_expand(struct sched *s);

/* True when a and b describe the same schedule (every field, every op, the
 * same dep list per op; dep_first may differ). */
bool sched_equal(const struct sched *a, const struct sched *b);

/* Data-hazard tracking for generators. sched_add_tracked() appends op like
 * sched_add() with deps = `extra` plus every earlier op of the rank that
 * (with input and output aliased, as in place) last wrote a cell the op
 * reads or writes, or read since then a cell the op writes. A schedule
 * built only with it has every local read-after-write, write-after-read and
 * write-after-write ordered, in place and out of place. */
struct sched_hazards;
struct sched_hazards *sched_hazards_new(const struct sched *s);
void sched_hazards_free(struct sched_hazards *h);
uint32_t sched_add_tracked(struct sched *s, struct sched_hazards *h, int r,
			   const struct sched_op *op, const uint32_t *extra, uint32_t nextra);
/* Tests: off, trackers made from then on keep a cell per unit from the
 * start instead of runs of alike cells first (the deps are the same; the
 * default is on). */
void sched_hazards_runs(bool on);

/* Embedding a schedule in another: a flat collective on a sub-communicator
 * (the ranks of one node, or the same local rank of every node) becomes ops
 * of the host schedule. Sub rank i is host rank ranks[i]; sub data unit d
 * (< sub->nunits) is the `span` host units from units[d]; the sub's input
 * and output are the host buffers buf[SBUF_IN] and buf[SBUF_OUT] (IN, OUT
 * or SCRATCH; a SCRATCH target is host scratch copy copy[b], i.e. host
 * scratch units copy[b] x nunits + host unit); the sub's scratch unit
 * k x sub->nunits + d is host scratch unit (copy[SBUF_SCRATCH] + k) x
 * nunits + units[d], so a scratch unit keeps the size of the data unit it
 * holds. Steps move up by `step`; lanes, kinds, PAXI kinds and peers (mapped)
 * stay. */
struct sched_embedding {
	const int *ranks;          /* sub->nranks host ranks, distinct */
	const uint32_t *units;     /* sub->nunits host units, each the first of `span` */
	uint32_t span;             /* >= 1 */
	uint8_t buf[SBUF_NBUFS];   /* host buffer of the sub's IN and OUT; [SBUF_SCRATCH]
				    * unused (sub scratch stays scratch) */
	uint32_t copy[SBUF_NBUFS]; /* first host scratch copy of each sub buffer that
				    * lands in scratch */
	uint32_t step;             /* added to every step */
};

/* The host scratch copies (of nunits units each) that embedding sub with
 * copy[SBUF_SCRATCH] = 0 uses: ceil(sub->scratch_units / sub->nunits). */
uint32_t sched_embed_scratch_copies(const struct sched *sub);

/* Appends the ops of sub to host s through e, rank by rank in sub order,
 * each through sched_add_tracked (h: s's hazards), so that they also wait
 * for the host ops before them that touch the same cells. An op whose range
 * maps to host units that are not contiguous is cut where they jump, at the
 * same relative places on both sides of each transfer (the map keeps the
 * order of the units), so sends and receives still pair in FIFO order. A
 * copy whose source and destination become the same host cells is left out
 * (a copy-send becomes a send): an op that depended on it depends on its
 * deps. The host's scratch_units must already hold what the embedding
 * uses. */
void sched_embed(struct sched *s, struct sched_hazards *h, const struct sched *sub,
		 const struct sched_embedding *e);

#endif
