/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobdir.c — the per-job, per-node directory of spank_hetsched; see
 * jobdir.h. Runs as root in slurmstepd (and in the job epilog): every
 * directory it works in is root's and checked to be, and every name is
 * opened relative to it without following symlinks. */
#define _GNU_SOURCE
#include "report/measure_err.h"
#include "report/jobdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CACHE_NAME "node"
#define ALIVE_NAME "alive"
#define OWNER_NAME "listener.lock"
#define STAGE_PREFIX ".s"
#define POLL_NS 10000000L     /* 10 ms between lock or socket polls */
#define SMALL_FILE_MAX 512


static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pause_poll(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* fd is a directory of ours that no one else may write into; made mode
 * 0711 (mkdir's mode is cut by the umask, and the job's user needs to
 * traverse it to reach the socket). */
static int dir_is_ours(int fd, const char *what, hs_err_t *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return hs_measure_err(err, "%s: %s", what, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return hs_measure_err(err, "%s: not a directory of uid %u without group or other write "
			    "permission", what, (unsigned)geteuid());
	if ((st.st_mode & 07777) != 0711 && fchmod(fd, 0711) < 0)
		return hs_measure_err(err, "%s: chmod: %s", what, strerror(errno));
	return 0;
}

/* Opens dir name (relative to at) as a directory, not through a symlink,
 * creating it first when create is set. */
static int open_dir(int at, const char *name, int create, hs_err_t *err)
{
	int fd;

	if (create && mkdirat(at, name, 0711) < 0 && errno != EEXIST)
		return hs_measure_err(err, "mkdir %s: %s", name, strerror(errno));
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return hs_measure_err(err, "%s: %s", name, strerror(errno));
	if (dir_is_ours(fd, name, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void hs_jobdir_tag(const char *node, const char *conf, char *tag, size_t size)
{
	size_t n = node ? strlen(node) : 0;
	int plain = n > 0 && n <= 24;

	for (size_t i = 0; plain && i < n; i++)
		plain = name_char(node[i]);
	if (plain)
		snprintf(tag, size, "%s.%08" PRIx32, node, fnv1a(conf));
	else
		snprintf(tag, size, "h%08" PRIx32 ".%08" PRIx32, fnv1a(node), fnv1a(conf));
}

/* The job directory's name, "<job_id>.<tag>", into name (size >= 48). */
static int job_name(const char *base, uint32_t job_id, const char *tag, char *name, size_t size,
		    hs_err_t *err)
{
	size_t n = tag ? strlen(tag) : 0;

	if (!base || base[0] != '/' || strlen(base) > HS_JOBDIR_BASE_MAX)
		return hs_measure_err(err, "socket directory '%s': not an absolute path of at most %d bytes",
			    base ? base : "", HS_JOBDIR_BASE_MAX);
	if (n == 0 || n > HS_JOBDIR_TAG_MAX)
		return hs_measure_err(err, "bad job directory tag");
	for (size_t i = 0; i < n; i++)
		if (!name_char(tag[i]) && tag[i] != '.')
			return hs_measure_err(err, "bad job directory tag");
	snprintf(name, size, "%" PRIu32 ".%s", job_id, tag);
	return 0;
}

int hs_jobdir_open(hs_jobdir_t *jd, const char *base, uint32_t job_id, const char *tag,
		   hs_err_t *err)
{
	char name[48];
	int bfd;

	memset(jd, 0, sizeof(*jd));
	jd->dfd = jd->alive_fd = jd->owner_fd = -1;
	if (job_name(base, job_id, tag, name, sizeof(name), err) < 0)
		return -1;
	bfd = open_dir(AT_FDCWD, base, 1, err);
	if (bfd < 0)
		return -1;
	jd->dfd = open_dir(bfd, name, 1, err);
	close(bfd);
	if (jd->dfd < 0)
		return -1;
	snprintf(jd->path, sizeof(jd->path), "%s/%s", base, name);
	return 0;
}

/* ---- small files ---------------------------------------------------------- */

/* Writes text into name atomically (a temporary name, then rename). */
static int write_small(int dfd, const char *name, const char *text, hs_err_t *err)
{
	char tmp[64];
	size_t len = strlen(text);
	int fd;

	snprintf(tmp, sizeof(tmp), ".%s.tmp.%ld", name, (long)getpid());
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return hs_measure_err(err, "%s: %s", tmp, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || close(fd) < 0) {
		int e = errno;

		(void)unlinkat(dfd, tmp, 0);
		return hs_measure_err(err, "%s: %s", tmp, strerror(e));
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		int e = errno;

		(void)unlinkat(dfd, tmp, 0);
		return hs_measure_err(err, "%s: %s", name, strerror(e));
	}
	return 0;
}

/* Reads a regular file name (< size bytes) into buf: 1, 0 absent, -1. */
static int read_small(int dfd, const char *name, char *buf, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size >= (off_t)size) {
		close(fd);
		return -1;
	}
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 1;
}

/* ---- steps of the job on this node ------------------------------------------ */

int hs_jobdir_join(hs_jobdir_t *jd, double wait_s, hs_err_t *err)
{
	double end = mono_now() + wait_s;

	if (jd->dfd < 0)
		return hs_measure_err(err, "no job directory");
	jd->alive_fd = openat(jd->dfd, ALIVE_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (jd->alive_fd < 0)
		return hs_measure_err(err, "%s/%s: %s", jd->path, ALIVE_NAME, strerror(errno));
	if (flock(jd->alive_fd, LOCK_EX | LOCK_NB) == 0) {
		/* the only step here: whatever is cached may be an earlier
		 * incarnation's (same job id after a requeue) */
		(void)unlinkat(jd->dfd, CACHE_NAME, 0);
		return 1;
	}
	/* Others run. One that holds the lock exclusively is loading:
	 * wait for it (bounded) rather than load too. */
	while (flock(jd->alive_fd, LOCK_SH | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return hs_measure_err(err, "flock %s/%s: %s", jd->path, ALIVE_NAME, strerror(errno));
		if (mono_now() >= end)
			return 0;   /* not locked: the cache is used if present */
		pause_poll();
	}
	return 0;
}

void hs_jobdir_joined(hs_jobdir_t *jd)
{
	if (jd->alive_fd >= 0)
		(void)flock(jd->alive_fd, LOCK_SH);
}

int hs_jobdir_cache_read(hs_jobdir_t *jd, char *buf, size_t size)
{
	if (jd->dfd < 0 || size < 2)
		return 0;
	return read_small(jd->dfd, CACHE_NAME, buf, size) == 1;
}

int hs_jobdir_cache_write(hs_jobdir_t *jd, const char *text, hs_err_t *err)
{
	if (jd->dfd < 0)
		return hs_measure_err(err, "no job directory");
	return write_small(jd->dfd, CACHE_NAME, text, err);
}

/* ---- the listener --------------------------------------------------------- */

int hs_jobdir_claim(hs_jobdir_t *jd, hs_err_t *err)
{
	int fd;

	if (jd->dfd < 0)
		return hs_measure_err(err, "no job directory");
	if (jd->owner_fd >= 0)
		return 1;
	fd = openat(jd->dfd, OWNER_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return hs_measure_err(err, "%s/%s: %s", jd->path, OWNER_NAME, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		if (e == EWOULDBLOCK)
			return 0;
		return hs_measure_err(err, "flock %s/%s: %s", jd->path, OWNER_NAME, strerror(e));
	}
	jd->owner_fd = fd;
	return 1;
}

/* Removes the staging directory stage (and a socket left in it). */
static void remove_stage(int dfd, const char *stage)
{
	int sfd = openat(dfd, stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (sfd >= 0) {
		(void)unlinkat(sfd, "s", 0);
		close(sfd);
	}
	(void)unlinkat(dfd, stage, AT_REMOVEDIR);
}

int hs_jobdir_bind(hs_jobdir_t *jd, uid_t uid, gid_t gid, int *fd, char *path, size_t size,
		   hs_err_t *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned char nonce[8];
	char stage[32];
	struct stat st;
	int sfd = -1, s = -1, n;

	*fd = -1;
	if (jd->dfd < 0 || jd->owner_fd < 0)
		return hs_measure_err(err, "the listener is not claimed");
	if (getrandom(nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
		return hs_measure_err(err, "getrandom: %s", strerror(errno));
	snprintf(stage, sizeof(stage), STAGE_PREFIX "%02x%02x%02x%02x%02x%02x%02x%02x",
		 nonce[0], nonce[1], nonce[2], nonce[3], nonce[4], nonce[5], nonce[6], nonce[7]);
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s/s", jd->path, stage);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return hs_measure_err(err, "%s: socket path too long", jd->path);
	if (snprintf(path, size, "%s/%s", jd->path, HS_JOBDIR_SOCKET) >= (int)size)
		return hs_measure_err(err, "%s: socket path too long", jd->path);
	/* root's and 0700 (mkdir's mode is cut by the umask, never widened):
	 * no one else can reach the socket before it is the user's */
	if (mkdirat(jd->dfd, stage, 0700) < 0)
		return hs_measure_err(err, "mkdir %s/%s: %s", jd->path, stage, strerror(errno));
	sfd = openat(jd->dfd, stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0 || fchmod(sfd, 0700) < 0) {
		hs_measure_err(err, "%s/%s: %s", jd->path, stage, strerror(errno));
		goto fail;
	}
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0) {
		hs_measure_err(err, "socket: %s", strerror(errno));
		goto fail;
	}
	if (bind(s, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
							 (size_t)n + 1)) < 0) {
		hs_measure_err(err, "bind %s: %s", sa.sun_path, strerror(errno));
		goto fail;
	}
	/* only the job's user may send (write permission on the socket) */
	if (fchmodat(sfd, "s", 0600, 0) < 0 ||
	    fchownat(sfd, "s", uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    renameat(sfd, "s", jd->dfd, HS_JOBDIR_SOCKET) < 0 ||
	    fstatat(jd->dfd, HS_JOBDIR_SOCKET, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		hs_measure_err(err, "%s: %s", path, strerror(errno));
		goto fail;
	}
	jd->sock_ino = st.st_ino;
	close(sfd);
	(void)unlinkat(jd->dfd, stage, AT_REMOVEDIR);
	*fd = s;
	return 0;
fail:
	if (s >= 0)
		close(s);
	if (sfd >= 0)
		close(sfd);
	remove_stage(jd->dfd, stage);
	return -1;
}

int hs_jobdir_wait_socket(hs_jobdir_t *jd, double wait_s, char *path, size_t size)
{
	double end = mono_now() + wait_s;
	struct stat st;

	if (jd->dfd < 0 || snprintf(path, size, "%s/%s", jd->path, HS_JOBDIR_SOCKET) >= (int)size)
		return -1;
	while (fstatat(jd->dfd, HS_JOBDIR_SOCKET, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	       !S_ISSOCK(st.st_mode)) {
		if (mono_now() >= end)
			return -1;
		pause_poll();
	}
	return 0;
}

/* ---- other steps' slurmstepds ------------------------------------------------- */

int hs_jobdir_register(hs_jobdir_t *jd, pid_t pid, unsigned long long start, hs_err_t *err)
{
	char name[32], text[32];

	if (jd->dfd < 0)
		return hs_measure_err(err, "no job directory");
	snprintf(name, sizeof(name), "stepd.%ld", (long)pid);
	snprintf(text, sizeof(text), "%llu\n", start);
	if (write_small(jd->dfd, name, text, err) < 0)
		return -1;
	jd->registered = pid;
	return 0;
}

int hs_jobdir_is_stepd(const hs_jobdir_t *jd, pid_t pid, unsigned long long start)
{
	char name[32], buf[32], *end;
	unsigned long long v;

	if (jd->dfd < 0 || pid <= 0)
		return 0;
	snprintf(name, sizeof(name), "stepd.%ld", (long)pid);
	if (read_small(jd->dfd, name, buf, sizeof(buf)) != 1)
		return 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	/* the start time: a stale file (a slurmstepd that died) does not
	 * vouch for a process that got its pid later */
	return !errno && end != buf && *end == '\n' && v == start;
}

void hs_jobdir_close(hs_jobdir_t *jd)
{
	if (jd->dfd >= 0) {
		if (jd->registered > 0) {
			char name[32];

			snprintf(name, sizeof(name), "stepd.%ld", (long)jd->registered);
			(void)unlinkat(jd->dfd, name, 0);
		}
		if (jd->sock_ino) {
			struct stat st;

			/* only our own socket: a later listener may have
			 * replaced it */
			if (fstatat(jd->dfd, HS_JOBDIR_SOCKET, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_ino == jd->sock_ino)
				(void)unlinkat(jd->dfd, HS_JOBDIR_SOCKET, 0);
		}
	}
	if (jd->owner_fd >= 0)
		close(jd->owner_fd);   /* releases the listener lock */
	if (jd->alive_fd >= 0)
		close(jd->alive_fd);
	if (jd->dfd >= 0)
		close(jd->dfd);
	jd->dfd = jd->alive_fd = jd->owner_fd = -1;
	jd->sock_ino = 0;
	jd->registered = 0;
}

/* ---- the job's end -------------------------------------------------------- */

int hs_jobdir_remove(const char *base, uint32_t job_id, const char *tag, hs_err_t *err)
{
	char name[48];
	struct dirent *de;
	DIR *d;
	int bfd, dfd, rc = 0;

	if (job_name(base, job_id, tag, name, sizeof(name), err) < 0)
		return -1;
	bfd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (bfd < 0)
		return errno == ENOENT ? 0 : hs_measure_err(err, "%s: %s", base, strerror(errno));
	dfd = openat(bfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		rc = errno == ENOENT ? 0 : hs_measure_err(err, "%s/%s: %s", base, name, strerror(errno));
		close(bfd);
		return rc;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		close(bfd);
		return hs_measure_err(err, "%s/%s: %s", base, name, strerror(errno));
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!strncmp(de->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)))
			remove_stage(dirfd(d), de->d_name);
		else
			(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
	if (unlinkat(bfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = hs_measure_err(err, "rmdir %s/%s: %s", base, name, strerror(errno));
	close(bfd);
	return rc;
}
