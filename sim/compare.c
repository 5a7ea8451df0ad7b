/* Measured curves against the simulator: grouping, simulation, errors. */
#include "sim/compare.h"

#include <math.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/simulate.h"
#include "sim/util/quote.h"

void curve_free(struct curve *c)
{
	if (!c)
		return;
	g_free(c->bytes);
	g_free(c->meas_us);
	g_free(c->sim_us);
	g_free(c->sim_proto);
	g_free(c->fit);
	g_free(c);
}

static void curve_free_cb(gpointer p)
{
	curve_free(p);
}

/* Interned strings compare by pointer. */
static bool same_key(const struct curve *c, const struct measured_point *p)
{
	return c->file == p->file && c->format == p->format && c->impl == p->impl &&
	       c->algo == p->algo && c->mode == p->mode && c->schedule == p->schedule &&
	       c->timer == p->timer && c->proto == p->proto && c->engine == p->engine &&
	       c->coll == p->coll && c->ranks == p->ranks && c->root == p->root &&
	       c->dtype == p->dtype && c->inplace == p->inplace && c->nchunks == p->nchunks &&
	       c->launches == p->launches;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct size_times {
	uint64_t bytes;
	GArray *t; /* of double */
};

static int cmp_size(const void *a, const void *b)
{
	uint64_t x = ((const struct size_times *)a)->bytes, y = ((const struct size_times *)b)->bytes;

	return x < y ? -1 : x > y;
}

/* Fills c's points from the measured points of its key (medians by size). */
static void curve_fill(struct curve *c, const GArray *points)
{
	GArray *st = g_array_new(FALSE, FALSE, sizeof(struct size_times));

	for (guint i = 0; i < points->len; i++) {
		const struct measured_point *p = &g_array_index(points, struct measured_point, i);
		guint k;

		if (!same_key(c, p))
			continue;
		for (k = 0; k < st->len; k++)
			if (g_array_index(st, struct size_times, k).bytes == p->bytes)
				break;
		if (k == st->len) {
			struct size_times n = { p->bytes, g_array_new(FALSE, FALSE, sizeof(double)) };

			g_array_append_val(st, n);
		}
		g_array_append_val(g_array_index(st, struct size_times, k).t, p->time_us);
	}
	g_array_sort(st, cmp_size);
	c->n = st->len;
	c->bytes = g_new0(uint64_t, c->n);
	c->meas_us = g_new0(double, c->n);
	c->sim_us = g_new0(double, c->n);
	c->sim_proto = g_new0(int, c->n);
	c->fit = g_new0(bool, c->n);
	for (guint k = 0; k < st->len; k++) {
		struct size_times *s = &g_array_index(st, struct size_times, k);
		double *t = (double *)s->t->data;
		guint m = s->t->len;

		qsort(t, m, sizeof(double), cmp_double);
		c->bytes[k] = s->bytes;
		c->meas_us[k] = m % 2 ? t[m / 2] : (t[m / 2 - 1] + t[m / 2]) / 2;
		g_array_unref(s->t);
	}
	g_array_unref(st);
}

GPtrArray *compare_curves(const GArray *points)
{
	GPtrArray *curves = g_ptr_array_new_with_free_func(curve_free_cb);

	for (guint i = 0; i < points->len; i++) {
		const struct measured_point *p = &g_array_index(points, struct measured_point, i);
		bool known = false;

		for (guint k = 0; k < curves->len && !known; k++)
			known = same_key(curves->pdata[k], p);
		if (known)
			continue;
		struct curve *c = g_new0(struct curve, 1);

		c->file = p->file;
		c->format = p->format;
		c->impl = p->impl;
		c->algo = p->algo;
		c->mode = p->mode;
		c->schedule = p->schedule;
		c->timer = p->timer;
		c->proto = p->proto;
		c->engine = p->engine;
		c->coll = p->coll;
		c->ranks = p->ranks;
		c->root = p->root;
		c->dtype = p->dtype;
		c->inplace = p->inplace;
		c->nchunks = p->nchunks;
		c->launches = p->launches;
		curve_fill(c, points);
		g_ptr_array_add(curves, c);
	}
	return curves;
}

static const char *const where_keys[] = { "impl", "collective", "algo", "nchunks", "ranks",
					   "dtype", "inplace", "mode", "timer", "proto", "format",
					   NULL };

/* The text of field `key` of point p (buf holds numbers). */
static const char *point_field(const struct measured_point *p, const char *key, char *buf,
			       size_t len)
{
	if (!strcmp(key, "impl"))
		return p->impl;
	if (!strcmp(key, "collective"))
		return coll_name(p->coll);
	if (!strcmp(key, "algo"))
		return p->algo;
	if (!strcmp(key, "dtype"))
		return dtype_name(p->dtype);
	if (!strcmp(key, "mode"))
		return p->mode;
	if (!strcmp(key, "timer"))
		return p->timer;
	if (!strcmp(key, "proto"))
		return p->proto;
	if (!strcmp(key, "format"))
		return p->format;
	if (!strcmp(key, "nchunks"))
		g_snprintf(buf, len, "%u", p->nchunks);
	else if (!strcmp(key, "ranks"))
		g_snprintf(buf, len, "%d", p->ranks);
	else
		g_snprintf(buf, len, "%d", (int)p->inplace);
	return buf;
}

static bool where_check(const char *where, GError **error)
{
	g_auto(GStrv) terms = g_strsplit(where, ",", -1);

	for (char **t = terms; *t; t++) {
		g_auto(GStrv) kv = g_strsplit(*t, "=", 2);
		bool known = false;

		for (const char *const *k = where_keys; *k && kv[0]; k++)
			known |= !strcmp(*k, kv[0]);
		if (!kv[0] || !kv[1] || !*kv[1] || !known) {
			g_autofree char *keys = g_strjoinv(", ", (char **)where_keys);

			g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE,
				    "'where' term '%s' must be KEY=VALUE with KEY one of %s", quote_text(*t).s, keys);
			return false;
		}
	}
	return true;
}

static bool where_match(const char *where, const struct measured_point *p)
{
	g_auto(GStrv) terms = g_strsplit(where, ",", -1);

	for (char **t = terms; *t; t++) {
		g_auto(GStrv) kv = g_strsplit(*t, "=", 2);
		g_auto(GStrv) alts = g_strsplit(kv[1], "|", -1);
		char buf[32];
		const char *v = point_field(p, kv[0], buf, sizeof(buf));
		bool any = false;

		for (char **a = alts; *a && !any; a++)
			any = !g_ascii_strcasecmp(*a, v);
		if (!any)
			return false;
	}
	return true;
}

GPtrArray *compare_load(char *const *files, const char *where, GError **error)
{
	GArray *points = g_array_new(FALSE, FALSE, sizeof(struct measured_point));

	if (where && !where_check(where, error)) {
		g_array_unref(points);
		return NULL;
	}
	for (char *const *f = files; f && *f; f++)
		if (!measured_read(*f, points, error)) {
			g_array_unref(points);
			return NULL;
		}
	if (where) {
		guint keep = 0;

		for (guint i = 0; i < points->len; i++)
			if (where_match(where, &g_array_index(points, struct measured_point, i)))
				g_array_index(points, struct measured_point, keep++) =
					g_array_index(points, struct measured_point, i);
		g_array_set_size(points, keep);
		if (!keep) {
			g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE,
				    "no measured point matches --where '%s'", quote_text(where).s);
			g_array_unref(points);
			return NULL;
		}
	}
	GPtrArray *curves = compare_curves(points);

	g_array_unref(points);
	return curves;
}

/* ---- simulation ---- */

/* One distinct simulation: what a point needs, and its answer. */
struct sim_task {
	enum coll coll;
	const char *algo;          /* interned or static */
	uint32_t nchunks;
	int ranks, root;
	uint32_t elem_bytes;
	enum run_mode mode;
	int proto;                 /* enum paxi_proto or SIMULATE_PROTO_AUTO */
	bool inplace;
	uint32_t launches;
	uint64_t bytes;
	/* results */
	double us;
	int ran_proto;
	GError *error;
};

struct pool_ctx {
	const struct platform *pl;
	const struct compare_override *ov;
};

static void task_run(gpointer data, gpointer user)
{
	struct sim_task *t = data;
	const struct pool_ctx *x = user;
	struct platform pl = *x->pl; /* shallow: only the rank count changes */
	struct simulate_job job = { 0 };
	struct simulate_outcome out;

	pl.fabric.nranks = t->ranks;
	job.plat = &pl;
	job.coll = t->coll;
	job.algo = t->algo;
	job.schedule = x->ov ? x->ov->schedule : NULL;
	job.bytes = t->bytes;
	job.elem_bytes = t->elem_bytes;
	job.params.nchunks = t->nchunks;
	job.params.root = t->root;
	job.params.peer = (t->root + 1) % t->ranks;
	job.seed = 1;
	job.mode = t->mode;
	job.proto = t->proto;
	job.inplace = t->inplace;
	job.launches = t->launches;
	if (!simulate(&job, &out, &t->error))
		return;
	t->us = out.latency_us;
	t->ran_proto = (int)out.proto;
	simulate_outcome_clear(&out);
}

static bool same_task(const struct sim_task *a, const struct sim_task *b)
{
	return a->coll == b->coll && a->algo == b->algo && a->nchunks == b->nchunks &&
	       a->ranks == b->ranks && a->root == b->root && a->elem_bytes == b->elem_bytes &&
	       a->mode == b->mode && a->proto == b->proto && a->bytes == b->bytes &&
	       a->inplace == b->inplace && a->launches == b->launches;
}

/* The task key of curve c's point k; false with error when the curve's
 * protocol or mode is not one G5 knows. */
static bool task_of(const struct curve *c, guint k, const struct compare_override *ov,
		    struct sim_task *t, GError **error)
{
	bool nccl = !strcmp(c->impl, "nccl");

	memset(t, 0, sizeof(*t));
	if (nccl && !strcmp(c->algo, "nccl-pad") && !(ov && ov->algo)) {
		/* G5's NCCL model builds NCCL's grouped broadcasts for AllGatherV,
		 * not the padded AllGather (g5x --nccl-agv pad) */
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE,
			    "%s: NCCL's padded AllGatherV (algo nccl-pad) has no model in G5 yet; "
			    "select the other curves with --where, or simulate it as G5's --algo A",
			    c->file);
		return false;
	}
	t->coll = c->coll;
	t->algo = ov && ov->algo ? g_intern_string(ov->algo) : nccl ? g_intern_static_string("nccl")
									: c->algo;
	t->nchunks = c->nchunks ? c->nchunks : 1;
	t->ranks = c->ranks;
	t->root = c->root >= 0 && c->root < c->ranks ? c->root : 0;
	t->elem_bytes = dtype_elem_bytes(c->dtype);
	t->bytes = c->bytes[k];
	t->launches = c->launches;
	/* NCCL's collectives run in place as they are; its AllToAll is grouped
	 * send/recv, which has no in-place form: the harness copies the input
	 * first, as G5's copy-in does for a schedule that is not correct in place */
	t->inplace = c->inplace && (!nccl || c->coll == COLL_ALLTOALL);
	if (!platform_mode_parse(c->mode, &t->mode)) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE, "%s: unknown mode '%s'",
			    c->file, quote_text(c->mode).s);
		return false;
	}
	t->proto = SIMULATE_PROTO_AUTO;
	if (strcmp(c->proto, "auto")) {
		enum paxi_proto p;

		if (!paxi_proto_parse(c->proto, &p)) {
			g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE,
				    "%s: unknown protocol '%s' (known: simple, ll, ll128, auto)", c->file,
				    quote_text(c->proto).s);
			return false;
		}
		t->proto = (int)p;
	}
	return true;
}

static bool simulate_points(GPtrArray *curves, const struct platform *pl,
			    const struct compare_override *ov, guint threads, bool only_fit,
			    GError **error);

bool compare_simulate(GPtrArray *curves, const struct platform *pl,
		      const struct compare_override *ov, guint threads, GError **error)
{
	return simulate_points(curves, pl, ov, threads, false, error);
}

bool compare_simulate_fit(GPtrArray *curves, const struct platform *pl, guint threads,
			  GError **error)
{
	return simulate_points(curves, pl, NULL, threads, true, error);
}

static bool simulate_points(GPtrArray *curves, const struct platform *pl,
			    const struct compare_override *ov, guint threads, bool only_fit,
			    GError **error)
{
	GArray *tasks = g_array_new(FALSE, TRUE, sizeof(struct sim_task));
	guint **index = g_new0(guint *, curves->len);
	bool ok = false;

	/* distinct tasks (a linear scan per point would be quadratic: hash on
	 * bytes, then compare the few tasks of that size) */
	GHashTable *by_bytes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						     (GDestroyNotify)g_array_unref);

	for (guint i = 0; i < curves->len; i++) {
		const struct curve *c = curves->pdata[i];

		index[i] = g_new0(guint, c->n);
		for (guint k = 0; k < c->n; k++) {
			struct sim_task t;

			index[i][k] = G_MAXUINT;
			if (only_fit && !c->fit[k])
				continue;
			if (!task_of(c, k, ov, &t, error))
				goto out;
			GArray *same = g_hash_table_lookup(by_bytes, &t.bytes);
			guint found = G_MAXUINT;

			if (!same) {
				gint64 *key = g_new(gint64, 1);

				*key = (gint64)t.bytes;
				same = g_array_new(FALSE, FALSE, sizeof(guint));
				g_hash_table_insert(by_bytes, key, same);
			}
			for (guint j = 0; j < same->len && found == G_MAXUINT; j++) {
				guint ti = g_array_index(same, guint, j);

				if (same_task(&g_array_index(tasks, struct sim_task, ti), &t))
					found = ti;
			}
			if (found == G_MAXUINT) {
				found = tasks->len;
				g_array_append_val(tasks, t);
				g_array_append_val(same, found);
			}
			index[i][k] = found;
		}
	}
	struct pool_ctx ctx = { pl, ov };

	if (threads <= 1 || tasks->len < 2) {
		for (guint j = 0; j < tasks->len; j++)
			task_run(&g_array_index(tasks, struct sim_task, j), &ctx);
	} else {
		GThreadPool *pool = g_thread_pool_new(task_run, &ctx, (gint)threads, TRUE, NULL);

		/* the largest first, so that the pool ends together */
		for (guint j = tasks->len; j-- > 0;)
			g_thread_pool_push(pool, &g_array_index(tasks, struct sim_task, j), NULL);
		g_thread_pool_free(pool, FALSE, TRUE);
	}
	for (guint j = 0; j < tasks->len; j++) {
		struct sim_task *t = &g_array_index(tasks, struct sim_task, j);

		if (t->error) {
			g_propagate_prefixed_error(error, t->error, "%s %s (%u ranks): ",
						   coll_name(t->coll), t->algo, (guint)t->ranks);
			t->error = NULL;
			goto out;
		}
	}
	for (guint i = 0; i < curves->len; i++) {
		struct curve *c = curves->pdata[i];

		for (guint k = 0; k < c->n; k++) {
			if (index[i][k] == G_MAXUINT)
				continue;
			const struct sim_task *t = &g_array_index(tasks, struct sim_task, index[i][k]);

			c->sim_us[k] = t->us;
			c->sim_proto[k] = t->ran_proto;
		}
		if (!only_fit)
			curve_errors(c, true, false, &c->geomean_err, &c->max_err);
	}
	ok = true;
out:
	for (guint j = 0; j < tasks->len; j++)
		g_clear_error(&g_array_index(tasks, struct sim_task, j).error);
	for (guint i = 0; i < curves->len; i++)
		g_free(index[i]);
	g_free(index);
	g_hash_table_unref(by_bytes);
	g_array_unref(tasks);
	return ok;
}

/* Sums |ln r| of curve c's chosen points into *sum, *mx and *n. */
static void curve_sum(const struct curve *c, bool all, bool which, double *sum, double *mx,
		      guint *n)
{
	for (guint k = 0; k < c->n; k++) {
		if (!all && c->fit[k] != which)
			continue;
		double e = fabs(log(c->sim_us[k] / c->meas_us[k]));

		*sum += e;
		*mx = MAX(*mx, e);
		(*n)++;
	}
}

static guint errors_of(double sum, double mx, guint n, double *geomean_err, double *max_err)
{
	*geomean_err = n ? exp(sum / n) - 1 : 0;
	*max_err = n ? exp(mx) - 1 : 0;
	return n;
}

guint curve_errors(const struct curve *c, bool all, bool which, double *geomean_err,
		   double *max_err)
{
	double sum = 0, mx = 0;
	guint n = 0;

	curve_sum(c, all, which, &sum, &mx, &n);
	return errors_of(sum, mx, n, geomean_err, max_err);
}

guint curves_errors(GPtrArray *curves, bool all, bool which, double *geomean_err,
		    double *max_err)
{
	double sum = 0, mx = 0;
	guint n = 0;

	for (guint i = 0; i < curves->len; i++)
		curve_sum(curves->pdata[i], all, which, &sum, &mx, &n);
	return errors_of(sum, mx, n, geomean_err, max_err);
}

char *curve_label(const struct curve *c)
{
	return g_strdup_printf("%s %s %s k%u %d ranks %s %s %s %s %s", c->impl, coll_name(c->coll),
			       c->algo, c->nchunks, c->ranks, dtype_name(c->dtype), c->mode,
			       c->inplace ? "in-place" : "out-of-place", c->timer, c->proto);
}

char *curve_stem(const struct curve *c, guint i)
{
	g_autofree char *s = g_strdup_printf("%02u-%s-%s-%s-k%u-n%d-%s-%s-%s-%s", i, c->impl,
					     coll_name(c->coll), c->algo, c->nchunks, c->ranks,
					     dtype_name(c->dtype), c->mode, c->inplace ? "ip" : "oop",
					     c->proto);

	for (char *p = s; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '.')
			*p = '_';
	return g_steal_pointer(&s);
}
