/* Per-rank weights for AllGatherV; see weights.h. */
#include "sim/util/weights.h"
#include "sim/util/quote.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(g5-weights-error-quark, weights_error)

static GRand *weights_rng(uint64_t seed);

uint64_t *weights_zipf(int nranks, double s, uint64_t seed)
{
	g_autoptr(GRand) rng = weights_rng(seed);
	int *perm = g_new(int, nranks);
	uint64_t *w = g_new(uint64_t, nranks);

	for (int i = 0; i < nranks; i++)
		perm[i] = i;
	for (int i = nranks - 1; i > 0; i--) {
		int j = g_rand_int_range(rng, 0, i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int k = 0; k < nranks; k++) {
		double v = floor(1e6 / pow((double)(k + 1), s) + 0.5);

		w[perm[k]] = v < 1 ? 1 : (uint64_t)v;
	}
	g_free(perm);
	return w;
}

static GRand *weights_rng(uint64_t seed)
{
	return g_rand_new_with_seed_array((const guint32[]){ (guint32)seed, (guint32)(seed >> 32) },
					  2);
}

static uint64_t *weights_lognormal(int nranks, double sigma, uint64_t seed)
{
	g_autoptr(GRand) rng = weights_rng(seed);
	uint64_t *w = g_new(uint64_t, nranks);

	for (int r = 0; r < nranks; r++) {
		/* uniforms in (0, 1]: log never sees 0 */
		double u1 = 1.0 - g_rand_double(rng), u2 = g_rand_double(rng);
		double z = sqrt(-2.0 * log(u1)) * cos(2.0 * G_PI * u2);
		double v = floor(1e6 * exp(sigma * z) + 0.5);

		w[r] = v < 1 ? 1 : v > 1e15 ? (uint64_t)1e15 : (uint64_t)v;
	}
	return w;
}

static uint64_t *weights_heavy(int nranks, double f, uint64_t seed)
{
	g_autoptr(GRand) rng = weights_rng(seed);
	uint64_t *w = g_new(uint64_t, nranks);
	int heavy = g_rand_int_range(rng, 0, nranks);

	for (int r = 0; r < nranks; r++)
		w[r] = r == heavy ? (uint64_t)floor(f * 1e6 + 0.5) : 1000000;
	return w;
}

uint64_t *weights_draw(int nranks, const struct weights_dist *d, uint64_t seed)
{
	switch (d->family) {
	case WEIGHTS_ZIPF:
		return weights_zipf(nranks, d->param, seed);
	case WEIGHTS_LOGNORMAL:
		return weights_lognormal(nranks, d->param, seed);
	case WEIGHTS_HEAVY:
		return weights_heavy(nranks, d->param, seed);
	}
	g_error("weights_draw: unknown family %d", (int)d->family);
}

static const struct {
	const char *prefix, *usage;
	double lo, hi;
	bool lo_open;
} families[] = {
	[WEIGHTS_ZIPF] = { "zipf:", "zipf:S with S a number in (0, 10], such as zipf:1.2", 0, 10, true },
	[WEIGHTS_LOGNORMAL] = { "lognormal:",
				"lognormal:SIGMA with SIGMA a number in (0, 5], such as lognormal:1",
				0, 5, true },
	[WEIGHTS_HEAVY] = { "heavy:", "heavy:F with F a number in [1, 1000000], such as heavy:8", 1,
			    1e6, false },
};

char *weights_dist_name(const struct weights_dist *d)
{
	char num[G_ASCII_DTOSTR_BUF_SIZE];

	g_ascii_formatd(num, sizeof(num), "%g", d->param);
	return g_strconcat(families[d->family].prefix, num, NULL);
}

bool weights_parse_dist(const char *text, struct weights_dist *d, GError **error)
{
	for (size_t f = 0; f < G_N_ELEMENTS(families); f++) {
		size_t len = strlen(families[f].prefix);
		char *end = NULL;
		double v;

		if (strncmp(text, families[f].prefix, len))
			continue;
		v = g_ascii_strtod(text + len, &end);
		if (end != text + len && !*end && (families[f].lo_open ? v > families[f].lo
								   : v >= families[f].lo) &&
		    v <= families[f].hi) {
			d->family = (enum weights_family)f;
			d->param = v;
			return true;
		}
		g_set_error(error, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE, "must be %s, got '%s'",
			    families[f].usage, quote_text(text).s);
		return false;
	}
	g_set_error(error, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE,
		    "must be zipf:S, lognormal:SIGMA or heavy:F, such as zipf:1.2, got '%s'",
		    quote_text(text).s);
	return false;
}

double weights_skew(const uint64_t *w, int n)
{
	uint64_t max = 0;
	double sum = 0;

	if (!w)
		return 1.0;
	for (int r = 0; r < n; r++) {
		max = MAX(max, w[r]);
		sum += (double)w[r];
	}
	return sum > 0 ? (double)max * n / sum : 1.0;
}

bool weights_parse_list(const char *text, int n, uint64_t **out, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text, ",", -1);
	guint len = g_strv_length(parts);

	*out = NULL;
	if (len != (guint)n) {
		g_set_error(error, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE,
			    "needs %d comma-separated numbers, one per rank, got %u", n, len);
		return false;
	}
	uint64_t *w = g_new0(uint64_t, n);

	for (guint i = 0; i < len; i++) {
		guint64 v;
		GError *e = NULL;

		if (!g_ascii_string_to_unsigned(parts[i], 10, 0, G_MAXUINT32, &v, &e)) {
			bool range = g_error_matches(e, G_NUMBER_PARSER_ERROR,
						     G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS);

			g_error_free(e);
			if (range)
				g_set_error(error, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE,
					    "entry '%s' is above the largest weight, %u", quote_text(parts[i]).s,
					    G_MAXUINT32);
			else
				g_set_error(error, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE,
					    "entry '%s' is not a whole number", quote_text(parts[i]).s);
			g_free(w);
			return false;
		}
		w[i] = v;
	}
	*out = w;
	return true;
}
