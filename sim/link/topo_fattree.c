/* Fat-tree: the three-level k-ary fat-tree (folded Clos of k-port
 * switches). k pods; a pod has h = k/2 edge switches and h aggregation
 * switches, every edge linked to every aggregation switch of its pod; h
 * ranks hang off each edge switch, so N = k^3 / 4 (k = 4: 16 ranks, 8:
 * 128, 16: 1024); h^2 core switches, core c linked to aggregation switch
 * c / h of every pod. The rank count fixes k: an N that is not k^3/4 for an
 * even k >= 2 is refused, naming the nearest admitted counts.
 *
 * Rank-edge links take switch_link's parameters. Switch-switch links run at
 * B / r, B the rank links' bandwidth and r topology.oversubscription (an
 * edge switch's downlink over uplink capacity), so an edge's h ranks can
 * send h x B / r up together, every level above carries the same, and the
 * bisection (half the pods to the other half) is N/2 x B / r each way.
 *
 * Fabric nodes: ranks 0..N-1 (rank i on edge i / h), then the edges
 * ("edge0".., edge e in pod e / h), the aggregation switches ("agg0"..,
 * agg g in pod g / h, index g mod h), the cores ("core0".."core{h^2-1}").
 *
 * Routes are up-down shortest paths: within an edge rank -> edge -> rank;
 * within a pod up to an aggregation switch a and down; across pods up to
 * aggregation switch a, core a h + j, and down through the destination
 * pod's aggregation switch a. The choice of (a, j) is topology.routing's:
 * ECMP (default) hashes the run's seed, the flow's ends and the switch at
 * each choice; dmodk takes a = dst mod h and j = (dst / h) mod h (the
 * destination's digits), under which a shift permutation such as i -> i +
 * N/2 puts no two flows on one channel; lowest takes a = j = 0. Up-down
 * routes have no cyclic buffer dependency: one virtual channel. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

/* The k of N = k^3 / 4, or 0. */
static int fattree_k(int n)
{
	for (int k = 2; (long)k * k * k / 4 <= n; k += 2)
		if ((long)k * k * k / 4 == n)
			return k;
	return 0;
}

static bool fattree_admit(const struct fabric_config *cfg, struct topo_shape *shape,
			  GError **error)
{
	int n = cfg->nranks, k = fattree_k(n);

	if (!k) {
		int lo = 2;

		while ((long)(lo + 2) * (lo + 2) * (lo + 2) / 4 < n)
			lo += 2;
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "fattree needs k^3/4 ranks for an even k (the switches' ports), got %d; "
			    "nearest: %d (k = %d) or %d (k = %d)",
			    n, lo * lo * lo / 4, lo, (lo + 2) * (lo + 2) * (lo + 2) / 4, lo + 2);
		return false;
	}
	if (!topo_oversub_check(cfg, "fattree", error))
		return false;
	int h = k / 2;

	/* edges and aggregation switches: k h each; cores: h^2 */
	shape->nnodes = n + 2 * k * h + h * h;
	if (shape->nnodes > LINK_MAX_NODES) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "fattree of %d ranks needs %d nodes, more than %d", n, shape->nnodes,
			    LINK_MAX_NODES);
		return false;
	}
	return true;
}

/* The node ids of a fat-tree of N ranks: its h, and the first edge,
 * aggregation and core switch. */
struct ft {
	int h, edge0, agg0, core0;
};

static struct ft ft_of(int n)
{
	int k = fattree_k(n), h = k / 2;

	return (struct ft){ .h = h, .edge0 = n, .agg0 = n + k * h, .core0 = n + 2 * k * h };
}

static void fattree_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks, k = fattree_k(n);
	struct ft f = ft_of(n);
	uint64_t down = cfg->switch_link.bw_bytes_per_s ? cfg->switch_link.bw_bytes_per_s
							 : cfg->link.bw_bytes_per_s;
	/* h uplinks of an edge carry its h downlinks' capacity over r */
	uint64_t up = topo_uplink_bw(cfg, f.h, down, f.h);

	for (int i = 0; i < n; i++) {
		topo_add_chan(chans, i, f.edge0 + i / f.h, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
		topo_add_chan(chans, f.edge0 + i / f.h, i, TOPO_TIER_SWITCH, 0, SIM_TIME_MAX);
	}
	for (int pod = 0; pod < k; pod++)
		for (int e = 0; e < f.h; e++)
			for (int a = 0; a < f.h; a++) {
				int edge = f.edge0 + pod * f.h + e, agg = f.agg0 + pod * f.h + a;

				topo_add_chan(chans, edge, agg, TOPO_TIER_SWITCH, up, SIM_TIME_MAX);
				topo_add_chan(chans, agg, edge, TOPO_TIER_SWITCH, up, SIM_TIME_MAX);
			}
	for (int pod = 0; pod < k; pod++)
		for (int a = 0; a < f.h; a++)
			for (int j = 0; j < f.h; j++) {
				int agg = f.agg0 + pod * f.h + a, core = f.core0 + a * f.h + j;

				topo_add_chan(chans, agg, core, TOPO_TIER_SWITCH, up, SIM_TIME_MAX);
				topo_add_chan(chans, core, agg, TOPO_TIER_SWITCH, up, SIM_TIME_MAX);
			}
}

static int fattree_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
			 uint8_t *vcs)
{
	struct ft f = ft_of(t->nranks);
	int es = src / f.h, ed = dst / f.h, ps = es / f.h, pd = ed / f.h, h = 0;

	(void)hint;
	nodes[++h] = f.edge0 + es;
	if (es != ed) {
		int a = topo_pick(t, src, dst, f.edge0 + es, f.h, dst % f.h);

		nodes[++h] = f.agg0 + ps * f.h + a;
		if (ps != pd) {
			int j = topo_pick(t, src, dst, f.agg0 + ps * f.h + a, f.h, dst / f.h % f.h);

			nodes[++h] = f.core0 + a * f.h + j;
			nodes[++h] = f.agg0 + pd * f.h + a;
		}
		nodes[++h] = f.edge0 + ed;
	}
	nodes[++h] = dst;
	for (int i = 0; i < h; i++)
		vcs[i] = 0;
	return h;
}

static char *fattree_node_name(const struct topo *t, int u)
{
	struct ft f = ft_of(t->nranks);

	if (u < f.agg0)
		return g_strdup_printf("edge%d", u - f.edge0);
	if (u < f.core0)
		return g_strdup_printf("agg%d", u - f.agg0);
	return g_strdup_printf("core%d", u - f.core0);
}

const struct topo_ops topo_fattree_ops = {
	.name = "fattree",
	.summary = "three-level k-ary fat-tree of k-port switches (k^3/4 ranks), "
		   "oversubscription ratio, ECMP",
	.params = TOPO_PARAM_OVERSUB | TOPO_PARAM_ROUTING,
	.nvc = 1,
	.routing = TOPO_ROUTING_ECMP,
	.admit = fattree_admit, .build = fattree_build, .route = fattree_route,
	.node_name = fattree_node_name,
};
