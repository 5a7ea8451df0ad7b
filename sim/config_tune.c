/* Tuning profiles (sim/tune.h): the reader, the writer and the lookup. */
#include "sim/config_int.h"
#include "sim/tune.h"
#include "sim/util/files.h"
#include "sim/util/quote.h"
#include "sim/util/spell.h"
#include "sim/util/units.h"

#include <string.h>

static void entry_clear(gpointer p)
{
	g_free(((struct tune_entry *)p)->algo);
}

void tune_profile_free(struct tune_profile *p)
{
	if (!p)
		return;
	g_free(p->platform);
	if (p->entries)
		g_array_unref(p->entries);
	g_free(p);
}

static const char *const entry_keys = "collective, ranks, stride, up_to, algo, nchunks";

static bool read_entry(const struct ctx *c, const struct ynode *m, const char *where,
		       struct tune_entry *e)
{
	const struct ynode *coll = NULL, *algo = NULL;
	int64_t x;
	GError *err = NULL;

	e->stride = 1;
	e->nchunks = 1;
	e->up_to = UINT64_MAX;
	if (!cfg_need_map(c, m, where) || !cfg_map_check_keys(c, m, where))
		return false;
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i], *v = m->kids->pdata[i + 1];
		g_autofree char *full = cfg_join_key(where, k->text);

		if (!cfg_need_scalar(c, v, full))
			return false;
		if (!strcmp(k->text, "collective")) {
			if (!coll_parse(v->text, &e->coll))
				return cfg_fail(c, v, CONFIG_ERROR_VALUE, "'%s': unknown collective '%s'",
						full, quote_text(v->text).s);
			coll = v;
		} else if (!strcmp(k->text, "ranks") || !strcmp(k->text, "stride") ||
			   !strcmp(k->text, "nchunks")) {
			int64_t max = !strcmp(k->text, "nchunks") ? SCHED_MAX_NCHUNKS : SCHED_MAX_RANKS;

			int64_t min = !strcmp(k->text, "stride") ? 0 : !strcmp(k->text, "ranks") ? 2 : 1;

			if (!cfg_parse_int(v->text, min, max, &x, &err))
				goto bad_int;
			if (!strcmp(k->text, "ranks"))
				e->ranks = (int)x;
			else if (!strcmp(k->text, "stride"))
				e->stride = (int)x;
			else
				e->nchunks = (uint32_t)x;
		} else if (!strcmp(k->text, "up_to")) {
			if (!units_parse_size(v->text, &e->up_to, &err)) {
				cfg_fail(c, v, CONFIG_ERROR_VALUE, "'%s': %s", full, err->message);
				g_error_free(err);
				return false;
			}
		} else if (!strcmp(k->text, "algo")) {
			algo = v;
		} else {
			g_autofree char *hint = spell_hint(k->text, entry_keys);

			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)%s",
					quote_text(full).s, entry_keys, hint);
		}
		continue;
bad_int:
		cfg_fail(c, v, CONFIG_ERROR_VALUE, "'%s': %s", full, err->message);
		g_error_free(err);
		return false;
	}
	if (!coll || !algo || !e->ranks)
		return cfg_fail(c, m, CONFIG_ERROR_SCHEMA, "'%s' needs collective, ranks and algo",
				where);
	e->algo = g_strdup(algo->text);
	return true;
}

struct tune_profile *tune_profile_parse(const char *path, const char *text, size_t len,
					GError **error)
{
	struct ctx c = { .path = path, .error = error };
	struct ynode *root = cfg_yaml_read(path, text, len, error);
	struct tune_profile *p;
	const struct ynode *n;
	bool ok = false;

	if (!root)
		return NULL;
	p = g_new0(struct tune_profile, 1);
	p->entries = g_array_new(FALSE, TRUE, sizeof(struct tune_entry));
	g_array_set_clear_func(p->entries, entry_clear);
	if (!cfg_check_schema_version(&c, root) || !cfg_map_check_keys(&c, root, ""))
		goto out;
	for (guint i = 0; i + 1 < root->kids->len; i += 2) {
		const struct ynode *k = root->kids->pdata[i];

		if (strcmp(k->text, "schema_version") && strcmp(k->text, "platform") &&
		    strcmp(k->text, "entries")) {
			g_autofree char *hint = spell_hint(k->text, "schema_version, platform, entries");

			cfg_fail(&c, k, CONFIG_ERROR_SCHEMA,
				 "unknown key '%s' (known: schema_version, platform, entries)%s",
				 quote_text(k->text).s, hint);
			goto out;
		}
	}
	if ((n = cfg_map_get(root, "platform"))) {
		if (!cfg_need_scalar(&c, n, "platform"))
			goto out;
		p->platform = g_strdup(n->text);
	}
	if (!(n = cfg_map_get(root, "entries")) || n->kind != YN_SEQ) {
		cfg_fail(&c, n ? n : root, CONFIG_ERROR_SCHEMA, "'entries' must be a list of entries");
		goto out;
	}
	for (guint i = 0; i < n->kids->len; i++) {
		g_autofree char *where = g_strdup_printf("entries[%u]", i);
		struct tune_entry e = { 0 };

		if (!read_entry(&c, n->kids->pdata[i], where, &e))
			goto out;
		/* ranges in increasing order within their (collective, ranks, stride) */
		for (guint j = p->entries->len; j-- > 0;) {
			const struct tune_entry *q = &g_array_index(p->entries, struct tune_entry, j);

			if (q->coll == e.coll && q->ranks == e.ranks && q->stride == e.stride) {
				if (q->up_to == UINT64_MAX || q->up_to >= e.up_to) {
					g_free(e.algo);
					cfg_fail(&c, n->kids->pdata[i], CONFIG_ERROR_VALUE,
						 "'%s': its range must start above the previous entry's "
						 "of the same collective, ranks and stride (give up_to in "
						 "increasing order, the last without)", where);
					goto out;
				}
				break;
			}
		}
		g_array_append_val(p->entries, e);
	}
	ok = true;
out:
	cfg_ynode_free(root);
	if (!ok) {
		tune_profile_free(p);
		return NULL;
	}
	return p;
}

struct tune_profile *tune_profile_load(const char *path, GError **error)
{
	char *text;
	size_t len;

	if (!cfg_read_file(path, &text, &len, error))
		return NULL;
	struct tune_profile *p = tune_profile_parse(path, text, len, error);

	g_free(text);
	return p;
}

bool tune_profile_write(const struct tune_profile *p, const char *path, GError **error)
{
	GString *s = g_string_new("schema_version: 1\n");

	if (p->platform)
		g_string_append_printf(s, "platform: %s\n", p->platform);
	g_string_append(s, "entries:\n");
	for (guint i = 0; i < p->entries->len; i++) {
		const struct tune_entry *e = &g_array_index(p->entries, struct tune_entry, i);

		g_string_append_printf(s, "  - {collective: %s, ranks: %d, stride: %d, ", coll_name(e->coll),
				       e->ranks, e->stride);
		if (e->up_to != UINT64_MAX)
			g_string_append_printf(s, "up_to: %" G_GUINT64_FORMAT ", ", e->up_to);
		g_string_append_printf(s, "algo: %s, nchunks: %u}\n", e->algo, e->nchunks);
	}
	bool ok = files_write(path, s->str, s->len, error);

	g_string_free(s, TRUE);
	return ok;
}

const struct tune_entry *tune_lookup(const struct tune_profile *p, enum coll c, int ranks,
				     int stride, uint64_t bytes)
{
	for (guint i = 0; p && i < p->entries->len; i++) {
		const struct tune_entry *e = &g_array_index(p->entries, struct tune_entry, i);

		if (e->coll == c && e->ranks == ranks && e->stride == stride && bytes <= e->up_to)
			return e;
	}
	return NULL;
}

int tune_group_stride(const int *members, int n)
{
	if (n < 2)
		return 0;
	int d = members[1] - members[0];

	if (d <= 0)
		return 0;
	for (int i = 2; i < n; i++)
		if (members[i] - members[i - 1] != d)
			return 0;
	return d;
}
