/* The monotone radix-256 heap behind the event queue; see eq.h. The hot push
 * and pop paths are inline in eq.h; here are the rare ones: growing a bucket
 * and splitting one into the levels below. */
#include "sim/core/eq.h"

#include <string.h>

void eq_init(struct eq *q)
{
	memset(q, 0, sizeof(*q));
	q->pf = EQ_WIDTH;
}

void eq_release(struct eq *q)
{
	for (int j = 0; j < EQ_BUCKETS; j++)
		g_free(q->b[j].v);
	eq_init(q);
}

/* Makes room for one more entry in bucket j. */
static __attribute__((noinline)) void bucket_grow(struct eq *q, unsigned j)
{
	struct eq_bucket *b = &q->b[j];

	if (j < EQ_WIDTH && q->head0[j]) {
		/* A level-0 bucket fed and drained at the current time:
		 * reuse the space before its head. */
		uint32_t h = q->head0[j];

		memmove(b->v, b->v + h, (b->len - h) * sizeof(*b->v));
		b->len -= h;
		q->head0[j] = 0;
	}
	if (b->len == b->cap) {
		g_assert(b->cap <= UINT32_MAX / 2);
		b->cap = b->cap ? b->cap * 2 : 16;
		b->v = g_renew(struct eq_entry, b->v, b->cap);
	}
}

void eq_push(struct eq *q, uint64_t time, struct sim_event *ev)
{
	g_assert(time >= q->last);
	unsigned j = eq_bucket_of(q->last, time);

	if (!eq_has_room(q, j))
		bucket_grow(q, j);
	eq_put(q, j, time, ev);
}

/* A refill of at most this many entries from above level 1 also prefetches
 * their events: they will pop soon and fit in the first-level cache. */
#define EQ_PF_REFILL 256

bool eq_refill(struct eq *q, unsigned j, uint64_t until)
{
	/* The bucket's lower bound is <= every key in it, and the sim's clock
	 * never falls below it afterwards: a run that stops here leaves
	 * now = until. */
	unsigned level = j >> 8, shift = level * 8;
	uint64_t base = ((q->last >> shift >> 8) << 8 | (j & (EQ_WIDTH - 1))) << shift;

	if (base > until)
		return false;
	struct eq_bucket *src = &q->b[j];
	const struct eq_entry *v = src->v;
	uint32_t n = src->len;
	uint32_t words = q->words;

	/* Bucket j is the lowest non-empty one; its entries go to lower
	 * buckets, in lower words of the bitmap. */
	src->len = 0;
	q->bits[j >> 6] &= ~(1ull << (j & 63));
	if (!q->bits[j >> 6])
		words &= ~(1u << (j >> 6));
	q->last = base;
	if (level == 1) {
		/* Into level 0, by the low byte. These entries pop within the
		 * next few events: their events are fetched now when few,
		 * else a few buckets ahead of each pop (eq_prefetch_ahead). */
		for (uint32_t k = 0; k < n; k++) {
			uint64_t t = v[k].time;
			struct sim_event *ev = v[k].ev;
			unsigned d = (unsigned)t & (EQ_WIDTH - 1);
			struct eq_bucket *b = &q->b[d];

			if (G_UNLIKELY(b->len == b->cap))
				bucket_grow(q, d);
			b->v[b->len++] = (struct eq_entry){ .time = t, .ev = ev };
			q->bits[d >> 6] |= 1ull << (d & 63);
			words |= 1u << (d >> 6);
		}
		if (n < EQ_AHEAD * 2) {
			for (uint32_t k = 0; k < n; k++)
				__builtin_prefetch(v[k].ev);
			q->pf = EQ_WIDTH;
		} else {
			q->pf = 0;
			eq_prefetch_ahead(q, 0);
			/* bucket 0 itself */
			for (uint32_t k = 0; k < q->b[0].len; k++)
				__builtin_prefetch(q->b[0].v[k].ev);
		}
	} else {
		q->pf = EQ_WIDTH;
		if (n <= EQ_PF_REFILL)
			for (uint32_t k = 0; k < n; k++)
				__builtin_prefetch(v[k].ev);
		for (uint32_t k = 0; k < n; k++) {
			uint64_t t = v[k].time;
			struct sim_event *ev = v[k].ev;
			unsigned d = eq_bucket_of(base, t);
			struct eq_bucket *b = &q->b[d];

			if (G_UNLIKELY(b->len == b->cap))
				bucket_grow(q, d);
			b->v[b->len++] = (struct eq_entry){ .time = t, .ev = ev };
			q->bits[d >> 6] |= 1ull << (d & 63);
			words |= 1u << (d >> 6);
		}
	}
	q->words = words;
	return true;
}
