/* gpu/g5x_dev.cuh — the device's flag operations, as gpu/core/interp.h
 * asks its includer for them, and the global timer: acquire loads and
 * release stores of 64-bit flags at .sys scope (the reader or the writer is
 * another GPU), and of a rank's completion counters at .gpu scope. Included
 * by the units whose kernels use them (g5x_kernels.cu, g5x_ceilings.cu). */
#ifndef G5_GPU_G5X_DEV_CUH
#define G5_GPU_G5X_DEV_CUH

#include <stdint.h>

__device__ __forceinline__ uint64_t gx_flag_load(const uint64_t *p)
{
	uint64_t v;

	asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void gx_flag_store(uint64_t *p, uint64_t v)
{
	asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t gx_done_load(const uint64_t *p)
{
	uint64_t v;

	asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ void gx_done_add(uint64_t *p)
{
	asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
}

__device__ __forceinline__ uint64_t gx_globaltimer(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

#endif
