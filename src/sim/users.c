/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.c — the simulator's users and accounts (users.h): the option
 * parsers, the even spread of generated jobs over users, and the lookup
 * that adds what a trace names. */
#include "sim/users.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hs_sim_users_init(hs_sim_users_t *u)
{
	memset(u, 0, sizeof(*u));
}

void hs_sim_users_free(hs_sim_users_t *u)
{
	free(u->accounts);
	free(u->users);
	memset(u, 0, sizeof(*u));
}

int hs_sim_users_copy(hs_sim_users_t *dst, const hs_sim_users_t *src)
{
	hs_sim_users_init(dst);
	dst->accounts = malloc(((size_t)src->naccounts + 1) * sizeof(*dst->accounts));
	dst->users = malloc(((size_t)src->nusers + 1) * sizeof(*dst->users));
	if (!dst->accounts || !dst->users) {
		hs_sim_users_free(dst);
		return -1;
	}
	memcpy(dst->accounts, src->accounts, (size_t)src->naccounts * sizeof(*dst->accounts));
	memcpy(dst->users, src->users, (size_t)src->nusers * sizeof(*dst->users));
	dst->naccounts = src->naccounts;
	dst->nusers = src->nusers;
	return 0;
}

int hs_sim_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= HS_USER_NAME_MAX)
		return 0;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       n;
}

static int account_index(hs_sim_users_t *u, const char *name, int add)
{
	for (int a = 0; a < u->naccounts; a++)
		if (!strcmp(u->accounts[a].name, name))
			return a;
	if (!add)
		return -1;
	hs_sim_account_t *n = realloc(u->accounts, ((size_t)u->naccounts + 1) * sizeof(*n));
	if (!n)
		return -1;
	u->accounts = n;
	hs_sim_account_t *a = &u->accounts[u->naccounts];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->shares = 1.0;
	return u->naccounts++;
}

static int add_user(hs_sim_users_t *u, const char *name, int account)
{
	hs_sim_user_t *n = realloc(u->users, ((size_t)u->nusers + 1) * sizeof(*n));
	if (!n)
		return -1;
	u->users = n;
	hs_sim_user_t *x = &u->users[u->nusers];
	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->account = account;
	x->shares = 1.0;
	return u->nusers++;
}

int hs_sim_users_strategy(hs_sim_users_t *u, const char *spec, hs_err_t *err)
{
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec || colon - spec >= HS_USER_NAME_MAX)
		return hs_err_set(err, "--strategy '%s': not USER:NAME[=ARG]", spec);
	size_t n = (size_t)(colon - spec);
	hs_sim_strategy_t s;
	if (hs_sim_strategy_parse(&s, colon + 1, err) < 0)
		return -1;
	int found = 0;
	/* every user of that name (one per account it submits in) */
	for (int i = 0; i < u->nusers; i++)
		if (strlen(u->users[i].name) == n && !strncmp(u->users[i].name, spec, n)) {
			u->users[i].strategy = s;
			found = 1;
		}
	if (!found)
		return hs_err_set(err, "--strategy '%s': no user '%.*s' in --users", spec, (int)n,
				  spec);
	return 0;
}

int hs_sim_users_find(hs_sim_users_t *u, const char *user, const char *account)
{
	int a = account_index(u, account ? account : "sim", 1);
	if (a < 0)
		return -1;
	for (int i = 0; i < u->nusers; i++)
		if (u->users[i].account == a && !strcmp(u->users[i].name, user))
			return i;
	return add_user(u, user, a);
}

/* A number field of a list item: > 0 and finite. */
static int positive(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_accounts(hs_sim_users_t *u, const char *spec, hs_err_t *err)
{
	char buf[4096];
	if (strlen(spec) >= sizeof(buf))
		return hs_err_set(err, "--accounts: longer than %zu bytes", sizeof(buf) - 1);
	strcpy(buf, spec);
	char *save = NULL;
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(it, ':');
		double shares;
		if (!colon)
			return hs_err_set(err, "--accounts: '%s' is not NAME:SHARES", it);
		*colon = 0;
		if (!hs_sim_name_ok(it) || positive(colon + 1, &shares) < 0)
			return hs_err_set(err, "--accounts: '%s:%s': a name of [A-Za-z0-9._-] and "
					  "Shares > 0", it, colon + 1);
		if (account_index(u, it, 0) >= 0)
			return hs_err_set(err, "--accounts: '%s' given twice", it);
		int a = account_index(u, it, 1);
		if (a < 0)
			return hs_err_set(err, "out of memory");
		u->accounts[a].shares = shares;
	}
	return 0;
}

/* NAME[@ACCOUNT]:FRACTION[:SHARES] */
static int parse_user(hs_sim_users_t *u, char *it, hs_err_t *err)
{
	char *f[3] = { it, NULL, NULL };
	for (int k = 1; k < 3; k++) {
		char *c = f[k - 1] ? strchr(f[k - 1], ':') : NULL;
		if (c) {
			*c = 0;
			f[k] = c + 1;
		}
	}
	char *at = strchr(f[0], '@');
	const char *acct = "sim";
	if (at) {
		*at = 0;
		acct = at + 1;
	}
	double frac, shares = 1.0;
	if (!f[1] || !hs_sim_name_ok(f[0]) || !hs_sim_name_ok(acct) || positive(f[1], &frac) < 0 ||
	    frac > 1 || (f[2] && positive(f[2], &shares) < 0))
		return hs_err_set(err, "--users: '%s' is not NAME[@ACCOUNT]:FRACTION[:SHARES] "
				  "(names of [A-Za-z0-9._-], 0 < fraction <= 1, Shares > 0)", it);
	int a = account_index(u, acct, 0) >= 0 ? account_index(u, acct, 0)
						: account_index(u, acct, 1);
	if (a < 0)
		return hs_err_set(err, "out of memory");
	for (int i = 0; i < u->nusers; i++)
		if (u->users[i].account == a && !strcmp(u->users[i].name, f[0]))
			return hs_err_set(err, "--users: '%s@%s' given twice", f[0], acct);
	int x = add_user(u, f[0], a);
	if (x < 0)
		return hs_err_set(err, "out of memory");
	u->users[x].fraction = frac;
	u->users[x].shares = shares;
	return 0;
}

int hs_sim_users_parse(hs_sim_users_t *u, const char *users, const char *accounts, hs_err_t *err)
{
	if (accounts && parse_accounts(u, accounts, err) < 0)
		return -1;
	if (!users)
		return 0;
	char buf[4096];
	if (strlen(users) >= sizeof(buf))
		return hs_err_set(err, "--users: longer than %zu bytes", sizeof(buf) - 1);
	strcpy(buf, users);
	char *save = NULL;
	double sum = 0;
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		if (parse_user(u, it, err) < 0)
			return -1;
		sum += u->users[u->nusers - 1].fraction;
	}
	if (fabs(sum - 1.0) > 1e-6)
		return hs_err_set(err, "--users: the fractions add up to %g, not 1", sum);
	return 0;
}

int hs_sim_users_next(const hs_sim_users_t *u, long n, long *jobs)
{
	int best = -1;
	double bd = 0;
	for (int i = 0; i < u->nusers; i++) {
		if (!(u->users[i].fraction > 0))
			continue;
		double d = u->users[i].fraction * (double)(n + 1) - (double)jobs[i];
		if (best < 0 || d > bd + 1e-12) {
			best = i;
			bd = d;
		}
	}
	if (best >= 0)
		jobs[best]++;
	return best;
}
