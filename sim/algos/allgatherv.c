/* sim/algos/allgatherv — AllGatherV (per-rank counts): `ring`, `direct`,
 * `pad` and `bcast` (rd and bruck build AllGatherV in their own files).
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
 * unless nchunks pipelines it; the model (which has no counts) ignores that.
 *
 * pad: "pad to the largest and AllGather", as frameworks without an
 * AllGatherV do it. Every block travels in a padded slot the size of the
 * heaviest block b* (the first of the largest weight): slot (b, k) is
 * scratch unit b x nunits + b* x nchunks + k, which has the size of unit
 * (b*, k) (schedule.h: scratch unit s has the size of unit s mod nunits), so
 * the slots sit in N scratch copies of the buffer. Rank r copies its input
 * block into its slot (a COPY into a larger unit copies the smaller count,
 * ir.h), runs the ring AllGather over the slots (every transfer the padded
 * size), then copies each received slot out into its output block (again
 * the smaller count: the padding stays behind) and its own block from input
 * to output. N - 1 steps, Transfer. With equal weights there is nothing to
 * pad: it is the ring above (frameworks skip the padding then), and times
 * as the AllGather ring does. The slot is the heaviest block's at every
 * size the counts sum to, and at any size of at least that many elements;
 * below that the floor rule can leave an earlier, lighter block one element
 * longer than the slot, and the runner and the executor's plan refuse
 * that size (the copy into the slot would drop data). Theory: N - 1
 * steps, coef (N-1) x max/sum of the weights.
 *
 * bcast: one Broadcast per rank, grouped (how NCCL users write AllGatherV:
 * ncclBroadcast from each root inside one group). Block q goes down the
 * chain q -> q+1 -> ... -> q-1 (recv-copy-send, the last stores), each
 * chain on its own lane q, so no chain waits in another's queue: the ranks'
 * CDMA units (lane mod units) and the links are what they share. Ops are
 * listed by (piece, root). N - 1 steps, Transfer; theory as the ring. */
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

/* Where block b's piece k travels: pad's slot (b x nunits + base + k, in
 * scratch), or its own unit. */
struct agv_slots {
	uint32_t base;   /* pad: b* x nchunks */
	bool pad;
};

static uint32_t agv_slot(const struct sched *s, const struct agv_slots *sl, int block,
			 uint32_t piece)
{
	int n = s->nranks, b = ((block % n) + n) % n;

	return sl->pad ? (uint32_t)b * s->nunits + sl->base + piece : agv_unit(s, b, piece);
}

static bool agv_weights_equal(const struct algo_params *p)
{
	for (int r = 1; p->weights && r < p->nranks; r++)
		if (p->weights[r] != p->weights[0])
			return false;
	return true;
}

static struct sched *agv_pad_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLGATHERV); /* the registry admits only our collectives */
	if (agv_weights_equal(p)) {
		/* nothing to pad: the ring, under this name */
		struct sched *s = agv_ring_build(c, p, error);

		g_free(s->algo);
		s->algo = g_strdup("pad");
		return s;
	}

	struct sched *s = agv_new("pad", p);
	int n = s->nranks, heavy = 0;
	enum paxi_kind px = algo_agv_pad_ops.default_paxi;

	for (int r = 1; r < n; r++)
		if (p->weights[r] > p->weights[heavy])
			heavy = r;

	struct agv_slots sl = { .base = (uint32_t)heavy * s->nchunks,
				.pad = true };

	s->scratch_units = (uint32_t)n * s->nunits;

	struct sched_hazards *h = sched_hazards_new(s);

	/* pad: the own block into its slot */
	for (int r = 0; r < n; r++)
		for (uint32_t k = 0; k < s->nchunks; k++)
			sched_add_tracked(s, h, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = agv_unit(s, r, k),
				.dst_buf = SBUF_SCRATCH, .dst_off = agv_slot(s, &sl, r, k),
				.count = 1, .step = 0,
			}, NULL, 0);
	/* the ring AllGather over the slots */
	for (int i = 0; i < n; i++)
		for (uint32_t k = 0; k < s->nchunks; k++)
			for (int r = 0; r < n; r++) {
				struct sched_op op = {
					.paxi = px, .recv_peer = (r - 1 + n) % n,
					.send_peer = (r + 1) % n, .count = 1, .step = (uint32_t)i,
				};

				if (i == 0) {
					op.kind = SOP_SEND;
					op.recv_peer = -1;
					op.src_buf = SBUF_SCRATCH;
					op.src_off = agv_slot(s, &sl, r, k);
				} else if (i < n - 1) {
					op.kind = SOP_RECV_COPY_SEND;
					op.dst_buf = SBUF_SCRATCH;
					op.dst_off = agv_slot(s, &sl, r - i, k);
				} else {
					op.kind = SOP_RECV;
					op.send_peer = -1;
					op.dst_buf = SBUF_SCRATCH;
					op.dst_off = agv_slot(s, &sl, r - i, k);
					op.step = (uint32_t)(n - 2);
				}
				sched_add_tracked(s, h, r, &op, NULL, 0);
			}
	/* unpad: each peer's slot into its output block, in arrival order */
	for (int i = 1; i < n; i++)
		for (uint32_t k = 0; k < s->nchunks; k++)
			for (int r = 0; r < n; r++)
				sched_add_tracked(s, h, r, &(struct sched_op){
					.kind = SOP_COPY, .paxi = px, .recv_peer = -1,
					.send_peer = -1, .src_buf = SBUF_SCRATCH,
					.src_off = agv_slot(s, &sl, r - i, k), .dst_buf = SBUF_OUT,
					.dst_off = agv_unit(s, r - i, k), .count = 1,
					.step = (uint32_t)(i < n - 1 ? i : n - 2),
				}, NULL, 0);
	agv_copy_own(s, h, px);
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static struct sched *agv_bcast_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_ALLGATHERV); /* the registry admits only our collectives */

	if (p->nranks > SCHED_MAX_LANES) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED,
			    "'bcast' needs a lane per rank: at most %d ranks, got %d",
			    SCHED_MAX_LANES, p->nranks);
		return NULL;
	}

	struct sched *s = agv_new("bcast", p);
	int n = s->nranks;
	enum paxi_kind px = algo_agv_bcast_ops.default_paxi;
	struct sched_hazards *h = sched_hazards_new(s);

	for (uint32_t k = 0; k < s->nchunks; k++)
		for (int q = 0; q < n; q++)
			for (int r = 0; r < n; r++) {
				int v = (r - q + n) % n; /* place in root q's chain */
				struct sched_op op = {
					.paxi = px, .lane = (uint8_t)q, .recv_peer = (r - 1 + n) % n,
					.send_peer = (r + 1) % n, .count = 1,
					.step = (uint32_t)(v < n - 1 ? v : n - 2),
				};

				if (v == 0) {
					op.kind = SOP_SEND;
					op.recv_peer = -1;
					op.src_buf = SBUF_IN;
					op.src_off = agv_unit(s, q, k);
				} else if (v < n - 1) {
					op.kind = SOP_RECV_COPY_SEND;
					op.dst_buf = SBUF_OUT;
					op.dst_off = agv_unit(s, q, k);
				} else {
					op.kind = SOP_RECV;
					op.send_peer = -1;
					op.dst_buf = SBUF_OUT;
					op.dst_off = agv_unit(s, q, k);
				}
				sched_add_tracked(s, h, r, &op, NULL, 0);
			}
	agv_copy_own(s, h, px);
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static void agv_pad_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	uint64_t max = 0, sum = 0;

	for (int r = 0; p->weights && r < p->nranks; r++) {
		max = MAX(max, p->weights[r]);
		sum += p->weights[r];
	}
	out->steps = p->nranks - 1;
	out->coef = sum ? (double)(p->nranks - 1) * (double)max / (double)sum
			: (double)(p->nranks - 1) / p->nranks;
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

const struct algo_ops algo_agv_pad_ops = {
	.name = "pad",
	.summary = "pad every block to the largest and run the ring AllGather, then unpad",
	.collectives = COLL_ALLGATHERV,
	.default_paxi = PAXI_TRANSFER,
	.build = agv_pad_build,
	.theory = agv_pad_theory,
};

const struct algo_ops algo_agv_bcast_ops = {
	.name = "bcast",
	.summary = "one chain Broadcast per rank, grouped (each on its own lane)",
	.collectives = COLL_ALLGATHERV,
	.default_paxi = PAXI_TRANSFER,
	.build = agv_bcast_build,
	.theory = agv_ring_theory,
};
