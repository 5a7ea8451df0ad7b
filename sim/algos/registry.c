/* The algorithm registry: one table of every family's ops, looked up by
 * (collective, name), and the checks every build goes through. algo_build
 * validates the parameters a user can get wrong (rank count, root, peer,
 * nchunks, AllGatherV weights) before a generator sees them, applies the
 * PAXI override to every op afterwards, and fills AllGatherV's weights, so
 * generators only build: with their ops' default PAXI kind, for the
 * collectives their ops name, on parameters this file has admitted. */
#include "sim/algos/algo.h"

#include <string.h>

#include "sim/algos/families.h"
#include "sim/util/spell.h"
#include "sim/util/quote.h"

/* Each family adds its line here when its file exists (families.h lists
 * them all). Order is the order of "known: ..." lists and of `g5 verify`. */
static const struct algo_ops *const registry[] = {
	&algo_ring_ops,
	&algo_ring2p_ops,
	&algo_sendrecv_ops,
	&algo_hd_ops,
	&algo_dbtree_ops,
	&algo_direct_ops,
	&algo_rd_ops,
	&algo_rh_ops,
	&algo_bruck_ops,
	&algo_pairwise_ops,
	&algo_ring_a2a_ops,
	&algo_ring2p_a2a_ops,
	&algo_binomial_ops,
	&algo_chain_ops,
	&algo_p2p_direct_ops,
	&algo_agv_ring_ops,
	&algo_agv_direct_ops,
	&algo_agv_pad_ops,
	&algo_agv_bcast_ops,
	&algo_hier_ops,
	&algo_nccl_ops,
	&algo_torus_ops,
	&algo_torus2p_ops,
	NULL,
};

GQuark algo_error_quark(void)
{
	return g_quark_from_static_string("g5-algo-error-quark");
}

const struct algo_ops *const *algo_all(void)
{
	return registry;
}

char *algo_known_names(enum coll c)
{
	GString *g = g_string_new(NULL);

	for (const struct algo_ops *const *a = registry; *a; a++)
		if ((*a)->collectives & c)
			g_string_append_printf(g, "%s%s", g->len ? ", " : "", (*a)->name);
	return g_string_free(g, FALSE);
}

long algo_dims_product(const int dims[ALGO_MAX_DIMS])
{
	long prod = 1;

	for (int i = 0; i < ALGO_MAX_DIMS && dims[i] > 0; i++)
		prod = MIN(prod * dims[i], (long)SCHED_MAX_RANKS + 1);
	return prod;
}

const struct algo_ops *algo_find(enum coll c, const char *name, GError **error)
{
	if (g_str_has_prefix(name, "hier-"))
		return algo_hier_find(c, name, error);
	for (const struct algo_ops *const *a = registry; *a; a++)
		if (((*a)->collectives & c) && !strcmp((*a)->name, name))
			return *a;
	g_autofree char *known = algo_known_names(c);
	g_autofree char *hint = spell_hint(name, known);

	g_set_error(error, ALGO_ERROR, ALGO_ERROR_UNKNOWN, "unknown algorithm '%s' for %s (known: %s)%s",
		    quote_text(name).s, coll_name(c), *known ? known : "none", hint);
	return NULL;
}

static bool rooted(enum coll c)
{
	return c == COLL_BROADCAST || c == COLL_REDUCE || c == COLL_P2P;
}

bool algo_root_peer_check(enum coll c, int nranks, int root, int peer, bool *bad_peer,
			  GError **error)
{
	if (bad_peer)
		*bad_peer = false;
	if (rooted(c) && (root < 0 || root >= nranks)) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
			    "'root' must be a rank in 0..%d, got %d", nranks - 1, root);
		return false;
	}
	if (c == COLL_P2P && (peer < 0 || peer >= nranks || peer == root)) {
		if (bad_peer)
			*bad_peer = true;
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
			    "'peer' must be a rank in 0..%d other than the root %d, got %d",
			    nranks - 1, root, peer);
		return false;
	}
	return true;
}

struct sched *algo_build(const struct algo_ops *a, enum coll c, const struct algo_params *p,
			 GError **error)
{
	if (!(a->collectives & c)) {
		char *known = algo_known_names(c);

		g_set_error(error, ALGO_ERROR, ALGO_ERROR_UNKNOWN,
			    "unknown algorithm '%s' for %s (known: %s)", a->name, coll_name(c),
			    *known ? known : "none");
		g_free(known);
		return NULL;
	}
	if (p->nranks < 2 || p->nranks > SCHED_MAX_RANKS) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS, "'ranks' must be in 2..%d, got %d",
			    SCHED_MAX_RANKS, p->nranks);
		return NULL;
	}
	if (p->nchunks < 1 || p->nchunks > SCHED_MAX_NCHUNKS) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS, "'nchunks' must be in 1..%d, got %u",
			    SCHED_MAX_NCHUNKS, p->nchunks);
		return NULL;
	}
	struct algo_params q = *p;

	if (!algo_root_peer_check(c, p->nranks, p->root, p->peer, NULL, error))
		return NULL;
	if (!rooted(c))
		q.root = 0;
	if (c != COLL_P2P)
		q.peer = -1;
	if (c == COLL_ALLGATHERV && p->weights) {
		uint64_t sum = 0;

		for (int r = 0; r < p->nranks; r++) {
			if (p->weights[r] > UINT64_MAX / 2 / (uint64_t)p->nranks) {
				g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
					    "'weights' entry %d is too large", r);
				return NULL;
			}
			sum += p->weights[r];
		}
		if (!sum) {
			g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
				    "'weights' must not all be zero");
			return NULL;
		}
	}
	if (c != COLL_ALLGATHERV)
		q.weights = NULL;
	q.tiers = a->tiers[0] ? a->tiers : NULL;
	if (q.tiers && q.node_ranks <= 0) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
			    "'%s' needs the ranks per node ('node_ranks', --node-ranks)", a->name);
		return NULL;
	}
	if (q.tiers && q.nranks % q.node_ranks) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_PARAMS,
			    "'node_ranks' must divide 'ranks' (%d), got %d", q.nranks, q.node_ranks);
		return NULL;
	}

	struct sched *s = NULL;

	if (!q.turned) {
		/* where it turns, its every rank's ops are N times rank 0's:
		 * counted from the turned build, not found by building them */
		struct algo_params t = q;

		t.turned = true;
		s = a->build(c, &t, error);
		if (!s)
			return NULL;
		/* one that does not turn is built as asked already */
		if (s->turned) {
			s->nops = sched_rank_len(s, 0) * (uint64_t)s->nranks;
			if (!sched_over(s))
				g_clear_pointer(&s, sched_free);
		}
	}
	if (!s)
		s = a->build(c, &q, error);
	if (!s)
		return NULL;
	if (sched_over(s)) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_MEMORY,
			    "%s %s on %d ranks has %" G_GUINT64_FORMAT " ops%s, which need about %.3g GB "
			    "of memory, more than the %.3g GB a schedule may take (half this machine's): "
			    "fewer ranks",
			    a->name, coll_name(c), q.nranks, s->nops,
			    q.turned ? "" : " stored for every rank", (double)s->nops * SCHED_BYTES_PER_OP / 1e9,
			    (double)sched_machine_memory() / 2e9);
		sched_free(s);
		return NULL;
	}
	if (q.tiers) {
		/* the name it was asked by: "hier" or "hier-INTRA-INTER" */
		g_free(s->algo);
		s->algo = g_strdup(a->name);
	}
	g_assert(s->coll == c);
	g_assert_cmpint(s->nranks, ==, q.nranks);
	g_assert_cmpuint(s->nchunks, ==, q.nchunks);
	g_assert_cmpint(s->root, ==, q.root);
	g_assert_cmpint(s->peer, ==, q.peer);
	if (c == COLL_ALLGATHERV && !s->weights) {
		g_assert_cmpuint(s->nblocks, ==, (uint32_t)q.nranks);
		s->weights = g_new(uint64_t, s->nblocks);
		for (uint32_t b = 0; b < s->nblocks; b++)
			s->weights[b] = q.weights ? q.weights[b] : 1;
	}
	if (p->paxi_set)
		for (int r = 0; r < s->nranks; r++)
			for (guint i = 0; i < s->ranks[r].ops->len; i++)
				g_array_index(s->ranks[r].ops, struct sched_op, i).paxi =
					(uint8_t)p->paxi;
	return s;
}

void algo_theory(const struct algo_ops *a, enum coll c, const struct algo_params *p,
		 struct algo_theory *out)
{
	struct algo_params q = *p;

	q.tiers = a->tiers[0] ? a->tiers : NULL;
	a->theory(c, &q, out);
}

double algo_theory_us(const struct algo_ops *a, enum coll c, const struct algo_params *p,
		      uint64_t bytes, double overhead_us, double alpha_us,
		      double beta_bytes_per_s)
{
	struct algo_theory t = { 0 };

	g_assert(beta_bytes_per_s > 0);
	algo_theory(a, c, p, &t);
	return overhead_us + t.steps * alpha_us + t.coef * (double)bytes / beta_bytes_per_s * 1e6;
}
