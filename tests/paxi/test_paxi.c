/* Tests of sim/paxi: a lone Transfer and a lone Send/Recv take exactly the sum
 * of their parts; slots and setup serialise; reductions queue per node. */
#include <glib.h>
#include <string.h>

#include "sim/link/topos.h"
#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "sim/paxi/paxi.h"

struct probe {
	sim_time_t usable_all, sent;
	uint64_t slices;
	uint64_t last_usable;
	struct sim *s;
};

static void on_usable(void *user, struct paxi_txn *t, uint64_t usable, bool all)
{
	struct probe *p = user;

	g_assert_cmpuint(usable, >=, p->last_usable);
	p->last_usable = usable;
	p->slices++;
	if (all)
		p->usable_all = sim_now(p->s);
}

static void on_sent(void *user, struct paxi_txn *t)
{
	struct probe *p = user;

	p->sent = sim_now(p->s);
}

static const struct paxi_txn_ops probe_ops = { .usable = on_usable, .sent = on_sent };

/* Two nodes joined by one seed link, with the seed's PAXI values; tests
 * change fc/pp before rig_open(). */
struct rig {
	struct fabric_config fc;
	struct paxi_params pp;
	struct sim *s;
	struct fabric *f;
	struct paxi *x;
};

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	r->fc.topo = &topo_ring_ops;
	r->fc.nranks = 2;
	link_params_default(&r->fc.link);
	r->fc.switch_link = r->fc.link;
	paxi_params_default(&r->pp);
}

static void rig_open(struct rig *r)
{
	GError *err = NULL;

	r->s = sim_new(1);
	r->f = fabric_new(r->s, &r->fc, &err);
	g_assert_no_error(err);
	r->x = paxi_new(r->s, r->f, &r->pp, &err);
	g_assert_no_error(err);
}

static void rig_close(struct rig *r)
{
	paxi_free(r->x);
	fabric_free(r->f);
	sim_free(r->s);
}

/* A transaction node 0 -> 1 that the source starts and supplies at once. */
static struct paxi_txn *rig_send(struct rig *r, enum paxi_kind kind, uint64_t bytes,
				 struct probe *src, struct probe *dst)
{
	struct paxi_txn *t = paxi_txn_new(r->x, kind, 0, 1, 0, bytes, &probe_ops, src, dst);

	src->s = dst->s = r->s;
	paxi_txn_start(t);
	paxi_txn_supply(t, bytes);
	return t;
}

/* Serialisation of a message of n payload bytes (the link's own sum, pinned
 * to the picosecond by tests/link). */
static sim_time_t msg_ser(const struct link_params *l, uint64_t n)
{
	return link_message_ps(l, n);
}

static const uint64_t sizes[] = { 0, 1, 4096, 100000, 64ull << 20 };

static void test_lone_transfer(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		struct rig r;
		struct probe src = { 0 }, dst = { 0 };

		rig_init(&r);
		rig_open(&r);
		paxi_txn_post(rig_send(&r, PAXI_TRANSFER, sizes[i], &src, &dst));
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		const struct link_params *l = &r.fc.link;
		sim_time_t data = r.pp.setup_ps + msg_ser(l, sizes[i]) + l->lat_ps;
		sim_time_t resp = msg_ser(l, 0) + l->lat_ps + r.pp.ctrl_proc_ps;

		g_assert_cmpuint(dst.usable_all, ==, data);
		g_assert_cmpuint(src.sent, ==, data + resp);
		g_assert_cmpuint(dst.last_usable, ==, sizes[i]);
		/* usable per slice: at least one report per slice */
		g_assert_cmpuint(dst.slices, >=, sizes[i] / r.pp.slice_bytes);
		rig_close(&r);
	}
}

static void test_lone_sendrecv(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		for (int post_late = 0; post_late < 2; post_late++) {
			struct rig r;
			struct probe src = { 0 }, dst = { 0 };

			rig_init(&r);
			rig_open(&r);
			struct paxi_txn *t = rig_send(&r, PAXI_SENDRECV, sizes[i], &src, &dst);
			const struct link_params *l = &r.fc.link;
			sim_time_t ctrl = msg_ser(l, 0) + l->lat_ps + r.pp.ctrl_proc_ps;
			sim_time_t late = SIM_US(50);

			/* late: the receive is posted long after the RTS arrived */
			if (post_late)
				sim_run(r.s, late, UINT64_MAX);
			paxi_txn_post(t);
			sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
			sim_time_t cts_at = post_late ? late + ctrl : r.pp.setup_ps + 2 * ctrl;
			/* data then the flag behind it on the same channel */
			sim_time_t flag = cts_at + msg_ser(l, sizes[i]) + msg_ser(l, 0) + l->lat_ps +
					  r.pp.ctrl_proc_ps;

			g_assert_cmpuint(dst.usable_all, ==, flag);
			g_assert_cmpuint(dst.slices, ==, 1); /* usable only at completion */
			g_assert_cmpuint(src.sent, ==, flag + ctrl);
			rig_close(&r);
		}
	}
}

static void test_slots_and_setup(void)
{
	/* One slot: the second transaction's setup starts when the first's
	 * completion response has come back. */
	struct rig r;
	struct probe a = { 0 }, b = { 0 }, da = { 0 }, db = { 0 };

	rig_init(&r);
	r.pp.slots = 1;
	rig_open(&r);
	rig_send(&r, PAXI_TRANSFER, 4096, &a, &da);
	rig_send(&r, PAXI_TRANSFER, 4096, &b, &db);
	sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(db.usable_all, ==,
			 a.sent + r.pp.setup_ps + msg_ser(&r.fc.link, 4096) + r.fc.link.lat_ps);
	rig_close(&r);

	/* Two slots: setups run back to back on the one descriptor engine. */
	struct probe c = { 0 }, d = { 0 }, dc = { 0 }, dd = { 0 };

	rig_init(&r);
	r.pp.slots = 2;
	rig_open(&r);
	rig_send(&r, PAXI_TRANSFER, 0, &c, &dc);
	rig_send(&r, PAXI_TRANSFER, 0, &d, &dd);
	sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(dd.usable_all - dc.usable_all, ==, r.pp.setup_ps);
	rig_close(&r);
}

/* Flow fidelity: a Transfer's drain (the receiver's slack comes from it)
 * covers its setup, as none of its data leaves before the setup ends;
 * packet fidelity: 0. */
static void test_drain_in_setup(void)
{
	for (int flow = 0; flow < 2; flow++) {
		struct rig r;
		struct probe a = { 0 }, da = { 0 };

		rig_init(&r);
		r.fc.fidelity = flow ? LINK_FIDELITY_FLOW : LINK_FIDELITY_PACKET;
		rig_open(&r);
		struct paxi_txn *t = rig_send(&r, PAXI_TRANSFER, 100000, &a, &da);
		sim_time_t end = r.pp.setup_ps + r.pp.protos[PAXI_PROTO_SIMPLE].lat_ps;

		g_assert_cmpuint(paxi_txn_drain_ps(t), ==, (flow ? end : 0));
		sim_run(r.s, end - SIM_NS(10), UINT64_MAX);
		g_assert_cmpuint(paxi_txn_drain_ps(t), ==, (flow ? SIM_NS(10) : 0));
		/* after it: its data on the channel, at the channel's rate */
		sim_run(r.s, end + 1, UINT64_MAX);
		if (flow)
			g_assert_cmpuint(paxi_txn_drain_ps(t), >, SIM_NS(10));
		else
			g_assert_cmpuint(paxi_txn_drain_ps(t), ==, 0);
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(da.last_usable, ==, 100000);
		rig_close(&r);
	}
}

/* A Transfer set up ahead of its data, at both fidelities: supplied at
 * its start or before its setup ends, its data leaves at that end;
 * supplied after, at once. Its data is allowed from the setup's end either
 * way (tm.data_allowed), and at flow fidelity, its channel idle, that end
 * is not an event of its own. */
static void test_setup_ahead_of_data(void)
{
	sim_time_t usable[2][3];
	uint64_t executed[2][3];

	for (int flow = 0; flow < 2; flow++)
		for (int when = 0; when < 3; when++) { /* at start, before end, after */
			struct rig r;
			struct probe a = { 0 }, da = { 0 };

			rig_init(&r);
			r.fc.fidelity = flow ? LINK_FIDELITY_FLOW : LINK_FIDELITY_PACKET;
			rig_open(&r);
			paxi_keep_times(r.x, true); /* data_allowed */
			sim_time_t end = r.pp.setup_ps + r.pp.protos[PAXI_PROTO_SIMPLE].lat_ps;
			struct paxi_txn *t = paxi_txn_new(r.x, PAXI_TRANSFER, 0, 1, 0, 100000,
							  &probe_ops, &a, &da);

			a.s = da.s = r.s;
			paxi_txn_start(t);
			if (when)
				sim_run(r.s, when == 1 ? end - SIM_NS(50) : end + SIM_NS(50), UINT64_MAX);
			g_assert_cmpuint(da.last_usable, ==, 0);
			paxi_txn_supply(t, 100000);
			sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
			g_assert_cmpuint(da.last_usable, ==, 100000);
			g_assert_cmpuint(paxi_txn_times(t).data_allowed, ==, end);
			usable[flow][when] = da.usable_all;
			executed[flow][when] = sim_counters(r.s)->executed;
			rig_close(&r);
		}
	for (int flow = 0; flow < 2; flow++) {
		g_assert_cmpuint(usable[flow][1], ==, usable[flow][0]);
		g_assert_cmpuint(usable[flow][2] - usable[flow][0], ==, SIM_NS(50));
		g_assert_cmpuint(executed[flow][1], ==, executed[flow][0]);
	}
	/* the same events whether the data comes before the setup's end or
	 * after it: at flow fidelity, on an idle channel, none for that end
	 * (data supplied before it is sent ahead of it, fabric_send_pieces_at) */
	g_assert_cmpuint(executed[0][2], ==, executed[0][0]);
	g_assert_cmpuint(executed[1][2], ==, executed[1][0]);
}

/* Flow fidelity: a reduction whose output's channel stays busy past its
 * end takes the reducer as paxi_reduce would and needs no event; one that
 * would outlast the channel's queue, or any at packet fidelity, is
 * refused and takes nothing. */
static void test_work_ahead(void)
{
	for (int flow = 0; flow < 2; flow++) {
		struct rig r;
		struct probe a = { 0 }, da = { 0 };

		rig_init(&r);
		r.fc.fidelity = flow ? LINK_FIDELITY_FLOW : LINK_FIDELITY_PACKET;
		r.pp.reduce_bytes_per_s = 1000000000000ull; /* 1 byte per ps */
		rig_open(&r);
		sim_time_t end = r.pp.setup_ps + r.pp.protos[PAXI_PROTO_SIMPLE].lat_ps;
		struct paxi_txn *t = rig_send(&r, PAXI_TRANSFER, 1 << 20, &a, &da);

		sim_run(r.s, end + 1, UINT64_MAX);
		sim_time_t drain = paxi_txn_drain_ps(t);

		if (!flow) {
			g_assert_false(paxi_work_ahead(r.x, 0, 0, 1000, true, t, 0, 0));
			rig_close(&r);
			continue;
		}
		g_assert_cmpuint(drain, >, 3000);
		/* more than the channel still has to send: refused */
		g_assert_false(paxi_work_ahead(r.x, 0, 0, drain + 1000, true, t, 0, 0));
		/* within it: taken, twice, one after the other on the reducer */
		g_assert_true(paxi_work_ahead(r.x, 0, 0, 1000, true, t, 0, 0));
		g_assert_true(paxi_work_ahead(r.x, 0, 0, 1000, true, t, 0, 0));
		/* the reducer is now busy for 2000 ps: one that fitted alone
		 * ends too late behind them */
		g_assert_false(paxi_work_ahead(r.x, 0, 0, drain - 1000, true, t, 0, 0));
		const struct paxi_stats *st = paxi_stats(r.x);

		g_assert_cmpuint(st->reduced_bytes, ==, 2000);
		g_assert_cmpuint(st->reduce_ps, ==, 2000);
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		rig_close(&r);
	}
}

struct red_probe {
	struct sim *s;
	sim_time_t at[3];
	int n;
};

static void on_red(void *user)
{
	struct red_probe *p = user;

	p->at[p->n++] = sim_now(p->s);
}

static void test_reduce_queue(void)
{
	struct rig r;

	rig_init(&r);
	r.pp.reduce_bytes_per_s = 1000000000000ull; /* 1 byte per ps */
	rig_open(&r);
	struct red_probe p = { .s = r.s };

	paxi_reduce(r.x, 0, 0, 1000, on_red, &p);
	paxi_reduce(r.x, 0, 0, 500, on_red, &p);
	paxi_reduce(r.x, 1, 0, 100, on_red, &p); /* another node: in parallel */
	sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpint(p.n, ==, 3);
	g_assert_cmpuint(p.at[0], ==, 100);
	g_assert_cmpuint(p.at[1], ==, 1000);
	g_assert_cmpuint(p.at[2], ==, 1500);
	g_assert_cmpuint(paxi_stats(r.x)->reduced_bytes, ==, 1600);
	rig_close(&r);
}

/* The ready flag: a receive posted before the source starts lets the data go
 * at the end of setup (no request-to-send round trip); posted late, the
 * data waits for the flag, one control message after the post. */
static void test_ready_handshake(void)
{
	for (int post_late = 0; post_late < 2; post_late++) {
		struct rig r;
		struct probe src = { 0 }, dst = { 0 };
		sim_time_t late = SIM_US(50);

		rig_init(&r);
		r.pp.handshake = PAXI_HS_READY;
		rig_open(&r);
		struct paxi_txn *t = paxi_txn_new(r.x, PAXI_SENDRECV, 0, 1, 0, 4096, &probe_ops,
						  &src, &dst);

		src.s = dst.s = r.s;
		if (!post_late)
			paxi_txn_post(t);
		paxi_txn_start(t);
		paxi_txn_supply(t, 4096);
		if (post_late) {
			sim_run(r.s, late, UINT64_MAX);
			paxi_txn_post(t);
		}
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		const struct link_params *l = &r.fc.link;
		sim_time_t ctrl = msg_ser(l, 0) + l->lat_ps + r.pp.ctrl_proc_ps;
		/* early: the flag is there before the setup ends; late: the
		 * source's setup ended long before the flag came */
		sim_time_t go = post_late ? late + ctrl : r.pp.setup_ps;

		g_assert_cmpuint(dst.usable_all, ==,
				 go + msg_ser(l, 4096) + msg_ser(l, 0) + l->lat_ps + r.pp.ctrl_proc_ps);
		g_assert_cmpuint(paxi_stats(r.x)->ctrl_msgs, ==, 3); /* ready, flag, response */
		rig_close(&r);
	}
}

/* Control out of band: node 1 streams 64 MiB to node 0 while node 0 sends
 * 4 KiB to node 1. The 4 KiB's completion answer travels 1 -> 0: through the
 * fabric it waits behind the 64 MiB; out of band it takes the route's
 * latency (and its processing), to the picosecond. A Send/Recv's ready flag
 * likewise; its completion flag stays behind its data. */
static void test_control_oob(void)
{
	for (int kind = 0; kind < 2; kind++) {
		for (int oob = 0; oob < 2; oob++) {
			struct rig r;
			struct probe bs = { 0 }, bd = { 0 }, src = { 0 }, dst = { 0 };
			const uint64_t big = 64ull << 20;

			rig_init(&r);
			r.pp.handshake = PAXI_HS_READY;
			r.pp.control = oob ? PAXI_CONTROL_OOB : PAXI_CONTROL_FABRIC;
			rig_open(&r);
			struct paxi_txn *b = paxi_txn_new(r.x, PAXI_TRANSFER, 1, 0, 0, big,
							  &probe_ops, &bs, &bd);
			struct paxi_txn *t = paxi_txn_new(r.x, kind ? PAXI_SENDRECV : PAXI_TRANSFER,
							  0, 1, 0, 4096, &probe_ops, &src, &dst);

			bs.s = bd.s = src.s = dst.s = r.s;
			paxi_txn_start(b);
			paxi_txn_supply(b, big);
			paxi_txn_post(b);
			paxi_txn_start(t);
			paxi_txn_supply(t, 4096);
			sim_run(r.s, SIM_US(1), UINT64_MAX); /* the big one is on the wire */
			paxi_txn_post(t);
			sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
			const struct link_params *l = &r.fc.link;
			sim_time_t back = l->lat_ps + r.pp.ctrl_proc_ps;
			sim_time_t big_end = r.pp.setup_ps + msg_ser(l, big) + l->lat_ps;

			g_assert_cmpuint(bd.usable_all, ==, big_end);
			if (!oob) {
				g_assert_cmpuint(src.sent, >, big_end);
			} else if (!kind) {
				sim_time_t data = r.pp.setup_ps + msg_ser(l, 4096) + l->lat_ps;

				g_assert_cmpuint(dst.usable_all, ==, data);
				g_assert_cmpuint(src.sent, ==, data + back);
			} else {
				/* ready flag at 1 us + back, then data and the flag */
				sim_time_t go = MAX(r.pp.setup_ps, SIM_US(1) + back);
				sim_time_t flag = go + msg_ser(l, 4096) + msg_ser(l, 0) + back;

				g_assert_cmpuint(dst.usable_all, ==, flag);
				g_assert_cmpuint(src.sent, ==, flag + back);
			}
			rig_close(&r);
		}
	}
}

/* The engine: one item at a time, in the order queued; each pays its fixed
 * cost per round begun, then its data at its rate; `started` fires after the
 * fixed cost; an item that stores to a peer ends only once the peer has the
 * data, and the next item waits for it. */
struct stamp {
	struct sim *s;
	sim_time_t at[4];
	int n;
	struct paxi_txn *supply; /* supplied whole at the first stamp */
};

static void on_stamp(void *user)
{
	struct stamp *st = user;

	st->at[st->n++] = sim_now(st->s);
	if (st->n == 1 && st->supply)
		paxi_txn_supply(st->supply, paxi_txn_bytes(st->supply));
}

static void test_engine(void)
{
	struct rig r;
	struct probe src = { 0 }, dst = { 0 };
	struct stamp a = { 0 }, b = { 0 }, c = { 0 };
	const uint64_t B = 1 << 20;

	rig_init(&r);
	r.pp.engine = 1;
	r.pp.engine_lat_ps = SIM_US(3);
	r.pp.engine_local_lat_ps = SIM_US(1);
	r.pp.engine_round_bytes = B / 4;
	r.pp.reduce_bytes_per_s = 1000000000000ull; /* 1 TB/s: 1 MiB in 1048576 ps */
	r.pp.copy_bytes_per_s = 2000000000000ull;
	rig_open(&r);
	a.s = b.s = c.s = src.s = dst.s = r.s;
	struct paxi_txn *t = paxi_txn_new(r.x, PAXI_TRANSFER, 0, 1, 0, B, &probe_ops, &src, &dst);

	b.supply = t;
	paxi_txn_start(t);
	paxi_txn_post(t);
	/* queued in this order on node 0: a local sum, a store of t, a copy */
	paxi_reduce(r.x, 0, 0, B, on_stamp, &a);
	paxi_engine_work(r.x, 0, 0, 0, B, false, NULL, t, on_stamp, on_stamp, &b);
	paxi_copy(r.x, 0, 0, B, on_stamp, &c);
	g_assert_cmpint(paxi_get_params(r.x)->engine, ==, 1);
	sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
	/* the sum: 4 rounds x 1 us, then 1 MiB at 1 TB/s */
	sim_time_t sum_end = SIM_US(4) + 1048576;

	g_assert_cmpint(a.n, ==, 1);
	g_assert_cmpuint(a.at[0], ==, sum_end);
	/* the store begins after the sum (t's setup is shorter), its data
	 * streams after 4 rounds x 3 us, and it ends when node 1 has it all */
	g_assert_cmpint(b.n, ==, 2);
	g_assert_cmpuint(b.at[0], ==, sum_end + SIM_US(12));
	g_assert_cmpuint(b.at[1], ==, dst.usable_all);
	g_assert_cmpuint(dst.usable_all, ==,
			 b.at[0] + msg_ser(&r.fc.link, B) + r.fc.link.lat_ps);
	/* the copy waits for the store to land */
	g_assert_cmpuint(c.at[0], ==, b.at[1] + SIM_US(4) + 524288);
	rig_close(&r);
}

/* A receiver's pass over received data: over LL's lines (a flag every 4
 * data bytes) it moves at the engine's channel rate, like a send; over
 * Simple's or LL128's data at the memory's copy rate. */
static void test_engine_polled(void)
{
	const uint64_t B = 1 << 20;
	const enum paxi_proto protos[] = { PAXI_PROTO_SIMPLE, PAXI_PROTO_LL, PAXI_PROTO_LL128 };

	for (size_t i = 0; i < G_N_ELEMENTS(protos); i++) {
		struct rig r;
		struct probe src = { 0 }, dst = { 0 };
		struct stamp a = { 0 };

		rig_init(&r);
		r.pp.engine = 1;
		r.pp.engine_lat_ps = SIM_US(3);
		r.pp.engine_round_bytes = 0; /* one round */
		r.pp.engine_bytes_per_s = 100000000000ull; /* 100 GB/s: 1 MiB in 10485760 ps */
		r.pp.reduce_bytes_per_s = 1000000000000ull;
		r.pp.copy_bytes_per_s = 2000000000000ull; /* 2 TB/s: 1 MiB in 524288 ps */
		r.pp.proto = protos[i];
		rig_open(&r);
		a.s = r.s;
		struct paxi_txn *t = rig_send(&r, PAXI_TRANSFER, B, &src, &dst);

		g_assert_cmpint(paxi_proto_polled(protos[i]), ==, protos[i] == PAXI_PROTO_LL);
		/* node 1's copy-out of what t brings, queued before t starts */
		paxi_engine_work(r.x, 1, 0, 0, B, false, t, NULL, NULL, on_stamp, &a);
		paxi_txn_post(t);
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpint(a.n, ==, 1);
		g_assert_cmpuint(a.at[0], ==, SIM_US(3) + (protos[i] == PAXI_PROTO_LL ? 10485760 : 524288));
		rig_close(&r);
	}
}

/* Protocols: LL puts twice the bytes on the wire, LL128 16/15, Simple the
 * data; each adds its latency to the setup; LL's lines are usable as they
 * land (a report per packet), Simple's per slice. */
static void test_protocols(void)
{
	const uint64_t B = 1 << 20;
	const struct {
		enum paxi_proto p;
		uint64_t wire;
	} cases[] = { { PAXI_PROTO_SIMPLE, B }, { PAXI_PROTO_LL, 2 * B },
		      { PAXI_PROTO_LL128, (B * 16 + 14) / 15 } };

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct rig r;
		struct probe src = { 0 }, dst = { 0 };

		rig_init(&r);
		r.pp.proto = cases[i].p;
		r.pp.protos[cases[i].p].lat_ps = SIM_NS(300);
		r.pp.slice_bytes = 256 << 10;
		rig_open(&r);
		paxi_txn_post(rig_send(&r, PAXI_TRANSFER, B, &src, &dst));
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		const struct link_params *l = &r.fc.link;

		g_assert_cmpuint(paxi_proto_wire_bytes(cases[i].p, B), ==, cases[i].wire);
		g_assert_cmpuint(dst.usable_all, ==, r.pp.setup_ps + SIM_NS(300) +
							    msg_ser(l, cases[i].wire) + l->lat_ps);
		g_assert_cmpuint(dst.last_usable, ==, B);
		if (cases[i].p == PAXI_PROTO_SIMPLE)
			g_assert_cmpuint(dst.slices, ==, B / r.pp.slice_bytes);
		else
			g_assert_cmpuint(dst.slices, >=, cases[i].wire / l->max_payload_bytes);
		rig_close(&r);
	}
}

/* A reducer per unit: work of two units of one node runs in parallel; with
 * one per node it queues. */
static void test_reduce_per_unit(void)
{
	for (int per_unit = 0; per_unit < 2; per_unit++) {
		struct rig r;

		rig_init(&r);
		r.pp.reduce_bytes_per_s = 1000000000000ull; /* 1 byte per ps */
		r.pp.reduce_per = per_unit ? PAXI_REDUCE_UNIT : PAXI_REDUCE_NODE;
		rig_open(&r);
		struct red_probe p = { .s = r.s };

		paxi_reduce(r.x, 0, 0, 1000, on_red, &p);
		paxi_reduce(r.x, 0, 1, 1000, on_red, &p);
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpint(p.n, ==, 2);
		g_assert_cmpuint(p.at[1], ==, per_unit ? 1000 : 2000);
		rig_close(&r);
	}
}

/* paxi_new refuses a parameter out of range in its own error domain, with
 * the limit the platform key table uses. */
static void test_params_refused(void)
{
	struct rig r;
	GError *err = NULL;

	rig_init(&r);
	r.pp.cdma_units = PAXI_MAX_CDMA_UNITS + 1;
	r.s = sim_new(1);
	r.f = fabric_new(r.s, &r.fc, &err);
	g_assert_no_error(err);
	g_assert_null(paxi_new(r.s, r.f, &r.pp, &err));
	g_assert_error(err, PAXI_ERROR, PAXI_ERROR_PARAMS);
	g_assert_cmpstr(err->message, ==, "'cdma_units' must be in 1..64, got 65");
	g_clear_error(&err);
	r.pp.cdma_units = PAXI_MAX_CDMA_UNITS;
	r.x = paxi_new(r.s, r.f, &r.pp, &err);
	g_assert_no_error(err);
	rig_close(&r);
}

/* Data supplied in partial increments (a fused op forwards what it has so
 * far): each increment goes out as one message once supplied; nothing beyond
 * what was supplied is ever usable; a Transfer's increments are usable as
 * they land, a slice at a time (an increment's tail shorter than a slice
 * waits for the next increment), a Send/Recv's only behind the flag
 * after the last one. */
static void test_partial_supply(void)
{
	const uint64_t part = 100000, total = 3 * part;
	const sim_time_t at[3] = { 0, SIM_US(50), SIM_US(100) };

	for (int kind = 0; kind < 2; kind++) {
		struct rig r;
		struct probe src = { 0 }, dst = { 0 };

		rig_init(&r);
		rig_open(&r);
		paxi_keep_times(r.x, true); /* last_msg_bytes */
		src.s = dst.s = r.s;
		struct paxi_txn *t = paxi_txn_new(r.x, (enum paxi_kind)kind, 0, 1, 0, total,
						  &probe_ops, &src, &dst);
		const struct link_params *l = &r.fc.link;
		sim_time_t ctrl = msg_ser(l, 0) + l->lat_ps + r.pp.ctrl_proc_ps;

		paxi_txn_start(t);
		paxi_txn_post(t);
		for (int i = 0; i < 3; i++) {
			sim_run(r.s, at[i], UINT64_MAX);
			/* what was supplied before has landed; Simple reports it a
			 * slice at a time: less than a slice behind, never ahead */
			if (kind == PAXI_TRANSFER) {
				g_assert_cmpuint(dst.last_usable, <=, part * (uint64_t)i);
				g_assert_cmpuint(dst.last_usable + r.pp.slice_bytes, >, part * (uint64_t)i);
			}
			else
				g_assert_cmpuint(dst.last_usable, ==, 0);
			g_assert_cmpuint(dst.usable_all, ==, 0);
			g_assert_cmpuint(src.sent, ==, 0);
			paxi_txn_supply(t, part * (uint64_t)(i + 1));
			paxi_txn_supply(t, part * (uint64_t)(i + 1)); /* the same again: no-op */
		}
		sim_run(r.s, SIM_TIME_MAX, UINT64_MAX);
		const struct paxi_txn_times tm = paxi_txn_times(t);
		/* the last increment alone on an idle link; Send/Recv adds its flag */
		sim_time_t last = at[2] + msg_ser(l, part) + l->lat_ps;

		if (kind == PAXI_SENDRECV)
			last += msg_ser(l, 0) + r.pp.ctrl_proc_ps;
		g_assert_cmpuint(tm.last_supply, ==, at[2]);
		g_assert_cmpuint(tm.last_msg_bytes, ==, part);
		g_assert_cmpuint(dst.usable_all, ==, last);
		g_assert_cmpuint(dst.last_usable, ==, total);
		g_assert_cmpuint(src.sent, ==, last + ctrl);
		if (kind == PAXI_SENDRECV)
			g_assert_cmpuint(dst.slices, ==, 1);
		else
			g_assert_cmpuint(dst.slices, >=, 3);
		rig_close(&r);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/paxi/transfer/lone-sum-of-parts", test_lone_transfer);
	g_test_add_func("/paxi/sendrecv/lone-sum-of-parts", test_lone_sendrecv);
	g_test_add_func("/paxi/supply/partial-increments", test_partial_supply);
	g_test_add_func("/paxi/params/refused", test_params_refused);
	g_test_add_func("/paxi/cdma/slots-and-setup", test_slots_and_setup);
	g_test_add_func("/paxi/transfer/drain-in-setup", test_drain_in_setup);
	g_test_add_func("/paxi/transfer/setup-ahead-of-data", test_setup_ahead_of_data);
	g_test_add_func("/paxi/reduce/work-ahead", test_work_ahead);
	g_test_add_func("/paxi/reduce/queue-per-node", test_reduce_queue);
	g_test_add_func("/paxi/reduce/per-unit", test_reduce_per_unit);
	g_test_add_func("/paxi/sendrecv/ready-flag", test_ready_handshake);
	g_test_add_func("/paxi/transfer/protocols", test_protocols);
	g_test_add_func("/paxi/control/out-of-band", test_control_oob);
	g_test_add_func("/paxi/engine/one-at-a-time", test_engine);
	g_test_add_func("/paxi/engine/polled-lines", test_engine_polled);
	return g_test_run();
}
