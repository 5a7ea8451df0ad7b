/* Tests of the fabric at flow fidelity (sim/link/flow.h): alone on an idle
 * route a message takes the packet fabric's time; flows share a channel
 * max-min fairly and take the capacity a finished one leaves, where a
 * header-only message takes no share; messages from
 * one node's memory on one channel go in order, and across a switch one
 * held at a slow port lets the next pass once its rest fits the switch's
 * buffer, as does one held further on past a rank that forwards it, but
 * not one that its first channel holds; a message of no payload waits at
 * its destination behind the
 * ejection of the data before it; pieces are delivered at
 * their boundaries; a message waiting in that order, or sending alone, can
 * grow; a header-only message's callback can run late; a message that
 * may not send before a time can be sent ahead of it; a run is
 * deterministic; a piece costs one event, its landing; a component of
 * many flows gets the max-min rates
 * that progressive filling by hand gives, and the same rates where the
 * sharing walks only through full resources as where it walks the whole
 * component; a memory side holds its flows only while they could fill
 * it; and the buffers fluid follows the packet fabric on a ring's shifts,
 * where full buffers hold the links upstream. */
#include <glib.h>
#include <math.h>

#include "sim/link/flow.h"
#include "sim/link/topo.h"
#include "sim/link/topos.h"
#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "tests/support/sends.h"

struct rx {
	sim_time_t done_ps;   /* when the last byte was delivered */
	uint64_t calls;
	uint64_t last_bytes;
	GArray *at;           /* of uint64_t: bytes of each call */
};

static void on_deliver(void *user, uint64_t bytes, bool done)
{
	struct rx *r = user;

	g_assert_cmpuint(bytes, >=, r->last_bytes);
	r->last_bytes = bytes;
	r->calls++;
	if (r->at)
		g_array_append_val(r->at, bytes);
	if (done)
		r->done_ps = sim_now(g_dataset_get_data(r, "sim"));
}

struct net {
	struct sim *s;
	struct fabric *f;
};

static struct net net_new_arbiter(const struct topo_ops *kind, int n, enum link_fidelity fid,
				  enum link_flow_arbiter arbiter)
{
	struct fabric_config cfg = { .topo = kind, .nranks = n, .fidelity = fid,
				     .flow_arbiter = arbiter };
	struct net x;

	link_params_default(&cfg.link);
	x.s = sim_new(1);
	x.f = fabric_new(x.s, &cfg, NULL);
	g_assert_nonnull(x.f);
	return x;
}

static struct net net_new(const struct topo_ops *kind, int n, enum link_fidelity fid)
{
	return net_new_arbiter(kind, n, fid, LINK_FLOW_MAXMIN);
}

static void net_free(struct net *x)
{
	fabric_free(x->f);
	sim_free(x->s);
}

/* One message src -> dst of `bytes` alone: its delivery time. */
static sim_time_t alone(const struct topo_ops *kind, int n, enum link_fidelity fid, int src, int dst,
			uint64_t bytes)
{
	struct net x = net_new(kind, n, fid);
	struct rx r = { 0 };

	g_dataset_set_data(&r, "sim", x.s);
	fabric_send(x.f, src, dst, bytes, ROUTE_SHORTEST, on_deliver, &r);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
	g_dataset_destroy(&r);
	net_free(&x);
	return r.done_ps;
}

/* Alone on an idle route, a flow takes the packet fabric's time: one hop
 * or several, a header-only message or many packets (to within a
 * picosecond per packet: the packet fabric rounds each packet up). */
static void test_alone_matches_packets(void)
{
	static const struct {
		int dst;
		uint64_t bytes;
	} cases[] = { { 1, 0 }, { 1, 100 }, { 1, 4096 }, { 1, 1 << 20 }, { 3, 1 << 20 }, { 4, 12345 } };

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		sim_time_t p = alone(&topo_ring_ops, 8, LINK_FIDELITY_PACKET, 0, cases[i].dst, cases[i].bytes);
		sim_time_t f = alone(&topo_ring_ops, 8, LINK_FIDELITY_FLOW, 0, cases[i].dst, cases[i].bytes);
		uint64_t packets = cases[i].bytes / 4096 + 2;

		g_assert_cmpuint(f, <=, p + packets);
		g_assert_cmpuint(f + packets, >=, p);
	}
}

/* Two messages sent at once on a unidirectional ring of 8 at flow
 * fidelity, src1 -> dst1 of bytes1 and src2 -> dst2 of bytes2, run to
 * their end: their deliveries in *a and *b. */
static void send_two(int src1, int dst1, uint64_t bytes1, int src2, int dst2, uint64_t bytes2,
		     struct rx *a, struct rx *b)
{
	struct net x = net_new(&topo_ring_uni_ops, 8, LINK_FIDELITY_FLOW);

	g_dataset_set_data(a, "sim", x.s);
	g_dataset_set_data(b, "sim", x.s);
	fabric_send(x.f, src1, dst1, bytes1, ROUTE_SHORTEST, on_deliver, a);
	fabric_send(x.f, src2, dst2, bytes2, ROUTE_SHORTEST, on_deliver, b);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
	g_dataset_destroy(a);
	g_dataset_destroy(b);
	net_free(&x);
}

/* Two flows on one channel (0 -> 1 from memories 0 and 7, the second
 * forwarded through 0) share it: each at half the rate while both run, so
 * the first of equal size ends at twice its time alone; and with one of
 * half the size, it ends at 2 x its own, then the other speeds up. */
static void test_fair_share(void)
{
	struct rx a = { 0 }, b = { 0 };
	uint64_t big = 64 << 20;

	send_two(0, 1, big, 7, 1, big / 2, &a, &b);

	sim_time_t t_big = alone(&topo_ring_uni_ops, 8, LINK_FIDELITY_FLOW, 0, 1, big);
	sim_time_t t_half = alone(&topo_ring_uni_ops, 8, LINK_FIDELITY_FLOW, 0, 1, big / 2);

	/* b: half the bytes at half the rate on the shared channel */
	g_assert_cmpfloat((double)b.done_ps / (double)t_half, >, 1.95);
	g_assert_cmpfloat((double)b.done_ps / (double)t_half, <, 2.05);
	/* a: all of the channel's time for both, 1.5 x its time alone */
	g_assert_cmpfloat((double)a.done_ps / (double)t_big, >, 1.45);
	g_assert_cmpfloat((double)a.done_ps / (double)t_big, <, 1.55);
}

/* A header-only message that starts beside a flow takes no share: it
 * sends at its route's full rate, and the flow keeps its rate. A message
 * 0 -> 3 of a unidirectional ring crosses 1 -> 2, where node 1 sends a
 * header-only message to 2 at the same time: each is delivered when it
 * would be alone. */
static void test_header_unshared(void)
{
	struct rx a = { 0 }, h = { 0 };
	uint64_t big = 16 << 20;

	send_two(0, 3, big, 1, 2, 0, &a, &h);
	g_assert_cmpuint(a.done_ps, ==, alone(&topo_ring_uni_ops, 8, LINK_FIDELITY_FLOW, 0, 3, big));
	g_assert_cmpuint(h.done_ps, ==, alone(&topo_ring_uni_ops, 8, LINK_FIDELITY_FLOW, 1, 2, 0));
}

/* Messages from one node's memory on one channel go one after the other,
 * each at the full rate (the packet fabric's FIFO memory input), not
 * sharing it. */
static void test_memory_fifo(void)
{
	struct net x = net_new(&topo_ring_uni_ops, 4, LINK_FIDELITY_FLOW);
	struct rx a = { 0 }, b = { 0 };
	uint64_t sz = 16 << 20;

	g_dataset_set_data(&a, "sim", x.s);
	g_dataset_set_data(&b, "sim", x.s);
	fabric_send(x.f, 0, 1, sz, ROUTE_SHORTEST, on_deliver, &a);
	fabric_send(x.f, 0, 1, sz, ROUTE_SHORTEST, on_deliver, &b);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);

	sim_time_t t = alone(&topo_ring_uni_ops, 4, LINK_FIDELITY_FLOW, 0, 1, sz);

	/* in order, each at the full rate: the second ends one message later */
	g_assert_cmpuint(a.done_ps, ==, t);
	g_assert_cmpfloat((double)b.done_ps / (double)t, >, 1.99);
	g_assert_cmpfloat((double)b.done_ps / (double)t, <, 2.01);
	g_dataset_destroy(&a);
	g_dataset_destroy(&b);
	net_free(&x);
}

/* One node of a switch sends 192 KiB to a rank behind a slow port (50
 * GB/s), then 1 MiB to one behind a fast port (450 GB/s). The packet
 * fabric queues the first message's packets at the switch by the channel
 * they leave on, within the 256 KiB of the node's link's receive buffer,
 * so the second one passes it there; at flow fidelity the first lets the
 * line go once its rest fits that room, its rest crossing the node's link
 * first (docs/scale.md, "Messages pass at a switch once their rest fits
 * its buffer"). Both land within 1 % of the packet fabric's times; with
 * the line held to the first one's end, the second would land about 2 x
 * later. */
/* run(fid, done) of two messages at packet fidelity into p and at flow
 * fidelity into f, both logged. */
static void both_fidelities(void (*run)(enum link_fidelity fid, sim_time_t done[2]), sim_time_t p[2],
			    sim_time_t f[2])
{
	run(LINK_FIDELITY_PACKET, p);
	run(LINK_FIDELITY_FLOW, f);
	g_test_message("packet %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT ", flow %" G_GUINT64_FORMAT
		       " %" G_GUINT64_FORMAT " ps", p[0], p[1], f[0], f[1]);
}

static void switch_pass(enum link_fidelity fid, sim_time_t done[2])
{
	static const uint64_t ports[] = { 450000000000ull, 450000000000ull, 50000000000ull };
	struct fabric_config cfg = { .topo = &topo_switch_ops, .nranks = 3, .fidelity = fid,
				     .ports = ports, .nports = 3 };
	const struct send sends[] = { { 0, 2, 192 << 10 }, { 0, 1, 1 << 20 } };

	link_params_default(&cfg.link);
	cfg.switch_link = cfg.link;
	sends_run(&cfg, sends, 2, done);
}

static void test_switch_pass(void)
{
	sim_time_t p[2], f[2];

	both_fidelities(switch_pass, p, f);
	/* the fast message passes: it lands before the slow one */
	g_assert_cmpuint(p[1], <, p[0]);
	for (int i = 0; i < 2; i++) {
		g_assert_cmpfloat((double)f[i] / (double)p[i], >, 0.99);
		g_assert_cmpfloat((double)f[i] / (double)p[i], <, 1.01);
	}
}

/* The three messages of `sends` on a one-way ring of 4, at packet
 * fidelity into p and at flow fidelity into f, both logged. */
static void ring_uni_three(const struct send sends[3], sim_time_t p[3], sim_time_t f[3])
{
	for (int k = 0; k < 2; k++) {
		struct fabric_config cfg = { .topo = &topo_ring_uni_ops, .nranks = 4,
					     .fidelity = k ? LINK_FIDELITY_FLOW : LINK_FIDELITY_PACKET };

		link_params_default(&cfg.link);
		sends_run(&cfg, sends, 3, k ? f : p);
	}
	g_test_message("packet %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
		       ", flow %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " ps",
		       p[0], p[1], p[2], f[0], f[1], f[2]);
}

/* As /flow/switch-pass, at a rank that forwards: on a one-way ring of 4,
 * rank 1 sends 4 MiB to rank 2 while rank 0 sends 192 KiB to rank 2
 * through rank 1, then 1 MiB to rank 1. On 1 -> 2 the 192 KiB get half the link beside rank 1's
 * own message; the packet fabric queues them at rank 1 by the channel they
 * leave on, within the 256 KiB of the receive buffer of 0 -> 1, so the 1
 * MiB passes them there and lands at rank 1 a link's time after the 192
 * KiB have crossed 0 -> 1, before they have all reached rank 2. Flow
 * fidelity releases the 192 KiB once their rest fits that room, as at a
 * switch (1 -> 2 holds them, not 0 -> 1), and lands all three within 1 %
 * of the packet fabric's times; with the line held to the first one's
 * end, the 1 MiB would land 15 % later. */
static void test_rank_pass(void)
{
	const struct send sends[] = { { 1, 2, 4 << 20 }, { 0, 2, 192 << 10 }, { 0, 1, 1 << 20 } };
	sim_time_t p[3], f[3];

	ring_uni_three(sends, p, f);
	/* the 1 MiB passes: it lands sooner after the 192 KiB ahead of it
	 * than it takes alone */
	sim_time_t one = alone(&topo_ring_uni_ops, 4, LINK_FIDELITY_PACKET, 0, 1, 1 << 20);

	g_assert_cmpuint(p[2], <, p[1] + one * 9 / 10);
	for (int i = 0; i < 3; i++) {
		g_assert_cmpfloat((double)f[i] / (double)p[i], >, 0.99);
		g_assert_cmpfloat((double)f[i] / (double)p[i], <, 1.01);
	}
}

/* A message that its first channel holds keeps its line: rank 3's 4 MiB
 * to rank 1 crosses 0 -> 1 beside rank 0's 192 KiB to rank 2, so that
 * channel holds both at half its rate; rank 0's 1 MiB to rank 1 waits
 * behind the 192 KiB until they have sent their last byte, as the packet
 * fabric's memory input sends them. Flow fidelity lands the 1 MiB and the
 * 4 MiB within 3 % of the packet fabric (releasing the 192 KiB there, their
 * rest sent at the channel's whole rate beside rank 3's half, landed the
 * 1 MiB 5.8 % early and the 4 MiB 2.7 % early). The 192 KiB themselves
 * land 12 % late either way: the packet fabric's round robin at rank 0
 * starts them ahead of rank 3's packets, which reach it a hop later. */
static void test_rank_held(void)
{
	const struct send sends[] = { { 3, 1, 4 << 20 }, { 0, 2, 192 << 10 }, { 0, 1, 1 << 20 } };
	sim_time_t p[3], f[3];

	ring_uni_three(sends, p, f);
	for (int i = 0; i < 3; i += 2) {
		g_assert_cmpfloat((double)f[i] / (double)p[i], >, 0.97);
		g_assert_cmpfloat((double)f[i] / (double)p[i], <, 1.03);
	}
}

/* Over a switch whose links carry 12.5 GB/s into nodes that eject at 13
 * GB/s (cluster16-edr's), a message of 64 KiB then one of no payload, from
 * rank 0 to rank 1: the second lands a header's time behind the first's
 * last packet, and waits for the ejection clock that packet ran ahead (4
 * KiB at 13 GB/s, 315 ns; docs/scale.md, "A flag waits behind its data's
 * last packet at the ejection clock"). Flow fidelity lands both within a
 * nanosecond of the packet fabric (it landed the second 313 ns early). */
static void flag_behind(enum link_fidelity fid, sim_time_t done[2])
{
	struct fabric_config cfg = { .topo = &topo_switch_ops, .nranks = 2, .fidelity = fid };
	const struct send sends[] = { { 0, 1, 64 << 10 }, { 0, 1, 0 } };

	link_params_default(&cfg.link);
	cfg.link.bw_bytes_per_s = 12500000000ull;
	cfg.switch_link = cfg.link;
	cfg.node.inject_bytes_per_s = cfg.node.eject_bytes_per_s = 13000000000ull;
	sends_run(&cfg, sends, 2, done);
}

static void test_flag_behind(void)
{
	sim_time_t p[2], f[2];

	both_fidelities(flag_behind, p, f);
	g_assert_cmpuint(p[1], >, p[0] + 300000); /* the packet fabric's wait */
	for (int i = 0; i < 2; i++) {
		g_assert_cmpuint(f[i], <=, p[i] + 1000);
		g_assert_cmpuint(f[i] + 1000, >=, p[i]);
	}
}

/* From one source to one destination, a header-only message sent behind a
 * large one over several hops is delivered after it, though its own tail
 * (a header's store-and-forward per hop) is shorter: a Send/Recv's
 * completion flag never passes its data. So is a message of no wire bytes
 * at all (no payload, 0-byte headers: the H200 platforms' links). */
static void test_in_order_per_pair(void)
{
	static const uint32_t headers[] = { 32, 0 };

	for (size_t i = 0; i < G_N_ELEMENTS(headers); i++) {
		struct fabric_config cfg = {
			.topo = &topo_ring_ops, .nranks = 8, .fidelity = LINK_FIDELITY_FLOW,
		};
		struct net x;
		struct rx data = { 0 }, flag = { 0 };

		link_params_default(&cfg.link);
		cfg.link.header_bytes = headers[i];
		x.s = sim_new(1);
		x.f = fabric_new(x.s, &cfg, NULL);
		g_dataset_set_data(&data, "sim", x.s);
		g_dataset_set_data(&flag, "sim", x.s);
		fabric_send(x.f, 0, 3, 1 << 20, ROUTE_SHORTEST, on_deliver, &data);
		fabric_send(x.f, 0, 3, 0, ROUTE_SHORTEST, on_deliver, &flag);
		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(data.done_ps, >, 0);
		g_assert_cmpuint(flag.done_ps, >=, data.done_ps);
		g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
		g_dataset_destroy(&data);
		g_dataset_destroy(&flag);
		net_free(&x);
	}
}

/* In order per pair with more peers than a source's pair cache holds (2):
 * each header-only flag is delivered no sooner than the data sent before it
 * to the same peer, and a flag is not held back by another peer's data. */
static void test_in_order_many_peers(void)
{
	static const int peers[] = { 3, 5, 6 };
	static const uint64_t bytes[] = { 1 << 20, 4 << 20, 4 << 20 };
	struct fabric_config cfg = {
		.topo = &topo_ring_ops, .nranks = 8, .fidelity = LINK_FIDELITY_FLOW,
	};
	struct rx data[3] = { 0 }, flag[3] = { 0 };
	struct net x;

	link_params_default(&cfg.link);
	cfg.link.header_bytes = 0;
	x.s = sim_new(1);
	x.f = fabric_new(x.s, &cfg, NULL);
	for (int i = 0; i < 3; i++) {
		g_dataset_set_data(&data[i], "sim", x.s);
		g_dataset_set_data(&flag[i], "sim", x.s);
		fabric_send(x.f, 0, peers[i], bytes[i], ROUTE_SHORTEST, on_deliver, &data[i]);
	}
	for (int i = 0; i < 3; i++)
		fabric_send(x.f, 0, peers[i], 0, ROUTE_SHORTEST, on_deliver, &flag[i]);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	for (int i = 0; i < 3; i++) {
		g_assert_cmpuint(data[i].done_ps, >, 0);
		g_assert_cmpuint(flag[i].done_ps, >=, data[i].done_ps);
	}
	/* 0 -> 3 goes clockwise, 5 and 6 counter-clockwise: 3's flag follows
	 * 3's 1 MiB, not the 8 MiB on the other side */
	g_assert_cmpuint(flag[0].done_ps, <, data[2].done_ps);
	g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
	for (int i = 0; i < 3; i++) {
		g_dataset_destroy(&data[i]);
		g_dataset_destroy(&flag[i]);
	}
	net_free(&x);
}

/* Pieces: a callback after first_bytes, then every piece_bytes, and the
 * last byte with done; at packet fidelity the same call is per packet. */
static void test_pieces(void)
{
	struct net x = net_new(&topo_ring_ops, 4, LINK_FIDELITY_FLOW);
	struct rx r = { .at = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };

	g_dataset_set_data(&r, "sim", x.s);
	fabric_send_pieces(x.f, 0, 1, 100000, ROUTE_SHORTEST, 16384, 32768, NULL, on_deliver, &r);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	static const uint64_t want[] = { 16384, 49152, 81920, 100000 };

	g_assert_cmpuint(r.at->len, ==, G_N_ELEMENTS(want));
	for (guint i = 0; i < r.at->len; i++)
		g_assert_cmpuint(g_array_index(r.at, uint64_t, i), ==, want[i]);
	g_assert_cmpuint(r.done_ps, >, 0);
	g_array_unref(r.at);
	g_dataset_destroy(&r);
	net_free(&x);
}

/* A message in fixed pieces, alone: each piece lands one tail after the
 * flow has sent it, and costs one event (its landing), not two (its
 * sending and its landing); that holds while a second flow joins its
 * channel and halves its rate. */
static void test_pieces_one_event(void)
{
	struct link_params lp;

	link_params_default(&lp);
	const uint64_t bytes = 1 << 20, piece = 16384;
	const int pieces = (int)(bytes / piece);
	double units = (double)bytes + (double)(bytes / lp.max_payload_bytes) * lp.header_bytes;

	for (int joined = 0; joined < 2; joined++) {
		struct net x = net_new(&topo_ring_uni_ops, 4, LINK_FIDELITY_FLOW);
		struct rx r = { .at = g_array_new(FALSE, FALSE, sizeof(uint64_t)) }, o = { 0 };
		GArray *when = g_array_new(FALSE, FALSE, sizeof(sim_time_t));

		g_dataset_set_data(&r, "sim", x.s);
		g_dataset_set_data(&o, "sim", x.s);
		fabric_send_pieces(x.f, 0, 1, bytes, ROUTE_SHORTEST, piece, piece, NULL, on_deliver, &r);
		double rate = 0;
		sim_time_t t_join = 0;

		while (r.done_ps == 0) {
			guint seen = r.at->len;

			g_assert_cmpint(sim_run(x.s, SIM_TIME_MAX, 1), !=, SIM_RUN_OVERFLOW);
			if (!rate)
				rate = fabric_channel_rate(x.f, fabric_channel_find(x.f, 0, 1));
			if (r.at->len > seen) {
				sim_time_t t = sim_now(x.s);

				g_array_append_val(when, t);
			}
			if (joined && !t_join && r.at->len == (guint)pieces / 4) {
				/* from 3 -> 1 through 0: shares 0 -> 1 */
				t_join = sim_now(x.s);
				fabric_send(x.f, 3, 1, bytes, ROUTE_SHORTEST, on_deliver, &o);
			}
		}
		uint64_t events = sim_counters(x.s)->executed;

		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(r.at->len, ==, (guint)pieces);
		/* before the join (or throughout): piece k lands one latency
		 * after the flow has sent k pieces' wire bytes at its rate */
		for (int k = 0; k < (joined ? pieces / 4 : pieces); k++) {
			double sent = (double)(k + 1) * (double)piece * units / (double)bytes;
			double t = sent / rate + (double)lp.lat_ps;

			g_assert_cmpuint(g_array_index(r.at, uint64_t, k), ==, (uint64_t)(k + 1) * piece);
			g_assert_cmpfloat(fabs((double)g_array_index(when, sim_time_t, k) - t), <=, k + 2.0);
		}
		if (joined) {
			/* after it, the pieces come at half the rate */
			sim_time_t gap = g_array_index(when, sim_time_t, pieces - 1) -
					 g_array_index(when, sim_time_t, pieces - 2);
			double want = (double)piece * units / (double)bytes / (rate / 2);

			g_assert_cmpfloat(fabs((double)gap - want), <=, 2.0);
			g_assert_cmpuint(o.done_ps, >, r.done_ps);
		}
		g_test_message("%s: %d pieces, %" G_GUINT64_FORMAT " events", joined ? "joined" : "alone",
			       pieces, events);
		g_assert_cmpuint(events, <=, (uint64_t)pieces + 4);
		g_array_unref(r.at);
		g_array_unref(when);
		g_dataset_destroy(&r);
		g_dataset_destroy(&o);
		net_free(&x);
	}
}

static sim_time_t slack_of(void *user)
{
	return *(const sim_time_t *)g_dataset_get_data(user, "slack");
}

/* Pieces sized by the receiver's slack: none or 0 keep piece_bytes (the
 * same calls at the same times); a slack merges slices into pieces that are
 * multiples of piece_bytes, and the last byte lands within a picosecond per
 * piece of where it lands slice by slice (each boundary rounds up); an
 * unbounded slack delivers the message whole. */
static void test_slack_pieces(void)
{
	static const sim_time_t slacks[] = { 0, 0, 1000000, SIM_TIME_END };
	const uint64_t bytes = 1 << 20, slice = 16384;
	sim_time_t ref_done = 0;
	guint ref_calls = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(slacks); i++) {
		struct net x = net_new(&topo_ring_ops, 4, LINK_FIDELITY_FLOW);
		struct rx r = { .at = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
		sim_time_t slack = slacks[i];

		g_dataset_set_data(&r, "sim", x.s);
		g_dataset_set_data(&r, "slack", &slack);
		fabric_send_pieces(x.f, 0, 1, bytes, ROUTE_SHORTEST, slice, slice,
				   i == 0 ? NULL : slack_of, on_deliver, &r);
		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(r.last_bytes, ==, bytes);
		for (guint k = 0; k + 1 < r.at->len; k++)
			g_assert_cmpuint(g_array_index(r.at, uint64_t, k) % slice, ==, 0);
		if (i == 0) {
			ref_done = r.done_ps;
			ref_calls = r.at->len;
			g_assert_cmpuint(ref_calls, ==, bytes / slice);
		} else if (slack == 0) {
			g_assert_cmpuint(r.done_ps, ==, ref_done);
			g_assert_cmpuint(r.at->len, ==, ref_calls);
		} else if (slack == SIM_TIME_END) {
			g_assert_cmpuint(r.at->len, ==, 1);
			g_assert_cmpuint(r.done_ps, <=, ref_done);
			g_assert_cmpuint(r.done_ps + ref_calls, >=, ref_done);
		} else {
			g_assert_cmpuint(r.at->len, >, 2);
			g_assert_cmpuint(r.at->len, <, ref_calls / 4);
			g_assert_cmpuint(r.done_ps, <=, ref_done);
			g_assert_cmpuint(r.done_ps + ref_calls, >=, ref_done);
		}
		g_array_unref(r.at);
		g_dataset_destroy(&r);
		net_free(&x);
	}
}

/* What the early function was asked, and answers. */
struct early_ask {
	bool answer;
	int asked;
	double rate;
	sim_time_t since, until, at;
	struct sim *s;
};

static struct early_ask *early_now;

static bool early_of(void *user, double rate, sim_time_t since, sim_time_t until)
{
	(void)user;
	early_now->asked++;
	early_now->rate = rate;
	early_now->since = since;
	early_now->until = until;
	early_now->at = sim_now(early_now->s);
	return early_now->answer;
}

/* fabric_set_early: a message with a slack asks at each grown piece that
 * lands whether the receiver takes the rest; answered no, the pieces are
 * those of a run without the question; answered yes, the first such
 * landing delivers the whole message (not done) in its place, the pieces
 * after it are gone, and the last byte still lands, done, when it did. The
 * question carries the flow's rate (wire bytes per ps), when the bytes not
 * delivered began to land and when the last will. fabric_channel_rate is
 * that rate while it sends, 0 idle. */
static void test_early(void)
{
	const uint64_t bytes = 1 << 20, slice = 16384;
	sim_time_t slack = 1000000, ref_done = 0;
	GArray *ref = NULL;

	for (int pass = 0; pass < 3; pass++) {
		struct net x = net_new(&topo_ring_ops, 4, LINK_FIDELITY_FLOW);
		struct rx r = { .at = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
		struct early_ask ask = { .answer = pass == 2, .s = x.s };
		struct link_params p;

		link_params_default(&p);
		early_now = &ask;
		if (pass > 0)
			fabric_set_early(x.f, early_of);
		g_dataset_set_data(&r, "sim", x.s);
		g_dataset_set_data(&r, "slack", &slack);
		g_assert_cmpfloat(fabric_channel_rate(x.f, fabric_first_channel(x.f, 0, 1, ROUTE_SHORTEST)),
				  ==, 0);
		fabric_send_pieces(x.f, 0, 1, bytes, ROUTE_SHORTEST, slice, slice, slack_of, on_deliver, &r);
		int chan = fabric_first_channel(x.f, 0, 1, ROUTE_SHORTEST);

		g_assert_cmpint(chan, >=, 0);
		g_assert_cmpfloat(fabric_channel_rate(x.f, chan), ==, (double)p.bw_bytes_per_s / 1e12);
		g_assert_cmpuint(fabric_channel_drain_ps(x.f, chan), ==,
				 fabric_drain_ps(x.f, 0, 1, ROUTE_SHORTEST));
		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(r.last_bytes, ==, bytes);
		g_assert_cmpfloat(fabric_channel_rate(x.f, chan), ==, 0);
		if (pass == 0) {
			ref_done = r.done_ps;
			ref = g_array_ref(r.at);
			g_assert_cmpuint(ref->len, >, 2);
		} else if (pass == 1) {
			/* asked at every grown piece that landed, and told no */
			g_assert_cmpint(ask.asked, >=, 1);
			g_assert_cmpuint(r.done_ps, ==, ref_done);
			g_assert_cmpuint(r.at->len, ==, ref->len);
			for (guint i = 0; i < ref->len; i++)
				g_assert_cmpuint(g_array_index(r.at, uint64_t, i), ==,
						 g_array_index(ref, uint64_t, i));
		} else {
			g_assert_cmpint(ask.asked, ==, 1);
			g_assert_cmpfloat(ask.rate, ==, (double)p.bw_bytes_per_s / 1e12);
			/* its bytes began to land one link latency after they were
			 * sent, at 0, and the last lands when the run's last does */
			g_assert_cmpuint(ask.since, >=, p.lat_ps);
			g_assert_cmpuint(ask.since, <, ask.at);
			g_assert_cmpuint(ask.until + 2, >=, ref_done);
			g_assert_cmpuint(ask.until, <=, ref_done + 2);
			/* the whole of it when its first piece lands, then done */
			g_assert_cmpuint(r.at->len, ==, 2);
			g_assert_cmpuint(g_array_index(r.at, uint64_t, 0), ==, bytes);
			g_assert_cmpuint(g_array_index(r.at, uint64_t, 1), ==, bytes);
			g_assert_cmpuint(r.done_ps, ==, ref_done);
		}
		g_array_unref(r.at);
		g_dataset_destroy(&r);
		net_free(&x);
	}
	g_array_unref(ref);
}

/* fabric_append: a message that waits behind another on its first channel
 * grows as if it had been sent that large (one delivery of the sum, at the
 * time a message of the sum sent in its place is delivered); one that has
 * started, another sender's or another user's does not, nor any at packet
 * fidelity. */
static void test_append(void)
{
	const uint64_t big = 1 << 20, b = 100000, more = 200000;
	sim_time_t want = 0;
	struct channel_stats want_st = { 0 };

	for (int pass = 0; pass < 2; pass++) {
		struct net x = net_new(&topo_ring_ops, 4, LINK_FIDELITY_FLOW);
		struct rx ahead = { 0 }, r = { .at = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };

		g_dataset_set_data(&ahead, "sim", x.s);
		g_dataset_set_data(&r, "sim", x.s);
		fabric_send(x.f, 0, 1, big, ROUTE_SHORTEST, on_deliver, &ahead);
		fabric_send_pieces(x.f, 0, 1, pass ? b : b + more, ROUTE_SHORTEST, 0, 0, NULL,
				   on_deliver, &r);
		/* the one ahead has started: it does not grow */
		g_assert_false(fabric_append(x.f, 0, 1, ROUTE_SHORTEST, more, &ahead));
		/* not from this source, or not to this destination */
		g_assert_false(fabric_append(x.f, 2, 1, ROUTE_SHORTEST, more, &r));
		g_assert_false(fabric_append(x.f, 0, 2, ROUTE_SHORTEST, more, &r));
		if (pass)
			g_assert_true(fabric_append(x.f, 0, 1, ROUTE_SHORTEST, more, &r));
		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(r.at->len, ==, 1);
		g_assert_cmpuint(r.last_bytes, ==, b + more);
		g_assert_cmpuint(r.done_ps, >, ahead.done_ps);
		/* and its channel counts one message of the sum */
		struct channel_stats st = { 0 };

		fabric_channel_stats(x.f, fabric_channel_find(x.f, 0, 1), &st);
		if (!pass) {
			want = r.done_ps;
			want_st = st;
		} else {
			g_assert_cmpuint(r.done_ps, ==, want);
			g_assert_cmpuint(st.payload_bytes, ==, want_st.payload_bytes);
			g_assert_cmpuint(st.wire_bytes, ==, want_st.wire_bytes);
			g_assert_cmpuint(st.packets, ==, want_st.packets);
			g_assert_cmpuint(st.busy_ps, ==, want_st.busy_ps);
		}
		g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
		g_array_unref(r.at);
		g_dataset_destroy(&ahead);
		g_dataset_destroy(&r);
		net_free(&x);
	}
	/* alone, it starts at once, and grows while it sends with nothing
	 * behind it: delivered whole when a message of the sum sent in its
	 * place is; at packet fidelity nothing grows */
	sim_time_t sum_ps = 0;
	struct link_params lp;

	link_params_default(&lp);
	for (int pass = 0; pass < 3; pass++) {
		bool packet = pass == 2;
		struct net x = net_new(&topo_ring_ops, 4, packet ? LINK_FIDELITY_PACKET : LINK_FIDELITY_FLOW);
		struct rx r = { 0 };

		g_dataset_set_data(&r, "sim", x.s);
		fabric_send_pieces(x.f, 0, 1, pass == 0 ? b + more : b, ROUTE_SHORTEST, 0, 0, NULL,
				   on_deliver, &r);
		if (pass == 1) {
			/* half way through its first b bytes */
			sim_run(x.s, link_wire_ps(b / 2, lp.bw_bytes_per_s), UINT64_MAX);
			g_assert_true(fabric_append(x.f, 0, 1, ROUTE_SHORTEST, more, &r));
		}
		if (packet)
			g_assert_false(fabric_append(x.f, 0, 1, ROUTE_SHORTEST, more, &r));
		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(r.last_bytes, ==, packet ? b : b + more);
		if (pass == 0)
			sum_ps = r.done_ps;
		else if (pass == 1)
			g_assert_cmpuint(r.done_ps, ==, sum_ps);
		g_dataset_destroy(&r);
		net_free(&x);
	}
}

/* The drain time of a route's first channel: 0 when idle, the queued wire
 * bytes at the channel's rate while a message from memory sends on it. */
static void test_drain(void)
{
	struct net x = net_new(&topo_ring_ops, 4, LINK_FIDELITY_FLOW);
	struct rx a = { 0 }, b = { 0 };
	struct link_params p;

	link_params_default(&p);
	g_dataset_set_data(&a, "sim", x.s);
	g_dataset_set_data(&b, "sim", x.s);
	g_assert_cmpuint(fabric_drain_ps(x.f, 0, 1, ROUTE_SHORTEST), ==, 0);
	fabric_send(x.f, 0, 1, 1 << 20, ROUTE_SHORTEST, on_deliver, &a);
	fabric_send(x.f, 0, 1, 1 << 20, ROUTE_SHORTEST, on_deliver, &b);
	uint64_t pkts = ((1 << 20) + p.max_payload_bytes - 1) / p.max_payload_bytes;
	sim_time_t one = link_wire_ps((1 << 20) + pkts * p.header_bytes, p.bw_bytes_per_s);
	sim_time_t d = fabric_drain_ps(x.f, 0, 1, ROUTE_SHORTEST);

	g_assert_cmpuint(d + 2, >=, 2 * one);
	g_assert_cmpuint(d, <=, 2 * one);
	/* the other direction and another first channel are idle */
	g_assert_cmpuint(fabric_drain_ps(x.f, 1, 0, ROUTE_SHORTEST), ==, 0);
	g_assert_cmpuint(fabric_drain_ps(x.f, 0, 3, ROUTE_SHORTEST), ==, 0);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(fabric_drain_ps(x.f, 0, 1, ROUTE_SHORTEST), ==, 0);
	g_dataset_destroy(&a);
	g_dataset_destroy(&b);
	net_free(&x);
}

/* Many flows over many hops, twice: the same delivery times. */
static void test_deterministic(void)
{
	sim_time_t first[16];

	for (int run = 0; run < 2; run++) {
		struct net x = net_new(&topo_torus_ops, 16, LINK_FIDELITY_FLOW);
		struct rx r[16] = { { 0 } };

		for (int i = 0; i < 16; i++) {
			g_dataset_set_data(&r[i], "sim", x.s);
			fabric_send(x.f, i, (i * 7 + 3) % 16 == i ? (i + 1) % 16 : (i * 7 + 3) % 16,
				    (uint64_t)(i + 1) << 18, ROUTE_SHORTEST, on_deliver, &r[i]);
		}
		sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
		for (int i = 0; i < 16; i++) {
			g_assert_cmpuint(r[i].done_ps, >, 0);
			if (run)
				g_assert_cmpuint(r[i].done_ps, ==, first[i]);
			first[i] = r[i].done_ps;
			g_dataset_destroy(&r[i]);
		}
		net_free(&x);
	}
}

/* fabric_send_late: a header-only message's last callback runs `late` after
 * it lands, whether it sends alone (its delivery scheduled when it starts)
 * or another message joins its channel while it sends: behind it in its
 * node's line, or sharing the switch's channel to the same destination;
 * the other message is delivered as it is behind a plain one. */
static void test_send_late(void)
{
	const sim_time_t late = SIM_NS(700);

	for (int other = 0; other < 3; other++) {
		sim_time_t done[2][2];

		for (int pass = 0; pass < 2; pass++) {
			struct net x = net_new(&topo_switch_ops, 4, LINK_FIDELITY_FLOW);
			struct rx ctrl = { 0 }, data = { 0 };

			g_dataset_set_data(&ctrl, "sim", x.s);
			g_dataset_set_data(&data, "sim", x.s);
			if (pass)
				fabric_send_late(x.f, 0, 1, 0, ROUTE_SHORTEST, late, on_deliver, &ctrl);
			else
				fabric_send(x.f, 0, 1, 0, ROUTE_SHORTEST, on_deliver, &ctrl);
			/* 1 ps in: the header is still on the wire */
			sim_run(x.s, 1, UINT64_MAX);
			if (other)
				fabric_send(x.f, other == 1 ? 0 : 2, 1, 1 << 20, ROUTE_SHORTEST,
					    on_deliver, &data);
			sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
			g_assert_cmpuint(ctrl.calls, ==, 1);
			done[pass][0] = ctrl.done_ps;
			done[pass][1] = data.done_ps;
			g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
			g_dataset_destroy(&ctrl);
			g_dataset_destroy(&data);
			net_free(&x);
		}
		g_assert_cmpuint(done[1][0], ==, done[0][0] + late);
		g_assert_cmpuint(done[1][1], ==, done[0][1]);
	}
}

/* One case of test_send_at: message k of 1 MiB 0 -> 1 that may not send
 * before `at`, sent ahead at 0 (ahead) or at `at` as a plain message, with
 * other messages 0 -> 1: (1) m of 64 KiB at 0, done by `at`; (2) m of 64
 * KiB at `at` / 2; (3) none; m in 16 KiB pieces at 0 of (4) 1 MiB, still
 * sending at `at`, or (5) 256 KiB, done by then; (6) as 4, and x of 64 KiB
 * at `at` / 2. Returns k's delivery, m's and x's in done[0..1];
 * *taken: fabric_send_pieces_at took k. */
static sim_time_t send_at_case(int other, bool ahead, sim_time_t at, sim_time_t done[2],
			       bool *taken)
{
	struct net x = net_new(&topo_ring_uni_ops, 4, LINK_FIDELITY_FLOW);
	struct rx k = { 0 }, m = { 0 }, y = { 0 };
	const uint64_t piece = 16384;

	g_dataset_set_data(&k, "sim", x.s);
	g_dataset_set_data(&m, "sim", x.s);
	g_dataset_set_data(&y, "sim", x.s);
	*taken = false;
	if (other == 1)
		fabric_send(x.f, 0, 1, 64 << 10, ROUTE_SHORTEST, on_deliver, &m);
	if (other >= 4)
		fabric_send_pieces(x.f, 0, 1, other == 5 ? 256 << 10 : 1 << 20, ROUTE_SHORTEST, piece,
				   piece, NULL, on_deliver, &m);
	if (ahead)
		*taken = fabric_send_pieces_at(x.f, 0, 1, 1 << 20, ROUTE_SHORTEST, piece, piece, NULL,
					       on_deliver, &k, at) != 0;
	if (other == 2 || other == 6) {
		sim_run(x.s, at / 2, UINT64_MAX);
		fabric_send(x.f, 0, 1, 64 << 10, ROUTE_SHORTEST, on_deliver, other == 2 ? &m : &y);
	}
	if (!*taken) {
		sim_run(x.s, at, UINT64_MAX);
		fabric_send_pieces(x.f, 0, 1, 1 << 20, ROUTE_SHORTEST, piece, piece, NULL, on_deliver,
				   &k);
	}
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(fabric_in_flight(x.f), ==, 0);
	g_assert_cmpuint(k.last_bytes, ==, 1 << 20);
	done[0] = m.done_ps;
	done[1] = y.done_ps;
	g_dataset_destroy(&k);
	g_dataset_destroy(&m);
	g_dataset_destroy(&y);
	net_free(&x);
	return k.done_ps;
}

/* A message that may not send before a time, sent ahead of it (flow_send_at)
 * where its channel is idle, holds only the end of a message of the same
 * route, or sends one of the same route (it waits behind it), is delivered
 * when the same message sent at that time is, and so are the others; one
 * sent on its channel in between goes first, as it would have. Where its
 * channel holds a message's timed end past that time, or its route has
 * more than one hop, it is not taken. */
static void test_send_at(void)
{
	const sim_time_t at = SIM_US(2);

	for (int other = 1; other <= 6; other++) {
		sim_time_t ref_done[2], got_done[2];
		bool taken;
		sim_time_t ref = send_at_case(other, false, at, ref_done, &taken);
		sim_time_t got = send_at_case(other, true, at, got_done, &taken);

		g_assert_true(taken);
		g_assert_cmpuint(got, ==, ref);
		g_assert_cmpuint(got_done[0], ==, ref_done[0]);
		g_assert_cmpuint(got_done[1], ==, ref_done[1]);
		g_assert_cmpuint(ref, >, at);
		/* 4, 6: it waited for m; 6: for x too */
		if (other == 4 || other == 6)
			g_assert_cmpuint(ref, >, ref_done[0]);
		if (other == 6)
			g_assert_cmpuint(ref_done[1], <, ref);
	}
	/* a message's timed end (a ghost) past `at`: not taken */
	struct net x = net_new(&topo_ring_uni_ops, 4, LINK_FIDELITY_FLOW);
	struct rx r = { 0 };

	g_dataset_set_data(&r, "sim", x.s);
	fabric_send(x.f, 0, 1, 16 << 20, ROUTE_SHORTEST, on_deliver, &r);
	g_assert_false(fabric_may_begin_at(x.f, 0, 1, ROUTE_SHORTEST, at));
	g_assert_cmpuint(fabric_send_pieces_at(x.f, 0, 1, 1 << 20, ROUTE_SHORTEST, 0, 0, NULL,
					       on_deliver, &r, at), ==, 0);
	sim_run(x.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(r.calls, ==, 1);
	g_dataset_destroy(&r);
	net_free(&x);
	/* two hops (through a switch): not taken */
	x = net_new(&topo_switch_ops, 4, LINK_FIDELITY_FLOW);
	g_assert_false(fabric_may_begin_at(x.f, 0, 1, ROUTE_SHORTEST, at));
	net_free(&x);
}

/* The delivery times of four messages of `bytes` into rank 4 of an 8-rank
 * unidirectional ring, from ranks 0, 1, 2 and 3 at once (3, 2, 1 and 0
 * hops forwarded), at fidelity fid. */
static void parking_lot(enum link_fidelity fid, enum link_flow_arbiter arbiter, uint64_t bytes,
			sim_time_t done[4])
{
	struct fabric_config cfg = { .topo = &topo_ring_uni_ops, .nranks = 8, .fidelity = fid,
				     .flow_arbiter = arbiter };
	const struct send sends[] = { { 0, 4, bytes }, { 1, 4, bytes }, { 2, 4, bytes }, { 3, 4, bytes } };

	link_params_default(&cfg.link);
	sends_run(&cfg, sends, 4, done);
}

/* A channel's arbiter serves its inputs round robin, not its flows: on the
 * last channel 3 -> 4 the memory of rank 3 has half of it and the input
 * from 2 the other half, which rank 2's message shares with the two
 * forwarded from further up. In the packet fabric rank 3's message ends
 * first, at twice its time alone, rank 2's next and ranks 0 and 1 last;
 * max-min sharing per flow (flow.arbiter maxmin, the default) ends all
 * four together at four times the time alone. With flow.arbiter
 * round-robin rank 3's message ends within 2 % of packet fidelity's and
 * the order is the packet fabric's; rank 2's ends later than there (about
 * 11 %), as the three flows of one input share it max-min where the packet
 * fabric's FIFO shares it in proportion to what arrives (docs/scale.md),
 * but no message ends further from packet fidelity than with max-min. */
static void test_per_input_share(void)
{
	const uint64_t bytes = 16 << 20;
	sim_time_t pk[4], fl[4], mm[4];

	parking_lot(LINK_FIDELITY_PACKET, LINK_FLOW_MAXMIN, bytes, pk);
	parking_lot(LINK_FIDELITY_FLOW, LINK_FLOW_ROUND_ROBIN, bytes, fl);
	parking_lot(LINK_FIDELITY_FLOW, LINK_FLOW_MAXMIN, bytes, mm);
	sim_time_t t = alone(&topo_ring_uni_ops, 8, LINK_FIDELITY_FLOW, 3, 4, bytes);

	for (int i = 0; i < 4; i++) {
		double e_rr = fabs((double)fl[i] / (double)pk[i] - 1);
		double e_mm = fabs((double)mm[i] / (double)pk[i] - 1);

		g_test_message("from %d: packet %.3f us, round-robin %.3f us, max-min %.3f us", i,
			       (double)pk[i] / 1e6, (double)fl[i] / 1e6, (double)mm[i] / 1e6);
		g_assert_cmpfloat(e_rr, <=, e_mm + 0.005);
		g_assert_cmpfloat((double)mm[i] / (double)t, >, 3.9);
		g_assert_cmpfloat((double)mm[i] / (double)t, <, 4.1);
	}
	g_assert_cmpfloat(fabs((double)fl[3] / (double)pk[3] - 1), <, 0.02);
	g_assert_cmpfloat((double)fl[3] / (double)t, >, 1.9);
	g_assert_cmpfloat((double)fl[3] / (double)t, <, 2.1);
	g_assert_cmpfloat(fabs((double)pk[3] / (double)t - 2), <, 0.1);
	g_assert_cmpuint(fl[3], <, fl[2]);
	g_assert_cmpuint(fl[2], <, fl[1]);
	g_assert_cmpuint(pk[2], <, pk[1]);
	g_assert_cmpuint(pk[2], <, mm[2]);
}

/* flow.arbiter buffers on the same parking lot: the receive buffers as a
 * fluid give the packet fabric's order and its times, rank 2's closer than
 * round robin alone gives it (within 6 % against 11 %), the others within
 * 1 % (docs/scale.md, "Receive buffers as a fluid"). */
static void test_buffers_parking_lot(void)
{
	const uint64_t bytes = 16 << 20;
	sim_time_t pk[4], bf[4], rr[4];

	parking_lot(LINK_FIDELITY_PACKET, LINK_FLOW_MAXMIN, bytes, pk);
	parking_lot(LINK_FIDELITY_FLOW, LINK_FLOW_BUFFERS, bytes, bf);
	parking_lot(LINK_FIDELITY_FLOW, LINK_FLOW_ROUND_ROBIN, bytes, rr);
	for (int i = 0; i < 4; i++) {
		double e = fabs((double)bf[i] / (double)pk[i] - 1);

		g_test_message("from %d: packet %.3f us, buffers %.3f us, round-robin %.3f us", i,
			       (double)pk[i] / 1e6, (double)bf[i] / 1e6, (double)rr[i] / 1e6);
		g_assert_cmpfloat(e, <, i == 2 ? 0.06 : 0.01);
		g_assert_cmpfloat(e, <=, fabs((double)rr[i] / (double)pk[i] - 1) + 0.005);
	}
	g_assert_cmpuint(bf[3], <, bf[2]);
	g_assert_cmpuint(bf[2], <, bf[1]);
	g_assert_cmpuint(bf[2], <, bf[0]);
}

/* Every rank of a ring of n sends one message of `bytes` d ranks on, all
 * at once (a step of pairwise AllToAll without its protocol), at fidelity
 * fid and sharing arbiter: the last delivery and the mean, in us. */
static void shift_run(enum link_fidelity fid, enum link_flow_arbiter arbiter, int n, int d,
		      uint64_t bytes, double *last, double *mean)
{
	struct fabric_config cfg = { .topo = &topo_ring_ops, .nranks = n, .fidelity = fid,
				     .flow_arbiter = arbiter };
	g_autofree struct send *m = g_new(struct send, n);
	g_autofree sim_time_t *done = g_new(sim_time_t, n);
	double sum = 0;

	link_params_default(&cfg.link);
	for (int i = 0; i < n; i++)
		m[i] = (struct send){ i, (i + d) % n, bytes };
	sends_run(&cfg, m, n, done);
	*last = 0;
	for (int i = 0; i < n; i++) {
		g_assert_cmpuint(done[i], >, 0);
		*last = MAX(*last, (double)done[i] / 1e6);
		sum += (double)done[i] / 1e6;
	}
	*mean = sum / n;
}

/* A shift of two hops leaves the links busy at every fidelity. From three
 * hops on, the packet fabric's ranks forward more than their buffers hold:
 * full buffers hold the links upstream, a buffer's room fills with what
 * waits for one output while another waits for room, and the shift takes
 * more than twice its links' time, its messages ending far apart (ring 8,
 * three hops: 251.5 us against 113.0 at max-min). The buffers fluid
 * follows both the last delivery and the mean to within 1 % in each case. */
static void test_buffers_shift(void)
{
	const struct { int n, d; } cases[] = { { 8, 2 }, { 8, 3 }, { 16, 5 } };
	const uint64_t bytes = 16 << 20;

	for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
		int n = cases[k].n, d = cases[k].d;
		double pl, pm, bl, bm, ml, mm;

		shift_run(LINK_FIDELITY_PACKET, LINK_FLOW_MAXMIN, n, d, bytes, &pl, &pm);
		shift_run(LINK_FIDELITY_FLOW, LINK_FLOW_BUFFERS, n, d, bytes, &bl, &bm);
		shift_run(LINK_FIDELITY_FLOW, LINK_FLOW_MAXMIN, n, d, bytes, &ml, &mm);
		g_test_message("ring %d, shift %d: last %.3f / %.3f / %.3f us, mean %.3f / %.3f / "
			       "%.3f us (packet / buffers / max-min)", n, d, pl, bl, ml, pm, bm, mm);
		g_assert_cmpfloat(fabs(bl / pl - 1), <, 0.01);
		g_assert_cmpfloat(fabs(bm / pm - 1), <, 0.01);
		if (d >= 3) {
			g_assert_cmpfloat(pl, >, 2 * ml);
			g_assert_cmpfloat(fabs(bl / pl - 1), <, fabs(ml / pl - 1));
		}
	}
}

/* Messages sent at once on a 2-rank full mesh whose nodes inject at a
 * sixteenth of a link's rate, at fidelity fid: each one's delivery time. */
static void burst_run(enum link_fidelity fid, const uint64_t *bytes, int k, sim_time_t *done)
{
	struct link_params lp;

	link_params_default(&lp);
	struct fabric_config cfg = { .topo = &topo_fullmesh_ops, .nranks = 2, .fidelity = fid,
				     .link = lp, .node = { lp.bw_bytes_per_s / 16, 0 } };
	struct send sends[4];

	g_assert_cmpint(k, <=, 4);
	for (int i = 0; i < k; i++)
		sends[i] = (struct send){ 0, 1, bytes[i] };
	sends_run(&cfg, sends, k, done);
}

/* A node's injection below its link's rate is a clock in the packet
 * fabric that lets a packet go while it is within its slack of now, and
 * then runs ahead by the packet's payload at its rate: a message's first
 * packet goes at the link's rate, the next ones at the injection's, and a
 * message of no payload (a flag) behind a burst waits for the clock. Flow
 * fidelity follows it (size_flow): a one-packet message at the link's
 * rate (sixteen times faster than at injection's), one of 16 packets
 * within a packet's time at injection of the packet fabric, and a flag
 * behind one packet as late as the packet fabric has it. */
static void test_memory_side_burst(void)
{
	static const uint64_t runs[][2] = { { 4096, 0 }, { 65536, 0 }, { 4096, 0 } };
	static const int count[] = { 1, 1, 2 };

	for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
		sim_time_t p[2], fl[2];

		burst_run(LINK_FIDELITY_PACKET, runs[i], count[i], p);
		burst_run(LINK_FIDELITY_FLOW, runs[i], count[i], fl);
		for (int j = 0; j < count[i]; j++) {
			double err = fabs((double)fl[j] / (double)p[j] - 1);

			if (err > 0.01)
				g_error("run %zu, message %d: flow %" G_GUINT64_FORMAT " ps, packet %"
					G_GUINT64_FORMAT " ps", i, j, fl[j], p[j]);
		}
		if (i == 0) {
			/* at the link's rate: well under the 145 ns 4 KiB take at
			 * a sixteenth of it */
			g_assert_cmpuint(fl[0], <, p[0] + 10);
		}
		if (i == 2)
			g_assert_cmpuint(fl[1], >, fl[0] + 100000); /* the flag waited */
	}
}

/* Max-min over a component of many flows, some held by a channel, some
 * by their source's injection or their destination's ejection: on a full
 * mesh of 16 ranks with finite memory sides, an irregular set of pairs
 * sends at once (each pair on its own channel), and every flow's rate is
 * what progressive filling by hand gives. Enough flows and levels that
 * the fill leaves its scan for its heap (fill_next in flow.c). */
/* A message of `bytes`: its payload per wire unit (payload and headers),
 * its weight on a memory side. */
static double payload_per_unit(const struct link_params *lp, uint64_t bytes)
{
	return (double)bytes /
	       ((double)bytes + (double)(bytes / lp->max_payload_bytes) * lp->header_bytes);
}

/* What a channel carries at flow fidelity, wire bytes per ps: its rate, or
 * what its credits or its Go-Back-N window let through if less. */
static double channel_cap(const struct link_params *lp)
{
	double cap = (double)lp->bw_bytes_per_s / 1e12;
	double pkt = lp->max_payload_bytes + lp->header_bytes;
	double full = ceil(pkt * 1e12 / (double)lp->bw_bytes_per_s);

	cap = MIN(cap, lp->credits * pkt / (full + (double)lp->lat_ps + (double)lp->credit_return_ps));
	return MIN(cap, lp->gbn_window * pkt / (full + 2.0 * (double)lp->lat_ps));
}

static void test_max_min_many(void)
{
	enum { N = 16 };
	const uint64_t bytes = 64 << 20;
	struct link_params lp;

	link_params_default(&lp);
	struct fabric_config cfg = { .topo = &topo_fullmesh_ops, .nranks = N,
				     .fidelity = LINK_FIDELITY_FLOW, .link = lp,
				     .node = { 3 * lp.bw_bytes_per_s, 2 * lp.bw_bytes_per_s } };
	struct sim *s = sim_new(1);
	struct fabric *f = fabric_new(s, &cfg, NULL);
	struct rx r[N][N] = { { { 0 } } };
	int src[N * N], dst[N * N], nf = 0;

	g_assert_nonnull(f);
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++)
			if (a != b && (a * 31 + b * 17 + a * b) % 13 < a % 6 + b % 5) {
				g_dataset_set_data(&r[a][b], "sim", s);
				fabric_send(f, a, b, bytes, ROUTE_SHORTEST, on_deliver, &r[a][b]);
				src[nf] = a;
				dst[nf++] = b;
			}
	sim_run(s, 1000, UINT64_MAX);

	/* by hand: a flow sends wire units (payload and headers) at its rate,
	 * each a unit of its channel and payload / wire of a memory side */
	double w = payload_per_unit(&lp, bytes);
	double cap_ch = channel_cap(&lp);
	double cap_in = 3 * ((double)lp.bw_bytes_per_s / 1e12), cap_ej = 2 * ((double)lp.bw_bytes_per_s / 1e12);
	double rate[N * N], used_in[N] = { 0 }, used_ej[N] = { 0 };
	int left_in[N] = { 0 }, left_ej[N] = { 0 }, levels = 0;
	bool frozen[N * N] = { false };

	for (int i = 0; i < nf; i++) {
		left_in[src[i]]++;
		left_ej[dst[i]]++;
	}
	for (int done = 0; done < nf; levels++) {
		double level = cap_ch;

		for (int k = 0; k < N; k++) {
			if (left_in[k])
				level = MIN(level, (cap_in - used_in[k]) / (w * left_in[k]));
			if (left_ej[k])
				level = MIN(level, (cap_ej - used_ej[k]) / (w * left_ej[k]));
		}
		bool tight_in[N], tight_ej[N];

		for (int k = 0; k < N; k++) {
			tight_in[k] = left_in[k] && (cap_in - used_in[k]) / (w * left_in[k]) <= level * (1 + 1e-12);
			tight_ej[k] = left_ej[k] && (cap_ej - used_ej[k]) / (w * left_ej[k]) <= level * (1 + 1e-12);
		}
		for (int i = 0; i < nf; i++) {
			if (frozen[i] || !(tight_in[src[i]] || tight_ej[dst[i]] || level == cap_ch))
				continue;
			frozen[i] = true;
			rate[i] = level;
			used_in[src[i]] += level * w;
			used_ej[dst[i]] += level * w;
			left_in[src[i]]--;
			left_ej[dst[i]]--;
			done++;
		}
	}
	g_test_message("%d flows, %d levels", nf, levels);
	g_assert_cmpint(nf, >, 60);
	g_assert_cmpint(levels, >, 8);
	for (int i = 0; i < nf; i++) {
		double got = fabric_channel_rate(f, fabric_channel_find(f, src[i], dst[i]));

		g_assert_cmpfloat(fabs(got / rate[i] - 1), <, 1e-9);
	}
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++)
			g_dataset_destroy(&r[a][b]);
	fabric_free(f);
	sim_free(s);
}

/* A memory side that two flows fill holds both at half of it; when one
 * ends, the other takes all its channel (the side can no longer fill),
 * and a third that joins fills it again. */
static void test_memory_side_frees(void)
{
	const uint64_t big = 64 << 20, small = 16 << 20;
	struct link_params lp;

	link_params_default(&lp);
	double bw = (double)lp.bw_bytes_per_s / 1e12;
	struct fabric_config cfg = { .topo = &topo_fullmesh_ops, .nranks = 4,
				     .fidelity = LINK_FIDELITY_FLOW, .link = lp,
				     .node = { (uint64_t)(1.5 * (double)lp.bw_bytes_per_s), 0 } };
	struct sim *s = sim_new(1);
	struct fabric *f = fabric_new(s, &cfg, NULL);
	struct rx a = { 0 }, b = { 0 }, c = { 0 };
	double cap_ch = channel_cap(&lp), w = payload_per_unit(&lp, big);
	int ch[4];

	g_assert_nonnull(f);
	g_assert_cmpfloat(cap_ch * w, <, 1.5 * bw);
	g_assert_cmpfloat(cap_ch * w, >, 0.75 * bw);
	for (int d = 1; d < 4; d++)
		ch[d] = fabric_channel_find(f, 0, d);
	g_dataset_set_data(&a, "sim", s);
	g_dataset_set_data(&b, "sim", s);
	g_dataset_set_data(&c, "sim", s);
	fabric_send(f, 0, 1, big, ROUTE_SHORTEST, on_deliver, &a);
	fabric_send(f, 0, 2, small, ROUTE_SHORTEST, on_deliver, &b);
	sim_run(s, 1000, UINT64_MAX);
	/* both held by the memory side: half of it each, in wire units */
	double held = 1.5 * bw / (2 * w);

	g_assert_cmpfloat(fabs(fabric_channel_rate(f, ch[1]) / held - 1), <, 1e-9);
	g_assert_cmpfloat(fabs(fabric_channel_rate(f, ch[2]) / held - 1), <, 1e-9);
	/* b ends after small / w wire units at that rate; a goes on alone */
	sim_time_t t_b = (sim_time_t)((double)small / payload_per_unit(&lp, small) / held);

	sim_run(s, t_b + t_b / 5, UINT64_MAX);
	g_assert_cmpuint(b.done_ps, >, 0);
	g_assert_cmpuint(a.done_ps, ==, 0);
	g_assert_cmpfloat(fabs(fabric_channel_rate(f, ch[1]) / cap_ch - 1), <, 1e-9);
	/* a third of a's size: the side fills again */
	fabric_send(f, 0, 3, big, ROUTE_SHORTEST, on_deliver, &c);
	sim_run(s, sim_now(s) + 1000, UINT64_MAX);
	g_assert_cmpfloat(fabs(fabric_channel_rate(f, ch[1]) / held - 1), <, 1e-9);
	g_assert_cmpfloat(fabs(fabric_channel_rate(f, ch[3]) / held - 1), <, 1e-9);
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(a.done_ps, >, 0);
	g_assert_cmpuint(c.done_ps, >, a.done_ps);
	g_dataset_destroy(&a);
	g_dataset_destroy(&b);
	g_dataset_destroy(&c);
	fabric_free(f);
	sim_free(s);
}

/* A message sent at a time (walk_case). */
struct send_at {
	int src, dst;
	uint64_t bytes;
	sim_time_t at;
};

/* What a run of walk_case saw: every channel's rate sampled every
 * microsecond, each message's delivery, and what max-min's walks did. */
enum { WALK_MSGS = 256 };

struct walk_run {
	GArray *rates; /* of double: channels per sample */
	sim_time_t done[WALK_MSGS];
	struct flow_walk_stats st;
};

/* The k messages of `sends` (each at its time, a whole microsecond) on
 * cfg's fabric, the sharing walking whole components or not. */
static void walk_case(const struct fabric_config *cfg, const struct send_at *sends, int k,
		      bool whole, struct walk_run *out)
{
	const sim_time_t step = 1000000;
	struct sim *s = sim_new(1);
	struct fabric *f;
	struct rx *r = g_new0(struct rx, WALK_MSGS);
	int left = k;

	g_assert_cmpint(k, <=, WALK_MSGS);
	flow_whole_components(whole);
	f = fabric_new(s, cfg, NULL);
	g_assert_nonnull(f);
	out->rates = g_array_new(FALSE, FALSE, sizeof(double));
	for (sim_time_t t = 0; left; t += step) {
		for (int i = 0; i < k; i++) {
			if (sends[i].at != t)
				continue;
			g_dataset_set_data(&r[i], "sim", s);
			fabric_send(f, sends[i].src, sends[i].dst, sends[i].bytes, ROUTE_SHORTEST,
				    on_deliver, &r[i]);
		}
		sim_run(s, t + step, UINT64_MAX);
		for (int c = 0; c < fabric_channels(f); c++) {
			double rate = fabric_channel_rate(f, c);

			g_array_append_val(out->rates, rate);
		}
		left = 0;
		for (int i = 0; i < k; i++)
			left += !r[i].done_ps;
		g_assert_cmpuint(t, <, 1000 * step);
	}
	for (int i = 0; i < k; i++) {
		out->done[i] = r[i].done_ps;
		g_dataset_destroy(&r[i]);
	}
	g_free(r);
	fabric_flow_walk_stats(f, &out->st);
	fabric_free(f);
	sim_free(s);
	flow_whole_components(false);
}

/* walk_case of `sends` both ways: the same rates at every sample (to
 * rounding) and the same deliveries (to the picoseconds' rounding); the
 * walks that went only through full resources are returned in *part. */
static void walk_compare(const struct fabric_config *cfg, const char *what,
			 const struct send_at *sends, int k, struct flow_walk_stats *part_st)
{
	struct walk_run part, whole;
	double worst = 0;
	sim_time_t late = 0;

	walk_case(cfg, sends, k, false, &part);
	walk_case(cfg, sends, k, true, &whole);
	g_test_message("%s: %" G_GUINT64_FORMAT " reshares, %" G_GUINT64_FORMAT " fills, %" G_GUINT64_FORMAT
		       " flows, %" G_GUINT64_FORMAT " resources left out, %" G_GUINT64_FORMAT
		       " resources and %" G_GUINT64_FORMAT " flows joined (whole components: %" G_GUINT64_FORMAT
		       " flows)",
		       what, part.st.reshares, part.st.fills, part.st.flows, part.st.left_out,
		       part.st.joins, part.st.flow_joins, whole.st.flows);
	g_assert_cmpuint(part.rates->len, ==, whole.rates->len);
	for (guint i = 0; i < part.rates->len; i++) {
		double a = g_array_index(part.rates, double, i);
		double b = g_array_index(whole.rates, double, i);

		g_assert_cmpfloat(a > 0, ==, b > 0);
		if (b > 0)
			worst = MAX(worst, fabs(a / b - 1));
	}
	for (int i = 0; i < k; i++) {
		sim_time_t d = part.done[i] > whole.done[i] ? part.done[i] - whole.done[i]
							    : whole.done[i] - part.done[i];

		late = MAX(late, d);
	}
	g_test_message("largest rate difference %.3g, delivery %" G_GUINT64_FORMAT " ps", worst,
		       (guint64)late);
	g_assert_cmpfloat(worst, <, 1e-12);
	/* rates apart in their last bits move a boundary's rounding to the
	 * picosecond, and that can pass on down a pair's deliveries */
	g_assert_cmpuint(late, <=, 10);
	g_assert_cmpuint(whole.st.left_out, ==, 0);
	*part_st = part.st;
	g_array_unref(part.rates);
	g_array_unref(whole.rates);
}

/* Max-min's walk goes on only through full resources, and a resource with
 * room that the new rates overfill joins it: every rate is the one the
 * whole component's fill gives (to rounding), at every sample of a run.
 * (1) Four flows on a full mesh whose sides take 0.8 of a link (injection)
 * and a link (ejection): 0 -> 1 and 0 -> 2 share 0's injection, 3 -> 2 and
 * 3 -> 4 share 3's, and 2's ejection has room. When 0 -> 1 ends, 0 -> 2
 * would take all of 0's side, which 2's ejection has no room for: that
 * side joins the walk, and 0 -> 2 gets what 3 -> 2 leaves of it. (2) 48
 * messages starting in two waves, on a full mesh and on a torus. (3) A
 * full ejection side with a flow of the walk and a slower one held
 * elsewhere, which the walk leaves out until the flow of the walk goes
 * slower than it. (4) Every
 * rank of a torus of 16 with the seed platform's memory sides sends 4 MiB
 * to every other at once (direct AllGather's messages). */
static void test_walk_full_resources(void)
{
	const struct topo_ops *kinds[] = { &topo_fullmesh_ops, &topo_torus_ops };
	struct flow_walk_stats st;
	struct link_params lp;

	link_params_default(&lp);
	struct fabric_config cfg = { .topo = &topo_fullmesh_ops, .nranks = 5,
				     .fidelity = LINK_FIDELITY_FLOW, .link = lp,
				     .node = { 4 * lp.bw_bytes_per_s / 5, lp.bw_bytes_per_s } };
	const struct send_at four[] = {
		{ 0, 1, 4 << 20, 0 }, { 0, 2, 64 << 20, 0 }, { 3, 2, 64 << 20, 0 }, { 3, 4, 64 << 20, 0 },
	};

	walk_compare(&cfg, "overfilled side", four, 4, &st);
	g_assert_cmpuint(st.joins, >, 0);
	/* by hand, after 0 -> 1 ends: 3 -> 2 holds half of 3's side, 0 -> 2
	 * the rest of 2's (payload per ps), below 0's side and its link */
	{
		struct sim *s = sim_new(1);
		struct fabric *f = fabric_new(s, &cfg, NULL);
		struct rx r[4] = { { 0 } };
		double bw = (double)lp.bw_bytes_per_s / 1e12, w = payload_per_unit(&lp, 64 << 20);

		for (int i = 0; i < 4; i++) {
			g_dataset_set_data(&r[i], "sim", s);
			fabric_send(f, four[i].src, four[i].dst, four[i].bytes, ROUTE_SHORTEST, on_deliver,
				    &r[i]);
		}
		while (!r[0].done_ps)
			sim_run(s, sim_now(s) + 1000000, UINT64_MAX);
		double d02 = fabric_channel_rate(f, fabric_channel_find(f, 0, 2));

		g_assert_cmpfloat(fabs(d02 * w / (bw - 0.4 * bw) - 1), <, 1e-4); /* the sides
		* weigh a message's first bytes a little less (flow.c, size_flow) */
		g_assert_cmpfloat(d02, <, channel_cap(&lp) * 0.99);
		sim_run(s, SIM_TIME_MAX, UINT64_MAX);
		for (int i = 0; i < 4; i++)
			g_dataset_destroy(&r[i]);
		fabric_free(f);
		sim_free(s);
	}
	{
		/* 7's ejection holds 0 -> 7 and is full; 1 -> 7 and 6 -> 7 go
		 * slower, held by their sources' injection (five and three
		 * flows); as 1's other flows end, 1 -> 7 speeds up and 0 -> 7
		 * slows down below 6 -> 7, which then gives up some of its
		 * share of 7's ejection too */
		const struct send_at seven[] = {
			{ 0, 7, 64 << 20, 0 }, { 1, 7, 64 << 20, 0 }, { 6, 7, 64 << 20, 0 },
			{ 1, 2, 1 << 20, 0 },  { 1, 3, 2 << 20, 0 },  { 1, 4, 3 << 20, 0 },
			{ 1, 5, 4 << 20, 0 },  { 6, 0, 64 << 20, 0 }, { 6, 1, 64 << 20, 0 },
		};

		cfg.nranks = 8;
		cfg.node = (struct node_params){ lp.bw_bytes_per_s, 19 * lp.bw_bytes_per_s / 20 };
		walk_compare(&cfg, "slower flow held", seven, G_N_ELEMENTS(seven), &st);
		g_assert_cmpuint(st.flow_joins, >, 0);
	}
	for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
		struct send_at sends[WALK_MSGS];

		cfg.topo = kinds[k];
		cfg.nranks = 16;
		cfg.node = (struct node_params){ 2 * lp.bw_bytes_per_s, 2 * lp.bw_bytes_per_s };
		for (int i = 0; i < WALK_MSGS; i++) {
			int src = (i * 7 + 3) % 16;

			sends[i] = (struct send_at){ src, (src + 1 + (i * 5) % 15) % 16,
						     (uint64_t)(1 + (i * 37) % 11) << 20,
						     i < 32 ? 0 : 20000000 };
		}
		walk_compare(&cfg, kinds[k]->name, sends, 48, &st);
		g_assert_cmpuint(st.left_out, >, 0);
		g_assert_cmpuint(st.joins, >, 0);
	}
	{
		struct send_at sends[WALK_MSGS];
		int k = 0;

		cfg.topo = &topo_torus_ops;
		cfg.node = (struct node_params){ 1000000000000ull, 1000000000000ull }; /* the seed's */
		for (int a = 0; a < 16; a++)
			for (int b = 0; b < 16; b++)
				if (a != b)
					sends[k++] = (struct send_at){ a, b, (uint64_t)(1 + (a + b) % 3) << 22,
								       (sim_time_t)((a * 5 + b * 3) % 8) * 1000000 };
		walk_compare(&cfg, "torus all pairs", sends, k, &st);
		g_assert_cmpuint(st.joins, >, 0);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/flow/alone-matches-packets", test_alone_matches_packets);
	g_test_add_func("/flow/fair-share", test_fair_share);
	g_test_add_func("/flow/header-unshared", test_header_unshared);
	g_test_add_func("/flow/memory-side-burst", test_memory_side_burst);
	g_test_add_func("/flow/memory-fifo", test_memory_fifo);
	g_test_add_func("/flow/switch-pass", test_switch_pass);
	g_test_add_func("/flow/rank-pass", test_rank_pass);
	g_test_add_func("/flow/rank-held", test_rank_held);
	g_test_add_func("/flow/flag-behind", test_flag_behind);
	g_test_add_func("/flow/in-order-per-pair", test_in_order_per_pair);
	g_test_add_func("/flow/in-order-many-peers", test_in_order_many_peers);
	g_test_add_func("/flow/pieces", test_pieces);
	g_test_add_func("/flow/pieces-one-event", test_pieces_one_event);
	g_test_add_func("/flow/slack-pieces", test_slack_pieces);
	g_test_add_func("/flow/early", test_early);
	g_test_add_func("/flow/append", test_append);
	g_test_add_func("/flow/send-late", test_send_late);
	g_test_add_func("/flow/send-at", test_send_at);
	g_test_add_func("/flow/drain", test_drain);
	g_test_add_func("/flow/deterministic", test_deterministic);
	g_test_add_func("/flow/per-input-share", test_per_input_share);
	g_test_add_func("/flow/buffers-parking-lot", test_buffers_parking_lot);
	g_test_add_func("/flow/buffers-shift", test_buffers_shift);
	g_test_add_func("/flow/max-min-many", test_max_min_many);
	g_test_add_func("/flow/memory-side-frees", test_memory_side_frees);
	g_test_add_func("/flow/walk-full-resources", test_walk_full_resources);
	return g_test_run();
}
