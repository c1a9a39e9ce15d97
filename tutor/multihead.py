"""⑤ multi-head attention, piece by piece.

    head_i = Attention(X W_Q^(i), X W_K^(i), X W_V^(i))
    MultiHead(X) = Concat(head_1, …, head_h) W_O,      d_k = d_model / h

``tutor.core`` runs the whole thing (``multi_head_attention``, ``multi_head_attention_per_head``).
This module adds what the page shows one step at a time — concat + W_O from head outputs, the
textbook's two-head example end to end, seeded random per-head weights, a blend of two attention
patterns, the cost of h heads — and the parameter counts and head sizes with their named
mistakes (no split, heads added instead of concatenated, W_O forgotten, …).

Conventions: one token per ROW, weights on the right, float64, inputs never mutated,
randomness only from a passed ``np.random.Generator``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import textbook as tb
from .core import AttentionResult, MultiHeadResult, QKV, as_matrix, attention, check_mistake, check_rng, head_dim, matmul, merge_heads, multi_head_attention_per_head, positive_int, project_qkv, weighted_sum

__all__ = [
    "mha_param_count",
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
    "HEAD_DIM_MISTAKES",
    "head_dim_mistake",
    "concat_width",
    "PARAM_MISTAKES",
    "mha_param_count_mistake",
    "COMBINE_MISTAKES",
    "combine_heads_mistake",
    "combine_heads_variants",
]


def mha_param_count(d_model: int, bias: bool = False) -> int:
    """Parameters of multi-head attention: W_Q, W_K, W_V, W_O, each d_model × d_model.

        4 · d_model² (+ 4 · d_model with biases).  d_model = 512 → 1,048,576.

    Independent of the number of heads h: the heads share the d_model columns (d_k = d_model/h).
    """
    d_model = positive_int(d_model, "d_model")
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


# ---------------------------------------------------------------------------
# multi-head sizes and parameter counts, with named mistakes
# ---------------------------------------------------------------------------
HEAD_DIM_MISTAKES = ("no_split", "multiplied", "swapped")


def head_dim_mistake(d_model: int, n_heads: int, mistake: str | None = None) -> int:
    """d_k = d_model / h, or: no_split → d_model (every head keeps the full width);
    multiplied → d_model · h; swapped → h (the number of heads read as the head width)."""
    check_mistake(mistake, HEAD_DIM_MISTAKES, "head_dim_mistake")
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
    check_mistake(mistake, ("no_split", "summed"), "concat_width")
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
    check_mistake(mistake, PARAM_MISTAKES, "mha_param_count_mistake")
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


COMBINE_MISTAKES = ("no_w_o", "reversed_order", "w_o_transposed")


def combine_heads_mistake(head_rows, w_o, mistake: str | None = None) -> np.ndarray:
    """Concat(head_1, …, head_h) · W_O for the given per-head outputs.

    head_rows: (h, n, d_v) or (h, d_v) (one token); w_o: (h·d_v, d_model).
    mistake: no_w_o → the concatenation itself; reversed_order → heads concatenated last-first;
    w_o_transposed → Concat · W_Oᵀ (needs a square W_O).
    """
    check_mistake(mistake, COMBINE_MISTAKES, "combine_heads_mistake")
    return combine_heads_variants(head_rows, w_o, (mistake,))[0]


def combine_heads_variants(head_rows, w_o, mistakes=(None,) + COMBINE_MISTAKES) -> tuple[np.ndarray, ...]:
    """combine_heads_mistake for several mistakes of the SAME heads and W_O at once:
    ``tuple(combine_heads_mistake(head_rows, w_o, m) for m in mistakes)`` with the same numbers;
    the inputs are checked and Concat(head_1, …, head_h) (n, h·d_v) is built once.
    None in ``mistakes`` is the correct Concat · W_O (n, d_model), as tutor.combine_heads."""
    for mistake in mistakes:
        check_mistake(mistake, COMBINE_MISTAKES, "combine_heads_variants")
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


