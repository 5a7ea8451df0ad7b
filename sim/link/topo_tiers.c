/* Tiers: nodes of G ranks (GPUs) on a node switch (NVSwitch), joined by a
 * rail-optimised leaf-spine. N = M x G ranks; rank i is GPU q = i mod G
 * (its rail) of node m = i / G. The node tier: every rank has one link to
 * its node's switch, with switch_link's parameters. The scale-out tier:
 * every rank has one link (its NIC's port) to the leaf of its rail, and
 * every leaf one link to each of S spines, all with scaleout_link's
 * parameters. The G rails are grouped onto L leaves, G / L rails a leaf
 * (rail q on leaf q / (G / L)); a leaf has h = M x G / L ranks below it,
 * rank i at port m x (G / L) + q mod (G / L). A leaf-spine link runs at
 *   uplink = h x scaleout_link.bandwidth / (S x r)  (rounded, >= 1 B/s)
 * for the oversubscription ratio r, as on kind leafspine, so the
 * bisection of the scale-out tier (half the leaves to the other half) is
 * L/2 x h x scaleout_link.bandwidth / r each way. Defaults: G = N / (the
 * largest divisor of N up to sqrt(N)), L = G (one leaf per rail), S = h,
 * r = 1.
 *
 * Routes (no PXN: a rank's traffic to another node leaves through its own
 * NIC and arrives through the destination's):
 *   same node                  rank -> node switch -> rank          (2 hops)
 *   other node, same leaf      rank -> leaf -> rank                 (2 hops)
 *   other node, other leaf     rank -> leaf -> spine -> leaf -> rank (4 hops)
 * so two ranks of one rail talk through their rail's leaf, and a rank
 * talking to another rail of another node crosses the spines. The spine is
 * chosen per flow by topology.routing (topo_pick): ECMP by default (a hash
 * of the run's seed, the flow's ends and the source's leaf), dmodk: the
 * destination's port on its leaf mod S, lowest: spine 0. Up-down routes
 * have no cyclic buffer dependency: one virtual channel.
 *
 * Fabric nodes: ranks 0..N-1, node switches N..N+M-1 ("nsw0".."nsw{M-1}"),
 * leaves N+M..N+M+L-1 ("leaf0".."leaf{L-1}"), spines after them
 * ("spine0".."spine{S-1}"). t->dims holds G and L. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static int node_ranks_of(const struct fabric_config *cfg)
{
	return cfg->node_ranks ? cfg->node_ranks : cfg->nranks / topo_near_square(cfg->nranks);
}

static int leaves_of(const struct fabric_config *cfg)
{
	return cfg->leaves ? cfg->leaves : node_ranks_of(cfg);
}

/* Ranks below one leaf. */
static int leaf_ranks(int n, int g, int l)
{
	return n / g * (g / l);
}

static int spines_of(const struct fabric_config *cfg)
{
	int g = node_ranks_of(cfg), l = leaves_of(cfg);

	return cfg->spines ? cfg->spines : leaf_ranks(cfg->nranks, g, l);
}

static bool tiers_admit(const struct fabric_config *cfg, struct topo_shape *shape,
			GError **error)
{
	int n = cfg->nranks, g = node_ranks_of(cfg), l = leaves_of(cfg), s = spines_of(cfg);

	if (!cfg->node_ranks && g == n) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "tiers of %d ranks needs explicit node_ranks: %d is prime", n, n);
		return false;
	}
	if (g < 2 || n % g || n / g < 2) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "tiers of %d ranks needs node_ranks that divides it into at least 2 nodes "
			    "of at least 2 ranks, got %d", n, g);
		return false;
	}
	if (l < 2 || g % l) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "tiers of %d ranks per node needs a number of leaves that divides it, "
			    "at least 2, got %d", g, l);
		return false;
	}
	if (s < 1 || n + n / g + l + s > LINK_MAX_NODES) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS, "tiers needs 1..%d spines, got %d",
			    LINK_MAX_NODES - n - n / g - l, s);
		return false;
	}
	if (!topo_oversub_check(cfg, "tiers", error))
		return false;
	shape->nnodes = n + n / g + l + s;
	shape->dims[0] = g;
	shape->dims[1] = l;
	return true;
}

static void tiers_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks, g = t->dims[0], l = t->dims[1], m = n / g;
	int s = t->nnodes - n - m - l, leaf0 = n + m, spine0 = leaf0 + l;
	uint64_t down = cfg->scaleout_link.bw_bytes_per_s ? cfg->scaleout_link.bw_bytes_per_s
							  : cfg->link.bw_bytes_per_s;
	uint64_t up = topo_uplink_bw(cfg, leaf_ranks(n, g, l), down, s);

	for (int i = 0; i < n; i++) {
		int nsw = n + i / g, leaf = leaf0 + i % g / (g / l);

		topo_add_chan(chans, i, nsw, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
		topo_add_chan(chans, nsw, i, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
		topo_add_chan(chans, i, leaf, TOPO_TIER_SCALEOUT, 0, SIM_TIME_MAX);
		topo_add_chan(chans, leaf, i, TOPO_TIER_SCALEOUT, 0, SIM_TIME_MAX);
	}
	for (int a = 0; a < l; a++)
		for (int b = 0; b < s; b++) {
			topo_add_chan(chans, leaf0 + a, spine0 + b, TOPO_TIER_SCALEOUT, up, SIM_TIME_MAX);
			topo_add_chan(chans, spine0 + b, leaf0 + a, TOPO_TIER_SCALEOUT, up, SIM_TIME_MAX);
		}
}

static int tiers_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
		       uint8_t *vcs)
{
	int n = t->nranks, g = t->dims[0], l = t->dims[1], m = n / g, per = g / l;
	int leaf0 = n + m, spine0 = leaf0 + l, s = t->nnodes - spine0;
	int ls = leaf0 + src % g / per, ld = leaf0 + dst % g / per, h = 2;

	(void)hint;
	if (src / g == dst / g) {
		nodes[1] = n + src / g;
	} else if (ls == ld) {
		nodes[1] = ls;
	} else {
		/* dmodk: the destination's port on its leaf */
		int port = dst / g * per + dst % g % per;

		nodes[1] = ls;
		nodes[2] = spine0 + topo_pick(t, src, dst, ls, s, port);
		nodes[3] = ld;
		h = 4;
	}
	nodes[h] = dst;
	for (int k = 0; k < h; k++)
		vcs[k] = 0;
	return h;
}

static char *tiers_node_name(const struct topo *t, int u)
{
	int n = t->nranks, m = n / t->dims[0], l = t->dims[1];

	if (u < n + m)
		return g_strdup_printf("nsw%d", u - n);
	if (u < n + m + l)
		return g_strdup_printf("leaf%d", u - n - m);
	return g_strdup_printf("spine%d", u - n - m - l);
}

const struct topo_ops topo_tiers_ops = {
	.name = "tiers",
	.summary = "nodes of node_ranks ranks on a node switch, joined by a rail-optimised "
		   "leaf-spine (one NIC per rank, oversubscription ratio, ECMP)",
	.params = TOPO_PARAM_TIERS | TOPO_PARAM_SCALEOUT | TOPO_PARAM_CLOS | TOPO_PARAM_OVERSUB | TOPO_PARAM_ROUTING,
	.nvc = 1,
	.routing = TOPO_ROUTING_ECMP,
	.admit = tiers_admit, .build = tiers_build, .route = tiers_route,
	.node_name = tiers_node_name, .node_ranks = node_ranks_of,
};
