#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rpm_smoke.sh — smoke test of the RPM packages (rpm/hetsched.spec) on this
# Debian machine: makes the `make dist` tarball, builds the packages from it
# with `rpmbuild -ta` against an installed upstream Slurm (default 26.05.3 in
# /opt/slurm-26.05.3, contrib/bootstrap.sh --slurm 26.05 --install), checks
# them with rpmlint, installs them with `rpm --root` into a scratch root,
# checks that every file is where Rocky/Alma/RHEL expect it, then brings up
# a local cluster of that Slurm with the PACKAGED hs-cluster whose PluginDir
# starts with the scratch root's /usr/lib64/slurm, and shows the packaged
# plugins loading (from that directory: slurmctld's memory maps) and
# scheduling jobs. TAP output; times on "# " lines. Leaves nothing behind.
#
# Not run by `make check` nor by contrib/test.sh: a command of its own.
#
# Usage: tests/rpm/rpm_smoke.sh [--tarball FILE] [--rpms DIR] [--slurm-prefix DIR]
#   --tarball FILE      build from this `make dist` tarball (default: make one
#                       from a copy of this tree: autoreconf, configure
#                       --without-slurm, make dist)
#   --rpms DIR          test the .rpm files under DIR instead of building them
#   --slurm-prefix DIR  the installed Slurm to build for and run
#                       [/opt/slurm-26.05.3]
# Environment: HETSCHED_SLURM_SOURCE (the configured source tree of that
#   Slurm; default: contrib/bootstrap.sh --no-apt --slurm VERSION, which
#   reuses its cached tree), HS_KEEP_CLUSTERS=1 (keep the cluster and the
#   scratch directory for debugging).
set -u
HS_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
tarball='' rpms='' prefix=/opt/slurm-26.05.3
while [ $# -gt 0 ]; do
	case "$1" in
	--tarball) tarball=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") || exit 2; shift 2 ;;
	--rpms) rpms=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--slurm-prefix) prefix=${2%/}; shift 2 ;;
	-h|--help) sed -n '3,26p' "$0"; exit 0 ;;
	*) echo "rpm_smoke.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done

PKGS="slurm-hetsched-plugins hetsched libhetsched-report libhetsched-report-devel python3-hetsched"
PLUGINS="sched_hetsched.so select_hetsched_cons_tres.so spank_hetsched.so"
# What EL's macros say (the spec's defaults): %{_libdir}, %{_libdir}/slurm.
LIBDIR=/usr/lib64
PLUGINDIR=$LIBDIR/slurm

work=$(mktemp -d /tmp/hs-rpm-smoke.XXXXXX) || exit 1
root=$work/root
# lib.sh: TAP helpers (check, ok, nok, bail), clusters (it_cluster_up runs
# $HS_CLUSTER, set to the packaged one below), it_wait_jobs, it_sacct,
# it_hetsched_conf, it_procs_of. HS_SLURM_PREFIX puts that Slurm's
# commands first on PATH; HS_BUILDDIR only seeds the port-block choice.
HS_SLURM_PREFIX=$prefix
HS_BUILDDIR=$work
. "$HS_SRCDIR/tests/integration/lib.sh"
HS_AC="python3 $HS_SRCDIR/tests/integration/hs_admincomment.py"
t0=$(date +%s)

finish() {
	it_cleanup
	if [ "${HS_KEEP_CLUSTERS:-0}" = 1 ]; then
		echo "# kept $work (HS_KEEP_CLUSTERS=1)"
	else
		rm -rf "$work"
	fi
}
trap finish EXIT

[ "$(id -u)" = 0 ] || bail "rpm_smoke.sh runs Slurm daemons: run it as root"
if [ -z "$rpms" ]; then
	command -v rpmbuild >/dev/null || bail "no rpmbuild: apt-get install rpm"
	# el.macros turns on find-debuginfo, which strips with eu-strip.
	command -v eu-strip >/dev/null || bail "no eu-strip: apt-get install elfutils"
fi
command -v rpm >/dev/null || bail "no rpm: apt-get install rpm"
[ -x "$prefix/sbin/slurmctld" ] ||
	bail "no Slurm in $prefix: contrib/bootstrap.sh --slurm 26.05 --install (or --slurm-prefix DIR)"
slurmver=$("$prefix/sbin/slurmctld" -V | awk '{ print $2 }')
echo "# RPM packages: build against Slurm $slurmver ($prefix), lint, install into a scratch root, run on a local cluster"

# --- build
if [ -z "$rpms" ]; then
	if [ -z "$tarball" ]; then
		# A copy of the tree (autoreconf writes into it): the files git
		# knows, including uncommitted changes, or everything but _build.
		src=$work/src
		mkdir -p "$src"
		if git -C "$HS_SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
			git -C "$HS_SRCDIR" ls-files -co --exclude-standard -z |
				(cd "$HS_SRCDIR" && tar --null -T - -cf -) | tar -xf - -C "$src"
		else
			tar -C "$HS_SRCDIR" --exclude=./_build -cf - . | tar -xf - -C "$src"
		fi
		td=$(date +%s)
		# `make dist` needs no Slurm: the tarball is the same either way.
		if (cd "$src" && autoreconf -fi && mkdir _dist && cd _dist &&
			../configure --without-slurm && make dist) >"$work/dist.log" 2>&1; then
			tarball=$(ls "$src"/_dist/hetsched-*.tar.gz)
			ok "make dist: $(basename "$tarball") ($(($(date +%s) - td)) s)"
		else
			tail -n 30 "$work/dist.log" | diag
			bail "make dist failed"
		fi
	fi
	tree=${HETSCHED_SLURM_SOURCE:-$("$HS_SRCDIR/contrib/bootstrap.sh" --no-apt --slurm "$slurmver" 2>"$work/bootstrap.log" | tail -n 1)}
	[ -f "$tree/slurm/slurm_version.h" ] ||
		{ diag <"$work/bootstrap.log"; bail "no configured Slurm $slurmver source tree (HETSCHED_SLURM_SOURCE)"; }
	echo "# Slurm source tree $tree"
	tb=$(date +%s)
	# --nodeps: the BuildRequires are RPM names (gcc, glpk-devel,
	# slurm-devel ...) and Debian's rpm database is empty; the Debian
	# packages of the same tools are what the build uses. --without check:
	# the unit tests run in contrib/test.sh. el.macros: what EL's rpm
	# configuration does and Debian's does not (debuginfo, man page
	# compression, doc dir names).
	if rpmbuild -ta "$tarball" --nodeps --without check \
		--load "$HS_SRCDIR/tests/rpm/el.macros" \
		--define "_topdir $work/rpmbuild" \
		--define "slurm_source $tree" --define "slurm_prefix $prefix" \
		>"$work/rpmbuild.log" 2>&1; then
		ok "rpmbuild -ta $(basename "$tarball") ($(($(date +%s) - tb)) s)"
	else
		tail -n 40 "$work/rpmbuild.log" | diag
		bail "rpmbuild failed"
	fi
	rpms=$work/rpmbuild
fi
list=""
for p in $PKGS; do
	f=$(find "$rpms" -name "$p-[0-9]*.rpm" ! -name '*.src.rpm' | head -n 1)
	[ -n "$f" ] && list="$list $f"
done
# shellcheck disable=SC2086
check "the five packages are there" test "$(echo $list | wc -w)" = 5 || bail "missing packages in $rpms"
find "$rpms" -name '*.rpm' -printf '%f\n' | sort | diag

# --- rpmlint: clean, apart from what rpm/hetsched.rpmlintrc explains
if command -v rpmlint >/dev/null; then
	# shellcheck disable=SC2046
	rpmlint -r "$HS_SRCDIR/rpm/hetsched.rpmlintrc" $(find "$rpms" -name '*.rpm') \
		"$HS_SRCDIR/rpm/hetsched.spec" >"$work/rpmlint.out" 2>&1
	summary=$(grep -E '[0-9]+ errors, [0-9]+ warnings' "$work/rpmlint.out")
	echo "# rpmlint: $summary"
	check "rpmlint: no error, no warning (rpm/hetsched.rpmlintrc)" sh -c \
		"echo '$summary' | grep -q ' 0 errors, 0 warnings'" ||
		grep -E ': [EW]: ' "$work/rpmlint.out" | diag
else
	skip "rpmlint" "not installed (apt-get install rpmlint)"
fi

plugrpm=$(echo "$list" | tr ' ' '\n' | grep '/slurm-hetsched-plugins-')
check "the plugins require exactly Slurm $slurmver" sh -c \
	"rpm -qp --requires '$plugrpm' 2>/dev/null | grep -qx 'slurm(x86-64) = $slurmver'"

# --- install into a scratch root. rpm --root works on Debian (the
# packages have no scriptlets, so nothing runs inside the root); --nodeps
# because the root has none of glibc, slurm, json-c or glpk as RPMs. One
# transaction: rpm refuses it if two packages own the same file differently.
ti=$(date +%s)
mkdir -p "$root"
# shellcheck disable=SC2086
if rpm --root "$root" --initdb >"$work/install.out" 2>&1 &&
	rpm --root "$root" -i --nodeps $list >>"$work/install.out" 2>&1; then
	ok "rpm --root -i of the five packages ($(($(date +%s) - ti)) s)"
else
	diag <"$work/install.out"
	bail "rpm -i into the scratch root failed"
fi
check "rpm -V: the installed files match the packages" sh -c "rpm --root '$root' -V --nodeps $PKGS >'$work/verify.out' 2>&1" ||
	diag <"$work/verify.out"

# owner FILE: the package that owns FILE in the scratch root.
owner() { rpm --root "$root" -qf --qf '%{NAME}\n' "$1" 2>/dev/null; }
owned=0
for f in $PLUGINS; do [ "$(owner "$PLUGINDIR/$f")" = slurm-hetsched-plugins ] && owned=$((owned + 1)); done
check "the three plugins are in SchedMD's plugin dir $PLUGINDIR" test $owned = 3
check "libhetsched-report.so.0 in $LIBDIR (libhetsched-report)" \
	test "$(owner $LIBDIR/libhetsched-report.so.0)" = libhetsched-report
check "header, .so link and pkg-config file (libhetsched-report-devel)" sh -c \
	"for f in /usr/include/hetsched/report.h $LIBDIR/libhetsched-report.so $LIBDIR/pkgconfig/libhetsched-report.pc; do
		[ \"\$(rpm --root '$root' -qf --qf '%{NAME}' \$f)\" = libhetsched-report-devel ] || exit 1; done"
pyfile=$(find "$root/usr/lib" -maxdepth 3 -path '*/site-packages/hetsched_report.py' | head -n 1)
check "hetsched_report.py in /usr/lib/python3.X/site-packages (noarch python3-hetsched)" sh -c \
	"[ -n '$pyfile' ] && [ \"\$(rpm --root '$root' -qf --qf '%{NAME} %{ARCH}' '${pyfile#"$root"}')\" = 'python3-hetsched noarch' ]"
check "the CLI, the tools and Gavel's data (hetsched)" sh -c \
	"for f in /usr/bin/hetsched /usr/bin/hetsched-emulator /usr/bin/hetsched-report /usr/bin/hetsched-trace-play /usr/bin/hs-cluster /usr/share/hetsched/gavel/simulation_throughputs.json; do
		[ \"\$(rpm --root '$root' -qf --qf '%{NAME}' \$f)\" = hetsched ] || exit 1; done"
check "man pages gzipped in /usr/share/man, one for every command" sh -c "cd '$root/usr/share/man' &&
	test -f man1/hetsched-simulate.1.gz -a -f man8/sched_hetsched.8.gz -a -f man3/hetsched_report.3.gz -a -f man5/hetsched.conf.5.gz &&
	for b in '$root'/usr/bin/*; do test -f \"man1/\${b##*/}.1.gz\" || { echo \"# no man page for \$b\"; exit 1; }; done"
check "docs and licences in /usr/share/{doc,licenses}/PACKAGE" sh -c "cd '$root/usr/share' &&
	test -f doc/slurm-hetsched-plugins/examples/slurm.conf.hetsched -a -f doc/hetsched/README.md &&
	test -f doc/libhetsched-report-devel/examples/train.c -a -f doc/python3-hetsched/examples/train.py &&
	test -f licenses/slurm-hetsched-plugins/LICENSE -a -f licenses/hetsched/COPYING"
check "no libtool archives, no static libraries" test -z "$(find "$root" -name '*.la' -o -name '*.a')"
rpaths=$(find "$root/usr/bin" "$root$LIBDIR" -type f -exec sh -c \
	'readelf -d "$1" 2>/dev/null | grep -E "\((RPATH|RUNPATH)\)" | sed "s|^|$1: |"' _ {} \;)
check "no RPATH/RUNPATH in any binary" test -z "$rpaths" || echo "$rpaths" | diag
check "plugstack.conf snippet names $PLUGINDIR/spank_hetsched.so" \
	grep -qx "required $PLUGINDIR/spank_hetsched.so" "$root/usr/share/doc/slurm-hetsched-plugins/examples/plugstack.conf.hetsched"

# The packaged programs, run from the scratch root (its library first).
export LD_LIBRARY_PATH=$root$LIBDIR
check "the packaged hetsched simulate runs on the packaged Gavel table" sh -c \
	"'$root/usr/bin/hetsched' simulate --throughputs '$root/usr/share/hetsched/gavel/simulation_throughputs.json' \
		--policy max_min_fairness_perf --cluster v100:1,k80:1 --generate --rate 0 --jobs 3 --seed 0 >'$work/sim.json' 2>&1 &&
	grep -q '\"policy\"' '$work/sim.json'"
check "the C example builds with the packaged pkg-config file and header" sh -c \
	"PKG_CONFIG_SYSROOT_DIR='$root' PKG_CONFIG_LIBDIR='$root$LIBDIR/pkgconfig' \
		cc -o '$work/train' '$root/usr/share/doc/libhetsched-report-devel/examples/train.c' \
		\$(PKG_CONFIG_SYSROOT_DIR='$root' PKG_CONFIG_LIBDIR='$root$LIBDIR/pkgconfig' pkg-config --cflags --libs libhetsched-report) &&
	'$work/train' 10 >/dev/null"
# Debian's python3 (a python3 earlier in PATH, e.g. pyenv's, has other paths).
check "python3 imports hetsched_report from the packaged site-packages" sh -c \
	"cd / && PYTHONPATH='$(dirname "$pyfile")' /usr/bin/python3 -c 'import hetsched_report, sys; sys.exit(hetsched_report.__file__ != \"$pyfile\")'"

# --- a cluster of that Slurm whose PluginDir starts with the packaged plugins
HS_CLUSTER=$root/usr/bin/hs-cluster
pdir=$root$PLUGINDIR
tc=$(date +%s)
if it_cluster_up r --slurm-prefix "$prefix" --gpus v100:1:2,k80:1:2 \
	--plugin-dir "$pdir" --sched hetsched --select hetsched_cons_tres \
	--plugstack "required $pdir/spank_hetsched.so publish_interval=2 window=1" \
	--conf-extra 'SchedulerParameters=defer,sched_interval=-1'; then
	ok "packaged hs-cluster brings up a Slurm $slurmver cluster ($(($(date +%s) - tc)) s)"
else
	bail "the cluster did not come up"
fi
log=$R_DIR/log/slurmctld.log
check "PluginDir starts with the packaged plugins" grep -qx "PluginDir=$pdir:$prefix/lib/slurm" "$R_DIR/etc/slurm.conf" ||
	grep '^PluginDir' "$R_DIR/etc/slurm.conf" | diag
check "slurmctld loaded sched/hetsched" grep -q 'sched/hetsched: loaded' "$log"
check "slurmctld loaded select/hetsched_cons_tres" \
	grep -q 'select/hetsched_cons_tres: forwarding every operation to select/cons_tres' "$log"
# The proof that the packaged files are the ones loaded: slurmctld's maps.
ctld=$(for p in $(it_procs_of "$R_DIR"); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmctld ] && echo "$p"; done | head -n 1)
check "slurmctld has the packaged sched_hetsched.so and select_hetsched_cons_tres.so mapped" sh -c \
	"[ -n '$ctld' ] && grep -q ' $pdir/sched_hetsched.so\$' /proc/$ctld/maps &&
	grep -q ' $pdir/select_hetsched_cons_tres.so\$' /proc/$ctld/maps &&
	! grep -E 'hetsched[a-z_]*\.so\$' /proc/$ctld/maps | grep -qv ' $pdir/'"
check "short rounds configured (hetsched.conf)" it_hetsched_conf "$R_DIR" RoundLength=4 MinRoundInterval=1

# --- a plain GPU job, then the packaged emulator measured by spank_hetsched
# shellcheck disable=SC2016 # expanded by the job's shell
j=$(sbatch --parsable -o "$work/job.out" --gres=gpu:1 --wrap 'echo "gpu=$CUDA_VISIBLE_DEVICES"')
it_wait_jobs 120 "$j"
check "an sbatch --gres=gpu:1 job COMPLETED (sacct)" test "$(it_sacct "$j" State)" = COMPLETED ||
	{ cat "$work/job.out"; scontrol show job "$j"; } 2>&1 | diag
check "sched/hetsched started it in a round" sh -c \
	"grep -q 'sched/hetsched: round [0-9]*: ' '$log' && grep -q 'sched/hetsched: started JobId=$j on ' '$log'"
check "it saw one GPU" grep -qx 'gpu=0' "$work/job.out"

table=$root/usr/share/hetsched/gavel/simulation_throughputs.json
model="ResNet-18 (batch size 64)"
scale=10
thr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["k80"]["(%r, 1)" % sys.argv[2]]["null"])' "$table" "$model")
steps=$(python3 -c "print(int($thr * $scale * 5))") # about 5 s
j=$(sbatch --parsable -o "$work/emu.out" --gres=gpu:k80:1 --hs-model="$model" --hs-steps="$steps" \
	--wrap "LD_LIBRARY_PATH=$root$LIBDIR $root/usr/bin/hetsched-emulator --table $table --time-scale $scale")
it_wait_jobs 120 "$j"
check "the packaged emulator job COMPLETED" test "$(it_sacct "$j" State)" = COMPLETED ||
	{ cat "$work/emu.out"; scontrol show job "$j"; } 2>&1 | diag
sacct -j "$j" -X -P -n -o AdminComment%1000 2>/dev/null | tail -n 1 >"$work/record"
diag <"$work/record"
check "its SPANK report reached sacct (k80 throughput, final step)" sh -c \
	"test -n \"\$($HS_AC get thr.k80.sps <'$work/record')\" && test \"\$($HS_AC get step <'$work/record')\" = '$steps'"

# --- leave the machine as it was
it_cleanup
it_clusters=""
check "hs-cluster down" test ! -e "$R_DIR"
echo "# total $(($(date +%s) - t0)) s"
it_done
