/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hints.h — validation of what users pass to spank_hetsched and of its
 * plugstack.conf arguments (doc/protocol.md (a) and "plugstack.conf
 * arguments"). Slurm-free: the same rules serve the plugin (sbatch,
 * slurmstepd) and the sched plugin, which must re-validate the
 * spank_job_env values it reads (a user can craft them). */
#ifndef HS_REPORT_HINTS_H
#define HS_REPORT_HINTS_H

#include <stddef.h>
#include <stdint.h>

#define HS_HINT_MODEL_MAX 127
#define HS_HINT_PATH_MAX 1023
#define HS_HINT_STEPS_MAX 1000000000000000ULL  /* 10^15 */

/* 1..127 bytes of printable ASCII without '"' or '\\'. */
int hs_hint_model_ok(const char *s);
/* Decimal 1..10^15 without sign or spaces. Returns 0 and sets *out. */
int hs_hint_steps_parse(const char *s, uint64_t *out);
/* An absolute path of 1..1023 printable ASCII bytes without '"' or '\\'. */
int hs_hint_dir_ok(const char *s);
/* Expands %j (job id), %u (user), %% in a checkpoint directory pattern;
 * other '%' sequences are kept. Returns 0, -1 if it does not fit. */
int hs_hint_dir_expand(const char *pattern, uint32_t job_id, const char *user,
		       char *out, size_t size);

/* Checkpoint signals allowed by the protocol (SIGURG, SIGUSR1, SIGUSR2,
 * SIGWINCH); by name ("URG", "SIGURG") or number. Returns the number or
 * -1. */
int hs_hint_ckpt_signal(const char *s);
/* Whether a signal number is one of the allowed checkpoint signals. */
int hs_hint_ckpt_signal_ok(int sig);

#define HS_SOCKET_DIR_MAX 40   /* = HS_JOBDIR_BASE_MAX: socket paths fit sun_path */
#define HS_SOCKET_DIR_DEFAULT "/run/hetsched"

/* plugstack.conf arguments of spank_hetsched. */
typedef struct hs_spank_conf {
	double publish_interval;     /* s, default 60 */
	double window;               /* s, default 5 */
	unsigned max_rate;           /* datagrams/s, default 1000 */
	double max_sps;              /* default 1e6 */
	int ckpt_signal;             /* default SIGURG */
	unsigned ckpt_hold;          /* s, default 120 */
	unsigned min_interval_us;    /* library coalescing, default 10000 */
	char ckpt_base[HS_HINT_PATH_MAX + 1]; /* "" = $HOME/.hetsched/ckpt */
	/* where the per-job directories with the report sockets live
	 * (report/jobdir.h), default HS_SOCKET_DIR_DEFAULT */
	char socket_dir[HS_SOCKET_DIR_MAX + 1];
} hs_spank_conf_t;

void hs_spank_conf_defaults(hs_spank_conf_t *c);
/* Parses "key=value" arguments; a bad one keeps its default and is
 * described (the first one) in err. Returns the number of bad arguments. */
int hs_spank_conf_parse(hs_spank_conf_t *c, int ac, char **av, char *err, size_t errlen);

#endif /* HS_REPORT_HINTS_H */
