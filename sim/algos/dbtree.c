/* sim/algos/dbtree — AllReduce by a double binary tree.
 *
 * Two binary trees over the same ranks, each reducing half of the data to its
 * root and broadcasting it back. A tree is built over positions 0..N-1:
 * position 0 is the root and has one child, the root of positions [1, N); the
 * root of a range is the position in it with the most trailing zero bits, its
 * left subtree the range below it, its right subtree the range above. A range
 * of two or more positions always has its root at an even position, so odd
 * positions are leaves. Tree 0 puts rank x at position x, tree 1 puts rank
 * (x + 1) mod N at position x: for even N every rank is interior in at most
 * one tree (even ranks in tree 0, odd ranks in tree 1), so the two trees
 * load different ranks; for odd N rank 0 is interior in both. Each tree has
 * depth D = ceil(log2 N).
 *
 * Block t (t = 0, 1) goes over tree t; nchunks pieces are pipelined through
 * the tree. Reduce: a leaf sends its input up; an interior rank adds its first
 * child's data to its input into its output, then adds the second child's data
 * on the fly and sends the sum up (recv-reduce-send), the root storing it
 * instead. Broadcast: the root sends the result to its children, an interior
 * rank receives it, stores it and forwards it to its first child (recv-copy-
 * send), then sends it to the second. Steps: a rank at depth d sends up in step
 * D - d and down in step D + d; a receive-only op takes the step of the
 * transfer it receives; 2 D steps in all. Tree t is issued on lane t, so a
 * platform with two CDMA units runs the trees on both. Send/Recv by default.
 *
 * Theory (alpha-beta): steps 2 ceil(log2 N). Bandwidth: each of the 2 D levels
 * is a store-and-forward hop that moves half the data (M / 2) per tree, the
 * two trees running side by side, so coef = 2 D x 1/2 = ceil(log2 N): the
 * "bandwidth term log2 N" that makes the tree slowest at large sizes without
 * pipelining (nchunks shortens it, the model does not).
 *
 * Ops are listed piece by piece: the reduce ops of both trees, then their
 * broadcast ops; a broadcast receive only waits (sched_add_tracked) for the
 * reduce of its own piece to have left the rank, so piece k + 1 climbs while
 * piece k comes down. Correct in place. */
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/algos/families.h"

struct dbt_tree {
	int *parent; /* by position, -1 for the root */
	int *child;  /* 2 per position: child[2 x + side], -1 when absent */
	int *depth;
	int height;  /* max depth */
};

static int dbt_ctz(int x)
{
	int z = 0;

	while (!(x & 1)) {
		x >>= 1;
		z++;
	}
	return z;
}

/* Builds the subtree of positions [lo, hi) under parent `par` (its side-th
 * child) at depth d. */
static void dbt_range(struct dbt_tree *t, int lo, int hi, int par, int side, int d)
{
	int root = lo;

	if (lo >= hi)
		return;
	for (int x = lo + 1; x < hi; x++)
		if (dbt_ctz(x) > dbt_ctz(root))
			root = x;
	t->parent[root] = par;
	t->child[2 * par + side] = root;
	t->depth[root] = d;
	if (d > t->height)
		t->height = d;
	dbt_range(t, lo, root, root, 0, d + 1);
	dbt_range(t, root + 1, hi, root, 1, d + 1);
}

static void dbt_tree_init(struct dbt_tree *t, int n)
{
	t->parent = g_new(int, n);
	t->child = g_new(int, 2 * n);
	t->depth = g_new0(int, n);
	t->height = 0;
	for (int x = 0; x < n; x++)
		t->child[2 * x] = t->child[2 * x + 1] = -1;
	t->parent[0] = -1;
	/* the root's single child is its first */
	dbt_range(t, 1, n, 0, 0, 1);
}

static void dbt_tree_release(struct dbt_tree *t)
{
	g_free(t->parent);
	g_free(t->child);
	g_free(t->depth);
}

static int dbt_ceil_log2(int n)
{
	int m = 0;

	while ((1 << m) < n)
		m++;
	return m;
}

struct dbt_ctx {
	struct sched *s;
	struct sched_hazards *h;
	const struct dbt_tree *tree;
	enum paxi_kind px;
	int n;
};

/* Rank at position x of tree t. */
static int dbt_rank(const struct dbt_ctx *c, int t, int x)
{
	return x < 0 ? -1 : (x + t) % c->n;
}

/* Adds *tmpl with this tree's lane and PAXI kind. The copy is byte-wise so
 * the op keeps the template's (zeroed) padding, which sched_equal compares. */
static void dbt_add(struct dbt_ctx *c, int t, int x, const struct sched_op *tmpl)
{
	struct sched_op op;

	memcpy(&op, tmpl, sizeof(op));
	op.paxi = (uint8_t)c->px;
	op.lane = (uint8_t)t;
	op.count = 1;
	sched_add_tracked(c->s, c->h, dbt_rank(c, t, x), &op, NULL, 0);
}

/* Reduce ops of position x in tree t for unit u. */
static void dbt_reduce(struct dbt_ctx *c, int t, int x, uint32_t u)
{
	const struct dbt_tree *tr = c->tree;
	int d = tr->depth[x], par = dbt_rank(c, t, tr->parent[x]);
	int c0 = dbt_rank(c, t, tr->child[2 * x]), c1 = dbt_rank(c, t, tr->child[2 * x + 1]);
	uint32_t up = (uint32_t)(tr->height - d);       /* my send up */
	uint32_t below = (uint32_t)(tr->height - d - 1); /* my children's */
	enum sched_buf acc = SBUF_IN;

	if (c0 < 0) {
		dbt_add(c, t, x, &(struct sched_op){
			.kind = SOP_SEND, .recv_peer = -1, .send_peer = par,
			.src_buf = SBUF_IN, .src_off = u, .step = up,
		});
		return;
	}
	if (c1 >= 0 || par < 0) {
		dbt_add(c, t, x, &(struct sched_op){
			.kind = SOP_RECV_REDUCE, .recv_peer = c0, .send_peer = -1,
			.src_buf = SBUF_IN, .src_off = u, .dst_buf = SBUF_OUT, .dst_off = u,
			.step = below,
		});
		acc = SBUF_OUT;
		c0 = c1;
	}
	if (c0 < 0)
		return; /* the root of one child is done */
	if (par < 0)
		dbt_add(c, t, x, &(struct sched_op){
			.kind = SOP_RECV_REDUCE, .recv_peer = c0, .send_peer = -1,
			.src_buf = acc, .src_off = u, .dst_buf = SBUF_OUT, .dst_off = u,
			.step = below,
		});
	else
		dbt_add(c, t, x, &(struct sched_op){
			.kind = SOP_RECV_REDUCE_SEND, .recv_peer = c0, .send_peer = par,
			.src_buf = acc, .src_off = u, .step = up,
		});
}

/* Broadcast ops of position x in tree t for unit u. */
static void dbt_bcast(struct dbt_ctx *c, int t, int x, uint32_t u)
{
	const struct dbt_tree *tr = c->tree;
	uint32_t down = (uint32_t)(tr->height + tr->depth[x]);
	int par = dbt_rank(c, t, tr->parent[x]);
	int c0 = dbt_rank(c, t, tr->child[2 * x]), c1 = dbt_rank(c, t, tr->child[2 * x + 1]);

	if (par >= 0) {
		dbt_add(c, t, x, &(struct sched_op){
			.kind = c0 >= 0 ? SOP_RECV_COPY_SEND : SOP_RECV,
			.recv_peer = par, .send_peer = c0,
			.dst_buf = SBUF_OUT, .dst_off = u,
			.step = c0 >= 0 ? down : down - 1,
		});
	} else {
		dbt_add(c, t, x, &(struct sched_op){
			.kind = SOP_SEND, .recv_peer = -1, .send_peer = c0,
			.src_buf = SBUF_OUT, .src_off = u, .step = down,
		});
	}
	if (c1 >= 0)
		dbt_add(c, t, x, &(struct sched_op){
			.kind = SOP_SEND, .recv_peer = -1, .send_peer = c1,
			.src_buf = SBUF_OUT, .src_off = u, .step = down,
		});
}

static struct sched *dbt_build(enum coll coll, const struct algo_params *p, GError **error)
{
	int n = p->nranks;
	uint32_t nc = p->nchunks;

	g_assert(coll == COLL_ALLREDUCE); /* the registry admits only our collectives */

	struct dbt_tree tree;
	struct sched *s = sched_new(coll, "dbtree", n, 2, nc);
	struct dbt_ctx c = {
		.s = s, .h = sched_hazards_new(s), .tree = &tree, .n = n,
		.px = algo_dbtree_ops.default_paxi,
	};

	dbt_tree_init(&tree, n);
	g_assert_cmpint(tree.height, ==, dbt_ceil_log2(n));
	/* Every rank lists, piece by piece, its reduce ops of both trees and
	 * then its broadcast ops: the same order on both ends of every edge,
	 * so FIFO matching per (sender, receiver, lane) pairs them. */
	for (uint32_t k = 0; k < nc; k++) {
		for (int t = 0; t < 2; t++)
			for (int x = 0; x < n; x++)
				dbt_reduce(&c, t, x, (uint32_t)t * nc + k);
		for (int t = 0; t < 2; t++)
			for (int x = 0; x < n; x++)
				dbt_bcast(&c, t, x, (uint32_t)t * nc + k);
	}
	sched_hazards_free(c.h);
	dbt_tree_release(&tree);
	s->inplace_ok = true;
	return s;
}

static void dbt_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	int d = dbt_ceil_log2(p->nranks);

	out->steps = 2.0 * d;
	out->coef = d;
}

const struct algo_ops algo_dbtree_ops = {
	.name = "dbtree",
	.summary = "double binary tree: two complementary trees each reduce and "
		   "broadcast half of the data, pipelined by nchunks",
	.collectives = COLL_ALLREDUCE,
	.default_paxi = PAXI_SENDRECV,
	.build = dbt_build,
	.theory = dbt_theory,
};
