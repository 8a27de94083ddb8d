# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/trace-player — hetsched-trace-play: replays a Gavel trace on a
# Slurm cluster with hetsched-emulator jobs and collects JCTs from sacct.
bin_PROGRAMS += hetsched-trace-play
hetsched_trace_play_SOURCES = contrib/trace-player/trace_player.c \
	contrib/trace-player/tp_run.c contrib/trace-player/tp_run.h
hetsched_trace_play_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
hetsched_trace_play_LDADD = libhetsched_sim.la libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
