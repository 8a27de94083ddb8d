/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emu_share.c — co-tenancy files of emulated jobs sharing a GPU; see
 * emu_share.h. */
#include "emu_share.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void sanitise(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	for (; *src && i + 1 < size; src++)
		dst[i++] = (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
				   *src)) ? *src : '_';
	dst[i] = '\0';
}

int emu_share_open(emu_share_t *s, const char *base, const char *key,
		   const char *id, char *msg, size_t len)
{
	char k[256], i[128];

	sanitise(k, sizeof(k), key);
	sanitise(i, sizeof(i), id);
	/* Sticky and world-writable like /tmp: co-tenants may be jobs of
	 * different users; each file is its owner's. */
	if (mkdir(base, 01777) == 0)
		(void)chmod(base, 01777);
	else if (errno != EEXIST) {
		snprintf(msg, len, "mkdir %s: %s", base, strerror(errno));
		return -1;
	}
	snprintf(s->dir, sizeof(s->dir), "%s/%s", base, k);
	if (mkdir(s->dir, 01777) == 0)
		(void)chmod(s->dir, 01777);
	else if (errno != EEXIST) {
		snprintf(msg, len, "mkdir %s: %s", s->dir, strerror(errno));
		return -1;
	}
	snprintf(s->mine, sizeof(s->mine), "%s/%s", s->dir, i);
	return 0;
}

int emu_share_touch(const emu_share_t *s, const char *model, int sf)
{
	char line[400];
	int fd, n = snprintf(line, sizeof(line), "%d\t%s\n", sf, model);

	fd = open(s->mine, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, line, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int emu_share_partner(const emu_share_t *s, char *model, size_t size, int *sf)
{
	const char *me = strrchr(s->mine, '/') + 1;
	time_t now = time(NULL);
	struct dirent *de;
	int found = 0;
	DIR *d = opendir(s->dir);

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[2400], line[400], *tab, *nl;
		struct stat st;
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, me))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || now - st.st_mtime > EMU_SHARE_FRESH_S) {
			close(fd);
			continue;
		}
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		if (n <= 0)
			continue;
		line[n] = '\0';
		tab = strchr(line, '\t');
		nl = strchr(line, '\n');
		if (!tab || !nl || nl < tab || sscanf(line, "%d", sf) != 1 || *sf < 1)
			continue;
		*nl = '\0';
		snprintf(model, size, "%s", tab + 1);
		found = 1;
	}
	closedir(d);
	return found;
}

void emu_share_close(const emu_share_t *s)
{
	unlink(s->mine);
}
