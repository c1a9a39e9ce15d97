"""⑥ masks step by step.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k + M) V,   M[i, j] = 0 (may attend) or −∞ (hidden)

``mask[i, j]`` (bool) is True when query i may look at key j. ``tutor.core`` has the masks
(causal_mask, padding_mask, additive_mask) and the classic mistake (mask_after_softmax).
This module adds what the page shows around them: the softmax of masked scores with every
intermediate (e^s, the row's denominator), the right order vs the mistake side by side, masks
combined (causal AND padding), token labels with padding, the next-token predictions one causal
pass scores at once, and the count of visible pairs with its named mistakes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .core import additive_mask, as_matrix, causal_mask, check_mistake, mask_after_softmax, softmax
from .vocab import PAD

__all__ = [
    "MaskedSoftmaxSteps",
    "masked_softmax_steps",
    "MaskOrderComparison",
    "compare_mask_order",
    "combine_masks",
    "pad_tokens",
    "next_token_tasks",
    "allowed_pairs",
]




def _check_mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(f"マスクは True / False の配列で指定してください（dtype {mask.dtype}）。")
    if mask.shape == shape:                                    # nothing to broadcast
        if not mask.any(axis=-1).all():
            raise ValueError("すべてのキーがマスクされた行があります。少なくとも 1 つは見てよいキーが必要です。")
        return mask
    try:
        shape_out = np.broadcast_shapes(mask.shape, shape)
    except ValueError:
        raise ValueError(f"マスクの形 {mask.shape} がスコアの形 {shape} に合いません。") from None
    if shape_out != shape:
        raise ValueError(f"マスクの形 {mask.shape} がスコアの形 {shape} に合いません。")
    if not np.broadcast_to(mask, shape).any(axis=-1).all():
        raise ValueError("すべてのキーがマスクされた行があります。少なくとも 1 つは見てよいキーが必要です。")
    return np.broadcast_to(mask, shape)


@dataclass(frozen=True)
class MaskedSoftmaxSteps:
    scores: np.ndarray    # (..., n_q, n_k)  scaled scores before the mask
    mask: np.ndarray      # (..., n_q, n_k)  bool, True = may attend
    additive: np.ndarray  # (..., n_q, n_k)  M: 0 or −∞
    masked: np.ndarray    # (..., n_q, n_k)  scores + M
    exps: np.ndarray      # (..., n_q, n_k)  e^(scores + M) as in a hand calculation; e^(−∞) = 0
    denominators: np.ndarray  # (..., n_q)   row sums of exps
    weights: np.ndarray   # (..., n_q, n_k)  softmax(scores + M): exact zeros, rows sum to 1
    sums: np.ndarray      # (..., n_q)       row sums of weights (all 1)


def masked_softmax_steps(scores, mask) -> MaskedSoftmaxSteps:
    """softmax(S + M) with every intermediate.

    exps are the plain e^s a learner writes down (no max subtracted); the weights come from the
    stable softmax, so they stay right even where e^s would overflow.
    """
    s = as_matrix(scores, "スコア", ndim=(1, 2, 3))
    m = _check_mask(mask, s.shape)
    add = additive_mask(m)                                     # (..., n_q, n_k)
    masked = s + add                                           # (..., n_q, n_k)
    with np.errstate(over="ignore"):                           # e^s of a huge score is inf: shown as such
        exps = np.exp(masked)                                  # (..., n_q, n_k), −∞ → 0
    weights = softmax(masked)                                  # (..., n_q, n_k)
    return MaskedSoftmaxSteps(s, m.copy(), add, masked, exps, exps.sum(axis=-1), weights,
                              weights.sum(axis=-1))                  # row sums (..., n_q)


@dataclass(frozen=True)
class MaskOrderComparison:
    unmasked: np.ndarray      # (n_q, n_k)  softmax(S): no mask at all
    right: np.ndarray         # (n_q, n_k)  softmax(S + M): mask BEFORE softmax
    wrong: np.ndarray         # (n_q, n_k)  softmax(S) with hidden entries set to 0 afterwards
    right_sums: np.ndarray    # (n_q,)      all 1
    wrong_sums: np.ndarray    # (n_q,)      < 1 wherever something was hidden
    lost: np.ndarray          # (n_q,)      weight the mistake throws away: right_sums − wrong_sums


def compare_mask_order(scores, mask) -> MaskOrderComparison:
    """The right order (−∞ before softmax) against the classic mistake (zeroing after softmax)."""
    steps = masked_softmax_steps(scores, mask)
    unmasked = softmax(steps.scores)                           # (n_q, n_k)
    wrong = mask_after_softmax(unmasked, steps.mask)           # (n_q, n_k)
    wrong_sums = wrong.sum(axis=-1)                            # (n_q,)
    return MaskOrderComparison(unmasked, steps.weights, wrong, steps.sums, wrong_sums,
                               steps.sums - wrong_sums)


def combine_masks(*masks) -> np.ndarray:
    """Several bool masks at once (e.g. causal AND padding): a key is visible only if every mask allows it."""
    if not masks:
        raise ValueError("マスクが 1 つもありません。")
    arrays = [np.asarray(m) for m in masks]
    for i, m in enumerate(arrays, start=1):
        if m.dtype != bool:
            raise ValueError(f"マスク {i} は True / False の配列で指定してください（dtype {m.dtype}）。")
    try:
        np.broadcast_shapes(*(m.shape for m in arrays))
    except ValueError:
        shapes = "、".join(str(m.shape) for m in arrays)
        raise ValueError(f"マスクの形 {shapes} が合いません。") from None
    return np.logical_and.reduce(np.broadcast_arrays(*arrays))


def pad_tokens(tokens: Sequence[str], valid_length: int, pad: str = PAD) -> tuple[str, ...]:
    """Labels of a padded sequence: the first valid_length tokens, then PAD up to len(tokens)."""
    n = len(tokens)
    valid_length = int(valid_length)
    if not 1 <= valid_length <= n:
        raise ValueError(f"有効長は 1 以上 {n} 以下でなければなりません（{valid_length}）。")
    return tuple(str(t) for t in tokens[:valid_length]) + (pad,) * (n - valid_length)


def next_token_tasks(tokens: Sequence[str]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """What one pass with the causal mask scores at once: for position i, the tokens it may see
    (row i of causal_mask) and the next token it must predict. n tokens → n − 1 tasks."""
    tokens = tuple(str(t) for t in tokens)
    n = len(tokens)
    if n < 2:
        raise ValueError(f"次の単語を当てるには 2 トークン以上が必要です（{n} トークン）。")
    mask = causal_mask(n)                                      # (n, n)
    return tuple(
        (tuple(t for t, ok in zip(tokens, mask[i]) if ok), tokens[i + 1])
        for i in range(n - 1)
    )


# ---------------------------------------------------------------------------
# how many pairs a causal mask lets through, and its named mistakes
# ---------------------------------------------------------------------------
def allowed_pairs(n: int, mistake: str | None = None) -> int:
    """Number of (query, key) pairs a causal mask lets through: n(n+1)/2, counted on causal_mask(n).

    mistake: 'strict' → the diagonal hidden too (n(n−1)/2); 'no_mask' → all n²;
    'masked' → the hidden pairs counted instead of the visible ones;
    'diagonal_only' → each token sees only itself (n)."""
    check_mistake(mistake, ("strict", "no_mask", "masked", "diagonal_only"), "allowed_pairs")
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
