/* Tests of sim/workload: workload files (programs, communicators, the
 * patterns), their errors with file, line and column, the check that the
 * members of a group issue the same calls, the writer (read back to the
 * same workload), and the PyTorch trace importer on real traces
 * (tests/workload/data: torch-gloo-w2-rank{0,1}.json, a two-process gloo
 * step of scripts/torch-trace.py, and torch-nccl-w1-rank0.json, the same
 * step on one GPU with NCCL, whose record_param_comms events carry the
 * collectives' arguments) and damaged copies. Run from the repository root. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/config.h"
#include "sim/workload.h"

#define DATA "tests/workload/data/"

static struct workload *parse_ok(const char *text)
{
	GError *err = NULL;
	struct workload *w = workload_parse("w.yaml", text, strlen(text), &err);

	if (!w)
		g_error("%s", err->message);
	return w;
}

static void parse_fails(const char *text, const char *want)
{
	GError *err = NULL;
	struct workload *w = workload_parse("w.yaml", text, strlen(text), &err);

	g_assert_null(w);
	g_assert_nonnull(err);
	if (!strstr(err->message, want))
		g_error("message '%s' lacks '%s'", err->message, want);
	g_assert_true(g_str_has_prefix(err->message, "w.yaml:"));
	g_error_free(err);
}

static int comm_index(const struct workload *w, const char *name)
{
	for (int i = 0; i < w->ncomms; i++)
		if (!strcmp(w->comms[i].name, name))
			return i;
	g_error("no communicator %s", name);
}

static void test_program(void)
{
	struct workload *w = parse_ok("schema_version: 1\n"
				      "name: step\n"
				      "ranks: 8\n"
				      "communicators:\n"
				      "  tp: {size: 2}\n"
				      "  dp: {size: 4, stride: 2}\n"
				      "  pairs: [[0, 7], [1, 6], [2, 5], [3, 4]]\n"
				      "program:\n"
				      "  - {compute: 1.5ms, id: fwd}\n"
				      "  - {allreduce: 64MiB, comm: tp, after: fwd, id: ar}\n"
				      "  - {compute: 3ms, id: bwd, after: [fwd]}\n"
				      "  - {reducescatter: 8MiB, comm: dp, dtype: fp32, algo: ring, after: [bwd, ar]}\n"
				      "  - {broadcast: 4KiB, comm: pairs, root: 1, stream: side}\n");

	g_assert_cmpstr(w->name, ==, "step");
	g_assert_cmpint(w->nranks, ==, 8);
	const struct wl_comm *tp = &w->comms[comm_index(w, "tp")];
	const struct wl_comm *dp = &w->comms[comm_index(w, "dp")];
	const struct wl_comm *world = &w->comms[comm_index(w, "world")];

	g_assert_cmpint(tp->ngroups, ==, 4);
	g_assert_cmpint(tp->group_size, ==, 2);
	g_assert_cmpint(tp->members[2], ==, 2); /* group 1 = {2, 3} */
	g_assert_cmpint(tp->members[3], ==, 3);
	/* dp: stride 2 -> {0, 2, 4, 6} and {1, 3, 5, 7} */
	g_assert_cmpint(dp->ngroups, ==, 2);
	g_assert_cmpint(dp->members[0 * 4 + 3], ==, 6);
	g_assert_cmpint(dp->members[1 * 4 + 1], ==, 3);
	g_assert_cmpint(dp->group_of[5], ==, 1);
	g_assert_cmpint(world->group_size, ==, 8);
	for (int r = 0; r < 8; r++) {
		const struct wl_program *p = &w->progs[r];

		g_assert_cmpuint(p->nops, ==, 5);
		g_assert_cmpint(p->ops[0].kind, ==, WL_COMPUTE);
		g_assert_cmpuint(p->ops[0].dur_ps, ==, 1500000000u);
		g_assert_cmpint(p->ops[1].coll, ==, COLL_ALLREDUCE);
		g_assert_cmpuint(p->ops[1].bytes, ==, 64u << 20);
		g_assert_cmpint(p->ops[1].dtype, ==, IR_DTYPE_BF16); /* the default */
		g_assert_cmpstr(p->ops[1].algo, ==, "auto");
		g_assert_cmpuint(p->ops[1].nafter, ==, 1);
		g_assert_cmpuint(p->ops[1].after[0], ==, 0);
		g_assert_cmpuint(p->ops[3].nafter, ==, 2);
		g_assert_cmpuint(p->ops[3].after[1], ==, 1);
		g_assert_cmpstr(p->ops[3].algo, ==, "ring");
		g_assert_cmpint(p->ops[3].dtype, ==, IR_DTYPE_FP32);
		g_assert_cmpint(p->ops[4].root, ==, 1);
		g_assert_cmpstr(w->streams[p->ops[0].stream], ==, "compute");
		g_assert_cmpstr(w->streams[p->ops[1].stream], ==, "comm");
		g_assert_cmpstr(w->streams[p->ops[4].stream], ==, "side");
		g_assert_cmpstr(p->ops[4].id, ==, "op4");
	}
	struct wl_totals t;

	workload_totals(w, 3, &t);
	g_assert_cmpuint(t.colls, ==, 3);
	g_assert_cmpuint(t.computes, ==, 2);
	g_assert_cmpuint(t.coll_bytes, ==, (64u << 20) + (8u << 20) + 4096);
	g_assert_cmpuint(t.compute_ps, ==, 4500000000u);
	workload_free(w);
}

static void test_programs(void)
{
	/* Ranks 0..1 send, 2..3 have their own program; one group per pair. */
	struct workload *w = parse_ok("schema_version: 1\n"
				      "ranks: 4\n"
				      "communicators: {pair: {size: 2}}\n"
				      "programs:\n"
				      "  - ranks: 0..1\n"
				      "    ops: [{compute: 1us}, {allgather: 1MiB, comm: pair}]\n"
				      "  - ranks: [2, 3]\n"
				      "    ops: [{allgather: 2MiB, comm: pair}]\n");

	g_assert_cmpuint(w->progs[1].nops, ==, 2);
	g_assert_cmpuint(w->progs[2].nops, ==, 1);
	g_assert_cmpuint(w->progs[3].ops[0].bytes, ==, 2u << 20);
	workload_free(w);
}

/* `repeat` makes copies X.0..X.N-1 on the op's stream; `after: X` waits
 * for the last; p2p takes a root and a peer within its group. */
static void test_repeat_p2p(void)
{
	struct workload *w = parse_ok("schema_version: 1\nranks: 4\n"
				      "communicators: {pair: [[0, 3], [1, 2]]}\n"
				      "program:\n"
				      "  - {p2p: 1MiB, comm: pair, root: 1, peer: 0, repeat: 3, id: bg, stream: bg}\n"
				      "  - {allreduce: 2MiB, nchunks: 4, after: bg}\n");
	const struct wl_program *p = &w->progs[2];

	g_assert_cmpuint(p->nops, ==, 4);
	g_assert_cmpstr(p->ops[0].id, ==, "bg.0");
	g_assert_cmpstr(p->ops[2].id, ==, "bg.2");
	g_assert_cmpint(p->ops[1].coll, ==, COLL_P2P);
	g_assert_cmpint(p->ops[1].root, ==, 1);
	g_assert_cmpint(p->ops[1].peer, ==, 0);
	g_assert_cmpuint(p->ops[3].nafter, ==, 1);
	g_assert_cmpuint(p->ops[3].after[0], ==, 2);
	g_assert_cmpuint(p->ops[3].nchunks, ==, 4);
	workload_free(w);
}

static void test_errors(void)
{
	const char *head = "schema_version: 1\nranks: 4\n";
	static const struct {
		const char *body, *want;
	} rows[] = {
		{ "program: [{alreduce: 1MiB}]\n", "w.yaml:3:12: unknown key 'program[0].alreduce'" },
		{ "program: [{alreduce: 1MiB}]\n", "did you mean 'allreduce'" },
		{ "program: [{allreduce: 1MiB, comm: tp}]\n", "unknown communicator 'tp' (known: world)" },
		{ "program: [{allreduce: big}]\n", "w.yaml:3:23:" },
		{ "program: [{compute: 3 days}]\n", "'program[0].compute'" },
		{ "program: [{compute: 1us, after: [x]}]\n", "no earlier op 'x'" },
		{ "program: [{compute: 1us, allreduce: 1MiB}]\n", "not both" },
		{ "program: [{id: a, compute: 1us}, {id: a, compute: 1us}]\n", "op id 'a' is used twice" },
		{ "program: [{allgatherv: 1MiB}]\n", "not a workload collective" },
		{ "program: [{allreduce: 1MiB, root: 0}]\n", "only broadcast, reduce and p2p take a root" },
		{ "program: [{allreduce: 1MiB, peer: 2}]\n", "only p2p takes a peer" },
		{ "program: [{p2p: 1MiB, root: 1}]\n", "p2p's peer (1) must differ from its root (1)" },
		{ "program: [{p2p: 1MiB, peer: 4}]\n", "w.yaml:3:29: 'program[0].peer': must be between 0 and 3" },
		{ "program: [{allreduce: 1MiB, nchunks: 0}]\n", "'program[0].nchunks'" },
		{ "program: [{allreduce: 1MiB, repeat: 0}]\n", "'program[0].repeat'" },
		{ "program: [{compute: 1us, nchunks: 2}]\n", "a compute interval takes no" },
		{ "programs:\n  - ranks: 0\n    ops: [{allreduce: 1MiB, algo: hd}]\n"
		  "  - ranks: 1..3\n    ops: [{allreduce: 1MiB}]\n", "the job would hang" },
		{ "program: [{broadcast: 1MiB, root: 4}]\n", "w.yaml:3:35:" },
		{ "program: [{compute: 1us, comm: world}]\n", "takes no comm" },
		{ "program: [{dtype: fp64, allreduce: 1MiB}]\n", "'program[0].dtype' must be one of" },
		{ "communicators: {tp: {size: 3}}\nprogram: []\n", "size x stride = 3 must divide the 4 ranks" },
		{ "communicators: {tp: {sise: 2}}\nprogram: []\n", "did you mean 'size'" },
		{ "communicators: {x: [[0, 1], [1, 2]]}\nprogram: []\n", "rank 1 is in two groups" },
		{ "communicators: {x: [[0, 1], [2]]}\nprogram: []\n", "every group must have the same size" },
		{ "communicators: {x: [[0, 9]]}\nprogram: []\n", "w.yaml:3:25:" },
		{ "communicators: {x: [[0, 1]]}\nprogram: [{allreduce: 1MiB, comm: x}]\n",
		  "rank 2 is in no group of communicator 'x'" },
		{ "communicators: {solo: {size: 1}}\nprogram: [{allreduce: 1MiB, comm: solo}]\n",
		  "groups of one rank" },
		{ "program: []\ngenerate: {pattern: dp}\n", "exactly one of 'program'" },
		{ "programs: [{ranks: 0..2, ops: []}]\n", "rank 3 has no program" },
		{ "programs: [{ranks: all, ops: []}, {ranks: 1, ops: []}]\n", "rank 1 has two programs" },
		/* rank 0's second call on the world differs from the others' */
		{ "programs:\n  - ranks: 0\n    ops: [{allreduce: 1MiB}, {allgather: 1MiB}]\n"
		  "  - ranks: 1..3\n    ops: [{allreduce: 1MiB}, {allreduce: 1MiB}]\n",
		  "call 1 on a group of 'world' differs between rank 0" },
		{ "programs:\n  - ranks: 0\n    ops: [{allreduce: 1MiB}, {allreduce: 1MiB}]\n"
		  "  - ranks: 1..3\n    ops: [{allreduce: 1MiB}]\n",
		  "the job would hang" },
		{ "generate: {pattern: dpp, params: 1e9, layers: 4}\n", "did you mean 'dp'" },
		{ "generate: {pattern: dp, layers: 4}\n", "needs 'params' and 'layers'" },
		{ "generate: {pattern: tp, params: 1e9, layers: 4, group: 3}\n", "must divide the 4 ranks" },
		{ "generate: {pattern: dp, params: 1e9, layers: 4, tflops: -1}\n", "'generate.tflops'" },
		{ "progam: []\n", "unknown key 'progam'" },
		{ "ran: 3\nprogram: []\n", "unknown key 'ran'" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree char *text = g_strconcat(head, rows[i].body, NULL);

		parse_fails(text, rows[i].want);
	}
	parse_fails("schema_version: 1\nprogram: []\n", "missing key 'ranks'");
	parse_fails("schema_version: 1\nranks: 1\nprogram: []\n", "'ranks'");
}

static void test_generate_dp(void)
{
	/* 1e9 bf16 parameters in 8 layers: 250 MB per layer; 1 GiB buckets take
	 * the gradients of 4 layers, so 2 AllReduce calls carrying 2e9 bytes. */
	struct workload *w = parse_ok("schema_version: 1\nranks: 8\n"
				      "generate: {pattern: dp, params: 1e9, layers: 8, tokens: 1024, "
				      "tflops: 100, bucket: 1GiB}\n");
	struct wl_totals t;

	workload_totals(w, 5, &t);
	g_assert_cmpuint(t.colls, ==, 2);
	g_assert_cmpuint(t.coll_bytes, ==, 2000000000u);
	/* forward 2 x 1.25e8 x 1024 / 1e14 s = 2.56 ms per layer, backward twice */
	g_assert_cmpuint(t.compute_ps, ==, 8 * 3 * 2560000000ull);
	/* the optimizer waits for both calls */
	const struct wl_program *p = &w->progs[5];
	const struct wl_op *last = &p->ops[p->nops - 1];

	g_assert_cmpstr(last->id, ==, "optimizer");
	g_assert_cmpuint(last->nafter, ==, 2);
	g_assert_cmpint(p->ops[last->after[1]].coll, ==, COLL_ALLREDUCE);
	workload_free(w);
}

static void test_generate_fsdp_tp_moe(void)
{
	struct workload *w = parse_ok("schema_version: 1\nranks: 4\n"
				      "generate: {pattern: fsdp, params: 4e8, layers: 4, microbatches: 2}\n");
	struct wl_totals t;
	unsigned ag = 0, rs = 0;

	workload_totals(w, 0, &t);
	for (uint32_t i = 0; i < w->progs[0].nops; i++) {
		const struct wl_op *o = &w->progs[0].ops[i];

		if (o->kind == WL_COLLECTIVE && o->coll == COLL_ALLGATHER) {
			ag++;
			g_assert_cmpuint(o->bytes, ==, 200000000u); /* 1e8 bf16 params */
		}
		rs += o->kind == WL_COLLECTIVE && o->coll == COLL_REDUCESCATTER;
	}
	/* a gather per layer forward and backward per micro-batch; gradients
	 * reduced once, in the last micro-batch */
	g_assert_cmpuint(ag, ==, 2 * 4 * 2);
	g_assert_cmpuint(rs, ==, 4);
	workload_free(w);

	w = parse_ok("schema_version: 1\nranks: 8\n"
		     "generate: {pattern: tp, params: 1.2e9, layers: 10, hidden: 1000, tokens: 512, group: 4}\n");
	const struct wl_comm *tp = &w->comms[comm_index(w, "tp")];

	g_assert_cmpint(tp->ngroups, ==, 2);
	workload_totals(w, 7, &t);
	g_assert_cmpuint(t.colls, ==, 10 * 4);
	g_assert_cmpuint(t.coll_bytes, ==, 40ull * 512 * 1000 * 2);
	workload_free(w);

	w = parse_ok("schema_version: 1\nranks: 4\n"
		     "generate: {pattern: moe, params: 1e8, layers: 2, hidden: 100, tokens: 10, topk: 2}\n");
	workload_totals(w, 0, &t);
	g_assert_cmpuint(t.colls, ==, 2 * 4);
	g_assert_cmpint(w->progs[0].ops[1].coll, ==, COLL_ALLTOALL);
	g_assert_cmpuint(w->progs[0].ops[1].bytes, ==, 10 * 100 * 2 * 2);
	workload_free(w);
}

/* Two workloads hold the same ranks, communicators and programs. */
static void assert_same(const struct workload *a, const struct workload *b)
{
	g_assert_cmpint(a->nranks, ==, b->nranks);
	g_assert_cmpint(a->ncomms, ==, b->ncomms);
	for (int i = 0; i < a->ncomms; i++) {
		const struct wl_comm *x = &a->comms[i], *y = &b->comms[comm_index(b, x->name)];

		g_assert_cmpint(x->ngroups * x->group_size, ==, y->ngroups * y->group_size);
		for (int r = 0; r < a->nranks; r++)
			g_assert_cmpint(x->group_of[r] < 0, ==, y->group_of[r] < 0);
	}
	for (int r = 0; r < a->nranks; r++) {
		g_assert_cmpuint(a->progs[r].nops, ==, b->progs[r].nops);
		for (uint32_t i = 0; i < a->progs[r].nops; i++) {
			const struct wl_op *x = &a->progs[r].ops[i], *y = &b->progs[r].ops[i];

			g_assert_cmpint(x->kind, ==, y->kind);
			g_assert_cmpstr(x->id, ==, y->id);
			g_assert_cmpstr(a->streams[x->stream], ==, b->streams[y->stream]);
			g_assert_cmpuint(x->dur_ps, ==, y->dur_ps);
			g_assert_cmpuint(x->bytes, ==, y->bytes);
			g_assert_cmpint(x->dtype, ==, y->dtype);
			g_assert_cmpuint(x->nafter, ==, y->nafter);
			for (uint32_t k = 0; k < x->nafter; k++)
				g_assert_cmpuint(x->after[k], ==, y->after[k]);
			if (x->kind == WL_COLLECTIVE) {
				g_assert_cmpint(x->coll, ==, y->coll);
				g_assert_cmpstr(a->comms[x->comm].name, ==, b->comms[y->comm].name);
				g_assert_cmpint(x->root, ==, y->root);
				g_assert_cmpint(x->peer, ==, y->peer);
				g_assert_cmpuint(x->nchunks, ==, y->nchunks);
				g_assert_cmpstr(x->algo, ==, y->algo);
			}
		}
	}
}

static struct workload *roundtrip(const struct workload *w)
{
	g_autofree char *dir = g_dir_make_tmp("g5-wl-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "w.yaml", NULL);
	GError *err = NULL;

	g_assert_true(workload_write(w, path, &err));
	struct workload *back = workload_load(path, &err);

	if (!back)
		g_error("%s", err->message);
	g_unlink(path);
	g_rmdir(dir);
	return back;
}

static void test_write_roundtrip(void)
{
	struct workload *w = parse_ok("schema_version: 1\nranks: 4\n"
				      "communicators: {pairs: {size: 2}}\n"
				      "program:\n"
				      "  - {compute: 2us, id: a}\n"
				      "  - {broadcast: 3MiB, comm: pairs, root: 1, after: a, algo: chain}\n"
				      "  - {alltoall: 1KiB, dtype: fp16, stream: s2, after: [a, op1]}\n"
				      "  - {p2p: 1MiB, comm: pairs, root: 1, peer: 0, nchunks: 2, repeat: 2}\n");
	struct workload *back = roundtrip(w);

	assert_same(w, back);
	workload_free(back);
	workload_free(w);
	w = parse_ok("schema_version: 1\nranks: 4\n"
		     "generate: {pattern: fsdp, params: 4e8, layers: 3}\n");
	back = roundtrip(w);
	assert_same(w, back);
	workload_free(back);
	workload_free(w);
}

static struct workload *import_ok(const char *const *paths, int n)
{
	GError *err = NULL;
	struct workload *w = workload_import_torch(paths, n, &err);

	if (!w)
		g_error("%s", err->message);
	return w;
}

static void test_import_gloo(void)
{
	const char *paths[] = { DATA "torch-gloo-w2-rank1.json", DATA "torch-gloo-w2-rank0.json" };
	struct workload *w = import_ok(paths, 2);
	/* the step of scripts/torch-trace.py: DDP's four gradient buckets (262656
	 * float each: a 512 x 512 layer and its bias, 1 MB), then an AllGather and
	 * a ReduceScatter of 65536 bf16 per rank and an AllToAll of 8192 float */
	static const struct {
		enum coll c;
		uint64_t bytes;
		enum ir_dtype dt;
	} want[] = {
		{ COLL_ALLREDUCE, 262656 * 4, IR_DTYPE_FP32 }, { COLL_ALLREDUCE, 262656 * 4, IR_DTYPE_FP32 },
		{ COLL_ALLREDUCE, 262656 * 4, IR_DTYPE_FP32 }, { COLL_ALLREDUCE, 262656 * 4, IR_DTYPE_FP32 },
		{ COLL_ALLGATHER, 131072 * 2, IR_DTYPE_BF16 }, { COLL_REDUCESCATTER, 131072 * 2, IR_DTYPE_BF16 },
		{ COLL_ALLTOALL, 8192 * 4, IR_DTYPE_FP32 },
	};

	g_assert_cmpint(w->nranks, ==, 2);
	g_assert_cmpint(w->ncomms, ==, 1);
	g_assert_cmpstr(w->comms[0].name, ==, "world");
	for (int r = 0; r < 2; r++) {
		const struct wl_program *p = &w->progs[r];
		guint k = 0;

		for (uint32_t i = 0; i < p->nops; i++) {
			const struct wl_op *o = &p->ops[i];

			if (o->kind == WL_COMPUTE) {
				if (i)
					g_assert_cmpuint(o->nafter, ==, 1);
				continue;
			}
			g_assert_cmpuint(k, <, G_N_ELEMENTS(want));
			g_assert_cmpint(o->coll, ==, want[k].c);
			g_assert_cmpuint(o->bytes, ==, want[k].bytes);
			g_assert_cmpint(o->dtype, ==, want[k].dt);
			/* after the compute interval just before it */
			g_assert_cmpuint(o->nafter, ==, 1);
			g_assert_cmpint(p->ops[o->after[0]].kind, ==, WL_COMPUTE);
			g_assert_cmpuint(o->after[0], ==, i - 1);
			k++;
		}
		g_assert_cmpuint(k, ==, G_N_ELEMENTS(want));
	}
	/* the two ranks' compute differs (their own timelines) */
	struct wl_totals t0, t1;

	workload_totals(w, 0, &t0);
	workload_totals(w, 1, &t1);
	g_assert_cmpuint(t0.compute_ps, !=, t1.compute_ps);
	g_assert_cmpuint(t0.compute_ps, >, 0);

	struct workload *back = roundtrip(w);

	assert_same(w, back);
	workload_free(back);
	workload_free(w);

	/* one trace stands for every rank */
	w = import_ok(paths + 1, 1);
	g_assert_cmpint(w->nranks, ==, 2);
	g_assert_cmpuint(w->progs[1].nops, ==, w->progs[0].nops);
	workload_free(w);
}

static void import_fails(const char *const *paths, int n, const char *want)
{
	GError *err = NULL;
	struct workload *w = workload_import_torch(paths, n, &err);

	g_assert_null(w);
	g_assert_nonnull(err);
	if (!strstr(err->message, want))
		g_error("message '%s' lacks '%s'", err->message, want);
	g_error_free(err);
}

/* A copy of `src` with its text cut at `len`, or with the first `from` (every
 * one: `all`) replaced. */
static char *damaged(const char *dir, const char *src, gssize len, const char *from, const char *to,
		     bool all)
{
	g_autofree char *text = NULL;
	gsize n;
	char *path = g_build_filename(dir, "bad.json", NULL);

	g_assert_true(g_file_get_contents(src, &text, &n, NULL));
	if (from && all) {
		g_auto(GStrv) parts = g_strsplit(text, from, -1);
		g_autofree char *joined = g_strjoinv(to, parts);

		g_assert_cmpuint(g_strv_length(parts), >, 1);
		g_assert_true(g_file_set_contents(path, joined, -1, NULL));
	} else if (from) {
		char *at = strstr(text, from);

		g_assert_nonnull(at);
		GString *s = g_string_new_len(text, at - text);

		g_string_append(s, to);
		g_string_append(s, at + strlen(from));
		g_assert_true(g_file_set_contents(path, s->str, (gssize)s->len, NULL));
		g_string_free(s, TRUE);
	} else {
		g_assert_true(g_file_set_contents(path, text, len, NULL));
	}
	return path;
}

static void test_import_errors(void)
{
	const char *nccl1[] = { DATA "torch-nccl-w1-rank0.json" };
	const char *g0 = DATA "torch-gloo-w2-rank0.json";
	const char *two0[] = { g0, g0 };
	const char *missing[] = { DATA "no-such-trace.json" };
	g_autofree char *dir = g_dir_make_tmp("g5-wl-XXXXXX", NULL);

	import_fails(nccl1, 1, "a world of 1 rank");
	import_fails(two0, 2, "are both traces of rank 0");
	import_fails(missing, 1, "no-such-trace.json");

	/* truncations at several places: an error naming the file, never a crash */
	gsize n;
	g_autofree char *text = NULL;

	g_assert_true(g_file_get_contents(g0, &text, &n, NULL));
	for (gsize cut = 1; cut < n; cut += n / 7) {
		g_autofree char *p = damaged(dir, g0, (gssize)cut, NULL, NULL, false);
		const char *one[] = { p };

		import_fails(one, 1, "bad.json:");
		g_unlink(p);
	}
	static const struct {
		const char *from, *to, *want;
		bool all;
	} rows[] = {
		{ "\"traceEvents\"", "\"traceEvent\"", "no 'traceEvents' list", false },
		{ "\"distributedInfo\"", "\"distributedInf\"", "no 'distributedInfo'", false },
		{ "\"c10d::allreduce_\"", "\"c10d::allreduce_x\"", "", false }, /* unknown: left out */
		{ "c10::BFloat16", "c10::Float8", "c10d::_allgather_base_: no element type", true },
		{ "\"pg_count\": 1", "\"pg_count\": 2", "2 process groups", false },
		{ "\"ts\": 5266010623797.235", "\"ts\": \"soon\"", "without 'ph': 'X', 'ts' and 'dur'", false },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree char *p = damaged(dir, g0, -1, rows[i].from, rows[i].to, rows[i].all);
		const char *one[] = { p };

		if (*rows[i].want) {
			import_fails(one, 1, rows[i].want);
		} else {
			struct workload *w = import_ok(one, 1);
			struct wl_totals t;

			workload_totals(w, 0, &t);
			g_assert_cmpuint(t.colls, ==, 6); /* one AllReduce fewer */
			workload_free(w);
		}
		g_unlink(p);
	}
	g_rmdir(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/workload/program", test_program);
	g_test_add_func("/workload/programs", test_programs);
	g_test_add_func("/workload/errors", test_errors);
	g_test_add_func("/workload/repeat-p2p", test_repeat_p2p);
	g_test_add_func("/workload/generate/dp", test_generate_dp);
	g_test_add_func("/workload/generate/fsdp-tp-moe", test_generate_fsdp_tp_moe);
	g_test_add_func("/workload/write/roundtrip", test_write_roundtrip);
	g_test_add_func("/workload/import/gloo", test_import_gloo);
	g_test_add_func("/workload/import/errors", test_import_errors);
	return g_test_run();
}
