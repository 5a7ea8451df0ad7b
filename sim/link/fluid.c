/* The receive buffers as an event-driven fluid (fluid.h gives the model).
 *
 * State: each flow's bytes still in its node's memory (its line's head
 * sends), each part's runs, each buffer's total, each flow's bytes
 * delivered. A solve finds every input's grant and every part's inflow
 * from that state by rounds: each round shares every output among its
 * inputs (fill) with the demands and caps the round before gave, then
 * sends the grants on to the parts below (spread); it stops where a round
 * changes no grant, inflow or mix. Outputs are the channels, then each
 * node's ejection (index nchans + node). */
#include "sim/link/fluid.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* What counts as nothing, in bytes, and as equal, in bytes per ps. */
#define FLUID_EMPTY 1e-6
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
	double grant, grant_new;
	double inflow, inflow_new;
	GArray *in, *in_new;   /* owned, of struct fluid_share (x: bytes per ps): what
				* arrives, by flow and hop */
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
	double grant, grant_new;
};

struct fluid {
	int nnodes, nchans, nvc;
	struct fluid_chan *chans;  /* owned */
	GArray *flows;             /* of struct fluid_flow */
	struct fluid_line *lines;  /* owned, nchans */
	GPtrArray *parts;          /* of struct fluid_part *, owned; NULL: freed */
	GHashTable *part_of;       /* key (fluid_key) -> index + 1 */
	GArray **outs;             /* owned, nchans + nnodes: the parts (uint32_t)
				    * that wait for each output */
	double *buf;               /* nchans x nvc: each buffer's bytes */
	double *drain;             /* nchans x nvc: what the parts of each buffer
				    * were granted in the round before */
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
	f->flows = g_array_new(FALSE, FALSE, sizeof(struct fluid_flow));
	f->lines = g_new(struct fluid_line, nchans);
	for (int c = 0; c < nchans; c++)
		f->lines[c] = (struct fluid_line){ .head = -1, .tail = -1 };
	f->parts = g_ptr_array_new();
	f->part_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	f->outs = g_new(GArray *, nchans + nnodes);
	for (int o = 0; o < nchans + nnodes; o++)
		f->outs[o] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	f->buf = g_new0(double, (gsize)nchans * nvc);
	f->drain = g_new0(double, (gsize)nchans * nvc);
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
	g_array_unref(p->in_new);
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
	g_free(f->lines);
	g_free(f->buf);
	g_free(f->drain);
	g_free(f->chans);
	g_free(f);
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
	p->in_new = g_array_new(FALSE, FALSE, sizeof(struct fluid_share));
	k = f->parts->len;
	g_ptr_array_add(f->parts, p);
	g_hash_table_insert(f->part_of, key, GUINT_TO_POINTER(k + 1));
	g_array_append_val(f->outs[out], k);
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

/* The largest difference between two sets of shares. */
static double shares_diff(const GArray *a, const GArray *b)
{
	double d = 0;

	for (guint i = 0; i < a->len; i++) {
		const struct fluid_share *s = &g_array_index(a, struct fluid_share, i);

		d = MAX(d, fabs(s->x - shares_get(b, s->flow, s->hop)));
	}
	for (guint i = 0; i < b->len; i++) {
		const struct fluid_share *s = &g_array_index(b, struct fluid_share, i);

		d = MAX(d, fabs(s->x - shares_get(a, s->flow, s->hop)));
	}
	return d;
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

/* Sends rate g of a stream on from output o: the parts below get it, or,
 * at an ejection, its flows' delivery rates. */
static void spread(struct fluid *f, int32_t o, double g, const struct fluid_share *sh, uint32_t n,
		   double total, bool from_memory)
{
	if (!(g > 0) || !(total > 0))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct fluid_flow *fl = flow_at(f, sh[i].flow);
		double x = g * sh[i].x / total;
		uint32_t h = from_memory ? 0 : sh[i].hop + 1;

		if (o >= f->nchans) {
			fl->drate += x;
			continue;
		}
		g_assert((int)h < fl->hops && fl->chans[h] == o);
		bool last = (int)h + 1 == fl->hops;
		int32_t out = last ? f->nchans + fl->dst : fl->chans[h + 1];
		uint8_t vnext = last ? 0 : fl->vcs[h + 1];
		uint32_t k = part_get(f, o, fl->vcs[h], out, vnext);
		struct fluid_part *p = f->parts->pdata[k];

		p->inflow_new += x;
		shares_add(p->in_new, sh[i].flow, h, x);
	}
}

/* One round: grants from the demands and caps of the round before, then
 * what they send on. Returns the largest change. */
static double round_once(struct fluid *f, bool first)
{
	int nout = f->nchans + f->nnodes;
	double diff = 0;
	GArray *d = g_array_new(FALSE, FALSE, sizeof(double));
	GArray *g = g_array_new(FALSE, FALSE, sizeof(double));
	GArray *grp = g_array_new(FALSE, FALSE, sizeof(uint8_t));

	for (guint i = 0; i < f->flows->len; i++)
		flow_at(f, i)->drate = 0;
	for (guint i = 0; i < f->parts->len; i++) {
		struct fluid_part *p = f->parts->pdata[i];

		if (!p)
			continue;
		p->inflow_new = 0;
		g_array_set_size(p->in_new, 0);
	}
	for (int32_t o = 0; o < nout; o++) {
		GArray *ins = f->outs[o];
		struct fluid_line *line = o < f->nchans ? &f->lines[o] : NULL;
		bool mem = line && line->head >= 0;
		uint32_t k = ins->len + mem;
		double cap[4] = { INFINITY, INFINITY, INFINITY, INFINITY };

		if (!k)
			continue;
		g_array_set_size(d, k);
		g_array_set_size(g, k);
		g_array_set_size(grp, k);
		for (uint32_t j = 0; j < ins->len; j++) {
			struct fluid_part *p = f->parts->pdata[g_array_index(ins, uint32_t, j)];

			g_array_index(d, double, j) = p->content > FLUID_EMPTY ? INFINITY : p->inflow;
			g_array_index(grp, uint8_t, j) = p->vnext;
		}
		if (mem) {
			struct fluid_flow *fl = flow_at(f, (uint32_t)line->head);

			g_array_index(d, double, k - 1) = INFINITY;
			g_array_index(grp, uint8_t, k - 1) = fl->vcs[0];
		}
		if (o < f->nchans && !first)
			for (int v = 0; v < f->nvc; v++) {
				gsize q = (gsize)o * f->nvc + v;

				if (f->buf[q] >= f->chans[o].buf_bytes * (1 - FLUID_FULL))
					cap[v] = f->drain[q];
			}
		fill(o < f->nchans ? f->chans[o].bytes_per_ps : INFINITY, (double *)(void *)d->data,
		     (uint8_t *)grp->data, cap, (double *)(void *)g->data, k);
		for (uint32_t j = 0; j < ins->len; j++) {
			struct fluid_part *p = f->parts->pdata[g_array_index(ins, uint32_t, j)];
			const struct fluid_share *sh;
			uint32_t n;
			double total;

			p->grant_new = g_array_index(g, double, j);
			part_stream(p, &sh, &n, &total);
			spread(f, o, p->grant_new, sh, n, total, false);
		}
		if (mem) {
			struct fluid_share one = { (uint32_t)line->head, 0, 1 };

			line->grant_new = g_array_index(g, double, k - 1);
			spread(f, o, line->grant_new, &one, 1, 1, true);
		} else if (line) {
			line->grant_new = 0;
		}
	}
	memset(f->drain, 0, (size_t)f->nchans * f->nvc * sizeof(double));
	for (guint i = 0; i < f->parts->len; i++) {
		struct fluid_part *p = f->parts->pdata[i];

		if (!p)
			continue;
		f->drain[(gsize)p->cin * f->nvc + p->vin] += p->grant_new;
		diff = MAX(diff, fabs(p->grant_new - p->grant));
		diff = MAX(diff, fabs(p->inflow_new - p->inflow));
		diff = MAX(diff, shares_diff(p->in_new, p->in));
		p->grant = p->grant_new;
		p->inflow = p->inflow_new;
		GArray *t = p->in;

		p->in = p->in_new;
		p->in_new = t;
	}
	for (int c = 0; c < f->nchans; c++) {
		diff = MAX(diff, fabs(f->lines[c].grant_new - f->lines[c].grant));
		f->lines[c].grant = f->lines[c].grant_new;
	}
	g_array_unref(d);
	g_array_unref(g);
	g_array_unref(grp);
	return diff;
}

/* Rounds to the fixed point of the state as it is. Parts made by a round
 * (a first inflow) take part from the next. */
static void solve(struct fluid *f)
{
	for (int r = 0; r < FLUID_ROUNDS; r++) {
		guint nparts = f->parts->len;
		double diff = round_once(f, r == 0);

		f->stats.rounds++;
		if (r > 0 && diff < FLUID_SAME && f->parts->len == nparts)
			return;
	}
	f->stats.unsettled++;
}

static double part_bytes_of_buffer_in(const struct fluid *f, gsize q)
{
	double in = 0;

	for (guint i = 0; i < f->parts->len; i++) {
		const struct fluid_part *p = f->parts->pdata[i];

		if (p && (gsize)p->cin * f->nvc + p->vin == q)
			in += p->inflow;
	}
	return in;
}

/* The time to the next event at the rates of the last solve. */
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
	for (gsize q = 0; q < (gsize)f->nchans * f->nvc; q++) {
		double size = f->chans[q / f->nvc].buf_bytes;

		if (f->buf[q] < size * (1 - FLUID_FULL)) {
			double net = part_bytes_of_buffer_in(f, q) - f->drain[q];

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
		}
	}
	for (guint i = 0; i < f->parts->len; i++) {
		struct fluid_part *p = f->parts->pdata[i];

		if (!p)
			continue;
		gsize q = (gsize)p->cin * f->nvc + p->vin;
		double out = p->grant * dt, in = p->inflow * dt;

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
		if (p->head == p->runs->len) {
			g_array_set_size(p->runs, 0);
			p->head = 0;
			p->content = 0;
		}
	}
	for (gsize q = 0; q < (gsize)f->nchans * f->nvc; q++)
		if (f->buf[q] < FLUID_EMPTY)
			f->buf[q] = 0;
	f->now_ps += dt;
	for (guint i = 0; i < f->flows->len; i++) {
		struct fluid_flow *fl = flow_at(f, i);

		if (fl->done_ps >= 0)
			continue;
		fl->delivered += fl->drate * dt;
		if (fl->delivered >= fl->wire - 1e-3) {
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
