/* sim/algos/rd_rh — AllGather by recursive doubling (rd) and ReduceScatter
 * by recursive halving (rh), on a power-of-two number of ranks.
 *
 * rd: rank r starts with its block; in step j (j = 0..log2 N - 1) it swaps
 * everything it holds, the aligned range of 2^j blocks around r, with partner
 * r ^ 2^j, so the range doubles. The first step sends from the input, the
 * later ones from the output (the rank's own block is copied there first).
 *
 * rh: the mirror image. In step j rank r swaps half of its current range of
 * blocks with partner r ^ (N >> (j + 1)) (distance N/2 first): it sends the
 * half it gives away and adds the half it receives to its own, keeping the
 * lower half when that bit of r is clear, until it holds block r. Partial
 * sums live in scratch (nunits units laid out like the input, scratch unit u
 * standing for unit u); the last step adds into the output block.
 *
 * A non-power-of-two N is rejected with an error: the extension that folds
 * the extra ranks into partners (as hd does for AllReduce) would not keep
 * these single-phase collectives' log2 N steps, and the seed study compares
 * them on powers of two only.
 *
 * nblocks = N, nchunks pieces per block; a range of n blocks is sent as
 * nchunks runs of n contiguous units, each run waiting (sched_add_tracked)
 * only for the runs of the previous step it reads, so pieces pipeline.
 * Send/Recv by default. Both are correct in place.
 *
 * AllGatherV (rd only): the same ops; block b's units have its count's
 * size (schedule.h), so step j's exchange of 2^j blocks carries whatever
 * those blocks hold: the partner of the heaviest block's range waits for it
 * in every step from the one that first carries it. With equal counts the
 * schedule is the AllGather's, op for op, and times as it does.
 *
 * Theory (alpha-beta): log2 N steps; each rank receives (N-1)/N x M. */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

/* log2 n for a power of two n >= 2; -1 otherwise. */
static int rdrh_log2(int n)
{
	int m = 0;

	if (n < 2 || (n & (n - 1)))
		return -1;
	while ((1 << m) < n)
		m++;
	return m;
}

static bool rdrh_check(const char *name, unsigned want, enum coll c,
		       const struct algo_params *p, GError **error)
{
	g_assert(c & want); /* the registry admits only our collectives */
	if (rdrh_log2(p->nranks) < 0) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED,
			    "'%s' needs a power-of-two number of ranks, got %d", name,
			    p->nranks);
		return false;
	}
	return true;
}

/* Run k of a block range [b0, b0 + n): n units from rank `from` (buffer sbuf)
 * to rank `to`, stored by RECV into dbuf, or by RECV_REDUCE adding lbuf. */
static void rdrh_run(struct sched *s, struct sched_hazards *h, enum paxi_kind px,
		     uint32_t step, int from, enum sched_buf sbuf, int to,
		     enum sched_buf dbuf, enum sched_buf lbuf, uint32_t b0, uint32_t n,
		     uint32_t k)
{
	uint32_t off = b0 * s->nchunks + k * n;
	struct sched_op snd = {
		.kind = SOP_SEND, .paxi = px, .recv_peer = -1, .send_peer = to,
		.src_buf = sbuf, .src_off = off, .count = n, .step = step,
	};
	struct sched_op rcv = {
		.kind = lbuf == SBUF_NONE ? SOP_RECV : SOP_RECV_REDUCE, .paxi = px,
		.recv_peer = from, .send_peer = -1, .dst_buf = dbuf, .dst_off = off,
		.src_buf = lbuf, .src_off = lbuf == SBUF_NONE ? 0 : off,
		.count = n, .step = step,
	};

	sched_add_tracked(s, h, from, &snd, NULL, 0);
	sched_add_tracked(s, h, to, &rcv, NULL, 0);
}

static struct sched *rd_build(enum coll c, const struct algo_params *p, GError **error)
{
	if (!rdrh_check("rd", COLL_ALLGATHER | COLL_ALLGATHERV, c, p, error))
		return NULL;

	int n = p->nranks, m = rdrh_log2(n);
	uint32_t nc = p->nchunks;
	enum paxi_kind px = algo_rd_ops.default_paxi;
	struct sched *s = sched_new(c, "rd", n, (uint32_t)n, nc);
	struct sched_hazards *h = sched_hazards_new(s);

	for (int r = 0; r < n; r++)
		for (uint32_t k = 0; k < nc; k++) {
			uint32_t u = (uint32_t)r * nc + k;

			sched_add_tracked(s, h, r, &(struct sched_op){
				.kind = SOP_COPY, .paxi = px, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
				.dst_off = u, .count = 1, .step = 0,
			}, NULL, 0);
		}
	/* Each send is added with its receive, pairs in step order and run k
	 * of both directions before run k + 1, so FIFO matching pairs them. */
	for (int j = 0; j < m; j++) {
		int mask = 1 << j;
		enum sched_buf sb = j == 0 ? SBUF_IN : SBUF_OUT;

		for (int v = 0; v < n; v++) {
			int w = v ^ mask;
			uint32_t lv = (uint32_t)(v & ~(mask - 1)), lw = (uint32_t)(w & ~(mask - 1));

			if (w < v)
				continue;
			for (uint32_t k = 0; k < nc; k++) {
				rdrh_run(s, h, px, (uint32_t)j, w, sb, v, SBUF_OUT, SBUF_NONE,
					 lw, (uint32_t)mask, k);
				rdrh_run(s, h, px, (uint32_t)j, v, sb, w, SBUF_OUT, SBUF_NONE,
					 lv, (uint32_t)mask, k);
			}
		}
	}
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static struct sched *rh_build(enum coll c, const struct algo_params *p, GError **error)
{
	if (!rdrh_check("rh", COLL_REDUCESCATTER, c, p, error))
		return NULL;

	int n = p->nranks, m = rdrh_log2(n);
	uint32_t nc = p->nchunks;
	enum paxi_kind px = algo_rh_ops.default_paxi;
	struct sched *s = sched_new(c, "rh", n, (uint32_t)n, nc);

	s->scratch_units = s->nunits;

	struct sched_hazards *h = sched_hazards_new(s);

	for (int j = 0; j < m; j++) {
		int mask = n >> (j + 1);
		uint32_t half = (uint32_t)mask;
		/* where the data is now, and where the sums go */
		enum sched_buf sb = j == 0 ? SBUF_IN : SBUF_SCRATCH;
		enum sched_buf db = j == m - 1 ? SBUF_OUT : SBUF_SCRATCH;

		for (int v = 0; v < n; v++) {
			int w = v ^ mask;

			if (w < v)
				continue;
			/* v and w share every bit above `mask`: their common
			 * range is [lo, lo + 2 half) */
			uint32_t lo = (uint32_t)(v & ~(2 * mask - 1));

			for (uint32_t k = 0; k < nc; k++) {
				rdrh_run(s, h, px, (uint32_t)j, w, sb, v, db, sb, lo, half, k);
				rdrh_run(s, h, px, (uint32_t)j, v, sb, w, db, sb, lo + half,
					 half, k);
			}
		}
	}
	sched_hazards_free(h);
	s->inplace_ok = true;
	return s;
}

static void rdrh_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	int m = 0;

	while ((1 << m) < p->nranks)
		m++;
	out->steps = m;
	out->coef = (double)(p->nranks - 1) / p->nranks;
}

const struct algo_ops algo_rd_ops = {
	.name = "rd",
	.summary = "recursive doubling: log2 N pairwise exchanges of doubling ranges "
		   "(power-of-two N)",
	.collectives = COLL_ALLGATHER | COLL_ALLGATHERV,
	.default_paxi = PAXI_SENDRECV,
	.build = rd_build,
	.theory = rdrh_theory,
};

const struct algo_ops algo_rh_ops = {
	.name = "rh",
	.summary = "recursive halving: log2 N pairwise exchanges of halving ranges "
		   "(power-of-two N)",
	.collectives = COLL_REDUCESCATTER,
	.default_paxi = PAXI_SENDRECV,
	.build = rh_build,
	.theory = rdrh_theory,
};
