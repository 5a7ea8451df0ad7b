/* The HDF5 results file (results.h, docs/results.md): written with plain
 * 1-D datasets (fixed-length strings, int64, float64), object timestamps
 * off, so that simulated columns are byte-identical across runs; read back
 * table by table for `g5 plot`. Every HDF5 call is checked with H5_CHECK and
 * reported by name. */
#include "sim/results.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cli.h"
#include "sim/util/child.h"

/* HDF5: every call that can fail goes through H5_CHECK, which records the
 * call's text and jumps to the function's `fail` label. */
#define H5_CHECK(call)                                                                  \
	do {                                                                            \
		if ((call) < 0) {                                                       \
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: HDF5 call failed: %s", \
				    path, #call);                                        \
			goto fail;                                                      \
		}                                                                       \
	} while (0)

static bool h5_attr_str(hid_t obj, const char *name, const char *value, const char *path,
			GError **error)
{
	hid_t type = -1, space = -1, attr = -1;
	bool ok = false;

	/* variable-length UTF-8: h5py reads it as a str */
	H5_CHECK(type = H5Tcopy(H5T_C_S1));
	H5_CHECK(H5Tset_size(type, H5T_VARIABLE));
	H5_CHECK(H5Tset_cset(type, H5T_CSET_UTF8));
	H5_CHECK(space = H5Screate(H5S_SCALAR));
	H5_CHECK(attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
	H5_CHECK(H5Awrite(attr, type, &value));
	ok = true;
fail:
	if (attr >= 0)
		H5Aclose(attr);
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	return ok;
}

static bool h5_write_table(hid_t file, const struct rtable *t, const char *path, GError **error)
{
	hid_t gcpl = -1, dcpl = -1, grp = -1, space = -1, type = -1, ds = -1;
	hsize_t dims[1] = { t->nrows };
	GString *names = g_string_new(NULL);
	bool ok = false;
	char *buf = NULL;

	H5_CHECK(gcpl = H5Pcreate(H5P_GROUP_CREATE));
	H5_CHECK(H5Pset_obj_track_times(gcpl, 0));
	H5_CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
	H5_CHECK(H5Pset_obj_track_times(dcpl, 0));
	H5_CHECK(grp = H5Gcreate2(file, t->name, H5P_DEFAULT, gcpl, H5P_DEFAULT));
	H5_CHECK(space = H5Screate_simple(1, dims, NULL));
	for (guint c = 0; c < t->cols->len; c++) {
		const struct rcol *col = t->cols->pdata[c];
		const void *data;

		g_string_append_printf(names, "%s%s", c ? "," : "", col->name);
		switch (col->type) {
		case RC_STR: {
			size_t w = 1;

			for (guint i = 0; i < t->nrows; i++)
				w = MAX(w, strlen(rcol_str(col, i)));
			H5_CHECK(type = H5Tcopy(H5T_C_S1));
			H5_CHECK(H5Tset_size(type, w));
			H5_CHECK(H5Tset_strpad(type, H5T_STR_NULLPAD));
			H5_CHECK(H5Tset_cset(type, H5T_CSET_UTF8));
			buf = g_malloc0(w * MAX(t->nrows, 1u));
			for (guint i = 0; i < t->nrows; i++) {
				const char *s = rcol_str(col, i);

				memcpy(buf + (size_t)i * w, s, strlen(s));
			}
			data = buf;
			break;
		}
		case RC_I64:
			H5_CHECK(type = H5Tcopy(H5T_STD_I64LE));
			data = col->v->data;
			break;
		case RC_F64:
		default:
			H5_CHECK(type = H5Tcopy(H5T_IEEE_F64LE));
			data = col->v->data;
			break;
		}
		H5_CHECK(ds = H5Dcreate2(grp, col->name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
		if (t->nrows)
			H5_CHECK(H5Dwrite(ds, col->type == RC_STR ? type
					  : col->type == RC_I64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
					  H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
		H5Dclose(ds);
		ds = -1;
		H5Tclose(type);
		type = -1;
		g_free(buf);
		buf = NULL;
	}
	if (!h5_attr_str(grp, "columns", names->str, path, error))
		goto fail;
	ok = true;
fail:
	g_free(buf);
	g_string_free(names, TRUE);
	if (ds >= 0)
		H5Dclose(ds);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	if (grp >= 0)
		H5Gclose(grp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	return ok;
}

static char *baselines_text(const struct experiment *e)
{
	GString *g = g_string_new(NULL);

	for (guint i = 0; i < e->colls->len; i++) {
		enum coll c = g_array_index(e->colls, enum coll, i);

		g_string_append_printf(g, "%s%s:%s", i ? "," : "", coll_name(c), experiment_baseline(e, c));
	}
	return g_string_free(g, FALSE);
}

bool results_write_tables_h5(const char *path, const char *const (*attrs)[2], size_t nattrs,
			     const struct rtable *const *tabs, size_t ntabs, GError **error)
{
	g_autofree char *tmp = results_tmp_name(path);
	hid_t fcpl = -1, file = -1;
	bool ok = false;
	const char *version = cli_version();
	g_autofree char *ver = g_strdup(version);
	char *paren = strchr(ver, ' ');
	const char *commit = "unknown";

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* renaming over a device or a FIFO would replace it */
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
			    "%s: not a regular file (an HDF5 file cannot be written through)", path);
		goto fail;
	}
	if (paren) {
		*paren = '\0';
		commit = paren + 1;
		if (*commit == '(')
			commit++;
		char *close = strrchr(paren + 1, ')');

		if (close)
			*close = '\0';
	}
	/* HDF5 says only that H5Fcreate failed: the system's reason first */
	int probe = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (probe < 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot write: %s", path,
			    g_strerror(errno));
		goto fail;
	}
	close(probe);
	H5_CHECK(fcpl = H5Pcreate(H5P_FILE_CREATE));
	H5_CHECK(file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT));
	if (!h5_attr_str(file, "g5_version", ver, path, error) ||
	    !h5_attr_str(file, "g5_commit", commit, path, error))
		goto fail;
	for (size_t i = 0; i < nattrs; i++)
		if (!h5_attr_str(file, attrs[i][0], attrs[i][1], path, error))
			goto fail;
	for (size_t i = 0; i < ntabs; i++)
		if (tabs[i] && !h5_write_table(file, tabs[i], path, error))
			goto fail;
	H5_CHECK(H5Fclose(file));
	file = -1;
	if (rename(tmp, path) != 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot rename into place: %s",
			    path, g_strerror(errno));
		goto fail;
	}
	ok = true;
fail:
	if (file >= 0)
		H5Fclose(file);
	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (!ok)
		unlink(tmp);
	return ok;
}

bool results_write_h5(const struct exp_results *r, const char *path, GError **error)
{
	const struct experiment *e = r->e;
	g_autofree char *base = baselines_text(e);
	GString *seeds = g_string_new(NULL), *sweeps = g_string_new(NULL);

	for (guint i = 0; i < e->seeds->len; i++)
		g_string_append_printf(seeds, "%s%" G_GUINT64_FORMAT, i ? "," : "",
				       g_array_index(e->seeds, uint64_t, i));
	for (guint i = 0; i < e->sweeps->len; i++)
		g_string_append_printf(sweeps, "%s%s", i ? "," : "",
				       ((struct config_sweep *)e->sweeps->pdata[i])->key);
	const char *const attrs[][2] = {
		{ "experiment", e->name },
		{ "experiment_path", e->path },
		{ "experiment_yaml", e->text },
		{ "platform", e->plat.name ? e->plat.name : "" },
		{ "platform_path", e->platform_path },
		{ "platform_yaml", e->platform_text },
		{ "seeds", seeds->str },
		{ "sweep", sweeps->str },
		{ "baseline", base },
		{ "host", r->host },
		{ "date", r->date },
	};
	const struct rtable *const tabs[] = { r->results, r->steps, r->channels, r->summary };
	bool ok = results_write_tables_h5(path, attrs, G_N_ELEMENTS(attrs), tabs,
					  G_N_ELEMENTS(tabs), error);

	g_string_free(seeds, TRUE);
	g_string_free(sweeps, TRUE);
	return ok;
}

static char *h5_read_attr_str(hid_t obj, const char *name)
{
	hid_t attr = -1, type = -1, mem = -1;
	char *out = NULL;

	if (H5Aexists(obj, name) <= 0)
		return NULL;
	if ((attr = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
		return NULL;
	type = H5Aget_type(attr);
	/* one string, of a sane size: a damaged file may say anything */
	hid_t space = H5Aget_space(attr);
	hssize_t npoints = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;

	if (space >= 0)
		H5Sclose(space);
	if (npoints != 1) {
		if (type >= 0)
			H5Tclose(type);
		H5Aclose(attr);
		return NULL;
	}
	if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
		char *v = NULL;

		mem = H5Tcopy(type);
		if (H5Aread(attr, mem, &v) >= 0 && v) {
			out = g_strdup(v);
			H5free_memory(v);
		}
	} else if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tget_size(type) > 0 &&
		   H5Tget_size(type) <= RESULTS_MAX_STRING) {
		size_t n = H5Tget_size(type);

		mem = H5Tcopy(type);
		out = g_malloc0(n + 1);
		if (H5Aread(attr, mem, out) < 0)
			g_clear_pointer(&out, g_free);
	}
	if (mem >= 0)
		H5Tclose(mem);
	if (type >= 0)
		H5Tclose(type);
	H5Aclose(attr);
	return out;
}

char *results_read_attr(const char *path, const char *name)
{
	hid_t file;
	char *v;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR) || H5Fis_hdf5(path) <= 0)
		return NULL;
	if ((file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return NULL;
	v = h5_read_attr_str(file, name);
	H5Fclose(file);
	return v;
}

struct rtable *rtable_read_h5(const char *path, const char *table, GError **error)
{
	hid_t file = -1, grp = -1, ds = -1, type = -1, space = -1, mem = -1;
	struct rtable *t = NULL;
	g_auto(GStrv) cols = NULL;
	char *buf = NULL;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (access(path, R_OK) != 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot read: %s", path,
			    g_strerror(errno));
		return NULL;
	}
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR) || H5Fis_hdf5(path) <= 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT, "%s: not an HDF5 file", path);
		return NULL;
	}
	H5_CHECK(file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT));
	if (H5Lexists(file, table, H5P_DEFAULT) <= 0) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT, "%s: no '%s' table", path, table);
		goto fail;
	}
	H5_CHECK(grp = H5Gopen2(file, table, H5P_DEFAULT));
	{
		g_autofree char *names = h5_read_attr_str(grp, "columns");

		if (!names) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: table '%s' has no 'columns' attribute", path, table);
			goto fail;
		}
		cols = g_strsplit(names, ",", -1);
		if (g_strv_length(cols) > RESULTS_MAX_COLUMNS) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: table '%s' names %u columns, more than %d", path, table,
				    g_strv_length(cols), RESULTS_MAX_COLUMNS);
			goto fail;
		}
	}
	t = rtable_new(table);
	for (int c = 0; cols[c]; c++) {
		hsize_t dims[1] = { 0 };

		H5_CHECK(ds = H5Dopen2(grp, cols[c], H5P_DEFAULT));
		H5_CHECK(type = H5Dget_type(ds));
		H5_CHECK(space = H5Dget_space(ds));
		if (H5Sget_simple_extent_ndims(space) != 1) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' is not a 1-D column", path, table, cols[c]);
			goto fail;
		}
		H5Sget_simple_extent_dims(space, dims, NULL);
		if (dims[0] > RESULTS_MAX_ROWS) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' has %llu rows, more than %d", path, table, cols[c],
				    (unsigned long long)dims[0], RESULTS_MAX_ROWS);
			goto fail;
		}
		if (c == 0)
			t->nrows = (guint)dims[0];
		if (dims[0] != t->nrows) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' has %llu rows, not %u", path, table, cols[c],
				    (unsigned long long)dims[0], t->nrows);
			goto fail;
		}
		H5T_class_t cls = H5Tget_class(type);

		if (cls == H5T_STRING && H5Tis_variable_str(type) == 0) {
			size_t w = H5Tget_size(type);

			if (w == 0 || w > RESULTS_MAX_STRING ||
			    (uint64_t)w * t->nrows > (uint64_t)RESULTS_MAX_STRING * 1024) {
				g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
					    "%s: '%s/%s' holds strings of %zu bytes, more than this reader takes",
					    path, table, cols[c], w);
				goto fail;
			}
			struct rcol *col = rtable_add(t, cols[c], RC_STR);

			buf = g_malloc0(w * MAX(t->nrows, 1u) + 1);
			H5_CHECK(mem = H5Tcopy(type));
			if (t->nrows)
				H5_CHECK(H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
			for (guint i = 0; i < t->nrows; i++)
				g_ptr_array_add(col->s, g_strndup(buf + (size_t)i * w, w));
			g_clear_pointer(&buf, g_free);
			H5Tclose(mem);
			mem = -1;
		} else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
			bool is_int = cls == H5T_INTEGER;
			struct rcol *col = rtable_add(t, cols[c], is_int ? RC_I64 : RC_F64);

			g_array_set_size(col->v, t->nrows);
			if (t->nrows)
				H5_CHECK(H5Dread(ds, is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, H5S_ALL,
						 H5S_ALL, H5P_DEFAULT, col->v->data));
		} else {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "%s: '%s/%s' is neither a number nor a fixed-length string column",
				    path, table, cols[c]);
			goto fail;
		}
		H5Sclose(space);
		space = -1;
		H5Tclose(type);
		type = -1;
		H5Dclose(ds);
		ds = -1;
	}
	H5Gclose(grp);
	H5Fclose(file);
	return t;
fail:
	g_free(buf);
	if (mem >= 0)
		H5Tclose(mem);
	if (space >= 0)
		H5Sclose(space);
	if (type >= 0)
		H5Tclose(type);
	if (ds >= 0)
		H5Dclose(ds);
	if (grp >= 0)
		H5Gclose(grp);
	if (file >= 0)
		H5Fclose(file);
	rtable_free(t);
	return NULL;
}

void results_h5_read_all(const char *path)
{
	static const char *const attrs[] = { "experiment", "baseline", "sweep" };

	for (size_t i = 0; i < G_N_ELEMENTS(attrs); i++)
		g_free(results_read_attr(path, attrs[i]));
	rtable_free(rtable_read_h5(path, "summary", NULL));
	rtable_free(rtable_read_h5(path, "results", NULL));
}

static void read_all_in_child(void *path)
{
	results_h5_read_all(path);
}

bool results_h5_check(const char *path, guint limit_ms, GError **error)
{
	struct child_end end;
	GError *e = NULL;

	if (!child_run(read_all_in_child, (void *)path, limit_ms, &end, &e)) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "%s: cannot read it in a child: %s",
			    path, e->message);
		g_error_free(e);
		return false;
	}
	if (child_ok(&end))
		return true;
	if (end.timed_out)
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
			    "%s: reading it did not finish within %g s: the file is damaged", path,
			    limit_ms / 1000.0);
	else
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
			    "%s: reading it crashed the HDF5 library (%s): the file is damaged", path,
			    WIFSIGNALED(end.status) ? g_strsignal(WTERMSIG(end.status)) : "it failed");
	return false;
}
