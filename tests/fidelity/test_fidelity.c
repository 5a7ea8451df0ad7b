/* Flow fidelity against packet fidelity on a reduced matrix of `g5 bench
 * fidelity`'s (sim/fidelity.h): every collective x every algorithm
 * registered for it on ring, full mesh, hypercube, torus, switch and tiers,
 * N = 4 and 16, at 4 KiB, 256 KiB and 16 MiB. Each curve (topology x collective x
 * algorithm, over its N and sizes) must meet the goal: geomean_err <= 2 %
 * and max <= 10 %, except the curves listed in `known_misses`, whose
 * errors are printed; a listed curve that meets the goal is reported too,
 * so that the list only shrinks. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "sim/link/topos.h"
#include "sim/algos/algo.h"
#include "sim/algos/schedule.h"
#include "sim/config.h"
#include "sim/fidelity.h"
#include "sim/platform.h"
#include "sim/simulate.h"

/* Multi-hop traffic on a ring: the packet fabric's store-and-forward with
 * per-input round robin and finite credits holds forwarded packets back,
 * where max-min sharing per flow does not (docs/scale.md, "Flow
 * fidelity"). The all-pairs curves of the 16-rank hypercube, torus and two
 * tiers, listed here before, meet the goal since a message lets the next
 * one pass once its rest fits the first hop's buffer ("Messages pass at a
 * switch ...", "Messages pass at a rank that forwards them"). */
static const struct {
	const struct topo_ops *kind;
	const char *coll, *algo;
} known_misses[] = {
	{ &topo_ring_ops, "allreduce", "hd" },
	{ &topo_ring_ops, "allreduce", "direct" },
	{ &topo_ring_ops, "allgather", "direct" },
	{ &topo_ring_ops, "allgather", "rd" },
	{ &topo_ring_ops, "allgather", "bruck" },
	{ &topo_ring_ops, "reducescatter", "direct" },
	{ &topo_ring_ops, "reducescatter", "rh" },
	{ &topo_ring_ops, "alltoall", "bruck" },
	{ &topo_ring_ops, "alltoall", "pairwise" },
	{ &topo_ring_ops, "alltoall", "nccl" },
	{ &topo_ring_ops, "allgatherv", "direct" },
	{ &topo_ring_ops, "allgatherv", "nccl" },
	/* AllGatherV's rd and bruck are the AllGather's schedules op for op
	 * (the test's counts are equal): their AllGather twins' miss above,
	 * to the same digits */
	{ &topo_ring_ops, "allgatherv", "rd" },
	{ &topo_ring_ops, "allgatherv", "bruck" },
	/* The torus algorithms' logical 2-D torus on a physical ring: the rings
	 * of its second dimension join ranks 4 apart (N = 16), multi-hop paths
	 * that contend as rd's and bruck's do. */
	{ &topo_ring_ops, "allreduce", "torus" },
	{ &topo_ring_ops, "allreduce", "torus2p" },
	{ &topo_ring_ops, "allgather", "torus" },
	{ &topo_ring_ops, "allgather", "torus2p" },
	{ &topo_ring_ops, "reducescatter", "torus" },
};

static bool known_miss(const struct topo_ops *kind, enum coll c, const char *algo)
{
	for (size_t i = 0; i < G_N_ELEMENTS(known_misses); i++)
		if (known_misses[i].kind == kind && !strcmp(known_misses[i].coll, coll_name(c)) &&
		    !strcmp(known_misses[i].algo, algo))
			return true;
	return false;
}

static const enum coll colls[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
				    COLL_ALLTOALL, COLL_BROADCAST, COLL_REDUCE, COLL_P2P,
				    COLL_ALLGATHERV };

/* Every curve of a topology, and at each of its points (a collective, N and
 * size) whether flow fidelity's fastest algorithm is within
 * FIDELITY_PICK_NEAR of packet fidelity's fastest at packet fidelity: what
 * `g5 tune --set fidelity=flow` picks. */
static void test_topology(gconstpointer data)
{
	const struct topo_ops *kind = data;
	static const int ranks[] = { 4, 16 };
	static const uint64_t sizes[] = { 4096, 256 << 10, 16 << 20 };
	uint32_t curves = 0, failed = 0, pick_failed = 0;
	struct fidelity_picks picks = { 0 };

	for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++) {
		GArray *times[G_N_ELEMENTS(ranks)][G_N_ELEMENTS(sizes)];

		for (size_t ri = 0; ri < G_N_ELEMENTS(ranks); ri++)
			for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++)
				times[ri][si] = g_array_new(FALSE, FALSE, sizeof(struct fidelity_time));
		for (const struct algo_ops *const *a = algo_all(); *a; a++) {
			struct fidelity_err e = { 0 };

			if (!((*a)->collectives & colls[ci]))
				continue;
			for (size_t ri = 0; ri < G_N_ELEMENTS(ranks); ri++)
				for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
					g_autoptr(GError) err = NULL;
					double us[2];

					if (!fidelity_point(kind, ranks[ri], colls[ci], (*a)->name, NULL,
							    sizes[si], &e, us, &err))
						g_error("%s %s %s on %d ranks: %s", topo_name(kind),
							coll_name(colls[ci]), (*a)->name, ranks[ri], err->message);
					struct fidelity_time t = { (*a)->name, us[0], us[1] };

					g_array_append_val(times[ri][si], t);
				}
			double gm = fidelity_geomean_err(&e);
			bool met = gm <= 0.02 && e.max_err <= 0.10;
			bool known = known_miss(kind, colls[ci], (*a)->name);

			curves++;
			g_assert_cmpuint(e.points, ==, G_N_ELEMENTS(ranks) * G_N_ELEMENTS(sizes));
			if (known || !met)
				g_test_message("%s %s %s: geomean_err %.2f %%, max %.2f %% (N = %d, %" G_GUINT64_FORMAT
					       " B)%s", topo_name(kind), coll_name(colls[ci]), (*a)->name,
					       100 * gm, 100 * e.max_err, e.max_ranks, e.max_bytes,
					       known && met ? ": meets the goal now, take it off the list" : "");
			if (!met && !known)
				failed++;
		}
		for (size_t ri = 0; ri < G_N_ELEMENTS(ranks); ri++)
			for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
				GArray *t = times[ri][si];
				struct fidelity_where at = { topo_name(kind), coll_name(colls[ci]), ranks[ri],
							     sizes[si] };
				guint f = 0, k = 0;
				double loss = fidelity_picks_add(&picks, &at,
								 (const struct fidelity_time *)(void *)t->data,
								 t->len, &f, &k);
				bool near = loss <= FIDELITY_PICK_NEAR;

				if (!near) {
					g_test_message("%s %s N = %d, %" G_GUINT64_FORMAT " B: flow fidelity picks "
						       "%s, %.2f %% slower at packet fidelity than packet "
						       "fidelity's pick, %s",
						       at.topo, at.coll, at.ranks, at.bytes,
						       g_array_index(t, struct fidelity_time, f).algo, 100 * loss,
						       g_array_index(t, struct fidelity_time, k).algo);
					pick_failed++;
				}
				g_array_unref(t);
			}
	}
	g_assert_cmpuint(curves, >, 20);
	g_assert_cmpuint(picks.points, >, 20);
	g_assert_cmpuint(failed, ==, 0);
	g_assert_cmpuint(pick_failed, ==, 0);
}

/* A flow.arbiter other than max-min on the ring, where routes have several
 * hops: every curve that max-min sharing brings within the goal stays
 * within it, and the error over all points is lower. */
static void arbiter_on_ring(enum link_flow_arbiter arbiter)
{
	static const int ranks[] = { 4, 16 };
	static const uint64_t sizes[] = { 4096, 256 << 10, 16 << 20 };
	struct fidelity_err all[2] = { { 0 } };
	uint32_t met[2] = { 0 }, lost = 0;
	struct platform base[2];

	for (uint32_t arb = 0; arb < 2; arb++) {
		platform_init_default(&base[arb]);
		base[arb].fabric.flow_arbiter = arb ? arbiter : LINK_FLOW_MAXMIN;
	}

	for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++)
		for (const struct algo_ops *const *a = algo_all(); *a; a++) {
			struct fidelity_err e[2] = { { 0 } };

			if (!((*a)->collectives & colls[ci]))
				continue;
			for (uint32_t arb = 0; arb < 2; arb++)
				for (size_t ri = 0; ri < G_N_ELEMENTS(ranks); ri++)
					for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
						g_autoptr(GError) err = NULL;

						if (!fidelity_point(&topo_ring_ops, ranks[ri], colls[ci],
								    (*a)->name, &base[arb], sizes[si],
								    &e[arb], NULL, &err))
							g_error("ring %s %s on %d ranks: %s",
								coll_name(colls[ci]), (*a)->name, ranks[ri],
								err->message);
					}
			bool ok[2];

			for (int arb = 0; arb < 2; arb++) {
				ok[arb] = fidelity_geomean_err(&e[arb]) <= 0.02 && e[arb].max_err <= 0.10;
				met[arb] += ok[arb];
				fidelity_err_merge(&all[arb], &e[arb]);
			}
			if (ok[0] && !ok[1]) {
				g_test_message("ring %s %s: arbiter %d geomean_err %.2f %%, max %.2f %%",
					       coll_name(colls[ci]), (*a)->name, (int)arbiter,
					       100 * fidelity_geomean_err(&e[1]), 100 * e[1].max_err);
				lost++;
			}
		}
	g_test_message("ring: curves met %u (maxmin) and %u (arbiter %d); geomean_err over all "
		       "points %.2f %% and %.2f %%", met[0], met[1], (int)arbiter, 100 * fidelity_geomean_err(&all[0]),
		       100 * fidelity_geomean_err(&all[1]));
	platform_release(&base[0]);
	platform_release(&base[1]);
	g_assert_cmpuint(all[0].points, ==, all[1].points);
	g_assert_cmpuint(lost, ==, 0);
	g_assert_cmpuint(met[1], >=, met[0]);
	g_assert_cmpfloat(fidelity_geomean_err(&all[1]), <, fidelity_geomean_err(&all[0]));
}

/* docs/scale.md, "Per-input round robin in flow fidelity" */
static void test_round_robin(void)
{
	arbiter_on_ring(LINK_FLOW_ROUND_ROBIN);
}

/* docs/scale.md, "Receive buffers as a fluid" */
static void test_buffers(void)
{
	arbiter_on_ring(LINK_FLOW_BUFFERS);
}

/* Round-robin sharing's rounds can cycle between allocations that are
 * none of them a fixed point (an input's demand is finite or not by which
 * hop holds one of its flows, and that flips back and forth): the direct
 * AllReduce on a torus of 16 ranks does. A cycle ends the rounds with the
 * mean of its allocations, so no component runs to the most rounds, and
 * the rounds per component stay few; the result is that of one run to the
 * next (deterministic). */
static void test_round_robin_cycles(void)
{
	struct platform pl;
	struct simulate_outcome out[2] = { { 0 } };

	platform_init_default(&pl);
	pl.fabric.fidelity = LINK_FIDELITY_FLOW;
	pl.fabric.flow_arbiter = LINK_FLOW_ROUND_ROBIN;
	pl.fabric.topo = &topo_torus_ops;
	pl.fabric.nranks = 16;
	for (int i = 0; i < 2; i++) {
		g_autoptr(GError) err = NULL;
		struct simulate_job job = {
			.plat = &pl, .coll = COLL_ALLREDUCE, .algo = "direct", .bytes = 16 << 20,
			.elem_bytes = 4, .params = { .nranks = 16, .nchunks = 1, .root = 0, .peer = 1 },
			.seed = 1, .proto = SIMULATE_PROTO_AUTO, .max_events = UINT64_MAX,
			.no_steps = true, .no_breakdown = true,
		};

		if (!simulate(&job, &out[i], &err))
			g_error("torus allreduce direct: %s", err->message);
	}
	const struct flow_rr_stats *st = &out[0].rr;

	g_test_message("torus 16, direct AllReduce 16 MiB: %" G_GUINT64_FORMAT " components shared, "
		       "%" G_GUINT64_FORMAT " fills, %" G_GUINT64_FORMAT " cycles, %" G_GUINT64_FORMAT
		       " unsettled; %.3f us", st->shares, st->fills, st->cycles, st->unsettled,
		       out[0].latency_us);
	g_assert_cmpuint(st->cycles, >, 0);
	g_assert_cmpuint(st->unsettled, ==, 0);
	g_assert_cmpuint(st->fills, <, 2 * st->shares);
	g_assert_cmpfloat(out[0].latency_us, ==, out[1].latency_us);
	g_assert_cmpuint(out[0].events, ==, out[1].events);
	for (int i = 0; i < 2; i++)
		simulate_outcome_clear(&out[i]);
	platform_release(&pl);
}

/* The latency of a job at one fidelity and protocol. */
static double latency_us(struct platform *pl, uint32_t fid, enum coll c, const char *algo,
			 int ranks, uint64_t bytes, enum paxi_proto proto)
{
	struct simulate_outcome out = { 0 };
	g_autoptr(GError) err = NULL;
	struct simulate_job job = {
		.plat = pl, .coll = c, .algo = algo, .bytes = bytes, .elem_bytes = 4,
		.params = { .nranks = ranks, .nchunks = 1, .root = 0, .peer = 1 },
		.seed = 1, .proto = (int)proto, .max_events = UINT64_MAX,
		.no_steps = true, .no_breakdown = true,
	};

	pl->fabric.fidelity = fid;
	if (!simulate(&job, &out, &err))
		g_error("%s %s: %s", coll_name(c), algo, err->message);
	double us = out.latency_us;

	simulate_outcome_clear(&out);
	return us;
}

/* The cascade of full buffers on a ring (docs/scale.md, "The multi-hop
 * misses are per-input round robin behind full buffers, cascading"):
 * direct AllGather on 8 ranks, 16 and 64 MiB, where max-min sharing is
 * about half packet fidelity's time. With flow.arbiter buffers both
 * come within 8 % of packet fidelity, and a second run gives the same
 * picoseconds. Without credits (buffers that never fill) it gives round
 * robin's result. */
static void test_buffers_cascade(void)
{
	static const uint64_t sizes[] = { 16 << 20, 64 << 20 };
	struct platform pl;

	platform_init_default(&pl);
	pl.fabric.topo = &topo_ring_ops;
	pl.fabric.nranks = 8;
	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		double pk = latency_us(&pl, LINK_FIDELITY_PACKET, COLL_ALLGATHER, "direct", 8, sizes[i],
				       PAXI_PROTO_SIMPLE);

		pl.fabric.flow_arbiter = LINK_FLOW_MAXMIN;
		double mm = latency_us(&pl, LINK_FIDELITY_FLOW, COLL_ALLGATHER, "direct", 8, sizes[i],
				       PAXI_PROTO_SIMPLE);

		pl.fabric.flow_arbiter = LINK_FLOW_BUFFERS;
		double bf = latency_us(&pl, LINK_FIDELITY_FLOW, COLL_ALLGATHER, "direct", 8, sizes[i],
				       PAXI_PROTO_SIMPLE);
		double again = latency_us(&pl, LINK_FIDELITY_FLOW, COLL_ALLGATHER, "direct", 8, sizes[i],
					  PAXI_PROTO_SIMPLE);

		g_test_message("ring 8 direct AllGather %" G_GUINT64_FORMAT " MiB: packet %.3f us, "
			       "max-min %.3f us, buffers %.3f us", sizes[i] >> 20, pk, mm, bf);
		g_assert_cmpfloat(mm / pk, <, 0.6);
		g_assert_cmpfloat(fabs(bf / pk - 1), <, 0.08);
		g_assert_cmpfloat(bf, ==, again);
	}
	/* without credits a buffer never fills: round robin's rates, to the
	 * picosecond */
	pl.fabric.link.credits = 0;
	pl.fabric.switch_link.credits = 0;
	pl.fabric.flow_arbiter = LINK_FLOW_ROUND_ROBIN;
	double rr = latency_us(&pl, LINK_FIDELITY_FLOW, COLL_ALLGATHER, "direct", 8, 16 << 20,
			       PAXI_PROTO_SIMPLE);

	pl.fabric.flow_arbiter = LINK_FLOW_BUFFERS;
	g_assert_cmpfloat(latency_us(&pl, LINK_FIDELITY_FLOW, COLL_ALLGATHER, "direct", 8, 16 << 20,
				     PAXI_PROTO_SIMPLE), ==, rr);
	platform_release(&pl);
}

/* A node's injection and ejection are rates its ports share (DESIGN.md),
 * at packet fidelity as at flow fidelity: where the packet fabric kept them
 * as next-free clocks, a node that sends on two ports in step lost its
 * memory input's turns to what it forwarded (ring 8 binomial Broadcast,
 * 64 MiB: 936.9 us against flow's 782.3), direct AllGather on a ring of 4
 * came out 45 % faster than the links allow (329.6 us against 478.8), and
 * with ejection alone capped ring2p's lanes landed in channel order,
 * nodes alike finishing apart (ring 4, 256 MiB: 863.7 us against 733.1).
 * Each is within 0.2 % of flow fidelity now. */
static void test_shared_rate(void)
{
	static const struct {
		int ranks;
		enum coll c;
		const char *algo;
		uint64_t bytes;
		bool inject_unlimited;
	} runs[] = {
		{ 8, COLL_BROADCAST, "binomial", 64ull << 20, false },
		{ 4, COLL_ALLGATHER, "direct", 256ull << 20, false },
		{ 4, COLL_ALLREDUCE, "ring2p", 256ull << 20, true },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
		struct platform pl;

		platform_init_default(&pl);
		pl.fabric.topo = &topo_ring_ops;
		pl.fabric.nranks = runs[i].ranks;
		if (runs[i].inject_unlimited)
			pl.fabric.node.inject_bytes_per_s = 0;
		double pk = latency_us(&pl, LINK_FIDELITY_PACKET, runs[i].c, runs[i].algo, runs[i].ranks,
				       runs[i].bytes, PAXI_PROTO_SIMPLE);
		double fl = latency_us(&pl, LINK_FIDELITY_FLOW, runs[i].c, runs[i].algo, runs[i].ranks,
				       runs[i].bytes, PAXI_PROTO_SIMPLE);

		g_test_message("ring %d %s %s: packet %.3f us, flow %.3f us", runs[i].ranks,
			       runs[i].algo, coll_name(runs[i].c), pk, fl);
		g_assert_cmpfloat(fabs(pk / fl - 1), <, 0.002);
		platform_release(&pl);
	}
}

/* Collective c by algo on `ranks` ranks of topo at `bytes` on the seed
 * platform, with flow.arbiter buffers against packet fidelity: both
 * latencies as a message, and |buffers / packet - 1|. */
static double buffers_err(const struct topo_ops *topo, int ranks, enum coll c, const char *algo,
			  uint64_t bytes)
{
	struct platform pl;

	platform_init_default(&pl);
	pl.fabric.topo = topo;
	pl.fabric.nranks = ranks;
	double pk = latency_us(&pl, LINK_FIDELITY_PACKET, c, algo, ranks, bytes, PAXI_PROTO_SIMPLE);

	pl.fabric.flow_arbiter = LINK_FLOW_BUFFERS;
	double bf = latency_us(&pl, LINK_FIDELITY_FLOW, c, algo, ranks, bytes, PAXI_PROTO_SIMPLE);

	g_test_message("%s %d %s %s, %" G_GUINT64_FORMAT " B: packet %.6f us, buffers %.6f us",
		       topo_name(topo), ranks, algo, coll_name(c), bytes, pk, bf);
	platform_release(&pl);
	return fabs(bf / pk - 1);
}

/* A message whose end became known while it was alone on its route (a
 * ghost, flow.c) keeps its channel's line: the fluid let the line go on
 * behind one, whose leaving then never counted, and the messages of its
 * pair waited for ever (ring 16 nccl AllToAll at 4 MiB: "schedule
 * deadlocked: 116 ops never completed"). It completes, within 15 % of
 * packet fidelity (14.1 %). */
static void test_buffers_ghost(void)
{
	g_assert_cmpfloat(buffers_err(&topo_ring_ops, 16, COLL_ALLTOALL, "nccl", 4 << 20), <, 0.15);
}

/* A small message on a route of 16 hops or more: the fluid moves a
 * message's first bytes a hop per step, so within its window of 16 steps
 * such a message delivered nothing and was given the least rate until the
 * next window. Ring 64 pairwise AllToAll of 1 KiB (16-byte messages over
 * up to 32 hops) came out 14.9 % slow (388.5 us against packet fidelity's
 * 338.1); its rate is now read past its route's length. The fluid is
 * within 1 % of packet fidelity there, as max-min is, and on a ring of 16
 * (routes of up to 8 hops, which the change leaves as they were). */
static void test_buffers_long_route(void)
{
	static const int ranks[] = { 16, 64 };

	for (size_t i = 0; i < G_N_ELEMENTS(ranks); i++)
		g_assert_cmpfloat(buffers_err(&topo_ring_ops, ranks[i], COLL_ALLTOALL, "pairwise", 1024), <,
				  0.01);
}

/* The packet fabric queues a channel's arrivals by the channel they leave
 * on, in the room of the buffer they share, so no output holds another's
 * part: where a node forwards on several ports, a buffer's parts drain at
 * their own outputs' grants. Draining a buffer in proportion, held by its
 * most held output, made direct AllGather 64 MiB on a hypercube of 16
 * 11.7 % slow and on a torus of 32 16.4 % slow; by output they are within
 * 5 % of packet fidelity (2.2 and 4.7 %). */
static void test_buffers_by_output(void)
{
	g_assert_cmpfloat(buffers_err(&topo_hypercube_ops, 16, COLL_ALLGATHER, "direct", 64 << 20), <, 0.05);
	g_assert_cmpfloat(buffers_err(&topo_torus_ops, 32, COLL_ALLGATHER, "direct", 64 << 20), <, 0.05);
}

/* A rate the fluid gives is a window's: a fused op that took the rest of
 * its incoming message at such a rate (the early take, flow.h) charged its
 * reduction up to when that rate would have delivered it, and ring
 * ReduceScatter with the torus algorithm on 32 ranks at 4 MiB ended at
 * 249.5 us where packet fidelity ends at 61.0. The fluid's flows take no
 * early rest: within 5 % (2.3 %). */
static void test_buffers_no_early(void)
{
	g_assert_cmpfloat(buffers_err(&topo_ring_ops, 32, COLL_REDUCESCATTER, "torus", 4 << 20), <, 0.05);
}

/* LL and LL128 make each line usable as it lands, so a chain forwards per
 * packet, not per slice: flow fidelity delivers such a Transfer packet by
 * packet and times the chain as packet fidelity does (cut per slice, it was
 * up to 4 % slower at N = 16 and 16 % at N = 64, and NCCL's pick of a
 * protocol followed it). */
static void test_protocols(void)
{
	static const enum paxi_proto protos[] = { PAXI_PROTO_LL, PAXI_PROTO_LL128 };
	static const enum coll cs[] = { COLL_REDUCE, COLL_BROADCAST };
	static const uint64_t sizes[] = { 4096, 64 << 10, 1 << 20 };
	static const struct topo_ops *const kinds[] = { &topo_fullmesh_ops, &topo_ring_ops };

	for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
		for (size_t p = 0; p < G_N_ELEMENTS(protos); p++)
			for (size_t ci = 0; ci < G_N_ELEMENTS(cs); ci++)
				for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
					struct platform pl;

					platform_init_default(&pl);
					pl.fabric.topo = kinds[k];
					pl.fabric.nranks = 16;
					double pk = latency_us(&pl, LINK_FIDELITY_PACKET, cs[ci], "chain", 16,
							       sizes[si], protos[p]);
					double fl = latency_us(&pl, LINK_FIDELITY_FLOW, cs[ci], "chain", 16,
							       sizes[si], protos[p]);

					if (fabs(fl / pk - 1) > 0.001)
						g_error("%s %s chain, %s, %" G_GUINT64_FORMAT " B: flow %.6f us, "
							"packet %.6f us", topo_name(kinds[k]), coll_name(cs[ci]),
							paxi_proto_name(protos[p]), sizes[si], fl, pk);
					platform_release(&pl);
				}
}

/* ring2p reduces the slices of both directions on one reducer per node.
 * Flow fidelity lands the two directions' slices at the same picosecond;
 * taken in the order their flows were made, they went first lane first on
 * some nodes and the other way on the rest, and the ring's nodes, all
 * alike, finished at different times (N = 4, 32 MiB: 15 % slower than
 * packet fidelity, 18 % at 256 MiB). With the first lane first on every
 * node, as packet fidelity has it, both agree. */
static void test_lanes(void)
{
	static const enum coll cs[] = { COLL_ALLREDUCE, COLL_REDUCESCATTER };
	static const int ranks[] = { 4, 8 };
	static const uint64_t sizes[] = { 4 << 20, 32 << 20, 256 << 20 };

	for (size_t ci = 0; ci < G_N_ELEMENTS(cs); ci++)
		for (size_t ri = 0; ri < G_N_ELEMENTS(ranks); ri++)
			for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
				struct platform pl;

				platform_init_default(&pl);
				pl.fabric.topo = &topo_ring_ops;
				pl.fabric.nranks = ranks[ri];
				double pk = latency_us(&pl, LINK_FIDELITY_PACKET, cs[ci], "ring2p", ranks[ri],
						       sizes[si], PAXI_PROTO_SIMPLE);
				double fl = latency_us(&pl, LINK_FIDELITY_FLOW, cs[ci], "ring2p", ranks[ri],
						       sizes[si], PAXI_PROTO_SIMPLE);

				if (fabs(fl / pk - 1) > 0.005)
					g_error("ring %s ring2p, N = %d, %" G_GUINT64_FORMAT " B: flow %.6f us, "
						"packet %.6f us", coll_name(cs[ci]), ranks[ri], sizes[si], fl, pk);
				platform_release(&pl);
			}
}

/* The picks at a point: each fidelity takes the first of its fastest, in
 * the order given (as g5 tune breaks ties); the loss is the packet time of
 * flow's pick over packet's best, less one, so a pick exactly as fast at
 * packet fidelity agrees; a point of one algorithm is no point. */
static void test_picks(void)
{
	static const struct fidelity_time differ[] = {
		{ "a", 10, 9 }, { "b", 8, 9.5 }, { "c", 12, 9 },
	};
	static const struct fidelity_time tie[] = { { "a", 5, 7 }, { "b", 5, 6 } };
	static const struct fidelity_time close[] = { { "a", 100, 2 }, { "b", 101, 1 } };
	struct fidelity_where w1 = { "ring", "allgather", 8, 1024 }, w2 = { "torus", "alltoall", 16, 4096 };
	struct fidelity_picks p = { 0 };
	guint f = 9, k = 9;

	g_assert_cmpfloat(fidelity_picks_add(&p, &w1, differ, 1, &f, &k), ==, 0);
	g_assert_cmpuint(p.points, ==, 0);
	g_assert_cmpuint(f, ==, 9);
	g_assert_cmpfloat(fidelity_picks_geomean_loss(&p), ==, 0);
	g_assert_cmpfloat_with_epsilon(fidelity_picks_add(&p, &w1, differ, 3, &f, &k), 0.25, 1e-12);
	g_assert_cmpuint(f, ==, 0); /* a and c tie at 9: the first */
	g_assert_cmpuint(k, ==, 1);
	g_assert_cmpfloat(fidelity_picks_add(&p, &w2, tie, 2, &f, &k), ==, 0);
	g_assert_cmpuint(f, ==, 1);
	g_assert_cmpuint(k, ==, 0);
	g_assert_cmpfloat_with_epsilon(fidelity_picks_add(&p, &w2, close, 2, NULL, NULL), 0.01, 1e-12);
	g_assert_cmpuint(p.points, ==, 3);
	g_assert_cmpuint(p.agree, ==, 1);
	g_assert_cmpuint(p.near, ==, 2);
	g_assert_cmpfloat_with_epsilon(p.max_loss, 0.25, 1e-12);
	g_assert_cmpstr(p.max_at.topo, ==, "ring");
	g_assert_cmpint(p.max_at.ranks, ==, 8);
	g_assert_cmpstr(p.max_flow_pick, ==, "a");
	g_assert_cmpstr(p.max_packet_pick, ==, "b");
	g_assert_cmpfloat_with_epsilon(fidelity_picks_geomean_loss(&p), cbrt(1.25 * 1.01) - 1, 1e-12);
}

/* The calibrated two-H200 platform (configs/platforms/h200x2-nvlink.yaml:
 * 64 KiB packets, the memory sides capped at the protocol's channels'
 * rate, far below a link's): every collective x algorithm at 4 KiB, 64 KiB,
 * 1 MiB and 16 MiB meets the goal, with no list of misses. A message's
 * first packet goes at the links' rate as the packet fabric's clock lets
 * it (flow.c, size_flow); before, 13 of its 49 curves missed, P2P by 18 %
 * at 64 KiB (docs/scale.md, "Memory sides' first packets at the links'
 * rate"). */
static void test_calibrated(void)
{
	static const uint64_t sizes[] = { 4096, 64 << 10, 1 << 20, 16 << 20 };
	struct platform pl;
	g_autoptr(GError) err = NULL;
	uint32_t curves = 0, failed = 0;

	if (!config_platform_load("configs/platforms/h200x2-nvlink.yaml", &pl, &err))
		g_error("%s", err->message);
	for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++)
		for (const struct algo_ops *const *a = algo_all(); *a; a++) {
			struct fidelity_err e = { 0 };

			if (!((*a)->collectives & colls[ci]))
				continue;
			for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
				g_autoptr(GError) perr = NULL;

				if (!fidelity_point(pl.fabric.topo, pl.fabric.nranks, colls[ci], (*a)->name,
						    &pl, sizes[si], &e, NULL, &perr))
					g_error("h200x2-nvlink %s %s: %s", coll_name(colls[ci]), (*a)->name,
						perr->message);
			}
			double gm = fidelity_geomean_err(&e);

			curves++;
			if (gm > 0.02 || e.max_err > 0.10) {
				g_test_message("h200x2-nvlink %s %s: geomean_err %.2f %%, max %.2f %% (%" G_GUINT64_FORMAT
					       " B)", coll_name(colls[ci]), (*a)->name, 100 * gm, 100 * e.max_err,
					       e.max_bytes);
				failed++;
			}
		}
	platform_release(&pl);
	g_assert_cmpuint(curves, ==, 49);
	g_assert_cmpuint(failed, ==, 0);
}

int main(int argc, char **argv)
{
	static const struct topo_ops *const kinds[] = { &topo_ring_ops, &topo_fullmesh_ops,
							 &topo_hypercube_ops, &topo_torus_ops,
							 &topo_switch_ops, &topo_tiers_ops };

	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_autofree char *path = g_strdup_printf("/fidelity/%s", topo_name(kinds[i]));

		g_test_add_data_func(path, kinds[i], test_topology);
	}
	g_test_add_func("/fidelity/round-robin", test_round_robin);
	g_test_add_func("/fidelity/buffers", test_buffers);
	g_test_add_func("/fidelity/buffers-cascade", test_buffers_cascade);
	g_test_add_func("/fidelity/buffers-ghost", test_buffers_ghost);
	g_test_add_func("/fidelity/buffers-long-route", test_buffers_long_route);
	g_test_add_func("/fidelity/buffers-by-output", test_buffers_by_output);
	g_test_add_func("/fidelity/buffers-no-early", test_buffers_no_early);
	g_test_add_func("/fidelity/shared-rate", test_shared_rate);
	g_test_add_func("/fidelity/round-robin-cycles", test_round_robin_cycles);
	g_test_add_func("/fidelity/protocols", test_protocols);
	g_test_add_func("/fidelity/lanes", test_lanes);
	g_test_add_func("/fidelity/picks", test_picks);
	g_test_add_func("/fidelity/calibrated", test_calibrated);
	return g_test_run();
}
