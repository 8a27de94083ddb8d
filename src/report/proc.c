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

static int read_stat(const char *proc_root, pid_t pid, char *buf, size_t size);

int hs_proc_stat(const char *proc_root, pid_t pid, char *state, pid_t *ppid)
{
	char buf[1024];

	if (read_stat(proc_root, pid, buf, sizeof(buf)) < 0)
		return -1;
	return hs_proc_stat_parse(buf, state, ppid);
}

int hs_proc_info_parse(const char *text, hs_proc_info_t *out)
{
	const char *p;
	char *end;
	unsigned long long v;
	hs_proc_info_t r;

	if (hs_proc_stat_parse(text, &r.state, &r.ppid) < 0)
		return -1;
	/* fields 3.. follow the last ')': skip to the 22nd (starttime) */
	p = strrchr(text, ')') + 1;
	for (int field = 3; field <= 22; field++) {
		if (*p != ' ')
			return -1;
		p++;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -1;
	r.start = v;
	*out = r;
	return 0;
}

/* Reads <proc_root>/<pid>/stat into buf (size > 1). 0, or -1. */
static int read_stat(const char *proc_root, pid_t pid, char *buf, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%ld/stat", proc_root, (long)pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int hs_proc_info(const char *proc_root, pid_t pid, hs_proc_info_t *out)
{
	char buf[1024];

	if (read_stat(proc_root, pid, buf, sizeof(buf)) < 0)
		return -1;
	return hs_proc_info_parse(buf, out);
}

int hs_proc_descends_any(const char *proc_root, pid_t pid,
			 int (*is_anc)(void *arg, pid_t p, unsigned long long start), void *arg)
{
	pid_t cur = pid;

	for (int depth = 0; depth <= HS_PROC_MAX_DEPTH; depth++) {
		hs_proc_info_t in;

		if (cur <= 0)
			return 0;
		if (hs_proc_info(proc_root, cur, &in) < 0)
			return cur == pid ? -1 : 0;
		if (is_anc(arg, cur, in.start))
			return 1;
		if (cur == 1)
			return 0;
		cur = in.ppid;
	}
	return 0;
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
