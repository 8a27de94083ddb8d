# SPDX-License-Identifier: GPL-2.0-or-later
# tests/schedmd — SchedMD's regression suites on local clusters, backfill
# against hetsched: tests/schedmd/run.sh, run by hand as root
# from the build directory; too long for `make check` and CI
# (doc/schedmd-tests.md).
EXTRA_DIST += tests/schedmd/run.sh tests/schedmd/tests.list
