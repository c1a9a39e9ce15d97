"""Questions generated per second: per generator (``quizzes.GENERATORS``) and in total.

Each sample asks one generator for fresh seeds (never a seed twice in the run) for at least
``window`` seconds. The total is the number of questions over the time of one round over
every generator (the mix a mock exam draws from). The numbers are reported, not judged: a learner
spends ~40 s on a question, so no rate a generator reaches here is felt.
"""
from __future__ import annotations

import time

from .common import Config, Row, median


def _rate(make, start_seed: int, window: float) -> tuple[float, float, int, float, float]:
    """(questions/s by wall clock, questions/s by this process's CPU time, count, wall s, CPU s)
    for fresh seeds start_seed, start_seed + 1, … (CPU time ignores other processes' load)."""
    n = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while True:
        make(start_seed + n)
        n += 1
        el = time.perf_counter() - t0
        if el >= window:
            cpu = max(time.process_time() - c0, 1e-9)
            return n / el, n / cpu, n, el, cpu


def measure(cfg: Config) -> tuple[dict[str, list[float]], list[float], dict[str, list[float]], list[float]]:
    import quizzes

    reps = cfg.reps(full=5, quick=1)
    window = 0.02 if cfg.quick else 0.06
    per: dict[str, list[float]] = {gid: [] for gid in quizzes.GENERATORS}
    per_cpu: dict[str, list[float]] = {gid: [] for gid in quizzes.GENERATORS}
    totals: list[float] = []
    totals_cpu: list[float] = []
    seed = 1_000
    for _ in range(reps):
        count, secs, cpu_secs = 0, 0.0, 0.0
        for gid, make in quizzes.GENERATORS.items():
            qps, qps_cpu, n, el, cpu = _rate(make, seed, window)
            per[gid].append(qps)
            per_cpu[gid].append(qps_cpu)
            count, secs, cpu_secs = count + n, secs + el, cpu_secs + cpu
        seed += 1_000_000
        totals.append(count / secs)
        totals_cpu.append(count / cpu_secs)
    return per, totals, per_cpu, totals_cpu


def run(cfg: Config, details: list[str] | None = None) -> list[Row]:
    import quizzes

    per, totals, per_cpu, totals_cpu = measure(cfg)
    rows = [Row("questions", f"all {len(per)} generators together (questions/s)", totals, "q/s",
                note=f"by CPU time {median(totals_cpu):,.0f} q/s")]
    ranked = sorted(per.items(), key=lambda kv: median(kv[1]))
    kinds = {"calc": [], "knowledge": []}
    kinds_cpu = {"calc": [], "knowledge": []}
    for gid, s in per.items():
        kinds[quizzes.GENERATOR_INFO[gid][1]].append(median(s))
        kinds_cpu[quizzes.GENERATOR_INFO[gid][1]].append(median(per_cpu[gid]))
    for kind, meds in kinds.items():
        if meds:
            rows.append(Row("questions", f"{kind} generators: median of the per-generator rates", meds, "q/s",
                            note=f"by CPU time: median {median(kinds_cpu[kind]):,.0f} q/s"))
    gid, s = ranked[0]
    rows.append(Row("questions", f"slowest generator: {gid}", s, "q/s",
                    note=f"by CPU time {median(per_cpu[gid]):,.0f} q/s"))
    if details is not None:
        details.append(f"Questions per second per generator (median of {len(ranked[0][1])}):\n")
        details.append("| generator | topic | kind | q/s (median) | min – max | q/s by CPU time |")
        details.append("|---|---|---|---:|---:|---:|")
        for gid, s in ranked:
            topic, kind, _ = quizzes.GENERATOR_INFO[gid]
            details.append(f"| {gid} | {topic} | {kind} | {median(s):,.0f} | {min(s):,.0f} – {max(s):,.0f} | "
                           f"{median(per_cpu[gid]):,.0f} |")
    return rows
