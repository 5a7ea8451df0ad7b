/* Experiment files (config.h, docs/config.md): what to run, on which
 * platform (a platform file and its overrides), as lists and sweeps whose
 * cartesian product is the experiment's points (config_points.c). Also the
 * one size grammar and the one dtype parser that flags use too. */
#include "sim/config_int.h"
#include "sim/tune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/algos/algo.h"
#include "sim/util/spell.h"
#include "sim/util/units.h"
#include "sim/util/weights.h"
#include "sim/util/quote.h"

/* ---- Experiment files. ---- */

const char *dtype_name(enum dtype d)
{
	switch (d) {
	case DTYPE_FP32:
		return "fp32";
	case DTYPE_FP16:
		return "fp16";
	case DTYPE_BF16:
		return "bf16";
	}
	g_error("dtype_name: bad dtype %d", (int)d);
}

uint32_t dtype_elem_bytes(enum dtype d)
{
	return ir_dtype_size(d);
}

bool dtype_parse(const char *name, enum dtype *out)
{
	enum ir_dtype d;

	if (!ir_dtype_parse(name, &d))
		return false;
	*out = (enum dtype)d;
	return true;
}

static void sweep_free(gpointer p)
{
	struct config_sweep *s = p;

	g_free(s->key);
	g_ptr_array_unref(s->values);
	g_free(s);
}

void experiment_free(struct experiment *e)
{
	if (!e)
		return;
	g_free(e->path);
	g_free(e->name);
	g_free(e->text);
	g_free(e->platform_path);
	g_free(e->platform_text);
	platform_release(&e->plat);
	g_array_unref(e->colls);
	g_ptr_array_unref(e->algos);
	g_free(e->baseline);
	g_array_unref(e->sizes);
	g_array_unref(e->ranks);
	g_array_unref(e->dtypes);
	g_array_unref(e->nchunks);
	g_array_unref(e->weights);
	g_array_unref(e->seeds);
	g_free(e->out_dir);
	g_free(e->counts_label);
	g_ptr_array_unref(e->sweeps);
	g_free(e->tune_path);
	tune_profile_free(e->tune);
	g_free(e);
}

static struct experiment *experiment_new(void)
{
	struct experiment *e = g_new0(struct experiment, 1);

	platform_init_default(&e->plat);
	e->colls = g_array_new(FALSE, FALSE, sizeof(enum coll));
	e->algos = g_ptr_array_new_with_free_func(cfg_ptr_array_unref);
	e->sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	e->ranks = g_array_new(FALSE, FALSE, sizeof(int));
	e->dtypes = g_array_new(FALSE, FALSE, sizeof(enum dtype));
	e->nchunks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	e->weights = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	e->seeds = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	e->sweeps = g_ptr_array_new_with_free_func(sweep_free);
	e->root = 0;
	e->peer = 1;
	e->formats = OUT_H5 | OUT_CSV | OUT_PNG | OUT_SVG;
	return e;
}

/* The scalar items of a list value (a single scalar is a list of one). */
static bool list_items(const struct ctx *c, const struct ynode *n, const char *key, GPtrArray *out)
{
	g_ptr_array_set_size(out, 0);
	if (n->kind == YN_SCALAR) {
		g_ptr_array_add(out, (gpointer)n);
		return true;
	}
	if (n->kind != YN_SEQ)
		return cfg_fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a list, got %s", key,
			    cfg_ynode_kind_name(n));
	if (!n->kids->len)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'%s' must not be empty", key);
	if (n->kids->len > CONFIG_MAX_LIST)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'%s' has more than %d entries", key,
			    CONFIG_MAX_LIST);
	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *it = n->kids->pdata[i];

		if (it->kind != YN_SCALAR)
			return cfg_fail(c, it, CONFIG_ERROR_SCHEMA, "'%s' entries must be single values, got %s",
				    key, cfg_ynode_kind_name(it));
		g_ptr_array_add(out, (gpointer)it);
	}
	return true;
}

static bool size_range_error(const char *name, const char *text, const char *why, GError **error)
{
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
		    "%s range '%s' %s (write A..B, A..B xK or A..B +S, e.g. 1KiB..512MiB x4)", name,
		    quote_text(text).s, why);
	return false;
}

bool config_size_list(const char *name, const char *text, GArray *out, GError **error)
{
	g_auto(GStrv) items = g_strsplit(text, ",", -1);

	for (int i = 0; items[i]; i++)
		if (!config_size_range(name, items[i], out, error))
			return false;
	return true;
}

bool config_size_range(const char *name, const char *text, GArray *out, GError **error)
{
	const char *dots = strstr(text, "..");
	GError *e = NULL;
	uint64_t v;

	if (!dots) {
		if (!units_parse_size(text, &v, &e)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "%s %s", name, e->message);
			g_error_free(e);
			return false;
		}
		if (v < 1) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s must be at least 1 byte, got '%s'", name, quote_text(text).s);
			return false;
		}
		if (out->len >= CONFIG_MAX_LIST)
			return size_range_error(name, text, "makes too many sizes", error);
		g_array_append_val(out, v);
		return true;
	}
	g_autofree char *lo_text = g_strstrip(g_strndup(text, (gsize)(dots - text)));
	g_autofree char *rest = g_strdup(dots + 2);
	char *op = strpbrk(rest, "x+");
	char kind = op ? *op : 'x'; /* no step: doubling */

	if (op)
		*op = '\0';
	g_strstrip(rest);
	g_autofree char *step_text = g_strstrip(g_strdup(op ? op + 1 : "2"));
	uint64_t lo, hi, step;

	if (!units_parse_size(lo_text, &lo, &e) || !units_parse_size(rest, &hi, &e))
		goto wrap;
	if (lo < 1)
		return size_range_error(name, text, "must start at 1 byte or more", error);
	if (lo > hi)
		return size_range_error(name, text, "ends below its start", error);
	if (kind == 'x') {
		int64_t f;

		if (!cfg_parse_int(step_text, 2, 1024, &f, NULL))
			return size_range_error(name, text, "needs an integer factor 2..1024", error);
		step = (uint64_t)f;
	} else {
		if (!units_parse_size(step_text, &step, NULL) || step < 1)
			return size_range_error(name, text, "needs a step of 1 byte or more", error);
	}
	for (v = lo; v <= hi;) {
		if (out->len >= CONFIG_MAX_LIST)
			return size_range_error(name, text, "makes too many sizes", error);
		g_array_append_val(out, v);
		if (kind == 'x') {
			if (v > UINT64_MAX / step)
				break;
			v *= step;
		} else {
			if (v > UINT64_MAX - step)
				break;
			v += step;
		}
	}
	return true;
wrap:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "%s %s", name, e->message);
	g_error_free(e);
	return false;
}

static const char *const exp_keys[] = {
	"schema_version", "name", "platform", "overrides", "collectives", "algorithms",
	"baseline", "sizes", "ranks", "dtypes", "nchunks", "paxi", "root", "peer", "node_ranks", "tune",
	"counts", "counts_seed", "seeds", "outputs", "sweep", NULL,
};

static char *coll_known(void)
{
	GString *g = g_string_new(NULL);

	for (int i = 0; i < 8; i++)
		g_string_append_printf(g, "%s%s", i ? ", " : "", coll_name((enum coll)(1 << i)));
	return g_string_free(g, FALSE);
}

/* Parses node k's text as a collective; on an unknown name fails with the
 * known names and a spelling hint, `key` naming where it stood. */
static bool read_coll(const struct ctx *c, const struct ynode *k, const char *key, enum coll *out)
{
	if (coll_parse(k->text, out))
		return true;
	g_autofree char *known = coll_known();
	g_autofree char *hint = spell_hint(k->text, known);

	return cfg_fail(c, k, CONFIG_ERROR_VALUE, "'%s' unknown collective '%s' (known: %s)%s", key,
			quote_text(k->text).s, known, hint);
}

static bool read_int_list(const struct ctx *c, const struct ynode *n, const char *key,
			  int64_t min, int64_t max, GArray *out, size_t elem)
{
	g_autoptr(GPtrArray) items = g_ptr_array_new();

	if (!list_items(c, n, key, items))
		return false;
	for (guint i = 0; i < items->len; i++) {
		const struct ynode *it = items->pdata[i];
		int64_t v;
		GError *e = NULL;

		if (!cfg_parse_int(it->text, min, max, &v, &e)) {
			cfg_fail(c, it, CONFIG_ERROR_VALUE, "'%s' %s", key, e->message);
			g_error_free(e);
			return false;
		}
		if (elem == sizeof(int)) {
			int w = (int)v;

			g_array_append_val(out, w);
		} else {
			uint32_t w = (uint32_t)v;

			g_array_append_val(out, w);
		}
	}
	return true;
}

static bool read_algorithms(const struct ctx *c, struct experiment *e, const struct ynode *n,
			    const struct ynode *colls_node)
{
	g_autoptr(GPtrArray) items = g_ptr_array_new();

	if (n->kind == YN_MAP) {
		if (!cfg_map_check_keys(c, n, "algorithms"))
			return false;
		if (!colls_node) {
			for (guint i = 0; i + 1 < n->kids->len; i += 2) {
				const struct ynode *k = n->kids->pdata[i];
				enum coll cl;

				if (!read_coll(c, k, "algorithms", &cl))
					return false;
				g_array_append_val(e->colls, cl);
			}
		}
		for (guint i = 0; i + 1 < n->kids->len; i += 2) {
			const struct ynode *k = n->kids->pdata[i];
			enum coll cl;
			bool listed = false;

			if (!read_coll(c, k, "algorithms", &cl))
				return false;
			for (guint j = 0; j < e->colls->len; j++)
				listed |= g_array_index(e->colls, enum coll, j) == cl;
			if (!listed)
				return cfg_fail(c, k, CONFIG_ERROR_VALUE,
					    "'algorithms.%s' names a collective not in 'collectives'",
					    k->text);
		}
	} else if (!colls_node) {
		return cfg_fail(c, n, CONFIG_ERROR_SCHEMA,
			    "missing key 'collectives' (or write 'algorithms' as a mapping per collective)");
	}
	for (guint ci = 0; ci < e->colls->len; ci++) {
		enum coll cl = g_array_index(e->colls, enum coll, ci);
		const struct ynode *list = n;
		g_autofree char *key = NULL;

		if (n->kind == YN_MAP) {
			list = cfg_map_get(n, coll_name(cl));
			if (!list)
				return cfg_fail(c, n, CONFIG_ERROR_SCHEMA, "missing key 'algorithms.%s'",
					    coll_name(cl));
			key = g_strdup_printf("algorithms.%s", coll_name(cl));
		} else {
			key = g_strdup("algorithms");
		}
		if (!list_items(c, list, key, items))
			return false;
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);

		g_ptr_array_add(e->algos, names);
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			GError *err = NULL;

			/* auto: the tuning profile's choice per point, else the default */
			if (strcmp(it->text, "auto") && !algo_find(cl, it->text, &err)) {
				cfg_fail(c, it, CONFIG_ERROR_VALUE, "'%s' %s", key, err->message);
				g_error_free(err);
				return false;
			}
			for (guint j = 0; j < names->len; j++)
				if (!strcmp(names->pdata[j], it->text))
					return cfg_fail(c, it, CONFIG_ERROR_VALUE,
						    "'%s' lists '%s' twice", key, quote_text(it->text).s);
			g_ptr_array_add(names, g_strdup(it->text));
		}
	}
	return true;
}

/* counts: file:PATH — whole numbers (one per rank, whitespace-separated;
 * '#' starts a comment to the end of its line), PATH relative to the
 * experiment file. Errors name the file and line. */
static bool read_counts_file(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	g_autofree char *dir = g_path_get_dirname(e->path);
	const char *rel = n->text + 5;
	g_autofree char *path = g_path_is_absolute(rel) ? g_strdup(rel)
							: g_build_filename(dir, rel, NULL);
	g_autofree char *text = NULL;
	size_t len = 0;
	GError *err = NULL;
	bool any = false;

	if (!*rel)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'counts' file: needs a path, such as file:counts/x.txt");
	if (!cfg_read_file(path, &text, &len, &err)) {
		cfg_fail(c, n, CONFIG_ERROR_IO, "'counts' %s", err->message);
		g_error_free(err);
		return false;
	}
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	for (guint l = 0; lines[l]; l++) {
		char *hash = strchr(lines[l], '#');

		if (hash)
			*hash = 0;
		g_auto(GStrv) words = g_strsplit_set(lines[l], " \t\r", -1);

		for (guint w = 0; words[w]; w++) {
			guint64 v;

			if (!*words[w])
				continue;
			if (!g_ascii_string_to_unsigned(words[w], 10, 0, 1000000000000ull, &v, NULL))
				return cfg_fail(c, n, CONFIG_ERROR_VALUE,
					    "'counts' %s:%u: '%s' is not a whole number in 0..1000000000000",
					    path, l + 1, quote_text(words[w]).s);
			any |= v > 0;
			g_array_append_val(e->weights, v);
		}
	}
	if (!any)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'counts' %s needs at least one count above 0",
			    path);
	e->counts = COUNTS_LIST;
	g_free(e->counts_label);
	e->counts_label = g_path_get_basename(rel);
	return true;
}

static bool read_counts(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	g_free(e->counts_label);
	e->counts_label = g_strdup(n->kind == YN_SCALAR ? n->text : "list");
	if (n->kind == YN_SCALAR) {
		if (!strcmp(n->text, "equal")) {
			e->counts = COUNTS_EQUAL;
			return true;
		}
		if (!strncmp(n->text, "file:", 5))
			return read_counts_file(c, e, n);
		if (!strncmp(n->text, "zipf:", 5)) {
			double s;

			if (!cfg_parse_double(n->text + 5, &s) || s <= 0 || s > 10)
				return cfg_fail(c, n, CONFIG_ERROR_VALUE,
					    "'counts' zipf exponent must be a number in (0, 10], got '%s'",
					    quote_text(n->text).s);
			e->counts = COUNTS_DIST;
			e->counts_dist = (struct weights_dist){ .family = WEIGHTS_ZIPF, .param = s };
			return true;
		}
		if (!strncmp(n->text, "lognormal:", 10) || !strncmp(n->text, "heavy:", 6)) {
			GError *err = NULL;

			if (!weights_parse_dist(n->text, &e->counts_dist, &err)) {
				cfg_fail(c, n, CONFIG_ERROR_VALUE, "'counts' %s", err->message);
				g_error_free(err);
				return false;
			}
			e->counts = COUNTS_DIST;
			return true;
		}
	}
	if (n->kind != YN_SEQ)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE,
			    "'counts' must be a list of weights, 'equal', 'zipf:S', 'lognormal:SIGMA', 'heavy:F' or 'file:PATH', such as zipf:1.2, got %s%s%s%s",
			    n->kind == YN_SCALAR ? "'" : "", n->kind == YN_SCALAR ? n->text : "",
			    n->kind == YN_SCALAR ? "'" : "", n->kind == YN_SCALAR ? "" : cfg_ynode_kind_name(n));
	g_autoptr(GPtrArray) items = g_ptr_array_new();
	bool any = false;

	if (!list_items(c, n, "counts", items))
		return false;
	for (guint i = 0; i < items->len; i++) {
		const struct ynode *it = items->pdata[i];
		int64_t v;
		GError *err = NULL;

		if (!cfg_parse_int(it->text, 0, 1000000000000ll, &v, &err)) {
			cfg_fail(c, it, CONFIG_ERROR_VALUE, "'counts' %s", err->message);
			g_error_free(err);
			return false;
		}
		uint64_t w = (uint64_t)v;

		any |= w > 0;
		g_array_append_val(e->weights, w);
	}
	if (!any)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'counts' needs at least one weight above 0");
	e->counts = COUNTS_LIST;
	return true;
}

static bool read_outputs(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	if (!cfg_need_map(c, n, "outputs") || !cfg_map_check_keys(c, n, "outputs"))
		return false;
	for (guint i = 0; i + 1 < n->kids->len; i += 2) {
		const struct ynode *k = n->kids->pdata[i], *v = n->kids->pdata[i + 1];

		if (!strcmp(k->text, "dir")) {
			if (!cfg_need_scalar(c, v, "outputs.dir"))
				return false;
			if (!*v->text)
				return cfg_fail(c, v, CONFIG_ERROR_VALUE, "'outputs.dir' must not be empty");
			g_free(e->out_dir);
			e->out_dir = g_strdup(v->text);
		} else if (!strcmp(k->text, "formats")) {
			g_autoptr(GPtrArray) items = g_ptr_array_new();
			static const char *const names[] = { "h5", "csv", "png", "svg" };

			if (!list_items(c, v, "outputs.formats", items))
				return false;
			e->formats = 0;
			for (guint j = 0; j < items->len; j++) {
				const struct ynode *it = items->pdata[j];
				unsigned bit = 0;

				for (unsigned b = 0; b < 4; b++)
					if (!strcmp(names[b], it->text))
						bit = 1u << b;
				if (!bit)
					return cfg_fail(c, it, CONFIG_ERROR_VALUE,
						    "'outputs.formats' unknown format '%s' (known: h5, csv, png, svg)",
						    quote_text(it->text).s);
				e->formats |= bit;
			}
		} else {
			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA,
				    "unknown key 'outputs.%s' (known: dir, formats)", k->text);
		}
	}
	return true;
}

/* fabric_shape_check on platform p as experiment_point_platform makes it
 * for a point of nranks ranks. */
static bool shape_check(const struct platform *p, int nranks, GError **error)
{
	struct fabric_config fc = p->fabric;

	if (fabric_dims_product(&fc) != nranks)
		memset(fc.dims, 0, sizeof(fc.dims));
	fc.nranks = nranks;
	return fabric_shape_check(&fc, NULL, error);
}

static bool read_sweep(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	if (!cfg_need_map(c, n, "sweep") || !cfg_map_check_keys(c, n, "sweep"))
		return false;
	if (n->kids->len / 2 > CONFIG_MAX_SWEEPS)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'sweep' has more than %d keys", CONFIG_MAX_SWEEPS);
	for (guint i = 0; i + 1 < n->kids->len; i += 2) {
		const struct ynode *k = n->kids->pdata[i], *v = n->kids->pdata[i + 1];
		g_autofree char *full = cfg_join_key("sweep", k->text);
		const struct pkey *pk = cfg_pkey_find(k->text);
		g_autoptr(GPtrArray) items = g_ptr_array_new();

		if (!pk || !cfg_pkey_sweepable(pk)) {
			g_autofree char *known = cfg_sweep_keys();
			g_autofree char *hint = spell_hint(k->text, known);

			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA,
				    "unknown sweep key '%s' (known: %s)%s", quote_text(k->text).s, known, hint);
		}
		if (!strcmp(k->text, "topology.ranks"))
			return cfg_fail(c, k, CONFIG_ERROR_VALUE,
				    "'%s': vary the rank count with 'ranks', not a sweep", full);
		if (!list_items(c, v, full, items))
			return false;
		struct config_sweep *s = g_new0(struct config_sweep, 1);

		s->key = g_strdup(k->text);
		s->values = g_ptr_array_new_with_free_func(g_free);
		g_ptr_array_add(e->sweeps, s);
		for (guint j = 0; j < items->len; j++) {
			const struct ynode *it = items->pdata[j];
			struct platform scratch;
			uint32_t mask = e->explicit_switch;
			GError *err = NULL;
			bool ok;

			config_platform_copy(&scratch, &e->plat);
			ok = cfg_pkey_set(&scratch, pk, it->text, &mask, &err);
			if (!ok) {
				platform_release(&scratch);
				cfg_fail(c, it, CONFIG_ERROR_VALUE, "'%s' %s", full, err->message);
				g_error_free(err);
				return false;
			}
			/* Every rank count must make this value's shape. */
			guint nr = e->ranks->len ? e->ranks->len : 1;

			for (guint r = 0; r < nr && ok; r++) {
				int nranks = e->ranks->len ? g_array_index(e->ranks, int, r)
							   : scratch.fabric.nranks;

				if (!(ok = shape_check(&scratch, nranks, &err)))
					cfg_fail(c, it, CONFIG_ERROR_VALUE,
						 "'%s' %s is not admitted on %d ranks: %s", full,
						 quote_text(it->text).s, nranks, err->message);
			}
			platform_release(&scratch);
			if (!ok) {
				g_error_free(err);
				return false;
			}
			g_ptr_array_add(s->values, g_strdup(it->text));
		}
	}
	return true;
}

bool config_name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* Every collective at every rank count takes the root and the peer
 * (algo_build's rule, checked here so that the error names the key). */
static bool check_root_peer(const struct ctx *c, const struct experiment *e,
			    const struct ynode *root, const struct ynode *const rp_node[2])
{
	guint nr = e->ranks->len ? e->ranks->len : 1;

	for (guint i = 0; i < e->colls->len; i++)
		for (guint j = 0; j < nr; j++) {
			enum coll cl = g_array_index(e->colls, enum coll, i);
			int r = e->ranks->len ? g_array_index(e->ranks, int, j) : e->plat.fabric.nranks;
			GError *err = NULL;
			bool bad_peer;

			if (algo_root_peer_check(cl, r, e->root, e->peer, &bad_peer, &err))
				continue;
			const struct ynode *at = rp_node[bad_peer] ? rp_node[bad_peer]
					       : rp_node[!bad_peer] ? rp_node[!bad_peer] : root;

			cfg_fail(c, at, CONFIG_ERROR_VALUE, "%s (%s on %d ranks)", err->message,
				 coll_name(cl), r);
			g_error_free(err);
			return false;
		}
	return true;
}

/* node_ranks: an integer that divides every rank count of the experiment
 * (algo_build's rule, checked here so that the error names the key);
 * without it the platform's nodes (simulate_params). */
static bool read_node_ranks(const struct ctx *c, struct experiment *e, const struct ynode *root)
{
	const struct ynode *n = cfg_map_get(root, "node_ranks");
	int64_t v;
	GError *err = NULL;

	if (!n)
		return true;
	if (!cfg_need_scalar(c, n, "node_ranks"))
		return false;
	if (!cfg_parse_int(n->text, 1, SCHED_MAX_RANKS, &v, &err)) {
		cfg_fail(c, n, CONFIG_ERROR_VALUE, "'node_ranks' %s", err->message);
		g_error_free(err);
		return false;
	}
	e->node_ranks = (int)v;
	guint nr = e->ranks->len ? e->ranks->len : 1;

	for (guint j = 0; j < nr; j++) {
		int r = e->ranks->len ? g_array_index(e->ranks, int, j) : e->plat.fabric.nranks;

		if (r % e->node_ranks)
			return cfg_fail(c, n, CONFIG_ERROR_VALUE,
					"'node_ranks' must divide every rank count, got %d for %d ranks",
					e->node_ranks, r);
	}
	return true;
}

static bool read_experiment(const struct ctx *c, struct experiment *e, const struct ynode *root)
{
	static const char *const required[] = { "platform", "sizes", "algorithms", NULL };
	g_autoptr(GPtrArray) items = g_ptr_array_new();
	const struct ynode *n;

	if (!cfg_check_schema_version(c, root) || !cfg_map_check_keys(c, root, NULL))
		return false;
	for (guint i = 0; i + 1 < root->kids->len; i += 2) {
		const struct ynode *k = root->kids->pdata[i];
		bool known = false;

		for (const char *const *x = exp_keys; *x; x++)
			known |= !strcmp(*x, k->text);
		if (!known) {
			GString *g = g_string_new(NULL);

			for (const char *const *x = exp_keys; *x; x++)
				g_string_append_printf(g, "%s%s", g->len ? ", " : "", *x);
			g_autofree char *list = g_string_free(g, FALSE);
			g_autofree char *hint = spell_hint(k->text, list);

			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)%s", quote_text(k->text).s,
				    list, hint);
		}
	}
	for (const char *const *x = required; *x; x++)
		if (!cfg_map_get(root, *x))
			return cfg_fail(c, root, CONFIG_ERROR_SCHEMA, "missing key '%s'", *x);

	/* name */
	if ((n = cfg_map_get(root, "name"))) {
		if (!cfg_need_scalar(c, n, "name"))
			return false;
		if (!config_name_ok(n->text))
			return cfg_fail(c, n, CONFIG_ERROR_VALUE,
				    "'name' must use letters, digits, '-', '_' and '.', got '%s'", quote_text(n->text).s);
		e->name = g_strdup(n->text);
	} else {
		g_autofree char *base = g_path_get_basename(e->path);
		char *dot = strrchr(base, '.');

		if (dot && dot != base)
			*dot = '\0';
		e->name = config_name_ok(base) ? g_strdup(base) : g_strdup("experiment");
	}

	/* platform + overrides */
	n = cfg_map_get(root, "platform");
	if (!cfg_need_scalar(c, n, "platform"))
		return false;
	if (!*n->text)
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'platform' must name a platform file");
	{
		g_autofree char *dir = g_path_get_dirname(e->path);
		size_t len = 0;
		GError *err = NULL;

		e->platform_path = g_path_is_absolute(n->text) ? g_strdup(n->text)
							       : g_build_filename(dir, n->text, NULL);
		if (!cfg_read_file(e->platform_path, &e->platform_text, &len, &err)) {
			cfg_fail(c, n, CONFIG_ERROR_IO, "'platform' %s", err->message);
			g_error_free(err);
			return false;
		}
		platform_release(&e->plat);
		if (!cfg_platform_parse(e->platform_path, e->platform_text, len, &e->plat,
				    &e->explicit_switch, c->error)) {
			platform_init_default(&e->plat);
			return false;
		}
	}
	if ((n = cfg_map_get(root, "tune"))) {
		g_autofree char *dir = g_path_get_dirname(e->path);
		GError *err = NULL;

		if (!cfg_need_scalar(c, n, "tune"))
			return false;
		e->tune_path = g_path_is_absolute(n->text) ? g_strdup(n->text)
							   : g_build_filename(dir, n->text, NULL);
		e->tune = tune_profile_load(e->tune_path, &err);
		if (!e->tune) {
			cfg_fail(c, n, err->code == CONFIG_ERROR_IO ? CONFIG_ERROR_IO : CONFIG_ERROR_VALUE,
				 "'tune': %s", err->message);
			g_error_free(err);
			return false;
		}
	}
	if ((n = cfg_map_get(root, "overrides"))) {
		struct plat_locs loc = { .where = n };
		bool ok;

		if (!cfg_need_map(c, n, "overrides"))
			return false;
		loc.edge_nodes = g_ptr_array_new();
		loc.seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		ok = cfg_read_platform_map(c, n, NULL, NULL, &e->plat, &e->explicit_switch, &loc);
		if (ok) {
			/* Without new edges or ranks, an edge list keeps the rank
			 * count it was loaded with. */
			if (!loc.edges_set && !loc.switches_set && topo_fixed_ranks(e->plat.fabric.topo) &&
			    !loc.ranks)
				loc.ranks = n;
			ok = cfg_check_platform(c, &e->plat, &loc);
		}
		g_ptr_array_free(loc.edge_nodes, TRUE);
		g_hash_table_unref(loc.seen);
		if (!ok)
			return false;
	}

	/* collectives and algorithms */
	const struct ynode *colls = cfg_map_get(root, "collectives");

	if (colls) {
		if (!list_items(c, colls, "collectives", items))
			return false;
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			enum coll cl;

			if (!read_coll(c, it, "collectives", &cl))
				return false;
			for (guint j = 0; j < e->colls->len; j++)
				if (g_array_index(e->colls, enum coll, j) == cl)
					return cfg_fail(c, it, CONFIG_ERROR_VALUE,
						    "'collectives' lists '%s' twice", quote_text(it->text).s);
			g_array_append_val(e->colls, cl);
		}
	}
	if (!read_algorithms(c, e, cfg_map_get(root, "algorithms"), colls))
		return false;
	if ((n = cfg_map_get(root, "baseline"))) {
		bool found = false;

		if (!cfg_need_scalar(c, n, "baseline"))
			return false;
		for (guint i = 0; i < e->algos->len; i++) {
			GPtrArray *names = e->algos->pdata[i];

			for (guint j = 0; j < names->len; j++)
				found |= !strcmp(names->pdata[j], n->text);
		}
		if (!found)
			return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'baseline' '%s' is not among 'algorithms'",
				    quote_text(n->text).s);
		e->baseline = g_strdup(n->text);
	}

	/* sizes */
	n = cfg_map_get(root, "sizes");
	if (!list_items(c, n, "sizes", items))
		return false;
	g_autoptr(GPtrArray) size_nodes = g_ptr_array_new(); /* the entry of each size */

	for (guint i = 0; i < items->len; i++) {
		const struct ynode *it = items->pdata[i];
		GError *err = NULL;

		if (!config_size_range("'sizes'", it->text, e->sizes, &err))
			return cfg_fail_with(c, it, err);
		while (size_nodes->len < e->sizes->len)
			g_ptr_array_add(size_nodes, (gpointer)it);
	}

	/* ranks */
	if ((n = cfg_map_get(root, "ranks"))) {
		if (!read_int_list(c, n, "ranks", 2, SCHED_MAX_RANKS, e->ranks, sizeof(int)))
			return false;
		g_autoptr(GPtrArray) rn = g_ptr_array_new();

		list_items(c, n, "ranks", rn);
		for (guint i = 0; i < e->ranks->len; i++) {
			int r = g_array_index(e->ranks, int, i);

			GError *err = NULL;

			if (!topo_fixed_ranks(e->plat.fabric.topo) && !shape_check(&e->plat, r, &err)) {
				cfg_fail(c, rn->pdata[i], CONFIG_ERROR_VALUE, "'ranks' %d is not admitted: %s", r, err->message);
				g_error_free(err);
				return false;
			}
			if (topo_fixed_ranks(e->plat.fabric.topo) && r != e->plat.fabric.nranks)
				return cfg_fail(c, rn->pdata[i], CONFIG_ERROR_VALUE,
					    "'ranks' must be %d, the edge list's rank count, got %d",
					    e->plat.fabric.nranks, r);
		}
	}

	/* dtypes */
	if ((n = cfg_map_get(root, "dtypes"))) {
		if (!list_items(c, n, "dtypes", items))
			return false;
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			enum dtype d;

			if (!dtype_parse(it->text, &d))
				return cfg_fail(c, it, CONFIG_ERROR_VALUE,
					    "'dtypes' unknown dtype '%s' (known: %s)", quote_text(it->text).s,
					    DTYPE_KNOWN);
			g_array_append_val(e->dtypes, d);
		}
	} else {
		enum dtype d = DTYPE_FP32;

		g_array_append_val(e->dtypes, d);
	}

	for (guint i = 0; i < e->sizes->len; i++)
		for (guint d = 0; d < e->dtypes->len; d++) {
			enum dtype dt = g_array_index(e->dtypes, enum dtype, d);
			uint64_t b = g_array_index(e->sizes, uint64_t, i);

			if (b % dtype_elem_bytes(dt))
				return cfg_fail(c, size_nodes->pdata[i], CONFIG_ERROR_VALUE,
					    "'sizes' %" G_GUINT64_FORMAT " bytes is not a whole number of %s elements (%u bytes each)",
					    b, dtype_name(dt), dtype_elem_bytes(dt));
		}

	/* nchunks */
	if ((n = cfg_map_get(root, "nchunks"))) {
		if (!read_int_list(c, n, "nchunks", 1, SCHED_MAX_NCHUNKS, e->nchunks, sizeof(uint32_t)))
			return false;
	} else {
		uint32_t one = 1;

		g_array_append_val(e->nchunks, one);
	}

	/* paxi, root, peer */
	if ((n = cfg_map_get(root, "paxi"))) {
		if (!cfg_need_scalar(c, n, "paxi"))
			return false;
		if (!paxi_kind_parse(n->text, &e->paxi))
			return cfg_fail(c, n, CONFIG_ERROR_VALUE,
				    "'paxi' must be transfer or sendrecv, got '%s'", quote_text(n->text).s);
		e->paxi_set = true;
	}
	const char *rp[] = { "root", "peer" };
	const struct ynode *rp_node[2] = { NULL, NULL };

	for (int i = 0; i < 2; i++) {
		int64_t v;
		GError *err = NULL;

		if (!(n = rp_node[i] = cfg_map_get(root, rp[i])))
			continue;
		if (!cfg_need_scalar(c, n, rp[i]))
			return false;
		if (!cfg_parse_int(n->text, 0, SCHED_MAX_RANKS - 1, &v, &err)) {
			cfg_fail(c, n, CONFIG_ERROR_VALUE, "'%s' %s", rp[i], err->message);
			g_error_free(err);
			return false;
		}
		*(i ? &e->peer : &e->root) = (int)v;
	}
	if (!check_root_peer(c, e, root, rp_node) || !read_node_ranks(c, e, root))
		return false;

	/* seeds */
	if ((n = cfg_map_get(root, "seeds"))) {
		if (!list_items(c, n, "seeds", items))
			return false;
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			uint64_t s;
			GError *err = NULL;

			if (!cfg_parse_u64(it->text, &s, &err)) {
				cfg_fail(c, it, CONFIG_ERROR_VALUE, "'seeds' %s", err->message);
				g_error_free(err);
				return false;
			}
			g_array_append_val(e->seeds, s);
		}
	} else {
		uint64_t one = 1;

		g_array_append_val(e->seeds, one);
	}

	/* counts */
	e->counts_seed = 1;
	if ((n = cfg_map_get(root, "counts_seed"))) {
		GError *err = NULL;

		if (!cfg_need_scalar(c, n, "counts_seed"))
			return false;
		if (!cfg_parse_u64(n->text, &e->counts_seed, &err)) {
			cfg_fail(c, n, CONFIG_ERROR_VALUE, "'counts_seed' %s", err->message);
			g_error_free(err);
			return false;
		}
	}
	if ((n = cfg_map_get(root, "counts"))) {
		bool agv = false;

		for (guint i = 0; i < e->colls->len; i++)
			agv |= g_array_index(e->colls, enum coll, i) == COLL_ALLGATHERV;
		if (!agv)
			return cfg_fail(c, n, CONFIG_ERROR_VALUE, "'counts' applies only to allgatherv");
		if (!read_counts(c, e, n))
			return false;
		if (e->counts == COUNTS_LIST) {
			GArray *rs = e->ranks;
			guint nr = rs->len ? rs->len : 1;

			for (guint i = 0; i < nr; i++) {
				int r = rs->len ? g_array_index(rs, int, i) : e->plat.fabric.nranks;

				if ((int)e->weights->len != r)
					return cfg_fail(c, n, CONFIG_ERROR_VALUE,
						    "'counts' has %u weights, but ranks is %d",
						    e->weights->len, r);
			}
		}
	}

	/* outputs, sweep */
	e->out_dir = g_strdup("results");
	if ((n = cfg_map_get(root, "outputs")) && !read_outputs(c, e, n))
		return false;
	if ((n = cfg_map_get(root, "sweep")) && !read_sweep(c, e, n))
		return false;

	uint64_t np = experiment_npoints(e);

	if (np > CONFIG_MAX_POINTS)
		return cfg_fail(c, root, CONFIG_ERROR_VALUE, "the experiment expands to %" G_GUINT64_FORMAT
			    " points (at most %d)", np, CONFIG_MAX_POINTS);
	return true;
}

struct experiment *config_experiment_parse(const char *path, const char *text, size_t len,
					   GError **error)
{
	struct ctx c = { .path = path, .error = error };
	struct ynode *root = cfg_yaml_read(path, text, len, error);
	struct experiment *e;

	if (!root)
		return NULL;
	e = experiment_new();
	e->path = g_strdup(path);
	e->text = g_strndup(text, len);
	if (!read_experiment(&c, e, root)) {
		cfg_ynode_free(root);
		experiment_free(e);
		return NULL;
	}
	cfg_ynode_free(root);
	return e;
}

struct experiment *config_experiment_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	size_t len;

	if (!cfg_read_file(path, &text, &len, error))
		return NULL;
	return config_experiment_parse(path, text, len, error);
}
