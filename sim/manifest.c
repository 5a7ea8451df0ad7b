/* sim/manifest — see manifest.h. A manifest is text: a comment line, then
 * one path per line. Reading an old one trusts none of it: a line that does
 * not name a file of the experiment (NAME.* in DIR or plots/NAME-*) is
 * passed over, so a damaged manifest cannot reach other files. */
#include "sim/manifest.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot.h"
#include "sim/results.h"
#include "sim/util/files.h"

#define MANIFEST_MAX_BYTES (16u << 20)

/* Whether `rest` is ".tmp.PID" (PID: decimal digits). */
static bool is_tmp_suffix(const char *rest)
{
	if (!g_str_has_prefix(rest, ".tmp.") || !rest[5])
		return false;
	for (const char *p = rest + 5; *p; p++)
		if (!g_ascii_isdigit(*p))
			return false;
	return true;
}

/* Whether file `fn` of DIR is a temporary of experiment `name`:
 * .NAME.EXT.tmp.PID, EXT one of the results files' (none ends another). */
static bool is_own_tmp(const char *fn, const char *name)
{
	static const char *const ext[] = { ".h5", ".csv", ".manifest" };
	size_t n = strlen(name);

	if (fn[0] != '.' || strncmp(fn + 1, name, n))
		return false;
	for (guint i = 0; i < G_N_ELEMENTS(ext); i++)
		if (g_str_has_prefix(fn + 1 + n, ext[i]) && is_tmp_suffix(fn + 1 + n + strlen(ext[i])))
			return true;
	return false;
}

void manifest_remove_tmps(const char *dir, const char *name)
{
	g_autoptr(GDir) gd = g_dir_open(dir, 0, NULL);
	const char *fn;

	while (gd && (fn = g_dir_read_name(gd)))
		if (is_own_tmp(fn, name)) {
			g_autofree char *path = g_build_filename(dir, fn, NULL);

			unlink(path);
		}
	plot_remove_tmps(dir, name);
}

/* Whether a manifest line names a file of experiment `name`: NAME.* in
 * DIR or plots/NAME-*. */
static bool own_entry(const char *rel, const char *name)
{
	const char *fn = g_str_has_prefix(rel, "plots/") ? rel + 6 : rel;
	size_t n = strlen(name);

	return !strchr(fn, '/') && !strncmp(fn, name, n) &&
	       (fn[n] == (fn == rel ? '.' : '-'));
}

bool manifest_update(const char *dir, const char *name, GPtrArray *written, bool plots_only,
		     GError **error)
{
	g_autofree char *path = g_strdup_printf("%s/%s.manifest", dir, name);
	g_autoptr(GHashTable) now = g_hash_table_new(g_str_hash, g_str_equal);
	g_auto(GStrv) lines = NULL;
	GString *m = g_string_new(NULL);
	size_t dl = strlen(dir);
	char *old = NULL;
	gsize len;
	bool ok;

	while (dl > 1 && dir[dl - 1] == '/') /* "DIR/" is DIR */
		dl--;
	g_string_append_printf(m, "# g5: the files of experiment %s, relative to this directory\n",
			       name);
	if (files_read(path, MANIFEST_MAX_BYTES, true, &old, &len, NULL)) {
		lines = g_strsplit(old, "\n", -1);
		g_free(old);
	}
	/* g5 plot: the old list's other files first, as g5 run wrote them */
	for (guint i = 0; plots_only && lines && lines[i]; i++) {
		const char *rel = lines[i];
		g_autofree char *p = g_build_filename(dir, rel, NULL);

		if (*rel && *rel != '#' && !g_str_has_prefix(rel, "plots/") && own_entry(rel, name) &&
		    !g_hash_table_contains(now, rel) && g_file_test(p, G_FILE_TEST_IS_REGULAR)) {
			g_hash_table_add(now, (gpointer)rel);
			g_string_append_printf(m, "%s\n", rel);
		}
	}
	for (guint i = 0; i < written->len; i++) {
		const char *w = written->pdata[i];
		const char *rel = !strncmp(w, dir, dl) && w[dl] == '/' ? w + dl + 1 : w;

		g_hash_table_add(now, (gpointer)rel);
		g_string_append_printf(m, "%s\n", rel);
	}
	for (guint i = 0; lines && lines[i]; i++) {
		const char *rel = lines[i];

		if (!*rel || *rel == '#' || g_hash_table_contains(now, rel) || !own_entry(rel, name) ||
		    (plots_only && !g_str_has_prefix(rel, "plots/")))
			continue;
		g_autofree char *stale = g_build_filename(dir, rel, NULL);

		unlink(stale);
	}
	ok = results_write_atomic(path, m->str, m->len, error);
	g_string_free(m, TRUE);
	return ok;
}
