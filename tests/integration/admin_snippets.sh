#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# admin_snippets.sh — what an admin does, on a private cluster: `make
# install DESTDIR=...`, then the installed etc/ snippets (slurm.conf and
# plugstack.conf lines) loading the installed plugins. Proves the snippets
# are valid and complete and that the installed plugins (not the staged
# ones) load and run a GPU job. TAP output.
. "${HS_SRCDIR:-$(dirname "$0")/../..}/tests/integration/lib.sh"
it_begin "make install DESTDIR + the etc/ snippets load the plugins"

root=$(mktemp -d /tmp/hs-it-destdir.XXXXXX)
trap 'it_cleanup; rm -rf "$root"' EXIT
make -C "$HS_BUILDDIR" install DESTDIR="$root" >"$root.log" 2>&1
check "make install DESTDIR=... succeeds" test $? -eq 0 || diag <"$root.log"
rm -f "$root.log"

snip_conf=$(find "$root" -name slurm.conf.hetsched | head -n 1)
snip_plug=$(find "$root" -name plugstack.conf.hetsched | head -n 1)
check "slurm.conf and plugstack.conf snippets installed" test -f "$snip_conf" -a -f "$snip_plug"
check "gres.conf snippet installed" test -n "$(find "$root" -name gres.conf.hetsched)"
plugdir=$(sed -n 's|^required \(.*\)/spank_hetsched\.so$|\1|p' "$snip_plug")
for p in sched_hetsched select_hetsched_cons_tres spank_hetsched; do
	check "$p.so installed into the snippet's plugin dir" test -f "$root$plugdir/$p.so"
done
check "no libtool .la files among the installed plugins" test -z "$(find "$root$plugdir" -name '*.la')"

# Active (non-comment) slurm.conf lines of the snippet, as the admin adds them.
extra=()
while IFS= read -r line; do
	extra+=(--conf-extra "$line")
done < <(grep -Ev '^[[:space:]]*(#|$)' "$snip_conf")
check "the slurm.conf snippet sets SchedulerType and SelectType" \
	test "$(printf '%s\n' "${extra[@]}" | grep -cE '^(SchedulerType|SelectType)=')" -eq 2

it_cluster_up adm --plugin-dir "$root$plugdir" "${extra[@]}" \
	--plugstack "$(sed -n "s|^required |required $root|p" "$snip_plug")" ||
	bail "cluster configured from the snippets did not come up"
conf=$(scontrol show config)
check "SchedulerType from the snippet" grep -Eq '^SchedulerType += sched/hetsched$' <<<"$conf"
check "SelectType from the snippet" grep -Eq '^SelectType += select/hetsched_cons_tres$' <<<"$conf"
check "SelectTypeParameters from the snippet" grep -Eq '^SelectTypeParameters += CR_CORE_MEMORY$' <<<"$conf"
check "slurmctld loaded the installed sched plugin" grep -q 'sched/hetsched: loaded' "$ADM_DIR/log/slurmctld.log"
j=$(sbatch --parsable -o "$ADM_DIR/tmp/j.out" --mem=100 --gres=gpu:p100:1 --wrap 'echo "$CUDA_VISIBLE_DEVICES"')
check "a GPU job runs" it_wait_jobs 60 "$j"
check "the job saw one GPU" grep -qx '[0-9]' "$ADM_DIR/tmp/j.out"
check "slurmstepd loaded the installed SPANK plugin" grep -q "\[$j.batch\] spank/hetsched: loaded in remote" "$ADM_DIR/log/slurmd-p100-1.log"
check "sacct records the per-type GPU TRES listed in the snippet" \
	sh -c "sacct -n -X -P -o AllocTRES -j $j | grep -q 'gres/gpu:p100=1'"
it_done
