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
 * callback runs once per packet delivered to the destination's memory, and
 * the call for the last packet has done = true (n packets: n calls).
 *
 * Serialisation of a packet takes exactly
 *   ceil((payload + header) x 1e12 / bw_bytes_per_s) picoseconds,
 * computed in integers (no floating point, no overflow at any size).
 *
 * Timing model (all exact, integer picoseconds):
 *  - a channel sends one packet at a time; a packet that starts at t is fully
 *    received at t + serialisation + lat_ps (store-and-forward: a hop starts
 *    only after the packet has arrived whole);
 *  - a packet needs a credit of its channel (per virtual channel, see below)
 *    to be sent the first time; the receive slot is freed when the packet
 *    leaves the buffer (starts on its next channel, or is delivered to
 *    memory) and the sender sees the credit credit_return_ps later. The
 *    credit round trip of a single hop is thus serialisation + lat_ps +
 *    credit_return_ps, and a stream runs at
 *    min(bw x payload / (payload + header), credits x payload / round trip);
 *  - Go-Back-N: at most gbn_window unacknowledged packets; the receiver
 *    accepts packets in sequence only; ACKs (cumulative) and NAKs travel back
 *    out of band in lat_ps and are never lost. A lost packet is gone: the
 *    receiver NAKs the first out-of-sequence packet after a gap (once per
 *    gap), and the sender replays from the first unacknowledged packet on a
 *    NAK or when that packet has waited gbn_timeout_ps (one timer per
 *    channel). Replays need no credit; gbn_timeout_ps should exceed the
 *    round trip serialisation + 2 x lat_ps, or replays are spurious;
 *  - memory side: a rate shared by the node's ports. A packet from memory
 *    may start once its node's injection clock is within the slack (a
 *    largest packet's time at the inject rate for each port of the node
 *    but one) of now, and advances the clock by payload / inject rate from
 *    the later of the two; a packet is delivered once the ejection clock is
 *    within its slack (likewise, by incoming ports), which it advances by
 *    payload / eject rate. Ports that take a packet at the same time so all
 *    go while their sum stays within the rate. Headers do not touch memory;
 *  - arbitration: a channel serves its inputs (its node's memory and each
 *    incoming channel) round-robin per packet; each input is FIFO, and the
 *    messages a node sends on one channel go in the order of fabric_send;
 *  - virtual channels: on rings and tori each channel has two virtual
 *    channels of `credits` slots each; a packet moves to the second after
 *    crossing the dateline (the wrap-around link of its ring or torus
 *    dimension), so store-and-forward with finite credits cannot deadlock
 *    there. Hypercube (dimension order), full-mesh, switch, leaf-spine and
 *    tiers (up-down) routes have no cyclic dependency. An edge list may: fabric_in_flight() tells a caller
 *    that the run ended with messages undelivered.
 *
 * Events: EV_TX (the wire is free: pick the next packet) and EV_ARRIVE per
 * packet and hop when nothing is lost; ACKs and credits are computed, not
 * scheduled, unless the sender waits on them. A delivery delayed by the
 * ejection rate adds one event; losses add NAK/timer events.
 *
 * Channels are sim components named "link A->B" (a non-rank node by its
 * fabric_node_name: "sw" for the switch, "sw8", "leaf0", "spine1", "nsw0"),
 * whose names key their RNG streams: one fabric per sim. The sim borrows
 * those names, so after fabric_free the sim may not run or register more
 * components (free it next, or free the fabric after it).
 *
 * Lower layers know nothing of this one; PAXI builds on it. */
#ifndef G5_SIM_LINK_LINK_H
#define G5_SIM_LINK_LINK_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/core/limits.h"
#include "sim/core/sim.h"

/* Limits of the fabric's parameters, one per key: the platform key table
 * (sim/config.c) and every flag use these, and fabric_new refuses beyond them. */
#define LINK_MAX_RANKS G5_MAX_RANKS         /* topology.ranks: 2..; as a schedule's */
#define LINK_MAX_NODES (2 * G5_MAX_RANKS)   /* ranks and non-rank nodes (switches) */
#define LINK_MAX_DIMS 8                     /* torus and mesh dimensions */
#define LINK_MAX_HEADER_BYTES (1u << 20)    /* link.header */
#define LINK_MAX_PAYLOAD_BYTES (1u << 30)   /* link.packet: 1.. */
#define LINK_MAX_ERROR_RATE 0.5             /* link.error_rate: 0.. */

/* Error domain of fabric_new and fabric_shape_check. */
#define LINK_ERROR (link_error_quark())
GQuark link_error_quark(void);
enum link_error_code {
	LINK_ERROR_RANKS,  /* a rank count the shape does not admit */
	LINK_ERROR_DIMS,   /* torus dims that do not make the rank count */
	LINK_ERROR_EDGES,  /* an edge list that is not a connected simple graph */
	LINK_ERROR_PARAMS, /* a link parameter out of range */
	LINK_ERROR_UNKNOWN, /* an unknown topology name (topo_find) */
	LINK_ERROR_MEMORY, /* a fabric larger than max_memory_bytes holds */
};

/* A topology: a plug-in of sim/link (topo.h) named by its ops table. The
 * registry (topo.c) lists them: ring, ring-uni, fullmesh, hypercube, torus,
 * mesh, switch, edges, leafspine, fattree, tiers, dragonfly. */
struct topo_ops;

/* The parameters a topology reads beyond the rank count (topo_takes). */
enum topo_param {
	TOPO_PARAM_DIMS = 1u << 0,  /* fabric_config.dims */
	TOPO_PARAM_EDGES = 1u << 1, /* fabric_config.edges, .switches */
	TOPO_PARAM_CLOS = 1u << 2,  /* fabric_config.leaves, .spines */
	TOPO_PARAM_ROUTING = 1u << 3, /* fabric_config.routing */
	TOPO_PARAM_PORTS = 1u << 4, /* fabric_config.ports */
	TOPO_PARAM_TIERS = 1u << 5, /* fabric_config.node_ranks */
	TOPO_PARAM_SCALEOUT = 1u << 6, /* fabric_config.scaleout_link */
	TOPO_PARAM_OVERSUB = 1u << 7, /* fabric_config.oversub */
	TOPO_PARAM_DRAGONFLY = 1u << 8, /* fabric_config.groups, .group_routers,
					 * .router_ranks */
};

/* Among equal shortest paths (edge lists and the shapes routed like them):
 * at every node the next hop is one of the neighbours one hop nearer the
 * destination, in node order, chosen by */
enum topo_routing {
	TOPO_ROUTING_DEFAULT = 0, /* the topology's own choice (topo_*.c) */
	TOPO_ROUTING_LOWEST,      /* the first (lowest-numbered) */
	TOPO_ROUTING_ECMP,        /* a hash of (run seed, src, dst, node): per flow,
				   * deterministic, spread over the equal paths */
	TOPO_ROUTING_DMODK,       /* the destination rank mod their number */
};

/* The topology called `name`, or NULL with error set (PLATFORM-like
 * message: "unknown topology 'x' (known: ...); did you mean 'y'?"). */
const struct topo_ops *topo_find(const char *name, GError **error);
/* The registered topologies in registry order, NULL-terminated. */
const struct topo_ops *const *topo_all(void);
/* Their names, ", "-separated, in registry order (newly allocated). */
char *topo_known_names(void);
/* The names of those reading parameter p, ", "-separated (newly allocated). */
char *topo_names_taking(enum topo_param p);
const char *topo_name(const struct topo_ops *o);
/* What it is and what it admits, one line. */
const char *topo_summary(const struct topo_ops *o);
bool topo_takes(const struct topo_ops *o, enum topo_param p);
/* Whether its parameters fix the rank count (an edge list). */
bool topo_fixed_ranks(const struct topo_ops *o);

/* Parameters of one channel (one direction of a link). */
struct link_params {
	uint64_t bw_bytes_per_s;     /* > 0: wire rate, headers included */
	sim_time_t lat_ps;           /* propagation latency */
	uint32_t header_bytes;       /* per packet, <= LINK_MAX_HEADER_BYTES */
	uint32_t max_payload_bytes;  /* 1..LINK_MAX_PAYLOAD_BYTES: payload per packet */
	uint32_t credits;            /* receive-buffer slots in packets; 0: unlimited */
	sim_time_t credit_return_ps; /* receiver frees a slot -> sender sees it */
	uint32_t gbn_window;         /* > 0: unacknowledged packets in flight */
	sim_time_t gbn_timeout_ps;   /* > 0: replay when no ACK/NAK arrives in time */
	double error_rate;           /* 0..LINK_MAX_ERROR_RATE: probability a packet is corrupted */
};

/* Fills `p` with the defaults for the seed platform: 450 GB/s, 100 ns
 * propagation, 32-byte header, 4096-byte payload (payload throughput
 * 450 x 4096 / 4128 = 446.5 GB/s; a full packet serialises in 9174 ps),
 * credit return 100 ns, 64 credits (the credit round trip of ~209 ns holds
 * ~23 packets), Go-Back-N window 128, timeout 2 us, no errors. */
void link_params_default(struct link_params *p);

/* ceil(bytes x 1e12 / bw_bytes_per_s) picoseconds, exactly, for any bytes;
 * SIM_TIME_END when that reaches the end of the clock (scheduling it then
 * overflows the run: sim_schedule). bw > 0. Inline: flow fidelity times
 * most messages with it. */
static inline sim_time_t link_wire_ps(uint64_t bytes, uint64_t bw_bytes_per_s)
{
	g_assert(bw_bytes_per_s > 0);
	if (bytes <= UINT64_MAX / 1000000000000u) {
		uint64_t n = bytes * 1000000000000u;

		return MIN(n / bw_bytes_per_s + (n % bw_bytes_per_s != 0), SIM_TIME_END);
	}
	unsigned __int128 n = (unsigned __int128)bytes * 1000000000000u;
	unsigned __int128 q = n / bw_bytes_per_s + (n % bw_bytes_per_s != 0);

	return q >= SIM_TIME_END ? SIM_TIME_END : (sim_time_t)q;
}

/* The serialisation of a whole message of `bytes` on one channel of `p`: the
 * sum over its packets (bytes = 0: one header-only packet); SIM_TIME_END at
 * most, like link_wire_ps. */
sim_time_t link_message_ps(const struct link_params *p, uint64_t bytes);

/* The memory side of every node. 0 means unlimited. */
struct node_params {
	uint64_t inject_bytes_per_s; /* shared by all ports: data leaving memory */
	uint64_t eject_bytes_per_s;  /* shared by all ports: data entering memory */
};

struct topo_edge {
	int a, b;                    /* node ids; a bidirectional link */
	uint64_t bw_bytes_per_s;     /* 0: the default link's */
	sim_time_t lat_ps;           /* SIM_TIME_MAX: the default link's */
};

struct fabric_config {
	const struct topo_ops *topo; /* borrowed: the registry's (topo_find) */
	int nranks;                  /* ranks (a switch node is not a rank) */
	int dims[LINK_MAX_DIMS];     /* torus, mesh: the extents, the first zero ends
				      * them; all zero: the most nearly square 2-D */
	struct link_params link;     /* every channel, unless an edge overrides */
	struct link_params switch_link; /* channels that touch a switch node (on a
					  * tiered shape: the node tier's);
					  * bw_bytes_per_s = 0: use `link` */
	struct link_params scaleout_link; /* TOPO_PARAM_SCALEOUT: the scale-out tier's
					  * channels (NIC ports, leaf-spine links; a
					  * dragonfly's global links);
					  * bw_bytes_per_s = 0: use `link` */
	struct node_params node;
	const struct topo_edge *edges; /* TOPO_PARAM_EDGES: borrowed */
	int nedges;
	const int *switches;         /* TOPO_PARAM_EDGES: borrowed; the node ids of the
				      * edge list that forward but run no ranks */
	int nswitches;
	int leaves, spines;          /* TOPO_PARAM_CLOS: 0: the topology's default */
	double oversub;              /* TOPO_PARAM_OVERSUB: downlink / uplink capacity of
				      * a leaf, >= 1; 0: 1 */
	int node_ranks;              /* TOPO_PARAM_TIERS: ranks per node (on one node
				      * switch); 0: the topology's default */
	int groups, group_routers, router_ranks; /* TOPO_PARAM_DRAGONFLY: 0: the
				      * topology's default (topo_dragonfly.c) */
	uint32_t routing;            /* TOPO_PARAM_ROUTING: enum topo_routing */
	const uint64_t *ports;       /* TOPO_PARAM_PORTS: borrowed, nports bandwidths */
	int nports;
	uint32_t fidelity;           /* enum link_fidelity */
	uint32_t flow_arbiter;       /* enum link_flow_arbiter: flow fidelity's sharing */
	uint64_t max_memory_bytes;   /* not a platform key: what the fabric may take,
				      * about (fabric_memory_bytes); 0: no bound */
};

/* What a fabric takes of memory, about, at a fidelity: per channel (nchans)
 * at packet fidelity its state (512 bytes, 64-byte aligned), its name and its
 * place in the topology's list, FABRIC_BYTES_PER_CHAN; at flow fidelity, which
 * keeps no packet state, its place in the topology's list and its flow-level
 * state (resource, line of waiting messages, statistics; its parameters
 * once per distinct set), FABRIC_BYTES_PER_FLOW_CHAN (peak RSS measured on
 * full meshes of 1024 and 2048 ranks: 300 and 291 bytes a channel); at
 * packet fidelity, the arbiter's inputs of the channels that forward
 * (ninputs: an input per incoming channel and virtual channel of their
 * node, FABRIC_BYTES_PER_INPUT each, made when a
 * packet first waits there: counted for the channels leaving a switch,
 * which forward every packet, so a switch of N ports has N^2; a rank
 * forwards only on multi-hop shapes, whose ranks have few links); and for a
 * shape routed along shortest paths, its table of hop distances (ndist
 * entries, a rank by a node, 4 bytes each). Measured on full meshes of 1024
 * and 2048 ranks (1 M and 4 M channels) at packet fidelity: 617 and 865
 * bytes a channel. A full mesh has N (N - 1) channels: 7.5 GB at flow
 * fidelity for 4096 ranks, where a ring has 2 N; a switch of 16384 ranks has 2^28 inputs, 6.4
 * GB at packet fidelity. */
#define FABRIC_BYTES_PER_CHAN 640
#define FABRIC_BYTES_PER_FLOW_CHAN 448
#define FABRIC_BYTES_PER_INPUT 24
uint64_t fabric_memory_bytes(uint64_t nchans, uint64_t ninputs, uint64_t ndist, uint32_t fidelity);

/* How the fabric moves a message: packet by packet, exactly as above (the
 * reference), or as one flow sharing its route's bandwidth max-min fairly
 * with the others (sim/link/flow.h gives that model; docs/model.md). */
enum link_fidelity {
	LINK_FIDELITY_PACKET = 0,
	LINK_FIDELITY_FLOW = 1,
};

/* How flow fidelity shares a channel among the flows of a component with a
 * route of more than one hop (sim/link/flow.h): max-min per flow, each
 * channel shared round robin among the inputs of its arbiter first, or that
 * round robin with the channels' receive buffers run as a fluid. */
enum link_flow_arbiter {
	LINK_FLOW_MAXMIN = 0,
	LINK_FLOW_ROUND_ROBIN = 1,
	LINK_FLOW_BUFFERS = 2,
};

/* Route choice for a message. */
enum route_hint {
	ROUTE_SHORTEST = 0, /* the router's deterministic shortest path */
	ROUTE_CW,           /* ring: clockwise (i -> i+1 -> ...) */
	ROUTE_CCW,          /* ring: counter-clockwise */
};
/* Routing rules. Ring: shortest; at distance exactly N/2 (even N) even
 * sources go clockwise, odd sources counter-clockwise; CW/CCW force the
 * direction (a unidirectional ring has only CW: any hint goes clockwise).
 * Hypercube: dimension order, lowest differing bit first. Torus (any number
 * of dimensions): dimension order, dims[0] first, each the short way, ties by
 * the parity of the source's coordinate in that dimension. Mesh: dimension
 * order, straight. Dragonfly: minimal, local-global-local (topo_dragonfly.c). Switch: rank -> switch -> rank. Tiers: within a node through its
 * node switch, across nodes through the source's rail (topo_tiers.c). Edge
 * list: fewest hops; at each node the lowest-numbered neighbour on a shortest
 * path (ranks number before switches: see topo_edges.c). On every shape but
 * the rings, CW/CCW mean ROUTE_SHORTEST. */

struct fabric;

/* The rules on a fabric's shape, checked once here for every caller (the
 * platform file, the flags, fabric_new): 2..LINK_MAX_RANKS ranks; a
 * hypercube of 2^k; a torus or mesh of dims[0] x ... = N (up to
 * LINK_MAX_DIMS extents) or, with no dims,
 * of a non-prime N (the most nearly square A x B, A <= B, A > 1). Writes the
 * torus's dims to dims_out (may be NULL); an edge list that is a connected
 * simple graph on its ranks and switches. False with error set (LINK_ERROR RANKS, DIMS
 * or EDGES) otherwise. */
bool fabric_shape_check(const struct fabric_config *cfg, int dims_out[LINK_MAX_DIMS],
			GError **error);

/* The number of extents cfg->dims gives (those before the first zero) and
 * their product (1 when none; LINK_MAX_RANKS + 1 when larger). */
int fabric_dims_count(const struct fabric_config *cfg);
long fabric_dims_product(const struct fabric_config *cfg);

/* The ranks of one node of a tiered shape (kind tiers: node_ranks, or its
 * default for the rank count), 0 for a flat one. cfg's shape is admitted. */
int fabric_node_ranks(const struct fabric_config *cfg);

/* Called at the destination for each delivered packet of a message: `bytes`
 * is the payload delivered so far (in order), `done` is true on the call for
 * the last packet. */
typedef void (*fabric_deliver_fn)(void *user, uint64_t bytes, bool done);

/* Flow fidelity: how long the receiver of a message can wait for its next
 * piece without delaying anything, in ps from now (0: it needs every piece
 * as soon as it lands). See fabric_send_pieces. */
typedef sim_time_t (*fabric_slack_fn)(void *user);

/* Flow fidelity: whether the receiver of a message may take the rest of
 * it now, before it lands, as nothing it does with those bytes can get
 * ahead of their landing (fabric_set_early). The bytes it has not been
 * given began to land at `since` (<= now); the next land from now on at
 * `rate` (wire bytes per ps on the first channel), the last at `until`. */
typedef bool (*fabric_early_fn)(void *user, double rate, sim_time_t since, sim_time_t until);

/* Builds the topology and its channels as components of `s`. Returns NULL with
 * `error` set when the shape is not admitted (e.g. "hypercube needs a
 * power-of-two number of ranks, got 6") or a link parameter is invalid.
 * Admitted: what fabric_shape_check admits (ring of any N, N = 2: one
 * bidirectional link; switch: N ranks plus a switch node N); edge list:
 * ranks in range, no self-loop, no repeated pair, connected; link
 * parameters within the LINK_MAX_* limits. */
struct fabric *fabric_new(struct sim *s, const struct fabric_config *cfg, GError **error);
/* The name of node u as channel names give it: a rank's number, "sw" for
 * a switch (newly allocated). */
char *fabric_node_name(const struct fabric *f, int u);
void fabric_free(struct fabric *f);

int fabric_ranks(const struct fabric *f);

/* Sends `bytes` from rank src to rank dst (src != dst) along the route the
 * hint selects; `deliver` is called as described above. Returns a message id
 * (unique per fabric, from 1). */
uint64_t fabric_send(struct fabric *f, int src, int dst, uint64_t bytes,
		     enum route_hint hint, fabric_deliver_fn deliver, void *user);

/* As fabric_send; at flow fidelity the delivery callback runs at piece
 * boundaries instead of per packet: once `first_bytes` have been delivered,
 * then every `piece_bytes` more, and on the last byte (piece_bytes = 0:
 * only first_bytes and the last byte). With `slack` (NULL: none), a piece
 * after the first is a multiple of piece_bytes sized so that it lands within
 * two thirds of what slack(user) says the receiver can wait (sim/link/flow.h).
 * At packet fidelity the pieces are ignored: per packet, as fabric_send. */
uint64_t fabric_send_pieces(struct fabric *f, int src, int dst, uint64_t bytes,
			    enum route_hint hint, uint64_t first_bytes, uint64_t piece_bytes,
			    fabric_slack_fn slack, fabric_deliver_fn deliver, void *user);

/* Flow fidelity only: as fabric_send_pieces, for a message that may not
 * send before `at` (> now), sent now where it would be alone on its route
 * from then on, so that its start costs no event (flow_send_at); returns
 * its id, or 0, changing nothing, where it would not be alone. */
uint64_t fabric_send_pieces_at(struct fabric *f, int src, int dst, uint64_t bytes,
			       enum route_hint hint, uint64_t first_bytes, uint64_t piece_bytes,
			       fabric_slack_fn slack, fabric_deliver_fn deliver, void *user,
			       sim_time_t at);

/* Flow fidelity: whether fabric_send_pieces_at would send a message src ->
 * dst of some bytes along the route of `hint` now, ahead of `at`; false at
 * packet fidelity. */
bool fabric_may_begin_at(struct fabric *f, int src, int dst, enum route_hint hint, sim_time_t at);

/* Flow fidelity only: as fabric_send, but the callback of the last byte
 * runs `late_ps` after that byte lands (a receiver that would only
 * schedule its own event that much later: one event instead of two); the
 * per-pair delivery order counts the landing, not the callback. */
uint64_t fabric_send_late(struct fabric *f, int src, int dst, uint64_t bytes,
			  enum route_hint hint, sim_time_t late_ps, fabric_deliver_fn deliver,
			  void *user);

/* Flow fidelity: grows by `more` bytes the last message sent from src to
 * dst with `user` along the route of `hint` (fabric_send_pieces), if it
 * still waits behind what its node's memory sent before it on the route's
 * first channel, as if it had been sent that large, or if it still sends
 * with nothing waiting behind it, as if the bytes followed it at once (its
 * deliveries report the bytes of both); returns false, changing nothing,
 * when it does neither, and always at packet fidelity. */
bool fabric_append(struct fabric *f, int src, int dst, enum route_hint hint, uint64_t more,
		   void *user);

/* Flow fidelity: the largest packet payload of the first channel of the
 * route src -> dst, the packets a message on that route is cut into (src !=
 * dst). */
uint32_t fabric_packet_payload(struct fabric *f, int src, int dst, enum route_hint hint);

/* Flow fidelity: the time from now until the first channel of the route src
 * -> dst has sent what its node's memory has queued on it (at the rates of
 * now); 0 when it is idle, and always 0 at packet fidelity. */
sim_time_t fabric_drain_ps(struct fabric *f, int src, int dst, enum route_hint hint);

/* Flow fidelity: the rate (wire bytes per ps) at which channel `chan` sends
 * its message from memory now; 0 when it is idle, or for -1. */
double fabric_channel_rate(const struct fabric *f, int chan);

/* Flow fidelity: the messages sent with a slack function
 * (fabric_send_pieces) ask `early` at each grown piece that lands whether
 * their receiver takes the rest of the message at once (flow.h); NULL:
 * never.
 * Nothing at packet fidelity. */
void fabric_set_early(struct fabric *f, fabric_early_fn early);

/* Flow fidelity: the first channel of the route src -> dst (src != dst),
 * whose drain fabric_channel_drain_ps gives; -1 at packet fidelity. */
int fabric_first_channel(struct fabric *f, int src, int dst, enum route_hint hint);

/* fabric_drain_ps of a route whose first channel is `chan`
 * (fabric_first_channel); 0 for -1. */
sim_time_t fabric_channel_drain_ps(const struct fabric *f, int chan);

/* The fidelity the fabric was built with (enum link_fidelity). */
enum link_fidelity fabric_fidelity(const struct fabric *f);

/* The path src -> dst as a sequence of nodes, src first, dst last; a switch
 * node has an id >= nranks. Returns the number of hops (nodes - 1). Each
 * source's last two short paths are cached (routes are pure, topo.h), hence
 * the non-const fabric. */
int fabric_route(struct fabric *f, int src, int dst, enum route_hint hint,
		 GArray *nodes /* of int, cleared first */);

/* Topology facts, for tests and reports. The degree is the number of
 * channels leaving a node (its ports): 2 on a ring of N >= 3, 1 on a 2-node
 * or unidirectional ring. */
int fabric_degree(const struct fabric *f, int rank);   /* links at a rank */
int fabric_diameter(const struct fabric *f);           /* max hops over rank pairs */
/* Whether some routes' channels can wait on each other in a cycle, which
 * no order of two virtual channels broke (an edge list; topo.h
 * routes_cyclic): a run on f can deadlock. */
bool fabric_routes_cyclic(const struct fabric *f);

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

/* The channel from node src to node dst (switch: nranks), or -1. Channels
 * are numbered in (src, dst) order. */
int fabric_channel_find(const struct fabric *f, int src, int dst);

/* The parameters channel i runs with (defaults and edge overrides applied). */
void fabric_channel_params(const struct fabric *f, int i, struct link_params *out);

/* Messages sent and not yet fully delivered. */
uint64_t fabric_in_flight(const struct fabric *f);

/* Flow fidelity: payload of the messages whose route a rank forwards (a
 * rank, not a switch, between its first and last channel): the traffic
 * whose time flow fidelity does not check well against packet fidelity
 * once such messages outgrow the receive buffers (docs/scale.md);
 * *payload: that of all messages sent; *largest: the largest message a
 * rank forwards. All 0 at packet fidelity. */
uint64_t fabric_rank_forwarded_bytes(const struct fabric *f, uint64_t *payload, uint64_t *largest);

/* Flow fidelity: payload of the messages whose route crosses two switches
 * or more (a leaf, then a spine, ...): where a message's rate downstream
 * is below its first link's, flow fidelity holds that link at the lower
 * rate and the packet fabric's buffers do not (docs/scale.md, "Flow
 * fidelity slow on leaf-spine and fat-tree"). 0 at packet fidelity. */
uint64_t fabric_switched_bytes(const struct fabric *f);

/* What flow fidelity's round-robin sharing (flow.arbiter) has done: the
 * components it shared, its rounds of progressive filling, the components
 * whose rounds cycled (their rates the mean over the cycle) and those
 * stopped at the most rounds without settling. */
struct flow_rr_stats {
	uint64_t shares, fills, cycles, unsettled;
};

/* flow_rr_stats of the fabric's flows; all 0 at packet fidelity. */
void fabric_flow_rr_stats(const struct fabric *f, struct flow_rr_stats *out);

/* What max-min sharing's walks have done (flow.c, reshare): the walks,
 * their fills (more than one where something left out joined after a
 * fill), the flows they held, the resources they left out to the end, and
 * the resources and the flows left out that joined after a fill. */
struct flow_walk_stats {
	uint64_t reshares, fills, flows, left_out, joins, flow_joins;
};

/* flow_walk_stats of the fabric's flows; all 0 at packet fidelity. */
void fabric_flow_walk_stats(const struct fabric *f, struct flow_walk_stats *out);

/* Valid inside a delivery callback: how many packet transmissions of the
 * message being delivered were accepted only after a Go-Back-N replay (summed
 * over its hops, up to this packet). Used to attribute delay to
 * retransmission. */
uint32_t fabric_delivering_replayed(const struct fabric *f);

/* Called at the start of every transmission on a channel (replays too):
 * channel index, start time and serialisation time. For traces. */
typedef void (*fabric_tracer_fn)(void *user, int chan, sim_time_t start_ps, sim_time_t wire_ps);
void fabric_set_tracer(struct fabric *f, fabric_tracer_fn fn, void *user);

#endif
