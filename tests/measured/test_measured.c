/* Tests of sim/measured: the real measurements under tests/measured/data
 * (nccl-tests output from the two-H200 host, the executor's logs and CSV
 * cut from docs/measurements/h200x2) read to the values they print; two
 * synthetic nccl-tests outputs (synthetic-*.txt: made by hand, in nccl-tests'
 * layout) for what the real ones lack (sendrecv, MPI over four processes,
 * validation off, an in-place N/A, two tests in one file, cputime); the bad
 * corpus (tests/measured/bad/NAME.* must fail with exactly the message in
 * NAME.expect); all-or-nothing appends, the caps, and truncations and byte
 * flips of real files, which must parse or fail with a message naming the
 * file, never crash. Run from the repository root. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "sim/measured.h"

#define DATA "tests/measured/data/"

static GArray *points_new(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct measured_point));
}

static const struct measured_point *pt(GArray *a, guint i)
{
	g_assert_cmpuint(i, <, a->len);
	return &g_array_index(a, struct measured_point, i);
}

static GArray *read_ok(const char *path)
{
	GArray *a = points_new();
	GError *err = NULL;

	if (!measured_read(path, a, &err))
		g_error("%s", err->message);
	return a;
}

/* One expected point: the index-th of `file`; NULL strings are not checked. */
struct want {
	const char *file;
	guint index;
	uint32_t line;
	const char *impl, *coll, *algo, *mode;
	int ranks;
	uint64_t bytes;
	const char *dtype; /* dtype_name() */
	bool inplace;
	double time_us;
	uint32_t nchunks;
	const char *schedule, *timer, *proto;
	int root;
};

static void check_points(const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		g_autoptr(GArray) a = read_ok(w[i].file);
		const struct measured_point *p = pt(a, w[i].index);

		g_test_message("%s point %u", w[i].file, w[i].index);
		g_assert_true(p->file == g_intern_string(w[i].file));
		g_assert_cmpuint(p->line, ==, w[i].line);
		g_assert_cmpstr(p->impl, ==, w[i].impl);
		g_assert_cmpstr(coll_name(p->coll), ==, w[i].coll);
		g_assert_cmpstr(p->algo, ==, w[i].algo);
		g_assert_cmpstr(p->mode, ==, w[i].mode);
		g_assert_cmpint(p->ranks, ==, w[i].ranks);
		g_assert_cmpuint(p->bytes, ==, w[i].bytes);
		g_assert_cmpstr(dtype_name(p->dtype), ==, w[i].dtype);
		g_assert_cmpint(p->inplace, ==, w[i].inplace);
		g_assert_cmpfloat_with_epsilon(p->time_us, w[i].time_us, 1e-9);
		g_assert_cmpuint(p->nchunks, ==, w[i].nchunks);
		g_assert_cmpstr(p->schedule, ==, w[i].schedule);
		g_assert_cmpstr(p->timer, ==, w[i].timer);
		g_assert_cmpstr(p->proto, ==, w[i].proto);
		g_assert_cmpstr(p->engine, ==, "sm");
		g_assert_cmpint(p->root, ==, w[i].root);
	}
}

/* Number of points and format of each file. */
static void check_counts(const char *const *files, const guint *counts, const char *format,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		g_autoptr(GArray) a = read_ok(files[i]);

		g_test_message("%s", files[i]);
		g_assert_cmpuint(a->len, ==, counts[i]);
		for (guint k = 0; k < a->len; k++)
			g_assert_cmpstr(pt(a, k)->format, ==, format);
	}
}

static void test_nccl_tests_real(void)
{
	static const char *const files[] = {
		DATA "all_reduce_float_g2.txt",
		DATA "all_reduce_bfloat16_g2.txt",
		DATA "all_reduce_float_mpi_np2.txt",
	};
	static const guint counts[] = { 20, 20, 20 };
	static const struct want w[] = {
		{ DATA "all_reduce_float_g2.txt", 0, 12, "nccl", "allreduce", "nccl", "single", 2,
		  4096, "fp32", false, 22.63, 1, "-", "wall", "auto", -1 },
		{ DATA "all_reduce_float_g2.txt", 1, 12, "nccl", "allreduce", "nccl", "single", 2,
		  4096, "fp32", true, 22.46, 1, "-", "wall", "auto", -1 },
		{ DATA "all_reduce_float_g2.txt", 19, 21, "nccl", "allreduce", "nccl", "single", 2,
		  1073741824, "fp32", true, 3261.60, 1, "-", "wall", "auto", -1 },
		{ DATA "all_reduce_bfloat16_g2.txt", 0, 12, "nccl", "allreduce", "nccl", "single", 2,
		  4096, "bf16", false, 16.15, 1, "-", "wall", "auto", -1 },
		{ DATA "all_reduce_bfloat16_g2.txt", 18, 21, "nccl", "allreduce", "nccl", "single", 2,
		  1073741824, "bf16", false, 3251.44, 1, "-", "wall", "auto", -1 },
		{ DATA "all_reduce_float_mpi_np2.txt", 1, 12, "nccl", "allreduce", "nccl", "mpi", 2,
		  4096, "fp32", true, 12.90, 1, "-", "wall", "auto", -1 },
		{ DATA "all_reduce_float_mpi_np2.txt", 8, 16, "nccl", "allreduce", "nccl", "mpi", 2,
		  1048576, "fp32", false, 15.38, 1, "-", "wall", "auto", -1 },
	};

	check_counts(files, counts, "nccl-tests", G_N_ELEMENTS(files));
	check_points(w, G_N_ELEMENTS(w));
}

static void test_nccl_tests_synthetic(void)
{
	static const char *const files[] = {
		DATA "synthetic-sendrecv-mpi4.txt",
		DATA "synthetic-two-tests.txt",
	};
	/* sendrecv: 3 rows, one without its in-place point; two tests: 2 + 1 rows */
	static const guint counts[] = { 5, 6 };
	static const struct want w[] = {
		/* #wrong N/A (validation off) keeps the point; NCCL_PROTO from NCCL's INFO */
		{ DATA "synthetic-sendrecv-mpi4.txt", 1, 15, "nccl", "p2p", "nccl", "mpi", 4, 1024,
		  "fp16", true, 18.52, 1, "-", "wall", "LL128", -1 },
		{ DATA "synthetic-sendrecv-mpi4.txt", 2, 16, "nccl", "p2p", "nccl", "mpi", 4, 1048576,
		  "fp16", false, 21.07, 1, "-", "wall", "LL128", -1 },
		/* in-place N/A: no point; the next is the next row's (after an INFO line) */
		{ DATA "synthetic-sendrecv-mpi4.txt", 3, 18, "nccl", "p2p", "nccl", "mpi", 4,
		  1073741824, "fp16", false, 12345, 1, "-", "wall", "LL128", -1 },
		{ DATA "synthetic-two-tests.txt", 3, 19, "nccl", "allgather", "nccl", "single", 8,
		  16777216, "fp32", true, 94.82, 1, "-", "wall", "auto", -1 },
		{ DATA "synthetic-two-tests.txt", 5, 42, "nccl", "broadcast", "nccl", "single", 8,
		  8388608, "fp32", true, 7.05, 1, "-", "cputime", "auto", 1 },
	};

	check_counts(files, counts, "nccl-tests", G_N_ELEMENTS(files));
	check_points(w, G_N_ELEMENTS(w));
}

/* The first point of each table of the executor's logs. */
static void test_g5x_log(void)
{
	static const char *const files[] = { DATA "g5x-timing.log", DATA "g5x-mpi.log" };
	static const guint counts[] = { 9 * 20, 4 * 20 };
#define T DATA "g5x-timing.log"
#define M DATA "g5x-mpi.log"
	static const struct want w[] = {
		{ T, 0, 8, "g5", "allgather", "bruck", "single", 2, 4096, "fp32", false, 18.18, 1,
		  "allgather-bruck-n2-k1.g5s", "wall", "simple", -1 },
		{ T, 20, 23, "nccl", "allgather", "nccl", "single", 2, 4096, "fp32", false, 12.47, 1,
		  "-", "wall", "auto", -1 },
		{ T, 40, 40, "nccl", "reducescatter", "nccl", "single", 2, 4096, "fp32", false, 18.12,
		  1, "-", "wall", "auto", -1 },
		{ T, 60, 57, "nccl", "alltoall", "nccl", "single", 2, 4096, "fp32", false, 13.69, 1,
		  "-", "wall", "auto", -1 },
		{ T, 80, 74, "nccl", "broadcast", "nccl", "single", 2, 4096, "fp32", false, 12.63, 1,
		  "-", "wall", "auto", 0 },
		{ T, 100, 91, "nccl", "reduce", "nccl", "single", 2, 4096, "fp32", false, 13.24, 1,
		  "-", "wall", "auto", 0 },
		{ T, 120, 108, "nccl", "p2p", "nccl", "single", 2, 4096, "fp32", false, 11.85, 1, "-",
		  "wall", "auto", 0 },
		{ T, 140, 124, "g5", "allreduce", "hd", "single", 2, 4096, "fp32", false, 73.68, 4,
		  "allreduce-hd-n2-k4.g5s", "wall", "simple", -1 },
		{ T, 179, 150, "g5", "allreduce", "ring", "single", 2, 1073741824, "fp32", true,
		  3139.72, 1, "allreduce-ring-n2-k1.g5s", "events", "simple", -1 },
		{ M, 0, 8, "g5", "allreduce", "ring", "mpi", 2, 4096, "fp32", false, 15.21, 1,
		  "allreduce-ring-n2-k1.g5s", "wall", "simple", -1 },
		{ M, 20, 23, "nccl", "allreduce", "nccl", "mpi", 2, 4096, "fp32", false, 10.19, 1, "-",
		  "wall", "auto", -1 },
		{ M, 41, 39, "g5", "alltoall", "pairwise", "mpi", 2, 4096, "fp32", true, 13.68, 1,
		  "alltoall-pairwise-n2-k1.g5s", "wall", "simple", -1 },
		{ M, 79, 64, "g5", "broadcast", "chain", "mpi", 2, 1073741824, "fp32", true, 3458.92,
		  1, "broadcast-chain-n2-k1.g5s", "wall", "simple", 0 },
	};
#undef T
#undef M

	check_counts(files, counts, "g5x-log", G_N_ELEMENTS(files));
	check_points(w, G_N_ELEMENTS(w));
}

static void test_g5x_csv(void)
{
	static const char *const files[] = { DATA "g5x-old.csv", DATA "g5x-new.csv" };
	/* the new file's two probe and two baseline rows are not points; its
	 * last row is NCCL's padded AllGatherV */
	static const guint counts[] = { 100, 9 };
#define O DATA "g5x-old.csv"
#define N DATA "g5x-new.csv"
	static const struct want w[] = {
		{ O, 0, 2, "g5", "allreduce", "ring", "single", 2, 4096, "fp32", false, 15.402, 1,
		  "-", "wall", "simple", -1 },
		/* the old format wrote the schedule's algorithm on NCCL rows */
		{ O, 21, 23, "nccl", "allreduce", "nccl", "single", 2, 4096, "fp32", true, 19.089, 1,
		  "-", "wall", "auto", -1 },
		{ O, 40, 42, "nccl", "allgather", "nccl", "single", 2, 4096, "fp32", false, 12.466, 1,
		  "-", "wall", "auto", -1 },
		{ O, 60, 62, "nccl", "allreduce", "nccl", "single", 2, 4096, "bf16", false, 12.099, 1,
		  "-", "wall", "auto", -1 },
		{ O, 80, 82, "nccl", "allreduce", "nccl", "single", 2, 4096, "fp32", false, 11.914, 1,
		  "-", "events", "auto", -1 },
		{ N, 0, 6, "g5", "allreduce", "ring", "mpi", 2, 4096, "fp32", false, 15.210, 1,
		  "allreduce-ring-n2-k1.g5s", "wall", "simple", -1 },
		/* wrong -1: unchecked */
		{ N, 3, 9, "g5", "allreduce", "hd", "single", 2, 16777216, "fp32", true, 69.870, 4,
		  "allreduce-hd-n2-k4.g5s", "wall", "simple", -1 },
		{ N, 4, 10, "nccl", "allreduce", "nccl", "mpi", 2, 4096, "fp32", false, 15.480, 1, "-",
		  "wall", "LL128", -1 },
		{ N, 7, 13, "nccl", "broadcast", "nccl", "single", 2, 1048576, "fp16", true, 9.911, 1,
		  "-", "events", "auto", -1 },
		/* NCCL's padded AllGatherV (g5x --nccl-agv pad): its own algo */
		{ N, 8, 14, "nccl", "allgatherv", "nccl-pad", "single", 2, 1048576, "fp32", false,
		  30.5, 1, "-", "wall", "auto", -1 },
	};
#undef O
#undef N

	check_counts(files, counts, "g5x-csv", G_N_ELEMENTS(files));
	check_points(w, G_N_ELEMENTS(w));
}

static void test_plain_csv(void)
{
	static const char *const files[] = { DATA "plain-minimal.csv", DATA "plain-columns.csv" };
	static const guint counts[] = { 2, 2 };
#define P DATA "plain-minimal.csv"
#define C DATA "plain-columns.csv"
	static const struct want w[] = {
		/* the defaults: impl g5, algo ring, mode single, out of place, 1 chunk */
		{ P, 0, 2, "g5", "allreduce", "ring", "single", 8, 1048576, "fp32", false, 41.5, 1, "-",
		  "wall", "simple", -1 },
		{ P, 1, 3, "g5", "allgather", "ring", "single", 8, 1048576, "bf16", false, 30.25, 1,
		  "-", "wall", "simple", -1 },
		/* columns in any order, CRLF, a blank line, blanks around fields */
		{ C, 0, 2, "g5", "alltoall", "pairwise", "mpi", 4, 65536, "fp16", true, 12.5, 2, "-",
		  "wall", "simple", -1 },
		{ C, 1, 4, "nccl", "allreduce", "nccl", "single", 4, 65536, "fp32", false, 20.0, 1, "-",
		  "wall", "auto", -1 },
	};
#undef P
#undef C

	check_counts(files, counts, "plain-csv", G_N_ELEMENTS(files));
	check_points(w, G_N_ELEMENTS(w));
}

static void assert_same_points(GArray *a, GArray *b)
{
	g_assert_cmpuint(a->len, ==, b->len);
	for (guint i = 0; i < a->len; i++) {
		const struct measured_point *p = pt(a, i), *q = pt(b, i);

		g_assert_cmpuint(p->line, ==, q->line);
		g_assert_true(p->format == q->format && p->impl == q->impl && p->algo == q->algo &&
			      p->mode == q->mode && p->schedule == q->schedule &&
			      p->timer == q->timer && p->proto == q->proto && p->engine == q->engine);
		g_assert_cmpint(p->coll, ==, q->coll);
		g_assert_cmpint(p->ranks, ==, q->ranks);
		g_assert_cmpuint(p->bytes, ==, q->bytes);
		g_assert_cmpint(p->dtype, ==, q->dtype);
		g_assert_cmpint(p->inplace, ==, q->inplace);
		g_assert_cmpuint(p->nchunks, ==, q->nchunks);
		g_assert_cmpint(p->root, ==, q->root);
		g_assert_cmpfloat(p->time_us, ==, q->time_us);
	}
}

/* The format comes from the content: a log named .csv, a CSV named .txt,
 * CRLF line ends and a byte order mark change nothing. */
/* The calls a time averages: nccl-tests' "iters: N" times "agg iters: M"
 * (the warmup's count is not timed), g5x's "iters N" and its CSV's iters
 * column, a plain CSV's optional iters column (1 without it). */
static void test_launches(void)
{
	static const struct {
		const char *file;
		uint32_t launches;
	} files[] = {
		{ DATA "all_reduce_float_g2.txt", 20 },
		{ DATA "g5x-mpi.log", 20 },
		{ DATA "g5x-new.csv", 20 },
		{ DATA "plain-minimal.csv", 1 },
	};
	static const char agg[] =
		"# Collective test starting: all_reduce_perf\n"
		"# nThread 1 nGpus 2 minBytes 4096 maxBytes 4096 step: 2(factor) warmup iters: 7 "
		"iters: 10 agg iters: 3 validation: 1 graph: 0\n"
		"#  Rank  0 Group  0 Pid   1331 on         vm device  0 [0000:00:06] NVIDIA H200\n"
		"#  Rank  1 Group  0 Pid   1331 on         vm device  1 [0000:00:07] NVIDIA H200\n"
		"        4096          1024     float     sum      -1    22.63    0.18    0.18      0"
		"    22.46    0.18    0.18      0\n";
	static const char plain[] = "collective,ranks,bytes,dtype,time_us,iters\n"
				    "allreduce,2,4096,fp32,15.2,50\n";

	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autoptr(GArray) a = read_ok(files[i].file);

		for (guint k = 0; k < a->len; k++)
			g_assert_cmpuint(g_array_index(a, struct measured_point, k).launches, ==,
					 files[i].launches);
	}
	g_autoptr(GArray) a = points_new();
	g_autoptr(GArray) b = points_new();
	g_autoptr(GArray) c = points_new();
	g_autoptr(GError) err = NULL;

	g_assert_true(measured_parse("agg.txt", agg, strlen(agg), a, NULL));
	g_assert_cmpuint(a->len, ==, 2);
	g_assert_cmpuint(g_array_index(a, struct measured_point, 0).launches, ==, 30);
	g_assert_true(measured_parse("plain.csv", plain, strlen(plain), b, NULL));
	g_assert_cmpuint(g_array_index(b, struct measured_point, 0).launches, ==, 50);

	g_autofree char *bad = g_strdup(agg);
	char *at = strstr(bad, "iters: 10");

	at[7] = 'x';
	g_assert_false(measured_parse("bad.txt", bad, strlen(bad), c, &err));
	g_assert_nonnull(strstr(err->message, "bad.txt:2:"));
	g_assert_nonnull(strstr(err->message, "iters"));
	g_assert_cmpuint(c->len, ==, 0);
}

static void test_detect_by_content(void)
{
	static const char *const files[] = {
		DATA "all_reduce_float_g2.txt", DATA "g5x-mpi.log", DATA "g5x-new.csv",
		DATA "plain-minimal.csv",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *text = NULL;
		gsize len;
		g_autoptr(GArray) want = read_ok(files[i]);
		g_autoptr(GArray) got = points_new();
		g_autoptr(GArray) crlf = points_new();
		g_autoptr(GError) err = NULL;

		g_assert_true(g_file_get_contents(files[i], &text, &len, NULL));
		g_assert_true(measured_parse(files[i], text, len, got, &err));
		assert_same_points(want, got);
		g_array_set_size(got, 0);
		g_assert_true(measured_parse("renamed.csv.txt", text, len, got, &err));
		g_assert_cmpstr(pt(got, 0)->format, ==, pt(want, 0)->format);
		g_assert_cmpstr(pt(got, 0)->file, ==, "renamed.csv.txt");

		g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
		g_autofree char *joined = g_strjoinv("\r\n", lines);
		g_autofree char *bom = g_strconcat("\xEF\xBB\xBF", joined, NULL);

		g_assert_true(measured_parse(files[i], bom, strlen(bom), crlf, &err));
		assert_same_points(want, crlf);
	}
}

/* g_ptr_array_sort hands pointers to the elements. */
static gint cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_bad_corpus(void)
{
	const char *dir = "tests/measured/bad";
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const char *n;

	g_assert_nonnull(d);
	while ((n = g_dir_read_name(d)))
		if (!g_str_has_suffix(n, ".expect"))
			g_ptr_array_add(names, g_strdup(n));
	g_ptr_array_sort(names, cmp_names);
	/* a lost directory must not pass silently */
	g_assert_cmpuint(names->len, >=, 50);
	for (guint i = 0; i < names->len; i++) {
		g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL);
		g_autofree char *stem = g_strndup(path, strrchr(path, '.') - path);
		g_autofree char *expect_path = g_strconcat(stem, ".expect", NULL);
		g_autofree char *expect = NULL;
		g_autoptr(GArray) a = points_new();
		GError *err = NULL;

		g_assert_true(g_file_get_contents(expect_path, &expect, NULL, NULL));
		g_strchomp(expect);
		if (measured_read(path, a, &err))
			g_error("%s read %u points, but must fail with: %s", path, a->len, expect);
		g_assert_true(err->domain == MEASURED_ERROR);
		g_assert_cmpstr(err->message, ==, expect);
		g_assert_cmpuint(a->len, ==, 0);
		g_error_free(err);
	}
}

/* A failed file appends nothing and leaves earlier points as they were;
 * a good one appends after them. */
static void test_all_or_nothing(void)
{
	g_autoptr(GArray) a = read_ok(DATA "all_reduce_float_g2.txt");
	g_autoptr(GError) err = NULL;
	const struct measured_point first = *pt(a, 0);

	g_assert_false(measured_read("tests/measured/bad/nccl-wrong-many-inplace.txt", a, &err));
	g_assert_error(err, MEASURED_ERROR, MEASURED_ERROR_WRONG);
	g_assert_cmpuint(a->len, ==, 20);
	g_assert_cmpfloat(pt(a, 0)->time_us, ==, first.time_us);
	g_assert_true(measured_read(DATA "all_reduce_float_mpi_np2.txt", a, NULL));
	g_assert_cmpuint(a->len, ==, 40);
	g_assert_cmpstr(pt(a, 20)->mode, ==, "mpi");
	g_assert_cmpstr(pt(a, 19)->mode, ==, "single");
}

static void test_read_errors(void)
{
	g_autoptr(GArray) a = points_new();
	g_autoptr(GError) err = NULL;
	g_autofree char *dir = g_dir_make_tmp("g5-measured-XXXXXX", NULL);
	g_autofree char *big = g_build_filename(dir, "big.txt", NULL);
	g_autofree char *want = g_strdup_printf("%s: larger than 64 MiB, the limit of a measured file",
						big);
	FILE *f;

	g_assert_false(measured_read("tests/measured/none.txt", a, &err));
	g_assert_error(err, MEASURED_ERROR, MEASURED_ERROR_IO);
	g_assert_cmpstr(err->message, ==, "tests/measured/none.txt: cannot read: No such file or directory");
	g_clear_error(&err);
	g_assert_false(measured_read("tests/measured", a, &err));
	g_assert_cmpstr(err->message, ==, "tests/measured: not a regular file");
	g_clear_error(&err);
	/* one byte over the cap, sparse */
	g_assert_nonnull(f = fopen(big, "w"));
	g_assert_cmpint(ftruncate(fileno(f), MEASURED_MAX_FILE_BYTES + 1), ==, 0);
	fclose(f);
	g_assert_false(measured_read(big, a, &err));
	g_assert_cmpstr(err->message, ==, want);
	g_clear_error(&err);
	g_assert_false(measured_parse(big, "", MEASURED_MAX_FILE_BYTES + 1, a, &err));
	g_assert_cmpstr(err->message, ==, want);
	g_assert_cmpuint(a->len, ==, 0);
	g_unlink(big);
	g_rmdir(dir);
}

/* One point over the cap fails the file at the row that brings it. */
static void test_point_cap(void)
{
	GString *s = g_string_new("collective,ranks,bytes,dtype,time_us\n");
	g_autoptr(GArray) a = points_new();
	g_autoptr(GError) err = NULL;
	g_autofree char *want = NULL;

	for (guint i = 0; i <= MEASURED_MAX_POINTS; i++)
		g_string_append(s, "allreduce,2,4096,float,10\n");
	g_assert_false(measured_parse("cap.csv", s->str, s->len, a, &err));
	want = g_strdup_printf("cap.csv:%u: more than %u measurements in one file",
			       MEASURED_MAX_POINTS + 2, MEASURED_MAX_POINTS);
	g_assert_cmpstr(err->message, ==, want);
	g_assert_cmpuint(a->len, ==, 0);
	g_string_free(s, TRUE);
}

/* Either the text reads, into points that keep measured.h's invariants, or
 * it fails with a message that starts with the path. */
static void assert_sane(const char *path, const char *text, size_t len)
{
	g_autoptr(GArray) a = points_new();
	g_autoptr(GError) err = NULL;

	if (!measured_parse(path, text, len, a, &err)) {
		g_assert_true(g_str_has_prefix(err->message, path));
		g_assert_true(err->message[strlen(path)] == ':');
		g_assert_cmpuint(a->len, ==, 0);
		return;
	}
	g_assert_cmpuint(a->len, >, 0);
	for (guint i = 0; i < a->len; i++) {
		const struct measured_point *p = pt(a, i);

		g_assert_true(isfinite(p->time_us) && p->time_us > 0);
		g_assert_cmpint(p->ranks, >=, 1);
		g_assert_cmpint(p->ranks, <=, MEASURED_MAX_RANKS);
		g_assert_cmpint(p->root, >=, -1);
		g_assert_cmpint(p->root, <, p->ranks);
		g_assert_cmpuint(p->nchunks, >=, 1);
		g_assert_cmpuint(p->bytes % dtype_elem_bytes(p->dtype), ==, 0);
		g_assert_cmpuint(p->line, >=, 1);
		g_assert_nonnull(p->algo);
		g_assert_nonnull(p->schedule);
	}
}

static const char *const fuzz_files[] = {
	DATA "all_reduce_float_mpi_np2.txt", DATA "synthetic-sendrecv-mpi4.txt",
	DATA "g5x-mpi.log", DATA "g5x-new.csv", DATA "plain-columns.csv",
};

static void test_fuzz_truncations(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(fuzz_files); i++) {
		g_autofree char *text = NULL;
		gsize len;

		g_assert_true(g_file_get_contents(fuzz_files[i], &text, &len, NULL));
		for (gsize n = 0; n <= len; n++) {
			/* a copy of exactly n bytes, so that reading past them is caught */
			g_autofree char *cut = g_memdup2(text, n);

			assert_sane(fuzz_files[i], cut, n);
		}
	}
}

static void test_fuzz_flips(void)
{
	static const char alphabet[] = "0123456789 \t\n\r,#-.:eN/A?\0\xff";
	g_autoptr(GRand) rng = g_rand_new_with_seed(20261130);

	for (size_t i = 0; i < G_N_ELEMENTS(fuzz_files); i++) {
		g_autofree char *text = NULL;
		gsize len;

		g_assert_true(g_file_get_contents(fuzz_files[i], &text, &len, NULL));
		for (int round = 0; round < 1000; round++) {
			g_autofree char *t = g_memdup2(text, len);
			int flips = g_rand_int_range(rng, 1, 5);

			for (int k = 0; k < flips; k++) {
				gsize at = (gsize)g_rand_int_range(rng, 0, (gint32)len);

				t[at] = g_rand_boolean(rng)
						? (char)g_rand_int_range(rng, 0, 256)
						: alphabet[g_rand_int_range(rng, 0, sizeof(alphabet) - 1)];
			}
			assert_sane(fuzz_files[i], t, len);
		}
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/measured/nccl-tests/real", test_nccl_tests_real);
	g_test_add_func("/measured/nccl-tests/synthetic", test_nccl_tests_synthetic);
	g_test_add_func("/measured/g5x-log/real", test_g5x_log);
	g_test_add_func("/measured/g5x-csv/old-and-new", test_g5x_csv);
	g_test_add_func("/measured/plain-csv/defaults-and-columns", test_plain_csv);
	g_test_add_func("/measured/detect/by-content", test_detect_by_content);
	g_test_add_func("/measured/launches", test_launches);
	g_test_add_func("/measured/bad/corpus", test_bad_corpus);
	g_test_add_func("/measured/append/all-or-nothing", test_all_or_nothing);
	g_test_add_func("/measured/read/errors", test_read_errors);
	g_test_add_func("/measured/caps/points", test_point_cap);
	g_test_add_func("/measured/fuzz/truncations", test_fuzz_truncations);
	g_test_add_func("/measured/fuzz/byte-flips", test_fuzz_flips);
	return g_test_run();
}
