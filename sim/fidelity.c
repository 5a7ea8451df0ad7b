/* Flow fidelity against packet fidelity (fidelity.h): each point is one job
 * of simulate() run twice on the same platform, once per fidelity, with the
 * event limit lifted (the matrix decides what runs). */
#include "sim/fidelity.h"

#include <math.h>

#include "sim/config.h"
#include "sim/simulate.h"

double fidelity_geomean_err(const struct fidelity_err *e)
{
	return e->points ? exp(e->sum_abs_log / e->points) - 1 : 0;
}

void fidelity_err_merge(struct fidelity_err *e, const struct fidelity_err *o)
{
	if (o->max_err > e->max_err || !e->points) {
		e->max_err = o->max_err;
		e->max_bytes = o->max_bytes;
		e->max_ranks = o->max_ranks;
	}
	e->points += o->points;
	e->sum_abs_log += o->sum_abs_log;
	e->packet_wall_s += o->packet_wall_s;
	e->flow_wall_s += o->flow_wall_s;
	e->packet_events += o->packet_events;
	e->flow_events += o->flow_events;
}

bool fidelity_point(const struct topo_ops *kind, int ranks, enum coll c, const char *algo,
		    const struct platform *base, uint64_t bytes, struct fidelity_err *e,
		    GError **error)
{
	struct platform pl;
	struct simulate_outcome out[2] = { { 0 } };
	bool ok = true;

	if (base)
		config_platform_copy(&pl, base);
	else
		platform_init_default(&pl);
	pl.fabric.topo = kind;
	pl.fabric.nranks = ranks;
	for (int fid = 0; fid < 2 && ok; fid++) {
		struct simulate_job job = {
			.plat = &pl, .coll = c, .algo = algo, .bytes = bytes, .elem_bytes = 4,
			.params = { .nranks = ranks, .nchunks = 1, .root = 0, .peer = 1 },
			.seed = 1, .proto = SIMULATE_PROTO_AUTO, .max_events = UINT64_MAX,
			/* only the latency is compared */
			.no_steps = true, .no_breakdown = true,
		};

		pl.fabric.fidelity = fid ? LINK_FIDELITY_FLOW : LINK_FIDELITY_PACKET;
		ok = simulate(&job, &out[fid], error);
	}
	if (ok) {
		double ratio = out[1].latency_us / out[0].latency_us;
		double err = fabs(ratio - 1);

		if (err > e->max_err || !e->points) {
			e->max_err = err;
			e->max_bytes = bytes;
			e->max_ranks = ranks;
		}
		e->points++;
		e->sum_abs_log += fabs(log(ratio));
		e->packet_wall_s += out[0].wall_s;
		e->flow_wall_s += out[1].wall_s;
		e->packet_events += out[0].events;
		e->flow_events += out[1].events;
	}
	simulate_outcome_clear(&out[0]);
	simulate_outcome_clear(&out[1]);
	platform_release(&pl);
	return ok;
}
