/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.c — /proc/<pid>/stat reader for sender checks; see proc.h. */
#include "report/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hs_proc_stat_parse(const char *text, char *state, pid_t *ppid)
{
	const char *rp;
	char *end;
	long pp;

	/* "pid (comm) S ppid ...": comm may hold spaces and ')', so the
	 * state follows the last ')'. */
	rp = strrchr(text, ')');
	if (!rp || rp[1] != ' ' || !rp[2] || rp[3] != ' ')
		return -1;
	errno = 0;
	pp = strtol(rp + 4, &end, 10);
	/* pid_t is an int: a larger number would wrap into another pid */
	if (errno || end == rp + 4 || *end != ' ' || pp < 0 || pp > INT_MAX)
		return -1;
	*state = rp[2];
	*ppid = (pid_t)pp;
	return 0;
}

int hs_proc_stat(const char *proc_root, pid_t pid, char *state, pid_t *ppid)
{
	char path[256], buf[1024];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%ld/stat", proc_root, (long)pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return hs_proc_stat_parse(buf, state, ppid);
}

int hs_proc_descends(const char *proc_root, pid_t pid, pid_t ancestor)
{
	pid_t cur = pid;

	for (int depth = 0; depth <= HS_PROC_MAX_DEPTH; depth++) {
		char st;
		pid_t pp;

		if (cur == ancestor)
			return 1;
		if (cur <= 1)
			return 0;
		if (hs_proc_stat(proc_root, cur, &st, &pp) < 0)
			return cur == pid ? -1 : 0;
		cur = pp;
	}
	return 0;
}

int hs_proc_stopped(const char *proc_root, pid_t pid)
{
	char st;
	pid_t pp;

	if (hs_proc_stat(proc_root, pid, &st, &pp) < 0)
		return -1;
	return st == 'T' || st == 't';
}
