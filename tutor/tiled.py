"""Exact tiled attention with an online softmax — the idea behind FlashAttention.

Plain attention builds the whole n × n score matrix. Tiled attention walks over the keys
block by block and keeps, for every query row, three running quantities:

    m  — the largest score seen so far            (running max)
    l  — Σ exp(score − m) over the keys seen       (running sum)
    o  — Σ exp(score − m) · v over the keys seen   (running, un-normalised output)

When a new block raises the max from m to m', everything accumulated so far is rescaled by
exp(m − m'); at the end o / l is EXACTLY softmax(QKᵀ/√d_k) V — no approximation, only the
order of the additions differs. The largest temporary is one (query block × key block) tile.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import checked_qkv, positive_int, as_matrix

__all__ = [
    "TiledAttentionResult",
    "tiled_attention",
    "OnlineSoftmaxStep",
    "online_softmax_trace",
]


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
            s = q_blk @ k_t[..., :, ks:ke]                        # (..., bq, bk)  the only score tile
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
