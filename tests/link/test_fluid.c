/* Tests of the event-driven fluid of receive buffers (sim/link/fluid.h)
 * against the packet fabric: the same messages, sent at once on a ring of
 * the seed's links, end at the times packet fidelity gives them, last and
 * on average, to within 1 %, where ranks forward more than their buffers
 * hold (shifts of three hops and more on rings, every rank to every other
 * on rings, a switch, a torus and a hypercube), with unlimited buffers,
 * and in the parking lot of a one-way ring; in tens to thousands of events
 * where the packet fabric takes hundreds of thousands to millions. The
 * fluid's buffers are the packet fabric's less the credits' loop (the
 * links' latency and the credits' return) at the channels' rate. */
#include <glib.h>
#include <math.h>

#include "sim/core/sim.h"
#include "sim/link/fluid.h"
#include "sim/link/link.h"
#include "sim/link/topo.h"
#include "sim/link/topos.h"
#include "tests/support/sends.h"

/* The fabric of the cases: a topology of n ranks with the seed's links,
 * `credits` a receive buffer (0: unlimited). */
struct shape {
	const struct topo_ops *topo;
	int n;
	uint32_t credits;
};

static void shape_config(struct fabric_config *cfg, const struct shape *sh, enum link_fidelity fid)
{
	*cfg = (struct fabric_config){ .topo = sh->topo, .nranks = sh->n, .fidelity = fid };
	link_params_default(&cfg->link);
	cfg->link.credits = sh->credits;
}

/* The messages at packet fidelity, sent at once in order: each one's
 * delivery, us. */
static void packet_times(const struct shape *sh, const struct send *m, int k, double *us,
			 uint64_t *events)
{
	struct fabric_config cfg;
	g_autofree sim_time_t *done = g_new(sim_time_t, k);

	shape_config(&cfg, sh, LINK_FIDELITY_PACKET);
	*events = sends_run(&cfg, m, k, done);
	for (int i = 0; i < k; i++) {
		g_assert_cmpuint(done[i], >, 0);
		us[i] = (double)done[i] / 1e6;
	}
}

/* The same messages in the fluid of the same fabric. */
static void fluid_times(const struct shape *sh, const struct send *m, int k, double *us,
			struct fluid_stats *st)
{
	struct fabric_config cfg;
	GError *error = NULL;

	shape_config(&cfg, sh, LINK_FIDELITY_FLOW);
	struct fluid *fl = fluid_new_fabric(&cfg, &error);

	g_assert_no_error(error);
	for (int i = 0; i < k; i++)
		g_assert_cmpuint(fluid_send(fl, m[i].src, m[i].dst, m[i].bytes), ==, (guint)i);
	g_assert_true(fluid_run(fl));
	for (int i = 0; i < k; i++) {
		us[i] = fluid_done_ps(fl, (uint32_t)i) / 1e6;
		g_assert_cmpfloat(us[i], >, 0);
	}
	fluid_get_stats(fl, st);
	fluid_free(fl);
}

/* The fluid's last and mean delivery within tol of packet fidelity's, in
 * a hundredth of its events or fewer. */
static void compare(const char *what, const struct shape *sh, const struct send *m, int k, double tol)
{
	g_autofree double *pk = g_new(double, k);
	g_autofree double *fl = g_new(double, k);
	uint64_t pev;
	struct fluid_stats st;
	double pl = 0, pm = 0, fll = 0, fm = 0;

	packet_times(sh, m, k, pk, &pev);
	fluid_times(sh, m, k, fl, &st);
	for (int i = 0; i < k; i++) {
		pl = MAX(pl, pk[i]);
		fll = MAX(fll, fl[i]);
		pm += pk[i] / k;
		fm += fl[i] / k;
	}
	g_test_message("%s: last %.3f / %.3f us, mean %.3f / %.3f us (packet / fluid); events "
		       "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT ", rounds %" G_GUINT64_FORMAT
		       ", unsettled %" G_GUINT64_FORMAT, what, pl, fll, pm, fm, pev, st.events,
		       st.rounds, st.unsettled);
	g_assert_cmpfloat(fabs(fll / pl - 1), <, tol);
	g_assert_cmpfloat(fabs(fm / pm - 1), <, tol);
	g_assert_cmpuint(st.events * 100, <, pev);
}

/* Every rank sends one message d ranks on (a step of pairwise AllToAll
 * without its protocol). From three hops on, the ranks forward more than
 * their buffers hold, and the packet fabric takes two to four times the
 * links' time (ring 32, eight hops: 1187.9 us against 301.5). */
static void test_shift(void)
{
	const struct { int n, d; uint64_t bytes; } cases[] = {
		{ 8, 2, 16 << 20 }, { 8, 3, 16 << 20 }, { 16, 5, 16 << 20 }, { 32, 8, 16 << 20 },
		{ 64, 16, 4 << 20 },
	};

	for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
		int n = cases[c].n;
		g_autofree struct send *m = g_new(struct send, n);
		g_autofree char *what = g_strdup_printf("ring %d, shift %d", n, cases[c].d);

		for (int i = 0; i < n; i++)
			m[i] = (struct send){ i, (i + cases[c].d) % n, cases[c].bytes };
		compare(what, &(struct shape){ &topo_ring_ops, n, 64 }, m, n, 0.01);
	}
}

/* With unlimited buffers nothing holds a link back: the shift of three hops
 * takes its links' time at both fidelities. */
static void test_unlimited(void)
{
	struct send m[8];

	for (int i = 0; i < 8; i++)
		m[i] = (struct send){ i, (i + 3) % 8, 16 << 20 };
	compare("ring 8, shift 3, unlimited buffers", &(struct shape){ &topo_ring_ops, 8, 0 }, m, 8,
		0.01);
}

/* Four ranks of a one-way ring into rank 4: each channel serves its memory
 * and its upstream input in turn, so the message from 3 ends first, at
 * twice its time alone, and those forwarded furthest last. */
static void test_parking_lot(void)
{
	const struct send m[] = { { 0, 4, 16 << 20 }, { 1, 4, 16 << 20 }, { 2, 4, 16 << 20 },
				 { 3, 4, 16 << 20 } };

	compare("ring-uni 8, 0..3 into 4", &(struct shape){ &topo_ring_uni_ops, 8, 64 }, m, 4, 0.01);
}

/* Every rank to every other, its messages in line on each channel in
 * order of distance. */
static void test_all_to_all(void)
{
	const struct { const struct topo_ops *topo; int n; uint64_t bytes; } cases[] = {
		{ &topo_ring_ops, 8, 2 << 20 }, { &topo_ring_ops, 16, 1 << 20 },
		{ &topo_switch_ops, 8, 4 << 20 },
	};

	for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
		int n = cases[c].n, k = 0;
		g_autofree struct send *m = g_new(struct send, n * (n - 1));
		g_autofree char *what = g_strdup_printf("%s %d, every rank to every other",
							cases[c].topo->name, n);

		for (int i = 0; i < n; i++)
			for (int j = 1; j < n; j++)
				m[k++] = (struct send){ i, (i + j) % n, cases[c].bytes };
		compare(what, &(struct shape){ cases[c].topo, n, 64 }, m, k, 0.01);
	}
}

/* Every rank to every other where a node has four channels: the torus's
 * dimension order and the hypercube's. */
static void test_four_ports(void)
{
	const struct topo_ops *topos[] = { &topo_torus_ops, &topo_hypercube_ops };

	for (guint t = 0; t < G_N_ELEMENTS(topos); t++) {
		struct send m[16 * 15];
		int k = 0;
		g_autofree char *what = g_strdup_printf("%s 16, every rank to every other",
							topos[t]->name);

		for (int i = 0; i < 16; i++)
			for (int j = 1; j < 16; j++)
				m[k++] = (struct send){ i, (i + j) % 16, 4 << 20 };
		compare(what, &(struct shape){ topos[t], 16, 64 }, m, k, 0.01);
	}
}

/* The ring of 8's shift of three hops in a fluid of fluid_new_fabric. */
static struct fluid *shift_fluid(void)
{
	struct fabric_config cfg;
	GError *error = NULL;

	shape_config(&cfg, &(struct shape){ &topo_ring_ops, 8, 64 }, LINK_FIDELITY_FLOW);
	struct fluid *f = fluid_new_fabric(&cfg, &error);

	g_assert_no_error(error);
	return f;
}

/* Moves f on event by event until every flow it has is delivered, taking
 * what changed at each, as a simulation that runs it by steps would; how
 * many flows were listed as changed. */
static guint run_by_steps(struct fluid *f)
{
	g_autoptr(GArray) seen = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	double t;

	while (isfinite(t = fluid_next_ps(f))) {
		fluid_advance(f, t);
		fluid_take_changed(f, seen);
	}
	return seen->len;
}

/* Run by steps, a fluid gives what fluid_run gives, a second wave of the
 * same messages sent once the first is delivered takes the same time
 * again from its start, and each flow's state reads as delivered. */
static void test_steps(void)
{
	struct fluid *whole = shift_fluid(), *f = shift_fluid();
	double first[8], end = 0;

	for (int i = 0; i < 8; i++) {
		fluid_send(whole, i, (i + 3) % 8, 16 << 20);
		fluid_send(f, i, (i + 3) % 8, 16 << 20);
	}
	g_assert_true(fluid_run(whole));
	g_assert_cmpuint(run_by_steps(f), >=, 8);
	for (int i = 0; i < 8; i++) {
		struct fluid_flow_state st;

		first[i] = fluid_done_ps(whole, (uint32_t)i);
		g_assert_cmpfloat(fluid_done_ps(f, (uint32_t)i), ==, first[i]);
		fluid_state(f, (uint32_t)i, &st);
		g_assert_true(st.done && !st.in_line);
		g_assert_cmpfloat(st.rate, ==, 0);
		g_assert_cmpfloat(st.rem, ==, 0);
		end = MAX(end, first[i]);
	}
	double start = end + 1e6;

	fluid_advance(f, start);
	for (int i = 0; i < 8; i++)
		g_assert_cmpuint(fluid_send(f, i, (i + 3) % 8, 16 << 20), ==, (guint)(8 + i));
	run_by_steps(f);
	for (int i = 0; i < 8; i++)
		g_assert_cmpfloat(fabs(fluid_done_ps(f, (uint32_t)(8 + i)) - start - first[i]), <, 1);
	fluid_free(whole);
	fluid_free(f);
}

/* A flow grown by half its size while its line still sends it ends as one
 * of the whole size from the start; one finished early leaves its line to
 * the next at once. */
static void test_grow_finish(void)
{
	struct fluid *whole = shift_fluid(), *part = shift_fluid(), *f = shift_fluid();
	struct fluid_flow_state st, w, p;

	fluid_send(whole, 0, 3, 24 << 20);
	fluid_send(part, 0, 3, 16 << 20);
	g_assert_true(fluid_run(whole) && fluid_run(part));
	fluid_state(whole, 0, &w); /* delivered: its wire bytes */
	fluid_state(part, 0, &p);
	fluid_send(f, 0, 3, 16 << 20);
	fluid_advance(f, fluid_done_ps(whole, 0) / 4);
	fluid_state(f, 0, &st);
	g_assert_true(st.in_line && !st.done);
	g_assert_cmpfloat(st.delivered, >, 0);
	g_assert_cmpfloat(st.rate, >, 0);
	fluid_grow(f, 0, w.delivered - p.delivered);
	run_by_steps(f);
	g_assert_cmpfloat(fabs(fluid_done_ps(f, 0) / fluid_done_ps(whole, 0) - 1), <, 1e-6);

	uint32_t a = fluid_send(f, 0, 3, 16 << 20), b = fluid_send(f, 0, 3, 16 << 20);

	fluid_next_ps(f);
	fluid_finish(f, a);
	fluid_state(f, a, &st);
	g_assert_true(st.done && !st.in_line);
	/* b sends at once: a held its line for its whole 16 MiB */
	fluid_advance(f, fluid_done_ps(f, 0) + 1e6);
	fluid_state(f, b, &st);
	g_assert_true(st.in_line);
	g_assert_cmpfloat(st.delivered, >, 0);
	g_assert_cmpfloat(fluid_next_ps(f), <, INFINITY);
	run_by_steps(f);
	g_assert_cmpfloat(fluid_done_ps(f, b), >, 0);
	fluid_free(whole);
	fluid_free(part);
	fluid_free(f);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/fluid/shift", test_shift);
	g_test_add_func("/fluid/unlimited", test_unlimited);
	g_test_add_func("/fluid/parking-lot", test_parking_lot);
	g_test_add_func("/fluid/all-to-all", test_all_to_all);
	g_test_add_func("/fluid/four-ports", test_four_ports);
	g_test_add_func("/fluid/steps", test_steps);
	g_test_add_func("/fluid/grow-finish", test_grow_finish);
	return g_test_run();
}
