/* sim/util/quote — user text cut and escaped for a message (quote.h). */
#include "sim/util/quote.h"

#include <glib.h>
#include <string.h>

struct quote quote_text(const char *text)
{
	struct quote q;
	size_t n = text ? strlen(text) : 0;
	g_autofree char *cut = g_strndup(text ? text : "", MIN(n, QUOTE_MAX_BYTES));
	g_autofree char *esc = g_strescape(cut, NULL);

	g_snprintf(q.s, sizeof(q.s), "%s%s", esc, n > QUOTE_MAX_BYTES ? "..." : "");
	return q;
}
