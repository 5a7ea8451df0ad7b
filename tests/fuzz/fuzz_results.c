/* libFuzzer target for the results file reader (`make fuzz`, fuzz.mk). The
 * input is the bytes of an .h5 file, written to a temporary file and read
 * as `g5 plot` reads one: results_h5_read_all() in a child process run by
 * child_run(), the path of results_h5_check(). libhdf5 1.10 is not robust
 * to damaged files and keeps state (memory) from one file to the next; in
 * a child that state dies with it, so a run lasts as long as it is asked.
 *
 * A finding is a crash or a hang in G5's code; one inside libhdf5 is not
 * (g5 plot turns it into a message). The child tells them apart: at a
 * fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) or when it has used CHILD_CPU_S of
 * CPU time (SIGPROF: a loop; CPU time, since the wall clock depends on what
 * else the machine runs, and a reading takes 0.1 s of it) it walks the
 * stack from the interrupted instruction outwards, and the first frame in
 * G5's code (the instrumented code: the range of the coverage PC table)
 * makes it a finding, exit EXIT_G5 after a symbolized stack, the first in
 * libhdf5 not, exit EXIT_LIBHDF5 after one line on stderr. Frames in the C
 * library, the sanitizer runtime and other libraries are passed over. Any
 * other end of the child but status 0 (EXIT_G5, an ASan or UBSan report,
 * an abort, the limit of child_run) makes the parent abort(), so that
 * libFuzzer keeps the input.
 *
 * Coverage: the child copies its 8-bit counters into a shared map when it
 * has read the file, and the parent adds them to its own, so that libFuzzer
 * sees what the child reached. */
#define _GNU_SOURCE /* dladdr, REG_RIP */
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "sim/results.h"
#include "sim/util/child.h"

#define EXIT_LIBHDF5 71      /* the child: a crash or a hang inside libhdf5 */
#define EXIT_G5 72           /* the child: a crash or a hang in G5's code */
#define CHILD_CPU_S 2        /* the child's CPU time: past it, a hang, classified */
#define CHILD_LIMIT_MS 8000  /* child_run's limit (wall clock), well past that */
#define G5_CODE_SLACK 4096   /* bytes of code after the last instrumented block */

/* The coverage sections of this executable, found in its section headers
 * (the instrumentation owns the linker's __start_ and __stop_ symbols) */
static uint8_t *counters;        /* __sancov_cntrs: one per block */
static size_t ncounters;
static uint8_t *shared_counters; /* MAP_SHARED, ncounters of them */
static uintptr_t g5_lo, g5_hi;   /* G5's code: [g5_lo, g5_hi) */

const char *__asan_default_options(void);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The child's fault handler replaces ASan's. */
const char *__asan_default_options(void)
{
	return "allow_user_segv_handler=1";
}

static int first_object(struct dl_phdr_info *info, size_t size, void *bias)
{
	(void)size;
	*(uintptr_t *)bias = info->dlpi_addr;
	return 1;
}

/* The address and size of section `name` of the running executable. */
static bool exe_section(const char *name, uintptr_t *addr, size_t *size)
{
	g_autofree char *elf = NULL;
	gsize len = 0;
	uintptr_t bias = 0;

	if (!g_file_get_contents("/proc/self/exe", &elf, &len, NULL) || len < sizeof(Elf64_Ehdr))
		return false;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;

	if (eh->e_shoff > len || eh->e_shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(elf + eh->e_shoff);

	dl_iterate_phdr(first_object, &bias);
	for (guint i = 0; i < eh->e_shnum; i++) {
		gsize at = sh[eh->e_shstrndx].sh_offset + sh[i].sh_name;

		if (at < len && !strncmp(elf + at, name, len - at)) {
			*addr = bias + sh[i].sh_addr;
			*size = sh[i].sh_size;
			return true;
		}
	}
	return false;
}

static bool in_libhdf5(uintptr_t pc)
{
	Dl_info info;

	return dladdr((void *)pc, &info) && info.dli_fname && strstr(info.dli_fname, "libhdf5");
}

/* EXIT_G5 or EXIT_LIBHDF5 for the stack `frames` (innermost first). */
static int whose(const uintptr_t *frames, int n)
{
	for (int i = 0; i < n; i++) {
		/* a caller's frame holds its return address: look up the call */
		uintptr_t pc = frames[i] - (i > 0);

		if (pc >= g5_lo && pc < g5_hi)
			return EXIT_G5;
		if (in_libhdf5(pc))
			return EXIT_LIBHDF5;
	}
	return EXIT_G5;
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	void *raw[128];
	uintptr_t frames[128];
	int n = backtrace(raw, G_N_ELEMENTS(raw)), first = 0, verdict;

	(void)si;
	/* the unwinder passes through the signal frame: start at the
	 * interrupted instruction, or look at it alone */
	while (first < n && (uintptr_t)raw[first] != pc)
		first++;
	if (first == n) {
		frames[0] = pc;
		n = 1;
	} else {
		n -= first;
		for (int i = 0; i < n; i++)
			frames[i] = (uintptr_t)raw[first + i];
	}
	verdict = whose(frames, n);
	if (verdict == EXIT_LIBHDF5) {
		fprintf(stderr, "fuzz_results: %s inside libhdf5 (not a finding)\n", strsignal(sig));
		_exit(EXIT_LIBHDF5);
	}
	fprintf(stderr, "fuzz_results: %s in G5's code, at:\n", strsignal(sig));
	__sanitizer_print_stack_trace();
	_exit(EXIT_G5);
}

static void read_in_child(void *path)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGPROF };
	struct itimerval cpu = { .it_value.tv_sec = CHILD_CPU_S };
	stack_t alt = { .ss_size = 1 << 20 };
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK };

	/* a stack overflow faults on the stack: the handler runs on its own */
	alt.ss_sp = mmap(NULL, alt.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (alt.ss_sp == MAP_FAILED || sigaltstack(&alt, NULL) != 0)
		_exit(EXIT_G5);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < G_N_ELEMENTS(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	setitimer(ITIMER_PROF, &cpu, NULL);
	results_h5_read_all(path);
	cpu.it_value.tv_sec = 0;
	setitimer(ITIMER_PROF, &cpu, NULL);
	memcpy(shared_counters, counters, ncounters);
}

static void setup(void)
{
	void *warm[4];

	backtrace(warm, G_N_ELEMENTS(warm)); /* loads the unwinder before any fault */
	uintptr_t pcs = 0, cntrs = 0;
	size_t pcs_size = 0;

	if (!exe_section("__sancov_pcs", &pcs, &pcs_size) ||
	    !exe_section("__sancov_cntrs", &cntrs, &ncounters) || !pcs_size || !ncounters)
		g_error("fuzz_results: no coverage sections (build with -fsanitize=fuzzer)");
	/* entries of the PC table: {PC of a block, flags} */
	const uintptr_t *e = (const uintptr_t *)pcs, *end = e + pcs_size / sizeof(*e);

	g5_lo = UINTPTR_MAX;
	for (; e + 1 < end; e += 2) {
		g5_lo = MIN(g5_lo, e[0]);
		g5_hi = MAX(g5_hi, e[0] + G5_CODE_SLACK);
	}
	counters = (uint8_t *)cntrs;
	shared_counters = mmap(NULL, ncounters, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);
	if (shared_counters == MAP_FAILED)
		g_error("fuzz_results: cannot map %zu bytes of counters", ncounters);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *path;
	struct child_end end;
	GError *err = NULL;

	if (!path) {
		setup();
		path = g_strdup_printf("%s/g5-fuzz-results-%d.h5", g_get_tmp_dir(), (int)getpid());
	}
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		g_error("cannot write %s", path);
	if (!child_run(read_in_child, path, CHILD_LIMIT_MS, &end, &err))
		g_error("fuzz_results: %s", err->message);
	for (size_t i = 0; i < ncounters; i++)
		if (shared_counters[i]) {
			counters[i] = MAX(counters[i], shared_counters[i]);
			shared_counters[i] = 0;
		}
	if (child_ok(&end) || (!end.timed_out && WIFEXITED(end.status) &&
			       WEXITSTATUS(end.status) == EXIT_LIBHDF5))
		return 0;
	if (end.timed_out)
		fprintf(stderr, "fuzz_results: the reading child passed %d ms\n", CHILD_LIMIT_MS);
	else if (WIFSIGNALED(end.status))
		fprintf(stderr, "fuzz_results: the reading child ended by %s\n",
			strsignal(WTERMSIG(end.status)));
	else
		fprintf(stderr, "fuzz_results: the reading child exited with %d\n",
			WEXITSTATUS(end.status));
	abort(); /* a finding: libFuzzer keeps the input */
}
