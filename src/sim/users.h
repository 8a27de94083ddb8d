/* SPDX-License-Identifier: GPL-2.0-or-later */
/* users.h — the simulator's users and accounts (issue 29): who submits
 * each job and the association tree the simulated Slurm gives the
 * engine. From the command line:
 *
 *   --users NAME[@ACCOUNT]:FRACTION[:SHARES],...   who submits, and each
 *       user's fraction of the generated jobs (spread evenly by arrival,
 *       not drawn: the same seed gives the same jobs whatever the users)
 *       and Shares inside its account (default 1)
 *   --accounts NAME:SHARES,...                     the accounts' Shares
 *       (default 1; an account a user names need not be listed)
 *   --strategy USER:NAME[=ARG]                     what a user plays
 *       (strategy.h; repeatable, one user each)
 *
 * A trace's optional columns 12 (user) and 13 (account) name them per
 * job instead; users and accounts met there that no option lists get
 * Shares 1. Without any of this every job is user "user" of account
 * "sim". Names: 1..63 characters of [A-Za-z0-9._-].
 */
#ifndef HS_SIM_USERS_H
#define HS_SIM_USERS_H

#include "core/model.h"
#include "sim/strategy.h"

#define HS_USER_NAME_MAX 64

typedef struct hs_sim_account {
	char name[HS_USER_NAME_MAX];
	double shares;
} hs_sim_account_t;

typedef struct hs_sim_user {
	char name[HS_USER_NAME_MAX];
	int account;               /* index into accounts */
	double fraction;           /* of the generated jobs, 0 = not drawn */
	double shares;             /* inside its account */
	hs_sim_strategy_t strategy; /* what it plays (strategy.h); honest
	                            * by default */
} hs_sim_user_t;

typedef struct hs_sim_users {
	int naccounts, nusers;
	hs_sim_account_t *accounts;
	hs_sim_user_t *users;
} hs_sim_users_t;

void hs_sim_users_init(hs_sim_users_t *u);
void hs_sim_users_free(hs_sim_users_t *u);
/* dst (uninitialized) becomes a copy of src; -1 on out of memory. */
int hs_sim_users_copy(hs_sim_users_t *dst, const hs_sim_users_t *src);
/* Parses --users and --accounts (either may be NULL); the fractions must
 * add up to 1 (within 1e-6) when any is given. */
int hs_sim_users_parse(hs_sim_users_t *u, const char *users, const char *accounts, hs_err_t *err);
/* Parses one --strategy USER:NAME[=ARG] (strategy.h): USER must be one
 * of u's users (by name); a second strategy for it replaces the first. */
int hs_sim_users_strategy(hs_sim_users_t *u, const char *spec, hs_err_t *err);
/* Is name a valid user or account name? */
int hs_sim_name_ok(const char *name);
/* The user (index) of generated job number n (0-based) when jobs[i] of
 * the first n went to user i: the one furthest behind its fraction
 * (largest fraction * (n + 1) - jobs[i]; ties: first listed); jobs[] is
 * counted up. -1 when no user has a fraction. */
int hs_sim_users_next(const hs_sim_users_t *u, long n, long *jobs);
/* The user named `user` in account `account` (NULL: "sim"), added with
 * Shares 1 (and its account) when new; -1 on out of memory. */
int hs_sim_users_find(hs_sim_users_t *u, const char *user, const char *account);

#endif /* HS_SIM_USERS_H */
