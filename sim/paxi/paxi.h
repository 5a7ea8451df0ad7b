/* sim/paxi — the transaction layer: PAXI operations on CDMA units.
 *
 * A PAXI transaction moves a byte range from one node's memory to another's,
 * as packets on the fabric (sim/link). It is issued by a CDMA unit (a DMA
 * engine) of the source node, which holds `slots` outstanding transactions at
 * most (later ones wait in FIFO order) and spends `setup_ps` of its
 * descriptor engine on each, one after another. A transaction ends at the
 * source when the destination's completion response (a header-only packet)
 * has come back; that frees the slot.
 *
 * Two kinds (docs/design.md):
 *  - Transfer: one-sided streaming write. Data goes out as soon as it is
 *    supplied and is usable at the destination per slice (`slice_bytes`), so a
 *    fused recv-reduce-send downstream can forward each slice on arrival.
 *  - Send/Recv: two-sided. The source sends a request-to-send; the
 *    destination answers clear-to-send once its receive is posted; then the
 *    data, then a completion flag written behind the data on the same path.
 *    The data is usable only when the flag has arrived. Each control message
 *    costs `ctrl_proc_ps` of processing at the node that receives it.
 *
 * A transaction's data may be supplied progressively (paxi_txn_supply): a
 * fused op forwards what it has received and reduced so far. A reducer works
 * at `reduce_bytes_per_s`, one reduction after another (paxi_reduce); there is
 * one per node or one per CDMA unit (`reduce_per`). A Send/Recv hands shake
 * by RTS/CTS or by a ready flag (`handshake`); a Transfer's transport is a
 * protocol (`proto`: Simple, LL, LL128), which sets its bytes on the wire,
 * when its data is usable, and adds the protocol's latency to its setup.
 * Injection and ejection caps are the fabric's (struct node_params).
 *
 * At flow fidelity (sim/link/flow.h) a Transfer's data messages are still
 * delivered per slice, not per packet (fabric_send_pieces), so a fused op
 * forwards each slice as it arrives, as at packet fidelity: the slice sets
 * the pipeline. Where it cannot, the receiver's slack (paxi_txn_ops.slack)
 * merges slices into larger pieces, and data supplied while the
 * Transfer's last message still waits behind others on its first channel,
 * or still sends with nothing behind it, joins that message (fabric_append)
 * instead of following it as one more. A control message calls back when
 * it has been processed (fabric_send_late), not when it lands.
 * A Send/Recv's data, usable only whole, arrives whole.
 *
 * Lower layers: sim/core, sim/link. PAXI knows nothing of schedules. */
#ifndef G5_SIM_PAXI_PAXI_H
#define G5_SIM_PAXI_PAXI_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/core/sim.h"
#include "sim/link/link.h"

/* The most CDMA units a node may have (paxi.cdma_units: 1..; the platform
 * key table and the flags use it). */
#define PAXI_MAX_CDMA_UNITS 64

/* Error domain of paxi_new. */
#define PAXI_ERROR (paxi_error_quark())
GQuark paxi_error_quark(void);
enum paxi_error_code {
	PAXI_ERROR_PARAMS, /* a parameter out of range */
};

/* The two kinds of PAXI operation (docs/design.md). */
enum paxi_kind {
	PAXI_TRANSFER = 0, /* one-sided streaming write, usable per slice */
	PAXI_SENDRECV = 1, /* a handshake, data, completion; usable after completion */
};

/* "transfer" or "sendrecv" and back (false for anything else). */
const char *paxi_kind_name(enum paxi_kind k);
bool paxi_kind_parse(const char *name, enum paxi_kind *out);

/* How a Send/Recv's data is allowed to flow (docs/model.md):
 *  - RTS: the source asks (request-to-send) once its setup is done; the
 *    destination answers clear-to-send once its receive is posted.
 *  - READY: the destination raises a ready flag at the source as soon as its
 *    receive is posted, unasked; the source sends once its setup is done and
 *    the flag has arrived (the GPU executor's protocol, gpu/README.md). */
enum paxi_handshake {
	PAXI_HS_RTS,
	PAXI_HS_READY,
};

/* Where reduction (and local copy) capacity lives: one reducer per node,
 * shared by all its CDMA units, or one per unit (each issuing engine, or a
 * GPU channel's thread block, reduces what it receives). */
/* How control messages travel: RTS, clear-to-send (or the ready flag) and
 * the completion answer. Through the fabric as header-only messages, in order
 * behind the data their node sends on that path; or out of band, arriving one
 * route latency after they are sent, as a memory fabric's small stores and
 * write acknowledgements do, interleaved with bulk data packet by packet
 * (NVLink, PCIe). A Send/Recv's completion flag is written behind its data
 * and stays in the fabric either way. */
enum paxi_control {
	PAXI_CONTROL_FABRIC,
	PAXI_CONTROL_OOB,
};

/* When an op that stores to a peer is complete at its source (paxi.engine;
 * the runner's rule, set per run from the implementation):
 *  - RESPONSE: when the destination's completion response has come back
 *    (a DMA engine's descriptor completes on the answer);
 *  - LANDED: when the engine's last item storing its data is over, that
 *    is, when the data has landed at the peer: a GPU channel's system-scope
 *    release returns once its stores are visible, and the executor counts
 *    the op done right after it (gpu/core/interp.h, gx_finish_work); no
 *    answer comes back. A receive that depends on the send then raises its
 *    ready flag while the send's data flag is still on its way, so the two
 *    travel together. */
enum paxi_send_done {
	PAXI_SEND_DONE_RESPONSE,
	PAXI_SEND_DONE_LANDED,
};

enum paxi_reducer {
	PAXI_REDUCE_NODE,
	PAXI_REDUCE_UNIT,
};

/* The transport of a Transfer (NCCL's protocols; docs/validation.md):
 *  - SIMPLE: the data as it is; usable per slice (a flag behind each slice).
 *  - LL: 8-byte lines of 4 data bytes and a 4-byte flag: twice the bytes on
 *    the wire; each line is usable as it arrives (no separate flag).
 *  - LL128: 128-byte lines of 120 data bytes and a flag: 16/15 the bytes on
 *    the wire; usable as it arrives.
 * A protocol's per-channel rate and per-transaction latency are platform
 * keys (struct paxi_proto_params); its wire factor and granularity are its
 * definition. */
enum paxi_proto {
	PAXI_PROTO_SIMPLE,
	PAXI_PROTO_LL,
	PAXI_PROTO_LL128,
	PAXI_NPROTOS,
};

const char *paxi_proto_name(enum paxi_proto p);
/* Parses "simple", "ll", "ll128" (any case); false for anything else. */
bool paxi_proto_parse(const char *name, enum paxi_proto *out);
/* Whether a receiver reads protocol p's data line by line, checking each
 * line's flag with its data (LL: a flag every 4 data bytes): its pass over
 * received data then moves at the channels' rate, like a send. LL128's
 * lines are read as bulk loads with one flag in 128 bytes, and Simple's
 * copy-out follows one flag per slice: both move at the memory's copy or
 * reduce rate. */
bool paxi_proto_polled(enum paxi_proto p);
/* Wire bytes of `bytes` of data in protocol p (ceil). */
uint64_t paxi_proto_wire_bytes(enum paxi_proto p, uint64_t bytes);

struct paxi_proto_params {
	uint64_t channel_bw_bytes_per_s; /* data rate one channel can move; 0: unlimited */
	sim_time_t lat_ps;               /* per transaction, added to its setup */
	sim_time_t launch_ps;            /* per call, once: the protocol's setup in the
					  * kernel, paid with the launch cost where the
					  * engine runs the protocol's own latency (NCCL;
					  * sim/simulate.c: simulate_channels) */
};

struct paxi_params {
	uint32_t cdma_units;          /* per node, 1..PAXI_MAX_CDMA_UNITS (1-port: 1, 2-port: 2) */
	uint32_t slots;               /* outstanding transactions per unit, >= 1 */
	sim_time_t setup_ps;          /* descriptor setup per transaction */
	sim_time_t ctrl_proc_ps;      /* handling of one control message */
	uint64_t slice_bytes;         /* Transfer: usable granularity, > 0 */
	uint64_t reduce_bytes_per_s;  /* per reducer; 0: free */
	uint64_t copy_bytes_per_s;    /* a copy on the same reducer; 0: at the reduce rate */
	uint32_t handshake;           /* enum paxi_handshake */
	uint32_t reduce_per;          /* enum paxi_reducer */
	uint32_t staging;             /* 1: received data lands in a staging buffer and
				       * the receiver copies it out (at the reduce rate) */
	uint32_t proto;               /* enum paxi_proto: the run's Transfer transport */
	uint32_t control;             /* enum paxi_control */
	uint32_t engine;              /* 1: the node's reducer is its one engine (a GPU's
				       * channels in lockstep): sends pass through it too,
				       * and each piece of its work costs engine_lat_ps */
	sim_time_t engine_lat_ps;     /* engine: fixed cost of each round of work (set per
				       * run: the implementation's, or the protocol's
				       * latency, which then leaves the setup) */
	sim_time_t engine_local_lat_ps; /* engine: the same for local work (a copy or a
				       * sum that raises no peer's flag) */
	sim_time_t engine_ready_ps;   /* engine, handshake ready: what raising a
				       * receive's ready flag costs its node's engine,
				       * ahead of any queued work (a GPU channel's leader
				       * raises it with a release store of its own before
				       * its next slice); 0: nothing (set per run) */
	uint64_t engine_round_bytes;  /* engine: bytes of an op per round (the run's
				       * channels x slice); 0: one round per op */
	uint64_t engine_bytes_per_s;  /* engine: its data rate (the run's channels x the
				       * protocol's channel rate); 0: the reduce/copy rate */
	uint32_t setup_recv;          /* 1: a receive is issued by its unit like a send and
				       * pays setup_ps there, in order with the unit's
				       * other setups (a GPU thread block serves its
				       * receives, polling and raising the credit flag);
				       * 0: receives are passive (a DMA engine's target) */
	uint32_t send_done;           /* engine: enum paxi_send_done (set per run) */
	struct paxi_proto_params protos[PAXI_NPROTOS];
};

/* The seed platform's values; docs/model.md gives the reasons. */
void paxi_params_default(struct paxi_params *p);

struct paxi;
struct paxi_txn;

struct paxi_txn_ops {
	/* At the destination: `usable` bytes of the transaction may now be
	 * read (cumulative, in order); `all` on the call that completes it. */
	void (*usable)(void *user, struct paxi_txn *t, uint64_t usable, bool all);
	/* At the source: the completion response has arrived. */
	void (*sent)(void *user, struct paxi_txn *t);
	/* Optional, flow fidelity: how long from now the destination can wait
	 * for more of a Transfer's data without delaying anything (0: it needs
	 * each slice as it lands); the fabric then merges slices into larger
	 * pieces (fabric_send_pieces). */
	sim_time_t (*slack)(void *user, struct paxi_txn *t);
	/* Optional, flow fidelity, with slack: whether the destination takes
	 * the rest of the Transfer's data now, before it lands, as nothing it
	 * does with it can get ahead of its landing (fabric_early_fn: it
	 * began to land at `since`, lands from now at `rate`, wire bytes per
	 * ps, and the last of it at `until`). */
	bool (*early)(void *user, struct paxi_txn *t, double rate, sim_time_t since,
		      sim_time_t until);
	/* Flow fidelity, with slack: the destination always needs each slice
	 * as it lands (its slack is 0 throughout: a schedule of several
	 * lanes). Its Transfers' data is sent in slices that cost one event
	 * each, their landing (no slack function, fabric_send_pieces); data
	 * supplied while the last message waits or sends still joins it. */
	bool each_slice;
};

/* Time spent, by cause, summed over transactions (for breakdowns). */
struct paxi_stats {
	uint64_t txns;
	uint64_t ctrl_msgs;
	sim_time_t slot_wait_ps;  /* waiting for an outstanding slot */
	sim_time_t setup_ps;      /* descriptor setup, queueing for the engine included */
	sim_time_t handshake_ps;  /* Send/Recv: issue to clear-to-send at the source */
	sim_time_t reduce_ps;     /* reduction work */
	uint64_t reduced_bytes;
	uint64_t txns_live;       /* transactions made and not handed back (paxi_txn_free) */
	uint64_t txns_live_peak;  /* the most at once */
};

struct paxi *paxi_new(struct sim *s, struct fabric *f, const struct paxi_params *p,
		      GError **error);
void paxi_free(struct paxi *x);

/* A transaction of `bytes` from src to dst, issued by CDMA unit `unit` of src
 * (taken modulo the platform's units). Nothing happens until the source
 * starts it; the destination may post before or after. Owned by the paxi:
 * it stays valid (paxi_txn_times, paxi_txn_user) after both sides are done
 * with it, until the user hands it back (paxi_txn_free) or paxi_free frees
 * every transaction. A paxi's transactions have 8 distinct `ops` at most
 * (each transaction keeps its ops as an index in the paxi's list). */
struct paxi_txn *paxi_txn_new(struct paxi *x, enum paxi_kind kind, int src, int dst,
			      uint32_t unit, uint64_t bytes, const struct paxi_txn_ops *ops,
			      void *src_user, void *dst_user);

/* The source issues the transaction: waits for a slot, pays the setup, then
 * (Send/Recv) hands shake; data goes out as it is supplied. */
void paxi_txn_start(struct paxi_txn *t);

/* Flow fidelity: the time from now until t's first channel has sent what
 * is queued on it (fabric_drain_ps); for a Transfer still in its setup
 * (without an engine), at least the time until that setup ends, as none of
 * its data leaves before; 0 otherwise before t may send data, and at packet
 * fidelity. */
sim_time_t paxi_txn_drain_ps(const struct paxi_txn *t);

/* Starts queued at the source, for a user that keeps its own queue of the
 * transactions a CDMA unit would hold waiting (memory: a transaction is
 * made only when it gets its slot). paxi_unit_would_wait says whether a
 * transaction started now on `unit` of `node` would wait for a slot; the
 * refill hook (one per paxi; NULL: none) runs when a slot of such a unit
 * frees with nothing waiting in the paxi's own queue, and may then start
 * the user's next one with paxi_txn_start_queued: as if it had been
 * started at start_ps, and since waited in the queue, with `available`
 * bytes supplied (all of them first at last_supply_ps, else 0). The
 * grants, their order and every time are those of paxi_txn_start at
 * start_ps. paxi_txn_post_at: a Transfer's destination posted at
 * posted_ps, before the transaction was made. */
bool paxi_unit_would_wait(const struct paxi *x, int node, uint32_t unit);
void paxi_set_refill(struct paxi *x, void (*refill)(void *user, int node, uint32_t unit),
		     void *user);
void paxi_txn_start_queued(struct paxi_txn *t, sim_time_t start_ps, uint64_t available,
			   sim_time_t last_supply_ps);
void paxi_txn_post_at(struct paxi_txn *t, sim_time_t posted_ps);

/* Slots held for transactions not made yet (memory: a transaction is made
 * only when its data is about to move). At flow fidelity without an
 * engine, a Transfer of `bytes` > 0 that would start now on `unit` of
 * `node` with no data supplied takes its slot and queues its setup as
 * paxi_txn_start would, and then, until its first data, nothing reads it
 * and no event marks it: paxi_unit_reserve does just that for a
 * transaction started at start_ps, under the user's `key` (distinct among
 * the unit's reservations), and returns true; false, taking nothing,
 * where that does not hold or the transaction would wait for its slot.
 * paxi_txn_start_reserved starts t (made since, with no data supplied)
 * on the reservation of `key` of its source's unit, as if it had been
 * started then: every time is that of paxi_txn_start at start_ps. */
bool paxi_unit_reserve(struct paxi *x, int node, uint32_t unit, enum paxi_kind kind,
		       uint64_t bytes, uint32_t key, sim_time_t start_ps);
bool paxi_unit_reserved(const struct paxi *x, int node, uint32_t unit, uint32_t key);
void paxi_txn_start_reserved(struct paxi_txn *t, sim_time_t start_ps, uint32_t key);

/* Of the transaction to dst that the reservation of `key` on `unit` of
 * `node` will start (paxi_txn_start_reserved), before it is made: what
 * paxi_txn_drain_ps, paxi_txn_chan_rate and paxi_txn_resp_joins (as its
 * `out`) would say of it made and started now. */
sim_time_t paxi_reserved_drain_ps(struct paxi *x, int node, uint32_t unit, uint32_t key, int dst);
double paxi_reserved_chan_rate(struct paxi *x, int node, int dst);
bool paxi_reserved_resp_joins(const struct paxi_txn *in, int node, int dst);

/* Flow fidelity: t's final bytes, supplied before the data they come from
 * had landed (paxi_txn_ops.early), count as supplied now, when it has
 * (tm.last_supply, which the breakdown follows back). */
void paxi_txn_supplied_now(struct paxi_txn *t);

/* Source data available so far (cumulative, <= bytes). */
void paxi_txn_supply(struct paxi_txn *t, uint64_t available);

/* The destination has posted its receive (Send/Recv: allows clear-to-send). */
void paxi_txn_post(struct paxi_txn *t);
/* A transaction's landing, by value: its source and destination nodes and
 * when its data arrived (arrived_ps 0: none). */
struct paxi_landing {
	int src, dst;
	sim_time_t arrived_ps;
};

/* paxi_txn_post, in the pass that saw `beside` land: a transaction that t's
 * destination sent to t's source, whose data has all arrived just now. The
 * ready flag (handshake READY, control out of band) is then raised beside
 * beside's completion flag, on the same way at the same time, and costs
 * only its processing: a GPU channel publishes the send's data flag with
 * its release and raises the next receive's ready flag right after
 * (gpu/core/interp.h), so the two reach the peer together. Otherwise as
 * paxi_txn_post. */
void paxi_txn_post_beside(struct paxi_txn *t, const struct paxi_landing *beside);
/* Where and when t's data landed, kept by value (t may be handed back
 * before a receive posts beside it). */
struct paxi_landing paxi_txn_landing(const struct paxi_txn *t);

uint64_t paxi_txn_bytes(const struct paxi_txn *t);
enum paxi_kind paxi_txn_kind(const struct paxi_txn *t);

/* When each phase of a transaction happened (absolute ps; 0 if not yet).
 * Those marked (kept) are 0 unless paxi_keep_times was on when the
 * transaction was made. */
struct paxi_txn_times {
	sim_time_t setup_end;    /* (kept) the setup's end */
	sim_time_t start;        /* (kept) paxi_txn_start */
	sim_time_t slot;         /* (kept) slot granted: setup queued */
	sim_time_t rts_arrived;  /* (kept) Send/Recv: RTS processed at the destination */
	sim_time_t posted;       /* (kept) the destination posted its receive */
	sim_time_t cts;          /* (kept) Send/Recv: CTS processed at the source */
	sim_time_t data_allowed; /* (kept) data may flow (setup end, or CTS) */
	sim_time_t last_supply;  /* (kept) the final bytes were supplied */
	uint64_t last_msg_bytes; /* (kept) size of the final data message */
	uint64_t backlog_first;  /* (kept) data bytes of the same (src, dst) pair
				  * still in flight when its first data message left
				  * (of the transactions made since paxi_keep_times
				  * was first on, or since paxi_new with control out
				  * of band) */
	uint64_t backlog_last;   /* (kept) the same, when its last data message left */
	sim_time_t arrived;      /* all data delivered at the destination */
	sim_time_t usable;       /* (kept) all data usable there */
	sim_time_t sent;         /* (kept) completion response processed at the source */
	uint32_t replayed;       /* (kept) packets accepted only after a Go-Back-N replay */
	int hops;                /* (kept) route length */
};
/* A copy of t's times as they are now. */
struct paxi_txn_times paxi_txn_times(const struct paxi_txn *t);

/* Whether the transactions made from now on keep every time of
 * paxi_txn_times (off at paxi_new): the (kept) ones cost a record of
 * their own per transaction, and paxi itself never reads them. Changed
 * only while no unit holds a reservation (paxi_unit_reserve). */
void paxi_keep_times(struct paxi *x, bool keep);

/* The user pointers given at creation (src) or set (dst). */
void *paxi_txn_user(const struct paxi_txn *t, bool dst);

/* The shortest time `bytes` can take from the start of their serialisation
 * at the source to their delivery, on the transaction's route with nothing
 * else on it: serialisation on the slowest channel, a packet's store and
 * forward on the others, and propagation. */
sim_time_t paxi_txn_ideal_ps(const struct paxi_txn *t, uint64_t bytes);

/* Sets the user pointer passed to ops->usable (the destination's side). */
void paxi_txn_set_dst_user(struct paxi_txn *t, void *dst_user);
/* Sets the user pointer passed to ops->sent (the source's side). */
void paxi_txn_set_src_user(struct paxi_txn *t, void *src_user);
/* Replaces t's callbacks (counted among the paxi's ops tables, as at
 * paxi_txn_new): from the next call on, t calls those of `ops`. */
void paxi_txn_set_ops(struct paxi_txn *t, const struct paxi_txn_ops *ops);

/* Hands back a transaction that is over (its completion response has
 * reached the source) and that nothing will read again: its memory is taken
 * by the next paxi_txn_new. Memory then follows the transactions alive at
 * once (paxi_stats' txns_live_peak), not all the run's. */
void paxi_txn_free(struct paxi_txn *t);

/* Reduces (or copies) `bytes` at `node` for CDMA unit `unit` (taken modulo
 * the units): `done(user)` runs when the reducer (the node's, or the unit's
 * with PAXI_REDUCE_UNIT) has processed them, after everything queued on it
 * before. */
void paxi_reduce(struct paxi *x, int node, uint32_t unit, uint64_t bytes,
		 void (*done)(void *user), void *user);

/* As paxi_reduce, for a copy: at copy_bytes_per_s when set (a copy reads one
 * byte per byte where a reduction reads two), on the same reducer. */
void paxi_copy(struct paxi *x, int node, uint32_t unit, uint64_t bytes,
	       void (*done)(void *user), void *user);

/* Work on bytes [from, to) of an op. With `engine`, it queues on the node's
 * one engine, which runs one item at a time, the first that can run (an item
 * storing to a peer through `remote` waits until that transaction may send):
 * it costs engine_lat_ps for each round of engine_round_bytes it begins
 * (every channel's slice of a round moves in parallel), then its data at the
 * reduce or copy rate, or engine_bytes_per_s when slower and the item
 * stores to a peer (`remote`) or reads lines that arrived from one
 * (`from`, a transaction whose protocol paxi_proto_polled); it is
 * over when that time has passed and, with `remote`, when the peer has
 * received bytes up to `to` (a channel's release waits for its stores).
 * `started(user)` runs when the fixed cost is paid (a send's or a forward's
 * data streams from then on), `done(user)` when it is over; either may be
 * NULL. Without `engine`: paxi_reduce or paxi_copy (`started` is not
 * called, `done` is required). */
void paxi_engine_work(struct paxi *x, int node, uint32_t unit, uint64_t from, uint64_t to,
		      bool reduce, const struct paxi_txn *from_txn, struct paxi_txn *remote, void (*started)(void *user),
		      void (*done)(void *user), void *user);

/* Flow fidelity without an engine: the reduction (or copy) of `bytes` at
 * `node` for unit `unit` whose output joins `out`, when `out`'s first
 * channel, at its rate of now, stays busy with what is queued on it until
 * that work is over: the reducer is taken as paxi_reduce would take it, and
 * no event marks the end, since nothing reads the bytes before the channel
 * does (a rate that rises later may let them out before: the check against
 * packet fidelity bounds that). Returns false, taking nothing, otherwise:
 * the caller then goes through paxi_engine_work. With `until` (else 0),
 * bytes taken before they landed (paxi_txn_ops.early): landing from
 * `since`, the last by `until`, their work keeps pace with them, so it is
 * taken at once, from `since` if the reducer is free then, and ends no
 * sooner than `until`. */
bool paxi_work_ahead(struct paxi *x, int node, uint32_t unit, uint64_t bytes, bool reduce,
		     const struct paxi_txn *out, sim_time_t since, sim_time_t until);

/* Flow fidelity: the rate (wire bytes per ps) at which the first channel of
 * t's route sends now (fabric_channel_rate); 0 when it is idle. */
double paxi_txn_chan_rate(const struct paxi_txn *t);

/* Flow fidelity: whether the completion response of `in` leaves its
 * destination on the first channel of `out`'s route (control in band), in
 * line behind the data `out` has queued there. */
bool paxi_txn_resp_joins(const struct paxi_txn *in, const struct paxi_txn *out);

/* The rate of reductions (reduce) or copies at a node, bytes per ps; 0:
 * free. */
double paxi_work_rate_per_ps(const struct paxi *x, bool reduce);

/* The copy rate in bytes/s (copy_bytes_per_s, or the reduce rate); 0: free. */
uint64_t paxi_copy_rate(const struct paxi_params *p);

/* Queues setup_ps of work on CDMA unit `unit` of `node` (in order with its
 * transactions' setups); `done(user)` runs when it is over (setup_recv). */
void paxi_unit_setup(struct paxi *x, int node, uint32_t unit, void (*done)(void *user),
		     void *user);

const struct paxi_stats *paxi_stats(const struct paxi *x);
const struct paxi_params *paxi_get_params(const struct paxi *x);
struct sim *paxi_sim(const struct paxi *x);

#endif
