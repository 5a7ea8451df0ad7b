/* sim/algos/allgatherv — AllGatherV (per-rank counts): `ring` and `direct`.
 *
 * The counts come in as relative weights (algo_params.weights, one per rank;
 * NULL means equal) and are stored in sched->weights; block r's element
 * count is then set by the IR's chunking rule (schedule.h, sched_unit_range:
 * floor of the weighted share, the remainder one each to the first non-zero
 * blocks). The ops do not depend on the counts: a zero count gives empty
 * units, which still signal, and one rank holding 90 % of the data only makes
 * its block's transfers long.
 *
 * ring: the 1-port ring AllGather. Each piece of each block travels r -> r+1
 * -> ...: rank r sends its input block in step 0, then in step i (i =
 * 1..N-2) receives block r - i, stores it and forwards it (recv-copy-send),
 * and in step N-2 receives block r + 1 (recv). Ops are listed by (step,
 * piece), so pieces pipeline. N - 1 steps, Transfer by default.
 *
 * direct: rank r sends its block to every peer in one step (peers by
 * distance) and stores each peer's block. Transfer by default.
 *
 * Both copy the rank's own block from input to output (a no-op in place) and
 * are correct in place. Theory, for equal counts: ring N - 1 steps, direct
 * 1; coef (N-1)/N for both. With skewed counts the ring's bandwidth term is
 * set by the largest block, which crosses N - 1 links one after the other
 * unless nchunks pipelines it; the model (which has no counts) ignores that. */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

static struct sched *agv_new(const char *name, const struct algo_params *p)
{
	struct sched *s = sched_new(COLL_ALLGATHERV, name, p->nranks, (uint32_t)p->nranks,
				    p->nchunks);

	s->weights = g_new(uint64_t, s->nblocks);
	for (uint32_t b = 0; b < s->nblocks; b++)
		s->weights[b] = p->weights ? p->weights[b] : 1;
	return s;
}

static uint32_t agv_unit(const struct sched *s, int block, uint32_t piece)
{
	int n = s->nranks;

	return (uint32_t)(((block % n) + n) % n) * s->nchunks + piece;
}

static void agv_copy_own(struct sched *s, struct sched_hazards *h, enum paxi_kind px)
{
	for (int r = 0; r < s->nranks; r++)
		for (uint32_t k = 0; k < s->nchunks; k++) {
			uint32_t u = agv_unit(s, r, k);

			sched_add_tracked(s, h, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
				.dst_off = u, .count = 1, .step = 0,
			}, NULL, 0);
		}
}

static struct sched *agv_ring_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLGATHERV); /* the registry admits only our collectives */

	struct sched *s = agv_new("ring", p);

	int n = s->nranks;
	enum paxi_kind px = algo_agv_ring_ops.default_paxi;
	struct sched_hazards *h = sched_hazards_new(s);

	/* Op i of rank r (i = 0..N-2) sends transfer i (if i < N - 2 or it is
	 * the first) and receives transfer i - 1; by (step, piece). */
	for (int i = 0; i < n; i++) {
		for (uint32_t k = 0; k < s->nchunks; k++) {
			for (int r = 0; r < n; r++) {
				int to = (r + 1) % n, from = (r - 1 + n) % n;
				struct sched_op op = {
					.paxi = px, .recv_peer = from, .send_peer = to,
					.count = 1, .step = (uint32_t)i,
				};

				if (i == 0) {
					op.kind = SOP_SEND;
					op.recv_peer = -1;
					op.src_buf = SBUF_IN;
					op.src_off = agv_unit(s, r, k);
				} else if (i < n - 1) {
					op.kind = SOP_RECV_COPY_SEND;
					op.dst_buf = SBUF_OUT;
					op.dst_off = agv_unit(s, r - i, k);
				} else {
					/* the last receive: transfer N-2 */
					op.kind = SOP_RECV;
					op.send_peer = -1;
					op.dst_buf = SBUF_OUT;
					op.dst_off = agv_unit(s, r - i, k);
					op.step = (uint32_t)(n - 2);
				}
				sched_add_tracked(s, h, r, &op, NULL, 0);
			}
		}
	}
	agv_copy_own(s, h, px); /* last: it holds nothing back (in place: no copy) */
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static struct sched *agv_direct_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLGATHERV); /* the registry admits only our collectives */

	struct sched *s = agv_new("direct", p);

	int n = s->nranks;
	enum paxi_kind px = algo_agv_direct_ops.default_paxi;
	struct sched_hazards *h = sched_hazards_new(s);

	/* all sends, then all receives: no send waits behind a receive; fused,
	 * the first send carries the own block's copy */
	for (uint32_t k = 0; k < s->nchunks; k++)
		for (int d = 1; d < n; d++)
			for (int r = 0; r < n; r++) {
				bool fused = p->fuse_copy && d == 1;

				sched_add_tracked(s, h, r, &(struct sched_op){
					.kind = fused ? SOP_COPY_SEND : SOP_SEND, .paxi = px,
					.recv_peer = -1, .send_peer = (r + d) % n, .src_buf = SBUF_IN,
					.src_off = agv_unit(s, r, k),
					.dst_buf = fused ? SBUF_OUT : SBUF_NONE,
					.dst_off = fused ? agv_unit(s, r, k) : 0, .count = 1, .step = 0,
				}, NULL, 0);
			}
	for (uint32_t k = 0; k < s->nchunks; k++)
		for (int d = 1; d < n; d++)
			for (int r = 0; r < n; r++)
				sched_add_tracked(s, h, r, &(struct sched_op){
					.kind = SOP_RECV, .paxi = px, .recv_peer = (r - d + n) % n,
					.send_peer = -1, .dst_buf = SBUF_OUT,
					.dst_off = agv_unit(s, r - d, k), .count = 1, .step = 0,
				}, NULL, 0);
	if (!p->fuse_copy)
		agv_copy_own(s, h, px); /* last: it holds nothing back (in place: no copy) */
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static void agv_ring_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = p->nranks - 1;
	out->coef = (double)(p->nranks - 1) / p->nranks;
}

static void agv_direct_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = 1;
	out->coef = (double)(p->nranks - 1) / p->nranks;
}

const struct algo_ops algo_agv_ring_ops = {
	.name = "ring",
	.summary = "ring AllGatherV: each block travels the ring, N-1 steps",
	.collectives = COLL_ALLGATHERV,
	.default_paxi = PAXI_TRANSFER,
	.build = agv_ring_build,
	.theory = agv_ring_theory,
};

const struct algo_ops algo_agv_direct_ops = {
	.name = "direct",
	.summary = "direct AllGatherV: every rank sends its block to every peer, 1 step",
	.collectives = COLL_ALLGATHERV,
	.default_paxi = PAXI_TRANSFER,
	.build = agv_direct_build,
	.theory = agv_direct_theory,
};
