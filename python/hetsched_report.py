# SPDX-License-Identifier: GPL-2.0-or-later
"""hetsched_report -- report training progress to hetsched (pure Python).

The Python twin of libhetsched-report (hetsched/report.h); the protocol is
doc/protocol.md. Under Slurm with the spank_hetsched plugin, each call
reaches the scheduler, which measures the job's throughput on its GPU type;
without the plugin every call is a no-op. Calls never block: at most one
non-blocking datagram per HS_REPORT_MIN_INTERVAL_US, else the latest values
are kept and sent by a later call (so is what a busy listener refused).
At exit, as libhetsched-report does, the last report is delivered and the
exit waits (bounded) until the listener has read it.

    import hetsched_report as hs

    hs.ckpt_watch()                      # checkpoint signal -> flag
    step = load_checkpoint(hs.ckpt_dir()) or 0
    while step < total:
        train_one_minibatch()
        step += 1
        hs.step(step, samples=step * batch_size)
        if hs.ckpt_requested():
            save_checkpoint_atomically(hs.ckpt_dir(), step)
            hs.checkpoint(step)          # acknowledge
            hs.ckpt_hold()               # wait to be requeued; never exit here

Only the standard library is used (no PyPI dependency).
"""

import atexit
import fcntl
import os
import signal
import socket
import struct
import termios
import threading
import time

__all__ = ["active", "step", "flush", "checkpoint", "ckpt_watch",
           "ckpt_requested", "ckpt_hold", "gpu_type", "gpu_shared",
           "ckpt_dir", "restart_count", "stats", "format_report"]

# The hetsched release (configure.ac AC_INIT; pyproject.toml reads it here).
__version__ = "0.1.0"
API_VERSION = 1
WIRE_MAX = 255
VALUE_MAX = 999999999999999
_UNSAFE_SIGNALS = {signal.SIGKILL, signal.SIGSTOP, signal.SIGTSTP,
                   signal.SIGCONT, signal.SIGTERM, signal.SIGINT,
                   signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE,
                   signal.SIGILL, signal.SIGABRT, signal.SIGCHLD,
                   signal.SIGPIPE, signal.SIGTTIN, signal.SIGTTOU}
# Bytes sent, not yet read: linux/sockios.h defines SIOCOUTQ as TIOCOUTQ,
# whose number differs between architectures (0x5411 on x86, not on ppc64le).
_SIOCOUTQ = termios.TIOCOUTQ
_EXIT_RETRY_S = 2.0    # see _Reporter.at_exit
_EXIT_WAIT_S = 5.0


def _env_int(name, lo, hi, default):
    s = os.environ.get(name, "")
    if not s or not s.isdigit():
        return default
    v = int(s)
    return v if lo <= v <= hi else default


def format_report(step=None, samples=None, ckpt=None):
    """Return the wire bytes of one report (doc/protocol.md (b))."""
    if step is None and ckpt is None:
        raise ValueError("a report needs step or ckpt")
    if samples is not None and step is None:
        raise ValueError("samples needs step")
    out = "hs1"
    for key, val in (("step", step), ("samples", samples), ("ckpt", ckpt)):
        if val is None:
            continue
        val = int(val)
        if not 0 <= val <= VALUE_MAX:
            raise ValueError("%s out of range: %d" % (key, val))
        out += " %s=%d" % (key, val)
    return out.encode("ascii")


class _Reporter:
    def __init__(self):
        self.lock = threading.Lock()
        self.sock = None
        self.min_interval = _env_int("HS_REPORT_MIN_INTERVAL_US", 0,
                                     60000000, 10000) / 1e6
        self.last_sent = None
        self.pending = None  # (step, samples)
        self.pending_ckpt = None  # an acknowledgement the busy listener refused
        self.counts = {"sent": 0, "coalesced": 0, "dropped": 0, "noop": 0}
        name = os.environ.get("HS_REPORT_SOCKET", "")
        if not name:
            return
        addr = "\0" + name[1:] if name.startswith("@") else name
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.setblocking(False)
            s.connect(addr)
        except OSError:
            return
        self.sock = s
        self.owner_pid = os.getpid()
        atexit.register(self.at_exit)

    def _format(self, step=None, samples=None, ckpt=None):
        """The report to send (with any refused acknowledgement) as
        (ckpt, wire bytes); raises ValueError on a bad value. Callers
        format before they change any state, so a bad value leaves the
        reporter as it was, and send these bytes (formatted once)."""
        if ckpt is None:
            ckpt = self.pending_ckpt
        return ckpt, format_report(step=step, samples=samples, ckpt=ckpt)

    def _send(self, data, step=None, samples=None, ckpt=None):
        """Sends data, the report _format made of step, samples and ckpt;
        what the busy listener refuses (EAGAIN) is kept for the next
        datagram."""
        try:
            self.sock.send(data)
            self.counts["sent"] += 1
            self.pending_ckpt = None
            return 0
        except BlockingIOError:  # listener busy: its queue is full
            self.counts["dropped"] += 1
            if step is not None and self.pending is None:
                self.pending = (step, samples)
            self.pending_ckpt = ckpt
            return -1
        except OSError:  # listener gone: nothing will take it later either
            self.counts["dropped"] += 1
            self.pending_ckpt = None   # as the C library: kept only on EAGAIN
            return -1

    def unread(self):
        """Bytes sent that the listener has not read yet."""
        try:
            return struct.unpack("i", fcntl.ioctl(self.sock.fileno(), _SIOCOUTQ, b"\0" * 4))[0]
        except OSError:
            return 0

    def retry(self, seconds):
        """Retries a refused report for up to seconds (it is busy)."""
        end = time.monotonic() + seconds
        while self.flush() < 0 and time.monotonic() < end:
            time.sleep(0.01)

    def at_exit(self):
        """As in libhetsched-report: the last report is retried while the
        listener refuses it, and the exit waits (bounded) until the
        listener has read what was sent, because it checks in /proc that
        the sender belongs to the job and drops reports of a sender that
        is already gone. A forked child (it shares the socket) skips
        both: it would wait for its parent's reports."""
        if os.getpid() != self.owner_pid:
            return
        self.retry(_EXIT_RETRY_S)
        end = time.monotonic() + _EXIT_WAIT_S
        while self.unread() > 0 and time.monotonic() < end:
            time.sleep(0.01)

    def step(self, n, samples=None):
        if self.sock is None:
            self.counts["noop"] += 1
            return 1
        now = time.monotonic()
        with self.lock:
            if self.last_sent is not None and now - self.last_sent < self.min_interval:
                if not 0 <= n <= VALUE_MAX or (samples is not None and not 0 <= samples <= VALUE_MAX):
                    raise ValueError("step/samples out of range")
                self.pending = (n, samples)
                self.counts["coalesced"] += 1
                return 0
            ckpt, data = self._format(step=n, samples=samples)
            self.last_sent = now
            self.pending = None
            return self._send(data, step=n, samples=samples, ckpt=ckpt)

    def flush(self):
        if self.sock is None:
            return 1
        with self.lock:
            if self.pending is None and self.pending_ckpt is None:
                return 0
            n, samples = self.pending or (None, None)
            ckpt, data = self._format(step=n, samples=samples)
            self.pending = None
            self.last_sent = time.monotonic()
            return self._send(data, step=n, samples=samples, ckpt=ckpt)

    def checkpoint(self, n):
        _flag.clear()
        if self.sock is None:
            self.counts["noop"] += 1
            return 1
        with self.lock:
            step, samples = self.pending or (None, None)
            ckpt, data = self._format(step=step, samples=samples, ckpt=n)
            self.pending = None
            return self._send(data, step=step, samples=samples, ckpt=ckpt)


_flag = threading.Event()
_reporter = None
_reporter_lock = threading.Lock()


def _get():
    global _reporter
    if _reporter is None:
        with _reporter_lock:
            if _reporter is None:
                _reporter = _Reporter()
    return _reporter


def active():
    """True when reports reach a hetsched listener."""
    return _get().sock is not None


def step(n, samples=None):
    """The job has completed n mini-batches in total (cumulative).

    Returns 0 when sent or coalesced, 1 when inactive (no-op), -1 when the
    report was dropped; none of these needs any action."""
    return _get().step(n, samples)


def flush():
    """Send any coalesced report now."""
    return _get().flush()


def checkpoint(n):
    """Acknowledge a durably saved checkpoint holding steps up to n."""
    return _get().checkpoint(n)


def _ckpt_signal():
    sig = _env_int("HS_CKPT_SIGNAL", 1, 64, int(signal.SIGURG))
    return signal.SIGURG if sig in _UNSAFE_SIGNALS else sig


def ckpt_watch():
    """Install a handler for the checkpoint signal (main thread only)."""
    signal.signal(_ckpt_signal(), lambda signum, frame: _flag.set())


def ckpt_requested():
    """True once the checkpoint signal arrived, until checkpoint()."""
    return _flag.is_set()


def ckpt_hold():
    """Sleep up to HS_CKPT_HOLD seconds (default 120) waiting to be
    requeued; returns the seconds slept when the hold ends."""
    hold = _env_int("HS_CKPT_HOLD", 0, 86400, 120)
    start = time.monotonic()
    r = _get()
    if r.sock is not None and r.pending_ckpt is not None:
        r.retry(_EXIT_RETRY_S)   # the acknowledgement the scheduler waits for
    while time.monotonic() - start < hold:
        time.sleep(min(1.0, hold - (time.monotonic() - start)))
    return int(time.monotonic() - start)


def gpu_type():
    return os.environ.get("HS_GPU_TYPE") or None


def gpu_shared():
    return os.environ.get("HS_GPU_SHARED") == "1"


def ckpt_dir():
    return os.environ.get("HS_CKPT_DIR") or None


def restart_count():
    return _env_int("HS_RESTART_COUNT", 0, 1000000, 0)


def stats():
    """Counters: sent, coalesced, dropped, noop."""
    return dict(_get().counts)
