/* g5 bench: benchmarks of the simulator itself. Each benchmark parses its own
 * options and prints a human line, or one JSON object with --json. */
#ifndef G5_BENCH_BENCH_H
#define G5_BENCH_BENCH_H

struct bench {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is "g5 bench NAME" */
};

#include <stdint.h>

int bench_engine(int argc, char **argv);
int bench_fabric(int argc, char **argv);
int bench_fidelity(int argc, char **argv);
int bench_fluid(int argc, char **argv);
int bench_scale(int argc, char **argv);

/* The engine's hold model (bench_engine.c): `pending` events held, `events`
 * run; how fast the engine ran them on this machine. */
struct bench_hold {
	uint64_t events;
	double wall_s, events_per_s, sim_us;
};
void bench_engine_hold(uint64_t pending, uint64_t events, uint64_t seed, struct bench_hold *out);

/* Wall-clock seconds from a monotonic clock. */
double bench_now_s(void);

#endif
