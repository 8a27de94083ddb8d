# SPDX-License-Identifier: GPL-2.0-or-later
# tests/deb — the Debian packaging (debian/) and its smoke test
# (deb_smoke.sh: build, install, run the installed plugins on a local
# cluster, purge; root only, run by contrib/test.sh, not by make check).
# Both ship in the tarball so that it builds the packages too.
EXTRA_DIST += tests/deb/deb_smoke.sh \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/README.source debian/source/format debian/not-installed \
	debian/libhetsched-report0.symbols \
	debian/slurm-wlm-hetsched-plugins.install debian/slurm-wlm-hetsched-plugins.examples \
	debian/slurm-wlm-hetsched-plugins.docs debian/slurm-wlm-hetsched-plugins.lintian-overrides \
	debian/hetsched.install debian/hetsched.docs debian/hetsched.examples \
	debian/hetsched.lintian-overrides \
	debian/libhetsched-report0.install \
	debian/libhetsched-report-dev.install debian/libhetsched-report-dev.examples \
	debian/python3-hetsched.install debian/python3-hetsched.examples
