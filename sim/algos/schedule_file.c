/* The schedule file's writer and reader (format in docs/schedule-format.md).
 * The writer prints the header keys in a fixed order and every op on one
 * line of positional tokens; the reader splits each line on blanks, takes
 * the header keys in any order (each once), then the ranks in order, and
 * checks every token as it goes, so the first error names its line. */
#include "sim/algos/schedule_file.h"
#include "sim/util/files.h"
#include "sim/util/quote.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- writer ---- */

static void put_ref(GString *g, uint8_t buf, uint32_t off)
{
	if (buf == SBUF_NONE)
		g_string_append(g, " -");
	else
		g_string_append_printf(g, " %s:%u", sched_buf_name((enum sched_buf)buf), off);
}

char *sched_file_format(const struct sched *s)
{
	GString *g = g_string_new(NULL);

	g_string_append_printf(g, "g5-schedule %d\n", SCHED_FILE_VERSION);
	g_string_append_printf(g, "collective %s\n", coll_name(s->coll));
	g_string_append_printf(g, "algo %s\n", s->algo);
	g_string_append_printf(g, "ranks %d\n", s->nranks);
	g_string_append_printf(g, "root %d\n", s->root);
	g_string_append_printf(g, "peer %d\n", s->peer);
	g_string_append_printf(g, "nblocks %u\n", s->nblocks);
	g_string_append_printf(g, "nchunks %u\n", s->nchunks);
	g_string_append_printf(g, "units %u\n", s->nunits);
	g_string_append_printf(g, "scratch %u\n", s->scratch_units);
	g_string_append_printf(g, "inplace %d\n", s->inplace_ok ? 1 : 0);
	g_string_append_printf(g, "steps %u\n", s->nsteps);
	g_string_append_printf(g, "lanes %u\n", s->nlanes);
	if (s->weights) {
		g_string_append(g, "weights");
		for (uint32_t b = 0; b < s->nblocks; b++)
			g_string_append_printf(g, " %" G_GUINT64_FORMAT, s->weights[b]);
		g_string_append_c(g, '\n');
	}
	for (int r = 0; r < s->nranks; r++) {
		const struct sched_rank *rk = &s->ranks[r];

		g_string_append_printf(g, "rank %d in %u %u out %u %u ops %u\n", r, rk->in_lo,
				       rk->in_hi, rk->out_lo, rk->out_hi, rk->ops->len);
		for (uint32_t i = 0; i < rk->ops->len; i++) {
			const struct sched_op *o = sched_op_at(s, r, i);
			const uint32_t *d = sched_op_deps(s, r, i);

			g_string_append_printf(g, "op %u %s %s %u %u %d %d", i,
					       sched_op_kind_name((enum sched_op_kind)o->kind),
					       paxi_kind_name((enum paxi_kind)o->paxi), o->lane, o->step,
					       o->recv_peer, o->send_peer);
			put_ref(g, o->src_buf, o->src_off);
			put_ref(g, o->dst_buf, o->dst_off);
			g_string_append_printf(g, " %u ", o->count);
			if (!o->ndeps)
				g_string_append_c(g, '-');
			for (uint32_t k = 0; k < o->ndeps; k++)
				g_string_append_printf(g, "%s%u", k ? "," : "", d[k]);
			g_string_append_c(g, '\n');
		}
	}
	g_string_append(g, "end\n");
	return g_string_free(g, FALSE);
}

bool sched_file_write(const struct sched *s, const char *path, GError **error)
{
	char *text = sched_file_format(s);
	bool ok = true;

	if (!strcmp(path, "-")) {
		size_t len = strlen(text);

		if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
			g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
				    "cannot write the schedule to stdout: %s", g_strerror(errno));
			ok = false;
		}
	} else {
		if (!files_write(path, text, strlen(text), error))
			ok = false;
	}
	g_free(text);
	return ok;
}

/* ---- reader ---- */

struct reader {
	const char *name;
	const char *p, *end;
	uint32_t line;      /* of the current line */
	GPtrArray *tok;     /* tokens of the current line, owned strings */
	GError **error;
};

static bool rd_fail(struct reader *rd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static bool rd_fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(rd->error, SCHED_ERROR, SCHED_ERROR_PARSE, "%s:%u: %s", rd->name, rd->line, msg);
	g_free(msg);
	return false;
}

/* Reads the next line that is neither blank nor a comment into rd->tok;
 * false at the end of the text. */
static bool rd_next(struct reader *rd)
{
	while (rd->p < rd->end) {
		const char *nl = memchr(rd->p, '\n', (size_t)(rd->end - rd->p));
		const char *e = nl ? nl : rd->end;
		const char *q = rd->p;

		rd->line++;
		g_ptr_array_set_size(rd->tok, 0);
		while (q < e) {
			while (q < e && g_ascii_isspace(*q))
				q++;
			if (q >= e)
				break;
			const char *t = q;

			while (q < e && !g_ascii_isspace(*q))
				q++;
			g_ptr_array_add(rd->tok, g_strndup(t, (gsize)(q - t)));
		}
		rd->p = nl ? nl + 1 : rd->end;
		if (rd->tok->len && ((char *)rd->tok->pdata[0])[0] != '#')
			return true;
	}
	g_ptr_array_set_size(rd->tok, 0);
	return false;
}

static const char *tok(const struct reader *rd, guint i)
{
	return rd->tok->pdata[i];
}

/* An unsigned decimal number in [lo, hi]. */
static bool rd_u64(struct reader *rd, const char *t, const char *what, uint64_t lo, uint64_t hi,
		   uint64_t *out)
{
	guint64 v;
	GError *e = NULL;

	if (!g_ascii_string_to_unsigned(t, 10, lo, hi, &v, &e)) {
		bool range = g_error_matches(e, G_NUMBER_PARSER_ERROR,
					     G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS);

		g_error_free(e);
		if (range)
			return rd_fail(rd, "%s %s is out of range %" G_GUINT64_FORMAT "..%"
				       G_GUINT64_FORMAT, what, t, lo, hi);
		return rd_fail(rd, "%s must be a number, got '%s'", what, quote_text(t).s);
	}
	*out = v;
	return true;
}

static bool rd_i64(struct reader *rd, const char *t, const char *what, int64_t lo, int64_t hi,
		   int64_t *out)
{
	gint64 v;
	GError *e = NULL;

	if (!g_ascii_string_to_signed(t, 10, lo, hi, &v, &e)) {
		bool range = g_error_matches(e, G_NUMBER_PARSER_ERROR,
					     G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS);

		g_error_free(e);
		if (range)
			return rd_fail(rd, "%s %s is out of range %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
				       what, t, lo, hi);
		return rd_fail(rd, "%s must be a number, got '%s'", what, quote_text(t).s);
	}
	*out = v;
	return true;
}

static bool rd_ntok(struct reader *rd, guint n, const char *form)
{
	if (rd->tok->len != n)
		return rd_fail(rd, "'%s' takes the form '%s', got %u tokens", quote_text(tok(rd, 0)).s, form,
			       rd->tok->len);
	return true;
}

enum hdr_key {
	H_COLLECTIVE, H_ALGO, H_RANKS, H_ROOT, H_PEER, H_NBLOCKS, H_NCHUNKS, H_UNITS, H_SCRATCH,
	H_INPLACE, H_STEPS, H_LANES, H_WEIGHTS, H_NKEYS
};

static const char *const hdr_names[H_NKEYS] = {
	"collective", "algo", "ranks", "root", "peer", "nblocks", "nchunks", "units", "scratch",
	"inplace", "steps", "lanes", "weights",
};

struct header {
	bool seen[H_NKEYS];
	uint32_t line[H_NKEYS];
	enum coll coll;
	char *algo;
	int64_t v[H_NKEYS];
	GArray *weights; /* uint64_t */
};

static bool rd_header_line(struct reader *rd, struct header *h)
{
	const char *key = tok(rd, 0);
	int k;

	for (k = 0; k < H_NKEYS; k++)
		if (!strcmp(key, hdr_names[k]))
			break;
	if (k == H_NKEYS)
		return rd_fail(rd, "unknown keyword '%s'", quote_text(key).s);
	if (h->seen[k])
		return rd_fail(rd, "'%s' given twice (first on line %u)", key, h->line[k]);
	h->seen[k] = true;
	h->line[k] = rd->line;
	if (k == H_WEIGHTS) {
		if (rd->tok->len < 2)
			return rd_fail(rd, "'weights' needs one number per block");
		for (guint i = 1; i < rd->tok->len; i++) {
			uint64_t w;

			if (!rd_u64(rd, tok(rd, i), "weight", 0, UINT64_MAX / 2 / SCHED_MAX_RANKS, &w))
				return false;
			g_array_append_val(h->weights, w);
		}
		return true;
	}
	if (!rd_ntok(rd, 2, k == H_COLLECTIVE ? "collective NAME" : k == H_ALGO ? "algo NAME"
							   : "KEY NUMBER"))
		return false;
	const char *val = tok(rd, 1);

	switch (k) {
	case H_COLLECTIVE:
		if (!coll_parse(val, &h->coll))
			return rd_fail(rd, "unknown collective '%s'", quote_text(val).s);
		return true;
	case H_ALGO:
		h->algo = g_strdup(val);
		return true;
	case H_RANKS:
		return rd_i64(rd, val, "ranks", 1, SCHED_MAX_RANKS, &h->v[k]);
	case H_ROOT:
	case H_PEER:
		return rd_i64(rd, val, hdr_names[k], -1, SCHED_MAX_RANKS, &h->v[k]);
	case H_NCHUNKS:
		return rd_i64(rd, val, "nchunks", 1, SCHED_MAX_NCHUNKS, &h->v[k]);
	case H_NBLOCKS:
	case H_UNITS:
	case H_SCRATCH:
		return rd_i64(rd, val, hdr_names[k], k == H_SCRATCH ? 0 : 1, SCHED_MAX_UNITS, &h->v[k]);
	case H_INPLACE:
		return rd_i64(rd, val, "inplace", 0, 1, &h->v[k]);
	case H_STEPS:
		return rd_i64(rd, val, "steps", 0, SCHED_MAX_STEPS, &h->v[k]);
	case H_LANES:
		return rd_i64(rd, val, "lanes", 0, SCHED_MAX_LANES, &h->v[k]);
	default:
		g_assert_not_reached();
	}
}

/* "-" or BUF:OFF with BUF one of in, out, scratch. */
static bool rd_ref(struct reader *rd, const char *t, const char *what, uint8_t *buf, uint32_t *off)
{
	if (!strcmp(t, "-")) {
		*buf = SBUF_NONE;
		*off = 0;
		return true;
	}
	const char *colon = strchr(t, ':');
	enum sched_buf b;

	if (!colon)
		return rd_fail(rd, "%s must be '-' or BUFFER:OFFSET, got '%s'", what, quote_text(t).s);
	char *name = g_strndup(t, (gsize)(colon - t));
	bool known = sched_buf_parse(name, &b) && b != SBUF_NONE;

	g_free(name);
	if (!known)
		return rd_fail(rd, "%s buffer must be in, out or scratch, got '%s'", what, quote_text(t).s);
	uint64_t v;

	if (!rd_u64(rd, colon + 1, what, 0, UINT32_MAX, &v))
		return false;
	*buf = (uint8_t)b;
	*off = (uint32_t)v;
	return true;
}

static bool rd_op(struct reader *rd, struct sched *s, int r, uint32_t i)
{
	const int n = s->nranks;
	struct sched_op o = { 0 };
	enum sched_op_kind kind;
	enum paxi_kind paxi;
	uint64_t u;
	int64_t x;

	if (strcmp(tok(rd, 0), "op"))
		return rd_fail(rd, "expected op %u of rank %d, got '%s'", i, r, quote_text(tok(rd, 0)).s);
	if (!rd_ntok(rd, 12, "op INDEX KIND PAXI LANE STEP RECV SEND SRC DST COUNT DEPS"))
		return false;
	if (!rd_u64(rd, tok(rd, 1), "op index", 0, UINT32_MAX, &u))
		return false;
	if (u != i)
		return rd_fail(rd, "expected op %u of rank %d, got op %" G_GUINT64_FORMAT, i, r, u);
	if (!sched_op_kind_parse(tok(rd, 2), &kind))
		return rd_fail(rd, "unknown op kind '%s'", quote_text(tok(rd, 2)).s);
	if (!paxi_kind_parse(tok(rd, 3), &paxi))
		return rd_fail(rd, "paxi kind must be transfer or sendrecv, got '%s'", quote_text(tok(rd, 3)).s);
	o.kind = (uint8_t)kind;
	o.paxi = (uint8_t)paxi;
	if (!rd_u64(rd, tok(rd, 4), "lane", 0, SCHED_MAX_LANES - 1, &u))
		return false;
	o.lane = (uint8_t)u;
	if (!rd_u64(rd, tok(rd, 5), "step", 0, SCHED_MAX_STEPS - 1, &u))
		return false;
	o.step = (uint32_t)u;
	if (!rd_i64(rd, tok(rd, 6), "receive peer", -1, n - 1, &x))
		return false;
	o.recv_peer = (int16_t)x;
	if (!rd_i64(rd, tok(rd, 7), "send peer", -1, n - 1, &x))
		return false;
	o.send_peer = (int16_t)x;
	uint8_t src_buf, dst_buf; /* bit fields of o */

	if (!rd_ref(rd, tok(rd, 8), "source", &src_buf, &o.src_off) ||
	    !rd_ref(rd, tok(rd, 9), "destination", &dst_buf, &o.dst_off))
		return false;
	o.src_buf = src_buf;
	o.dst_buf = dst_buf;
	if (!rd_u64(rd, tok(rd, 10), "count", 1, UINT32_MAX, &u))
		return false;
	o.count = (uint32_t)u;

	GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	const char *d = tok(rd, 11);
	bool ok = true;

	if (strcmp(d, "-")) {
		char **parts = g_strsplit(d, ",", -1);

		for (char **p = parts; *p && ok; p++) {
			ok = rd_u64(rd, *p, "dep", 0, UINT32_MAX, &u);
			if (ok && u >= i)
				ok = rd_fail(rd, "dep %" G_GUINT64_FORMAT " is not an earlier op than %u",
					     u, i);
			if (ok) {
				uint32_t v32 = (uint32_t)u;

				g_array_append_val(deps, v32);
			}
		}
		g_strfreev(parts);
	}
	if (ok)
		sched_add(s, r, &o, (const uint32_t *)deps->data, deps->len);
	if (ok && sched_over(s))
		ok = rd_fail(rd, "more than the %" G_GUINT64_FORMAT " ops that half this machine's "
			     "memory holds", s->max_ops);
	g_array_unref(deps);
	return ok;
}

static struct sched *rd_all(struct reader *rd, GArray *lines)
{
	struct header h = { .weights = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
	struct sched *s = NULL;
	uint64_t v;

	if (!rd_next(rd) || strcmp(tok(rd, 0), "g5-schedule") || rd->tok->len != 2) {
		if (!rd->line)
			rd->line = 1;
		rd_fail(rd, "not a g5 schedule (the first line must be 'g5-schedule %d')",
			SCHED_FILE_VERSION);
		goto out;
	}
	if (!rd_u64(rd, tok(rd, 1), "version", 0, UINT32_MAX, &v))
		goto out;
	if (v != SCHED_FILE_VERSION) {
		rd_fail(rd, "unsupported schedule version %" G_GUINT64_FORMAT " (this g5 reads %d)", v,
			SCHED_FILE_VERSION);
		goto out;
	}
	for (;;) {
		if (!rd_next(rd)) {
			rd_fail(rd, "truncated: the file ends in its header");
			goto out;
		}
		if (!strcmp(tok(rd, 0), "rank"))
			break;
		if (!rd_header_line(rd, &h))
			goto out;
	}
	for (int k = 0; k < H_NKEYS; k++) {
		bool need = k != H_WEIGHTS || (h.seen[H_COLLECTIVE] && h.coll == COLL_ALLGATHERV);

		if (need && !h.seen[k]) {
			rd_fail(rd, "header misses '%s' before the first 'rank'", hdr_names[k]);
			goto out;
		}
	}
	const int n = (int)h.v[H_RANKS];

	if (h.v[H_UNITS] != h.v[H_NBLOCKS] * h.v[H_NCHUNKS]) {
		rd->line = h.line[H_UNITS];
		rd_fail(rd, "units %" G_GINT64_FORMAT " is not nblocks x nchunks = %" G_GINT64_FORMAT,
			h.v[H_UNITS], h.v[H_NBLOCKS] * h.v[H_NCHUNKS]);
		goto out;
	}
	if ((uint64_t)n * (uint64_t)h.v[H_STEPS] > SCHED_MAX_STEP_ROWS) {
		rd->line = h.line[H_STEPS];
		rd_fail(rd, "%d ranks x 'steps %" G_GINT64_FORMAT "' are more than %" G_GUINT64_FORMAT
			" rows of a run's step table", n, h.v[H_STEPS], SCHED_MAX_STEP_ROWS);
		goto out;
	}
	if (h.v[H_ROOT] >= n || h.v[H_PEER] >= n) {
		rd->line = h.line[h.v[H_ROOT] >= n ? H_ROOT : H_PEER];
		rd_fail(rd, "%s %" G_GINT64_FORMAT " is out of range -1..%d",
			h.v[H_ROOT] >= n ? "root" : "peer", MAX(h.v[H_ROOT], h.v[H_PEER]), n - 1);
		goto out;
	}
	if (h.seen[H_WEIGHTS]) {
		if (h.coll != COLL_ALLGATHERV || h.weights->len != h.v[H_NBLOCKS]) {
			rd->line = h.line[H_WEIGHTS];
			rd_fail(rd, h.coll != COLL_ALLGATHERV ? "'weights' is only for allgatherv"
							      : "'weights' needs one number per block");
			goto out;
		}
	}
	s = sched_new(h.coll, h.algo, n, (uint32_t)h.v[H_NBLOCKS], (uint32_t)h.v[H_NCHUNKS]);
	s->root = (int)h.v[H_ROOT];
	s->peer = (int)h.v[H_PEER];
	s->scratch_units = (uint32_t)h.v[H_SCRATCH];
	s->inplace_ok = h.v[H_INPLACE] == 1;
	if (h.seen[H_WEIGHTS])
		s->weights = g_memdup2(h.weights->data, h.weights->len * sizeof(uint64_t));

	for (int r = 0; r < n; r++) {
		struct sched_rank *rk = &s->ranks[r];
		uint64_t w[5];

		if (r > 0 && !rd_next(rd)) {
			rd_fail(rd, "truncated: rank %d of %d is missing", r, n);
			goto bad;
		}
		if (strcmp(tok(rd, 0), "rank")) {
			rd_fail(rd, "expected 'rank %d', got '%s'", r, quote_text(tok(rd, 0)).s);
			goto bad;
		}
		if (!rd_ntok(rd, 10, "rank R in LO HI out LO HI ops N"))
			goto bad;
		if (!rd_u64(rd, tok(rd, 1), "rank", 0, UINT32_MAX, &v))
			goto bad;
		if (v != (uint64_t)r) {
			rd_fail(rd, "expected rank %d, got rank %" G_GUINT64_FORMAT, r, v);
			goto bad;
		}
		if (strcmp(tok(rd, 2), "in") || strcmp(tok(rd, 5), "out") || strcmp(tok(rd, 8), "ops")) {
			rd_fail(rd, "'rank' takes the form 'rank R in LO HI out LO HI ops N'");
			goto bad;
		}
		static const guint at[5] = { 3, 4, 6, 7, 9 };
		static const char *const what[5] = { "in lo", "in hi", "out lo", "out hi", "ops" };

		for (int k = 0; k < 5; k++)
			if (!rd_u64(rd, tok(rd, at[k]), what[k], 0, k < 4 ? s->nunits : UINT32_MAX, &w[k]))
				goto bad;
		if (w[0] > w[1] || w[2] > w[3]) {
			rd_fail(rd, "a window's lo is above its hi");
			goto bad;
		}
		rk->in_lo = (uint32_t)w[0], rk->in_hi = (uint32_t)w[1];
		rk->out_lo = (uint32_t)w[2], rk->out_hi = (uint32_t)w[3];
		for (uint32_t i = 0; i < w[4]; i++) {
			if (!rd_next(rd)) {
				rd_fail(rd, "truncated: rank %d has %u of its %" G_GUINT64_FORMAT " ops", r, i,
					w[4]);
				goto bad;
			}
			if (!rd_op(rd, s, r, i))
				goto bad;
			if (lines)
				g_array_append_val(lines, rd->line);
		}
	}
	uint64_t cells = 0;

	for (int r = 0; r < n; r++)
		cells += (uint64_t)(s->ranks[r].in_hi - s->ranks[r].in_lo) +
			 (s->ranks[r].out_hi - s->ranks[r].out_lo) + s->scratch_units;
	if (cells * 8 * (1 + (uint64_t)(n + 63) / 64) > SCHED_MAX_VERIFY_BYTES) {
		rd->line = h.line[H_SCRATCH];
		rd_fail(rd, "the windows and 'scratch %u' of %d ranks are %" G_GUINT64_FORMAT
			" cells, more than the verifier's %" G_GUINT64_FORMAT " bytes hold",
			s->scratch_units, n, cells, SCHED_MAX_VERIFY_BYTES);
		goto bad;
	}
	if (!rd_next(rd)) {
		rd_fail(rd, "truncated: missing 'end'");
		goto bad;
	}
	if (strcmp(tok(rd, 0), "end") || rd->tok->len != 1) {
		rd_fail(rd, "expected 'end' after the last rank's ops, got '%s'", quote_text(tok(rd, 0)).s);
		goto bad;
	}
	if (rd_next(rd)) {
		rd_fail(rd, "text after 'end'");
		goto bad;
	}
	if (s->nsteps != h.v[H_STEPS] || s->nlanes != h.v[H_LANES]) {
		bool st = s->nsteps != h.v[H_STEPS];

		rd->line = h.line[st ? H_STEPS : H_LANES];
		rd_fail(rd, "'%s %" G_GINT64_FORMAT "' but the ops use %u", st ? "steps" : "lanes",
			h.v[st ? H_STEPS : H_LANES], st ? s->nsteps : s->nlanes);
		goto bad;
	}
	goto out;
bad:
	sched_free(s);
	s = NULL;
out:
	g_free(h.algo);
	g_array_unref(h.weights);
	return s;
}

struct sched *sched_file_parse(const char *text, size_t len, const char *name, GArray **op_lines,
			       GError **error)
{
	struct reader rd = {
		.name = name,
		.p = text,
		.end = text + len,
		.tok = g_ptr_array_new_with_free_func(g_free),
		.error = error,
	};
	const char *nul = memchr(text, 0, len);

	if (nul) { /* a token would end there: refused, as a text file has none */
		rd.line = 1;
		for (const char *q = text; q < nul; q++)
			rd.line += *q == '\n';
		rd_fail(&rd, "a NUL byte: not a text file");
		g_ptr_array_unref(rd.tok);
		return NULL;
	}
	GArray *lines = op_lines ? g_array_new(FALSE, FALSE, sizeof(uint32_t)) : NULL;
	struct sched *s = rd_all(&rd, lines);

	g_ptr_array_unref(rd.tok);
	if (op_lines) {
		if (s)
			*op_lines = lines;
		else
			g_array_unref(lines);
	}
	return s;
}

struct sched *sched_file_load(const char *path, GArray **op_lines, GError **error)
{
	char *text = NULL;
	gsize len = 0;
	const char *name = strcmp(path, "-") ? path : "<stdin>";

	if (!files_read(path, SCHED_FILE_MAX_BYTES, true, &text, &len, error))
		return NULL;
	struct sched *s = sched_file_parse(text, len, name, op_lines, error);

	g_free(text);
	return s;
}
