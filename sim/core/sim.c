/* The engine: a clock, a radix-heap event queue (eq.c), a free list of
 * events allocated in slabs, and a run loop that dispatches each event to its
 * target component's handler. Cancellation is lazy: a cancelled event stays
 * queued, marked, and is recycled when it reaches the head.
 *
 * Events are 64 bytes and slabs are aligned to a cache line, so an event is
 * one line. The first 2 MiB of events come in slabs of 64 KiB, so that a run
 * holds at most 64 KiB of events more than it ever had pending (a flow ring
 * keeps about two events per rank pending: a doubling slab would hold up to
 * as many again); later slabs are of 2 MiB, aligned to 2 MiB and offered to
 * the OS as huge pages: with a million events pending, each dispatch touches
 * a random event, and small pages would make most of those touches a TLB
 * miss as well as a cache miss. */
#include "sim/core/sim.h"

#include <glib.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "sim/core/eq.h"

#define EV_CANCELLED 1u
#define EV_FIRING 2u    /* being handled: too late to cancel */
G_STATIC_ASSERT(((EV_CANCELLED | EV_FIRING) & SIM_EV_PREFETCH_DATA) == 0);
#define SLAB_BYTES_FIRST ((size_t)64 << 10)
#define SLAB_BYTES_LATER ((size_t)2 << 20)
G_STATIC_ASSERT(SLAB_BYTES_LATER % SLAB_BYTES_FIRST == 0);

G_STATIC_ASSERT(sizeof(struct sim_event) == 64);

struct sim {
	/* hot: read or written by every schedule and dispatch */
	struct sim_clock clock;   /* first: sim_now() reads it (sim.h) */
	uint64_t next_seq;        /* first seq is 1; 0 marks "not pending" */
	uint64_t pending;         /* queued and not cancelled */
	uint64_t run_end;         /* sim_run stops when ctr.executed reaches it */
	struct sim_event *free_list; /* linked through data[0].p */
	struct sim_counters ctr;
	sim_trace_fn trace;
	void *trace_user;
	bool stop;
	bool overflowed;          /* an event was scheduled past SIM_TIME_END */
	/* cold */
	uint64_t seed;
	GPtrArray *slabs;         /* owned: event arrays, free()d */
	GHashTable *names;        /* component names, borrowed keys */
	struct eq q;              /* its hot part first */
};

G_STATIC_ASSERT(offsetof(struct sim, clock) == 0);

struct sim *sim_new(uint64_t seed)
{
	struct sim *s = g_new0(struct sim, 1);

	s->seed = seed;
	s->next_seq = 1;
	eq_init(&s->q);
	s->slabs = g_ptr_array_new_with_free_func(free);
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
	c->hot_lines = 2;
	sim_rng_seed(&c->rng, s->seed, sim_rng_key(name));
}

uint64_t sim_seed(const struct sim *s)
{
	return s->seed;
}

static __attribute__((noinline)) void grow_free_list(struct sim *s)
{
	bool huge = s->slabs->len >= SLAB_BYTES_LATER / SLAB_BYTES_FIRST;
	size_t n = (huge ? SLAB_BYTES_LATER : SLAB_BYTES_FIRST) / sizeof(struct sim_event);
	void *mem = NULL;

	if (posix_memalign(&mem, huge ? SLAB_BYTES_LATER : 64, n * sizeof(struct sim_event)))
		g_error("sim: out of memory for %zu events", n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (huge)
		(void)madvise(mem, n * sizeof(struct sim_event), MADV_HUGEPAGE); /* a hint */
#endif
	struct sim_event *slab = mem;

	g_ptr_array_add(s->slabs, slab);
	for (size_t i = n; i-- > 0;) {
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

static inline struct sim_event *take_event(struct sim *s, sim_time_t time,
					   struct sim_component *target, uint32_t type)
{
	struct sim_event *ev = s->free_list;

	s->free_list = ev->data[0].p;
	ev->time = time;
	ev->seq = s->next_seq++;
	ev->target = target;
	ev->type = type;
	ev->flags = 0;
	ev->data[0].p = NULL;
	s->ctr.scheduled++;
	if (++s->pending > s->ctr.peak_pending)
		s->ctr.peak_pending = s->pending;
	return ev;
}

/* sim_schedule when anything is out of the ordinary: the clock would
 * overflow, the free list or the event's bucket is full, or that bucket is a
 * sorted level-0 one (eq.h). Out of line, so that the common path saves no
 * registers. */
static __attribute__((noinline)) struct sim_event *
schedule_slow(struct sim *s, sim_time_t delay_ps, struct sim_component *target, uint32_t type)
{
	if (!s->free_list)
		grow_free_list(s);
	if (delay_ps >= SIM_TIME_END - s->clock.now) {
		/* past the clock: an event that is never queued and never fires
		 * (its slab is freed with the sim), and the run ends here */
		struct sim_event *dead = s->free_list;

		s->free_list = dead->data[0].p;
		dead->time = SIM_TIME_END;
		dead->seq = s->next_seq++;
		dead->target = target;
		dead->type = type;
		dead->flags = EV_CANCELLED;
		dead->data[0].p = NULL;
		s->overflowed = true;
		sim_stop(s);
		return dead;
	}
	struct sim_event *ev = take_event(s, s->clock.now + delay_ps, target, type);

	eq_push(&s->q, ev->time, ev);
	return ev;
}

struct sim_event *sim_schedule(struct sim *s, sim_time_t delay_ps,
			       struct sim_component *target, uint32_t type)
{
	sim_time_t time = s->clock.now + delay_ps;
	unsigned j = eq_bucket_of(s->q.last, time);

	/* time < s->q.last cannot happen (the clock never falls below the
	 * queue's last key) but would break the queue's order: checked. Both
	 * now and a delay below SIM_TIME_END cannot wrap, so one test of
	 * (time | delay) finds every time past the clock. */
	if (G_UNLIKELY((time | delay_ps) >= SIM_TIME_END || time < s->q.last || !s->free_list ||
		       !eq_can_put(&s->q, j)))
		return schedule_slow(s, delay_ps, target, type);
	struct sim_event *ev = take_event(s, time, target, type);

	eq_put(&s->q, j, time, ev);
	return ev;
}

bool sim_cancel(struct sim *s, struct sim_event_ref ref)
{
	struct sim_event *ev = ref.ev;

	if (!ev || ref.seq == 0 || ev->seq != ref.seq || (ev->flags & (EV_CANCELLED | EV_FIRING)))
		return false;
	ev->flags |= EV_CANCELLED;
	s->pending--;
	s->ctr.cancelled++;
	return true;
}

enum sim_run_result sim_run(struct sim *s, sim_time_t until, uint64_t max_events)
{
	/* One bound serves both the event-count limit and sim_stop(), which
	 * sets it to 0: the loop tests a single condition per event. */
	uint64_t start = s->ctr.executed;

	if (s->overflowed)
		return SIM_RUN_OVERFLOW;
	s->run_end = max_events > UINT64_MAX - start ? UINT64_MAX : start + max_events;
	s->stop = false;
	while (s->ctr.executed < s->run_end) {
		struct sim_event *ev = eq_pop_until(&s->q, until);

		if (G_UNLIKELY(!ev)) {
			bool empty = eq_empty(&s->q);

			/* a bounded run leaves the clock at `until` */
			if (until != SIM_TIME_MAX && until > s->clock.now)
				s->clock.now = until;
			return empty ? SIM_RUN_EMPTY : SIM_RUN_UNTIL;
		}
		if (G_UNLIKELY(ev->flags & EV_CANCELLED)) {
			release_event(s, ev);
			continue;
		}
		s->clock.now = ev->time;
		s->pending--;
		if (G_UNLIKELY(s->trace != NULL))
			s->trace(s->trace_user, ev);
		struct sim_component *c = ev->target;

		ev->flags |= EV_FIRING;
		c->handler(s, c, ev);
		release_event(s, ev);
		s->ctr.executed++;
	}
	return s->overflowed ? SIM_RUN_OVERFLOW : s->stop ? SIM_RUN_STOPPED : SIM_RUN_LIMIT;
}

bool sim_overflowed(const struct sim *s)
{
	return s->overflowed;
}

void sim_stop(struct sim *s)
{
	s->stop = true;
	s->run_end = 0;
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
