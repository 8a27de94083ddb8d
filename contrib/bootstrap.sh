#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bootstrap.sh — install everything hetsched needs on Debian bookworm and
# prepare a configured Slurm source tree (for the internal headers that
# sched/ and select/ plugins need) in a cache directory outside git.
#
# Idempotent: packages already present are not reinstalled, an existing
# configured tree is reused. Prints the source tree's path on the last line.
#
# Usage: contrib/bootstrap.sh [--cache DIR] [--no-apt] [--slurm VERSION] [--install]
#   --cache DIR      where the Slurm source trees live
#                    (default: $HETSCHED_CACHE or /var/cache/hetsched)
#   --no-apt         do not install packages (only fetch/configure the source)
#   --slurm VERSION  22.05 (default): Debian's packaged Slurm, from its source
#                    package. 23.11 ... 26.05 (or X.Y.Z): an upstream tarball
#                    from $HETSCHED_SLURM_TARBALLS (default ../shared/vendor/slurm
#                    beside the checkout), checked against contrib/slurm-sha256sums,
#                    configured once into DIR/slurm-X.Y.Z
#   --install        also build and install that Slurm into /opt/slurm-X.Y.Z:
#                    the daemons, the commands and the plugins a local
#                    cluster (contrib/cluster/hs-cluster --slurm-prefix) needs,
#                    slurmdbd with MySQL (HETSCHED_SLURM_FULL=1: everything)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${HETSCHED_CACHE:-/var/cache/hetsched}
do_apt=1
slurm=22.05
do_install=0
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) cache=$2; shift 2 ;;
	--no-apt) do_apt=0; shift ;;
	--slurm) slurm=$2; shift 2 ;;
	--install) do_install=1; shift ;;
	-h|--help) sed -n '3,22p' "$0"; exit 0 ;;
	*) echo "bootstrap.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
case "$slurm" in
22.05|22.05.*) slurm=packaged ;;
[0-9][0-9].[0-9][0-9]|[0-9][0-9].[0-9][0-9].[0-9]*) ;;
*) echo "bootstrap.sh: --slurm wants a version like 24.11 or 24.11.5, not '$slurm'" >&2; exit 2 ;;
esac

log() { echo "bootstrap: $*" >&2; }

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# Packages: Slurm daemons and clients, accounting (slurmdbd + MySQL plugin +
# MariaDB), munge, the public Slurm headers, GLPK, json-c, autotools, cmocka
# (unit tests), gnuplot (plots), valgrind (memory checks), debhelper and
# dh-python (the Debian packages, tests/deb/deb_smoke.sh), and what
# `apt-get source` / Slurm's configure need. For Debian's /usr/bin/python3:
# the build backend, pip and venv of the hetsched-report Python package
# (python/pyproject.toml, tests/unit/test_report_pkg.sh), and PyTorch (CPU)
# for doc/examples/pytorch_train.py (tests/integration/pytorch_job.sh;
# 172 packages, 48 MB fetched here + 99 MB already in apt's cache, 635 MB
# installed, 130 s of CPU: 9 min 23 s wall on the shared 2-core dev machine).
# librsvg2-bin: rsvg-convert renders `hetsched timeline` SVGs in the tests.
# python3-prometheus-client: its OpenMetrics parser checks `hetsched status
# --format=openmetrics` strictly (tests/unit/test_metrics_parse.sh).
# expect, python3-pytest, python3-pexpect, sudo: SchedMD's regression suites
# (tests/schedmd/run.sh); sudo runs their second, unprivileged user.
PKGS="slurm-wlm slurmctld slurmd slurmdbd slurm-client slurm-wlm-mysql-plugin
 mariadb-server mariadb-client munge libmunge-dev libslurm-dev
 libglpk-dev glpk-utils libjson-c-dev pkg-config autoconf automake libtool
 make gcc libc6-dev libcmocka-dev gnuplot-nox valgrind dpkg-dev python3
 python3-setuptools python3-wheel python3-pip python3-venv python3-torch
 procps iproute2 bc curl ca-certificates debhelper dh-python
 python3-prometheus-client librsvg2-bin expect python3-pytest python3-pexpect sudo"
# A Slurm built from source (--install) gets slurmdbd's MySQL plugin.
[ "$do_install" = 0 ] || PKGS="$PKGS default-libmysqlclient-dev"

missing_pkgs() {
	for p in $PKGS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"
	done
}

if [ "$do_apt" = 1 ]; then
	missing=$(missing_pkgs | tr '\n' ' ')
	if [ -n "$missing" ]; then
		log "installing: $missing"
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		# The packages would start system munged, MariaDB, slurmctld,
		# slurmd and slurmdbd; hetsched runs private ones (hs-cluster) and
		# must not leave system daemons behind. A policy-rc.d that denies
		# service starts (exit 101, see invoke-rc.d(8)) covers the install.
		policy=/usr/sbin/policy-rc.d
		own_policy=0
		if [ ! -e "$policy" ]; then
			printf '#!/bin/sh\n# hetsched bootstrap: no service starts during install\nexit 101\n' |
				$SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && own_policy=1
		fi
		rc=0
		# shellcheck disable=SC2086
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $missing >&2 || rc=$?
		[ $own_policy = 0 ] || $SUDO rm -f "$policy"
		[ $rc = 0 ] || { echo "bootstrap: apt-get install failed" >&2; exit 1; }
	else
		log "all packages present"
	fi
fi

# Slurm from an upstream tarball: everything is in bootstrap-source.sh.
if [ "$slurm" != packaged ]; then
	install_opt=
	[ "$do_install" = 0 ] || install_opt=--install
	exec "$here/bootstrap-source.sh" --cache "$cache" --slurm "$slurm" $install_opt
fi
[ "$do_install" = 0 ] || { echo "bootstrap.sh: --install is for Slurm built from source; 22.05 comes from Debian's packages" >&2; exit 2; }

# The exact installed Slurm version: the source tree must match it, because
# sched/select plugins must carry SLURM_VERSION_NUMBER and share struct layouts.
debver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
[ -n "$debver" ] || { echo "bootstrap: slurmctld is not installed" >&2; exit 1; }
upver=${debver%%-*}
tree="$cache/slurm-wlm-$debver"

if [ -f "$tree/config.h" ] && [ -f "$tree/src/slurmctld/slurmctld.h" ] \
	&& [ -f "$tree/.hetsched-configured" ]; then
	log "reusing configured Slurm source $tree"
	echo "$tree"
	exit 0
fi

# apt-get source needs deb-src lines for the same archives as the deb lines.
ensure_deb_src() {
	if apt-get source --print-uris "slurm-wlm=$debver" >/dev/null 2>&1; then
		return 0
	fi
	src=/etc/apt/sources.list.d/debian.sources
	if [ -f "$src" ] && ! grep -q '^Types:.*deb-src' "$src"; then
		log "adding deb-src to $src"
		$SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$src"
	elif [ -f /etc/apt/sources.list ] && ! grep -q '^deb-src' /etc/apt/sources.list; then
		log "adding deb-src lines to /etc/apt/sources.list"
		grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
			| $SUDO tee -a /etc/apt/sources.list >/dev/null
	fi
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
}

$SUDO mkdir -p "$cache"
[ -w "$cache" ] || $SUDO chown "$(id -u)" "$cache"
ensure_deb_src
work=$(mktemp -d "$cache/fetch.XXXXXX")
(
	cd "$work"
	log "fetching Slurm source package slurm-wlm=$debver"
	apt-get source --download-only "slurm-wlm=$debver" >&2
	rm -rf "$tree"
	# dpkg-source applies Debian's patches, so the tree equals the binaries'.
	dpkg-source --no-check -x slurm-wlm_*.dsc "$tree" >&2
)
rm -rf "$work"

cd "$tree"
log "configuring Slurm $upver in $tree (about 20 s)"
./configure --prefix=/usr --libdir="/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)" \
	--sysconfdir=/etc/slurm --with-munge --without-rpath --disable-debug \
	--enable-multiple-slurmd >"$tree/hetsched-configure.log" 2>&1 || {
	echo "bootstrap: Slurm configure failed, see $tree/hetsched-configure.log" >&2
	exit 1
}
echo "$debver" > "$tree/.hetsched-configured"
log "done"
echo "$tree"
