/* PAXI transactions over the fabric.
 *
 * Each node has `cdma_units` CDMA units. A unit grants up to `slots`
 * transactions at once, in the order they were started, and runs their
 * descriptor setups one after another (a virtual clock, setup_free_at). After
 * setup a Transfer streams its supplied data at once; a Send/Recv first sends
 * RTS, waits for CTS, then streams, then writes the completion flag. Every
 * control message is a header-only fabric message and costs ctrl_proc_ps at
 * the node that receives it. The destination answers every transaction with a
 * completion response, which frees the slot at the source.
 *
 * Data goes out as one fabric message per supply increment; each message has a
 * small context from a free list that counts what it has delivered. Usable
 * bytes are reported per slice for a Transfer and once, on the flag, for a
 * Send/Recv. Reductions use a per-node virtual clock at the reduce rate. */
#include "sim/paxi/paxi.h"
#include "sim/util/pool.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(g5-paxi-error-quark, paxi_error)

enum {
	PX_SETUP_DONE = 1,
	PX_CTRL,       /* a control message has been processed */
	PX_REDUCE_DONE,
	PX_ENGINE_STARTED, /* an engine item's fixed cost is paid */
	PX_ENGINE_DATA,    /* an engine item's data time is over */
	PX_REDUCE_LATER,   /* the lanes' deferred reductions (reducer_work) */
};

enum ctrl_type { CTRL_RTS, CTRL_CTS, CTRL_FLAG, CTRL_RESP };

enum txn_state {
	TX_NEW,
	TX_WAIT_SLOT,
	TX_SETUP,
	TX_WAIT_CTS,
	TX_DATA,
};

/* The most distinct ops tables of a paxi's transactions (paxi_txn_new). */
#define PAXI_MAX_TXN_OPS 8
G_STATIC_ASSERT(PAXI_MAX_TXN_OPS <= UINT8_MAX);

/* Messages and reduction requests per block of their pools. */
#define POOL_BLOCK 256

/* A transaction's times that only paxi_txn_times' readers use: kept in a
 * record of their own, made only while paxi_keep_times is on. */
struct txn_more {
	sim_time_t start, slot, setup_end, rts_arrived, posted, cts, data_allowed, last_supply,
		usable, sent;
	uint64_t last_msg_bytes, backlog_first, backlog_last;
	uint32_t replayed;
	int hops;
};

/* A transaction, 80 bytes. Its protocol (txn_proto), its pair (pair_slot)
 * and its first channel (txn_chan) are looked up where read; the times
 * only the breakdown reads follow it where it is kept (more_of). */
struct paxi_txn {
	/* The first 64 bytes hold what every delivered packet reads
	 * (on_data_delivered). */
	struct paxi *x;
	void *dst_user;
	uint64_t bytes;
	uint64_t wire_arrived; /* wire bytes delivered at the destination (txn_arrived:
				* its data bytes) */
	uint64_t notified;    /* reported usable */
	union {
		struct paxi_txn *next_wait; /* TX_WAIT_SLOT: its unit's queue, a ring
					     * (paxi.wait_tail) */
		struct paxi_msg *last_data; /* TX_DATA, flow fidelity: its last data message
					     * while in flight (pump may grow it), else NULL */
		struct paxi_txn *next_free; /* handed back: its store's free list */
	};
	sim_time_t when;      /* until TX_SETUP: paxi_txn_start's time, which its
			       * slot's wait counts from; then until it has landed:
			       * its setup's end; then: when it landed */
	uint16_t src, dst;
	uint8_t unit;          /* < PAXI_MAX_CDMA_UNITS */
	uint8_t kind : 1;      /* enum paxi_kind */
	uint8_t state : 3;     /* enum txn_state */
	uint8_t ops : 3;       /* its ops, paxi's ops[ops] */
	uint8_t simple : 1;    /* its protocol (txn_proto) is Simple: its wire bytes
				* are its data's */
	bool started : 1, posted : 1, rts_arrived : 1, cts_arrived : 1, flag_sent : 1,
		zero_sent : 1;
	bool over : 1;         /* its completion response has been processed */
	bool setup_unseen : 1; /* flow fidelity: its setup's end has no event; the
				* data supplied after it is allowed then (pump) */
	bool ahead : 1;        /* TX_DATA: its data was allowed at its setup's end, sent
				* ahead of it (pump), not when allowed (data_allowed) */
	bool landed : 1;       /* its data has all arrived: `when` says when */
	bool kept : 1;         /* paxi_keep_times was on at paxi_txn_new: its other
				* times are kept (more_of), it is in paxi's kept store */
	bool paired : 1;       /* paxi's pairs_on was at paxi_txn_new: it has a pair,
				* and its data counts in its inflight */

	void *src_user;
	uint64_t available;   /* supplied by the source so far; in TX_DATA, all of
			       * it handed to the fabric (pump) */
} __attribute__((aligned(16)));
G_STATIC_ASSERT(offsetof(struct paxi_txn, src_user) == 64 && sizeof(struct paxi_txn) == 80);
G_STATIC_ASSERT(LINK_MAX_RANKS <= UINT16_MAX + 1);
G_STATIC_ASSERT(PAXI_MAX_CDMA_UNITS <= UINT8_MAX + 1);
G_STATIC_ASSERT(PAXI_MAX_TXN_OPS <= 8 && PAXI_SENDRECV <= 1);

/* Transactions per block of a store (struct txn_store). */
#define TXN_BLOCK 1024

/* A transaction made while paxi_keep_times is on, and its kept times. */
struct kept_txn {
	struct paxi_txn t;
	struct txn_more more;
};

/* Transactions of one size, TXN_BLOCK a block, freed with the paxi; one
 * handed back is taken again first. */
struct txn_store {
	GPtrArray *blocks;            /* owned */
	size_t size;                  /* of one: a transaction and what follows it */
	uint32_t used;                /* taken from the last block */
	struct paxi_txn *free;        /* handed back, linked by next_free */
};

struct paxi_msg {
	struct paxi_txn *t;
	union {
		enum ctrl_type ctrl; /* a control message's */
		uint64_t seen;       /* a data message's: bytes delivered so far */
	};
};
G_STATIC_ASSERT(sizeof(struct paxi_msg) == 16);

/* A slot a unit holds, its setup queued, for a transaction not made yet
 * (paxi_unit_reserve): the user's key, when the setup ends (and, while
 * paxi_keep_times is on, when the slot was granted: paxi's res_slot).
 * Reservations live in paxi's store, RES_BLOCK a block, and link by
 * index + 1 (0: none), each unit's in a list, the oldest first, the free
 * ones in another. */
struct reservation {
	uint32_t key;
	uint32_t next;                /* the unit's next one, or the next free one */
	sim_time_t setup_end;
};

/* Reservations per block of paxi's reservation store. */
#define RES_BLOCK 256

/* A CDMA unit. The transactions waiting for its slots are in paxi's
 * wait_tail, apart: a user that keeps its own queue (paxi_unit_would_wait)
 * never has one wait. */
struct cdma {
	uint32_t busy;                /* slots held: transactions and reservations */
	uint32_t res;                 /* its oldest reservation, index + 1; 0: none */
	sim_time_t setup_free_at;
};
G_STATIC_ASSERT(sizeof(struct cdma) == 16);

/* A piece of work queued on a node's engine (paxi.engine). */
struct engine_item {
	uint64_t bytes, rate;
	sim_time_t lat;
	struct paxi_txn *t;  /* stores to a peer through t: done when t has delivered `upto` */
	uint64_t upto;
	void (*started)(void *user);
	void (*done)(void *user);
	void *user;
	bool data_done;
};

struct engine {
	GQueue queue;             /* of struct engine_item *, waiting */
	struct engine_item *cur;  /* the one running, or NULL */
};

/* A source's last pair: most sources send to one peer after another. */
struct pair_memo {
	int dst;       /* -1: none yet */
	uint32_t slot; /* its slot in paxi's inflight */
};

/* A pair's route latencies, forward (src to dst) and back, for control out
 * of band: SIM_TIME_MAX until first needed. */
struct pair_lat {
	sim_time_t fwd, back;
};

struct reduce_req {
	void (*done)(void *user);
	void *user;
	/* deferred (reducer_work): what it takes of which reducer */
	struct reduce_req *next;
	size_t at;
	uint64_t bytes;
	sim_time_t work;
};

struct paxi {
	struct sim_component c;
	struct sim *s;
	struct fabric *f;
	bool flow;                    /* f is at flow fidelity (fabric_fidelity) */
	uint8_t nops;                 /* ops[] in use */
	const struct paxi_txn_ops *ops[PAXI_MAX_TXN_OPS]; /* borrowed: the distinct ops
				       * of the transactions made, in order */
	struct paxi_params p;
	int nodes;
	struct cdma *units[PAXI_MAX_CDMA_UNITS]; /* owned: per unit index < cdma_units,
				       * that unit of every node, made when one is
				       * first used (unit_at); else NULL */
	struct paxi_txn **wait_tail[PAXI_MAX_CDMA_UNITS]; /* owned: as units, per node
				       * the last transaction waiting for a slot of
				       * that unit, NULL none (the waiting ones link
				       * in a ring by next_wait, the tail's to the
				       * first); made when one first waits */
	sim_time_t *reduce_free_at;   /* per reducer (reducer_of) */
	struct engine *engines;       /* paxi.engine: per node; NULL without */
	bool pairs_on;                /* transactions have pairs (paired): only what
				       * reads them does (control out of band, the
				       * backlogs kept with the times), from the first
				       * paxi_keep_times on; the rest are NULL until */
	GArray *inflight;             /* of uint64_t, per (src, dst) pair that has a
				       * paired transaction: its paired transactions'
				       * data bytes sent, not delivered */
	GArray *pair_lat;             /* control out of band (else NULL): of struct
				       * pair_lat, per pair as inflight */
	GHashTable *pairs;            /* src x nodes + dst + 1 -> its inflight slot + 1:
				       * every pair but those only ever in last_pair
				       * (a source of one pair has none here) */
	struct pair_memo *last_pair;  /* per source node: its last transaction's pair */
	struct txn_store txns;        /* the transactions */
	struct txn_store kept;        /* those made while paxi_keep_times is on, each
				       * followed by its kept times (more_of) */
	GPtrArray *res_blocks;        /* owned: the reservations, RES_BLOCK a block */
	uint32_t res_made;            /* reservations taken from the blocks */
	uint32_t res_free;            /* the first handed back, index + 1; 0: none */
	GArray *res_slot;             /* owned, of sim_time_t, per reservation: its
				       * slot's grant, if made while keeping times;
				       * NULL until one is */
	void (*refill)(void *user, int node, uint32_t unit); /* paxi_set_refill's */
	void *refill_user;
	GArray *route;                /* owned, of int: scratch for a route's nodes */
	struct pool msgs;             /* of struct paxi_msg */
	struct pool reqs;             /* of struct reduce_req */
	bool keep_times;              /* paxi_keep_times */
	struct reduce_req *later_head, *later_tail; /* deferred to PX_REDUCE_LATER */
	struct paxi_stats st;
};

/* t's kept times (t->kept). */
static struct txn_more *more_of(const struct paxi_txn *t)
{
	return &((struct kept_txn *)(void *)t)->more;
}

/* Transaction t's protocol: a Transfer's is the run's, a Send/Recv's
 * Simple. */
static enum paxi_proto txn_proto(const struct paxi_txn *t)
{
	return t->kind == PAXI_TRANSFER ? (enum paxi_proto)t->x->p.proto : PAXI_PROTO_SIMPLE;
}

/* Flow fidelity: t's route's first channel (its drain); -1 at packet
 * fidelity. */
static int txn_chan(const struct paxi_txn *t)
{
	return t->x->flow ? fabric_first_channel(t->x->f, t->src, t->dst, ROUTE_SHORTEST) : -1;
}

static uint32_t pair_slot(struct paxi *x, int src, int dst);

/* Paired t's data bytes of its pair in flight. */
static uint64_t *txn_inflight(const struct paxi_txn *t)
{
	return &g_array_index(t->x->inflight, uint64_t, pair_slot(t->x, t->src, t->dst));
}

static void engine_kick(struct paxi *x, int node);
static void engine_ready(struct paxi_txn *t);
static void engine_try_finish(struct paxi *x, int node);
static void pump(struct paxi_txn *t, uint64_t injected);
static bool data_early(void *user, double rate, sim_time_t since, sim_time_t until);

/* t may send from now on: its supplied data goes out, and an engine item
 * waiting to store through it may start. */
static void data_allowed(struct paxi_txn *t)
{
	t->state = TX_DATA;
	if (t->kept)
		more_of(t)->data_allowed = sim_now(t->x->s);
	t->setup_unseen = false;
	pump(t, 0);
	if (t->x->p.engine)
		engine_kick(t->x, t->src);
}

void paxi_params_default(struct paxi_params *p)
{
	*p = (struct paxi_params){
		.cdma_units = 2,
		.slots = 8,
		.setup_ps = SIM_NS(1000),
		.ctrl_proc_ps = SIM_NS(700),
		.slice_bytes = 16384,
		.reduce_bytes_per_s = 500000000000ull,
		.handshake = PAXI_HS_RTS,
		.reduce_per = PAXI_REDUCE_NODE,
		.staging = 0,
		.proto = PAXI_PROTO_SIMPLE,
	};
}

const char *paxi_kind_name(enum paxi_kind k)
{
	switch (k) {
	case PAXI_TRANSFER:
		return "transfer";
	case PAXI_SENDRECV:
		return "sendrecv";
	}
	g_error("paxi_kind_name: bad kind %d", (int)k);
}

bool paxi_kind_parse(const char *name, enum paxi_kind *out)
{
	if (!strcmp(name, "transfer"))
		*out = PAXI_TRANSFER;
	else if (!strcmp(name, "sendrecv"))
		*out = PAXI_SENDRECV;
	else
		return false;
	return true;
}

const char *paxi_proto_name(enum paxi_proto p)
{
	static const char *const names[PAXI_NPROTOS] = { "simple", "ll", "ll128" };

	return p < PAXI_NPROTOS ? names[p] : "?";
}

bool paxi_proto_parse(const char *name, enum paxi_proto *out)
{
	for (int p = 0; p < PAXI_NPROTOS; p++)
		if (!g_ascii_strcasecmp(name, paxi_proto_name((enum paxi_proto)p))) {
			*out = (enum paxi_proto)p;
			return true;
		}
	return false;
}

/* Wire bytes per data byte: num / den. */
static const uint32_t wire_num[PAXI_NPROTOS] = { 1, 2, 16 };
static const uint32_t wire_den[PAXI_NPROTOS] = { 1, 1, 15 };

bool paxi_proto_polled(enum paxi_proto p)
{
	g_assert(p < PAXI_NPROTOS);
	return p == PAXI_PROTO_LL;
}

uint64_t paxi_proto_wire_bytes(enum paxi_proto p, uint64_t bytes)
{
	g_assert(p < PAXI_NPROTOS);
	if (wire_den[p] == 1 && bytes <= UINT64_MAX / wire_num[p])
		return bytes * wire_num[p]; /* Simple, LL: no division */
	return (uint64_t)(((unsigned __int128)bytes * wire_num[p] + wire_den[p] - 1) / wire_den[p]);
}

static void paxi_handler(struct sim *s, struct sim_component *self, struct sim_event *ev);

/* Transactions made from now on have pairs (pairs_on). */
static void pairs_init(struct paxi *x)
{
	x->pairs_on = true;
	x->inflight = g_array_new(FALSE, TRUE, sizeof(uint64_t));
	if (x->p.control == PAXI_CONTROL_OOB)
		x->pair_lat = g_array_new(FALSE, FALSE, sizeof(struct pair_lat));
	x->pairs = g_hash_table_new(g_direct_hash, g_direct_equal);
	x->last_pair = g_new(struct pair_memo, (gsize)x->nodes);
	for (int i = 0; i < x->nodes; i++)
		x->last_pair[i] = (struct pair_memo){ .dst = -1 };
}

struct paxi *paxi_new(struct sim *s, struct fabric *f, const struct paxi_params *p,
		      GError **error)
{
	if (p->cdma_units < 1 || p->cdma_units > PAXI_MAX_CDMA_UNITS) {
		g_set_error(error, PAXI_ERROR, PAXI_ERROR_PARAMS, "'cdma_units' must be in 1..%d, got %u",
			    PAXI_MAX_CDMA_UNITS, p->cdma_units);
		return NULL;
	}
	if (p->slots < 1) {
		g_set_error(error, PAXI_ERROR, PAXI_ERROR_PARAMS,
			    "'slots' must be at least 1, got %u", p->slots);
		return NULL;
	}
	if (p->proto >= PAXI_NPROTOS || p->handshake > PAXI_HS_READY ||
	    p->reduce_per > PAXI_REDUCE_UNIT || p->control > PAXI_CONTROL_OOB) {
		g_set_error(error, PAXI_ERROR, PAXI_ERROR_PARAMS,
			    "unknown protocol, handshake, control or reducer");
		return NULL;
	}
	if (p->slice_bytes < 1) {
		g_set_error(error, PAXI_ERROR, PAXI_ERROR_PARAMS,
			    "'slice' must be at least 1 byte");
		return NULL;
	}
	struct paxi *x = g_new0(struct paxi, 1);

	x->s = s;
	x->f = f;
	x->flow = fabric_fidelity(f) == LINK_FIDELITY_FLOW;
	if (x->flow)
		fabric_set_early(f, data_early);
	x->p = *p;
	x->nodes = fabric_ranks(f);
	x->reduce_free_at = g_new0(sim_time_t, p->reduce_per == PAXI_REDUCE_UNIT
							     ? (gsize)x->nodes * p->cdma_units
							     : (gsize)x->nodes);
	if (p->engine) /* else no work is queued on one */
		x->engines = g_new0(struct engine, (gsize)x->nodes);
	if (p->control == PAXI_CONTROL_OOB)
		pairs_init(x);
	x->txns = (struct txn_store){ .blocks = g_ptr_array_new_with_free_func(g_free),
				      .size = sizeof(struct paxi_txn) };
	x->kept = (struct txn_store){ .blocks = g_ptr_array_new_with_free_func(g_free),
				      .size = sizeof(struct kept_txn) };
	x->res_blocks = g_ptr_array_new_with_free_func(g_free);
	x->route = g_array_new(FALSE, FALSE, sizeof(int));
	pool_init(&x->msgs, sizeof(struct paxi_msg), POOL_BLOCK);
	pool_init(&x->reqs, sizeof(struct reduce_req), POOL_BLOCK);
	sim_component_init(s, &x->c, "paxi", paxi_handler);
	return x;
}

void paxi_free(struct paxi *x)
{
	if (!x)
		return;
	g_ptr_array_unref(x->txns.blocks);
	g_ptr_array_unref(x->kept.blocks);
	g_array_unref(x->route);
	pool_release(&x->msgs);
	pool_release(&x->reqs);
	g_ptr_array_unref(x->res_blocks);
	if (x->res_slot)
		g_array_unref(x->res_slot);
	for (uint32_t k = 0; k < x->p.cdma_units; k++) {
		g_free(x->units[k]);
		g_free(x->wait_tail[k]);
	}
	g_free(x->reduce_free_at);
	for (int i = 0; x->engines && i < x->nodes; i++) {
		g_queue_clear_full(&x->engines[i].queue, g_free);
		g_free(x->engines[i].cur);
	}
	g_free(x->engines);
	if (x->pairs_on) {
		g_array_unref(x->inflight);
		g_hash_table_unref(x->pairs);
		g_free(x->last_pair);
	}
	if (x->pair_lat)
		g_array_unref(x->pair_lat);
	g_free(x);
}

const struct paxi_stats *paxi_stats(const struct paxi *x)
{
	return &x->st;
}

const struct paxi_params *paxi_get_params(const struct paxi *x)
{
	return &x->p;
}

struct sim *paxi_sim(const struct paxi *x)
{
	return x->s;
}

uint64_t paxi_txn_bytes(const struct paxi_txn *t)
{
	return t->bytes;
}

enum paxi_kind paxi_txn_kind(const struct paxi_txn *t)
{
	return (enum paxi_kind)t->kind;
}

struct paxi_txn_times paxi_txn_times(const struct paxi_txn *t)
{
	struct paxi_txn_times tm = { .arrived = t->landed ? t->when : 0 };

	if (t->kept) {
		const struct txn_more *more = more_of(t);

		tm.setup_end = more->setup_end;
		tm.data_allowed = more->data_allowed;
		tm.start = more->start;
		tm.last_supply = more->last_supply;
		tm.replayed = more->replayed;
		tm.hops = more->hops;
		tm.slot = more->slot;
		tm.rts_arrived = more->rts_arrived;
		tm.posted = more->posted;
		tm.cts = more->cts;
		tm.last_msg_bytes = more->last_msg_bytes;
		tm.backlog_first = more->backlog_first;
		tm.backlog_last = more->backlog_last;
		tm.usable = more->usable;
		tm.sent = more->sent;
	}
	return tm;
}

void paxi_keep_times(struct paxi *x, bool keep)
{
	/* a reservation's slot grant is kept (res_slot) or not from its
	 * making to its transaction's */
	for (uint32_t k = 0; keep != x->keep_times && k < x->p.cdma_units; k++)
		for (int i = 0; x->units[k] && i < x->nodes; i++)
			g_assert(!x->units[k][i].res);
	/* the backlogs count from here: a pair's data in flight is that of its
	 * transactions made since */
	if (keep && !x->pairs_on)
		pairs_init(x);
	x->keep_times = keep;
}

void *paxi_txn_user(const struct paxi_txn *t, bool dst)
{
	return dst ? t->dst_user : t->src_user;
}

sim_time_t paxi_txn_ideal_ps(const struct paxi_txn *t, uint64_t bytes)
{
	struct link_params lp;
	sim_time_t slowest = 0, sum_pkt = 0, lat = 0, max_pkt = 0;
	/* the route again (a pure function of the topology), rather than a
	 * copy of it in every transaction */
	GArray *nodes = t->x->route;
	int hops = fabric_route(t->x->f, t->src, t->dst, ROUTE_SHORTEST, nodes);

	for (int h = 0; h < hops; h++) {
		fabric_channel_params(t->x->f,
				      fabric_channel_find(t->x->f, g_array_index(nodes, int, h),
							  g_array_index(nodes, int, h + 1)),
				      &lp);
		sim_time_t whole = link_message_ps(&lp, bytes);
		sim_time_t pkt = link_message_ps(&lp, MIN(bytes, (uint64_t)lp.max_payload_bytes));

		slowest = MAX(slowest, whole);
		max_pkt = MAX(max_pkt, pkt);
		sum_pkt += pkt;
		lat += lp.lat_ps;
	}
	if (!hops)
		return 0;
	/* the slowest channel carries every packet; each other adds one */
	return slowest + (sum_pkt - max_pkt) + lat;
}

void paxi_txn_free(struct paxi_txn *t)
{
	struct paxi *x = t->x;

	g_assert(t->state == TX_DATA && t->over && t->notified == t->bytes && !t->last_data);
	g_assert(x->st.txns_live > 0);
	x->st.txns_live--;
	struct txn_store *st = t->kept ? &x->kept : &x->txns;

	t->x = NULL;
	t->next_free = st->free;
	st->free = t;
}

void paxi_txn_set_src_user(struct paxi_txn *t, void *src_user)
{
	t->src_user = src_user;
}

void paxi_txn_set_dst_user(struct paxi_txn *t, void *dst_user)
{
	t->dst_user = dst_user;
}

/* The link's rate-to-time rule (link_wire_ps); rate 0 is free. */
static sim_time_t time_at_rate(uint64_t bytes, uint64_t bytes_per_s)
{
	return bytes_per_s ? link_wire_ps(bytes, bytes_per_s) : 0;
}

/* Wire bytes of `bytes` of t's data (paxi_proto_wire_bytes); Simple's are
 * the data's, as most transactions' are. */
static uint64_t txn_wire_bytes(const struct paxi_txn *t, uint64_t bytes)
{
	return t->simple ? bytes : paxi_proto_wire_bytes(txn_proto(t), bytes);
}

/* The data bytes of t delivered at its destination: those of its wire
 * bytes delivered (the lines whole, LL's and LL128's). */
static inline uint64_t txn_arrived(const struct paxi_txn *t)
{
	if (t->simple)
		return t->wire_arrived;
	enum paxi_proto p = txn_proto(t);

	if (t->wire_arrived >= paxi_proto_wire_bytes(p, t->bytes))
		return t->bytes;
	return (uint64_t)((unsigned __int128)t->wire_arrived * wire_den[p] / wire_num[p]);
}

static const struct paxi_txn_ops *ops_of(const struct paxi_txn *t)
{
	return t->x->ops[t->ops];
}

static struct paxi_msg *msg_get(struct paxi *x)
{
	struct paxi_msg *m = pool_take(&x->msgs);

	*m = (struct paxi_msg){ 0 };
	return m;
}

static void msg_put(struct paxi *x, struct paxi_msg *m)
{
	pool_give(&x->msgs, m);
}

static void on_ctrl_delivered(void *user, uint64_t bytes, bool done);
static void on_ctrl_processed(void *user, uint64_t bytes, bool done);
static void on_ctrl(struct paxi *x, struct paxi_txn *t, enum ctrl_type type);
static void on_data_delivered(void *user, uint64_t bytes, bool done);
static sim_time_t data_slack(void *user);

/* The summed latency of the hops from `from` to `to`. */
static sim_time_t route_latency(struct paxi *x, int from, int to)
{
	GArray *nodes = x->route;
	int hops = fabric_route(x->f, from, to, ROUTE_SHORTEST, nodes);
	sim_time_t lat = 0;

	for (int h = 0; h < hops; h++) {
		struct link_params lp;

		fabric_channel_params(x->f,
				      fabric_channel_find(x->f, g_array_index(nodes, int, h),
							  g_array_index(nodes, int, h + 1)),
				      &lp);
		lat += lp.lat_ps;
	}
	return lat;
}

static void send_ctrl(struct paxi_txn *t, enum ctrl_type type)
{
	struct paxi *x = t->x;
	bool forward = type == CTRL_RTS || type == CTRL_FLAG;

	if (x->p.control == PAXI_CONTROL_OOB && type != CTRL_FLAG) {
		g_assert(t->paired); /* pairs_on from paxi_new */
		struct pair_lat *pl = &g_array_index(x->pair_lat, struct pair_lat,
						     pair_slot(x, t->src, t->dst));
		sim_time_t *lat = forward ? &pl->fwd : &pl->back;

		if (*lat == SIM_TIME_MAX)
			*lat = forward ? route_latency(x, t->src, t->dst)
				       : route_latency(x, t->dst, t->src);
		struct sim_event *ev = sim_schedule(x->s, *lat + x->p.ctrl_proc_ps, &x->c, PX_CTRL);

		x->st.ctrl_msgs++;
		ev->data[0].p = t;
		ev->data[1].u = type;
		return;
	}
	struct paxi_msg *m = msg_get(x);

	m->t = t;
	m->ctrl = type;
	x->st.ctrl_msgs++;
	if (x->flow) {
		/* its processing's end is known when it lands: one event */
		fabric_send_late(x->f, forward ? t->src : t->dst, forward ? t->dst : t->src, 0,
				 ROUTE_SHORTEST, x->p.ctrl_proc_ps, on_ctrl_processed, m);
		return;
	}
	fabric_send(x->f, forward ? t->src : t->dst, forward ? t->dst : t->src, 0,
		    ROUTE_SHORTEST, on_ctrl_delivered, m);
}

/* Flow fidelity: a control message has landed and been processed
 * (fabric_send_late). */
static void on_ctrl_processed(void *user, uint64_t bytes, bool done)
{
	struct paxi_msg *m = user;
	struct paxi_txn *t = m->t;
	enum ctrl_type type = m->ctrl;

	(void)bytes;
	g_assert(done);
	msg_put(t->x, m);
	on_ctrl(t->x, t, type);
}

static void on_ctrl_delivered(void *user, uint64_t bytes, bool done)
{
	struct paxi_msg *m = user;
	struct paxi *x = m->t->x;

	if (!done)
		return;
	struct sim_event *ev = sim_schedule(x->s, x->p.ctrl_proc_ps, &x->c, PX_CTRL);

	ev->data[0].p = m->t;
	ev->data[1].u = m->ctrl;
	msg_put(x, m);
}

/* Hands newly supplied data to the fabric, once the transaction may send:
 * `injected` bytes of it went before (all that was supplied, in TX_DATA; 0
 * before). */
static void pump(struct paxi_txn *t, uint64_t injected)
{
	struct paxi *x = t->x;

	sim_time_t ahead = 0; /* its data may not send before then */

	if (t->setup_unseen && t->available > injected) {
		/* the first data of a Transfer whose setup's end was not an
		 * event: allowed since that end, or at it; sent now, ahead of
		 * it, where the fabric can (no event either) */
		sim_time_t now = sim_now(x->s);

		t->setup_unseen = false;
		if (now < t->when) {
			if (!fabric_may_begin_at(x->f, t->src, t->dst, ROUTE_SHORTEST, t->when)) {
				sim_schedule(x->s, t->when - now, &x->c, PX_SETUP_DONE)->data[0].p = t;
				return;
			}
			ahead = t->when;
		}
		t->state = TX_DATA;
		t->ahead = true;
		if (t->kept)
			more_of(t)->data_allowed = t->when;
	}
	if (t->state != TX_DATA)
		return;
	if (t->available > injected && t->last_data) {
		uint64_t wire = txn_wire_bytes(t, t->available) - txn_wire_bytes(t, injected);

		/* its last message has not started: it carries this data too */
		if (fabric_append(x->f, t->src, t->dst, ROUTE_SHORTEST, wire, t->last_data)) {
			if (t->paired)
				*txn_inflight(t) += wire;
			if (t->kept)
				more_of(t)->last_msg_bytes += wire;
			injected = t->available;
		}
	}
	if (t->available > injected || (t->bytes == 0 && !t->zero_sent)) {
		struct paxi_msg *m = msg_get(x);

		m->t = t;
		uint64_t wire = txn_wire_bytes(t, t->available) - txn_wire_bytes(t, injected);

		uint64_t *inflight = t->paired ? txn_inflight(t) : NULL;

		if (t->kept) { /* so paired */
			struct txn_more *more = more_of(t);

			if (!injected && !t->zero_sent)
				more->backlog_first = *inflight;
			more->backlog_last = *inflight;
			more->last_msg_bytes = wire;
		}
		if (inflight)
			*inflight += wire;
		if (x->flow && t->kind == PAXI_TRANSFER) {
			/* usable as the packets make it: per slice (Simple's flag),
			 * per packet (LL and LL128 lines are usable as they land):
			 * the pipeline */
			uint64_t slice = t->simple
						 ? txn_wire_bytes(t, x->p.slice_bytes)
						 : fabric_packet_payload(x->f, t->src, t->dst, ROUTE_SHORTEST);

			fabric_slack_fn slack = ops_of(t)->slack && !ops_of(t)->each_slice ? data_slack
										     : NULL;

			if (ahead) {
				uint64_t id = fabric_send_pieces_at(x->f, t->src, t->dst, wire,
								    ROUTE_SHORTEST, slice, slice, slack,
								    on_data_delivered, m, ahead);

				g_assert(id);
			} else {
				fabric_send_pieces(x->f, t->src, t->dst, wire, ROUTE_SHORTEST, slice,
						   slice, slack, on_data_delivered, m);
			}
			/* a receiver that can wait takes later data in the same
			 * message while it waits (fabric_append) */
			if (ops_of(t)->slack && !x->p.engine)
				t->last_data = m;
		} else {
			fabric_send(x->f, t->src, t->dst, wire, ROUTE_SHORTEST, on_data_delivered, m);
		}
		t->zero_sent = true;
	}
	if (t->kind == PAXI_SENDRECV && t->available == t->bytes && !t->flag_sent) {
		t->flag_sent = true;
		send_ctrl(t, CTRL_FLAG);
	}
}

/* Flow fidelity: whether a Transfer's receiver takes the rest of its data
 * before it lands (paxi_txn_ops.early); never with an engine, whose rounds
 * pace it. */
static bool data_early(void *user, double rate, sim_time_t since, sim_time_t until)
{
	struct paxi_msg *m = user;
	struct paxi_txn *t = m->t;

	if (t->x->p.engine || !ops_of(t)->early || t->kind != PAXI_TRANSFER)
		return false;
	return ops_of(t)->early(t->dst_user, t, rate, since, until);
}

double paxi_txn_chan_rate(const struct paxi_txn *t)
{
	return fabric_channel_rate(t->x->f, txn_chan(t));
}

bool paxi_txn_resp_joins(const struct paxi_txn *in, const struct paxi_txn *out)
{
	int chan = txn_chan(out);

	return in->x->p.control != PAXI_CONTROL_OOB && chan >= 0 &&
	       fabric_first_channel(in->x->f, in->dst, in->src, ROUTE_SHORTEST) == chan;
}

/* Flow fidelity: how long a Transfer's receiver can wait for its next
 * piece (paxi_txn_ops.slack); 0 with an engine, whose rounds pace it. */
static sim_time_t data_slack(void *user)
{
	struct paxi_msg *m = user;
	struct paxi_txn *t = m->t;

	if (t->x->p.engine)
		return 0;
	return ops_of(t)->slack(t->dst_user, t);
}

/* paxi_txn_drain_ps of a Transfer at flow fidelity, without an engine,
 * whose setup ends at setup_end, not yet past, on first channel chan: none
 * of its data leaves before its setup ends (PX_SETUP_DONE allows a
 * Transfer's data at once, or it was sent ahead of it), nor before its
 * channel has sent what is queued on it. */
static sim_time_t drain_before_end(const struct paxi *x, sim_time_t setup_end, int chan)
{
	sim_time_t now = sim_now(x->s);
	sim_time_t left = setup_end > now ? setup_end - now : 0;

	return MAX(left, fabric_channel_drain_ps(x->f, chan));
}

sim_time_t paxi_txn_drain_ps(const struct paxi_txn *t)
{
	/* sent ahead, its data is allowed at its setup's end (when, until it
	 * has landed) */
	bool before_end = t->state == TX_SETUP ||
			  (t->state == TX_DATA && t->ahead && !t->landed && t->when > sim_now(t->x->s));

	if (before_end && t->kind == PAXI_TRANSFER && !t->x->p.engine && t->x->flow)
		return drain_before_end(t->x, t->when, txn_chan(t));
	if (t->state != TX_DATA)
		return 0;
	return fabric_channel_drain_ps(t->x->f, txn_chan(t));
}

static void on_data_delivered(void *user, uint64_t bytes, bool done)
{
	struct paxi_msg *m = user;
	struct paxi_txn *t = m->t;
	struct paxi *x = t->x;

	if (t->paired)
		*txn_inflight(t) -= bytes - m->seen;
	t->wire_arrived += bytes - m->seen;
	m->seen = bytes;
	uint64_t arrived = txn_arrived(t);

	if (done) {
		if (!x->flow && t->kept) /* nothing is replayed at flow fidelity */
			more_of(t)->replayed += fabric_delivering_replayed(x->f);
		if (t->last_data == m)
			t->last_data = NULL;
		msg_put(x, m);
	}
	if (arrived == t->bytes && done) {
		t->when = sim_now(x->s);
		t->landed = true;
	}
	if (x->p.engine && x->engines[t->src].cur && x->engines[t->src].cur->t == t)
		engine_try_finish(x, t->src);
	if (t->kind != PAXI_TRANSFER)
		return;
	bool all = arrived == t->bytes && done;

	/* Simple: per slice (its flag); LL, LL128: every line as it lands */
	if (all || (t->simple ? arrived - t->notified >= x->p.slice_bytes
						  : arrived > t->notified)) {
		t->notified = arrived;
		if (all && t->kept)
			more_of(t)->usable = sim_now(x->s);
		ops_of(t)->usable(t->dst_user, t, arrived, all);
	}
	if (all)
		send_ctrl(t, CTRL_RESP);
}

/* Unit k (< cdma_units) of node, its index's units made if none has been
 * used. */
static inline struct cdma *unit_in(struct paxi *x, uint32_t k, int node)
{
	struct cdma **u = &x->units[k];

	if (G_UNLIKELY(!*u))
		*u = g_new0(struct cdma, (gsize)x->nodes);
	return &(*u)[node];
}

/* Unit `unit` (modulo the node's) of node. */
static struct cdma *unit_at(struct paxi *x, int node, uint32_t unit)
{
	return unit_in(x, unit % x->p.cdma_units, node);
}

/* The same where it has been used, else NULL (no slot held, none waits). */
static const struct cdma *unit_used(const struct paxi *x, int node, uint32_t unit)
{
	const struct cdma *u = x->units[unit % x->p.cdma_units];

	return u ? &u[node] : NULL;
}

static struct cdma *unit_of(struct paxi_txn *t)
{
	return unit_in(t->x, t->unit, t->src);
}

/* The last transaction waiting for a slot of unit k (< cdma_units) of
 * node, NULL none. */
static struct paxi_txn *waiting(const struct paxi *x, uint32_t k, int node)
{
	return x->wait_tail[k] ? x->wait_tail[k][node] : NULL;
}

/* A slot of u from now, and a setup queued on its descriptor engine, for
 * a transaction of protocol proto started at start_ps: the setup's end. */
static sim_time_t unit_take(struct paxi *x, struct cdma *u, enum paxi_proto proto,
			    sim_time_t start_ps)
{
	sim_time_t now = sim_now(x->s);
	sim_time_t begin = MAX(now, u->setup_free_at);

	u->busy++;
	x->st.slot_wait_ps += now - start_ps;
	/* engine: the protocol's latency is paid per round on the engine */
	u->setup_free_at = begin + x->p.setup_ps + (x->p.engine ? 0 : x->p.protos[proto].lat_ps);
	x->st.setup_ps += u->setup_free_at - now;
	return u->setup_free_at;
}

/* Flow fidelity: whether a transaction of `kind` and `bytes` set up ahead
 * of its data needs no event at its setup's end: a Transfer with bytes,
 * without an engine; its first data reads the end (pump). */
static bool setup_unseen_ok(const struct paxi *x, enum paxi_kind kind, uint64_t bytes)
{
	return x->flow && kind == PAXI_TRANSFER && !x->p.engine && bytes > 0;
}

static void begin_setup(struct paxi_txn *t)
{
	struct paxi *x = t->x;
	struct cdma *u = unit_of(t);
	sim_time_t now = sim_now(x->s);

	t->when = unit_take(x, u, txn_proto(t), t->when);
	if (t->kept) {
		more_of(t)->slot = now;
		more_of(t)->setup_end = t->when;
	}
	t->state = TX_SETUP;
	if (setup_unseen_ok(x, t->kind, t->bytes) && !t->available) {
		t->setup_unseen = true;
		return;
	}
	sim_schedule(x->s, t->when - now, &x->c, PX_SETUP_DONE)->data[0].p = t;
}

/* The place of ops among x's (ops[]), taken if new. */
static struct paxi_txn *txn_take(struct txn_store *st);
static void pair_make(struct paxi *x, int src, int dst);

static uint8_t ops_index(struct paxi *x, const struct paxi_txn_ops *ops)
{
	uint8_t i = 0;

	while (i < x->nops && x->ops[i] != ops)
		i++;
	if (i == x->nops) {
		if (x->nops == PAXI_MAX_TXN_OPS)
			g_error("paxi: more than %d ops tables", PAXI_MAX_TXN_OPS);
		x->ops[x->nops++] = ops;
	}
	return i;
}

struct paxi_txn *paxi_txn_new(struct paxi *x, enum paxi_kind kind, int src, int dst,
			      uint32_t unit, uint64_t bytes, const struct paxi_txn_ops *ops,
			      void *src_user, void *dst_user)
{
	g_assert(src >= 0 && src < x->nodes && dst >= 0 && dst < x->nodes && src != dst);
	struct paxi_txn *t = txn_take(x->keep_times ? &x->kept : &x->txns);

	if (++x->st.txns_live > x->st.txns_live_peak)
		x->st.txns_live_peak = x->st.txns_live;

	t->x = x;
	t->ops = ops_index(x, ops);
	t->src_user = src_user;
	t->dst_user = dst_user;
	t->src = (uint16_t)src;
	t->dst = (uint16_t)dst;
	t->unit = (uint8_t)(unit % x->p.cdma_units);
	t->kind = kind == PAXI_SENDRECV;
	t->simple = txn_proto(t) == PAXI_PROTO_SIMPLE;
	t->bytes = bytes;
	if (x->keep_times) {
		t->kept = true;
		*more_of(t) = (struct txn_more){
			.hops = fabric_route(x->f, src, dst, ROUTE_SHORTEST, x->route),
		};
	}
	if (x->pairs_on) {
		pair_make(x, src, dst);
		t->paired = true;
	}
	x->st.txns++;
	return t;
}

/* A transaction from st's blocks (freed with them at paxi_free), zeroed:
 * one handed back (paxi_txn_free) first. */
static struct paxi_txn *txn_take(struct txn_store *st)
{
	struct paxi_txn *t = st->free;

	if (t) {
		st->free = t->next_free;
		memset(t, 0, st->size);
		return t;
	}
	if (!st->blocks->len || st->used == TXN_BLOCK) {
		g_ptr_array_add(st->blocks, g_malloc0(st->size * TXN_BLOCK));
		st->used = 0;
	}
	return (struct paxi_txn *)(void *)((char *)g_ptr_array_index(st->blocks, st->blocks->len - 1) +
					   st->size * st->used++);
}

/* The slot in the paxi's inflight of pair (src, dst), made by pair_make. */
static uint32_t pair_slot(struct paxi *x, int src, int dst)
{
	const struct pair_memo *memo = &x->last_pair[src];

	if (memo->dst == dst)
		return memo->slot;
	guint slot = GPOINTER_TO_UINT(g_hash_table_lookup(
		x->pairs, GUINT_TO_POINTER((guint)src * (guint)x->nodes + (guint)dst + 1)));

	g_assert(slot);
	return slot - 1;
}

/* A transaction of pair (src, dst) is made: the pair is made if new, and
 * is its source's last (last_pair). */
static void pair_make(struct paxi *x, int src, int dst)
{
	/* memory linear in the transactions, not in nodes^2 */
	G_STATIC_ASSERT((uint64_t)LINK_MAX_RANKS * LINK_MAX_RANKS < G_MAXUINT);
	struct pair_memo *memo = &x->last_pair[src];
	gpointer key = GUINT_TO_POINTER((guint)src * (guint)x->nodes + (guint)dst + 1);
	guint slot = memo->dst == dst ? memo->slot + 1 : 0;

	if (!slot && memo->dst >= 0) {
		/* the memo's pair leaves it: into the table, if not there yet */
		g_hash_table_insert(x->pairs,
				    GUINT_TO_POINTER((guint)src * (guint)x->nodes + (guint)memo->dst + 1),
				    GUINT_TO_POINTER(memo->slot + 1));
		slot = GPOINTER_TO_UINT(g_hash_table_lookup(x->pairs, key));
	}
	if (!slot) {
		slot = x->inflight->len + 1;
		g_array_set_size(x->inflight, slot);
		if (x->pair_lat)
			g_array_append_val(x->pair_lat,
					   ((struct pair_lat){ SIM_TIME_MAX, SIM_TIME_MAX }));
	}
	*memo = (struct pair_memo){ .dst = dst, .slot = slot - 1 };
}

void paxi_txn_set_ops(struct paxi_txn *t, const struct paxi_txn_ops *ops)
{
	t->ops = ops_index(t->x, ops);
}

/* t is started at start_ps (kept for the breakdown, and until its setup
 * begins for its slot's wait). */
static void txn_set_start(struct paxi_txn *t, sim_time_t start_ps)
{
	t->when = start_ps;
	if (t->kept)
		more_of(t)->start = start_ps;
}

void paxi_txn_start(struct paxi_txn *t)
{
	g_assert(!t->started);
	struct cdma *u = unit_of(t);

	t->started = true;
	txn_set_start(t, sim_now(t->x->s));
	if (u->busy < t->x->p.slots) {
		begin_setup(t);
		return;
	}
	t->state = TX_WAIT_SLOT;
	struct paxi_txn **tails = t->x->wait_tail[t->unit];

	if (!tails)
		tails = t->x->wait_tail[t->unit] = g_new0(struct paxi_txn *, (gsize)t->x->nodes);
	struct paxi_txn **tail = &tails[t->src];

	if (*tail) {
		t->next_wait = (*tail)->next_wait;
		(*tail)->next_wait = t;
	} else {
		t->next_wait = t;
	}
	*tail = t;
}

bool paxi_unit_would_wait(const struct paxi *x, int node, uint32_t unit)
{
	const struct cdma *u = unit_used(x, node, unit);

	return u && (u->busy >= x->p.slots || waiting(x, unit % x->p.cdma_units, node));
}

void paxi_set_refill(struct paxi *x, void (*refill)(void *user, int node, uint32_t unit),
		     void *user)
{
	x->refill = refill;
	x->refill_user = user;
}

void paxi_txn_start_queued(struct paxi_txn *t, sim_time_t start_ps, uint64_t available,
			   sim_time_t last_supply_ps)
{
	struct cdma *u = unit_of(t);

	g_assert(!t->started && !waiting(t->x, t->unit, t->src) && u->busy < t->x->p.slots);
	g_assert(available <= t->bytes && start_ps <= sim_now(t->x->s));
	t->started = true;
	txn_set_start(t, start_ps);
	t->available = available;
	if (t->kept)
		more_of(t)->last_supply = last_supply_ps;
	begin_setup(t);
}

/* Reservation i of paxi's store (an index, not index + 1). */
static struct reservation *res_at(const struct paxi *x, uint32_t i)
{
	return (struct reservation *)g_ptr_array_index(x->res_blocks, i / RES_BLOCK) + i % RES_BLOCK;
}

bool paxi_unit_reserve(struct paxi *x, int node, uint32_t unit, enum paxi_kind kind,
		       uint64_t bytes, uint32_t key, sim_time_t start_ps)
{
	struct cdma *u = unit_at(x, node, unit);

	/* what begin_setup does for such a transaction, with no data yet:
	 * no event at its setup's end, nothing else read before its data */
	if (!setup_unseen_ok(x, kind, bytes) || paxi_unit_would_wait(x, node, unit))
		return false;
	g_assert(start_ps <= sim_now(x->s));
	/* one handed back is taken again first: the store follows the
	 * reservations held at once */
	uint32_t i = x->res_free;

	if (i) {
		x->res_free = res_at(x, i - 1)->next;
	} else {
		g_assert(x->res_made < UINT32_MAX);
		if (x->res_made % RES_BLOCK == 0)
			g_ptr_array_add(x->res_blocks, g_new(struct reservation, RES_BLOCK));
		i = ++x->res_made;
	}
	struct reservation *res = res_at(x, i - 1);

	res->key = key;
	res->next = 0;
	res->setup_end = unit_take(x, u, (enum paxi_proto)x->p.proto, start_ps);
	/* last: a unit's oldest, most often the next one taken, is first */
	uint32_t *at = &u->res;

	while (*at)
		at = &res_at(x, *at - 1)->next;
	*at = i;
	if (x->keep_times) {
		if (!x->res_slot)
			x->res_slot = g_array_new(FALSE, FALSE, sizeof(sim_time_t));
		if (x->res_slot->len < i)
			g_array_set_size(x->res_slot, i);
		g_array_index(x->res_slot, sim_time_t, i - 1) = sim_now(x->s);
	}
	return true;
}

/* The link to u's reservation of key (u->res or a reservation's next),
 * pointing to 0 where u holds none. */
static uint32_t *res_find(const struct paxi *x, struct cdma *u, uint32_t key)
{
	uint32_t *at = &u->res;

	while (*at && res_at(x, *at - 1)->key != key)
		at = &res_at(x, *at - 1)->next;
	return at;
}

bool paxi_unit_reserved(const struct paxi *x, int node, uint32_t unit, uint32_t key)
{
	const struct cdma *u = unit_used(x, node, unit);

	for (uint32_t i = u ? u->res : 0; i; i = res_at(x, i - 1)->next)
		if (res_at(x, i - 1)->key == key)
			return true;
	return false;
}

void paxi_txn_start_reserved(struct paxi_txn *t, sim_time_t start_ps, uint32_t key)
{
	struct paxi *x = t->x;
	uint32_t *at = res_find(x, unit_of(t), key);
	uint32_t i = *at;

	g_assert(i && !t->started && setup_unseen_ok(x, t->kind, t->bytes) && !t->available);
	struct reservation *res = res_at(x, i - 1);

	t->started = true;
	t->when = res->setup_end;
	if (t->kept) { /* kept since the reservation (paxi_keep_times) */
		struct txn_more *more = more_of(t);

		more->start = start_ps;
		more->slot = g_array_index(x->res_slot, sim_time_t, i - 1);
		more->setup_end = res->setup_end;
	}
	t->state = TX_SETUP;
	t->setup_unseen = true;
	*at = res->next;
	res->next = x->res_free;
	x->res_free = i;
}

/* The first channel of a transaction node -> dst (its chan at flow
 * fidelity). */
static int first_chan(struct paxi *x, int node, int dst)
{
	return fabric_first_channel(x->f, node, dst, ROUTE_SHORTEST);
}

sim_time_t paxi_reserved_drain_ps(struct paxi *x, int node, uint32_t unit, uint32_t key, int dst)
{
	uint32_t i = *res_find(x, unit_at(x, node, unit), key);

	/* its transaction is a Transfer in its setup (paxi_txn_start_reserved) */
	g_assert(i && x->flow && !x->p.engine);
	return drain_before_end(x, res_at(x, i - 1)->setup_end, first_chan(x, node, dst));
}

double paxi_reserved_chan_rate(struct paxi *x, int node, int dst)
{
	return fabric_channel_rate(x->f, first_chan(x, node, dst));
}

bool paxi_reserved_resp_joins(const struct paxi_txn *in, int node, int dst)
{
	struct paxi *x = in->x;
	int chan = first_chan(x, node, dst);

	return x->p.control != PAXI_CONTROL_OOB && chan >= 0 &&
	       fabric_first_channel(x->f, in->dst, in->src, ROUTE_SHORTEST) == chan;
}

void paxi_txn_supplied_now(struct paxi_txn *t)
{
	if (t->available == t->bytes && t->kept)
		more_of(t)->last_supply = MAX(more_of(t)->last_supply, sim_now(t->x->s));
}

void paxi_txn_post_at(struct paxi_txn *t, sim_time_t posted_ps)
{
	/* nothing to answer: a Send/Recv's RTS comes only once it is started */
	g_assert(!t->posted && !t->started &&
		 (t->kind == PAXI_TRANSFER || t->x->p.handshake == PAXI_HS_RTS));
	t->posted = true;
	if (t->kept)
		more_of(t)->posted = posted_ps;
}

void paxi_txn_supply(struct paxi_txn *t, uint64_t available)
{
	/* in TX_DATA, what was supplied has gone to the fabric (pump) */
	uint64_t injected = t->state == TX_DATA ? t->available : 0;

	g_assert(available <= t->bytes && available >= t->available);
	t->available = available;
	if (available == t->bytes && t->kept && !more_of(t)->last_supply)
		more_of(t)->last_supply = sim_now(t->x->s);
	pump(t, injected);
}

void paxi_txn_post(struct paxi_txn *t)
{
	g_assert(!t->posted);
	t->posted = true;
	if (t->kept)
		more_of(t)->posted = sim_now(t->x->s);
	if (t->kind != PAXI_SENDRECV)
		return;
	if (t->x->p.handshake == PAXI_HS_READY || t->rts_arrived)
		send_ctrl(t, CTRL_CTS); /* the ready flag, or the answer to RTS */
	engine_ready(t);
}

struct paxi_landing paxi_txn_landing(const struct paxi_txn *t)
{
	return (struct paxi_landing){ .src = t->src, .dst = t->dst, .arrived_ps = t->landed ? t->when : 0 };
}

void paxi_txn_post_beside(struct paxi_txn *t, const struct paxi_landing *beside)
{
	struct paxi *x = t->x;

	if (t->kind != PAXI_SENDRECV || x->p.handshake != PAXI_HS_READY ||
	    x->p.control != PAXI_CONTROL_OOB || !beside->arrived_ps || beside->src != t->dst ||
	    beside->dst != t->src || beside->arrived_ps != sim_now(x->s)) {
		paxi_txn_post(t);
		return;
	}
	g_assert(!t->posted);
	t->posted = true;
	if (t->kept)
		more_of(t)->posted = sim_now(x->s);
	x->st.ctrl_msgs++;
	struct sim_event *ev = sim_schedule(x->s, x->p.ctrl_proc_ps, &x->c, PX_CTRL);

	ev->data[0].p = t;
	ev->data[1].u = CTRL_CTS;
	engine_ready(t);
}

static void release_slot(struct paxi_txn *t)
{
	struct cdma *u = unit_of(t);

	struct paxi_txn *tail = waiting(t->x, t->unit, t->src);

	u->busy--;
	if (tail) {
		struct paxi_txn *n = tail->next_wait;

		if (n == tail)
			t->x->wait_tail[t->unit][t->src] = NULL;
		else
			tail->next_wait = n->next_wait;
		n->last_data = NULL;
		begin_setup(n);
	} else if (t->x->refill) {
		t->x->refill(t->x->refill_user, t->src, t->unit);
	}
}

static void on_ctrl(struct paxi *x, struct paxi_txn *t, enum ctrl_type type)
{
	switch (type) {
	case CTRL_RTS:
		t->rts_arrived = true;
		if (t->kept)
			more_of(t)->rts_arrived = sim_now(x->s);
		if (t->posted)
			send_ctrl(t, CTRL_CTS);
		break;
	case CTRL_CTS:
		t->cts_arrived = true;
		if (t->kept)
			more_of(t)->cts = sim_now(x->s);
		if (t->state != TX_WAIT_CTS)
			break; /* a ready flag ahead of the source's setup */
		x->st.handshake_ps += sim_now(x->s) - t->when; /* its setup's end */
		data_allowed(t);
		break;
	case CTRL_FLAG:
		g_assert(txn_arrived(t) == t->bytes);
		t->notified = t->bytes;
		if (t->kept)
			more_of(t)->usable = sim_now(x->s);
		ops_of(t)->usable(t->dst_user, t, t->bytes, true);
		send_ctrl(t, CTRL_RESP);
		break;
	case CTRL_RESP:
		if (t->kept)
			more_of(t)->sent = sim_now(x->s);
		t->over = true;
		release_slot(t);
		ops_of(t)->sent(t->src_user, t);
		break;
	}
}

static struct reduce_req *req_get(struct paxi *x, void (*done)(void *user), void *user)
{
	struct reduce_req *r = pool_take(&x->reqs);

	r->done = done;
	r->user = user;
	return r;
}

void paxi_unit_setup(struct paxi *x, int node, uint32_t unit, void (*done)(void *user),
		     void *user)
{
	struct cdma *u = unit_at(x, node, unit);
	sim_time_t now = sim_now(x->s);
	sim_time_t begin = MAX(now, u->setup_free_at);

	u->setup_free_at = begin + x->p.setup_ps;
	x->st.setup_ps += u->setup_free_at - now;
	sim_schedule(x->s, u->setup_free_at - now, &x->c, PX_REDUCE_DONE)->data[0].p =
		req_get(x, done, user);
}

uint64_t paxi_copy_rate(const struct paxi_params *p)
{
	return p->copy_bytes_per_s ? p->copy_bytes_per_s : p->reduce_bytes_per_s;
}

/* The reducer of (node, unit): the node's, or the unit's (PAXI_REDUCE_UNIT). */
static size_t reducer_of(const struct paxi *x, int node, uint32_t unit)
{
	return x->p.reduce_per == PAXI_REDUCE_UNIT
		       ? (size_t)node * x->p.cdma_units + unit % x->p.cdma_units
		       : (size_t)node;
}

/* The reduce or copy rate of engine work (bytes/s; 0: free). */
static uint64_t work_rate(const struct paxi *x, bool reduce)
{
	return reduce ? x->p.reduce_bytes_per_s : paxi_copy_rate(&x->p);
}

/* Takes reducer `at` for `work` ps of `bytes`, after what it holds and
 * from `from` on, ending no sooner than `until`; returns when that work
 * ends. */
static sim_time_t reducer_take(struct paxi *x, size_t at, uint64_t bytes, sim_time_t work,
			       sim_time_t from, sim_time_t until)
{
	sim_time_t end = MAX(MAX(from, x->reduce_free_at[at]) + work, until);

	x->reduce_free_at[at] = end;
	x->st.reduce_ps += work;
	x->st.reduced_bytes += bytes;
	return end;
}

/* A reducer shared by a node's lanes: a reduction that a lane other than
 * the first asks for takes the reducer in a zero-delay event
 * (PX_REDUCE_LATER), after the events already due at its picosecond, and so
 * after the first lane's reductions that they ask for. Where the two
 * directions' slices land at the same picosecond (ring2p: always at flow
 * fidelity, and at packet fidelity without a node injection clock to
 * stagger the lanes' first packets), a reducer that takes one reduction
 * after another would take them in the order their messages were made:
 * the first lane first on some nodes, the other on the rest, so that a
 * run whose nodes are all alike (a ring) finished them at different times
 * (ring2p AllReduce, N = 4, 32 MiB: two nodes 3.4 us late, the collective
 * 15 % slower). Every node now takes them first lane first, as the seed
 * platform's injection clock has it at packet fidelity. */
static bool reduce_later(const struct paxi *x, uint32_t unit)
{
	return unit % x->p.cdma_units != 0 && x->p.reduce_per == PAXI_REDUCE_NODE;
}

static void reducer_work(struct paxi *x, int node, uint32_t unit, uint64_t bytes,
			 uint64_t rate, void (*done)(void *user), void *user)
{
	struct reduce_req *r = req_get(x, done, user);
	sim_time_t work = time_at_rate(bytes, rate);

	if (reduce_later(x, unit)) {
		r->at = reducer_of(x, node, unit);
		r->bytes = bytes;
		r->work = work;
		r->next = NULL;
		if (!x->later_head)
			sim_schedule(x->s, 0, &x->c, PX_REDUCE_LATER);
		if (x->later_tail)
			x->later_tail->next = r;
		else
			x->later_head = r;
		x->later_tail = r;
		return;
	}
	sim_time_t end = reducer_take(x, reducer_of(x, node, unit), bytes, work, sim_now(x->s), 0);

	sim_schedule(x->s, end - sim_now(x->s), &x->c, PX_REDUCE_DONE)->data[0].p = r;
}

static void reduce_deferred(struct paxi *x)
{
	sim_time_t now = sim_now(x->s);
	struct reduce_req *r = x->later_head;

	x->later_head = x->later_tail = NULL;
	while (r) {
		struct reduce_req *next = r->next;
		sim_time_t end = reducer_take(x, r->at, r->bytes, r->work, now, 0);

		sim_schedule(x->s, end - now, &x->c, PX_REDUCE_DONE)->data[0].p = r;
		r = next;
	}
}

double paxi_work_rate_per_ps(const struct paxi *x, bool reduce)
{
	return (double)work_rate(x, reduce) / 1e12;
}

bool paxi_work_ahead(struct paxi *x, int node, uint32_t unit, uint64_t bytes, bool reduce,
		     const struct paxi_txn *out, sim_time_t since, sim_time_t until)
{
	if (!x->flow || x->p.engine || out->kind != PAXI_TRANSFER)
		return false;
	size_t at = reducer_of(x, node, unit);
	sim_time_t now = sim_now(x->s);
	sim_time_t work = time_at_rate(bytes, work_rate(x, reduce));

	/* bytes that have landed: only if the channel stays busy past the work */
	if (!until && paxi_txn_drain_ps(out) < MAX(now, x->reduce_free_at[at]) + work - now)
		return false;
	reducer_take(x, at, bytes, work, until ? since : now, until);
	return true;
}

/* Rounds of engine_round_bytes begun in an op's bytes [0, to) (0 for none). */
static uint64_t rounds_begun(const struct paxi *x, uint64_t to)
{
	uint64_t r = x->p.engine_round_bytes ? x->p.engine_round_bytes : UINT64_MAX;

	return to / r + (to % r != 0);
}

/* The engine of a node runs one item at a time: the first queued one that
 * can run (its transaction, if it stores to a peer, may send), as a GPU
 * channel's loop takes the first slice that can run now. An item pays its
 * fixed cost, then moves its data at its rate; one that stores to a peer
 * is over only when the peer has its data (the channel's release waits for
 * the stores). */
static void engine_kick(struct paxi *x, int node)
{
	struct engine *e = &x->engines[node];

	if (e->cur)
		return;
	for (GList *l = e->queue.head; l; l = l->next) {
		struct engine_item *it = l->data;

		if (it->t && it->t->state != TX_DATA)
			continue;
		g_queue_delete_link(&e->queue, l);
		e->cur = it;
		sim_time_t work = it->lat + time_at_rate(it->bytes, it->rate);

		x->st.reduce_ps += work;
		x->st.reduced_bytes += it->bytes;
		sim_schedule(x->s, it->lat, &x->c, PX_ENGINE_STARTED)->data[0].i = node;
		sim_schedule(x->s, work, &x->c, PX_ENGINE_DATA)->data[0].i = node;
		return;
	}
}

static void engine_try_finish(struct paxi *x, int node)
{
	struct engine *e = &x->engines[node];
	struct engine_item *it = e->cur;

	if (!it || !it->data_done || (it->t && txn_arrived(it->t) < it->upto))
		return;
	e->cur = NULL;
	if (it->done)
		it->done(it->user);
	g_free(it);
	engine_kick(x, node);
}

static void engine_work(struct paxi *x, int node, uint32_t unit, uint64_t from, uint64_t to,
			bool reduce, sim_time_t lat_per_round, bool paced, struct paxi_txn *remote,
			void (*started)(void *user), void (*done)(void *user), void *user)
{
	g_assert(from <= to);
	uint64_t rate = work_rate(x, reduce);

	if (!x->p.engine) {
		reducer_work(x, node, unit, to - from, rate, done, user);
		return;
	}
	struct engine_item *it = g_new0(struct engine_item, 1);
	uint64_t er = remote || paced ? x->p.engine_bytes_per_s : 0;

	it->bytes = to - from;
	it->rate = er && (!rate || er < rate) ? er : rate;
	it->lat = lat_per_round * (rounds_begun(x, to) - rounds_begun(x, from));
	it->t = remote;
	it->upto = remote ? to : 0;
	it->started = started;
	it->done = done;
	it->user = user;
	g_queue_push_tail(&x->engines[node].queue, it);
	engine_kick(x, node);
}

/* A Send/Recv receive has raised its ready flag (handshake ready): on an
 * engine that pays for it (engine_ready_ps), the receiver's engine spends
 * that long on it before any work queued there, as a GPU channel's leader
 * raises the flag with a release store of its own when it starts the
 * receive, before it looks for its next slice (gpu/core/interp.h,
 * gx_start_ready). The flag itself travels as before (send_ctrl). */
static void engine_ready(struct paxi_txn *t)
{
	struct paxi *x = t->x;

	if (t->kind != PAXI_SENDRECV || x->p.handshake != PAXI_HS_READY || !x->p.engine ||
	    !x->p.engine_ready_ps)
		return;
	struct engine_item *it = g_new0(struct engine_item, 1);

	it->lat = x->p.engine_ready_ps;
	g_queue_push_head(&x->engines[t->dst].queue, it);
	engine_kick(x, t->dst);
}

void paxi_engine_work(struct paxi *x, int node, uint32_t unit, uint64_t from, uint64_t to,
		      bool reduce, const struct paxi_txn *from_txn, struct paxi_txn *remote,
		      void (*started)(void *user), void (*done)(void *user), void *user)
{
	bool paced = from_txn && paxi_proto_polled(txn_proto(from_txn));

	engine_work(x, node, unit, from, to, reduce, x->p.engine_lat_ps, paced, remote, started,
		    done, user);
}

void paxi_reduce(struct paxi *x, int node, uint32_t unit, uint64_t bytes,
		 void (*done)(void *user), void *user)
{
	engine_work(x, node, unit, 0, bytes, true, x->p.engine_local_lat_ps, false, NULL, NULL,
		    done, user);
}

void paxi_copy(struct paxi *x, int node, uint32_t unit, uint64_t bytes,
	       void (*done)(void *user), void *user)
{
	engine_work(x, node, unit, 0, bytes, false, x->p.engine_local_lat_ps, false, NULL, NULL,
		    done, user);
}

static void paxi_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct paxi *x = (struct paxi *)self;

	switch (ev->type) {
	case PX_SETUP_DONE: {
		struct paxi_txn *t = ev->data[0].p;

		if (t->kind == PAXI_TRANSFER) {
			data_allowed(t);
		} else if (x->p.handshake == PAXI_HS_READY) {
			t->state = TX_WAIT_CTS;
			if (t->cts_arrived)
				data_allowed(t);
		} else {
			t->state = TX_WAIT_CTS;
			send_ctrl(t, CTRL_RTS);
		}
		break;
	}
	case PX_CTRL:
		on_ctrl(x, ev->data[0].p, (enum ctrl_type)ev->data[1].u);
		break;
	case PX_ENGINE_STARTED: {
		struct engine_item *it = x->engines[ev->data[0].i].cur;

		if (it->started)
			it->started(it->user);
		break;
	}
	case PX_ENGINE_DATA:
		x->engines[ev->data[0].i].cur->data_done = true;
		engine_try_finish(x, (int)ev->data[0].i);
		break;
	case PX_REDUCE_LATER:
		reduce_deferred(x);
		break;
	case PX_REDUCE_DONE: {
		struct reduce_req *r = ev->data[0].p;
		void (*done)(void *) = r->done;
		void *user = r->user;

		pool_give(&x->reqs, r);
		done(user);
		break;
	}
	default:
		g_error("paxi: unknown event type %u", ev->type);
	}
	(void)s;
}
