#!/bin/bash
# demo.sh — hetsched's main job, from a fresh Debian bookworm machine:
# installs what is missing (contrib/bootstrap.sh), builds, installs the
# plugins into a staging root (make install DESTDIR=...), brings up a local
# heterogeneous Slurm cluster (contrib/cluster/hs-cluster) that loads them,
# submits a sample workload with sbatch (jobs on every GPU type), waits, and
# prints where each job ran: node, GPU type, CUDA_VISIBLE_DEVICES, and
# sacct's record. Exit status 0 when every job completed.
#
# Usage: contrib/demo.sh [options]
#   --dir DIR          cluster directory [/tmp/hetsched-demo]
#   --port-base N      cluster ports N..N+99 [16000]
#   --gpus SPEC        node types, as hs-cluster --gpus [v100:2:4,p100:2:4,k80:2:4]
#   --sched NAME       sched/NAME: hetsched or backfill (to compare) [hetsched]
#   --workload FILE    NAME MODEL GRES SECONDS lines [contrib/demo/workload.txt]
#   --job-cmd SCRIPT   batch script run as SCRIPT MODEL SECONDS [contrib/demo/job.sh]
#   --keep             leave the cluster running (default: tear it down)
#   --no-build         use the existing build in $HETSCHED_BUILD/demo
# Environment: HETSCHED_BUILD (build root, default ./_build).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=/tmp/hetsched-demo
port_base=16000
gpus=v100:2:4,p100:2:4,k80:2:4
sched=hetsched
workload=$top/contrib/demo/workload.txt
job_cmd=$top/contrib/demo/job.sh
keep=0
build=1
while [ $# -gt 0 ]; do
	case "$1" in
	--dir) dir=$2; shift 2 ;;
	--port-base) port_base=$2; shift 2 ;;
	--gpus) gpus=$2; shift 2 ;;
	--sched) sched=$2; shift 2 ;;
	--workload) workload=$2; shift 2 ;;
	--job-cmd) job_cmd=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--no-build) build=0; shift ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "demo.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
say() { echo "== demo: $*" >&2; }
die() { echo "demo.sh: error: $*" >&2; exit 1; }
[ -r "$workload" ] || die "cannot read workload $workload"
[ -r "$job_cmd" ] || die "cannot read job command $job_cmd"
case "$workload" in /*) ;; *) workload=$(pwd)/$workload ;; esac
case "$job_cmd" in /*) ;; *) job_cmd=$(pwd)/$job_cmd ;; esac
bdir=${HETSCHED_BUILD:-$top/_build}/demo
root=$bdir/root
hs_cluster=$top/contrib/cluster/hs-cluster

# 1. Set-up: packages, Slurm source tree, build, install into a staging root.
if [ $build = 1 ]; then
	say "bootstrap (packages, Slurm source tree)"
	slurm_src=$("$top/contrib/bootstrap.sh" | tail -n 1) || die "bootstrap failed"
	say "build in $bdir"
	(cd "$top" && autoreconf -fi >/dev/null 2>&1) || die "autoreconf failed"
	mkdir -p "$bdir"
	if [ ! -f "$bdir/Makefile" ]; then
		(cd "$bdir" && "$top/configure" --with-slurm-source="$slurm_src" >configure.out 2>&1) ||
			die "configure failed, see $bdir/configure.out"
	fi
	(cd "$bdir" && make -j2 >make.out 2>&1) || die "build failed, see $bdir/make.out"
	say "make install DESTDIR=$root"
	rm -rf "$root"
	(cd "$bdir" && make install DESTDIR="$root" >install.out 2>&1) ||
		die "make install failed, see $bdir/install.out"
fi
plugindir=$(sed -n 's/^slurmplugindir = //p' "$bdir/Makefile" 2>/dev/null)
[ -n "$plugindir" ] && [ -f "$root$plugindir/sched_hetsched.so" ] ||
	die "no installed plugins under $root (run without --no-build)"

# 2. The local heterogeneous cluster, loading the installed plugins.
say "bringing up the cluster in $dir (ports $port_base..$((port_base + 99)), sched/$sched)"
env_snippet=$("$hs_cluster" up --dir "$dir" --port-base "$port_base" --gpus "$gpus" \
	--plugin-dir "$root$plugindir" --sched "$sched" --select hetsched_cons_tres \
	--plugstack "required $root$plugindir/spank_hetsched.so") || die "the cluster did not come up"
eval "$env_snippet"
[ $keep = 1 ] || trap '"$hs_cluster" down -q --dir "$dir"; say "cluster stopped and removed"' EXIT
"$hs_cluster" status --dir "$dir" | sed -n '/^NODELIST/,/^$/p'
scontrol show config | grep -E '^(SchedulerType|SelectType|PlugStackConfig) '

# 3. The workload.
out=$dir/demo
mkdir -p "$out"
ids=""
n=0
while read -r name model gres secs; do
	case "$name" in ''|'#'*) continue ;; esac
	id=$(sbatch --parsable -J "$name" --gres="$gres" -o "$out/$name.out" "$job_cmd" "$model" "$secs") ||
		die "sbatch of $name failed"
	ids="$ids${ids:+,}$id"
	n=$((n + 1))
done <"$workload"
say "submitted $n jobs: $ids"

# 4. Wait, with progress.
start=$(date +%s)
while :; do
	left=$(squeue -h -j "$ids" -t PD,R,CG,S -o %T 2>/dev/null)
	pend=$(echo "$left" | grep -c PENDING)
	run=$(echo "$left" | grep -c -E 'RUNNING|COMPLETING|SUSPENDED')
	[ -n "$left" ] || break
	say "$(( $(date +%s) - start ))s: $run running, $pend pending, $((n - run - pend)) done of $n"
	[ $(( $(date +%s) - start )) -lt 600 ] || die "jobs still running after 600 s"
	sleep 5
done
# Accounting is written asynchronously: wait until slurmdbd has every end.
for _ in $(seq 1 30); do
	[ "$(sacct -n -X -P -j "$ids" -o End | grep -vc Unknown)" -ge "$n" ] && break
	sleep 1
done

# 5. The outcome.
echo
echo "Where each job ran (TYPE from sacct's AllocTRES; the job's own view: CUDA_VISIBLE_DEVICES,"
echo "and HS_GPU_TYPE as spank_hetsched set it):"
printf '%-6s %-14s %-11s %-10s %-8s %-5s %-20s %-11s %s\n' JOBID NAME REQUEST STATE NODE TYPE CUDA_VISIBLE_DEVICES HS_GPU_TYPE ELAPSED
failed=0
sacct -n -X -P -j "$ids" -o JobID,JobName,State,NodeList,AllocTRES,Elapsed,ReqTRES |
while IFS='|' read -r id name state node alloc elapsed req; do
	type=$(echo "$alloc" | tr ',' '\n' | sed -n 's/^gres\/gpu:\([^=]*\)=.*/\1/p' | head -n 1)
	want=$(echo "$req" | tr ',' '\n' | sed -n 's/^gres\/\(gpu[^=]*\)=\(.*\)/\1:\2/p' | head -n 1)
	cvd=$(sed -n 's/.*CUDA_VISIBLE_DEVICES=\([^ ]*\).*/\1/p' "$out/$name.out" 2>/dev/null | head -n 1)
	seen=$(sed -n 's/.*HS_GPU_TYPE=\([^ ]*\).*/\1/p' "$out/$name.out" 2>/dev/null | head -n 1)
	printf '%-6s %-14s %-11s %-10s %-8s %-5s %-20s %-11s %s\n' "$id" "$name" "${want:-?}" "$state" "$node" "${type:--}" "${cvd:--}" "${seen:--}" "$elapsed"
done
echo
echo "sacct (slurmdbd + MariaDB):"
sacct -X -j "$ids" -o JobID,JobName%14,State,NodeList%8,AllocTRES%52,Elapsed
done_ok=$(sacct -n -X -P -j "$ids" -o State | grep -c '^COMPLETED$')
types=$(sacct -n -X -P -j "$ids" -o AllocTRES | tr ',' '\n' | sed -n 's/^gres\/gpu:\([^=]*\)=.*/\1/p' | sort | uniq -c |
	awk '{printf "%s%s x%d", sep, $2, $1; sep = ", "}')
echo
echo "$done_ok of $n jobs completed; GPU types used: $types"
[ "$done_ok" = "$n" ] || failed=1
if [ $keep = 1 ]; then
	echo
	echo "The cluster keeps running. Use it with:"
	echo "$env_snippet" | sed 's/^/    /'
	echo "Stop it with: $hs_cluster down --dir $dir"
fi
exit $failed
