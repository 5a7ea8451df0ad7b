/* The CSV mirror of the results table (results.h: results_write_csv):
 * fields quoted where needed, wall-clock columns left out and doubles in the
 * shortest %g form that reads back exactly, so that the file is
 * byte-identical across runs. */
#include "sim/results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void csv_field(GString *g, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		g_string_append(g, s);
		return;
	}
	g_string_append_c(g, '"');
	for (; *s; s++) {
		if (*s == '"')
			g_string_append_c(g, '"');
		g_string_append_c(g, *s);
	}
	g_string_append_c(g, '"');
}

/* Shortest text that reads back to the same double ("%.17g" otherwise). */
static void fmt_double(GString *g, double v)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	if (!isfinite(v)) {
		g_string_append(g, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	for (int prec = 6; prec <= 17; prec++) {
		char fmt[8];

		g_snprintf(fmt, sizeof(fmt), "%%.%dg", prec);
		g_ascii_formatd(buf, sizeof(buf), fmt, v);
		if (g_ascii_strtod(buf, NULL) == v)
			break;
	}
	g_string_append(g, buf);
}

bool results_write_csv(const struct exp_results *r, const char *path, GError **error)
{
	return rtable_write_csv(r->results, path, error);
}

bool rtable_write_csv(const struct rtable *t, const char *path, GError **error)
{
	GString *g = g_string_new(NULL);
	bool first = true, ok;

	for (guint c = 0; c < t->cols->len; c++) {
		const struct rcol *col = t->cols->pdata[c];

		if (col->wall)
			continue;
		if (!first)
			g_string_append_c(g, ',');
		csv_field(g, col->name);
		first = false;
	}
	g_string_append_c(g, '\n');
	for (guint i = 0; i < t->nrows; i++) {
		first = true;
		for (guint c = 0; c < t->cols->len; c++) {
			const struct rcol *col = t->cols->pdata[c];

			if (col->wall)
				continue;
			if (!first)
				g_string_append_c(g, ',');
			first = false;
			switch (col->type) {
			case RC_STR:
				csv_field(g, rcol_str(col, i));
				break;
			case RC_I64:
				g_string_append_printf(g, "%" G_GINT64_FORMAT, g_array_index(col->v, int64_t, i));
				break;
			case RC_F64:
				fmt_double(g, g_array_index(col->v, double, i));
				break;
			}
		}
		g_string_append_c(g, '\n');
	}
	ok = results_write_atomic(path, g->str, g->len, error);
	g_string_free(g, TRUE);
	return ok;
}
