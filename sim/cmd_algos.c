/* `g5 algos`: what the registry holds, read from it so that it cannot go
 * stale: for each collective the algorithms it accepts (--algo, the
 * `algorithms:` of an experiment file), then each algorithm with its
 * collectives, its default PAXI kind, the rank counts it admits (probed with
 * algo_build on N = 2..ALGOS_PROBE_N) and its summary. --markdown prints the
 * same as docs/algorithms.md holds; tests/algos checks the file against it. */
#include <stdio.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/cli.h"

#define ALGOS_PROBE_N 64

/* The rank counts in 2..ALGOS_PROBE_N that `a` builds collective c for:
 * "any", "powers of two" or "N >= k". */
static const char *admitted_ranks(const struct algo_ops *a, enum coll c, char *buf, size_t len)
{
	bool all = true, pow2 = true;
	int first = 0;

	if (a->tiers[0]) /* the tiers' rules on nodes and node_ranks */
		return "nodes x node_ranks";
	for (int n = 2; n <= ALGOS_PROBE_N; n++) {
		struct algo_params p = { .nranks = n, .nchunks = 1, .root = 0, .peer = 1 };
		GError *err = NULL;
		struct sched *s = algo_build(a, c, &p, &err);
		bool ok = s != NULL;

		sched_free(s);
		g_clear_error(&err);
		if (ok && !first)
			first = n;
		all &= ok;
		pow2 &= ok == !(n & (n - 1));
	}
	if (all)
		return "any";
	if (pow2)
		return "powers of two";
	snprintf(buf, len, "some (from %d)", first);
	return buf;
}

static char *coll_list(unsigned mask)
{
	GString *g = g_string_new(NULL);

	for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1)
		if (mask & bit)
			g_string_append_printf(g, "%s%s", g->len ? ", " : "", coll_name((enum coll)bit));
	return g_string_free(g, FALSE);
}

/* One registry entry's rank rule: the same for each of its collectives, or
 * per collective. */
static char *ranks_rule(const struct algo_ops *a)
{
	GString *g = g_string_new(NULL);
	const char *same = NULL;
	bool differ = false;
	char buf[64];

	for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
		if (!(a->collectives & bit))
			continue;
		const char *r = admitted_ranks(a, (enum coll)bit, buf, sizeof(buf));

		if (same && strcmp(same, r))
			differ = true;
		if (!same)
			same = g_intern_string(r);
		g_string_append_printf(g, "%s%s: %s", g->len ? "; " : "", coll_name((enum coll)bit), r);
	}
	if (!differ) {
		g_string_free(g, TRUE);
		return g_strdup(same);
	}
	return g_string_free(g, FALSE);
}

static void print_text(void)
{
	const struct algo_ops *const *all = algo_all();

	printf("collective      algorithms (--algo)\n");
	for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
		g_autofree char *known = algo_known_names((enum coll)bit);

		printf("%-15s %s\n", coll_name((enum coll)bit), known);
	}
	printf("\n%-10s %-9s %-16s %s\n", "algorithm", "paxi", "ranks", "summary");
	for (const struct algo_ops *const *a = all; *a; a++) {
		g_autofree char *colls = coll_list((*a)->collectives);
		g_autofree char *ranks = ranks_rule(*a);

		printf("%-10s %-9s %-16s %s\n%-10s %-9s %-16s (%s)\n", (*a)->name,
		       paxi_kind_name((*a)->default_paxi), ranks, (*a)->summary, "", "", "", colls);
	}
}

static void print_markdown(void)
{
	printf("# Algorithms by collective\n\n"
	       "Generated from the algorithm registry (sim/algos/registry.c) by\n"
	       "`build/g5 algos --markdown > docs/algorithms.md`; tests/algos fails when\n"
	       "this file differs from the command's output. How an algorithm is added:\n"
	       "docs/design.md.\n\n"
	       "## Which algorithms each collective accepts\n\n"
	       "The names `g5 sim --algo` and an experiment's `algorithms:` take, in\n"
	       "registry order.\n\n"
	       "| collective | algorithms |\n| --- | --- |\n");
	for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
		g_autofree char *known = algo_known_names((enum coll)bit);

		printf("| %s | %s |\n", coll_name((enum coll)bit), known);
	}
	printf("\n## The registry\n\n"
	       "One row per registry entry (a name may stand for different schedules\n"
	       "for different collectives). *PAXI* is the kind its ops use unless an\n"
	       "experiment overrides it (`paxi:`, `--paxi`); *ranks* are the rank\n"
	       "counts in 2..%d it builds a schedule for (others are refused as not\n"
	       "admitted).\n\n"
	       "| algorithm | collectives | PAXI | ranks | what it is |\n"
	       "| --- | --- | --- | --- | --- |\n",
	       ALGOS_PROBE_N);
	for (const struct algo_ops *const *a = algo_all(); *a; a++) {
		g_autofree char *colls = coll_list((*a)->collectives);
		g_autofree char *ranks = ranks_rule(*a);

		printf("| `%s` | %s | %s | %s | %s |\n", (*a)->name, colls,
		       paxi_kind_name((*a)->default_paxi), ranks, (*a)->summary);
	}
	printf("\n## Hierarchical algorithms\n\n"
	       "`hier-INTRA-INTER` composes two flat algorithms over a machine of\n"
	       "nodes of `node_ranks` ranks each (`--node-ranks K`, an experiment's\n"
	       "`node_ranks: K`; it must divide the rank count): INTRA among the ranks\n"
	       "of a node, INTER along each rail (local rank j of every node). `hier`\n"
	       "is `hier-ring-ring`. Without `node_ranks`, `g5 sim` and `g5 run` take\n"
	       "the platform's nodes (a platform without tiers is one node: the\n"
	       "intra-node tier alone); `g5 schedule` needs it, and `g5 verify` sweeps\n"
	       "every divisor of N. A tier of one rank has no stage. Each stage is the\n"
	       "flat algorithm's own schedule on the tier's ranks, embedded in the\n"
	       "whole (sim/algos/hier.c); a rank count a tier's algorithm does not\n"
	       "admit (rd across 6 nodes) is refused with a message naming the tier.\n"
	       "Each stage's ops keep their algorithm's PAXI kind. An AllReduce whose\n"
	       "INTRA builds Reduce and Broadcast but not ReduceScatter and AllGather\n"
	       "(binomial, chain) is rooted, as NCCL's tree with intra-node chains:\n"
	       "intra Reduce to local rank 0, one inter AllReduce of the whole buffer\n"
	       "among the local ranks 0, intra Broadcast from local rank 0\n"
	       "(`hier-chain-dbtree`: NCCL's double binary tree across nodes).\n\n"
	       "| collective | stages | INTRA | INTER |\n| --- | --- | --- | --- |\n");
	static const char *const stages[] = {
		"intra reduce-scatter, inter allreduce on 1/L of the data per rail, intra allgather "
		"(rooted: intra reduce, inter allreduce of all on rail 0, intra broadcast)",
		"inter allgather per rail, then intra allgather per node row",
		"intra reduce-scatter per node row, then inter reduce-scatter per rail",
	};
	static const enum coll hier[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };

	for (size_t i = 0; i < G_N_ELEMENTS(hier); i++) {
		g_autofree char *intra = algo_hier_tier_names(hier[i], ALGO_TIER_INTRA);
		g_autofree char *inter = algo_hier_tier_names(hier[i], ALGO_TIER_INTER);

		printf("| %s | %s | %s | %s |\n", coll_name(hier[i]), stages[i], intra, inter);
	}
	printf("\nAllGather runs the inter tier first: each rank then sends only its own\n"
	       "block over the slow tier, (nodes - 1) x M/N, the least any schedule\n"
	       "can (a node must bring in the other nodes' data, and its L rails share\n"
	       "it); intra first would send a whole node's data along every rail, L\n"
	       "times more. ReduceScatter is its mirror.\n\n"
	       "Theory: the stages' terms added, each on the part of M it moves\n"
	       "(X_n: flat algorithm X on n ranks, L = node_ranks):\n\n"
	       "| collective | steps and bandwidth coefficient |\n| --- | --- |\n"
	       "| allreduce | RS_L(M) + AR_nodes(M/L) + AG_L(M) |\n"
	       "| allgather | AG_nodes(M/L) + AG_L(M) (the node rows run side by side) |\n"
	       "| reducescatter | RS_L(M) + RS_nodes(M/L) |\n");
}

int cmd_algos(int argc, char **argv)
{
	gboolean markdown = FALSE;
	GOptionEntry entries[] = {
		{ "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "print docs/algorithms.md (Markdown tables)", NULL },
		{ NULL }
	};
	int rc = cli_parse_entries("- the algorithms each collective accepts",
				   "Examples:\n"
				   "  g5 algos\n"
				   "  g5 algos --markdown > docs/algorithms.md",
				   entries, &argc, &argv);

	if (rc)
		return rc;
	if (markdown)
		print_markdown();
	else
		print_text();
	return 0;
}
