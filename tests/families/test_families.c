/* Tests of the algorithm families beyond the ring (sim/algos/hd.c, dbtree.c,
 * direct.c, rd_rh.c, bruck.c, pairwise.c, alltoall_ring.c (ring and ring2p),
 * tree_bcast.c, p2p.c, allgatherv.c): every algorithm x collective x admitted N x nchunks
 * passes the symbolic verifier out of place and (when it says so) in place,
 * has the step count of its alpha-beta model, uses its default PAXI kind,
 * and is built identically twice; non-admitted parameters give NULL and an
 * error that names the rule. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/algos/families.h"
#include "sim/algos/schedule.h"
#include "sim/algos/verify.h"

struct case_def {
	const char *name;
	enum coll coll;
	bool pow2_only;  /* rejects other N */
	bool inplace;    /* declares itself correct in place */
};

static const struct case_def cases[] = {
	{ "hd", COLL_ALLREDUCE, false, true },
	{ "dbtree", COLL_ALLREDUCE, false, true },
	{ "direct", COLL_ALLREDUCE, false, true },
	{ "direct", COLL_ALLGATHER, false, true },
	{ "direct", COLL_REDUCESCATTER, false, true },
	{ "rd", COLL_ALLGATHER, true, true },
	{ "rh", COLL_REDUCESCATTER, true, true },
	{ "bruck", COLL_ALLGATHER, false, true },
	{ "bruck", COLL_ALLTOALL, false, true },
	{ "pairwise", COLL_ALLTOALL, false, false },
	{ "ring", COLL_ALLTOALL, false, true },
	{ "ring2p", COLL_ALLTOALL, false, true },
	{ "binomial", COLL_BROADCAST, false, true },
	{ "binomial", COLL_REDUCE, false, true },
	{ "chain", COLL_BROADCAST, false, true },
	{ "chain", COLL_REDUCE, false, true },
	{ "direct", COLL_P2P, false, true },
	{ "ring", COLL_ALLGATHERV, false, true },
	{ "direct", COLL_ALLGATHERV, false, true },
};

static const uint32_t chunk_counts[] = { 1, 2, 4 };

static bool is_pow2(int n)
{
	return n > 0 && !(n & (n - 1));
}

/* The rank counts each case runs: all of 2..40, then a spread up to 64
 * (powers of two, their neighbours, a few odd ones). */
static bool rank_count_tested(int n)
{
	static const int extra[] = { 47, 48, 49, 55, 63, 64 };

	if (n <= 40)
		return true;
	for (size_t i = 0; i < G_N_ELEMENTS(extra); i++)
		if (extra[i] == n)
			return true;
	return false;
}

static struct algo_params params(int n, uint32_t nchunks)
{
	return (struct algo_params){
		.nranks = n, .nchunks = nchunks, .root = 0, .peer = 1,
	};
}

/* Marks the test failed with a message; the caller stops its case. */
static bool fail_case(const char *what, const char *msg)
{
	g_test_message("%s: %s", what, msg);
	g_test_fail();
	return false;
}

static bool verified(const struct sched *s, const char *what)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(GError) err2 = NULL;
	struct verify_where where = { -1, -1 };

	if (!verify_sched_mode(s, false, &where, &err))
		return fail_case(what, err->message);
	if (s->inplace_ok && !verify_sched_mode(s, true, &where, &err2))
		return fail_case(what, err2->message);
	return true;
}

/* Every op that moves data uses PAXI kind `want`. */
static bool paxi_is(const struct sched *s, enum paxi_kind want, const char *what)
{
	for (int r = 0; r < s->nranks; r++)
		for (guint i = 0; i < s->ranks[r].ops->len; i++) {
			const struct sched_op *o = sched_op_at(s, r, i);

			if ((o->recv_peer >= 0 || o->send_peer >= 0) && o->paxi != want) {
				g_autofree char *m = g_strdup_printf(
					"rank %d op %u has paxi %s, expected %s", r, i,
					paxi_kind_name(o->paxi), paxi_kind_name(want));

				return fail_case(what, m);
			}
		}
	return true;
}

/* Builds, verifies and checks one case; false (test failed) on a problem. */
static bool run_case(const struct case_def *c, int n, uint32_t nchunks, int root)
{
	g_autoptr(GError) err = NULL;
	const struct algo_ops *a = algo_find(c->coll, c->name, &err);
	struct algo_params p = params(n, nchunks);
	char what[128];
	struct algo_theory t = { 0 };

	g_assert_no_error(err);
	g_assert_nonnull(a);
	p.root = root;
	if (c->coll == COLL_P2P)
		p.peer = (root + n / 2) % n == root ? (root + 1) % n : (root + n / 2) % n;
	g_snprintf(what, sizeof(what), "%s %s N=%d nchunks=%u root=%d", c->name,
		   coll_name(c->coll), n, nchunks, root);

	struct sched *s = algo_build(a, c->coll, &p, &err);

	if (c->pow2_only && !is_pow2(n)) {
		g_assert_null(s);
		g_assert_error(err, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED);
		g_assert_nonnull(strstr(err->message, "power-of-two"));
		return true;
	}
	if (!s)
		return fail_case(what, err->message);
	g_assert_cmpint(s->inplace_ok, ==, c->inplace);
	algo_theory(a, c->coll, &(struct algo_params){ .nranks = n }, &t);
	if (!verified(s, what) || !paxi_is(s, a->default_paxi, what)) {
		sched_free(s);
		return false;
	}
	if ((double)s->nsteps != t.steps) {
		g_autofree char *m = g_strdup_printf("%u steps, theory says %g", s->nsteps, t.steps);

		sched_free(s);
		return fail_case(what, m);
	}

	/* the same parameters build the same schedule */
	struct sched *again = algo_build(a, c->coll, &p, &err);

	g_assert_no_error(err);
	g_assert_true(sched_equal(s, again));
	sched_free(again);
	sched_free(s);
	return true;
}

static void test_all(gconstpointer data)
{
	const struct case_def *c = data;

	for (int n = 2; n <= 64; n++) {
		if (!rank_count_tested(n))
			continue;
		for (size_t k = 0; k < G_N_ELEMENTS(chunk_counts); k++)
			if (!run_case(c, n, chunk_counts[k], 0))
				return;
	}
}

/* Rooted collectives from every root on a few N. */
static void test_roots(gconstpointer data)
{
	const struct case_def *c = data;
	static const int ns[] = { 2, 3, 5, 8, 13 };

	for (size_t i = 0; i < G_N_ELEMENTS(ns); i++)
		for (int root = 0; root < ns[i]; root++)
			for (size_t k = 0; k < G_N_ELEMENTS(chunk_counts); k++)
				if (!run_case(c, ns[i], chunk_counts[k], root))
					return;
}

/* The override reaches every op (algo_build) and the schedule still verifies:
 * in particular it does not deadlock under the other kind (Send/Recv waits
 * for the receive to be posted, Transfer does not). */
static void test_paxi_override(void)
{
	static const int ns[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 24, 31, 32 };

	for (size_t i = 0; i < G_N_ELEMENTS(cases) * G_N_ELEMENTS(ns) * 2; i++) {
		const struct case_def *c = &cases[i % G_N_ELEMENTS(cases)];
		int n = ns[i / G_N_ELEMENTS(cases) % G_N_ELEMENTS(ns)];
		const struct algo_ops *a = algo_find(c->coll, c->name, NULL);
		struct algo_params p = params(n, i < G_N_ELEMENTS(cases) * G_N_ELEMENTS(ns) ? 1 : 3);

		p.paxi_set = true;
		p.paxi = a->default_paxi == PAXI_TRANSFER ? PAXI_SENDRECV : PAXI_TRANSFER;

		struct sched *s = algo_build(a, c->coll, &p, NULL);

		if (c->pow2_only && !is_pow2(n)) {
			g_assert_null(s);
			continue;
		}
		g_assert_nonnull(s);
		g_assert_true(paxi_is(s, p.paxi, c->name));
		g_assert_true(verified(s, c->name));
		sched_free(s);
	}
}

static void test_pow2_rejected(void)
{
	static const char *const names[] = { "rd", "rh" };
	static const enum coll colls[] = { COLL_ALLGATHER, COLL_REDUCESCATTER };

	for (int i = 0; i < 2; i++)
		for (int n = 3; n <= 100; n++) {
			g_autoptr(GError) err = NULL;
			const struct algo_ops *a = algo_find(colls[i], names[i], NULL);
			struct algo_params p = params(n, 1);
			struct sched *s;

			if (is_pow2(n))
				continue;
			s = algo_build(a, colls[i], &p, &err);
			g_assert_null(s);
			g_assert_error(err, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED);
			g_assert_nonnull(strstr(err->message, names[i]));
			g_assert_nonnull(strstr(err->message, "power-of-two"));
		}
}

/* Parameters out of range, through the one validator (algo_build): NULL
 * and an error, never a crash; generators never see them. */
static void test_bad_params(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct case_def *c = &cases[i];
		const struct algo_ops *a = algo_find(c->coll, c->name, NULL);
		struct algo_params bad[] = {
			params(1, 1), params(0, 1), params(-3, 1), params(4, 0),
			params(SCHED_MAX_RANKS + 1, 1), params(4, SCHED_MAX_NCHUNKS + 1),
		};

		for (size_t j = 0; j < G_N_ELEMENTS(bad); j++) {
			g_autoptr(GError) err = NULL;

			g_assert_null(algo_build(a, c->coll, &bad[j], &err));
			g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
		}
		/* a collective the family does not build */
		g_autoptr(GError) err = NULL;
		enum coll other = c->coll == COLL_ALLTOALL ? COLL_P2P : COLL_ALLTOALL;
		struct algo_params ok = params(4, 1);

		if (!(a->collectives & other)) {
			g_assert_null(algo_build(a, other, &ok, &err));
			g_assert_error(err, ALGO_ERROR, ALGO_ERROR_UNKNOWN);
		}
	}
}

static void test_bad_root_peer(void)
{
	static const char *const rooted[][2] = {
		{ "binomial", "broadcast" }, { "binomial", "reduce" },
		{ "chain", "broadcast" },    { "chain", "reduce" },
		{ "direct", "p2p" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(rooted); i++) {
		enum coll c;

		g_assert_true(coll_parse(rooted[i][1], &c));
		const struct algo_ops *a = algo_find(c, rooted[i][0], NULL);
		static const int roots[] = { -1, 5, 6, 100 };

		for (size_t j = 0; j < G_N_ELEMENTS(roots); j++) {
			g_autoptr(GError) err = NULL;
			struct algo_params p = params(5, 1);

			p.root = roots[j];
			g_assert_null(algo_build(a, c, &p, &err));
			g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
			g_assert_nonnull(strstr(err->message, "'root'"));
		}
	}

	const struct algo_ops *a = algo_find(COLL_P2P, "direct", NULL);
	static const int peers[] = { -1, 2, 5, 9 };

	for (size_t j = 0; j < G_N_ELEMENTS(peers); j++) {
		g_autoptr(GError) err = NULL;
		struct algo_params p = params(5, 1);

		p.root = 2;
		p.peer = peers[j];
		g_assert_null(algo_build(a, COLL_P2P, &p, &err));
		g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
		g_assert_nonnull(strstr(err->message, "'peer'"));
	}
}

/* P2P: exactly one send and one receive per piece, nothing elsewhere. */
static void test_p2p_shape(void)
{
	const struct algo_ops *a = algo_find(COLL_P2P, "direct", NULL);
	struct algo_params p = params(6, 3);

	p.root = 4;
	p.peer = 1;

	struct sched *s = algo_build(a, COLL_P2P, &p, NULL);

	g_assert_nonnull(s);
	for (int r = 0; r < 6; r++) {
		guint want = r == 4 || r == 1 ? 3 : 0;

		g_assert_cmpuint(s->ranks[r].ops->len, ==, want);
	}
	g_assert_cmpint(sched_op_at(s, 4, 0)->send_peer, ==, 1);
	g_assert_cmpint(sched_op_at(s, 1, 0)->recv_peer, ==, 4);
	g_assert_true(verified(s, "p2p 4->1"));
	sched_free(s);
}

/* AllGatherV: weights are kept, units follow them, schedules verify. */
static void check_agv(const uint64_t *w, int n, uint32_t nchunks)
{
	static const char *const names[] = { "ring", "direct" };

	for (int i = 0; i < 2; i++) {
		g_autoptr(GError) err = NULL;
		const struct algo_ops *a = algo_find(COLL_ALLGATHERV, names[i], NULL);
		struct algo_params p = params(n, nchunks);

		p.weights = w;

		struct sched *s = algo_build(a, COLL_ALLGATHERV, &p, &err);

		g_assert_no_error(err);
		g_assert_nonnull(s->weights);
		g_assert_cmpmem(s->weights, n * sizeof(uint64_t), w, n * sizeof(uint64_t));
		g_assert_true(verified(s, names[i]));

		/* the units of 1 MiB of elements tile it, block r in order */
		uint64_t elems = 1 << 20, next = 0, wsum = 0;

		for (int r = 0; r < n; r++)
			wsum += w[r];
		for (uint32_t u = 0; u < s->nunits; u++) {
			uint64_t first, count;

			sched_unit_range(s, elems, u, &first, &count);
			g_assert_cmpuint(first, ==, next);
			next += count;
			if (u % nchunks == nchunks - 1) {
				/* end of block u / nchunks: within one element of its share */
				uint32_t b = u / nchunks;
				uint64_t blo, bc;

				sched_unit_range(s, elems, b * nchunks, &blo, &bc);
				double share = (double)elems * (double)w[b] / (double)wsum;

				g_assert_cmpfloat(fabs((double)(next - blo) - share), <=, 1.0);
			}
		}
		g_assert_cmpuint(next, ==, elems);
		sched_free(s);
	}
}

static void test_agv_weights(void)
{
	static const int ns[] = { 2, 3, 5, 8, 16, 33 };

	for (size_t i = 0; i < G_N_ELEMENTS(ns); i++) {
		int n = ns[i];
		g_autofree uint64_t *w = g_new(uint64_t, n);

		for (uint32_t seed = 1; seed <= 3; seed++) {
			GRand *rng = g_rand_new_with_seed(seed * 7919 + (uint32_t)n);

			for (int r = 0; r < n; r++)
				w[r] = (uint64_t)g_rand_int_range(rng, 0, 1000);
			w[seed % n] += 1; /* never all zero */
			g_rand_free(rng);
			for (size_t k = 0; k < G_N_ELEMENTS(chunk_counts); k++)
				check_agv(w, n, chunk_counts[k]);
		}
		/* zeros everywhere but one rank, then on every other rank */
		for (int r = 0; r < n; r++)
			w[r] = r == n - 1 ? 5 : 0;
		check_agv(w, n, 2);
		for (int r = 0; r < n; r++)
			w[r] = r % 2;
		if (n > 1)
			check_agv(w, n, 3);
		/* one rank holds 90 % of the data */
		for (int r = 0; r < n; r++)
			w[r] = r == n / 2 ? 9 * (uint64_t)(n - 1) : 1;
		check_agv(w, n, 4);
	}

	/* all-zero weights are refused by the registry */
	g_autoptr(GError) err = NULL;
	uint64_t zero[4] = { 0 };
	struct algo_params p = params(4, 1);

	p.weights = zero;
	g_assert_null(algo_build(&algo_agv_ring_ops, COLL_ALLGATHERV, &p, &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
}

/* The alpha-beta terms, worked out by hand. */
static void test_theory(void)
{
	static const struct {
		const char *name;
		const char *coll;
		int n;
		double steps, coef;
	} t[] = {
		{ "hd", "allreduce", 8, 6, 1.75 },
		{ "hd", "allreduce", 6, 6, 2 * 3.0 / 4 + 2 },
		{ "hd", "allreduce", 2, 2, 1 },
		{ "dbtree", "allreduce", 8, 6, 3 },
		{ "dbtree", "allreduce", 9, 8, 4 },
		{ "direct", "allreduce", 8, 2, 1.75 },
		{ "direct", "allgather", 8, 1, 0.875 },
		{ "direct", "reducescatter", 4, 1, 0.75 },
		{ "rd", "allgather", 16, 4, 15.0 / 16 },
		{ "rh", "reducescatter", 16, 4, 15.0 / 16 },
		{ "bruck", "allgather", 5, 3, 0.8 },
		{ "bruck", "alltoall", 8, 3, 1.5 },
		{ "bruck", "alltoall", 5, 3, 5.0 / 5 }, /* popcounts 1,1,2,1 */
		{ "pairwise", "alltoall", 8, 7, 0.875 },
		{ "ring", "alltoall", 8, 7, 3.5 },
		{ "ring2p", "alltoall", 8, 4, 1.0 },       /* 1+2+3 blocks + 4 halves per link */
		{ "ring2p", "alltoall", 7, 3, 6.0 / 7 },   /* 1+2+3 blocks of M/7 */
		{ "ring2p", "alltoall", 6, 3, 0.75 },      /* 1+2 blocks + 3 halves of M/6 */
		{ "ring2p", "alltoall", 2, 1, 0.25 },      /* half a block each way */
		{ "binomial", "broadcast", 8, 3, 3 },
		{ "binomial", "reduce", 5, 3, 3 },
		{ "chain", "broadcast", 8, 7, 1 },
		{ "chain", "reduce", 3, 2, 1 },
		{ "direct", "p2p", 8, 1, 1 },
		{ "ring", "allgatherv", 8, 7, 0.875 },
		{ "direct", "allgatherv", 8, 1, 0.875 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		enum coll c;
		struct algo_theory th = { 0 };

		g_assert_true(coll_parse(t[i].coll, &c));
		const struct algo_ops *a = algo_find(c, t[i].name, NULL);

		g_assert_nonnull(a);
		algo_theory(a, c, &(struct algo_params){ .nranks = t[i].n }, &th);
		g_assert_cmpfloat_with_epsilon(th.steps, t[i].steps, 1e-12);
		g_assert_cmpfloat_with_epsilon(th.coef, t[i].coef, 1e-12);
	}
}

/* dbtree: two lanes, one per tree; for even N no rank is interior (sends
 * to two children or receives from two) in both trees. */
static void test_dbtree_trees(void)
{
	const struct algo_ops *a = algo_find(COLL_ALLREDUCE, "dbtree", NULL);

	for (int n = 2; n <= 32; n++) {
		struct algo_params p = params(n, 1);
		struct sched *s = algo_build(a, COLL_ALLREDUCE, &p, NULL);

		g_assert_cmpuint(s->nlanes, ==, 2);
		for (int r = 0; r < n && n % 2 == 0; r++) {
			int interior = 0;

			for (int lane = 0; lane < 2; lane++) {
				int recvs = 0;

				for (guint i = 0; i < s->ranks[r].ops->len; i++) {
					const struct sched_op *o = sched_op_at(s, r, i);

					/* reduce phase: receives from children */
					if (o->lane == lane && o->recv_peer >= 0 &&
					    o->step < s->nsteps / 2)
						recvs++;
				}
				interior += recvs > 0;
			}
			g_assert_cmpint(interior, <=, 1);
		}
		sched_free(s);
	}
}

/* ring2p AllToAll: every send goes to a ring neighbour, clockwise on lane 0
 * and counter-clockwise on lane 1, and the units a rank sends on each lane
 * (what its outgoing link carries) are the theory's coef x N x K: exactly
 * when the distance-N/2 blocks halve (N odd, K even, or N a multiple of 4),
 * else within half a unit. */
static void test_ring2p_a2a_links(void)
{
	const struct algo_ops *a = algo_find(COLL_ALLTOALL, "ring2p", NULL);

	for (int n = 2; n <= 33; n++)
		for (uint32_t k = 1; k <= 4; k++) {
			struct algo_params p = params(n, k);
			struct sched *s = algo_build(a, COLL_ALLTOALL, &p, NULL);
			struct algo_theory t = { 0 };
			bool exact = n % 2 || k % 2 == 0 || n % 4 == 0;

			algo_theory(a, COLL_ALLTOALL, &(struct algo_params){ .nranks = n }, &t);
			double want = t.coef * n * k;

			g_assert_cmpuint(s->nlanes, ==, 2);
			for (int r = 0; r < n; r++) {
				uint64_t units[2] = { 0, 0 };

				for (guint i = 0; i < s->ranks[r].ops->len; i++) {
					const struct sched_op *o = sched_op_at(s, r, i);

					if (o->send_peer < 0)
						continue;
					g_assert_cmpuint(o->lane, <, 2);
					int next = (r + (o->lane ? n - 1 : 1)) % n;

					g_assert_cmpint(o->send_peer, ==, next);
					units[o->lane] += o->count;
				}
				for (int l = 0; l < 2; l++) {
					g_assert_cmpfloat(fabs((double)units[l] - want), <=,
							  exact ? 1e-9 : 0.5);
				}
			}
			sched_free(s);
		}
}

/* A control: the checks above can fail. A schedule with one op pointed at
 * the wrong block, or with one dep dropped, is refused by the verifier. */
static void test_broken_refused(void)
{
	g_autoptr(GError) err = NULL;
	const struct algo_ops *a = algo_find(COLL_ALLTOALL, "bruck", NULL);
	struct algo_params p = params(5, 1);
	struct sched *s = algo_build(a, COLL_ALLTOALL, &p, NULL);
	struct sched_rank *rk = &s->ranks[2];
	struct sched_op *last = &g_array_index(rk->ops, struct sched_op, rk->ops->len - 1);

	/* the final rotation's last copy: into the wrong output block */
	g_assert_cmpint(last->kind, ==, SOP_COPY);
	last->dst_off = (last->dst_off + 1) % s->nunits;
	g_assert_false(verify_sched_mode(s, false, NULL, &err));
	g_assert_error(err, SCHED_ERROR, SCHED_ERROR_INVALID);
	sched_free(s);
	g_clear_error(&err);

	/* hd: the first doubling send no longer waits for its block's sum */
	a = algo_find(COLL_ALLREDUCE, "hd", NULL);
	p = params(4, 1);
	s = algo_build(a, COLL_ALLREDUCE, &p, NULL);
	rk = &s->ranks[0];
	for (guint i = 0; i < rk->ops->len; i++) {
		struct sched_op *o = &g_array_index(rk->ops, struct sched_op, i);

		if (o->kind == SOP_SEND && o->step == 2) {
			g_assert_cmpuint(o->ndeps, >, 0);
			o->ndeps = 0;
			break;
		}
	}
	g_assert_false(verify_sched_mode(s, false, NULL, &err));
	g_assert_error(err, SCHED_ERROR, SCHED_ERROR_INVALID);
	sched_free(s);
}

/* Every registered family of this file set is found by name and lists its
 * collectives. */
static void test_registry(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) err = NULL;
		const struct algo_ops *a = algo_find(cases[i].coll, cases[i].name, &err);

		g_assert_no_error(err);
		g_assert_true(a->collectives & cases[i].coll);
		g_assert_nonnull(a->summary);
	}
	g_autoptr(GError) err = NULL;

	g_assert_null(algo_find(COLL_ALLTOALL, "hd", &err));
	g_assert_nonnull(strstr(err->message, "pairwise"));
	g_assert_nonnull(strstr(err->message, "bruck"));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *path = g_strdup_printf("/families/verify/%s/%s", coll_name(cases[i].coll),
					     cases[i].name);

		g_test_add_data_func(path, &cases[i], test_all);
		g_free(path);
		if (cases[i].coll & (COLL_BROADCAST | COLL_REDUCE | COLL_P2P)) {
			path = g_strdup_printf("/families/roots/%s/%s", coll_name(cases[i].coll),
					       cases[i].name);
			g_test_add_data_func(path, &cases[i], test_roots);
			g_free(path);
		}
	}
	g_test_add_func("/families/paxi/override", test_paxi_override);
	g_test_add_func("/families/reject/pow2", test_pow2_rejected);
	g_test_add_func("/families/reject/params", test_bad_params);
	g_test_add_func("/families/reject/root-peer", test_bad_root_peer);
	g_test_add_func("/families/p2p/shape", test_p2p_shape);
	g_test_add_func("/families/allgatherv/weights", test_agv_weights);
	g_test_add_func("/families/theory", test_theory);
	g_test_add_func("/families/dbtree/trees", test_dbtree_trees);
	g_test_add_func("/families/alltoall/ring2p-links", test_ring2p_a2a_links);
	g_test_add_func("/families/registry", test_registry);
	g_test_add_func("/families/control/broken-refused", test_broken_refused);
	return g_test_run();
}
