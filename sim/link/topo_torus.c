/* k-ary n-cubes: the torus (wrap-around in every dimension) and the mesh (a
 * torus without the wrap-around links), of dims[0] x dims[1] x ... = N ranks,
 * 1..LINK_MAX_DIMS dimensions; rank = x0 + dims[0] x (x1 + dims[1] x (x2 +
 * ...)). Without dims both take the most nearly square 2-D A x B (A <= B,
 * A > 1) of a non-prime N. A dimension of extent 1 has no links; one of
 * extent 2 has one link per pair (the torus's two directions coincide).
 *
 * Routes are dimension-order: fix x0, then x1, ... each in turn. On the torus
 * each dimension goes the short way round its ring, an exact half (even
 * extent) clockwise from an even source coordinate in that dimension and
 * counter-clockwise from an odd one (the ring's parity rule); on the mesh it
 * goes straight. Deadlock freedom: the mesh's dimension-order routes have no
 * cyclic channel dependency, so one virtual channel. On the torus every ring
 * of every dimension has a dateline, its wrap-around link: a packet travels
 * on virtual channel 0 in a dimension until it crosses that dimension's
 * dateline, then on 1, and starts again on 0 in the next dimension (the
 * dimension order already orders the dimensions), so two virtual channels
 * serve any number of dimensions. The 2-D torus is the N = 2 case of this and
 * routes exactly as it always has (x, then y). */
#include <string.h>

#include "sim/link/topo.h"
#include "sim/link/topos.h"

/* "4x4x4" of the n extents of d (static buffer of the caller). */
static void dims_text(const int *d, int n, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && at < len; i++)
		at += (size_t)g_snprintf(buf + at, len - at, "%s%d", i ? "x" : "", d[i]);
}

static bool cube_admit(const struct fabric_config *cfg, struct topo_shape *shape, bool wrap,
		       GError **error)
{
	const char *kind = wrap ? "torus" : "mesh";
	int n = cfg->nranks, k = fabric_dims_count(cfg);

	if (k == 0) {
		int dx = topo_near_square(n);

		if (dx == 1) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
				    "%s of %d ranks needs explicit dims: %d is prime "
				    "(dims 1x%d make it a %s)", kind, n, n, n, wrap ? "ring" : "line");
			return false;
		}
		shape->dims[0] = dx;
		shape->dims[1] = n / dx;
		shape->ndims = 2;
		return true;
	}
	if (fabric_dims_product(cfg) != n) {
		char buf[128];

		dims_text(cfg->dims, k, buf, sizeof(buf));
		g_set_error(error, LINK_ERROR, LINK_ERROR_DIMS, "%s dims %s do not make %d ranks", kind,
			    buf, n);
		return false;
	}
	memcpy(shape->dims, cfg->dims, sizeof(int) * (size_t)k);
	shape->ndims = k;
	return true;
}

static bool torus_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	return cube_admit(cfg, shape, true, error);
}

static bool mesh_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	return cube_admit(cfg, shape, false, error);
}

/* Both directions of the link from every rank to its +1 neighbour in every
 * dimension (wrapping on the torus). */
static void cube_build(struct topo *t, GArray *chans, bool wrap)
{
	for (int r = 0; r < t->nranks; r++) {
		int stride = 1;

		for (int i = 0; i < t->ndims; i++) {
			int d = t->dims[i], x = r / stride % d;

			if (x + 1 < d || wrap) {
				int v = r + ((x + 1) % d - x) * stride;

				topo_add_chan(chans, r, v, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
				topo_add_chan(chans, v, r, TOPO_TIER_LINK, 0, SIM_TIME_MAX);
			}
			stride *= d;
		}
	}
}

static void torus_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	(void)cfg;
	cube_build(t, chans, true);
}

static void mesh_build(struct topo *t, const struct fabric_config *cfg, GArray *chans)
{
	(void)cfg;
	cube_build(t, chans, false);
}

static int cube_route(const struct topo *t, int src, int dst, int *nodes, uint8_t *vcs, bool wrap)
{
	int h = 0, cur = src, stride = 1;

	for (int i = 0; i < t->ndims; i++) {
		int d = t->dims[i], a = cur / stride % d, b = dst / stride % d;
		int base = cur - a * stride;

		if (a != b) {
			if (wrap) {
				h = topo_walk_ring(a, b, d, topo_ring_step(a, b, d, a), base, stride,
						   nodes, vcs, h);
			} else {
				for (int c = a; c != b; c += a < b ? 1 : -1) {
					vcs[h] = 0;
					nodes[++h] = base + (c + (a < b ? 1 : -1)) * stride;
				}
			}
			cur = base + b * stride;
		}
		stride *= d;
	}
	g_assert(cur == dst && nodes[h] == dst);
	return h;
}

static int torus_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
		       uint8_t *vcs)
{
	(void)hint;
	return cube_route(t, src, dst, nodes, vcs, true);
}

static int mesh_route(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
		      uint8_t *vcs)
{
	(void)hint;
	return cube_route(t, src, dst, nodes, vcs, false);
}

const struct topo_ops topo_torus_ops = {
	.name = "torus",
	.summary = "torus of 1..8 dims (default: 2-D, most nearly square), dimension-order routes, "
		   "dateline virtual channels",
	.params = TOPO_PARAM_DIMS,
	.nvc = 2,
	.admit = torus_admit, .build = torus_build, .route = torus_route,
};

const struct topo_ops topo_mesh_ops = {
	.name = "mesh",
	.summary = "mesh of 1..8 dims (a torus without wrap-around links), dimension-order routes",
	.params = TOPO_PARAM_DIMS,
	.nvc = 1,
	.admit = mesh_admit, .build = mesh_build, .route = mesh_route,
};
