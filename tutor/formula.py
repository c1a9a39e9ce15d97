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
from .scaling import SCALE_MISTAKES, checked_scores, divisor_with_mistake

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
    return _from_scores(s, v, d_k, mask, mistake, d_model, None)


def attention_variants(scores, v=None, *, d_k: int, mask=None, mistakes=(None,),
                       d_model: int | None = None) -> tuple[AttentionResult, ...]:
    """attention_from_scores for several mistakes of the SAME scores / V / mask at once:
    ``tuple(attention_from_scores(scores, v, d_k=d_k, mask=mask, mistake=m, d_model=d_model)
    for m in mistakes)`` with the same numbers; the checks of S, V and the mask and the additive
    mask M are done once. None in ``mistakes`` is the correct formula. Each result owns its arrays."""
    for mistake in mistakes:
        check_mistake(mistake, ATTENTION_MISTAKES, "attention_variants")
    s, d_k = checked_scores(scores, d_k)
    if mask is None and len(mistakes) > 1 and all(m is None or m in _SCALE_FAMILY for m in mistakes):
        return _scale_variants(s, v, d_k, mistakes, d_model)
    shared: dict = {}
    return tuple(_from_scores(s, v, d_k, mask, mistake, d_model, shared) for mistake in mistakes)


# the mistakes _scale_variants runs together (no mask): the divisor ones, and no_softmax (S / √d_k as weights)
_SCALE_FAMILY = SCALE_MISTAKES + ("no_softmax",)


def _scale_variants(s: np.ndarray, v, d_k: int, mistakes, d_model) -> tuple[AttentionResult, ...]:
    """attention_variants with no mask when every variant differs only in its divisor (the right
    √d_k, no_scale, divide_by_d_k, d_model) or skips softmax (no_softmax): S / d for all divisors in one division and
    softmax(S / d) in one softmax over the stack. Both work element by element / row by row along
    the last axis, so each slice is bit for bit S / d and softmax(S / d) of that variant alone
    (tested against attention_from_scores); the slices are disjoint (each result owns its arrays)."""
    divisors = [divisor_with_mistake(d_k, mistake, d_model) for mistake in mistakes]
    scaled = s / np.array(divisors).reshape((-1,) + (1,) * s.ndim)     # (m, ..., n_q, n_k)
    weights = softmax(scaled)                                          # (m, ..., n_q, n_k)
    if v is not None:
        v = as_matrix(v, "V", ndim=(2, 3))
        if v.shape[-2] != s.shape[-1]:
            raise ValueError(f"スコア（形 {s.shape}）のキー数 {s.shape[-1]} と V（形 {v.shape}）の行数が一致しません。")
    results = []
    for r, mistake in enumerate(mistakes):
        w = weights[r]
        if mistake == "no_softmax":
            w = np.where(np.isneginf(scaled[r]), 0.0, scaled[r])   # scores used as weights (its softmax row unused)
        results.append(AttentionResult(s, scaled[r], scaled[r], w, None if v is None else w @ v, divisors[r]))
    return tuple(results)


def _softmax_of_scaled(shared: dict, scaled: np.ndarray, divisor: float, mistake, *,
                       as_weights: bool = False) -> np.ndarray:
    """softmax(S / divisor) of the untransposed checked scores S, computed once per divisor for
    all the variants of one attention_variants call (no mask, no_mask, mask_after_softmax all
    need it; S / divisor is the same array of numbers each time, so the softmax is too). A
    second variant that returns it as its weights gets a copy: each result owns its arrays."""
    key = ("softmax", divisor)
    weights = shared.get(key)
    if weights is None:
        weights = shared[key] = softmax(scaled)                  # (..., n_q, n_k)
    if as_weights:
        if ("given", divisor) in shared:
            return weights.copy()
        shared[("given", divisor)] = mistake
    return weights


def _from_scores(s, v, d_k: int, mask, mistake, d_model, shared: dict | None) -> AttentionResult:
    """The body of attention_from_scores for checked scores s (..., n_q, n_k). ``shared`` (or None)
    keeps what does not depend on the mistake — the broadcast mask and its check, the additive
    mask M, the checked V — for the next call on the same inputs (never returned, never written)."""
    shared = {} if shared is None else shared
    n_q, n_k = s.shape[-2:]
    if mistake == "transposed_scores":
        if n_q != n_k:
            raise ValueError(f"K Qᵀ の取り違えは n_q = n_k のときだけ定義できます（形 {s.shape}）。")
        s = np.swapaxes(s, -1, -2)                               # (..., n_k, n_q): entry (i, j) = k_i · q_j
    divisor = divisor_with_mistake(d_k, mistake, d_model)
    scaled = s / divisor                                         # (..., n_q, n_k)
    if mask is None or mistake == "no_mask":
        masked = scaled
        m = None                                                 # every key visible (made below if needed)
    else:
        if "mask" in shared:
            m = shared["mask"]
        else:
            m = np.asarray(mask, dtype=bool)
            if m.shape != s.shape:
                m = np.broadcast_to(m, s.shape)                  # (..., n_q, n_k)
            shared["mask"] = m
        if mistake == "mask_transposed":
            m = np.swapaxes(m, -1, -2)                           # hides the past instead of the future
        if mistake == "mask_transposed" or "mask_ok" not in shared:
            if not m.any(axis=-1).all():
                raise ValueError("すべてのキーがマスクされた行があります。少なくとも 1 つは見てよいキーが必要です。")
            if mistake != "mask_transposed":
                shared["mask_ok"] = True
        if mistake == "mask_after_softmax":
            masked = scaled                                      # the mask comes later, after softmax
        elif mistake == "zero_fill":
            masked = np.where(m, scaled, 0.0)                    # 0 instead of −∞: still e⁰ = 1
        elif mistake == "mask_transposed":
            masked = scaled + additive_mask(m)                   # −∞ where the transposed mask hides
        else:
            if "additive" not in shared:
                shared["additive"] = additive_mask(m)            # M: 0 / −∞
            masked = scaled + shared["additive"]                 # −∞ where hidden
    if mistake == "column_softmax":
        weights = softmax(masked, axis=-2)                       # each COLUMN sums to 1
    elif mistake == "no_softmax":
        weights = np.where(np.isneginf(masked), 0.0, masked)     # scores used as weights
    elif mistake == "no_normalise":
        weights = np.exp(masked)                                 # e^s, never divided by the row sum
    elif mistake == "uniform":
        if m is None:
            m = np.ones(s.shape, dtype=bool)
        weights = m / m.sum(axis=-1, keepdims=True)              # plain average over visible keys
    elif mistake == "mask_after_softmax":
        if m is None:
            m = np.ones(s.shape, dtype=bool)
        weights = mask_after_softmax(_softmax_of_scaled(shared, scaled, divisor, mistake), m)   # rows no longer sum to 1
    elif masked is scaled and mistake != "transposed_scores":
        weights = _softmax_of_scaled(shared, scaled, divisor, mistake, as_weights=True)   # softmax(S / d), unmasked
    else:
        weights = softmax(masked)                                # (..., n_q, n_k)
    output = None
    if v is not None:
        if "v" in shared:
            v = shared["v"]
        else:
            v = shared["v"] = as_matrix(v, "V", ndim=(2, 3))
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
# shapes
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
