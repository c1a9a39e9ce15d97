"""Small demonstrations for the ⑦ pages (the full Transformer), so the pages stay arithmetic-free.

- ``permutation_demo``: self-attention without position information is permutation
  EQUIVARIANT (shuffle the tokens → the outputs shuffle the same way); with X + PE it is not.
- ``rope_offset_table`` / ``additive_pe_score``: RoPE scores depend only on the offset m − n;
  adding a sinusoidal PE to q and k does not give that property.
- ``norm_batch_dependence``: LayerNorm of one example ignores the rest of the batch,
  BatchNorm does not.
- ``TOY_VOCAB`` / ``toy_next_logits``: a readable next-token model (a table of logits
  indexed by the previous token) to drive ``tutor.sampling.generate`` one step at a time.
- ``generation_step``: one reproducible step of the generation loop (seed, step → same token).

Conventions: one token per ROW, float64, inputs never mutated, Japanese ValueError messages.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .core import as_matrix, attention, causal_mask, softmax
from .cost import attention_memory_bytes, tiled_memory_bytes
from .tiled import TiledAttentionResult, tiled_attention
from .layers import batch_norm, layer_norm
from .position import add_positional_encoding, pe_angle_rates, positional_encoding, rope_score
from .sampling import GenerationStep, _check_temperature, generate

__all__ = [
    "PermutationDemo",
    "check_permutation",
    "permutation_demo",
    "pe_angle",
    "pe_component",
    "PEEntry",
    "pe_breakdown",
    "RopeOffsetRow",
    "rope_offset_table",
    "rope_shift_table",
    "additive_pe_score",
    "NormBatchDemo",
    "norm_batch_dependence",
    "TOY_VOCAB",
    "TOY_LOGITS",
    "toy_ids",
    "toy_next_logits",
    "generation_step",
    "TemperatureRow",
    "temperature_table",
    "max_abs_difference",
    "cost_lengths",
    "random_qkv",
    "TiledComparison",
    "compare_tiled",
]


def max_abs_difference(a, b) -> float:
    """max |a − b| over all elements (the number pages show to say "identical")."""
    a = as_matrix(a, "a")
    b = as_matrix(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"形の違う配列は比べられません（{a.shape} と {b.shape}）。")
    return float(np.max(np.abs(a - b)))


# ---------------------------------------------------------------------------
# permutation equivariance (why position information is needed)
# ---------------------------------------------------------------------------
def check_permutation(perm, n: int) -> np.ndarray:
    """perm as an int array that is a permutation of 0 … n−1, or ValueError (Japanese)."""
    arr = np.asarray(perm)
    if arr.ndim != 1 or arr.size != n or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"並べ替えは 0〜{n - 1} の整数 {n} 個の列が必要です（{list(np.ravel(arr))}）。")
    if sorted(arr.tolist()) != list(range(n)):
        raise ValueError(f"並べ替え {arr.tolist()} には同じ位置が重複しているか、抜けている位置があります。"
                         f"0〜{n - 1} をちょうど 1 回ずつ使ってください。")
    return arr.astype(np.int64)


@dataclass(frozen=True)
class PermutationDemo:
    perm: np.ndarray             # (n,)        new row r takes old row perm[r]
    inputs: np.ndarray           # (n, d)      X (or X + PE)
    permuted_inputs: np.ndarray  # (n, d)      X[perm] (+ PE when with_pe: PE follows the POSITION)
    output: np.ndarray           # (n, d_v)    f(X)
    output_permuted: np.ndarray  # (n, d_v)    f(X)[perm]: the original outputs, shuffled
    output_of_permuted: np.ndarray  # (n, d_v) f(X[perm]): attention run on the shuffled tokens
    max_diff: float              # max |f(X[perm]) − f(X)[perm]|  (0 ⇔ equivariant)
    with_pe: bool

    @property
    def equivariant(self) -> bool:
        return self.max_diff < 1e-9


def permutation_demo(x, w_q, w_k, w_v, perm, pe=None) -> PermutationDemo:
    """Compare f(X[perm]) with f(X)[perm] for self-attention f(X) = Attention(XW_Q, XW_K, XW_V).

    Without PE the two are equal (max_diff = 0 up to rounding): attention only sees WHICH
    tokens are there, not WHERE. With PE (pe: (n_pe, d) table, n_pe ≥ n) the position vector
    stays with the position while the tokens move, so the outputs change, not just move.
    """
    x = as_matrix(x, "埋め込み X", ndim=2)
    n, _ = x.shape
    perm = check_permutation(perm, n)
    x_perm = x[perm]                                          # (n, d) トークンだけ並べ替え
    if pe is not None:
        inputs = add_positional_encoding(x, pe)               # (n, d)
        permuted_inputs = add_positional_encoding(x_perm, pe)  # (n, d) 位置ベクトルは位置に残る
    else:
        inputs, permuted_inputs = x, x_perm
    w_q, w_k, w_v = (as_matrix(w, name, ndim=2) for w, name in ((w_q, "W_Q"), (w_k, "W_K"), (w_v, "W_V")))
    out = attention(inputs @ w_q, inputs @ w_k, inputs @ w_v).output                               # (n, d_v)
    out_of_perm = attention(permuted_inputs @ w_q, permuted_inputs @ w_k, permuted_inputs @ w_v).output  # (n, d_v)
    out_perm = out[perm]                                      # (n, d_v)
    return PermutationDemo(perm, inputs, permuted_inputs, out, out_perm, out_of_perm,
                           max_abs_difference(out_of_perm, out_perm), pe is not None)


# ---------------------------------------------------------------------------
# one PE component (also with deliberately wrong arguments, for quiz distractors)
# ---------------------------------------------------------------------------
def pe_angle(pos: float, i: float, d_model: float, base: float = 10000.0) -> float:
    """Angle of pair i at position pos: pos / base^(2i / d_model).

    No check that i < d_model/2: quizzes call it with swapped or wrong arguments on purpose
    (e.g. the column number used as i) to compute a named misconception.
    """
    pos, i, d_model, base = float(pos), float(i), float(d_model), float(base)
    if d_model <= 0 or base <= 1 or not all(np.isfinite([pos, i, d_model, base])):
        raise ValueError(f"角度を計算できません（pos = {pos}, i = {i}, d_model = {d_model}, base = {base}）。")
    return pos / base ** (2.0 * i / d_model)


def pe_component(pos: float, i: float, func: str, d_model: float, base: float = 10000.0) -> float:
    """sin or cos of pe_angle(pos, i, d_model): PE(pos, 2i) with func="sin", PE(pos, 2i+1) with "cos"."""
    if func not in ("sin", "cos"):
        raise ValueError(f"func は 'sin' か 'cos' です（{func!r}）。")
    angle = pe_angle(pos, i, d_model, base)
    return float(np.sin(angle) if func == "sin" else np.cos(angle))


# ---------------------------------------------------------------------------
# one PE vector, column by column (the hand calculation)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PEEntry:
    column: int      # 0 … d_model−1
    i: int           # pair index: column = 2i (sin) or 2i+1 (cos)
    func: str        # "sin" or "cos"
    exponent: float  # 2i / d_model
    rate: float      # ω_i = 1 / base^(2i/d_model)
    angle: float     # pos · ω_i  (radians)
    value: float     # sin(angle) or cos(angle)


def pe_breakdown(pos: int, d_model: int, base: float = 10000.0) -> list[PEEntry]:
    """PE(pos, ·) column by column with every intermediate:

        PE(pos, 2i) = sin(pos · ω_i),  PE(pos, 2i+1) = cos(pos · ω_i),  ω_i = base^(−2i/d_model)

    d_model = 4, pos = 1 → values (0.8415, 0.5403, 0.0100, 0.99995).
    """
    pos = int(pos)
    if pos < 0:
        raise ValueError(f"位置 pos は 0 以上の整数です（pos = {pos}）。")
    table = positional_encoding(pos + 1, d_model, base)      # (pos+1, d_model)
    rates = pe_angle_rates(d_model, base)                    # (d_model/2,)
    entries = []
    for i, rate in enumerate(rates):
        angle = float(pos * rate)
        for offset, func in ((0, "sin"), (1, "cos")):
            col = 2 * i + offset
            entries.append(PEEntry(col, i, func, 2 * i / d_model, float(rate), angle, float(table[pos, col])))
    return entries


# ---------------------------------------------------------------------------
# RoPE: the score depends only on the offset
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RopeOffsetRow:
    pos_q: int
    pos_k: int
    offset: int         # pos_q − pos_k
    rope: float         # (R_m q)·(R_n k)
    additive: float     # (q + PE_m)·(k + PE_n), the paper's additive PE, for contrast


def additive_pe_score(q_vec, k_vec, pos_q: int, pos_k: int, base: float = 10000.0) -> float:
    """Score when the sinusoidal PE is ADDED: (q + PE(pos_q))·(k + PE(pos_k)).

    It depends on the absolute positions, not only on pos_q − pos_k.
    """
    q_vec = as_matrix(q_vec, "クエリ q", ndim=1)
    k_vec = as_matrix(k_vec, "キー k", ndim=1)
    if q_vec.shape != k_vec.shape:
        raise ValueError(f"クエリ q（形 {q_vec.shape}）とキー k（形 {k_vec.shape}）の次元が一致しません。")
    pos_q, pos_k = int(pos_q), int(pos_k)
    if pos_q < 0 or pos_k < 0:
        raise ValueError(f"位置は 0 以上の整数です（{pos_q}, {pos_k}）。")
    pe = positional_encoding(max(pos_q, pos_k) + 1, q_vec.size, base)   # (max+1, d)
    return float((q_vec + pe[pos_q]) @ (k_vec + pe[pos_k]))


def rope_offset_table(q_vec, k_vec, pairs: Sequence[tuple[int, int]], base: float = 10000.0) -> list[RopeOffsetRow]:
    """One row per (pos_q, pos_k): the offset, the RoPE score and the additive-PE score."""
    rows = []
    for pos_q, pos_k in pairs:
        pos_q, pos_k = int(pos_q), int(pos_k)
        rows.append(RopeOffsetRow(pos_q, pos_k, pos_q - pos_k,
                                  rope_score(q_vec, k_vec, pos_q, pos_k, base),
                                  additive_pe_score(q_vec, k_vec, pos_q, pos_k, base)))
    return rows


def rope_shift_table(q_vec, k_vec, offset: int, starts: Sequence[int], base: float = 10000.0) -> list[RopeOffsetRow]:
    """Same offset, different absolute positions: pos_k = start, pos_q = start + offset.

    Every RoPE score in the table is the same number; the additive-PE scores differ.
    """
    offset = int(offset)
    pairs = []
    for start in starts:
        start = int(start)
        if start < 0 or start + offset < 0:
            raise ValueError(f"位置は 0 以上です（キーの位置 {start}、ずれ {offset}）。")
        pairs.append((start + offset, start))
    return rope_offset_table(q_vec, k_vec, pairs, base)


# ---------------------------------------------------------------------------
# LayerNorm vs BatchNorm: does one example depend on the others?
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NormBatchDemo:
    batch_a: np.ndarray   # (b, d)
    batch_b: np.ndarray   # (b, d)  same row `row`, other rows changed
    row: int
    ln_a: np.ndarray      # (b, d)  layer_norm(batch_a)
    ln_b: np.ndarray      # (b, d)
    bn_a: np.ndarray      # (b, d)  batch_norm(batch_a)
    bn_b: np.ndarray      # (b, d)
    ln_row_diff: float    # max |ln_a[row] − ln_b[row]|   (0: LayerNorm ignores the batch)
    bn_row_diff: float    # max |bn_a[row] − bn_b[row]|   (> 0: BatchNorm depends on it)


def norm_batch_dependence(batch_a, batch_b, row: int = 0, eps: float = 1e-5) -> NormBatchDemo:
    """Normalise two batches that share example ``row`` and compare that example's result.

    batch_a, batch_b: (b, d) with batch_a[row] == batch_b[row].
    """
    a = as_matrix(batch_a, "バッチ A", ndim=2)
    b = as_matrix(batch_b, "バッチ B", ndim=2)
    if a.shape != b.shape:
        raise ValueError(f"バッチ A（形 {a.shape}）とバッチ B（形 {b.shape}）は同じ形にしてください。")
    if a.shape[0] < 2:
        raise ValueError(f"バッチには 2 つ以上の例が必要です（形 {a.shape}）。")
    row = int(row)
    if not 0 <= row < a.shape[0]:
        raise ValueError(f"比べる例の番号 {row} がバッチの範囲 0〜{a.shape[0] - 1} の外です。")
    if not np.array_equal(a[row], b[row]):
        raise ValueError(f"比べる例（{row} 番）はバッチ A と B で同じ値にしてください。")
    ln_a, ln_b = layer_norm(a, eps), layer_norm(b, eps)       # (b, d) each
    bn_a, bn_b = batch_norm(a, eps), batch_norm(b, eps)       # (b, d) each
    return NormBatchDemo(a, b, row, ln_a, ln_b, bn_a, bn_b,
                         max_abs_difference(ln_a[row], ln_b[row]),
                         max_abs_difference(bn_a[row], bn_b[row]))


# ---------------------------------------------------------------------------
# a readable next-token model for the generation loop
# ---------------------------------------------------------------------------
TOY_VOCAB: tuple[str, ...] = ("<eos>", "猫", "は", "魚", "を", "食べた", "見つけた", "。")

# 直前のトークン（行）→ 次のトークン（列）のロジット。小さな整数で、手で読めるように。
#                  <eos> 猫  は  魚  を 食べた 見つけた 。
TOY_LOGITS = np.array([
    [0, 3, 0, 2, 0, 0, 0, 0],   # <eos>（文頭）→ 猫 / 魚
    [0, 0, 3, 0, 2, 0, 0, 0],   # 猫 → は / を
    [0, 1, 0, 3, 0, 0, 0, 0],   # は → 魚 / 猫
    [0, 0, 1, 0, 3, 0, 0, 0],   # 魚 → を / は
    [0, 0, 0, 0, 0, 3, 2, 0],   # を → 食べた / 見つけた
    [1, 0, 0, 0, 0, 0, 0, 3],   # 食べた → 。
    [1, 0, 0, 0, 0, 0, 0, 3],   # 見つけた → 。
    [3, 1, 0, 0, 0, 0, 0, 0],   # 。 → <eos> / 猫
], dtype=np.float64)
TOY_LOGITS.flags.writeable = False


def toy_ids(tokens: Sequence[str] | str) -> tuple[int, ...]:
    """Tokens (list, or a str split on spaces) → ids of TOY_VOCAB; unknown tokens → ValueError."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    out = []
    for tok in tokens:
        if tok not in TOY_VOCAB:
            raise ValueError(f"「{tok}」は語彙にありません。使える語: {'、'.join(TOY_VOCAB)}")
        out.append(TOY_VOCAB.index(tok))
    if not out:
        raise ValueError("トークンが 1 つもありません。")
    return tuple(out)


def toy_next_logits(ids: Sequence[int]) -> np.ndarray:
    """Logits of the next token: the row of TOY_LOGITS for the previous token. (vocab,)"""
    if len(ids) == 0:
        raise ValueError("トークン列が空です。")
    last = int(ids[-1])
    if not 0 <= last < len(TOY_VOCAB):
        raise ValueError(f"トークン ID {last} は語彙（0〜{len(TOY_VOCAB) - 1}）にありません。")
    return TOY_LOGITS[last].copy()                            # (vocab,)


@dataclass(frozen=True)
class TemperatureRow:
    temperature: float
    scaled: np.ndarray   # (vocab,)  z / T
    probs: np.ndarray    # (vocab,)  softmax(z / T)


def temperature_table(logits, temperatures: Sequence[float]) -> list[TemperatureRow]:
    """z / T and softmax(z / T) for each temperature. (2, 1, 0) with T = 1, 0.5, 2 →
    (0.665, 0.245, 0.090), (0.867, 0.117, 0.016), (0.506, 0.307, 0.186)."""
    z = as_matrix(logits, "ロジット", ndim=1)
    ts = [_check_temperature(t) for t in temperatures]      # the T > 0 check probabilities(z, t) makes
    if not ts:
        return []
    # every temperature in one stacked softmax: row r is z / T_r and softmax(z / T_r) bit for bit
    # (the same element-wise division, row max, exp and row sum; tested against one
    # probabilities(z, T) per temperature)
    scaled = z / np.array(ts)[:, None]                      # (m, vocab)
    probs = softmax(scaled, axis=-1)                        # (m, vocab)
    return [TemperatureRow(t, s, pr) for t, s, pr in zip(ts, scaled, probs)]


def generation_step(ids: Sequence[int], strategy: str, seed: int, temperature: float = 1.0,
                    k: int | None = None, p: float | None = None, next_logits=toy_next_logits) -> GenerationStep:
    """One step of the generation loop, reproducible: the random number depends only on
    (seed, current length), so the same seed and the same history give the same token.
    """
    ids = tuple(int(i) for i in ids)
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ValueError(f"シードは 0 以上の整数にしてください（{seed!r}）。")
    rng = np.random.default_rng([int(seed), len(ids)])
    result = generate(next_logits, ids, 1, strategy, rng, temperature, k=k, p=p)
    return result.steps[0]


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
