# SPDX-License-Identifier: GPL-2.0-or-later
# tests/unit — cmocka unit tests of the core (no Slurm); TAP output.
if HAVE_CMOCKA
UNIT_LDADD = libhetsched_core.la $(CMOCKA_LIBS) $(GLPK_LIBS) $(JSONC_LIBS) -lm
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)

check_PROGRAMS += tests/unit/test_model
tests_unit_test_model_SOURCES = tests/unit/test_model.c
tests_unit_test_model_LDADD = $(UNIT_LDADD)
tests_unit_test_model_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_model

check_PROGRAMS += tests/unit/test_thrtable
tests_unit_test_thrtable_SOURCES = tests/unit/test_thrtable.c tests/unit/testdata.h
tests_unit_test_thrtable_LDADD = $(UNIT_LDADD)
tests_unit_test_thrtable_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_thrtable
endif

# policy engine
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_lp
tests_unit_test_lp_SOURCES = tests/unit/test_lp.c
tests_unit_test_lp_LDADD = $(UNIT_LDADD)
tests_unit_test_lp_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_lp

# lp.c again, with HS_LP_FAULT_INJECTION: provokes GLPK internal errors
check_PROGRAMS += tests/unit/test_lp_guard
tests_unit_test_lp_guard_SOURCES = tests/unit/test_lp_guard.c src/core/lp.c src/core/model.c
tests_unit_test_lp_guard_LDADD = $(CMOCKA_LIBS) $(GLPK_LIBS) $(JSONC_LIBS) -lm
tests_unit_test_lp_guard_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_lp_guard_CPPFLAGS = $(AM_CPPFLAGS) -DHS_LP_FAULT_INJECTION
TESTS += tests/unit/test_lp_guard

check_PROGRAMS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/policy_fixtures.h
tests_unit_test_policy_LDADD = $(UNIT_LDADD)
tests_unit_test_policy_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_policy

check_PROGRAMS += tests/unit/test_policy_props
tests_unit_test_policy_props_SOURCES = tests/unit/test_policy_props.c tests/unit/policy_fixtures.h \
	tests/unit/testdata.h
tests_unit_test_policy_props_LDADD = $(UNIT_LDADD)
tests_unit_test_policy_props_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_policy_props

check_PROGRAMS += tests/unit/test_policy_tree
tests_unit_test_policy_tree_SOURCES = tests/unit/test_policy_tree.c tests/unit/policy_fixtures.h
tests_unit_test_policy_tree_LDADD = $(UNIT_LDADD)
tests_unit_test_policy_tree_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_policy_tree

check_PROGRAMS += tests/unit/test_problem_json
tests_unit_test_problem_json_SOURCES = tests/unit/test_problem_json.c tests/unit/testdata.h
tests_unit_test_problem_json_LDADD = $(UNIT_LDADD)
tests_unit_test_problem_json_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_problem_json
endif

TESTS += tests/unit/test_solve_cli.sh
EXTRA_DIST += tests/unit/test_solve_cli.sh

# round mechanism and simulator
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_mechanism
tests_unit_test_mechanism_SOURCES = tests/unit/test_mechanism.c
tests_unit_test_mechanism_LDADD = $(UNIT_LDADD)
tests_unit_test_mechanism_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_mechanism
check_PROGRAMS += tests/unit/test_start_est
tests_unit_test_start_est_SOURCES = tests/unit/test_start_est.c
tests_unit_test_start_est_LDADD = $(UNIT_LDADD)
tests_unit_test_start_est_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_start_est

# the simulator's fast paths (placement index, heap GPU pool) against the
# simple ones, on random inputs
check_PROGRAMS += tests/unit/test_scale_equiv
tests_unit_test_scale_equiv_SOURCES = tests/unit/test_scale_equiv.c
tests_unit_test_scale_equiv_LDADD = $(UNIT_LDADD)
tests_unit_test_scale_equiv_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_scale_equiv
endif

# src/report: wire format, estimator, record, GRES type, /proc
# checks, listener + client library; the Python module and the command.
if HAVE_CMOCKA
REPORT_UNIT_LDADD = libhetsched_measure.la $(CMOCKA_LIBS) $(JSONC_LIBS) -lpthread -lm
REPORT_UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS)
REPORT_UNIT_TESTS = tests/unit/test_wire tests/unit/test_estimator \
	tests/unit/test_record tests/unit/test_gres tests/unit/test_proc \
	tests/unit/test_listener tests/unit/test_hints tests/unit/test_jobdir
check_PROGRAMS += $(REPORT_UNIT_TESTS)
TESTS += $(REPORT_UNIT_TESTS)
tests_unit_test_wire_SOURCES = tests/unit/test_wire.c
tests_unit_test_wire_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_wire_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_estimator_SOURCES = tests/unit/test_estimator.c
tests_unit_test_estimator_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_estimator_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_record_SOURCES = tests/unit/test_record.c
tests_unit_test_record_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_record_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_gres_SOURCES = tests/unit/test_gres.c
tests_unit_test_gres_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_gres_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_proc_SOURCES = tests/unit/test_proc.c
tests_unit_test_proc_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_proc_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_jobdir_SOURCES = tests/unit/test_jobdir.c
tests_unit_test_jobdir_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_jobdir_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_hints_SOURCES = tests/unit/test_hints.c
tests_unit_test_hints_LDADD = $(REPORT_UNIT_LDADD)
tests_unit_test_hints_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_listener_SOURCES = tests/unit/test_listener.c
tests_unit_test_listener_LDADD = libhetsched-report.la $(REPORT_UNIT_LDADD)
tests_unit_test_listener_CFLAGS = $(REPORT_UNIT_CFLAGS)
tests_unit_test_listener_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
endif
# a reporting job for test_listener (exec'd, so valgrind checks only the test)
check_PROGRAMS += tests/unit/report_helper
tests_unit_report_helper_SOURCES = tests/unit/report_helper.c
tests_unit_report_helper_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
tests_unit_report_helper_LDADD = libhetsched-report.la
TESTS += tests/unit/test_report_py.sh tests/unit/test_emulator.sh tests/unit/test_trace_player.sh
# contrib/demo/report.py: the demo's summary, --baseline ratios and targets
TESTS += tests/unit/test_demo_report.sh
EXTRA_DIST += tests/unit/test_demo_report.sh tests/unit/test_demo_report.py
# bench/live_learn_report.py: the live comparison's medians over commands
TESTS += tests/unit/test_live_learn_report.sh
EXTRA_DIST += tests/unit/test_live_learn_report.sh tests/unit/test_live_learn_report.py
# python/ as a package: pip install into a venv, offline
TESTS += tests/unit/test_report_pkg.sh
EXTRA_DIST += tests/unit/test_report_pkg.sh
EXTRA_DIST += tests/unit/test_trace_player.sh
check_PROGRAMS += hetsched-trace-play
EXTRA_DIST += tests/unit/test_report_py.sh tests/unit/test_report_py.py \
	tests/unit/test_emulator.sh tests/unit/test_emulator.py
check_PROGRAMS += hetsched-emulator
check_PROGRAMS += hetsched-report

# sched/hetsched engine, configuration, hints, estimates, state files
if HAVE_CMOCKA
SCHED_UNIT_LDADD = libhetsched_sched.la libhetsched_measure.la libhetsched_core.la \
	$(CMOCKA_LIBS) $(GLPK_LIBS) $(JSONC_LIBS) -lm
check_PROGRAMS += tests/unit/test_sched_engine
tests_unit_test_sched_engine_SOURCES = tests/unit/test_sched_engine.c tests/unit/sched_fixtures.h
tests_unit_test_sched_engine_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_sched_engine_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_sched_engine
endif
if HAVE_CMOCKA
# the learned throughput table (src/sched/learn.h)
check_PROGRAMS += tests/unit/test_learn
tests_unit_test_learn_SOURCES = tests/unit/test_learn.c
tests_unit_test_learn_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_learn_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_learn
# the learned table from sacct's history (src/sched/learn_sacct.h)
check_PROGRAMS += tests/unit/test_learn_sacct
tests_unit_test_learn_sacct_SOURCES = tests/unit/test_learn_sacct.c
tests_unit_test_learn_sacct_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_learn_sacct_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_learn_sacct
EXTRA_DIST += tests/unit/data/sacct_learn.txt
check_PROGRAMS += tests/unit/test_sched_learn
tests_unit_test_sched_learn_SOURCES = tests/unit/test_sched_learn.c tests/unit/sched_fixtures.h
tests_unit_test_sched_learn_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_sched_learn_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_sched_learn
check_PROGRAMS += tests/unit/test_array_slots
tests_unit_test_array_slots_SOURCES = tests/unit/test_array_slots.c
tests_unit_test_array_slots_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_array_slots_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_array_slots

check_PROGRAMS += tests/unit/test_bound
tests_unit_test_bound_SOURCES = tests/unit/test_bound.c tests/unit/sched_fixtures.h
tests_unit_test_bound_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_bound_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_bound
check_PROGRAMS += tests/unit/test_sched_parts
tests_unit_test_sched_parts_SOURCES = tests/unit/test_sched_parts.c
tests_unit_test_sched_parts_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_sched_parts_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_sched_parts
# state files against FIFOs and symlinks planted in writable directories
check_PROGRAMS += tests/unit/test_statefile
tests_unit_test_statefile_SOURCES = tests/unit/test_statefile.c
tests_unit_test_statefile_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_statefile_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_statefile
endif
TESTS += tests/unit/test_status_cli.sh
EXTRA_DIST += tests/unit/test_status_cli.sh
TESTS += tests/unit/test_learned_sacct_cli.sh
EXTRA_DIST += tests/unit/test_learned_sacct_cli.sh
# OpenMetrics exposition of the status document
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_metrics
tests_unit_test_metrics_SOURCES = tests/unit/test_metrics.c
tests_unit_test_metrics_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_metrics_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_metrics
check_PROGRAMS += tests/unit/test_job_view
tests_unit_test_job_view_SOURCES = tests/unit/test_job_view.c
tests_unit_test_job_view_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_job_view_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_job_view
endif
# ... parsed strictly by python3-prometheus-client's OpenMetrics parser
TESTS += tests/unit/test_metrics_parse.sh
EXTRA_DIST += tests/unit/test_metrics_parse.sh

# policy problems captured from simulations that once failed
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_regressions
tests_unit_test_regressions_SOURCES = tests/unit/test_regressions.c tests/unit/testdata.h
tests_unit_test_regressions_LDADD = $(UNIT_LDADD)
tests_unit_test_regressions_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_regressions
endif
EXTRA_DIST += tests/unit/data/ftf_efail.json tests/unit/data/wf_infeasible.json
# the soak test's checkers (tests/soak/soak_procs.py) can fail
TESTS += tests/unit/test_soak_checks.sh
EXTRA_DIST += tests/unit/test_soak_checks.sh

# jobs that cannot be preempted
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_pinned
tests_unit_test_pinned_SOURCES = tests/unit/test_pinned.c
tests_unit_test_pinned_LDADD = $(UNIT_LDADD)
tests_unit_test_pinned_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_pinned
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_sched_exec
tests_unit_test_sched_exec_SOURCES = tests/unit/test_sched_exec.c tests/unit/sched_fixtures.h
tests_unit_test_sched_exec_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_sched_exec_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_sched_exec
check_PROGRAMS += tests/unit/test_sched_pinned
tests_unit_test_sched_pinned_SOURCES = tests/unit/test_sched_pinned.c tests/unit/sched_fixtures.h
tests_unit_test_sched_pinned_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_sched_pinned_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_sched_pinned
endif

check_PROGRAMS += tests/unit/test_idindex
tests_unit_test_idindex_SOURCES = tests/unit/test_idindex.c
tests_unit_test_idindex_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_idindex_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_idindex

check_PROGRAMS += tests/unit/test_lmemo
tests_unit_test_lmemo_SOURCES = tests/unit/test_lmemo.c
tests_unit_test_lmemo_LDADD = $(SCHED_UNIT_LDADD)
tests_unit_test_lmemo_CFLAGS = $(UNIT_CFLAGS)
TESTS += tests/unit/test_lmemo
