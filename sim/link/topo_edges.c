/* An explicit edge list: bidirectional links between named ranks, each with
 * its own bandwidth and latency or the default link's. Admitted when it is a
 * connected simple graph on 0..N-1 (edges between ranks in range, no
 * self-loop, no pair twice, every rank joined to rank 0). Routes take the
 * fewest hops; at every node the lowest-numbered neighbour on a shortest
 * path. Such a graph may have cyclic buffer dependencies: fabric_in_flight()
 * tells a caller that a run ended with messages undelivered. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

/* The root of u's set, halving the path on the way. */
static int uf_find(int *up, int u)
{
	while (up[u] != u) {
		up[u] = up[up[u]];
		u = up[u];
	}
	return u;
}

static bool edges_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	int n = cfg->nranks;

	(void)shape;
	if (cfg->nedges < 1 || !cfg->edges) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge list of %d ranks has no edges", n);
		return false;
	}
	g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autofree gint64 *keys = g_new(gint64, cfg->nedges);
	g_autofree int *up = g_new(int, (gsize)(guint)n);

	for (int u = 0; u < n; u++)
		up[u] = u;
	for (int i = 0; i < cfg->nedges; i++) {
		const struct topo_edge *e = &cfg->edges[i];

		if (e->a < 0 || e->a >= n || e->b < 0 || e->b >= n) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) names a rank outside 0..%d",
				    i, e->a, e->b, n - 1);
			return false;
		}
		if (e->a == e->b) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) is a self-loop", i, e->a, e->b);
			return false;
		}
		keys[i] = (gint64)MIN(e->a, e->b) * n + MAX(e->a, e->b);
		if (g_hash_table_contains(seen, &keys[i])) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) repeats an earlier edge",
				    i, e->a, e->b);
			return false;
		}
		g_hash_table_add(seen, &keys[i]);
		up[uf_find(up, e->a)] = uf_find(up, e->b);
	}
	for (int u = 1; u < n; u++)
		if (uf_find(up, u) != uf_find(up, 0)) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES,
				    "edge list leaves rank %d unreachable from rank 0", u);
			return false;
		}
	return true;
}

static void edges_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	(void)t;
	for (int i = 0; i < cfg->nedges; i++) {
		const struct topo_edge *e = &cfg->edges[i];

		topo_add_chan(chans, e->a, e->b, false, e->bw_bytes_per_s, e->lat_ps);
		topo_add_chan(chans, e->b, e->a, false, e->bw_bytes_per_s, e->lat_ps);
	}
}

const struct topo_ops topo_edges_ops = {
	.name = "edges",
	.summary = "explicit edge list, shortest-path routes",
	.params = TOPO_PARAM_EDGES,
	.fixed_ranks = true,
	.nvc = 1,
	.admit = edges_admit, .build = edges_build, .route = topo_route_shortest,
};
