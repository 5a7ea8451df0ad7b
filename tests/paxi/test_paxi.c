/* Tests of sim/paxi: a lone Transfer and a lone Send/Recv take exactly the sum
 * of their parts; slots and setup serialise; reductions queue per node. */
#include <glib.h>

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

static sim_time_t ser(uint64_t bytes, uint64_t bw)
{
	return (sim_time_t)(((unsigned __int128)bytes * 1000000000000ull + bw - 1) / bw);
}

/* Serialisation of a message of n payload bytes in packets. */
static sim_time_t msg_ser(const struct link_params *l, uint64_t n)
{
	sim_time_t t = 0;

	if (n == 0)
		return ser(l->header_bytes, l->bw_bytes_per_s);
	while (n) {
		uint64_t p = MIN(n, (uint64_t)l->max_payload_bytes);

		t += ser(p + l->header_bytes, l->bw_bytes_per_s);
		n -= p;
	}
	return t;
}

static void setup(struct sim **s, struct fabric **f, struct paxi **x, struct fabric_config *fc,
		  struct paxi_params *pp)
{
	GError *err = NULL;

	*s = sim_new(1);
	*f = fabric_new(*s, fc, &err);
	g_assert_no_error(err);
	*x = paxi_new(*s, *f, pp, &err);
	g_assert_no_error(err);
}

static void two_nodes(struct fabric_config *fc, struct paxi_params *pp)
{
	memset(fc, 0, sizeof(*fc));
	fc->kind = TOPO_RING;
	fc->nranks = 2;
	link_params_default(&fc->link);
	fc->switch_link = fc->link;
	paxi_params_default(pp);
}

static void test_lone_transfer(void)
{
	static const uint64_t sizes[] = { 0, 1, 4096, 100000, 64ull << 20 };

	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		struct fabric_config fc;
		struct paxi_params pp;
		struct sim *s;
		struct fabric *f;
		struct paxi *x;

		two_nodes(&fc, &pp);
		setup(&s, &f, &x, &fc, &pp);
		struct probe src = { .s = s }, dst = { .s = s };
		struct paxi_txn *t = paxi_txn_new(x, PAXI_TRANSFER, 0, 1, 0, sizes[i], &probe_ops, &src, &dst);

		paxi_txn_post(t);
		paxi_txn_start(t);
		paxi_txn_supply(t, sizes[i]);
		sim_run(s, SIM_TIME_MAX, UINT64_MAX);
		const struct link_params *l = &fc.link;
		sim_time_t data = pp.setup_ps + msg_ser(l, sizes[i]) + l->lat_ps;
		sim_time_t resp = msg_ser(l, 0) + l->lat_ps + pp.ctrl_proc_ps;

		g_assert_cmpuint(dst.usable_all, ==, data);
		g_assert_cmpuint(src.sent, ==, data + resp);
		g_assert_cmpuint(dst.last_usable, ==, sizes[i]);
		/* usable per slice: at least one report per slice */
		g_assert_cmpuint(dst.slices, >=, sizes[i] / pp.slice_bytes);
		paxi_free(x);
		fabric_free(f);
		sim_free(s);
	}
}

static void test_lone_sendrecv(void)
{
	static const uint64_t sizes[] = { 0, 1, 4096, 100000, 64ull << 20 };

	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		for (int post_late = 0; post_late < 2; post_late++) {
			struct fabric_config fc;
			struct paxi_params pp;
			struct sim *s;
			struct fabric *f;
			struct paxi *x;

			two_nodes(&fc, &pp);
			setup(&s, &f, &x, &fc, &pp);
			struct probe src = { .s = s }, dst = { .s = s };
			struct paxi_txn *t = paxi_txn_new(x, PAXI_SENDRECV, 0, 1, 0, sizes[i], &probe_ops,
							  &src, &dst);
			const struct link_params *l = &fc.link;
			sim_time_t ctrl = msg_ser(l, 0) + l->lat_ps + pp.ctrl_proc_ps;
			sim_time_t late = SIM_US(50);

			paxi_txn_start(t);
			paxi_txn_supply(t, sizes[i]);
			if (post_late) {
				/* the receive is posted long after the RTS arrived */
				sim_run(s, late, UINT64_MAX);
				paxi_txn_post(t);
			} else {
				paxi_txn_post(t);
			}
			sim_run(s, SIM_TIME_MAX, UINT64_MAX);
			sim_time_t cts_at = post_late ? late + ctrl : pp.setup_ps + 2 * ctrl;
			/* data then the flag behind it on the same channel */
			sim_time_t flag = cts_at + msg_ser(l, sizes[i]) + msg_ser(l, 0) + l->lat_ps +
					  pp.ctrl_proc_ps;

			g_assert_cmpuint(dst.usable_all, ==, flag);
			g_assert_cmpuint(dst.slices, ==, 1); /* usable only at completion */
			g_assert_cmpuint(src.sent, ==, flag + ctrl);
			paxi_free(x);
			fabric_free(f);
			sim_free(s);
		}
	}
}

static void test_slots_and_setup(void)
{
	/* One slot: the second transaction's setup starts when the first's
	 * completion response has come back. */
	struct fabric_config fc;
	struct paxi_params pp;
	struct sim *s;
	struct fabric *f;
	struct paxi *x;

	two_nodes(&fc, &pp);
	pp.slots = 1;
	setup(&s, &f, &x, &fc, &pp);
	struct probe a = { .s = s }, b = { .s = s }, da = { .s = s }, db = { .s = s };
	struct paxi_txn *t1 = paxi_txn_new(x, PAXI_TRANSFER, 0, 1, 0, 4096, &probe_ops, &a, &da);
	struct paxi_txn *t2 = paxi_txn_new(x, PAXI_TRANSFER, 0, 1, 0, 4096, &probe_ops, &b, &db);

	paxi_txn_start(t1);
	paxi_txn_supply(t1, 4096);
	paxi_txn_start(t2);
	paxi_txn_supply(t2, 4096);
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(db.usable_all, ==, a.sent + pp.setup_ps + msg_ser(&fc.link, 4096) + fc.link.lat_ps);
	paxi_free(x);
	fabric_free(f);
	sim_free(s);

	/* Two slots: setups run back to back on the one descriptor engine. */
	two_nodes(&fc, &pp);
	pp.slots = 2;
	setup(&s, &f, &x, &fc, &pp);
	struct probe c = { .s = s }, d = { .s = s }, dc = { .s = s }, dd = { .s = s };
	struct paxi_txn *t3 = paxi_txn_new(x, PAXI_TRANSFER, 0, 1, 0, 0, &probe_ops, &c, &dc);
	struct paxi_txn *t4 = paxi_txn_new(x, PAXI_TRANSFER, 0, 1, 0, 0, &probe_ops, &d, &dd);

	paxi_txn_start(t3);
	paxi_txn_supply(t3, 0);
	paxi_txn_start(t4);
	paxi_txn_supply(t4, 0);
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(dd.usable_all - dc.usable_all, ==, pp.setup_ps);
	paxi_free(x);
	fabric_free(f);
	sim_free(s);
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
	struct fabric_config fc;
	struct paxi_params pp;
	struct sim *s;
	struct fabric *f;
	struct paxi *x;

	two_nodes(&fc, &pp);
	pp.reduce_bytes_per_s = 1000000000000ull; /* 1 byte per ps */
	setup(&s, &f, &x, &fc, &pp);
	struct red_probe p = { .s = s };

	paxi_reduce(x, 0, 1000, on_red, &p);
	paxi_reduce(x, 0, 500, on_red, &p);
	paxi_reduce(x, 1, 100, on_red, &p); /* another node: in parallel */
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpint(p.n, ==, 3);
	g_assert_cmpuint(p.at[0], ==, 100);
	g_assert_cmpuint(p.at[1], ==, 1000);
	g_assert_cmpuint(p.at[2], ==, 1500);
	g_assert_cmpuint(paxi_stats(x)->reduced_bytes, ==, 1600);
	paxi_free(x);
	fabric_free(f);
	sim_free(s);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/paxi/transfer/lone-sum-of-parts", test_lone_transfer);
	g_test_add_func("/paxi/sendrecv/lone-sum-of-parts", test_lone_sendrecv);
	g_test_add_func("/paxi/cdma/slots-and-setup", test_slots_and_setup);
	g_test_add_func("/paxi/reduce/queue-per-node", test_reduce_queue);
	return g_test_run();
}
