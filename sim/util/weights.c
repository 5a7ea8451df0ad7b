/* Per-rank weights for AllGatherV; see weights.h. */
#include "sim/util/weights.h"
#include "sim/util/quote.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(g5-weights-error-quark, weights_error)

uint64_t *weights_zipf(int nranks, double s, uint64_t seed)
{
	g_autoptr(GRand) rng = g_rand_new_with_seed_array(
		(const guint32[]){ (guint32)seed, (guint32)(seed >> 32) }, 2);
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

bool weights_parse_dist(const char *text, double *s, GError **error)
{
	char *end = NULL;

	if (!strncmp(text, "zipf:", 5)) {
		*s = g_ascii_strtod(text + 5, &end);
		if (end != text + 5 && !*end && *s > 0 && *s <= 10)
			return true;
	}
	g_set_error(error, WEIGHTS_ERROR, WEIGHTS_ERROR_PARSE,
		    "must be zipf:S with S a number in (0, 10], such as zipf:1.2, got '%s'", quote_text(text).s);
	return false;
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
