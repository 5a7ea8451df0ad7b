/* sim/algos/hd — AllReduce by halving-doubling (Rabenseifner).
 *
 * A reduce-scatter by recursive halving followed by an all-gather by recursive
 * doubling, on P = 2^m ranks. In halving step j (j = 0..m-1) rank v exchanges
 * half of its current range of blocks with partner v ^ (P >> (j + 1)): it
 * sends the half it gives away and reduces the half it keeps (the lower half
 * when that bit of v is clear), so after m steps it holds block v fully
 * reduced. The doubling steps retrace the partners in reverse order (distance
 * 1 first), exchanging whole ranges, until every rank holds every block. Each
 * step is one transaction per direction: Send/Recv by default (docs/algorithms.md).
 *
 * Any N, by the standard extension. With P the largest power of two <= N and
 * q = N - P, the first 2q ranks pair up: in an extra first step each even rank
 * 2i (i < q) sends its whole input to 2i + 1, which adds it to its own input
 * and stands for both in the power-of-two algorithm; in an extra last step
 * 2i + 1 sends the whole result back. Participant v is rank 2v + 1 for v < q
 * and v + q otherwise.
 *
 * Theory (alpha-beta): a power of two takes 2 log2 N steps and moves
 * 2 (N-1)/N x M per rank (each half moves (P-1)/P x M); otherwise
 * 2 floor(log2 N) + 2 steps and 2 (P-1)/P + 2 (the fold and the return each
 * move the whole buffer).
 *
 * Units: nblocks = P (one block per participant), nchunks pieces each. A
 * range of n blocks is sent as nchunks runs of n contiguous units each, so the
 * runs of consecutive steps pipeline: each run waits only for the runs of the
 * previous step whose data it reads (sched_add_tracked). Buffers: the first
 * halving step reads the input (or, for a folded rank, the folded sum in the
 * output), every later step reads and writes the output; reads and writes of
 * a step never overlap, so the schedule is correct in place. */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

static int hd_rank(int v, int q)
{
	return v < q ? 2 * v + 1 : v + q;
}

/* Largest power of two <= n (n >= 1) and its log2. */
static int hd_pow2_floor(int n, int *log2)
{
	int p = 1, m = 0;

	while (p * 2 <= n) {
		p *= 2;
		m++;
	}
	*log2 = m;
	return p;
}

/* Adds run k of the nchunks runs of a block range [b0, b0 + n): n units sent
 * from rank `from` (source buffer sbuf) to rank `to`, where `kind` (RECV, or
 * RECV_REDUCE with local operand lbuf) stores it into dbuf. */
static void hd_run(struct sched *s, struct sched_hazards *h, enum paxi_kind px,
		   uint32_t step, int from, enum sched_buf sbuf, int to,
		   enum sched_op_kind kind, enum sched_buf dbuf, enum sched_buf lbuf,
		   uint32_t b0, uint32_t n, uint32_t k)
{
	uint32_t off = b0 * s->nchunks + k * n;
	struct sched_op snd = {
		.kind = SOP_SEND, .paxi = px, .recv_peer = -1, .send_peer = to,
		.src_buf = sbuf, .src_off = off, .count = n, .step = step,
	};
	struct sched_op rcv = {
		.kind = kind, .paxi = px, .recv_peer = from, .send_peer = -1,
		.dst_buf = dbuf, .dst_off = off, .count = n, .step = step,
	};

	if (kind == SOP_RECV_REDUCE) {
		rcv.src_buf = lbuf;
		rcv.src_off = off;
	}
	sched_add_tracked(s, h, from, &snd, NULL, 0);
	sched_add_tracked(s, h, to, &rcv, NULL, 0);
}

/* Where participant v's data is in halving step j: the input for an unfolded
 * rank in the first step, the output otherwise. */
static enum sched_buf hd_buf(int j, int v, int q)
{
	return (j == 0 && v >= q) ? SBUF_IN : SBUF_OUT;
}

static struct sched *hd_build(enum coll c, const struct algo_params *p, GError **error)
{
	int n = p->nranks, m, q, np;
	enum paxi_kind px = algo_hd_ops.default_paxi;

	g_assert(c == COLL_ALLREDUCE); /* the registry admits only our collectives */
	np = hd_pow2_floor(n, &m);
	q = n - np;

	struct sched *s = sched_new(c, "hd", n, (uint32_t)np, p->nchunks);
	struct sched_hazards *h = sched_hazards_new(s);
	uint32_t step = 0, nc = p->nchunks;
	g_autofree uint32_t *lo = g_new0(uint32_t, np);
	g_autofree uint32_t *hi = g_new0(uint32_t, np);

	/* Each send is added together with its receive, in step order on both
	 * sides, so FIFO matching per (sender, receiver) pairs them. Within a
	 * pair's step the runs alternate directions, so both ranks post run k
	 * of each direction before run k + 1. */
	if (q > 0) {
		for (int i = 0; i < q; i++)
			for (uint32_t k = 0; k < nc; k++)
				hd_run(s, h, px, step, 2 * i, SBUF_IN, 2 * i + 1,
				       SOP_RECV_REDUCE, SBUF_OUT, SBUF_IN, 0, (uint32_t)np, k);
		step++;
	}

	/* Reduce-scatter by recursive halving. Participant v's data is in the
	 * input, or in the output once folded or after the first step. */
	for (int v = 0; v < np; v++) {
		lo[v] = 0;
		hi[v] = (uint32_t)np;
	}
	for (int j = 0; j < m; j++, step++) {
		int mask = np >> (j + 1);

		for (int v = 0; v < np; v++) {
			int w = v ^ mask;
			uint32_t half = (hi[v] - lo[v]) / 2;

			if (w < v)
				continue;
			/* v keeps the lower half, w the upper one */
			for (uint32_t k = 0; k < nc; k++) {
				hd_run(s, h, px, step, hd_rank(w, q), hd_buf(j, w, q),
				       hd_rank(v, q), SOP_RECV_REDUCE, SBUF_OUT,
				       hd_buf(j, v, q), lo[v], half, k);
				hd_run(s, h, px, step, hd_rank(v, q), hd_buf(j, v, q),
				       hd_rank(w, q), SOP_RECV_REDUCE, SBUF_OUT,
				       hd_buf(j, w, q), lo[v] + half, half, k);
			}
		}
		for (int v = 0; v < np; v++) {
			uint32_t mid = (lo[v] + hi[v]) / 2;

			if (v & mask)
				lo[v] = mid;
			else
				hi[v] = mid;
		}
	}

	/* All-gather by recursive doubling: exchange whole ranges. */
	for (int j = 0; j < m; j++, step++) {
		int mask = 1 << j;

		for (int v = 0; v < np; v++) {
			int w = v ^ mask;

			if (w < v)
				continue;
			for (uint32_t k = 0; k < nc; k++) {
				hd_run(s, h, px, step, hd_rank(w, q), SBUF_OUT, hd_rank(v, q),
				       SOP_RECV, SBUF_OUT, SBUF_NONE, lo[w], hi[w] - lo[w], k);
				hd_run(s, h, px, step, hd_rank(v, q), SBUF_OUT, hd_rank(w, q),
				       SOP_RECV, SBUF_OUT, SBUF_NONE, lo[v], hi[v] - lo[v], k);
			}
		}
		for (int v = 0; v < np; v += 2 * mask) {
			/* v and v + mask .. cover the aligned range of 2 mask */
			for (int x = v; x < v + 2 * mask; x++) {
				lo[x] = (uint32_t)v;
				hi[x] = (uint32_t)(v + 2 * mask);
			}
		}
	}

	if (q > 0) {
		for (int i = 0; i < q; i++)
			for (uint32_t k = 0; k < nc; k++)
				hd_run(s, h, px, step, 2 * i + 1, SBUF_OUT, 2 * i, SOP_RECV,
				       SBUF_OUT, SBUF_NONE, 0, (uint32_t)np, k);
		step++;
	}
	sched_hazards_free(h);
	g_assert_cmpuint(s->nsteps, ==, step);
	s->inplace_ok = true;
	return s;
}

static void hd_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	int m, np = hd_pow2_floor(p->nranks, &m);

	if (np == p->nranks) {
		out->steps = 2.0 * m;
		out->coef = 2.0 * (p->nranks - 1) / p->nranks;
	} else {
		out->steps = 2.0 * m + 2;
		out->coef = 2.0 * (np - 1) / np + 2.0;
	}
}

const struct algo_ops algo_hd_ops = {
	.name = "hd",
	.summary = "halving-doubling (Rabenseifner): recursive-halving reduce-scatter, "
		   "recursive-doubling all-gather; non-powers of two fold 2q ranks",
	.collectives = COLL_ALLREDUCE,
	.default_paxi = PAXI_SENDRECV,
	.build = hd_build,
	.theory = hd_theory,
};
