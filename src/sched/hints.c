/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hints.c — re-validation of the HS_* submit hints in spank_job_env with
 * the rules of doc/protocol.md (a): the very checks sbatch ran
 * (report/hints.h), applied to what slurmctld stored. */
#include "sched/hints.h"
#include "core/model.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

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
			if (hs_hint_model_ok(v))
				hs_strlcpy(h->model, v, sizeof(h->model));
			else
				note_bad(h, e);
		} else if (KEY("HS_STEPS")) {
			if (seen_steps++)
				continue;
			if (hs_hint_steps_parse(v, &x) == 0)
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
			/* a number here (the plugin writes one), not a name */
			if (hs_hint_steps_parse(v, &x) == 0 && x < 128 &&
			    hs_hint_ckpt_signal_ok((int)x))
				h->ckpt_signal = (int)x;
			else
				note_bad(h, e);
		}
#undef KEY
	}
}
