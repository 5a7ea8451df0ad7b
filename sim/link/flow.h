/* sim/link/flow — the fabric at flow level (fidelity: flow). Private to
 * sim/link: fabric.c hands it every message when the fabric runs in flow
 * mode; callers use link.h.
 *
 * A message is one flow over its route. Every resource a flow crosses has a
 * capacity in bytes per second: a channel (its wire rate, lowered to what
 * its credits and its Go-Back-N window let through a round trip, times the
 * expected goodput under its error rate), and, when they are limited, the
 * injection side of the source's memory and the ejection side of the
 * destination's. The flows active on a resource share it max-min fairly
 * (progressive filling): the rates are recomputed when a flow starts or ends,
 * over the flows that share a resource with it and, through them, with each
 * other (the connected component: nothing outside it can change). Under
 * max-min the walk takes only what the change can reach: from a flow, its
 * resources that are full, and of those the flows of the highest rate; a
 * flow beyond a resource with room, or slower than another on a full one,
 * is held elsewhere and keeps its rate. What it left out joins where the
 * new rates would need it, and the fill is done again. The rates are those
 * of the whole component's fill, to rounding.
 *
 * With flow.arbiter round-robin (enum link_flow_arbiter), a component that
 * holds a route of more than one hop is shared as the packet fabric's
 * arbiters share a channel: round robin among the inputs of its arbiter
 * that use it (its node's memory line, and each upstream channel x virtual
 * channel), each an equal share of the channel, or what that input asks
 * if less (the rates of its flows held before that channel, so the shares
 * are rounds of progressive filling to a fixed point; where the rounds
 * cycle between allocations, none a fixed point, the rates are the mean
 * of the cycle's, which is feasible as each of them is), and max-min among
 * the flows of one input (the packet fabric's FIFO shares an input in
 * proportion to what arrives: docs/scale.md says where that differs).
 * Routes of one hop alone are max-min as above (their only input is the
 * memory line).
 *
 * With flow.arbiter buffers, such a component's channels keep their receive
 * buffers (credits x packet bytes, per virtual channel) as a fluid, run in
 * steps of a sixteenth of the smallest buffer's drain time: each step, each
 * channel is shared round robin among the inputs of its arbiter that have
 * something for it, within the space left in the buffer below for each
 * virtual channel (a full buffer takes nothing more); a buffer's part for
 * each output drains at what that output grants it, its flows in the
 * proportions it holds them (the packet fabric queues a channel's arrivals
 * by the channel they leave on, in the room of the buffer they share: no
 * output holds another's); a node's memory sends no faster than its
 * injection rate. A tick every 16 steps (while such a flow sends) moves
 * the fluid one window on and gives each flow of it its rate: what its
 * destination received in that window (less, for a flow that starts with
 * nothing in the buffers, the step per hop its first bytes took, which its
 * tail already counts), or its remaining bytes over the time they took;
 * such a flow on a route of 16 hops or more, whose first bytes cannot land
 * within the window, is given what it receives in a window past its
 * route's length, read ahead without keeping it. A start or end between
 * ticks takes its rates from the window ahead of the fluid as the last
 * tick left it, without keeping it. A message whose
 * source has sent it all into the buffers lets its channel's line of
 * messages go on at the tick (a message of its pair waits behind it). The
 * fluid runs only where a rank forwards; elsewhere, and without finite
 * buffers, round robin as above.
 *
 * Timing of a flow of B payload bytes (wire bytes W_c = B + packets x header
 * on channel c, at least one packet):
 *  - it sends W (its first channel's wire bytes) at its rate r(t), weighted
 *    per resource: W_c / W on channel c, B / W on the memory sides (headers
 *    do not touch memory). Alone on an idle route it takes max_c W_c / bw_c,
 *    as the packet fabric's slowest channel does. A memory side slower than
 *    the links is a clock, as in the packet fabric: a message that begins
 *    while its side's clock is within the side's slack of now (a largest
 *    packet at its rate per port but one) has its first packet and the
 *    slack's bytes let go at its links' rate (they weigh on the side only
 *    for the time the links take them), which runs the clock ahead by
 *    their time at the side's rate; a message of no payload (a flag) is
 *    delivered no sooner than each side's clock less its slack allows,
 *    nor, where ejection has a rate (above the links' too), sooner after
 *    its pair's last delivery than the pair's last data message's last
 *    packet takes at that rate less the destination's slack (the packet
 *    fabric's ejection clock, which that packet ran ahead);
 *  - a byte sent at t is delivered at t + tail, tail = the route's
 *    propagation latency plus the store-and-forward of one packet on every
 *    hop but the slowest (sum - max of the first packet's serialisation),
 *    so an idle route gives the packet fabric's time
 *    slowest + (sum_pkt - max_pkt) + latency (paxi_txn_ideal_ps);
 *  - messages a node sends from its memory on one channel go one after the
 *    other, in the order they were sent (the packet fabric's FIFO memory
 *    input): a message starts when the one before it on that channel has
 *    sent its last byte, or, under max-min sharing on a route of two hops
 *    or more, once the one before it has been released: when its rest fits
 *    the room its first channel's receive buffer has left beside the
 *    messages released there before (credits x packet wire bytes), and
 *    neither that channel nor its source's memory side holds it (it goes
 *    slower there than they could carry, or as fast as another flow there
 *    that leaves them full), it leaves them, its rest crosses them at their
 *    rate, and the next message starts after that while it sends on at
 *    what the rest of its route gives it (the packet fabric queues a packet
 *    at a switch or a rank that forwards it by the channel it leaves on, so
 *    a message held further on does not hold the ones behind it; a message
 *    of the same pair still waits for it, so that each pair's deliveries
 *    stay in order);
 *  - from one source to one destination, messages are delivered in the
 *    order they were sent: a delivery never falls before an earlier
 *    message's (a header-only message's shorter tail may not overtake the
 *    data ahead of it, as a packet cannot pass the one ahead of it; a
 *    message of no wire bytes at all, no payload and no header, waits in
 *    its channel's order like the others, then takes only its tail);
 *  - delivery callbacks run at piece boundaries, not per packet: after the
 *    first `first_bytes`, then every `piece_bytes`, and on the last byte
 *    (done = true); piece_bytes = 0: once, on the last byte. A boundary
 *    that lands while the flow still sends costs one event, its landing
 *    (FL_ARRIVE), which times the next: nothing reads the moment it is
 *    sent. Where the flow's rate changes after such a boundary is sent,
 *    the boundaries sent since are timed then, at the rate they were sent
 *    at, and where the flow would end sending before it lands, its end
 *    gets its event.
 *  - with a slack function, the receiver says at each boundary how long it
 *    can wait for more data without delaying anything (a fused op whose own
 *    output channel is busy with queued data for that long, or whose
 *    outgoing Transfer is still in its setup that long): the next piece
 *    (the first too, once the flow has a rate) is then as many piece_bytes
 *    as the flow sends, at its rate of now, in two thirds of that slack less
 *    its tail (the third kept against a rate that drops later, or a
 *    reducer that the receiver's next op shares; all of it moved reducescatter
 *    ring by 4 %). A larger piece does not change the receiver's output while
 *    that output's channel stays busy (a rate that drops later can make it,
 *    which the check against packet fidelity bounds); it saves the events of
 *    the pieces it merges (a ring step of 64 slices of 16 KiB: a few pieces).
 *    Such a grown piece costs one event too, its arrival (FL_ARRIVE),
 *    and the next boundary is chosen when it lands, from the slack then
 *    plus the tail since it was sent. If the receiver cannot wait then,
 *    the boundaries sent in that tail are delivered one by one as they
 *    land. A grown boundary within one
 *    tail's payload of the end would land after the end is sent, which
 *    costs its sending as well; where one piece less keeps it ahead of the
 *    end, it stops that piece short. Slack 0 keeps first_bytes and
 *    piece_bytes, call for call.
 *  - with an early function as well (flow_set_early), each grown piece that
 *    lands asks the receiver whether it takes the rest of the message at
 *    once: PAXI says yes for a fused op whose own output's channel is busy
 *    for longer than the next slice takes to land and be reduced, while
 *    neither the message nor the reducer is slower than that channel, so
 *    that every later slice lands (and is reduced) before the channel
 *    reaches it; and not where the message's completion response would
 *    wait in line behind what the op sends. Then that landing delivers the
 *    whole message (not done), no piece follows, and the landing of the
 *    last byte completes it: a ring step costs its first piece's landing,
 *    its end's sending and its landing. A rate that drops later can make
 *    the receiver's output get ahead of the data, as with grown pieces.
 *  - a message still waiting in its channel's order may grow
 *    (flow_append): it is then timed, counted and delivered as one message
 *    of the sum sent in its place. So may a message that still sends with
 *    nothing waiting behind it on its channel: the bytes follow it at once,
 *    as a message sent behind it would (its headers counted on the sum).
 *    PAXI grows a Transfer's last message with the data supplied while it
 *    waits or sends, for a receiver with a slack function: the message
 *    would have waited for the one ahead anyway, and the receiver's pieces
 *    follow its slack, not how the data was supplied.
 *  - a header-only message that starts alone on every resource of its
 *    route, nothing waiting behind it, is timed when it starts (its end and
 *    delivery scheduled then, no event for its end); so is a message heading
 *    for its last byte alone, nothing behind it; a message that needs its
 *    channel or a resource of its route before that end makes it an
 *    ordinary flow again. Its last callback may run `late` after it lands
 *    (fabric_send_late): PAXI's control messages call back when processed.
 *  - a header-only message that starts beside other flows on its route
 *    sends at the route's full rate (the least cap / w of its channels) and
 *    takes no share: its bytes, a packet's header, are left out of the
 *    sharing, so its start and end move no other rate and cost no sharing
 *    of the component (a PAXI response or handshake across a busy
 *    multi-hop route: most of the starts and ends of such routes). It still
 *    holds its channel's line while it sends, and is delivered one tail
 *    after its end, in order behind its pair.
 *  - a message that may not send before a later time (a Transfer supplied
 *    before its setup ends) can be sent ahead of it (flow_send_at): where it
 *    would be alone on its one-hop route from then on, it takes its channel
 *    now and its events are scheduled from that time, so its start costs no
 *    event; where only the end of a message of the same route (timed as
 *    above) is there, it takes over from it; where a message of the same
 *    route sends there with nothing behind it, it waits behind that one
 *    (parked, no event) and begins at that one's end once the end is timed,
 *    or when it comes. A message sent on its channel, or a flow that joins
 *    one of its resources, before that time puts it back in line at the
 *    time, as if it had been sent then. Observed before the time (drain,
 *    rate), its channel shows what it would without it.
 *
 * Go-Back-N loss is an expected goodput factor on each channel:
 * (1 - p) / (1 - p + p x k), k = the packets a loss throws away (those sent
 * in the round trip until the NAK is back, at most the window); the timeout
 * of a lost tail is not modelled. Time stays integer picoseconds: an event
 * falls at the ceiling of its exact fluid time; rates are doubles computed
 * in a fixed order, so a run is deterministic. */
#ifndef G5_SIM_LINK_FLOW_H
#define G5_SIM_LINK_FLOW_H

#include <stdint.h>

#include "sim/link/link.h"

struct flow_net;

/* A flow network over `nchans` channels of parameters `params` (copied),
 * channel i from node ends[2i] to node ends[2i + 1] (a switch is a node >=
 * nranks), and the memory sides of `nranks` ranks (`np`: 0 is unlimited),
 * as sim component "flow" of `s`. A memory side at least as fast as all its
 * node's channels together can never be full and is left out. */
struct flow_net *flow_net_new(struct sim *s, int nchans, const struct link_params *params,
			      const int *ends, int nranks, const struct node_params *np);
void flow_net_free(struct flow_net *n);

/* Starts a message of `bytes` from rank src to rank dst over channels
 * chans[0..hops) (copied), delivered as described above; with `slack`,
 * pieces after the first grow with the receiver's slack (below). The
 * callback of its last byte runs `late` ps after that byte lands. */
/* How channels are shared where a route has more than one hop (enum
 * link_flow_arbiter; LINK_FLOW_MAXMIN until set). */
void flow_set_arbiter(struct flow_net *n, uint32_t arbiter);

/* The virtual channels of the route of the next message sent (read by
 * flow_send, flow_send_at): borrowed until then. */
void flow_set_vcs(struct flow_net *n, const uint8_t *vcs);

void flow_send(struct flow_net *n, int src, int dst, uint64_t bytes, const int *chans, int hops,
	       uint64_t first_bytes, uint64_t piece_bytes, fabric_slack_fn slack, sim_time_t late,
	       fabric_deliver_fn deliver, void *user);

/* As flow_send (late 0), for a message that may not send before `at`
 * (> now) over a one-hop route, where its start can cost no event:
 *  - when it would be alone on its resources from then on (none of them
 *    holds a flow, or the only one is a ghost on its channel of a message
 *    of the same route that has sent its last byte by `at`), it begins now,
 *    ahead: it takes its resources and its channel and schedules its events
 *    from `at`;
 *  - when a message of the same route sends on its channel with nothing
 *    behind it, it waits behind that one (parked) and begins at that one's
 *    end, or at `at` if later, with no event where that end is timed.
 * A flow that then joins one of its resources, or a message sent on its
 * channel, before `at` undoes that: it enters its channel's line at `at`,
 * as if sent then (one event). Returns true when taken; false, changing
 * nothing, where neither holds or the route has more hops. */
bool flow_send_at(struct flow_net *n, int src, int dst, uint64_t bytes, const int *chans, int hops,
		  uint64_t first_bytes, uint64_t piece_bytes, fabric_slack_fn slack,
		  fabric_deliver_fn deliver, void *user, sim_time_t at);

/* Whether flow_send_at would take a message src -> dst over
 * chans[0..hops) of some bytes now, ahead of `at`. */
bool flow_may_begin_at(struct flow_net *n, int src, int dst, const int *chans, int hops,
		       sim_time_t at);

/* Grows by `more` payload bytes the message from src to dst of `user` that
 * waits, last in line, on channel `chan` (its first), as if it had been
 * sent that large, or that sends on `chan` with nothing waiting behind it,
 * as if the bytes followed it at once: one flow instead of two that would
 * go one after the other; returns false (and does nothing) when neither is
 * that message. */
bool flow_append(struct flow_net *n, int src, int dst, int chan, uint64_t more, void *user);

/* The time from now until channel `chan` has sent the messages from memory
 * active and waiting on it, at the active one's rate of now; 0 if idle. */
sim_time_t flow_chan_drain_ps(const struct flow_net *n, int chan);

/* The rate of the message from memory that channel `chan` sends now, wire
 * bytes per ps; 0 if idle. */
double flow_chan_rate(const struct flow_net *n, int chan);

/* The receiver's early function of every message with a slack function
 * (fabric_set_early). */
void flow_set_early(struct flow_net *n, fabric_early_fn early);

/* Messages started and not yet delivered whole. */
uint64_t flow_in_flight(const struct flow_net *n);

/* Payload of the messages started whose route a rank forwards (a rank, not
 * a switch, between its first and last channel); *payload: that of all
 * messages started; *largest: the largest of those a rank forwards. */
uint64_t flow_rank_forwarded_bytes(const struct flow_net *n, uint64_t *payload, uint64_t *largest);
uint64_t flow_switched_bytes(const struct flow_net *n);

/* What round-robin sharing (flow_set_arbiter) has done so far (struct
 * flow_rr_stats, link.h). */
void flow_rr_stats(const struct flow_net *n, struct flow_rr_stats *out);

/* What max-min sharing's walks have done so far (struct flow_walk_stats,
 * link.h). */
void flow_walk_stats(const struct flow_net *n, struct flow_walk_stats *out);

/* For tests: max-min shares the whole component of a flow that starts or
 * ends (on), not only what its full resources reach (off, the default; the
 * rates are the same: flow.c, reshare). Process-wide. */
void flow_whole_components(bool on);

/* Channel i's traffic: payload, wire bytes, packets and busy time (wire
 * bytes at its rate) of the messages that have started on it; nothing is lost or
 * retransmitted at flow level. `out`'s src and dst are left as they are. */
void flow_channel_stats(const struct flow_net *n, int i, struct channel_stats *out);

#endif
