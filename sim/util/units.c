/* Unit parsing for sizes, bandwidths and times; see units.h. Numbers are read
 * as decimal digits with an optional fraction, then scaled in 128-bit integer
 * arithmetic, so "26.56GB/s" is exactly 26560000000 bytes/s. */
#include "sim/util/units.h"
#include "sim/util/quote.h"

#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK(g5-units-error-quark, units_error)

struct suffix {
	const char *s;
	uint64_t mul; /* numerator */
};

/* Reads "digits[.digits]" into mantissa/10^frac. */
static bool read_number(const char **p, unsigned __int128 *mant, int *frac)
{
	const char *q = *p;
	bool any = false;

	*mant = 0;
	*frac = 0;
	while (*q >= '0' && *q <= '9') {
		*mant = *mant * 10 + (unsigned)(*q - '0');
		if (*mant > ((unsigned __int128)1 << 100))
			return false;
		q++;
		any = true;
	}
	if (*q == '.') {
		q++;
		while (*q >= '0' && *q <= '9') {
			if (*frac < 18) {
				*mant = *mant * 10 + (unsigned)(*q - '0');
				(*frac)++;
				if (*mant > ((unsigned __int128)1 << 100))
					return false;
			}
			q++;
			any = true;
		}
	}
	*p = q;
	return any;
}

static bool parse_with(const char *text, const struct suffix *sfx, size_t n, const char *what,
		       const char *example, uint64_t *out, GError **error)
{
	const char *p = text;
	unsigned __int128 mant;
	int frac;

	while (*p == ' ')
		p++;
	if (!read_number(&p, &mant, &frac))
		goto bad;
	while (*p == ' ')
		p++;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(p, sfx[i].s))
			continue;
		if (mant > ~(unsigned __int128)0 / sfx[i].mul)
			goto too_big; /* the product would wrap */
		unsigned __int128 v = mant * sfx[i].mul, div = 1;

		for (int k = 0; k < frac; k++)
			div *= 10;
		v = (v + div / 2) / div;
		if (v > UINT64_MAX)
			goto too_big;
		*out = (uint64_t)v;
		return true;
	}
	goto bad;
too_big:
	g_set_error(error, UNITS_ERROR, UNITS_ERROR_PARSE,
		    "'%s' is too large a %s (at most 2^64 - 1 of its base unit)", quote_text(text).s, what);
	return false;
bad:
	/* a unit in the wrong case ("64mib"): name the one meant */
	for (size_t i = 0; p != text && p - text <= QUOTE_MAX_BYTES && *p && i < n; i++)
		if (strcmp(p, sfx[i].s) && !g_ascii_strcasecmp(p, sfx[i].s)) {
			g_set_error(error, UNITS_ERROR, UNITS_ERROR_PARSE,
				    "must be a %s such as %s, got '%s' (did you mean '%.*s%s'?)", what,
				    example, quote_text(text).s, (int)(p - text), text, sfx[i].s);
			return false;
		}
	g_set_error(error, UNITS_ERROR, UNITS_ERROR_PARSE, "must be a %s such as %s, got '%s'", what,
		    example, quote_text(text).s);
	return false;
}

bool units_parse_size(const char *text, uint64_t *bytes, GError **error)
{
	static const struct suffix s[] = {
		{ "", 1 }, { "B", 1 },
		{ "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
		{ "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 },
		{ "KB", 1000ull }, { "MB", 1000000ull }, { "GB", 1000000000ull }, { "TB", 1000000000000ull },
	};

	return parse_with(text, s, G_N_ELEMENTS(s), "size", "64MiB", bytes, error);
}

bool units_parse_bw(const char *text, uint64_t *bytes_per_s, GError **error)
{
	static const struct suffix s[] = {
		{ "B/s", 1 }, { "KB/s", 1000ull }, { "MB/s", 1000000ull }, { "GB/s", 1000000000ull },
		{ "TB/s", 1000000000000ull },
		{ "KiB/s", 1ull << 10 }, { "MiB/s", 1ull << 20 }, { "GiB/s", 1ull << 30 },
	};

	if (!parse_with(text, s, G_N_ELEMENTS(s), "bandwidth", "450GB/s", bytes_per_s, error))
		return false;
	if (*bytes_per_s == 0) {
		g_set_error(error, UNITS_ERROR, UNITS_ERROR_PARSE,
			    "must be a bandwidth above zero, got '%s'", quote_text(text).s);
		return false;
	}
	return true;
}

bool units_parse_time(const char *text, uint64_t *ps, GError **error)
{
	static const struct suffix s[] = {
		{ "ps", 1 }, { "ns", 1000ull }, { "us", 1000000ull }, { "ms", 1000000000ull },
		{ "s", 1000000000000ull },
	};

	if (!strcmp(text, "0")) {
		*ps = 0;
		return true;
	}
	return parse_with(text, s, G_N_ELEMENTS(s), "time", "2us", ps, error);
}

char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (i < 4 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		i++;
	}
	snprintf(buf, len, "%" G_GUINT64_FORMAT "%s", bytes, names[i]);
	return buf;
}
