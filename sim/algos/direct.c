/* sim/algos/direct — one-shot collectives for full-mesh fabrics.
 *
 * Every rank talks to every peer directly, in one step per phase:
 *   ReduceScatter  rank r sends its input block j to rank j (j != r); rank r
 *                  adds the N - 1 blocks r it receives, one after the other,
 *                  to its own input block r, into its output.      1 step
 *   AllGather      rank r sends its input block to every peer and copies it
 *                  into its own output; it stores each peer's block. 1 step
 *   AllReduce      the ReduceScatter, then the AllGather of the reduced
 *                  blocks (the output block r is the one sent).      2 steps
 * Peers are visited by distance: rank r sends to r + 1, r + 2, ... and
 * receives from r - 1, r - 2, ..., so at any moment the N sends of a round go
 * to N distinct ranks. nblocks = N, nchunks pieces per block, every piece its
 * own op. All on lane 0, one-sided Transfer by default (docs/algorithms.md).
 *
 * Theory (alpha-beta): AllReduce 2 steps, coef 2 (N-1)/N; AllGather and
 * ReduceScatter 1 step, coef (N-1)/N (what each rank sends or receives,
 * relative to M). Correct in place: a rank never writes a block it has still
 * to send (sched_add_tracked orders the AllReduce's gather after the
 * scatter's sends of the same cells). */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

#define DIRECT_COLLS (COLL_ALLREDUCE | COLL_ALLGATHER | COLL_REDUCESCATTER)

/* One phase in step `step`: rank r sends its block `blk(r, to)` to every peer
 * `to`, from buffer sbuf; the receiver stores it (`reduce` false) or adds it
 * to its running sum (true: the first block received adds the input block,
 * the next ones the output). All sends of the phase are listed before its
 * receives, so no send waits behind a receive in its lane. */
static void direct_phase(struct sched *s, struct sched_hazards *h, enum paxi_kind px,
			 uint32_t step, enum sched_buf sbuf, bool reduce)
{
	int n = s->nranks;
	uint32_t nc = s->nchunks;

	for (uint32_t k = 0; k < nc; k++)
		for (int d = 1; d < n; d++)
			for (int r = 0; r < n; r++) {
				int to = (r + d) % n;
				uint32_t u = (uint32_t)(reduce ? to : r) * nc + k;

				sched_add_tracked(s, h, r, &(struct sched_op){
					.kind = SOP_SEND, .paxi = px, .recv_peer = -1,
					.send_peer = to, .src_buf = sbuf, .src_off = u,
					.count = 1, .step = step,
				}, NULL, 0);
			}
	for (uint32_t k = 0; k < nc; k++)
		for (int d = 1; d < n; d++)
			for (int to = 0; to < n; to++) {
				int r = (to - d + n) % n;
				uint32_t u = (uint32_t)(reduce ? to : r) * nc + k;
				struct sched_op op = {
					.kind = reduce ? SOP_RECV_REDUCE : SOP_RECV, .paxi = px,
					.recv_peer = r, .send_peer = -1, .dst_buf = SBUF_OUT,
					.dst_off = u, .count = 1, .step = step,
				};

				if (reduce) {
					op.src_buf = d == 1 ? SBUF_IN : SBUF_OUT;
					op.src_off = u;
				}
				sched_add_tracked(s, h, to, &op, NULL, 0);
			}
}

/* AllGather's own block: input to output, after the sends so that it does
 * not hold them back (in place it is no copy at all). */
static void direct_copy_own(struct sched *s, struct sched_hazards *h, enum paxi_kind px)
{
	for (uint32_t k = 0; k < s->nchunks; k++)
		for (int r = 0; r < s->nranks; r++) {
			uint32_t u = (uint32_t)r * s->nchunks + k;

			sched_add_tracked(s, h, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
				.dst_off = u, .count = 1, .step = 0,
			}, NULL, 0);
		}
}

static struct sched *direct_build(enum coll c, const struct algo_params *p, GError **error)
{
	int n = p->nranks;
	uint32_t nc = p->nchunks;
	enum paxi_kind px = algo_direct_ops.default_paxi;

	g_assert(c & DIRECT_COLLS); /* the registry admits only our collectives */

	struct sched *s = sched_new(c, "direct", n, (uint32_t)n, nc);
	struct sched_hazards *h = sched_hazards_new(s);

	switch (c) {
	case COLL_REDUCESCATTER:
		direct_phase(s, h, px, 0, SBUF_IN, true);
		break;
	case COLL_ALLGATHER:
		direct_phase(s, h, px, 0, SBUF_IN, false);
		direct_copy_own(s, h, px);
		break;
	case COLL_ALLREDUCE:
		direct_phase(s, h, px, 0, SBUF_IN, true);
		direct_phase(s, h, px, 1, SBUF_OUT, false);
		break;
	default:
		g_assert_not_reached();
	}
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static void direct_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	double half = (double)(p->nranks - 1) / p->nranks;

	out->steps = c == COLL_ALLREDUCE ? 2 : 1;
	out->coef = c == COLL_ALLREDUCE ? 2 * half : half;
}

const struct algo_ops algo_direct_ops = {
	.name = "direct",
	.summary = "one-shot: every rank sends to every peer directly (full mesh); "
		   "AllReduce = reduce-scatter + all-gather",
	.collectives = DIRECT_COLLS,
	.default_paxi = PAXI_TRANSFER,
	.build = direct_build,
	.theory = direct_theory,
};
