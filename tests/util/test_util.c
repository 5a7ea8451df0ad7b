/* Tests of sim/util: the unit parsers every size, bandwidth and time in a
 * platform file, an experiment file or a flag goes through (exact integers,
 * rounding to the nearest unit, messages that quote the text), the size
 * printer, and the AllGatherV weights (list parser, distribution parser,
 * zipf draws that depend on the seed only). */
#include <glib.h>
#include <signal.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/util/child.h"
#include "sim/util/files.h"
#include "sim/util/quote.h"
#include "sim/util/spell.h"
#include "sim/util/units.h"
#include "sim/util/weights.h"

static void test_sizes(void)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} ok[] = {
		{ "0", 0 },           { "512", 512 },           { "512B", 512 },
		{ "4KiB", 4096 },     { "64MiB", 64ull << 20 }, { "1GiB", 1ull << 30 },
		{ "2TiB", 2ull << 40 }, { "1K", 1024 },         { "3M", 3ull << 20 },
		{ "1G", 1ull << 30 }, { "1KB", 1000 },          { "1MB", 1000000 },
		{ "1GB", 1000000000 }, { "1TB", 1000000000000ull },
		{ "1.5KiB", 1536 },   { "0.5B", 1 },            { " 8 MiB", 8ull << 20 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "KiB", "-1", "1 KiB x", "1XB", "1e3", "1..2",
		"18446744073709551616", "16384PiB", "17179869184GiB",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
		uint64_t v = 7;
		GError *e = NULL;

		if (!units_parse_size(ok[i].text, &v, &e))
			g_error("'%s': %s", ok[i].text, e->message);
		g_assert_cmpuint(v, ==, ok[i].bytes);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		uint64_t v = 7;
		GError *e = NULL;
		/* well formed but beyond 64 bits (PiB is no unit of G5's) */
		bool big = !strcmp(bad[i], "18446744073709551616") ||
			   !strcmp(bad[i], "17179869184GiB");
		g_autofree char *want =
			big ? g_strdup_printf("'%s' is too large a size (at most 2^64 - 1 of its "
						  "base unit)", bad[i])
				: g_strdup_printf("must be a size such as 64MiB, got '%s'", bad[i]);

		if (units_parse_size(bad[i], &v, &e))
			g_error("'%s' was read as %" G_GUINT64_FORMAT, bad[i], v);
		g_assert_cmpstr(e->message, ==, want);
		g_assert_cmpuint(v, ==, 7); /* untouched on error */
		g_error_free(e);
	}
}

static void test_bandwidths(void)
{
	static const struct {
		const char *text;
		uint64_t bps;
	} ok[] = {
		{ "450GB/s", 450000000000ull }, { "26.56GB/s", 26560000000ull },
		{ "1TB/s", 1000000000000ull },  { "100MB/s", 100000000ull },
		{ "1KB/s", 1000 },              { "1B/s", 1 },
		{ "1GiB/s", 1ull << 30 },       { "2MiB/s", 2ull << 20 },
		{ "0.0000000006GB/s", 1 },      /* 0.6 B/s rounds to 1 */
	};

	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
		uint64_t v = 0;

		g_assert_true(units_parse_bw(ok[i].text, &v, NULL));
		g_assert_cmpuint(v, ==, ok[i].bps);
	}
	/* a rate that rounds to zero is no rate */
	GError *e = NULL;
	uint64_t v = 0;

	g_assert_false(units_parse_bw("0.0000000004GB/s", &v, &e));
	g_assert_cmpstr(e->message, ==, "must be a bandwidth above zero, got '0.0000000004GB/s'");
	g_clear_error(&e);
	g_assert_false(units_parse_bw("0GB/s", &v, &e));
	g_clear_error(&e);
	g_assert_false(units_parse_bw("450GB", &v, &e));
	g_assert_cmpstr(e->message, ==, "must be a bandwidth such as 450GB/s, got '450GB'");
	g_clear_error(&e);
	g_assert_false(units_parse_bw("fast", &v, &e));
	g_clear_error(&e);
}

static void test_times(void)
{
	static const struct {
		const char *text;
		uint64_t ps;
	} ok[] = {
		{ "0", 0 },        { "300ps", 300 },          { "500ns", 500000 },
		{ "2us", 2000000 }, { "1.5ms", 1500000000ull }, { "1s", 1000000000000ull },
		{ "0.0004ns", 0 }, { "0.0005ns", 1 },         { "26.5us", 26500000 },
		{ "0us", 0 },
	};
	static const char *const bad[] = { "", "2", "2 sec", "us", "-1us", "1e3ps" };

	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
		uint64_t v = 7;

		g_assert_true(units_parse_time(ok[i].text, &v, NULL));
		g_assert_cmpuint(v, ==, ok[i].ps);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		GError *e = NULL;
		uint64_t v = 0;
		g_autofree char *want = g_strdup_printf("must be a time such as 2us, got '%s'", bad[i]);

		g_assert_false(units_parse_time(bad[i], &v, &e));
		g_assert_cmpstr(e->message, ==, want);
		g_error_free(e);
	}
}

/* A unit in the wrong case is refused with the spelling meant, in every
 * parser (flags and files read sizes, rates and times through these). */
static void test_unit_case(void)
{
	static const struct {
		bool (*parse)(const char *, uint64_t *, GError **);
		const char *text, *msg;
	} cases[] = {
		{ units_parse_size, "64mib", "must be a size such as 64MiB, got '64mib' (did you mean '64MiB'?)" },
		{ units_parse_size, "1kib", "must be a size such as 64MiB, got '1kib' (did you mean '1KiB'?)" },
		{ units_parse_size, "2.5 gib", "must be a size such as 64MiB, got '2.5 gib' (did you mean '2.5 GiB'?)" },
		{ units_parse_bw, "450gb/s", "must be a bandwidth such as 450GB/s, got '450gb/s' (did you mean '450GB/s'?)" },
		{ units_parse_time, "2US", "must be a time such as 2us, got '2US' (did you mean '2us'?)" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		GError *e = NULL;
		uint64_t v = 0;

		g_assert_false(cases[i].parse(cases[i].text, &v, &e));
		g_assert_error(e, UNITS_ERROR, UNITS_ERROR_PARSE);
		g_assert_cmpstr(e->message, ==, cases[i].msg);
		g_error_free(e);
	}
}

static void test_format_size(void)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{ 0, "0B" },          { 1, "1B" },         { 1000, "1000B" },
		{ 1024, "1KiB" },     { 1536, "1536B" },   { 64ull << 20, "64MiB" },
		{ 3ull << 30, "3GiB" }, { 1ull << 50, "1024TiB" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char buf[32];
		uint64_t back = 0;

		g_assert_cmpstr(units_format_size(cases[i].bytes, buf, sizeof(buf)), ==, cases[i].text);
		/* what is printed reads back */
		g_assert_true(units_parse_size(buf, &back, NULL));
		g_assert_cmpuint(back, ==, cases[i].bytes);
	}
}

static void test_weights_list(void)
{
	uint64_t *w = NULL;
	GError *e = NULL;

	g_assert_true(weights_parse_list("1,0,5,4294967295", 4, &w, NULL));
	g_assert_cmpuint(w[0], ==, 1);
	g_assert_cmpuint(w[1], ==, 0);
	g_assert_cmpuint(w[2], ==, 5);
	g_assert_cmpuint(w[3], ==, 4294967295u);
	g_free(w);

	g_assert_false(weights_parse_list("1,2", 4, &w, &e));
	g_assert_null(w);
	g_assert_error(e, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE);
	g_assert_cmpstr(e->message, ==, "needs 4 comma-separated numbers, one per rank, got 2");
	g_clear_error(&e);
	g_assert_false(weights_parse_list("1,2,x,4", 4, &w, &e));
	g_assert_null(w);
	g_assert_cmpstr(e->message, ==, "entry 'x' is not a whole number");
	g_clear_error(&e);
	g_assert_false(weights_parse_list("1,2,4294967296,4", 4, &w, &e));
	g_assert_cmpstr(e->message, ==, "entry '4294967296' is above the largest weight, 4294967295");
	g_clear_error(&e);
	/* a huge token is quoted by its first 40 bytes only */
	g_autofree char *huge = g_strnfill(100000, 'y');
	g_autofree char *list = g_strdup_printf("1,2,%s,4", huge);

	g_assert_false(weights_parse_list(list, 4, &w, &e));
	g_assert_cmpstr(e->message, ==, "entry 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...' is not a whole number");
	g_clear_error(&e);
	g_assert_false(weights_parse_list("1,-2,3,4", 4, &w, &e));
	g_clear_error(&e);
	g_assert_false(weights_parse_list("1,,3,4", 4, &w, &e));
	g_clear_error(&e);
}

static void test_weights_dist(void)
{
	struct weights_dist d = { 0 };
	GError *e = NULL;

	g_assert_true(weights_parse_dist("zipf:1.2", &d, NULL));
	g_assert_cmpint(d.family, ==, WEIGHTS_ZIPF);
	g_assert_cmpfloat(d.param, ==, 1.2);
	g_assert_true(weights_parse_dist("zipf:10", &d, NULL));
	g_assert_true(weights_parse_dist("lognormal:0.5", &d, NULL));
	g_assert_cmpint(d.family, ==, WEIGHTS_LOGNORMAL);
	g_assert_cmpfloat(d.param, ==, 0.5);
	g_assert_true(weights_parse_dist("heavy:1", &d, NULL));
	g_assert_cmpint(d.family, ==, WEIGHTS_HEAVY);
	g_autofree char *name = weights_dist_name(&d);

	g_assert_cmpstr(name, ==, "heavy:1");
	static const struct {
		const char *text, *usage;
	} bad[] = {
		{ "zipf:0", "zipf:S with S a number in (0, 10], such as zipf:1.2" },
		{ "zipf:-1", "zipf:S with S a number in (0, 10], such as zipf:1.2" },
		{ "zipf:10.5", "zipf:S with S a number in (0, 10], such as zipf:1.2" },
		{ "zipf:", "zipf:S with S a number in (0, 10], such as zipf:1.2" },
		{ "zipf:1x", "zipf:S with S a number in (0, 10], such as zipf:1.2" },
		{ "lognormal:0", "lognormal:SIGMA with SIGMA a number in (0, 5], such as lognormal:1" },
		{ "lognormal:6", "lognormal:SIGMA with SIGMA a number in (0, 5], such as lognormal:1" },
		{ "heavy:0.5", "heavy:F with F a number in [1, 1000000], such as heavy:8" },
		{ "heavy:2e6", "heavy:F with F a number in [1, 1000000], such as heavy:8" },
		{ "uniform", "zipf:S, lognormal:SIGMA or heavy:F, such as zipf:1.2" },
		{ "zipf 1.2", "zipf:S, lognormal:SIGMA or heavy:F, such as zipf:1.2" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autofree char *want = g_strdup_printf("must be %s, got '%s'", bad[i].usage, bad[i].text);

		g_assert_false(weights_parse_dist(bad[i].text, &d, &e));
		g_assert_cmpstr(e->message, ==, want);
		g_clear_error(&e);
	}
}

/* lognormal and heavy: fixed by the seed alone; heavy is one rank at F
 * times the others; skew is max / mean. */
static void test_weights_families(void)
{
	const int n = 16;
	struct weights_dist ln = { WEIGHTS_LOGNORMAL, 1.0 }, hv = { WEIGHTS_HEAVY, 8.0 };
	g_autofree uint64_t *a = weights_draw(n, &ln, 3), *b = weights_draw(n, &ln, 3);
	g_autofree uint64_t *c = weights_draw(n, &ln, 4), *h = weights_draw(n, &hv, 3);
	int heavy = 0;

	g_assert_cmpmem(a, n * sizeof(*a), b, n * sizeof(*b));
	g_assert_true(memcmp(a, c, n * sizeof(*a)) != 0);
	for (int r = 0; r < n; r++) {
		g_assert_cmpuint(a[r], >=, 1);
		if (h[r] == 8000000)
			heavy++;
		else
			g_assert_cmpuint(h[r], ==, 1000000);
	}
	g_assert_cmpint(heavy, ==, 1);
	/* 8 x 16 / (8 + 15) */
	g_assert_cmpfloat_with_epsilon(weights_skew(h, n), 128.0 / 23.0, 1e-12);
	g_assert_cmpfloat(weights_skew(NULL, n), ==, 1.0);
	const uint64_t one[4] = { 0, 0, 5, 0 };

	g_assert_cmpfloat(weights_skew(one, 4), ==, 4.0);
	/* a larger sigma spreads the weights further */
	struct weights_dist wide = { WEIGHTS_LOGNORMAL, 2.0 };
	g_autofree uint64_t *w = weights_draw(n, &wide, 3);

	g_assert_cmpfloat(weights_skew(w, n), >, weights_skew(a, n));
}

/* Zipf weights: a permutation of round(1e6 / k^s), at least 1, fixed by the
 * seed alone. */
static void test_weights_zipf(void)
{
	const int n = 16;
	g_autofree uint64_t *a = weights_zipf(n, 1.2, 42), *b = weights_zipf(n, 1.2, 42);
	g_autofree uint64_t *c = weights_zipf(n, 1.2, 43), *big = weights_zipf(n, 10, 1);

	g_assert_cmpmem(a, n * sizeof(*a), b, n * sizeof(*b));
	g_assert_true(memcmp(a, c, n * sizeof(*a)) != 0);
	for (int k = 1; k <= n; k++) {
		uint64_t want = (uint64_t)(1e6 / pow((double)k, 1.2) + 0.5);
		int hits = 0;

		for (int r = 0; r < n; r++)
			hits += a[r] == want;
		g_assert_cmpint(hits, ==, 1);
	}
	/* steep: every rank past the first few still gets 1 */
	int ones = 0, top = 0;

	for (int r = 0; r < n; r++) {
		ones += big[r] == 1;
		top += big[r] == 1000000;
	}
	g_assert_cmpint(top, ==, 1);
	g_assert_cmpint(ones, >=, n - 4);
}

/* A regular file is replaced whole and nothing is left beside it. */
static void test_files_regular(void)
{
	g_autofree char *dir = g_dir_make_tmp("g5-files-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "out.txt", NULL);
	g_autofree char *text = NULL;
	GError *err = NULL;

	g_assert_true(files_write(path, "first, longer text\n", 19, &err));
	g_assert_no_error(err);
	g_assert_true(files_write(path, "second\n", 7, &err));
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_assert_cmpstr(text, ==, "second\n");
	GDir *d = g_dir_open(dir, 0, NULL);
	guint n = 0;

	while (g_dir_read_name(d))
		n++;
	g_dir_close(d);
	g_assert_cmpuint(n, ==, 1);
	g_unlink(path);
	g_rmdir(dir);
}

static gpointer fifo_reader(gpointer path)
{
	char *text = NULL;

	g_file_get_contents(path, &text, NULL, NULL);
	return text;
}

/* A FIFO (like a device) is written through, never replaced by a regular
 * file; a directory is refused with its name. */
static void test_files_special(void)
{
	g_autofree char *dir = g_dir_make_tmp("g5-files-XXXXXX", NULL);
	g_autofree char *fifo = g_build_filename(dir, "pipe", NULL);
	GError *err = NULL;
	struct stat st;

	g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
	GThread *reader = g_thread_new("reader", fifo_reader, fifo);

	g_assert_true(files_write(fifo, "through\n", 8, &err));
	g_assert_no_error(err);
	g_autofree char *got = g_thread_join(reader);

	g_assert_cmpstr(got, ==, "through\n");
	g_assert_cmpint(stat(fifo, &st), ==, 0);
	g_assert_true(S_ISFIFO(st.st_mode));
	g_assert_false(files_write(dir, "x", 1, &err));
	g_assert_error(err, FILES_ERROR, FILES_ERROR_IO);
	g_assert_nonnull(strstr(err->message, dir));
	g_clear_error(&err);
	g_unlink(fifo);
	g_rmdir(dir);
}

static gpointer fifo_writer(gpointer path)
{
	FILE *f = fopen(path, "w");
	char block[4096];

	memset(block, 'x', sizeof(block));
	/* more than the reader takes: it stops reading, and the write fails */
	for (int i = 0; i < 64 && fwrite(block, 1, sizeof(block), f) == sizeof(block); i++)
		;
	fclose(f);
	return NULL;
}

/* files_read: a whole file; at most max bytes of an endless source (a
 * FIFO here, like stdin); a NUL byte when text is asked for (/dev/zero
 * fails at once); a directory or a missing file named. */
static void test_files_read(void)
{
	g_autofree char *dir = g_dir_make_tmp("g5-files-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "f", NULL);
	g_autofree char *fifo = g_build_filename(dir, "pipe", NULL);
	char *text = NULL;
	gsize len = 0;
	GError *err = NULL;

	g_assert_true(g_file_set_contents(path, "abc\n", -1, NULL));
	g_assert_true(files_read(path, 4, true, &text, &len, &err));
	g_assert_cmpstr(text, ==, "abc\n");
	g_assert_cmpuint(len, ==, 4);
	g_free(text);
	g_assert_false(files_read(path, 3, true, &text, &len, &err));
	g_assert_error(err, FILES_ERROR, FILES_ERROR_LARGE);
	g_assert_nonnull(strstr(err->message, ": larger than 3 bytes"));
	g_clear_error(&err);
	g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
	signal(SIGPIPE, SIG_IGN);
	GThread *writer = g_thread_new("writer", fifo_writer, fifo);

	g_assert_false(files_read(fifo, 100000, true, &text, &len, &err));
	g_thread_join(writer);
	g_assert_error(err, FILES_ERROR, FILES_ERROR_LARGE);
	g_clear_error(&err);
	if (g_file_test("/dev/zero", G_FILE_TEST_EXISTS)) {
		g_assert_false(files_read("/dev/zero", (gsize)1 << 40, true, &text, &len, &err));
		g_assert_error(err, FILES_ERROR, FILES_ERROR_NOT_TEXT);
		g_assert_cmpstr(err->message, ==, "/dev/zero: byte 0 is NUL: not a text file");
		g_clear_error(&err);
	}
	g_assert_false(files_read(dir, 100, true, &text, &len, &err));
	g_assert_nonnull(strstr(err->message, "Is a directory"));
	g_clear_error(&err);
	g_unlink(path);
	g_assert_false(files_read(path, 100, true, &text, &len, &err));
	g_assert_nonnull(strstr(err->message, path));
	g_clear_error(&err);
	g_unlink(fifo);
	g_rmdir(dir);
}

/* A value whose product with its unit leaves 64 bits (or would wrap 128)
 * is an error, never a small number. */
static void test_units_overflow(void)
{
	static const char *const sizes[] = {
		"309485009821345068724781056TiB", "18446744073709551616", "16777216TiB",
		"1.000000000000000001e0", "1267650600228229401496703205376.5MiB",
	};
	uint64_t v = 0;
	GError *err = NULL;

	for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
		g_assert_false(units_parse_size(sizes[i], &v, &err));
		g_assert_error(err, UNITS_ERROR, UNITS_ERROR_PARSE);
		g_clear_error(&err);
	}
	g_assert_false(units_parse_bw("316912650057057350374175801345GiB/s", &v, &err));
	g_assert_nonnull(strstr(err->message, "too large"));
	g_clear_error(&err);
	g_assert_true(units_parse_size("18446744073709551615", &v, &err));
	g_assert_cmpuint(v, ==, UINT64_MAX);
	g_assert_true(units_parse_size("16777215TiB", &v, &err));
	g_assert_cmpuint(v, ==, 16777215ull << 40);
}

/* Suggestions for misspelt names: a slip (a letter missing, extra, wrong or
 * two swapped) finds its name, ties go to the first listed, a word far from
 * every name or equal to one gets none. */
/* User text in a message: short text as it is, long text cut to 40 bytes
 * and "...", control and non-ASCII bytes escaped. */
static void test_quote(void)
{
	g_autofree char *big = g_strnfill(1 << 20, 'x');
	g_autofree char *forty = g_strnfill(QUOTE_MAX_BYTES, 'x');
	g_autofree char *cut = g_strconcat(forty, "...", NULL);

	g_assert_cmpstr(quote_text("ringg").s, ==, "ringg");
	g_assert_cmpstr(quote_text("").s, ==, "");
	g_assert_cmpstr(quote_text(NULL).s, ==, "");
	g_assert_cmpstr(quote_text(forty).s, ==, forty);
	g_assert_cmpstr(quote_text(big).s, ==, cut);
	g_assert_cmpstr(quote_text("a\nb\tc\033").s, ==, "a\\nb\\tc\\033");
	g_assert_cmpstr(quote_text("caf\303\251").s, ==, "caf\\303\\251");
	/* the worst case fills the buffer without overflowing it */
	g_autofree char *ctl = g_strnfill(1000, '\001');
	struct quote q = quote_text(ctl);

	g_assert_cmpuint(strlen(q.s), ==, QUOTE_MAX_BYTES * 4 + 3);
	g_assert_true(g_str_has_suffix(q.s, "\\001..."));
}

static void test_spell(void)
{
	static const struct {
		const char *word, *known, *want; /* want NULL: no suggestion */
	} cases[] = {
		{ "ringg", "ring, ring2p, sendrecv, hd", "ring" },
		{ "rnig", "ring, ring2p, sendrecv, hd", "ring" },
		{ "sendrcv", "ring, ring2p, sendrecv, hd", "sendrecv" },
		{ "allredcue", "allreduce, allgather, reducescatter", "allreduce" },
		{ "hypercub", "ring, ring-uni, fullmesh, hypercube, torus", "hypercube" },
		{ "RING", "ring, hd", "ring" },
		{ "ring", "ring, ring2p", NULL },
		{ "xyz", "ring, hd, dbtree", NULL },
		{ "h", "ring, hd", NULL },
		{ "?", "ring, hd", NULL },
		{ "", "ring, hd", NULL },
		{ "ring3p", "ring2p, ring", "ring2p" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *got = spell_closest(cases[i].word, cases[i].known);

		g_assert_cmpstr(got, ==, cases[i].want);
	}
	g_assert_cmpuint(spell_distance("kitten", "sitting"), ==, 3);
	g_assert_cmpuint(spell_distance("ab", "ba"), ==, 1);
	g_assert_cmpuint(spell_distance("", "abc"), ==, 3);
	g_autofree char *hint = spell_hint("ringg", "ring, hd");
	g_autofree char *none = spell_hint("zzzzzz", "ring, hd");

	g_assert_cmpstr(hint, ==, "; did you mean 'ring'?");
	g_assert_cmpstr(none, ==, "");
}

static void child_returns(void *data)
{
	(void)data;
}

static void child_exits(void *data)
{
	_exit(GPOINTER_TO_INT(data));
}

static void child_aborts(void *data)
{
	(void)data;
	abort(); /* a crash that the sanitizers leave to the default action */
}

static void child_hangs(void *data)
{
	(void)data;
	for (;;)
		pause();
}

/* No child of this process is left: child_run() reaped what it started. */
static void assert_no_child(void)
{
	g_assert_cmpint(waitpid(-1, NULL, WNOHANG), ==, -1);
	g_assert_cmpint(errno, ==, ECHILD);
}

/* A child that returns, exits with a status or dies of a signal is seen
 * as such; one that hangs is killed at its limit (g5 plot's reader gets 60 s
 * of it, here 1 s) and reaped. */
static void test_child(void)
{
	struct child_end end;
	GError *err = NULL;

	g_assert_true(child_run(child_returns, NULL, 10000, &end, &err));
	g_assert_no_error(err);
	g_assert_true(child_ok(&end));
	g_assert_true(child_run(child_exits, GINT_TO_POINTER(3), 10000, &end, &err));
	g_assert_false(child_ok(&end));
	g_assert_false(end.timed_out);
	g_assert_true(WIFEXITED(end.status));
	g_assert_cmpint(WEXITSTATUS(end.status), ==, 3);
	g_assert_true(child_run(child_aborts, NULL, 10000, &end, &err));
	g_assert_false(child_ok(&end));
	g_assert_false(end.timed_out);
	g_assert_true(WIFSIGNALED(end.status));
	g_assert_cmpint(WTERMSIG(end.status), ==, SIGABRT);
	assert_no_child();

	gint64 t0 = g_get_monotonic_time();

	g_assert_true(child_run(child_hangs, NULL, 1000, &end, &err));
	double took = (double)(g_get_monotonic_time() - t0) / 1e6;

	g_assert_true(end.timed_out);
	g_assert_false(child_ok(&end));
	g_assert_true(WIFSIGNALED(end.status));
	g_assert_cmpint(WTERMSIG(end.status), ==, SIGKILL);
	g_assert_cmpfloat(took, >=, 1.0);
	g_assert_cmpfloat(took, <, 10.0);
	assert_no_child();
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/util/quote/cut-and-escaped", test_quote);
	g_test_add_func("/util/files/regular", test_files_regular);
	g_test_add_func("/util/files/special", test_files_special);
	g_test_add_func("/util/child/ends-and-limit", test_child);
	g_test_add_func("/util/units/sizes", test_sizes);
	g_test_add_func("/util/units/overflow", test_units_overflow);
	g_test_add_func("/util/units/bandwidths", test_bandwidths);
	g_test_add_func("/util/units/times", test_times);
	g_test_add_func("/util/units/wrong-case", test_unit_case);
	g_test_add_func("/util/units/format-size", test_format_size);
	g_test_add_func("/util/weights/list", test_weights_list);
	g_test_add_func("/util/files/read-bounded", test_files_read);
	g_test_add_func("/util/weights/dist", test_weights_dist);
	g_test_add_func("/util/spell/closest", test_spell);
	g_test_add_func("/util/weights/zipf", test_weights_zipf);
	g_test_add_func("/util/weights/families", test_weights_families);
	return g_test_run();
}
