/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_wire.c — libFuzzer target for the report parser that runs as root in
 * slurmstepd (src/report/wire.h). Properties: the parser terminates on any
 * bytes without a sanitizer report, and every accepted report survives
 * format -> parse unchanged. Run with tests/fuzz/run.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hs_wire_report_t r, r2;
	char buf[HS_WIRE_MAX + 1];
	const char *why = NULL;
	int n;

	if (hs_wire_parse((const char *)data, size, &r, &why) < 0) {
		if (!why)
			abort();
		return 0;
	}
	if (size > HS_WIRE_MAX)
		abort();
	n = hs_wire_format(&r, buf, sizeof(buf));
	if (n <= 0 || (size_t)n > HS_WIRE_MAX || strlen(buf) != (size_t)n)
		abort();
	if (hs_wire_parse(buf, (size_t)n, &r2, &why) < 0)
		abort();
	if (r.has != r2.has || r.step != r2.step || r.samples != r2.samples || r.ckpt != r2.ckpt)
		abort();
	return 0;
}
