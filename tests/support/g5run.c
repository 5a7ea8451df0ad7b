/* Running the g5 binary from end-to-end tests. */
#include "tests/support/g5run.h"

#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

void run_clear(struct run *r)
{
	g_free(r->out);
	g_free(r->err);
	r->out = r->err = NULL;
}

bool g5(struct run *r, ...)
{
	const char *bin = g_getenv("G5");
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	GError *err = NULL;
	va_list ap;
	const char *a;

	memset(r, 0, sizeof(*r));
	if (!bin || !*bin) {
		g_test_skip("G5 is not set (make test sets it)");
		return false;
	}
	g_ptr_array_add(argv, (gpointer)bin);
	va_start(ap, r);
	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(argv, (gpointer)a);
	va_end(ap);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
				   &r->out, &r->err, &r->status, &err));
	g_assert_no_error(err);
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
