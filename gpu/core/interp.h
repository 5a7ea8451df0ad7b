/* gpu/core/interp — the interpreter's decisions, shared by every backend.
 *
 * One channel of one rank runs the rank's whole op list on its part of
 * every op's elements (gx.h). It is a cooperative loop, so that any number
 * of ops can be in flight without a thread each: a single leader (the host
 * thread, or thread 0 of the channel's thread block) calls gx_find_work(),
 * which scans the ops round robin and returns one slice that can run now;
 * all workers then move that slice's data (the backend's own code), and the
 * leader calls gx_finish_work(), which raises the flags that slice owes.
 *
 * An op starts once every op it depends on is done on every channel (a
 * dep's elements are split over the channels by its own size, which need
 * not match the dependent op's, so the channels of a rank share one
 * completion counter per op, monotonic like the flags: op i is done in
 * iteration `it` when its counter reaches (it + 1) x C) and the previous op of
 * its lane has started (schedule.h's rule: a lane issues in list order, ops
 * overlap); a receiving op by Send/Recv raises its sender's ready flag when
 * it starts. Slice j of an op can run when
 *   - every earlier slice of its connection has run on this side (a
 *     connection's slices run in order, so its flags only grow);
 *   - it receives: the data flag of its connection is above the slice's
 *     number g = iter x slices + recv_base + j;
 *   - it sends: the slot of g' = iter x slices + send_base + j is free
 *     (g' < credit + slots), and by Send/Recv the receiver is ready for the
 *     message (ready > iter x msgs + send_msg).
 * After the slice: a receiver raises the sender's credit to g + 1; a sender
 * raises the receiver's data flag to g' + 1, per slice by Transfer, and by
 * Send/Recv only after the message's last slice (or when the slots wrap
 * around, so a message longer than the staging still flows).
 *
 * On the LL wire (gx.h) no data flag is raised: every 16-byte line of the
 * slot carries (uint32_t)(g + 1) twice beside its 8 data bytes, and a slice
 * can run once the slot's first line holds its flag (the sender writes the
 * slice's lines in one go, the first line always, so the rest follows
 * without waiting on anything); the workers then wait for their own lines.
 * The credit is a plain store: the slot's lines have been read, nothing
 * written before it needs ordering.
 *
 * The includer defines GX_INTERP_FN (the functions' qualifiers) and four
 * functions before including this file:
 *   uint64_t gx_flag_load(const uint64_t *p)   acquire load
 *   void gx_flag_store(uint64_t *p, uint64_t v) release store (the data
 *        written before it, by every worker, must be visible first)
 *   uint64_t gx_done_load(const uint64_t *p)   acquire load of a counter
 *   void gx_done_add(uint64_t *p)              release increment
 *   void gx_done_post(uint64_t *p)             relaxed increment (an op that
 *        wrote nothing locally: nothing to publish, and a release would wait
 *        for its stores to the peer)
 *   void gx_flag_post(uint64_t *p, uint64_t v) relaxed store (LL credits)
 *   bool gx_line_arrived(const char *line, uint32_t flag)
 *        whether the LL line holds `flag` in both flag words */
#ifndef G5_GPU_CORE_INTERP_H
#define G5_GPU_CORE_INTERP_H

#include "gpu/core/gx.h"

enum { GX_ST_STARTED = 1, GX_ST_DONE = 2 };

/* One channel of one rank. */
struct gx_chan {
	const struct gx_xop *ops; /* borrowed: the rank's plan */
	uint32_t nops;
	const uint32_t *deps;     /* borrowed */
	const struct gx_conn *conns; /* borrowed: the plan's */
	char *const *regions;     /* every rank's region, as this rank addresses it */
	int rank;
	uint32_t channel, nchannels;
	uint64_t slice_elems, slice_bytes; /* slice_bytes: slot stride, 16-byte aligned */
	bool ll;                  /* slices travel as LL lines (gx.h) */
	uint64_t iter;            /* iteration number, from 0, the same on every rank */
	uint32_t nconns;
	uint8_t *state;           /* nops: GX_ST_* */
	uint32_t *next;           /* nops: next slice */
	uint64_t *sent;           /* nconns: slices sent on each connection this iteration */
	uint64_t *recvd;          /* nconns: slices received */
	uint64_t *done;           /* nops: completions over channels and iterations,
				     shared by the rank's channels */
	uint32_t ndone, lo, cursor;
};

/* One slice to run. */
struct gx_work {
	int32_t op;      /* >= 0: the op; -1: nothing can run now; -2: all done */
	uint32_t slice;
	uint64_t first;  /* element offset within the op (this channel, this slice) */
	uint64_t count;  /* elements, may be 0 */
	char *in;        /* staging slot holding R, or NULL */
	char *out;       /* the receiver's staging slot to write, or NULL */
	uint32_t in_flag, out_flag; /* LL: the lines' flags to wait for and to write */
};

GX_INTERP_FN uint64_t *gx_flag_at(const struct gx_chan *ch, int rank, uint64_t off)
{
	return (uint64_t *)(ch->regions[rank] + off + (uint64_t)ch->channel * GX_FLAG_STRIDE);
}

GX_INTERP_FN char *gx_slot_at(const struct gx_chan *ch, const struct gx_conn *c, uint64_t g)
{
	uint64_t slot = (uint64_t)ch->channel * c->slots + g % c->slots;

	return ch->regions[c->receiver] + c->stage_off + slot * ch->slice_bytes;
}

/* Resets the per-iteration state (flags run on). */
GX_INTERP_FN void gx_chan_begin(struct gx_chan *ch, uint64_t iter)
{
	for (uint32_t i = 0; i < ch->nops; i++) {
		ch->state[i] = 0;
		ch->next[i] = 0;
	}
	for (uint32_t c = 0; c < ch->nconns; c++)
		ch->sent[c] = ch->recvd[c] = 0;
	ch->iter = iter;
	ch->ndone = 0;
	ch->lo = 0;
	ch->cursor = 0;
}

/* Starts op i if it may start now; true when it is started. */
GX_INTERP_FN bool gx_try_start(struct gx_chan *ch, uint32_t i)
{
	const struct gx_xop *x = &ch->ops[i];

	if (ch->state[i] & GX_ST_STARTED)
		return true;
	if (x->lane_pred >= 0 && !(ch->state[x->lane_pred] & GX_ST_STARTED))
		return false;
	uint64_t target = (ch->iter + 1) * ch->nchannels;

	for (uint32_t d = 0; d < x->ndeps; d++)
		if (gx_done_load(&ch->done[ch->deps[x->dep_first + d]]) < target)
			return false;
	ch->state[i] |= GX_ST_STARTED;
	if ((x->flags & GX_F_RECV) && x->recv_proto == GX_SENDRECV) {
		const struct gx_conn *c = &ch->conns[x->in_conn];

		gx_flag_store(gx_flag_at(ch, c->sender, c->ready_off),
			      ch->iter * c->msgs + x->recv_msg + 1);
	}
	return true;
}

/* Whether slice j of op i can run now; fills w when it can. */
GX_INTERP_FN bool gx_slice_ready(struct gx_chan *ch, uint32_t i, struct gx_work *w)
{
	const struct gx_xop *x = &ch->ops[i];
	uint32_t j = ch->next[i];

	w->in = w->out = 0;
	if (x->flags & GX_F_RECV) {
		const struct gx_conn *c = &ch->conns[x->in_conn];
		uint64_t g = ch->iter * c->slices + x->recv_base + j;

		if (ch->recvd[x->in_conn] != x->recv_base + j)
			return false;
		w->in = gx_slot_at(ch, c, g);
		w->in_flag = (uint32_t)(g + 1);
		if (ch->ll ? !gx_line_arrived(w->in, w->in_flag)
			   : gx_flag_load(gx_flag_at(ch, c->receiver, c->data_off)) <= g)
			return false;
	}
	if (x->flags & GX_F_SEND) {
		const struct gx_conn *c = &ch->conns[x->out_conn];
		uint64_t g = ch->iter * c->slices + x->send_base + j;

		if (ch->sent[x->out_conn] != x->send_base + j ||
		    g >= gx_flag_load(gx_flag_at(ch, c->sender, c->credit_off)) + c->slots)
			return false;
		if (x->send_proto == GX_SENDRECV &&
		    gx_flag_load(gx_flag_at(ch, c->sender, c->ready_off)) <=
			    ch->iter * c->msgs + x->send_msg)
			return false;
		w->out = gx_slot_at(ch, c, g);
		w->out_flag = (uint32_t)(g + 1);
	}
	uint64_t cfirst, ccount, lo;

	gx_split(x->n, ch->nchannels, ch->channel, &cfirst, &ccount);
	lo = (uint64_t)j * ch->slice_elems;
	w->op = (int32_t)i;
	w->slice = j;
	w->first = cfirst + (lo < ccount ? lo : ccount);
	w->count = lo < ccount ? (ccount - lo < ch->slice_elems ? ccount - lo : ch->slice_elems) : 0;
	return true;
}

/* Starts, in list order, every op that may start now. A receiving op by
 * Send/Recv raises its sender's ready flag when it starts, so it must not
 * wait behind a slice this channel runs first: a send found runnable ahead
 * of it in the scan would otherwise hold the peer's send back until that
 * slice has crossed, and a channel's two directions would take turns. */
GX_INTERP_FN void gx_start_ready(struct gx_chan *ch)
{
	for (uint32_t i = ch->lo; i < ch->nops; i++)
		if (!(ch->state[i] & GX_ST_STARTED))
			gx_try_start(ch, i);
}

/* Starts what may start, then scans the started ops once, round robin from
 * the last one served; returns the first slice that can run (w->op >= 0),
 * or w->op = -1 (nothing now) or -2 (every op done). */
GX_INTERP_FN void gx_find_work(struct gx_chan *ch, struct gx_work *w)
{
	while (ch->lo < ch->nops && (ch->state[ch->lo] & GX_ST_DONE))
		ch->lo++;
	if (ch->ndone == ch->nops) {
		w->op = -2;
		return;
	}
	gx_start_ready(ch);
	uint32_t span = ch->nops - ch->lo;
	uint32_t start = ch->cursor < ch->lo || ch->cursor >= ch->nops ? ch->lo : ch->cursor;

	for (uint32_t k = 0; k < span; k++) {
		uint32_t i = start + k;

		if (i >= ch->nops)
			i -= span;
		if ((ch->state[i] & GX_ST_DONE) || !(ch->state[i] & GX_ST_STARTED))
			continue;
		if (gx_slice_ready(ch, i, w))
			return;
	}
	w->op = -1;
}

/* Raises the flags slice w owes and advances its op (leader, after every
 * worker's data is written). */
GX_INTERP_FN void gx_finish_work(struct gx_chan *ch, const struct gx_work *w)
{
	uint32_t i = (uint32_t)w->op, j = w->slice;
	const struct gx_xop *x = &ch->ops[i];

	if (x->flags & GX_F_RECV) {
		const struct gx_conn *c = &ch->conns[x->in_conn];
		uint64_t g = ch->iter * c->slices + x->recv_base + j;

		if (ch->ll)
			gx_flag_post(gx_flag_at(ch, c->sender, c->credit_off), g + 1);
		else
			gx_flag_store(gx_flag_at(ch, c->sender, c->credit_off), g + 1);
		ch->recvd[x->in_conn]++;
	}
	if (x->flags & GX_F_SEND) {
		const struct gx_conn *c = &ch->conns[x->out_conn];
		uint64_t g = ch->iter * c->slices + x->send_base + j;

		if (!ch->ll &&
		    (x->send_proto == GX_TRANSFER || j + 1 == x->nslices || (g + 1) % c->slots == 0))
			gx_flag_store(gx_flag_at(ch, c->receiver, c->data_off), g + 1);
		ch->sent[x->out_conn]++;
	}
	ch->next[i] = j + 1;
	ch->cursor = i + 1;
	if (j + 1 == x->nslices) {
		ch->state[i] |= GX_ST_DONE;
		ch->ndone++;
		if (x->flags & GX_F_DST)
			gx_done_add(&ch->done[i]);
		else
			gx_done_post(&ch->done[i]);
	}
}

#endif
