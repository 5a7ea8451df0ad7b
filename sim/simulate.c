/* One collective through every layer: schedule -> runner -> PAXI -> fabric ->
 * engine, then metrics. */
#include "sim/simulate.h"

bool simulate(const struct sim_job *job, struct sim_outcome *out, GError **error)
{
	const struct platform *pl = job->plat;
	const struct algo_ops *a = NULL;
	struct sched *built = NULL;
	const struct sched *s = job->schedule;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (job->elem_bytes == 0 || job->bytes % job->elem_bytes) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "size %" G_GUINT64_FORMAT " is not a multiple of the element size %u",
			    job->bytes, job->elem_bytes);
		return false;
	}
	if (!s) {
		struct algo_params p = job->params;

		a = algo_find(job->coll, job->algo, error);
		if (!a)
			return false;
		p.nranks = pl->fabric.nranks;
		built = algo_build(a, job->coll, &p, error);
		if (!built)
			return false;
		s = built;
	}
	if (s->nranks != pl->fabric.nranks) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "the schedule has %d ranks but the platform %d", s->nranks,
			    pl->fabric.nranks);
		goto out;
	}
	struct sim *sim = sim_new(job->seed);
	struct fabric *f = fabric_new(sim, &pl->fabric, error);
	struct paxi *px = f ? paxi_new(sim, f, &pl->paxi, error) : NULL;

	if (px) {
		double t0 = (double)g_get_monotonic_time() / 1e6;

		ok = runner_run(px, s, job->bytes, job->elem_bytes, pl->overhead_ps, &out->run, error);
		out->wall_s = (double)g_get_monotonic_time() / 1e6 - t0;
	}
	if (ok) {
		int n = s->nranks;
		uint64_t beta = pl->beta_bytes_per_s ? pl->beta_bytes_per_s
						     : pl->fabric.link.bw_bytes_per_s;
		double lat_s = (double)out->run.latency_ps / 1e12;

		out->latency_us = lat_s * 1e6;
		out->algbw_gbps = lat_s > 0 ? (double)job->bytes / lat_s / 1e9 : 0;
		out->busbw_gbps = out->algbw_gbps * platform_busbw_factor(s->coll, n);
		out->theory_us = a ? algo_theory_us(a, s->coll, n, job->bytes,
						    (double)pl->overhead_ps / 1e6,
						    (double)pl->alpha_ps / 1e6, (double)beta)
				   : 0;
		out->steps = s->nsteps;
		out->events = sim_counters(sim)->executed;
		out->sim_end_ps = sim_now(sim);
		out->paxi = *paxi_stats(px);
		out->channels = g_array_new(FALSE, TRUE, sizeof(struct channel_stats));
		g_array_set_size(out->channels, fabric_channels(f));
		for (int i = 0; i < fabric_channels(f); i++)
			fabric_channel_stats(f, i, &g_array_index(out->channels, struct channel_stats, i));
	}
	paxi_free(px);
	fabric_free(f);
	sim_free(sim);
out:
	sched_free(built);
	return ok;
}

void sim_outcome_clear(struct sim_outcome *out)
{
	runner_result_clear(&out->run);
	if (out->channels)
		g_array_unref(out->channels);
	out->channels = NULL;
}
