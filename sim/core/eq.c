/* The monotone radix-256 heap behind the event queue; see eq.h. */
#include "sim/core/eq.h"

#include <glib.h>

void eq_init(struct eq *q)
{
	memset(q, 0, sizeof(*q));
}

void eq_release(struct eq *q)
{
	for (int l = 0; l < EQ_LEVELS; l++)
		for (int i = 0; i < EQ_WIDTH; i++)
			g_free(q->b[l][i].v);
	memset(q, 0, sizeof(*q));
}

/* Makes room for one more entry in b. */
static __attribute__((noinline)) void bucket_grow(struct eq_bucket *b)
{
	if (b->head) {
		memmove(b->v, b->v + b->head, (b->len - b->head) * sizeof(*b->v));
		b->len -= b->head;
		b->head = 0;
	}
	if (b->len == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->v = g_renew(struct eq_entry, b->v, b->cap);
	}
}

static inline __attribute__((always_inline)) void place(struct eq *q, uint64_t time,
							struct sim_event *ev)
{
	uint64_t x = time ^ q->last;
	unsigned level = x ? (63u - (unsigned)__builtin_clzll(x)) >> 3 : 0u;
	unsigned idx = (unsigned)(time >> (level * 8)) & (EQ_WIDTH - 1);
	struct eq_bucket *b = &q->b[level][idx];

	if (G_UNLIKELY(b->len == b->cap))
		bucket_grow(b);
	b->v[b->len++] = (struct eq_entry){ .time = time, .ev = ev };
	q->bits[level][idx >> 6] |= 1ull << (idx & 63);
	q->words |= 1u << (level * 4 + (idx >> 6));
}

void eq_push(struct eq *q, uint64_t time, struct sim_event *ev)
{
	g_assert(time >= q->last);
	g_assert(q->len < UINT32_MAX || sizeof(size_t) > 4);
	place(q, time, ev);
	q->len++;
}

/* The lowest non-empty bucket of the lowest non-empty level; q->words != 0. */
static inline unsigned lowest_bucket(const struct eq *q, unsigned *level)
{
	unsigned w = (unsigned)__builtin_ctz(q->words);

	*level = w >> 2;
	return (w & 3) * 64 + (unsigned)__builtin_ctzll(q->bits[w >> 2][w & 3]);
}

static inline void mark_empty(struct eq *q, unsigned level, unsigned idx)
{
	uint64_t *w = &q->bits[level][idx >> 6];

	*w &= ~(1ull << (idx & 63));
	if (!*w)
		q->words &= ~(1u << (level * 4 + (idx >> 6)));
}

struct sim_event *eq_pop_until(struct eq *q, uint64_t until)
{
	unsigned level, idx;

	if (!q->words)
		return NULL;
	while ((idx = lowest_bucket(q, &level)), level > 0) {
		/* Refill: split the lowest bucket of the lowest level into the
		 * (empty) levels below it, around the bucket's lower bound. The
		 * bound is <= every key in it, and the sim's clock never falls
		 * below it afterwards: a run that stops here leaves now = until. */
		unsigned shift = level * 8;
		uint64_t base = ((q->last >> shift >> 8) << 8 | idx) << shift;

		if (base > until)
			return NULL;
		struct eq_bucket *src = &q->b[level][idx];

		if (src->len - src->head == 1) {
			/* A lone entry in the lowest bucket is the minimum:
			 * take it without moving it down level by level. */
			struct eq_entry e = src->v[src->head];

			if (e.time > until)
				return NULL;
			src->head = src->len = 0;
			mark_empty(q, level, idx);
			q->last = e.time;
			q->len--;
			return e.ev;
		}
		q->last = base;
		if (level == 1) {
			/* These entries pop within the next few events:
			 * fetch their events now, while the copy streams. */
			for (uint32_t k = src->head; k < src->len; k++) {
				__builtin_prefetch(src->v[k].ev);
				place(q, src->v[k].time, src->v[k].ev);
			}
		} else {
			for (uint32_t k = src->head; k < src->len; k++)
				place(q, src->v[k].time, src->v[k].ev);
		}
		src->head = src->len = 0;
		mark_empty(q, level, idx);
	}
	uint64_t t = (q->last & ~(uint64_t)(EQ_WIDTH - 1)) | idx;

	if (t > until)
		return NULL;
	struct eq_bucket *b = &q->b[0][idx];
	struct sim_event *ev = b->v[b->head++].ev;

	q->last = t;
	if (b->head == b->len) {
		b->head = b->len = 0;
		mark_empty(q, 0, idx);
	} else {
		__builtin_prefetch(b->v[b->head].ev);
	}
	q->len--;
	return ev;
}
