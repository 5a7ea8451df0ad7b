/* Platform and experiment files: YAML text -> typed structs (config.h).
 *
 * The file is read with libyaml's event parser into a small tree of our own
 * (scalars, sequences, mappings, each with its 1-based line and column), so
 * that every later check can point at the node at fault. Building the tree
 * ourselves also bounds what hostile input can cost: a node count and a
 * nesting depth cap, a file size cap, and no alias expansion at all (an alias
 * is an error; an anchor is ignored).
 *
 * Platform keys are one table (path, type, field, range); files, experiment
 * overrides and sweeps all set keys through it, so a key means the same
 * thing everywhere. A switch_link key not set explicitly follows its link
 * key. */
#include "sim/config.h"
#include "sim/util/weights.h"

#include <errno.h>
#include <unistd.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "sim/algos/algo.h"
#include "sim/util/units.h"

G_DEFINE_QUARK(g5-config-error-quark, config_error)

/* ---- The YAML tree. ---- */

enum ynode_kind { YN_SCALAR, YN_SEQ, YN_MAP };

struct ynode {
	enum ynode_kind kind;
	int line, col;   /* 1-based */
	char *text;      /* scalar: owned */
	GPtrArray *kids; /* seq: items; map: key, value, key, value, ...; owned */
};

static void ptr_array_unref(gpointer a)
{
	g_ptr_array_unref(a);
}

static void ynode_free(gpointer p)
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
		n->kids = g_ptr_array_new_with_free_func(ynode_free);
	return n;
}

static const char *ynode_kind_name(const struct ynode *n)
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
static struct ynode *yaml_read(const char *path, const char *text, size_t len, GError **error)
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
				ynode_free(n);
				yaml_event_delete(&ev);
				goto out;
			}
			if (push && stack->len >= CONFIG_MAX_DEPTH) {
				g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
					    "%s:%d:%d: nesting deeper than %d levels", path, n->line,
					    n->col, CONFIG_MAX_DEPTH);
				ynode_free(n);
				yaml_event_delete(&ev);
				goto out;
			}
			if (stack->len)
				g_ptr_array_add(((struct ynode *)stack->pdata[stack->len - 1])->kids, n);
			else if (!root)
				root = n;
			else
				ynode_free(n); /* cannot happen: one document, one root */
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
			    root->line, root->col, ynode_kind_name(root));
		goto out;
	}
	ok = true;
out:
	yaml_parser_delete(&parser);
	g_ptr_array_free(stack, TRUE);
	if (!ok) {
		ynode_free(root);
		return NULL;
	}
	return root;
}

/* ---- Checking nodes. ---- */

struct ctx {
	const char *path;
	GError **error;
};

static bool fail(const struct ctx *c, const struct ynode *n, int code, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);

static bool fail(const struct ctx *c, const struct ynode *n, int code, const char *fmt, ...)
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
static bool fail_with(const struct ctx *c, const struct ynode *n, GError *e)
{
	fail(c, n, CONFIG_ERROR_VALUE, "%s", e->message);
	g_error_free(e);
	return false;
}

static char *join_key(const char *prefix, const char *key)
{
	return prefix && *prefix ? g_strdup_printf("%s.%s", prefix, key) : g_strdup(key);
}

/* Checks that every key of mapping m is a scalar and appears once. */
static bool map_check_keys(const struct ctx *c, const struct ynode *m, const char *prefix)
{
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i];

		if (k->kind != YN_SCALAR)
			return fail(c, k, CONFIG_ERROR_SCHEMA, "keys must be plain names, got %s",
				    ynode_kind_name(k));
		for (guint j = 0; j < i; j += 2)
			if (!strcmp(((const struct ynode *)m->kids->pdata[j])->text, k->text)) {
				g_autofree char *full = join_key(prefix, k->text);

				return fail(c, k, CONFIG_ERROR_SCHEMA, "duplicate key '%s'", full);
			}
	}
	return true;
}

static const struct ynode *map_get(const struct ynode *m, const char *key)
{
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i];

		/* Keys are checked to be scalars later; a lookup may come first. */
		if (k->kind == YN_SCALAR && !strcmp(k->text, key))
			return m->kids->pdata[i + 1];
	}
	return NULL;
}

static bool need_scalar(const struct ctx *c, const struct ynode *n, const char *key)
{
	if (n->kind == YN_SCALAR)
		return true;
	return fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a single value, got %s", key,
		    ynode_kind_name(n));
}

static bool need_map(const struct ctx *c, const struct ynode *n, const char *key)
{
	if (n->kind == YN_MAP)
		return true;
	return fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a mapping of keys, got %s", key,
		    ynode_kind_name(n));
}

/* Decimal integer, digits only (a leading '-' allowed when min < 0). */
static bool parse_int(const char *text, int64_t min, int64_t max, int64_t *out, GError **error)
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
		    ", got '%s'", min > 1 ? min : (int64_t)1, text);
	return false;
range:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
		    "must be between %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT ", got '%s'", min, max,
		    text);
	return false;
}

/* Unsigned 64-bit integer (seeds). */
static bool parse_u64(const char *text, uint64_t *out, GError **error)
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
		    text);
	return false;
}

static bool parse_double(const char *text, double *out)
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

/* ---- Platform keys. ---- */

enum pk_type {
	PK_NAME,    /* free text */
	PK_TOPO,    /* topology kind */
	PK_INT,     /* int */
	PK_U32,     /* uint32_t */
	PK_SIZE32,  /* size into uint32_t */
	PK_SIZE64,  /* size into uint64_t */
	PK_BW,      /* bandwidth > 0 */
	PK_BW0,     /* bandwidth, or 0 / unlimited */
	PK_BW_OR,   /* bandwidth, or the word choices[0] (stored as 0) */
	PK_TIME,    /* time in ps */
	PK_PROB,    /* double */
	PK_CHOICE,  /* one of `choices`, stored as its index (uint32_t) */
};

struct pkey {
	const char *key;
	enum pk_type type;
	size_t off, size;
	uint64_t min, max; /* integers, sizes, times, bandwidths; PROB: max in 1e-6 */
	int link_index;    /* link.* and switch_link.*: position in the link keys; else -1 */
	const char *const *choices; /* PK_CHOICE: the names, NULL-terminated; PK_BW_OR: its word */
};

static const char *const handshake_names[] = { "rts", "ready", NULL };
static const char *const reducer_names[] = { "node", "unit", NULL };
static const char *const control_names[] = { "fabric", "oob", NULL };
static const char *const link_word[] = { "link", NULL };
static const char *const reduce_word[] = { "reduce", NULL };
static const char *const bool_names[] = { "false", "true", NULL };

#define PF(member) offsetof(struct platform, member), sizeof(((struct platform *)0)->member)
#define MAX_TIME_PS 1000000000000000ull   /* 1000 s */
#define MAX_BW 1000000000000000ull        /* 1 PB/s */
#define LINK_KEYS(sec, field, base)                                                        \
	{ sec ".bandwidth", PK_BW, PF(field.bw_bytes_per_s), 1, MAX_BW, base + 0, NULL },          \
	{ sec ".latency", PK_TIME, PF(field.lat_ps), 0, MAX_TIME_PS, base + 1, NULL },             \
	{ sec ".header", PK_SIZE32, PF(field.header_bytes), 0, LINK_MAX_HEADER_BYTES, base + 2, NULL }, \
	{ sec ".packet", PK_SIZE32, PF(field.max_payload_bytes), 1, LINK_MAX_PAYLOAD_BYTES, base + 3, NULL }, \
	{ sec ".credits", PK_U32, PF(field.credits), 0, 1000000, base + 4, NULL },                 \
	{ sec ".credit_return", PK_TIME, PF(field.credit_return_ps), 0, MAX_TIME_PS, base + 5, NULL }, \
	{ sec ".window", PK_U32, PF(field.gbn_window), 1, 1000000, base + 6, NULL },               \
	{ sec ".timeout", PK_TIME, PF(field.gbn_timeout_ps), 1, MAX_TIME_PS, base + 7, NULL },     \
	{ sec ".error_rate", PK_PROB, PF(field.error_rate), 0, (uint64_t)(LINK_MAX_ERROR_RATE * 1e6), base + 8, NULL }
#define NLINK_KEYS 9

/* Every limit below is the one its layer exports (LINK_MAX_*, PAXI_MAX_*,
 * SCHED_MAX_*); a platform runs schedules, so its rank limit is theirs. */
G_STATIC_ASSERT(LINK_MAX_RANKS == SCHED_MAX_RANKS);

static const struct pkey pkeys[] = {
	{ "name", PK_NAME, 0, 0, 0, 0, -1, NULL },
	{ "topology.kind", PK_TOPO, PF(fabric.kind), 0, 0, -1, NULL },
	{ "topology.ranks", PK_INT, PF(fabric.nranks), 2, LINK_MAX_RANKS, -1, NULL },
	LINK_KEYS("link", fabric.link, 0),
	LINK_KEYS("switch_link", fabric.switch_link, 0),
	{ "node.inject", PK_BW0, PF(fabric.node.inject_bytes_per_s), 0, MAX_BW, -1, NULL },
	{ "node.eject", PK_BW0, PF(fabric.node.eject_bytes_per_s), 0, MAX_BW, -1, NULL },
	{ "paxi.cdma_units", PK_U32, PF(paxi.cdma_units), 1, PAXI_MAX_CDMA_UNITS, -1, NULL },
	{ "paxi.slots", PK_U32, PF(paxi.slots), 1, 1000000, -1, NULL },
	{ "paxi.setup", PK_TIME, PF(paxi.setup_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "paxi.ctrl_proc", PK_TIME, PF(paxi.ctrl_proc_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "paxi.slice", PK_SIZE64, PF(paxi.slice_bytes), 1, 1ull << 40, -1, NULL },
	{ "paxi.reduce", PK_BW0, PF(paxi.reduce_bytes_per_s), 0, MAX_BW, -1, NULL },
	{ "paxi.copy", PK_BW_OR, PF(paxi.copy_bytes_per_s), 0, MAX_BW, -1, reduce_word },
	{ "paxi.handshake", PK_CHOICE, PF(paxi.handshake), 0, 1, -1, handshake_names },
	{ "paxi.reduce_per", PK_CHOICE, PF(paxi.reduce_per), 0, 1, -1, reducer_names },
	{ "paxi.staging", PK_CHOICE, PF(paxi.staging), 0, 1, -1, bool_names },
	{ "paxi.control", PK_CHOICE, PF(paxi.control), 0, 1, -1, control_names },
	{ "paxi.setup_recv", PK_CHOICE, PF(paxi.setup_recv), 0, 1, -1, bool_names },
	{ "proto.simple.channel_bw", PK_BW0, PF(paxi.protos[PAXI_PROTO_SIMPLE].channel_bw_bytes_per_s), 0, MAX_BW, -1, NULL },
	{ "proto.simple.latency", PK_TIME, PF(paxi.protos[PAXI_PROTO_SIMPLE].lat_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "proto.ll.channel_bw", PK_BW0, PF(paxi.protos[PAXI_PROTO_LL].channel_bw_bytes_per_s), 0, MAX_BW, -1, NULL },
	{ "proto.ll.latency", PK_TIME, PF(paxi.protos[PAXI_PROTO_LL].lat_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "proto.ll128.channel_bw", PK_BW0, PF(paxi.protos[PAXI_PROTO_LL128].channel_bw_bytes_per_s), 0, MAX_BW, -1, NULL },
	{ "proto.ll128.latency", PK_TIME, PF(paxi.protos[PAXI_PROTO_LL128].lat_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "overhead", PK_TIME, PF(overhead_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "overhead_mpi", PK_TIME, PF(overhead_mpi_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "channels.bytes", PK_SIZE64, PF(channel_bytes), 1, 1ull << 40, -1, NULL },
	{ "channels.max", PK_U32, PF(max_channels), 0, 65536, -1, NULL },
	{ "nccl.overhead", PK_TIME, PF(nccl.overhead_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "nccl.overhead_mpi", PK_TIME, PF(nccl.overhead_mpi_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "nccl.channel_bytes", PK_SIZE64, PF(nccl.channel_bytes), 1, 1ull << 40, -1, NULL },
	{ "nccl.channels_max", PK_U32, PF(nccl.max_channels), 0, 65536, -1, NULL },
	{ "alpha", PK_TIME, PF(alpha_ps), 0, MAX_TIME_PS, -1, NULL },
	{ "beta", PK_BW_OR, PF(beta_bytes_per_s), 0, MAX_BW, -1, link_word },
};

/* Sections and the keys of each, for "unknown key" messages. */
static const char *const sections[] = { "topology", "link", "switch_link", "node", "paxi",
					"proto", "proto.simple", "proto.ll", "proto.ll128",
					"channels", "nccl" };

static const struct pkey *pkey_find(const char *key)
{
	for (size_t i = 0; i < G_N_ELEMENTS(pkeys); i++)
		if (!strcmp(pkeys[i].key, key))
			return &pkeys[i];
	return NULL;
}

static bool is_section(const char *key)
{
	for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
		if (!strcmp(sections[i], key))
			return true;
	return false;
}

/* The keys under `prefix` ("" for the top level), ", "-separated. */
static char *known_keys(const char *prefix, const char *const *extra)
{
	GString *g = g_string_new(NULL);
	size_t plen = strlen(prefix);

	for (const char *const *x = extra; x && *x; x++)
		g_string_append_printf(g, "%s%s", g->len ? ", " : "", *x);
	if (!plen)
		for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
			g_string_append_printf(g, "%s%s", g->len ? ", " : "", sections[i]);
	for (size_t i = 0; i < G_N_ELEMENTS(pkeys); i++) {
		const char *k = pkeys[i].key;

		if (plen) {
			if (strncmp(k, prefix, plen) || k[plen] != '.')
				continue;
			k += plen + 1;
		} else if (strchr(k, '.')) {
			continue;
		}
		bool dup = false;

		for (const char *const *x = extra; x && *x; x++)
			dup |= !strcmp(*x, k);
		if (dup)
			continue;
		g_string_append_printf(g, "%s%s", g->len ? ", " : "", k);
	}
	if (!strcmp(prefix, "topology"))
		g_string_append(g, ", dims, edges");
	return g_string_free(g, FALSE);
}

static char *topo_names(void)
{
	GString *g = g_string_new(NULL);

	for (int k = TOPO_RING; k <= TOPO_EDGES; k++)
		g_string_append_printf(g, "%s%s", k ? ", " : "", platform_topo_name((enum topo_kind)k));
	return g_string_free(g, FALSE);
}

static void store(struct platform *p, const struct pkey *k, uint64_t v)
{
	char *f = (char *)p + k->off;

	if (k->size == sizeof(uint64_t)) {
		memcpy(f, &v, sizeof(v));
	} else {
		g_assert(k->size == sizeof(uint32_t));
		uint32_t w = (uint32_t)v;

		memcpy(f, &w, sizeof(w));
	}
}

static char *fmt_bound(const struct pkey *k, uint64_t v)
{
	char buf[64];

	switch (k->type) {
	case PK_SIZE32:
	case PK_SIZE64:
		return g_strdup(units_format_size(v, buf, sizeof(buf)));
	case PK_TIME:
		if (v && v % 1000000000000ull == 0)
			return g_strdup_printf("%" G_GUINT64_FORMAT "s", (uint64_t)(v / 1000000000000ull));
		return g_strdup_printf("%" G_GUINT64_FORMAT "ps", v);
	case PK_BW:
	case PK_BW0:
	case PK_BW_OR:
		if (v % 1000000000ull == 0)
			return g_strdup_printf("%" G_GUINT64_FORMAT "GB/s", (uint64_t)(v / 1000000000ull));
		return g_strdup_printf("%" G_GUINT64_FORMAT "B/s", v);
	default:
		return g_strdup_printf("%" G_GUINT64_FORMAT, v);
	}
}

static bool range_error(const struct pkey *k, const char *value, GError **error)
{
	g_autofree char *lo = fmt_bound(k, k->min), *hi = fmt_bound(k, k->max);

	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "must be between %s and %s, got '%s'",
		    lo, hi, value);
	return false;
}

/* Sets key k of p from `value`. The message of an error has no key and no
 * location. `explicit_switch` (may be NULL) tracks the switch_link keys set
 * explicitly: a link key also sets its switch_link twin unless that was. */
static bool pkey_set(struct platform *p, const struct pkey *k, const char *value,
		     uint32_t *explicit_switch, GError **error)
{
	uint64_t v = 0;
	GError *e = NULL;

	switch (k->type) {
	case PK_NAME:
		g_free(p->name);
		p->name = g_strdup(value);
		return true;
	case PK_TOPO: {
		enum topo_kind t;

		if (!platform_topo_parse(value, &t, NULL)) {
			g_autofree char *known = topo_names();

			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a topology (known: %s), got '%s'", known, value);
			return false;
		}
		p->fabric.kind = t;
		return true;
	}
	case PK_INT: {
		int64_t i;

		if (!parse_int(value, (int64_t)k->min, (int64_t)k->max, &i, error))
			return false;
		int w = (int)i;

		memcpy((char *)p + k->off, &w, sizeof(w));
		return true;
	}
	case PK_U32: {
		int64_t i;

		if (!parse_int(value, (int64_t)k->min, (int64_t)k->max, &i, error))
			return false;
		v = (uint64_t)i;
		break;
	}
	case PK_SIZE32:
	case PK_SIZE64:
		if (!units_parse_size(value, &v, &e))
			goto wrap;
		if (v < k->min || v > k->max)
			return range_error(k, value, error);
		break;
	case PK_BW_OR:
		if (!strcmp(value, k->choices[0])) {
			v = 0;
			break;
		}
		if (!units_parse_bw(value, &v, NULL)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a bandwidth such as 450GB/s, or '%s', got '%s'",
				    k->choices[0], value);
			return false;
		}
		if (v > k->max)
			return range_error(k, value, error);
		break;
	case PK_BW0:
		if (!strcmp(value, "0") || !strcmp(value, "unlimited")) {
			v = 0;
			break;
		}
		if (!units_parse_bw(value, &v, NULL)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a bandwidth such as 450GB/s, or 'unlimited', got '%s'",
				    value);
			return false;
		}
		if (v > k->max)
			return range_error(k, value, error);
		break;
	case PK_BW:
		if (!units_parse_bw(value, &v, &e))
			goto wrap;
		if (v < k->min || v > k->max)
			return range_error(k, value, error);
		break;
	case PK_TIME:
		if (!units_parse_time(value, &v, &e))
			goto wrap;
		if (v < k->min || v > k->max)
			return range_error(k, value, error);
		break;
	case PK_CHOICE:
		for (v = 0; k->choices[v]; v++)
			if (!strcmp(k->choices[v], value))
				break;
		if (!k->choices[v]) {
			g_autofree char *known = g_strjoinv(", ", (char **)k->choices);

			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be one of %s, got '%s'", known, value);
			return false;
		}
		break;
	case PK_PROB: {
		double d;

		if (!parse_double(value, &d)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a number such as 0.001, got '%s'", value);
			return false;
		}
		if (d < 0 || d > (double)k->max * 1e-6) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be between 0 and %g, got '%s'", (double)k->max * 1e-6, value);
			return false;
		}
		memcpy((char *)p + k->off, &d, sizeof(d));
		goto twin;
	}
	}
	store(p, k, v);
twin:
	if (k->link_index >= 0) {
		bool is_switch = !strncmp(k->key, "switch_link.", 12);

		if (is_switch) {
			if (explicit_switch)
				*explicit_switch |= 1u << k->link_index;
		} else if (!explicit_switch || !(*explicit_switch & (1u << k->link_index))) {
			g_autofree char *twin = g_strdup_printf("switch_link.%s", k->key + 5);
			const struct pkey *t = pkey_find(twin);

			g_assert(t && t->size == k->size);
			memcpy((char *)p + t->off, (char *)p + k->off, k->size);
		}
	}
	return true;
wrap:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "%s", e->message);
	g_error_free(e);
	return false;
}

bool config_platform_key_known(const char *key)
{
	return pkey_find(key) != NULL;
}

bool config_platform_set_as(struct platform *p, const char *key, const char *name,
			    const char *value, GError **error)
{
	const struct pkey *k = pkey_find(key);
	GError *e = NULL;

	if (!k) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA, "unknown platform key '%s'", key);
		return false;
	}
	if (!pkey_set(p, k, value, NULL, &e)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "%s %s", name, e->message);
		g_error_free(e);
		return false;
	}
	return true;
}

bool config_platform_set(struct platform *p, const char *key, const char *value, GError **error)
{
	g_autofree char *name = g_strdup_printf("'%s'", key);

	return config_platform_set_as(p, key, name, value, error);
}

static bool pkey_numeric(const struct pkey *k)
{
	switch (k->type) {
	case PK_U32:
	case PK_SIZE32:
	case PK_SIZE64:
	case PK_BW:
	case PK_BW0:
	case PK_BW_OR:
	case PK_TIME:
		return true;
	default:
		return false;
	}
}

static uint64_t load(const struct platform *p, const struct pkey *k)
{
	const char *f = (const char *)p + k->off;

	if (k->size == sizeof(uint64_t)) {
		uint64_t v;

		memcpy(&v, f, sizeof(v));
		return v;
	}
	uint32_t w;

	memcpy(&w, f, sizeof(w));
	return w;
}

bool config_platform_get_num(const struct platform *p, const char *key, double *value,
			     GError **error)
{
	const struct pkey *k = pkey_find(key);

	if (!k || !pkey_numeric(k)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    k ? "platform key '%s' is not a number" : "unknown platform key '%s'", key);
		return false;
	}
	*value = (double)load(p, k);
	return true;
}

bool config_platform_set_num(struct platform *p, const char *key, double value, GError **error)
{
	const struct pkey *k = pkey_find(key);

	if (!k || !pkey_numeric(k)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    k ? "platform key '%s' is not a number" : "unknown platform key '%s'", key);
		return false;
	}
	if (!isfinite(value) || value < (double)k->min || value > (double)k->max) {
		g_autofree char *lo = fmt_bound(k, k->min), *hi = fmt_bound(k, k->max);

		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
			    "'%s' must be between %s and %s, got %g", key, lo, hi, value);
		return false;
	}
	store(p, k, (uint64_t)llround(value));
	if (k->link_index >= 0 && strncmp(k->key, "switch_link.", 12)) {
		g_autofree char *twin = g_strdup_printf("switch_link.%s", k->key + 5);
		const struct pkey *t = pkey_find(twin);

		memcpy((char *)p + t->off, (char *)p + k->off, k->size);
	}
	return true;
}

/* A value as the platform file writes it (exact, in the key's unit). */
static char *fmt_value(const struct platform *p, const struct pkey *k)
{
	switch (k->type) {
	case PK_NAME:
		return g_strdup(p->name);
	case PK_TOPO:
		return g_strdup(platform_topo_name(p->fabric.kind));
	case PK_INT: {
		int v;

		memcpy(&v, (const char *)p + k->off, sizeof(v));
		return g_strdup_printf("%d", v);
	}
	case PK_CHOICE:
		return g_strdup(k->choices[load(p, k)]);
	case PK_PROB: {
		double d;
		char buf[G_ASCII_DTOSTR_BUF_SIZE];

		memcpy(&d, (const char *)p + k->off, sizeof(d));
		return g_strdup(g_ascii_dtostr(buf, sizeof(buf), d));
	}
	case PK_BW_OR:
		if (!load(p, k))
			return g_strdup(k->choices[0]);
		return g_strdup_printf("%" G_GUINT64_FORMAT "B/s", load(p, k));
	case PK_BW0:
		if (!load(p, k))
			return g_strdup("unlimited");
		return g_strdup_printf("%" G_GUINT64_FORMAT "B/s", load(p, k));
	case PK_BW:
		return g_strdup_printf("%" G_GUINT64_FORMAT "B/s", load(p, k));
	case PK_TIME:
		return g_strdup_printf("%" G_GUINT64_FORMAT "ps", load(p, k));
	case PK_SIZE32:
	case PK_SIZE64:
		return g_strdup_printf("%" G_GUINT64_FORMAT "B", load(p, k));
	case PK_U32:
		return g_strdup_printf("%" G_GUINT64_FORMAT, load(p, k));
	}
	g_assert_not_reached();
}

bool config_platform_write(const struct platform *p, const char *comment, const char *path,
			   GError **error)
{
	GString *g = g_string_new(NULL);
	g_auto(GStrv) lines = g_strsplit(comment ? comment : "", "\n", -1);
	g_autofree char *tmp = g_strconcat(path, ".tmp", NULL);
	bool ok;

	for (char **l = lines; *l; l++)
		if (**l || l[1])
			g_string_append_printf(g, "# %s\n", *l);
	g_string_append(g, "schema_version: 1\n");
	for (size_t i = 0; i < G_N_ELEMENTS(pkeys); i++) {
		const struct pkey *k = &pkeys[i];
		g_autofree char *v = fmt_value(p, k);

		if (k->type == PK_NAME) {
			g_autofree char *q = g_strescape(v, NULL);

			g_string_append_printf(g, "%s: \"%s\"\n", k->key, q);
		} else {
			g_string_append_printf(g, "%s: %s\n", k->key, v);
		}
	}
	if (p->fabric.kind == TOPO_TORUS && (p->fabric.dims[0] || p->fabric.dims[1]))
		g_string_append_printf(g, "topology.dims: [%d, %d]\n", p->fabric.dims[0],
				       p->fabric.dims[1]);
	if (p->fabric.kind == TOPO_EDGES) {
		g_string_append(g, "topology.edges:\n");
		for (int i = 0; i < p->fabric.nedges; i++) {
			const struct topo_edge *e = &p->fabric.edges[i];

			g_string_append_printf(g, "  - {a: %d, b: %d", e->a, e->b);
			if (e->bw_bytes_per_s)
				g_string_append_printf(g, ", bandwidth: %" G_GUINT64_FORMAT "B/s",
						       e->bw_bytes_per_s);
			if (e->lat_ps != SIM_TIME_MAX)
				g_string_append_printf(g, ", latency: %" G_GUINT64_FORMAT "ps",
						       e->lat_ps);
			g_string_append(g, "}\n");
		}
	}
	ok = g_file_set_contents(tmp, g->str, (gssize)g->len, error);
	if (ok && rename(tmp, path)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_IO, "cannot write '%s'", path);
		unlink(tmp);
		ok = false;
	}
	g_string_free(g, TRUE);
	return ok;
}

void config_platform_copy(struct platform *dst, const struct platform *src)
{
	*dst = *src;
	dst->name = g_strdup(src->name);
	if (src->fabric.edges && src->fabric.nedges > 0)
		dst->fabric.edges = g_memdup2(src->fabric.edges,
					      sizeof(struct topo_edge) * (size_t)src->fabric.nedges);
	else
		dst->fabric.edges = NULL;
}

/* ---- Platform files. ---- */

/* Where the topology's parts were set, for the consistency checks. */
struct plat_locs {
	const struct ynode *where;          /* fallback: the mapping being read */
	const struct ynode *kind, *ranks, *dims, *edges;
	GPtrArray *edge_nodes;              /* of const struct ynode *, borrowed */
	bool dims_set, edges_set;
};

static bool read_dims(const struct ctx *c, const struct ynode *n, const char *key,
		      struct platform *p)
{
	if (n->kind != YN_SEQ || n->kids->len != 2)
		return fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a list of two extents such as [4, 4]",
			    key);
	for (int i = 0; i < 2; i++) {
		const struct ynode *d = n->kids->pdata[i];
		int64_t v;
		GError *e = NULL;

		if (!need_scalar(c, d, key))
			return false;
		if (!parse_int(d->text, 1, SCHED_MAX_RANKS, &v, &e)) {
			fail(c, d, CONFIG_ERROR_VALUE, "'%s' %s", key, e->message);
			g_error_free(e);
			return false;
		}
		p->fabric.dims[i] = (int)v;
	}
	return true;
}

static bool read_edges(const struct ctx *c, const struct ynode *n, const char *key,
		       struct platform *p, struct plat_locs *loc)
{
	if (n->kind != YN_SEQ)
		return fail(c, n, CONFIG_ERROR_SCHEMA,
			    "'%s' must be a list of edges such as {a: 0, b: 1}, got %s", key,
			    ynode_kind_name(n));
	GArray *edges = g_array_new(FALSE, TRUE, sizeof(struct topo_edge));

	g_ptr_array_set_size(loc->edge_nodes, 0);
	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *en = n->kids->pdata[i];
		struct topo_edge ed = { .a = -1, .b = -1, .bw_bytes_per_s = 0, .lat_ps = SIM_TIME_MAX };
		g_autofree char *ek = g_strdup_printf("%s[%u]", key, i);

		if (en->kind != YN_MAP) {
			fail(c, en, CONFIG_ERROR_SCHEMA,
			     "'%s' must be a mapping such as {a: 0, b: 1, bandwidth: 450GB/s}, got %s",
			     ek, ynode_kind_name(en));
			goto bad;
		}
		if (!map_check_keys(c, en, ek))
			goto bad;
		for (guint j = 0; j + 1 < en->kids->len; j += 2) {
			const struct ynode *kn = en->kids->pdata[j], *vn = en->kids->pdata[j + 1];
			g_autofree char *full = join_key(ek, kn->text);
			GError *e = NULL;
			int64_t iv;

			if (!need_scalar(c, vn, full))
				goto bad;
			if (!strcmp(kn->text, "a") || !strcmp(kn->text, "b")) {
				if (!parse_int(vn->text, 0, SCHED_MAX_RANKS - 1, &iv, &e))
					goto bad_value;
				*(kn->text[0] == 'a' ? &ed.a : &ed.b) = (int)iv;
			} else if (!strcmp(kn->text, "bandwidth")) {
				if (!units_parse_bw(vn->text, &ed.bw_bytes_per_s, &e))
					goto bad_value;
			} else if (!strcmp(kn->text, "latency")) {
				if (!units_parse_time(vn->text, &ed.lat_ps, &e))
					goto bad_value;
				if (ed.lat_ps > MAX_TIME_PS) {
					fail(c, vn, CONFIG_ERROR_VALUE,
					     "'%s' must be between 0ps and 1000s, got '%s'", full,
					     vn->text);
					goto bad;
				}
			} else {
				fail(c, kn, CONFIG_ERROR_SCHEMA,
				     "unknown key '%s' (known: a, b, bandwidth, latency)", full);
				goto bad;
			}
			continue;
bad_value:
			fail(c, vn, CONFIG_ERROR_VALUE, "'%s' %s", full, e->message);
			g_error_free(e);
			goto bad;
		}
		if (ed.a < 0 || ed.b < 0) {
			fail(c, en, CONFIG_ERROR_SCHEMA, "missing key '%s.%s'", ek, ed.a < 0 ? "a" : "b");
			goto bad;
		}
		if (ed.a == ed.b) {
			fail(c, en, CONFIG_ERROR_VALUE, "'%s' is a self-loop (%d-%d)", ek, ed.a, ed.b);
			goto bad;
		}
		for (guint j = 0; j < edges->len; j++) {
			const struct topo_edge *o = &g_array_index(edges, struct topo_edge, j);

			if ((o->a == ed.a && o->b == ed.b) || (o->a == ed.b && o->b == ed.a)) {
				fail(c, en, CONFIG_ERROR_VALUE, "'%s' (%d-%d) repeats '%s[%u]'", ek,
				     ed.a, ed.b, key, j);
				goto bad;
			}
		}
		g_array_append_val(edges, ed);
		g_ptr_array_add(loc->edge_nodes, (gpointer)en);
	}
	g_free((void *)p->fabric.edges);
	p->fabric.nedges = (int)edges->len;
	p->fabric.edges = (const struct topo_edge *)g_array_free(edges, edges->len == 0);
	return true;
bad:
	g_array_free(edges, TRUE);
	return false;
}

/* Reads the platform keys of mapping m (under `prefix`) into p. Keys listed
 * in `skip` are left to the caller. */
static bool read_platform_map(const struct ctx *c, const struct ynode *m, const char *prefix,
			      const char *const *skip, struct platform *p, uint32_t *explicit_switch,
			      struct plat_locs *loc)
{
	if (!map_check_keys(c, m, prefix))
		return false;
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *kn = m->kids->pdata[i], *vn = m->kids->pdata[i + 1];
		g_autofree char *full = join_key(prefix, kn->text);
		bool skipped = false;

		for (const char *const *s = skip; s && *s; s++)
			if (!strcmp(*s, full))
				skipped = true;
		if (skipped)
			continue;
		if (is_section(full)) {
			if (!need_map(c, vn, full))
				return false;
			if (!read_platform_map(c, vn, full, NULL, p, explicit_switch, loc))
				return false;
			continue;
		}
		if (!strcmp(full, "topology.dims")) {
			if (!read_dims(c, vn, full, p))
				return false;
			loc->dims = vn;
			loc->dims_set = true;
			continue;
		}
		if (!strcmp(full, "topology.edges")) {
			if (!read_edges(c, vn, full, p, loc))
				return false;
			loc->edges = vn;
			loc->edges_set = true;
			continue;
		}
		const struct pkey *k = pkey_find(full);

		if (!k) {
			g_autofree char *known = known_keys(prefix ? prefix : "", skip);

			return fail(c, kn, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)", full,
				    known);
		}
		if (!need_scalar(c, vn, full))
			return false;
		GError *e = NULL;

		if (!pkey_set(p, k, vn->text, explicit_switch, &e)) {
			fail(c, vn, CONFIG_ERROR_VALUE, "'%s' %s", full, e->message);
			g_error_free(e);
			return false;
		}
		if (!strcmp(full, "topology.kind"))
			loc->kind = vn;
		else if (!strcmp(full, "topology.ranks"))
			loc->ranks = vn;
	}
	return true;
}

/* Shape checks that need several keys. */
static bool check_platform(const struct ctx *c, struct platform *p, const struct plat_locs *loc)
{
	struct fabric_config *f = &p->fabric;
	const struct ynode *at_ranks = loc->ranks ? loc->ranks : loc->kind ? loc->kind : loc->where;

	if (loc->dims_set && f->kind != TOPO_TORUS)
		return fail(c, loc->dims, CONFIG_ERROR_VALUE,
			    "'topology.dims' is only for kind torus, not %s",
			    platform_topo_name(f->kind));
	if (loc->edges_set && f->kind != TOPO_EDGES)
		return fail(c, loc->edges, CONFIG_ERROR_VALUE,
			    "'topology.edges' is only for kind edges, not %s",
			    platform_topo_name(f->kind));
	if (f->kind == TOPO_EDGES) {
		if (!f->nedges)
			return fail(c, loc->kind ? loc->kind : loc->where, CONFIG_ERROR_SCHEMA,
				    "'topology.edges' is required when 'topology.kind' is edges");
		int top = 0;

		for (int i = 0; i < f->nedges; i++)
			top = MAX(top, MAX(f->edges[i].a, f->edges[i].b));
		if (!loc->ranks)
			f->nranks = top + 1;
		for (int i = 0; i < f->nedges; i++)
			if (f->edges[i].a >= f->nranks || f->edges[i].b >= f->nranks)
				return fail(c, loc->edge_nodes->pdata[i], CONFIG_ERROR_VALUE,
					    "'topology.edges[%d]' (%d-%d) names a rank outside 0..%d", i,
					    f->edges[i].a, f->edges[i].b, f->nranks - 1);
	}
	GError *e = NULL;

	if (!fabric_shape_check(f, NULL, &e)) {
		bool dims = e->code == LINK_ERROR_DIMS;
		const struct ynode *at = dims && loc->dims ? loc->dims : at_ranks;

		fail(c, at, CONFIG_ERROR_VALUE, "'topology.%s' is not admitted: %s",
		     dims ? "dims" : "ranks", e->message);
		g_error_free(e);
		return false;
	}
	return true;
}

static bool check_schema_version(const struct ctx *c, const struct ynode *root)
{
	const struct ynode *v = map_get(root, "schema_version");

	if (!v)
		return fail(c, root, CONFIG_ERROR_SCHEMA, "missing key 'schema_version' (must be 1)");
	if (!need_scalar(c, v, "schema_version"))
		return false;
	if (strcmp(v->text, "1"))
		return fail(c, v, CONFIG_ERROR_VALUE, "'schema_version' must be 1, got '%s'", v->text);
	return true;
}

/* Parses a platform file; *explicit_switch gets the switch_link keys the
 * file sets itself. */
static bool platform_parse(const char *path, const char *text, size_t len, struct platform *out,
			   uint32_t *explicit_switch, GError **error)
{
	static const char *const skip[] = { "schema_version", "name", NULL };
	struct ctx c = { .path = path, .error = error };
	struct ynode *root = yaml_read(path, text, len, error);
	struct plat_locs loc = { 0 };
	bool ok = false;

	*explicit_switch = 0;

	if (!root)
		return false;
	platform_init_default(out);
	loc.where = root;
	loc.edge_nodes = g_ptr_array_new();
	if (!check_schema_version(&c, root) || !map_check_keys(&c, root, NULL))
		goto out;
	const struct ynode *name = map_get(root, "name");

	if (name) {
		if (!need_scalar(&c, name, "name"))
			goto out;
		g_free(out->name);
		out->name = g_strdup(name->text);
	} else {
		g_autofree char *base = g_path_get_basename(path);
		char *dot = strrchr(base, '.');

		if (dot && dot != base)
			*dot = '\0';
		g_free(out->name);
		out->name = g_strdup(base);
	}
	if (!read_platform_map(&c, root, NULL, skip, out, explicit_switch, &loc))
		goto out;
	ok = check_platform(&c, out, &loc);
out:
	g_ptr_array_free(loc.edge_nodes, TRUE);
	ynode_free(root);
	if (!ok)
		platform_release(out);
	return ok;
}

bool config_platform_parse(const char *path, const char *text, size_t len, struct platform *out,
			   GError **error)
{
	uint32_t explicit_switch;

	return platform_parse(path, text, len, out, &explicit_switch, error);
}

static bool read_file(const char *path, char **text, size_t *len, GError **error)
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

bool config_platform_load(const char *path, struct platform *out, GError **error)
{
	g_autofree char *text = NULL;
	size_t len;

	if (!read_file(path, &text, &len, error))
		return false;
	return config_platform_parse(path, text, len, out, error);
}

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
	return d == DTYPE_FP32 ? 4 : 2;
}

/* Each dtype's other spelling: nccl-tests' (its -d option and its logs). */
static const char *const dtype_nccl[] = { "float", "half", "bfloat16" };

bool dtype_parse(const char *name, enum dtype *out)
{
	for (int d = DTYPE_FP32; d <= DTYPE_BF16; d++)
		if (!strcmp(dtype_name((enum dtype)d), name) || !strcmp(dtype_nccl[d], name)) {
			*out = (enum dtype)d;
			return true;
		}
	return false;
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
	g_ptr_array_unref(e->sweeps);
	g_free(e);
}

static struct experiment *experiment_new(void)
{
	struct experiment *e = g_new0(struct experiment, 1);

	platform_init_default(&e->plat);
	e->colls = g_array_new(FALSE, FALSE, sizeof(enum coll));
	e->algos = g_ptr_array_new_with_free_func(ptr_array_unref);
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
		return fail(c, n, CONFIG_ERROR_SCHEMA, "'%s' must be a list, got %s", key,
			    ynode_kind_name(n));
	if (!n->kids->len)
		return fail(c, n, CONFIG_ERROR_VALUE, "'%s' must not be empty", key);
	if (n->kids->len > CONFIG_MAX_LIST)
		return fail(c, n, CONFIG_ERROR_VALUE, "'%s' has more than %d entries", key,
			    CONFIG_MAX_LIST);
	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *it = n->kids->pdata[i];

		if (it->kind != YN_SCALAR)
			return fail(c, it, CONFIG_ERROR_SCHEMA, "'%s' entries must be single values, got %s",
				    key, ynode_kind_name(it));
		g_ptr_array_add(out, (gpointer)it);
	}
	return true;
}

static bool size_range_error(const char *name, const char *text, const char *why, GError **error)
{
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
		    "%s range '%s' %s (write A..B, A..B xK or A..B +S, e.g. 1KiB..512MiB x4)", name,
		    text, why);
	return false;
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
				    "%s must be at least 1 byte, got '%s'", name, text);
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

		if (!parse_int(step_text, 2, 1024, &f, NULL))
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
	"baseline", "sizes", "ranks", "dtypes", "nchunks", "paxi", "root", "peer", "counts",
	"counts_seed", "seeds", "outputs", "sweep", NULL,
};

static char *coll_known(void)
{
	GString *g = g_string_new(NULL);

	for (int i = 0; i < 8; i++)
		g_string_append_printf(g, "%s%s", i ? ", " : "", coll_name((enum coll)(1 << i)));
	return g_string_free(g, FALSE);
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

		if (!parse_int(it->text, min, max, &v, &e)) {
			fail(c, it, CONFIG_ERROR_VALUE, "'%s' %s", key, e->message);
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
		if (!map_check_keys(c, n, "algorithms"))
			return false;
		if (!colls_node) {
			for (guint i = 0; i + 1 < n->kids->len; i += 2) {
				const struct ynode *k = n->kids->pdata[i];
				enum coll cl;

				if (!coll_parse(k->text, &cl)) {
					g_autofree char *known = coll_known();

					return fail(c, k, CONFIG_ERROR_VALUE,
						    "'algorithms' unknown collective '%s' (known: %s)",
						    k->text, known);
				}
				g_array_append_val(e->colls, cl);
			}
		}
		for (guint i = 0; i + 1 < n->kids->len; i += 2) {
			const struct ynode *k = n->kids->pdata[i];
			enum coll cl;
			bool listed = false;

			if (!coll_parse(k->text, &cl)) {
				g_autofree char *known = coll_known();

				return fail(c, k, CONFIG_ERROR_VALUE,
					    "'algorithms' unknown collective '%s' (known: %s)", k->text,
					    known);
			}
			for (guint j = 0; j < e->colls->len; j++)
				listed |= g_array_index(e->colls, enum coll, j) == cl;
			if (!listed)
				return fail(c, k, CONFIG_ERROR_VALUE,
					    "'algorithms.%s' names a collective not in 'collectives'",
					    k->text);
		}
	} else if (!colls_node) {
		return fail(c, n, CONFIG_ERROR_SCHEMA,
			    "missing key 'collectives' (or write 'algorithms' as a mapping per collective)");
	}
	for (guint ci = 0; ci < e->colls->len; ci++) {
		enum coll cl = g_array_index(e->colls, enum coll, ci);
		const struct ynode *list = n;
		g_autofree char *key = NULL;

		if (n->kind == YN_MAP) {
			list = map_get(n, coll_name(cl));
			if (!list)
				return fail(c, n, CONFIG_ERROR_SCHEMA, "missing key 'algorithms.%s'",
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

			if (!algo_find(cl, it->text, &err)) {
				fail(c, it, CONFIG_ERROR_VALUE, "'%s' %s", key, err->message);
				g_error_free(err);
				return false;
			}
			for (guint j = 0; j < names->len; j++)
				if (!strcmp(names->pdata[j], it->text))
					return fail(c, it, CONFIG_ERROR_VALUE,
						    "'%s' lists '%s' twice", key, it->text);
			g_ptr_array_add(names, g_strdup(it->text));
		}
	}
	return true;
}

static bool read_counts(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	if (n->kind == YN_SCALAR) {
		if (!strcmp(n->text, "equal")) {
			e->counts = COUNTS_EQUAL;
			return true;
		}
		if (!strncmp(n->text, "zipf:", 5)) {
			double s;

			if (!parse_double(n->text + 5, &s) || s <= 0 || s > 10)
				return fail(c, n, CONFIG_ERROR_VALUE,
					    "'counts' zipf exponent must be a number in (0, 10], got '%s'",
					    n->text);
			e->counts = COUNTS_ZIPF;
			e->zipf_s = s;
			return true;
		}
	}
	if (n->kind != YN_SEQ)
		return fail(c, n, CONFIG_ERROR_VALUE,
			    "'counts' must be a list of weights, 'equal' or 'zipf:S' such as zipf:1.2, got %s%s%s%s",
			    n->kind == YN_SCALAR ? "'" : "", n->kind == YN_SCALAR ? n->text : "",
			    n->kind == YN_SCALAR ? "'" : "", n->kind == YN_SCALAR ? "" : ynode_kind_name(n));
	g_autoptr(GPtrArray) items = g_ptr_array_new();
	bool any = false;

	if (!list_items(c, n, "counts", items))
		return false;
	for (guint i = 0; i < items->len; i++) {
		const struct ynode *it = items->pdata[i];
		int64_t v;
		GError *err = NULL;

		if (!parse_int(it->text, 0, 1000000000000ll, &v, &err)) {
			fail(c, it, CONFIG_ERROR_VALUE, "'counts' %s", err->message);
			g_error_free(err);
			return false;
		}
		uint64_t w = (uint64_t)v;

		any |= w > 0;
		g_array_append_val(e->weights, w);
	}
	if (!any)
		return fail(c, n, CONFIG_ERROR_VALUE, "'counts' needs at least one weight above 0");
	e->counts = COUNTS_LIST;
	return true;
}

static bool read_outputs(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	if (!need_map(c, n, "outputs") || !map_check_keys(c, n, "outputs"))
		return false;
	for (guint i = 0; i + 1 < n->kids->len; i += 2) {
		const struct ynode *k = n->kids->pdata[i], *v = n->kids->pdata[i + 1];

		if (!strcmp(k->text, "dir")) {
			if (!need_scalar(c, v, "outputs.dir"))
				return false;
			if (!*v->text)
				return fail(c, v, CONFIG_ERROR_VALUE, "'outputs.dir' must not be empty");
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
					return fail(c, it, CONFIG_ERROR_VALUE,
						    "'outputs.formats' unknown format '%s' (known: h5, csv, png, svg)",
						    it->text);
				e->formats |= bit;
			}
		} else {
			return fail(c, k, CONFIG_ERROR_SCHEMA,
				    "unknown key 'outputs.%s' (known: dir, formats)", k->text);
		}
	}
	return true;
}

static bool read_sweep(const struct ctx *c, struct experiment *e, const struct ynode *n)
{
	if (!need_map(c, n, "sweep") || !map_check_keys(c, n, "sweep"))
		return false;
	if (n->kids->len / 2 > CONFIG_MAX_SWEEPS)
		return fail(c, n, CONFIG_ERROR_VALUE, "'sweep' has more than %d keys", CONFIG_MAX_SWEEPS);
	for (guint i = 0; i + 1 < n->kids->len; i += 2) {
		const struct ynode *k = n->kids->pdata[i], *v = n->kids->pdata[i + 1];
		g_autofree char *full = join_key("sweep", k->text);
		const struct pkey *pk = pkey_find(k->text);
		g_autoptr(GPtrArray) items = g_ptr_array_new();

		if (!pk || pk->type == PK_NAME) {
			g_autofree char *known = NULL;
			GString *g = g_string_new(NULL);

			for (size_t j = 0; j < G_N_ELEMENTS(pkeys); j++)
				if (pkeys[j].type != PK_NAME && strcmp(pkeys[j].key, "topology.ranks"))
					g_string_append_printf(g, "%s%s", g->len ? ", " : "", pkeys[j].key);
			known = g_string_free(g, FALSE);
			return fail(c, k, CONFIG_ERROR_SCHEMA,
				    "unknown sweep key '%s' (known: %s)", k->text, known);
		}
		if (!strcmp(k->text, "topology.ranks"))
			return fail(c, k, CONFIG_ERROR_VALUE,
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
			ok = pkey_set(&scratch, pk, it->text, &mask, &err);
			platform_release(&scratch);
			if (!ok) {
				fail(c, it, CONFIG_ERROR_VALUE, "'%s' %s", full, err->message);
				g_error_free(err);
				return false;
			}
			g_ptr_array_add(s->values, g_strdup(it->text));
		}
	}
	return true;
}

static bool name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

static bool read_experiment(const struct ctx *c, struct experiment *e, const struct ynode *root)
{
	static const char *const required[] = { "platform", "sizes", "algorithms", NULL };
	g_autoptr(GPtrArray) items = g_ptr_array_new();
	const struct ynode *n;

	if (!check_schema_version(c, root) || !map_check_keys(c, root, NULL))
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

			return fail(c, k, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)", k->text,
				    list);
		}
	}
	for (const char *const *x = required; *x; x++)
		if (!map_get(root, *x))
			return fail(c, root, CONFIG_ERROR_SCHEMA, "missing key '%s'", *x);

	/* name */
	if ((n = map_get(root, "name"))) {
		if (!need_scalar(c, n, "name"))
			return false;
		if (!name_ok(n->text))
			return fail(c, n, CONFIG_ERROR_VALUE,
				    "'name' must use letters, digits, '-', '_' and '.', got '%s'", n->text);
		e->name = g_strdup(n->text);
	} else {
		g_autofree char *base = g_path_get_basename(e->path);
		char *dot = strrchr(base, '.');

		if (dot && dot != base)
			*dot = '\0';
		e->name = name_ok(base) ? g_strdup(base) : g_strdup("experiment");
	}

	/* platform + overrides */
	n = map_get(root, "platform");
	if (!need_scalar(c, n, "platform"))
		return false;
	if (!*n->text)
		return fail(c, n, CONFIG_ERROR_VALUE, "'platform' must name a platform file");
	{
		g_autofree char *dir = g_path_get_dirname(e->path);
		size_t len = 0;
		GError *err = NULL;

		e->platform_path = g_path_is_absolute(n->text) ? g_strdup(n->text)
							       : g_build_filename(dir, n->text, NULL);
		if (!read_file(e->platform_path, &e->platform_text, &len, &err)) {
			fail(c, n, CONFIG_ERROR_IO, "'platform' %s", err->message);
			g_error_free(err);
			return false;
		}
		platform_release(&e->plat);
		if (!platform_parse(e->platform_path, e->platform_text, len, &e->plat,
				    &e->explicit_switch, c->error)) {
			platform_init_default(&e->plat);
			return false;
		}
	}
	if ((n = map_get(root, "overrides"))) {
		struct plat_locs loc = { .where = n };
		bool ok;

		if (!need_map(c, n, "overrides"))
			return false;
		loc.edge_nodes = g_ptr_array_new();
		ok = read_platform_map(c, n, NULL, NULL, &e->plat, &e->explicit_switch, &loc);
		if (ok) {
			/* Without new edges or ranks, an edge list keeps the rank
			 * count it was loaded with. */
			if (!loc.edges_set && e->plat.fabric.kind == TOPO_EDGES && !loc.ranks)
				loc.ranks = n;
			ok = check_platform(c, &e->plat, &loc);
		}
		g_ptr_array_free(loc.edge_nodes, TRUE);
		if (!ok)
			return false;
	}

	/* collectives and algorithms */
	const struct ynode *colls = map_get(root, "collectives");

	if (colls) {
		if (!list_items(c, colls, "collectives", items))
			return false;
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			enum coll cl;

			if (!coll_parse(it->text, &cl)) {
				g_autofree char *known = coll_known();

				return fail(c, it, CONFIG_ERROR_VALUE,
					    "'collectives' unknown collective '%s' (known: %s)", it->text,
					    known);
			}
			for (guint j = 0; j < e->colls->len; j++)
				if (g_array_index(e->colls, enum coll, j) == cl)
					return fail(c, it, CONFIG_ERROR_VALUE,
						    "'collectives' lists '%s' twice", it->text);
			g_array_append_val(e->colls, cl);
		}
	}
	if (!read_algorithms(c, e, map_get(root, "algorithms"), colls))
		return false;
	if ((n = map_get(root, "baseline"))) {
		bool found = false;

		if (!need_scalar(c, n, "baseline"))
			return false;
		for (guint i = 0; i < e->algos->len; i++) {
			GPtrArray *names = e->algos->pdata[i];

			for (guint j = 0; j < names->len; j++)
				found |= !strcmp(names->pdata[j], n->text);
		}
		if (!found)
			return fail(c, n, CONFIG_ERROR_VALUE, "'baseline' '%s' is not among 'algorithms'",
				    n->text);
		e->baseline = g_strdup(n->text);
	}

	/* sizes */
	n = map_get(root, "sizes");
	if (!list_items(c, n, "sizes", items))
		return false;
	g_autoptr(GPtrArray) size_nodes = g_ptr_array_new(); /* the entry of each size */

	for (guint i = 0; i < items->len; i++) {
		const struct ynode *it = items->pdata[i];
		GError *err = NULL;

		if (!config_size_range("'sizes'", it->text, e->sizes, &err))
			return fail_with(c, it, err);
		while (size_nodes->len < e->sizes->len)
			g_ptr_array_add(size_nodes, (gpointer)it);
	}

	/* ranks */
	if ((n = map_get(root, "ranks"))) {
		if (!read_int_list(c, n, "ranks", 2, SCHED_MAX_RANKS, e->ranks, sizeof(int)))
			return false;
		g_autoptr(GPtrArray) rn = g_ptr_array_new();

		list_items(c, n, "ranks", rn);
		for (guint i = 0; i < e->ranks->len; i++) {
			int r = g_array_index(e->ranks, int, i);

			struct fabric_config fc = e->plat.fabric;
			GError *err = NULL;

			/* as experiment_point_platform makes it */
			if (fc.dims[0] * fc.dims[1] != r)
				fc.dims[0] = fc.dims[1] = 0;
			fc.nranks = r;
			if (fc.kind != TOPO_EDGES && !fabric_shape_check(&fc, NULL, &err)) {
				fail(c, rn->pdata[i], CONFIG_ERROR_VALUE, "'ranks' %d is not admitted: %s", r, err->message);
				g_error_free(err);
				return false;
			}
			if (e->plat.fabric.kind == TOPO_EDGES && r != e->plat.fabric.nranks)
				return fail(c, rn->pdata[i], CONFIG_ERROR_VALUE,
					    "'ranks' must be %d, the edge list's rank count, got %d",
					    e->plat.fabric.nranks, r);
		}
	}

	/* dtypes */
	if ((n = map_get(root, "dtypes"))) {
		if (!list_items(c, n, "dtypes", items))
			return false;
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			enum dtype d;

			if (!dtype_parse(it->text, &d))
				return fail(c, it, CONFIG_ERROR_VALUE,
					    "'dtypes' unknown dtype '%s' (known: %s)", it->text,
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
				return fail(c, size_nodes->pdata[i], CONFIG_ERROR_VALUE,
					    "'sizes' %" G_GUINT64_FORMAT " bytes is not a whole number of %s elements (%u bytes each)",
					    b, dtype_name(dt), dtype_elem_bytes(dt));
		}

	/* nchunks */
	if ((n = map_get(root, "nchunks"))) {
		if (!read_int_list(c, n, "nchunks", 1, SCHED_MAX_NCHUNKS, e->nchunks, sizeof(uint32_t)))
			return false;
	} else {
		uint32_t one = 1;

		g_array_append_val(e->nchunks, one);
	}

	/* paxi, root, peer */
	if ((n = map_get(root, "paxi"))) {
		if (!need_scalar(c, n, "paxi"))
			return false;
		if (!paxi_kind_parse(n->text, &e->paxi))
			return fail(c, n, CONFIG_ERROR_VALUE,
				    "'paxi' must be transfer or sendrecv, got '%s'", n->text);
		e->paxi_set = true;
	}
	const char *rp[] = { "root", "peer" };

	for (int i = 0; i < 2; i++) {
		int64_t v;
		GError *err = NULL;

		if (!(n = map_get(root, rp[i])))
			continue;
		if (!need_scalar(c, n, rp[i]))
			return false;
		if (!parse_int(n->text, 0, SCHED_MAX_RANKS - 1, &v, &err)) {
			fail(c, n, CONFIG_ERROR_VALUE, "'%s' %s", rp[i], err->message);
			g_error_free(err);
			return false;
		}
		*(i ? &e->peer : &e->root) = (int)v;
	}

	/* seeds */
	if ((n = map_get(root, "seeds"))) {
		if (!list_items(c, n, "seeds", items))
			return false;
		for (guint i = 0; i < items->len; i++) {
			const struct ynode *it = items->pdata[i];
			uint64_t s;
			GError *err = NULL;

			if (!parse_u64(it->text, &s, &err)) {
				fail(c, it, CONFIG_ERROR_VALUE, "'seeds' %s", err->message);
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
	if ((n = map_get(root, "counts_seed"))) {
		GError *err = NULL;

		if (!need_scalar(c, n, "counts_seed"))
			return false;
		if (!parse_u64(n->text, &e->counts_seed, &err)) {
			fail(c, n, CONFIG_ERROR_VALUE, "'counts_seed' %s", err->message);
			g_error_free(err);
			return false;
		}
	}
	if ((n = map_get(root, "counts"))) {
		bool agv = false;

		for (guint i = 0; i < e->colls->len; i++)
			agv |= g_array_index(e->colls, enum coll, i) == COLL_ALLGATHERV;
		if (!agv)
			return fail(c, n, CONFIG_ERROR_VALUE, "'counts' applies only to allgatherv");
		if (!read_counts(c, e, n))
			return false;
		if (e->counts == COUNTS_LIST) {
			GArray *rs = e->ranks;
			guint nr = rs->len ? rs->len : 1;

			for (guint i = 0; i < nr; i++) {
				int r = rs->len ? g_array_index(rs, int, i) : e->plat.fabric.nranks;

				if ((int)e->weights->len != r)
					return fail(c, n, CONFIG_ERROR_VALUE,
						    "'counts' has %u weights, but ranks is %d",
						    e->weights->len, r);
			}
		}
	}

	/* outputs, sweep */
	e->out_dir = g_strdup("results");
	if ((n = map_get(root, "outputs")) && !read_outputs(c, e, n))
		return false;
	if ((n = map_get(root, "sweep")) && !read_sweep(c, e, n))
		return false;

	uint64_t np = experiment_npoints(e);

	if (np > CONFIG_MAX_POINTS)
		return fail(c, root, CONFIG_ERROR_VALUE, "the experiment expands to %" G_GUINT64_FORMAT
			    " points (at most %d)", np, CONFIG_MAX_POINTS);
	return true;
}

struct experiment *config_experiment_parse(const char *path, const char *text, size_t len,
					   GError **error)
{
	struct ctx c = { .path = path, .error = error };
	struct ynode *root = yaml_read(path, text, len, error);
	struct experiment *e;

	if (!root)
		return NULL;
	e = experiment_new();
	e->path = g_strdup(path);
	e->text = g_strndup(text, len);
	if (!read_experiment(&c, e, root)) {
		ynode_free(root);
		experiment_free(e);
		return NULL;
	}
	ynode_free(root);
	return e;
}

struct experiment *config_experiment_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	size_t len;

	if (!read_file(path, &text, &len, error))
		return NULL;
	return config_experiment_parse(path, text, len, error);
}

/* ---- Points. ---- */

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

uint64_t experiment_npoints(const struct experiment *e)
{
	uint64_t algos = 0, n;

	for (guint i = 0; i < e->algos->len; i++)
		algos += ((GPtrArray *)e->algos->pdata[i])->len;
	n = algos;
	for (guint i = 0; i < e->sweeps->len; i++)
		n = mul_sat(n, ((struct config_sweep *)e->sweeps->pdata[i])->values->len);
	n = mul_sat(n, MAX(e->ranks->len, 1u));
	n = mul_sat(n, e->nchunks->len);
	n = mul_sat(n, e->dtypes->len);
	n = mul_sat(n, e->sizes->len);
	n = mul_sat(n, e->seeds->len);
	return n;
}

GArray *experiment_expand(const struct experiment *e)
{
	GArray *pts = g_array_new(FALSE, TRUE, sizeof(struct exp_point));
	guint nsw = e->sweeps->len;
	uint64_t ncombo = 1;

	for (guint i = 0; i < nsw; i++)
		ncombo *= ((struct config_sweep *)e->sweeps->pdata[i])->values->len;
	guint nranks = MAX(e->ranks->len, 1u);

	for (guint ci = 0; ci < e->colls->len; ci++) {
		GPtrArray *algos = e->algos->pdata[ci];

		for (uint64_t combo = 0; combo < ncombo; combo++) {
			struct exp_point pt = { 0 };
			uint64_t rest = combo;

			pt.coll = g_array_index(e->colls, enum coll, ci);
			for (guint s = nsw; s-- > 0;) {
				guint nv = ((struct config_sweep *)e->sweeps->pdata[s])->values->len;

				pt.sweep[s] = (uint32_t)(rest % nv);
				rest /= nv;
			}
			for (guint ri = 0; ri < nranks; ri++) {
				pt.ranks = e->ranks->len ? g_array_index(e->ranks, int, ri)
							 : e->plat.fabric.nranks;
				for (guint ki = 0; ki < e->nchunks->len; ki++) {
					pt.nchunks = g_array_index(e->nchunks, uint32_t, ki);
					for (guint di = 0; di < e->dtypes->len; di++) {
						pt.dtype = g_array_index(e->dtypes, enum dtype, di);
						for (guint ai = 0; ai < algos->len; ai++) {
							pt.algo = algos->pdata[ai];
							for (guint si = 0; si < e->sizes->len; si++) {
								pt.bytes = g_array_index(e->sizes, uint64_t, si);
								for (guint xi = 0; xi < e->seeds->len; xi++) {
									pt.seed = g_array_index(e->seeds, uint64_t, xi);
									pt.index = pts->len;
									g_array_append_val(pts, pt);
								}
							}
						}
					}
				}
			}
		}
	}
	return pts;
}

bool experiment_point_platform(const struct experiment *e, const struct exp_point *pt,
			       struct platform *out, GError **error)
{
	uint32_t mask = e->explicit_switch;

	config_platform_copy(out, &e->plat);
	for (guint s = 0; s < e->sweeps->len; s++) {
		const struct config_sweep *sw = e->sweeps->pdata[s];
		GError *err = NULL;

		if (!pkey_set(out, pkey_find(sw->key), sw->values->pdata[pt->sweep[s]], &mask, &err)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "'sweep.%s' %s", sw->key,
				    err->message);
			g_error_free(err);
			platform_release(out);
			return false;
		}
	}
	if (out->fabric.nranks != pt->ranks) {
		out->fabric.nranks = pt->ranks;
		if (out->fabric.dims[0] * out->fabric.dims[1] != pt->ranks) {
			out->fabric.dims[0] = 0;
			out->fabric.dims[1] = 0;
		}
	}
	return true;
}

uint64_t *experiment_weights(const struct experiment *e, int nranks)
{
	switch (e->counts) {
	case COUNTS_EQUAL:
		return NULL;
	case COUNTS_LIST:
		g_assert((int)e->weights->len == nranks);
		return g_memdup2(e->weights->data, sizeof(uint64_t) * (size_t)nranks);
	case COUNTS_ZIPF:
		return weights_zipf(nranks, e->zipf_s, e->counts_seed);
	}
	return NULL;
}

const char *experiment_baseline(const struct experiment *e, enum coll c)
{
	for (guint i = 0; i < e->colls->len; i++) {
		GPtrArray *names = e->algos->pdata[i];

		if (g_array_index(e->colls, enum coll, i) != c)
			continue;
		if (e->baseline)
			for (guint j = 0; j < names->len; j++)
				if (!strcmp(names->pdata[j], e->baseline))
					return e->baseline;
		return names->len ? names->pdata[0] : NULL;
	}
	return NULL;
}
