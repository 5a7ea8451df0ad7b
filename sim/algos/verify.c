/* The symbolic verifier (contract in verify.h). It models data, not time:
 * a value is (origin unit, set of contributing ranks) kept as 1 + W 64-bit
 * words (W = ceil(N / 64)), the origin word being V_UNDEF for "nothing".
 *
 * Execution is a worklist over ops: an op is retried when something it may
 * wait for changes (the previous op of its lane issued, a dep done, its
 * sender fired, its receiver issued). Whether op w happens before op i of
 * the same rank is a backward search over deps from i that never descends
 * below w (deps point to earlier ops), with the last answer cached.
 *
 * What the output must hold, for each unit u of rank r's output window
 * (K = nchunks, ALL = every rank):
 *   AllReduce            (u, ALL)
 *   AllGather(V)         (u, {u / K})              the owner of block u / K
 *   ReduceScatter        (u, ALL)                  on block r
 *   AllToAll             (r K + u % K, {u / K})    block j of r's output is
 *                                                  block r of j's input
 *   Broadcast            (u, {root})
 *   Reduce               (u, ALL)                  on the root
 *   P2P                  (u, {root})               on the peer */
#include "sim/algos/verify.h"

#include <string.h>

#define V_UNDEF UINT64_MAX

enum { OP_PENDING, OP_ISSUED, OP_DONE };

struct vctx {
	const struct sched *s;
	bool inplace;
	int n;
	uint32_t nw, vw; /* set words, value words (1 + nw) */
	struct verify_where *where;
	GError **error;

	/* cells, per rank: in, out (aliased in place), scratch */
	uint64_t *cells;  /* ncells x vw */
	int64_t *writer;  /* per cell: op index, -1 none */
	int32_t *rhead;   /* per cell: reader list, -1 empty */
	GArray *rnext, *rop; /* reader pool: int32_t next, uint32_t op */
	uint64_t ncells;
	uint64_t *base_in, *base_out, *base_scr; /* cell index of unit lo */
	uint32_t *lo_in, *lo_out;

	/* ops, numbered globally: g = opbase[r] + i */
	uint64_t *opbase;
	uint64_t nops;
	int *op_rank;
	uint8_t *state;
	int64_t *recv_from; /* receiving op: its sender's g, else -1 */
	int64_t *send_to;   /* sending op: its receiver's g, else -1 */
	uint64_t *msgoff;   /* sending op: offset of its message in msgs */
	uint64_t *msgs;
	uint32_t *dependents_first; /* CSR per g, global indices */
	uint64_t *dependents;
	uint32_t *lane_pos; /* per g: position in its lane */
	GArray **lanes;     /* [r * nlanes + l]: uint32_t op indices */
	uint32_t *lane_head;
	GArray *work;
	uint64_t ndone;

	/* happens-before search */
	uint32_t *stamp;    /* per g */
	uint32_t stamp_now;
	GArray *stack;
	int hb_rank;
	uint32_t hb_i, hb_w;
	bool hb_ans, hb_valid;
};

static const struct sched_op *op_of(const struct vctx *v, uint64_t g)
{
	int r = v->op_rank[g];

	return sched_op_at(v->s, r, (uint32_t)(g - v->opbase[r]));
}

static void op_label(GString *m, const struct sched *s, int r, uint32_t i)
{
	const struct sched_op *o = sched_op_at(s, r, i);

	g_string_append_printf(m, "rank %d op %u (step %u, %s)", r, i, o->step,
			       o->kind < SOP_NKINDS ? sched_op_kind_name((enum sched_op_kind)o->kind)
						    : "bad kind");
}

/* Sets the error "[in place: ]rank R op I (step S, KIND): MESSAGE". i < 0:
 * no op; r < 0: no rank either. */
static bool fail(struct vctx *v, int r, long i, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static bool fail(struct vctx *v, int r, long i, const char *fmt, ...)
{
	GString *m = g_string_new(v->inplace ? "in place: " : "");
	va_list ap;

	if (r >= 0 && i >= 0) {
		op_label(m, v->s, r, (uint32_t)i);
		g_string_append(m, ": ");
	} else if (r >= 0) {
		g_string_append_printf(m, "rank %d: ", r);
	}
	va_start(ap, fmt);
	g_string_append_vprintf(m, fmt, ap);
	va_end(ap);
	g_set_error_literal(v->error, SCHED_ERROR, SCHED_ERROR_INVALID, m->str);
	g_string_free(m, TRUE);
	if (v->where) {
		v->where->rank = r;
		v->where->op = r >= 0 ? i : -1;
	}
	return false;
}

/* ---- structure ---- */

static bool check_header(struct vctx *v)
{
	const struct sched *s = v->s;
	int n = s->nranks;

	if (n < 1 || n > SCHED_MAX_RANKS)
		return fail(v, -1, -1, "ranks must be in 1..%d, got %d", SCHED_MAX_RANKS, n);
	if (s->nblocks < 1 || s->nchunks < 1 || s->nunits != s->nblocks * s->nchunks)
		return fail(v, -1, -1, "units %u is not nblocks %u x nchunks %u", s->nunits,
			    s->nblocks, s->nchunks);
	bool rooted = s->coll == COLL_BROADCAST || s->coll == COLL_REDUCE || s->coll == COLL_P2P;

	if (rooted ? (s->root < 0 || s->root >= n) : s->root != 0)
		return fail(v, -1, -1, "root %d is out of range for %s on %d ranks", s->root,
			    coll_name(s->coll), n);
	if (s->coll == COLL_P2P ? (s->peer < 0 || s->peer >= n || s->peer == s->root)
				: s->peer != -1)
		return fail(v, -1, -1, "peer %d is out of range for %s", s->peer,
			    coll_name(s->coll));
	if ((s->coll & (COLL_ALLGATHER | COLL_ALLGATHERV | COLL_REDUCESCATTER | COLL_ALLTOALL)) &&
	    s->nblocks != (uint32_t)n)
		return fail(v, -1, -1, "%s needs one block per rank, got %u blocks on %d ranks",
			    coll_name(s->coll), s->nblocks, n);
	if (s->coll == COLL_ALLGATHERV) {
		uint64_t sum = 0;

		if (!s->weights)
			return fail(v, -1, -1, "allgatherv without weights");
		for (uint32_t b = 0; b < s->nblocks; b++)
			sum |= s->weights[b];
		if (!sum)
			return fail(v, -1, -1, "allgatherv weights are all zero");
	} else if (s->weights) {
		return fail(v, -1, -1, "weights on %s", coll_name(s->coll));
	}
	for (int r = 0; r < n; r++) {
		const struct sched_rank *rk = &s->ranks[r];
		uint32_t w[4];

		sched_expected_windows(s, r, w);
		if (rk->in_lo != w[0] || rk->in_hi != w[1] || rk->out_lo != w[2] || rk->out_hi != w[3])
			return fail(v, r, -1,
				    "windows in [%u, %u) out [%u, %u), but %s prescribes in [%u, %u) "
				    "out [%u, %u)",
				    rk->in_lo, rk->in_hi, rk->out_lo, rk->out_hi, coll_name(s->coll),
				    w[0], w[1], w[2], w[3]);
	}
	return true;
}

static bool check_range(struct vctx *v, int r, uint32_t i, const char *what, uint8_t buf,
			uint32_t off, uint32_t count)
{
	const struct sched *s = v->s;
	const struct sched_rank *rk = &s->ranks[r];
	uint32_t lo, hi;

	switch (buf) {
	case SBUF_IN:
		lo = rk->in_lo, hi = rk->in_hi;
		break;
	case SBUF_OUT:
		lo = rk->out_lo, hi = rk->out_hi;
		break;
	case SBUF_SCRATCH:
		lo = 0, hi = s->scratch_units;
		break;
	default:
		return fail(v, r, i, "%s has no buffer", what);
	}
	if (off < lo || (uint64_t)off + count > hi)
		return fail(v, r, i, "%s %s units [%u, %" G_GUINT64_FORMAT ") leave its window [%u, %u)",
			    what, sched_buf_name((enum sched_buf)buf), off, (uint64_t)off + count,
			    lo, hi);
	return true;
}

static bool check_op(struct vctx *v, int r, uint32_t i, uint32_t *maxstep, uint32_t *maxlane)
{
	const struct sched *s = v->s;
	const struct sched_op *o = sched_op_at(s, r, i);
	int n = s->nranks;

	if (o->kind >= SOP_NKINDS)
		return fail(v, r, -1, "op %u has an unknown kind %u", i, o->kind);
	if (o->paxi > PAXI_SENDRECV)
		return fail(v, r, i, "unknown paxi kind %u", o->paxi);
	unsigned f = sched_op_kind_flags((enum sched_op_kind)o->kind);

	if (o->count < 1)
		return fail(v, r, i, "count is 0");
	if (f & SOPF_RECV) {
		if (o->recv_peer < 0 || o->recv_peer >= n || o->recv_peer == r)
			return fail(v, r, i, "receives from rank %d, not a peer of %d ranks",
				    o->recv_peer, n);
	} else if (o->recv_peer != -1) {
		return fail(v, r, i, "has a receive peer %d but receives nothing", o->recv_peer);
	}
	if (f & SOPF_SEND) {
		if (o->send_peer < 0 || o->send_peer >= n || o->send_peer == r)
			return fail(v, r, i, "sends to rank %d, not a peer of %d ranks", o->send_peer, n);
	} else if (o->send_peer != -1) {
		return fail(v, r, i, "has a send peer %d but sends nothing", o->send_peer);
	}
	if (f & SOPF_SRC) {
		if (!check_range(v, r, i, "source", o->src_buf, o->src_off, o->count))
			return false;
	} else if (o->src_buf != SBUF_NONE) {
		return fail(v, r, i, "has a source but reads none");
	}
	if (f & SOPF_DST) {
		if (o->dst_buf == SBUF_IN)
			return fail(v, r, i, "writes the input buffer (write the output in place)");
		if (!check_range(v, r, i, "destination", o->dst_buf, o->dst_off, o->count))
			return false;
	} else if (o->dst_buf != SBUF_NONE) {
		return fail(v, r, i, "has a destination but writes none");
	}
	const struct sched_rank *rk = &s->ranks[r];

	if ((uint64_t)o->dep_first + o->ndeps > rk->deps->len)
		return fail(v, r, i, "deps [%u, +%u) leave the rank's dep list", o->dep_first, o->ndeps);
	const uint32_t *d = sched_op_deps(s, r, i);

	for (uint32_t k = 0; k < o->ndeps; k++)
		if (d[k] >= i)
			return fail(v, r, i, "depends on op %u, which is not earlier", d[k]);
	*maxstep = MAX(*maxstep, o->step + 1);
	*maxlane = MAX(*maxlane, (uint32_t)o->lane + 1);
	return true;
}

static int cmp_i64(const void *a, const void *b)
{
	gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

	return x < y ? -1 : x > y;
}

static void array_unref(gpointer a)
{
	g_array_unref(a);
}

/* Pairs sends and receives per (sender, receiver, lane) in FIFO order. */
static bool match_ops(struct vctx *v)
{
	const struct sched *s = v->s;
	GHashTable *sends = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						  array_unref);
	GHashTable *recvs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						  array_unref);
	bool ok = true;

	for (uint64_t g = 0; g < v->nops; g++) {
		const struct sched_op *o = op_of(v, g);
		unsigned f = sched_op_kind_flags((enum sched_op_kind)o->kind);
		int r = v->op_rank[g];

		v->recv_from[g] = v->send_to[g] = -1;
		for (int side = 0; side < 2; side++) {
			if (!(f & (side ? SOPF_RECV : SOPF_SEND)))
				continue;
			int from = side ? o->recv_peer : r, to = side ? r : o->send_peer;
			gint64 key = ((gint64)from * s->nranks + to) * 256 + o->lane;
			GHashTable *t = side ? recvs : sends;
			GArray *a = g_hash_table_lookup(t, &key);

			if (!a) {
				a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
				g_hash_table_insert(t, g_memdup2(&key, sizeof(key)), a);
			}
			g_array_append_val(a, g);
		}
	}
	/* Every channel: pair in order; report the first unmatched op. Keys are
	 * visited in sorted order so the message does not depend on hashing. */
	for (int side = 0; side < 2 && ok; side++) {
		GHashTable *t = side ? recvs : sends, *other = side ? sends : recvs;
		GList *keys = g_hash_table_get_keys(t);
		GArray *ks = g_array_new(FALSE, FALSE, sizeof(gint64));

		for (GList *l = keys; l; l = l->next)
			g_array_append_val(ks, *(gint64 *)l->data);
		g_list_free(keys);
		g_array_sort(ks, cmp_i64);
		for (guint k = 0; k < ks->len && ok; k++) {
			gint64 key = g_array_index(ks, gint64, k);
			GArray *a = g_hash_table_lookup(t, &key), *b = g_hash_table_lookup(other, &key);
			guint nb = b ? b->len : 0;

			if (a->len > nb) {
				uint64_t g = g_array_index(a, uint64_t, nb);
				int from = (int)(key / 256 / s->nranks), to = (int)(key / 256 % s->nranks);
				int lane = (int)(key % 256);

				if (side)
					ok = fail(v, v->op_rank[g], (long)(g - v->opbase[v->op_rank[g]]),
						  "receives from rank %d on lane %d, but rank %d sends only "
						  "%u times to rank %d on lane %d",
						  from, lane, from, nb, to, lane);
				else
					ok = fail(v, v->op_rank[g], (long)(g - v->opbase[v->op_rank[g]]),
						  "sends to rank %d on lane %d, but rank %d receives only "
						  "%u times from rank %d on lane %d",
						  to, lane, to, nb, from, lane);
				break;
			}
			if (side)
				continue;
			for (guint j = 0; j < a->len; j++) {
				uint64_t gs = g_array_index(a, uint64_t, j), gr = g_array_index(b, uint64_t, j);
				const struct sched_op *os = op_of(v, gs), *orv = op_of(v, gr);
				int rs = v->op_rank[gs], rr = v->op_rank[gr];

				v->send_to[gs] = (int64_t)gr;
				v->recv_from[gr] = (int64_t)gs;
				if (os->count != orv->count) {
					ok = fail(v, rr, (long)(gr - v->opbase[rr]),
						  "receives %u units, but its matching send, rank %d op %"
						  G_GUINT64_FORMAT " (step %u), sends %u",
						  orv->count, rs, gs - v->opbase[rs], os->step, os->count);
					break;
				}
				if (os->paxi != orv->paxi) {
					ok = fail(v, rr, (long)(gr - v->opbase[rr]),
						  "receives by %s, but its matching send, rank %d op %"
						  G_GUINT64_FORMAT " (step %u), sends by %s",
						  paxi_kind_name((enum paxi_kind)orv->paxi), rs,
						  gs - v->opbase[rs], os->step,
						  paxi_kind_name((enum paxi_kind)os->paxi));
					break;
				}
			}
		}
		g_array_unref(ks);
	}
	g_hash_table_unref(sends);
	g_hash_table_unref(recvs);
	return ok;
}

/* ---- values ---- */

static uint64_t *cell(struct vctx *v, int r, uint8_t buf, uint32_t u, uint64_t *index)
{
	uint64_t c;

	if (buf == SBUF_SCRATCH)
		c = v->base_scr[r] + u;
	else if (buf == SBUF_IN)
		c = v->base_in[r] + (u - v->lo_in[r]);
	else
		c = v->base_out[r] + (u - v->lo_out[r]);
	g_assert_cmpuint(c, <, v->ncells);
	*index = c;
	return &v->cells[c * v->vw];
}

static void set_format(GString *m, const uint64_t *set, int n)
{
	int cnt = 0;

	for (int i = 0; i < n; i++)
		cnt += (set[i / 64] >> (i % 64)) & 1;
	if (cnt == n) {
		g_string_append_printf(m, "all %d ranks", n);
		return;
	}
	g_string_append(m, "ranks {");
	bool first = true;

	for (int i = 0; i < n; i++) {
		if (!((set[i / 64] >> (i % 64)) & 1))
			continue;
		int j = i;

		while (j + 1 < n && ((set[(j + 1) / 64] >> ((j + 1) % 64)) & 1))
			j++;
		g_string_append_printf(m, "%s%d", first ? "" : ",", i);
		if (j > i)
			g_string_append_printf(m, "-%d", j);
		first = false;
		i = j;
	}
	g_string_append(m, "}");
}

static char *value_str(const struct vctx *v, const uint64_t *val)
{
	if (val[0] == V_UNDEF)
		return g_strdup("nothing");
	GString *m = g_string_new(NULL);

	g_string_append_printf(m, "unit %" G_GUINT64_FORMAT " from ", val[0]);
	set_format(m, val + 1, v->n);
	return g_string_free(m, FALSE);
}

/* out = a + b, or an error for the op (r, i) about unit u. */
static bool value_add(struct vctx *v, int r, uint32_t i, uint32_t u, const uint64_t *a,
		      const uint64_t *b, uint64_t *out)
{
	if (a[0] == V_UNDEF || b[0] == V_UNDEF)
		return fail(v, r, i, "adds nothing at unit %u", u);
	if (a[0] != b[0])
		return fail(v, r, i, "adds unit %" G_GUINT64_FORMAT " to unit %" G_GUINT64_FORMAT
			    " (at unit %u): units mixed", a[0], b[0], u);
	for (uint32_t w = 0; w < v->nw; w++) {
		uint64_t both = a[1 + w] & b[1 + w];

		if (both) {
			int rank = (int)(w * 64 + (uint32_t)__builtin_ctzll(both));

			return fail(v, r, i, "counts rank %d's contribution to unit %" G_GUINT64_FORMAT
				    " twice", rank, a[0]);
		}
	}
	out[0] = a[0];
	for (uint32_t w = 0; w < v->nw; w++)
		out[1 + w] = a[1 + w] | b[1 + w];
	return true;
}

/* Does op i of rank r depend, transitively, on op w < i? */
static bool happens_before(struct vctx *v, int r, uint32_t w, uint32_t i)
{
	if (v->hb_valid && v->hb_rank == r && v->hb_i == i && v->hb_w == w)
		return v->hb_ans;
	uint64_t base = v->opbase[r];
	bool ans = false;

	if (++v->stamp_now == 0) {
		memset(v->stamp, 0, v->nops * sizeof(uint32_t));
		v->stamp_now = 1;
	}
	g_array_set_size(v->stack, 0);
	g_array_append_val(v->stack, i);
	while (v->stack->len && !ans) {
		uint32_t x = g_array_index(v->stack, uint32_t, v->stack->len - 1);
		const uint32_t *d = sched_op_deps(v->s, r, x);
		uint32_t nd = sched_op_at(v->s, r, x)->ndeps;

		g_array_set_size(v->stack, v->stack->len - 1);
		for (uint32_t k = 0; k < nd; k++) {
			if (d[k] == w) {
				ans = true;
				break;
			}
			if (d[k] < w || v->stamp[base + d[k]] == v->stamp_now)
				continue;
			v->stamp[base + d[k]] = v->stamp_now;
			g_array_append_val(v->stack, d[k]);
		}
	}
	v->hb_valid = true;
	v->hb_rank = r, v->hb_i = i, v->hb_w = w, v->hb_ans = ans;
	return ans;
}

static const char *buf_word(uint8_t b)
{
	return b == SBUF_IN ? "input" : b == SBUF_OUT ? "output" : "scratch";
}

/* Reads (r, buf, u) for op i into val; hazard and definedness checks. */
static bool cell_read(struct vctx *v, int r, uint32_t i, uint8_t buf, uint32_t u, uint64_t *val)
{
	uint64_t c;
	uint64_t *p = cell(v, r, buf, u, &c);
	int64_t w = v->writer[c];

	if (w >= 0 && (uint32_t)w != i && !happens_before(v, r, (uint32_t)w, i)) {
		const struct sched_op *ow = sched_op_at(v->s, r, (uint32_t)w);

		return fail(v, r, i, "reads %s unit %u written by op %" G_GINT64_FORMAT
			    " (step %u), which it does not depend on", buf_word(buf), u, w, ow->step);
	}
	if (p[0] == V_UNDEF)
		return fail(v, r, i, "reads %s unit %u, which holds no data yet", buf_word(buf), u);
	memcpy(val, p, v->vw * sizeof(uint64_t));
	int32_t head = v->rhead[c];

	if (head < 0 || g_array_index(v->rop, uint32_t, head) != i) {
		int32_t idx = (int32_t)v->rop->len;

		g_array_append_val(v->rop, i);
		g_array_append_val(v->rnext, head);
		v->rhead[c] = idx;
	}
	return true;
}

static bool cell_write(struct vctx *v, int r, uint32_t i, uint8_t buf, uint32_t u,
		       const uint64_t *val)
{
	uint64_t c;
	uint64_t *p = cell(v, r, buf, u, &c);
	int64_t w = v->writer[c];

	if (w >= 0 && (uint32_t)w != i && !happens_before(v, r, (uint32_t)w, i)) {
		const struct sched_op *ow = sched_op_at(v->s, r, (uint32_t)w);

		return fail(v, r, i, "overwrites %s unit %u written by op %" G_GINT64_FORMAT
			    " (step %u), which it does not depend on", buf_word(buf), u, w, ow->step);
	}
	for (int32_t k = v->rhead[c]; k >= 0; k = g_array_index(v->rnext, int32_t, k)) {
		uint32_t q = g_array_index(v->rop, uint32_t, k);

		if (q != i && (q > i || !happens_before(v, r, q, i))) {
			const struct sched_op *oq = sched_op_at(v->s, r, q);

			return fail(v, r, i, "overwrites %s unit %u that op %u (step %u) reads, "
				    "which it does not depend on", buf_word(buf), u, q, oq->step);
		}
	}
	v->rhead[c] = -1;
	v->writer[c] = i;
	memcpy(p, val, v->vw * sizeof(uint64_t));
	return true;
}

/* ---- execution ---- */

static void push(struct vctx *v, uint64_t g)
{
	g_array_append_val(v->work, g);
}

static bool deps_done(const struct vctx *v, int r, uint32_t i, uint32_t *blocker)
{
	const uint32_t *d = sched_op_deps(v->s, r, i);
	uint32_t nd = sched_op_at(v->s, r, i)->ndeps;

	for (uint32_t k = 0; k < nd; k++)
		if (v->state[v->opbase[r] + d[k]] != OP_DONE) {
			if (blocker)
				*blocker = d[k];
			return false;
		}
	return true;
}

static bool can_fire(const struct vctx *v, uint64_t g)
{
	const struct sched_op *o = op_of(v, g);

	if (v->recv_from[g] >= 0 && v->state[v->recv_from[g]] != OP_DONE)
		return false;
	if (v->send_to[g] >= 0 && o->paxi == PAXI_SENDRECV &&
	    v->state[v->send_to[g]] == OP_PENDING)
		return false;
	return true;
}

static bool fire(struct vctx *v, uint64_t g)
{
	int r = v->op_rank[g];
	uint32_t i = (uint32_t)(g - v->opbase[r]);
	const struct sched_op *o = op_of(v, g);
	unsigned f = sched_op_kind_flags((enum sched_op_kind)o->kind);
	uint32_t vw = v->vw;
	uint64_t *R = NULL, *L = g_new(uint64_t, (size_t)vw * o->count);
	uint64_t *D = g_new(uint64_t, (size_t)vw * o->count);
	bool ok = true, same = false;

	if (v->recv_from[g] >= 0)
		R = &v->msgs[v->msgoff[v->recv_from[g]]];
	/* a source and destination in one buffer overlap fully or not at all */
	if ((f & SOPF_SRC) && (f & SOPF_DST)) {
		uint64_t cs, cd;

		cell(v, r, o->src_buf, o->src_off, &cs);
		cell(v, r, o->dst_buf, o->dst_off, &cd);
		same = cs == cd;
		if (cs != cd && cs < cd + o->count && cd < cs + o->count)
			ok = fail(v, r, i, "source %s:%u and destination %s:%u overlap partially",
				  sched_buf_name((enum sched_buf)o->src_buf), o->src_off,
				  sched_buf_name((enum sched_buf)o->dst_buf), o->dst_off);
	}
	for (uint32_t k = 0; ok && k < o->count; k++) {
		uint64_t *l = L + (size_t)k * vw, *d = D + (size_t)k * vw;

		if (f & SOPF_SRC)
			ok = cell_read(v, r, i, o->src_buf, o->src_off + k, l);
		if (!ok)
			break;
		switch (o->kind) {
		case SOP_SEND:
		case SOP_COPY:
		case SOP_COPY_SEND:
			memcpy(d, l, vw * sizeof(uint64_t));
			break;
		case SOP_RECV:
		case SOP_RECV_COPY_SEND:
			memcpy(d, R + (size_t)k * vw, vw * sizeof(uint64_t));
			break;
		case SOP_REDUCE: {
			uint64_t *cur = g_new(uint64_t, vw);

			ok = cell_read(v, r, i, o->dst_buf, o->dst_off + k, cur) &&
			     value_add(v, r, i, o->dst_off + k, cur, l, d);
			g_free(cur);
			break;
		}
		default: /* the recv-reduce kinds: R + L */
			ok = value_add(v, r, i, (f & SOPF_DST) ? o->dst_off + k : o->src_off + k,
				       R + (size_t)k * vw, l, d);
			break;
		}
	}
	/* a copy onto the same memory (in place) changes nothing: no write */
	bool nowrite = (o->kind == SOP_COPY || o->kind == SOP_COPY_SEND) && same;

	for (uint32_t k = 0; ok && (f & SOPF_DST) && !nowrite && k < o->count; k++)
		ok = cell_write(v, r, i, o->dst_buf, o->dst_off + k, D + (size_t)k * vw);
	if (ok && (f & SOPF_SEND))
		memcpy(&v->msgs[v->msgoff[g]], D, (size_t)vw * o->count * sizeof(uint64_t));
	g_free(L);
	g_free(D);
	if (!ok)
		return false;
	v->state[g] = OP_DONE;
	v->ndone++;
	for (uint32_t k = v->dependents_first[g]; k < v->dependents_first[g + 1]; k++)
		push(v, v->dependents[k]);
	if (v->send_to[g] >= 0)
		push(v, (uint64_t)v->send_to[g]);
	return true;
}

static bool step_op(struct vctx *v, uint64_t g)
{
	int r = v->op_rank[g];
	uint32_t i = (uint32_t)(g - v->opbase[r]);
	const struct sched_op *o = op_of(v, g);

	if (v->state[g] == OP_PENDING) {
		uint32_t li = r * v->s->nlanes + o->lane;

		if (v->lane_head[li] != v->lane_pos[g] || !deps_done(v, r, i, NULL))
			return true;
		v->state[g] = OP_ISSUED;
		v->lane_head[li]++;
		if (v->lane_head[li] < v->lanes[li]->len)
			push(v, v->opbase[r] + g_array_index(v->lanes[li], uint32_t, v->lane_head[li]));
		if (v->recv_from[g] >= 0)
			push(v, (uint64_t)v->recv_from[g]); /* a Send/Recv sender waits for this */
	}
	if (v->state[g] == OP_ISSUED && can_fire(v, g))
		return fire(v, g);
	return true;
}

static bool report_deadlock(struct vctx *v)
{
	GString *m = g_string_new(NULL);
	uint64_t stuck = v->nops - v->ndone, shown = 0;
	int fr = -1;
	long fi = -1;

	g_string_append_printf(m, "deadlock: %" G_GUINT64_FORMAT " ops cannot progress", stuck);
	for (uint64_t g = 0; g < v->nops && shown < 4; g++) {
		if (v->state[g] == OP_DONE)
			continue;
		int r = v->op_rank[g];
		uint32_t i = (uint32_t)(g - v->opbase[r]), dep;
		const struct sched_op *o = op_of(v, g);

		if (fr < 0)
			fr = r, fi = i;
		g_string_append(m, shown ? "; " : ": ");
		op_label(m, v->s, r, i);
		if (v->state[g] == OP_PENDING) {
			uint32_t li = r * v->s->nlanes + o->lane;

			if (v->lane_head[li] != v->lane_pos[g]) {
				uint32_t before = g_array_index(v->lanes[li], uint32_t, v->lane_head[li]);

				g_string_append_printf(m, " waits behind op %u on lane %u", before, o->lane);
			} else if (!deps_done(v, r, i, &dep)) {
				g_string_append_printf(m, " waits for op %u (step %u)", dep,
						       sched_op_at(v->s, r, dep)->step);
			}
		} else if (v->recv_from[g] >= 0 && v->state[v->recv_from[g]] != OP_DONE) {
			uint64_t gs = (uint64_t)v->recv_from[g];
			int rs = v->op_rank[gs];

			g_string_append_printf(m, " waits for the data of rank %d op %" G_GUINT64_FORMAT, rs,
					       gs - v->opbase[rs]);
		} else if (v->send_to[g] >= 0) {
			uint64_t gr = (uint64_t)v->send_to[g];
			int rr = v->op_rank[gr];

			g_string_append_printf(m, " waits for rank %d op %" G_GUINT64_FORMAT
					       " to post its receive", rr, gr - v->opbase[rr]);
		}
		shown++;
	}
	if (stuck > shown)
		g_string_append(m, "; ...");
	bool ok = fail(v, -1, -1, "%s", m->str);

	if (v->where)
		v->where->rank = fr, v->where->op = fi;
	g_string_free(m, TRUE);
	return ok;
}

static void expected(const struct vctx *v, int r, uint32_t u, uint64_t *val)
{
	const struct sched *s = v->s;
	uint32_t K = s->nchunks;

	memset(val + 1, 0, v->nw * sizeof(uint64_t));
	val[0] = u;
	int one = -1;

	switch (s->coll) {
	case COLL_ALLREDUCE:
	case COLL_REDUCESCATTER:
	case COLL_REDUCE:
		for (int i = 0; i < v->n; i++)
			val[1 + i / 64] |= 1ull << (i % 64);
		return;
	case COLL_ALLGATHER:
	case COLL_ALLGATHERV:
		one = (int)(u / K);
		break;
	case COLL_ALLTOALL:
		val[0] = (uint64_t)r * K + u % K;
		one = (int)(u / K);
		break;
	case COLL_BROADCAST:
	case COLL_P2P:
		one = s->root;
		break;
	default:
		g_error("verify: bad collective 0x%x", (unsigned)s->coll);
	}
	val[1 + one / 64] |= 1ull << (one % 64);
}

static bool check_outputs(struct vctx *v)
{
	const struct sched *s = v->s;
	uint64_t *want = g_new(uint64_t, v->vw);
	bool ok = true;

	for (int r = 0; r < s->nranks && ok; r++)
		for (uint32_t u = s->ranks[r].out_lo; u < s->ranks[r].out_hi && ok; u++) {
			uint64_t c;
			const uint64_t *have = cell(v, r, SBUF_OUT, u, &c);

			expected(v, r, u, want);
			if (memcmp(have, want, v->vw * sizeof(uint64_t))) {
				char *h = value_str(v, have), *w = value_str(v, want);

				ok = fail(v, r, -1, "output unit %u holds %s, expected %s", u, h, w);
				g_free(h);
				g_free(w);
			}
		}
	g_free(want);
	return ok;
}

static void layout_cells(struct vctx *v)
{
	const struct sched *s = v->s;
	uint64_t next = 0;

	for (int r = 0; r < v->n; r++) {
		const struct sched_rank *rk = &s->ranks[r];

		if (v->inplace) {
			uint32_t lo = UINT32_MAX, hi = 0;

			if (rk->in_hi > rk->in_lo)
				lo = MIN(lo, rk->in_lo), hi = MAX(hi, rk->in_hi);
			if (rk->out_hi > rk->out_lo)
				lo = MIN(lo, rk->out_lo), hi = MAX(hi, rk->out_hi);
			if (hi == 0)
				lo = 0;
			v->base_in[r] = v->base_out[r] = next;
			v->lo_in[r] = v->lo_out[r] = lo;
			next += hi - lo;
		} else {
			v->base_in[r] = next;
			v->lo_in[r] = rk->in_lo;
			next += rk->in_hi - rk->in_lo;
			v->base_out[r] = next;
			v->lo_out[r] = rk->out_lo;
			next += rk->out_hi - rk->out_lo;
		}
		v->base_scr[r] = next;
		next += s->scratch_units;
	}
	v->ncells = next;
	v->cells = g_new(uint64_t, MAX(next, 1) * v->vw);
	v->writer = g_new(int64_t, MAX(next, 1));
	v->rhead = g_new(int32_t, MAX(next, 1));
	for (uint64_t c = 0; c < next; c++) {
		v->cells[c * v->vw] = V_UNDEF;
		memset(&v->cells[c * v->vw + 1], 0, v->nw * sizeof(uint64_t));
		v->writer[c] = -1;
		v->rhead[c] = -1;
	}
	for (int r = 0; r < v->n; r++) {
		const struct sched_rank *rk = &s->ranks[r];

		for (uint32_t u = rk->in_lo; u < rk->in_hi; u++) {
			uint64_t c;
			uint64_t *p = cell(v, r, SBUF_IN, u, &c);

			p[0] = u;
			p[1 + r / 64] |= 1ull << (r % 64);
		}
	}
}

static void vctx_release(struct vctx *v)
{
	g_free(v->cells);
	g_free(v->writer);
	g_free(v->rhead);
	if (v->rnext)
		g_array_unref(v->rnext);
	if (v->rop)
		g_array_unref(v->rop);
	g_free(v->base_in);
	g_free(v->base_out);
	g_free(v->base_scr);
	g_free(v->lo_in);
	g_free(v->lo_out);
	g_free(v->opbase);
	g_free(v->op_rank);
	g_free(v->state);
	g_free(v->recv_from);
	g_free(v->send_to);
	g_free(v->msgoff);
	g_free(v->msgs);
	g_free(v->dependents_first);
	g_free(v->dependents);
	g_free(v->lane_pos);
	if (v->lanes) {
		for (uint64_t l = 0; l < (uint64_t)v->n * v->s->nlanes; l++)
			if (v->lanes[l])
				g_array_unref(v->lanes[l]);
		g_free(v->lanes);
	}
	g_free(v->lane_head);
	if (v->work)
		g_array_unref(v->work);
	g_free(v->stamp);
	if (v->stack)
		g_array_unref(v->stack);
}

static bool verify_run(struct vctx *v)
{
	const struct sched *s = v->s;
	int n = s->nranks;
	uint32_t maxstep = 0, maxlane = 0;

	if (!check_header(v))
		return false;
	v->opbase = g_new(uint64_t, n + 1);
	v->opbase[0] = 0;
	for (int r = 0; r < n; r++)
		v->opbase[r + 1] = v->opbase[r] + s->ranks[r].ops->len;
	v->nops = v->opbase[n];
	for (int r = 0; r < n; r++)
		for (uint32_t i = 0; i < s->ranks[r].ops->len; i++)
			if (!check_op(v, r, i, &maxstep, &maxlane))
				return false;
	if (maxstep != s->nsteps || maxlane != s->nlanes)
		return fail(v, -1, -1, "the header counts %u steps and %u lanes, the ops %u and %u",
			    s->nsteps, s->nlanes, maxstep, maxlane);
	if (v->inplace && !s->inplace_ok)
		return fail(v, -1, -1, "the schedule is out of place only");

	v->op_rank = g_new(int, MAX(v->nops, 1));
	for (int r = 0; r < n; r++)
		for (uint64_t g = v->opbase[r]; g < v->opbase[r + 1]; g++)
			v->op_rank[g] = r;
	v->recv_from = g_new(int64_t, MAX(v->nops, 1));
	v->send_to = g_new(int64_t, MAX(v->nops, 1));
	if (!match_ops(v))
		return false;

	/* messages, dependents, lanes */
	v->msgoff = g_new0(uint64_t, MAX(v->nops, 1));
	uint64_t words = 0;

	for (uint64_t g = 0; g < v->nops; g++)
		if (v->send_to[g] >= 0) {
			v->msgoff[g] = words;
			words += (uint64_t)op_of(v, g)->count * v->vw;
		}
	v->msgs = g_new(uint64_t, MAX(words, 1));
	v->dependents_first = g_new0(uint32_t, v->nops + 1);
	for (uint64_t g = 0; g < v->nops; g++) {
		int r = v->op_rank[g];
		const uint32_t *d = sched_op_deps(s, r, (uint32_t)(g - v->opbase[r]));

		for (uint32_t k = 0; k < op_of(v, g)->ndeps; k++)
			v->dependents_first[v->opbase[r] + d[k] + 1]++;
	}
	for (uint64_t g = 0; g < v->nops; g++)
		v->dependents_first[g + 1] += v->dependents_first[g];
	v->dependents = g_new(uint64_t, MAX(v->dependents_first[v->nops], 1));
	uint32_t *fillpos = g_memdup2(v->dependents_first, (v->nops + 1) * sizeof(uint32_t));

	for (uint64_t g = 0; g < v->nops; g++) {
		int r = v->op_rank[g];
		const uint32_t *d = sched_op_deps(s, r, (uint32_t)(g - v->opbase[r]));

		for (uint32_t k = 0; k < op_of(v, g)->ndeps; k++)
			v->dependents[fillpos[v->opbase[r] + d[k]]++] = g;
	}
	g_free(fillpos);
	uint64_t nl = (uint64_t)n * s->nlanes;

	v->lanes = g_new0(GArray *, MAX(nl, 1));
	v->lane_head = g_new0(uint32_t, MAX(nl, 1));
	v->lane_pos = g_new(uint32_t, MAX(v->nops, 1));
	for (uint64_t g = 0; g < v->nops; g++) {
		int r = v->op_rank[g];
		uint64_t li = (uint64_t)r * s->nlanes + op_of(v, g)->lane;
		uint32_t i = (uint32_t)(g - v->opbase[r]);

		if (!v->lanes[li])
			v->lanes[li] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		v->lane_pos[g] = v->lanes[li]->len;
		g_array_append_val(v->lanes[li], i);
	}
	v->state = g_new0(uint8_t, MAX(v->nops, 1));
	v->stamp = g_new0(uint32_t, MAX(v->nops, 1));
	v->stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	v->rnext = g_array_new(FALSE, FALSE, sizeof(int32_t));
	v->rop = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	v->work = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	layout_cells(v);

	/* Start with every lane's first op, highest rank first so that the
	 * stack pops rank 0 first (deterministic either way). */
	for (uint64_t li = nl; li-- > 0;)
		if (v->lanes[li]) {
			int r = (int)(li / s->nlanes);

			push(v, v->opbase[r] + g_array_index(v->lanes[li], uint32_t, 0));
		}
	while (v->work->len) {
		uint64_t g = g_array_index(v->work, uint64_t, v->work->len - 1);

		g_array_set_size(v->work, v->work->len - 1);
		if (v->state[g] == OP_DONE)
			continue;
		if (!step_op(v, g))
			return false;
	}
	if (v->ndone != v->nops)
		return report_deadlock(v);
	return check_outputs(v);
}

bool verify_sched_mode(const struct sched *s, bool inplace, struct verify_where *where,
		       GError **error)
{
	struct vctx v = {
		.s = s,
		.inplace = inplace,
		.n = s->nranks,
		.nw = (uint32_t)(s->nranks + 63) / 64,
		.where = where,
		.error = error,
	};

	v.vw = 1 + v.nw;
	if (where)
		where->rank = -1, where->op = -1;
	v.base_in = g_new0(uint64_t, MAX(s->nranks, 1));
	v.base_out = g_new0(uint64_t, MAX(s->nranks, 1));
	v.base_scr = g_new0(uint64_t, MAX(s->nranks, 1));
	v.lo_in = g_new0(uint32_t, MAX(s->nranks, 1));
	v.lo_out = g_new0(uint32_t, MAX(s->nranks, 1));
	bool ok = verify_run(&v);

	vctx_release(&v);
	return ok;
}

bool verify_sched(const struct sched *s, struct verify_where *where, GError **error)
{
	if (!verify_sched_mode(s, false, where, error))
		return false;
	return !s->inplace_ok || verify_sched_mode(s, true, where, error);
}

bool verify_sched_file(const struct sched *s, const GArray *lines, const char *name,
		       GError **error)
{
	struct verify_where where;
	GError *e = NULL;

	if (verify_sched(s, &where, &e))
		return true;
	if (where.rank >= 0 && where.op >= 0 && lines) {
		uint64_t idx = (uint64_t)where.op;

		for (int r = 0; r < where.rank; r++)
			idx += s->ranks[r].ops->len;
		g_set_error(error, e->domain, e->code, "%s:%u: %s", name,
			    g_array_index(lines, uint32_t, idx), e->message);
	} else {
		g_set_error(error, e->domain, e->code, "%s: %s", name, e->message);
	}
	g_error_free(e);
	return false;
}
