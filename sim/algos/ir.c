/* The schedule IR's plain-C rules (ir.h): names, op-kind flags, the
 * chunking rule, windows and the bus bandwidth factor. Pure functions of
 * their arguments, in C with no GLib, so that the simulator (libg5) and the
 * executor (gpu/, nvcc) compile this one file. */
#include "sim/algos/ir.h"

#include <string.h>

const struct ir_op_kind_info ir_op_kinds[SOP_NKINDS] = {
	[SOP_SEND] = { "send", SOPF_SEND | SOPF_SRC },
	[SOP_RECV] = { "recv", SOPF_RECV | SOPF_DST },
	[SOP_RECV_REDUCE] = { "recv_reduce", SOPF_RECV | SOPF_SRC | SOPF_DST | SOPF_ADD },
	[SOP_RECV_COPY_SEND] = { "recv_copy_send", SOPF_RECV | SOPF_SEND | SOPF_DST },
	[SOP_RECV_REDUCE_SEND] = { "recv_reduce_send", SOPF_RECV | SOPF_SEND | SOPF_SRC | SOPF_ADD },
	[SOP_RECV_REDUCE_COPY] = { "recv_reduce_copy", SOPF_RECV | SOPF_SRC | SOPF_DST | SOPF_ADD },
	[SOP_RECV_REDUCE_COPY_SEND] = { "recv_reduce_copy_send",
					SOPF_RECV | SOPF_SEND | SOPF_SRC | SOPF_DST | SOPF_ADD },
	[SOP_COPY] = { "copy", SOPF_SRC | SOPF_DST },
	[SOP_REDUCE] = { "reduce", SOPF_SRC | SOPF_DST | SOPF_ADD },
	[SOP_COPY_SEND] = { "copy_send", SOPF_SEND | SOPF_SRC | SOPF_DST },
};

unsigned ir_op_kind_flags(int k)
{
	return k >= 0 && k < SOP_NKINDS ? ir_op_kinds[k].flags : 0;
}

const char *ir_op_kind_name(int k)
{
	return k >= 0 && k < SOP_NKINDS ? ir_op_kinds[k].name : "?";
}

bool ir_op_kind_parse(const char *name, enum sched_op_kind *out)
{
	for (int k = 0; k < SOP_NKINDS; k++)
		if (!strcmp(ir_op_kinds[k].name, name)) {
			*out = (enum sched_op_kind)k;
			return true;
		}
	return false;
}

static const char *const buf_names[SBUF_NBUFS] = {
	[SBUF_NONE] = "-", [SBUF_IN] = "in", [SBUF_OUT] = "out", [SBUF_SCRATCH] = "scratch",
};

const char *ir_buf_name(int b)
{
	return b >= 0 && b < SBUF_NBUFS ? buf_names[b] : "?";
}

bool ir_buf_parse(const char *name, enum sched_buf *out)
{
	for (int b = 0; b < SBUF_NBUFS; b++)
		if (!strcmp(buf_names[b], name)) {
			*out = (enum sched_buf)b;
			return true;
		}
	return false;
}

static const struct {
	enum coll c;
	const char *name;
} colls[] = {
	{ COLL_ALLREDUCE, "allreduce" },	 { COLL_ALLGATHER, "allgather" },
	{ COLL_REDUCESCATTER, "reducescatter" }, { COLL_ALLTOALL, "alltoall" },
	{ COLL_BROADCAST, "broadcast" },	 { COLL_REDUCE, "reduce" },
	{ COLL_P2P, "p2p" },			 { COLL_ALLGATHERV, "allgatherv" },
};

const char *ir_coll_name(enum coll c)
{
	for (size_t i = 0; i < sizeof(colls) / sizeof(colls[0]); i++)
		if (colls[i].c == c)
			return colls[i].name;
	return "?";
}

bool ir_coll_parse(const char *name, enum coll *out)
{
	for (size_t i = 0; i < sizeof(colls) / sizeof(colls[0]); i++)
		if (!strcmp(colls[i].name, name)) {
			*out = colls[i].c;
			return true;
		}
	return false;
}

static const struct {
	const char *name;
	enum ir_dtype d;
} dtypes[] = {
	{ "fp32", IR_DTYPE_FP32 }, { "float", IR_DTYPE_FP32 },    { "float32", IR_DTYPE_FP32 },
	{ "fp16", IR_DTYPE_FP16 }, { "half", IR_DTYPE_FP16 },     { "float16", IR_DTYPE_FP16 },
	{ "bf16", IR_DTYPE_BF16 }, { "bfloat16", IR_DTYPE_BF16 },
};

bool ir_dtype_parse(const char *name, enum ir_dtype *out)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(dtypes[i].name, name)) {
			*out = dtypes[i].d;
			return true;
		}
	return false;
}

uint32_t ir_dtype_size(int d)
{
	return d == IR_DTYPE_FP32 ? 4 : d == IR_DTYPE_FP16 || d == IR_DTYPE_BF16 ? 2 : 0;
}

void ir_block_range(enum coll c, uint32_t nblocks, const uint64_t *weights, uint64_t elems,
		    uint32_t b, uint64_t *first, uint64_t *count)
{
	if (c != COLL_ALLGATHERV || !weights) {
		ir_split(elems, nblocks, b, first, count);
		return;
	}
	unsigned __int128 W = 0;
	uint64_t floor_sum = 0, pos = 0, nz = 0;

	for (uint32_t i = 0; i < nblocks; i++)
		W += weights[i];
	if (W == 0) {
		*first = *count = 0;
		return;
	}
	for (uint32_t i = 0; i < nblocks; i++)
		floor_sum += (uint64_t)((unsigned __int128)elems * weights[i] / W);
	uint64_t rem = elems - floor_sum;

	for (uint32_t i = 0; i <= b; i++) {
		uint64_t n = (uint64_t)((unsigned __int128)elems * weights[i] / W);

		if (weights[i] > 0) {
			if (nz < rem)
				n++;
			nz++;
		}
		if (i == b) {
			*first = pos;
			*count = n;
			return;
		}
		pos += n;
	}
}

void ir_unit_range(enum coll c, uint32_t nblocks, uint32_t nchunks, const uint64_t *weights,
		   uint64_t elems, uint32_t u, uint64_t *first, uint64_t *count)
{
	uint64_t bfirst, bcount, pfirst;

	ir_block_range(c, nblocks, weights, elems, u / nchunks, &bfirst, &bcount);
	ir_split(bcount, nchunks, u % nchunks, &pfirst, count);
	*first = bfirst + pfirst;
}

void ir_windows(enum coll c, uint32_t nunits, uint32_t nchunks, int root, int peer, int r,
		uint32_t w[4])
{
	uint32_t all = nunits, k = nchunks;
	uint32_t blo = (uint32_t)r * k, bhi = (uint32_t)(r + 1) * k;

	if (bhi > all)
		blo = bhi = 0;
	w[0] = 0, w[1] = all, w[2] = 0, w[3] = all;
	switch (c) {
	case COLL_ALLREDUCE:
	case COLL_ALLTOALL:
		break;
	case COLL_ALLGATHER:
	case COLL_ALLGATHERV:
		w[0] = blo, w[1] = bhi;
		break;
	case COLL_REDUCESCATTER:
		w[2] = blo, w[3] = bhi;
		break;
	case COLL_BROADCAST:
		if (r != root)
			w[1] = 0;
		break;
	case COLL_REDUCE:
		if (r != root)
			w[3] = 0;
		break;
	case COLL_P2P:
		if (r != root)
			w[1] = 0;
		if (r != peer)
			w[3] = 0;
		break;
	}
}

double ir_busbw_factor(enum coll c, int n)
{
	switch (c) {
	case COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case COLL_ALLGATHER:
	case COLL_ALLGATHERV:
	case COLL_REDUCESCATTER:
	case COLL_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}
