# SPDX-License-Identifier: GPL-2.0-or-later
# doc/examples — the reporting API examples of doc/reporting.md. The C one
# is compiled by `make check` so it keeps building against the public
# header; the integration test tests/integration/spank_ckpt.sh runs all
# three through a checkpoint and requeue; pytorch_train.py (a real PyTorch
# job) is run by tests/integration/pytorch_job.sh.
check_PROGRAMS += doc/examples/train
doc_examples_train_SOURCES = doc/examples/train.c
doc_examples_train_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/report
doc_examples_train_LDADD = libhetsched-report.la
examplesdir = $(docdir)/examples
dist_examples_DATA = doc/examples/train.c doc/examples/train.sh doc/examples/train.py \
	doc/examples/pytorch_train.py
