/* Tests of sim/tune's profiles: read and written back, the lookup by
 * collective, group shape and size range, the errors with file, line and
 * column, and the group stride. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/tune.h"

static struct tune_profile *parse_ok(const char *text)
{
	GError *err = NULL;
	struct tune_profile *p = tune_profile_parse("t.yaml", text, strlen(text), &err);

	if (!p)
		g_error("%s", err->message);
	return p;
}

static const char *const prof =
	"schema_version: 1\n"
	"platform: seed-ring8\n"
	"entries:\n"
	"  - {collective: allreduce, ranks: 8, stride: 1, up_to: 48KiB, algo: hd, nchunks: 1}\n"
	"  - {collective: allreduce, ranks: 8, stride: 1, up_to: 11863283, algo: ring2p}\n"
	"  - {collective: allreduce, ranks: 8, stride: 1, algo: ring2p, nchunks: 4}\n"
	"  - {collective: allreduce, ranks: 4, stride: 2, algo: direct}\n";

static void test_lookup(void)
{
	struct tune_profile *p = parse_ok(prof);
	const struct tune_entry *e;

	g_assert_cmpstr(p->platform, ==, "seed-ring8");
	e = tune_lookup(p, COLL_ALLREDUCE, 8, 1, 1024);
	g_assert_cmpstr(e->algo, ==, "hd");
	e = tune_lookup(p, COLL_ALLREDUCE, 8, 1, 48 << 10);
	g_assert_cmpstr(e->algo, ==, "hd");
	e = tune_lookup(p, COLL_ALLREDUCE, 8, 1, (48 << 10) + 1);
	g_assert_cmpstr(e->algo, ==, "ring2p");
	g_assert_cmpuint(e->nchunks, ==, 1);
	e = tune_lookup(p, COLL_ALLREDUCE, 8, 1, 11863284);
	g_assert_cmpuint(e->nchunks, ==, 4);
	e = tune_lookup(p, COLL_ALLREDUCE, 8, 1, UINT64_MAX);
	g_assert_cmpuint(e->nchunks, ==, 4);
	g_assert_cmpstr(tune_lookup(p, COLL_ALLREDUCE, 4, 2, 1)->algo, ==, "direct");
	/* shapes and collectives not tuned: the caller's default */
	g_assert_null(tune_lookup(p, COLL_ALLREDUCE, 4, 1, 1024));
	g_assert_null(tune_lookup(p, COLL_ALLGATHER, 8, 1, 1024));
	g_assert_null(tune_lookup(NULL, COLL_ALLREDUCE, 8, 1, 1024));

	/* written and read back: the same entries */
	g_autofree char *dir = g_dir_make_tmp("g5-tune-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "p.yaml", NULL);
	GError *err = NULL;

	g_assert_true(tune_profile_write(p, path, &err));
	struct tune_profile *q = tune_profile_load(path, &err);

	g_assert_nonnull(q);
	g_assert_cmpuint(q->entries->len, ==, p->entries->len);
	for (guint i = 0; i < p->entries->len; i++) {
		const struct tune_entry *a = &g_array_index(p->entries, struct tune_entry, i);
		const struct tune_entry *b = &g_array_index(q->entries, struct tune_entry, i);

		g_assert_cmpint(a->coll, ==, b->coll);
		g_assert_cmpint(a->ranks, ==, b->ranks);
		g_assert_cmpint(a->stride, ==, b->stride);
		g_assert_cmpuint(a->up_to, ==, b->up_to);
		g_assert_cmpstr(a->algo, ==, b->algo);
		g_assert_cmpuint(a->nchunks, ==, b->nchunks);
	}
	tune_profile_free(q);
	tune_profile_free(p);
	g_unlink(path);
	g_rmdir(dir);
}

static void test_errors(void)
{
	static const struct {
		const char *entries, *want;
	} rows[] = {
		{ "  - {collective: allreduce, ranks: 8, algo: ring, up_to: 1MiB}\n"
		  "  - {collective: allreduce, ranks: 8, algo: hd, up_to: 1KiB}\n",
		  "t.yaml:5:5: 'entries[1]': its range must start above the previous entry's" },
		{ "  - {collective: allreduce, ranks: 8, algo: ring}\n"
		  "  - {collective: allreduce, ranks: 8, algo: hd}\n", "its range must start above" },
		{ "  - {collective: allredux, ranks: 8, algo: ring}\n", "unknown collective 'allredux'" },
		{ "  - {collective: allreduce, ranks: 1, algo: ring}\n", "t.yaml:4:36: 'entries[0].ranks': must be between 2" },
		{ "  - {collective: allreduce, ranks: 8, algo: ring, nchunk: 2}\n", "did you mean 'nchunks'" },
		{ "  - {collective: allreduce, algo: ring}\n", "needs collective, ranks and algo" },
		{ "  - {collective: allreduce, ranks: 8, algo: ring, up_to: lots}\n", "'entries[0].up_to'" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		g_autofree char *text = g_strconcat("schema_version: 1\nplatform: x\nentries:\n",
						    rows[i].entries, NULL);
		GError *err = NULL;

		g_assert_null(tune_profile_parse("t.yaml", text, strlen(text), &err));
		if (!strstr(err->message, rows[i].want))
			g_error("message '%s' lacks '%s'", err->message, rows[i].want);
		g_error_free(err);
	}
	GError *err = NULL;

	const char *typo = "schema_version: 1\nentrys: []\n";

	g_assert_null(tune_profile_parse("t.yaml", typo, strlen(typo), &err));
	g_assert_nonnull(strstr(err->message, "did you mean 'entries'"));
	g_error_free(err);
}

static void test_stride(void)
{
	int a[] = { 0, 1, 2, 3 }, b[] = { 1, 3, 5 }, c[] = { 0, 2, 3 }, d[] = { 3, 2 };

	g_assert_cmpint(tune_group_stride(a, 4), ==, 1);
	g_assert_cmpint(tune_group_stride(b, 3), ==, 2);
	g_assert_cmpint(tune_group_stride(c, 3), ==, 0);
	g_assert_cmpint(tune_group_stride(d, 2), ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tune/profile/lookup", test_lookup);
	g_test_add_func("/tune/profile/errors", test_errors);
	g_test_add_func("/tune/stride", test_stride);
	return g_test_run();
}
