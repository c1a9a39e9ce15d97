"""⑦-5 cost of a layer: Table 1 of "Attention Is All You Need", the memory of the score
matrix, and exact tiled attention with an online softmax (the idea behind FlashAttention).

For a sequence of n tokens with representation dimension d:

| layer type                 | operations per layer | sequential ops | maximum path length |
|----------------------------|----------------------|----------------|---------------------|
| self-attention             | O(n²·d)              | O(1)           | O(1)                |
| recurrent                  | O(n·d²)              | O(n)           | O(n)                |
| convolutional (kernel k)   | O(k·n·d²)            | O(1)           | O(log_k(n))         |
| restricted self-attn (r)   | O(r·n·d)             | O(1)           | O(n/r)              |

The operation counts are the expressions inside O(·) evaluated with the given numbers
(constants dropped), e.g. n = 100, d = 512: n²·d = 5,120,000 and n·d² = 26,214,400; their
named mistakes (n and d swapped, linear, both squared) sit next to them.

Tiled attention walks over the keys block by block and keeps, for every query row, three
running quantities:

    m  — the largest score seen so far            (running max)
    l  — Σ exp(score − m) over the keys seen       (running sum)
    o  — Σ exp(score − m) · v over the keys seen   (running, un-normalised output)

When a new block raises the max from m to m', everything accumulated so far is rescaled by
exp(m − m'); at the end o / l is EXACTLY softmax(QKᵀ/√d_k) V — no approximation, only the
order of the additions differs. The largest temporary is one (query block × key block) tile.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import as_matrix, attention, causal_mask, check_mistake, checked_qkv, finite_scores, max_abs_difference, positive_int

__all__ = [
    "LAYER_TYPES",
    "LAYER_LABELS",
    "LayerCost",
    "layer_operations",
    "layer_cost",
    "table1",
    "crossover",
    "cheaper_layer",
    "cost_curve",
    "attention_memory_bytes",
    "tiled_memory_bytes",
    "human_bytes",
    "TiledAttentionResult",
    "tiled_attention",
    "OnlineSoftmaxStep",
    "online_softmax_trace",
    "MIB",
    "bytes_to_mib",
    "cost_lengths",
    "random_qkv",
    "TiledComparison",
    "compare_tiled",
    "OPS_MISTAKES",
    "ops_mistake",
    "cost_growth",
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


# ---------------------------------------------------------------------------
# named mistakes of the operation counts
# ---------------------------------------------------------------------------
OPS_MISTAKES = ("swapped", "linear", "both_squared")


def ops_mistake(n: int, d: int, mistake: str | None = None) -> int:
    """Operations of a self-attention layer, n²·d; or swapped → n·d² (the RNN's formula);
    linear → n·d (the n² forgotten); both_squared → n²·d²."""
    check_mistake(mistake, OPS_MISTAKES, "ops_mistake")
    if mistake == "swapped":
        return layer_operations("recurrent", n, d)
    if mistake == "linear":
        return layer_operations("restricted_self_attention", n, d, r=1)   # r·n·d with r = 1
    if mistake == "both_squared":
        return layer_operations("self_attention", n, d) * int(d)
    return layer_operations("self_attention", n, d)


def cost_growth(layer_type: str, factor_n: int, factor_d: int, mistake: str | None = None) -> float:
    """How many times the operations grow when n is multiplied by factor_n and d by factor_d.

    self_attention: factor_n² · factor_d; recurrent: factor_n · factor_d² (measured with
    tutor.cost.layer_operations at a base n = d = 1). ``mistake`` as in :func:`ops_mistake`
    (for the self-attention formula).
    """
    a, b = int(factor_n), int(factor_d)
    if a < 1 or b < 1:
        raise ValueError(f"倍率は 1 以上の整数です（n を {a} 倍、d を {b} 倍）。")
    if mistake is not None:
        if layer_type != "self_attention":
            raise ValueError("誤りの式は自己注意の層についてだけ計算します。")
        return ops_mistake(a, b, mistake) / ops_mistake(1, 1, mistake)
    return layer_operations(layer_type, a, b) / layer_operations(layer_type, 1, 1)


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


MIB = 2 ** 20    # bytes in one MiB


def bytes_to_mib(nbytes) -> float:
    """A byte count in MiB (1 MiB = 2^20 bytes): 8,589,934,592 → 8192.0, 32,768 → 0.03125."""
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"バイト数は 0 以上が必要です（{nbytes}）。")
    return nbytes / MIB


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


@dataclass(frozen=True)
class TiledAttentionResult:
    output: np.ndarray        # (..., n_q, d_v)  = softmax(QKᵀ/√d_k [+ causal mask]) V, exactly
    row_max: np.ndarray       # (..., n_q)       final running max m of each query row
    row_sum: np.ndarray       # (..., n_q)       final running sum l = Σ exp(score − m)
    peak_score_elements: int  # largest score tile held, per head/batch slice (≤ q_block · block)
    full_score_elements: int  # n_q · n_k: what plain attention holds per slice
    blocks_computed: int      # tiles actually computed
    blocks_skipped: int       # tiles skipped because they lie entirely above the diagonal (causal)
    block_size: int           # key block size
    q_block_size: int         # query block size

    @property
    def logsumexp(self) -> np.ndarray:  # (..., n_q)  log Σ_j exp(score_j) = m + log l
        return self.row_max + np.log(self.row_sum)


def tiled_attention(q, k, v, block_size: int = 64, causal: bool = False, *, scale: bool = True,
                    q_block_size: int | None = None) -> TiledAttentionResult:
    """softmax(Q Kᵀ / √d_k [+ M_causal]) V computed tile by tile, never forming the n × n matrix.

    q: (..., n_q, d_k), k: (..., n_k, d_k), v: (..., n_k, d_v); leading dims (batch, heads) must match.
    block_size: keys per tile; q_block_size: queries per tile (default block_size).
    causal: query i sees keys j ≤ i (needs n_q = n_k); tiles entirely above the diagonal are
    skipped without being computed. scale=False drops the 1/√d_k ("forgot √d_k").
    """
    q, k, v = checked_qkv(q, k, v)
    *lead, n_q, d_k = q.shape
    n_k, d_v = v.shape[-2:]
    if causal and n_q != n_k:
        raise ValueError(f"因果マスクにはクエリとキーの数が同じ必要があります（n_q = {n_q}, n_k = {n_k}）。")
    bk = positive_int(block_size, "ブロックの大きさ block_size")
    bq = bk if q_block_size is None else positive_int(q_block_size, "クエリのブロックの大きさ q_block_size")

    inv_scale = 1.0 / np.sqrt(d_k) if scale else 1.0
    k_t = np.swapaxes(k, -1, -2)                                  # (..., d_k, n_k)
    output = np.empty((*lead, n_q, d_v), dtype=np.float64)        # (..., n_q, d_v)
    row_max = np.empty((*lead, n_q), dtype=np.float64)            # (..., n_q)
    row_sum = np.empty((*lead, n_q), dtype=np.float64)            # (..., n_q)
    peak = computed = skipped = 0

    for qs in range(0, n_q, bq):
        qe = min(qs + bq, n_q)
        q_blk = q[..., qs:qe, :] * inv_scale                      # (..., bq, d_k)  1/√d_k を先に掛ける
        m = np.full((*lead, qe - qs), -np.inf)                    # (..., bq)  running max
        l = np.zeros((*lead, qe - qs))                            # (..., bq)  running sum
        acc = np.zeros((*lead, qe - qs, d_v))                     # (..., bq, d_v)  running output
        for ks in range(0, n_k, bk):
            if causal and ks > qe - 1:                            # tile entirely above the diagonal
                skipped += -(-(n_k - ks) // bk)                   # … and so are all later ones
                break
            ke = min(ks + bk, n_k)
            with np.errstate(over="ignore"):                      # an overflow is reported by finite_scores
                s = finite_scores(q_blk @ k_t[..., :, ks:ke])     # (..., bq, bk)  the only score tile
            if causal and ke - 1 > qs:                            # tile crosses the diagonal
                hidden = np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None]  # (bq, bk)
                s[..., hidden] = -np.inf
            m_new = np.maximum(m, s.max(axis=-1))                 # (..., bq)
            s -= m_new[..., None]                                 # in place: s − m'
            np.exp(s, out=s)                                      # in place: p = exp(s − m')
            alpha = np.exp(m - m_new)                             # (..., bq)  rescale old sums (exp(−∞) = 0)
            l *= alpha
            l += s.sum(axis=-1)
            acc *= alpha[..., None]
            acc += s @ v[..., ks:ke, :]                           # (..., bq, d_v)
            m = m_new
            peak = max(peak, (qe - qs) * (ke - ks))
            computed += 1
        np.divide(acc, l[..., None], out=output[..., qs:qe, :])   # (..., bq, d_v)  o / l
        row_max[..., qs:qe] = m
        row_sum[..., qs:qe] = l

    return TiledAttentionResult(output, row_max, row_sum, peak, n_q * n_k, computed, skipped, bk, bq)


# ---------------------------------------------------------------------------
# the online softmax on one row, step by step (for the page)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class OnlineSoftmaxStep:
    block: np.ndarray      # (b,)  the scores of this block
    max_before: float      # m before the block (−∞ at the start)
    max_after: float       # m' = max(m, max(block))
    correction: float      # exp(m − m'): factor applied to the old running sum
    block_sum: float       # Σ exp(block − m')
    sum_after: float       # l' = l · correction + block_sum


def online_softmax_trace(scores, block_size: int) -> tuple[tuple[OnlineSoftmaxStep, ...], np.ndarray]:
    """Online softmax of ONE row of scores, block by block; returns (steps, softmax(scores)).

    The final m and l give softmax_j = exp(score_j − m) / l, identical to tutor.softmax.
    """
    x = as_matrix(scores, "スコアの行", ndim=1)
    b = positive_int(block_size, "ブロックの大きさ block_size")
    m, l = -np.inf, 0.0
    steps = []
    for start in range(0, x.shape[0], b):
        blk = x[start:start + b]                                  # (b,)
        m_new = max(m, float(blk.max()))
        corr = float(np.exp(m - m_new))
        blk_sum = float(np.exp(blk - m_new).sum())
        l = l * corr + blk_sum
        steps.append(OnlineSoftmaxStep(blk.copy(), m, m_new, corr, blk_sum, l))
        m = m_new
    return tuple(steps), np.exp(x - m) / l                        # (n,)


# ---------------------------------------------------------------------------
# cost page: a grid of sequence lengths, and tiled vs plain attention run side by side
# ---------------------------------------------------------------------------
def cost_lengths(max_n: int, per_octave: int = 4) -> list[int]:
    """Sequence lengths 1 … max_n spaced evenly on a log scale (for a log-log chart), ints."""
    max_n = int(max_n)
    if max_n < 2:
        raise ValueError(f"系列長の上限は 2 以上にしてください（{max_n}）。")
    count = int(np.ceil(np.log2(max_n) * per_octave)) + 1
    grid = np.unique(np.round(np.geomspace(1, max_n, count)).astype(np.int64))
    return [int(n) for n in grid]


def random_qkv(n: int, d_k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V of shape (n, d_k) with N(0, 1) entries from the passed generator."""
    n, d_k = int(n), int(d_k)
    if n < 1 or d_k < 1:
        raise ValueError(f"n と d_k は 1 以上が必要です（n = {n}, d_k = {d_k}）。")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng には np.random.default_rng(seed) で作った Generator を渡してください。")
    q = rng.normal(size=(n, d_k))                             # (n, d_k)
    k = rng.normal(size=(n, d_k))                             # (n, d_k)
    v = rng.normal(size=(n, d_k))                             # (n, d_k)
    return q, k, v


@dataclass(frozen=True)
class TiledComparison:
    plain_output: np.ndarray     # (n, d_v)  tutor.attention(...).output (builds the n × n matrix)
    tiled: TiledAttentionResult  # tile by tile, never the full matrix
    max_diff: float              # max |plain − tiled|  (rounding only, ~1e-16)
    full_elements: int           # n_q · n_k score elements held by plain attention
    peak_elements: int           # largest score tile held by tiled attention (measured in the run)
    full_bytes: int              # float64 bytes of the n × n matrix
    tiled_bytes: int             # float64 bytes of the largest tile


def compare_tiled(q, k, v, block_size: int, causal: bool = False) -> TiledComparison:
    """Run plain attention and tiled attention on the same Q, K, V and compare them."""
    q = as_matrix(q, "Q", ndim=2)
    n = q.shape[0]
    mask = causal_mask(n) if causal else None
    plain = attention(q, k, v, mask).output                   # (n, d_v)
    tiled = tiled_attention(q, k, v, block_size, causal)      # output (n, d_v)
    return TiledComparison(plain, tiled, max_abs_difference(plain, tiled.output),
                           tiled.full_score_elements, tiled.peak_score_elements,
                           attention_memory_bytes(n), tiled_memory_bytes(n, block_size))


