"""Engine attention vs a reference in the same process, and tiled vs plain attention.

Reference: ``torch.nn.functional.scaled_dot_product_attention`` on the CPU (float64, 4-D
tensors (1, h, n, d): with 3-D input torch falls back to a slower path) when torch imports,
else a plain NumPy softmax(QKᵀ/√d)V. The implementations are sampled alternately, with a
≈ 0.2 s pause before every sample (OpenBLAS threads keep spinning for a while after a NumPy
call and would slow whatever runs next).
"""
from __future__ import annotations

import gc
import time
import tracemalloc

import numpy as np

from .common import Config, Row, median, ratio_samples

PAUSE = 0.2
H, D = 8, 64
TARGET_PLAIN = 1.3
TARGET_CAUSAL = 1.5
TARGET_TILED = 2.0


def numpy_reference(q, k, v, causal=False):
    """The textbook formula in plain NumPy: softmax(QKᵀ/√d_k [+ M]) V."""
    d = q.shape[-1]
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)                  # (..., n, n)
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return (e / e.sum(axis=-1, keepdims=True)) @ v               # (..., n, d_v)


def reference():
    """(name, make_inputs(q, k, v) -> args, call(args, causal) -> ndarray)."""
    try:
        import torch
        import torch.nn.functional as F
    except Exception:  # torch is optional (benchmark only)
        return ("NumPy textbook reference", lambda q, k, v: (q, k, v),
                lambda a, causal: numpy_reference(*a, causal=causal))

    def call(a, causal):
        with torch.no_grad():
            return F.scaled_dot_product_attention(*a, is_causal=causal)

    return (f"torch {torch.__version__} SDPA (CPU, {torch.get_num_threads()} threads)",
            lambda q, k, v: tuple(torch.from_numpy(x) for x in (q, k, v)), call)


def _sample(fn) -> float:
    time.sleep(PAUSE)
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1e3


def run_engine(cfg: Config) -> list[Row]:
    import tutor
    from bench.fast import fast_attention

    ref_name, convert, ref_call = reference()
    sizes = (64, 128) if cfg.quick else (128, 512, 1024)
    reps = cfg.reps(full=15, quick=2)
    rng = np.random.default_rng(0)
    rows: list[Row] = []
    for n in sizes:
        q, k, v = (rng.standard_normal((1, H, n, D)) for _ in range(3))  # (1, h, n, d)
        args = convert(q, k, v)
        for causal in (False, True):
            mask = tutor.causal_mask(n) if causal else None
            impls = {
                "fast": lambda: fast_attention(q, k, v, causal),
                "ref": lambda: ref_call(args, causal),
                "textbook": lambda: tutor.attention(q, k, v, mask),
            }
            out_fast = impls["fast"]()
            err = float(np.max(np.abs(out_fast - np.asarray(impls["ref"]()))))
            err_tb = float(np.max(np.abs(out_fast - impls["textbook"]().output)))
            cfg.log(f"  engine: n={n} causal={causal}  |fast−ref| = {err:.1e}, |fast−textbook| = {err_tb:.1e}")
            t: dict[str, list[float]] = {name: [] for name in impls}
            for _ in range(reps):
                for name, fn in impls.items():  # alternate sample by sample
                    t[name].append(_sample(fn))
            label = f"n={n}, h={H}, d_k={D}, " + ("causal" if causal else "no mask")
            r_fast = median(ratio_samples(t["fast"], t["ref"]))
            r_tb = median(ratio_samples(t["textbook"], t["ref"]))
            target, ok = "", None
            if n == 1024:
                lim = TARGET_CAUSAL if causal else TARGET_PLAIN
                target, ok = f"≤ {lim}× reference", r_fast <= lim
            rows.append(Row("engine", f"reference: {ref_name}, {label}", t["ref"], "ms"))
            rows.append(Row("engine", f"bench.fast.fast_attention, {label}", t["fast"], "ms",
                            ratio=f"{r_fast:.2f}× reference", target=target, ok=ok,
                            note=f"max abs Δ {err:.0e}"))
            rows.append(Row("engine", f"tutor.attention (textbook, all intermediates), {label}", t["textbook"], "ms",
                            ratio=f"{r_tb:.2f}× reference"))
    return rows


def _peak_bytes(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_tiled(cfg: Config) -> list[Row]:
    import tutor
    from tutor.cost import tiled_attention

    sizes = (256, 512) if cfg.quick else (2048, 4096)
    reps = cfg.reps(full=5, quick=2)
    block = 64
    rng = np.random.default_rng(1)
    rows: list[Row] = []
    for n in sizes:
        q, k, v = (rng.standard_normal((1, n, D)) for _ in range(3))  # one head (1, n, d)
        plain = lambda: tutor.attention(q, k, v).output
        tiled = lambda: tiled_attention(q, k, v, block_size=block)
        res = tiled()
        err = float(np.max(np.abs(res.output - plain())))
        t_plain, t_tiled = [], []
        for _ in range(reps):
            t_plain.append(_sample(plain))
            t_tiled.append(_sample(tiled))
        mem_plain = _peak_bytes(plain) / 2**20
        mem_tiled = _peak_bytes(tiled) / 2**20
        tile_mb = res.peak_score_elements * 8 / 2**20
        bound_mb = 4 * n * max(block, D) * 8 / 2**20   # O(n·block): a few n × block arrays
        r = median(ratio_samples(t_tiled, t_plain))
        label = f"n={n}, h=1, d_k={D}, block={block}"
        rows.append(Row("tiled", f"plain tutor.attention, {label}", t_plain, "ms"))
        rows.append(Row("tiled", f"tutor.cost.tiled_attention, {label}", t_tiled, "ms", ratio=f"{r:.2f}× plain",
                        target=f"≤ {TARGET_TILED:.0f}× plain", ok=r <= TARGET_TILED, note=f"max abs Δ {err:.0e}"))
        rows.append(Row("tiled", f"peak memory plain, {label} (tracemalloc)", [mem_plain], "MB"))
        rows.append(Row("tiled", f"peak memory tiled, {label} (tracemalloc; score tile {tile_mb:.3f} MB)",
                        [mem_tiled], "MB", ratio=f"{mem_tiled / mem_plain:.4f}× plain",
                        target=f"O(n·block): ≤ 4·n·block·8 B = {bound_mb:.1f} MB", ok=mem_tiled <= bound_mb))
    return rows
