/* A workload run on a platform (sim/workload_run.h): one sim, one fabric,
 * one PAXI; a driver component starts each rank's ops as their waits allow,
 * times the compute intervals itself and hands each collective's call to a
 * runner job when its first member arrives. */
#include "sim/workload_run.h"

#include <stdio.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/algos/runner.h"
#include "sim/link/link.h"
#include "sim/paxi/paxi.h"
#include "sim/simulate.h"
#include "sim/tune.h"
#include "sim/util/files.h"

G_DEFINE_QUARK(g5-workload-run-error-quark, workload_run_error)

enum { WL_EV_START = 1, WL_EV_COMPUTE_DONE };

struct call {
	struct wl_call out;
	int *members;            /* borrowed: the group's ranks */
	int nmembers;
	uint32_t *ops;           /* nmembers: each member's op of this call */
	const struct sched *s;   /* borrowed: the cache's */
	struct runner_job *job;  /* made at the first arrival */
	struct drv *d;
	uint32_t id;
};

struct drv {
	struct sim_component c;
	struct sim *sim;
	struct paxi *px;
	const struct workload *w;
	const struct tune_profile *tune;
	int node_ranks;          /* the platform's (0: no tiers) */
	sim_time_t launch_ps;
	GPtrArray *calls;        /* of struct call *, owned */
	GHashTable *scheds;      /* "coll/algo/n/root" -> struct sched *, owned */
	uint32_t **call_of;      /* per rank, per op: its call's index, or UINT32_MAX */
	uint32_t **member_of;    /* per rank, per op: its index within the call's group */
	uint32_t **deps_left;    /* per rank, per op */
	uint32_t **dep_first, **dep_ops; /* per rank: the ops waiting on each op */
	struct wl_span **span;   /* per rank, per op */
	bool **done;
	uint64_t left;           /* ops not done */
	GError *error;           /* the first failure inside the run */
};

const char *workload_auto_algo(enum coll c)
{
	switch (c) {
	case COLL_ALLTOALL:
		return "pairwise";
	case COLL_BROADCAST:
	case COLL_REDUCE:
		return "chain";
	case COLL_P2P:
		return "direct";
	default:
		return "ring";
	}
}

static void op_start(struct drv *d, int r, uint32_t i);

static void op_done(struct drv *d, int r, uint32_t i)
{
	g_assert(!d->done[r][i]);
	d->done[r][i] = true;
	d->span[r][i].end_ps = sim_now(d->sim);
	d->left--;
	for (uint32_t k = d->dep_first[r][i]; k < d->dep_first[r][i + 1]; k++) {
		uint32_t x = d->dep_ops[r][k];

		if (--d->deps_left[r][x] == 0)
			op_start(d, r, x);
	}
}

static void on_rank_done(void *user, int member)
{
	struct call *c = user;
	struct drv *d = c->d;
	int r = c->members[member];

	c->out.end_ps = MAX(c->out.end_ps, sim_now(d->sim));
	op_done(d, r, c->ops[member]);
}

static void arrive(struct drv *d, int r, uint32_t i)
{
	struct call *c = d->calls->pdata[d->call_of[r][i]];
	uint32_t m = d->member_of[r][i];

	if (!c->job) {
		GError *e = NULL;
		const struct wl_op *o = &d->w->progs[r].ops[i];

		c->out.start_ps = sim_now(d->sim);
		c->job = runner_job_new(d->px, c->id, c->s, c->members, o->bytes,
					ir_dtype_size(o->dtype), on_rank_done, c, &e);
		if (!c->job) {
			if (!d->error)
				g_propagate_prefixed_error(&d->error, e, "op '%s' of rank %d: ", o->id, r);
			else
				g_error_free(e);
			return;
		}
	}
	runner_job_launch(c->job, (int)m, d->launch_ps);
}

static void op_start(struct drv *d, int r, uint32_t i)
{
	const struct wl_op *o = &d->w->progs[r].ops[i];

	d->span[r][i].start_ps = sim_now(d->sim);
	if (o->kind == WL_COLLECTIVE) {
		arrive(d, r, i);
		return;
	}
	if (!o->dur_ps) {
		op_done(d, r, i);
		return;
	}
	struct sim_event *ev = sim_schedule(d->sim, o->dur_ps, &d->c, WL_EV_COMPUTE_DONE);

	ev->data[0].u = (uint64_t)r;
	ev->data[1].u = i;
}

static void drv_handler(struct sim *s, struct sim_component *self, struct sim_event *ev)
{
	struct drv *d = (struct drv *)self;

	switch (ev->type) {
	case WL_EV_START:
		for (int r = 0; r < d->w->nranks; r++)
			for (uint32_t i = 0; i < d->w->progs[r].nops; i++)
				if (!d->deps_left[r][i])
					op_start(d, r, i);
		break;
	case WL_EV_COMPUTE_DONE:
		op_done(d, (int)ev->data[0].u, (uint32_t)ev->data[1].u);
		break;
	default:
		g_error("workload: unknown event type %u", ev->type);
	}
	(void)s;
}

/* The ops that wait on each op: its stream's next op and the ops naming it
 * in `after`; each op's count of waits. */
static void build_waits(struct drv *d, int r)
{
	const struct wl_program *p = &d->w->progs[r];
	uint32_t n = p->nops;
	g_autofree uint32_t *last = g_new(uint32_t, (gsize)MAX(d->w->nstreams, 1));
	g_autofree uint32_t *pred = g_new(uint32_t, n ? n : 1);

	for (int k = 0; k < d->w->nstreams; k++)
		last[k] = UINT32_MAX;
	d->deps_left[r] = g_new0(uint32_t, n ? n : 1);
	d->dep_first[r] = g_new0(uint32_t, (gsize)n + 1);
	for (uint32_t i = 0; i < n; i++) {
		const struct wl_op *o = &p->ops[i];

		pred[i] = last[o->stream];
		last[o->stream] = i;
		if (pred[i] != UINT32_MAX) {
			d->deps_left[r][i]++;
			d->dep_first[r][pred[i] + 1]++;
		}
		for (uint32_t k = 0; k < o->nafter; k++) {
			d->deps_left[r][i]++;
			d->dep_first[r][o->after[k] + 1]++;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		d->dep_first[r][i + 1] += d->dep_first[r][i];
	d->dep_ops[r] = g_new(uint32_t, d->dep_first[r][n] ? d->dep_first[r][n] : 1);
	g_autofree uint32_t *fill = g_memdup2(d->dep_first[r], sizeof(uint32_t) * (n ? n : 1));

	for (uint32_t i = 0; i < n; i++) {
		const struct wl_op *o = &p->ops[i];

		if (pred[i] != UINT32_MAX)
			d->dep_ops[r][fill[pred[i]]++] = i;
		for (uint32_t k = 0; k < o->nafter; k++)
			d->dep_ops[r][fill[o->after[k]]++] = i;
	}
}

/* The algorithm and nchunks of op o on the group `members`: its own, or
 * for `auto` the profile's, else the default. */
static void resolve(const struct drv *d, const struct wl_op *o, const int *members, int n,
		    const char **algo, uint32_t *nchunks)
{
	const struct tune_entry *e = NULL;

	*algo = o->algo;
	*nchunks = o->nchunks;
	if (strcmp(o->algo, "auto"))
		return;
	if (d->tune)
		e = tune_lookup(d->tune, o->coll, n, tune_group_stride(members, n), o->bytes);
	*algo = e ? e->algo : workload_auto_algo(o->coll);
	if (e)
		*nchunks = e->nchunks;
}

/* The group's ranks per node for a hierarchical algorithm: on a two-tier
 * platform the members each node holds, when every node of the group holds
 * as many and they come node by node; else 0 (refused by the algorithm).
 * A platform without tiers is one node. */
static int group_node_ranks(const struct drv *d, const int *members, int n)
{
	int L = d->node_ranks, per = 0, i = 0;

	if (L <= 0)
		return n;
	while (i < n) {
		int node = members[i] / L, k = 0;

		for (; i < n && members[i] / L == node; i++)
			k++;
		for (int j = i; j < n; j++)
			if (members[j] / L == node)
				return 0; /* the node's members are not together */
		if (per && k != per)
			return 0;
		per = k;
	}
	return per;
}

/* The schedule of op o on the group `members` of n ranks with algo and
 * nchunks (cached). */
static const struct sched *sched_for(struct drv *d, const struct wl_op *o, const int *members,
				     int n, const char *algo, uint32_t nchunks, GError **error)
{
	int nr = group_node_ranks(d, members, n);
	g_autofree char *key = g_strdup_printf("%d/%s/%d/%d/%d/%u/%d", (int)o->coll, algo, n, o->root,
					       o->peer, nchunks, nr);
	struct sched *s = g_hash_table_lookup(d->scheds, key);

	if (s)
		return s;
	if (!strcmp(algo, "nccl")) {
		g_set_error(error, WORKLOAD_RUN_ERROR, WORKLOAD_RUN_ERROR_OP,
			    "algorithm 'nccl' is not run in workloads (its channel model is of one "
			    "collective alone); name a G5 algorithm or auto");
		return NULL;
	}
	const struct algo_ops *a = algo_find(o->coll, algo, error);
	struct algo_params p = { .nranks = n, .nchunks = nchunks, .root = o->root,
				 .peer = o->coll == COLL_P2P ? o->peer : 1, .node_ranks = nr };

	if (!a || !(s = algo_build(a, o->coll, &p, error)))
		return NULL;
	g_hash_table_insert(d->scheds, g_steal_pointer(&key), s);
	return s;
}

/* Every call of every group: the k-th collective of each member on it. */
static bool build_calls(struct drv *d, GError **error)
{
	const struct workload *w = d->w;

	for (int ci = 0; ci < w->ncomms; ci++) {
		const struct wl_comm *cm = &w->comms[ci];

		for (int g = 0; g < cm->ngroups; g++) {
			int *mem = &cm->members[g * cm->group_size];
			g_autofree uint32_t *at = g_new0(uint32_t, cm->group_size);

			for (uint32_t k = 0;; k++) {
				int found = 0;

				for (int m = 0; m < cm->group_size; m++) {
					const struct wl_program *p = &w->progs[mem[m]];

					while (at[m] < p->nops && !(p->ops[at[m]].kind == WL_COLLECTIVE &&
								    p->ops[at[m]].comm == ci))
						at[m]++;
					found += at[m] < p->nops;
				}
				if (!found)
					break;
				if (found != cm->group_size) {
					g_set_error(error, WORKLOAD_RUN_ERROR, WORKLOAD_RUN_ERROR_DEADLOCK,
						    "call %u of a group of '%s' is issued by %d of its %d "
						    "ranks: the others would wait for ever", k, cm->name,
						    found, cm->group_size);
					return false;
				}
				struct call *c = g_new0(struct call, 1);
				const struct wl_op *o = &w->progs[mem[0]].ops[at[0]];

				c->d = d;
				c->id = d->calls->len;
				c->members = mem;
				c->nmembers = cm->group_size;
				c->ops = g_new(uint32_t, cm->group_size);
				c->out = (struct wl_call){ .comm = ci, .group = g, .k = k, .op = o };
				g_ptr_array_add(d->calls, c);
				if (o->bytes % ir_dtype_size(o->dtype)) {
					g_set_error(error, WORKLOAD_RUN_ERROR, WORKLOAD_RUN_ERROR_OP,
						    "op '%s' of rank %d: %" G_GUINT64_FORMAT " bytes are "
						    "not whole %u-byte elements", o->id, mem[0], o->bytes,
						    ir_dtype_size(o->dtype));
					return false;
				}
				GError *e = NULL;

				resolve(d, o, mem, cm->group_size, &c->out.algo, &c->out.nchunks);
				c->s = sched_for(d, o, mem, cm->group_size, c->out.algo, c->out.nchunks, &e);
				if (!c->s) {
					g_propagate_prefixed_error(error, e, "op '%s' of rank %d: ", o->id,
								   mem[0]);
					return false;
				}
				for (int m = 0; m < cm->group_size; m++) {
					c->ops[m] = at[m];
					d->call_of[mem[m]][at[m]] = c->id;
					d->member_of[mem[m]][at[m]] = (uint32_t)m;
					at[m]++;
				}
			}
		}
	}
	return true;
}

static void call_free(gpointer p)
{
	struct call *c = p;

	runner_job_free(c->job);
	g_free(c->ops);
	g_free(c);
}

static int span_cmp(const void *a, const void *b)
{
	const sim_time_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts n intervals [a, b) (pairs) and merges them in place; returns how
 * many are left. */
static size_t merge(sim_time_t *iv, size_t n)
{
	size_t k = 0;

	qsort(iv, n, 2 * sizeof(sim_time_t), span_cmp);
	for (size_t i = 0; i < n; i++) {
		if (iv[2 * i + 1] <= iv[2 * i])
			continue;
		if (k && iv[2 * i] <= iv[2 * k - 1]) {
			iv[2 * k - 1] = MAX(iv[2 * k - 1], iv[2 * i + 1]);
		} else {
			iv[2 * k] = iv[2 * i];
			iv[2 * k + 1] = iv[2 * i + 1];
			k++;
		}
	}
	return k;
}

static sim_time_t total(const sim_time_t *iv, size_t n)
{
	sim_time_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += iv[2 * i + 1] - iv[2 * i];
	return t;
}

/* The overlap of two merged interval lists. */
static sim_time_t overlap(const sim_time_t *a, size_t na, const sim_time_t *b, size_t nb)
{
	sim_time_t t = 0;

	for (size_t i = 0, j = 0; i < na && j < nb;) {
		sim_time_t lo = MAX(a[2 * i], b[2 * j]), hi = MIN(a[2 * i + 1], b[2 * j + 1]);

		if (hi > lo)
			t += hi - lo;
		if (a[2 * i + 1] < b[2 * j + 1])
			i++;
		else
			j++;
	}
	return t;
}

static void rank_stats(const struct workload *w, int r, struct wl_span *sp,
		       struct wl_rank_stats *st)
{
	uint32_t n = w->progs[r].nops;
	g_autofree sim_time_t *cp = g_new(sim_time_t, 2 * (gsize)(n ? n : 1));
	g_autofree sim_time_t *cm = g_new(sim_time_t, 2 * (gsize)(n ? n : 1));
	size_t ncp = 0, ncm = 0;

	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < n; i++) {
		sim_time_t *iv = w->progs[r].ops[i].kind == WL_COMPUTE ? &cp[2 * ncp++] : &cm[2 * ncm++];

		iv[0] = sp[i].start_ps;
		iv[1] = sp[i].end_ps;
		st->end_ps = MAX(st->end_ps, sp[i].end_ps);
	}
	ncp = merge(cp, ncp);
	ncm = merge(cm, ncm);
	st->compute_ps = total(cp, ncp);
	st->comm_ps = total(cm, ncm);
	st->exposed_ps = st->comm_ps - overlap(cm, ncm, cp, ncp);
}

bool workload_run(const struct workload *w, const struct workload_run_opts *o,
		  struct workload_result *res, GError **error)
{
	const struct platform *pl = o->plat;
	struct drv d = { .w = w, .tune = o->tune, .node_ranks = platform_node_ranks(o->plat) };
	struct impl_params impl;
	bool ok = false;
	int n = w->nranks;

	memset(res, 0, sizeof(*res));
	if (n > pl->fabric.nranks) {
		g_set_error(error, WORKLOAD_RUN_ERROR, WORKLOAD_RUN_ERROR_RANKS,
			    "the workload has %d ranks but the platform %d", n, pl->fabric.nranks);
		return false;
	}
	platform_impl(pl, false, &impl);
	d.launch_ps = platform_overhead(&impl, o->mode);
	d.calls = g_ptr_array_new_with_free_func(call_free);
	d.scheds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)sched_free);
	d.call_of = g_new0(uint32_t *, n);
	d.member_of = g_new0(uint32_t *, n);
	d.deps_left = g_new0(uint32_t *, n);
	d.dep_first = g_new0(uint32_t *, n);
	d.dep_ops = g_new0(uint32_t *, n);
	d.span = g_new0(struct wl_span *, n);
	d.done = g_new0(bool *, n);
	for (int r = 0; r < n; r++) {
		uint32_t k = w->progs[r].nops ? w->progs[r].nops : 1;

		d.call_of[r] = g_new(uint32_t, k);
		memset(d.call_of[r], 0xff, sizeof(uint32_t) * k);
		d.member_of[r] = g_new0(uint32_t, k);
		d.span[r] = g_new0(struct wl_span, k);
		d.done[r] = g_new0(bool, k);
		for (uint32_t i = 0; i < w->progs[r].nops; i++) {
			d.span[r][i].rank = r;
			d.span[r][i].op = i;
		}
		build_waits(&d, r);
		d.left += w->progs[r].nops;
	}
	struct sim *sim = NULL;
	struct fabric *f = NULL;

	if (!build_calls(&d, error))
		goto out;
	sim = sim_new(o->seed);
	/* G5's schedules run Simple over the platform's channels at their most:
	 * one cap for the whole run (docs/workload.md) */
	struct platform run_pl = *pl;

	simulate_channels(&run_pl, &impl, PAXI_PROTO_SIMPLE, impl.max_channels);
	run_pl.fabric.max_memory_bytes = simulate_memory_limit(0);
	f = fabric_new(sim, &run_pl.fabric, error);
	d.px = f ? paxi_new(sim, f, &run_pl.paxi, error) : NULL;
	if (!d.px)
		goto out;
	d.sim = sim;
	sim_component_init(sim, &d.c, "workload", drv_handler);
	sim_schedule(sim, 0, &d.c, WL_EV_START);

	double t0 = (double)g_get_monotonic_time() / 1e6;
	uint64_t limit = o->max_events ? o->max_events : SIMULATE_MAX_EVENTS;
	enum sim_run_result how = sim_run(sim, SIM_TIME_MAX, limit);

	res->wall_s = (double)g_get_monotonic_time() / 1e6 - t0;
	res->events = sim_counters(sim)->executed;
	if (d.error) {
		g_propagate_error(error, d.error);
		d.error = NULL;
		goto out;
	}
	if (how == SIM_RUN_OVERFLOW || how == SIM_RUN_LIMIT) {
		g_set_error(error, WORKLOAD_RUN_ERROR, WORKLOAD_RUN_ERROR_LIMIT,
			    how == SIM_RUN_LIMIT
				    ? "the run reached its limit of %" G_GUINT64_FORMAT
				      " events at %.3f us of simulated time"
				    : "the run's simulated time passed the end of the clock (limit %"
				      G_GUINT64_FORMAT " events) at %.3f us",
			    limit, (double)sim_now(sim) / 1e6);
		goto out;
	}
	if (d.left) {
		GString *s = g_string_new(NULL);
		int shown = 0;

		for (int r = 0; r < n && shown < 4; r++)
			for (uint32_t i = 0; i < w->progs[r].nops && shown < 4; i++)
				if (!d.done[r][i] && !d.deps_left[r][i])
					g_string_append_printf(s, "%s rank %d op '%s'", shown++ ? "," : "",
							       r, w->progs[r].ops[i].id);
		g_set_error(error, WORKLOAD_RUN_ERROR, WORKLOAD_RUN_ERROR_DEADLOCK,
			    "%" G_GUINT64_FORMAT " ops never finished (ranks wait on each other in "
			    "different orders); stuck:%s", d.left, s->str);
		g_string_free(s, TRUE);
		goto out;
	}
	res->nranks = n;
	res->spans = g_array_new(FALSE, FALSE, sizeof(struct wl_span));
	res->ranks = g_new0(struct wl_rank_stats, n);
	for (int r = 0; r < n; r++) {
		for (uint32_t i = 0; i < w->progs[r].nops; i++)
			d.span[r][i].call = d.call_of[r][i] == UINT32_MAX ? -1 : (int32_t)d.call_of[r][i];
		g_array_append_vals(res->spans, d.span[r], w->progs[r].nops);
		rank_stats(w, r, d.span[r], &res->ranks[r]);
		res->step_ps = MAX(res->step_ps, res->ranks[r].end_ps);
	}
	res->calls = g_array_new(FALSE, FALSE, sizeof(struct wl_call));
	for (guint i = 0; i < d.calls->len; i++)
		g_array_append_val(res->calls, ((struct call *)d.calls->pdata[i])->out);
	ok = true;
out:
	/* the jobs' components must outlive the sim's run */
	paxi_free(d.px);
	fabric_free(f);
	sim_free(sim);
	g_ptr_array_free(d.calls, TRUE);
	g_hash_table_unref(d.scheds);
	for (int r = 0; r < n; r++) {
		g_free(d.call_of[r]);
		g_free(d.member_of[r]);
		g_free(d.deps_left[r]);
		g_free(d.dep_first[r]);
		g_free(d.dep_ops[r]);
		g_free(d.span[r]);
		g_free(d.done[r]);
	}
	g_free(d.call_of);
	g_free(d.member_of);
	g_free(d.deps_left);
	g_free(d.dep_first);
	g_free(d.dep_ops);
	g_free(d.span);
	g_free(d.done);
	if (d.error)
		g_error_free(d.error);
	if (!ok)
		workload_result_clear(res);
	return ok;
}

void workload_result_clear(struct workload_result *res)
{
	if (res->spans)
		g_array_unref(res->spans);
	if (res->calls)
		g_array_unref(res->calls);
	g_free(res->ranks);
	memset(res, 0, sizeof(*res));
}

bool workload_trace_write(const struct workload *w, const struct workload_result *res,
			  const char *path, GError **error)
{
	GString *j = g_string_new("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");

	/* process = rank, thread = stream; op ids are names the reader checked
	 * (letters, digits, '-', '_', '.'), safe in JSON as they are */
	for (int r = 0; r < w->nranks; r++) {
		g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, "
				       "\"args\": {\"name\": \"rank %d\"}},\n", r, r);
		for (int s = 0; s < w->nstreams; s++)
			g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, "
					       "\"tid\": %d, \"args\": {\"name\": \"%s\"}},\n", r, s,
					       w->streams[s]);
	}
	for (guint i = 0; i < res->spans->len; i++) {
		const struct wl_span *sp = &g_array_index(res->spans, struct wl_span, i);
		const struct wl_op *o = &w->progs[sp->rank].ops[sp->op];

		g_string_append_printf(j, "{\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"%s\", "
				       "\"pid\": %d, \"tid\": %d, \"ts\": %.6f, \"dur\": %.6f",
				       o->kind == WL_COMPUTE ? o->id : coll_name(o->coll),
				       o->kind == WL_COMPUTE ? "compute" : "collective", sp->rank,
				       o->stream, (double)sp->start_ps / 1e6,
				       (double)(sp->end_ps - sp->start_ps) / 1e6);
		if (o->kind == WL_COLLECTIVE) {
			const struct wl_call *c = &g_array_index(res->calls, struct wl_call, sp->call);

			g_string_append_printf(j, ", \"args\": {\"op\": \"%s\", \"bytes\": %" G_GUINT64_FORMAT
					       ", \"comm\": \"%s\", \"algo\": \"%s\", \"nchunks\": %u}",
					       o->id, o->bytes, w->comms[o->comm].name, c->algo, c->nchunks);
		}
		g_string_append(j, "},\n");
	}
	g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"g5\", \"pid\": 0, \"args\": "
			       "{\"workload\": \"%s\", \"step_us\": %.6f}}\n]}\n", w->name,
			       (double)res->step_ps / 1e6);
	bool ok = files_write(path, j->str, j->len, error);

	g_string_free(j, TRUE);
	return ok;
}
