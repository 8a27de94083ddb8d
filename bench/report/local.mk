# SPDX-License-Identifier: GPL-2.0-or-later
# bench/report — cost of reporting a mini-batch (bench/report/report_cost.sh,
# ratios to a baseline measured in the same run). Built by make:
#   bench/report/report_cost.sh (from the build directory)
noinst_PROGRAMS += bench/report/report_cost
bench_report_report_cost_SOURCES = bench/report/report_cost.c
bench_report_report_cost_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
bench_report_report_cost_LDADD = libhetsched-report.la libhetsched_measure.la $(JSONC_LIBS) -lpthread -lm
EXTRA_DIST += bench/report/report_cost.sh
