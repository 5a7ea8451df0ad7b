/* The receive buffers as an event-driven fluid (fluid.h gives the model).
 *
 * State: each flow's bytes still in its node's memory (its line's head
 * sends), each part's runs, each buffer's total, each flow's bytes
 * delivered. A solve finds every input's grant and every part's inflow
 * from that state, starting from those of the event before: the outputs
 * whose inputs changed (a run drained, a part emptied or began to hold, a
 * buffer filled or drained, a line's message sent) share themselves again
 * (regrant: fill, then send_on), and an output whose grants change what a
 * part that holds nothing receives, or what a full buffer drains, puts the
 * output of that part, or the one above that buffer, in line to share
 * itself again, until none changes. Outputs are the channels, then each
 * node's ejection (index nchans + node).
 *
 * The state is lazy: each line, part and flow holds its contents as of its
 * own t_ps and moves them on at its constant rates (line_sync, part_sync,
 * flow_sync) only where it is read or its rates are about to change; a
 * buffer's bytes are those of its parts. Each entity whose rates changed
 * in a solve finds its next event again (settle), in a binary heap of
 * (time, entity); an event takes from the heap every entity due within
 * tol_ps of the first and moves only those on (happen). A buffer is
 * full from the event that fills it until it has drained a grain below
 * its room (fluid_set_grain). The cost of an event is that of the
 * entities it changes, not of the fabric's size. */
#include "sim/link/fluid.h"

#include "sim/link/link.h"
#include "sim/link/topo.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* What counts as nothing, in bytes, and as equal, in bytes per ps. */
#define FLUID_EMPTY 1e-2
/* Bytes a flow may lack at its delivery: those it loses as nothing on its
 * way (FLUID_EMPTY a run at most, dropped or counted in the run behind). */
#define FLUID_DONE 1.0
#define FLUID_SAME 1e-13
/* A buffer within this fraction of its size is full. */
#define FLUID_FULL 1e-9
#define FLUID_NOWHERE G_MAXUINT
/* Solves a settle may run at most, each after the one before changed what
 * a buffer caps; regrants a solve may run at most, per output. Full
 * buffers in a cycle (through the virtual channels' shares of a channel)
 * cap each other by what the next drains, which the solve then finds only
 * lap by lap; past these bounds it stops, unsettled (fluid_get_stats). */
enum { FLUID_SETTLE = 16, FLUID_WORK = 1000 };

enum fluid_kind { FLUID_LINE, FLUID_PART, FLUID_BUF, FLUID_FLOW };
#define FLUID_ENT(kind, i) (((uint32_t)(kind) << 30) | (uint32_t)(i))

/* What the heap of next events keeps of each entity (a line, a part, a
 * buffer, a flow). */
struct fluid_ent {
	guint hpos;            /* in the heap, FLUID_NOWHERE: not */
	bool touched;          /* in fluid.touched */
};

/* A flow's share of a stream: its bytes arrived by hop `hop` of its route
 * (the channel whose buffer holds them), as a fraction of the stream or a
 * rate. */
struct fluid_share {
	uint32_t flow;
	uint32_t hop;
	double x;
};

/* Bytes that arrived together, in the proportions of shares[0..n). */
struct fluid_run {
	double bytes;
	uint32_t n;
	struct fluid_share *shares; /* owned */
};

/* The contents of buffer (cin, vin) that wait for output `out` and its
 * virtual channel vnext. */
struct fluid_part {
	int32_t cin, out;
	uint8_t vin, vnext;
	GArray *runs;          /* owned, of struct fluid_run: runs[head..] in order */
	guint head;
	double content;        /* bytes of its runs */
	double grant;
	double inflow;         /* the sum of in[] */
	GArray *in;            /* owned, of struct fluid_share (x: bytes per ps): what
				* arrives, by flow and hop */
	GArray *sent;          /* owned, of struct fluid_sent: what its grant sends on */
	double t_ps;           /* when runs and content were last moved on */
	struct fluid_ent ent;
	bool got;              /* in fluid.got */
};

/* What an input's grant sends to a part below (part), or delivers
 * (part UINT32_MAX): flow's bytes that arrived by hop `hop` there, at x
 * bytes per ps. */
struct fluid_sent {
	uint32_t part, flow, hop;
	double x;
};

struct fluid_flow {
	int dst;
	int hops;
	int *chans;            /* owned, hops */
	uint8_t *vcs;          /* owned, hops */
	double wire, rem;      /* its bytes; those still in memory */
	double delivered, drate;
	double done_ps;        /* < 0 while not delivered */
	int32_t next;          /* its line's next, -1 */
	double t_ps;           /* when delivered was last moved on */
	struct fluid_ent ent;
	bool listed;           /* in fluid.changed */
};

struct fluid_line {
	int32_t head, tail;    /* flows, -1: empty */
	double grant;
	GArray *sent;          /* owned, of struct fluid_sent */
	double t_ps;           /* when its head's rem was last moved on */
	struct fluid_ent ent;
};

/* An entity's next event: ent is its kind (enum fluid_kind) times 2^30
 * plus its index. */
struct fluid_due {
	double t_ps;
	uint32_t ent;
};

struct fluid {
	int nnodes, nchans, nvc;
	struct fluid_chan *chans;  /* owned */
	struct topo *topo;         /* owned, fluid_new_fabric's: its routes */
	struct link_params link;   /* fluid_new_fabric's */
	double *room;              /* nchans: a buffer's bytes less its credits' loop
				    * (fluid_chan) */
	double *eject;             /* nnodes: each node's ejection, bytes per ps */
	double grain;              /* fluid_set_grain */
	GArray *changed;           /* of uint32_t: flows whose delivery rate or
				    * line changed since fluid_take_changed */
	GArray *flows;             /* of struct fluid_flow */
	struct fluid_line *lines;  /* owned, nchans */
	GPtrArray *parts;          /* of struct fluid_part *, owned; NULL: freed */
	GHashTable *part_of;       /* key (fluid_key) -> index + 1 */
	GArray **outs;             /* owned, nchans + nnodes: the parts (uint32_t)
				    * that wait for each output */
	double *buf;               /* nchans x nvc: each buffer's bytes, as of
				    * its parts' t_ps */
	bool *full;                /* nchans x nvc: caps its feeders */
	GArray **bparts;           /* owned, nchans x nvc: its parts (uint32_t) */
	struct fluid_ent *bent;    /* nchans x nvc */
	GArray *heap;              /* of struct fluid_due: a binary min-heap on
				    * (t_ps, ent), an entry per entity with an
				    * event ahead */
	GArray *got;               /* of uint32_t: the parts a send_on changed */
	GArray *touched;           /* of uint32_t (ent): entities whose rates may
				    * have changed in this solve */
	GArray *dirty;             /* of int32_t: outputs whose grants are to be
				    * found again, in order */
	guint dirty_head;
	bool *queued;              /* nchans + nnodes: in dirty */
	double now_ps;
	double tol_ps;             /* events due within it of each other are one:
				    * the time the fastest channel takes to move
				    * FLUID_EMPTY, what moves in it counting as
				    * nothing */
	uint32_t undone;
	struct fluid_stats stats;
};

static gpointer fluid_key(int32_t cin, uint8_t vin, int32_t out, uint8_t vnext)
{
	/* chans and outputs below 2^27, virtual channels below 4: 62 bits */
	guint64 k = ((guint64)(uint32_t)cin << 31) | ((guint64)(uint32_t)out << 4) |
		    ((guint64)vin << 2) | vnext;

	return (gpointer)(guintptr)(k + 1);
}

struct fluid *fluid_new(int nnodes, int nchans, const struct fluid_chan *chans, int nvc)
{
	struct fluid *f = g_new0(struct fluid, 1);

	g_assert(nvc >= 1 && nvc <= 4);
	g_assert(nnodes > 0 && nchans > 0 && nchans + nnodes < (1 << 27));
	f->nnodes = nnodes;
	f->nchans = nchans;
	f->nvc = nvc;
	f->chans = g_memdup2(chans, (gsize)nchans * sizeof(*chans));
	f->room = g_new(double, nchans);
	for (int c = 0; c < nchans; c++) {
		f->room[c] = chans[c].buf_bytes - chans[c].bytes_per_ps * chans[c].loop_ps;
		g_assert(f->room[c] > 0);
	}
	/* unlimited ejection: what all its channels bring, so that what a
	 * part there holds drains in finite time */
	f->eject = g_new0(double, nnodes);
	for (int c = 0; c < nchans; c++)
		f->eject[chans[c].to] += chans[c].bytes_per_ps;
	f->changed = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	f->grain = 1;
	f->tol_ps = INFINITY;
	for (int c = 0; c < nchans; c++)
		f->tol_ps = MIN(f->tol_ps, FLUID_EMPTY / chans[c].bytes_per_ps);
	f->flows = g_array_new(FALSE, FALSE, sizeof(struct fluid_flow));
	f->lines = g_new(struct fluid_line, nchans);
	for (int c = 0; c < nchans; c++)
		f->lines[c] = (struct fluid_line){
			.head = -1, .tail = -1,
			.sent = g_array_new(FALSE, FALSE, sizeof(struct fluid_sent)),
			.ent.hpos = FLUID_NOWHERE,
		};
	f->parts = g_ptr_array_new();
	f->part_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	f->outs = g_new(GArray *, nchans + nnodes);
	for (int o = 0; o < nchans + nnodes; o++)
		f->outs[o] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	f->buf = g_new0(double, (gsize)nchans * nvc);
	f->full = g_new0(bool, (gsize)nchans * nvc);
	f->bent = g_new0(struct fluid_ent, (gsize)nchans * nvc);
	f->bparts = g_new(GArray *, (gsize)nchans * nvc);
	for (gsize q = 0; q < (gsize)nchans * nvc; q++) {
		f->bent[q].hpos = FLUID_NOWHERE;
		f->bparts[q] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	}
	f->heap = g_array_new(FALSE, FALSE, sizeof(struct fluid_due));
	f->touched = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	f->got = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	f->dirty = g_array_new(FALSE, FALSE, sizeof(int32_t));
	f->queued = g_new0(bool, nchans + nnodes);
	return f;
}

static void run_clear(struct fluid_run *r)
{
	g_free(r->shares);
	r->shares = NULL;
}

static void part_free(struct fluid_part *p)
{
	if (!p)
		return;
	for (guint i = p->head; i < p->runs->len; i++)
		run_clear(&g_array_index(p->runs, struct fluid_run, i));
	g_array_unref(p->runs);
	g_array_unref(p->in);
	g_array_unref(p->sent);
	g_free(p);
}

void fluid_free(struct fluid *f)
{
	if (!f)
		return;
	for (guint i = 0; i < f->flows->len; i++) {
		struct fluid_flow *fl = &g_array_index(f->flows, struct fluid_flow, i);

		g_free(fl->chans);
		g_free(fl->vcs);
	}
	g_array_unref(f->flows);
	for (guint i = 0; i < f->parts->len; i++)
		part_free(f->parts->pdata[i]);
	g_ptr_array_unref(f->parts);
	g_hash_table_unref(f->part_of);
	for (int o = 0; o < f->nchans + f->nnodes; o++)
		g_array_unref(f->outs[o]);
	g_free(f->outs);
	for (int c = 0; c < f->nchans; c++)
		g_array_unref(f->lines[c].sent);
	g_free(f->lines);
	g_array_unref(f->dirty);
	g_free(f->queued);
	g_free(f->buf);
	g_free(f->full);
	g_free(f->bent);
	for (gsize q = 0; q < (gsize)f->nchans * f->nvc; q++)
		g_array_unref(f->bparts[q]);
	g_free(f->bparts);
	g_array_unref(f->heap);
	g_array_unref(f->touched);
	g_array_unref(f->got);
	g_free(f->chans);
	g_free(f->room);
	g_free(f->eject);
	g_array_unref(f->changed);
	if (f->topo) {
		topo_release(f->topo);
		g_free(f->topo);
	}
	g_free(f);
}

/* Output o's grants are to be found again. */
static void mark(struct fluid *f, int32_t o)
{
	if (!f->queued[o]) {
		f->queued[o] = true;
		g_array_append_val(f->dirty, o);
	}
}

uint32_t fluid_add(struct fluid *f, int dst, double wire_bytes, int hops, const int *chans,
		   const uint8_t *vcs)
{
	uint32_t id = f->flows->len;
	struct fluid_flow fl = {
		.dst = dst, .hops = hops, .wire = wire_bytes, .rem = wire_bytes, .done_ps = -1,
		.next = -1, .t_ps = f->now_ps, .ent.hpos = FLUID_NOWHERE,
	};
	struct fluid_line *line;

	g_assert(hops > 0 && wire_bytes > 0);
	g_assert(f->chans[chans[hops - 1]].to == dst);
	for (int k = 1; k < hops; k++)
		g_assert(f->chans[chans[k]].from == f->chans[chans[k - 1]].to);
	fl.chans = g_memdup2(chans, (gsize)hops * sizeof(int));
	fl.vcs = g_memdup2(vcs, (gsize)hops);
	g_array_append_val(f->flows, fl);
	line = &f->lines[chans[0]];
	if (line->tail >= 0)
		g_array_index(f->flows, struct fluid_flow, line->tail).next = (int32_t)id;
	else
		line->head = (int32_t)id;
	line->tail = (int32_t)id;
	if (line->head == (int32_t)id)
		line->t_ps = f->now_ps;
	f->undone++;
	mark(f, chans[0]);
	return id;
}

static inline struct fluid_flow *flow_at(const struct fluid *f, uint32_t id)
{
	return &g_array_index(f->flows, struct fluid_flow, id);
}

/* Flow id's delivery rate, delivery or line may have changed: it is listed
 * for fluid_take_changed. */
static void list_changed(struct fluid *f, uint32_t id)
{
	struct fluid_flow *fl = flow_at(f, id);

	if (!fl->listed) {
		fl->listed = true;
		g_array_append_val(f->changed, id);
	}
}

/* The part for key, made where there is none. */
static uint32_t part_get(struct fluid *f, int32_t cin, uint8_t vin, int32_t out, uint8_t vnext)
{
	gpointer key = fluid_key(cin, vin, out, vnext);
	guint k = GPOINTER_TO_UINT(g_hash_table_lookup(f->part_of, key));
	struct fluid_part *p;

	if (k)
		return k - 1;
	p = g_new0(struct fluid_part, 1);
	*p = (struct fluid_part){ .cin = cin, .out = out, .vin = vin, .vnext = vnext,
				  .t_ps = f->now_ps, .ent.hpos = FLUID_NOWHERE };
	p->runs = g_array_new(FALSE, FALSE, sizeof(struct fluid_run));
	p->in = g_array_new(FALSE, FALSE, sizeof(struct fluid_share));
	p->sent = g_array_new(FALSE, FALSE, sizeof(struct fluid_sent));
	k = f->parts->len;
	g_ptr_array_add(f->parts, p);
	g_hash_table_insert(f->part_of, key, GUINT_TO_POINTER(k + 1));
	g_array_append_val(f->outs[out], k);
	g_array_append_val(f->bparts[(gsize)cin * f->nvc + vin], k);
	mark(f, out);
	return k;
}

/* Share lists are sorted by (flow, hop). The index of flow/hop's entry in
 * a, or of where it would go; *found says which. */
static guint shares_find(const GArray *a, uint32_t flow, uint32_t hop, bool *found)
{
	uint64_t key = ((uint64_t)flow << 32) | hop;
	guint lo = 0, hi = a->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		const struct fluid_share *s = &g_array_index(a, struct fluid_share, mid);
		uint64_t k = ((uint64_t)s->flow << 32) | s->hop;

		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < a->len && g_array_index(a, struct fluid_share, lo).flow == flow &&
		 g_array_index(a, struct fluid_share, lo).hop == hop;
	return lo;
}

/* Adds x to flow/hop's entry of shares (made where it has none). */
static void shares_add(GArray *a, uint32_t flow, uint32_t hop, double x)
{
	bool found;
	guint i = shares_find(a, flow, hop, &found);
	struct fluid_share s = { flow, hop, x };

	if (found)
		g_array_index(a, struct fluid_share, i).x += x;
	else
		g_array_insert_val(a, i, s);
}

/* What the heap keeps of entity ent. */
static struct fluid_ent *ent_of(struct fluid *f, uint32_t ent)
{
	uint32_t i = ent & ((1u << 30) - 1);

	switch (ent >> 30) {
	case FLUID_LINE:
		return &f->lines[i].ent;
	case FLUID_PART:
		return &((struct fluid_part *)f->parts->pdata[i])->ent;
	case FLUID_BUF:
		return &f->bent[i];
	case FLUID_FLOW:
		return &flow_at(f, i)->ent;
	}
	g_assert_not_reached();
}

/* The heap of entities' next events. */
static guint *due_pos(struct fluid *f, uint32_t ent)
{
	return &ent_of(f, ent)->hpos;
}

static inline bool due_before(const struct fluid_due *a, const struct fluid_due *b)
{
	return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->ent < b->ent);
}

/* Puts d at slot i, moved up or down to where it belongs. */
static void heap_place(struct fluid *f, guint i, struct fluid_due d)
{
	struct fluid_due *h = (struct fluid_due *)(void *)f->heap->data;
	guint n = f->heap->len;

	while (i > 0 && due_before(&d, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		*due_pos(f, h[i].ent) = i;
		i = (i - 1) / 2;
	}
	for (;;) {
		guint c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && due_before(&h[c + 1], &h[c]))
			c++;
		if (!due_before(&h[c], &d))
			break;
		h[i] = h[c];
		*due_pos(f, h[i].ent) = i;
		i = c;
	}
	h[i] = d;
	*due_pos(f, d.ent) = i;
}

/* Entity ent's next event is at t_ps (INFINITY: none). */
static void due_set(struct fluid *f, uint32_t ent, double t_ps)
{
	guint *pos = due_pos(f, ent);
	struct fluid_due d = { t_ps, ent };

	if (*pos == FLUID_NOWHERE) {
		if (!isfinite(t_ps))
			return;
		g_array_set_size(f->heap, f->heap->len + 1);
		heap_place(f, f->heap->len - 1, d);
	} else if (isfinite(t_ps)) {
		heap_place(f, *pos, d);
	} else {
		guint i = *pos;
		struct fluid_due last = g_array_index(f->heap, struct fluid_due, f->heap->len - 1);

		*pos = FLUID_NOWHERE;
		g_array_set_size(f->heap, f->heap->len - 1);
		if (i < f->heap->len)
			heap_place(f, i, last);
	}
}

/* Entity ent's rates may have changed: its next event is found again once
 * the solve settles. */
static bool *touched_of(struct fluid *f, uint32_t ent)
{
	return &ent_of(f, ent)->touched;
}

static void touch_clear(struct fluid *f, uint32_t ent)
{
	*touched_of(f, ent) = false;
}

static void touch(struct fluid *f, uint32_t ent)
{
	bool *t = touched_of(f, ent);

	if (!*t) {
		*t = true;
		g_array_append_val(f->touched, ent);
	}
}

/* Moves line c's head on to now. */
static void line_sync(struct fluid *f, int32_t c)
{
	struct fluid_line *line = &f->lines[c];

	if (line->head >= 0)
		flow_at(f, (uint32_t)line->head)->rem -= line->grant * (f->now_ps - line->t_ps);
	line->t_ps = f->now_ps;
}

/* Line c's head has sent its last byte from memory: the line goes on to
 * the next, and its channel shares itself again. */
static void line_pop(struct fluid *f, int32_t c)
{
	struct fluid_line *line = &f->lines[c];
	struct fluid_flow *fl = flow_at(f, (uint32_t)line->head);

	fl->rem = 0;
	line->head = fl->next;
	if (line->head < 0)
		line->tail = -1;
	mark(f, c);
}

/* Moves flow id's delivery on to now; delivered where it lacks no more than
 * FLUID_DONE. */
static void flow_sync(struct fluid *f, uint32_t id)
{
	struct fluid_flow *fl = flow_at(f, id);

	if (fl->done_ps < 0) {
		fl->delivered += fl->drate * (f->now_ps - fl->t_ps);
		if (fl->delivered >= fl->wire - FLUID_DONE) {
			fl->done_ps = f->now_ps;
			f->undone--;
			list_changed(f, id);
		}
	}
	fl->t_ps = f->now_ps;
}

/* Whether a (fractions) holds the proportions of b (rates summing to
 * btotal); both sorted. */
static bool shares_same(const struct fluid_share *a, uint32_t na, const GArray *b, double btotal)
{
	if (na != b->len)
		return false;
	for (uint32_t i = 0; i < na; i++) {
		const struct fluid_share *y = &g_array_index(b, struct fluid_share, i);

		if (a[i].flow != y->flow || a[i].hop != y->hop || fabs(a[i].x - y->x / btotal) > 1e-9)
			return false;
	}
	return true;
}

/* A new run of `bytes` in the proportions of what arrives at p, or more of
 * its last run where that has them. */
static void part_append(struct fluid_part *p, double bytes, double grain)
{
	if (p->runs->len > p->head) {
		struct fluid_run *last = &g_array_index(p->runs, struct fluid_run, p->runs->len - 1);

		if (shares_same(last->shares, last->n, p->in, p->inflow)) {
			last->bytes += bytes;
			return;
		}
		/* a tail of less than a grain: what arrives joins it, mixed */
		if (last->bytes < grain && p->runs->len - 1 > p->head) {
			GArray *m = g_array_new(FALSE, FALSE, sizeof(struct fluid_share));
			double tot = last->bytes + bytes;

			for (uint32_t i = 0; i < last->n; i++)
				shares_add(m, last->shares[i].flow, last->shares[i].hop,
					   last->shares[i].x * last->bytes / tot);
			for (guint i = 0; i < p->in->len; i++) {
				const struct fluid_share *x = &g_array_index(p->in, struct fluid_share, i);

				shares_add(m, x->flow, x->hop, x->x / p->inflow * bytes / tot);
			}
			g_free(last->shares);
			last->n = m->len;
			last->shares = (struct fluid_share *)(void *)g_array_free(m, FALSE);
			last->bytes = tot;
			return;
		}
	}
	struct fluid_run r = { .bytes = bytes, .n = p->in->len };

	r.shares = g_new(struct fluid_share, r.n);
	for (uint32_t i = 0; i < r.n; i++) {
		r.shares[i] = g_array_index(p->in, struct fluid_share, i);
		r.shares[i].x /= p->inflow;
	}
	g_array_append_val(p->runs, r);
}

/* Moves part k on to now (its head drains at its grant, what arrives
 * joins its tail), then lets go of the head runs of FLUID_EMPTY bytes or
 * less: their bytes join the run behind (so that a full buffer keeps its
 * bytes, and full buffers in a chain pass a run's end on in step), or
 * are dropped where none is behind. Its output is to share itself again
 * where its head or whether it holds changed. */
static void part_sync(struct fluid *f, uint32_t k)
{
	struct fluid_part *p = f->parts->pdata[k];
	gsize q = (gsize)p->cin * f->nvc + p->vin;
	double dt = f->now_ps - p->t_ps;
	double out = p->grant * dt, in = p->inflow * dt;
	bool held = p->content > FLUID_EMPTY;
	guint head = p->head;

	/* moved on already: runs change only as time passes */
	if (!(dt > 0))
		return;
	p->t_ps = f->now_ps;
	if (held) {
		struct fluid_run *h = &g_array_index(p->runs, struct fluid_run, p->head);

		h->bytes -= out;
		p->content -= out;
		f->buf[q] -= out;
		if (in > 0) {
			part_append(p, in, f->grain);
			p->content += in;
			f->buf[q] += in;
		}
	} else if (in > out * (1 + 1e-12)) {
		part_append(p, in - out, f->grain);
		p->content += in - out;
		f->buf[q] += in - out;
	}
	while (p->head < p->runs->len &&
	       g_array_index(p->runs, struct fluid_run, p->head).bytes <= FLUID_EMPTY) {
		struct fluid_run *h = &g_array_index(p->runs, struct fluid_run, p->head);

		if (p->head + 1 < p->runs->len) {
			h[1].bytes += h->bytes;
		} else {
			p->content -= h->bytes;
			f->buf[q] -= h->bytes;
		}
		run_clear(h);
		p->head++;
	}
	if (f->buf[q] < FLUID_EMPTY)
		f->buf[q] = 0;
	if (p->head != head || held != (p->content > FLUID_EMPTY))
		mark(f, p->out);
	if (p->head == p->runs->len) {
		g_array_set_size(p->runs, 0);
		p->head = 0;
		p->content = 0;
	}
}
/* Round robin at one output: grants g[0..k) among demands d with each
 * input's group's cap (cap[grp], INFINITY: none) and the output's
 * capacity; equal shares, an input that asks less leaving the rest to the
 * others. */
static void fill(double capacity, const double *d, const uint8_t *grp, const double *cap,
		 double *g, uint32_t k)
{
	double left[4], rest = capacity;
	bool *on = g_newa(bool, k);
	uint32_t non = 0;

	memcpy(left, cap, sizeof(left));
	for (uint32_t i = 0; i < k; i++) {
		g[i] = 0;
		on[i] = d[i] > 0;
		non += on[i];
	}
	while (non && rest > 0) {
		uint32_t ingrp[4] = { 0 };
		double inc;

		for (uint32_t i = 0; i < k; i++)
			if (on[i] && !(left[grp[i]] > 0)) {
				on[i] = false;
				non--;
			}
		if (!non)
			break;
		inc = rest / non;
		for (uint32_t i = 0; i < k; i++)
			if (on[i]) {
				inc = MIN(inc, d[i] - g[i]);
				ingrp[grp[i]]++;
			}
		for (int v = 0; v < 4; v++)
			if (ingrp[v] && isfinite(left[v]))
				inc = MIN(inc, left[v] / ingrp[v]);
		inc = MAX(inc, 0);
		for (uint32_t i = 0; i < k; i++)
			if (on[i]) {
				g[i] += inc;
				left[grp[i]] -= inc;
			}
		rest -= inc * non;
		for (uint32_t i = 0; i < k; i++)
			if (on[i] && (g[i] >= d[i] * (1 - 1e-12) || !(left[grp[i]] > 1e-18))) {
				on[i] = false;
				non--;
			}
		if (!(inc > 0))
			break;
	}
}

/* The stream a part sends: its head run, or what arrives where it holds
 * nothing (shares as rates then). */
static void part_stream(const struct fluid_part *p, const struct fluid_share **sh, uint32_t *n,
			double *total)
{
	if (p->content > FLUID_EMPTY) {
		const struct fluid_run *r = &g_array_index(p->runs, struct fluid_run, p->head);

		*sh = r->shares;
		*n = r->n;
		*total = 1;
	} else {
		*sh = (const struct fluid_share *)(const void *)p->in->data;
		*n = p->in->len;
		*total = p->inflow;
	}
}

/* What the parts of buffer q receive (in) or are granted, summed afresh
 * so that a buffer whose feeders and output all stop reads exactly 0. */
static double buf_rate(const struct fluid *f, gsize q, bool in)
{
	const GArray *ps = f->bparts[q];
	double sum = 0;

	for (guint i = 0; i < ps->len; i++) {
		const struct fluid_part *p = f->parts->pdata[g_array_index(ps, uint32_t, i)];

		sum += in ? p->inflow : p->grant;
	}
	return sum;
}

/* Drops the entries of a (rates) that are nothing. */
static void shares_prune(GArray *a)
{
	guint n = 0;

	for (guint i = 0; i < a->len; i++) {
		const struct fluid_share *sh = &g_array_index(a, struct fluid_share, i);

		if (fabs(sh->x) >= FLUID_SAME)
			g_array_index(a, struct fluid_share, n++) = *sh;
	}
	g_array_set_size(a, n);
}

/* Adds x to what part k receives of flow by hop; part_received then sums
 * it up. */
static void part_receive(struct fluid *f, uint32_t k, uint32_t flow, uint32_t hop, double x)
{
	struct fluid_part *p = f->parts->pdata[k];

	part_sync(f, k);
	shares_add(p->in, flow, hop, x);
}

/* What part k receives has changed: its entries of nothing go, its inflow
 * is summed afresh; a part that holds nothing passes it on, so its
 * output's grants are to be found again. */
static void part_received(struct fluid *f, uint32_t k)
{
	struct fluid_part *p = f->parts->pdata[k];
	gsize q = (gsize)p->cin * f->nvc + p->vin;
	double sum = 0;

	shares_prune(p->in);
	for (guint i = 0; i < p->in->len; i++)
		sum += g_array_index(p->in, struct fluid_share, i).x;
	p->inflow = MAX(sum, 0);
	touch(f, FLUID_ENT(FLUID_PART, k));
	touch(f, FLUID_ENT(FLUID_BUF, q));
	if (p->content <= FLUID_EMPTY)
		mark(f, p->out);
}

/* Adds sign x what x sends: to its flow's delivery rate, or to what its
 * part receives (the part listed in fluid.got for part_received). */
static void sent_apply(struct fluid *f, const struct fluid_sent *x, double sign)
{
	if (x->part == UINT32_MAX) {
		flow_sync(f, x->flow);
		flow_at(f, x->flow)->drate += sign * x->x;
		touch(f, FLUID_ENT(FLUID_FLOW, x->flow));
		return;
	}
	struct fluid_part *p = f->parts->pdata[x->part];

	part_receive(f, x->part, x->flow, x->hop, sign * x->x);
	if (!p->got) {
		p->got = true;
		g_array_append_val(f->got, x->part);
	}
}

/* What grant g of a stream sends on from output o (to the parts below, or
 * delivers at an ejection), in place of what `sent` held. */
static void send_on(struct fluid *f, int32_t o, double g, const struct fluid_share *sh, uint32_t n,
		    double total, bool from_memory, GArray *sent)
{
	GArray *now = g_array_sized_new(FALSE, FALSE, sizeof(struct fluid_sent), n);
	/* the last part found, for the next share to the same */
	int32_t cout = -1;
	uint8_t cvin = 0, cvnext = 0;
	uint32_t cpart = 0;

	if (g > 0 && total > 0)
		for (uint32_t i = 0; i < n; i++) {
			struct fluid_flow *fl = flow_at(f, sh[i].flow);
			uint32_t h = from_memory ? 0 : sh[i].hop + 1;
			struct fluid_sent x = { UINT32_MAX, sh[i].flow, h, g * sh[i].x / total };

			if (o < f->nchans) {
				bool last = (int)h + 1 == fl->hops;
				int32_t next = last ? f->nchans + fl->dst : fl->chans[h + 1];
				uint8_t vnext = last ? 0 : fl->vcs[h + 1];

				g_assert((int)h < fl->hops && fl->chans[h] == o);
				if (next != cout || fl->vcs[h] != cvin || vnext != cvnext) {
					cpart = part_get(f, o, fl->vcs[h], next, vnext);
					cout = next;
					cvin = fl->vcs[h];
					cvnext = vnext;
				}
				x.part = cpart;
			}
			g_array_append_val(now, x);
		}
	/* unchanged: nothing to do */
	if (now->len == sent->len) {
		guint i = 0;

		for (; i < now->len; i++) {
			const struct fluid_sent *a = &g_array_index(now, struct fluid_sent, i);
			const struct fluid_sent *b = &g_array_index(sent, struct fluid_sent, i);

			if (a->part != b->part || a->flow != b->flow || a->hop != b->hop ||
			    fabs(a->x - b->x) >= FLUID_SAME)
				break;
		}
		if (i == now->len) {
			g_array_unref(now);
			return;
		}
	}
	GArray *got = f->got;

	for (guint i = 0; i < sent->len; i++)
		sent_apply(f, &g_array_index(sent, struct fluid_sent, i), -1);
	/* entries taken back to nothing go before the new ones come, so
	 * that these start from what is sent, not from a sum's rounding */
	for (guint i = 0; i < got->len; i++)
		shares_prune(((struct fluid_part *)f->parts->pdata[g_array_index(got, uint32_t, i)])->in);
	for (guint i = 0; i < now->len; i++)
		sent_apply(f, &g_array_index(now, struct fluid_sent, i), 1);
	for (guint i = 0; i < got->len; i++) {
		uint32_t k = g_array_index(got, uint32_t, i);

		((struct fluid_part *)f->parts->pdata[k])->got = false;
		part_received(f, k);
	}
	g_array_set_size(got, 0);
	g_array_set_size(sent, 0);
	g_array_append_vals(sent, now->data, now->len);
	g_array_unref(now);
}

/* Output o shares itself among its inputs again, and sends their grants on. */
static void regrant(struct fluid *f, int32_t o)
{
	GArray *ins = f->outs[o];
	struct fluid_line *line = o < f->nchans ? &f->lines[o] : NULL;
	bool mem = line && line->head >= 0;
	uint32_t k = ins->len + mem;
	double cap[4] = { INFINITY, INFINITY, INFINITY, INFINITY };
	double *d = g_newa(double, k + 1), *g = g_newa(double, k + 1);
	uint8_t *grp = g_newa(uint8_t, k + 1);

	for (uint32_t j = 0; j < ins->len; j++) {
		struct fluid_part *p = f->parts->pdata[g_array_index(ins, uint32_t, j)];

		part_sync(f, g_array_index(ins, uint32_t, j));
		d[j] = p->content > FLUID_EMPTY ? INFINITY : p->inflow;
		grp[j] = p->vnext;
	}
	if (mem) {
		d[k - 1] = INFINITY;
		grp[k - 1] = flow_at(f, (uint32_t)line->head)->vcs[0];
	}
	if (o < f->nchans)
		for (int v = 0; v < f->nvc; v++) {
			gsize q = (gsize)o * f->nvc + v;

			if (f->full[q])
				cap[v] = buf_rate(f, q, false);
		}
	fill(o < f->nchans ? f->chans[o].bytes_per_ps : f->eject[o - f->nchans], d, grp, cap, g, k);
	for (uint32_t j = 0; j < ins->len; j++) {
		uint32_t pk = g_array_index(ins, uint32_t, j);
		struct fluid_part *p = f->parts->pdata[pk];
		const struct fluid_share *sh;
		uint32_t n;
		double total;

		if (fabs(g[j] - p->grant) >= FLUID_SAME) {
			gsize q = (gsize)p->cin * f->nvc + p->vin;

			if (f->full[q])
				mark(f, p->cin);
			touch(f, FLUID_ENT(FLUID_PART, pk));
			touch(f, FLUID_ENT(FLUID_BUF, q));
		}
		p->grant = g[j];
		part_stream(p, &sh, &n, &total);
		send_on(f, o, p->grant, sh, n, total, false, p->sent);
		/* part_get may have moved the parts' array */
		ins = f->outs[o];
	}
	if (line) {
		struct fluid_share one = { mem ? (uint32_t)line->head : 0, 0, 1 };

		line_sync(f, o);
		if (line->grant != (mem ? g[k - 1] : 0))
			touch(f, FLUID_ENT(FLUID_LINE, o));
		line->grant = mem ? g[k - 1] : 0;
		send_on(f, o, line->grant, &one, mem, 1, true, line->sent);
	}
}

/* Finds the grants again where they may have changed, until nothing moves
 * (or a bound on the work, counted as unsettled). */
static void solve(struct fluid *f)
{
	uint64_t work = 0, most = 1000 + FLUID_WORK * (uint64_t)(f->nchans + f->nnodes);

	while (f->dirty_head < f->dirty->len) {
		int32_t o = g_array_index(f->dirty, int32_t, f->dirty_head++);

		f->queued[o] = false;
		regrant(f, o);
		f->stats.rounds++;
		if (++work > most) {
			f->stats.unsettled++;
			break;
		}
	}
	for (guint i = f->dirty_head; i < f->dirty->len; i++)
		f->queued[g_array_index(f->dirty, int32_t, i)] = false;
	g_array_set_size(f->dirty, 0);
	f->dirty_head = 0;
}

/* When line c next sends its head's last byte. */
static double line_due(struct fluid *f, int32_t c)
{
	const struct fluid_line *line = &f->lines[c];

	line_sync(f, c);
	if (line->head < 0 || !(line->grant > 0))
		return INFINITY;
	return f->now_ps + flow_at(f, (uint32_t)line->head)->rem / line->grant;
}

/* When part k's head run drains (or the part, where what arrives goes on
 * growing its one run). */
static double part_due(struct fluid *f, uint32_t k)
{
	const struct fluid_part *p = f->parts->pdata[k];
	const struct fluid_run *h;

	part_sync(f, k);
	if (!(p->content > FLUID_EMPTY && p->grant > 0))
		return INFINITY;
	h = &g_array_index(p->runs, struct fluid_run, p->head);
	if (p->runs->len - p->head == 1 && p->inflow > 0 &&
	    shares_same(h->shares, h->n, p->in, p->inflow))
		return p->grant > p->inflow ? f->now_ps + p->content / (p->grant - p->inflow) :
					      INFINITY;
	return f->now_ps + h->bytes / p->grant;
}

/* When buffer q fills, or, full, when it has drained a grain below its
 * room. A buffer within tol_ps of either is full, or full no more, now;
 * either way its channel shares itself again. While a full buffer's
 * feeders send less than it drains, its cap holds nothing back: it stays
 * full until then (a rule of "full no more as soon as they send less"
 * let it toggle every few hundredths of a picosecond where the cap made
 * them send less). */
static double buf_due(struct fluid *f, gsize q)
{
	const GArray *ps = f->bparts[q];
	double size = f->room[q / f->nvc], net, x;

	for (guint i = 0; i < ps->len; i++)
		part_sync(f, g_array_index(ps, uint32_t, i));
	net = buf_rate(f, q, true) - buf_rate(f, q, false);
	if (f->full[q]) {
		/* full until it has drained a grain: while its feeders send
		 * less than it drains, its cap holds nothing back */
		double low = MAX(size - f->grain, FLUID_EMPTY);

		x = net < -FLUID_SAME ? MAX(f->buf[q] - low, 0) / -net : INFINITY;
		if (f->buf[q] <= low || x <= f->tol_ps) {
			f->full[q] = false;
			mark(f, (int32_t)(q / f->nvc));
			return INFINITY;
		}
		return f->now_ps + x;
	}
	if (f->buf[q] >= size * (1 - FLUID_FULL)) {
		x = net >= -FLUID_SAME ? 0 : INFINITY;
	} else {
		if (!(net > FLUID_SAME))
			return INFINITY;
		x = (size - f->buf[q]) / net;
	}
	if (x <= f->tol_ps) {
		f->full[q] = true;
		mark(f, (int32_t)(q / f->nvc));
		return INFINITY;
	}
	return f->now_ps + x;
}

/* When flow id is delivered. */
static double flow_due(struct fluid *f, uint32_t id)
{
	const struct fluid_flow *fl = flow_at(f, id);

	flow_sync(f, id);
	if (fl->done_ps >= 0 || !(fl->drate > 0))
		return INFINITY;
	return f->now_ps + (fl->wire - fl->delivered) / fl->drate;
}

/* Solves, then finds the next event of each entity whose rates changed;
 * again where that changed what a buffer caps. */
static void settle(struct fluid *f)
{
	for (int round = 0;; round++) {
		solve(f);
		if (!f->touched->len)
			return;
		if (round == FLUID_SETTLE) {
			f->stats.unsettled++;
			for (guint i = 0; i < f->touched->len; i++)
				touch_clear(f, g_array_index(f->touched, uint32_t, i));
			g_array_set_size(f->touched, 0);
			return;
		}
		for (guint i = 0; i < f->touched->len; i++) {
			uint32_t ent = g_array_index(f->touched, uint32_t, i);
			uint32_t k = ent & ((1u << 30) - 1);
			double t;

			touch_clear(f, ent);
			switch (ent >> 30) {
			case FLUID_LINE:
				t = line_due(f, (int32_t)k);
				break;
			case FLUID_PART:
				t = part_due(f, k);
				break;
			case FLUID_BUF:
				t = buf_due(f, k);
				break;
			default:
				t = flow_due(f, k);
				list_changed(f, k);
				break;
			}
			due_set(f, ent, t);
		}
		g_array_set_size(f->touched, 0);
	}
}

/* Entity ent's event is due (within tol_ps): it moves on to now and
 * changes what it must. */
static void happen(struct fluid *f, uint32_t ent)
{
	uint32_t k = ent & ((1u << 30) - 1);

	switch (ent >> 30) {
	case FLUID_LINE: {
		struct fluid_line *line = &f->lines[k];
		struct fluid_flow *fl;

		line_sync(f, (int32_t)k);
		fl = line->head >= 0 ? flow_at(f, (uint32_t)line->head) : NULL;
		if (fl && fl->rem <= FLUID_EMPTY) {
			list_changed(f, (uint32_t)line->head);
			line_pop(f, (int32_t)k);
		}
		break;
	}
	case FLUID_PART: {
		const struct fluid_part *p = f->parts->pdata[k];

		part_sync(f, k);
		touch(f, FLUID_ENT(FLUID_BUF, (gsize)p->cin * f->nvc + p->vin));
		break;
	}
	case FLUID_BUF:
		break;
	case FLUID_FLOW:
		flow_sync(f, k);
		break;
	default:
		g_assert_not_reached();
	}
	touch(f, ent);
}

/* The events due within tol_ps of the first (at t_ps) happen. */
static void happen_at(struct fluid *f, double t_ps)
{
	if (t_ps > f->now_ps) {
		f->now_ps = t_ps;
		f->stats.events++;
	}
	while (f->heap->len && g_array_index(f->heap, struct fluid_due, 0).t_ps <= t_ps + f->tol_ps) {
		struct fluid_due d = g_array_index(f->heap, struct fluid_due, 0);

		/* one due again within the event moves on from its own time */
		f->now_ps = MAX(f->now_ps, d.t_ps);
		due_set(f, d.ent, INFINITY);
		happen(f, d.ent);
	}
}

bool fluid_run(struct fluid *f)
{
	for (;;) {
		if (!f->undone)
			return true;
		settle(f);
		if (!f->undone)
			return true;
		if (!f->heap->len)
			return false;
		happen_at(f, g_array_index(f->heap, struct fluid_due, 0).t_ps);
	}
}

double fluid_next_ps(struct fluid *f)
{
	settle(f);
	return f->heap->len ? g_array_index(f->heap, struct fluid_due, 0).t_ps : INFINITY;
}

void fluid_advance(struct fluid *f, double t_ps)
{
	for (double t; (t = fluid_next_ps(f)) <= t_ps;)
		happen_at(f, t);
	f->now_ps = MAX(f->now_ps, t_ps);
}

void fluid_set_grain(struct fluid *f, double bytes)
{
	g_assert(bytes >= 1);
	f->grain = bytes;
}

void fluid_set_eject(struct fluid *f, int node, double bytes_per_ps)
{
	g_assert(node >= 0 && node < f->nnodes && bytes_per_ps > 0);
	f->eject[node] = bytes_per_ps;
	mark(f, f->nchans + node);
}

void fluid_state(const struct fluid *f, uint32_t id, struct fluid_flow_state *out)
{
	const struct fluid_flow *fl = flow_at(f, id);
	const struct fluid_line *line = &f->lines[fl->chans[0]];
	double rem = fl->rem;

	if (line->head == (int32_t)id)
		rem -= line->grant * (f->now_ps - line->t_ps);
	out->done = fl->done_ps >= 0;
	out->delivered = out->done ? fl->wire
				   : MIN(fl->delivered + fl->drate * (f->now_ps - fl->t_ps), fl->wire);
	out->rate = out->done ? 0 : fl->drate;
	out->rem = MAX(rem, 0);
	out->in_line = fl->rem > 0;
}

void fluid_grow(struct fluid *f, uint32_t id, double wire_bytes)
{
	struct fluid_flow *fl = flow_at(f, id);
	int32_t c = fl->chans[0];
	struct fluid_line *line = &f->lines[c];

	g_assert(wire_bytes > 0);
	flow_sync(f, id);
	line_sync(f, c);
	if (fl->done_ps >= 0) {
		fl->done_ps = -1;
		f->undone++;
	}
	fl->wire += wire_bytes;
	if (!(fl->rem > 0)) {
		/* its line had gone on from it: it is its line's head again */
		g_assert(line->head < 0);
		fl->next = -1;
		line->head = line->tail = (int32_t)id;
		fl->rem = 0;
	}
	fl->rem += wire_bytes;
	mark(f, c);
	touch(f, FLUID_ENT(FLUID_LINE, c));
	touch(f, FLUID_ENT(FLUID_FLOW, id));
}

void fluid_finish(struct fluid *f, uint32_t id)
{
	struct fluid_flow *fl = flow_at(f, id);
	int32_t c = fl->chans[0];
	struct fluid_line *line = &f->lines[c];

	flow_sync(f, id);
	line_sync(f, c);
	if (fl->rem > 0) {
		/* still in its line: it leaves it (it can only be the head) */
		g_assert(line->head == (int32_t)id);
		line_pop(f, c);
		touch(f, FLUID_ENT(FLUID_LINE, c));
	}
	if (fl->done_ps < 0) {
		fl->done_ps = f->now_ps;
		f->undone--;
	}
	due_set(f, FLUID_ENT(FLUID_FLOW, id), INFINITY);
}

void fluid_take_changed(struct fluid *f, GArray *out)
{
	for (guint i = 0; i < f->changed->len; i++) {
		uint32_t id = g_array_index(f->changed, uint32_t, i);

		flow_at(f, id)->listed = false;
		g_array_append_val(out, id);
	}
	g_array_set_size(f->changed, 0);
}

double fluid_done_ps(const struct fluid *f, uint32_t id)
{
	return flow_at(f, id)->done_ps;
}

void fluid_get_stats(const struct fluid *f, struct fluid_stats *out)
{
	*out = f->stats;
}

struct fluid *fluid_new_fabric(const struct fabric_config *cfg, GError **error)
{
	struct topo *t = g_new0(struct topo, 1);
	const struct link_params *lp = &cfg->link;
	double pkt = (double)lp->max_payload_bytes + lp->header_bytes;

	if (!topo_init(t, cfg, 0, error)) {
		g_free(t);
		return NULL;
	}
	g_autofree struct fluid_chan *ch = g_new(struct fluid_chan, t->nchans);

	for (int c = 0; c < t->nchans; c++)
		ch[c] = (struct fluid_chan){
			.from = t->chans[c].src, .to = t->chans[c].dst,
			.bytes_per_ps = (double)lp->bw_bytes_per_s / 1e12,
			.buf_bytes = lp->credits ? lp->credits * pkt : INFINITY,
			.loop_ps = (double)(lp->lat_ps + lp->credit_return_ps),
		};
	struct fluid *f = fluid_new(t->nnodes, t->nchans, ch, t->nvc);

	f->topo = t;
	f->link = *lp;
	fluid_set_grain(f, pkt);
	return f;
}

uint32_t fluid_send(struct fluid *f, int src, int dst, uint64_t bytes)
{
	const struct topo *t = f->topo;
	g_autofree int *nodes = g_new(int, t->nnodes + 1);
	g_autofree uint8_t *vcs = g_new(uint8_t, t->nnodes);
	g_autofree int *chans = g_new(int, t->nnodes);
	uint64_t packets = (bytes + f->link.max_payload_bytes - 1) / f->link.max_payload_bytes;
	int hops;

	g_assert(t && bytes > 0 && src != dst);
	hops = topo_route(t, src, dst, ROUTE_SHORTEST, nodes, vcs);
	for (int h = 0; h < hops; h++)
		chans[h] = topo_chan_find(t, nodes[h], nodes[h + 1]);
	return fluid_add(f, dst, (double)(bytes + packets * f->link.header_bytes), hops, chans, vcs);
}
