# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz — libFuzzer targets for the parsers that see hostile input:
#   wire      report datagrams, parsed in slurmstepd (root)
#   record    AdminComment records (slurmctld, slurmstepd)
#   problem   `hetsched solve`'s problem files
#   hints     HS_* submit hints from spank_job_env (slurmctld)
#   gres      the GPU type in a job's GRES allocation string (slurmstepd)
#   proc      /proc/<pid>/stat text, whose process name the sender sets
#   listener  the control messages (credentials, send time, passed
#             descriptors) the listener decodes with each datagram
#   estimator sequences of step reports through the steps/s estimator
#   sacct     sacct history for `hetsched learned --from-sacct`, whose job
#             names are the users'
# tests/fuzz/run.sh [SECONDS] [TARGET...] fuzzes them with clang and grows
# the corpus in tests/fuzz/corpus/<target>; `make check` builds each target
# with the ordinary compiler and a replay main() (replay_main.c) and replays
# its whole corpus through it (replay.sh), so the targets cannot rot.
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/corpus
FUZZ_REPLAY = tests/fuzz/replay_wire tests/fuzz/replay_record tests/fuzz/replay_problem \
	tests/fuzz/replay_hints tests/fuzz/replay_gres tests/fuzz/replay_proc \
	tests/fuzz/replay_listener tests/fuzz/replay_estimator tests/fuzz/replay_sacct
check_PROGRAMS += $(FUZZ_REPLAY)
tests_fuzz_replay_wire_SOURCES = tests/fuzz/fuzz_wire.c tests/fuzz/replay_main.c
tests_fuzz_replay_wire_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_wire_LDADD = libhetsched_measure.la
tests_fuzz_replay_record_SOURCES = tests/fuzz/fuzz_record.c tests/fuzz/replay_main.c
tests_fuzz_replay_record_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_record_LDADD = libhetsched_measure.la
tests_fuzz_replay_problem_SOURCES = tests/fuzz/fuzz_problem.c tests/fuzz/replay_main.c
tests_fuzz_replay_problem_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_problem_LDADD = libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
tests_fuzz_replay_hints_SOURCES = tests/fuzz/fuzz_hints.c tests/fuzz/replay_main.c
tests_fuzz_replay_hints_LDADD = libhetsched_sched.la libhetsched_measure.la -lm
tests_fuzz_replay_gres_SOURCES = tests/fuzz/fuzz_gres.c tests/fuzz/replay_main.c
tests_fuzz_replay_gres_LDADD = libhetsched_measure.la
tests_fuzz_replay_proc_SOURCES = tests/fuzz/fuzz_proc.c tests/fuzz/replay_main.c
tests_fuzz_replay_proc_LDADD = libhetsched_measure.la
tests_fuzz_replay_listener_SOURCES = tests/fuzz/fuzz_listener.c tests/fuzz/replay_main.c
tests_fuzz_replay_listener_LDADD = libhetsched_measure.la $(JSONC_LIBS) -lpthread -lm
tests_fuzz_replay_estimator_SOURCES = tests/fuzz/fuzz_estimator.c tests/fuzz/replay_main.c
tests_fuzz_replay_estimator_LDADD = libhetsched_measure.la -lm
tests_fuzz_replay_sacct_SOURCES = tests/fuzz/fuzz_sacct.c tests/fuzz/replay_main.c
tests_fuzz_replay_sacct_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_sacct_LDADD = libhetsched_sched.la libhetsched_measure.la libhetsched_core.la \
	$(GLPK_LIBS) $(JSONC_LIBS) -lm
TESTS += tests/fuzz/replay.sh
EXTRA_DIST += tests/fuzz/replay.sh
