/* The fabric's dynamics: packets on channels.
 *
 * Each channel is a sim component with a transmitter, a link-level Go-Back-N
 * sender, credit counters per virtual channel and a Go-Back-N receiver. It
 * costs two events per packet and hop when nothing is lost: EV_TX, when the
 * wire becomes free and the transmitter picks the next packet, and EV_ARRIVE,
 * when the packet's last bit has reached the far end. Everything else is
 * computed, not scheduled, when that is exact:
 *  - ACKs: the receiver accepts packet `seq` at time t, so the sender will
 *    see the cumulative ACK at t + lat; that time is written into the
 *    sender's ring of ACK times and the sender advances its window lazily
 *    when it next looks (an event is scheduled only if it is waiting for
 *    that ACK; without loss, only when the window looks full);
 *  - credits: a receive slot is freed when the packet leaves the buffer (it
 *    starts on the next channel, or is delivered to memory); the credit is
 *    queued, with its return time, at the sender (sorted by time) and collected
 *    lazily (again an event only when the sender is waiting for it);
 *  - node injection/ejection: per-node clocks of a rate the node's ports
 *    share; a packet leaving memory may start once the injection clock is
 *    within the node's slack of now (node_slack: a largest packet per port
 *    but one), and advances it by its payload's time at the injection rate;
 *    a packet is delivered once the ejection clock is within its slack, and
 *    advances it likewise. A delivery that has to wait costs a third event
 *    (EV_DELIVER).
 * Losses add EV_NAK (receiver saw a gap) and one lazily re-armed EV_TIMER per
 * channel (armed only when the error rate is non-zero). A lost packet is gone:
 * the receiver notices the gap at the next packet (NAK, once per gap) or the
 * sender's timer fires for a lost tail. Credits are per packet, not per
 * transmission: replays need none.
 *
 * Arbitration: a channel serves its inputs (the node's memory, and each
 * incoming channel x virtual channel) round-robin, one packet at a time; each
 * input is FIFO. Messages from memory on one channel are served in the order
 * they were sent. Packets and messages come from free lists refilled in slabs,
 * never one heap allocation per packet; on a lossless channel a packet on
 * the wire lives in its EV_ARRIVE event (pkt_to_event), and one of the pool
 * only while it waits in an input or, on a lossy channel, for its ACK. */
#include "sim/link/link.h"

#include <stdlib.h>
#include <string.h>

#include "sim/link/flow.h"
#include "sim/link/topo.h"

#define PKT_SLAB 1024

enum { EV_TX = 1, EV_ARRIVE, EV_NAK, EV_TIMER, EV_DELIVER };

struct msg;

struct pkt {
	struct pkt *next;  /* input FIFO, or free list */
	struct msg *msg;   /* borrowed: the fabric's pool */
	uint64_t end;      /* message bytes up to and including this packet */
	uint32_t payload;  /* bytes */
	uint32_t hop;      /* index of the channel it is on or waiting for */
	bool last;
};

struct msg {
	struct msg *next;  /* local FIFO of the first channel, or free list */
	uint64_t id;
	uint64_t bytes, cut; /* size; bytes already cut into packets */
	fabric_deliver_fn deliver;
	void *user;
	uint32_t nhops, cap; /* route length; capacity of chan/vc */
	uint32_t replayed;   /* packets accepted after more than one transmission */
	uint8_t vc0;         /* vc[0], beside the fields its first channel reads */
	int *chan;         /* owned, reused: channel of each hop */
	uint8_t *vc;       /* owned, reused: virtual channel of each hop */
};

/* One input of a channel's arbiter; linked into the channel's round-robin
 * list of non-empty inputs while it has packets. */
struct input {
	struct pkt *head, *tail;
	int next_active;
	bool active;
};

/* What a replay needs of a sequence number: kept on lossy channels only
 * (without loss nothing is replayed, and the event carries the packet). */
struct gbn_slot {
	struct pkt *pkt;      /* valid until the receiver accepts it */
	sim_time_t wire_ps;   /* serialisation time */
	sim_time_t tx_time;   /* start of its latest transmission */
	uint64_t tx_serial;   /* serial of its latest transmission */
	uint32_t payload;
	uint32_t tx_count;    /* transmissions of this sequence number */
};

struct node {
	sim_time_t inject_free, eject_free; /* the memory side's rate clocks (node_slack) */
	sim_time_t inject_slack, eject_slack; /* how far ahead of now each may run:
					       * a largest packet of each port but one */
	uint32_t eject_pending;             /* EV_DELIVER events queued */
};

struct chan {
	/* Lines 0-6 hold what every packet reads or adds to (the engine
	 * prefetches them ahead of the event: hot_lines): the component, the
	 * transmitter, the Go-Back-N sender and receiver, the parameters, the
	 * arbiter, the credits and the statistics; the rarely read fields
	 * follow. The array of channels is aligned to a line. */
	struct sim_component comp; /* first: handlers cast back */
	struct fabric *f;          /* borrowed */

	/* transmitter */
	sim_time_t wire_free;
	sim_time_t kick_time;      /* pending EV_TX, if kick_pending */
	struct sim_event_ref kick_ref;

	/* Go-Back-N sender: seqs [una, nxt) are unacknowledged; rsend < nxt
	 * while a replay is in progress */
	struct gbn_slot *ring;     /* owned, ring_mask + 1 slots, on first use
				    * (lossy channels only) */
	sim_time_t *ack;           /* owned, ring_mask + 1, on first use: when the
				    * sender sees the ACK of seq (valid once the
				    * receiver's `expected` has passed it) */
	uint64_t ring_mask, una, nxt, rsend;

	struct link_params p;

	uint64_t tx_serial;
	/* Go-Back-N receiver */
	uint64_t expected;

	/* arbiter: input 0 is the node's memory (messages in `lhead`), input
	 * 1 + nvc * k + vc holds packets from the k-th channel entering src */
	struct input *in;          /* owned, allocated on first use */
	struct msg *lhead;
	int act_head, act_tail, nactive;
	bool kick_pending, in_pump, wait_ack, wait_credit, timer_pending;
	bool nak_sent;             /* receiver: the current gap was NAKed */

	/* credits per virtual channel, not counting the returns in the ring
	 * that are due (collected when a virtual channel runs out); returns
	 * pending in a ring of (time << 1 | vc) sorted by time, oldest at
	 * cq_head */
	uint32_t cred[2];
	uint64_t *cq;              /* owned, cq_mask + 1 >= cq_cap slots, on first use */
	uint32_t cq_head, cq_len, cq_mask, cq_cap; /* cq_cap = nvc x credits */
	sim_time_t cq_last;        /* the latest return's time, while cq_len > 0 */
	int vc_mask;               /* nvc - 1: input i > 0 feeds vc (i - 1) & vc_mask */
	int src, dst;
	sim_time_t full_ps;        /* serialisation of a full packet */

	struct channel_stats st;
	struct msg *ltail;
	int idx, in_index, nin;
	char *name;                /* owned */
} __attribute__((aligned(64)));

/* The lines of struct chan up to its statistics' histogram, inclusive. */
#define CHAN_HOT_LINES ((offsetof(struct chan, st.hops_histogram) + 64 + 63) / 64)
G_STATIC_ASSERT(CHAN_HOT_LINES <= 8);

/* The last packet size a node's memory rate was applied to, and its time. */
struct node_rate {
	uint64_t bytes;
	sim_time_t ps;
};

struct fabric {
	struct sim *s;             /* borrowed */
	uint32_t delivering_replayed; /* see fabric_delivering_replayed() */
	fabric_tracer_fn tracer;   /* optional */
	void *tracer_user;
	struct topo t;
	struct node_params np;
	struct node *nodes;        /* owned, t.nnodes; packet fidelity only */
	struct link_params tier[3]; /* the parameters of each enum topo_tier */
	struct chan *chans;        /* owned, t.nchans; packet fidelity only, NULL at flow */
	struct pkt *pkt_free;
	GPtrArray *slabs;          /* owned: packet slabs */
	struct msg *msg_free;
	GPtrArray *msgs;           /* owned: every message ever made */
	uint64_t next_id, in_flight;
	int *route_nodes;          /* owned scratch, nnodes + 1 */
	uint8_t *route_vcs;        /* owned scratch, nnodes */
	struct node_rate inject_rate, eject_rate; /* caches of node_ps() */
	struct flow_net *flow;     /* owned: flow fidelity only, NULL at packet */
	int *route_chans;          /* owned scratch, nnodes */
	struct route_cache *rcache; /* owned, nranks */
};

/* A source's last two routes, as channels and virtual channels (routes
 * are a pure function of (src, dst, hint), topo.h), so a rank that streams
 * data to one peer and answers another (a ring: data to the next rank,
 * completion responses to the previous) routes once, at either fidelity;
 * fabric_route reads a route's nodes from the same entries. A route of up
 * to ROUTE_NEAR_HOPS hops (a ring's, a switch's) is kept in its entry, a
 * longer one up to ROUTE_CACHE_HOPS in a record the entry owns; longer
 * ones are not kept. A miss takes the place of the entry used less
 * recently, so that the route a caller holds stays while it routes once
 * more; hops 0: empty. */
enum { ROUTE_NEAR_HOPS = 2, ROUTE_CACHE_HOPS = 6 };
struct route_far {
	int chans[ROUTE_CACHE_HOPS];
	uint8_t vcs[ROUTE_CACHE_HOPS];
};
struct route_entry {
	int dst;
	uint8_t hint;
	uint8_t hops : 7;
	uint8_t recent : 1;                /* used more recently than the other entry */
	uint8_t vcs[ROUTE_NEAR_HOPS];      /* hops <= ROUTE_NEAR_HOPS */
	union {
		int chans[ROUTE_NEAR_HOPS];  /* hops <= ROUTE_NEAR_HOPS */
		struct route_far *far;       /* owned: hops > ROUTE_NEAR_HOPS */
	};
};
struct route_cache {
	struct route_entry e[2];
};
G_STATIC_ASSERT(sizeof(struct route_cache) == 32);

sim_time_t link_message_ps(const struct link_params *p, uint64_t bytes)
{
	uint64_t full = bytes / p->max_payload_bytes, rest = bytes % p->max_payload_bytes;
	sim_time_t one = link_wire_ps((uint64_t)p->max_payload_bytes + p->header_bytes,
				      p->bw_bytes_per_s);
	sim_time_t t = full && one > SIM_TIME_END / full ? SIM_TIME_END : full * one;

	if (rest || bytes == 0) {
		sim_time_t last = link_wire_ps(rest + p->header_bytes, p->bw_bytes_per_s);

		t = last >= SIM_TIME_END - t ? SIM_TIME_END : t + last;
	}
	return t;
}

void link_params_default(struct link_params *p)
{
	*p = (struct link_params){
		.bw_bytes_per_s = 450000000000u,
		.lat_ps = SIM_NS(100),
		.header_bytes = 32,
		.max_payload_bytes = 4096,
		.credits = 64,
		.credit_return_ps = SIM_NS(100),
		.gbn_window = 128,
		.gbn_timeout_ps = SIM_US(2),
		.error_rate = 0,
	};
}

static bool check_params(const struct link_params *p, const char *what, GError **error)
{
	char bad[128] = "";

	if (p->bw_bytes_per_s == 0)
		g_snprintf(bad, sizeof(bad), "'bw_bytes_per_s' must be > 0");
	else if (p->max_payload_bytes == 0 || p->max_payload_bytes > LINK_MAX_PAYLOAD_BYTES)
		g_snprintf(bad, sizeof(bad), "'max_payload_bytes' must be in 1..%u, got %u",
			   LINK_MAX_PAYLOAD_BYTES, p->max_payload_bytes);
	else if (p->header_bytes > LINK_MAX_HEADER_BYTES)
		g_snprintf(bad, sizeof(bad), "'header_bytes' must be at most %u, got %u",
			   LINK_MAX_HEADER_BYTES, p->header_bytes);
	else if (p->gbn_window == 0)
		g_snprintf(bad, sizeof(bad), "'gbn_window' must be > 0");
	else if (p->gbn_timeout_ps == 0)
		g_snprintf(bad, sizeof(bad), "'gbn_timeout_ps' must be > 0");
	else if (!(p->error_rate >= 0 && p->error_rate <= LINK_MAX_ERROR_RATE))
		g_snprintf(bad, sizeof(bad), "'error_rate' must be in [0, %g], got %g",
			   LINK_MAX_ERROR_RATE, p->error_rate);
	if (*bad) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_PARAMS, "%s: %s", what, bad);
		return false;
	}
	return true;
}

/* ---- pools ---- */

/* n zeroed channels, the array aligned to a cache line (free() it). */
static struct chan *chans_alloc(int n)
{
	void *mem = NULL;
	size_t bytes = (size_t)n * sizeof(struct chan);

	if (posix_memalign(&mem, 64, bytes))
		g_error("fabric: out of memory for %d channels", n);
	memset(mem, 0, bytes);
	return mem;
}

static struct pkt *pkt_alloc(struct fabric *f)
{
	if (G_UNLIKELY(!f->pkt_free)) {
		struct pkt *slab = g_new(struct pkt, PKT_SLAB);

		g_ptr_array_add(f->slabs, slab);
		for (int i = PKT_SLAB - 1; i >= 0; i--) {
			slab[i].next = f->pkt_free;
			f->pkt_free = &slab[i];
		}
	}
	struct pkt *p = f->pkt_free;

	f->pkt_free = p->next;
	p->next = NULL;
	return p;
}

static void pkt_release(struct fabric *f, struct pkt *p)
{
	p->next = f->pkt_free;
	f->pkt_free = p;
}

static struct msg *msg_alloc(struct fabric *f)
{
	struct msg *m = f->msg_free;

	if (m) {
		f->msg_free = m->next;
	} else {
		m = g_new0(struct msg, 1);
		g_ptr_array_add(f->msgs, m);
	}
	m->next = NULL;
	return m;
}

static void msg_free_fn(gpointer p)
{
	struct msg *m = p;

	g_free(m->chan);
	g_free(m->vc);
	g_free(m);
}

/* The virtual channel of m's hop h. */
static inline uint8_t msg_vc(const struct msg *m, uint32_t h)
{
	return h == 0 ? m->vc0 : m->vc[h];
}

/* ---- arbiter inputs ---- */

static inline void act_push(struct chan *c, int i)
{
	struct input *in = c->in;

	in[i].active = true;
	in[i].next_active = -1;
	if (c->act_tail >= 0)
		in[c->act_tail].next_active = i;
	else
		c->act_head = i;
	c->act_tail = i;
	c->nactive++;
}

static inline int act_pop(struct chan *c)
{
	struct input *in = c->in;
	int i = c->act_head;

	c->act_head = in[i].next_active;
	if (c->act_head < 0)
		c->act_tail = -1;
	in[i].active = false;
	c->nactive--;
	return i;
}

static inline void chan_inputs(struct chan *c)
{
	if (G_UNLIKELY(!c->in))
		c->in = g_new0(struct input, c->nin);
}

static inline bool chan_lossy(const struct chan *c)
{
	return c->p.error_rate > 0;
}

/* Takes the next packet of input i: from memory, cut from the head message,
 * into v on a lossless channel (its event will carry it) or a packet of the
 * pool on a lossy one (its replay slot keeps it). Sets *more when the input
 * still has packets after this one. */
static inline struct pkt *input_take(struct fabric *f, struct chan *c, int i, bool *more,
				     struct pkt *v)
{
	if (i > 0) {
		struct input *in = &c->in[i];
		struct pkt *p = in->head;

		in->head = p->next;
		if (!in->head)
			in->tail = NULL;
		p->next = NULL;
		*more = in->head != NULL;
		return p;
	}
	struct msg *m = c->lhead;
	struct pkt *p = G_UNLIKELY(chan_lossy(c)) ? pkt_alloc(f) : v;
	uint64_t rest = m->bytes - m->cut;

	p->msg = m;
	p->payload = (uint32_t)MIN(rest, (uint64_t)c->p.max_payload_bytes);
	m->cut += p->payload;
	p->end = m->cut;
	p->hop = 0;
	p->last = m->cut == m->bytes;
	if (p->last) {
		c->lhead = m->next;
		if (!c->lhead)
			c->ltail = NULL;
		m->next = NULL;
	}
	*more = c->lhead != NULL;
	return p;
}

/* ---- kicks, credits, ACKs ---- */

/* Every function below that takes `now` is handed the sim's current time by
 * its caller (the clock does not move inside one event). */

static void chan_pump(struct fabric *f, struct chan *c, sim_time_t now);

/* chan_kick's work once an earlier pending EV_TX has been ruled out. */
static void chan_kick_at(struct fabric *f, struct chan *c, sim_time_t t, sim_time_t now)
{
	if (c->kick_pending) {
		sim_cancel(f->s, c->kick_ref);
		c->kick_pending = false;
	}
	if (t == now && !c->in_pump) {
		chan_pump(f, c, now);
		return;
	}
	struct sim_event *ev = sim_schedule(f->s, t - now, &c->comp, EV_TX);

	c->kick_ref = sim_event_ref(ev);
	c->kick_time = t;
	c->kick_pending = true;
}

/* Makes the transmitter look again at time t (>= now): at once when it is
 * free now and not already looking, else by one pending EV_TX. */
static inline void chan_kick(struct fabric *f, struct chan *c, sim_time_t t, sim_time_t now)
{
	t = MAX(t, MAX(now, c->wire_free));
	if (c->kick_pending && c->kick_time <= t)
		return;
	chan_kick_at(f, c, t, now);
}

/* A receive slot of channel c (virtual channel vc) was freed; the sender
 * sees the credit at time t. Pending returns are kept sorted by time in a
 * ring (cq): they are pushed at nearly non-decreasing times, so an insertion
 * from the back almost never moves anything. */
static inline void credit_return(struct fabric *f, struct chan *c, int vc, sim_time_t t,
				 sim_time_t now)
{
	if (!c->p.credits)
		return;
	if (G_UNLIKELY(!c->cq)) {
		uint32_t size = 1;

		while (size < c->cq_cap)
			size <<= 1;
		c->cq = g_new(uint64_t, size);
		c->cq_mask = size - 1;
	}
	g_assert(c->cq_len < c->cq_cap);

	uint64_t *q = c->cq, key = t << 1 | (uint64_t)vc;
	uint32_t mask = c->cq_mask, head = c->cq_head, i = c->cq_len++;

	/* the usual case, a return no earlier than every pending one, reads
	 * nothing of the ring */
	if (i > 0 && t < c->cq_last) {
		for (; i > 0; i--) {
			uint64_t prev = q[(head + i - 1) & mask];

			if (prev >> 1 <= t)
				break;
			q[(head + i) & mask] = prev;
		}
	} else {
		c->cq_last = t;
	}
	q[(head + i) & mask] = key;
	if (c->wait_credit) {
		c->wait_credit = false;
		chan_kick(f, c, t, now);
	}
}

static inline void credits_collect(struct chan *c, sim_time_t now)
{
	uint32_t head = c->cq_head, len = c->cq_len;

	while (len && c->cq[head] >> 1 <= now) {
		c->cred[c->cq[head] & 1]++;
		head = (head + 1) & c->cq_mask;
		len--;
	}
	c->cq_head = head;
	c->cq_len = len;
}

static inline struct gbn_slot *slot(struct chan *c, uint64_t seq)
{
	return &c->ring[seq & c->ring_mask];
}

/* Takes in every ACK that has reached the sender by `now`. The receiver
 * accepts in sequence, so seqs below `expected` are exactly the acknowledged
 * ones, and their ACK times do not decrease. */
static inline void gbn_advance(struct chan *c, sim_time_t now)
{
	uint64_t una = c->una, acked = c->expected;

	while (una < acked && c->ack[una & c->ring_mask] <= now)
		una++;
	c->una = una;
	if (c->rsend < una)
		c->rsend = una;
}

static void timer_arm(struct fabric *f, struct chan *c, sim_time_t t, sim_time_t now)
{
	sim_schedule(f->s, t > now ? t - now : 0, &c->comp, EV_TIMER);
	c->timer_pending = true;
}

/* ---- transmitter ---- */

/* Time of `bytes` at a node's memory rate bw (> 0), remembering the last
 * answer: packets are nearly all of one size. */
static inline sim_time_t node_ps(struct node_rate *r, uint64_t bytes, uint64_t bw)
{
	if (G_UNLIKELY(bytes != r->bytes)) {
		r->bytes = bytes;
		r->ps = link_wire_ps(bytes, bw);
	}
	return r->ps;
}

/* A lossless channel's EV_ARRIVE carries its packet: the message, the end
 * byte, and the payload, hop and last flag in one word (payload below
 * LINK_MAX_PAYLOAD_BYTES < 2^31, hop < 2^31); and its sequence number. */
static inline void pkt_to_event(struct sim_event *ev, const struct pkt *p, uint64_t seq)
{
	ev->data[0].p = p->msg;
	ev->flags |= SIM_EV_PREFETCH_DATA; /* the receiver reads the message first */
	ev->data[1].u = p->end;
	ev->data[2].u = (uint64_t)p->payload | (uint64_t)p->hop << 32 | (uint64_t)p->last << 63;
	ev->data[3].u = seq;
}

static inline void pkt_from_event(struct pkt *p, const struct sim_event *ev)
{
	uint64_t w = ev->data[2].u;

	*p = (struct pkt){
		.msg = ev->data[0].p,
		.end = ev->data[1].u,
		.payload = (uint32_t)w,
		.hop = (uint32_t)(w >> 32) & 0x7fffffffu,
		.last = w >> 63,
	};
}

/* Puts packet p (sequence number seq) on the wire now; on a lossy channel
 * its slot has been filled and the transmission may be lost. */
static inline __attribute__((always_inline)) void
wire_start(struct fabric *f, struct chan *c, struct pkt *p, const struct pkt *v,
	   uint32_t payload, sim_time_t wire_ps, uint64_t seq, sim_time_t now)
{
	uint64_t serial = ++c->tx_serial;
	bool lost = false;

	c->wire_free = now + wire_ps;
	c->st.busy_ps += wire_ps;
	if (f->tracer)
		f->tracer(f->tracer_user, c->idx, now, wire_ps);
	c->st.wire_bytes += (uint64_t)payload + c->p.header_bytes;
	if (G_UNLIKELY(c->p.error_rate > 0)) {
		struct gbn_slot *sl = slot(c, seq);

		sl->tx_time = now;
		sl->tx_serial = serial;
		sl->tx_count++;
		lost = sim_rng_bernoulli(&c->comp.rng, c->p.error_rate);
		c->st.lost += lost;
		if (!c->timer_pending)
			timer_arm(f, c, now + c->p.gbn_timeout_ps, now);
	}
	struct sim_event *ev = sim_schedule(f->s, wire_ps + c->p.lat_ps, &c->comp, EV_ARRIVE);

	if (G_UNLIKELY(chan_lossy(c))) {
		ev->data[0].u = seq;
		ev->data[1].u = serial;
		ev->data[2].u = lost;
		ev->data[3].p = p; /* the receiver reads it from the event */
		return;
	}
	/* Lossless: the event carries the packet itself (pkt_to_event), so
	 * the receiver reads no packet of the pool, and one that came from
	 * an input's FIFO goes back to the pool now. */
	pkt_to_event(ev, p, seq);
	if (p != v)
		pkt_release(f, p);
}

/* A replay of seq (lossy channels only). */
static void transmit_again(struct fabric *f, struct chan *c, uint64_t seq, sim_time_t now)
{
	struct gbn_slot *sl = slot(c, seq);

	wire_start(f, c, sl->pkt, NULL, sl->payload, sl->wire_ps, seq, now);
}

static inline void transmit_new(struct fabric *f, struct chan *c, struct pkt *p,
				const struct pkt *v, int vc, sim_time_t now)
{
	struct msg *m = p->msg;

	if (G_UNLIKELY(!c->ack)) {
		uint64_t size = 1;

		while (size < c->p.gbn_window)
			size <<= 1;
		c->ack = g_new0(sim_time_t, size);
		if (c->p.error_rate > 0)
			c->ring = g_new0(struct gbn_slot, size);
		c->ring_mask = size - 1;
	}
	uint64_t seq = c->nxt++;
	sim_time_t wire_ps = G_LIKELY(p->payload == c->p.max_payload_bytes)
		? c->full_ps : link_wire_ps((uint64_t)p->payload + c->p.header_bytes, c->p.bw_bytes_per_s);

	c->rsend = c->nxt;
	if (G_UNLIKELY(c->ring)) {
		struct gbn_slot *sl = slot(c, seq);

		sl->pkt = p;
		sl->payload = p->payload;
		sl->tx_count = 0;
		sl->wire_ps = wire_ps;
	}
	if (c->p.credits)
		c->cred[vc]--;
	G_STATIC_ASSERT(LINK_MAX_PAYLOAD_BYTES < (1u << 31));
	if (p->hop == 0) {
		if (f->np.inject_bytes_per_s) {
			struct node *n = &f->nodes[c->src];

			n->inject_free = MAX(now, n->inject_free) +
					 node_ps(&f->inject_rate, p->payload, f->np.inject_bytes_per_s);
		}
	} else {
		struct chan *up = &f->chans[m->chan[p->hop - 1]];

		credit_return(f, up, msg_vc(m, p->hop - 1), now + up->p.credit_return_ps, now);
	}
	wire_start(f, c, p, v, p->payload, wire_ps, seq, now);
}

/* The transmitter's decision, at a time the wire is free: a replay first,
 * else the next input, round-robin, that has a credit, window room and (from
 * memory) an injection slot. When nothing can go, arranges to be kicked when
 * something may change. */
static void chan_pump(struct fabric *f, struct chan *c, sim_time_t now)
{
	if (G_UNLIKELY(c->wire_free > now)) {
		chan_kick(f, c, c->wire_free, now);
		return;
	}
	c->in_pump = true;
	/* Without loss nothing is replayed and no timer runs, so una matters
	 * only to the window: it is advanced when the window looks full. */
	if (G_UNLIKELY(c->p.error_rate > 0))
		gbn_advance(c, now);
	if (G_UNLIKELY(c->rsend < c->nxt)) {
		c->st.retransmitted++;
		transmit_again(f, c, c->rsend++, now);
		goto busy;
	}
	if (c->nactive == 0)
		goto out;
	if (G_UNLIKELY(c->nxt - c->una >= c->p.gbn_window))
		gbn_advance(c, now);
	if (G_UNLIKELY(c->nxt - c->una >= c->p.gbn_window)) {
		if (c->una < c->expected)
			chan_kick(f, c, c->ack[c->una & c->ring_mask], now);
		else
			c->wait_ack = true;
		goto out;
	}
	/* Credits are collected only when an input finds its virtual channel
	 * without one: the count it would have seen counts the returns due by
	 * now, so the decision is the same as collecting first, and the
	 * return ring is read once per many packets, not at every one. */
	const bool credits = c->p.credits != 0;
	bool collected = false;
	bool credit_blocked = false;
	sim_time_t inject_at = SIM_TIME_MAX;
	/* when the memory side lets a packet go: its clock less the slack */
	const struct node *src = &f->nodes[c->src];
	const sim_time_t inject_free = src->inject_free > src->inject_slack
					       ? src->inject_free - src->inject_slack : 0;
	/* A lone active input is at the head whatever happens to it here, so
	 * its list, and its entry of the inputs, are left alone (popping and
	 * pushing it back would leave them as they are) unless it empties:
	 * a channel streaming from one input reads no input entry per packet. */
	const int n = c->nactive;
	const bool lone = n == 1;

	for (int k = 0; k < n; k++) {
		int i = lone ? c->act_head : act_pop(c);
		int vc = i == 0 ? c->lhead->vc0 : (i - 1) & c->vc_mask;

		if (credits && c->cred[vc] == 0 && !collected) {
			credits_collect(c, now);
			collected = true;
		}
		if (credits && c->cred[vc] == 0) {
			credit_blocked = true;
			if (!lone)
				act_push(c, i);
			continue;
		}
		if (i == 0 && inject_free > now) {
			inject_at = inject_free;
			if (!lone)
				act_push(c, i);
			continue;
		}
		bool more;
		struct pkt v;
		struct pkt *p = input_take(f, c, i, &more, &v);

		if (more && !lone)
			act_push(c, i);
		else if (!more && lone)
			act_pop(c);
		transmit_new(f, c, p, &v, vc, now);
		goto busy;
	}
	if (credit_blocked) {
		if (c->cq_len)
			chan_kick(f, c, c->cq[c->cq_head] >> 1, now);
		else
			c->wait_credit = true;
	}
	if (inject_at != SIM_TIME_MAX)
		chan_kick(f, c, inject_at, now);
	goto out;
busy:
	if (c->rsend < c->nxt || c->nactive)
		chan_kick(f, c, c->wire_free, now);
out:
	c->in_pump = false;
}

/* ---- receiver ---- */

/* Delivers the packet of m that ends at byte `end` (the last one when
 * done). */
static inline void pkt_deliver(struct fabric *f, struct msg *m, uint64_t end, bool done)
{
	fabric_deliver_fn fn = m->deliver;
	void *user = m->user;

	f->delivering_replayed = m->replayed;
	if (done) {
		f->in_flight--;
		m->next = f->msg_free;
		f->msg_free = m;
	}
	fn(user, end, done);
}

/* Packet p has reached its last node: delivered now, or by EV_DELIVER
 * (which carries it) when the node's ejection is busy. A packet of the pool
 * (owned) goes back to it. */
static inline __attribute__((always_inline)) void
eject(struct fabric *f, struct chan *c, struct pkt *p, bool owned, sim_time_t now)
{
	struct node *n = &f->nodes[c->dst];
	sim_time_t t = n->eject_free > now + n->eject_slack ? n->eject_free - n->eject_slack : now;
	struct msg *m = p->msg;
	uint64_t end = p->end;
	bool last = p->last;

	if (f->np.eject_bytes_per_s)
		n->eject_free = MAX(t, n->eject_free) +
				node_ps(&f->eject_rate, p->payload, f->np.eject_bytes_per_s);
	credit_return(f, c, msg_vc(m, p->hop - 1), t + c->p.credit_return_ps, now);
	if (owned)
		pkt_release(f, p);
	if (t == now && n->eject_pending == 0) {
		pkt_deliver(f, m, end, last);
		return;
	}
	n->eject_pending++;
	struct sim_event *ev = sim_schedule(f->s, t - now, &c->comp, EV_DELIVER);

	ev->data[0].p = m;
	ev->flags |= SIM_EV_PREFETCH_DATA;
	ev->data[1].u = end;
	ev->data[2].u = last;
}

/* The receiver accepts packet seq, p: of the pool on a lossy channel
 * (owned), else the event's copy, which a packet of the pool replaces when
 * it waits for its next channel. */
static inline __attribute__((always_inline)) void
accept(struct fabric *f, struct chan *c, uint64_t seq, struct pkt *p,
       bool owned, sim_time_t now)
{
	struct msg *m = p->msg;
	sim_time_t ack = now + c->p.lat_ps;

	c->expected++;
	c->nak_sent = false;
	c->ack[seq & c->ring_mask] = ack;
	if (G_UNLIKELY(c->ring)) {
		struct gbn_slot *sl = slot(c, seq);

		sl->pkt = NULL;
		if (sl->tx_count > 1)
			m->replayed++;
	}
	if (c->wait_ack) {
		c->wait_ack = false;
		chan_kick(f, c, ack, now);
	}
	c->st.packets++;
	c->st.payload_bytes += p->payload;
	c->st.hops_histogram[MIN(m->nhops, 7u)] += p->payload;
	p->hop++;
	if (p->hop == m->nhops) {
		eject(f, c, p, owned, now);
		return;
	}
	if (!owned) {
		struct pkt *q = pkt_alloc(f);

		*q = *p;
		p = q;
	}
	struct chan *next = &f->chans[m->chan[p->hop]];
	int i = 1 + f->t.nvc * c->in_index + m->vc[p->hop];
	struct input *in;

	chan_inputs(next);
	in = &next->in[i];
	if (in->tail)
		in->tail->next = p;
	else
		in->head = p;
	in->tail = p;
	if (!in->active)
		act_push(next, i);
	chan_kick(f, next, now, now);
}

static void chan_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct chan *c = (struct chan *)self;
	struct fabric *f = c->f;
	sim_time_t now = ev->time; /* the clock, without a call into the engine */

	if (G_LIKELY(ev->type == EV_ARRIVE)) {
		if (G_LIKELY(!chan_lossy(c))) {
			/* nothing is lost: packets arrive in sequence */
			struct pkt v;

			if (G_UNLIKELY(ev->data[3].u != c->expected))
				g_error("link %s: packet %" G_GUINT64_FORMAT " arrived, %"
					G_GUINT64_FORMAT " expected", c->name, ev->data[3].u,
					c->expected);
			pkt_from_event(&v, ev);
			accept(f, c, c->expected, &v, false, now);
			return;
		}
		uint64_t seq = ev->data[0].u;

		if (G_UNLIKELY(ev->data[2].u))
			return; /* lost on the wire: the receiver sees nothing */
		if (G_LIKELY(seq == c->expected)) {
			accept(f, c, seq, ev->data[3].p, true, now);
			return;
		}
		if (seq > c->expected && !c->nak_sent) {
			struct sim_event *nak = sim_schedule(s, c->p.lat_ps, &c->comp, EV_NAK);

			c->nak_sent = true;
			nak->data[0].u = c->expected;
			nak->data[1].u = ev->data[1].u;
		}
		/* else a duplicate, or a packet behind a gap already NAKed */
		return;
	}
	if (G_LIKELY(ev->type == EV_TX)) {
		c->kick_pending = false;
		chan_pump(f, c, now);
		return;
	}
	switch (ev->type) {
	case EV_NAK: {
		uint64_t e = ev->data[0].u;

		gbn_advance(c, now);
		/* Stale when e has been acknowledged since, or retransmitted after
		 * the packet that revealed the gap. */
		if (e < c->una || e >= c->nxt || slot(c, e)->tx_serial > ev->data[1].u)
			break;
		c->rsend = e;
		chan_kick(f, c, now, now);
		break;
	}
	case EV_TIMER: {
		c->timer_pending = false;
		gbn_advance(c, now);
		if (c->una == c->nxt)
			break; /* re-armed by the next transmission */
		sim_time_t deadline = slot(c, c->una)->tx_time + c->p.gbn_timeout_ps;

		if (deadline > now) {
			timer_arm(f, c, deadline, now);
			break;
		}
		c->rsend = c->una;
		timer_arm(f, c, now + c->p.gbn_timeout_ps, now);
		chan_kick(f, c, now, now);
		break;
	}
	case EV_DELIVER:
		f->nodes[c->dst].eject_pending--;
		pkt_deliver(f, ev->data[0].p, ev->data[1].u, ev->data[2].u);
		break;
	default:
		g_error("link %s: unknown event type %u", c->name, ev->type);
	}
}

/* ---- construction and the public API ---- */

char *fabric_node_name(const struct fabric *f, int u)
{
	g_assert(u >= 0 && u < f->t.nnodes);
	return topo_node_name(&f->t, u);
}

G_STATIC_ASSERT(sizeof(struct input) == FABRIC_BYTES_PER_INPUT);

uint64_t fabric_memory_bytes(uint64_t nchans, uint64_t ninputs, uint64_t ndist, uint32_t fidelity)
{
	bool flow = fidelity == LINK_FIDELITY_FLOW;

	if (flow)
		return nchans * FABRIC_BYTES_PER_FLOW_CHAN + ndist * sizeof(int);
	return nchans * FABRIC_BYTES_PER_CHAN + ninputs * FABRIC_BYTES_PER_INPUT + ndist * sizeof(int);
}

/* Channel i's parameters: its tier's, with the topology's overrides. */
static void chan_params(const struct fabric *f, int i, struct link_params *out)
{
	const struct topo_chan *tc = &f->t.chans[i];

	*out = f->tier[tc->tier];
	if (!f->t.own)
		return;
	if (f->t.own[i].bw_bytes_per_s)
		out->bw_bytes_per_s = f->t.own[i].bw_bytes_per_s;
	if (f->t.own[i].lat_ps != SIM_TIME_MAX)
		out->lat_ps = f->t.own[i].lat_ps;
}

/* A node's injection and ejection are rates its ports share (DESIGN.md:
 * shared rate caps, not pipeline stages): each clock may run ahead of now by
 * the time of a largest packet of each of its ports but one, so that ports
 * that take a packet at the same time all go while their sum stays within
 * the rate, and over any longer time the clock holds them to it. */
static void node_slack(struct fabric *f)
{
	g_autofree uint32_t *out = g_new0(uint32_t, f->t.nnodes);
	g_autofree uint32_t *in = g_new0(uint32_t, f->t.nnodes);

	for (int i = 0; i < f->t.nchans; i++) {
		const struct chan *c = &f->chans[i];

		if (f->np.inject_bytes_per_s && out[c->src]++)
			f->nodes[c->src].inject_slack +=
				link_wire_ps(c->p.max_payload_bytes, f->np.inject_bytes_per_s);
		if (f->np.eject_bytes_per_s && in[c->dst]++)
			f->nodes[c->dst].eject_slack +=
				link_wire_ps(c->p.max_payload_bytes, f->np.eject_bytes_per_s);
	}
}

struct fabric *fabric_new(struct sim *s, const struct fabric_config *cfg, GError **error)
{
	/* the parameters of each enum topo_tier */
	struct link_params tier[3] = { cfg->link, cfg->switch_link, cfg->scaleout_link };

	if (cfg->fidelity > LINK_FIDELITY_FLOW) {
		g_set_error(error, LINK_ERROR, LINK_ERROR_PARAMS, "unknown fidelity %u", cfg->fidelity);
		return NULL;
	}
	if (!check_params(&cfg->link, "link", error))
		return NULL;
	struct fabric *f = g_new0(struct fabric, 1);

	if (!topo_init(&f->t, cfg, sim_seed(s), error)) {
		g_free(f);
		return NULL;
	}
	/* switch_link matters where a switch is, scaleout_link on a tiered shape */
	if (tier[TOPO_TIER_SWITCH].bw_bytes_per_s == 0)
		tier[TOPO_TIER_SWITCH] = cfg->link;
	else if (f->t.nnodes > f->t.nranks &&
		 !check_params(&tier[TOPO_TIER_SWITCH], "switch link", error))
		goto bad;
	if (tier[TOPO_TIER_SCALEOUT].bw_bytes_per_s == 0)
		tier[TOPO_TIER_SCALEOUT] = cfg->link;
	else if (topo_takes(cfg->topo, TOPO_PARAM_SCALEOUT) &&
		 !check_params(&tier[TOPO_TIER_SCALEOUT], "scale-out link", error))
		goto bad;
	f->s = s;
	f->np = cfg->node;
	memcpy(f->tier, tier, sizeof(tier));
	f->slabs = g_ptr_array_new_with_free_func(g_free);
	f->msgs = g_ptr_array_new_with_free_func(msg_free_fn);
	f->next_id = 1;
	f->route_nodes = g_new(int, f->t.nnodes + 1);
	f->route_vcs = g_new(uint8_t, f->t.nnodes);
	f->route_chans = g_new(int, f->t.nnodes);
	f->rcache = g_new0(struct route_cache, f->t.nranks);
	f->inject_rate.bytes = f->eject_rate.bytes = UINT64_MAX;
	if (cfg->fidelity == LINK_FIDELITY_FLOW) {
		/* the flow network keeps what a channel is at flow level */
		g_autofree struct link_params *params = g_new(struct link_params, f->t.nchans);
		g_autofree int *ends = g_new(int, 2 * (gsize)f->t.nchans);

		for (int i = 0; i < f->t.nchans; i++) {
			chan_params(f, i, &params[i]);
			ends[2 * i] = f->t.chans[i].src;
			ends[2 * i + 1] = f->t.chans[i].dst;
		}
		f->flow = flow_net_new(s, f->t.nchans, params, ends, f->t.nranks, &f->np);
		flow_set_arbiter(f->flow, cfg->flow_arbiter);
		return f;
	}
	f->nodes = g_new0(struct node, f->t.nnodes);
	f->chans = chans_alloc(f->t.nchans);
	/* per node, the channels entering it so far: a channel's index among them */
	int *entering = g_new0(int, f->t.nnodes);

	for (int i = 0; i < f->t.nchans; i++) {
		const struct topo_chan *tc = &f->t.chans[i];
		struct chan *c = &f->chans[i];
		g_autofree char *a = fabric_node_name(f, tc->src);
		g_autofree char *b = fabric_node_name(f, tc->dst);

		c->f = f;
		c->idx = i;
		c->src = tc->src;
		c->dst = tc->dst;
		c->in_index = entering[tc->dst]++;
		chan_params(f, i, &c->p);
		c->full_ps = link_wire_ps((uint64_t)c->p.max_payload_bytes + c->p.header_bytes,
					  c->p.bw_bytes_per_s);
		c->nin = 1 + f->t.nvc * f->t.in_count[c->src];
		c->act_head = c->act_tail = -1;
		c->cred[0] = c->cred[1] = c->p.credits;
		c->cq_cap = (uint32_t)f->t.nvc * c->p.credits;
		c->vc_mask = f->t.nvc - 1;
		c->st.src = c->src;
		c->st.dst = c->dst;
		c->name = g_strdup_printf("link %s->%s", a, b);
		sim_component_init(s, &c->comp, c->name, chan_handler);
		c->comp.hot_lines = CHAN_HOT_LINES;
	}
	g_free(entering);
	node_slack(f);
	return f;
bad:
	topo_release(&f->t);
	g_free(f);
	return NULL;
}

void fabric_free(struct fabric *f)
{
	if (!f)
		return;
	for (int i = 0; f->chans && i < f->t.nchans; i++) {
		struct chan *c = &f->chans[i];

		g_free(c->in);
		g_free(c->ring);
		g_free(c->ack);
		g_free(c->cq);
		g_free(c->name);
	}
	free(f->chans);
	g_free(f->nodes);
	g_ptr_array_unref(f->slabs);
	g_ptr_array_unref(f->msgs);
	g_free(f->route_nodes);
	g_free(f->route_vcs);
	flow_net_free(f->flow);
	g_free(f->route_chans);
	for (int i = 0; f->rcache && i < f->t.nranks; i++)
		for (int k = 0; k < 2; k++)
			if (f->rcache[i].e[k].hops > ROUTE_NEAR_HOPS)
				g_free(f->rcache[i].e[k].far);
	g_free(f->rcache);
	topo_release(&f->t);
	g_free(f);
}

int fabric_ranks(const struct fabric *f)
{
	return f->t.nranks;
}

/* route_cached when neither of the source's routes is the one: routed, and
 * cached (when short enough) in place of the one used less recently. Out
 * of line, so that a hit costs no call. */
static __attribute__((noinline)) int route_miss(struct fabric *f, int src, int dst,
						enum route_hint hint, const int **chans,
						const uint8_t **vcs)
{
	struct route_cache *c = &f->rcache[src];
	int hops = topo_route(&f->t, src, dst, hint, f->route_nodes, f->route_vcs);

	for (int k = 0; k < hops; k++) {
		f->route_chans[k] = topo_chan_find(&f->t, f->route_nodes[k], f->route_nodes[k + 1]);
		g_assert(f->route_chans[k] >= 0);
	}
	*chans = f->route_chans;
	*vcs = f->route_vcs;
	if (hops > ROUTE_CACHE_HOPS)
		return hops;
	int k = c->e[0].recent;
	struct route_entry e = c->e[k];

	if (hops > ROUTE_NEAR_HOPS && e.hops <= ROUTE_NEAR_HOPS)
		e.far = g_new(struct route_far, 1);
	else if (hops <= ROUTE_NEAR_HOPS && e.hops > ROUTE_NEAR_HOPS)
		g_free(e.far);
	e.dst = dst;
	e.hint = (uint8_t)hint;
	e.hops = (uint8_t)hops & 0x7f;
	e.recent = 1;
	memcpy(hops > ROUTE_NEAR_HOPS ? e.far->chans : e.chans, f->route_chans, sizeof(int) * (size_t)hops);
	memcpy(hops > ROUTE_NEAR_HOPS ? e.far->vcs : e.vcs, f->route_vcs, (size_t)hops);
	c->e[k] = e;
	c->e[!k].recent = 0;
	return hops;
}

/* The route src -> dst as channels and virtual channels, from the
 * source's cache or routed (and cached when short enough); returns the
 * hops, *chans the channels and *vcs their virtual channels (valid until
 * the next route). */
static inline int route_cached(struct fabric *f, int src, int dst, enum route_hint hint,
			       const int **chans, const uint8_t **vcs)
{
	struct route_cache *c = &f->rcache[src];
	int k = 0;

	if (!(c->e[0].hops && c->e[0].dst == dst && c->e[0].hint == (uint8_t)hint)) {
		k = 1;
		if (!(c->e[1].hops && c->e[1].dst == dst && c->e[1].hint == (uint8_t)hint))
			return route_miss(f, src, dst, hint, chans, vcs);
	}
	const struct route_entry *e = &c->e[k];

	c->e[k].recent = 1;
	c->e[!k].recent = 0;
	bool far = e->hops > ROUTE_NEAR_HOPS;

	*chans = far ? e->far->chans : e->chans;
	*vcs = far ? e->far->vcs : e->vcs;
	return e->hops;
}

/* route_cached at flow fidelity, which hands the flow network the virtual
 * channels. */
static inline int flow_route(struct fabric *f, int src, int dst, enum route_hint hint,
			     const int **chans)
{
	const uint8_t *vcs;
	int hops = route_cached(f, src, dst, hint, chans, &vcs);

	flow_set_vcs(f->flow, vcs);
	return hops;
}

/* A message at flow fidelity: one flow over the route (flow.h). */
static uint64_t flow_message(struct fabric *f, int src, int dst, uint64_t bytes,
			     enum route_hint hint, uint64_t first_bytes, uint64_t piece_bytes,
			     fabric_slack_fn slack, sim_time_t late, fabric_deliver_fn deliver,
			     void *user)
{
	const int *chans;
	int hops = flow_route(f, src, dst, hint, &chans);

	flow_send(f->flow, src, dst, bytes, chans, hops, first_bytes, piece_bytes, slack, late,
		  deliver, user);
	return f->next_id++;
}

bool fabric_append(struct fabric *f, int src, int dst, enum route_hint hint, uint64_t more,
		   void *user)
{
	if (!f->flow || src == dst)
		return false;
	const int *chans;

	if (flow_route(f, src, dst, hint, &chans) < 1)
		return false;
	return flow_append(f->flow, src, dst, chans[0], more, user);
}

uint32_t fabric_packet_payload(struct fabric *f, int src, int dst, enum route_hint hint)
{
	struct link_params p;
	const int *chans;

	g_assert(f->flow && src != dst);
	int hops = flow_route(f, src, dst, hint, &chans);

	g_assert(hops >= 1);
	chan_params(f, chans[0], &p);
	return p.max_payload_bytes;
}

int fabric_first_channel(struct fabric *f, int src, int dst, enum route_hint hint)
{
	const int *chans;
	const uint8_t *vcs;

	if (!f->flow || src == dst || route_cached(f, src, dst, hint, &chans, &vcs) < 1)
		return -1;
	return chans[0];
}

sim_time_t fabric_channel_drain_ps(const struct fabric *f, int chan)
{
	return chan < 0 ? 0 : flow_chan_drain_ps(f->flow, chan);
}

double fabric_channel_rate(const struct fabric *f, int chan)
{
	return chan < 0 || !f->flow ? 0 : flow_chan_rate(f->flow, chan);
}

void fabric_set_early(struct fabric *f, fabric_early_fn early)
{
	if (f->flow)
		flow_set_early(f->flow, early);
}

sim_time_t fabric_drain_ps(struct fabric *f, int src, int dst, enum route_hint hint)
{
	return fabric_channel_drain_ps(f, fabric_first_channel(f, src, dst, hint));
}

uint64_t fabric_send_pieces(struct fabric *f, int src, int dst, uint64_t bytes,
			    enum route_hint hint, uint64_t first_bytes, uint64_t piece_bytes,
			    fabric_slack_fn slack, fabric_deliver_fn deliver, void *user)
{
	if (!f->flow)
		return fabric_send(f, src, dst, bytes, hint, deliver, user);
	if (src < 0 || src >= f->t.nranks || dst < 0 || dst >= f->t.nranks || src == dst)
		g_error("fabric_send: bad ranks %d -> %d (%d ranks)", src, dst, f->t.nranks);
	g_assert(deliver);
	return flow_message(f, src, dst, bytes, hint, first_bytes, piece_bytes, slack, 0, deliver,
			    user);
}

bool fabric_may_begin_at(struct fabric *f, int src, int dst, enum route_hint hint, sim_time_t at)
{
	const int *chans;

	if (!f->flow || src == dst)
		return false;
	int hops = flow_route(f, src, dst, hint, &chans);

	return hops >= 1 && flow_may_begin_at(f->flow, src, dst, chans, hops, at);
}

uint64_t fabric_send_pieces_at(struct fabric *f, int src, int dst, uint64_t bytes,
			       enum route_hint hint, uint64_t first_bytes, uint64_t piece_bytes,
			       fabric_slack_fn slack, fabric_deliver_fn deliver, void *user,
			       sim_time_t at)
{
	g_assert(f->flow && deliver);
	if (src < 0 || src >= f->t.nranks || dst < 0 || dst >= f->t.nranks || src == dst)
		g_error("fabric_send: bad ranks %d -> %d (%d ranks)", src, dst, f->t.nranks);
	const int *chans;
	int hops = flow_route(f, src, dst, hint, &chans);

	if (!flow_send_at(f->flow, src, dst, bytes, chans, hops, first_bytes, piece_bytes, slack,
			  deliver, user, at))
		return 0;
	return f->next_id++;
}

uint64_t fabric_send_late(struct fabric *f, int src, int dst, uint64_t bytes,
			  enum route_hint hint, sim_time_t late_ps, fabric_deliver_fn deliver,
			  void *user)
{
	g_assert(f->flow);
	if (src < 0 || src >= f->t.nranks || dst < 0 || dst >= f->t.nranks || src == dst)
		g_error("fabric_send: bad ranks %d -> %d (%d ranks)", src, dst, f->t.nranks);
	g_assert(deliver);
	return flow_message(f, src, dst, bytes, hint, 0, 0, NULL, late_ps, deliver, user);
}

enum link_fidelity fabric_fidelity(const struct fabric *f)
{
	return f->flow ? LINK_FIDELITY_FLOW : LINK_FIDELITY_PACKET;
}

uint64_t fabric_send(struct fabric *f, int src, int dst, uint64_t bytes,
		     enum route_hint hint, fabric_deliver_fn deliver, void *user)
{
	if (src < 0 || src >= f->t.nranks || dst < 0 || dst >= f->t.nranks || src == dst)
		g_error("fabric_send: bad ranks %d -> %d (%d ranks)", src, dst, f->t.nranks);
	g_assert(deliver);
	if (f->flow)
		return flow_message(f, src, dst, bytes, hint, 0, 0, NULL, 0, deliver, user);
	struct msg *m = msg_alloc(f);
	const int *chans;
	const uint8_t *vcs;
	int hops = route_cached(f, src, dst, hint, &chans, &vcs);

	if ((uint32_t)hops > m->cap) {
		m->cap = (uint32_t)hops;
		m->chan = g_renew(int, m->chan, m->cap);
		m->vc = g_renew(uint8_t, m->vc, m->cap);
	}
	memcpy(m->chan, chans, sizeof(int) * (size_t)hops);
	memcpy(m->vc, vcs, (size_t)hops);
	m->nhops = (uint32_t)hops;
	m->vc0 = m->vc[0];
	m->id = f->next_id++;
	m->replayed = 0;
	m->bytes = bytes;
	m->cut = 0;
	m->deliver = deliver;
	m->user = user;
	f->in_flight++;

	struct chan *c = &f->chans[m->chan[0]];

	chan_inputs(c);
	if (c->ltail)
		c->ltail->next = m;
	else
		c->lhead = m;
	c->ltail = m;
	if (!c->in[0].active)
		act_push(c, 0);
	sim_time_t now = sim_now(f->s);

	chan_kick(f, c, now, now);
	return m->id;
}

int fabric_route(struct fabric *f, int src, int dst, enum route_hint hint, GArray *nodes)
{
	g_assert(g_array_get_element_size(nodes) == sizeof(int));
	if (src >= 0 && src < f->t.nranks) {
		/* the route's channels from the source's cache, their ends the
		 * nodes */
		const int *chans;
		const uint8_t *vcs;
		int hops = route_cached(f, src, dst, hint, &chans, &vcs);

		g_array_set_size(nodes, (guint)hops + 1);
		int *v = (int *)(void *)nodes->data;

		v[0] = src;
		for (int k = 0; k < hops; k++)
			v[k + 1] = f->t.chans[chans[k]].dst;
		return hops;
	}
	g_array_set_size(nodes, (guint)f->t.nnodes + 1);
	int hops = topo_route(&f->t, src, dst, hint, (int *)(void *)nodes->data, f->route_vcs);

	g_array_set_size(nodes, (guint)hops + 1);
	return hops;
}

int fabric_degree(const struct fabric *f, int rank)
{
	g_assert(rank >= 0 && rank < f->t.nnodes);
	return f->t.out_off[rank + 1] - f->t.out_off[rank];
}

bool fabric_routes_cyclic(const struct fabric *f)
{
	return f->t.routes_cyclic;
}

int fabric_diameter(const struct fabric *f)
{
	int n = f->t.nranks, d = 0;
	g_autofree int *nodes = g_new(int, f->t.nnodes + 1);
	g_autofree uint8_t *vcs = g_new(uint8_t, f->t.nnodes);

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			d = MAX(d, topo_route(&f->t, a, b, ROUTE_SHORTEST, nodes, vcs));
	return d;
}

int fabric_channels(const struct fabric *f)
{
	return f->t.nchans;
}

int fabric_channel_find(const struct fabric *f, int src, int dst)
{
	if (src < 0 || src >= f->t.nnodes || dst < 0 || dst >= f->t.nnodes)
		return -1;
	return topo_chan_find(&f->t, src, dst);
}

void fabric_channel_stats(const struct fabric *f, int i, struct channel_stats *out)
{
	g_assert(i >= 0 && i < f->t.nchans);
	if (f->flow) {
		out->src = f->t.chans[i].src;
		out->dst = f->t.chans[i].dst;
		flow_channel_stats(f->flow, i, out);
		return;
	}
	*out = f->chans[i].st;
}

void fabric_channel_params(const struct fabric *f, int i, struct link_params *out)
{
	g_assert(i >= 0 && i < f->t.nchans);
	chan_params(f, i, out);
}

uint64_t fabric_in_flight(const struct fabric *f)
{
	if (f->flow)
		return flow_in_flight(f->flow);
	return f->in_flight;
}

uint64_t fabric_switched_bytes(const struct fabric *f)
{
	return f->flow ? flow_switched_bytes(f->flow) : 0;
}

uint64_t fabric_rank_forwarded_bytes(const struct fabric *f, uint64_t *payload, uint64_t *largest)
{
	*payload = *largest = 0;
	return f->flow ? flow_rank_forwarded_bytes(f->flow, payload, largest) : 0;
}

void fabric_flow_rr_stats(const struct fabric *f, struct flow_rr_stats *out)
{
	*out = (struct flow_rr_stats){ 0 };
	if (f->flow)
		flow_rr_stats(f->flow, out);
}

void fabric_flow_walk_stats(const struct fabric *f, struct flow_walk_stats *out)
{
	*out = (struct flow_walk_stats){ 0 };
	if (f->flow)
		flow_walk_stats(f->flow, out);
}

uint32_t fabric_delivering_replayed(const struct fabric *f)
{
	return f->delivering_replayed;
}

void fabric_set_tracer(struct fabric *f, fabric_tracer_fn fn, void *user)
{
	f->tracer = fn;
	f->tracer_user = user;
}
