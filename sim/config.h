/* sim/config — platform and experiment files (YAML, libyaml) to typed structs.
 *
 * A platform file (configs/platforms/NAME.yaml) says what the machine is and
 * loads into a struct platform; an experiment file (experiments/NAME.yaml) says
 * what to run on it and loads into a struct experiment, whose points are the
 * cartesian product of its lists and sweeps. docs/config.md lists every key.
 *
 * Every error a file can cause is returned in a GError (domain CONFIG_ERROR)
 * whose message starts with "FILE:LINE:COL: " (1-based, the node at fault)
 * and names the key path in quotes:
 *   x.yaml:12:5: 'link.bandwidth' must be a bandwidth such as 450GB/s, got 'fast'
 *
 * Limits that keep hostile input bounded: a file holds at most
 * CONFIG_MAX_FILE_BYTES bytes, CONFIG_MAX_NODES nodes, nesting depth
 * CONFIG_MAX_DEPTH; aliases (*name) are rejected (anchors are ignored), so
 * nothing is ever expanded; an experiment expands to at most
 * CONFIG_MAX_POINTS points. */
#ifndef G5_SIM_CONFIG_H
#define G5_SIM_CONFIG_H

#include "sim/util/weights.h"
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/algos/schedule.h"
#include "sim/platform.h"

struct tune_profile;

#define CONFIG_MAX_FILE_BYTES (1 << 20)
#define CONFIG_MAX_NODES 100000
#define CONFIG_MAX_DEPTH 32
#define CONFIG_MAX_POINTS 1000000
#define CONFIG_MAX_SWEEPS 8
#define CONFIG_MAX_LIST 10000 /* entries of one list, ranges expanded */

#define CONFIG_ERROR (config_error_quark())
GQuark config_error_quark(void);
enum config_error_code {
	CONFIG_ERROR_IO,     /* cannot read the file */
	CONFIG_ERROR_SYNTAX, /* not YAML, alias, too deep, too big, empty */
	CONFIG_ERROR_SCHEMA, /* unknown or missing key, wrong type */
	CONFIG_ERROR_VALUE,  /* bad unit, out of range, unknown name */
};

/* ---- Platform files. ---- */

/* Loads the platform file at path into *out (initialised here; release with
 * platform_release() on success; nothing to release on failure). Keys the
 * file leaves out keep platform_init_default()'s values. */
bool config_platform_load(const char *path, struct platform *out, GError **error);

/* An experiment name G5 builds file names from: letters, digits, '-', '_'
 * and '.', not empty, not "." or "..". */
bool config_name_ok(const char *name);

/* The same from text in memory; `path` only names it in messages. */
bool config_platform_parse(const char *path, const char *text, size_t len,
			   struct platform *out, GError **error);

/* Sets one platform key by its path ("link.bandwidth", "paxi.slots",
 * "topology.kind", ...) from its text as a YAML scalar would hold it. On
 * error the message names the key ("'link.bandwidth' must be ..."), without
 * a location. Keys that are not scalars (topology.dims, topology.edges) are
 * not settable here. */
bool config_platform_set(struct platform *p, const char *key, const char *value,
			 GError **error);
/* The same, for a flag that stands for a key (`g5 sim --link-bw` is
 * 'link.bandwidth'): the same grammar and limits, the message names `name`
 * ("--link-bw must be ..."). */
bool config_platform_set_as(struct platform *p, const char *key, const char *name,
			    const char *value, GError **error);

/* The value of a numeric platform key in its base unit (picoseconds for
 * times, bytes per second for bandwidths, bytes for sizes, the number for
 * counts); false with error set for an unknown or non-numeric key. */
bool config_platform_get_num(const struct platform *p, const char *key, double *value,
			     GError **error);

/* Sets a numeric key from a value in its base unit, rounded to the nearest
 * integer and checked against the key's range. */
bool config_platform_set_num(struct platform *p, const char *key, double value, GError **error);

/* Writes p as a platform file (every scalar key, dotted, and the topology's
 * dims or edges) after the comment lines of `comment` (each line gets "# "),
 * to a temporary name renamed over `path`. Loading it gives p back. */
bool config_platform_write(const struct platform *p, const char *comment, const char *path,
			   GError **error);

/* True when `key` is a scalar platform key (a valid sweep key). */
bool config_platform_key_known(const char *key);

/* A deep copy (name and edge list duplicated). */
void config_platform_copy(struct platform *dst, const struct platform *src);

/* ---- Experiment files. ---- */

enum dtype {
	DTYPE_FP32 = IR_DTYPE_FP32,
	DTYPE_FP16 = IR_DTYPE_FP16,
	DTYPE_BF16 = IR_DTYPE_BF16,
};
const char *dtype_name(enum dtype d);
/* The one dtype parser (ir_dtype_parse: files, flags, measured logs and the
 * executor): "fp32" or "float", "fp16" or "half", "bf16" or "bfloat16"
 * (nccl-tests' spelling; also float32, float16). False for anything else;
 * DTYPE_KNOWN lists them for messages. */
bool dtype_parse(const char *name, enum dtype *out);
#define DTYPE_KNOWN "fp32 (float), fp16 (half), bf16 (bfloat16)"
/* Element size in bytes: 4 for fp32, 2 for fp16 and bf16. The reducer works
 * at paxi.reduce bytes per second whatever the type, so a 16-bit element
 * costs half the reduce time of a 32-bit one (docs/config.md). */
uint32_t dtype_elem_bytes(enum dtype d);

enum counts_kind {
	COUNTS_EQUAL, /* AllGatherV: equal counts */
	COUNTS_LIST,  /* explicit weights, one per rank */
	COUNTS_DIST,  /* drawn from a family with counts_seed (sim/util/weights.h):
		       * zipf:S, lognormal:SIGMA, heavy:F */
};

enum {
	OUT_H5 = 1 << 0,
	OUT_CSV = 1 << 1,
	OUT_PNG = 1 << 2,
	OUT_SVG = 1 << 3,
};

struct config_sweep {
	char *key;         /* owned: platform key path */
	GPtrArray *values; /* of char *, owned: the texts as written */
};

struct experiment {
	char *path;            /* owned: as given */
	char *name;            /* owned: 'name', or the file name without .yaml */
	char *text;            /* owned: the file's text */
	char *platform_path;   /* owned: resolved against the experiment's directory */
	char *platform_text;   /* owned */
	struct platform plat;  /* the platform with the experiment's overrides */
	uint32_t explicit_switch; /* internal: switch_link and scaleout_link keys
				   * set explicitly */
	GArray *colls;         /* of enum coll, >= 1 */
	GPtrArray *algos;      /* per collective (same index as colls): GPtrArray of char * */
	char *baseline;        /* owned, or NULL: the first algorithm of each collective */
	GArray *sizes;         /* of uint64_t bytes, >= 1 */
	GArray *ranks;         /* of int; empty: the platform's */
	GArray *dtypes;        /* of enum dtype, >= 1 */
	GArray *nchunks;       /* of uint32_t, >= 1 */
	bool paxi_set;
	enum paxi_kind paxi;
	int root, peer;
	int node_ranks;        /* ranks per node (hierarchical algorithms); 0: not given */
	enum counts_kind counts;
	GArray *weights;       /* of uint64_t (COUNTS_LIST) */
	struct weights_dist counts_dist; /* COUNTS_DIST */
	uint64_t counts_seed;  /* COUNTS_DIST */
	char *counts_label;    /* owned: 'counts' as given ("zipf:1.2", "equal", a
				* file's name, "list"), or NULL when not given; the
				* results then add columns counts and skew */
	GArray *seeds;         /* of uint64_t, >= 1 */
	char *out_dir;         /* owned: outputs.dir, relative to the working directory */
	unsigned formats;      /* OUT_* mask */
	GPtrArray *sweeps;     /* of struct config_sweep *, owned; at most CONFIG_MAX_SWEEPS */
	char *tune_path;       /* owned: 'tune', resolved like 'platform', or NULL */
	struct tune_profile *tune; /* owned: its profile (algorithm 'auto'), or NULL */
};

struct experiment *config_experiment_load(const char *path, GError **error);
/* The same from text in memory; the platform file is read relative to
 * dirname(path). */
struct experiment *config_experiment_parse(const char *path, const char *text, size_t len,
					   GError **error);
void experiment_free(struct experiment *e);

/* One point of an experiment: every field is fixed. */
struct exp_point {
	uint32_t index;        /* position in expansion order, from 0 */
	enum coll coll;
	const char *algo;      /* borrowed from the experiment */
	int ranks;
	uint64_t bytes;
	enum dtype dtype;
	uint32_t nchunks;
	uint64_t seed;
	uint32_t sweep[CONFIG_MAX_SWEEPS]; /* value index of each sweep */
};

/* Number of points: collectives x algorithms x sweeps x ranks x nchunks x
 * dtypes x sizes x seeds. */
uint64_t experiment_npoints(const struct experiment *e);

/* Every point, in a fixed order: collective, then sweep values (first sweep
 * outermost), ranks, nchunks, dtype, algorithm, size, seed (innermost).
 * Returns a GArray of struct exp_point. */
GArray *experiment_expand(const struct experiment *e);

/* The platform of point pt: the experiment's, with the point's sweep values
 * and rank count applied (a torus whose dims no longer fit gets {0, 0}).
 * Release *out with platform_release(). */
bool experiment_point_platform(const struct experiment *e, const struct exp_point *pt,
			       struct platform *out, GError **error);

/* The AllGatherV weights for nranks ranks (NULL when counts are equal);
 * g_free() it. */
uint64_t *experiment_weights(const struct experiment *e, int nranks);

/* The baseline algorithm of collective c (the experiment's 'baseline' when it
 * builds c, else the first algorithm listed for c). */
const char *experiment_baseline(const struct experiment *e, enum coll c);

/* The one size grammar of experiment files and flags. Expands one entry:
 * "64MiB", "1KiB..512MiB" (doubling), "1KiB..512MiB x4" (geometric, factor
 * 2..1024) or "1MiB..8MiB +1MiB" (arithmetic), end included when reached.
 * Appends to `out` (GArray of uint64_t); on error the message has no
 * location and starts with `name` as given ("'sizes'", "--size"). */
bool config_size_range(const char *name, const char *text, GArray *out, GError **error);
/* A comma-separated list of such entries (a flag's value: "1KiB,1MiB",
 * "1KiB..1GiB x4"). */
bool config_size_list(const char *name, const char *text, GArray *out, GError **error);

#endif
