/* Tests of sim/workload_run: a workload of one collective takes exactly the
 * time `g5 sim` gives that collective; collectives of disjoint groups on
 * disjoint links do not slow each other, collectives sharing links do;
 * compute beside communication hides it (exposed time); waits in different
 * orders across ranks are reported, not hung on; the same run twice gives
 * the same spans; and the trace names every op. Run from the repository
 * root. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/config.h"
#include "sim/simulate.h"
#include "sim/workload_run.h"

static struct workload *load(const char *text)
{
	GError *err = NULL;
	struct workload *w = workload_parse("w.yaml", text, strlen(text), &err);

	if (!w)
		g_error("%s", err->message);
	return w;
}

static void platform(struct platform *pl, int ranks)
{
	GError *err = NULL;
	g_autofree char *n = g_strdup_printf("%d", ranks);

	if (!config_platform_load("configs/platforms/seed-ring8.yaml", pl, &err) ||
	    !config_platform_set(pl, "topology.ranks", n, &err))
		g_error("%s", err->message);
}

static void run_ok(const struct workload *w, const struct platform *pl, struct workload_result *res)
{
	struct workload_run_opts o = { .plat = pl, .seed = 1 };
	GError *err = NULL;

	if (!workload_run(w, &o, res, &err))
		g_error("%s", err->message);
}

static sim_time_t sim_alone(const struct platform *pl, enum coll c, const char *algo,
			    uint64_t bytes, uint32_t esize)
{
	struct simulate_job job = { .plat = pl, .coll = c, .algo = algo, .bytes = bytes,
				    .elem_bytes = esize, .params = { .nchunks = 1, .peer = 1 },
				    .seed = 1, .proto = SIMULATE_PROTO_AUTO };
	struct simulate_outcome out;
	GError *err = NULL;

	if (!simulate(&job, &out, &err))
		g_error("%s", err->message);
	sim_time_t t = out.run.latency_ps;

	simulate_outcome_clear(&out);
	return t;
}

static void test_one_collective_is_g5_sim(void)
{
	struct platform pl;
	static const struct {
		const char *op;
		enum coll c;
		const char *algo;
		uint64_t bytes;
		uint32_t esize;
	} rows[] = {
		{ "{allreduce: 64MiB, dtype: fp32}", COLL_ALLREDUCE, "ring", 64u << 20, 4 },
		{ "{allreduce: 1MiB, dtype: bf16, algo: hd}", COLL_ALLREDUCE, "hd", 1u << 20, 2 },
		{ "{allgather: 8MiB, dtype: fp32}", COLL_ALLGATHER, "ring", 8u << 20, 4 },
		{ "{alltoall: 4MiB, dtype: fp32}", COLL_ALLTOALL, "pairwise", 4u << 20, 4 },
		{ "{broadcast: 16MiB, dtype: fp16}", COLL_BROADCAST, "chain", 16u << 20, 2 },
		{ "{p2p: 8MiB, dtype: fp32}", COLL_P2P, "direct", 8u << 20, 4 },
	};

	platform(&pl, 8);
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree char *text = g_strdup_printf("schema_version: 1\nranks: 8\nprogram: [%s]\n",
							rows[i].op);
		struct workload *w = load(text);
		struct workload_result res;

		run_ok(w, &pl, &res);
		g_assert_cmpuint(res.calls->len, ==, 1);
		g_assert_cmpstr(g_array_index(res.calls, struct wl_call, 0).algo, ==, rows[i].algo);
		/* the launch cost, then the schedule: to the picosecond */
		g_assert_cmpuint(res.step_ps, ==, sim_alone(&pl, rows[i].c, rows[i].algo,
							     rows[i].bytes, rows[i].esize));
		g_assert_cmpuint(res.ranks[1].exposed_ps, ==, res.ranks[1].comm_ps);
		workload_result_clear(&res);
		workload_free(w);
	}
	platform_release(&pl);

	/* a platform with a channel model: a collective large enough to use
	 * every channel sees what a workload's calls all see */
	GError *err = NULL;
	struct workload_result res;
	struct workload *w = load("schema_version: 1\nranks: 8\nprogram: [{allreduce: 1GiB, dtype: fp32}]\n");

	if (!config_platform_load("configs/platforms/dgx-h200.yaml", &pl, &err))
		g_error("%s", err->message);
	run_ok(w, &pl, &res);
	g_assert_cmpuint(res.step_ps, ==, sim_alone(&pl, COLL_ALLREDUCE, "ring", 1u << 30, 4));
	workload_result_clear(&res);
	workload_free(w);
	platform_release(&pl);

	/* a two-tier platform: a hierarchical call takes its ranks per node
	 * from the platform, as g5 sim does */
	w = load("schema_version: 1\nranks: 128\nprogram: [{allreduce: 64MiB, dtype: fp32, algo: hier-ring-hd}]\n");
	if (!config_platform_load("configs/platforms/dgx-h200x16-rails-1to1.yaml", &pl, &err) ||
	    !config_platform_set(&pl, "fidelity", "flow", &err))
		g_error("%s", err->message);
	run_ok(w, &pl, &res);
	g_assert_cmpuint(res.step_ps, ==, sim_alone(&pl, COLL_ALLREDUCE, "hier-ring-hd", 64u << 20, 4));
	workload_result_clear(&res);
	workload_free(w);
	platform_release(&pl);
}

/* On the ring of 8, groups {0,1} and {2,3} use links 0-1 and 2-3 only:
 * their AllReduces at once take as long as one alone. Two AllReduces of
 * the world on two streams share every link: each takes longer. */
static void test_contention(void)
{
	struct platform pl;
	struct workload_result one, two;

	platform(&pl, 8);
	struct workload *w1 = load("schema_version: 1\nranks: 8\n"
				   "communicators: {pair: [[0, 1]]}\n"
				   "programs:\n"
				   "  - {ranks: [0, 1], ops: [{allreduce: 32MiB, comm: pair}]}\n"
				   "  - {ranks: 2..7, ops: []}\n");
	struct workload *w2 = load("schema_version: 1\nranks: 8\n"
				   "communicators: {pairs: {size: 2}}\n"
				   "program: [{allreduce: 32MiB, comm: pairs}]\n");

	run_ok(w1, &pl, &one);
	run_ok(w2, &pl, &two);
	g_assert_cmpuint(two.calls->len, ==, 4);
	g_assert_cmpuint(two.step_ps, ==, one.step_ps);
	workload_result_clear(&one);
	workload_result_clear(&two);
	workload_free(w1);
	workload_free(w2);

	w1 = load("schema_version: 1\nranks: 8\nprogram: [{allreduce: 32MiB}]\n");
	w2 = load("schema_version: 1\nranks: 8\n"
		  "program: [{allreduce: 32MiB, stream: a}, {allreduce: 32MiB, stream: b}]\n");
	run_ok(w1, &pl, &one);
	run_ok(w2, &pl, &two);
	for (guint i = 0; i < 2; i++) {
		const struct wl_call *c = &g_array_index(two.calls, struct wl_call, i);

		g_assert_cmpuint(c->start_ps, ==, 0);
		g_assert_cmpuint(c->end_ps - c->start_ps, >, one.step_ps + one.step_ps / 4);
	}
	/* and sharing does not lose capacity: no slower than one after the other */
	g_assert_cmpuint(two.step_ps, <=, 2 * one.step_ps);
	workload_result_clear(&one);
	workload_result_clear(&two);
	workload_free(w1);
	workload_free(w2);
	platform_release(&pl);
}

/* The two halves of a full mesh share no link and no node: an AllReduce on
 * each at once takes what each takes alone, so the step is max(a, b). A
 * P2P's bystanders finish at their launch. */
static void test_disjoint_halves(void)
{
	struct platform pl;
	struct workload_result a, b, both;
	GError *err = NULL;

	if (!config_platform_load("configs/platforms/fullmesh8.yaml", &pl, &err))
		g_error("%s", err->message);
	const char *head = "schema_version: 1\nranks: 8\n"
			   "communicators: {lo: [[0, 1, 2, 3]], hi: [[4, 5, 6, 7]]}\n"
			   "programs:\n";
	g_autofree char *ta = g_strconcat(head, "  - {ranks: 0..3, ops: [{allreduce: 16MiB, comm: lo}]}\n"
					  "  - {ranks: 4..7, ops: []}\n", NULL);
	g_autofree char *tb = g_strconcat(head, "  - {ranks: 0..3, ops: []}\n"
					  "  - {ranks: 4..7, ops: [{allreduce: 64MiB, comm: hi, algo: direct}]}\n", NULL);
	g_autofree char *tboth = g_strconcat(head, "  - {ranks: 0..3, ops: [{allreduce: 16MiB, comm: lo}]}\n"
					     "  - {ranks: 4..7, ops: [{allreduce: 64MiB, comm: hi, algo: direct}]}\n",
					     NULL);
	struct workload *wa = load(ta), *wb = load(tb), *wboth = load(tboth);

	run_ok(wa, &pl, &a);
	run_ok(wb, &pl, &b);
	run_ok(wboth, &pl, &both);
	g_assert_cmpuint(a.step_ps, !=, b.step_ps);
	g_assert_cmpuint(both.step_ps, ==, MAX(a.step_ps, b.step_ps));
	g_assert_cmpuint(both.ranks[1].end_ps, ==, a.step_ps);
	g_assert_cmpuint(both.ranks[6].end_ps, ==, b.step_ps);
	workload_result_clear(&a);
	workload_result_clear(&b);
	workload_result_clear(&both);
	workload_free(wa);
	workload_free(wb);
	workload_free(wboth);

	struct workload *w = load("schema_version: 1\nranks: 8\n"
				  "communicators: {three: [[0, 5, 7]]}\n"
				  "programs:\n"
				  "  - {ranks: [0, 5, 7], ops: [{p2p: 4MiB, comm: three, root: 2, peer: 0}]}\n"
				  "  - {ranks: [1, 2, 3, 4, 6], ops: []}\n");
	struct workload_result r;

	run_ok(w, &pl, &r);
	/* rank 5 (member 1) moves nothing: done after its launch cost alone */
	g_assert_cmpuint(r.ranks[5].end_ps, ==, pl.overhead_ps);
	/* the sender (rank 7) sees its completion after the data has landed */
	g_assert_cmpuint(r.ranks[7].end_ps, ==, r.step_ps);
	g_assert_cmpuint(r.ranks[0].end_ps, >, pl.overhead_ps);
	g_assert_cmpuint(r.ranks[0].end_ps, <=, r.step_ps);
	workload_result_clear(&r);
	workload_free(w);
	platform_release(&pl);
}

/* Streams: a collective beside a longer compute interval is hidden; after
 * it, exposed. Waits: `after` holds an op back. */
static void test_overlap_and_waits(void)
{
	struct platform pl;
	struct workload_result res;

	platform(&pl, 4);
	struct workload *w = load("schema_version: 1\nranks: 4\n"
				  "program:\n"
				  "  - {compute: 1ms, id: a}\n"
				  "  - {allreduce: 1MiB, id: x}\n"
				  "  - {compute: 2ms, id: b, after: a}\n"
				  "  - {allreduce: 1MiB, id: y, after: b}\n");

	run_ok(w, &pl, &res);
	const struct wl_span *sp = &g_array_index(res.spans, struct wl_span, 0);
	sim_time_t ar = sp[3].end_ps - sp[3].start_ps;

	g_assert_cmpuint(sp[1].start_ps, ==, 0);        /* x: no wait */
	g_assert_cmpuint(sp[2].start_ps, ==, 1000000000); /* b after a */
	g_assert_cmpuint(sp[3].start_ps, ==, 3000000000); /* y after b (and x) */
	g_assert_cmpuint(res.step_ps, ==, 3000000000 + ar);
	g_assert_cmpuint(res.ranks[0].compute_ps, ==, 3000000000);
	/* x hides under a; y is exposed */
	g_assert_cmpuint(res.ranks[0].exposed_ps, ==, ar);
	g_assert_cmpuint(res.ranks[0].comm_ps, ==, 2 * ar);
	workload_result_clear(&res);
	workload_free(w);
	platform_release(&pl);
}

static void run_fails(const char *text, int ranks, const char *want)
{
	struct platform pl;
	struct workload_result res;
	struct workload *w = load(text);
	struct workload_run_opts o = { .plat = &pl, .seed = 1 };
	GError *err = NULL;

	platform(&pl, ranks);
	g_assert_false(workload_run(w, &o, &res, &err));
	g_assert_nonnull(err);
	if (!strstr(err->message, want))
		g_error("message '%s' lacks '%s'", err->message, want);
	g_assert_null(res.spans);
	g_error_free(err);
	workload_free(w);
	platform_release(&pl);
}

static void test_errors(void)
{
	/* ranks 0 and 1 wait on their two calls in opposite orders */
	run_fails("schema_version: 1\nranks: 2\n"
		  "communicators: {a: [[0, 1]], b: [[0, 1]]}\n"
		  "programs:\n"
		  "  - {ranks: 0, ops: [{allreduce: 1MiB, comm: a, id: x}, {allreduce: 1MiB, comm: b}]}\n"
		  "  - {ranks: 1, ops: [{allreduce: 1MiB, comm: b, id: y}, {allreduce: 1MiB, comm: a}]}\n",
		  2, "ops never finished");
	run_fails("schema_version: 1\nranks: 8\nprogram: [{allreduce: 1MiB}]\n", 4,
		  "the workload has 8 ranks but the platform 4");
	run_fails("schema_version: 1\nranks: 4\nprogram: [{allreduce: 1MiB, algo: nccl}]\n", 4,
		  "'nccl' is not run in workloads");
	run_fails("schema_version: 1\nranks: 4\nprogram: [{allreduce: 1MiB, algo: rh}]\n", 4,
		  "op 'op0' of rank 0: ");
	run_fails("schema_version: 1\nranks: 6\nprogram: [{allgather: 1MiB, algo: rd}]\n", 6,
		  "op 'op0' of rank 0: ");
	run_fails("schema_version: 1\nranks: 4\nprogram: [{allreduce: 1001, dtype: fp32}]\n", 4,
		  "not whole 4-byte elements");
}

static void test_deterministic_and_trace(void)
{
	struct platform pl;
	struct workload_result a, b;
	GError *err = NULL;

	platform(&pl, 8);
	struct workload *w = load("schema_version: 1\nranks: 8\n"
				  "generate: {pattern: fsdp, params: 8e7, layers: 4, tokens: 256}\n");

	run_ok(w, &pl, &a);
	run_ok(w, &pl, &b);
	g_assert_cmpuint(a.spans->len, ==, b.spans->len);
	g_assert_cmpmem(a.spans->data, a.spans->len * sizeof(struct wl_span), b.spans->data,
			b.spans->len * sizeof(struct wl_span));
	g_autofree char *dir = g_dir_make_tmp("g5-wlrun-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "t.json", NULL);
	g_autofree char *text = NULL;

	g_assert_true(workload_trace_write(w, &a, path, &err));
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_assert_nonnull(strstr(text, "\"name\": \"allgather\", \"cat\": \"collective\", \"pid\": 7"));
	g_assert_nonnull(strstr(text, "\"args\": {\"op\": \"bwd0.0.reduce\", \"bytes\": 40000000"));
	g_assert_nonnull(strstr(text, "\"name\": \"fwd0.3\", \"cat\": \"compute\""));
	g_unlink(path);
	g_rmdir(dir);
	workload_result_clear(&a);
	workload_result_clear(&b);
	workload_free(w);
	platform_release(&pl);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/workload/run/one-collective", test_one_collective_is_g5_sim);
	g_test_add_func("/workload/run/contention", test_contention);
	g_test_add_func("/workload/run/disjoint-halves", test_disjoint_halves);
	g_test_add_func("/workload/run/overlap-waits", test_overlap_and_waits);
	g_test_add_func("/workload/run/errors", test_errors);
	g_test_add_func("/workload/run/deterministic-trace", test_deterministic_and_trace);
	return g_test_run();
}
