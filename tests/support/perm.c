/* tests/support/perm.c — see perm.h. */
#include "tests/support/perm.h"

void perm_done(void *user, uint64_t bytes, bool done)
{
	struct perm *p = user;

	(void)bytes;
	if (done) {
		p->left--;
		p->last = sim_now(p->s);
	}
}
