/* 2D torus of dims[0] x dims[1] = N ranks (rank = x + dims[0] x y), wrap-
 * around in both dimensions; dims {0, 0} take the most nearly square
 * A x B (A <= B, A > 1) of a non-prime N. Routes fix x, then y, each the
 * short way with the ring's parity tie rule on the source's coordinate; two
 * virtual channels with a dateline per dimension, as on the ring. */
#include "sim/link/topo.h"
#include "sim/link/topos.h"

static bool torus_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	int n = cfg->nranks, dx = cfg->dims[0], dy = cfg->dims[1];

	if (dx == 0 && dy == 0) {
		dx = topo_near_square(n);
		dy = n / dx;
		if (dx == 1) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
				    "torus of %d ranks needs explicit dims: %d is prime "
				    "(dims 1x%d make it a ring)", n, n, n);
			return false;
		}
	}
	if (dx < 1 || dy < 1 || (long)dx * dy != n) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_DIMS, "torus dims %dx%d do not make %d ranks",
			    dx, dy, n);
		return false;
	}
	shape->dims[0] = dx;
	shape->dims[1] = dy;
	return true;
}

static void torus_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	int dx = t->dims[0], dy = t->dims[1];

	(void)cfg;
	for (int y = 0; y < dy; y++)
		for (int x = 0; x < dx; x++) {
			int r = x + dx * y, rx = (x + 1) % dx + dx * y, ry = x + dx * ((y + 1) % dy);

			topo_add_chan(chans, r, rx, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
			topo_add_chan(chans, rx, r, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
			topo_add_chan(chans, r, ry, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
			topo_add_chan(chans, ry, r, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
		}
}

static int torus_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
		       uint8_t *vcs)
{
	int dx = t->dims[0], dy = t->dims[1], h = 0;
	int sx = src % dx, sy = src / dx, tx = dst % dx, ty = dst / dx;

	(void)hint;
	if (sx != tx)
		h = topo_walk_ring(sx, tx, dx, topo_ring_step(sx, tx, dx, sx), dx * sy, 1, nodes,
				   vcs, h);
	if (sy != ty)
		h = topo_walk_ring(sy, ty, dy, topo_ring_step(sy, ty, dy, sy), tx, dx, nodes, vcs, h);
	return h;
}

const struct topo_ops topo_torus_ops = {
	.name = "torus",
	.summary = "2D torus dims[0] x dims[1], x-then-y routes",
	.params = TOPO_PARAM_DIMS,
	.nvc = 2,
	.admit = torus_admit, .build = torus_build, .route = torus_route,
};
