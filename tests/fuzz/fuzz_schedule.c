/* libFuzzer target for the schedule file reader (`make fuzz`, fuzz.mk). The
 * input is a schedule file's text. A file the reader takes must write back
 * to text that reads to an equal schedule; when small, it is verified (in
 * place and out of place) as `g5 verify --schedule` and `g5 sim --schedule`
 * do. The reader and the verifier must never crash, leak, hang or allocate
 * without bound, whatever the bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/algos/schedule_file.h"
#include "sim/algos/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	GError *err = NULL;
	GArray *lines = NULL;
	struct sched *s = sched_file_parse((const char *)data, size, "fuzz.g5s", &lines, &err);

	if (!s) {
		g_clear_error(&err);
		return 0;
	}
	char *text = sched_file_format(s);
	struct sched *t = sched_file_parse(text, strlen(text), "again.g5s", NULL, &err);

	if (!t || !sched_equal(s, t)) { /* abort(), so that libFuzzer keeps the input */
		fprintf(stderr, "a schedule the reader took does not read back equal: %s\n",
			err ? err->message : "not equal");
		abort();
	}
	/* the verifier's cost grows with ranks x units x ops: small ones only */
	uint64_t ops = 0;

	for (int r = 0; r < s->nranks; r++)
		ops += s->ranks[r].ops->len;
	if ((uint64_t)s->nranks * (s->nunits + s->scratch_units) <= 65536 && ops <= 4096) {
		if (!verify_sched_file(s, lines, "fuzz.g5s", &err))
			g_clear_error(&err);
	}
	sched_free(t);
	g_free(text);
	g_array_unref(lines);
	sched_free(s);
	return 0;
}
