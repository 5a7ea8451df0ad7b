/* The plan: a schedule made concrete for one size. Each op's unit ranges
 * become element offsets in the rank's buffers by the chunking rule; each
 * (sender, receiver, lane) that carries data becomes a connection whose
 * messages are matched in FIFO order and numbered, whose slices are
 * numbered per iteration, and whose staging slots and flags get a fixed
 * place in the sender's and the receiver's regions. Every process computes
 * the whole plan for every rank, so all agree on every offset without
 * exchanging anything but the regions' base addresses. */
#include "gpu/core/gx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GX_ALIGN 256

static void plan_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* Element position of scratch unit s (0 <= s <= scratch_units). */
static uint64_t scratch_pos(const struct gx_sched *s, uint64_t elems, uint64_t su)
{
	return su / s->nunits * elems + gx_unit_first(s, elems, (uint32_t)(su % s->nunits));
}

/* The element range [*first, *first + *n) of `count` units at `off` in
 * buffer b of rank r, relative to that buffer's start; false when the
 * range leaves the buffer. */
static bool buf_range(const struct gx_sched *s, uint64_t elems, bool inplace, int r, uint8_t b,
		      uint32_t off, uint32_t count, uint64_t *first, uint64_t *n)
{
	const struct gx_rank *rk = &s->ranks[r];
	uint64_t end = (uint64_t)off + count;

	if (b == GX_BUF_SCRATCH) {
		if (end > s->scratch_units)
			return false;
		*first = scratch_pos(s, elems, off);
		*n = scratch_pos(s, elems, end) - *first;
		return true;
	}
	uint32_t lo = b == GX_BUF_IN ? rk->in_lo : rk->out_lo;
	uint32_t hi = b == GX_BUF_IN ? rk->in_hi : rk->out_hi;

	if (b != GX_BUF_IN && b != GX_BUF_OUT)
		return false;
	if (off < lo || end > hi)
		return false;
	uint64_t g0 = gx_unit_first(s, elems, off);

	*n = gx_unit_first(s, elems, (uint32_t)end) - g0;
	*first = g0 - (inplace ? 0 : gx_unit_first(s, elems, lo));
	return true;
}

static int conn_cmp(const void *a, const void *b)
{
	const struct gx_conn *x = (const struct gx_conn *)a, *y = (const struct gx_conn *)b;

	if (x->sender != y->sender)
		return x->sender < y->sender ? -1 : 1;
	if (x->receiver != y->receiver)
		return x->receiver < y->receiver ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

static int32_t conn_find(const struct gx_plan *p, int sender, int receiver, uint32_t lane)
{
	struct gx_conn key;
	const struct gx_conn *c;

	key.sender = sender, key.receiver = receiver, key.lane = lane;
	c = (const struct gx_conn *)bsearch(&key, p->conns, p->nconns, sizeof(key), conn_cmp);
	return c ? (int32_t)(c - p->conns) : -1;
}

void gx_plan_free(struct gx_plan *p)
{
	if (!p)
		return;
	if (p->ranks)
		for (int r = 0; r < p->s->nranks; r++)
			free(p->ranks[r].ops);
	free(p->ranks);
	free(p->conns);
	free(p);
}

/* Per connection, the (rank, op) of its k-th send and k-th receive. */
struct match {
	uint32_t *send_op, *recv_op;
	uint64_t nsend, nrecv;
};

static bool plan_ops(struct gx_plan *p, char *err, size_t errlen)
{
	const struct gx_sched *s = p->s;
	uint64_t E = p->elems, C = p->nchannels, S = p->slice_elems;

	for (int r = 0; r < s->nranks; r++) {
		const struct gx_rank *rk = &s->ranks[r];
		struct gx_rank_plan *rp = &p->ranks[r];
		int32_t last[GX_MAX_LANES];

		for (int l = 0; l < GX_MAX_LANES; l++)
			last[l] = -1;
		rp->nops = rk->nops;
		rp->deps = rk->deps;
		rp->ops = (struct gx_xop *)calloc(rk->nops ? rk->nops : 1, sizeof(struct gx_xop));
		if (!rp->ops)
			abort();
		uint64_t win_in = gx_unit_first(s, E, rk->in_hi) - gx_unit_first(s, E, rk->in_lo);
		uint64_t win_out = gx_unit_first(s, E, rk->out_hi) - gx_unit_first(s, E, rk->out_lo);

		if (p->inplace) {
			rp->in_elems = rk->in_hi > rk->in_lo || rk->out_hi > rk->out_lo ? E : 0;
			rp->out_elems = rp->in_elems;
		} else {
			rp->in_elems = rk->in_hi > rk->in_lo ? win_in : 0;
			rp->out_elems = rk->out_hi > rk->out_lo ? win_out : 0;
		}
		rp->scratch_elems = scratch_pos(s, E, s->scratch_units);
		for (uint32_t i = 0; i < rk->nops; i++) {
			const struct gx_op *o = &rk->ops[i];
			struct gx_xop *x = &rp->ops[i];
			unsigned f = gx_kind_flags((enum gx_kind)o->kind);
			uint64_t sn = 0, dn = 0;

			if (o->kind >= GX_OP_NKINDS) {
				plan_err(err, errlen, "rank %d op %u: bad kind %u", r, i, o->kind);
				return false;
			}
			x->kind = o->kind;
			x->flags = (uint8_t)f;
			x->src_buf = (f & GX_F_SRC) ? o->src_buf : GX_BUF_NONE;
			x->dst_buf = (f & GX_F_DST) ? o->dst_buf : GX_BUF_NONE;
			x->send_proto = o->proto;
			x->recv_proto = o->proto;
			x->in_conn = x->out_conn = -1;
			x->dep_first = o->dep_first;
			x->ndeps = o->ndeps;
			for (uint32_t d = 0; d < o->ndeps; d++)
				if (rk->deps[o->dep_first + d] >= i) {
					plan_err(err, errlen, "rank %d op %u: dep %u is not an earlier op",
						 r, i, rk->deps[o->dep_first + d]);
					return false;
				}
			if ((f & GX_F_SRC) && !buf_range(s, E, p->inplace, r, o->src_buf, o->src_off,
							 o->count, &x->src_elem, &sn)) {
				plan_err(err, errlen,
					 "rank %d op %u (%s): source %s [%u, +%u) lies outside its buffer",
					 r, i, gx_kind_name((enum gx_kind)o->kind),
					 gx_buf_name((enum gx_buf)o->src_buf), o->src_off, o->count);
				return false;
			}
			if ((f & GX_F_DST) && !buf_range(s, E, p->inplace, r, o->dst_buf, o->dst_off,
							 o->count, &x->dst_elem, &dn)) {
				plan_err(err, errlen,
					 "rank %d op %u (%s): destination %s [%u, +%u) lies outside its buffer",
					 r, i, gx_kind_name((enum gx_kind)o->kind),
					 gx_buf_name((enum gx_buf)o->dst_buf), o->dst_off, o->count);
				return false;
			}
			/* a copy between ranges of different sizes moves the
			 * smaller count (ir.h: AllGatherV's pad), and may drop
			 * elements only out of scratch (sim/algos/runner.c) */
			if (o->kind == GX_OP_COPY && sn > dn && o->src_buf != GX_BUF_SCRATCH) {
				plan_err(err, errlen,
					 "rank %d op %u: a copy of %llu elements of its %s into %llu would"
					 " drop data; take a larger size",
					 r, i, (unsigned long long)sn,
					 gx_buf_name((enum gx_buf)o->src_buf), (unsigned long long)dn);
				return false;
			}
			if (o->kind == GX_OP_COPY && sn != dn)
				sn = dn = sn < dn ? sn : dn;
			if ((f & GX_F_SRC) && (f & GX_F_DST) && sn != dn) {
				plan_err(err, errlen,
					 "rank %d op %u: source has %llu elements, destination %llu", r,
					 i, (unsigned long long)sn, (unsigned long long)dn);
				return false;
			}
			x->n = (f & GX_F_DST) ? dn : sn;
			uint64_t part = (x->n + C - 1) / C;
			uint64_t ns = (part + S - 1) / S;

			x->nslices = (uint32_t)(ns ? ns : 1);
			if ((f & GX_F_SEND) && (o->send_peer < 0 || o->send_peer >= s->nranks ||
						o->send_peer == r)) {
				plan_err(err, errlen, "rank %d op %u: bad send peer %d", r, i,
					 o->send_peer);
				return false;
			}
			if ((f & GX_F_RECV) && (o->recv_peer < 0 || o->recv_peer >= s->nranks ||
						o->recv_peer == r)) {
				plan_err(err, errlen, "rank %d op %u: bad receive peer %d", r, i,
					 o->recv_peer);
				return false;
			}
			x->lane_pred = last[o->lane];
			last[o->lane] = (int32_t)i;
		}
	}
	return true;
}

static bool plan_conns(struct gx_plan *p, char *err, size_t errlen)
{
	const struct gx_sched *s = p->s;
	uint64_t n = 0;
	bool ok = false;

	for (int r = 0; r < s->nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].nops; i++)
			if (p->ranks[r].ops[i].flags & GX_F_SEND)
				n++;
	p->conns = (struct gx_conn *)calloc(n ? n : 1, sizeof(struct gx_conn));
	if (!p->conns)
		abort();
	for (int r = 0; r < s->nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].nops; i++) {
			const struct gx_op *o = &s->ranks[r].ops[i];

			if (!(p->ranks[r].ops[i].flags & GX_F_SEND))
				continue;
			struct gx_conn *c = &p->conns[p->nconns++];

			c->sender = r, c->receiver = o->send_peer, c->lane = o->lane;
		}
	qsort(p->conns, p->nconns, sizeof(struct gx_conn), conn_cmp);
	uint32_t m = 0;

	for (uint32_t i = 0; i < p->nconns; i++)
		if (!m || conn_cmp(&p->conns[m - 1], &p->conns[i]))
			p->conns[m++] = p->conns[i];
	p->nconns = m;

	struct match *mt = (struct match *)calloc(m ? m : 1, sizeof(struct match));

	if (!mt)
		abort();
	/* Number messages and slices in list order, on both sides. */
	for (int r = 0; r < s->nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].nops; i++) {
			const struct gx_op *o = &s->ranks[r].ops[i];
			struct gx_xop *x = &p->ranks[r].ops[i];

			if (x->flags & GX_F_SEND) {
				int32_t c = conn_find(p, r, o->send_peer, o->lane);
				struct gx_conn *cn = &p->conns[c];

				x->out_conn = c;
				x->send_msg = mt[c].nsend++;
				x->send_base = cn->slices;
				cn->slices += x->nslices;
				cn->msgs++;
				cn->proto_any |= (uint8_t)(1u << x->send_proto);
			}
			if (x->flags & GX_F_RECV) {
				int32_t c = conn_find(p, o->recv_peer, r, o->lane);

				if (c < 0) {
					plan_err(err, errlen,
						 "rank %d op %u receives from rank %d on lane %u, which never sends to rank %d on that lane",
						 r, i, o->recv_peer, o->lane, r);
					goto out;
				}
				x->in_conn = c;
				x->recv_msg = mt[c].nrecv++;
			}
		}
	for (uint32_t c = 0; c < m; c++) {
		if (mt[c].nsend != mt[c].nrecv) {
			plan_err(err, errlen,
				 "rank %d sends %llu messages to rank %d on lane %u, which receives %llu",
				 p->conns[c].sender, (unsigned long long)mt[c].nsend,
				 p->conns[c].receiver, p->conns[c].lane,
				 (unsigned long long)mt[c].nrecv);
			goto out;
		}
		mt[c].send_op = (uint32_t *)calloc(mt[c].nsend + 1, sizeof(uint32_t));
		mt[c].recv_op = (uint32_t *)calloc(mt[c].nrecv + 1, sizeof(uint32_t));
		if (!mt[c].send_op || !mt[c].recv_op)
			abort();
	}
	for (int r = 0; r < s->nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].nops; i++) {
			const struct gx_xop *x = &p->ranks[r].ops[i];

			if (x->flags & GX_F_SEND)
				mt[x->out_conn].send_op[x->send_msg] = i;
			if (x->flags & GX_F_RECV)
				mt[x->in_conn].recv_op[x->recv_msg] = i;
		}
	for (uint32_t c = 0; c < m; c++) {
		const struct gx_conn *cn = &p->conns[c];

		for (uint64_t k = 0; k < mt[c].nsend; k++) {
			const struct gx_xop *tx = &p->ranks[cn->sender].ops[mt[c].send_op[k]];
			struct gx_xop *rx = &p->ranks[cn->receiver].ops[mt[c].recv_op[k]];

			if (tx->n != rx->n) {
				plan_err(err, errlen,
					 "rank %d op %u sends %llu elements to rank %d op %u, which receives %llu (lane %u, message %llu)",
					 cn->sender, mt[c].send_op[k], (unsigned long long)tx->n,
					 cn->receiver, mt[c].recv_op[k], (unsigned long long)rx->n,
					 cn->lane, (unsigned long long)k);
				goto out;
			}
			if (tx->send_proto != rx->recv_proto) {
				plan_err(err, errlen,
					 "rank %d op %u sends by %s to rank %d op %u, which receives by %s",
					 cn->sender, mt[c].send_op[k],
					 gx_proto_name((enum gx_proto)tx->send_proto), cn->receiver,
					 mt[c].recv_op[k],
					 gx_proto_name((enum gx_proto)rx->recv_proto));
				goto out;
			}
			rx->recv_base = tx->send_base;
		}
	}
	ok = true;
out:
	for (uint32_t c = 0; c < m; c++) {
		free(mt[c].send_op);
		free(mt[c].recv_op);
	}
	free(mt);
	return ok;
}

static void plan_layout(struct gx_plan *p, uint64_t max_slots)
{
	const struct gx_sched *s = p->s;
	uint64_t C = p->nchannels, flags = C * GX_FLAG_STRIDE;
	uint64_t slice_bytes = p->slot_bytes;

	for (uint32_t c = 0; c < p->nconns; c++) {
		struct gx_conn *cn = &p->conns[c];

		cn->slots = max_slots && max_slots < cn->slices ? max_slots : cn->slices;
		if (!cn->slots)
			cn->slots = 1;
	}
	for (int r = 0; r < s->nranks; r++) {
		uint64_t off = 0;

		for (uint32_t c = 0; c < p->nconns; c++) {
			struct gx_conn *cn = &p->conns[c];

			if (cn->receiver != r)
				continue;
			cn->stage_off = off;
			off = align_up(off + C * cn->slots * slice_bytes, GX_ALIGN);
			cn->data_off = off;
			off += flags;
		}
		for (uint32_t c = 0; c < p->nconns; c++) {
			struct gx_conn *cn = &p->conns[c];

			if (cn->sender != r)
				continue;
			cn->credit_off = off;
			off += flags;
			cn->ready_off = off;
			off += flags;
		}
		p->ranks[r].region_bytes = off ? off : GX_ALIGN;
	}
}

struct gx_plan *gx_plan_new(const struct gx_sched *s, uint64_t elems, uint32_t esize,
			    uint32_t nchannels, uint64_t slice_elems, uint64_t max_slots,
			    enum gx_wire wire, bool inplace, char *err, size_t errlen)
{
	struct gx_plan *p;

	if (nchannels < 1 || slice_elems < 1 || esize < 1 || (unsigned)wire >= GX_NWIRES) {
		plan_err(err, errlen, "channels, slice and element size must be positive");
		return NULL;
	}
	if (inplace && !s->inplace_ok) {
		plan_err(err, errlen, "schedule '%s' is out-of-place only", s->algo);
		return NULL;
	}
	p = (struct gx_plan *)calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->s = s;
	p->elems = elems;
	p->esize = esize;
	p->nchannels = nchannels;
	p->slice_elems = slice_elems;
	p->wire = wire;
	p->slot_bytes = wire == GX_WIRE_LL
		? (slice_elems * esize + GX_LL_DATA - 1) / GX_LL_DATA * GX_LL_LINE
		: align_up(slice_elems * esize, 16);
	p->inplace = inplace;
	p->ranks = (struct gx_rank_plan *)calloc((size_t)s->nranks, sizeof(struct gx_rank_plan));
	if (!p->ranks)
		abort();
	if (!plan_ops(p, err, errlen) || !plan_conns(p, err, errlen)) {
		gx_plan_free(p);
		return NULL;
	}
	plan_layout(p, max_slots);
	return p;
}
