/* sim/measured — reading measured collective timings as users have them.
 *
 * One call reads one file into points: (collective, algorithm, ranks, bytes,
 * dtype, placement, mode, ...) -> time in microseconds. Four formats, told
 * apart by their content, never by the file's name:
 *   nccl-tests   the output of nccl-tests' *_perf binaries as printed: the
 *                '# Collective test starting: NAME' line names the
 *                collective, the '#  Rank' lines give the ranks (and, by
 *                their distinct Pids, mode mpi or single); each table row
 *                gives an out-of-place and an in-place point.
 *   g5x-log      the stdout of the executor (gpu/g5x.cu): the same table
 *                layout, under '# g5x IMPL: ...' and '# mode ...' headers,
 *                many tables in one log.
 *   g5x-csv      the executor's --csv file, old (14 columns) or new (20).
 *   plain-csv    collective,ranks,bytes,dtype,time_us[,impl,algo,mode,
 *                inplace,nchunks] for data from anywhere else.
 * Every point names its file and line. Invariants of a point: time_us > 0
 * and finite, 1 <= ranks <= MEASURED_MAX_RANKS, bytes a whole number of
 * elements, nchunks >= 1, root -1 or a rank; every string is interned
 * (g_intern_string: it lives as long as the process, and == compares) and,
 * but for `file`, made only of letters, digits and "_.+-", so that it can
 * reach a plot or a shell unharmed.
 *
 * A file is all or nothing: anything wrong in it (a damaged row, an unknown
 * name, a measurement whose #wrong is not 0) fails the whole file with
 * "FILE:LINE: message", FILE as given, and no point of it is kept. Values
 * quoted in messages are escaped and cut short, so hostile bytes never
 * reach a terminal raw. */
#ifndef G5_SIM_MEASURED_H
#define G5_SIM_MEASURED_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/algos/schedule.h"
#include "sim/core/limits.h"
#include "sim/config.h"

#define MEASURED_ERROR (measured_error_quark())
GQuark measured_error_quark(void);
enum measured_error_code {
	MEASURED_ERROR_IO,    /* the file could not be read */
	MEASURED_ERROR_PARSE, /* not a measured file, or a damaged one */
	MEASURED_ERROR_WRONG, /* a measurement that failed its check (#wrong > 0) */
};

#define MEASURED_MAX_FILE_BYTES (64u << 20)
#define MEASURED_MAX_POINTS 1000000u
#define MEASURED_MAX_RANKS G5_MAX_RANKS

struct measured_point {
	const char *file;     /* interned: the path as given */
	uint32_t line;        /* 1-based line of the row */
	const char *format;   /* interned: "nccl-tests", "g5x-log", "g5x-csv", "plain-csv" */
	const char *impl;     /* interned: "nccl" or "g5" (the executor) */
	enum coll coll;
	const char *algo;     /* interned: the schedule's algorithm; "nccl" for impl nccl */
	int ranks;            /* 1..MEASURED_MAX_RANKS */
	uint64_t bytes;       /* nccl-tests' size column (docs/design.md "Sizes and metrics") */
	enum dtype dtype;
	bool inplace;
	const char *mode;     /* interned: "single" (one process) or "mpi" (one per GPU) */
	uint32_t nchunks;     /* >= 1 */
	const char *schedule; /* interned: the schedule file's base name, or "-" */
	const char *timer;    /* interned: "wall", "events" (CUDA events) or "cputime" (nccl-tests -C) */
	const char *proto;    /* interned, as written: "auto", "LL", "LL128", "Simple", "simple", ...;
			       * default "auto" for nccl, "simple" for g5 */
	const char *engine;   /* interned: "sm" unless the file says otherwise */
	int root;             /* broadcast, reduce, p2p root; -1 when none */
	uint32_t launches;    /* calls back to back that the time averages (nccl-tests'
			       * iters x agg iters, g5x's iters); 1: one call alone */
	double time_us;       /* > 0 */
};

/* Reads one measured file (its format detected from its content) and
 * appends its points to `out` (a GArray of struct measured_point). Returns
 * false with "FILE:LINE: message" (or "FILE: message") in `error`, and
 * appends nothing, when the file cannot be read (larger than
 * MEASURED_MAX_FILE_BYTES included), is not a measured file, holds anything
 * wrong, holds no point at all, or more than MEASURED_MAX_POINTS. */
bool measured_read(const char *path, GArray *out, GError **error);

/* The same from `len` bytes of text in memory (not NUL-terminated, may hold
 * any bytes); `path` names it in the points and messages. */
bool measured_parse(const char *path, const char *text, size_t len, GArray *out,
		    GError **error);

#endif
