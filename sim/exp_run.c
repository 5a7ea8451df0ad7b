/* Running an experiment's points (results.h: exp_run).
 *
 * Points run on a GThreadPool; each worker fills the slot of its point index
 * in a preallocated array, so no result depends on which thread ran it or
 * when. Tables are then built serially in point order, and, with several
 * seeds, the summary over seeds. */
#include "sim/results.h"
#include "sim/workload_run.h"
#include "sim/tune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli.h"
#include "sim/platform.h"
#include "sim/simulate.h"
#include "sim/util/units.h"

static void put_s(struct rcol *c, const char *s)
{
	g_ptr_array_add(c->s, g_strdup(s));
}

static void put_i(struct rcol *c, int64_t v)
{
	g_array_append_val(c->v, v);
}

static void put_f(struct rcol *c, double v)
{
	g_array_append_val(c->v, v);
}


struct point_out {
	bool done;
	GError *error;
	struct simulate_outcome out;
	const char *topology;
	int ranks;
	const char *algo;     /* the algorithm that ran ('auto' resolved) */
	uint32_t nchunks;     /* and its nchunks */
	bool flow;            /* it ran at flow fidelity */
	uint64_t buffer_bytes; /* a link's receive buffer (credits x payload); 0: unlimited,
				* or run as a fluid (flow.arbiter buffers) */
};

struct pool_state {
	const struct experiment *e;
	uint64_t max_events;
	const struct exp_point *pts;
	struct point_out *outs;
	GMutex lock;
	GCond cond;
	guint finished;
};

static bool run_point(const struct experiment *e, const struct exp_point *pt,
		      uint64_t max_events, struct point_out *o, GError **error)
{
	struct platform pl;
	struct simulate_job job = { .proto = SIMULATE_PROTO_AUTO };
	g_autofree uint64_t *weights = NULL;
	bool ok;

	if (!experiment_point_platform(e, pt, &pl, error))
		return false;
	o->topology = topo_name(pl.fabric.topo);
	o->ranks = pl.fabric.nranks;
	o->flow = pl.fabric.fidelity == LINK_FIDELITY_FLOW;
	o->buffer_bytes = pl.fabric.flow_arbiter == LINK_FLOW_BUFFERS
		? 0 : (uint64_t)pl.fabric.link.credits * pl.fabric.link.max_payload_bytes;
	job.plat = &pl;
	job.coll = pt->coll;
	job.algo = pt->algo;
	job.bytes = pt->bytes;
	job.elem_bytes = dtype_elem_bytes(pt->dtype);
	job.params.nranks = pl.fabric.nranks;
	job.params.nchunks = pt->nchunks;
	if (!strcmp(pt->algo, "auto")) {
		/* the profile's choice for the whole platform (stride 1), else the
		 * default (docs/workload.md, "g5 tune") */
		const struct tune_entry *t = tune_lookup(e->tune, pt->coll, pl.fabric.nranks, 1,
							 pt->bytes);

		job.algo = t ? t->algo : workload_auto_algo(pt->coll);
		if (t)
			job.params.nchunks = t->nchunks;
	}
	o->algo = job.algo;
	o->nchunks = job.params.nchunks;
	job.params.root = e->root;
	job.params.peer = e->peer;
	job.params.node_ranks = e->node_ranks;
	if (pt->coll == COLL_ALLGATHERV)
		weights = experiment_weights(e, pl.fabric.nranks);
	job.params.weights = weights;
	job.params.paxi_set = e->paxi_set;
	job.params.paxi = e->paxi;
	job.seed = pt->seed;
	job.max_events = max_events;
	ok = simulate(&job, &o->out, error);
	platform_release(&pl);
	return ok;
}

static void pool_work(gpointer data, gpointer user)
{
	struct pool_state *st = user;
	guint idx = GPOINTER_TO_UINT(data) - 1;
	struct point_out *o = &st->outs[idx];

	if (run_point(st->e, &st->pts[idx], st->max_events, o, &o->error))
		o->done = true;
	g_mutex_lock(&st->lock);
	st->finished++;
	g_cond_signal(&st->cond);
	g_mutex_unlock(&st->lock);
}

static void progress_draw(guint done, guint total, gint64 t0)
{
	int width = 40, fill = total ? (int)((uint64_t)done * (uint64_t)width / total) : width;
	double el = (double)(g_get_monotonic_time() - t0) / 1e6;

	fprintf(stderr, "\r[%.*s%*s] %u/%u points  %.1fs", fill,
		"########################################", width - fill, "", done, total, el);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

static char *point_label(const struct exp_point *p)
{
	char sz[32];

	return g_strdup_printf("point %u (%s %s, %d ranks, %s, %s, nchunks %u, seed %" G_GUINT64_FORMAT ")",
			       p->index, coll_name(p->coll), p->algo, p->ranks,
			       units_format_size(p->bytes, sz, sizeof(sz)), dtype_name(p->dtype),
			       p->nchunks, p->seed);
}

/* Canonical number for a swept parameter's column: bandwidths in GB/s,
 * times in us, sizes in bytes, others as they are. */
static double sweep_number(const struct experiment *e, guint s, const char *text, bool *numeric)
{
	const struct config_sweep *sw = e->sweeps->pdata[s];
	uint64_t v;
	double d;
	char *end;

	*numeric = true;
	if (g_str_has_suffix(sw->key, "bandwidth") || g_str_has_suffix(sw->key, "inject") ||
	    g_str_has_suffix(sw->key, "eject") || !strcmp(sw->key, "paxi.reduce") ||
	    !strcmp(sw->key, "beta")) {
		if (!strcmp(text, "unlimited") || !strcmp(text, "link") || !strcmp(text, "0"))
			return 0;
		if (units_parse_bw(text, &v, NULL))
			return (double)v / 1e9;
	} else if (g_str_has_suffix(sw->key, "latency") || g_str_has_suffix(sw->key, "timeout") ||
		   g_str_has_suffix(sw->key, "credit_return") || !strcmp(sw->key, "paxi.setup") ||
		   !strcmp(sw->key, "paxi.ctrl_proc") || !strcmp(sw->key, "overhead") ||
		   !strcmp(sw->key, "alpha")) {
		if (units_parse_time(text, &v, NULL))
			return (double)v / 1e6;
	} else if (g_str_has_suffix(sw->key, "packet") || g_str_has_suffix(sw->key, "header") ||
		   !strcmp(sw->key, "paxi.slice")) {
		if (units_parse_size(text, &v, NULL))
			return (double)v;
	}
	d = g_ascii_strtod(text, &end);
	if (*text && !*end)
		return d;
	*numeric = false;
	return 0;
}

static void build_tables(struct exp_results *r, const struct exp_point *pts, guint n,
			 struct point_out *outs)
{
	const struct experiment *e = r->e;
	struct rtable *t = rtable_new("results");
	struct rcol *c_point = rtable_add(t, "point", RC_I64);
	struct rcol *c_exp = rtable_add(t, "experiment", RC_STR);
	struct rcol *c_plat = rtable_add(t, "platform", RC_STR);
	struct rcol *c_coll = rtable_add(t, "collective", RC_STR);
	struct rcol *c_algo = rtable_add(t, "algo", RC_STR);
	struct rcol *c_topo = rtable_add(t, "topology", RC_STR);
	struct rcol *c_ranks = rtable_add(t, "ranks", RC_I64);
	struct rcol *c_bytes = rtable_add(t, "bytes", RC_I64);
	struct rcol *c_dtype = rtable_add(t, "dtype", RC_STR);
	struct rcol *c_nch = rtable_add(t, "nchunks", RC_I64);
	struct rcol *c_seed = rtable_add(t, "seed", RC_I64);
	struct rcol *c_aalgo = NULL, *c_anch = NULL;

	/* an experiment that lists 'auto': what each point ran */
	for (guint i = 0; i < n && !c_aalgo; i++)
		if (!strcmp(pts[i].algo, "auto")) {
			c_aalgo = rtable_add(t, "auto_algo", RC_STR);
			c_anch = rtable_add(t, "auto_nchunks", RC_I64);
		}
	/* an experiment that gives 'counts': its label and each row's skew
	 * (max / mean of the counts on that row's ranks; 1 but for AllGatherV) */
	struct rcol *c_counts = NULL, *c_skew = NULL;

	if (e->counts_label) {
		c_counts = rtable_add(t, "counts", RC_STR);
		c_skew = rtable_add(t, "skew", RC_F64);
	}
	struct rcol *c_sw[CONFIG_MAX_SWEEPS];
	bool sw_num[CONFIG_MAX_SWEEPS];

	for (guint s = 0; s < e->sweeps->len; s++) {
		const struct config_sweep *sw = e->sweeps->pdata[s];
		bool num = true, dummy;

		for (guint v = 0; v < sw->values->len; v++) {
			sweep_number(e, s, sw->values->pdata[v], &dummy);
			num &= dummy;
		}
		sw_num[s] = num;
		c_sw[s] = rtable_add(t, sw->key, num ? RC_F64 : RC_STR);
	}
	struct rcol *c_lat = rtable_add(t, "latency_us", RC_F64);
	struct rcol *c_alg = rtable_add(t, "algbw_gbps", RC_F64);
	struct rcol *c_bus = rtable_add(t, "busbw_gbps", RC_F64);
	struct rcol *c_th = rtable_add(t, "theory_us", RC_F64);
	struct rcol *c_steps = rtable_add(t, "steps", RC_I64);
	struct rcol *c_ev = rtable_add(t, "events", RC_I64);
	struct rcol *c_wall = rtable_add(t, "wall_s", RC_F64);
	struct rcol *c_bd[BD_NCAUSES], *c_err = NULL;

	for (int k = 0; k < BD_NCAUSES; k++) {
		char name[48];

		snprintf(name, sizeof(name), "bd_%s_us", bd_cause_name(k));
		c_bd[k] = rtable_add(t, name, RC_F64);
	}
	/* an experiment with a point at flow fidelity: how much of each
	 * point's message bytes ranks forward, and in how large messages
	 * (flow fidelity is checked against packet fidelity while those stay
	 * below a link's receive buffer: docs/results.md) */
	struct rcol *c_fwd = NULL, *c_fwd_max = NULL;

	for (guint i = 0; i < n && !c_fwd; i++)
		if (outs[i].flow) {
			c_fwd = rtable_add(t, "forwarded", RC_F64);
			c_fwd_max = rtable_add(t, "forwarded_max_bytes", RC_I64);
		}
	for (guint i = 0; i < n && !c_err; i++)
		if (outs[i].error)
			c_err = rtable_add(t, "error", RC_STR);

	c_wall->wall = true;
	struct rtable *st = rtable_new("steps");
	struct rcol *s_pt = rtable_add(st, "point", RC_I64), *s_rank = rtable_add(st, "rank", RC_I64);
	struct rcol *s_step = rtable_add(st, "step", RC_I64);
	struct rcol *s_start = rtable_add(st, "start_us", RC_F64), *s_end = rtable_add(st, "end_us", RC_F64);
	struct rcol *s_bytes = rtable_add(st, "bytes", RC_I64);
	struct rtable *ch = rtable_new("channels");
	struct rcol *h_pt = rtable_add(ch, "point", RC_I64), *h_src = rtable_add(ch, "src", RC_I64);
	struct rcol *h_dst = rtable_add(ch, "dst", RC_I64);
	struct rcol *h_pay = rtable_add(ch, "payload_bytes", RC_I64);
	struct rcol *h_wire = rtable_add(ch, "wire_bytes", RC_I64);
	struct rcol *h_pk = rtable_add(ch, "packets", RC_I64);
	struct rcol *h_retx = rtable_add(ch, "retransmits", RC_I64);
	struct rcol *h_lost = rtable_add(ch, "lost", RC_I64);
	struct rcol *h_util = rtable_add(ch, "utilisation", RC_F64);
	struct rcol *h_hops[8];

	for (int k = 0; k < 8; k++) {
		char name[32];

		snprintf(name, sizeof(name), k == 7 ? "bytes_hops_7plus" : "bytes_hops_%d", k);
		h_hops[k] = rtable_add(ch, name, RC_I64);
	}
	for (guint i = 0; i < n; i++) {
		const struct exp_point *p = &pts[i];
		struct point_out *o = &outs[i];

		put_i(c_point, p->index);
		put_s(c_exp, e->name);
		put_s(c_plat, e->plat.name ? e->plat.name : "");
		put_s(c_coll, coll_name(p->coll));
		put_s(c_algo, p->algo);
		put_s(c_topo, o->topology ? o->topology : "");
		put_i(c_ranks, o->ranks);
		put_i(c_bytes, (int64_t)p->bytes);
		put_s(c_dtype, dtype_name(p->dtype));
		put_i(c_nch, p->nchunks);
		put_i(c_seed, (int64_t)p->seed);
		if (c_aalgo) {
			put_s(c_aalgo, o->algo ? o->algo : "");
			put_i(c_anch, o->nchunks);
		}
		if (c_counts) {
			int nr = o->ranks ? o->ranks : p->ranks;
			g_autofree uint64_t *w = p->coll == COLL_ALLGATHERV && nr > 0
				? experiment_weights(e, nr) : NULL;

			put_s(c_counts, p->coll == COLL_ALLGATHERV ? e->counts_label : "");
			put_f(c_skew, weights_skew(w, nr));
		}
		for (guint s = 0; s < e->sweeps->len; s++) {
			const char *text = ((struct config_sweep *)e->sweeps->pdata[s])->values->pdata[p->sweep[s]];
			bool num;

			if (sw_num[s])
				put_f(c_sw[s], sweep_number(e, s, text, &num));
			else
				put_s(c_sw[s], text);
		}
		/* a failed point: NaN results, no steps or channels */
		double nan_if = o->done ? 0 : NAN;

		put_f(c_lat, o->out.latency_us + nan_if);
		put_f(c_alg, o->out.algbw_gbps + nan_if);
		put_f(c_bus, o->out.busbw_gbps + nan_if);
		put_f(c_th, o->out.theory_us + nan_if);
		put_i(c_steps, o->done ? o->out.steps : 0);
		put_i(c_ev, o->done ? (int64_t)o->out.events : 0);
		put_f(c_wall, o->out.wall_s);
		for (int k = 0; k < BD_NCAUSES; k++)
			put_f(c_bd[k], (double)o->out.run.breakdown[k] / 1e6 + nan_if);
		if (c_fwd) {
			bool ran = o->done && o->flow;
			double sent = (double)o->out.payload_bytes;

			put_f(c_fwd, !ran ? NAN : sent > 0 ? (double)o->out.rank_forwarded_bytes / sent : 0);
			put_i(c_fwd_max, ran ? (int64_t)o->out.forwarded_largest : 0);
		}
		if (c_err)
			put_s(c_err, o->error ? o->error->message : "");
		t->nrows++;
		for (guint k = 0; o->out.run.steps && k < o->out.run.steps->len; k++) {
			const struct runner_step *rs = &g_array_index(o->out.run.steps, struct runner_step, k);

			put_i(s_pt, p->index);
			put_i(s_rank, rs->rank);
			put_i(s_step, rs->step);
			put_f(s_start, (double)rs->start_ps / 1e6);
			put_f(s_end, (double)rs->end_ps / 1e6);
			put_i(s_bytes, (int64_t)rs->bytes_sent);
			st->nrows++;
		}
		for (guint k = 0; o->out.channels && k < o->out.channels->len; k++) {
			const struct channel_stats *cs = &g_array_index(o->out.channels, struct channel_stats, k);
			double dur = (double)o->out.run.latency_ps;

			put_i(h_pt, p->index);
			put_i(h_src, cs->src);
			put_i(h_dst, cs->dst);
			put_i(h_pay, (int64_t)cs->payload_bytes);
			put_i(h_wire, (int64_t)cs->wire_bytes);
			put_i(h_pk, (int64_t)cs->packets);
			put_i(h_retx, (int64_t)cs->retransmitted);
			put_i(h_lost, (int64_t)cs->lost);
			put_f(h_util, dur > 0 ? (double)cs->busy_ps / dur : 0);
			for (int h = 0; h < 8; h++)
				put_i(h_hops[h], (int64_t)cs->hops_histogram[h]);
			ch->nrows++;
		}
	}
	r->results = t;
	r->steps = st;
	r->channels = ch;

	/* Summary over seeds: seeds are the innermost loop, so each group is a
	 * run of consecutive points. */
	guint ns = e->seeds->len;

	if (ns < 2)
		return;
	struct rtable *sm = rtable_new("summary");
	struct rcol *keep[64];
	guint nkeep = 0;

	for (guint ci = 0; ci < t->cols->len && nkeep < G_N_ELEMENTS(keep); ci++) {
		struct rcol *c = t->cols->pdata[ci];

		if (c == c_seed || c == c_lat || c == c_alg || c == c_bus || c == c_th || c == c_steps ||
		    c == c_ev || c == c_wall || c == c_err)
			continue;
		keep[nkeep++] = c;
	}
	struct rcol *out_keep[64];

	for (guint k = 0; k < nkeep; k++)
		out_keep[k] = rtable_add(sm, keep[k]->name, keep[k]->type);
	struct rcol *m_n = rtable_add(sm, "seeds", RC_I64);
	struct rcol *stat_src[] = { c_lat, c_alg, c_bus, c_ev };
	struct rcol *stat_mean[4], *stat_std[4];

	for (int k = 0; k < 4; k++) {
		g_autofree char *mn = g_strconcat(stat_src[k]->name, "_mean", NULL);
		g_autofree char *sd = g_strconcat(stat_src[k]->name, "_std", NULL);

		stat_mean[k] = rtable_add(sm, mn, RC_F64);
		stat_std[k] = rtable_add(sm, sd, RC_F64);
	}
	struct rcol *m_th = rtable_add(sm, "theory_us", RC_F64);

	for (guint g = 0; g + ns <= n; g += ns) {
		for (guint k = 0; k < nkeep; k++) {
			if (keep[k]->type == RC_STR)
				put_s(out_keep[k], rcol_str(keep[k], g));
			else if (keep[k]->type == RC_I64)
				put_i(out_keep[k], g_array_index(keep[k]->v, int64_t, g));
			else
				put_f(out_keep[k], g_array_index(keep[k]->v, double, g));
		}
		put_i(m_n, ns);
		for (int k = 0; k < 4; k++) {
			double sum = 0, sq = 0;

			for (guint j = g; j < g + ns; j++)
				sum += rcol_num(stat_src[k], j);
			double mean = sum / ns;

			for (guint j = g; j < g + ns; j++) {
				double d = rcol_num(stat_src[k], j) - mean;

				sq += d * d;
			}
			put_f(stat_mean[k], mean);
			put_f(stat_std[k], sqrt(sq / (ns - 1)));
		}
		put_f(m_th, rcol_num(c_th, g));
		sm->nrows++;
	}
	r->summary = sm;
}

/* A point's outcome as build_tables() reads it, packed for another
 * process running the same binary: its index, whether it ran, its error,
 * topology, ranks, the numbers of its row, and its steps and channels
 * (plain structs, copied as they are). */
static void put_bytes(GByteArray *b, const void *p, gsize n)
{
	g_byte_array_append(b, p, (guint)n);
}

static void put_str(GByteArray *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : 0;

	put_bytes(b, &n, sizeof(n));
	put_bytes(b, s, n);
}

static void put_array(GByteArray *b, const GArray *a, gsize elem)
{
	uint32_t n = a ? a->len : 0;

	put_bytes(b, &n, sizeof(n));
	if (n)
		put_bytes(b, a->data, n * elem);
}

static void point_pack(GByteArray *b, uint32_t idx, const struct point_out *o)
{
	const struct simulate_outcome *x = &o->out;
	uint8_t flags = (o->done ? 1 : 0) | (o->error ? 2 : 0) | (o->flow ? 4 : 0);
	double nums[] = { x->latency_us, x->algbw_gbps, x->busbw_gbps, x->theory_us, x->wall_s };
	uint64_t fwd[] = { x->rank_forwarded_bytes, x->payload_bytes, x->forwarded_largest,
			   o->buffer_bytes, x->switched_bytes };
	int32_t ranks = o->ranks;

	put_bytes(b, &idx, sizeof(idx));
	put_bytes(b, &flags, sizeof(flags));
	put_str(b, o->error ? o->error->message : NULL);
	put_str(b, o->topology);
	put_bytes(b, &ranks, sizeof(ranks));
	put_bytes(b, nums, sizeof(nums));
	put_bytes(b, fwd, sizeof(fwd));
	put_bytes(b, &x->steps, sizeof(x->steps));
	put_bytes(b, &x->events, sizeof(x->events));
	put_bytes(b, &x->run.latency_ps, sizeof(x->run.latency_ps));
	put_bytes(b, x->run.breakdown, sizeof(x->run.breakdown));
	put_array(b, x->run.steps, sizeof(struct runner_step));
	put_array(b, x->channels, sizeof(struct channel_stats));
}

struct unpacker {
	const guint8 *p, *end;
};

static bool take(struct unpacker *u, void *out, gsize n)
{
	if ((gsize)(u->end - u->p) < n)
		return false;
	memcpy(out, u->p, n);
	u->p += n;
	return true;
}

static bool take_str(struct unpacker *u, char **out)
{
	uint32_t n;

	if (!take(u, &n, sizeof(n)) || (gsize)(u->end - u->p) < n)
		return false;
	*out = g_strndup((const char *)u->p, n);
	u->p += n;
	return true;
}

static bool take_array(struct unpacker *u, gsize elem, GArray **out)
{
	uint32_t n;

	if (!take(u, &n, sizeof(n)) || (gsize)(u->end - u->p) / elem < n)
		return false;
	*out = g_array_sized_new(FALSE, FALSE, (guint)elem, n);
	g_array_append_vals(*out, u->p, n);
	u->p += n * elem;
	return true;
}

/* Unpacks one point into its slot of outs (an index below n, not filled
 * before). */
static bool point_unpack(struct unpacker *u, struct point_out *outs, guint n, bool *filled)
{
	uint32_t idx;
	uint8_t flags;
	int32_t ranks;
	double nums[5];
	uint64_t fwd[5];
	g_autofree char *msg = NULL, *topo = NULL;
	const struct topo_ops *kind;

	if (!take(u, &idx, sizeof(idx)) || idx >= n || filled[idx] || !take(u, &flags, sizeof(flags)) ||
	    !take_str(u, &msg) || !take_str(u, &topo) || !take(u, &ranks, sizeof(ranks)) ||
	    !take(u, nums, sizeof(nums)) || !take(u, fwd, sizeof(fwd)))
		return false;
	struct point_out *o = &outs[idx];
	struct simulate_outcome *x = &o->out;

	filled[idx] = true;
	o->done = flags & 1;
	o->flow = flags & 4;
	x->rank_forwarded_bytes = fwd[0];
	x->payload_bytes = fwd[1];
	x->forwarded_largest = fwd[2];
	o->buffer_bytes = fwd[3];
	x->switched_bytes = fwd[4];
	if (flags & 2)
		o->error = g_error_new_literal(RESULTS_ERROR, RESULTS_ERROR_SIM, msg);
	o->topology = *topo && (kind = topo_find(topo, NULL)) ? topo_name(kind) : NULL;
	o->ranks = ranks;
	x->latency_us = nums[0];
	x->algbw_gbps = nums[1];
	x->busbw_gbps = nums[2];
	x->theory_us = nums[3];
	x->wall_s = nums[4];
	return take(u, &x->steps, sizeof(x->steps)) && take(u, &x->events, sizeof(x->events)) &&
	       take(u, &x->run.latency_ps, sizeof(x->run.latency_ps)) &&
	       take(u, x->run.breakdown, sizeof(x->run.breakdown)) &&
	       take_array(u, sizeof(struct runner_step), &x->run.steps) &&
	       take_array(u, sizeof(struct channel_stats), &x->channels);
}

static bool is_mine(const struct exp_share *share, guint i)
{
	return !share || i % (guint)share->size == (guint)share->rank;
}

/* Runs the points of this share (every point without one). */
static void run_points(struct pool_state *st, guint n, const struct exp_share *share, int jobs,
		       bool progress)
{
	gint64 t0 = g_get_monotonic_time();
	guint mine = 0;

	for (guint i = 0; i < n; i++)
		mine += is_mine(share, i);
	if (jobs <= 0)
		jobs = (int)g_get_num_processors();
	jobs = MAX(1, MIN(jobs, (int)MAX(mine, 1u)));
	GThreadPool *pool = g_thread_pool_new(pool_work, st, jobs, TRUE, NULL);

	for (guint i = 0; i < n; i++)
		if (is_mine(share, i))
			g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
	g_mutex_lock(&st->lock);
	guint shown = G_MAXUINT;

	while (st->finished < mine) {
		if (progress && st->finished != shown) {
			shown = st->finished;
			progress_draw(shown, mine, t0);
		}
		gint64 deadline = g_get_monotonic_time() + G_TIME_SPAN_SECOND / 4;

		g_cond_wait_until(&st->cond, &st->lock, deadline);
	}
	g_mutex_unlock(&st->lock);
	if (progress)
		progress_draw(mine, mine, t0);
	g_thread_pool_free(pool, FALSE, TRUE);
}

static void outs_clear(struct point_out *outs, guint n)
{
	for (guint i = 0; i < n; i++) {
		simulate_outcome_clear(&outs[i].out);
		g_clear_error(&outs[i].error);
		outs[i] = (struct point_out){ 0 };
	}
}

/* Hands this share's points over and, on rank 0, fills every point from
 * every process's buffer. */
static bool exchange(struct point_out *outs, guint n, const struct exp_share *share,
		     GError **error)
{
	g_autoptr(GByteArray) mine = g_byte_array_new();
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);

	for (guint i = (guint)share->rank; i < n; i += (guint)share->size)
		point_pack(mine, i, &outs[i]);
	outs_clear(outs, n);
	if (!share->gather(share->ctx, mine, all, error))
		return false;
	if (share->rank != 0)
		return true;
	g_autofree bool *filled = g_new0(bool, MAX(n, 1u));
	guint got = 0;

	for (guint k = 0; k < all->len; k++) {
		const GByteArray *b = all->pdata[k];
		struct unpacker u = { b->data, b->data + b->len };

		while (u.p < u.end) {
			if (!point_unpack(&u, outs, n, filled)) {
				g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
					    "the points of process %u do not unpack (does every process "
					    "run the same g5 build?)", k);
				return false;
			}
			got++;
		}
	}
	if (got != n) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
			    "%u of the experiment's %u points came back from the processes", got, n);
		return false;
	}
	return true;
}

struct exp_results *exp_run(const struct experiment *e, int jobs, uint64_t max_events,
			    bool progress, GError **error)
{
	return exp_run_share(e, jobs, max_events, progress, NULL, error);
}

struct exp_results *exp_run_share(const struct experiment *e, int jobs, uint64_t max_events,
				  bool progress, const struct exp_share *share, GError **error)
{
	g_autoptr(GArray) pts = experiment_expand(e);
	guint n = pts->len;
	struct pool_state st = { .e = e, .max_events = max_events, .pts = (const struct exp_point *)pts->data };
	struct exp_results *r = NULL;

	if (share && share->size <= 1)
		share = NULL;
	st.outs = g_new0(struct point_out, MAX(n, 1u));
	g_mutex_init(&st.lock);
	g_cond_init(&st.cond);
	run_points(&st, n, share, jobs, progress);
	g_mutex_clear(&st.lock);
	g_cond_clear(&st.cond);
	if (share && !exchange(st.outs, n, share, error)) {
		outs_clear(st.outs, n);
		g_free(st.outs);
		return NULL;
	}
	r = g_new0(struct exp_results, 1);
	r->e = e;
	r->failed = g_ptr_array_new_with_free_func(g_free);
	if (share && share->rank != 0) {
		g_free(st.outs);
		return r;
	}
	for (guint i = 0; i < n; i++)
		if (st.outs[i].error) {
			g_autofree char *label = point_label(&st.pts[i]);

			g_ptr_array_add(r->failed, g_strdup_printf("%s: %s", label,
								   st.outs[i].error->message));
		}
	for (guint i = 0; i < n; i++) {
		const struct point_out *o = &st.outs[i];

		r->flow_points += o->done && o->flow;
		r->flow_beyond += o->done && o->flow && o->out.rank_forwarded_bytes > 0 &&
				  o->buffer_bytes && o->out.forwarded_largest > o->buffer_bytes;
		r->flow_switched += o->done && o->flow && o->out.switched_bytes > 0;
	}
	r->host = g_strdup(g_get_host_name());
	{
		g_autoptr(GDateTime) now = g_date_time_new_now_utc();

		r->date = g_date_time_format_iso8601(now);
	}
	build_tables(r, st.pts, n, st.outs);
	outs_clear(st.outs, n);
	g_free(st.outs);
	return r;
}

void exp_results_free(struct exp_results *r)
{
	if (!r)
		return;
	rtable_free(r->results);
	rtable_free(r->steps);
	rtable_free(r->channels);
	rtable_free(r->summary);
	g_free(r->host);
	g_free(r->date);
	if (r->failed)
		g_ptr_array_unref(r->failed);
	g_free(r);
}
