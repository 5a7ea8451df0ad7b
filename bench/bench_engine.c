/* The hold model, run through the engine's public API: a fixed population of
 * pending events; each event's handler schedules one new event at an
 * exponentially distributed delay (mean 1 us) on the same component. The
 * population stays constant, so the queue is measured at that size. */
#include <stdio.h>

#include "bench/bench.h"
#include "sim/cli.h"
#include "sim/core/sim.h"

enum { HOLD_EV = 1 };

struct hold {
	struct sim_component c;
	double mean_ps;
};

static void hold_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct hold *h = (struct hold *)self;

	switch (ev->type) {
	case HOLD_EV:
		sim_schedule(s, sim_rng_exp(&self->rng, h->mean_ps), self, HOLD_EV);
		break;
	default:
		g_error("hold: unknown event type %u", ev->type);
	}
}

void bench_engine_hold(uint64_t pending, uint64_t events, uint64_t seed, struct bench_hold *out)
{
	struct sim *s = sim_new(seed);
	struct hold h = { .mean_ps = 1e6 };

	sim_component_init(s, &h.c, "hold", hold_handler);
	for (uint64_t i = 0; i < pending; i++)
		sim_schedule(s, sim_rng_exp(&h.c.rng, h.mean_ps), &h.c, HOLD_EV);

	double t0 = bench_now_s();

	sim_run(s, SIM_TIME_MAX, events);
	out->wall_s = bench_now_s() - t0;
	out->events = sim_counters(s)->executed;
	out->events_per_s = out->wall_s > 0 ? (double)out->events / out->wall_s : 0;
	out->sim_us = (double)sim_now(s) / 1e6;
	sim_free(s);
}

int bench_engine(int argc, char **argv)
{
	gint64 pending = 1024, events = G_MININT64, seed = 1; /* events: G_MININT64 when not given */
	gboolean json = FALSE;
	GOptionEntry entries[] = {
		{ "pending", 0, 0, G_OPTION_ARG_INT64, &pending, "pending events held (default 1024)", "N" },
		{ "events", 0, 0, G_OPTION_ARG_INT64, &events,
		  "events to run (default max(20M, 20 x pending))", "N" },
		{ "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "RNG seed (default 1)", "N" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object", NULL },
		{ NULL }
	};
	int rc = cli_parse_entries("- the engine's hold-model benchmark",
				   "Examples:\n"
				   "  g5 bench engine\n"
				   "  g5 bench engine --pending 1000000 --json",
				   entries, &argc, &argv);

	if (rc)
		return rc;
	if (pending < 1 || pending > 100000000)
		return cli_usage_error(argv[0], "--pending must be in 1..100000000, got %" G_GINT64_FORMAT, pending);
	if (events == G_MININT64)
		events = MAX((gint64)20000000, 20 * pending);
	else if (events < 1 || events > 100000000000)
		return cli_usage_error(argv[0], "--events must be in 1..100000000000, got %" G_GINT64_FORMAT,
				       events);

	struct bench_hold hold;

	bench_engine_hold((uint64_t)pending, (uint64_t)events, (uint64_t)seed, &hold);
	if (json)
		printf("{\"bench\": \"engine\", \"pending\": %" G_GINT64_FORMAT ", \"events\": %" G_GUINT64_FORMAT
		       ", \"wall_s\": %.6f, \"events_per_s\": %.0f, \"sim_time_us\": %.3f}\n",
		       pending, hold.events, hold.wall_s, hold.events_per_s, hold.sim_us);
	else
		printf("engine: hold model, %" G_GINT64_FORMAT " pending, %" G_GUINT64_FORMAT
		       " events in %.3f s wall: %.2f M events/s\n",
		       pending, hold.events, hold.wall_s, hold.events_per_s / 1e6);
	return 0;
}
