/* Rings: N ranks in a cycle, bidirectional (ring) or i -> i+1 only
 * (ring-uni); N = 2 is one link. Routes go the short way; at distance
 * exactly N/2 (even N) even sources go clockwise, odd ones counter-clockwise;
 * ROUTE_CW / ROUTE_CCW force the direction (ring-uni: always clockwise).
 * Two virtual channels: a packet moves to the second after the wrap-around
 * hop N-1 -> 0 (or 0 -> N-1), the dateline. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static bool ring_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	(void)cfg;
	(void)shape;
	(void)error;
	return true;
}

static void ring_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int n = t->nranks;

	(void)cfg;
	for (int i = 0; i < n; i++) {
		topo_add_chan(chans, i, (i + 1) % n, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
		if (t->ops == &topo_ring_ops)
			topo_add_chan(chans, (i + 1) % n, i, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
	}
}

static int ring_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
		      uint8_t *vcs)
{
	int n = t->nranks, step;

	if (t->ops == &topo_ring_uni_ops || hint == ROUTE_CW)
		step = 1;
	else if (hint == ROUTE_CCW)
		step = -1;
	else
		step = topo_ring_step(src, dst, n, src);
	return topo_walk_ring(src, dst, n, step, 0, 1, nodes, vcs, 0);
}

const struct topo_ops topo_ring_ops = {
	.name = "ring",
	.summary = "bidirectional ring of any N (N = 2: one link)",
	.nvc = 2,
	.admit = ring_admit, .build = ring_build, .route = ring_route,
};

const struct topo_ops topo_ring_uni_ops = {
	.name = "ring-uni",
	.summary = "unidirectional ring i -> i+1 of any N",
	.nvc = 2,
	.admit = ring_admit, .build = ring_build, .route = ring_route,
};
