"""Multi-head attention, piece by piece, for the ⑤ page and its quizzes.

    head_i = Attention(X W_Q^(i), X W_K^(i), X W_V^(i))
    MultiHead(X) = Concat(head_1, …, head_h) W_O

tutor.core already runs the whole thing (``multi_head_attention_per_head``). This module adds
what a page needs to show the steps one at a time: a checked matrix product, a head given
directly by its weights and values (the seed's head 2), concat + W_O from head outputs, the
textbook's two-head example end to end, seeded random per-head weights, a blend of two
attention patterns (why one head cannot hold two relations), and the cost of h heads of
width d_k = d_model / h compared with one head of width d_model.

Conventions: one token per ROW, weights on the right, float64, inputs never mutated,
randomness only from a passed ``np.random.Generator``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import textbook as tb
from .core import (positive_int, check_rng, QKV, AttentionResult, MultiHeadResult, as_matrix, attention, head_dim, merge_heads,
                   multi_head_attention_per_head, project_qkv)
from .layers import mha_param_count

__all__ = [
    "matmul",
    "weighted_sum",
    "CombinedHeads",
    "combine_heads",
    "TwoHeadExample",
    "textbook_two_heads",
    "MultiHeadParams",
    "init_multihead_params",
    "random_embeddings",
    "LiveMultiHead",
    "random_multihead",
    "blend_weights",
    "HeadCost",
    "head_cost",
]


# ---------------------------------------------------------------------------
# small steps
# ---------------------------------------------------------------------------
def matmul(a, b, a_name: str = "A", b_name: str = "B") -> np.ndarray:
    """A · B for 1-D or 2-D arrays, with a Japanese message when the shapes do not fit.

    a: (n, m) or (m,); b: (m, p) → (n, p) or (p,).
    """
    a = as_matrix(a, a_name, ndim=(1, 2))
    b = as_matrix(b, b_name, ndim=2)
    if a.shape[-1] != b.shape[0]:
        raise ValueError(
            f"{a_name}（形 {a.shape}）と {b_name}（形 {b.shape}）は掛けられません："
            f"{a_name} の列数 {a.shape[-1]} と {b_name} の行数 {b.shape[0]} が一致しません。"
        )
    return a @ b                                              # (n, p) or (p,)


def weighted_sum(weights, values) -> np.ndarray:
    """Output of a head given directly by its attention weights A and values V: Z = A · V.

    weights: (n_q, n_k), each row a distribution (≥ 0, sums to 1); values: (n_k, d_v) → (n_q, d_v).
    """
    weights = as_matrix(weights, "注意の重み", ndim=2)
    values = as_matrix(values, "バリュー V", ndim=2)
    if (weights < 0).any():
        raise ValueError("注意の重みに負の値があります。重みは 0 以上でなければなりません。")
    sums = weights.sum(axis=-1)                               # (n_q,)
    if not np.allclose(sums, 1.0, atol=1e-9):
        raise ValueError(
            f"注意の重みの行の合計が 1 になっていません（合計 {np.round(sums, 4).tolist()}）。"
        )
    if weights.shape[1] != values.shape[0]:
        raise ValueError(
            f"重み（形 {weights.shape}）のキーの数 {weights.shape[1]} と"
            f"バリュー（形 {values.shape}）のトークン数 {values.shape[0]} が一致しません。"
        )
    return weights @ values                                   # (n_q, d_v)


@dataclass(frozen=True)
class CombinedHeads:
    head_outputs: np.ndarray  # (h, n, d_v)
    concat: np.ndarray        # (n, h·d_v)  Concat(head_1, …, head_h)
    w_o: np.ndarray           # (h·d_v, d_model)
    output: np.ndarray        # (n, d_model) = concat · W_O


def combine_heads(head_outputs: Sequence, w_o) -> CombinedHeads:
    """Concat(head_1, …, head_h) · W_O from the heads' outputs (each (n, d_v))."""
    if len(head_outputs) == 0:
        raise ValueError("ヘッドが 1 つもありません。")
    outs = [as_matrix(z, f"ヘッド {i} の出力", ndim=2) for i, z in enumerate(head_outputs, start=1)]
    for i, z in enumerate(outs[1:], start=2):
        if z.shape != outs[0].shape:
            raise ValueError(
                f"ヘッド {i} の出力の形 {z.shape} がヘッド 1 の形 {outs[0].shape} と違います。"
                "連結するには全ヘッドで同じ形が必要です。"
            )
    stacked = np.stack(outs)                                  # (h, n, d_v)
    concat = merge_heads(stacked)                             # (n, h·d_v)
    w_o = as_matrix(w_o, "W_O", ndim=2)
    output = matmul(concat, w_o, "Concat(head_1…head_h)", "W_O")  # (n, d_model)
    return CombinedHeads(stacked, concat, w_o, output)


# ---------------------------------------------------------------------------
# the textbook's two heads (8.9)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TwoHeadExample:
    tokens: tuple[str, ...]
    qkv1: QKV                 # head 1's Q, K, V (3, 2) from X and W_Q, W_K, W_V of 8.6
    head1: AttentionResult    # head 1 = the 8.6 hand calculation: .weights (3, 3), .output (3, 2)
    head2_weights: np.ndarray  # (3, 3) given by the seed ("look at the previous token")
    head2_values: np.ndarray   # (3, 2) given by the seed
    head2_output: np.ndarray   # (3, 2) = weights · values
    combined: CombinedHeads    # .concat (3, 4), .output (3, 4)


def textbook_two_heads() -> TwoHeadExample:
    """The seed's 2-head example with d_model = 4, h = 2, d_k = d_v = 2.

    Head 1 is computed from X, W_Q, W_K, W_V; head 2 is given by its weights and values;
    それ's row: concat (0.159, 1.841, 1.0, 1.7), after W_O (1.859, 2.841, 1.0, 1.7).
    """
    qkv = project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)           # (3, 2) each
    head1 = attention(qkv.q, qkv.k, qkv.v)                     # weights (3, 3), output (3, 2)
    head2 = weighted_sum(tb.HEAD2_WEIGHTS, tb.HEAD2_VALUES)    # (3, 2)
    combined = combine_heads([head1.output, head2], tb.W_O)    # concat (3, 4), output (3, 4)
    return TwoHeadExample(tb.TOKENS, qkv, head1, tb.HEAD2_WEIGHTS.copy(), tb.HEAD2_VALUES.copy(),
                          head2, combined)


# ---------------------------------------------------------------------------
# a live multi-head layer with random (untrained) weights
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class MultiHeadParams:
    heads: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]  # h × (W_Q^(i), W_K^(i), W_V^(i)), each (d_model, d_k)
    w_o: np.ndarray                                               # (h·d_k, d_model)
    d_k: int

    @property
    def n_heads(self) -> int:
        return len(self.heads)

    @property
    def d_model(self) -> int:
        return self.w_o.shape[1]


def init_multihead_params(d_model: int, n_heads: int, rng: np.random.Generator) -> MultiHeadParams:
    """Random per-head weights as before training: W ~ N(0, 1/fan_in), d_k = d_v = d_model / h.

    Raises ValueError (Japanese) when h does not divide d_model.
    Usage: p = init_multihead_params(8, 2, np.random.default_rng(0));
           multi_head_attention_per_head(x, p.heads, p.w_o).
    """
    d_model = positive_int(d_model, "d_model")
    n_heads = positive_int(n_heads, "ヘッド数 h")
    rng = check_rng(rng)
    d_k = head_dim(d_model, n_heads)
    std_in = 1.0 / math.sqrt(d_model)
    heads = tuple(
        tuple(rng.normal(0.0, std_in, size=(d_model, d_k)) for _ in range(3))  # 3 × (d_model, d_k)
        for _ in range(n_heads)
    )
    w_o = rng.normal(0.0, 1.0 / math.sqrt(n_heads * d_k), size=(n_heads * d_k, d_model))  # (h·d_k, d_model)
    return MultiHeadParams(heads, w_o, d_k)


def random_embeddings(n: int, d_model: int, rng: np.random.Generator) -> np.ndarray:
    """(n, d_model) token embeddings drawn from N(0, 1) (a stand-in for learned embeddings)."""
    n = positive_int(n, "トークン数 n")
    d_model = positive_int(d_model, "d_model")
    return check_rng(rng).normal(0.0, 1.0, size=(n, d_model))  # (n, d_model)


@dataclass(frozen=True)
class LiveMultiHead:
    x: np.ndarray             # (n, d_model) random embeddings
    params: MultiHeadParams   # h × (W_Q^(i), W_K^(i), W_V^(i)), W_O
    result: MultiHeadResult   # .weights (h, n, n), .head_outputs (h, n, d_k), .concat (n, d_model), .output
    cost: HeadCost            # parameters and multiply-adds for these sizes
    cost_one_head: HeadCost   # the same d_model as ONE head (h = 1)


def random_multihead(n: int, d_model: int, n_heads: int, rng: np.random.Generator) -> LiveMultiHead:
    """A whole multi-head layer from a seed: embeddings, per-head weights, every head, concat, W_O.

    Raises ValueError (Japanese) when h does not divide d_model (checked before any draw).
    """
    d_model = positive_int(d_model, "d_model")
    n_heads = positive_int(n_heads, "ヘッド数 h")
    head_dim(d_model, n_heads)
    rng = check_rng(rng)
    x = random_embeddings(n, d_model, rng)                     # (n, d_model)
    params = init_multihead_params(d_model, n_heads, rng)
    result = multi_head_attention_per_head(x, params.heads, params.w_o)  # weights (h, n, n)
    return LiveMultiHead(x, params, result, head_cost(n, d_model, n_heads), head_cost(n, d_model, 1))


def blend_weights(weights_a, weights_b, share_b: float) -> np.ndarray:
    """What ONE head would have to do to serve two relations: (1 − t)·A + t·B, t = share_b.

    Each row is still a single distribution (sums to 1), so neither pattern survives intact.
    """
    a = as_matrix(weights_a, "重み A", ndim=2)
    b = as_matrix(weights_b, "重み B", ndim=2)
    if a.shape != b.shape:
        raise ValueError(f"重み A（形 {a.shape}）と重み B（形 {b.shape}）の形が違います。")
    t = float(share_b)
    if not (0.0 <= t <= 1.0):
        raise ValueError(f"混ぜる割合 t は 0 以上 1 以下です（t = {t}）。")
    return (1.0 - t) * a + t * b                               # (n_q, n_k)


# ---------------------------------------------------------------------------
# cost: h heads of width d_k vs one head of width d_model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class HeadCost:
    n: int                 # tokens
    d_model: int
    n_heads: int
    d_k: int               # = d_v = d_model / h
    params_per_head: int   # W_Q^(i), W_K^(i), W_V^(i): 3 · d_model · d_k
    params_qkv: int        # all heads: 3 · d_model²
    params_o: int          # W_O: d_model²
    params: int            # 4 · d_model² (no bias) = tutor.mha_param_count(d_model)
    macs_projection: int   # multiply-adds for Q, K, V and W_O: 4 · n · d_model²
    macs_scores: int       # h · n² · d_k = n² · d_model
    macs_values: int       # h · n² · d_v = n² · d_model
    softmax_exps: int      # h · n²  (the only part that grows with h)

    @property
    def macs(self) -> int:
        return self.macs_projection + self.macs_scores + self.macs_values


def head_cost(n: int, d_model: int, n_heads: int) -> HeadCost:
    """Parameters and multiply-adds of multi-head attention without biases.

    With d_k = d_model / h every count is independent of h except the h · n² exponentials of
    softmax: 8 heads of 64 cost what one head of 512 costs. d_model = 512 → 1,048,576 weights.
    """
    n = positive_int(n, "トークン数 n")
    d_model = positive_int(d_model, "d_model")
    n_heads = positive_int(n_heads, "ヘッド数 h")
    d_k = head_dim(d_model, n_heads)
    return HeadCost(
        n=n, d_model=d_model, n_heads=n_heads, d_k=d_k,
        params_per_head=3 * d_model * d_k,
        params_qkv=n_heads * 3 * d_model * d_k,
        params_o=(n_heads * d_k) * d_model,
        params=mha_param_count(d_model),
        macs_projection=4 * n * d_model * d_model,
        macs_scores=n_heads * n * n * d_k,
        macs_values=n_heads * n * n * d_k,
        softmax_exps=n_heads * n * n,
    )
