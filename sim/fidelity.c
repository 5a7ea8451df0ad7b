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
		    double times_us[2], GError **error)
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
		if (!ok)
			g_prefix_error(error, "%s fidelity: ", fid ? "flow" : "packet");
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
		if (times_us) {
			times_us[0] = out[0].latency_us;
			times_us[1] = out[1].latency_us;
		}
	}
	simulate_outcome_clear(&out[0]);
	simulate_outcome_clear(&out[1]);
	platform_release(&pl);
	return ok;
}

static guint fastest(const struct fidelity_time *t, guint n, bool flow)
{
	guint best = 0;

	for (guint i = 1; i < n; i++)
		if ((flow ? t[i].flow_us : t[i].packet_us) <
		    (flow ? t[best].flow_us : t[best].packet_us))
			best = i;
	return best;
}

double fidelity_picks_add(struct fidelity_picks *p, const struct fidelity_where *where,
			  const struct fidelity_time *t, guint n, guint *flow_pick, guint *packet_pick)
{
	if (n < 2)
		return 0;
	guint f = fastest(t, n, true), k = fastest(t, n, false);
	double loss = t[f].packet_us / t[k].packet_us - 1;

	if (flow_pick)
		*flow_pick = f;
	if (packet_pick)
		*packet_pick = k;
	if (loss > p->max_loss || !p->points) {
		p->max_loss = loss;
		p->max_at = *where;
		p->max_flow_pick = t[f].algo;
		p->max_packet_pick = t[k].algo;
	}
	p->points++;
	p->agree += loss == 0;
	p->near += loss <= FIDELITY_PICK_NEAR;
	p->sum_log_loss += log1p(loss);
	return loss;
}

void fidelity_picks_merge(struct fidelity_picks *p, const struct fidelity_picks *o)
{
	if (!o->points)
		return;
	if (o->max_loss > p->max_loss || !p->points) {
		p->max_loss = o->max_loss;
		p->max_at = o->max_at;
		p->max_flow_pick = o->max_flow_pick;
		p->max_packet_pick = o->max_packet_pick;
	}
	p->points += o->points;
	p->agree += o->agree;
	p->near += o->near;
	p->sum_log_loss += o->sum_log_loss;
}

double fidelity_picks_geomean_loss(const struct fidelity_picks *p)
{
	return p->points ? expm1(p->sum_log_loss / p->points) : 0;
}
