/* sim/core — the discrete-event engine of G5.
 *
 * A `struct sim` owns a clock, a pending-event queue, a free list of events and
 * the counters of one simulation. Nothing here is global: independent
 * simulations may run on parallel threads, one `struct sim` each.
 *
 * Invariants:
 *  - time is integer picoseconds (`sim_time_t`) and never goes backwards;
 *  - events pop in non-decreasing (time, seq) order, where seq is the order in
 *    which they were scheduled: ties are FIFO, so a run is bit-for-bit
 *    deterministic for a given input and seed;
 *  - scheduling takes a delay relative to now: the past cannot be reached;
 *  - an event belongs to the engine; a handler may read it and schedule new
 *    events, but must not keep a pointer to it after it returns.
 *
 * Components (links, CDMA units, ranks, ...) embed a `struct sim_component`,
 * which names the handler that receives their events (it dispatches on the
 * event type) and owns the component's RNG stream. */
#ifndef G5_SIM_CORE_SIM_H
#define G5_SIM_CORE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/rng.h"

typedef uint64_t sim_time_t; /* picoseconds */

#define SIM_TIME_MAX UINT64_MAX
/* The end of the clock: no event may be scheduled at or after 2^63 ps (about
 * 106.75 days of simulated time). Half the range of sim_time_t, so that a
 * time below it plus any delay below it never wraps, wherever a layer adds
 * them before it schedules. */
#define SIM_TIME_END ((sim_time_t)1 << 63)
#define SIM_PS(x) ((sim_time_t)(x))
#define SIM_NS(x) ((sim_time_t)(x) * 1000u)
#define SIM_US(x) ((sim_time_t)(x) * 1000000u)
#define SIM_MS(x) ((sim_time_t)(x) * 1000000000u)

struct sim;
struct sim_event;
struct sim_component;

/* A handler receives every event whose target is its component; it switches on
 * ev->type and aborts on a type it does not know. */
typedef void (*sim_handler_fn)(struct sim *s, struct sim_component *self,
			       struct sim_event *ev);

struct sim_component {
	sim_handler_fn handler; /* never NULL */
	const char *name;       /* borrowed: must outlive the sim; unique per sim */
	struct sim_rng rng;     /* this component's own stream */
	uint32_t hot_lines;     /* 64-byte lines from its start that its handler
				 * reads on every event: the engine prefetches
				 * them a few events ahead (2 unless set after
				 * sim_component_init; at most 8) */
};

/* The payload: four words for the target's handler to interpret. */
union sim_word {
	uint64_t u;
	int64_t i;
	void *p;
};

struct sim_event {
	sim_time_t time;              /* absolute firing time, ps */
	uint64_t seq;                 /* scheduling order; 0 when not pending */
	struct sim_component *target; /* borrowed */
	uint32_t type;                /* interpreted by target->handler */
	uint32_t flags;               /* engine-private, but for SIM_EV_PREFETCH_DATA */
	union sim_word data[4];       /* payload, the caller's to fill */
};

/* An event flag its scheduler may set: data[0].p points at what its handler
 * reads first (or is NULL), and the engine prefetches that line a few events
 * before the event fires, as it does the target's hot lines. */
#define SIM_EV_PREFETCH_DATA 4u

/* Identifies one pending event for cancellation; stays safe to use after the
 * event has fired (cancel then answers false). */
struct sim_event_ref {
	struct sim_event *ev;
	uint64_t seq;
};

enum sim_run_result {
	SIM_RUN_EMPTY,   /* no pending event left; now == until unless
			  * until is SIM_TIME_MAX (then: the last event's time) */
	SIM_RUN_UNTIL,   /* next event lies after `until`; now == until */
	SIM_RUN_LIMIT,   /* the event-count limit was reached */
	SIM_RUN_STOPPED, /* a handler called sim_stop() */
	SIM_RUN_OVERFLOW, /* an event was scheduled past the clock's end: the
			   * run stopped there and cannot go on */
};

struct sim_counters {
	uint64_t executed;  /* events dispatched to a handler */
	uint64_t scheduled; /* events scheduled */
	uint64_t cancelled; /* events cancelled before they fired */
	uint64_t peak_pending;
};

/* Called before each dispatch when set (event logs, digests, tracing). */
typedef void (*sim_trace_fn)(void *user, const struct sim_event *ev);

/* Creates a simulation at time 0. `seed` keys every component's RNG stream. */
struct sim *sim_new(uint64_t seed);
void sim_free(struct sim *s);

/* Registers a component: sets its handler and name and seeds its RNG stream
 * from (sim seed, name), so one component's draws never shift another's. The
 * component stays owned by the caller and must outlive the sim's run. Two
 * components of one sim may not share a name (aborts). */
void sim_component_init(struct sim *s, struct sim_component *c, const char *name,
			sim_handler_fn handler);

/* The clock: the first member of struct sim (sim.c), so that sim_now(),
 * which every layer calls on most events, reads it inline. */
struct sim_clock {
	sim_time_t now;
};

static inline sim_time_t sim_now(const struct sim *s)
{
	return ((const struct sim_clock *)(const void *)s)->now;
}
uint64_t sim_seed(const struct sim *s);

/* Schedules an event of `type` for `target` at now + delay_ps and returns it so
 * that the caller fills ev->data (the engine owns it). When now + delay_ps
 * would reach SIM_TIME_END the clock has overflowed: the event never fires
 * (it is returned cancelled), sim_overflowed() turns true for good, and the
 * run stops after the current event with SIM_RUN_OVERFLOW. A simulation
 * whose time runs past the clock is a user's input (a very slow link, a huge
 * size, heavy loss), not a programming error. */
struct sim_event *sim_schedule(struct sim *s, sim_time_t delay_ps,
			       struct sim_component *target, uint32_t type);

/* A cancellation reference to a pending event. Inline: flows take one for
 * most events they schedule. */
static inline struct sim_event_ref sim_event_ref(const struct sim_event *ev)
{
	return (struct sim_event_ref){ .ev = (struct sim_event *)ev, .seq = ev->seq };
}

/* Cancels a pending event: it will not fire. Returns false if it has already
 * fired or been cancelled. */
bool sim_cancel(struct sim *s, struct sim_event_ref ref);

/* Runs events in (time, seq) order until none is left, the next one lies
 * after `until` (time then stands at `until`, also when the queue ran dry), `max_events` have been
 * dispatched by this call, or a handler calls sim_stop(). Pass SIM_TIME_MAX
 * and UINT64_MAX for no limit. */
enum sim_run_result sim_run(struct sim *s, sim_time_t until, uint64_t max_events);

/* Asks the running sim_run() to return after the current event. */
void sim_stop(struct sim *s);

/* True once an event was scheduled past SIM_TIME_END (see sim_schedule). */
bool sim_overflowed(const struct sim *s);

/* Pending events that will fire (cancelled ones not counted). */
uint64_t sim_pending(const struct sim *s);
const struct sim_counters *sim_counters(const struct sim *s);

void sim_set_trace(struct sim *s, sim_trace_fn fn, void *user);

#endif
