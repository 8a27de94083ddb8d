/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_hints.c — libFuzzer target for the submit hints the sched plugin
 * reads in slurmctld from a job's spank_job_env (src/sched/hints.h): the
 * HS_* entries come from the user's sbatch, or are crafted by hand.
 * Input: the environment, entries separated by NUL bytes; an entry that is
 * exactly "\xff" stands for a NULL pointer. Properties:
 *  - every output is within its documented range (model "" or a valid
 *    model name, steps 0 or 1..10^15, flags 0/1, an allowed checkpoint
 *    signal), model and bad NUL-terminated inside their arrays, bad "" or
 *    a printable "invalid hint '...'";
 *  - the first entry of each key decides, as doc/protocol.md (a) says: an
 *    independent reading of the first HS_MODEL/HS_STEPS/... entry gives the
 *    same fields, defaults for a rejected value, and bad is set exactly when
 *    one of those first entries was rejected;
 *  - the parsed hints, written back as HS_* entries, parse to the same
 *    hints with nothing rejected (parse -> format -> parse);
 *  - appending the environment to itself changes nothing (first wins).
 * Run with tests/fuzz/run.sh. */
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hints.h"
#include "sched/hints.h"

#define MAX_ENTRIES 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static int same(const hs_hints_t *a, const hs_hints_t *b, int with_bad)
{
	return !strcmp(a->model, b->model) && a->steps == b->steps && a->ckpt == b->ckpt &&
	       a->no_preempt == b->no_preempt && a->ckpt_signal == b->ckpt_signal &&
	       (!with_bad || !strcmp(a->bad, b->bad));
}

/* The value of the first entry whose key is exactly `key`, or NULL. */
static const char *first(char *const *env, uint32_t n, const char *key)
{
	size_t kl = strlen(key);

	for (uint32_t i = 0; i < n; i++)
		if (env[i] && !strncmp(env[i], key, kl) && env[i][kl] == '=')
			return env[i] + kl + 1;
	return NULL;
}

static void check_ranges(const hs_hints_t *h)
{
	check(memchr(h->model, '\0', sizeof(h->model)) != NULL);
	check(memchr(h->bad, '\0', sizeof(h->bad)) != NULL);
	check(!h->model[0] || hs_hint_model_ok(h->model));
	check(h->steps <= HS_HINT_STEPS_MAX);
	check(h->ckpt == 0 || h->ckpt == 1);
	check(h->no_preempt == 0 || h->no_preempt == 1);
	check(hs_hint_ckpt_signal_ok(h->ckpt_signal));
	if (h->bad[0]) {
		check(!strncmp(h->bad, "invalid hint 'HS_", 17));
		for (const char *p = h->bad; *p; p++)
			check(*p >= 0x20 && *p < 0x7f);
	}
}

/* The first entry of each key decides; a rejected one leaves the default. */
static void check_first_wins(const hs_hints_t *h, char *const *env, uint32_t n)
{
	const char *v;
	uint64_t x = 0;
	int rejected = 0;

	v = first(env, n, "HS_MODEL");
	if (v && hs_hint_model_ok(v)) {
		check(!strcmp(h->model, v));
	} else {
		check(h->model[0] == '\0');
		rejected |= v != NULL;
	}
	v = first(env, n, "HS_STEPS");
	if (v && hs_hint_steps_parse(v, &x) == 0) {
		check(h->steps == x && x >= 1);
	} else {
		check(h->steps == 0);
		rejected |= v != NULL;
	}
	v = first(env, n, "HS_CKPT");
	check(h->ckpt == (v && !strcmp(v, "1")));
	rejected |= v && strcmp(v, "0") && strcmp(v, "1");
	v = first(env, n, "HS_NO_PREEMPT");
	check(h->no_preempt == (v && !strcmp(v, "1")));
	rejected |= v && strcmp(v, "0") && strcmp(v, "1");
	/* a number here (the SPANK plugin writes one), not a signal name */
	v = first(env, n, "HS_CKPT_SIGNAL");
	if (v && hs_hint_steps_parse(v, &x) == 0 && x < 128 && hs_hint_ckpt_signal_ok((int)x)) {
		check(h->ckpt_signal == (int)x);
	} else {
		check(h->ckpt_signal == SIGURG);
		rejected |= v != NULL;
	}
	check(!!h->bad[0] == rejected);
}

/* Writes h back as the entries the SPANK plugin would set; parses them. */
static void check_round_trip(const hs_hints_t *h)
{
	char e[5][HS_JH_MODEL_MAX + 32];
	char *env[5];
	uint32_t n = 0;
	hs_hints_t h2;

	if (h->model[0])
		snprintf(e[n++], sizeof(e[0]), "HS_MODEL=%s", h->model);
	if (h->steps)
		snprintf(e[n++], sizeof(e[0]), "HS_STEPS=%" PRIu64, h->steps);
	snprintf(e[n++], sizeof(e[0]), "HS_CKPT=%d", h->ckpt);
	snprintf(e[n++], sizeof(e[0]), "HS_NO_PREEMPT=%d", h->no_preempt);
	snprintf(e[n++], sizeof(e[0]), "HS_CKPT_SIGNAL=%d", h->ckpt_signal);
	for (uint32_t i = 0; i < n; i++)
		env[i] = e[i];
	hs_hints_parse(&h2, env, n);
	check(same(h, &h2, 0) && h2.bad[0] == '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *env[2 * MAX_ENTRIES];
	uint32_t n = 0;
	hs_hints_t h, h2;

	if (size > 8192)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* NUL-separated entries; "\xff" alone is a NULL entry */
	for (char *p = text; p <= text + size && n < MAX_ENTRIES; p += strlen(p) + 1)
		env[n++] = strcmp(p, "\xff") ? p : NULL;
	hs_hints_parse(&h, env, n);
	check_ranges(&h);
	check_first_wins(&h, env, n);
	check_round_trip(&h);
	memcpy(env + n, env, n * sizeof(env[0]));
	hs_hints_parse(&h2, env, 2 * n);
	check(same(&h, &h2, 1));
	free(text);
	return 0;
}
