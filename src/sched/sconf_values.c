/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sconf_values.c — the value parsers of hetsched.conf (integers, numbers,
 * yes/no, name lists, name:weight lists, absolute paths), each with a
 * message naming the key and what is allowed (sconf_impl.h). */
#include "sched/sconf_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *hs_conf_dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

void hs_conf_wlist_free(hs_wlist_t *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->w);
	memset(l, 0, sizeof(*l));
}

void hs_conf_strlist_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int hs_conf_long(const char *key, const char *v, long lo, long hi, long *out,
		      hs_err_t *err)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return hs_err_set(err, "%s=%s: expected an integer in %ld..%ld", key, v, lo, hi);
	*out = x;
	return 0;
}

int hs_conf_double(const char *key, const char *v, double lo, double hi, double *out,
			hs_err_t *err)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(x) || x < lo || x > hi)
		return hs_err_set(err, "%s=%s: expected a number in %g..%g", key, v, lo, hi);
	*out = x;
	return 0;
}

void hs_conf_fmt_double(char *buf, size_t len, double v)
{
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

int hs_conf_bool(const char *key, const char *v, int *out, hs_err_t *err)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1")) {
		*out = 1;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0")) {
		*out = 0;
		return 0;
	}
	return hs_err_set(err, "%s=%s: expected yes or no", key, v);
}

/* A name in a list: printable, no separators or spaces, 1..255 bytes. */
static int conf_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!isgraph(ch) || ch == ',' || ch == ':' || ch == '=')
			return 0;
	}
	return 1;
}

/* Splits "a,b,c" into names (validated). */
int hs_conf_names(const char *key, const char *v, char ***out, int *nout, hs_err_t *err)
{
	char **names = NULL;
	int n = 0;
	const char *p = v;
	while (1) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!conf_name_ok(p, len)) {
			hs_conf_strlist_free(names, n);
			return hs_err_set(err, "%s=%s: expected a comma-separated list of names", key, v);
		}
		if (n >= HS_CONF_MAX_LIST) {
			hs_conf_strlist_free(names, n);
			return hs_err_set(err, "%s: more than %d entries", key, HS_CONF_MAX_LIST);
		}
		char **nn = realloc(names, (size_t)(n + 1) * sizeof(*nn));
		if (!nn) {
			hs_conf_strlist_free(names, n);
			return hs_err_set(err, "out of memory");
		}
		names = nn;
		if (!(names[n] = strndup(p, len))) {
			hs_conf_strlist_free(names, n);
			return hs_err_set(err, "out of memory");
		}
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	*out = names;
	*nout = n;
	return 0;
}

/* "name:w,name:w" with w > 0. */
int hs_conf_wlist(const char *key, const char *v, hs_wlist_t *out, hs_err_t *err)
{
	char **items = NULL;
	int n = 0;
	hs_wlist_t l = { 0 };
	/* Split on ',' first (names may not contain ':' so the last ':' splits). */
	const char *p = v;
	while (1) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		if (!colon || !conf_name_ok(p, (size_t)(colon - p))) {
			hs_conf_wlist_free(&l);
			hs_conf_strlist_free(items, n);
			return hs_err_set(err, "%s=%s: expected name:weight[,name:weight...]", key, v);
		}
		char num[64];
		size_t nl = len - (size_t)(colon - p) - 1;
		if (nl == 0 || nl >= sizeof(num)) {
			hs_conf_wlist_free(&l);
			return hs_err_set(err, "%s=%s: expected name:weight[,name:weight...]", key, v);
		}
		memcpy(num, colon + 1, nl);
		num[nl] = 0;
		double w;
		if (hs_conf_double(key, num, 1e-6, 1e6, &w, err) < 0) {
			hs_conf_wlist_free(&l);
			return -1;
		}
		if (l.n >= HS_CONF_MAX_LIST) {
			hs_conf_wlist_free(&l);
			return hs_err_set(err, "%s: more than %d entries", key, HS_CONF_MAX_LIST);
		}
		char **nn = realloc(l.names, (size_t)(l.n + 1) * sizeof(*nn));
		if (nn)
			l.names = nn;
		double *nw = nn ? realloc(l.w, (size_t)(l.n + 1) * sizeof(*nw)) : NULL;
		if (nw)
			l.w = nw;
		if (!nn || !nw || !(l.names[l.n] = strndup(p, (size_t)(colon - p)))) {
			hs_conf_wlist_free(&l);
			return hs_err_set(err, "out of memory");
		}
		for (int i = 0; i < l.n; i++)
			if (!strcmp(l.names[i], l.names[l.n])) {
				free(l.names[l.n]);
				hs_conf_wlist_free(&l);
				return hs_err_set(err, "%s: '%.*s' listed twice", key,
						  (int)(colon - p), p);
			}
		l.w[l.n++] = w;
		if (!e)
			break;
		p = e + 1;
	}
	*out = l;
	return 0;
}

/* An absolute path without control characters. */
int hs_conf_path_ok(const char *v)
{
	if (v[0] != '/')
		return 0;
	for (const char *p = v; *p; p++)
		if (iscntrl((unsigned char)*p))
			return 0;
	return 1;
}
