/* g5x — the CUDA executor: runs a G5 schedule file on N GPUs over NVLink,
 * checks the result, times it as nccl-tests does, and times NCCL's own
 * collective in the same harness. This file is the harness (options,
 * devices and memory, the timing loop, the sweep over sizes, output, main);
 * g5x_kernels.cu holds the device side and its launchers, g5x_nccl.cu the
 * NCCL side, g5x_ceilings.cu --baseline and --probe (gpu/g5x.h lists them).
 *
 * Modes. The single-process binary (g5x) drives N GPUs with peer access;
 * the MPI binary (g5x-mpi) runs one process per GPU and shares each rank's
 * region (staging slots and flags) by CUDA IPC. Everything else is the same
 * code: a "rank" below is one GPU, and this process owns `nlocal` of them.
 *
 * Timing. As nccl-tests: warm-up launches, a sync, then `iters` launches
 * back to back timed by the CPU wall clock until all GPUs are done
 * (--timer events: CUDA events on every rank's stream, the slowest rank;
 * --timer host: the CPU's time until the last launch call has returned, the
 * host's cost of issuing a call, not the call's),
 * out of place then in place. Correctness: a separate launch on fresh
 * inputs (integers, rank- and index-dependent) and poisoned outputs, counted
 * on the GPU against the reference of gpu/core/gx.h. */
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gpu/g5x.h"

/* ---- options ---- */

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "g5x: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	gx_comm_abort(1);
	exit(1);
}

double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t m = 1;

	if (end == s)
		die("'%s' is not a size such as 4K, 1M or 1G", s);
	switch (*end) {
	case 'K': case 'k': m = 1ull << 10; break;
	case 'M': case 'm': m = 1ull << 20; break;
	case 'G': case 'g': m = 1ull << 30; break;
	case '\0': break;
	default: die("'%s' is not a size such as 4K, 1M or 1G", s);
	}
	return (uint64_t)(v * (double)m);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: g5x [options] SCHEDULE_FILE\n"
		"  -b, --minbytes SIZE   first size (default 4K)\n"
		"  -e, --maxbytes SIZE   last size (default 1G)\n"
		"  -f, --stepfactor N    size factor (default 4)\n"
		"  -d, --dtype T[,T]     float, half, bfloat16 (default float)\n"
		"  -w, --warmup N        warm-up launches per size (default 5)\n"
		"  -n, --iters N         timed launches per size (default 20)\n"
		"  --timer wall|events|host  CPU wall clock (nccl-tests' default), CUDA events, or\n"
		"                        the CPU's time to issue the calls (not a collective's time)\n"
		"  --channels C          thread blocks per rank (default 0: by size, one per\n"
		"                        --chan-bytes, 1 .. --max-channels)\n"
		"  --chan-bytes SIZE     bytes of the collective per channel (default 32K)\n"
		"  --max-channels C      most channels chosen by size (default 128)\n"
		"  --threads T           threads per block (default 512)\n"
		"  --slice SIZE          bytes per slice and channel (default 2M)\n"
		"  --slots N             staging slots per connection (default 0: a whole iteration)\n"
		"  --proto P             how slices travel: simple, ll, or auto (default: ll up to\n"
		"                        1M, 256K for broadcast, reduce and p2p; simple above)\n"
		"  --ll-max SIZE         auto's largest LL size, for every collective\n"
		"  --ll-chan-bytes SIZE  on the LL wire, bytes of the collective per channel\n"
		"                        (default 8K: a thread's lines are polled one by one)\n"
		"  -c, --check 0|1       check the result (default 1)\n"
		"  --nccl                also time NCCL's collective in the same harness\n"
		"  --nccl-agv bcast|pad  NCCL's AllGatherV: one grouped ncclBroadcast per rank\n"
		"                        (default, CSV algo nccl) or each block padded to the\n"
		"                        largest, ncclAllGather, then unpadded (CSV algo nccl-pad)\n"
		"  --no-executor         time NCCL only\n"
		"  --baseline            measure the copy-engine and SM-store ceilings\n"
		"  --probe               measure the launch cost and the flag round trip\n"
		"  --share-gpus          more ranks than GPUs: rank r on GPU r mod G, channels\n"
		"                        capped so every rank's blocks are resident (checks\n"
		"                        results; times are not NVLink's: mode 'shared' in the CSV)\n"
		"  --csv FILE            append one row per size and placement\n"
		"  --timeout S           a stalled kernel gives up after S seconds (default 20)\n");
	exit(2);
}

static bool is_opt(const char *a, const char *s1, const char *s2)
{
	return !strcmp(a, s1) || (s2 && !strcmp(a, s2));
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->minbytes = 4096;
	o->maxbytes = 1ull << 30;
	o->factor = 4;
	o->dtype = GX_F32;
	o->dtypes[0] = GX_F32;
	o->ndtypes = 1;
	o->warmup = 5;
	o->iters = 20;
	o->channels = 0;
	o->max_channels = 128;
	o->chan_bytes = 32 << 10;
	o->threads = 512;
	o->slice_bytes = 2 << 20;
	o->wire = -1;
	o->ll_max = 0;
	o->ll_chan_bytes = 8 << 10;
	o->check = true;
	o->executor = true;
	o->timeout_s = 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

#define IS(s1, s2) is_opt(a, s1, s2)
		if (IS("-b", "--minbytes") && v)
			o->minbytes = parse_size(v);
		else if (IS("-e", "--maxbytes") && v)
			o->maxbytes = parse_size(v);
		else if (IS("-f", "--stepfactor") && v)
			o->factor = strtoull(v, NULL, 10);
		else if (IS("-d", "--dtype") && v) {
			char buf[64], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", v);
			o->ndtypes = 0;
			for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (o->ndtypes == GX_NDTYPES ||
				    !gx_dtype_parse(t, &o->dtypes[o->ndtypes++]))
					die("unknown dtype '%s' (known: float, half, bfloat16)", t);
			}
		} else if (IS("-w", "--warmup") && v)
			o->warmup = atoi(v);
		else if (IS("-n", "--iters") && v)
			o->iters = atoi(v);
		else if (IS("--timer", NULL) && v) {
			if (strcmp(v, "wall") && strcmp(v, "events") && strcmp(v, "host"))
				die("unknown timer '%s' (known: wall, events, host)", v);
			o->events = !strcmp(v, "events");
			o->host = !strcmp(v, "host");
		} else if (IS("--channels", NULL) && v)
			o->channels = (uint32_t)atoi(v);
		else if (IS("--max-channels", NULL) && v)
			o->max_channels = (uint32_t)atoi(v);
		else if (IS("--chan-bytes", NULL) && v)
			o->chan_bytes = parse_size(v);
		else if (IS("--threads", NULL) && v)
			o->threads = (uint32_t)atoi(v);
		else if (IS("--slice", NULL) && v)
			o->slice_bytes = parse_size(v);
		else if (IS("--slots", NULL) && v)
			o->max_slots = strtoull(v, NULL, 10);
		else if (IS("--proto", NULL) && v) {
			enum gx_wire w;

			if (!strcmp(v, "auto"))
				o->wire = -1;
			else if (gx_wire_parse(v, &w))
				o->wire = (int)w;
			else
				die("unknown --proto '%s' (known: simple, ll, auto)", v);
		} else if (IS("--ll-max", NULL) && v)
			o->ll_max = parse_size(v);
		else if (IS("--ll-chan-bytes", NULL) && v)
			o->ll_chan_bytes = parse_size(v);
		else if (IS("-c", "--check") && v)
			o->check = atoi(v) != 0;
		else if (IS("--csv", NULL) && v)
			o->csv = v;
		else if (IS("--nccl-agv", NULL) && v) {
			if (!strcmp(v, "pad"))
				o->nccl_pad = true;
			else if (!strcmp(v, "bcast"))
				o->nccl_pad = false;
			else
				die("unknown --nccl-agv '%s' (known: bcast, pad)", v);
		} else if (IS("--timeout", NULL) && v)
			o->timeout_s = atof(v);
		else {
			takes = false;
			if (IS("--nccl", NULL))
				o->nccl = true;
			else if (IS("--no-executor", NULL))
				o->executor = false;
			else if (IS("--baseline", NULL))
				o->baseline = true;
			else if (IS("--probe", NULL))
				o->probe = true;
			else if (IS("--share-gpus", NULL))
				o->share = true;
			else if (IS("-h", "--help"))
				usage();
			else if (a[0] == '-')
				die("unknown option '%s'", a);
			else
				o->schedule = a;
		}
		if (takes)
			i++;
#undef IS
	}
	if (o->channels > 1024 || o->max_channels < 1 || o->max_channels > 1024 ||
	    o->chan_bytes < 1 || o->ll_chan_bytes < 1 || o->threads < 32 || o->threads > 512 ||
	    o->threads % 32 ||
	    o->slice_bytes < 16 || o->factor < 2 || o->iters < 1)
		die("bad --channels, --max-channels, --chan-bytes, --ll-chan-bytes, --threads, --slice,"
		    " --stepfactor or --iters");
}

static bool rooted(enum gx_coll c)
{
	return c == GX_COLL_BROADCAST || c == GX_COLL_REDUCE || c == GX_COLL_P2P;
}

/* How slices travel for collective c of `bytes`: --proto, or by size: LL
 * (no flag and no release per slice, twice the bytes) where the per-slice
 * cost outweighs the rate, Simple above: up to --ll-max, else up to 1 MiB
 * (256 KiB for the rooted collectives, whose Simple chain overlaps its
 * launches), as measured with one LL channel per 8 KiB
 * (docs/measurements/h200x2-ll-channels/). */
static uint64_t ll_max_for(const struct opts *o, enum gx_coll c)
{
	return o->ll_max ? o->ll_max : rooted(c) ? 256 << 10 : 1 << 20;
}

static enum gx_wire wire_for(const struct opts *o, enum gx_coll c, uint64_t bytes)
{
	if (o->wire >= 0)
		return (enum gx_wire)o->wire;
	return bytes <= ll_max_for(o, c) ? GX_WIRE_LL : GX_WIRE_SIMPLE;
}

/* Channels (thread blocks per rank) for a collective of `bytes`: --channels
 * when given, else one per chan_bytes (ll_chan_bytes on the LL wire, where a
 * thread polls its lines one after another), at least 1 and at most
 * max_channels.
 * A small collective then runs on a few blocks (fewer blocks to meet at each
 * op's completion counter), a large one on max_channels as before. */
static uint32_t channels_for(const struct opts *o, enum gx_coll coll, uint64_t bytes)
{
	uint64_t per = wire_for(o, coll, bytes) == GX_WIRE_LL ? o->ll_chan_bytes : o->chan_bytes;
	uint64_t c = bytes / per;

	if (o->channels)
		return o->channels;
	return c < 1 ? 1 : c > o->max_channels ? o->max_channels : (uint32_t)c;
}

/* ---- setup: devices, peer access or IPC, buffers ---- */

/* --share-gpus with fewer GPUs than ranks: rank r runs on GPU r mod
 * `used`. A rank's blocks spin on flags that other ranks' blocks raise, so
 * every block of every rank on a GPU must be resident at once: the ranks
 * on a GPU take at most one block per SM between them, which caps the
 * channels. The NCCL side, --baseline and --probe need a GPU per rank. */
static void share_limits(struct exec *x, int used)
{
	int sms = 0, per = (x->nranks + used - 1) / used;

	if (x->o.nccl || x->o.baseline || x->o.probe)
		die("--share-gpus runs only the executor: --nccl, --baseline and --probe need a"
		    " GPU per rank");
	CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	uint32_t cap = (uint32_t)(sms / per);

	if (cap < 1)
		die("%d ranks on %d GPUs of %d SMs: more ranks per GPU than SMs", x->nranks, used,
		    sms);
	if (x->o.channels > cap)
		die("--channels %u: with %d ranks per GPU of %d SMs at most %u", x->o.channels, per,
		    sms, cap);
	if (x->o.max_channels > cap)
		x->o.max_channels = cap;
	x->shared = true;
}

static void setup_devices(struct exec *x)
{
	int ndev = 0;

	CUDA_CHECK(cudaGetDeviceCount(&ndev));
	if (gx_comm_is_mpi()) {
		if (x->nprocs != x->nranks)
			die("'%s' has %d ranks: run it with mpirun -np %d", x->o.schedule, x->nranks,
			    x->nranks);
		x->nlocal = 1;
		x->g = (struct grank *)calloc(1, sizeof(struct grank));
		x->g[0].rank = x->proc;
		x->g[0].dev = x->proc % ndev;
	} else {
		if (ndev < x->nranks && !x->o.share)
			die("'%s' has %d ranks but this host has %d GPUs (--share-gpus runs them on"
			    " fewer, to check results, not to time them)",
			    x->o.schedule, x->nranks, ndev);
		int used = ndev < x->nranks ? ndev : x->nranks;

		x->nlocal = x->nranks;
		x->g = (struct grank *)calloc((size_t)x->nranks, sizeof(struct grank));
		for (int r = 0; r < x->nranks; r++) {
			x->g[r].rank = r;
			x->g[r].dev = r % used;
		}
		if (used < x->nranks)
			share_limits(x, used);
		for (int d = 0; d < used; d++) {
			CUDA_CHECK(cudaSetDevice(d));
			for (int q = 0; q < used; q++) {
				int can = 0;

				if (q == d)
					continue;
				CUDA_CHECK(cudaDeviceCanAccessPeer(&can, d, q));
				if (!can)
					die("GPU %d cannot access GPU %d: peer access is required", d, q);
				cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);

				if (e == cudaErrorPeerAccessAlreadyEnabled)
					cudaGetLastError();
				else
					CUDA_CHECK(e);
			}
		}
	}
	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
		CUDA_CHECK(cudaEventCreate(&g->ev0));
		CUDA_CHECK(cudaEventCreate(&g->ev1));
		CUDA_CHECK(cudaMalloc((void **)&g->error, 4 * sizeof(unsigned long long)));
		CUDA_CHECK(cudaMalloc((void **)&g->wrong, sizeof(unsigned long long)));
		CUDA_CHECK(cudaMemset(g->error, 0, 4 * sizeof(unsigned long long)));
	}
}

/* Allocates every rank's buffers for the largest size and its region for
 * the largest region any size needs, and shares the regions. */
static void setup_memory(struct exec *x, uint64_t max_elems, uint64_t max_region,
			 uint64_t max_scratch, uint32_t max_blocks)
{
	uint64_t bytes = max_elems * x->esize + 256;

	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaMalloc((void **)&g->bufA, bytes));
		CUDA_CHECK(cudaMalloc((void **)&g->bufB, bytes));
		CUDA_CHECK(cudaMalloc((void **)&g->scratch, max_scratch * x->esize + 256));
		CUDA_CHECK(cudaMalloc((void **)&g->region, max_region));
		CUDA_CHECK(cudaMemset(g->region, 0, max_region));
		CUDA_CHECK(cudaMalloc((void **)&g->block_first, (max_blocks + 1) * sizeof(uint64_t)));
		CUDA_CHECK(cudaMalloc((void **)&g->dev_regions, x->nranks * sizeof(char *)));
		g->region_bytes = max_region;
		g->peer_regions = (char **)calloc((size_t)x->nranks, sizeof(char *));
		g->tmp_in = g->bufA;
	}
	if (gx_comm_is_mpi()) {
		struct grank *g = &x->g[0];
		cudaIpcMemHandle_t mine, *all;

		all = (cudaIpcMemHandle_t *)calloc((size_t)x->nranks, sizeof(*all));
		CUDA_CHECK(cudaIpcGetMemHandle(&mine, g->region));
		gx_comm_allgather(&mine, all, sizeof(mine));
		for (int r = 0; r < x->nranks; r++) {
			if (r == g->rank)
				g->peer_regions[r] = g->region;
			else
				CUDA_CHECK(cudaIpcOpenMemHandle((void **)&g->peer_regions[r], all[r],
								cudaIpcMemLazyEnablePeerAccess));
		}
		free(all);
	} else {
		for (int l = 0; l < x->nlocal; l++)
			for (int r = 0; r < x->nranks; r++)
				x->g[l].peer_regions[r] = x->g[r].region;
	}
	for (int l = 0; l < x->nlocal; l++) {
		struct grank *g = &x->g[l];

		CUDA_CHECK(cudaSetDevice(g->dev));
		CUDA_CHECK(cudaMemcpy(g->dev_regions, g->peer_regions, x->nranks * sizeof(char *),
				      cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaDeviceSynchronize());
	}
	gx_comm_barrier();
}

void sync_all(struct exec *x)
{
	for (int l = 0; l < x->nlocal; l++) {
		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		CUDA_CHECK(cudaStreamSynchronize(x->g[l].stream));
	}
}

/* Zeroes flags and counters of every rank (a new size, a new layout). */
void reset_flags(struct exec *x)
{
	sync_all(x);
	gx_comm_barrier();
	for (int l = 0; l < x->nlocal; l++) {
		CUDA_CHECK(cudaSetDevice(x->g[l].dev));
		CUDA_CHECK(cudaMemset(x->g[l].region, 0, x->g[l].region_bytes));
		CUDA_CHECK(cudaDeviceSynchronize());
	}
	gx_comm_barrier();
	x->iter = 0;
}

/* ---- timing ---- */

/* Times `iters` back-to-back launches after `warmup` ones: the CPU wall
 * clock from a synced start to all GPUs done, or CUDA events on every
 * rank's stream (the slowest rank). Returns microseconds per launch,
 * the maximum over processes. */
double time_launches(struct exec *x, launch_fn fn, void *ctx)
{
	double us;

	for (int i = 0; i < x->o.warmup; i++)
		fn(x, ctx);
	sync_all(x);
	gx_comm_barrier();
	double t0 = wall_s();

	if (x->o.events)
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			CUDA_CHECK(cudaEventRecord(x->g[l].ev0, x->g[l].stream));
		}
	for (int i = 0; i < x->o.iters; i++)
		fn(x, ctx);
	double t_issued = wall_s();

	if (x->o.events)
		for (int l = 0; l < x->nlocal; l++) {
			CUDA_CHECK(cudaSetDevice(x->g[l].dev));
			CUDA_CHECK(cudaEventRecord(x->g[l].ev1, x->g[l].stream));
		}
	sync_all(x);
	us = ((x->o.host ? t_issued : wall_s()) - t0) * 1e6 / x->o.iters;
	if (x->o.events) {
		us = 0;
		for (int l = 0; l < x->nlocal; l++) {
			float ms = 0;

			CUDA_CHECK(cudaEventElapsedTime(&ms, x->g[l].ev0, x->g[l].ev1));
			if (ms * 1e3 / x->o.iters > us)
				us = ms * 1e3 / x->o.iters;
		}
	}
	return gx_comm_max(us);
}

struct exec_ctx {
	const struct gx_plan *p;
	bool copy_in;
};

static void exec_launch(struct exec *x, void *ctx)
{
	struct exec_ctx *c = (struct exec_ctx *)ctx;

	launch_all(x, c->p, c->copy_in);
}

/* ---- output ---- */

/* The algo column of NCCL's rows: "nccl", or "nccl-pad" for an AllGatherV
 * run as a padded AllGather (--nccl-agv pad). */
static const char *nccl_algo(const struct exec *x)
{
	return x->s->coll == GX_COLL_ALLGATHERV && x->o.nccl_pad ? "nccl-pad" : "nccl";
}

static void print_header(struct exec *x, const char *impl)
{
	if (x->proc)
		return;
	/* NCCL's rows name NCCL's form (nccl_algo), the executor's the schedule's */
	printf("# g5x %s: collective %s algo %s ranks %d nchunks %u schedule %s\n", impl,
	       gx_coll_name(x->s->coll), strcmp(impl, "nccl") ? x->s->algo : nccl_algo(x),
	       x->nranks, x->s->nchunks, x->o.schedule);
	char chans[64];

	if (x->o.channels)
		snprintf(chans, sizeof(chans), "%u", x->o.channels);
	else
		snprintf(chans, sizeof(chans), "auto(1 per %llu B, max %u)",
			 (unsigned long long)x->o.chan_bytes, x->o.max_channels);
	char proto[64];

	if (x->o.wire >= 0)
		snprintf(proto, sizeof(proto), "%s", gx_wire_name((enum gx_wire)x->o.wire));
	else
		snprintf(proto, sizeof(proto), "auto(ll to %llu B)",
			 (unsigned long long)ll_max_for(&x->o, x->s->coll));
	printf("# mode %s dtype %s timer %s warmup %d iters %d channels %s threads %u slice %llu"
	       " check %d inplace_ok %d proto %s\n",
	       gx_comm_is_mpi()  ? "mpi (one process per GPU, CUDA IPC)"
	       : x->shared	 ? "shared (one process, ranks sharing GPUs: not NVLink times)"
				 : "single process",
	       gx_dtype_name(x->o.dtype), x->o.events ? "events" : x->o.host ? "host" : "wall", x->o.warmup,
	       x->o.iters, chans, x->o.threads, (unsigned long long)x->o.slice_bytes,
	       (int)x->o.check, (int)x->s->inplace_ok, proto);
	printf("#%64s%35s\n", "out-of-place", "in-place");
	printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size",
	       "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
	       "algbw", "busbw", "#wrong");
	printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
	       "");
	fflush(stdout);
}

/* The CSV's columns: the first fourteen as before, then what a comparison
 * needs to know of the run (docs/validation.md): mode (single or mpi),
 * nchunks and schedule (the file's base name; "-" for NCCL), proto and
 * engine (the executor: the wire that ran, simple or ll, over SM stores;
 * NCCL: NCCL_PROTO as set, else auto), channels (the executor's thread blocks per rank; 0 for NCCL,
 * which chooses its own). NCCL rows carry algo "nccl". */
#define CSV_HEADER                                                                         \
	"impl,collective,algo,ranks,bytes,count,dtype,inplace,timer,iters,time_us,algbw_gbps," \
	"busbw_gbps,wrong,mode,nchunks,schedule,proto,engine,channels\n"

static const char *nccl_proto(void)
{
	const char *p = getenv("NCCL_PROTO");

	return p && *p && !strchr(p, ',') && !strchr(p, '^') ? p : "auto";
}

static void csv_row(struct exec *x, const char *impl, uint64_t bytes, uint64_t E, bool inplace,
		    double us, double algbw, double busbw, long long wrong)
{
	bool nccl = !strcmp(impl, "nccl");
	const char *base = strrchr(x->o.schedule, '/');

	if (!x->csv || x->proc)
		return;
	base = base ? base + 1 : x->o.schedule;
	fprintf(x->csv, "%s,%s,%s,%d,%llu,%llu,%s,%d,%s,%d,%.3f,%.3f,%.3f,%lld,%s,%u,%s,%s,%s,%u\n",
		impl, gx_coll_name(x->s->coll), nccl ? nccl_algo(x) : x->s->algo, x->nranks,
		(unsigned long long)bytes, (unsigned long long)E, gx_dtype_name(x->o.dtype),
		(int)inplace, x->o.events ? "events" : x->o.host ? "host" : "wall", x->o.iters, us, algbw, busbw, wrong,
		gx_comm_is_mpi() ? "mpi" : x->shared ? "shared" : "single", nccl ? 1u : x->s->nchunks, nccl ? "-" : base,
		nccl ? nccl_proto() : gx_wire_name(wire_for(&x->o, x->s->coll, bytes)), "sm",
		nccl ? 0u : channels_for(&x->o, x->s->coll, bytes));
	fflush(x->csv);
}

/* ---- the sweep ---- */

static void run_sizes(struct exec *x, bool nccl)
{
	const char *impl = nccl ? "nccl" : "g5";

	print_header(x, impl);
	for (uint64_t bytes = x->o.minbytes; bytes <= x->o.maxbytes; bytes *= x->o.factor) {
		uint64_t E = bytes / x->esize;
		double us[2] = { 0, 0 };
		long long wrong[2] = { -1, -1 };
		char err[512];

		if (nccl && !nccl_admits(x->s, E))
			continue;
		if (!x->proc)
			printf("%12llu  %12llu  %8s  %6s  %6d", (unsigned long long)bytes,
			       (unsigned long long)E, gx_dtype_name(x->o.dtype), "sum",
			       rooted(x->s->coll) ? x->s->root : -1);
		for (int inplace = 0; inplace < 2; inplace++) {
			if (nccl) {
				us[inplace] = nccl_measure(x, E, inplace != 0, &wrong[inplace]);
			} else {
				bool copy_in = inplace && !x->s->inplace_ok;
				struct gx_plan *p = gx_plan_new(x->s, E, x->esize,
								channels_for(&x->o, x->s->coll, bytes),
								x->o.slice_bytes / x->esize,
								x->o.max_slots, wire_for(&x->o, x->s->coll, bytes),
								inplace && !copy_in, err, sizeof(err));
				struct exec_ctx c = { p, copy_in };

				if (!p)
					die("%s: %llu bytes: %s", x->o.schedule,
					    (unsigned long long)bytes, err);
				reset_flags(x); /* the done counters restart with the plan */
				load_plan(x, p);
				for (int l = 0; l < x->nlocal; l++)
					set_buffers(x, &x->g[l], p, inplace, copy_in);
				if (x->o.check) {
					prepare_data(x, E, inplace);
					launch_all(x, p, copy_in);
					sync_all(x);
					check_stall(x);
					wrong[inplace] = (long long)count_wrong(x, E, inplace);
				}
				us[inplace] = time_launches(x, exec_launch, &c);
				check_stall(x);
				sync_all(x);
				gx_plan_free(p);
			}
			double algbw = (double)bytes / (us[inplace] * 1e-6) / 1e9;
			double busbw = algbw * gx_busbw_factor(x->s->coll, x->nranks);

			if (!x->proc) {
				printf("  %7.2f  %6.2f  %6.2f  %6lld", us[inplace], algbw, busbw,
				       wrong[inplace] < 0 ? 0 : wrong[inplace]);
				if (wrong[inplace] < 0)
					printf("?");
			}
			csv_row(x, impl, bytes, E, inplace, us[inplace], algbw, busbw,
				wrong[inplace]);
		}
		if (!x->proc) {
			printf("\n");
			fflush(stdout);
		}
	}
}

int main(int argc, char **argv)
{
	struct exec x;
	char err[512];

	memset(&x, 0, sizeof(x));
	gx_comm_init(&argc, &argv, &x.proc, &x.nprocs);
	parse_opts(argc, argv, &x.o);
	if (!x.o.schedule)
		usage();
	x.s = gx_sched_read(x.o.schedule, err, sizeof(err));
	if (!x.s)
		die("%s", err);
	x.nranks = x.s->nranks;
	x.esize = 4; /* buffers sized for the widest dtype */
	setup_devices(&x);

	/* the largest region and scratch over every size */
	uint64_t max_region = 256, max_scratch = 0, max_elems = x.o.maxbytes / x.esize;

	for (uint64_t bytes = x.o.minbytes; bytes <= x.o.maxbytes; bytes *= x.o.factor) {
		struct gx_plan *p = gx_plan_new(x.s, bytes / x.esize, x.esize,
						channels_for(&x.o, x.s->coll, bytes),
						x.o.slice_bytes / x.esize, x.o.max_slots,
						wire_for(&x.o, x.s->coll, bytes), false, err, sizeof(err));

		if (!p)
			die("%s: %llu bytes: %s", x.o.schedule, (unsigned long long)bytes, err);
		for (int r = 0; r < x.nranks; r++) {
			if (p->ranks[r].region_bytes > max_region)
				max_region = p->ranks[r].region_bytes;
			if (p->ranks[r].scratch_elems > max_scratch)
				max_scratch = p->ranks[r].scratch_elems;
		}
		max_elems = bytes / x.esize;
		gx_plan_free(p);
	}
	/* bytes are the same for every dtype; a margin covers the rounding */
	setup_memory(&x, max_elems, max_region + (1 << 20), max_scratch + (1 << 18), x.s->nblocks);
	if (x.o.csv && !x.proc) {
		struct stat st;
		bool fresh = stat(x.o.csv, &st) != 0 || st.st_size == 0;

		x.csv = fopen(x.o.csv, "a");
		if (!x.csv)
			die("cannot open '%s' for appending", x.o.csv);
		if (fresh)
			fputs(CSV_HEADER, x.csv);
	}
	if (x.o.baseline)
		baseline(&x);
	if (x.o.probe)
		probe(&x);
	if (x.o.nccl)
		setup_nccl(&x);
	for (int d = 0; d < x.o.ndtypes; d++) {
		x.o.dtype = x.o.dtypes[d];
		x.esize = gx_dtype_size(x.o.dtype);
		x.tol = gx_tolerance(x.o.dtype);
		x.range = gx_input_range(x.o.dtype, x.nranks);
		if (x.o.executor)
			run_sizes(&x, false);
		if (x.o.nccl)
			run_sizes(&x, true);
	}
	if (x.o.nccl)
		release_nccl(&x);
	if (x.csv)
		fclose(x.csv);
	gx_sched_free(x.s);
	gx_comm_finalize();
	return 0;
}
