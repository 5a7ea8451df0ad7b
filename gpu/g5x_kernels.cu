/* gpu/g5x_kernels.cu — the executor's device side and the host code that
 * launches it: the interpreter's kernel, the data kernels (inputs, poison,
 * the check), and their launchers.
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
 * The plan's upload (load_plan) lives here too: the host and the kernel
 * must agree on one block's shared memory layout (smem_plan). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/g5x.h"
#include "gpu/g5x_dev.cuh"

/* ---- the device side of the interpreter ---- */

#define GX_INTERP_FN static __device__ __forceinline__
#include "gpu/core/interp.h"

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

/* The op's effect on one slice on the LL wire (gx.h): thread t takes lines
 * t, t + blockDim, ...; a received line is polled until both its flag
 * words hold in_flag, a sent one is written with out_flag in one 16-byte
 * store (the first line always, so that an empty slice still arrives).
 * Elements one at a time: a line holds 8 / sizeof(T) of them, and the
 * local buffers need no more than the element's alignment; local loads
 * bypass L1 as in slice_work. */
template <typename T>
__device__ void slice_work_ll(unsigned flags, const char *R, const T *L, T *D, char *O, uint64_t n,
			      uint32_t in_flag, uint32_t out_flag, uint64_t timeout_ns)
{
	const bool recv = flags & GX_F_RECV, add = flags & GX_F_ADD;
	const bool dst = flags & GX_F_DST, send = flags & GX_F_SEND;
	const uint32_t per = GX_LL_DATA / sizeof(T);
	uint64_t nlines = (n + per - 1) / per;

	if (send && nlines == 0)
		nlines = 1;
	for (uint64_t k = threadIdx.x; k < nlines; k += blockDim.x) {
		uint32_t word[2] = { 0, 0 };
		T *v = reinterpret_cast<T *>(word);

		if (recv) {
			uint4 line = gx_line_load(R + k * GX_LL_LINE);
			uint64_t t0 = 0;

			/* the slot's first line has arrived, so the sender is writing
			 * the rest; a line that never comes is a bug: end the kernel */
			while (line.y != in_flag || line.w != in_flag) {
				if (!t0)
					t0 = gx_globaltimer();
				else if (gx_globaltimer() - t0 > timeout_ns)
					__trap();
				line = gx_line_load(R + k * GX_LL_LINE);
			}
			word[0] = line.x;
			word[1] = line.z;
		}
		for (uint32_t e = 0; e < per; e++) {
			uint64_t i = k * per + e;

			if (i >= n)
				break;
			T x = recv ? v[e] : __ldcg(L + i);

			if (add)
				x = vec_ops<T>::add1(x, recv ? __ldcg(L + i) : __ldcg(D + i));
			if (dst)
				D[i] = x;
			v[e] = x;
		}
		if (send)
			gx_line_store(O + k * GX_LL_LINE, word[0], word[1], out_flag);
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
		ch.ll = a.ll;
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

		if (a.ll)
			slice_work_ll<T>(x->flags, w.in, L, D, w.out, w.count, w.in_flag, w.out_flag,
					 a.timeout_ns);
		else
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

/* ---- the host side: plan upload and launches ---- */

/* Dynamic shared memory a block may take without opting in. */
#define SMEM_MAX (48 * 1024 - 256)

/* Uploads plan p and fills each local rank's kernel arguments. */
void load_plan(struct exec *x, const struct gx_plan *p)
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
		a->slice_bytes = p->slot_bytes;
		a->ll = p->wire == GX_WIRE_LL;
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
void set_buffers(struct exec *x, struct grank *g, const struct gx_plan *p, bool inplace,
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
void launch_all(struct exec *x, const struct gx_plan *p, bool copy_in)
{
	for (int l = 0; l < x->nlocal; l++)
		launch_one(x, &x->g[l], p, copy_in);
	x->iter++;
}

void check_stall(struct exec *x)
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
void prepare_data(struct exec *x, uint64_t E, bool inplace)
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
uint64_t count_wrong(struct exec *x, uint64_t E, bool inplace)
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
