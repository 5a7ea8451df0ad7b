/* Full mesh: a link between every pair of ranks; every route is one hop. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static bool fullmesh_admit(const struct fabric_config *cfg, struct topo_shape *shape,
			   GError **error)
{
	(void)error;
	shape->nchans = (uint64_t)cfg->nranks * (uint64_t)(cfg->nranks - 1);
	return true;
}

static void fullmesh_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	(void)cfg;
	for (int i = 0; i < t->nranks; i++)
		for (int j = 0; j < t->nranks; j++)
			topo_add_chan(chans, i, j, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
}

static int fullmesh_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
			  uint8_t *vcs)
{
	(void)t;
	(void)src;
	(void)hint;
	vcs[0] = 0;
	nodes[1] = dst;
	return 1;
}

const struct topo_ops topo_fullmesh_ops = {
	.name = "fullmesh",
	.summary = "a link between every pair of ranks",
	.nvc = 1,
	.admit = fullmesh_admit, .build = fullmesh_build, .route = fullmesh_route,
};
