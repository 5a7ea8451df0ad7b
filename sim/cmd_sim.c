/* `g5 sim`: one collective (or a list of sizes) on the seed platform with any
 * parameter changed from the command line, or on a schedule file. Sizes come
 * from --size or, as nccl-tests takes them, from -b/-e/-f. Prints one line
 * per size (or one JSON object per line with --json, or nccl-tests' table
 * with --nccl-table); --verbose then adds, size by size, the per-rank step
 * times and the per-channel traffic, after the table of every size. */
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/algos/schedule_file.h"
#include "sim/algos/verify.h"
#include "sim/cli.h"
#include "sim/config.h"
#include "sim/fidelity.h"
#include "sim/simulate.h"
#include "sim/util/spell.h"
#include "sim/util/units.h"
#include "sim/util/weights.h"
#include "sim/util/quote.h"

struct sim_opts {
	char *topo, *ranks, *dims, *link_bw, *link_lat, *packet, *header, *credits, *credit_ret;
	char *error_rate, *window, *timeout, *inject_bw, *eject_bw, *reduce_bw, *setup, *ctrl_proc;
	char *slice, *cdma_units, *slots, *overhead, *alpha, *beta;
	char *collective, *algo, *size, *paxi, *dtype, *schedule;
	char *counts, *counts_dist, *platform, *mode, *proto;
	char *minbytes, *maxbytes, *stepfactor, *fidelity;
	char **set;
	gint nchunks, root, peer, node_ranks;
	gint64 seed, max_events, iters;
	gboolean json, verbose, breakdown, nccl_table, inplace;
	char *trace;
};

/* The flags that stand for a platform key: they go through the key table
 * (sim/config.c), with its grammar and its limits, in this order. */
static const struct {
	const char *flag, *key;
	size_t off; /* of the char * in struct sim_opts */
} platform_flags[] = {
#define F(flag, key, field) { flag, key, offsetof(struct sim_opts, field) }
	F("--topo", "topology.kind", topo),
	F("--ranks", "topology.ranks", ranks),
	F("--link-bw", "link.bandwidth", link_bw),
	F("--link-lat", "link.latency", link_lat),
	F("--packet", "link.packet", packet),
	F("--header", "link.header", header),
	F("--credits", "link.credits", credits),
	F("--credit-return", "link.credit_return", credit_ret),
	F("--error-rate", "link.error_rate", error_rate),
	F("--window", "link.window", window),
	F("--timeout", "link.timeout", timeout),
	F("--inject-bw", "node.inject", inject_bw),
	F("--eject-bw", "node.eject", eject_bw),
	F("--reduce-bw", "paxi.reduce", reduce_bw),
	F("--setup", "paxi.setup", setup),
	F("--ctrl-proc", "paxi.ctrl_proc", ctrl_proc),
	F("--slice", "paxi.slice", slice),
	F("--cdma-units", "paxi.cdma_units", cdma_units),
	F("--slots", "paxi.slots", slots),
	F("--overhead", "overhead", overhead),
	F("--alpha", "alpha", alpha),
	F("--beta", "beta", beta),
	F("--fidelity", "fidelity", fidelity),
#undef F
};

/* Applies the flags that change the platform. */
static bool apply_platform(const struct sim_opts *o, struct platform *pl, GError **error)
{
	for (size_t i = 0; i < G_N_ELEMENTS(platform_flags); i++) {
		const char *v = *(char *const *)((const char *)o + platform_flags[i].off);

		if (v && !config_platform_set_as(pl, platform_flags[i].key, platform_flags[i].flag, v,
						 error))
			return false;
	}
	if (o->dims) {
		int d[LINK_MAX_DIMS] = { 0 };
		GError *e = NULL;

		if (!cli_parse_dims(o->dims, d, &e)) {
			g_propagate_error(error, e);
			return false;
		}
		memcpy(pl->fabric.dims, d, sizeof(d));
		if (fabric_dims_product(&pl->fabric) > LINK_MAX_RANKS) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "--dims %s make more than %d ranks", quote_text(o->dims).s,
				    LINK_MAX_RANKS);
			return false;
		}
		if (!o->ranks)
			pl->fabric.nranks = (int)fabric_dims_product(&pl->fabric);
	}
	return true;
}

/* "64MiB", "1KiB,1MiB", "1KiB..512MiB" or "1KiB..1GiB x4": a comma list of
 * the experiment files' size entries (config_size_range). */
/* -b/-e/-f as nccl-tests takes them: sizes from -b to -e (either alone: that
 * one size), each -f times the one before (2 when not given). */
static bool nccl_sizes(const struct sim_opts *o, GArray *out, GError **error)
{
	const char *flag[2] = { "-b", "-e" };
	const char *text[2] = { o->minbytes ? o->minbytes : o->maxbytes,
				o->maxbytes ? o->maxbytes : o->minbytes };
	uint64_t v[2];
	gint64 f = 2;

	for (int i = 0; i < 2; i++) {
		GError *e = NULL;

		if (!units_parse_size(text[i], &v[i], &e)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "%s %s",
				    text[i] == o->minbytes ? flag[0] : flag[1], e->message);
			g_error_free(e);
			return false;
		}
	}
	uint64_t lo = v[0], hi = v[1];

	if (lo < 1) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "-b must be at least 1 byte");
		return false;
	}
	if (lo > hi) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
			    "-e %s is below -b %s", o->maxbytes, o->minbytes);
		return false;
	}
	if (o->stepfactor &&
	    !g_ascii_string_to_signed(o->stepfactor, 10, 2, 1024, &f, NULL)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
			    "-f must be an integer factor 2..1024, got '%s'", quote_text(o->stepfactor).s);
		return false;
	}
	for (uint64_t b = lo; b <= hi; b *= (uint64_t)f) {
		g_array_append_val(out, b);
		if (b > UINT64_MAX / (uint64_t)f)
			break;
	}
	return true;
}

/* nccl-tests' names of the element types and reduction operations. */
static const char *nccl_type_name(enum dtype d)
{
	switch (d) {
	case DTYPE_FP16: return "half";
	case DTYPE_BF16: return "bfloat16";
	default: return "float";
	}
}

static bool coll_reduces(enum coll c)
{
	return c == COLL_ALLREDUCE || c == COLL_REDUCESCATTER || c == COLL_REDUCE;
}

/* The header of nccl-tests' table: the placements' labels, the column names
 * and their units. The simulator runs one placement (the schedule's
 * buffers); its numbers are the out-of-place columns, and the in-place ones
 * read N/A, as nccl-tests prints a placement it did not run. */
static void nccl_table_header(void)
{
	printf("#%64s%35s\n", "out-of-place", "in-place");
	printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size",
	       "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
	       "algbw", "busbw", "#wrong");
	printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
	       "");
}

/* One row of nccl-tests' table; #wrong is N/A: nothing was computed. */
static void nccl_table_row(const struct simulate_job *job, enum dtype dt,
			   const struct simulate_outcome *r)
{
	bool rooted = job->coll == COLL_BROADCAST || job->coll == COLL_REDUCE;

	printf(" %11" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT "  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6s"
	       "  %7s  %6s  %6s  %6s\n",
	       job->bytes, job->bytes / job->elem_bytes, nccl_type_name(dt),
	       coll_reduces(job->coll) ? "sum" : "none", rooted ? job->params.root : -1,
	       r->latency_us, r->algbw_gbps, r->busbw_gbps, "N/A", "N/A", "N/A", "N/A", "N/A");
}

static void print_verbose(const struct simulate_outcome *r, const struct platform *pl)
{
	printf("  per rank and step (us from the call):\n");
	for (guint i = 0; i < r->run.steps->len; i++) {
		const struct runner_step *s = &g_array_index(r->run.steps, struct runner_step, i);

		if (s->start_ps == SIM_TIME_MAX)
			continue;
		printf("    rank %3d step %3u  start %12.3f  end %12.3f  sent %" G_GUINT64_FORMAT " B\n",
		       s->rank, s->step, (double)s->start_ps / 1e6, (double)s->end_ps / 1e6,
		       s->bytes_sent);
	}
	printf("  per channel:\n");
	for (guint i = 0; i < r->channels->len; i++) {
		const struct channel_stats *c = &g_array_index(r->channels, struct channel_stats, i);
		double util = r->run.latency_ps ? (double)c->busy_ps / (double)r->run.latency_ps : 0;

		if (!c->wire_bytes)
			continue;
		printf("    %3d -> %-3d payload %14" G_GUINT64_FORMAT " B  wire %14" G_GUINT64_FORMAT
		       " B  packets %9" G_GUINT64_FORMAT "  retx %6" G_GUINT64_FORMAT "  util %5.1f %%\n",
		       c->src, c->dst, c->payload_bytes, c->wire_bytes, c->packets, c->retransmitted,
		       100.0 * util);
	}
	(void)pl;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o = { .seed = 1, .peer = -1, .nchunks = INT_MIN, /* INT_MIN: not given */
				.node_ranks = INT_MIN,
				.max_events = G_MININT64, .iters = 1 };
	GOptionEntry entries[] = {
		{ "platform", 0, 0, G_OPTION_ARG_FILENAME, &o.platform, "platform file (configs/platforms/NAME.yaml); flags below change it", "FILE" },
		{ "topo", 0, 0, G_OPTION_ARG_STRING, &o.topo, "ring, ring-uni, fullmesh, hypercube, torus, switch", "T" },
		{ "ranks", 0, 0, G_OPTION_ARG_STRING, &o.ranks, "ranks (default 8)", "N" },
		{ "dims", 0, 0, G_OPTION_ARG_STRING, &o.dims, "torus or mesh extents", "AxBxC" },
		{ "link-bw", 0, 0, G_OPTION_ARG_STRING, &o.link_bw, "link bandwidth per direction (450GB/s)", "BW" },
		{ "link-lat", 0, 0, G_OPTION_ARG_STRING, &o.link_lat, "link propagation latency", "T" },
		{ "packet", 0, 0, G_OPTION_ARG_STRING, &o.packet, "maximum packet payload", "SIZE" },
		{ "header", 0, 0, G_OPTION_ARG_STRING, &o.header, "packet header bytes", "SIZE" },
		{ "credits", 0, 0, G_OPTION_ARG_STRING, &o.credits, "receive-buffer credits in packets (0: unlimited)", "N" },
		{ "credit-return", 0, 0, G_OPTION_ARG_STRING, &o.credit_ret, "credit-return delay", "T" },
		{ "error-rate", 0, 0, G_OPTION_ARG_STRING, &o.error_rate, "packet error rate", "P" },
		{ "window", 0, 0, G_OPTION_ARG_STRING, &o.window, "Go-Back-N window in packets", "N" },
		{ "timeout", 0, 0, G_OPTION_ARG_STRING, &o.timeout, "Go-Back-N timeout", "T" },
		{ "inject-bw", 0, 0, G_OPTION_ARG_STRING, &o.inject_bw, "node injection bandwidth", "BW" },
		{ "eject-bw", 0, 0, G_OPTION_ARG_STRING, &o.eject_bw, "node ejection bandwidth", "BW" },
		{ "reduce-bw", 0, 0, G_OPTION_ARG_STRING, &o.reduce_bw, "node reduction bandwidth", "BW" },
		{ "cdma-units", 0, 0, G_OPTION_ARG_STRING, &o.cdma_units, "CDMA units per node (1-port: 1, 2-port: 2)", "N" },
		{ "slots", 0, 0, G_OPTION_ARG_STRING, &o.slots, "outstanding transactions per CDMA unit", "N" },
		{ "setup", 0, 0, G_OPTION_ARG_STRING, &o.setup, "CDMA setup per transaction", "T" },
		{ "ctrl-proc", 0, 0, G_OPTION_ARG_STRING, &o.ctrl_proc, "processing of a control message", "T" },
		{ "slice", 0, 0, G_OPTION_ARG_STRING, &o.slice, "Transfer forwarding granularity", "SIZE" },
		{ "overhead", 0, 0, G_OPTION_ARG_STRING, &o.overhead, "software overhead per collective (26us)", "T" },
		{ "alpha", 0, 0, G_OPTION_ARG_STRING, &o.alpha, "alpha-beta model: alpha (2us)", "T" },
		{ "beta", 0, 0, G_OPTION_ARG_STRING, &o.beta, "alpha-beta model: beta (the link bandwidth)", "BW" },
		{ "fidelity", 0, 0, G_OPTION_ARG_STRING, &o.fidelity, "packet (default: every packet, the reference) or flow (messages as flows sharing links max-min fairly)", "F" },
		{ "collective", 0, 0, G_OPTION_ARG_STRING, &o.collective, "allreduce, allgather, ...", "C" },
		{ "algo", 0, 0, G_OPTION_ARG_STRING, &o.algo, "algorithm (ring, ring2p, hd, ...)", "A" },
		{ "size", 0, 0, G_OPTION_ARG_STRING, &o.size, "size(s): 64MiB, 1KiB,1MiB, 1KiB..512MiB (doubling) or 1KiB..1GiB x4", "S" },
		{ "nchunks", 0, 0, G_OPTION_ARG_INT, &o.nchunks, "pipelining pieces per chunk (1)", "K" },
		{ "root", 0, 0, G_OPTION_ARG_INT, &o.root, "root rank (broadcast, reduce, p2p source)", "R" },
		{ "peer", 0, 0, G_OPTION_ARG_INT, &o.peer, "p2p destination (1)", "P" },
		{ "node-ranks", 0, 0, G_OPTION_ARG_INT, &o.node_ranks, "ranks per node, for the hierarchical algorithms (hier, hier-ring-hd, ...); divides --ranks", "K" },
		{ "paxi", 0, 0, G_OPTION_ARG_STRING, &o.paxi, "override the PAXI kind: transfer or sendrecv", "K" },
		{ "minbytes", 'b', 0, G_OPTION_ARG_STRING, &o.minbytes, "as nccl-tests: first size (4K, 1M, 1G or 4KiB), instead of --size", "SIZE" },
		{ "maxbytes", 'e', 0, G_OPTION_ARG_STRING, &o.maxbytes, "as nccl-tests: last size", "SIZE" },
		{ "stepfactor", 'f', 0, G_OPTION_ARG_STRING, &o.stepfactor, "as nccl-tests: each size this many times the one before (2)", "N" },
		{ "dtype", 'd', 0, G_OPTION_ARG_STRING, &o.dtype, "fp32 (default), fp16, bf16; or float, half, bfloat16", "D" },
		{ "counts", 0, 0, G_OPTION_ARG_STRING, &o.counts, "allgatherv: per-rank relative weights, e.g. 1,0,5,...", "W,W,..." },
		{ "counts-dist", 0, 0, G_OPTION_ARG_STRING, &o.counts_dist, "allgatherv: draw the weights (zipf:1.2, lognormal:1, heavy:8) with --seed", "DIST" },
		{ "schedule", 0, 0, G_OPTION_ARG_FILENAME, &o.schedule, "run a schedule file instead of --algo", "FILE" },
		{ "seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "RNG seed (1)", "N" },
		{ "max-events", 0, 0, G_OPTION_ARG_INT64, &o.max_events, "refuse a size estimated above N events, stop one that reaches N (500000000; 0: no limit)", "N" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "one JSON object per result", NULL },
		{ "nccl-table", 0, 0, G_OPTION_ARG_NONE, &o.nccl_table, "nccl-tests' table: its columns, with a units row under the header", NULL },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o.verbose, "per-step times and per-channel traffic", NULL },
		{ "breakdown", 0, 0, G_OPTION_ARG_NONE, &o.breakdown, "where the critical path's time went", NULL },
		{ "trace", 0, 0, G_OPTION_ARG_FILENAME, &o.trace, "write a Chrome/Perfetto trace (one size only)", "FILE.json" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.set, "set any platform key, e.g. paxi.handshake=ready (repeatable; after the flags above)", "KEY=VALUE" },
		{ "mode", 0, 0, G_OPTION_ARG_STRING, &o.mode, "single (one process, default) or mpi (one per rank): picks the launch cost", "M" },
		{ "proto", 0, 0, G_OPTION_ARG_STRING, &o.proto, "Transfer protocol: simple (default), ll, ll128, or auto (algo nccl: NCCL's pick)", "P" },
		{ "iters", 'n', 0, G_OPTION_ARG_INT64, &o.iters, "as nccl-tests: the time of one call among N launched back to back, as a timer averages them (1: one call alone)", "N" },
		{ "inplace", 0, 0, G_OPTION_ARG_NONE, &o.inplace, "run in place (a schedule that is out-of-place only first copies its input aside, as the executor does)", NULL },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("- simulate one collective");
	struct platform pl;
	GError *err = NULL;
	int rc = 2;
	struct sched *file_sched = NULL, *built = NULL;
	GArray *sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	struct simulate_job job = { 0 };
	uint64_t *weights = NULL;
	GArray *outcomes = NULL;
	double forwarded = 0; /* the largest share of bytes that ranks forward */
	uint64_t forwarded_largest = 0; /* and the largest message they forward */
	double switched = 0; /* the largest share of bytes that cross two switches or more */

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 sim --algo hd --size 1KiB..512MiB\n"
					 "  g5 sim -b 4K -e 1G -f 2 -d float --nccl-table     # as nccl-tests prints it\n"
					 "  g5 sim --platform configs/platforms/hypercube8.yaml --algo hd --size 64MiB --breakdown");
	platform_init_default(&pl);
	if (!cli_parse(ctx, argv[0], &argc, &argv))
		goto out;
	if (argc > 1) {
		cli_usage_error(argv[0], "unexpected argument '%s'", quote_text(argv[1]).s);
		goto out;
	}
	if (o.platform) {
		platform_release(&pl);
		if (!config_platform_load(o.platform, &pl, &err)) {
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
			platform_init_default(&pl);
			goto out;
		}
	}
	if (!apply_platform(&o, &pl, &err))
		goto usage;
	if (!cli_platform_flags(argv[0], &pl, o.set, o.mode, &job.mode))
		goto out;
	job.proto = SIMULATE_PROTO_AUTO;
	if (o.proto && strcmp(o.proto, "auto")) {
		enum paxi_proto pp;

		if (!paxi_proto_parse(o.proto, &pp)) {
			cli_usage_error(argv[0], "--proto must be simple, ll, ll128 or auto, got '%s'",
					quote_text(o.proto).s);
			goto out;
		}
		job.proto = (int)pp;
	}
	if (o.size && !*o.size) {
		cli_usage_error(argv[0], "--size is empty");
		goto out;
	}
	if (o.size && (o.minbytes || o.maxbytes || o.stepfactor)) {
		cli_usage_error(argv[0], "give --size or -b/-e/-f, not both");
		goto out;
	}
	if (o.stepfactor && !o.minbytes && !o.maxbytes) {
		cli_usage_error(argv[0], "-f needs -b or -e");
		goto out;
	}
	if (o.json && o.nccl_table) {
		cli_usage_error(argv[0], "give --json or --nccl-table, not both");
		goto out;
	}
	if (o.minbytes || o.maxbytes) {
		if (!nccl_sizes(&o, sizes, &err))
			goto usage;
	} else if (!config_size_list("--size", o.size ? o.size : "64MiB", sizes, &err))
		goto usage;
	enum dtype dt = DTYPE_FP32;

	if (o.dtype && !dtype_parse(o.dtype, &dt)) {
		cli_usage_error(argv[0], "unknown dtype '%s' (known: %s)", quote_text(o.dtype).s, DTYPE_KNOWN);
		goto out;
	}
	job.elem_bytes = dtype_elem_bytes(dt);
	for (guint i = 0; i < sizes->len; i++)
		if (g_array_index(sizes, uint64_t, i) % job.elem_bytes) {
			cli_usage_error(argv[0], "--size %" G_GUINT64_FORMAT " is not a whole number of %s elements (%u bytes)",
					g_array_index(sizes, uint64_t, i), dtype_name(dt), job.elem_bytes);
			goto out;
		}
	if (o.nchunks != INT_MIN && o.nchunks < 1) {
		cli_usage_error(argv[0], "--nchunks must be at least 1, got %d", o.nchunks);
		goto out;
	}
	if (o.schedule && (o.algo || o.collective || o.nchunks != INT_MIN)) {
		cli_usage_error(argv[0], "--%s does nothing with --schedule: the file says it",
				o.algo ? "algo" : o.collective ? "collective" : "nchunks");
		goto out;
	}
	if (o.dims && !topo_takes(pl.fabric.topo, TOPO_PARAM_DIMS)) {
		g_autofree char *kinds = topo_names_taking(TOPO_PARAM_DIMS);

		cli_usage_error(argv[0], "--dims is only for kind %s, not %s", kinds,
				topo_name(pl.fabric.topo));
		goto out;
	}
	if (o.max_events != G_MININT64 && o.max_events < 0) {
		cli_usage_error(argv[0], "--max-events must be 0 (no limit) or more, got %" G_GINT64_FORMAT,
				o.max_events);
		goto out;
	}
	job.max_events = o.max_events == 0 ? UINT64_MAX : o.max_events > 0 ? (uint64_t)o.max_events : 0;
	job.params.nchunks = o.nchunks != INT_MIN ? (uint32_t)o.nchunks : 1;
	job.params.root = o.root;
	job.params.peer = o.peer >= 0 ? o.peer : 1;
	if (o.node_ranks != INT_MIN && o.node_ranks < 1) {
		cli_usage_error(argv[0], "--node-ranks must be at least 1, got %d", o.node_ranks);
		goto out;
	}
	job.params.node_ranks = o.node_ranks != INT_MIN ? o.node_ranks : 0;
	if (o.paxi) {
		job.params.paxi_set = true;
		if (!paxi_kind_parse(o.paxi, &job.params.paxi)) {
			cli_usage_error(argv[0], "--paxi must be transfer or sendrecv, got '%s'", quote_text(o.paxi).s);
			goto out;
		}
	}
	if (o.schedule) {
		g_autoptr(GArray) lines = NULL;

		file_sched = sched_file_load(o.schedule, &lines, &err);
		/* a bad input file, like a bad flag: status 2; one that the verifier
		 * rejects would not compute its collective: refused the same way */
		if (!file_sched ||
		    !verify_sched_file(file_sched, lines,
				       strcmp(o.schedule, "-") ? o.schedule : "<stdin>", &err)) {
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
			goto out;
		}
		if (!o.ranks)
			pl.fabric.nranks = file_sched->nranks;
		job.schedule = file_sched;
		job.coll = file_sched->coll;
	} else {
		if (!o.collective)
			o.collective = g_strdup("allreduce");
		if (!coll_parse(o.collective, &job.coll)) {
			static const char known[] = "allreduce, allgather, reducescatter, alltoall, broadcast, reduce, p2p, allgatherv";
			g_autofree char *hint = spell_hint(o.collective, known);

			cli_usage_error(argv[0], "unknown collective '%s' (known: %s)%s", quote_text(o.collective).s,
					known, hint);
			goto out;
		}
		job.algo = o.algo ? o.algo : "ring";
		if (!algo_find(job.coll, job.algo, &err))
			goto usage;
	}
	job.plat = &pl;
	job.seed = (uint64_t)o.seed;
	job.no_steps = !o.verbose; /* only --verbose prints the step table */
	job.no_breakdown = !o.breakdown; /* only --breakdown prints it */
	if (o.counts || o.counts_dist) {
		struct weights_dist wd;

		if (job.coll != COLL_ALLGATHERV) {
			cli_usage_error(argv[0], "--counts and --counts-dist are only for allgatherv");
			goto out;
		}
		if (o.counts && o.counts_dist) {
			cli_usage_error(argv[0], "give --counts or --counts-dist, not both");
			goto out;
		}
		if (o.counts && !weights_parse_list(o.counts, pl.fabric.nranks, &weights, &err)) {
			g_prefix_error(&err, "--counts ");
			goto usage;
		}
		if (o.counts_dist) {
			if (!weights_parse_dist(o.counts_dist, &wd, &err)) {
				g_prefix_error(&err, "--counts-dist ");
				goto usage;
			}
			weights = weights_draw(pl.fabric.nranks, &wd, job.seed);
		}
		job.params.weights = weights;
	}
	if (o.iters < 1 || o.iters > 1000000) {
		cli_usage_error(argv[0], "--iters must be 1..1000000, got %" G_GINT64_FORMAT, o.iters);
		goto out;
	}
	if (o.iters > 1 && (o.trace || o.breakdown)) {
		cli_usage_error(argv[0], "--%s shows one call: give --iters 1 with it",
				o.trace ? "trace" : "breakdown");
		goto out;
	}
	job.launches = (uint32_t)o.iters;
	job.inplace = o.inplace;
	if (o.trace) {
		if (sizes->len != 1) {
			cli_usage_error(argv[0], "--trace takes one size, got %u", sizes->len);
			goto out;
		}
		job.trace = true;
	}
	/* Everything that can be refused is, before any output: the fabric's
	 * shape (status 2: a platform file's shape was checked when it was
	 * loaded, so a bad one here comes from the flags), then the schedule's
	 * parameters through the registry (status 2, bad usage; status 1 for an
	 * N the algorithm does not admit). */
	if (!fabric_shape_check(&pl.fabric, NULL, &err))
		goto usage;
	if (job.schedule && job.schedule->nranks != pl.fabric.nranks) {
		cli_usage_error(argv[0], "the schedule has %d ranks but the platform %d",
				job.schedule->nranks, pl.fabric.nranks);
		goto out;
	}
	if (job.params.node_ranks && pl.fabric.nranks % job.params.node_ranks) {
		cli_usage_error(argv[0], "--node-ranks %d does not divide the %d ranks",
				job.params.node_ranks, pl.fabric.nranks);
		goto out;
	}
	if (!job.schedule) {
		struct algo_params p;

		/* built once: the check, every size and protocol run it */
		simulate_params(&job, &p);
		built = algo_build(algo_find(job.coll, job.algo, NULL), job.coll, &p, &err);
		if (!built) {
			if (g_error_matches(err, ALGO_ERROR, ALGO_ERROR_NOT_ADMITTED)) {
				fprintf(stderr, "%s: %s\n", argv[0], err->message);
				rc = 1;
				goto out;
			}
			goto usage;
		}
		job.built = built;
	}
	/* a size whose run cannot fit the clock: refused before any output */
	for (guint i = 0; i < sizes->len; i++) {
		job.bytes = g_array_index(sizes, uint64_t, i);
		if (!simulate_check(&job, &err)) {
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
			rc = 1;
			goto out;
		}
	}
	rc = 0;
	if (o.nccl_table)
		nccl_table_header();
	else if (!o.json) {
		if (weights)
			printf("# counts %s, skew (max/mean) %.3f\n", o.counts ? "as given" : o.counts_dist,
			       weights_skew(weights, pl.fabric.nranks));
		printf("# %-13s %-9s %5s %10s %12s %10s %10s %12s %10s %9s\n", "collective", "algo", "ranks",
		       "bytes", "latency_us", "algbw", "busbw", "theory_us", "events", "wall_s");
	}
	/* with --verbose, the table of every size comes first, then each size's
	 * details: kept here until the table is complete */
	outcomes = g_array_new(FALSE, TRUE, sizeof(struct simulate_outcome));
	for (guint i = 0; i < sizes->len; i++) {
		struct simulate_outcome r;

		job.bytes = g_array_index(sizes, uint64_t, i);
		if (!simulate(&job, &r, &err)) {
			fprintf(stderr, "%s: %s\n", argv[0], err->message);
			g_clear_error(&err);
			rc = 1;
			break;
		}
		const char *algo = job.schedule ? job.schedule->algo : job.algo;
		char theory[G_ASCII_DTOSTR_BUF_SIZE];

		/* no theory (a schedule that is no registered algorithm's): null, '-' */
		if (isnan(r.theory_us))
			g_strlcpy(theory, o.json ? "null" : "-", sizeof(theory));
		else
			g_snprintf(theory, sizeof(theory), o.json ? "%.6f" : "%.3f", r.theory_us);

		if (o.nccl_table)
			nccl_table_row(&job, dt, &r);
		else if (o.json) {
			printf("{\"collective\": \"%s\", \"algo\": \"%s\", \"topology\": \"%s\", \"ranks\": %d, "
			       "\"bytes\": %" G_GUINT64_FORMAT ", \"nchunks\": %u, \"latency_us\": %.6f, "
			       "\"algbw_gbps\": %.6f, \"busbw_gbps\": %.6f, \"theory_us\": %s, \"steps\": %u, "
			       "\"events\": %" G_GUINT64_FORMAT ", \"wall_s\": %.6f, \"mode\": \"%s\", "
			       "\"proto\": \"%s\", \"channels\": %u",
			       coll_name(job.coll), algo, topo_name(pl.fabric.topo), pl.fabric.nranks,
			       job.bytes, job.params.nchunks, r.latency_us, r.algbw_gbps, r.busbw_gbps,
			       theory, r.steps, r.events, r.wall_s, platform_mode_name(job.mode),
			       paxi_proto_name(r.proto), r.nchannels);
			/* packet fidelity, the reference, leaves its lines as they were */
			if (pl.fabric.fidelity == LINK_FIDELITY_FLOW)
				printf(", \"fidelity\": \"flow\"");
			if (pl.fabric.fidelity == LINK_FIDELITY_FLOW &&
			    pl.fabric.flow_arbiter == LINK_FLOW_ROUND_ROBIN)
				printf(", \"rr_shares\": %" G_GUINT64_FORMAT ", \"rr_fills\": %" G_GUINT64_FORMAT
				       ", \"rr_cycles\": %" G_GUINT64_FORMAT ", \"rr_unsettled\": %" G_GUINT64_FORMAT,
				       r.rr.shares, r.rr.fills, r.rr.cycles, r.rr.unsettled);
			if (job.launches > 1)
				printf(", \"iters\": %u", job.launches);
			if (job.inplace)
				printf(", \"inplace\": 1");
			if (job.params.node_ranks)
				printf(", \"node_ranks\": %d", job.params.node_ranks);
			if (weights)
				printf(", \"skew\": %.6f", weights_skew(weights, pl.fabric.nranks));
			if (o.breakdown) {
				printf(", \"breakdown_us\": {");
				for (int c = 0; c < BD_NCAUSES; c++)
					printf("%s\"%s\": %.6f", c ? ", " : "", bd_cause_name(c),
					       (double)r.run.breakdown[c] / 1e6);
				printf("}");
			}
			printf("}\n");
		} else
			printf("  %-13s %-9s %5d %10" G_GUINT64_FORMAT " %12.3f %10.2f %10.2f %12s %10" G_GUINT64_FORMAT
			       " %9.3f\n",
			       coll_name(job.coll), algo, pl.fabric.nranks, job.bytes, r.latency_us,
			       r.algbw_gbps, r.busbw_gbps, theory, r.events, r.wall_s);
		if (o.trace) {
			if (simulate_trace_write(&r, coll_name(job.coll), algo, o.trace, &err))
				fprintf(stderr, "%s: wrote the trace to %s (open it in Perfetto or chrome://tracing)\n",
					argv[0], o.trace);
			else {
				fprintf(stderr, "%s: %s\n", argv[0], err->message);
				g_clear_error(&err);
				rc = 1;
			}
		}
		if (o.breakdown && !o.json) {
			printf("%s breakdown of the critical path (us):", o.nccl_table ? "#" : " ");
			for (int c = 0; c < BD_NCAUSES; c++)
				printf(" %s %.3f%s", bd_cause_name(c), (double)r.run.breakdown[c] / 1e6,
				       c + 1 < BD_NCAUSES ? "," : "\n");
		}
		if (r.rank_forwarded_bytes)
			forwarded = MAX(forwarded, (double)r.rank_forwarded_bytes / (double)r.payload_bytes);
		forwarded_largest = MAX(forwarded_largest, r.forwarded_largest);
		if (r.switched_bytes)
			switched = MAX(switched, (double)r.switched_bytes / (double)r.payload_bytes);
		if (o.verbose)
			g_array_append_val(outcomes, r);
		else
			simulate_outcome_clear(&r);
	}
	for (guint i = 0; i < outcomes->len; i++) {
		struct simulate_outcome *r = &g_array_index(outcomes, struct simulate_outcome, i);
		char size[32];

		units_format_size(g_array_index(sizes, uint64_t, i), size, sizeof(size));
		printf("\n# %s %s, %d ranks, %s: latency %.3f us\n", coll_name(job.coll),
		       job.schedule ? job.schedule->algo : job.algo, pl.fabric.nranks, size,
		       r->latency_us);
		print_verbose(r, &pl);
	}
	/* where flow fidelity is not checked well against packet fidelity */
	if (forwarded > 0 && pl.fabric.link.credits) {
		char largest[32], buffer[32], packet[32];
		const struct link_params *lp = &pl.fabric.link;

		units_format_size(forwarded_largest, largest, sizeof(largest));
		units_format_size((uint64_t)lp->credits * lp->max_payload_bytes, buffer, sizeof(buffer));
		units_format_size(lp->max_payload_bytes, packet, sizeof(packet));
		bool fluid = pl.fabric.flow_arbiter == LINK_FLOW_BUFFERS;
		bool rr = pl.fabric.flow_arbiter == LINK_FLOW_ROUND_ROBIN;

		fprintf(stderr,
			"%s: note: ranks forward %.1f %% of this run's message bytes (multi-hop routes), "
			"in messages of up to %s, against a receive buffer of %s per link (%u credits "
			"of %s); %s: --fidelity packet is the reference%s\n",
			argv[0], 100 * forwarded, largest, buffer, lp->credits, packet,
			fluid ? "flow.arbiter buffers runs those buffers as a fluid, which follows the "
				"packet fabric's credit back-pressure more closely than sharing alone but "
				"still misses it on some curves: over the fidelity matrix it has been measured "
				FIDELITY_RANGE_BUFFERS " than packet fidelity (docs/scale.md, \"Receive "
				"buffers as a fluid\", \"The three sharings on the whole matrix\")"
			: rr  ? "flow.arbiter round-robin shares each channel among its arbiter's "
				"inputs as the packet fabric does but leaves out its credit back-pressure "
				"on such routes: over the fidelity matrix it has been measured "
				FIDELITY_RANGE_RR " than packet fidelity (docs/scale.md, \"Header-only "
				"messages beside others send unshared\")"
			      : "flow fidelity leaves out the packet fabric's receive buffers on such "
				"routes but for their room (a node's next message passes one held further "
				"on once its rest fits the first hop's buffer): their credit back-pressure, "
				"which holds the links upstream once they are full; it follows "
				"packet fidelity while those messages stay well below the buffer, and "
				"over the fidelity matrix has been measured " FIDELITY_RANGE_MAXMIN
				" than packet fidelity once they outgrow it (docs/scale.md, \"What flow "
				"fidelity misses on multi-hop routes is buffer space\", \"The notes' "
				"ranges\")",
			fluid ? ""
			      : "; --set flow.arbiter=buffers runs each link's receive buffer as a fluid, "
				"so that full buffers hold back the links upstream as the packet fabric's "
				"credits do: closer on rings of up to 16 ranks, at about packet fidelity's "
				"cost (docs/scale.md, \"Receive buffers as a fluid\")");
	}
	if (switched > 0)
		fprintf(stderr,
			"%s: note: %.1f %% of this run's message bytes cross two switches or more; "
			FIDELITY_NOTE_SWITCHED ": --fidelity packet is the reference\n",
			argv[0], 100 * switched);
	goto out;
usage:
	cli_usage_error(argv[0], "%s", err->message);
out:
	g_clear_error(&err);
	g_option_context_free(ctx);
	g_array_unref(sizes);
	for (guint i = 0; outcomes && i < outcomes->len; i++)
		simulate_outcome_clear(&g_array_index(outcomes, struct simulate_outcome, i));
	if (outcomes)
		g_array_unref(outcomes);
	sched_free(file_sched);
	sched_free(built);
	platform_release(&pl);
	g_free(o.topo); g_free(o.ranks); g_free(o.cdma_units); g_free(o.slots); g_free(o.dims); g_free(o.link_bw); g_free(o.link_lat); g_free(o.packet);
	g_free(o.header); g_free(o.credits); g_free(o.credit_ret); g_free(o.error_rate);
	g_free(o.window); g_free(o.timeout); g_free(o.inject_bw); g_free(o.eject_bw);
	g_free(o.reduce_bw); g_free(o.setup); g_free(o.ctrl_proc); g_free(o.slice);
	g_free(o.overhead); g_free(o.alpha); g_free(o.beta); g_free(o.collective); g_free(o.algo);
	g_free(o.size); g_free(o.paxi); g_free(o.dtype); g_free(o.schedule); g_free(o.counts); g_free(o.trace); g_free(o.counts_dist); g_free(weights);
	g_free(o.fidelity);
	g_free(o.platform); g_free(o.mode); g_free(o.proto); g_strfreev(o.set);
	g_free(o.minbytes); g_free(o.maxbytes); g_free(o.stepfactor);
	return rc;
}
