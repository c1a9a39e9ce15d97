"""② queries, keys and values: S = Q Kᵀ with Q = X W_Q, K = X W_K, V = X W_V.

``tutor.core`` projects (``project_qkv``) and attends (``attention``); this module shows what
changes compared with ① — the score table is no longer symmetric, there are parameters to
learn — and the score table alone with its named mistake (K Qᵀ instead of Q Kᵀ).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import AttentionResult, QKV, as_matrix, attention, check_mistake, project_qkv
from .naive import NaiveAttentionResult, naive_attention

__all__ = [
    "qkv_param_count",
    "asymmetric_pairs",
    "QKVComparison",
    "compare_naive_qkv",
    "SCORE_MISTAKES",
    "score_table",
]


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


SCORE_MISTAKES = ("transposed_scores",)


def score_table(q, k, *, mistake: str | None = None) -> np.ndarray:
    """The score table alone, the first step of tutor.attention: S = Q Kᵀ (= tutor.attention(q, k, v).scores),
    or with mistake='transposed_scores' K Qᵀ, whose entry (i, j) is k_i · q_j (needs n_q = n_k).

    q: (n_q, d_k), k: (n_k, d_k) → (n_q, n_k). With q = k = X it is the naive table X Xᵀ.
    For a question that needs only scores: no softmax and no output are computed."""
    check_mistake(mistake, SCORE_MISTAKES, "score_table")
    q = as_matrix(q, "Q", ndim=2)
    k = as_matrix(k, "K", ndim=2)
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"Q（形 {q.shape}）と K（形 {k.shape}）の d_k が一致しません。内積 QKᵀ がとれません。")
    scores = q @ k.swapaxes(-1, -2)                              # (n_q, n_k), as in tutor.attention
    if mistake == "transposed_scores":
        if q.shape[0] != k.shape[0]:
            raise ValueError(f"K Qᵀ の取り違えは n_q = n_k のときだけ定義できます（Q {q.shape}, K {k.shape}）。")
        return scores.swapaxes(-1, -2)                           # (n_k, n_q): entry (i, j) = k_i · q_j
    return scores
