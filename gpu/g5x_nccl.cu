/* gpu/g5x_nccl.cu — NCCL's own collective in the executor's harness: one
 * communicator per rank (ncclCommInitAll in one process, ncclCommInitRank
 * with the id broadcast under MPI), the collective of the schedule's kind
 * on the same buffers as the executor (NCCL has no AllGatherV: a group of
 * broadcasts; no in-place AllToAll: a copy first), checked by the same
 * kernel and timed by the same loop (g5x.cu's time_launches). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdlib.h>

#include "gpu/g5x.h"

static ncclDataType_t nccl_type(enum gx_dtype d)
{
	return d == GX_F32 ? ncclFloat : d == GX_F16 ? ncclHalf : ncclBfloat16;
}

struct nccl_ctx {
	uint64_t E;
	bool inplace;
};

static void nccl_one(struct exec *x, struct grank *g, uint64_t E, bool inplace)
{
	const struct gx_sched *s = x->s;
	ncclDataType_t t = nccl_type(x->o.dtype);
	uint32_t es = x->esize;
	int n = x->nranks, r = g->rank;
	char *out = g->bufB;
	const char *in = inplace ? g->bufB : g->bufA;
	uint64_t b0 = gx_block_first(s, E, (uint32_t)r), b1 = gx_block_first(s, E, (uint32_t)r + 1);

	switch (s->coll) {
	case GX_COLL_ALLREDUCE:
		NCCL_CHECK(ncclAllReduce(in, out, E, t, ncclSum, g->comm, g->stream));
		break;
	case GX_COLL_ALLGATHER:
		NCCL_CHECK(ncclAllGather(inplace ? out + b0 * es : in, out, E / n, t, g->comm,
					 g->stream));
		break;
	case GX_COLL_REDUCESCATTER:
		NCCL_CHECK(ncclReduceScatter(in, inplace ? out + b0 * es : out, E / n, t, ncclSum,
					     g->comm, g->stream));
		break;
	case GX_COLL_BROADCAST:
		NCCL_CHECK(ncclBroadcast(in, out, E, t, s->root, g->comm, g->stream));
		break;
	case GX_COLL_REDUCE:
		NCCL_CHECK(ncclReduce(in, out, E, t, ncclSum, s->root, g->comm, g->stream));
		break;
	case GX_COLL_ALLTOALL:
		if (inplace) { /* NCCL has no in-place AllToAll: copy the input first */
			CUDA_CHECK(cudaMemcpyAsync(g->bufA, g->bufB, E * es, cudaMemcpyDeviceToDevice,
						   g->stream));
			in = g->bufA;
		}
		NCCL_CHECK(ncclGroupStart());
		for (int q = 0; q < n; q++) {
			NCCL_CHECK(ncclSend(in + (E / n) * q * es, E / n, t, q, g->comm, g->stream));
			NCCL_CHECK(ncclRecv(out + (E / n) * q * es, E / n, t, q, g->comm, g->stream));
		}
		NCCL_CHECK(ncclGroupEnd());
		break;
	case GX_COLL_P2P:
		if (r == s->root)
			NCCL_CHECK(ncclSend(in, E, t, s->peer, g->comm, g->stream));
		if (r == s->peer)
			NCCL_CHECK(ncclRecv(out, E, t, s->root, g->comm, g->stream));
		break;
	case GX_COLL_ALLGATHERV:
		/* no AllGatherV in NCCL: one broadcast per rank's block */
		NCCL_CHECK(ncclGroupStart());
		for (int q = 0; q < n; q++) {
			uint64_t q0 = gx_block_first(s, E, (uint32_t)q);
			uint64_t q1 = gx_block_first(s, E, (uint32_t)q + 1);

			NCCL_CHECK(ncclBroadcast(q == r ? (inplace ? out + b0 * es : in) : NULL,
						 out + q0 * es, q1 - q0, t, q, g->comm, g->stream));
		}
		NCCL_CHECK(ncclGroupEnd());
		break;
	}
	(void)b1;
}

static void nccl_launch(struct exec *x, void *ctx)
{
	struct nccl_ctx *c = (struct nccl_ctx *)ctx;

	NCCL_CHECK(ncclGroupStart());
	for (int l = 0; l < x->nlocal; l++) {
		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		nccl_one(x, &x->g[l], c->E, c->inplace);
	}
	NCCL_CHECK(ncclGroupEnd());
}

void setup_nccl(struct exec *x)
{
	if (gx_comm_is_mpi()) {
		ncclUniqueId id;

		if (x->proc == 0)
			NCCL_CHECK(ncclGetUniqueId(&id));
		gx_comm_bcast(&id, sizeof(id));
		CUDA_CHECK(cudaSetDevice(x->g[0].dev));
		NCCL_CHECK(ncclCommInitRank(&x->g[0].comm, x->nranks, id, x->proc));
	} else {
		ncclComm_t *comms = (ncclComm_t *)calloc((size_t)x->nranks, sizeof(ncclComm_t));
		int *devs = (int *)calloc((size_t)x->nranks, sizeof(int));

		for (int r = 0; r < x->nranks; r++)
			devs[r] = x->g[r].dev;
		NCCL_CHECK(ncclCommInitAll(comms, x->nranks, devs));
		for (int r = 0; r < x->nranks; r++)
			x->g[r].comm = comms[r];
		free(comms);
		free(devs);
	}
}

/* NCCL's collectives need equal blocks; the executor's do not. */
bool nccl_admits(const struct gx_sched *s, uint64_t E)
{
	switch (s->coll) {
	case GX_COLL_ALLGATHER:
	case GX_COLL_REDUCESCATTER:
	case GX_COLL_ALLTOALL:
		return E % (uint64_t)s->nranks == 0;
	default:
		return true;
	}
}

double nccl_measure(struct exec *x, uint64_t E, bool inplace, long long *wrong)
{
	struct nccl_ctx c = { E, inplace };

	for (int l = 0; l < x->nlocal; l++) {
		const struct gx_sched *s = x->s;
		uint64_t *bf = (uint64_t *)calloc(s->nblocks + 1, 8);

		for (uint32_t b = 0; b <= s->nblocks; b++)
			bf[b] = gx_block_first(s, E, b);
		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		CUDA_CHECK(cudaMemcpy(x->g[l].block_first, bf, (s->nblocks + 1) * 8,
				      cudaMemcpyHostToDevice));
		free(bf);
	}
	if (x->o.check) {
		prepare_data(x, E, inplace);
		nccl_launch(x, &c);
		sync_all(x);
		*wrong = (long long)count_wrong(x, E, inplace);
	}
	return time_launches(x, nccl_launch, &c);
}

void release_nccl(struct exec *x)
{
	for (int l = 0; l < x->nlocal; l++)
		ncclCommDestroy(x->g[l].comm);
}
