/* The host backend: the interpreter of interp.h on CPU threads, so that
 * every schedule can be checked without a GPU. One pthread per rank runs
 * all of its channels cooperatively (a channel with nothing to do yields to
 * the next); ranks share one address space, so a rank's "peer stores" are
 * plain stores into the other rank's region, and the flags are C11 atomics
 * (release store after the data, acquire load before reading it), exactly
 * the ordering the GPU backend gets from its fences. Regions persist over
 * the iterations of a run, so the flags run on as they do on the GPU. */
#include "gpu/core/gx.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t gx_flag_load(const uint64_t *p)
{
	return atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)p, memory_order_acquire);
}

static inline void gx_flag_store(uint64_t *p, uint64_t v)
{
	atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_release);
}

static inline uint64_t gx_done_load(const uint64_t *p)
{
	return atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)p, memory_order_acquire);
}

static inline void gx_done_add(uint64_t *p)
{
	atomic_fetch_add_explicit((_Atomic uint64_t *)p, 1, memory_order_release);
}

static inline void gx_done_post(uint64_t *p)
{
	atomic_fetch_add_explicit((_Atomic uint64_t *)p, 1, memory_order_relaxed);
}

static inline void gx_flag_post(uint64_t *p, uint64_t v)
{
	atomic_store_explicit((_Atomic uint64_t *)p, v, memory_order_relaxed);
}

/* An LL line on the host: two 64-bit words, each 4 data bytes in its low
 * half and the flag in its high half, each stored and loaded as one atomic
 * word (the device stores the 16 bytes at once; each word is what one
 * 8-byte half of that store guarantees). */
static inline uint64_t ll_word(const char *line, int h)
{
	return atomic_load_explicit((_Atomic uint64_t *)(uintptr_t)(line + 8 * h),
				    memory_order_relaxed);
}

static inline bool gx_line_arrived(const char *line, uint32_t flag)
{
	return (uint32_t)(ll_word(line, 0) >> 32) == flag && (uint32_t)(ll_word(line, 1) >> 32) == flag;
}

#define GX_INTERP_FN static inline
#include "gpu/core/interp.h"

struct host_run;

struct host_rank {
	struct host_run *run;   /* borrowed */
	int r;
	char *bufs[4];          /* by enum gx_buf: in, out, scratch (borrowed) */
	uint64_t *done;         /* nops: completion counters of its channels, owned */
	struct gx_chan *chans;  /* nchannels, owned with their state */
	char msg[256];          /* why it stopped, when it failed */
	bool failed;
};

struct host_run {
	const struct gx_plan *p;
	enum gx_dtype d;
	double timeout_s;
	char **regions;          /* nranks, owned */
	struct host_rank *ranks; /* nranks */
	atomic_int abort_all;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One slice: the op's effect on `count` elements (gx.h's table). */
static void host_slice(const struct gx_xop *x, char *const bufs[4], const struct gx_work *w,
		       enum gx_dtype d)
{
	uint32_t es = gx_dtype_size(d);
	const char *R = w->in;
	const char *L = x->src_buf ? bufs[x->src_buf] + (x->src_elem + w->first) * es : NULL;
	char *D = x->dst_buf ? bufs[x->dst_buf] + (x->dst_elem + w->first) * es : NULL;
	char *O = w->out;

	for (uint64_t k = 0; k < w->count; k++) {
		float v;

		if (x->flags & GX_F_RECV) {
			v = gx_load_elem(R, k, d);
			if (x->flags & GX_F_ADD)
				v += gx_load_elem(L, k, d);
		} else {
			v = gx_load_elem(L, k, d);
			if (x->flags & GX_F_ADD)
				v += gx_load_elem(D, k, d);
		}
		if (x->flags & GX_F_DST)
			gx_store_elem(D, k, d, v);
		if (x->flags & GX_F_SEND)
			gx_store_elem(O, k, d, v);
	}
}

/* One slice on the LL wire: the received lines gathered into `in` (each
 * waited for), the op run on them, the result written out as lines (at
 * least one, so that an empty slice still arrives). */
static void host_slice_ll(const struct gx_xop *x, char *const bufs[4], const struct gx_work *w,
			  enum gx_dtype d, char *in, char *out)
{
	uint64_t nbytes = w->count * gx_dtype_size(d);
	uint64_t nlines = (nbytes + GX_LL_DATA - 1) / GX_LL_DATA;
	struct gx_work v = *w;

	if (x->flags & GX_F_RECV)
		for (uint64_t k = 0; k < nlines; k++) {
			const char *line = w->in + k * GX_LL_LINE;

			while (!gx_line_arrived(line, w->in_flag))
				sched_yield();
			for (int h = 0; h < 2; h++) {
				uint32_t dword = (uint32_t)ll_word(line, h);

				memcpy(in + k * GX_LL_DATA + 4 * h, &dword, 4);
			}
		}
	v.in = in;
	v.out = out;
	memset(out, 0, (nlines + 1) * GX_LL_DATA);
	host_slice(x, bufs, &v, d);
	if (!(x->flags & GX_F_SEND))
		return;
	for (uint64_t k = 0; k < (nlines ? nlines : 1); k++)
		for (int h = 0; h < 2; h++) {
			uint32_t dword;

			memcpy(&dword, out + k * GX_LL_DATA + 4 * h, 4);
			atomic_store_explicit((_Atomic uint64_t *)(w->out + k * GX_LL_LINE + 8 * h),
					      (uint64_t)w->out_flag << 32 | dword, memory_order_relaxed);
		}
}

static void *host_rank_main(void *arg)
{
	struct host_rank *hr = (struct host_rank *)arg;
	struct host_run *run = hr->run;
	uint32_t C = run->p->nchannels, finished = 0;
	bool *fin = (bool *)calloc(C, sizeof(bool));
	/* LL: a slice's data gathered from its lines, and its result */
	uint64_t tmp = (run->p->slice_elems * gx_dtype_size(run->d) / GX_LL_DATA + 2) * GX_LL_DATA;
	char *ll_in = (char *)malloc(tmp), *ll_out = (char *)malloc(tmp);
	double last = now_s();
	unsigned idle = 0;

	if (!fin || !ll_in || !ll_out)
		abort();
	while (finished < C) {
		bool progress = false;

		for (uint32_t c = 0; c < C; c++) {
			struct gx_work w;

			if (fin[c])
				continue;
			gx_find_work(&hr->chans[c], &w);
			if (w.op == -2) {
				fin[c] = true;
				finished++;
				progress = true;
			} else if (w.op >= 0) {
				if (run->p->wire == GX_WIRE_LL)
					host_slice_ll(&hr->chans[c].ops[w.op], hr->bufs, &w, run->d, ll_in,
						      ll_out);
				else
					host_slice(&hr->chans[c].ops[w.op], hr->bufs, &w, run->d);
				gx_finish_work(&hr->chans[c], &w);
				progress = true;
			}
		}
		if (progress) {
			idle = 0;
			continue;
		}
		if (idle++ == 0)
			last = now_s(); /* idle since now */
		sched_yield();
		if (idle % 256)
			continue;
		if (atomic_load(&run->abort_all))
			break;
		if (now_s() - last > run->timeout_s) {
			for (uint32_t c = 0; c < C && !hr->failed; c++) {
				struct gx_chan *ch = &hr->chans[c];

				if (fin[c])
					continue;
				for (uint32_t i = 0; i < ch->nops; i++)
					if (!(ch->state[i] & GX_ST_DONE)) {
						snprintf(hr->msg, sizeof(hr->msg),
							 "rank %d channel %u makes no progress: op %u (%s) %s at slice %u of %u",
							 hr->r, c, i,
							 gx_kind_name((enum gx_kind)ch->ops[i].kind),
							 (ch->state[i] & GX_ST_STARTED) ? "waits"
											 : "cannot start",
							 ch->next[i], ch->ops[i].nslices);
						break;
					}
			}
			hr->failed = true;
			atomic_store(&run->abort_all, 1);
			break;
		}
	}
	free(fin);
	free(ll_in);
	free(ll_out);
	return NULL;
}

int64_t gx_host_run(const struct gx_sched *s, uint64_t elems, enum gx_dtype d, bool inplace,
		    const struct gx_host_opts *o, char *err, size_t errlen)
{
	uint32_t es = gx_dtype_size(d), range = gx_input_range(d, s->nranks);
	bool copy_in = inplace && !s->inplace_ok; /* run out of place from a copy */
	struct gx_plan *p = gx_plan_new(s, elems, es, o->nchannels, o->slice_elems, o->max_slots,
					o->wire, inplace && !copy_in, err, errlen);
	struct host_run run;
	int n = s->nranks;
	int64_t wrong = 0;
	char **bufs;      /* per rank: in, out, scratch, and the in-place buffer */
	pthread_t *th;

	if (!p)
		return -1;
	memset(&run, 0, sizeof(run));
	run.p = p;
	run.d = d;
	run.timeout_s = o->timeout_s > 0 ? o->timeout_s : 30;
	run.regions = (char **)calloc((size_t)n, sizeof(char *));
	run.ranks = (struct host_rank *)calloc((size_t)n, sizeof(struct host_rank));
	bufs = (char **)calloc((size_t)n * 4, sizeof(char *));
	th = (pthread_t *)calloc((size_t)n, sizeof(pthread_t));
	if (!run.regions || !run.ranks || !bufs || !th)
		abort();
	for (int r = 0; r < n; r++) {
		const struct gx_rank_plan *rp = &p->ranks[r];
		const struct gx_rank *rk = &s->ranks[r];
		struct host_rank *hr = &run.ranks[r];
		uint64_t slice_bytes = p->slot_bytes;

		run.regions[r] = (char *)aligned_alloc(256, (rp->region_bytes + 255) / 256 * 256);
		if (!run.regions[r])
			abort();
		memset(run.regions[r], 0, rp->region_bytes);
		if (copy_in) {
			/* one buffer of E elements as the user sees it in place */
			bufs[r * 4 + 3] = (char *)malloc(elems * es + 16);
			bufs[r * 4 + 0] = (char *)malloc(rp->in_elems * es + 16);
			hr->bufs[GX_BUF_IN] = bufs[r * 4 + 0];
			hr->bufs[GX_BUF_OUT] =
				bufs[r * 4 + 3] + gx_unit_first(s, elems, rk->out_lo) * es;
		} else {
			bufs[r * 4 + 0] = (char *)malloc(rp->in_elems * es + 16);
			bufs[r * 4 + 1] = inplace ? bufs[r * 4 + 0]
						  : (char *)malloc(rp->out_elems * es + 16);
			hr->bufs[GX_BUF_IN] = bufs[r * 4 + 0];
			hr->bufs[GX_BUF_OUT] = bufs[r * 4 + 1];
		}
		bufs[r * 4 + 2] = (char *)malloc(rp->scratch_elems * es + 16);
		hr->bufs[GX_BUF_SCRATCH] = bufs[r * 4 + 2];
		hr->run = &run;
		hr->r = r;
		hr->chans = (struct gx_chan *)calloc(o->nchannels, sizeof(struct gx_chan));
		hr->done = (uint64_t *)calloc(rp->nops + 1, sizeof(uint64_t));
		if (!hr->chans || !hr->done)
			abort();
		for (uint32_t c = 0; c < o->nchannels; c++) {
			struct gx_chan *ch = &hr->chans[c];

			ch->ops = rp->ops;
			ch->nops = rp->nops;
			ch->deps = rp->deps;
			ch->conns = p->conns;
			ch->nconns = p->nconns;
			ch->regions = run.regions;
			ch->rank = r;
			ch->channel = c;
			ch->nchannels = o->nchannels;
			ch->slice_elems = o->slice_elems;
			ch->slice_bytes = slice_bytes;
			ch->ll = p->wire == GX_WIRE_LL;
			ch->state = (uint8_t *)calloc(rp->nops + 1, 1);
			ch->next = (uint32_t *)calloc(rp->nops + 1, sizeof(uint32_t));
			ch->sent = (uint64_t *)calloc(p->nconns + 1, sizeof(uint64_t));
			ch->recvd = (uint64_t *)calloc(p->nconns + 1, sizeof(uint64_t));
			ch->done = hr->done;
			if (!ch->state || !ch->next || !ch->sent || !ch->recvd)
				abort();
		}
	}
	for (uint32_t it = 0; it < (o->iters ? o->iters : 1) && wrong >= 0; it++) {
		for (int r = 0; r < n; r++) {
			const struct gx_rank *rk = &s->ranks[r];
			const struct gx_rank_plan *rp = &p->ranks[r];
			struct host_rank *hr = &run.ranks[r];
			uint64_t in0 = gx_unit_first(s, elems, rk->in_lo);
			uint64_t in1 = gx_unit_first(s, elems, rk->in_hi);
			bool has_in = rk->in_hi > rk->in_lo;

			memset(hr->bufs[GX_BUF_SCRATCH], 0xff, rp->scratch_elems * es);
			if (copy_in) {
				memset(bufs[r * 4 + 3], 0xff, elems * es);
				if (has_in) {
					char *user_in = bufs[r * 4 + 3] + in0 * es;

					gx_fill_input(user_in, in0, in1 - in0, r, d, range);
					/* the copy the executor makes: timed with the run on GPU */
					memcpy(hr->bufs[GX_BUF_IN], user_in, (in1 - in0) * es);
				}
			} else if (inplace) {
				memset(hr->bufs[GX_BUF_IN], 0xff, rp->in_elems * es);
				if (has_in)
					gx_fill_input(hr->bufs[GX_BUF_IN] + in0 * es, in0, in1 - in0, r,
						      d, range);
			} else {
				if (has_in)
					gx_fill_input(hr->bufs[GX_BUF_IN], in0, in1 - in0, r, d, range);
				memset(hr->bufs[GX_BUF_OUT], 0xff, rp->out_elems * es);
			}
			for (uint32_t c = 0; c < o->nchannels; c++)
				gx_chan_begin(&hr->chans[c], it);
		}
		for (int r = 0; r < n; r++)
			if (pthread_create(&th[r], NULL, host_rank_main, &run.ranks[r])) {
				snprintf(err, errlen, "cannot start a thread for rank %d", r);
				abort();
			}
		for (int r = 0; r < n; r++)
			pthread_join(th[r], NULL);
		for (int r = 0; r < n && wrong >= 0; r++)
			if (run.ranks[r].failed) {
				snprintf(err, errlen, "iteration %u: %s", it, run.ranks[r].msg);
				wrong = -1;
			}
		if (wrong < 0 || atomic_load(&run.abort_all)) {
			if (wrong >= 0) {
				snprintf(err, errlen, "iteration %u: aborted", it);
				wrong = -1;
			}
			break;
		}
		for (int r = 0; r < n; r++) {
			const struct gx_rank *rk = &s->ranks[r];
			uint64_t o0 = gx_unit_first(s, elems, rk->out_lo);
			uint64_t o1 = gx_unit_first(s, elems, rk->out_hi);
			const char *out = run.ranks[r].bufs[GX_BUF_OUT];

			if (rk->out_hi <= rk->out_lo)
				continue;
			if (inplace && !copy_in)
				out += o0 * es;
			wrong += (int64_t)gx_count_wrong(out, o0, o1 - o0, s, elems, r, d, range);
		}
	}
	for (int r = 0; r < n; r++) {
		for (uint32_t c = 0; c < o->nchannels; c++) {
			free(run.ranks[r].chans[c].state);
			free(run.ranks[r].chans[c].next);
			free(run.ranks[r].chans[c].sent);
			free(run.ranks[r].chans[c].recvd);
		}
		free(run.ranks[r].chans);
		free(run.ranks[r].done);
		free(run.regions[r]);
		free(bufs[r * 4 + 0]);
		if (copy_in)
			free(bufs[r * 4 + 3]);
		else if (!inplace)
			free(bufs[r * 4 + 1]);
		free(bufs[r * 4 + 2]);
	}
	free(bufs);
	free(th);
	free(run.regions);
	free(run.ranks);
	gx_plan_free(p);
	return wrong;
}
