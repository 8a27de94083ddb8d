/* SPDX-License-Identifier: GPL-2.0-or-later */
/* statefile.c — atomic writes, bounded reads and setting bad files aside
 * (see statefile.h). */
#include "sched/statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hs_path_join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int hs_file_write_atomic(const char *path, const char *text, size_t len, int mode,
			 hs_err_t *err)
{
	char tmp[4096], dir[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp) ||
	    snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return hs_err_set(err, "%s: path too long", path);
	/* The directory may be writable by others (a StatusFile or
	 * MetricsFile directory): the temporary file is created exclusively,
	 * never opened as something planted there. O_NONBLOCK because an
	 * open of a FIFO for writing waits for a reader (it would block the
	 * caller, the sched plugin's agent thread); O_EXCL|O_CREAT neither
	 * opens an existing file nor follows a symlink. A stale name (ours
	 * from a crash, or planted) is unlinked, which removes the name
	 * itself, whatever it is, and created once more; if it is planted
	 * again in between, the write fails rather than blocks. */
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	int fd = open(tmp, flags, mode);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, flags, mode);
	if (fd < 0)
		return hs_err_set(err, "%s: %s", tmp, strerror(errno));
	if (fchmod(fd, (mode_t)mode) < 0 || write_all(fd, text, len) < 0 || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return hs_err_set(err, "%s: %s", tmp, strerror(e));
	}
	if (close(fd) < 0) {
		int e = errno;
		unlink(tmp);
		return hs_err_set(err, "%s: %s", tmp, strerror(e));
	}
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return hs_err_set(err, "rename %s: %s", path, strerror(e));
	}
	/* Make the rename durable. */
	int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

int hs_json_write_atomic(const char *path, json_object *o, int mode, hs_err_t *err)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (!text)
		return hs_err_set(err, "out of memory");
	return hs_file_write_atomic(path, text, strlen(text), mode, err);
}

int hs_file_read_small(const char *path, long max, char **out, size_t *len, hs_err_t *err)
{
	*out = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO planted at path would block the open until a
	 * writer comes; it is then refused below as not a regular file */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return hs_err_set(err, "%s: %s", path, strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return hs_err_set(err, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode) || st.st_size > max) {
		close(fd);
		return hs_err_set(err, "%s: not a regular file of at most %ld bytes", path, max);
	}
	size_t want = (size_t)st.st_size, got = 0;
	char *buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		return hs_err_set(err, "out of memory");
	}
	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got != want) {
		free(buf);
		return hs_err_set(err, "%s: short read", path);
	}
	buf[got] = 0;
	*out = buf;
	*len = got;
	return 1;
}

int hs_json_read(const char *path, json_object **out, hs_err_t *err)
{
	*out = NULL;
	char *buf;
	size_t len;
	int r = hs_file_read_small(path, HS_STATEFILE_MAX, &buf, &len, err);
	if (r <= 0)
		return r;
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		free(buf);
		return hs_err_set(err, "out of memory");
	}
	json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	int trailing = 0;
	for (size_t i = used; i < len; i++)
		if (buf[i] != ' ' && buf[i] != '\n' && buf[i] != '\t' && buf[i] != '\r')
			trailing = 1;
	free(buf);
	if (!o || je != json_tokener_success || trailing) {
		json_object_put(o);
		return hs_err_set(err, "%s: not valid JSON%s%s", path, o ? "" : ": ",
				  o ? "" : json_tokener_error_desc(je));
	}
	*out = o;
	return 1;
}

int hs_file_set_aside(const char *path, int64_t now, char *moved, size_t len, hs_err_t *err)
{
	if (snprintf(moved, len, "%s.bad-%lld", path, (long long)now) >= (int)len)
		return hs_err_set(err, "%s: path too long", path);
	if (rename(path, moved) < 0)
		return hs_err_set(err, "rename %s to %s: %s", path, moved, strerror(errno));
	return 0;
}
