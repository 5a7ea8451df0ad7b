/* The schedule IR's lifecycle and its fixed rules: building a schedule op by
 * op, the chunking rule, windows and names (ir.c, shared with the
 * executor, behind GLib-style asserts), and a data-hazard tracker that
 * gives generators their local deps. A schedule is plain data (struct sched in schedule.h); everything
 * here is a pure function of it, so two builds of the same parameters are
 * identical. */
#include "sim/algos/schedule.h"

#include <string.h>
#include <unistd.h>

GQuark sched_error_quark(void)
{
	return g_quark_from_static_string("g5-sched-error-quark");
}

struct sched *sched_new(enum coll coll, const char *algo, int nranks, uint32_t nblocks,
			uint32_t nchunks)
{
	g_assert(nranks >= 1 && nranks <= SCHED_MAX_RANKS);
	g_assert(nblocks >= 1 && nchunks >= 1);
	g_assert((uint64_t)nblocks * nchunks <= UINT32_MAX / 4);
	struct sched *s = g_new0(struct sched, 1);

	s->coll = coll;
	s->algo = g_strdup(algo);
	s->nranks = nranks;
	s->root = 0;
	s->peer = coll == COLL_P2P ? (nranks > 1 ? 1 : 0) : -1;
	s->nblocks = nblocks;
	s->nchunks = nchunks;
	s->nunits = nblocks * nchunks;
	s->ranks = g_new0(struct sched_rank, nranks);
	uint64_t mem = sched_machine_memory();

	/* half of it: the run needs the rest, and arrays grow by doubling */
	s->max_ops = mem ? mem / 2 / SCHED_BYTES_PER_OP : UINT64_MAX;
	for (int r = 0; r < nranks; r++) {
		s->ranks[r].ops = g_array_new(FALSE, FALSE, sizeof(struct sched_op));
		s->ranks[r].deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	}
	sched_set_windows(s);
	return s;
}

uint64_t sched_machine_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	for (int r = 0; r < s->nranks; r++) {
		g_array_unref(s->ranks[r].ops);
		g_array_unref(s->ranks[r].deps);
	}
	g_free(s->ranks);
	g_free(s->weights);
	g_free(s->algo);
	g_free(s);
}

uint32_t sched_add(struct sched *s, int r, const struct sched_op *op, const uint32_t *deps,
		   uint32_t ndeps)
{
	g_assert(r >= 0 && r < s->nranks);
	g_assert(!s->turned || r == 0);
	struct sched_rank *rk = &s->ranks[r];
	struct sched_op o = *op;
	uint32_t idx = rk->added++;

	for (uint32_t i = 0; i < ndeps; i++)
		g_assert_cmpuint(deps[i], <, idx);
	if (++s->nops > s->max_ops)
		return idx; /* counted, not stored: sched_over */
	g_assert(idx == rk->ops->len);
	o.dep_first = rk->deps->len;
	o.ndeps = ndeps;
	if (ndeps)
		g_array_append_vals(rk->deps, deps, ndeps);
	g_array_append_val(rk->ops, o);
	if (o.step + 1 > s->nsteps)
		s->nsteps = o.step + 1;
	if ((uint32_t)o.lane + 1 > s->nlanes)
		s->nlanes = (uint32_t)o.lane + 1;
	return idx;
}

void sched_reserve(struct sched *s, int r, uint32_t nops, uint32_t ndeps)
{
	g_assert(r >= 0 && r < s->nranks);
	struct sched_rank *rk = &s->ranks[r];
	guint ops = rk->ops->len, deps = rk->deps->len;

	if (s->nops + nops > s->max_ops)
		return; /* it will not be stored whole: no room taken for it */
	/* a GArray keeps its room when it shrinks */
	g_array_set_size(rk->ops, ops + nops);
	g_array_set_size(rk->ops, ops);
	g_array_set_size(rk->deps, deps + ndeps);
	g_array_set_size(rk->deps, deps);
}

struct sched_op sched_op_get(const struct sched *s, int r, uint32_t i)
{
	struct sched_op o = *sched_op_at(s, s->turned ? 0 : r, i);

	if (s->turned && r) {
		o.recv_peer = sched_turn_peer(s, r, o.recv_peer);
		o.send_peer = sched_turn_peer(s, r, o.send_peer);
		o.src_off = sched_turn_unit(s, r, o.src_buf, o.src_off);
		o.dst_off = sched_turn_unit(s, r, o.dst_buf, o.dst_off);
	}
	return o;
}

void sched_expand(struct sched *s)
{
	if (!s->turned)
		return;
	const struct sched_rank *r0 = &s->ranks[0];

	for (int r = 1; r < s->nranks; r++) {
		struct sched_rank *rk = &s->ranks[r];

		g_array_set_size(rk->ops, r0->ops->len);
		for (guint i = 0; i < r0->ops->len; i++)
			g_array_index(rk->ops, struct sched_op, i) = sched_op_get(s, r, i);
		g_array_set_size(rk->deps, 0);
		g_array_append_vals(rk->deps, r0->deps->data, r0->deps->len);
	}
	s->turned = false;
	s->turn_units = 0;
}

const uint32_t *sched_op_deps(const struct sched *s, int r, uint32_t i)
{
	const struct sched_op *o = sched_op_at(s, r, i);

	if (!o->ndeps)
		return NULL;
	return &g_array_index(s->ranks[r].deps, uint32_t, o->dep_first);
}

void sched_unit_range(const struct sched *s, uint64_t elems, uint32_t u, uint64_t *first,
		      uint64_t *count)
{
	g_assert_cmpuint(u, <, s->nunits);
	ir_unit_range(s->coll, s->nblocks, s->nchunks, s->weights, elems, u, first, count);
}

const char *coll_name(enum coll c)
{
	const char *n = ir_coll_name(c);

	if (!strcmp(n, "?"))
		g_error("coll_name: not one collective: 0x%x", (unsigned)c);
	return n;
}

bool coll_parse(const char *name, enum coll *out)
{
	return ir_coll_parse(name, out);
}

const char *sched_op_kind_name(enum sched_op_kind k)
{
	g_assert((unsigned)k < SOP_NKINDS);
	return ir_op_kind_name(k);
}

bool sched_op_kind_parse(const char *name, enum sched_op_kind *out)
{
	return ir_op_kind_parse(name, out);
}

const char *sched_buf_name(enum sched_buf b)
{
	g_assert((unsigned)b < SBUF_NBUFS);
	return ir_buf_name(b);
}

bool sched_buf_parse(const char *name, enum sched_buf *out)
{
	return ir_buf_parse(name, out);
}

void sched_expected_windows(const struct sched *s, int r, uint32_t w[4])
{
	g_assert(strcmp(ir_coll_name(s->coll), "?"));
	ir_windows(s->coll, s->nunits, s->nchunks, s->root, s->peer, r, w);
}

void sched_set_windows(struct sched *s)
{
	for (int r = 0; r < s->nranks; r++) {
		uint32_t w[4];

		sched_expected_windows(s, r, w);
		s->ranks[r].in_lo = w[0];
		s->ranks[r].in_hi = w[1];
		s->ranks[r].out_lo = w[2];
		s->ranks[r].out_hi = w[3];
	}
}

bool sched_equal(const struct sched *a, const struct sched *b)
{
	if (a->coll != b->coll || strcmp(a->algo, b->algo) || a->nranks != b->nranks ||
	    a->root != b->root || a->peer != b->peer || a->nblocks != b->nblocks ||
	    a->nchunks != b->nchunks || a->nunits != b->nunits ||
	    a->scratch_units != b->scratch_units || a->nsteps != b->nsteps ||
	    a->nlanes != b->nlanes || a->inplace_ok != b->inplace_ok || a->turned != b->turned ||
	    a->turn_units != b->turn_units)
		return false;
	if (!a->weights != !b->weights)
		return false;
	if (a->weights && memcmp(a->weights, b->weights, a->nblocks * sizeof(uint64_t)))
		return false;
	for (int r = 0; r < a->nranks; r++) {
		const struct sched_rank *x = &a->ranks[r], *y = &b->ranks[r];

		if (x->in_lo != y->in_lo || x->in_hi != y->in_hi || x->out_lo != y->out_lo ||
		    x->out_hi != y->out_hi || x->ops->len != y->ops->len)
			return false;
		for (guint i = 0; i < x->ops->len; i++) {
			const struct sched_op *o = sched_op_at(a, r, i), *p = sched_op_at(b, r, i);

			/* field by field: the struct has padding */
			if (o->kind != p->kind || o->paxi != p->paxi || o->lane != p->lane ||
			    o->src_buf != p->src_buf || o->dst_buf != p->dst_buf ||
			    o->recv_peer != p->recv_peer || o->send_peer != p->send_peer ||
			    o->src_off != p->src_off || o->dst_off != p->dst_off ||
			    o->count != p->count || o->step != p->step || o->ndeps != p->ndeps)
				return false;
			if (o->ndeps && memcmp(sched_op_deps(a, r, i), sched_op_deps(b, r, i),
					       o->ndeps * sizeof(uint32_t)))
				return false;
		}
	}
	return true;
}

/* ---- Hazard tracking. Cells are per rank: the input and output share one
 * range of global units (aliased, as in place), scratch follows. Each cell
 * remembers its last writer and the ops that read it since: one reader in
 * the cell itself, more as a list of reader entries in one pool; a writer
 * hands its cell's list back to the pool's free list, so the pool holds at
 * most the readers alive at once beyond each cell's first. A cell is 8
 * bytes and the tracker allocates nothing per op. ---- */

#define HZ_NONE UINT32_MAX
#define HZ_ONE 0x80000000u /* readers: the one reader's op index | HZ_ONE */

struct hz_cell {
	uint32_t writer;  /* op index, HZ_NONE: none */
	uint32_t readers; /* HZ_NONE: none; with HZ_ONE: a single reader, that op;
			   * else the first reader entry in the pool */
};

struct hz_reader {
	uint32_t op;
	uint32_t next; /* next entry of the same cell (or of the free list), HZ_NONE: last */
};

struct sched_hazards {
	int nranks;
	uint32_t nunits, scratch_units;
	struct hz_cell **cells; /* per rank: nunits + scratch_units, owned */
	GArray *pool;           /* of struct hz_reader, owned */
	uint32_t free;          /* first free entry of pool, HZ_NONE: none */
	GArray *deps;           /* of uint32_t: sched_add_tracked's scratch, owned */
};

struct sched_hazards *sched_hazards_new(const struct sched *s)
{
	struct sched_hazards *h = g_new0(struct sched_hazards, 1);

	h->nranks = s->nranks;
	h->nunits = s->nunits;
	h->scratch_units = s->scratch_units;
	h->cells = g_new0(struct hz_cell *, s->nranks); /* a rank's when it is first used */
	h->pool = g_array_new(FALSE, FALSE, sizeof(struct hz_reader));
	h->free = HZ_NONE;
	h->deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	return h;
}

void sched_hazards_free(struct sched_hazards *h)
{
	if (!h)
		return;
	for (int r = 0; r < h->nranks; r++)
		g_free(h->cells[r]);
	g_free(h->cells);
	g_array_unref(h->pool);
	g_array_unref(h->deps);
	g_free(h);
}

static struct hz_cell *hz_cell(struct sched_hazards *h, int r, uint8_t buf, uint32_t u)
{
	if (!h->cells[r]) {
		/* all ones: no writer, no readers */
		h->cells[r] = g_new(struct hz_cell, h->nunits + h->scratch_units);
		memset(h->cells[r], 0xff, sizeof(struct hz_cell) * (h->nunits + h->scratch_units));
	}
	if (buf == SBUF_SCRATCH) {
		g_assert_cmpuint(u, <, h->scratch_units);
		return &h->cells[r][h->nunits + u];
	}
	g_assert_cmpuint(u, <, h->nunits);
	return &h->cells[r][u];
}

/* The cells of units off .. off + count - 1 (count >= 1) of buf on rank r,
 * which lie in a row. */
static struct hz_cell *hz_cells(struct sched_hazards *h, int r, uint8_t buf, uint32_t off,
				uint32_t count)
{
	struct hz_cell *c = hz_cell(h, r, buf, off);

	g_assert(hz_cell(h, r, buf, off + count - 1) == c + count - 1);
	return c;
}

static struct hz_reader *hz_reader(struct sched_hazards *h, uint32_t e)
{
	return &g_array_index(h->pool, struct hz_reader, e);
}

/* An entry of the pool holding op, before entry next. */
static uint32_t hz_entry(struct sched_hazards *h, uint32_t op, uint32_t next)
{
	uint32_t e = h->free;

	if (e != HZ_NONE) {
		h->free = hz_reader(h, e)->next;
	} else {
		g_assert_cmpuint(h->pool->len, <, HZ_ONE);
		e = h->pool->len;
		g_array_set_size(h->pool, e + 1);
	}
	*hz_reader(h, e) = (struct hz_reader){ .op = op, .next = next };
	return e;
}

/* Adds op `self` to the front of c's readers. */
static void hz_read(struct sched_hazards *h, struct hz_cell *c, uint32_t self)
{
	if (c->readers == HZ_NONE) {
		c->readers = self | HZ_ONE;
		return;
	}
	if (c->readers & HZ_ONE)
		c->readers = hz_entry(h, c->readers & ~HZ_ONE, HZ_NONE);
	c->readers = hz_entry(h, self, c->readers);
}

/* Hands c's readers back to the pool. */
static void hz_clear_readers(struct sched_hazards *h, struct hz_cell *c)
{
	uint32_t last = c->readers;

	if (last == HZ_NONE)
		return;
	if (last & HZ_ONE) {
		c->readers = HZ_NONE;
		return;
	}
	while (hz_reader(h, last)->next != HZ_NONE)
		last = hz_reader(h, last)->next;
	hz_reader(h, last)->next = h->free;
	h->free = c->readers;
	c->readers = HZ_NONE;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t sched_add_tracked(struct sched *s, struct sched_hazards *h, int r,
			   const struct sched_op *op, const uint32_t *extra, uint32_t nextra)
{
	unsigned f = sched_op_kind_flags((enum sched_op_kind)op->kind);
	uint32_t self = s->ranks[r].added; /* sched_add returns it */
	GArray *deps = h->deps;
	/* A copy (or a copy-send) of input units to the same output units (or back) writes
	 * the values its cells already hold when the buffers alias, and other
	 * memory when they do not: it need not wait for earlier readers, and
	 * earlier readers stay readers. */
	bool selfcopy = (op->kind == SOP_COPY || op->kind == SOP_COPY_SEND) &&
			op->src_off == op->dst_off &&
			((op->src_buf == SBUF_IN && op->dst_buf == SBUF_OUT) ||
			 (op->src_buf == SBUF_OUT && op->dst_buf == SBUF_IN));

	g_assert_cmpuint(self, <, HZ_ONE);
	g_array_set_size(deps, 0);
	if (nextra)
		g_array_append_vals(deps, extra, nextra);
	/* neighbouring cells most often have the same writer and readers:
	 * each is taken once in a row (the deps are made sorted and unique
	 * below) */
	uint32_t last = HZ_NONE, last_reader = HZ_NONE;

	struct hz_cell *src = f & SOPF_SRC ? hz_cells(h, r, op->src_buf, op->src_off, op->count) : NULL;
	struct hz_cell *dst = f & SOPF_DST ? hz_cells(h, r, op->dst_buf, op->dst_off, op->count) : NULL;

	for (uint32_t i = 0; i < op->count; i++) {
		if (src) {
			struct hz_cell *c = &src[i];

			if (c->writer != HZ_NONE && c->writer != last)
				g_array_append_val(deps, c->writer);
			last = c->writer;
		}
		if (dst) {
			struct hz_cell *c = &dst[i];

			if (c->writer != HZ_NONE && c->writer != last)
				g_array_append_val(deps, c->writer);
			last = c->writer;
			if (!selfcopy)
				for (uint32_t e = c->readers; e != HZ_NONE;) {
					bool one = e & HZ_ONE;
					uint32_t reader = one ? e & ~HZ_ONE : hz_reader(h, e)->op;

					if (reader != last_reader) {
						last_reader = reader;
						g_array_append_val(deps, reader);
					}
					e = one ? HZ_NONE : hz_reader(h, e)->next;
				}
		}
	}
	/* Update after collecting, so an op that reads and writes one cell
	 * (D = D + L) does not depend on itself. */
	for (uint32_t i = 0; src && i < op->count; i++)
		hz_read(h, &src[i], self);
	for (uint32_t i = 0; dst && i < op->count; i++) {
		dst[i].writer = self;
		if (!selfcopy)
			hz_clear_readers(h, &dst[i]);
	}
	/* sorted, unique */
	if (deps->len > 1)
		g_array_sort(deps, cmp_u32);
	guint n = 0;

	for (guint i = 0; i < deps->len; i++) {
		uint32_t d = g_array_index(deps, uint32_t, i);

		if (d == self || (n && g_array_index(deps, uint32_t, n - 1) == d))
			continue;
		g_array_index(deps, uint32_t, n++) = d;
	}
	return sched_add(s, r, op, (const uint32_t *)deps->data, n);
}

/* ---- Embedding (schedule.h): a sub-schedule's ops, remapped into a host
 * schedule. ---- */

uint32_t sched_embed_scratch_copies(const struct sched *sub)
{
	return (sub->scratch_units + sub->nunits - 1) / sub->nunits;
}

/* The host buffer and unit of unit `off` of sub buffer `buf`. */
static uint32_t embed_unit(const struct sched *s, const struct sched *sub,
			   const struct sched_embedding *e, uint8_t buf, uint32_t off, uint8_t *hbuf)
{
	if (buf == SBUF_SCRATCH) {
		*hbuf = SBUF_SCRATCH;
		return (e->copy[SBUF_SCRATCH] + off / sub->nunits) * s->nunits +
		       e->units[off % sub->nunits];
	}
	g_assert_cmpuint(off, <, sub->nunits);
	*hbuf = e->buf[buf];
	return (*hbuf == SBUF_SCRATCH ? e->copy[buf] * s->nunits : 0) + e->units[off];
}

/* True when unit i of the op's range (i >= 1) does not follow unit i - 1 in
 * the host buffer. */
static bool embed_jump(const struct sched *s, const struct sched *sub,
		       const struct sched_embedding *e, uint8_t buf, uint32_t off, uint32_t i)
{
	uint8_t b;

	return embed_unit(s, sub, e, buf, off + i, &b) !=
	       embed_unit(s, sub, e, buf, off + i - 1, &b) + e->span;
}

void sched_embed(struct sched *s, struct sched_hazards *h, const struct sched *sub,
		 const struct sched_embedding *e)
{
	g_assert(e->span >= 1);
	for (int sr = 0; sr < sub->nranks; sr++) {
		int r = e->ranks[sr];
		guint nops = sub->ranks[sr].ops->len;
		/* the host ops that stand for each sub op: its pieces, or for a
		 * copy left out, what its deps stand for */
		GPtrArray *stand = g_ptr_array_new_full(nops, (GDestroyNotify)g_array_unref);
		GArray *extra = g_array_new(FALSE, FALSE, sizeof(uint32_t));

		g_assert(r >= 0 && r < s->nranks);
		for (guint i = 0; i < nops; i++) {
			const struct sched_op *so = sched_op_at(sub, sr, i);
			const uint32_t *deps = sched_op_deps(sub, sr, i);
			unsigned f = sched_op_kind_flags((enum sched_op_kind)so->kind);
			GArray *mine = g_array_new(FALSE, FALSE, sizeof(uint32_t));

			g_array_set_size(extra, 0);
			for (uint32_t d = 0; d < so->ndeps; d++) {
				GArray *dep = g_ptr_array_index(stand, deps[d]);

				g_array_append_vals(extra, dep->data, dep->len);
			}
			struct sched_op o = *so;
			uint8_t sb = SBUF_NONE, db = SBUF_NONE;

			o.step += e->step;
			o.recv_peer = so->recv_peer >= 0 ? e->ranks[so->recv_peer] : -1;
			o.send_peer = so->send_peer >= 0 ? e->ranks[so->send_peer] : -1;
			if (f & SOPF_SRC)
				o.src_off = embed_unit(s, sub, e, so->src_buf, so->src_off, &sb);
			if (f & SOPF_DST)
				o.dst_off = embed_unit(s, sub, e, so->dst_buf, so->dst_off, &db);
			o.src_buf = sb;
			o.dst_buf = db;
			bool same = (f & SOPF_SRC) && (f & SOPF_DST) && sb == db &&
				    o.src_off == o.dst_off;

			if (same && so->kind == SOP_COPY) {
				g_array_append_vals(mine, extra->data, extra->len);
				g_ptr_array_add(stand, mine);
				continue;
			}
			if (same && so->kind == SOP_COPY_SEND) {
				o.kind = SOP_SEND;
				o.dst_buf = SBUF_NONE;
				o.dst_off = 0;
				f = sched_op_kind_flags(SOP_SEND);
			}
			uint32_t from = 0;

			for (uint32_t k = 1; k <= so->count; k++) {
				if (k < so->count &&
				    !((f & SOPF_SRC) && embed_jump(s, sub, e, so->src_buf, so->src_off, k)) &&
				    !((f & SOPF_DST) && embed_jump(s, sub, e, so->dst_buf, so->dst_off, k)))
					continue;
				struct sched_op piece = o;
				uint8_t b;

				if (f & SOPF_SRC)
					piece.src_off = embed_unit(s, sub, e, so->src_buf, so->src_off + from, &b);
				if (f & SOPF_DST)
					piece.dst_off = embed_unit(s, sub, e, so->dst_buf, so->dst_off + from, &b);
				piece.count = (k - from) * e->span;
				uint32_t idx = sched_add_tracked(s, h, r, &piece, (const uint32_t *)extra->data,
								 extra->len);

				g_array_append_val(mine, idx);
				from = k;
			}
			g_ptr_array_add(stand, mine);
		}
		g_array_unref(extra);
		g_ptr_array_unref(stand);
	}
}
