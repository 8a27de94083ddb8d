/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wire.c — formats and parses report datagrams (see wire.h and
 * doc/protocol.md (b)). Hand-written rather than sscanf-based because the
 * parser must be total over arbitrary bytes (sscanf accepts signs, spaces
 * and overflow silently) and the formatter must not allocate. */
#include "report/wire.h"

#include <string.h>

static const struct {
	const char *name;
	size_t len;
	unsigned bit;
} keys[] = {
	{ "step", 4, HS_WIRE_HAS_STEP },
	{ "samples", 7, HS_WIRE_HAS_SAMPLES },
	{ "ckpt", 4, HS_WIRE_HAS_CKPT },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static uint64_t *slot(hs_wire_report_t *r, unsigned bit)
{
	return bit == HS_WIRE_HAS_STEP ? &r->step
	     : bit == HS_WIRE_HAS_SAMPLES ? &r->samples : &r->ckpt;
}

/* Parses the decimal value in [p, end): "0" or 1..15 digits without a
 * leading zero. */
static int parse_value(const char *p, const char *end, uint64_t *out)
{
	size_t n = (size_t)(end - p);
	uint64_t v = 0;

	if (n == 0 || n > 15 || (n > 1 && p[0] == '0'))
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int hs_wire_parse(const char *buf, size_t len, hs_wire_report_t *r, const char **why)
{
	const char *p, *end;

	memset(r, 0, sizeof(*r));
	if (!buf || len == 0)
		return *why = "empty report", -1;
	if (len > HS_WIRE_MAX)
		return *why = "report longer than 255 bytes", -1;
	end = buf + len;
	if (end[-1] == '\n')
		end--;
	if (end - buf < 3 || memcmp(buf, "hs1", 3) != 0)
		return *why = "not an hs1 report", -1;
	p = buf + 3;
	if (p == end)
		return *why = "no field", -1;
	while (p < end) {
		const char *field, *eq, *fend;
		unsigned bit = 0;

		if (*p != ' ')
			return *why = "fields must be separated by one space", -1;
		field = ++p;
		fend = memchr(field, ' ', (size_t)(end - field));
		if (!fend)
			fend = end;
		eq = memchr(field, '=', (size_t)(fend - field));
		if (!eq)
			return *why = "field without '='", -1;
		for (size_t k = 0; k < NKEYS; k++)
			if ((size_t)(eq - field) == keys[k].len &&
			    !memcmp(field, keys[k].name, keys[k].len))
				bit = keys[k].bit;
		if (!bit)
			return *why = "unknown key", -1;
		if (r->has & bit)
			return *why = "repeated key", -1;
		if (parse_value(eq + 1, fend, slot(r, bit)) < 0)
			return *why = "value is not a decimal integer of at most 15 digits", -1;
		r->has |= bit;
		p = fend;
	}
	if (!(r->has & (HS_WIRE_HAS_STEP | HS_WIRE_HAS_CKPT)))
		return *why = "neither step nor ckpt", -1;
	if ((r->has & HS_WIRE_HAS_SAMPLES) && !(r->has & HS_WIRE_HAS_STEP))
		return *why = "samples without step", -1;
	return 0;
}

/* Appends " key=value" at buf[*pos]; value <= HS_WIRE_VALUE_MAX. */
static void put_field(char *buf, size_t *pos, const char *key, uint64_t v)
{
	char digits[20];
	int n = 0;

	buf[(*pos)++] = ' ';
	while (*key)
		buf[(*pos)++] = *key++;
	buf[(*pos)++] = '=';
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[(*pos)++] = digits[--n];
}

int hs_wire_format(const hs_wire_report_t *r, char *buf, size_t size)
{
	size_t pos = 3;

	/* Longest: "hs1" + " samples=" + 3 x 15 digits + the other keys: < 80. */
	if (!r || !buf || size < HS_WIRE_MAX + 1)
		return -1;
	if (!(r->has & (HS_WIRE_HAS_STEP | HS_WIRE_HAS_CKPT)) ||
	    ((r->has & HS_WIRE_HAS_SAMPLES) && !(r->has & HS_WIRE_HAS_STEP)))
		return -1;
	if (((r->has & HS_WIRE_HAS_STEP) && r->step > HS_WIRE_VALUE_MAX) ||
	    ((r->has & HS_WIRE_HAS_SAMPLES) && r->samples > HS_WIRE_VALUE_MAX) ||
	    ((r->has & HS_WIRE_HAS_CKPT) && r->ckpt > HS_WIRE_VALUE_MAX))
		return -1;
	memcpy(buf, "hs1", 3);
	if (r->has & HS_WIRE_HAS_STEP)
		put_field(buf, &pos, "step", r->step);
	if (r->has & HS_WIRE_HAS_SAMPLES)
		put_field(buf, &pos, "samples", r->samples);
	if (r->has & HS_WIRE_HAS_CKPT)
		put_field(buf, &pos, "ckpt", r->ckpt);
	buf[pos] = '\0';
	return (int)pos;
}
