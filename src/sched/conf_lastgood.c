/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_lastgood.c — save and load the last good copy of hetsched.conf
 * (see conf_lastgood.h). */
#define _GNU_SOURCE /* asprintf */
#include "sched/conf_lastgood.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/statefile.h"

#define WRITER_TAG "# writer="

/* "pid:starttime" of this process (starttime: field 22 of /proc/self/stat,
 * clock ticks after boot). The pid alone could repeat on a cold start (a
 * container gives slurmctld the same pid every time); with the start time
 * it names one process. Empty when /proc cannot tell. */
static void proc_identity(char *buf, size_t len)
{
	char stat[1024];
	buf[0] = 0;
	FILE *f = fopen("/proc/self/stat", "re");
	if (!f)
		return;
	size_t n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = 0;
	/* the command name (field 2) may hold blanks: count after its ')' */
	char *p = strrchr(stat, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return;
	unsigned long long start = strtoull(p + 1, NULL, 10);
	if (start)
		snprintf(buf, len, "%ld:%llu", (long)getpid(), start);
}

int hs_conf_last_good_save(const char *dir, const hs_sconf_t *c, const char *source,
			   hs_err_t *err)
{
	char path[4096], me[64];
	if (hs_path_join(path, sizeof(path), dir, HS_CONF_LAST_GOOD) < 0)
		return hs_err_set(err, "%s/%s: path too long", dir, HS_CONF_LAST_GOOD);
	char *body = hs_sconf_write_text(c, err);
	if (!body)
		return -1;
	proc_identity(me, sizeof(me));
	char *text = NULL;
	int n = asprintf(&text,
			 "# %s: the effective configuration of the last good hetsched.conf\n"
			 "# (%s), saved by sched/hetsched after every successful load. Used\n"
			 "# only when hetsched.conf is bad while slurmctld restarts for\n"
			 "# `scontrol reconfigure`. Do not edit: it is rewritten.\n"
			 "%s%s\n%s",
			 HS_CONF_LAST_GOOD, source ? source : "?", WRITER_TAG, me, body);
	free(body);
	if (n < 0)
		return hs_err_set(err, "out of memory");
	int rc = hs_file_write_atomic(path, text, (size_t)n, 0600, err);
	free(text);
	return rc;
}

int hs_conf_last_good_load(const char *dir, hs_sconf_t *out, int *same_process, char *path,
			   size_t len, hs_err_t *err)
{
	*same_process = 0;
	if (hs_path_join(path, len, dir, HS_CONF_LAST_GOOD) < 0)
		return hs_err_set(err, "%s/%s: path too long", dir, HS_CONF_LAST_GOOD);
	char *text;
	size_t text_len;
	int r = hs_file_read_small(path, HS_CONF_LAST_GOOD_MAX, &text, &text_len, err);
	if (r <= 0)
		return r;
	if (hs_sconf_defaults(out, err) < 0) {
		free(text);
		return -1;
	}
	hs_err_t e2;
	if (hs_sconf_parse_text(out, text, &e2) < 0) {
		hs_sconf_free(out);
		free(text);
		return hs_err_set(err, "%s: %s", path, e2.msg);
	}
	char me[64];
	proc_identity(me, sizeof(me));
	const char *w = strstr(text, "\n" WRITER_TAG);
	if (w && *me) {
		w += strlen("\n" WRITER_TAG);
		*same_process = !strncmp(w, me, strlen(me)) && w[strlen(me)] == '\n';
	}
	free(text);
	return 1;
}
