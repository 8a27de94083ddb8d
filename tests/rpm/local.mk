# SPDX-License-Identifier: GPL-2.0-or-later
# tests/rpm — the RPM packaging (rpm/hetsched.spec) and its smoke test
# (rpm_smoke.sh: rpmbuild, rpmlint, rpm --root into a scratch root, run the packaged
# plugins on a local cluster; root only, a command of its own: neither
# make check nor contrib/test.sh runs it). Both ship in the tarball, so that
# `rpmbuild -ta hetsched-VERSION.tar.gz` finds the spec.
EXTRA_DIST += tests/rpm/rpm_smoke.sh rpm/hetsched.spec rpm/hetsched.rpmlintrc rpm/README.md \
	tests/rpm/el.macros
# The record of its runs (README points to it).
EXTRA_DIST += doc/packaging.md
