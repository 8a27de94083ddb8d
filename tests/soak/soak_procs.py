#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# soak_procs.py — helpers of tests/soak/soak.sh that are awkward in shell:
#
#   soak_procs.py sample CONF OUT
#       Every second, list the job processes of the cluster whose slurm.conf
#       is CONF (processes with SLURM_CONF=CONF and SLURM_JOB_ID in their
#       environment) and append one line per sample to OUT:
#       "EPOCH JOBID:NODE:PID ...". Only a job's payload counts, one
#       process per incarnation: the emulator binary, or the `sleep` of a
#       --wrap job's batch shell; see payload(). Runs until killed.
#   soak_procs.py overlaps OUT
#       Jobs whose payload ran twice at the same moment: two payload
#       processes of one job in one sample (on two nodes, or on one).
#       Prints "JOBID EPOCH NODE,NODE" once per job; exit 1 when there is
#       one.
#   soak_procs.py incarnations SACCT_FILE KILLS
#       SACCT_FILE holds `sacct -D -X -P -n -o JobIDRaw,Start,End,State`,
#       KILLS the comma-separated epochs of the slurmctld SIGKILLs. Prints
#       every pair of incarnations of one job whose [start, end) intervals
#       overlap; exit 1 when there is one. Incarnations without a start
#       never ran and are skipped; one without an end (Unknown) counts as
#       still running. Open records that slurmctld's crash explains are
#       listed on stderr only (see incarnations()).
#   soak_procs.py freeze DIR NODE SLURMD_PID
#       The first half of a node's death: SIGSTOP the node's slurmd and
#       every process of the cluster in DIR that runs on NODE: its
#       slurmstepds, found by the node's log file they hold open
#       (DIR/log/slurmd-NODE.log; neither their title nor their
#       environment says the cluster and the node: from 25.11 setproctitle
#       overwrites a slurmstepd's environment, so a stepd found by
#       HS_CLUSTER_DAEMON lived on, saw its tasks SIGKILLed and reported
#       the job FAILED instead of leaving it to the node failure), and the
#       jobs' processes (SLURM_CONF of DIR and SLURMD_NODENAME=NODE: the
#       batch shell, srun, the tasks). The first scan only collects; slurmd
#       and all it found are stopped together right after it, so the node
#       stops at one instant however long the scan took on a loaded
#       machine (a slurmd stopped alone for seconds refuses step launches
#       by timeout while the batch slurmstepd still reports). Two more
#       scans over 2 s stop late ones (a slurmstepd forked just before
#       opens the log a moment later). Prints the pids stopped. One
#       process reading /proc, no fork per process. tests/integration/
#       lib.sh it_node_die is the one caller of this.
import os
import signal
import sys
import time


def environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    env = {}
    for item in raw.split(b"\0"):
        k, sep, v = item.partition(b"=")
        if sep:
            env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


def exe(pid):
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


def payload(pid):
    """The process that does a job's work, one per incarnation: the
    emulator binary, or the `sleep` of a plain --wrap job. By executable,
    not by name: the build's hetsched-emulator is a libtool wrapper script
    whose short-lived subshells carry the emulator's name too."""
    # Emulator jobs run no sleep; the soak's other jobs are `sleep`s.
    return exe(pid) in ("hetsched-emulator", "sleep")


def sample(conf, out):
    while True:
        seen = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            env = environ(d)
            if not env or env.get("SLURM_CONF") != conf or "SLURM_JOB_ID" not in env:
                continue
            if payload(d):
                seen.append(f"{env['SLURM_JOB_ID']}:{env.get('SLURMD_NODENAME', '?')}:{d}")
        with open(out, "a") as f:
            f.write(f"{int(time.time())} {' '.join(seen)}\n")
        time.sleep(1)


def overlaps(path):
    bad = 0
    reported = set()
    for line in open(path):
        parts = line.split()
        if not parts:
            continue
        t, procs = parts[0], parts[1:]
        by_job = {}
        for p in procs:
            job, node, _pid = p.split(":")
            by_job.setdefault(job, []).append(node)
        for job, nodes in by_job.items():
            if len(nodes) > 1 and job not in reported:
                reported.add(job)
                print(f"{job} {t} {','.join(nodes)}")
                bad = 1
    return bad


# slurmctld saves its job state at most every SAVE_MAX_WAIT = 5 s
# (src/slurmctld/state_save.c); one more second for the clocks' rounding.
CRASH_WINDOW = 6


def parse_time(s):
    s = s.strip()
    if s in ("", "Unknown", "None"):
        return None
    return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))


def incarnations(path, kills):
    """Overlapping incarnations in sacct -D, except those that
    slurmctld's crash window explains: an incarnation that slurmctld
    started less than CRASH_WINDOW s before it was SIGKILLed (KILLS: their
    times) reached slurmdbd but not slurmctld's saved state, so the
    restarted slurmctld goes on with the previous incarnation and the
    record stays open (End Unknown) for ever: a "runaway job" in Slurm's
    words (sacctmgr show runawayjobs). Those are printed on stderr."""
    runs = {}
    for line in open(path):
        f = line.rstrip("\n").split("|")
        if len(f) < 4:
            continue
        start, end = parse_time(f[1]), parse_time(f[2])
        if start is None:
            continue
        runs.setdefault(f[0], []).append((start, end if end is not None else float("inf"), f[1], f[2]))

    def lost_by_crash(r):
        return r[1] == float("inf") and any(0 <= k - r[0] <= CRASH_WINDOW for k in kills)

    bad = 0
    runaway = {}
    for job, rs in runs.items():
        rs.sort()
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                # One-second resolution: an incarnation that ends in the
                # second the next one starts does not overlap it.
                if b[0] >= a[1]:
                    continue
                lost = a if lost_by_crash(a) else b if lost_by_crash(b) else None
                if lost:
                    key = f"{job} {lost[2]}..{lost[3]}"
                    runaway[key] = runaway.get(key, 0) + 1
                else:
                    print(f"{job} {a[2]}..{a[3]} overlaps {b[2]}..{b[3]}")
                    bad = 1
    for key, n in runaway.items():
        print(f"{key}: started by slurmctld less than {CRASH_WINDOW} s before its SIGKILL "
              f"(overlaps {n} other incarnation(s))", file=sys.stderr)
    return bad


def holds_file(pid, path):
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                return True
        except OSError:
            pass
    return False


def freeze_scan(cdir, node, skip):
    found = []
    log = f"{cdir}/log/slurmd-{node}.log"
    conf = f"{cdir}/etc/slurm.conf"
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid() or int(d) in skip:
            continue
        env = environ(d)
        task = env is not None and env.get("SLURM_CONF") == conf and env.get("SLURMD_NODENAME") == node
        if task or holds_file(d, log):
            found.append(int(d))
    return found


def stop(pids):
    done = []
    for p in pids:
        try:
            os.kill(p, signal.SIGSTOP)
            done.append(p)
        except OSError:
            pass
    return done


def freeze(cdir, node, slurmd):
    first = freeze_scan(cdir, node, {slurmd})
    # slurmd and everything found, microseconds apart
    stop([slurmd])
    stopped = stop(first)
    for _ in range(2):
        time.sleep(1)
        stopped += stop(freeze_scan(cdir, node, set(stopped) | {slurmd}))
    print(" ".join(str(p) for p in stopped))
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "freeze":
        sys.exit(freeze(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    if len(sys.argv) == 4 and sys.argv[1] == "sample":
        sample(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "overlaps":
        sys.exit(overlaps(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "incarnations":
        kills = [float(k) for k in sys.argv[3].split(",") if k]
        sys.exit(incarnations(sys.argv[2], kills))
    else:
        sys.exit("usage: soak_procs.py sample CONF OUT | overlaps OUT | incarnations FILE KILLS | freeze DIR NODE SLURMD_PID")


if __name__ == "__main__":
    main()
