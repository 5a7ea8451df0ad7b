/* sim/core/limits — the one place where G5's rank limit is set. Every
 * reader of ranks takes its limit from here: a schedule and its file
 * (SCHED_MAX_RANKS, sim/algos/ir.h, which gpu/ shares), a topology
 * (LINK_MAX_RANKS, sim/link/link.h), a measured file (MEASURED_MAX_RANKS)
 * and a workload (WORKLOAD_MAX_RANKS). Plain C, no GLib: gpu/ reads it. */
#ifndef G5_SIM_CORE_LIMITS_H
#define G5_SIM_CORE_LIMITS_H

/* The most ranks of a run. What grows with the ranks squared is refused by
 * memory, not by this limit: a full mesh's channels and a switch's arbiter
 * inputs (fabric_memory_bytes), the ops of a schedule that stores every
 * rank's (sched_over), the step table (runner_memory_bytes). */
#define G5_MAX_RANKS 16384

#endif
