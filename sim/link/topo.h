/* sim/link/topo — the shape of a fabric: nodes, directed channels and the
 * router, and the plug-in interface every topology implements. Private to
 * sim/link (fabric.c builds on it; callers use link.h, which names a
 * topology by its ops table only).
 *
 * A topology is one file sim/link/topo_NAME.c exporting one const
 * `struct topo_ops` (declared in topos.h) and one line in the registry of
 * topo.c. The ops admit a rank count and parameters, build the channels,
 * route, and name the non-rank nodes.
 *
 * Nodes 0..nranks-1 are ranks; nodes nranks..nnodes-1 forward but run no
 * ranks (switches, NICs: the switch of TOPO "switch" is node nranks).
 * Channels are sorted by (src, dst) and there is at most one per ordered
 * node pair, so a channel is named by its two ends.
 *
 * Routes are computed at the source, whole, so that tie rules may depend on
 * the source (ring parity) without the intermediate nodes having to know it.
 * Each hop also gets a virtual channel: on rings and tori a packet moves from
 * virtual channel 0 to 1 after it has crossed the dateline (the wrap-around
 * link of the ring or of the torus dimension it travels in), which breaks the
 * cyclic buffer dependencies that would otherwise let credit-based
 * store-and-forward deadlock. Other shapes use virtual channel 0 only. */
#ifndef G5_SIM_LINK_TOPO_H
#define G5_SIM_LINK_TOPO_H

#include <glib.h>
#include <stdint.h>

#include "sim/link/link.h"

/* Which link parameters of the fabric_config a channel takes. */
enum topo_tier {
	TOPO_TIER_LINK,         /* rank to rank: link */
	TOPO_TIER_SWITCH,       /* touches a non-rank node: switch_link */
	TOPO_TIER_SCALEOUT,     /* a tiered shape's scale-out network: scaleout_link */
};

/* A channel, 12 bytes: most shapes give none a bandwidth or latency of its
 * own, so those are apart (struct topo_chan_own). Its index among the
 * channels entering dst is its place among them in chans' order. */
struct topo_chan {
	int src, dst;           /* node ids */
	uint8_t tier;           /* enum topo_tier: its parameters */
};
G_STATIC_ASSERT(sizeof(struct topo_chan) == 12);

/* A channel's own bandwidth and latency, as topo_add_chan was given them. */
struct topo_chan_own {
	uint64_t bw_bytes_per_s; /* 0: its tier's */
	sim_time_t lat_ps;      /* SIM_TIME_MAX: its tier's */
};

/* What admit() learns from the parameters. */
struct topo_shape {
	int dims[LINK_MAX_DIMS]; /* torus, mesh: the extents (ndims of them);
				 * tiers: ranks per node, leaves; dragonfly:
				 * groups, routers per group, ranks per router */
	int ndims;              /* torus, mesh: extents in dims */
	int nnodes;             /* ranks plus non-rank nodes */
	uint64_t nchans;        /* set by a shape whose channels grow faster than its
				 * nodes (a full mesh): its channels, so that one too
				 * large for memory is refused before it is built; 0:
				 * a few per node */
};

struct topo {
	const struct topo_ops *ops; /* borrowed: the registry's */
	int nranks, nnodes;     /* nnodes = nranks + non-rank nodes */
	int dims[LINK_MAX_DIMS]; /* torus, mesh: extents, rank = x0 + dims[0] x (x1 +
				 * dims[1] x (...)); tiers: ranks per node, leaves;
				 * dragonfly: groups, routers per group, ranks per
				 * router */
	int ndims;              /* torus, mesh: extents in dims (>= 1) */
	int nvc;                /* virtual channels per channel: 1 or 2 */
	struct topo_chan *chans; /* owned, sorted by (src, dst) */
	struct topo_chan_own *own; /* owned, per channel as chans, where some channel
				 * has a bandwidth or latency of its own; else NULL */
	int nchans;
	int *out_off;           /* owned, nnodes + 1: chans[out_off[u] .. out_off[u+1]) leave u */
	int *in_count;          /* owned, nnodes: channels entering each node */
	int *dist;              /* owned, shortest-path shapes only (topo_bfs):
				 * dist[d * nnodes + u] = hops u -> rank d */
	int *label;             /* owned or NULL, nnodes: the number a non-rank node
				 * goes by in names (its id in the edge list) */
	enum topo_routing routing; /* shortest-path shapes: the choice among equal
				 * paths, never TOPO_ROUTING_DEFAULT */
	uint64_t seed;          /* ECMP: keys the per-flow hash */
	int *vc_rank;           /* owned or NULL, nchans: where one virtual channel
				 * could deadlock (topo_ops.vc_order), each channel's
				 * place in an order; a route takes virtual channel 1
				 * from its first hop that goes down it */
	bool routes_cyclic;     /* even so, some routes' channels can wait on each
				 * other in a cycle: a run can deadlock */
};

/* A topology plug-in. Every function gets a configuration whose `topo` is
 * this table and whose rank count is in 2..LINK_MAX_RANKS. */
struct topo_ops {
	const char *name;       /* its topology.kind */
	const char *summary;    /* one line: what it is and what it admits */
	uint32_t params;        /* enum topo_param: the parameters it reads */
	bool fixed_ranks;       /* its parameters fix the rank count */
	int nvc;                /* virtual channels per channel: 1 or 2 */
	bool vc_order;          /* shortest-path shapes of any graph: where the
				 * routes' channels can wait on each other in a
				 * cycle, a second virtual channel is taken by an
				 * order of the channels that breaks every cycle,
				 * or as many as one can (topo.vc_rank) */
	enum topo_routing routing; /* what TOPO_ROUTING_DEFAULT means (shortest-path
				    * shapes); 0: TOPO_ROUTING_LOWEST */
	/* Admits the rank count and parameters of cfg, filling `shape`
	 * (nnodes is preset to the rank count). False with error set
	 * (LINK_ERROR RANKS, DIMS or EDGES) when the shape is not admitted. */
	bool (*admit)(const struct fabric_config *cfg, struct topo_shape *shape, GError **error);
	/* Appends the directed channels (topo_add_chan) of an admitted shape;
	 * t's ops, nranks, nnodes and dims are set. May fill t->label. */
	void (*build)(struct topo *t, const struct fabric_config *cfg, GArray *chans);
	/* The route src -> dst (ranks, src != dst), as topo_route. */
	int (*route)(const struct topo *t, int src, int dst, enum route_hint hint, int *nodes,
		     uint8_t *vcs);
	/* The name of non-rank node u (newly allocated); NULL: topo_node_name's. */
	char *(*node_name)(const struct topo *t, int u);
	/* The ranks of one node of an admitted shape (fabric_node_ranks); NULL:
	 * a flat shape, 0. */
	int (*node_ranks)(const struct fabric_config *cfg);
};

/* Builds the shape described by cfg (its link parameters are checked by the
 * caller) with `seed` for ECMP. Returns false with `error` set when the shape
 * is not admitted. */
bool topo_init(struct topo *t, const struct fabric_config *cfg, uint64_t seed, GError **error);
void topo_release(struct topo *t);

/* The channel from u to v, or -1 when they are not neighbours. */
int topo_chan_find(const struct topo *t, int u, int v);

/* Writes the route src -> dst: nodes[0] = src ... nodes[hops] = dst and, for
 * hop k (nodes[k] -> nodes[k+1]), its virtual channel vcs[k]. `nodes` must
 * hold nnodes + 1 entries and `vcs` nnodes. Returns the number of hops. */
int topo_route(const struct topo *t, int src, int dst, enum route_hint hint,
	       int *nodes, uint8_t *vcs);

/* The name of node u in channel names: a rank's number; "sw" for the one
 * non-rank node of a shape that has one; otherwise "sw" and its label (or
 * its index among the non-rank nodes). Newly allocated. */
char *topo_node_name(const struct topo *t, int u);

/* ---- helpers for the plug-ins ---- */

/* Appends the channel u -> v (nothing when u = v) to the list a topology's
 * build() is given, with its tier and, where not 0 and SIM_TIME_MAX, its
 * own bandwidth and latency (struct topo_chan_own). */
void topo_add_chan(GArray *chans, int u, int v, enum topo_tier tier, uint64_t bw, sim_time_t lat);

/* The largest divisor of n that is <= sqrt(n): a torus's first dimension,
 * a leaf-spine's default leaves. */
int topo_near_square(int n);

/* A leaf-spine's oversubscription (fabric_config.oversub, 0: 1), and
 * whether it is admitted (1..TOPO_MAX_OVERSUB; false with LINK_ERROR PARAMS
 * "KIND oversubscription must be ..." set otherwise). */
#define TOPO_MAX_OVERSUB 64.0
double topo_oversub(const struct fabric_config *cfg);
bool topo_oversub_check(const struct fabric_config *cfg, const char *kind, GError **error);

/* The bandwidth of each of a leaf's `spines` uplinks that gives the
 * oversubscription of cfg with `down` downlinks of down_bw each:
 * down x down_bw / (spines x ratio), rounded, at least 1 B/s. */
uint64_t topo_uplink_bw(const struct fabric_config *cfg, int down, uint64_t down_bw, int spines);

/* The step (+1 or -1) that takes coordinate a to b on a ring of n the short
 * way; at an exact half (even n) even sources (src_coord) step +1, odd -1. */
int topo_ring_step(int a, int b, int n, int src_coord);

/* Walks one ring dimension from coordinate `from` to `to` with `step`,
 * appending nodes from nodes[h + 1]; node (coord) = base + coord x stride.
 * Virtual channel 1 after the wrap-around hop. Returns the new hop count. */
int topo_walk_ring(int from, int to, int n, int step, int base, int stride, int *nodes,
		   uint8_t *vcs, int h);

/* Computes t->dist by a breadth-first search from every rank over the
 * (symmetric) channel graph; false when some node is unreachable. */
bool topo_bfs(struct topo *t);

/* Which of n equal next hops (n >= 1) the flow src -> dst takes at `node`
 * under t->routing: the first (lowest), dmodk_key mod n (dmodk), or a hash
 * of the run's seed, src, dst and node mod n (ecmp). */
int topo_pick(const struct topo *t, int src, int dst, int node, int n, int dmodk_key);

/* The route along shortest paths (t->dist): at every node the next hop is
 * one of the neighbours one hop nearer, chosen by t->routing (topo_pick,
 * dmodk on the destination rank). */
int topo_route_shortest(const struct topo *t, int src, int dst, enum route_hint hint,
			int *nodes, uint8_t *vcs);

#endif
