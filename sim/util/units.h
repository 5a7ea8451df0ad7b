/* sim/util/units — parsing and printing of sizes, bandwidths and times.
 *
 * Sizes are binary: "512", "4KiB", "64MiB", "1GiB" (also "B"); decimal "KB",
 * "MB", "GB" mean 1e3, 1e6, 1e9. Bandwidths are bytes per second with decimal
 * prefixes: "450GB/s", "26.56GB/s", "1TB/s", "100MB/s". Times: "2us", "500ns",
 * "1.5ms", "26us", "0", "300ps", "1s". Results are exact integers (bytes,
 * bytes/s, picoseconds); a fractional value is rounded to the nearest integer
 * of the unit. Units are case-sensitive ("64mib" is refused, with the
 * spelling meant). Every parser returns false with a message in `error`
 * (UNITS_ERROR) that quotes the text it could not read. */
#ifndef G5_SIM_UTIL_UNITS_H
#define G5_SIM_UTIL_UNITS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#define UNITS_ERROR (units_error_quark())
GQuark units_error_quark(void);
enum units_error_code {
	UNITS_ERROR_PARSE, /* not a number with a known unit, or out of range */
};

bool units_parse_size(const char *text, uint64_t *bytes, GError **error);
bool units_parse_bw(const char *text, uint64_t *bytes_per_s, GError **error);
bool units_parse_time(const char *text, uint64_t *ps, GError **error);

/* "64MiB", "1KiB", "1000B": exact binary form when there is one. Returns buf. */
char *units_format_size(uint64_t bytes, char *buf, size_t len);

#endif
