/* Measured data (measured.h): nccl-tests output, the executor's log and
 * CSV, and plain CSV, read into struct measured_point.
 *
 * The text is walked line by line (a line may end in "\r\n"). Its format is
 * the one whose mark comes first: a CSV header on the first non-blank line,
 * or, on any line, one that only that tool prints ('# nccl-tests version',
 * '# Collective test starting:', '# g5x IMPL:'). The formats are one table
 * (formats[]) of name, mark and parser, like the algorithm registry.
 *
 * Both logs share one row reader: nccl-tests' 13 columns, size count type
 * redop root, then time algbw busbw #wrong out of place and again in place.
 * A time of N/A means that placement was not run (no point); a #wrong of
 * N/A (nccl-tests -c 0) or 0? (the executor, unchecked) means unchecked;
 * any other non-zero #wrong refuses the file. A log row is any line whose
 * first field is a number, so a row cut short is an error, never a comment.
 *
 * Bounds: a log line is split into at most MAX_FIELDS fields and a CSV row's
 * commas are counted before it is split, so no input costs more than linear
 * time and memory; nothing recurses. */
#include "sim/measured.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/util/quote.h"

G_DEFINE_QUARK(g5-measured-error-quark, measured_error)

#define MAX_FIELDS 48      /* fields of a log line that are looked at */
#define MAX_FIELD_CHARS 256 /* of a CSV field */
#define MAX_NAME_CHARS 64  /* of a name (algo, schedule, proto, engine) */
#define ROW_FIELDS 13      /* of a log's table row */

struct reader {
	const char *path;        /* interned */
	const char *format;      /* interned: the detected format's name */
	const char *text;        /* borrowed: len bytes */
	size_t len, begin, pos;  /* begin: after a UTF-8 byte order mark */
	uint32_t lineno;         /* of the line last read, 1-based */
	GString *line;           /* owned: that line without its end */
	char *field[MAX_FIELDS]; /* split_blanks(): fields of `line`, pointing into it */
	int nfields;
	bool more;               /* the line has more than MAX_FIELDS fields */
	char **csv;              /* owned: split_csv()'s fields of `line` */
	GArray *out;             /* borrowed: the caller's points */
	guint start;             /* out->len on entry */
	GPtrArray *scratch;      /* owned: strings made for messages */
};

static bool fail(struct reader *r, GError **error, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* Sets "FILE:LINE: message" (the line last read) and returns false. */
static bool fail(struct reader *r, GError **error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE, "%s:%u: %s", r->path, r->lineno, msg);
	return false;
}

static bool refuse_wrong(struct reader *r, GError **error, double wrong, bool inplace,
			 uint64_t bytes)
{
	g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_WRONG,
		    "%s:%u: %.0f wrong elements (%s, %" G_GUINT64_FORMAT
		    " bytes): refusing a failed measurement",
		    r->path, r->lineno, wrong, inplace ? "in-place" : "out-of-place", bytes);
	return false;
}

/* Keeps `s` (owned) until the reader is released; returns it. */
static const char *keep(struct reader *r, char *s)
{
	g_ptr_array_add(r->scratch, s);
	return s;
}

/* 'value' for a message (quote_text: cut and escaped), kept with the
 * reader. */
static const char *quote(struct reader *r, const char *s)
{
	return keep(r, g_strdup_printf("'%s'", quote_text(s).s));
}

/* ---- Lines and fields. ---- */

/* The next line, without its end, as (s, n) in the text; false at the end. */
static bool next_raw(struct reader *r, const char **s, size_t *n)
{
	if (r->pos >= r->len)
		return false;
	const char *p = r->text + r->pos;
	const char *nl = memchr(p, '\n', r->len - r->pos);
	size_t k = nl ? (size_t)(nl - p) : r->len - r->pos;

	r->pos += k + (nl != NULL);
	r->lineno++;
	if (k > 0 && p[k - 1] == '\r')
		k--;
	*s = p;
	*n = k;
	return true;
}

/* The next line into r->line; false at the end. */
static bool next_line(struct reader *r)
{
	const char *s;
	size_t n;

	if (!next_raw(r, &s, &n))
		return false;
	g_string_truncate(r->line, 0);
	g_string_append_len(r->line, s, (gssize)n);
	return true;
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* Splits r->line in place at blanks into r->field (at most MAX_FIELDS). */
static void split_blanks(struct reader *r)
{
	char *s = r->line->str;

	r->nfields = 0;
	r->more = false;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return;
		if (r->nfields == MAX_FIELDS) {
			r->more = true;
			return;
		}
		r->field[r->nfields++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* Splits r->line at commas into exactly n fields (blanks around each
 * stripped; valid until the next call), named by cols[] in messages. The
 * commas are counted first, so a hostile row costs no more than its length. */
static bool split_csv(struct reader *r, int n, const char *const *cols, GError **error)
{
	int k = 1;

	for (const char *c = r->line->str; (c = strchr(c, ',')) && k <= n; c++)
		k++;
	if (k != n)
		return fail(r, error, "a row has %d fields (the header's columns), this one %s%d", n,
			    k > n ? "more than " : "", k > n ? n : k);
	g_strfreev(r->csv);
	r->csv = g_strsplit(r->line->str, ",", n);
	for (int i = 0; i < n; i++)
		if (strlen(g_strstrip(r->csv[i])) > MAX_FIELD_CHARS)
			return fail(r, error, "'%s' is longer than %d characters", cols[i],
				    MAX_FIELD_CHARS);
	return true;
}

/* ---- Values. ---- */

static bool parse_num(const char *s, double *v)
{
	char *end;

	if (!*s || g_ascii_isspace(*s))
		return false;
	*v = g_ascii_strtod(s, &end);
	return *end == '\0' && isfinite(*v);
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > MAX_NAME_CHARS)
		return false;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && !strchr("_.+-", *s))
			return false;
	return true;
}

static const char *coll_known(struct reader *r)
{
	GString *s = g_string_new(NULL);

	for (unsigned c = COLL_ALLREDUCE; c <= COLL_ALLGATHERV; c <<= 1)
		g_string_append_printf(s, "%s%s", s->len ? ", " : "", coll_name((enum coll)c));
	return keep(r, g_string_free(s, FALSE));
}

/* Column checks: each reads value v of column `col` or fails naming both. */
static bool col_uint(struct reader *r, const char *col, const char *v, uint64_t min, uint64_t max,
		     uint64_t *out, GError **error)
{
	if (g_ascii_string_to_unsigned(v, 10, min, max, out, NULL))
		return true;
	if (max == G_MAXUINT64)
		return fail(r, error, "'%s' must be a whole number, got %s", col, quote(r, v));
	return fail(r, error, "'%s' must be a whole number from %" G_GUINT64_FORMAT " to %"
		    G_GUINT64_FORMAT ", got %s", col, min, max, quote(r, v));
}

static bool col_ranks(struct reader *r, const char *col, const char *v, int *out, GError **error)
{
	uint64_t n;

	if (!col_uint(r, col, v, 1, MEASURED_MAX_RANKS, &n, error))
		return false;
	*out = (int)n;
	return true;
}

static bool col_nchunks(struct reader *r, const char *col, const char *v, uint32_t *out,
			GError **error)
{
	uint64_t n;

	if (!col_uint(r, col, v, 1, SCHED_MAX_NCHUNKS, &n, error))
		return false;
	*out = (uint32_t)n;
	return true;
}

static bool col_num(struct reader *r, const char *col, const char *v, double *out, GError **error)
{
	if (parse_num(v, out))
		return true;
	return fail(r, error, "'%s' must be a number, got %s", col, quote(r, v));
}

static bool col_time(struct reader *r, const char *col, const char *v, double *out,
		     GError **error)
{
	if (parse_num(v, out) && *out > 0)
		return true;
	return fail(r, error, "'%s' must be a positive number of microseconds, got %s", col,
		    quote(r, v));
}

static bool col_coll(struct reader *r, const char *col, const char *v, enum coll *out,
		     GError **error)
{
	if (coll_parse(v, out))
		return true;
	return fail(r, error, "'%s': unknown collective %s (known: %s)", col, quote(r, v),
		    coll_known(r));
}

static bool col_dtype(struct reader *r, const char *v, enum dtype *out, GError **error)
{
	if (dtype_parse(v, out))
		return true;
	return fail(r, error, "dtype %s is not supported (known: " DTYPE_KNOWN ")",
		    quote(r, v));
}

/* An interned name: letters, digits and _.+- only, so that a name from a
 * file can reach a plot, a shell or a terminal unharmed. */
static bool col_name(struct reader *r, const char *col, const char *v, const char **out,
		     GError **error)
{
	if (name_ok(v)) {
		*out = g_intern_string(v);
		return true;
	}
	return fail(r, error, "'%s' must be a name of letters, digits and _.+- (at most %d), got %s",
		    col, MAX_NAME_CHARS, quote(r, v));
}

/* One of `known` (a NULL-terminated list), interned. */
static bool col_choice(struct reader *r, const char *col, const char *v,
		       const char *const *known, const char **out, GError **error)
{
	for (int i = 0; known[i]; i++)
		if (!strcmp(v, known[i])) {
			*out = g_intern_static_string(known[i]);
			return true;
		}
	return fail(r, error, "'%s': unknown value %s (known: %s)", col, quote(r, v),
		    keep(r, g_strjoinv(", ", (char **)known)));
}

static const char *const impls[] = { "g5", "nccl", NULL };
static const char *const modes[] = { "single", "mpi", NULL };
static const char *const timers[] = { "wall", "events", NULL };

/* ---- Points. ---- */

/* The defaults of a point of executor impl nccl or g5 (algo to be set). */
static void point_init(struct measured_point *p, bool nccl)
{
	*p = (struct measured_point){
		.impl = g_intern_static_string(nccl ? "nccl" : "g5"),
		.coll = COLL_ALLREDUCE,
		.algo = nccl ? g_intern_static_string("nccl") : NULL,
		.ranks = 1,
		.dtype = DTYPE_FP32,
		.mode = g_intern_static_string("single"),
		.nchunks = 1,
		.schedule = g_intern_static_string("-"),
		.timer = g_intern_static_string("wall"),
		.proto = g_intern_static_string(nccl ? "auto" : "simple"),
		.engine = g_intern_static_string("sm"),
		.root = -1,
		.launches = 1,
	};
}

/* The calls a timer averages: "iters N" (g5x) or "iters: N ... agg iters:
 * M" (nccl-tests' "# nThread" line: N x M calls, each M collectives); the
 * warmup's count is not timed. 1 when the line names none. */
static bool timed_launches(struct reader *r, uint32_t *out, GError **error)
{
	uint64_t n = 1, agg = 1;

	for (int i = 1; i + 1 < r->nfields; i++) {
		const char *k = r->field[i], *prev = r->field[i - 1];
		uint64_t *at = NULL;

		if (!strcmp(k, "iters") || !strcmp(k, "iters:"))
			at = !strcmp(prev, "agg") ? &agg : strcmp(prev, "warmup") ? &n : NULL;
		if (at && !g_ascii_string_to_unsigned(r->field[i + 1], 10, 1, 1000000000, at, NULL))
			return fail(r, error, "'%s' must be a whole number from 1, got %s", k,
				    quote(r, r->field[i + 1]));
	}
	*out = (uint32_t)MIN(n * agg, (uint64_t)G_MAXUINT32);
	return true;
}

static bool add_point(struct reader *r, struct measured_point *p, GError **error)
{
	if (r->out->len - r->start >= MEASURED_MAX_POINTS)
		return fail(r, error, "more than %u measurements in one file", MEASURED_MAX_POINTS);
	p->file = r->path;
	p->line = r->lineno;
	p->format = r->format;
	g_array_append_val(r->out, *p);
	return true;
}

/* ---- The logs: nccl-tests' table rows. ---- */

static bool is_row(const struct reader *r)
{
	const char *s = r->nfields ? r->field[0] : "";

	return g_ascii_isdigit(*s) && strspn(s, "0123456789") == strlen(s);
}

/* One table row (r->field) -> its out-of-place and in-place points, on top
 * of `base` (collective, ranks, ... of its table). */
static bool read_row(struct reader *r, const struct measured_point *base, GError **error)
{
	char **f = r->field;
	struct measured_point p = *base;
	uint64_t count;
	int64_t root;

	if (r->nfields != ROW_FIELDS || r->more)
		return fail(r, error, "a table row has %d fields (size count type redop root, then "
			    "time algbw busbw #wrong out of place and in place), this one %s%d",
			    ROW_FIELDS, r->more ? "more than " : "", r->nfields);
	if (!col_uint(r, "size", f[0], 0, G_MAXUINT64, &p.bytes, error) ||
	    !col_uint(r, "count", f[1], 0, G_MAXUINT64, &count, error))
		return false;
	if (!col_dtype(r, f[2], &p.dtype, error))
		return false;
	if (p.bytes % dtype_elem_bytes(p.dtype))
		return fail(r, error, "'size' %" G_GUINT64_FORMAT " is not a whole number of %s elements",
			    p.bytes, f[2]);
	if (!g_ascii_string_to_signed(f[4], 10, -1, p.ranks - 1, &root, NULL))
		return fail(r, error, "'root' must be -1 or a rank below %d, got %s", p.ranks,
			    quote(r, f[4]));
	p.root = (int)root;
	for (int in = 0; in < 2; in++) {
		char **g = f + 5 + 4 * in;
		const char *place = in ? "in-place" : "out-of-place";
		double bw, wrong = 0;

		if (!strcmp(g[0], "N/A"))
			continue; /* this placement was not run */
		if (!parse_num(g[0], &p.time_us) || p.time_us <= 0)
			return fail(r, error, "'time' (%s) must be a positive number of microseconds, "
				    "got %s", place, quote(r, g[0]));
		for (int k = 1; k <= 2; k++)
			if (strcmp(g[k], "N/A") && !parse_num(g[k], &bw))
				return fail(r, error, "'%s' (%s) must be a number, got %s",
					    k == 1 ? "algbw" : "busbw", place, quote(r, g[k]));
		if (strcmp(g[3], "N/A") && strcmp(g[3], "0?") && (!parse_num(g[3], &wrong) || wrong < 0))
			return fail(r, error, "'#wrong' (%s) must be a count of elements, got %s", place,
				    quote(r, g[3]));
		if (wrong > 0)
			return refuse_wrong(r, error, wrong, in, p.bytes);
		p.inplace = in;
		if (!add_point(r, &p, error))
			return false;
	}
	return true;
}

/* NCCL_DEBUG=INFO's "... NCCL INFO NCCL_PROTO set by environment to LL128":
 * the protocol NCCL was held to, interned; "auto" for a list ("LL,Simple",
 * "^LL") that leaves NCCL the choice; NULL on any other line. */
static const char *nccl_proto_line(const char *line)
{
	static const char mark[] = "NCCL_PROTO set by environment to ";
	const char *m = strstr(line, mark);

	if (!m)
		return NULL;
	m += strlen(mark);
	g_autofree char *v = g_strndup(m, strcspn(m, " \t"));

	return g_intern_string(name_ok(v) ? v : "auto");
}

/* ---- nccl-tests output. ---- */

/* nccl-tests' binaries, by their name less "_perf" (or "_perf_mpi"). */
static const struct {
	const char *name;
	enum coll coll;
} nccl_tests_colls[] = {
	{ "all_reduce", COLL_ALLREDUCE }, { "all_gather", COLL_ALLGATHER },
	{ "reduce_scatter", COLL_REDUCESCATTER }, { "alltoall", COLL_ALLTOALL },
	{ "broadcast", COLL_BROADCAST },   { "reduce", COLL_REDUCE },
	{ "sendrecv", COLL_P2P },
};

static bool nccl_tests_coll(struct reader *r, const char *prog, enum coll *out, GError **error)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	g_autofree char *name = g_strdup(base);
	char *suffix = g_strrstr(name, "_perf");
	GString *list = g_string_new(NULL);

	if (suffix && (!strcmp(suffix, "_perf") || !strcmp(suffix, "_perf_mpi")))
		*suffix = '\0';
	for (size_t i = 0; i < G_N_ELEMENTS(nccl_tests_colls); i++) {
		if (suffix && !*suffix && !strcmp(name, nccl_tests_colls[i].name)) {
			*out = nccl_tests_colls[i].coll;
			g_string_free(list, TRUE);
			return true;
		}
		g_string_append_printf(list, "%s%s_perf", i ? ", " : "", nccl_tests_colls[i].name);
	}
	return fail(r, error, "unsupported collective %s (supported: %s)", quote(r, base),
		    keep(r, g_string_free(list, FALSE)));
}

/* "#  Rank  0 Group  0 Pid   1331 on  HOST device  0 [0000:00:06] NAME" -> Pid. */
static bool rank_line_pid(struct reader *r, int64_t *pid, GError **error)
{
	char **f = r->field;

	if (r->nfields < 7 || strcmp(f[1], "Rank") || strcmp(f[3], "Group") || strcmp(f[5], "Pid") ||
	    !g_ascii_string_to_signed(f[6], 10, 0, G_MAXINT32, pid, NULL))
		return fail(r, error, "cannot read the '#  Rank' line (expected '#  Rank R Group G "
			    "Pid P on HOST device D ...')");
	return true;
}

static bool parse_nccl_tests(struct reader *r, GError **error)
{
	g_autoptr(GHashTable) pids = g_hash_table_new(g_direct_hash, g_direct_equal);
	struct measured_point base;
	bool started = false, rows = false;
	int nranks = 0;

	point_init(&base, true);
	while (next_line(r)) {
		const char *l = r->line->str, *proto = nccl_proto_line(l);
		bool start = g_str_has_prefix(l, "# Collective test starting:");
		bool rank = g_str_has_prefix(l, "#  Rank ");
		int64_t pid;

		if (proto) {
			base.proto = proto;
			continue;
		}
		if (g_str_has_prefix(l, "# Collective test concluded")) {
			started = false;
			continue;
		}
		split_blanks(r);
		if (r->nfields > 2 && !strcmp(r->field[1], "nThread")) {
			if (!timed_launches(r, &base.launches, error))
				return false;
			continue;
		}
		if (start) {
			if (r->nfields != 5)
				return fail(r, error, "cannot read the name of the test");
			if (!nccl_tests_coll(r, r->field[4], &base.coll, error))
				return false;
			started = true;
			rows = false;
			nranks = 0;
			g_hash_table_remove_all(pids);
			base.timer = g_intern_static_string("wall");
			base.proto = g_intern_static_string("auto");
		} else if (rank) {
			if (!started)
				return fail(r, error, "a '#  Rank' line before the '# Collective test "
					    "starting' line");
			if (rows)
				return fail(r, error, "a '#  Rank' line after the table's rows");
			if (!rank_line_pid(r, &pid, error))
				return false;
			if (++nranks > MEASURED_MAX_RANKS)
				return fail(r, error, "more than %d ranks", MEASURED_MAX_RANKS);
			g_hash_table_add(pids, GINT_TO_POINTER((int)pid));
		} else if (r->nfields > 6 && !strcmp(r->field[0], "#") && !strcmp(r->field[1], "size")) {
			/* the column header: nccl-tests -C reports CPU time */
			base.timer = g_intern_static_string(strcmp(r->field[6], "cputime") ? "wall"
											    : "cputime");
		} else if (is_row(r)) {
			if (!started)
				return fail(r, error, "a table row outside a test (no '# Collective test "
					    "starting' line above it)");
			if (!nranks)
				return fail(r, error, "a table row before the '#  Rank' lines that give "
					    "the ranks");
			rows = true;
			base.ranks = nranks;
			base.mode = g_intern_static_string(g_hash_table_size(pids) > 1 ? "mpi" : "single");
			if (!read_row(r, &base, error))
				return false;
		}
		/* anything else: comments, NCCL's and MPI's own messages */
	}
	return true;
}

/* ---- The executor's log (gpu/g5x.cu print_header, run_sizes). ---- */

/* "# g5x IMPL: collective C algo A ranks N nchunks K schedule FILE" */
static bool g5x_header(struct reader *r, struct measured_point *base, const char *proto,
		       GError **error)
{
	static const char *const keys[] = { "collective", "algo", "ranks", "nchunks", "schedule" };
	char **f = r->field;
	bool nccl;

	for (int i = 0; i < 5; i++)
		if (r->nfields != 13 || strcmp(f[3 + 2 * i], keys[i]))
			return fail(r, error, "cannot read the '# g5x' header (expected '# g5x IMPL: "
				    "collective C algo A ranks N nchunks K schedule FILE')");
	f[2][strlen(f[2]) - 1] = '\0'; /* "nccl:" */
	nccl = !strcmp(f[2], "nccl");
	if (!nccl && strcmp(f[2], "g5"))
		return fail(r, error, "unknown executor %s (known: g5, nccl)", quote(r, f[2]));
	point_init(base, nccl);
	if (!col_coll(r, "collective", f[4], &base->coll, error) ||
	    !col_ranks(r, "ranks", f[8], &base->ranks, error))
		return false;
	if (nccl) {
		base->proto = proto;
		/* an AllGatherV as a padded AllGather (g5x --nccl-agv pad) */
		if (!strcmp(f[6], "nccl-pad"))
			base->algo = g_intern_static_string("nccl-pad");
		return true;
	}
	const char *sched = strrchr(f[12], '/') ? strrchr(f[12], '/') + 1 : f[12];

	return col_name(r, "algo", f[6], &base->algo, error) &&
	       col_nchunks(r, "nchunks", f[10], &base->nchunks, error) &&
	       col_name(r, "schedule", sched, &base->schedule, error);
}

/* "# mode single process dtype float timer wall ..." or "# mode mpi (one ...". */
static bool g5x_mode(struct reader *r, struct measured_point *base, GError **error)
{
	char **f = r->field;
	int i = 3;

	if (!col_choice(r, "mode", f[2], modes, &base->mode, error))
		return false;
	while (i + 1 < r->nfields && strcmp(f[i], "timer"))
		i++;
	if (i + 1 >= r->nfields)
		return fail(r, error, "the '# mode' line names no timer");
	return col_choice(r, "timer", f[i + 1], timers, &base->timer, error) &&
	       timed_launches(r, &base->launches, error);
}

static bool parse_g5x_log(struct reader *r, GError **error)
{
	struct measured_point base;
	bool table = false, mode = false, rows = false;
	const char *proto = g_intern_static_string("auto");

	point_init(&base, false);
	while (next_line(r)) {
		const char *p = nccl_proto_line(r->line->str);
		char **f = r->field;

		if (p) {
			proto = p;
			continue;
		}
		if (g_str_has_prefix(r->line->str, "# $ ")) { /* the next command */
			proto = g_intern_static_string("auto");
			table = false;
			continue;
		}
		split_blanks(r);
		if (r->nfields >= 3 && !strcmp(f[0], "#") && !strcmp(f[1], "g5x") &&
		    g_str_has_suffix(f[2], ":")) {
			if (!g5x_header(r, &base, proto, error))
				return false;
			table = true;
			mode = rows = false;
		} else if (table && !rows && r->nfields >= 3 && !strcmp(f[0], "#") &&
			   !strcmp(f[1], "mode")) {
			if (!g5x_mode(r, &base, error))
				return false;
			mode = true;
		} else if (is_row(r)) {
			if (!table)
				return fail(r, error, "a table row outside a table (no '# g5x' header "
					    "above it)");
			if (!mode)
				return fail(r, error, "a table row before the '# mode' line of its header");
			rows = true;
			if (!read_row(r, &base, error))
				return false;
		} else if (rows) {
			table = false; /* any other line ends the table */
		}
	}
	return true;
}

/* ---- The executor's CSV (gpu/g5x.cu csv_row): 14 columns, or 20. ---- */

enum {
	X_IMPL, X_COLL, X_ALGO, X_RANKS, X_BYTES, X_COUNT, X_DTYPE, X_INPLACE, X_TIMER, X_ITERS,
	X_TIME, X_ALGBW, X_BUSBW, X_WRONG, X_OLD_NCOLS,
	X_MODE = X_OLD_NCOLS, X_NCHUNKS, X_SCHEDULE, X_PROTO, X_ENGINE, X_CHANNELS, X_NCOLS
};
static const char *const g5x_cols[X_NCOLS] = {
	"impl", "collective", "algo", "ranks", "bytes", "count", "dtype", "inplace", "timer",
	"iters", "time_us", "algbw_gbps", "busbw_gbps", "wrong", "mode", "nchunks", "schedule",
	"proto", "engine", "channels",
};

static bool header_is(const char *line, const char *const *cols, int n)
{
	for (int i = 0; i < n; i++) {
		size_t k = strlen(cols[i]);

		if (strncmp(line, cols[i], k))
			return false;
		line += k;
		if (i + 1 < n && *line++ != ',')
			return false;
	}
	return *line == '\0';
}

/* The next non-blank line into r->line; false at the end. */
static bool next_nonblank(struct reader *r)
{
	while (next_line(r))
		if (!is_blank(r->line->str, r->line->len))
			return true;
	return false;
}

/* A row's bytes: a whole number of dtype elements. */
static bool col_bytes(struct reader *r, const char *v, enum dtype d, uint64_t *out,
		      GError **error)
{
	if (!col_uint(r, "bytes", v, 0, G_MAXUINT64, out, error))
		return false;
	if (*out % dtype_elem_bytes(d))
		return fail(r, error, "'bytes' %" G_GUINT64_FORMAT " is not a whole number of %s "
			    "elements (%u bytes each)", *out, dtype_name(d), dtype_elem_bytes(d));
	return true;
}

static bool parse_g5x_csv(struct reader *r, GError **error)
{
	int ncols = X_NCOLS;

	next_nonblank(r);
	if (!header_is(r->line->str, g5x_cols, X_NCOLS)) {
		ncols = X_OLD_NCOLS;
		if (!header_is(r->line->str, g5x_cols, X_OLD_NCOLS))
			return fail(r, error, "not the header of a g5x CSV: expected the 14 columns "
				    "impl,...,wrong or the 20 columns impl,...,wrong,mode,nchunks,"
				    "schedule,proto,engine,channels");
	}
	while (next_nonblank(r)) {
		struct measured_point p;
		const char *impl, *algo;
		uint64_t u, inplace, iters = 1;
		int64_t wrong;
		double bw;

		if (!split_csv(r, ncols, g5x_cols, error))
			return false;
		char **v = r->csv;

		if (g_str_has_prefix(v[X_IMPL], "baseline-") || g_str_has_prefix(v[X_IMPL], "probe-"))
			continue; /* the ceilings and the probes: not collectives */
		if (!col_choice(r, "impl", v[X_IMPL], impls, &impl, error))
			return false;
		point_init(&p, !strcmp(impl, "nccl"));
		if (!col_coll(r, "collective", v[X_COLL], &p.coll, error) ||
		    !col_name(r, "algo", v[X_ALGO], &algo, error) ||
		    !col_ranks(r, "ranks", v[X_RANKS], &p.ranks, error) ||
		    !col_dtype(r, v[X_DTYPE], &p.dtype, error) ||
		    !col_bytes(r, v[X_BYTES], p.dtype, &p.bytes, error) ||
		    !col_uint(r, "count", v[X_COUNT], 0, G_MAXUINT64, &u, error) ||
		    !col_uint(r, "inplace", v[X_INPLACE], 0, 1, &inplace, error) ||
		    !col_choice(r, "timer", v[X_TIMER], timers, &p.timer, error) ||
		    !col_uint(r, "iters", v[X_ITERS], 0, G_MAXUINT32, &iters, error) ||
		    !col_time(r, "time_us", v[X_TIME], &p.time_us, error) ||
		    !col_num(r, "algbw_gbps", v[X_ALGBW], &bw, error) ||
		    !col_num(r, "busbw_gbps", v[X_BUSBW], &bw, error))
			return false;
		if (!g_ascii_string_to_signed(v[X_WRONG], 10, -1, G_MAXINT64, &wrong, NULL))
			return fail(r, error, "'wrong' must be a whole number (-1: unchecked), got %s",
				    quote(r, v[X_WRONG]));
		if (wrong > 0)
			return refuse_wrong(r, error, (double)wrong, inplace, p.bytes);
		if (ncols == X_NCOLS &&
		    (!col_choice(r, "mode", v[X_MODE], modes, &p.mode, error) ||
		     !col_nchunks(r, "nchunks", v[X_NCHUNKS], &p.nchunks, error) ||
		     !col_name(r, "schedule", v[X_SCHEDULE], &p.schedule, error) ||
		     !col_name(r, "proto", v[X_PROTO], &p.proto, error) ||
		     !col_name(r, "engine", v[X_ENGINE], &p.engine, error) ||
		     !col_uint(r, "channels", v[X_CHANNELS], 0, G_MAXUINT64, &u, error)))
			return false;
		p.algo = p.algo ? p.algo : algo; /* the old CSV wrote the schedule's for NCCL */
		/* NCCL's AllGatherV run as a padded AllGather (g5x --nccl-agv pad) is
		 * its own curve beside the grouped broadcasts */
		if (!strcmp(impl, "nccl") && !strcmp(algo, "nccl-pad"))
			p.algo = g_intern_static_string("nccl-pad");
		p.inplace = inplace;
		p.launches = iters ? (uint32_t)iters : 1;
		if (!add_point(r, &p, error))
			return false;
	}
	return true;
}

/* ---- Plain CSV: five columns, then any of five more in any order. ---- */

enum { P_COLL, P_RANKS, P_BYTES, P_DTYPE, P_TIME, P_IMPL, P_ALGO, P_MODE, P_INPLACE, P_NCHUNKS,
       P_ITERS, P_NCOLS };
static const char *const plain_cols[P_NCOLS] = {
	"collective", "ranks", "bytes", "dtype", "time_us", "impl", "algo", "mode", "inplace", "nchunks",
	"iters",
};
static const char plain_head[] = "collective,ranks,bytes,dtype,time_us";

static bool parse_plain_csv(struct reader *r, GError **error)
{
	int at[P_NCOLS], ncols = 0;
	const char *names[P_NCOLS];

	next_nonblank(r);
	g_auto(GStrv) head = g_strsplit(r->line->str, ",", P_NCOLS + 1);
	for (int k = 0; k < P_NCOLS; k++)
		at[k] = -1;
	for (; head[ncols]; ncols++) {
		const char *h = g_strstrip(head[ncols]);
		int k = 0;

		while (k < P_NCOLS && strcmp(h, plain_cols[k]))
			k++;
		if (k == P_NCOLS)
			return fail(r, error, "unknown column %s (known: %s,impl,algo,mode,inplace,"
				    "nchunks,iters)", quote(r, h), plain_head);
		if (at[k] >= 0) /* so names[] never holds more than P_NCOLS */
			return fail(r, error, "column %s appears twice", quote(r, h));
		at[k] = ncols;
		names[ncols] = plain_cols[k];
	}
	while (next_nonblank(r)) {
		struct measured_point p;
		const char *impl = "g5", *algo = "ring";
		uint64_t inplace = 0, iters = 1;

		if (!split_csv(r, ncols, names, error))
			return false;
		char **v = r->csv;

		if (at[P_IMPL] >= 0 && !col_choice(r, "impl", v[at[P_IMPL]], impls, &impl, error))
			return false;
		point_init(&p, !strcmp(impl, "nccl"));
		if (!col_coll(r, "collective", v[P_COLL], &p.coll, error) ||
		    !col_ranks(r, "ranks", v[P_RANKS], &p.ranks, error) ||
		    !col_dtype(r, v[P_DTYPE], &p.dtype, error) ||
		    !col_bytes(r, v[P_BYTES], p.dtype, &p.bytes, error) ||
		    !col_time(r, "time_us", v[P_TIME], &p.time_us, error))
			return false;
		if (at[P_ALGO] >= 0 && !col_name(r, "algo", v[at[P_ALGO]], &algo, error))
			return false;
		p.algo = p.algo ? p.algo : g_intern_string(algo); /* NCCL's is always "nccl" */
		if ((at[P_MODE] >= 0 && !col_choice(r, "mode", v[at[P_MODE]], modes, &p.mode, error)) ||
		    (at[P_INPLACE] >= 0 &&
		     !col_uint(r, "inplace", v[at[P_INPLACE]], 0, 1, &inplace, error)) ||
		    (at[P_NCHUNKS] >= 0 &&
		     !col_nchunks(r, "nchunks", v[at[P_NCHUNKS]], &p.nchunks, error)) ||
		    (at[P_ITERS] >= 0 &&
		     !col_uint(r, "iters", v[at[P_ITERS]], 1, G_MAXUINT32, &iters, error)))
			return false;
		p.inplace = inplace;
		p.launches = (uint32_t)iters;
		if (!add_point(r, &p, error))
			return false;
	}
	return true;
}

/* ---- Formats and detection. ---- */

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

static bool marks_nccl_tests(const char *s, size_t n)
{
	return has_prefix(s, n, "# nccl-tests version") ||
	       has_prefix(s, n, "# Collective test starting:");
}

/* "# g5x IMPL: ..." (not "# $ gpu/build/g5x ..."). */
static bool marks_g5x_log(const char *s, size_t n)
{
	size_t i = strlen("# g5x ");

	if (!has_prefix(s, n, "# g5x "))
		return false;
	while (i < n && s[i] != ' ' && s[i] != ':')
		i++;
	return i > strlen("# g5x ") && i < n && s[i] == ':';
}

static bool marks_g5x_csv(const char *s, size_t n)
{
	return has_prefix(s, n, "impl,collective,algo,");
}

static bool marks_plain_csv(const char *s, size_t n)
{
	size_t k = strlen(plain_head);

	return has_prefix(s, n, plain_head) && (n == k || s[k] == ',');
}

struct measured_format {
	const char *name;   /* measured_point.format */
	const char *what;   /* for messages */
	bool first_line;    /* the mark must be the first non-blank line */
	bool (*marks)(const char *line, size_t n);
	bool (*parse)(struct reader *r, GError **error);
};

static const struct measured_format formats[] = {
	{ .name = "nccl-tests", .what = "nccl-tests output", .marks = marks_nccl_tests,
	  .parse = parse_nccl_tests },
	{ .name = "g5x-log", .what = "g5x log", .marks = marks_g5x_log, .parse = parse_g5x_log },
	{ .name = "g5x-csv", .what = "g5x CSV", .first_line = true, .marks = marks_g5x_csv,
	  .parse = parse_g5x_csv },
	{ .name = "plain-csv", .what = "plain CSV", .first_line = true, .marks = marks_plain_csv,
	  .parse = parse_plain_csv },
};

/* The format whose mark comes first; NULL if none. Rewinds the reader. */
static const struct measured_format *detect(struct reader *r)
{
	const struct measured_format *found = NULL;
	bool first = true;
	const char *s;
	size_t n;

	while (!found && next_raw(r, &s, &n)) {
		if (is_blank(s, n))
			continue;
		for (size_t i = 0; i < G_N_ELEMENTS(formats) && !found; i++)
			if ((first || !formats[i].first_line) && formats[i].marks(s, n))
				found = &formats[i];
		first = false;
	}
	r->pos = r->begin;
	r->lineno = 0;
	return found;
}

static bool parse_text(struct reader *r, GError **error)
{
	const struct measured_format *fmt;
	const char *nul;

	if (r->len > MEASURED_MAX_FILE_BYTES) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE,
			    "%s: larger than %u MiB, the limit of a measured file", r->path,
			    MEASURED_MAX_FILE_BYTES >> 20);
		return false;
	}
	if (r->len >= 3 && !memcmp(r->text, "\xEF\xBB\xBF", 3))
		r->pos = r->begin = 3;
	if (!(fmt = detect(r))) {
		GString *known = g_string_new(NULL);

		for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
			g_string_append_printf(known, "%s%s", i ? ", " : "", formats[i].what);
		r->lineno = 1;
		return fail(r, error, "not a measured file (known: %s)",
			    keep(r, g_string_free(known, FALSE)));
	}
	if ((nul = memchr(r->text, '\0', r->len))) {
		for (const char *c = r->text; c < nul; c++)
			r->lineno += *c == '\n';
		r->lineno++;
		return fail(r, error, "a NUL byte: not a text file");
	}
	r->format = g_intern_static_string(fmt->name);
	if (!fmt->parse(r, error))
		return false;
	if (r->out->len == r->start) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE, "%s: no measurements",
			    r->path);
		return false;
	}
	return true;
}

bool measured_parse(const char *path, const char *text, size_t len, GArray *out,
		    GError **error)
{
	g_assert(g_array_get_element_size(out) == sizeof(struct measured_point));
	struct reader r = {
		.path = g_intern_string(path),
		.text = text,
		.len = len,
		.line = g_string_new(NULL),
		.out = out,
		.start = out->len,
		.scratch = g_ptr_array_new_with_free_func(g_free),
	};
	bool ok = parse_text(&r, error);

	if (!ok)
		g_array_set_size(out, r.start);
	g_string_free(r.line, TRUE);
	g_strfreev(r.csv);
	g_ptr_array_free(r.scratch, TRUE);
	return ok;
}

bool measured_read(const char *path, GArray *out, GError **error)
{
	g_autofree char *text = NULL;
	GError *e = NULL;
	struct stat st;
	gsize len;

	if (stat(path, &st) != 0) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_IO, "%s: cannot read: %s", path,
			    g_strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_IO, "%s: not a regular file", path);
		return false;
	}
	/* A file that grows after stat() is caught by measured_parse's own cap. */
	if (st.st_size > (off_t)MEASURED_MAX_FILE_BYTES) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_PARSE,
			    "%s: larger than %u MiB, the limit of a measured file", path,
			    MEASURED_MAX_FILE_BYTES >> 20);
		return false;
	}
	if (!g_file_get_contents(path, &text, &len, &e)) {
		g_set_error(error, MEASURED_ERROR, MEASURED_ERROR_IO, "%s: cannot read: %s", path,
			    e->message);
		g_error_free(e);
		return false;
	}
	return measured_parse(path, text, len, out, error);
}
