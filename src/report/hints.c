/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hints.c — validation of user hints and plugstack.conf arguments for
 * spank_hetsched; see hints.h. */
#include "report/hints.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int printable_no_quote(const char *s, size_t max)
{
	size_t n;

	if (!s)
		return 0;
	n = strlen(s);
	if (n == 0 || n > max)
		return 0;
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return 0;
	return 1;
}

int hs_hint_model_ok(const char *s)
{
	return printable_no_quote(s, HS_HINT_MODEL_MAX);
}

int hs_hint_dir_ok(const char *s)
{
	return printable_no_quote(s, HS_HINT_PATH_MAX) && s[0] == '/';
}

int hs_hint_steps_parse(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 16)
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < 1 || v > HS_HINT_STEPS_MAX)
		return -1;
	*out = v;
	return 0;
}

int hs_hint_dir_expand(const char *pattern, uint32_t job_id, const char *user,
		       char *out, size_t size)
{
	size_t pos = 0;

	if (!size)
		return -1;
	for (const char *p = pattern; *p; p++) {
		char tmp[16];
		const char *add = NULL;
		size_t n;

		if (p[0] == '%' && p[1] == 'j') {
			snprintf(tmp, sizeof(tmp), "%u", job_id);
			add = tmp;
			p++;
		} else if (p[0] == '%' && p[1] == 'u') {
			add = user ? user : "";
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			add = "%";
			p++;
		}
		if (!add) {
			tmp[0] = *p;
			tmp[1] = '\0';
			add = tmp;
		}
		n = strlen(add);
		if (pos + n >= size)
			return out[0] = '\0', -1;
		memcpy(out + pos, add, n);
		pos += n;
	}
	out[pos] = '\0';
	return 0;
}

static const struct {
	const char *name;
	int sig;
} ckpt_signals[] = {
	{ "URG", SIGURG }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "WINCH", SIGWINCH },
};

int hs_hint_ckpt_signal_ok(int sig)
{
	for (size_t i = 0; i < sizeof(ckpt_signals) / sizeof(ckpt_signals[0]); i++)
		if (ckpt_signals[i].sig == sig)
			return 1;
	return 0;
}

int hs_hint_ckpt_signal(const char *s)
{
	uint64_t v;

	if (!s)
		return -1;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof(ckpt_signals) / sizeof(ckpt_signals[0]); i++)
		if (!strcasecmp(s, ckpt_signals[i].name))
			return ckpt_signals[i].sig;
	if (hs_hint_steps_parse(s, &v) == 0 && v < 128 && hs_hint_ckpt_signal_ok((int)v))
		return (int)v;
	return -1;
}

void hs_spank_conf_defaults(hs_spank_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->publish_interval = 60;
	c->window = 5;
	c->max_rate = 1000;
	c->max_sps = 1e6;
	c->ckpt_signal = SIGURG;
	c->ckpt_hold = 120;
	c->min_interval_us = 10000;
	snprintf(c->socket_dir, sizeof(c->socket_dir), "%s", HS_SOCKET_DIR_DEFAULT);
}

/* Number in [lo, hi], else -1. */
static int num(const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	if (!*v)
		return -1;
	errno = 0;
	d = strtod(v, &end);
	if (errno || *end || !isfinite(d) || d < lo || d > hi)
		return -1;
	*out = d;
	return 0;
}

int hs_spank_conf_parse(hs_spank_conf_t *c, int ac, char **av, char *err, size_t errlen)
{
	int bad = 0;

	if (err && errlen)
		err[0] = '\0';
	for (int i = 0; i < ac; i++) {
		const char *a = av[i], *eq = strchr(a, '=');
		const char *v = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);
		double d;
		int ok = 1, sig;

#define KEY(k) (klen == strlen(k) && !strncmp(a, k, klen))
		if (!eq)
			ok = 0;
		else if (KEY("publish_interval"))
			ok = !num(v, 1, 86400, &d) && (c->publish_interval = d, 1);
		else if (KEY("window"))
			ok = !num(v, 0.1, 3600, &d) && (c->window = d, 1);
		else if (KEY("max_rate"))
			ok = !num(v, 1, 100000, &d) && d == floor(d) && (c->max_rate = (unsigned)d, 1);
		else if (KEY("max_sps"))
			ok = !num(v, 1, 1e12, &d) && (c->max_sps = d, 1);
		else if (KEY("ckpt_signal"))
			ok = (sig = hs_hint_ckpt_signal(v)) > 0 && (c->ckpt_signal = sig, 1);
		else if (KEY("ckpt_hold"))
			ok = !num(v, 0, 86400, &d) && d == floor(d) && (c->ckpt_hold = (unsigned)d, 1);
		else if (KEY("min_interval_us"))
			ok = !num(v, 0, 60000000, &d) && d == floor(d) && (c->min_interval_us = (unsigned)d, 1);
		else if (KEY("socket_dir"))
			ok = hs_hint_dir_ok(v) && strlen(v) < sizeof(c->socket_dir) &&
			     strcmp(v, "/") != 0 && (strcpy(c->socket_dir, v), 1);
		else if (KEY("ckpt_base"))
			ok = hs_hint_dir_ok(v) && strlen(v) < sizeof(c->ckpt_base) &&
			     (strcpy(c->ckpt_base, v), 1);
		else
			ok = 0;
#undef KEY
		if (!ok) {
			if (!bad && err && errlen)
				snprintf(err, errlen, "bad plugstack.conf argument '%.200s'", a);
			bad++;
		}
	}
	return bad;
}
