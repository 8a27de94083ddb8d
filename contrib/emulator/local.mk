# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/emulator — hetsched-emulator, an emulated training job (Gavel
# throughput table, time-scaled, reports through libhetsched-report,
# checkpoints on request). Used by the demo, integration tests and benches.
bin_PROGRAMS += hetsched-emulator
hetsched_emulator_SOURCES = contrib/emulator/emulator.c \
	contrib/emulator/emu_ckpt.c contrib/emulator/emu_ckpt.h \
	contrib/emulator/emu_share.c contrib/emulator/emu_share.h
hetsched_emulator_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
hetsched_emulator_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
hetsched_emulator_LDADD = libhetsched_core.la libhetsched-report.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
