/* sim/algos/pairwise — AllToAll by pairwise exchange.
 *
 * N - 1 steps after a local copy of the rank's own block: in step s - 1
 * (s = 1..N-1) rank r sends its input block r + s to rank r + s and receives
 * from rank r - s, into output block r - s. One peer at a time: the sends of
 * step s - 1 wait (explicit deps) for the rank's receive and send of the
 * previous step, so a rank keeps one exchange in flight, as the classic
 * pairwise algorithm does; the receives have no deps (their blocks are
 * distinct). On a ring, peers at distance s are s hops away, which is the
 * multi-hop contention the seed study sees at large sizes. nblocks = N,
 * nchunks pieces per block, one op each. Transfer by default.
 *
 * Not correct in place: step s would overwrite block r - s of the shared
 * buffer before step N - s sends it; inplace_ok is false and the executor
 * copies.
 *
 * Theory (alpha-beta): N - 1 steps; each rank sends (N-1)/N x M. */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

static struct sched *pw_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLTOALL); /* the registry admits only our collectives */

	int n = p->nranks;
	uint32_t nc = p->nchunks;
	enum paxi_kind px = algo_pairwise_ops.default_paxi;
	struct sched *s = sched_new(c, "pairwise", n, (uint32_t)n, nc);
	/* every rank is rank 0 turned: peers and blocks r +- s */
	int built = p->turned ? 1 : n;

	s->turned = p->turned;
	s->turn_units = p->turned ? nc : 0;
	/* per rank: the ops of the previous step, the sends' deps */
	g_autofree uint32_t *prev = g_new(uint32_t, (size_t)n * 2 * nc);
	g_autofree uint32_t *cur = g_new(uint32_t, (size_t)n * 2 * nc);
	uint32_t nprev = 0;

	/* Out of place no two ops touch the same cell, so the only deps are
	 * the step order (sched_add, not the hazard tracker, which would
	 * also order the receive into block j after the send of block j, as
	 * in place: under Send/Recv, with both partners' receives waiting
	 * for their sends, that deadlocks at distance N/2). */
	for (int r = 0; r < built; r++)
		for (uint32_t k = 0; k < nc; k++) {
			uint32_t u = (uint32_t)r * nc + k;

			sched_add(s, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
				.dst_off = u, .count = 1, .step = 0,
			}, NULL, 0);
		}
	for (int st = 1; st < n; st++) {
		uint32_t step = (uint32_t)st - 1;

		for (int r = 0; r < built; r++) {
			int to = (r + st) % n, from = (r - st + n) % n;
			uint32_t *mine = cur + (size_t)r * 2 * nc;

			/* a rank receives from `from` and sends to `to` once
			 * per step, so FIFO matching pairs step by step; the
			 * receives come first, posted before the sends wait */
			for (uint32_t k = 0; k < nc; k++) {
				mine[k] = sched_add(s, r, &(struct sched_op){
					.kind = SOP_RECV, .paxi = px, .recv_peer = from,
					.send_peer = -1, .dst_buf = SBUF_OUT,
					.dst_off = (uint32_t)from * nc + k, .count = 1,
					.step = step,
				}, NULL, 0);
			}
			for (uint32_t k = 0; k < nc; k++) {
				mine[nc + k] = sched_add(s, r, &(struct sched_op){
					.kind = SOP_SEND, .paxi = px, .recv_peer = -1,
					.send_peer = to, .src_buf = SBUF_IN,
					.src_off = (uint32_t)to * nc + k, .count = 1, .step = step,
				}, prev + (size_t)r * 2 * nc, nprev);
			}
		}
		uint32_t *t = prev;

		prev = cur;
		cur = t;
		nprev = 2 * nc;
	}
	s->inplace_ok = false;
	return s;
}

static void pw_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = p->nranks - 1;
	out->coef = (double)(p->nranks - 1) / p->nranks;
}

const struct algo_ops algo_pairwise_ops = {
	.name = "pairwise",
	.summary = "pairwise exchange: N-1 steps, step s sends to r+s and receives from r-s",
	.collectives = COLL_ALLTOALL,
	.default_paxi = PAXI_TRANSFER,
	.build = pw_build,
	.theory = pw_theory,
};
