/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emu_share.h — how an emulated job learns which job shares its GPU (to run
 * at the table's pair throughput): every emulator holding a shard of a GPU
 * keeps a small file "<sf>\t<model>" in <share dir>/<cluster>.<conf>.<node>.<gpus>/<id> and
 * refreshes it every second; another fresh file there is the partner.
 * This is the emulator's own convention (real jobs just run slower);
 * all files are the user's own, opened with O_NOFOLLOW. */
#ifndef HS_EMU_SHARE_H
#define HS_EMU_SHARE_H

#include <stddef.h>

#define EMU_SHARE_FRESH_S 3   /* files older than this are ignored */

typedef struct emu_share {
	char dir[2048];           /* <share dir>/<node>.<gpus> */
	char mine[2300];          /* my file */
} emu_share_t;

/* Prepares (and creates) the directory; key is "<node>.<gpus>", sanitised.
 * Returns 0 or -1 with a message. */
int emu_share_open(emu_share_t *s, const char *base, const char *key,
		   const char *id, char *msg, size_t len);
/* Writes my file (model, sf); call about once per second. */
int emu_share_touch(const emu_share_t *s, const char *model, int sf);
/* Finds a fresh partner file other than mine; fills model (size >= 256)
 * and *sf. Returns 1 when found, 0 when alone. */
int emu_share_partner(const emu_share_t *s, char *model, size_t size, int *sf);
/* Removes my file. */
void emu_share_close(const emu_share_t *s);

#endif
