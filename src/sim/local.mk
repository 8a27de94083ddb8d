# SPDX-License-Identifier: GPL-2.0-or-later
# src/sim — the trace-driven simulator (trace reader, workload generator,
# event loop, reports). Slurm-free; linked into `hetsched simulate` and the
# tests. Uses the core library for everything between the two ends.
noinst_LTLIBRARIES += libhetsched_sim.la
libhetsched_sim_la_SOURCES = \
	src/sim/trace.c src/sim/trace.h \
	src/sim/workload.c src/sim/workload.h \
	src/sim/sim.c src/sim/sim.h \
	src/sim/sim_start.c src/sim/sim_start.h \
	src/sim/report.c src/sim/report.h
libhetsched_sim_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
