/* tests/support/sends.h — messages sent at once on a fabric and run to
 * their end, for the tests of the fabric's fidelities (tests/link). */
#ifndef G5_TESTS_SUPPORT_SENDS_H
#define G5_TESTS_SUPPORT_SENDS_H

#include <stdint.h>

#include "sim/core/sim.h"
#include "sim/link/link.h"

struct send {
	int src, dst;
	uint64_t bytes;
};

/* The k messages of `sends`, sent at once in that order on the fabric of
 * cfg (ROUTE_SHORTEST), run to their end: each one's delivery time in
 * done[] (ps). Asserts that each message's deliveries grow and that
 * nothing is left in flight. Returns the events the run took. */
uint64_t sends_run(const struct fabric_config *cfg, const struct send *sends, int k,
		   sim_time_t *done);

#endif
