# SPDX-License-Identifier: GPL-2.0-or-later
# data/ — Gavel's measured throughput tables and traces (MIT, see
# data/gavel/README.md for their origin), installed under
# $(pkgdatadir)/gavel: the CLI's default --throughputs table and the
# tables the example hetsched.conf points at.
gaveldir = $(pkgdatadir)/gavel
dist_gavel_DATA = data/gavel/LICENSE data/gavel/README.md \
	data/gavel/simulation_throughputs.json \
	data/gavel/physical_cluster_throughputs.json
gaveltracesdir = $(pkgdatadir)/gavel/traces/physical_cluster
dist_gaveltraces_DATA = \
	data/gavel/traces/physical_cluster/artifact_evaluation.trace \
	data/gavel/traces/physical_cluster/debug.trace \
	data/gavel/traces/physical_cluster/debug_v2.trace \
	data/gavel/traces/physical_cluster/highmem_test.trace \
	data/gavel/traces/physical_cluster/max_min_fairness.trace \
	data/gavel/traces/physical_cluster/medium_test.trace \
	data/gavel/traces/physical_cluster/minimize_makespan.trace \
	data/gavel/traces/physical_cluster/small_test.trace
# traces/msr (Philly-derived, an older format nothing here reads) stays in
# the repository only; its seed=0 folder name would also read as a make
# variable assignment in a prerequisite list.
