"""④ the complete formula, end to end:  Attention(Q, K, V) = softmax(Q Kᵀ / √d_k + M) V.

``tutor.core.attention`` computes it from Q, K, V; this module computes it from a GIVEN score
table S = Q Kᵀ, correct or with ONE named mistake (``ATTENTION_MISTAKES``):

- ``no_scale``            forgot √d_k: softmax(Q Kᵀ + M) V
- ``divide_by_d_k``       divided by d_k instead of √d_k
- ``d_model``             divided by √d_model instead of √d_k (needs ``d_model``)
- ``column_softmax``      softmax down each column (axis = -2) instead of along each row
- ``no_softmax``          used the scaled scores themselves as weights (not normalised)
- ``no_normalise``        exp(scores) without dividing by the row sum
- ``uniform``             a plain average over the keys that may be seen (scores ignored)
- ``mask_after_softmax``  softmax first, then zero the masked weights (rows no longer sum to 1)
- ``zero_fill``           masked scores set to 0 instead of −∞ (they still get e⁰ = 1)
- ``no_mask``             the mask forgotten
- ``mask_transposed``     the mask read the wrong way round (hides the past instead of the future)
- ``transposed_scores``   K Qᵀ instead of Q Kᵀ: entry (i, j) becomes k_i · q_j (needs n_q = n_k)
- ``k_not_transposed``    Q K instead of Q Kᵀ (only defined when d_k = n_k)

``mistake=None`` always means the correct formula and agrees with ``tutor.attention``. Also:
softmax from given e^s values (as a stem shows them), the shapes of every step, and the
"every row at once" contrast with an RNN (:func:`parallel_demo`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import AttentionResult, additive_mask, as_matrix, attention, check_mistake, checked_qkv, mask_after_softmax, softmax
from .scaling import checked_scores, divisor_with_mistake

__all__ = [
    "ParallelDemo",
    "parallel_demo",
    "ATTENTION_MISTAKES",
    "attention_from_scores",
    "attention_variants",
    "attention_mistake",
    "exp_values",
    "softmax_from_exps",
    "attention_shapes",
]


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


ATTENTION_MISTAKES = (
    "no_scale", "divide_by_d_k", "d_model", "column_softmax", "no_softmax", "no_normalise",
    "uniform", "mask_after_softmax", "zero_fill", "no_mask", "mask_transposed",
    "transposed_scores", "k_not_transposed",
)


def attention_from_scores(scores, v=None, *, d_k: int, mask=None, mistake: str | None = None,
                          d_model: int | None = None) -> AttentionResult:
    """softmax(S / √d_k + M) · V for a GIVEN score table S = Q Kᵀ (or one named mistake).

    scores: (n_q, n_k) (or batched (..., n_q, n_k)); v: (n_k, d_v) or None (then .output is None);
    mask: bool broadcastable to scores, True = may attend. Returns AttentionResult with every step.
    """
    check_mistake(mistake, ATTENTION_MISTAKES, "attention_from_scores")
    s, d_k = checked_scores(scores, d_k)
    return _from_scores(s, v, d_k, mask, mistake, d_model)


def attention_variants(scores, v=None, *, d_k: int, mask=None, mistakes=(None,),
                       d_model: int | None = None) -> tuple[AttentionResult, ...]:
    """attention_from_scores for several mistakes of the SAME scores / V / mask, in the order given:
    ``tuple(attention_from_scores(scores, v, d_k=d_k, mask=mask, mistake=m, d_model=d_model)
    for m in mistakes)``. None in ``mistakes`` is the correct formula."""
    return tuple(attention_from_scores(scores, v, d_k=d_k, mask=mask, mistake=m, d_model=d_model) for m in mistakes)


def _from_scores(s, v, d_k: int, mask, mistake, d_model) -> AttentionResult:
    """softmax(S / √d_k + M) · V for checked scores s (..., n_q, n_k), correct or with one mistake:

    1. S = Q Kᵀ as given (K Qᵀ for transposed_scores)
    2. S̃ = S / √d_k (the divisor mistakes: 1, d_k, √d_model)
    3. S̃ + M, M = 0 where ``mask`` allows and −∞ elsewhere (the mask mistakes: forgotten, transposed,
       0 instead of −∞, applied after softmax)
    4. A = softmax along each row (the weight mistakes: down the column, raw scores, no division
       by the row sum, a plain average)
    5. Z = A V (when V is given)
    """
    n_q, n_k = s.shape[-2:]
    if mistake == "transposed_scores":
        if n_q != n_k:
            raise ValueError(f"K Qᵀ の取り違えは n_q = n_k のときだけ定義できます（形 {s.shape}）。")
        s = np.swapaxes(s, -1, -2)                               # (..., n_k, n_q): entry (i, j) = k_i · q_j
    divisor = divisor_with_mistake(d_k, mistake, d_model)
    scaled = s / divisor                                         # (..., n_q, n_k)

    visible = None                                               # None: every key may be seen
    if mask is not None and mistake != "no_mask":
        visible = np.broadcast_to(np.asarray(mask, dtype=bool), s.shape)   # (..., n_q, n_k)
        if mistake == "mask_transposed":
            visible = np.swapaxes(visible, -1, -2)               # hides the past instead of the future
        if not visible.any(axis=-1).all():
            raise ValueError("すべてのキーがマスクされた行があります。少なくとも 1 つは見てよいキーが必要です。")
    if visible is None or mistake == "mask_after_softmax":
        masked = scaled                                          # no mask (yet: after softmax it comes)
    elif mistake == "zero_fill":
        masked = np.where(visible, scaled, 0.0)                  # 0 instead of −∞: still e⁰ = 1
    else:
        masked = scaled + additive_mask(visible)                 # −∞ where hidden

    if mistake == "column_softmax":
        weights = softmax(masked, axis=-2)                       # each COLUMN sums to 1
    elif mistake == "no_softmax":
        weights = np.where(np.isneginf(masked), 0.0, masked)     # scores used as weights
    elif mistake == "no_normalise":
        weights = np.exp(masked)                                 # e^s, never divided by the row sum
    elif mistake == "uniform":
        seen = np.ones(s.shape, dtype=bool) if visible is None else visible
        weights = seen / seen.sum(axis=-1, keepdims=True)        # plain average over visible keys
    elif mistake == "mask_after_softmax":
        seen = np.ones(s.shape, dtype=bool) if visible is None else visible
        weights = mask_after_softmax(softmax(scaled), seen)      # rows no longer sum to 1
    else:
        weights = softmax(masked)                                # (..., n_q, n_k)

    output = None
    if v is not None:
        v = as_matrix(v, "V", ndim=(2, 3))
        if v.shape[-2] != n_k:
            raise ValueError(f"スコア（形 {s.shape}）のキー数 {n_k} と V（形 {v.shape}）の行数が一致しません。")
        output = weights @ v                                     # (..., n_q, d_v)
    return AttentionResult(s, scaled, masked, weights, output, divisor)


def attention_mistake(q, k, v, mask=None, *, mistake: str | None = None,
                      d_model: int | None = None) -> AttentionResult:
    """softmax(Q Kᵀ / √d_k + M) V, or the same with one named mistake (see module docstring).

    q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v). mistake=None returns tutor.attention itself.
    """
    check_mistake(mistake, ATTENTION_MISTAKES, "attention_mistake")
    if mistake is None:
        return attention(q, k, v, mask)
    q = as_matrix(q, "Q", ndim=2)
    k = as_matrix(k, "K", ndim=2)
    v = as_matrix(v, "V", ndim=2)
    n_q, d_k = q.shape
    n_k, d_k2 = k.shape
    if d_k != d_k2:
        raise ValueError(f"Q（形 {q.shape}）と K（形 {k.shape}）の d_k が一致しません。")
    if mistake == "k_not_transposed":
        if d_k != n_k:
            raise ValueError(f"Q·K（転置なし）は d_k = n_k のときだけ計算できます（Q {q.shape}, K {k.shape}）。")
        scores = q @ k                                           # (n_q, n_k) — the wrong product
        return attention_from_scores(scores, v, d_k=d_k, mask=mask)
    checked_qkv(q, k, v, same_leading=False)                     # the checks of tutor.attention
    scores = q @ k.swapaxes(-1, -2)                              # (n_q, n_k) = Q Kᵀ, as tutor.attention
    return attention_from_scores(scores, v, d_k=d_k, mask=mask, mistake=mistake, d_model=d_model)


def exp_values(x) -> np.ndarray:
    """e^x element-wise (for the hints a hand calculation needs, e.g. e² ≈ 7.389)."""
    return np.exp(as_matrix(x, "x"))


def softmax_from_exps(exps, axis: int = -1) -> np.ndarray:
    """softmax as a hand calculation does it from GIVEN values e_k of e^{s_k}: a_j = e_j / Σ_k e_k
    along ``axis`` (the last axis: one row per query; axis=0: the column-softmax mistake).

    For a question whose stem gives e^s rounded (e² ≈ 7.389): with those rounded e_k the weights are
    what a learner gets from the stem's numbers (with the exact e^s this is tutor.softmax).
    exps: (n,) or (..., n_q, n_k), every entry > 0."""
    e = as_matrix(exps, "e^s の値")
    if (e <= 0).any():
        raise ValueError(f"e^s の値は正の数が必要です（{e.tolist()}）。")
    return e / e.sum(axis=axis, keepdims=True)                   # same shape as exps


# ---------------------------------------------------------------------------
# the shape of every step
# ---------------------------------------------------------------------------
def attention_shapes(n_q: int, n_k: int, d_k: int, d_v: int) -> dict[str, tuple[int, ...]]:
    """Shapes of every step of attention, found by running tutor.attention on ones:
    keys 'Q', 'K', 'V', 'scores', 'weights', 'output'."""
    dims = [int(n_q), int(n_k), int(d_k), int(d_v)]
    if min(dims) <= 0:
        raise ValueError(f"形の各次元は 1 以上が必要です（n_q, n_k, d_k, d_v = {dims}）。")
    q, k, v = np.ones((dims[0], dims[2])), np.ones((dims[1], dims[2])), np.ones((dims[1], dims[3]))
    r = attention(q, k, v)
    return {"Q": q.shape, "K": k.shape, "V": v.shape, "scores": r.scores.shape,
            "weights": r.weights.shape, "output": r.output.shape}
