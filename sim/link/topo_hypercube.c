/* Hypercube of N = 2^k ranks: rank i links to i ^ 2^b for every bit b.
 * Routes fix the lowest differing bit first (dimension order: no cyclic
 * buffer dependency, one virtual channel). */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static bool hypercube_admit(const struct fabric_config *cfg, struct topo_shape *shape,
			    GError **error)
{
	int n = cfg->nranks;

	(void)shape;
	if (n & (n - 1)) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "hypercube needs a power-of-two number of ranks, got %d", n);
		return false;
	}
	return true;
}

static void hypercube_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks;

	(void)cfg;
	for (int i = 0; i < n; i++)
		for (int b = 1; b < n; b <<= 1)
			topo_add_chan(chans, i, i ^ b, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
}

static int hypercube_route(const struct topo *t, int src, int dst, enum route_hint hint,
			   int *nodes, uint8_t *vcs)
{
	int h = 0;

	(void)t;
	(void)hint;
	for (int u = src; u != dst; h++) {
		int diff = u ^ dst;

		u ^= diff & -diff;
		vcs[h] = 0;
		nodes[h + 1] = u;
	}
	return h;
}

const struct topo_ops topo_hypercube_ops = {
	.name = "hypercube",
	.summary = "hypercube of 2^k ranks, dimension-order routes",
	.nvc = 1,
	.admit = hypercube_admit, .build = hypercube_build, .route = hypercube_route,
};
