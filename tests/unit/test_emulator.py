#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test_emulator.py -- hetsched-emulator without Slurm: paces mini-batches
at the table throughput x time scale (measured from the reports it sends to
a stand-in listener socket), pair throughput with a partner, checkpoint on
the checkpoint signal with hold, resume after SIGTERM with no step lost or
repeated, and refuses bad input. Prints TAP."""

import json
import os
import signal
import socket
import subprocess
import sys
import struct
import tempfile
import threading
import time

SRC = os.environ.get("HS_SRCDIR", ".")
BUILD = os.environ.get("HS_BUILDDIR", ".")
EMU = os.path.join(BUILD, "hetsched-emulator")
DATA = os.environ.get("HS_GAVEL_DATA") or os.path.join(SRC, "..", "shared", "data", "gavel")
TABLE = os.path.join(DATA, "simulation_throughputs.json")
MODEL = "ResNet-18 (batch size 64)"
PARTNER = "LM (batch size 20)"
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def env(**kw):
    # hermetic: nothing of a Slurm job or GPU the tests may run under
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("HS_", "SLURM_")) and k != "CUDA_VISIBLE_DEVICES"}
    e.update({k: str(v) for k, v in kw.items()})
    return e


class Listener:
    """A stand-in for the plugin's report listener: a thread receives every
    datagram as soon as it arrives (the kernel queues only 10, and a
    polling loop on a loaded machine fell behind: reports were refused)
    and keeps it with its SEND time (SO_TIMESTAMPNS, as the plugin does,
    on the monotonic clock), so rates do not depend on when it got to
    read."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.name = "hetsched.emutest.%d" % os.getpid()
        self.sock.bind("\0" + self.name)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.settimeout(0.05)
        self.lock = threading.Lock()
        self.got = []
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        offset = time.time() - time.monotonic()
        while not self.stop:
            try:
                data, anc, _, _ = self.sock.recvmsg(512, 64)
            except socket.timeout:
                continue
            t = time.monotonic()
            for level, kind, val in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(val) >= 16:
                    sec, nsec = struct.unpack("qq", val[:16])
                    t = sec + nsec * 1e-9 - offset
            with self.lock:
                self.got.append((t, data.decode()))

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)   # = SCM_TIMESTAMPNS


def listener():
    lst = Listener()
    return lst, "@" + lst.name


def drain(lst, into):
    """Moves what the listener received so far into the list into."""
    with lst.lock:
        into.extend(lst.got)
        lst.got = []


def wait_first_report(lst, into, secs=30):
    """Waits until the emulator just started sent its first report (moved
    into the list into): its checkpoint-signal handler is installed by then.
    Before that SIGURG is ignored (its default action), and a fixed 0.7 s
    sleep lost it on a loaded machine (load 15 on 2 cores), where the
    libtool wrapper script alone took 1 s to start the emulator."""
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        drain(lst, into)
        if into:
            return True
        time.sleep(0.01)
    return False


def report_stats(out):
    """The emulator's report counters: (sent, refused, coalesced)."""
    for line in out.splitlines():
        if line.startswith("hetsched-emulator: reports sent="):
            f = dict(x.split("=") for x in line.split()[2:])
            return int(f["sent"]), int(f["refused"]), int(f["coalesced"])
    return None


def run_collect(args, e, sock, timeout=60):
    """Runs the emulator to completion while collecting its reports."""
    got = []
    drain(sock, [])     # what earlier emulators sent is not this run's
    p = subprocess.Popen([EMU] + args, env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + timeout
    while p.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    if p.poll() is None:
        p.kill()
    out, err = p.communicate()
    time.sleep(0.1)     # the last datagrams (the emulator waited for them to be read)
    drain(sock, got)
    return p.returncode, out, err, got


def steps_of(reports):
    out = []
    for t, r in reports:
        for f in r.split()[1:]:
            k, v = f.split("=")
            if k == "step":
                out.append((t, int(v)))
    return out


def main():
    if not os.path.exists(TABLE):
        print("1..0 # SKIP Gavel data not found at %s (set HS_GAVEL_DATA)" % TABLE)
        return 0
    table = json.load(open(TABLE))
    key = "('%s', 1)" % MODEL
    sock, name = listener()
    tmp = tempfile.mkdtemp(prefix="hs-emu-test-")

    # --- pacing: reported throughput = table throughput x time scale
    for gpu, scale in (("k80", 20.0), ("v100", 10.0)):
        thr = table[gpu][key]["null"]
        steps = int(thr * scale * 2.0)          # about 2 s of wall time
        rc, out, err, got = run_collect(
            ["--table", TABLE, "--model", MODEL, "--steps", str(steps),
             "--time-scale", str(scale), "--gpu-type", gpu],
            env(HS_REPORT_SOCKET=name, HS_REPORT_MIN_INTERVAL_US=0), sock)
        check("%s: runs to completion" % gpu, rc == 0 and "done step=%d ran=%d" % (steps, steps) in out, (rc, out, err))
        st = steps_of(got)
        # Every mini-batch is reported: one send per step, each either
        # received here or refused while this listener's queue was full
        # (a loaded machine; the refused values go with the next datagram,
        # none is coalesced at HS_REPORT_MIN_INTERVAL_US=0); the final
        # step always arrives.
        rs = report_stats(out)
        check("%s: reports every mini-batch" % gpu, rs is not None and rs[0] + rs[1] >= steps and
              rs[2] == 0 and len(st) == rs[0] and st and st[-1][1] == steps, (rs, len(st), st[-3:]))
        if len(st) > 10:
            # rate over the middle 80% of the run, from send times
            a, b = st[len(st) // 10], st[-len(st) // 10]
            rate = (b[1] - a[1]) / (b[0] - a[0]) / scale
            check("%s: emulated throughput %.2f matches the table %.2f" % (gpu, rate, thr),
                  abs(rate - thr) / thr < 0.15, (rate, thr))

    # --- the scale factor defaults to the job's GPU count (the scheduler
    # looks a job with N GPUs up as (model, N))
    for extra, want in ((dict(SLURM_GPUS_ON_NODE=2, SLURM_JOB_NUM_NODES=2), 4),
                        (dict(CUDA_VISIBLE_DEVICES="0,1"), 2), ({}, 1)):
        rc, out, err, got = run_collect(
            ["--table", TABLE, "--model", MODEL, "--steps", "5", "--time-scale", "1000",
             "--gpu-type", "v100"], env(HS_REPORT_SOCKET=name, **extra), sock)
        check("scale factor %d from %s" % (want, ",".join(sorted(extra)) or "no GPU environment"),
              rc == 0 and " sf=%d " % want in out + err, (rc, out, err))

    # --- sharing: the pair throughput from the table
    thr_pair = table["k80"][key]["('%s', 1)" % PARTNER][0]
    rc, out, err, got = run_collect(
        ["--table", TABLE, "--model", MODEL, "--steps", str(int(thr_pair * 20 * 2)),
         "--time-scale", "20", "--gpu-type", "k80", "--partner", PARTNER],
        env(HS_REPORT_SOCKET=name, HS_REPORT_MIN_INTERVAL_US=0), sock)
    st = steps_of(got)
    check("shared: runs", rc == 0 and "thr=%.6g" % thr_pair in out, (rc, out, err))
    if len(st) > 10:
        a, b = st[len(st) // 10], st[-len(st) // 10]
        rate = (b[1] - a[1]) / (b[0] - a[0]) / 20
        check("shared: pair throughput %.2f matches the table %.2f" % (rate, thr_pair),
              abs(rate - thr_pair) / thr_pair < 0.15, (rate, thr_pair))

    # --- packed jobs (double-booked GPU, doc/packing.md): co-tenants found
    # through the share directory run at the pair throughput; a job on
    # another GPU index stays alone
    share = os.path.join(tmp, "share")
    slurm = dict(SLURM_CLUSTER_NAME="t", SLURMD_NODENAME="n1", HS_EMU_SHARE_DIR=share,
                 HS_REPORT_MIN_INTERVAL_US=0)
    lm = subprocess.Popen([EMU, "--table", TABLE, "--model", PARTNER, "--steps", "100000",
                           "--time-scale", "20", "--gpu-type", "k80"],
                          env=env(SLURM_JOB_ID=102, SLURM_JOB_GPUS="0", **slurm),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lone = subprocess.Popen([EMU, "--table", TABLE, "--model", PARTNER, "--steps", "100000",
                             "--time-scale", "20", "--gpu-type", "k80"],
                            env=env(SLURM_JOB_ID=103, SLURM_JOB_GPUS="1", **slurm),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    rc, out, err, got = run_collect(
        ["--table", TABLE, "--model", MODEL, "--steps", str(int(thr_pair * 20 * 3)),
         "--time-scale", "20", "--gpu-type", "k80"],
        env(SLURM_JOB_ID=101, SLURM_JOB_GPUS="0", HS_REPORT_SOCKET=name, **slurm), sock)
    for p in (lm, lone):
        p.terminate()
    lm_out, _ = lm.communicate(timeout=30)
    lone_out, _ = lone.communicate(timeout=30)
    st = steps_of(got)
    check("packed: found its co-tenant", rc == 0 and 'partner "%s"' % PARTNER in out, (rc, out, err))
    check("packed: the co-tenant found it too", 'partner "%s"' % MODEL in lm_out, lm_out)
    check("packed: a job on another GPU index stays alone", "partner" not in lone_out, lone_out)
    if len(st) > 10:
        a, b = st[len(st) // 3], st[-len(st) // 10]   # after the first detection
        rate = (b[1] - a[1]) / (b[0] - a[0]) / 20
        check("packed: pair throughput %.2f matches the table %.2f" % (rate, thr_pair),
              abs(rate - thr_pair) / thr_pair < 0.15, (rate, thr_pair))

    # --- checkpoint on the signal, hold, continue when not requeued
    ck = os.path.join(tmp, "ck1")
    drain(sock, [])
    p = subprocess.Popen([EMU, "--table", TABLE, "--model", MODEL, "--steps", "400",
                          "--time-scale", "20", "--gpu-type", "k80", "--ckpt-dir", ck],
                         env=env(HS_REPORT_SOCKET=name, HS_CKPT_HOLD=1), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    wait_first_report(sock, [])
    time.sleep(0.2)
    p.send_signal(signal.SIGURG)
    out, err = p.communicate(timeout=60)
    drain(sock, [])
    check("ckpt: acknowledged, held, continued, done", p.returncode == 0 and "(requested)" in out
          and "hold ended" in out and "done step=400 ran=400" in out, (p.returncode, out, err))

    # --- requeue: checkpoint, SIGTERM during the hold, resume: no step lost
    ck = os.path.join(tmp, "ck2")
    args = [EMU, "--table", TABLE, "--model", MODEL, "--steps", "300",
            "--time-scale", "20", "--gpu-type", "k80", "--ckpt-dir", ck]
    got = []
    drain(sock, [])
    p = subprocess.Popen(args, env=env(HS_REPORT_SOCKET=name, HS_CKPT_HOLD=60,
                                       HS_REPORT_MIN_INTERVAL_US=0),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_first_report(sock, got)
    time.sleep(0.2)
    p.send_signal(signal.SIGURG)
    deadline = time.monotonic() + 20
    acked = None
    while acked is None and time.monotonic() < deadline:
        drain(sock, got)
        for t, r in got:
            if "ckpt=" in r:
                acked = int(r.split("ckpt=")[1])
        time.sleep(0.01)
    time.sleep(0.3)                      # holding: no more steps
    drain(sock, got)
    last_step = max(s for t, s in steps_of(got))
    p.send_signal(signal.SIGTERM)
    out1, err1 = p.communicate(timeout=30)
    check("requeue: ack received", acked is not None and acked > 0, got[-3:])
    check("requeue: no step after the checkpoint", last_step == acked, (last_step, acked))
    check("requeue: SIGTERM ends the hold", p.returncode == 128 + signal.SIGTERM and
          "terminated by signal 15 step=%s" % acked in out1, (p.returncode, out1, err1))
    rc, out2, err2, got2 = run_collect(args[1:], env(HS_REPORT_SOCKET=name, HS_RESTART_COUNT=1,
                                                     HS_REPORT_MIN_INTERVAL_US=0), sock)
    st2 = steps_of(got2)
    check("resume: from the checkpoint", rc == 0 and "resume step=%s" % acked in out2 and
          "done step=300 ran=%d" % (300 - (acked or 0)) in out2, (rc, out2, err2))
    check("resume: first report is the next step", st2 and st2[0][1] == (acked or 0) + 1, st2[:2])

    # --- bad input
    for args, what in (([], "no table"),
                       (["--table", TABLE], "no model"),
                       (["--table", TABLE, "--model", MODEL], "no steps"),
                       (["--table", TABLE, "--model", MODEL, "--steps", "5"], "no GPU type"),
                       (["--table", TABLE, "--model", "Nope", "--steps", "5", "--gpu-type", "k80"], "unknown model"),
                       (["--table", TABLE, "--model", MODEL, "--steps", "5", "--gpu-type", "h100"], "unknown GPU type"),
                       (["--table", TABLE, "--model", MODEL, "--steps", "-5", "--gpu-type", "k80"], "bad steps"),
                       (["--table", "/nonexistent", "--model", MODEL, "--steps", "5", "--gpu-type", "k80"], "missing table")):
        r = subprocess.run([EMU] + args, env=env(), capture_output=True, text=True, timeout=30)
        check("refuses: %s" % what, r.returncode == 2 and "hetsched-emulator:" in r.stderr, (r.returncode, r.stderr))
    bad = os.path.join(tmp, "ck3")
    os.makedirs(bad)
    with open(os.path.join(bad, "hetsched-emulator.ckpt"), "w") as f:
        f.write("hetsched-emulator 1 step=5 sf=1 model=Other\n")
    r = subprocess.run([EMU, "--table", TABLE, "--model", MODEL, "--steps", "5", "--gpu-type", "k80",
                        "--ckpt-dir", bad], env=env(), capture_output=True, text=True, timeout=30)
    check("refuses another model's checkpoint", r.returncode == 2 and "not of this job" in r.stderr, r.stderr)

    subprocess.run(["rm", "-rf", tmp])
    sock.close()
    print("1..%d" % len(results))
    for i, (n, ok, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, n))
        if not ok:
            print("# %r" % (detail,))
    return 0


if __name__ == "__main__":
    sys.exit(main())
