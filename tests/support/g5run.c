/* Running the g5 binary from end-to-end tests. */
#include "tests/support/g5run.h"

#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/results.h"

void run_clear(struct run *r)
{
	g_free(r->out);
	g_free(r->err);
	r->out = r->err = NULL;
}

void run_spawn(struct run *r, GPtrArray *argv, va_list ap, char **envp)
{
	GError *err = NULL;
	const char *a;

	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(argv, (gpointer)a);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
				   &r->out, &r->err, &r->status, &err));
	g_assert_no_error(err);
}

bool g5(struct run *r, ...)
{
	const char *bin = g_getenv("G5");
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	va_list ap;

	memset(r, 0, sizeof(*r));
	if (!bin || !*bin) {
		g_test_skip("G5 is not set (make test sets it)");
		return false;
	}
	g_ptr_array_add(argv, (gpointer)bin);
	va_start(ap, r);
	run_spawn(r, argv, ap, NULL);
	va_end(ap);
	return true;
}

int exit_code(const struct run *r)
{
	g_assert_true(WIFEXITED(r->status));
	return WEXITSTATUS(r->status);
}

char *tmpdir(void)
{
	GError *err = NULL;
	char *d = g_dir_make_tmp("g5-test-XXXXXX", &err);

	g_assert_no_error(err);
	return d;
}

void rm_rf(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };

	g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

void assert_tables_equal(const struct rtable *a, const struct rtable *b)
{
	g_assert_cmpuint(a->nrows, ==, b->nrows);
	g_assert_cmpuint(a->cols->len, ==, b->cols->len);
	for (guint c = 0; c < a->cols->len; c++) {
		const struct rcol *x = a->cols->pdata[c], *y = b->cols->pdata[c];

		g_assert_cmpstr(x->name, ==, y->name);
		g_assert_cmpint(x->type, ==, y->type);
		if (!strcmp(x->name, "wall_s"))
			continue;
		for (guint i = 0; i < a->nrows; i++) {
			if (x->type == RC_STR)
				g_assert_cmpstr(rcol_str(x, i), ==, rcol_str(y, i));
			else if (x->type == RC_I64)
				g_assert_cmpint(g_array_index(x->v, int64_t, i), ==, g_array_index(y->v, int64_t, i));
			else
				g_assert_cmpmem(&g_array_index(x->v, double, i), sizeof(double),
						&g_array_index(y->v, double, i), sizeof(double));
		}
	}
}

void assert_h5_tables_equal(const char *h5a, const char *h5b, const char *name)
{
	GError *err = NULL;
	struct rtable *a = rtable_read_h5(h5a, name, &err);

	g_assert_no_error(err);
	struct rtable *b = rtable_read_h5(h5b, name, &err);

	g_assert_no_error(err);
	g_assert_cmpuint(a->nrows, >, 0);
	assert_tables_equal(a, b);
	rtable_free(a);
	rtable_free(b);
}

char *slow_experiment(const char *dir)
{
	char *yaml = g_build_filename(dir, "slow.yaml", NULL);
	g_autofree char *plat = g_canonicalize_filename("configs/platforms/seed-ring8.yaml", NULL);
	g_autofree char *text = g_strdup_printf(
		"schema_version: 1\nname: slow\nplatform: %s\ncollectives: [allreduce]\n"
		"algorithms: [ring]\nsizes: [1MiB, 8MiB, 64MiB]\n"
		"sweep:\n  link.bandwidth: [1B/s, 450GB/s]\noutputs:\n  formats: [h5, csv]\n", plat);

	g_assert_true(g_file_set_contents(yaml, text, -1, NULL));
	return yaml;
}
