#include "sim/util/pool.h"

void pool_init(struct pool *p, size_t size, unsigned block)
{
	g_assert(size >= sizeof(void *) && block > 0);
	*p = (struct pool){ .blocks = g_ptr_array_new_with_free_func(g_free),
			    .size = size,
			    .block = block };
}

void pool_release(struct pool *p)
{
	if (p->blocks)
		g_ptr_array_unref(p->blocks);
	p->blocks = NULL;
	p->free = NULL;
}

void pool_grow(struct pool *p)
{
	char *b = g_malloc0_n(p->block, p->size);

	g_ptr_array_add(p->blocks, b);
	for (unsigned i = 0; i < p->block; i++)
		pool_give(p, b + (size_t)i * p->size);
}
