"""Cost of a layer: Table 1 of "Attention Is All You Need", and memory of the score matrix.

For a sequence of n tokens with representation dimension d:

| layer type                 | operations per layer | sequential ops | maximum path length |
|----------------------------|----------------------|----------------|---------------------|
| self-attention             | O(n²·d)              | O(1)           | O(1)                |
| recurrent                  | O(n·d²)              | O(n)           | O(n)                |
| convolutional (kernel k)   | O(k·n·d²)            | O(1)           | O(log_k(n))         |
| restricted self-attn (r)   | O(r·n·d)             | O(1)           | O(n/r)              |

The operation counts below are the expressions inside O(·) evaluated with the given numbers
(constants dropped), e.g. n = 100, d = 512: n²·d = 5,120,000 and n·d² = 26,214,400.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import positive_int

__all__ = [
    "LAYER_TYPES",
    "LAYER_LABELS",
    "LayerCost",
    "layer_cost",
    "layer_operations",
    "table1",
    "crossover",
    "cheaper_layer",
    "cost_curve",
    "attention_memory_bytes",
    "tiled_memory_bytes",
    "human_bytes",
]

LAYER_TYPES = ("self_attention", "recurrent", "convolutional", "restricted_self_attention")
LAYER_LABELS = {
    "self_attention": "自己注意",
    "recurrent": "再帰（RNN）",
    "convolutional": "畳み込み",
    "restricted_self_attention": "制限付き自己注意",
}


@dataclass(frozen=True)
class LayerCost:
    layer_type: str          # one of LAYER_TYPES
    label: str               # Japanese name for display
    n: int
    d: int
    param: int | None        # k for convolutional, r (as used, ≤ n) for restricted, else None
    operations: int          # value of the per-layer complexity expression, e.g. n²·d
    complexity: str          # LaTeX, e.g. "O(n^2 \\cdot d)"
    sequential: str          # LaTeX, "O(1)" or "O(n)"
    sequential_value: int    # 1 or n
    max_path_length: str     # LaTeX, e.g. "O(\\log_k(n))"
    path_value: float        # value of the expression inside O(·): 1, n, log_k(n), n/r


def layer_operations(layer_type: str, n: int, d: int, k: int = 3, r: int = 10) -> int:
    """The per-layer operation count of Table 1 — ``layer_cost(...).operations`` without
    building the rest of the row:

        self_attention n²·d,  recurrent n·d²,  convolutional k·n·d²,  restricted r·n·d  (r capped at n)
    """
    n = positive_int(n, "系列長 n")
    d = positive_int(d, "次元 d")
    if layer_type == "self_attention":
        return n * n * d
    if layer_type == "recurrent":
        return n * d * d
    if layer_type == "convolutional":
        k = positive_int(k, "カーネル幅 k")
        if k < 2:
            raise ValueError(f"カーネル幅 k は 2 以上が必要です（k = {k}）。log_k(n) の底になるためです。")
        return k * n * d * d
    if layer_type == "restricted_self_attention":
        return min(positive_int(r, "近傍の大きさ r"), n) * n * d
    raise ValueError(f"層の種類 {layer_type!r} は未対応です。{LAYER_TYPES} のいずれかを指定してください。")


def layer_cost(layer_type: str, n: int, d: int, k: int = 3, r: int = 10) -> LayerCost:
    """One row of Table 1 for sequence length n and dimension d.

    k: kernel width of the convolution (≥ 2); r: neighbourhood size of restricted
    self-attention (≥ 1; values above n are capped at n, since a token has only n neighbours).
    """
    ops = layer_operations(layer_type, n, d, k, r)           # also checks n, d, k, r and the type
    n, d = int(n), int(d)
    if layer_type == "self_attention":
        return LayerCost(layer_type, LAYER_LABELS[layer_type], n, d, None,
                         ops, "O(n^2 \\cdot d)", "O(1)", 1, "O(1)", 1.0)
    if layer_type == "recurrent":
        return LayerCost(layer_type, LAYER_LABELS[layer_type], n, d, None,
                         ops, "O(n \\cdot d^2)", "O(n)", n, "O(n)", float(n))
    if layer_type == "convolutional":
        k = int(k)
        return LayerCost(layer_type, LAYER_LABELS[layer_type], n, d, k,
                         ops, "O(k \\cdot n \\cdot d^2)", "O(1)", 1,
                         "O(\\log_k(n))", math.log(n) / math.log(k))
    r = min(int(r), n)                                       # restricted_self_attention
    return LayerCost(layer_type, LAYER_LABELS[layer_type], n, d, r,
                     ops, "O(r \\cdot n \\cdot d)", "O(1)", 1, "O(n/r)", n / r)


def table1(n: int, d: int, k: int = 3, r: int = 10) -> tuple[LayerCost, ...]:
    """All four rows of Table 1, in the paper's order (self-attention, recurrent, conv, restricted)."""
    return tuple(layer_cost(t, n, d, k=k, r=r) for t in LAYER_TYPES)


def crossover(d: int) -> int:
    """Sequence length where self-attention and a recurrent layer cost the same.

        n²·d < n·d²  ⇔  n < d   (divide both sides by n·d > 0)

    so the crossover is n = d: shorter sequences favour self-attention (the usual case in
    translation: n ≈ 100 words, d = 512), longer ones favour the RNN. Returns d.
    """
    return positive_int(d, "次元 d")


def cheaper_layer(n: int, d: int) -> str:
    """"self_attention" when n < d, "recurrent" when n > d, "equal" when n = d."""
    n = positive_int(n, "系列長 n")
    d = crossover(d)
    if n < d:
        return "self_attention"
    if n > d:
        return "recurrent"
    return "equal"


def cost_curve(ns, d: int, k: int = 3, r: int = 10) -> dict[str, np.ndarray]:
    """Operation counts for several sequence lengths, for plotting: {layer_type: (len(ns),) float64}."""
    ns = [positive_int(n, "系列長 n") for n in np.atleast_1d(np.asarray(ns)).tolist()]
    if not ns:
        raise ValueError("系列長 n のリストが空です。")
    rows = [table1(n, d, k=k, r=r) for n in ns]
    return {t: np.array([float(row[i].operations) for row in rows]) for i, t in enumerate(LAYER_TYPES)}


# ---------------------------------------------------------------------------
# memory of the attention scores
# ---------------------------------------------------------------------------
def attention_memory_bytes(n: int, h: int = 1, dtype_bytes: int = 8) -> int:
    """Bytes to hold the full n × n score (or weight) matrix for h heads: h · n² · dtype_bytes.

    float64 → 8 bytes, float32 → 4, float16/bfloat16 → 2. n = 4096, h = 1, float64 → 128 MiB.
    """
    n = positive_int(n, "系列長 n")
    h = positive_int(h, "ヘッド数 h")
    dtype_bytes = positive_int(dtype_bytes, "1 要素のバイト数")
    return h * n * n * dtype_bytes


def tiled_memory_bytes(n: int, block: int, h: int = 1, dtype_bytes: int = 8) -> int:
    """Bytes of the largest score block held by tiled (FlashAttention-style) attention:

        h · b² · dtype_bytes  with b = min(block, n)

    (one query block × one key block at a time). It no longer grows with n²; the running
    max and sum add only 2·b numbers per head. Equals h · tiled_attention(...).peak_score_elements · dtype_bytes.
    """
    n = positive_int(n, "系列長 n")
    block = positive_int(block, "ブロックの大きさ")
    h = positive_int(h, "ヘッド数 h")
    dtype_bytes = positive_int(dtype_bytes, "1 要素のバイト数")
    b = min(block, n)
    return h * b * b * dtype_bytes


def human_bytes(nbytes: int) -> str:
    """Readable size with binary units: 1024 → "1.0 KiB", 134217728 → "128.0 MiB"."""
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"バイト数は 0 以上が必要です（{nbytes}）。")
    if nbytes < 1024:
        return f"{nbytes} B"
    value = float(nbytes)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        value /= 1024.0
        if value < 1024.0 or unit == "PiB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
