/* sim/util/child — running a function in a forked child under a time limit.
 *
 * For work done by a library that cannot be trusted with its input (libhdf5
 * 1.10 can crash or loop inside its own code on a damaged file): the child
 * runs the function and exits 0 when it returns, so a crash or a loop ends
 * the child, not the caller, and whatever state the library kept (memory,
 * open objects) dies with it. The caller waits at most limit_ms, then kills
 * the child (SIGKILL) and reaps it: no child outlives child_run(). */
#ifndef G5_SIM_UTIL_CHILD_H
#define G5_SIM_UTIL_CHILD_H

#include <glib.h>
#include <stdbool.h>

#define CHILD_ERROR (child_error_quark())
GQuark child_error_quark(void);
enum child_error_code {
	CHILD_ERROR_SYSTEM, /* fork() or waitpid() failed */
};

/* How a child ended. */
struct child_end {
	bool timed_out; /* killed at the limit; status is then that of SIGKILL */
	int status;     /* waitpid()'s status: WIFEXITED, WEXITSTATUS, WTERMSIG */
};

/* Runs fn(data) in a forked child, which exits with status 0 when fn
 * returns (fn may end it otherwise: _exit() with another status, a
 * signal), and fills *end. Standard streams are flushed first, so that
 * nothing buffered is written twice. Returns false with error set only
 * when no child could be run or waited for. */
bool child_run(void (*fn)(void *data), void *data, guint limit_ms, struct child_end *end,
	       GError **error);

/* Whether the child ran fn to its end (it exited with status 0). */
bool child_ok(const struct child_end *end);

#endif
