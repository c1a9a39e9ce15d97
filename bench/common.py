"""Shared pieces of the benchmark: result rows, statistics, the Markdown table, a server.

Every section returns a list of :class:`Row`; ``format_table`` turns them into one
Markdown table. Timings are wall-clock (``time.perf_counter``); a row reports the median
and the min–max of its samples, and a ratio only when both sides were measured side by
side in the same run.
"""
from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # pages do `import ui`, `import tutor` (AppTest adds only pages/)
    sys.path.insert(0, str(ROOT))

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-proxy-server"]


@dataclass
class Config:
    quick: bool = False
    repeat: int | None = None          # samples per measurement (None: the section's default)
    log: callable = field(default=lambda msg: print(msg, file=sys.stderr, flush=True))

    def reps(self, full: int, quick: int) -> int:
        if self.repeat is not None:
            return max(1, int(self.repeat))
        return quick if self.quick else full


@dataclass
class Row:
    section: str
    what: str
    samples: list[float]               # in `unit`
    unit: str                          # "ms", "s", "MB", "q/s"
    ratio: str = ""                    # "1.12× torch" (side by side, same run)
    target: str = ""                   # "≤ 50 ms"
    ok: bool | None = None             # PASS / FAIL / (None: information only)
    note: str = ""
    result: str = ""                   # overrides PASS/FAIL when a row has several targets

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def lo(self) -> float:
        return min(self.samples) if self.samples else float("nan")

    @property
    def hi(self) -> float:
        return max(self.samples) if self.samples else float("nan")


def fmt(x: float, unit: str = "") -> str:
    if x != x:  # NaN
        return "–"
    ax = abs(x)
    if unit == "q/s" or ax >= 1000:
        s = f"{x:,.0f}"
    elif ax >= 100:
        s = f"{x:.0f}"
    elif ax >= 10:
        s = f"{x:.1f}"
    elif ax >= 1:
        s = f"{x:.2f}"
    else:
        s = f"{x:.3f}"
    return s


def verdict(ok: bool | None) -> str:
    return "" if ok is None else ("PASS" if ok else "**FAIL**")


def format_table(rows: list[Row]) -> str:
    head = "| section | what | median | min – max | n | ratio (same run) | target | result |"
    sep = "|---|---|---:|---:|---:|---|---|---|"
    lines = [head, sep]
    for r in rows:
        if r.samples:
            med = f"{fmt(r.median, r.unit)} {r.unit}"
            rng = f"{fmt(r.lo, r.unit)} – {fmt(r.hi, r.unit)}"
        else:
            med, rng = "–", "–"
        what = (r.what + (f" ({r.note})" if r.note else "")).replace("|", "\\|")  # a cell never splits
        lines.append(f"| {r.section} | {what} | {med} | {rng} | {len(r.samples)} | {r.ratio} | {r.target} | {r.result or verdict(r.ok)} |")
    return "\n".join(lines)


def ratio_samples(a: list[float], b: list[float]) -> list[float]:
    """Per-sample ratios a_i / b_i of two series measured alternately (pairs)."""
    return [x / y for x, y in zip(a, b) if y > 0]


def median(xs) -> float:
    return statistics.median(xs) if xs else float("nan")


# ---------------------------------------------------------------------------
# a real `streamlit run app.py` on 127.0.0.1 (loopback only)
# ---------------------------------------------------------------------------
def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def healthy(base: str) -> bool:
    try:
        with _NO_PROXY.open(f"{base}/_stcore/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


@dataclass
class Server:
    """A running `streamlit run app.py` (see streamlit_server)."""
    proc: subprocess.Popen
    base: str        # http://127.0.0.1:<port>
    t0: float        # time.perf_counter() just before the process was started
    _log: IO[bytes]

    def log(self) -> str:
        """Everything the server printed so far (stdout and stderr)."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def healthy(self) -> bool:
        return healthy(self.base)


@contextmanager
def streamlit_server(*, wait_healthy: bool = True, timeout: float = 60, watch_files: bool = True,
                     script: str = "app.py", address: str = "127.0.0.1") -> Iterator[Server]:
    """Start `streamlit run <script>` (app.py by default) on a free port of ``address`` (loopback by
    default; the storage tests also listen on this machine's LAN address, a plain-http origin); yields
    a Server. Used by the benchmark and by the browser and load tests.

    Its output goes to a temporary file, never a pipe (a chatty server would block on a full
    pipe). ``watch_files=False`` turns Streamlit's file watcher off (tests do not edit files).
    The process is always terminated (then killed) on exit.
    """
    port = free_port(address)
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
           "--server.address", address, "--server.port", str(port),
           "--browser.gatherUsageStats", "false"]
    if not watch_files:
        cmd += ["--server.fileWatcherType", "none"]
    log = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    server = Server(proc, f"http://{address}:{port}", t0, log)
    try:
        if wait_healthy:
            deadline = time.monotonic() + timeout
            while not server.healthy():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not start: " + server.log()[-2000:])
                time.sleep(0.05)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def rss_mb(pid: int) -> float:
    """Resident set size of a process in MB (VmRSS from /proc/<pid>/status)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError(f"no VmRSS for pid {pid}")


def browser_available() -> str | None:
    """None when Playwright and Debian's chromium are usable, else the reason."""
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright not installed"
    return None


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"
