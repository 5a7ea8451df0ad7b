/* sim/config_int — what the parts of sim/config share, private to them
 * (config_yaml.c: the YAML tree and node checks; config_platform.c: the
 * platform key table and platform files; config.c: experiment files;
 * config_points.c: point expansion). Not for other modules: they use
 * config.h. */
#ifndef G5_SIM_CONFIG_INT_H
#define G5_SIM_CONFIG_INT_H

#include <stdarg.h>

#include "sim/config.h"

/* ---- config_yaml.c ---- */

enum ynode_kind { YN_SCALAR, YN_SEQ, YN_MAP };

struct ynode {
	enum ynode_kind kind;
	int line, col;   /* 1-based */
	char *text;      /* scalar: owned */
	GPtrArray *kids; /* seq: items; map: key, value, key, value, ...; owned */
};

/* Where errors go: the file's name for messages, and the caller's error. */
struct ctx {
	const char *path;
	GError **error;
};

/* Reads YAML text into a tree (bounded: CONFIG_MAX_* of config.h; aliases
 * refused); NULL with error set. Free with cfg_ynode_free. */
struct ynode *cfg_yaml_read(const char *path, const char *text, size_t len, GError **error);
void cfg_ynode_free(gpointer p);
const char *cfg_ynode_kind_name(const struct ynode *n);
/* g_ptr_array_unref as a GDestroyNotify. */
void cfg_ptr_array_unref(gpointer a);
/* Sets c's error to "PATH:LINE:COL: message" at node n; returns false. */
bool cfg_fail(const struct ctx *c, const struct ynode *n, int code, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
/* Re-raises a location-less error `e` (consumed) at node n. */
bool cfg_fail_with(const struct ctx *c, const struct ynode *n, GError *e);
char *cfg_join_key(const char *prefix, const char *key);
/* Fails on a key of mapping m that is not a platform key under prefix. */
bool cfg_map_check_keys(const struct ctx *c, const struct ynode *m, const char *prefix);
const struct ynode *cfg_map_get(const struct ynode *m, const char *key);
bool cfg_need_scalar(const struct ctx *c, const struct ynode *n, const char *key);
bool cfg_need_map(const struct ctx *c, const struct ynode *n, const char *key);
/* Integers and numbers as YAML scalars hold them; messages without a key. */
bool cfg_parse_int(const char *text, int64_t min, int64_t max, int64_t *out, GError **error);
bool cfg_parse_u64(const char *text, uint64_t *out, GError **error);
bool cfg_parse_double(const char *text, double *out);
/* A whole file of at most CONFIG_MAX_FILE_BYTES; g_free() *text. */
bool cfg_read_file(const char *path, char **text, size_t *len, GError **error);

/* ---- config_platform.c ---- */

struct pkey; /* a row of the platform key table */

/* The row of `key`, or NULL. */
const struct pkey *cfg_pkey_find(const char *key);
/* Sets key k of p from `value`; the message of an error has no key and no
 * location. `explicit_switch` (may be NULL) tracks the switch_link and
 * scaleout_link keys set explicitly: a link key also sets its twins in
 * those sections unless they were. */
bool cfg_pkey_set(struct platform *p, const struct pkey *k, const char *value,
		  uint32_t *explicit_switch, GError **error);
/* Whether key k is a scalar an experiment may set or sweep; the names of
 * the keys a sweep takes (not topology.ranks: 'ranks' is), ", "-separated
 * (g_free() it). */
bool cfg_pkey_sweepable(const struct pkey *k);
char *cfg_sweep_keys(void);

/* Where the topology's parts were set, for the consistency checks. */
struct plat_locs {
	const struct ynode *where;          /* fallback: the mapping being read */
	const struct ynode *kind, *ranks, *dims, *edges, *switches;
	GPtrArray *edge_nodes;              /* of const struct ynode *, borrowed */
	GHashTable *seen;                   /* full keys read so far (owned strings), or NULL */
	bool dims_set, edges_set, switches_set;
	const struct ynode *param_at[16];    /* a topology parameter key's value, by
					     * bit of enum topo_param, or NULL */
	const char *param_key[16];          /* its key (static) */
};

bool cfg_read_platform_map(const struct ctx *c, const struct ynode *m, const char *prefix,
			   const char *const *skip, struct platform *p, uint32_t *explicit_switch,
			   struct plat_locs *loc);
/* Shape checks that need several keys (fabric_shape_check, with locations). */
bool cfg_check_platform(const struct ctx *c, struct platform *p, const struct plat_locs *loc);
bool cfg_check_schema_version(const struct ctx *c, const struct ynode *root);
/* Parses a platform file; *explicit_switch gets the switch_link and
 * scaleout_link keys the file sets itself. */
bool cfg_platform_parse(const char *path, const char *text, size_t len, struct platform *out,
			uint32_t *explicit_switch, GError **error);

#endif
