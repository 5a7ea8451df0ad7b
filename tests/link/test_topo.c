/* Tests of the topology plug-ins (sim/link/topo.h): the registry finds
 * every topology by its name and refuses others with the known names and
 * the nearest one; every topology that needs no parameters builds a fabric
 * whose routes are paths over its channels. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "sim/link/topo.h"
#include "sim/link/topos.h"
#include "tests/support/perm.h"

static struct fabric_config cfg_of(const struct topo_ops *o, int n)
{
	struct fabric_config c = { .topo = o, .nranks = n };

	link_params_default(&c.link);
	c.switch_link = c.link;
	return c;
}

static void test_registry(void)
{
	const struct topo_ops *const *all = topo_all();
	g_autofree char *known = topo_known_names();
	int n = 0;

	for (const struct topo_ops *const *o = all; *o; o++, n++) {
		g_assert_true(topo_find(topo_name(*o), NULL) == *o);
		g_assert_nonnull(strstr(known, topo_name(*o)));
		g_assert_cmpuint(strlen(topo_summary(*o)), >, 0);
		for (const struct topo_ops *const *p = all; p != o; p++)
			g_assert_cmpstr(topo_name(*p), !=, topo_name(*o));
	}
	g_assert_cmpint(n, >=, 7);
	g_assert_true(topo_find("ring", NULL) == &topo_ring_ops);
	g_assert_true(topo_find("edges", NULL) == &topo_edges_ops);
	g_assert_true(topo_find("mesh", NULL) == &topo_mesh_ops);
	g_assert_true(topo_find("dragonfly", NULL) == &topo_dragonfly_ops);

	g_autoptr(GError) err = NULL;

	g_assert_null(topo_find("hypercub", &err));
	g_assert_error(err, LINK_ERROR, LINK_ERROR_UNKNOWN);
	g_autofree char *want = g_strdup_printf("unknown topology 'hypercub' (known: %s); "
						"did you mean 'hypercube'?", known);

	g_assert_cmpstr(err->message, ==, want);
	g_clear_error(&err);
	g_assert_null(topo_find("butterfly", &err));
	g_assert_null(strstr(err->message, "did you mean"));

	g_autofree char *dims = topo_names_taking(TOPO_PARAM_DIMS);
	g_autofree char *edges = topo_names_taking(TOPO_PARAM_EDGES);

	g_assert_cmpstr(dims, ==, "torus, mesh");
	g_assert_cmpstr(edges, ==, "edges");
	g_assert_true(topo_fixed_ranks(&topo_edges_ops));
	g_assert_false(topo_fixed_ranks(&topo_ring_ops));
}

/* Every route of every parameter-free topology at N = 8 and 16 (a
 * fat-tree: 16 and 54, k = 4 and 6) runs from src to dst over existing
 * channels and visits no node twice. */
static void test_routes_are_paths(void)
{
	for (const struct topo_ops *const *o = topo_all(); *o; o++) {
		if (topo_takes(*o, TOPO_PARAM_EDGES))
			continue;
		bool ft = *o == &topo_fattree_ops;

		for (int i = 0; i < 2; i++) {
			int n = ft ? (i ? 54 : 16) : (i ? 16 : 8);
			struct fabric_config c = cfg_of(*o, n);
			struct sim *s = sim_new(1);
			g_autoptr(GError) err = NULL;
			struct fabric *f = fabric_new(s, &c, &err);
			g_autoptr(GArray) nodes = g_array_new(FALSE, FALSE, sizeof(int));

			g_assert_no_error(err);
			for (int a = 0; a < n; a++)
				for (int b = 0; b < n; b++) {
					if (a == b)
						continue;
					int h = fabric_route(f, a, b, ROUTE_SHORTEST, nodes);

					g_assert_cmpint(h, >=, 1);
					g_assert_cmpint(g_array_index(nodes, int, 0), ==, a);
					g_assert_cmpint(g_array_index(nodes, int, h), ==, b);
					for (int k = 0; k < h; k++) {
						int u = g_array_index(nodes, int, k);
						int v = g_array_index(nodes, int, k + 1);

						g_assert_cmpint(fabric_channel_find(f, u, v), >=, 0);
						for (int j = 0; j < k; j++)
							g_assert_cmpint(g_array_index(nodes, int, j), !=, u);
					}
				}
			fabric_free(f);
			sim_free(s);
		}
	}
}

#define E(x, y) { .a = (x), .b = (y), .lat_ps = SIM_TIME_MAX }

/* Two switches (nodes 8 and 9), ranks 0-3 on the first, 4-7 on the second. */
static const struct topo_edge two_switch[] = {
	E(0, 8), E(1, 8), E(2, 8), E(3, 8), E(4, 9), E(5, 9), E(6, 9), E(7, 9), E(8, 9),
};
static const int two_switch_ids[] = { 8, 9 };

static struct fabric_config edges_cfg(const struct topo_edge *e, int ne, const int *sw, int ns,
				      int nranks)
{
	struct fabric_config c = cfg_of(&topo_edges_ops, nranks);

	c.edges = e;
	c.nedges = ne;
	c.switches = sw;
	c.nswitches = ns;
	return c;
}

static void assert_route(struct fabric *f, int a, int b, const int *want, int n)
{
	g_autoptr(GArray) r = g_array_new(FALSE, FALSE, sizeof(int));

	g_assert_cmpint(fabric_route(f, a, b, ROUTE_SHORTEST, r), ==, n - 1);
	for (int i = 0; i < n; i++)
		g_assert_cmpint(g_array_index(r, int, i), ==, want[i]);
}

static void test_two_switch(void)
{
	struct fabric_config c = edges_cfg(two_switch, G_N_ELEMENTS(two_switch), two_switch_ids, 2, 8);
	struct sim *s = sim_new(1);
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(s, &c, &err);

	g_assert_no_error(err);
	g_assert_cmpint(fabric_ranks(f), ==, 8);
	/* ranks are the fabric's nodes 0..7, the switches 8 and 9 */
	assert_route(f, 0, 1, (int[]){ 0, 8, 1 }, 3);
	assert_route(f, 0, 5, (int[]){ 0, 8, 9, 5 }, 4);
	assert_route(f, 7, 2, (int[]){ 7, 9, 8, 2 }, 4);
	g_assert_cmpint(fabric_diameter(f), ==, 3);
	g_assert_cmpint(fabric_degree(f, 8), ==, 5);
	g_assert_cmpint(fabric_channels(f), ==, 18);
	g_autofree char *n8 = fabric_node_name(f, 8), *n9 = fabric_node_name(f, 9);
	g_autofree char *n3 = fabric_node_name(f, 3);

	g_assert_cmpstr(n8, ==, "sw8");
	g_assert_cmpstr(n9, ==, "sw9");
	g_assert_cmpstr(n3, ==, "3");
	fabric_free(f);
	sim_free(s);
}

/* Switches among the node ids: rank r is the r-th non-switch node. */
static void test_switch_ids_anywhere(void)
{
	/* node 0 and node 3 are switches; nodes 1, 2 (ranks 0, 1) hang on 0,
	 * nodes 4, 5 (ranks 2, 3) on 3 */
	static const struct topo_edge e[] = { E(1, 0), E(2, 0), E(0, 3), E(3, 4), E(3, 5) };
	static const int sw[] = { 3, 0 };
	struct fabric_config c = edges_cfg(e, G_N_ELEMENTS(e), sw, 2, 4);
	struct sim *s = sim_new(1);
	struct fabric *f = fabric_new(s, &c, NULL);

	g_assert_nonnull(f);
	/* fabric nodes: ranks 0..3 = ids 1, 2, 4, 5; switch 4 = id 0, 5 = id 3 */
	assert_route(f, 0, 3, (int[]){ 0, 4, 5, 3 }, 4);
	assert_route(f, 1, 0, (int[]){ 1, 4, 0 }, 3);
	g_autofree char *a = fabric_node_name(f, 4), *b = fabric_node_name(f, 5);

	g_assert_cmpstr(a, ==, "sw0");
	g_assert_cmpstr(b, ==, "sw3");
	fabric_free(f);
	sim_free(s);
}

static void rejects(const struct fabric_config *c, const char *msg)
{
	g_autoptr(GError) err = NULL;
	struct sim *s = sim_new(1);

	g_assert_null(fabric_new(s, c, &err));
	g_assert_error(err, LINK_ERROR, LINK_ERROR_EDGES);
	g_assert_cmpstr(err->message, ==, msg);
	sim_free(s);
}

static void test_switch_errors(void)
{
	struct fabric_config c = edges_cfg(two_switch, G_N_ELEMENTS(two_switch), two_switch_ids, 2, 8);
	static const int out[] = { 8, 10 }, twice[] = { 8, 8 };
	static const struct topo_edge lone[] = {
		E(0, 8), E(1, 8), E(2, 8), E(3, 8), E(4, 8), E(5, 8), E(6, 8), E(7, 8),
	};

	/* one rank more than the nodes hold: node 10 is on no edge */
	c.nranks = 9;
	rejects(&c, "edge list leaves node 10 unreachable from node 0");
	c.nranks = 7;
	rejects(&c, "switch 9 is outside the nodes 0..8 (7 ranks and 2 switches)");
	c.nranks = 8;
	c.switches = out;
	rejects(&c, "switch 10 is outside the nodes 0..9 (8 ranks and 2 switches)");
	c.switches = twice;
	rejects(&c, "switch 8 is listed twice");
	/* a switch on no edge */
	c = edges_cfg(lone, G_N_ELEMENTS(lone), two_switch_ids, 2, 8);
	rejects(&c, "edge list leaves switch 9 unreachable from node 0");
}

/* Through a switch: store-and-forward at every node, switch_link's
 * parameters on the channels that touch one. */
static void done_at(void *user, uint64_t bytes, bool done)
{
	(void)bytes;
	if (done)
		*(bool *)user = true;
}

static void test_switch_timing(void)
{
	struct fabric_config c = edges_cfg(two_switch, G_N_ELEMENTS(two_switch), two_switch_ids, 2, 8);

	c.switch_link.lat_ps = SIM_NS(300);
	struct sim *s = sim_new(1);
	struct fabric *f = fabric_new(s, &c, NULL);
	bool done = false;

	/* one full packet, three hops: rank -> sw8 -> sw9 -> rank */
	fabric_send(f, 0, 5, 4096, ROUTE_SHORTEST, done_at, &done);
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_true(done);
	sim_time_t ser = link_wire_ps(4096 + c.link.header_bytes, c.link.bw_bytes_per_s);

	g_assert_cmpuint(sim_now(s), ==, 3 * (ser + SIM_NS(300)));
	fabric_free(f);
	sim_free(s);
}

/* ---- leaf-spine ---- */

static struct fabric_config leafspine_cfg(int n, int leaves, int spines, double oversub,
					  enum topo_routing routing)
{
	struct fabric_config c = cfg_of(&topo_leafspine_ops, n);

	c.leaves = leaves;
	c.spines = spines;
	c.oversub = oversub;
	c.routing = routing;
	return c;
}

static void test_leafspine_routes(void)
{
	struct fabric_config c = leafspine_cfg(16, 4, 2, 1, TOPO_ROUTING_DEFAULT);
	struct sim *s = sim_new(1);
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(s, &c, &err);
	g_autoptr(GArray) r = g_array_new(FALSE, FALSE, sizeof(int));

	g_assert_no_error(err);
	/* nodes: ranks 0..15, leaves 16..19, spines 20..21 */
	g_assert_cmpint(fabric_channels(f), ==, 2 * 16 + 2 * 4 * 2);
	g_assert_cmpint(fabric_degree(f, 16), ==, 4 + 2);
	g_assert_cmpint(fabric_degree(f, 20), ==, 4);
	g_assert_cmpint(fabric_diameter(f), ==, 4);
	for (int a = 0; a < 16; a++)
		for (int b = 0; b < 16; b++) {
			if (a == b)
				continue;
			int h = fabric_route(f, a, b, ROUTE_SHORTEST, r);

			if (a / 4 == b / 4) {
				g_assert_cmpint(h, ==, 2);
				g_assert_cmpint(g_array_index(r, int, 1), ==, 16 + a / 4);
			} else {
				g_assert_cmpint(h, ==, 4);
				g_assert_cmpint(g_array_index(r, int, 1), ==, 16 + a / 4);
				g_assert_cmpint(g_array_index(r, int, 2), >=, 20);
				g_assert_cmpint(g_array_index(r, int, 3), ==, 16 + b / 4);
			}
		}
	g_autofree char *leaf = fabric_node_name(f, 17), *spine = fabric_node_name(f, 21);

	g_assert_cmpstr(leaf, ==, "leaf1");
	g_assert_cmpstr(spine, ==, "spine1");
	/* uplinks: 4 x 450 / (2 x 1) GB/s */
	struct link_params p;

	fabric_channel_params(f, fabric_channel_find(f, 16, 20), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, 900000000000ull);
	fabric_channel_params(f, fabric_channel_find(f, 3, 16), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, 450000000000ull);
	fabric_free(f);
	sim_free(s);

	/* defaults: 4 leaves of 4 (most nearly square), 4 spines */
	c = leafspine_cfg(16, 0, 0, 0, TOPO_ROUTING_DEFAULT);
	s = sim_new(1);
	f = fabric_new(s, &c, NULL);
	g_assert_cmpint(fabric_channels(f), ==, 2 * 16 + 2 * 4 * 4);
	fabric_free(f);
	sim_free(s);

	static const struct { int n, leaves, spines; double r; const char *msg; } bad[] = {
		{ 13, 0, 0, 1, "leafspine of 13 ranks needs explicit leaves: 13 is prime" },
		{ 16, 3, 0, 1, "leafspine of 16 ranks needs a number of leaves that divides it, at least 2, got 3" },
		{ 16, 1, 0, 1, "leafspine of 16 ranks needs a number of leaves that divides it, at least 2, got 1" },
		{ 16, 4, 0, 0.5, "leafspine oversubscription must be between 1 and 64, got 0.5" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		c = leafspine_cfg(bad[i].n, bad[i].leaves, bad[i].spines, bad[i].r, TOPO_ROUTING_DEFAULT);
		s = sim_new(1);
		g_clear_error(&err);
		g_assert_null(fabric_new(s, &c, &err));
		g_assert_cmpstr(err->message, ==, bad[i].msg);
		sim_free(s);
	}
}

/* The spine a cross-leaf route of a leaf-spine takes. */
static int spine_of(struct fabric *f, int a, int b)
{
	g_autoptr(GArray) r = g_array_new(FALSE, FALSE, sizeof(int));

	g_assert_cmpint(fabric_route(f, a, b, ROUTE_SHORTEST, r), ==, 4);
	return g_array_index(r, int, 2);
}

/* ECMP over the flows a -> b of c's ranks that `crosses` (a spine): each
 * takes one of the `spines` spines from node spine0, the same for the same
 * seed and mostly another for another (about 1 - 1/spines of them move),
 * and every spine carries the mean within tol_pct %. */
static void ecmp_spread(const struct fabric_config *c, bool (*crosses)(int a, int b), int spine0,
			int spines, int tol_pct)
{
	struct sim *s1 = sim_new(7), *s2 = sim_new(7), *s3 = sim_new(8);
	struct fabric *f1 = fabric_new(s1, c, NULL), *f2 = fabric_new(s2, c, NULL);
	struct fabric *f3 = fabric_new(s3, c, NULL);
	g_autofree int *count = g_new0(int, spines);
	int flows = 0, differ = 0;

	for (int a = 0; a < c->nranks; a++)
		for (int b = 0; b < c->nranks; b++) {
			if (a == b || !crosses(a, b))
				continue;
			int sp = spine_of(f1, a, b) - spine0;

			g_assert_cmpint(sp, >=, 0);
			g_assert_cmpint(sp, <, spines);
			count[sp]++;
			flows++;
			g_assert_cmpint(spine_of(f2, a, b), ==, sp + spine0);
			differ += spine_of(f3, a, b) != sp + spine0;
		}
	for (int k = 0; k < spines; k++) {
		g_assert_cmpint(count[k], >, flows / spines * (100 - tol_pct) / 100);
		g_assert_cmpint(count[k], <, flows / spines * (100 + tol_pct) / 100);
	}
	g_assert_cmpint(differ, >, flows / 2);
	fabric_free(f1);
	fabric_free(f2);
	fabric_free(f3);
	sim_free(s1);
	sim_free(s2);
	sim_free(s3);
}

/* 64 ranks on 8 leaves: leaf of rank i = i / 8 */
static bool leafspine64_crosses(int a, int b)
{
	return a / 8 != b / 8;
}

/* ECMP spreads the flows over the equal paths, the same way for the same
 * seed and another way for another (3584 flows, 448 a spine: each within
 * 15 %); dmodk takes spine = dst mod S. */
static void test_leafspine_ecmp(void)
{
	enum { N = 64, L = 8, S = 8 };
	struct fabric_config c = leafspine_cfg(N, L, S, 1, TOPO_ROUTING_ECMP);

	ecmp_spread(&c, leafspine64_crosses, N + L, S, 15);

	c.routing = TOPO_ROUTING_DMODK;
	struct sim *s = sim_new(1);
	struct fabric *f = fabric_new(s, &c, NULL);

	for (int a = 0; a < N; a += 3)
		for (int b = 0; b < N; b++)
			if (a / (N / L) != b / (N / L))
				g_assert_cmpint(spine_of(f, a, b), ==, N + L + b % S);
	fabric_free(f);
	sim_free(s);
}


/* Every rank i sends `bytes` to dst[i] (a permutation). Returns the time
 * the last one arrived and max/mean of the payload on the leaf -> spine
 * channels: c->leaves leaves from node leaf0, c->spines spines after them. */
static sim_time_t permutation(const struct fabric_config *c, uint64_t seed, uint64_t bytes,
			      const int *dst, int leaf0, double *max_mean)
{
	int n = c->nranks, l = c->leaves, sp = c->spines;
	struct perm p = { .left = n, .s = sim_new(seed) };
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(p.s, c, &err);
	uint64_t sum = 0, max = 0;

	g_assert_no_error(err);
	for (int i = 0; i < n; i++)
		fabric_send(f, i, dst[i], bytes, ROUTE_SHORTEST, perm_done, &p);
	sim_run(p.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpint(p.left, ==, 0);
	for (int a = 0; a < l; a++)
		for (int b = 0; b < sp; b++) {
			struct channel_stats st;

			fabric_channel_stats(f, fabric_channel_find(f, leaf0 + a, leaf0 + l + b), &st);
			sum += st.payload_bytes;
			max = MAX(max, st.payload_bytes);
		}
	*max_mean = (double)max / ((double)sum / (l * sp));
	fabric_free(f);
	sim_free(p.s);
	return p.last;
}

/* Runs the crossing permutation dst under c (dmodk: no two flows of a
 * leaf share an uplink) and checks the bisection it measures (N/2 flows of
 * `bytes` each way) against L/2 x h x B / r, within 2 %, B the payload rate
 * B x P / (P + H) of the downlinks' parameters `down`, h ranks below each
 * of c->leaves leaves from node leaf0; every uplink carries the same.
 * Returns the permutation's time. */
static sim_time_t bisection_check(const char *what, const struct fabric_config *c,
				  const struct link_params *down, const int *dst, int leaf0, int h,
				  uint64_t bytes)
{
	double r = c->oversub, mm;
	sim_time_t t = permutation(c, 1, bytes, dst, leaf0, &mm);
	double b = (double)down->bw_bytes_per_s * down->max_payload_bytes /
		   (down->max_payload_bytes + down->header_bytes);
	double want = c->leaves / 2.0 * h * b / r;
	double got = c->nranks / 2.0 * (double)bytes / ((double)t * 1e-12);

	g_test_message("%s %g:1 bisection: measured %.2f GB/s, analytical %.2f GB/s (%+.3f %%)",
		       what, r, got / 1e9, want / 1e9, (got / want - 1) * 100);
	g_assert_cmpfloat(fabs(got / want - 1), <, 0.02);
	g_assert_cmpfloat(mm, ==, 1.0);
	return t;
}

/* Bisection bandwidth of a leaf-spine at 1:1 and 2:1, measured with the
 * crossing permutation i -> i + N/2 under dmodk routing (no two flows of a
 * leaf share an uplink), against L/2 x h x B / r (payload rate: B x P /
 * (P + H)). */
static void test_leafspine_bisection(void)
{
	enum { N = 16, L = 4, S = 4, H = N / L };
	const uint64_t bytes = 8 * 1024 * 1024;
	int dst[N];

	for (int i = 0; i < N; i++)
		dst[i] = (i + N / 2) % N;
	for (int r = 1; r <= 2; r++) {
		struct fabric_config c = leafspine_cfg(N, L, S, r, TOPO_ROUTING_DMODK);
		double mm_ecmp;

		c.link.lat_ps = c.switch_link.lat_ps = SIM_NS(10);
		sim_time_t t = bisection_check("leafspine", &c, &c.switch_link, dst, N, H, bytes);

		c.routing = TOPO_ROUTING_ECMP;
		sim_time_t te = permutation(&c, 1, bytes, dst, N, &mm_ecmp);

		g_test_message("leafspine %d:1 ECMP: %.2f GB/s, uplink load max/mean %.2f", r,
			       N / 2.0 * (double)bytes / ((double)te * 1e-12) / 1e9, mm_ecmp);
		g_assert_cmpuint(te, >=, t);
	}
}

/* ---- fat-tree ---- */

static struct fabric_config fattree_cfg(int n, double oversub, enum topo_routing routing)
{
	struct fabric_config c = cfg_of(&topo_fattree_ops, n);

	c.oversub = oversub;
	c.routing = routing;
	return c;
}

/* k = 4: 16 ranks, 8 edges (nodes 16..23), 8 aggregation switches
 * (24..31), 4 cores (32..35); routes are up-down and as long as the
 * nearest common level; the rank count must be k^3/4 for an even k. */
static void test_fattree_routes(void)
{
	enum { N = 16, H = 2, E0 = 16, A0 = 24, C0 = 32 };
	struct fabric_config c = fattree_cfg(N, 1, TOPO_ROUTING_ECMP);
	struct sim *s = sim_new(1);
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(s, &c, &err);
	g_autoptr(GArray) r = g_array_new(FALSE, FALSE, sizeof(int));

	g_assert_no_error(err);
	/* rank links, edge-agg (4 pods x 2 x 2), agg-core (4 pods x 2 x 2), both ways */
	g_assert_cmpint(fabric_channels(f), ==, 2 * (16 + 16 + 16));
	g_assert_cmpint(fabric_degree(f, E0), ==, H + H);
	g_assert_cmpint(fabric_degree(f, A0), ==, H + H);
	g_assert_cmpint(fabric_degree(f, C0), ==, 4);
	g_assert_cmpint(fabric_diameter(f), ==, 6);
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++) {
			if (a == b)
				continue;
			int h = fabric_route(f, a, b, ROUTE_SHORTEST, r);
			int want = a / H == b / H ? 2 : a / (H * H) == b / (H * H) ? 4 : 6;

			g_assert_cmpint(h, ==, want);
			g_assert_cmpint(g_array_index(r, int, 1), ==, E0 + a / H);
			g_assert_cmpint(g_array_index(r, int, h - 1), ==, E0 + b / H);
			if (h == 6) {
				int up = g_array_index(r, int, 2) - A0, core = g_array_index(r, int, 3) - C0;
				int down = g_array_index(r, int, 4) - A0;

				/* the same aggregation index on both pods, a core above it */
				g_assert_cmpint(up / H, ==, a / (H * H));
				g_assert_cmpint(down / H, ==, b / (H * H));
				g_assert_cmpint(up % H, ==, down % H);
				g_assert_cmpint(core / H, ==, up % H);
			}
		}
	g_autofree char *edge = fabric_node_name(f, E0 + 3), *agg = fabric_node_name(f, A0 + 5);
	g_autofree char *core = fabric_node_name(f, C0 + 2);

	g_assert_cmpstr(edge, ==, "edge3");
	g_assert_cmpstr(agg, ==, "agg5");
	g_assert_cmpstr(core, ==, "core2");
	fabric_free(f);
	sim_free(s);

	/* ECMP: the same paths for the same seed, other paths for another;
	 * dmodk: aggregation index dst mod h, core dst / h mod h */
	struct sim *s7 = sim_new(7), *s7b = sim_new(7), *s8 = sim_new(8);
	struct fabric *f7 = fabric_new(s7, &c, NULL), *f7b = fabric_new(s7b, &c, NULL);
	struct fabric *f8 = fabric_new(s8, &c, NULL);
	g_autoptr(GArray) r2 = g_array_new(FALSE, FALSE, sizeof(int));
	int differ = 0, cross = 0;

	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++) {
			if (a / (H * H) == b / (H * H))
				continue;
			fabric_route(f7, a, b, ROUTE_SHORTEST, r);
			fabric_route(f7b, a, b, ROUTE_SHORTEST, r2);
			g_assert_cmpint(g_array_index(r, int, 3), ==, g_array_index(r2, int, 3));
			fabric_route(f8, a, b, ROUTE_SHORTEST, r2);
			differ += g_array_index(r, int, 3) != g_array_index(r2, int, 3);
			cross++;
		}
	g_assert_cmpint(differ, >, cross / 2);
	fabric_free(f7);
	fabric_free(f7b);
	fabric_free(f8);
	sim_free(s7);
	sim_free(s7b);
	sim_free(s8);
	c.routing = TOPO_ROUTING_DMODK;
	s = sim_new(1);
	f = fabric_new(s, &c, NULL);
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++)
			if (a / (H * H) != b / (H * H)) {
				g_assert_cmpint(fabric_route(f, a, b, ROUTE_SHORTEST, r), ==, 6);
				g_assert_cmpint(g_array_index(r, int, 3), ==, C0 + b % H * H + b / H % H);
			}
	fabric_free(f);
	sim_free(s);

	/* 2:1: every switch-switch link at B / 2 */
	c = fattree_cfg(N, 2, TOPO_ROUTING_ECMP);
	s = sim_new(1);
	f = fabric_new(s, &c, NULL);
	struct link_params p;

	fabric_channel_params(f, fabric_channel_find(f, E0, A0), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, c.switch_link.bw_bytes_per_s / 2);
	fabric_channel_params(f, fabric_channel_find(f, A0, C0), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, c.switch_link.bw_bytes_per_s / 2);
	fabric_channel_params(f, fabric_channel_find(f, 0, E0), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, c.switch_link.bw_bytes_per_s);
	fabric_free(f);
	sim_free(s);

	static const struct { int n; double r; const char *msg; } bad[] = {
		{ 15, 1, "fattree needs k^3/4 ranks for an even k (the switches' ports), got 15; "
			 "nearest: 2 (k = 2) or 16 (k = 4)" },
		{ 100, 1, "fattree needs k^3/4 ranks for an even k (the switches' ports), got 100; "
			  "nearest: 54 (k = 6) or 128 (k = 8)" },
		{ 16, 0.5, "fattree oversubscription must be between 1 and 64, got 0.5" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		c = fattree_cfg(bad[i].n, bad[i].r, TOPO_ROUTING_DEFAULT);
		s = sim_new(1);
		g_clear_error(&err);
		g_assert_null(fabric_new(s, &c, &err));
		g_assert_cmpstr(err->message, ==, bad[i].msg);
		sim_free(s);
	}
}

/* Every rank i sends `bytes` to dst[i] on a fat-tree of n ranks; returns
 * the time the last one arrived and max/mean of the payload on the
 * aggregation -> core channels. */
static sim_time_t fattree_permutation(const struct fabric_config *c, uint64_t seed,
				      uint64_t bytes, const int *dst, double *max_mean)
{
	int n = c->nranks, k = 2, h;
	struct perm p = { .left = n, .s = sim_new(seed) };
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(p.s, c, &err);
	uint64_t sum = 0, max = 0;
	int chans = 0;

	g_assert_no_error(err);
	while (k * k * k / 4 != n)
		k += 2;
	h = k / 2;
	for (int i = 0; i < n; i++)
		fabric_send(f, i, dst[i], bytes, ROUTE_SHORTEST, perm_done, &p);
	sim_run(p.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpint(p.left, ==, 0);
	int agg0 = n + k * h, core0 = n + 2 * k * h;

	for (int g = 0; g < k * h; g++)
		for (int j = 0; j < h; j++) {
			struct channel_stats st;

			fabric_channel_stats(f, fabric_channel_find(f, agg0 + g, core0 + g % h * h + j),
					     &st);
			sum += st.payload_bytes;
			max = MAX(max, st.payload_bytes);
			chans++;
		}
	*max_mean = (double)max / ((double)sum / chans);
	fabric_free(f);
	sim_free(p.s);
	return p.last;
}

/* Bisection bandwidth of the k-ary fat-tree (k = 4 and 8: 16 and 128 ranks)
 * at 1:1 and 2:1, measured with the shift permutation i -> i + N/2 (every
 * flow crosses from one half of the pods to the other) under dmodk routing,
 * against N/2 x B / r (payload rate: B x P / (P + H)), within 2 %; every
 * core uplink carries the same. Then ECMP's rate and core-link load
 * max/mean for seeds 1..3 (no goal: hashing collides). */
static void test_fattree_bisection(void)
{
	static const int sizes[] = { 16, 128 };
	const uint64_t bytes = 4 * 1024 * 1024;

	for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
		int n = sizes[si];
		g_autofree int *dst = g_new(int, n);

		for (int i = 0; i < n; i++)
			dst[i] = (i + n / 2) % n;
		for (int r = 1; r <= 2; r++) {
			struct fabric_config c = fattree_cfg(n, r, TOPO_ROUTING_DMODK);
			double mm;

			c.link.lat_ps = c.switch_link.lat_ps = SIM_NS(10);
			sim_time_t t = fattree_permutation(&c, 1, bytes, dst, &mm);
			const struct link_params *d = &c.switch_link;
			double b = (double)d->bw_bytes_per_s * d->max_payload_bytes /
				   (d->max_payload_bytes + d->header_bytes);
			double want = n / 2.0 * b / r, got = n / 2.0 * (double)bytes / ((double)t * 1e-12);

			g_test_message("fattree %d ranks %d:1 bisection: measured %.2f GB/s, analytical "
				       "%.2f GB/s (%+.3f %%)", n, r, got / 1e9, want / 1e9,
				       (got / want - 1) * 100);
			g_assert_cmpfloat(fabs(got / want - 1), <, 0.02);
			g_assert_cmpfloat(mm, ==, 1.0);

			c.routing = TOPO_ROUTING_ECMP;
			for (uint64_t seed = 1; seed <= 3; seed++) {
				sim_time_t te = fattree_permutation(&c, seed, bytes, dst, &mm);

				g_test_message("fattree %d ranks %d:1 ECMP (seed %" G_GUINT64_FORMAT
					       "): %.2f GB/s, core load max/mean %.2f", n, r, seed,
					       n / 2.0 * (double)bytes / ((double)te * 1e-12) / 1e9, mm);
				g_assert_cmpuint(te, >=, t);
			}
		}
	}
}

/* ---- tiers ---- */

/* A scale-out tier unlike the node tier: 50 GB/s, 26-byte headers, 4 KiB
 * packets, 600 ns per hop (a 400 Gb/s NIC and InfiniBand switches). */
static struct fabric_config tiers_cfg(int n, int node_ranks, int leaves, int spines,
				      double oversub, enum topo_routing routing)
{
	struct fabric_config c = cfg_of(&topo_tiers_ops, n);

	c.node_ranks = node_ranks;
	c.leaves = leaves;
	c.spines = spines;
	c.oversub = oversub;
	c.routing = routing;
	c.scaleout_link = c.link;
	c.scaleout_link.bw_bytes_per_s = 50000000000ull;
	c.scaleout_link.header_bytes = 26;
	c.scaleout_link.max_payload_bytes = 4096;
	c.scaleout_link.lat_ps = SIM_NS(600);
	return c;
}

/* 4 nodes of 8 ranks, rails grouped two to a leaf (4 leaves), 2 spines:
 * the node ids, channel counts, names, each tier's parameters, and the
 * route and its time for a same-node, a same-rail, a same-leaf and a
 * cross-leaf pair, as docs/config.md gives them. */
static void test_tiers_routes(void)
{
	enum { N = 32, G = 8, M = N / G, L = 4, S = 2, NSW = N, LEAF = N + M, SPINE = LEAF + L };
	struct fabric_config c = tiers_cfg(N, G, L, S, 1, TOPO_ROUTING_DMODK);
	struct sim *s = sim_new(1);
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(s, &c, &err);
	struct link_params p;

	g_assert_no_error(err);
	g_assert_cmpint(fabric_channels(f), ==, 4 * N + 2 * L * S);
	g_assert_cmpint(fabric_degree(f, 0), ==, 2);
	g_assert_cmpint(fabric_degree(f, NSW), ==, G);
	g_assert_cmpint(fabric_degree(f, LEAF), ==, M * G / L + S);
	g_assert_cmpint(fabric_degree(f, SPINE), ==, L);
	g_assert_cmpint(fabric_diameter(f), ==, 4);
	g_assert_cmpint(fabric_node_ranks(&c), ==, G);

	/* same node: through its node switch */
	assert_route(f, 0, 5, (const int[]){ 0, NSW, 5 }, 3);
	assert_route(f, 13, 10, (const int[]){ 13, NSW + 1, 10 }, 3);
	/* another rail of the same node never leaves the node */
	assert_route(f, 0, 7, (const int[]){ 0, NSW, 7 }, 3);
	/* another node, the same rail: through the rail's leaf */
	assert_route(f, 0, 8, (const int[]){ 0, LEAF, 8 }, 3);
	assert_route(f, 31, 7, (const int[]){ 31, LEAF + 3, 7 }, 3);
	/* another node, another rail on the same leaf (rails 0 and 1 on leaf 0) */
	assert_route(f, 0, 9, (const int[]){ 0, LEAF, 9 }, 3);
	/* another node, another leaf: a spine, dmodk on the destination's port
	 * on its leaf (rank 10: node 1, rail 2 -> port 1 x 2 + 0 = 2 -> spine 0;
	 * rank 27: node 3, rail 3 -> port 3 x 2 + 1 = 7 -> spine 1) */
	assert_route(f, 0, 10, (const int[]){ 0, LEAF, SPINE, LEAF + 1, 10 }, 5);
	assert_route(f, 0, 27, (const int[]){ 0, LEAF, SPINE + 1, LEAF + 1, 27 }, 5);

	g_autofree char *nsw = fabric_node_name(f, NSW + 1), *leaf = fabric_node_name(f, LEAF + 3);
	g_autofree char *spine = fabric_node_name(f, SPINE + 1);

	g_assert_cmpstr(nsw, ==, "nsw1");
	g_assert_cmpstr(leaf, ==, "leaf3");
	g_assert_cmpstr(spine, ==, "spine1");

	/* the node tier: switch_link; the scale-out tier: scaleout_link, the
	 * uplinks at 8 ranks x 50 GB/s / (2 spines x 1) */
	fabric_channel_params(f, fabric_channel_find(f, 3, NSW), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, c.switch_link.bw_bytes_per_s);
	g_assert_cmpuint(p.header_bytes, ==, 32);
	fabric_channel_params(f, fabric_channel_find(f, LEAF + 1, 3), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, 50000000000ull);
	g_assert_cmpuint(p.header_bytes, ==, 26);
	g_assert_cmpuint(p.lat_ps, ==, SIM_NS(600));
	fabric_channel_params(f, fabric_channel_find(f, LEAF + 2, SPINE + 1), &p);
	g_assert_cmpuint(p.bw_bytes_per_s, ==, 200000000000ull);
	g_assert_cmpuint(p.max_payload_bytes, ==, 4096);
	g_assert_cmpint(fabric_channel_find(f, NSW, LEAF), <, 0);
	fabric_free(f);
	sim_free(s);

	/* one packet, two hops, each tier at its own rate, header and latency */
	static const struct { int dst; uint64_t bw; uint32_t header; sim_time_t lat; } one[] = {
		{ 5, 450000000000ull, 32, SIM_NS(100) },
		{ 8, 50000000000ull, 26, SIM_NS(600) },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(one); i++) {
		bool done = false;

		s = sim_new(1);
		f = fabric_new(s, &c, NULL);
		fabric_send(f, 0, one[i].dst, 4096, ROUTE_SHORTEST, done_at, &done);
		sim_run(s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_true(done);
		g_assert_cmpuint(sim_now(s), ==, 2 * (link_wire_ps(4096 + one[i].header, one[i].bw) +
						     one[i].lat));
		fabric_free(f);
		sim_free(s);
	}

	/* defaults: 16 ranks are 4 nodes of 4, one leaf per rail (4), 4 spines */
	c = tiers_cfg(16, 0, 0, 0, 0, TOPO_ROUTING_DEFAULT);
	s = sim_new(1);
	f = fabric_new(s, &c, NULL);
	g_assert_cmpint(fabric_node_ranks(&c), ==, 4);
	g_assert_cmpint(fabric_channels(f), ==, 4 * 16 + 2 * 4 * 4);
	fabric_free(f);
	sim_free(s);
	c = cfg_of(&topo_leafspine_ops, 16);
	g_assert_cmpint(fabric_node_ranks(&c), ==, 0);

	static const struct { int n, g, leaves; double r; const char *msg; } bad[] = {
		{ 13, 0, 0, 1, "tiers of 13 ranks needs explicit node_ranks: 13 is prime" },
		{ 16, 3, 0, 1, "tiers of 16 ranks needs node_ranks that divides it into at least 2 nodes of at least 2 ranks, got 3" },
		{ 16, 16, 0, 1, "tiers of 16 ranks needs node_ranks that divides it into at least 2 nodes of at least 2 ranks, got 16" },
		{ 16, 1, 0, 1, "tiers of 16 ranks needs node_ranks that divides it into at least 2 nodes of at least 2 ranks, got 1" },
		{ 32, 8, 3, 1, "tiers of 8 ranks per node needs a number of leaves that divides it, at least 2, got 3" },
		{ 32, 8, 1, 1, "tiers of 8 ranks per node needs a number of leaves that divides it, at least 2, got 1" },
		{ 32, 8, 0, 0.5, "tiers oversubscription must be between 1 and 64, got 0.5" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		c = tiers_cfg(bad[i].n, bad[i].g, bad[i].leaves, 0, bad[i].r, TOPO_ROUTING_DEFAULT);
		s = sim_new(1);
		g_clear_error(&err);
		g_assert_null(fabric_new(s, &c, &err));
		g_assert_cmpstr(err->message, ==, bad[i].msg);
		sim_free(s);
	}
	c = tiers_cfg(32, 8, 0, 0, 1, TOPO_ROUTING_DEFAULT);
	c.scaleout_link.max_payload_bytes = 0;
	s = sim_new(1);
	g_clear_error(&err);
	g_assert_null(fabric_new(s, &c, &err));
	g_assert_cmpstr(err->message, ==,
			"scale-out link: 'max_payload_bytes' must be in 1..1073741824, got 0");
	sim_free(s);
}

/* 16 nodes of 8, one leaf per rail: another node and another rail cross */
static bool tiers128_crosses(int a, int b)
{
	return a / 8 != b / 8 && a % 8 != b % 8;
}

/* ECMP on tiers as on a leaf-spine (13440 cross-leaf flows, 840 a spine:
 * each within 10 %). */
static void test_tiers_ecmp(void)
{
	enum { N = 128, G = 8, L = 8, S = 16 };
	struct fabric_config c = tiers_cfg(N, G, L, S, 1, TOPO_ROUTING_ECMP);

	ecmp_spread(&c, tiers128_crosses, N + N / G + L, S, 10);
}

/* Bisection bandwidth of the scale-out tier of 16 nodes of 8 (one leaf
 * per rail, 16 spines at 1:1, 8 at 2:1), measured with a permutation whose
 * every flow crosses from rails 0-3 to rails 4-7 or back (rank (m, q) to
 * (m + 1, q + 4): another node and another rail, so every flow goes
 * through a spine) under dmodk routing, against L/2 x h x B / r (payload
 * rate: B x P / (P + H)); then ECMP's time and uplink load max/mean for
 * seeds 1..5 (docs/systems.md). */
static void test_tiers_bisection(void)
{
	enum { M = 16, G = 8, N = M * G, L = G, H = N / L };
	const uint64_t bytes = 16 * 1024 * 1024;
	int dst[N];

	for (int i = 0; i < N; i++)
		dst[i] = (i / G + 1) % M * G + (i % G + G / 2) % G;
	for (int r = 1; r <= 2; r++) {
		struct fabric_config c = tiers_cfg(N, G, L, 16 / r, r, TOPO_ROUTING_DMODK);
		double mm_ecmp;
		/* dmodk: one flow per uplink at 1:1, two at 2:1 */
		sim_time_t t = bisection_check("tiers", &c, &c.scaleout_link, dst, N + M, H, bytes);

		c.routing = TOPO_ROUTING_ECMP;
		for (uint64_t seed = 1; seed <= 5; seed++) {
			sim_time_t te = permutation(&c, seed, bytes, dst, N + M, &mm_ecmp);

			g_test_message("tiers %d:1 ECMP (seed %" G_GUINT64_FORMAT "): %.2f GB/s, "
				       "uplink load max/mean %.2f", r, seed,
				       N / 2.0 * (double)bytes / ((double)te * 1e-12) / 1e9, mm_ecmp);
			g_assert_cmpuint(te, >=, t);
			g_assert_cmpfloat(mm_ecmp, >, 1.0);
		}
	}
}

/* A switch with per-port bandwidth: rank i's link runs at ports[i] both
 * ways, so a message is serialised at the slower of its two ports. */
static void test_switch_ports(void)
{
	static const uint64_t ports[] = { 450000000000ull, 450000000000ull, 100000000000ull,
					  450000000000ull };
	struct fabric_config c = cfg_of(&topo_switch_ops, 4);

	c.ports = ports;
	c.nports = 4;
	for (int dst = 1; dst <= 2; dst++) {
		struct sim *s = sim_new(1);
		struct fabric *f = fabric_new(s, &c, NULL);
		bool done = false;
		struct link_params p;

		fabric_channel_params(f, fabric_channel_find(f, 4, 2), &p);
		g_assert_cmpuint(p.bw_bytes_per_s, ==, 100000000000ull);
		fabric_channel_params(f, fabric_channel_find(f, 2, 4), &p);
		g_assert_cmpuint(p.bw_bytes_per_s, ==, 100000000000ull);
		/* one packet, two hops: 0 -> sw at 450, sw -> dst at its port */
		fabric_send(f, 0, dst, 4096, ROUTE_SHORTEST, done_at, &done);
		sim_run(s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_true(done);
		g_assert_cmpuint(sim_now(s), ==,
				 link_wire_ps(4128, 450000000000ull) + link_wire_ps(4128, ports[dst]) +
				 2 * c.link.lat_ps);
		fabric_free(f);
		sim_free(s);
	}
	c.nports = 3;
	g_autoptr(GError) err = NULL;
	struct sim *s = sim_new(1);

	g_assert_null(fabric_new(s, &c, &err));
	g_assert_cmpstr(err->message, ==, "switch of 4 ranks needs one port bandwidth per rank, got 3");
	sim_free(s);
}

/* N-D tori and meshes: every route is dimension-order (each hop moves one
 * coordinate by one, the dimensions in order), as short as the ring (torus)
 * or the line (mesh) allows in each dimension; on the torus a hop runs on
 * virtual channel 1 exactly when its dimension's wrap-around link was
 * crossed earlier in that dimension, on the mesh always on 0. */
static void check_cube(const struct topo_ops *o, const int *dims, int nd)
{
	struct fabric_config c = cfg_of(o, 1);
	struct topo t;
	g_autoptr(GError) err = NULL;
	bool wrap = o == &topo_torus_ops;

	for (int i = 0; i < nd; i++)
		c.nranks *= c.dims[i] = dims[i];
	g_assert_true(topo_init(&t, &c, 1, &err));
	g_assert_no_error(err);
	g_assert_cmpint(t.ndims, ==, nd);
	int *nodes = g_new(int, t.nnodes + 1);
	uint8_t *vcs = g_new(uint8_t, t.nnodes);

	for (int a = 0; a < t.nranks; a++)
		for (int b = 0; b < t.nranks; b++) {
			if (a == b)
				continue;
			int h = topo_route(&t, a, b, ROUTE_SHORTEST, nodes, vcs), want = 0, last = 0;
			bool crossed[LINK_MAX_DIMS] = { false };

			for (int i = 0, st = 1; i < nd; st *= dims[i], i++) {
				int d = abs(a / st % dims[i] - b / st % dims[i]);

				want += wrap ? MIN(d, dims[i] - d) : d;
			}
			g_assert_cmpint(h, ==, want);
			g_assert_cmpint(nodes[h], ==, b);
			for (int k = 0; k < h; k++) {
				int u = nodes[k], v = nodes[k + 1], moved = -1;

				g_assert_cmpint(topo_chan_find(&t, u, v), >=, 0);
				for (int i = 0, st = 1; i < nd; st *= dims[i], i++) {
					int x = u / st % dims[i], y = v / st % dims[i];

					if (x == y)
						continue;
					g_assert_cmpint(moved, ==, -1);
					moved = i;
					g_assert_true(wrap || abs(x - y) == 1);
					g_assert_cmpint(vcs[k], ==, wrap && crossed[i]);
					if (abs(x - y) != 1)
						crossed[i] = true;
				}
				g_assert_cmpint(moved, >=, last);
				last = moved;
			}
		}
	g_free(nodes);
	g_free(vcs);
	topo_release(&t);
}

static void test_cube_routes(void)
{
	static const int d444[] = { 4, 4, 4 }, d352[] = { 3, 5, 2 }, d2222[] = { 2, 2, 2, 2 },
			 d88[] = { 8, 8 }, d6[] = { 6 };

	check_cube(&topo_torus_ops, d444, 3);
	check_cube(&topo_torus_ops, d352, 3);
	check_cube(&topo_torus_ops, d2222, 4);
	check_cube(&topo_torus_ops, d6, 1);
	check_cube(&topo_mesh_ops, d444, 3);
	check_cube(&topo_mesh_ops, d352, 3);
	check_cube(&topo_mesh_ops, d88, 2);
}

/* Dragonfly of g = 8 groups, a = 4 routers, p = 2 ranks: g (g - 1) global
 * channels, one link per group pair; routes are minimal local-global-local
 * (at most 5 hops: rank, router, router, router, router, rank), exactly one
 * global hop between groups and none inside one, virtual channel 1 after the
 * global hop only. */
static void test_dragonfly_routes(void)
{
	struct fabric_config c = cfg_of(&topo_dragonfly_ops, 64);
	struct topo t;
	g_autoptr(GError) err = NULL;
	int g = 8, a = 4, p = 2, global = 0;

	c.groups = g;
	c.group_routers = a;
	c.router_ranks = p;
	g_assert_true(topo_init(&t, &c, 1, &err));
	g_assert_cmpint(t.nnodes, ==, 64 + g * a);
	for (int k = 0; k < t.nchans; k++)
		global += t.chans[k].tier == TOPO_TIER_SCALEOUT;
	g_assert_cmpint(global, ==, g * (g - 1));
	/* 64 terminal channels each way, a (a - 1) local per group, g (g - 1) global */
	g_assert_cmpint(t.nchans, ==, 2 * 64 + g * a * (a - 1) + g * (g - 1));
	int nodes[200];
	uint8_t vcs[200];

	for (int s = 0; s < 64; s++)
		for (int d = 0; d < 64; d++) {
			if (s == d)
				continue;
			int h = topo_route(&t, s, d, ROUTE_SHORTEST, nodes, vcs), globals = 0;
			bool same_group = s / (a * p) == d / (a * p);

			g_assert_cmpint(h, <=, same_group ? 3 : 5);
			g_assert_cmpint(h, >=, 2);
			for (int k = 0; k < h; k++) {
				int ch = topo_chan_find(&t, nodes[k], nodes[k + 1]);

				g_assert_cmpint(ch, >=, 0);
				g_assert_cmpint(vcs[k], ==, globals);
				globals += t.chans[ch].tier == TOPO_TIER_SCALEOUT;
			}
			g_assert_cmpint(globals, ==, same_group ? 0 : 1);
		}
	g_autofree char *name = topo_node_name(&t, 64 + 5);

	g_assert_cmpstr(name, ==, "g1r1");
	topo_release(&t);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/topo/registry/find", test_registry);
	g_test_add_func("/topo/registry/routes-are-paths", test_routes_are_paths);
	g_test_add_func("/topo/edges/two-switch", test_two_switch);
	g_test_add_func("/topo/cube/routes", test_cube_routes);
	g_test_add_func("/topo/dragonfly/routes", test_dragonfly_routes);
	g_test_add_func("/topo/edges/switch-ids-anywhere", test_switch_ids_anywhere);
	g_test_add_func("/topo/edges/switch-errors", test_switch_errors);
	g_test_add_func("/topo/edges/switch-timing", test_switch_timing);
	g_test_add_func("/topo/switch/ports", test_switch_ports);
	g_test_add_func("/topo/leafspine/routes", test_leafspine_routes);
	g_test_add_func("/topo/leafspine/ecmp", test_leafspine_ecmp);
	g_test_add_func("/topo/leafspine/bisection", test_leafspine_bisection);
	g_test_add_func("/topo/fattree/routes", test_fattree_routes);
	g_test_add_func("/topo/fattree/bisection", test_fattree_bisection);
	g_test_add_func("/topo/tiers/routes", test_tiers_routes);
	g_test_add_func("/topo/tiers/ecmp", test_tiers_ecmp);
	g_test_add_func("/topo/tiers/bisection", test_tiers_bisection);
	return g_test_run();
}
