/* sim/link/topo — the shape of a fabric: nodes, directed channels and the
 * router. Private to sim/link (fabric.c builds on it; callers use link.h).
 *
 * Nodes 0..nranks-1 are ranks; a switch (TOPO_SWITCH) is node nranks.
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

struct topo_chan {
	int src, dst;           /* node ids */
	bool to_switch;         /* rank<->switch channel: switch_link params */
	uint64_t bw_bytes_per_s; /* 0: the default link's */
	sim_time_t lat_ps;      /* SIM_TIME_MAX: the default link's */
	int in_index;           /* its index among the channels entering dst */
};

struct topo {
	enum topo_kind kind;
	int nranks, nnodes;     /* nnodes = nranks (+ 1 for a switch) */
	int dims[2];            /* torus: x extent, y extent; rank = x + dims[0] * y */
	int nvc;                /* virtual channels per channel: 1 or 2 */
	struct topo_chan *chans; /* owned, sorted by (src, dst) */
	int nchans;
	int *out_off;           /* owned, nnodes + 1: chans[out_off[u] .. out_off[u+1]) leave u */
	int *in_count;          /* owned, nnodes: channels entering each node */
	int *dist;              /* owned, TOPO_EDGES only: dist[d * nnodes + u] = hops u -> d */
};

/* Builds the shape described by cfg (its link parameters are checked by the
 * caller). Returns false with `error` set when the shape is not admitted. */
bool topo_init(struct topo *t, const struct fabric_config *cfg, GError **error);
void topo_release(struct topo *t);

/* The channel from u to v, or -1 when they are not neighbours. */
int topo_chan_find(const struct topo *t, int u, int v);

/* Writes the route src -> dst: nodes[0] = src ... nodes[hops] = dst and, for
 * hop k (nodes[k] -> nodes[k+1]), its virtual channel vcs[k]. `nodes` must
 * hold nnodes + 1 entries and `vcs` nnodes. Returns the number of hops. */
int topo_route(const struct topo *t, int src, int dst, enum route_hint hint,
	       int *nodes, uint8_t *vcs);

#endif
