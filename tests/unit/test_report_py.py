#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test_report_py.py -- the Python module hetsched_report and the
hetsched-report command, against a receiving socket that stands in for the
plugin's listener. Prints TAP."""

import os
import signal
import socket
import subprocess
import sys
import time

SRC = os.environ.get("HS_SRCDIR", ".")
BUILD = os.environ.get("HS_BUILDDIR", ".")
sys.path.insert(0, os.path.join(SRC, "python"))

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def listener(tag=""):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = "hetsched.pytest.%d%s" % (os.getpid(), tag)
    s.bind("\0" + name)
    s.settimeout(2.0)
    return s, "@" + name


def recv_all(s, wait=0.2):
    out = []
    s.settimeout(wait)
    try:
        while True:
            out.append(s.recv(1024))
    except (socket.timeout, BlockingIOError):
        pass
    return out


def run_cli(args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HS_")}
    env.update(env_extra or {})
    p = subprocess.run([os.path.join(BUILD, "hetsched-report")] + args, env=env,
                       capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def main():
    for k in [k for k in os.environ if k.startswith("HS_") and k not in ("HS_SRCDIR", "HS_BUILDDIR")]:
        del os.environ[k]
    sock, name = listener()

    import hetsched_report as hs

    # --- wire format
    check("format step", hs.format_report(step=42) == b"hs1 step=42")
    check("format all", hs.format_report(step=7, samples=448, ckpt=5) == b"hs1 step=7 samples=448 ckpt=5")
    for bad in ({}, {"samples": 3}, {"step": -1}, {"step": 10**15}):
        try:
            hs.format_report(**bad)
            check("format rejects %r" % bad, False)
        except ValueError:
            check("format rejects %r" % bad, True)

    # --- inactive: no plugin, every call is a no-op
    check("inactive", not hs.active())
    check("inactive step is a no-op", hs.step(5) == 1 and hs.checkpoint(5) == 1)
    check("inactive counted", hs.stats()["noop"] == 2)

    # --- active against the stand-in listener
    os.environ["HS_REPORT_SOCKET"] = name
    os.environ["HS_REPORT_MIN_INTERVAL_US"] = "50000"
    hs._reporter = None
    check("active", hs.active())
    rc = [hs.step(i, samples=32 * i) for i in range(1, 101)]
    check("steps accepted", all(r == 0 for r in rc), rc[:5])
    st = hs.stats()
    check("coalesced", st["sent"] >= 1 and st["coalesced"] >= 50, st)
    hs.flush()
    got = recv_all(sock)
    check("first report sent", got and got[0] == b"hs1 step=1 samples=32", got[:2])
    check("flush sends the latest", got and got[-1] == b"hs1 step=100 samples=3200", got[-1:])
    hs.step(101)          # due: sent
    hs.step(102)          # too soon: pending
    check("checkpoint ack", hs.checkpoint(102) == 0)
    got = recv_all(sock)
    check("ack carries pending progress",
          got == [b"hs1 step=101", b"hs1 step=102 ckpt=102"], got)

    # --- each report is formatted (and validated) once
    calls = []
    real_format = hs.format_report

    def counting_format(**kw):
        calls.append(kw)
        return real_format(**kw)
    hs.format_report = counting_format
    try:
        time.sleep(0.06)      # past the minimum interval: the step is due
        hs.step(103)
        hs.checkpoint(103)
    finally:
        hs.format_report = real_format
    got = recv_all(sock)
    check("each report formatted once",
          len(calls) == 2 and got == [b"hs1 step=103", b"hs1 ckpt=103"], (calls, got))

    # --- a forked child does not wait at exit for its parent's unread report
    time.sleep(0.06)
    hs.step(104)          # stays unread in sock until recv_all below
    child = os.fork()
    if child == 0:
        t0 = time.monotonic()
        hs._get().at_exit()
        os._exit(0 if time.monotonic() - t0 < 1.0 else 1)
    _, status = os.waitpid(child, 0)
    check("forked child skips the exit wait",
          os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status)
    got = recv_all(sock)
    check("the parent's report arrives", got == [b"hs1 step=104"], got)

    # --- checkpoint signal and hold
    hs.ckpt_watch()
    check("no request yet", not hs.ckpt_requested())
    os.kill(os.getpid(), signal.SIGURG)
    time.sleep(0.05)
    check("SIGURG sets the request", hs.ckpt_requested())
    hs.checkpoint(102)
    check("ack clears the request", not hs.ckpt_requested())
    recv_all(sock)
    os.environ["HS_CKPT_SIGNAL"] = str(int(signal.SIGTERM))
    check("unsafe checkpoint signal refused", hs._ckpt_signal() == signal.SIGURG)
    os.environ["HS_CKPT_SIGNAL"] = str(int(signal.SIGUSR2))
    check("configured checkpoint signal", hs._ckpt_signal() == signal.SIGUSR2)
    os.environ["HS_CKPT_HOLD"] = "0"
    check("hold 0", hs.ckpt_hold() == 0)
    os.environ["HS_GPU_TYPE"] = "v100"
    os.environ["HS_GPU_SHARED"] = "1"
    os.environ["HS_CKPT_DIR"] = "/ckpt/7"
    os.environ["HS_RESTART_COUNT"] = "2"
    check("environment", (hs.gpu_type(), hs.gpu_shared(), hs.ckpt_dir(), hs.restart_count())
          == ("v100", True, "/ckpt/7", 2))
    os.environ["HS_RESTART_COUNT"] = "-3"
    check("bad restart count ignored", hs.restart_count() == 0)

    # --- the hetsched-report command
    rc, out, err = run_cli(["active"])
    check("cli inactive exits 1", rc == 1, (rc, err))
    rc, out, err = run_cli(["step", "5"])
    check("cli step without plugin exits 0", rc == 0, (rc, err))
    for bad in (["step", "-1"], ["step", "1x"], ["step", "1000000000000000"], ["ckpt"], ["bogus"], []):
        rc, out, err = run_cli(bad)
        check("cli rejects %r" % bad, rc == 2, (rc, err))
    rc, out, err = run_cli(["active"], {"HS_REPORT_SOCKET": "@hetsched.nobody.listens"})
    check("cli with a dead socket is inactive", rc == 1, (rc, err))
    rc, out, err = run_cli(["step", "7", "448"], {"HS_REPORT_SOCKET": name})
    got = recv_all(sock)
    check("cli step", rc == 0 and got == [b"hs1 step=7 samples=448"], (rc, got))
    rc, out, err = run_cli(["ckpt", "9"], {"HS_REPORT_SOCKET": name})
    got = recv_all(sock)
    check("cli ckpt", rc == 0 and got == [b"hs1 ckpt=9"], (rc, got))
    rc, out, err = run_cli(["hold"], {"HS_CKPT_HOLD": "0"})
    check("cli hold", rc == 0 and out.strip() == "0", (rc, out))
    rc, out, err = run_cli(["env"], {"HS_GPU_TYPE": "k80", "HS_REPORT_SOCKET": name})
    check("cli env", rc == 0 and "HS_GPU_TYPE=k80" in out and "active=1" in out, out)
    rc, out, err = run_cli(["--help"])
    check("cli help", rc == 0 and "usage" in out)

    # --- listener gone: a refused acknowledgement is not kept for retries
    # (the exit would spin on it; only a busy listener, EAGAIN, keeps it)
    gone, gone_name = listener(".gone")
    os.environ["HS_REPORT_SOCKET"] = gone_name
    hs._reporter = None
    check("active before the listener goes", hs.active())
    gone.close()
    r = hs._get()
    r.pending_ckpt = 5    # as a refusal of the busy listener left it
    check("the kept ack to a gone listener fails", r.flush() < 0)
    check("... and is not kept", r.pending_ckpt is None, r.pending_ckpt)
    t0 = time.monotonic()
    r.at_exit()
    check("exit does not wait for a gone listener (%.2f s)" % (time.monotonic() - t0),
          time.monotonic() - t0 < 1.0)

    # --- a filesystem socket (HS_REPORT_SOCKET is a path since issue 28):
    # the module and the command reach it the same way
    import tempfile
    d = tempfile.mkdtemp(prefix="hs-pytest-")
    path = os.path.join(d, "report")
    fs = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    fs.bind(path)
    os.environ["HS_REPORT_SOCKET"] = path
    os.environ["HS_REPORT_MIN_INTERVAL_US"] = "0"
    hs._reporter = None
    check("path socket: active", hs.active())
    check("path socket: step and ckpt sent", hs.step(3) == 0 and hs.checkpoint(3) == 0)
    got = recv_all(fs)
    check("path socket: received", got == [b"hs1 step=3", b"hs1 ckpt=3"], got)
    rc, out, err = run_cli(["step", "4"], {"HS_REPORT_SOCKET": path})
    got = recv_all(fs)
    check("path socket: cli step", rc == 0 and got == [b"hs1 step=4"], (rc, got))
    hs._reporter = None
    fs.close()
    os.unlink(path)
    os.rmdir(d)

    print("1..%d" % len(results))
    for i, (n, ok, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, n))
        if not ok:
            print("# %r" % (detail,))
    return 0


if __name__ == "__main__":
    sys.exit(main())
