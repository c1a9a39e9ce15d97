"""③ why Q Kᵀ is divided by √d_k.

    Var(q · k) = d_k   (d_k independent components of mean 0 and variance 1)
    Var(q · k / √d_k) = 1

Large scores saturate softmax (one weight ≈ 1) and its Jacobian ≈ 0: learning stalls. This
module measures both (:func:`saturation_point`, :func:`dot_product_spread`), gives √d_k and
the divisor mistakes (no scale, d_k, √d_model) next to it, and the hand-calculable score rows
the questions use (:func:`ln_scores`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .core import as_matrix, check_mistake, softmax, softmax_jacobian

__all__ = [
    "SaturationPoint",
    "saturation_point",
    "SATURATION_FACTORS",
    "saturation_curve",
    "SPREAD_D_KS",
    "SpreadExperiment",
    "dot_product_spread",
    "divisor_with_mistake",
    "SCALE_MISTAKES",
    "scale_scores",
    "checked_scores",
    "ln_scores",
    "score_divisor",
    "dot_product_variance",
    "scaled_variance",
]


@dataclass(frozen=True, eq=False)
class SaturationPoint:
    factor: float                # c: the scores used are c · s
    scores: np.ndarray           # (n,)  c · s
    weights: np.ndarray          # (n,)  softmax(c · s)
    jacobian: np.ndarray         # (n, n) ∂a/∂s at c · s
    max_weight: float            # largest weight (1 = winner takes all)
    gradient: float              # largest |∂a_i/∂s_j| (0 = nothing to learn from)


def saturation_point(scores, factor: float = 1.0) -> SaturationPoint:
    """softmax(c·s) and its gradient. scores: (n,), factor c > 0.

    The largest |J_ij| is ≤ 1/4 (reached when two weights are 1/2) and → 0 as c grows.
    """
    s = as_matrix(scores, "スコア", ndim=1)                   # (n,)
    c = float(factor)
    if not math.isfinite(c) or c <= 0:
        raise ValueError(f"倍率 c は正の有限な数です（c = {factor}）。")
    cs = c * s                                                # (n,)
    a = softmax(cs)                                           # (n,)
    jac = softmax_jacobian(cs)                                # (n, n)
    return SaturationPoint(c, cs, a, jac, float(a.max()), float(np.abs(jac).max()))


SATURATION_FACTORS = tuple(np.round(np.arange(0.5, 20.01, 0.5), 2).tolist())


def saturation_curve(scores, factors=SATURATION_FACTORS) -> tuple[SaturationPoint, ...]:
    """saturation_point for every factor (for a chart of max weight and gradient vs c).

    Default factors: 0.5, 1.0, …, 20.0 (the slider's range on page ③)."""
    factors = as_matrix(factors, "倍率の列", ndim=1)          # (m,)
    return tuple(saturation_point(scores, c) for c in factors)


SPREAD_D_KS = (2, 8, 64, 512)


@dataclass(frozen=True, eq=False)
class SpreadExperiment:
    d_ks: tuple[int, ...]
    n_samples: int
    n_keys: int
    raw_std: np.ndarray          # (len(d_ks),) measured std of q·k
    theory_std: np.ndarray       # (len(d_ks),) √d_k
    scaled_std: np.ndarray       # (len(d_ks),) measured std of q·k / √d_k (≈ 1)
    raw_max_weight: np.ndarray   # (len(d_ks),) mean of the largest softmax weight over n_keys keys, unscaled
    scaled_max_weight: np.ndarray  # (len(d_ks),) the same with scaling
    examples: np.ndarray         # (len(d_ks), 5) a few measured q·k values per d_k


def dot_product_spread(rng: np.random.Generator, d_ks: Sequence[int] = SPREAD_D_KS, n_samples: int = 400,
                       n_keys: int = 8) -> SpreadExperiment:
    """Measure how far q·k spreads when q, k have independent unit-variance entries.

    For each d_k: q ~ N(0, 1)^{d_k}, k_1 … k_{n_keys} ~ N(0, 1)^{d_k}, n_samples times.
    Var(q·k) = Σ Var(q_t k_t) = d_k, so the std is √d_k; dividing by √d_k brings it back to 1.
    Also the mean largest softmax weight over the n_keys keys, without and with scaling.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError("乱数は np.random.Generator（np.random.default_rng(シード)）で渡してください。")
    d_ks = tuple(int(d) for d in d_ks)
    if not d_ks or min(d_ks) < 1:
        raise ValueError(f"d_k は 1 以上の整数の列です（{d_ks}）。")
    n_samples, n_keys = int(n_samples), int(n_keys)
    if n_samples < 2 or n_keys < 2:
        raise ValueError(f"試行回数とキーの数は 2 以上です（{n_samples}, {n_keys}）。")
    raw_std, scaled_std, raw_max, scaled_max, examples = [], [], [], [], []
    for d_k in d_ks:
        q = rng.standard_normal((n_samples, 1, d_k))                     # (S, 1, d_k)
        k = rng.standard_normal((n_samples, n_keys, d_k))                # (S, n_keys, d_k)
        dots = np.einsum("sid,skd->sk", q, k)                            # (S, n_keys)
        scaled = dots / math.sqrt(d_k)                                   # (S, n_keys)
        raw_std.append(dots.std())
        scaled_std.append(scaled.std())
        raw_max.append(softmax(dots).max(axis=-1).mean())
        scaled_max.append(softmax(scaled).max(axis=-1).mean())
        examples.append(dots[:5, 0])                                     # (5,)
    return SpreadExperiment(d_ks, n_samples, n_keys, np.array(raw_std), np.sqrt(np.array(d_ks, dtype=np.float64)),
                            np.array(scaled_std), np.array(raw_max), np.array(scaled_max), np.array(examples))


# ---------------------------------------------------------------------------
# the divisor √d_k and its named mistakes
# ---------------------------------------------------------------------------
def divisor_with_mistake(d_k: int, mistake, d_model) -> float:
    if mistake == "no_scale":
        return 1.0
    if mistake == "divide_by_d_k":
        return float(d_k)
    if mistake == "d_model":
        if d_model is None:
            raise ValueError("誤り 'd_model'（√d_model で割る）には d_model の指定が必要です。")
        return score_divisor(d_model)
    return score_divisor(d_k)


SCALE_MISTAKES = ("no_scale", "divide_by_d_k", "d_model")


def scale_scores(scores, d_k: int, *, mistake: str | None = None, d_model: int | None = None) -> np.ndarray:
    """The scaling step alone: S / √d_k (= attention_from_scores(S, d_k=d_k).scaled), or with one
    divisor mistake: no_scale → S itself, divide_by_d_k → S / d_k, d_model → S / √d_model.

    scores: (n_q, n_k) or one row (n_k,), returned as (1, n_k) as in attention_from_scores.
    For a question that asks only for the scaled scores: no softmax is computed."""
    check_mistake(mistake, SCALE_MISTAKES, "scale_scores")
    s, d_k = checked_scores(scores, d_k)                        # (..., n_q, n_k); one row → (1, n_k)
    return s / divisor_with_mistake(d_k, mistake, d_model)                   # (..., n_q, n_k)


def checked_scores(scores, d_k) -> tuple[np.ndarray, int]:
    s = as_matrix(scores, "スコア QKᵀ", ndim=(1, 2, 3))
    if s.ndim == 1:
        s = s[None, :]                                           # (1, n_k)
    d_k = int(d_k)
    if d_k <= 0:
        raise ValueError(f"d_k は 1 以上が必要です（d_k = {d_k}）。")
    return s, d_k


def ln_scores(multipliers, d_k: int) -> np.ndarray:
    """Scores s_j = √d_k · ln m_j: after dividing by √d_k they are ln m_j, and softmax gives
    exactly m_j / Σ m. Makes a hand-calculable row (m = 3, 1, 2 → weights 1/2, 1/6, 1/3)."""
    m = as_matrix(multipliers, "倍率 m", ndim=(1, 2))
    if (m <= 0).any():
        raise ValueError(f"倍率 m は正の数が必要です（{m.tolist()}）。")
    return score_divisor(d_k) * np.log(m)


# ---------------------------------------------------------------------------
# scaling facts
# ---------------------------------------------------------------------------
def score_divisor(d_k) -> float:
    """√d_k, the number Q Kᵀ is divided by."""
    d_k = float(d_k)
    if not math.isfinite(d_k) or d_k <= 0:
        raise ValueError(f"d_k は正の数が必要です（d_k = {d_k}）。")
    return math.sqrt(d_k)


def dot_product_variance(d_k: int) -> float:
    """Var(q · k) = d_k when the d_k components of q and k are independent, mean 0, variance 1
    (a sum of d_k products, each of variance 1)."""
    d_k = int(d_k)
    if d_k <= 0:
        raise ValueError(f"d_k は 1 以上の整数が必要です（d_k = {d_k}）。")
    return float(d_k)


def scaled_variance(d_k: int, divisor: float) -> float:
    """Var(q · k / c) = d_k / c²; with c = √d_k it is 1 again."""
    c = float(divisor)
    if not np.isfinite(c) or c <= 0:
        raise ValueError(f"割る数は正の数が必要です（{c}）。")
    return dot_product_variance(d_k) / (c * c)
