# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz — libFuzzer targets for the parsers that see hostile input
# (report datagrams in slurmstepd, AdminComment records, `hetsched solve`'s
# problem files). tests/fuzz/run.sh [SECONDS] fuzzes them with clang and
# grows the corpus; `make check` builds each target with the ordinary
# compiler and a replay main() (replay_main.c) and replays its whole
# corpus through it (replay.sh), so the targets cannot rot.
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/corpus
check_PROGRAMS += tests/fuzz/replay_wire tests/fuzz/replay_record tests/fuzz/replay_problem
tests_fuzz_replay_wire_SOURCES = tests/fuzz/fuzz_wire.c tests/fuzz/replay_main.c
tests_fuzz_replay_wire_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_wire_LDADD = libhetsched_measure.la
tests_fuzz_replay_record_SOURCES = tests/fuzz/fuzz_record.c tests/fuzz/replay_main.c
tests_fuzz_replay_record_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_record_LDADD = libhetsched_measure.la
tests_fuzz_replay_problem_SOURCES = tests/fuzz/fuzz_problem.c tests/fuzz/replay_main.c
tests_fuzz_replay_problem_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_problem_LDADD = libhetsched_core.la $(GLPK_LIBS) $(JSONC_LIBS) -lm
TESTS += tests/fuzz/replay.sh
EXTRA_DIST += tests/fuzz/replay.sh
