/* The fabric at flow level: messages as flows sharing resources max-min
 * fairly (flow.h gives the model).
 *
 * Resources are numbered: channels 0..nchans-1, then each rank's injection
 * side, then each rank's ejection side (only those with a finite rate carry
 * flows). A flow is either waiting in its first channel's FIFO of messages
 * from memory, active (sending: it sits in the flow list of every resource
 * it crosses and has one pending event: FL_PROGRESS at its next piece
 * boundary or its last byte, or, for a boundary that lands while it still
 * sends (ahead), FL_ARRIVE when that boundary lands), or sent (only its
 * delivery events remain). A header-only flow that starts beside others
 * sends unshared: on no resource, at its route's full rate, with its
 * event at its end (flow.h). A header-only flow that starts alone with
 * nothing behind it, or a flow heading for its last byte alone with nothing
 * behind it, is a ghost: it has no pending event but its delivery (its
 * end of sending is known), and stays on its resources until it is
 * delivered or settle() retires it (its end has passed) or makes it an
 * ordinary active flow (something needs its resources before its end); so
 * a ghost never shares a resource. A flow begun ahead (flow_send_at) is
 * active from now with its position at its start, t_pos > now, alone on
 * its resources (or it is unbegun first), and, until then, invisible to
 * the drain and rate its channel reports; one unbegun waits, unsized, as
 * its channel's `later` for FL_START at its start, where it enters the
 * line. A flow parked (flow_send_at behind a message of its route that
 * sends) is its channel's `later` with no event: it begins ahead when that
 * message's end is timed (end_unseen), or when it finishes (start_waiting),
 * and a message sent on the channel first puts it in line if it is due,
 * else gives it FL_START.
 *
 * A flow is sized (its weights, tail, memory sides and channel statistics)
 * when it leaves its channel's line, when its size is final: a waiting flow
 * may grow (flow_append) and keeps only its wire bytes on its first channel
 * (for the line's drain time) until then. An active flow that grows is
 * sized again (grow_active), its wire bytes sent so far kept.
 *
 * Rates change only when a flow becomes active or finishes sending. Then
 * reshare() walks the connected component of the flows that share a
 * resource with it, brings each one's position up to now at its old rate,
 * and refills their rates by progressive filling: raise every unfrozen
 * flow's rate together until a resource is full, freeze the flows on it,
 * repeat. Under max-min the walk takes only what the change can reach (a
 * flow beyond a resource with room, or slower than another on a full one,
 * is held elsewhere and keeps its rate), and what it left out joins where
 * the new rates would need it (reshare), so the rates are those of the
 * whole component's fill. A flow whose rate did
 * not change keeps its pending event (its boundary falls at the same
 * time); the others are rescheduled.
 * A component with a route of more than one hop is shared by rr_share
 * instead: per-input shares of each channel as well as the resources
 * (flow.h), rounds of progressive filling to a fixed point, or, where the
 * rounds cycle, the mean of the cycle's allocations.
 * Two cases skip the walk, with the same result: a flow that starts alone on
 * every resource it crosses takes the least cap / weight of them (what
 * progressive filling gives a component of one), and a flow that finishes
 * and leaves its resources empty changes no other rate.
 *
 * Memory is linear in what talks: the per-pair delivery order (pair_last)
 * is kept only for the (src, dst) pairs that have sent, found through a
 * 2-entry cache per source and a hash table behind it.
 *
 * Events: FL_PROGRESS (a piece boundary has been sent), FL_DELIVER (it
 * has arrived, one tail later), FL_ARRIVE (an ahead boundary has
 * arrived: delivered, and the next one chosen) and FL_START (an unbegun
 * flow's start). A delivery carries what its receiver reads, not the flow,
 * so a flow goes back to the store's free list once it has sent its last
 * byte; a ghost, at its delivery, or once past its end where nothing can
 * read it any more (retire_spent: a header-only ghost of one hop, which is
 * then as if it had left its channel, or one a message begun ahead took
 * over, which unbegin then no longer brings back). */
#include "sim/link/flow.h"

#include <math.h>
#include <string.h>

#include "sim/link/link.h"
#include "sim/util/pool.h"

enum { FL_PROGRESS = 1, FL_DELIVER, FL_ARRIVE, FL_START, FL_BUF_TICK, FL_RELEASE, FL_LINE };

/* The receivers' functions a flow network tells apart (flow_net.deliver):
 * PAXI and the tests have a few each. */
enum { FLOW_DELIVER_FNS = 16 }; /* flow.deliver's 4 bits */

/* rr_share: virtual channels an arbiter's inputs are told apart by, the
 * most rounds to its fixed point, the rounds it looks back for a cycle,
 * and the largest relative change of a rate that ends it */
enum { FLOW_VCS = 4, RR_ROUNDS = 64, RR_HISTORY = 9 };
#define RR_TOLERANCE 1e-12

/* buf_share: steps per buffer's drain time, steps per window (a tick) */
enum { BUF_STEPS_PER_FILL = 16, BUF_WINDOW = 16 };

/* mem_slack's margin, relative to the side's rate: above the rounding of a
 * sum of thousands of terms */
#define MEM_SLACK_MARGIN 1e-9

/* reshare's test of a resource full at the rates of now (and of one that
 * new rates overfill), relative to its capacity: above the rounding of a
 * sum of thousands of terms */
#define SAT_MARGIN 1e-9

/* progressive filling scans its constraints until it has seen this many
 * per member, then keeps them in a heap (fill_next) */
enum { FILL_SCAN_PER_MEMBER = 4 };

enum { VR_RES, VR_SUB };

/* A constraint of rr_share: a resource (channel or memory side, its
 * capacity) or a channel's share for one input of its arbiter (sub). */
struct vres {
	double cap, used, wsum;
	double wsum0;      /* the weights of its members */
	double demand;     /* sub: what its input asks in this round */
	uint32_t nfree;
	uint32_t m0, m1;   /* its members: by[m0..m1) */
	int32_t next_sub;  /* resource: its first sub; sub: the next of its channel */
	int32_t in;        /* sub: the input's channel, -1 the node's memory */
	uint8_t kind, vc;  /* sub: the input's virtual channel */
};

struct vmem {
	uint32_t v, f;     /* vres, flow index */
	int32_t hop;       /* where on the flow's route: the hop of a channel or its
			    * sub; -1 injection, hops ejection */
	double w;
};

/* Progressive filling's constraints by level, then index (a resource's
 * place in the walk, a constraint of rr_share): the next to fill is the
 * least. They are scanned, each time, while the scans have cost less than
 * a budget (a few freezes over many constraints: the long routes of a
 * ring), and kept in a heap from then on, its entries following every
 * change of a level (many freezes); both take the one a scan in index
 * order finds (lh_*, fill_next). */
struct vkey {
	double level;
	uint32_t v;
};

struct lheap {
	struct vkey *h;        /* owned, room for cap: the candidates, a heap once
				* heaped */
	uint32_t *at;          /* owned, room for cap: once heaped, an index's
				* place in h, or UINT32_MAX */
	guint len, cap, n;
	bool heaped;
	size_t work, budget;   /* the scans' entries so far, and the most */
};

static void lh_free(struct lheap *q);

struct flow;

struct fres {
	double cap;            /* bytes per ps; 0: unlimited (never carries a flow) */
	union {                /* the active flows on it (res_fl): */
		struct flow *one;   /* room_log2 0: in place, as a channel of
				     * one-hop routes never holds more (its line) */
		struct flow **many; /* else owned, room for 1 << room_log2 */
	};
	uint32_t n;
	uint32_t par : 26;     /* a channel's: its parameters, flow_net.par[par] */
	uint32_t room_log2 : 6; /* the room of `many`, log2; 0: `one` */
	double used;           /* under max-min, between fills: what its flows take at
				* their rates (rate x weight); in a fill of the walk
				* it is in: what its frozen flows take */
	uint32_t stamp;        /* component walk */
	uint32_t walk_at;      /* its place in the walk (walk_res, walk_fill), or
				* WALK_BORDER, UINT32_MAX; valid where stamp is the
				* walk's */
};
G_STATIC_ASSERT(sizeof(struct fres) == 40);

/* The most distinct parameter sets (fres.par). */
#define FLOW_PARAMS_MAX ((uint32_t)1 << 26)

/* Progressive filling's state of a resource in reshare's walk, at its
 * place (fres.walk_at), apart from the resource: only a walk's resources
 * need it. */
struct fres_fill {
	double wsum;           /* weight of the unfrozen flows */
	uint32_t nfree;        /* unfrozen flows */
	bool full;
	bool whole;            /* in the walk with all its flows */
};

/* The active flows on r, r->n of them. */
static inline struct flow **res_fl(const struct fres *r)
{
	return r->room_log2 ? r->many : (struct flow **)&r->one;
}

/* reshare's mark (fres.walk_at) of a resource with room that the walk
 * reached and left out (walk_skips marks one that never fills
 * UINT32_MAX) */
#define WALK_BORDER (UINT32_MAX - 1)

/* A flow frozen by progressive filling, and its rate before. */
struct frozen {
	struct flow *fl;
	double old;
};

struct flow_use {
	uint32_t res;
	double w;              /* bytes on the resource per unit sent */
};

/* The route entries a flow keeps in itself: a route of one hop and its two
 * memory sides (use); a longer route's are owned apart. */
#define FLOW_USE_IN 3

/* The virtual channels a flow's side record keeps in itself (flow_ext):
 * a route of this many hops; a longer route's are owned apart. */
#define FLOW_VC_IN 8

struct flow {
	int src, dst;          /* first: the store's free list link while free */
	uint32_t next;         /* channel FIFO: the next flow's id, 0: none */
	uint32_t id;           /* its number in the store, from 1 (flow_at), for good */
	uint64_t bytes;        /* payload */
	double units;          /* W: wire bytes on the first channel, > 0 unless empty */
	double pos;            /* units sent by t_pos */
	double rate;           /* units per ps while active */
	sim_time_t t_pos;
	sim_time_t tail;       /* send -> delivery */
	uint64_t first, piece; /* delivery boundaries (flow.h) */
	uint64_t next_x;       /* next payload boundary to reach */
	uint64_t last_x;       /* the last boundary reached (0 before the first) */
	fabric_slack_fn slack; /* NULL: fixed pieces */
	void *user;
	struct flow_use *use;  /* use_in, or owned: nuse entries, alloc_use capacity */
	uint16_t nuse, alloc_use; /* alloc_use >= hops + 2 (flow_make) */
	uint16_t hops;         /* channels crossed, use[0..hops).res from the send on
				* (weights and memory sides once sized) */
	bool ev_pending : 1, frozen : 1;
	bool ahead : 1;        /* the pending event is next_x's arrival (FL_ARRIVE), one
				* tail after it is sent, not its sending (FL_PROGRESS) */
	bool grown : 1;        /* the receiver's slack grew next_x (set_next) */
	bool forwarded : 1;    /* a rank, not a switch, forwards it (flow_rank_forwarded_bytes) */
	bool switched : 1;     /* its route crosses two switches or more (flow_switched_bytes) */
	bool ghost : 1;        /* header only and alone: no event until its delivery, which
				* is scheduled (dev) from its end of sending (t_end) */
	bool detached : 1;     /* buf_share: its source has sent it all into the
				* buffers, and its channel's line has gone on */
	bool unshared : 1;     /* header only, sending beside others: on no resource */
	bool mem_sized : 1;    /* its memory sides have let go its mem_free */
	bool rel_pending : 1;  /* ext->rel_ev is pending */
	unsigned deliver : 4;  /* its receiver's function: flow_net.deliver[deliver] */
	int chan0;             /* first channel */
	uint32_t pair;         /* index of (src, dst) in flow_net.pair_last */
	uint32_t stamp;
	uint32_t gen;          /* how often its place in the store was handed back: a
				* delivery (deliver_event) that carries another is
				* not of this message */
	union {
		struct sim_event_ref ev;  /* its pending event, where ev_pending */
		struct sim_event_ref dev; /* a ghost, or one taken over from as a
					   * ghost (begin_ahead): its delivery; a
					   * ghost has no other event */
	};
	sim_time_t late;       /* its last delivery's callback runs this long after it lands */
	sim_time_t t_end;      /* ghost: when it has sent its last byte */
	union { /* a ghost has no FL_ARRIVE pending */
		sim_time_t t_next;    /* ahead, FL_ARRIVE pending: when next_x is sent */
		sim_time_t prev_last; /* ghost: its pair's pair_last before its delivery */
	};
	struct flow *before;   /* begun ahead (flow_send_at): the ghost it took over
				* its channel from, whose end of sending is before_end
				* (valid only before then; borrowed: it stays in the
				* store while this flow is its channel's active one,
				* until it is delivered or retire_spent hands it back) */
	sim_time_t before_end;
	double bound;          /* once sized: the least cap / w of its channels, which
				* no rate of it exceeds (mem_slack) */
	union { /* a message has payload or none for good (flow_append) */
		uint32_t mem_free[2]; /* payload: what its sides (inject, eject)
				       * let go at its links' rate when it began
				       * (size_flow), once mem_sized */
		sim_time_t gap;       /* no payload: the wait behind its pair's
				       * last data it took (gap_taken);
				       * SIM_TIME_MAX: none yet */
	};
	struct flow_ext *ext;  /* where it has two hops or more, or the arbiter is
				* not max-min (flow_make), else NULL or, kept from
				* an earlier use of its place in the store, unused:
				* from flow_net.exts, it stays with the place */
	struct flow_use use_in[FLOW_USE_IN];
};
G_STATIC_ASSERT(sizeof(struct flow) == 272);

/* What only some flows use, apart (flow.ext), so that a one-hop route under
 * max-min, the most common, carries none of it: the state of rr_share and
 * buf_share, which share a component only under the other arbiters, and a
 * release (release_plan), which takes two hops or more. */
struct flow_ext {
	union {
		double rr_rate;    /* < 0: none (its shares start from scratch) */
		double rel_units;  /* max-min, detached: its rest when released, in
				    * its first channel's buffer (flow_net.held) */
	};
	double *bx;            /* owned, buf_share: units in the buffer after each
				* hop, bx_n of them (0: empty), room for bx_alloc */
	uint8_t *vc;           /* vc_in, or owned, room for vc_alloc: the virtual
				* channel of each hop (rr_share, buf_share) */
	struct sim_event_ref rel_ev; /* its release (FL_RELEASE), where rel_pending */
	int32_t rr_bhop;       /* rr_share: the hop that held it at rate rr_rate */
	uint32_t buf_stamp;    /* the tick that last moved its fluid */
	uint16_t bx_n, bx_alloc; /* <= hops (flow_make bounds them) */
	uint16_t vc_alloc;
	uint8_t vc_in[FLOW_VC_IN];
};
G_STATIC_ASSERT(sizeof(struct flow_ext) == 64);

/* Units in fl's buffers after its hops, where buf_share's fluid gives its
 * rate: whether it has any record of them (bx_n). */
static inline bool in_fluid(const struct flow *fl)
{
	return fl->ext && fl->ext->bx_n;
}

/* A channel's line: its flows by id (flow.id, flow_at; 0: none), so that
 * a channel fits 48 bytes. */
struct chan_fifo {
	uint32_t head, tail;      /* waiting, in send order */
	uint32_t active;          /* the flow from memory sending on it (or begun ahead
				   * to send from t_pos, flow_send_at), 0: idle */
	uint32_t later;           /* one that enters the line at its t_pos: by FL_START,
				   * or (parked) as the active flow ends or a message
				   * is sent on the channel, with no event of its own */
	uint64_t waiting_units : 61; /* units of the waiting flows (wire bytes:
				   * whole, as units_on gives them) */
	bool busy : 1;            /* active != 0 */
	bool parked : 1;          /* later waits with no event */
	bool into_switch : 1;     /* its channel enters a switch, not a rank */
};

/* What times a message on a channel, once per distinct set of a network's
 * channels (those of one tier share one): bandwidth, latency, packet
 * format and receive buffer; and the timing of the last message size seen
 * on a channel of the set, so that a stream of equal slices divides once
 * (link_wire_ps). */
struct fparams {
	uint64_t bw_bytes_per_s;
	sim_time_t lat_ps;
	uint32_t header_bytes, max_payload_bytes;
	double buf;               /* receive buffer bytes, INFINITY where credits
				   * are unlimited */
	uint64_t memo_bytes;      /* payload; UINT64_MAX: none yet */
	sim_time_t memo_pkt_ps;   /* first packet's serialisation */
	sim_time_t memo_busy_ps;  /* all wire bytes' serialisation */
};

/* A channel at flow level: its line of messages from memory, then its
 * statistics (its wire bytes are its payload and a header a packet:
 * flow_channel_stats); its parameters are its resource's (fres.par). The
 * payload of the messages of other than one hop, by hop count, is apart
 * (flow_net.hops_other): a one-hop message's bytes are the rest of the
 * payload (flow_channel_stats), so a run of one-hop routes never touches it. */
struct fchan {
	struct chan_fifo q;
	uint64_t payload_bytes, packets;
	sim_time_t busy_ps;
};
G_STATIC_ASSERT(sizeof(struct fchan) == 48);

/* A channel's payload of messages of other than one hop: [h] of h hops, [7]
 * of 7 or more (channel_stats.hops_histogram, but [1]). */
struct hops_other {
	uint64_t bytes[8];
};

/* A source's two most recent destinations and their pair_last indices: a
 * schedule talks to one or two peers at a time, so most messages find their
 * pair here without a hash lookup. dst -1: empty. Until a source has a
 * third pair, these are all its pairs and the pairs' table holds none of
 * them (spilled false). */
struct pair_cache {
	int dst[2];
	uint32_t idx[2];
	bool spilled;
};

struct flow_net {
	struct sim_component c;
	struct sim *s;                /* borrowed */
	int nchans, nranks;
	struct fres *res;             /* owned, nchans, then 2 x nranks memory sides
				       * where mem_sides */
	int nres;
	bool mem_sides;               /* a memory side of finite rate carries flows */
	double *mem_clock;            /* owned, 2 x nranks where mem_sides: each memory
				       * side's rate clock, ps (inject, then eject): until
				       * when the payload it let go at its links' rate takes
				       * its rate (size_flow) */
	double *mem_slack;            /* and how far ahead of now the clock may run
				       * before a message waits for it (size_flow) */
	struct fchan *ch;             /* owned, nchans */
	struct fparams *par;          /* owned, npar: the channels' distinct parameters */
	uint32_t npar;
	struct hops_other *hops_other; /* owned, nchans, from the first message of other
				       * than one hop; NULL before */
	struct pool flows;            /* every flow ever made, by blocks of FLOW_BLOCK; a
				       * flow handed back keeps what it owns for its
				       * next use (flow_make) */
	struct flow **blocks;         /* borrowed: flows.blocks' array (flow_of) */
	struct pool exts;             /* the flows' struct flow_ext, by blocks of
				       * FLOW_BLOCK, each its flow's for good */
	uint64_t in_flight;
	uint64_t rank_forwarded;      /* payload of the messages a rank forwards */
	uint64_t switched;            /* payload of the messages that cross two switches
				       * or more */
	uint64_t forwarded_largest;   /* the largest of them, grown as it was sent */
	uint64_t payload;             /* payload of all messages started */
	uint32_t stamp;
	GArray *pair_last;            /* owned, sim_time_t per (src, dst) pair that has
				       * sent: the latest delivery scheduled from src to
				       * dst (in order per pair) */
	GArray *pair_gap;             /* owned, sim_time_t per pair, where ejection has a
				       * rate: how long after the pair's last data
				       * message lands its destination's ejection clock
				       * holds a message of no payload behind it (its last
				       * packet at the rate, less the clock's slack); 0
				       * once one has waited for it */
	double ej_rate;               /* a node's ejection, payload per ps; 0: unlimited */
	double *ej_slack;             /* owned or NULL (ej_rate 0), nranks: how far
				       * ahead of now a node's ejection clock runs before
				       * a packet waits (a largest packet per port but
				       * one, as fabric.c's node_slack) */
	GHashTable *pairs;            /* owned: src x nranks + dst + 1 -> index + 1 */
	struct pair_cache *pcache;    /* owned, nranks: each source's last 2 pairs */
	fabric_early_fn early;        /* NULL: none (flow_set_early) */
	bool in_reshare;              /* reshare() walks the resources' lists */
	GPtrArray *walk_flows;        /* scratch: borrowed flows */
	GArray *walk_res;             /* scratch: uint32_t */
	GArray *walk_border;          /* scratch: uint32_t, resources with room the
				       * walk reached (reshare) */
	GArray *walk_done;            /* scratch: struct frozen, in the fill's order */
	struct fres_fill *walk_fill;  /* owned, room for walk_fill_cap: the walk's
				       * resources' (walk_res) */
	guint walk_fill_cap;
	const uint8_t *vcs;           /* borrowed: flow_set_vcs */
	uint32_t arbiter;             /* enum link_flow_arbiter */
	int32_t *rr_map;              /* rr_share's, nres from its first call: resource ->
				       * its vres, -1 */
	struct vres *hv;              /* rr_share's constraints: hv_len, room for hv_cap */
	struct lheap fill;            /* progressive filling's constraints by level */
	uint32_t hv_len, hv_cap;
	struct vmem *hm;              /* and their members */
	uint32_t hm_cap;
	GArray *rr_u32, *rr_rate, *rr_by, *rr_hist; /* scratch */
	struct flow_rr_stats rr_stats;
	struct flow_walk_stats walk_stats;
	double buf_dt;                /* buf_share's step: the least buffer's drain
				       * time / BUF_STEPS_PER_FILL; INFINITY: none */
	bool buf_tick_pending, buf_commit;
	uint32_t buf_stamp;
	GPtrArray *buf_detach;        /* owned: flows whose line goes on at the tick */
	int32_t *buf_omap, *buf_qmap; /* owned, buf_share's: output and buffer -> its
				       * index there, -1 between shares */
	double *held;                 /* owned or NULL (none yet), nchans: the units
				       * of the messages released from each
				       * channel's line still sending (on_release) */
	GHashTable *buf_pairs;        /* owned: pair + 1 -> its detached flows in flight
				       * (a message of the pair waits in line behind them) */
	fabric_deliver_fn deliver[FLOW_DELIVER_FNS]; /* the receivers' functions seen, by
				       * first use: a flow and its deliveries name one by
				       * its index */
	uint32_t ndeliver;
};

/* Flows per block of the flow network's store (flow_net.flows). */
#define FLOW_BLOCK 256

/* The flow of number id, not 0. */
static inline struct flow *flow_of(const struct flow_net *n, uint32_t id)
{
	return &n->blocks[(id - 1) / FLOW_BLOCK][(id - 1) % FLOW_BLOCK];
}

/* The flow of number id in the store (flow.id), NULL for 0. */
static inline struct flow *flow_at(const struct flow_net *n, uint32_t id)
{
	return id ? flow_of(n, id) : NULL;
}

/* A flow's number, 0 for NULL. */
static inline uint32_t flow_id(const struct flow *fl)
{
	return fl ? fl->id : 0;
}

/* Adds a block to the store, its flows numbered. */
static void flows_grow(struct flow_net *n)
{
	pool_grow(&n->flows);
	guint k = n->flows.blocks->len - 1;
	struct flow *b = n->flows.blocks->pdata[k];

	g_assert(k < UINT32_MAX / FLOW_BLOCK);
	for (uint32_t i = 0; i < FLOW_BLOCK; i++)
		b[i].id = k * FLOW_BLOCK + i + 1;
	n->blocks = (struct flow **)n->flows.blocks->pdata;
}

/* Frees what the flows of the network's store own, then the store and
 * their side records'. */
static void flows_release(struct pool *p, struct pool *exts)
{
	for (guint k = 0; p->blocks && k < p->blocks->len; k++) {
		struct flow *b = g_ptr_array_index(p->blocks, k);

		for (int i = 0; i < FLOW_BLOCK; i++) {
			if (b[i].use != b[i].use_in)
				g_free(b[i].use);
			if (!b[i].ext)
				continue;
			g_free(b[i].ext->bx);
			if (b[i].ext->vc != b[i].ext->vc_in)
				g_free(b[i].ext->vc);
		}
	}
	pool_release(p);
	pool_release(exts);
}

static void flow_handler(struct sim *s, struct sim_component *self, struct sim_event *ev);
static void buf_pair_hold(struct flow_net *n, uint32_t pair, int by);
static void unaccount(struct flow_net *n, const struct flow *fl);
static void on_start(struct flow_net *n, struct flow *fl);
static void enqueue(struct flow_net *n, struct flow *fl);
static void start_waiting(struct flow_net *n, struct chan_fifo *q);
static void reshare(struct flow_net *n, const struct flow_use *seeds, uint32_t nseeds, bool changed);
static void begin_ahead(struct flow_net *n, struct flow *fl, sim_time_t at, struct flow *g);
static bool alone_at(struct flow_net *n, int src, int dst, const int *chans, int hops,
		     sim_time_t at, struct flow **g);

/* An event of flow fl, `delay` from now, carrying x; the engine fetches fl
 * ahead of it, as its handler reads fl first. */
static struct sim_event *flow_event(struct flow_net *n, sim_time_t delay, uint32_t type,
				    struct flow *fl, uint64_t x)
{
	struct sim_event *ev = sim_schedule(n->s, delay, &n->c, type);

	ev->data[0].p = fl;
	ev->data[1].u = x;
	ev->flags |= SIM_EV_PREFETCH_DATA;
	return ev;
}

/* Hands fl back to the store: a delivery that still carries it carries an
 * older gen. */
static void flow_free(struct flow_net *n, struct flow *fl)
{
	fl->gen++;
	pool_give(&n->flows, fl);
}

/* The delivery of payload boundary x of flow fl, `delay` from now
 * (FL_DELIVER): it carries what its receiver reads (user, x, done, its
 * function's index), so that it needs the flow no more, but a ghost's
 * (`ghost`), which leaves its resources then (on_deliver); the engine
 * fetches the receiver ahead of it. */
static struct sim_event *deliver_event(struct flow_net *n, sim_time_t delay, struct flow *fl,
				       uint64_t x, bool ghost)
{
	struct sim_event *ev = sim_schedule(n->s, delay, &n->c, FL_DELIVER);

	ev->data[0].p = fl->user;
	ev->data[1].u = x;
	ev->data[2].u = (uint64_t)fl->deliver | (uint64_t)(x == fl->bytes) << 16 |
			(uint64_t)fl->gen << 32;
	ev->data[3].p = ghost ? fl : NULL;
	ev->flags |= SIM_EV_PREFETCH_DATA;
	return ev;
}

/* The wire rate a channel sustains in bytes per ps: its bandwidth, lowered
 * to what its credits and its Go-Back-N window carry per round trip, times
 * the expected goodput under loss. */
static double chan_capacity(const struct link_params *p)
{
	uint64_t pkt = (uint64_t)p->max_payload_bytes + p->header_bytes;
	double full = (double)link_wire_ps(pkt, p->bw_bytes_per_s);
	double cap = (double)p->bw_bytes_per_s / 1e12;

	if (p->credits)
		cap = MIN(cap, (double)p->credits * (double)pkt /
				       (full + (double)p->lat_ps + (double)p->credit_return_ps));
	cap = MIN(cap, (double)p->gbn_window * (double)pkt / (full + 2.0 * (double)p->lat_ps));
	if (p->error_rate > 0) {
		double k = MIN((double)p->gbn_window, 1 + ceil((full + 2.0 * (double)p->lat_ps) / full));
		double e = p->error_rate;

		cap *= (1 - e) / (1 - e + e * k);
	}
	return cap;
}

/* A memory side's capacity (bytes per ps) where its rate (0: unlimited)
 * is below what its node's channels carry together (links), else 0: no
 * resource. */
static double side_cap(double rate, double links)
{
	return rate > 0 && rate < links ? rate : 0;
}

/* The link parameters a channel's struct fparams keeps, hashed and
 * compared (flow_net_new). */
static guint par_hash(gconstpointer k)
{
	const struct link_params *p = k;
	uint64_t h = p->bw_bytes_per_s;

	h = h * 0x9e3779b97f4a7c15u ^ (uint64_t)p->lat_ps;
	h = h * 0x9e3779b97f4a7c15u ^ ((uint64_t)p->header_bytes << 32 | p->max_payload_bytes);
	h = h * 0x9e3779b97f4a7c15u ^ p->credits;
	return (guint)(h ^ h >> 32);
}

static gboolean par_equal(gconstpointer a, gconstpointer b)
{
	const struct link_params *p = a, *q = b;

	return p->bw_bytes_per_s == q->bw_bytes_per_s && p->lat_ps == q->lat_ps &&
	       p->header_bytes == q->header_bytes && p->max_payload_bytes == q->max_payload_bytes &&
	       p->credits == q->credits;
}

/* The parameters of channel c. */
static inline struct fparams *par_of(const struct flow_net *n, int c)
{
	return &n->par[n->res[c].par];
}

struct flow_net *flow_net_new(struct sim *s, int nchans, const struct link_params *params,
			      const int *ends, int nranks, const struct node_params *np)
{
	struct flow_net *n = g_new0(struct flow_net, 1);

	n->s = s;
	n->nchans = nchans;
	n->nranks = nranks;
	/* a memory side carries payload only, never more than its node's
	 * channels (out: injection, in: ejection) carry together: a side no
	 * slower than them has no resource, and where no side is, the
	 * resources are the channels alone */
	g_autofree double *chan_cap = g_new(double, nchans);
	g_autofree double *out = g_new0(double, nranks);
	g_autofree double *in = g_new0(double, nranks);
	double inj = (double)np->inject_bytes_per_s / 1e12;
	double ej = (double)np->eject_bytes_per_s / 1e12;

	for (int i = 0; i < nchans; i++) {
		chan_cap[i] = chan_capacity(&params[i]);
		if (ends[2 * i] < nranks)
			out[ends[2 * i]] += chan_cap[i];
		if (ends[2 * i + 1] < nranks)
			in[ends[2 * i + 1]] += chan_cap[i];
	}
	for (int r = 0; r < nranks; r++)
		n->mem_sides |= side_cap(inj, out[r]) > 0 || side_cap(ej, in[r]) > 0;
	n->nres = nchans + (n->mem_sides ? 2 * nranks : 0);
	n->res = g_new0(struct fres, n->nres);
	n->buf_dt = INFINITY;
	for (int i = 0; i < nchans; i++)
		n->res[i].cap = chan_cap[i];
	for (int r = 0; n->mem_sides && r < nranks; r++) {
		n->res[nchans + r].cap = side_cap(inj, out[r]);
		n->res[nchans + nranks + r].cap = side_cap(ej, in[r]);
	}
	if (n->mem_sides) {
		/* as the packet fabric's clocks (fabric.c, node_slack): ahead of
		 * now by a largest packet at the side's rate per port but one */
		g_autofree uint32_t *ports = g_new0(uint32_t, 2 * (gsize)nranks);

		n->mem_clock = g_new0(double, 2 * (gsize)nranks);
		n->mem_slack = g_new0(double, 2 * (gsize)nranks);
		for (int i = 0; i < nchans; i++)
			for (int k = 0; k < 2; k++) {
				int r = ends[2 * i + k]; /* a switch's id is past the ranks */

				if (r >= nranks)
					continue;
				gsize at = (gsize)k * (gsize)nranks + (gsize)r;
				double cap = n->res[(gsize)nchans + at].cap; /* the side's resource */

				if (ports[at]++ && cap > 0)
					n->mem_slack[at] += (double)params[i].max_payload_bytes / cap;
			}
	}
	n->ch = g_new0(struct fchan, nchans);
	g_autoptr(GHashTable) sets = g_hash_table_new(par_hash, par_equal);
	uint32_t room = 0;

	for (int i = 0; i < nchans; i++) {
		const struct link_params *p = &params[i];
		struct fchan *c = &n->ch[i];

		c->q.into_switch = ends[2 * i + 1] >= nranks;
		if (i && par_equal(p, p - 1)) { /* most often: the same tier */
			n->res[i].par = n->res[i - 1].par;
			continue;
		}
		gpointer at = g_hash_table_lookup(sets, p);

		if (!at) {
			double buf = p->credits
				? (double)p->credits * (double)(p->max_payload_bytes + p->header_bytes)
				: INFINITY;

			if (n->npar == room) {
				room = MAX(4, 2 * room);
				n->par = g_renew(struct fparams, n->par, room);
			}
			n->par[n->npar] = (struct fparams){
				.bw_bytes_per_s = p->bw_bytes_per_s, .lat_ps = p->lat_ps,
				.header_bytes = p->header_bytes, .max_payload_bytes = p->max_payload_bytes,
				.buf = buf, .memo_bytes = UINT64_MAX,
			};
			g_assert(n->npar < FLOW_PARAMS_MAX);
			at = GUINT_TO_POINTER(++n->npar);
			g_hash_table_insert(sets, (gpointer)p, at);
		}
		n->res[i].par = GPOINTER_TO_UINT(at) - 1;
	}
	for (int i = 0; i < nchans; i++)
		n->buf_dt = MIN(n->buf_dt, par_of(n, i)->buf / n->res[i].cap / BUF_STEPS_PER_FILL);
	n->pair_last = g_array_new(FALSE, TRUE, sizeof(sim_time_t));
	n->pair_gap = g_array_new(FALSE, TRUE, sizeof(sim_time_t));
	if (np->eject_bytes_per_s) {
		g_autofree uint32_t *ports = g_new0(uint32_t, (gsize)nranks);

		n->ej_rate = (double)np->eject_bytes_per_s / 1e12;
		n->ej_slack = g_new0(double, (gsize)nranks);
		for (int i = 0; i < nchans; i++) {
			int r = ends[2 * i + 1];

			if (r < nranks && ports[r]++)
				n->ej_slack[r] += (double)params[i].max_payload_bytes / n->ej_rate;
		}
	}
	n->pairs = g_hash_table_new(g_direct_hash, g_direct_equal);
	n->pcache = g_new(struct pair_cache, nranks);
	for (int r = 0; r < nranks; r++)
		n->pcache[r] = (struct pair_cache){ { -1, -1 }, { 0, 0 }, false };
	pool_init(&n->flows, sizeof(struct flow), FLOW_BLOCK);
	pool_init(&n->exts, sizeof(struct flow_ext), FLOW_BLOCK);
	n->walk_flows = g_ptr_array_new();
	n->walk_res = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	n->walk_border = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	n->walk_done = g_array_new(FALSE, FALSE, sizeof(struct frozen));
	n->rr_u32 = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	n->rr_rate = g_array_new(FALSE, FALSE, sizeof(double));
	n->rr_by = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	n->rr_hist = g_array_new(FALSE, FALSE, sizeof(double));
	sim_component_init(s, &n->c, "flow", flow_handler);
	return n;
}

void flow_net_free(struct flow_net *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->nres; i++)
		if (n->res[i].room_log2)
			g_free(n->res[i].many);
	g_free(n->res);
	g_free(n->ch);
	g_free(n->par);
	g_free(n->hops_other);
	g_array_unref(n->pair_last);
	g_array_unref(n->pair_gap);
	g_free(n->ej_slack);
	g_hash_table_unref(n->pairs);
	g_free(n->pcache);
	flows_release(&n->flows, &n->exts);
	g_ptr_array_unref(n->walk_flows);
	g_array_unref(n->walk_res);
	g_array_unref(n->walk_border);
	g_array_unref(n->walk_done);
	g_free(n->walk_fill);
	g_free(n->rr_map);
	g_free(n->held);
	g_free(n->mem_clock);
	g_free(n->mem_slack);
	if (n->buf_detach)
		g_ptr_array_unref(n->buf_detach);
	g_free(n->buf_omap);
	g_free(n->buf_qmap);
	if (n->buf_pairs)
		g_hash_table_unref(n->buf_pairs);
	lh_free(&n->fill);
	g_free(n->hv);
	g_free(n->hm);
	g_array_unref(n->rr_u32);
	g_array_unref(n->rr_rate);
	g_array_unref(n->rr_by);
	g_array_unref(n->rr_hist);
	g_free(n);
}

uint64_t flow_in_flight(const struct flow_net *n)
{
	return n->in_flight;
}

uint64_t flow_switched_bytes(const struct flow_net *n)
{
	return n->switched;
}

uint64_t flow_rank_forwarded_bytes(const struct flow_net *n, uint64_t *payload, uint64_t *largest)
{
	*payload = n->payload;
	*largest = n->forwarded_largest;
	return n->rank_forwarded;
}

void flow_rr_stats(const struct flow_net *n, struct flow_rr_stats *out)
{
	*out = n->rr_stats;
}

void flow_walk_stats(const struct flow_net *n, struct flow_walk_stats *out)
{
	*out = n->walk_stats;
}

static bool whole_components; /* flow_whole_components */

void flow_whole_components(bool on)
{
	whole_components = on;
}

void flow_channel_stats(const struct flow_net *n, int i, struct channel_stats *out)
{
	g_assert(i >= 0 && i < n->nchans);
	const struct fchan *c = &n->ch[i];
	uint64_t other = 0;

	out->payload_bytes = c->payload_bytes;
	out->wire_bytes = c->payload_bytes + c->packets * par_of(n, i)->header_bytes;
	out->packets = c->packets;
	out->retransmitted = 0;
	out->lost = 0;
	out->busy_ps = c->busy_ps;
	for (int k = 0; k < 8; k++) {
		out->hops_histogram[k] = n->hops_other ? n->hops_other[i].bytes[k] : 0;
		other += out->hops_histogram[k];
	}
	out->hops_histogram[1] = c->payload_bytes - other;
}

/* Payload boundary x in units sent. */
static double units_of(const struct flow *fl, uint64_t x)
{
	if (fl->bytes == 0 || x == fl->bytes)
		return fl->units;
	return (double)x * fl->units / (double)fl->bytes;
}

/* Packets of `bytes` on a channel of parameters p: at least one. */
static uint64_t packets_of(const struct fparams *p, uint64_t bytes)
{
	return bytes ? (bytes + p->max_payload_bytes - 1) / p->max_payload_bytes : 1;
}

/* W of a message of `bytes` whose first channel has parameters p: its
 * wire bytes there. */
static double units_on(const struct fparams *p, uint64_t bytes)
{
	return (double)(bytes + packets_of(p, bytes) * p->header_bytes);
}

/* The first payload boundary after x (x sent `since` ago, at rate fl->rate
 * once active): first, then piece_bytes more, or as many piece_bytes as two
 * thirds of the receiver's slack plus `since` less the tail carries
 * (flow.h); *grown says the slack made it larger. */
static uint64_t boundary_after(const struct flow *fl, uint64_t x, sim_time_t since, bool *grown)
{
	uint64_t next;

	*grown = false;
	if (x < fl->first)
		next = MIN(fl->first, fl->bytes);
	else if (!fl->piece || fl->bytes - x <= fl->piece)
		return fl->bytes;
	else
		next = x + fl->piece;
	if (fl->slack && fl->rate > 0 && fl->piece && next < fl->bytes) {
		sim_time_t slack = fl->slack(fl->user);

		if (slack + since > fl->tail) {
			double units = fl->rate * (double)(slack + since - fl->tail) * 2 / 3;
			double bytes = units * (double)fl->bytes / fl->units;

			if (bytes >= (double)(fl->bytes - x))
				return fl->bytes;
			uint64_t big = x + (uint64_t)(bytes / (double)fl->piece) * fl->piece;
			/* payload sent in one tail: a grown boundary that close to
			 * the end lands after the end is sent, so it would cost its
			 * sending and its landing (not ahead); where one piece
			 * less keeps it ahead, it stops a piece short */
			double tail_bytes = fl->rate * (double)fl->tail * (double)fl->bytes / fl->units;

			if (big > next + fl->piece && (double)(fl->bytes - big) <= tail_bytes &&
			    (double)(fl->bytes - big + fl->piece) > tail_bytes)
				big -= fl->piece;
			if (big > next) {
				next = big;
				*grown = true;
			}
		}
	}
	return next;
}

/* Whether fl's next boundary is reached by its arrival alone (ahead):
 * nothing reads its sending (one the receiver's slack grew, or any of a
 * flow without a slack function), and it lands while the flow still
 * sends. */
static bool ahead_of(const struct flow *fl)
{
	return (fl->grown || (!fl->slack && fl->piece)) && fl->next_x < fl->bytes &&
	       (fl->units - units_of(fl, fl->next_x)) > fl->rate * (double)fl->tail;
}

/* Sets fl's next boundary after x (ahead_of), and whether the receiver's
 * slack grew it. */
static bool set_next(struct flow *fl, uint64_t x, sim_time_t since)
{
	bool grown;

	fl->next_x = boundary_after(fl, x, since, &grown);
	fl->grown = grown;
	fl->ahead = ahead_of(fl);
	return grown;
}

/* Units fl has sent by `now` at its rate of now: up to its next boundary,
 * or (ahead, whose boundary only its arrival reads) up to its end. */
static double pos_at(const struct flow *fl, sim_time_t now)
{
	double lim = fl->ahead ? fl->units : units_of(fl, fl->next_x);

	if (fl->rate <= 0 || now <= fl->t_pos) /* begun ahead: not sending yet */
		return fl->pos;
	return MIN(fl->pos + fl->rate * (double)(now - fl->t_pos), lim);
}

/* Boundary y, sent at fl's rate from its position at t_pos, lands one
 * tail later, in order behind what its pair delivered before (FL_DELIVER);
 * the time it was sent. */
static sim_time_t land_boundary(struct flow_net *n, struct flow *fl, uint64_t y)
{
	sim_time_t *last = &g_array_index(n->pair_last, sim_time_t, fl->pair);
	double d = ceil((units_of(fl, y) - fl->pos) / fl->rate);
	sim_time_t sent = fl->t_pos + (sim_time_t)MAX(d, 0);
	sim_time_t at = MAX(sent + fl->tail, *last);

	deliver_event(n, at - sim_now(n->s), fl, y, false);
	*last = at;
	fl->last_x = y;
	return sent;
}

/* fl's boundary ahead, sent, lands by FL_DELIVER at the time its landing
 * was scheduled for, and the flow goes on from the boundary after it, by
 * its sending. */
static void land_ahead(struct flow_net *n, struct flow *fl)
{
	sim_time_t now = sim_now(n->s);
	sim_time_t *last = &g_array_index(n->pair_last, sim_time_t, fl->pair);
	sim_time_t arrive = fl->ev.ev->time;

	g_assert(fl->ev_pending && fl->ev.ev->type == FL_ARRIVE);
	sim_cancel(n->s, fl->ev);
	deliver_event(n, arrive - now, fl, fl->next_x, false);
	*last = MAX(*last, arrive);
	fl->last_x = fl->next_x;
	fl->next_x = MIN(fl->next_x + fl->piece, fl->bytes);
	fl->grown = false;
	fl->ahead = false;
	fl->ev_pending = false;
}

/* Before fl's position is taken up to now (where its rate may change):
 * if its next boundary is ahead, not grown, and sent, and a later one is
 * sent too, their landings are timed now, at the rate they were sent at
 * (FL_DELIVER, the one ahead's at its landing as scheduled), and the flow
 * goes on from the first boundary not sent, by its sending. (Its landing's
 * event would time them from the position taken now.) */
static void land_sent(struct flow_net *n, struct flow *fl, sim_time_t now)
{
	if (!fl->ahead || fl->grown || !fl->ev_pending || fl->ev.ev->type != FL_ARRIVE)
		return;
	double pos = pos_at(fl, now);
	uint64_t y = MIN(fl->next_x + fl->piece, fl->bytes);

	if (units_of(fl, fl->next_x) > pos || y >= fl->bytes || units_of(fl, y) > pos)
		return;
	land_ahead(n, fl);
	for (; y < fl->bytes && units_of(fl, y) <= pos; y = MIN(y + fl->piece, fl->bytes))
		land_boundary(n, fl, y);
	fl->next_x = y;
}

/* fl's position taken up to now, at its rate so far (which may then
 * change): the boundaries it has sent are timed first (land_sent). */
static void take_up(struct flow_net *n, struct flow *fl, sim_time_t now)
{
	land_sent(n, fl, now);
	fl->pos = pos_at(fl, now);
	fl->t_pos = now;
}

double flow_chan_rate(const struct flow_net *n, int chan)
{
	g_assert(chan >= 0 && chan < n->nchans);
	const struct flow *a = flow_at(n, n->ch[chan].q.active);
	sim_time_t now = sim_now(n->s);

	if (a && a->t_pos > now) /* begun ahead: what sends is the ghost before it */
		return a->before && now < a->before_end ? a->before->rate : 0;
	if (a && a->ghost && now >= a->t_end)
		return 0; /* it has sent its last byte */
	return a ? a->rate : 0;
}

void flow_set_arbiter(struct flow_net *n, uint32_t arbiter)
{
	g_assert(arbiter <= LINK_FLOW_BUFFERS);
	n->arbiter = arbiter;
}

void flow_set_vcs(struct flow_net *n, const uint8_t *vcs)
{
	n->vcs = vcs;
}

void flow_set_early(struct flow_net *n, fabric_early_fn early)
{
	n->early = early;
}

sim_time_t flow_chan_drain_ps(const struct flow_net *n, int chan)
{
	g_assert(chan >= 0 && chan < n->nchans);
	const struct chan_fifo *q = &n->ch[chan].q;
	const struct flow *a = flow_at(n, q->active);

	sim_time_t now = sim_now(n->s);

	if (a && a->t_pos > now) /* begun ahead: the ghost before it is what is queued */
		return a->before && now < a->before_end ? a->before_end - now : 0;
	if (!a || a->rate <= 0)
		return 0;
	if (a->ghost) /* nothing waits behind it */
		return a->t_end > now ? a->t_end - now : 0;
	double pos = a->pos + a->rate * (double)(now - a->t_pos);
	double left = MAX(a->units - pos, 0) + q->waiting_units;

	if (q->later && q->parked && flow_of(n, q->later)->t_pos <= now)
		left += flow_of(n, q->later)->units; /* due: in the line */
	double d = left / a->rate;

	return d >= (double)SIM_TIME_END ? SIM_TIME_END : (sim_time_t)d;
}

static void res_add(struct fres *r, struct flow *fl, double w)
{
	if (r->n == 1u << r->room_log2) {
		if (!r->room_log2) {
			struct flow *one = r->one;

			r->many = g_new(struct flow *, 4);
			r->many[0] = one;
			r->room_log2 = 2;
		} else {
			r->room_log2++;
			r->many = g_renew(struct flow *, r->many, (gsize)1 << r->room_log2);
		}
	}
	res_fl(r)[r->n++] = fl;
	r->used += fl->rate * w;
}

static void res_remove(struct fres *r, struct flow *fl, double w)
{
	struct flow **f = res_fl(r);

	/* in order: the sharing walk visits flows in a fixed order */
	for (uint32_t i = 0; i < r->n; i++)
		if (f[i] == fl) {
			memmove(&f[i], &f[i + 1], (r->n - i - 1) * sizeof(f[0]));
			r->n--;
			r->used = r->n ? r->used - fl->rate * w : 0;
			return;
		}
	g_error("flow: a resource lost track of a flow");
}

/* fl, alone on its resources with nothing behind it, sends its last byte
 * at t_end: it becomes a ghost, its delivery scheduled now, in order
 * behind what its pair delivered before. */
/* For a message of no payload: how long after its pair's last delivery
 * its destination's ejection clock holds it (pair_gap), which it takes
 * once (a delivery timed again takes the same). */
static sim_time_t gap_taken(struct flow_net *n, struct flow *fl)
{
	if (fl->bytes > 0 || !n->ej_rate)
		return 0;
	sim_time_t *gap = &g_array_index(n->pair_gap, sim_time_t, fl->pair);
	if (fl->gap == SIM_TIME_MAX) {
		fl->gap = *gap;
		*gap = 0;
	}
	return fl->gap;
}

static void make_ghost(struct flow_net *n, struct flow *fl, sim_time_t t_end)
{
	sim_time_t now = sim_now(n->s);
	sim_time_t *last = &g_array_index(n->pair_last, sim_time_t, fl->pair);

	fl->t_end = t_end;
	fl->prev_last = *last;
	*last = MAX(t_end + fl->tail, *last + gap_taken(n, fl));
	fl->dev = sim_event_ref(deliver_event(n, *last - now + fl->late, fl, fl->bytes, true));
	fl->ghost = true;
}

/* A flow heading for its last byte at t_end, alone on every resource it
 * crosses with nothing behind it on its channel: its end is known now, so
 * it becomes a ghost (no event at its end of sending, its delivery
 * scheduled now) until something needs its resources (settle). */
static bool end_unseen(struct flow_net *n, struct flow *fl, sim_time_t t_end)
{
	sim_time_t now = sim_now(n->s);

	/* a rate the buffers' fluid gave (bx_n) is a window's, not the rest's:
	 * what the buffers still hold of others may hold it, and the ticks go
	 * on giving it its rate */
	if (fl->detached || in_fluid(fl) || n->ch[fl->chan0].q.head ||
	    t_end >= SIM_TIME_END - fl->tail - fl->late)
		return false;
	for (uint32_t u = 0; u < fl->nuse; u++)
		if (n->res[fl->use[u].res].n != 1)
			return false;
	if (fl->ev_pending) {
		sim_cancel(n->s, fl->ev);
		fl->ev_pending = false;
	}
	make_ghost(n, fl, t_end);
	struct chan_fifo *q = &n->ch[fl->chan0].q;

	if (q->later && q->parked) {
		/* the one parked behind it starts at its end, or at its own */
		struct flow *k = flow_of(n, q->later);
		sim_time_t at = MAX(k->t_pos, t_end);

		q->parked = false;
		if (n->in_reshare) { /* the walk holds the lists: at its start */
			flow_event(n, at - now, FL_START, k, 0);
		} else {
			q->later = 0;
			begin_ahead(n, k, at, fl);
		}
	}
	return true;
}

/* Whether fl, sending from its node's memory, may leave its line once its
 * rest fits the room in its first channel's receive buffer (release_plan):
 * a message of payload, under max-min sharing, on a route of two hops or
 * more (a switch or a rank forwards it: both queue a packet by the channel
 * it leaves on), with a message waiting behind it in line. */
static bool releasable(const struct flow_net *n, const struct flow *fl)
{
	if (fl->hops < 2 || n->arbiter != LINK_FLOW_MAXMIN || fl->bytes == 0 ||
	    fl->ghost || fl->unshared || fl->detached || fl->rate <= 0 ||
	    fl->t_pos > sim_now(n->s))
		return false;
	const struct chan_fifo *q = &n->ch[fl->chan0].q;

	return q->active == fl->id && q->head;
}

static bool load_fills(const struct fres *r, double load);

/* Whether resource x is one that fl leaves when released: its first
 * channel, or its source's memory side. */
static bool left_at_release(const struct flow_net *n, const struct flow *fl, uint32_t x)
{
	return x == (uint32_t)fl->chan0 || x == (uint32_t)n->nchans + (uint32_t)fl->src;
}

/* Whether resource x holds fl under max-min: it is full, and no flow there
 * goes faster. */
static bool holds(const struct flow_net *n, uint32_t x, const struct flow *fl)
{
	const struct fres *r = &n->res[x];

	if (!load_fills(r, r->used))
		return false;
	for (uint32_t i = 0; i < r->n; i++)
		if (res_fl(r)[i]->rate > fl->rate * (1 + SAT_MARGIN))
			return false;
	return true;
}

/* Plans fl's release (FL_RELEASE): when, at its rate of now, its rest fits
 * the room its first channel's receive buffer has left beside the messages
 * released there before. */
static void release_plan(struct flow_net *n, struct flow *fl)
{
	if (fl->rel_pending) {
		sim_cancel(n->s, fl->ext->rel_ev);
		fl->rel_pending = false;
	}
	if (!releasable(n, fl))
		return;
	if (!n->held)
		n->held = g_new0(double, n->nchans);
	sim_time_t now = sim_now(n->s);
	double over = fl->units - pos_at(fl, now) - (par_of(n, fl->chan0)->buf - n->held[fl->chan0]);
	double d = over > 0 ? ceil(over / fl->rate) : 0;

	if (d >= (double)(SIM_TIME_END - now))
		return;
	fl->ext->rel_ev = sim_event_ref(flow_event(n, (sim_time_t)d, FL_RELEASE, fl, 0));
	fl->rel_pending = true;
}

/* FL_RELEASE: fl's rest fits the room in its first channel's receive
 * buffer. The packet fabric queues a packet there by the channel it leaves
 * on, so the messages behind fl in its line pass it where its next channel
 * holds it: fl's rest crosses its first channel at that channel's and its
 * memory's rate, the line goes on after it (FL_LINE), and fl leaves the
 * first channel and its source's memory side, sending on at what the rest
 * of its route gives it. Its bytes count against the room until it has
 * sent its last. */
static void on_release(struct flow_net *n, struct flow *fl)
{
	fl->rel_pending = false;
	if (!releasable(n, fl))
		return;
	/* one that its first channel or its memory holds sends its rest there
	 * at its rate: it keeps its line (a later rate plans again) */
	for (uint32_t u = 0; u < fl->nuse; u++) {
		uint32_t r = fl->use[u].res;

		if (left_at_release(n, fl, r) && holds(n, r, fl))
			return;
	}
	sim_time_t now = sim_now(n->s);
	double rest = fl->units - pos_at(fl, now);

	if (rest > par_of(n, fl->chan0)->buf - n->held[fl->chan0] + 1) {
		release_plan(n, fl); /* a rate that fell since */
		return;
	}
	struct chan_fifo *q = &n->ch[fl->chan0].q;
	struct flow_use gone[2];
	uint32_t ngone = 0, w = 0;
	double cross = 0; /* ps its rest takes to cross them */

	n->held[fl->chan0] += rest;
	fl->ext->rel_units = rest;
	buf_pair_hold(n, fl->pair, +1);
	fl->detached = true;
	q->active = 0;
	q->busy = false;
	for (uint32_t u = 0; u < fl->nuse; u++) {
		uint32_t r = fl->use[u].res;

		if (left_at_release(n, fl, r)) {
			res_remove(&n->res[r], fl, fl->use[u].w);
			cross = MAX(cross, rest * fl->use[u].w / n->res[r].cap);
			gone[ngone++] = fl->use[u];
		} else {
			fl->use[w++] = fl->use[u];
		}
	}
	fl->nuse = (uint16_t)w;
	reshare(n, gone, ngone, true);
	cross = ceil(cross);
	if (cross >= 1 && cross < (double)(SIM_TIME_END - now)) {
		struct sim_event *ev = sim_schedule(n->s, (sim_time_t)cross, &n->c, FL_LINE);

		ev->data[1].u = (uint64_t)fl->chan0;
		q->busy = true;
		return;
	}
	start_waiting(n, q);
}

static void schedule_progress_(struct flow_net *n, struct flow *fl);

/* A flow's next event (schedule_progress_), and its release's. */
static void schedule_progress(struct flow_net *n, struct flow *fl)
{
	schedule_progress_(n, fl);
	release_plan(n, fl);
}

static void schedule_progress_(struct flow_net *n, struct flow *fl)
{
	sim_time_t now = sim_now(n->s);
	double left = units_of(fl, fl->next_x) - fl->pos;

	g_assert(fl->rate > 0 && !fl->ghost); /* a ghost's event is its delivery (dev) */
	if (fl->ahead && fl->ev_pending && left <= 0) {
		/* sent: its arrival does not move; unless the flow ends
		 * sending before then, which then needs its event */
		if (fl->grown || fl->t_pos + (fl->units - fl->pos) / fl->rate >= (double)fl->ev.ev->time)
			return;
		land_ahead(n, fl);
		left = units_of(fl, fl->next_x) - fl->pos;
	} else if (fl->ahead && !fl->grown) {
		fl->ahead = ahead_of(fl); /* at the rate of now */
	}
	double d = left > 0 ? ceil(left / fl->rate) : 0;
	/* pos is at t_pos: now, later for a flow begun ahead, or earlier for
	 * one whose position is its last boundary sent (on_arrive) */
	sim_time_t wait = fl->t_pos > now ? fl->t_pos - now : 0;
	sim_time_t behind = fl->t_pos < now ? now - fl->t_pos : 0;
	sim_time_t delay = d >= (double)SIM_TIME_END ? SIM_TIME_END : (sim_time_t)d;
	uint32_t type = FL_PROGRESS;

	delay = delay > behind ? delay - behind : 0;
	delay = MIN(delay, SIM_TIME_END - now - wait) + wait;
	if (fl->ahead && delay < SIM_TIME_END - now - fl->tail) {
		/* its delivery, in order behind what the pair delivered before */
		sim_time_t last = g_array_index(n->pair_last, sim_time_t, fl->pair);

		fl->t_next = now + delay;
		delay = MAX(now + delay + fl->tail, last) - now;
		type = FL_ARRIVE;
	}
	if (type == FL_PROGRESS && fl->next_x == fl->bytes && fl->bytes > 0 &&
	    end_unseen(n, fl, now + delay))
		return;
	if (fl->ev_pending) {
		/* one due then already (a message that grew, a rate that did
		 * not move it) stands */
		if (fl->ev.ev->time == now + delay && fl->ev.ev->type == type)
			return;
		sim_cancel(n->s, fl->ev);
	}
	fl->ev = sim_event_ref(flow_event(n, delay, type, fl, 0));
	fl->ev_pending = true;
}

/* ---- per-input round robin at each channel's arbiter (rr_share) ---- */

static uint32_t vres_new(struct flow_net *n, double cap, uint8_t kind)
{
	g_assert(n->hv_len < n->hv_cap);
	n->hv[n->hv_len] = (struct vres){ .cap = cap, .demand = INFINITY, .next_sub = -1,
					  .in = -1, .kind = kind };
	return n->hv_len++;
}

/* The sub of channel c's resource cv for input `in` (-1: memory) on
 * virtual channel vc. */
static int32_t sub_of(struct flow_net *n, int32_t cv, int in, uint8_t vc)
{
	int32_t s = n->hv[cv].next_sub;

	for (; s >= 0; s = n->hv[s].next_sub)
		if (n->hv[s].in == in && n->hv[s].vc == vc)
			return s;
	s = (int32_t)vres_new(n, INFINITY, VR_SUB);
	struct vres *x = &n->hv[s];
	struct vres *c = &n->hv[cv];

	x->in = in;
	x->vc = vc;
	x->next_sub = c->next_sub;
	c->next_sub = s;
	return s;
}

static double vres_level(const struct vres *r)
{
	return MAX(r->cap - r->used, 0) / r->wsum;
}

static bool vkey_less(struct vkey a, struct vkey b)
{
	return a.level < b.level || (a.level == b.level && a.v < b.v);
}

/* Empty, for indices 0..n, scanned until the scans have seen budget
 * entries. */
static void lh_reset(struct lheap *q, guint n, size_t budget)
{
	if (n > q->cap) {
		q->cap = MAX(n, 2 * q->cap);
		q->h = g_renew(struct vkey, q->h, q->cap);
		q->at = g_renew(uint32_t, q->at, q->cap);
	}
	q->len = 0;
	q->n = n;
	q->heaped = false;
	q->work = 0;
	q->budget = budget;
}

/* A candidate at first (its level is read when scanned). */
static void lh_add(struct lheap *q, uint32_t v)
{
	q->h[q->len++] = (struct vkey){ 0, v };
}

static void lh_place(struct lheap *q, guint i, struct vkey k)
{
	q->h[i] = k;
	q->at[k.v] = i;
}

static void lh_up(struct lheap *q, guint i, struct vkey k)
{
	while (i > 0) {
		guint p = (i - 1) / 2;

		if (!vkey_less(k, q->h[p]))
			break;
		lh_place(q, i, q->h[p]);
		i = p;
	}
	lh_place(q, i, k);
}

static void lh_down(struct lheap *q, guint i, struct vkey k)
{
	for (;;) {
		guint c = 2 * i + 1;

		if (c >= q->len)
			break;
		if (c + 1 < q->len && vkey_less(q->h[c + 1], q->h[c]))
			c++;
		if (!vkey_less(q->h[c], k))
			break;
		lh_place(q, i, q->h[c]);
		i = c;
	}
	lh_place(q, i, k);
}

/* Index v, in the heap, has now `level`. */
static void lh_set(struct lheap *q, uint32_t v, double level)
{
	struct vkey k = { level, v };
	uint32_t i = q->at[v];

	if (vkey_less(k, q->h[i]))
		lh_up(q, i, k);
	else
		lh_down(q, i, k);
}

static void lh_remove(struct lheap *q, uint32_t v)
{
	uint32_t i = q->at[v];

	if (i == UINT32_MAX)
		return;
	q->at[v] = UINT32_MAX;
	if (i == --q->len)
		return;
	struct vkey last = q->h[q->len];

	if (vkey_less(last, q->h[i]))
		lh_up(q, i, last);
	else
		lh_down(q, i, last);
}

/* After a freeze, index v's constraint has `level`, or none left
 * (!valid): the heap, once heaped, follows it. */
static void lh_touch(struct lheap *q, uint32_t v, bool valid, double level)
{
	if (q->at[v] == UINT32_MAX)
		return;
	if (valid)
		lh_set(q, v, level);
	else
		lh_remove(q, v);
}

/* The candidates h[0..len) become the heap, at their levels now; those
 * with nothing left to freeze are left out. */
static void lh_heapify(struct lheap *q, bool (*level_of)(const void *ctx, uint32_t v, double *level),
		       const void *ctx)
{
	guint w = 0;

	q->heaped = true;
	memset(q->at, 0xff, q->n * sizeof(uint32_t));
	for (guint i = 0; i < q->len; i++) {
		uint32_t v = q->h[i].v;
		double level;

		if (!level_of(ctx, v, &level))
			continue;
		q->h[w] = (struct vkey){ level, v };
		q->at[v] = w++;
	}
	q->len = w;
	for (guint i = w / 2; i-- > 0;)
		lh_down(q, i, q->h[i]);
}

/* The heap's least, removed, into *k; false when it is empty. */
static bool lh_pop(struct lheap *q, struct vkey *k)
{
	if (!q->len)
		return false;
	*k = q->h[0];
	lh_remove(q, k->v);
	return true;
}

/* Whether a constraint is left to fill; if so, the least, into *k (removed
 * from the heap, once heaped). level_of gives an index's level now, false
 * once it has nothing left to freeze. */
static inline bool fill_next(struct lheap *q, bool (*level_of)(const void *ctx, uint32_t v, double *level),
			     const void *ctx, struct vkey *k)
{
	if (q->heaped)
		return lh_pop(q, k);
	/* in index order, so the first of the least level is the least */
	guint w = 0;

	*k = (struct vkey){ INFINITY, UINT32_MAX };
	for (guint i = 0; i < q->len; i++) {
		uint32_t v = q->h[i].v;
		double level;

		if (!level_of(ctx, v, &level))
			continue;
		if (w != i)
			q->h[w].v = v;
		w++;
		if (level < k->level)
			*k = (struct vkey){ level, v };
	}
	q->len = w;
	q->work += w;
	if (q->work <= q->budget || k->v == UINT32_MAX)
		return k->v != UINT32_MAX;
	lh_heapify(q, level_of, ctx);
	return lh_pop(q, k);
}

static void lh_free(struct lheap *q)
{
	g_free(q->h);
	g_free(q->at);
}

static bool vres_level_of(const void *ctx, uint32_t v, double *level)
{
	const struct vres *r = (const struct vres *)ctx + v;

	*level = vres_level(r);
	return r->nfree && r->wsum > 0;
}

/* One round of progressive filling over the constraints: rate[f] of each
 * flow, bhop[f] the hop of the constraint that froze it, and whether a sub
 * froze a flow. */
static void rr_fill(struct flow_net *n, guint nf, double *rate, const uint32_t *fm,
		      const uint32_t *by, bool *frozen, int32_t *bhop, bool *sub_froze)
{
	struct vres *V = n->hv;
	const struct vmem *M = n->hm;
	guint nv = n->hv_len;
	struct lheap *q = &n->fill;
	struct vkey k;

	*sub_froze = false;
	lh_reset(q, nv, FILL_SCAN_PER_MEMBER * (size_t)fm[nf]);
	for (guint v = 0; v < nv; v++) {
		V[v].used = 0;
		V[v].wsum = V[v].wsum0;
		V[v].nfree = V[v].m1 - V[v].m0;
		if (V[v].nfree && V[v].wsum > 0 && isfinite(V[v].cap))
			lh_add(q, v);
	}
	memset(frozen, 0, nf * sizeof(bool));
	while (fill_next(q, vres_level_of, V, &k)) {
		struct vres *b = &V[k.v];
		bool heaped = q->heaped;

		for (uint32_t j = b->m0; j < b->m1; j++) {
			uint32_t f = M[by[j]].f;

			if (frozen[f])
				continue;
			frozen[f] = true;
			*sub_froze |= b->kind == VR_SUB;
			rate[f] = k.level;
			bhop[f] = M[by[j]].hop;
			for (uint32_t m = fm[f]; m < fm[f + 1]; m++) {
				struct vres *r = &V[M[m].v];

				r->used += k.level * M[m].w;
				r->wsum -= M[m].w;
				r->nfree--;
			}
			for (uint32_t m = fm[f]; heaped && m < fm[f + 1]; m++) {
				double level;
				bool valid = vres_level_of(V, M[m].v, &level);

				lh_touch(q, M[m].v, valid, level);
			}
		}
	}
}

/* Each channel's capacity among the inputs of its arbiter that use it:
 * equal shares, an input that asks less (demand) leaving the rest to the
 * others; every sub's cap is that share. Whether a cap changed. */
static bool rr_split(struct flow_net *n)
{
	struct vres *V = n->hv;
	guint nv = n->hv_len;
	bool changed = false;

	for (guint c = 0; c < nv; c++) {
		if (V[c].kind != VR_RES || V[c].next_sub < 0)
			continue;
		uint32_t k = 0;

		for (int32_t s = V[c].next_sub; s >= 0; s = V[s].next_sub)
			k++;
		double share = V[c].cap / k;

		for (;;) {
			double left = V[c].cap;
			uint32_t wanting = 0;

			for (int32_t s = V[c].next_sub; s >= 0; s = V[s].next_sub) {
				if (V[s].demand < share)
					left -= V[s].demand;
				else
					wanting++;
			}
			double next = wanting ? left / wanting : share;

			if (!(next > share))
				break;
			share = next;
		}
		for (int32_t s = V[c].next_sub; s >= 0; s = V[s].next_sub) {
			changed |= V[s].cap != share;
			V[s].cap = share;
		}
	}
	return changed;
}

/* Whether a demand of this round is that of an earlier one. */
static bool rr_same(double a, double b)
{
	return a == b || fabs(a - b) <= RR_TOLERANCE * b;
}

/* Whether the demands of this round (the history's entry for round) are
 * those of a round p = 2..RR_HISTORY - 1 before: the rounds then cycle
 * through the p allocations in between, none a fixed point, and the
 * arbiter's turns alternate between them. Then rate is their mean (each
 * is feasible, so their mean is). */
static bool rr_cycle(const double *hist, guint nf, guint nsub, int round, double *rate)
{
	gsize w = (gsize)nf + nsub;
	const double *now = hist + (round % RR_HISTORY) * w + nf;

	for (int p = 2; p < RR_HISTORY && p <= round; p++) {
		const double *then = hist + ((round - p) % RR_HISTORY) * w + nf;
		guint u = 0;

		while (u < nsub && rr_same(now[u], then[u]))
			u++;
		if (u < nsub)
			continue;
		for (guint i = 0; i < nf; i++) {
			double sum = 0;

			for (int j = round - p + 1; j <= round; j++)
				sum += hist[(j % RR_HISTORY) * w + i];
			rate[i] = sum / p;
		}
		return true;
	}
	return false;
}

/* The rates of a component some of whose routes have more than one hop:
 * progressive filling over the resources and each channel's share per
 * input of its arbiter (rr_split, flow.h); an input's demand is what its
 * flows held before that channel take, so the shares are rounds to a
 * fixed point. */
static void rr_share(struct flow_net *n, GPtrArray *flows, GArray *res)
{
	guint nf = flows->len;
	uint32_t nm = 0, need_v = res->len, need_m = 0;

	for (guint i = 0; i < nf; i++) {
		const struct flow *fl = flows->pdata[i];

		need_v += (uint32_t)fl->hops;
		need_m += fl->nuse + (uint32_t)fl->hops;
	}
	if (need_v > n->hv_cap) {
		n->hv_cap = MAX(need_v, 2 * n->hv_cap);
		n->hv = g_renew(struct vres, n->hv, n->hv_cap);
	}
	if (need_m > n->hm_cap) {
		n->hm_cap = MAX(need_m, 2 * n->hm_cap);
		n->hm = g_renew(struct vmem, n->hm, n->hm_cap);
	}
	n->hv_len = 0;
	if (!n->rr_map) {
		n->rr_map = g_new(int32_t, n->nres);
		for (int i = 0; i < n->nres; i++)
			n->rr_map[i] = -1;
	}
	struct vmem *M = n->hm;

	g_array_set_size(n->rr_u32, 2 * (gsize)nf + 2);
	g_array_set_size(n->rr_rate, nf);
	uint32_t *fm = (uint32_t *)(void *)n->rr_u32->data;
	double *rate = (double *)(void *)n->rr_rate->data;

	for (guint k = 0; k < res->len; k++) {
		uint32_t r = g_array_index(res, uint32_t, k);

		n->rr_map[r] = (int32_t)vres_new(n, n->res[r].cap > 0 ? n->res[r].cap : INFINITY,
						  VR_RES);
	}
	for (guint i = 0; i < nf; i++) {
		struct flow *fl = flows->pdata[i];
		int hops = fl->nuse >= (uint32_t)fl->hops ? fl->hops : 0;

		rate[i] = fl->rate;
		fm[i] = nm;
		for (uint32_t u = 0; u < fl->nuse; u++) {
			uint32_t r = fl->use[u].res;
			int32_t hop = (int)u < hops ? (int32_t)u
					  : r == (uint32_t)(n->nchans + fl->src) ? -1 : hops;

			double w = fl->use[u].w;
			uint32_t v = (uint32_t)n->rr_map[r];

			/* each constraint counts its members (m1) and adds their
			 * weights, in the order of the members */
			M[nm++] = (struct vmem){ v, i, hop, w };
			n->hv[v].m1++;
			n->hv[v].wsum0 += w;
			if ((int)u >= hops)
				continue;
			int in = u ? (int)fl->use[u - 1].res : -1;
			uint8_t vc = u ? fl->ext->vc[u - 1] : 0;

			v = (uint32_t)sub_of(n, n->rr_map[r], in, vc);
			M[nm++] = (struct vmem){ v, i, hop, w };
			n->hv[v].m1++;
			n->hv[v].wsum0 += w;
		}
	}
	fm[nf] = nm;
	/* members by constraint */
	struct vres *V = n->hv;
	guint nv = n->hv_len;

	g_array_set_size(n->rr_by, nm + nf);
	uint32_t *by = (uint32_t *)(void *)n->rr_by->data;

	for (guint v = 0, at = 0; v < nv; v++) {
		uint32_t count = V[v].m1;

		V[v].m0 = V[v].m1 = at;
		at += count;
	}
	for (guint k = 0; k < nm; k++)
		by[V[M[k].v].m1++] = k;
	bool *frozen = (bool *)(void *)(fm + nf + 1);
	int32_t *bhop = (int32_t *)(void *)n->rr_by->data + nm;

	/* what an input asks of a channel: its flows' rates where each is held
	 * before that channel (upstream, or at its source); one held there or
	 * after it would take more. The first round starts from the flows'
	 * last shares (a flow's start or end changes few of them). */
	for (guint i = 0; i < nf; i++) {
		const struct flow *fl = flows->pdata[i];

		bhop[i] = fl->ext->rr_rate == fl->rate ? fl->ext->rr_bhop : INT32_MAX;
	}
	/* the last RR_HISTORY rounds' rates (from the fill before each) and
	 * demands, to find a cycle */
	guint nsub = 0;

	for (guint v = 0; v < nv; v++)
		nsub += V[v].kind == VR_SUB;
	g_array_set_size(n->rr_hist, RR_HISTORY * ((gsize)nf + nsub));
	double *hist = (double *)(void *)n->rr_hist->data;

	int round;

	for (round = 0; round < RR_ROUNDS; round++) {
		bool sub_froze, same = true;
		double *hr = hist + (round % RR_HISTORY) * ((gsize)nf + nsub), *hd = hr + nf;

		for (guint v = 0, u = 0; v < nv; v++) {
			if (V[v].kind != VR_SUB)
				continue;
			double next = 0;

			/* its members in flow order, as they were added */
			for (uint32_t j = V[v].m0; j < V[v].m1 && next < INFINITY; j++) {
				const struct vmem *m = &M[by[j]];

				next += bhop[m->f] < m->hop ? rate[m->f] * m->w : INFINITY;
			}
			same &= rr_same(next, V[v].demand);
			V[v].demand = next;
			hd[u++] = next;
		}
		/* the shares of the round before are the shares these rates ask */
		if (round && same)
			break;
		memcpy(hr, rate, nf * sizeof(double));
		if (rr_cycle(hist, nf, nsub, round, rate)) {
			n->rr_stats.cycles++;
			break;
		}
		/* demands that leave every share as it was give the fill before
		 * again */
		if (!rr_split(n) && round)
			break;
		rr_fill(n, nf, rate, fm, by, frozen, bhop, &sub_froze);
		n->rr_stats.fills++;
		/* no share held a flow: max-min over the resources, as without */
		if (!sub_froze)
			break;
	}
	n->rr_stats.shares++;
	n->rr_stats.unsettled += round == RR_ROUNDS;
	for (guint k = 0; k < res->len; k++)
		n->rr_map[g_array_index(res, uint32_t, k)] = -1;
	for (guint i = 0; i < nf; i++) {
		struct flow *fl = flows->pdata[i];
		double old = fl->rate;

		g_assert(rate[i] > 0 && isfinite(rate[i]));
		fl->rate = rate[i];
		fl->ext->rr_rate = rate[i];
		fl->ext->rr_bhop = bhop[i];
		fl->frozen = true;
		if (old != fl->rate || !fl->ev_pending)
			schedule_progress(n, fl);
	}
}

/* ---- receive buffers as a fluid (buf_share, flow.arbiter: buffers) ---- */

/* The least rate a flow is given, relative to its bound. */
#define BUF_STARVED 1e-6

/* An input's traffic to one output of a node: from a buffer, or from the
 * node's memory (its messages on one channel, in line). */
struct bedge {
	int32_t out;      /* its output (struct bout) */
	int32_t fifo;     /* the buffer it drains, -1: memory */
	int32_t node;     /* memory: its node */
	uint8_t mvc;      /* memory: the virtual channel its messages land in */
};

/* An output: a channel, or a node's ejection. */
struct bout {
	int32_t chan;     /* -1: ejection */
	double cap;       /* bytes per ps */
	uint32_t e0, e1;  /* its edges: oedge[e0..e1) */
};

/* A share's fluid: its flows' members (each hop, then the ejection), the
 * inputs and outputs they use, and the step's scratch. */
struct bfluid {
	struct flow_net *n;
	GPtrArray *flows;
	guint nf;
	uint32_t nm;
	double dt;
	uint32_t *m0;      /* flow i's members m0[i]..m0[i + 1) */
	int32_t *medge;    /* member -> edge */
	int32_t *mland;    /* member -> the buffer its hop lands in, -1: delivered */
	double *mw;        /* member -> bytes on its output per unit */
	GArray *edges, *outs;
	int32_t nq, ne, no;
	uint32_t *oedge;
	int32_t *qof;      /* output x virtual channel -> the buffer below, -1 */
	double *x;         /* member (a hop) -> units of its flow in the buffer below */
	bool *fresh;       /* flow -> it starts with nothing in the buffers */
	double *inj;       /* node -> its memory lines' grants (scratch) */
	double *de;        /* edge from a buffer -> the share of its part there that
			    * leaves in the step */
	double *dx, *tot, *off, *offv, *d, *g, *rel, *tmp_d, *tmp_g;
	uint32_t *mwant;
};

static void bfluid_free(struct bfluid *b)
{
	g_free(b->m0);
	g_free(b->medge);
	g_free(b->mland);
	g_free(b->mw);
	g_free(b->x);
	g_free(b->dx);
	g_array_unref(b->edges);
	g_array_unref(b->outs);
	g_free(b->oedge);
	g_free(b->qof);
	g_free(b->tot);
	g_free(b->de);
	g_free(b->off);
	g_free(b->offv);
	g_free(b->d);
	g_free(b->g);
	g_free(b->rel);
	g_free(b->tmp_d);
	g_free(b->tmp_g);
	g_free(b->mwant);
	g_free(b->inj);
	g_free(b->fresh);
}

/* Round robin: cap among demands d[0..k) in equal shares, an input that
 * asks less leaving the rest to the others: g. */
static void buf_fill(double cap, const double *d, double *g, uint32_t k)
{
	uint32_t left = k;
	double rest = cap;

	for (uint32_t i = 0; i < k; i++)
		g[i] = -1;
	while (left) {
		double share = rest / left;
		bool any = false;

		for (uint32_t i = 0; i < k; i++)
			if (g[i] < 0 && d[i] <= share) {
				g[i] = d[i];
				rest -= d[i];
				left--;
				any = true;
			}
		if (any)
			continue;
		for (uint32_t i = 0; i < k; i++)
			if (g[i] < 0)
				g[i] = share;
		break;
	}
}

/* One step of dt: each output's round robin among its inputs within the
 * space of the buffers below, each buffer's part for an output draining
 * at what that output grants it (the packet fabric queues a channel's
 * arrivals by the channel they leave on, in the room of the buffer they
 * share), the flows of a part in the proportions it holds them, memory
 * sending what it is granted of what rem[] has left to send; got[] adds
 * what each flow delivered. */
static void buf_step(struct bfluid *b, double *rem, double *got)
{
	struct flow_net *n = b->n;
	const struct bedge *E = (const struct bedge *)(const void *)b->edges->data;
	const struct bout *O = (const struct bout *)(const void *)b->outs->data;
	double dt = b->dt;

	memset(b->tot, 0, (size_t)b->nq * sizeof(double));
	memset(b->off, 0, (size_t)b->ne * sizeof(double));
	memset(b->offv, 0, (size_t)b->ne * FLOW_VCS * sizeof(double));
	memset(b->mwant, 0, (size_t)b->ne * sizeof(uint32_t));
	for (guint i = 0; i < b->nf; i++) {
		const struct flow *fl = b->flows->pdata[i];
		uint32_t m = b->m0[i];
		int h = fl->hops;

		for (int u = 0; u < h; u++)
			b->tot[b->mland[m + u]] += b->x[m + u] * b->mw[m + u];
		b->mwant[b->medge[m]] += rem[i] > 0;
		for (int u = 1; u <= h; u++) {
			double o = b->x[m + u - 1] * b->mw[m + u];
			int32_t e = b->medge[m + u];

			b->off[e] += o;
			b->offv[(gsize)e * FLOW_VCS + (u < h ? fl->ext->vc[u] : 0)] += o;
		}
	}
	for (int32_t o = 0; o < b->no; o++) {
		double K = O[o].cap * dt;
		uint32_t k = O[o].e1 - O[o].e0;
		const uint32_t *oe = b->oedge + O[o].e0;

		for (uint32_t j = 0; j < k; j++) {
			int32_t e = (int32_t)oe[j];

			b->d[e] = 0;
			if (E[e].fifo < 0 && b->mwant[e]) {
				b->off[e] = K;
				b->offv[(gsize)e * FLOW_VCS + E[e].mvc] = K;
			}
		}
		/* the space below each virtual channel, round robin among
		 * the inputs that offer for it */
		for (int v = 0; v < FLOW_VCS; v++) {
			double space = INFINITY;
			bool any = false;

			if (O[o].chan >= 0) {
				int32_t q = b->qof[o * FLOW_VCS + v];

				space = MAX(par_of(n, O[o].chan)->buf - (q >= 0 ? b->tot[q] : 0), 0);
			}
			for (uint32_t j = 0; j < k; j++) {
				b->tmp_d[j] = MIN(b->offv[(gsize)oe[j] * FLOW_VCS + v], K);
				any |= b->tmp_d[j] > 0;
			}
			if (!any)
				continue;
			buf_fill(MIN(space, K), b->tmp_d, b->tmp_g, k);
			for (uint32_t j = 0; j < k; j++)
				b->d[oe[j]] += b->tmp_g[j];
		}
	}
	/* rounds: the grants, and what a node's memory cannot send for its
	 * injection rate left to the other inputs; a round that caps no
	 * memory line leaves the demands, and so the next round's grants, as
	 * they were */
	for (int round = 0; round < 3; round++) {
		bool capped = false;

		for (int32_t o = 0; o < b->no; o++) {
			uint32_t k = O[o].e1 - O[o].e0;
			const uint32_t *oe = b->oedge + O[o].e0;

			for (uint32_t j = 0; j < k; j++)
				b->tmp_d[j] = b->d[oe[j]];
			buf_fill(O[o].cap * dt, b->tmp_d, b->tmp_g, k);
			for (uint32_t j = 0; j < k; j++)
				b->g[oe[j]] = b->tmp_g[j];
		}
		/* a node's memory sends no faster than its injection rate: its
		 * lines' grants in proportion */
		if (n->mem_sides) {
			for (int32_t e = 0; e < b->ne; e++)
				if (E[e].fifo < 0)
					b->inj[E[e].node] = 0;
			for (int32_t e = 0; e < b->ne; e++)
				if (E[e].fifo < 0)
					b->inj[E[e].node] += b->g[e];
			for (int32_t e = 0; e < b->ne; e++) {
				double cap = n->res[n->nchans + E[e].node].cap * dt;

				if (E[e].fifo < 0 && cap > 0 && b->inj[E[e].node] > cap) {
					b->g[e] *= cap / b->inj[E[e].node];
					b->d[e] = b->g[e];
					capped = true;
				}
			}
		}
		if (!capped)
			break;
	}
	for (int32_t e = 0; e < b->ne; e++) {
		if (E[e].fifo >= 0)
			b->de[e] = b->off[e] > 0 ? MIN(b->g[e] / b->off[e], 1) : 0;
		b->rel[e] = E[e].fifo >= 0 ? 0 : b->mwant[e] ? b->g[e] : 0;
	}
	memset(b->dx, 0, (size_t)b->nm * sizeof(double));
	for (guint i = 0; i < b->nf; i++) {
		const struct flow *fl = b->flows->pdata[i];
		uint32_t m = b->m0[i];
		int h = fl->hops;

		for (int u = 0; u <= h; u++) {
			double moved;

			if (!u) {
				if (rem[i] <= 0)
					continue;
				moved = MIN(b->rel[b->medge[m]] / b->mwant[b->medge[m]] / b->mw[m], rem[i]);
				rem[i] -= moved;
			} else {
				moved = b->x[m + u - 1] * b->de[b->medge[m + u]];
				b->dx[m + u - 1] -= moved;
			}
			if (u < h)
				b->dx[m + u] += moved;
			else
				got[i] += moved;
		}
	}
	for (uint32_t m = 0; m < b->nm; m++)
		b->x[m] = MAX(b->x[m] + b->dx[m], 0);
}

/* Flow i's delivery rate after k steps of a run (buf_run). */
static double buf_rate(const struct bfluid *b, guint i, const double *rem, const double *left,
		       const double *got, const double *t_out, int64_t k)
{
	/* a flow that starts empty: its first bytes took a step per hop to
	 * cross, which its tail already counts */
	const struct flow *fl = b->flows->pdata[i];
	double lag = 0;

	if (rem[i] + got[i] >= left[i] * (1 - 1e-12) && b->fresh[i])
		lag = MIN((double)fl->hops, (double)k - 1) * b->dt;
	double t = t_out[i] > 0 ? t_out[i] : (double)k * b->dt;

	return t_out[i] > 0 ? left[i] / MAX(t - lag, b->dt) : k ? got[i] / MAX(t - lag, b->dt) : 0;
}

/* Steps the fluid until k reaches `steps` or every flow that watch[] names
 * (all where NULL) has delivered what left[] holds; t_out[] gets when each
 * did. */
static void buf_steps(struct bfluid *b, double *rem, const double *left, double *got, double *t_out,
		      const bool *watch, int64_t *k, int64_t steps)
{
	guint nf = b->nf, going = 0;

	for (guint i = 0; i < nf; i++)
		going += t_out[i] < 0 && (!watch || watch[i]);
	while (going && *k < steps) {
		buf_step(b, rem, got);
		++*k;
		for (guint i = 0; i < nf; i++)
			if (t_out[i] < 0 && got[i] >= left[i] * (1 - 1e-12)) {
				t_out[i] = (double)*k * b->dt;
				going -= !watch || watch[i];
			}
	}
}

/* Runs the fluid `steps` steps, or until every flow has delivered what
 * left[] holds (rem[]: what it has still to send, the rest being in the
 * buffers); rate[]: each flow's delivery rate, over the time it took to
 * deliver its last where it did, else over the steps. A flow that starts
 * empty on a route of `steps` hops or more has delivered nothing by then
 * (its bytes cross a hop a step): its rate is read from further steps, a
 * window past its route's length, after which the fluid (b->x) is put
 * back as it was after `steps`; rem[] is left as the run left it, which
 * its caller no longer reads. */
static void buf_run(struct bfluid *b, double *rem, const double *left, double *rate, int64_t steps)
{
	guint nf = b->nf;
	g_autofree double *got = g_new0(double, nf);
	g_autofree double *t_out = g_new(double, nf);
	g_autofree bool *watch = NULL;
	int64_t k = 0, ext = steps;

	for (guint i = 0; i < nf; i++)
		t_out[i] = left[i] > 0 ? -1 : 0;
	buf_steps(b, rem, left, got, t_out, NULL, &k, steps);
	for (guint i = 0; i < nf; i++) {
		const struct flow *fl = b->flows->pdata[i];

		rate[i] = buf_rate(b, i, rem, left, got, t_out, k);
		if (b->fresh[i] && t_out[i] < 0 && fl->hops >= steps) {
			if (!watch)
				watch = g_new0(bool, nf);
			watch[i] = true;
			ext = MAX(ext, fl->hops + steps);
		}
	}
	if (!watch)
		return;
	g_autofree double *x = g_memdup2(b->x, (gsize)b->nm * sizeof(double));

	buf_steps(b, rem, left, got, t_out, watch, &k, ext);
	for (guint i = 0; i < nf; i++)
		if (watch[i])
			rate[i] = buf_rate(b, i, rem, left, got, t_out, k);
	memcpy(b->x, x, (size_t)b->nm * sizeof(double));
}

/* The rates of a component with a route of more than one hop where each
 * channel's receive buffer is finite and a rank forwards (flow.arbiter:
 * buffers, flow.h): its buffers are a fluid whose contents each flow keeps
 * (bx) as the last tick left them. One window is run from there; at a tick
 * (buf_commit) it is kept, else only read. Each flow takes its rate from
 * that window. Elsewhere, rr_share's rates. */
static void buf_share(struct flow_net *n, GPtrArray *flows, GArray *res)
{
	guint nf = flows->len;
	bool finite = false, forwarded = false;
	struct bfluid b = { .n = n, .flows = flows, .nf = nf };

	for (guint i = 0; i < nf; i++) {
		const struct flow *fl = flows->pdata[i];

		b.nm += (uint32_t)fl->hops + 1;
		forwarded |= fl->forwarded;
		for (int u = 0; u < fl->hops; u++)
			finite |= isfinite(par_of(n, (int)fl->use[u].res)->buf);
	}
	/* the buffers of ranks that forward: a switch's inputs each hold one
	 * source's messages in line, which max-min already shares */
	if (!finite || !forwarded) {
		rr_share(n, flows, res);
		return;
	}
	b.dt = n->buf_dt;
	uint32_t m = 0;

	/* outputs by channel or ejecting node, buffers by channel x virtual
	 * channel: indices in the order first met, the maps emptied after */
	if (!n->buf_omap) {
		n->buf_omap = g_new(int32_t, (gsize)n->nchans + (gsize)n->nranks);
		n->buf_qmap = g_new(int32_t, (gsize)n->nchans * FLOW_VCS);
		memset(n->buf_omap, 0xff, ((gsize)n->nchans + (gsize)n->nranks) * sizeof(int32_t));
		memset(n->buf_qmap, 0xff, (gsize)n->nchans * FLOW_VCS * sizeof(int32_t));
	}
	g_autofree int32_t *okeys = g_new(int32_t, b.nm); /* output -> its map slot */
	g_autofree int32_t *omem = g_new(int32_t, b.nm);  /* output -> its memory edge */
	g_autofree int32_t *qkeys = g_new(int32_t, b.nm); /* buffer -> its map slot */
	g_autofree int32_t *qe = g_new(int32_t, b.nm);    /* buffer -> its first edge */
	g_autofree int32_t *enext = g_new(int32_t, b.nm); /* edge -> its buffer's next */

	b.m0 = g_new(uint32_t, nf + 1);
	b.medge = g_new(int32_t, b.nm);
	b.mland = g_new(int32_t, b.nm);
	b.mw = g_new(double, b.nm);
	b.x = g_new0(double, b.nm);
	b.dx = g_new(double, b.nm);
	b.edges = g_array_new(FALSE, FALSE, sizeof(struct bedge));
	b.outs = g_array_new(FALSE, FALSE, sizeof(struct bout));
	for (guint i = 0; i < nf; i++) {
		const struct flow *fl = flows->pdata[i];
		int h = fl->hops;

		b.m0[i] = m;
		if (fl->ext->bx_n == (uint32_t)h)
			memcpy(b.x + m, fl->ext->bx, (size_t)h * sizeof(double));
		for (int u = 0; u <= h; u++, m++) {
			int32_t okey = u < h ? (int32_t)fl->use[u].res : n->nchans + fl->dst;
			int32_t o = n->buf_omap[okey];

			if (o < 0) {
				double ej = n->mem_sides ? n->res[n->nchans + n->nranks + fl->dst].cap : 0;
				struct bout ob = {
					.chan = u < h ? (int32_t)fl->use[u].res : -1,
					.cap = u < h ? n->res[fl->use[u].res].cap : ej > 0 ? ej : INFINITY,
				};

				o = n->buf_omap[okey] = b.no++;
				okeys[o] = okey;
				omem[o] = -1;
				g_array_append_val(b.outs, ob);
			}
			/* the input: the buffer of the hop before, or memory's line
			 * on the first channel */
			int32_t q = u ? b.mland[m - 1] : -1;
			int32_t e = q < 0 ? omem[o] : qe[q];

			while (q >= 0 && e >= 0 && g_array_index(b.edges, struct bedge, e).out != o)
				e = enext[e];
			if (e < 0) {
				struct bedge eb = { .out = o, .fifo = q, .node = fl->src, .mvc = fl->ext->vc[0] };

				e = b.ne++;
				g_array_append_val(b.edges, eb);
				if (q < 0)
					omem[o] = e;
				else {
					enext[e] = qe[q];
					qe[q] = e;
				}
			}
			b.medge[m] = e;
			b.mland[m] = -1;
			if (u < h) {
				int32_t qk = (int32_t)fl->use[u].res * FLOW_VCS + fl->ext->vc[u];

				if (n->buf_qmap[qk] < 0) {
					n->buf_qmap[qk] = b.nq;
					qkeys[b.nq] = qk;
					qe[b.nq++] = -1;
				}
				b.mland[m] = n->buf_qmap[qk];
			}
			b.mw[m] = fl->use[u < h ? u : h - 1].w;
		}
	}
	b.m0[nf] = m;
	/* each output's edges, and the buffer below it per virtual channel */
	struct bout *O = (struct bout *)(void *)b.outs->data;
	const struct bedge *E = (const struct bedge *)(const void *)b.edges->data;
	g_autofree uint32_t *cnt = g_new0(uint32_t, b.no + 1);

	b.oedge = g_new(uint32_t, b.ne);
	for (int32_t e = 0; e < b.ne; e++)
		cnt[E[e].out + 1]++;
	for (int32_t o = 0; o < b.no; o++) {
		cnt[o + 1] += cnt[o];
		O[o].e0 = O[o].e1 = cnt[o];
	}
	for (int32_t e = 0; e < b.ne; e++)
		b.oedge[O[E[e].out].e1++] = (uint32_t)e;
	b.qof = g_new(int32_t, (gsize)b.no * FLOW_VCS);
	for (int32_t o = 0; o < b.no; o++)
		for (int v = 0; v < FLOW_VCS; v++)
			b.qof[o * FLOW_VCS + v] = O[o].chan >= 0 ? n->buf_qmap[O[o].chan * FLOW_VCS + v] : -1;
	for (int32_t o = 0; o < b.no; o++)
		n->buf_omap[okeys[o]] = -1;
	for (int32_t q = 0; q < b.nq; q++)
		n->buf_qmap[qkeys[q]] = -1;
	b.tot = g_new(double, b.nq);
	b.de = g_new(double, b.ne);
	b.off = g_new(double, b.ne);
	b.offv = g_new(double, (gsize)b.ne * FLOW_VCS);
	b.d = g_new(double, b.ne);
	b.g = g_new(double, b.ne);
	b.rel = g_new(double, b.ne);
	b.tmp_d = g_new(double, b.ne);
	b.tmp_g = g_new(double, b.ne);
	b.mwant = g_new(uint32_t, b.ne);
	b.inj = g_new(double, n->nranks);
	b.fresh = g_new(bool, nf);

	/* one window from the fluid as the last tick left it: kept at a tick
	 * (it is the window from now), else only read */
	g_autofree double *rem = g_new(double, nf);
	g_autofree double *left = g_new(double, nf);
	g_autofree double *rate = g_new(double, nf);

	for (guint i = 0; i < nf; i++) {
		const struct flow *fl = flows->pdata[i];
		double held = 0;

		for (int u = 0; u < fl->hops; u++)
			held += b.x[b.m0[i] + u];
		left[i] = MAX(fl->units - fl->pos, 0);
		rem[i] = MAX(left[i] - held, 0);
		b.fresh[i] = held <= 0;
		/* all in the buffers: its line may go on (at the tick) */
		if (n->buf_commit && rem[i] <= 0 && left[i] > 0 && !fl->detached &&
		    n->ch[fl->chan0].q.active == fl->id && fl->t_pos <= sim_now(n->s)) {
			if (!n->buf_detach)
				n->buf_detach = g_ptr_array_new();
			g_ptr_array_add(n->buf_detach, (gpointer)fl);
		}
	}
	buf_run(&b, rem, left, rate, BUF_WINDOW);
	for (guint i = 0; i < nf; i++) {
		struct flow_ext *x = ((struct flow *)flows->pdata[i])->ext;
		int h = ((struct flow *)flows->pdata[i])->hops;

		if ((uint32_t)h > x->bx_alloc) {
			x->bx_alloc = (uint16_t)h;
			x->bx = g_renew(double, x->bx, h);
		}
		if (n->buf_commit) {
			memcpy(x->bx, b.x + b.m0[i], (size_t)h * sizeof(double));
			x->buf_stamp = n->buf_stamp;
		} else if (x->bx_n != (uint32_t)h) {
			/* not yet in the fluid: it enters it empty at the next tick */
			memset(x->bx, 0, (size_t)h * sizeof(double));
		}
		x->bx_n = (uint16_t)h;
	}
	if (!n->buf_tick_pending) {
		n->buf_tick_pending = true;
		sim_schedule(n->s, (sim_time_t)ceil(BUF_WINDOW * b.dt), &n->c, FL_BUF_TICK);
	}
	for (guint i = 0; i < nf; i++) {
		struct flow *fl = flows->pdata[i];
		double old = fl->rate;
		double rt = MIN(rate[i], fl->bound);

		if (!(fl->units - fl->pos > 0))
			rt = old > 0 ? old : fl->bound; /* all sent: it only drains */
		else if (!(rt > fl->bound * BUF_STARVED))
			rt = fl->bound * BUF_STARVED;
		fl->rate = rt;
		fl->ext->rr_rate = -1;
		fl->frozen = true;
		if (old != fl->rate || !fl->ev_pending)
			schedule_progress(n, fl);
	}
	bfluid_free(&b);
}

/* A resource's level in progressive filling (f its state there), false
 * once it is full or has no unfrozen flow. */
static bool fres_level(const struct fres *r, const struct fres_fill *f, double *level)
{
	if (f->full || !f->nfree || f->wsum <= 0)
		return false;
	*level = MAX(r->cap - r->used, 0) / f->wsum;
	return *level < INFINITY;
}

/* The most a flow's use u of a channel lets it send: cap / w. */
static double chan_level(const struct flow_net *n, const struct flow_use *u)
{
	double cap = n->res[u->res].cap;

	return cap > 0 ? cap / u->w : INFINITY;
}

/* Whether memory side r can never fill: each of its flows sending at its
 * bound (the most its channels let it) would still leave room, with a
 * margin above the sum's rounding. Then no rate that respects the channels
 * fills it, r holds no flow back, and max-min's rates are those of the
 * components it would join taken apart (reshare). */
static bool mem_slack(const struct flow_net *n, const struct fres *r)
{
	double sum = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		const struct flow *fl = res_fl(r)[i];

		sum += fl->bound * ((double)fl->bytes / fl->units);
	}
	return sum < r->cap * (1 - MEM_SLACK_MARGIN);
}

/* reshare's walk: the resources, those of the component in order, and
 * their fill's state */
struct fill_walk {
	const struct fres *all;
	const uint32_t *res;
	const struct fres_fill *fill;
};

static bool fres_level_of(const void *ctx, uint32_t k, double *level)
{
	const struct fill_walk *w = ctx;

	return fres_level(&w->all[w->res[k]], &w->fill[k], level);
}

/* Resource x joins reshare's walk, last (fres.walk_at), its fill's state
 * not yet found whole. */
static void walk_add(struct flow_net *n, uint32_t x)
{
	GArray *res = n->walk_res;

	if (res->len >= n->walk_fill_cap) { /* a seed dropped after the walk has no state */
		n->walk_fill_cap = MAX(res->len + 1, MAX(16, 2 * n->walk_fill_cap));
		n->walk_fill = g_renew(struct fres_fill, n->walk_fill, n->walk_fill_cap);
	}
	n->res[x].walk_at = res->len;
	n->walk_fill[res->len].whole = false; /* until a fill of the walk finds it so */
	g_array_append_val(res, x);
}

/* Whether a flow of the list crosses more than one channel. */
static bool multi_hop(const GPtrArray *flows)
{
	for (guint i = 0; i < flows->len; i++)
		if (((const struct flow *)flows->pdata[i])->hops > 1)
			return true;
	return false;
}

/* Whether reshare leaves resource r out of its walk (max-min): a memory
 * side that can never fill (mem_slack), marked so (walk_at UINT32_MAX). */
static bool walk_skips(const struct flow_net *n, uint32_t r)
{
	if (n->arbiter != LINK_FLOW_MAXMIN || r < (uint32_t)n->nchans || !mem_slack(n, &n->res[r]))
		return false;
	n->res[r].walk_at = UINT32_MAX;
	return true;
}

/* Whether load fills resource r, but for a sum's rounding: max-min's walk
 * goes on through a resource that is full at the rates of its flows (a
 * flow may be held there; fres.used), and leaves one with room out (each
 * of its flows is held elsewhere); what a component's new rates take of it
 * is checked after the fill (reshare). */
static bool load_fills(const struct fres *r, double load)
{
	return load >= r->cap * (1 - SAT_MARGIN);
}

/* What flow fl takes of its resources at its rate, added to their
 * fres.used (sign 1) or taken from it (-1). */
static void uses_take(struct flow_net *n, const struct flow *fl, double sign)
{
	for (uint32_t u = 0; u < fl->nuse; u++)
		n->res[fl->use[u].res].used += sign * fl->rate * fl->use[u].w;
}

/* A flow on its resources given a rate outside a fill: what it takes of
 * each follows (fres.used). */
static void rate_set(struct flow_net *n, struct flow *fl, double rate)
{
	for (uint32_t u = 0; u < fl->nuse; u++)
		n->res[fl->use[u].res].used += (rate - fl->rate) * fl->use[u].w;
	fl->rate = rate;
}

/* Adds flow fl to reshare's walk, and its resources: each one a seed
 * reached, but for those left out (walk_skips), and with `restrict_` those
 * with room (load_fills), which go to `border` instead. */
static void walk_flow(struct flow_net *n, struct flow *fl, uint32_t stamp, bool restrict_,
		      GArray *border)
{
	fl->stamp = stamp;
	g_ptr_array_add(n->walk_flows, fl);
	for (uint32_t u = 0; u < fl->nuse; u++) {
		uint32_t x = fl->use[u].res;

		if (n->res[x].stamp == stamp)
			continue;
		n->res[x].stamp = stamp;
		if (walk_skips(n, x))
			continue;
		if (restrict_ && !load_fills(&n->res[x], n->res[x].used)) {
			n->res[x].walk_at = WALK_BORDER;
			g_array_append_val(border, x);
			continue;
		}
		walk_add(n, x);
	}
}

/* Adds the flows of the walk's resources from the k-th on to the walk
 * (walk_flow): all the flows of the first nseed (the seeds), and with
 * `restrict_`, of the others those of the highest rate (to within
 * SAT_MARGIN), which it may hold; one of a lower rate is held elsewhere
 * (reshare). */
static void walk_from(struct flow_net *n, guint k, guint nseed, uint32_t stamp, bool restrict_,
		      GArray *border)
{
	GArray *res = n->walk_res;

	for (; k < res->len; k++) {
		const struct fres *r = &n->res[g_array_index(res, uint32_t, k)];
		bool all = !restrict_ || k < nseed;
		double top = 0;

		for (uint32_t i = 0; !all && i < r->n; i++)
			top = MAX(top, res_fl(r)[i]->rate);
		for (uint32_t i = 0; i < r->n; i++) {
			struct flow *fl = res_fl(r)[i];

			if (fl->stamp != stamp && (all || fl->rate >= top * (1 - SAT_MARGIN)))
				walk_flow(n, fl, stamp, restrict_, border);
		}
	}
}

/* Whether resource r is in reshare's walk (a constraint of its fill). */
static bool in_walk(const struct fres *r)
{
	return r->walk_at < WALK_BORDER;
}

/* Whether a fill of reshare's walk computes what r's flows take of it
 * anew (fres.used): r is in the walk with all its flows; otherwise the
 * fill follows the walk's flows' new rates on it. */
static bool fill_owns(const struct flow_net *n, const struct fres *r)
{
	return in_walk(r) && n->walk_fill[r->walk_at].whole;
}

/* Progressive filling over the walk's flows and resources (reshare): the
 * resource that fills first freezes its flows, in order, each noted in
 * `done` with the rate it had. What the flows take of the resources left
 * out (fres.used) follows their new rates. */
static void fill(struct flow_net *n, GArray *done)
{
	GPtrArray *flows = n->walk_flows;
	GArray *res = n->walk_res;

	struct fres_fill *F = n->walk_fill;

	g_array_set_size(done, 0);
	for (guint k = 0; k < res->len; k++) {
		F[k].wsum = 0;
		F[k].nfree = 0;
		F[k].full = false;
	}
	size_t members = 0;

	for (guint i = 0; i < flows->len; i++) {
		struct flow *fl = flows->pdata[i];

		fl->frozen = false;
		members += fl->nuse;
		for (uint32_t u = 0; u < fl->nuse; u++) {
			struct fres *r = &n->res[fl->use[u].res];

			if (in_walk(r)) {
				F[r->walk_at].wsum += fl->use[u].w;
				F[r->walk_at].nfree++;
			}
			r->used -= fl->rate * fl->use[u].w; /* its new rate's below */
		}
	}
	/* a resource of the walk with all its flows in it: what they take is
	 * the fill's alone (one flow crosses a resource once) */
	for (guint k = 0; k < res->len; k++) {
		struct fres *r = &n->res[g_array_index(res, uint32_t, k)];

		F[k].whole = F[k].nfree == r->n;
		if (F[k].whole)
			r->used = 0;
	}
	struct lheap *q = &n->fill;
	struct fill_walk w = { n->res, (const uint32_t *)(const void *)res->data, F };

	lh_reset(q, res->len, FILL_SCAN_PER_MEMBER * members);
	for (;;) {
		struct vkey k = { INFINITY, UINT32_MAX };

		if (q->heaped) {
			if (!lh_pop(q, &k))
				break;
		} else {
			/* fill_next's scan, over the walk's resources */
			for (guint i = 0; i < res->len; i++) {
				double level;

				if (fres_level(&n->res[w.res[i]], &F[i], &level) && level < k.level)
					k = (struct vkey){ level, i };
			}
			if (k.v == UINT32_MAX)
				break;
			q->work += res->len;
			if (q->work > q->budget) {
				for (guint i = 0; i < res->len; i++)
					lh_add(q, i);
				lh_heapify(q, fres_level_of, &w);
				lh_remove(q, k.v);
			}
		}
		struct fres *bottleneck = &n->res[w.res[k.v]];
		double best = k.level;
		bool heaped = q->heaped;

		F[k.v].full = true;
		for (uint32_t i = 0; i < bottleneck->n; i++) {
			struct flow *fl = res_fl(bottleneck)[i];

			if (fl->frozen)
				continue;
			fl->frozen = true;
			g_array_append_vals(done, &(struct frozen){ fl, fl->rate }, 1);
			fl->rate = best;
			for (uint32_t u = 0; u < fl->nuse; u++) {
				struct fres *r = &n->res[fl->use[u].res];

				r->used += best * fl->use[u].w;
				if (in_walk(r)) {
					F[r->walk_at].wsum -= fl->use[u].w;
					F[r->walk_at].nfree--;
				}
			}
			for (uint32_t u = 0; heaped && u < fl->nuse; u++) {
				const struct fres *r = &n->res[fl->use[u].res];
				double level = 0;

				if (!in_walk(r))
					continue; /* left out of the walk */
				bool valid = fres_level(r, &F[r->walk_at], &level);

				lh_touch(q, r->walk_at, valid, level);
			}
		}
	}
	for (guint i = 0; i < flows->len; i++) {
		const struct flow *fl = flows->pdata[i];

		for (uint32_t u = 0; !fl->frozen && u < fl->nuse; u++) {
			struct fres *r = &n->res[fl->use[u].res];

			if (!fill_owns(n, r))
				r->used += fl->rate * fl->use[u].w;
		}
	}
}

/* A resource with room that reshare's walk left out joins it. */
static void walk_join(struct flow_net *n, uint32_t x)
{
	if (n->res[x].walk_at != WALK_BORDER)
		return;
	walk_add(n, x);
	n->walk_stats.joins++;
}

/* Recomputes the rates of the component of active flows reachable from the
 * resources of seeds[0..nseeds) (flow.c's opening comment). A memory side
 * that can never fill (mem_slack) joins no component: its flows' rates are
 * those of their components apart. Where a flow has left or changed its
 * weights (`changed`), its memory sides are walked all the same (a flow
 * there may have been held by one that could fill before), but constrain
 * nothing; where one has joined, a side that cannot fill now could not
 * before.
 *
 * Under max-min, every flow is held by a full resource on which no flow
 * goes faster (its bottleneck), so the walk takes only what a change can
 * reach: all the flows of the seeds, and from a flow of the walk its
 * resources that are full (load_fills) and, of each, the flows of its
 * highest rate (walk_from); a flow beyond a resource with room, or slower
 * than another on a full one, is held elsewhere and keeps its rate, and
 * what it takes of a resource of the walk is taken off the capacity the
 * walk's flows share there. After the fill, three checks: a flow of the
 * walk that nothing in it holds brings in its resources; a resource with
 * room that the new rates overfill joins; a flow left out that goes faster
 * than those a resource of the walk now holds joins. Then the fill is done
 * again from the rates of before; where nothing joins, every flow has its
 * bottleneck, and the rates are those of the whole component's fill (to
 * rounding; flow_whole_components). */
static void reshare(struct flow_net *n, const struct flow_use *seeds, uint32_t nseeds,
		    bool changed)
{
	sim_time_t now = sim_now(n->s);
	GPtrArray *flows = n->walk_flows;
	GArray *res = n->walk_res;
	GArray *border = n->walk_border;
	uint32_t stamp = ++n->stamp;
	bool loose = false; /* a seed walked that constrains nothing */
	bool restrict_ = n->arbiter == LINK_FLOW_MAXMIN && !whole_components;

	g_ptr_array_set_size(flows, 0);
	g_array_set_size(res, 0);
	g_array_set_size(border, 0);
	for (uint32_t i = 0; i < nseeds; i++) {
		struct fres *r = &n->res[seeds[i].res];

		if (r->stamp == stamp)
			continue;
		r->stamp = stamp;
		if (!walk_skips(n, seeds[i].res)) {
			walk_add(n, seeds[i].res);
			continue;
		}
		if (!changed)
			continue;
		loose = true;
		g_array_append_val(res, seeds[i].res); /* walked, then dropped */
	}
	guint nseed = res->len;

	walk_from(n, 0, nseed, stamp, restrict_, border);
	if (loose) {
		guint kept = 0;

		for (guint k = 0; k < res->len; k++) {
			uint32_t x = g_array_index(res, uint32_t, k);

			if (n->res[x].walk_at == UINT32_MAX)
				continue;
			n->res[x].walk_at = kept;
			n->walk_fill[kept].whole = false;
			g_array_index(res, uint32_t, kept++) = x;
		}
		g_array_set_size(res, kept);
	}
	if (!flows->len)
		return;
	n->in_reshare = true;
	for (guint i = 0; i < flows->len; i++)
		take_up(n, flows->pdata[i], now);
	if (n->arbiter != LINK_FLOW_MAXMIN && multi_hop(flows)) {
		if (n->arbiter == LINK_FLOW_BUFFERS)
			buf_share(n, flows, res);
		else
			rr_share(n, flows, res);
		n->in_reshare = false;
		return;
	}
	GArray *done = n->walk_done;
	struct flow_walk_stats *st = &n->walk_stats;

	st->reshares++;
	for (;;) {
		st->fills++;
		fill(n, done);
		guint walked = res->len, seen = flows->len;

		for (guint i = 0; i < flows->len; i++) {
			const struct flow *fl = flows->pdata[i];

			for (uint32_t u = 0; !fl->frozen && u < fl->nuse; u++)
				walk_join(n, fl->use[u].res);
		}
		/* a resource with room whose flows went faster: does it still
		 * have room? */
		for (guint i = 0; i < done->len; i++) {
			const struct frozen *f = &g_array_index(done, struct frozen, i);

			for (uint32_t u = 0; f->fl->rate > f->old && u < f->fl->nuse; u++) {
				uint32_t x = f->fl->use[u].res;
				const struct fres *r = &n->res[x];

				if (r->walk_at == WALK_BORDER && r->used > r->cap * (1 + SAT_MARGIN))
					walk_join(n, x);
			}
		}
		/* a resource that holds flows of the walk but not its slower
		 * ones (walk_from), which a flow it holds now goes slower than:
		 * they join */
		for (guint k = 0; k < walked; k++) {
			const struct fres *r = &n->res[g_array_index(res, uint32_t, k)];
			double level = 0;

			if (n->walk_fill[k].whole || !n->walk_fill[k].full)
				continue;
			for (uint32_t i = 0; i < r->n; i++)
				if (res_fl(r)[i]->stamp == stamp)
					level = MAX(level, res_fl(r)[i]->rate);
			for (uint32_t i = 0; i < r->n; i++) {
				struct flow *fl = res_fl(r)[i];

				if (fl->stamp != stamp && fl->rate > level * (1 + SAT_MARGIN)) {
					walk_flow(n, fl, stamp, restrict_, border);
					st->flow_joins++;
				}
			}
		}
		if (res->len == walked && flows->len == seen)
			break;
		/* what joined: the fill starts again from the rates of before */
		for (guint i = 0; i < done->len; i++) {
			const struct frozen *f = &g_array_index(done, struct frozen, i);

			for (uint32_t u = 0; u < f->fl->nuse; u++) {
				struct fres *r = &n->res[f->fl->use[u].res];

				if (!fill_owns(n, r))
					r->used += (f->old - f->fl->rate) * f->fl->use[u].w;
			}
			f->fl->rate = f->old;
		}
		walk_from(n, walked, nseed, stamp, restrict_, border);
		for (guint i = seen; i < flows->len; i++)
			take_up(n, flows->pdata[i], now);
	}
	st->flows += flows->len;
	for (guint b = 0; b < border->len; b++)
		st->left_out += n->res[g_array_index(border, uint32_t, b)].walk_at == WALK_BORDER;
	for (guint i = 0; i < done->len; i++) {
		const struct frozen *f = &g_array_index(done, struct frozen, i);

		if (f->old != f->fl->rate || !f->fl->ev_pending)
			schedule_progress(n, f->fl);
	}
	n->in_reshare = false;
}

/* A flow with a slack function, now that it has a rate: its first piece
 * may be larger than first_bytes (flow.h). */
static void first_piece(struct flow_net *n, struct flow *fl)
{
	if (!fl->slack || fl->pos > 0 || fl->next_x >= fl->bytes || fl->rate <= 0)
		return;
	uint64_t x = fl->next_x;

	set_next(fl, 0, 0);
	if (x != fl->next_x || fl->ahead)
		schedule_progress(n, fl);
}

/* A ghost flow something else needs: one that has sent its last byte
 * leaves its resources and its channel; one still sending becomes an active
 * flow like the others, its delivery left to its FL_PROGRESS. */
static void settle(struct flow_net *n, struct flow *fl)
{
	sim_time_t now = sim_now(n->s);
	struct chan_fifo *q = &n->ch[fl->chan0].q;

	g_assert(fl->ghost);
	fl->ghost = false;
	if (now >= fl->t_end) {
		for (uint32_t u = 0; u < fl->nuse; u++)
			res_remove(&n->res[fl->use[u].res], fl, fl->use[u].w);
		q->busy = false;
		q->active = 0;
		return;
	}
	sim_cancel(n->s, fl->dev);
	g_array_index(n->pair_last, sim_time_t, fl->pair) = fl->prev_last;
	if (now > fl->t_pos) { /* else begun ahead: nothing sent yet */
		fl->pos = MIN(fl->pos + fl->rate * (double)(now - fl->t_pos), fl->units);
		fl->t_pos = now;
	}
	fl->ev = sim_event_ref(flow_event(n, fl->t_end - now, FL_PROGRESS, fl, 0));
	fl->ev_pending = true;
}

/* A flow begun ahead (flow_send_at) something needs before it begins: it
 * leaves its resources and its channel (the ghost it took them over from
 * comes back while that still sends), its events are dropped and its
 * traffic uncounted, and it enters its channel's line at its start
 * (FL_START), as a message sent then would. */
static void unbegin(struct flow_net *n, struct flow *fl)
{
	sim_time_t now = sim_now(n->s);
	struct chan_fifo *q = &n->ch[fl->chan0].q;
	struct flow *g = fl->before && now < fl->before_end ? fl->before : NULL;

	g_assert(q->active == fl->id && !q->head && !q->later);
	if (fl->ghost) {
		sim_cancel(n->s, fl->dev);
		g_array_index(n->pair_last, sim_time_t, fl->pair) = fl->prev_last;
		fl->ghost = false;
	} else if (fl->ev_pending) {
		sim_cancel(n->s, fl->ev);
	}
	fl->ev_pending = false;
	for (uint32_t u = 0; u < fl->nuse; u++)
		res_remove(&n->res[fl->use[u].res], fl, fl->use[u].w);
	unaccount(n, fl);
	fl->before = NULL;
	fl->rate = 0;
	fl->pos = 0;
	fl->last_x = 0;
	set_next(fl, 0, 0);
	q->later = fl->id;
	flow_event(n, fl->t_pos - now, FL_START, fl, 0);
	q->active = flow_id(g);
	q->busy = g != NULL;
	if (g) {
		g->ghost = true;
		g->before = NULL; /* its own, past (it had begun) */
		for (uint32_t u = 0; u < g->nuse; u++)
			res_add(&n->res[g->use[u].res], g, g->use[u].w);
	}
}

/* Before another flow joins resource r: the flow alone on it, if begun
 * ahead, leaves it (unbegin); a ghost there settles. */
static void quiet(struct flow_net *n, struct fres *r)
{
	if (r->n == 1 && res_fl(r)[0]->t_pos > sim_now(n->s))
		unbegin(n, res_fl(r)[0]);
	if (r->n == 1 && res_fl(r)[0]->ghost)
		settle(n, res_fl(r)[0]);
}

/* Where the store has no free flow: hands back the flows that have sent
 * their last byte and only wait for their delivery, which carries what it
 * needs (deliver_event), seen from each channel's active flow:
 *  - a header-only ghost of one hop past its end: to every reader (the
 *    drain and rate of its channel, alone_at, quiet and the sends that
 *    settle it) it is as if it had left its channel, the one resource it
 *    holds, which it does;
 *  - the ghost a message begun ahead took its channel from, past that end
 *    (before_end): unbegin no longer brings it back.
 * The store grows only if that frees less than a quarter of a block, so a
 * scan of the channels comes at most once every FLOW_BLOCK / 4 flows made.
 * Called where no walk holds the resources' lists: as a message is sent. */
static void retire_spent(struct flow_net *n)
{
	sim_time_t now = sim_now(n->s);
	unsigned freed = 0;

	if (n->flows.free)
		return;
	for (int c = 0; c < n->nchans; c++) {
		struct chan_fifo *q = &n->ch[c].q;
		struct flow *a = flow_at(n, q->active);

		if (!a)
			continue;
		if (a->ghost && a->bytes == 0 && a->hops == 1 && now >= a->t_end) {
			for (uint32_t u = 0; u < a->nuse; u++)
				res_remove(&n->res[a->use[u].res], a, a->use[u].w);
			q->busy = false;
			q->active = 0;
			flow_free(n, a);
			freed++;
		} else if (a->before && now >= a->before_end) {
			g_assert(!a->before->ghost);
			flow_free(n, a->before);
			a->before = NULL;
			freed++;
		}
	}
	if (freed < FLOW_BLOCK / 4)
		flows_grow(n);
}

/* The rate of a flow alone on every resource it crosses: its component is
 * itself, and progressive filling gives it the least cap / w of its
 * resources (the same arithmetic as reshare's, which would find the same). */
static double alone_rate(const struct flow_net *n, const struct flow *fl)
{
	double best = INFINITY;

	for (uint32_t u = 0; u < fl->nuse; u++) {
		double level = MAX(n->res[fl->use[u].res].cap - 0.0, 0) / fl->use[u].w;

		if (level < best)
			best = level;
	}
	return best;
}

/* The flow starts sending: it joins its resources, and their component
 * shares again. */
static void activate(struct flow_net *n, struct flow *fl)
{
	sim_time_t now = sim_now(n->s);

	fl->t_pos = now;
	fl->pos = 0;
	fl->rate = 0;
	n->ch[fl->chan0].q.busy = true;
	n->ch[fl->chan0].q.active = fl->id;
	bool alone = true;

	for (uint32_t u = 0; u < fl->nuse; u++) {
		struct fres *r = &n->res[fl->use[u].res];

		quiet(n, r);
		res_add(r, fl, fl->use[u].w);
		alone &= r->n == 1;
	}
	if (!alone && fl->bytes == 0) {
		/* header only among others: its bytes (a packet's header) are
		 * left out of the sharing, so it leaves its resources, sends at
		 * its route's full rate, and moves no other rate */
		for (uint32_t u = 0; u < fl->nuse; u++)
			res_remove(&n->res[fl->use[u].res], fl, fl->use[u].w);
		fl->rate = alone_rate(n, fl);
		fl->unshared = true;
		schedule_progress(n, fl);
		return;
	}
	if (!alone) {
		reshare(n, fl->use, fl->nuse, false);
		first_piece(n, fl);
		return;
	}
	rate_set(n, fl, alone_rate(n, fl));
	if (fl->bytes == 0 && !n->ch[fl->chan0].q.head) {
		/* header only, alone, nothing behind it: its end and delivery
		 * are known now; it stays on its resources until something
		 * else needs them (settle) or it is delivered */
		double d = ceil(fl->units / fl->rate);

		make_ghost(n, fl, now + (d >= (double)(SIM_TIME_END - now) ? SIM_TIME_END - now
									     : (sim_time_t)d));
		return;
	}
	/* its first piece, now that it has a rate, before its event: one
	 * event scheduled, not one scheduled and one cancelled (the same order
	 * of every other event: nothing in between reads the queue) */
	if (fl->slack && fl->next_x < fl->bytes)
		set_next(fl, 0, 0);
	schedule_progress(n, fl);
}

/* Delivers x bytes one tail from now, but never before what the same
 * source has sent the same destination earlier: a shorter tail (a
 * header-only message behind full packets) may not overtake, as a packet
 * cannot pass the one ahead of it on the same path. */
static void deliver_later(struct flow_net *n, struct flow *fl, uint64_t x)
{
	sim_time_t now = sim_now(n->s);
	sim_time_t *last = &g_array_index(n->pair_last, sim_time_t, fl->pair);
	sim_time_t at = MAX(now + fl->tail, *last + gap_taken(n, fl));
	deliver_event(n, at - now + (x == fl->bytes ? fl->late : 0), fl, x, false);
	*last = at;
}

/* A flow's timing, resources and traffic, once it leaves its channel's
 * line (its size is final then): the wire bytes on each channel of its
 * route (use[0..hops).res) as weights, its tail, the memory sides it
 * loads, and what it adds to each channel's statistics. */
static void size_flow(struct flow_net *n, struct flow *fl)
{
	uint64_t bytes = fl->bytes;
	double units = fl->units;
	int hops = fl->hops;
	sim_time_t lat = 0, sum_pkt = 0, max_pkt = 0;

	fl->nuse = 0;
	for (int h = 0; h < hops; h++) {
		int c = (int)fl->use[h].res;
		struct fchan *p = &n->ch[c];
		struct fparams *m = par_of(n, c);
		uint64_t npk = packets_of(m, bytes);
		uint64_t wire = bytes + npk * m->header_bytes;

		if (m->memo_bytes != bytes) {
			m->memo_bytes = bytes;
			m->memo_pkt_ps = link_wire_ps(MIN(bytes, (uint64_t)m->max_payload_bytes) +
							      m->header_bytes,
						      m->bw_bytes_per_s);
			m->memo_busy_ps = link_wire_ps(wire, m->bw_bytes_per_s);
		}
		sim_time_t pkt = m->memo_pkt_ps;

		lat += m->lat_ps;
		sum_pkt += pkt;
		max_pkt = MAX(max_pkt, pkt);
		p->payload_bytes += bytes;
		p->packets += npk;
		p->busy_ps += m->memo_busy_ps;
		if (hops != 1) {
			if (!n->hops_other)
				n->hops_other = g_new0(struct hops_other, n->nchans);
			n->hops_other[c].bytes[MIN(hops, 7)] += bytes;
		}
		if (units > 0)
			fl->use[fl->nuse++] = (struct flow_use){ (uint32_t)c, (double)wire / units };
	}
	fl->bound = INFINITY;
	for (uint32_t u = 0; u < fl->nuse; u++)
		fl->bound = MIN(fl->bound, chan_level(n, &fl->use[u]));
	fl->tail = lat + sum_pkt - max_pkt;
	if (bytes > 0 && n->ej_rate > 0) {
		/* its last packet runs the destination's ejection clock ahead,
		 * where a message of no payload just behind it waits */
		const struct fparams *p0 = par_of(n, (int)fl->use[0].res);
		uint64_t pay = p0->max_payload_bytes;
		uint64_t last = bytes - (packets_of(p0, bytes) - 1) * pay;
		double gap = (double)last / n->ej_rate - n->ej_slack[fl->dst];

		g_array_index(n->pair_gap, sim_time_t, fl->pair) = gap > 0 ? (sim_time_t)ceil(gap) : 0;
	}
	if (fl->forwarded) {
		n->rank_forwarded += bytes;
		n->forwarded_largest = MAX(n->forwarded_largest, bytes);
	}
	if (fl->switched)
		n->switched += bytes;
	n->payload += bytes;
	if (units > 0 && bytes > 0 && n->mem_sides) {
		/* a side's rate clock lets a message's first bytes go at its
		 * links' rate while the clock is within its slack of now (one
		 * packet and the slack's bytes), as the packet fabric's clocks
		 * let its first packets go: those bytes weigh on the side only
		 * for the time the links take them, where the side is the
		 * slower (a side faster than the links binds only where many
		 * flows share it, and then on every byte) */
		double now = (double)sim_now(n->s);
		double link = fl->bound * (double)bytes / units; /* payload per ps */
		int node[2] = { fl->src, fl->dst };
		int edge[2] = { (int)fl->use[0].res, (int)fl->use[hops - 1].res };

		for (int k = 0; k < 2; k++) {
			gsize at = (gsize)k * (gsize)n->nranks + (gsize)node[k];
			uint32_t side = (uint32_t)((gsize)n->nchans + at);
			double cap = n->res[side].cap;

			if (!(cap > 0))
				continue;
			if (!fl->mem_sized) {
				double lead = MAX(n->mem_clock[at] - now, 0);
				double pkt = (double)MIN(bytes, (uint64_t)par_of(n, edge[k])->max_payload_bytes);
				double free = lead <= n->mem_slack[at]
					? MIN((double)bytes, (n->mem_slack[at] - lead) * cap + pkt) : 0;

				fl->mem_free[k] = (uint32_t)MIN(free, (double)UINT32_MAX);
				/* the bytes let go run the clock ahead; the rest go at
				 * the side's rate, which keeps it there */
				n->mem_clock[at] = MAX(n->mem_clock[at], now) + free / cap;
			}
			double free = fl->mem_free[k]; /* at most its first size */

			fl->use[fl->nuse++] = (struct flow_use){
				side, ((double)bytes - free + (isfinite(link) ? free * MIN(cap / link, 1) : 0)) / units
			};
		}
		fl->mem_sized = true;
	} else if (bytes == 0 && n->mem_sides) {
		/* a message of no payload (a flag) waits, as the packet
		 * fabric's does, while a side's clock is more than its slack
		 * ahead: at its source before it leaves, at its destination
		 * before it lands */
		double now = (double)sim_now(n->s), wait = 0;
		int node[2] = { fl->src, fl->dst };

		for (int k = 0; k < 2; k++) {
			gsize at = (gsize)k * (gsize)n->nranks + (gsize)node[k];
			double by = now + wait + (k ? (double)fl->tail : 0);

			if (n->res[(gsize)n->nchans + at].cap > 0)
				wait += MAX(n->mem_clock[at] - n->mem_slack[at] - by, 0);
		}
		fl->tail += (sim_time_t)ceil(wait);
	}
}

/* Starts the messages waiting on channel FIFO q, in order, while it is
 * idle: one with nothing to send (no payload, no header) only waits its
 * tail, so it is delivered behind what was sent before it and the next
 * one starts at once. */
static void start_waiting(struct flow_net *n, struct chan_fifo *q)
{
	while (!q->busy && q->head) {
		struct flow *next = flow_of(n, q->head);

		/* behind a message of its pair still in the buffers: in order */
		if (n->buf_pairs && g_hash_table_contains(n->buf_pairs, GUINT_TO_POINTER(next->pair + 1)))
			break;

		q->head = next->next;
		if (!q->head) {
			q->tail = 0;
			q->waiting_units = 0;
		} else {
			q->waiting_units -= next->units;
		}
		next->next = 0;
		size_flow(n, next);
		if (next->units > 0) {
			activate(n, next);
		} else {
			deliver_later(n, next, next->bytes);
			flow_free(n, next);
		}
	}
	if (!q->busy && !q->head && q->later && q->parked) {
		/* idle: the one parked enters the line now if it is due, else
		 * begins ahead, alone, or waits for its start */
		struct flow *k = flow_of(n, q->later);
		struct flow *g;
		int chan = k->chan0;

		q->parked = false;
		q->later = 0;
		if (k->t_pos <= sim_now(n->s)) {
			enqueue(n, k);
		} else if (alone_at(n, k->src, k->dst, &chan, 1, k->t_pos, &g) && !g) {
			begin_ahead(n, k, k->t_pos, NULL);
		} else {
			q->later = k->id;
			flow_event(n, k->t_pos - sim_now(n->s), FL_START, k, 0);
		}
	}
}

/* The flow has sent its last byte: it leaves its resources, the next
 * message on its first channel starts, and the component shares again. */
static void finish_sending(struct flow_net *n, struct flow *fl)
{
	struct chan_fifo *q = &n->ch[fl->chan0].q;

	bool empty = true;

	for (uint32_t u = 0; u < fl->nuse && !fl->unshared; u++) {
		struct fres *r = &n->res[fl->use[u].res];

		res_remove(r, fl, fl->use[u].w);
		empty &= r->n == 0;
	}
	fl->ev_pending = false;
	if (fl->rel_pending) {
		sim_cancel(n->s, fl->ext->rel_ev);
		fl->rel_pending = false;
	}
	if (fl->detached && n->arbiter == LINK_FLOW_MAXMIN)
		n->held[fl->chan0] -= fl->ext->rel_units;
	if (fl->detached)
		buf_pair_hold(n, fl->pair, -1);
	else {
		q->busy = false;
		q->active = 0;
	}
	/* nothing left on its resources: no rate can change */
	if (!empty)
		reshare(n, fl->use, fl->nuse, true);
	start_waiting(n, q);
	if (fl->detached && q->active)
		release_plan(n, flow_of(n, q->active)); /* more room */
}

static void on_progress(struct flow_net *n, struct flow *fl)
{
	uint64_t x = fl->next_x;

	fl->ev_pending = false;
	fl->pos = units_of(fl, x);
	fl->t_pos = sim_now(n->s);
	fl->last_x = x;
	deliver_later(n, fl, x);
	if (x == fl->bytes) {
		finish_sending(n, fl);
		flow_free(n, fl); /* its delivery needs it no more */
		return;
	}
	set_next(fl, x, 0);
	schedule_progress(n, fl);
}

/* Boundary next_x, sent at t_next, has arrived (ahead): the flow's next
 * boundary is set from the receiver's slack of now, before the receiver
 * reads this one. If the receiver cannot wait, the piece boundaries sent
 * since are delivered as they arrive, one tail after they were sent, and
 * the flow goes on piece by piece. */
static void on_arrive(struct flow_net *n, struct flow *fl)
{
	sim_time_t now = sim_now(n->s);
	uint64_t x = fl->next_x;
	sim_time_t *last = &g_array_index(n->pair_last, sim_time_t, fl->pair);
	uint64_t x0 = fl->last_x; /* delivered before */

	fl->ev_pending = false;
	*last = MAX(*last, now);
	fl->last_x = x;
	if (fl->pos < units_of(fl, x)) {
		fl->pos = units_of(fl, x);
		fl->t_pos = fl->t_next;
	}
	double pos = pos_at(fl, now);
	double pay = fl->rate * (double)fl->bytes / fl->units; /* payload per ps */

	/* not where the buffers' fluid gives the rate (bx_n): a window's,
	 * which the rest of the message need not keep */
	if (n->early && fl->grown && pay > 0 && !in_fluid(fl) &&
	    n->early(fl->user, fl->rate, now - MIN(now, (sim_time_t)((double)(x - x0) / pay)),
		     now + (sim_time_t)((double)(fl->bytes - x) / pay))) {
		/* the receiver takes the rest now (delivered as x): the
		 * flow goes on to its end, whose landing completes it */
		fl->ahead = false;
		fl->next_x = fl->last_x = x = fl->bytes;
	} else {
		set_next(fl, x, now - fl->t_next);
		while (!(fl->ahead && fl->grown) && fl->next_x < fl->bytes &&
		       units_of(fl, fl->next_x) <= pos) {
			/* sent already, not arrived yet */
			uint64_t y = fl->next_x;
			sim_time_t sent = land_boundary(n, fl, y);

			fl->next_x = MIN(y + fl->piece, fl->bytes);
			fl->grown = false;
			fl->ahead = ahead_of(fl);
			if (!fl->slack) {
				fl->pos = units_of(fl, y);
				fl->t_pos = sent;
			}
		}
	}
	if (fl->slack) {
		fl->pos = pos;
		fl->t_pos = now;
	}
	/* else: its position stays at its last boundary sent, each timed
	 * from the one before, as their sending would time them */
	schedule_progress(n, fl);
	n->deliver[fl->deliver](fl->user, x, false);
}

/* FL_DELIVER (deliver_event): a ghost's last byte lands, which it still
 * is unless handed back since (gen): it leaves its resources, if it still
 * holds them, and the store. */
static void on_deliver(struct flow_net *n, const struct sim_event *ev)
{
	uint64_t w = ev->data[2].u;
	struct flow *fl = ev->data[3].p;
	bool done = (w >> 16) & 1;

	if (fl && fl->gen == (uint32_t)(w >> 32)) {
		struct flow *a = flow_at(n, n->ch[fl->chan0].q.active);

		if (fl->ghost)
			settle(n, fl);
		else if (a && a->before == fl) /* taken over: no longer there */
			a->before = NULL;
		flow_free(n, fl);
	}
	n->deliver[w & 0xffff](ev->data[0].p, ev->data[1].u, done);
	if (done)
		n->in_flight--;
}

/* Pair `pair` has one detached flow in flight more (+1) or less (-1); its
 * messages wait in line while it has any (start_waiting). */
static void buf_pair_hold(struct flow_net *n, uint32_t pair, int by)
{
	gpointer key = GUINT_TO_POINTER(pair + 1);
	guint k;

	if (!n->buf_pairs)
		n->buf_pairs = g_hash_table_new(g_direct_hash, g_direct_equal);
	k = GPOINTER_TO_UINT(g_hash_table_lookup(n->buf_pairs, key)) + (guint)by;
	if (k)
		g_hash_table_insert(n->buf_pairs, key, GUINT_TO_POINTER(k));
	else
		g_hash_table_remove(n->buf_pairs, key);
}

/* A window of the buffers' fluid has passed: each component that has a
 * flow in it moves its fluid on by the next window and takes its rates
 * from it; the ticks stop when none has. */
static void buf_tick(struct flow_net *n)
{
	sim_time_t now = sim_now(n->s);

	n->buf_tick_pending = false;
	n->buf_stamp++;
	n->buf_commit = true;
	for (int c = 0; c < n->nchans; c++)
		for (uint32_t k = 0; k < n->res[c].n; k++) {
			struct flow *fl = res_fl(&n->res[c])[k];

			if (fl->hops < 2 || !fl->ext->bx_n || fl->ext->buf_stamp == n->buf_stamp ||
			    fl->ghost || fl->t_pos > now || !(pos_at(fl, now) < fl->units))
				continue;
			reshare(n, fl->use, (uint32_t)fl->hops, false);
			fl->ext->buf_stamp = n->buf_stamp;
		}
	n->buf_commit = false;
	for (guint k = 0; n->buf_detach && k < n->buf_detach->len; k++) {
		struct flow *fl = n->buf_detach->pdata[k];
		struct chan_fifo *q = &n->ch[fl->chan0].q;

		/* a ghost has nothing behind it in line, and leaves it without
		 * finish_sending (settle): it keeps the line */
		if (q->active != fl->id || fl->detached || fl->ghost || !(pos_at(fl, now) < fl->units))
			continue;
		buf_pair_hold(n, fl->pair, +1);
		fl->detached = true;
		q->active = 0;
		q->busy = false;
		start_waiting(n, q);
	}
	if (n->buf_detach)
		g_ptr_array_set_size(n->buf_detach, 0);
}

static void flow_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct flow_net *n = (struct flow_net *)self;

	switch (ev->type) {
	case FL_PROGRESS:
		on_progress(n, ev->data[0].p);
		break;
	case FL_DELIVER:
		on_deliver(n, ev);
		break;
	case FL_ARRIVE:
		on_arrive(n, ev->data[0].p);
		break;
	case FL_START:
		on_start(n, ev->data[0].p);
		break;
	case FL_BUF_TICK:
		buf_tick(n);
		break;
	case FL_RELEASE:
		on_release(n, ev->data[0].p);
		break;
	case FL_LINE: { /* a released message's rest has crossed its first channel */
		struct chan_fifo *q = &n->ch[ev->data[1].u].q;

		q->busy = false;
		start_waiting(n, q);
		break;
	}
	default:
		g_error("flow: unknown event type %u", ev->type);
	}
}

static gpointer pair_key(const struct flow_net *n, int src, int dst)
{
	return GSIZE_TO_POINTER((gsize)src * (gsize)n->nranks + (gsize)dst + 1);
}

/* The index of pair (src, dst) in pair_last, added (time 0) on its first
 * message: memory linear in the pairs that talk, not nranks^2. A source's
 * first two pairs stay in its cache alone; its third puts them in the
 * pairs' table (a ring's ranks talk to two peers: no table). */
static uint32_t pair_index(struct flow_net *n, int src, int dst)
{
	struct pair_cache *c = &n->pcache[src];

	if (c->dst[0] == dst)
		return c->idx[0];
	if (c->dst[1] == dst) {
		uint32_t idx = c->idx[1];

		c->dst[1] = c->dst[0];
		c->idx[1] = c->idx[0];
		c->dst[0] = dst;
		c->idx[0] = idx;
		return idx;
	}
	if (!c->spilled && c->dst[1] >= 0) {
		for (int i = 0; i < 2; i++)
			g_hash_table_insert(n->pairs, pair_key(n, src, c->dst[i]),
					    GSIZE_TO_POINTER((gsize)c->idx[i] + 1));
		c->spilled = true;
	}
	gpointer key = pair_key(n, src, dst);
	gpointer v = c->spilled ? g_hash_table_lookup(n->pairs, key) : NULL;
	uint32_t idx;

	if (v)
		idx = (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
	else {
		idx = n->pair_last->len;
		g_array_set_size(n->pair_last, idx + 1);
		g_array_set_size(n->pair_gap, idx + 1);
		if (c->spilled)
			g_hash_table_insert(n->pairs, key, GSIZE_TO_POINTER((gsize)idx + 1));
	}
	c->dst[1] = c->dst[0];
	c->idx[1] = c->idx[0];
	c->dst[0] = dst;
	c->idx[0] = idx;
	return idx;
}

/* The index of a receiver's function in flow_net.deliver, added on its
 * first use. */
static uint16_t deliver_index(struct flow_net *n, fabric_deliver_fn fn)
{
	uint32_t i = 0;

	while (i < n->ndeliver && n->deliver[i] != fn)
		i++;
	if (i == n->ndeliver) {
		g_assert(i < FLOW_DELIVER_FNS);
		n->deliver[n->ndeliver++] = fn;
	}
	return (uint16_t)i;
}

/* A flow made ready to enter its channel's line: from the store, its
 * route and pieces set, counted in flight. */
static struct flow *flow_make(struct flow_net *n, int src, int dst, uint64_t bytes,
			      const int *chans, int hops, uint64_t first_bytes, uint64_t piece_bytes,
			      fabric_slack_fn slack, sim_time_t late, fabric_deliver_fn deliver,
			      void *user)
{
	g_assert(hops >= 1 && src >= 0 && src < n->nranks && dst >= 0 && dst < n->nranks);
	/* a flow taken again keeps what it owned; one of a new block (zeroed)
	 * starts with its route entries in itself */
	if (!n->flows.free)
		flows_grow(n);
	struct flow *fl = pool_take(&n->flows);

	if (!fl->use) {
		fl->use = fl->use_in;
		fl->alloc_use = FLOW_USE_IN;
	}
	uint32_t need = (uint32_t)hops + 2;

	g_assert(need <= UINT16_MAX);
	if (need > fl->alloc_use) {
		fl->use = g_renew(struct flow_use, fl->use == fl->use_in ? NULL : fl->use, need);
		fl->alloc_use = (uint16_t)need;
	}
	if (!fl->ext && (hops >= 2 || n->arbiter != LINK_FLOW_MAXMIN)) {
		fl->ext = pool_take(&n->exts);
		fl->ext->vc = fl->ext->vc_in;
		fl->ext->vc_alloc = FLOW_VC_IN;
	}
	if (fl->ext) {
		struct flow_ext *x = fl->ext;

		if ((uint32_t)hops > x->vc_alloc) {
			x->vc = g_renew(uint8_t, x->vc == x->vc_in ? NULL : x->vc, hops);
			x->vc_alloc = (uint16_t)hops;
		}
		for (int h = 0; h < hops; h++) {
			x->vc[h] = n->vcs ? n->vcs[h] : 0;
			g_assert(x->vc[h] < FLOW_VCS);
		}
		x->rr_rate = -1;
		x->bx_n = 0;
		x->buf_stamp = 0;
	}
	fl->next = 0;
	fl->src = src;
	fl->dst = dst;
	fl->pair = pair_index(n, src, dst);
	fl->bytes = bytes;
	fl->deliver = deliver_index(n, deliver);
	fl->slack = slack;
	fl->user = user;
	fl->first = first_bytes;
	fl->piece = piece_bytes;
	fl->last_x = 0;
	fl->late = late;
	fl->ghost = false;
	fl->before = NULL;
	fl->chan0 = chans[0];
	fl->hops = (uint16_t)hops;
	fl->ev_pending = false;
	fl->rate = 0;
	fl->detached = false;
	fl->rel_pending = false;
	fl->gap = SIM_TIME_MAX;
	fl->unshared = false;
	fl->mem_sized = false;
	fl->pos = 0;
	fl->t_pos = 0;
	fl->stamp = 0;
	fl->forwarded = false;
	int switches = 0;

	for (int h = 0; h < hops; h++) {
		fl->use[h].res = (uint32_t)chans[h];
		fl->forwarded |= h + 1 < hops && !n->ch[chans[h]].q.into_switch;
		switches += h + 1 < hops && n->ch[chans[h]].q.into_switch;
	}
	fl->switched = switches >= 2;
	fl->nuse = 0;
	fl->units = units_on(par_of(n, chans[0]), bytes);
	set_next(fl, 0, 0);
	if (bytes == 0)
		fl->next_x = 0;
	n->in_flight++;
	return fl;
}

/* Puts fl last in its channel's line q. */
static void push(struct flow_net *n, struct chan_fifo *q, struct flow *fl)
{
	if (q->tail)
		flow_of(n, q->tail)->next = fl->id;
	else
		q->head = fl->id;
	q->tail = fl->id;
	q->waiting_units += fl->units;
}

/* Puts fl last in its channel's line and starts what may start. */
static void enqueue(struct flow_net *n, struct flow *fl)
{
	struct chan_fifo *q = &n->ch[fl->chan0].q;

	push(n, q, fl);
	start_waiting(n, q);
	struct flow *a = flow_at(n, q->active);

	if (a && !a->rel_pending)
		release_plan(n, a);
}

/* Before a message is sent (or grows) on q: the one parked there enters
 * the line now if it is due (it would be in it), else it waits for its
 * start as an event. */
static void unpark(struct flow_net *n, struct chan_fifo *q)
{
	struct flow *k = flow_at(n, q->later);
	sim_time_t now = sim_now(n->s);

	if (!k || !q->parked)
		return;
	q->parked = false;
	if (k->t_pos > now) {
		flow_event(n, k->t_pos - now, FL_START, k, 0);
		return;
	}
	q->later = 0;
	push(n, q, k);
}

void flow_send(struct flow_net *n, int src, int dst, uint64_t bytes, const int *chans, int hops,
	       uint64_t first_bytes, uint64_t piece_bytes, fabric_slack_fn slack, sim_time_t late,
	       fabric_deliver_fn deliver, void *user)
{
	struct chan_fifo *q = &n->ch[chans[0]].q;

	retire_spent(n);
	unpark(n, q);
	struct flow *a = flow_at(n, q->active);

	if (a && a->t_pos > sim_now(n->s)) {
		unbegin(n, a);
		a = flow_at(n, q->active); /* the ghost it took the channel from, if any */
	}
	if (a && a->ghost)
		settle(n, a);
	enqueue(n, flow_make(n, src, dst, bytes, chans, hops, first_bytes, piece_bytes, slack, late,
			     deliver, user));
}

/* Whether the resources of a message src -> dst over chans[0..hops) would
 * hold it alone: no flow on any of them, or (*g) only the ghost on its
 * first channel of a message of the same route that ends sending by `at`. */
static bool alone_at(struct flow_net *n, int src, int dst, const int *chans, int hops,
		     sim_time_t at, struct flow **g)
{
	struct chan_fifo *q = &n->ch[chans[0]].q;
	struct flow *a = flow_at(n, q->active);

	*g = NULL;
	if (q->head || q->later)
		return false;
	if (a) {
		/* a ghost shares none of its resources: its channels are the
		 * message's; a memory side it does not load must be free */
		if (!a->ghost || a->t_end > at || a->src != src || a->dst != dst || a->hops != hops ||
		    a->t_pos > sim_now(n->s))
			return false;
		for (int h = 0; h < hops; h++)
			if (a->use[h].res != (uint32_t)chans[h])
				return false;
		*g = a;
	} else {
		for (int h = 0; h < hops; h++)
			if (n->res[chans[h]].n)
				return false;
	}
	if (!n->mem_sides)
		return true;
	const struct fres *inj = &n->res[n->nchans + src];
	const struct fres *ej = &n->res[n->nchans + n->nranks + dst];

	return (inj->cap <= 0 || !inj->n || (inj->n == 1 && res_fl(inj)[0] == a)) &&
	       (ej->cap <= 0 || !ej->n || (ej->n == 1 && res_fl(ej)[0] == a));
}

/* Whether a message src -> dst on channel chan may wait, parked as its
 * `later`, behind the message from memory that sends there now: one of
 * the same route whose end will be an event or timed (end_unseen), nothing
 * else waiting. */
static bool parkable(const struct flow_net *n, int src, int dst, int chan)
{
	const struct chan_fifo *q = &n->ch[chan].q;
	const struct flow *a = flow_at(n, q->active);

	return !q->head && !q->later && a && !a->ghost && a->t_pos <= sim_now(n->s) &&
	       a->src == src && a->dst == dst && a->hops == 1 && a->bytes > 0;
}

bool flow_may_begin_at(struct flow_net *n, int src, int dst, const int *chans, int hops,
		       sim_time_t at)
{
	struct flow *g;

	return at > sim_now(n->s) && hops == 1 &&
	       (alone_at(n, src, dst, chans, hops, at, &g) || parkable(n, src, dst, chans[0]));
}

/* fl, made and not sized, begins now ahead of `at` on its resources, which
 * hold nothing but (g) the ghost on its channel that has sent its last
 * byte by then: it takes them over, g's delivery standing. */
static void begin_ahead(struct flow_net *n, struct flow *fl, sim_time_t at, struct flow *g)
{
	struct chan_fifo *q = &n->ch[fl->chan0].q;

	if (g) {
		for (uint32_t u = 0; u < g->nuse; u++)
			res_remove(&n->res[g->use[u].res], g, g->use[u].w);
		g->ghost = false;
		fl->before = g;
		fl->before_end = g->t_end;
	}
	size_flow(n, fl);
	q->busy = true;
	q->active = fl->id;
	for (uint32_t u = 0; u < fl->nuse; u++)
		res_add(&n->res[fl->use[u].res], fl, fl->use[u].w);
	fl->t_pos = at;
	fl->pos = 0;
	rate_set(n, fl, alone_rate(n, fl));
	if (fl->slack && fl->next_x < fl->bytes)
		set_next(fl, 0, 0);
	schedule_progress(n, fl);
}

bool flow_send_at(struct flow_net *n, int src, int dst, uint64_t bytes, const int *chans, int hops,
		  uint64_t first_bytes, uint64_t piece_bytes, fabric_slack_fn slack,
		  fabric_deliver_fn deliver, void *user, sim_time_t at)
{
	sim_time_t now = sim_now(n->s);
	struct flow *g;

	if (at <= now || !bytes || hops != 1)
		return false;
	retire_spent(n);
	bool alone = alone_at(n, src, dst, chans, hops, at, &g);

	if (!alone && !parkable(n, src, dst, chans[0]))
		return false;
	struct chan_fifo *q = &n->ch[chans[0]].q;
	struct flow *fl = flow_make(n, src, dst, bytes, chans, hops, first_bytes, piece_bytes, slack,
				    0, deliver, user);

	if (alone) {
		begin_ahead(n, fl, at, g);
		return true;
	}
	/* behind the message sending now: it starts at that one's end, or at
	 * its own, with no event where that end is timed (end_unseen) */
	fl->t_pos = at;
	q->later = fl->id;
	q->parked = true;
	return true;
}

/* A flow unbegun (unbegin) reaches its start: it enters its channel's
 * line. */
static void on_start(struct flow_net *n, struct flow *fl)
{
	struct chan_fifo *q = &n->ch[fl->chan0].q;

	g_assert(q->later == fl->id);
	q->later = 0;
	struct flow *a = flow_at(n, q->active);

	if (a && a->ghost)
		settle(n, a);
	enqueue(n, fl);
}

/* Takes fl's message, as size_flow counted it, back out of its channels'
 * statistics. */
static void unaccount(struct flow_net *n, const struct flow *fl)
{
	for (int h = 0; h < fl->hops; h++) {
		int c = (int)fl->use[h].res;
		struct fchan *p = &n->ch[c];
		const struct fparams *m = par_of(n, c);
		uint64_t npk = packets_of(m, fl->bytes);
		uint64_t wire = fl->bytes + npk * m->header_bytes;

		p->payload_bytes -= fl->bytes;
		p->packets -= npk;
		p->busy_ps -= m->memo_bytes == fl->bytes ? m->memo_busy_ps
							 : link_wire_ps(wire, m->bw_bytes_per_s);
		if (fl->hops != 1)
			n->hops_other[c].bytes[MIN(fl->hops, 7)] -= fl->bytes;
	}
	if (fl->forwarded)
		n->rank_forwarded -= fl->bytes;
	if (fl->switched)
		n->switched -= fl->bytes;
	n->payload -= fl->bytes;
}

/* Grows the active flow fl by `more` payload bytes (flow_append): its
 * position, weights, tail and statistics are those of the larger message,
 * the boundary it was heading for is dropped if it was its last byte, and
 * its component shares again if a weight moved its rate. */
static void grow_active(struct flow_net *n, struct flow *fl, uint64_t more)
{
	sim_time_t now = sim_now(n->s);
	uint64_t old_bytes = fl->bytes;

	land_sent(n, fl, now);
	double sent = pos_at(fl, now); /* wire bytes on its first channel stay sent */

	unaccount(n, fl);
	fl->bytes += more;
	fl->units = units_on(par_of(n, fl->chan0), fl->bytes);
	uses_take(n, fl, -1); /* what it takes of its resources follows its weights */
	size_flow(n, fl);
	uses_take(n, fl, 1);
	fl->pos = sent;
	fl->t_pos = MAX(fl->t_pos, now);
	if (fl->next_x == old_bytes) {
		set_next(fl, fl->last_x, 0);
		if (units_of(fl, fl->next_x) <= sent) {
			fl->next_x = old_bytes;
			fl->ahead = false;
		}
	}
	bool alone = true;

	for (uint32_t u = 0; u < fl->nuse; u++)
		alone &= n->res[fl->use[u].res].n == 1;
	if (!alone) {
		reshare(n, fl->use, fl->nuse, true);
		schedule_progress(n, fl);
		return;
	}
	rate_set(n, fl, alone_rate(n, fl));
	schedule_progress(n, fl);
}

bool flow_append(struct flow_net *n, int src, int dst, int chan, uint64_t more, void *user)
{
	g_assert(chan >= 0 && chan < n->nchans);
	struct chan_fifo *q = &n->ch[chan].q;
	struct flow *fl = flow_at(n, q->tail);
	struct flow *l = flow_at(n, q->later);

	if (l && q->parked && l->t_pos <= sim_now(n->s)) {
		unpark(n, q); /* due: it waits in the line */
		l = flow_at(n, q->later);
	}
	if (l && l->user == user && l->src == src && l->dst == dst && more) {
		/* unbegun, waiting for its start: nothing of it is sized */

		l->bytes += more;
		l->units = units_on(par_of(n, chan), l->bytes);
		set_next(l, 0, 0);
		return true;
	}
	struct flow *a = flow_at(n, q->active);

	if (a && a->ghost)
		settle(n, a);
	a = flow_at(n, q->active);
	if (!q->head && a && a->user == user && a->src == src && a->dst == dst && a->bytes &&
	    more && a->units > 0) {
		/* it still sends, and nothing waits behind it: the data would
		 * follow it at once */
		grow_active(n, a, more);
		return true;
	}
	/* the tail of the line waits (the active flow has left it): nothing of
	 * it is sized, scheduled or shared yet */
	if (!fl || fl->user != user || fl->src != src || fl->dst != dst || fl->bytes == 0 ||
	    more == 0)
		return false;
	g_assert(fl->chan0 == chan && fl->id != q->active);
	double units = units_on(par_of(n, chan), fl->bytes + more);

	q->waiting_units += units - fl->units;
	fl->units = units;
	fl->bytes += more;
	set_next(fl, 0, 0);
	return true;
}
