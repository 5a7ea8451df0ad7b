/* g5 bench: benchmarks of the simulator itself. Each benchmark parses its own
 * options and prints a human line, or one JSON object with --json. */
#ifndef G5_BENCH_BENCH_H
#define G5_BENCH_BENCH_H

struct bench {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is "g5 bench NAME" */
};

int bench_engine(int argc, char **argv);
int bench_fabric(int argc, char **argv);
int bench_fidelity(int argc, char **argv);

/* Wall-clock seconds from a monotonic clock. */
double bench_now_s(void);

#endif
