/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_include.h — checks the Include directives of hetsched.conf (and of
 * the files they include) before Slurm's parser reads it. Slurm 22.05's
 * s_p_parse_file() retries a file it cannot stat once a second for 60 s
 * (meant for slurm.conf on a shared file system coming up), and it
 * follows Include recursively without a depth limit: a missing included
 * file blocked the scheduling thread for a minute, an Include loop would
 * recurse until the stack overflows in slurmctld. This check finds both
 * first, resolving names as Slurm does (relative to the including file's
 * directory; "%c" names are left to Slurm, which refuses them at once
 * since hetsched.conf has no ClusterName). Slurm-free.
 */
#ifndef HS_SCHED_CONF_INCLUDE_H
#define HS_SCHED_CONF_INCLUDE_H

#include "core/model.h"

/* Deepest Include nesting accepted (the top file is depth 0). */
#define HS_INCLUDE_MAX_DEPTH 8

/* 0 when path is readable and every file it includes (recursively)
 * exists as a regular file; else -1 with a message naming the file and
 * line of the Include. */
int hs_conf_check_includes(const char *path, hs_err_t *err);

#endif /* HS_SCHED_CONF_INCLUDE_H */
