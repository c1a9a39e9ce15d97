"""``python -m bench``: the tutor's performance benchmark (a script, not a timed test).

Sections (``--only`` takes one or more, comma-separated):

- ``pages``      each existing page's rerun time via AppTest, and its ratio to an empty page;
- ``coldstart``  `streamlit run app.py` to the first h1 in headless Chromium;
- ``engine``     bench.fast.fast_attention (and the textbook tutor.attention) vs torch SDPA
                 (or a NumPy reference without torch), n = 128, 512, 1024, h = 8, d_k = 64;
- ``tiled``      tiled vs plain attention, time and peak memory, n = 2048, 4096;
- ``questions``  questions generated per second, per generator and in total;
- ``memory``     server RSS with 1 and with 20 open browser sessions;
- ``training``   ⑧'s training run at the page's default and largest settings, wall and CPU time
                 (its target is for one core: ``taskset -c 0 python -m bench --only training``);
- ``felt``       felt latency in a real browser (input event → changed result painted, cold
                 opens), side by side with a one-slider floor app;
- ``phone``      the learning pages on an emulated mid-range phone (CPU 4× slower through CDP,
                 390×844 touch): cold opens and their total blocking time against the floor
                 app's, and a section switch against Streamlit's own page switch.

It prints one Markdown table (median, min–max, samples, side-by-side ratio, target,
PASS/FAIL). Progress goes to stderr.
"""
from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import time

from .common import Config, Row, format_table, load_average

__all__ = ["SECTIONS", "Config", "Row", "run", "format_table", "main", "environment"]


def _pages(cfg, details):
    from . import pages
    return pages.run(cfg)


def _coldstart(cfg, details):
    from . import browser
    return browser.run_coldstart(cfg)


def _engine(cfg, details):
    from . import engine
    return engine.run_engine(cfg)


def _tiled(cfg, details):
    from . import engine
    return engine.run_tiled(cfg)


def _questions(cfg, details):
    from . import questions
    return questions.run(cfg, details)


def _memory(cfg, details):
    from . import browser
    return browser.run_memory(cfg)


def _training(cfg, details):
    from . import training
    return training.run(cfg)


def _felt(cfg, details):
    from . import felt
    return felt.run(cfg)


def _phone(cfg, details):
    from . import phone
    return phone.run(cfg)


SECTIONS = {
    "pages": _pages,
    "coldstart": _coldstart,
    "engine": _engine,
    "tiled": _tiled,
    "questions": _questions,
    "memory": _memory,
    "training": _training,
    "felt": _felt,
    "phone": _phone,
}


def _quiet_streamlit() -> None:
    try:
        from streamlit.logger import set_log_level
        set_log_level("error")
    except Exception:
        pass


def run(names, cfg: Config, details: list[str] | None = None) -> list[Row]:
    """Run the named sections in order; a section that crashes becomes a FAIL row."""
    _quiet_streamlit()
    rows: list[Row] = []
    for name in names:
        cfg.log(f"[bench] {name} …")
        t = time.perf_counter()
        try:
            rows.extend(SECTIONS[name](cfg, details))
        except Exception as exc:  # keep the other sections' results
            rows.append(Row(name, "section crashed", [], "", ok=False, note=f"{type(exc).__name__}: {exc}"[:200]))
        cfg.log(f"[bench] {name} done in {time.perf_counter() - t:.1f} s")
    return rows


def environment() -> str:
    import numpy as np

    parts = [f"Python {platform.python_version()}", f"NumPy {np.__version__}"]
    try:
        import streamlit
        parts.append(f"Streamlit {streamlit.__version__}")
    except ImportError:
        pass
    try:
        import torch
        parts.append(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    except Exception:
        parts.append("torch not installed (NumPy reference)")
    try:
        from threadpoolctl import threadpool_info
        blas = [f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} × {i.get('num_threads')}"
                for i in threadpool_info() if i.get("user_api") == "blas"]
        parts.extend(blas)
    except ImportError:
        pass
    try:
        from bench.fast import _blas_one_thread
        parts.append("fast_attention: whole blocks per thread, OpenBLAS held to 1 thread (threadpoolctl)"
                     if _blas_one_thread.available else
                     "fast_attention: threadpoolctl missing, products on the caller thread")
    except Exception:
        pass
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    parts.append(f"{os.cpu_count()} CPUs {cpu}".strip())
    if os.environ.get("OPENBLAS_CORETYPE"):
        parts.append(f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']}")
    return ", ".join(parts)


def main(argv=None) -> str:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes and few samples (a smoke run)")
    ap.add_argument("--only", default="", help=f"comma-separated sections: {', '.join(SECTIONS)}")
    ap.add_argument("--repeat", type=int, default=None, help="samples per measurement (overrides defaults)")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.only.split(",") if s.strip()] or list(SECTIONS)
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        ap.error(f"unknown section(s) {unknown}; choose from {', '.join(SECTIONS)}")
    cfg = Config(quick=args.quick, repeat=args.repeat)
    load_before = load_average()
    started = _dt.datetime.now().astimezone()
    details: list[str] = []
    rows = run(names, cfg, details)
    text = [
        f"Benchmark run {started:%Y-%m-%d %H:%M %Z}{' (--quick)' if args.quick else ''}: {environment()}.",
        f"Load average (1/5/15 min) before: {load_before}, after: {load_average()}.",
        "",
        format_table(rows),
    ]
    if details:
        text += ["", *details]
    out = "\n".join(text)
    print(out, flush=True)
    return out
