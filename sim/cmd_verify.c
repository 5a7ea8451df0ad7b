/* `g5 verify`: runs the symbolic verifier (sim/algos/verify.h).
 * Without --schedule it sweeps the registry: every algorithm x collective
 * it builds x N in 2..--max-ranks x nchunks in {1, 2, 4} (x root in
 * {0, N-1} for the rooted collectives; x three count patterns for
 * AllGatherV: zero-size blocks, one heavy rank, random counts), out of
 * place and in place. A build
 * the algorithm does not admit must fail cleanly (NULL and a message) and
 * counts as rejected; anything else that does not verify is a failure.
 * With --schedule it verifies one schedule file and names the file line of
 * the failing op. The sweep takes a while (the whole registry: tens of
 * seconds); on a terminal it shows which algorithm and collective it is at
 * on stderr. The summary says what "not admitted" means and gives, per
 * algorithm, how many shapes it refused and the first refusal's message. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/algos/algo.h"
#include "sim/algos/schedule_file.h"
#include "sim/algos/verify.h"
#include "sim/cli.h"
#include "sim/util/quote.h"

struct sweep {
	unsigned ok, rejected, failed, shown;
	unsigned algo_rejected; /* of the algorithm being swept */
	char *first_refusal;    /* owned: the first message of that algorithm's refusals */
};

static void sweep_fail(struct sweep *sw, const char *what, const char *msg)
{
	sw->failed++;
	if (sw->shown++ < 20)
		fprintf(stderr, "verify: %s: %s\n", what, msg);
	else if (sw->shown == 21)
		fprintf(stderr, "verify: (more failures not shown)\n");
}

static void sweep_one(struct sweep *sw, const struct algo_ops *a, enum coll c,
		      const struct algo_params *p, const char *counts)
{
	GError *err = NULL;
	GString *dims = g_string_new(NULL);

	for (int i = 0; a->takes_dims && i < ALGO_MAX_DIMS && p->dims[i]; i++)
		g_string_append_printf(dims, "%s%d", i ? "x" : " dims=", p->dims[i]);
	char *what = g_strdup_printf("%s %s ranks=%d nchunks=%u root=%d node_ranks=%d%s%s%s", a->name,
				     coll_name(c), p->nranks, p->nchunks, p->root, p->node_ranks,
				     dims->str, counts ? " counts=" : "", counts ? counts : "");

	g_string_free(dims, TRUE);
	struct sched *s = algo_build(a, c, p, &err);

	if (!s) {
		if (err && err->message[0]) {
			sw->rejected++;
			if (!sw->algo_rejected++)
				sw->first_refusal = g_strdup_printf("%s ranks=%d root=%d: %s",
								    coll_name(c), p->nranks, p->root,
								    err->message);
		} else
			sweep_fail(sw, what, "build returned no schedule and no message");
	} else if (!verify_sched(s, NULL, &err)) {
		sweep_fail(sw, what, err->message);
	} else {
		sw->ok++;
	}
	if (err)
		g_error_free(err);
	sched_free(s);
	g_free(what);
}

/* "verify: ALGO COLLECTIVE (I/N) Ts" over the previous one (a terminal only). */
static void progress_draw(const char *algo, enum coll c, unsigned i, unsigned n, gint64 t0)
{
	double el = (double)(g_get_monotonic_time() - t0) / 1e6;

	fprintf(stderr, "\rverify: %-9s %-13s (%u/%u)  %.1fs ", algo, coll_name(c), i, n, el);
	fflush(stderr);
}

static bool sweep_wants(const struct algo_ops *a, unsigned bit, const char *algo, bool have_coll,
			enum coll only)
{
	return (!algo || !strcmp(algo, a->name)) && (a->collectives & bit) &&
	       (!have_coll || (enum coll)bit == only);
}

/* The ranks per node a sweep builds hierarchical algorithm a on n ranks
 * with: the one given (0: every divisor of n), those that divide n; for a
 * flat algorithm, one build (0). Fills ls, returns how many. */
static int sweep_node_ranks(const struct algo_ops *a, int n, int given, int *ls)
{
	int m = 0;

	if (!a->tiers[0]) {
		ls[m++] = 0;
		return m;
	}
	for (int l = 1; l <= n; l++)
		if (n % l == 0 && (!given || l == given))
			ls[m++] = l;
	return m;
}

/* AllGatherV's counts in the sweep, one pattern each: zero-size blocks
 * (r mod 3: every third rank sends nothing), one heavy rank (rank N/2 holds
 * 1000 times what each other holds) and random counts (0..99, drawn from a
 * GRand seeded with N, at least one non-zero). */
enum { SWEEP_NCOUNTS = 3 };
static const char *const sweep_count_names[SWEEP_NCOUNTS] = { "zero-size", "one-heavy", "random" };

static uint64_t *sweep_counts(int pattern, int n)
{
	uint64_t *w = g_new(uint64_t, n), sum = 0;
	g_autoptr(GRand) rng = g_rand_new_with_seed((guint32)n);

	for (int r = 0; r < n; r++) {
		switch (pattern) {
		case 0:
			w[r] = (uint64_t)(r % 3);
			break;
		case 1:
			w[r] = r == n / 2 ? 1000 : 1;
			break;
		default:
			w[r] = (uint64_t)g_rand_int_range(rng, 0, 100);
			break;
		}
		sum += w[r];
	}
	if (!sum)
		w[0] = 1;
	return w;
}

/* The torus shapes a sweep builds an algorithm that takes dims on n ranks
 * with (ALGO_MAX_DIMS ints each): the default (all zero), then every
 * ordered factorisation of n into 2..4 extents of at least 2; `given`
 * (non-NULL): that one alone, when it makes n. Returns how many. */
static void dims_factor(int n, int depth, int *cur, int (*out)[ALGO_MAX_DIMS], int *m, int max)
{
	if (n == 1) {
		if (depth >= 2 && *m < max) {
			memset(out[*m], 0, sizeof(out[*m]));
			memcpy(out[*m], cur, sizeof(int) * (size_t)depth);
			(*m)++;
		}
		return;
	}
	if (depth == 4)
		return;
	for (int f = 2; f <= n; f++)
		if (n % f == 0) {
			cur[depth] = f;
			dims_factor(n / f, depth + 1, cur, out, m, max);
		}
}

#define VERIFY_MAX_SHAPES 64

static int sweep_dims(const struct algo_ops *a, int n, const int *given,
		      int (*out)[ALGO_MAX_DIMS])
{
	int m = 0, cur[4];

	memset(out[0], 0, sizeof(out[0]));
	if (!a->takes_dims)
		return 1;
	if (given) {
		if (algo_dims_product(given) != n)
			return 0;
		memcpy(out[0], given, sizeof(out[0]));
		return 1;
	}
	m = 1;
	dims_factor(n, 0, cur, out, &m, VERIFY_MAX_SHAPES);
	return m;
}

static int verify_sweep(const char *algo, bool have_coll, enum coll only, int max_ranks,
			int node_ranks, const int *dims)
{
	struct sweep sw = { 0 };
	static const uint32_t chunks[] = { 1, 2, 4 };
	bool any = false;
	bool progress = isatty(STDERR_FILENO);
	unsigned pairs = 0, pair = 0;
	gint64 t0 = g_get_monotonic_time();
	GString *refused = g_string_new(NULL);
	/* the registry, and a hierarchical name's own table (not in it) */
	GPtrArray *list = g_ptr_array_new();

	for (const struct algo_ops *const *ap = algo_all(); *ap; ap++)
		g_ptr_array_add(list, (gpointer)*ap);
	if (algo && g_str_has_prefix(algo, "hier-"))
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
			const struct algo_ops *h = algo_find((enum coll)bit, algo, NULL);

			if (h && !g_ptr_array_find(list, h, NULL))
				g_ptr_array_add(list, (gpointer)h);
		}
	g_ptr_array_add(list, NULL);
	for (const struct algo_ops *const *ap = (const void *)list->pdata; *ap; ap++)
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1)
			pairs += sweep_wants(*ap, bit, algo, have_coll, only);
	for (const struct algo_ops *const *ap = (const void *)list->pdata; *ap; ap++) {
		const struct algo_ops *a = *ap;

		if (algo && strcmp(algo, a->name))
			continue;
		sw.algo_rejected = 0;
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1) {
			enum coll c = (enum coll)bit;

			if (!sweep_wants(a, bit, algo, have_coll, only))
				continue;
			any = true;
			if (progress)
				progress_draw(a->name, c, ++pair, pairs, t0);
			for (int n = 2; n <= max_ranks; n++)
			for (int cp = 0; cp < (c == COLL_ALLGATHERV ? SWEEP_NCOUNTS : 1); cp++) {
				uint64_t *w = sweep_counts(cp, n);

				for (size_t k = 0; k < G_N_ELEMENTS(chunks); k++) {
					bool rooted = c == COLL_BROADCAST || c == COLL_REDUCE || c == COLL_P2P;

					int ls[SCHED_MAX_RANKS], nl = sweep_node_ranks(a, n, node_ranks, ls);
					int shapes[VERIFY_MAX_SHAPES][ALGO_MAX_DIMS];
					int nd = sweep_dims(a, n, dims, shapes);

					for (int root = 0; root < n; root += rooted ? n - 1 : n)
						for (int li = 0; li < nl; li++)
							for (int di = 0; di < nd; di++) {
								struct algo_params p = {
									.nranks = n,
									.nchunks = chunks[k],
									.root = root,
									.peer = (root + n / 2) % n,
									.weights = c == COLL_ALLGATHERV ? w : NULL,
									.node_ranks = ls[li],
								};

								memcpy(p.dims, shapes[di], sizeof(p.dims));
								sweep_one(&sw, a, c, &p,
									  c == COLL_ALLGATHERV ? sweep_count_names[cp] : NULL);
							}
				}
				g_free(w);
			}
		}
		if (sw.algo_rejected)
			g_string_append_printf(refused, "  %-9s %5u, e.g. %s\n", a->name, sw.algo_rejected,
					       sw.first_refusal);
		g_clear_pointer(&sw.first_refusal, g_free);
	}
	g_ptr_array_free(list, TRUE);
	if (progress && pairs)
		fprintf(stderr, "\r%*s\r", 60, "");
	if (!any) {
		g_string_free(refused, TRUE);
		fprintf(stderr, "g5 verify: no registered algorithm matches\n");
		return 1;
	}
	printf("verify: %u schedules ok, %u not admitted, %u failed\n", sw.ok, sw.rejected,
	       sw.failed);
	if (sw.rejected)
		printf("not admitted: shapes an algorithm does not build (a rank count or root it has no\n"
		       "schedule for), refused with a message before anything runs, as g5 sim and\n"
		       "g5 run refuse them; not a failure. Per algorithm:\n%s",
		       refused->str);
	g_string_free(refused, TRUE);
	return sw.failed ? 1 : 0;
}

static int verify_file(const char *path)
{
	GError *err = NULL;
	GArray *lines = NULL;
	struct sched *s = sched_file_load(path, &lines, &err);
	const char *name = strcmp(path, "-") ? path : "<stdin>";

	if (!s) {
		/* a damaged file is bad input, as in g5 sim: status 2 */
		fprintf(stderr, "g5 verify: %s\n", err->message);
		g_error_free(err);
		return 2;
	}
	int rc = 0;

	if (!verify_sched_file(s, lines, name, &err)) {
		fprintf(stderr, "g5 verify: %s\n", err->message);
		g_error_free(err);
		rc = 1;
	} else {
		printf("verify: %s ok (%s %s, %d ranks, nchunks %u, %s)\n", name, s->algo,
		       coll_name(s->coll), s->nranks, s->nchunks,
		       s->inplace_ok ? "out of place and in place" : "out of place only");
	}
	g_array_unref(lines);
	sched_free(s);
	return rc;
}

int cmd_verify(int argc, char **argv)
{
	char *algo = NULL, *coll_s = NULL, *file = NULL, *dims_s = NULL;
	int dims[CLI_MAX_DIMS] = { 0 };
	gint max_ranks = 64, node_ranks = G_MININT; /* G_MININT: not given */
	GOptionEntry entries[] = {
		{ "algo", 'a', 0, G_OPTION_ARG_STRING, &algo, "only this algorithm", "A" },
		{ "collective", 'c', 0, G_OPTION_ARG_STRING, &coll_s, "only this collective", "C" },
		{ "schedule", 's', 0, G_OPTION_ARG_FILENAME, &file,
		  "verify this schedule file ('-': stdin) instead of the registry", "FILE" },
		{ "max-ranks", 0, 0, G_OPTION_ARG_INT, &max_ranks, "sweep N in 2..N (default 64)", "N" },
		{ "node-ranks", 0, 0, G_OPTION_ARG_INT, &node_ranks,
		  "hierarchical algorithms: only this many ranks per node (default: every divisor of N)",
		  "K" },
		{ "dims", 0, 0, G_OPTION_ARG_STRING, &dims_s,
		  "torus algorithms: only this torus shape, e.g. 4x4x4 (default: every factorisation "
		  "of N into 2..4 extents, and the default 2-D one)", "AxBxC" },
		{ NULL }
	};
	int rc = 2;
	enum coll c = COLL_ALLREDUCE;

	rc = cli_parse_entries("- prove schedules compute their collective",
			       "Examples:\n"
			       "  g5 verify                         # every algorithm, collective, N and nchunks\n"
			       "  g5 verify -c allreduce -a hier-ring-hd --node-ranks 4 --max-ranks 32\n"
			       "  g5 verify --schedule ring8.g5s",
			       entries, &argc, &argv);
	if (rc)
		goto out;
	rc = 2;
	if (file && (algo || coll_s)) {
		rc = cli_usage_error(argv[0], "--schedule takes no --algo or --collective");
		goto out;
	}
	if (file && node_ranks != G_MININT) {
		rc = cli_usage_error(argv[0], "--schedule takes no --node-ranks: the file's ops say it");
		goto out;
	}
	if (dims_s) {
		GError *err = NULL;

		if (file) {
			rc = cli_usage_error(argv[0], "--schedule takes no --dims: the file's ops say it");
			goto out;
		}
		if (!cli_parse_dims(dims_s, dims, &err)) {
			rc = cli_usage_error(argv[0], "%s", err->message);
			g_error_free(err);
			goto out;
		}
	}
	if (node_ranks != G_MININT && (node_ranks < 1 || node_ranks > SCHED_MAX_RANKS)) {
		rc = cli_usage_error(argv[0], "--node-ranks must be in 1..%d, got %d", SCHED_MAX_RANKS,
				     node_ranks);
		goto out;
	}
	if (coll_s && !coll_parse(coll_s, &c)) {
		rc = cli_usage_error(argv[0], "unknown collective '%s'", quote_text(coll_s).s);
		goto out;
	}
	if (max_ranks < 2 || max_ranks > SCHED_MAX_RANKS) {
		rc = cli_usage_error(argv[0], "--max-ranks must be in 2..%d, got %d", SCHED_MAX_RANKS,
				     max_ranks);
		goto out;
	}
	if (algo) {
		bool known = false;

		for (const struct algo_ops *const *ap = algo_all(); *ap; ap++)
			known |= !strcmp((*ap)->name, algo) && (!coll_s || ((*ap)->collectives & c));
		/* a hierarchical name: known for a collective it builds */
		for (unsigned bit = 1; bit <= COLL_ALLGATHERV; bit <<= 1)
			known |= g_str_has_prefix(algo, "hier-") && (!coll_s || bit == (unsigned)c) &&
				 algo_find((enum coll)bit, algo, NULL);
		if (!known) {
			GError *err = NULL;

			if (coll_s || g_str_has_prefix(algo, "hier-")) {
				algo_find(c, algo, &err);
				rc = cli_usage_error(argv[0], "%s", err->message);
				g_error_free(err);
			} else {
				rc = cli_usage_error(argv[0], "unknown algorithm '%s'", quote_text(algo).s);
			}
			goto out;
		}
	}
	rc = file ? verify_file(file) : verify_sweep(algo, coll_s != NULL, c, max_ranks,
							    node_ranks == G_MININT ? 0 : node_ranks,
							    dims_s ? dims : NULL);
out:
	g_free(dims_s);
	g_free(algo);
	g_free(coll_s);
	g_free(file);
	return rc;
}
