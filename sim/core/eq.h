/* sim/core/eq — the pending-event queue: a monotone radix heap whose lowest
 * level holds small ranges of times, sorted when they are reached.
 *
 * A discrete-event simulation never schedules before the current time, so keys
 * are monotone and a radix heap applies. With `last` the current minimum, a
 * key k sits in the level of the highest byte in which k differs from last:
 * level 0 when k differs from last only in bits 0..15, else level L = byte - 1
 * for bytes 2..7 (levels 1..6). Level 0 has 256 buckets of 256 ps each, indexed
 * by bits 8..15; a bucket of level L >= 1 is indexed by byte L + 1 of k. Push
 * is O(1); an entry moves down at most once per level, by sequential copies,
 * so a pop is amortised O(1) for the key spans a simulation sees, with millions
 * pending. Delays of about a microsecond (2^20 ps) land in level 1 and move
 * once, into level 0, before they pop.
 *
 * Level-0 buckets below `unsorted` are kept sorted by (time, seq); those at or
 * above it hold entries in seq order, appended, and are sorted, stably by
 * time, when they become the lowest non-empty bucket, which moves `unsorted`
 * past them (by insertion when small; when large, by counting their 256
 * possible low bytes unless one reading pass finds them in order already,
 * as the appends of ranks acting in step usually are). Lowering `unsorted`
 * is always allowed: a sorted bucket is a valid unsorted one. A push into a
 * sorted bucket inserts in place: into the current one (that of last)
 * always, moving only the entries due after it within those 256 ps; into
 * another only while it holds few entries, else `unsorted` drops to it. A refill into level 0 of few entries
 * (the usual case) inserts each in place, so that the pops never sort
 * (unsorted = 256); one of many appends them (unsorted = 0).
 *
 * The 7 x 256 buckets are numbered j = 256 L + index, so that one 64-bit word
 * of the bitmap `bits` covers buckets j = 64 w .. 64 w + 63 and bit w of
 * `words` says whether bits[w] is non-zero: the lowest non-empty bucket is two
 * count-trailing-zeros away, and emptying it clears the lowest set bit of
 * each. A pop takes the head of that bucket when it lies in level 0 or holds
 * one entry (a lone entry in the lowest bucket is the minimum); only a bucket
 * of several entries above level 0 is split (refilled) into the lower levels,
 * out of line. Entries carry a copy of the key, so refills and sorts never
 * touch events.
 *
 * Order: entries pop in (time, seq) order. Every bucket above level 0 is kept
 * in seq order: a push appends the newest seq, and a refill splits one bucket,
 * in order, into lower levels that are all empty at that moment; so a level-0
 * bucket is in seq order until it is sorted, and sorted after. Level-0
 * buckets are read from a head index (head[j]; 0 for the other levels), since
 * pushes at the current time may land in the bucket being popped; buckets
 * above level 0 are only ever emptied whole.
 *
 * Invariant: every key pushed is >= the last popped key (eq_push asserts). */
#ifndef G5_SIM_CORE_EQ_H
#define G5_SIM_CORE_EQ_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/sim.h"

struct eq_entry {
	uint64_t time;        /* copy of ev->time, ps */
	struct sim_event *ev; /* borrowed: the sim's free list owns it */
};

struct eq_bucket {
	struct eq_entry *v; /* owned; entries v[head[j]..len) */
	uint32_t len, cap;
};

#define EQ_LEVELS 7
#define EQ_WIDTH 256
#define EQ_BUCKETS (EQ_LEVELS * EQ_WIDTH)

/* A bucket that empties with room for more than EQ_SPARE_MIN entries gives
 * its array to the queue's spares, at most EQ_SPARES of them (the largest),
 * and a bucket that must grow takes the smallest spare that holds twice its
 * entries first: the queue's memory follows the entries pending at once,
 * not every bucket's largest burst (a run whose ranks all act at the same
 * times fills each bucket it reaches with an entry per rank: 28 MB of
 * arrays, kept to the end, for a flow ring of 1024 ranks). */
#define EQ_SPARE_MIN 256
#define EQ_SPARES 64

struct eq {
	uint32_t words;                   /* bit w set when bits[w] != 0 */
	uint32_t unsorted;                /* level-0 buckets below it are sorted */
	uint64_t last;                    /* every queued key is >= last */
	uint64_t bits[EQ_BUCKETS / 64];   /* bit j set: bucket j non-empty */
	uint32_t head[EQ_BUCKETS];        /* first live entry; 0 above level 0 */
	struct eq_bucket b[EQ_BUCKETS];   /* bucket j = 256 * level + index */
	struct eq_entry *tmp;             /* owned: scratch of the sorts */
	uint32_t tmp_cap;
	uint32_t nspare;                  /* arrays in spare */
	struct eq_bucket spare[EQ_SPARES]; /* owned: arrays of emptied buckets (len 0) */
};

void eq_init(struct eq *q);
void eq_release(struct eq *q);

/* Out of line: splits bucket j (above level 0, several entries, the lowest
 * non-empty one) into the levels below. Returns false, leaving the heap as it
 * was, when the bucket's lower bound lies after until. */
bool eq_refill(struct eq *q, unsigned j, uint64_t until);

/* Out of line: bucket j, just emptied, gives its array to the spares. */
void eq_spare(struct eq *q, unsigned j);

/* Out of line: level-0 bucket j (>= unsorted) has become the lowest non-empty
 * bucket: sorts it, prefetches its first events and moves unsorted past it. */
void eq_arrive(struct eq *q, unsigned j);

/* The bucket of a key. With h the highest bit in which it differs from last
 * (at least 15: 0x8000 folds bits 0..15 into level 0, without a branch), the
 * index is the byte at bit h & ~7 (bits 8..15 for level 0) and the level is
 * (h >> 3) - 1. */
static inline unsigned eq_bucket_of(uint64_t last, uint64_t time)
{
	unsigned sh = ((unsigned)__builtin_clzll((time ^ last) | 0x8000) ^ 63u) & ~7u;

	return ((sh << 5) - EQ_WIDTH) | ((unsigned)(time >> sh) & (EQ_WIDTH - 1));
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

/* Whether (time, ev) may be appended to bucket j by eq_put: it has room and
 * is not kept sorted. */
static inline bool eq_can_put(const struct eq *q, unsigned j)
{
	return q->b[j].len < q->b[j].cap && j >= q->unsorted;
}

/* Queues ev at time (>= the last popped key). */
void eq_push(struct eq *q, uint64_t time, struct sim_event *ev);

/* Level-0 pops prefetch the event this many entries ahead in their bucket,
 * the line its data[0].p points at for the one EQ_LEAD_DATA ahead when it
 * asks for it (SIM_EV_PREFETCH_DATA), and the target component of the one
 * EQ_LEAD_TARGET ahead (each event was prefetched EQ_LEAD - EQ_LEAD_DATA or
 * EQ_LEAD - EQ_LEAD_TARGET pops earlier). */
#define EQ_LEAD 12
#define EQ_LEAD_DATA 8
#define EQ_LEAD_TARGET 4

/* Prefetches what ev's data[0].p points at, when ev asks for it. */
static inline void eq_prefetch_data(const struct sim_event *ev)
{
	if (ev->flags & SIM_EV_PREFETCH_DATA)
		__builtin_prefetch(ev->data[0].p);
}

/* Prefetches the hot lines of ev's target component (sim.h), ev itself
 * being expected in the cache by then. The queue does not need a target:
 * an event without one (the queue's own tests) is skipped. */
static inline void eq_prefetch_target(const struct sim_event *ev)
{
	const struct sim_component *t = ev->target;

	if (G_UNLIKELY(!t))
		return;
	const char *c = (const char *)t;
	unsigned n = t->hot_lines;

	switch (n < 8 ? n : 8) {
	case 8: __builtin_prefetch(c + 448); /* fall through */
	case 7: __builtin_prefetch(c + 384); /* fall through */
	case 6: __builtin_prefetch(c + 320); /* fall through */
	case 5: __builtin_prefetch(c + 256); /* fall through */
	case 4: __builtin_prefetch(c + 192); /* fall through */
	case 3: __builtin_prefetch(c + 128); /* fall through */
	case 2: __builtin_prefetch(c + 64); /* fall through */
	default: __builtin_prefetch(c);
	}
}

/* Removes and returns the smallest (time, seq) entry if its time is <= until;
 * NULL when the queue is empty or its smallest time lies after until (the heap
 * then holds the same entries, so later pushes before that time are fine). */
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

		/* Rare: a level-0 bucket to sort, or several entries above
		 * level 0 to split. */
		if (G_UNLIKELY(j < EQ_WIDTH ? j >= q->unsorted : b->len != 1)) {
			if (j < EQ_WIDTH)
				eq_arrive(q, j);
			else if (!eq_refill(q, j, until))
				return NULL;
			else
				continue;
		}
		uint32_t h = q->head[j];
		struct eq_entry *e = &b->v[h];

		if (e->time > until)
			return NULL;
		q->last = e->time;
		if (h + 1 == b->len) {
			/* The bucket empties: it is the lowest set bit of
			 * bits[w], and w the lowest of words. */
			struct sim_event *ev = e->ev;

			b->len = 0;
			q->head[j] = 0;
			word &= word - 1;
			q->bits[w] = word;
			if (!word)
				q->words = words & (words - 1);
			if (G_UNLIKELY(b->cap > EQ_SPARE_MIN))
				eq_spare(q, j);
			return ev;
		} else {
			q->head[j] = h + 1;
			if (h + EQ_LEAD < b->len)
				__builtin_prefetch(e[EQ_LEAD].ev);
			if (h + EQ_LEAD_DATA < b->len)
				eq_prefetch_data(e[EQ_LEAD_DATA].ev);
			if (h + EQ_LEAD_TARGET < b->len)
				eq_prefetch_target(e[EQ_LEAD_TARGET].ev);
		}
		return e->ev;
	}
}

static inline bool eq_empty(const struct eq *q)
{
	return q->words == 0;
}

#endif
