#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/schedmd/run.sh — SchedMD's own regression suites (Slurm 22.05's
# testsuite/expect and testsuite/python, local-config mode) on a local
# hs-cluster, once under sched/backfill + select/cons_tres and once under
# our three plugins (sched/hetsched + select/hetsched_cons_tres + the SPANK
# plugin). Too long for CI: its own command (doc/schedmd-tests.md).
#
# Usage (root, from a configured and built build dir):
#   tests/schedmd/run.sh [--sched backfill|hetsched|both] [--out DIR]
#        [--timeout SECS] [--tests FILE] [--no-python] [--no-expect]
#        [--until EPOCH] [--slurm-prefix DIR] [--testsuite DIR]
# --slurm-prefix DIR: run the Slurm installed in DIR (as hs-cluster's
# --slurm-prefix; default $HS_SLURM_PREFIX, empty: the packaged one in
# /usr); its commands go first in PATH, and the source tree defaults to
# /var/cache/hetsched/slurm-VERSION (HS_SLURM_SOURCE overrides).
# --testsuite DIR: the suites (DIR/expect, DIR/python) from DIR instead
# of the source tree's testsuite/ (26.05.3's release tarball ships none:
# export it from SchedMD's git, doc/schedmd-tests.md).
# --tests FILE: expect test names, one a line ('#' starts a comment);
# lines ending in .py name python test files (relative to
# testsuite/python/tests); with none, every python test file runs.
# Writes DIR/results-SCHED.tsv (suite, test, result) per scheduler and,
# when both exist, DIR/schedmd.tsv: suite, test, backfill, hetsched
# (and DIR/schedmd.md, the same as a Markdown table).
# Results: pass, fail, skip, timeout. Each test's log: DIR/SCHED/logs/.
#
# SchedMD's code is never copied into this repository: the suites are
# copied from the Slurm source tree into DIR at run time, where two
# lines are patched so that the harness treats select/hetsched_cons_tres
# as cons_tres (it compares SelectType by name, so every GRES test
# skipped under our wrapper), and pkill is disarmed (the expect library's
# kill_salloc/kill_srun pkill every salloc/srun of the uid, which would
# hit other clusters on a shared machine).
#
# Set-up it makes (idempotent, so re-runs are cheap): an unprivileged
# second user HS_TEST_USER (default hstest, useradd -m only when missing)
# written as testsuite_user in expect/globals.local; the tests run it with
# `sudo -nu USER`, which root may do under Debian's default sudoers; one
# rule is added, /etc/sudoers.d/hetsched-testsuite, keeping SLURM_CONF
# across sudo to that user only (env_reset drops it, and the user's
# salloc/srun then look for a DNS SRV record and fail). The tests add and remove
# that user's association themselves (expect/globals: testsuite_user "is
# expected NOT to be in the DB"), so run.sh does not add one. The python
# suite has no second-user option: it runs everything as the invoking user.
set -u

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=${HS_BUILDDIR:-$(pwd)}
slurm_prefix=${HS_SLURM_PREFIX-} suite=
cluster=$srcdir/contrib/cluster/hs-cluster
stage=$builddir/stage/plugins
which=both out=$builddir/schedmd timeout=300 list=$here/tests.list
do_python=1 do_expect=1 until=0
while [ $# -gt 0 ]; do
	case "$1" in
	--sched) which=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--tests) list=$2; shift 2 ;;
	--no-python) do_python=0; shift ;;
	--no-expect) do_expect=0; shift ;;
	--until) until=$2; shift 2 ;;
	--slurm-prefix) slurm_prefix=${2%/}; shift 2 ;;
	--testsuite) suite=${2%/}; shift 2 ;;
	-h|--help) sed -n '2,45p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
die() { echo "run.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it runs Slurm daemons)"
slurm_dir=/usr
if [ -n "$slurm_prefix" ]; then
	[ -x "$slurm_prefix/sbin/slurmctld" ] || die "--slurm-prefix $slurm_prefix: no sbin/slurmctld there"
	slurm_dir=$slurm_prefix
	# hs-cluster and the suites run this Slurm's commands
	export HS_SLURM_PREFIX=$slurm_prefix PATH=$slurm_prefix/bin:$slurm_prefix/sbin:$PATH
	slurm_src=${HS_SLURM_SOURCE:-/var/cache/hetsched/slurm-$(slurmctld -V | awk '{ print $2 }')}
else
	slurm_src=${HS_SLURM_SOURCE:-/var/cache/hetsched/slurm-wlm-22.05.8-4+deb12u3}
fi
suite=${suite:-$slurm_src/testsuite}
[ -d "$slurm_src" ] || die "no Slurm source tree at $slurm_src (HS_SLURM_SOURCE)"
[ -d "$suite/expect" ] || die "no testsuite/expect in $suite (--testsuite)"
command -v sudo >/dev/null || die "sudo is missing: apt-get install sudo (contrib/bootstrap.sh)"
command -v expect >/dev/null || die "expect is missing: apt-get install expect (contrib/bootstrap.sh)"
/usr/bin/python3 -c 'import pytest' 2>/dev/null ||
	die "pytest is missing: apt-get install python3-pytest (contrib/bootstrap.sh)"
# eight srun/sacctmgr test files import it (they fail to load without)
/usr/bin/python3 -c 'import pexpect' 2>/dev/null ||
	die "pexpect is missing: apt-get install python3-pexpect (contrib/bootstrap.sh)"
case "$which" in backfill|hetsched) scheds=$which ;; both) scheds="backfill hetsched" ;;
*) die "--sched takes backfill, hetsched or both" ;; esac
[ "$which" = backfill ] || [ -f "$stage/sched_hetsched.so" ] || die "no staged plugins in $stage (run make)"
mkdir -p "$out" && out=$(cd "$out" && pwd)
test_user=${HS_TEST_USER:-hstest}
# the second user: created once, with a home (sudo -u starts its shells)
id "$test_user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$test_user" ||
	die "useradd $test_user failed"
sudoers=/etc/sudoers.d/hetsched-testsuite
if ! grep -qs "Defaults>$test_user env_keep += \"SLURM_CONF\"" "$sudoers"; then
	printf '# tests/schedmd/run.sh: the test user needs the cluster config\nDefaults>%s env_keep += "SLURM_CONF"\n' \
		"$test_user" >"$sudoers.tmp" || die "could not write $sudoers.tmp"
	# checked before it goes live: a broken sudoers file disables sudo
	if ! chmod 0440 "$sudoers.tmp" || ! visudo -cqf "$sudoers.tmp" || ! mv "$sudoers.tmp" "$sudoers"; then
		rm -f "$sudoers.tmp"
		die "could not install $sudoers"
	fi
fi
[ "$(SLURM_CONF=/x sudo -nu "$test_user" printenv SLURM_CONF)" = /x ] ||
	die "root cannot sudo -nu $test_user keeping SLURM_CONF (check /etc/sudoers)"

# cluster_opts SCHED: hs-cluster options. Both clusters enforce
# accounting limits (the QOS/limit tests skip without it) and use the
# same nodes; hetsched gets short rounds (tests wait tens of seconds for
# starts) and Slurm's FIFO loop off, as sched_hetsched(8) requires.
# Both preempt by QOS (test34.2 and others skip without it); PreemptMode
# CANCEL is the cluster-wide default, the tests set each QOS's own mode.
cluster_opts() {
	echo --gpus v100:2:4,p100:2:4 --conf-extra AccountingStorageEnforce=associations,limits,qos
	echo --conf-extra PreemptType=preempt/qos --conf-extra PreemptMode=CANCEL
	[ "$1" = hetsched ] && echo --plugin-dir "$stage" --sched hetsched --select hetsched_cons_tres \
		--conf-extra SchedulerParameters=defer,sched_interval=-1
}

# prepare_suite DIR CONF: copy and configure the suites for the cluster.
prepare_suite() {
	local d=$1 conf=$2
	rm -rf "$d/testsuite"
	mkdir -p "$d/testsuite"
	cp -a "$suite/expect" "$suite/python" "$d/testsuite/"
	cat >"$d/testsuite/testsuite.conf" <<EOF
SlurmSourceDir=$slurm_src
SlurmBuildDir=$slurm_src
SlurmInstallDir=$slurm_dir
SlurmConfigDir=$(dirname "$conf")
EOF
	cat >"$d/testsuite/expect/globals.local" <<EOF
set slurm_dir "$slurm_dir"
set build_dir "$slurm_src"
set src_dir "$slurm_src"
set partition "gpu"
set testsuite_shared_dir "$d/testsuite/expect"
set testsuite_cleanup_on_failure false
set testsuite_colorize false
# never pkill by name on a shared machine (see the header of run.sh)
set bin_pkill "/bin/true"
# the unprivileged second user (see the header)
set testsuite_user "$test_user"
EOF
	# our select wrapper is cons_tres underneath (see the header); the $
	# is Tcl's
	# shellcheck disable=SC2016
	sed -i 's|^\(\tset select_type \[get_config_param "SelectType"\]\)$|\1\n\tif {$select_type eq "select/hetsched_cons_tres"} { set select_type "select/cons_tres" }|' \
		"$d/testsuite/expect/globals"
	# (name.lower() up to 22.05, name.casefold() in later suites)
	sed -i 's|^\(    if name.lower() in lower_dict:\)$|    if lower_dict.get("selecttype") == "select/hetsched_cons_tres":\n        lower_dict["selecttype"] = "select/cons_tres"\n\1|' \
		"$d/testsuite/python/lib/atf.py"
	sed -i 's|^\(    if name.casefold() in lower_dict:\)$|    if lower_dict.get("selecttype") == "select/hetsched_cons_tres":\n        lower_dict["selecttype"] = "select/cons_tres"\n\1|' \
		"$d/testsuite/python/lib/atf.py"
	# The 26.05 suite runs admin commands as `sudo -u SlurmUser bash -lc`
	# and skip every test unless `sudo -ln` shows NOPASSWD: ALL. As root
	# (SlurmUser here) that sudo would lose the cluster's SLURM_CONF and,
	# via /etc/profile, a prefix Slurm's PATH: commands run as the
	# invoking user run directly, and root counts as having sudo rights.
	# (No such lines in 22.05's atf.py.)
	sed -i -e 's|^\(        if user is not None\):$|\1 and user != pwd.getpwuid(os.getuid()).pw_name:|' \
		-e "s/^    \"sudo -ln | grep -q '(ALL.\\*) NOPASSWD: ALL'\",\$/    \"[ \$(id -u) = 0 ] || sudo -ln | grep -q '(ALL.*) NOPASSWD: ALL'\",/" \
		"$d/testsuite/python/lib/atf.py"
}

# result_expect RC LOG: pass/fail/skip/timeout of one expect test.
result_expect() {
	[ "$1" = 124 ] || [ "$1" = 137 ] && { echo timeout; return; }
	[ "$1" = 0 ] && { echo pass; return; }
	grep -q 'SKIPPED' "$2" && { echo skip; return; }
	echo fail
}
# result_pytest RC LOG: per file; fail if anything failed.
result_pytest() {
	[ "$1" = 124 ] || [ "$1" = 137 ] && { echo timeout; return; }
	local last
	# the summary line: "1 passed in 3.28s" under -q, "=== ... ===" without
	last=$(grep -E '^(=+ )?([0-9]+ [a-z]+(, )?)+ in [0-9.]+s|no tests ran' "$2" | tail -n 1)
	case "$last" in
	*failed*|*error*) echo fail ;;
	*passed*) echo pass ;;
	*skipped*|*"no tests ran"*) echo skip ;;
	*) echo fail ;;
	esac
}
# list_entries: the list's names, comments and blanks dropped.
list_entries() { sed 's/#.*//; s/^[[:space:]]*//; s/[[:space:]]*$//; /^$/d' "$list"; }
# python_files DIR: the list's .py lines, or every test file under DIR.
python_files() {
	local picked
	picked=$(list_entries | awk '/\.py$/ { print "tests/" $1 }')
	if [ -n "$picked" ]; then echo "$picked"; else (cd "$1" && find tests -name 'test_*.py' | sort); fi
}
time_left() { [ "$until" = 0 ] || [ "$(date +%s)" -lt "$until" ]; }
# isolate TEST: what a test left behind is removed before the next one
# runs, for both schedulers alike: its jobs, partitions other than gpu
# (the default partition again) and reservations. A test that fails
# before its own clean-up otherwise changes every test after it (a
# failed test21.34 left its partition as the default one).
isolate() {
	local p r left=
	squeue -h -o %i | xargs -r scancel 2>/dev/null
	for p in $(scontrol -o show partition 2>/dev/null | sed -n 's/^PartitionName=\([^ ]*\).*/\1/p'); do
		[ "$p" = gpu ] && continue
		scontrol delete partitionname="$p" 2>/dev/null && left="$left partition $p"
	done
	scontrol -o show partition gpu 2>/dev/null | grep -q 'Default=YES' ||
		{ scontrol update partitionname=gpu default=yes 2>/dev/null; left="$left (gpu default again)"; }
	for r in $(scontrol -o show reservation 2>/dev/null | sed -n 's/^ReservationName=\([^ ]*\).*/\1/p'); do
		scontrol delete reservationname="$r" 2>/dev/null && left="$left reservation $r"
	done
	[ -z "$left" ] || echo "run.sh: $1 left behind:$left (removed)"
}

run_one_sched() {
	local s=$1 d=$out/$1 base conf t t0 rc r tsv f
	mkdir -p "$d/logs"
	tsv=$out/results-$s.tsv
	: >"$tsv"
	# different starts per scheduler: two runs side by side must not
	# pick the same free block before either listens on it
	base=$("$cluster" free-ports --port-base "$([ "$s" = backfill ] && echo 26000 || echo 28000)") ||
		die "no free ports"
	# shellcheck disable=SC2046
	"$cluster" up -q --dir "$d/cluster" --port-base "$base" $(cluster_opts "$s") \
		>"$d/cluster-up.log" 2>&1 || { cat "$d/cluster-up.log" >&2; die "$s cluster did not come up"; }
	conf=$d/cluster/etc/slurm.conf
	if [ "$s" = hetsched ]; then
		printf '%s\n' RoundLength=15 MinRoundInterval=1 >"$d/cluster/etc/hetsched.conf"
		SLURM_CONF=$conf scontrol reconfigure
	fi
	prepare_suite "$d" "$conf"
	export SLURM_CONF=$conf SLURM_TESTSUITE_CONF=$d/testsuite/testsuite.conf
	export SLURM_LOCAL_GLOBALS_FILE=$d/testsuite/expect/globals.local
	# python first: its files take seconds each, so an --until cut-off
	# falls on the (longer) expect tests
	if [ $do_python = 1 ]; then
		for f in $(python_files "$d/testsuite/python"); do
			t=${f#tests/}
			time_left || { printf 'python\t%s\tnot-run\n' "$t" >>"$tsv"; continue; }
			t0=$SECONDS
			(cd "$d/testsuite/python" && timeout -k 10 "$timeout" /usr/bin/python3 -m pytest \
				-p no:cacheprovider -q -rA "$f" >"$d/logs/${t//\//_}.log" 2>&1 </dev/null)
			rc=$?
			r=$(result_pytest $rc "$d/logs/${t//\//_}.log")
			printf 'python\t%s\t%s\n' "$t" "$r" >>"$tsv"
			echo "run.sh: $s python $t: $r ($((SECONDS - t0)) s, load $(cut -d' ' -f1 /proc/loadavg))"
			isolate "$t"
		done
	fi
	if [ $do_expect = 1 ]; then
		for t in $(list_entries | grep -v '\.py$'); do
			time_left || { printf 'expect\t%s\tnot-run\n' "$t" >>"$tsv"; continue; }
			t0=$SECONDS
			(cd "$d/testsuite/expect" && timeout -k 10 "$timeout" expect -f "$t" \
				>"$d/logs/$t.log" 2>&1 </dev/null)
			rc=$?
			r=$(result_expect $rc "$d/logs/$t.log")
			printf 'expect\t%s\t%s\n' "$t" "$r" >>"$tsv"
			echo "run.sh: $s expect $t: $r ($((SECONDS - t0)) s, load $(cut -d' ' -f1 /proc/loadavg))"
			isolate "$t"
		done
	fi
	cp "$d/cluster/log/slurmctld.log" "$d/slurmctld.log" 2>/dev/null
	"$cluster" down -q --dir "$d/cluster" >/dev/null 2>&1
}

for s in $scheds; do run_one_sched "$s"; done
# the side-by-side table, when both runs are there
if [ -f "$out/results-backfill.tsv" ] && [ -f "$out/results-hetsched.tsv" ]; then
	{
		printf 'suite\ttest\tbackfill\thetsched\n'
		awk -F'\t' 'NR == FNR { b[$1 FS $2] = $3; next }
			{ k = $1 FS $2; print k "\t" (k in b ? b[k] : "not-run") "\t" $3; delete b[k] }
			END { for (k in b) print k "\t" b[k] "\tnot-run" }' \
			"$out/results-backfill.tsv" "$out/results-hetsched.tsv"
	} >"$out/schedmd.tsv"
	for col in 3 4; do
		awk -F'\t' -v c=$col 'NR > 1 { n[$c]++ } END { printf "%s:", (c == 3 ? "backfill" : "hetsched"); for (r in n) printf " %s %d", r, n[r]; print "" }' "$out/schedmd.tsv"
	done
	# the same as a Markdown table for doc/schedmd-tests.md, with the
	# list's topic comments
	{
		printf '| suite | test | topic | backfill | hetsched |\n|---|---|---|---|---|\n'
		awk -F'\t' 'NR == FNR { n = $0; sub(/[[:space:]]*#.*/, "", n); sub(/^[[:space:]]+/, "", n)
				if (n != "" && index($0, "#")) { c = $0; sub(/^[^#]*#[[:space:]]*/, "", c); topic[n] = c }
				next }
			FNR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $2, ($2 in topic ? topic[$2] : ""), $3, $4 }' \
			"$list" "$out/schedmd.tsv"
	} >"$out/schedmd.md"
	echo "run.sh: table in $out/schedmd.tsv and $out/schedmd.md"
fi
