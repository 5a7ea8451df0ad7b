/* `g5 run` under mpirun (docs/scale.md): an experiment's points spread over
 * the processes of the job give the files one process gives (CSV bytes,
 * every HDF5 table but for wall-clock columns), with 2 and 3 processes (an
 * uneven split); a point that fails is a failed row with its message, as
 * in one process; a bad file is refused once, with status 2. Skipped where
 * g5 is built without MPI or mpirun is absent. Run from the repository
 * root. */
#include <glib.h>
#include <string.h>

#include "sim/results.h"

#include "tests/support/g5run.h"

/* Runs `mpirun -np NP $G5 ARGS...` on this machine; false (skipped) when
 * it cannot. */
static bool mpi_g5(struct run *r, int np, ...)
{
	const char *bin = g_getenv("G5");
	g_autofree char *mpirun = g_find_program_in_path("mpirun");
	g_autofree char *nps = g_strdup_printf("%d", np);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	const char *lsan = g_getenv("LSAN_OPTIONS");
	g_autofree char *lsan2 = g_strdup_printf("%s%ssuppressions=tests/sweep/mpi-lsan.supp:"
						 "fast_unwind_on_malloc=0:print_suppressions=0", lsan ? lsan : "",
						 lsan && *lsan ? ":" : "");
	g_auto(GStrv) env = g_get_environ();
	va_list ap;

	memset(r, 0, sizeof(*r));
#ifndef G5_MPI
	g_test_skip("g5 is built without MPI");
	return false;
#endif
	if (!bin || !*bin) {
		g_test_skip("G5 is not set (make test sets it)");
		return false;
	}
	if (!mpirun) {
		g_test_skip("no mpirun");
		return false;
	}
	/* one machine: no remote launcher (ssh) needed; root allowed */
	env = g_environ_setenv(env, "OMPI_MCA_plm", "isolated", TRUE);
	env = g_environ_setenv(env, "OMPI_ALLOW_RUN_AS_ROOT", "1", TRUE);
	env = g_environ_setenv(env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", TRUE);
	env = g_environ_setenv(env, "LSAN_OPTIONS", lsan2, TRUE);
	g_ptr_array_add(argv, mpirun);
	g_ptr_array_add(argv, (gpointer) "-np");
	g_ptr_array_add(argv, nps);
	g_ptr_array_add(argv, (gpointer) "--oversubscribe");
	g_ptr_array_add(argv, (gpointer) "-x");
	g_ptr_array_add(argv, (gpointer) "LSAN_OPTIONS");
	g_ptr_array_add(argv, (gpointer)bin);
	va_start(ap, np);
	run_spawn(r, argv, ap, env);
	va_end(ap);
	return true;
}

static char *slurp(const char *dir, const char *file)
{
	g_autofree char *path = g_build_filename(dir, file, NULL);
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		g_error("cannot read %s", path);
	return text;
}

/* Table `name` of a/EXP.h5 and b/EXP.h5 equal, but for wall-clock columns. */
static void assert_h5_equal(const char *a, const char *b, const char *exp, const char *name)
{
	g_autofree char *fn = g_strconcat(exp, ".h5", NULL);
	g_autofree char *pa = g_build_filename(a, fn, NULL), *pb = g_build_filename(b, fn, NULL);

	assert_h5_tables_equal(pa, pb, name);
}

static void same_results(const char *d1, const char *d2, const char *d3)
{
	struct run r;

	if (!g5(&r, "run", "tests/run/tiny.yaml", "-o", d1, "--no-plots", "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	for (int np = 2; np <= 3; np++) {
		const char *d = np == 2 ? d2 : d3;

		if (!mpi_g5(&r, np, "run", "tests/run/tiny.yaml", "-o", d, "--no-plots", NULL))
			return;
		if (exit_code(&r) != 0)
			g_error("mpirun -np %d: %s%s", np, r.out, r.err);
		g_assert_nonnull(strstr(r.out, "12 points in"));
		g_assert_nonnull(strstr(r.out, "over the processes of an MPI job"));
		g_assert_cmpstr(r.err, ==, "");
		run_clear(&r);
		g_autofree char *c1 = slurp(d1, "tiny.csv"), *c2 = slurp(d, "tiny.csv");

		g_assert_cmpstr(c1, ==, c2);
		assert_h5_equal(d1, d, "tiny", "results");
		assert_h5_equal(d1, d, "tiny", "steps");
		assert_h5_equal(d1, d, "tiny", "channels");
		assert_h5_equal(d1, d, "tiny", "summary");
	}
}

static void test_same_results(void)
{
	g_autofree char *d1 = tmpdir(), *d2 = tmpdir(), *d3 = tmpdir();

	same_results(d1, d2, d3);
	rm_rf(d1);
	rm_rf(d2);
	rm_rf(d3);
}

/* Flow fidelity's forwarded bytes travel with their points: the columns
 * of a two-process run are the one-process run's, and the note on the
 * points past the receive buffer comes once, from rank 0. */
static void test_flow_columns(void)
{
	g_autofree char *d1 = tmpdir(), *d2 = tmpdir();
	struct run r;

	if (!g5(&r, "run", "tests/run/flow-forwarded.yaml", "-o", d1, "--no-plots", "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 0);
	run_clear(&r);
	if (!mpi_g5(&r, 2, "run", "tests/run/flow-forwarded.yaml", "-o", d2, "--no-plots", "-q", NULL))
		return;
	if (exit_code(&r) != 0)
		g_error("mpirun -np 2: %s%s", r.out, r.err);
	const char *note = strstr(r.err, "note: 1 of the 4 points at flow fidelity");

	g_assert_nonnull(note);
	g_assert_null(strstr(note + 1, "note:"));
	run_clear(&r);
	g_autofree char *c1 = slurp(d1, "flow-forwarded.csv"), *c2 = slurp(d2, "flow-forwarded.csv");

	g_assert_nonnull(strstr(c1, ",forwarded,forwarded_max_bytes"));
	g_assert_cmpstr(c1, ==, c2);
	assert_h5_equal(d1, d2, "flow-forwarded", "results");
	rm_rf(d1);
	rm_rf(d2);
}

static void failed_point(const char *d)
{
	g_autofree char *d1 = g_build_filename(d, "one", NULL);
	g_autofree char *d2 = g_build_filename(d, "job", NULL);
	g_autofree char *yaml = slow_experiment(d);
	struct run r;

	if (!g5(&r, "run", yaml, "-o", d1, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 1);
	run_clear(&r);
	if (!mpi_g5(&r, 2, "run", yaml, "-o", d2, "-q", NULL))
		return;
	g_assert_cmpint(exit_code(&r), ==, 1);
	/* the failed points are reported once, by rank 0 */
	g_assert_nonnull(strstr(r.err, "point 1 (allreduce ring, 8 ranks, 8MiB"));
	g_assert_nonnull(strstr(r.err, "point 2 (allreduce ring, 8 ranks, 64MiB"));
	g_assert_null(strstr(strstr(r.err, "point 1 (") + 1, "point 1 ("));
	run_clear(&r);
	g_autofree char *c1 = slurp(d1, "slow.csv"), *c2 = slurp(d2, "slow.csv");

	g_assert_cmpstr(c1, ==, c2);
	g_assert_nonnull(strstr(c2, "passed the end of the clock"));
	assert_h5_equal(d1, d2, "slow", "results");
}

static void test_failed_point(void)
{
	g_autofree char *d = tmpdir();

	failed_point(d);
	rm_rf(d);
}

static void test_bad_file(void)
{
	g_autofree char *d = tmpdir();
	g_autofree char *yaml = g_build_filename(d, "bad.yaml", NULL);
	g_autofree char *csv = g_build_filename(d, "bad.csv", NULL);
	struct run r;

	g_assert_true(g_file_set_contents(yaml, "schema_version: 1\nname: bad\nsizes: [4KiB]\n"
					  "collectives: [allreduce]\nalgorithms: [nope]\n", -1, NULL));
	if (mpi_g5(&r, 2, "run", yaml, "-o", d, "-q", NULL)) {
		g_assert_cmpint(exit_code(&r), ==, 2);
		const char *m = strstr(r.err, "bad.yaml:");

		g_assert_nonnull(m);
		g_assert_null(strstr(m + 1, "bad.yaml:")); /* once, from rank 0 */
		g_assert_false(g_file_test(csv, G_FILE_TEST_EXISTS));
		run_clear(&r);
	}
	rm_rf(d);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/sweep/mpi/same-results", test_same_results);
	g_test_add_func("/sweep/mpi/failed-point", test_failed_point);
	g_test_add_func("/sweep/mpi/bad-file-once", test_bad_file);
	g_test_add_func("/sweep/mpi/flow-columns", test_flow_columns);
	return g_test_run();
}
