# SPDX-License-Identifier: GPL-2.0-or-later
# src/cli — the `hetsched` command: one file per subcommand, dispatched by
# src/cli/main.c.
bin_PROGRAMS += hetsched
hetsched_SOURCES = \
	src/cli/main.c src/cli/commands.h \
	src/cli/cmd_solve.c \
	src/cli/cmd_simulate.c
hetsched_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
hetsched_LDADD = libhetsched_sim.la libhetsched_sched.la libhetsched_measure.la \
	libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
# `hetsched status` reads the sched plugin's status document (src/sched).
hetsched_SOURCES += src/cli/cmd_status.c src/cli/cmd_job.c
# `hetsched learned` exports the learned throughputs (src/sched/learn.h).
hetsched_SOURCES += src/cli/cmd_learned.c src/cli/cmd_learned_sacct.c
# `hetsched timeline` runs the SVG drawer installed beside the Gavel data.
hetsched_SOURCES += src/cli/cmd_timeline.c
hstimelinedir = $(pkgdatadir)
dist_hstimeline_DATA = python/hetsched_timeline.py
