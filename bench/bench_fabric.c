/* The fabric at full load, through its public API: an 8-node bidirectional
 * ring of 450 GB/s links with 4 KiB packets (link_params_default), every node
 * streaming one message (512 MiB by default) to its clockwise neighbour, all
 * at once. Measures the simulator's speed per packet: events, events/s and
 * wall time; the simulated time is the check that the stream ran at the
 * payload rate (512 MiB / 446.5 GB/s = 1202 us). */
#include <stdio.h>

#include "bench/bench.h"
#include "sim/link/topos.h"
#include "sim/cli.h"
#include "sim/core/sim.h"
#include "sim/link/link.h"

struct stream {
	uint64_t packets; /* delivery callbacks */
	bool done;
};

static void stream_deliver(void *user, uint64_t bytes, bool done)
{
	struct stream *st = user;

	st->packets++;
	st->done = done;
}

int bench_fabric(int argc, char **argv)
{
	gint64 mib = 512, nodes = 8, seed = 1;
	gboolean json = FALSE;
	GOptionEntry entries[] = {
		{ "mib", 0, 0, G_OPTION_ARG_INT64, &mib, "MiB each node streams (default 512)", "N" },
		{ "nodes", 0, 0, G_OPTION_ARG_INT64, &nodes, "ring size (default 8)", "N" },
		{ "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "RNG seed (default 1)", "N" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object", NULL },
		{ NULL }
	};
	int rc = cli_parse_entries("- the fabric's ring-streaming benchmark",
				   "Examples:\n"
				   "  g5 bench fabric\n"
				   "  g5 bench fabric --mib 64 --json",
				   entries, &argc, &argv);

	if (rc)
		return rc;
	if (mib < 0 || mib > 1024 * 1024)
		return cli_usage_error(argv[0], "--mib must be in 0..1048576, got %" G_GINT64_FORMAT, mib);
	if (nodes < 2 || nodes > 4096)
		return cli_usage_error(argv[0], "--nodes must be in 2..4096, got %" G_GINT64_FORMAT, nodes);

	struct fabric_config cfg = { .topo = &topo_ring_ops, .nranks = (int)nodes };
	g_autoptr(GError) err = NULL;

	link_params_default(&cfg.link);
	struct sim *s = sim_new((uint64_t)seed);
	struct fabric *f = fabric_new(s, &cfg, &err);

	if (!f) {
		fprintf(stderr, "%s: %s\n", argv[0], err->message);
		sim_free(s);
		return 1;
	}
	struct stream *st = g_new0(struct stream, nodes);
	uint64_t bytes = (uint64_t)mib << 20;

	double t0 = bench_now_s();

	for (int i = 0; i < nodes; i++)
		fabric_send(f, i, (i + 1) % (int)nodes, bytes, ROUTE_CW, stream_deliver, &st[i]);
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	double wall = bench_now_s() - t0;
	uint64_t events = sim_counters(s)->executed, packets = 0;
	rc = 0;

	for (int i = 0; i < nodes; i++) {
		packets += st[i].packets;
		if (!st[i].done) {
			fprintf(stderr, "%s: stream %d did not complete\n", argv[0], i);
			rc = 1;
		}
	}
	double rate = wall > 0 ? (double)events / wall : 0;
	double sim_us = (double)sim_now(s) / 1e6;

	if (json)
		printf("{\"bench\": \"fabric\", \"nodes\": %" G_GINT64_FORMAT ", \"mib\": %" G_GINT64_FORMAT
		       ", \"packets\": %" G_GUINT64_FORMAT ", \"sim_time_us\": %.3f, \"events\": %" G_GUINT64_FORMAT
		       ", \"events_per_s\": %.0f, \"wall_s\": %.6f}\n",
		       nodes, mib, packets, sim_us, events, rate, wall);
	else
		printf("fabric: %" G_GINT64_FORMAT "-node ring, %" G_GINT64_FORMAT " MiB per node clockwise, "
		       "%" G_GUINT64_FORMAT " packets: %.3f us simulated, %" G_GUINT64_FORMAT
		       " events (%.2f per packet) in %.3f s wall: %.2f M events/s\n",
		       nodes, mib, packets, sim_us, events, packets ? (double)events / packets : 0,
		       wall, rate / 1e6);
	g_free(st);
	sim_free(s);
	fabric_free(f);
	return rc;
}
