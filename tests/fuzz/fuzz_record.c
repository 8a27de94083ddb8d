/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_record.c — libFuzzer target for the AdminComment record parser
 * (src/report/record.h), which the sched plugin runs in slurmctld and the
 * SPANK plugin in slurmstepd. Properties: no crash or sanitizer report on
 * any input; an accepted record formats within the size bound and parses
 * back. Run with tests/fuzz/run.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, out[HS_RECORD_MAX_BYTES + 1];
	hs_record_t r, r2;
	hs_err_t err;
	int n;

	if (size > 8192)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)hs_record_is_ours(text);
	if (hs_record_parse(&r, text, &err) == 0) {
		n = hs_record_format(&r, out, sizeof(out), &err);
		if (n < 0 || n > HS_RECORD_MAX_BYTES)
			abort();
		if (hs_record_parse(&r2, out, &err) < 0)
			abort();
	}
	free(text);
	return 0;
}
