/* An explicit edge list: bidirectional links between numbered nodes, each
 * with its own bandwidth and latency or the default link's (switch_link's
 * where it touches a switch). The nodes are 0..M-1, M = N + S: the S listed
 * as switches forward but run no ranks (switches, NICs), the others are the
 * N ranks, rank r the r-th of them by node id. Admitted when it is a
 * connected simple graph on 0..M-1 (edges between nodes in range, no
 * self-loop, no pair twice, every node joined to node 0). Inside the fabric
 * the ranks are nodes 0..N-1 and the switches N..M-1 (in node id order);
 * channel names give a switch as "sw" and its node id. Routes take the
 * fewest hops; at every node the lowest-numbered neighbour on a shortest
 * path (ranks before switches). Such a graph may have cyclic buffer
 * dependencies: fabric_in_flight() tells a caller that a run ended with
 * messages undelivered. */
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

/* "rank 3" on a list of ranks only, "node 3" once it has switches. */
static const char *word(const struct fabric_config *cfg)
{
	return cfg->nswitches ? "node" : "rank";
}

static bool edges_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	int n = cfg->nranks, m = n + MAX(cfg->nswitches, 0);

	if (cfg->nswitches < 0 || m > LINK_MAX_NODES) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES,
			    "edge list of %d ranks and %d switches has more than %d nodes", n,
			    cfg->nswitches, LINK_MAX_NODES);
		return false;
	}
	if (cfg->nedges < 1 || !cfg->edges) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge list of %d ranks has no edges", n);
		return false;
	}
	g_autofree bool *is_switch = g_new0(bool, (gsize)(guint)m);

	for (int i = 0; i < cfg->nswitches; i++) {
		int u = cfg->switches[i];

		if (u < 0 || u >= m) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES,
				    "switch %d is outside the nodes 0..%d (%d ranks and %d switches)", u,
				    m - 1, n, cfg->nswitches);
			return false;
		}
		if (is_switch[u]) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "switch %d is listed twice", u);
			return false;
		}
		is_switch[u] = true;
	}
	g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autofree gint64 *keys = g_new(gint64, cfg->nedges);
	g_autofree int *up = g_new(int, (gsize)(guint)m);

	for (int u = 0; u < m; u++)
		up[u] = u;
	for (int i = 0; i < cfg->nedges; i++) {
		const struct topo_edge *e = &cfg->edges[i];

		if (e->a < 0 || e->a >= m || e->b < 0 || e->b >= m) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) names a %s outside 0..%d",
				    i, e->a, e->b, word(cfg), m - 1);
			return false;
		}
		if (e->a == e->b) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) is a self-loop", i, e->a, e->b);
			return false;
		}
		keys[i] = (gint64)MIN(e->a, e->b) * m + MAX(e->a, e->b);
		if (g_hash_table_contains(seen, &keys[i])) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) repeats an earlier edge",
				    i, e->a, e->b);
			return false;
		}
		g_hash_table_add(seen, &keys[i]);
		up[uf_find(up, e->a)] = uf_find(up, e->b);
	}
	for (int u = 1; u < m; u++)
		if (uf_find(up, u) != uf_find(up, 0)) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES,
				    "edge list leaves %s %d unreachable from %s 0",
				    is_switch[u] ? "switch" : word(cfg), u, word(cfg));
			return false;
		}
	shape->nnodes = m;
	return true;
}

static void edges_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int m = t->nnodes;
	g_autofree int *id = g_new(int, (gsize)(guint)m); /* node id -> fabric node */
	g_autofree bool *is_switch = g_new0(bool, (gsize)(guint)m);

	for (int i = 0; i < cfg->nswitches; i++)
		is_switch[cfg->switches[i]] = true;
	if (cfg->nswitches)
		t->label = g_new0(int, m);
	for (int u = 0, r = 0, sw = t->nranks; u < m; u++) {
		id[u] = is_switch[u] ? sw++ : r++;
		if (is_switch[u])
			t->label[id[u]] = u;
	}
	for (int i = 0; i < cfg->nedges; i++) {
		const struct topo_edge *e = &cfg->edges[i];
		int a = id[e->a], b = id[e->b];
		enum topo_tier sw = is_switch[e->a] || is_switch[e->b] ? TOPO_TIER_SWITCH
								       : TOPO_TIER_LINK;

		topo_add_chan(chans, a, b, sw, e->bw_bytes_per_s, e->lat_ps);
		topo_add_chan(chans, b, a, sw, e->bw_bytes_per_s, e->lat_ps);
	}
}

const struct topo_ops topo_edges_ops = {
	.name = "edges",
	.summary = "explicit edge list, with switch nodes if listed; shortest-path routes",
	.params = TOPO_PARAM_EDGES | TOPO_PARAM_ROUTING,
	.fixed_ranks = true,
	.nvc = 1,
	.vc_order = true,
	.admit = edges_admit, .build = edges_build, .route = topo_route_shortest,
};
