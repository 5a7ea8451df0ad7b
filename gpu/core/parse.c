/* The schedule file reader of the executor: docs/schedule-format.md,
 * version 1, in plain C. It accepts what sim/algos/schedule_file.c writes
 * and stops at the first damage with "FILE:LINE: message" (lowercase,
 * subject in quotes), checking what the format defines: the version line,
 * header keys (each once, all present), numbers and their limits, names,
 * peers, windows (the ones the collective prescribes), op order, deps that
 * point to earlier ops, the fields each op kind uses, ranges inside their
 * buffers, steps and lanes against the ops, and the closing `end`. */
#include "gpu/core/gx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *name;
	const char *p, *end;
	unsigned line;      /* of the last line read */
	char *buf;          /* the current line, owned */
	size_t cap;
	char **tok;         /* ntok tokens into buf, owned array */
	int ntok, tokcap;
	char *err;
	size_t errlen;
};

static bool fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!rd->err || !rd->errlen)
		return false;
	n = snprintf(rd->err, rd->errlen, "%s:%u: ", rd->name, rd->line);
	if (n < 0 || (size_t)n >= rd->errlen)
		return false;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

/* Reads the next line that is neither blank nor a comment and splits it;
 * false at the end of the text. */
static bool next_line(struct reader *rd)
{
	while (rd->p < rd->end) {
		const char *nl = (const char *)memchr(rd->p, '\n', (size_t)(rd->end - rd->p));
		size_t len = nl ? (size_t)(nl - rd->p) : (size_t)(rd->end - rd->p);

		if (len + 1 > rd->cap) {
			rd->cap = len + 1;
			rd->buf = (char *)realloc(rd->buf, rd->cap);
			if (!rd->buf)
				abort();
		}
		memcpy(rd->buf, rd->p, len);
		rd->buf[len] = '\0';
		rd->p += len + (nl ? 1 : 0);
		rd->line++;
		rd->ntok = 0;
		for (char *save = NULL, *t = strtok_r(rd->buf, " \t\r", &save); t;
		     t = strtok_r(NULL, " \t\r", &save)) {
			if (rd->ntok == rd->tokcap) {
				rd->tokcap = rd->tokcap ? 2 * rd->tokcap : 16;
				rd->tok = (char **)realloc(rd->tok, (size_t)rd->tokcap * sizeof(char *));
				if (!rd->tok)
					abort();
			}
			rd->tok[rd->ntok++] = t;
		}
		if (rd->ntok == 0 || rd->tok[0][0] == '#')
			continue;
		return true;
	}
	return false;
}

/* An unsigned decimal <= max. */
static bool parse_u64(struct reader *rd, const char *what, const char *s, uint64_t max,
		      uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return fail(rd, "'%s' must be a number, got '%s'", what, s);
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return fail(rd, "'%s' must be a number, got '%s'", what, s);
		if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			return fail(rd, "'%s' is out of range, got '%s'", what, s);
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (v > max)
		return fail(rd, "'%s' must be at most %llu, got '%s'", what,
			    (unsigned long long)max, s);
	*out = v;
	return true;
}

static bool parse_u32(struct reader *rd, const char *what, const char *s, uint32_t max,
		      uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(rd, what, s, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* -1 or an unsigned decimal <= max. */
static bool parse_peer(struct reader *rd, const char *what, const char *s, int max, int *out)
{
	uint64_t v;

	if (!strcmp(s, "-1")) {
		*out = -1;
		return true;
	}
	if (!parse_u64(rd, what, s, (uint64_t)max, &v))
		return false;
	*out = (int)v;
	return true;
}

static bool expect_ntok(struct reader *rd, int n, const char *what)
{
	if (rd->ntok != n)
		return fail(rd, "'%s' line must have %d tokens, got %d", what, n, rd->ntok);
	return true;
}

enum {
	K_COLLECTIVE, K_ALGO, K_RANKS, K_ROOT, K_PEER, K_NBLOCKS, K_NCHUNKS, K_UNITS,
	K_SCRATCH, K_INPLACE, K_STEPS, K_LANES, K_WEIGHTS, K_N
};

static const char *const keys[K_N] = {
	"collective", "algo", "ranks", "root", "peer", "nblocks", "nchunks", "units",
	"scratch", "inplace", "steps", "lanes", "weights",
};

struct header {
	bool seen[K_N];
	unsigned line[K_N];
	enum gx_coll coll;
	char algo[256];
	uint32_t ranks, nblocks, nchunks, units, scratch, steps, lanes;
	int root, peer;
	bool inplace;
	uint64_t *weights; /* nweights, owned until handed to the schedule */
	uint32_t nweights;
};

/* A `BUF:OFFSET` or `-`. */
static bool parse_range(struct reader *rd, const char *what, const char *s, uint8_t *buf,
			uint32_t *off)
{
	char name[16];
	const char *colon;
	enum gx_buf b;

	if (!strcmp(s, "-")) {
		*buf = GX_BUF_NONE;
		*off = 0;
		return true;
	}
	colon = strchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(name))
		return fail(rd, "'%s' must be BUF:OFFSET or '-', got '%s'", what, s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = '\0';
	if (!gx_buf_parse(name, &b) || b == GX_BUF_NONE)
		return fail(rd, "unknown buffer '%s' in '%s'", name, what);
	*buf = (uint8_t)b;
	return parse_u32(rd, what, colon + 1, UINT32_MAX, off);
}

static bool parse_header(struct reader *rd, struct header *h)
{
	for (;;) {
		if (!next_line(rd))
			return fail(rd, "truncated: the file ends in its header");
		const char *k = rd->tok[0];
		int key = -1;

		if (!strcmp(k, "rank"))
			break;
		for (int i = 0; i < K_N; i++)
			if (!strcmp(keys[i], k))
				key = i;
		if (key < 0)
			return fail(rd, "unknown keyword '%s'", k);
		if (h->seen[key])
			return fail(rd, "'%s' given twice (first on line %u)", k, h->line[key]);
		h->seen[key] = true;
		h->line[key] = rd->line;
		if (key != K_WEIGHTS && !expect_ntok(rd, 2, k))
			return false;
		const char *v = rd->tok[1];
		uint32_t u;

		switch (key) {
		case K_COLLECTIVE:
			if (!gx_coll_parse(v, &h->coll))
				return fail(rd, "unknown collective '%s'", v);
			break;
		case K_ALGO:
			snprintf(h->algo, sizeof(h->algo), "%s", v);
			break;
		case K_RANKS:
			if (!parse_u32(rd, k, v, GX_MAX_RANKS, &h->ranks))
				return false;
			if (h->ranks < 1)
				return fail(rd, "'ranks' must be at least 1, got '%s'", v);
			break;
		case K_ROOT:
			if (!parse_peer(rd, k, v, GX_MAX_RANKS - 1, &h->root))
				return false;
			break;
		case K_PEER:
			if (!parse_peer(rd, k, v, GX_MAX_RANKS - 1, &h->peer))
				return false;
			break;
		case K_NBLOCKS:
			if (!parse_u32(rd, k, v, UINT32_MAX / 4, &h->nblocks))
				return false;
			if (h->nblocks < 1)
				return fail(rd, "'nblocks' must be at least 1, got '%s'", v);
			break;
		case K_NCHUNKS:
			if (!parse_u32(rd, k, v, GX_MAX_NCHUNKS, &h->nchunks))
				return false;
			if (h->nchunks < 1)
				return fail(rd, "'nchunks' must be at least 1, got '%s'", v);
			break;
		case K_UNITS:
			if (!parse_u32(rd, k, v, UINT32_MAX / 4, &h->units))
				return false;
			break;
		case K_SCRATCH:
			if (!parse_u32(rd, k, v, UINT32_MAX / 4, &h->scratch))
				return false;
			break;
		case K_INPLACE:
			if (!parse_u32(rd, k, v, 1, &u))
				return false;
			h->inplace = u == 1;
			break;
		case K_STEPS:
			if (!parse_u32(rd, k, v, UINT32_MAX, &h->steps))
				return false;
			break;
		case K_LANES:
			if (!parse_u32(rd, k, v, GX_MAX_LANES, &h->lanes))
				return false;
			break;
		case K_WEIGHTS:
			free(h->weights);
			h->nweights = (uint32_t)(rd->ntok - 1);
			h->weights = (uint64_t *)calloc((size_t)rd->ntok, sizeof(uint64_t));
			if (!h->weights)
				abort();
			for (int i = 1; i < rd->ntok; i++)
				if (!parse_u64(rd, "weights", rd->tok[i], UINT64_MAX / GX_MAX_RANKS,
					       &h->weights[i - 1]))
					return false;
			break;
		}
	}
	for (int i = 0; i < K_N; i++)
		if (!h->seen[i] && i != K_WEIGHTS)
			return fail(rd, "the header has no '%s'", keys[i]);
	return true;
}

static bool check_header(struct reader *rd, struct header *h)
{
	unsigned l = rd->line;

	if ((uint64_t)h->nblocks * h->nchunks != h->units) {
		rd->line = h->line[K_UNITS];
		return fail(rd, "'units' must be nblocks x nchunks = %llu, got %u",
			    (unsigned long long)h->nblocks * h->nchunks, h->units);
	}
	if (h->root < 0 || (uint32_t)h->root >= h->ranks) {
		rd->line = h->line[K_ROOT];
		return fail(rd, "'root' must be in 0..%u, got %d", h->ranks - 1, h->root);
	}
	if (h->peer >= 0 && (uint32_t)h->peer >= h->ranks) {
		rd->line = h->line[K_PEER];
		return fail(rd, "'peer' must be in -1..%u, got %d", h->ranks - 1, h->peer);
	}
	if (h->coll == GX_COLL_ALLGATHERV) {
		if (!h->seen[K_WEIGHTS]) {
			rd->line = h->line[K_COLLECTIVE];
			return fail(rd, "'allgatherv' needs 'weights'");
		}
		if (h->nweights != h->nblocks) {
			rd->line = h->line[K_WEIGHTS];
			return fail(rd, "'weights' must have nblocks = %u numbers, got %u",
				    h->nblocks, h->nweights);
		}
		uint64_t sum = 0;

		for (uint32_t b = 0; b < h->nblocks; b++)
			sum += h->weights[b];
		if (!sum) {
			rd->line = h->line[K_WEIGHTS];
			return fail(rd, "'weights' must not all be zero");
		}
	} else if (h->seen[K_WEIGHTS]) {
		rd->line = h->line[K_WEIGHTS];
		return fail(rd, "'weights' is for allgatherv only");
	}
	rd->line = l;
	return true;
}

static bool parse_deps(struct reader *rd, const char *s, uint32_t self, uint32_t **deps,
		       uint32_t *cap, uint32_t *n)
{
	*n = 0;
	if (!strcmp(s, "-"))
		return true;
	const char *p = s;

	for (;;) {
		char tok[16];
		size_t len = strcspn(p, ",");
		uint32_t d;

		if (!len || len >= sizeof(tok))
			return fail(rd, "'deps' must be indices separated by commas, got '%s'", s);
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (!parse_u32(rd, "deps", tok, UINT32_MAX, &d))
			return false;
		if (d >= self)
			return fail(rd, "dep %u of op %u is not an earlier op", d, self);
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			*deps = (uint32_t *)realloc(*deps, *cap * sizeof(uint32_t));
			if (!*deps)
				abort();
		}
		(*deps)[(*n)++] = d;
		p += len;
		if (!*p)
			return true;
		p++;
	}
}

/* A range of `count` units at off in buffer b lies inside rank r's window. */
static bool check_range(struct reader *rd, const struct gx_sched *s, int r, const char *what,
			uint8_t b, uint32_t off, uint32_t count)
{
	const struct gx_rank *rk = &s->ranks[r];
	uint64_t end = (uint64_t)off + count;
	uint32_t lo, hi;

	if (b == GX_BUF_SCRATCH) {
		if (end > s->scratch_units)
			return fail(rd, "%s scratch:%u with %u units leaves the scratch (%u units)",
				    what, off, count, s->scratch_units);
		return true;
	}
	lo = b == GX_BUF_IN ? rk->in_lo : rk->out_lo;
	hi = b == GX_BUF_IN ? rk->in_hi : rk->out_hi;
	if (off < lo || end > hi)
		return fail(rd, "%s %s:%u with %u units leaves the %s window [%u, %u)", what,
			    gx_buf_name((enum gx_buf)b), off, count, gx_buf_name((enum gx_buf)b), lo,
			    hi);
	return true;
}

static bool parse_op(struct reader *rd, struct gx_sched *s, int r, uint32_t i, uint32_t **deps,
		     uint32_t *dcap)
{
	struct gx_op o;
	enum gx_kind kind;
	enum gx_proto proto;
	uint32_t idx, lane, ndeps;
	unsigned f;

	memset(&o, 0, sizeof(o));
	if (strcmp(rd->tok[0], "op"))
		return fail(rd, "expected op %u of rank %d, got '%s'", i, r, rd->tok[0]);
	if (!expect_ntok(rd, 12, "op"))
		return false;
	if (!parse_u32(rd, "op", rd->tok[1], UINT32_MAX, &idx))
		return false;
	if (idx != i)
		return fail(rd, "ops out of order: expected op %u of rank %d, got %u", i, r, idx);
	if (!gx_kind_parse(rd->tok[2], &kind))
		return fail(rd, "unknown op kind '%s'", rd->tok[2]);
	if (!gx_proto_parse(rd->tok[3], &proto))
		return fail(rd, "unknown PAXI kind '%s'", rd->tok[3]);
	if (!parse_u32(rd, "lane", rd->tok[4], GX_MAX_LANES - 1, &lane))
		return false;
	if (!parse_u32(rd, "step", rd->tok[5], UINT32_MAX - 1, &o.step))
		return false;
	if (!parse_peer(rd, "recv", rd->tok[6], s->nranks - 1, &o.recv_peer))
		return false;
	if (!parse_peer(rd, "send", rd->tok[7], s->nranks - 1, &o.send_peer))
		return false;
	if (!parse_range(rd, "src", rd->tok[8], &o.src_buf, &o.src_off))
		return false;
	if (!parse_range(rd, "dst", rd->tok[9], &o.dst_buf, &o.dst_off))
		return false;
	if (!parse_u32(rd, "count", rd->tok[10], UINT32_MAX, &o.count))
		return false;
	if (o.count < 1)
		return fail(rd, "'count' must be at least 1, got '%s'", rd->tok[10]);
	if (!parse_deps(rd, rd->tok[11], i, deps, dcap, &ndeps))
		return false;
	o.kind = (uint8_t)kind;
	o.proto = (uint8_t)proto;
	o.lane = (uint8_t)lane;
	f = gx_kind_flags(kind);
	if (!(f & GX_F_RECV) != (o.recv_peer < 0))
		return fail(rd, "'%s' %s a receive peer, got '%s'", rd->tok[2],
			    (f & GX_F_RECV) ? "needs" : "takes no", rd->tok[6]);
	if (!(f & GX_F_SEND) != (o.send_peer < 0))
		return fail(rd, "'%s' %s a send peer, got '%s'", rd->tok[2],
			    (f & GX_F_SEND) ? "needs" : "takes no", rd->tok[7]);
	if (o.recv_peer == r || o.send_peer == r)
		return fail(rd, "rank %d sends to or receives from itself", r);
	if (!(f & GX_F_SRC) != (o.src_buf == GX_BUF_NONE))
		return fail(rd, "'%s' %s a source, got '%s'", rd->tok[2],
			    (f & GX_F_SRC) ? "needs" : "takes no", rd->tok[8]);
	if (!(f & GX_F_DST) != (o.dst_buf == GX_BUF_NONE))
		return fail(rd, "'%s' %s a destination, got '%s'", rd->tok[2],
			    (f & GX_F_DST) ? "needs" : "takes no", rd->tok[9]);
	if (o.dst_buf == GX_BUF_IN)
		return fail(rd, "no op writes 'in', got '%s'", rd->tok[9]);
	if ((f & GX_F_SRC) && !check_range(rd, s, r, "source", o.src_buf, o.src_off, o.count))
		return false;
	if ((f & GX_F_DST) && !check_range(rd, s, r, "destination", o.dst_buf, o.dst_off, o.count))
		return false;
	gx_sched_add(s, r, &o, *deps, ndeps);
	return true;
}

static bool parse_ranks(struct reader *rd, struct gx_sched *s)
{
	uint32_t *deps = NULL, dcap = 0;
	bool ok = false;

	for (int r = 0; r < s->nranks; r++) {
		struct gx_rank *rk = &s->ranks[r];
		uint32_t v[6], nops;
		static const char *const words[] = { "rank", NULL, "in", NULL, NULL, "out",
						     NULL, NULL, "ops", NULL };

		if (r > 0 && !next_line(rd)) {
			fail(rd, "truncated: rank %d is missing", r);
			goto out;
		}
		if (strcmp(rd->tok[0], "rank")) {
			fail(rd, "expected rank %d, got '%s'", r, rd->tok[0]);
			goto out;
		}
		if (!expect_ntok(rd, 10, "rank"))
			goto out;
		for (int t = 0; t < 10; t++)
			if (words[t] && strcmp(rd->tok[t], words[t])) {
				fail(rd, "'rank' line: expected '%s', got '%s'", words[t], rd->tok[t]);
				goto out;
			}
		static const int at[6] = { 1, 3, 4, 6, 7, 9 };

		for (int k = 0; k < 6; k++)
			if (!parse_u32(rd, "rank", rd->tok[at[k]], UINT32_MAX, &v[k]))
				goto out;
		if (v[0] != (uint32_t)r) {
			fail(rd, "ranks out of order: expected rank %d, got %u", r, v[0]);
			goto out;
		}
		if (v[1] > v[2] || v[2] > s->nunits || v[3] > v[4] || v[4] > s->nunits) {
			fail(rd, "rank %d: windows in [%u, %u) out [%u, %u) must lie in [0, %u]", r,
			     v[1], v[2], v[3], v[4], s->nunits);
			goto out;
		}
		if (v[1] != rk->in_lo || v[2] != rk->in_hi || v[3] != rk->out_lo ||
		    v[4] != rk->out_hi) {
			fail(rd,
			     "rank %d: windows in [%u, %u) out [%u, %u) differ from the %s windows in [%u, %u) out [%u, %u)",
			     r, v[1], v[2], v[3], v[4], gx_coll_name(s->coll), rk->in_lo, rk->in_hi,
			     rk->out_lo, rk->out_hi);
			goto out;
		}
		nops = v[5];
		for (uint32_t i = 0; i < nops; i++) {
			if (!next_line(rd)) {
				fail(rd, "truncated: rank %d has %u of its %u ops", r, i, nops);
				goto out;
			}
			if (!parse_op(rd, s, r, i, &deps, &dcap))
				goto out;
		}
	}
	ok = true;
out:
	free(deps);
	return ok;
}

struct gx_sched *gx_sched_parse(const char *text, size_t len, const char *name, char *err,
				size_t errlen)
{
	struct reader rd;
	struct header h;
	struct gx_sched *s = NULL;
	uint64_t version;
	uint32_t steps = 0, lanes = 0;

	memset(&rd, 0, sizeof(rd));
	memset(&h, 0, sizeof(h));
	rd.name = name;
	rd.p = text;
	rd.end = text + len;
	rd.err = err;
	rd.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	h.peer = -1;
	if (!next_line(&rd)) {
		fail(&rd, "empty file: expected 'g5-schedule 1'");
		goto bad;
	}
	if (strcmp(rd.tok[0], "g5-schedule") || rd.ntok != 2) {
		fail(&rd, "not a schedule file: expected 'g5-schedule 1', got '%s'", rd.tok[0]);
		goto bad;
	}
	if (!parse_u64(&rd, "version", rd.tok[1], UINT64_MAX, &version))
		goto bad;
	if (version != 1) {
		fail(&rd, "unsupported schedule file version '%s' (this reader knows 1)", rd.tok[1]);
		goto bad;
	}
	if (!parse_header(&rd, &h) || !check_header(&rd, &h))
		goto bad;
	s = gx_sched_new(h.coll, h.algo, (int)h.ranks, h.nblocks, h.nchunks);
	s->root = h.root;
	s->peer = h.peer;
	s->scratch_units = h.scratch;
	s->inplace_ok = h.inplace;
	s->weights = h.weights;
	h.weights = NULL;
	gx_sched_set_windows(s);
	if (!parse_ranks(&rd, s))
		goto bad;
	for (int r = 0; r < s->nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].nops; i++) {
			const struct gx_op *o = &s->ranks[r].ops[i];

			if (o->step + 1 > steps)
				steps = o->step + 1;
			if ((uint32_t)o->lane + 1 > lanes)
				lanes = (uint32_t)o->lane + 1;
		}
	if (!next_line(&rd)) {
		fail(&rd, "truncated: no 'end' line");
		goto bad;
	}
	if (strcmp(rd.tok[0], "end") || rd.ntok != 1) {
		fail(&rd, "expected 'end', got '%s'", rd.tok[0]);
		goto bad;
	}
	if (next_line(&rd)) {
		fail(&rd, "text after 'end': '%s'", rd.tok[0]);
		goto bad;
	}
	if (steps != h.steps) {
		rd.line = h.line[K_STEPS];
		fail(&rd, "'steps' is %u but the ops have %u", h.steps, steps);
		goto bad;
	}
	if (lanes != h.lanes) {
		rd.line = h.line[K_LANES];
		fail(&rd, "'lanes' is %u but the ops have %u", h.lanes, lanes);
		goto bad;
	}
	s->nsteps = steps;
	s->nlanes = lanes;
	free(rd.buf);
	free(rd.tok);
	return s;
bad:
	free(rd.buf);
	free(rd.tok);
	free(h.weights);
	gx_sched_free(s);
	return NULL;
}

struct gx_sched *gx_sched_read(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	struct gx_sched *s;

	if (!f) {
		if (err && errlen)
			snprintf(err, errlen, "%s:0: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 65536 > cap) {
			cap = cap ? 2 * cap : 131072;
			text = (char *)realloc(text, cap);
			if (!text)
				abort();
		}
		size_t n = fread(text + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		if (err && errlen)
			snprintf(err, errlen, "%s:0: read error", path);
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	s = gx_sched_parse(text, len, path, err, errlen);
	free(text);
	return s;
}
