/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select_forward.h — the half of select/hetsched_cons_tres that follows
 * Slurm's select API from version to version (select_forward.c): the
 * select_p_* entry points, each forwarding to select/cons_tres through the
 * packing hooks of pack.h. */
#ifndef HS_SELECT_FORWARD_H
#define HS_SELECT_FORWARD_H

/* The wrapper's identity (select_hetsched_cons_tres.c), for log lines. */
extern const char plugin_type[];

/* Drops the inner cons_tres context (the wrapper's fini()). */
int hs_select_forward_fini(void);

#endif
