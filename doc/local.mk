# SPDX-License-Identifier: GPL-2.0-or-later
# doc — manual pages (roff) and developer notes.
dist_doc_DATA += doc/protocol.md
EXTRA_DIST += doc/learning.md
EXTRA_DIST += doc/policies.md doc/slurm-internals.md doc/slurm-versions.md doc/architecture.md
dist_man_MANS += doc/man/hetsched.1 doc/man/hetsched-solve.1
dist_man_MANS += doc/man/hetsched-simulate.1 doc/man/hetsched-timeline.1
dist_man_MANS += doc/man/hs-cluster.1 doc/man/hetsched-plugins.7
EXTRA_DIST += doc/hacking.md doc/schedmd-tests.md doc/slurm-semantics.md doc/ci-time.md
# sched/hetsched
dist_man_MANS += doc/man/hetsched.conf.5 doc/man/sched_hetsched.8 doc/man/hetsched-status.1
EXTRA_DIST += doc/cluster-results.md doc/results/cluster-jct.svg

# job-side reporting, the SPANK plugin, emulator and trace player
dist_man_MANS += doc/man/hetsched-report.1 doc/man/hetsched_report.3 \
	doc/man/hetsched-emulator.1 doc/man/hetsched-trace-play.1 doc/man/spank_hetsched.8
dist_doc_DATA += doc/reporting.md
# select/hetsched_cons_tres: space sharing
dist_man_MANS += doc/man/select_hetsched_cons_tres.8
dist_doc_DATA += doc/packing.md
dist_doc_DATA += doc/policy-engine.md
# the soak test's findings and runs
EXTRA_DIST += doc/robustness.md doc/user-bounds.md doc/packaging.md doc/README.md
# OpenMetrics for Prometheus
dist_doc_DATA += doc/metrics.md
# sacct/sreport recipes and the timeline picture
dist_doc_DATA += doc/accounting.md
# scale: the live large cluster (bench/scale.sh), the solver, the simulator
EXTRA_DIST += doc/scale.md doc/results/sim-scale.png doc/results/scale-live.png doc/results/scale-live.tsv doc/results/scale-live-runs4-6.tsv
# expected start times and the per-job view
dist_man_MANS += doc/man/hetsched-job.1
EXTRA_DIST += doc/start-times.md
# strategic users (issue 28): bench/strategic.sh's tables
EXTRA_DIST += doc/strategic.md
