/* sim/link — the fabric: channels, credits, Go-Back-N, topologies, routing.
 *
 * A channel is one direction of a link. It serialises packets at its wire
 * bandwidth (header bytes count against it), delays them by its propagation
 * latency, holds them back when the receiver has no credit left (credits come
 * back a credit-return delay after the receiver frees its buffer), and
 * recovers lost packets with link-level Go-Back-N (sequence numbers, window,
 * cumulative ACK, NAK or timeout, replay from the first unacknowledged packet)
 * under a packet error rate drawn from the channel's own RNG stream.
 *
 * A node has an injection and an ejection bandwidth shared by all its ports:
 * rate caps on what it sends from and delivers to its memory, not extra
 * pipeline stages. Forwarded packets (store-and-forward at intermediate nodes)
 * do not touch the memory side.
 *
 * A message of B bytes is cut into packets of at most max_payload bytes
 * (B = 0: one header-only packet). Packets to non-neighbours are stored and
 * forwarded per packet at every hop and queue for the channels on their path,
 * so contention is real. Packets of one message arrive in order; the delivery
 * callback runs once per packet delivered to the destination's memory and
 * once more, with done = true, when the last one has arrived.
 *
 * Serialisation of a packet takes exactly
 *   ceil((payload + header) x 1e12 / bw_bytes_per_s) picoseconds,
 * computed in integers (no floating point, no overflow at any size).
 *
 * Lower layers know nothing of this one; PAXI builds on it. */
#ifndef G5_SIM_LINK_LINK_H
#define G5_SIM_LINK_LINK_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/core/sim.h"

enum topo_kind {
	TOPO_RING,      /* bidirectional ring; N = 2: one bidirectional link */
	TOPO_RING_UNI,  /* unidirectional ring: i -> i+1 only */
	TOPO_FULLMESH,
	TOPO_HYPERCUBE, /* N = 2^k */
	TOPO_TORUS,     /* 2D, dims[0] x dims[1] = N, wrap-around in both */
	TOPO_SWITCH,    /* star: every rank has one link to a switch node */
	TOPO_EDGES,     /* explicit edge list */
};

/* Parameters of one channel (one direction of a link). */
struct link_params {
	uint64_t bw_bytes_per_s;     /* > 0: wire rate, headers included */
	sim_time_t lat_ps;           /* propagation latency */
	uint32_t header_bytes;       /* per packet */
	uint32_t max_payload_bytes;  /* > 0: payload per packet */
	uint32_t credits;            /* receive-buffer slots in packets; 0: unlimited */
	sim_time_t credit_return_ps; /* receiver frees a slot -> sender sees it */
	uint32_t gbn_window;         /* > 0: unacknowledged packets in flight */
	sim_time_t gbn_timeout_ps;   /* > 0: replay when no ACK/NAK arrives in time */
	double error_rate;           /* 0 <= p < 1: probability a packet is corrupted */
};

/* The memory side of every node. 0 means unlimited. */
struct node_params {
	uint64_t inject_bytes_per_s; /* shared by all ports: data leaving memory */
	uint64_t eject_bytes_per_s;  /* shared by all ports: data entering memory */
};

struct topo_edge {
	int a, b;                    /* ranks; a bidirectional link */
	uint64_t bw_bytes_per_s;     /* 0: the default link's */
	sim_time_t lat_ps;           /* SIM_TIME_MAX: the default link's */
};

struct fabric_config {
	enum topo_kind kind;
	int nranks;                  /* ranks (a switch node is not a rank) */
	int dims[2];                 /* torus only; {0, 0}: most nearly square */
	struct link_params link;     /* every channel, unless an edge overrides */
	struct link_params switch_link; /* rank<->switch channels (TOPO_SWITCH) */
	struct node_params node;
	const struct topo_edge *edges; /* TOPO_EDGES: borrowed */
	int nedges;
};

/* Route choice for a message. */
enum route_hint {
	ROUTE_SHORTEST = 0, /* the router's deterministic shortest path */
	ROUTE_CW,           /* ring: clockwise (i -> i+1 -> ...) */
	ROUTE_CCW,          /* ring: counter-clockwise */
};

struct fabric;

/* Called at the destination for each delivered packet of a message: `bytes`
 * is the payload delivered so far (in order), `done` is true on the call for
 * the last packet. */
typedef void (*fabric_deliver_fn)(void *user, uint64_t bytes, bool done);

/* Builds the topology and its channels as components of `s`. Returns NULL with
 * `error` set when the shape is not admitted (e.g. "hypercube needs a power of
 * two ranks, got 6"). */
struct fabric *fabric_new(struct sim *s, const struct fabric_config *cfg, GError **error);
void fabric_free(struct fabric *f);

int fabric_ranks(const struct fabric *f);

/* Sends `bytes` from rank src to rank dst (src != dst) along the route the
 * hint selects; `deliver` is called as described above. Returns a message id
 * (unique per fabric, from 1). */
uint64_t fabric_send(struct fabric *f, int src, int dst, uint64_t bytes,
		     enum route_hint hint, fabric_deliver_fn deliver, void *user);

/* The path src -> dst as a sequence of nodes, src first, dst last; a switch
 * node has an id >= nranks. Returns the number of hops (nodes - 1). */
int fabric_route(const struct fabric *f, int src, int dst, enum route_hint hint,
		 GArray *nodes /* of int, cleared first */);

/* Topology facts, for tests and reports. */
int fabric_degree(const struct fabric *f, int rank);   /* links at a rank */
int fabric_diameter(const struct fabric *f);           /* max hops over rank pairs */

/* Per-channel statistics. */
struct channel_stats {
	int src, dst;               /* node ids (switch: >= nranks) */
	uint64_t payload_bytes;     /* delivered payload, first transmissions */
	uint64_t wire_bytes;        /* everything serialised, headers and replays */
	uint64_t packets;           /* delivered */
	uint64_t retransmitted;     /* packets sent again by Go-Back-N */
	uint64_t lost;              /* packets corrupted on the wire */
	sim_time_t busy_ps;         /* time spent serialising */
	uint64_t hops_histogram[8]; /* payload bytes by the message's total hop count (7: >= 7) */
};
int fabric_channels(const struct fabric *f);
void fabric_channel_stats(const struct fabric *f, int i, struct channel_stats *out);

#endif
