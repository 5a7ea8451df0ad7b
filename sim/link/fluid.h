/* An event-driven fluid of a fabric's receive buffers.
 *
 * What the packet fabric does where ranks forward messages larger than a
 * link's receive buffer, in continuous time and with an event only where a
 * rate changes. Each channel has a rate and, at its downstream node, a
 * receive buffer per virtual channel. A buffer's contents are queued by
 * the input they wait for at their next output (the next channel and its
 * virtual channel, or the node's ejection), as the packet fabric queues
 * what a node forwards: each such part is first in, first out, its runs
 * each a mix of flows in fixed proportions (what arrived together). An
 * output serves its inputs round robin in equal shares (the node's memory
 * line on the channel, one message at a time in the order they were added,
 * and each part that waits for it); an input with nothing queued asks only
 * what arrives for it, and passes it through. Where the buffer below an
 * output is full for a virtual channel, the inputs that send into it take
 * together no more than it drains.
 *
 * Between events every rate is constant. At an event the outputs whose
 * inputs changed share themselves again, and so on down (what a part that
 * holds nothing passes on) and up (what a full buffer drains), to a fixed
 * point. An event is the next of: a part's head run drained (or the part,
 * where what arrives goes on growing its one run), a memory line's message
 * sent, a buffer filled, a flow delivered. Contents of less than
 * FLUID_EMPTY bytes (fluid.c) count as nothing: a head run that small
 * joins the run behind it (its bytes counted in that run's mix), and
 * events due within the time the fastest channel takes to move that much
 * are one event. A buffer is full from the event that fills it until it
 * has drained a grain (fluid_set_grain) below its size.
 *
 * Not modelled: the links' latency as a delay (only as the credits' loop,
 * above), packets (a run is a fluid), a node's injection limit. Times are in picoseconds as
 * doubles; bytes are wire bytes. */
#ifndef G5_SIM_LINK_FLUID_H
#define G5_SIM_LINK_FLUID_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct fabric_config;

/* A channel from node `from` to node `to`: its rate, its receive buffer
 * per virtual channel (INFINITY: unlimited) and its credits' loop (its
 * latency and the credits' return time). A credit comes back a loop after
 * its packet left the buffer, so a sender at the channel's rate has that
 * many bytes on the way that the buffer cannot hold: the fluid's buffer is
 * what is left, buf_bytes - bytes_per_ps x loop_ps (> 0). */
struct fluid_chan {
	int from, to;
	double bytes_per_ps;   /* > 0 */
	double buf_bytes;      /* > 0 */
	double loop_ps;        /* >= 0 */
};

/* Counts of the work done, for benchmarks and tests. */
struct fluid_stats {
	uint64_t events;       /* intervals of constant rates */
	uint64_t rounds;       /* outputs shared again, over all events */
	uint64_t unsettled;    /* solves stopped by their bound on that work: full
				* buffers in a cycle whose caps did not settle;
				* the rates after one are not to be trusted */
};

struct fluid;

/* A fluid over `nchans` channels between `nnodes` nodes, with `nvc`
 * virtual channels (1..4) and ejection unlimited (as fast as all of a
 * node's channels bring, fluid_set_eject). Never NULL. */
struct fluid *fluid_new(int nnodes, int nchans, const struct fluid_chan *chans, int nvc);
void fluid_free(struct fluid *f);

/* Adds a flow of `wire_bytes` (> 0) to node `dst` over `hops` channels
 * (chans[k] and its virtual channel vcs[k]; consecutive channels meet at a
 * node; the last enters dst): it enters the line of its first channel, behind
 * the flows there. Returns its index (0, 1, ... in order of adding). */
uint32_t fluid_add(struct fluid *f, int dst, double wire_bytes, int hops, const int *chans,
		   const uint8_t *vcs);

/* A fluid of the channels of cfg's topology, each with cfg->link's rate,
 * receive buffer (credits x packet wire bytes) and credits' loop (latency
 * and credit return), its grain a packet's wire bytes, for fluid_send.
 * NULL with `error` set where the topology does not admit cfg. */
struct fluid *fluid_new_fabric(const struct fabric_config *cfg, GError **error);

/* On a fluid of fluid_new_fabric: adds a message of `bytes` (> 0) payload
 * from rank src to rank dst (src != dst) on the route the fabric gives it
 * (ROUTE_SHORTEST), as its wire bytes (a header a packet), behind what src
 * sent before on that route's first channel. Returns its index. */
uint32_t fluid_send(struct fluid *f, int src, int dst, uint64_t bytes);

/* Runs until every flow added is delivered; false where nothing can move
 * while some flow is not (a deadlock of full buffers). */
bool fluid_run(struct fluid *f);

/* When flow `id` was delivered (ps from the start), or a negative number
 * while it is not. */
double fluid_done_ps(const struct fluid *f, uint32_t id);

void fluid_get_stats(const struct fluid *f, struct fluid_stats *out);

/* What arrives at a buffer's part while its last run holds fewer than
 * `bytes` (>= 1; 1 by default) joins that run, mixed, in place of a run
 * of its own: the packet, below which the packet fabric does not divide
 * what it forwards, and without which runs a fraction of a packet long
 * each cost an event. */
void fluid_set_grain(struct fluid *f, double bytes);

/* Node `node`'s ejection takes at most bytes_per_ps (> 0). */
void fluid_set_eject(struct fluid *f, int node, double bytes_per_ps);

/* Run by steps, for a simulation that adds flows as time passes: the time
 * of the fluid's next event (INFINITY: none), its rates settled first
 * (after fluid_add, fluid_grow or fluid_finish); and the fluid moved on to
 * t_ps (no earlier than its time), every event due by then having
 * happened. fluid_add, fluid_grow and fluid_finish act at the fluid's
 * time. */
double fluid_next_ps(struct fluid *f);
void fluid_advance(struct fluid *f, double t_ps);

/* A flow as of the fluid's time. */
struct fluid_flow_state {
	double delivered;      /* bytes */
	double rate;           /* delivery rate, bytes per ps */
	double rem;            /* bytes still in memory */
	bool in_line;          /* its line has not gone on from it */
	bool done;
};

void fluid_state(const struct fluid *f, uint32_t id, struct fluid_flow_state *out);

/* Flow id grows by wire_bytes (> 0), sent from memory behind what it had;
 * where its line had gone on from it, that line must be empty. */
void fluid_grow(struct fluid *f, uint32_t id, double wire_bytes);

/* Flow id is delivered now, whatever it lacks (it leaves its line); what
 * the buffers hold of it still drains. */
void fluid_finish(struct fluid *f, uint32_t id);

/* Appends to `out` (of uint32_t) the flows whose delivery rate, delivery
 * or line may have changed since the last call. */
void fluid_take_changed(struct fluid *f, GArray *out);

#endif
