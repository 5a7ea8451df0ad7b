/* Platform keys and platform files (config.h, docs/config.md).
 *
 * Platform keys are one table (path, type, field, range); files, experiment
 * overrides, sweeps and `g5 sim`'s flags all set keys through it, so a key
 * means the same thing everywhere. A switch_link key not set explicitly
 * follows its link key. */
#include "sim/config_int.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/util/spell.h"
#include "sim/util/units.h"
#include "sim/util/files.h"
#include "sim/util/quote.h"

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
	PK_TIME_OR, /* time, or the word choices[0] (stored as 0) */
	PK_PROB,    /* double */
	PK_RATIO,   /* double in min..max (both in 1e-6) */
	PK_CHOICE,  /* one of `choices`, stored as its index (uint32_t) */
};

struct pkey {
	const char *key;
	enum pk_type type;
	size_t off, size;
	uint64_t min, max; /* integers, sizes, times, bandwidths; PROB: max in 1e-6 */
	int link_index;    /* link.* and switch_link.*: position in the link keys; else -1 */
	const char *const *choices; /* PK_CHOICE: the names, NULL-terminated; PK_*_OR: its word */
	uint32_t topo_param; /* enum topo_param: only for the topologies that take it */
};

static const char *const handshake_names[] = { "rts", "ready", NULL };
static const char *const reducer_names[] = { "node", "unit", NULL };
static const char *const control_names[] = { "fabric", "oob", NULL };
static const char *const link_word[] = { "link", NULL };
static const char *const reduce_word[] = { "reduce", NULL };
static const char *const proto_word[] = { "proto", NULL };
static const char *const channel_word[] = { "latency", NULL };
static const char *const bool_names[] = { "false", "true", NULL };
static const char *const send_done_names[] = { "response", "landed", NULL }; /* enum paxi_send_done */
static const char *const flag_poll_names[] = { "ctrl_proc", "round", NULL }; /* enum impl_flag_poll */
static const char *const fidelity_names[] = { "packet", "flow", NULL }; /* enum link_fidelity */
/* enum link_flow_arbiter */
static const char *const arbiter_names[] = { "maxmin", "round-robin", "buffers", NULL };
static const char *const routing_names[] = { "default", "lowest", "ecmp", "dmodk", NULL }; /* enum topo_routing */

#define PF(member) offsetof(struct platform, member), sizeof(((struct platform *)0)->member)
#define MAX_TIME_PS 1000000000000000ull   /* 1000 s */
#define MAX_BW 1000000000000000ull        /* 1 PB/s */
#define LINK_KEYS(sec, field, param)                                                       \
	{ sec ".bandwidth", PK_BW, PF(field.bw_bytes_per_s), 1, MAX_BW, 0, NULL, param },             \
	{ sec ".latency", PK_TIME, PF(field.lat_ps), 0, MAX_TIME_PS, 1, NULL, param },                \
	{ sec ".header", PK_SIZE32, PF(field.header_bytes), 0, LINK_MAX_HEADER_BYTES, 2, NULL, param }, \
	{ sec ".packet", PK_SIZE32, PF(field.max_payload_bytes), 1, LINK_MAX_PAYLOAD_BYTES, 3, NULL, param }, \
	{ sec ".credits", PK_U32, PF(field.credits), 0, 1000000, 4, NULL, param },                    \
	{ sec ".credit_return", PK_TIME, PF(field.credit_return_ps), 0, MAX_TIME_PS, 5, NULL, param }, \
	{ sec ".window", PK_U32, PF(field.gbn_window), 1, 1000000, 6, NULL, param },                  \
	{ sec ".timeout", PK_TIME, PF(field.gbn_timeout_ps), 1, MAX_TIME_PS, 7, NULL, param },        \
	{ sec ".error_rate", PK_PROB, PF(field.error_rate), 0, (uint64_t)(LINK_MAX_ERROR_RATE * 1e6), 8, NULL, param }
#define NLINK_KEYS 9

/* The sections of link keys, each a struct link_params: a key of `link`
 * also sets its twins in the others unless they were set explicitly
 * (bit link_index + NLINK_KEYS x (section - 1) of the explicit mask). */
static const char *const link_sections[] = { "link", "switch_link", "scaleout_link" };

/* Every limit below is the one its layer exports (LINK_MAX_*, PAXI_MAX_*,
 * SCHED_MAX_*); a platform runs schedules, so its rank limit is theirs. */
G_STATIC_ASSERT(LINK_MAX_RANKS == SCHED_MAX_RANKS);

static const struct pkey pkeys[] = {
	{ "name", PK_NAME, 0, 0, 0, 0, -1, NULL, 0 },
	{ "topology.kind", PK_TOPO, PF(fabric.topo), 0, 0, -1, NULL, 0 },
	{ "topology.ranks", PK_INT, PF(fabric.nranks), 2, LINK_MAX_RANKS, -1, NULL, 0 },
	{ "topology.leaves", PK_INT, PF(fabric.leaves), 0, LINK_MAX_RANKS, -1, NULL, TOPO_PARAM_CLOS },
	{ "topology.spines", PK_INT, PF(fabric.spines), 0, LINK_MAX_NODES, -1, NULL, TOPO_PARAM_CLOS },
	{ "topology.oversubscription", PK_RATIO, PF(fabric.oversub), 1000000, 64000000, -1, NULL, TOPO_PARAM_OVERSUB },
	{ "topology.routing", PK_CHOICE, PF(fabric.routing), 0, TOPO_ROUTING_DMODK, -1, routing_names, TOPO_PARAM_ROUTING },
	{ "topology.node_ranks", PK_INT, PF(fabric.node_ranks), 0, LINK_MAX_RANKS, -1, NULL, TOPO_PARAM_TIERS },
	{ "topology.groups", PK_INT, PF(fabric.groups), 2, LINK_MAX_RANKS, -1, NULL, TOPO_PARAM_DRAGONFLY },
	{ "topology.group_routers", PK_INT, PF(fabric.group_routers), 1, LINK_MAX_RANKS, -1, NULL, TOPO_PARAM_DRAGONFLY },
	{ "topology.router_ranks", PK_INT, PF(fabric.router_ranks), 1, LINK_MAX_RANKS, -1, NULL, TOPO_PARAM_DRAGONFLY },
	LINK_KEYS("link", fabric.link, 0),
	LINK_KEYS("switch_link", fabric.switch_link, 0),
	LINK_KEYS("scaleout_link", fabric.scaleout_link, TOPO_PARAM_SCALEOUT),
	{ "node.inject", PK_BW0, PF(fabric.node.inject_bytes_per_s), 0, MAX_BW, -1, NULL, 0 },
	{ "node.eject", PK_BW0, PF(fabric.node.eject_bytes_per_s), 0, MAX_BW, -1, NULL, 0 },
	{ "paxi.cdma_units", PK_U32, PF(paxi.cdma_units), 1, PAXI_MAX_CDMA_UNITS, -1, NULL, 0 },
	{ "paxi.slots", PK_U32, PF(paxi.slots), 1, 1000000, -1, NULL, 0 },
	{ "paxi.setup", PK_TIME, PF(paxi.setup_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "paxi.ctrl_proc", PK_TIME, PF(paxi.ctrl_proc_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "paxi.slice", PK_SIZE64, PF(paxi.slice_bytes), 1, 1ull << 40, -1, NULL, 0 },
	{ "paxi.reduce", PK_BW0, PF(paxi.reduce_bytes_per_s), 0, MAX_BW, -1, NULL, 0 },
	{ "paxi.copy", PK_BW_OR, PF(paxi.copy_bytes_per_s), 0, MAX_BW, -1, reduce_word, 0 },
	{ "paxi.handshake", PK_CHOICE, PF(paxi.handshake), 0, 1, -1, handshake_names, 0 },
	{ "paxi.reduce_per", PK_CHOICE, PF(paxi.reduce_per), 0, 1, -1, reducer_names, 0 },
	{ "paxi.staging", PK_CHOICE, PF(paxi.staging), 0, 1, -1, bool_names, 0 },
	{ "paxi.control", PK_CHOICE, PF(paxi.control), 0, 1, -1, control_names, 0 },
	{ "paxi.engine", PK_CHOICE, PF(paxi.engine), 0, 1, -1, bool_names, 0 },
	{ "paxi.setup_recv", PK_CHOICE, PF(paxi.setup_recv), 0, 1, -1, bool_names, 0 },
	{ "proto.simple.channel_bw", PK_BW0, PF(paxi.protos[PAXI_PROTO_SIMPLE].channel_bw_bytes_per_s), 0, MAX_BW, -1, NULL, 0 },
	{ "proto.simple.latency", PK_TIME, PF(paxi.protos[PAXI_PROTO_SIMPLE].lat_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "proto.simple.launch", PK_TIME, PF(paxi.protos[PAXI_PROTO_SIMPLE].launch_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "proto.ll.channel_bw", PK_BW0, PF(paxi.protos[PAXI_PROTO_LL].channel_bw_bytes_per_s), 0, MAX_BW, -1, NULL, 0 },
	{ "proto.ll.latency", PK_TIME, PF(paxi.protos[PAXI_PROTO_LL].lat_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "proto.ll.launch", PK_TIME, PF(paxi.protos[PAXI_PROTO_LL].launch_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "proto.ll128.channel_bw", PK_BW0, PF(paxi.protos[PAXI_PROTO_LL128].channel_bw_bytes_per_s), 0, MAX_BW, -1, NULL, 0 },
	{ "proto.ll128.latency", PK_TIME, PF(paxi.protos[PAXI_PROTO_LL128].lat_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "proto.ll128.launch", PK_TIME, PF(paxi.protos[PAXI_PROTO_LL128].launch_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "overhead", PK_TIME, PF(overhead_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "overhead_mpi", PK_TIME, PF(overhead_mpi_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "issue", PK_TIME, PF(issue_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "issue_mpi", PK_TIME, PF(issue_mpi_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "channels.bytes", PK_SIZE64, PF(channel_bytes), 1, 1ull << 40, -1, NULL, 0 },
	{ "channels.max", PK_U32, PF(max_channels), 0, 65536, -1, NULL, 0 },
	{ "channels.bw", PK_BW_OR, PF(channel_bw_bytes_per_s), 0, MAX_BW, -1, proto_word, 0 },
	{ "channels.latency", PK_TIME_OR, PF(channel_lat_ps), 0, MAX_TIME_PS, -1, proto_word, 0 },
	{ "channels.local_latency", PK_TIME_OR, PF(local_lat_ps), 0, MAX_TIME_PS, -1, channel_word, 0 },
	{ "channels.send_done", PK_CHOICE, PF(send_done), 0, PAXI_SEND_DONE_LANDED, -1, send_done_names, 0 },
	{ "channels.spread", PK_TIME, PF(channel_spread_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "channels.flag_poll", PK_CHOICE, PF(flag_poll), 0, IMPL_FLAG_POLL_ROUND, -1, flag_poll_names, 0 },
	{ "channels.ready_latency", PK_TIME, PF(ready_lat_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.overhead", PK_TIME, PF(nccl.overhead_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.overhead_mpi", PK_TIME, PF(nccl.overhead_mpi_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.issue", PK_TIME, PF(nccl.issue_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.issue_mpi", PK_TIME, PF(nccl.issue_mpi_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.issue_task", PK_TIME, PF(nccl.issue_task_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.issue_task_mpi", PK_TIME, PF(nccl.issue_task_mpi_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "nccl.channel_bytes", PK_SIZE64, PF(nccl.channel_bytes), 1, 1ull << 40, -1, NULL, 0 },
	{ "nccl.channels_max", PK_U32, PF(nccl.max_channels), 0, 65536, -1, NULL, 0 },
	{ "alpha", PK_TIME, PF(alpha_ps), 0, MAX_TIME_PS, -1, NULL, 0 },
	{ "beta", PK_BW_OR, PF(beta_bytes_per_s), 0, MAX_BW, -1, link_word, 0 },
	{ "fidelity", PK_CHOICE, PF(fabric.fidelity), 0, LINK_FIDELITY_FLOW, -1, fidelity_names, 0 },
	{ "flow.arbiter", PK_CHOICE, PF(fabric.flow_arbiter), 0, LINK_FLOW_BUFFERS, -1,
	  arbiter_names, 0 },
};

/* Sections and the keys of each, for "unknown key" messages. */
static const char *const sections[] = { "topology", "link", "switch_link", "scaleout_link",
					"node", "paxi",
					"proto", "proto.simple", "proto.ll", "proto.ll128",
					"channels", "nccl", "flow" };

const struct pkey *cfg_pkey_find(const char *key)
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
		g_string_append(g, ", dims, edges, switches, ports");
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
	case PK_TIME_OR:
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
		    lo, hi, quote_text(value).s);
	return false;
}

/* After link key k has been set: marks a switch_link or scaleout_link key
 * explicit in *explicit_mask (may be NULL), or copies a link key to its
 * twins that were not set explicitly (with a NULL mask: to all). */
static void link_twins(struct platform *p, const struct pkey *k, uint32_t *explicit_mask)
{
	size_t len = strcspn(k->key, ".");

	for (size_t s = 1; s < G_N_ELEMENTS(link_sections); s++)
		if (strlen(link_sections[s]) == len && !strncmp(k->key, link_sections[s], len)) {
			if (explicit_mask)
				*explicit_mask |= 1u << (k->link_index + NLINK_KEYS * (s - 1));
			return;
		}
	for (size_t s = 1; s < G_N_ELEMENTS(link_sections); s++) {
		uint32_t bit = 1u << (k->link_index + NLINK_KEYS * (s - 1));
		g_autofree char *twin = g_strdup_printf("%s%s", link_sections[s], k->key + len);
		const struct pkey *t = cfg_pkey_find(twin);

		g_assert(t && t->size == k->size);
		if (!explicit_mask || !(*explicit_mask & bit))
			memcpy((char *)p + t->off, (char *)p + k->off, k->size);
	}
}

/* Sets key k of p from `value`. The message of an error has no key and no
 * location. `explicit_switch` (may be NULL) tracks the switch_link and
 * scaleout_link keys set explicitly: a link key also sets its twins unless
 * they were. */
bool cfg_pkey_set(struct platform *p, const struct pkey *k, const char *value,
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
		const struct topo_ops *t = topo_find(value, NULL);

		if (!t) {
			g_autofree char *known = topo_known_names();
			g_autofree char *hint = spell_hint(value, known);

			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a topology (known: %s), got '%s'%s", known, quote_text(value).s, hint);
			return false;
		}
		p->fabric.topo = t;
		return true;
	}
	case PK_INT: {
		int64_t i;

		if (!cfg_parse_int(value, (int64_t)k->min, (int64_t)k->max, &i, error))
			return false;
		int w = (int)i;

		memcpy((char *)p + k->off, &w, sizeof(w));
		return true;
	}
	case PK_U32: {
		int64_t i;

		if (!cfg_parse_int(value, (int64_t)k->min, (int64_t)k->max, &i, error))
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
				    k->choices[0], quote_text(value).s);
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
				    quote_text(value).s);
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
	case PK_TIME_OR:
		if (!strcmp(value, k->choices[0])) {
			v = 0;
			break;
		}
		/* fall through */
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
				    "must be one of %s, got '%s'", known, quote_text(value).s);
			return false;
		}
		break;
	case PK_RATIO: {
		double d;
		const char *colon = strchr(value, ':');
		g_autofree char *num = g_strdup(value);

		/* "2:1" reads as 2 */
		if (colon && !strcmp(colon, ":1"))
			num[colon - value] = '\0';
		if (!cfg_parse_double(num, &d) || !(d >= (double)k->min * 1e-6 && d <= (double)k->max * 1e-6)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a ratio between %g and %g such as 2 or 2:1, got '%s'",
				    (double)k->min * 1e-6, (double)k->max * 1e-6, quote_text(value).s);
			return false;
		}
		memcpy((char *)p + k->off, &d, sizeof(d));
		return true;
	}
	case PK_PROB: {
		double d;

		if (!cfg_parse_double(value, &d)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be a number such as 0.001, got '%s'", quote_text(value).s);
			return false;
		}
		if (d < 0 || d > (double)k->max * 1e-6) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "must be between 0 and %g, got '%s'", (double)k->max * 1e-6, quote_text(value).s);
			return false;
		}
		memcpy((char *)p + k->off, &d, sizeof(d));
		goto twin;
	}
	}
	store(p, k, v);
twin:
	if (k->link_index >= 0)
		link_twins(p, k, explicit_switch);
	return true;
wrap:
	g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "%s", e->message);
	g_error_free(e);
	return false;
}

bool config_platform_key_known(const char *key)
{
	return cfg_pkey_find(key) != NULL;
}

bool config_platform_set_as(struct platform *p, const char *key, const char *name,
			    const char *value, GError **error)
{
	const struct pkey *k = cfg_pkey_find(key);
	GError *e = NULL;

	if (!k) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA, "unknown platform key '%s'", quote_text(key).s);
		return false;
	}
	if (!cfg_pkey_set(p, k, value, NULL, &e)) {
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
	case PK_TIME_OR:
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
	const struct pkey *k = cfg_pkey_find(key);

	if (!k || !pkey_numeric(k)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    k ? "platform key '%s' is not a number" : "unknown platform key '%s'", quote_text(key).s);
		return false;
	}
	*value = (double)load(p, k);
	return true;
}

bool config_platform_set_num(struct platform *p, const char *key, double value, GError **error)
{
	const struct pkey *k = cfg_pkey_find(key);

	if (!k || !pkey_numeric(k)) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    k ? "platform key '%s' is not a number" : "unknown platform key '%s'", quote_text(key).s);
		return false;
	}
	if (!isfinite(value) || value < (double)k->min || value > (double)k->max) {
		g_autofree char *lo = fmt_bound(k, k->min), *hi = fmt_bound(k, k->max);

		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
			    "'%s' must be between %s and %s, got %g", key, lo, hi, value);
		return false;
	}
	store(p, k, (uint64_t)llround(value));
	if (k->link_index >= 0 && !strncmp(k->key, "link.", 5))
		link_twins(p, k, NULL);
	return true;
}

/* A value as the platform file writes it (exact, in the key's unit). */
static char *fmt_value(const struct platform *p, const struct pkey *k)
{
	switch (k->type) {
	case PK_NAME:
		return g_strdup(p->name);
	case PK_TOPO:
		return g_strdup(topo_name(p->fabric.topo));
	case PK_INT: {
		int v;

		memcpy(&v, (const char *)p + k->off, sizeof(v));
		return g_strdup_printf("%d", v);
	}
	case PK_CHOICE:
		return g_strdup(k->choices[load(p, k)]);
	case PK_RATIO:
		if (!memcmp(&(double){ 0 }, (const char *)p + k->off, sizeof(double)))
			return g_strdup("1");
		/* fall through */
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
	case PK_TIME_OR:
		if (!load(p, k))
			return g_strdup(k->choices[0]);
		/* fall through */
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
	bool ok;

	for (char **l = lines; *l; l++)
		if (**l || l[1])
			g_string_append_printf(g, "# %s\n", *l);
	g_string_append(g, "schema_version: 1\n");
	for (size_t i = 0; i < G_N_ELEMENTS(pkeys); i++) {
		const struct pkey *k = &pkeys[i];

		if (k->topo_param && !(topo_takes(p->fabric.topo, (enum topo_param)k->topo_param)))
			continue;
		g_autofree char *v = fmt_value(p, k);

		if (k->type == PK_NAME) {
			g_autofree char *q = g_strescape(v, NULL);

			g_string_append_printf(g, "%s: \"%s\"\n", k->key, q);
		} else {
			g_string_append_printf(g, "%s: %s\n", k->key, v);
		}
	}
	if (topo_takes(p->fabric.topo, TOPO_PARAM_DIMS) && fabric_dims_count(&p->fabric)) {
		g_string_append(g, "topology.dims: [");
		for (int i = 0; i < fabric_dims_count(&p->fabric); i++)
			g_string_append_printf(g, "%s%d", i ? ", " : "", p->fabric.dims[i]);
		g_string_append(g, "]\n");
	}
	if (topo_takes(p->fabric.topo, TOPO_PARAM_EDGES)) {
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
		if (p->fabric.nswitches) {
			g_string_append(g, "topology.switches: [");
			for (int i = 0; i < p->fabric.nswitches; i++)
				g_string_append_printf(g, "%s%d", i ? ", " : "", p->fabric.switches[i]);
			g_string_append(g, "]\n");
		}
	}
	if (topo_takes(p->fabric.topo, TOPO_PARAM_PORTS) && p->fabric.nports) {
		g_string_append(g, "topology.ports: [");
		for (int i = 0; i < p->fabric.nports; i++)
			g_string_append_printf(g, "%s%" G_GUINT64_FORMAT "B/s", i ? ", " : "",
					       p->fabric.ports[i]);
		g_string_append(g, "]\n");
	}
	ok = files_write(path, g->str, g->len, error);
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
	if (src->fabric.switches && src->fabric.nswitches > 0)
		dst->fabric.switches = g_memdup2(src->fabric.switches,
						 sizeof(int) * (size_t)src->fabric.nswitches);
	else
		dst->fabric.switches = NULL;
	if (src->fabric.ports && src->fabric.nports > 0)
		dst->fabric.ports = g_memdup2(src->fabric.ports,
					      sizeof(uint64_t) * (size_t)src->fabric.nports);
	else
		dst->fabric.ports = NULL;
}

bool cfg_pkey_sweepable(const struct pkey *k)
{
	return k->type != PK_NAME;
}

char *cfg_sweep_keys(void)
{
	GString *g = g_string_new(NULL);

	/* topology.ranks is a scalar key, swept through 'ranks' instead */
	for (size_t j = 0; j < G_N_ELEMENTS(pkeys); j++)
		if (cfg_pkey_sweepable(&pkeys[j]) && strcmp(pkeys[j].key, "topology.ranks"))
			g_string_append_printf(g, "%s%s", g->len ? ", " : "", pkeys[j].key);
	return g_string_free(g, FALSE);
}

/* ---- Platform files. ---- */


static bool read_dims(const struct ctx *c, const struct ynode *n, const char *key,
		      struct platform *p)
{
	if (n->kind != YN_SEQ || n->kids->len < 1 || n->kids->len > LINK_MAX_DIMS)
		return cfg_fail(c, n, CONFIG_ERROR_SCHEMA,
			    "'%s' must be a list of 1 to %d extents such as [4, 4, 4]", key,
			    LINK_MAX_DIMS);
	memset(p->fabric.dims, 0, sizeof(p->fabric.dims));
	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *d = n->kids->pdata[i];
		int64_t v;
		GError *e = NULL;

		if (!cfg_need_scalar(c, d, key))
			return false;
		if (!cfg_parse_int(d->text, 1, SCHED_MAX_RANKS, &v, &e)) {
			cfg_fail(c, d, CONFIG_ERROR_VALUE, "'%s' %s", key, e->message);
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
		return cfg_fail(c, n, CONFIG_ERROR_SCHEMA,
			    "'%s' must be a list of edges such as {a: 0, b: 1}, got %s", key,
			    cfg_ynode_kind_name(n));
	GArray *edges = g_array_new(FALSE, TRUE, sizeof(struct topo_edge));

	g_ptr_array_set_size(loc->edge_nodes, 0);
	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *en = n->kids->pdata[i];
		struct topo_edge ed = { .a = -1, .b = -1, .bw_bytes_per_s = 0, .lat_ps = SIM_TIME_MAX };
		g_autofree char *ek = g_strdup_printf("%s[%u]", key, i);

		if (en->kind != YN_MAP) {
			cfg_fail(c, en, CONFIG_ERROR_SCHEMA,
			     "'%s' must be a mapping such as {a: 0, b: 1, bandwidth: 450GB/s}, got %s",
			     ek, cfg_ynode_kind_name(en));
			goto bad;
		}
		if (!cfg_map_check_keys(c, en, ek))
			goto bad;
		for (guint j = 0; j + 1 < en->kids->len; j += 2) {
			const struct ynode *kn = en->kids->pdata[j], *vn = en->kids->pdata[j + 1];
			g_autofree char *full = cfg_join_key(ek, kn->text);
			GError *e = NULL;
			int64_t iv;

			if (!cfg_need_scalar(c, vn, full))
				goto bad;
			if (!strcmp(kn->text, "a") || !strcmp(kn->text, "b")) {
				if (!cfg_parse_int(vn->text, 0, LINK_MAX_NODES - 1, &iv, &e))
					goto bad_value;
				*(kn->text[0] == 'a' ? &ed.a : &ed.b) = (int)iv;
			} else if (!strcmp(kn->text, "bandwidth")) {
				if (!units_parse_bw(vn->text, &ed.bw_bytes_per_s, &e))
					goto bad_value;
			} else if (!strcmp(kn->text, "latency")) {
				if (!units_parse_time(vn->text, &ed.lat_ps, &e))
					goto bad_value;
				if (ed.lat_ps > MAX_TIME_PS) {
					cfg_fail(c, vn, CONFIG_ERROR_VALUE,
					     "'%s' must be between 0ps and 1000s, got '%s'", full,
					     quote_text(vn->text).s);
					goto bad;
				}
			} else {
				cfg_fail(c, kn, CONFIG_ERROR_SCHEMA,
				     "unknown key '%s' (known: a, b, bandwidth, latency)", quote_text(full).s);
				goto bad;
			}
			continue;
bad_value:
			cfg_fail(c, vn, CONFIG_ERROR_VALUE, "'%s' %s", full, e->message);
			g_error_free(e);
			goto bad;
		}
		if (ed.a < 0 || ed.b < 0) {
			cfg_fail(c, en, CONFIG_ERROR_SCHEMA, "missing key '%s.%s'", ek, ed.a < 0 ? "a" : "b");
			goto bad;
		}
		if (ed.a == ed.b) {
			cfg_fail(c, en, CONFIG_ERROR_VALUE, "'%s' is a self-loop (%d-%d)", ek, ed.a, ed.b);
			goto bad;
		}
		for (guint j = 0; j < edges->len; j++) {
			const struct topo_edge *o = &g_array_index(edges, struct topo_edge, j);

			if ((o->a == ed.a && o->b == ed.b) || (o->a == ed.b && o->b == ed.a)) {
				cfg_fail(c, en, CONFIG_ERROR_VALUE, "'%s' (%d-%d) repeats '%s[%u]'", ek,
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

/* topology.switches: a list of distinct node ids. */
static bool read_switches(const struct ctx *c, const struct ynode *n, const char *key,
			  struct platform *p)
{
	if (n->kind != YN_SEQ)
		return cfg_fail(c, n, CONFIG_ERROR_SCHEMA,
			    "'%s' must be a list of node ids such as [8, 9], got %s", key,
			    cfg_ynode_kind_name(n));
	g_autofree int *ids = g_new(int, n->kids->len + 1);

	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *d = n->kids->pdata[i];
		int64_t v;
		GError *e = NULL;

		if (!cfg_need_scalar(c, d, key))
			return false;
		if (!cfg_parse_int(d->text, 0, LINK_MAX_NODES - 1, &v, &e)) {
			cfg_fail(c, d, CONFIG_ERROR_VALUE, "'%s' %s", key, e->message);
			g_error_free(e);
			return false;
		}
		for (guint j = 0; j < i; j++)
			if (ids[j] == (int)v)
				return cfg_fail(c, d, CONFIG_ERROR_VALUE, "'%s' lists node %d twice", key,
					    (int)v);
		ids[i] = (int)v;
	}
	g_free((void *)p->fabric.switches);
	p->fabric.nswitches = (int)n->kids->len;
	p->fabric.switches = n->kids->len ? g_steal_pointer(&ids) : NULL;
	return true;
}

/* topology.ports: a bandwidth per rank. */
static bool read_ports(const struct ctx *c, const struct ynode *n, const char *key,
		       struct platform *p)
{
	if (n->kind != YN_SEQ || !n->kids->len)
		return cfg_fail(c, n, CONFIG_ERROR_SCHEMA,
			    "'%s' must be a list of bandwidths such as [450GB/s, 100GB/s], got %s", key,
			    cfg_ynode_kind_name(n));
	g_autofree uint64_t *bw = g_new(uint64_t, n->kids->len);

	for (guint i = 0; i < n->kids->len; i++) {
		const struct ynode *d = n->kids->pdata[i];
		GError *e = NULL;

		if (!cfg_need_scalar(c, d, key))
			return false;
		if (!units_parse_bw(d->text, &bw[i], &e)) {
			cfg_fail(c, d, CONFIG_ERROR_VALUE, "'%s[%u]' %s", key, i, e->message);
			g_error_free(e);
			return false;
		}
		if (!bw[i] || bw[i] > MAX_BW)
			return cfg_fail(c, d, CONFIG_ERROR_VALUE,
				    "'%s[%u]' must be between 1B/s and 1PB/s, got '%s'", key, i,
				    quote_text(d->text).s);
	}
	g_free((void *)p->fabric.ports);
	p->fabric.nports = (int)n->kids->len;
	p->fabric.ports = g_steal_pointer(&bw);
	return true;
}

/* Reads the platform keys of mapping m (under `prefix`) into p. Keys listed
 * in `skip` are left to the caller. */
bool cfg_read_platform_map(const struct ctx *c, const struct ynode *m, const char *prefix,
			      const char *const *skip, struct platform *p, uint32_t *explicit_switch,
			      struct plat_locs *loc)
{
	if (!cfg_map_check_keys(c, m, prefix))
		return false;
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *kn = m->kids->pdata[i], *vn = m->kids->pdata[i + 1];
		g_autofree char *full = cfg_join_key(prefix, kn->text);
		bool skipped = false;

		for (const char *const *s = skip; s && *s; s++)
			if (!strcmp(*s, full))
				skipped = true;
		if (skipped)
			continue;
		if (is_section(full)) {
			if (!cfg_need_map(c, vn, full))
				return false;
			if (!cfg_read_platform_map(c, vn, full, NULL, p, explicit_switch, loc))
				return false;
			continue;
		}
		/* the same key nested and dotted (link: {bandwidth: ...} and
		 * link.bandwidth: ...) would be last-wins */
		if (loc->seen && !g_hash_table_add(loc->seen, g_strdup(full)))
			return cfg_fail(c, kn, CONFIG_ERROR_SCHEMA,
				    "duplicate key '%s' (given before, nested or dotted)", quote_text(full).s);
		if (!strcmp(full, "topology.dims")) {
			if (!read_dims(c, vn, full, p))
				return false;
			loc->dims = vn;
			loc->dims_set = true;
			continue;
		}
		if (!strcmp(full, "topology.ports")) {
			if (!read_ports(c, vn, full, p))
				return false;
			loc->param_at[g_bit_nth_lsf(TOPO_PARAM_PORTS, -1)] = vn;
			loc->param_key[g_bit_nth_lsf(TOPO_PARAM_PORTS, -1)] = "topology.ports";
			continue;
		}
		if (!strcmp(full, "topology.switches")) {
			if (!read_switches(c, vn, full, p))
				return false;
			loc->switches = vn;
			loc->switches_set = true;
			continue;
		}
		if (!strcmp(full, "topology.edges")) {
			if (!read_edges(c, vn, full, p, loc))
				return false;
			loc->edges = vn;
			loc->edges_set = true;
			continue;
		}
		const struct pkey *k = cfg_pkey_find(full);

		if (!k) {
			g_autofree char *known = known_keys(prefix ? prefix : "", skip);
			g_autofree char *hint = spell_hint(kn->text, known);

			return cfg_fail(c, kn, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)%s", quote_text(full).s,
				    known, hint);
		}
		if (!cfg_need_scalar(c, vn, full))
			return false;
		GError *e = NULL;

		if (!cfg_pkey_set(p, k, vn->text, explicit_switch, &e)) {
			cfg_fail(c, vn, CONFIG_ERROR_VALUE, "'%s' %s", full, e->message);
			g_error_free(e);
			return false;
		}
		if (k->topo_param) {
			int bit = g_bit_nth_lsf(k->topo_param, -1);

			loc->param_at[bit] = vn;
			loc->param_key[bit] = k->key;
		}
		if (!strcmp(full, "topology.kind"))
			loc->kind = vn;
		else if (!strcmp(full, "topology.ranks"))
			loc->ranks = vn;
	}
	return true;
}

/* Shape checks that need several keys. */
bool cfg_check_platform(const struct ctx *c, struct platform *p, const struct plat_locs *loc)
{
	struct fabric_config *f = &p->fabric;
	const struct ynode *at_ranks = loc->ranks ? loc->ranks : loc->kind ? loc->kind : loc->where;

	if (loc->dims_set && !topo_takes(f->topo, TOPO_PARAM_DIMS)) {
		g_autofree char *kinds = topo_names_taking(TOPO_PARAM_DIMS);

		return cfg_fail(c, loc->dims, CONFIG_ERROR_VALUE,
			    "'topology.dims' is only for kind %s, not %s", kinds, topo_name(f->topo));
	}
	if (loc->edges_set && !topo_takes(f->topo, TOPO_PARAM_EDGES)) {
		g_autofree char *kinds = topo_names_taking(TOPO_PARAM_EDGES);

		return cfg_fail(c, loc->edges, CONFIG_ERROR_VALUE,
			    "'topology.edges' is only for kind %s, not %s", kinds, topo_name(f->topo));
	}
	for (int bit = 0; bit < (int)G_N_ELEMENTS(loc->param_at); bit++)
		if (loc->param_at[bit] && !topo_takes(f->topo, (enum topo_param)(1u << bit))) {
			g_autofree char *kinds = topo_names_taking((enum topo_param)(1u << bit));

			return cfg_fail(c, loc->param_at[bit], CONFIG_ERROR_VALUE,
				    "'%s' is only for kind %s, not %s", loc->param_key[bit], kinds,
				    topo_name(f->topo));
		}
	if (loc->switches_set && !topo_takes(f->topo, TOPO_PARAM_EDGES)) {
		g_autofree char *kinds = topo_names_taking(TOPO_PARAM_EDGES);

		return cfg_fail(c, loc->switches, CONFIG_ERROR_VALUE,
			    "'topology.switches' is only for kind %s, not %s", kinds, topo_name(f->topo));
	}
	if (topo_takes(f->topo, TOPO_PARAM_EDGES)) {
		if (!f->nedges)
			return cfg_fail(c, loc->kind ? loc->kind : loc->where, CONFIG_ERROR_SCHEMA,
				    "'topology.edges' is required when 'topology.kind' is %s",
				    topo_name(f->topo));
		int top = 0, ns = f->nswitches;

		for (int i = 0; i < f->nedges; i++)
			top = MAX(top, MAX(f->edges[i].a, f->edges[i].b));
		for (int i = 0; i < ns; i++)
			top = MAX(top, f->switches[i]);
		/* The nodes are 0..top: the switches and the ranks. */
		if (!loc->ranks)
			f->nranks = top + 1 - ns;
		else if (ns && f->nranks != top + 1 - ns)
			return cfg_fail(c, loc->ranks, CONFIG_ERROR_VALUE,
				    "'topology.ranks' must be %d, the nodes 0..%d less the %d switches, got %d",
				    top + 1 - ns, top, ns, f->nranks);
		if (f->nranks < 2)
			return cfg_fail(c, loc->switches ? loc->switches : at_ranks, CONFIG_ERROR_VALUE,
				    "'topology.switches' leaves %d ranks of the nodes 0..%d, a fabric needs 2",
				    f->nranks, top);
		for (int i = 0; i < f->nedges; i++)
			if (f->edges[i].a >= f->nranks + ns || f->edges[i].b >= f->nranks + ns)
				return cfg_fail(c, loc->edge_nodes->pdata[i], CONFIG_ERROR_VALUE,
					    "'topology.edges[%d]' (%d-%d) names a rank outside 0..%d", i,
					    f->edges[i].a, f->edges[i].b, f->nranks - 1);
	}
	const struct ynode *ports = loc->param_at[g_bit_nth_lsf(TOPO_PARAM_PORTS, -1)];

	if (ports && f->nports != f->nranks)
		return cfg_fail(c, ports, CONFIG_ERROR_VALUE,
			    "'topology.ports' must give one bandwidth per rank, %d, got %d", f->nranks,
			    f->nports);
	GError *e = NULL;

	if (!fabric_shape_check(f, NULL, &e)) {
		bool dims = e->code == LINK_ERROR_DIMS, edges = e->code == LINK_ERROR_EDGES;
		const struct ynode *at = dims && loc->dims ? loc->dims
				       : edges && loc->edges ? loc->edges
				       : edges && loc->switches ? loc->switches : at_ranks;

		cfg_fail(c, at, CONFIG_ERROR_VALUE, "'topology.%s' is not admitted: %s",
		     dims ? "dims" : edges ? "edges" : "ranks", e->message);
		g_error_free(e);
		return false;
	}
	return true;
}

bool cfg_check_schema_version(const struct ctx *c, const struct ynode *root)
{
	const struct ynode *v = cfg_map_get(root, "schema_version");

	if (!v)
		return cfg_fail(c, root, CONFIG_ERROR_SCHEMA, "missing key 'schema_version' (must be 1)");
	if (!cfg_need_scalar(c, v, "schema_version"))
		return false;
	if (strcmp(v->text, "1"))
		return cfg_fail(c, v, CONFIG_ERROR_VALUE, "'schema_version' must be 1, got '%s'", quote_text(v->text).s);
	return true;
}

/* Parses a platform file; *explicit_switch gets the switch_link keys the
 * file sets itself. */
bool cfg_platform_parse(const char *path, const char *text, size_t len, struct platform *out,
			   uint32_t *explicit_switch, GError **error)
{
	static const char *const skip[] = { "schema_version", "name", NULL };
	struct ctx c = { .path = path, .error = error };
	struct ynode *root = cfg_yaml_read(path, text, len, error);
	struct plat_locs loc = { 0 };
	bool ok = false;

	*explicit_switch = 0;

	if (!root)
		return false;
	platform_init_default(out);
	loc.where = root;
	loc.edge_nodes = g_ptr_array_new();
	loc.seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (!cfg_check_schema_version(&c, root) || !cfg_map_check_keys(&c, root, NULL))
		goto out;
	const struct ynode *name = cfg_map_get(root, "name");

	if (name) {
		if (!cfg_need_scalar(&c, name, "name"))
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
	if (!cfg_read_platform_map(&c, root, NULL, skip, out, explicit_switch, &loc))
		goto out;
	ok = cfg_check_platform(&c, out, &loc);
out:
	g_ptr_array_free(loc.edge_nodes, TRUE);
	g_hash_table_unref(loc.seen);
	cfg_ynode_free(root);
	if (!ok)
		platform_release(out);
	return ok;
}

bool config_platform_parse(const char *path, const char *text, size_t len, struct platform *out,
			   GError **error)
{
	uint32_t explicit_switch;

	return cfg_platform_parse(path, text, len, out, &explicit_switch, error);
}


bool config_platform_load(const char *path, struct platform *out, GError **error)
{
	g_autofree char *text = NULL;
	size_t len;

	if (!cfg_read_file(path, &text, &len, error))
		return false;
	return config_platform_parse(path, text, len, out, error);
}
