/* Hierarchical collectives: flat algorithms composed over the two tiers of
 * a machine of nodes, N = nodes x L ranks, rank r being local rank r % L of
 * node r / L. The intra-node tier is the L ranks of one node; the
 * inter-node tier is a rail, local rank j of every node (j, L + j, ...).
 * Each stage is a flat schedule of the registry, built by algo_build on the
 * tier's rank count and embedded (sched_embed) with its ranks, units and
 * buffers remapped; the hazard tracker orders each stage after the ops of
 * the one before that touch the same cells, so stages overlap where the
 * data allows. A tier of one rank (L = 1, or L = N) has no stage.
 *
 *   AllReduce: intra ReduceScatter, so that local rank j holds block j of
 *     L, summed over its node; one inter AllReduce per rail on that block
 *     (1/L of the data); intra AllGather. With B the inter schedule's
 *     blocks, the host has L x B blocks: intra block j is host units
 *     [j B K, (j + 1) B K) (K = nchunks), which the inter AllReduce of rail
 *     j addresses unit for unit and the intra stages B units at a time.
 *   AllGather: inter first, then intra. Local rank j gathers the blocks of
 *     its rail (host blocks m L + j) over the inter tier, then node n runs
 *     one intra AllGather per node row m on host blocks m L .. m L + L - 1.
 *     Each rank receives (nodes - 1) blocks over the slow tier, the least
 *     any schedule can (a node must bring in every other node's data, and
 *     its L rails share it); intra first would send the whole node's data
 *     over every rail, L times more.
 *   ReduceScatter: the mirror: one intra ReduceScatter per node row m into
 *     scratch (local rank j holds host block m L + j summed over its node),
 *     then an inter ReduceScatter per rail that leaves block r at rank r.
 *   AllReduce with an intra-node algorithm that builds Reduce and Broadcast
 *     but not ReduceScatter and AllGather (chain, binomial): rooted, as
 *     NCCL's tree with intra-node chains: intra Reduce to local rank 0, one
 *     inter AllReduce of the whole buffer among the local ranks 0 (rail 0;
 *     hier-chain-dbtree is NCCL's double binary tree across nodes), intra
 *     Broadcast from local rank 0. The host's units are a common multiple
 *     of the three stages', so that each stage's unit is whole host units.
 * The intermediate results stay in the output buffer (AllReduce,
 * AllGather) or in scratch copy 0 (ReduceScatter, whose output is one
 * block), so every stage runs in place; the host is in place when every
 * stage is.
 *
 * A name picks the flat algorithm of each tier: "hier-INTRA-INTER", e.g.
 * hier-ring-hd; "hier" alone is hier-ring-ring. The name is made of plain
 * words and dashes so that it travels unquoted through CSV columns, YAML
 * flow lists, file names and shell commands. algo_find makes one ops table
 * per name on its first use and keeps it for the life of the process (a
 * table under a lock, like GLib's quarks); its `tiers` reach the build and
 * the theory through algo_params.
 *
 * The alpha-beta terms add the stages', each on the part of M it moves:
 *   AllReduce      RS_L(M) + AR_nodes(M / L) + AG_L(M)
 *   rooted         Reduce_L(M) + AR_nodes(M) + Broadcast_L(M)
 *   AllGather      AG_nodes(M / L) + AG_L(M)      (the node rows run together)
 *   ReduceScatter  RS_L(M) + RS_nodes(M / L)
 * where X_n(S) is flat algorithm X's steps and coefficient on n ranks, the
 * coefficient scaled by S / M. */
#include <string.h>

#include "sim/algos/families.h"
#include "sim/util/quote.h"
#include "sim/util/spell.h"

#define HIER_COLLS (COLL_ALLREDUCE | COLL_ALLGATHER | COLL_REDUCESCATTER)

/* The collective each tier runs for host collective c: the intra tier's
 * first and last stages, the inter tier's one. */
static void hier_tier_colls(enum coll c, enum coll *intra_first, enum coll *intra_last,
			    enum coll *inter)
{
	*inter = c;
	*intra_first = *intra_last = c;
	if (c == COLL_ALLREDUCE) {
		*intra_first = COLL_REDUCESCATTER;
		*intra_last = COLL_ALLGATHER;
	}
}

/* Whether an AllReduce with intra-node algorithm a is rooted (NCCL's tree
 * with chains): a builds Reduce and Broadcast but not ReduceScatter and
 * AllGather, so a node reduces to its local rank 0, the local ranks 0 of
 * all nodes (rail 0) AllReduce the whole buffer, and each node broadcasts
 * it from its local rank 0. */
static bool hier_rooted(const struct algo_ops *a, enum coll c)
{
	return c == COLL_ALLREDUCE &&
	       !((a->collectives & COLL_REDUCESCATTER) && (a->collectives & COLL_ALLGATHER)) &&
	       (a->collectives & COLL_REDUCE) && (a->collectives & COLL_BROADCAST);
}

/* True when flat algorithm a can stand for tier `tier` of collective c. */
static bool hier_tier_serves(const struct algo_ops *a, enum coll c, int tier)
{
	enum coll first, last, inter;

	hier_tier_colls(c, &first, &last, &inter);
	if (a->tiers[0] || a->takes_dims)
		return false;
	if (tier == ALGO_TIER_INTER)
		return (a->collectives & inter) != 0;
	return ((a->collectives & first) && (a->collectives & last)) || hier_rooted(a, c);
}

/* ---- Build ---- */

struct hier_gen {
	struct sched *s;         /* the host schedule, owned until returned */
	struct sched_hazards *h; /* s's hazards, owned */
	int n, l, nodes;         /* ranks, ranks per node, nodes: n = l x nodes */
	uint32_t k;              /* nchunks */
};

/* Builds tier `tier`'s flat schedule of collective c on n ranks, or NULL
 * with an error that names the tier. */
static struct sched *hier_sub(const struct algo_params *p, int tier, enum coll c, int n,
			      GError **error)
{
	const struct algo_ops *a = p->tiers[tier];
	struct algo_params q = {
		.nranks = n, .nchunks = p->nchunks, .root = 0, .peer = 1, .fuse_copy = p->fuse_copy,
	};

	/* the rest of a torus's dims go to the inter tier (algo_hier_compose);
	 * a hierarchical algorithm of the registry hands on none */
	if (tier == ALGO_TIER_INTER)
		memcpy(q.dims, p->dims, sizeof(q.dims));
	struct sched *s = algo_build(a, c, &q, error);

	if (s)
		return s;
	if (tier == ALGO_TIER_INTRA)
		g_prefix_error(error, "the intra-node tier (%d ranks) of 'hier-%s-%s': ", n,
			       p->tiers[0]->name, p->tiers[1]->name);
	else
		g_prefix_error(error, "the inter-node tier (%d nodes of %d rank%s) of 'hier-%s-%s': ",
			       n, p->nranks / n, p->nranks / n == 1 ? "" : "s", p->tiers[0]->name,
			       p->tiers[1]->name);
	return s;
}

/* Embeds sub on the ranks of node `which` (intra: its local ranks 0..L-1)
 * or of rail `which` (inter: local rank `which` of nodes 0..nodes-1), its
 * unit d at host units base + units[d] (units NULL: base + d x span), span
 * of them. Its input and output become host buffers `in` and `out`; one
 * that is SCRATCH is scratch copy 0; its own scratch starts at copy
 * scratch_copy. */
static void hier_embed(struct hier_gen *g, const struct sched *sub, int tier, int which,
		       const uint32_t *units, uint32_t base, uint32_t span, uint8_t in, uint8_t out,
		       uint32_t scratch_copy, uint32_t step)
{
	int *ranks = g_new(int, sub->nranks);
	uint32_t *u = g_new(uint32_t, sub->nunits);

	for (int i = 0; i < sub->nranks; i++)
		ranks[i] = tier == ALGO_TIER_INTRA ? which * g->l + i : i * g->l + which;
	for (uint32_t d = 0; d < sub->nunits; d++)
		u[d] = base + (units ? units[d] : d * span);
	struct sched_embedding e = {
		.ranks = ranks, .units = u, .span = span, .step = step,
		.buf = { [SBUF_IN] = in, [SBUF_OUT] = out },
		.copy = { [SBUF_SCRATCH] = scratch_copy },
	};

	sched_embed(g->s, g->h, sub, &e);
	g_free(u);
	g_free(ranks);
}

/* The host units of an AllGather or ReduceScatter of a rail: sub unit
 * (block m, piece q) is host unit ((m L + j) K + q) less the rail's first,
 * j K (hier_embed adds it back as base). */
static uint32_t *hier_rail_units(const struct hier_gen *g, const struct sched *sub)
{
	uint32_t *u = g_new(uint32_t, sub->nunits);

	for (uint32_t d = 0; d < sub->nunits; d++)
		u[d] = (d / g->k) * (uint32_t)g->l * g->k + d % g->k;
	return u;
}

static void hier_start(struct hier_gen *g, enum coll c, const struct algo_params *p,
		       uint32_t nblocks, uint32_t scratch_copies, const struct sched *const *subs,
		       int nsubs)
{
	g->s = sched_new(c, "hier", p->nranks, nblocks, p->nchunks);
	g->s->scratch_units = scratch_copies * g->s->nunits;
	g->s->inplace_ok = true;
	for (int i = 0; i < nsubs; i++)
		if (subs[i])
			g->s->inplace_ok &= subs[i]->inplace_ok;
	g->h = sched_hazards_new(g->s);
}

static uint32_t lcm_u32(uint32_t a, uint32_t b)
{
	uint32_t x = a, y = b;

	while (y) {
		uint32_t t = x % y;

		x = y;
		y = t;
	}
	return a / x * b;
}

static uint32_t hier_copies(const struct sched *sub)
{
	return sub ? sched_embed_scratch_copies(sub) : 0;
}

struct sched *algo_hier_compose(enum coll c, const struct algo_params *p, GError **error)
{
	struct hier_gen g = { .n = p->nranks, .l = p->node_ranks, .k = p->nchunks };
	enum coll first, last, inter;
	struct sched *sa = NULL, *sb = NULL, *sc = NULL; /* stages in order */
	struct sched *s = NULL;

	g_assert(p->tiers && p->tiers[ALGO_TIER_INTRA] && p->tiers[ALGO_TIER_INTER]);
	g_assert(g.l >= 1 && g.n % g.l == 0);
	g.nodes = g.n / g.l;
	hier_tier_colls(c, &first, &last, &inter);
	bool intra = g.l > 1, across = g.nodes > 1;

	if (c == COLL_ALLREDUCE && hier_rooted(p->tiers[ALGO_TIER_INTRA], c)) {
		/* rooted: Reduce to local rank 0, AllReduce on rail 0, Broadcast;
		 * host units: a common multiple of the stages', each stage's unit
		 * spanning as many host units as the host has per unit of its own */
		if ((intra && !(sa = hier_sub(p, ALGO_TIER_INTRA, COLL_REDUCE, g.l, error))) ||
		    (across && !(sb = hier_sub(p, ALGO_TIER_INTER, inter, g.nodes, error))) ||
		    (intra && !(sc = hier_sub(p, ALGO_TIER_INTRA, COLL_BROADCAST, g.l, error))))
			goto out;
		const struct sched *subs[] = { sa, sb, sc };
		uint32_t units = g.k;

		for (int i = 0; i < 3; i++)
			if (subs[i])
				units = lcm_u32(units, subs[i]->nunits);
		hier_start(&g, c, p, units / g.k,
			   MAX(hier_copies(sa), MAX(hier_copies(sb), hier_copies(sc))), subs, 3);
		uint32_t step = 0;

		if (sa) {
			for (int node = 0; node < g.nodes; node++)
				hier_embed(&g, sa, ALGO_TIER_INTRA, node, NULL, 0, units / sa->nunits,
					   SBUF_IN, SBUF_OUT, 0, step);
			step += sa->nsteps;
		}
		if (sb) {
			hier_embed(&g, sb, ALGO_TIER_INTER, 0, NULL, 0, units / sb->nunits,
				   sa ? SBUF_OUT : SBUF_IN, SBUF_OUT, 0, step);
			step += sb->nsteps;
		}
		if (sc)
			for (int node = 0; node < g.nodes; node++)
				hier_embed(&g, sc, ALGO_TIER_INTRA, node, NULL, 0, units / sc->nunits,
					   SBUF_OUT, SBUF_OUT, 0, step);
	} else if (c == COLL_ALLREDUCE) {
		if ((intra && !(sa = hier_sub(p, ALGO_TIER_INTRA, first, g.l, error))) ||
		    (across && !(sb = hier_sub(p, ALGO_TIER_INTER, inter, g.nodes, error))) ||
		    (intra && !(sc = hier_sub(p, ALGO_TIER_INTRA, last, g.l, error))))
			goto out;
		/* host blocks: L x the inter schedule's blocks */
		uint32_t b = sb ? sb->nblocks : 1, per = b * g.k; /* host units per intra block */
		const struct sched *subs[] = { sa, sb, sc };
		uint32_t copies = MAX(hier_copies(sa), MAX(hier_copies(sb), hier_copies(sc)));

		hier_start(&g, c, p, (uint32_t)g.l * b, copies, subs, 3);
		uint32_t step = 0;

		if (sa) {
			for (int node = 0; node < g.nodes; node++)
				hier_embed(&g, sa, ALGO_TIER_INTRA, node, NULL, 0, b, SBUF_IN, SBUF_OUT,
					   0, step);
			step += sa->nsteps;
		}
		if (sb) {
			for (int j = 0; j < g.l; j++)
				hier_embed(&g, sb, ALGO_TIER_INTER, j, NULL, (uint32_t)j * per, 1,
					   sa ? SBUF_OUT : SBUF_IN, SBUF_OUT, 0, step);
			step += sb->nsteps;
		}
		if (sc)
			for (int node = 0; node < g.nodes; node++)
				hier_embed(&g, sc, ALGO_TIER_INTRA, node, NULL, 0, b, SBUF_OUT, SBUF_OUT,
					   0, step);
	} else if (c == COLL_ALLGATHER) {
		if ((across && !(sa = hier_sub(p, ALGO_TIER_INTER, inter, g.nodes, error))) ||
		    (intra && !(sb = hier_sub(p, ALGO_TIER_INTRA, last, g.l, error))))
			goto out;
		const struct sched *subs[] = { sa, sb };

		hier_start(&g, c, p, (uint32_t)g.n, MAX(hier_copies(sa), hier_copies(sb)), subs, 2);
		if (sa) {
			g_autofree uint32_t *u = hier_rail_units(&g, sa);

			for (int j = 0; j < g.l; j++)
				hier_embed(&g, sa, ALGO_TIER_INTER, j, u, (uint32_t)j * g.k, 1, SBUF_IN,
					   SBUF_OUT, 0, 0);
		}
		if (sb)
			for (int node = 0; node < g.nodes; node++)
				for (int m = 0; m < g.nodes; m++)
					hier_embed(&g, sb, ALGO_TIER_INTRA, node, NULL,
						   (uint32_t)m * (uint32_t)g.l * g.k, 1,
						   sa ? SBUF_OUT : SBUF_IN, SBUF_OUT, 0,
						   sa ? sa->nsteps : 0);
	} else {
		g_assert(c == COLL_REDUCESCATTER);
		if ((intra && !(sa = hier_sub(p, ALGO_TIER_INTRA, first, g.l, error))) ||
		    (across && !(sb = hier_sub(p, ALGO_TIER_INTER, inter, g.nodes, error))))
			goto out;
		const struct sched *subs[] = { sa, sb };
		/* scratch copy 0 holds the node sums when both stages run */
		uint32_t mid = sa && sb ? 1 : 0;

		hier_start(&g, c, p, (uint32_t)g.n, mid + MAX(hier_copies(sa), hier_copies(sb)), subs,
			   2);
		if (sa)
			for (int node = 0; node < g.nodes; node++)
				for (int m = 0; m < g.nodes; m++)
					hier_embed(&g, sa, ALGO_TIER_INTRA, node, NULL,
						   (uint32_t)m * (uint32_t)g.l * g.k, 1, SBUF_IN,
						   sb ? SBUF_SCRATCH : SBUF_OUT, mid, 0);
		if (sb) {
			g_autofree uint32_t *u = hier_rail_units(&g, sb);

			for (int j = 0; j < g.l; j++)
				hier_embed(&g, sb, ALGO_TIER_INTER, j, u, (uint32_t)j * g.k, 1,
					   sa ? SBUF_SCRATCH : SBUF_IN, SBUF_OUT, mid,
					   sa ? sa->nsteps : 0);
		}
	}
	sched_hazards_free(g.h);
	s = g_steal_pointer(&g.s);
out:
	sched_free(sa);
	sched_free(sb);
	sched_free(sc);
	return s;
}

static struct sched *hier_build(enum coll c, const struct algo_params *p, GError **error)
{
	struct algo_params q = *p;

	memset(q.dims, 0, sizeof(q.dims));
	return algo_hier_compose(c, &q, error);
}

/* ---- Theory ---- */

/* Adds flat algorithm a's terms for collective c on n ranks, the bandwidth
 * term scaled by `share` of M; nothing for a tier of one rank. */
static void hier_add(const struct algo_ops *a, enum coll c, int n, double share,
		     struct algo_theory *out)
{
	struct algo_params q = { .nranks = n, .nchunks = 1 };
	struct algo_theory t = { 0 };

	if (n < 2)
		return;
	algo_theory(a, c, &q, &t);
	out->steps += t.steps;
	out->coef += t.coef * share;
}

static void hier_theory(enum coll c, const struct algo_params *p, struct algo_theory *out)
{
	int l = p->node_ranks;
	enum coll first, last, inter;

	out->steps = out->coef = 0;
	if (l < 1 || p->nranks % l)
		return;
	hier_tier_colls(c, &first, &last, &inter);
	int nodes = p->nranks / l;

	if (hier_rooted(p->tiers[ALGO_TIER_INTRA], c)) {
		hier_add(p->tiers[ALGO_TIER_INTRA], COLL_REDUCE, l, 1, out);
		hier_add(p->tiers[ALGO_TIER_INTER], inter, nodes, 1, out);
		hier_add(p->tiers[ALGO_TIER_INTRA], COLL_BROADCAST, l, 1, out);
		return;
	}
	if (c != COLL_ALLGATHER)
		hier_add(p->tiers[ALGO_TIER_INTRA], first, l, 1, out);
	hier_add(p->tiers[ALGO_TIER_INTER], inter, nodes, 1.0 / l, out);
	if (c != COLL_REDUCESCATTER)
		hier_add(p->tiers[ALGO_TIER_INTRA], last, l, 1, out);
}

/* ---- Names ---- */

const struct algo_ops algo_hier_ops = {
	.name = "hier",
	.summary = "hierarchical, hier-ring-ring: ring within a node, ring across nodes; "
		   "hier-INTRA-INTER picks each tier's algorithm (below)",
	.collectives = HIER_COLLS,
	.default_paxi = PAXI_TRANSFER,
	.build = hier_build,
	.theory = hier_theory,
	.tiers = { &algo_ring_ops, &algo_ring_ops },
};

char *algo_hier_tier_names(enum coll c, int tier)
{
	GString *g = g_string_new(NULL);

	for (const struct algo_ops *const *a = algo_all(); *a; a++) {
		bool dup = false;

		if (!hier_tier_serves(*a, c, tier))
			continue;
		for (const struct algo_ops *const *b = algo_all(); b < a; b++)
			dup |= !strcmp((*b)->name, (*a)->name) && hier_tier_serves(*b, c, tier);
		if (!dup)
			g_string_append_printf(g, "%s%s", g->len ? ", " : "", (*a)->name);
	}
	return g_string_free(g, FALSE);
}

/* The flat algorithm `name` for tier `tier` of collective c, or NULL with
 * an error in the words of algo_find's, naming the tier. */
static const struct algo_ops *hier_tier_find(enum coll c, const char *whole, const char *name,
					     int tier, GError **error)
{
	for (const struct algo_ops *const *a = algo_all(); *a; a++)
		if (!strcmp((*a)->name, name) && hier_tier_serves(*a, c, tier))
			return *a;
	g_autofree char *known = algo_hier_tier_names(c, tier);
	g_autofree char *hint = spell_hint(name, known);

	g_set_error(error, ALGO_ERROR, ALGO_ERROR_UNKNOWN,
		    "unknown %s algorithm '%s' in '%s' for %s (known: %s)%s",
		    tier == ALGO_TIER_INTRA ? "intra-node" : "inter-node", quote_text(name).s,
		    quote_text(whole).s, coll_name(c), *known ? known : "none", hint);
	return NULL;
}

G_LOCK_DEFINE_STATIC(hier_tables);
static GHashTable *hier_tables; /* name -> struct algo_ops, never freed: see the top */

const struct algo_ops *algo_hier_find(enum coll c, const char *name, GError **error)
{
	g_auto(GStrv) part = g_strsplit(name, "-", 0);

	g_assert(g_str_has_prefix(name, "hier-"));
	if (g_strv_length(part) != 3 || !*part[1] || !*part[2]) {
		g_set_error(error, ALGO_ERROR, ALGO_ERROR_UNKNOWN,
			    "unknown algorithm '%s' for %s (a hierarchical algorithm is "
			    "hier-INTRA-INTER, e.g. hier-ring-hd)",
			    quote_text(name).s, coll_name(c));
		return NULL;
	}
	if (!(c & HIER_COLLS)) {
		g_autofree char *known = algo_known_names(c);

		g_set_error(error, ALGO_ERROR, ALGO_ERROR_UNKNOWN,
			    "unknown algorithm '%s' for %s (known: %s; hierarchical algorithms build "
			    "allreduce, allgather and reducescatter)",
			    quote_text(name).s, coll_name(c), known);
		return NULL;
	}
	const struct algo_ops *intra = hier_tier_find(c, name, part[1], ALGO_TIER_INTRA, error);
	const struct algo_ops *inter =
		intra ? hier_tier_find(c, name, part[2], ALGO_TIER_INTER, error) : NULL;

	if (!inter)
		return NULL;
	G_LOCK(hier_tables);
	if (!hier_tables)
		hier_tables = g_hash_table_new(g_str_hash, g_str_equal);
	struct algo_ops *a = g_hash_table_lookup(hier_tables, name);

	if (!a) {
		unsigned colls = 0;

		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1)
			if ((bit & HIER_COLLS) && hier_tier_serves(intra, (enum coll)bit, ALGO_TIER_INTRA) &&
			    hier_tier_serves(inter, (enum coll)bit, ALGO_TIER_INTER))
				colls |= bit;
		a = g_new0(struct algo_ops, 1);
		*a = algo_hier_ops;
		a->name = g_strdup(name);
		a->summary = g_strdup_printf("hierarchical: %s within a node, %s across nodes",
					     intra->name, inter->name);
		a->collectives = colls;
		a->tiers[ALGO_TIER_INTRA] = intra;
		a->tiers[ALGO_TIER_INTER] = inter;
		g_hash_table_insert(hier_tables, (char *)a->name, a);
	}
	G_UNLOCK(hier_tables);
	return a;
}
