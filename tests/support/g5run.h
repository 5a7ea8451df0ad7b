/* tests/support/g5run — runs the g5 binary named by $G5 (set by `make test`)
 * for end-to-end tests, capturing its output and exit status. */
#ifndef G5_TESTS_SUPPORT_G5RUN_H
#define G5_TESTS_SUPPORT_G5RUN_H

#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>

struct run {
	int status;      /* wait status */
	char *out, *err; /* owned: stdout and stderr */
};

void run_clear(struct run *r);

/* Runs `g5 ARGS...` (NULL-terminated). False, with the test skipped, when
 * $G5 is not set; a failure to spawn fails the test. */
bool g5(struct run *r, ...) G_GNUC_NULL_TERMINATED;

/* Runs argv (its first entries given) with the NULL-terminated arguments
 * of ap appended, in environment envp (NULL: this one), into *r. */
void run_spawn(struct run *r, GPtrArray *argv, va_list ap, char **envp);

/* The exit code of a finished run (fails the test if it was killed). */
int exit_code(const struct run *r);

/* A new temporary directory (g_free() the path). */
char *tmpdir(void);

/* Removes a file or a directory tree. */
void rm_rf(const char *path);

struct rtable;
/* Every column of a and b equal (names, types, values to the bit), but for
 * the wall-clock column wall_s. */
void assert_tables_equal(const struct rtable *a, const struct rtable *b);
/* The same for table `name` of two results files (at least one row). */
void assert_h5_tables_equal(const char *h5a, const char *h5b, const char *name);
/* Writes DIR/slow.yaml, an experiment of six points on the seed ring whose
 * points 1 and 2 cannot fit the clock (1 B/s links), and returns its path
 * (g_free() it). */
char *slow_experiment(const char *dir);

#endif
