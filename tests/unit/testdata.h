/* SPDX-License-Identifier: GPL-2.0-or-later */
/* testdata.h — where unit tests find Gavel's data (data/gavel,
 * next to the checkout; HS_GAVEL_DATA overrides). Tests skip, saying why,
 * when the data is absent. */
#ifndef HS_TESTS_TESTDATA_H
#define HS_TESTS_TESTDATA_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline int hs_test_gavel_path(char *buf, size_t len, const char *file)
{
	const char *dir = getenv("HS_GAVEL_DATA");
	const char *src = getenv("HS_SRCDIR");
	int n;
	if (dir && *dir)
		n = snprintf(buf, len, "%s/%s", dir, file);
	else
		n = snprintf(buf, len, "%s/data/gavel/%s", src ? src : ".", file);
	if (n < 0 || (size_t)n >= len || access(buf, R_OK) != 0) {
		fprintf(stderr, "# Gavel data not found at %s (set HS_GAVEL_DATA)\n", buf);
		return -1;
	}
	return 0;
}

#endif
