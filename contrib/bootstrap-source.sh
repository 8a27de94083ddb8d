#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bootstrap-source.sh — the `contrib/bootstrap.sh --slurm X.Y[.Z]` half: a
# configured upstream Slurm source tree (headers + config.h for building
# hetsched's plugins) from a local tarball cache, and optionally an installed
# Slurm of that version in /opt/slurm-X.Y.Z. This machine-independent part
# never downloads: put the release tarball in the cache directory.
#
# Usage: bootstrap-source.sh --slurm X.Y[.Z] [--cache DIR] [--install]
# Env:   HETSCHED_SLURM_TARBALLS  tarball cache (default: ../shared/vendor/slurm
#                                 beside the checkout, used only if present)
# Prints the configured tree's path on the last line (cached: the second run
# only checks the marker file).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
sums="$here/slurm-sha256sums"
cache=${HETSCHED_CACHE:-/var/cache/hetsched}
want=
do_install=0
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) cache=$2; shift 2 ;;
	--slurm) want=$2; shift 2 ;;
	--install) do_install=1; shift ;;
	*) echo "bootstrap-source.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
log() { echo "bootstrap: $*" >&2; }
die() { echo "bootstrap: $*" >&2; exit 1; }
[ -n "$want" ] || die "--slurm X.Y[.Z] is required"

# Versions we know checksums for: "X.Y.Z sha256" per tarball, from the names.
known() {
	grep -v '^#' "$sums" | sed -n 's/^\([0-9a-f]\{64\}\)  .*[-_]\([0-9][0-9]*\.[0-9][0-9]\.[0-9][0-9]*\)\(\.orig\)\{0,1\}\.tar\.[a-z0-9]*$/\2 \1/p'
}
# X.Y means the newest X.Y.Z listed (sort -V orders 24.11.10 after 24.11.9).
case "$want" in
*.*.*) version=$want ;;
*) version=$(known | awk -v s="$want." 'index($1, s) == 1 { print $1 }' | sort -V | tail -n 1) ;;
esac
[ -n "$version" ] && known | awk '{ print $1 }' | grep -qx "$version" \
	|| die "no checksum for Slurm $want in $sums (known: $(known | awk '{ print $1 }' | sort -uV | tr '\n' ' '))"

tree="$cache/slurm-$version"
prefix="/opt/slurm-$version"
marker="$tree/.hetsched-configured"

configure_tree() {
	# Only config.h and the generated headers are needed: optional
	# dependencies off keep configure short (measured: contrib/compile-matrix.sh).
	# An --install build uses the same tree, so its MySQL check stays on.
	log "configuring Slurm $version in $tree (prefix $prefix)"
	start=$(date +%s)
	# No autoconf cache shared between versions: measured unsafe (24.11.5
	# with 25.05.8's cache lost HAVE_JSON_C_INC: its json check sets the
	# macro from a loop variable that a cached answer never sets).
	# With rpath (configure's default) the installed commands and daemons
	# find $prefix/lib/slurm/libslurmfull.so without LD_LIBRARY_PATH.
	(cd "$tree" && ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" \
		--with-munge --disable-debug --enable-multiple-slurmd \
		--disable-dependency-tracking --disable-sview --disable-glibtest --disable-gtktest \
		--disable-pam --disable-slurmrestd --disable-x11 --without-readline \
		--without-hdf5 --without-pmix --without-ucx --without-nvml --without-rsmi \
		--without-oneapi --without-freeipmi --without-rdkafka --without-lua --without-ofed \
		--without-bpf --without-hpe-slingshot --without-s2n --without-jwt \
		--without-libcurl --without-hwloc >"$tree/hetsched-configure.log" 2>&1) \
		|| die "Slurm $version configure failed, see $tree/hetsched-configure.log"
	log "configured in $(( $(date +%s) - start )) s"
	echo "$version" >"$marker"
}

# Fast path: configured before (the marker is written last).
if [ -f "$marker" ] && [ -f "$tree/config.h" ] && [ -f "$tree/slurm/slurm_version.h" ]; then
	log "reusing configured Slurm source $tree"
	# A tree configured for headers only (no MySQL client library then,
	# or by an older bootstrap with --without-rpath) would install a
	# slurmdbd without its MySQL plugin, or binaries that cannot find
	# libslurmfull: --install configures it again (bootstrap.sh installs
	# the library). The marker stays, so parallel plugin builds keep
	# using the tree (only config.h's HAVE_MYSQL changes for them).
	if [ "$do_install" = 1 ] && [ ! -f "$tree/.hetsched-installed" ] && {
		{ grep -q '#undef HAVE_MYSQL' "$tree/config.h" && command -v mysql_config >/dev/null; } ||
			grep -q -- '--without-rpath' "$tree/config.status"; }; then
		log "$tree was configured for headers only: configuring it again for --install"
		configure_tree
	fi
else
	tarballs=${HETSCHED_SLURM_TARBALLS:-$(dirname "$here")/../shared/vendor/slurm}
	# Any file in the cache whose checksum we list for this version will do.
	tarball=
	if [ -d "$tarballs" ]; then
		for f in "$tarballs"/*"$version"*.tar.*; do
			[ -f "$f" ] || continue
			sum=$(sha256sum "$f" | awk '{ print $1 }')
			if known | grep -qx "$version $sum"; then tarball=$f; break; fi
			log "ignoring $f: its SHA-256 is not listed for $version in $sums"
		done
	fi
	[ -n "$tarball" ] || die "no Slurm $version tarball with a known checksum in $tarballs.
  This machine cannot download from SchedMD: fetch slurm-$version.tar.bz2 (or the
  git archive of tag slurm-$(echo "$version" | tr . -)-1) elsewhere, put it in
  that directory (or point HETSCHED_SLURM_TARBALLS at its directory), and add
  its SHA-256 to $sums if it is not listed."
	log "using $tarball (SHA-256 checked)"

	# Unpack beside the tree, check, then move it into place before
	# configure (configure records absolute paths); the marker comes last,
	# so an interrupted run starts over.
	mkdir -p "$cache"
	work=$(mktemp -d "$cache/unpack.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	chmod 755 "$work" # mktemp makes it private; builds as other users read it
	tar -xf "$tarball" -C "$work" --strip-components=1
	# The tree must say it is the version we asked for.
	meta=$(awk '$1 == "Version:" { print $2 }' "$work/META" 2>/dev/null || true)
	[ "$meta" = "$version" ] || die "$tarball unpacks to Slurm '${meta:-?}' (META), not $version"
	rm -rf "$tree"
	mv "$work" "$tree"
	trap - EXIT

	configure_tree
fi

# subdirs DIR: the SUBDIRS of DIR's generated Makefile (the configure
# conditionals already applied), in build order.
subdirs() {
	printf 'hs-print-subdirs:\n\t@echo $(SUBDIRS)\n' |
		make -s -C "$1" -f Makefile -f - hs-print-subdirs
}

# runtime_dirs: the directories of the tree that hs-cluster's daemons, the
# commands tests and the demo run, and the plugins they load need, in build
# order. Left out (a full build is 1.6x the CPU; HETSCHED_SLURM_FULL=1 does
# it): commands nothing here runs (sstat, sattach, sbcast, scrontab,
# strigger, scrun, sackd, sh5util; sreport and sshare are built: the
# accounting tests and the fairness docs run them, and without them the
# PATH finds the distribution's, which cannot load this series' plugins),
# and the plugin types that our
# slurm.conf leaves at "none" or never asks for (REST data parsers, burst
# buffers, energy/profile/interconnect/filesystem gathering, job
# completion, cli_filter, job_submit, switch, site_factor, mcs, HTTP
# auth): of those only a "none" plugin is built, where the series still
# has one as a plugin. certgen and certmgr are built whole: sacctmgr 26.05.3
# loads certgen/script at start and exits without it. (MPI stays: slurmd
# loads every mpi plugin at start and fails without any, even with
# MpiDefault=none.)
runtime_dirs() {
	local d t
	echo src
	for d in $(subdirs "$tree/src"); do
		case "$d" in
		sview|slurmrestd|sstat|sattach|sbcast|scrontab|strigger|scrun|sackd|sh5util|lua) ;;
		plugins)
			for t in $(subdirs "$tree/src/plugins"); do
				case "$t" in
				data_parser|burst_buffer|acct_gather_*|ext_sensors|jobcomp|cli_filter|job_submit|switch|site_factor|mcs|http_auth)
					[ ! -f "$tree/src/plugins/$t/none/Makefile" ] || echo "src/plugins/$t/none" ;;
				*) echo "src/plugins/$t" ;;
				esac
			done ;;
		*) echo "src/$d" ;;
		esac
	done
}

# build_runtime: make + make install of runtime_dirs, and the public headers
# (configure --with-slurm-prefix reads the installed slurm_version.h).
# A test installation: compiled at -O0 without debug info (configure's
# CFLAGS with -O2 and -g swapped): measured on 26.05.3's largest file,
# src/common/slurm_protocol_pack.c, 3.5 s of CPU against 12.6 s at -g -O2
# (same machine, same minute); daemon speed does not matter for a local
# test cluster.
# HETSCHED_SLURM_CFLAGS overrides (e.g. "-g -O2" for configure's own).
build_runtime() {
	local d cflags
	cflags=$(sed -n 's/^CFLAGS = //p' src/common/Makefile)
	cflags=${HETSCHED_SLURM_CFLAGS:-$(echo " $cflags " | sed 's/ -O[0-9s]* / /g; s/ -g / /g') -O0 -g0}
	if [ "${HETSCHED_SLURM_FULL:-0}" = 1 ]; then
		make -j2 CFLAGS="$cflags" && make install CFLAGS="$cflags"
		return
	fi
	for d in $(runtime_dirs); do
		[ "$d" = src ] && continue
		echo "== hetsched: make -C $d CFLAGS=$cflags"
		make -j2 -C "$d" CFLAGS="$cflags" && make -C "$d" install CFLAGS="$cflags" || return 1
	done
	make install-pkgincludeHEADERS
}

if [ "$do_install" = 1 ]; then
	if [ -x "$prefix/sbin/slurmctld" ] && [ -f "$tree/.hetsched-installed" ]; then
		log "Slurm $version already installed in $prefix"
	else
		log "building and installing Slurm $version into $prefix (make -j2; log: $tree/hetsched-build.log)"
		start=$(date +%s)
		(cd "$tree" && build_runtime >hetsched-build.log 2>&1) \
			|| die "Slurm $version build failed, see $tree/hetsched-build.log"
		log "built and installed in $(( $(date +%s) - start )) s"
		echo "$prefix" >"$tree/.hetsched-installed"
	fi
fi
echo "$tree"
