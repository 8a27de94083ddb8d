#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# compile-matrix.sh — compiles the three Slurm plugins with -Werror against
# every supported Slurm series, one configured source tree each (from
# contrib/bootstrap.sh --slurm X.Y, cached) and one hetsched build dir each
# (configured once, reused). Only the plugins' objects are compiled
# (`make plugin-objects`), not the core library nor the tests. Prints TAP:
# `ok N - plugins compile against Slurm X.Y.Z`, with times as comments.
#
# Usage: contrib/compile-matrix.sh [VERSION...]   (default: every series)
# Env:   HETSCHED_MATRIX_DIR  build dirs (default: ./_matrix in the checkout)
#        HETSCHED_CACHE, HETSCHED_SLURM_TARBALLS  see contrib/bootstrap.sh
#        MAKEFLAGS            e.g. -j2
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
versions=${*:-"22.05 23.11 24.05 24.11 25.05 25.11 26.05"}
mroot=${HETSCHED_MATRIX_DIR:-$top/_matrix}
mkdir -p "$mroot"
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >"$mroot/autoreconf.log" 2>&1) \
	|| { echo "Bail out! autoreconf failed, see $mroot/autoreconf.log"; exit 1; }

set -- $versions
echo "1..$#"
n=0 failed=0 t_all=$(date +%s)
for v in "$@"; do
	n=$((n + 1))
	t0=$(date +%s)
	# The packaged 22.05 needs apt (bootstrap.sh's default run); source
	# trees only need their tarball.
	if tree=$("$top/contrib/bootstrap.sh" --no-apt --slurm "$v" 2>"$mroot/bootstrap-$v.log" | tail -n 1) \
		&& [ -f "$tree/slurm/slurm_version.h" ]; then :; else
		echo "not ok $n - plugins compile against Slurm $v # bootstrap failed: $(tail -n 3 "$mroot/bootstrap-$v.log" | tr '\n' ' ')"
		failed=$((failed + 1)); continue
	fi
	full=$(awk '$1 == "Version:" { print $2 }' "$tree/META")
	t1=$(date +%s)
	b="$mroot/slurm-$full"
	# Compile-only unless that Slurm is installed (bootstrap --install) or
	# is the system's own (22.05): then the exact-version check runs too.
	check=--disable-slurm-version-check
	if [ -f "/opt/slurm-$full/include/slurm/slurm_version.h" ]; then
		check="--with-slurm-prefix=/opt/slurm-$full"
	elif [ "$full" = "$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null | sed 's/-.*//')" ]; then
		check=
	fi
	mkdir -p "$b"
	if [ ! -f "$b/config.status" ] || ! grep -q "with-slurm-source=$tree" "$b/config.status"; then
		# hetsched's own checks are the same for every Slurm tree (the
		# Slurm ones are not cached), so the build dirs share a cache.
		(cd "$b" && "$top/configure" --cache-file="$mroot/config.cache" \
			--enable-werror --with-slurm-source="$tree" $check \
			>"$b/matrix-configure.log" 2>&1) || {
			echo "not ok $n - plugins compile against Slurm $full # configure failed, see $b/matrix-configure.log"
			failed=$((failed + 1)); continue
		}
	fi
	t2=$(date +%s)
	if make -C "$b" plugin-objects >"$b/matrix-make.log" 2>&1; then
		echo "ok $n - plugins compile against Slurm $full"
	else
		echo "not ok $n - plugins compile against Slurm $full"
		grep -E 'error|warning' "$b/matrix-make.log" | head -n 20 | sed 's/^/# /'
		failed=$((failed + 1))
	fi
	t3=$(date +%s)
	echo "# Slurm $full: bootstrap $((t1 - t0)) s, configure $((t2 - t1)) s, compile $((t3 - t2)) s"
done
echo "# total $(( $(date +%s) - t_all )) s"
[ "$failed" -eq 0 ]
