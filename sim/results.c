/* Running an experiment and writing its results (results.h).
 *
 * Points run on a GThreadPool; each worker fills the slot of its point index
 * in a preallocated array, so no result depends on which thread ran it or
 * when. Tables are then built serially in point order. The HDF5 writer uses
 * plain 1-D datasets (fixed-length strings, int64, float64), object
 * timestamps off, so that simulated columns are byte-identical across runs;
 * every HDF5 call is checked with H5_CHECK and reported by name. */
#include "sim/results.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli.h"
#include "sim/simulate.h"
#include "sim/util/units.h"

G_DEFINE_QUARK(g5-results-error-quark, results_error)

/* ---- Tables. ---- */

static void rcol_free(gpointer p)
{
	struct rcol *c = p;

	g_free(c->name);
	if (c->s)
		g_ptr_array_unref(c->s);
	if (c->v)
		g_array_unref(c->v);
	g_free(c);
}

struct rtable *rtable_new(const char *name)
{
	struct rtable *t = g_new0(struct rtable, 1);

	t->name = g_strdup(name);
	t->cols = g_ptr_array_new_with_free_func(rcol_free);
	return t;
}

void rtable_free(struct rtable *t)
{
	if (!t)
		return;
	g_free(t->name);
	g_ptr_array_unref(t->cols);
	g_free(t);
}

struct rcol *rtable_add(struct rtable *t, const char *name, enum rcol_type type)
{
	struct rcol *c = g_new0(struct rcol, 1);

	c->name = g_strdup(name);
	c->type = type;
	if (type == RC_STR)
		c->s = g_ptr_array_new_with_free_func(g_free);
	else
		c->v = g_array_new(FALSE, FALSE, type == RC_I64 ? sizeof(int64_t) : sizeof(double));
	g_ptr_array_add(t->cols, c);
	return c;
}

struct rcol *rtable_col(const struct rtable *t, const char *name)
{
	for (guint i = 0; i < t->cols->len; i++) {
		struct rcol *c = t->cols->pdata[i];

		if (!strcmp(c->name, name))
			return c;
	}
	return NULL;
}

double rcol_num(const struct rcol *c, guint row)
{
	switch (c->type) {
	case RC_I64:
		return (double)g_array_index(c->v, int64_t, row);
	case RC_F64:
		return g_array_index(c->v, double, row);
	case RC_STR:
		break;
	}
	g_error("rcol_num: '%s' is a string column", c->name);
}

const char *rcol_str(const struct rcol *c, guint row)
{
	g_assert(c->type == RC_STR);
	return c->s->pdata[row];
}

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

/* ---- Running the points. ---- */

struct point_out {
	bool done;
	GError *error;
	struct sim_outcome out;
	const char *topology;
	int ranks;
};

struct pool_state {
	const struct experiment *e;
	const struct exp_point *pts;
	struct point_out *outs;
	GMutex lock;
	GCond cond;
	guint finished;
	gint failed; /* atomic: stop starting new points */
};

static bool run_point(const struct experiment *e, const struct exp_point *pt,
		      struct point_out *o, GError **error)
{
	struct platform pl;
	struct sim_job job = { .proto = SIM_PROTO_AUTO };
	g_autofree uint64_t *weights = NULL;
	bool ok;

	if (!experiment_point_platform(e, pt, &pl, error))
		return false;
	o->topology = platform_topo_name(pl.fabric.kind);
	o->ranks = pl.fabric.nranks;
	job.plat = &pl;
	job.coll = pt->coll;
	job.algo = pt->algo;
	job.bytes = pt->bytes;
	job.elem_bytes = dtype_elem_bytes(pt->dtype);
	job.params.nranks = pl.fabric.nranks;
	job.params.nchunks = pt->nchunks;
	job.params.root = e->root;
	job.params.peer = e->peer;
	if (pt->coll == COLL_ALLGATHERV)
		weights = experiment_weights(e, pl.fabric.nranks);
	job.params.weights = weights;
	job.params.paxi_set = e->paxi_set;
	job.params.paxi = e->paxi;
	job.seed = pt->seed;
	ok = simulate(&job, &o->out, error);
	platform_release(&pl);
	return ok;
}

static void pool_work(gpointer data, gpointer user)
{
	struct pool_state *st = user;
	guint idx = GPOINTER_TO_UINT(data) - 1;
	struct point_out *o = &st->outs[idx];

	if (!g_atomic_int_get(&st->failed)) {
		if (run_point(st->e, &st->pts[idx], o, &o->error))
			o->done = true;
		else
			g_atomic_int_set(&st->failed, 1);
	}
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
	struct rcol *c_bd[BD_NCAUSES];

	for (int k = 0; k < BD_NCAUSES; k++) {
		char name[48];

		snprintf(name, sizeof(name), "bd_%s_us", bd_cause_name(k));
		c_bd[k] = rtable_add(t, name, RC_F64);
	}

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
		put_s(c_topo, o->topology);
		put_i(c_ranks, o->ranks);
		put_i(c_bytes, (int64_t)p->bytes);
		put_s(c_dtype, dtype_name(p->dtype));
		put_i(c_nch, p->nchunks);
		put_i(c_seed, (int64_t)p->seed);
		for (guint s = 0; s < e->sweeps->len; s++) {
			const char *text = ((struct config_sweep *)e->sweeps->pdata[s])->values->pdata[p->sweep[s]];
			bool num;

			if (sw_num[s])
				put_f(c_sw[s], sweep_number(e, s, text, &num));
			else
				put_s(c_sw[s], text);
		}
		put_f(c_lat, o->out.latency_us);
		put_f(c_alg, o->out.algbw_gbps);
		put_f(c_bus, o->out.busbw_gbps);
		put_f(c_th, o->out.theory_us);
		put_i(c_steps, o->out.steps);
		put_i(c_ev, (int64_t)o->out.events);
		put_f(c_wall, o->out.wall_s);
		for (int k = 0; k < BD_NCAUSES; k++)
			put_f(c_bd[k], (double)o->out.run.breakdown[k] / 1e6);
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
		    c == c_ev || c == c_wall)
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

struct exp_results *exp_run(const struct experiment *e, int jobs, bool progress, GError **error)
{
	g_autoptr(GArray) pts = experiment_expand(e);
	guint n = pts->len;
	struct pool_state st = { .e = e, .pts = (const struct exp_point *)pts->data };
	struct exp_results *r = NULL;
	gint64 t0 = g_get_monotonic_time();

	st.outs = g_new0(struct point_out, MAX(n, 1u));
	g_mutex_init(&st.lock);
	g_cond_init(&st.cond);
	if (jobs <= 0)
		jobs = (int)g_get_num_processors();
	jobs = MAX(1, MIN(jobs, (int)MAX(n, 1u)));
	GThreadPool *pool = g_thread_pool_new(pool_work, &st, jobs, TRUE, NULL);

	for (guint i = 0; i < n; i++)
		g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
	g_mutex_lock(&st.lock);
	guint shown = G_MAXUINT;

	while (st.finished < n) {
		if (progress && st.finished != shown) {
			shown = st.finished;
			progress_draw(shown, n, t0);
		}
		gint64 deadline = g_get_monotonic_time() + G_TIME_SPAN_SECOND / 4;

		g_cond_wait_until(&st.cond, &st.lock, deadline);
	}
	g_mutex_unlock(&st.lock);
	if (progress)
		progress_draw(n, n, t0);
	g_thread_pool_free(pool, FALSE, TRUE);

	for (guint i = 0; i < n; i++)
		if (st.outs[i].error) {
			g_autofree char *label = point_label(&st.pts[i]);

			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_SIM, "%s: %s", label,
				    st.outs[i].error->message);
			goto out;
		}
	r = g_new0(struct exp_results, 1);
	r->e = e;
	r->host = g_strdup(g_get_host_name());
	{
		g_autoptr(GDateTime) now = g_date_time_new_now_utc();

		r->date = g_date_time_format_iso8601(now);
	}
	build_tables(r, st.pts, n, st.outs);
out:
	for (guint i = 0; i < n; i++) {
		if (st.outs[i].done)
			sim_outcome_clear(&st.outs[i].out);
		g_clear_error(&st.outs[i].error);
	}
	g_free(st.outs);
	g_mutex_clear(&st.lock);
	g_cond_clear(&st.cond);
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
	g_free(r);
}

/* ---- Files. ---- */

static char *tmp_name(const char *path)
{
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *base = g_path_get_basename(path);

	return g_strdup_printf("%s/.%s.tmp.%d", dir, base, (int)getpid());
}

bool results_write_atomic(const char *path, const char *text, gsize len, GError **error)
{
	g_autofree char *tmp = tmp_name(path);
	GError *e = NULL;

	if (!g_file_set_contents(tmp, text, (gssize)len, &e)) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot write: %s", path,
			    e->message);
		g_error_free(e);
		return false;
	}
	if (rename(tmp, path) != 0) {
		int err = errno;

		unlink(tmp);
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot rename into place: %s",
			    path, g_strerror(err));
		return false;
	}
	return true;
}

static void csv_field(GString *g, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		g_string_append(g, s);
		return;
	}
	g_string_append_c(g, '"');
	for (; *s; s++) {
		if (*s == '"')
			g_string_append_c(g, '"');
		g_string_append_c(g, *s);
	}
	g_string_append_c(g, '"');
}

/* Shortest text that reads back to the same double ("%.17g" otherwise). */
static void fmt_double(GString *g, double v)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	if (!isfinite(v)) {
		g_string_append(g, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	for (int prec = 6; prec <= 17; prec++) {
		char fmt[8];

		g_snprintf(fmt, sizeof(fmt), "%%.%dg", prec);
		g_ascii_formatd(buf, sizeof(buf), fmt, v);
		if (g_ascii_strtod(buf, NULL) == v)
			break;
	}
	g_string_append(g, buf);
}

bool results_write_csv(const struct exp_results *r, const char *path, GError **error)
{
	const struct rtable *t = r->results;
	GString *g = g_string_new(NULL);
	bool first = true, ok;

	for (guint c = 0; c < t->cols->len; c++) {
		const struct rcol *col = t->cols->pdata[c];

		if (col->wall)
			continue;
		if (!first)
			g_string_append_c(g, ',');
		csv_field(g, col->name);
		first = false;
	}
	g_string_append_c(g, '\n');
	for (guint i = 0; i < t->nrows; i++) {
		first = true;
		for (guint c = 0; c < t->cols->len; c++) {
			const struct rcol *col = t->cols->pdata[c];

			if (col->wall)
				continue;
			if (!first)
				g_string_append_c(g, ',');
			first = false;
			switch (col->type) {
			case RC_STR:
				csv_field(g, rcol_str(col, i));
				break;
			case RC_I64:
				g_string_append_printf(g, "%" G_GINT64_FORMAT, g_array_index(col->v, int64_t, i));
				break;
			case RC_F64:
				fmt_double(g, g_array_index(col->v, double, i));
				break;
			}
		}
		g_string_append_c(g, '\n');
	}
	ok = results_write_atomic(path, g->str, g->len, error);
	g_string_free(g, TRUE);
	return ok;
}

/* HDF5: every call that can fail goes through H5_CHECK, which records the
 * call's text and jumps to the function's `fail` label. */
#define H5_CHECK(call)                                                                  \
	do {                                                                            \
		if ((call) < 0) {                                                       \
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: HDF5 call failed: %s", \
				    path, #call);                                        \
			goto fail;                                                      \
		}                                                                       \
	} while (0)

static bool h5_attr_str(hid_t obj, const char *name, const char *value, const char *path,
			GError **error)
{
	hid_t type = -1, space = -1, attr = -1;
	bool ok = false;

	/* variable-length UTF-8: h5py reads it as a str */
	H5_CHECK(type = H5Tcopy(H5T_C_S1));
	H5_CHECK(H5Tset_size(type, H5T_VARIABLE));
	H5_CHECK(H5Tset_cset(type, H5T_CSET_UTF8));
	H5_CHECK(space = H5Screate(H5S_SCALAR));
	H5_CHECK(attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
	H5_CHECK(H5Awrite(attr, type, &value));
	ok = true;
fail:
	if (attr >= 0)
		H5Aclose(attr);
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	return ok;
}

static bool h5_write_table(hid_t file, const struct rtable *t, const char *path, GError **error)
{
	hid_t gcpl = -1, dcpl = -1, grp = -1, space = -1, type = -1, ds = -1;
	hsize_t dims[1] = { t->nrows };
	GString *names = g_string_new(NULL);
	bool ok = false;
	char *buf = NULL;

	H5_CHECK(gcpl = H5Pcreate(H5P_GROUP_CREATE));
	H5_CHECK(H5Pset_obj_track_times(gcpl, 0));
	H5_CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
	H5_CHECK(H5Pset_obj_track_times(dcpl, 0));
	H5_CHECK(grp = H5Gcreate2(file, t->name, H5P_DEFAULT, gcpl, H5P_DEFAULT));
	H5_CHECK(space = H5Screate_simple(1, dims, NULL));
	for (guint c = 0; c < t->cols->len; c++) {
		const struct rcol *col = t->cols->pdata[c];
		const void *data;

		g_string_append_printf(names, "%s%s", c ? "," : "", col->name);
		switch (col->type) {
		case RC_STR: {
			size_t w = 1;

			for (guint i = 0; i < t->nrows; i++)
				w = MAX(w, strlen(rcol_str(col, i)));
			H5_CHECK(type = H5Tcopy(H5T_C_S1));
			H5_CHECK(H5Tset_size(type, w));
			H5_CHECK(H5Tset_strpad(type, H5T_STR_NULLPAD));
			H5_CHECK(H5Tset_cset(type, H5T_CSET_UTF8));
			buf = g_malloc0(w * MAX(t->nrows, 1u));
			for (guint i = 0; i < t->nrows; i++) {
				const char *s = rcol_str(col, i);

				memcpy(buf + (size_t)i * w, s, strlen(s));
			}
			data = buf;
			break;
		}
		case RC_I64:
			H5_CHECK(type = H5Tcopy(H5T_STD_I64LE));
			data = col->v->data;
			break;
		case RC_F64:
		default:
			H5_CHECK(type = H5Tcopy(H5T_IEEE_F64LE));
			data = col->v->data;
			break;
		}
		H5_CHECK(ds = H5Dcreate2(grp, col->name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
		if (t->nrows)
			H5_CHECK(H5Dwrite(ds, col->type == RC_STR ? type
					  : col->type == RC_I64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
					  H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
		H5Dclose(ds);
		ds = -1;
		H5Tclose(type);
		type = -1;
		g_free(buf);
		buf = NULL;
	}
	if (!h5_attr_str(grp, "columns", names->str, path, error))
		goto fail;
	ok = true;
fail:
	g_free(buf);
	g_string_free(names, TRUE);
	if (ds >= 0)
		H5Dclose(ds);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	if (grp >= 0)
		H5Gclose(grp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	return ok;
}

static char *baselines_text(const struct experiment *e)
{
	GString *g = g_string_new(NULL);

	for (guint i = 0; i < e->colls->len; i++) {
		enum coll c = g_array_index(e->colls, enum coll, i);

		g_string_append_printf(g, "%s%s:%s", i ? "," : "", coll_name(c), experiment_baseline(e, c));
	}
	return g_string_free(g, FALSE);
}

bool results_write_h5(const struct exp_results *r, const char *path, GError **error)
{
	const struct experiment *e = r->e;
	g_autofree char *tmp = tmp_name(path);
	g_autofree char *base = baselines_text(e);
	GString *seeds = g_string_new(NULL), *sweeps = g_string_new(NULL);
	hid_t fcpl = -1, file = -1;
	bool ok = false;
	const char *version = cli_version();
	g_autofree char *ver = g_strdup(version);
	char *paren = strchr(ver, ' ');
	const char *commit = "unknown";

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (paren) {
		*paren = '\0';
		commit = paren + 1;
		if (*commit == '(')
			commit++;
		char *close = strrchr(paren + 1, ')');

		if (close)
			*close = '\0';
	}
	for (guint i = 0; i < e->seeds->len; i++)
		g_string_append_printf(seeds, "%s%" G_GUINT64_FORMAT, i ? "," : "",
				       g_array_index(e->seeds, uint64_t, i));
	for (guint i = 0; i < e->sweeps->len; i++)
		g_string_append_printf(sweeps, "%s%s", i ? "," : "",
				       ((struct config_sweep *)e->sweeps->pdata[i])->key);
	H5_CHECK(fcpl = H5Pcreate(H5P_FILE_CREATE));
	H5_CHECK(file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT));
	{
		const char *attrs[][2] = {
			{ "g5_version", ver },
			{ "g5_commit", commit },
			{ "experiment", e->name },
			{ "experiment_path", e->path },
			{ "experiment_yaml", e->text },
			{ "platform", e->plat.name ? e->plat.name : "" },
			{ "platform_path", e->platform_path },
			{ "platform_yaml", e->platform_text },
			{ "seeds", seeds->str },
			{ "sweep", sweeps->str },
			{ "baseline", base },
			{ "host", r->host },
			{ "date", r->date },
		};
		for (size_t i = 0; i < G_N_ELEMENTS(attrs); i++)
			if (!h5_attr_str(file, attrs[i][0], attrs[i][1], path, error))
				goto fail;
	}
	const struct rtable *tabs[] = { r->results, r->steps, r->channels, r->summary };

	for (size_t i = 0; i < G_N_ELEMENTS(tabs); i++)
		if (tabs[i] && !h5_write_table(file, tabs[i], path, error))
			goto fail;
	H5_CHECK(H5Fclose(file));
	file = -1;
	if (rename(tmp, path) != 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot rename into place: %s",
			    path, g_strerror(errno));
		goto fail;
	}
	ok = true;
fail:
	if (file >= 0)
		H5Fclose(file);
	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (!ok)
		unlink(tmp);
	g_string_free(seeds, TRUE);
	g_string_free(sweeps, TRUE);
	return ok;
}

static char *h5_read_attr_str(hid_t obj, const char *name)
{
	hid_t attr = -1, type = -1, mem = -1;
	char *out = NULL;

	if (H5Aexists(obj, name) <= 0)
		return NULL;
	if ((attr = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
		return NULL;
	type = H5Aget_type(attr);
	if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
		char *v = NULL;

		mem = H5Tcopy(type);
		if (H5Aread(attr, mem, &v) >= 0 && v) {
			out = g_strdup(v);
			H5free_memory(v);
		}
	} else if (type >= 0 && H5Tget_class(type) == H5T_STRING) {
		size_t n = H5Tget_size(type);

		mem = H5Tcopy(type);
		out = g_malloc0(n + 1);
		if (H5Aread(attr, mem, out) < 0)
			g_clear_pointer(&out, g_free);
	}
	if (mem >= 0)
		H5Tclose(mem);
	if (type >= 0)
		H5Tclose(type);
	H5Aclose(attr);
	return out;
}

char *results_read_attr(const char *path, const char *name)
{
	hid_t file;
	char *v;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR) || H5Fis_hdf5(path) <= 0)
		return NULL;
	if ((file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return NULL;
	v = h5_read_attr_str(file, name);
	H5Fclose(file);
	return v;
}

struct rtable *rtable_read_h5(const char *path, const char *table, GError **error)
{
	hid_t file = -1, grp = -1, ds = -1, type = -1, space = -1, mem = -1;
	struct rtable *t = NULL;
	g_auto(GStrv) cols = NULL;
	char *buf = NULL;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR) || H5Fis_hdf5(path) <= 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT, "%s: not an HDF5 file", path);
		return NULL;
	}
	H5_CHECK(file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT));
	if (H5Lexists(file, table, H5P_DEFAULT) <= 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT, "%s: no '%s' table", path, table);
		goto fail;
	}
	H5_CHECK(grp = H5Gopen2(file, table, H5P_DEFAULT));
	{
		g_autofree char *names = h5_read_attr_str(grp, "columns");

		if (!names) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: table '%s' has no 'columns' attribute", path, table);
			goto fail;
		}
		cols = g_strsplit(names, ",", -1);
	}
	t = rtable_new(table);
	for (int c = 0; cols[c]; c++) {
		hsize_t dims[1] = { 0 };

		H5_CHECK(ds = H5Dopen2(grp, cols[c], H5P_DEFAULT));
		H5_CHECK(type = H5Dget_type(ds));
		H5_CHECK(space = H5Dget_space(ds));
		if (H5Sget_simple_extent_ndims(space) != 1) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' is not a 1-D column", path, table, cols[c]);
			goto fail;
		}
		H5Sget_simple_extent_dims(space, dims, NULL);
		if (c == 0)
			t->nrows = (guint)dims[0];
		if (dims[0] != t->nrows) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' has %llu rows, not %u", path, table, cols[c],
				    (unsigned long long)dims[0], t->nrows);
			goto fail;
		}
		H5T_class_t cls = H5Tget_class(type);

		if (cls == H5T_STRING && !H5Tis_variable_str(type)) {
			size_t w = H5Tget_size(type);
			struct rcol *col = rtable_add(t, cols[c], RC_STR);

			buf = g_malloc0(w * MAX(t->nrows, 1u) + 1);
			H5_CHECK(mem = H5Tcopy(type));
			if (t->nrows)
				H5_CHECK(H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
			for (guint i = 0; i < t->nrows; i++)
				g_ptr_array_add(col->s, g_strndup(buf + (size_t)i * w, w));
			g_clear_pointer(&buf, g_free);
			H5Tclose(mem);
			mem = -1;
		} else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
			bool is_int = cls == H5T_INTEGER;
			struct rcol *col = rtable_add(t, cols[c], is_int ? RC_I64 : RC_F64);

			g_array_set_size(col->v, t->nrows);
			if (t->nrows)
				H5_CHECK(H5Dread(ds, is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, H5S_ALL,
						 H5S_ALL, H5P_DEFAULT, col->v->data));
		} else {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' is neither a number nor a fixed-length string column",
				    path, table, cols[c]);
			goto fail;
		}
		H5Sclose(space);
		space = -1;
		H5Tclose(type);
		type = -1;
		H5Dclose(ds);
		ds = -1;
	}
	H5Gclose(grp);
	H5Fclose(file);
	return t;
fail:
	g_free(buf);
	if (mem >= 0)
		H5Tclose(mem);
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	if (ds >= 0)
		H5Dclose(ds);
	if (grp >= 0)
		H5Gclose(grp);
	if (file >= 0)
		H5Fclose(file);
	rtable_free(t);
	return NULL;
}
