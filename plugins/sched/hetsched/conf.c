/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.c — reads hetsched.conf with Slurm's own parser (s_p_*): every key
 * of the key table (hs_sconf_key_name) is registered as a string, so Slurm
 * handles the syntax
 * (Key=Value, comments, line continuation, Include, case-insensitive
 * keys) and src/sched/sconf.c converts and range-checks each value with a
 * message naming the key. The result is all-or-nothing: the caller keeps
 * its last good configuration when this fails. Slurm's parser retries a
 * file it cannot stat for 60 s, so the file and every file it includes
 * are checked first (conf_include.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "compat/hs_slurm.h"
#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/xmalloc.h"

#include "hs_plugin.h"
#include "sched/conf_include.h"

int hs_conf_load(const char *path, hs_sconf_t *out, char *why, size_t len)
{
	hs_err_t err;
	struct stat st;

	if (hs_sconf_defaults(out, &err) < 0) {
		snprintf(why, len, "%s", err.msg);
		return -1;
	}
	/* s_p_parse_file() retries a missing file for 60 s: check first. */
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		hs_sconf_free(out);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s: not a regular file", path);
		hs_sconf_free(out);
		return -1;
	}
	/* an Include of a missing file would block for 60 s (and a loop
	 * recurse without end) inside s_p_parse_file() */
	if (hs_conf_check_includes(path, &err) < 0) {
		snprintf(why, len, "%s", err.msg);
		hs_sconf_free(out);
		return -1;
	}

	int nkeys = 0;
	while (hs_sconf_key_name(nkeys))
		nkeys++;
	s_p_options_t *opts = xcalloc(nkeys + 1, sizeof(*opts));
	for (int i = 0; i < nkeys; i++) {
		opts[i].key = (char *)hs_sconf_key_name(i);
		opts[i].type = S_P_STRING;
	}
	s_p_hashtbl_t *tbl = s_p_hashtbl_create(opts);
	int rc = 0;
	if (hs_s_p_parse_file(tbl, path) != SLURM_SUCCESS) {
		/* Slurm's parser already logged the offending line. */
		snprintf(why, len, "%s: syntax error or unknown key (see the line above)", path);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < nkeys; i++) {
		char *value = NULL;
		if (!s_p_get_string(&value, hs_sconf_key_name(i), tbl))
			continue;
		if (hs_sconf_set(out, hs_sconf_key_name(i), value, &err) < 0) {
			snprintf(why, len, "%s: %s", path, err.msg);
			rc = -1;
		}
		xfree(value);
	}
	if (rc == 0 && hs_sconf_check(out, &err) < 0) {
		snprintf(why, len, "%s: %s", path, err.msg);
		rc = -1;
	}
	s_p_hashtbl_destroy(tbl);
	xfree(opts);
	if (rc < 0)
		hs_sconf_free(out);
	return rc;
}
