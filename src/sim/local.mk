# SPDX-License-Identifier: GPL-2.0-or-later
# src/sim — the trace-driven simulator (trace reader, workload generator,
# the simulated Slurm, the clock around the plugin's engine, the fluid
# reference, reports). Slurm-free; linked into `hetsched simulate` and the
# tests. Between the two ends it runs the plugin's engine (src/sched),
# so its users also link libhetsched_sched.la and libhetsched_measure.la.
noinst_LTLIBRARIES += libhetsched_sim.la
libhetsched_sim_la_SOURCES = \
	src/sim/trace.c src/sim/trace.h \
	src/sim/workload.c src/sim/workload.h \
	src/sim/users.c src/sim/users.h src/sim/entitle.c src/sim/entitle.h \
	src/sim/strategy.c src/sim/strategy.h \
	src/sim/sim.c src/sim/sim.h src/sim/sim_impl.h src/sim/sim_ideal.c \
	src/sim/sim_common.c \
	src/sim/world.c src/sim/world.h src/sim/world_impl.h \
	src/sim/world_run.c src/sim/world_exec.c \
	src/sim/report.c src/sim/report.h src/sim/report_users.c
libhetsched_sim_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
