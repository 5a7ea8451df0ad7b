/* Switch (star): every rank has one link to a switch, node N, whose
 * channels take switch_link's parameters, or per port: with
 * topology.ports, rank i's link (both directions) runs at ports[i]. Routes
 * go rank -> switch -> rank. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static bool switch_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	if (cfg->nports && cfg->nports != cfg->nranks) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_PARAMS,
			    "switch of %d ranks needs one port bandwidth per rank, got %d", cfg->nranks,
			    cfg->nports);
		return false;
	}
	for (int i = 0; i < cfg->nports; i++)
		if (!cfg->ports[i]) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_PARAMS,
				    "switch port %d has no bandwidth", i);
			return false;
		}
	shape->nnodes = cfg->nranks + 1;
	return true;
}

static void switch_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks;

	for (int i = 0; i < n; i++) {
		uint64_t bw = cfg->nports ? cfg->ports[i] : 0;

		topo_add_chan(chans, i, n, TOPO_TIER_SWITCH, bw, SIM_TIME_MAX);
		topo_add_chan(chans, n, i, TOPO_TIER_SWITCH, bw, SIM_TIME_MAX);
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
	.summary = "every rank linked to one switch (switch_link parameters, per-port bandwidth)",
	.params = TOPO_PARAM_PORTS,
	.nvc = 1,
	.admit = switch_admit, .build = switch_build, .route = switch_route,
};
