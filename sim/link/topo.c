/* Topologies and the router. A topology is built from its parameters as a
 * list of directed channels (one per direction of each link), deduplicated and
 * sorted by (src, dst), with a CSR index of the channels leaving each node.
 * The router walks the shape's own rule from the source: rings go the short
 * way (even-ring ties at distance N/2: even sources clockwise, odd sources
 * counter-clockwise) or the forced direction; hypercubes fix the lowest
 * differing bit first; tori fix x, then y, each the short way with the same
 * parity tie rule on the source's coordinate; a switch goes rank -> switch ->
 * rank; an edge list takes, at every node, the lowest-numbered neighbour that
 * lies on a shortest path (hop count, from a breadth-first search per
 * destination). */
#include "sim/link/topo.h"

#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(g5-link-error-quark, link_error)

static void add_chan(GArray *a, int u, int v, bool to_switch, uint64_t bw, sim_time_t lat)
{
	struct topo_chan c = {
		.src = u, .dst = v, .to_switch = to_switch, .bw_bytes_per_s = bw, .lat_ps = lat,
	};

	if (u != v)
		g_array_append_val(a, c);
}

static int chan_cmp(const void *pa, const void *pb)
{
	const struct topo_chan *a = pa, *b = pb;

	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return 0;
}

/* The largest divisor of n that is <= sqrt(n). */
static int near_square(int n)
{
	int best = 1;

	for (int a = 1; (long)a * a <= n; a++)
		if (n % a == 0)
			best = a;
	return best;
}

/* The root of u's set, halving the path on the way. */
static int uf_find(int *up, int u)
{
	while (up[u] != u) {
		up[u] = up[up[u]];
		u = up[u];
	}
	return u;
}

/* Whether the edge list is a connected simple graph on 0..N-1: edges
 * between ranks in range, no self-loop, no pair twice, every rank joined to
 * rank 0. */
static bool edges_check(const struct fabric_config *cfg, GError **error)
{
	int n = cfg->nranks;

	if (cfg->nedges < 1 || !cfg->edges) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge list of %d ranks has no edges", n);
		return false;
	}
	g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autofree gint64 *keys = g_new(gint64, cfg->nedges);
	g_autofree int *up = g_new(int, (gsize)(guint)n);

	for (int u = 0; u < n; u++)
		up[u] = u;
	for (int i = 0; i < cfg->nedges; i++) {
		const struct topo_edge *e = &cfg->edges[i];

		if (e->a < 0 || e->a >= n || e->b < 0 || e->b >= n) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) names a rank outside 0..%d",
				    i, e->a, e->b, n - 1);
			return false;
		}
		if (e->a == e->b) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) is a self-loop", i, e->a, e->b);
			return false;
		}
		keys[i] = (gint64)MIN(e->a, e->b) * n + MAX(e->a, e->b);
		if (g_hash_table_contains(seen, &keys[i])) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES, "edge %d (%d-%d) repeats an earlier edge",
				    i, e->a, e->b);
			return false;
		}
		g_hash_table_add(seen, &keys[i]);
		up[uf_find(up, e->a)] = uf_find(up, e->b);
	}
	for (int u = 1; u < n; u++)
		if (uf_find(up, u) != uf_find(up, 0)) {
			g_set_error(error, LINK_ERROR, LINK_ERROR_EDGES,
				    "edge list leaves rank %d unreachable from rank 0", u);
			return false;
		}
	return true;
}

bool fabric_shape_check(const struct fabric_config *cfg, int dims_out[2], GError **error)
{
	int n = cfg->nranks;

	if (n < 2 || n > LINK_MAX_RANKS) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS, "a fabric needs 2..%d ranks, got %d",
			    LINK_MAX_RANKS, n);
		return false;
	}
	if (cfg->kind == TOPO_HYPERCUBE && (n & (n - 1))) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS,
			    "hypercube needs a power-of-two number of ranks, got %d", n);
		return false;
	}
	if (cfg->kind == TOPO_EDGES)
		return edges_check(cfg, error);
	if (cfg->kind != TOPO_TORUS)
		return true;
	int dx = cfg->dims[0], dy = cfg->dims[1];

	if (dx == 0 && dy == 0) {
		dx = near_square(n);
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
	if (dims_out) {
		dims_out[0] = dx;
		dims_out[1] = dy;
	}
	return true;
}

/* The channels of an edge list that fabric_shape_check admitted. */
static void build_edges(const struct fabric_config *cfg, GArray *a)
{
	for (int i = 0; i < cfg->nedges; i++) {
		const struct topo_edge *e = &cfg->edges[i];

		add_chan(a, e->a, e->b, false, e->bw_bytes_per_s, e->lat_ps);
		add_chan(a, e->b, e->a, false, e->bw_bytes_per_s, e->lat_ps);
	}
}

bool topo_init(struct topo *t, const struct fabric_config *cfg, GError **error)
{
	int n = cfg->nranks;

	memset(t, 0, sizeof(*t));
	t->kind = cfg->kind;
	t->nranks = n;
	t->nnodes = n;
	t->nvc = 1;
	int dims[2] = { 0, 0 };

	if (!fabric_shape_check(cfg, dims, error))
		return false;
	g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(struct topo_chan));

	switch (cfg->kind) {
	case TOPO_RING:
	case TOPO_RING_UNI:
		t->nvc = 2;
		for (int i = 0; i < n; i++) {
			add_chan(a, i, (i + 1) % n, false, 0, SIM_TIME_MAX);
			if (cfg->kind == TOPO_RING)
				add_chan(a, (i + 1) % n, i, false, 0, SIM_TIME_MAX);
		}
		break;
	case TOPO_FULLMESH:
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				add_chan(a, i, j, false, 0, SIM_TIME_MAX);
		break;
	case TOPO_HYPERCUBE:
		for (int i = 0; i < n; i++)
			for (int b = 1; b < n; b <<= 1)
				add_chan(a, i, i ^ b, false, 0, SIM_TIME_MAX);
		break;
	case TOPO_TORUS: {
		int dx = dims[0], dy = dims[1];

		t->dims[0] = dx;
		t->dims[1] = dy;
		t->nvc = 2;
		for (int y = 0; y < dy; y++)
			for (int x = 0; x < dx; x++) {
				int r = x + dx * y, rx = (x + 1) % dx + dx * y, ry = x + dx * ((y + 1) % dy);

				add_chan(a, r, rx, false, 0, SIM_TIME_MAX);
				add_chan(a, rx, r, false, 0, SIM_TIME_MAX);
				add_chan(a, r, ry, false, 0, SIM_TIME_MAX);
				add_chan(a, ry, r, false, 0, SIM_TIME_MAX);
			}
		break;
	}
	case TOPO_SWITCH:
		t->nnodes = n + 1;
		for (int i = 0; i < n; i++) {
			add_chan(a, i, n, true, 0, SIM_TIME_MAX);
			add_chan(a, n, i, true, 0, SIM_TIME_MAX);
		}
		break;
	case TOPO_EDGES:
		build_edges(cfg, a);
		break;
	default:
		g_error("topo_init: unknown topology kind %d", (int)cfg->kind);
	}

	/* Sort, then drop the duplicates that small shapes make (2-node ring,
	 * torus dimension of extent 2). */
	qsort(a->data, a->len, sizeof(struct topo_chan), chan_cmp);
	guint w = 0;

	for (guint i = 0; i < a->len; i++) {
		struct topo_chan *c = &g_array_index(a, struct topo_chan, i);

		if (w > 0 && chan_cmp(c, &g_array_index(a, struct topo_chan, w - 1)) == 0)
			continue;
		g_array_index(a, struct topo_chan, w++) = *c;
	}
	g_array_set_size(a, w);
	t->nchans = (int)a->len;
	t->chans = (struct topo_chan *)g_array_free(g_steal_pointer(&a), FALSE);
	t->out_off = g_new0(int, t->nnodes + 1);
	t->in_count = g_new0(int, t->nnodes);
	for (int i = 0; i < t->nchans; i++) {
		struct topo_chan *c = &t->chans[i];

		t->out_off[c->src + 1]++;
		c->in_index = t->in_count[c->dst]++;
	}
	for (int u = 0; u < t->nnodes; u++)
		t->out_off[u + 1] += t->out_off[u];

	if (cfg->kind == TOPO_EDGES) {
		/* Breadth-first search from every destination over the
		 * (symmetric) channel graph: the hop distances. */
		int nn = t->nnodes;
		g_autofree int *queue = g_new(int, (gsize)(guint)nn);

		t->dist = g_new(int, (gsize)nn * nn);
		for (int d = 0; d < nn; d++) {
			int *dist = &t->dist[(gsize)d * nn];
			int qh = 0, qt = 0;

			for (int u = 0; u < nn; u++)
				dist[u] = -1;
			dist[d] = 0;
			queue[qt++] = d;
			while (qh < qt) {
				int u = queue[qh++];

				for (int k = t->out_off[u]; k < t->out_off[u + 1]; k++) {
					int v = t->chans[k].dst;

					if (dist[v] < 0) {
						dist[v] = dist[u] + 1;
						queue[qt++] = v;
					}
				}
			}
			/* fabric_shape_check admitted only a connected list. */
			for (int u = 0; u < nn; u++)
				g_assert(dist[u] >= 0);
		}
	}
	return true;
}

void topo_release(struct topo *t)
{
	g_free(t->chans);
	g_free(t->out_off);
	g_free(t->in_count);
	g_free(t->dist);
	memset(t, 0, sizeof(*t));
}

int topo_chan_find(const struct topo *t, int u, int v)
{
	int lo = t->out_off[u], hi = t->out_off[u + 1];

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->chans[mid].dst < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->out_off[u + 1] && t->chans[lo].dst == v ? lo : -1;
}

/* The step (+1 or -1) that takes coordinate a to b on a ring of n the short
 * way; at an exact half (even n) even sources step +1, odd ones -1. */
static int ring_step(int a, int b, int n, int src_coord)
{
	int fwd = ((b - a) % n + n) % n;

	if (2 * fwd < n)
		return 1;
	if (2 * fwd > n)
		return -1;
	return src_coord % 2 == 0 ? 1 : -1;
}

/* Walks one ring dimension from coordinate `from` to `to` with `step`,
 * appending nodes; `node_of` maps a coordinate to its node id. Virtual
 * channel 1 after the wrap-around hop. */
static int walk_ring(int from, int to, int n, int step, int (*node_of)(int coord, int other, int dx),
		     int other, int dx, int *nodes, uint8_t *vcs, int h)
{
	bool crossed = false;

	for (int c = from; c != to;) {
		int next = ((c + step) % n + n) % n;

		vcs[h] = crossed;
		if ((step > 0 && next < c) || (step < 0 && next > c))
			crossed = true;
		nodes[++h] = node_of(next, other, dx);
		c = next;
	}
	return h;
}

static int ring_node(int coord, int other, int dx)
{
	return coord;
}

static int torus_x_node(int x, int y, int dx)
{
	return x + dx * y;
}

static int torus_y_node(int y, int x, int dx)
{
	return x + dx * y;
}

int topo_route(const struct topo *t, int src, int dst, enum route_hint hint,
	       int *nodes, uint8_t *vcs)
{
	int n = t->nranks, h = 0;

	g_assert(src >= 0 && src < n && dst >= 0 && dst < n);
	nodes[0] = src;
	if (src == dst)
		return 0;
	switch (t->kind) {
	case TOPO_RING:
	case TOPO_RING_UNI: {
		int step;

		if (t->kind == TOPO_RING_UNI || hint == ROUTE_CW)
			step = 1;
		else if (hint == ROUTE_CCW)
			step = -1;
		else
			step = ring_step(src, dst, n, src);
		return walk_ring(src, dst, n, step, ring_node, 0, 0, nodes, vcs, 0);
	}
	case TOPO_FULLMESH:
		vcs[0] = 0;
		nodes[1] = dst;
		return 1;
	case TOPO_HYPERCUBE:
		for (int u = src; u != dst; h++) {
			int diff = u ^ dst;

			u ^= diff & -diff;
			vcs[h] = 0;
			nodes[h + 1] = u;
		}
		return h;
	case TOPO_TORUS: {
		int dx = t->dims[0], dy = t->dims[1];
		int sx = src % dx, sy = src / dx, tx = dst % dx, ty = dst / dx;

		if (sx != tx)
			h = walk_ring(sx, tx, dx, ring_step(sx, tx, dx, sx), torus_x_node, sy, dx,
				      nodes, vcs, h);
		if (sy != ty)
			h = walk_ring(sy, ty, dy, ring_step(sy, ty, dy, sy), torus_y_node, tx, dx,
				      nodes, vcs, h);
		return h;
	}
	case TOPO_SWITCH:
		vcs[0] = vcs[1] = 0;
		nodes[1] = n;
		nodes[2] = dst;
		return 2;
	case TOPO_EDGES: {
		const int *dist = &t->dist[(gsize)dst * t->nnodes];

		for (int u = src; u != dst; h++) {
			int v = -1;

			for (int k = t->out_off[u]; k < t->out_off[u + 1]; k++)
				if (dist[t->chans[k].dst] == dist[u] - 1) {
					v = t->chans[k].dst;
					break;
				}
			g_assert(v >= 0);
			vcs[h] = 0;
			nodes[h + 1] = u = v;
		}
		return h;
	}
	}
	g_error("topo: unknown kind %d", (int)t->kind);
}
