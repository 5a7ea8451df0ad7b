/* The executor's schedule in memory: building it op by op, and its names,
 * windows, chunking rule and busbw factor, which are sim/algos/ir.c's (the
 * one plain-C definition both builds compile); tests/gpu/test_gpu_host.c
 * checks field by field that the simulator's schedules read back the same. */
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
	for (int r = 0; r < s->nranks; r++) {
		struct gx_rank *rk = &s->ranks[r];
		uint32_t w[4];

		ir_windows((enum coll)s->coll, s->nunits, s->nchunks, s->root, s->peer, r, w);
		rk->in_lo = w[0], rk->in_hi = w[1], rk->out_lo = w[2], rk->out_hi = w[3];
	}
}

unsigned gx_kind_flags(enum gx_kind k)
{
	return ir_op_kind_flags((int)k);
}

const char *gx_kind_name(enum gx_kind k)
{
	return ir_op_kind_name((int)k);
}

bool gx_kind_parse(const char *name, enum gx_kind *out)
{
	enum sched_op_kind k;

	if (!ir_op_kind_parse(name, &k))
		return false;
	*out = (enum gx_kind)k;
	return true;
}

const char *gx_coll_name(enum gx_coll c)
{
	return ir_coll_name((enum coll)c);
}

bool gx_coll_parse(const char *name, enum gx_coll *out)
{
	enum coll c;

	if (!ir_coll_parse(name, &c))
		return false;
	*out = (enum gx_coll)c;
	return true;
}

const char *gx_buf_name(enum gx_buf b)
{
	return ir_buf_name((int)b);
}

bool gx_buf_parse(const char *name, enum gx_buf *out)
{
	enum sched_buf b;

	if (!ir_buf_parse(name, &b))
		return false;
	*out = (enum gx_buf)b;
	return true;
}

const char *gx_proto_name(enum gx_proto p)
{
	return p == GX_SENDRECV ? "sendrecv" : "transfer";
}

const char *gx_wire_name(enum gx_wire w)
{
	return w == GX_WIRE_LL ? "ll" : "simple";
}

bool gx_wire_parse(const char *name, enum gx_wire *out)
{
	if (!strcmp(name, "simple"))
		*out = GX_WIRE_SIMPLE;
	else if (!strcmp(name, "ll"))
		*out = GX_WIRE_LL;
	else
		return false;
	return true;
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
	enum ir_dtype d;

	if (!ir_dtype_parse(name, &d))
		return false;
	*out = (enum gx_dtype)d;
	return true;
}

uint32_t gx_dtype_size(enum gx_dtype d)
{
	return ir_dtype_size((int)d);
}

uint64_t gx_block_first(const struct gx_sched *s, uint64_t elems, uint32_t b)
{
	uint64_t first, count;

	if (b >= s->nblocks)
		return elems;
	ir_block_range((enum coll)s->coll, s->nblocks, s->weights, elems, b, &first, &count);
	return first;
}

uint64_t gx_unit_first(const struct gx_sched *s, uint64_t elems, uint32_t u)
{
	uint64_t first, count;

	if (u >= s->nunits)
		return elems;
	ir_unit_range((enum coll)s->coll, s->nblocks, s->nchunks, s->weights, elems, u, &first,
		      &count);
	return first;
}

double gx_busbw_factor(enum gx_coll c, int n)
{
	return ir_busbw_factor((enum coll)c, n);
}
