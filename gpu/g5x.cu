/* g5x — the CUDA executor: runs a G5 schedule file on N GPUs over NVLink,
 * checks the result, times it as nccl-tests does, and times NCCL's own
 * collective in the same harness.
 *
 * Modes. The single-process binary (g5x) drives N GPUs with peer access;
 * the MPI binary (g5x-mpi) runs one process per GPU and shares each rank's
 * region (staging slots and flags) by CUDA IPC. Everything else is the same
 * code: a "rank" below is one GPU, and this process owns `nlocal` of them.
 *
 * The interpreter. Each rank runs one kernel launch per collective: C
 * thread blocks, one per channel, each running the cooperative loop of
 * gpu/core/interp.h on its part of every op (thread 0 decides, the block
 * moves the slice: peer stores of 16-byte vectors into the receiver's
 * staging slot, local loads, sums in float). Flags are 64-bit, monotonic,
 * in the regions (one st.release.sys by thread 0 after a block barrier;
 * ld.acquire.sys by thread 0), and run on across launches: launch k is
 * iteration k of the plan. Channels per size: by default one per 32 KiB
 * of the collective's bytes, 1 to 128 (--channels fixes the count).
 *
 * Timing. As nccl-tests: warm-up launches, a sync, then `iters` launches
 * back to back timed by the CPU wall clock until all GPUs are done
 * (--timer events: CUDA events on every rank's stream, the slowest rank),
 * out of place then in place. Correctness: a separate launch on fresh
 * inputs (integers, rank- and index-dependent) and poisoned outputs, counted
 * on the GPU against the reference of gpu/core/gx.h. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gpu/comm.h"
#include "gpu/core/gx.h"

#define CUDA_CHECK(call)                                                                   \
	do {                                                                               \
		cudaError_t cuda_rc_ = (call);                                             \
		if (cuda_rc_ != cudaSuccess) {                                             \
			fprintf(stderr, "g5x: %s failed: %s (%s:%d)\n", #call,             \
				cudaGetErrorString(cuda_rc_), __FILE__, __LINE__);         \
			gx_comm_abort(2);                                                  \
		}                                                                          \
	} while (0)

#define NCCL_CHECK(call)                                                                   \
	do {                                                                               \
		ncclResult_t nccl_rc_ = (call);                                            \
		if (nccl_rc_ != ncclSuccess) {                                             \
			fprintf(stderr, "g5x: %s failed: %s (%s:%d)\n", #call,             \
				ncclGetErrorString(nccl_rc_), __FILE__, __LINE__);         \
			gx_comm_abort(2);                                                  \
		}                                                                          \
	} while (0)

/* ---- the device side of the interpreter ---- */

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

#define GX_INTERP_FN static __device__ __forceinline__
#include "gpu/core/interp.h"

struct dev_args {
	const struct gx_xop *ops;   /* device copies of the rank's plan */
	const uint32_t *deps;
	const struct gx_conn *conns;
	char *const *regions;       /* nranks region pointers valid on this device */
	char *bufs[4];              /* by enum gx_buf */
	uint64_t *done;             /* nops completion counters */
	unsigned long long *error;  /* [0] set on a stall: 1 + op, [1] slice, [2] channel */
	uint64_t slice_elems, slice_bytes, iter, timeout_ns;
	uint32_t nops, nconns, ndeps, nchannels;
	int rank;
	bool copy_plan;             /* ops, conns, deps copied into shared memory */
};

__device__ __forceinline__ uint64_t gx_globaltimer(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Elementwise op of a slice on 16-byte vectors of T (E per vector). */
template <typename T> struct vec_ops;

template <> struct vec_ops<float> {
	static __device__ __forceinline__ uint4 add(uint4 a, uint4 b)
	{
		uint4 r;

		r.x = __float_as_uint(__uint_as_float(a.x) + __uint_as_float(b.x));
		r.y = __float_as_uint(__uint_as_float(a.y) + __uint_as_float(b.y));
		r.z = __float_as_uint(__uint_as_float(a.z) + __uint_as_float(b.z));
		r.w = __float_as_uint(__uint_as_float(a.w) + __uint_as_float(b.w));
		return r;
	}
	static __device__ __forceinline__ float add1(float a, float b)
	{
		return a + b;
	}
};

template <> struct vec_ops<__half> {
	static __device__ __forceinline__ uint32_t add2(uint32_t a, uint32_t b)
	{
		__half2 x = *reinterpret_cast<__half2 *>(&a), y = *reinterpret_cast<__half2 *>(&b);
		float2 fx = __half22float2(x), fy = __half22float2(y);
		__half2 r = __floats2half2_rn(fx.x + fy.x, fx.y + fy.y);

		return *reinterpret_cast<uint32_t *>(&r);
	}
	static __device__ __forceinline__ uint4 add(uint4 a, uint4 b)
	{
		return make_uint4(add2(a.x, b.x), add2(a.y, b.y), add2(a.z, b.z), add2(a.w, b.w));
	}
	static __device__ __forceinline__ __half add1(__half a, __half b)
	{
		return __float2half_rn(__half2float(a) + __half2float(b));
	}
};

template <> struct vec_ops<__nv_bfloat16> {
	static __device__ __forceinline__ uint32_t add2(uint32_t a, uint32_t b)
	{
		__nv_bfloat162 x = *reinterpret_cast<__nv_bfloat162 *>(&a);
		__nv_bfloat162 y = *reinterpret_cast<__nv_bfloat162 *>(&b);
		float2 fx = __bfloat1622float2(x), fy = __bfloat1622float2(y);
		__nv_bfloat162 r = __floats2bfloat162_rn(fx.x + fy.x, fx.y + fy.y);

		return *reinterpret_cast<uint32_t *>(&r);
	}
	static __device__ __forceinline__ uint4 add(uint4 a, uint4 b)
	{
		return make_uint4(add2(a.x, b.x), add2(a.y, b.y), add2(a.z, b.z), add2(a.w, b.w));
	}
	static __device__ __forceinline__ __nv_bfloat16 add1(__nv_bfloat16 a, __nv_bfloat16 b)
	{
		return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
	}
};

#define UNROLL 4

/* The op's effect on one slice (gx.h's table): v = R (+ L) or L (+ D);
 * D = v when it has a destination, the peer's slot O = v when it sends.
 * Loads bypass L1 (ld.cg): a slot or a buffer written by a peer or by
 * another channel since this SM last read it must not come from a stale
 * L1 line. */
template <typename T>
__device__ void slice_work(unsigned flags, const T *R, const T *L, T *D, T *O, uint64_t n)
{
	const bool recv = flags & GX_F_RECV, add = flags & GX_F_ADD;
	const bool dst = flags & GX_F_DST, send = flags & GX_F_SEND;
	const T *A = recv ? R : L;          /* first operand */
	const T *B = recv ? L : D;          /* second operand, when adding */
	const uint64_t per = 16 / sizeof(T);
	uintptr_t mis = (uintptr_t)A | (add ? (uintptr_t)B : 0) | (dst ? (uintptr_t)D : 0) |
			(send ? (uintptr_t)O : 0);
	uint64_t nvec = (mis & 15) ? 0 : n / per;
	const uint64_t nt = blockDim.x;

	for (uint64_t base = threadIdx.x; base < nvec; base += nt * UNROLL) {
		uint4 a[UNROLL], b[UNROLL];

#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			uint64_t i = base + u * nt;

			if (i < nvec) {
				a[u] = __ldcg(reinterpret_cast<const uint4 *>(A) + i);
				if (add)
					b[u] = __ldcg(reinterpret_cast<const uint4 *>(B) + i);
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			uint64_t i = base + u * nt;

			if (i < nvec) {
				uint4 v = add ? vec_ops<T>::add(a[u], b[u]) : a[u];

				if (dst)
					reinterpret_cast<uint4 *>(D)[i] = v;
				if (send)
					reinterpret_cast<uint4 *>(O)[i] = v;
			}
		}
	}
	for (uint64_t i = nvec * per + threadIdx.x; i < n; i += nt) {
		T v = add ? vec_ops<T>::add1(__ldcg(A + i), __ldcg(B + i)) : __ldcg(A + i);

		if (dst)
			D[i] = v;
		if (send)
			O[i] = v;
	}
}

/* Shared memory of one block: the plan's ops, connections and deps
 * (copied from global memory at the start when they fit, so the leader's
 * scans never wait on L2: its acquire loads may drop L1 lines), then the
 * interpreter's per-channel state. The host computes the same layout
 * (smem_plan). */
struct smem_layout {
	size_t ops, conns, deps, sent, next, state, total;
};

static __host__ __device__ size_t smem_align8(size_t n)
{
	return (n + 7) / 8 * 8;
}

static __host__ __device__ struct smem_layout smem_plan(uint32_t nops, uint32_t nconns,
							uint32_t ndeps, bool copy)
{
	struct smem_layout l;
	size_t at = 0;

	l.ops = at;
	at += copy ? smem_align8((size_t)nops * sizeof(struct gx_xop)) : 0;
	l.conns = at;
	at += copy ? smem_align8((size_t)nconns * sizeof(struct gx_conn)) : 0;
	l.deps = at;
	at += copy ? smem_align8((size_t)ndeps * sizeof(uint32_t)) : 0;
	l.sent = at; /* sent, then recvd: 2 x nconns counters */
	at += 2 * (size_t)nconns * sizeof(uint64_t);
	l.next = at;
	at += smem_align8((size_t)nops * sizeof(uint32_t));
	l.state = at;
	at += smem_align8(nops);
	l.total = at + 16;
	return l;
}

/* Copies n bytes (a multiple of 4, both 4-aligned) with the whole block. */
static __device__ __forceinline__ void block_copy(void *dst, const void *src, size_t n)
{
	uint32_t *d = (uint32_t *)dst;
	const uint32_t *s = (const uint32_t *)src;

	for (size_t i = threadIdx.x; i < n / 4; i += blockDim.x)
		d[i] = s[i];
}

/* One channel per block. Memory ordering, per slice: every thread moves its
 * part of the slice (weak stores, to the peer's slot over NVLink or to
 * local buffers), the block meets at __syncthreads(), then thread 0 alone
 * raises the flags: st.release.sys for a peer's data or credit flag,
 * red.release.gpu for the rank's own completion counter. A release is
 * cumulative in the PTX memory model: it orders every write that happens
 * before it, and the barrier makes the other threads' writes happen before
 * thread 0's release, so one release per slice publishes the whole slice
 * (no fence per thread). The scope must be .sys: the flags' readers are
 * threads of another GPU (in one process or in another, by CUDA IPC), which
 * .gpu scope does not cover. The reader mirrors it: thread 0 polls with
 * ld.acquire.sys (the flag lives in its own GPU's memory, written by the
 * peer), the barrier hands the acquire on to every thread, and they read
 * the slot with ld.cg, never from a possibly stale L1 line. */
template <typename T> __global__ void __launch_bounds__(512) gx_kernel(struct dev_args a)
{
	extern __shared__ uint64_t smem[];
	__shared__ struct gx_work w;
	struct gx_chan ch;
	struct smem_layout l = smem_plan(a.nops, a.nconns, a.ndeps, a.copy_plan);
	char *sm = (char *)smem;
	const struct gx_xop *ops = a.ops;

	if (a.copy_plan) {
		block_copy(sm + l.ops, a.ops, (size_t)a.nops * sizeof(struct gx_xop));
		block_copy(sm + l.conns, a.conns, (size_t)a.nconns * sizeof(struct gx_conn));
		block_copy(sm + l.deps, a.deps, (size_t)a.ndeps * sizeof(uint32_t));
		ops = (const struct gx_xop *)(sm + l.ops);
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		ch.ops = ops;
		ch.nops = a.nops;
		ch.deps = a.copy_plan ? (const uint32_t *)(sm + l.deps) : a.deps;
		ch.conns = a.copy_plan ? (const struct gx_conn *)(sm + l.conns) : a.conns;
		ch.nconns = a.nconns;
		ch.regions = a.regions;
		ch.rank = a.rank;
		ch.channel = blockIdx.x;
		ch.nchannels = a.nchannels;
		ch.slice_elems = a.slice_elems;
		ch.slice_bytes = a.slice_bytes;
		ch.sent = (uint64_t *)(sm + l.sent);
		ch.recvd = ch.sent + a.nconns;
		ch.next = (uint32_t *)(sm + l.next);
		ch.state = (uint8_t *)(sm + l.state);
		ch.done = a.done;
		gx_chan_begin(&ch, a.iter);
	}
	for (;;) {
		if (threadIdx.x == 0) {
			uint64_t t0 = 0;

			for (;;) {
				gx_find_work(&ch, &w);
				if (w.op != -1)
					break;
				if (!t0) {
					t0 = gx_globaltimer();
				} else if (gx_globaltimer() - t0 > a.timeout_ns) {
					uint32_t i = ch.lo;

					a.error[0] = 1 + i;
					a.error[1] = i < ch.nops ? ch.next[i] : 0;
					a.error[2] = blockIdx.x;
					__threadfence_system();
					w.op = -2;
					break;
				}
			}
		}
		__syncthreads();
		if (w.op < 0)
			break;
		const struct gx_xop *x = &ops[w.op];
		const T *R = (const T *)w.in;
		const T *L = x->src_buf ? (const T *)a.bufs[x->src_buf] + x->src_elem + w.first : 0;
		T *D = x->dst_buf ? (T *)a.bufs[x->dst_buf] + x->dst_elem + w.first : 0;

		slice_work<T>(x->flags, R, L, D, (T *)w.out, w.count);
		__syncthreads(); /* the slice is written: thread 0 releases it */
		if (threadIdx.x == 0)
			gx_finish_work(&ch, &w);
	}
}

/* ---- data kernels: inputs, poison, the check ---- */

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v)
{
	return v;
}
template <> __device__ __forceinline__ __half from_float<__half>(float v)
{
	return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
	return __float2bfloat16_rn(v);
}
__device__ __forceinline__ float to_float(float v)
{
	return v;
}
__device__ __forceinline__ float to_float(__half v)
{
	return __half2float(v);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <typename T>
__global__ void fill_kernel(T *buf, uint64_t first, uint64_t n, int r, uint32_t range)
{
	for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < n;
	     k += (uint64_t)gridDim.x * blockDim.x)
		buf[k] = from_float<T>((float)gx_input_value(r, first + k, range));
}

struct check_args {
	int coll, nranks, root, peer, rank;
	uint32_t nblocks, range;
	double tol;
	const uint64_t *block_first;
};

template <typename T>
__global__ void check_kernel(const T *buf, uint64_t first, uint64_t n, struct check_args c,
			     unsigned long long *wrong)
{
	unsigned long long bad = 0;

	for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < n;
	     k += (uint64_t)gridDim.x * blockDim.x) {
		double want;

		if (!gx_expected((enum gx_coll)c.coll, c.nranks, c.root, c.peer, c.rank, first + k,
				 c.block_first, c.nblocks, c.range, &want))
			continue;
		double got = to_float(buf[k]);

		if (!(fabs(got - want) <= c.tol * fabs(want)))
			bad++;
	}
	if (bad)
		atomicAdd(wrong, bad);
}

/* One-way SM-store ceiling: each block copies its share of src into the
 * peer's dst with 16-byte vectors. */
__global__ void store_kernel(const uint4 *src, uint4 *dst, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

/* ---- the host side ---- */

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

struct opts {
	const char *schedule;
	uint64_t minbytes, maxbytes, factor;
	enum gx_dtype dtype;        /* the one being run */
	enum gx_dtype dtypes[GX_NDTYPES];
	int ndtypes;
	int warmup, iters;
	bool events;        /* --timer events */
	uint32_t channels, threads; /* channels 0: by size (channels_for) */
	uint32_t max_channels;
	uint64_t chan_bytes, slice_bytes, max_slots;
	bool check, nccl, baseline, executor, probe;
	const char *csv;
	double timeout_s;
};

/* One GPU driven by this process. */
struct grank {
	int rank, dev;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	char *bufA, *bufB, *scratch; /* bufA: input; bufB: output or the in-place buffer */
	char *tmp_in;                /* in-place copy for out-of-place-only schedules = bufA */
	char *region;
	uint64_t region_bytes;
	char **dev_regions;          /* device array of nranks pointers */
	char **peer_regions;         /* host copy */
	uint64_t *done;
	unsigned long long *error, *wrong;
	uint64_t *block_first;
	struct gx_xop *d_ops;
	uint32_t *d_deps;
	struct gx_conn *d_conns;
	struct dev_args args;
	ncclComm_t comm;
	size_t smem;
};

struct exec {
	struct opts o;
	struct gx_sched *s;
	int nranks, nlocal, proc, nprocs;
	struct grank *g;             /* nlocal */
	uint64_t iter;               /* next iteration number of the plan */
	FILE *csv;
	uint32_t esize;
	double tol;
	uint32_t range;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "g5x: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	gx_comm_abort(1);
	exit(1);
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t m = 1;

	if (end == s)
		die("'%s' is not a size such as 4K, 1M or 1G", s);
	switch (*end) {
	case 'K': case 'k': m = 1ull << 10; break;
	case 'M': case 'm': m = 1ull << 20; break;
	case 'G': case 'g': m = 1ull << 30; break;
	case '\0': break;
	default: die("'%s' is not a size such as 4K, 1M or 1G", s);
	}
	return (uint64_t)(v * (double)m);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: g5x [options] SCHEDULE_FILE\n"
		"  -b, --minbytes SIZE   first size (default 4K)\n"
		"  -e, --maxbytes SIZE   last size (default 1G)\n"
		"  -f, --stepfactor N    size factor (default 4)\n"
		"  -d, --dtype T[,T]     float, half, bfloat16 (default float)\n"
		"  -w, --warmup N        warm-up launches per size (default 5)\n"
		"  -n, --iters N         timed launches per size (default 20)\n"
		"  --timer wall|events   CPU wall clock (nccl-tests' default) or CUDA events\n"
		"  --channels C          thread blocks per rank (default 0: by size, one per\n"
		"                        --chan-bytes, 1 .. --max-channels)\n"
		"  --chan-bytes SIZE     bytes of the collective per channel (default 32K)\n"
		"  --max-channels C      most channels chosen by size (default 128)\n"
		"  --threads T           threads per block (default 512)\n"
		"  --slice SIZE          bytes per slice and channel (default 2M)\n"
		"  --slots N             staging slots per connection (default 0: a whole iteration)\n"
		"  -c, --check 0|1       check the result (default 1)\n"
		"  --nccl                also time NCCL's collective in the same harness\n"
		"  --no-executor         time NCCL only\n"
		"  --baseline            measure the copy-engine and SM-store ceilings\n"
		"  --probe               measure the launch cost and the flag round trip\n"
		"  --csv FILE            append one row per size and placement\n"
		"  --timeout S           a stalled kernel gives up after S seconds (default 20)\n");
	exit(2);
}

static bool is_opt(const char *a, const char *s1, const char *s2)
{
	return !strcmp(a, s1) || (s2 && !strcmp(a, s2));
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->minbytes = 4096;
	o->maxbytes = 1ull << 30;
	o->factor = 4;
	o->dtype = GX_F32;
	o->dtypes[0] = GX_F32;
	o->ndtypes = 1;
	o->warmup = 5;
	o->iters = 20;
	o->channels = 0;
	o->max_channels = 128;
	o->chan_bytes = 32 << 10;
	o->threads = 512;
	o->slice_bytes = 2 << 20;
	o->check = true;
	o->executor = true;
	o->timeout_s = 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

#define IS(s1, s2) is_opt(a, s1, s2)
		if (IS("-b", "--minbytes") && v)
			o->minbytes = parse_size(v);
		else if (IS("-e", "--maxbytes") && v)
			o->maxbytes = parse_size(v);
		else if (IS("-f", "--stepfactor") && v)
			o->factor = strtoull(v, NULL, 10);
		else if (IS("-d", "--dtype") && v) {
			char buf[64], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", v);
			o->ndtypes = 0;
			for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (o->ndtypes == GX_NDTYPES ||
				    !gx_dtype_parse(t, &o->dtypes[o->ndtypes++]))
					die("unknown dtype '%s' (known: float, half, bfloat16)", t);
			}
		} else if (IS("-w", "--warmup") && v)
			o->warmup = atoi(v);
		else if (IS("-n", "--iters") && v)
			o->iters = atoi(v);
		else if (IS("--timer", NULL) && v) {
			if (strcmp(v, "wall") && strcmp(v, "events"))
				die("unknown timer '%s' (known: wall, events)", v);
			o->events = !strcmp(v, "events");
		} else if (IS("--channels", NULL) && v)
			o->channels = (uint32_t)atoi(v);
		else if (IS("--max-channels", NULL) && v)
			o->max_channels = (uint32_t)atoi(v);
		else if (IS("--chan-bytes", NULL) && v)
			o->chan_bytes = parse_size(v);
		else if (IS("--threads", NULL) && v)
			o->threads = (uint32_t)atoi(v);
		else if (IS("--slice", NULL) && v)
			o->slice_bytes = parse_size(v);
		else if (IS("--slots", NULL) && v)
			o->max_slots = strtoull(v, NULL, 10);
		else if (IS("-c", "--check") && v)
			o->check = atoi(v) != 0;
		else if (IS("--csv", NULL) && v)
			o->csv = v;
		else if (IS("--timeout", NULL) && v)
			o->timeout_s = atof(v);
		else {
			takes = false;
			if (IS("--nccl", NULL))
				o->nccl = true;
			else if (IS("--no-executor", NULL))
				o->executor = false;
			else if (IS("--baseline", NULL))
				o->baseline = true;
			else if (IS("--probe", NULL))
				o->probe = true;
			else if (IS("-h", "--help"))
				usage();
			else if (a[0] == '-')
				die("unknown option '%s'", a);
			else
				o->schedule = a;
		}
		if (takes)
			i++;
#undef IS
	}
	if (o->channels > 1024 || o->max_channels < 1 || o->max_channels > 1024 ||
	    o->chan_bytes < 1 || o->threads < 32 || o->threads > 512 || o->threads % 32 ||
	    o->slice_bytes < 16 || o->factor < 2 || o->iters < 1)
		die("bad --channels, --max-channels, --chan-bytes, --threads, --slice, --stepfactor"
		    " or --iters");
}

/* Channels (thread blocks per rank) for a collective of `bytes`: --channels
 * when given, else one per chan_bytes, at least 1 and at most max_channels.
 * A small collective then runs on a few blocks (fewer blocks to meet at each
 * op's completion counter), a large one on max_channels as before. */
static uint32_t channels_for(const struct opts *o, uint64_t bytes)
{
	uint64_t c = bytes / o->chan_bytes;

	if (o->channels)
		return o->channels;
	return c < 1 ? 1 : c > o->max_channels ? o->max_channels : (uint32_t)c;
}

/* ---- setup: devices, peer access or IPC, buffers ---- */

static void setup_devices(struct exec *x)
{
	int ndev = 0;

	CUDA_CHECK(cudaGetDeviceCount(&ndev));
	if (gx_comm_is_mpi()) {
		if (x->nprocs != x->nranks)
			die("'%s' has %d ranks: run it with mpirun -np %d", x->o.schedule, x->nranks,
			    x->nranks);
		x->nlocal = 1;
		x->g = (struct grank *)calloc(1, sizeof(struct grank));
		x->g[0].rank = x->proc;
		x->g[0].dev = x->proc % ndev;
	} else {
		if (ndev < x->nranks)
			die("'%s' has %d ranks but this host has %d GPUs", x->o.schedule, x->nranks,
			    ndev);
		x->nlocal = x->nranks;
		x->g = (struct grank *)calloc((size_t)x->nranks, sizeof(struct grank));
		for (int r = 0; r < x->nranks; r++) {
			x->g[r].rank = r;
			x->g[r].dev = r;
		}
		for (int r = 0; r < x->nranks; r++) {
			CUDA_CHECK(cudaSetDevice(r));
			for (int q = 0; q < x->nranks; q++) {
				int can = 0;

				if (q == r)
					continue;
				CUDA_CHECK(cudaDeviceCanAccessPeer(&can, r, q));
				if (!can)
					die("GPU %d cannot access GPU %d: peer access is required", r, q);
				cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);

				if (e == cudaErrorPeerAccessAlreadyEnabled)
					cudaGetLastError();
				else
					CUDA_CHECK(e);
			}
		}
	}
	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
		CUDA_CHECK(cudaEventCreate(&g->ev0));
		CUDA_CHECK(cudaEventCreate(&g->ev1));
		CUDA_CHECK(cudaMalloc((void **)&g->error, 4 * sizeof(unsigned long long)));
		CUDA_CHECK(cudaMalloc((void **)&g->wrong, sizeof(unsigned long long)));
		CUDA_CHECK(cudaMemset(g->error, 0, 4 * sizeof(unsigned long long)));
	}
}

/* Allocates every rank's buffers for the largest size and its region for
 * the largest region any size needs, and shares the regions. */
static void setup_memory(struct exec *x, uint64_t max_elems, uint64_t max_region,
			 uint64_t max_scratch, uint32_t max_blocks)
{
	uint64_t bytes = max_elems * x->esize + 256;

	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaMalloc((void **)&g->bufA, bytes));
		CUDA_CHECK(cudaMalloc((void **)&g->bufB, bytes));
		CUDA_CHECK(cudaMalloc((void **)&g->scratch, max_scratch * x->esize + 256));
		CUDA_CHECK(cudaMalloc((void **)&g->region, max_region));
		CUDA_CHECK(cudaMemset(g->region, 0, max_region));
		CUDA_CHECK(cudaMalloc((void **)&g->block_first, (max_blocks + 1) * sizeof(uint64_t)));
		CUDA_CHECK(cudaMalloc((void **)&g->dev_regions, x->nranks * sizeof(char *)));
		g->region_bytes = max_region;
		g->peer_regions = (char **)calloc((size_t)x->nranks, sizeof(char *));
		g->tmp_in = g->bufA;
	}
	if (gx_comm_is_mpi()) {
		struct grank *g = &x->g[0];
		cudaIpcMemHandle_t mine, *all;

		all = (cudaIpcMemHandle_t *)calloc((size_t)x->nranks, sizeof(*all));
		CUDA_CHECK(cudaIpcGetMemHandle(&mine, g->region));
		gx_comm_allgather(&mine, all, sizeof(mine));
		for (int r = 0; r < x->nranks; r++) {
			if (r == g->rank)
				g->peer_regions[r] = g->region;
			else
				CUDA_CHECK(cudaIpcOpenMemHandle((void **)&g->peer_regions[r], all[r],
								cudaIpcMemLazyEnablePeerAccess));
		}
		free(all);
	} else {
		for (int l = 0; l < x->nlocal; l++)
			for (int r = 0; r < x->nranks; r++)
				x->g[l].peer_regions[r] = x->g[r].region;
	}
	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaMemcpy(g->dev_regions, g->peer_regions, x->nranks * sizeof(char *),
				      cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaDeviceSynchronize());
	}
	gx_comm_barrier();
}

static void sync_all(struct exec *x)
{
	for (int l = 0; l < x->nlocal; l++) {
		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		CUDA_CHECK(cudaStreamSynchronize(x->g[l].stream));
	}
}

/* Zeroes flags and counters of every rank (a new size, a new layout). */
static void reset_flags(struct exec *x)
{
	sync_all(x);
	gx_comm_barrier();
	for (int l = 0; l < x->nlocal; l++) {
		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		CUDA_CHECK(cudaMemset(x->g[l].region, 0, x->g[l].region_bytes));
		CUDA_CHECK(cudaDeviceSynchronize());
	}
	gx_comm_barrier();
	x->iter = 0;
}

/* Dynamic shared memory a block may take without opting in. */
#define SMEM_MAX (48 * 1024 - 256)

/* Uploads plan p and fills each local rank's kernel arguments. */
static void load_plan(struct exec *x, const struct gx_plan *p)
{
	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];
		const struct gx_rank_plan *rp = &p->ranks[g->rank];
		const struct gx_rank *rk = &x->s->ranks[g->rank];
		uint64_t E = p->elems;

		CUDA_CHECK(cudaSetDevice(g->dev));
		cudaFree(g->d_ops);
		cudaFree(g->d_deps);
		cudaFree(g->d_conns);
		cudaFree(g->done);
		CUDA_CHECK(cudaMalloc((void **)&g->d_ops, (rp->nops + 1) * sizeof(struct gx_xop)));
		CUDA_CHECK(cudaMalloc((void **)&g->d_deps, (rk->ndeps + 1) * sizeof(uint32_t)));
		CUDA_CHECK(cudaMalloc((void **)&g->d_conns, (p->nconns + 1) * sizeof(struct gx_conn)));
		CUDA_CHECK(cudaMalloc((void **)&g->done, (rp->nops + 1) * sizeof(uint64_t)));
		CUDA_CHECK(cudaMemcpy(g->d_ops, rp->ops, rp->nops * sizeof(struct gx_xop),
				      cudaMemcpyHostToDevice));
		if (rk->ndeps)
			CUDA_CHECK(cudaMemcpy(g->d_deps, rk->deps, rk->ndeps * sizeof(uint32_t),
					      cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaMemcpy(g->d_conns, p->conns, p->nconns * sizeof(struct gx_conn),
				      cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaMemset(g->done, 0, (rp->nops + 1) * sizeof(uint64_t)));
		uint64_t *bf = (uint64_t *)calloc(x->s->nblocks + 1, sizeof(uint64_t));

		for (uint32_t b = 0; b <= x->s->nblocks; b++)
			bf[b] = gx_block_first(x->s, E, b);
		CUDA_CHECK(cudaMemcpy(g->block_first, bf, (x->s->nblocks + 1) * sizeof(uint64_t),
				      cudaMemcpyHostToDevice));
		free(bf);
		struct dev_args *a = &g->args;

		memset(a, 0, sizeof(*a));
		a->ops = g->d_ops;
		a->deps = g->d_deps;
		a->conns = g->d_conns;
		a->regions = g->dev_regions;
		a->done = g->done;
		a->error = g->error;
		a->slice_elems = p->slice_elems;
		a->slice_bytes = (p->slice_elems * p->esize + 15) / 16 * 16;
		a->timeout_ns = (uint64_t)(x->o.timeout_s * 1e9);
		a->nops = rp->nops;
		a->nconns = p->nconns;
		a->nchannels = p->nchannels;
		a->rank = g->rank;
		a->ndeps = rk->ndeps;
		a->copy_plan = smem_plan(rp->nops, p->nconns, rk->ndeps, true).total <= SMEM_MAX;
		g->smem = smem_plan(rp->nops, p->nconns, rk->ndeps, a->copy_plan).total;
		if (g->smem > SMEM_MAX)
			die("rank %d has %u ops: too many for one block's shared memory", g->rank,
			    rp->nops);
	}
}

/* Where rank g's buffers are for this placement. */
static void set_buffers(struct exec *x, struct grank *g, const struct gx_plan *p, bool inplace,
			bool copy_in)
{
	const struct gx_rank *rk = &x->s->ranks[g->rank];
	uint32_t es = x->esize;

	g->args.bufs[GX_BUF_SCRATCH] = g->scratch;
	if (!inplace) {
		g->args.bufs[GX_BUF_IN] = g->bufA;
		g->args.bufs[GX_BUF_OUT] = g->bufB;
	} else if (copy_in) {
		g->args.bufs[GX_BUF_IN] = g->tmp_in;
		g->args.bufs[GX_BUF_OUT] = g->bufB + gx_unit_first(x->s, p->elems, rk->out_lo) * es;
	} else {
		g->args.bufs[GX_BUF_IN] = g->bufB;
		g->args.bufs[GX_BUF_OUT] = g->bufB;
	}
}

static void launch_one(struct exec *x, struct grank *g, const struct gx_plan *p, bool copy_in)
{
	CUDA_CHECK(cudaSetDevice(g->dev));
	if (copy_in) {
		const struct gx_rank *rk = &x->s->ranks[g->rank];
		uint64_t in0 = gx_unit_first(x->s, p->elems, rk->in_lo);
		uint64_t in1 = gx_unit_first(x->s, p->elems, rk->in_hi);

		if (in1 > in0)
			CUDA_CHECK(cudaMemcpyAsync(g->tmp_in, g->bufB + in0 * x->esize,
						   (in1 - in0) * x->esize, cudaMemcpyDeviceToDevice,
						   g->stream));
	}
	g->args.iter = x->iter;
	switch (x->o.dtype) {
	case GX_F32:
		gx_kernel<float><<<p->nchannels, x->o.threads, g->smem, g->stream>>>(g->args);
		break;
	case GX_F16:
		gx_kernel<__half><<<p->nchannels, x->o.threads, g->smem, g->stream>>>(g->args);
		break;
	default:
		gx_kernel<__nv_bfloat16><<<p->nchannels, x->o.threads, g->smem, g->stream>>>(g->args);
		break;
	}
	CUDA_CHECK(cudaGetLastError());
}

/* One collective on every local rank: iteration x->iter of the plan. */
static void launch_all(struct exec *x, const struct gx_plan *p, bool copy_in)
{
	for (int l = 0; l < x->nlocal; l++)
		launch_one(x, &x->g[l], p, copy_in);
	x->iter++;
}

static void check_stall(struct exec *x)
{
	for (int l = 0; l < x->nlocal; l++) {
		unsigned long long e[4];

		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		CUDA_CHECK(cudaMemcpy(e, x->g[l].error, sizeof(e), cudaMemcpyDeviceToHost));
		if (e[0])
			die("rank %d channel %llu stalled for %.0f s at op %llu slice %llu", x->g[l].rank,
			    e[2], x->o.timeout_s, e[0] - 1, e[1]);
	}
}

/* ---- fill and check ---- */

static void fill_one(struct exec *x, struct grank *g, char *buf, uint64_t first, uint64_t n)
{
	if (!n)
		return;
	switch (x->o.dtype) {
	case GX_F32:
		fill_kernel<float><<<264, 512, 0, g->stream>>>((float *)buf, first, n, g->rank, x->range);
		break;
	case GX_F16:
		fill_kernel<__half><<<264, 512, 0, g->stream>>>((__half *)buf, first, n, g->rank,
								x->range);
		break;
	default:
		fill_kernel<__nv_bfloat16><<<264, 512, 0, g->stream>>>((__nv_bfloat16 *)buf, first, n,
								       g->rank, x->range);
		break;
	}
	CUDA_CHECK(cudaGetLastError());
}

/* Inputs fresh, outputs poisoned (NaN in every dtype), for placement
 * `inplace`: out of place, input in bufA (its window) and output in bufB;
 * in place, one buffer bufB of E elements. */
static void prepare_data(struct exec *x, uint64_t E, bool inplace)
{
	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];
		const struct gx_rank *rk = &x->s->ranks[g->rank];
		uint64_t in0 = gx_unit_first(x->s, E, rk->in_lo), in1 = gx_unit_first(x->s, E, rk->in_hi);
		uint64_t o0 = gx_unit_first(x->s, E, rk->out_lo), o1 = gx_unit_first(x->s, E, rk->out_hi);

		CUDA_CHECK(cudaSetDevice(g->dev));
		if (inplace) {
			CUDA_CHECK(cudaMemsetAsync(g->bufB, 0xff, E * x->esize, g->stream));
			fill_one(x, g, g->bufB + in0 * x->esize, in0, in1 - in0);
		} else {
			fill_one(x, g, g->bufA, in0, in1 - in0);
			CUDA_CHECK(cudaMemsetAsync(g->bufB, 0xff, (o1 - o0) * x->esize, g->stream));
		}
	}
	sync_all(x);
}

/* Wrong elements over all ranks: out of place the output is bufB (its
 * window, for NCCL too), in place bufB holds all E elements. */
static uint64_t count_wrong(struct exec *x, uint64_t E, bool inplace)
{
	uint64_t wrong = 0;

	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];
		const struct gx_rank *rk = &x->s->ranks[g->rank];
		uint64_t o0 = gx_unit_first(x->s, E, rk->out_lo), o1 = gx_unit_first(x->s, E, rk->out_hi);
		const char *out = g->bufB + (inplace ? o0 * x->esize : 0);
		struct check_args c;
		unsigned long long w = 0;

		if (o1 <= o0)
			continue;
		c.coll = x->s->coll;
		c.nranks = x->nranks;
		c.root = x->s->root;
		c.peer = x->s->peer;
		c.rank = g->rank;
		c.nblocks = x->s->nblocks;
		c.range = x->range;
		c.tol = x->tol;
		c.block_first = g->block_first;
		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaMemsetAsync(g->wrong, 0, sizeof(*g->wrong), g->stream));
		switch (x->o.dtype) {
		case GX_F32:
			check_kernel<float><<<264, 512, 0, g->stream>>>((const float *)out, o0, o1 - o0, c,
									g->wrong);
			break;
		case GX_F16:
			check_kernel<__half><<<264, 512, 0, g->stream>>>((const __half *)out, o0, o1 - o0,
									 c, g->wrong);
			break;
		default:
			check_kernel<__nv_bfloat16><<<264, 512, 0, g->stream>>>(
				(const __nv_bfloat16 *)out, o0, o1 - o0, c, g->wrong);
			break;
		}
		CUDA_CHECK(cudaGetLastError());
		CUDA_CHECK(cudaMemcpyAsync(&w, g->wrong, sizeof(w), cudaMemcpyDeviceToHost, g->stream));
		CUDA_CHECK(cudaStreamSynchronize(g->stream));
		wrong += w;
	}
	return gx_comm_sum(wrong);
}

/* ---- timing ---- */

typedef void (*launch_fn)(struct exec *x, void *ctx);

/* Times `iters` back-to-back launches after `warmup` ones: the CPU wall
 * clock from a synced start to all GPUs done, or CUDA events on every
 * rank's stream (the slowest rank). Returns microseconds per launch,
 * the maximum over processes. */
static double time_launches(struct exec *x, launch_fn fn, void *ctx)
{
	double us;

	for (int i = 0; i < x->o.warmup; i++)
		fn(x, ctx);
	sync_all(x);
	gx_comm_barrier();
	double t0 = wall_s();

	if (x->o.events)
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			CUDA_CHECK(cudaEventRecord(x->g[l].ev0, x->g[l].stream));
		}
	for (int i = 0; i < x->o.iters; i++)
		fn(x, ctx);
	if (x->o.events)
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			CUDA_CHECK(cudaEventRecord(x->g[l].ev1, x->g[l].stream));
		}
	sync_all(x);
	us = (wall_s() - t0) * 1e6 / x->o.iters;
	if (x->o.events) {
		us = 0;
		for (int l = 0; l < x->nlocal; l++) {
			float ms = 0;

			CUDA_CHECK(cudaEventElapsedTime(&ms, x->g[l].ev0, x->g[l].ev1));
			if (ms * 1e3 / x->o.iters > us)
				us = ms * 1e3 / x->o.iters;
		}
	}
	return gx_comm_max(us);
}

struct exec_ctx {
	const struct gx_plan *p;
	bool copy_in;
};

static void exec_launch(struct exec *x, void *ctx)
{
	struct exec_ctx *c = (struct exec_ctx *)ctx;

	launch_all(x, c->p, c->copy_in);
}

/* ---- NCCL in the same harness ---- */

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

static void setup_nccl(struct exec *x)
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
static bool nccl_admits(const struct gx_sched *s, uint64_t E)
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

/* ---- output ---- */

static void print_header(struct exec *x, const char *impl)
{
	if (x->proc)
		return;
	printf("# g5x %s: collective %s algo %s ranks %d nchunks %u schedule %s\n", impl,
	       gx_coll_name(x->s->coll), x->s->algo, x->nranks, x->s->nchunks, x->o.schedule);
	char chans[64];

	if (x->o.channels)
		snprintf(chans, sizeof(chans), "%u", x->o.channels);
	else
		snprintf(chans, sizeof(chans), "auto(1 per %llu B, max %u)",
			 (unsigned long long)x->o.chan_bytes, x->o.max_channels);
	printf("# mode %s dtype %s timer %s warmup %d iters %d channels %s threads %u slice %llu"
	       " check %d inplace_ok %d\n",
	       gx_comm_is_mpi() ? "mpi (one process per GPU, CUDA IPC)" : "single process",
	       gx_dtype_name(x->o.dtype), x->o.events ? "events" : "wall", x->o.warmup,
	       x->o.iters, chans, x->o.threads, (unsigned long long)x->o.slice_bytes,
	       (int)x->o.check, (int)x->s->inplace_ok);
	printf("#%64s%35s\n", "out-of-place", "in-place");
	printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size",
	       "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
	       "algbw", "busbw", "#wrong");
	printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
	       "");
	fflush(stdout);
}

/* The CSV's columns: the first fourteen as before, then what a comparison
 * needs to know of the run (docs/validation.md): mode (single or mpi),
 * nchunks and schedule (the file's base name; "-" for NCCL), proto and
 * engine (the executor: simple over SM stores; NCCL: NCCL_PROTO as set,
 * else auto), channels (the executor's thread blocks per rank; 0 for NCCL,
 * which chooses its own). NCCL rows carry algo "nccl". */
#define CSV_HEADER                                                                         \
	"impl,collective,algo,ranks,bytes,count,dtype,inplace,timer,iters,time_us,algbw_gbps," \
	"busbw_gbps,wrong,mode,nchunks,schedule,proto,engine,channels\n"

static const char *nccl_proto(void)
{
	const char *p = getenv("NCCL_PROTO");

	return p && *p && !strchr(p, ',') && !strchr(p, '^') ? p : "auto";
}

static void csv_row(struct exec *x, const char *impl, uint64_t bytes, uint64_t E, bool inplace,
		    double us, double algbw, double busbw, long long wrong)
{
	bool nccl = !strcmp(impl, "nccl");
	const char *base = strrchr(x->o.schedule, '/');

	if (!x->csv || x->proc)
		return;
	base = base ? base + 1 : x->o.schedule;
	fprintf(x->csv, "%s,%s,%s,%d,%llu,%llu,%s,%d,%s,%d,%.3f,%.3f,%.3f,%lld,%s,%u,%s,%s,%s,%u\n",
		impl, gx_coll_name(x->s->coll), nccl ? "nccl" : x->s->algo, x->nranks,
		(unsigned long long)bytes, (unsigned long long)E, gx_dtype_name(x->o.dtype),
		(int)inplace, x->o.events ? "events" : "wall", x->o.iters, us, algbw, busbw, wrong,
		gx_comm_is_mpi() ? "mpi" : "single", nccl ? 1u : x->s->nchunks, nccl ? "-" : base,
		nccl ? nccl_proto() : "simple", "sm", nccl ? 0u : channels_for(&x->o, bytes));
	fflush(x->csv);
}

static bool rooted(enum gx_coll c)
{
	return c == GX_COLL_BROADCAST || c == GX_COLL_REDUCE || c == GX_COLL_P2P;
}

/* ---- the sweep ---- */

static void run_sizes(struct exec *x, bool nccl)
{
	const char *impl = nccl ? "nccl" : "g5";

	print_header(x, impl);
	for (uint64_t bytes = x->o.minbytes; bytes <= x->o.maxbytes; bytes *= x->o.factor) {
		uint64_t E = bytes / x->esize;
		double us[2] = { 0, 0 };
		long long wrong[2] = { -1, -1 };
		char err[512];

		if (nccl && !nccl_admits(x->s, E))
			continue;
		if (!x->proc)
			printf("%12llu  %12llu  %8s  %6s  %6d", (unsigned long long)bytes,
			       (unsigned long long)E, gx_dtype_name(x->o.dtype), "sum",
			       rooted(x->s->coll) ? x->s->root : -1);
		for (int inplace = 0; inplace < 2; inplace++) {
			if (nccl) {
				struct nccl_ctx c = { E, inplace != 0 };

				for (int l = 0; l < x->nlocal; l++) {
					const struct gx_sched *s = x->s;
					uint64_t *bf = (uint64_t *)calloc(s->nblocks + 1, 8);

					for (uint32_t b = 0; b <= s->nblocks; b++)
						bf[b] = gx_block_first(s, E, b);
					CUDA_CHECK(cudaSetDevice(x->g[l].dev));
					CUDA_CHECK(cudaMemcpy(x->g[l].block_first, bf,
							      (s->nblocks + 1) * 8,
							      cudaMemcpyHostToDevice));
					free(bf);
				}
				if (x->o.check) {
					prepare_data(x, E, inplace);
					nccl_launch(x, &c);
					sync_all(x);
					wrong[inplace] = (long long)count_wrong(x, E, inplace);
				}
				us[inplace] = time_launches(x, nccl_launch, &c);
			} else {
				bool copy_in = inplace && !x->s->inplace_ok;
				struct gx_plan *p = gx_plan_new(x->s, E, x->esize,
								channels_for(&x->o, bytes),
								x->o.slice_bytes / x->esize,
								x->o.max_slots, inplace && !copy_in,
								err, sizeof(err));
				struct exec_ctx c = { p, copy_in };

				if (!p)
					die("%s: %llu bytes: %s", x->o.schedule,
					    (unsigned long long)bytes, err);
				reset_flags(x); /* the done counters restart with the plan */
				load_plan(x, p);
				for (int l = 0; l < x->nlocal; l++)
					set_buffers(x, &x->g[l], p, inplace, copy_in);
				if (x->o.check) {
					prepare_data(x, E, inplace);
					launch_all(x, p, copy_in);
					sync_all(x);
					check_stall(x);
					wrong[inplace] = (long long)count_wrong(x, E, inplace);
				}
				us[inplace] = time_launches(x, exec_launch, &c);
				check_stall(x);
				sync_all(x);
				gx_plan_free(p);
			}
			double algbw = (double)bytes / (us[inplace] * 1e-6) / 1e9;
			double busbw = algbw * gx_busbw_factor(x->s->coll, x->nranks);

			if (!x->proc) {
				printf("  %7.2f  %6.2f  %6.2f  %6lld", us[inplace], algbw, busbw,
				       wrong[inplace] < 0 ? 0 : wrong[inplace]);
				if (wrong[inplace] < 0)
					printf("?");
			}
			csv_row(x, impl, bytes, E, inplace, us[inplace], algbw, busbw,
				wrong[inplace]);
		}
		if (!x->proc) {
			printf("\n");
			fflush(stdout);
		}
	}
}

/* ---- ceilings ---- */

static void baseline(struct exec *x)
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
static void probe(struct exec *x)
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

int main(int argc, char **argv)
{
	struct exec x;
	char err[512];

	memset(&x, 0, sizeof(x));
	gx_comm_init(&argc, &argv, &x.proc, &x.nprocs);
	parse_opts(argc, argv, &x.o);
	if (!x.o.schedule)
		usage();
	x.s = gx_sched_read(x.o.schedule, err, sizeof(err));
	if (!x.s)
		die("%s", err);
	x.nranks = x.s->nranks;
	x.esize = 4; /* buffers sized for the widest dtype */
	setup_devices(&x);

	/* the largest region and scratch over every size */
	uint64_t max_region = 256, max_scratch = 0, max_elems = x.o.maxbytes / x.esize;

	for (uint64_t bytes = x.o.minbytes; bytes <= x.o.maxbytes; bytes *= x.o.factor) {
		struct gx_plan *p = gx_plan_new(x.s, bytes / x.esize, x.esize,
						channels_for(&x.o, bytes),
						x.o.slice_bytes / x.esize, x.o.max_slots, false, err,
						sizeof(err));

		if (!p)
			die("%s: %llu bytes: %s", x.o.schedule, (unsigned long long)bytes, err);
		for (int r = 0; r < x.nranks; r++) {
			if (p->ranks[r].region_bytes > max_region)
				max_region = p->ranks[r].region_bytes;
			if (p->ranks[r].scratch_elems > max_scratch)
				max_scratch = p->ranks[r].scratch_elems;
		}
		max_elems = bytes / x.esize;
		gx_plan_free(p);
	}
	/* bytes are the same for every dtype; a margin covers the rounding */
	setup_memory(&x, max_elems, max_region + (1 << 20), max_scratch + (1 << 18), x.s->nblocks);
	if (x.o.csv && !x.proc) {
		struct stat st;
		bool fresh = stat(x.o.csv, &st) != 0 || st.st_size == 0;

		x.csv = fopen(x.o.csv, "a");
		if (!x.csv)
			die("cannot open '%s' for appending", x.o.csv);
		if (fresh)
			fputs(CSV_HEADER, x.csv);
	}
	if (x.o.baseline)
		baseline(&x);
	if (x.o.probe)
		probe(&x);
	if (x.o.nccl)
		setup_nccl(&x);
	for (int d = 0; d < x.o.ndtypes; d++) {
		x.o.dtype = x.o.dtypes[d];
		x.esize = gx_dtype_size(x.o.dtype);
		x.tol = gx_tolerance(x.o.dtype);
		x.range = gx_input_range(x.o.dtype, x.nranks);
		if (x.o.executor)
			run_sizes(&x, false);
		if (x.o.nccl)
			run_sizes(&x, true);
	}
	if (x.o.nccl)
		for (int l = 0; l < x.nlocal; l++)
			ncclCommDestroy(x.g[l].comm);
	if (x.csv)
		fclose(x.csv);
	gx_sched_free(x.s);
	gx_comm_finalize();
	return 0;
}
