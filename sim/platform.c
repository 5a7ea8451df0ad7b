/* The seed platform and small helpers shared by the front end. */
#include "sim/platform.h"

#include <string.h>

#include "sim/link/topos.h"

G_DEFINE_QUARK(g5-platform-error-quark, platform_error)

void platform_init_default(struct platform *p)
{
	memset(p, 0, sizeof(*p));
	p->name = g_strdup("seed-ring8");
	p->fabric.topo = &topo_ring_ops;
	p->fabric.nranks = 8;
	link_params_default(&p->fabric.link);
	p->fabric.switch_link = p->fabric.link;
	p->fabric.scaleout_link = p->fabric.link;
	/* The memory side feeds two ports at full rate with some margin. */
	p->fabric.node.inject_bytes_per_s = 1000000000000ull;
	p->fabric.node.eject_bytes_per_s = 1000000000000ull;
	paxi_params_default(&p->paxi);
	p->overhead_ps = SIM_US(26);
	p->alpha_ps = SIM_US(2);
	p->beta_bytes_per_s = 0;
	p->overhead_mpi_ps = 0;
	p->channel_bytes = 32768;
	p->max_channels = 0;
	p->nccl = (struct impl_params){ .channel_bytes = 8192 };
}

const char *platform_mode_name(enum run_mode m)
{
	return m == MODE_MPI ? "mpi" : "single";
}

bool platform_mode_parse(const char *name, enum run_mode *out)
{
	if (!strcmp(name, "single"))
		*out = MODE_SINGLE;
	else if (!strcmp(name, "mpi"))
		*out = MODE_MPI;
	else
		return false;
	return true;
}

void platform_impl(const struct platform *p, bool nccl, struct impl_params *out)
{
	*out = (struct impl_params){
		.overhead_ps = p->overhead_ps,
		.overhead_mpi_ps = p->overhead_mpi_ps,
		.issue_ps = p->issue_ps,
		.issue_mpi_ps = p->issue_mpi_ps,
		.channel_bytes = p->channel_bytes,
		.max_channels = p->max_channels,
		.channel_bw_bytes_per_s = p->channel_bw_bytes_per_s,
		.channel_lat_ps = p->channel_lat_ps,
		.local_lat_ps = p->local_lat_ps,
		.send_done = p->send_done,
		.channel_spread_ps = p->channel_spread_ps,
		.flag_poll = p->flag_poll,
		.ready_lat_ps = p->ready_lat_ps,
	};
	if (!nccl)
		return;
	out->channel_bytes = p->nccl.channel_bytes;
	out->max_channels = p->nccl.max_channels;
	out->channel_bw_bytes_per_s = 0;
	out->channel_lat_ps = 0;
	out->local_lat_ps = 0;
	out->send_done = PAXI_SEND_DONE_RESPONSE;
	out->channel_spread_ps = 0;
	out->flag_poll = IMPL_FLAG_POLL_CTRL_PROC;
	out->ready_lat_ps = 0;
	if (p->nccl.overhead_ps) {
		out->overhead_ps = p->nccl.overhead_ps;
		out->overhead_mpi_ps = p->nccl.overhead_mpi_ps;
	}
	out->issue_ps = p->nccl.issue_ps;
	out->issue_mpi_ps = p->nccl.issue_mpi_ps;
	out->issue_task_ps = p->nccl.issue_task_ps;
	out->issue_task_mpi_ps = p->nccl.issue_task_mpi_ps;
}

sim_time_t platform_overhead(const struct impl_params *impl, enum run_mode m)
{
	return m == MODE_MPI && impl->overhead_mpi_ps ? impl->overhead_mpi_ps : impl->overhead_ps;
}

sim_time_t platform_issue(const struct impl_params *impl, enum run_mode m)
{
	return m == MODE_MPI && impl->issue_mpi_ps ? impl->issue_mpi_ps : impl->issue_ps;
}

sim_time_t platform_issue_tasks(const struct impl_params *impl, enum run_mode m,
				const uint32_t *tasks, int n)
{
	sim_time_t per = m == MODE_MPI ? impl->issue_task_mpi_ps : impl->issue_task_ps;
	uint64_t extra = 0;

	for (int r = 0; r < n; r++) {
		uint64_t e = tasks[r] > 1 ? tasks[r] - 1 : 0;

		extra = m == MODE_MPI ? MAX(extra, e) : extra + e;
	}
	return per * extra;
}

uint32_t platform_channels(const struct impl_params *impl, uint64_t bytes)
{
	if (!impl->max_channels)
		return 0;
	uint64_t c = bytes / MAX(impl->channel_bytes, 1);

	return (uint32_t)CLAMP(c, 1, impl->max_channels);
}

void platform_release(struct platform *p)
{
	g_free(p->name);
	g_free((gpointer)p->fabric.edges);
	g_free((gpointer)p->fabric.switches);
	g_free((gpointer)p->fabric.ports);
	memset(p, 0, sizeof(*p));
}

int platform_node_ranks(const struct platform *p)
{
	return fabric_node_ranks(&p->fabric);
}

double platform_busbw_factor(enum coll c, int n)
{
	return ir_busbw_factor(c, n);
}
