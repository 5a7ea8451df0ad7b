/* Switch (star): every rank has one link to a switch, node N, whose
 * channels take switch_link's parameters; routes go rank -> switch -> rank. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static bool switch_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	(void)error;
	shape->nnodes = cfg->nranks + 1;
	return true;
}

static void switch_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks;

	(void)cfg;
	for (int i = 0; i < n; i++) {
		topo_add_chan(chans, i, n, true, 0, SIM_TIME_MAX);
		topo_add_chan(chans, n, i, true, 0, SIM_TIME_MAX);
	}
}

static int switch_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
			uint8_t *vcs)
{
	(void)src;
	(void)hint;
	vcs[0] = vcs[1] = 0;
	nodes[1] = t->nranks;
	nodes[2] = dst;
	return 2;
}

const struct topo_ops topo_switch_ops = {
	.name = "switch",
	.summary = "every rank linked to one switch (switch_link parameters)",
	.nvc = 1,
	.admit = switch_admit, .build = switch_build, .route = switch_route,
};
