/* Torus collectives: a ring per dimension, the dimensions in turn, for
 * AllReduce, AllGather and ReduceScatter on a torus of dims[0] x dims[1] x
 * ... = N ranks (rank = x0 + dims[0] x (x1 + dims[1] x (...)), as topology
 * torus numbers them).
 *
 *   ReduceScatter: a ring ReduceScatter along dimension 0 (each ring is the
 *     dims[0] ranks that differ in x0 only), after which each rank holds
 *     1/dims[0] of the data summed over its ring; then a ring ReduceScatter
 *     of that part along dimension 1, and so on: after dimension i a rank
 *     holds 1/(dims[0] ... dims[i]) of the data, summed over the sub-torus
 *     of dimensions 0..i, and after the last its own block summed over all.
 *   AllGather: the mirror, the last dimension first: rings of the last
 *     dimension gather, then those of the one before, ... dimension 0 last.
 *   AllReduce: ReduceScatter along dimensions 0, 1, ..., then AllGather
 *     back along ..., 1, 0.
 * This is the hierarchical composition of hier.c applied recursively: a
 * torus of dims (D0, D1, ...) is nodes of D0 ranks (the rings of dimension
 * 0, intra tier: a ring) joined by rails that are themselves a torus of
 * (D1, ...) (inter tier: this algorithm again). So each stage is a flat ring
 * schedule of the registry embedded on its ring, and the hazard tracker
 * lets stages overlap where the data allows. A dimension of extent 1 is
 * left out; a torus of one dimension is the ring itself.
 *
 * `torus` runs each ring one way (ring: NCCL's ring kernel, lane 0).
 * `torus2p` runs both directions of every ring at once: its rings are the
 * 2-port ring (ring2p), in which every block goes floor(D/2) hops round
 * the ring one way on lane 0 and the rest the other way on lane 1, so each
 * direction of every link carries about half the data in half the steps.
 * (The split is by block, not by bytes within a block: AllGather and
 * ReduceScatter keep a rank's block whole, nblocks = N, and the user's
 * nchunks is the schedule's.)
 *
 * Dims come from algo_params.dims (a run's torus or mesh platform, --dims);
 * not given, the most nearly square 2-D A x B of N as topology torus takes
 * it (a prime N: one ring). Dims whose product is not N are not admitted.
 *
 * Alpha-beta: with P_i = D0 ... D(i-1) (P_0 = 1), the sum over dimensions of
 * the ring's terms on D_i ranks with the bandwidth term scaled by 1 / P_i:
 *   AllReduce steps 2 sum (D_i - 1) (torus2p: 2 sum floor(D_i / 2)),
 *   coef 2 sum (D_i - 1) / (D_i P_i); AllGather, ReduceScatter half. */
#include <string.h>

#include "sim/algos/families.h"

#define TORUS_COLLS (COLL_ALLREDUCE | COLL_ALLGATHER | COLL_REDUCESCATTER)

/* The extents of p other than 1 into d; returns their number, or -1 with
 * error set when the dims given do not make p->nranks. */
static int torus_dims(const struct algo_ops *self, const struct algo_params *p, int *d,
		      GError **error)
{
	int k = 0, given = 0;
	long prod = algo_dims_product(p->dims);

	for (int i = 0; i < ALGO_MAX_DIMS && p->dims[i] > 0; i++) {
		given++;
		if (p->dims[i] > 1)
			d[k++] = p->dims[i];
	}
	if (!given) {
		int a = 1;

		for (int x = 1; (long)x * x <= p->nranks; x++)
			if (p->nranks % x == 0)
				a = x;
		k = 0;
		if (a > 1)
			d[k++] = a;
		d[k++] = p->nranks / a;
		return k;
	}
	if (prod != p->nranks) {
		GString *g = g_string_new(NULL);

		for (int i = 0; i < given; i++)
			g_string_append_printf(g, "%s%d", i ? "x" : "", p->dims[i]);
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED,
			    "'%s' needs torus dims that make the %d ranks, got %s", self->name,
			    p->nranks, g->str);
		g_string_free(g, TRUE);
		return -1;
	}
	return k;
}

static struct sched *torus_build_with(const struct algo_ops *self, const struct algo_ops *ring,
				      enum coll c, const struct algo_params *p, GError **error)
{
	int d[ALGO_MAX_DIMS] = { 0 };
	int k = torus_dims(self, p, d, error);
	struct algo_params q = {
		.nranks = p->nranks, .nchunks = p->nchunks, .fuse_copy = p->fuse_copy,
		.root = 0, .peer = -1,
	};
	struct sched *s;

	if (k < 0)
		return NULL;
	if (k == 1) {
		s = algo_build(ring, c, &q, error);
	} else {
		const struct algo_ops *tiers[2] = { ring, self };

		q.node_ranks = d[0];
		q.tiers = tiers;
		memcpy(q.dims, d + 1, sizeof(int) * (size_t)(k - 1));
		s = algo_hier_compose(c, &q, error);
	}
	if (s) {
		g_free(s->algo);
		s->algo = g_strdup(self->name);
	}
	return s;
}

static struct sched *torus_build(enum coll c, const struct algo_params *p, GError **error)
{
	return torus_build_with(&algo_torus_ops, &algo_ring_ops, c, p, error);
}

static struct sched *torus2p_build(enum coll c, const struct algo_params *p, GError **error)
{
	return torus_build_with(&algo_torus2p_ops, &algo_ring2p_ops, c, p, error);
}

static void torus_theory_with(const struct algo_ops *self, const struct algo_ops *ring,
			      enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	int d[ALGO_MAX_DIMS] = { 0 };
	int k = torus_dims(self, p, d, NULL);
	double share = 1;

	out->steps = out->coef = 0;
	for (int i = 0; i < k; i++) {
		struct algo_params q = { .nranks = d[i], .nchunks = 1 };
		struct algo_theory t = { 0 };

		algo_theory(ring, c, &q, &t);
		out->steps += t.steps;
		out->coef += t.coef * share;
		share /= d[i];
	}
}

static void torus_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	torus_theory_with(&algo_torus_ops, &algo_ring_ops, c, p, out);
}

static void torus2p_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	torus_theory_with(&algo_torus2p_ops, &algo_ring2p_ops, c, p, out);
}

const struct algo_ops algo_torus_ops = {
	.name = "torus",
	.summary = "a ring per torus dimension in turn (dims from the torus or --dims), "
		   "one direction, Transfer",
	.collectives = TORUS_COLLS,
	.default_paxi = PAXI_TRANSFER,
	.build = torus_build,
	.theory = torus_theory,
	.takes_dims = true,
};

const struct algo_ops algo_torus2p_ops = {
	.name = "torus2p",
	.summary = "torus with both directions of every ring at once (ring2p per dimension), "
		   "Transfer",
	.collectives = TORUS_COLLS,
	.default_paxi = PAXI_TRANSFER,
	.build = torus2p_build,
	.theory = torus2p_theory,
	.takes_dims = true,
};
