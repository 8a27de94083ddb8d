/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_lastgood.h — the last good copy of hetsched.conf in
 * StateSaveLocation (hetsched.conf.last-good). The plugin saves the
 * effective configuration (Include'd files folded in, defaults written
 * out) after every successful load, and falls back to it when
 * hetsched.conf has become bad while slurmctld restarts itself for
 * `scontrol reconfigure` (Slurm 23.11+), so a typo does not stop the
 * controller; a cold start still refuses a bad file. Slurm-free.
 */
#ifndef HS_SCHED_CONF_LASTGOOD_H
#define HS_SCHED_CONF_LASTGOOD_H

#include <stddef.h>

#include "sched/sconf.h"

#define HS_CONF_LAST_GOOD "hetsched.conf.last-good"
/* Largest last good copy read back (bytes). */
#define HS_CONF_LAST_GOOD_MAX (1L << 20)

/* Writes c atomically (statefile.h) to dir/HS_CONF_LAST_GOOD, mode 0600,
 * with a comment naming `source` (the file it came from) and the writing
 * process (pid and start time). */
int hs_conf_last_good_save(const char *dir, const hs_sconf_t *c, const char *source,
			   hs_err_t *err);

/* Reads dir/HS_CONF_LAST_GOOD into *out (defaults, then its keys, then
 * hs_sconf_check); its path goes to path[len]. *same_process is set to 1
 * when this very process wrote it (it has run with this configuration:
 * slurmctld re-initialising its plugins after a failed reconfigure), else
 * 0. Returns 1 when loaded, 0 when there is none, -1 when it is unusable
 * (message in err; *out is then not allocated). Never follows a
 * symlink. */
int hs_conf_last_good_load(const char *dir, hs_sconf_t *out, int *same_process, char *path,
			   size_t len, hs_err_t *err);

#endif /* HS_SCHED_CONF_LASTGOOD_H */
