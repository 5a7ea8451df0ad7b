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

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/topo/registry/find", test_registry);
	g_test_add_func("/topo/registry/routes-are-paths", test_routes_are_paths);
	return g_test_run();
}
