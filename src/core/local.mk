# SPDX-License-Identifier: GPL-2.0-or-later
# src/core — the Slurm-free core library (model, throughput, policies,
# mechanism, state). Built PIC so the Slurm plugins can link it in.
noinst_LTLIBRARIES += libhetsched_core.la
libhetsched_core_la_SOURCES = \
	src/core/model.c src/core/model.h \
	src/core/thrtable.c src/core/thrtable.h \
	src/core/json_lazy.c src/core/json_lazy.h \
	src/core/lp.c src/core/lp.h \
	src/core/alloc_lp.c src/core/alloc_lp.h \
	src/core/problem_json.c src/core/problem_json.h \
	src/core/policy.c src/core/policy.h src/core/policy_impl.h \
	src/core/policy_common.c src/core/rng.h \
	src/core/policy_shares.c \
	src/core/policy_classlp.c \
	src/core/policy_isolated.c \
	src/core/policy_maxmin.c \
	src/core/policy_makespan.c \
	src/core/policy_ftf.c \
	src/core/policy_throughput.c \
	src/core/policy_hierarchical.c src/core/policy_wf.h src/core/policy_wf_common.c \
	src/core/policy_wf_full.c src/core/policy_wf_chain.c src/core/policy_wf_closed.c \
	src/core/fairtree.c src/core/fairtree.h \
	src/core/policy_fifo.c \
	src/core/policy_gandiva.c \
	src/core/policy_allox.c \
	src/core/policy_typemem.c \
	src/core/policy_packed.c
libhetsched_core_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
libhetsched_core_la_LIBADD = $(GLPK_LIBS) $(JSONC_LIBS) -lm
# The round mechanism (priorities, selection, placement, saved state).
libhetsched_core_la_SOURCES += \
	src/core/mechanism.c src/core/mechanism.h src/core/mechanism_impl.h \
	src/core/mech_state.c src/core/mech_query.c \
	src/core/start_est.c src/core/start_est.h \
	src/core/placement.c src/core/placement.h \
	src/core/pinned.c src/core/pinned.h
