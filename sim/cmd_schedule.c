/* `g5 schedule`: builds one schedule through the registry and writes it as a
 * schedule file (docs/schedule-format.md), to stdout or, with -o, through a
 * temporary file renamed into place. */
#include <stdio.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/algos/schedule_file.h"
#include "sim/cli.h"
#include "sim/util/spell.h"
#include "sim/util/weights.h"
#include "sim/util/quote.h"

int cmd_schedule(int argc, char **argv)
{
	char *coll_s = NULL, *algo_s = NULL, *paxi_s = NULL, *out_s = NULL, *weights_s = NULL;
	char *dims_s = NULL;
	int dims[CLI_MAX_DIMS] = { 0 };
	gint ranks = G_MININT, nchunks = 1, root = 0, peer = -1, node_ranks = G_MININT;
	GOptionEntry entries[] = {
		{ "collective", 'c', 0, G_OPTION_ARG_STRING, &coll_s,
		  "allreduce, allgather, reducescatter, alltoall, broadcast, reduce, p2p, allgatherv",
		  "C" },
		{ "algo", 'a', 0, G_OPTION_ARG_STRING, &algo_s, "algorithm (ring, ring2p, ...)", "A" },
		{ "ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "number of ranks", "N" },
		{ "nchunks", 'k', 0, G_OPTION_ARG_INT, &nchunks, "pipelined pieces per chunk (default 1)",
		  "K" },
		{ "root", 0, 0, G_OPTION_ARG_INT, &root, "broadcast/reduce/p2p source (default 0)", "R" },
		{ "peer", 0, 0, G_OPTION_ARG_INT, &peer, "p2p destination (default root + 1)", "P" },
		{ "node-ranks", 0, 0, G_OPTION_ARG_INT, &node_ranks,
		  "ranks per node, for the hierarchical algorithms (hier, hier-ring-hd, ...)", "K" },
		{ "dims", 0, 0, G_OPTION_ARG_STRING, &dims_s,
		  "torus algorithms: the torus's extents (default --ranks as the most nearly square "
		  "2-D); without --ranks, their product", "AxBxC" },
		{ "paxi", 0, 0, G_OPTION_ARG_STRING, &paxi_s,
		  "override the PAXI kind: transfer or sendrecv", "KIND" },
		{ "counts", 0, 0, G_OPTION_ARG_STRING, &weights_s, "allgatherv: per-rank relative counts (same as --weights)", "W,W,..." },
		{ "weights", 0, 0, G_OPTION_ARG_STRING, &weights_s,
		  "allgatherv relative counts, one per rank (default equal)", "W0,W1,..." },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_s, "write to FILE (default stdout)",
		  "FILE" },
		{ NULL }
	};
	int rc = 2;
	uint64_t *weights = NULL;
	struct sched *s = NULL;
	GError *err = NULL;

	rc = cli_parse_entries("- write one schedule file",
			       "Examples:\n"
			       "  g5 schedule --collective allreduce --algo ring --ranks 8 -o ring8.g5s\n"
			       "  g5 schedule -c allreduce -a hier-ring-hd -n 32 --node-ranks 8 -k 4 -o h32.g5s\n"
			       "  g5 schedule -c allgatherv -a ring -n 4 --counts 1,0,5,2 | g5 verify -s -",
			       entries, &argc, &argv);
	if (rc)
		goto out;
	rc = 2;
	if (dims_s) {
		if (!cli_parse_dims(dims_s, dims, &err)) {
			rc = cli_usage_error(argv[0], "%s", err->message);
			goto out;
		}
		long prod = algo_dims_product(dims);

		if (ranks == G_MININT)
			ranks = prod > SCHED_MAX_RANKS ? SCHED_MAX_RANKS + 1 : (int)prod;
	}
	if (!coll_s || !algo_s || ranks == G_MININT) {
		rc = cli_usage_error(argv[0], "--collective, --algo and --ranks are required");
		goto out;
	}
	enum coll c;

	if (!coll_parse(coll_s, &c)) {
		static const char known[] = "allreduce, allgather, reducescatter, alltoall, broadcast, reduce, p2p, allgatherv";
		g_autofree char *hint = spell_hint(coll_s, known);

		rc = cli_usage_error(argv[0], "unknown collective '%s' (known: %s)%s", quote_text(coll_s).s, known, hint);
		goto out;
	}
	const struct algo_ops *a = algo_find(c, algo_s, &err);

	if (!a) {
		rc = cli_usage_error(argv[0], "%s", err->message);
		goto out;
	}
	struct algo_params p = {
		.nranks = ranks,
		.nchunks = nchunks > 0 ? (uint32_t)nchunks : 0,
		.root = root,
		.peer = peer >= 0 ? peer : (ranks > 0 ? (root + 1) % ranks : 1),
	};

	G_STATIC_ASSERT(CLI_MAX_DIMS == ALGO_MAX_DIMS);
	memcpy(p.dims, dims, sizeof(p.dims));
	if (node_ranks != G_MININT) {
		if (node_ranks < 1 || (ranks > 0 && ranks % node_ranks)) {
			rc = cli_usage_error(argv[0], "--node-ranks must be at least 1 and divide --ranks %d, got %d",
					     ranks, node_ranks);
			goto out;
		}
		p.node_ranks = node_ranks;
	}
	if (paxi_s) {
		if (!paxi_kind_parse(paxi_s, &p.paxi)) {
			rc = cli_usage_error(argv[0], "--paxi must be transfer or sendrecv, got '%s'",
					     quote_text(paxi_s).s);
			goto out;
		}
		p.paxi_set = true;
	}
	if (weights_s) {
		if (c != COLL_ALLGATHERV) {
			rc = cli_usage_error(argv[0], "--weights is only for allgatherv");
			goto out;
		}
		if (ranks < 1 || ranks > SCHED_MAX_RANKS) {
			rc = cli_usage_error(argv[0], "'ranks' must be in 2..%d, got %d", SCHED_MAX_RANKS,
					     ranks);
			goto out;
		}
		if (!weights_parse_list(weights_s, ranks, &weights, &err)) {
			rc = cli_usage_error(argv[0], "--weights %s", err->message);
			goto out;
		}
		p.weights = weights;
	}
	s = algo_build(a, c, &p, &err);
	if (!s) {
		/* parameters out of range are bad usage; an N the algorithm does
		 * not admit too: the user asked for something that does not exist */
		rc = cli_usage_error(argv[0], "%s", err->message);
		goto out;
	}
	if (!sched_file_write(s, out_s ? out_s : "-", &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err->message);
		rc = 1;
		goto out;
	}
	/* on stderr: standard output may be the schedule itself (-o -) */
	if (out_s && strcmp(out_s, "-"))
		fprintf(stderr, "%s: wrote %s (%s %s, %d ranks, nchunks %u)\n", argv[0], out_s,
			coll_name(c), a->name, s->nranks, s->nchunks);
	rc = 0;
out:
	if (err)
		g_error_free(err);
	sched_free(s);
	g_free(weights);
	g_free(coll_s);
	g_free(algo_s);
	g_free(paxi_s);
	g_free(out_s);
	g_free(weights_s);
	g_free(dims_s);
	return rc;
}
