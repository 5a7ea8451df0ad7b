/* Result tables and the atomic file write every writer uses (results.h).
 * The experiment runner is exp_run.c, the writers results_csv.c and
 * results_h5.c. */
#include "sim/results.h"

#include "sim/util/files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK(g5-results-error-quark, results_error)

/* ---- Tables. ---- */

static void rcol_free(gpointer p)
{
	struct rcol *c = p;

	g_free(c->name);
	if (c->s)
		g_ptr_array_unref(c->s);
	if (c->v)
		g_array_unref(c->v);
	g_free(c);
}

struct rtable *rtable_new(const char *name)
{
	struct rtable *t = g_new0(struct rtable, 1);

	t->name = g_strdup(name);
	t->cols = g_ptr_array_new_with_free_func(rcol_free);
	return t;
}

void rtable_free(struct rtable *t)
{
	if (!t)
		return;
	g_free(t->name);
	g_ptr_array_unref(t->cols);
	g_free(t);
}

struct rcol *rtable_add(struct rtable *t, const char *name, enum rcol_type type)
{
	struct rcol *c = g_new0(struct rcol, 1);

	c->name = g_strdup(name);
	c->type = type;
	if (type == RC_STR)
		c->s = g_ptr_array_new_with_free_func(g_free);
	else
		c->v = g_array_new(FALSE, FALSE, type == RC_I64 ? sizeof(int64_t) : sizeof(double));
	g_ptr_array_add(t->cols, c);
	return c;
}

struct rcol *rtable_col(const struct rtable *t, const char *name)
{
	for (guint i = 0; i < t->cols->len; i++) {
		struct rcol *c = t->cols->pdata[i];

		if (!strcmp(c->name, name))
			return c;
	}
	return NULL;
}

double rcol_num(const struct rcol *c, guint row)
{
	switch (c->type) {
	case RC_I64:
		return (double)g_array_index(c->v, int64_t, row);
	case RC_F64:
		return g_array_index(c->v, double, row);
	case RC_STR:
		break;
	}
	g_error("rcol_num: '%s' is a string column", c->name);
}

const char *rcol_str(const struct rcol *c, guint row)
{
	g_assert(c->type == RC_STR);
	return c->s->pdata[row];
}

/* ---- Files. ---- */

char *results_tmp_name(const char *path)
{
	return files_tmp_name(path);
}

bool results_write_atomic(const char *path, const char *text, gsize len, GError **error)
{
	GError *e = NULL;

	if (files_write(path, text, len, &e))
		return true;
	g_set_error_literal(error, RESULTS_ERROR, RESULTS_ERROR_IO, e->message);
	g_error_free(e);
	return false;
}
