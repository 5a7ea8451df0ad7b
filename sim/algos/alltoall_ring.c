/* sim/algos/alltoall_ring — AllToAll over ring neighbours only: "ring" sends
 * every block clockwise; "ring2p" (at the end of this file) sends each block
 * the shorter way round, on both directions of a bidirectional ring.
 *
 * Data moves only from rank r to rank r + 1, so on a ring no transfer is
 * multi-hop (pairwise's contention, seed study item 3). In step s (s = 1..N-1,
 * step index s - 1) rank r sends rank r + 1 the bundle of N - s blocks that
 * started at rank q = r - s + 1 and are destined to r + 1 .. r + N - s: its
 * head (the block for r + 1, stored straight into r + 1's output block q) and
 * its rest (the N - s - 1 blocks r + 1 forwards in the next step). In step 1
 * the bundle is the rank's own input (the rest wraps around the input's end,
 * so it may go as two messages); later it is the rest received in the step
 * before, kept in scratch. The rank's own block is copied from input to
 * output in step 0.
 *
 * Why not one fused recv-copy-send per step: the bundle shrinks by one block
 * per hop, while a fused op sends exactly what it receives, so the forwarded
 * rest must be stored (two scratch regions of N - 2 blocks, used in turn) and
 * sent by a separate op that waits for it. nchunks is the pipelining knob:
 * each message goes as nchunks runs and run k of a step waits
 * (sched_add_tracked) only for the runs of the step before that it forwards.
 *
 * Op order per rank and step: receive the rest, send the rest, send the
 * head, receive the head. The head lands in the output, which in place is
 * the input that step 1 sent; the receive after the sends carries that
 * write-after-read dep, and keeping it last lets every send find its
 * receive issued, so Send/Recv does not deadlock either (N = 2, whose one
 * step would receive onto the block it sends, goes through scratch, see
 * a2ar_head). Transfer by
 * default. Scratch slots hold blocks bound for different ranks, which
 * relies on AllToAll blocks all having one size (as AllToAll itself does:
 * input block r of rank q becomes output block q of rank r).
 *
 * Theory (alpha-beta): N - 1 steps. Bandwidth: link r -> r + 1 carries
 * N - s blocks of M/N in step s, sum_{s=1}^{N-1} (N - s) = N (N-1)/2 blocks
 * in all, so coef = (N-1)/2 (one direction of the ring; pairwise moves the
 * same bytes over a unidirectional ring, but as multi-hop flows). */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

struct a2ar_gen {
	struct sched *s;
	struct sched_hazards *h;
	enum paxi_kind px;
	int n;
	uint32_t nc;
};

/* n blocks from `from` (buffer sb, block sbk) to from + 1 (buffer db, block
 * dbk), as nchunks runs: the sends, or the receives. */
static void a2ar_msg(struct a2ar_gen *g, bool send, uint32_t step, int from,
		     enum sched_buf sb, uint32_t sbk, enum sched_buf db, uint32_t dbk, uint32_t n)
{
	int to = (from + 1) % g->n;

	for (uint32_t k = 0; k < g->nc && n > 0; k++) {
		struct sched_op op = {
			.paxi = g->px, .recv_peer = -1, .send_peer = -1, .count = n,
			.step = step,
		};

		if (send) {
			op.kind = SOP_SEND;
			op.send_peer = to;
			op.src_buf = sb;
			op.src_off = sbk * g->nc + k * n;
			sched_add_tracked(g->s, g->h, from, &op, NULL, 0);
		} else {
			op.kind = SOP_RECV;
			op.recv_peer = from;
			op.dst_buf = db;
			op.dst_off = dbk * g->nc + k * n;
			sched_add_tracked(g->s, g->h, to, &op, NULL, 0);
		}
	}
}

/* The rest of step s sent by `from`: one message, or two when it wraps
 * around the input in step 1. */
static void a2ar_rest(struct a2ar_gen *g, bool send, int s, int from)
{
	int n = g->n;
	uint32_t len = (uint32_t)(n - s - 1);
	uint32_t region = (uint32_t)((s % 2) * (n - 2));     /* received into */
	uint32_t prev = (uint32_t)(((s - 1) % 2) * (n - 2)); /* sent from */

	if (len == 0)
		return;
	if (s == 1) {
		uint32_t first = (uint32_t)((from + 2) % n);
		uint32_t a = MIN(len, (uint32_t)n - first);

		a2ar_msg(g, send, 0, from, SBUF_IN, first, SBUF_SCRATCH, region, a);
		a2ar_msg(g, send, 0, from, SBUF_IN, 0, SBUF_SCRATCH, region + a, len - a);
	} else {
		a2ar_msg(g, send, (uint32_t)s - 1, from, SBUF_SCRATCH, prev + 1, SBUF_SCRATCH,
			 region, len);
	}
}

static void a2ar_head(struct a2ar_gen *g, bool send, int s, int from)
{
	int n = g->n, to = (from + 1) % n;
	uint32_t src = (uint32_t)((s - 1) % 2 * (n - 2));
	uint32_t q = (uint32_t)((to - s + n) % n);

	if (n == 2) {
		/* The head is the whole exchange, and in place it lands on the
		 * block the rank sends in the same step: receive it into
		 * scratch and copy it, or under Send/Recv each receive would
		 * wait for the rank's own send, which waits for it. */
		a2ar_msg(g, send, 0, from, SBUF_IN, (uint32_t)to, SBUF_SCRATCH, 0, 1);
		if (!send)
			for (uint32_t k = 0; k < g->nc; k++)
				sched_add_tracked(g->s, g->h, to, &(struct sched_op){
					.kind = SOP_COPY, .paxi = g->px, .recv_peer = -1,
					.send_peer = -1, .src_buf = SBUF_SCRATCH, .src_off = k,
					.dst_buf = SBUF_OUT, .dst_off = q * g->nc + k, .count = 1,
					.step = 0,
				}, NULL, 0);
	} else if (s == 1) {
		a2ar_msg(g, send, 0, from, SBUF_IN, (uint32_t)to, SBUF_OUT, q, 1);
	} else {
		a2ar_msg(g, send, (uint32_t)s - 1, from, SBUF_SCRATCH, src, SBUF_OUT, q, 1);
	}
}

static struct sched *a2ar_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLTOALL); /* the registry admits only our collectives */

	int n = p->nranks;
	struct a2ar_gen g = {
		.s = sched_new(c, "ring", n, (uint32_t)n, p->nchunks),
		.px = algo_ring_a2a_ops.default_paxi,
		.n = n,
		.nc = p->nchunks,
	};

	g.s->scratch_units = (uint32_t)MAX(2 * (n - 2), 1) * g.nc;
	g.h = sched_hazards_new(g.s);
	for (int r = 0; r < n; r++)
		for (uint32_t k = 0; k < g.nc; k++) {
			uint32_t u = (uint32_t)r * g.nc + k;

			sched_add_tracked(g.s, g.h, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = g.px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
				.dst_off = u, .count = 1, .step = 0,
			}, NULL, 0);
		}
	/* Per rank r and step: receive the rest (from r - 1), send the rest
	 * and the head (to r + 1), receive the head (from r - 1); each pair
	 * sees rest then head on both sides. */
	for (int s = 1; s < n; s++)
		for (int r = 0; r < n; r++) {
			int left = (r - 1 + n) % n;

			a2ar_rest(&g, false, s, left);
			a2ar_rest(&g, true, s, r);
			a2ar_head(&g, true, s, r);
			a2ar_head(&g, false, s, left);
		}
	sched_hazards_free(g.h);
	g.s->inplace_ok = true;
	return g.s;
}

static void a2ar_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = p->nranks - 1;
	out->coef = (p->nranks - 1) / 2.0;
}

const struct algo_ops algo_ring_a2a_ops = {
	.name = "ring",
	.summary = "ring AllToAll: blocks travel between ring neighbours only, each rank "
		   "forwarding the ones destined further on (N-1 steps)",
	.collectives = COLL_ALLTOALL,
	.default_paxi = PAXI_TRANSFER,
	.build = a2ar_build,
	.theory = a2ar_theory,
};

/* ---- ring2p: both directions of the ring ----
 *
 * Each source q cuts its blocks into two bundles by the shorter way round:
 * the blocks at clockwise distance d = 1..D (D = floor(N/2)) travel clockwise
 * on lane 0 (to r + 1), those at counter-clockwise distance 1..D
 * counter-clockwise on lane 1 (to r - 1), each direction forwarding between
 * neighbours exactly as `ring` does: in hop h (step h - 1) the sender passes
 * on the bundle minus the blocks already delivered, its head (the block at
 * distance h) stored straight into the receiver's output, its rest into
 * scratch. Odd N: both directions carry D full blocks per source. Even N:
 * the block at distance N/2 is split by pieces: pieces [0, c_q) go clockwise
 * and [c_q, K) counter-clockwise, c_q = ceil(K/2) for even q and floor(K/2)
 * for odd q (K = nchunks). With K even every such block is halved; with K = 1
 * the rule is source parity (even sources clockwise, as the router does for
 * pairwise, docs/algorithms.md); with K odd > 1 it alternates the odd piece.
 *
 * Layout. A bundle is one unit range: clockwise, blocks q+1 .. q+D in input
 * order, the split block's low pieces last; counter-clockwise, blocks q-D ..
 * q-1, the split block's high pieces first, so its head is at the end. Rests
 * keep that order in scratch: clockwise from a region's start, counter-
 * clockwise ending at the region's end, which keeps every unit at a scratch
 * unit of its own piece index. Scratch: per direction two regions of
 * (D - 1) K units used in turn, then K units for the clockwise first head.
 *
 * In place. The block a rank receives from q lands on input block q, which
 * the rank sent in step 0 the other way round; the hazard tracker makes the
 * receive wait for that send. For d = 1 in both directions that is a swap
 * between neighbours in the same step, which deadlocks under Send/Recv (each
 * receive waits for its own rank's send, which waits for the other's
 * receive): the clockwise first head therefore lands in scratch and is
 * copied out once the counter-clockwise send has read its block. On two
 * ranks both directions join the same pair and each first head is a swap
 * within its lane, so both go through scratch there.
 *
 * Op order per rank and step, as `ring`, lane 0 then lane 1: receive the
 * rest, send the rest, send the head, receive the head. A rest goes as K
 * runs (the pipelining knob), far end first, and a run waits only for the
 * runs it forwards; a head, which nothing forwards, goes as one op. With
 * K = 1 every hop is store-and-forward of a whole rest, and for even N the
 * parity split sends 4 + 3 blocks (N = 8) out of each rank in step 0, so
 * neighbouring links run unequal steps and idle in turn; K = 2 halves the
 * split blocks and pipelines the hops.
 *
 * Theory (alpha-beta): floor(N/2) steps. Bandwidth: a clockwise link r -> r+1
 * carries, from each distance d, the blocks of the d sources r-d+1 .. r. Odd
 * N: sum_{d=1}^{D} d = D(D+1)/2 blocks of M/N per link, coef =
 * (N^2 - 1) / (8N). Even N: sum_{d=1}^{D-1} d = D(D-1)/2 full blocks plus D
 * split blocks of which half, D/2, go each way: D^2/2 = N^2/8 blocks, coef =
 * N/8 (N = 8: 1.0, against `ring`'s 3.5). The halves are exact for K even
 * or N a multiple of 4; for N = 2 mod 4 and K odd a link carries up to
 * 1/(2K) of a block more. */

struct a2a2_gen {
	struct sched *s;
	struct sched_hazards *h;
	enum paxi_kind px;
	int n;
	uint32_t k;      /* nchunks */
	uint32_t d;      /* floor(N/2): the most hops in either direction */
	uint32_t region; /* units per rest region: (d - 1) k */
};

enum { A2A2_CW = 0, A2A2_CCW = 1 };

static int a2a2_mod(const struct a2a2_gen *g, long x)
{
	return (int)(((x % g->n) + g->n) % g->n);
}

/* Pieces of source q's block at distance `dist` that travel direction dir. */
static uint32_t a2a2_width(const struct a2a2_gen *g, int dir, int q, uint32_t dist)
{
	if (dist < 1 || dist > g->d)
		return 0;
	if (g->n % 2 || dist < g->d)
		return g->k;
	uint32_t cw = (g->k + (q % 2 == 0)) / 2;

	return dir == A2A2_CW ? cw : g->k - cw;
}

/* Units of source q's bundle in direction dir from distance `dist` on. */
static uint32_t a2a2_span(const struct a2a2_gen *g, int dir, int q, uint32_t dist)
{
	uint32_t sum = 0;

	for (uint32_t x = dist; x <= g->d; x++)
		sum += a2a2_width(g, dir, q, x);
	return sum;
}

/* First unit of rest region `which` of direction dir. */
static uint32_t a2a2_region(const struct a2a2_gen *g, int dir, uint32_t which)
{
	return (uint32_t)(2 * dir + (int)which) * g->region;
}

/* One op of a message: the send at `from`, or the receive at its neighbour. */
static void a2a2_op(struct a2a2_gen *g, bool send, int dir, uint32_t step, int from,
		    enum sched_buf sb, uint32_t soff, enum sched_buf db, uint32_t doff, uint32_t n)
{
	int to = a2a2_mod(g, from + (dir == A2A2_CW ? 1 : -1));
	struct sched_op op = {
		.paxi = g->px, .lane = (uint8_t)dir, .recv_peer = -1, .send_peer = -1,
		.count = n, .step = step,
	};

	if (!n)
		return;
	if (send) {
		op.kind = SOP_SEND;
		op.send_peer = to;
		op.src_buf = sb;
		op.src_off = soff;
		sched_add_tracked(g->s, g->h, from, &op, NULL, 0);
	} else {
		op.kind = SOP_RECV;
		op.recv_peer = from;
		op.dst_buf = db;
		op.dst_off = doff;
		sched_add_tracked(g->s, g->h, to, &op, NULL, 0);
	}
}

/* `len` units from `from` to its neighbour in direction dir as `runs` runs
 * (the floor rule), the far end of the bundle first: clockwise the runs go
 * last to first, so in both directions the part the next hop forwards
 * arrives first. From the input the range is taken around the input's end,
 * a run that wraps going as two ops. */
static void a2a2_msg(struct a2a2_gen *g, bool send, int dir, uint32_t step, int from,
		     enum sched_buf sb, uint32_t soff, enum sched_buf db, uint32_t doff,
		     uint32_t len, uint32_t runs)
{
	uint32_t nu = g->s->nunits;

	for (uint32_t i = 0; i < runs; i++) {
		uint32_t run = dir == A2A2_CW ? runs - 1 - i : i;
		uint32_t n = len / runs + (run < len % runs);
		uint32_t at = run * (len / runs) + MIN(run, len % runs);
		uint32_t src = soff + at, a = n;

		if (sb == SBUF_IN) {
			src %= nu;
			a = MIN(n, nu - src);
		}
		a2a2_op(g, send, dir, step, from, sb, src, db, doff + at, a);
		a2a2_op(g, send, dir, step, from, sb, 0, db, doff + at + a, n - a);
	}
}

/* The rest of hop h (1..D) sent by `from` in direction dir. */
static void a2a2_rest(struct a2a2_gen *g, bool send, int dir, uint32_t h, int from)
{
	bool cw = dir == A2A2_CW;
	int q = a2a2_mod(g, cw ? from - (int)h + 1 : from + (int)h - 1);
	uint32_t head = a2a2_width(g, dir, q, h);
	uint32_t len = a2a2_span(g, dir, q, h + 1);
	uint32_t in = a2a2_region(g, dir, h % 2);  /* received into */
	uint32_t out = a2a2_region(g, dir, (h - 1) % 2); /* sent from */
	uint32_t doff = cw ? in : in + g->region - len;

	if (!len)
		return;
	if (h == 1) {
		/* clockwise: blocks q+2 ..; counter-clockwise: .. q-2, ending at block q-1 */
		uint32_t start = cw ? (uint32_t)a2a2_mod(g, q + 2) * g->k
				    : ((uint32_t)a2a2_mod(g, q - 1) * g->k + g->s->nunits - len) %
					      g->s->nunits;

		a2a2_msg(g, send, dir, 0, from, SBUF_IN, start, SBUF_SCRATCH, doff, len, g->k);
	} else {
		uint32_t soff = cw ? out + head : out + g->region - head - len;

		a2a2_msg(g, send, dir, h - 1, from, SBUF_SCRATCH, soff, SBUF_SCRATCH, doff, len,
			 g->k);
	}
}

/* The head of hop h sent by `from`: source q's block for from's neighbour. */
static void a2a2_head(struct a2a2_gen *g, bool send, int dir, uint32_t h, int from)
{
	bool cw = dir == A2A2_CW;
	int to = a2a2_mod(g, from + (cw ? 1 : -1));
	int q = a2a2_mod(g, cw ? from - (int)h + 1 : from + (int)h - 1);
	uint32_t w = a2a2_width(g, dir, q, h);
	uint32_t lo = cw ? 0 : g->k - w; /* its first piece */
	uint32_t out = a2a2_region(g, dir, (h - 1) % 2);
	enum sched_buf sb = h == 1 ? SBUF_IN : SBUF_SCRATCH;
	uint32_t soff = h == 1 ? (uint32_t)to * g->k + lo : cw ? out : out + g->region - w;

	if (!w)
		return;
	if (h == 1 && (cw || g->n == 2))
		/* into scratch, at the pieces' own offsets; a2a2_copy_head
		 * copies them out */
		a2a2_msg(g, send, dir, 0, from, sb, soff, SBUF_SCRATCH, 4 * g->region + lo, w, 1);
	else
		a2a2_msg(g, send, dir, h - 1, from, sb, soff, SBUF_OUT, (uint32_t)q * g->k + lo, w,
			 1);
}

/* Rank r's first heads that went through scratch (the clockwise one; for
 * N = 2 the counter-clockwise one too, which on two ranks is a swap on one
 * lane), copied to output block r - 1 piece by piece. Listed after both
 * directions' step-0 ops, so in place each copy waits for the send that
 * reads the block it overwrites. */
static void a2a2_copy_head(struct a2a2_gen *g, int r)
{
	int q = a2a2_mod(g, r - 1);
	uint32_t w = a2a2_width(g, A2A2_CW, q, 1);

	if (g->n == 2)
		w = g->k;
	for (uint32_t i = 0; i < w; i++)
		sched_add_tracked(g->s, g->h, r, &(struct sched_op){
			.kind = SOP_COPY, .paxi = g->px, .lane = A2A2_CW, .recv_peer = -1,
			.send_peer = -1, .src_buf = SBUF_SCRATCH, .src_off = 4 * g->region + i,
			.dst_buf = SBUF_OUT, .dst_off = (uint32_t)q * g->k + i, .count = 1,
			.step = 0,
		}, NULL, 0);
}

static struct sched *a2a2_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLTOALL); /* the registry admits only our collectives */

	int n = p->nranks;
	struct a2a2_gen g = {
		.s = sched_new(c, "ring2p", n, (uint32_t)n, p->nchunks),
		.px = algo_ring2p_a2a_ops.default_paxi,
		.n = n,
		.k = p->nchunks,
		.d = (uint32_t)n / 2,
	};

	g.region = (g.d - 1) * g.k;
	g.s->scratch_units = 4 * g.region + g.k;
	g.h = sched_hazards_new(g.s);
	for (int r = 0; r < n; r++)
		for (uint32_t k = 0; k < g.k; k++) {
			uint32_t u = (uint32_t)r * g.k + k;

			sched_add_tracked(g.s, g.h, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = g.px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
				.dst_off = u, .count = 1, .step = 0,
			}, NULL, 0);
		}
	/* Per rank r, step and direction: receive the rest, send the rest and
	 * the head, receive the head; both ends of a (sender, receiver, lane)
	 * see rest then head. Lane 0 before lane 1 in every step keeps the
	 * in-place deps pointing from a receive to the step-0 send it must
	 * wait for. */
	for (uint32_t h = 1; h <= g.d; h++)
		for (int r = 0; r < n; r++) {
			for (int dir = A2A2_CW; dir <= A2A2_CCW; dir++) {
				int prev = a2a2_mod(&g, dir == A2A2_CW ? r - 1 : r + 1);

				a2a2_rest(&g, false, dir, h, prev);
				a2a2_rest(&g, true, dir, h, r);
				a2a2_head(&g, true, dir, h, r);
				a2a2_head(&g, false, dir, h, prev);
			}
			if (h == 1)
				a2a2_copy_head(&g, r);
		}
	sched_hazards_free(g.h);
	g.s->inplace_ok = true;
	return g.s;
}

static void a2a2_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	double n = p->nranks;

	(void)c;
	out->steps = p->nranks / 2;
	out->coef = p->nranks % 2 ? (n * n - 1) / (8 * n) : n / 8;
}

const struct algo_ops algo_ring2p_a2a_ops = {
	.name = "ring2p",
	.summary = "2-port ring AllToAll: each block takes the shorter way round, clockwise "
		   "on lane 0 or counter-clockwise on lane 1, forwarded between neighbours "
		   "(floor(N/2) steps)",
	.collectives = COLL_ALLTOALL,
	.default_paxi = PAXI_TRANSFER,
	.build = a2a2_build,
	.theory = a2a2_theory,
};
