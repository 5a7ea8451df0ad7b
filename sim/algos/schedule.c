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
	s->none_ops = g_array_new(FALSE, FALSE, sizeof(struct sched_op));
	s->none_deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (int r = 0; r < nranks; r++) {
		s->ranks[r].ops = g_array_ref(s->none_ops);
		s->ranks[r].deps = g_array_ref(s->none_deps);
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
	g_array_unref(s->none_ops);
	g_array_unref(s->none_deps);
	g_free(s->ranks);
	g_free(s->added);
	g_free(s->weights);
	g_free(s->algo);
	g_free(s);
}

/* Rank r's arrays to store into: its own, made if it shares the empty
 * ones (none_ops, none_deps). */
static struct sched_rank *rank_own(struct sched *s, int r)
{
	struct sched_rank *rk = &s->ranks[r];

	if (rk->ops == s->none_ops) {
		g_assert(rk->deps == s->none_deps && !s->none_ops->len && !s->none_deps->len);
		g_array_unref(rk->ops);
		g_array_unref(rk->deps);
		rk->ops = g_array_new(FALSE, FALSE, sizeof(struct sched_op));
		rk->deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	}
	return rk;
}

uint32_t sched_add(struct sched *s, int r, const struct sched_op *op, const uint32_t *deps,
		   uint32_t ndeps)
{
	g_assert(r >= 0 && r < s->nranks);
	g_assert(!s->turned || r == 0);
	struct sched_op o = *op;
	uint32_t idx = sched_added(s, r);

	for (uint32_t i = 0; i < ndeps; i++)
		g_assert_cmpuint(deps[i], <, idx);
	if (++s->nops > s->max_ops) {
		/* counted, not stored: sched_over, from now on */
		if (!s->added) {
			s->added = g_new(uint32_t, s->nranks);
			for (int k = 0; k < s->nranks; k++)
				s->added[k] = s->ranks[k].ops->len;
		}
		s->added[r] = idx + 1;
		return idx;
	}
	struct sched_rank *rk = rank_own(s, r);

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
	rk = rank_own(s, r);
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
		struct sched_rank *rk = rank_own(s, r);

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

uint64_t *sched_elems_before(const struct sched *s, uint64_t elems)
{
	uint64_t *before = g_new(uint64_t, (gsize)s->nunits + 1);

	before[0] = 0;
	for (uint32_t u = 0; u < s->nunits; u++) {
		uint64_t first, n;

		sched_unit_range(s, elems, u, &first, &n);
		before[u + 1] = before[u] + n;
	}
	return before;
}

uint64_t sched_units_elems(const struct sched *s, const uint64_t *before, uint32_t off,
			   uint32_t count)
{
	uint32_t n = s->nunits, first = off % n, rem = count % n;
	uint64_t elems = (uint64_t)(count / n) * before[n];

	if (first + rem <= n)
		elems += before[first + rem] - before[first];
	else
		elems += before[n] - before[first] + before[first + rem - n];
	return elems;
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
 * most the readers alive at once beyond each cell's first. A rank keeps its
 * cells as runs of alike cells while they are few (an op moves a range of
 * units, and a log-step algorithm's ranges halve: a few dozen runs per
 * rank), and as a cell per unit (8 bytes) once its runs outgrow
 * HZ_MAX_RUNS (a ring writes each block apart). Either way an op's deps
 * are the same: its range's writers and (for what it writes) readers,
 * sorted and unique. The tracker allocates nothing per op. ---- */

#define HZ_NONE UINT32_MAX
#define HZ_ONE 0x80000000u /* readers: the one reader's op index | HZ_ONE */
#define HZ_MAX_RUNS 64

struct hz_cell {
	uint32_t writer;  /* op index, HZ_NONE: none */
	uint32_t readers; /* HZ_NONE: none; with HZ_ONE: a single reader, that op;
			   * else the first reader entry in the pool */
};

/* Cells start .. (the next run's start, or the end) - 1, alike. */
struct hz_run {
	uint32_t start;
	struct hz_cell c;
};

struct hz_rank {
	struct hz_cell *cells; /* owned: a cell per unit, once runs outgrew HZ_MAX_RUNS */
	struct hz_run *runs;   /* owned, before that: by start, runs[0].start = 0;
				* NULL: the rank is not used yet */
	uint32_t nruns, cap;
};

struct hz_reader {
	uint32_t op;
	uint32_t next; /* next entry of the same cell (or of the free list), HZ_NONE: last */
};

struct sched_hazards {
	int nranks;
	uint32_t nunits, scratch_units;
	struct hz_rank *ranks;  /* per rank, owned */
	bool flat;              /* a cell per unit from the start (tests) */
	GArray *pool;           /* of struct hz_reader, owned */
	uint32_t free;          /* first free entry of pool, HZ_NONE: none */
	GArray *deps;           /* of uint32_t: sched_add_tracked's scratch, owned */
};

static bool hz_runs = true;

void sched_hazards_runs(bool on)
{
	hz_runs = on;
}

struct sched_hazards *sched_hazards_new(const struct sched *s)
{
	struct sched_hazards *h = g_new0(struct sched_hazards, 1);

	h->nranks = s->nranks;
	h->nunits = s->nunits;
	h->scratch_units = s->scratch_units;
	h->ranks = g_new0(struct hz_rank, s->nranks);
	h->flat = !hz_runs;
	h->pool = g_array_new(FALSE, FALSE, sizeof(struct hz_reader));
	h->free = HZ_NONE;
	h->deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	return h;
}

void sched_hazards_free(struct sched_hazards *h)
{
	if (!h)
		return;
	for (int r = 0; r < h->nranks; r++) {
		g_free(h->ranks[r].cells);
		g_free(h->ranks[r].runs);
	}
	g_free(h->ranks);
	g_array_unref(h->pool);
	g_array_unref(h->deps);
	g_free(h);
}

/* The first cell of units off .. off + count - 1 (count >= 1) of buf, in a
 * rank's cells, which they take in a row. */
static uint32_t hz_unit(const struct sched_hazards *h, uint8_t buf, uint32_t off, uint32_t count)
{
	if (buf == SBUF_SCRATCH) {
		g_assert_cmpuint(off, <, h->scratch_units);
		g_assert_cmpuint(count, <=, h->scratch_units - off);
		return h->nunits + off;
	}
	g_assert_cmpuint(off, <, h->nunits);
	g_assert_cmpuint(count, <=, h->nunits - off);
	return off;
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

/* A list of readers of its own, the same as `readers`. */
static uint32_t hz_copy_readers(struct sched_hazards *h, uint32_t readers)
{
	if (readers & HZ_ONE) /* none, or the one in the cell */
		return readers;
	uint32_t head = HZ_NONE, tail = HZ_NONE;

	/* by index: an entry taken may move the pool */
	for (uint32_t e = readers; e != HZ_NONE; e = hz_reader(h, e)->next) {
		uint32_t n = hz_entry(h, hz_reader(h, e)->op, HZ_NONE);

		if (tail == HZ_NONE)
			head = n;
		else
			hz_reader(h, tail)->next = n;
		tail = n;
	}
	return head;
}

/* Appends c's writer (and, with readers, its readers) to deps, each one
 * that repeats the one taken just before only once. */
static void hz_take(struct sched_hazards *h, const struct hz_cell *c, bool readers,
		    uint32_t *last, uint32_t *last_reader)
{
	if (c->writer != HZ_NONE && c->writer != *last)
		g_array_append_val(h->deps, c->writer);
	*last = c->writer;
	if (!readers)
		return;
	for (uint32_t e = c->readers; e != HZ_NONE;) {
		bool one = e & HZ_ONE;
		uint32_t reader = one ? e & ~HZ_ONE : hz_reader(h, e)->op;

		if (reader != *last_reader) {
			*last_reader = reader;
			g_array_append_val(h->deps, reader);
		}
		e = one ? HZ_NONE : hz_reader(h, e)->next;
	}
}

/* The run of rk holding cell u. */
static uint32_t hz_run_of(const struct hz_rank *rk, uint32_t u)
{
	uint32_t lo = 0, hi = rk->nruns;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rk->runs[mid].start <= u)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Makes cell u (below the rank's cells' end) the start of a run, the run
 * that held it cut in two alike; returns that run. */
static uint32_t hz_split(struct sched_hazards *h, struct hz_rank *rk, uint32_t u)
{
	uint32_t i = hz_run_of(rk, u);

	if (rk->runs[i].start == u)
		return i;
	if (rk->nruns == rk->cap) {
		rk->cap *= 2;
		rk->runs = g_renew(struct hz_run, rk->runs, rk->cap);
	}
	memmove(&rk->runs[i + 2], &rk->runs[i + 1], (rk->nruns - i - 1) * sizeof(rk->runs[0]));
	rk->nruns++;
	rk->runs[i + 1] = (struct hz_run){
		.start = u,
		.c = { .writer = rk->runs[i].c.writer, .readers = hz_copy_readers(h, rk->runs[i].c.readers) },
	};
	return i + 1;
}

/* Cuts the runs so that one starts at a and one at b (or b is the end). */
static void hz_cut(struct sched_hazards *h, struct hz_rank *rk, uint32_t a, uint32_t b)
{
	hz_split(h, rk, a);
	if (b < h->nunits + h->scratch_units)
		hz_split(h, rk, b);
}

/* The runs of cells a .. b - 1, once cut there (hz_cut): [*i, *j). */
static void hz_span(const struct sched_hazards *h, const struct hz_rank *rk, uint32_t a, uint32_t b,
		    uint32_t *i, uint32_t *j)
{
	*i = hz_run_of(rk, a);
	*j = b < h->nunits + h->scratch_units ? hz_run_of(rk, b) : rk->nruns;
}

/* The rank's runs as a cell per unit, each cell with readers of its own. */
static void hz_flatten(struct sched_hazards *h, struct hz_rank *rk)
{
	uint32_t end = h->nunits + h->scratch_units;

	rk->cells = g_new(struct hz_cell, end);
	for (uint32_t k = 0; k < rk->nruns; k++) {
		uint32_t to = k + 1 < rk->nruns ? rk->runs[k + 1].start : end;

		for (uint32_t u = rk->runs[k].start; u < to; u++)
			rk->cells[u] = (struct hz_cell){
				.writer = rk->runs[k].c.writer,
				.readers = u == rk->runs[k].start ? rk->runs[k].c.readers
								  : hz_copy_readers(h, rk->runs[k].c.readers),
			};
	}
	g_clear_pointer(&rk->runs, g_free);
	rk->nruns = rk->cap = 0;
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
	uint32_t self = sched_added(s, r); /* sched_add returns it */
	GArray *deps = h->deps;
	struct hz_rank *rk = &h->ranks[r];
	/* A copy (or a copy-send) of input units to the same output units (or back) writes
	 * the values its cells already hold when the buffers alias, and other
	 * memory when they do not: it need not wait for earlier readers, and
	 * earlier readers stay readers. */
	bool selfcopy = (op->kind == SOP_COPY || op->kind == SOP_COPY_SEND) &&
			op->src_off == op->dst_off &&
			((op->src_buf == SBUF_IN && op->dst_buf == SBUF_OUT) ||
			 (op->src_buf == SBUF_OUT && op->dst_buf == SBUF_IN));
	bool rd = f & SOPF_SRC, wr = f & SOPF_DST;
	uint32_t a = rd ? hz_unit(h, op->src_buf, op->src_off, op->count) : 0;
	uint32_t b = wr ? hz_unit(h, op->dst_buf, op->dst_off, op->count) : 0;
	uint32_t n = op->count;

	g_assert_cmpuint(self, <, HZ_ONE);
	g_array_set_size(deps, 0);
	if (nextra)
		g_array_append_vals(deps, extra, nextra);
	if (!rk->cells && !rk->runs) {
		/* no writer, no readers */
		rk->cap = 4;
		rk->runs = g_new(struct hz_run, rk->cap);
		rk->runs[0] = (struct hz_run){ .start = 0, .c = { HZ_NONE, HZ_NONE } };
		rk->nruns = 1;
		if (h->flat)
			hz_flatten(h, rk);
	}
	/* Collect, then update, so an op that reads and writes one cell (D = D +
	 * L) does not depend on itself; reads before writes. */
	uint32_t last = HZ_NONE, last_reader = HZ_NONE;

	if (rk->cells) {
		for (uint32_t i = 0; rd && i < n; i++)
			hz_take(h, &rk->cells[a + i], false, &last, &last_reader);
		for (uint32_t i = 0; wr && i < n; i++)
			hz_take(h, &rk->cells[b + i], !selfcopy, &last, &last_reader);
		for (uint32_t i = 0; rd && i < n; i++)
			hz_read(h, &rk->cells[a + i], self);
		for (uint32_t i = 0; wr && i < n; i++) {
			rk->cells[b + i].writer = self;
			if (!selfcopy)
				hz_clear_readers(h, &rk->cells[b + i]);
		}
	} else {
		/* every cut first: the runs stay where they are until the
		 * written ones become one, last */
		uint32_t ri = 0, rj = 0, wi = 0, wj = 0;

		if (rd)
			hz_cut(h, rk, a, a + n);
		if (wr)
			hz_cut(h, rk, b, b + n);
		if (rd)
			hz_span(h, rk, a, a + n, &ri, &rj);
		if (wr)
			hz_span(h, rk, b, b + n, &wi, &wj);
		for (uint32_t k = ri; k < rj; k++)
			hz_take(h, &rk->runs[k].c, false, &last, &last_reader);
		for (uint32_t k = wi; k < wj; k++)
			hz_take(h, &rk->runs[k].c, !selfcopy, &last, &last_reader);
		for (uint32_t k = ri; k < rj; k++)
			hz_read(h, &rk->runs[k].c, self);
		for (uint32_t k = wi; k < wj; k++) {
			rk->runs[k].c.writer = self;
			if (!selfcopy)
				hz_clear_readers(h, &rk->runs[k].c);
		}
		if (wr && !selfcopy && wj - wi > 1) {
			/* alike now: one run */
			memmove(&rk->runs[wi + 1], &rk->runs[wj], (rk->nruns - wj) * sizeof(rk->runs[0]));
			rk->nruns -= wj - wi - 1;
		}
		if (rk->nruns > HZ_MAX_RUNS)
			hz_flatten(h, rk);
	}
	/* sorted, unique */
	if (deps->len > 1)
		g_array_sort(deps, cmp_u32);
	guint m = 0;

	for (guint k = 0; k < deps->len; k++) {
		uint32_t d = g_array_index(deps, uint32_t, k);

		if (d == self || (m && g_array_index(deps, uint32_t, m - 1) == d))
			continue;
		g_array_index(deps, uint32_t, m++) = d;
	}
	return sched_add(s, r, op, (const uint32_t *)deps->data, m);
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
