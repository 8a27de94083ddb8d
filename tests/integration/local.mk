# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration — shell TAP tests on real local Slurm clusters
# (contrib/cluster/hs-cluster). They skip unless HETSCHED_INTEGRATION=1
# (contrib/test.sh sets it) and bring up and tear down their own clusters.
# `make -jN check` runs up to N of them side by side (at most HS_IT_JOBS,
# default 4: lib.sh's it_lock); the exclusive class (it_exclusive in
# lib.sh: checks that depend on timing) runs alone. A new test only needs
# adding to one of the lists below.
#
# The order is the order make starts them in (doc/ci-time.md has the
# times): the longest first, so that the run does not end with one long
# test alone; the exclusive class last, because an exclusive test waits
# for the tests beside it to end, holding one of make's job slots, and
# once started it lets nothing else start. What each test proves is in its
# first comment.
if BUILD_PLUGINS
INTEGRATION_TESTS = \
	tests/integration/sched_faults.sh \
	tests/integration/sched_suspend.sh \
	tests/integration/pack_end.sh \
	tests/integration/sched_refused_restart.sh \
	tests/integration/sched_learn_restart.sh \
	tests/integration/sched_slurm_resources.sh \
	tests/integration/sched_unmanaged.sh \
	tests/integration/cluster.sh \
	tests/integration/sched_rounds.sh \
	tests/integration/spank_trace.sh \
	tests/integration/sched_weights.sh \
	tests/integration/spank_report.sh \
	tests/integration/sched_pinned_mix.sh \
	tests/integration/sched_array_nodefail.sh \
	tests/integration/sched_slurm_limits.sh \
	tests/integration/pack_restart.sh \
	tests/integration/spank_hostile.sh \
	tests/integration/sched_pack.sh \
	tests/integration/pack_pair.sh \
	tests/integration/sched_reconf.sh \
	tests/integration/sched_churn.sh \
	tests/integration/sched_arrays.sh \
	tests/integration/sched_refused.sh \
	tests/integration/gpu_jobs.sh \
	tests/integration/sched_conf.sh \
	tests/integration/timeline.sh \
	tests/integration/sched_jobview.sh \
	tests/integration/sched_hetjob.sh \
	tests/integration/admin_snippets.sh \
	tests/integration/sched_wnodes.sh \
	tests/integration/sched_invalid_assoc.sh \
	tests/integration/sched_fair_users.sh \
	tests/integration/sched_array_users.sh \
	tests/integration/spank_steps.sh \
	tests/integration/plugins.sh \
	tests/integration/sched_shapes.sh
# The exclusive class (lib.sh's it_exclusive), longest first.
# soak_short.sh is the soak test's short version (tests/soak/soak.sh
# --duration 70, ~4 min): in CI since it passed 5 runs in a row on a quiet
# machine after its last open failure (finding 5 of doc/robustness.md, the
# test's own node death) was fixed. pack_e2e.sh: packing pays on the
# cluster as the simulator predicts (bench/pack/pack_e2e.sh --quick).
# pytorch_job.sh: a real PyTorch job (doc/examples/pytorch_train.py).
INTEGRATION_TESTS += \
	tests/integration/sched_policy.sh \
	tests/integration/pack_e2e.sh \
	tests/integration/soak_short.sh \
	tests/integration/spank_ckpt.sh \
	tests/integration/pytorch_job.sh \
	tests/integration/sched_lease.sh
# Each test once in TESTS: a test listed twice counted its points twice
# in test-suite.log (contrib/test.sh's count() checks).
TESTS += $(INTEGRATION_TESTS)
endif
EXTRA_DIST += tests/integration/lib.sh tests/integration/sched_lib.sh \
	tests/integration/spank_lib.sh tests/integration/pack_lib.sh \
	tests/integration/hs_admincomment.py tests/integration/hostile_job.py \
	tests/integration/cluster.sh tests/integration/plugins.sh \
	tests/integration/gpu_jobs.sh tests/integration/admin_snippets.sh \
	tests/integration/sched_rounds.sh tests/integration/sched_policy.sh \
	tests/integration/sched_faults.sh tests/integration/sched_pack.sh \
	tests/integration/sched_suspend.sh tests/integration/sched_churn.sh \
	tests/integration/sched_weights.sh tests/integration/sched_conf.sh \
	tests/integration/sched_reconf.sh tests/integration/sched_slurm_limits.sh \
	tests/integration/sched_arrays.sh tests/integration/sched_refused.sh \
	tests/integration/sched_hetjob.sh tests/integration/sched_wnodes.sh \
	tests/integration/sched_shapes.sh tests/integration/sched_unmanaged.sh \
	tests/integration/sched_slurm_resources.sh \
	tests/integration/sched_refused_restart.sh tests/integration/sched_jobview.sh \
	tests/integration/sched_pinned_mix.sh tests/integration/sched_lease.sh \
	tests/integration/sched_array_nodefail.sh tests/integration/spank_report.sh \
	tests/integration/spank_ckpt.sh tests/integration/spank_hostile.sh \
	tests/integration/spank_trace.sh tests/integration/pack_pair.sh \
	tests/integration/pack_end.sh tests/integration/pack_restart.sh \
	tests/integration/pack_e2e.sh tests/integration/pytorch_job.sh \
	tests/integration/soak_short.sh tests/integration/timeline.sh \
	tests/integration/sched_invalid_assoc.sh tests/integration/spank_steps.sh \
	tests/integration/sched_fair_users.sh tests/integration/sched_learn_restart.sh \
	tests/integration/sched_array_users.sh
# sched/hs_packtest, a TEST-ONLY sched plugin that
# packs jobs through plugins/select/hetsched/hs_pack.h; built by `make check`
# only, never installed (tests add its .libs dir to PluginDir).
if BUILD_PLUGINS
check_LTLIBRARIES = tests/integration/packtest/sched_hs_packtest.la
tests_integration_packtest_sched_hs_packtest_la_SOURCES = \
	tests/integration/packtest/sched_hs_packtest.c \
	plugins/compat/pack_channel.c plugins/compat/pack_channel.h
tests_integration_packtest_sched_hs_packtest_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
tests_integration_packtest_sched_hs_packtest_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
endif
