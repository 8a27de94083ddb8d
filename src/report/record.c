/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.c — JSON codec of the AdminComment measurement record (record.h),
 * with json-c. */
#include "report/hints.h"
#include "report/measure_err.h"
#include "report/record.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


void hs_record_init(hs_record_t *r)
{
	memset(r, 0, sizeof(*r));
}

int hs_record_gpu_valid(const char *gpu)
{
	size_t n;

	if (!gpu)
		return 0;
	n = strlen(gpu);
	if (n == 0 || n >= HS_RECORD_GPU_MAX)
		return 0;
	for (const char *p = gpu; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_.+:-", *p)))
			return 0;
	return 1;
}

int hs_record_is_ours(const char *text)
{
	json_object *o, *v;
	int ours;

	if (!text || !*text)
		return 1;
	o = json_tokener_parse(text);
	ours = o && json_object_is_type(o, json_type_object) &&
	       json_object_object_get_ex(o, "hs", &v);
	json_object_put(o);
	return ours;
}

/* ---- parsing ------------------------------------------------------------ */

static int get_int64(json_object *o, const char *key, int64_t lo, int64_t hi,
		     int64_t *out, int required, hs_err_t *err)
{
	json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(o, key, &v))
		return required ? hs_measure_err(err, "record: missing \"%s\"", key) : 1;
	if (!json_object_is_type(v, json_type_int))
		return hs_measure_err(err, "record: \"%s\" is not an integer", key);
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < lo || x > hi)
		return hs_measure_err(err, "record: \"%s\" out of range", key);
	*out = x;
	return 0;
}

static int get_gpu(json_object *o, const char *key, char *out, hs_err_t *err)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return hs_measure_err(err, "record: \"%s\" must be a string", key);
	s = json_object_get_string(v);
	if (!hs_record_gpu_valid(s))
		return hs_measure_err(err, "record: invalid GPU type \"%.64s\"", s);
	strcpy(out, s);
	return 0;
}

#define MAX_COUNT 999999999999999LL  /* same bound as the wire format */
#define MAX_TIME 253402300799LL      /* 9999-12-31 */

static int parse_thr(hs_record_t *r, json_object *thr, hs_err_t *err)
{
	if (!json_object_is_type(thr, json_type_object))
		return hs_measure_err(err, "record: \"thr\" is not an object");
	json_object_object_foreach(thr, gpu, ent) {
		json_object *v;
		int64_t n, t;
		double sps;

		if (r->nthr == HS_RECORD_MAX_TYPES)
			return hs_measure_err(err, "record: more than %d GPU types", HS_RECORD_MAX_TYPES);
		if (!hs_record_gpu_valid(gpu))
			return hs_measure_err(err, "record: invalid GPU type \"%.64s\"", gpu);
		if (hs_record_thr_find(r, gpu))
			return hs_measure_err(err, "record: GPU type \"%s\" twice", gpu);
		if (!json_object_is_type(ent, json_type_object))
			return hs_measure_err(err, "record: thr.%s is not an object", gpu);
		if (!json_object_object_get_ex(ent, "sps", &v) ||
		    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
			return hs_measure_err(err, "record: thr.%s.sps must be a number", gpu);
		sps = json_object_get_double(v);
		if (!isfinite(sps) || sps <= 0 || sps > 1e15)
			return hs_measure_err(err, "record: thr.%s.sps out of range", gpu);
		if (get_int64(ent, "n", 1, MAX_COUNT, &n, 1, err) ||
		    get_int64(ent, "t", 0, MAX_TIME, &t, 1, err))
			return -1;
		strcpy(r->thr[r->nthr].gpu, gpu);
		r->thr[r->nthr].sps = sps;
		r->thr[r->nthr].n = (unsigned long)n;
		r->thr[r->nthr].t = t;
		r->nthr++;
	}
	return 0;
}

static int parse_hist(hs_record_t *r, json_object *hist, hs_err_t *err)
{
	size_t len;

	if (!json_object_is_type(hist, json_type_array))
		return hs_measure_err(err, "record: \"hist\" is not an array");
	len = json_object_array_length(hist);
	if (len > HS_RECORD_MAX_HIST)
		return hs_measure_err(err, "record: more than %d history entries", HS_RECORD_MAX_HIST);
	for (size_t i = 0; i < len; i++) {
		json_object *ent = json_object_array_get_idx(hist, i);
		hs_record_hist_t *h = &r->hist[r->nhist];
		int64_t rc, t;

		if (!json_object_is_type(ent, json_type_object))
			return hs_measure_err(err, "record: hist[%zu] is not an object", i);
		if (get_gpu(ent, "gpu", h->gpu, err) ||
		    get_int64(ent, "rc", 0, 1000000, &rc, 1, err) ||
		    get_int64(ent, "t", 0, MAX_TIME, &t, 1, err))
			return -1;
		h->rc = (unsigned)rc;
		h->t = t;
		r->nhist++;
	}
	return 0;
}

static int parse_obj(hs_record_t *r, json_object *o, hs_err_t *err)
{
	json_object *v;
	int64_t x;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return hs_measure_err(err, "record: not a JSON object");
	if (get_int64(o, "hs", 0, 1000, &x, 1, err))
		return -1;
	if (x != HS_RECORD_VERSION)
		return hs_measure_err(err, "record: version %lld, expected %d", (long long)x, HS_RECORD_VERSION);
	if (json_object_object_get_ex(o, "thr", &v) && parse_thr(r, v, err))
		return -1;
	if (json_object_object_get_ex(o, "hist", &v) && parse_hist(r, v, err))
		return -1;
	if ((rc = get_int64(o, "step", 0, MAX_COUNT, &x, 0, err)) < 0)
		return -1;
	if (rc == 0) {
		r->has_step = 1;
		r->step = (uint64_t)x;
		if (get_int64(o, "t", 0, MAX_TIME, &r->t, 1, err))
			return -1;
	}
	if ((rc = get_int64(o, "samples", 0, MAX_COUNT, &x, 0, err)) < 0)
		return -1;
	if (rc == 0) {
		if (!r->has_step)
			return hs_measure_err(err, "record: \"samples\" without \"step\"");
		r->has_samples = 1;
		r->samples = (uint64_t)x;
	}
	if (json_object_object_get_ex(o, "model", &v)) {
		const char *m = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
									   : NULL;
		/* the hint's own rule: printable ASCII, no quote or backslash
		 * (so formatting needs no escaping) */
		/* (a NUL inside the JSON string would cut it short) */
		if (!m || (size_t)json_object_get_string_len(v) != strlen(m) ||
		    !hs_hint_model_ok(m) || strlen(m) >= sizeof(r->model))
			return hs_measure_err(err, "record: \"model\" is not a valid model name");
		memcpy(r->model, m, strlen(m) + 1);
	}
	if (json_object_object_get_ex(o, "ckpt", &v)) {
		if (!json_object_is_type(v, json_type_object))
			return hs_measure_err(err, "record: \"ckpt\" is not an object");
		if (get_int64(v, "step", 0, MAX_COUNT, &x, 1, err) ||
		    get_int64(v, "t", 0, MAX_TIME, &r->ckpt_t, 1, err))
			return -1;
		r->has_ckpt = 1;
		r->ckpt_step = (uint64_t)x;
	}
	return 0;
}

int hs_record_parse(hs_record_t *r, const char *text, hs_err_t *err)
{
	json_tokener *tok;
	json_object *o;
	enum json_tokener_error jerr;
	size_t len;
	int rc;

	hs_record_init(r);
	if (!text || !*text)
		return 0;
	len = strlen(text);
	if (len > 4 * HS_RECORD_MAX_BYTES)
		return hs_measure_err(err, "record: %zu bytes, too long", len);
	tok = json_tokener_new_ex(8);  /* the format nests 3 deep */
	if (!tok)
		return hs_measure_err(err, "record: out of memory");
	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!o || jerr != json_tokener_success || json_tokener_get_parse_end(tok) != len) {
		json_tokener_free(tok);
		json_object_put(o);
		return hs_measure_err(err, "record: not valid JSON (%s)",
			       jerr == json_tokener_success ? "trailing data" : json_tokener_error_desc(jerr));
	}
	json_tokener_free(tok);
	rc = parse_obj(r, o, err);
	json_object_put(o);
	if (rc)
		hs_record_init(r);
	return rc;
}

/* ---- editing ------------------------------------------------------------ */

const hs_record_thr_t *hs_record_thr_find(const hs_record_t *r, const char *gpu)
{
	for (int i = 0; i < r->nthr; i++)
		if (!strcmp(r->thr[i].gpu, gpu))
			return &r->thr[i];
	return NULL;
}

static void thr_remove(hs_record_t *r, int i)
{
	memmove(&r->thr[i], &r->thr[i + 1], (size_t)(r->nthr - i - 1) * sizeof(r->thr[0]));
	r->nthr--;
}

static int oldest_thr(const hs_record_t *r)
{
	int o = 0;

	for (int i = 1; i < r->nthr; i++)
		if (r->thr[i].t < r->thr[o].t)
			o = i;
	return o;
}

int hs_record_thr_set(hs_record_t *r, const char *gpu, double sps,
		      unsigned long n, int64_t t)
{
	hs_record_thr_t *e = (hs_record_thr_t *)hs_record_thr_find(r, gpu);

	if (!hs_record_gpu_valid(gpu) || !isfinite(sps) || sps <= 0 || sps > 1e15)
		return -1;
	if (!e) {
		if (r->nthr == HS_RECORD_MAX_TYPES)
			thr_remove(r, oldest_thr(r));
		e = &r->thr[r->nthr++];
		strcpy(e->gpu, gpu);
	}
	e->sps = sps;
	e->n = n ? n : 1;
	e->t = t;
	return 0;
}

int hs_record_hist_add(hs_record_t *r, const char *gpu, unsigned rc, int64_t t)
{
	hs_record_hist_t *h;

	if (!hs_record_gpu_valid(gpu))
		return -1;
	if (r->nhist && r->hist[r->nhist - 1].rc == rc && !strcmp(r->hist[r->nhist - 1].gpu, gpu))
		return 0;
	if (r->nhist == HS_RECORD_MAX_HIST) {
		memmove(&r->hist[0], &r->hist[1], (HS_RECORD_MAX_HIST - 1) * sizeof(r->hist[0]));
		r->nhist--;
	}
	h = &r->hist[r->nhist++];
	strcpy(h->gpu, gpu);
	h->rc = rc;
	h->t = t;
	return 0;
}

/* ---- formatting --------------------------------------------------------- */

/* snprintf into buf at *pos; remembers overflow in *pos = size. */
static void put(char *buf, size_t size, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
	va_end(ap);
	*pos = (n < 0 || (size_t)n >= size - *pos) ? size : *pos + (size_t)n;
}

/* GPU names are validated to [A-Za-z0-9_.+:-], so they need no escaping. */
static size_t format_raw(const hs_record_t *r, char *buf, size_t size)
{
	size_t pos = 0;

	put(buf, size, &pos, "{\"hs\":%d", HS_RECORD_VERSION);
	if (r->nthr) {
		put(buf, size, &pos, ",\"thr\":{");
		for (int i = 0; i < r->nthr; i++)
			put(buf, size, &pos, "%s\"%s\":{\"sps\":%.6g,\"n\":%lu,\"t\":%lld}",
			    i ? "," : "", r->thr[i].gpu, r->thr[i].sps, r->thr[i].n,
			    (long long)r->thr[i].t);
		put(buf, size, &pos, "}");
	}
	if (r->nhist) {
		put(buf, size, &pos, ",\"hist\":[");
		for (int i = 0; i < r->nhist; i++)
			put(buf, size, &pos, "%s{\"gpu\":\"%s\",\"rc\":%u,\"t\":%lld}",
			    i ? "," : "", r->hist[i].gpu, r->hist[i].rc, (long long)r->hist[i].t);
		put(buf, size, &pos, "]");
	}
	if (r->has_step) {
		put(buf, size, &pos, ",\"step\":%llu", (unsigned long long)r->step);
		if (r->has_samples)
			put(buf, size, &pos, ",\"samples\":%llu", (unsigned long long)r->samples);
		put(buf, size, &pos, ",\"t\":%lld", (long long)r->t);
	}
	if (r->has_ckpt)
		put(buf, size, &pos, ",\"ckpt\":{\"step\":%llu,\"t\":%lld}",
		    (unsigned long long)r->ckpt_step, (long long)r->ckpt_t);
	/* set only from a valid hint (hs_hint_model_ok): no escaping needed */
	if (r->model[0] && memchr(r->model, 0, sizeof(r->model)) && hs_hint_model_ok(r->model))
		put(buf, size, &pos, ",\"model\":\"%s\"", r->model);
	put(buf, size, &pos, "}");
	return pos;
}

int hs_record_format(const hs_record_t *in, char *buf, size_t size, hs_err_t *err)
{
	hs_record_t r = *in;
	size_t limit = size - 1 < HS_RECORD_MAX_BYTES ? size - 1 : HS_RECORD_MAX_BYTES;

	if (!buf || size < 16)
		return hs_measure_err(err, "record: output buffer too small");
	for (int i = 0; i < r.nthr; i++)
		if (!hs_record_gpu_valid(r.thr[i].gpu) || !isfinite(r.thr[i].sps) || r.thr[i].sps <= 0)
			return hs_measure_err(err, "record: invalid throughput entry %d", i);
	for (int i = 0; i < r.nhist; i++)
		if (!hs_record_gpu_valid(r.hist[i].gpu))
			return hs_measure_err(err, "record: invalid history entry %d", i);
	for (;;) {
		size_t n = format_raw(&r, buf, limit + 1);

		if (n <= limit)
			return (int)n;
		if (r.nhist > 1) {
			memmove(&r.hist[0], &r.hist[1], (size_t)(r.nhist - 1) * sizeof(r.hist[0]));
			r.nhist--;
		} else if (r.nthr > 1) {
			thr_remove(&r, oldest_thr(&r));
		} else {
			return hs_measure_err(err, "record: does not fit in %zu bytes", limit);
		}
	}
}
