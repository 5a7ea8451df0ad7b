/* sim/algos/algo — algorithms as schedule generators, one registry.
 *
 * Each family lives in its own file and exports one const `struct algo_ops`
 * with designated initializers; registry.c lists them all. An algorithm is
 * found by (collective, name): the same name may serve several collectives
 * ("ring" builds AllReduce, AllGather, ReduceScatter; the AllToAll "ring" is
 * its own entry). An unknown name is an error that lists the known ones.
 *
 * A hierarchical algorithm (hier.c) composes two flat ones, one per tier of
 * a machine of nodes: its ops table names them in `tiers`, and algo_find
 * returns one table per combination ("hier-ring-hd"), made on first use and
 * kept for the life of the process.
 *
 * The alpha-beta model of each algorithm:
 *   theory_us = overhead_us + steps x alpha_us + coef x M / beta
 * with M the collective's size in bytes (nccl-tests' definition). */
#ifndef G5_SIM_ALGOS_ALGO_H
#define G5_SIM_ALGOS_ALGO_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/schedule.h"

#define ALGO_MAX_DIMS 8           /* = LINK_MAX_DIMS */

struct algo_params {
	int nranks;               /* >= 2 (P2P: >= 2) */
	uint32_t nchunks;         /* >= 1 */
	int root;                 /* broadcast/reduce/p2p source, default 0 */
	int peer;                 /* p2p destination, default 1 */
	const uint64_t *weights;  /* AllGatherV: nranks relative counts, or NULL (equal) */
	bool fuse_copy;           /* a rank's copy of its own data into its output travels
				   * with that data's first send (copy_send: NCCL's
				   * copySend) where the generator has one */
	bool turned;              /* a turned schedule (schedule.h) where the algorithm's
				   * ranks are turns of rank 0's (ring, sendrecv, ring2p,
				   * pairwise); the others store every rank's ops
				   * whatever it says */
	bool paxi_set;            /* override the algorithm's default PAXI kind */
	enum paxi_kind paxi;
	int node_ranks;           /* ranks per node, for hierarchical algorithms: divides
				   * nranks; 0: not given (a hierarchical algorithm then
				   * refuses to build; simulate_params resolves a run's
				   * from its platform) */
	int dims[ALGO_MAX_DIMS];  /* torus algorithms (torus.c): the extents of the
				   * torus, rank = x0 + dims[0] x (x1 + ...); the first
				   * zero ends them; all zero: not given (the most nearly
				   * square 2-D, as topology torus takes it;
				   * simulate_params resolves a run's from its torus or
				   * mesh platform) */
	const struct algo_ops *const *tiers; /* set by algo_build and algo_theory from the
				   * ops table: its `tiers`, NULL for a flat algorithm */
};

struct algo_theory {
	double steps;  /* latency terms (alpha each) */
	double coef;   /* bandwidth term: coef x M / beta */
};

struct algo_ops {
	const char *name;
	const char *summary;
	unsigned collectives;        /* COLL_* mask */
	enum paxi_kind default_paxi; /* docs/algorithms.md lists it */
	/* Builds the schedule of collective c. Called by algo_build only, with
	 * c among `collectives` and parameters it has checked; returns NULL
	 * with error set (ALGO_ERROR_NOT_ADMITTED) only for a rule of the
	 * algorithm's own (rd on 6 ranks). PAXI kinds: default_paxi. */
	struct sched *(*build)(enum coll c, const struct algo_params *p, GError **error);
	/* The alpha-beta terms for collective c with parameters p (nranks;
	 * node_ranks and tiers for a hierarchical algorithm). Called through
	 * algo_theory. */
	void (*theory)(enum coll c, const struct algo_params *p, struct algo_theory *out);
	/* Hierarchical algorithms: the flat algorithm of the intra-node tier
	 * and of the inter-node tier; NULL for a flat algorithm. */
	const struct algo_ops *tiers[2];
	/* Reads algo_params.dims (torus.c; it composes tiers itself, so it is
	 * never a tier of a hierarchical algorithm). */
	bool takes_dims;
};

/* The tiers of a hierarchical algorithm, index into algo_ops.tiers. */
enum { ALGO_TIER_INTRA, ALGO_TIER_INTER };

/* The algorithm `name` for collective c, or NULL with error set naming the
 * known ones for that collective. A hierarchical name "hier-INTRA-INTER"
 * names the flat algorithm of each tier (hier.c); its table lives as long
 * as the process. */
const struct algo_ops *algo_find(enum coll c, const char *name, GError **error);

/* The product of dims' extents up to the first that is not positive (1 for
 * none), saturated at SCHED_MAX_RANKS + 1 so that no product overflows. */
long algo_dims_product(const int dims[ALGO_MAX_DIMS]);

/* Every registered algorithm, NULL-terminated. */
const struct algo_ops *const *algo_all(void);

/* The one validator: checks the collective, ranks, nchunks, root, peer and
 * weights (ALGO_ERROR_UNKNOWN or ALGO_ERROR_PARAMS), builds, applies the PAXI
 * override to every op and fills AllGatherV's weights. */
struct sched *algo_build(const struct algo_ops *a, enum coll c, const struct algo_params *p,
			 GError **error);

/* The root and peer rule of algo_build for collective c on nranks ranks:
 * Broadcast, Reduce and P2P take a root in 0..nranks-1, P2P a peer in that
 * range other than the root; the others ignore both. False with
 * ALGO_ERROR_PARAMS otherwise, *bad_peer (may be NULL) true when the peer is
 * the one at fault. */
bool algo_root_peer_check(enum coll c, int nranks, int root, int peer, bool *bad_peer,
			  GError **error);

/* The alpha-beta terms of algorithm a for collective c with parameters p
 * (nranks, and node_ranks for a hierarchical algorithm); tiers come from a. */
void algo_theory(const struct algo_ops *a, enum coll c, const struct algo_params *p,
		 struct algo_theory *out);

double algo_theory_us(const struct algo_ops *a, enum coll c, const struct algo_params *p,
		      uint64_t bytes, double overhead_us, double alpha_us,
		      double beta_bytes_per_s);

/* Error domain of algo_find and algo_build. */
#define ALGO_ERROR (algo_error_quark())
GQuark algo_error_quark(void);
enum algo_error_code {
	ALGO_ERROR_UNKNOWN,      /* no such algorithm for the collective */
	ALGO_ERROR_PARAMS,       /* parameters out of range (ranks, root, nchunks, ...) */
	ALGO_ERROR_NOT_ADMITTED, /* the algorithm does not admit them (hd on 6 ranks) */
	ALGO_ERROR_MEMORY,       /* its schedule would not fit in memory (sched_over) */
};

/* The names of the algorithms that build collective c, ", "-separated, in
 * registry order; g_free() it. */
char *algo_known_names(enum coll c);

/* The flat algorithms that can stand for tier `tier` (ALGO_TIER_*) of a
 * hierarchical collective c (AllReduce's intra tier: those that build both
 * ReduceScatter and AllGather), ", "-separated in registry order, "" for a
 * collective no hierarchical algorithm builds; g_free() it. */
char *algo_hier_tier_names(enum coll c, int tier);

/* The tasks NCCL's host enqueues for one call on `rank` of `nranks` (root,
 * peer: P2P's ends), as g5x calls NCCL: one for a collective; AllToAll a
 * send and a receive with every rank, itself included (grouped send/recv);
 * AllGatherV one grouped broadcast per rank; P2P one send on the root, one
 * receive on the peer, none elsewhere. */
uint32_t algo_nccl_tasks(enum coll c, int nranks, int rank, int root, int peer);

#endif
