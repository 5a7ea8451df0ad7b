/* Tests of the executor's plain-C core (gpu/core) on the host backend, so
 * that CI checks every schedule the executor would run on GPUs:
 *   - the reader against the simulator's writer: every registered
 *     algorithm, written by sched_file_format() and read back by
 *     gx_sched_parse(), gives the same schedule field for field, and its
 *     chunking rule gives the same element ranges as sched_unit_range();
 *   - the interpreter: every algorithm x collective the registry admits for
 *     N in {2, 3, 4, 5, 8, 16} and nchunks {1, 2, 4} (hierarchical ones, and
 *     a few hier-INTRA-INTER pairs, on nodes of 4, 2 or 1 ranks: both tiers
 *     where N allows), every dtype, in place
 *     and out of place, several sizes (fewer elements than units, odd
 *     sizes), run on threads and compared with the host reference; flags run
 *     on over several iterations;
 *   - the files `g5 schedule` prints (binary in env G5) for every 2-rank
 *     algorithm: byte for byte what the registry builds (a refusal exits 2
 *     with the registry's reason), parsed and run the same way;
 *   - damaged files, rejected with FILE:LINE: message;
 *   - plan errors (unmatched sends, size mismatches), a deadlocking schedule
 *     reported as such, and a wrong schedule counted as wrong.
 * The core's sources are compiled into this test directly: they are plain C
 * with no GLib, built here by cc as on the GPU host by nvcc. */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/algos/algo.h"
#include "sim/algos/schedule.h"
#include "sim/algos/schedule_file.h"
#include "sim/config.h"
#include "sim/platform.h"

#include "gpu/core/data.c"
#include "gpu/core/host.c"
#include "gpu/core/parse.c"
#include "gpu/core/plan.c"
#include "gpu/core/sched.c"

static const int test_ranks[] = { 2, 3, 4, 5, 8, 16 };
static const uint32_t test_chunks[] = { 1, 2, 4 };

/* ---- helpers ---- */

static struct gx_sched *gx_from_text(const char *text, const char *name)
{
	char err[512];
	struct gx_sched *g = gx_sched_parse(text, strlen(text), name, err, sizeof(err));

	if (!g)
		g_test_message("%s", err);
	return g;
}

/* Field-by-field equality of the simulator's schedule and the executor's. */
static void assert_same(const struct sched *a, const struct gx_sched *b)
{
	g_assert_cmpint((int)a->coll, ==, (int)b->coll);
	g_assert_cmpstr(a->algo, ==, b->algo);
	g_assert_cmpint(a->nranks, ==, b->nranks);
	g_assert_cmpint(a->root, ==, b->root);
	g_assert_cmpint(a->peer, ==, b->peer);
	g_assert_cmpuint(a->nblocks, ==, b->nblocks);
	g_assert_cmpuint(a->nchunks, ==, b->nchunks);
	g_assert_cmpuint(a->nunits, ==, b->nunits);
	g_assert_cmpuint(a->scratch_units, ==, b->scratch_units);
	g_assert_cmpuint(a->nsteps, ==, b->nsteps);
	g_assert_cmpuint(a->nlanes, ==, b->nlanes);
	g_assert_cmpint(a->inplace_ok, ==, b->inplace_ok);
	g_assert_cmpint(!a->weights, ==, !b->weights);
	for (uint32_t i = 0; a->weights && i < a->nblocks; i++)
		g_assert_cmpuint(a->weights[i], ==, b->weights[i]);
	for (int r = 0; r < a->nranks; r++) {
		const struct sched_rank *x = &a->ranks[r];
		const struct gx_rank *y = &b->ranks[r];

		g_assert_cmpuint(x->in_lo, ==, y->in_lo);
		g_assert_cmpuint(x->in_hi, ==, y->in_hi);
		g_assert_cmpuint(x->out_lo, ==, y->out_lo);
		g_assert_cmpuint(x->out_hi, ==, y->out_hi);
		g_assert_cmpuint(x->ops->len, ==, y->nops);
		for (uint32_t i = 0; i < y->nops; i++) {
			const struct sched_op *o = sched_op_at(a, r, i);
			const struct gx_op *p = &y->ops[i];

			g_assert_cmpuint(o->kind, ==, p->kind);
			g_assert_cmpuint(o->paxi, ==, p->proto);
			g_assert_cmpuint(o->lane, ==, p->lane);
			g_assert_cmpint(o->recv_peer, ==, p->recv_peer);
			g_assert_cmpint(o->send_peer, ==, p->send_peer);
			g_assert_cmpuint(o->count, ==, p->count);
			g_assert_cmpuint(o->step, ==, p->step);
			if (p->src_buf) {
				g_assert_cmpuint(o->src_buf, ==, p->src_buf);
				g_assert_cmpuint(o->src_off, ==, p->src_off);
			}
			if (p->dst_buf) {
				g_assert_cmpuint(o->dst_buf, ==, p->dst_buf);
				g_assert_cmpuint(o->dst_off, ==, p->dst_off);
			}
			g_assert_cmpuint(o->ndeps, ==, p->ndeps);
			for (uint32_t d = 0; d < p->ndeps; d++)
				g_assert_cmpuint(sched_op_deps(a, r, i)[d], ==,
						 y->deps[p->dep_first + d]);
		}
	}
}

static void assert_same_units(const struct sched *a, const struct gx_sched *b, uint64_t elems)
{
	for (uint32_t u = 0; u < a->nunits; u++) {
		uint64_t first, count;

		sched_unit_range(a, elems, u, &first, &count);
		g_assert_cmpuint(gx_unit_first(b, elems, u), ==, first);
		g_assert_cmpuint(gx_unit_first(b, elems, u + 1), ==, first + count);
	}
}

/* Sizes to run: fewer elements than units, and two odd sizes (AllToAll's
 * blocks must be equal, so its sizes are multiples of N). */
static int test_sizes(const struct gx_sched *s, uint64_t out[3])
{
	uint64_t n = (uint64_t)s->nranks;

	if (s->coll == GX_COLL_ALLTOALL) {
		out[0] = n;
		out[1] = n * (s->nchunks * 3 + 2);
		out[2] = n * 37;
		return 3;
	}
	out[0] = s->nunits > 1 ? s->nunits - 1 : 1;
	out[1] = (uint64_t)s->nunits * 3 + 5;
	out[2] = 293;
	return 3;
}

/* Runs g on the host for every dtype, in place and out of place, at each
 * size, half of the runs on each wire (simple and LL, alternating so that
 * each wire meets every dtype, size and placement over the schedules);
 * asserts no wrong element. Returns the number of runs. */
static int run_all(const struct gx_sched *g, const char *what, uint32_t iters)
{
	uint64_t sizes[3];
	int nsizes = test_sizes(g, sizes), runs = 0;

	for (int d = 0; d < GX_NDTYPES; d++)
		for (int inplace = 0; inplace < 2; inplace++)
			for (int k = 0; k < nsizes; k++) {
				struct gx_host_opts o = {
					.nchannels = k == 1 ? 1 : 2,
					.slice_elems = k == 2 ? 7 : 3,
					.max_slots = 0,
					.iters = iters,
					.timeout_s = 20,
					.wire = (d + inplace + k + (int)g->nranks) % 2 ? GX_WIRE_LL
										: GX_WIRE_SIMPLE,
				};
				char err[512] = "";
				int64_t wrong = gx_host_run(g, sizes[k], (enum gx_dtype)d, inplace != 0,
							    &o, err, sizeof(err));

				if (wrong != 0)
					g_test_message("%s, %s, %s, %s, %llu elements: %s (wrong %lld)",
						       what, gx_wire_name(o.wire),
						       gx_dtype_name((enum gx_dtype)d),
						       inplace ? "in place" : "out of place",
						       (unsigned long long)sizes[k], err,
						       (long long)wrong);
				g_assert_cmpint(wrong, ==, 0);
				runs++;
			}
	return runs;
}

/* ---- every registered algorithm, in process ---- */

struct algo_case {
	const struct algo_ops *a;
	enum coll c;
	int dims[3];    /* torus algorithms: a shape (only its N builds), or none */
};

static void test_algo(gconstpointer data)
{
	const struct algo_case *tc = (const struct algo_case *)data;
	int built = 0, runs = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(test_ranks); i++)
		for (size_t j = 0; j < G_N_ELEMENTS(test_chunks); j++) {
			uint64_t weights[16];
			int n = test_ranks[i];
			struct algo_params p = {
				.nranks = n,
				.nchunks = test_chunks[j],
				.root = 0,
				.peer = 1,
				/* hierarchical: nodes of 4 ranks, else 2, else 1 */
				.node_ranks = !tc->a->tiers[0] ? 0 : n % 4 == 0 && n > 4 ? 4 : n % 2 ? 1 : 2,
			};
			GError *error = NULL;

			memcpy(p.dims, tc->dims, sizeof(tc->dims));
			/* AllGatherV: uneven counts with one empty rank */
			for (int r = 0; r < 16; r++)
				weights[r] = r == 1 ? 0 : (uint64_t)(r % 3 + 1);
			if (tc->c == COLL_ALLGATHERV)
				p.weights = weights;
			struct sched *s = algo_build(tc->a, tc->c, &p, &error);

			if (!s) {
				g_assert_nonnull(error);
				g_clear_error(&error);
				continue;
			}
			char *text = sched_file_format(s);
			char name[128];

			g_snprintf(name, sizeof(name), "%s-%s-n%d-k%u", coll_name(tc->c), tc->a->name,
				   p.nranks, p.nchunks);
			struct gx_sched *g = gx_from_text(text, name);

			g_assert_nonnull(g);
			assert_same(s, g);
			assert_same_units(s, g, 1);
			assert_same_units(s, g, 1000003);
			/* Flags run on: the second and third iteration reuse the regions. */
			runs += run_all(g, name, p.nranks <= 4 && p.nchunks == 1 ? 3 : 1);
			built++;
			gx_sched_free(g);
			g_free(text);
			sched_free(s);
		}
	g_test_message("%s %s: %d schedules, %d runs", coll_name(tc->c), tc->a->name, built, runs);
	g_assert_cmpint(built, >, 0);
}

/* Bounded staging: with one or two slots per connection the credits wrap
 * many times within a message, and a Send/Recv message longer than the
 * staging flows segment by segment. (Schedules in general need staging for
 * a whole iteration, the default: a ring's fused op must forward into a
 * connection whose earlier messages are still queued, so with a slot or
 * two the ring deadlocks; Transfer is one-sided and never waits.) */
static struct gx_sched *tiny(enum gx_kind k0, enum gx_kind k1, bool dep);

static void test_bounded_slots(void)
{
	for (int proto = 0; proto < 2; proto++)
		for (uint64_t slots = 1; slots <= 2; slots++) {
			struct gx_sched *s = tiny(GX_OP_SEND, GX_OP_RECV_REDUCE, false);
			struct gx_host_opts o = { .nchannels = 2, .slice_elems = 3,
						  .max_slots = slots, .iters = 3, .timeout_s = 20,
						  .wire = slots == 2 ? GX_WIRE_LL : GX_WIRE_SIMPLE };
			char err[512] = "";

			for (int r = 0; r < 2; r++)
				for (int i = 0; i < 2; i++)
					s->ranks[r].ops[i].proto = (uint8_t)proto;
			for (int d = 0; d < GX_NDTYPES; d++) {
				int64_t wrong = gx_host_run(s, 1001, (enum gx_dtype)d, false, &o, err,
							    sizeof(err));

				if (wrong)
					g_test_message("%s slots %llu: %s",
						       gx_proto_name((enum gx_proto)proto),
						       (unsigned long long)slots, err);
				g_assert_cmpint(wrong, ==, 0);
			}
			gx_sched_free(s);
		}
}

/* A receiving op by Send/Recv raises its sender's ready flag before the
 * channel runs a slice of another op: when rank 1 finds its send runnable
 * (rank 0 is ready), its own receive has still started, so rank 0 may send
 * at once instead of after rank 1's send has crossed. */
static void test_ready_first(void)
{
	struct gx_sched *s = tiny(GX_OP_SEND, GX_OP_RECV_REDUCE, false);
	char err[512] = "";
	struct gx_plan *p;
	struct gx_chan ch[2];
	char *regions[2];
	uint64_t *done[2], sent[2][4], *ready;
	uint32_t next[2][2];
	uint8_t state[2][2];
	struct gx_work w;

	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 2; i++)
			s->ranks[r].ops[i].proto = GX_SENDRECV;
	p = gx_plan_new(s, 64, 4, 1, 64, 0, GX_WIRE_SIMPLE, true, err, sizeof(err));
	g_assert_nonnull(p);
	g_assert_cmpuint(p->nconns, ==, 2);
	for (int r = 0; r < 2; r++) {
		regions[r] = g_malloc0(p->ranks[r].region_bytes);
		done[r] = g_new0(uint64_t, p->ranks[r].nops);
	}
	for (int r = 0; r < 2; r++) {
		memset(&ch[r], 0, sizeof(ch[r]));
		ch[r].ops = p->ranks[r].ops;
		ch[r].nops = p->ranks[r].nops;
		ch[r].deps = p->ranks[r].deps;
		ch[r].conns = p->conns;
		ch[r].nconns = p->nconns;
		ch[r].regions = regions;
		ch[r].rank = r;
		ch[r].nchannels = 1;
		ch[r].slice_elems = p->slice_elems;
		ch[r].slice_bytes = (p->slice_elems * 4 + 15) / 16 * 16;
		ch[r].sent = sent[r];
		ch[r].recvd = sent[r] + 2;
		ch[r].next = next[r];
		ch[r].state = state[r];
		ch[r].done = done[r];
		gx_chan_begin(&ch[r], 0);
	}
	gx_find_work(&ch[0], &w); /* rank 1 is not ready yet: rank 0 waits */
	g_assert_cmpint(w.op, ==, -1);
	gx_find_work(&ch[1], &w); /* rank 0 is ready: rank 1 sends */
	g_assert_cmpint(w.op, ==, 0);
	ready = NULL;
	for (uint32_t c = 0; c < p->nconns; c++)
		if (p->conns[c].sender == 0)
			ready = (uint64_t *)(regions[0] + p->conns[c].ready_off);
	g_assert_nonnull(ready);
	g_assert_cmpuint(*ready, ==, 1); /* rank 1's receive is ready for message 0 */
	gx_find_work(&ch[0], &w);
	g_assert_cmpint(w.op, ==, 0);
	for (int r = 0; r < 2; r++) {
		g_free(regions[r]);
		g_free(done[r]);
	}
	gx_plan_free(p);
	gx_sched_free(s);
}

/* The bus bandwidth factor the executor reports and the one the simulator
 * reports are nccl-tests' (docs/design.md "Sizes and metrics"), for every
 * collective and N. */
static void test_busbw_factor(void)
{
	for (unsigned c = COLL_ALLREDUCE; c <= COLL_ALLGATHERV; c <<= 1)
		for (int n = 2; n <= 64; n++) {
			double want = c == COLL_ALLREDUCE ? 2.0 * (n - 1) / n
				      : c == COLL_ALLGATHER || c == COLL_ALLGATHERV ||
						c == COLL_REDUCESCATTER || c == COLL_ALLTOALL
					      ? (double)(n - 1) / n
					      : 1.0;

			g_assert_cmpfloat(gx_busbw_factor((enum gx_coll)c, n), ==, want);
			g_assert_cmpfloat(platform_busbw_factor((enum coll)c, n), ==, want);
		}
}

/* One dtype parser: the executor and the simulator read the same names
 * (G5's and nccl-tests') as the same type and size, and refuse the same. */
static void test_dtype_names(void)
{
	static const struct {
		const char *name;
		int d; /* -1: refused */
	} cases[] = {
		{ "fp32", GX_F32 }, { "float", GX_F32 },    { "float32", GX_F32 },
		{ "fp16", GX_F16 }, { "half", GX_F16 },     { "float16", GX_F16 },
		{ "bf16", GX_BF16 }, { "bfloat16", GX_BF16 }, { "fp8", -1 },
		{ "double", -1 },   { "FP32", -1 },         { "", -1 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		enum gx_dtype g = GX_NDTYPES;
		enum dtype d = DTYPE_BF16;
		bool gok = gx_dtype_parse(cases[i].name, &g), sok = dtype_parse(cases[i].name, &d);

		g_assert_cmpint(gok, ==, cases[i].d >= 0);
		g_assert_cmpint(sok, ==, cases[i].d >= 0);
		if (cases[i].d < 0)
			continue;
		g_assert_cmpint(g, ==, cases[i].d);
		g_assert_cmpint(d, ==, cases[i].d);
		g_assert_cmpuint(gx_dtype_size(g), ==, dtype_elem_bytes(d));
	}
}

/* ---- the files g5 prints ---- */

static void test_g5_files(void)
{
	const char *g5 = g_getenv("G5");
	int files = 0, refused = 0;

	if (!g5 || !g_file_test(g5, G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("G5 is not set to the g5 binary");
		return;
	}
	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
			if (!((*a)->collectives & bit))
				continue;
			for (uint32_t k = 1; k <= 2; k++) {
				char *argv[] = { (char *)g5, "schedule", "--collective",
						 (char *)coll_name((enum coll)bit), "--algo",
						 (char *)(*a)->name, "--ranks", "2", "--nchunks",
						 k == 1 ? "1" : "2", NULL };
				struct algo_params p = { .nranks = 2, .nchunks = k, .root = 0, .peer = 1 };
				char *out = NULL, *errout = NULL;
				int status = 0;
				GError *error = NULL;
				/* what g5 must print: the registry's build, or its refusal */
				struct sched *s = algo_build(*a, (enum coll)bit, &p, &error);

				g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
							   &out, &errout, &status, NULL));
				g_assert_true(WIFEXITED(status));
				if (!s) {
					/* not admitted on 2 ranks: refused as bad usage, with
					 * the registry's reason */
					g_assert_cmpint(WEXITSTATUS(status), ==, 2);
					g_assert_nonnull(strstr(errout, error->message));
					g_assert_cmpstr(out, ==, "");
					g_clear_error(&error);
					refused++;
					g_free(out);
					g_free(errout);
					continue;
				}
				if (WEXITSTATUS(status) != 0)
					g_error("g5 schedule %s %s -k %u failed: %s",
						coll_name((enum coll)bit), (*a)->name, k, errout);
				g_autofree char *want = sched_file_format(s);

				g_assert_cmpstr(out, ==, want);
				char name[128];

				g_snprintf(name, sizeof(name), "g5-%s-%s", coll_name((enum coll)bit),
					   (*a)->name);
				struct gx_sched *g = gx_from_text(out, name);

				g_assert_nonnull(g);
				g_assert_cmpint(g->nranks, ==, 2);
				assert_same(s, g);
				run_all(g, name, 2);
				files++;
				gx_sched_free(g);
				sched_free(s);
				g_free(out);
				g_free(errout);
			}
		}
	g_test_message("%d files from g5 schedule, %d refused", files, refused);
	g_assert_cmpint(files, >, 0);
}

/* ---- damaged files ---- */

static char *ring_text(void)
{
	GError *error = NULL;
	const struct algo_ops *a = algo_find(COLL_ALLREDUCE, "ring", &error);
	struct algo_params p = { .nranks = 2, .nchunks = 1, .peer = 1 };

	g_assert_no_error(error);
	struct sched *s = algo_build(a, COLL_ALLREDUCE, &p, &error);

	g_assert_no_error(error);
	char *text = sched_file_format(s);

	sched_free(s);
	return text;
}

/* The text with the first occurrence of `from` replaced by `to`. */
static char *replace_once(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);

	g_assert_nonnull(at);
	return g_strdup_printf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

static void test_damaged(void)
{
	static const struct {
		const char *from, *to;
		const char *msg; /* expected part of the message after "bad.g5s:LINE: " */
		unsigned line;
	} cases[] = {
		{ "g5-schedule 1", "g5-schedule 2", "version", 1 },
		{ "g5-schedule 1", "g5-sched 1", "not a schedule file", 1 },
		{ "collective allreduce", "collective allreduse", "unknown collective 'allreduse'", 2 },
		{ "algo ring\n", "algo ring\nalgo ring\n", "'algo' given twice", 4 },
		{ "algo ring\n", "algorithm ring\n", "unknown keyword 'algorithm'", 3 },
		{ "algo ring\n", "", "the header has no 'algo'", 0 },
		{ "ranks 2", "ranks two", "'ranks' must be a number", 0 },
		{ "ranks 2", "ranks 20000", "'ranks' must be at most 16384", 0 },
		{ "units 2", "units 3", "'units' must be nblocks x nchunks", 0 },
		{ "rank 0 in 0 2", "rank 0 in 0 1", "differ from the allreduce windows", 0 },
		{ "rank 1 in", "rank 2 in", "ranks out of order", 0 },
		{ "op 1 ", "op 2 ", "ops out of order", 0 },
		{ " send transfer", " sned transfer", "unknown op kind 'sned'", 0 },
		{ " send transfer", " send teleport", "unknown PAXI kind 'teleport'", 0 },
		{ "in:1", "in:7", "leaves the in window", 0 },
		{ "in:1", "ni:1", "unknown buffer 'ni'", 0 },
		{ "in:1", "in:x", "'src' must be a number", 0 },
		{ "-1 1 in:1", "-1 5 in:1", "'send' must be at most 1", 0 },
		{ "-1 1 in:1", "0 1 in:1", "'send' takes no a receive peer", 0 },
		{ "steps 2", "steps 9", "'steps' is 9 but the ops have", 0 },
		{ "lanes 1", "lanes 2", "'lanes' is 2 but the ops have", 0 },
		{ "\nend", "\nnot-end", "expected 'end'", 0 },
		{ "\nend\n", "\nend\nmore\n", "text after 'end'", 0 },
		{ "\nend\n", "\n", "truncated: no 'end' line", 0 },
	};
	char *good = ring_text();
	char err[512];
	struct gx_sched *g;

	/* the original, with comments, blank lines and CRLF, is accepted */
	g = gx_from_text(good, "good.g5s");
	g_assert_nonnull(g);
	gx_sched_free(g);
	{
		char *t1 = replace_once(good, "\n", "\n# a comment\n\n");
		GString *crlf = g_string_new(NULL);

		for (const char *c = t1; *c; c++) {
			if (*c == '\n')
				g_string_append_c(crlf, '\r');
			g_string_append_c(crlf, *c);
		}
		g = gx_from_text(crlf->str, "crlf.g5s");
		g_assert_nonnull(g);
		gx_sched_free(g);
		g_string_free(crlf, TRUE);
		g_free(t1);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *bad = replace_once(good, cases[i].from, cases[i].to);

		g = gx_sched_parse(bad, strlen(bad), "bad.g5s", err, sizeof(err));
		if (g)
			g_test_message("case %zu accepted: %s -> %s", i, cases[i].from, cases[i].to);
		g_assert_null(g);
		g_assert_true(g_str_has_prefix(err, "bad.g5s:"));
		if (!strstr(err, cases[i].msg))
			g_test_message("case %zu: got '%s', want '%s'", i, err, cases[i].msg);
		g_assert_nonnull(strstr(err, cases[i].msg));
		if (cases[i].line) {
			char want[32];

			g_snprintf(want, sizeof(want), "bad.g5s:%u: ", cases[i].line);
			g_assert_true(g_str_has_prefix(err, want));
		}
		g_free(bad);
	}
	/* every truncation of the file is rejected, never accepted or crashing */
	for (size_t len = 0; len + 1 < strlen(good); len++) {
		g = gx_sched_parse(good, len, "cut.g5s", err, sizeof(err));
		g_assert_null(g);
		g_assert_true(g_str_has_prefix(err, "cut.g5s:"));
	}
	g = gx_sched_read("/nonexistent/x.g5s", err, sizeof(err));
	g_assert_null(g);
	g_assert_true(g_str_has_prefix(err, "/nonexistent/x.g5s:"));
	g_free(good);
}

/* ---- plan and run errors ---- */

/* Two ranks, each op given as (kind, recv, send, src_buf, dst_buf, deps). */
static struct gx_sched *tiny(enum gx_kind k0, enum gx_kind k1, bool dep)
{
	struct gx_sched *s = gx_sched_new(GX_COLL_ALLREDUCE, "tiny", 2, 2, 1);

	s->inplace_ok = true;
	for (int r = 0; r < 2; r++) {
		struct gx_op a = { .kind = (uint8_t)k0, .count = 2, .recv_peer = -1, .send_peer = -1 };
		struct gx_op b = { .kind = (uint8_t)k1, .count = 2, .recv_peer = -1, .send_peer = -1 };
		uint32_t d = 0;

		a.recv_peer = (gx_kind_flags(k0) & GX_F_RECV) ? 1 - r : -1;
		a.send_peer = (gx_kind_flags(k0) & GX_F_SEND) ? 1 - r : -1;
		a.src_buf = (gx_kind_flags(k0) & GX_F_SRC) ? GX_BUF_IN : 0;
		a.dst_buf = (gx_kind_flags(k0) & GX_F_DST) ? GX_BUF_OUT : 0;
		b.recv_peer = (gx_kind_flags(k1) & GX_F_RECV) ? 1 - r : -1;
		b.send_peer = (gx_kind_flags(k1) & GX_F_SEND) ? 1 - r : -1;
		b.src_buf = (gx_kind_flags(k1) & GX_F_SRC) ? GX_BUF_IN : 0;
		b.dst_buf = (gx_kind_flags(k1) & GX_F_DST) ? GX_BUF_OUT : 0;
		gx_sched_add(s, r, &a, NULL, 0);
		gx_sched_add(s, r, &b, &d, dep ? 1 : 0);
	}
	return s;
}

static void test_plan_errors(void)
{
	char err[512];
	struct gx_plan *p;
	struct gx_sched *s = tiny(GX_OP_SEND, GX_OP_COPY, false);

	/* sends with no receive */
	p = gx_plan_new(s, 100, 4, 1, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
	g_assert_null(p);
	g_assert_nonnull(strstr(err, "sends 1 messages to rank"));
	gx_sched_free(s);

	/* a receive with no sender */
	s = tiny(GX_OP_RECV, GX_OP_COPY, false);
	p = gx_plan_new(s, 100, 4, 1, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
	g_assert_null(p);
	g_assert_nonnull(strstr(err, "which never sends"));
	gx_sched_free(s);

	/* matched, but the receive moves a different size */
	s = tiny(GX_OP_SEND, GX_OP_RECV_REDUCE, false);
	s->ranks[1].ops[1].count = 1;
	s->ranks[1].ops[0].count = 1;
	p = gx_plan_new(s, 101, 4, 1, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
	g_assert_null(p);
	g_assert_nonnull(strstr(err, "which receives"));
	gx_sched_free(s);

	/* protocol mismatch */
	s = tiny(GX_OP_SEND, GX_OP_RECV_REDUCE, false);
	s->ranks[1].ops[1].proto = GX_SENDRECV;
	p = gx_plan_new(s, 100, 4, 1, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
	g_assert_null(p);
	g_assert_nonnull(strstr(err, "receives by sendrecv"));
	gx_sched_free(s);

	/* AllGatherV pad below the size its counts sum to: counts 1,2 at one
	 * element give block 0 the element and the slot (block 1's) none, so
	 * the copy into the slot would drop it: refused; at three it plans */
	{
		uint64_t w[2] = { 1, 2 };
		struct algo_params ap = { .nranks = 2, .nchunks = 1, .peer = 1, .weights = w };
		const struct algo_ops *pad = algo_find(COLL_ALLGATHERV, "pad", NULL);
		struct sched *ps = algo_build(pad, COLL_ALLGATHERV, &ap, NULL);
		char *text = sched_file_format(ps);
		struct gx_sched *g = gx_from_text(text, "pad");

		p = gx_plan_new(g, 1, 4, 1, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
		g_assert_null(p);
		g_assert_nonnull(strstr(err, "rank 0 op 0: a copy of 1 elements of its in into 0 would"
					     " drop data"));
		p = gx_plan_new(g, 3, 4, 1, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
		g_assert_nonnull(p);
		gx_plan_free(p);
		gx_sched_free(g);
		g_free(text);
		sched_free(ps);
	}

	/* the well-formed exchange plans: one connection each way */
	s = tiny(GX_OP_SEND, GX_OP_RECV_REDUCE, false);
	p = gx_plan_new(s, 100, 4, 3, 8, 0, GX_WIRE_SIMPLE, false, err, sizeof(err));
	g_assert_nonnull(p);
	g_assert_cmpuint(p->nconns, ==, 2);
	g_assert_cmpuint(p->ranks[0].ops[0].n, ==, 100);
	g_assert_cmpuint(p->ranks[0].ops[0].nslices, ==, 5); /* ceil(ceil(100/3)/8) */
	g_assert_cmpuint(p->conns[0].slices, ==, 5);
	gx_plan_free(p);
	gx_sched_free(s);
}

static void test_deadlock_reported(void)
{
	/* each rank receives first and sends only after that (a dep): both
	 * wait for the other forever */
	struct gx_sched *s = tiny(GX_OP_RECV_REDUCE, GX_OP_SEND, true);
	struct gx_host_opts o = { .nchannels = 1, .slice_elems = 4, .iters = 1, .timeout_s = 0.3 };
	char err[512] = "";
	int64_t wrong;

	wrong = gx_host_run(s, 64, GX_F32, false, &o, err, sizeof(err));
	g_assert_cmpint(wrong, ==, -1);
	g_assert_nonnull(strstr(err, "makes no progress"));
	g_assert_nonnull(strstr(err, "recv_reduce"));
	gx_sched_free(s);
}

static void test_wrong_counted(void)
{
	/* a correct 2-rank AllReduce exchange: send all, receive-reduce all */
	struct gx_sched *s = tiny(GX_OP_SEND, GX_OP_RECV_REDUCE, false);
	struct gx_host_opts o = { .nchannels = 2, .slice_elems = 5, .iters = 2, .timeout_s = 10 };
	char err[512] = "";

	for (int d = 0; d < GX_NDTYPES; d++)
		g_assert_cmpint(gx_host_run(s, 333, (enum gx_dtype)d, false, &o, err, sizeof(err)),
				==, 0);
	/* receive without the reduction: every output element is wrong */
	for (int r = 0; r < 2; r++) {
		s->ranks[r].ops[1].kind = GX_OP_RECV;
		s->ranks[r].ops[1].src_buf = GX_BUF_NONE;
	}
	g_assert_cmpint(gx_host_run(s, 333, GX_F32, false, &o, err, sizeof(err)), ==, 2 * 333 * 2);
	gx_sched_free(s);
}

static void test_dtypes(void)
{
	/* round to nearest even, and the exact-integer ranges */
	g_assert_cmpuint(gx_f32_to_f16(1.0f), ==, 0x3c00);
	g_assert_cmpuint(gx_f32_to_f16(2049.0f), ==, 0x6800);   /* tie to even: 2048 */
	g_assert_cmpuint(gx_f32_to_f16(2051.0f), ==, 0x6802);   /* tie to even: 2052 */
	g_assert_cmpuint(gx_f32_to_f16(65520.0f), ==, 0x7c00);  /* overflow */
	g_assert_cmpfloat(gx_f16_to_f32(0x0001), ==, 1.0f / 16777216.0f);
	g_assert_cmpuint(gx_f32_to_bf16(257.0f), ==, 0x4380);  /* 256 */
	g_assert_cmpuint(gx_f32_to_bf16(259.0f), ==, 0x4382);  /* 260 */
	g_assert_cmpfloat(gx_bf16_to_f32(gx_f32_to_bf16(3.0f)), ==, 3.0f);
	for (int n = 2; n <= 256; n *= 2) {
		g_assert_cmpuint((uint64_t)gx_input_range(GX_BF16, n) * n, <=, 256);
		g_assert_cmpuint((uint64_t)gx_input_range(GX_F16, n) * n, <=, 2048);
	}
	g_assert_cmpuint(gx_input_range(GX_F32, 16), ==, 1024);
	/* inputs never zero, and rank-dependent */
	int same = 0;

	for (uint64_t i = 0; i < 1000; i++) {
		g_assert_cmpuint(gx_input_value(3, i, 8), >=, 1);
		same += gx_input_value(0, i, 1024) == gx_input_value(1, i, 1024);
	}
	g_assert_cmpint(same, <, 20);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/gpu/host/dtypes", test_dtypes);
	g_test_add_func("/gpu/host/parse/damaged", test_damaged);
	g_test_add_func("/gpu/host/plan/errors", test_plan_errors);
	g_test_add_func("/gpu/host/run/deadlock-reported", test_deadlock_reported);
	g_test_add_func("/gpu/host/run/wrong-counted", test_wrong_counted);
	g_test_add_func("/gpu/host/run/bounded-slots", test_bounded_slots);
	g_test_add_func("/gpu/host/run/ready-first", test_ready_first);
	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
			if (!((*a)->collectives & bit))
				continue;
			struct algo_case *tc = g_new0(struct algo_case, 1);
			char *path = g_strdup_printf("/gpu/host/algo/%s/%s", coll_name((enum coll)bit),
						     (*a)->name);

			tc->a = *a;
			tc->c = (enum coll)bit;
			g_test_add_data_func_full(path, tc, test_algo, g_free);
			g_free(path);
		}
	/* the torus algorithms on 3-D shapes (the registry's loop above runs
	 * their default 2-D ones) */
	static const int shapes[][3] = { { 2, 2, 2 }, { 2, 2, 4 }, { 4, 2, 2 }, { 1, 4, 4 } };

	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		for (unsigned bit = 1; (*a)->takes_dims && bit <= COLL_ALLGATHERV; bit <<= 1) {
			if (!((*a)->collectives & bit))
				continue;
			for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++) {
				struct algo_case *tc = g_new0(struct algo_case, 1);
				char *path = g_strdup_printf("/gpu/host/algo/%s/%s/%dx%dx%d",
							     coll_name((enum coll)bit), (*a)->name,
							     shapes[i][0], shapes[i][1], shapes[i][2]);

				tc->a = *a;
				tc->c = (enum coll)bit;
				memcpy(tc->dims, shapes[i], sizeof(tc->dims));
				g_test_add_data_func_full(path, tc, test_algo, g_free);
				g_free(path);
			}
		}
	/* hierarchical pairs beside the registry's hier (ring, ring) */
	static const struct {
		enum coll c;
		const char *name;
	} hier[] = {
		{ COLL_ALLREDUCE, "hier-ring-hd" },
		{ COLL_ALLREDUCE, "hier-ring2p-dbtree" },
		{ COLL_ALLREDUCE, "hier-direct-sendrecv" },
		{ COLL_ALLREDUCE, "hier-chain-dbtree" },
		{ COLL_ALLREDUCE, "hier-binomial-ring" },
		{ COLL_ALLGATHER, "hier-ring-bruck" },
		{ COLL_ALLGATHER, "hier-ring2p-direct" },
		{ COLL_REDUCESCATTER, "hier-direct-ring2p" },
		{ COLL_REDUCESCATTER, "hier-sendrecv-direct" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(hier); i++) {
		struct algo_case *tc = g_new0(struct algo_case, 1);
		char *path = g_strdup_printf("/gpu/host/algo/%s/%s", coll_name(hier[i].c), hier[i].name);

		tc->a = algo_find(hier[i].c, hier[i].name, NULL);
		tc->c = hier[i].c;
		g_assert_nonnull(tc->a);
		g_test_add_data_func_full(path, tc, test_algo, g_free);
		g_free(path);
	}
	g_test_add_func("/gpu/host/g5-files", test_g5_files);
	g_test_add_func("/gpu/host/busbw-factor", test_busbw_factor);
	g_test_add_func("/gpu/host/dtype-names", test_dtype_names);
	return g_test_run();
}
