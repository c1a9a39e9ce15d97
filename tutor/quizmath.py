"""Named misconceptions, computed: the wrong formulas behind the quiz distractors.

Every distractor of a calculation question is the result of ONE named mistake a learner
can make (forgot √d_k, softmax down the column, mask after softmax, …). This module
computes each mistake with the same engine steps as the correct formula, so that the
quizzes never do arithmetic of their own. ``mistake=None`` always means "the correct
formula" and agrees with :func:`tutor.attention` / :func:`tutor.naive_attention`.

Attention mistakes (``ATTENTION_MISTAKES``), for  softmax(Q Kᵀ / √d_k + M) V:

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

Conventions as in tutor.core: one token per row, softmax along the last axis, float64,
inputs never mutated, ValueError with a Japanese message on bad input.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import (
    AttentionResult,
    NaiveAttentionResult,
    additive_mask,
    as_matrix,
    attention,
    causal_mask,
    checked_qkv,
    head_dim,
    mask_after_softmax,
    merge_heads,
    naive_attention,
    softmax,
)
from .layers import mha_param_count

__all__ = [
    "ATTENTION_MISTAKES",
    "attention_from_scores",
    "attention_variants",
    "SCALE_MISTAKES",
    "scale_scores",
    "attention_mistake",
    "SCORE_MISTAKES",
    "score_table",
    "ln_scores",
    "exp_values",
    "softmax_from_exps",
    "apply_given_weights",
    "MIB",
    "bytes_to_mib",
    "score_divisor",
    "dot_product_variance",
    "scaled_variance",
    "NAIVE_MISTAKES",
    "naive_attention_mistake",
    "naive_attention_variants",
    "attention_shapes",
    "HEAD_DIM_MISTAKES",
    "head_dim_mistake",
    "concat_width",
    "PARAM_MISTAKES",
    "mha_param_count_mistake",
    "COMBINE_MISTAKES",
    "combine_heads_mistake",
    "combine_heads_variants",
    "allowed_pairs",
    "quiz_knowledge_facts",
]

ATTENTION_MISTAKES = (
    "no_scale", "divide_by_d_k", "d_model", "column_softmax", "no_softmax", "no_normalise",
    "uniform", "mask_after_softmax", "zero_fill", "no_mask", "mask_transposed",
    "transposed_scores", "k_not_transposed",
)


def _check_mistake(mistake, allowed, what: str) -> None:
    if mistake is not None and mistake not in allowed:
        raise ValueError(f"未知の誤り {mistake!r}（{what}）。使えるのは {', '.join(allowed)} です。")


# ---------------------------------------------------------------------------
# attention from a given score table, correct or with one named mistake
# ---------------------------------------------------------------------------
def _divisor(d_k: int, mistake, d_model) -> float:
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
    _check_mistake(mistake, SCALE_MISTAKES, "scale_scores")
    s, d_k = _checked_scores(scores, d_k)                        # (..., n_q, n_k); one row → (1, n_k)
    return s / _divisor(d_k, mistake, d_model)                   # (..., n_q, n_k)


def attention_from_scores(scores, v=None, *, d_k: int, mask=None, mistake: str | None = None,
                          d_model: int | None = None) -> AttentionResult:
    """softmax(S / √d_k + M) · V for a GIVEN score table S = Q Kᵀ (or one named mistake).

    scores: (n_q, n_k) (or batched (..., n_q, n_k)); v: (n_k, d_v) or None (then .output is None);
    mask: bool broadcastable to scores, True = may attend. Returns AttentionResult with every step.
    """
    _check_mistake(mistake, ATTENTION_MISTAKES, "attention_from_scores")
    s, d_k = _checked_scores(scores, d_k)
    return _from_scores(s, v, d_k, mask, mistake, d_model, None)


def attention_variants(scores, v=None, *, d_k: int, mask=None, mistakes=(None,),
                       d_model: int | None = None) -> tuple[AttentionResult, ...]:
    """attention_from_scores for several mistakes of the SAME scores / V / mask at once:
    ``tuple(attention_from_scores(scores, v, d_k=d_k, mask=mask, mistake=m, d_model=d_model)
    for m in mistakes)`` with the same numbers; the checks of S, V and the mask and the additive
    mask M are done once. None in ``mistakes`` is the correct formula. Each result owns its arrays."""
    for mistake in mistakes:
        _check_mistake(mistake, ATTENTION_MISTAKES, "attention_variants")
    s, d_k = _checked_scores(scores, d_k)
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
    divisors = [_divisor(d_k, mistake, d_model) for mistake in mistakes]
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


def _checked_scores(scores, d_k) -> tuple[np.ndarray, int]:
    s = as_matrix(scores, "スコア QKᵀ", ndim=(1, 2, 3))
    if s.ndim == 1:
        s = s[None, :]                                           # (1, n_k)
    d_k = int(d_k)
    if d_k <= 0:
        raise ValueError(f"d_k は 1 以上が必要です（d_k = {d_k}）。")
    return s, d_k


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
    divisor = _divisor(d_k, mistake, d_model)
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
            if not np.logical_and.reduce(np.logical_or.reduce(m, axis=-1), axis=None):  # = m.any(axis=-1).all()
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
    _check_mistake(mistake, ATTENTION_MISTAKES, "attention_mistake")
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


SCORE_MISTAKES = ("transposed_scores",)


def score_table(q, k, *, mistake: str | None = None) -> np.ndarray:
    """The score table alone, the first step of tutor.attention: S = Q Kᵀ (= tutor.attention(q, k, v).scores),
    or with mistake='transposed_scores' K Qᵀ, whose entry (i, j) is k_i · q_j (needs n_q = n_k).

    q: (n_q, d_k), k: (n_k, d_k) → (n_q, n_k). With q = k = X it is the naive table X Xᵀ.
    For a question that needs only scores: no softmax and no output are computed."""
    _check_mistake(mistake, SCORE_MISTAKES, "score_table")
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


def ln_scores(multipliers, d_k: int) -> np.ndarray:
    """Scores s_j = √d_k · ln m_j: after dividing by √d_k they are ln m_j, and softmax gives
    exactly m_j / Σ m. Makes a hand-calculable row (m = 3, 1, 2 → weights 1/2, 1/6, 1/3)."""
    m = as_matrix(multipliers, "倍率 m", ndim=(1, 2))
    if np.minimum.reduce(m, axis=None) <= 0:                     # = (m <= 0).any()
        raise ValueError(f"倍率 m は正の数が必要です（{m.tolist()}）。")
    return score_divisor(d_k) * np.log(m)


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
    if np.minimum.reduce(e, axis=None) <= 0:                     # = (e <= 0).any()
        raise ValueError(f"e^s の値は正の数が必要です（{e.tolist()}）。")
    return e / np.add.reduce(e, axis=axis, keepdims=True)        # same shape as exps


def apply_given_weights(weights, values) -> np.ndarray:
    """Z = A V for GIVEN weights A (e.g. rounded as a question's stem shows them): z_ic = Σ_k a_ik v_kc.

    weights: (n_k,) or (n_q, n_k); values: (n_k,) or (n_k, d_v). Returns (n_q, d_v), (n_q,), (d_v,)
    or a 0-d array, as ``weights @ values``."""
    a = as_matrix(weights, "重み", ndim=(1, 2))
    v = as_matrix(values, "バリュー", ndim=(1, 2))
    n_k = a.shape[-1]
    if v.shape[0] != n_k:
        raise ValueError(f"重みの列数 {n_k} とバリューの行数 {v.shape[0]} が一致しません"
                         f"（重み {a.shape}、バリュー {v.shape}）。")
    return a @ v                                                 # (n_q, d_v) / (n_q,) / (d_v,) / ()


MIB = 2 ** 20    # bytes in one MiB


def bytes_to_mib(nbytes) -> float:
    """A byte count in MiB (1 MiB = 2^20 bytes): 8,589,934,592 → 8192.0, 32,768 → 0.03125."""
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"バイト数は 0 以上が必要です（{nbytes}）。")
    return nbytes / MIB


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
    _check_mistake(mistake, NAIVE_MISTAKES, "naive_attention_mistake")
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
        _check_mistake(mistake, NAIVE_MISTAKES, "naive_attention_variants")
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
        sums = np.add.reduce(s, axis=1, keepdims=True)           # (n, 1), = s.sum(axis=1, keepdims=True)
        if np.minimum.reduce(sums, axis=None) <= 0:              # = (sums <= 0).any()
            raise ValueError("行和が 0 以下の行があるため、比例配分の誤りは定義できません。")
        a = s / sums                                             # (n, n)
    else:  # no_softmax
        a = s
    return NaiveAttentionResult(s, a, a @ x)                     # output (n, d)


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


# ---------------------------------------------------------------------------
# multi-head sizes and parameter counts, with named mistakes
# ---------------------------------------------------------------------------
HEAD_DIM_MISTAKES = ("no_split", "multiplied", "swapped")


def head_dim_mistake(d_model: int, n_heads: int, mistake: str | None = None) -> int:
    """d_k = d_model / h, or: no_split → d_model (every head keeps the full width);
    multiplied → d_model · h; swapped → h (the number of heads read as the head width)."""
    _check_mistake(mistake, HEAD_DIM_MISTAKES, "head_dim_mistake")
    d_k = head_dim(d_model, n_heads)                             # validates the pair
    if mistake == "no_split":
        return head_dim(d_model, 1)
    if mistake == "multiplied":
        return d_k * n_heads * n_heads
    if mistake == "swapped":
        return head_dim(d_model, d_k)
    return d_k


def concat_width(d_model: int, n_heads: int, mistake: str | None = None) -> int:
    """Width of Concat(head_1 … head_h) = h · d_v, found with merge_heads on the head outputs.

    mistake: 'no_split' → every head d_model wide (h · d_model); 'summed' → heads added, not
    concatenated (width d_k)."""
    _check_mistake(mistake, ("no_split", "summed"), "concat_width")
    d_v = head_dim_mistake(d_model, n_heads, "no_split" if mistake == "no_split" else None)
    heads = np.zeros((int(n_heads), 1, d_v))                     # (h, 1, d_v)
    if mistake == "summed":
        return heads.sum(axis=0).shape[-1]                       # (1, d_v)
    return merge_heads(heads).shape[-1]                          # (1, h·d_v)


PARAM_MISTAKES = ("one_matrix", "no_w_o", "per_head_full", "no_bias")


def mha_param_count_mistake(d_model: int, n_heads: int, mistake: str | None = None,
                            bias: bool = False) -> int:
    """Parameters of multi-head attention (tutor.mha_param_count: 4·d_model², +4·d_model with
    biases, independent of h), or: one_matrix → only one d_model × d_model matrix counted;
    no_w_o → W_Q, W_K, W_V but not W_O; per_head_full → every head with its own full
    4·d_model² (h times too many); no_bias → biases forgotten although asked for."""
    _check_mistake(mistake, PARAM_MISTAKES, "mha_param_count_mistake")
    head_dim(d_model, n_heads)
    full = mha_param_count(d_model, bias=bias)
    if mistake is None:
        return full
    if mistake == "no_bias":
        return mha_param_count(d_model, bias=False)
    per_matrix = full // 4                                       # d_model² (+ d_model)
    if mistake == "one_matrix":
        return per_matrix
    if mistake == "no_w_o":
        return 3 * per_matrix
    return int(n_heads) * full                                   # per_head_full


COMBINE_MISTAKES = ("no_w_o", "reversed_order", "w_o_transposed")


def combine_heads_mistake(head_rows, w_o, mistake: str | None = None) -> np.ndarray:
    """Concat(head_1, …, head_h) · W_O for the given per-head outputs.

    head_rows: (h, n, d_v) or (h, d_v) (one token); w_o: (h·d_v, d_model).
    mistake: no_w_o → the concatenation itself; reversed_order → heads concatenated last-first;
    w_o_transposed → Concat · W_Oᵀ (needs a square W_O).
    """
    _check_mistake(mistake, COMBINE_MISTAKES, "combine_heads_mistake")
    return combine_heads_variants(head_rows, w_o, (mistake,))[0]


def combine_heads_variants(head_rows, w_o, mistakes=(None,) + COMBINE_MISTAKES) -> tuple[np.ndarray, ...]:
    """combine_heads_mistake for several mistakes of the SAME heads and W_O at once:
    ``tuple(combine_heads_mistake(head_rows, w_o, m) for m in mistakes)`` with the same numbers;
    the inputs are checked and Concat(head_1, …, head_h) (n, h·d_v) is built once.
    None in ``mistakes`` is the correct Concat · W_O (n, d_model), as tutor.combine_heads."""
    for mistake in mistakes:
        _check_mistake(mistake, COMBINE_MISTAKES, "combine_heads_variants")
    heads = as_matrix(head_rows, "各ヘッドの出力", ndim=(2, 3))
    if heads.ndim == 2:
        heads = heads[:, None, :]                                # (h, 1, d_v)
    w_o = as_matrix(w_o, "W_O", ndim=2)
    concat = merge_heads(heads)                                  # (n, h·d_v)
    if concat.shape[1] != w_o.shape[0]:
        raise ValueError(f"Concat の幅 {concat.shape[1]} と W_O（形 {w_o.shape}）の行数が一致しません。")
    out = []
    for mistake in mistakes:
        if mistake == "no_w_o":
            out.append(concat)                                   # (n, h·d_v)
        elif mistake == "reversed_order":
            out.append(merge_heads(heads[::-1]) @ w_o)           # (n, d_model): head_h, …, head_1
        elif mistake == "w_o_transposed":
            if w_o.shape[0] != w_o.shape[1]:
                raise ValueError(f"W_Oᵀ の取り違えは正方行列のときだけ定義できます（形 {w_o.shape}）。")
            out.append(concat @ w_o.T)                           # (n, d_model)
        else:
            out.append(concat @ w_o)                             # (n, d_model)
    return tuple(out)


# ---------------------------------------------------------------------------
# masks
# ---------------------------------------------------------------------------
def allowed_pairs(n: int, mistake: str | None = None) -> int:
    """Number of (query, key) pairs a causal mask lets through: n(n+1)/2, counted on causal_mask(n).

    mistake: 'strict' → the diagonal hidden too (n(n−1)/2); 'no_mask' → all n²;
    'masked' → the hidden pairs counted instead of the visible ones;
    'diagonal_only' → each token sees only itself (n)."""
    _check_mistake(mistake, ("strict", "no_mask", "masked", "diagonal_only"), "allowed_pairs")
    m = causal_mask(n)                                           # (n, n) bool
    if mistake == "strict":
        m = m & ~np.eye(m.shape[0], dtype=bool)
    elif mistake == "no_mask":
        m = np.ones_like(m)
    elif mistake == "masked":
        m = ~m
    elif mistake == "diagonal_only":
        m = m & np.eye(m.shape[0], dtype=bool)
    return int(m.sum())


# ---------------------------------------------------------------------------
# numbers the knowledge bank quotes (merged into quizzes.knowledge.facts())
# ---------------------------------------------------------------------------
def quiz_knowledge_facts() -> dict[str, float]:
    """Paper numbers the knowledge questions of pages ①–⑥ quote, each computed here."""
    from . import textbook as tb

    d_model, h = tb.PAPER_D_MODEL, tb.PAPER_HEADS
    d_k = head_dim(d_model, h)
    return {
        "paper_concat_width": concat_width(d_model, h),
        "paper_mha_params": mha_param_count(d_model),
        "paper_one_matrix_params": mha_param_count_mistake(d_model, h, "one_matrix"),
        "paper_var_qk": dot_product_variance(d_k),
        "paper_sqrt_d_model": score_divisor(d_model),
    }
