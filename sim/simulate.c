/* One collective through every layer: schedule -> runner -> PAXI -> fabric ->
 * engine, then metrics. */
#include "sim/simulate.h"

#include <math.h>

#include "sim/util/files.h"
#include "sim/util/units.h"

G_DEFINE_QUARK(g5-simulate-error-quark, simulate_error)

struct tracer {
	GArray *busy;       /* of struct chan_busy */
	GArray *open;       /* per channel: index into busy of its last interval, or -1 */
};

static void on_transmit(void *user, int chan, sim_time_t start, sim_time_t wire)
{
	struct tracer *t = user;

	if ((guint)chan >= t->open->len) {
		guint old = t->open->len;

		g_array_set_size(t->open, chan + 1);
		for (guint i = old; i <= (guint)chan; i++)
			g_array_index(t->open, gint, i) = -1;
	}
	gint last = g_array_index(t->open, gint, chan);

	if (last >= 0) {
		struct chan_busy *b = &g_array_index(t->busy, struct chan_busy, last);

		if (start <= b->end_ps + SIM_NS(1)) {
			b->end_ps = MAX(b->end_ps, start + wire);
			return;
		}
	}
	struct chan_busy nb = { .chan = chan, .start_ps = start, .end_ps = start + wire };

	g_array_append_val(t->busy, nb);
	g_array_index(t->open, gint, chan) = (gint)t->busy->len - 1;
}

/* min(a, b) where 0 means unlimited. */
static uint64_t cap_min(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : MIN(a, b);
}

static bool simulate_proto(const struct simulate_job *job, enum paxi_proto proto,
			   struct simulate_outcome *out, GError **error);

/* The bytes that the sends of schedule s move at a size of `elems`
 * elements, counted as the runner sizes each transaction; *sends: how many
 * sends there are, over every rank. */
static uint64_t sent_bytes(const struct sched *s, uint64_t elems, uint32_t elem_bytes,
			   uint64_t *sends)
{
	uint64_t total = 0, n = 0;
	g_autofree uint64_t *before = sched_elems_before(s, elems);
	bool even = true;

	for (uint32_t u = 1; u < s->nunits && even; u++)
		even = before[u + 1] - before[u] == before[1];
	/* a turned schedule's ranks send what rank 0 sends, moved by whole
	 * units: where every unit holds as many elements, as many bytes */
	int walk = s->turned && even ? 1 : s->nranks;

	for (int r = 0; r < walk; r++)
		for (uint32_t i = 0; i < sched_rank_len(s, r); i++) {
			const struct sched_op op = sched_op_get(s, r, i);
			uint32_t at = op.dst_buf != SBUF_NONE ? op.dst_off : op.src_off;

			if (op.send_peer >= 0) {
				total += sched_units_elems(s, before, at, op.count);
				n++;
			}
		}
	*sends = n * (uint64_t)(s->nranks / walk);
	return total * (uint64_t)(s->nranks / walk) * elem_bytes;
}

/* The registered algorithm whose schedule s is, op for op, with its own
 * parameters; NULL for any other (its `algo` line is informative: a name
 * alone says nothing of what the ops do). */
static const struct algo_ops *theory_of(const struct sched *s, const struct algo_params *run)
{
	const struct algo_ops *a = s->algo ? algo_find(s->coll, s->algo, NULL) : NULL;
	struct algo_params p = {
		.nranks = s->nranks, .nchunks = s->nchunks, .root = s->root, .peer = s->peer,
		.weights = s->weights, .node_ranks = run->node_ranks,
	};

	memcpy(p.dims, run->dims, sizeof(p.dims));
	struct sched *built = a ? algo_build(a, s->coll, &p, NULL) : NULL;
	bool same = built && sched_equal(built, s);

	sched_free(built);
	return same ? a : NULL;
}

uint64_t simulate_memory_limit(uint64_t max_memory_bytes)
{
	return max_memory_bytes ? max_memory_bytes : sched_machine_memory();
}

static uint64_t max_events(const struct simulate_job *job)
{
	return job->max_events ? job->max_events : SIMULATE_MAX_EVENTS;
}

/* The runner's options for the job: a traced job's run (runner_run_spans)
 * keeps its own. */
static struct runner_launches job_launches(const struct simulate_job *job, sim_time_t issue_ps)
{
	return (struct runner_launches){ .calls = job->launches, .issue_ps = issue_ps,
					 .no_steps = job->no_steps, .no_breakdown = job->no_breakdown };
}

/* Refuses a run that cannot fit the clock, before it runs: the launch cost
 * plus the bytes the schedule sends over the fabric's whole capacity is a
 * lower bound of its time (every byte sent crosses at least one channel, and
 * leaves its node at no more than the injection rate). Then one whose
 * estimate of events (simulate()) is above the job's limit. */
static bool bound_check(const struct sched *s, const struct simulate_job *job,
			const struct platform *pl, sim_time_t overhead_ps, const struct fabric *f,
			GError **error)
{
	unsigned __int128 chans = 0, inject = 0;
	uint64_t sends;
	uint64_t sent = sent_bytes(s, job->bytes / job->elem_bytes, job->elem_bytes, &sends);
	const char *key = "link.bandwidth";
	uint32_t payload = UINT32_MAX;
	double loss = 1;

	for (int i = 0; i < fabric_channels(f); i++) {
		struct link_params lp;

		fabric_channel_params(f, i, &lp);
		chans += lp.bw_bytes_per_s;
		payload = MIN(payload, lp.max_payload_bytes);
		if (lp.error_rate > 0 && lp.error_rate < 1)
			loss = MAX(loss, 1 + lp.error_rate * lp.gbn_window / (1 - lp.error_rate));
	}
	double events = 2.0 * ((double)sent / MAX(payload, 1u) + 1) * loss;

	/* flow fidelity: no event per packet, and from a few events a message to
	 * about two a slice, as its receivers take its pieces; what no run goes
	 * below is its start and its landing, so only a run whose messages alone
	 * pass the limit is refused here, and the others stop at it */
	bool flow = pl->fabric.fidelity == LINK_FIDELITY_FLOW;

	if (flow)
		events = 2.0 * (double)sends;
	if (events > (double)max_events(job)) {
		char size[32];

		units_format_size(job->bytes, size, sizeof(size));
		if (flow)
			g_set_error(error, SIMULATE_ERROR, SIMULATE_ERROR_EVENTS,
				    "%s of %s at flow fidelity needs at least %.3g events (2 for each of its %"
				    G_GUINT64_FORMAT " messages), more than the limit of %" G_GUINT64_FORMAT
				    " (--max-events; 0 lifts it): fewer ranks", size, coll_name(s->coll), events,
				    sends, max_events(job));
		else
			g_set_error(error, SIMULATE_ERROR, SIMULATE_ERROR_EVENTS,
				    "%s of %s is estimated at %.3g events, more than the limit of %" G_GUINT64_FORMAT
				    " (--max-events; 0 lifts it): a smaller size%s", size,
				    coll_name(s->coll), events, max_events(job),
				    loss > 1 ? " or a lower 'link.error_rate'" : "");
		return false;
	}
	struct runner_launches bb = job_launches(job, 0);
	uint64_t need = runner_memory_bytes(s, job->trace ? NULL : &bb, job->trace, &pl->paxi);
	uint64_t have = simulate_memory_limit(job->max_memory_bytes);

	if (have && need > have) {
		g_set_error(error, SIMULATE_ERROR, SIMULATE_ERROR_MEMORY,
			    "%s on %d ranks needs about %.3g GB of memory to simulate, more than the "
			    "%.3g GB %s: fewer ranks, or an algorithm with fewer ops",
			    coll_name(s->coll), s->nranks, (double)need / 1e9, (double)have / 1e9,
			    job->max_memory_bytes ? "allowed" : "this machine has");
		return false;
	}
	unsigned __int128 rate = chans;

	if (pl->fabric.node.inject_bytes_per_s) {
		inject = (unsigned __int128)pl->fabric.node.inject_bytes_per_s * (uint64_t)s->nranks;
		if (inject < rate) {
			rate = inject;
			key = "node.inject";
		}
	}
	if (!sent || !rate)
		return true;
	unsigned __int128 ps = (unsigned __int128)sent * 1000000000000u / rate + overhead_ps;

	if (ps < SIM_TIME_END)
		return true;
	char size[32], total[32];

	g_set_error(error, SIMULATE_ERROR, SIMULATE_ERROR_CLOCK,
		    "%s of %s takes at least %.3g s of simulated time at this '%s' (%s sent in all), "
		    "past the end of the clock (2^63 ps, about 106 days): a faster '%s' or a "
		    "smaller size", units_format_size(job->bytes, size, sizeof(size)),
		    coll_name(s->coll), (double)ps / 1e12, key,
		    units_format_size(sent, total, sizeof(total)), key);
	return false;
}

bool simulate(const struct simulate_job *job, struct simulate_outcome *out, GError **error)
{
	bool nccl = job->algo && !job->schedule && !strcmp(job->algo, "nccl");

	if (job->proto != SIMULATE_PROTO_AUTO || !nccl)
		return simulate_proto(job, job->proto == SIMULATE_PROTO_AUTO ? PAXI_PROTO_SIMPLE
								   : (enum paxi_proto)job->proto,
				      out, error);
	/* NCCL's pick: the least time; ties go to the first of simple, ll, ll128 */
	bool have = false;

	for (int p = 0; p < PAXI_NPROTOS; p++) {
		struct simulate_outcome o;

		if (!simulate_proto(job, (enum paxi_proto)p, &o, error)) {
			if (have)
				simulate_outcome_clear(out);
			return false;
		}
		if (!have || o.run.latency_ps < out->run.latency_ps) {
			if (have)
				simulate_outcome_clear(out);
			*out = o;
			have = true;
		} else {
			simulate_outcome_clear(&o);
		}
	}
	return true;
}

/* channels.spread x log2(nchannels), in integers (the same bytes on every
 * host): exact at powers of two, linear between them; 0 for 0 or 1
 * channel. A round of the engine is every channel's slice in lockstep, so
 * it ends with the slowest of them: the more channels, the later. */
static sim_time_t channel_spread(sim_time_t per_doubling_ps, uint32_t nchannels)
{
	if (!per_doubling_ps || nchannels < 2)
		return 0;
	uint32_t l = 31 - (uint32_t)__builtin_clz(nchannels);
	uint64_t pow = 1ull << l;

	/* l + (n - 2^l) / 2^l doublings */
	return per_doubling_ps * l +
	       (sim_time_t)((unsigned __int128)per_doubling_ps * (nchannels - pow) / pow);
}

void simulate_channels(struct platform *pl, const struct impl_params *impl, enum paxi_proto proto,
		       uint32_t nchannels)
{
	uint64_t chan_bw = impl->channel_bw_bytes_per_s ? impl->channel_bw_bytes_per_s
							: pl->paxi.protos[proto].channel_bw_bytes_per_s;

	pl->paxi.proto = proto;
	if (nchannels && chan_bw && chan_bw < UINT64_MAX / 4 / nchannels) {
		uint64_t data = chan_bw * nchannels;
		uint64_t wire = paxi_proto_wire_bytes(proto, data);

		pl->fabric.node.inject_bytes_per_s = cap_min(pl->fabric.node.inject_bytes_per_s, wire);
		pl->fabric.node.eject_bytes_per_s = cap_min(pl->fabric.node.eject_bytes_per_s, wire);
		if (pl->paxi.engine)
			pl->paxi.engine_bytes_per_s = data;
	}
	if (pl->paxi.engine) {
		sim_time_t spread = channel_spread(impl->channel_spread_ps, nchannels);

		pl->paxi.engine_lat_ps = impl->channel_lat_ps ? impl->channel_lat_ps
							      : pl->paxi.protos[proto].lat_ps;
		/* the protocol's own code (NCCL's kernel) sets up its connections
		 * once per call: a cost that does not grow with the steps */
		if (!impl->channel_lat_ps)
			pl->overhead_ps += pl->paxi.protos[proto].launch_ps;
		pl->paxi.engine_local_lat_ps = impl->local_lat_ps ? impl->local_lat_ps
								  : pl->paxi.engine_lat_ps;
		pl->paxi.engine_lat_ps += spread;
		pl->paxi.engine_local_lat_ps += spread;
		pl->paxi.send_done = impl->send_done;
		if (impl->flag_poll == IMPL_FLAG_POLL_ROUND)
			pl->paxi.ctrl_proc_ps = 0;
		pl->paxi.engine_ready_ps = impl->ready_lat_ps;
	}
	if (pl->paxi.engine && nchannels && pl->paxi.slice_bytes <= UINT64_MAX / nchannels)
		pl->paxi.engine_round_bytes = pl->paxi.slice_bytes * nchannels;
}

void simulate_params(const struct simulate_job *job, struct algo_params *out)
{
	*out = job->params;
	out->nranks = job->plat->fabric.nranks;
	/* the runner takes a turned schedule: one rank's ops where they are
	 * every rank's turned */
	out->turned = true;
	/* not given: the platform's nodes; a platform without tiers is one node */
	if (out->node_ranks <= 0)
		out->node_ranks = platform_node_ranks(job->plat);
	if (out->node_ranks <= 0)
		out->node_ranks = out->nranks;
	/* not given: a torus or mesh platform's dims (torus algorithms) */
	int dims[LINK_MAX_DIMS];

	G_STATIC_ASSERT(LINK_MAX_DIMS == ALGO_MAX_DIMS);
	if (!out->dims[0] && topo_takes(job->plat->fabric.topo, TOPO_PARAM_DIMS) &&
	    fabric_shape_check(&job->plat->fabric, dims, NULL))
		memcpy(out->dims, dims, sizeof(out->dims));
}

static bool simulate_proto(const struct simulate_job *job, enum paxi_proto proto,
			   struct simulate_outcome *out, GError **error)
{
	struct platform run_pl = *job->plat; /* shallow: only scalars change */
	const struct platform *pl = &run_pl;
	struct impl_params impl;
	const struct algo_ops *a = NULL;
	struct sched *built = NULL;
	const struct sched *s = job->schedule;
	bool ok = false;
	struct algo_params p;

	simulate_params(job, &p);
	memset(out, 0, sizeof(*out));
	if (job->elem_bytes == 0 || job->bytes % job->elem_bytes) {
		g_set_error(error, SIMULATE_ERROR, SIMULATE_ERROR_SIZE,
			    "size %" G_GUINT64_FORMAT " is not a multiple of the element size %u",
			    job->bytes, job->elem_bytes);
		return false;
	}
	if (!s) {
		a = algo_find(job->coll, job->algo, error);
		if (!a)
			return false;
		built = job->built ? NULL : algo_build(a, job->coll, &p, error);
		if (!built && !job->built)
			return false;
		s = job->built ? job->built : built;
	}
	if (!a) /* a given schedule: the theory of the algorithm it is, if any */
		a = theory_of(s, &p);
	platform_impl(job->plat, s->algo && !strcmp(s->algo, "nccl"), &impl);
	run_pl.overhead_ps = platform_overhead(&impl, job->mode);
	uint64_t copy_rate = paxi_copy_rate(&pl->paxi);
	sim_time_t issue_ps = platform_issue(&impl, job->mode);

	if (issue_ps && s->algo && !strcmp(s->algo, "nccl")) {
		/* the host's time grows with the tasks of the call */
		uint32_t *tasks = g_new(uint32_t, s->nranks);

		for (int r = 0; r < s->nranks; r++)
			tasks[r] = algo_nccl_tasks(s->coll, s->nranks, r, s->root, s->peer);
		issue_ps += platform_issue_tasks(&impl, job->mode, tasks, s->nranks);
		g_free(tasks);
	}

	if (job->inplace && !s->inplace_ok && copy_rate) {
		/* the copy-in: a launch of its own on the stream (a device copy
		 * before the kernel) and the largest input window's copy */
		uint64_t most = 0;
		g_autofree uint64_t *before = sched_elems_before(s, job->bytes / job->elem_bytes);

		for (int r = 0; r < s->nranks; r++)
			most = MAX(most, sched_units_elems(s, before, s->ranks[r].in_lo,
							   s->ranks[r].in_hi - s->ranks[r].in_lo) *
						 job->elem_bytes);
		run_pl.overhead_ps += platform_overhead(&impl, job->mode);
		run_pl.overhead_ps += link_wire_ps(most, copy_rate);
		/* the host issues the copy too: one launch on every GPU, as the
		 * platform's own `issue` measures it */
		if (issue_ps) {
			struct impl_params g5;

			platform_impl(job->plat, false, &g5);
			issue_ps += platform_issue(&g5, job->mode);
		}
	}
	out->proto = proto;
	out->nchannels = platform_channels(&impl, job->bytes);
	simulate_channels(&run_pl, &impl, proto, out->nchannels);
	if (s->nranks != pl->fabric.nranks) {
		g_set_error(error, SIMULATE_ERROR, SIMULATE_ERROR_RANKS,
			    "the schedule has %d ranks but the platform %d", s->nranks,
			    pl->fabric.nranks);
		goto out;
	}
	struct sim *sim = sim_new(job->seed);

	run_pl.fabric.max_memory_bytes = simulate_memory_limit(job->max_memory_bytes);
	struct fabric *f = fabric_new(sim, &pl->fabric, error);
	struct paxi *px = f ? paxi_new(sim, f, &pl->paxi, error) : NULL;

	struct tracer tr = { 0 };

	if (px && !bound_check(s, job, pl, pl->overhead_ps, f, error)) {
		paxi_free(px);
		px = NULL;
	}
	if (px && job->trace) {
		tr.busy = g_array_new(FALSE, FALSE, sizeof(struct chan_busy));
		tr.open = g_array_new(FALSE, FALSE, sizeof(gint));
		fabric_set_tracer(f, on_transmit, &tr);
	}
	if (px) {
		double t0 = (double)g_get_monotonic_time() / 1e6;

		struct runner_launches bb = job_launches(job, issue_ps);

		ok = job->trace ? runner_run_spans(px, s, job->bytes, job->elem_bytes, pl->overhead_ps,
						   max_events(job), &out->run, error)
				: runner_run_launches(px, s, job->bytes, job->elem_bytes, pl->overhead_ps,
						      max_events(job), &bb, &out->run, error);
		out->wall_s = (double)g_get_monotonic_time() / 1e6 - t0;
		if (!ok && g_error_matches(*error, RUNNER_ERROR, RUNNER_ERROR_DEADLOCK) &&
		    fabric_routes_cyclic(f)) {
			char *m = g_strdup_printf(
				"%s: the shortest routes of this edge list can deadlock (their channels "
				"wait on each other in a cycle, each holding its receive buffer, and no "
				"order of two virtual channels breaks every cycle; docs/config.md)",
				(*error)->message);

			g_free((*error)->message);
			(*error)->message = m;
		}
	}
	if (ok) {
		int n = s->nranks;
		uint64_t beta = pl->beta_bytes_per_s ? pl->beta_bytes_per_s
						     : pl->fabric.link.bw_bytes_per_s;
		double lat_s = (double)out->run.latency_ps / 1e12;

		out->latency_us = lat_s * 1e6;
		out->algbw_gbps = lat_s > 0 ? (double)job->bytes / lat_s / 1e9 : 0;
		out->busbw_gbps = out->algbw_gbps * platform_busbw_factor(s->coll, n);
		p.nranks = n;
		out->theory_us = a ? algo_theory_us(a, s->coll, &p, job->bytes,
						    (double)pl->overhead_ps / 1e6,
						    (double)pl->alpha_ps / 1e6, (double)beta)
				   : NAN;
		out->steps = s->nsteps;
		out->events = sim_counters(sim)->executed;
		out->rank_forwarded_bytes =
			fabric_rank_forwarded_bytes(f, &out->payload_bytes, &out->forwarded_largest);
		out->switched_bytes = fabric_switched_bytes(f);
		fabric_flow_rr_stats(f, &out->rr);
		out->sim_end_ps = sim_now(sim);
		out->paxi = *paxi_stats(px);
		out->channels = g_array_new(FALSE, TRUE, sizeof(struct channel_stats));
		g_array_set_size(out->channels, fabric_channels(f));
		for (int i = 0; i < fabric_channels(f); i++)
			fabric_channel_stats(f, i, &g_array_index(out->channels, struct channel_stats, i));
	}
	if (tr.open)
		g_array_unref(tr.open);
	if (tr.busy) {
		if (ok)
			out->busy = tr.busy;
		else
			g_array_unref(tr.busy);
	}
	paxi_free(px);
	fabric_free(f);
	sim_free(sim);
out:
	sched_free(built);
	if (!ok)
		simulate_outcome_clear(out);
	return ok;
}

bool simulate_check(const struct simulate_job *job, GError **error)
{
	const struct sched *s = job->schedule;
	struct sched *built = NULL;
	bool ok = false;

	if (!s) {
		struct algo_params p;
		const struct algo_ops *a = algo_find(job->coll, job->algo, error);

		simulate_params(job, &p);
		built = a && !job->built ? algo_build(a, job->coll, &p, error) : NULL;
		if (!a || (!built && !job->built))
			return false;
		s = job->built ? job->built : built;
	}
	struct sim *sim = sim_new(job->seed);
	struct fabric_config fc = job->plat->fabric;

	fc.max_memory_bytes = simulate_memory_limit(job->max_memory_bytes);
	struct fabric *f = fabric_new(sim, &fc, error);

	if (f)
		ok = job->elem_bytes && bound_check(s, job, job->plat, 0, f, error);
	fabric_free(f);
	sim_free(sim);
	sched_free(built);
	return ok;
}

void simulate_outcome_clear(struct simulate_outcome *out)
{
	runner_result_clear(&out->run);
	if (out->channels)
		g_array_unref(out->channels);
	if (out->busy)
		g_array_unref(out->busy);
	out->channels = NULL;
	out->busy = NULL;
}

bool simulate_trace_write(const struct simulate_outcome *out, const char *collective,
			  const char *algo, const char *path, GError **error)
{
	GString *j = g_string_new("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
	int maxrank = -1;
	const struct runner_op_span *sp;

	g_assert(out->run.spans && out->busy);
	for (guint i = 0; i < out->run.spans->len; i++)
		maxrank = MAX(maxrank, g_array_index(out->run.spans, struct runner_op_span, i).rank);
	/* names: process = rank (or channels), thread = lane (or channel) */
	for (int r = 0; r <= maxrank; r++)
		g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, "
				       "\"args\": {\"name\": \"rank %d\"}},\n", r, r);
	g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, "
			       "\"args\": {\"name\": \"channels\"}},\n", maxrank + 1);
	for (guint i = 0; i < out->channels->len; i++) {
		const struct channel_stats *c = &g_array_index(out->channels, struct channel_stats, i);

		g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, "
				       "\"tid\": %u, \"args\": {\"name\": \"%d -> %d\"}},\n",
				       maxrank + 1, i, c->src, c->dst);
	}
	for (guint i = 0; i < out->run.spans->len; i++) {
		sp = &g_array_index(out->run.spans, struct runner_op_span, i);
		g_string_append_printf(j, "{\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"op\", "
				       "\"pid\": %d, \"tid\": %u, \"ts\": %.6f, \"dur\": %.6f, "
				       "\"args\": {\"op\": %u, \"step\": %u, \"peer\": %d, \"bytes\": %"
				       G_GUINT64_FORMAT "}},\n",
				       sched_op_kind_name(sp->kind), sp->rank, sp->lane,
				       (double)sp->start_ps / 1e6, (double)(sp->end_ps - sp->start_ps) / 1e6,
				       sp->op, sp->step, sp->peer, sp->bytes);
	}
	for (guint i = 0; i < out->busy->len; i++) {
		const struct chan_busy *b = &g_array_index(out->busy, struct chan_busy, i);

		g_string_append_printf(j, "{\"ph\": \"X\", \"name\": \"busy\", \"cat\": \"channel\", "
				       "\"pid\": %d, \"tid\": %d, \"ts\": %.6f, \"dur\": %.6f},\n",
				       maxrank + 1, b->chan, (double)b->start_ps / 1e6,
				       (double)(b->end_ps - b->start_ps) / 1e6);
	}
	g_string_append_printf(j, "{\"ph\": \"M\", \"name\": \"g5\", \"pid\": 0, \"args\": "
			       "{\"collective\": \"%s\", \"algo\": \"%s\", \"latency_us\": %.6f}}\n]}\n",
			       collective, algo, out->latency_us);
	bool ok = files_write(path, j->str, j->len, error);

	g_string_free(j, TRUE);
	return ok;
}
