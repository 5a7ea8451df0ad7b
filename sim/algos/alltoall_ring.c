/* sim/algos/alltoall_ring — AllToAll over ring neighbours only ("ring").
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
	if (c != COLL_ALLTOALL) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_UNKNOWN,
			    "'ring' (alltoall) does not build %s", coll_name(c));
		return NULL;
	}
	if (p->nranks < 2 || p->nranks > SCHED_MAX_RANKS || p->nchunks < 1 ||
	    p->nchunks > SCHED_MAX_NCHUNKS) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
			    "'ring' needs 2..%d ranks and 1..%d chunks, got %d ranks, %u chunks",
			    SCHED_MAX_RANKS, SCHED_MAX_NCHUNKS, p->nranks, p->nchunks);
		return NULL;
	}

	int n = p->nranks;
	struct a2ar_gen g = {
		.s = sched_new(c, "ring", n, (uint32_t)n, p->nchunks),
		.px = p->paxi_set ? p->paxi : PAXI_TRANSFER,
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

static void a2ar_theory(enum coll c, int nranks, struct algo_theory *out)
{
	out->steps = nranks - 1;
	out->coef = (nranks - 1) / 2.0;
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
