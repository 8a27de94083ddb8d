#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deb_smoke.sh — CI smoke test of the Debian packages: builds them with
# dpkg-buildpackage from a copy of this source tree, installs them with apt
# on this machine (its packaged Slurm 22.05), checks what they installed,
# brings up a local cluster with the INSTALLED hs-cluster whose PluginDir is
# only Slurm's default one (so the installed plugins are what loads), and
# checks that sched/hetsched and select/hetsched_cons_tres load, that an
# emulator job (installed hetsched-emulator, installed Gavel table) runs
# through a hetsched round and its SPANK throughput report reaches sacct;
# then takes the cluster down and purges the packages, leaving the machine
# as it was. TAP output; times on "# " lines.
#
# Usage: tests/deb/deb_smoke.sh [--debs DIR]   (run as root)
#   --debs DIR   install the .deb files in DIR instead of building them
# Environment: HS_DEB_BUILD_OPTIONS (DEB_BUILD_OPTIONS of the build,
#   default "nocheck noautodbgsym parallel=2": contrib/test.sh runs the
#   unit tests elsewhere), HETSCHED_SLURM_SOURCE (see debian/README.source),
#   HS_KEEP_CLUSTERS=1 (keep the cluster for debugging; packages are
#   purged all the same).
set -u
HS_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
debs=
while [ $# -gt 0 ]; do
	case "$1" in
	--debs) debs=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	-h|--help) sed -n '3,21p' "$0"; exit 0 ;;
	*) echo "deb_smoke.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done

PKGS="slurm-wlm-hetsched-plugins hetsched libhetsched-report0 libhetsched-report-dev python3-hetsched"
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PLUGINDIR=/usr/lib/$MA/slurm-wlm
PLUGINS="sched_hetsched.so select_hetsched_cons_tres.so spank_hetsched.so"
TABLE=/usr/share/hetsched/gavel/simulation_throughputs.json

work=$(mktemp -d /tmp/hs-deb-smoke.XXXXXX) || exit 1
# lib.sh: TAP helpers (check, ok, nok), clusters (it_cluster_up, which runs
# $HS_CLUSTER, set to the installed one below), it_wait_jobs, it_sacct,
# it_hetsched_conf. HS_BUILDDIR only seeds its port-block choice.
HS_BUILDDIR=$work
. "$HS_SRCDIR/tests/integration/lib.sh"
HS_CLUSTER=/usr/bin/hs-cluster
HS_AC="python3 $HS_SRCDIR/tests/integration/hs_admincomment.py"
t0=$(date +%s)
installed=0

finish() {
	it_cleanup
	if [ $installed = 1 ]; then
		# shellcheck disable=SC2086
		dpkg --purge $PKGS >"$work/purge.out" 2>&1 || diag <"$work/purge.out"
	fi
	rm -rf "$work"
}

[ "$(id -u)" = 0 ] || bail "deb_smoke.sh installs packages: run it as root"
# dpkg state is machine-wide: one smoke test at a time.
exec 8>/run/lock/hetsched-deb-smoke.lock
flock 8
trap finish EXIT
echo "# Debian packages: build, install, plugins on a local cluster, purge"

# The machine must not have our packages or stray plugin files already:
# installing would take them over and the purge would remove them.
for p in $PKGS; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
		bail "$p is already installed; this test would remove it (dpkg --purge $p first)"
	fi
done
for f in $PLUGINS; do
	[ ! -e "$PLUGINDIR/$f" ] || bail "$PLUGINDIR/$f exists (make install?); this test would remove it"
done

# --- build
if [ -z "$debs" ]; then
	src=$work/hetsched
	mkdir -p "$src"
	# A copy of the tree (dpkg-buildpackage writes the .debs into the parent
	# directory and debian/ build dirs into the tree): the files git knows,
	# including uncommitted changes, or everything but _build outside git.
	if git -C "$HS_SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$HS_SRCDIR" ls-files -co --exclude-standard -z |
			(cd "$HS_SRCDIR" && tar --null -T - -cf -) | tar -xf - -C "$src"
	else
		tar -C "$HS_SRCDIR" --exclude=./_build -cf - . | tar -xf - -C "$src"
	fi
	tb=$(date +%s)
	if (cd "$src" && DEB_BUILD_OPTIONS=${HS_DEB_BUILD_OPTIONS:-nocheck noautodbgsym parallel=2} \
		dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1); then
		ok "dpkg-buildpackage -us -uc -b ($(($(date +%s) - tb)) s)"
	else
		tail -n 40 "$work/build.log" | diag
		bail "dpkg-buildpackage failed"
	fi
	debs=$work
fi
n=0
for p in $PKGS; do
	ls "$debs/${p}_"*.deb >/dev/null 2>&1 && n=$((n + 1))
done
check "the five packages are there" test $n = 5 || bail "missing packages in $debs"

# --- install (apt resolves the dependencies from the archive)
ti=$(date +%s)
list=""
for p in $PKGS; do list="$list $(ls "$debs/${p}_"*.deb | tail -n 1)"; done
installed=1
# shellcheck disable=SC2086
if env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-o DPkg::Lock::Timeout=300 $list >"$work/install.out" 2>&1; then
	ok "apt-get install of the five packages ($(($(date +%s) - ti)) s)"
else
	tail -n 20 "$work/install.out" | diag
	bail "apt-get install failed"
fi

slurmver=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins)
check "plugins depend on exactly the installed Slurm ($slurmver)" sh -c \
	"dpkg-query -W -f='\${Depends}' slurm-wlm-hetsched-plugins | grep -qF 'slurm-wlm-basic-plugins (= $slurmver)'"
owned=0
for f in $PLUGINS; do
	[ "$(dpkg -S "$PLUGINDIR/$f" 2>/dev/null | cut -d: -f1)" = slurm-wlm-hetsched-plugins ] && owned=$((owned + 1))
done
check "the three plugins are in Slurm's PluginDir $PLUGINDIR" test $owned = 3
check "example snippets under /usr/share/doc/slurm-wlm-hetsched-plugins/examples" \
	grep -qx "required $PLUGINDIR/spank_hetsched.so" /usr/share/doc/slurm-wlm-hetsched-plugins/examples/plugstack.conf.hetsched
check "hetsched simulate reads the installed Gavel table by default" sh -c \
	"cd / && hetsched simulate --policy max_min_fairness_perf --cluster v100:1,k80:1 --generate --rate 0 --jobs 3 --seed 0 >'$work/sim.json' 2>&1 && grep -q '\"policy\"' '$work/sim.json'"
check "the man pages are installed" sh -c "{ man -w hetsched-simulate && man -w sched_hetsched && man -w 3 hetsched_report; } >/dev/null"
# Debian's python3 (a python3 earlier in PATH, e.g. pyenv's, has other paths).
check "python3 imports hetsched_report from python3-hetsched" sh -c \
	"cd / && /usr/bin/python3 -c 'import hetsched_report, sys; sys.exit(not hetsched_report.__file__.startswith(\"/usr/lib/python3/dist-packages/\"))'"
check "the C example builds with pkg-config libhetsched-report" sh -c \
	"cc -o '$work/train' /usr/share/doc/libhetsched-report-dev/examples/train.c \$(pkg-config --cflags --libs libhetsched-report) && test -x '$work/train'"

# --- a cluster that loads the installed plugins
tc=$(date +%s)
if it_cluster_up d --gpus v100:1:2,k80:1:2 --sched hetsched --select hetsched_cons_tres \
	--plugstack "required $PLUGINDIR/spank_hetsched.so publish_interval=2 window=1" \
	--conf-extra 'SchedulerParameters=defer,sched_interval=-1'; then
	ok "installed hs-cluster brings up a cluster ($(($(date +%s) - tc)) s)"
else
	bail "the cluster did not come up"
fi
log=$D_DIR/log/slurmctld.log
check "PluginDir is Slurm's default one only" grep -qx "PluginDir=$PLUGINDIR" "$D_DIR/etc/slurm.conf"
check "slurmctld loaded sched/hetsched" grep -q 'sched/hetsched: loaded' "$log"
check "slurmctld loaded select/hetsched_cons_tres" \
	grep -q 'select/hetsched_cons_tres: forwarding every operation to select/cons_tres' "$log"
check "short rounds configured (hetsched.conf)" it_hetsched_conf "$D_DIR" RoundLength=4 MinRoundInterval=1

# --- an emulator job: started by a round, measured by spank_hetsched
model="ResNet-18 (batch size 64)"
scale=10
thr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["k80"]["(%r, 1)" % sys.argv[2]]["null"])' "$TABLE" "$model")
steps=$(python3 -c "print(int($thr * $scale * 5))") # about 5 s
j=$(sbatch --parsable -o "$work/emu.out" --gres=gpu:k80:1 --hs-model="$model" --hs-steps="$steps" \
	--wrap "/usr/bin/hetsched-emulator --table $TABLE --time-scale $scale")
it_wait_jobs 120 "$j"
check "the emulator job COMPLETED" test "$(it_sacct "$j" State)" = COMPLETED ||
	{ cat "$work/emu.out"; scontrol show job "$j"; } 2>&1 | diag
check "a hetsched round ran" grep -q 'sched/hetsched: round [0-9]*: ' "$log"
check "sched/hetsched started the job" grep -q "sched/hetsched: started JobId=$j on k80-1" "$log"
sacct -j "$j" -X -P -n -o AdminComment%1000 2>/dev/null | tail -n 1 >"$work/record"
diag <"$work/record"
check "the SPANK report reached sacct (k80 throughput, final step)" sh -c \
	"test -n \"\$($HS_AC get thr.k80.sps <'$work/record')\" && test \"\$($HS_AC get step <'$work/record')\" = '$steps'"

# --- leave the machine as it was
it_cleanup
it_clusters=""
check "hs-cluster down" test ! -e "$D_DIR"
# shellcheck disable=SC2086
check "dpkg --purge of the five packages" sh -c "dpkg --purge $PKGS >'$work/purge.out' 2>&1" ||
	diag <"$work/purge.out"
installed=0
left=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed' && left="$left $p"
done
for f in $PLUGINS; do [ ! -e "$PLUGINDIR/$f" ] || left="$left $f"; done
[ ! -e /usr/bin/hetsched ] || left="$left hetsched"
[ ! -e /usr/share/hetsched ] || left="$left /usr/share/hetsched"
check "nothing of the packages is left" test -z "$left"
[ -z "$left" ] || echo "# left:$left"
echo "# total $(($(date +%s) - t0)) s"
it_done
