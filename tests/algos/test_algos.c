/* Tests of sim/algos: the chunking rule, names, the registry, the ring
 * family (verified over the N x nchunks matrix, steps against theory, NCCL's
 * op sequence), the verifier's rejections of hand-broken schedules, the
 * schedule file (round trips, damaged files with their line) and the g5
 * schedule / verify commands end to end (binary in $G5). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/algos/algo.h"
#include "sim/algos/families.h"
#include "sim/algos/schedule.h"
#include "sim/algos/schedule_file.h"
#include "sim/algos/verify.h"

static const struct algo_ops *const ring_family[] = {
	&algo_ring_ops, &algo_ring2p_ops, &algo_sendrecv_ops,
};
static const enum coll ring_colls[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };

static struct sched *build(const struct algo_ops *a, enum coll c, int n, uint32_t k)
{
	struct algo_params p = { .nranks = n, .nchunks = k };
	GError *err = NULL;
	struct sched *s = algo_build(a, c, &p, &err);

	g_assert_no_error(err);
	g_assert_nonnull(s);
	return s;
}

/* ---- chunking ---- */

static void check_cover(const struct sched *s, uint64_t elems, const uint64_t *want_counts)
{
	uint64_t next = 0;

	for (uint32_t u = 0; u < s->nunits; u++) {
		uint64_t first, count;

		sched_unit_range(s, elems, u, &first, &count);
		g_assert_cmpuint(first, ==, next);
		if (want_counts)
			g_assert_cmpuint(count, ==, want_counts[u]);
		next = first + count;
	}
	g_assert_cmpuint(next, ==, elems);
}

static void test_chunk_remainders(void)
{
	/* 10 elements, 3 blocks x 2 pieces: blocks 4, 3, 3 (remainder to the
	 * first); pieces 2+2, 2+1, 2+1 */
	struct sched *s = sched_new(COLL_ALLREDUCE, "t", 2, 3, 2);
	static const uint64_t c10[] = { 2, 2, 2, 1, 2, 1 };

	check_cover(s, 10, c10);
	/* 13 = 5, 4, 4 -> 3+2, 2+2, 2+2 */
	static const uint64_t c13[] = { 3, 2, 2, 2, 2, 2 };

	check_cover(s, 13, c13);
	/* exact */
	static const uint64_t c12[] = { 2, 2, 2, 2, 2, 2 };

	check_cover(s, 12, c12);
	sched_free(s);
}

/* The hazard tracker's deps: a write waits for the last writer and every
 * reader since; a write hands its cell's readers back, and readers of
 * another cell reuse them without picking up deps of the first. */
static void test_hazards_readers(void)
{
	struct sched *s = sched_new(COLL_ALLREDUCE, "t", 2, 2, 1);
	struct sched_hazards *h = sched_hazards_new(s);
	static const struct {
		enum sched_op_kind kind;
		uint32_t unit;
		uint32_t ndeps, deps[3];
	} ops[] = {
		{ SOP_RECV, 0, 0, { 0 } },          /* 0 writes u0 */
		{ SOP_SEND, 0, 1, { 0 } },          /* 1 reads u0 */
		{ SOP_SEND, 0, 1, { 0 } },          /* 2 reads u0 */
		{ SOP_RECV, 0, 3, { 0, 1, 2 } },    /* 3 overwrites u0 */
		{ SOP_SEND, 1, 0, { 0 } },          /* 4 reads u1 */
		{ SOP_SEND, 1, 0, { 0 } },          /* 5 reads u1 */
		{ SOP_SEND, 1, 0, { 0 } },          /* 6 reads u1 */
		{ SOP_RECV, 0, 1, { 3 } },          /* 7 overwrites u0 */
		{ SOP_RECV, 1, 3, { 4, 5, 6 } },    /* 8 overwrites u1 */
		{ SOP_SEND, 1, 1, { 8 } },          /* 9 reads u1 */
	};

	for (uint32_t i = 0; i < G_N_ELEMENTS(ops); i++) {
		struct sched_op o = { .kind = ops[i].kind, .lane = 0, .count = 1,
				      .src_buf = SBUF_NONE, .dst_buf = SBUF_NONE,
				      .recv_peer = -1, .send_peer = -1 };

		if (ops[i].kind == SOP_SEND) {
			o.send_peer = 1;
			o.src_buf = SBUF_IN;
			o.src_off = ops[i].unit;
		} else {
			o.recv_peer = 1;
			o.dst_buf = SBUF_OUT;
			o.dst_off = ops[i].unit;
		}
		g_assert_cmpuint(sched_add_tracked(s, h, 0, &o, NULL, 0), ==, i);
		g_assert_cmpuint(sched_op_at(s, 0, i)->ndeps, ==, ops[i].ndeps);
		for (uint32_t d = 0; d < ops[i].ndeps; d++)
			g_assert_cmpuint(sched_op_deps(s, 0, i)[d], ==, ops[i].deps[d]);
	}
	sched_hazards_free(h);
	sched_free(s);
}

static void test_chunk_small(void)
{
	/* fewer elements than units: the first units get one each, the rest
	 * are empty (and still exist) */
	struct sched *s = sched_new(COLL_ALLREDUCE, "t", 2, 3, 2);
	static const uint64_t c2[] = { 1, 0, 1, 0, 0, 0 };
	static const uint64_t c0[] = { 0, 0, 0, 0, 0, 0 };
	static const uint64_t c4[] = { 1, 1, 1, 0, 1, 0 };

	check_cover(s, 2, c2);
	check_cover(s, 0, c0);
	check_cover(s, 4, c4);
	sched_free(s);
	/* huge counts do not overflow */
	s = sched_new(COLL_ALLREDUCE, "t", 2, 7, 3);
	check_cover(s, UINT64_MAX / 2 + 5, NULL);
	sched_free(s);
}

static void test_chunk_weighted(void)
{
	struct sched *s = sched_new(COLL_ALLGATHERV, "t", 3, 3, 1);

	s->weights = g_new(uint64_t, 3);
	/* 9 x {1,0,3}/4 = 2.25, 0, 6.75 -> floors 2, 0, 6; one left over goes to
	 * the first block of non-zero weight */
	s->weights[0] = 1, s->weights[1] = 0, s->weights[2] = 3;
	static const uint64_t c9[] = { 3, 0, 6 };

	check_cover(s, 9, c9);
	/* weights that are the counts give exactly the counts */
	s->weights[0] = 2, s->weights[1] = 0, s->weights[2] = 5;
	static const uint64_t c7[] = { 2, 0, 5 };

	check_cover(s, 7, c7);
	/* a zero-weight block stays empty even when the remainder is large */
	s->weights[0] = 0, s->weights[1] = 1, s->weights[2] = 1;
	static const uint64_t c3[] = { 0, 2, 1 };

	check_cover(s, 3, c3);
	static const uint64_t cz[] = { 0, 0, 0 };

	check_cover(s, 0, cz);
	sched_free(s);

	/* with nchunks: each block then split evenly */
	s = sched_new(COLL_ALLGATHERV, "t", 2, 2, 2);
	s->weights = g_new(uint64_t, 2);
	s->weights[0] = 1, s->weights[1] = 2;
	/* 10 x {1,2}/3: floors 3, 6, the one left over to block 0: 4 = 2+2, 6 = 3+3 */
	static const uint64_t c10b[] = { 2, 2, 3, 3 };

	check_cover(s, 10, c10b);
	sched_free(s);
}

/* ---- names and registry ---- */

static void test_names(void)
{
	for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
		enum coll c;

		g_assert_true(coll_parse(coll_name((enum coll)bit), &c));
		g_assert_cmpuint(c, ==, bit);
	}
	enum coll c;

	g_assert_false(coll_parse("allreduc", &c));
	for (int k = 0; k < SOP_NKINDS; k++) {
		enum sched_op_kind kk;

		g_assert_true(sched_op_kind_parse(sched_op_kind_name((enum sched_op_kind)k), &kk));
		g_assert_cmpint(kk, ==, k);
	}
	g_assert_cmpstr(sched_op_kind_name(SOP_RECV_REDUCE_COPY_SEND), ==, "recv_reduce_copy_send");
	enum paxi_kind p;

	g_assert_true(paxi_kind_parse("sendrecv", &p));
	g_assert_cmpint(p, ==, PAXI_SENDRECV);
	g_assert_false(paxi_kind_parse("send", &p));
}

static void test_registry_find(void)
{
	GError *err = NULL;

	g_assert_true(algo_find(COLL_ALLREDUCE, "ring", &err) == &algo_ring_ops);
	g_assert_true(algo_find(COLL_ALLGATHER, "ring2p", &err) == &algo_ring2p_ops);
	g_assert_true(algo_find(COLL_REDUCESCATTER, "sendrecv", &err) == &algo_sendrecv_ops);
	g_assert_no_error(err);
	g_assert_null(algo_find(COLL_ALLREDUCE, "ringg", &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_UNKNOWN);
	g_assert_true(g_str_has_prefix(err->message,
				       "unknown algorithm 'ringg' for allreduce (known: ring, ring2p, sendrecv"));
	g_assert_true(g_str_has_suffix(err->message, "); did you mean 'ring'?"));
	g_clear_error(&err);
	/* a name far from every known one gets the list alone */
	g_assert_null(algo_find(COLL_ALLREDUCE, "spiral", &err));
	g_assert_true(g_str_has_suffix(err->message, ", nccl, torus, torus2p)"));
	g_clear_error(&err);
	/* every registered name is found for every collective it claims */
	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1)
			if ((*a)->collectives & bit)
				g_assert_true(algo_find((enum coll)bit, (*a)->name, NULL) == *a);
}

static void test_registry_params(void)
{
	static const struct {
		int n;
		uint32_t k;
		const char *msg;
	} bad[] = {
		{ 1, 1, "'ranks' must be in 2..16384, got 1" },
		{ 16385, 1, "'ranks' must be in 2..16384, got 16385" },
		{ 4, 0, "'nchunks' must be in 1..256, got 0" },
		{ 4, 257, "'nchunks' must be in 1..256, got 257" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		struct algo_params p = { .nranks = bad[i].n, .nchunks = bad[i].k };
		GError *err = NULL;

		g_assert_null(algo_build(&algo_ring_ops, COLL_ALLREDUCE, &p, &err));
		g_assert_error(err, ALGO_ERROR, ALGO_ERROR_PARAMS);
		g_assert_cmpstr(err->message, ==, bad[i].msg);
		g_error_free(err);
	}
	/* ring does not build alltoall */
	struct algo_params p = { .nranks = 4, .nchunks = 1 };
	GError *err = NULL;

	g_assert_null(algo_build(&algo_ring_ops, COLL_ALLTOALL, &p, &err));
	g_assert_error(err, ALGO_ERROR, ALGO_ERROR_UNKNOWN);
	g_error_free(err);
}

static void test_registry_paxi(void)
{
	struct algo_params p = { .nranks = 4, .nchunks = 2 };

	for (int v = 0; v < 3; v++) {
		const struct algo_ops *a = v == 1 ? &algo_sendrecv_ops : &algo_ring_ops;

		p.paxi_set = v == 2;
		p.paxi = PAXI_SENDRECV;
		struct sched *s = algo_build(a, COLL_ALLREDUCE, &p, NULL);
		uint8_t want = v == 0 ? PAXI_TRANSFER : PAXI_SENDRECV;

		g_assert_nonnull(s);
		for (int r = 0; r < s->nranks; r++)
			for (guint i = 0; i < s->ranks[r].ops->len; i++)
				g_assert_cmpuint(sched_op_at(s, r, i)->paxi, ==, want);
		g_assert_true(verify_sched(s, NULL, NULL));
		sched_free(s);
	}
	g_assert_cmpint(algo_ring_ops.default_paxi, ==, PAXI_TRANSFER);
	g_assert_cmpint(algo_ring2p_ops.default_paxi, ==, PAXI_TRANSFER);
	g_assert_cmpint(algo_sendrecv_ops.default_paxi, ==, PAXI_SENDRECV);
}

/* ---- the ring family ---- */

static void test_ring_verify_matrix(void)
{
	/* every N in 2..64 with nchunks 1, 2 and 4, out of place and in place */
	static const uint32_t ks[] = { 1, 2, 4 };
	unsigned n_ok = 0;

	for (size_t a = 0; a < G_N_ELEMENTS(ring_family); a++)
		for (size_t c = 0; c < G_N_ELEMENTS(ring_colls); c++)
			for (int n = 2; n <= 64; n++)
				for (size_t k = 0; k < G_N_ELEMENTS(ks); k++) {
					struct sched *s = build(ring_family[a], ring_colls[c], n, ks[k]);
					GError *err = NULL;

					g_assert_true(s->inplace_ok);
					if (!verify_sched(s, NULL, &err))
						g_error("%s %s n=%d k=%u: %s", ring_family[a]->name,
							coll_name(ring_colls[c]), n, ks[k], err->message);
					n_ok++;
					sched_free(s);
				}
	g_assert_cmpuint(n_ok, ==, 3 * 3 * 63 * 3);
}

static void test_ring_steps_theory(void)
{
	for (size_t a = 0; a < G_N_ELEMENTS(ring_family); a++)
		for (size_t c = 0; c < G_N_ELEMENTS(ring_colls); c++)
			for (int n = 2; n <= 64; n++) {
				const struct algo_ops *al = ring_family[a];
				enum coll co = ring_colls[c];
				struct algo_theory t;
				bool ar = co == COLL_ALLREDUCE;
				bool two = al == &algo_ring2p_ops;
				double steps = two ? (ar ? 2 * (n / 2) : n / 2) : (ar ? 2 * (n - 1) : n - 1);
				double coef = (ar ? 2.0 : 1.0) * (n - 1) / n;

				algo_theory(al, co, &(struct algo_params){ .nranks = n }, &t);
				g_assert_cmpfloat(t.steps, ==, steps);
				g_assert_cmpfloat(fabs(t.coef - coef), <, 1e-12);
				for (uint32_t k = 1; k <= 4; k *= 2) {
					struct sched *s = build(al, co, n, k);

					g_assert_cmpuint(s->nsteps, ==, (uint32_t)steps);
					g_assert_cmpuint(s->nlanes, ==, two && n > 2 ? 2 : 1);
					sched_free(s);
				}
			}
	/* the seed's numbers: N = 8, alpha 2 us, 450 GB/s, 26 us overhead */
	double us = algo_theory_us(&algo_ring_ops, COLL_ALLREDUCE, &(struct algo_params){ .nranks = 8 }, 450000000, 26, 2, 450e9);

	g_assert_cmpfloat(fabs(us - (26 + 14 * 2 + 1.75 * 1000)), <, 1e-9);
	us = algo_theory_us(&algo_ring2p_ops, COLL_ALLGATHER, &(struct algo_params){ .nranks = 7 }, 0, 26, 2, 450e9);
	g_assert_cmpfloat(fabs(us - (26 + 3 * 2)), <, 1e-9);
}

static void test_ring_nccl_ops(void)
{
	/* NCCL's ring kernel: send, (n-2) x recv-reduce-send, recv-reduce-copy-send,
	 * (n-2) x recv-copy-send, recv; with K pieces each op is there K times */
	for (uint32_t k = 1; k <= 2; k++) {
		struct sched *s = build(&algo_ring_ops, COLL_ALLREDUCE, 5, k);
		static const enum sched_op_kind want[] = {
			SOP_SEND, SOP_RECV_REDUCE_SEND, SOP_RECV_REDUCE_SEND, SOP_RECV_REDUCE_SEND,
			SOP_RECV_REDUCE_COPY_SEND, SOP_RECV_COPY_SEND, SOP_RECV_COPY_SEND,
			SOP_RECV_COPY_SEND, SOP_RECV,
		};

		for (int r = 0; r < 5; r++) {
			g_assert_cmpuint(s->ranks[r].ops->len, ==, G_N_ELEMENTS(want) * k);
			for (guint i = 0; i < s->ranks[r].ops->len; i++) {
				const struct sched_op *o = sched_op_at(s, r, i);

				g_assert_cmpint(o->kind, ==, want[i / k]);
				g_assert_cmpuint(o->count, ==, 1);
				g_assert_cmpuint(o->lane, ==, 0);
				if (o->send_peer >= 0)
					g_assert_cmpint(o->send_peer, ==, (r + 1) % 5);
				if (o->recv_peer >= 0)
					g_assert_cmpint(o->recv_peer, ==, (r + 4) % 5);
				/* pieces of one step share the step number */
				g_assert_cmpuint(o->step, ==, MIN(i / k, 7u));
			}
		}
		sched_free(s);
	}
}

/* NCCL's copySend: in NCCL's schedules a rank's copy of its own data into
 * its output is the first send of that data (copy_send), never an op of its
 * own; the schedules still compute their collective in place and out of
 * place. */
static void test_nccl_copy_send(void)
{
	static const enum coll colls[] = { COLL_ALLGATHER, COLL_BROADCAST, COLL_ALLGATHERV };

	for (size_t c = 0; c < G_N_ELEMENTS(colls); c++)
		for (int n = 2; n <= 5; n++)
			for (uint32_t k = 1; k <= 2; k++) {
				struct sched *s = build(&algo_nccl_ops, colls[c], n, k);
				uint32_t fused = 0;
				GError *err = NULL;

				for (int r = 0; r < n; r++)
					for (guint i = 0; i < s->ranks[r].ops->len; i++) {
						const struct sched_op *o = sched_op_at(s, r, i);

						g_assert_cmpint(o->kind, !=, SOP_COPY);
						if (o->kind != SOP_COPY_SEND)
							continue;
						fused++;
						g_assert_cmpint(o->src_buf, ==, SBUF_IN);
						g_assert_cmpint(o->dst_buf, ==, SBUF_OUT);
						g_assert_cmpuint(o->src_off, ==, o->dst_off);
					}
				/* every rank's block (Broadcast: the root's), each piece once */
				g_assert_cmpuint(fused, ==, (colls[c] == COLL_BROADCAST ? 1 : (uint32_t)n) * k);
				g_assert_true(verify_sched_mode(s, false, NULL, &err));
				g_assert_true(verify_sched_mode(s, true, NULL, &err));
				g_assert_no_error(err);
				sched_free(s);
			}
}

static void test_ring2p_lanes(void)
{
	/* lane 0 sends clockwise, lane 1 counter-clockwise; for odd N both
	 * lanes carry the same number of transfers */
	for (int n = 3; n <= 9; n++) {
		struct sched *s = build(&algo_ring2p_ops, COLL_ALLGATHER, n, 1);
		unsigned sends[2] = { 0, 0 };

		for (int r = 0; r < n; r++)
			for (guint i = 0; i < s->ranks[r].ops->len; i++) {
				const struct sched_op *o = sched_op_at(s, r, i);

				if (o->send_peer < 0)
					continue;
				g_assert_cmpint(o->send_peer, ==, o->lane ? (r + n - 1) % n : (r + 1) % n);
				sends[o->lane]++;
			}
		g_assert_cmpuint(sends[0], ==, (unsigned)(n * (n / 2)));
		g_assert_cmpuint(sends[1], ==, (unsigned)(n * ((n - 1) / 2)));
		sched_free(s);
	}
}

/* ---- the verifier rejects broken schedules ---- */

/* A copy of s without op `drop` of rank `dr` (deps on it removed, later
 * indices shifted). */
static struct sched *copy_without(const struct sched *s, int dr, uint32_t drop)
{
	struct sched *t = sched_new(s->coll, s->algo, s->nranks, s->nblocks, s->nchunks);

	t->root = s->root;
	t->peer = s->peer;
	t->scratch_units = s->scratch_units;
	t->inplace_ok = s->inplace_ok;
	for (int r = 0; r < s->nranks; r++) {
		t->ranks[r].in_lo = s->ranks[r].in_lo, t->ranks[r].in_hi = s->ranks[r].in_hi;
		t->ranks[r].out_lo = s->ranks[r].out_lo, t->ranks[r].out_hi = s->ranks[r].out_hi;
		for (uint32_t i = 0; i < s->ranks[r].ops->len; i++) {
			if (r == dr && i == drop)
				continue;
			const struct sched_op *o = sched_op_at(s, r, i);
			const uint32_t *d = sched_op_deps(s, r, i);
			GArray *nd = g_array_new(FALSE, FALSE, sizeof(uint32_t));

			for (uint32_t k = 0; k < o->ndeps; k++) {
				uint32_t x = d[k];

				if (r == dr && x == drop)
					continue;
				if (r == dr && x > drop)
					x--;
				g_array_append_val(nd, x);
			}
			sched_add(t, r, o, (uint32_t *)nd->data, nd->len);
			g_array_unref(nd);
		}
	}
	return t;
}

static void expect_reject(const struct sched *s, bool inplace, const char *msg)
{
	GError *err = NULL;

	g_assert_false(verify_sched_mode(s, inplace, NULL, &err));
	g_assert_error(err, SCHED_ERROR, SCHED_ERROR_INVALID);
	if (strcmp(err->message, msg))
		g_error("expected\n  %s\ngot\n  %s", msg, err->message);
	g_error_free(err);
}

static void test_verify_missing_dep(void)
{
	/* ring AllReduce, 3 ranks: rank 0's op 3 (recv-copy-send, all-gather)
	 * overwrites block 2, which op 0 read as input: harmless out of place,
	 * a race in place unless op 3 depends on op 0 */
	struct sched *s = build(&algo_ring_ops, COLL_ALLREDUCE, 3, 1);
	struct sched_op *o = &g_array_index(s->ranks[0].ops, struct sched_op, 3);

	g_assert_cmpuint(o->ndeps, ==, 1);
	g_assert_cmpuint(sched_op_deps(s, 0, 3)[0], ==, 0);
	o->ndeps = 0;
	g_assert_true(verify_sched_mode(s, false, NULL, NULL));
	expect_reject(s, true, "in place: rank 0 op 3 (step 3, recv_copy_send): overwrites output "
			       "unit 2 that op 0 (step 0) reads, which it does not depend on");
	sched_free(s);

	/* ring2p AllReduce, 3 ranks: op 4 adds the clockwise partial to what op 3
	 * stored; without the dep it reads before op 3 has written */
	s = build(&algo_ring2p_ops, COLL_ALLREDUCE, 3, 1);
	o = &g_array_index(s->ranks[1].ops, struct sched_op, 3);
	g_assert_cmpint(o->kind, ==, SOP_RECV_REDUCE_COPY_SEND);
	g_assert_cmpuint(o->ndeps, ==, 1);
	o->ndeps = 0;
	struct verify_where w;
	GError *err = NULL;

	g_assert_false(verify_sched(s, &w, &err));
	g_assert_cmpint(w.rank, ==, 1);
	g_assert_cmpint(w.op, ==, 3);
	g_assert_true(strstr(err->message, "rank 1 op 3 (step 1, recv_reduce_copy_send): reads output "
				       "unit 1") != NULL);
	g_error_free(err);
	sched_free(s);
}

static void test_verify_dropped_send(void)
{
	struct sched *s = build(&algo_ring_ops, COLL_ALLREDUCE, 3, 1);
	struct sched *t = copy_without(s, 1, 0); /* rank 1's first send */

	expect_reject(t, false, "rank 2 op 4 (step 3, recv): receives from rank 1 on lane 0, but "
				"rank 1 sends only 3 times to rank 2 on lane 0");
	sched_free(t);
	/* dropping a receive instead */
	t = copy_without(s, 2, 4);
	expect_reject(t, false, "rank 1 op 3 (step 3, recv_copy_send): sends to rank 2 on lane 0, "
				"but rank 2 receives only 3 times from rank 1 on lane 0");
	sched_free(t);
	/* a count that differs from its matching send */
	g_array_index(s->ranks[0].ops, struct sched_op, 0).count = 2;
	g_array_index(s->ranks[0].ops, struct sched_op, 0).src_off = 1;
	expect_reject(s, false, "rank 1 op 1 (step 1, recv_reduce_send): receives 1 units, but its "
				"matching send, rank 0 op 0 (step 0), sends 2");
	sched_free(s);
}

/* AllReduce of one unit on 2 ranks by hand: send, recv-reduce. */
static struct sched *tiny_allreduce(enum sched_op_kind first, enum paxi_kind paxi, bool dep)
{
	struct sched *s = sched_new(COLL_ALLREDUCE, "tiny", 2, 1, 1);

	s->inplace_ok = true;
	for (int r = 0; r < 2; r++) {
		struct sched_op snd = { .kind = SOP_SEND, .paxi = (uint8_t)paxi, .recv_peer = -1,
					.send_peer = 1 - r, .src_buf = SBUF_IN, .count = 1 };
		struct sched_op rcv = { .kind = SOP_RECV_REDUCE, .paxi = (uint8_t)paxi,
					.recv_peer = 1 - r, .send_peer = -1, .src_buf = SBUF_IN,
					.dst_buf = SBUF_OUT, .count = 1 };
		uint32_t d0 = 0;

		if (first == SOP_SEND) {
			sched_add(s, r, &snd, NULL, 0);
			sched_add(s, r, &rcv, &d0, dep ? 1 : 0);
		} else {
			sched_add(s, r, &rcv, NULL, 0);
			sched_add(s, r, &snd, &d0, dep ? 1 : 0);
		}
	}
	return s;
}

static void test_verify_counted_twice(void)
{
	struct sched *s = tiny_allreduce(SOP_SEND, PAXI_TRANSFER, false);

	/* without the dep the recv-reduce may overwrite the cell the send still
	 * reads: fine out of place, a race in place */
	g_assert_true(verify_sched_mode(s, false, NULL, NULL));
	expect_reject(s, true, "in place: rank 0 op 1 (step 0, recv_reduce): overwrites output unit 0 "
			       "that op 0 (step 0) reads, which it does not depend on");
	sched_free(s);
	s = tiny_allreduce(SOP_SEND, PAXI_TRANSFER, true);
	g_assert_true(verify_sched(s, NULL, NULL)); /* the control */
	struct sched_op red = { .kind = SOP_REDUCE, .recv_peer = -1, .send_peer = -1,
				.src_buf = SBUF_IN, .dst_buf = SBUF_OUT, .count = 1 };
	uint32_t d1 = 1;

	sched_add(s, 0, &red, &d1, 1);
	expect_reject(s, false, "rank 0 op 2 (step 0, reduce): counts rank 0's contribution to "
				"unit 0 twice");
	sched_free(s);
}

static void test_verify_deadlock(void)
{
	/* each rank receives before it sends and its send waits for the
	 * receive: a cycle, whatever the PAXI kind */
	struct sched *s = tiny_allreduce(SOP_RECV_REDUCE, PAXI_TRANSFER, true);

	expect_reject(s, false, "deadlock: 4 ops cannot progress: rank 0 op 0 (step 0, "
				"recv_reduce) waits for the data of rank 1 op 1; rank 0 op 1 (step 0, "
				"send) waits for op 0 (step 0); rank 1 op 0 (step 0, recv_reduce) "
				"waits for the data of rank 0 op 1; rank 1 op 1 (step 0, send) waits "
				"for op 0 (step 0)");
	sched_free(s);
	/* send first, receive after the send is done: fine with Transfer (the
	 * send does not wait), a deadlock with Send/Recv (each send waits for a
	 * receive that is posted only after it) */
	s = tiny_allreduce(SOP_SEND, PAXI_TRANSFER, true);
	g_assert_true(verify_sched(s, NULL, NULL));
	sched_free(s);
	s = tiny_allreduce(SOP_SEND, PAXI_SENDRECV, true);
	expect_reject(s, false, "deadlock: 4 ops cannot progress: rank 0 op 0 (step 0, send) "
				"waits for rank 1 op 1 to post its receive; rank 0 op 1 (step 0, "
				"recv_reduce) waits for op 0 (step 0); rank 1 op 0 (step 0, send) waits "
				"for rank 0 op 1 to post its receive; rank 1 op 1 (step 0, recv_reduce) "
				"waits for op 0 (step 0)");
	sched_free(s);
}

static void test_verify_structure(void)
{
	struct sched *s = build(&algo_ring_ops, COLL_ALLGATHER, 4, 1);

	/* a wrong window: the output of rank 2 shrunk */
	s->ranks[2].out_hi = 3;
	expect_reject(s, false, "rank 2: windows in [2, 3) out [0, 3), but allgather prescribes "
				"in [2, 3) out [0, 4)");
	s->ranks[2].out_hi = 4;
	/* writing the input */
	g_array_index(s->ranks[1].ops, struct sched_op, 2).dst_buf = SBUF_IN;
	expect_reject(s, false, "rank 1 op 2 (step 2, recv_copy_send): writes the input buffer "
				"(write the output in place)");
	g_array_index(s->ranks[1].ops, struct sched_op, 2).dst_buf = SBUF_OUT;
	/* reading outside the window */
	g_array_index(s->ranks[1].ops, struct sched_op, 0).src_off = 0;
	expect_reject(s, false, "rank 1 op 0 (step 0, send): source in units [0, 1) leave its "
				"window [1, 2)");
	g_array_index(s->ranks[1].ops, struct sched_op, 0).src_off = 1;
	g_assert_true(verify_sched(s, NULL, NULL));
	/* an unclaimed in-place schedule is refused in place */
	s->inplace_ok = false;
	expect_reject(s, true, "in place: the schedule is out of place only");
	sched_free(s);
	/* rank 0 stores block 1 where block 2 belongs: two unordered writes of
	 * one cell */
	s = build(&algo_ring_ops, COLL_ALLGATHER, 3, 1);
	g_array_index(s->ranks[0].ops, struct sched_op, 1).dst_off = 1;
	expect_reject(s, false, "rank 0 op 2 (step 1, recv): overwrites output unit 1 written by op 1 "
				"(step 1), which it does not depend on");
	sched_free(s);
	/* a wrong result: rank 0 receives without adding its own input */
	s = tiny_allreduce(SOP_SEND, PAXI_TRANSFER, true);
	struct sched_op *o = &g_array_index(s->ranks[0].ops, struct sched_op, 1);

	o->kind = SOP_RECV;
	o->src_buf = SBUF_NONE;
	expect_reject(s, false, "rank 0: output unit 0 holds unit 0 from ranks {1}, expected unit 0 "
				"from all 2 ranks");
	sched_free(s);
}

/* ---- the schedule file ---- */

static void test_file_round_trip(void)
{
	static const int ns[] = { 2, 3, 5, 8 };
	static const uint32_t ks[] = { 1, 4 };
	unsigned done = 0;

	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
			if (!((*a)->collectives & bit))
				continue;
			for (size_t i = 0; i < G_N_ELEMENTS(ns); i++)
				for (size_t k = 0; k < G_N_ELEMENTS(ks); k++) {
					uint64_t w[8] = { 3, 0, 1, 4, 1, 5, 9, 2 };
					struct algo_params p = { .nranks = ns[i], .nchunks = ks[k], .root = 1,
								 .peer = 0, .weights = w };
					struct sched *s = algo_build(*a, (enum coll)bit, &p, NULL);

					if (!s)
						continue; /* not admitted */
					char *text = sched_file_format(s);
					GError *err = NULL;
					GArray *lines = NULL;
					struct sched *t = sched_file_parse(text, strlen(text), "rt", &lines, &err);

					g_assert_no_error(err);
					g_assert_true(sched_equal(s, t));
					char *again = sched_file_format(t);

					g_assert_cmpstr(text, ==, again);
					/* the line of every op is where its "op" line is */
					char **ls = g_strsplit(text, "\n", -1);
					guint idx = 0;

					for (int r = 0; r < t->nranks; r++)
						for (guint j = 0; j < t->ranks[r].ops->len; j++, idx++) {
							char *pre = g_strdup_printf("op %u ", j);

							g_assert_true(g_str_has_prefix(
								ls[g_array_index(lines, uint32_t, idx) - 1], pre));
							g_free(pre);
						}
					g_strfreev(ls);
					g_array_unref(lines);
					g_free(again);
					g_free(text);
					sched_free(t);
					sched_free(s);
					done++;
				}
		}
	g_assert_cmpuint(done, >=, 3 * 3 * 4 * 2);
}

static char *replace_line(const char *text, const char *old, const char *new_line)
{
	const char *at = strstr(text, old);

	g_assert_nonnull(at);
	return g_strdup_printf("%.*s%s%s", (int)(at - text), text, new_line, at + strlen(old));
}

static guint line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	guint line = 1;

	g_assert_nonnull(at);
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

static void test_file_damaged(void)
{
	struct sched *s = build(&algo_ring_ops, COLL_ALLREDUCE, 3, 1);
	char *good = sched_file_format(s);
	/* (text to replace, replacement, message after "f:LINE: ") */
	static const struct {
		const char *old, *new_line, *msg;
	} cases[] = {
		{ "g5-schedule 1\n", "g5-schedule 2\n", "unsupported schedule version 2 (this g5 reads 1)" },
		{ "g5-schedule 1\n", "g5-scheduler 1\n",
		  "not a g5 schedule (the first line must be 'g5-schedule 1')" },
		{ "algo ring\n", "algo ring\ncolour blue\n", "unknown keyword 'colour'" },
		{ "ranks 3\n", "ranks three\n", "ranks must be a number, got 'three'" },
		{ "ranks 3\n", "ranks 3x\n", "ranks must be a number, got '3x'" },
		{ "nchunks 1\n", "nchunks 1\nnchunks 1\n", "'nchunks' given twice (first on line 8)" },
		{ "op 1 recv_reduce_send transfer 0 1 2 1 in:1 - 1 -\n",
		  "op 1 recv_reduce_send transfer 0 1 2 7 in:1 - 1 -\n",
		  "send peer 7 is out of range -1..2" },
		{ "op 3 recv_copy_send transfer 0 3 2 1 - out:2 1 0\n",
		  "op 3 recv_copy_send transfer 0 3 2 1 - out:2 1 0,3\n",
		  "dep 3 is not an earlier op than 3" },
		{ "op 3 recv_copy_send transfer 0 3 2 1 - out:2 1 0\n",
		  "op 3 recv_copy_send transfer 0 3 2 1 - out:2 1\n",
		  "'op' takes the form 'op INDEX KIND PAXI LANE STEP RECV SEND SRC DST COUNT DEPS', got 11 "
		  "tokens" },
		{ "op 3 recv_copy_send transfer 0 3 2 1 - out:2 1 0\n",
		  "op 3 recv_copy_send transfer 0 3 2 1 - stack:2 1 0\n",
		  "destination buffer must be in, out or scratch, got 'stack:2'" },
		{ "op 3 recv_copy_send transfer 0 3 2 1 - out:2 1 0\n",
		  "op 3 recv_copy_sent transfer 0 3 2 1 - out:2 1 0\n", "unknown op kind 'recv_copy_sent'" },
		{ "steps 4\n", "steps 5\n", "'steps 5' but the ops use 4" },
		{ "end\n", "end\nop 0\n", "text after 'end'" },
		/* header values that would ask memory nobody has */
		{ "steps 4\n", "steps 4294967295\n", "steps 4294967295 is out of range 0..16777216" },
		{ "nblocks 3\n", "nblocks 1073741823\n", "nblocks 1073741823 is out of range 1..16777216" },
		{ "scratch 0\n", "scratch 1073741823\n", "scratch 1073741823 is out of range 0..16777216" },
		{ "units 3\n", "units 16777217\n", "units 16777217 is out of range 1..16777216" },
		{ "op 1 recv_reduce_send transfer 0 1 2 1 in:1 - 1 -\n",
		  "op 1 recv_reduce_send transfer 0 16777216 2 1 in:1 - 1 -\n",
		  "step 16777216 is out of range 0..16777215" },
		{ "steps 4\n", "steps 16777216\n", "'steps 16777216' but the ops use 4" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *bad = replace_line(good, cases[i].old, cases[i].new_line);
		/* the line the error must name: the changed line (or the added one) */
		guint line = line_of(bad, cases[i].new_line);
		GError *err = NULL;

		if (strstr(cases[i].msg, "keyword") || strstr(cases[i].msg, "given twice") ||
		    strstr(cases[i].msg, "after 'end'"))
			line++; /* the second line of the replacement */
		g_assert_null(sched_file_parse(bad, strlen(bad), "f", NULL, &err));
		g_assert_error(err, SCHED_ERROR, SCHED_ERROR_PARSE);
		char *want = g_strdup_printf("f:%u: %s", line, cases[i].msg);

		g_assert_cmpstr(err->message, ==, want);
		g_free(want);
		g_error_free(err);
		g_free(bad);
	}
	/* truncated in the middle of rank 1's ops, and without 'end' */
	const char *cut = strstr(good, "op 2 recv_reduce_copy_send transfer 0 2 0 2");
	GError *err = NULL;

	g_assert_nonnull(cut);
	g_assert_null(sched_file_parse(good, (size_t)(cut - good), "f", NULL, &err));
	char *want = g_strdup_printf("f:%u: truncated: rank 1 has 2 of its 5 ops", line_of(good, "op 1 recv_reduce_send transfer 0 1 0 2"));

	g_assert_cmpstr(err->message, ==, want);
	g_free(want);
	g_clear_error(&err);
	size_t len = strlen(good) - strlen("end\n");

	g_assert_null(sched_file_parse(good, len, "f", NULL, &err));
	want = g_strdup_printf("f:%u: truncated: missing 'end'", line_of(good, "end\n") - 1);
	g_assert_cmpstr(err->message, ==, want);
	g_free(want);
	g_clear_error(&err);
	/* limits over all ranks: the run's step table and the verifier's cells */
	GString *big = g_string_new("g5-schedule 1\ncollective allreduce\nalgo x\nranks 1024\n"
				    "root 0\npeer -1\nnblocks 1\nnchunks 1\nunits 1\nscratch 16777216\n"
				    "inplace 1\nsteps 131073\nlanes 0\n");

	for (int r = 0; r < 1024; r++)
		g_string_append_printf(big, "rank %d in 0 1 out 0 1 ops 0\n", r);
	g_string_append(big, "end\n");
	g_assert_null(sched_file_parse(big->str, big->len, "f", NULL, &err));
	g_assert_cmpstr(err->message, ==,
			"f:12: 1024 ranks x 'steps 131073' are more than 134217728 rows of a run's step table");
	g_clear_error(&err);
	char *at = strstr(big->str, "steps 131073");

	memcpy(at, "steps      0", strlen("steps 131073"));
	g_assert_null(sched_file_parse(big->str, big->len, "f", NULL, &err));
	g_assert_cmpstr(err->message, ==,
			"f:10: the windows and 'scratch 16777216' of 1024 ranks are 17179871232 cells, "
			"more than the verifier's 4294967296 bytes hold");
	g_clear_error(&err);
	g_string_free(big, TRUE);
	/* a NUL byte (it would cut a token short: 'algo \0x' read as 'algo ') */
	g_assert_null(sched_file_parse("g5-schedule 1\nalgo \0x\n", 21, "f", NULL, &err));
	g_assert_cmpstr(err->message, ==, "f:2: a NUL byte: not a text file");
	g_clear_error(&err);
	/* empty input */
	g_assert_null(sched_file_parse("", 0, "f", NULL, &err));
	g_assert_cmpstr(err->message, ==,
			"f:1: not a g5 schedule (the first line must be 'g5-schedule 1')");
	g_clear_error(&err);
	/* comments and blank lines are fine */
	char *commented = replace_line(good, "ranks 3\n", "# a comment\n\nranks 3\n");
	struct sched *t = sched_file_parse(commented, strlen(commented), "f", NULL, &err);

	g_assert_no_error(err);
	g_assert_true(sched_equal(s, t));
	sched_free(t);
	g_free(commented);
	g_free(good);
	sched_free(s);
}

/* ---- g5 end to end ---- */

static const char *g5_path(void)
{
	const char *g5 = g_getenv("G5");

	if (!g5 || !g_file_test(g5, G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("G5 is not set to the g5 binary (make test sets it)");
		return NULL;
	}
	return g5;
}

/* Runs `sh -c CMD`; returns the exit status, stdout and stderr. */
static int sh(const char *cmd, char **out, char **err)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	int status = 0;
	GError *e = NULL;

	g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, err,
				   &status, &e));
	g_assert_no_error(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_e2e_pipe(void)
{
	const char *g5 = g5_path();

	if (!g5)
		return;
	char *cmd = g_strdup_printf("%s schedule --collective allreduce --algo ring2p --ranks 7 "
				    "--nchunks 2 | %s verify --schedule -", g5, g5);
	char *out, *err;

	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_assert_cmpstr(out, ==, "verify: <stdin> ok (ring2p allreduce, 7 ranks, nchunks 2, out of "
				 "place and in place)\n");
	g_free(out);
	g_free(err);
	g_free(cmd);
}

static void test_e2e_file(void)
{
	const char *g5 = g5_path();

	if (!g5)
		return;
	char *dir = g_dir_make_tmp("g5-algos-XXXXXX", NULL);
	char *path = g_build_filename(dir, "s.txt", NULL);
	char *cmd = g_strdup_printf("%s schedule -c reducescatter -a sendrecv -n 5 -k 4 --paxi "
				    "transfer -o %s", g5, path);
	char *out, *err, *text;

	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_assert_cmpstr(out, ==, "");
	g_free(out), g_free(err), g_free(cmd);
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_assert_true(g_str_has_prefix(text, "g5-schedule 1\ncollective reducescatter\nalgo sendrecv\n"));
	g_assert_null(strstr(text, "sendrecv 0")); /* the override reached every op */
	cmd = g_strdup_printf("%s verify --schedule %s", g5, path);
	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_free(out), g_free(err), g_free(cmd);

	/* a damaged file: exit 2 (bad input), the message names the line */
	char *bad = replace_line(text, "lanes 1\n", "lanes x\n");

	g_assert_true(g_file_set_contents(path, bad, -1, NULL));
	cmd = g_strdup_printf("%s verify --schedule %s", g5, path);
	g_assert_cmpint(sh(cmd, &out, &err), ==, 2);
	char *want = g_strdup_printf("g5 verify: %s:13: lanes must be a number, got 'x'\n", path);

	g_assert_cmpstr(err, ==, want);
	g_free(want), g_free(out), g_free(err), g_free(bad);

	/* a well-formed file that does not verify: the op's line */
	bad = replace_line(text, "op 0 send transfer 0 0 -1 1 in:", "op 0 send transfer 0 0 -1 2 in:");
	g_assert_true(g_file_set_contents(path, bad, -1, NULL));
	g_assert_cmpint(sh(cmd, &out, &err), ==, 1);
	want = g_strdup_printf("g5 verify: %s:%u: ", path, line_of(bad, "op 0 send transfer 0 0 -1 2"));
	g_assert_true(g_str_has_prefix(err, want));
	g_free(want), g_free(out), g_free(err), g_free(bad), g_free(cmd);

	g_free(text);
	g_unlink(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}

/* A schedule stores no more ops than its bound (sched_new: half the
 * machine's memory): past it ops are counted, their indices go on, and
 * algo_build refuses it with its size; one that turns is counted from its
 * rank 0 before anything is built (a ring of 16384 ranks and 256 chunks:
 * 137 G ops), and refused at once on any machine. */
static void test_schedule_bound(void)
{
	struct sched *s = sched_new(COLL_ALLREDUCE, "t", 2, 2, 1);
	struct sched_op op = { .kind = SOP_COPY, .src_buf = SBUF_IN, .dst_buf = SBUF_OUT, .count = 1,
			       .recv_peer = -1, .send_peer = -1 };

	g_assert_cmpuint(s->max_ops, >=, 1000);
	s->max_ops = 5;
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t dep = i - 1;

		g_assert_cmpuint(sched_add(s, (int)(i % 2), &op, i >= 2 ? &dep : NULL, 0), ==, i / 2);
		g_assert_cmpint(sched_over(s), ==, i >= 5);
	}
	g_assert_cmpuint(s->nops, ==, 8);
	g_assert_cmpuint(s->ranks[0].ops->len + s->ranks[1].ops->len, ==, 5);
	g_assert_cmpuint(sched_added(s, 0), ==, 4);
	sched_free(s);

	const char *g5 = g5_path();

	if (!g5)
		return;
	g_autofree char *cmd = g_strdup_printf("%s schedule -c allreduce -a ring -n 16384 --nchunks 256 "
					       "-o /dev/null", g5);
	g_autofree char *out = NULL, *err = NULL;

	g_assert_cmpint(sh(cmd, &out, &err), ==, 2);
	g_assert_true(g_str_has_prefix(err, "g5 schedule: ring allreduce on 16384 ranks has 137434759168 "
					    "ops stored for every rank, which need about 4.95e+03 GB of "
					    "memory, more than the "));
	g_assert_nonnull(strstr(err, "GB a schedule may take (half this machine's): fewer ranks"));
}

/* The hazard tracker's runs of alike cells give every schedule the deps
 * that a cell per unit gives: each registered algorithm for each of its
 * collectives, at sizes whose runs stay few and ones whose runs outgrow
 * the bound (a ring of 70 ranks and 3 chunks), built both ways, op for op
 * and dep for dep the same. */
static void test_hazards_runs(void)
{
	static const int ns[] = { 5, 8, 16, 70 };
	static const uint32_t ks[] = { 1, 3 };
	const struct algo_ops *const *all = algo_all();
	int built = 0;

	for (size_t i = 0; all[i]; i++)
		for (unsigned c = 1; c <= COLL_ALLGATHERV; c <<= 1) {
			if (!(all[i]->collectives & c))
				continue;
			for (size_t a = 0; a < G_N_ELEMENTS(ns); a++)
				for (size_t b = 0; b < G_N_ELEMENTS(ks); b++) {
					struct algo_params p = { .nranks = ns[a], .nchunks = ks[b],
								 .root = 0, .peer = 1, .node_ranks = 1 };
					GError *e = NULL;

					sched_hazards_runs(true);
					struct sched *x = algo_build(all[i], (enum coll)c, &p, &e);

					g_clear_error(&e);
					sched_hazards_runs(false);
					struct sched *y = algo_build(all[i], (enum coll)c, &p, &e);

					g_clear_error(&e);
					sched_hazards_runs(true);
					g_assert_true(!x == !y);
					if (x) {
						if (!sched_equal(x, y))
							g_error("%s %s N = %d nchunks %u: runs and cells differ",
								all[i]->name, coll_name((enum coll)c), ns[a], ks[b]);
						built++;
					}
					sched_free(x);
					sched_free(y);
				}
		}
	g_test_message("%d schedules built both ways", built);
	g_assert_cmpint(built, >, 200);
}

static void test_e2e_usage(void)
{
	const char *g5 = g5_path();

	if (!g5)
		return;
	static const struct {
		const char *args, *err;
	} cases[] = {
		{ "schedule --ranks x", NULL /* GLib's wording */ },
		{ "schedule -c allreduce -a ringg -n 4",
		  NULL /* checked by prefix below */ },
		{ "schedule -c allreduce -a ring", "g5 schedule: --collective, --algo and --ranks are "
						   "required (see 'g5 schedule --help')\n" },
		{ "schedule -c allreduce -a ring -n 1", "g5 schedule: 'ranks' must be in 2..16384, got 1 "
							"(see 'g5 schedule --help')\n" },
		{ "verify --bogus", NULL },
		{ "verify --max-ranks 1", "g5 verify: --max-ranks must be in 2..16384, got 1 (see 'g5 "
					  "verify --help')\n" },
		{ "verify --schedule x --algo ring", "g5 verify: --schedule takes no --algo or "
						     "--collective (see 'g5 verify --help')\n" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *cmd = g_strdup_printf("%s %s", g5, cases[i].args);
		char *out, *err;

		g_assert_cmpint(sh(cmd, &out, &err), ==, 2);
		g_assert_cmpstr(out, ==, "");
		/* one line */
		g_assert_nonnull(strchr(err, '\n'));
		g_assert_cmpstr(strchr(err, '\n'), ==, "\n");
		if (cases[i].err)
			g_assert_cmpstr(err, ==, cases[i].err);
		if (i == 1)
			g_assert_true(g_str_has_prefix(err, "g5 schedule: unknown algorithm 'ringg' for "
							    "allreduce (known: ring, ring2p, sendrecv"));
		g_free(out), g_free(err), g_free(cmd);
	}
}

static void test_e2e_sweep(void)
{
	const char *g5 = g5_path();

	if (!g5)
		return;
	char *cmd = g_strdup_printf("%s verify --algo ring2p --max-ranks 9", g5);
	char *out, *err;

	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	/* 4 collectives (allreduce, allgather, reducescatter, alltoall) x N 2..9 x
	 * nchunks {1, 2, 4} */
	g_assert_cmpstr(out, ==, "verify: 96 schedules ok, 0 not admitted, 0 failed\n");
	g_free(out), g_free(err), g_free(cmd);
}

/* g5 verify's sweep shows its progress on a terminal only (script(1) gives
 * it one; through a pipe stderr stays empty), and its summary explains what
 * "not admitted" counts, per algorithm with a refusal's message. */
static void test_e2e_progress_and_refusals(void)
{
	const char *g5 = g5_path();
	g_autofree char *out = NULL, *err = NULL, *cmd = NULL;

	if (!g5)
		return;
	/* rd builds allgather and allgatherv on 2 and 4 ranks of 2..6, x
	 * nchunks {1, 2, 4}, allgatherv x 3 count patterns (zero-size,
	 * one-heavy, random): (1 + 3) x 2 x 3 = 24 built, (1 + 3) x 3 x 3 = 36
	 * refused */
	cmd = g_strdup_printf("%s verify --algo rd --max-ranks 6", g5);
	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_assert_cmpstr(err, ==, "");
	g_assert_true(g_str_has_prefix(out, "verify: 24 schedules ok, 36 not admitted, 0 failed\n"
					    "not admitted: shapes an algorithm does not build"));
	g_assert_nonnull(strstr(out, "\n  rd           36, e.g. allgather ranks=3 root=0: 'rd' needs a "
				     "power-of-two number of ranks, got 3\n"));
	g_autofree char *script = g_find_program_in_path("script");

	if (!script) {
		g_test_skip("no script(1) to give g5 verify a terminal");
		return;
	}
	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	g_clear_pointer(&cmd, g_free);
	cmd = g_strdup_printf("script -qec '%s verify --algo ring2p --max-ranks 4 >/dev/null' /dev/null", g5);
	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_assert_nonnull(strstr(out, "\rverify: ring2p    allreduce     (1/4)"));
	g_assert_nonnull(strstr(out, "\rverify: ring2p    alltoall      (4/4)"));
}

/* docs/algorithms.md is `g5 algos --markdown` byte for byte: the table of
 * which algorithms each collective accepts cannot drift from the registry
 * (regenerate it with that command). */
static void test_e2e_algos_table(void)
{
	const char *g5 = g5_path();
	g_autofree char *out = NULL, *err = NULL, *cmd = NULL, *doc = NULL;

	if (!g5)
		return;
	cmd = g_strdup_printf("%s algos --markdown", g5);
	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_assert_true(g_file_get_contents("docs/algorithms.md", &doc, NULL, NULL));
	if (strcmp(out, doc))
		g_error("docs/algorithms.md differs from 'g5 algos --markdown': regenerate it with\n"
			"  build/g5 algos --markdown > docs/algorithms.md");
	/* and the table says what the registry accepts */
	for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
		g_autofree char *known = algo_known_names((enum coll)bit);
		g_autofree char *row = g_strdup_printf("\n| %s | %s |\n", coll_name((enum coll)bit), known);

		g_assert_nonnull(strstr(out, row));
	}
	g_assert_nonnull(strstr(out, "| `rd` | allgather, allgatherv | sendrecv | powers of two |"));
}

static void test_e2e_full_matrix(void)
{
	/* What `g5 verify` promises: every registered algorithm x collective x
	 * N in 2..64 x nchunks {1, 2, 4}, out of place and in place, verified
	 * or cleanly rejected; AllGatherV with its weights. */
	const char *g5 = g5_path();

	if (!g5)
		g_error("G5 is not set: run through `make test`");
	char *cmd = g_strdup_printf("%s verify", g5);
	char *out, *err;
	unsigned ok = 0, rejected = 0, failed = 1;

	g_assert_cmpint(sh(cmd, &out, &err), ==, 0);
	g_assert_cmpint(sscanf(out, "verify: %u schedules ok, %u not admitted, %u failed",
			       &ok, &rejected, &failed), ==, 3);
	g_assert_cmpuint(failed, ==, 0);
	g_assert_cmpuint(ok, >=, 5000);
	g_free(out), g_free(err), g_free(cmd);
}

/* A turned schedule (algo_params.turned: rank 0's ops alone) is the
 * schedule: stored out by sched_expand it equals, op for op, the one built
 * rank by rank, for every collective of the 1-port ring (Transfer and
 * Send/Recv), ring2p and pairwise AllToAll, N from 2 to 9 and 16, pieces 1
 * to 3, with the copy fused or not; the turned one stores one rank's ops.
 * Algorithms whose ranks are not turns of rank 0's (hd, dbtree) ignore the
 * request. */
static void test_turned(void)
{
	static const struct {
		const char *algo;
		enum coll c;
	} runs[] = {
		{ "ring", COLL_ALLREDUCE }, { "ring", COLL_ALLGATHER }, { "ring", COLL_REDUCESCATTER },
		{ "sendrecv", COLL_ALLREDUCE }, { "sendrecv", COLL_ALLGATHER },
		{ "sendrecv", COLL_REDUCESCATTER }, { "ring2p", COLL_ALLREDUCE },
		{ "ring2p", COLL_ALLGATHER }, { "ring2p", COLL_REDUCESCATTER },
		{ "pairwise", COLL_ALLTOALL },
	};
	static const int ns[] = { 2, 3, 4, 5, 6, 7, 8, 9, 16 };
	int checked = 0;

	for (size_t a = 0; a < G_N_ELEMENTS(runs); a++)
		for (size_t k = 0; k < G_N_ELEMENTS(ns); k++)
			for (uint32_t pieces = 1; pieces <= 3; pieces++)
				for (int fuse = 0; fuse < 2; fuse++) {
					const struct algo_ops *ops = algo_find(runs[a].c, runs[a].algo, NULL);
					struct algo_params p = { .nranks = ns[k], .nchunks = pieces,
								 .peer = 1, .fuse_copy = fuse };
					struct sched *full = algo_build(ops, runs[a].c, &p, NULL);

					p.turned = true;
					struct sched *t = algo_build(ops, runs[a].c, &p, NULL);

					g_assert_nonnull(full);
					g_assert_nonnull(t);
					g_assert_true(t->turned);
					g_assert_false(full->turned);
					for (int r = 1; r < t->nranks; r++)
						g_assert_cmpuint(t->ranks[r].ops->len, ==, 0);
					for (int r = 0; r < t->nranks; r++)
						g_assert_cmpuint(sched_rank_len(t, r), ==, full->ranks[r].ops->len);
					g_assert_false(sched_equal(full, t));
					sched_expand(t);
					g_assert_false(t->turned);
					g_assert_true(sched_equal(full, t));
					sched_free(full);
					sched_free(t);
					checked++;
				}
	g_assert_cmpint(checked, ==, 10 * 9 * 3 * 2);

	static const char *const others[] = { "hd", "dbtree" };

	for (size_t a = 0; a < G_N_ELEMENTS(others); a++) {
		struct algo_params p = { .nranks = 8, .nchunks = 1, .turned = true };
		struct sched *s = algo_build(algo_find(COLL_ALLREDUCE, others[a], NULL), COLL_ALLREDUCE,
					     &p, NULL);

		g_assert_false(s->turned);
		g_assert_cmpuint(s->ranks[7].ops->len, >, 0);
		sched_free(s);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/algos/chunking/remainders", test_chunk_remainders);
	g_test_add_func("/algos/chunking/small-and-empty", test_chunk_small);
	g_test_add_func("/algos/hazards/readers", test_hazards_readers);
	g_test_add_func("/algos/hazards/runs", test_hazards_runs);
	g_test_add_func("/algos/chunking/allgatherv-weights", test_chunk_weighted);
	g_test_add_func("/algos/names", test_names);
	g_test_add_func("/algos/schedule/bound", test_schedule_bound);
	g_test_add_func("/algos/registry/find", test_registry_find);
	g_test_add_func("/algos/registry/params", test_registry_params);
	g_test_add_func("/algos/registry/paxi-override", test_registry_paxi);
	g_test_add_func("/algos/ring/verify-matrix", test_ring_verify_matrix);
	g_test_add_func("/algos/ring/steps-equal-theory", test_ring_steps_theory);
	g_test_add_func("/algos/ring/nccl-op-sequence", test_ring_nccl_ops);
	g_test_add_func("/algos/schedule/turned", test_turned);
	g_test_add_func("/algos/nccl/copy-send", test_nccl_copy_send);
	g_test_add_func("/algos/ring2p/lanes", test_ring2p_lanes);
	g_test_add_func("/algos/verify/missing-dep", test_verify_missing_dep);
	g_test_add_func("/algos/verify/dropped-send", test_verify_dropped_send);
	g_test_add_func("/algos/verify/counted-twice", test_verify_counted_twice);
	g_test_add_func("/algos/verify/deadlock", test_verify_deadlock);
	g_test_add_func("/algos/verify/structure", test_verify_structure);
	g_test_add_func("/algos/file/round-trip", test_file_round_trip);
	g_test_add_func("/algos/file/damaged", test_file_damaged);
	g_test_add_func("/algos/e2e/schedule-pipe-verify", test_e2e_pipe);
	g_test_add_func("/algos/e2e/file-and-damaged-file", test_e2e_file);
	g_test_add_func("/algos/e2e/bad-usage", test_e2e_usage);
	g_test_add_func("/algos/e2e/verify-sweep", test_e2e_sweep);
	g_test_add_func("/algos/e2e/verify-progress", test_e2e_progress_and_refusals);
	g_test_add_func("/algos/e2e/algos-table", test_e2e_algos_table);
	g_test_add_func("/algos/e2e/verify-full-matrix", test_e2e_full_matrix);
	return g_test_run();
}
