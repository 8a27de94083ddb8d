/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idindex.c — see idindex.h. */
#include "sched/idindex.h"

#include <string.h>

static uint32_t id_at(const void *base, size_t stride, size_t off, int i)
{
	uint32_t v;
	memcpy(&v, (const char *)base + (size_t)i * stride + off, sizeof(v));
	return v;
}

int hs_idx_find(const void *base, size_t stride, size_t off, int n, uint32_t id,
		hs_idhint_t *hint)
{
	int *slot = hint ? &hint->ix[id % HS_IDHINT_SLOTS] : NULL;
	if (slot && *slot >= 0 && *slot < n && id_at(base, stride, off, *slot) == id)
		return *slot;
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		uint32_t v = id_at(base, stride, off, mid);
		if (v == id) {
			if (slot)
				*slot = mid;
			return mid;
		}
		if (v < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}
