/* Tests of sim/core: event order, FIFO ties, cancellation, run limits,
 * determinism (event-log digests), RNG streams, threads. */
#include <glib.h>
#include <math.h>

#include "sim/core/eq.h"
#include "sim/core/sim.h"

/* A component that logs (time, id) of every event it receives. */
struct logger {
	struct sim_component c;
	GArray *log; /* of struct rec */
	int reschedule; /* events left to chain, for the hold tests */
};

struct rec {
	sim_time_t time;
	uint64_t id;
};

enum { EV_LOG = 1, EV_STOP = 2, EV_HOLD = 3 };

static void logger_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct logger *l = (struct logger *)self;
	struct rec r = { .time = sim_now(s), .id = ev->data[0].u };

	switch (ev->type) {
	case EV_LOG:
		g_array_append_val(l->log, r);
		break;
	case EV_STOP:
		g_array_append_val(l->log, r);
		sim_stop(s);
		break;
	case EV_HOLD: {
		g_array_append_val(l->log, r);
		struct sim_event *n = sim_schedule(s, sim_rng_exp(&self->rng, 1e6), self, EV_HOLD);

		n->data[0].u = r.id + 1000000;
		break;
	}
	default:
		g_error("logger: unknown event type %u", ev->type);
	}
}

static void logger_init(struct sim *s, struct logger *l, const char *name)
{
	l->log = g_array_new(FALSE, FALSE, sizeof(struct rec));
	sim_component_init(s, &l->c, name, logger_handler);
}

static void test_order_random(void)
{
	/* Random times over a wide span: pops come out sorted by (time, seq). */
	struct sim *s = sim_new(7);
	struct logger l;
	struct sim_rng r;

	logger_init(s, &l, "log");
	sim_rng_seed(&r, 99, 1);
	for (uint64_t i = 0; i < 200000; i++) {
		/* mixes tiny, medium and huge delays (up to the clock's end),
		 * many equal */
		uint64_t d = sim_rng_next(&r) >> 1;

		d >>= sim_rng_below(&r, 63);
		if (i % 7 == 0)
			d = 1000;
		sim_schedule(s, d, &l.c, EV_LOG)->data[0].u = i;
	}
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	g_assert_cmpuint(l.log->len, ==, 200000);
	for (guint i = 1; i < l.log->len; i++) {
		struct rec *a = &g_array_index(l.log, struct rec, i - 1);
		struct rec *b = &g_array_index(l.log, struct rec, i);

		g_assert_cmpuint(a->time, <=, b->time);
		if (a->time == b->time)
			g_assert_cmpuint(a->id, <, b->id);
	}
	g_array_unref(l.log);
	sim_free(s);
}

static void test_fifo_ties(void)
{
	/* Events at one time fire in scheduling order, also when scheduled from
	 * handlers at that same time (delay 0), and across refills. */
	struct sim *s = sim_new(1);
	struct logger l;

	logger_init(s, &l, "log");
	for (uint64_t i = 0; i < 1000; i++)
		sim_schedule(s, (i % 3) * 1000000, &l.c, EV_LOG)->data[0].u = i;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	guint k = 0;

	for (uint64_t m = 0; m < 3; m++)
		for (uint64_t i = m; i < 1000; i += 3, k++) {
			struct rec *r = &g_array_index(l.log, struct rec, k);

			g_assert_cmpuint(r->time, ==, m * 1000000);
			g_assert_cmpuint(r->id, ==, i);
		}
	g_array_unref(l.log);
	sim_free(s);
}

struct zero_chain {
	struct sim_component c;
	GArray *order;
};

static void zero_chain_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct zero_chain *z = (struct zero_chain *)self;
	uint64_t id = ev->data[0].u;

	g_assert_cmpuint(ev->type, ==, 1);
	g_array_append_val(z->order, id);
	if (id < 10)
		sim_schedule(s, 0, self, 1)->data[0].u = id + 10;
}

static void test_zero_delay_fifo(void)
{
	/* At time T: A(0..9) queued; each schedules a delay-0 event. The new ones
	 * must run after all of A, in order. */
	struct sim *s = sim_new(1);
	struct zero_chain z = { .order = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };

	sim_component_init(s, &z.c, "z", zero_chain_handler);
	for (uint64_t i = 0; i < 10; i++)
		sim_schedule(s, 5000, &z.c, 1)->data[0].u = i;
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(z.order->len, ==, 20);
	for (guint i = 0; i < 20; i++)
		g_assert_cmpuint(g_array_index(z.order, uint64_t, i), ==, i);
	g_assert_cmpuint(sim_now(s), ==, 5000);
	g_array_unref(z.order);
	sim_free(s);
}

static void test_cancel(void)
{
	struct sim *s = sim_new(1);
	struct logger l;
	struct sim_event_ref refs[100];

	logger_init(s, &l, "log");
	for (uint64_t i = 0; i < 100; i++) {
		struct sim_event *ev = sim_schedule(s, 10 * (i + 1), &l.c, EV_LOG);

		ev->data[0].u = i;
		refs[i] = sim_event_ref(ev);
	}
	for (int i = 0; i < 100; i += 2)
		g_assert_true(sim_cancel(s, refs[i]));
	g_assert_false(sim_cancel(s, refs[0])); /* twice */
	g_assert_cmpuint(sim_pending(s), ==, 50);
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	g_assert_cmpuint(l.log->len, ==, 50);
	for (guint i = 0; i < l.log->len; i++)
		g_assert_cmpuint(g_array_index(l.log, struct rec, i).id, ==, 2 * i + 1);
	/* after firing: the event memory is recycled; the old ref is stale */
	g_assert_false(sim_cancel(s, refs[1]));
	struct sim_event *ev = sim_schedule(s, 5, &l.c, EV_LOG);

	g_assert_false(sim_cancel(s, refs[1]));
	g_assert_true(sim_cancel(s, sim_event_ref(ev)));
	g_assert_cmpuint(sim_counters(s)->cancelled, ==, 51);
	g_assert_cmpuint(sim_counters(s)->executed, ==, 50);
	g_array_unref(l.log);
	sim_free(s);
}

struct self_cancel {
	struct sim_component c;
	struct sim_event_ref me;
	bool answered;
};

static void self_cancel_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct self_cancel *x = (struct self_cancel *)self;

	g_assert_cmpuint(ev->type, ==, 1);
	x->answered = sim_cancel(s, x->me);
}

static void test_cancel_while_firing(void)
{
	/* An event that is being handled has fired: cancelling it is refused
	 * and the counters stay consistent. */
	struct sim *s = sim_new(1);
	struct self_cancel x = { .answered = true };

	sim_component_init(s, &x.c, "self", self_cancel_handler);
	x.me = sim_event_ref(sim_schedule(s, 10, &x.c, 1));
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_false(x.answered);
	g_assert_cmpuint(sim_counters(s)->executed, ==, 1);
	g_assert_cmpuint(sim_counters(s)->cancelled, ==, 0);
	g_assert_cmpuint(sim_pending(s), ==, 0);
	sim_free(s);
}

static void test_limits(void)
{
	struct sim *s = sim_new(1);
	struct logger l;

	logger_init(s, &l, "log");
	for (uint64_t i = 1; i <= 100; i++)
		sim_schedule(s, SIM_NS(i), &l.c, EV_LOG)->data[0].u = i;
	/* event-count limit */
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, 10), ==, SIM_RUN_LIMIT);
	g_assert_cmpuint(l.log->len, ==, 10);
	g_assert_cmpuint(sim_now(s), ==, SIM_NS(10));
	/* time limit: events at exactly `until` run, the clock stops there */
	g_assert_cmpint(sim_run(s, SIM_NS(20) + 500, UINT64_MAX), ==, SIM_RUN_UNTIL);
	g_assert_cmpuint(l.log->len, ==, 20);
	g_assert_cmpuint(sim_now(s), ==, SIM_NS(20) + 500);
	g_assert_cmpint(sim_run(s, SIM_NS(30), UINT64_MAX), ==, SIM_RUN_UNTIL);
	g_assert_cmpuint(l.log->len, ==, 30);
	/* scheduling after a time-limited stop lands before pending events */
	sim_schedule(s, 1, &l.c, EV_LOG)->data[0].u = 1000;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, 1), ==, SIM_RUN_LIMIT);
	g_assert_cmpuint(g_array_index(l.log, struct rec, 30).id, ==, 1000);
	g_assert_cmpuint(sim_now(s), ==, SIM_NS(30) + 1);
	/* stop from a handler */
	sim_schedule(s, SIM_NS(35) - sim_now(s), &l.c, EV_STOP)->data[0].u = 2000;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_STOPPED);
	g_assert_cmpuint(sim_now(s), ==, SIM_NS(35));
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	g_assert_cmpuint(l.log->len, ==, 101 + 1);
	g_assert_cmpuint(sim_now(s), ==, SIM_NS(100));
	g_array_unref(l.log);
	sim_free(s);
}

static void test_until_then_earlier(void)
{
	/* A run that stops at `until` in the middle of a wide gap must accept
	 * events scheduled before the next pending one, at every scale. */
	for (int shift = 0; shift < 60; shift += 3) {
		struct sim *s = sim_new(1);
		struct logger l;
		sim_time_t far = (sim_time_t)1 << shift << 2;

		logger_init(s, &l, "log");
		sim_schedule(s, far + 3, &l.c, EV_LOG)->data[0].u = 1;
		g_assert_cmpint(sim_run(s, far / 2, UINT64_MAX), ==, SIM_RUN_UNTIL);
		sim_schedule(s, 1, &l.c, EV_LOG)->data[0].u = 0;
		sim_run(s, SIM_TIME_MAX, UINT64_MAX);
		g_assert_cmpuint(l.log->len, ==, 2);
		g_assert_cmpuint(g_array_index(l.log, struct rec, 0).id, ==, 0);
		g_assert_cmpuint(g_array_index(l.log, struct rec, 0).time, ==, far / 2 + 1);
		g_assert_cmpuint(g_array_index(l.log, struct rec, 1).time, ==, far + 3);
		g_array_unref(l.log);
		sim_free(s);
	}
}

/* An event past the end of the clock ends the run, not the process: it
 * never fires, the run stops after the current event with
 * SIM_RUN_OVERFLOW, and no later run goes on. */
static void test_schedule_overflow(void)
{
	static const sim_time_t delays[] = { SIM_TIME_END - 10, SIM_TIME_END, SIM_TIME_MAX - 5,
					     SIM_TIME_MAX };

	for (size_t i = 0; i < G_N_ELEMENTS(delays); i++) {
		struct sim *s = sim_new(1);
		struct logger l;

		logger_init(s, &l, "log");
		sim_schedule(s, 10, &l.c, EV_LOG)->data[0].u = 1;
		g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
		g_assert_false(sim_overflowed(s));
		struct sim_event *ev = sim_schedule(s, delays[i], &l.c, EV_LOG);

		ev->data[0].u = 2;
		g_assert_true(sim_overflowed(s));
		g_assert_false(sim_cancel(s, sim_event_ref(ev)));
		sim_schedule(s, 5, &l.c, EV_LOG)->data[0].u = 3;
		g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_OVERFLOW);
		g_assert_cmpuint(l.log->len, ==, 1);
		g_assert_cmpuint(sim_now(s), ==, 10);
		g_array_unref(l.log);
		sim_free(s);
	}
	/* the last time before the end is still a time */
	struct sim *s = sim_new(1);
	struct logger l;

	logger_init(s, &l, "log");
	sim_schedule(s, SIM_TIME_END - 1, &l.c, EV_STOP)->data[0].u = 1;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_STOPPED);
	g_assert_cmpuint(sim_now(s), ==, SIM_TIME_END - 1);
	/* from there, 1 ps reaches the end itself */
	sim_schedule(s, 1, &l.c, EV_LOG)->data[0].u = 2;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_OVERFLOW);
	g_assert_cmpuint(l.log->len, ==, 1);
	g_array_unref(l.log);
	sim_free(s);
}

static void test_duplicate_name(void)
{
	if (g_test_subprocess()) {
		struct sim *s = sim_new(1);
		struct logger a, b;

		logger_init(s, &a, "same");
		logger_init(s, &b, "same");
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*two components named 'same'*");
}

/* Digest of the event log of a hold-model run on several components. */
struct digest_ctx {
	GChecksum *sum;
};

static void digest_trace(void *user, const struct sim_event *ev)
{
	struct digest_ctx *d = user;
	uint64_t rec[3] = { ev->time, ev->type, ev->data[0].u };

	g_checksum_update(d->sum, (const guchar *)rec, sizeof(rec));
	g_checksum_update(d->sum, (const guchar *)ev->target->name, strlen(ev->target->name));
}

static char *hold_digest(uint64_t seed, int comps, uint64_t events)
{
	struct sim *s = sim_new(seed);
	struct logger *l = g_new0(struct logger, comps);
	char **names = g_new0(char *, comps + 1);
	struct digest_ctx d = { .sum = g_checksum_new(G_CHECKSUM_SHA256) };

	sim_set_trace(s, digest_trace, &d);
	for (int i = 0; i < comps; i++) {
		names[i] = g_strdup_printf("hold%d", i);
		logger_init(s, &l[i], names[i]);
		for (int k = 0; k < 100; k++)
			sim_schedule(s, sim_rng_exp(&l[i].c.rng, 1e6), &l[i].c, EV_HOLD)->data[0].u = k;
	}
	sim_run(s, SIM_TIME_MAX, events);
	char *out = g_strdup(g_checksum_get_string(d.sum));

	g_checksum_free(d.sum);
	for (int i = 0; i < comps; i++)
		g_array_unref(l[i].log);
	g_free(l);
	g_strfreev(names);
	sim_free(s);
	return out;
}

static void test_determinism(void)
{
	g_autofree char *a = hold_digest(42, 4, 200000);
	g_autofree char *b = hold_digest(42, 4, 200000);
	g_autofree char *c = hold_digest(43, 4, 200000);

	g_assert_cmpstr(a, ==, b);
	g_assert_cmpstr(a, !=, c);
}

static gpointer digest_thread(gpointer data)
{
	uint64_t seed = GPOINTER_TO_UINT(data);

	return hold_digest(seed, 8, 300000);
}

static void test_threads(void)
{
	/* Two simulations on two threads give the same logs as one after the
	 * other: nothing is shared between instances. */
	g_autofree char *a = hold_digest(5, 8, 300000);
	g_autofree char *b = hold_digest(6, 8, 300000);
	GThread *ta = g_thread_new("a", digest_thread, GUINT_TO_POINTER(5));
	GThread *tb = g_thread_new("b", digest_thread, GUINT_TO_POINTER(6));
	g_autofree char *ra = g_thread_join(ta);
	g_autofree char *rb = g_thread_join(tb);

	g_assert_cmpstr(a, ==, ra);
	g_assert_cmpstr(b, ==, rb);
	g_assert_cmpstr(a, !=, b);
}

static void test_rng_streams(void)
{
	/* A component's stream depends on (seed, its name) only: adding another
	 * component, before or after, shifts nothing. */
	struct sim *s1 = sim_new(9), *s2 = sim_new(9);
	struct logger a1, a2, other;

	logger_init(s1, &a1, "link.0->1");
	logger_init(s2, &other, "link.5->6");
	logger_init(s2, &a2, "link.0->1");
	for (int i = 0; i < 100; i++)
		sim_rng_next(&other.c.rng);
	for (int i = 0; i < 1000; i++)
		g_assert_cmpuint(sim_rng_next(&a1.c.rng), ==, sim_rng_next(&a2.c.rng));
	g_assert_cmpuint(sim_rng_next(&a1.c.rng), !=, sim_rng_next(&other.c.rng));
	g_array_unref(a1.log);
	g_array_unref(a2.log);
	g_array_unref(other.log);
	sim_free(s1);
	sim_free(s2);
}

static void test_rng_distributions(void)
{
	struct sim_rng r;
	const int n = 2000000;
	double sum = 0, sum2 = 0;
	int tail = 0;

	sim_rng_seed(&r, 3, 4);
	for (int i = 0; i < n; i++) {
		double x = (double)sim_rng_exp(&r, 1e6) / 1e6;

		sum += x;
		sum2 += x * x;
		tail += x > 3.0;
	}
	double mean = sum / n, var = sum2 / n - mean * mean;

	/* Exp(1): mean 1, variance 1, P(X > 3) = e^-3 = 0.0498. With 2e6
	 * samples the standard errors are about 0.0007, 0.003 and 0.00015. */
	g_assert_cmpfloat(fabs(mean - 1.0), <, 0.005);
	g_assert_cmpfloat(fabs(var - 1.0), <, 0.02);
	g_assert_cmpfloat(fabs((double)tail / n - exp(-3.0)), <, 0.001);

	uint64_t hist[10] = { 0 };

	for (int i = 0; i < 1000000; i++)
		hist[sim_rng_below(&r, 10)]++;
	for (int i = 0; i < 10; i++) {
		g_assert_cmpuint(hist[i], >, 98500);
		g_assert_cmpuint(hist[i], <, 101500);
	}
	for (int i = 0; i < 1000; i++) {
		double u = sim_rng_unit(&r);

		g_assert_cmpfloat(u, >, 0.0);
		g_assert_cmpfloat(u, <=, 1.0);
	}
}

static void test_rng_zig_table(void)
{
	/* The written-out ziggurat layers follow their recurrence. */
	const double r = 7.69711747013104972, v = 0.0039496598225815571993;
	double x = r;

	g_assert_cmpfloat(fabs(sim_zig.x[0] - v * exp(r)) / sim_zig.x[0], <, 1e-14);
	g_assert_cmpfloat(sim_zig.x[1], ==, r);
	g_assert_cmpfloat(sim_zig.x[256], ==, 0.0);
	for (int i = 2; i < 256; i++) {
		x = -log(exp(-sim_zig.x[i - 1]) + v / sim_zig.x[i - 1]);
		g_assert_cmpfloat(fabs(sim_zig.x[i] - x), <=, 1e-14 * x);
		g_assert_cmpfloat(sim_zig.x[i], <, sim_zig.x[i - 1]);
	}
	for (int i = 0; i <= 256; i++)
		g_assert_cmpfloat(fabs(sim_zig.f[i] - exp(-sim_zig.x[i])), <=, 1e-15);
	for (int i = 0; i < 256; i++)
		g_assert_cmpfloat(sim_zig.xs[i], ==, ldexp(sim_zig.x[i], -53));
}

static void test_many_pending(void)
{
	/* Tens of millions would take too long here; two million pending with
	 * identical and distinct times still pop in order and free cleanly. */
	struct sim *s = sim_new(1);
	struct logger l;

	logger_init(s, &l, "log");
	for (uint64_t i = 0; i < 2000000; i++)
		sim_schedule(s, (i * 7919) % 1000003, &l.c, EV_LOG)->data[0].u = i;
	g_assert_cmpuint(sim_pending(s), ==, 2000000);
	g_assert_cmpuint(sim_counters(s)->peak_pending, ==, 2000000);
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(l.log->len, ==, 2000000);
	for (guint i = 1; i < l.log->len; i++) {
		struct rec *a = &g_array_index(l.log, struct rec, i - 1);
		struct rec *b = &g_array_index(l.log, struct rec, i);

		g_assert_true(a->time < b->time || (a->time == b->time && a->id < b->id));
	}
	g_array_unref(l.log);
	sim_free(s);
}

/* Checks that a log is in (time, id) order, ids increasing with seq. */
static void assert_log_sorted(GArray *log)
{
	for (guint i = 1; i < log->len; i++) {
		struct rec *a = &g_array_index(log, struct rec, i - 1);
		struct rec *b = &g_array_index(log, struct rec, i);

		g_assert_true(a->time < b->time || (a->time == b->time && a->id < b->id));
	}
}

static void test_queue_every_level(void)
{
	/* Keys that differ from the clock in every byte, 0 to 7, up to the
	 * clock's last time (SIM_TIME_END - 1), with ties at each scale; repeated from a clock
	 * that has moved, so that refills split every level. */
	struct sim *s = sim_new(3);
	struct logger l;
	struct sim_rng r;
	uint64_t id = 0;

	logger_init(s, &l, "log");
	sim_rng_seed(&r, 5, 6);
	for (int round = 0; round < 3; round++) {
		for (int level = 0; level < 8; level++)
			for (int k = 0; k < 300; k++) {
				uint64_t span = level == 7 ? SIM_TIME_END - sim_now(s)
							   : ((uint64_t)1 << (8 * level + 8));
				uint64_t d = sim_rng_below(&r, span);

				if (k % 5 == 0)
					d = span - 1; /* the top of the level */
				if (k % 7 == 0)
					d = span / 3; /* ties */
				sim_schedule(s, d, &l.c, EV_LOG)->data[0].u = id++;
			}
		sim_schedule(s, SIM_TIME_END - 1 - sim_now(s), &l.c, EV_LOG)->data[0].u = id++;
		/* run a part, so the next round starts from a moved clock */
		sim_run(s, SIM_TIME_MAX, 1000);
	}
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	g_assert_cmpuint(l.log->len, ==, id);
	g_assert_cmpuint(sim_now(s), ==, SIM_TIME_END - 1);
	/* per round, the log is sorted; rounds overlap in time only forwards */
	assert_log_sorted(l.log);
	g_array_unref(l.log);
	sim_free(s);
}

/* A component whose handler cancels random pending events while it runs. */
struct canceller {
	struct sim_component c;
	GArray *refs;   /* of struct sim_event_ref */
	GArray *log;    /* of struct rec */
	GHashTable *cancelled; /* ids */
	uint64_t next_id, left;
};

static void canceller_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct canceller *c = (struct canceller *)self;
	struct rec r = { .time = sim_now(s), .id = ev->data[0].u };

	g_assert_cmpuint(ev->type, ==, 1);
	g_assert_false(g_hash_table_contains(c->cancelled, GSIZE_TO_POINTER(r.id)));
	g_array_append_val(c->log, r);
	if (c->left == 0)
		return;
	c->left--;
	for (int k = 0; k < 2; k++) {
		/* mostly near delays, sometimes equal times, sometimes far */
		uint64_t d = sim_rng_exp(&self->rng, 1e4);

		if (sim_rng_below(&self->rng, 8) == 0)
			d = 0;
		if (sim_rng_below(&self->rng, 16) == 0)
			d <<= 20;
		struct sim_event *n = sim_schedule(s, d, self, 1);

		n->data[0].u = c->next_id++;
		struct sim_event_ref ref = sim_event_ref(n);

		g_array_append_val(c->refs, ref);
	}
	uint64_t victim = sim_rng_below(&self->rng, c->refs->len);
	struct sim_event_ref ref = g_array_index(c->refs, struct sim_event_ref, victim);
	uint64_t vid = ref.ev->data[0].u;

	/* (the event being handled is not a victim: cancelling it now is not
	 * what this test is about) */
	if (ref.ev == ev && ref.seq == ev->seq)
		return;
	if (sim_cancel(s, ref))
		g_hash_table_add(c->cancelled, GSIZE_TO_POINTER(vid));
}

static void test_cancel_interleaved(void)
{
	/* Cancellations while events pop, at many time scales: no cancelled
	 * event fires, every other one does, in (time, seq) order, and the
	 * counters add up. */
	struct sim *s = sim_new(11);
	struct canceller c = {
		.refs = g_array_new(FALSE, FALSE, sizeof(struct sim_event_ref)),
		.log = g_array_new(FALSE, FALSE, sizeof(struct rec)),
		.cancelled = g_hash_table_new(g_direct_hash, g_direct_equal),
		.left = 100000,
	};

	sim_component_init(s, &c.c, "cancel", canceller_handler);
	for (int i = 0; i < 1000; i++) {
		struct sim_event *ev = sim_schedule(s, sim_rng_exp(&c.c.rng, 1e6), &c.c, 1);
		struct sim_event_ref ref = sim_event_ref(ev);

		ev->data[0].u = c.next_id++;
		g_array_append_val(c.refs, ref);
	}
	/* stop and resume at times that fall inside buckets being split */
	for (sim_time_t until = 12345; sim_run(s, until, UINT64_MAX) == SIM_RUN_UNTIL; until += until / 2 + 777)
		g_assert_cmpuint(sim_now(s), ==, until);
	const struct sim_counters *ctr = sim_counters(s);

	g_assert_cmpuint(ctr->scheduled, ==, c.next_id);
	g_assert_cmpuint(ctr->cancelled, ==, g_hash_table_size(c.cancelled));
	g_assert_cmpuint(ctr->executed + ctr->cancelled, ==, ctr->scheduled);
	g_assert_cmpuint(c.log->len, ==, ctr->executed);
	g_assert_cmpuint(sim_pending(s), ==, 0);
	assert_log_sorted(c.log);
	g_array_unref(c.refs);
	g_array_unref(c.log);
	g_hash_table_unref(c.cancelled);
	sim_free(s);
}

struct flood {
	struct sim_component c;
	uint64_t next, fired;
};

static void flood_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct flood *f = (struct flood *)self;

	g_assert_cmpuint(ev->data[0].u, ==, f->fired);
	f->fired++;
	/* each event at this instant schedules two more at the same instant,
	 * until 100000 have been scheduled: the bucket being popped grows */
	for (int k = 0; k < 2 && f->next < 100000; k++)
		sim_schedule(s, 0, self, 1)->data[0].u = f->next++;
}

static void test_zero_delay_flood(void)
{
	struct sim *s = sim_new(1);
	struct flood f = { .next = 1 };

	sim_component_init(s, &f.c, "flood", flood_handler);
	sim_schedule(s, SIM_US(3), &f.c, 1)->data[0].u = 0;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	g_assert_cmpuint(f.fired, ==, 100000);
	g_assert_cmpuint(sim_now(s), ==, SIM_US(3));
	sim_free(s);
}

static void test_dense_until(void)
{
	/* Many events per level-0 bucket and a stop in the middle of a level-0
	 * sweep: events scheduled then, before the pending ones, pop first. */
	struct sim *s = sim_new(1);
	struct logger l;

	logger_init(s, &l, "log");
	for (uint64_t i = 0; i < 100000; i++)
		sim_schedule(s, 70000 + (i * 7919) % 4000, &l.c, EV_LOG)->data[0].u = i;
	g_assert_cmpint(sim_run(s, 71000, UINT64_MAX), ==, SIM_RUN_UNTIL);
	guint before = l.log->len;

	sim_schedule(s, 0, &l.c, EV_LOG)->data[0].u = 1000000;
	sim_schedule(s, 1, &l.c, EV_LOG)->data[0].u = 1000001;
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, 2), ==, SIM_RUN_LIMIT);
	g_assert_cmpuint(g_array_index(l.log, struct rec, before).id, ==, 1000000);
	g_assert_cmpuint(g_array_index(l.log, struct rec, before).time, ==, 71000);
	g_assert_cmpuint(g_array_index(l.log, struct rec, before + 1).time, ==, 71001);
	g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
	g_assert_cmpuint(l.log->len, ==, 100002);
	g_array_unref(l.log);
	sim_free(s);
}

/* The queue on its own, against its specification: every entry pushed pops
 * once, in (time, push order) order. Each pop pushes `fan` new entries at
 * delays drawn by `mode`; the ids grow in push order. */
struct eq_model {
	struct eq q;
	struct sim_event *evs; /* entry id i is &evs[i] */
	uint64_t n, cap, popped;
	uint64_t last_time, last_id;
	struct sim_rng r;
};

static void eq_model_push(struct eq_model *m, uint64_t time)
{
	if (m->n == m->cap) {
		/* the queue holds pointers into evs: ids are indexes, so
		 * keep the array put and refuse to grow it */
		g_assert_not_reached();
	}
	m->evs[m->n].time = time;
	eq_push(&m->q, time, &m->evs[m->n]);
	m->n++;
}

static uint64_t eq_model_delay(struct eq_model *m, int mode, uint64_t now)
{
	uint64_t room = UINT64_MAX - now;
	uint64_t d;

	switch (mode) {
	case 0: /* dense: many per level-0 bucket, sorted by counting */
		d = sim_rng_below(&m->r, (uint64_t)1 << 16);
		break;
	case 1: /* sparse, about a microsecond: sorted as refilled */
		d = sim_rng_exp(&m->r, 1e6);
		break;
	case 2: { /* around every level and index boundary, up to 2^64 - 1 */
		unsigned bit = (unsigned)sim_rng_below(&m->r, 64);
		uint64_t p = (uint64_t)1 << bit, next = ((now >> bit) + 1) << bit;

		switch (sim_rng_below(&m->r, 4)) {
		case 0: /* 2^bit - 1, 2^bit, 2^bit + 1 away */
			d = p - 1 + sim_rng_below(&m->r, 3);
			break;
		case 1: /* just before, at or after the next multiple of 2^bit */
			d = next > now ? next - now - 1 + sim_rng_below(&m->r, 3) : room;
			break;
		case 2: /* the end of time */
			d = room - sim_rng_below(&m->r, 4);
			break;
		default:
			d = sim_rng_below(&m->r, p);
			break;
		}
		break;
	}
	default: /* small and equal delays into the bucket being popped */
		d = sim_rng_below(&m->r, 4) == 0 ? 0 : sim_rng_below(&m->r, 300);
		break;
	}
	return d > room ? room : d;
}

static void eq_model_check(struct eq_model *m, struct sim_event *ev)
{
	uint64_t id = (uint64_t)(ev - m->evs);

	g_assert_nonnull(ev);
	g_assert_cmpuint(ev->time, >=, m->last_time);
	if (m->popped && ev->time == m->last_time)
		g_assert_cmpuint(id, >, m->last_id);
	g_assert_cmpuint(ev->seq, ==, 0); /* not popped before */
	ev->seq = 1;
	m->last_time = ev->time;
	m->last_id = id;
	m->popped++;
}

static void eq_model_run(int mode, uint64_t pending, uint64_t pops, int fan)
{
	struct eq_model m = { .cap = pending + pops * (uint64_t)fan };

	m.evs = g_new0(struct sim_event, m.cap);
	eq_init(&m.q);
	sim_rng_seed(&m.r, 77, (uint64_t)mode);
	for (uint64_t i = 0; i < pending; i++)
		eq_model_push(&m, eq_model_delay(&m, mode, 0));
	/* stop at times inside the buckets being sorted and split, and push
	 * then, before the next pending entry */
	uint64_t until = 1000;

	for (uint64_t k = 0; k < pops; k++) {
		struct sim_event *ev = eq_pop_until(&m.q, until);

		if (!ev) {
			g_assert_false(eq_empty(&m.q));
			g_assert_cmpuint(m.last_time, <=, until);
			uint64_t t = until + sim_rng_below(&m.r, 3);

			eq_model_push(&m, t);
			ev = eq_pop_until(&m.q, SIM_TIME_MAX);
			g_assert_cmpuint(ev->time, <=, t);
			until += until / 2 + sim_rng_below(&m.r, 100000);
			if (until > UINT64_MAX / 4)
				until = SIM_TIME_MAX; /* no more stops */
		}
		eq_model_check(&m, ev);
		for (int f = 0; f < fan && m.n < m.cap; f++)
			eq_model_push(&m, ev->time + eq_model_delay(&m, mode, ev->time));
	}
	for (struct sim_event *ev; (ev = eq_pop_until(&m.q, SIM_TIME_MAX));)
		eq_model_check(&m, ev);
	g_assert_true(eq_empty(&m.q));
	g_assert_cmpuint(m.popped, ==, m.n);
	eq_release(&m.q);
	g_free(m.evs);
}

static void test_queue_model(void)
{
	/* dense: level-1 buckets of thousands, level-0 ones of tens */
	eq_model_run(0, 20000, 60000, 1);
	/* sparse hold model: refills of tens, sorted as they go */
	eq_model_run(1, 1000, 100000, 1);
	/* every boundary, huge delays near 2^64 */
	eq_model_run(2, 3000, 20000, 1);
	/* pushes into the sorted bucket being popped */
	eq_model_run(3, 2000, 60000, 2);
	eq_model_run(3, 50, 60000, 1);
}

/* The queue's memory follows what is pending, not every bucket's largest
 * burst: bursts of 2000 entries at one time each (ranks that all act at
 * once), 1 to 2 us ahead of the clock and 70 ns apart, pass through every
 * level-1 bucket twice; they pop in (time, seq) order, and afterwards no
 * empty bucket keeps an array of more than EQ_SPARE_MIN entries, the spares
 * are at most EQ_SPARES, and the arrays in all hold a small part of what
 * every bucket's burst would. */
static void test_queue_spares(void)
{
	enum { BURST = 2000, BURSTS = 600 };
	struct eq q;
	struct sim_event *evs = g_new0(struct sim_event, (gsize)BURST * BURSTS);
	uint64_t now = 0, popped = 0, prev_t = 0, prev_seq = 0;

	eq_init(&q);
	for (int b = 0; b < BURSTS; b++) {
		uint64_t t = now + 1000000 + (uint64_t)(b % 7) * 150000;

		for (int i = 0; i < BURST; i++) {
			struct sim_event *ev = &evs[(size_t)b * BURST + (size_t)i];

			ev->time = t;
			ev->seq = (uint64_t)b * BURST + (uint64_t)i + 1;
			eq_push(&q, t, ev);
		}
		/* pop what is due 70 ns on */
		now += 70000;
		for (struct sim_event *ev; (ev = eq_pop_until(&q, now));) {
			g_assert_true(ev->time > prev_t || (ev->time == prev_t && ev->seq > prev_seq));
			prev_t = ev->time;
			prev_seq = ev->seq;
			popped++;
		}
	}
	for (struct sim_event *ev; (ev = eq_pop_until(&q, SIM_TIME_MAX));) {
		g_assert_true(ev->time > prev_t || (ev->time == prev_t && ev->seq > prev_seq));
		prev_t = ev->time;
		prev_seq = ev->seq;
		popped++;
	}
	g_assert_cmpuint(popped, ==, (uint64_t)BURST * BURSTS);
	g_assert_true(eq_empty(&q));
	uint64_t held = 0;

	for (unsigned j = 0; j < EQ_BUCKETS; j++) {
		g_assert_cmpuint(q.b[j].cap, <=, EQ_SPARE_MIN);
		held += q.b[j].cap;
	}
	g_assert_cmpuint(q.nspare, <=, EQ_SPARES);
	for (uint32_t k = 0; k < q.nspare; k++)
		held += q.spare[k].cap;
	/* each of the 256 level-1 buckets, and of the level-0 ones, took a
	 * burst or more: without the spares they would hold at least 2 x 256 x
	 * 2000 entries */
	g_assert_cmpuint(held, <, 256u * BURST / 2);
	eq_release(&q);
	g_free(evs);
}

static void test_queue_boundaries(void)
{
	/* From clocks just below, at and above every power of two, keys at
	 * every power of two away, plus and minus one, and at the clock's last
	 * time: the engine pops them in order. */
	for (int cb = 0; cb < 64; cb += 5) {
		struct sim *s = sim_new(1);
		struct logger l;
		uint64_t id = 0;
		sim_time_t start = ((sim_time_t)1 << cb) - 1;

		logger_init(s, &l, "log");
		sim_schedule(s, start, &l.c, EV_LOG)->data[0].u = id++;
		sim_run(s, SIM_TIME_MAX, 1);
		for (int b = 0; b < 64; b++)
			for (int k = -1; k <= 1; k++) {
				sim_time_t d = ((sim_time_t)1 << b) + (sim_time_t)k;

				if (d > SIM_TIME_END - 1 - sim_now(s))
					d = SIM_TIME_END - 1 - sim_now(s);
				sim_schedule(s, d, &l.c, EV_LOG)->data[0].u = id++;
				sim_schedule(s, d, &l.c, EV_LOG)->data[0].u = id++; /* a tie */
			}
		sim_schedule(s, SIM_TIME_END - 1 - sim_now(s), &l.c, EV_LOG)->data[0].u = id++;
		sim_schedule(s, 0, &l.c, EV_LOG)->data[0].u = id++;
		g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
		g_assert_cmpuint(l.log->len, ==, id);
		g_assert_cmpuint(sim_now(s), ==, SIM_TIME_END - 1);
		assert_log_sorted(l.log);
		g_array_unref(l.log);
		sim_free(s);
	}
}

static void test_queue_sorted_bucket_until(void)
{
	/* A level-0 bucket of many distinct times, reached, stopped inside
	 * (until) and pushed into before and among its entries; then one
	 * that was sorted as it was refilled. Each time, (time, seq) order. */
	for (int dense = 0; dense < 2; dense++) {
		struct sim *s = sim_new(1);
		struct logger l;
		uint64_t id = 0, n = dense ? 3000 : 40;

		logger_init(s, &l, "log");
		for (uint64_t i = 0; i < n; i++)
			sim_schedule(s, 100000 + (i * 37) % 256, &l.c, EV_LOG)->data[0].u = id++;
		/* the bucket of 100000 .. 100255 is reached, not popped */
		g_assert_cmpint(sim_run(s, 99999, UINT64_MAX), ==, SIM_RUN_UNTIL);
		sim_schedule(s, 3, &l.c, EV_LOG)->data[0].u = id++;
		g_assert_cmpint(sim_run(s, 100100, UINT64_MAX), ==, SIM_RUN_UNTIL);
		for (int k = 0; k < 300; k++)
			sim_schedule(s, (uint64_t)k % 200, &l.c, EV_LOG)->data[0].u = id++;
		g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
		g_assert_cmpuint(l.log->len, ==, id);
		assert_log_sorted(l.log);
		for (guint i = 0; i < l.log->len; i++)
			if (g_array_index(l.log, struct rec, i).id == n)
				g_assert_cmpuint(g_array_index(l.log, struct rec, i).time, ==, 100002);
		g_array_unref(l.log);
		sim_free(s);
	}
}

static void test_queue_in_order_bucket(void)
{
	/* A level-0 bucket of more entries than an insertion sort takes,
	 * appended in time order (ties included) but for one entry at a time
	 * earlier than the one before it, at every position from the second
	 * to the last; and with none out of order. (time, seq) order each
	 * time: a bucket found in order is left as it is, any other sorted. */
	enum { N = 100 };

	for (int odd = 0; odd <= N; odd++) {
		struct sim *s = sim_new(1);
		struct logger l;

		logger_init(s, &l, "log");
		for (uint64_t i = 0; i < N; i++) {
			uint64_t t = 1024 + 64 + i / 2; /* level 0 from the start */

			if ((int)i == odd)
				t -= 40; /* before the entries ahead of it */
			sim_schedule(s, t, &l.c, EV_LOG)->data[0].u = i;
		}
		g_assert_cmpint(sim_run(s, SIM_TIME_MAX, UINT64_MAX), ==, SIM_RUN_EMPTY);
		g_assert_cmpuint(l.log->len, ==, N);
		assert_log_sorted(l.log);
		g_assert_cmpuint(g_array_index(l.log, struct rec, 0).id, ==, odd < 80 ? (guint)odd : 0);
		g_array_unref(l.log);
		sim_free(s);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/core/order/random", test_order_random);
	g_test_add_func("/core/order/fifo-ties", test_fifo_ties);
	g_test_add_func("/core/order/zero-delay-fifo", test_zero_delay_fifo);
	g_test_add_func("/core/cancel", test_cancel);
	g_test_add_func("/core/cancel/while-firing", test_cancel_while_firing);
	g_test_add_func("/core/run/limits", test_limits);
	g_test_add_func("/core/run/until-then-earlier", test_until_then_earlier);
	g_test_add_func("/core/schedule/overflow-stops-the-run", test_schedule_overflow);
	g_test_add_func("/core/component/duplicate-name-aborts", test_duplicate_name);
	g_test_add_func("/core/determinism/digest", test_determinism);
	g_test_add_func("/core/determinism/threads", test_threads);
	g_test_add_func("/core/rng/streams", test_rng_streams);
	g_test_add_func("/core/rng/distributions", test_rng_distributions);
	g_test_add_func("/core/rng/zig-table", test_rng_zig_table);
	g_test_add_func("/core/queue/many-pending", test_many_pending);
	g_test_add_func("/core/queue/every-level", test_queue_every_level);
	g_test_add_func("/core/queue/cancel-interleaved", test_cancel_interleaved);
	g_test_add_func("/core/queue/zero-delay-flood", test_zero_delay_flood);
	g_test_add_func("/core/queue/dense-until", test_dense_until);
	g_test_add_func("/core/queue/model", test_queue_model);
	g_test_add_func("/core/queue/boundaries", test_queue_boundaries);
	g_test_add_func("/core/queue/spares", test_queue_spares);
	g_test_add_func("/core/queue/sorted-bucket-until", test_queue_sorted_bucket_until);
	g_test_add_func("/core/queue/in-order-bucket", test_queue_in_order_bucket);
	return g_test_run();
}
