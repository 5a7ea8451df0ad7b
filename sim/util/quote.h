/* sim/util/quote — user text inside an error message. Whatever a user
 * gives (a flag's value, a YAML scalar or key, a field of a measured file)
 * is echoed cut to its first QUOTE_MAX_BYTES bytes, "..." marking the cut,
 * with control and non-ASCII bytes escaped as g_strescape() does (\n,
 * \t, \303, ...): a message stays one short line however long or odd the
 * text was. Every message that quotes user text goes through quote_text(),
 * so the rule is one. */
#ifndef G5_SIM_UTIL_QUOTE_H
#define G5_SIM_UTIL_QUOTE_H

#define QUOTE_MAX_BYTES 40

/* The quoted form in a fixed buffer: an escaped byte takes at most 4. */
struct quote {
	char s[QUOTE_MAX_BYTES * 4 + sizeof("...")];
};

/* `text` (NULL reads as "") cut and escaped as above, without the quote
 * marks, which the message writes: "got '%s'", quote_text(v).s. The
 * returned value is a temporary that lives to the end of the full
 * expression, so use .s within the call that prints it. */
struct quote quote_text(const char *text);

#endif
