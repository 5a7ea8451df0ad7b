/* The YAML tree of platform and experiment files, and the checks every
 * node goes through (config_int.h).
 *
 * The file is read with libyaml's event parser into a small tree of our own
 * (scalars, sequences, mappings, each with its 1-based line and column), so
 * that every later check can point at the node at fault. Building the tree
 * ourselves also bounds what hostile input can cost: a node count and a
 * nesting depth cap, a file size cap, and no alias expansion at all (an alias
 * is an error; an anchor is ignored). */
#include "sim/config_int.h"
#include "sim/util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

G_DEFINE_QUARK(g5-config-error-quark, config_error)

/* ---- The YAML tree. ---- */


void cfg_ptr_array_unref(gpointer a)
{
	g_ptr_array_unref(a);
}

void cfg_ynode_free(gpointer p)
{
	struct ynode *n = p;

	if (!n)
		return;
	g_free(n->text);
	if (n->kids)
		g_ptr_array_unref(n->kids);
	g_free(n);
}

static struct ynode *ynode_new(enum ynode_kind kind, const yaml_mark_t *m)
{
	struct ynode *n = g_new0(struct ynode, 1);

	n->kind = kind;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	if (kind != YN_SCALAR)
		n->kids = g_ptr_array_new_with_free_func(cfg_ynode_free);
	return n;
}

const char *cfg_ynode_kind_name(const struct ynode *n)
{
	switch (n->kind) {
	case YN_SCALAR:
		return "a scalar";
	case YN_SEQ:
		return "a list";
	case YN_MAP:
		return "a mapping";
	}
	return "?";
}

/* Reads text into a tree. Returns the root (a mapping) or NULL with error. */
struct ynode *cfg_yaml_read(const char *path, const char *text, size_t len, GError **error)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ynode *root = NULL;
	GPtrArray *stack = g_ptr_array_new();
	size_t nodes = 0;
	bool ok = false, done = false;
	int ndocs = 0;

	if (len > CONFIG_MAX_FILE_BYTES) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
			    "%s: file is larger than %d bytes", path, CONFIG_MAX_FILE_BYTES);
		g_ptr_array_free(stack, TRUE);
		return NULL;
	}
	if (!yaml_parser_initialize(&parser))
		g_error("yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			const char *problem = parser.problem ? parser.problem : "unreadable input";

			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
				    "%s:%d:%d: not valid YAML: %s%s%s", path,
				    (int)parser.problem_mark.line + 1,
				    (int)parser.problem_mark.column + 1, problem,
				    parser.context ? " " : "", parser.context ? parser.context : "");
			goto out;
		}
		struct ynode *n = NULL;
		bool push = false;

		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++ndocs > 1) {
				g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
					    "%s:%d:%d: more than one YAML document; a file holds one",
					    path, (int)ev.start_mark.line + 1,
					    (int)ev.start_mark.column + 1);
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
				    "%s:%d:%d: aliases are not supported ('*%s'); write the value out",
				    path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				    (const char *)ev.data.alias.anchor);
			yaml_event_delete(&ev);
			goto out;
		case YAML_SCALAR_EVENT:
			n = ynode_new(YN_SCALAR, &ev.start_mark);
			n->text = g_strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
			break;
		case YAML_SEQUENCE_START_EVENT:
			n = ynode_new(YN_SEQ, &ev.start_mark);
			push = true;
			break;
		case YAML_MAPPING_START_EVENT:
			n = ynode_new(YN_MAP, &ev.start_mark);
			push = true;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			g_assert(stack->len > 0);
			g_ptr_array_set_size(stack, stack->len - 1);
			break;
		default:
			break;
		}
		if (n) {
			if (++nodes > CONFIG_MAX_NODES) {
				g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
					    "%s:%d:%d: more than %d YAML nodes", path, n->line, n->col,
					    CONFIG_MAX_NODES);
				cfg_ynode_free(n);
				yaml_event_delete(&ev);
				goto out;
			}
			if (push && stack->len >= CONFIG_MAX_DEPTH) {
				g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
					    "%s:%d:%d: nesting deeper than %d levels", path, n->line,
					    n->col, CONFIG_MAX_DEPTH);
				cfg_ynode_free(n);
				yaml_event_delete(&ev);
				goto out;
			}
			if (stack->len)
				g_ptr_array_add(((struct ynode *)stack->pdata[stack->len - 1])->kids, n);
			else if (!root)
				root = n;
			else
				cfg_ynode_free(n); /* cannot happen: one document, one root */
			if (push)
				g_ptr_array_add(stack, n);
		}
		yaml_event_delete(&ev);
	}
	if (!root) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
			    "%s:1:1: empty file; expected a mapping that starts with 'schema_version: 1'",
			    path);
		goto out;
	}
	if (root->kind != YN_MAP) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    "%s:%d:%d: the top level must be a mapping of keys, got %s", path,
			    root->line, root->col, cfg_ynode_kind_name(root));
		goto out;
	}
	ok = true;
out:
	yaml_parser_delete(&parser);
	g_ptr_array_free(stack, TRUE);
	if (!ok) {
		cfg_ynode_free(root);
		return NULL;
	}
	return root;
}

/* ---- Checking nodes. ---- */


bool cfg_fail(const struct ctx *c, const struct ynode *n, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *msg = g_strdup_vprintf(fmt, ap);

	va_end(ap);
	g_set_error(c->error, CONFIG_ERROR, code, "%s:%d:%d: %s", c->path, n->line, n->col, msg);
	g_free(msg);
	return false;
}

/* Re-raises a location-less error `e` (consumed) at node n. */
bool cfg_fail_with(const struct ctx *c, const struct ynode *n, GError *e)
{
	cfg_fail(c, n, CONFIG_ERROR_VALUE, "%s", e->message);
	g_error_free(e);
	return false;
}

char *cfg_join_key(const char *prefix, const char *key)
{
	return prefix && *prefix ? g_strdup_printf("%s.%s", prefix, key) : g_strdup(key);
}

/* Checks that every key of mapping m is a scalar and appears once. */
bool cfg_map_check_keys(const struct ctx *c, const struct ynode *m, const char *prefix)
{
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i];

		if (k->kind != YN_SCALAR)
			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "keys must be plain names, got %s",
				    cfg_ynode_kind_name(k));
		for (guint j = 0; j < i; j += 2)
			if (!strcmp(((const struct ynode *)m->kids->pdata[j])->text, k->text)) {
				g_autofree char *full = cfg_join_key(prefix, k->text);

				return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "duplicate key '%s'", quote_text(full).s);
			}
	}
	return true;
}

const struct ynode *cfg_map_get(const struct ynode *m, const char *key)
{
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i];

		/* Keys are checked to be scalars later; a lookup may come first. */
		if (k->kind == YN_SCALAR && !strcmp(k->text, key))
			return m->kids->pdata[i + 1];
	}
	return NULL;
}

bool cfg_need_scalar(const struct ctx *c, const struct ynode *n, const char *key)
{
	if (n->kind == YN_SCALAR)
		return true;
	return cfg_fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a single value, got %s", key,
		    cfg_ynode_kind_name(n));
}

bool cfg_need_map(const struct ctx *c, const struct ynode *n, const char *key)
{
	if (n->kind == YN_MAP)
		return true;
	return cfg_fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a mapping of keys, got %s", key,
		    cfg_ynode_kind_name(n));
}

/* Decimal integer, digits only (a leading '-' allowed when min < 0). */
bool cfg_parse_int(const char *text, int64_t min, int64_t max, int64_t *out, GError **error)
{
	const char *p = text;
	bool neg = false;
	uint64_t v = 0;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		if (v > (UINT64_MAX - 9) / 10)
			goto range;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX || (neg && min >= 0))
		goto range;
	int64_t s = neg ? -(int64_t)v : (int64_t)v;

	if (s < min || s > max)
		goto range;
	*out = s;
	return true;
bad:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "must be an integer such as %" G_GINT64_FORMAT
		    ", got '%s'", min > 1 ? min : (int64_t)1, quote_text(text).s);
	return false;
range:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
		    "must be between %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT ", got '%s'", min, max,
		    quote_text(text).s);
	return false;
}

/* Unsigned 64-bit integer (seeds). */
bool cfg_parse_u64(const char *text, uint64_t *out, GError **error)
{
	uint64_t v = 0;

	if (!*text)
		goto bad;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		if (v > UINT64_MAX / 10 || v * 10 > UINT64_MAX - (uint64_t)(*p - '0'))
			goto bad;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return true;
bad:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
		    "must be an integer between 0 and %" G_GUINT64_FORMAT ", got '%s'", UINT64_MAX,
		    quote_text(text).s);
	return false;
}

bool cfg_parse_double(const char *text, double *out)
{
	char *end = NULL;

	if (!*text || g_ascii_isspace(*text))
		return false;
	errno = 0;
	double v = g_ascii_strtod(text, &end);

	if (errno || !end || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool cfg_read_file(const char *path, char **text, size_t *len, GError **error)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_IO, "%s: cannot read: %s", path,
			    g_strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_IO, "%s: not a regular file", path);
		return false;
	}
	if (st.st_size > CONFIG_MAX_FILE_BYTES) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
			    "%s: file is larger than %d bytes", path, CONFIG_MAX_FILE_BYTES);
		return false;
	}
	GError *e = NULL;
	gsize n;

	if (!g_file_get_contents(path, text, &n, &e)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_IO, "%s: cannot read: %s", path,
			    e->message);
		g_error_free(e);
		return false;
	}
	*len = n;
	return true;
}
