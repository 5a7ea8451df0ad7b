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
 * The 8 x 256 buckets are numbered j = 256 L + byte, so that one 64-bit word
 * of the bitmap `bits` covers buckets j = 64 w .. 64 w + 63 and bit w of
 * `words` says whether bits[w] is non-zero: the lowest non-empty bucket is two
 * count-trailing-zeros away, and emptying it clears the lowest set bit of
 * each. A pop takes the head of that bucket when it lies in level 0 or holds
 * one entry (a lone entry in the lowest bucket is the minimum); only a bucket
 * of several entries above level 0 is split (refilled) into the lower levels,
 * out of line. Entries carry a copy of the key, so refills never touch events.
 *
 * Order: entries pop in (time, seq) order. Every bucket is kept in seq order:
 * a push appends the newest seq, and a refill splits one bucket, in order, into
 * lower levels that are all empty at that moment. Level-0 buckets are read
 * from a head index (head0), since pushes at the current time may append to
 * the bucket being popped; buckets above level 0 are only ever emptied whole.
 *
 * Invariant: every key pushed is >= the last popped key (eq_push asserts). */
#ifndef G5_SIM_CORE_EQ_H
#define G5_SIM_CORE_EQ_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_event;

struct eq_entry {
	uint64_t time;        /* copy of ev->time, ps */
	struct sim_event *ev; /* borrowed: the sim's free list owns it */
};

struct eq_bucket {
	struct eq_entry *v; /* owned; entries v[0..len) (level 0: v[head0..len)) */
	uint32_t len, cap;
};

#define EQ_LEVELS 8
#define EQ_WIDTH 256
#define EQ_BUCKETS (EQ_LEVELS * EQ_WIDTH)

struct eq {
	uint32_t words;                   /* bit w set when bits[w] != 0 */
	uint64_t last;                    /* every queued key is >= last */
	uint32_t pf;                      /* level-0 buckets < pf prefetched */
	uint64_t bits[EQ_BUCKETS / 64];   /* bit j set: bucket j non-empty */
	uint32_t head0[EQ_WIDTH];         /* first live entry of level-0 buckets */
	struct eq_bucket b[EQ_BUCKETS];   /* bucket j = 256 * level + byte */
};

void eq_init(struct eq *q);
void eq_release(struct eq *q);

/* Out of line: splits bucket j (above level 0, several entries, the lowest
 * non-empty one) into the levels below. Returns false, leaving the heap as it
 * was, when the bucket's lower bound lies after until. */
bool eq_refill(struct eq *q, unsigned j, uint64_t until);

/* The bucket of a key: its level is the highest byte in which it differs from
 * last (x | 1: 0 when equal, without a branch), its byte there the index. */
static inline unsigned eq_bucket_of(uint64_t last, uint64_t time)
{
	unsigned level = ((unsigned)__builtin_clzll((time ^ last) | 1) ^ 63u) >> 3;

	return level << 8 | ((unsigned)(time >> (level * 8)) & (EQ_WIDTH - 1));
}

/* Appends (time, ev) to bucket j, which has room. */
static inline void eq_put(struct eq *q, unsigned j, uint64_t time, struct sim_event *ev)
{
	struct eq_bucket *b = &q->b[j];
	struct eq_entry *e = &b->v[b->len++];

	e->time = time;
	e->ev = ev;
	q->bits[j >> 6] |= 1ull << (j & 63);
	q->words |= 1u << (j >> 6);
}

static inline bool eq_has_room(const struct eq *q, unsigned j)
{
	return q->b[j].len < q->b[j].cap;
}

/* Queues ev at time (>= the last popped key). */
void eq_push(struct eq *q, uint64_t time, struct sim_event *ev);

/* Level-0 buckets filled by a large refill are not prefetched at once (a
 * burst of hundreds of misses stalls the core) but EQ_AHEAD buckets ahead
 * of the one popped; pf is the cursor, EQ_WIDTH when nothing is pending. */
#define EQ_AHEAD 16

static inline void eq_prefetch_ahead(struct eq *q, unsigned d)
{
	unsigned to = d + EQ_AHEAD < EQ_WIDTH ? d + EQ_AHEAD : EQ_WIDTH;
	unsigned p = q->pf > d ? q->pf : d + 1;

	for (; p < to; p++) {
		const struct eq_bucket *b = &q->b[p];

		for (uint32_t k = q->head0[p]; k < b->len; k++)
			__builtin_prefetch(b->v[k].ev);
	}
	q->pf = p;
}

/* Removes and returns the smallest (time, seq) entry if its time is <= until;
 * NULL when the queue is empty or its smallest time lies after until (the heap
 * then stays as it was, so later pushes before that time are fine). */
static inline struct sim_event *eq_pop_until(struct eq *q, uint64_t until)
{
	for (;;) {
		uint32_t words = q->words;

		if (G_UNLIKELY(!words))
			return NULL;
		unsigned w = (unsigned)__builtin_ctz(words);
		uint64_t word = q->bits[w];
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(word);
		struct eq_bucket *b = &q->b[j];
		uint32_t h = 0;

		if (j < EQ_WIDTH) {
			h = q->head0[j];
			if (q->pf < EQ_WIDTH)
				eq_prefetch_ahead(q, j);
		} else if (b->len != 1) {
			if (!eq_refill(q, j, until))
				return NULL;
			continue;
		}
		struct eq_entry *e = &b->v[h];

		if (e->time > until)
			return NULL;
		q->last = e->time;
		if (h + 1 == b->len) {
			/* The bucket empties: it is the lowest set bit of
			 * bits[w], and w the lowest of words. */
			b->len = 0;
			if (j < EQ_WIDTH)
				q->head0[j] = 0;
			word &= word - 1;
			q->bits[w] = word;
			if (!word)
				q->words = words & (words - 1);
		} else {
			q->head0[j] = h + 1;
			__builtin_prefetch(e[1].ev);
		}
		return e->ev;
	}
}

static inline bool eq_empty(const struct eq *q)
{
	return q->words == 0;
}

#endif
