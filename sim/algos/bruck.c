/* sim/algos/bruck — Bruck's log-step AllGather and AllToAll, any N.
 *
 * AllGather. Rank r keeps a working array W of N blocks in scratch, W[i]
 * holding block (r + i) mod N. W[0] is its own block (copied from the
 * input); in step j (d = 2^j, j = 0..ceil(log2 N) - 1) it sends W[0, c) to
 * rank r - d and receives W[d, d + c) from rank r + d, with c = min(d, N - d).
 * A final local rotation copies W into the output (two copies: the blocks
 * r..N-1, then 0..r-1). To keep every scratch unit the size of the unit it
 * holds (schedule.h: scratch unit s has the size of unit s mod nunits), rank
 * r places W[i] at scratch block r + i, so W never wraps: 2N - 1 blocks of
 * scratch. Theory: ceil(log2 N) steps, (N-1)/N x M received per rank.
 *
 * AllGatherV: the AllGather's ops, block b's units having its count's size;
 * since W[i] sits at scratch block r + i, every scratch unit keeps the size
 * of the block it holds, whatever the counts. A step's message carries the
 * blocks it carries, so the heaviest block rides along in every step from
 * the one that first carries it. With equal counts the schedule is the
 * AllGather's, op for op, and times as it does.
 *
 * AllToAll. Rank r first rotates its input, W[i] = input block (r + i) mod N
 * (the data it sends to rank r + i). In step k (d = 2^k) it sends to r + d
 * every W[i] whose index has bit k set, and receives from r - d the same
 * positions: data keeps its position i while it moves, and once all the bits
 * of i are done it has moved i ranks, so at the end W[i] holds what rank r - i
 * sent to r; a final copy puts it into output block (r - i) mod N. The
 * positions of a step are not contiguous, so they are packed into a send area
 * of scratch (local copies, one per run of positions), sent as one message,
 * received into a receive area and unpacked; a step whose positions form one
 * run (always the last) is sent straight from W. The receive never goes
 * straight into W: under Send/Recv a receive that waited for the rank's own
 * send of the same positions would deadlock the ring of ranks.
 * Scratch: W (N blocks), the send area and the receive area (P blocks each,
 * P the largest number of positions of a step). A position holds blocks
 * bound for different ranks from step to step, so the layout relies on
 * AllToAll blocks all having one size; AllToAll itself needs that (input block
 * r of rank q becomes output block q of rank r), and nccl-tests' AllToAll
 * sizes are multiples of N elements.
 * Theory: ceil(log2 N) steps; each step sends the positions with bit k set,
 * so each rank sends sum_{i<N} popcount(i) blocks of M/N: coef =
 * sum popcount(i) / N, which is ceil(log2 N) / 2 for a power of two.
 *
 * Both: nchunks pieces per block; a message of n blocks goes as nchunks
 * runs of n units, each waiting (sched_add_tracked) only for the data it
 * reads. Local copies take the step of the transfers they prepare or
 * follow (the rotations: the first and the last step). Send/Recv by default. Correct in place: the
 * input is read into scratch before the output is written. */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

struct bruck_gen {
	struct sched *s;
	struct sched_hazards *h;
	enum paxi_kind px;
	int n;
	uint32_t nc;
};

static int bruck_ceil_log2(int n)
{
	int m = 0;

	while ((1 << m) < n)
		m++;
	return m;
}

/* A local copy of n blocks, dst block db from src block sb, in one op. */
static void bruck_copy(struct bruck_gen *g, int r, uint32_t step, enum sched_buf dbuf,
		       uint32_t db, enum sched_buf sbuf, uint32_t sb, uint32_t n)
{
	sched_add_tracked(g->s, g->h, r, &(struct sched_op){
		.kind = SOP_COPY, .paxi = g->px, .recv_peer = -1, .send_peer = -1,
		.src_buf = sbuf, .src_off = sb * g->nc, .dst_buf = dbuf,
		.dst_off = db * g->nc, .count = n * g->nc, .step = step,
	}, NULL, 0);
}

/* The receives (at rank r from `from`, into scratch block rb) and then the
 * sends (at `from`, scratch block sb) of a message of n blocks, as nchunks
 * runs. Adding all of a step's receives before its sends keeps each
 * (sender, receiver) pair in the same order on both sides. */
static void bruck_recv(struct bruck_gen *g, int r, int from, uint32_t step, uint32_t rb,
		       uint32_t n)
{
	for (uint32_t k = 0; k < g->nc; k++)
		sched_add_tracked(g->s, g->h, r, &(struct sched_op){
			.kind = SOP_RECV, .paxi = g->px, .recv_peer = from, .send_peer = -1,
			.dst_buf = SBUF_SCRATCH, .dst_off = rb * g->nc + k * n, .count = n,
			.step = step,
		}, NULL, 0);
}

static void bruck_send(struct bruck_gen *g, int r, int to, uint32_t step, uint32_t sb,
		       uint32_t n)
{
	for (uint32_t k = 0; k < g->nc; k++)
		sched_add_tracked(g->s, g->h, r, &(struct sched_op){
			.kind = SOP_SEND, .paxi = g->px, .recv_peer = -1, .send_peer = to,
			.src_buf = SBUF_SCRATCH, .src_off = sb * g->nc + k * n, .count = n,
			.step = step,
		}, NULL, 0);
}

static void bruck_allgather(struct bruck_gen *g)
{
	int n = g->n, steps = bruck_ceil_log2(n);

	g->s->scratch_units = (uint32_t)(2 * n - 1) * g->nc;
	g->h = sched_hazards_new(g->s);
	for (int r = 0; r < n; r++)
		bruck_copy(g, r, 0, SBUF_SCRATCH, (uint32_t)r, SBUF_IN, (uint32_t)r, 1);
	for (int j = 0; j < steps; j++) {
		int d = 1 << j;
		uint32_t c = (uint32_t)MIN(d, n - d);

		/* rank r receives W[d, d + c) from r + d, which sends its W[0, c) */
		for (int r = 0; r < n; r++)
			bruck_recv(g, r, (r + d) % n, (uint32_t)j, (uint32_t)(r + d), c);
		for (int r = 0; r < n; r++)
			bruck_send(g, (r + d) % n, r, (uint32_t)j, (uint32_t)((r + d) % n), c);
	}
	for (int r = 0; r < n; r++) {
		uint32_t last = (uint32_t)(steps - 1);

		bruck_copy(g, r, last, SBUF_OUT, (uint32_t)r, SBUF_SCRATCH, (uint32_t)r,
			   (uint32_t)(n - r));
		if (r > 0)
			bruck_copy(g, r, last, SBUF_OUT, 0, SBUF_SCRATCH, (uint32_t)n,
				   (uint32_t)r);
	}
}

/* Number of positions i in [1, n) with bit k set. */
static uint32_t bruck_npos(int n, int k)
{
	uint32_t c = 0;

	for (int i = 1; i < n; i++)
		c += (i >> k) & 1;
	return c;
}

static void bruck_alltoall(struct bruck_gen *g)
{
	int n = g->n, steps = bruck_ceil_log2(n);
	uint32_t pmax = 0;

	for (int k = 0; k < steps; k++)
		pmax = MAX(pmax, bruck_npos(n, k));

	uint32_t w = 0, ps = (uint32_t)n, pr = (uint32_t)n + pmax; /* scratch blocks */

	g->s->scratch_units = ((uint32_t)n + 2 * pmax) * g->nc;
	g->h = sched_hazards_new(g->s);

	/* Rotate: W[i] = input block r + i; W[0] goes straight to the output. */
	for (int r = 0; r < n; r++) {
		bruck_copy(g, r, 0, SBUF_OUT, (uint32_t)r, SBUF_IN, (uint32_t)r, 1);
		if (r + 1 < n)
			bruck_copy(g, r, 0, SBUF_SCRATCH, w + 1, SBUF_IN, (uint32_t)r + 1,
				   (uint32_t)(n - r - 1));
		if (r > 0)
			bruck_copy(g, r, 0, SBUF_SCRATCH, w + (uint32_t)(n - r), SBUF_IN, 0,
				   (uint32_t)r);
	}
	for (int k = 0; k < steps; k++) {
		int d = 1 << k;
		uint32_t cnt = bruck_npos(n, k);
		/* the positions with bit k set: runs [d (2m + 1), d (2m + 2)) */
		bool one_run = 2 * d >= n;

		for (int r = 0; r < n; r++)
			bruck_recv(g, r, (r - d + n) % n, (uint32_t)k, pr, cnt);
		for (int r = 0; r < n; r++) {
			uint32_t at = 0;

			if (one_run) {
				bruck_send(g, r, (r + d) % n, (uint32_t)k, w + (uint32_t)d, cnt);
				continue;
			}
			for (int i = d; i < n; i += 2 * d) {
				uint32_t len = (uint32_t)MIN(d, n - i);

				bruck_copy(g, r, (uint32_t)k, SBUF_SCRATCH, ps + at, SBUF_SCRATCH,
					   w + (uint32_t)i, len);
				at += len;
			}
			bruck_send(g, r, (r + d) % n, (uint32_t)k, ps, cnt);
		}
		for (int r = 0; r < n; r++) {
			uint32_t at = 0;

			for (int i = d; i < n; i += 2 * d) {
				uint32_t len = (uint32_t)MIN(d, n - i);

				bruck_copy(g, r, (uint32_t)k, SBUF_SCRATCH, w + (uint32_t)i,
					   SBUF_SCRATCH, pr + at, len);
				at += len;
			}
		}
	}
	/* W[i] came from rank r - i: output block (r - i) mod n. */
	for (int r = 0; r < n; r++)
		for (int i = 1; i < n; i++)
			bruck_copy(g, r, (uint32_t)(steps - 1), SBUF_OUT,
				   (uint32_t)((r - i + n) % n), SBUF_SCRATCH, w + (uint32_t)i, 1);
}

static struct sched *bruck_build(enum coll c, const struct algo_params *p, GError **error)
{
	/* the registry admits only our collectives */
	g_assert(c == COLL_ALLGATHER || c == COLL_ALLGATHERV || c == COLL_ALLTOALL);

	struct bruck_gen g = {
		.s = sched_new(c, "bruck", p->nranks, (uint32_t)p->nranks, p->nchunks),
		.px = algo_bruck_ops.default_paxi,
		.n = p->nranks,
		.nc = p->nchunks,
	};

	if (c != COLL_ALLTOALL)
		bruck_allgather(&g);
	else
		bruck_alltoall(&g);
	sched_hazards_free(g.h);
	g.s->inplace_ok = true;
	return g.s;
}

static void bruck_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = bruck_ceil_log2(p->nranks);
	if (c == COLL_ALLTOALL) {
		uint32_t blocks = 0;

		for (int k = 0; k < bruck_ceil_log2(p->nranks); k++)
			blocks += bruck_npos(p->nranks, k);
		out->coef = (double)blocks / p->nranks;
	} else {
		out->coef = (double)(p->nranks - 1) / p->nranks;
	}
}

const struct algo_ops algo_bruck_ops = {
	.name = "bruck",
	.summary = "Bruck: ceil(log2 N) steps at distances 2^k, any N; AllToAll packs "
		   "the blocks of each step through scratch",
	.collectives = COLL_ALLGATHER | COLL_ALLGATHERV | COLL_ALLTOALL,
	.default_paxi = PAXI_SENDRECV,
	.build = bruck_build,
	.theory = bruck_theory,
};
