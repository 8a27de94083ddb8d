/* hints.c — re-validation of the HS_* submit hints in spank_job_env with
 * the rules of doc/protocol.md (a). */
#include "sched/hints.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

int hs_hints_signal_ok(int sig)
{
	return sig == SIGURG || sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGWINCH;
}

/* NAME: 1..127 bytes of printable ASCII without '"' or '\'. */
static int model_ok(const char *v)
{
	size_t n = strlen(v);
	if (n < 1 || n >= HS_JH_MODEL_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			return 0;
	}
	return 1;
}

/* A decimal integer in lo..hi, digits only, no leading zeros. */
static int uint_ok(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	size_t n = strlen(v);
	if (n < 1 || n > 16 || (n > 1 && v[0] == '0'))
		return 0;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return 0;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x < lo || x > hi)
		return 0;
	*out = x;
	return 1;
}

static void note_bad(hs_hints_t *h, const char *entry)
{
	if (h->bad[0])
		return;
	/* Quote at most 100 bytes, replacing anything unprintable. */
	char q[104];
	size_t i;
	for (i = 0; entry[i] && i < 100; i++) {
		unsigned char c = (unsigned char)entry[i];
		q[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	q[i] = 0;
	snprintf(h->bad, sizeof(h->bad), "invalid hint '%s%s'", q, entry[i] ? "..." : "");
}

void hs_hints_parse(hs_hints_t *h, char *const *env, uint32_t n)
{
	memset(h, 0, sizeof(*h));
	h->ckpt_signal = SIGURG;
	int seen_model = 0, seen_steps = 0, seen_ckpt = 0, seen_np = 0, seen_sig = 0;
	for (uint32_t i = 0; env && i < n; i++) {
		const char *e = env[i];
		if (!e || strncmp(e, "HS_", 3))
			continue;
		const char *eq = strchr(e, '=');
		if (!eq)
			continue;
		size_t klen = (size_t)(eq - e);
		const char *v = eq + 1;
		uint64_t x;
#define KEY(name) (klen == sizeof(name) - 1 && !memcmp(e, name, klen))
		if (KEY("HS_MODEL")) {
			if (seen_model++)
				continue;
			if (model_ok(v))
				snprintf(h->model, sizeof(h->model), "%s", v);
			else
				note_bad(h, e);
		} else if (KEY("HS_STEPS")) {
			if (seen_steps++)
				continue;
			if (uint_ok(v, 1, HS_JH_STEPS_MAX, &x))
				h->steps = x;
			else
				note_bad(h, e);
		} else if (KEY("HS_CKPT")) {
			if (seen_ckpt++)
				continue;
			if (!strcmp(v, "1"))
				h->ckpt = 1;
			else if (strcmp(v, "0"))
				note_bad(h, e);
		} else if (KEY("HS_NO_PREEMPT")) {
			if (seen_np++)
				continue;
			if (!strcmp(v, "1"))
				h->no_preempt = 1;
			else if (strcmp(v, "0"))
				note_bad(h, e);
		} else if (KEY("HS_CKPT_SIGNAL")) {
			if (seen_sig++)
				continue;
			if (uint_ok(v, 1, 64, &x) && hs_hints_signal_ok((int)x))
				h->ckpt_signal = (int)x;
			else
				note_bad(h, e);
		}
#undef KEY
	}
}
