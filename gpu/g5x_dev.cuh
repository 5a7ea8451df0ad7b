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

__device__ __forceinline__ void gx_done_post(uint64_t *p)
{
	asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
}

/* A credit on the LL wire: nothing written before it needs ordering. */
__device__ __forceinline__ void gx_flag_post(uint64_t *p, uint64_t v)
{
	asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* An LL line (gx.h): 16 bytes read or written as one access. */
__device__ __forceinline__ uint4 gx_line_load(const char *p)
{
	uint4 v;

	asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p)
		     : "memory");
	return v;
}

__device__ __forceinline__ void gx_line_store(char *p, uint32_t lo, uint32_t hi, uint32_t flag)
{
	asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(lo),
		     "r"(flag), "r"(hi), "r"(flag)
		     : "memory");
}

__device__ __forceinline__ bool gx_line_arrived(const char *line, uint32_t flag)
{
	uint4 v = gx_line_load(line);

	return v.y == flag && v.w == flag;
}

__device__ __forceinline__ uint64_t gx_globaltimer(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

#endif
