/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_gres.c — libFuzzer target for the GPU type read from a job's GRES
 * allocation string (src/report/gres.h), which spank_hetsched parses in
 * slurmstepd; the type names in it come from the user's --gres request
 * (as far as the node's gres.conf matches them). Input: byte 0 chooses the
 * output buffer's size (1..128, allocated exactly so ASan sees a write past
 * it), the rest is the detail string (up to its first NUL). Properties:
 *  - a rejected string leaves type "" and *shared 0;
 *  - an accepted one gives a non-empty type shorter than the buffer and
 *    than 64 bytes, made of '+'-joined names that are strictly sorted, of
 *    type characters only, each found in the string as ":name:"; shared
 *    only when the string has a "shard:" entry;
 *  - the buffer size decides nothing but "fits": a result that fits the
 *    small buffer is the same with a 4096-byte one;
 *  - the types and shared flag, written back as a GRES string, parse to
 *    the same result (parse -> format -> parse), and an accepted string
 *    repeated ("s,s") gives the same result (types are a set).
 * Run with tests/fuzz/run.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gres.h"

#define MAX_DETAIL 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static int type_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

/* The '+'-joined names of an accepted type string are valid and sorted. */
static void check_names(const char *type, const char *detail)
{
	char prev[64] = "", name[64], pat[68];
	const char *p = type;

	for (;;) {
		size_t l = strcspn(p, "+");

		check(l > 0 && l < sizeof(name));
		memcpy(name, p, l);
		name[l] = '\0';
		for (size_t i = 0; i < l; i++)
			check(type_char(name[i]));
		check(!prev[0] || strcmp(prev, name) < 0);
		snprintf(pat, sizeof(pat), ":%s:", name);
		check(strstr(detail, pat) != NULL);
		memcpy(prev, name, l + 1);
		if (!p[l])
			break;
		p += l + 1;
	}
}

/* type + shared written back as a detail string parses to the same. */
static void check_round_trip(const char *type, int shared)
{
	char detail[1024], again[128], t[64];
	size_t pos = 0;
	int sh = -1;

	check(strlen(type) < sizeof(t));
	memcpy(t, type, strlen(type) + 1);
	for (char *name = strtok(t, "+"); name; name = strtok(NULL, "+"))
		pos += (size_t)snprintf(detail + pos, sizeof(detail) - pos, "%sgpu:%s:1(IDX:0)",
					pos ? "," : "", name);
	if (shared)
		snprintf(detail + pos, sizeof(detail) - pos, ",shard:%.*s:1(1/2,0/0)",
			 (int)strcspn(type, "+"), type);
	check(hs_gres_gpu_type(detail, again, sizeof(again), &sh) == 0);
	check(!strcmp(again, type) && sh == shared);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char detail[2 * MAX_DETAIL + 2], big[MAX_DETAIL], *type;
	size_t tsize, dlen;
	int rc, rc_big, sh = -1, sh_big = -1;

	if (size < 1 || size > MAX_DETAIL + 1)
		return 0;
	tsize = 1 + data[0] % 128;
	dlen = size - 1;
	memcpy(detail, data + 1, dlen);
	detail[dlen] = '\0';
	dlen = strlen(detail);
	type = malloc(tsize);
	if (!type)
		return 0;
	memset(type, 'x', tsize);
	rc = hs_gres_gpu_type(detail, type, tsize, &sh);
	rc_big = hs_gres_gpu_type(detail, big, sizeof(big), &sh_big);
	check(rc == 0 || rc == -1);
	check(rc_big == 0 || rc_big == -1);
	if (rc < 0) {
		check(type[0] == '\0' && sh == 0);
	} else {
		check(rc_big == 0 && !strcmp(type, big) && sh == sh_big);
	}
	if (rc_big < 0) {
		check(big[0] == '\0' && sh_big == 0);
	} else {
		check(big[0] && strlen(big) < 64);
		check(sh_big == 0 || sh_big == 1);
		check(!sh_big || strstr(detail, "shard:"));
		check_names(big, detail);
		check_round_trip(big, sh_big);
		/* the same string twice: types are a set */
		detail[dlen] = ',';
		memcpy(detail + dlen + 1, detail, dlen);
		detail[2 * dlen + 1] = '\0';
		if (2 * dlen + 1 <= MAX_DETAIL) {
			char twice[64];

			check(hs_gres_gpu_type(detail, twice, sizeof(twice), &sh) == 0);
			check(!strcmp(twice, big) && sh == sh_big);
		}
	}
	free(type);
	return 0;
}
