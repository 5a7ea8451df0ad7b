/* gpu/g5x_ceilings.cu — what the hardware allows, measured in the
 * executor's harness. --baseline: the bandwidth of 1 GiB copies between
 * GPUs 0 and 1 by the copy engine (cudaMemcpyPeerAsync) and by SM stores
 * (a kernel of 16-byte stores into the peer's memory), one way and both
 * ways. --probe: the cost of an empty launch and the one-way latency of a
 * flag (half a ping-pong round trip with the executor's own flag
 * operations). Both print a comment line and append CSV rows. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu/g5x.h"
#include "gpu/g5x_dev.cuh"

/* ---- ceilings ---- */

/* One-way SM-store ceiling: each block copies its share of src into the
 * peer's dst with 16-byte vectors. */
__global__ void store_kernel(const uint4 *src, uint4 *dst, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

void baseline(struct exec *x)
{
	const uint64_t bytes = 1ull << 30;
	const int reps = 10;

	if (gx_comm_is_mpi() || x->nlocal < 2) {
		if (!x->proc)
			printf("# baseline: needs the single-process binary and 2 GPUs\n");
		return;
	}
	struct grank *a = &x->g[0], *b = &x->g[1];
	char *src[2], *dst[2];

	for (int k = 0; k < 2; k++) {
		CUDA_CHECK(cudaSetDevice(x->g[k].dev));
		CUDA_CHECK(cudaMalloc((void **)&src[k], bytes));
		CUDA_CHECK(cudaMalloc((void **)&dst[k], bytes));
		CUDA_CHECK(cudaMemset(src[k], 1, bytes));
	}
	printf("# baseline: %d x %llu bytes per direction, timer wall\n", reps,
	       (unsigned long long)bytes);
	for (int engine = 0; engine < 2; engine++)
		for (int both = 0; both < 2; both++) {
			for (int pass = 0; pass < 2; pass++) { /* warm-up, then timed */
				sync_all(x);
				double t0 = wall_s();

				for (int i = 0; i < (pass ? reps : 1); i++)
					for (int k = 0; k < (both ? 2 : 1); k++) {
						struct grank *from = k ? b : a;
						int to = 1 - k;

						CUDA_CHECK(cudaSetDevice(from->dev));
						if (engine == 0)
							CUDA_CHECK(cudaMemcpyPeerAsync(
								dst[to], x->g[to].dev, src[k], from->dev,
								bytes, from->stream));
						else
							store_kernel<<<132, 1024, 0, from->stream>>>(
								(const uint4 *)src[k], (uint4 *)dst[to],
								bytes / 16);
						CUDA_CHECK(cudaGetLastError());
					}
				sync_all(x);
				double s = wall_s() - t0;

				if (!pass)
					continue;
				double gbps = (double)bytes * reps / s / 1e9;

				printf("# baseline %-10s %-9s %8.1f GB/s per direction\n",
				       engine ? "sm-stores" : "copy-engine", both ? "both-ways" : "one-way",
				       gbps);
				if (x->csv)
					fprintf(x->csv, "baseline-%s,%s,-,2,%llu,%llu,-,0,wall,%d,%.3f,%.3f,%.3f,0,"
							"single,1,-,-,%s,0\n",
						engine ? "sm" : "ce", both ? "bothways" : "oneway",
						(unsigned long long)bytes, (unsigned long long)bytes, reps,
						s * 1e6 / reps, gbps, gbps, engine ? "sm" : "ce");
			}
		}
	for (int k = 0; k < 2; k++) {
		CUDA_CHECK(cudaSetDevice(x->g[k].dev));
		CUDA_CHECK(cudaFree(src[k]));
		CUDA_CHECK(cudaFree(dst[k]));
	}
	fflush(stdout);
}

/* ---- the probe: launch cost and flag round trip ---- */

/* The probe's kernels: an empty launch (the launch cost in the harness) and
 * a flag ping-pong between two ranks with the executor's own flag
 * operations (st.release.sys into the peer's region, ld.acquire.sys polling
 * one's own), `k` round trips a launch, values running on across launches. */
__global__ void empty_kernel(void) {}

__global__ void pingpong_kernel(char **regions, int rank, int peer, uint64_t base, int k)
{
	uint64_t *mine = (uint64_t *)regions[rank] + peer;
	uint64_t *theirs = (uint64_t *)regions[peer] + rank;

	for (int i = 1; i <= k; i++) {
		uint64_t v = base + (uint64_t)i;

		if (rank == 0) {
			gx_flag_store(theirs, v);
			while (gx_flag_load(mine) < v)
				;
		} else {
			while (gx_flag_load(mine) < v)
				;
			gx_flag_store(theirs, v);
		}
	}
}

#define PROBE_K 1000

struct probe_ctx {
	bool pingpong;
	uint64_t launches;
};

static void probe_launch(struct exec *x, void *ctx)
{
	struct probe_ctx *c = (struct probe_ctx *)ctx;

	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		if (c->pingpong)
			pingpong_kernel<<<1, 1, 0, g->stream>>>(g->dev_regions, g->rank, 1 - g->rank,
								c->launches * PROBE_K, PROBE_K);
		else
			empty_kernel<<<1, 1, 0, g->stream>>>();
		CUDA_CHECK(cudaGetLastError());
	}
	c->launches++;
}

/* Prints and records (impl probe-launch, probe-flag) the time of an empty
 * launch on every rank in this harness and the one-way latency of a flag
 * (half a ping-pong round trip over NVLink), in this mode. */
void probe(struct exec *x)
{
	struct probe_ctx c = { false, 0 };

	if (x->nranks != 2) {
		if (!x->proc)
			printf("# probe: needs a 2-rank schedule\n");
		return;
	}
	double launch_us = time_launches(x, probe_launch, &c);

	c.pingpong = true;
	reset_flags(x);
	double pp_us = time_launches(x, probe_launch, &c);
	double flag_us = (pp_us - launch_us) / (2.0 * PROBE_K);

	reset_flags(x);
	if (x->proc)
		return;
	printf("# probe mode %s: empty launch %.3f us, ping-pong launch of %d round trips %.3f us,"
	       " one-way flag %.3f us\n", gx_comm_is_mpi() ? "mpi" : "single", launch_us, PROBE_K,
	       pp_us, flag_us);
	if (x->csv) {
		const char *m = gx_comm_is_mpi() ? "mpi" : "single";

		fprintf(x->csv, "probe-launch,-,-,2,0,0,-,0,%s,%d,%.3f,0,0,0,%s,1,-,-,sm,1\n",
			x->o.events ? "events" : "wall", x->o.iters, launch_us, m);
		fprintf(x->csv, "probe-flag,-,-,2,0,0,-,0,%s,%d,%.3f,0,0,0,%s,1,-,-,sm,1\n",
			x->o.events ? "events" : "wall", x->o.iters, flag_us, m);
	}
	fflush(stdout);
}
