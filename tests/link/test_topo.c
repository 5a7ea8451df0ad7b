/* Tests of the topology plug-ins (sim/link/topo.h): the registry finds
 * every topology by its name and refuses others with the known names and
 * the nearest one; every topology that needs no parameters builds a fabric
 * whose routes are paths over its channels. */
#include <glib.h>
#include <string.h>

#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "sim/link/topos.h"

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

	g_autoptr(GError) err = NULL;

	g_assert_null(topo_find("hypercub", &err));
	g_assert_error(err, LINK_ERROR, LINK_ERROR_UNKNOWN);
	g_autofree char *want = g_strdup_printf("unknown topology 'hypercub' (known: %s); "
						"did you mean 'hypercube'?", known);

	g_assert_cmpstr(err->message, ==, want);
	g_clear_error(&err);
	g_assert_null(topo_find("dragonfly", &err));
	g_assert_null(strstr(err->message, "did you mean"));

	g_autofree char *dims = topo_names_taking(TOPO_PARAM_DIMS);
	g_autofree char *edges = topo_names_taking(TOPO_PARAM_EDGES);

	g_assert_cmpstr(dims, ==, "torus");
	g_assert_cmpstr(edges, ==, "edges");
	g_assert_true(topo_fixed_ranks(&topo_edges_ops));
	g_assert_false(topo_fixed_ranks(&topo_ring_ops));
}

/* Every route of every parameter-free topology at N = 8 and 16 runs from
 * src to dst over existing channels and visits no node twice. */
static void test_routes_are_paths(void)
{
	for (const struct topo_ops *const *o = topo_all(); *o; o++) {
		if (topo_takes(*o, TOPO_PARAM_EDGES))
			continue;
		for (int n = 8; n <= 16; n += 8) {
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

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/topo/registry/find", test_registry);
	g_test_add_func("/topo/registry/routes-are-paths", test_routes_are_paths);
	g_test_add_func("/topo/edges/two-switch", test_two_switch);
	g_test_add_func("/topo/edges/switch-ids-anywhere", test_switch_ids_anywhere);
	g_test_add_func("/topo/edges/switch-errors", test_switch_errors);
	g_test_add_func("/topo/edges/switch-timing", test_switch_timing);
	return g_test_run();
}
