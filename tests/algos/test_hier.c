/* Tests of the hierarchical algorithms (sim/algos/hier.c) and of the
 * sub-schedule embedding they rest on (sched_embed): every admitted
 * combination of tier algorithms verifies, out of place and in place, over
 * N x ranks per node x nchunks; the names, their errors and the refusals
 * that name a tier; the stages' traffic per tier; the theory; the g5
 * schedule / verify / sim commands with --node-ranks (binary in $G5). */
#include <glib.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/algos/families.h"
#include "sim/algos/schedule.h"
#include "sim/algos/verify.h"
#include "tests/support/g5run.h"

static const enum coll hier_colls[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };

static struct sched *hier_build(const char *name, enum coll c, int n, int l, uint32_t k,
				GError **err)
{
	const struct algo_ops *a = algo_find(c, name, err);
	struct algo_params p = { .nranks = n, .nchunks = k, .node_ranks = l };

	return a ? algo_build(a, c, &p, err) : NULL;
}

/* ---- embedding ---- */

/* A ring AllGather of 3 ranks embedded on host ranks 5, 1, 3 of a 6-rank
 * host with its blocks at host blocks 4, 0, 2 (not in order, so that a
 * two-block op would be cut), output to output: the ops keep their kinds
 * and steps (moved up), their peers and units are the host's. */
static void test_embed_remap(void)
{
	struct algo_params p = { .nranks = 3, .nchunks = 1 };
	struct sched *sub = algo_build(&algo_direct_ops, COLL_ALLGATHER, &p, NULL);
	struct sched *host = sched_new(COLL_ALLGATHER, "t", 6, 6, 1);
	struct sched_hazards *h = sched_hazards_new(host);
	static const int ranks[] = { 5, 1, 3 };
	static const uint32_t units[] = { 4, 0, 2 };
	struct sched_embedding e = {
		.ranks = ranks, .units = units, .span = 1, .step = 7,
		.buf = { [SBUF_IN] = SBUF_IN, [SBUF_OUT] = SBUF_OUT },
	};

	g_assert_nonnull(sub);
	sched_embed(host, h, sub, &e);
	for (int sr = 0; sr < 3; sr++) {
		const struct sched_rank *a = &sub->ranks[sr], *b = &host->ranks[ranks[sr]];

		g_assert_cmpuint(b->ops->len, ==, a->ops->len);
		for (guint i = 0; i < a->ops->len; i++) {
			const struct sched_op *x = sched_op_at(sub, sr, i);
			const struct sched_op *y = sched_op_at(host, ranks[sr], i);

			g_assert_cmpuint(y->kind, ==, x->kind);
			g_assert_cmpuint(y->step, ==, x->step + 7);
			g_assert_cmpint(y->send_peer, ==, x->send_peer < 0 ? -1 : ranks[x->send_peer]);
			g_assert_cmpint(y->recv_peer, ==, x->recv_peer < 0 ? -1 : ranks[x->recv_peer]);
			if (x->src_buf != SBUF_NONE)
				g_assert_cmpuint(y->src_off, ==, units[x->src_off]);
			if (x->dst_buf != SBUF_NONE)
				g_assert_cmpuint(y->dst_off, ==, units[x->dst_off]);
		}
	}
	for (int r = 0; r < 6; r += 2)
		g_assert_cmpuint(host->ranks[r].ops->len, ==, 0);
	sched_hazards_free(h);
	sched_free(host);
	sched_free(sub);
}

/* An op over sub units that land apart in the host is cut where they jump,
 * the two sides of the transfer alike, and a span scales every range. */
static void test_embed_cut_and_span(void)
{
	/* a hand-made 2-rank schedule: rank 0 sends units 0..3, rank 1 receives */
	struct sched *sub = sched_new(COLL_ALLREDUCE, "t", 2, 2, 2);
	struct sched_op snd = { .kind = SOP_SEND, .src_buf = SBUF_IN, .count = 4,
				.recv_peer = -1, .send_peer = 1 };
	struct sched_op rcv = { .kind = SOP_RECV, .dst_buf = SBUF_OUT, .count = 4,
				.recv_peer = 0, .send_peer = -1 };

	sched_add(sub, 0, &snd, NULL, 0);
	sched_add(sub, 1, &rcv, NULL, 0);
	struct sched *host = sched_new(COLL_ALLREDUCE, "t", 2, 8, 3);
	struct sched_hazards *h = sched_hazards_new(host);
	static const int ranks[] = { 0, 1 };
	/* units 0, 1 follow each other (span 3); 2 jumps; 3 follows 2 */
	static const uint32_t units[] = { 0, 3, 12, 15 };
	struct sched_embedding e = {
		.ranks = ranks, .units = units, .span = 3,
		.buf = { [SBUF_IN] = SBUF_IN, [SBUF_OUT] = SBUF_OUT },
	};

	sched_embed(host, h, sub, &e);
	for (int r = 0; r < 2; r++) {
		g_assert_cmpuint(host->ranks[r].ops->len, ==, 2);
		const struct sched_op *a = sched_op_at(host, r, 0), *b = sched_op_at(host, r, 1);
		uint32_t a_off = r ? a->dst_off : a->src_off, b_off = r ? b->dst_off : b->src_off;

		g_assert_cmpuint(a_off, ==, 0);
		g_assert_cmpuint(a->count, ==, 6);
		g_assert_cmpuint(b_off, ==, 12);
		g_assert_cmpuint(b->count, ==, 6);
	}
	sched_hazards_free(h);
	sched_free(host);
	sched_free(sub);
}

/* ---- the matrix ---- */

/* The flat names of the registry that build collective c (no hier). */
static GPtrArray *flat_names(enum coll c)
{
	GPtrArray *names = g_ptr_array_new();

	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		if (((*a)->collectives & c) && !(*a)->tiers[0] && !(*a)->takes_dims)
			g_ptr_array_add(names, (gpointer)(*a)->name);
	return names;
}

/* The torus algorithms compose tiers themselves (one per dimension) and are
 * no tier of a hierarchical one: the name is refused, naming the tier. */
static void test_torus_not_a_tier(void)
{
	g_autoptr(GError) err = NULL;

	g_assert_null(algo_find(COLL_ALLREDUCE, "hier-ring-torus", &err));
	g_assert_nonnull(strstr(err->message, "inter-node"));
	g_clear_error(&err);
	g_assert_null(algo_find(COLL_ALLGATHER, "hier-torus2p-ring", &err));
	g_assert_nonnull(strstr(err->message, "intra-node"));
}

/* Every combination the registry offers (intra: the flat algorithms that
 * build both of the tier's collectives, and for AllReduce also those of
 * Reduce and Broadcast, the rooted form; inter: those of the collective),
 * on N in {4, 8, 12, 16, 24, 32, 64} x ranks per node in {2, 4, 8} (those
 * that divide N) x nchunks in {1, 4}: built and verified out of place and
 * in place, or refused as not admitted with a message that names the tier
 * (rd or rh on 3 or 6 nodes, or 6 ranks of a node). */
static void test_verify_matrix(void)
{
	static const int ns[] = { 4, 8, 12, 16, 24, 32, 64 };
	static const int ls[] = { 2, 4, 8 };
	static const uint32_t ks[] = { 1, 4 };
	unsigned ok = 0, refused = 0;

	for (size_t ci = 0; ci < G_N_ELEMENTS(hier_colls); ci++) {
		enum coll c = hier_colls[ci];
		g_autoptr(GPtrArray) intra =
			flat_names(c == COLL_ALLREDUCE ? COLL_REDUCESCATTER : c);

		/* AllReduce's rooted form: intra algorithms of Reduce and Broadcast */
		if (c == COLL_ALLREDUCE) {
			g_autoptr(GPtrArray) rooted = flat_names(COLL_BROADCAST);

			for (guint i = 0; i < rooted->len; i++)
				if (!g_ptr_array_find_with_equal_func(intra, rooted->pdata[i], g_str_equal,
								      NULL))
					g_ptr_array_add(intra, rooted->pdata[i]);
		}
		g_autoptr(GPtrArray) inter = flat_names(c);

		for (guint i = 0; i < intra->len; i++) {
			for (guint j = 0; j < inter->len; j++) {
				g_autofree char *name = g_strdup_printf("hier-%s-%s",
									(char *)intra->pdata[i],
									(char *)inter->pdata[j]);
				GError *err = NULL;

				if (!algo_find(c, name, &err)) {
					/* rh within a node of an AllReduce: no AllGather */
					g_assert_true(c == COLL_ALLREDUCE);
					g_assert_nonnull(strstr(err->message, "intra-node"));
					g_clear_error(&err);
					continue;
				}
				for (size_t ni = 0; ni < G_N_ELEMENTS(ns); ni++)
					for (size_t li = 0; li < G_N_ELEMENTS(ls); li++)
						for (size_t ki = 0; ki < G_N_ELEMENTS(ks); ki++) {
							int n = ns[ni], l = ls[li];

							if (l >= n || n % l)
								continue;
							struct sched *s = hier_build(name, c, n, l, ks[ki], &err);

							if (!s) {
								g_assert_error(err, ALGO_ERROR,
									       ALGO_ERROR_NOT_ADMITTED);
								g_assert_nonnull(strstr(err->message, "tier"));
								g_clear_error(&err);
								refused++;
								continue;
							}
							g_assert_cmpstr(s->algo, ==, name);
							g_assert_true(s->inplace_ok);
							if (!verify_sched(s, NULL, &err))
								g_error("%s %s N=%d L=%d K=%u: %s", name,
									coll_name(c), n, l, ks[ki],
									err->message);
							ok++;
							sched_free(s);
						}
			}
		}
	}
	g_test_message("%u schedules verified, %u refused", ok, refused);
	g_assert_cmpuint(ok, >, 1000);
	/* rd and rh on 3 or 6 nodes do not exist: some shapes are refused */
	g_assert_cmpuint(refused, >, 0);
}

/* A tier of one rank has no stage: one node (L = N) is the intra
 * algorithms alone, one rank per node (L = 1) the inter one. */
static void test_degenerate_tiers(void)
{
	for (size_t ci = 0; ci < G_N_ELEMENTS(hier_colls); ci++)
		for (int l = 1; l <= 12; l *= 12) {
			GError *err = NULL;
			struct sched *s = hier_build("hier-ring2p-ring", hier_colls[ci], 12, l, 2, &err);

			g_assert_no_error(err);
			g_assert_true(verify_sched(s, NULL, &err));
			g_assert_no_error(err);
			/* one node: the 2-port ring's lanes; one rank per node: the ring's */
			g_assert_cmpuint(s->nlanes, ==, l == 12 ? 2 : 1);
			sched_free(s);
		}
}

/* Bytes over each tier: the AllReduce sends 1/L of the data per rank over
 * the inter tier; the AllGather's inter stage (run first) sends each rank's
 * own block only, the least a schedule can. Counted in units of a host of
 * N blocks, K = 1, by whether the peer is on the same node. */
static void tier_units(const struct sched *s, int l, uint64_t *intra, uint64_t *inter)
{
	*intra = *inter = 0;
	for (int r = 0; r < s->nranks; r++)
		for (guint i = 0; i < s->ranks[r].ops->len; i++) {
			const struct sched_op *o = sched_op_at(s, r, i);

			if (o->send_peer < 0)
				continue;
			if (o->send_peer / l == r / l)
				*intra += o->count;
			else
				*inter += o->count;
		}
}

static void test_tier_traffic(void)
{
	uint64_t intra, inter;
	/* 4 nodes of 4: AllGather, ring/ring: each rank sends its block on
	 * its rail 3 times (ring of 4 nodes), then each of the 4 node rows
	 * goes round the node: 3 sends per row per rank */
	struct sched *s = hier_build("hier-ring-ring", COLL_ALLGATHER, 16, 4, 1, NULL);

	tier_units(s, 4, &intra, &inter);
	g_assert_cmpuint(inter, ==, 16 * 3);
	g_assert_cmpuint(intra, ==, 16 * 4 * 3);
	sched_free(s);
	/* AllReduce, ring/ring, 4 nodes of 4, host of 4 x 4 blocks (units):
	 * the intra reduce-scatter and all-gather each send 3 of the 4
	 * intra blocks (4 units each) per rank; the rail ring sends
	 * 2 x 3 of its 4 units per rank */
	s = hier_build("hier-ring-ring", COLL_ALLREDUCE, 16, 4, 1, NULL);
	g_assert_cmpuint(s->nunits, ==, 16);
	tier_units(s, 4, &intra, &inter);
	g_assert_cmpuint(inter, ==, 16 * 2 * 3);
	g_assert_cmpuint(intra, ==, 16 * 2 * 3 * 4);
	sched_free(s);
	/* flat ring on 16: 2 x 15 units of 16 per rank, L = 4 of which
	 * leave the node at every fourth hop: more than the hierarchy's */
	struct algo_params p = { .nranks = 16, .nchunks = 1 };

	s = algo_build(&algo_ring_ops, COLL_ALLREDUCE, &p, NULL);
	tier_units(s, 4, &intra, &inter);
	g_assert_cmpuint(inter, >, 16 * 2 * 3);
	sched_free(s);
}

/* ---- names, parameters, refusals ---- */

static void test_names(void)
{
	GError *err = NULL;
	const struct algo_ops *a = algo_find(COLL_ALLREDUCE, "hier-ring-hd", &err);

	g_assert_no_error(err);
	g_assert_cmpstr(a->name, ==, "hier-ring-hd");
	g_assert_true(a->tiers[ALGO_TIER_INTRA] == &algo_ring_ops);
	g_assert_true(a->tiers[ALGO_TIER_INTER] == &algo_hd_ops);
	g_assert_cmpuint(a->collectives, ==, COLL_ALLREDUCE);
	/* one table per name */
	g_assert_true(algo_find(COLL_ALLREDUCE, "hier-ring-hd", NULL) == a);
	g_assert_true(algo_find(COLL_ALLREDUCE, "hier", NULL) == &algo_hier_ops);
	a = algo_find(COLL_ALLGATHER, "hier-ring2p-rd", NULL);
	g_assert_cmpuint(a->collectives, ==, COLL_ALLGATHER);

	static const struct {
		enum coll c;
		const char *name, *msg;
	} bad[] = {
		{ COLL_ALLREDUCE, "hier-rnig-hd",
		  "unknown intra-node algorithm 'rnig' in 'hier-rnig-hd' for allreduce (known: ring, "
		  "ring2p, sendrecv, direct, binomial, chain, nccl); did you mean 'ring'?" },
		{ COLL_ALLREDUCE, "hier-ring-hdd",
		  "unknown inter-node algorithm 'hdd' in 'hier-ring-hdd' for allreduce (known: ring, "
		  "ring2p, sendrecv, hd, dbtree, direct, nccl); did you mean 'hd'?" },
		{ COLL_ALLGATHER, "hier-ring-hd",
		  "unknown inter-node algorithm 'hd' in 'hier-ring-hd' for allgather (known: ring, "
		  "ring2p, sendrecv, direct, rd, bruck, nccl); did you mean 'rd'?" },
		{ COLL_ALLREDUCE, "hier-hd-ring",
		  "unknown intra-node algorithm 'hd' in 'hier-hd-ring' for allreduce (known: ring, "
		  "ring2p, sendrecv, direct, binomial, chain, nccl)" },
		{ COLL_ALLREDUCE, "hier-hier-ring",
		  "unknown intra-node algorithm 'hier' in 'hier-hier-ring' for allreduce (known: ring, "
		  "ring2p, sendrecv, direct, binomial, chain, nccl)" },
		{ COLL_ALLREDUCE, "hier-ring",
		  "unknown algorithm 'hier-ring' for allreduce (a hierarchical algorithm is "
		  "hier-INTRA-INTER, e.g. hier-ring-hd)" },
		{ COLL_ALLREDUCE, "hier-ring-hd-rd",
		  "unknown algorithm 'hier-ring-hd-rd' for allreduce (a hierarchical algorithm is "
		  "hier-INTRA-INTER, e.g. hier-ring-hd)" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_assert_null(algo_find(bad[i].c, bad[i].name, &err));
		g_assert_error(err, ALGO_ERROR, ALGO_ERROR_UNKNOWN);
		g_assert_cmpstr(err->message, ==, bad[i].msg);
		g_clear_error(&err);
	}
	g_assert_null(algo_find(COLL_ALLTOALL, "hier-ring-ring", &err));
	g_assert_nonnull(strstr(err->message, "hierarchical algorithms build allreduce"));
	g_clear_error(&err);
}

static void test_params(void)
{
	GError *err = NULL;

	/* not given */
	g_assert_null(hier_build("hier", COLL_ALLREDUCE, 8, 0, 1, &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
	g_assert_cmpstr(err->message, ==,
			"'hier' needs the ranks per node ('node_ranks', --node-ranks)");
	g_clear_error(&err);
	/* not a divisor */
	g_assert_null(hier_build("hier-ring-hd", COLL_ALLREDUCE, 8, 3, 1, &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
	g_assert_cmpstr(err->message, ==, "'node_ranks' must divide 'ranks' (8), got 3");
	g_clear_error(&err);
	/* a tier the inner algorithm does not admit: rd across 6 nodes */
	g_assert_null(hier_build("hier-ring-rd", COLL_ALLGATHER, 24, 4, 1, &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED);
	g_assert_true(g_str_has_prefix(err->message, "the inter-node tier (6 nodes of 4 ranks) of "
						     "'hier-ring-rd': "));
	g_clear_error(&err);
	g_assert_null(hier_build("hier-rh-ring", COLL_REDUCESCATTER, 24, 6, 1, &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED);
	g_assert_true(g_str_has_prefix(err->message, "the intra-node tier (6 ranks) of "
						     "'hier-rh-ring': "));
	g_clear_error(&err);
	/* flat algorithms ignore node_ranks */
	struct algo_params p = { .nranks = 8, .nchunks = 1, .node_ranks = 3 };
	struct sched *s = algo_build(&algo_ring_ops, COLL_ALLREDUCE, &p, &err);

	g_assert_no_error(err);
	sched_free(s);
}

/* The alpha-beta terms: the sum of the stages', each on its share of M. */
static void test_theory(void)
{
	struct algo_theory t = { 0 }, rs = { 0 }, ag = { 0 }, ar = { 0 };
	const struct algo_ops *a = algo_find(COLL_ALLREDUCE, "hier-ring-hd", NULL);

	algo_theory(a, COLL_ALLREDUCE, &(struct algo_params){ .nranks = 32, .node_ranks = 8 }, &t);
	algo_theory(&algo_ring_ops, COLL_REDUCESCATTER, &(struct algo_params){ .nranks = 8 }, &rs);
	algo_theory(&algo_ring_ops, COLL_ALLGATHER, &(struct algo_params){ .nranks = 8 }, &ag);
	algo_theory(&algo_hd_ops, COLL_ALLREDUCE, &(struct algo_params){ .nranks = 4 }, &ar);
	/* ring RS/AG on 8: 7 steps, 7/8 each; hd on 4: 4 steps, 3/2 */
	g_assert_cmpfloat(t.steps, ==, 7 + 4 + 7);
	g_assert_cmpfloat(t.steps, ==, rs.steps + ar.steps + ag.steps);
	g_assert_cmpfloat_with_epsilon(t.coef, 7.0 / 8 + 1.5 / 8 + 7.0 / 8, 1e-12);
	/* AllGather: the rail's AllGather on M / L, then the node's */
	algo_theory(&algo_hier_ops, COLL_ALLGATHER,
		    &(struct algo_params){ .nranks = 32, .node_ranks = 8 }, &t);
	g_assert_cmpfloat(t.steps, ==, 3 + 7);
	g_assert_cmpfloat_with_epsilon(t.coef, 3.0 / 4 / 8 + 7.0 / 8, 1e-12);
	/* ReduceScatter mirrors it */
	algo_theory(&algo_hier_ops, COLL_REDUCESCATTER,
		    &(struct algo_params){ .nranks = 32, .node_ranks = 8 }, &t);
	g_assert_cmpfloat(t.steps, ==, 7 + 3);
	g_assert_cmpfloat_with_epsilon(t.coef, 7.0 / 8 + 3.0 / 4 / 8, 1e-12);
	/* one node: the flat ring's AllReduce terms */
	algo_theory(&algo_hier_ops, COLL_ALLREDUCE,
		    &(struct algo_params){ .nranks = 8, .node_ranks = 8 }, &t);
	algo_theory(&algo_ring_ops, COLL_ALLREDUCE, &(struct algo_params){ .nranks = 8 }, &ar);
	g_assert_cmpfloat(t.steps, ==, ar.steps);
	g_assert_cmpfloat_with_epsilon(t.coef, ar.coef, 1e-12);

	/* rooted (intra chain): Reduce_L(M) + AR_nodes(M) + Broadcast_L(M), the
	 * inter AllReduce on the whole buffer, not M / L */
	struct algo_theory red = { 0 }, bc = { 0 }, tree = { 0 }, rooted = { 0 };
	const struct algo_ops *chain = algo_find(COLL_BROADCAST, "chain", NULL);

	algo_theory(algo_find(COLL_ALLREDUCE, "hier-chain-dbtree", NULL), COLL_ALLREDUCE,
		    &(struct algo_params){ .nranks = 32, .node_ranks = 8 }, &rooted);
	algo_theory(chain, COLL_REDUCE, &(struct algo_params){ .nranks = 8 }, &red);
	algo_theory(chain, COLL_BROADCAST, &(struct algo_params){ .nranks = 8 }, &bc);
	algo_theory(&algo_dbtree_ops, COLL_ALLREDUCE, &(struct algo_params){ .nranks = 4 }, &tree);
	g_assert_cmpfloat(rooted.steps, ==, red.steps + tree.steps + bc.steps);
	g_assert_cmpfloat_with_epsilon(rooted.coef, red.coef + tree.coef + bc.coef, 1e-12);
}

/* The steps of a built schedule are the stages' steps in sequence, as the
 * theory counts them. */
static void test_steps_equal_theory(void)
{
	static const char *const names[] = { "hier-ring-ring", "hier-ring2p-ring", "hier-ring-direct" };

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		for (size_t ci = 0; ci < G_N_ELEMENTS(hier_colls); ci++) {
			enum coll c = hier_colls[ci];
			const struct algo_ops *a = algo_find(c, names[i], NULL);
			struct algo_theory t = { 0 };
			struct sched *s = hier_build(names[i], c, 32, 4, 1, NULL);

			algo_theory(a, c, &(struct algo_params){ .nranks = 32, .node_ranks = 4 }, &t);
			g_assert_cmpuint(s->nsteps, ==, (uint32_t)t.steps);
			sched_free(s);
		}
}

/* ---- the commands (binary in $G5) ---- */

/* The run exited with rc, printed nothing on stdout and its stderr starts
 * with `err`; clears it. */
static void expect_refusal(struct run *r, int rc, const char *err)
{
	if (exit_code(r) != rc || !g_str_has_prefix(r->err, err))
		g_error("exit %d, '%s'; want %d, '%s...'", exit_code(r), r->err, rc, err);
	g_assert_cmpstr(r->out, ==, "");
	run_clear(r);
}

/* Every mistake with --node-ranks names the flag and exits 2; a tier the
 * inner algorithm does not admit exits 1 (g5 sim) or 2 (g5 schedule, bad
 * usage), naming the tier. */
static void test_e2e_usage(void)
{
	struct run r = { 0 };

	if (!g5(&r, "sim", "--algo", "hier", "--ranks", "16", "--node-ranks", "3", NULL))
		return;
	expect_refusal(&r, 2, "g5 sim: --node-ranks 3 does not divide the 16 ranks");
	g5(&r, "sim", "--algo", "hier", "--ranks", "16", "--node-ranks", "0", NULL);
	expect_refusal(&r, 2, "g5 sim: --node-ranks must be at least 1, got 0");
	g5(&r, "sim", "--algo", "hier-ring-rd", "--collective", "allgather", "--ranks", "24",
	   "--node-ranks", "4", NULL);
	expect_refusal(&r, 1, "g5 sim: the inter-node tier (6 nodes of 4 ranks) of 'hier-ring-rd': ");
	g5(&r, "sim", "--algo", "hier-rnig-hd", "--ranks", "16", NULL);
	expect_refusal(&r, 2, "g5 sim: unknown intra-node algorithm 'rnig' in 'hier-rnig-hd' for "
			      "allreduce");
	g5(&r, "schedule", "-c", "allreduce", "-a", "hier", "-n", "8", NULL);
	expect_refusal(&r, 2, "g5 schedule: 'hier' needs the ranks per node ('node_ranks', "
			      "--node-ranks)");
	g5(&r, "schedule", "-c", "allreduce", "-a", "hier", "-n", "8", "--node-ranks", "3", NULL);
	expect_refusal(&r, 2, "g5 schedule: --node-ranks must be at least 1 and divide --ranks 8, "
			      "got 3");
	g5(&r, "verify", "--node-ranks", "0", NULL);
	expect_refusal(&r, 2, "g5 verify: --node-ranks must be in 1..16384, got 0");
	g5(&r, "verify", "--schedule", "x.g5s", "--node-ranks", "2", NULL);
	expect_refusal(&r, 2, "g5 verify: --schedule takes no --node-ranks");
}

/* The simulated part of a `g5 sim --json` line: latency to steps (no
 * events, no wall clock); g_free() it. */
static char *simulated(const char *line)
{
	const char *a = strstr(line, "\"latency_us\""), *b = a ? strstr(a, ", \"events\"") : NULL;

	g_assert_nonnull(b);
	return g_strndup(a, (gsize)(b - a));
}

/* g5 schedule writes what the registry builds, g5 verify proves it; g5 sim
 * runs it with its theory, the same from the file as from the registry,
 * and without --node-ranks takes the platform as one node. */
static void test_e2e_sim(void)
{
	struct run r = { 0 }, reg = { 0 }, one = { 0 }, one_given = { 0 };
	g_autofree char *dir = tmpdir();
	g_autofree char *file = g_build_filename(dir, "h.g5s", NULL);

	if (!g5(&r, "schedule", "-c", "allreduce", "-a", "hier-ring-hd", "-n", "16", "--node-ranks",
		"4", "-o", file, NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	g5(&r, "verify", "--schedule", file, NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	g_assert_nonnull(strstr(r.out, "ok (hier-ring-hd allreduce, 16 ranks, nchunks 1, out of place "
				       "and in place)"));
	run_clear(&r);
	g5(&reg, "sim", "--json", "--ranks", "16", "--algo", "hier-ring-hd", "--node-ranks", "4",
	   "--size", "1MiB", NULL);
	g_assert_cmpint(exit_code(&reg), ==, 0);
	g_assert_nonnull(strstr(reg.out, "\"algo\": \"hier-ring-hd\""));
	g_assert_nonnull(strstr(reg.out, "\"node_ranks\": 4"));
	g_assert_null(strstr(reg.out, "\"theory_us\": null"));
	g5(&r, "sim", "--json", "--schedule", file, "--node-ranks", "4", "--size", "1MiB", NULL);
	g_assert_cmpint(exit_code(&r), ==, 0);
	/* the same results: the file is the registry's schedule, theory included */
	g_autofree char *x = simulated(r.out), *y = simulated(reg.out);

	g_assert_cmpstr(x, ==, y);
	/* no --node-ranks: one node of 16, as --node-ranks 16 */
	g5(&one, "sim", "--json", "--ranks", "16", "--algo", "hier", "--size", "1MiB", NULL);
	g5(&one_given, "sim", "--json", "--ranks", "16", "--algo", "hier", "--node-ranks", "16",
	   "--size", "1MiB", NULL);
	g_assert_cmpint(exit_code(&one), ==, 0);
	g_assert_cmpint(exit_code(&one_given), ==, 0);
	g_autofree char *u = simulated(one.out), *v = simulated(one_given.out);

	g_assert_cmpstr(u, ==, v);
	run_clear(&r);
	run_clear(&reg);
	run_clear(&one);
	run_clear(&one_given);
	rm_rf(dir);
}

/* The latency column of the CSV row of (collective, algo, bytes). */
static double csv_latency(char **rows, const char *coll, const char *algo, const char *bytes)
{
	g_auto(GStrv) head = g_strsplit(rows[0], ",", -1);
	int ic = -1, ia = -1, ib = -1, il = -1;

	for (int i = 0; head[i]; i++) {
		ic = !strcmp(head[i], "collective") ? i : ic;
		ia = !strcmp(head[i], "algo") ? i : ia;
		ib = !strcmp(head[i], "bytes") ? i : ib;
		il = !strcmp(head[i], "latency_us") ? i : il;
	}
	g_assert_true(ic >= 0 && ia >= 0 && ib >= 0 && il >= 0);
	for (int r = 1; rows[r] && *rows[r]; r++) {
		g_auto(GStrv) f = g_strsplit(rows[r], ",", -1);

		if (!strcmp(f[ic], coll) && !strcmp(f[ia], algo) && !strcmp(f[ib], bytes))
			return g_ascii_strtod(f[il], NULL);
	}
	g_error("no row %s %s %s", coll, algo, bytes);
	return 0;
}

/* experiments/example-hier.yaml (node_ranks: 4 on a 4:1 oversubscribed
 * leaf-spine of 4 leaves of 4 ranks) runs, and the hierarchical AllReduce
 * and AllGather beat their flat ring at 64 MiB, the reason they exist:
 * 1155.8 against 708.3 us, 592.2 against 368.8 us when written. */
static void test_e2e_experiment(void)
{
	struct run r = { 0 };
	g_autofree char *dir = tmpdir();
	g_autofree char *csv = NULL;
	g_autofree char *path = g_build_filename(dir, "example-hier.csv", NULL);

	if (!g5(&r, "run", "experiments/example-hier.yaml", "-o", dir, "--no-plots", "-q", NULL))
		return;
	if (exit_code(&r))
		g_error("g5 run experiments/example-hier.yaml: %s", r.err);
	run_clear(&r);
	g_assert_true(g_file_get_contents(path, &csv, NULL, NULL));
	g_auto(GStrv) rows = g_strsplit(csv, "\n", -1);

	g_assert_cmpfloat(csv_latency(rows, "allreduce", "hier", "67108864"), <,
			  0.8 * csv_latency(rows, "allreduce", "ring", "67108864"));
	g_assert_cmpfloat(csv_latency(rows, "allgather", "hier", "67108864"), <,
			  0.8 * csv_latency(rows, "allgather", "ring", "67108864"));
	g_assert_cmpfloat(csv_latency(rows, "allgather", "hier-ring-rd", "67108864"), <,
			  csv_latency(rows, "allgather", "rd", "67108864"));
	rm_rf(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/hier/torus-not-a-tier", test_torus_not_a_tier);
	g_test_add_func("/hier/embed/remap", test_embed_remap);
	g_test_add_func("/hier/embed/cut-and-span", test_embed_cut_and_span);
	g_test_add_func("/hier/verify-matrix", test_verify_matrix);
	g_test_add_func("/hier/degenerate-tiers", test_degenerate_tiers);
	g_test_add_func("/hier/tier-traffic", test_tier_traffic);
	g_test_add_func("/hier/names", test_names);
	g_test_add_func("/hier/params", test_params);
	g_test_add_func("/hier/theory", test_theory);
	g_test_add_func("/hier/steps-equal-theory", test_steps_equal_theory);
	g_test_add_func("/hier/e2e/usage", test_e2e_usage);
	g_test_add_func("/hier/e2e/schedule-verify-sim", test_e2e_sim);
	g_test_add_func("/hier/e2e/experiment", test_e2e_experiment);
	return g_test_run();
}
