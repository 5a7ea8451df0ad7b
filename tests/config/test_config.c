/* Tests of sim/config: the bad-file corpus (tests/config/bad/NAME.yaml must
 * fail with exactly the message in NAME.expect), the platform files (the seed
 * file equals the built-in default; the examples load to the expected
 * fields), experiment files (fields, size ranges, sweep expansion, point
 * platforms, AllGatherV weights). Run from the repository root. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/link/topos.h"
#include "sim/config.h"

/* g_ptr_array_sort hands pointers to the elements. */
static gint cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void load_any(const char *path, GError **error)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (g_str_has_prefix(base, "exp-")) {
		struct experiment *e = config_experiment_load(path, error);

		experiment_free(e);
	} else {
		struct platform p;

		if (config_platform_load(path, &p, error))
			platform_release(&p);
	}
}

static void test_bad_corpus(void)
{
	const char *dir = "tests/config/bad";
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const char *n;

	g_assert_nonnull(d);
	while ((n = g_dir_read_name(d)))
		if (g_str_has_suffix(n, ".yaml"))
			g_ptr_array_add(names, g_strdup(n));
	g_ptr_array_sort(names, cmp_names);
	/* The corpus is large; a lost directory must not pass silently. */
	g_assert_cmpuint(names->len, >=, 60);
	for (guint i = 0; i < names->len; i++) {
		g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL);
		g_autofree char *stem = g_strndup(path, strlen(path) - 5);
		g_autofree char *expect_path = g_strconcat(stem, ".expect", NULL);
		g_autofree char *expect = NULL;
		GError *err = NULL;

		g_assert_true(g_file_get_contents(expect_path, &expect, NULL, NULL));
		g_strchomp(expect);
		load_any(path, &err);
		if (!err)
			g_error("%s loaded, but must fail with: %s", path, expect);
		g_assert_true(err->domain == CONFIG_ERROR);
		g_assert_cmpstr(err->message, ==, expect);
		g_error_free(err);
	}
}

static struct platform load_ok(const char *path);

/* Every committed platform file loads; the AllGatherV study's three have
 * the shapes their comments describe. */
static void test_every_platform(void)
{
	g_autoptr(GDir) d = g_dir_open("configs/platforms", 0, NULL);
	const char *n;
	int loaded = 0;

	g_assert_nonnull(d);
	while ((n = g_dir_read_name(d))) {
		if (!g_str_has_suffix(n, ".yaml"))
			continue;
		g_autofree char *path = g_build_filename("configs/platforms", n, NULL);
		struct platform p = load_ok(path);

		platform_release(&p);
		loaded++;
	}
	g_assert_cmpint(loaded, >=, 25);

	struct platform p = load_ok("configs/platforms/cluster16-edr.yaml");

	g_assert_true(p.fabric.topo == &topo_switch_ops);
	g_assert_cmpint(p.fabric.nranks, ==, 16);
	g_assert_cmpuint(p.fabric.switch_link.bw_bytes_per_s, ==, 12500000000ull);
	platform_release(&p);

	/* two quads of 4, each rank one cross link: 6 + 6 + 4 edges, every
	 * rank 4 links of 20 GB/s, ring neighbours linked */
	p = load_ok("configs/platforms/dgx1.yaml");
	g_assert_true(p.fabric.topo == &topo_edges_ops);
	g_assert_cmpint(p.fabric.nranks, ==, 8);
	g_assert_cmpint(p.fabric.nedges, ==, 16);
	int degree[8] = { 0 };
	bool ring[8] = { false };

	for (int i = 0; i < p.fabric.nedges; i++) {
		const struct topo_edge *e = &p.fabric.edges[i];

		g_assert_cmpuint(e->bw_bytes_per_s, ==, 20000000000ull);
		degree[e->a]++, degree[e->b]++;
		if ((e->a + 1) % 8 == e->b)
			ring[e->a] = true;
		if ((e->b + 1) % 8 == e->a)
			ring[e->b] = true;
	}
	for (int r = 0; r < 8; r++) {
		g_assert_cmpint(degree[r], ==, 4);
		g_assert_true(ring[r]);
	}
	platform_release(&p);

	/* 16 GPUs, 8 board switches, 4 PLX, 2 CPUs: a tree (edges = nodes - 1) */
	p = load_ok("configs/platforms/cs-storm16.yaml");
	g_assert_true(p.fabric.topo == &topo_edges_ops);
	g_assert_cmpint(p.fabric.nranks, ==, 16);
	g_assert_cmpint(p.fabric.nswitches, ==, 14);
	g_assert_cmpint(p.fabric.nedges, ==, 16 + 14 - 1);
	platform_release(&p);
}

static void test_seed_equals_default(void)
{
	struct platform def, got;
	GError *err = NULL;

	platform_init_default(&def);
	g_assert_true(config_platform_load("configs/platforms/seed-ring8.yaml", &got, &err));
	g_assert_no_error(err);
	g_assert_cmpstr(got.name, ==, def.name);
	g_assert_true(got.fabric.topo == def.fabric.topo);
	g_assert_cmpint(got.fabric.nranks, ==, def.fabric.nranks);
	g_assert_cmpint(got.fabric.dims[0], ==, def.fabric.dims[0]);
	g_assert_cmpint(got.fabric.dims[1], ==, def.fabric.dims[1]);
	g_assert_cmpint(got.fabric.nedges, ==, 0);
	g_assert_null(got.fabric.edges);
	/* Field by field, so a mismatch names the field. */
	const struct link_params *l[2][2] = {
		{ &got.fabric.link, &def.fabric.link },
		{ &got.fabric.switch_link, &def.fabric.switch_link },
	};
	for (int i = 0; i < 2; i++) {
		g_assert_cmpuint(l[i][0]->bw_bytes_per_s, ==, l[i][1]->bw_bytes_per_s);
		g_assert_cmpuint(l[i][0]->lat_ps, ==, l[i][1]->lat_ps);
		g_assert_cmpuint(l[i][0]->header_bytes, ==, l[i][1]->header_bytes);
		g_assert_cmpuint(l[i][0]->max_payload_bytes, ==, l[i][1]->max_payload_bytes);
		g_assert_cmpuint(l[i][0]->credits, ==, l[i][1]->credits);
		g_assert_cmpuint(l[i][0]->credit_return_ps, ==, l[i][1]->credit_return_ps);
		g_assert_cmpuint(l[i][0]->gbn_window, ==, l[i][1]->gbn_window);
		g_assert_cmpuint(l[i][0]->gbn_timeout_ps, ==, l[i][1]->gbn_timeout_ps);
		g_assert_cmpfloat(l[i][0]->error_rate, ==, l[i][1]->error_rate);
	}
	g_assert_cmpuint(got.fabric.node.inject_bytes_per_s, ==, def.fabric.node.inject_bytes_per_s);
	g_assert_cmpuint(got.fabric.node.eject_bytes_per_s, ==, def.fabric.node.eject_bytes_per_s);
	g_assert_cmpuint(got.paxi.cdma_units, ==, def.paxi.cdma_units);
	g_assert_cmpuint(got.paxi.slots, ==, def.paxi.slots);
	g_assert_cmpuint(got.paxi.setup_ps, ==, def.paxi.setup_ps);
	g_assert_cmpuint(got.paxi.ctrl_proc_ps, ==, def.paxi.ctrl_proc_ps);
	g_assert_cmpuint(got.paxi.slice_bytes, ==, def.paxi.slice_bytes);
	g_assert_cmpuint(got.paxi.reduce_bytes_per_s, ==, def.paxi.reduce_bytes_per_s);
	g_assert_cmpuint(got.overhead_ps, ==, def.overhead_ps);
	g_assert_cmpuint(got.alpha_ps, ==, def.alpha_ps);
	g_assert_cmpuint(got.beta_bytes_per_s, ==, def.beta_bytes_per_s);
	platform_release(&got);
	platform_release(&def);
}

static struct platform load_ok(const char *path)
{
	struct platform p;
	GError *err = NULL;

	if (!config_platform_load(path, &p, &err))
		g_error("%s", err->message);
	return p;
}

static void test_examples(void)
{
	struct platform p;

	p = load_ok("configs/platforms/torus16.yaml");
	g_assert_true(p.fabric.topo == &topo_torus_ops);
	g_assert_cmpint(p.fabric.nranks, ==, 16);
	g_assert_cmpint(p.fabric.dims[0], ==, 4);
	g_assert_cmpint(p.fabric.dims[1], ==, 4);
	platform_release(&p);

	p = load_ok("configs/platforms/edges.yaml");
	g_assert_true(p.fabric.topo == &topo_edges_ops);
	g_assert_cmpint(p.fabric.nranks, ==, 8); /* highest rank named + 1 */
	g_assert_cmpint(p.fabric.nedges, ==, 10);
	g_assert_cmpint(p.fabric.edges[8].a, ==, 0);
	g_assert_cmpint(p.fabric.edges[8].b, ==, 4);
	g_assert_cmpuint(p.fabric.edges[8].bw_bytes_per_s, ==, 100000000000ull);
	g_assert_cmpuint(p.fabric.edges[8].lat_ps, ==, 500000);
	g_assert_cmpuint(p.fabric.edges[0].bw_bytes_per_s, ==, 0);          /* the link's */
	g_assert_cmpuint(p.fabric.edges[0].lat_ps, ==, SIM_TIME_MAX);        /* the link's */
	platform_release(&p);

	/* non-rank nodes: 10 nodes less 2 switches; written and read back */
	p = load_ok("configs/platforms/two-switch.yaml");
	g_assert_cmpint(p.fabric.nranks, ==, 8);
	g_assert_cmpint(p.fabric.nswitches, ==, 2);
	g_assert_cmpint(p.fabric.switches[0], ==, 8);
	g_assert_cmpint(p.fabric.switches[1], ==, 9);
	{
		g_autofree char *dir = g_dir_make_tmp("g5-config-XXXXXX", NULL);
		g_autofree char *path = g_build_filename(dir, "p.yaml", NULL);
		g_autoptr(GError) err = NULL;
		struct platform q;

		g_assert_true(config_platform_write(&p, "round trip", path, &err));
		g_assert_no_error(err);
		q = load_ok(path);
		g_assert_cmpint(q.fabric.nranks, ==, 8);
		g_assert_cmpint(q.fabric.nswitches, ==, 2);
		g_assert_cmpint(q.fabric.switches[1], ==, 9);
		g_assert_cmpint(q.fabric.nedges, ==, 9);
		platform_release(&q);
		g_unlink(path);
		g_rmdir(dir);
	}
	platform_release(&p);

	/* the leaf-spine, per-port and tier keys, written and read back */
	static const char *const more[] = { "configs/platforms/leafspine16.yaml",
					    "configs/platforms/switch8-ports.yaml",
					    "configs/platforms/dgx-h200x16-rails-2to1.yaml" };

	for (size_t i = 0; i < G_N_ELEMENTS(more); i++) {
		g_autofree char *dir = g_dir_make_tmp("g5-config-XXXXXX", NULL);
		g_autofree char *path = g_build_filename(dir, "p.yaml", NULL);
		g_autoptr(GError) err = NULL;
		struct platform q;

		p = load_ok(more[i]);
		g_assert_true(config_platform_write(&p, NULL, path, &err));
		q = load_ok(path);
		g_assert_true(q.fabric.topo == p.fabric.topo);
		g_assert_cmpint(q.fabric.leaves, ==, p.fabric.leaves);
		g_assert_cmpint(q.fabric.spines, ==, p.fabric.spines);
		g_assert_cmpfloat(q.fabric.oversub, ==, p.fabric.oversub);
		g_assert_cmpuint(q.fabric.routing, ==, p.fabric.routing);
		g_assert_cmpint(q.fabric.nports, ==, p.fabric.nports);
		for (int k = 0; k < p.fabric.nports; k++)
			g_assert_cmpuint(q.fabric.ports[k], ==, p.fabric.ports[k]);
		g_assert_cmpint(q.fabric.node_ranks, ==, p.fabric.node_ranks);
		g_assert_cmpint(memcmp(&q.fabric.scaleout_link, &p.fabric.scaleout_link,
				       sizeof(struct link_params)), ==, 0);
		g_assert_cmpint(memcmp(&q.fabric.switch_link, &p.fabric.switch_link,
				       sizeof(struct link_params)), ==, 0);
		platform_release(&q);
		platform_release(&p);
		g_unlink(path);
		g_rmdir(dir);
	}
	p = load_ok("configs/platforms/leafspine16.yaml");
	g_assert_true(p.fabric.topo == &topo_leafspine_ops);
	g_assert_cmpint(p.fabric.leaves, ==, 4);
	g_assert_cmpint(p.fabric.spines, ==, 4);
	g_assert_cmpfloat(p.fabric.oversub, ==, 1);
	g_assert_cmpuint(p.fabric.routing, ==, TOPO_ROUTING_ECMP);
	platform_release(&p);
	p = load_ok("configs/platforms/switch8-ports.yaml");
	g_assert_cmpint(p.fabric.nports, ==, 8);
	g_assert_cmpuint(p.fabric.ports[6], ==, 100000000000ull);
	platform_release(&p);

	/* two tiers: the DGX H200 node tier, 400 Gb/s rails */
	for (int r = 1; r <= 2; r++) {
		g_autofree char *path = g_strdup_printf("configs/platforms/dgx-h200x16-rails-%dto1.yaml", r);
		struct platform node = load_ok("configs/platforms/dgx-h200.yaml");

		p = load_ok(path);
		g_assert_true(p.fabric.topo == &topo_tiers_ops);
		g_assert_cmpint(p.fabric.nranks, ==, 128);
		g_assert_cmpint(platform_node_ranks(&p), ==, 8);
		g_assert_cmpint(p.fabric.leaves, ==, 8);
		g_assert_cmpint(p.fabric.spines, ==, 16 / r);
		g_assert_cmpfloat(p.fabric.oversub, ==, r);
		g_assert_cmpuint(p.fabric.scaleout_link.bw_bytes_per_s, ==, 50000000000ull);
		g_assert_cmpuint(p.fabric.scaleout_link.lat_ps, ==, 600000);
		g_assert_cmpuint(p.fabric.scaleout_link.header_bytes, ==, 26);
		g_assert_cmpuint(p.fabric.scaleout_link.max_payload_bytes, ==, 4096);
		/* the node tier and everything global is the DGX H200's */
		g_assert_cmpint(memcmp(&p.fabric.switch_link, &node.fabric.switch_link,
				       sizeof(struct link_params)), ==, 0);
		g_assert_cmpint(memcmp(&p.paxi, &node.paxi, sizeof(p.paxi)), ==, 0);
		g_assert_cmpuint(p.overhead_ps, ==, node.overhead_ps);
		g_assert_cmpint(platform_node_ranks(&node), ==, 0);
		platform_release(&node);
		platform_release(&p);
	}
	p = load_ok("configs/platforms/dgx-h100.yaml");
	g_assert_true(p.fabric.topo == &topo_switch_ops);
	g_assert_cmpint(p.fabric.nranks, ==, 8);
	g_assert_cmpuint(p.paxi.reduce_bytes_per_s, ==, 1430000000000ull * 335 / 480);
	platform_release(&p);

	p = load_ok("configs/platforms/switch8.yaml");
	g_assert_true(p.fabric.topo == &topo_switch_ops);
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s, ==, 450000000000ull);
	g_assert_cmpuint(p.fabric.switch_link.bw_bytes_per_s, ==, 900000000000ull);
	g_assert_cmpuint(p.fabric.switch_link.lat_ps, ==, 150000);
	g_assert_cmpuint(p.fabric.switch_link.max_payload_bytes, ==, p.fabric.link.max_payload_bytes);
	platform_release(&p);

	/* Equal cost: each node keeps 2 x 450 GB/s per direction. */
	p = load_ok("configs/platforms/fullmesh8-equal.yaml");
	g_assert_true(p.fabric.topo == &topo_fullmesh_ops);
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s * 7, >=, 900000000000ull - 7);
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s * 7, <=, 900000000000ull);
	platform_release(&p);
	p = load_ok("configs/platforms/hypercube8-equal.yaml");
	g_assert_true(p.fabric.topo == &topo_hypercube_ops);
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s * 3, ==, 900000000000ull);
	platform_release(&p);
	const char *per_link[] = { "configs/platforms/fullmesh8.yaml", "configs/platforms/hypercube8.yaml",
				   "configs/platforms/fullmesh8-450.yaml",
				   "configs/platforms/hypercube8-450.yaml" };
	for (size_t i = 0; i < G_N_ELEMENTS(per_link); i++) {
		p = load_ok(per_link[i]);
		g_assert_cmpuint(p.fabric.link.bw_bytes_per_s, ==, 450000000000ull);
		g_assert_cmpint(p.fabric.nranks, ==, 8);
		platform_release(&p);
	}
}

static void test_switch_twin(void)
{
	const char *follow = "schema_version: 1\nlink:\n  bandwidth: 100GB/s\n  packet: 1KiB\n";
	const char *own = "schema_version: 1\nswitch_link:\n  bandwidth: 800GB/s\n"
			  "link:\n  bandwidth: 100GB/s\n";
	struct platform p;
	GError *err = NULL;

	g_assert_true(config_platform_parse("follow.yaml", follow, strlen(follow), &p, &err));
	g_assert_cmpstr(p.name, ==, "follow");
	g_assert_cmpuint(p.fabric.switch_link.bw_bytes_per_s, ==, 100000000000ull);
	g_assert_cmpuint(p.fabric.switch_link.max_payload_bytes, ==, 1024);
	platform_release(&p);
	g_assert_true(config_platform_parse("own.yaml", own, strlen(own), &p, &err));
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s, ==, 100000000000ull);
	g_assert_cmpuint(p.fabric.switch_link.bw_bytes_per_s, ==, 800000000000ull);
	platform_release(&p);
	g_assert_no_error(err);

	/* scaleout_link follows link the same way, apart from switch_link */
	const char *tiers = "schema_version: 1\ntopology: {kind: tiers, ranks: 16}\n"
			    "scaleout_link:\n  bandwidth: 50GB/s\n"
			    "link:\n  bandwidth: 100GB/s\n  header: 16B\n";

	g_assert_true(config_platform_parse("tiers.yaml", tiers, strlen(tiers), &p, &err));
	g_assert_no_error(err);
	g_assert_cmpuint(p.fabric.scaleout_link.bw_bytes_per_s, ==, 50000000000ull);
	g_assert_cmpuint(p.fabric.scaleout_link.header_bytes, ==, 16);
	g_assert_cmpuint(p.fabric.switch_link.bw_bytes_per_s, ==, 100000000000ull);
	g_assert_cmpint(platform_node_ranks(&p), ==, 4);
	/* a key set later (an override, a sweep, a flag) follows too */
	g_assert_true(config_platform_set(&p, "link.latency", "1us", &err));
	g_assert_cmpuint(p.fabric.scaleout_link.lat_ps, ==, 1000000);
	g_assert_true(config_platform_set_num(&p, "link.packet", 2048, &err));
	g_assert_cmpuint(p.fabric.scaleout_link.max_payload_bytes, ==, 2048);
	g_assert_cmpuint(p.fabric.switch_link.max_payload_bytes, ==, 2048);
	platform_release(&p);
}

static void test_platform_set(void)
{
	struct platform p;
	GError *err = NULL;

	platform_init_default(&p);
	g_assert_true(config_platform_set(&p, "link.bandwidth", "26.56GB/s", &err));
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s, ==, 26560000000ull);
	g_assert_true(config_platform_set(&p, "node.inject", "unlimited", &err));
	g_assert_cmpuint(p.fabric.node.inject_bytes_per_s, ==, 0);
	g_assert_true(config_platform_set(&p, "paxi.ctrl_proc", "0.7us", &err));
	g_assert_cmpuint(p.paxi.ctrl_proc_ps, ==, 700000);
	g_assert_no_error(err);
	g_assert_false(config_platform_set(&p, "link.bandwidth", "fast", &err));
	g_assert_cmpstr(err->message, ==, "'link.bandwidth' must be a bandwidth such as 450GB/s, got 'fast'");
	g_clear_error(&err);
	g_assert_false(config_platform_set(&p, "link.speed", "1GB/s", &err));
	g_assert_cmpstr(err->message, ==, "unknown platform key 'link.speed'");
	g_clear_error(&err);
	g_assert_true(config_platform_key_known("paxi.slice"));
	g_assert_false(config_platform_key_known("topology.dims"));
	platform_release(&p);
}

static void test_sizes(void)
{
	static const struct {
		const char *text;
		guint n;
		uint64_t first, last;
	} cases[] = {
		{ "1KiB..512MiB x2", 20, 1024, 512ull << 20 },
		{ "1MiB..4MiB +1MiB", 4, 1 << 20, 4 << 20 },
		{ "64MiB", 1, 64 << 20, 64 << 20 },
		{ "3..100 x3", 4, 3, 81 },
		{ "1KiB .. 4KiB x 2", 3, 1024, 4096 },
		{ "5..5 x2", 1, 5, 5 },
		{ "1KiB..1MiB", 11, 1024, 1 << 20 }, /* no step: doubling, as the flags */
		{ "1KiB..1GiB x4", 11, 1024, 1ull << 30 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		GError *err = NULL;

		g_assert_true(config_size_range("'sizes'", cases[i].text, a, &err));
		g_assert_no_error(err);
		g_assert_cmpuint(a->len, ==, cases[i].n);
		g_assert_cmpuint(g_array_index(a, uint64_t, 0), ==, cases[i].first);
		g_assert_cmpuint(g_array_index(a, uint64_t, a->len - 1), ==, cases[i].last);
	}
	g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	GError *err = NULL;

	g_assert_false(config_size_range("'sizes'", "1..0 x2", a, &err));
	g_assert_cmpstr(err->message, ==, "'sizes' range '1..0 x2' ends below its start "
		       "(write A..B, A..B xK or A..B +S, e.g. 1KiB..512MiB x4)");
	g_clear_error(&err);
	/* Near the top of uint64: stops without wrapping around. */
	g_array_set_size(a, 0);
	g_assert_true(config_size_range("'sizes'", "9223372036854775808..18446744073709551615 x2", a, &err));
	g_assert_cmpuint(a->len, ==, 1);
	g_array_set_size(a, 0);
	g_assert_true(config_size_range("'sizes'", "18446744073709551614..18446744073709551615 +1", a, &err));
	g_assert_cmpuint(a->len, ==, 2);
	g_assert_no_error(err);
}

static void test_experiment_full(void)
{
	GError *err = NULL;
	struct experiment *e = config_experiment_load("tests/config/good/exp-full.yaml", &err);

	g_assert_no_error(err);
	g_assert_nonnull(e);
	g_assert_cmpstr(e->name, ==, "full");
	g_assert_cmpstr(e->platform_path, ==, "tests/config/good/../../../configs/platforms/switch8.yaml");
	g_assert_nonnull(strstr(e->platform_text, "kind: switch"));
	g_assert_nonnull(strstr(e->text, "name: full"));
	/* overrides, nested and dotted; the switch link follows the link's latency */
	g_assert_cmpuint(e->plat.fabric.link.lat_ps, ==, 200000);
	g_assert_cmpuint(e->plat.fabric.switch_link.lat_ps, ==, 150000); /* explicit in the platform file */
	g_assert_cmpuint(e->plat.paxi.slots, ==, 4);
	g_assert_cmpuint(e->colls->len, ==, 2);
	g_assert_cmpint(g_array_index(e->colls, enum coll, 0), ==, COLL_ALLREDUCE);
	g_assert_cmpint(g_array_index(e->colls, enum coll, 1), ==, COLL_ALLGATHERV);
	g_assert_cmpstr(experiment_baseline(e, COLL_ALLREDUCE), ==, "hd");
	g_assert_cmpstr(experiment_baseline(e, COLL_ALLGATHERV), ==, "ring"); /* hd does not build it */
	g_assert_cmpuint(e->sizes->len, ==, 5);
	g_assert_cmpuint(g_array_index(e->sizes, uint64_t, 4), ==, 1 << 20);
	g_assert_cmpuint(e->ranks->len, ==, 2);
	g_assert_cmpuint(e->dtypes->len, ==, 2);
	g_assert_cmpint(g_array_index(e->dtypes, enum dtype, 1), ==, DTYPE_BF16);
	g_assert_cmpuint(dtype_elem_bytes(DTYPE_BF16), ==, 2);
	g_assert_cmpuint(dtype_elem_bytes(DTYPE_FP32), ==, 4);
	g_assert_true(e->paxi_set);
	g_assert_cmpint(e->paxi, ==, PAXI_SENDRECV);
	g_assert_cmpint(e->counts, ==, COUNTS_DIST);
	g_assert_cmpint(e->counts_dist.family, ==, WEIGHTS_ZIPF);
	g_assert_cmpfloat(e->counts_dist.param, ==, 1.2);
	g_assert_cmpstr(e->counts_label, ==, "zipf:1.2");
	g_assert_cmpuint(e->counts_seed, ==, 7);
	g_assert_cmpstr(e->out_dir, ==, "out/full");
	g_assert_cmpuint(e->formats, ==, OUT_H5 | OUT_CSV);
	g_assert_cmpuint(e->sweeps->len, ==, 2);

	/* 3 algorithms x 6 sweep points x 2 ranks x 2 nchunks x 2 dtypes x 5 sizes x 2 seeds */
	g_assert_cmpuint(experiment_npoints(e), ==, 1440);
	g_autoptr(GArray) pts = experiment_expand(e);

	g_assert_cmpuint(pts->len, ==, 1440);
	const struct exp_point *p0 = &g_array_index(pts, struct exp_point, 0);
	const struct exp_point *p1 = &g_array_index(pts, struct exp_point, 1);
	const struct exp_point *pl = &g_array_index(pts, struct exp_point, pts->len - 1);

	g_assert_cmpint(p0->coll, ==, COLL_ALLREDUCE);
	g_assert_cmpstr(p0->algo, ==, "ring");
	g_assert_cmpuint(p0->bytes, ==, 1024);
	g_assert_cmpuint(p0->seed, ==, 1);
	g_assert_cmpuint(p1->seed, ==, 2); /* seeds innermost */
	g_assert_cmpuint(p1->bytes, ==, 1024);
	g_assert_cmpint(pl->coll, ==, COLL_ALLGATHERV);
	g_assert_cmpuint(pl->sweep[0], ==, 1);
	g_assert_cmpuint(pl->sweep[1], ==, 2);
	g_assert_cmpint(pl->ranks, ==, 8);
	g_assert_cmpuint(pl->index, ==, 1439);
	/* every (coll, algo, sweep, ranks, nchunks, dtype, size, seed) once */
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < pts->len; i++) {
		const struct exp_point *p = &g_array_index(pts, struct exp_point, i);
		char *key = g_strdup_printf("%d/%s/%u/%u/%d/%u/%d/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
					    p->coll, p->algo, p->sweep[0], p->sweep[1], p->ranks,
					    p->nchunks, p->dtype, p->bytes, p->seed);

		g_assert_cmpuint(p->index, ==, i);
		g_assert_true(g_hash_table_add(seen, key));
	}

	/* The platform of the last point: 450GB/s, error rate 0.01, 8 ranks. */
	struct platform pp;

	g_assert_true(experiment_point_platform(e, pl, &pp, &err));
	g_assert_cmpuint(pp.fabric.link.bw_bytes_per_s, ==, 450000000000ull);
	g_assert_cmpfloat(pp.fabric.link.error_rate, ==, 0.01);
	g_assert_cmpint(pp.fabric.nranks, ==, 8);
	g_assert_cmpuint(pp.fabric.switch_link.bw_bytes_per_s, ==, 900000000000ull); /* explicit */
	g_assert_cmpfloat(pp.fabric.switch_link.error_rate, ==, 0.01);               /* follows */
	platform_release(&pp);
	g_assert_true(experiment_point_platform(e, p0, &pp, &err));
	g_assert_cmpuint(pp.fabric.link.bw_bytes_per_s, ==, 100000000000ull);
	g_assert_cmpint(pp.fabric.nranks, ==, 4);
	platform_release(&pp);

	/* Zipf weights: deterministic, one per rank, the set {1e6 / k^1.2}. */
	g_autofree uint64_t *w1 = experiment_weights(e, 8);
	g_autofree uint64_t *w2 = experiment_weights(e, 8);

	g_assert_cmpmem(w1, 8 * sizeof(uint64_t), w2, 8 * sizeof(uint64_t));
	bool has_max = false;

	for (int i = 0; i < 8; i++) {
		has_max |= w1[i] == 1000000;
		g_assert_cmpuint(w1[i], >=, 82000); /* 1e6 / 8^1.2 = 82469 */
	}
	g_assert_true(has_max);
	e->counts_seed = 8;
	g_autofree uint64_t *w3 = experiment_weights(e, 8);

	g_assert_true(memcmp(w1, w3, 8 * sizeof(uint64_t)) != 0);
	experiment_free(e);
}

static void test_experiment_minimal(void)
{
	const char *text = "schema_version: 1\n"
			   "platform: ../configs/platforms/seed-ring8.yaml\n"
			   "collectives: allreduce\n"
			   "algorithms: [ring, ring2p, hd]\n"
			   "sizes: 1KiB..1MiB x4\n";
	GError *err = NULL;
	struct experiment *e = config_experiment_parse("experiments/mini.yaml", text, strlen(text), &err);

	g_assert_no_error(err);
	g_assert_cmpstr(e->name, ==, "mini");
	g_assert_cmpstr(experiment_baseline(e, COLL_ALLREDUCE), ==, "ring");
	g_assert_cmpuint(e->sizes->len, ==, 6);
	g_assert_cmpuint(e->seeds->len, ==, 1);
	g_assert_cmpuint(e->nchunks->len, ==, 1);
	g_assert_cmpuint(e->dtypes->len, ==, 1);
	g_assert_cmpuint(e->ranks->len, ==, 0);
	g_assert_cmpstr(e->out_dir, ==, "results");
	g_assert_cmpuint(e->formats, ==, OUT_H5 | OUT_CSV | OUT_PNG | OUT_SVG);
	g_assert_cmpuint(experiment_npoints(e), ==, 18);
	g_autoptr(GArray) pts = experiment_expand(e);

	g_assert_cmpuint(pts->len, ==, 18);
	g_assert_cmpint(g_array_index(pts, struct exp_point, 0).ranks, ==, 8); /* the platform's */
	experiment_free(e);
}

static void test_sweep_count(void)
{
	const char *text = "schema_version: 1\n"
			   "platform: ../configs/platforms/seed-ring8.yaml\n"
			   "collectives: [allreduce]\n"
			   "algorithms: [ring, hd]\n"
			   "sizes: [1KiB, 1MiB]\n"
			   "seeds: [1, 2]\n"
			   "sweep:\n"
			   "  link.bandwidth: [100GB/s, 450GB/s]\n"
			   "  link.packet: [1KiB, 2KiB, 4KiB]\n"
			   "  paxi.cdma_units: [1, 2]\n";
	GError *err = NULL;
	struct experiment *e = config_experiment_parse("experiments/sw.yaml", text, strlen(text), &err);

	g_assert_no_error(err);
	g_assert_cmpuint(experiment_npoints(e), ==, 2 * 2 * 3 * 2 * 2 * 2);
	g_autoptr(GArray) pts = experiment_expand(e);

	g_assert_cmpuint(pts->len, ==, 96);
	/* Each of the 12 sweep combinations appears 8 times. */
	guint hist[2][3][2] = { 0 };

	for (guint i = 0; i < pts->len; i++) {
		const struct exp_point *p = &g_array_index(pts, struct exp_point, i);
		struct platform pp;

		hist[p->sweep[0]][p->sweep[1]][p->sweep[2]]++;
		g_assert_true(experiment_point_platform(e, p, &pp, &err));
		g_assert_cmpuint(pp.fabric.link.max_payload_bytes, ==, 1024u << p->sweep[1]);
		g_assert_cmpuint(pp.paxi.cdma_units, ==, 1 + p->sweep[2]);
		platform_release(&pp);
	}
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 2; c++)
				g_assert_cmpuint(hist[a][b][c], ==, 8);
	experiment_free(e);
}

/* The AllGatherV study (experiments/11-allgatherv-*.yaml,
 * docs/allgatherv-study.md): 3 systems x 6 count distributions, each with
 * the six AllGatherV algorithms on 4 KiB .. 64 MiB; the real counts come
 * from experiments/counts (file:) with the rank count of their system and
 * the skews the doc quotes. */
static void test_experiment_allgatherv_study(void)
{
	static const struct {
		const char *sys;
		int ranks;
	} systems[] = { { "cluster16-edr", 16 }, { "dgx1", 8 }, { "cs-storm16", 16 } };
	static const struct {
		const char *dist;
		enum counts_kind kind;
	} dists[] = {
		{ "equal", COUNTS_EQUAL }, { "zipf", COUNTS_DIST }, { "lognormal", COUNTS_DIST },
		{ "heavy", COUNTS_DIST }, { "utm300-eqrows", COUNTS_LIST }, { "utm300-eqnnz", COUNTS_LIST },
	};

	for (size_t s = 0; s < G_N_ELEMENTS(systems); s++)
		for (size_t d = 0; d < G_N_ELEMENTS(dists); d++) {
			g_autofree char *path = g_strdup_printf("experiments/11-allgatherv-%s-%s.yaml",
								systems[s].sys, dists[d].dist);
			GError *err = NULL;
			struct experiment *e = config_experiment_load(path, &err);

			g_assert_no_error(err);
			g_assert_cmpint(e->plat.fabric.nranks, ==, systems[s].ranks);
			g_assert_cmpuint(e->plat.fabric.fidelity, ==, LINK_FIDELITY_FLOW);
			g_assert_cmpint(e->counts, ==, dists[d].kind);
			g_assert_nonnull(e->counts_label);
			GPtrArray *algos = e->algos->pdata[0];

			g_assert_cmpuint(algos->len, ==, 6);
			g_assert_cmpuint(e->sizes->len, ==, 8);
			g_assert_cmpuint(g_array_index(e->sizes, uint64_t, 7), ==, 64ull << 20);
			g_autofree uint64_t *w = experiment_weights(e, systems[s].ranks);
			double skew = weights_skew(w, systems[s].ranks);

			if (dists[d].kind == COUNTS_EQUAL)
				g_assert_cmpfloat(skew, ==, 1.0);
			else
				g_assert_cmpfloat(skew, >, 1.4);
			/* equal nonzeros, 16 ranks: the first slice holds 42 of 300 rows */
			if (!strcmp(dists[d].dist, "utm300-eqnnz") && systems[s].ranks == 16) {
				uint64_t sum = 0;

				for (int r = 0; r < 16; r++)
					sum += w[r];
				g_assert_cmpuint(sum, ==, 300);
				g_assert_cmpuint(w[0], ==, 42);
				g_assert_cmpfloat_with_epsilon(skew, 42.0 * 16 / 300, 1e-12);
			}
			experiment_free(e);
		}
}

/* The systems study (experiments/10-systems-*.yaml, docs/systems.md) loads
 * as the doc describes it: 128 GPUs in 16 nodes of 8 at flow fidelity, at
 * 1:1 (16 spines) and 2:1 (8), five algorithms, 23 sizes up to 4 GiB, three
 * seeds, and each point's platform routes as its sweep value says; its
 * check (systems-packet.yaml) at packet fidelity. */
static void test_experiment_systems(void)
{
	static const struct {
		const char *path;
		int spines;
	} files[] = {
		{ "experiments/10-systems-1to1.yaml", 16 },
		{ "experiments/10-systems-2to1.yaml", 8 },
	};

	for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
		GError *err = NULL;
		struct experiment *e = config_experiment_load(files[f].path, &err);

		g_assert_no_error(err);
		g_assert_true(e->plat.fabric.topo == &topo_tiers_ops);
		g_assert_cmpint(e->plat.fabric.nranks, ==, 128);
		g_assert_cmpint(platform_node_ranks(&e->plat), ==, 8);
		g_assert_cmpint(e->plat.fabric.spines, ==, files[f].spines);
		g_assert_cmpuint(e->plat.fabric.fidelity, ==, LINK_FIDELITY_FLOW);
		g_assert_cmpuint(e->colls->len, ==, 1);
		g_assert_cmpint(g_array_index(e->colls, enum coll, 0), ==, COLL_ALLREDUCE);
		GPtrArray *algos = e->algos->pdata[0];

		g_assert_cmpuint(algos->len, ==, 5);
		g_assert_cmpstr(algos->pdata[3], ==, "hier-ring-ring");
		g_assert_cmpstr(algos->pdata[4], ==, "hier-ring-hd");
		g_assert_cmpuint(e->sizes->len, ==, 23);
		g_assert_cmpuint(g_array_index(e->sizes, uint64_t, 22), ==, 4ull << 30);
		g_assert_cmpuint(e->seeds->len, ==, 3);
		g_assert_cmpuint(experiment_npoints(e), ==, 2 * 5 * 23 * 3);
		g_autoptr(GArray) pts = experiment_expand(e);

		for (guint i = 0; i < pts->len; i++) {
			const struct exp_point *pt = &g_array_index(pts, struct exp_point, i);
			struct platform pp;

			g_assert_true(experiment_point_platform(e, pt, &pp, &err));
			g_assert_no_error(err);
			g_assert_cmpuint(pp.fabric.routing, ==,
					 pt->sweep[0] ? TOPO_ROUTING_DMODK : TOPO_ROUTING_ECMP);
			g_assert_cmpuint(pp.fabric.fidelity, ==, LINK_FIDELITY_FLOW);
			platform_release(&pp);
		}
		experiment_free(e);
	}

	/* its check at packet fidelity: three algorithms, 11 sizes up to 1 GiB */
	GError *err = NULL;
	struct experiment *e = config_experiment_load("experiments/systems-packet.yaml", &err);

	g_assert_no_error(err);
	g_assert_cmpint(e->plat.fabric.spines, ==, 8);
	g_assert_cmpuint(e->plat.fabric.fidelity, ==, LINK_FIDELITY_PACKET);
	g_assert_cmpuint(experiment_npoints(e), ==, 2 * 3 * 11);
	experiment_free(e);
}

static void test_anchor_without_alias(void)
{
	/* An anchor alone is harmless and accepted. */
	const char *text = "schema_version: 1\nlink: &l\n  bandwidth: 100GB/s\n";
	struct platform p;
	GError *err = NULL;

	g_assert_true(config_platform_parse("a.yaml", text, strlen(text), &p, &err));
	g_assert_cmpuint(p.fabric.link.bw_bytes_per_s, ==, 100000000000ull);
	platform_release(&p);
}

static void test_not_regular(void)
{
	GError *err = NULL;
	struct platform p;

	g_assert_false(config_platform_load("tests/config", &p, &err));
	g_assert_cmpstr(err->message, ==, "tests/config: not a regular file");
	g_clear_error(&err);
	g_assert_false(config_platform_load("tests/config/none.yaml", &p, &err));
	g_assert_cmpstr(err->message, ==, "tests/config/none.yaml: cannot read: No such file or directory");
	g_clear_error(&err);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/config/bad/corpus", test_bad_corpus);
	g_test_add_func("/config/platform/seed-equals-default", test_seed_equals_default);
	g_test_add_func("/config/platform/examples", test_examples);
	g_test_add_func("/config/platform/every-file", test_every_platform);
	g_test_add_func("/config/experiment/allgatherv-study", test_experiment_allgatherv_study);
	g_test_add_func("/config/platform/switch-link-follows", test_switch_twin);
	g_test_add_func("/config/platform/set", test_platform_set);
	g_test_add_func("/config/platform/anchor", test_anchor_without_alias);
	g_test_add_func("/config/platform/not-regular", test_not_regular);
	g_test_add_func("/config/sizes/ranges", test_sizes);
	g_test_add_func("/config/experiment/full", test_experiment_full);
	g_test_add_func("/config/experiment/minimal", test_experiment_minimal);
	g_test_add_func("/config/experiment/sweep-count", test_sweep_count);
	g_test_add_func("/config/experiment/systems", test_experiment_systems);
	return g_test_run();
}
