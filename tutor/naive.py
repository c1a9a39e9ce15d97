"""① naive self-attention: no learned weights at all.

    S = X Xᵀ,   A = softmax(S),   Z = A X          (X: n × d, one token per row)

Its weaknesses, measured on the learner's own numbers (:func:`naive_weaknesses`), and the
named mistakes of the formula (:func:`naive_attention_mistake`: softmax down the column, no
e^, raw scores as weights, Xᵀ X instead of X Xᵀ), computed with the same steps.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import TIE_TOL, as_matrix, check_mistake, softmax

__all__ = [
    "NaiveAttentionResult",
    "naive_attention",
    "NaiveWeaknesses",
    "naive_weaknesses",
    "NAIVE_MISTAKES",
    "naive_attention_mistake",
    "naive_attention_variants",
]


# ---------------------------------------------------------------------------
# naive self-attention (8.2): no learned weights at all
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NaiveAttentionResult:
    scores: np.ndarray   # (n, n)  S = X Xᵀ (symmetric)
    weights: np.ndarray  # (n, n)  A = softmax(S), rows sum to 1
    output: np.ndarray   # (n, d)  Z = A X


def naive_attention(x) -> NaiveAttentionResult:
    """Naive self-attention: S = X·Xᵀ, A = softmax(S), Z = A·X.

    x: (n, d) one embedding per row. Returns every intermediate.
    """
    x = as_matrix(x, "埋め込み X", ndim=2)
    scores = x @ x.T                 # (n, n)
    weights = softmax(scores)        # (n, n)
    output = weights @ x             # (n, d)
    return NaiveAttentionResult(scores, weights, output)


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
    self_top: np.ndarray         # (n,) bool: a_ii is the largest weight of row i, alone (a tie is not "top")
    n_self_top: int              # how many rows look at themselves the most
    self_tied: np.ndarray        # (n,) bool: a_ii ties for the largest weight of row i with another key
    n_self_tied: int             # how many rows tie
    same_vector: bool            # the vector compared (key role) is the vector mixed (value role): always True
    n_params: int                # learnable parameters: 0


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
    self_tied = np.isclose(self_w, max_other_w, rtol=0.0, atol=TIE_TOL)   # (n,)
    self_top = (self_w > max_other_w) & ~self_tied            # (n,)
    return NaiveWeaknesses(res, bool(np.array_equal(res.scores, res.scores.T)), np.diag(res.scores).copy(),
                           s_other.max(axis=1), self_w, max_other_w, self_top, int(self_top.sum()), self_tied,
                           int(self_tied.sum()), True, 0)


# ---------------------------------------------------------------------------
# naive self-attention with one named mistake
# ---------------------------------------------------------------------------
NAIVE_MISTAKES = ("column_softmax", "no_exp", "no_softmax", "gram_transposed")


def naive_attention_mistake(x, mistake: str | None = None) -> NaiveAttentionResult:
    """S = X Xᵀ, A = softmax(S), Z = A X — or with one mistake:

    column_softmax: A = softmax(S, axis=0); no_exp: A = S / row sum (proportional, no e^);
    no_softmax: A = S (raw scores as weights); gram_transposed: S = Xᵀ X (d × d, needs d = n
    for A·X, otherwise only .scores is defined and weights/output are None).
    """
    check_mistake(mistake, NAIVE_MISTAKES, "naive_attention_mistake")
    if mistake is None:
        return naive_attention(x)
    x = as_matrix(x, "埋め込み X", ndim=2)
    return _naive_from_scores(x, x @ x.T, mistake)              # S: (n, n), as in tutor.naive_attention


def naive_attention_variants(x, mistakes=(None,) + NAIVE_MISTAKES) -> tuple[NaiveAttentionResult, ...]:
    """naive_attention_mistake for several mistakes of the SAME X at once:
    ``tuple(naive_attention_mistake(x, m) for m in mistakes)`` with the same numbers; X is checked
    and S = X Xᵀ computed once (the results share that score array: read it, never write it).
    None in ``mistakes`` is tutor.naive_attention itself (S, A = softmax(S), Z = A X). x: (n, d)."""
    for mistake in mistakes:
        check_mistake(mistake, NAIVE_MISTAKES, "naive_attention_variants")
    x = as_matrix(x, "埋め込み X", ndim=2)
    s = x @ x.T                                                  # (n, n), as in tutor.naive_attention
    return tuple(_naive_from_scores(x, s, mistake) for mistake in mistakes)


def _naive_from_scores(x: np.ndarray, s: np.ndarray, mistake) -> NaiveAttentionResult:
    """The body of naive_attention(_mistake) for a checked X (n, d) and its S = X Xᵀ (n, n)."""
    n, d = x.shape
    if mistake is None:
        a = softmax(s)                                           # (n, n), as tutor.naive_attention
    elif mistake == "gram_transposed":
        g = x.T @ x                                              # (d, d) — the wrong Gram matrix
        if d != n:
            return NaiveAttentionResult(g, None, None)
        a = softmax(g)
        return NaiveAttentionResult(g, a, a @ x)
    elif mistake == "column_softmax":
        a = softmax(s, axis=0)                                   # (n, n), columns sum to 1
    elif mistake == "no_exp":
        sums = s.sum(axis=1, keepdims=True)                      # (n, 1)
        if (sums <= 0).any():
            raise ValueError("行和が 0 以下の行があるため、比例配分の誤りは定義できません。")
        a = s / sums                                             # (n, n)
    else:  # no_softmax
        a = s
    return NaiveAttentionResult(s, a, a @ x)                     # output (n, d)
