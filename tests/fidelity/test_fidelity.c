/* Flow fidelity against packet fidelity on a reduced matrix of `g5 bench
 * fidelity`'s (sim/fidelity.h): every collective x every algorithm
 * registered for it on ring, full mesh, hypercube, torus, switch and tiers,
 * N = 4 and 16, at 4 KiB, 256 KiB and 16 MiB. Each curve (topology x collective x
 * algorithm, over its N and sizes) must meet the goal: geomean_err <= 2 %
 * and max <= 10 %, except the curves listed in `known_misses`, whose
 * errors are printed; a listed curve that meets the goal is reported too,
 * so that the list only shrinks. */
#include <glib.h>
#include <string.h>

#include "sim/link/topos.h"
#include "sim/algos/algo.h"
#include "sim/algos/schedule.h"
#include "sim/fidelity.h"
#include "sim/platform.h"

/* Multi-hop traffic on a ring (and the all-pairs one on a 16-rank
 * hypercube and torus): the packet fabric's store-and-forward with per-input
 * round robin and finite credits holds forwarded packets back, where
 * max-min sharing per flow does not (docs/scale.md, "Flow fidelity"). */
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
	{ &topo_hypercube_ops, "allreduce", "direct" },
	{ &topo_torus_ops, "allreduce", "direct" },
	/* All pairs at once through the spines of two tiers at N = 16: the flow
	 * model holds a node's next message on a channel until the one ahead
	 * has sent its last byte at its bottleneck's rate, where the packet
	 * fabric lets packets run ahead into the next hops' receive buffers
	 * (docs/scale.md); here flow fidelity is the slower. */
	{ &topo_tiers_ops, "allreduce", "direct" },
	{ &topo_tiers_ops, "allgather", "direct" },
	{ &topo_tiers_ops, "reducescatter", "direct" },
	{ &topo_tiers_ops, "allgatherv", "direct" },
	{ &topo_tiers_ops, "allgatherv", "nccl" },
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

static void test_topology(gconstpointer data)
{
	const struct topo_ops *kind = data;
	static const int ranks[] = { 4, 16 };
	static const uint64_t sizes[] = { 4096, 256 << 10, 16 << 20 };
	uint32_t curves = 0, failed = 0;

	for (size_t ci = 0; ci < G_N_ELEMENTS(colls); ci++)
		for (const struct algo_ops *const *a = algo_all(); *a; a++) {
			struct fidelity_err e = { 0 };

			if (!((*a)->collectives & colls[ci]))
				continue;
			for (size_t ri = 0; ri < G_N_ELEMENTS(ranks); ri++)
				for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
					g_autoptr(GError) err = NULL;

					if (!fidelity_point(kind, ranks[ri], colls[ci], (*a)->name, sizes[si],
							    &e, &err))
						g_error("%s %s %s on %d ranks: %s", topo_name(kind),
							coll_name(colls[ci]), (*a)->name, ranks[ri], err->message);
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
	g_assert_cmpuint(curves, >, 20);
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
	return g_test_run();
}
