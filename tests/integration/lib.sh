# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh — sourced by every integration test (tests/integration/*.sh):
# TAP helpers, the HETSCHED_INTEGRATION gate, and private local clusters.
#
# How tests get clusters: each test brings up the cluster(s) it needs with
# it_cluster_up (a fresh directory under /tmp and a block of 100 ports that
# nobody listens on, reserved for the test: it_port_reserve), and they are
# torn down when the test exits (HS_KEEP_CLUSTERS=1 keeps them for
# debugging). Our plugins come from the build's staging dir
# ($HS_BUILDDIR/stage/plugins, filled by every `make`).
#
# How tests share the machine (it_lock): clusters of different tests have
# nothing in common (directory, ports, munge, database, job ids are all
# per cluster), so the integration tests of one build dir run side by
# side, up to HS_IT_JOBS at a time (default 4; `make -jN check` starts
# them). Tests whose checks depend on how fast things happen on the
# machine (rates, JCT ratios, fractions of wall time, kills timed against
# slurmctld's state saves) are in the exclusive class (it_exclusive below)
# and run alone. HS_IT_JOBS=1 runs every test alone, as before. Adding a
# test needs no Makefile ordering; local.mk lists the exclusive ones last.
#
# Usage in a test:
#   . "$HS_SRCDIR/tests/integration/lib.sh"
#   it_begin "what this test proves"
#   it_cluster_up c1 --sched hetsched ...   # sets C1_DIR, exports SLURM_CONF
#   check "description" command args...
#   it_done                                 # prints the trailing plan
# shellcheck shell=bash

HS_SRCDIR=${HS_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
HS_BUILDDIR=${HS_BUILDDIR:-$(pwd)}
HS_CLUSTER=$HS_SRCDIR/contrib/cluster/hs-cluster
HS_STAGE=$HS_BUILDDIR/stage/plugins
# The Slurm the clusters run: HS_SLURM_PREFIX (make check passes the
# build's --with-slurm-prefix), empty for the packaged one. hs-cluster reads
# it from the environment; the tests' own sbatch, squeue ... must be the
# same version, so its commands come first on PATH.
if [ -n "${HS_SLURM_PREFIX:-}" ]; then
	export HS_SLURM_PREFIX
	export PATH="$HS_SLURM_PREFIX/bin:$HS_SLURM_PREFIX/sbin:$PATH"
fi
it_n=0
it_failed=0
it_clusters=""
# Where a test's time goes (microseconds, from $EPOCHREALTIME), printed as
# a comment when it exits: waiting for its turn, bringing clusters up and
# down (it_cleanup), and the whole run.
it_us() { echo "${EPOCHREALTIME/[.,]/}"; }
it_t_begin=$(it_us) it_t_turn="" it_us_up=0 it_n_up=0

ok() { it_n=$((it_n + 1)); echo "ok $it_n - $1"; }
nok() { it_n=$((it_n + 1)); it_failed=$((it_failed + 1)); echo "not ok $it_n - $1"; }
diag() { sed 's/^/# /'; }
# check DESC CMD...: one test point, ok when CMD succeeds; returns its status.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else nok "$desc"; return 1; fi
}
# quiet CMD...: CMD without its output (for check).
quiet() { "$@" >/dev/null 2>&1; }
# skip DESC WHY: a test point that does not apply here (TAP "# SKIP").
skip() { it_n=$((it_n + 1)); echo "ok $it_n - $1 # SKIP $2"; }
# it_slurm_series: the Slurm the clusters run, as YYMM (2205, 2605).
it_slurm_series() {
	slurmctld -V 2>/dev/null | awk '{ split($2, v, "."); printf "%d%02d\n", v[1], v[2] }'
}
# bail DESC: a failure that makes the rest meaningless (e.g. no cluster).
bail() {
	echo "Bail out! $1"
	exit 1
}

# it_exclusive: the tests (script names without .sh) that run alone, and
# why: soak (soak_short.sh runs tests/soak/soak.sh): SIGKILLs timed
# against slurmctld's 5 s state-save window; pack_e2e: the measured JCT
# ratio against the simulator's within a tolerance; sched_policy: the time
# each job received per GPU type, as fractions of wall time, within 0.12;
# pytorch_job: real training on the CPU (the CPU-heaviest test), its
# measured rate against its own clock; sched_lease: early rounds counted
# in 24 s of wall time and run lengths against the lease; spank_ckpt: it
# must signal four jobs of fixed length (about 30 s) before they end,
# after waiting for a report from each (with six tests beside it, on a
# busy machine, it was too late). Every other test waits for events (a
# state, a log line, a number of rounds) with generous timeouts, which
# side-by-side clusters only make slower. The one other race with a job's
# length: pack_pair's second partner must be refused while B (20 s) still
# runs; it was not once, with six tests side by side, next to other
# engineers' work (load average up to 12) and half a second of CPU per
# python3 call (see it_python). doc/ci-time.md has the runs.
it_exclusive=" soak pack_e2e sched_policy spank_ckpt pytorch_job sched_lease "

# it_lock NAME: wait for this test's turn. Build-dir locks: an exclusive
# test (NAME in it_exclusive) takes .integration.lock exclusively; any
# other test takes it shared, then one of HS_IT_JOBS slot locks
# (.integration.slot.K). Locks are held through fds 6 and 7 until the
# test's shell exits; hs-cluster's daemons do not inherit them.
it_lock() {
	local k n=${HS_IT_JOBS:-4}
	case "$n" in '' | *[!0-9]*) n=4 ;; esac
	[ "$n" -ge 1 ] || n=1
	exec 7>"$HS_BUILDDIR/.integration.lock"
	case "$it_exclusive" in
	*" $1 "*)
		flock -x 7
		echo "# $1 runs alone (exclusive class, see it_exclusive in lib.sh)"
		return 0
		;;
	esac
	flock -s 7
	while :; do
		for k in $(seq 1 "$n"); do
			exec 6>"$HS_BUILDDIR/.integration.slot.$k"
			flock -n 6 && return 0
		done
		exec 6>&-
		sleep 1
	done
}

# it_python: python3 in the test's own commands is Debian's
# (/usr/bin/python3, with the packages contrib/bootstrap.sh installs), not
# whatever comes first on PATH: a pyenv shim there costs half a second of
# CPU per call, and tests call python3 in their wait loops, several tests
# at a time. A function, so only the test's own calls: jobs keep the
# python3 on PATH, whose packages change what they do (doc/examples/
# train.py trains with PyTorch where that is installed, much faster than
# its stand-in, which sleeps 10 ms per step: spank_ckpt's Python job then
# ended before it could be signalled), and so does `sh -c`.
it_python() {
	[ -x /usr/bin/python3 ] || return 0
	python3() { /usr/bin/python3 "$@"; }
}

# it_begin DESC: skip unless asked for, then wait for this test's turn.
it_begin() {
	if [ "${HETSCHED_INTEGRATION:-0}" != 1 ]; then
		echo "1..0 # SKIP integration tests run only with HETSCHED_INTEGRATION=1 ($1)"
		exit 0
	fi
	[ "$(id -u)" = 0 ] || bail "integration tests need root (they run Slurm daemons)"
	[ -d "$HS_STAGE" ] || bail "no staged plugins in $HS_STAGE (run make first)"
	it_lock "$(basename "$0" .sh)"
	it_python
	it_t_turn=$(it_us)
	trap it_cleanup EXIT
	echo "# $1"
}

# it_done: the trailing plan. Exit status stays 0: failed points are
# counted from their "not ok" lines (a non-zero status would count once more).
it_done() {
	echo "1..$it_n"
	[ "$it_failed" = 0 ] || echo "# $it_failed of $it_n failed"
}

it_cleanup() {
	local d t0
	t0=$(it_us)
	for d in $it_clusters; do
		if [ "${HS_KEEP_CLUSTERS:-0}" = 1 ]; then
			echo "# kept cluster $d (HS_KEEP_CLUSTERS=1)"
		else
			"$HS_CLUSTER" down -q --dir "$d" >/dev/null 2>&1
		fi
	done
	[ -z "$it_t_turn" ] || awk -v b="$it_t_begin" -v t="$it_t_turn" -v c="$t0" -v e="$(it_us)" \
		-v u="$it_us_up" -v n="$it_n_up" 'BEGIN { printf "# time: %.1f s waiting for its turn, " \
		"%.1f s run: %.1f s bringing %d cluster(s) up, %.1f s tearing down\n",
		(t - b) / 1e6, (e - t) / 1e6, u / 1e6, n, (e - c) / 1e6 }'
}

# it_port_reserve NAME: sets it_port to a block of 100 ports nobody
# listens on (hs-cluster free-ports) and reserves it until this test's
# shell exits: a lock file per block in $it_port_locks, machine-wide, so
# that tests running side by side (of this build dir or another) never
# pick the same free block before either of them listens on it. The search
# starts from a base derived from the build dir and NAME (so different
# worktrees rarely even try the same blocks), then from 17000.
it_port_locks=/run/lock/hs-it-ports
it_port_reserve() {
	local h start base fd
	h=$(printf '%s:%s' "$HS_BUILDDIR" "$1" | cksum | cut -d' ' -f1)
	mkdir -p "$it_port_locks" || return 1
	for start in $((20000 + (h % 120) * 100)) 17000; do
		base=$start
		while base=$("$HS_CLUSTER" free-ports --port-base "$base" 2>/dev/null); do
			exec {fd}>"$it_port_locks/$base.lock" || return 1
			if flock -n "$fd"; then
				it_port=$base
				return 0
			fi
			exec {fd}>&-
			base=$((base + 100))
		done
	done
	return 1
}

# it_cluster_up NAME [hs-cluster options]: bring up cluster NAME in a fresh
# directory; sets ${NAME^^}_DIR and ${NAME^^}_PORT, exports SLURM_CONF to it.
# Options may override --gpus etc.; --dir and --port-base are chosen here.
it_cluster_up() {
	local name=$1 dir base var t0 rc
	shift
	var=$(echo "$name" | tr '[:lower:]' '[:upper:]')
	dir=$(mktemp -d /tmp/hs-it-"$name".XXXXXX) || bail "mktemp failed"
	it_port_reserve "$name" || bail "no free port block found"
	base=$it_port
	it_clusters="$it_clusters $dir"
	t0=$(it_us)
	"$HS_CLUSTER" up -q --dir "$dir" --port-base "$base" "$@" >"$dir.up.out" 2>&1
	rc=$?
	it_us_up=$((it_us_up + $(it_us) - t0)) it_n_up=$((it_n_up + 1))
	if [ $rc != 0 ]; then
		diag <"$dir.up.out"
		rm -f "$dir.up.out"
		return 1
	fi
	rm -f "$dir.up.out"
	eval "${var}_DIR=\$dir ${var}_PORT=\$base"
	export SLURM_CONF=$dir/etc/slurm.conf
}

# it_use NAME: point the Slurm commands at cluster NAME.
it_use() {
	local var
	var=$(echo "$1" | tr '[:lower:]' '[:upper:]')_DIR
	export SLURM_CONF=${!var}/etc/slurm.conf
}

# it_plugin_opts: hs-cluster options that load all three hetsched plugins.
it_plugin_opts() {
	echo "--plugin-dir $HS_STAGE --sched hetsched --select hetsched_cons_tres"
}
it_plugstack_line() { echo "required $HS_STAGE/spank_hetsched.so"; }

# it_hetsched_conf DIR KEY=VALUE...: writes DIR/etc/hetsched.conf (beside
# slurm.conf) and has slurmctld re-read it; waits until sched/hetsched
# logged the new configuration.
it_hetsched_conf() {
	local dir=$1 n end
	shift
	printf '%s\n' "$@" >"$dir/etc/hetsched.conf"
	n=$(grep -c 'sched/hetsched: configuration:' "$dir/log/slurmctld.log")
	scontrol reconfigure || return 1
	end=$(($(date +%s) + 30))
	while [ "$(grep -c 'sched/hetsched: configuration:' "$dir/log/slurmctld.log")" -le "$n" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

# it_user NAME: make sure the local Unix user NAME exists (no home, group
# users), for tests that need a second, unprivileged user. Not "nobody":
# from 25.11 Slurm refuses `--uid=nobody` (uid_from_string answers
# SLURM_AUTH_NOBODY for that name), and a real site's users are not it.
it_user() {
	id "$1" >/dev/null 2>&1 || useradd -M -N -s /bin/sh "$1" >/dev/null 2>&1 || id "$1" >/dev/null 2>&1
}

# it_procs_of DIR: pids of processes of the cluster in DIR: its daemons
# (marked HS_CLUSTER_DAEMON=DIR by hs-cluster), its slurmstepds (they hold
# a log file of DIR/log open: from 25.11 a slurmstepd's environment is
# overwritten by its process title, so the mark is gone) and its job tasks
# (SLURM_CONF=DIR/etc/slurm.conf together with SLURM_JOB_ID).
it_procs_of() {
	local p
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = $$ ] && continue
		{ { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | awk -v d="$1" '
			$0 == "HS_CLUSTER_DAEMON=" d { m = 1 }
			$0 == "SLURM_CONF=" d "/etc/slurm.conf" { c = 1 }
			/^SLURM_JOB_ID=/ { j = 1 }
			END { exit !(m || (c && j)) }' ||
			find "$p/fd" -maxdepth 1 -lname "$1/log/*" 2>/dev/null | grep -q .; } &&
			echo "${p#/proc/}"
	done
}

# it_node_die DIR NODE: NODE of the cluster in DIR dies at one instant, as
# a crashed machine does: its slurmd, its slurmstepds and every process of
# its jobs are SIGSTOPped together (tests/soak/soak_procs.py freeze), then
# SIGKILLed. Nothing of the node reports anything, so what happens to its
# jobs is Slurm's node-failure path (requeue or NODE_FAIL) once slurmctld
# finds the node not responding, or an admin marks it down. Prints the
# pids killed besides slurmd.
it_node_die() {
	local slurmd stopped
	slurmd=$(tr -dc 0-9 <"$1/run/slurmd-$2.pid")
	[ -n "$slurmd" ] || return 1
	stopped=$(python3 "$HS_SRCDIR/tests/soak/soak_procs.py" freeze "$1" "$2" "$slurmd")
	# shellcheck disable=SC2086 # one pid per word
	kill -KILL "$slurmd" $stopped 2>/dev/null
	echo "$stopped"
}

# it_sacct JOBID FIELD: FIELD of the job's allocation record from sacct,
# waiting up to 30 s for slurmdbd to have it (accounting is asynchronous,
# and a loaded machine makes sacct slow).
it_sacct() {
	local v i
	for i in $(seq 1 30); do
		v=$(sacct -n -X -P -o "$2" -j "$1" 2>/dev/null | head -n 1)
		[ -n "$v" ] && { echo "$v"; return 0; }
		sleep 1
	done
	return 1
}

# it_state_final STATE: STATE (sacct or scontrol spelling) is one a job
# never leaves by itself: an explicit list, so that an empty, unknown or
# transient state never reads as "finished".
it_state_final() {
	case "$1" in
	COMPLETED | FAILED | CANCELLED | "CANCELLED by "* | TIMEOUT | NODE_FAIL | \
		OUT_OF_MEMORY | PREEMPTED | BOOT_FAIL | DEADLINE) return 0 ;;
	*) return 1 ;;
	esac
}

# it_ctld_state JOBID: slurmctld's state of the job (scontrol), "gone"
# once it purged the job, "?" when it did not answer.
it_ctld_state() {
	local c
	c=$(scontrol -o show job "$1" 2>&1)
	case "$c" in
	*" JobState="*) c=${c#* JobState=}; echo "${c%% *}" ;;
	*"Invalid job id"*) echo gone ;;
	*) echo "?" ;;
	esac
}

# it_wait_jobs SECS JOBID...: wait until every job has ended: sacct has
# its allocation record in a final state (it_state_final) AND slurmctld no
# longer has it active (final state, or purged). Accounting is
# asynchronous: sacct may have no row for a job yet, or slurmdbd's
# placeholder row (JobName "allocation", no partition, PENDING: written
# when a step or completion record arrives before the job's own start
# record, which later overwrites it), so anything but an explicit final
# state means "not yet". (The old test, "no pending/running row" from one
# sacct call and "a row per job" from a second one, returned when the job's
# first row appeared between the two calls.) One sacct query per round,
# scontrol only for jobs sacct has final. Fails on timeout, saying on
# stderr which jobs were still not done.
it_wait_jobs() {
	local secs=$1 end ids acct j a c left
	shift
	ids=$(echo "$@" | tr ' ' ',')
	end=$(($(date +%s) + secs))
	while :; do
		left=""
		acct=$(sacct -n -X -P -o JobIDRaw,State -j "$ids" 2>/dev/null)
		for j in "$@"; do
			a=$(echo "$acct" | awk -F'|' -v j="$j" '$1 == j { s = $2 } END { print s }')
			if it_state_final "$a"; then
				c=$(it_ctld_state "$j")
				[ "$c" = gone ] || it_state_final "$c" || left="$left $j:$a/$c"
			else
				left="$left $j:${a:-none}"
			fi
		done
		[ -z "$left" ] && return 0
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "# it_wait_jobs: not done after ${secs} s (job:sacct[/slurmctld]):$left" >&2
			return 1
		fi
		sleep 1
	done
}
