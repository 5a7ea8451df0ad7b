/* The event-driven fluid of the receive buffers (sim/link/fluid.h) on raw
 * traffic: every rank of a ring sends one message at once, to rank + D
 * (a shift) or rank XOR D (a step of halving-doubling), with no collective
 * around it. Prints the last and mean delivery, the fluid's events, its
 * outputs shared again and its wall time; with --packet the same messages
 * at packet fidelity beside it, and the fluid's error. */
#include <math.h>
#include <stdio.h>

#include "bench/bench.h"
#include "sim/cli.h"
#include "sim/core/sim.h"
#include "sim/link/fluid.h"
#include "sim/link/link.h"
#include "sim/link/topos.h"
#include "sim/util/units.h"

struct fl_rx {
	struct sim *s;
	sim_time_t done_ps;
};

static void fl_deliver(void *user, uint64_t bytes, bool done)
{
	struct fl_rx *r = user;

	(void)bytes;
	if (done)
		r->done_ps = sim_now(r->s);
}

static int peer_of(int i, int n, int d, bool xor)
{
	return xor ? i ^ d : (i + d) % n;
}

int bench_fluid(int argc, char **argv)
{
	gint64 ranks = 64, d = 16;
	g_autofree char *size_s = NULL, *pattern_s = NULL;
	gboolean json = FALSE, packet = FALSE;
	GOptionEntry entries[] = {
		{ "ranks", 0, 0, G_OPTION_ARG_INT64, &ranks, "ring size (default 64)", "N" },
		{ "pattern", 0, 0, G_OPTION_ARG_STRING, &pattern_s, "shift (to rank + D, the default) or xor (to rank XOR D)", "P" },
		{ "distance", 0, 0, G_OPTION_ARG_INT64, &d, "D (default 16)", "D" },
		{ "size", 0, 0, G_OPTION_ARG_STRING, &size_s, "each message's payload (default 4MiB)", "SIZE" },
		{ "packet", 0, 0, G_OPTION_ARG_NONE, &packet, "run the same messages at packet fidelity too", NULL },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object", NULL },
		{ NULL }
	};
	int rc = cli_parse_entries("- the buffers' event-driven fluid on raw traffic",
				   "Examples:\n"
				   "  g5 bench fluid\n"
				   "  g5 bench fluid --ranks 8 --distance 3 --size 16MiB --packet\n"
				   "  g5 bench fluid --ranks 256 --pattern xor --distance 128 --json",
				   entries, &argc, &argv);
	g_autoptr(GError) err = NULL;
	uint64_t bytes = 4 << 20;
	bool xor = false;

	if (rc)
		return rc;
	if (pattern_s && g_str_equal(pattern_s, "xor"))
		xor = true;
	else if (pattern_s && !g_str_equal(pattern_s, "shift"))
		return cli_usage_error(argv[0], "--pattern must be shift or xor, got '%s'", pattern_s);
	if (ranks < 2 || ranks > LINK_MAX_RANKS)
		return cli_usage_error(argv[0], "--ranks must be in 2..%d, got %" G_GINT64_FORMAT,
				       LINK_MAX_RANKS, ranks);
	if (d < 1 || d >= ranks || (xor && (ranks & (ranks - 1) || d & (d - 1))))
		return cli_usage_error(argv[0], "--distance must be in 1..%" G_GINT64_FORMAT
				       " (with xor, a power of two, as --ranks)", ranks - 1);
	if (size_s && (!units_parse_size(size_s, &bytes, &err) || !bytes))
		return cli_usage_error(argv[0], "--size: %s", err ? err->message : "must be > 0");

	int n = (int)ranks;
	struct fabric_config cfg = { .topo = &topo_ring_ops, .nranks = n, .fidelity = LINK_FIDELITY_FLOW };

	link_params_default(&cfg.link);
	struct fluid *fl = fluid_new_fabric(&cfg, &err);

	g_assert_nonnull(fl);
	double t0 = bench_now_s();

	for (int i = 0; i < n; i++)
		fluid_send(fl, i, peer_of(i, n, (int)d, xor), bytes);
	bool ran = fluid_run(fl);
	double wall = bench_now_s() - t0, last = 0, mean = 0;
	struct fluid_stats st;

	fluid_get_stats(fl, &st);
	for (int i = 0; i < n && ran; i++) {
		last = MAX(last, fluid_done_ps(fl, (uint32_t)i) / 1e6);
		mean += fluid_done_ps(fl, (uint32_t)i) / 1e6 / n;
	}
	fluid_free(fl);
	if (!ran) {
		fprintf(stderr, "%s: the fluid deadlocked: full buffers hold every flow left\n", argv[0]);
		return 1;
	}

	double p_last = 0, p_mean = 0, p_wall = 0;
	uint64_t p_events = 0;

	if (packet) {
		struct sim *s = sim_new(1);
		struct fabric *f;
		g_autofree struct fl_rx *r = g_new0(struct fl_rx, n);

		cfg.fidelity = LINK_FIDELITY_PACKET;
		f = fabric_new(s, &cfg, &err);
		g_assert_nonnull(f);
		t0 = bench_now_s();
		for (int i = 0; i < n; i++) {
			r[i].s = s;
			fabric_send(f, i, peer_of(i, n, (int)d, xor), bytes, ROUTE_SHORTEST, fl_deliver, &r[i]);
		}
		sim_run(s, SIM_TIME_MAX, UINT64_MAX);
		p_wall = bench_now_s() - t0;
		p_events = sim_counters(s)->executed;
		for (int i = 0; i < n; i++) {
			p_last = MAX(p_last, (double)r[i].done_ps / 1e6);
			p_mean += (double)r[i].done_ps / 1e6 / n;
		}
		fabric_free(f);
		sim_free(s);
	}
	if (json) {
		printf("{\"bench\": \"fluid\", \"ranks\": %d, \"pattern\": \"%s\", \"distance\": %" G_GINT64_FORMAT
		       ", \"bytes\": %" G_GUINT64_FORMAT ", \"last_us\": %.6f, \"mean_us\": %.6f, \"events\": %"
		       G_GUINT64_FORMAT ", \"rounds\": %" G_GUINT64_FORMAT ", \"unsettled\": %" G_GUINT64_FORMAT
		       ", \"wall_s\": %.6f", n, xor ? "xor" : "shift", d, bytes, last, mean, st.events,
		       st.rounds, st.unsettled, wall);
		if (packet)
			printf(", \"packet_last_us\": %.6f, \"packet_mean_us\": %.6f, \"packet_events\": %"
			       G_GUINT64_FORMAT ", \"packet_wall_s\": %.6f", p_last, p_mean, p_events, p_wall);
		printf("}\n");
	} else {
		printf("fluid: ring %d, every rank to rank %s %" G_GINT64_FORMAT ", %" G_GUINT64_FORMAT
		       " bytes each: last %.3f us, mean %.3f us; %" G_GUINT64_FORMAT " events, %"
		       G_GUINT64_FORMAT " outputs shared again, %.3f s wall\n",
		       n, xor ? "XOR" : "+", d, bytes, last, mean, st.events, st.rounds, wall);
		if (packet)
			printf("packet: last %.3f us, mean %.3f us; %" G_GUINT64_FORMAT " events, %.3f s wall; "
			       "fluid against packet: last %+.2f %%, mean %+.2f %%\n",
			       p_last, p_mean, p_events, p_wall, (last / p_last - 1) * 100,
			       (mean / p_mean - 1) * 100);
	}
	return 0;
}
