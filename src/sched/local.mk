# SPDX-License-Identifier: GPL-2.0-or-later
# src/sched — the Slurm-free part of the sched/hetsched plugin: hetsched.conf
# values, submit hints, throughput estimates, the round engine (snapshot ->
# problem -> mechanism -> plan, in-flight checkpoint/requeue operations,
# accounting, saved state, status document) and atomic state files. Built
# PIC: the plugin links it; so do the unit tests and `hetsched status`.
noinst_LTLIBRARIES += libhetsched_sched.la
libhetsched_sched_la_SOURCES = \
	src/sched/sconf.c src/sched/sconf.h src/sched/sconf_impl.h \
	src/sched/sconf_keys.c src/sched/sconf_values.c src/sched/sconf_text.c \
	src/sched/conf_include.c src/sched/conf_include.h \
	src/sched/conf_lastgood.c src/sched/conf_lastgood.h \
	src/sched/hints.c src/sched/hints.h \
	src/sched/snapshot.c src/sched/snapshot.h \
	src/sched/array_slots.c src/sched/array_slots.h \
	src/sched/estimate.c src/sched/estimate.h \
	src/sched/bound.c src/sched/bound.h \
	src/sched/learn.c src/sched/learn_json.c src/sched/learn.h \
	src/sched/learn_near.c src/sched/learn_near.h \
	src/sched/learn_sacct.c src/sched/learn_sacct.h \
	src/sched/engine.c src/sched/engine.h src/sched/engine_impl.h \
	src/sched/engine_log.c \
	src/sched/engine_problem.c src/sched/engine_scratch.h \
	src/sched/engine_classify.c \
	src/sched/engine_nodes.c \
	src/sched/engine_pinned.c src/sched/engine_unmovable.c src/sched/engine_preempt.c src/sched/engine_entities.c \
	src/sched/engine_plan.c src/sched/engine_plan_share.c \
	src/sched/engine_acct.c src/sched/engine_reccache.c src/sched/engine_resolve.c src/sched/engine_jobmemo.c \
	src/sched/idindex.c src/sched/idindex.h \
	src/sched/engine_learn.c src/sched/engine_lmemo.c src/sched/engine_bound.c \
	src/sched/engine_packmeas.c \
	src/sched/engine_warn.c \
	src/sched/solve_leaving_out.c src/sched/solve_leaving_out.h \
	src/sched/engine_ops.c src/sched/engine_optable.c \
	src/sched/exec.h src/sched/engine_exec_impl.h src/sched/engine_exec.c \
	src/sched/engine_exec_batch.c \
	src/sched/engine_exec_fill.c src/sched/engine_exec_ops.c \
	src/sched/target.c src/sched/target.h \
	src/sched/engine_recover.c \
	src/sched/engine_state.c \
	src/sched/engine_status.c \
	src/sched/engine_entstatus.c \
	src/sched/engine_start.c src/sched/engine_order.c \
	src/sched/metrics.c src/sched/metrics.h \
	src/sched/status_private.c src/sched/status_private.h \
	src/sched/job_view.c src/sched/job_view.h \
	src/sched/statefile.c src/sched/statefile.h
libhetsched_sched_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
# consumers also link libhetsched_measure.la and libhetsched_core.la
libhetsched_sched_la_LIBADD = $(GLPK_LIBS) $(JSONC_LIBS) -lm
