/* SPDX-License-Identifier: GPL-2.0-or-later */
/* emu_ckpt.h — the emulator's checkpoint file: one line
 * "hetsched-emulator 1 step=<N> sf=<sf> model=<model>\n" in
 * <dir>/hetsched-emulator.ckpt, written atomically (temporary file, fsync,
 * rename, fsync of the directory) so a kill at any moment leaves either
 * the old or the new checkpoint, never a torn one. */
#ifndef HS_EMU_CKPT_H
#define HS_EMU_CKPT_H

#include <stddef.h>
#include <stdint.h>

#define EMU_CKPT_FILE "hetsched-emulator.ckpt"

/* Creates dir (and missing parents, mode 0700) if needed, then saves the
 * checkpoint. Returns 0, or -1 with errno and a message in msg. */
int emu_ckpt_save(const char *dir, const char *model, int sf, uint64_t step,
		  char *msg, size_t msglen);

/* Loads the checkpoint of (model, sf). Returns 1 with *step set, 0 when
 * there is no checkpoint, -1 (message in msg) when it is unreadable,
 * malformed or belongs to another model. */
int emu_ckpt_load(const char *dir, const char *model, int sf, uint64_t *step,
		  char *msg, size_t msglen);

#endif
