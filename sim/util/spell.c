/* Suggestions for misspelt names: the optimal-string-alignment distance (the
 * Levenshtein distance plus a swap of two neighbouring characters as one
 * edit), computed with three rows of the usual dynamic-programming table,
 * and a threshold that grows with the word's length. */
#include "sim/util/spell.h"

#include <stdint.h>
#include <string.h>

size_t spell_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	size_t *prev2 = g_new(size_t, m + 1), *prev = g_new(size_t, m + 1), *cur = g_new(size_t, m + 1);
	size_t d;

	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = g_ascii_tolower(a[i - 1]) != g_ascii_tolower(b[j - 1]);
			size_t best = MIN(prev[j] + 1, cur[j - 1] + 1);

			best = MIN(best, prev[j - 1] + cost);
			if (i > 1 && j > 1 && g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 2]) &&
			    g_ascii_tolower(a[i - 2]) == g_ascii_tolower(b[j - 1]))
				best = MIN(best, prev2[j - 2] + 1);
			cur[j] = best;
		}
		size_t *t = prev2;

		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[m];
	g_free(prev2);
	g_free(prev);
	g_free(cur);
	return d;
}

char *spell_closest(const char *word, const char *known)
{
	g_auto(GStrv) names = g_strsplit_set(known, ", ", -1);
	size_t len = strlen(word);
	size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	if (limit >= len)
		limit = len ? len - 1 : 0;
	for (int i = 0; names[i]; i++) {
		if (!*names[i])
			continue;
		if (!strcmp(names[i], word))
			return NULL;
		/* the distance is at least the difference of the lengths: a
		 * long word is not compared at all */
		size_t nl = strlen(names[i]);

		if ((len > nl ? len - nl : nl - len) > limit)
			continue;
		size_t d = spell_distance(word, names[i]);

		if (d <= limit && d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return g_strdup(best);
}

char *spell_hint(const char *word, const char *known)
{
	g_autofree char *best = spell_closest(word, known);

	return best ? g_strdup_printf("; did you mean '%s'?", best) : g_strdup("");
}
