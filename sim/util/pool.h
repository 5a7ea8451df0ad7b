/* sim/util/pool — a free list of fixed-size elements, allocated in blocks
 * and freed all at once with the pool.
 *
 * A free element keeps the list's link in its first bytes, so an element is
 * at least a pointer in size, and a taken element holds whatever it held
 * (the link or its last use): its taker initialises it. A new block's
 * elements are zeroed and handed out from its last one down. */
#ifndef G5_SIM_UTIL_POOL_H
#define G5_SIM_UTIL_POOL_H

#include <glib.h>
#include <stddef.h>
#include <string.h>

struct pool {
	void *free;        /* the first free element, or NULL */
	GPtrArray *blocks; /* owned */
	size_t size;       /* of an element */
	unsigned block;    /* elements per block */
};

void pool_init(struct pool *p, size_t size, unsigned block);
/* Frees every block; the pool may be initialised again. Safe on a pool that
 * was zeroed and never initialised. */
void pool_release(struct pool *p);
/* Out of line: adds a block of free elements. */
void pool_grow(struct pool *p);

static inline void *pool_take(struct pool *p)
{
	if (G_UNLIKELY(!p->free))
		pool_grow(p);
	void *e = p->free;

	memcpy(&p->free, e, sizeof p->free);
	return e;
}

static inline void pool_give(struct pool *p, void *e)
{
	memcpy(e, &p->free, sizeof p->free);
	p->free = e;
}

#endif
