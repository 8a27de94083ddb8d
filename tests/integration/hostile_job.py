#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hostile_job.py -- the body of a hostile job for spank_hostile.sh. Run
inside a Slurm job, it tries to harm its own listener and other jobs:

  hostile_job.py VICTIM_JOBID SECRET SQUAT_JOBID
    - finds the victim's report socket in /proc/net/unix (every socket's
      name is visible to everyone: an abstract name, or the path a
      filesystem socket was bound at, from which the name it has once in
      place follows) and sends it forged progress and a forged checkpoint
      acknowledgement, garbage and oversized datagrams; says for each name
      how many the kernel took and how many it refused;
    - floods its own listener with garbage, oversized and "job=" reports;
    - makes its checkpoint directory a maze of symlinks pointing at SECRET
      (a file only root may read) and at /etc;
    - binds abstract names a future job (SQUAT_JOBID) might use.
Prints what it did; always exits 0 (the job must end normally)."""

import os
import socket
import sys
import time


def sock_names(job):
    """Report sockets of job JOB on this machine: abstract ones
    (@hetsched.JOB.*) and filesystem ones, bound in a staging directory of
    the job's directory (<dir>/JOB.<tag>/.s<hex>/s) and renamed to
    <dir>/JOB.<tag>/report."""
    names = []
    with open("/proc/net/unix") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 8 else ""
            if path.startswith("@hetsched.%s." % job):
                names.append(path)
            elif path.startswith("/"):
                parts = path.split("/")
                for i, p in enumerate(parts):
                    if p.startswith("%s." % job) and i + 1 < len(parts):
                        name = "/".join(parts[:i + 1]) + "/report"
                        if name not in names:
                            names.append(name)
                        break
    return names


def blast(name, payloads, repeat=1):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setblocking(False)
    sent = refused = 0
    addr = "\0" + name[1:] if name.startswith("@") else name
    for _ in range(repeat):
        for p in payloads:
            try:
                s.sendto(p, addr)
                sent += 1
            except OSError:
                refused += 1
    s.close()
    return sent, refused


def main():
    victim, secret, squat = sys.argv[1], sys.argv[2], sys.argv[3]
    garbage = [os.urandom(n) for n in (1, 7, 64, 255)]
    big = [b"hs1 step=" + b"9" * 300, os.urandom(65000), b"\0" * 2000]
    forged = [b"hs1 step=999999999", b"hs1 ckpt=5", b"hs1 step=1000000 samples=1", b"hs1 job=%s step=77" % victim.encode()]

    vs = sock_names(victim)
    print("victim sockets: %s" % vs)
    for name in vs:
        print("to victim %s: sent/refused %s" % (name, blast(name, forged + garbage + big, 50)))

    own = os.environ.get("HS_REPORT_SOCKET", "")
    print("own socket: %s" % own)
    if own:
        for i in range(5):
            print("to self: sent/refused %s" % (blast(own, garbage + big + forged[3:], 2000),))
            time.sleep(0.2)
        # absurd jumps: only this job's own estimate, bounded by max_sps
        blast(own, [b"hs1 step=1", b"hs1 step=999999999999999"])

    d = os.environ.get("HS_CKPT_DIR")
    if d:
        os.makedirs(os.path.dirname(d), exist_ok=True)
        try:
            os.symlink(secret, d)           # the checkpoint dir itself -> secret
        except FileExistsError:
            pass
        os.makedirs(d + ".maze", exist_ok=True)
        for n, t in (("passwd", "/etc/passwd"), ("secret", secret), ("loop", d + ".maze/loop"), ("etc", "/etc")):
            try:
                os.symlink(t, os.path.join(d + ".maze", n))
            except FileExistsError:
                pass
        print("symlinks planted at %s" % d)

    held = []
    for suffix in ["", ".batch", ".batch.0000000000000000"] + [".batch.%016x" % i for i in range(200)]:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            s.bind("\0hetsched.%s%s" % (squat, suffix))
            held.append(s)
        except OSError:
            s.close()
    print("squatting %d names of job %s" % (len(held), squat))
    time.sleep(8)                           # hold them while that job starts
    print("hostile job done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
