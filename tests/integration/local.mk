# tests/integration — shell TAP tests on real local Slurm clusters
# (contrib/cluster/hs-cluster). They skip unless HETSCHED_INTEGRATION=1
# (contrib/test.sh sets it), bring up and tear down their own clusters,
# and run one at a time per build dir (lib.sh takes a lock), so a new test
# only needs adding to the list below.
if BUILD_PLUGINS
INTEGRATION_TESTS = \
	tests/integration/cluster.sh \
	tests/integration/plugins.sh \
	tests/integration/gpu_jobs.sh
TESTS += $(INTEGRATION_TESTS)
endif
EXTRA_DIST += tests/integration/lib.sh \
	tests/integration/cluster.sh \
	tests/integration/plugins.sh \
	tests/integration/gpu_jobs.sh
# spank_hetsched (issue 6)
if BUILD_PLUGINS
TESTS += tests/integration/spank_report.sh tests/integration/spank_ckpt.sh
endif
EXTRA_DIST += tests/integration/spank_lib.sh tests/integration/hs_admincomment.py \
	tests/integration/spank_report.sh tests/integration/spank_ckpt.sh
