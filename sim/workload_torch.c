/* PyTorch profiler traces (Chrome-trace JSON) into a workload
 * (sim/workload.h; docs/workload.md, "Importing a PyTorch trace").
 *
 * JSON is read with libyaml's event parser (a JSON document is a YAML flow
 * document), streaming: a trace of any size costs memory for the events
 * kept, not for the file, and an error has the line and column of the
 * event at fault. Kept: every complete event ("ph": "X") for the profile's
 * span, and the record_param_comms events, whose args carry what a
 * collective is: "Collective name", "In msg nelems", "Out msg nelems",
 * "dtype", "Process Group Name" and "Process Group Ranks". */
#include "sim/config_int.h"
#include "sim/workload.h"
#include "sim/util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct jr {
	yaml_parser_t p;
	yaml_event_t ev;
	bool have;         /* ev holds an event to delete */
	const char *path;
	GError **error;
	unsigned depth;
};

static bool jr_fail(struct jr *j, const yaml_mark_t *m, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static bool jr_fail(struct jr *j, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);

	va_end(ap);
	g_set_error(j->error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA, "%s:%zu:%zu: %s", j->path,
		    m->line + 1, m->column + 1, msg);
	return false;
}

static bool jr_next(struct jr *j)
{
	if (j->have)
		yaml_event_delete(&j->ev);
	j->have = false;
	if (!yaml_parser_parse(&j->p, &j->ev)) {
		g_set_error(j->error, CONFIG_ERROR, CONFIG_ERROR_SYNTAX,
			    "%s:%zu:%zu: not a JSON trace: %s", j->path, j->p.problem_mark.line + 1,
			    j->p.problem_mark.column + 1, j->p.problem ? j->p.problem : "parse error");
		return false;
	}
	j->have = true;
	if (j->ev.type == YAML_ALIAS_EVENT)
		return jr_fail(j, &j->ev.start_mark, "an alias: not JSON");
	return true;
}

/* The next entry of the mapping being read: 1 with *key (g_free it) and the
 * current event the start of its value, 0 at the mapping's end, -1 on an
 * error (`what` names the keys in its message). */
static int jr_entry(struct jr *j, char **key, const char *what)
{
	if (!jr_next(j))
		return -1;
	if (j->ev.type == YAML_MAPPING_END_EVENT)
		return 0;
	if (j->ev.type != YAML_SCALAR_EVENT) {
		jr_fail(j, &j->ev.start_mark, "%s keys must be strings", what);
		return -1;
	}
	*key = g_strdup((const char *)j->ev.data.scalar.value);
	if (!jr_next(j)) {
		g_clear_pointer(key, g_free);
		return -1;
	}
	return 1;
}

/* Skips the node whose first event is the current one. */
static bool jr_skip(struct jr *j)
{
	int depth = 0;

	do {
		switch (j->ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > CONFIG_MAX_DEPTH)
				return jr_fail(j, &j->ev.start_mark, "nesting deeper than %d levels",
					       CONFIG_MAX_DEPTH);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (depth && !jr_next(j))
			return false;
	} while (depth > 0);
	return true;
}

static const char *jr_scalar(const struct jr *j)
{
	return j->ev.type == YAML_SCALAR_EVENT ? (const char *)j->ev.data.scalar.value : NULL;
}

/* One trace event, as far as the import needs it. */
struct tev {
	double ts, dur;     /* microseconds */
	bool comm;          /* record_param_comms */
	char *coll;         /* "Collective name" */
	char *c10d;         /* a c10d::NAME dispatcher op: NAME */
	char *backend;      /* a backend's annotation, e.g. "gloo:all_reduce": all_reduce */
	char *dtype;
	char *pg_name, *pg_ranks;
	int64_t in_nelems, out_nelems;
	int64_t arg_nelems[2];  /* c10d::* ops: elements of the first two args */
	char *arg_type[2];      /* and their types */
	yaml_mark_t at;
};

static void tev_clear(struct tev *e)
{
	g_free(e->coll);
	g_free(e->dtype);
	g_free(e->pg_name);
	g_free(e->pg_ranks);
	g_free(e->c10d);
	g_free(e->backend);
	g_free(e->arg_type[0]);
	g_free(e->arg_type[1]);
}

struct trace {
	const char *path;
	int rank, world;
	GArray *comms;      /* of struct tev, in file order */
	GArray *ops;        /* c10d::* ops and backend annotations (NAME:coll), of struct tev */
	int pg_count;
	double t0, t1;      /* the span of the complete events */
	bool have_span;
};

static bool num(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return false;
	*out = strtod(s, &end);
	return !*end && isfinite(*out);
}

/* "Input Dims" (current event: its list's start): per arg, a tensor's dims
 * or a tensor list's; the elements of the first two args. */
static bool read_dims(struct jr *j, int64_t out[2])
{
	int arg = -1, depth = 1;
	int64_t prod = 1;
	bool any = false;

	out[0] = out[1] = -1;
	while (depth > 0) {
		if (!jr_next(j))
			return false;
		switch (j->ev.type) {
		case YAML_SEQUENCE_START_EVENT:
			if (++depth > 4)
				return jr_fail(j, &j->ev.start_mark, "'Input Dims' nested too deep");
			if (depth == 2) {
				arg++;
				if (arg < 2)
					out[arg] = 0;
			}
			prod = 1;
			any = false;
			break;
		case YAML_SEQUENCE_END_EVENT:
			if (arg >= 0 && arg < 2 && any && depth >= 2)
				out[arg] += prod;
			any = false;
			depth--;
			break;
		case YAML_SCALAR_EVENT: {
			double d;

			if (!num(jr_scalar(j), &d) || d < 0 || d > 1e15)
				return jr_fail(j, &j->ev.start_mark, "'Input Dims' holds '%s'", jr_scalar(j));
			prod *= (int64_t)d;
			any = true;
			break;
		}
		default:
			return jr_fail(j, &j->ev.start_mark, "'Input Dims' must be lists of numbers");
		}
	}
	return true;
}

/* Reads the event mapping (current event: its start) into e. */
static bool read_event(struct jr *j, struct tev *e, bool *complete)
{
	e->at = j->ev.start_mark;
	e->in_nelems = e->out_nelems = -1;
	*complete = false;
	bool have_ts = false, have_dur = false;

	for (;;) {
		g_autofree char *key = NULL;
		int got = jr_entry(j, &key, "an event's");

		if (got <= 0) {
			if (got < 0)
				return false;
			break;
		}
		const char *v = jr_scalar(j);

		if (!strcmp(key, "args") && j->ev.type == YAML_MAPPING_START_EVENT) {
			for (;;) {
				g_autofree char *ak = NULL;
				int a = jr_entry(j, &ak, "an arg's");

				if (a <= 0) {
					if (a < 0)
						return false;
					break;
				}
				const char *av = jr_scalar(j);

				if (!strcmp(ak, "Input Dims") && j->ev.type == YAML_SEQUENCE_START_EVENT) {
					if (!read_dims(j, e->arg_nelems))
						return false;
					continue;
				}
				if (!strcmp(ak, "Input type") && j->ev.type == YAML_SEQUENCE_START_EVENT) {
					for (int k = 0;; k++) {
						if (!jr_next(j))
							return false;
						if (j->ev.type == YAML_SEQUENCE_END_EVENT)
							break;
						if (!jr_scalar(j)) {
							if (!jr_skip(j))
								return false;
						} else if (k < 2) {
							e->arg_type[k] = g_strdup(jr_scalar(j));
						}
					}
					continue;
				}
				if (!av) {
					if (!jr_skip(j))
						return false;
					continue;
				}
				double d;

				if (!strcmp(ak, "Collective name"))
					e->coll = g_strdup(av);
				else if (!strcmp(ak, "dtype"))
					e->dtype = g_strdup(av);
				else if (!strcmp(ak, "Process Group Name"))
					e->pg_name = g_strdup(av);
				else if (!strcmp(ak, "Process Group Ranks"))
					e->pg_ranks = g_strdup(av);
				else if (!strcmp(ak, "In msg nelems") && num(av, &d) && d >= 0)
					e->in_nelems = (int64_t)d;
				else if (!strcmp(ak, "Out msg nelems") && num(av, &d) && d >= 0)
					e->out_nelems = (int64_t)d;
			}
			continue;
		}
		if (!v) {
			if (!jr_skip(j))
				return false;
			continue;
		}
		if (!strcmp(key, "name")) {
			e->comm = !strcmp(v, "record_param_comms");
			if (g_str_has_prefix(v, "c10d::")) {
				g_free(e->c10d);
				e->c10d = g_strdup(v + 6);
			} else if (g_str_has_prefix(v, "gloo:") || g_str_has_prefix(v, "nccl:") ||
				   g_str_has_prefix(v, "ucc:") || g_str_has_prefix(v, "mpi:")) {
				g_free(e->backend);
				e->backend = g_strdup(strchr(v, ':') + 1);
			}
		}
		else if (!strcmp(key, "ph"))
			*complete = !strcmp(v, "X");
		else if (!strcmp(key, "ts"))
			have_ts = num(v, &e->ts);
		else if (!strcmp(key, "dur"))
			have_dur = num(v, &e->dur) && e->dur >= 0;
	}
	*complete = *complete && have_ts && have_dur;
	if ((e->comm || e->c10d) && !*complete)
		return jr_fail(j, &e->at, "a %s event without 'ph': 'X', 'ts' and 'dur'",
			       e->comm ? "record_param_comms" : "c10d");
	return true;
}

static bool read_dist_info(struct jr *j, struct trace *t)
{
	for (;;) {
		g_autofree char *key = NULL;
		int got = jr_entry(j, &key, "distributedInfo's");

		if (got <= 0)
			return got == 0;
		const char *v = jr_scalar(j);
		double d;

		if (v && !strcmp(key, "rank") && num(v, &d))
			t->rank = (int)d;
		else if (v && !strcmp(key, "world_size") && num(v, &d))
			t->world = (int)d;
		else if (v && !strcmp(key, "pg_count") && num(v, &d))
			t->pg_count = (int)d;
		else if (!v && !jr_skip(j))
			return false;
	}
}

/* A torch C++ type name of an arg ("float", "c10::BFloat16") as the
 * record_param_comms dtype names it ("Float", "BFloat16"); NULL if unknown. */
static const char *c10d_dtype(const char *type)
{
	static const char *const map[][2] = {
		{ "float", "Float" },         { "c10::BFloat16", "BFloat16" },
		{ "c10::Half", "Half" },      { "double", "Double" },
		{ "long int", "Long" },       { "int", "Int" },
		{ "short int", "Short" },     { "unsigned char", "Byte" },
		{ "signed char", "Char" },    { "bool", "Bool" },
	};
	for (size_t i = 0; type && i < G_N_ELEMENTS(map); i++)
		if (!strcmp(type, map[i][0]))
			return map[i][1];
	return NULL;
}

/* Without record_param_comms (backends that do not record them, e.g.
 * gloo), the collectives come from the c10d dispatcher ops: their element
 * counts from "Input Dims", their type from "Input type" or, for a tensor
 * list (allreduce_), from the first unused backend annotation of the same
 * collective and count; the group is the world, which only a trace of one
 * process group can say. */
static bool from_c10d(struct trace *t, GError **error)
{
	static const struct {
		const char *op, *backend;
		int size_arg; /* the arg whose elements are the nccl-tests size */
	} map[] = {
		{ "allreduce_", "all_reduce", 0 },          { "_allgather_base_", "all_gather", 0 },
		{ "allgather_", "all_gather", 0 },          { "_reduce_scatter_base_", "reduce_scatter", 1 },
		{ "reduce_scatter_", "reduce_scatter", 1 }, { "alltoall_base_", "all_to_all", 1 },
		{ "broadcast_", "broadcast", 0 },           { "reduce_", "reduce", 0 },
	};
	g_autofree bool *used = g_new0(bool, t->ops->len ? t->ops->len : 1);

	for (guint i = 0; i < t->ops->len; i++) {
		struct tev *e = &g_array_index(t->ops, struct tev, i);
		size_t m;

		if (!e->c10d)
			continue;
		for (m = 0; m < G_N_ELEMENTS(map); m++)
			if (!strcmp(e->c10d, map[m].op))
				break;
		if (m == G_N_ELEMENTS(map))
			continue; /* barrier, send, recv, ... */
		int arg = map[m].size_arg;
		const char *dt = c10d_dtype(e->arg_type[arg]);

		for (guint k = 0; !dt && k < t->ops->len; k++) {
			const struct tev *a = &g_array_index(t->ops, struct tev, k);

			if (!used[k] && a->backend && !strcmp(a->backend, map[m].backend) &&
			    a->arg_nelems[0] == e->arg_nelems[arg] && c10d_dtype(a->arg_type[0])) {
				used[k] = true;
				dt = c10d_dtype(a->arg_type[0]);
			}
		}
		if (!dt || e->arg_nelems[arg] < 0) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s:%zu:%zu: c10d::%s: no element type and count in its 'Input "
				    "type' and 'Input Dims' (profile with record_shapes=True)", t->path,
				    e->at.line + 1, e->at.column + 1, e->c10d);
			return false;
		}
		if (t->pg_count != 1) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s: the trace has %d process groups and no record_param_comms "
				    "events to say which group each collective ran on", t->path,
				    t->pg_count);
			return false;
		}
		struct tev c = { .ts = e->ts, .dur = e->dur, .comm = true, .at = e->at };
		GString *ranks = g_string_new("[");

		for (int r = 0; r < t->world; r++)
			g_string_append_printf(ranks, "%s%d", r ? ", " : "", r);
		g_string_append_c(ranks, ']');
		c.pg_ranks = g_string_free(ranks, FALSE);
		c.coll = g_strdup(map[m].backend);
		c.dtype = g_strdup(dt);
		c.in_nelems = c.out_nelems = e->arg_nelems[arg];
		g_array_append_val(t->comms, c);
	}
	return true;
}

static bool read_trace(const char *path, struct trace *t, GError **error)
{
	struct jr j = { .path = path, .error = error };
	FILE *f = fopen(path, "rb");
	bool ok = false, seen_events = false;

	t->path = path;
	t->rank = t->world = -1;
	t->comms = g_array_new(FALSE, TRUE, sizeof(struct tev));
	t->ops = g_array_new(FALSE, TRUE, sizeof(struct tev));
	if (!f) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_IO, "%s: %s", path, g_strerror(errno));
		return false;
	}
	yaml_parser_initialize(&j.p);
	yaml_parser_set_input_file(&j.p, f);
	if (!jr_next(&j) || !jr_next(&j) || !jr_next(&j))
		goto out;
	if (j.ev.type != YAML_MAPPING_START_EVENT) {
		jr_fail(&j, &j.ev.start_mark, "not a Chrome trace: the top level must be an object");
		goto out;
	}
	for (;;) {
		g_autofree char *key = NULL;
		int got = jr_entry(&j, &key, "the trace's");

		if (got < 0)
			goto out;
		if (!got)
			break;
		if (!strcmp(key, "traceEvents") && j.ev.type == YAML_SEQUENCE_START_EVENT) {
			seen_events = true;
			for (;;) {
				if (!jr_next(&j))
					goto out;
				if (j.ev.type == YAML_SEQUENCE_END_EVENT)
					break;
				if (j.ev.type != YAML_MAPPING_START_EVENT) {
					jr_fail(&j, &j.ev.start_mark, "'traceEvents' holds a non-object");
					goto out;
				}
				struct tev e = { 0 };
				bool complete;

				if (!read_event(&j, &e, &complete)) {
					tev_clear(&e);
					goto out;
				}
				if (complete) {
					if (!t->have_span || e.ts < t->t0)
						t->t0 = e.ts;
					if (!t->have_span || e.ts + e.dur > t->t1)
						t->t1 = e.ts + e.dur;
					t->have_span = true;
				}
				if (e.comm && e.coll)
					g_array_append_val(t->comms, e);
				else if (complete && (e.c10d || e.backend))
					g_array_append_val(t->ops, e);
				else
					tev_clear(&e);
			}
		} else if (!strcmp(key, "distributedInfo") &&
			   j.ev.type == YAML_MAPPING_START_EVENT) {
			if (!read_dist_info(&j, t))
				goto out;
		} else if (!jr_skip(&j)) {
			goto out;
		}
	}
	if (!seen_events) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    "%s: not a Chrome trace: no 'traceEvents' list", path);
		goto out;
	}
	if (t->rank < 0 || t->world < 1) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    "%s: no 'distributedInfo' with 'rank' and 'world_size': not a trace of a "
			    "distributed job (torch.profiler records it when a process group exists)",
			    path);
		goto out;
	}
	if (!t->comms->len && !from_c10d(t, error))
		goto out;
	if (!t->comms->len) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_SCHEMA,
			    "%s: no record_param_comms event with a 'Collective name': the backend "
			    "did not record its collectives' arguments (PyTorch records them for NCCL; "
			    "profile the job on GPUs)", path);
		goto out;
	}
	ok = true;
out:
	if (j.have)
		yaml_event_delete(&j.ev);
	yaml_parser_delete(&j.p);
	fclose(f);
	return ok;
}

static void trace_clear(struct trace *t)
{
	if (!t->comms)
		return;
	for (guint i = 0; i < t->comms->len; i++)
		tev_clear(&g_array_index(t->comms, struct tev, i));
	g_array_free(t->comms, TRUE);
	t->comms = NULL;
	for (guint i = 0; i < t->ops->len; i++)
		tev_clear(&g_array_index(t->ops, struct tev, i));
	g_array_free(t->ops, TRUE);
	t->ops = NULL;
}

/* PyTorch's collective names (c10d's and their coalesced and base forms);
 * false for what a workload does not model (barrier, send, recv, ...). */
static bool torch_coll(const char *name, enum coll *out)
{
	static const struct {
		const char *prefix;
		enum coll c;
	} map[] = {
		{ "allreduce", COLL_ALLREDUCE },      { "all_reduce", COLL_ALLREDUCE },
		{ "_allgather", COLL_ALLGATHER },     { "allgather", COLL_ALLGATHER },
		{ "all_gather", COLL_ALLGATHER },     { "_reduce_scatter", COLL_REDUCESCATTER },
		{ "reduce_scatter", COLL_REDUCESCATTER }, { "all_to_all", COLL_ALLTOALL },
		{ "alltoall", COLL_ALLTOALL },        { "broadcast", COLL_BROADCAST },
		{ "reduce", COLL_REDUCE },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(map); i++)
		if (g_str_has_prefix(name, map[i].prefix)) {
			*out = map[i].c;
			return true;
		}
	return false;
}

/* PyTorch's dtype names: the element size, and the G5 dtype whose reduction
 * cost per byte it takes (every type reduces at paxi.reduce bytes/s). */
static bool torch_dtype(const char *name, uint32_t *size, enum ir_dtype *dt)
{
	static const struct {
		const char *name;
		uint32_t size;
		enum ir_dtype dt;
	} map[] = {
		{ "Float", 4, IR_DTYPE_FP32 },    { "BFloat16", 2, IR_DTYPE_BF16 },
		{ "Half", 2, IR_DTYPE_FP16 },     { "Double", 8, IR_DTYPE_FP32 },
		{ "Long", 8, IR_DTYPE_FP32 },     { "Int", 4, IR_DTYPE_FP32 },
		{ "Short", 2, IR_DTYPE_FP16 },    { "Byte", 1, IR_DTYPE_FP32 },
		{ "Char", 1, IR_DTYPE_FP32 },     { "Bool", 1, IR_DTYPE_FP32 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(map); i++)
		if (!strcmp(name, map[i].name)) {
			*size = map[i].size;
			*dt = map[i].dt;
			return true;
		}
	return false;
}

/* "[0, 1, 2]" into ranks; false when it is not such a list in 0..world-1. */
static int *parse_ranks(const char *s, int world, int *n)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int));
	const char *p = s;

	while (*p == ' ')
		p++;
	if (*p++ != '[')
		goto bad;
	for (;;) {
		char *end;

		while (*p == ' ')
			p++;
		if (*p == ']' && !a->len)
			break;
		long r = strtol(p, &end, 10);

		if (end == p || r < 0 || r >= world)
			goto bad;
		int x = (int)r;

		g_array_append_val(a, x);
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ']')
			break;
		if (*p++ != ',')
			goto bad;
	}
	*n = (int)a->len;
	return (int *)g_array_free(a, FALSE);
bad:
	g_array_free(a, TRUE);
	return NULL;
}

static int find_comm(GPtrArray *comms, const int *ranks, int n)
{
	for (guint i = 0; i < comms->len; i++) {
		const struct wl_comm *m = comms->pdata[i];

		if (m->group_size == n && !memcmp(m->members, ranks, (size_t)n * sizeof(int)))
			return (int)i;
	}
	return -1;
}

/* One rank's program from its trace: compute intervals on "compute" (the
 * gaps between the collectives on the trace's timeline, chained), each
 * collective on "comm" after the compute before it. `replicate`: the trace
 * stands for every rank, so its collectives must span the world. */
static bool build_program(const struct trace *t, bool replicate, GPtrArray *comms,
			  struct wl_program *prog, GError **error)
{
	GArray *ops = g_array_new(FALSE, TRUE, sizeof(struct wl_op));
	double prev_end = t->t0;
	uint32_t last_compute = UINT32_MAX;
	bool ok = false;

	for (guint i = 0; i <= t->comms->len; i++) {
		const struct tev *e = i < t->comms->len ? &g_array_index(t->comms, struct tev, i) : NULL;
		double start = e ? e->ts : t->t1;
		struct wl_op c = { .kind = WL_COMPUTE, .comm = -1, .stream = 0, .nchunks = 1, .peer = 1 };
		double gap = start - prev_end;

		c.dur_ps = gap > 0 ? (sim_time_t)llround(gap * 1e6) : 0;
		c.id = g_strdup_printf("compute%u", i);
		if (last_compute != UINT32_MAX) {
			c.after = g_new(uint32_t, 1);
			c.after[0] = last_compute;
			c.nafter = 1;
		}
		last_compute = ops->len;
		g_array_append_val(ops, c);
		if (!e)
			break;
		if (e->ts + e->dur > prev_end)
			prev_end = e->ts + e->dur;

		enum coll cl;
		uint32_t esize;
		enum ir_dtype dt;
		int n = 0, *ranks;

		if (!torch_coll(e->coll, &cl))
			continue; /* barrier, send, recv: left out (docs/workload.md) */
		if (!e->dtype || !torch_dtype(e->dtype, &esize, &dt)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s:%zu:%zu: collective '%s' has dtype '%s', which G5 does not know",
				    t->path, e->at.line + 1, e->at.column + 1, e->coll,
				    e->dtype ? e->dtype : "(none)");
			goto out;
		}
		if (!e->pg_ranks || !(ranks = parse_ranks(e->pg_ranks, t->world, &n))) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s:%zu:%zu: collective '%s' has no 'Process Group Ranks' list of "
				    "ranks in 0..%d", t->path, e->at.line + 1, e->at.column + 1, e->coll,
				    t->world - 1);
			goto out;
		}
		if (n < 2) { /* a group of one moves nothing */
			g_free(ranks);
			continue;
		}
		if (replicate && n != t->world) {
			g_free(ranks);
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s:%zu:%zu: collective '%s' runs on %d of the %d ranks: with one "
				    "trace every rank runs its program, so give one trace per rank",
				    t->path, e->at.line + 1, e->at.column + 1, e->coll, n, t->world);
			goto out;
		}
		int64_t nel = cl == COLL_ALLGATHER ? e->out_nelems : e->in_nelems;

		if (nel < 0) {
			g_free(ranks);
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s:%zu:%zu: collective '%s' has no '%s msg nelems'", t->path,
				    e->at.line + 1, e->at.column + 1, e->coll,
				    cl == COLL_ALLGATHER ? "Out" : "In");
			goto out;
		}
		int ci = find_comm(comms, ranks, n);

		if (ci < 0) {
			bool world = n == t->world;
			struct wl_comm *m = g_new0(struct wl_comm, 1);

			m->name = world ? g_strdup("world")
					: g_strdup_printf("pg%s", e->pg_name ? e->pg_name : "");
			/* a communicator's name is letters, digits, '-', '_' and '.' */
			g_strcanon(m->name, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "-_.", '_');
			for (guint k = 0; k < comms->len; k++)
				if (!strcmp(((struct wl_comm *)comms->pdata[k])->name, m->name)) {
					g_free(m->name);
					m->name = g_strdup_printf("group%u", comms->len);
					break;
				}
			m->ngroups = 1;
			m->group_size = n;
			m->members = ranks;
			ranks = NULL;
			g_ptr_array_add(comms, m);
			ci = (int)comms->len - 1;
		}
		g_free(ranks);

		struct wl_op o = { .kind = WL_COLLECTIVE, .coll = cl, .dtype = dt, .comm = ci,
				   .stream = 1, .nchunks = 1, .peer = 1 };

		o.bytes = (uint64_t)nel * esize;
		o.id = g_strdup_printf("%s%u", coll_name(cl), i);
		o.algo = g_strdup("auto");
		o.after = g_new(uint32_t, 1);
		o.after[0] = last_compute;
		o.nafter = 1;
		g_array_append_val(ops, o);
	}
	ok = true;
out:
	prog->nops = ops->len;
	prog->ops = (struct wl_op *)g_array_free(ops, FALSE);
	return ok;
}

struct workload *workload_import_torch(const char *const *paths, int npaths, GError **error)
{
	struct trace *t = g_new0(struct trace, npaths);
	struct workload *w = NULL;
	GPtrArray *comms = g_ptr_array_new();
	int world = -1;
	bool ok = false;

	for (int i = 0; i < npaths; i++) {
		if (!read_trace(paths[i], &t[i], error))
			goto out;
		if (world < 0)
			world = t[i].world;
		if (t[i].world != world || t[i].rank >= world) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
				    "%s: rank %d of a world of %d, but %s is of a world of %d",
				    paths[i], t[i].rank, t[i].world, paths[0], world);
			goto out;
		}
		for (int k = 0; k < i; k++)
			if (t[k].rank == t[i].rank) {
				g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
					    "%s and %s are both traces of rank %d", paths[k], paths[i],
					    t[i].rank);
				goto out;
			}
	}
	if (world < 2) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
			    "%s: a world of %d rank: nothing to communicate", paths[0], world);
		goto out;
	}
	if (npaths > 1 && npaths != world) {
		g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE,
			    "%d traces of a world of %d: give one trace (every rank runs its "
			    "program) or one per rank", npaths, world);
		goto out;
	}
	w = g_new0(struct workload, 1);
	w->name = g_strdup("torch-trace");
	w->nranks = world;
	w->progs = g_new0(struct wl_program, world);
	w->streams = g_new0(char *, 3);
	w->streams[0] = g_strdup("compute");
	w->streams[1] = g_strdup("comm");
	w->nstreams = 2;
	for (int r = 0; r < world; r++) {
		const struct trace *src = npaths == 1 ? &t[0] : NULL;

		for (int i = 0; !src && i < npaths; i++)
			if (t[i].rank == r)
				src = &t[i];
		if (!build_program(src, npaths == 1, comms, &w->progs[r], error))
			goto out;
	}
	w->ncomms = (int)comms->len;
	w->comms = g_new0(struct wl_comm, w->ncomms ? w->ncomms : 1);
	for (int i = 0; i < w->ncomms; i++) {
		struct wl_comm *m = comms->pdata[i];

		w->comms[i] = *m;
		g_free(m);
		comms->pdata[i] = NULL;
		w->comms[i].group_of = g_new(int, world);
		for (int r = 0; r < world; r++)
			w->comms[i].group_of[r] = -1;
		for (int k = 0; k < w->comms[i].group_size; k++)
			w->comms[i].group_of[w->comms[i].members[k]] = 0;
	}
	g_ptr_array_set_size(comms, 0);
	ok = true;
out:
	for (guint i = 0; i < comms->len; i++) {
		struct wl_comm *m = comms->pdata[i];

		if (m) {
			g_free(m->name);
			g_free(m->members);
			g_free(m);
		}
	}
	g_ptr_array_free(comms, TRUE);
	for (int i = 0; i < npaths; i++)
		trace_clear(&t[i]);
	g_free(t);
	if (!ok) {
		workload_free(w);
		return NULL;
	}
	return w;
}
