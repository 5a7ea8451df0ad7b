/* sim/util/files — writing a whole file so that a reader never sees half of it.
 *
 * A regular file (or a path that does not exist yet) is written under a
 * temporary name beside it and renamed over it: the old content or the new,
 * never a mix, and nothing left behind on failure. A path that exists and is
 * not a regular file (a character device such as /dev/stdout or /dev/null, a
 * FIFO) is written through, never replaced: renaming over it would turn the
 * device into a regular file. Either way every write and the close are
 * checked (/dev/full fails). A directory is refused. Errors are FILES_ERROR
 * and name the path. files_in_tree finds the data files of the source tree
 * (plots/, configs/) from the g5 binary's place in it. */
#ifndef G5_SIM_UTIL_FILES_H
#define G5_SIM_UTIL_FILES_H

#include <glib.h>
#include <stdbool.h>

#define FILES_ERROR (files_error_quark())
GQuark files_error_quark(void);
enum files_error_code {
	FILES_ERROR_IO,    /* cannot read, write, rename or close; a directory */
	FILES_ERROR_LARGE, /* more than the reader's limit */
	FILES_ERROR_NOT_TEXT, /* a NUL byte where text was asked for */
};

/* Reads all of path ("-": the standard input) into *text (NUL-terminated,
 * g_free() it) and its length into *len, refusing more than max_bytes: an
 * endless pipe stops there with "larger than" instead of filling memory.
 * With `text_only`, a NUL byte is refused as soon as it is read (a text
 * file has none; /dev/zero fails at its first block). Errors name the path. */
bool files_read(const char *path, gsize max_bytes, bool text_only, char **text, gsize *len,
		GError **error);

/* Writes len bytes of text to path as described above. */
bool files_write(const char *path, const char *text, gsize len, GError **error);

/* The same through the temporary name `tmp` (on path's file system):
 * for a writer that keeps its temporaries elsewhere than beside path. */
bool files_write_via(const char *path, const char *tmp, const char *text, gsize len,
		     GError **error);

/* The temporary name files_write uses beside path (g_free() it):
 * DIR/.BASE.tmp.PID. */
char *files_tmp_name(const char *path);

/* The path of `rel` (a file of the source tree: "plots/size.gp") beside the
 * running binary's parent directory (build/g5 -> build/../plots/size.gp)
 * when a regular file is there, else NULL. g_free() it. */
char *files_in_tree(const char *rel);

#endif
