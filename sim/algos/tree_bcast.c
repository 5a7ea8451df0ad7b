/* sim/algos/tree_bcast — Broadcast and Reduce from any root: a binomial tree
 * (`binomial`) and a pipelined chain (`chain`).
 *
 * Ranks are renumbered relative to the root: v = (r - root) mod N.
 *
 * binomial, Broadcast: in step k (k = 0..ceil(log2 N) - 1) every v < 2^k
 * that has the data sends it to v + 2^k (when < N); v >= 1 receives in step
 * floor(log2 v) and sends in every later step. Reduce is the mirror image: v
 * sends its partial sum to v - 2^j in step j = (lowest set bit of v), after
 * adding what its children v + 2^i (i < j) sent in steps i; the last child's
 * data is added on the fly and sent up (recv-reduce-send). Non-root partial
 * sums live in scratch (the output exists on the root only); the root adds
 * into its output. Send/Recv by default. Theory: ceil(log2 N) steps; each
 * step is a store-and-forward hop of the whole buffer, so coef ceil(log2 N).
 *
 * chain, Broadcast: root -> root+1 -> ... -> root-1; each middle rank stores
 * and forwards (recv-copy-send), the last one stores. Reduce flows the same
 * way round and ends at the root: root+1 sends its input, each next rank adds
 * its own and forwards (recv-reduce-send), the root adds the last partial
 * into its output. Transfer by default, so every slice is forwarded as it
 * arrives. Theory: N - 1 steps, coef 1 (the hops overlap).
 *
 * The root's own data reaches its Broadcast output by a local copy. nblocks
 * = 1, nchunks pieces, one op per piece; each rank lists its ops piece by
 * piece, so piece k + 1 follows piece k down the tree or chain, and every
 * (sender, receiver) pair sees its pieces in the same order on both sides.
 * Deps come from sched_add_tracked. All correct in place. */
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/algos/families.h"

struct tb_gen {
	struct sched *s;
	struct sched_hazards *h;
	enum paxi_kind px;
	int n, root;
	bool fuse_copy; /* the chain root's copy travels with its send */
};

static int tb_ceil_log2(int n)
{
	int m = 0;

	while ((1 << m) < n)
		m++;
	return m;
}

static int tb_real(const struct tb_gen *g, int v)
{
	return (v + g->root) % g->n;
}

/* Adds *tmpl at virtual rank v; peers are virtual too (-1: none). The copy
 * is byte-wise so the op keeps the template's (zeroed) padding, which
 * sched_equal compares. */
static void tb_add(struct tb_gen *g, int v, const struct sched_op *tmpl, int from, int to)
{
	struct sched_op op;

	memcpy(&op, tmpl, sizeof(op));
	op.paxi = (uint8_t)g->px;
	op.count = 1;
	op.recv_peer = from < 0 ? -1 : tb_real(g, from);
	op.send_peer = to < 0 ? -1 : tb_real(g, to);
	sched_add_tracked(g->s, g->h, tb_real(g, v), &op, NULL, 0);
}

static void tb_root_copy(struct tb_gen *g, uint32_t u)
{
	tb_add(g, 0, &(struct sched_op){
		.kind = SOP_COPY, .src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT,
		.dst_off = u, .step = 0,
	}, -1, -1);
}

static void binomial_bcast(struct tb_gen *g, int v, uint32_t u)
{
	int first = 0; /* the first step v sends in */

	if (v != 0) {
		int k = 0;

		while ((2 << k) <= v)
			k++;
		tb_add(g, v, &(struct sched_op){
			.kind = SOP_RECV, .dst_buf = SBUF_OUT, .dst_off = u, .step = (uint32_t)k,
		}, v - (1 << k), -1);
		first = k + 1;
	}
	for (int j = first; v + (1 << j) < g->n; j++)
		tb_add(g, v, &(struct sched_op){
			.kind = SOP_SEND, .src_buf = v == 0 ? SBUF_IN : SBUF_OUT, .src_off = u,
			.step = (uint32_t)j,
		}, -1, v + (1 << j));
	if (v == 0) /* after the sends, so that it does not hold them back */
		tb_root_copy(g, u);
}

static void binomial_reduce(struct tb_gen *g, int v, uint32_t u)
{
	int up = 0; /* v sends up in step `up`: its lowest set bit */
	int nchild = 0;
	enum sched_buf acc = SBUF_IN;
	enum sched_buf sum = v == 0 ? SBUF_OUT : SBUF_SCRATCH;

	if (v == 0)
		up = tb_ceil_log2(g->n);
	else
		while (!(v & (1 << up)))
			up++;
	while (nchild < up && v + (1 << nchild) < g->n)
		nchild++;
	if (nchild == 0) {
		tb_add(g, v, &(struct sched_op){
			.kind = SOP_SEND, .src_buf = SBUF_IN, .src_off = u, .step = (uint32_t)up,
		}, -1, v - (1 << up));
		return;
	}
	for (int j = 0; j < nchild; j++) {
		int child = v + (1 << j);

		if (j == nchild - 1 && v != 0) {
			tb_add(g, v, &(struct sched_op){
				.kind = SOP_RECV_REDUCE_SEND, .src_buf = acc, .src_off = u,
				.step = (uint32_t)up,
			}, child, v - (1 << up));
		} else {
			tb_add(g, v, &(struct sched_op){
				.kind = SOP_RECV_REDUCE, .src_buf = acc, .src_off = u,
				.dst_buf = sum, .dst_off = u, .step = (uint32_t)j,
			}, child, -1);
			acc = sum;
		}
	}
}

static void chain_bcast(struct tb_gen *g, int v, uint32_t u)
{
	int last = g->n - 1;

	if (v == 0 && g->fuse_copy) {
		/* one pass: the root's copy travels with its send */
		tb_add(g, 0, &(struct sched_op){
			.kind = SOP_COPY_SEND, .src_buf = SBUF_IN, .src_off = u,
			.dst_buf = SBUF_OUT, .dst_off = u, .step = 0,
		}, -1, 1);
	} else if (v == 0) {
		/* send first: the root's own copy overlaps with the chain */
		tb_add(g, 0, &(struct sched_op){
			.kind = SOP_SEND, .src_buf = SBUF_IN, .src_off = u, .step = 0,
		}, -1, 1);
		tb_root_copy(g, u);
	} else {
		tb_add(g, v, &(struct sched_op){
			.kind = v < last ? SOP_RECV_COPY_SEND : SOP_RECV, .dst_buf = SBUF_OUT,
			.dst_off = u, .step = (uint32_t)(v < last ? v : v - 1),
		}, v - 1, v < last ? v + 1 : -1);
	}
}

static void chain_reduce(struct tb_gen *g, int v, uint32_t u)
{
	int n = g->n;

	if (v == 1) {
		tb_add(g, v, &(struct sched_op){
			.kind = SOP_SEND, .src_buf = SBUF_IN, .src_off = u, .step = 0,
		}, -1, (v + 1) % n);
	} else if (v > 1) {
		tb_add(g, v, &(struct sched_op){
			.kind = SOP_RECV_REDUCE_SEND, .src_buf = SBUF_IN, .src_off = u,
			.step = (uint32_t)(v - 1),
		}, v - 1, (v + 1) % n);
	} else {
		tb_add(g, v, &(struct sched_op){
			.kind = SOP_RECV_REDUCE, .src_buf = SBUF_IN, .src_off = u,
			.dst_buf = SBUF_OUT, .dst_off = u, .step = (uint32_t)(n - 2),
		}, n - 1, -1);
	}
}

static struct sched *tb_build(const char *name, enum coll c, const struct algo_params *p,
			      enum paxi_kind def,
			      void (*bcast)(struct tb_gen *, int, uint32_t),
			      void (*reduce)(struct tb_gen *, int, uint32_t), GError **error)
{
	g_assert(c == COLL_BROADCAST || c == COLL_REDUCE); /* the registry admits only our collectives */

	struct tb_gen g = {
		.s = sched_new(c, name, p->nranks, 1, p->nchunks),
		.px = def,
		.n = p->nranks,
		.root = p->root,
		.fuse_copy = p->fuse_copy,
	};

	g.s->root = p->root;
	sched_set_windows(g.s);
	if (c == COLL_REDUCE)
		g.s->scratch_units = g.s->nunits;
	g.h = sched_hazards_new(g.s);
	for (int v = 0; v < g.n; v++)
		for (uint32_t k = 0; k < p->nchunks; k++)
			(c == COLL_BROADCAST ? bcast : reduce)(&g, v, k);
	sched_hazards_free(g.h);
	g.s->inplace_ok = true;
	return g.s;
}

static struct sched *binomial_build(enum coll c, const struct algo_params *p, GError **error)
{
	return tb_build("binomial", c, p, algo_binomial_ops.default_paxi, binomial_bcast, binomial_reduce, error);
}

static struct sched *chain_build(enum coll c, const struct algo_params *p, GError **error)
{
	return tb_build("chain", c, p, algo_chain_ops.default_paxi, chain_bcast, chain_reduce, error);
}

static void binomial_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = tb_ceil_log2(p->nranks);
	out->coef = tb_ceil_log2(p->nranks);
}

static void chain_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = p->nranks - 1;
	out->coef = 1;
}

const struct algo_ops algo_binomial_ops = {
	.name = "binomial",
	.summary = "binomial tree from the root: ceil(log2 N) store-and-forward steps",
	.collectives = COLL_BROADCAST | COLL_REDUCE,
	.default_paxi = PAXI_SENDRECV,
	.build = binomial_build,
	.theory = binomial_theory,
};

const struct algo_ops algo_chain_ops = {
	.name = "chain",
	.summary = "pipelined chain root -> root+1 -> ...: N-1 overlapping hops",
	.collectives = COLL_BROADCAST | COLL_REDUCE,
	.default_paxi = PAXI_TRANSFER,
	.build = chain_build,
	.theory = chain_theory,
};
