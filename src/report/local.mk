# SPDX-License-Identifier: GPL-2.0-or-later
# src/report — job-side reporting: the public library libhetsched-report
# (hetsched/report.h), the hetsched-report command, and the Slurm-free
# measurement library (wire parser, estimator, AdminComment record, GRES
# type, listener thread) that spank_hetsched and the sched plugin link.

# Public library: only the hs_report_* API is exported.
lib_LTLIBRARIES += libhetsched-report.la
libhetsched_report_la_SOURCES = \
	src/report/report.c src/report/wire.c src/report/wire.h
libhetsched_report_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
libhetsched_report_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^hs_report_'
libhetsched_report_la_LIBADD = -lpthread
hetschedincludedir = $(includedir)/hetsched
hetschedinclude_HEADERS = src/report/hetsched/report.h
# pkg-config file (configure substitutes prefix, libdir and the version).
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = src/report/libhetsched-report.pc
EXTRA_DIST += src/report/libhetsched-report.pc.in

bin_PROGRAMS += hetsched-report
hetsched_report_SOURCES = src/report/hetsched_report_main.c
hetsched_report_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
hetsched_report_LDADD = libhetsched-report.la

# Measurement library (PIC, no Slurm, no GLPK): linked into the SPANK
# plugin, the sched plugin (record.h) and the unit tests.
noinst_LTLIBRARIES += libhetsched_measure.la
libhetsched_measure_la_SOURCES = \
	src/report/wire.c src/report/wire.h \
	src/report/estimator.c src/report/estimator.h \
	src/report/record.c src/report/record.h \
	src/report/gres.c src/report/gres.h \
	src/report/proc.c src/report/proc.h \
	src/report/listener.c src/report/listener.h \
	src/report/jobdir.c src/report/jobdir.h \
	src/report/measure_err.c src/report/measure_err.h \
	src/report/hints.c src/report/hints.h
libhetsched_measure_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
libhetsched_measure_la_LIBADD = $(JSONC_LIBS) -lpthread -lm

# The Python module (pure Python, same protocol). python/pyproject.toml
# packages the same file for pip (python3 -m pip install ./python).
if HAVE_PYTHON
python_PYTHON = python/hetsched_report.py
endif
EXTRA_DIST += python/hetsched_report.py python/pyproject.toml python/README.md
