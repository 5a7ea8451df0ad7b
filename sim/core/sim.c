/* The engine: a clock, a radix-heap event queue (eq.c), a free list of
 * events allocated in slabs, and a run loop that dispatches each event to its
 * target component's handler. Cancellation is lazy: a cancelled event stays
 * queued, marked, and is recycled when it reaches the head. */
#include "sim/core/sim.h"

#include <glib.h>

#include "sim/core/eq.h"

#define EV_CANCELLED 1u
#define SLAB_EVENTS 4096

struct sim {
	sim_time_t now;
	uint64_t seed;
	uint64_t next_seq;        /* first seq is 1; 0 marks "not pending" */
	uint64_t pending;         /* queued and not cancelled */
	struct eq q;
	struct sim_event *free_list; /* linked through data[0].p */
	GPtrArray *slabs;         /* owned: arrays of SLAB_EVENTS events */
	GHashTable *names;        /* component names, borrowed keys */
	struct sim_counters ctr;
	sim_trace_fn trace;
	void *trace_user;
	bool stop;
};

struct sim *sim_new(uint64_t seed)
{
	struct sim *s = g_new0(struct sim, 1);

	s->seed = seed;
	s->next_seq = 1;
	eq_init(&s->q);
	s->slabs = g_ptr_array_new_with_free_func(g_free);
	s->names = g_hash_table_new(g_str_hash, g_str_equal);
	return s;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	eq_release(&s->q);
	g_ptr_array_unref(s->slabs);
	g_hash_table_unref(s->names);
	g_free(s);
}

void sim_component_init(struct sim *s, struct sim_component *c, const char *name,
			sim_handler_fn handler)
{
	g_assert(handler && name);
	if (!g_hash_table_add(s->names, (gpointer)name))
		g_error("sim: two components named '%s'", name);
	c->handler = handler;
	c->name = name;
	sim_rng_seed(&c->rng, s->seed, sim_rng_key(name));
}

sim_time_t sim_now(const struct sim *s)
{
	return s->now;
}

uint64_t sim_seed(const struct sim *s)
{
	return s->seed;
}

static __attribute__((noinline)) void grow_free_list(struct sim *s)
{
	struct sim_event *slab = g_new(struct sim_event, SLAB_EVENTS);

	g_ptr_array_add(s->slabs, slab);
	for (int i = SLAB_EVENTS - 1; i >= 0; i--) {
		slab[i].seq = 0;
		slab[i].data[0].p = s->free_list;
		s->free_list = &slab[i];
	}
}

static inline void release_event(struct sim *s, struct sim_event *ev)
{
	ev->seq = 0;
	ev->data[0].p = s->free_list;
	s->free_list = ev;
}

struct sim_event *sim_schedule(struct sim *s, sim_time_t delay_ps,
			       struct sim_component *target, uint32_t type)
{
	if (G_UNLIKELY(delay_ps > SIM_TIME_MAX - s->now))
		g_error("sim: event at now %" G_GUINT64_FORMAT " + delay %" G_GUINT64_FORMAT
			" ps overflows the clock", s->now, delay_ps);
	if (G_UNLIKELY(!s->free_list))
		grow_free_list(s);
	struct sim_event *ev = s->free_list;

	s->free_list = ev->data[0].p;
	ev->time = s->now + delay_ps;
	ev->seq = s->next_seq++;
	ev->target = target;
	ev->type = type;
	ev->flags = 0;
	ev->data[0].p = NULL;
	eq_push(&s->q, ev->time, ev);
	s->ctr.scheduled++;
	if (++s->pending > s->ctr.peak_pending)
		s->ctr.peak_pending = s->pending;
	return ev;
}

struct sim_event_ref sim_event_ref(const struct sim_event *ev)
{
	return (struct sim_event_ref){ .ev = (struct sim_event *)ev, .seq = ev->seq };
}

bool sim_cancel(struct sim *s, struct sim_event_ref ref)
{
	struct sim_event *ev = ref.ev;

	if (!ev || ref.seq == 0 || ev->seq != ref.seq || (ev->flags & EV_CANCELLED))
		return false;
	ev->flags |= EV_CANCELLED;
	s->pending--;
	s->ctr.cancelled++;
	return true;
}

enum sim_run_result sim_run(struct sim *s, sim_time_t until, uint64_t max_events)
{
	uint64_t done = 0;

	s->stop = false;
	for (;;) {
		if (done >= max_events)
			return SIM_RUN_LIMIT;
		struct sim_event *ev = eq_pop_until(&s->q, until);

		if (!ev) {
			if (eq_len(&s->q) == 0)
				return SIM_RUN_EMPTY;
			if (until > s->now)
				s->now = until;
			return SIM_RUN_UNTIL;
		}
		if (ev->flags & EV_CANCELLED) {
			release_event(s, ev);
			continue;
		}
		s->now = ev->time;
		s->pending--;
		if (s->trace)
			s->trace(s->trace_user, ev);
		ev->target->handler(s, ev->target, ev);
		release_event(s, ev);
		s->ctr.executed++;
		done++;
		if (s->stop)
			return SIM_RUN_STOPPED;
	}
}

void sim_stop(struct sim *s)
{
	s->stop = true;
}

uint64_t sim_pending(const struct sim *s)
{
	return s->pending;
}

const struct sim_counters *sim_counters(const struct sim *s)
{
	return &s->ctr;
}

void sim_set_trace(struct sim *s, sim_trace_fn fn, void *user)
{
	s->trace = fn;
	s->trace_user = user;
}
