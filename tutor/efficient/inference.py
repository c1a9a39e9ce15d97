"""Lighter attention and inference: the KV cache (2 · L · n_kv · d_head · T · bytes · B) and how much
multi-query / grouped-query attention save (n_heads / n_kv); the score pairs of full attention (n²)
against a sliding window with a few global tokens (Longformer, BigBird); the expected tokens per
step of speculative decoding; the active share of a mixture of experts — with the named mistakes
next to them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import positive_int

MIB, GIB = 2 ** 20, 2 ** 30
KV_7B = {"layers": 32, "heads": 32, "d_head": 128}        # a 7B-size decoder (the shape of Llama 2 7B)


def _count(value, name: str, *, zero: bool = False) -> int:
    """A whole count ≥ 1 (≥ 0 with ``zero``) as a Python int, or ValueError (Japanese)."""
    if zero and not isinstance(value, (bool, np.bool_)) and value == 0:
        return 0
    return positive_int(value, name)


def in_kib(nbytes: int) -> float:
    """Bytes in KiB (2¹⁰ bytes): 524,288 → 512."""
    return _count(nbytes, "バイト数", zero=True) / 1024


def in_mib(nbytes: int) -> float:
    """Bytes in MiB (2²⁰ bytes): 536,870,912 → 512."""
    return _count(nbytes, "バイト数", zero=True) / MIB


def in_gib(nbytes: int) -> float:
    """Bytes in GiB (2³⁰ bytes): 2,147,483,648 → 2."""
    return _count(nbytes, "バイト数", zero=True) / GIB


# ---------------------------------------------------------------------------
# the KV cache, MQA / GQA
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class KvCache:
    layers: int
    kv_heads: int
    d_head: int
    context: int
    bytes_per_value: int
    batch: int

    @property
    def per_token(self) -> int:
        """K and V of one token in every layer: 2·L·n_kv·d_head·bytes."""
        return 2 * self.layers * self.kv_heads * self.d_head * self.bytes_per_value

    @property
    def total(self) -> int:
        return self.per_token * self.context * self.batch


def kv_cache(layers: int, kv_heads: int, d_head: int, context: int, bytes_per_value: int = 2,
             batch: int = 1) -> KvCache:
    """The keys and values kept for every past token so that a new token's query needs only its
    own K and V computed: 2 (K and V) × L × n_kv × d_head × T × bytes × B. A 7B-size model
    (32 layers, 32 heads of 128, fp16) at T = 4,096: 2 GiB."""
    args = (_count(layers, "層数 L"), _count(kv_heads, "KV ヘッド数"), _count(d_head, "1 ヘッドの次元 d_head"),
            _count(context, "文脈の長さ T"), _count(bytes_per_value, "1 つの値のバイト数"), _count(batch, "バッチ"))
    if max(args) > 10 ** 7:
        raise ValueError("大きさは 10,000,000 以下にしてください。")
    return KvCache(*args)


def kv_cache_bytes(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    return kv_cache(layers, kv_heads, d_head, context, bytes_per_value, batch).total


def kv_cache_bytes_k_only(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: only the keys kept (the factor 2 for K and V forgotten)."""
    return kv_cache_bytes(layers, kv_heads, d_head, context, bytes_per_value, batch) // 2


def kv_cache_bytes_query_heads(layers, heads, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: the number of query heads used for the KV heads (grouped-query attention ignored)."""
    kv_saving(heads, kv_heads)
    return kv_cache_bytes(layers, heads, d_head, context, bytes_per_value, batch)


def kv_cache_bytes_one_layer(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: one layer only (every layer keeps its own K and V)."""
    c = kv_cache(layers, kv_heads, d_head, context, bytes_per_value, batch)
    return c.total // c.layers


def kv_cache_bytes_no_batch(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: one sequence only (every sequence of the batch has its own cache)."""
    c = kv_cache(layers, kv_heads, d_head, context, bytes_per_value, batch)
    return c.total // c.batch


def kv_cache_curve(layers: int, heads: int, kv_heads, d_head: int, contexts, bytes_per_value: int = 2,
                   batch: int = 1) -> dict[int, tuple[int, ...]]:
    """{n_kv: the cache's bytes at each context length}: one line per number of KV heads, each of
    which must split the ``heads`` query heads into equal groups (for a plot)."""
    for g in kv_heads:
        kv_saving(heads, g)
    return {int(g): tuple(kv_cache_bytes(layers, g, d_head, t, bytes_per_value, batch) for t in contexts)
            for g in kv_heads}


def kv_saving(heads: int, kv_heads: int) -> int:
    """How many times smaller the cache is with n_kv KV heads shared by n_heads query heads:
    n_heads / n_kv (MHA: 1, GQA with 8 of 32: 4, MQA: n_heads)."""
    h, g = _count(heads, "クエリのヘッド数"), _count(kv_heads, "KV ヘッド数")
    if h % g:
        raise ValueError(f"クエリのヘッド数 {h} が KV ヘッド数 {g} で割り切れません（グループに等分できる数にしてください）。")
    return h // g


def kv_groups(heads: int, kv_heads: int) -> tuple[int, ...]:
    """Which K·V head each query head reads (0-based): query head i uses group i // (n_heads / n_kv).
    MHA: (0, 1, …, h − 1); MQA: (0, 0, …, 0)."""
    per = kv_saving(heads, kv_heads)
    return tuple(i // per for i in range(heads))


# ---------------------------------------------------------------------------
# sparse attention: a sliding window plus global tokens (Longformer 2020, BigBird 2020)
# ---------------------------------------------------------------------------
DEMO_N, DEMO_RADIUS, DEMO_GLOBAL = 12, 2, 1


@dataclass(frozen=True)
class WindowPairs:
    n: int                      # tokens
    radius: int                 # r: each token sees r neighbours on each side (window width 2r + 1)
    n_global: int               # the first g tokens see every token and are seen by every token
    mask: np.ndarray            # (n, n) bool, True = the score q_i · k_j is computed
    full: int                   # n²
    pairs: int                  # mask.sum()

    @property
    def width(self) -> int:
        return 2 * self.radius + 1

    @property
    def share(self) -> float:
        return self.pairs / self.full


def window_mask(n: int, radius: int, n_global: int = 0) -> np.ndarray:
    """(n, n) bool: mask[i, j] = |i − j| ≤ r, or i or j is one of the first g (global) tokens."""
    n, r, g = (_count(n, "トークン数 n"), _count(radius, "窓の片側の幅 r", zero=True),
               _count(n_global, "グローバルなトークンの数", zero=True))
    if n > 4096:
        raise ValueError(f"トークン数は 4,096 以下にしてください（{n}）。")
    if g > n:
        raise ValueError(f"グローバルなトークンの数 {g} がトークン数 {n} より多くなっています。")
    i = np.arange(n)
    near = np.abs(i[:, None] - i[None, :]) <= r                         # (n, n) the band
    glob = (i[:, None] < g) | (i[None, :] < g)                          # (n, n) global rows and columns
    return near | glob


def window_pairs(n: int, radius: int, n_global: int = 0) -> WindowPairs:
    """The scores a sliding window (with g global tokens) computes, against n² for full attention.
    Without global tokens and for r < n: n(2r + 1) − r(r + 1) (the windows are cut at both ends)."""
    mask = window_mask(n, radius, n_global)
    return WindowPairs(int(n), int(radius), int(n_global), mask, int(n) ** 2, int(mask.sum()))


def window_edge_cut(radius: int) -> int:
    """The scores a window of radius r loses at the two ends of the sequence: 2 · (1 + … + r) = r(r + 1)."""
    r = _count(radius, "窓の片側の幅 r", zero=True)
    return r * (r + 1)


def window_pairs_no_edges(n: int, radius: int) -> int:
    """MISTAKE: n · (2r + 1), as if every token had full windows (the two ends are cut)."""
    return _count(n, "トークン数 n") * (2 * _count(radius, "窓の片側の幅 r", zero=True) + 1)


def window_pairs_one_side(n: int, radius: int) -> int:
    """MISTAKE: only the r neighbours on one side (and itself), as in a causal window."""
    n, r = _count(n, "トークン数 n"), _count(radius, "窓の片側の幅 r", zero=True)
    return sum(min(i, r) + 1 for i in range(n))


# ---------------------------------------------------------------------------
# speculative decoding (Leviathan et al. 2022) and a mixture of experts (Shazeer et al. 2017)
# ---------------------------------------------------------------------------
def speculative_tokens(accept: float, drafted: int) -> float:
    """Expected tokens per call of the large model when a small model drafts γ tokens and each is
    accepted with probability α (independently): (1 − α^{γ+1}) / (1 − α); γ + 1 when α = 1."""
    a, g = float(accept), _count(drafted, "下書きのトークン数 γ")
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"受理される確率 α は 0 以上 1 以下にしてください（{accept}）。")
    if g > 64:
        raise ValueError("下書きのトークン数 γ は 64 以下にしてください。")
    return float(g + 1) if a == 1.0 else (1.0 - a ** (g + 1)) / (1.0 - a)


@dataclass(frozen=True)
class MoeCount:
    experts: int                # E
    top_k: int                  # k experts chosen per token by the router
    expert_params: int          # parameters of one expert (an FFN)
    total: int                  # E · P: what is stored
    active: int                 # k · P: what one token uses


def moe_params(expert_params: int, experts: int, top_k: int) -> MoeCount:
    """A mixture-of-experts FFN layer: E experts are stored, each token goes through k of them
    (Switch Transformer: k = 1)."""
    p, e, k = _count(expert_params, "1 つの専門家のパラメータ数"), _count(experts, "専門家の数 E"), _count(top_k, "選ぶ数 k")
    if k > e:
        raise ValueError(f"選ぶ専門家の数 k = {k} が専門家の数 E = {e} を超えています。")
    return MoeCount(e, k, p, e * p, k * p)
