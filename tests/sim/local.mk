# SPDX-License-Identifier: GPL-2.0-or-later
# tests/sim — the simulator: trace reader, generator, hand-checked
# end-to-end runs (cmocka, TAP), and the `hetsched simulate` command.
if HAVE_CMOCKA
SIM_TEST_LDADD = libhetsched_sim.la libhetsched_sched.la libhetsched_measure.la libhetsched_core.la $(CMOCKA_LIBS) $(GLPK_LIBS) $(JSONC_LIBS) -lm
SIM_TEST_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)

check_PROGRAMS += tests/sim/test_trace
tests_sim_test_trace_SOURCES = tests/sim/test_trace.c
tests_sim_test_trace_LDADD = $(SIM_TEST_LDADD)
tests_sim_test_trace_CFLAGS = $(SIM_TEST_CFLAGS)
TESTS += tests/sim/test_trace
check_PROGRAMS += tests/sim/test_users
tests_sim_test_users_SOURCES = tests/sim/test_users.c
tests_sim_test_users_LDADD = $(SIM_TEST_LDADD)
tests_sim_test_users_CFLAGS = $(SIM_TEST_CFLAGS)
TESTS += tests/sim/test_users
check_PROGRAMS += tests/sim/test_strategy
tests_sim_test_strategy_SOURCES = tests/sim/test_strategy.c
tests_sim_test_strategy_LDADD = $(SIM_TEST_LDADD)
tests_sim_test_strategy_CFLAGS = $(SIM_TEST_CFLAGS)
TESTS += tests/sim/test_strategy

check_PROGRAMS += tests/sim/test_sim
tests_sim_test_sim_SOURCES = tests/sim/test_sim.c
tests_sim_test_sim_LDADD = $(SIM_TEST_LDADD)
tests_sim_test_sim_CFLAGS = $(SIM_TEST_CFLAGS)
TESTS += tests/sim/test_sim
endif

TESTS += tests/sim/test_simulate_cli.sh
EXTRA_DIST += tests/sim/test_simulate_cli.sh
# `hetsched simulate --timeline` drawn by `hetsched timeline`
TESTS += tests/sim/test_timeline_cli.sh
EXTRA_DIST += tests/sim/test_timeline_cli.sh
