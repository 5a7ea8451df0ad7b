/* gpu/g5x_nccl.cu — NCCL's own collective in the executor's harness: one
 * communicator per rank (ncclCommInitAll in one process, ncclCommInitRank
 * with the id broadcast under MPI), the collective of the schedule's kind
 * on the same buffers as the executor (NCCL has no AllGatherV: a group of
 * broadcasts, or with --nccl-agv pad the padded AllGather that frameworks
 * use; no in-place AllToAll: a copy first), checked by the same kernel and
 * timed by the same loop (g5x.cu's time_launches).
 *
 * Padded AllGatherV, per call: each rank copies its block into its slot of
 * `pad` (nranks slots of the largest block's count), runs an in-place
 * ncclAllGather of one slot per rank over `pad`, and copies every slot's
 * block out to its place in the output; the copies are device-to-device
 * cudaMemcpyAsync on the rank's stream, before and after the group of
 * AllGathers (inside a group NCCL enqueues at ncclGroupEnd). */
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

/* The largest block of the schedule at E elements. */
static uint64_t max_block(const struct gx_sched *s, uint64_t E)
{
	uint64_t m = 0;

	for (uint32_t b = 0; b < s->nblocks; b++)
		m = m > gx_block_first(s, E, b + 1) - gx_block_first(s, E, b)
			? m : gx_block_first(s, E, b + 1) - gx_block_first(s, E, b);
	return m;
}

static bool padded(const struct exec *x)
{
	return x->s->coll == GX_COLL_ALLGATHERV && x->o.nccl_pad;
}

/* Padded AllGatherV, phase 0: the rank's block into its slot; phase 1: the
 * AllGather over the slots (inside the caller's group); phase 2: every
 * slot's block out to the output. */
static void nccl_pad_phase(struct exec *x, struct grank *g, uint64_t E, bool inplace, int phase)
{
	const struct gx_sched *s = x->s;
	uint32_t es = x->esize;
	uint64_t m = max_block(s, E);
	int r = g->rank;
	uint64_t b0 = gx_block_first(s, E, (uint32_t)r), b1 = gx_block_first(s, E, (uint32_t)r + 1);
	const char *in = inplace ? g->bufB + b0 * es : g->bufA;

	if (phase == 0 && b1 > b0)
		CUDA_CHECK(cudaMemcpyAsync(g->pad + (uint64_t)r * m * es, in, (b1 - b0) * es,
					   cudaMemcpyDeviceToDevice, g->stream));
	if (phase == 1)
		NCCL_CHECK(ncclAllGather(g->pad + (uint64_t)r * m * es, g->pad, m,
					 nccl_type(x->o.dtype), g->comm, g->stream));
	if (phase == 2)
		for (int q = 0; q < x->nranks; q++) {
			uint64_t q0 = gx_block_first(s, E, (uint32_t)q);
			uint64_t q1 = gx_block_first(s, E, (uint32_t)q + 1);

			if (q1 > q0)
				CUDA_CHECK(cudaMemcpyAsync(g->bufB + q0 * es, g->pad + (uint64_t)q * m * es,
							   (q1 - q0) * es, cudaMemcpyDeviceToDevice,
							   g->stream));
		}
}

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

	if (padded(x)) {
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			nccl_pad_phase(x, &x->g[l], c->E, c->inplace, 0);
		}
		NCCL_CHECK(ncclGroupStart());
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			nccl_pad_phase(x, &x->g[l], c->E, c->inplace, 1);
		}
		NCCL_CHECK(ncclGroupEnd());
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			nccl_pad_phase(x, &x->g[l], c->E, c->inplace, 2);
		}
		return;
	}
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
		/* padded AllGatherV: room for nranks slots of the largest block,
		 * allocated before the timing */
		uint64_t need = (uint64_t)x->nranks * max_block(s, E) * x->esize;

		if (padded(x) && need > x->g[l].pad_bytes) {
			CUDA_CHECK(cudaFree(x->g[l].pad));
			x->g[l].pad = NULL;
			CUDA_CHECK(cudaMalloc((void **)&x->g[l].pad, need));
			x->g[l].pad_bytes = need;
		}
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
	for (int l = 0; l < x->nlocal; l++) {
		ncclCommDestroy(x->g[l].comm);
		if (x->g[l].pad) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			CUDA_CHECK(cudaFree(x->g[l].pad));
		}
	}
}
