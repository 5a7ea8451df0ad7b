/* sim/util/child — see child.h. The parent polls waitpid(WNOHANG) until
 * the child ends or the deadline passes, sleeping 100 us at first and twice
 * as long each time up to 10 ms: a short child costs little wait, a long
 * one little polling. */
#include "sim/util/child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

G_DEFINE_QUARK(g5-child-error-quark, child_error)

bool child_run(void (*fn)(void *data), void *data, guint limit_ms, struct child_end *end,
	       GError **error)
{
	int status = 0;
	pid_t pid, got;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		g_set_error(error, CHILD_ERROR, CHILD_ERROR_SYSTEM, "cannot fork: %s",
			    g_strerror(errno));
		return false;
	}
	if (pid == 0) {
		fn(data);
		_exit(0);
	}
	gint64 deadline = g_get_monotonic_time() + (gint64)limit_ms * 1000;
	gulong nap_us = 100;

	for (;;) {
		got = waitpid(pid, &status, WNOHANG);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != 0 || g_get_monotonic_time() >= deadline)
			break;
		g_usleep(nap_us);
		nap_us = MIN(nap_us * 2, 10000);
	}
	end->timed_out = got == 0;
	if (got <= 0) { /* past the limit, or waitpid() failed: it must not live on */
		int err = errno;

		kill(pid, SIGKILL);
		while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (!end->timed_out)
			errno = err;
	}
	if (got < 0) {
		g_set_error(error, CHILD_ERROR, CHILD_ERROR_SYSTEM, "cannot wait for a child: %s",
			    g_strerror(errno));
		return false;
	}
	end->status = status;
	return true;
}

bool child_ok(const struct child_end *end)
{
	return !end->timed_out && WIFEXITED(end->status) && WEXITSTATUS(end->status) == 0;
}
