/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_sacct.c — the learned table from sacct's history (rules in
 * learn_sacct.h). */
#include "sched/learn_sacct.h"

#include "report/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFIELDS 7 /* HS_LEARN_SACCT_FIELDS; the last, JobName, takes the rest */

int hs_learn_sacct_begin(hs_learn_sacct_t *h, const hs_learn_t *l, hs_learn_scope_t scope,
			 const char *delim, int64_t now, hs_err_t *err)
{
	memset(h, 0, sizeof(*h));
	hs_learn_init(&h->base, l->max_kinds);
	if (!delim || !*delim)
		return hs_err_set(err, "sacct: empty delimiter");
	h->scope = scope;
	h->delim = delim;
	h->now = now;
	if (l->n == 0)
		return 0;
	/* a copy of the table as it is, through its own save and load (the
	 * merge rule compares with it, not with what this import adds) */
	json_object *o = hs_learn_save(l);
	int rc = o ? hs_learn_load(&h->base, o, err) : hs_err_set(err, "sacct: out of memory");
	json_object_put(o);
	return rc < 0 ? -1 : 0;
}

void hs_learn_sacct_end(hs_learn_sacct_t *h)
{
	hs_learn_free(&h->base);
	free(h->seen);
	h->seen = NULL;
	h->seen_n = h->seen_cap = 0;
}

static int bad(hs_learn_sacct_t *h, const char *why)
{
	if (!h->bad)
		snprintf(h->first_bad, sizeof(h->first_bad), "line %ld: %s", h->lines, why);
	h->bad++;
	return -1;
}

/* FNV-1a over (job, type, time): the identity of one sample. 0 is kept
 * for "free" in the set. */
static uint64_t sample_hash(uint32_t job, const char *type, int64_t t)
{
	uint64_t x = 1469598103934665603ull;
	const unsigned char *p;
	unsigned char buf[12];
	memcpy(buf, &job, 4);
	memcpy(buf + 4, &t, 8);
	for (size_t i = 0; i < sizeof(buf); i++)
		x = (x ^ buf[i]) * 1099511628211ull;
	for (p = (const unsigned char *)type; *p; p++)
		x = (x ^ *p) * 1099511628211ull;
	return x ? x : 1;
}

/* Adds x to the open-addressing set; 1 added, 0 already there, -1 out of
 * memory. Kept at most half full. */
static int seen_add(hs_learn_sacct_t *h, uint64_t x)
{
	if (2 * (h->seen_n + 1) > h->seen_cap) {
		size_t cap = h->seen_cap ? 2 * h->seen_cap : 1024;
		uint64_t *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return -1;
		for (size_t i = 0; i < h->seen_cap; i++)
			if (h->seen[i]) {
				size_t k = h->seen[i] & (cap - 1);
				while (ns[k])
					k = (k + 1) & (cap - 1);
				ns[k] = h->seen[i];
			}
		free(h->seen);
		h->seen = ns;
		h->seen_cap = cap;
	}
	size_t k = x & (h->seen_cap - 1);
	while (h->seen[k]) {
		if (h->seen[k] == x)
			return 0;
		k = (k + 1) & (h->seen_cap - 1);
	}
	h->seen[k] = x;
	h->seen_n++;
	return 1;
}

/* A decimal number of 1..10 digits, at most max (no sign, no spaces). */
static int parse_u32(const char *s, size_t n, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* JobID as sacct prints it: "N", "N_M" (array task: array id N) or "N+K"
 * (a heterogeneous job's component). */
static int parse_jobid(const char *s, size_t n, uint32_t *array_id)
{
	size_t i = 0;
	uint32_t a, b;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (parse_u32(s, i, UINT32_MAX, &a) < 0)
		return -1;
	*array_id = 0;
	if (i == n)
		return 0;
	if ((s[i] != '_' && s[i] != '+') || parse_u32(s + i + 1, n - i - 1, UINT32_MAX, &b) < 0)
		return -1;
	if (s[i] == '_')
		*array_id = a;
	return 0;
}

/* The job's GPU count from AllocTRES ("billing=1,cpu=1,gres/gpu:v100=2,
 * gres/gpu=2,node=1"): gres/gpu=N. 0 = none, -1 = malformed. */
static int parse_gpus(const char *s, size_t n)
{
	size_t i = 0;
	int gpus = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != ',')
			j++;
		static const char key[] = "gres/gpu=";
		const size_t kl = sizeof(key) - 1;
		if (j - i > kl && !memcmp(s + i, key, kl)) {
			uint32_t v;
			if (parse_u32(s + i + kl, j - i - kl, 1000000, &v) < 0)
				return -1;
			gpus = (int)v;
		}
		for (size_t k = i; k < j; k++)
			if (s[k] <= ' ' || s[k] > '~')
				return -1;
		i = j + 1;
	}
	return gpus;
}

/* Is the sample no newer than the cell it goes to in the table as it was
 * before the import? */
static int older_than_base(const hs_learn_sacct_t *h, const char *kind, int sf,
			   const char *type, int64_t t)
{
	const hs_learn_entry_t *e = hs_learn_find(&h->base, kind, sf);
	for (int x = 0; e && x < h->base.ntypes; x++)
		if (!strcmp(h->base.types[x], type))
			return e->cell[x].n > 0 && t <= e->cell[x].last;
	return 0;
}

/* Feeds the record's alone samples; the count fed. */
static int feed(hs_learn_sacct_t *h, hs_learn_t *l, const hs_record_t *rec, uint32_t job,
		const char *kind, int gpus)
{
	int fed = 0;
	for (int i = 0; i < rec->nthr; i++) {
		const hs_record_thr_t *r = &rec->thr[i];
		if (strchr(r->gpu, ':'))
			continue; /* a shard's rate is not the kind's (learn.h) */
		int64_t t = r->t > h->now ? h->now : r->t;
		int s = seen_add(h, sample_hash(job, r->gpu, r->t));
		if (s < 0)
			return bad(h, "out of memory");
		if (s == 0) {
			h->dup++;
			continue;
		}
		if (older_than_base(h, kind, gpus, r->gpu, t)) {
			h->old++;
			continue;
		}
		if (hs_learn_observe(l, kind, gpus, r->gpu, r->sps, t) < 0) {
			h->refused++;
			continue;
		}
		h->samples++;
		fed++;
	}
	return fed;
}

int hs_learn_sacct_line(hs_learn_sacct_t *h, hs_learn_t *l, const char *line, size_t len)
{
	const char *f[NFIELDS];
	size_t fl[NFIELDS];
	const size_t dl = strlen(h->delim);
	h->lines++;
	if (len > HS_LEARN_SACCT_LINE_MAX)
		return bad(h, "line too long");
	if (memchr(line, '\0', len))
		return bad(h, "NUL byte");
	/* the first six fields end at a delimiter; JobName is the rest */
	const char *p = line, *end = line + len;
	for (int i = 0; i < NFIELDS - 1; i++) {
		const char *d = NULL;
		for (const char *q = p; q + dl <= end && !d; q++)
			if (!memcmp(q, h->delim, dl))
				d = q;
		if (!d)
			return bad(h, "too few fields (wrong delimiter or fields?)");
		f[i] = p;
		fl[i] = (size_t)(d - p);
		p = d + dl;
	}
	f[NFIELDS - 1] = p;
	fl[NFIELDS - 1] = (size_t)(end - p);

	uint32_t job, array_id, uid;
	if (parse_u32(f[0], fl[0], UINT32_MAX, &job) < 0 || job == 0)
		return bad(h, "JobIDRaw is not a job id");
	if (parse_jobid(f[1], fl[1], &array_id) < 0)
		return bad(h, "JobID is not N, N_M or N+K");
	if (parse_u32(f[2], fl[2], UINT32_MAX, &uid) < 0)
		return bad(h, "UID is not a number");
	int gpus = parse_gpus(f[4], fl[4]);
	if (gpus < 0)
		return bad(h, "AllocTRES malformed");
	if (fl[5] == 0 || gpus == 0) {
		h->no_data++;
		return 0;
	}
	/* the fields as strings (bounded: the line is) */
	char *buf = malloc(len + NFIELDS);
	if (!buf)
		return bad(h, "out of memory");
	char *s[NFIELDS], *w = buf;
	for (int i = 0; i < NFIELDS; i++) {
		memcpy(w, f[i], fl[i]);
		w[fl[i]] = '\0';
		s[i] = w;
		w += fl[i] + 1;
	}
	hs_record_t rec;
	hs_err_t e = { "" };
	int rc;
	if (!hs_record_is_ours(s[5])) {
		h->no_data++; /* an administrator's own comment */
		rc = 0;
	} else if (hs_record_parse(&rec, s[5], &e) < 0) {
		rc = bad(h, e.msg); /* a damaged record */
	} else {
		char uidtxt[16], kind[HS_LEARN_KIND_MAX];
		snprintf(uidtxt, sizeof(uidtxt), "%u", uid);
		hs_learn_job_t j = { .scope = h->scope, .user = uidtxt, .account = s[3],
				     .model = rec.model, .name = s[6], .array_id = array_id,
				     .id = job };
		hs_learn_kind(&j, kind);
		long before = h->bad;
		rc = feed(h, l, &rec, job, kind, gpus);
		if (h->bad != before)
			rc = -1;
		else if (rc > 0)
			h->jobs++, rc = 1;
		else
			h->no_data++;
	}
	free(buf);
	return rc;
}
