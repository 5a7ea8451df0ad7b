/* The golden outputs (tests/expected/README.md): runs scripts/goldens.sh
 * with the g5 named by $G5 (set by `make test`; skipped without it) into a
 * temporary directory and compares every file with the committed one under
 * tests/expected/, byte for byte. A file that moved fails the test with its
 * first differing line, expected and got; a file on one side only fails it
 * too. Run from the repository root. */
#include <glib.h>
#include <string.h>

#include "tests/support/g5run.h"

#define EXPECTED "tests/expected"

/* Appends the paths of the regular files under ROOT/REL, relative to ROOT,
 * to OUT (which owns them). README.md at the top is documentation, not a
 * golden. */
static void list_files(const char *root, const char *rel, GPtrArray *out)
{
	g_autofree char *dir = g_build_filename(root, rel, NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;

	if (!d)
		return; /* no tree: each file of the other side is reported */
	while ((name = g_dir_read_name(d))) {
		g_autofree char *sub = *rel ? g_build_filename(rel, name, NULL) : g_strdup(name);
		g_autofree char *path = g_build_filename(root, sub, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			list_files(root, sub, out);
		else if (*rel || strcmp(name, "README.md"))
			g_ptr_array_add(out, g_steal_pointer(&sub));
	}
}

static int cmp_path(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The line of TEXT (LEN bytes) that holds byte AT: "(end of file)" past the
 * end. */
static char *line_at(const char *text, gsize len, gsize at)
{
	gsize lo = at, hi = at;

	while (lo > 0 && text[lo - 1] != '\n')
		lo--;
	if (lo >= len)
		return g_strdup("(end of file)");
	while (hi < len && text[hi] != '\n')
		hi++;
	return g_strndup(text + lo, hi - lo);
}

/* NULL when the files at REL under EXPECTED and FRESH are byte-identical,
 * else one line that says where they part: "FILE:LINE: expected '...', got
 * '...'" (or that a side lacks the file). */
static char *compare(const char *fresh, const char *rel)
{
	g_autofree char *pe = g_build_filename(EXPECTED, rel, NULL);
	g_autofree char *pg = g_build_filename(fresh, rel, NULL);
	g_autofree char *e = NULL, *g = NULL;
	gsize ne = 0, ng = 0, at = 0;
	guint line = 1;

	if (!g_file_get_contents(pe, &e, &ne, NULL))
		return g_strdup_printf("%s: not committed, but scripts/goldens.sh writes it", pe);
	if (!g_file_get_contents(pg, &g, &ng, NULL))
		return g_strdup_printf("%s: committed, but scripts/goldens.sh no longer writes it", pe);
	while (at < ne && at < ng && e[at] == g[at]) {
		if (e[at] == '\n')
			line++;
		at++;
	}
	if (at == ne && at == ng)
		return NULL;
	g_autofree char *le = line_at(e, ne, at), *lg = line_at(g, ng, at);

	return g_strdup_printf("%s:%u: expected '%s', got '%s'", pe, line, le, lg);
}

static void test_byte_identical(void)
{
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) moved = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *fresh = NULL;
	g_autofree char *out = NULL, *err = NULL;
	GError *error = NULL;
	int status;

	if (!g_getenv("G5") || !*g_getenv("G5")) {
		g_test_skip("G5 is not set (make test sets it)");
		return;
	}
	fresh = tmpdir();
	/* $G5 reaches the script through the environment */
	char *argv[] = { "sh", "scripts/goldens.sh", fresh, NULL };

	g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
				   &status, &error));
	g_assert_no_error(error);
	if (!g_spawn_check_wait_status(status, NULL)) {
		g_test_fail_printf("scripts/goldens.sh failed: %s", g_strstrip(err));
		rm_rf(fresh);
		return;
	}

	list_files(EXPECTED, "", files);
	list_files(fresh, "", files);
	g_ptr_array_sort(files, cmp_path);
	g_assert_cmpuint(files->len, >, 0);
	for (guint i = 0; i < files->len; i++) {
		const char *rel = files->pdata[i];

		if (i > 0 && !strcmp(rel, files->pdata[i - 1]))
			continue; /* on both sides */
		char *why = compare(fresh, rel);

		if (why) {
			g_test_message("%s", why);
			g_ptr_array_add(moved, why);
		}
	}
	if (moved->len)
		g_test_fail_printf("%u golden file(s) moved (a change that means to move them "
				   "regenerates them: sh scripts/goldens.sh); the first: %s",
				   moved->len, (char *)moved->pdata[0]);
	rm_rf(fresh);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/goldens/byte-identical", test_byte_identical);
	return g_test_run();
}
