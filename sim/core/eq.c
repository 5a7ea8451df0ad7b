/* The monotone radix heap behind the event queue; see eq.h. The hot push and
 * pop paths are inline in eq.h; here are the rare ones: growing a bucket,
 * inserting into a sorted level-0 bucket, sorting a level-0 bucket that has
 * been reached and splitting one above level 0 into the levels below. */
#include "sim/core/eq.h"

#include <string.h>

void eq_init(struct eq *q)
{
	memset(q, 0, sizeof(*q));
	q->unsorted = 0; /* pushes before the first pop append */
}

void eq_release(struct eq *q)
{
	for (int j = 0; j < EQ_BUCKETS; j++)
		g_free(q->b[j].v);
	for (uint32_t k = 0; k < q->nspare; k++)
		g_free(q->spare[k].v);
	g_free(q->tmp);
	eq_init(q);
}

/* Makes room for one more entry in bucket j. */
static __attribute__((noinline)) void bucket_grow(struct eq *q, unsigned j)
{
	struct eq_bucket *b = &q->b[j];

	if (j < EQ_WIDTH && q->head[j] && q->head[j] >= b->len / 4) {
		/* A level-0 bucket fed and drained at the current time:
		 * reuse the space before its head once it is at least a
		 * quarter of the bucket, so that an entry moves at most three
		 * times per slot it frees (a smaller head would move the
		 * whole bucket for a slot or two, push after push). */
		uint32_t h = q->head[j];

		memmove(b->v, b->v + h, (b->len - h) * sizeof(*b->v));
		b->len -= h;
		q->head[j] = 0;
	}
	if (b->len < b->cap)
		return;
	g_assert(b->cap <= UINT32_MAX / 2);
	uint32_t cap = b->cap ? b->cap * 2 : 16, fit = q->nspare;

	/* the smallest spare that holds twice its entries */
	for (uint32_t k = 0; k < q->nspare; k++)
		if (q->spare[k].cap >= cap && (fit == q->nspare || q->spare[k].cap < q->spare[fit].cap))
			fit = k;
	if (fit < q->nspare) {
		struct eq_bucket sp = q->spare[fit];

		q->spare[fit] = q->spare[--q->nspare];
		if (b->len)
			memcpy(sp.v, b->v, b->len * sizeof(*b->v));
		g_free(b->v);
		b->v = sp.v;
		b->cap = sp.cap;
		return;
	}
	b->cap = cap;
	b->v = g_renew(struct eq_entry, b->v, b->cap);
}

void eq_spare(struct eq *q, unsigned j)
{
	struct eq_bucket *b = &q->b[j];

	g_assert(b->len == 0);
	if (q->nspare == EQ_SPARES) {
		/* full: the smallest of the spares and this one goes */
		uint32_t low = 0;

		for (uint32_t k = 1; k < q->nspare; k++)
			if (q->spare[k].cap < q->spare[low].cap)
				low = k;
		if (q->spare[low].cap < b->cap) {
			g_free(q->spare[low].v);
			q->spare[low] = q->spare[--q->nspare];
		}
	}
	if (q->nspare < EQ_SPARES)
		q->spare[q->nspare++] = (struct eq_bucket){ .v = b->v, .cap = b->cap };
	else
		g_free(b->v);
	b->v = NULL;
	b->cap = 0;
}

/* A push into a sorted level-0 bucket other than the current one inserts in
 * place while that bucket holds at most this many entries; into a fuller one
 * it appends and leaves that bucket and those above it to be sorted when
 * reached, so that filling a bucket never costs more than linear time. */
#define EQ_INSERT_MAX 8

void eq_push(struct eq *q, uint64_t time, struct sim_event *ev)
{
	g_assert(time >= q->last);
	unsigned j = eq_bucket_of(q->last, time);
	struct eq_bucket *b = &q->b[j];

	if (b->len == b->cap)
		bucket_grow(q, j);
	uint32_t k = b->len, h = q->head[j];

	if (j < q->unsorted && j != ((q->last >> 8) & (EQ_WIDTH - 1)) &&
	    k - h > EQ_INSERT_MAX)
		q->unsorted = j;
	if (j >= q->unsorted) {
		eq_put(q, j, time, ev);
		return;
	}
	/* A sorted bucket: after every entry of a time <= time (the newest
	 * seq goes last among equal times). In the current bucket (that of
	 * last), only entries due within 256 ps of it move. */
	b->len++;
	for (; k > h && b->v[k - 1].time > time; k--)
		b->v[k] = b->v[k - 1];
	b->v[k] = (struct eq_entry){ .time = time, .ev = ev };
	q->bits[j >> 6] |= 1ull << (j & 63);
	q->words |= 1u << (j >> 6);
}

/* Whether v[0..n) is sorted by time already: the usual case, as ranks that
 * act in step append their events in time order, and a reading pass is a
 * third of a sort's (which then has the entries in the cache for the pops). */
static bool in_order(const struct eq_entry *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (v[i].time < v[i - 1].time)
			return false;
	return true;
}

/* Buckets of at most this many entries are sorted by insertion. */
#define EQ_INSERTION_MAX 32

void eq_arrive(struct eq *q, unsigned j)
{
	struct eq_bucket *b = &q->b[j];
	struct eq_entry *v = b->v + q->head[j];
	uint32_t n = b->len - q->head[j];

	q->unsorted = j + 1;
	if (n <= EQ_INSERTION_MAX) {
		/* stable: an entry passes only later times */
		for (uint32_t i = 1; i < n; i++) {
			struct eq_entry e = v[i];
			uint32_t k = i;

			for (; k > 0 && v[k - 1].time > e.time; k--)
				v[k] = v[k - 1];
			v[k] = e;
		}
	} else if (!in_order(v, n)) {
		/* The bucket's times differ only in their low byte: a stable
		 * counting sort by it, through the scratch array. */
		uint32_t count[EQ_WIDTH + 1] = { 0 };

		if (q->tmp_cap < n) {
			q->tmp_cap = n;
			g_free(q->tmp);
			q->tmp = g_new(struct eq_entry, n);
		}
		for (uint32_t i = 0; i < n; i++)
			count[(v[i].time & (EQ_WIDTH - 1)) + 1]++;
		for (unsigned d = 1; d < EQ_WIDTH; d++)
			count[d] += count[d - 1];
		for (uint32_t i = 0; i < n; i++)
			q->tmp[count[v[i].time & (EQ_WIDTH - 1)]++] = v[i];
		memcpy(v, q->tmp, n * sizeof(*v));
	}
	for (uint32_t i = 0; i < n && i <= EQ_LEAD; i++)
		__builtin_prefetch(v[i].ev);
}

/* A refill of at most this many entries also prefetches their events: they
 * will pop soon and fit in the cache. Larger ones leave it to the pops
 * (eq_arrive, EQ_LEAD). */
#define EQ_PF_REFILL 512

/* A refill into level 0 of at most this many entries keeps every bucket
 * sorted as it goes (few collide), and prefetches; a larger one leaves the
 * sorting to the pops. */
#define EQ_EAGER_MAX EQ_PF_REFILL

bool eq_refill(struct eq *q, unsigned j, uint64_t until)
{
	/* The bucket's lower bound is <= every key in it, and the sim's clock
	 * never falls below it afterwards: a run that stops here leaves
	 * now = until. Level L >= 1 is indexed by the byte at bit 8 (L + 1). */
	unsigned level = j >> 8, shift = level * 8 + 8;
	uint64_t base = ((q->last >> shift >> 8) << 8 | (j & (EQ_WIDTH - 1))) << shift;

	if (base > until)
		return false;
	struct eq_bucket *src = &q->b[j];
	const struct eq_entry *v = src->v;
	uint32_t n = src->len;
	uint32_t words = q->words;
	bool pf = n <= EQ_PF_REFILL;

	/* Bucket j is the lowest non-empty one; its entries go to lower
	 * buckets, in lower words of the bitmap, all empty now. */
	src->len = 0;
	q->bits[j >> 6] &= ~(1ull << (j & 63));
	if (!q->bits[j >> 6])
		words &= ~(1u << (j >> 6));
	q->last = base;
	if (level == 1 && n <= EQ_EAGER_MAX) {
		/* Into level 0, by bits 8..15, each in its sorted place. */
		for (uint32_t k = 0; k < n; k++) {
			uint64_t t = v[k].time;
			struct sim_event *ev = v[k].ev;
			unsigned d = (unsigned)(t >> 8) & (EQ_WIDTH - 1);
			struct eq_bucket *b = &q->b[d];

			__builtin_prefetch(ev);
			if (G_UNLIKELY(b->len == b->cap))
				bucket_grow(q, d);
			uint32_t i = b->len++;

			for (; i > 0 && b->v[i - 1].time > t; i--)
				b->v[i] = b->v[i - 1];
			b->v[i] = (struct eq_entry){ .time = t, .ev = ev };
			q->bits[d >> 6] |= 1ull << (d & 63);
		}
		for (unsigned w = 0; w < EQ_WIDTH / 64; w++)
			words |= (uint32_t)(q->bits[w] != 0) << w;
		q->unsorted = EQ_WIDTH;
	} else if (level == 1) {
		/* Into level 0, appended: sorted bucket by bucket by the pops. */
		for (uint32_t k = 0; k < n; k++) {
			uint64_t t = v[k].time;
			struct sim_event *ev = v[k].ev;
			unsigned d = (unsigned)(t >> 8) & (EQ_WIDTH - 1);
			struct eq_bucket *b = &q->b[d];

			if (G_UNLIKELY(b->len == b->cap))
				bucket_grow(q, d);
			b->v[b->len++] = (struct eq_entry){ .time = t, .ev = ev };
			q->bits[d >> 6] |= 1ull << (d & 63);
		}
		for (unsigned w = 0; w < EQ_WIDTH / 64; w++)
			words |= (uint32_t)(q->bits[w] != 0) << w;
		q->unsorted = 0;
	} else {
		for (uint32_t k = 0; k < n; k++) {
			uint64_t t = v[k].time;
			struct sim_event *ev = v[k].ev;
			unsigned d = eq_bucket_of(base, t);
			struct eq_bucket *b = &q->b[d];

			if (pf)
				__builtin_prefetch(ev);
			if (G_UNLIKELY(b->len == b->cap))
				bucket_grow(q, d);
			b->v[b->len++] = (struct eq_entry){ .time = t, .ev = ev };
			q->bits[d >> 6] |= 1ull << (d & 63);
			words |= 1u << (d >> 6);
		}
		q->unsorted = 0;
	}
	q->words = words;
	if (src->cap > EQ_SPARE_MIN)
		eq_spare(q, j);
	return true;
}
