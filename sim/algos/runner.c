/* The schedule runner: turns each op of a schedule into PAXI transactions and
 * reductions, and follows their completions until every op is done.
 *
 * Matching is done up front and is an index, not a search: each rank's sends
 * are grouped by (receiver, lane) and its receives by (sender, lane), each
 * group in list order (the schedule's FIFO order), and the k-th receive of a
 * group meets the k-th send of its partner's group (in_from, out_to); the
 * pair is one transaction, made when the send gets its CDMA slot (or, where
 * the runner is not lazy, when the first of the two is issued). Per op the
 * runner keeps how much of its incoming data is usable and how much has been
 * processed (reduced); one reduction per op is in flight at a time, and it
 * takes everything usable when it starts, so slices that arrive while the
 * reducer is busy are batched.
 *
 * Memory: for the whole run, a few indices per op (about 16 bytes: its
 * matching and first dependent, struct op_index, and the dependent lists;
 * the lane lists with several lanes), made once for all ranks where every
 * rank's ops are the first rank's with its peers turned by its rank
 * (ranks_alike: a ring, a pairwise exchange), else per rank; per rank the
 * run-state index of the ops between its oldest not gone and its newest
 * made alive (run_rank.live); an op's run state (struct run_op) and its
 * transaction only while something reads them, from a pool. An op may
 * start once each op it depends on is done, asked of those ops when it
 * reaches the head of its lane or one of them ends (deps_done). An issued
 * send that would wait for its unit's slot, and a receive whose incoming
 * transaction has not begun to take data (or, one that holds its slot with
 * no transaction, whose data is not usable yet: rcv_may_sleep), are
 * dormant: no state at all, only their issue time in their lane's
 * window (struct run_lane) and the runner's queue per unit, which continues
 * the paxi's own (the refill hook) so that grants, times and event order
 * are the same as if every transaction had been made at once. A send whose
 * data has all gone out and that waits only for its completion response
 * rests with no run state either, where nothing else reads it (op_rest):
 * its transaction carries who it is (struct run_rest), and the response
 * makes it alive again to end. The breakdown's critical path is walked
 * forward as ops start and end (bd_walk), so no op's history is kept after
 * its readers are done. Alive at once: a few ops per
 * rank and slot (tests/sim /sim/runner/live-bounded), not the schedule. */
#include "sim/algos/runner.h"
#include "sim/util/pool.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(g5-runner-error-quark, runner_error)

enum { RUN_KICK = 1, RUN_LAUNCH };

/* Where the critical path's time went up to some point: each cause's
 * picoseconds from the call's start (they sum to the point's time less the
 * call's start). */
struct bd_vec {
	sim_time_t c[BD_NCAUSES];
};

/* A point's causes, shared by the points whose walk reaches it with nothing
 * in between (the ops a lane issues at once all start from the same one). */
struct bd_memo {
	struct bd_vec v;
	uint32_t refs;            /* the run states pointing to it */
};

/* Memos per block of the runner's memo pool. */
#define BD_MEMO_BLOCK 1024

/* An op's run state, alive only while something can still read it: from
 * when it is first reached (a dep of it ends, its lane reaches it, or its
 * partner makes their transaction: lazy, a receiver's only once that
 * begins to take data) until it is done and every reader is too: its lane
 * successor has started (its start reads its start), and, where
 * the breakdown is walked, its partners (the sender of its incoming data,
 * the receiver of its outgoing data) are done (their walks read its points).
 * `refs` counts those; at 0 it goes back to the runner's pool, and a
 * transaction goes back to the paxi once both its ops have let go of it
 * (without the breakdown, a receive lets go of its incoming one as soon as
 * its data is all processed: in_left). A dependent's start reads its end only
 * where the breakdown is walked and only at the picosecond it ends
 * (`dreaders`, op_hold): an op that a much later op depends on is not kept
 * for it. A send that waits for nothing but its completion response, read
 * by no one meanwhile, gives it back until the response (op_rest). What
 * only the breakdown's walks read is beside it (struct run_bd). */
struct run_op {
	/* first line: what most events read */
	struct runner *r;
	const struct sched_op *op;    /* borrowed: the schedule owns it */
	struct paxi_txn *in, *out;    /* borrowed: paxi owns them; NULL none */
	uint64_t usable;      /* incoming bytes usable */
	uint64_t processed;   /* incoming bytes reduced or stored */
	uint64_t reducing;    /* upper end of the reduction in flight, 0 none */
	int32_t rank;
	uint8_t kind;             /* op->kind, op->lane: kept here, a line less to read */
	uint8_t lane;
	uint8_t call : 2;         /* which of the back-to-back calls, from 0 */
	bool started : 1, in_all : 1, out_sent : 1, local_done : 1, done : 1;
	bool out_queued : 1;      /* issued, its transaction not made yet: in the runner's queue */
	bool out_parked : 1;      /* issued, its slot held and its transaction not made yet
				   * (op_park): made when first read (out_unpark) */
	bool in_fed : 1;          /* its incoming transaction has begun to take data */
	bool fed_early : 1;       /* some did: its output's supply counts when they have landed
				   * (early_since, early_until hold from then on) */
	bool held : 1;            /* done and read by no one but dependents to start (held) */
	bool in_left : 1;         /* its incoming data all processed, it has let go of their
				   * transaction (in NULL): the breakdown is not walked */
	bool out_fed : 1;         /* its outgoing transaction has begun to take data (out_feeds) */
	union {
		uint64_t local_bytes;   /* COPY / REDUCE work (a COPY_SEND's copy without an engine) */
		struct {
			uint64_t moved, moving; /* engine: a SEND's (or COPY_SEND's) bytes moved, and in flight */
		} send;
	} w;
	sim_time_t t_start, t_end;
	/* its outgoing transaction not made yet, then (early take) made: one
	 * pair or the other */
	union {
		struct {
			uint64_t out_avail;     /* out_queued: bytes supplied so far */
			sim_time_t out_all_ps;  /* out_queued: when all of them were, 0 not yet */
		};
		struct {
			/* fed_early: bytes usable before they landed (on_early),
			 * to process: they land from, and by; until 0 none */
			sim_time_t early_since, early_until;
		};
	};
	uint32_t idx;
	int32_t lane_pred;        /* previous op of this lane, -1 none */
	union {
		uint32_t refs;        /* itself until done, and each reader to come but its
				       * dependents */
		uint32_t next_free;   /* gone (refs 0), in the pool's free list: the next
				       * one + 1, 0 end */
	};
	uint32_t pool_idx;        /* its place in the runner's pool */
} __attribute__((aligned(64)));
G_STATIC_ASSERT(sizeof(struct run_op) == 128);

G_STATIC_ASSERT(offsetof(struct run_op, w) == 64);

/* What only the breakdown's walks read of an op (bd_on): beside its run
 * state, at its pool index in the runner's second pool (op_bd), alive with
 * it. */
struct run_bd {
	/* the critical path's causes from the call's start up to a point of
	 * this op (bd_walk's states), owned references, NULL until reached:
	 * its start, its end, and its incoming transaction's data all usable */
	struct bd_memo *bd_start, *bd_end, *bd_usable;
	sim_time_t t_in_done;     /* incoming data all usable and processed */
	sim_time_t t_reduce;      /* the last reduction batch was issued */
	uint32_t dreaders;        /* dependents to start whose breakdown walks may read
				   * its end: only one starting at its end's picosecond
				   * does, so it is kept no longer (op_hold) */
};

G_STATIC_ASSERT(RUNNER_CALLS_SIMULATED <= 3); /* run_op's call */

static uint64_t in_bytes(const struct run_op *o);
static uint64_t out_bytes(const struct run_op *o);

/* What the runner keeps of an op for the whole run, in one record, as an
 * event that reaches the op reads them together: indices that the schedule
 * fixes, the same for every rank of a schedule whose ranks are alike. */
/* An op held for its dependents (op_hold): its run state, if it still
 * holds this op. */
struct held {
	uint32_t pool_idx, rank, idx;
};

/* A send at rest (op_rest): all its data has gone out, nothing reads its
 * run state until its completion response comes back, and it has none:
 * its outgoing transaction's source user is this record, from which the
 * response makes it alive again to end (on_sent_rest). 16 bytes, 24 where
 * starts are read. */
struct run_rest {
	struct runner *r;
	int32_t rank;
	uint32_t idx;
	sim_time_t t_start[]; /* where starts are read (starts_read): [0] its
			       * start, for the step table and spans; else none */
};

struct op_index {
	uint32_t in_from;     /* the sender's op of its incoming data, NO_OP none */
	uint32_t out_to;      /* the receiver's op of its outgoing data, NO_OP none */
	uint32_t dep_first;   /* its first dependent in dep_ops (the next op's
			       * dep_first ends them) */
};

/* A lane's window of dormant ops (struct run_lane), kept where something
 * reads starts: by lane position, the issue time and (breakdown) the
 * start's causes, for positions lo .. hi - 1 in ring buffers that grow by
 * doubling: none outside is dormant. Ops wake about in the order they
 * slept, so the window spans those asleep at once and those between them. */
struct dorm_win {
	uint32_t lo, hi;
	uint32_t mask;          /* room - 1, room a power of two */
	sim_time_t *t;          /* owned: position p's issue time at [p & mask],
				 * DORM_AWAKE for one not dormant */
	struct bd_memo **bd;    /* owned, breakdown only: position p's start's
				 * causes, an owned reference, else NULL */
};

/* A lane of a rank: where it is, and (lazy) its dormant ops: ops it issued
 * with no run state yet (a send waiting in the runner's queue, or a receive
 * whose transaction has not begun to take data), which nothing else touches
 * until they are made alive, as issued then, when their send gets its slot
 * or their sender's transaction begins to take data (op_live, out_feeds):
 * their count, and where something reads starts their window. */
struct run_lane {
	uint32_t next;          /* the position in its list of the next op to start */
	uint32_t dorm_n;        /* its ops dormant now */
	struct dorm_win *win;   /* owned: made when the first sleeps where starts
				 * are read; else NULL */
};

/* a dormant slot's issue time where its op is not dormant */
#define DORM_AWAKE SIM_TIME_END

/* an issue time per op: what runner_memory_bytes counts for them */
G_STATIC_ASSERT(RUNNER_BYTES_PER_DORMANT_OP == sizeof(sim_time_t));

/* The indices of a rank's ops that the schedule fixes (the runner keeps
 * one for every rank where the ranks are alike, else one per rank). */
struct rank_index {
	struct op_index *ix;  /* owned: per op, and one past the last:
			       * [nops].dep_first is the count of dependents */
	uint32_t *dep_ops;    /* owned: the ops that depend on each op, by op, in
			       * list order */
	uint32_t *lane_first; /* owned, several lanes: per lane, its list's first
			       * index in lane_ops; [nlanes] = nops. NULL: one
			       * lane, whose list is every op, position = index */
	uint32_t *lane_ops;   /* owned, several lanes: op indices by lane, in list
			       * order */
};

/* A rank's window of live indices starts with room for this many ops. */
#define LIVE_ROOM 4

/* What the runner keeps of each rank for the whole run, in one 64-byte
 * line (the runner's ranks are aligned to it): the window of its ops'
 * run-state indices, where its first call is, and its lanes; its ops and
 * their indices are the runner's (rank_sops, struct rank_index), their run
 * state lives only while it is read (struct run_op). */
struct run_rank {
	/* The run-state index of its ops (the pool index + 1, 0 never alive,
	 * OP_GONE done and gone) for ops live_lo .. live_hi - 1, in a ring
	 * buffer that grows by doubling: every op below live_lo has gone, none
	 * from live_hi on has been alive. Ops go about in the order they come
	 * alive, so it spans the ops alive at once and those between them, not
	 * the schedule. */
	uint32_t *live;       /* op i at live[i & live_mask]: live_in, then owned
			       * once it outgrows it */
	uint32_t live_in[LIVE_ROOM];
	uint32_t live_lo, live_hi;
	uint32_t live_mask;   /* room - 1, room a power of two */
	uint32_t per;         /* the schedule's ops of this rank (one call); its
			       * ops: per x the runner's calls */
	uint32_t launched;    /* calls whose kernel has started on this rank */
	uint32_t call_left;   /* its first call's ops not done (the others':
			       * runner.call_left_more) */
	union {
		struct run_lane lane0;  /* a schedule of one lane: its lane */
		struct run_lane *lanes; /* several: owned, per lane */
	};
} __attribute__((aligned(64)));
G_STATIC_ASSERT(sizeof(struct run_rank) == 64);

/* the record and about one dependent's index: what runner_memory_bytes counts */
G_STATIC_ASSERT(sizeof(struct op_index) + sizeof(uint32_t) == RUNNER_BYTES_PER_OP);

/* A FIFO of op indices, kept as runs of consecutive indices (a lane issues
 * its sends in list order, so a unit's queue is most often one run or two,
 * whatever its length): one run in the record itself, more in a ring
 * buffer of runs that grows by doubling. */
struct op_run {
	uint32_t first, n;
};

/* A FIFO's ring buffer of runs. */
struct op_ring {
	uint32_t mask;        /* room - 1, room a power of two */
	struct op_run run[];  /* room of them */
};

struct op_fifo {
	union {
		struct op_run one;    /* !ring: the run, if len (room 1) */
		struct op_ring *ring; /* ring: owned */
	};
	uint32_t head;        /* runs [head ..] */
	uint32_t len : 31;    /* runs held; 0: empty */
	uint32_t in_ring : 1; /* they are in ring, else in one */
};
G_STATIC_ASSERT(sizeof(struct op_fifo) == 16);

/* room - 1 of f's runs */
static uint32_t fifo_mask(const struct op_fifo *f)
{
	return f->in_ring ? f->ring->mask : 0;
}

/* Run k of f's buffer (k taken modulo its room). */
static struct op_run *fifo_at(struct op_fifo *f, uint32_t k)
{
	return f->in_ring ? &f->ring->run[k & f->ring->mask] : &f->one;
}

static void fifo_push(struct op_fifo *f, uint32_t v)
{
	if (f->len) {
		struct op_run *t = fifo_at(f, f->head + f->len - 1);

		if (t->first + t->n == v) {
			t->n++;
			return;
		}
	}
	if (f->len == fifo_mask(f) + 1) {
		uint32_t room = 2 * (fifo_mask(f) + 1);
		struct op_ring *b = g_malloc(sizeof(struct op_ring) + sizeof(struct op_run) * room);

		g_assert(room <= (1u << 31));
		for (uint32_t i = 0; i < f->len; i++)
			b->run[i] = *fifo_at(f, f->head + i);
		b->mask = room - 1;
		if (f->in_ring)
			g_free(f->ring);
		f->ring = b;
		f->in_ring = true;
		f->head = 0;
	}
	*fifo_at(f, f->head + f->len) = (struct op_run){ .first = v, .n = 1 };
	f->len++;
}

static uint32_t fifo_pop(struct op_fifo *f)
{
	g_assert(f->len > 0);
	struct op_run *h = fifo_at(f, f->head);
	uint32_t v = h->first++;

	if (!--h->n) {
		f->head = (f->head + 1) & fifo_mask(f);
		f->len--;
	}
	return v;
}

static void fifo_release(struct op_fifo *f)
{
	if (f->in_ring)
		g_free(f->ring);
}

/* The live index of an op whose run state was made and has gone (it is done). */
#define OP_GONE UINT32_MAX
/* The live index of a send at rest (op_rest): alive, not done, with no run
 * state; its outgoing transaction holds what its end reads (struct run_rest). */
#define OP_REST (UINT32_MAX - 1)

static uint32_t live_get(const struct run_rank *rr, uint32_t i)
{
	return i < rr->live_lo ? OP_GONE : i >= rr->live_hi ? 0 : rr->live[i & rr->live_mask];
}

/* Makes room in rr's window for ops live_lo .. live_lo + need - 1. */
static __attribute__((noinline)) void live_grow(struct run_rank *rr, uint32_t need)
{
	uint32_t room = (rr->live_mask + 1) * 2;

	while (room < need)
		room *= 2;
	uint32_t *v = g_new(uint32_t, room);

	for (uint32_t i = rr->live_lo; i < rr->live_hi; i++)
		v[i & (room - 1)] = rr->live[i & rr->live_mask];
	if (rr->live != rr->live_in)
		g_free(rr->live);
	rr->live = v;
	rr->live_mask = room - 1;
}

/* Sets op i's live index (i not gone); an op that goes at the window's
 * low end moves it past every op gone. */
static void live_set(struct run_rank *rr, uint32_t i, uint32_t l)
{
	g_assert(i >= rr->live_lo);
	if (i >= rr->live_hi) {
		if (i - rr->live_lo > rr->live_mask)
			live_grow(rr, i - rr->live_lo + 1);
		for (; rr->live_hi <= i; rr->live_hi++)
			rr->live[rr->live_hi & rr->live_mask] = 0;
	}
	rr->live[i & rr->live_mask] = l;
	if (l == OP_GONE && i == rr->live_lo)
		while (rr->live_lo < rr->live_hi && rr->live[rr->live_lo & rr->live_mask] == OP_GONE)
			rr->live_lo++;
}

#define NO_OP UINT32_MAX
/* Run states per block of the runner's pool. */
#define RUN_OP_BLOCK 256

struct runner {
	struct sim_component c;
	struct sim *sim;
	struct paxi *px;
	const struct paxi_params *pp; /* borrowed: px's (paxi_get_params) */
	const struct sched *s;
	struct run_rank *ranks;
	const struct sched_op *sops0; /* borrowed: a turned schedule's ops, every
				   * rank's (rank_sops); else NULL */
	const struct sched_op **sops; /* owned, not turned: per rank, its ops
				   * (borrowed: the schedule's); else NULL */
	uint32_t *call_left_more; /* owned, several calls: per rank x call from the
				   * second, its ops on the rank not done; else NULL */
	struct rank_index *index; /* owned: rank 0's alone where the ranks are alike,
				   * else per rank */
	uint32_t nlanes;
	uint64_t elems;       /* elements of the collective */
	uint32_t elem_bytes;
	uint64_t *elems_before; /* owned: per unit u, the elements of the units
				 * before it; [s->nunits]: all of them */
	GPtrArray *pool;      /* owned: blocks of RUN_OP_BLOCK run states */
	GPtrArray *bd_pool;   /* owned, breakdown only: pool's blocks' struct run_bd */
	struct pool memos;    /* of struct bd_memo, BD_MEMO_BLOCK a block */
	struct pool rests;    /* of struct run_rest (and its start where starts are
			       * read), RUN_OP_BLOCK a block */
	uint32_t pool_used;   /* run states taken from the last block */
	uint32_t free_op;     /* pool index + 1 of a handed back run state, 0 none */
	uint64_t ops_live, ops_live_peak; /* run states alive now, and the most at once */
	GArray *held;         /* owned, of struct held: ops held for dependents (op_hold),
			       * in the order they were; those before held_lo are gone */
	guint held_lo;
	bool alike;           /* the ranks are alike (ranks_alike): one set of indices */
	bool lazy;            /* a send that would wait for its unit's slot waits in the
			       * runner's queue, its transaction not made yet */
	struct op_fifo *queues; /* per rank x queued unit: those sends' op indices, in
				 * order */
	uint32_t units;       /* CDMA units per node */
	uint32_t qunits;      /* the units a lane may queue on: lane l's is l % units,
			       * so the first min(nlanes, units) */
	struct paxi_landing *landed; /* owned, where ready flags go out of band (a post
				      * may ride beside a landing, paxi_txn_post_beside):
				      * per rank, the last outgoing transaction whose
				      * landing completed an op (paxi_send_done), zero
				      * none; else NULL */
	guint *span_base;     /* owned, with spans: per rank, its first op's index in
			       * them; else NULL */
	GArray *steps;        /* borrowed: the result's steps, filled as ops end; NULL none */
	GArray *spans;        /* borrowed: the result's spans, filled as ops end; NULL none */
	uint64_t left;        /* ops not done */
	sim_time_t t0, t_end;
	uint32_t calls;       /* back-to-back calls simulated, >= 1 */
	sim_time_t overhead_ps, issue_ps;
	sim_time_t *call_end; /* per call: the end of its last op, any rank */
	const int *node_of;   /* a job's: the fabric node of each schedule rank; NULL: the same */
	void (*rank_done)(void *user, int rank); /* a job's: a rank's ops are all done */
	void *user;
	bool bd_on;           /* the breakdown is walked as the run goes (one call alone) */
	bool starts_read;     /* something reads ops' start times (the step table,
			       * spans, the breakdown): dormant ops keep their issue
			       * time in their lane's window; else only their count */
	bool has_last;        /* an op has ended: last_* are set */
	sim_time_t last_end;  /* the op that ended last (lowest rank and index on ties) */
	int32_t last_rank;
	uint32_t last_idx;
	struct bd_vec bd_last; /* its causes: the call's breakdown */
};

/* The fabric node that schedule rank `rank` runs on. */
static int node(const struct runner *r, int rank)
{
	return r->node_of ? r->node_of[rank] : rank;
}

static void launch_next(struct runner *r, int rank, uint32_t call);

/* Rank's op indices. */
static const struct rank_index *rank_index(const struct runner *r, int rank)
{
	return &r->index[r->alike ? 0 : rank];
}

/* Rank's dependency lists: the schedule's (sched_op.dep_first indexes them). */
static const uint32_t *rank_deps(const struct runner *r, int rank)
{
	return (const uint32_t *)(const void *)r->s->ranks[r->s->turned ? 0 : rank].deps->data;
}

/* Rank's ops: its schedule's, once per call. */
static uint32_t rank_nops(const struct runner *r, int rank)
{
	return r->ranks[rank].per * r->calls;
}

static struct run_lane *rank_lane(const struct runner *r, int rank, uint32_t lane)
{
	struct run_rank *rr = &r->ranks[rank];

	return r->nlanes > 1 ? &rr->lanes[lane] : &rr->lane0;
}

/* The length of a lane's list, and the op at position pos of it. */
static uint32_t lane_len(const struct runner *r, int rank, uint32_t lane)
{
	const uint32_t *first = rank_index(r, rank)->lane_first;

	return first ? first[lane + 1] - first[lane] : rank_nops(r, rank);
}

static uint32_t lane_op(const struct runner *r, int rank, uint32_t lane, uint32_t pos)
{
	const struct rank_index *ri = rank_index(r, rank);

	return ri->lane_first ? ri->lane_ops[ri->lane_first[lane] + pos] : pos;
}

/* What a post on rank may ride beside (paxi_txn_post_beside): its last
 * landing where one is kept, else none. */
static const struct paxi_landing *rank_landed(const struct runner *r, int rank)
{
	static const struct paxi_landing none;

	return r->landed ? &r->landed[rank] : &none;
}

/* The runner's queue of rank's sends on lane's unit. */
static struct op_fifo *lane_queue(const struct runner *r, int rank, uint32_t lane)
{
	return &r->queues[(uint32_t)rank * r->qunits + lane % r->units];
}

/* Op kinds by their flags (sched_op_kind_flags, the one table). */
static bool is_recv(enum sched_op_kind k)
{
	return sched_op_kind_flags(k) & SOPF_RECV;
}

static bool is_send(enum sched_op_kind k)
{
	return sched_op_kind_flags(k) & SOPF_SEND;
}

/* A receive that adds what it receives (not a local reduce). */
static bool is_reducing(enum sched_op_kind k)
{
	unsigned f = sched_op_kind_flags(k);

	return (f & SOPF_RECV) && (f & SOPF_ADD);
}

static void op_try_finish(struct run_op *o);
static void op_unref(struct run_op *o);
static void op_process(struct run_op *o);
static void out_unpark(struct run_op *o);
static void lane_advance(struct runner *r, int rank, uint32_t lane);
static bool deps_done(const struct runner *r, int rank, uint32_t i);
static void bd_at_start(struct run_op *o);
static struct bd_memo *bd_walk_start(struct run_op *o);
static void bd_at_usable(struct run_op *o, struct paxi_txn *t);
static void bd_at_end(struct run_op *o);
static const struct sched_op *sched_op_of(const struct runner *r, int rank, uint32_t i);
static struct run_op *op_live(struct runner *r, int rank, uint32_t i);

/* Op o's incoming data is usable up to `usable` bytes (all: all of it). */
static void op_usable(struct run_op *o, struct paxi_txn *t, uint64_t usable, bool all)
{
	if (o->out_parked)
		out_unpark(o);
	o->usable = usable;
	o->in_all = all;
	if (all && o->fed_early && o->out)
		paxi_txn_supplied_now(o->out);
	if (all)
		bd_at_usable(o, t);
	if (o->started)
		op_process(o);
}

static void on_sent(void *user, struct paxi_txn *t)
{
	struct run_op *o = user;

	o->out_sent = true;
	if (o->done) {
		op_unref(o); /* done when its data landed: the response closes it */
		return;
	}
	op_try_finish(o);
}

static int send_peer(const struct runner *r, int rank, const struct sched_op *op);

/* Flow fidelity: paxi_txn_drain_ps of o's outgoing transaction, made or,
 * parked (out_parked), as its reservation will make it: a parked send's
 * transaction is made only when its data is about to move (out_unpark). */
static sim_time_t out_drain_ps(const struct run_op *o)
{
	struct runner *r = o->r;

	if (o->out)
		return paxi_txn_drain_ps(o->out);
	return paxi_reserved_drain_ps(r->px, node(r, o->rank), o->lane, o->idx,
				      node(r, send_peer(r, o->rank, o->op)));
}

/* op_slack of a send whose output drains in `drain` ps: a reduction takes
 * about as long again as the piece's transit, half. */
static sim_time_t send_slack(bool reducer, sim_time_t drain)
{
	return reducer ? drain / 2 : drain;
}

/* Flow fidelity: how long op o can wait for more of its incoming data
 * without delaying anything. A forwarding op whose outgoing channel is busy
 * sending what is queued on it, or whose outgoing Transfer is still in its
 * setup (paxi_txn_drain_ps), loses nothing until that drains (a reducing
 * one: half of it, as its reduction of a piece takes about as long as the
 * piece's transit); an op that only stores its data needs it whole; a
 * reduction without an output, a staged copy, or an op not started yet take
 * each slice as it lands, and so does every op of a schedule of several
 * lanes (ring2p: how the two directions' slices interleave on the node's
 * memory and reducer sets their pace; coarser pieces there moved ring2p
 * AllReduce at N = 8 by up to 1.7 % against packet fidelity). */
static sim_time_t op_slack(const struct run_op *o)
{
	bool reducer = is_reducing(o->kind) || o->r->pp->staging;

	if (!o->started || o->r->nlanes > 1)
		return 0;
	if (is_send(o->kind)) {
		/* a send still in the runner's queue may not send yet: 0 */
		if (!o->out && !o->out_parked)
			return 0;
		return send_slack(reducer, out_drain_ps(o));
	}
	return reducer ? 0 : SIM_TIME_END;
}

/* Flow fidelity: whether op o takes the rest of its incoming Transfer now,
 * before it lands (paxi_txn_ops.early). A forwarding op may, on one lane,
 * when nothing it sends can get ahead of what it receives: its output's
 * channel is busy sending longer than the next slice takes to land and be
 * reduced, and neither the incoming data nor its reducer is slower than
 * that channel, so every later slice lands and is reduced before the
 * channel reaches it; but not when the data's completion response would
 * leave on that channel, in line behind bytes that have not landed
 * (paxi_txn_resp_joins). Its reductions of those bytes join its output at
 * once, taking the reducer as the slices land (paxi_work_ahead). */
static bool op_early(struct run_op *o, struct paxi_txn *t, double rate, sim_time_t since,
		     sim_time_t until)
{
	struct runner *r = o->r;
	bool reducer = is_reducing(o->kind) || r->pp->staging;

	if (!o->started || r->nlanes > 1 || !is_send(o->kind) || (!o->out && !o->out_parked))
		return false;
	int to = send_peer(r, o->rank, o->op);

	if (o->out ? paxi_txn_resp_joins(t, o->out) : paxi_reserved_resp_joins(t, node(r, o->rank), node(r, to)))
		return false;
	double out_rate = o->out ? paxi_txn_chan_rate(o->out)
				 : paxi_reserved_chan_rate(r->px, node(r, o->rank), node(r, to));
	double work = reducer ? paxi_work_rate_per_ps(r->px, is_reducing(o->kind)) : 0;
	double slice = (double)r->pp->slice_bytes;

	if (out_rate <= 0 || rate < out_rate || (work > 0 && work < out_rate))
		return false;
	sim_time_t slice_work = work > 0 ? (sim_time_t)(slice / work) : 0;

	if ((double)out_drain_ps(o) < slice / rate + (double)slice_work)
		return false;
	o->fed_early = true;
	o->early_since = since;
	o->early_until = until + slice_work;
	return true;
}

/* A receiver whose sender's transaction has begun to take data may stay
 * dormant while it holds its own slot with no transaction (out_parked),
 * until its data is first usable or taken early (rcv_may_sleep): nothing
 * reads its run state before, but its data's slack, which it answers as
 * if it were alive (rcv_dormant). The transaction's callbacks then find
 * no receiver (its destination's user NULL) and reach it through its
 * sender: a run state, or a send at rest's record (src_rest). */
static void txn_receiver(const struct paxi_txn *t, bool src_rest, struct runner **r, int *to,
			 uint32_t *di)
{
	const void *src = paxi_txn_user(t, false);
	int rank;
	uint32_t idx;

	g_assert(src);
	if (src_rest) {
		const struct run_rest *s = src;

		*r = s->r;
		rank = s->rank;
		idx = s->idx;
	} else {
		const struct run_op *o = src;

		*r = o->r;
		rank = o->rank;
		idx = o->idx;
	}
	/* lazy: a rank is its node */
	*to = paxi_txn_landing(t).dst;
	*di = rank_index(*r, rank)->ix[idx].out_to;
}

/* Dormant receiver t's run state as it would be made alive (op_wake):
 * started, its slot held (out_parked), nothing else. */
static void rcv_dormant(const struct paxi_txn *t, bool src_rest, struct run_op *tmp)
{
	struct runner *r;
	int to;
	uint32_t di;

	txn_receiver(t, src_rest, &r, &to, &di);
	g_assert(!live_get(&r->ranks[to], di));
	const struct sched_op *op = sched_op_of(r, to, di);

	*tmp = (struct run_op){
		.r = r, .op = op, .rank = to, .idx = di, .kind = op->kind, .lane = op->lane,
		.started = true, .out_parked = true,
	};
}

/* Dormant receiver t's run state, made alive: it takes t, which has begun to
 * take data (in_fed). */
static struct run_op *rcv_wake(struct paxi_txn *t, bool src_rest)
{
	struct runner *r;
	int to;
	uint32_t di;

	txn_receiver(t, src_rest, &r, &to, &di);
	struct run_op *d = op_live(r, to, di);

	if (!d->in) { /* its sender rests: in_unclaimed does not find it */
		d->in = t;
		paxi_txn_set_dst_user(t, d);
	}
	g_assert(d->in == t && d->out_parked);
	d->in_fed = true;
	return d;
}

static void on_usable(void *user, struct paxi_txn *t, uint64_t usable, bool all)
{
	op_usable(user ? user : rcv_wake(t, false), t, usable, all);
}

static void on_usable_rest(void *user, struct paxi_txn *t, uint64_t usable, bool all)
{
	op_usable(user ? user : rcv_wake(t, true), t, usable, all);
}

static sim_time_t slack_of(void *user, struct paxi_txn *t, bool src_rest)
{
	struct runner *r;
	int to;
	uint32_t di;

	if (user)
		return op_slack(user);
	/* op_slack of it made alive: started, a send on one lane, parked */
	txn_receiver(t, src_rest, &r, &to, &di);
	const struct sched_op *op = sched_op_of(r, to, di);

	return send_slack(is_reducing(op->kind) || r->pp->staging,
			  paxi_reserved_drain_ps(r->px, node(r, to), op->lane, di,
						 node(r, send_peer(r, to, op))));
}

static sim_time_t on_slack(void *user, struct paxi_txn *t)
{
	return slack_of(user, t, false);
}

static sim_time_t on_slack_rest(void *user, struct paxi_txn *t)
{
	return slack_of(user, t, true);
}

static bool early_of(void *user, struct paxi_txn *t, double rate, sim_time_t since,
		     sim_time_t until, bool src_rest)
{
	struct run_op tmp;

	if (user)
		return op_early(user, t, rate, since, until);
	rcv_dormant(t, src_rest, &tmp);
	if (!op_early(&tmp, t, rate, since, until))
		return false;
	struct run_op *o = rcv_wake(t, src_rest);

	o->fed_early = true;
	o->early_since = tmp.early_since;
	o->early_until = tmp.early_until;
	return true;
}

static bool on_early(void *user, struct paxi_txn *t, double rate, sim_time_t since,
		     sim_time_t until)
{
	return early_of(user, t, rate, since, until, false);
}

static bool on_early_rest(void *user, struct paxi_txn *t, double rate, sim_time_t since,
			  sim_time_t until)
{
	return early_of(user, t, rate, since, until, true);
}

static const struct paxi_txn_ops txn_ops = {
	.usable = on_usable, .sent = on_sent, .slack = on_slack, .early = on_early,
};

/* A schedule of several lanes: every op takes each slice as it lands
 * (on_slack), throughout. */
static const struct paxi_txn_ops txn_ops_lanes = {
	.usable = on_usable, .sent = on_sent, .slack = on_slack, .early = on_early,
	.each_slice = true,
};

static void on_sent_rest(void *user, struct paxi_txn *t);

/* The same, for the outgoing transaction of a send at rest (op_rest):
 * its source's user is a struct run_rest. */
static const struct paxi_txn_ops txn_ops_rest = {
	.usable = on_usable_rest, .sent = on_sent_rest, .slack = on_slack_rest,
	.early = on_early_rest,
};

static const struct paxi_txn_ops txn_ops_lanes_rest = {
	.usable = on_usable_rest, .sent = on_sent_rest, .slack = on_slack_rest,
	.early = on_early_rest, .each_slice = true,
};

/* The schedule's ops of rank (one call's). */
static const struct sched_op *rank_sops(const struct runner *r, int rank)
{
	return r->sops ? r->sops[rank] : r->sops0;
}

/* The schedule's op of rank's run op i (calls repeat the rank's list). */
static const struct sched_op *sched_op_of(const struct runner *r, int rank, uint32_t i)
{
	const struct run_rank *rr = &r->ranks[rank];

	return &rank_sops(r, rank)[i < rr->per ? i : i % rr->per];
}

/* Rank's ops of call `call` not done. */
static uint32_t *call_left(const struct runner *r, int rank, uint32_t call)
{
	return call ? &r->call_left_more[(size_t)rank * (r->calls - 1) + call - 1]
		    : &r->ranks[rank].call_left;
}

static struct run_op *pool_at(const struct runner *r, uint32_t idx)
{
	return (struct run_op *)g_ptr_array_index(r->pool, idx / RUN_OP_BLOCK) + idx % RUN_OP_BLOCK;
}

/* What the breakdown reads of alive op o (bd_on). */
static struct run_bd *op_bd(const struct run_op *o)
{
	return (struct run_bd *)g_ptr_array_index(o->r->bd_pool, o->pool_idx / RUN_OP_BLOCK) +
	       o->pool_idx % RUN_OP_BLOCK;
}

/* Op i of rank's run state if it is alive, else NULL. */
static struct run_op *op_get(const struct runner *r, int rank, uint32_t i)
{
	uint32_t l = live_get(&r->ranks[rank], i);

	return l && l != OP_GONE && l != OP_REST ? pool_at(r, l - 1) : NULL;
}

/* Op i's position in its lane's list. */
static uint32_t lane_pos(const struct runner *r, int rank, uint32_t i, uint32_t lane)
{
	uint32_t lo_i = 0, len = lane_len(r, rank, lane), hi = len;

	if (!rank_index(r, rank)->lane_first)
		return i;
	while (lo_i < hi) {
		uint32_t mid = lo_i + (hi - lo_i) / 2;

		if (lane_op(r, rank, lane, mid) < i)
			lo_i = mid + 1;
		else
			hi = mid;
	}
	g_assert(lo_i < len && lane_op(r, rank, lane, lo_i) == i);
	return lo_i;
}

/* The lane of op i if the op is dormant (issued, never made alive), with
 * its position there; else NULL. */
static struct run_lane *dorm_lane(const struct runner *r, int rank, uint32_t i, uint32_t *pos)
{
	uint32_t lane = r->nlanes > 1 ? sched_op_of(r, rank, i)->lane : 0;
	struct run_lane *ln = rank_lane(r, rank, lane);
	const struct dorm_win *w = ln->win;

	if (!ln->dorm_n || live_get(&r->ranks[rank], i))
		return NULL;
	uint32_t p = lane_pos(r, rank, i, lane);

	if (p >= ln->next)
		return NULL;
	/* issued and never alive: asleep (lazy) */
	if (r->starts_read && (p < w->lo || p >= w->hi || w->t[p & w->mask] == DORM_AWAKE))
		g_error("runner: op %u of rank %d issued, never alive, not dormant", i, rank);
	*pos = p;
	return ln;
}

/* When dormant op i of rank was issued, where something reads starts
 * (else now stands in for it, as op_wake has it). */
static sim_time_t dorm_issued(const struct runner *r, int rank, uint32_t i)
{
	uint32_t pos;
	const struct run_lane *ln = dorm_lane(r, rank, i, &pos);

	g_assert(ln);
	return r->starts_read ? ln->win->t[pos & ln->win->mask] : sim_now(r->sim);
}

/* Makes room in a dormant window for positions lo .. lo + need - 1. */
static __attribute__((noinline)) void dorm_grow(struct dorm_win *w, uint32_t need, bool bd)
{
	uint32_t room = w->t ? (w->mask + 1) * 2 : 4;

	while (room < need)
		room *= 2;
	sim_time_t *t = g_new(sim_time_t, room);
	struct bd_memo **b = bd ? g_new0(struct bd_memo *, room) : NULL;

	for (uint32_t p = w->lo; p < w->hi; p++) {
		t[p & (room - 1)] = w->t[p & w->mask];
		if (b)
			b[p & (room - 1)] = w->bd[p & w->mask];
	}
	g_free(w->t);
	g_free(w->bd);
	w->t = t;
	w->bd = b;
	w->mask = room - 1;
}

/* Position pos of the lane sleeps, where starts are read (else only its
 * count, dorm_n), issued at t (with the breakdown, bd_on, its causes bd, an
 * owned reference): after every position slept. */
static void dorm_push(struct run_lane *ln, uint32_t pos, sim_time_t t, bool bd_on, struct bd_memo *bd)
{
	struct dorm_win *w = ln->win ? ln->win : (ln->win = g_new0(struct dorm_win, 1));

	if (!ln->dorm_n)
		w->lo = w->hi = pos;
	g_assert(pos >= w->hi);
	if (!w->t || pos - w->lo > w->mask)
		dorm_grow(w, pos - w->lo + 1, bd_on);
	for (; w->hi < pos; w->hi++) {
		w->t[w->hi & w->mask] = DORM_AWAKE;
		if (w->bd)
			w->bd[w->hi & w->mask] = NULL;
	}
	w->t[pos & w->mask] = t;
	if (w->bd)
		w->bd[pos & w->mask] = bd;
	w->hi = pos + 1;
	ln->dorm_n++;
}

static uint64_t units_bytes(const struct sched *s, uint64_t elems, uint32_t elem_bytes,
			    uint32_t off, uint32_t count);

/* The bytes of units off .. off + count - 1 (mod the schedule's units) of
 * the run's collective: units_bytes from the run's table. */
static uint64_t run_units_bytes(const struct runner *r, uint32_t off, uint32_t count)
{
	return sched_units_elems(r->s, r->elems_before, off, count) * r->elem_bytes;
}
static bool op_local_pass(const struct run_op *o);

static void memo_unref(struct runner *r, struct bd_memo *m);
static bool op_local_kind(const struct runner *r, enum sched_op_kind k);

/* A dormant op (position pos of lane ln) comes alive as it was issued:
 * started then, its send (if any) in the runner's queue with what it had
 * supplied by then. */
static void op_wake(struct run_op *o, struct run_lane *ln, uint32_t pos)
{
	struct dorm_win *w = ln->win;
	enum sched_op_kind k = o->kind;
	uint32_t slot = w ? pos & w->mask : 0;

	o->started = true;
	/* without a reader of starts, its issue time was not kept: now
	 * stands in for it (only the readers and the paxi's record of the
	 * transaction's times read it, never its timing) */
	o->t_start = o->r->starts_read ? w->t[slot] : sim_now(o->r->sim);
	if (w && w->bd) {
		op_bd(o)->bd_start = w->bd[slot]; /* its reference */
		w->bd[slot] = NULL;
	}
	if (pos + 1 < lane_len(o->r, o->rank, o->lane) && ln->next <= pos + 1)
		o->refs++; /* its lane successor's start reads its start */
	if (is_send(k) && paxi_unit_reserved(o->r->px, node(o->r, o->rank), o->lane, o->idx)) {
		o->out_parked = true;
	} else if (is_send(k)) {
		o->out_queued = true;
		if (k == SOP_SEND || k == SOP_COPY_SEND || (out_bytes(o) == 0 && in_bytes(o) == 0)) {
			o->out_avail = out_bytes(o);
			o->out_all_ps = o->t_start;
		}
	}
	g_assert(ln->dorm_n > 0);
	ln->dorm_n--;
	if (!o->r->starts_read)
		return;
	w->t[slot] = DORM_AWAKE;
	while (w->lo < w->hi && w->t[w->lo & w->mask] == DORM_AWAKE)
		w->lo++;
}

static struct paxi_txn *in_unclaimed(const struct runner *r, int rank, uint32_t i);

/* A run state from the runner's pool: its pool index. */
static uint32_t op_take(struct runner *r)
{
	uint32_t idx;

	if (r->free_op) {
		idx = r->free_op - 1;
		r->free_op = pool_at(r, idx)->next_free;
		return idx;
	}
	if (!r->pool->len || r->pool_used == RUN_OP_BLOCK) {
		void *mem;

		if (posix_memalign(&mem, 64, sizeof(struct run_op) * RUN_OP_BLOCK))
			g_error("runner: out of memory for %d run states", RUN_OP_BLOCK);
		g_ptr_array_add(r->pool, mem);
		if (r->bd_on)
			g_ptr_array_add(r->bd_pool, g_new(struct run_bd, RUN_OP_BLOCK));
		r->pool_used = 0;
	}
	return (r->pool->len - 1) * RUN_OP_BLOCK + r->pool_used++;
}

/* Op i of rank's run state, made alive if it is not: from the pool, with a
 * reference for itself and one for each reader to come; a receive takes
 * its incoming transaction if its sender has made it (in_unclaimed). */
static struct run_op *op_live(struct runner *r, int rank, uint32_t i)
{
	struct run_rank *rr = &r->ranks[rank];
	struct run_op *o = op_get(r, rank, i);
	uint32_t idx;

	if (o)
		return o;
	g_assert(live_get(rr, i) != OP_GONE && live_get(rr, i) != OP_REST);
	uint32_t dpos = 0;
	struct run_lane *sleeping = r->lazy ? dorm_lane(r, rank, i, &dpos) : NULL;

	idx = op_take(r);
	o = pool_at(r, idx);
	const struct sched_op *op = sched_op_of(r, rank, i);

	*o = (struct run_op){
		.r = r, .op = op, .rank = rank, .idx = i, .call = (uint8_t)(i / rr->per),
		.kind = op->kind, .lane = op->lane, .lane_pred = -1, .pool_idx = idx,
		/* itself and, where the breakdown is walked, its partners; its
		 * dependents ask only whether it is done (a gone op is), and
		 * their breakdown walks read its end */
		.refs = 1 + (r->bd_on ? is_send(op->kind) + is_recv(op->kind) : 0),
	};
	if (r->bd_on)
		*op_bd(o) = (struct run_bd){
			.dreaders = rank_index(r, rank)->ix[i + 1].dep_first -
				    rank_index(r, rank)->ix[i].dep_first,
		};
	/* w is a send's engine progress otherwise. A COPY moves the smaller of
	 * its source's and its destination's bytes (ir.h), which differ only
	 * where a schedule copies between units of different blocks
	 * (AllGatherV's pad). */
	if (op_local_pass(o))
		o->w.local_bytes = op->kind == SOP_COPY
			? MIN(run_units_bytes(r, sched_turn_unit(r->s, rank, op->src_buf, op->src_off), op->count),
			      run_units_bytes(r, sched_turn_unit(r->s, rank, op->dst_buf, op->dst_off), op->count))
			: run_units_bytes(r, sched_turn_unit(r->s, rank, op->src_buf, op->src_off), op->count);
	if (r->lazy && is_recv(op->kind)) {
		/* its sender's transaction, if made, waited for it (make_out) */
		o->in = in_unclaimed(r, rank, i);
		if (o->in)
			paxi_txn_set_dst_user(o->in, o);
	}
	live_set(rr, i, idx + 1);
	if (++r->ops_live > r->ops_live_peak)
		r->ops_live_peak = r->ops_live;
	if (sleeping)
		op_wake(o, sleeping, dpos);
	return o;
}

static void memo_unref(struct runner *r, struct bd_memo *m)
{
	if (!m || --m->refs)
		return;
	pool_give(&r->memos, m);
}

static struct bd_memo *memo_new(struct runner *r)
{
	struct bd_memo *m = pool_take(&r->memos);

	m->refs = 1;
	return m;
}

/* Drops one reference to o; the last hands o back to the pool, and each of
 * its transactions to the paxi once its other op has gone too. */
static void op_free(struct run_op *o);
static void op_hold(struct run_op *o);

static void op_unref(struct run_op *o)
{
	g_assert(o->refs > 0);
	if (--o->refs)
		return;
	g_assert(o->done);
	if (o->r->bd_on && op_bd(o)->dreaders && o->t_end == sim_now(o->r->sim))
		op_hold(o);
	else
		op_free(o);
}

/* A dependent of o has started: its walk has read o (op_release_readers). */
static void op_dep_read(struct run_op *o)
{
	struct run_bd *b = op_bd(o);

	g_assert(b->dreaders > 0);
	if (--b->dreaders || o->refs)
		return;
	o->held = false;
	op_free(o);
}

/* o is done and read by nothing but dependents still to start: a walk of
 * one reads its end only if that dependent starts at the same picosecond
 * (the dep that ended last, at its start), so o is kept in the runner's
 * held list until time moves on (op_purge). */
static void op_hold(struct run_op *o)
{
	struct runner *r = o->r;
	struct held h = { o->pool_idx, (uint32_t)o->rank, o->idx };

	o->held = true;
	g_array_append_val(r->held, h);
}

/* Frees the held ops whose end is past. */
static void op_purge(struct runner *r)
{
	sim_time_t now = sim_now(r->sim);

	while (r->held_lo < r->held->len) {
		const struct held *h = &g_array_index(r->held, struct held, r->held_lo);
		struct run_op *o = pool_at(r, h->pool_idx);

		if (o->held && o->rank == (int32_t)h->rank && o->idx == h->idx) {
			if (o->t_end >= now)
				break;
			o->held = false;
			op_bd(o)->dreaders = 0;
			op_free(o);
		}
		r->held_lo++;
	}
	/* the list keeps only what is still held, or may be */
	if (r->held_lo && r->held_lo * 2 >= r->held->len) {
		g_array_remove_range(r->held, 0, r->held_lo);
		r->held_lo = 0;
	}
}

/* An op lets go of its transaction t, incoming (dst) or outgoing: to the
 * paxi once the op at its other end has let go too. */
static void txn_let_go(struct paxi_txn *t, bool dst)
{
	if (!paxi_txn_user(t, !dst))
		paxi_txn_free(t);
	else if (dst)
		paxi_txn_set_dst_user(t, NULL);
	else
		paxi_txn_set_src_user(t, NULL);
}

/* Hands o's run state back to the pool, op o's live index becoming `live`
 * (OP_GONE, OP_REST). */
static void op_give(struct run_op *o, uint32_t live)
{
	struct runner *r = o->r;

	live_set(&r->ranks[o->rank], o->idx, live);
	r->ops_live--;
	o->next_free = r->free_op;
	r->free_op = o->pool_idx + 1;
}

/* Hands o back to the pool, and each of its transactions to the paxi once
 * its other op has gone too. */
static void op_free(struct run_op *o)
{
	struct runner *r = o->r;

	if (o->in)
		txn_let_go(o->in, true);
	if (o->out)
		txn_let_go(o->out, false);
	if (r->bd_on) { /* else no op has causes */
		struct run_bd *b = op_bd(o);

		memo_unref(r, b->bd_start);
		memo_unref(r, b->bd_usable);
		memo_unref(r, b->bd_end);
	}
	op_give(o, OP_GONE);
}

static const struct paxi_txn_ops *txn_ops_of(const struct runner *r);

static bool park = true; /* runner_park */
static bool rest = true; /* runner_rest */

void runner_park(bool on)
{
	park = on;
}

void runner_rest(bool on)
{
	rest = on;
}

/* o, a send, waits for nothing but its completion response: its data has
 * all been supplied (its incoming data all processed and let go, its
 * local work done) and handed to its transaction. Where nothing else
 * reads its run state until then (no breakdown's walk, its lane successor
 * has started: refs 1), it rests: its run state goes back to the pool and
 * its transaction carries who it is (struct run_rest) until the response
 * comes back (on_sent_rest). A no-op otherwise. */
static void op_rest(struct run_op *o)
{
	struct runner *r = o->r;

	if (!rest || r->bd_on || !r->lazy || !is_send(o->kind) || !o->started || o->done || !o->out ||
	    o->out_sent || o->out_parked || o->out_queued || o->refs != 1 || o->in || o->reducing ||
	    (is_recv(o->kind) && (!o->in_left || o->processed != paxi_txn_bytes(o->out))) ||
	    (op_local_pass(o) && !o->local_done))
		return;
	struct run_rest *s = pool_take(&r->rests);

	*s = (struct run_rest){ .r = r, .rank = o->rank, .idx = o->idx };
	if (r->starts_read)
		s->t_start[0] = o->t_start;
	paxi_txn_set_ops(o->out, r->nlanes > 1 ? &txn_ops_lanes_rest : &txn_ops_rest);
	paxi_txn_set_src_user(o->out, s);
	op_give(o, OP_REST);
}

/* The completion response of a send at rest (op_rest) has come back: its
 * run state is made again as it was when it rested (started, its incoming
 * data processed and let go, its local work done), its transaction's again,
 * and it ends (on_sent). */
static void on_sent_rest(void *user, struct paxi_txn *t)
{
	struct run_rest *s = user;
	struct runner *r = s->r;
	struct run_rank *rr = &r->ranks[s->rank];
	const struct sched_op *op = sched_op_of(r, s->rank, s->idx);
	uint32_t idx = op_take(r);
	struct run_op *o = pool_at(r, idx);

	g_assert(live_get(rr, s->idx) == OP_REST);
	*o = (struct run_op){
		.r = r, .op = op, .out = t, .rank = s->rank, .idx = s->idx,
		.call = (uint8_t)(s->idx / rr->per), .kind = op->kind, .lane = op->lane,
		.started = true, .local_done = true, .in_left = is_recv(op->kind),
		.t_start = r->starts_read ? s->t_start[0] : 0, /* else nothing reads it */
		.lane_pred = -1, .pool_idx = idx, .refs = 1,
	};
	pool_give(&r->rests, s);
	paxi_txn_set_ops(t, txn_ops_of(r));
	paxi_txn_set_src_user(t, o);
	live_set(rr, o->idx, idx + 1);
	if (++r->ops_live > r->ops_live_peak)
		r->ops_live_peak = r->ops_live;
	on_sent(o, t);
}

/* The bytes of the transaction of rank's send op. */
static uint64_t send_bytes(const struct runner *r, int rank, const struct sched_op *op)
{
	uint32_t sb = op->dst_buf != SBUF_NONE ? sched_turn_unit(r->s, rank, op->dst_buf, op->dst_off)
					       : sched_turn_unit(r->s, rank, op->src_buf, op->src_off);

	return run_units_bytes(r, sb, op->count);
}

/* The peers of rank's op (a turned schedule's ops are rank 0's). */
static int send_peer(const struct runner *r, int rank, const struct sched_op *op)
{
	return sched_turn_peer(r->s, rank, op->send_peer);
}

static int recv_peer(const struct runner *r, int rank, const struct sched_op *op)
{
	return sched_turn_peer(r->s, rank, op->recv_peer);
}

/* The bytes of the op's incoming transaction (made or not), 0 if none. */
static uint64_t in_bytes(const struct run_op *o)
{
	if (o->in)
		return paxi_txn_bytes(o->in);
	if (!is_recv(o->kind))
		return 0;
	int from = recv_peer(o->r, o->rank, o->op);

	return send_bytes(o->r, from, sched_op_of(o->r, from, rank_index(o->r, o->rank)->ix[o->idx].in_from));
}

/* The bytes of the op's outgoing transaction (made or not), 0 if none. */
static uint64_t out_bytes(const struct run_op *o)
{
	return o->out ? paxi_txn_bytes(o->out) : is_send(o->kind) ? send_bytes(o->r, o->rank, o->op) : 0;
}

/* The transaction callbacks of r's ops. */
static const struct paxi_txn_ops *txn_ops_of(const struct runner *r)
{
	return r->nlanes > 1 ? &txn_ops_lanes : &txn_ops;
}

/* Makes o's outgoing transaction. Its receiver's run state comes alive with
 * it, except where the runner is lazy and the transaction has bytes: a
 * receiver with no run state stays so (dormant, or not issued yet) until
 * the transaction begins to take data (out_feeds), as no event reaches the
 * receiver before, and then takes it (in_unclaimed). Lazy, a receiver that
 * has been issued posts now, as of its issue; one not issued yet posts when
 * it is (op_begin, lane_advance). */
static void make_out(struct run_op *o)
{
	struct runner *r = o->r;
	int to = send_peer(r, o->rank, o->op);
	uint32_t di = rank_index(r, o->rank)->ix[o->idx].out_to;
	uint64_t bytes = send_bytes(r, o->rank, o->op);
	struct run_op *d = op_get(r, to, di);
	uint32_t dpos;

	if (!d && (!r->lazy || !bytes))
		d = op_live(r, to, di);
	o->out = paxi_txn_new(r->px, o->op->paxi, node(r, o->rank), node(r, to), o->lane, bytes,
			      txn_ops_of(r), o, d);
	if (d)
		d->in = o->out;
	if (r->lazy && d && d->started)
		paxi_txn_post_at(o->out, d->t_start);
	else if (!d && dorm_lane(r, to, di, &dpos))
		paxi_txn_post_at(o->out, dorm_issued(r, to, di));
}

/* Lazy: the incoming transaction of op i of rank, a receive that has never
 * been alive, if its sender has made it (make_out): the sender's outgoing
 * one, which has no receiver yet; else NULL. (The sender lives until its
 * data has landed, which the receiver takes, alive.) */
static struct paxi_txn *in_unclaimed(const struct runner *r, int rank, uint32_t i)
{
	const struct sched_op *op = sched_op_of(r, rank, i);
	const struct run_op *src;

	if (!is_recv(op->kind))
		return NULL;
	src = op_get(r, recv_peer(r, rank, op), rank_index(r, rank)->ix[i].in_from);
	return src && src->out && !paxi_txn_user(src->out, true) ? src->out : NULL;
}

/* Makes o's transactions, as it is issued, where its partner has not: the
 * partner's run state comes alive with them. (Lazy: the send makes its
 * own when it gets its slot; a receive posts on it, or is posted then.) */
static void op_txns(struct run_op *o)
{
	struct runner *r = o->r;

	if (r->lazy)
		return;
	if (is_send(o->kind) && !o->out)
		make_out(o);
	if (is_recv(o->kind) && !o->in) {
		struct run_op *src = op_live(r, recv_peer(r, o->rank, o->op),
					   rank_index(r, o->rank)->ix[o->idx].in_from);

		o->in = src->out = paxi_txn_new(r->px, src->op->paxi, node(r, src->rank),
						node(r, o->rank), src->op->lane,
						send_bytes(r, src->rank, src->op), txn_ops_of(r), src, o);
	}
}


/* Lazy: whether op i of rank, a send, may hold its slot with no
 * transaction until its data is about to move (paxi_unit_reserve): one that
 * sends only what it receives, bytes of both. */
static bool op_may_park(const struct runner *r, int rank, uint32_t i)
{
	const struct sched_op *op = sched_op_of(r, rank, i);

	if (!park || !r->lazy || !is_send(op->kind) || !is_recv(op->kind) || op_local_kind(r, op->kind) ||
	    !send_bytes(r, rank, op))
		return false;
	int from = recv_peer(r, rank, op);

	return send_bytes(r, from, sched_op_of(r, from, rank_index(r, rank)->ix[i].in_from)) > 0;
}

/* Lazy: op i of rank, a send issued at start_ps with no data yet, holds its
 * unit's slot with no transaction (out_parked), where it may and the slot
 * is free. Whether it does. */
static bool op_park(struct runner *r, int rank, uint32_t i, sim_time_t start_ps)
{
	const struct sched_op *op = sched_op_of(r, rank, i);

	return op_may_park(r, rank, i) &&
	       paxi_unit_reserve(r->px, node(r, rank), op->lane, op->paxi, send_bytes(r, rank, op), i,
				 start_ps);
}

/* A parked send's transaction is made, on the slot it holds: when its
 * incoming data is first usable (it lands, or is taken early) or when it
 * supplies data itself, whichever comes first; not as soon as its sender's
 * transaction takes data, which may then wait a long time for its channel
 * (a ring's steps queue there one behind another). Until then its incoming
 * data's slack and early take read its outgoing channel and setup from
 * its reservation (out_drain_ps). */
static void out_unpark(struct run_op *o)
{
	o->out_parked = false;
	make_out(o);
	paxi_txn_start_reserved(o->out, o->t_start, o->idx);
}

/* Whether op di of rank `to`, the receiver of a transaction that begins to
 * take data, may stay dormant until its data is usable (rcv_wake): it
 * sleeps holding its slot (op_park), on one lane, without the breakdown
 * (whose walks read its run state). */
static bool rcv_may_sleep(const struct runner *r, int to, uint32_t di)
{
	/* never alive (out_feeds), its slot held: issued, dormant */
	g_assert(!live_get(&r->ranks[to], di));
	return r->nlanes == 1 && !r->bd_on &&
	       paxi_unit_reserved(r->px, node(r, to), sched_op_of(r, to, di)->lane, di);
}

/* o's outgoing transaction is about to take data: its receiver comes alive
 * if it has not (make_out), and holds its slot from now on (in_fed),
 * whether or not its own send is made yet; or it stays dormant
 * (rcv_may_sleep). */
static void out_feeds(struct run_op *o)
{
	struct runner *r = o->r;
	struct run_op *d = paxi_txn_user(o->out, true);

	if (o->out_fed)
		return;
	o->out_fed = true;
	if (!d) {
		int to = send_peer(r, o->rank, o->op);
		uint32_t di = rank_index(r, o->rank)->ix[o->idx].out_to;

		if (live_get(&r->ranks[to], di) || rcv_may_sleep(r, to, di))
			return; /* it has had its data and let go, or sleeps */
		d = op_live(r, to, di);
	}
	d->in_fed = true;
}

/* Data of o's outgoing transaction is available up to `avail` bytes: to
 * the paxi, or kept until the transaction is made. */
static void out_supply(struct run_op *o, uint64_t avail)
{
	if (o->out_parked)
		out_unpark(o);
	if (o->out) {
		out_feeds(o);
		paxi_txn_supply(o->out, avail);
		return;
	}
	g_assert(o->out_queued && avail >= o->out_avail);
	o->out_avail = avail;
	if (avail == out_bytes(o) && !o->out_all_ps)
		o->out_all_ps = sim_now(o->r->sim);
}

/* Lazy: issues o's send, or queues it behind those its unit would make
 * wait (the runner's queue continues the paxi's, in issue order). */
static void send_issue(struct run_op *o)
{
	struct runner *r = o->r;
	struct op_fifo *q = lane_queue(r, o->rank, o->lane);

	if (q->len || paxi_unit_would_wait(r->px, node(r, o->rank), o->lane)) {
		o->out_queued = true;
		fifo_push(q, o->idx);
		return;
	}
	if (!o->in_fed && op_park(r, o->rank, o->idx, o->t_start)) {
		o->out_parked = true;
		return;
	}
	make_out(o);
	paxi_txn_start(o->out);
}

/* The paxi's refill hook: a slot of (node, unit) is free and nothing waits
 * in the paxi's queue: the runner's next send there starts, as if it had
 * waited there since it was issued. */
static void on_refill(void *user, int nd, uint32_t unit)
{
	struct runner *r = user;

	/* a unit that no lane queues on has nothing queued */
	if (unit >= r->qunits || !r->queues[(uint32_t)nd * r->qunits + unit].len)
		return;
	struct op_fifo *f = &r->queues[(uint32_t)nd * r->qunits + unit];

	/* lazy runs only where schedule rank and node are one */
	uint32_t i = fifo_pop(f);
	struct run_op *o = op_get(r, nd, i);

	/* one with no data yet holds the slot with no transaction: a
	 * dormant one stays so */
	if (o ? !o->in_fed && op_park(r, nd, i, o->t_start) : op_park(r, nd, i, dorm_issued(r, nd, i))) {
		if (o) {
			o->out_queued = false;
			o->out_parked = true;
		}
		return;
	}
	o = op_live(r, nd, i);
	g_assert(o->out_queued);
	o->out_queued = false;
	make_out(o);
	out_feeds(o);
	paxi_txn_start_queued(o->out, o->t_start, o->out_avail, o->out_all_ps);
	op_rest(o);
}

/* engine: a forwarding op's reduced (or copied) data streams on as it is
 * made (paxi_engine_work calls it only with the engine). */
static void on_forward(void *user)
{
	struct run_op *o = user;

	paxi_txn_supply(o->out, o->reducing);
}

static void on_reduced(void *user)
{
	struct run_op *o = user;

	o->processed = o->reducing;
	o->reducing = 0;
	if (is_send(o->kind))
		out_supply(o, o->processed);
	op_process(o);
}

/* Moves usable incoming data along: store, reduce, forward. */
static void op_process(struct run_op *o)
{
	enum sched_op_kind k = o->kind;

	g_assert(!o->out_parked || o->usable == o->processed);
	/* staging: a received byte is also copied out of the staging buffer */
	if (is_reducing(k) || o->r->pp->staging) {
		if (!o->reducing && o->usable > o->processed) {
			/* the early take's window, if it had one (else its place
			 * holds out_avail, out_all_ps) */
			sim_time_t since = o->fed_early ? o->early_since : 0;
			sim_time_t until = o->fed_early ? o->early_until : 0;

			if (o->fed_early)
				o->early_until = 0;
			if (o->r->bd_on)
				op_bd(o)->t_reduce = sim_now(o->r->sim);
			if (is_send(k) && o->out && o->r->nlanes == 1 &&
			    (o->usable < in_bytes(o) || until) &&
			    paxi_work_ahead(o->r->px, node(o->r, o->rank), o->lane,
					    o->usable - o->processed, is_reducing(k), o->out,
					    since, until)) {
				/* not its last bytes, and one lane (a reducer shared
				 * by lanes would take this work ahead of theirs): the
				 * output's channel is busy past its end, so its
				 * bytes join the output now (paxi_work_ahead) */
				o->processed = o->usable;
				out_supply(o, o->processed);
				return;
			}
			o->reducing = o->usable;
			paxi_engine_work(o->r->px, node(o->r, o->rank), o->lane, o->processed, o->usable,
					 is_reducing(k), o->in, o->out,
					 o->out ? on_forward : NULL, on_reduced, o);
			return;
		}
	} else if (o->usable > o->processed) {
		o->processed = o->usable;
		if (is_send(k))
			out_supply(o, o->processed);
	}
	op_try_finish(o);
}

/* engine: a SEND is engine work, one round of slices at a time; each
 * round's data enters the fabric once its fixed cost is paid (on_moving),
 * and the next round waits until it has landed (on_moved). */
static void send_move(struct run_op *o);

static void on_moving(void *user)
{
	struct run_op *o = user;

	paxi_txn_supply(o->out, o->w.send.moving);
}

static void on_moved(void *user)
{
	struct run_op *o = user;

	o->w.send.moved = o->w.send.moving;
	send_move(o);
	if (o->w.send.moved == paxi_txn_bytes(o->out))
		op_try_finish(o); /* its data has landed (out_done) */
}

static void send_move(struct run_op *o)
{
	uint64_t total = paxi_txn_bytes(o->out);
	uint64_t round = o->r->pp->engine_round_bytes;

	if (o->w.send.moved == total)
		return;
	o->w.send.moving = round ? o->w.send.moved + MIN(round, total - o->w.send.moved) : total;
	paxi_engine_work(o->r->px, node(o->r, o->rank), o->lane, o->w.send.moved, o->w.send.moving, false, NULL, o->out,
			 on_moving, on_moved, o);
}

static void on_local_done(void *user)
{
	struct run_op *o = user;

	o->local_done = true;
	op_try_finish(o);
}

static void op_begin(struct run_op *o);

static void on_op_setup(void *user)
{
	op_begin(user);
}

/* o has started: its deps (read by its breakdown walk, where there is one)
 * and its lane predecessor have been read for the last time. */
static void op_release_readers(const struct run_op *o)
{
	struct runner *r = o->r;
	uint32_t base = o->call * r->ranks[o->rank].per;
	const uint32_t *deps = rank_deps(r, o->rank);

	for (uint32_t d = 0; r->bd_on && d < o->op->ndeps; d++) {
		struct run_op *c = op_get(r, o->rank, deps[o->op->dep_first + d] + base);

		if (c) /* else gone: it ended before now (op_purge) */
			op_dep_read(c);
	}
	if (o->lane_pred >= 0) {
		struct run_op *pred = op_get(r, o->rank, (uint32_t)o->lane_pred);

		if (pred) { /* else dormant or at rest: it counts no reader */
			bool done = pred->done;

			op_unref(pred);
			if (!done)
				op_rest(pred);
		}
	}
}

/* Lazy: whether op i, at the head of its lane with its deps done and not
 * alive, may be issued dormant: a send or receive with no local work whose
 * send (if any) would wait in the runner's queue, or parks: then it takes
 * its slot now (op_park), and *parked says so. */
static bool op_may_sleep(struct runner *r, int rank, uint32_t i, bool *parked)
{
	const struct sched_op *op = sched_op_of(r, rank, i);

	*parked = false;
	if (op_local_kind(r, op->kind) || !(is_send(op->kind) || is_recv(op->kind)))
		return false;
	if (!is_send(op->kind))
		return true;
	if (lane_queue(r, rank, op->lane)->len ||
	    paxi_unit_would_wait(r->px, node(r, rank), op->lane))
		return true;
	*parked = op_park(r, rank, i, sim_now(r->sim));
	return *parked;
}

/* Issues op i (lane position pos) dormant: its start's causes are walked
 * now, its send joins the runner's queue unless parked (op_may_sleep), and
 * the lane's window of dormant ops keeps its issue time (struct run_lane)
 * where something reads starts. */
static void op_sleep(struct runner *r, int rank, uint32_t i, uint32_t pos, bool parked)
{
	struct run_rank *rr = &r->ranks[rank];
	const struct sched_op *op = sched_op_of(r, rank, i);
	struct run_op tmp = {
		.r = r, .op = op, .rank = rank, .idx = i, .kind = op->kind, .lane = op->lane,
		.call = (uint8_t)(i / rr->per),
		.lane_pred = pos ? (int32_t)lane_op(r, rank, op->lane, pos - 1) : -1,
		.t_start = sim_now(r->sim), .started = true,
	};
	struct bd_memo *bd = r->bd_on ? bd_walk_start(&tmp) : NULL;

	op_release_readers(&tmp);
	if (is_send(op->kind) && !parked)
		fifo_push(lane_queue(r, rank, op->lane), i);
	if (r->starts_read)
		dorm_push(rank_lane(r, rank, op->lane), pos, tmp.t_start, r->bd_on, bd);
	else
		rank_lane(r, rank, op->lane)->dorm_n++;
}

/* An op is issued: with setup_recv, a receive without a send of its own
 * first takes its unit's setup (a fused op pays it with its send). */
static void op_start(struct run_op *o)
{
	struct runner *r = o->r;

	op_purge(r);
	o->t_start = sim_now(r->sim);
	bd_at_start(o);
	op_release_readers(o);
	op_txns(o);
	if (o->in && !o->out && r->pp->setup_recv) {
		paxi_unit_setup(r->px, node(r, o->rank), o->lane, on_op_setup, o);
		return;
	}
	op_begin(o);
}

/* Whether op o does local work of its own on the reducer: a copy, a sum, or
 * a copy-send's copy where no engine makes it one pass with the send. */
static bool op_local_kind(const struct runner *r, enum sched_op_kind k)
{
	return k == SOP_COPY || k == SOP_REDUCE ||
	       (k == SOP_COPY_SEND && !r->pp->engine);
}

static bool op_local_pass(const struct run_op *o)
{
	return op_local_kind(o->r, o->kind);
}

static void op_begin(struct run_op *o)
{
	struct runner *r = o->r;
	enum sched_op_kind k = o->kind;
	bool from_local = k == SOP_SEND || k == SOP_COPY_SEND; /* sends local data */

	o->started = true;
	if (is_send(k)) {
		if (r->lazy)
			send_issue(o);
		else
			paxi_txn_start(o->out);
		if (from_local && r->pp->engine && out_bytes(o))
			send_move(o);
		else if (from_local)
			out_supply(o, out_bytes(o));
		else if (out_bytes(o) == 0 && in_bytes(o) == 0)
			out_supply(o, 0);
	}
	if (op_local_pass(o)) {
		(k == SOP_REDUCE ? paxi_reduce : paxi_copy)(r->px, node(r, o->rank), o->lane,
							    o->w.local_bytes, on_local_done, o);
		return;
	}
	if (is_recv(k)) {
		/* a receive started by a send's landing: its ready flag rides
		 * beside that send's completion flag (paxi checks it landed now) */
		if (o->in)
			paxi_txn_post_beside(o->in, rank_landed(r, o->rank)); /* else make_out posts it */
		op_process(o);
		return;
	}
	op_try_finish(o);
}

/* Whether op o's outgoing data is done with at its source: its completion
 * response has come back, or, where sends are done when their data has
 * landed (paxi_send_done), the data is all delivered (an op that stores
 * nothing waits for its response). */
static bool out_done(const struct run_op *o)
{
	const struct paxi_params *pp = o->r->pp;

	if (o->out_sent)
		return true;
	return o->out && pp->engine && pp->send_done == PAXI_SEND_DONE_LANDED &&
	       paxi_txn_bytes(o->out) && paxi_txn_times(o->out).arrived;
}

/* A done op's times into the result: its step's row (first call only) and
 * its span. */
static void op_record(const struct run_op *o)
{
	struct runner *r = o->r;

	if (r->steps && o->call == 0) {
		struct runner_step *x = &g_array_index(r->steps, struct runner_step,
						       (guint)o->rank * r->s->nsteps + o->op->step);

		x->start_ps = MIN(x->start_ps, o->t_start - r->t0);
		x->end_ps = MAX(x->end_ps, o->t_end - r->t0);
		if (is_send(o->kind) && o->out)
			x->bytes_sent += paxi_txn_bytes(o->out);
	}
	if (r->spans)
		g_array_index(r->spans, struct runner_op_span, r->span_base[o->rank] + o->idx) =
			(struct runner_op_span){
				.rank = o->rank, .op = o->idx, .lane = o->lane, .step = o->op->step,
				.kind = o->kind,
				.peer = o->op->send_peer >= 0 ? send_peer(r, o->rank, o->op)
							       : recv_peer(r, o->rank, o->op),
				.start_ps = o->t_start - r->t0, .end_ps = o->t_end - r->t0,
				.bytes = o->out ? paxi_txn_bytes(o->out)
						: o->in || o->in_left ? in_bytes(o) : o->w.local_bytes,
			};
}

static void op_try_finish(struct run_op *o)
{
	if (o->done || !o->started)
		return;
	op_purge(o->r); /* o is not done: not held */
	if (is_recv(o->kind) && !o->in_left &&
	    !(o->in && o->in_all && o->processed == in_bytes(o) && !o->reducing))
		return;
	if (o->in && !o->r->bd_on) {
		/* nothing but the breakdown's walks reads its incoming
		 * transaction from now on (its send may still run long) */
		txn_let_go(o->in, true);
		o->in = NULL;
		o->in_left = true;
	} else if (o->in && !op_bd(o)->t_in_done) {
		op_bd(o)->t_in_done = sim_now(o->r->sim);
	}
	if (is_send(o->kind) && !out_done(o)) {
		op_rest(o);
		return;
	}
	if (op_local_pass(o) && !o->local_done)
		return;
	struct runner *r = o->r;

	if (o->out && !o->out_sent) {
		/* done when its data landed; its response is still on the way
		 * (on_sent drops this reference) */
		if (r->landed)
			r->landed[o->rank] = paxi_txn_landing(o->out);
		o->refs++;
	}
	o->done = true;
	o->t_end = sim_now(r->sim);
	r->t_end = MAX(r->t_end, o->t_end);
	r->call_end[o->call] = MAX(r->call_end[o->call], o->t_end);
	bd_at_end(o);
	r->left--;
	if (--*call_left(r, o->rank, o->call) == 0) {
		launch_next(r, o->rank, o->call);
		if (r->rank_done)
			r->rank_done(r->user, o->rank);
	}
	op_record(o);
	const struct rank_index *ri = rank_index(r, o->rank);

	/* a dependent whose last dep this was may start (one listed twice is
	 * asked once) */
	for (uint32_t i = ri->ix[o->idx].dep_first, prev = NO_OP; i < ri->ix[o->idx + 1].dep_first; i++) {
		uint32_t d = ri->dep_ops[i];

		if (d != prev && deps_done(r, o->rank, d))
			lane_advance(r, o->rank, r->nlanes > 1 ? sched_op_of(r, o->rank, d)->lane : 0);
		prev = d;
	}
	/* its partners' walks are done with it once they are done; it with them */
	if (r->bd_on && o->out)
		op_unref(paxi_txn_user(o->out, true));
	if (r->bd_on && o->in)
		op_unref(paxi_txn_user(o->in, false));
	op_unref(o);
}

/* Whether every op that op i of rank depends on is done: gone, or alive
 * and done (an op is never done without having been alive). */
static bool deps_done(const struct runner *r, int rank, uint32_t i)
{
	const struct run_rank *rr = &r->ranks[rank];
	const struct sched_op *op = sched_op_of(r, rank, i);
	const uint32_t *deps = rank_deps(r, rank);
	uint32_t base = i - i % rr->per;

	for (uint32_t d = 0; d < op->ndeps; d++) {
		uint32_t l = live_get(rr, deps[op->dep_first + d] + base);

		if (l != OP_GONE && (!l || l == OP_REST || !pool_at(r, l - 1)->done))
			return false;
	}
	return true;
}

/* Starts the ops at the head of a lane whose deps are done, in order. */
static void lane_advance(struct runner *r, int rank, uint32_t lane)
{
	struct run_rank *rr = &r->ranks[rank];
	uint32_t len = lane_len(r, rank, lane);

	struct run_lane *ln = rank_lane(r, rank, lane);

	while (ln->next < len) {
		uint32_t pos = ln->next, i = lane_op(r, rank, lane, pos);
		const struct run_op *alive = op_get(r, rank, i);

		if (i / rr->per >= rr->launched || !deps_done(r, rank, i))
			return;
		bool parked;

		if (!alive && r->lazy && op_may_sleep(r, rank, i, &parked)) {
			struct paxi_txn *in = in_unclaimed(r, rank, i);

			ln->next++;
			op_sleep(r, rank, i, pos, parked);
			/* its data has not begun: it posts, as op_begin would */
			if (in)
				paxi_txn_post_beside(in, rank_landed(r, rank));
			continue;
		}
		struct run_op *o = op_live(r, rank, i);

		ln->next++;
		o->lane_pred = pos ? (int32_t)lane_op(r, rank, lane, pos - 1) : -1;
		if (pos + 1 < len)
			o->refs++; /* its lane successor's start reads its start */
		op_start(o);
	}
}

/* A rank's next call starts: its ops may start as their deps allow. */
static void rank_launch(struct runner *r, int rank)
{
	r->ranks[rank].launched++;
	for (uint32_t l = 0; l < r->nlanes; l++)
		lane_advance(r, rank, l);
}

static void runner_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct runner *r = (struct runner *)self;

	switch (ev->type) {
	case RUN_KICK:
		for (int rank = 0; rank < r->s->nranks; rank++)
			rank_launch(r, rank);
		break;
	case RUN_LAUNCH:
		rank_launch(r, (int)ev->data[0].u);
		/* a job's rank with nothing to do (a P2P's bystander) is done at once */
		if (r->rank_done && !r->ranks[ev->data[0].u].per)
			r->rank_done(r->user, (int)ev->data[0].u);
		break;
	default:
		g_error("runner: unknown event type %u", ev->type);
	}
	(void)s;
}

/* Calls back to back, as a timer that averages several calls runs them: a
 * rank's next kernel starts once its previous one has ended and the launch
 * cost has passed again, and not before the host has issued it (one call
 * every issue_ps from the first). A rank whose part ends early (a sender)
 * runs ahead into the next call. */
static void launch_next(struct runner *r, int rank, uint32_t call)
{
	if (call + 1 >= r->calls)
		return;
	sim_time_t now = sim_now(r->sim);
	sim_time_t at = MAX(now + r->overhead_ps,
			    r->t0 + r->overhead_ps + (sim_time_t)(call + 1) * r->issue_ps);
	struct sim_event *ev = sim_schedule(r->sim, at - now, &r->c, RUN_LAUNCH);

	ev->data[0].u = (uint64_t)rank;
}

/* ---- the critical path ---- */

const char *bd_cause_name(enum bd_cause c)
{
	static const char *const names[BD_NCAUSES] = {
		[BD_OVERHEAD] = "overhead",     [BD_HANDSHAKE] = "handshake",
		[BD_SERIAL] = "serialisation",  [BD_QUEUEING] = "queueing",
		[BD_REDUCTION] = "reduction",   [BD_RETRANSMIT] = "retransmission",
		[BD_DEPENDENCY] = "dependency",
	};

	return c < BD_NCAUSES ? names[c] : "?";
}

struct walk {
	sim_time_t p;   /* cursor: everything after it is attributed */
	sim_time_t *bd;
};

/* Gives (t, p] to `cause` and moves the cursor back to t. */
static void give(struct walk *w, enum bd_cause cause, sim_time_t t)
{
	if (t < w->p) {
		w->bd[cause] += w->p - t;
		w->p = t;
	}
}

/* The data phase of a transaction, ending at the cursor: at best the ideal
 * transit of `bytes` from `from`, plus the serialisation of what the same
 * (source, destination) pair still had in flight ahead of them (the
 * collective's own stream: serialisation too); the rest is queueing behind
 * other traffic, or retransmission when Go-Back-N had to replay packets. */
static void give_transit(struct walk *w, const struct paxi_txn *t, sim_time_t from, uint64_t bytes)
{
	const struct paxi_txn_times tm = paxi_txn_times(t);

	if (from >= w->p)
		return;
	sim_time_t ideal = MIN(paxi_txn_ideal_ps(t, bytes), w->p - from);

	give(w, BD_SERIAL, w->p - ideal);
	give(w, tm.replayed ? BD_RETRANSMIT : BD_QUEUEING, from);
}

enum walk_at {
	AT_OP_END,     /* op o ended at the cursor */
	AT_OP_START,   /* op o started at the cursor */
	AT_IN_DONE,    /* op o's incoming data was processed by the cursor */
	AT_TXN_USABLE, /* transaction t was usable at its destination by the cursor */
	AT_DONE,
};

/* ---- the walk, forward: each point's causes as the run goes ----
 *
 * The critical path is defined as a walk back from the end of the op that
 * ended last: from a point of an op (its end, its start, its incoming data
 * processed, its transaction's data usable) it gives the time before the
 * cursor to causes, back to the point's own time and through the op's
 * phases, then moves to the point that let it happen. That walk, run from a
 * point, reads only that point's own times
 * and then moves to an earlier point of the op, its transaction, its sender,
 * its receiver, a dep or its lane predecessor. An op's start and end, and
 * its incoming data's usable point where the cursor is at or after it, are
 * entered with the cursor at or after the point's own time (its first give),
 * and from there the walk is a function of the point alone: so the walk from the point at its own time is kept with the op
 * (struct run_bd's bd_start, bd_usable, bd_end), and a later walk that reaches
 * it adds that value and the dependency time in between, instead of going on.
 * An op's end is always entered at its end time; its start at or after it;
 * its incoming data's usable point, where it is not (a Send/Recv's response
 * before the data's flag), and its incoming data processed point (entered
 * from a streaming sender's last supply, before it) are walked again, from
 * times that are final by then. The op that ends last, lowest rank and index
 * on ties, gives the call's breakdown: the same bytes as the walk back from
 * the end over every op's kept times, without keeping them. */

/* The walk from state `at` of op o (transaction t for AT_TXN_USABLE) with the
 * cursor at p, down to the call's start; `self` is the point being computed
 * (walked, not looked up). Returns an owned reference: a new memo, or the
 * one it reached with nothing in between. */
static struct bd_memo *bd_walk(struct runner *r, enum walk_at at, struct run_op *o,
			       struct paxi_txn *t, sim_time_t p)
{
	struct bd_vec acc = { { 0 } };
	struct walk w = { .p = p, .bd = acc.c };
	sim_time_t kick = r->t0 + r->overhead_ps;
	struct bd_memo *memo = NULL, *out;
	sim_time_t memo_ps = 0;
	bool self = true;

	while (at != AT_DONE && w.p > kick) {
		switch (at) {
		case AT_OP_END: {
			enum sched_op_kind k = o->kind;

			if (!self) {
				/* only ever entered at its end (AT_OP_START's rule) */
				g_assert(o->done && w.p == o->t_end);
				memo = op_bd(o)->bd_end;
				memo_ps = o->t_end;
				goto add_memo;
			}
			give(&w, BD_DEPENDENCY, o->t_end);
			const struct paxi_txn_times out_tm =
				o->out ? paxi_txn_times(o->out) : (struct paxi_txn_times){ 0 };
			bool in_done = !o->in || op_bd(o)->t_in_done <= w.p;

			if (o->out && out_tm.sent == w.p && in_done) {
				give(&w, BD_HANDSHAKE, out_tm.usable); /* response */
				t = o->out;
				at = AT_TXN_USABLE;
			} else if (o->out && out_tm.arrived == w.p && in_done) {
				/* done when its data landed (paxi_send_done) */
				t = o->out;
				at = AT_TXN_USABLE;
			} else if (o->in) {
				at = AT_IN_DONE;
			} else if (k == SOP_COPY || k == SOP_REDUCE) {
				give(&w, BD_REDUCTION, o->t_start);
				at = AT_OP_START;
			} else {
				at = AT_OP_START;
			}
			break;
		}
		case AT_IN_DONE: {
			const struct paxi_txn_times tm = paxi_txn_times(o->in);
			const struct run_bd *b = op_bd(o);

			/* not done yet: it will be, after now, so after the cursor */
			if (b->t_in_done)
				give(&w, BD_DEPENDENCY, b->t_in_done);
			/* a usable time not known yet (0) is after the cursor */
			if (is_reducing(o->kind) && tm.usable && b->t_reduce >= tm.usable &&
			    b->t_reduce >= o->t_start)
				give(&w, BD_REDUCTION, b->t_reduce);
			if (tm.usable && o->t_start > tm.usable) {
				at = AT_OP_START;
				break;
			}
			t = o->in;
			at = AT_TXN_USABLE;
			break;
		}
		case AT_TXN_USABLE: {
			const struct paxi_txn_times tm = paxi_txn_times(t);
			struct run_op *src = paxi_txn_user(t, false);
			struct run_op *dst = paxi_txn_user(t, true);

			if (!self && dst && op_bd(dst)->bd_usable && tm.usable && w.p >= tm.usable) {
				memo = op_bd(dst)->bd_usable;
				memo_ps = tm.usable;
				goto add_memo;
			}
			/* not usable yet (a send done when its data landed, before the
			 * destination's flag): usable after the cursor */
			if (tm.usable)
				give(&w, BD_DEPENDENCY, tm.usable);
			if (paxi_txn_kind(t) == PAXI_SENDRECV)
				give(&w, BD_HANDSHAKE, tm.arrived);
			if (tm.last_supply > tm.data_allowed) {
				give_transit(&w, t, tm.last_supply, tm.last_msg_bytes + tm.backlog_last);
				o = src;
				at = o->in ? AT_IN_DONE : AT_OP_START;
				break;
			}
			give_transit(&w, t, tm.data_allowed, paxi_txn_bytes(t) + tm.backlog_first);
			if (paxi_txn_kind(t) == PAXI_SENDRECV && tm.data_allowed > tm.setup_end) {
				sim_time_t cts_sent = MAX(tm.rts_arrived, tm.posted);

				give(&w, BD_HANDSHAKE, cts_sent);
				if (tm.posted > tm.rts_arrived && dst && dst->t_start == tm.posted) {
					o = dst;
					at = AT_OP_START;
					break;
				}
			}
			give(&w, BD_HANDSHAKE, tm.slot);
			give(&w, BD_QUEUEING, tm.start);
			o = src;
			at = AT_OP_START;
			break;
		}
		case AT_OP_START: {
			if (!self) {
				g_assert(w.p >= o->t_start); /* issued (op_start) */
				memo = op_bd(o)->bd_start;
				memo_ps = o->t_start;
				goto add_memo;
			}
			give(&w, BD_DEPENDENCY, o->t_start);
			if (w.p <= kick) {
				at = AT_DONE;
				break;
			}
			/* what let it start: the dep that ended last, or its lane
			 * predecessor starting (alive: they wait for its start) */
			uint32_t base = o->call * r->ranks[o->rank].per;
			const uint32_t *deps = rank_deps(r, o->rank);
			struct run_op *best = NULL;
			struct run_op *pred = o->lane_pred >= 0 ? op_get(r, o->rank, (uint32_t)o->lane_pred)
								: NULL;
			uint32_t gpos = 0;
			const struct run_lane *g = !pred && o->lane_pred >= 0 && r->lazy
				? dorm_lane(r, o->rank, (uint32_t)o->lane_pred, &gpos) : NULL;

			for (uint32_t d = 0; d < o->op->ndeps; d++) {
				struct run_op *c = op_get(r, o->rank, deps[o->op->dep_first + d] + base);

				/* a dep gone ended before this start (op_purge) */
				if (c && (!best || c->t_end > best->t_end))
					best = c;
			}
			if (best && best->t_end == w.p) {
				o = best;
				at = AT_OP_END;
			} else if (pred && pred->t_start == w.p) {
				o = pred;
				at = AT_OP_START;
			} else if (g && g->win->t[gpos & g->win->mask] == w.p) {
				/* dormant: its start is its issue, its causes kept
				 * in its lane */
				memo = g->win->bd ? g->win->bd[gpos & g->win->mask] : NULL;
				memo_ps = w.p;
				goto add_memo;
			} else {
				at = AT_DONE;
			}
			break;
		}
		case AT_DONE:
			break;
		}
		self = false;
	}
	give(&w, BD_DEPENDENCY, kick);
	give(&w, BD_OVERHEAD, r->t0);
	out = memo_new(r);
	out->v = acc;
	return out;
add_memo:
	/* the walk from the point at its own time, and the idle time since */
	g_assert(memo && w.p >= memo_ps);
	if (w.p == p && p == memo_ps) {
		memo->refs++; /* nothing in between: the same causes */
		return memo;
	}
	w.bd[BD_DEPENDENCY] += w.p - memo_ps;
	for (int c = 0; c < BD_NCAUSES; c++)
		w.bd[c] += memo->v.c[c];
	out = memo_new(r);
	out->v = acc;
	return out;
}

/* The causes of o's start, o issued now. */
static struct bd_memo *bd_walk_start(struct run_op *o)
{
	return bd_walk(o->r, AT_OP_START, o, NULL, o->t_start);
}

static void bd_at_start(struct run_op *o)
{
	if (o->r->bd_on)
		op_bd(o)->bd_start = bd_walk(o->r, AT_OP_START, o, NULL, o->t_start);
}

static void bd_at_usable(struct run_op *o, struct paxi_txn *t)
{
	if (!o->r->bd_on)
		return;
	op_bd(o)->bd_usable = bd_walk(o->r, AT_TXN_USABLE, NULL, t, paxi_txn_times(t).usable);
}

static void bd_at_end(struct run_op *o)
{
	struct runner *r = o->r;

	if (!r->bd_on)
		return;
	struct run_bd *b = op_bd(o);

	b->bd_end = bd_walk(r, AT_OP_END, o, NULL, o->t_end);
	if (!r->has_last || o->t_end > r->last_end ||
	    (o->t_end == r->last_end &&
	     (o->rank < r->last_rank || (o->rank == r->last_rank && o->idx < r->last_idx)))) {
		r->has_last = true;
		r->last_end = o->t_end;
		r->last_rank = o->rank;
		r->last_idx = o->idx;
		r->bd_last = b->bd_end->v;
	}
}

static uint64_t units_bytes(const struct sched *s, uint64_t elems, uint32_t elem_bytes,
			    uint32_t off, uint32_t count)
{
	uint64_t total = 0;

	for (uint32_t u = off; u < off + count; u++) {
		uint64_t first, n;

		sched_unit_range(s, elems, u % s->nunits, &first, &n);
		total += n;
	}
	return total * elem_bytes;
}

/* One side of a rank's matching: its sends (or receives) grouped by the
 * (peer, lane) they go to (come from), each group in list order, so that the
 * k-th send of a to (b, lane) meets the k-th receive of b from (a, lane).
 * Linear in the rank's ops: only the peers a rank talks to have a group. */
struct match_side {
	uint32_t *keys;  /* per group: peer x nlanes + lane, ascending */
	uint32_t *first; /* per group: its first index in ops; first[ngroups] = nops */
	uint32_t *ops;   /* op indices in this rank, by group, list order in one */
	uint32_t ngroups;
};

struct match_entry {
	uint32_t key, op;
};

static int match_entry_cmp(const void *a, const void *b)
{
	const struct match_entry *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

/* Fills *m with the rank's sends (send true) or receives, from its ops. */
static void match_side_init(struct match_side *m, const struct runner *r, int rank, bool send)
{
	uint32_t n = 0, g = 0, nlanes = r->nlanes, nops = rank_nops(r, rank);

	/* room for every op: one walk of the ops, not two */
	struct match_entry *e = g_new(struct match_entry, nops ? nops : 1);

	for (uint32_t i = 0; i < nops; i++) {
		const struct sched_op *op = sched_op_of(r, rank, i);

		if (send ? is_send(op->kind) : is_recv(op->kind))
			e[n++] = (struct match_entry){
				.key = (uint32_t)(send ? send_peer(r, rank, op) : recv_peer(r, rank, op)) * nlanes +
				       op->lane,
				.op = i,
			};
	}
	/* already in order where a rank talks to its peers one after another
	 * (a ring's every send goes to one peer on one lane) */
	bool sorted = true;

	for (uint32_t i = 1; i < n && sorted; i++)
		sorted = e[i - 1].key <= e[i].key;
	if (!sorted)
		qsort(e, n, sizeof(*e), match_entry_cmp);
	for (uint32_t i = 0; i < n; i++)
		g += !i || e[i].key != e[i - 1].key;
	m->ngroups = g;
	m->keys = g_new(uint32_t, g ? g : 1);
	m->first = g_new(uint32_t, g + 1);
	m->ops = g_new(uint32_t, n ? n : 1);
	g = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!i || e[i].key != e[i - 1].key) {
			m->keys[g] = e[i].key;
			m->first[g++] = i;
		}
		m->ops[i] = e[i].op;
	}
	m->first[g] = n;
	g_free(e);
}

static void match_side_release(struct match_side *m)
{
	g_free(m->keys);
	g_free(m->first);
	g_free(m->ops);
}

/* The group of `key` in m, or -1. */
static int64_t match_side_find(const struct match_side *m, uint32_t key)
{
	uint32_t lo = 0, hi = m->ngroups;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->ngroups && m->keys[lo] == key ? (int64_t)lo : -1;
}

/* Pairs every receive with its send (in_from and out_to: their
 * transaction is made when the first of them is issued); false with the first receive (by rank, then op) that no send matches, or
 * else the first such send. Where the ranks are alike, rank 0's pairs are
 * every rank's: rank a's k-th send to rank 0 on a lane is rank 0's k-th
 * send to rank -a (mod N) there, so only rank 0 is matched and checked. */
static bool match(struct runner *r, GError **error)
{
	const struct sched *s = r->s;
	int nranks = r->alike ? 1 : s->nranks;
	struct match_side *sends = g_new(struct match_side, nranks);
	bool ok = true;

	for (int rank = 0; rank < nranks; rank++)
		match_side_init(&sends[rank], r, rank, true);
	for (int b = 0; b < nranks; b++) {
		struct op_index *ib = r->index[b].ix;
		struct match_side recvs;

		match_side_init(&recvs, r, b, false);
		for (uint32_t g = 0; g < recvs.ngroups; g++) {
			uint32_t a = recvs.keys[g] / r->nlanes, lane = recvs.keys[g] % r->nlanes;
			/* alike: rank a's sends to 0 are rank 0's to -a */
			const struct match_side *sa = &sends[r->alike ? 0 : a];
			uint32_t to = r->alike ? (uint32_t)((s->nranks - (int)a) % s->nranks) : (uint32_t)b;
			struct op_index *ia = r->index[r->alike ? 0 : a].ix;
			int64_t sg = match_side_find(sa, to * r->nlanes + lane);
			uint32_t nsend = sg < 0 ? 0 : sa->first[sg + 1] - sa->first[sg];

			for (uint32_t k = 0; k < recvs.first[g + 1] - recvs.first[g] && k < nsend; k++) {
				uint32_t ri = recvs.ops[recvs.first[g] + k], si = sa->ops[sa->first[sg] + k];

				ib[ri].in_from = si;
				ia[si].out_to = ri;
			}
		}
		match_side_release(&recvs);
	}
	/* one walk: the first unmatched receive, else the first unmatched send */
	int bad_send = -1;
	uint32_t bad_send_op = 0;

	for (int rank = 0; rank < nranks && ok; rank++)
		for (uint32_t i = 0; i < rank_nops(r, rank) && ok; i++) {
			const struct sched_op *op = sched_op_of(r, rank, i);
			const struct op_index *sl = &rank_index(r, rank)->ix[i];

			if (is_recv(op->kind) && sl->in_from == NO_OP) {
				g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_UNMATCHED,
					    "rank %d op %u receives from rank %d on lane %u, which sends nothing to match it",
					    rank, i, recv_peer(r, rank, op), op->lane);
				ok = false;
			} else if (bad_send < 0 && is_send(op->kind) && sl->out_to == NO_OP) {
				bad_send = rank;
				bad_send_op = i;
			}
		}
	if (ok && bad_send >= 0) {
		const struct sched_op *op = sched_op_of(r, bad_send, bad_send_op);

		g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_UNMATCHED,
			    "rank %d op %u sends to rank %d on lane %u, which never receives it",
			    bad_send, bad_send_op, send_peer(r, bad_send, op), op->lane);
		ok = false;
	}
	for (int rank = 0; rank < nranks; rank++)
		match_side_release(&sends[rank]);
	g_free(sends);
	return ok;
}

/* A COPY may drop elements only out of scratch (a padded slot into its
 * block, ir.h): one out of the input or output that is larger than its
 * destination would lose data, as AllGatherV's pad would below the size
 * its counts sum to, where the floor rule can make a lighter block one
 * element longer than the slot. Such a size is refused. */
static bool copies_keep_data(const struct sched *s, uint64_t elems, GError **error)
{
	for (int rank = 0; rank < s->nranks; rank++) {
		for (uint32_t i = 0; i < sched_rank_len(s, rank); i++) {
			const struct sched_op op = sched_op_get(s, rank, i);

			if (op.kind != SOP_COPY || op.src_buf == SBUF_SCRATCH)
				continue;
			uint64_t from = units_bytes(s, elems, 1, op.src_off, op.count);
			uint64_t to = units_bytes(s, elems, 1, op.dst_off, op.count);

			if (from > to) {
				g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_SIZE,
					    "%s at %" G_GUINT64_FORMAT " elements: rank %d op %u would copy"
					    " %" G_GUINT64_FORMAT " elements of its %s into %" G_GUINT64_FORMAT
					    " and drop data; take a larger size",
					    s->algo, elems, rank, i, from,
					    op.src_buf == SBUF_IN ? "input" : "output", to);
				return false;
			}
		}
	}
	return true;
}

/* Whether tests/sim may have the runner index every rank on its own. */
static bool share_index = true;

void runner_share_index(bool on)
{
	share_index = on;
}

/* Whether every rank's ops are rank 0's with their peers turned by the
 * rank (peer p of rank 0 is p + r mod N of rank r), kinds, lanes and deps
 * the same: then the matching, the dependents and the lane lists are the
 * same for every rank (offsets, and so sizes, may differ). */
static bool ranks_alike(const struct sched *s)
{
	const struct sched_rank *a = &s->ranks[0];
	int n = s->nranks;

	if (s->turned) /* so by construction */
		return true;
	for (int r = 1; r < n; r++) {
		const struct sched_rank *b = &s->ranks[r];

		if (b->ops->len != a->ops->len || b->deps->len != a->deps->len)
			return false;
		for (guint i = 0; i < a->ops->len; i++) {
			const struct sched_op *x = &g_array_index(a->ops, struct sched_op, i);
			const struct sched_op *y = &g_array_index(b->ops, struct sched_op, i);

			if (x->kind != y->kind || x->lane != y->lane || x->ndeps != y->ndeps ||
			    (x->recv_peer < 0 ? y->recv_peer != x->recv_peer
					      : y->recv_peer != (x->recv_peer + r) % n) ||
			    (x->send_peer < 0 ? y->send_peer != x->send_peer
					      : y->send_peer != (x->send_peer + r) % n) ||
			    (x->ndeps && memcmp(sched_op_deps(s, 0, i), sched_op_deps(s, r, i),
						sizeof(uint32_t) * x->ndeps)))
				return false;
		}
	}
	return true;
}

/* Builds rank's indices into *ri (its ops, rank_sops, and its record's
 * per set): each op's first dependent and the dependent lists, the lane
 * lists with several lanes; in_from and out_to are NO_OP until matched. */
static void index_rank(const struct runner *r, int rank, struct rank_index *ri)
{
	const struct run_rank *rr = &r->ranks[rank];
	const struct sched_op *sops = rank_sops(r, rank);
	const uint32_t *sdeps = rank_deps(r, rank);
	uint32_t per = rr->per, nops = rank_nops(r, rank);
	struct op_index *ix = g_new0(struct op_index, (gsize)nops + 1);

	for (uint32_t i = 0; i < nops; i++) {
		const struct sched_op *op = &sops[i % per];
		uint32_t call = i / per;

		ix[i].in_from = ix[i].out_to = NO_OP;
		for (uint32_t d = 0; d < op->ndeps; d++) {
			uint32_t dep = sdeps[op->dep_first + d] + call * per;

			g_assert(dep < i);
			ix[dep + 1].dep_first++;
		}
	}
	/* dep_first (lane_first) holds each op's count of dependents (each
	 * lane's of ops) at [op + 1]: made offsets, then filled in list order */
	for (uint32_t i = 0; i < nops; i++)
		ix[i + 1].dep_first += ix[i].dep_first;
	uint32_t *dep_ops = g_new(uint32_t, ix[nops].dep_first ? ix[nops].dep_first : 1);
	g_autofree uint32_t *fill = g_new(uint32_t, nops ? nops : 1);

	for (uint32_t i = 0; i < nops; i++)
		fill[i] = ix[i].dep_first;
	for (uint32_t i = 0; i < nops; i++) {
		const struct sched_op *op = &sops[i % per];

		for (uint32_t d = 0; d < op->ndeps; d++)
			dep_ops[fill[sdeps[op->dep_first + d] + (i / per) * per]++] = i;
	}
	ri->ix = ix;
	ri->dep_ops = dep_ops;
	if (r->nlanes > 1) {
		uint32_t *first = g_new0(uint32_t, (gsize)r->nlanes + 1);
		uint32_t *ops = g_new(uint32_t, nops ? nops : 1);
		g_autofree uint32_t *at = g_new(uint32_t, r->nlanes);

		for (uint32_t i = 0; i < nops; i++)
			first[sops[i % per].lane + 1]++;
		for (uint32_t l = 0; l < r->nlanes; l++)
			first[l + 1] += first[l];
		memcpy(at, first, sizeof(uint32_t) * r->nlanes);
		for (uint32_t i = 0; i < nops; i++)
			ops[at[sops[i % per].lane]++] = i;
		ri->lane_first = first;
		ri->lane_ops = ops;
	}
}

/* Builds r's ranks for its schedule r->s (lanes, dependents) and matches
 * its sends and receives; the ops' run states and transactions are made as
 * the run reaches them. */
static bool setup(struct runner *r, uint64_t bytes, uint32_t elem_bytes, GError **error)
{
	const struct sched *s = r->s;

	r->elems = bytes / elem_bytes;
	r->elem_bytes = elem_bytes;
	if (!copies_keep_data(s, r->elems, error))
		return false;
	void *mem;

	if (posix_memalign(&mem, 64, sizeof(struct run_rank) * (gsize)MAX(s->nranks, 1)))
		g_error("runner: out of memory for %d ranks", s->nranks);
	r->ranks = memset(mem, 0, sizeof(struct run_rank) * (gsize)MAX(s->nranks, 1));
	r->call_end = g_new0(sim_time_t, r->calls);
	r->pp = paxi_get_params(r->px);
	r->elems_before = sched_elems_before(s, r->elems);
	r->pool = g_ptr_array_new_with_free_func(free);
	r->bd_pool = g_ptr_array_new_with_free_func(g_free);
	r->held = g_array_new(FALSE, FALSE, sizeof(struct held));
	if (r->lazy) {
		r->qunits = MIN(r->units, r->nlanes);
		r->queues = g_new0(struct op_fifo, (gsize)s->nranks * r->qunits);
		paxi_set_refill(r->px, on_refill, r);
	}
	/* elsewhere no post rides beside a landing: none is kept */
	if (r->pp->handshake == PAXI_HS_READY && r->pp->control == PAXI_CONTROL_OOB)
		r->landed = g_new0(struct paxi_landing, (gsize)MAX(s->nranks, 1));
	pool_init(&r->memos, sizeof(struct bd_memo), BD_MEMO_BLOCK);

	r->alike = share_index && ranks_alike(s);
	r->index = g_new0(struct rank_index, r->alike ? 1 : (gsize)MAX(s->nranks, 1));
	if (s->turned)
		r->sops0 = (const struct sched_op *)(const void *)s->ranks[0].ops->data;
	else
		r->sops = g_new(const struct sched_op *, (gsize)MAX(s->nranks, 1));
	if (r->calls > 1)
		r->call_left_more = g_new(uint32_t, (gsize)s->nranks * (r->calls - 1));
	for (int rank = 0; rank < s->nranks; rank++) {
		struct run_rank *rr = &r->ranks[rank];
		const struct sched_rank *sr = &s->ranks[s->turned ? 0 : rank];
		uint32_t per = sr->ops->len; /* ops of one call */

		if (r->sops)
			r->sops[rank] = (const struct sched_op *)(const void *)sr->ops->data;
		rr->per = per;
		if (r->nlanes > 1)
			rr->lanes = g_new0(struct run_lane, r->nlanes);
		rr->live = rr->live_in;
		rr->live_mask = LIVE_ROOM - 1;
		for (uint32_t c = 0; c < r->calls; c++)
			*call_left(r, rank, c) = per;
		r->left += rank_nops(r, rank);
		if (!r->alike || !rank)
			index_rank(r, rank, &r->index[rank]);
	}
	return match(r, error);
}

/* Frees what setup() made (also after a setup that failed part way). */
static void teardown(struct runner *r)
{
	for (int rank = 0; r->index && rank < (r->alike ? 1 : r->s->nranks); rank++) {
		struct rank_index *ri = &r->index[rank];

		g_free(ri->ix);
		g_free(ri->dep_ops);
		g_free(ri->lane_first);
		g_free(ri->lane_ops);
	}
	g_free(r->index);
	r->index = NULL;
	g_free(r->sops);
	r->sops = NULL;
	g_free(r->call_left_more);
	r->call_left_more = NULL;
	for (int rank = 0; r->ranks && rank < r->s->nranks; rank++) {
		struct run_rank *rr = &r->ranks[rank];

		if (rr->live != rr->live_in)
			g_free(rr->live);
		for (uint32_t l = 0; (r->nlanes == 1 || rr->lanes) && l < r->nlanes; l++) {
			struct dorm_win *w = rank_lane(r, rank, l)->win;

			if (w) {
				g_free(w->t);
				g_free(w->bd);
				g_free(w);
			}
		}
		if (r->nlanes > 1)
			g_free(rr->lanes);
	}
	free(r->ranks);
	g_free(r->landed);
	r->landed = NULL;
	g_free(r->span_base);
	r->span_base = NULL;
	g_free(r->call_end);
	g_free(r->elems_before);
	r->elems_before = NULL;
	if (r->lazy)
		paxi_set_refill(r->px, NULL, NULL);
	for (uint32_t q = 0; r->queues && q < (uint32_t)r->s->nranks * r->qunits; q++)
		fifo_release(&r->queues[q]);
	g_free(r->queues);
	r->queues = NULL;
	if (r->pool)
		g_ptr_array_unref(r->pool);
	if (r->bd_pool)
		g_ptr_array_unref(r->bd_pool);
	r->bd_pool = NULL;
	if (r->held)
		g_array_unref(r->held);
	r->held = NULL;
	pool_release(&r->memos);
	pool_release(&r->rests);
	r->pool = NULL;
	r->ranks = NULL;
	r->call_end = NULL;
}

static bool run(struct paxi *px, const struct sched *s, uint64_t bytes, uint32_t elem_bytes,
		sim_time_t overhead_ps, uint64_t max_events, const struct runner_launches *bb,
		struct runner_result *res, bool spans, GError **error)
{
	struct sim *sim = paxi_sim(px);
	uint32_t timed = bb && bb->calls > 1 ? bb->calls : 1;
	const struct paxi_params *pp = paxi_get_params(px);
	struct runner r = { .sim = sim, .px = px, .s = s, .nlanes = MAX(s->nlanes, 1),
			    .calls = MIN(timed, RUNNER_CALLS_SIMULATED), .bd_on = timed == 1 && !(bb && bb->no_breakdown),
			    .overhead_ps = overhead_ps, .issue_ps = bb ? bb->issue_ps : 0,
			    /* the sends and receives whose issue the queue can keep
			     * exact: no engine item or receive setup needs the
			     * transaction, no ready flag answers a post at once */
			    .lazy = runner_lazy(pp),
			    .units = pp->cdma_units };
	bool ok = false;

	memset(res, 0, sizeof(*res));
	res->steps = g_array_new(FALSE, TRUE, sizeof(struct runner_step));
	/* a match key, peer x nlanes + lane, holds every rank and lane */
	G_STATIC_ASSERT((uint64_t)SCHED_MAX_RANKS * SCHED_MAX_LANES <= UINT32_MAX);
	g_assert(s->nranks <= SCHED_MAX_RANKS && r.nlanes <= SCHED_MAX_LANES);
	if (s->nunits == 0) {
		g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_UNMATCHED,
			    "schedule has no units to run");
		return false;
	}
	/* only the breakdown's walks read the times paxi keeps when asked */
	paxi_keep_times(px, r.bd_on);
	if (!setup(&r, bytes, elem_bytes, error))
		goto out;
	/* steps and spans are filled in as ops end (op_record) */
	bool want_steps = !(bb && bb->no_steps);

	g_array_set_size(res->steps, want_steps ? (guint)s->nranks * s->nsteps : 0);
	for (int rank = 0; want_steps && rank < s->nranks; rank++)
		for (uint32_t st = 0; st < s->nsteps; st++) {
			struct runner_step *x = &g_array_index(res->steps, struct runner_step,
							       (guint)rank * s->nsteps + st);

			x->rank = rank;
			x->step = st;
			x->start_ps = SIM_TIME_MAX;
		}
	r.steps = want_steps ? res->steps : NULL;
	r.starts_read = want_steps || spans || r.bd_on;
	pool_init(&r.rests, sizeof(struct run_rest) + (r.starts_read ? sizeof(sim_time_t) : 0),
		  RUN_OP_BLOCK);
	if (spans) {
		guint n = 0;

		r.span_base = g_new(guint, (gsize)MAX(s->nranks, 1));
		for (int rank = 0; rank < s->nranks; rank++) {
			r.span_base[rank] = n;
			n += rank_nops(&r, rank);
		}
		res->spans = g_array_sized_new(FALSE, FALSE, sizeof(struct runner_op_span), n);
		g_array_set_size(res->spans, n);
		r.spans = res->spans;
	}
	sim_component_init(sim, &r.c, "runner", runner_handler);
	r.t0 = sim_now(sim);
	r.t_end = r.t0 + overhead_ps;
	sim_schedule(sim, overhead_ps, &r.c, RUN_KICK);
	enum sim_run_result how = sim_run(sim, SIM_TIME_MAX, max_events);

	if (how == SIM_RUN_OVERFLOW) {
		g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_CLOCK,
			    "the run's simulated time passed the end of the clock (2^63 ps, about "
			    "106 days) after %.3f s: the links are too slow, the size too large "
			    "or the loss too heavy for one run", (double)sim_now(sim) / 1e12);
		goto out;
	}
	if (how == SIM_RUN_LIMIT) {
		g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_EVENTS,
			    "the run reached its limit of %" G_GUINT64_FORMAT " events at %.3f us "
			    "of simulated time, with %" G_GUINT64_FORMAT " ops left", max_events,
			    (double)sim_now(sim) / 1e6, r.left);
		goto out;
	}
	if (r.left) {
		g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_DEADLOCK,
			    "schedule deadlocked: %" G_GUINT64_FORMAT " ops never completed", r.left);
		goto out;
	}
	res->latency_ps = r.t_end - r.t0;
	res->overhead_ps = overhead_ps;
	if (timed > 1) {
		/* the mean of `timed` calls: the simulated ones, then the rest at
		 * the pace of the last one */
		sim_time_t last = r.call_end[r.calls - 1] - r.t0;
		sim_time_t pace = r.call_end[r.calls - 1] - r.call_end[r.calls - 2];

		res->latency_ps = (last + (sim_time_t)(timed - r.calls) * pace) / timed;
	}
	for (int rank = 0; rank < s->nranks; rank++)
		res->ops += r.ranks[rank].per;
	res->ops_live_peak = r.ops_live_peak;
	for (int rank = 0; rank < s->nranks; rank++)
		for (uint32_t l = 0; l < r.nlanes; l++) {
			const struct dorm_win *w = rank_lane(&r, rank, l)->win;

			if (w)
				res->dormant_bytes += sizeof(*w) + (uint64_t)(w->mask + 1) *
						      (sizeof(sim_time_t) + (w->bd ? sizeof(void *) : 0));
		}
	if (r.bd_on) {
		if (r.has_last && r.last_end == r.t_end) {
			memcpy(res->breakdown, r.bd_last.c, sizeof(res->breakdown));
		} else {
			/* no op (or none after the overhead): all overhead */
			struct walk w = { .p = r.t_end, .bd = res->breakdown };

			give(&w, BD_DEPENDENCY, r.t0 + overhead_ps);
			give(&w, BD_OVERHEAD, r.t0);
		}
	}
	ok = true;
out:
	if (!ok) {
		g_array_set_size(res->steps, 0);
		if (res->spans)
			g_array_unref(res->spans);
		res->spans = NULL;
	}
	teardown(&r);
	return ok;
}

bool runner_lazy(const struct paxi_params *pp)
{
	return !pp->engine && !pp->setup_recv && pp->handshake != PAXI_HS_READY;
}

uint64_t runner_memory_bytes(const struct sched *s, const struct runner_launches *bb, bool spans,
			     const struct paxi_params *pp)
{
	uint64_t ops = 0, indexed;
	uint32_t calls = bb && bb->calls > 1 ? bb->calls : 1;
	bool steps = !(bb && bb->no_steps);
	bool starts_read = steps || spans || (calls == 1 && !(bb && bb->no_breakdown));

	for (int r = 0; r < s->nranks; r++)
		ops += sched_rank_len(s, r);
	calls = MIN(MAX(calls, 1), RUNNER_CALLS_SIMULATED);
	ops *= calls;
	indexed = share_index && ranks_alike(s) ? (uint64_t)s->ranks[0].ops->len * calls : ops;
	uint64_t live = runner_lazy(pp)
		? MIN(ops, (uint64_t)s->nranks * pp->cdma_units * RUNNER_LIVE_PER_SLOT * pp->slots)
		: ops;

	return indexed * (RUNNER_BYTES_PER_OP + (s->nlanes > 1 ? RUNNER_BYTES_PER_LANE_OP : 0)) +
	       live * RUNNER_BYTES_PER_LIVE_OP +
	       (runner_lazy(pp) && starts_read ? ops * RUNNER_BYTES_PER_DORMANT_OP : 0) +
	       (steps ? (uint64_t)s->nranks * s->nsteps * sizeof(struct runner_step) : 0);
}

bool runner_run(struct paxi *px, const struct sched *s, uint64_t bytes, uint32_t elem_bytes,
		sim_time_t overhead_ps, uint64_t max_events, struct runner_result *res,
		GError **error)
{
	return run(px, s, bytes, elem_bytes, overhead_ps, max_events, NULL, res, false, error);
}

bool runner_run_spans(struct paxi *px, const struct sched *s, uint64_t bytes,
		      uint32_t elem_bytes, sim_time_t overhead_ps, uint64_t max_events,
		      struct runner_result *res, GError **error)
{
	return run(px, s, bytes, elem_bytes, overhead_ps, max_events, NULL, res, true, error);
}

void runner_result_clear(struct runner_result *res)
{
	if (res->steps)
		g_array_unref(res->steps);
	if (res->spans)
		g_array_unref(res->spans);
	res->steps = NULL;
	res->spans = NULL;
}

bool runner_run_launches(struct paxi *px, const struct sched *s, uint64_t bytes,
			 uint32_t elem_bytes, sim_time_t overhead_ps, uint64_t max_events,
			 const struct runner_launches *bb, struct runner_result *res, GError **error)
{
	return run(px, s, bytes, elem_bytes, overhead_ps, max_events, bb, res, false, error);
}

/* ---- jobs ---- */

struct runner_job {
	struct runner r;
	char *name;          /* its component's name, unique in the sim */
	int *node_of;
};

struct runner_job *runner_job_new(struct paxi *px, uint64_t id, const struct sched *s,
				  const int *node_of, uint64_t bytes, uint32_t elem_bytes,
				  void (*rank_done)(void *user, int rank), void *user, GError **error)
{
	struct sim *sim = paxi_sim(px);
	struct runner_job *j;

	if (s->nunits == 0) {
		g_set_error(error, RUNNER_ERROR, RUNNER_ERROR_UNMATCHED,
			    "schedule has no units to run");
		return NULL;
	}
	j = g_new0(struct runner_job, 1);
	j->node_of = g_memdup2(node_of, sizeof(int) * (gsize)s->nranks);
	j->r = (struct runner){ .sim = sim, .px = px, .s = s, .nlanes = MAX(s->nlanes, 1),
				.calls = 1, .node_of = j->node_of, .rank_done = rank_done,
				.user = user };
	if (!setup(&j->r, bytes, elem_bytes, error)) {
		runner_job_free(j);
		return NULL;
	}
	j->name = g_strdup_printf("runner.job%" G_GUINT64_FORMAT, id);
	sim_component_init(sim, &j->r.c, j->name, runner_handler);
	j->r.t0 = j->r.t_end = sim_now(sim);
	return j;
}

void runner_job_launch(struct runner_job *j, int rank, sim_time_t delay_ps)
{
	struct sim_event *ev = sim_schedule(j->r.sim, delay_ps, &j->r.c, RUN_LAUNCH);

	ev->data[0].u = (uint64_t)rank;
}

uint64_t runner_job_left(const struct runner_job *j)
{
	return j->r.left;
}

void runner_job_free(struct runner_job *j)
{
	if (!j)
		return;
	teardown(&j->r);
	g_free(j->node_of);
	g_free(j->name);
	g_free(j);
}
