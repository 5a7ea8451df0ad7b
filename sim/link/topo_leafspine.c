/* Leaf-spine: a two-level fat-tree (folded Clos). N ranks sit on L leaf
 * switches, h = N / L on each (rank i on leaf i / h); every leaf has one
 * link to each of S spine switches. Rank-leaf links take switch_link's
 * parameters; a leaf-spine link also, at the bandwidth that gives the
 * oversubscription ratio r (downlink over uplink capacity of a leaf):
 *   uplink = h x switch_link.bandwidth / (S x r)   (rounded, >= 1 B/s)
 * so a leaf's ranks can send h x B / r across the spines together, and the
 * bisection (half the leaves to the other half) is L/2 x h x B / r each
 * way. Defaults: L the largest divisor of N up to sqrt(N) (at least 2), S = h
 * (one spine per rank of a leaf), r = 1.
 *
 * Fabric nodes: ranks 0..N-1, leaves N..N+L-1 ("leaf0".."leaf{L-1}"), spines
 * N+L..N+L+S-1 ("spine0".."spine{S-1}"). Routes are shortest paths: within
 * a leaf rank -> leaf -> rank, across leaves rank -> leaf -> spine -> leaf ->
 * rank, the spine chosen per flow by ECMP (a hash of the run's seed and the
 * flow's ends) unless topology.routing says otherwise (dmodk: spine = dst mod
 * S). Up-down routes have no cyclic buffer dependency: one virtual channel. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static int leaves_of(const struct fabric_config *cfg)
{
	return cfg->leaves ? cfg->leaves : topo_near_square(cfg->nranks);
}

static int spines_of(const struct fabric_config *cfg)
{
	return cfg->spines ? cfg->spines : cfg->nranks / leaves_of(cfg);
}

static uint64_t uplink_bw(const struct fabric_config *cfg, int h, int s)
{
	uint64_t down = cfg->switch_link.bw_bytes_per_s ? cfg->switch_link.bw_bytes_per_s
							 : cfg->link.bw_bytes_per_s;

	return topo_uplink_bw(cfg, h, down, s);
}

static bool leafspine_admit(const struct fabric_config *cfg, struct topo_shape *shape,
			    GError **error)
{
	int n = cfg->nranks, l = leaves_of(cfg), s = spines_of(cfg);

	if (!cfg->leaves && l < 2) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "leafspine of %d ranks needs explicit leaves: %d is prime", n, n);
		return false;
	}
	if (l < 2 || n % l) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "leafspine of %d ranks needs a number of leaves that divides it, at least 2, got %d",
			    n, l);
		return false;
	}
	if (s < 1 || n + l + s > LINK_MAX_NODES) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "leafspine needs 1..%d spines, got %d", LINK_MAX_NODES - n - l, s);
		return false;
	}
	if (!topo_oversub_check(cfg, "leafspine", error))
		return false;
	shape->nnodes = n + l + s;
	return true;
}

static void leafspine_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks, l = leaves_of(cfg), s = spines_of(cfg), h = n / l;
	uint64_t up = uplink_bw(cfg, h, s);

	for (int i = 0; i < n; i++) {
		topo_add_chan(chans, i, n + i / h, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
		topo_add_chan(chans, n + i / h, i, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
	}
	for (int a = 0; a < l; a++)
		for (int b = 0; b < s; b++) {
			topo_add_chan(chans, n + a, n + l + b, TOPO_TIER_SWITCH, up, SIM_TIME_MAX);
			topo_add_chan(chans, n + l + b, n + a, TOPO_TIER_SWITCH, up, SIM_TIME_MAX);
		}
	/* the leaf count, for the names */
	t->label = g_new0(int, t->nnodes);
	for (int u = n; u < t->nnodes; u++)
		t->label[u] = l;
}

static char *leafspine_node_name(const struct topo *t, int u)
{
	int l = t->label[u];

	return u < t->nranks + l ? g_strdup_printf("leaf%d", u - t->nranks)
				 : g_strdup_printf("spine%d", u - t->nranks - l);
}

const struct topo_ops topo_leafspine_ops = {
	.name = "leafspine",
	.summary = "two-level fat-tree: ranks on leaves, every leaf on every spine, "
		   "oversubscription ratio, ECMP",
	.params = TOPO_PARAM_CLOS | TOPO_PARAM_OVERSUB | TOPO_PARAM_ROUTING,
	.nvc = 1,
	.routing = TOPO_ROUTING_ECMP,
	.admit = leafspine_admit, .build = leafspine_build, .route = topo_route_shortest,
	.node_name = leafspine_node_name,
};
