/* tests/support/sends.c — see sends.h. */
#include "tests/support/sends.h"

#include <glib.h>

struct sends_rx {
	struct sim *s;
	uint64_t last_bytes;
	sim_time_t done_ps;
};

static void sends_deliver(void *user, uint64_t bytes, bool done)
{
	struct sends_rx *r = user;

	g_assert_cmpuint(bytes, >=, r->last_bytes);
	r->last_bytes = bytes;
	if (done)
		r->done_ps = sim_now(r->s);
}

uint64_t sends_run(const struct fabric_config *cfg, const struct send *sends, int k,
		   sim_time_t *done)
{
	struct sim *s = sim_new(1);
	struct fabric *f = fabric_new(s, cfg, NULL);
	g_autofree struct sends_rx *r = g_new0(struct sends_rx, k);
	uint64_t events;

	g_assert_nonnull(f);
	for (int i = 0; i < k; i++) {
		r[i].s = s;
		fabric_send(f, sends[i].src, sends[i].dst, sends[i].bytes, ROUTE_SHORTEST,
			    sends_deliver, &r[i]);
	}
	sim_run(s, SIM_TIME_MAX, UINT64_MAX);
	g_assert_cmpuint(fabric_in_flight(f), ==, 0);
	events = sim_counters(s)->executed;
	for (int i = 0; i < k; i++)
		done[i] = r[i].done_ps;
	fabric_free(f);
	sim_free(s);
	return events;
}
