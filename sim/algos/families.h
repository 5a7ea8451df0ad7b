/* sim/algos/families — the ops table each algorithm family exports, one
 * file per family under sim/algos/. registry.c lists the ones that exist in
 * its table; a declaration here costs nothing until the table references it.
 *
 *   ring.c           ring, ring2p, sendrecv  (AllReduce, AllGather, ReduceScatter)
 *   hd.c             hd                      (halving-doubling AllReduce)
 *   dbtree.c         dbtree                  (double binary tree)
 *   direct.c         direct
 *   rd_rh.c          rd, rh                  (recursive doubling / halving)
 *   bruck.c          bruck                   (AllToAll, AllGather)
 *   pairwise.c       pairwise                (AllToAll)
 *   alltoall_ring.c  ring_a2a, ring2p_a2a, named "ring" / "ring2p" for AllToAll
 *   tree_bcast.c     binomial, chain         (Broadcast, Reduce)
 *   p2p.c            p2p_direct, named "direct" for P2P
 *   allgatherv.c     agv_ring, agv_direct, agv_pad, agv_bcast, named "ring" /
 *                    "direct" / "pad" / "bcast" for AllGatherV (rd and bruck
 *                    build AllGatherV from their AllGather ops)
 *   hier.c           hier, and hier-INTRA-INTER through algo_hier_find
 *   torus.c          torus, torus2p          (a ring per torus dimension)
 */
#ifndef G5_SIM_ALGOS_FAMILIES_H
#define G5_SIM_ALGOS_FAMILIES_H

#include "sim/algos/algo.h"

extern const struct algo_ops algo_ring_ops;
extern const struct algo_ops algo_ring2p_ops;
extern const struct algo_ops algo_sendrecv_ops;

extern const struct algo_ops algo_hd_ops;
extern const struct algo_ops algo_dbtree_ops;
extern const struct algo_ops algo_direct_ops;
extern const struct algo_ops algo_rd_ops;
extern const struct algo_ops algo_rh_ops;
extern const struct algo_ops algo_bruck_ops;
extern const struct algo_ops algo_pairwise_ops;
extern const struct algo_ops algo_ring_a2a_ops;
extern const struct algo_ops algo_ring2p_a2a_ops;
extern const struct algo_ops algo_binomial_ops;
extern const struct algo_ops algo_chain_ops;
extern const struct algo_ops algo_p2p_direct_ops;
extern const struct algo_ops algo_agv_ring_ops;
extern const struct algo_ops algo_agv_direct_ops;
extern const struct algo_ops algo_agv_pad_ops;
extern const struct algo_ops algo_agv_bcast_ops;
extern const struct algo_ops algo_nccl_ops;
extern const struct algo_ops algo_hier_ops;
extern const struct algo_ops algo_torus_ops;
extern const struct algo_ops algo_torus2p_ops;

/* algo_find for a name that starts with "hier-": the ops table of that
 * combination of tiers (made once, kept for the life of the process), or
 * NULL with error set (ALGO_ERROR_UNKNOWN) naming the tier at fault. */
const struct algo_ops *algo_hier_find(enum coll c, const char *name, GError **error);

/* The hierarchical composition of hier.c for p (p->tiers and p->node_ranks
 * set, the checks of algo_build done) with p->dims handed on to the
 * inter-node tier's algorithm: how torus.c recurses over dimensions. */
struct sched *algo_hier_compose(enum coll c, const struct algo_params *p, GError **error);

#endif
