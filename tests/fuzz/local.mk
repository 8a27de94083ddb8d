# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz — libFuzzer targets for the parsers that see hostile input
# (report datagrams in slurmstepd, AdminComment records). Not built by
# make: run tests/fuzz/run.sh [SECONDS]. The corpus is replayed by the unit
# tests test_wire and test_record.
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/fuzz_wire.c tests/fuzz/fuzz_record.c \
	tests/fuzz/corpus \
	tests/fuzz/fuzz_problem.c
