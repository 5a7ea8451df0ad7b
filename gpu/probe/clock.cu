/* Does a copy's rate depend on how long the GPU has been busy? One GPU,
 * no NCCL: a device-to-device copy by B thread blocks (B = 24, NCCL's
 * channels here, and one per SM), sizes 16 MiB..1 GiB by x2, 5 warm-ups
 * and 20 back-to-back launches per size, timed by CUDA events. Every launch
 * records, in block 0, the SM clock (clock64) and the global timer at its
 * start and end, so the SM clock rate of each launch is measured directly:
 * if the rate per byte rises with size while the clock rises with it, a
 * busy GPU runs faster (clock boost), and a size's time is not linear in
 * its bytes.
 *   nvcc -O3 -arch=sm_90 -o clock gpu/probe/clock.cu && ./clock > clock.csv */
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

#define CK(x)                                                                          \
	do {                                                                           \
		cudaError_t e_ = (x);                                                  \
		if (e_ != cudaSuccess) {                                               \
			fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,              \
				cudaGetErrorString(e_));                               \
			return 1;                                                      \
		}                                                                      \
	} while (0)

struct stamp {
	unsigned long long c0, c1, t0, t1;
};

__device__ static unsigned long long gtimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void copy(const int4 *__restrict__ src, int4 *__restrict__ dst, size_t n,
		     stamp *st)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		st->c0 = clock64();
		st->t0 = gtimer();
	}
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
	__syncthreads();
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		st->c1 = clock64();
		st->t1 = gtimer();
	}
}

int main(void)
{
	const size_t most = (size_t)1 << 30;
	int4 *a, *b;
	stamp *st;
	cudaDeviceProp p;
	cudaEvent_t e0, e1;

	CK(cudaGetDeviceProperties(&p, 0));
	CK(cudaMalloc(&a, most));
	CK(cudaMalloc(&b, most));
	CK(cudaMalloc(&st, 40 * sizeof(stamp)));
	CK(cudaMemset(a, 1, most));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	printf("blocks,bytes,us_per_call,gbps,sm_mhz_first,sm_mhz_last,sm_mhz_mean\n");
	int grids[] = { 24, p.multiProcessorCount };
	for (int rep = 0; rep < 2; rep++)
		for (int g = 0; g < 2; g++)
			for (size_t bytes = (size_t)16 << 20; bytes <= most; bytes *= 2) {
				size_t n = bytes / sizeof(int4);
				stamp h[20];

				for (int i = 0; i < 5; i++)
					copy<<<grids[g], 512>>>(a, b, n, st + 20);
				CK(cudaEventRecord(e0));
				for (int i = 0; i < 20; i++)
					copy<<<grids[g], 512>>>(a, b, n, st + i);
				CK(cudaEventRecord(e1));
				CK(cudaEventSynchronize(e1));
				float ms;
				CK(cudaEventElapsedTime(&ms, e0, e1));
				CK(cudaMemcpy(h, st, sizeof(h), cudaMemcpyDeviceToHost));
				double f[20], sum = 0;
				for (int i = 0; i < 20; i++) {
					f[i] = (double)(h[i].c1 - h[i].c0) /
					       (double)(h[i].t1 - h[i].t0) * 1e3;
					sum += f[i];
				}
				double us = ms * 1e3 / 20;
				printf("%d,%zu,%.3f,%.1f,%.0f,%.0f,%.0f\n", grids[g], bytes, us,
				       2.0 * bytes / us / 1e3, f[0], f[19], sum / 20);
				fflush(stdout);
			}
	return 0;
}
