/* sim/util/files — see files.h. */
#include "sim/util/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK(g5-files-error-quark, files_error)

char *files_in_tree(const char *rel)
{
	g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);

	if (!exe)
		return NULL;
	g_autofree char *dir = g_path_get_dirname(exe);
	char *cand = g_build_filename(dir, "..", rel, NULL);

	if (g_file_test(cand, G_FILE_TEST_IS_REGULAR))
		return cand;
	g_free(cand);
	return NULL;
}

char *files_tmp_name(const char *path)
{
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *base = g_path_get_basename(path);

	return g_strdup_printf("%s/.%s.tmp.%d", dir, base, (int)getpid());
}

static bool io_error(GError **error, const char *path, const char *what, int err)
{
	g_set_error(error, FILES_ERROR, FILES_ERROR_IO, "%s: cannot %s: %s", path, what,
		    g_strerror(err));
	return false;
}

/* Writes everything to fd, then closes it; false with errno's error. */
static bool write_all(int fd, const char *path, const char *text, gsize len, GError **error)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;

			close(fd);
			return io_error(error, path, "write", err);
		}
		text += n;
		len -= (gsize)n;
	}
	if (close(fd) != 0)
		return io_error(error, path, "write", errno);
	return true;
}

bool files_read(const char *path, gsize max_bytes, bool text_only, char **text, gsize *len,
		GError **error)
{
	bool in = !strcmp(path, "-");
	const char *name = in ? "<stdin>" : path;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	GString *g;

	if (fd < 0)
		return io_error(error, name, "read", errno);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return io_error(error, name, "read", EISDIR);
	}
	g = g_string_sized_new(S_ISREG(st.st_mode) && (guint64)st.st_size <= max_bytes
			       ? (gsize)st.st_size + 1 : 65536);
	for (;;) {
		char buf[65536];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			if (!in)
				close(fd);
			g_string_free(g, TRUE);
			return io_error(error, name, "read", err);
		}
		if (n == 0)
			break;
		const char *nul = text_only ? memchr(buf, 0, (size_t)n) : NULL;

		if ((gsize)n > max_bytes - g->len || nul) {
			if (!in)
				close(fd);
			if (nul)
				g_set_error(error, FILES_ERROR, FILES_ERROR_NOT_TEXT,
					    "%s: byte %" G_GSIZE_FORMAT " is NUL: not a text file", name,
					    g->len + (gsize)(nul - buf));
			else
				g_set_error(error, FILES_ERROR, FILES_ERROR_LARGE,
					    "%s: larger than %" G_GSIZE_FORMAT
					    " bytes, the most this reader takes", name, max_bytes);
			g_string_free(g, TRUE);
			return false;
		}
		g_string_append_len(g, buf, n);
	}
	if (!in)
		close(fd);
	*len = g->len;
	*text = g_string_free(g, FALSE);
	return true;
}

bool files_write(const char *path, const char *text, gsize len, GError **error)
{
	g_autofree char *tmp = files_tmp_name(path);

	return files_write_via(path, tmp, text, len, error);
}

bool files_write_via(const char *path, const char *tmp, const char *text, gsize len,
		     GError **error)
{
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return io_error(error, path, "write", EISDIR);
		int fd = open(path, O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			return io_error(error, path, "open", errno);
		return write_all(fd, path, text, len, error);
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return io_error(error, path, "write", errno);
	if (!write_all(fd, path, text, len, error)) {
		unlink(tmp);
		return false;
	}
	if (rename(tmp, path) != 0) {
		int err = errno;

		unlink(tmp);
		return io_error(error, path, "rename into place", err);
	}
	return true;
}
