/* NCCL's algorithm as a schedule generator (docs/validation.md).
 *
 * What NCCL 2.28 runs on the ranks of one NVLink domain without NVLS, as its
 * INIT/TUNING log shows (docs/validation.md): the ring for AllReduce,
 * AllGather and ReduceScatter (NCCL's ring kernel: send, recv-reduce-send,
 * ..., recv), the pipelined chain of the ring for Broadcast and Reduce, and
 * its point-to-point path for AllToAll (grouped send/recv to every peer: the
 * pairwise exchange), P2P (one send/recv) and AllGatherV (one broadcast per
 * rank, grouped: every rank's block goes straight to every other rank). A
 * rank's copy of its own data into its output travels with that data's
 * first send (copy_send, NCCL's copySend: algo_params.fuse_copy). All
 * on Transfers: NCCL's protocols are transports of a one-sided write
 * (paxi_proto); which protocol runs is chosen per size by the caller
 * (sim/simulate.c), as NCCL does, by the least predicted time. The schedule
 * is the family's, renamed "nccl". */
#include "sim/algos/families.h"

static const struct algo_ops *nccl_family(enum coll c)
{
	switch (c) {
	case COLL_ALLREDUCE:
	case COLL_ALLGATHER:
	case COLL_REDUCESCATTER:
		return &algo_ring_ops;
	case COLL_BROADCAST:
	case COLL_REDUCE:
		return &algo_chain_ops;
	case COLL_ALLTOALL:
		return &algo_pairwise_ops;
	case COLL_P2P:
		return &algo_p2p_direct_ops;
	case COLL_ALLGATHERV:
		return &algo_agv_direct_ops;
	}
	g_assert_not_reached();
}

static struct sched *nccl_build(enum coll c, const struct algo_params *p, GError **error)
{
	struct algo_params fp = *p;

	fp.fuse_copy = true; /* NCCL's copySend: a root's or first step's one pass */
	struct sched *s = nccl_family(c)->build(c, &fp, error);

	if (s) {
		g_free(s->algo);
		s->algo = g_strdup("nccl");
	}
	return s;
}

static void nccl_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	nccl_family(c)->theory(c, p, out);
}

uint32_t algo_nccl_tasks(enum coll c, int nranks, int rank, int root, int peer)
{
	switch (c) {
	case COLL_ALLTOALL:
		return 2 * (uint32_t)nranks;
	case COLL_ALLGATHERV:
		return (uint32_t)nranks;
	case COLL_P2P:
		return (rank == root) + (rank == peer);
	case COLL_ALLREDUCE:
	case COLL_ALLGATHER:
	case COLL_REDUCESCATTER:
	case COLL_BROADCAST:
	case COLL_REDUCE:
		return 1;
	}
	g_assert_not_reached();
}

const struct algo_ops algo_nccl_ops = {
	.name = "nccl",
	.summary = "NCCL's choice: ring, chain (broadcast, reduce), point-to-point (alltoall, "
		   "p2p, allgatherv)",
	.collectives = COLL_ALLREDUCE | COLL_ALLGATHER | COLL_REDUCESCATTER | COLL_ALLTOALL |
		       COLL_BROADCAST | COLL_REDUCE | COLL_P2P | COLL_ALLGATHERV,
	.default_paxi = PAXI_TRANSFER,
	.build = nccl_build,
	.theory = nccl_theory,
};
