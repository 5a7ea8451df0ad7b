/* The topology registry and what the plug-ins share. A topology is built
 * from its parameters as a list of directed channels (one per direction of
 * each link), deduplicated and sorted by (src, dst), with a CSR index of the
 * channels leaving each node; its own file says how it routes. Shapes routed
 * along shortest paths (edge lists) get hop distances from a breadth-first
 * search per destination rank, and at every node take a neighbour one hop
 * nearer: the lowest-numbered one, one chosen by a per-flow hash (ECMP), or
 * the destination mod their number (enum topo_routing). */
#include "sim/link/topo.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/link/topos.h"
#include "sim/util/quote.h"
#include "sim/util/spell.h"

G_DEFINE_QUARK(g5-link-error-quark, link_error)

/* Each topology adds its line here when its file exists (topos.h lists
 * them). Order is the order of "known: ..." lists. */
static const struct topo_ops *const registry[] = {
	&topo_ring_ops,
	&topo_ring_uni_ops,
	&topo_fullmesh_ops,
	&topo_hypercube_ops,
	&topo_torus_ops,
	&topo_mesh_ops,
	&topo_switch_ops,
	&topo_edges_ops,
	&topo_leafspine_ops,
	&topo_fattree_ops,
	&topo_tiers_ops,
	&topo_dragonfly_ops,
	NULL,
};

const struct topo_ops *const *topo_all(void)
{
	return registry;
}

char *topo_known_names(void)
{
	GString *g = g_string_new(NULL);

	for (const struct topo_ops *const *o = registry; *o; o++)
		g_string_append_printf(g, "%s%s", g->len ? ", " : "", (*o)->name);
	return g_string_free(g, FALSE);
}

char *topo_names_taking(enum topo_param p)
{
	GString *g = g_string_new(NULL);

	for (const struct topo_ops *const *o = registry; *o; o++)
		if ((*o)->params & p)
			g_string_append_printf(g, "%s%s", g->len ? ", " : "", (*o)->name);
	return g_string_free(g, FALSE);
}

const struct topo_ops *topo_find(const char *name, GError **error)
{
	for (const struct topo_ops *const *o = registry; *o; o++)
		if (!strcmp((*o)->name, name))
			return *o;
	g_autofree char *known = topo_known_names();
	g_autofree char *hint = spell_hint(name, known);

	g_set_error(error, LINK_ERROR, LINK_ERROR_UNKNOWN, "unknown topology '%s' (known: %s)%s",
		    quote_text(name).s, known, hint);
	return NULL;
}

const char *topo_name(const struct topo_ops *o)
{
	return o->name;
}

const char *topo_summary(const struct topo_ops *o)
{
	return o->summary;
}

bool topo_takes(const struct topo_ops *o, enum topo_param p)
{
	return (o->params & p) != 0;
}

bool topo_fixed_ranks(const struct topo_ops *o)
{
	return o->fixed_ranks;
}

/* A channel as a topology's build() appends it (topo_add_chan). */
struct chan_spec {
	int src, dst;           /* node ids */
	enum topo_tier tier;
	uint64_t bw_bytes_per_s; /* 0: its tier's */
	sim_time_t lat_ps;      /* SIM_TIME_MAX: its tier's */
};

void topo_add_chan(GArray *a, int u, int v, enum topo_tier tier, uint64_t bw, sim_time_t lat)
{
	struct chan_spec c = {
		.src = u, .dst = v, .tier = tier, .bw_bytes_per_s = bw, .lat_ps = lat,
	};

	if (u != v)
		g_array_append_val(a, c);
}

static int chan_cmp(const void *pa, const void *pb)
{
	const struct chan_spec *a = pa, *b = pb;

	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return 0;
}

static bool shape_admit(const struct fabric_config *cfg, struct topo_shape *shape, GError **error)
{
	int n = cfg->nranks;

	g_assert(cfg->topo);
	if (n < 2 || n > LINK_MAX_RANKS) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_RANKS, "a fabric needs 2..%d ranks, got %d",
			    LINK_MAX_RANKS, n);
		return false;
	}
	*shape = (struct topo_shape){ .nnodes = n };
	return cfg->topo->admit(cfg, shape, error);
}

bool fabric_shape_check(const struct fabric_config *cfg, int dims_out[LINK_MAX_DIMS],
			GError **error)
{
	struct topo_shape shape;

	if (!shape_admit(cfg, &shape, error))
		return false;
	if (dims_out && topo_takes(cfg->topo, TOPO_PARAM_DIMS))
		for (int i = 0; i < LINK_MAX_DIMS; i++)
			dims_out[i] = i < shape.ndims ? shape.dims[i] : 0;
	return true;
}

int fabric_dims_count(const struct fabric_config *cfg)
{
	int k = 0;

	while (k < LINK_MAX_DIMS && cfg->dims[k] > 0)
		k++;
	return k;
}

long fabric_dims_product(const struct fabric_config *cfg)
{
	long p = 1;

	for (int i = 0; i < fabric_dims_count(cfg); i++)
		p = MIN(p * cfg->dims[i], (long)LINK_MAX_RANKS + 1); /* no overflow */
	return p;
}

int fabric_node_ranks(const struct fabric_config *cfg)
{
	return cfg->topo && cfg->topo->node_ranks ? cfg->topo->node_ranks(cfg) : 0;
}

/* False with LINK_ERROR_MEMORY where a fabric of t's shape (nchans channels,
 * ninputs arbiter inputs, ndist hop distances) would take more memory than
 * cfg allows. */
static bool memory_check(const struct topo *t, const struct fabric_config *cfg, uint64_t nchans,
			 uint64_t ninputs, uint64_t ndist, GError **error)
{
	uint64_t need = fabric_memory_bytes(nchans, ninputs, ndist, cfg->fidelity);

	if (!cfg->max_memory_bytes || need <= cfg->max_memory_bytes)
		return true;
	g_set_error(error, LINK_ERROR, LINK_ERROR_MEMORY,
		    "a %s of %d ranks has %" G_GUINT64_FORMAT " channels%s, which need about %.3g GB "
		    "of memory to simulate, more than the %.3g GB it may take: fewer ranks, or a "
		    "topology with fewer links%s",
		    t->ops->name, t->nranks, nchans,
		    ninputs && cfg->fidelity == LINK_FIDELITY_PACKET ? " and its switches' arbiters "
								       "an input per port pair" : "",
		    (double)need / 1e9, (double)cfg->max_memory_bytes / 1e9,
		    ninputs && cfg->fidelity == LINK_FIDELITY_PACKET ? " (or --fidelity flow)" : "");
	return false;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Whether the routes between every two ranks (t's route, with its vc_rank)
 * are free of deadlock: their channel dependency graph, each channel x
 * virtual channel waiting on the next one of a route, has no cycle (Kahn's
 * peeling). The number of channels x virtual channels left in cycles goes
 * to *cyclic. */
static bool deps_acyclic(const struct topo *t, int *cyclic)
{
	int nv = 2 * t->nchans;
	g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_autofree int *nodes = g_new(int, (gsize)t->nnodes + 1);
	g_autofree uint8_t *vcs = g_new(uint8_t, (gsize)t->nnodes);

	for (int s = 0; s < t->nranks; s++)
		for (int d = 0; d < t->nranks; d++) {
			int hops = topo_route(t, s, d, ROUTE_SHORTEST, nodes, vcs);
			int prev = -1;

			for (int h = 0; h < hops; h++) {
				int v = 2 * topo_chan_find(t, nodes[h], nodes[h + 1]) + vcs[h];
				uint64_t dep = (uint64_t)(uint32_t)prev << 32 | (uint32_t)v;

				if (prev >= 0)
					g_array_append_val(deps, dep);
				prev = v;
			}
		}
	if (deps->len)
		qsort(deps->data, deps->len, sizeof(uint64_t), u64_cmp);
	g_autofree int *indeg = g_new0(int, (gsize)nv);
	g_autofree int *first = g_new0(int, (gsize)nv + 1); /* deps of v: [first[v], first[v+1]) */
	g_autofree int *queue = g_new(int, (gsize)nv);
	guint w = 0;

	for (guint i = 0; i < deps->len; i++) {
		uint64_t e = g_array_index(deps, uint64_t, i);

		if (w && g_array_index(deps, uint64_t, w - 1) == e)
			continue;
		g_array_index(deps, uint64_t, w++) = e;
		indeg[(uint32_t)e]++;
		first[(e >> 32) + 1]++;
	}
	for (int v = 0; v < nv; v++)
		first[v + 1] += first[v];
	int qt = 0;

	for (int v = 0; v < nv; v++)
		if (!indeg[v])
			queue[qt++] = v;
	for (int qh = 0; qh < qt; qh++)
		for (int k = first[queue[qh]]; k < first[queue[qh] + 1]; k++)
			if (!--indeg[(uint32_t)g_array_index(deps, uint64_t, k)])
				queue[qt++] = (int)(uint32_t)g_array_index(deps, uint64_t, k);
	*cyclic = nv - qt;
	return qt == nv;
}

/* The nodes whose breadth-first orders vc_assign tries, at most: each try
 * routes every pair of ranks. */
#define VC_ORDER_ROOTS 64

/* vc_rank: the channels in the order of a breadth-first walk from `root`
 * (by their source's place, then their destination's). */
static void vc_order_from(struct topo *t, int root, int *ord, int *queue)
{
	int qt = 0;

	for (int u = 0; u < t->nnodes; u++)
		ord[u] = -1;
	ord[root] = 0;
	queue[qt++] = root;
	for (int qh = 0; qh < qt; qh++)
		for (int k = t->out_off[queue[qh]]; k < t->out_off[queue[qh] + 1]; k++)
			if (ord[t->chans[k].dst] < 0) {
				ord[t->chans[k].dst] = qt;
				queue[qt++] = t->chans[k].dst;
			}
	for (int c = 0; c < t->nchans; c++)
		t->vc_rank[c] = ord[t->chans[c].src] * t->nnodes + ord[t->chans[c].dst];
}

/* Where t's shortest routes on one virtual channel could deadlock, takes a
 * second one: a route moves to it at its first hop that goes down an order
 * of the channels (vc_rank), the order being that of a breadth-first walk
 * from one node after another (the first VC_ORDER_ROOTS), until one leaves
 * no cycle. Where none does, the order that leaves the fewest channels in
 * cycles stays, and routes_cyclic says so. False with `error` set where
 * the second channel's arbiters would need more memory than the run may
 * take. */
static bool vc_assign(struct topo *t, const struct fabric_config *cfg, uint64_t ndist,
		      GError **error)
{
	int cyclic = 0, best = -1, best_cyclic = INT_MAX;

	if (deps_acyclic(t, &cyclic))
		return true;
	g_autofree int *ord = g_new(int, (gsize)t->nnodes);
	g_autofree int *queue = g_new(int, (gsize)t->nnodes);

	t->vc_rank = g_new(int, (gsize)t->nchans);
	t->nvc = 2;
	for (int root = 0; root < MIN(t->nnodes, VC_ORDER_ROOTS) && best_cyclic; root++) {
		vc_order_from(t, root, ord, queue);
		deps_acyclic(t, &cyclic);
		if (cyclic < best_cyclic) {
			best_cyclic = cyclic;
			best = root;
		}
	}
	vc_order_from(t, best, ord, queue);
	t->routes_cyclic = best_cyclic > 0;
	uint64_t inputs = 0;

	for (int i = 0; i < t->nchans; i++)
		if (t->chans[i].src >= t->nranks)
			inputs += 1 + 2 * (uint64_t)t->in_count[t->chans[i].src];
	return memory_check(t, cfg, (uint64_t)t->nchans, inputs, ndist, error);
}

bool topo_init(struct topo *t, const struct fabric_config *cfg, uint64_t seed, GError **error)
{
	struct topo_shape shape;

	memset(t, 0, sizeof(*t));
	if (!shape_admit(cfg, &shape, error))
		return false;
	t->ops = cfg->topo;
	t->nranks = cfg->nranks;
	t->nnodes = shape.nnodes;
	memcpy(t->dims, shape.dims, sizeof(t->dims));
	t->ndims = shape.ndims;
	t->nvc = t->ops->nvc;
	t->seed = seed;
	t->routing = cfg->routing ? (enum topo_routing)cfg->routing
		   : t->ops->routing ? t->ops->routing : TOPO_ROUTING_LOWEST;
	g_assert(t->nvc == 1 || t->nvc == 2);
	if (shape.nchans && !memory_check(t, cfg, shape.nchans, 0, 0, error))
		return false;
	g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(struct chan_spec));

	t->ops->build(t, cfg, a);

	/* Sort, then drop the duplicates that small shapes make (2-node ring,
	 * torus dimension of extent 2). */
	qsort(a->data, a->len, sizeof(struct chan_spec), chan_cmp);
	guint w = 0;
	bool own = false;

	for (guint i = 0; i < a->len; i++) {
		struct chan_spec *c = &g_array_index(a, struct chan_spec, i);

		g_assert(c->src >= 0 && c->src < t->nnodes && c->dst >= 0 && c->dst < t->nnodes);
		if (w > 0 && chan_cmp(c, &g_array_index(a, struct chan_spec, w - 1)) == 0)
			continue;
		own |= c->bw_bytes_per_s || c->lat_ps != SIM_TIME_MAX;
		g_array_index(a, struct chan_spec, w++) = *c;
	}
	t->nchans = (int)w;
	t->chans = g_new(struct topo_chan, MAX(w, 1));
	t->own = own ? g_new(struct topo_chan_own, w) : NULL;
	for (guint i = 0; i < w; i++) {
		const struct chan_spec *c = &g_array_index(a, struct chan_spec, i);

		t->chans[i] = (struct topo_chan){ .src = c->src, .dst = c->dst, .tier = (uint8_t)c->tier };
		if (own)
			t->own[i] = (struct topo_chan_own){ c->bw_bytes_per_s, c->lat_ps };
	}
	g_clear_pointer(&a, g_array_unref);
	t->out_off = g_new0(int, t->nnodes + 1);
	t->in_count = g_new0(int, t->nnodes);
	for (int i = 0; i < t->nchans; i++) {
		struct topo_chan *c = &t->chans[i];

		t->out_off[c->src + 1]++;
		t->in_count[c->dst]++;
	}
	for (int u = 0; u < t->nnodes; u++)
		t->out_off[u + 1] += t->out_off[u];
	/* the arbiters' inputs of the channels leaving a switch, and the
	 * table of hop distances (fabric_memory_bytes) */
	uint64_t inputs = 0;

	for (int i = 0; i < t->nchans; i++)
		if (t->chans[i].src >= t->nranks)
			inputs += 1 + (uint64_t)t->nvc * (uint64_t)t->in_count[t->chans[i].src];
	uint64_t ndist = t->ops->route == topo_route_shortest ? (uint64_t)t->nranks * (uint64_t)t->nnodes : 0;

	if (!memory_check(t, cfg, (uint64_t)t->nchans, inputs, ndist, error)) {
		topo_release(t);
		return false;
	}
	if (t->ops->route == topo_route_shortest && !topo_bfs(t))
		g_error("topo %s: admitted a shape with an unreachable node", t->ops->name);
	if (t->ops->vc_order && !vc_assign(t, cfg, ndist, error)) {
		topo_release(t);
		return false;
	}
	return true;
}

void topo_release(struct topo *t)
{
	g_free(t->chans);
	g_free(t->own);
	g_free(t->out_off);
	g_free(t->in_count);
	g_free(t->dist);
	g_free(t->label);
	g_free(t->vc_rank);
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

char *topo_node_name(const struct topo *t, int u)
{
	if (u < t->nranks)
		return g_strdup_printf("%d", u);
	if (t->ops->node_name)
		return t->ops->node_name(t, u);
	if (t->label)
		return g_strdup_printf("sw%d", t->label[u]);
	if (t->nnodes == t->nranks + 1)
		return g_strdup("sw");
	return g_strdup_printf("sw%d", u - t->nranks);
}

int topo_route(const struct topo *t, int src, int dst, enum route_hint hint,
	       int *nodes, uint8_t *vcs)
{
	g_assert(src >= 0 && src < t->nranks && dst >= 0 && dst < t->nranks);
	nodes[0] = src;
	if (src == dst)
		return 0;
	return t->ops->route(t, src, dst, hint, nodes, vcs);
}

int topo_near_square(int n)
{
	int best = 1;

	for (int a = 1; (long)a * a <= n; a++)
		if (n % a == 0)
			best = a;
	return best;
}

double topo_oversub(const struct fabric_config *cfg)
{
	return cfg->oversub > 0 ? cfg->oversub : 1.0;
}

bool topo_oversub_check(const struct fabric_config *cfg, const char *kind, GError **error)
{
	double r = topo_oversub(cfg);

	if (r >= 1 && r <= TOPO_MAX_OVERSUB)
		return true;
	g_set_error(error, LINK_ERROR, LINK_ERROR_PARAMS,
		    "%s oversubscription must be between 1 and %g, got %g", kind, TOPO_MAX_OVERSUB,
		    cfg->oversub);
	return false;
}

uint64_t topo_uplink_bw(const struct fabric_config *cfg, int down, uint64_t down_bw, int spines)
{
	double up = (double)down_bw * down / (spines * topo_oversub(cfg));

	return up < 1 ? 1 : (uint64_t)llround(up);
}

int topo_ring_step(int a, int b, int n, int src_coord)
{
	int fwd = ((b - a) % n + n) % n;

	if (2 * fwd < n)
		return 1;
	if (2 * fwd > n)
		return -1;
	return src_coord % 2 == 0 ? 1 : -1;
}

int topo_walk_ring(int from, int to, int n, int step, int base, int stride, int *nodes,
		   uint8_t *vcs, int h)
{
	bool crossed = false;

	for (int c = from; c != to;) {
		int next = ((c + step) % n + n) % n;

		vcs[h] = crossed;
		if ((step > 0 && next < c) || (step < 0 && next > c))
			crossed = true;
		nodes[++h] = base + next * stride;
		c = next;
	}
	return h;
}

bool topo_bfs(struct topo *t)
{
	int nn = t->nnodes;
	g_autofree int *queue = g_new(int, (gsize)(guint)nn);

	t->dist = g_new(int, (gsize)t->nranks * nn);
	for (int d = 0; d < t->nranks; d++) {
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
		if (qt < nn)
			return false;
	}
	return true;
}

/* ECMP's hash: splitmix64's finaliser over the seed and the flow's ends,
 * mixed with the node deciding, so that successive choices are independent. */
static uint64_t flow_hash(uint64_t seed, int src, int dst, int node)
{
	uint64_t z = seed ^ ((uint64_t)(uint32_t)src << 40 | (uint64_t)(uint32_t)dst << 20 |
			     (uint64_t)(uint32_t)node);

	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int topo_pick(const struct topo *t, int src, int dst, int node, int n, int dmodk_key)
{
	g_assert(n > 0);
	switch (t->routing) {
	case TOPO_ROUTING_DMODK:
		return dmodk_key % n;
	case TOPO_ROUTING_ECMP:
		return (int)(flow_hash(t->seed, src, dst, node) % (uint64_t)n);
	default:
		return 0;
	}
}

int topo_route_shortest(const struct topo *t, int src, int dst, enum route_hint hint,
			int *nodes, uint8_t *vcs)
{
	const int *dist = &t->dist[(gsize)dst * t->nnodes];
	int h = 0;

	(void)hint;
	int prev = -1;

	for (int u = src; u != dst; h++) {
		int v = -1, nearer = 0, pick = 0;

		if (t->routing != TOPO_ROUTING_LOWEST) {
			for (int k = t->out_off[u]; k < t->out_off[u + 1]; k++)
				nearer += dist[t->chans[k].dst] == dist[u] - 1;
			pick = topo_pick(t, src, dst, u, nearer, dst);
		}
		for (int k = t->out_off[u]; k < t->out_off[u + 1]; k++)
			if (dist[t->chans[k].dst] == dist[u] - 1 && pick-- == 0) {
				v = t->chans[k].dst;
				/* down the order (vc_rank): the second virtual
				 * channel from here on */
				vcs[h] = t->vc_rank && h &&
					 (vcs[h - 1] || t->vc_rank[k] < t->vc_rank[prev]);
				prev = k;
				break;
			}
		g_assert(v >= 0);
		nodes[h + 1] = u = v;
	}
	return h;
}
