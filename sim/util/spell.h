/* sim/util/spell — "did you mean" for names a user types: the known name
 * nearest to a misspelt one by edit distance (optimal string alignment:
 * insertions, deletions, substitutions and swaps of two neighbours, each one
 * edit; letters compare without case). A name is suggested only when it is
 * close enough to be a slip of the fingers: at most one edit for a word of
 * up to four characters, two up to eight, three beyond, and fewer edits
 * than the word has characters. */
#ifndef G5_SIM_UTIL_SPELL_H
#define G5_SIM_UTIL_SPELL_H

#include <glib.h>
#include <stddef.h>

/* The edit distance between a and b (as above). */
size_t spell_distance(const char *a, const char *b);

/* The name of `known` (a list such as "ring, ring2p, hd": names separated by
 * commas and spaces) closest to `word`, newly allocated, or NULL when none
 * is close enough or `word` is one of them. Ties go to the first listed. */
char *spell_closest(const char *word, const char *known);

/* "; did you mean 'NAME'?" for the closest name of `known`, or "" (both
 * newly allocated): appended to an "unknown ... (known: ...)" message. */
char *spell_hint(const char *word, const char *known);

#endif
