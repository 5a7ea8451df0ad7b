/* The executor's copy of the schedule IR: building a schedule op by op, the
 * names the schedule file uses, the windows each collective prescribes and
 * the chunking rule that maps units to elements. Plain C with no GLib, so
 * that the GPU host can build it; every rule here restates one of
 * sim/algos/schedule.c, and tests/gpu/test_gpu_host.c checks that both agree
 * on every registered algorithm. */
#include "gpu/core/gx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *gx_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "g5x: out of memory (%zu bytes)\n", n);
		abort();
	}
	return q;
}

struct gx_sched *gx_sched_new(enum gx_coll coll, const char *algo, int nranks, uint32_t nblocks,
			      uint32_t nchunks)
{
	struct gx_sched *s = (struct gx_sched *)calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->coll = coll;
	s->algo = strdup(algo ? algo : "");
	s->nranks = nranks;
	s->root = 0;
	s->peer = coll == GX_COLL_P2P ? 1 : -1;
	s->nblocks = nblocks;
	s->nchunks = nchunks;
	s->nunits = nblocks * nchunks;
	s->ranks = (struct gx_rank *)calloc((size_t)nranks, sizeof(struct gx_rank));
	if (!s->ranks || !s->algo)
		abort();
	gx_sched_set_windows(s);
	return s;
}

void gx_sched_free(struct gx_sched *s)
{
	if (!s)
		return;
	for (int r = 0; r < s->nranks; r++) {
		free(s->ranks[r].ops);
		free(s->ranks[r].deps);
	}
	free(s->ranks);
	free(s->weights);
	free(s->algo);
	free(s);
}

uint32_t gx_sched_add(struct gx_sched *s, int r, const struct gx_op *op, const uint32_t *deps,
		      uint32_t ndeps)
{
	struct gx_rank *rk = &s->ranks[r];
	struct gx_op o = *op;

	if (rk->nops == rk->ops_cap) {
		rk->ops_cap = rk->ops_cap ? 2 * rk->ops_cap : 16;
		rk->ops = (struct gx_op *)gx_xrealloc(rk->ops, rk->ops_cap * sizeof(*rk->ops));
	}
	while (rk->ndeps + ndeps > rk->deps_cap) {
		rk->deps_cap = rk->deps_cap ? 2 * rk->deps_cap : 16;
		rk->deps = (uint32_t *)gx_xrealloc(rk->deps, rk->deps_cap * sizeof(*rk->deps));
	}
	o.dep_first = rk->ndeps;
	o.ndeps = ndeps;
	if (ndeps)
		memcpy(rk->deps + rk->ndeps, deps, ndeps * sizeof(*deps));
	rk->ndeps += ndeps;
	rk->ops[rk->nops] = o;
	if (o.step + 1 > s->nsteps)
		s->nsteps = o.step + 1;
	if ((uint32_t)o.lane + 1 > s->nlanes)
		s->nlanes = (uint32_t)o.lane + 1;
	return rk->nops++;
}

void gx_sched_set_windows(struct gx_sched *s)
{
	uint32_t all = s->nunits, k = s->nchunks;

	for (int r = 0; r < s->nranks; r++) {
		struct gx_rank *rk = &s->ranks[r];
		uint32_t blo = (uint32_t)r * k, bhi = (uint32_t)(r + 1) * k;
		bool root = r == s->root;

		if (bhi > all)
			blo = bhi = 0;
		rk->in_lo = 0, rk->in_hi = all, rk->out_lo = 0, rk->out_hi = all;
		switch (s->coll) {
		case GX_COLL_ALLREDUCE:
		case GX_COLL_ALLTOALL:
			break;
		case GX_COLL_ALLGATHER:
		case GX_COLL_ALLGATHERV:
			rk->in_lo = blo, rk->in_hi = bhi;
			break;
		case GX_COLL_REDUCESCATTER:
			rk->out_lo = blo, rk->out_hi = bhi;
			break;
		case GX_COLL_BROADCAST:
			if (!root)
				rk->in_hi = 0;
			break;
		case GX_COLL_REDUCE:
			if (!root)
				rk->out_hi = 0;
			break;
		case GX_COLL_P2P:
			if (!root)
				rk->in_hi = 0;
			if (r != s->peer)
				rk->out_hi = 0;
			break;
		}
	}
}

static const struct {
	const char *name;
	unsigned flags;
} gx_kinds[GX_OP_NKINDS] = {
	[GX_OP_SEND] = { "send", GX_F_SEND | GX_F_SRC },
	[GX_OP_RECV] = { "recv", GX_F_RECV | GX_F_DST },
	[GX_OP_RECV_REDUCE] = { "recv_reduce", GX_F_RECV | GX_F_SRC | GX_F_DST | GX_F_ADD },
	[GX_OP_RECV_COPY_SEND] = { "recv_copy_send", GX_F_RECV | GX_F_SEND | GX_F_DST },
	[GX_OP_RECV_REDUCE_SEND] = { "recv_reduce_send", GX_F_RECV | GX_F_SEND | GX_F_SRC | GX_F_ADD },
	[GX_OP_RECV_REDUCE_COPY] = { "recv_reduce_copy", GX_F_RECV | GX_F_SRC | GX_F_DST | GX_F_ADD },
	[GX_OP_RECV_REDUCE_COPY_SEND] = { "recv_reduce_copy_send",
				       GX_F_RECV | GX_F_SEND | GX_F_SRC | GX_F_DST | GX_F_ADD },
	[GX_OP_COPY] = { "copy", GX_F_SRC | GX_F_DST },
	[GX_OP_REDUCE] = { "reduce", GX_F_SRC | GX_F_DST | GX_F_ADD },
};

unsigned gx_kind_flags(enum gx_kind k)
{
	return (unsigned)k < GX_OP_NKINDS ? gx_kinds[k].flags : 0;
}

const char *gx_kind_name(enum gx_kind k)
{
	return (unsigned)k < GX_OP_NKINDS ? gx_kinds[k].name : "?";
}

bool gx_kind_parse(const char *name, enum gx_kind *out)
{
	for (int k = 0; k < GX_OP_NKINDS; k++)
		if (!strcmp(gx_kinds[k].name, name)) {
			*out = (enum gx_kind)k;
			return true;
		}
	return false;
}

static const struct {
	enum gx_coll c;
	const char *name;
} gx_colls[] = {
	{ GX_COLL_ALLREDUCE, "allreduce" }, { GX_COLL_ALLGATHER, "allgather" },
	{ GX_COLL_REDUCESCATTER, "reducescatter" }, { GX_COLL_ALLTOALL, "alltoall" },
	{ GX_COLL_BROADCAST, "broadcast" }, { GX_COLL_REDUCE, "reduce" },
	{ GX_COLL_P2P, "p2p" }, { GX_COLL_ALLGATHERV, "allgatherv" },
};

const char *gx_coll_name(enum gx_coll c)
{
	for (size_t i = 0; i < sizeof(gx_colls) / sizeof(gx_colls[0]); i++)
		if (gx_colls[i].c == c)
			return gx_colls[i].name;
	return "?";
}

bool gx_coll_parse(const char *name, enum gx_coll *out)
{
	for (size_t i = 0; i < sizeof(gx_colls) / sizeof(gx_colls[0]); i++)
		if (!strcmp(gx_colls[i].name, name)) {
			*out = gx_colls[i].c;
			return true;
		}
	return false;
}

static const char *const gx_bufs[] = { "-", "in", "out", "scratch" };

const char *gx_buf_name(enum gx_buf b)
{
	return (unsigned)b < 4 ? gx_bufs[b] : "?";
}

bool gx_buf_parse(const char *name, enum gx_buf *out)
{
	for (int b = 0; b < 4; b++)
		if (!strcmp(gx_bufs[b], name)) {
			*out = (enum gx_buf)b;
			return true;
		}
	return false;
}

const char *gx_proto_name(enum gx_proto p)
{
	return p == GX_SENDRECV ? "sendrecv" : "transfer";
}

bool gx_proto_parse(const char *name, enum gx_proto *out)
{
	if (!strcmp(name, "transfer"))
		*out = GX_TRANSFER;
	else if (!strcmp(name, "sendrecv"))
		*out = GX_SENDRECV;
	else
		return false;
	return true;
}

static const char *const gx_dtypes[GX_NDTYPES] = { "float", "half", "bfloat16" };

const char *gx_dtype_name(enum gx_dtype d)
{
	return (unsigned)d < GX_NDTYPES ? gx_dtypes[d] : "?";
}

bool gx_dtype_parse(const char *name, enum gx_dtype *out)
{
	for (int d = 0; d < GX_NDTYPES; d++)
		if (!strcmp(gx_dtypes[d], name)) {
			*out = (enum gx_dtype)d;
			return true;
		}
	if (!strcmp(name, "fp32") || !strcmp(name, "float32"))
		*out = GX_F32;
	else if (!strcmp(name, "fp16") || !strcmp(name, "float16"))
		*out = GX_F16;
	else if (!strcmp(name, "bf16"))
		*out = GX_BF16;
	else
		return false;
	return true;
}

uint32_t gx_dtype_size(enum gx_dtype d)
{
	return d == GX_F32 ? 4 : 2;
}

/* Block b's first element: the even split, or AllGatherV's weighted one
 * (floor(E x w_b / W) each, the leftover one each to the first blocks of
 * non-zero weight). */
uint64_t gx_block_first(const struct gx_sched *s, uint64_t elems, uint32_t b)
{
	if (b >= s->nblocks)
		return elems;
	if (s->coll == GX_COLL_ALLGATHERV && s->weights) {
		unsigned __int128 W = 0;
		uint64_t floor_sum = 0, pos = 0, nz = 0;

		for (uint32_t i = 0; i < s->nblocks; i++)
			W += s->weights[i];
		if (W == 0)
			return 0;
		for (uint32_t i = 0; i < s->nblocks; i++)
			floor_sum += (uint64_t)((unsigned __int128)elems * s->weights[i] / W);
		uint64_t rem = elems - floor_sum;

		for (uint32_t i = 0; i < b; i++) {
			uint64_t n = (uint64_t)((unsigned __int128)elems * s->weights[i] / W);

			if (s->weights[i] > 0) {
				if (nz < rem)
					n++;
				nz++;
			}
			pos += n;
		}
		return pos;
	}
	uint64_t first, count;

	gx_split(elems, s->nblocks, b, &first, &count);
	return first;
}

uint64_t gx_unit_first(const struct gx_sched *s, uint64_t elems, uint32_t u)
{
	if (u >= s->nunits)
		return elems;
	uint32_t b = u / s->nchunks, p = u % s->nchunks;
	uint64_t bfirst = gx_block_first(s, elems, b);
	uint64_t bcount = gx_block_first(s, elems, b + 1) - bfirst;
	uint64_t pfirst, pcount;

	gx_split(bcount, s->nchunks, p, &pfirst, &pcount);
	return bfirst + pfirst;
}

double gx_busbw_factor(enum gx_coll c, int n)
{
	switch (c) {
	case GX_COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case GX_COLL_ALLGATHER:
	case GX_COLL_ALLGATHERV:
	case GX_COLL_REDUCESCATTER:
	case GX_COLL_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}
