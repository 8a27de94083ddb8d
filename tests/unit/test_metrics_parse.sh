#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test_metrics_parse.sh — `hetsched status --format=openmetrics` on a
# sample status document, parsed strictly by the Prometheus client's own
# OpenMetrics parser (Debian's python3-prometheus-client,
# prometheus_client.openmetrics.parser): every family with its type and
# unit, a few values, labels unescaped back; and deliberately malformed
# expositions (no "# EOF", a counter sample without _total, an unescaped
# quote in a label, a family declared twice) rejected by that parser, so
# this test can fail. Also the CLI's refusals. TAP.
b=${HS_BUILDDIR:-.}
hs="$b/hetsched"
# the Debian package lives in the system Python's dist-packages
py=${PYTHON:-python3}
for p in "$py" /usr/bin/python3; do
	if "$p" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
		py=$p
		break
	fi
	py=
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP python3-prometheus-client is not installed (contrib/bootstrap.sh)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/status.json" <<'JSON'
{"format":"hetsched-status","version":1,"time":1700000000,"round":42,"rounds":43,
 "policy":"max_min_fairness_perf","round_length":360,"preempt_mode":"requeue",
 "last_reset":1699999000,"objective":0.625,
 "vs_equal_share":{"min":0.75,"mean":1.5,"jobs":9},
 "types":[{"name":"k80","gpus":4,"available":4,"busy":3,"idle":1,"shared":0},
          {"name":"v\"100","gpus":8,"available":6,"busy":6,"idle":0,"shared":2}],
 "gpu_jobs":{"pending":5,"running":7,"suspended":1,"other":0},
 "round_stats":{"solve_ms":1250,"engine_ms":1300.5,"snapshot_lock_ms":2.5,"apply_lock_ms":10,
   "round_ms":1400,"solved":1,"solve_failed":0,"reset":1,"active":9,"pinned":2,"leaving":1,
   "waiting_outside":3,"gpus_usable":10,"gpus_used":9,
   "planned":{"start":1,"keep":1,"checkpoint":1,"requeue":0,"suspend":0,"resume":0,"migrate":1},
   "done":{"started":1,"start_failed":0}},
 "totals":{"started":100,"preempted":12,"migrated":4,"suspended":6,"resumed":5,"requeued":13,
           "checkpoints":11,"checkpoints_acked":10,"start_failed":2,"solve_failed":3,
           "mech_rounds":43,"mech_resets":8,"lease_extensions":20},
 "private_jobs":false,
 "entities":[{"name":"phys","parent":-1,"shares":2,"norm_shares":1,"target":0.9,"received":0.8,
              "jobs":1,"gpus":1},
             {"name":"a\\b\"c@phys","parent":0,"shares":1,"norm_shares":1,"target":0.9,
              "received":0.8,"jobs":1,"gpus":1}],
 "jobs":[{"id":17,"user_id":1000,"state":"running","gpus":1,"op":"keep","reason":"x"}],
 "ops":[]}
JSON

"$hs" status --file "$tmp/status.json" --format=openmetrics >"$tmp/out.prom" 2>"$tmp/err"
rc=$?
"$hs" status --file "$tmp/status.json" --format=prometheus >/dev/null 2>"$tmp/err2"
rc2=$?
echo '{"format":"hetsched-state","version":1}' >"$tmp/state.json"
"$hs" status --file "$tmp/state.json" --format=openmetrics >"$tmp/out3" 2>/dev/null
rc3=$?

exec "$py" - "$tmp" "$rc" "$rc2" "$rc3" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families

tmp, rc, rc2, rc3 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
n = 0
failed = 0
print("1..12")


def check(desc, cond):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, desc))


def parse(text):
    return {f.name: f for f in text_string_to_metric_families(text)}


def rejected(text):
    try:
        parse(text)
    except ValueError:
        return True
    return False


text = open(tmp + "/out.prom").read()
check("--format=openmetrics exits 0, nothing on stderr",
      rc == 0 and open(tmp + "/err").read() == "")
try:
    fam = parse(text)
    err = None
except ValueError as e:
    fam, err = {}, e
check("the OpenMetrics parser accepts the output (%s)" % (err or "strict"), err is None)

types = {
    "hetsched_config_info": ("gauge", ""),
    "hetsched_rounds": ("counter", ""),
    "hetsched_round_length_seconds": ("gauge", "seconds"),
    "hetsched_last_round_timestamp_seconds": ("gauge", "seconds"),
    "hetsched_policy_objective": ("gauge", ""),
    "hetsched_equal_share_ratio_min": ("gauge", ""),
    "hetsched_equal_share_ratio_mean": ("gauge", ""),
    "hetsched_gpus": ("gauge", ""),
    "hetsched_gpus_available": ("gauge", ""),
    "hetsched_gpus_allocated": ("gauge", ""),
    "hetsched_gpus_idle": ("gauge", ""),
    "hetsched_gpus_shared": ("gauge", ""),
    "hetsched_jobs": ("gauge", ""),
    "hetsched_round_jobs": ("gauge", ""),
    "hetsched_round_duration_seconds": ("gauge", "seconds"),
    "hetsched_solve_duration_seconds": ("gauge", "seconds"),
    "hetsched_lock_hold_seconds": ("gauge", "seconds"),
    "hetsched_preemptions": ("counter", ""),
    "hetsched_migrations": ("counter", ""),
    "hetsched_requeues": ("counter", ""),
    "hetsched_solve_failures": ("counter", ""),
}
bad = [k for k, (t, u) in types.items()
       if k not in fam or fam[k].type != t or fam[k].unit != u]
check("families with their types and units (wrong: %s)" % bad, not bad)


def value(name, sample, **labels):
    for s in fam.get(name, type("", (), {"samples": []})).samples:
        if s.name == sample and s.labels == labels:
            return s.value
    return None


check("GPU gauges per type, label unescaped",
      value("hetsched_gpus_idle", "hetsched_gpus_idle", type="k80") == 1
      and value("hetsched_gpus_shared", "hetsched_gpus_shared", type='v"100') == 2
      and value("hetsched_gpus", "hetsched_gpus", type='v"100') == 8)
check("durations in seconds",
      value("hetsched_solve_duration_seconds", "hetsched_solve_duration_seconds") == 1.25
      and value("hetsched_lock_hold_seconds", "hetsched_lock_hold_seconds",
                phase="apply") == 0.01)
check("counters as _total",
      value("hetsched_preemptions", "hetsched_preemptions_total") == 12
      and value("hetsched_solve_failures", "hetsched_solve_failures_total") == 3
      and value("hetsched_rounds", "hetsched_rounds_total") == 43)
check("jobs by state, no per-job data",
      value("hetsched_jobs", "hetsched_jobs", state="pending") == 5
      and {k for f in fam.values() for s in f.samples for k in s.labels}
      <= {"type", "state", "role", "phase", "policy", "preempt_mode", "entity", "parent"})
check("accounts and users: label unescaped, parent named",
      value("hetsched_entity_received_share", "hetsched_entity_received_share",
            entity='a\\b"c@phys', parent="phys") == 0.8
      and value("hetsched_entity_norm_shares", "hetsched_entity_norm_shares",
                entity="phys", parent="") == 1)

good = "# TYPE a counter\n# HELP a A.\na_total 1\n# EOF\n"
check("the parser accepts a minimal exposition (control)", not rejected(good))
check("malformed expositions are rejected: no # EOF, counter without _total",
      rejected(good.replace("# EOF\n", ""))
      and rejected("# TYPE a counter\na 1\n# EOF\n"))
check("malformed expositions are rejected: unescaped quote, family declared twice",
      rejected('# TYPE g gauge\ng{t="a"b"} 1\n# EOF\n')
      and rejected("# TYPE g gauge\ng 1\n# TYPE g gauge\ng 2\n# EOF\n"))
check("--format=prometheus refused (2), a state file refused (1)", rc2 == 2 and rc3 == 1)
sys.exit(1 if failed else 0)
PY
