/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_include.c — the Include pre-check of hetsched.conf (see
 * conf_include.h). Mirrors how Slurm 22.05's parse_config.c reads a line:
 * '#' starts a comment unless escaped, a line ending in an odd number of
 * backslashes continues on the next one, and a directive is "Include"
 * (any case) at the very start of a line, followed by white space and
 * the file name up to the next white space. */
#define _GNU_SOURCE /* getline */
#include "sched/conf_include.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Cuts the line at its first unescaped '#'. */
static void strip_comment(char *line)
{
	int bs = 0;
	for (char *p = line; *p; p++) {
		if (*p == '#' && bs % 2 == 0) {
			*p = 0;
			return;
		}
		bs = *p == '\\' ? bs + 1 : 0;
	}
}

/* Does the (comment-stripped) line continue on the next one? */
static int continues(const char *line)
{
	size_t n = strlen(line);
	int bs = 0;
	while (n > 0 && isspace((unsigned char)line[n - 1]))
		n--;
	while (n > 0 && line[n - 1] == '\\') {
		bs++;
		n--;
	}
	return bs % 2 == 1;
}

/* The file name of an Include line (escapes removed) into name; 0 when
 * the line is no Include directive, -1 when the name does not fit. */
static int include_name(const char *line, char *name, size_t size)
{
	if (strncasecmp(line, "include", 7) || !isspace((unsigned char)line[7]))
		return 0;
	const char *p = line + 7;
	while (isspace((unsigned char)*p))
		p++;
	size_t n = 0;
	for (; *p && !isspace((unsigned char)*p); p++) {
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 >= size)
			return -1;
		name[n++] = *p;
	}
	name[n] = 0;
	return 1;
}

static int check_file(const char *path, int depth, hs_err_t *err);

/* One Include of `from` (line lineno): the file must exist and be a
 * regular file; its own Includes are checked in turn. */
static int check_include(const char *from, int lineno, const char *name, int depth, hs_err_t *err)
{
	char full[4096];
	struct stat st;
	if (!*name)
		return hs_err_set(err, "%s line %d: Include without a file name", from, lineno);
	if (strstr(name, "%c"))
		return 0; /* Slurm refuses it at once: no ClusterName here */
	if (name[0] == '/') {
		if (snprintf(full, sizeof(full), "%s", name) >= (int)sizeof(full))
			return hs_err_set(err, "%s line %d: Include path too long", from, lineno);
	} else {
		/* Slurm: the including file's path up to its last '/', then
		 * "/" and the name */
		const char *slash = strrchr(from, '/');
		int dlen = slash ? (int)(slash - from) : (int)strlen(from);
		if (snprintf(full, sizeof(full), "%.*s/%s", dlen, from, name) >= (int)sizeof(full))
			return hs_err_set(err, "%s line %d: Include path too long", from, lineno);
	}
	if (stat(full, &st) < 0)
		return hs_err_set(err, "%s line %d: Include %s: %s", from, lineno, full,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return hs_err_set(err, "%s line %d: Include %s: not a regular file", from, lineno,
				  full);
	if (depth + 1 > HS_INCLUDE_MAX_DEPTH)
		return hs_err_set(err, "%s line %d: Include %s: nested more than %d deep (does a "
				  "file include itself?)", from, lineno, full, HS_INCLUDE_MAX_DEPTH);
	return check_file(full, depth + 1, err);
}

static int check_file(const char *path, int depth, hs_err_t *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return hs_err_set(err, "%s: %s", path, strerror(errno));
	char *line = NULL, name[4096];
	size_t cap = 0;
	int lineno = 0, continued = 0, rc = 0;
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		lineno++;
		int starts = !continued;
		strip_comment(line);
		continued = continues(line);
		if (!starts)
			continue; /* the rest of a continued line: no directive */
		int r = include_name(line, name, sizeof(name));
		if (r < 0)
			rc = hs_err_set(err, "%s line %d: Include path too long", path, lineno);
		else if (r > 0)
			rc = check_include(path, lineno, name, depth, err);
	}
	free(line);
	fclose(f);
	return rc;
}

int hs_conf_check_includes(const char *path, hs_err_t *err)
{
	if (!path)
		return hs_err_set(err, "no configuration file name");
	return check_file(path, 0, err);
}
