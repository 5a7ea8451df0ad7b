/* sim/results — running an experiment's points and writing what they gave.
 *
 * exp_run() simulates every point of an experiment on a pool of threads (each
 * point owns its own struct sim through simulate()); results are stored by
 * point index, so they do not depend on the number of threads.
 *
 * Results are column tables (struct rtable): the results table (one row per
 * point), the per-step and per-channel tables (rows keyed by point index)
 * and, with several seeds, a summary over seeds. The same tables go to the
 * HDF5 file (one group per table, one 1-D dataset per column, column order in
 * the group's 'columns' attribute; docs/results.md), to the CSV mirror of the
 * results table, and to the plots. rtable_read_h5() reads a results file back
 * for `g5 plot`. Files are written under a temporary name and renamed, so a
 * killed run never leaves a half-written file. */
#ifndef G5_SIM_RESULTS_H
#define G5_SIM_RESULTS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"

#define RESULTS_ERROR (results_error_quark())
GQuark results_error_quark(void);
enum results_error_code {
	RESULTS_ERROR_SIM,  /* a point could not be simulated */
	RESULTS_ERROR_IO,   /* a file could not be written or read */
	RESULTS_ERROR_FORMAT, /* a results file without the expected tables */
};

enum rcol_type { RC_STR, RC_I64, RC_F64 };

struct rcol {
	char *name;          /* owned */
	enum rcol_type type;
	bool wall;           /* wall-clock: left out of the CSV (not deterministic) */
	GPtrArray *s;        /* RC_STR: of char *, owned */
	GArray *v;           /* RC_I64: of int64_t; RC_F64: of double */
};

struct rtable {
	char *name;          /* owned: "results", "steps", "channels", "summary" */
	GPtrArray *cols;     /* of struct rcol *, owned */
	guint nrows;
};

struct rtable *rtable_new(const char *name);
void rtable_free(struct rtable *t);
/* Adds an empty column and returns it (rows are appended per column). */
struct rcol *rtable_add(struct rtable *t, const char *name, enum rcol_type type);
struct rcol *rtable_col(const struct rtable *t, const char *name); /* NULL if absent */
double rcol_num(const struct rcol *c, guint row);      /* numeric value as double */
const char *rcol_str(const struct rcol *c, guint row); /* RC_STR only */

/* What an experiment run produced. */
struct exp_results {
	const struct experiment *e;   /* borrowed */
	struct rtable *results, *steps, *channels;
	struct rtable *summary;       /* NULL with one seed */
	char *host, *date;            /* owned: run metadata */
	GPtrArray *failed;            /* owned: "point N (...): message" of each
				       * point that failed, in point order */
	guint flow_points;            /* points run at flow fidelity */
	guint flow_beyond;            /* of them, those whose ranks forward a message
				       * larger than a link's receive buffer */
	guint flow_switched;          /* of them, those whose messages cross two
				       * switches or more */
};

/* Runs every point on `jobs` threads (0: one per core), each with the
 * limit of events max_events (simulate_job's: 0 the default), drawing a progress
 * bar on stderr when `progress` is set. A point that fails (its run passes
 * the end of the clock, ...) is a row of its own: its results NaN, no
 * steps or channels, and its message in the column `error`, which the
 * results table has only when some point failed; r->failed lists them.
 * The other points are kept. Returns NULL only when no table can be built. */
struct exp_results *exp_run(const struct experiment *e, int jobs, uint64_t max_events,
			    bool progress, GError **error);

/* An experiment's points spread over `size` processes (an MPI sweep): the
 * process of rank `rank` runs the points i with i % size == rank, packs
 * what each gave into a buffer and hands it to gather(), which on rank 0
 * returns every process's buffer in rank order (`all`, of GByteArray *;
 * rank 0's own among them) and elsewhere sends `mine` to rank 0. */
struct exp_share {
	int rank, size;
	bool (*gather)(void *ctx, GByteArray *mine, GPtrArray *all, GError **error);
	void *ctx;
};

/* exp_run() over a share: on rank 0 the results of every point, built as
 * one process builds them (the same tables, byte for byte but for the
 * wall-clock column); on any other rank an exp_results with no tables
 * (results NULL) once its points are handed over. A buffer that does not
 * unpack is an error (RESULTS_ERROR_FORMAT). */
struct exp_results *exp_run_share(const struct experiment *e, int jobs, uint64_t max_events,
				  bool progress, const struct exp_share *share, GError **error);
void exp_results_free(struct exp_results *r);

/* The results table as CSV: header line, one line per row, wall-clock
 * columns left out so that the file is byte-identical across runs. */
bool results_write_csv(const struct exp_results *r, const char *path, GError **error);
/* The same for any table. */
bool rtable_write_csv(const struct rtable *t, const char *path, GError **error);

/* The whole results file (docs/results.md). */
bool results_write_h5(const struct exp_results *r, const char *path, GError **error);

/* An HDF5 file of `tabs` (NULL entries skipped) and the root's string
 * attributes g5_version, g5_commit and attrs[i] = {name, value}, written
 * under a temporary name and renamed: the writer of results_write_h5 and
 * of `g5 workload`'s results. */
bool results_write_tables_h5(const char *path, const char *const (*attrs)[2], size_t nattrs,
			     const struct rtable *const *tabs, size_t ntabs, GError **error);

/* What the reader takes from a results file, checked before it reads: a
 * damaged file may declare anything. */
#define RESULTS_MAX_COLUMNS 4096
#define RESULTS_MAX_ROWS (1 << 27)
#define RESULTS_MAX_STRING (1 << 20) /* bytes of one string; 1024 times that per column */

/* Reads one table (group) of a results file; NULL with error if absent. */
struct rtable *rtable_read_h5(const char *path, const char *table, GError **error);

/* A string attribute of a results file's root ("experiment", "baseline",
 * "sweep", ...), or NULL when absent; g_free() it. */
char *results_read_attr(const char *path, const char *name);

/* Reads what `g5 plot` reads of a results file (the attributes experiment,
 * baseline and sweep, the tables summary and results) and drops it: the
 * work of results_h5_check()'s child. */
void results_h5_read_all(const char *path);

/* Runs results_h5_read_all(path) in a child process (sim/util/child) that
 * gets limit_ms, and says whether it ended: libhdf5 1.10 can crash or loop
 * inside its own code on a damaged file, and that must end the caller with
 * a message, not a signal or a hang. False with an error that names the
 * path and how the child ended (a crash with its signal, the limit). A file
 * that passes may still be refused by the readers, with their message. */
bool results_h5_check(const char *path, guint limit_ms, GError **error);

/* Writes `text` to path through a temporary file and a rename. */
bool results_write_atomic(const char *path, const char *text, gsize len, GError **error);
/* The temporary name the writers use for path (in its directory, hidden,
 * with the process id); g_free() it. */
char *results_tmp_name(const char *path);

#endif
