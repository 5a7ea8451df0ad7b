/* libFuzzer target for the results file reader (`make fuzz`, fuzz.mk). The
 * input is the bytes of an .h5 file, written to a temporary file and read
 * as `g5 plot` reads one: its attributes and its tables, in this process
 * (so that a crash in G5's reader is found where it happens). libhdf5 1.10
 * is itself not robust to damaged files; `g5 plot` reads in a child first
 * (cmd_plot.c), so a crash inside libhdf5 (frames in H5*) is not one that
 * reaches the user, one in G5's code is. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "sim/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *path;
	static const char *const attrs[] = { "experiment", "baseline", "sweep", "columns", "host" };
	static const char *const tables[] = { "results", "summary", "steps", "channels" };

	if (!path)
		path = g_strdup_printf("%s/g5-fuzz-results-%d.h5", g_get_tmp_dir(), (int)getpid());
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		g_error("cannot write %s", path);
	for (size_t i = 0; i < G_N_ELEMENTS(attrs); i++)
		g_free(results_read_attr(path, attrs[i]));
	for (size_t i = 0; i < G_N_ELEMENTS(tables); i++) {
		GError *err = NULL;
		struct rtable *t = rtable_read_h5(path, tables[i], &err);

		for (guint c = 0; t && c < t->cols->len; c++) {
			const struct rcol *col = t->cols->pdata[c];

			for (guint r = 0; r < t->nrows; r++)
				if (col->type == RC_STR)
					(void)rcol_str(col, r);
				else
					(void)rcol_num(col, r);
		}
		rtable_free(t);
		g_clear_error(&err);
	}
	return 0;
}
