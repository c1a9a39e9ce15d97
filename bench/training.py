"""⑧'s training runs (tutor.training.train) at the page's default and largest settings.

The page must stay usable on Community Cloud's smallest box, so the target is for ONE core:
run this section as ``taskset -c 0 python -m bench --only training`` (the row's note says how
many cores the process was allowed). Each sample is a whole run from a fresh seed-0 generator,
as the page's 「学習を始める」 does when its shared store has no such run (without the page's
live chart, which adds up to ~30 redraws). Both
wall time and this process's CPU time are reported: on a shared machine the wall time carries
the other processes' load, the CPU time does not. The note also gives the page's estimate
(tutor.training.estimate_seconds at the development pace) and the pace this run measured.
"""
from __future__ import annotations

import os
import time

from .common import Config, Row, median

DEFAULT_TARGET_S = 5.0   # issue 16 §1 ⑧: the default under ~5 s on one core


def _cores() -> str:
    try:
        return f"{len(os.sched_getaffinity(0))} core(s) allowed"
    except (AttributeError, OSError):
        return f"{os.cpu_count()} CPUs"


def settings():
    """(label, configs) of the measured runs: the page's default, its largest training, its largest experiment."""
    import tutor.training as T

    return [
        ("default (1 head, d_k 8, 150 steps)", (T.TrainConfig(),)),
        ("largest (2 heads, d_k 64, 300 steps)", (T.TrainConfig(n_heads=2, d_k=64, steps=300),)),
        ("experiment scaling (2 × d_k 64, 150 steps)", T.EXPERIMENTS["scaling"].configs),
    ]


def run(cfg: Config) -> list[Row]:
    from dataclasses import replace

    import numpy as np

    import tutor.training as T

    reps = cfg.reps(full=3, quick=1)
    rows = []
    for label, configs in settings():
        if cfg.quick:  # a smoke run: the same shapes, 10 steps each
            configs = tuple(replace(c, steps=10) for c in configs)
        walls, cpus = [], []
        for _ in range(reps):
            c0, t0 = time.process_time(), time.perf_counter()
            for c in configs:
                T.train(c, np.random.default_rng(0))
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        estimate = T.estimate_seconds(*configs)
        pace = T.measured_update_seconds(median(walls), *configs)
        is_default = label.startswith("default")
        rows.append(Row(
            "training", f"⑧ train {label}" + (" (--quick: 10 steps)" if cfg.quick else ""), walls, "s",
            target=f"≤ {DEFAULT_TARGET_S:g} s on one core" if is_default else "",
            ok=(median(walls) <= DEFAULT_TARGET_S) if is_default else None,
            note=(f"CPU {median(cpus):.2f} s; page estimate {estimate:.1f} s at "
                  f"{1e3 * T.DEFAULT_UPDATE_SECONDS:g} ms/update, measured {1e3 * pace:.2f} ms/update; "
                  f"{_cores()} (one core: taskset -c 0)"),
        ))
    return rows
