/* sim/algos/schedule_file — the schedule file: a versioned, line-oriented
 * text form of struct sched, the contract between the simulator, the
 * verifier and the CUDA executor (gpu/). docs/schedule-format.md defines
 * it; in short:
 *
 *   g5-schedule 1
 *   collective allreduce
 *   ... header keys ...
 *   rank 0 in 0 8 out 0 8 ops 15
 *   op 0 send transfer 0 0 -1 1 in:7 - 1 -
 *   ...
 *   end
 *
 * Writing then reading gives a schedule equal to the original
 * (sched_equal). The reader rejects damaged files with SCHED_ERROR_PARSE
 * and a message "NAME:LINE: what is wrong". It checks syntax, ranges (peers,
 * windows, lanes), deps that point to earlier ops and the header's step and
 * lane counts; whether the schedule computes its collective is the
 * verifier's business. */
#ifndef G5_SIM_ALGOS_SCHEDULE_FILE_H
#define G5_SIM_ALGOS_SCHEDULE_FILE_H

#include <glib.h>
#include <stdbool.h>

#include "sim/algos/schedule.h"

#define SCHED_FILE_VERSION 1

/* What a file may ask of memory, checked as it is read ("NAME:LINE:"):
 * the text itself, `units` and `scratch` (each a cell of every rank's
 * buffers for the verifier), `steps` (a row per rank and step in a run's
 * table), and, over all ranks, the verifier's cells (windows and scratch,
 * each 8 bytes per 64 ranks plus 8) and the run's step rows (32 bytes). The
 * schedules g5 writes for up to 1024 ranks (ring, nchunks 8: 1 GB of text)
 * are below every one; a ring of 4096 ranks and nchunks 1 is close to the
 * text's cap. */
#define SCHED_FILE_MAX_BYTES ((gsize)2 << 30)
#define SCHED_MAX_UNITS (1u << 24)
#define SCHED_MAX_STEPS (1u << 24)
#define SCHED_MAX_VERIFY_BYTES ((uint64_t)4 << 30)
#define SCHED_MAX_STEP_ROWS ((uint64_t)1 << 27)

/* The file text of s; g_free() it. */
char *sched_file_format(const struct sched *s);

/* Writes s to path ("-": stdout) through a temporary file renamed into
 * place, so a reader never sees half a file. */
bool sched_file_write(const struct sched *s, const char *path, GError **error);

/* Parses `len` bytes of text; `name` is used in messages. When op_lines is
 * not NULL it receives (owned by the caller) the line number of every op,
 * rank by rank (uint32_t, rank r's op i at index sum of earlier ranks' op
 * counts + i). Returns NULL with error on a damaged file. */
struct sched *sched_file_parse(const char *text, size_t len, const char *name,
			       GArray **op_lines, GError **error);

/* Reads path ("-": stdin, named "<stdin>" in messages; at most
 * SCHED_FILE_MAX_BYTES) and parses it. */
struct sched *sched_file_load(const char *path, GArray **op_lines, GError **error);

#endif
