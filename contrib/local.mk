# SPDX-License-Identifier: GPL-2.0-or-later
# contrib — set-up and test tools: bootstrap, the local cluster (hs-cluster),
# the test runner and the demo.
# hs-cluster is installed: anyone can try the plugins on a private cluster.
dist_bin_SCRIPTS = contrib/cluster/hs-cluster
dist_noinst_SCRIPTS += contrib/bootstrap.sh contrib/bootstrap-source.sh contrib/compile-matrix.sh contrib/test.sh contrib/valgrind-wrap.sh contrib/code-metrics.sh \
	contrib/demo.sh contrib/demo/train-job.sh contrib/demo/report.py
dist_noinst_DATA += contrib/demo/workload.txt contrib/demo/workload-24.txt
dist_noinst_DATA += contrib/valgrind.supp contrib/slurm-sha256sums
