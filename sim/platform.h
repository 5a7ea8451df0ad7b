/* sim/platform — what the simulated machine is: the fabric (topology, links,
 * nodes), PAXI and CDMA parameters, software overhead, and the alpha-beta
 * reference of the analytical model. The default is the seed platform of
 * DESIGN.md: an 8-rank bidirectional ring of 450 GB/s links, 26 us software
 * overhead per collective, alpha = 2 us, beta = the link bandwidth. */
#ifndef G5_SIM_PLATFORM_H
#define G5_SIM_PLATFORM_H

#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "sim/paxi/paxi.h"

struct platform {
	char *name;                  /* owned */
	struct fabric_config fabric; /* fabric.edges owned (TOPO_EDGES) */
	struct paxi_params paxi;
	sim_time_t overhead_ps;      /* software (launch) overhead per collective */
	sim_time_t alpha_ps;         /* alpha-beta: per-step latency */
	uint64_t beta_bytes_per_s;   /* alpha-beta: bandwidth; 0 = the link's */
};

void platform_init_default(struct platform *p);
void platform_release(struct platform *p);

/* The name of a topology kind ("ring", "ring-uni", "fullmesh", ...) and back. */
const char *platform_topo_name(enum topo_kind k);
bool platform_topo_parse(const char *name, enum topo_kind *out, GError **error);

/* Busbw factor of a collective on n ranks (DESIGN.md "Sizes and metrics"). */
double platform_busbw_factor(enum coll c, int nranks);

#endif
