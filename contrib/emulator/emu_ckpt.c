/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emu_ckpt.c — atomic checkpoint file of the workload emulator; see
 * emu_ckpt.h. Runs as the job's user, never as root. */
#include "emu_ckpt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *msg, size_t len, const char *what, const char *path)
{
	int e = errno;

	snprintf(msg, len, "%s %s: %s", what, path, strerror(e));
	errno = e;
	return -1;
}

/* mkdir -p with mode 0700 for the parts that do not exist. */
static int mkdirs(const char *dir, char *msg, size_t len)
{
	char buf[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return fail(msg, len, "checkpoint directory", dir);
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0700) < 0 && errno != EEXIST)
				return fail(msg, len, "mkdir", buf);
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

int emu_ckpt_save(const char *dir, const char *model, int sf, uint64_t step,
		  char *msg, size_t msglen)
{
	char path[4200], tmp[4250], line[512];
	int fd, n;

	if (mkdirs(dir, msg, msglen) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, EMU_CKPT_FILE);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	n = snprintf(line, sizeof(line), "hetsched-emulator 1 step=%llu sf=%d model=%s\n",
		     (unsigned long long)step, sf, model);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		errno = ENAMETOOLONG;
		return fail(msg, msglen, "checkpoint line for", model);
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(msg, msglen, "create", tmp);
	if (write(fd, line, (size_t)n) != n || fsync(fd) < 0) {
		fail(msg, msglen, "write", tmp);
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		fail(msg, msglen, "rename", tmp);
		unlink(tmp);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);  /* make the rename durable */
		close(fd);
	}
	return 0;
}

int emu_ckpt_load(const char *dir, const char *model, int sf, uint64_t *step,
		  char *msg, size_t msglen)
{
	char path[4200], line[600], *nl;
	unsigned long long s;
	int fd, csf, off = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, EMU_CKPT_FILE);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return fail(msg, msglen, "open", path);
	}
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 0)
		return fail(msg, msglen, "read", path);
	line[n] = '\0';
	nl = strchr(line, '\n');
	if (!nl || nl[1] != '\0' ||
	    sscanf(line, "hetsched-emulator 1 step=%llu sf=%d model=%n", &s, &csf, &off) != 2 || !off) {
		snprintf(msg, msglen, "%s: not a hetsched-emulator checkpoint", path);
		return -1;
	}
	*nl = '\0';
	if (csf != sf || strcmp(line + off, model) != 0) {
		snprintf(msg, msglen, "%s: checkpoint of ('%s', %d), not of this job", path, line + off, csf);
		return -1;
	}
	*step = s;
	return 1;
}
