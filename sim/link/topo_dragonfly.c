/* Dragonfly: g groups of a routers, p ranks on each router, N = g x a x p.
 * Rank i sits on router R = i / p, of group R / a, local router index
 * R mod a. Three kinds of link:
 *   terminal  rank <-> its router                    switch_link
 *   local     every router pair of a group           switch_link
 *             (all-to-all inside a group)
 *   global    one link per pair of groups            scaleout_link
 * (bandwidth 0: the `link` parameters, as on every tier).
 *
 * Global links, the consecutive arrangement: group i numbers its g - 1
 * global links k = 0..g-2, link k going to group (i + 1 + k) mod g, and
 * leaves from its router k mod a (round robin over the routers, so each
 * router has ceil or floor of (g - 1) / a global ports). The link between
 * groups i and j is thus link (j - i - 1) mod g of i and (i - j - 1) mod g of
 * j: router ((j - i - 1) mod g) mod a of group i to router
 * ((i - j - 1) mod g) mod a of group j. The bisection (half the groups to
 * the other half, g even) cuts (g / 2)^2 global links, so when the global
 * links are the narrowest it is (g / 2)^2 x scaleout_link.bandwidth each way.
 *
 * Routing is minimal, local-global-local: a rank's router, then (other
 * group) a local hop to the router that holds its group's link to the
 * destination group if that is another router, the global link, a local
 * hop to the destination's router if that is another, the destination:
 * at most 1 local + 1 global + 1 local router-to-router hops. Deadlock
 * freedom: hops before the global link (and the global hop itself) use
 * virtual channel 0, hops after it virtual channel 1, so a packet's
 * channel dependencies only go local(0) -> global(0) -> local(1) and
 * cannot close a cycle. Defaults: p = 1, a the largest divisor of N / p up
 * to its square root, g = N / (a x p) (so any N >= 2 has a default shape:
 * 64 ranks are 8 groups of 8 routers of one rank).
 *
 * Fabric nodes: ranks 0..N-1, routers N..N+g a-1 ("g{group}r{index}").
 * t->dims holds g, a and p. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static int ranks_of(const struct fabric_config *cfg)
{
	return cfg->router_ranks ? cfg->router_ranks : 1;
}

static int routers_of(const struct fabric_config *cfg)
{
	int m = cfg->nranks / ranks_of(cfg);

	return cfg->group_routers ? cfg->group_routers : m > 0 ? topo_near_square(m) : 1;
}

static int groups_of(const struct fabric_config *cfg)
{
	return cfg->groups ? cfg->groups : cfg->nranks / (routers_of(cfg) * ranks_of(cfg));
}

static bool dragonfly_admit(const struct fabric_config *cfg, struct topo_shape *shape,
			    GError **error)
{
	int n = cfg->nranks, a = routers_of(cfg), p = ranks_of(cfg), g = groups_of(cfg);

	if (g < 2 || (long)g * a * p != n) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "dragonfly of %d ranks needs groups x group_routers x router_ranks = %d "
			    "with at least 2 groups, got %d x %d x %d", n, n, g, a, p);
		return false;
	}
	if (n + g * a > LINK_MAX_NODES) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "dragonfly needs at most %d routers, got %d", LINK_MAX_NODES - n, g * a);
		return false;
	}
	shape->nnodes = n + g * a;
	shape->dims[0] = g;
	shape->dims[1] = a;
	shape->dims[2] = p;
	return true;
}

/* The router (node id) of group i that holds its global link to group j. */
static int global_router(const struct topo *t, int i, int j)
{
	int g = t->dims[0], a = t->dims[1];

	return t->nranks + i * a + ((j - i - 1 + g) % g) % a;
}

static void dragonfly_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks, g = t->dims[0], a = t->dims[1], p = t->dims[2];

	(void)cfg;
	for (int r = 0; r < n; r++) {
		topo_add_chan(chans, r, n + r / p, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
		topo_add_chan(chans, n + r / p, r, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
	}
	for (int i = 0; i < g; i++)
		for (int x = 0; x < a; x++)
			for (int y = 0; y < a; y++)
				topo_add_chan(chans, n + i * a + x, n + i * a + y, TOPO_TIER_SWITCH, 0,
					      SIM_TIME_MAX);
	for (int i = 0; i < g; i++)
		for (int j = 0; j < g; j++)
			if (i != j)
				topo_add_chan(chans, global_router(t, i, j), global_router(t, j, i),
					      TOPO_TIER_SCALEOUT, 0, SIM_TIME_MAX);
}

static int dragonfly_route(const struct topo *t, int src, int dst, enum route_hint hint,
			   int *nodes, uint8_t *vcs)
{
	int n = t->nranks, a = t->dims[1], p = t->dims[2];
	int rs = n + src / p, rd = n + dst / p, gs = src / p / a, gd = dst / p / a;
	int h = 0;
	uint8_t vc = 0;

	(void)hint;
	vcs[h] = vc;
	nodes[++h] = rs;
	if (gs != gd) {
		int out = global_router(t, gs, gd), in = global_router(t, gd, gs);

		if (out != rs) {
			vcs[h] = vc;
			nodes[++h] = out;
		}
		vcs[h] = vc;
		nodes[++h] = in;
		vc = 1;
		rs = in;
	}
	if (rs != rd) {
		vcs[h] = vc;
		nodes[++h] = rd;
	}
	vcs[h] = vc;
	nodes[++h] = dst;
	return h;
}

static char *dragonfly_node_name(const struct topo *t, int u)
{
	int a = t->dims[1], r = u - t->nranks;

	return g_strdup_printf("g%dr%d", r / a, r % a);
}

const struct topo_ops topo_dragonfly_ops = {
	.name = "dragonfly",
	.summary = "groups of all-to-all routers, one global link per group pair, minimal "
		   "local-global-local routes",
	.params = TOPO_PARAM_DRAGONFLY | TOPO_PARAM_SCALEOUT,
	.nvc = 2,
	.admit = dragonfly_admit, .build = dragonfly_build, .route = dragonfly_route,
	.node_name = dragonfly_node_name,
};
