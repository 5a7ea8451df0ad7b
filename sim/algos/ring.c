/* The ring family: `ring` (1-port), `sendrecv` (the same ring with Send/Recv)
 * and `ring2p` (the seed's 2-port bidirectional ring), each for AllReduce,
 * AllGather and ReduceScatter.
 *
 * All three cut the data into N blocks (block b is reduced at, or owned by,
 * rank b) and every block into nchunks = K pieces; unit b*K + p is piece p of
 * block b. Each piece travels the ring on its own: the ops of one piece form
 * a chain, and a rank's list holds the chains' ops step by step, piece by
 * piece ((step, piece) order), so piece p+1 of step s is issued right after
 * piece p and the steps of different pieces overlap. Local deps come from
 * the hazard tracker (schedule.h): an op depends on exactly the earlier ops
 * whose cells it touches, which in place means that the all-gather half
 * waits for the reduce-scatter op that read the block it overwrites.
 *
 * 1-port ring, lane 0, send to r+1, receive from r-1. Op i of a piece at
 * rank r works on block r-i-1 during the reduce-scatter half (i <= N-1) and
 * on block r-i+N-1 during the all-gather half (i >= N-1); both give block r
 * at i = N-1. AllReduce is NCCL's ring kernel op for op: send, (N-2) x
 * recv-reduce-send, recv-reduce-copy-send, (N-2) x recv-copy-send, recv:
 * 2N-1 ops carrying 2(N-1) transfers. An op's step is the transfer it sends
 * (op i sends transfer i); the final recv has the step of the transfer it
 * receives, so AllReduce has 2(N-1) steps. ReduceScatter is the first half
 * ending in recv-reduce-copy (N-1 steps); AllGather is send,
 * (N-2) x recv-copy-send, recv (N-1 steps) from the input's block, plus one
 * copy of the rank's own block from input to output (a no-op in place).
 *
 * 2-port ring (ring2p), lane 0 clockwise (to r+1), lane 1 counter-clockwise
 * (to r-1). A block never splits: it travels F = floor(N/2) hops clockwise
 * and H = N-1-F = ceil(N/2)-1 hops counter-clockwise, covering the N-1 other
 * ranks, so each phase takes F steps (H = F for odd N; for even N the last
 * step of a phase uses lane 0 only).
 *   Reduce-scatter of block b: a clockwise chain starts at rank b-F with its
 *   input and recv-reduce-sends through b-F+1 .. b-1; a counter-clockwise
 *   chain starts at b+H and recv-reduce-sends through b+H-1 .. b+1. Rank b
 *   adds them: recv-reduce of the counter-clockwise partial into its output
 *   (A), then of the clockwise one (B). In AllReduce B also starts the
 *   all-gather (recv-reduce-copy-send clockwise) and a send C starts it
 *   counter-clockwise.
 *   All-gather of block b: F hops clockwise, H hops counter-clockwise, by
 *   send, recv-copy-send..., recv on each lane.
 * AllReduce takes 2F steps (the seed's 2 ceil(N/2) for even N), AllGather
 * and ReduceScatter F. Every transfer sent in slot t of a lane is received
 * in slot t+1 of the neighbour's same lane, and each rank lists its ops by
 * (slot, piece), which keeps FIFO matching per (sender, receiver, lane)
 * aligned for any N and K. */
#include <stdlib.h>

#include "sim/algos/families.h"

struct ring_gen {
	struct sched *s;
	struct sched_hazards *h;
	int n;
	uint32_t k;
	uint8_t paxi;
};

static uint32_t ring_unit(const struct ring_gen *g, long block, uint32_t piece)
{
	long b = ((block % g->n) + g->n) % g->n;

	return (uint32_t)b * g->k + piece;
}

static struct sched_op ring_op(const struct ring_gen *g, enum sched_op_kind kind, uint8_t lane,
			       uint32_t step, int recv_peer, int send_peer)
{
	struct sched_op o = {
		.kind = (uint8_t)kind,
		.paxi = g->paxi,
		.lane = lane,
		.recv_peer = recv_peer,
		.send_peer = send_peer,
		.count = 1,
		.step = step,
	};
	return o;
}

static void ring_src(struct sched_op *o, enum sched_buf b, uint32_t unit)
{
	o->src_buf = (uint8_t)b;
	o->src_off = unit;
}

static void ring_dst(struct sched_op *o, enum sched_buf b, uint32_t unit)
{
	o->dst_buf = (uint8_t)b;
	o->dst_off = unit;
}

static struct sched *ring_new(enum coll c, const struct algo_params *p, const char *name,
			      enum paxi_kind paxi, struct ring_gen *g)
{
	g->n = p->nranks;
	g->k = p->nchunks;
	g->paxi = (uint8_t)paxi;
	g->s = sched_new(c, name, p->nranks, (uint32_t)p->nranks, p->nchunks);
	g->s->inplace_ok = true;
	/* every rank is rank 0 turned: peers r -+ 1, blocks moved by r */
	g->s->turned = p->turned;
	g->s->turn_units = p->turned ? p->nchunks : 0;
	g->h = sched_hazards_new(g->s);
	return g->s;
}

static struct sched *ring_done(struct ring_gen *g)
{
	sched_hazards_free(g->h);
	return g->s;
}

/* ---- 1-port ---- */

static struct sched *ring1_build(enum coll c, const struct algo_params *p, const char *name,
				 enum paxi_kind paxi)
{
	struct ring_gen g;

	ring_new(c, p, name, paxi, &g);
	int n = g.n;
	/* ops per piece */
	int nops = c == COLL_ALLREDUCE ? 2 * n - 1 : n;

	for (int r = 0; r < (p->turned ? 1 : n); r++) {
		int left = (r + n - 1) % n, right = (r + 1) % n;

		/* about one dep per op */
		sched_reserve(g.s, r, (uint32_t)nops * g.k + 1, (uint32_t)nops * g.k + 1);
		for (int i = 0; i < nops; i++) {
			for (uint32_t pc = 0; pc < g.k; pc++) {
				struct sched_op o;
				uint32_t u;

				if (c == COLL_ALLGATHER) {
					u = ring_unit(&g, r - i, pc);
					if (i == 0 && p->fuse_copy) {
						o = ring_op(&g, SOP_COPY_SEND, 0, 0, -1, right);
						ring_src(&o, SBUF_IN, u);
						ring_dst(&o, SBUF_OUT, u);
					} else if (i == 0) {
						o = ring_op(&g, SOP_SEND, 0, 0, -1, right);
						ring_src(&o, SBUF_IN, u);
					} else if (i < n - 1) {
						o = ring_op(&g, SOP_RECV_COPY_SEND, 0, (uint32_t)i, left, right);
						ring_dst(&o, SBUF_OUT, u);
					} else {
						o = ring_op(&g, SOP_RECV, 0, (uint32_t)n - 2, left, -1);
						ring_dst(&o, SBUF_OUT, u);
					}
				} else if (c == COLL_REDUCESCATTER) {
					u = ring_unit(&g, r - i - 1, pc);
					if (i == 0) {
						o = ring_op(&g, SOP_SEND, 0, 0, -1, right);
						ring_src(&o, SBUF_IN, u);
					} else if (i < n - 1) {
						o = ring_op(&g, SOP_RECV_REDUCE_SEND, 0, (uint32_t)i, left, right);
						ring_src(&o, SBUF_IN, u);
					} else {
						o = ring_op(&g, SOP_RECV_REDUCE_COPY, 0, (uint32_t)n - 2, left, -1);
						ring_src(&o, SBUF_IN, u);
						ring_dst(&o, SBUF_OUT, u);
					}
				} else {
					u = ring_unit(&g, i < n ? r - i - 1 : r - i + n - 1, pc);
					if (i == 0) {
						o = ring_op(&g, SOP_SEND, 0, 0, -1, right);
						ring_src(&o, SBUF_IN, u);
					} else if (i < n - 1) {
						o = ring_op(&g, SOP_RECV_REDUCE_SEND, 0, (uint32_t)i, left, right);
						ring_src(&o, SBUF_IN, u);
					} else if (i == n - 1) {
						o = ring_op(&g, SOP_RECV_REDUCE_COPY_SEND, 0, (uint32_t)i, left, right);
						ring_src(&o, SBUF_IN, u);
						ring_dst(&o, SBUF_OUT, u);
					} else if (i < 2 * n - 2) {
						o = ring_op(&g, SOP_RECV_COPY_SEND, 0, (uint32_t)i, left, right);
						ring_dst(&o, SBUF_OUT, u);
					} else {
						o = ring_op(&g, SOP_RECV, 0, 2 * (uint32_t)n - 3, left, -1);
						ring_dst(&o, SBUF_OUT, u);
					}
				}
				sched_add_tracked(g.s, g.h, r, &o, NULL, 0);
			}
		}
		if (c == COLL_ALLGATHER && !p->fuse_copy) {
			/* the own block, copied after it is sent (fused: above) */
			struct sched_op o = ring_op(&g, SOP_COPY, 0, 0, -1, -1);

			o.count = g.k;
			ring_src(&o, SBUF_IN, ring_unit(&g, r, 0));
			ring_dst(&o, SBUF_OUT, ring_unit(&g, r, 0));
			sched_add_tracked(g.s, g.h, r, &o, NULL, 0);
		}
	}
	return ring_done(&g);
}

static struct sched *ring_build(enum coll c, const struct algo_params *p, GError **error)
{
	return ring1_build(c, p, "ring", PAXI_TRANSFER);
}

static struct sched *sendrecv_build(enum coll c, const struct algo_params *p, GError **error)
{
	return ring1_build(c, p, "sendrecv", PAXI_SENDRECV);
}

static void ring_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	double n = p->nranks;

	if (c == COLL_ALLREDUCE) {
		out->steps = 2 * (n - 1);
		out->coef = 2 * (n - 1) / n;
	} else {
		out->steps = n - 1;
		out->coef = (n - 1) / n;
	}
}

/* ---- 2-port ---- */

/* An op with its place in the rank's list: (slot, piece, role). */
struct ring2p_item {
	uint32_t slot, piece, role;
	struct sched_op op;
};

static int ring2p_item_cmp(const void *a, const void *b)
{
	const struct ring2p_item *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->piece != y->piece)
		return x->piece < y->piece ? -1 : 1;
	return x->role < y->role ? -1 : x->role > y->role;
}

static void ring2p_push(GArray *items, uint32_t slot, uint32_t piece, uint32_t role,
			const struct sched_op *o)
{
	struct ring2p_item it = { .slot = slot, .piece = piece, .role = role, .op = *o };

	g_array_append_val(items, it);
}

static struct sched *ring2p_build(enum coll c, const struct algo_params *p, GError **error)
{
	struct ring_gen g;

	ring_new(c, p, "ring2p", PAXI_TRANSFER, &g);
	const int n = g.n;
	const int F = n / 2, H = n - 1 - F;
	const bool ar = c == COLL_ALLREDUCE;
	GArray *items = g_array_new(FALSE, FALSE, sizeof(struct ring2p_item));

	for (int r = 0; r < (p->turned ? 1 : n); r++) {
		const int left = (r + n - 1) % n, right = (r + 1) % n;

		g_array_set_size(items, 0);
		for (uint32_t pc = 0; pc < g.k; pc++) {
			struct sched_op o;
			const uint32_t own = ring_unit(&g, r, pc);

			if (c == COLL_ALLGATHER) {
				for (int j = 0; j < F; j++) {
					if (j == 0) {
						o = ring_op(&g, SOP_SEND, 0, 0, -1, right);
						ring_src(&o, SBUF_IN, own);
					} else {
						o = ring_op(&g, SOP_RECV_COPY_SEND, 0, (uint32_t)j, left, right);
						ring_dst(&o, SBUF_OUT, ring_unit(&g, r - j, pc));
					}
					ring2p_push(items, (uint32_t)j, pc, 0, &o);
				}
				for (int j = 0; j < H; j++) {
					if (j == 0) {
						o = ring_op(&g, SOP_SEND, 1, 0, -1, left);
						ring_src(&o, SBUF_IN, own);
					} else {
						o = ring_op(&g, SOP_RECV_COPY_SEND, 1, (uint32_t)j, right, left);
						ring_dst(&o, SBUF_OUT, ring_unit(&g, r + j, pc));
					}
					ring2p_push(items, (uint32_t)j, pc, 1, &o);
				}
				o = ring_op(&g, SOP_RECV, 0, (uint32_t)F - 1, left, -1);
				ring_dst(&o, SBUF_OUT, ring_unit(&g, r - F, pc));
				ring2p_push(items, (uint32_t)F, pc, 2, &o);
				if (H >= 1) {
					o = ring_op(&g, SOP_RECV, 1, (uint32_t)H - 1, right, -1);
					ring_dst(&o, SBUF_OUT, ring_unit(&g, r + H, pc));
					ring2p_push(items, (uint32_t)H, pc, 3, &o);
				}
				if (pc == 0) {
					o = ring_op(&g, SOP_COPY, 0, 0, -1, -1);
					o.count = g.k;
					ring_src(&o, SBUF_IN, own);
					ring_dst(&o, SBUF_OUT, own);
					ring2p_push(items, (uint32_t)F + 1, 0, 4, &o);
				}
				continue;
			}

			/* reduce-scatter half: role 0 clockwise, role 1 counter-clockwise */
			for (int s = 0; s < F; s++) {
				uint32_t u = ring_unit(&g, r + F - s, pc);

				o = ring_op(&g, s ? SOP_RECV_REDUCE_SEND : SOP_SEND, 0, (uint32_t)s,
					    s ? left : -1, right);
				ring_src(&o, SBUF_IN, u);
				ring2p_push(items, (uint32_t)s, pc, 0, &o);
			}
			for (int s = 0; s < H; s++) {
				uint32_t u = ring_unit(&g, r - H + s, pc);

				o = ring_op(&g, s ? SOP_RECV_REDUCE_SEND : SOP_SEND, 1, (uint32_t)s,
					    s ? right : -1, left);
				ring_src(&o, SBUF_IN, u);
				ring2p_push(items, (uint32_t)s, pc, 1, &o);
			}
			/* A: the counter-clockwise partial */
			if (H >= 1) {
				o = ring_op(&g, SOP_RECV_REDUCE, 1, (uint32_t)H - 1, right, -1);
				ring_src(&o, SBUF_IN, own);
				ring_dst(&o, SBUF_OUT, own);
				ring2p_push(items, (uint32_t)H, pc, 2, &o);
			}
			/* B: the clockwise partial; in AllReduce it starts the all-gather */
			if (ar)
				o = ring_op(&g, SOP_RECV_REDUCE_COPY_SEND, 0, (uint32_t)F, left, right);
			else
				o = ring_op(&g, SOP_RECV_REDUCE_COPY, 0, (uint32_t)F - 1, left, -1);
			ring_src(&o, H >= 1 ? SBUF_OUT : SBUF_IN, own);
			ring_dst(&o, SBUF_OUT, own);
			ring2p_push(items, (uint32_t)F, pc, 3, &o);
			if (!ar)
				continue;
			/* C and the all-gather half */
			if (H >= 1) {
				o = ring_op(&g, SOP_SEND, 1, (uint32_t)F, -1, left);
				ring_src(&o, SBUF_OUT, own);
				ring2p_push(items, (uint32_t)F, pc, 4, &o);
			}
			for (int j = 1; j < F; j++) {
				o = ring_op(&g, SOP_RECV_COPY_SEND, 0, (uint32_t)(F + j), left, right);
				ring_dst(&o, SBUF_OUT, ring_unit(&g, r - j, pc));
				ring2p_push(items, (uint32_t)(F + j), pc, 5, &o);
			}
			o = ring_op(&g, SOP_RECV, 0, 2 * (uint32_t)F - 1, left, -1);
			ring_dst(&o, SBUF_OUT, ring_unit(&g, r - F, pc));
			ring2p_push(items, 2 * (uint32_t)F, pc, 6, &o);
			for (int j = 1; j < H; j++) {
				o = ring_op(&g, SOP_RECV_COPY_SEND, 1, (uint32_t)(F + j), right, left);
				ring_dst(&o, SBUF_OUT, ring_unit(&g, r + j, pc));
				ring2p_push(items, (uint32_t)(F + j), pc, 7, &o);
			}
			if (H >= 1) {
				o = ring_op(&g, SOP_RECV, 1, (uint32_t)(F + H - 1), right, -1);
				ring_dst(&o, SBUF_OUT, ring_unit(&g, r + H, pc));
				ring2p_push(items, (uint32_t)(F + H), pc, 8, &o);
			}
		}
		qsort(items->data, items->len, sizeof(struct ring2p_item), ring2p_item_cmp);
		for (guint i = 0; i < items->len; i++)
			sched_add_tracked(g.s, g.h, r, &g_array_index(items, struct ring2p_item, i).op,
					  NULL, 0);
	}
	g_array_unref(items);
	return ring_done(&g);
}

static void ring2p_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	double n = p->nranks, f = p->nranks / 2;

	if (c == COLL_ALLREDUCE) {
		out->steps = 2 * f;
		out->coef = 2 * (n - 1) / n;
	} else {
		out->steps = f;
		out->coef = (n - 1) / n;
	}
}

#define RING_COLLS (COLL_ALLREDUCE | COLL_ALLGATHER | COLL_REDUCESCATTER)

const struct algo_ops algo_ring_ops = {
	.name = "ring",
	.summary = "1-port ring (NCCL's ring kernel), Transfer",
	.collectives = RING_COLLS,
	.default_paxi = PAXI_TRANSFER,
	.build = ring_build,
	.theory = ring_theory,
};

const struct algo_ops algo_ring2p_ops = {
	.name = "ring2p",
	.summary = "2-port bidirectional ring, floor(N/2) steps per phase, Transfer",
	.collectives = RING_COLLS,
	.default_paxi = PAXI_TRANSFER,
	.build = ring2p_build,
	.theory = ring2p_theory,
};

const struct algo_ops algo_sendrecv_ops = {
	.name = "sendrecv",
	.summary = "1-port ring with Send/Recv",
	.collectives = RING_COLLS,
	.default_paxi = PAXI_SENDRECV,
	.build = sendrecv_build,
	.theory = ring_theory,
};
