/* `g5 bench scale`: how far one machine goes. A fixed table of large runs
 * (collective, algorithm, size, ranks and fidelity, on the default platform
 * with topology.ranks changed, or on a platform file of configs/platforms/),
 * each run `--repeat` times; a row prints the
 * run's events, the median wall time of the repeats and the median CPU time
 * (user and system: what a machine shared with other work inflates least),
 * the peak resident memory of the largest repeat and the simulated latency (which must not move when
 * the simulator gets faster). Each repeat runs in a child process of its own,
 * so that its peak RSS is its own and not the largest run's so far. The
 * engine's hold model runs first (bench_engine.c), so a slower machine shows
 * as such beside the rows. A row the scale issue gives a goal (docs/scale.md)
 * says whether its median wall time (and peak RSS) meet it; with both flow
 * ring rows of 1 GiB (1024 and 4096 ranks), a last line gives their peak
 * RSS apart per rank against the goal of 1 KB a rank. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "sim/cli.h"
#include "sim/config.h"
#include "sim/simulate.h"
#include "sim/util/files.h"
#include "sim/workload_run.h"

struct scale_row {
	const char *fidelity; /* "packet" or "flow" (the platform key) */
	enum coll coll;
	const char *algo;
	uint64_t bytes;
	int ranks;
	bool full;            /* minutes per run today: only with --full */
	const char *platform; /* NULL: the default platform; else a file of
			       * configs/platforms/, without .yaml */
	const char *workload; /* NULL: the collective; else a file of
			       * experiments/workloads/, without .yaml, run on the
			       * platform (g5 workload; coll, algo and bytes unused) */
	double goal_s;        /* the scale issue's goal on the median wall time, s; 0: none */
	double goal_mb;       /* and on the peak RSS, MB; 0: none */
};

static const struct scale_row rows[] = {
	{ "packet", COLL_ALLREDUCE, "ring", 64ull << 20, 128, false, NULL, NULL, 0, 0 },
	{ "packet", COLL_ALLREDUCE, "hd", 256ull << 20, 64, false, NULL, NULL, 0, 0 },
	{ "packet", COLL_ALLREDUCE, "hd", 64ull << 20, 128, false, NULL, NULL, 0, 0 },
	{ "packet", COLL_ALLREDUCE, "ring", 4ull << 10, 1024, false, NULL, NULL, 0, 0 },
	{ "packet", COLL_ALLREDUCE, "ring", 1ull << 30, 1024, true, NULL, NULL, 60, 500 },
	{ "flow", COLL_ALLREDUCE, "ring", 64ull << 20, 128, false, NULL, NULL, 0, 0 },
	{ "flow", COLL_ALLREDUCE, "hd", 256ull << 20, 64, false, NULL, NULL, 0, 0 },
	{ "flow", COLL_ALLREDUCE, "hd", 64ull << 20, 128, false, NULL, NULL, 0, 0 },
	{ "flow", COLL_ALLREDUCE, "ring", 4ull << 10, 1024, false, NULL, NULL, 0, 0 },
	{ "flow", COLL_ALLREDUCE, "hd", 256ull << 20, 256, false, NULL, NULL, 1, 0 },
	{ "flow", COLL_ALLREDUCE, "ring", 1ull << 30, 1024, true, NULL, NULL, 2, 0 },
	{ "flow", COLL_ALLREDUCE, "ring", 1ull << 30, 4096, true, NULL, NULL, 30, 0 },
	/* the two-tier 128-GPU machine (docs/systems.md): the hierarchical ring */
	{ "flow", COLL_ALLREDUCE, "hier-ring-ring", 1ull << 30, 128, false, "dgx-h200x16-rails-1to1", NULL, 0, 0 },
	{ "packet", COLL_ALLREDUCE, "hier-ring-ring", 1ull << 30, 128, false, "dgx-h200x16-rails-1to1", NULL, 0, 0 },
	/* a training step (docs/workload.md): FSDP of a 7B model on 8 x 8 H200 */
	{ "flow", 0, NULL, 0, 64, false, "dgx-h200x16-rails-1to1", "fsdp-7b-64", 0, 0 },
	{ "packet", 0, NULL, 0, 64, true, "dgx-h200x16-rails-1to1", "fsdp-7b-64", 0, 0 },
};

/* The platform of a row, loaded into *pl: the default, or the row's file
 * beside the binary (build/g5 -> configs/platforms/NAME.yaml), else in
 * configs/platforms/ of the working directory. */
static bool scale_platform(const struct scale_row *row, struct platform *pl, GError **error)
{
	if (!row->platform) {
		platform_init_default(pl);
		return true;
	}
	g_autofree char *rel = g_strdup_printf("configs/platforms/%s.yaml", row->platform);
	g_autofree char *path = files_in_tree(rel);

	return config_platform_load(path ? path : rel, pl, error);
}

/* What a child sends back through its pipe. */
struct scale_res {
	bool ok;
	uint64_t events;
	double wall_s, cpu_s, latency_us;
	long rss_kb;          /* the child's peak resident set */
	char msg[512];        /* the error, when !ok */
};

/* The child's side: one simulation of the row, timed whole (schedule and
 * fabric built, run, results taken). */
static void scale_child(const struct scale_row *row, struct scale_res *res)
{
	struct platform pl;
	g_autoptr(GError) err = NULL;
	g_autofree char *n = g_strdup_printf("%d", row->ranks);

	if (!scale_platform(row, &pl, &err)) {
		g_strlcpy(res->msg, err->message, sizeof(res->msg));
		return;
	}
	if (row->workload) {
		/* a workload: its platform keys as for the collectives, then g5
		 * workload's run */
		g_autofree char *rel = g_strdup_printf("experiments/workloads/%s.yaml", row->workload);
		g_autofree char *path = files_in_tree(rel);
		struct workload *w = NULL;
		struct workload_result wr;
		struct workload_run_opts o = { .plat = &pl, .seed = 1, .max_events = UINT64_MAX };
		double t0 = bench_now_s();

		if (config_platform_set(&pl, "topology.ranks", n, &err) &&
		    config_platform_set(&pl, "fidelity", row->fidelity, &err) &&
		    (w = workload_load(path ? path : rel, &err)) && workload_run(w, &o, &wr, &err)) {
			res->ok = true;
			res->events = wr.events;
			res->latency_us = (double)wr.step_ps / 1e6;
			workload_result_clear(&wr);
		}
		res->wall_s = bench_now_s() - t0;
		workload_free(w);
	} else if (config_platform_set(&pl, "topology.ranks", n, &err) &&
		   config_platform_set(&pl, "fidelity", row->fidelity, &err)) {
		struct simulate_job job = {
			.plat = &pl, .coll = row->coll, .algo = row->algo, .bytes = row->bytes,
			.elem_bytes = 4, .params = { .nchunks = 1, .peer = 1 }, .seed = 1,
			.proto = SIMULATE_PROTO_AUTO, .max_events = UINT64_MAX,
			.no_breakdown = true, .no_steps = true, /* not printed, as g5 sim --json */
		};
		struct simulate_outcome out;
		double t0 = bench_now_s();

		res->ok = simulate(&job, &out, &err);
		res->wall_s = bench_now_s() - t0;
		if (res->ok) {
			res->events = out.events;
			res->latency_us = out.latency_us;
			simulate_outcome_clear(&out);
		}
	}
	if (err)
		g_strlcpy(res->msg, err->message, sizeof(res->msg));
	platform_release(&pl);

	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		res->rss_kb = ru.ru_maxrss;
		res->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	}
}

/* Runs the row once in a child process; false with res->msg on a failure
 * of the run or of the child. */
static bool scale_once(const struct scale_row *row, struct scale_res *res)
{
	int fd[2];

	memset(res, 0, sizeof(*res));
	fflush(stdout);
	fflush(stderr);
	if (pipe(fd)) {
		snprintf(res->msg, sizeof(res->msg), "pipe: %s", g_strerror(errno));
		return false;
	}
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(res->msg, sizeof(res->msg), "fork: %s", g_strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return false;
	}
	if (pid == 0) {
		struct scale_res r = { 0 };

		close(fd[0]);
		scale_child(row, &r);
		_exit(write(fd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(fd[1]);
	ssize_t got = 0;

	while (got < (ssize_t)sizeof(*res)) {
		ssize_t k = read(fd[0], (char *)res + got, sizeof(*res) - (size_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += k;
	}
	close(fd[0]);
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(*res) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		memset(res, 0, sizeof(*res));
		if (WIFSIGNALED(status))
			snprintf(res->msg, sizeof(res->msg), "the run was killed by signal %d",
				 WTERMSIG(status));
		else
			snprintf(res->msg, sizeof(res->msg), "the run ended without a result");
		return false;
	}
	res->msg[sizeof(res->msg) - 1] = '\0';
	return res->ok;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (sorts them). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void size_label(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };
	int u = 0;

	while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%" G_GUINT64_FORMAT " %s", bytes, units[u]);
}

int bench_scale(int argc, char **argv)
{
	gint repeat = 3, only = G_MININT; /* only: G_MININT every row, else that row from 1 */
	gboolean full = FALSE, json = FALSE;
	GOptionEntry entries[] = {
		{ "full", 0, 0, G_OPTION_ARG_NONE, &full, "add the rows that take minutes (ring 1 GiB, N = 1024)",
		  NULL },
		{ "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "runs per row; wall and cpu are their medians (default 3)",
		  "N" },
		{ "row", 0, 0, G_OPTION_ARG_INT, &only, "run only that row of the table, from 1 (--full's too)",
		  "N" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "print one JSON object per row", NULL },
		{ NULL }
	};
	int rc = cli_parse_entries("- large runs: events, wall and cpu time, peak memory",
				   "Examples:\n"
				   "  g5 bench scale\n"
				   "  g5 bench scale --full --json",
				   entries, &argc, &argv);

	if (rc)
		return rc;
	if (repeat < 1 || repeat > 99)
		return cli_usage_error(argv[0], "--repeat must be in 1..99, got %d", repeat);
	if (only != G_MININT && (only < 1 || only > (gint)G_N_ELEMENTS(rows)))
		return cli_usage_error(argv[0], "--row must be in 1..%d, got %d", (int)G_N_ELEMENTS(rows),
				       only);

	struct bench_hold hold;

	bench_engine_hold(1024, 20000000, 1, &hold);
	if (!json) {
		printf("# g5 bench scale: median wall and cpu of %d run%s per row, one process each; engine hold "
		       "model %.2f M events/s\n", repeat, repeat > 1 ? "s" : "", hold.events_per_s / 1e6);
		printf("| fidelity | run | ranks | events | wall s | cpu s | peak RSS MB | latency us | goal |\n"
		       "|---|---|---|---|---|---|---|---|---|\n");
	}
	/* the flow ring of 1 GiB at 1024 and 4096 ranks: their peak RSS apart,
	 * per rank, is what a rank holds beyond the fixed part */
	long ring_rss_kb[2] = { -1, -1 };
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		const struct scale_row *row = &rows[i];

		if (only != G_MININT ? (size_t)only != i + 1 : row->full && !full)
			continue;
		double walls[99], cpus[99];
		struct scale_res first = { 0 }, res;
		long rss_kb = 0;
		char size[32];

		size_label(row->bytes, size, sizeof(size));
		/* "ring allreduce 64 MiB", and " on PLATFORM" for a row of a file */
		g_autofree char *what = row->workload
			? g_strdup_printf("workload %s on %s", row->workload, row->platform)
			: g_strdup_printf("%s %s %s%s%s", row->algo, coll_name(row->coll), size,
					  row->platform ? " on " : "", row->platform ? row->platform : "");

		for (int k = 0; k < repeat; k++) {
			if (!scale_once(row, &res)) {
				fprintf(stderr, "%s: %s, %d ranks: %s\n", argv[0], what, row->ranks,
					res.msg);
				return 1;
			}
			/* the same run each time: same events, same result */
			if (k && (res.events != first.events || res.latency_us != first.latency_us)) {
				fprintf(stderr, "%s: %s, %d ranks: repeat %d differs from the first "
					"(%" G_GUINT64_FORMAT " events, %.6f us against %" G_GUINT64_FORMAT
					", %.6f us)\n", argv[0], what, row->ranks, k + 1, res.events, res.latency_us, first.events,
					first.latency_us);
				return 1;
			}
			if (!k)
				first = res;
			walls[k] = res.wall_s;
			cpus[k] = res.cpu_s;
			rss_kb = MAX(rss_kb, res.rss_kb);
		}
		double wall = median(walls, repeat), cpu = median(cpus, repeat);
		double mb = (double)rss_kb / 1024;
		char goal[64] = "";

		if (row->goal_s > 0) {
			/* on the time as --json prints it, to the millisecond */
			bool met = round(wall * 1000) / 1000 < row->goal_s &&
				   (row->goal_mb <= 0 || mb < row->goal_mb);

			int k = snprintf(goal, sizeof(goal), "< %.0f s", row->goal_s);

			if (row->goal_mb > 0)
				k += snprintf(goal + k, sizeof(goal) - (size_t)k, ", < %.0f MB", row->goal_mb);
			snprintf(goal + k, sizeof(goal) - (size_t)k, ": %s", met ? "met" : "missed");
		}
		if (!strcmp(row->fidelity, "flow") && !row->platform && row->coll == COLL_ALLREDUCE &&
		    !strcmp(row->algo, "ring") && row->bytes == 1ull << 30 &&
		    (row->ranks == 1024 || row->ranks == 4096))
			ring_rss_kb[row->ranks == 4096] = rss_kb;

		if (json)
			printf("{\"bench\": \"scale\", \"fidelity\": \"%s\", \"platform\": \"%s\", "
			       "\"collective\": \"%s\", "
			       "\"algo\": \"%s\", \"bytes\": %" G_GUINT64_FORMAT ", \"ranks\": %d, "
			       "\"events\": %" G_GUINT64_FORMAT ", \"wall_s\": %.3f, \"cpu_s\": %.3f, \"repeat\": %d, "
			       "\"peak_rss_mb\": %.1f, \"latency_us\": %.6f, \"engine_events_per_s\": %.0f, "
			       "\"goal\": \"%s\"}\n",
			       row->fidelity, row->platform ? row->platform : "default",
			       row->workload ? "workload" : coll_name(row->coll),
			       row->workload ? row->workload : row->algo, row->bytes, row->ranks,
			       first.events, wall, cpu, repeat, mb, first.latency_us,
			       hold.events_per_s, goal);
		else
			printf("| %s | %s | %d | %" G_GUINT64_FORMAT " | %.2f | %.2f | %.0f | %.6f | %s |\n",
			       row->fidelity, what, row->ranks,
			       first.events, wall, cpu, mb, first.latency_us, goal);
		fflush(stdout);
	}
	if (ring_rss_kb[0] >= 0 && ring_rss_kb[1] >= 0) {
		double kb = (double)(ring_rss_kb[1] - ring_rss_kb[0]) / (4096 - 1024);

		if (json)
			printf("{\"bench\": \"scale\", \"memory_per_rank_kb\": %.2f, \"goal\": \"< 1 KB: %s\"}\n",
			       kb, kb < 1 ? "met" : "missed");
		else
			printf("# memory per rank, flow ring allreduce 1 GiB (peak RSS at 4096 ranks less at 1024, "
			       "over 3072): %.2f KB; goal < 1 KB: %s\n", kb, kb < 1 ? "met" : "missed");
	}
	return 0;
}
