/* Workload files (sim/workload.h, docs/workload.md): the YAML reader, the
 * pattern generators, the checks across ranks and the writer.
 *
 * The file is read into config_yaml.c's tree, so every error points at the
 * node at fault. Ops are built into per-rank programs; a `program` (every
 * rank), each entry of `programs` (the ranks it lists) and a `generate`
 * block (a pattern) all end in the same builder, and the checks after it
 * (dependencies, the k-th collective of every group) see only programs. */
#include "sim/config_int.h"
#include "sim/workload.h"
#include "sim/util/quote.h"
#include "sim/util/spell.h"
#include "sim/util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Building. ---- */

/* The workload under construction, with the growable programs. */
struct build {
	const struct ctx *c;
	struct workload *w;
	GArray **ops;          /* nranks: of struct wl_op */
	GPtrArray *streams;    /* of char *, owned */
	GPtrArray *comms;      /* of struct wl_comm *, owned */
};

static void wl_op_clear(struct wl_op *o)
{
	g_free(o->id);
	g_free(o->after);
	g_free(o->algo);
}

static void wl_comm_free(gpointer p)
{
	struct wl_comm *m = p;

	if (!m)
		return;
	g_free(m->name);
	g_free(m->members);
	g_free(m->group_of);
	g_free(m);
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	for (int r = 0; w->progs && r < w->nranks; r++) {
		for (uint32_t i = 0; i < w->progs[r].nops; i++)
			wl_op_clear(&w->progs[r].ops[i]);
		g_free(w->progs[r].ops);
	}
	g_free(w->progs);
	for (int i = 0; i < w->ncomms; i++) {
		g_free(w->comms[i].name);
		g_free(w->comms[i].members);
		g_free(w->comms[i].group_of);
	}
	g_free(w->comms);
	g_strfreev(w->streams);
	g_free(w->name);
	g_free(w);
}

static int stream_id(struct build *b, const char *name)
{
	for (guint i = 0; i < b->streams->len; i++)
		if (!strcmp(b->streams->pdata[i], name))
			return (int)i;
	g_ptr_array_add(b->streams, g_strdup(name));
	return (int)b->streams->len - 1;
}

static int comm_id(const struct build *b, const char *name)
{
	for (guint i = 0; i < b->comms->len; i++)
		if (!strcmp(((struct wl_comm *)b->comms->pdata[i])->name, name))
			return (int)i;
	return -1;
}

static char *comm_names(const struct build *b)
{
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < b->comms->len; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "",
				       ((struct wl_comm *)b->comms->pdata[i])->name);
	return g_string_free(s, FALSE);
}

/* A communicator of `ngroups` groups of `group_size`; members filled by the
 * caller, then comm_index() checks them. */
static struct wl_comm *comm_new(const char *name, int ngroups, int group_size)
{
	struct wl_comm *m = g_new0(struct wl_comm, 1);

	m->name = g_strdup(name);
	m->ngroups = ngroups;
	m->group_size = group_size;
	m->members = g_new(int, (size_t)ngroups * (size_t)group_size);
	return m;
}

/* Fills group_of; false (with the message) when a member is out of range or
 * in two groups. */
static bool comm_index(struct wl_comm *m, int nranks, char **why)
{
	m->group_of = g_new(int, (size_t)nranks);
	for (int r = 0; r < nranks; r++)
		m->group_of[r] = -1;
	for (int g = 0; g < m->ngroups; g++)
		for (int i = 0; i < m->group_size; i++) {
			int r = m->members[g * m->group_size + i];

			if (r < 0 || r >= nranks) {
				*why = g_strdup_printf("rank %d is not among the workload's %d ranks", r,
						       nranks);
				return false;
			}
			if (m->group_of[r] >= 0) {
				*why = g_strdup_printf("rank %d is in two groups", r);
				return false;
			}
			m->group_of[r] = g;
		}
	return true;
}

/* The communicator of groups of `size` ranks `stride` apart: rank r is
 * member (r / stride) % size of the group of (r % stride, r / (size x
 * stride)). size x stride must divide nranks. */
static struct wl_comm *comm_strided(const char *name, int nranks, int size, int stride)
{
	int span = size * stride, ngroups = nranks / size;
	struct wl_comm *m = comm_new(name, ngroups, size);

	for (int r = 0; r < nranks; r++) {
		int g = (r / span) * stride + r % stride;

		m->members[g * size + (r / stride) % size] = r;
	}
	char *why = NULL;

	if (!comm_index(m, nranks, &why))
		g_assert_not_reached(); /* a partition by construction */
	return m;
}

/* Appends op o (moved) to rank r's program; false when the rank's id is
 * taken or the program is too long. */
static bool push_op(struct build *b, const struct ynode *at, int r, struct wl_op *o)
{
	GArray *a = b->ops[r];

	for (guint i = 0; i < a->len; i++)
		if (!strcmp(g_array_index(a, struct wl_op, i).id, o->id)) {
			cfg_fail(b->c, at, CONFIG_ERROR_VALUE,
				 "op id '%s' is used twice in the program of rank %d",
				 quote_text(o->id).s, r);
			wl_op_clear(o);
			return false;
		}
	g_array_append_val(a, *o);
	return true;
}

static uint32_t total_ops(const struct build *b)
{
	uint64_t n = 0;

	for (int r = 0; r < b->w->nranks; r++)
		n += b->ops[r]->len;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* ---- Communicators. ---- */

static bool read_int_node(const struct ctx *c, const struct ynode *n, const char *key, int64_t min,
			  int64_t max, int64_t *out)
{
	GError *e = NULL;

	if (!cfg_need_scalar(c, n, key))
		return false;
	if (!cfg_parse_int(n->text, min, max, out, &e)) {
		g_autofree char *m = g_strdup_printf("'%s': %s", key, e->message);

		g_error_free(e);
		return cfg_fail(c, n, CONFIG_ERROR_VALUE, "%s", m);
	}
	return true;
}

static bool read_comm(struct build *b, const struct ynode *k, const struct ynode *v)
{
	const struct ctx *c = b->c;
	int nranks = b->w->nranks;
	g_autofree char *key = g_strdup_printf("communicators.%s", k->text);
	struct wl_comm *m = NULL;

	if (!config_name_ok(k->text))
		return cfg_fail(c, k, CONFIG_ERROR_VALUE,
				"communicator name '%s' must be letters, digits, '-', '_' or '.'",
				quote_text(k->text).s);
	if (comm_id(b, k->text) >= 0)
		return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "duplicate communicator '%s'",
				quote_text(k->text).s);
	if (v->kind == YN_SCALAR) {
		if (strcmp(v->text, "all"))
			return cfg_fail(c, v, CONFIG_ERROR_VALUE,
					"'%s' must be 'all', a mapping {size, stride} or a list of "
					"groups, got '%s'", key, quote_text(v->text).s);
		m = comm_strided(k->text, nranks, nranks, 1);
	} else if (v->kind == YN_MAP) {
		int64_t size = nranks, stride = 1;

		if (!cfg_map_check_keys(c, v, key))
			return false;
		for (guint i = 0; i + 1 < v->kids->len; i += 2) {
			const struct ynode *kk = v->kids->pdata[i], *vv = v->kids->pdata[i + 1];
			g_autofree char *full = cfg_join_key(key, kk->text);

			if (!strcmp(kk->text, "size")) {
				if (!read_int_node(c, vv, full, 1, nranks, &size))
					return false;
			} else if (!strcmp(kk->text, "stride")) {
				if (!read_int_node(c, vv, full, 1, nranks, &stride))
					return false;
			} else {
				g_autofree char *hint = spell_hint(kk->text, "size, stride");

				return cfg_fail(c, kk, CONFIG_ERROR_SCHEMA,
						"unknown key '%s' (known: size, stride)%s",
						quote_text(full).s, hint);
			}
		}
		if (nranks % (size * stride))
			return cfg_fail(c, v, CONFIG_ERROR_VALUE,
					"'%s': size x stride = %" G_GINT64_FORMAT " must divide the %d ranks",
					key, size * stride, nranks);
		m = comm_strided(k->text, nranks, (int)size, (int)stride);
	} else {
		int group_size = -1;

		if (!v->kids->len)
			return cfg_fail(c, v, CONFIG_ERROR_VALUE, "'%s' lists no groups", key);
		for (guint g = 0; g < v->kids->len; g++) {
			const struct ynode *grp = v->kids->pdata[g];

			if (grp->kind != YN_SEQ || !grp->kids->len)
				return cfg_fail(c, grp, CONFIG_ERROR_SCHEMA,
						"'%s': each group must be a list of ranks", key);
			if (group_size < 0)
				group_size = (int)grp->kids->len;
			else if ((int)grp->kids->len != group_size)
				return cfg_fail(c, grp, CONFIG_ERROR_VALUE,
						"'%s': every group must have the same size (%d), this one has %u",
						key, group_size, grp->kids->len);
		}
		m = comm_new(k->text, (int)v->kids->len, group_size);
		for (guint g = 0; g < v->kids->len; g++) {
			const struct ynode *grp = v->kids->pdata[g];

			for (guint i = 0; i < grp->kids->len; i++) {
				int64_t r;

				if (!read_int_node(c, grp->kids->pdata[i], key, 0, nranks - 1, &r)) {
					wl_comm_free(m);
					return false;
				}
				m->members[g * group_size + i] = (int)r;
			}
		}
		char *why = NULL;

		if (!comm_index(m, nranks, &why)) {
			wl_comm_free(m);
			cfg_fail(c, v, CONFIG_ERROR_VALUE, "'%s': %s", key, why);
			g_free(why);
			return false;
		}
	}
	g_ptr_array_add(b->comms, m);
	return true;
}

/* ---- Ops. ---- */

/* A scalar that names something: letters, digits, '-', '_' and '.'. */
static bool need_name(const struct ctx *c, const struct ynode *v, const char *key)
{
	if (!cfg_need_scalar(c, v, key))
		return false;
	if (!config_name_ok(v->text))
		return cfg_fail(c, v, CONFIG_ERROR_VALUE,
				"'%s' must be letters, digits, '-', '_' or '.', got '%s'", key,
				quote_text(v->text).s);
	return true;
}

static const char *const op_keys = "id, stream, after, dtype, comm, algo, root, peer, nchunks, repeat";

/* Reads one op (mapping) for every rank in ranks[0..n): the ops are built
 * once and copied. */
static bool read_op(struct build *b, const struct ynode *m, const char *where, const int *ranks,
		    int n, uint32_t index)
{
	const struct ctx *c = b->c;
	struct wl_op o = { .stream = -1, .comm = -1, .nchunks = 1, .peer = 1 };
	const struct ynode *kind_key = NULL, *kind_val = NULL, *after = NULL, *comm = NULL,
			   *root = NULL, *dtype_at = NULL, *peer = NULL, *nchunks = NULL, *repeat = NULL;
	int64_t copies = 1;
	const char *stream = NULL;
	bool ok = false;

	if (!cfg_need_map(c, m, where) || !cfg_map_check_keys(c, m, where))
		return false;
	o.dtype = IR_DTYPE_BF16; /* a collective's default */
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i], *v = m->kids->pdata[i + 1];
		g_autofree char *full = cfg_join_key(where, k->text);
		enum coll cl;

		if (!strcmp(k->text, "compute") || coll_parse(k->text, &cl)) {
			if (kind_key)
				return cfg_fail(c, k, CONFIG_ERROR_SCHEMA,
						"'%s': an op is one compute interval or one collective, "
						"not both '%s' and '%s'", where, kind_key->text, k->text);
			kind_key = k;
			kind_val = v;
			if (!cfg_need_scalar(c, v, full))
				return false;
		} else if (!strcmp(k->text, "id")) {
			if (!need_name(c, v, full))
				return false;
			g_free(o.id);
			o.id = g_strdup(v->text);
		} else if (!strcmp(k->text, "stream")) {
			if (!need_name(c, v, full))
				return false;
			stream = v->text;
		} else if (!strcmp(k->text, "after")) {
			after = v;
		} else if (!strcmp(k->text, "dtype")) {
			enum dtype d;

			if (!cfg_need_scalar(c, v, full))
				return false;
			if (!dtype_parse(v->text, &d))
				return cfg_fail(c, v, CONFIG_ERROR_VALUE,
						"'%s' must be one of " DTYPE_KNOWN ", got '%s'", full,
						quote_text(v->text).s);
			o.dtype = (enum ir_dtype)d;
			dtype_at = v;
		} else if (!strcmp(k->text, "comm")) {
			if (!cfg_need_scalar(c, v, full))
				return false;
			comm = v;
		} else if (!strcmp(k->text, "algo")) {
			if (!cfg_need_scalar(c, v, full))
				return false;
			g_free(o.algo);
			o.algo = g_strdup(v->text);
		} else if (!strcmp(k->text, "root")) {
			root = v;
		} else if (!strcmp(k->text, "peer")) {
			peer = v;
		} else if (!strcmp(k->text, "nchunks")) {
			int64_t x;

			if (!read_int_node(c, v, full, 1, SCHED_MAX_NCHUNKS, &x))
				goto out;
			o.nchunks = (uint32_t)x;
			nchunks = v;
		} else if (!strcmp(k->text, "repeat")) {
			if (!read_int_node(c, v, full, 1, WORKLOAD_MAX_OPS, &copies))
				goto out;
			repeat = v;
		} else {
			g_autofree char *known = g_strdup_printf("compute, allreduce, allgather, "
								 "reducescatter, alltoall, broadcast, "
								 "reduce, p2p, %s", op_keys);
			g_autofree char *hint = spell_hint(k->text, known);

			g_free(o.id);
			g_free(o.algo);
			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)%s",
					quote_text(full).s, known, hint);
		}
	}
	if (!kind_key) {
		cfg_fail(c, m, CONFIG_ERROR_SCHEMA,
			 "'%s': an op needs 'compute: TIME' or a collective and its size "
			 "(e.g. 'allreduce: 64MiB')", where);
		goto out;
	}
	GError *e = NULL;

	if (!strcmp(kind_key->text, "compute")) {
		uint64_t ps;

		o.kind = WL_COMPUTE;
		if (!units_parse_time(kind_val->text, &ps, &e)) {
			cfg_fail(c, kind_val, CONFIG_ERROR_VALUE, "'%s.compute': %s", where, e->message);
			g_error_free(e);
			goto out;
		}
		o.dur_ps = (sim_time_t)ps;
		if (comm || root || o.algo || dtype_at || peer || nchunks) {
			cfg_fail(c, comm ? comm : root ? root : dtype_at ? dtype_at : peer ? peer : nchunks ? nchunks : m,
				 CONFIG_ERROR_SCHEMA,
				 "'%s': a compute interval takes no comm, root, peer, algo, nchunks or dtype",
				 where);
			goto out;
		}
		o.dtype = 0;
	} else {
		o.kind = WL_COLLECTIVE;
		coll_parse(kind_key->text, &o.coll);
		if (o.coll == COLL_ALLGATHERV) {
			cfg_fail(c, kind_key, CONFIG_ERROR_VALUE,
				 "'%s': %s is not a workload collective (known: allreduce, allgather, "
				 "reducescatter, alltoall, broadcast, reduce, p2p)", where, kind_key->text);
			goto out;
		}
		if (!units_parse_size(kind_val->text, &o.bytes, &e)) {
			cfg_fail(c, kind_val, CONFIG_ERROR_VALUE, "'%s.%s': %s", where, kind_key->text,
				 e->message);
			g_error_free(e);
			goto out;
		}
		o.comm = comm_id(b, comm ? comm->text : "world");
		if (o.comm < 0) {
			g_autofree char *known = comm_names(b);
			g_autofree char *hint = spell_hint(comm ? comm->text : "world", known);

			cfg_fail(c, comm ? comm : m, CONFIG_ERROR_VALUE,
				 "'%s': unknown communicator '%s' (known: %s)%s", where,
				 comm ? quote_text(comm->text).s : "world", known, hint);
			goto out;
		}
		int gs = ((struct wl_comm *)b->comms->pdata[o.comm])->group_size;

		if (root) {
			int64_t rt;

			if (o.coll != COLL_BROADCAST && o.coll != COLL_REDUCE && o.coll != COLL_P2P) {
				cfg_fail(c, root, CONFIG_ERROR_SCHEMA,
					 "'%s': only broadcast, reduce and p2p take a root", where);
				goto out;
			}
			g_autofree char *rk = g_strdup_printf("%s.root", where);

			if (!read_int_node(c, root, rk, 0, gs - 1, &rt))
				goto out;
			o.root = (int)rt;
		}
		if (peer) {
			int64_t pr;

			if (o.coll != COLL_P2P) {
				cfg_fail(c, peer, CONFIG_ERROR_SCHEMA, "'%s': only p2p takes a peer", where);
				goto out;
			}
			g_autofree char *pk = g_strdup_printf("%s.peer", where);

			if (!read_int_node(c, peer, pk, 0, gs - 1, &pr))
				goto out;
			o.peer = (int)pr;
		}
		if (o.coll == COLL_P2P && o.peer == o.root) {
			cfg_fail(c, peer ? peer : m, CONFIG_ERROR_VALUE,
				 "'%s': p2p's peer (%d) must differ from its root (%d)", where, o.peer,
				 o.root);
			goto out;
		}
		if (!o.algo)
			o.algo = g_strdup("auto");
	}
	if (!o.id)
		o.id = g_strdup_printf("op%u", index);
	o.stream = stream_id(b, stream ? stream : o.kind == WL_COMPUTE ? "compute" : "comm");
	if (b->streams->len > WORKLOAD_MAX_STREAMS) {
		cfg_fail(c, m, CONFIG_ERROR_VALUE, "more than %d streams", WORKLOAD_MAX_STREAMS);
		goto out;
	}
	if (after) {
		const struct ynode *seq = after;
		guint na = after->kind == YN_SEQ ? after->kids->len : 1;

		if (after->kind == YN_MAP) {
			cfg_fail(c, after, CONFIG_ERROR_SCHEMA, "'%s.after' must be an op id or a list of them", where);
			goto out;
		}
		o.after = g_new(uint32_t, na ? na : 1);
		o.nafter = 0;
		for (guint i = 0; i < na; i++) {
			const struct ynode *id = seq->kind == YN_SEQ ? seq->kids->pdata[i] : seq;
			GArray *a = b->ops[ranks[0]];
			guint j;

			if (!cfg_need_scalar(c, id, "after"))
				goto out;
			/* The same program for every listed rank: ids resolve alike;
			 * a repeated op's id means its last copy. */
			for (j = 0; j < a->len; j++)
				if (!strcmp(g_array_index(a, struct wl_op, j).id, id->text))
					break;
			for (guint x = a->len; j == a->len && x-- > 0;) {
				const struct wl_op *q = &g_array_index(a, struct wl_op, x);
				size_t len = strlen(id->text);

				if (q->repeated && !strncmp(q->id, id->text, len) && q->id[len] == '.') {
					j = x;
					break;
				}
			}
			if (j == a->len) {
				cfg_fail(c, id, CONFIG_ERROR_VALUE,
					 "'%s.after': no earlier op '%s' in this program", where,
					 quote_text(id->text).s);
				goto out;
			}
			o.after[o.nafter++] = j;
		}
	}
	if (o.kind == WL_COLLECTIVE) {
		const struct wl_comm *cm = b->comms->pdata[o.comm];

		for (int i = 0; i < n; i++)
			if (cm->group_of[ranks[i]] < 0) {
				cfg_fail(c, comm ? comm : m, CONFIG_ERROR_VALUE,
					 "'%s': rank %d is in no group of communicator '%s'", where,
					 ranks[i], cm->name);
				goto out;
			}
		if (cm->group_size < 2) {
			cfg_fail(c, comm ? comm : m, CONFIG_ERROR_VALUE,
				 "'%s': communicator '%s' has groups of one rank: nothing to communicate",
				 where, cm->name);
			goto out;
		}
	}
	if ((uint64_t)total_ops(b) + (uint64_t)n * (uint64_t)copies > WORKLOAD_MAX_OPS) {
		cfg_fail(c, repeat ? repeat : m, CONFIG_ERROR_VALUE, "more than %u ops over all ranks",
			 WORKLOAD_MAX_OPS);
		goto out;
	}
	for (int64_t k = 0; k < copies; k++)
		for (int i = 0; i < n; i++) {
			struct wl_op cp = o;

			cp.id = repeat ? g_strdup_printf("%s.%" G_GINT64_FORMAT, o.id, k) : g_strdup(o.id);
			cp.repeated = repeat != NULL;
			cp.algo = g_strdup(o.algo);
			cp.after = o.nafter ? g_memdup2(o.after, o.nafter * sizeof(uint32_t)) : NULL;
			if (!push_op(b, m, ranks[i], &cp))
				goto out;
		}
	ok = true;
out:
	wl_op_clear(&o);
	return ok;
}

static bool read_ops(struct build *b, const struct ynode *seq, const char *where, const int *ranks,
		     int n)
{
	if (seq->kind != YN_SEQ)
		return cfg_fail(b->c, seq, CONFIG_ERROR_SCHEMA, "'%s' must be a list of ops, got %s",
				where, cfg_ynode_kind_name(seq));
	for (guint i = 0; i < seq->kids->len; i++) {
		g_autofree char *at = g_strdup_printf("%s[%u]", where, i);

		if (!read_op(b, seq->kids->pdata[i], at, ranks, n, i))
			return false;
	}
	return true;
}

/* `ranks: all | N | [a, b, ...] | "a..b"` of a `programs` entry. */
static int *read_rank_set(struct build *b, const struct ynode *v, const char *key, int *n)
{
	int nranks = b->w->nranks;
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int));
	int64_t lo, hi;

	if (v->kind == YN_SCALAR) {
		const char *dots = strstr(v->text, "..");

		if (!strcmp(v->text, "all")) {
			lo = 0;
			hi = nranks - 1;
		} else if (dots) {
			g_autofree char *l = g_strndup(v->text, (gsize)(dots - v->text));
			GError *e = NULL;

			if (!cfg_parse_int(l, 0, nranks - 1, &lo, &e) ||
			    !cfg_parse_int(dots + 2, lo, nranks - 1, &hi, &e)) {
				cfg_fail(b->c, v, CONFIG_ERROR_VALUE,
					 "'%s' must be all, a rank, a list or a range a..b of ranks "
					 "in 0..%d: %s", key, nranks - 1, e->message);
				g_error_free(e);
				goto bad;
			}
		} else {
			if (!read_int_node(b->c, v, key, 0, nranks - 1, &lo))
				goto bad;
			hi = lo;
		}
		for (int64_t r = lo; r <= hi; r++) {
			int x = (int)r;

			g_array_append_val(a, x);
		}
	} else if (v->kind == YN_SEQ) {
		for (guint i = 0; i < v->kids->len; i++) {
			int64_t r;

			if (!read_int_node(b->c, v->kids->pdata[i], key, 0, nranks - 1, &r))
				goto bad;
			int x = (int)r;

			g_array_append_val(a, x);
		}
	} else {
		cfg_fail(b->c, v, CONFIG_ERROR_SCHEMA, "'%s' must be all, a rank, a list or a range",
			 key);
		goto bad;
	}
	*n = (int)a->len;
	return (int *)g_array_free(a, FALSE);
bad:
	g_array_free(a, TRUE);
	return NULL;
}

/* ---- Patterns (docs/workload.md, "Generators"). ---- */

struct pattern {
	const char *name;
	uint64_t params;      /* model parameters */
	int layers;
	uint64_t tokens;      /* per rank and micro-batch */
	int microbatches;
	int hidden;
	enum ir_dtype dtype;
	double flops;         /* per rank, per second */
	uint64_t bucket;      /* dp: gradient bucket bytes */
	int group;            /* tp, moe: the size of the tp / ep groups */
	int topk;             /* moe */
};

/* Appends an op to every rank of the SPMD program being generated. */
struct gen {
	struct build *b;
	const struct ynode *at;
	int *all;
	uint32_t n;
};

static bool gen_push(struct gen *g, struct wl_op *o, const char *id, const char *stream,
		     const uint32_t *after, uint32_t nafter)
{
	struct build *b = g->b;

	o->id = g_strdup(id);
	o->stream = stream_id(b, stream);
	if (o->kind == WL_COLLECTIVE && !o->algo)
		o->algo = g_strdup("auto");
	for (int r = 0; r < b->w->nranks; r++) {
		struct wl_op cp = *o;

		cp.id = g_strdup(o->id);
		cp.algo = g_strdup(o->algo);
		cp.nafter = nafter;
		cp.after = nafter ? g_memdup2(after, nafter * sizeof(uint32_t)) : NULL;
		if (!push_op(b, g->at, r, &cp)) {
			wl_op_clear(o);
			return false;
		}
	}
	wl_op_clear(o);
	g->n++;
	if (total_ops(b) > WORKLOAD_MAX_OPS)
		return cfg_fail(b->c, g->at, CONFIG_ERROR_VALUE,
				"the pattern makes more than %u ops over all ranks", WORKLOAD_MAX_OPS);
	return true;
}

static bool gen_compute(struct gen *g, const char *id, double seconds, const uint32_t *after,
			uint32_t nafter)
{
	struct wl_op o = { .kind = WL_COMPUTE, .comm = -1, .nchunks = 1, .peer = 1 };

	o.dur_ps = (sim_time_t)llround(seconds * 1e12);
	return gen_push(g, &o, id, "compute", after, nafter);
}

static bool gen_coll(struct gen *g, const char *id, enum coll c, uint64_t bytes, int comm,
		     enum ir_dtype dt, const uint32_t *after, uint32_t nafter)
{
	struct wl_op o = { .kind = WL_COLLECTIVE, .coll = c, .bytes = bytes, .comm = comm,
			   .dtype = dt, .nchunks = 1, .peer = 1 };

	return gen_push(g, &o, id, "comm", after, nafter);
}

/* Per layer: forward time and the layer's parameter bytes. */
static double layer_fwd_s(const struct pattern *p)
{
	return 2.0 * ((double)p->params / p->layers) * (double)p->tokens / p->flops;
}

static bool generate(struct build *b, const struct ynode *at, const struct pattern *p)
{
	struct gen g = { .b = b, .at = at };
	uint32_t dsz = ir_dtype_size(p->dtype);
	uint64_t layer_bytes = p->params / (uint64_t)p->layers * dsz;
	double fwd = layer_fwd_s(p), bwd = 2 * fwd;
	int world = comm_id(b, "world"), grp;
	char id[64];
	uint32_t last = UINT32_MAX; /* index of the previous compute op */
	uint32_t dep[2];

#define AFTER1(x) ((x) == UINT32_MAX ? NULL : (dep[0] = (x), dep)), ((x) == UINT32_MAX ? 0u : 1u)
	if (!strcmp(p->name, "dp")) {
		uint64_t pending = 0;
		int nb = 0;
		g_autoptr(GArray) colls = g_array_new(FALSE, FALSE, sizeof(uint32_t));

		for (int mb = 0; mb < p->microbatches; mb++) {
			for (int l = 0; l < p->layers; l++) {
				snprintf(id, sizeof(id), "fwd%d.%d", mb, l);
				if (!gen_compute(&g, id, fwd, AFTER1(last)))
					return false;
				last = g.n - 1;
			}
			for (int l = p->layers - 1; l >= 0; l--) {
				snprintf(id, sizeof(id), "bwd%d.%d", mb, l);
				if (!gen_compute(&g, id, bwd, AFTER1(last)))
					return false;
				last = g.n - 1;
				if (mb + 1 < p->microbatches)
					continue;
				pending += layer_bytes;
				if (pending >= p->bucket || l == 0) {
					snprintf(id, sizeof(id), "allreduce.b%d", nb++);
					if (!gen_coll(&g, id, COLL_ALLREDUCE, pending, world, p->dtype,
						      AFTER1(last)))
						return false;
					uint32_t at_ = g.n - 1;

					g_array_append_val(colls, at_);
					pending = 0;
				}
			}
		}
		return gen_compute(&g, "optimizer", 0, (uint32_t *)(void *)colls->data, colls->len);
	}
	if (!strcmp(p->name, "fsdp")) {
		uint32_t ag_prev = UINT32_MAX;
		g_autoptr(GArray) rs = g_array_new(FALSE, FALSE, sizeof(uint32_t));

		for (int mb = 0; mb < p->microbatches; mb++) {
			for (int pass = 0; pass < 2; pass++)
				for (int i = 0; i < p->layers; i++) {
					int l = pass ? p->layers - 1 - i : i;
					uint32_t ag;

					/* The gather runs ahead on the comm stream (prefetch);
					 * the layer waits for its own gather. */
					snprintf(id, sizeof(id), "%s%d.%d.gather", pass ? "bwd" : "fwd", mb, l);
					if (!gen_coll(&g, id, COLL_ALLGATHER, layer_bytes, world, p->dtype,
						      AFTER1(ag_prev)))
						return false;
					ag = ag_prev = g.n - 1;
					snprintf(id, sizeof(id), "%s%d.%d", pass ? "bwd" : "fwd", mb, l);
					dep[0] = ag;
					dep[1] = last;
					if (!gen_compute(&g, id, pass ? bwd : fwd, dep, last == UINT32_MAX ? 1 : 2))
						return false;
					last = g.n - 1;
					if (pass && mb + 1 == p->microbatches) {
						snprintf(id, sizeof(id), "bwd%d.%d.reduce", mb, l);
						if (!gen_coll(&g, id, COLL_REDUCESCATTER, layer_bytes, world,
							      p->dtype, AFTER1(last)))
							return false;
						uint32_t at_ = g.n - 1;

						g_array_append_val(rs, at_);
					}
				}
		}
		return gen_compute(&g, "optimizer", 0, (uint32_t *)(void *)rs->data, rs->len);
	}
	if (!strcmp(p->name, "tp") || !strcmp(p->name, "moe")) {
		bool moe = !strcmp(p->name, "moe");
		uint64_t act = p->tokens * (uint64_t)p->hidden * dsz * (moe ? (uint64_t)p->topk : 1);

		grp = comm_id(b, moe ? "ep" : "tp");
		for (int mb = 0; mb < p->microbatches; mb++)
			for (int pass = 0; pass < 2; pass++)
				for (int i = 0; i < p->layers; i++) {
					int l = pass ? p->layers - 1 - i : i;
					double t = (pass ? bwd : fwd) / 2;
					const char *ph = pass ? "bwd" : "fwd";

					/* tp: each half of a layer ends in an AllReduce of the
					 * activations; moe: a dispatch and a combine AllToAll
					 * around the experts. */
					for (int half = 0; half < 2; half++) {
						snprintf(id, sizeof(id), "%s%d.%d.%c", ph, mb, l, "ab"[half]);
						if (!gen_compute(&g, id, t, AFTER1(last)))
							return false;
						last = g.n - 1;
						snprintf(id, sizeof(id), "%s%d.%d.%c.%s", ph, mb, l, "ab"[half],
							 moe ? "alltoall" : "allreduce");
						if (!gen_coll(&g, id, moe ? COLL_ALLTOALL : COLL_ALLREDUCE, act,
							      grp, p->dtype, AFTER1(last)))
							return false;
						last = g.n - 1;
					}
				}
		return true;
	}
#undef AFTER1
	g_assert_not_reached();
}

static const char *const pattern_names = "dp, fsdp, tp, moe";
static const char *const pattern_keys =
	"pattern, params, layers, tokens, microbatches, hidden, dtype, tflops, bucket, group, topk";

static bool read_generate(struct build *b, const struct ynode *m)
{
	const struct ctx *c = b->c;
	struct pattern p = { .layers = 0, .tokens = 4096, .microbatches = 1, .dtype = IR_DTYPE_BF16,
			     .flops = 400e12, .bucket = 25u << 20, .group = b->w->nranks, .topk = 2 };
	const struct ynode *name = NULL;
	bool have_params = false;

	if (!cfg_need_map(c, m, "generate") || !cfg_map_check_keys(c, m, "generate"))
		return false;
	for (guint i = 0; i + 1 < m->kids->len; i += 2) {
		const struct ynode *k = m->kids->pdata[i], *v = m->kids->pdata[i + 1];
		g_autofree char *full = cfg_join_key("generate", k->text);
		int64_t x;
		GError *e = NULL;

		if (!cfg_need_scalar(c, v, full))
			return false;
		if (!strcmp(k->text, "pattern")) {
			name = v;
			p.name = v->text;
		} else if (!strcmp(k->text, "params")) {
			double d;

			if (!cfg_parse_double(v->text, &d) || !(d >= 1) || d > 1e15)
				return cfg_fail(c, v, CONFIG_ERROR_VALUE,
						"'%s' must be a parameter count such as 7e9, got '%s'",
						full, quote_text(v->text).s);
			p.params = (uint64_t)d;
			have_params = true;
		} else if (!strcmp(k->text, "layers")) {
			if (!read_int_node(c, v, full, 1, 1000, &x))
				return false;
			p.layers = (int)x;
		} else if (!strcmp(k->text, "tokens")) {
			if (!read_int_node(c, v, full, 1, INT32_MAX, &x))
				return false;
			p.tokens = (uint64_t)x;
		} else if (!strcmp(k->text, "microbatches")) {
			if (!read_int_node(c, v, full, 1, 64, &x))
				return false;
			p.microbatches = (int)x;
		} else if (!strcmp(k->text, "hidden")) {
			if (!read_int_node(c, v, full, 1, 1 << 20, &x))
				return false;
			p.hidden = (int)x;
		} else if (!strcmp(k->text, "group")) {
			if (!read_int_node(c, v, full, 2, b->w->nranks, &x))
				return false;
			p.group = (int)x;
		} else if (!strcmp(k->text, "topk")) {
			if (!read_int_node(c, v, full, 1, 64, &x))
				return false;
			p.topk = (int)x;
		} else if (!strcmp(k->text, "dtype")) {
			enum dtype d;

			if (!dtype_parse(v->text, &d))
				return cfg_fail(c, v, CONFIG_ERROR_VALUE,
						"'%s' must be one of " DTYPE_KNOWN ", got '%s'", full,
						quote_text(v->text).s);
			p.dtype = (enum ir_dtype)d;
		} else if (!strcmp(k->text, "tflops")) {
			double d;

			if (!cfg_parse_double(v->text, &d) || !(d > 0) || d > 1e6)
				return cfg_fail(c, v, CONFIG_ERROR_VALUE,
						"'%s' must be a rate in TFLOP/s such as 400, got '%s'",
						full, quote_text(v->text).s);
			p.flops = d * 1e12;
		} else if (!strcmp(k->text, "bucket")) {
			if (!units_parse_size(v->text, &p.bucket, &e) || !p.bucket) {
				cfg_fail(c, v, CONFIG_ERROR_VALUE, "'%s': %s", full,
					 e ? e->message : "must be more than 0 bytes");
				if (e)
					g_error_free(e);
				return false;
			}
		} else {
			g_autofree char *hint = spell_hint(k->text, pattern_keys);

			return cfg_fail(c, k, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)%s",
					quote_text(full).s, pattern_keys, hint);
		}
	}
	if (!name)
		return cfg_fail(c, m, CONFIG_ERROR_SCHEMA, "'generate' needs 'pattern' (known: %s)",
				pattern_names);
	if (strcmp(p.name, "dp") && strcmp(p.name, "fsdp") && strcmp(p.name, "tp") &&
	    strcmp(p.name, "moe")) {
		g_autofree char *hint = spell_hint(p.name, pattern_names);

		return cfg_fail(c, name, CONFIG_ERROR_VALUE, "unknown pattern '%s' (known: %s)%s",
				quote_text(p.name).s, pattern_names, hint);
	}
	if (!have_params || !p.layers)
		return cfg_fail(c, m, CONFIG_ERROR_SCHEMA, "'generate' needs 'params' and 'layers'");
	if (p.params < (uint64_t)p.layers)
		return cfg_fail(c, m, CONFIG_ERROR_VALUE, "'generate': fewer params than layers");
	if (!p.hidden) /* a transformer layer holds about 12 x hidden^2 parameters */
		p.hidden = (int)fmax(1, sqrt((double)p.params / p.layers / 12));
	if (!strcmp(p.name, "tp") || !strcmp(p.name, "moe")) {
		const char *cn = !strcmp(p.name, "tp") ? "tp" : "ep";

		if (b->w->nranks % p.group)
			return cfg_fail(c, m, CONFIG_ERROR_VALUE,
					"'generate.group' (%d) must divide the %d ranks", p.group,
					b->w->nranks);
		if (comm_id(b, cn) < 0) {
			struct wl_comm *cm = comm_strided(cn, b->w->nranks, p.group, 1);

			g_ptr_array_add(b->comms, cm);
		}
	}
	return generate(b, m, &p);
}

/* ---- Checks across ranks. ---- */

/* The k-th collective of every member of a group is one call: the same
 * collective, size, dtype, root, peer, algorithm and nchunks. */
static bool check_calls(struct build *b, const struct ynode *at)
{
	struct workload *w = b->w;

	for (int ci = 0; ci < w->ncomms; ci++) {
		const struct wl_comm *cm = &w->comms[ci];

		for (int g = 0; g < cm->ngroups; g++) {
			int r0 = cm->members[g * cm->group_size];
			const struct wl_program *p0 = &w->progs[r0];

			for (int i = 1; i < cm->group_size; i++) {
				int r = cm->members[g * cm->group_size + i];
				const struct wl_program *p = &w->progs[r];
				uint32_t a = 0, k = 0, n = 0;

				for (;;) {
					while (a < p0->nops && !(p0->ops[a].kind == WL_COLLECTIVE &&
								 p0->ops[a].comm == ci))
						a++;
					while (k < p->nops && !(p->ops[k].kind == WL_COLLECTIVE &&
								p->ops[k].comm == ci))
						k++;
					if (a == p0->nops && k == p->nops)
						break;
					if (a == p0->nops || k == p->nops)
						return cfg_fail(b->c, at, CONFIG_ERROR_VALUE,
								"ranks %d and %d of a group of '%s' issue %s "
								"collectives on it: rank %d has one more "
								"(op '%s'); the job would hang", r0, r,
								cm->name, "different numbers of",
								a == p0->nops ? r : r0,
								a == p0->nops ? p->ops[k].id : p0->ops[a].id);
					const struct wl_op *x = &p0->ops[a], *y = &p->ops[k];

					if (x->coll != y->coll || x->bytes != y->bytes ||
					    x->dtype != y->dtype || x->root != y->root ||
					    x->peer != y->peer || x->nchunks != y->nchunks ||
					    strcmp(x->algo, y->algo))
						return cfg_fail(b->c, at, CONFIG_ERROR_VALUE,
								"call %u on a group of '%s' differs between "
								"rank %d (op '%s': %s) and rank %d (op '%s': "
								"%s); the job would hang", n, cm->name, r0,
								x->id, coll_name(x->coll), r, y->id,
								coll_name(y->coll));
					a++;
					k++;
					n++;
				}
			}
		}
	}
	return true;
}

/* Moves the build's arrays into the workload. */
static void finish(struct build *b)
{
	struct workload *w = b->w;

	w->progs = g_new0(struct wl_program, w->nranks);
	for (int r = 0; r < w->nranks; r++) {
		w->progs[r].nops = b->ops[r]->len;
		w->progs[r].ops = (struct wl_op *)g_array_free(b->ops[r], FALSE);
		b->ops[r] = NULL;
	}
	w->ncomms = (int)b->comms->len;
	w->comms = g_new0(struct wl_comm, w->ncomms ? w->ncomms : 1);
	for (int i = 0; i < w->ncomms; i++) {
		struct wl_comm *m = b->comms->pdata[i];

		w->comms[i] = *m;
		g_free(m);
		b->comms->pdata[i] = NULL;
	}
	w->nstreams = (int)b->streams->len;
	g_ptr_array_add(b->streams, NULL);
	w->streams = (char **)g_ptr_array_free(b->streams, FALSE);
	b->streams = NULL;
}

static void build_clear(struct build *b)
{
	for (int r = 0; b->ops && r < b->w->nranks; r++)
		if (b->ops[r]) {
			for (guint i = 0; i < b->ops[r]->len; i++)
				wl_op_clear(&g_array_index(b->ops[r], struct wl_op, i));
			g_array_free(b->ops[r], TRUE);
		}
	g_free(b->ops);
	if (b->streams)
		g_ptr_array_free(b->streams, TRUE);
	if (b->comms)
		g_ptr_array_free(b->comms, TRUE);
}

/* Whether `name` is one of the ", "-separated names of `list`. */
static bool name_in_list(const char *name, const char *list)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		if (!e)
			break;
		p = e + 2;
	}
	return false;
}

static const char *const top_keys =
	"schema_version, name, ranks, communicators, program, programs, generate";

struct workload *workload_parse(const char *path, const char *text, size_t len, GError **error)
{
	struct ctx c = { .path = path, .error = error };
	struct ynode *root = cfg_yaml_read(path, text, len, error);
	struct build b = { .c = &c };
	const struct ynode *n;
	bool ok = false;

	if (!root)
		return NULL;
	b.w = g_new0(struct workload, 1);
	if (!cfg_check_schema_version(&c, root) || !cfg_map_check_keys(&c, root, ""))
		goto out;
	for (guint i = 0; i + 1 < root->kids->len; i += 2) {
		const struct ynode *k = root->kids->pdata[i];

		if (!name_in_list(k->text, top_keys)) {
			g_autofree char *hint = spell_hint(k->text, top_keys);

			cfg_fail(&c, k, CONFIG_ERROR_SCHEMA, "unknown key '%s' (known: %s)%s",
				 quote_text(k->text).s, top_keys, hint);
			goto out;
		}
	}
	if ((n = cfg_map_get(root, "name"))) {
		if (!need_name(&c, n, "name"))
			goto out;
		b.w->name = g_strdup(n->text);
	} else {
		b.w->name = g_strdup("workload");
	}
	if (!(n = cfg_map_get(root, "ranks"))) {
		cfg_fail(&c, root, CONFIG_ERROR_SCHEMA, "missing key 'ranks' (the workload's rank count)");
		goto out;
	}
	int64_t nr;

	if (!read_int_node(&c, n, "ranks", 2, WORKLOAD_MAX_RANKS, &nr))
		goto out;
	b.w->nranks = (int)nr;
	b.ops = g_new0(GArray *, b.w->nranks);
	for (int r = 0; r < b.w->nranks; r++)
		b.ops[r] = g_array_new(FALSE, TRUE, sizeof(struct wl_op));
	b.streams = g_ptr_array_new_with_free_func(g_free);
	b.comms = g_ptr_array_new_with_free_func(wl_comm_free);
	if ((n = cfg_map_get(root, "communicators"))) {
		if (!cfg_need_map(&c, n, "communicators") || !cfg_map_check_keys(&c, n, "communicators"))
			goto out;
		for (guint i = 0; i + 1 < n->kids->len; i += 2)
			if (!read_comm(&b, n->kids->pdata[i], n->kids->pdata[i + 1]))
				goto out;
	}
	if (comm_id(&b, "world") < 0)
		g_ptr_array_add(b.comms, comm_strided("world", b.w->nranks, b.w->nranks, 1));

	const struct ynode *prog = cfg_map_get(root, "program"),
			   *progs = cfg_map_get(root, "programs"), *gen = cfg_map_get(root, "generate");

	if (!!prog + !!progs + !!gen != 1) {
		cfg_fail(&c, root, CONFIG_ERROR_SCHEMA,
			 "a workload has exactly one of 'program' (every rank), 'programs' (per "
			 "set of ranks) or 'generate' (a pattern)");
		goto out;
	}
	if (prog) {
		int *all = g_new(int, b.w->nranks);

		for (int r = 0; r < b.w->nranks; r++)
			all[r] = r;
		ok = read_ops(&b, prog, "program", all, b.w->nranks);
		g_free(all);
	} else if (progs) {
		bool *covered = g_new0(bool, b.w->nranks);

		ok = progs->kind == YN_SEQ ||
		     cfg_fail(&c, progs, CONFIG_ERROR_SCHEMA,
			      "'programs' must be a list of {ranks, ops}, got %s", cfg_ynode_kind_name(progs));
		for (guint i = 0; ok && i < progs->kids->len; i++) {
			const struct ynode *e = progs->kids->pdata[i], *rs = NULL, *ops = NULL;
			g_autofree char *where = g_strdup_printf("programs[%u]", i);
			int nset = 0, *set = NULL;

			ok = cfg_need_map(&c, e, where) && cfg_map_check_keys(&c, e, where);
			if (ok && (!(rs = cfg_map_get(e, "ranks")) || !(ops = cfg_map_get(e, "ops")) ||
				   e->kids->len != 4))
				ok = cfg_fail(&c, e, CONFIG_ERROR_SCHEMA,
					      "'%s' must have exactly the keys 'ranks' and 'ops'", where);
			if (ok) {
				g_autofree char *rk = g_strdup_printf("%s.ranks", where);
				g_autofree char *ok_ = g_strdup_printf("%s.ops", where);

				ok = (set = read_rank_set(&b, rs, rk, &nset)) != NULL;
				for (int j = 0; ok && j < nset; j++) {
					if (covered[set[j]])
						ok = cfg_fail(&c, rs, CONFIG_ERROR_VALUE,
							      "rank %d has two programs", set[j]);
					covered[set[j]] = true;
				}
				if (ok && nset)
					ok = read_ops(&b, ops, ok_, set, nset);
			}
			g_free(set);
		}
		for (int r = 0; ok && r < b.w->nranks; r++)
			if (!covered[r])
				ok = cfg_fail(&c, progs, CONFIG_ERROR_VALUE, "rank %d has no program", r);
		g_free(covered);
	} else {
		ok = read_generate(&b, gen);
	}
	if (!ok)
		goto out;
	ok = false;
	finish(&b);
	ok = check_calls(&b, prog ? prog : progs ? progs : gen);
out:
	build_clear(&b);
	cfg_ynode_free(root);
	if (!ok) {
		workload_free(b.w);
		return NULL;
	}
	return b.w;
}

struct workload *workload_load(const char *path, GError **error)
{
	char *text;
	size_t len;

	if (!cfg_read_file(path, &text, &len, error))
		return NULL;
	struct workload *w = workload_parse(path, text, len, error);

	g_free(text);
	return w;
}

void workload_totals(const struct workload *w, int r, struct wl_totals *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < w->progs[r].nops; i++) {
		const struct wl_op *o = &w->progs[r].ops[i];

		if (o->kind == WL_COMPUTE) {
			out->computes++;
			out->compute_ps += o->dur_ps;
		} else {
			out->colls++;
			out->coll_bytes += o->bytes;
		}
	}
}

/* ---- Writing. ---- */

bool workload_write(const struct workload *w, const char *path, GError **error)
{
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "schema_version: %d\nname: %s\nranks: %d\ncommunicators:\n",
			       WORKLOAD_SCHEMA_VERSION, w->name, w->nranks);
	for (int i = 0; i < w->ncomms; i++) {
		const struct wl_comm *m = &w->comms[i];

		g_string_append_printf(s, "  %s: [", m->name);
		for (int g = 0; g < m->ngroups; g++) {
			g_string_append_printf(s, "%s[", g ? ", " : "");
			for (int k = 0; k < m->group_size; k++)
				g_string_append_printf(s, "%s%d", k ? ", " : "", m->members[g * m->group_size + k]);
			g_string_append_c(s, ']');
		}
		g_string_append(s, "]\n");
	}
	g_string_append(s, "programs:\n");
	for (int r = 0; r < w->nranks; r++) {
		g_string_append_printf(s, "  - ranks: [%d]\n    ops:\n", r);
		for (uint32_t i = 0; i < w->progs[r].nops; i++) {
			const struct wl_op *o = &w->progs[r].ops[i];

			if (o->kind == WL_COMPUTE)
				g_string_append_printf(s, "      - {compute: %" G_GUINT64_FORMAT "ps", (uint64_t)o->dur_ps);
			else {
				g_string_append_printf(s, "      - {%s: %" G_GUINT64_FORMAT ", dtype: %s, comm: %s, algo: %s",
						       coll_name(o->coll), o->bytes, dtype_name((enum dtype)o->dtype),
						       w->comms[o->comm].name, o->algo);
				if (o->coll == COLL_BROADCAST || o->coll == COLL_REDUCE || o->coll == COLL_P2P)
					g_string_append_printf(s, ", root: %d", o->root);
				if (o->coll == COLL_P2P)
					g_string_append_printf(s, ", peer: %d", o->peer);
				if (o->nchunks != 1)
					g_string_append_printf(s, ", nchunks: %u", o->nchunks);
			}
			g_string_append_printf(s, ", id: %s, stream: %s", o->id, w->streams[o->stream]);
			if (o->nafter) {
				g_string_append(s, ", after: [");
				for (uint32_t k = 0; k < o->nafter; k++)
					g_string_append_printf(s, "%s%s", k ? ", " : "",
							       w->progs[r].ops[o->after[k]].id);
				g_string_append_c(s, ']');
			}
			g_string_append(s, "}\n");
		}
	}
	bool ok = g_file_set_contents(path, s->str, (gssize)s->len, error);

	g_string_free(s, TRUE);
	return ok;
}

struct workload *workload_one(int nranks, const int *members, int n, const struct wl_op *op)
{
	struct workload *w = g_new0(struct workload, 1);
	struct wl_comm *m;

	w->name = g_strdup("one");
	w->nranks = nranks;
	w->ncomms = 1;
	w->comms = m = g_new0(struct wl_comm, 1);
	m->name = g_strdup("group");
	m->ngroups = 1;
	m->group_size = n;
	m->members = g_memdup2(members, sizeof(int) * (gsize)n);
	m->group_of = g_new(int, nranks);
	for (int r = 0; r < nranks; r++)
		m->group_of[r] = -1;
	for (int i = 0; i < n; i++)
		m->group_of[members[i]] = 0;
	w->nstreams = 1;
	w->streams = g_new0(char *, 2);
	w->streams[0] = g_strdup("comm");
	w->progs = g_new0(struct wl_program, nranks);
	for (int i = 0; i < n; i++) {
		struct wl_program *p = &w->progs[members[i]];

		p->nops = 1;
		p->ops = g_new0(struct wl_op, 1);
		p->ops[0] = *op;
		p->ops[0].id = g_strdup(op->id ? op->id : "op0");
		p->ops[0].algo = g_strdup(op->algo ? op->algo : "auto");
		p->ops[0].after = NULL;
		p->ops[0].nafter = 0;
		p->ops[0].comm = 0;
		p->ops[0].stream = 0;
	}
	return w;
}
