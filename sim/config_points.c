/* An experiment's points (config.h): how many, in which order, and the
 * platform and weights of each. */
#include "sim/config_int.h"

#include <string.h>

#include "sim/util/weights.h"

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

		if (!cfg_pkey_set(out, cfg_pkey_find(sw->key), sw->values->pdata[pt->sweep[s]], &mask, &err)) {
			g_set_error(error, CONFIG_ERROR, CONFIG_ERROR_VALUE, "'sweep.%s' %s", sw->key,
				    err->message);
			g_error_free(err);
			platform_release(out);
			return false;
		}
	}
	if (out->fabric.nranks != pt->ranks) {
		out->fabric.nranks = pt->ranks;
		if (fabric_dims_product(&out->fabric) != pt->ranks)
			memset(out->fabric.dims, 0, sizeof(out->fabric.dims));
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
	case COUNTS_DIST:
		return weights_draw(nranks, &e->counts_dist, e->counts_seed);
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
