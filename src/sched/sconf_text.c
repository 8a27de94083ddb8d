/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf_text.c — the Slurm-free reader of hetsched.conf text (tests, the
 * CLI, the last good copy): Key=Value lines, '#' comments, each key set
 * through the key table (sconf_keys.c), then the cross-key checks
 * (sconf.c). Neither of those calls back here. */
#include "sched/sconf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int hs_sconf_parse_text(hs_sconf_t *c, const char *text, hs_err_t *err)
{
	int lineno = 0;
	const char *p = text;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		lineno++;
		char *line = strndup(p, len);
		if (!line)
			return hs_err_set(err, "out of memory");
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		char *end = s + strlen(s);
		while (end > s && isspace((unsigned char)end[-1]))
			*--end = 0;
		if (*s) {
			char *eq = strchr(s, '=');
			if (!eq) {
				free(line);
				return hs_err_set(err, "line %d: expected Key=Value", lineno);
			}
			*eq = 0;
			char *k = s, *v = eq + 1;
			char *ke = k + strlen(k);
			while (ke > k && isspace((unsigned char)ke[-1]))
				*--ke = 0;
			while (isspace((unsigned char)*v))
				v++;
			hs_err_t e2;
			if (hs_sconf_set(c, k, v, &e2) < 0) {
				free(line);
				return hs_err_set(err, "line %d: %s", lineno, e2.msg);
			}
		}
		free(line);
		p = e ? e + 1 : NULL;
	}
	return hs_sconf_check(c, err);
}
