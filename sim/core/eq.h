/* sim/core/eq — the pending-event queue: a monotone radix-256 heap.
 *
 * A discrete-event simulation never schedules before the current time, so keys
 * are monotone and a radix heap applies. With `last` the current minimum, a
 * key k sits in level L = the highest byte in which k differs from last (0 when
 * equal) and, in that level, in the bucket of k's byte L. Level-0 buckets hold
 * one exact time each. Push is O(1); an entry moves down at most once per
 * level, by sequential copies, so a pop is amortised O(1) for the key spans a
 * simulation sees, with millions pending.
 *
 * Order: entries pop in (time, seq) order. Every bucket is kept in seq order:
 * a push appends the newest seq, and a refill splits one bucket, in order, into
 * lower levels that are all empty at that moment.
 *
 * Invariant: every key pushed is >= the last popped key (eq_push asserts). */
#ifndef G5_SIM_CORE_EQ_H
#define G5_SIM_CORE_EQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_event;

struct eq_entry {
	uint64_t time;        /* copy of ev->time, ps */
	struct sim_event *ev; /* borrowed: the sim's free list owns it */
};

struct eq_bucket {
	struct eq_entry *v; /* owned */
	uint32_t head, len, cap; /* entries v[head..len) are live */
};

#define EQ_LEVELS 8
#define EQ_WIDTH 256

struct eq {
	struct eq_bucket b[EQ_LEVELS][EQ_WIDTH];
	uint64_t bits[EQ_LEVELS][EQ_WIDTH / 64]; /* non-empty buckets */
	uint32_t words;   /* bit 4L+w set when bits[L][w] != 0 */
	uint64_t last;    /* every queued key is >= last */
	size_t len;       /* entries queued */
};

void eq_init(struct eq *q);
void eq_release(struct eq *q);

void eq_push(struct eq *q, uint64_t time, struct sim_event *ev);

/* Removes and returns the smallest (time, seq) entry if its time is <= until;
 * NULL when the queue is empty or its smallest time lies after until (the heap
 * then stays as it was, so later pushes before that time are fine). */
struct sim_event *eq_pop_until(struct eq *q, uint64_t until);

static inline size_t eq_len(const struct eq *q)
{
	return q->len;
}

#endif
