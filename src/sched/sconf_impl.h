/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf_impl.h — shared by the files of hetsched.conf's implementation
 * (sconf.c, sconf_keys.c, sconf_values.c), not by its users: the value
 * parsers. Each returns 0, or -1 with a message naming the key. */
#ifndef HS_SCHED_SCONF_IMPL_H
#define HS_SCHED_SCONF_IMPL_H

#include <stddef.h>

#include "sched/sconf.h"

/* Longest accepted value (paths, lists): far above any sane entry. */
#define HS_CONF_MAX_VALUE 4096
/* Most entries in one list. */
#define HS_CONF_MAX_LIST 256

char *hs_conf_dup(const char *s);
void hs_conf_wlist_free(hs_wlist_t *l);
void hs_conf_strlist_free(char **v, int n);
/* An integer / a finite number in lo..hi. */
int hs_conf_long(const char *key, const char *v, long lo, long hi, long *out, hs_err_t *err);
int hs_conf_double(const char *key, const char *v, double lo, double hi, double *out,
		   hs_err_t *err);
/* yes/true/1 or no/false/0. */
int hs_conf_bool(const char *key, const char *v, int *out, hs_err_t *err);
/* "a,b,c": printable names without separators, 1..255 bytes each. */
int hs_conf_names(const char *key, const char *v, char ***out, int *nout, hs_err_t *err);
/* "name:w,name:w" with w in [1e-6, 1e6], no name twice. */
int hs_conf_wlist(const char *key, const char *v, hs_wlist_t *out, hs_err_t *err);
/* A number as %g prints it when that reads back as the same double, else
 * with as many digits as it needs to (at most 17): log lines stay short
 * and the last good copy (conf_lastgood.h) keeps every value exactly. */
void hs_conf_fmt_double(char *buf, size_t len, double v);
/* An absolute path without control characters? */
int hs_conf_path_ok(const char *v);

#endif /* HS_SCHED_SCONF_IMPL_H */
