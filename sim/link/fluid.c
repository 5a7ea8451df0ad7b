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
 * node's ejection (index nchans + node). */
#include "sim/link/fluid.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* What counts as nothing, in bytes, and as equal, in bytes per ps. */
#define FLUID_EMPTY 1e-2
/* Bytes a flow may lack at its delivery: those dropped as nothing on its
 * way (FLUID_EMPTY a run at most). */
#define FLUID_DONE 1.0
#define FLUID_SAME 1e-13
/* A buffer within this fraction of its size is full. */
#define FLUID_FULL 1e-9
enum { FLUID_ROUNDS = 1000 };

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
};

struct fluid_line {
	int32_t head, tail;    /* flows, -1: empty */
	double grant;
	GArray *sent;          /* owned, of struct fluid_sent */
};

struct fluid {
	int nnodes, nchans, nvc;
	struct fluid_chan *chans;  /* owned */
	double *room;              /* nchans: a buffer's bytes less its credits' loop
				    * (fluid_chan) */
	GArray *flows;             /* of struct fluid_flow */
	struct fluid_line *lines;  /* owned, nchans */
	GPtrArray *parts;          /* of struct fluid_part *, owned; NULL: freed */
	GHashTable *part_of;       /* key (fluid_key) -> index + 1 */
	GArray **outs;             /* owned, nchans + nnodes: the parts (uint32_t)
				    * that wait for each output */
	double *buf;               /* nchans x nvc: each buffer's bytes */
	double *drain;             /* nchans x nvc: what the parts of each buffer
				    * are granted */
	GArray *dirty;             /* of int32_t: outputs whose grants are to be
				    * found again, in order */
	guint dirty_head;
	bool *queued;              /* nchans + nnodes: in dirty */
	double now_ps;
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
	f->flows = g_array_new(FALSE, FALSE, sizeof(struct fluid_flow));
	f->lines = g_new(struct fluid_line, nchans);
	for (int c = 0; c < nchans; c++)
		f->lines[c] = (struct fluid_line){
			.head = -1, .tail = -1,
			.sent = g_array_new(FALSE, FALSE, sizeof(struct fluid_sent)),
		};
	f->parts = g_ptr_array_new();
	f->part_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	f->outs = g_new(GArray *, nchans + nnodes);
	for (int o = 0; o < nchans + nnodes; o++)
		f->outs[o] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	f->buf = g_new0(double, (gsize)nchans * nvc);
	f->drain = g_new0(double, (gsize)nchans * nvc);
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
	g_free(f->drain);
	g_free(f->chans);
	g_free(f->room);
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
		.next = -1,
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
	f->undone++;
	mark(f, chans[0]);
	return id;
}

static inline struct fluid_flow *flow_at(const struct fluid *f, uint32_t id)
{
	return &g_array_index(f->flows, struct fluid_flow, id);
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
	*p = (struct fluid_part){ .cin = cin, .out = out, .vin = vin, .vnext = vnext };
	p->runs = g_array_new(FALSE, FALSE, sizeof(struct fluid_run));
	p->in = g_array_new(FALSE, FALSE, sizeof(struct fluid_share));
	p->sent = g_array_new(FALSE, FALSE, sizeof(struct fluid_sent));
	k = f->parts->len;
	g_ptr_array_add(f->parts, p);
	g_hash_table_insert(f->part_of, key, GUINT_TO_POINTER(k + 1));
	g_array_append_val(f->outs[out], k);
	mark(f, out);
	return k;
}

/* Adds x to flow/hop's entry of shares (made where it has none). */
static void shares_add(GArray *a, uint32_t flow, uint32_t hop, double x)
{
	for (guint i = 0; i < a->len; i++) {
		struct fluid_share *s = &g_array_index(a, struct fluid_share, i);

		if (s->flow == flow && s->hop == hop) {
			s->x += x;
			return;
		}
	}
	struct fluid_share s = { flow, hop, x };

	g_array_append_val(a, s);
}

static double shares_get(const GArray *a, uint32_t flow, uint32_t hop)
{
	for (guint i = 0; i < a->len; i++) {
		const struct fluid_share *s = &g_array_index(a, struct fluid_share, i);

		if (s->flow == flow && s->hop == hop)
			return s->x;
	}
	return 0;
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

/* Adds x to what part k receives of flow by hop; a part that holds nothing
 * passes it on, so its output's grants are to be found again. */
static void part_receive(struct fluid *f, uint32_t k, uint32_t flow, uint32_t hop, double x)
{
	struct fluid_part *p = f->parts->pdata[k];
	GArray *a = p->in;
	double sum = 0;

	shares_add(a, flow, hop, x);
	for (guint i = 0; i < a->len;) {
		struct fluid_share *sh = &g_array_index(a, struct fluid_share, i);

		if (fabs(sh->x) < FLUID_SAME) {
			g_array_remove_index(a, i);
			continue;
		}
		sum += sh->x;
		i++;
	}
	p->inflow = MAX(sum, 0);
	if (p->content <= FLUID_EMPTY)
		mark(f, p->out);
}

/* What grant g of a stream sends on from output o (to the parts below, or
 * delivers at an ejection), in place of what `sent` held. */
static void send_on(struct fluid *f, int32_t o, double g, const struct fluid_share *sh, uint32_t n,
		    double total, bool from_memory, GArray *sent)
{
	GArray *now = g_array_sized_new(FALSE, FALSE, sizeof(struct fluid_sent), n);

	if (g > 0 && total > 0)
		for (uint32_t i = 0; i < n; i++) {
			struct fluid_flow *fl = flow_at(f, sh[i].flow);
			uint32_t h = from_memory ? 0 : sh[i].hop + 1;
			struct fluid_sent x = { UINT32_MAX, sh[i].flow, h, g * sh[i].x / total };

			if (o < f->nchans) {
				bool last = (int)h + 1 == fl->hops;

				g_assert((int)h < fl->hops && fl->chans[h] == o);
				x.part = part_get(f, o, fl->vcs[h], last ? f->nchans + fl->dst :
								   fl->chans[h + 1],
						  last ? 0 : fl->vcs[h + 1]);
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
	for (guint i = 0; i < sent->len; i++) {
		const struct fluid_sent *b = &g_array_index(sent, struct fluid_sent, i);

		if (b->part == UINT32_MAX)
			flow_at(f, b->flow)->drate -= b->x;
		else
			part_receive(f, b->part, b->flow, b->hop, -b->x);
	}
	for (guint i = 0; i < now->len; i++) {
		const struct fluid_sent *a = &g_array_index(now, struct fluid_sent, i);

		if (a->part == UINT32_MAX)
			flow_at(f, a->flow)->drate += a->x;
		else
			part_receive(f, a->part, a->flow, a->hop, a->x);
	}
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

			if (f->buf[q] >= f->room[o] * (1 - FLUID_FULL))
				cap[v] = MAX(f->drain[q], 0);
		}
	fill(o < f->nchans ? f->chans[o].bytes_per_ps : INFINITY, d, grp, cap, g, k);
	for (uint32_t j = 0; j < ins->len; j++) {
		uint32_t pk = g_array_index(ins, uint32_t, j);
		struct fluid_part *p = f->parts->pdata[pk];
		const struct fluid_share *sh;
		uint32_t n;
		double total;

		if (fabs(g[j] - p->grant) >= FLUID_SAME) {
			gsize q = (gsize)p->cin * f->nvc + p->vin;

			f->drain[q] += g[j] - p->grant;
			if (f->buf[q] >= f->room[p->cin] * (1 - FLUID_FULL))
				mark(f, p->cin);
		}
		p->grant = g[j];
		part_stream(p, &sh, &n, &total);
		send_on(f, o, p->grant, sh, n, total, false, p->sent);
		/* part_get may have moved the parts' array */
		ins = f->outs[o];
	}
	if (line) {
		struct fluid_share one = { mem ? (uint32_t)line->head : 0, 0, 1 };

		line->grant = mem ? g[k - 1] : 0;
		send_on(f, o, line->grant, &one, mem, 1, true, line->sent);
	}
}

/* Finds the grants again where they may have changed, until nothing moves
 * (or a bound on the work, counted as unsettled). */
static void solve(struct fluid *f)
{
	uint64_t work = 0, most = 100000 + 1000 * (uint64_t)(f->nchans + f->nnodes);

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

static bool shares_same(const struct fluid_share *a, uint32_t na, const GArray *b, double btotal)
{
	if (na != b->len)
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (fabs(a[i].x - shares_get(b, a[i].flow, a[i].hop) / btotal) > 1e-9)
			return false;
	return true;
}

static double next_event(const struct fluid *f)
{
	double dt = INFINITY;

	for (int c = 0; c < f->nchans; c++) {
		const struct fluid_line *line = &f->lines[c];

		if (line->head >= 0 && line->grant > 0)
			dt = MIN(dt, flow_at(f, (uint32_t)line->head)->rem / line->grant);
	}
	for (guint i = 0; i < f->parts->len; i++) {
		const struct fluid_part *p = f->parts->pdata[i];

		if (p && p->content > FLUID_EMPTY && p->grant > 0) {
			const struct fluid_run *h = &g_array_index(p->runs, struct fluid_run, p->head);
			double x;

			/* a lone run that what arrives goes on growing ends only
			 * where the part empties */
			if (p->runs->len - p->head == 1 && p->inflow > 0 &&
			    shares_same(h->shares, h->n, p->in, p->inflow))
				x = p->grant > p->inflow ? p->content / (p->grant - p->inflow) : INFINITY;
			else
				x = h->bytes / p->grant;
			dt = MIN(dt, x);
		}
	}
	gsize nq = (gsize)f->nchans * f->nvc;
	g_autofree double *in = g_new0(double, nq);

	for (guint i = 0; i < f->parts->len; i++) {
		const struct fluid_part *p = f->parts->pdata[i];

		in[(gsize)p->cin * f->nvc + p->vin] += p->inflow;
	}
	for (gsize q = 0; q < nq; q++) {
		double size = f->room[q / f->nvc];

		if (f->buf[q] < size * (1 - FLUID_FULL)) {
			double net = in[q] - f->drain[q];

			if (net > FLUID_SAME)
				dt = MIN(dt, (size - f->buf[q]) / net);
		}
	}
	for (guint i = 0; i < f->flows->len; i++) {
		const struct fluid_flow *fl = flow_at(f, i);

		if (fl->done_ps < 0 && fl->drate > 0)
			dt = MIN(dt, (fl->wire - fl->delivered) / fl->drate);
	}
	return dt;
}

/* A new run of `bytes` in the proportions of what arrives at p, or more of
 * its last run where that has them. */
static void part_append(struct fluid_part *p, double bytes)
{
	if (p->runs->len > p->head) {
		struct fluid_run *last = &g_array_index(p->runs, struct fluid_run, p->runs->len - 1);

		if (shares_same(last->shares, last->n, p->in, p->inflow)) {
			last->bytes += bytes;
			return;
		}
		/* a tail of less than a byte: what arrives joins it, mixed */
		if (last->bytes < 1 && p->runs->len - 1 > p->head) {
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

/* Moves every rate on by dt, then lets go of what has emptied. */
static void advance(struct fluid *f, double dt)
{
	gsize nq = (gsize)f->nchans * f->nvc;
	g_autofree bool *full = g_new(bool, nq);

	for (gsize q = 0; q < nq; q++)
		full[q] = f->buf[q] >= f->room[q / f->nvc] * (1 - FLUID_FULL);
	for (int c = 0; c < f->nchans; c++) {
		struct fluid_line *line = &f->lines[c];

		if (line->head < 0)
			continue;
		struct fluid_flow *fl = flow_at(f, (uint32_t)line->head);

		fl->rem -= line->grant * dt;
		if (fl->rem <= FLUID_EMPTY) {
			fl->rem = 0;
			line->head = fl->next;
			if (line->head < 0)
				line->tail = -1;
			mark(f, c);
		}
	}
	for (guint i = 0; i < f->parts->len; i++) {
		struct fluid_part *p = f->parts->pdata[i];

		if (!p)
			continue;
		gsize q = (gsize)p->cin * f->nvc + p->vin;
		double out = p->grant * dt, in = p->inflow * dt;
		bool held = p->content > FLUID_EMPTY;
		guint head = p->head;

		if (p->content > FLUID_EMPTY) {
			struct fluid_run *h = &g_array_index(p->runs, struct fluid_run, p->head);

			h->bytes -= out;
			p->content -= out;
			f->buf[q] -= out;
			if (in > 0) {
				part_append(p, in);
				p->content += in;
				f->buf[q] += in;
			}
		} else if (in > out * (1 + 1e-12)) {
			part_append(p, in - out);
			p->content += in - out;
			f->buf[q] += in - out;
		}
		while (p->head < p->runs->len &&
		       g_array_index(p->runs, struct fluid_run, p->head).bytes <= FLUID_EMPTY) {
			struct fluid_run *h = &g_array_index(p->runs, struct fluid_run, p->head);

			p->content -= h->bytes;
			f->buf[q] -= h->bytes;
			run_clear(h);
			p->head++;
		}
		if (p->head != head || held != (p->content > FLUID_EMPTY))
			mark(f, p->out);
		if (p->head == p->runs->len) {
			g_array_set_size(p->runs, 0);
			p->head = 0;
			p->content = 0;
		}
	}
	for (gsize q = 0; q < (gsize)f->nchans * f->nvc; q++) {
		double size = f->room[q / f->nvc];

		if (f->buf[q] < FLUID_EMPTY)
			f->buf[q] = 0;
		if ((f->buf[q] >= size * (1 - FLUID_FULL)) != full[q])
			mark(f, (int32_t)(q / f->nvc));
	}
	f->now_ps += dt;
	for (guint i = 0; i < f->flows->len; i++) {
		struct fluid_flow *fl = flow_at(f, i);

		if (fl->done_ps >= 0)
			continue;
		fl->delivered += fl->drate * dt;
		if (fl->delivered >= fl->wire - FLUID_DONE) {
			fl->done_ps = f->now_ps;
			f->undone--;
		}
	}
}

bool fluid_run(struct fluid *f)
{
	while (f->undone) {
		double dt;

		solve(f);
		dt = next_event(f);
		if (!isfinite(dt))
			return false;
		f->stats.events++;
		advance(f, dt);
	}
	return true;
}

double fluid_done_ps(const struct fluid *f, uint32_t id)
{
	return flow_at(f, id)->done_ps;
}

void fluid_get_stats(const struct fluid *f, struct fluid_stats *out)
{

	*out = f->stats;
}
