"""Engine helpers behind pages ①–④ (naive attention, Q/K/V, √d_k scaling, the full formula).

Each function turns the page's inputs into the numbers the page shows, so the pages hold no
arithmetic: the four weaknesses of naive attention, the naive-vs-Q/K/V comparison, softmax
saturation and its gradient, the measured spread of q·k as d_k grows, a cross-attention
example with a non-square weight matrix, and the "every row at once" contrast with an RNN.

Conventions: one token per row, weights on the right, softmax along rows, float64, inputs
never mutated, randomness only from a passed np.random.Generator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .core import (AttentionResult, CrossAttentionResult, NaiveAttentionResult, QKV, as_matrix, attention,
                   cross_attention, naive_attention, project_qkv, softmax)

__all__ = [
    "most_attended",
    "NaiveWeaknesses",
    "naive_weaknesses",
    "qkv_param_count",
    "QKVComparison",
    "compare_naive_qkv",
    "asymmetric_pairs",
    "SaturationPoint",
    "softmax_gradient",
    "saturation_point",
    "saturation_curve",
    "SATURATION_FACTORS",
    "SpreadExperiment",
    "dot_product_spread",
    "SPREAD_D_KS",
    "CROSS_DEC_TOKENS",
    "CROSS_X_DEC",
    "cross_example",
    "ParallelDemo",
    "parallel_demo",
]


# ---------------------------------------------------------------------------
# ① naive attention: its four weaknesses, measured on the page's own numbers
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class NaiveWeaknesses:
    result: NaiveAttentionResult
    symmetric: bool              # S == Sᵀ: "i → j" always equals "j → i"
    self_scores: np.ndarray      # (n,)  s_ii = |x_i|²
    max_other_scores: np.ndarray  # (n,) max_{j≠i} s_ij
    self_weights: np.ndarray     # (n,)  a_ii
    max_other_weights: np.ndarray  # (n,) max_{j≠i} a_ij
    self_top: np.ndarray         # (n,) bool: a_ii is the largest weight of row i (ties count)
    n_self_top: int              # how many rows look at themselves the most
    same_vector: bool            # the vector compared (key role) is the vector mixed (value role): always True
    n_params: int                # learnable parameters: 0


def most_attended(weights, query: int) -> int:
    """Index of the key that query ``query`` gives the largest weight (the first on a tie):
    argmax_j A[query, j]. weights: (n_q, n_k). Lets a page say "「それ」 looks mostly at 魚"
    only when the learner's numbers make it true."""
    a = as_matrix(weights, "重み", ndim=2)
    if not 0 <= int(query) < a.shape[0]:
        raise ValueError(f"クエリの番号 {query} が重み（形 {a.shape}）の範囲外です。")
    return int(np.argmax(a[int(query)]))


def naive_weaknesses(x) -> NaiveWeaknesses:
    """Naive attention S = X Xᵀ, A = softmax(S), Z = A X, plus the numbers behind its weaknesses.

    1. self-focus: s_ii = |x_i|² is usually the largest score of its row;
    2. only word similarity: S is symmetric (s_ij = s_ji), no role-based relation;
    3. the same x_j is both what is compared and what is handed over;
    4. nothing to learn: 0 parameters.
    x: (n, d) with n ≥ 2.
    """
    x = as_matrix(x, "埋め込み X", ndim=2)
    n, _ = x.shape
    if n < 2:
        raise ValueError(f"トークンが 2 つ以上必要です（X の形 {x.shape}）。")
    res = naive_attention(x)                                  # scores, weights (n, n); output (n, d)
    off = ~np.eye(n, dtype=bool)                              # (n, n) True off the diagonal
    s_other = np.where(off, res.scores, -np.inf)              # (n, n)
    a_other = np.where(off, res.weights, -np.inf)             # (n, n)
    self_w = np.diag(res.weights).copy()                      # (n,)
    max_other_w = a_other.max(axis=1)                         # (n,)
    self_top = self_w >= max_other_w                          # (n,)
    return NaiveWeaknesses(res, bool(np.array_equal(res.scores, res.scores.T)), np.diag(res.scores).copy(),
                           s_other.max(axis=1), self_w, max_other_w, self_top, int(self_top.sum()),
                           True, 0)


def qkv_param_count(d_model: int, d_k: int, d_v: int) -> int:
    """Learnable numbers in W_Q, W_K, W_V: d_model·d_k + d_model·d_k + d_model·d_v."""
    d_model, d_k, d_v = int(d_model), int(d_k), int(d_v)
    if min(d_model, d_k, d_v) < 1:
        raise ValueError(f"次元は 1 以上です（d_model = {d_model}, d_k = {d_k}, d_v = {d_v}）。")
    return d_model * (2 * d_k + d_v)


# ---------------------------------------------------------------------------
# ② Q/K/V: what changes compared with the naive version
# ---------------------------------------------------------------------------
def asymmetric_pairs(s) -> tuple[tuple[int, int], ...]:
    """Pairs (i, j), i < j, with s_ij ≠ s_ji, largest |s_ij − s_ji| first. s: (n, n)."""
    s = as_matrix(s, "スコア行列", ndim=2)
    n, m = s.shape
    if n != m:
        raise ValueError(f"正方行列が必要です（形 {s.shape}）。")
    gap = np.abs(s - s.T)                                     # (n, n)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if gap[i, j] > 1e-12 * max(1.0, abs(s[i, j]))]
    return tuple(sorted(pairs, key=lambda p: -gap[p]))


@dataclass(frozen=True, eq=False)
class QKVComparison:
    naive: NaiveAttentionResult  # S = X Xᵀ (symmetric)
    qkv: QKV                     # q, k (n, d_k); v (n, d_v)
    attn: AttentionResult        # scores QKᵀ, scaled, weights, output
    symmetric: bool              # is QKᵀ symmetric?
    asymmetric: tuple[tuple[int, int], ...]  # pairs whose two directions differ
    n_params: int                # learnable numbers in W_Q, W_K, W_V


def compare_naive_qkv(x, w_q, w_k, w_v) -> QKVComparison:
    """The naive version and the Q/K/V version on the same X, side by side.

    x: (n, d_model); w_q, w_k: (d_model, d_k); w_v: (d_model, d_v).
    """
    naive = naive_attention(x)                                # (n, n)
    qkv = project_qkv(x, w_q, w_k, w_v)                       # (n, d_k), (n, d_k), (n, d_v)
    attn = attention(qkv.q, qkv.k, qkv.v)                     # weights (n, n), output (n, d_v)
    pairs = asymmetric_pairs(attn.scores)
    d_model = np.asarray(x).shape[1]
    return QKVComparison(naive, qkv, attn, not pairs, pairs,
                         qkv_param_count(d_model, qkv.q.shape[1], qkv.v.shape[1]))


# ---------------------------------------------------------------------------
# ③ softmax saturation: weights and gradient as the scores grow
# ---------------------------------------------------------------------------
def softmax_gradient(scores) -> np.ndarray:
    """Jacobian of softmax for one row: J[i, j] = ∂a_i/∂s_j = a_i (δ_ij − a_j). s (n,) → J (n, n).

    When softmax is saturated (one a_i ≈ 1) every entry is ≈ 0: learning stalls.
    """
    s = as_matrix(scores, "スコア", ndim=1)                   # (n,)
    a = softmax(s)                                            # (n,)
    return np.diag(a) - np.outer(a, a)                        # (n, n)


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
    jac = softmax_gradient(cs)                                # (n, n)
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
# ④ self- vs cross-attention, and "all rows at once"
# ---------------------------------------------------------------------------
# A decoder that is writing the English translation "... it ate ...": two target tokens whose
# queries come from these embeddings (d_model = 4, like 猫・魚・それ). Inputs, not results.
CROSS_DEC_TOKENS = ("ate", "it")
CROSS_X_DEC = np.array([[0, 0, 1, 1],    # ate
                        [1, 1, 0, 0]],   # it
                       dtype=np.float64)
CROSS_X_DEC.flags.writeable = False


def cross_example(x_dec, x_enc, w_q, w_k, w_v) -> CrossAttentionResult:
    """Cross-attention (Source-Target Attention): Q from x_dec (n_tgt, d_model),
    K and V from x_enc (n_src, d_model) → weights (n_tgt, n_src), not square in general."""
    return cross_attention(x_dec, x_enc, w_q, w_k, w_v)


@dataclass(frozen=True, eq=False)
class ParallelDemo:
    matrix_output: np.ndarray    # (n, d_v) Z from one matrix product
    row_outputs: np.ndarray      # (n, d_v) each row computed on its own, in reverse order
    rows_agree: bool             # the two are equal: no row needs another row's result
    n: int
    rnn_sequential_steps: int    # an RNN needs n steps, each waiting for the previous one
    attention_sequential_steps: int  # attention: 1 (all rows in one matrix product)
    rnn_max_path: int            # steps between the first and the last token in an RNN: n − 1
    attention_max_path: int      # attention: 1 (every pair meets in one dot product)


def parallel_demo(q, k, v) -> ParallelDemo:
    """Z = softmax(QKᵀ/√d_k) V computed all at once and row by row (last row first).

    Row i only needs q_i and all of K, V, never z_{i−1}: the rows are independent, so all
    n rows run at the same time (one matrix product). An RNN must wait: h_i needs h_{i−1}.
    q: (n, d_k), k: (n, d_k), v: (n, d_v).
    """
    full = attention(q, k, v).output                                     # (n, d_v)
    q = as_matrix(q, "Q", ndim=2)
    n = q.shape[0]
    rows = np.empty_like(full)                                           # (n, d_v)
    for i in reversed(range(n)):
        rows[i] = attention(q[i:i + 1], k, v).output[0]                  # (d_v,)
    return ParallelDemo(full, rows, bool(np.allclose(full, rows, rtol=1e-12, atol=1e-12)), n,
                        n, 1, max(n - 1, 1), 1)
