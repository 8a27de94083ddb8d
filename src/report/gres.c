/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gres.c — extracts GPU types from a GRES allocation detail string; see
 * gres.h. Entries are "name[:type]:count(...)" separated by commas outside
 * parentheses. */
#include "report/gres.h"

#include <stdlib.h>
#include <string.h>

#define MAXT 8
#define TLEN 64

static int type_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Handles one entry [p, end). Adds its type to types when it is a typed
 * gpu or shard entry. Returns -1 on a malformed entry. */
static int one_entry(const char *p, const char *end, char types[MAXT][TLEN],
		     int *nt, int *shared)
{
	const char *paren = memchr(p, '(', (size_t)(end - p));
	const char *head_end = paren ? paren : end;
	const char *c1 = memchr(p, ':', (size_t)(head_end - p));
	const char *c2;
	size_t nlen, tlen;
	int is_shard;

	if (!c1)
		return -1;                   /* "gpu" without a count */
	nlen = (size_t)(c1 - p);
	is_shard = nlen == 5 && !memcmp(p, "shard", 5);
	if (!is_shard && !(nlen == 3 && !memcmp(p, "gpu", 3)))
		return 0;                    /* another GRES: not ours */
	c2 = memchr(c1 + 1, ':', (size_t)(head_end - c1 - 1));
	if (!c2)
		return 0;                    /* untyped "gpu:1(IDX:0)" */
	tlen = (size_t)(c2 - c1 - 1);
	if (tlen == 0 || tlen >= TLEN)
		return -1;
	for (const char *q = c1 + 1; q < c2; q++)
		if (!type_char_ok(*q))
			return -1;
	for (const char *q = c2 + 1; q < head_end; q++)
		if (*q < '0' || *q > '9')
			return -1;           /* the count */
	if (is_shard)
		*shared = 1;
	for (int i = 0; i < *nt; i++)
		if (strlen(types[i]) == tlen && !memcmp(types[i], c1 + 1, tlen))
			return 0;
	if (*nt == MAXT)
		return -1;
	memcpy(types[*nt], c1 + 1, tlen);
	types[*nt][tlen] = '\0';
	(*nt)++;
	return 0;
}

int hs_gres_gpu_type(const char *detail, char *type, size_t size, int *shared)
{
	char types[MAXT][TLEN];
	int nt = 0, depth = 0, sh = 0;
	size_t pos = 0;
	const char *p, *start;

	*shared = 0;
	if (!type || size == 0)
		return -1;
	type[0] = '\0';
	if (!detail || strlen(detail) > 4096)
		return -1;
	for (p = start = detail;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if (depth < 0 || depth > 1)
			return -1;
		if ((*p == ',' && depth == 0) || *p == '\0') {
			if (p > start && one_entry(start, p, types, &nt, &sh) < 0)
				return -1;
			if (!*p)
				break;
			start = p + 1;
		}
	}
	if (depth != 0 || nt == 0)
		return -1;
	qsort(types, (size_t)nt, TLEN, cmp_str);
	for (int i = 0; i < nt; i++) {
		size_t l = strlen(types[i]);
		size_t need = pos + (i ? 1 : 0) + l + 1;   /* '+', name, NUL */

		if (need > size || need > TLEN)
			return type[0] = '\0', -1;
		if (i)
			type[pos++] = '+';
		memcpy(type + pos, types[i], l + 1);
		pos += l;
	}
	*shared = sh;
	return 0;
}
