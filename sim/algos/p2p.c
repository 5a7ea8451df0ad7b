/* sim/algos/p2p — P2P `direct`: the root sends its buffer to the peer.
 *
 * One message from `root` (default 0) to `peer` (default 1), as nchunks
 * pieces: the root sends each piece of its input, the peer receives it into
 * its output; every other rank does nothing. nblocks = 1. Transfer by
 * default (one-sided write). Correct in place (the root has no output and
 * the peer no input). Theory: 1 step, coef 1. */
#include "sim/algos/algo.h"
#include "sim/algos/families.h"

static struct sched *p2p_build(enum coll c, const struct algo_params *p, GError **error)
{
	g_assert(c == COLL_P2P); /* the registry admits only our collectives */

	enum paxi_kind px = algo_p2p_direct_ops.default_paxi;
	struct sched *s = sched_new(c, "direct", p->nranks, 1, p->nchunks);

	s->root = p->root;
	s->peer = p->peer;
	sched_set_windows(s);
	for (uint32_t k = 0; k < p->nchunks; k++) {
		sched_add(s, p->root, &(struct sched_op){
			.kind = SOP_SEND, .paxi = px, .recv_peer = -1, .send_peer = p->peer,
			.src_buf = SBUF_IN, .src_off = k, .count = 1, .step = 0,
		}, NULL, 0);
		sched_add(s, p->peer, &(struct sched_op){
			.kind = SOP_RECV, .paxi = px, .recv_peer = p->root, .send_peer = -1,
			.dst_buf = SBUF_OUT, .dst_off = k, .count = 1, .step = 0,
		}, NULL, 0);
	}
	s->inplace_ok = true;
	return s;
}

static void p2p_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	out->steps = 1;
	out->coef = 1;
}

const struct algo_ops algo_p2p_direct_ops = {
	.name = "direct",
	.summary = "one message from the root to the peer",
	.collectives = COLL_P2P,
	.default_paxi = PAXI_TRANSFER,
	.build = p2p_build,
	.theory = p2p_theory,
};
