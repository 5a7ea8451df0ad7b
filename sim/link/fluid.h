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
 * are one event. A buffer is full from the event that fills it until its
 * feeders send less than it drains.
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
	uint64_t unsettled;    /* solves stopped by their bound on that work */
};

struct fluid;

/* A fluid over `nchans` channels between `nnodes` nodes, with `nvc`
 * virtual channels (1..4) and unlimited ejection. Never NULL. */
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
 * and credit return), for fluid_send. NULL with `error` set where the
 * topology does not admit cfg. */
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

#endif
