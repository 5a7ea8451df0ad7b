/* tests/support/perm.h — a permutation of messages in flight on a fabric,
 * for the bisection tests (tests/link): each message's completion callback
 * counts it down and stamps the time the last one landed. */
#ifndef G5_TESTS_SUPPORT_PERM_H
#define G5_TESTS_SUPPORT_PERM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/sim.h"

struct perm {
	int left;        /* messages not yet delivered */
	sim_time_t last; /* when the last one landed, ps */
	struct sim *s;   /* borrowed */
};

/* A fabric completion callback; `user` is the struct perm. */
void perm_done(void *user, uint64_t bytes, bool done);

#endif
