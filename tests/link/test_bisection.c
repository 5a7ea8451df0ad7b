/* Bisection bandwidth of the direct and dragonfly topologies, measured at
 * packet level against its analytical value: every rank sends one message
 * of `bytes` across the bisection (a permutation whose every flow crosses it
 * once, half of them each way) under the topology's own routing, and the
 * bytes crossing one way per second must equal the analytical one-way
 * bisection within 2 %:
 *   k-ary n-cube torus (k even)  2 k^(n-1) B   (the cut crosses every ring of
 *                                              the cut dimension twice)
 *   k-ary n-cube mesh (k even)     k^(n-1) B
 *   dragonfly (g even)           (g/2)^2 B_global  (one global link per pair
 *                                              of groups across the halves)
 * with B a channel's payload rate, bandwidth x P / (P + H) for payload P and
 * header H. The permutations:
 *   torus, mesh: x -> x with its last coordinate moved by k/2 (dimension-
 *     order routes move only that coordinate; on the torus the ring's
 *     parity rule sends even sources one way and odd ones the other, so
 *     every link of the cut dimension carries k/4 flows each way);
 *   dragonfly: local rank l (0..a p-1) of group i in one half sends to
 *     local rank l of group g/2 + (i + l) mod (g/2) of the other half (and
 *     the mirror), which spreads a group's a p flows evenly over its g/2
 *     global links into the other half; local and terminal links are made
 *     16 x faster, so the global links are the bottleneck. */
#include <glib.h>
#include <math.h>

#include "sim/core/sim.h"
#include "sim/link/link.h"
#include "sim/link/topos.h"
#include "tests/support/perm.h"


/* Runs the permutation dst on c and returns the one-way bytes per second
 * across the bisection: N/2 flows of `bytes` over the time the last one
 * arrived. */
static double crossing_rate(const struct fabric_config *c, const int *dst, uint64_t bytes)
{
	struct perm p = { .left = c->nranks, .s = sim_new(1) };
	g_autoptr(GError) err = NULL;
	struct fabric *f = fabric_new(p.s, c, &err);

	g_assert_no_error(err);
	for (int i = 0; i < c->nranks; i++)
		fabric_send(f, i, dst[i], bytes, ROUTE_SHORTEST, perm_done, &p);
	sim_run(p.s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpint(p.left, ==, 0);
	fabric_free(f);
	sim_free(p.s);
	return c->nranks / 2.0 * (double)bytes / ((double)p.last * 1e-12);
}

static double payload_rate(const struct link_params *l)
{
	return (double)l->bw_bytes_per_s * l->max_payload_bytes /
	       (l->max_payload_bytes + l->header_bytes);
}

static void check(const char *what, double got, double want)
{
	g_test_message("%s bisection: measured %.3f GB/s, analytical %.3f GB/s (%+.3f %%)", what,
		       got / 1e9, want / 1e9, (got / want - 1) * 100);
	g_assert_cmpfloat(fabs(got / want - 1), <, 0.02);
}

static struct fabric_config base(const struct topo_ops *o, int n)
{
	struct fabric_config c = { .topo = o, .nranks = n };

	link_params_default(&c.link);
	c.link.lat_ps = SIM_NS(10);
	c.switch_link = c.link;
	return c;
}

/* A k-ary n-cube of `ops` (torus or mesh), k even. */
static void cube_check(const struct topo_ops *ops, int k, int n, double cut_links)
{
	int nr = 1, st = 1;

	for (int i = 0; i < n; i++)
		nr *= k;
	struct fabric_config c = base(ops, nr);
	int *dst = g_new(int, nr);

	for (int i = 0; i < n; i++)
		c.dims[i] = k;
	for (int i = 0; i + 1 < n; i++)
		st *= k;
	for (int r = 0; r < nr; r++) {
		int z = r / st;

		dst[r] = r + ((z + k / 2) % k - z) * st;
	}
	g_autofree char *what = g_strdup_printf("%s %d-ary %d-cube", topo_name(ops), k, n);

	check(what, crossing_rate(&c, dst, 4u << 20), cut_links * payload_rate(&c.link));
	g_free(dst);
}

static void test_torus(void)
{
	cube_check(&topo_torus_ops, 4, 3, 2 * 16);  /* 4x4x4: 2 k^2 links */
	cube_check(&topo_torus_ops, 8, 2, 2 * 8);   /* 8x8 */
}

static void test_mesh(void)
{
	cube_check(&topo_mesh_ops, 8, 2, 8);        /* 8x8: k links */
	cube_check(&topo_mesh_ops, 4, 3, 16);       /* 4x4x4: k^2 links */
}

static void test_dragonfly(void)
{
	enum { G = 8, A = 4, P = 2, N = G * A * P, H = G / 2, M = A * P };
	struct fabric_config c = base(&topo_dragonfly_ops, N);
	int dst[N];

	c.groups = G;
	c.group_routers = A;
	c.router_ranks = P;
	c.scaleout_link = c.link;
	c.switch_link.bw_bytes_per_s = 16 * c.link.bw_bytes_per_s;
	for (int r = 0; r < N; r++) {
		int i = r / M, l = r % M, half = i < H ? 0 : 1, j = (i - half * H + l) % H;

		dst[r] = ((1 - half) * H + j) * M + l;
	}
	/* a permutation */
	for (int r = 0; r < N; r++)
		for (int q = 0; q < r; q++)
			g_assert_cmpint(dst[q], !=, dst[r]);
	check("dragonfly 8 groups x 4 routers x 2 ranks", crossing_rate(&c, dst, 4u << 20),
	      (double)H * H * payload_rate(&c.scaleout_link));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/bisection/torus", test_torus);
	g_test_add_func("/bisection/mesh", test_mesh);
	g_test_add_func("/bisection/dragonfly", test_dragonfly);
	return g_test_run();
}
