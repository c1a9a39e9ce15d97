"""⑦-1 position information: sinusoidal positional encoding, a learned table, and RoPE.

Self-attention by itself does not know the order of the tokens: permuting the rows of X
permutes the output rows in exactly the same way (permutation equivariance,
:func:`permutation_demo`). The Transformer therefore ADDS a position vector to each token
embedding (X + PE), or — in many current LLMs — ROTATES q and k by an angle proportional to
the position (RoPE: the score depends only on the offset, :func:`rope_offset_table`).

    PE(pos, 2i) = sin(pos / 10000^{2i/d_model}),   PE(pos, 2i+1) = cos(pos / 10000^{2i/d_model})

The named mistakes of the formula (column read as i, pos and i swapped, sin/cos swapped,
PE forgotten, positions from 1) sit next to it.

Conventions: one token per ROW, positions count from 0, float64, inputs never mutated.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .core import as_matrix, attention, check_mistake, check_rng, max_abs_difference, positive_int

__all__ = [
    "pe_angle_rates",
    "positional_encoding",
    "positional_encoding_swapped",
    "learned_position_table",
    "add_positional_encoding",
    "rope_angles",
    "rope",
    "rope_score",
    "check_permutation",
    "PermutationDemo",
    "permutation_demo",
    "pe_angle",
    "pe_component",
    "PEEntry",
    "pe_breakdown",
    "RopeOffsetRow",
    "additive_pe_score",
    "rope_offset_table",
    "rope_shift_table",
    "PE_ANGLE_MISTAKES",
    "pe_angle_mistake",
    "PE_VALUE_MISTAKES",
    "pe_value_mistake",
    "PE_INPUT_MISTAKES",
    "pe_input_mistake",
    "pe_input_mistakes",
]


# ---------------------------------------------------------------------------
# input checking
# ---------------------------------------------------------------------------
def _even_dim(d: int, name: str = "d_model") -> int:
    d = positive_int(d, name)
    if d % 2 != 0:
        raise ValueError(
            f"{name} = {d} は奇数です。sin と cos を 2 次元ずつ組にするので、{name} は偶数にしてください。"
        )
    return d


def _check_base(base) -> float:
    try:
        base = float(base)
    except (TypeError, ValueError):
        raise ValueError(f"底 base は 1 より大きい数が必要です（{base!r}）。") from None
    if not np.isfinite(base) or base <= 1.0:
        raise ValueError(f"底 base は 1 より大きい有限の数が必要です（base = {base}）。")
    return base


# ---------------------------------------------------------------------------
# sinusoidal positional encoding (Attention Is All You Need, 3.5)
# ---------------------------------------------------------------------------
def pe_angle_rates(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angle per position for each sin/cos pair i = 0 … d_model/2 − 1:

        ω_i = 1 / base^(2i / d_model)

    Pair 0 turns 1 radian per position (wavelength 2π); the last pair turns slowest
    (wavelength close to 2π·base). Returns (d_model/2,).
    """
    d_model = _even_dim(d_model)
    base = _check_base(base)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)          # (d_model/2,) = 0, 2, 4, …
    return 1.0 / base ** (two_i / d_model)                       # (d_model/2,)


def _pe_angles(n_positions: int, d_model: int, base: float) -> np.ndarray:
    n_positions = positive_int(n_positions, "位置の数 n_positions")
    rates = pe_angle_rates(d_model, base)                        # (d_model/2,)
    pos = np.arange(n_positions, dtype=np.float64)               # (n,)
    return pos[:, None] * rates[None, :]                         # (n, d_model/2)


def positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Sinusoidal positional encoding of the paper.

        PE(pos, 2i)   = sin(pos / base^(2i / d_model))
        PE(pos, 2i+1) = cos(pos / base^(2i / d_model))

    Positions pos = 0 … n_positions − 1 (one per ROW); d_model must be even.
    Example: d_model = 4, pos = 1 → (sin 1, cos 1, sin 0.01, cos 0.01)
    = (0.8415, 0.5403, 0.0100, 0.99995). Returns (n_positions, d_model), values in [−1, 1].
    """
    angles = _pe_angles(n_positions, d_model, base)              # (n, d_model/2)
    n, half = angles.shape
    pe = np.empty((n, 2 * half), dtype=np.float64)               # (n, d_model)
    pe[:, 0::2] = np.sin(angles)                                 # 偶数列 = sin
    pe[:, 1::2] = np.cos(angles)                                 # 奇数列 = cos
    return pe


def positional_encoding_swapped(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The MISCONCEPTION "sin/cos swapped": cos on the even columns, sin on the odd ones.

        PE_wrong(pos, 2i) = cos(pos / base^(2i/d_model)),  PE_wrong(pos, 2i+1) = sin(…)

    Kept for quizzes (a distractor) and pages; d_model = 4, pos = 1 → (0.5403, 0.8415, 0.99995, 0.0100).
    Returns (n_positions, d_model).
    """
    angles = _pe_angles(n_positions, d_model, base)              # (n, d_model/2)
    n, half = angles.shape
    pe = np.empty((n, 2 * half), dtype=np.float64)               # (n, d_model)
    pe[:, 0::2] = np.cos(angles)                                 # 誤り: 偶数列に cos
    pe[:, 1::2] = np.sin(angles)                                 # 誤り: 奇数列に sin
    return pe


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


def _column(column, d_model) -> tuple[int, int, str]:
    column, d_model = int(column), int(d_model)
    if d_model < 2 or d_model % 2 or not 0 <= column < d_model:
        raise ValueError(f"列番号 {column} は 0〜{d_model - 1}（d_model = {d_model} は偶数）の範囲で指定してください。")
    return column, column // 2, ("sin" if column % 2 == 0 else "cos")


# ---------------------------------------------------------------------------
# named mistakes of the PE formula
# ---------------------------------------------------------------------------
PE_ANGLE_MISTAKES = ("column_as_i", "pos_i_swapped", "no_d_model")


def pe_angle_mistake(pos: int, column: int, d_model: int, mistake: str | None = None) -> float:
    """Angle used by PE(pos, column): pos / 10000^(2i/d_model) with i = column // 2; or

    column_as_i   — the column number itself used as i: pos / 10000^(2·column/d_model)
    pos_i_swapped — position and pair index exchanged: i / 10000^(2·pos/d_model)
    no_d_model    — the division by d_model forgotten: pos / 10000^(2i)
    """
    check_mistake(mistake, PE_ANGLE_MISTAKES, "pe_angle_mistake")
    column, i, _ = _column(column, d_model)
    if mistake == "column_as_i":
        return pe_angle(pos, column, d_model)
    if mistake == "pos_i_swapped":
        return pe_angle(i, pos, d_model)
    if mistake == "no_d_model":
        return pe_angle(pos, i, 1)
    return pe_angle(pos, i, d_model)


PE_VALUE_MISTAKES = ("swapped", "no_rate", "column_as_i")


def pe_value_mistake(pos: int, column: int, d_model: int, mistake: str | None = None) -> float:
    """PE(pos, column) (sin on even columns, cos on odd ones), or

    swapped     — sin and cos exchanged (tutor.positional_encoding_swapped)
    no_rate     — the angle taken as pos itself for every pair (ω_i = 1 forgotten)
    column_as_i — the column number used as the pair index i
    """
    check_mistake(mistake, PE_VALUE_MISTAKES, "pe_value_mistake")
    column, i, func = _column(column, d_model)
    pos = int(pos)
    if mistake == "swapped":
        return float(positional_encoding_swapped(pos + 1, d_model)[pos, column])
    if mistake == "no_rate":
        return pe_component(pos, 0, func, d_model)
    if mistake == "column_as_i":
        return pe_component(pos, column, func, d_model)
    return float(positional_encoding(pos + 1, d_model)[pos, column])


def learned_position_table(n_positions: int, d_model: int, rng: np.random.Generator,
                           scale: float = 0.02) -> np.ndarray:
    """The learned alternative (BERT, GPT): one trainable vector per position.

    Shown here as it is BEFORE training: entries drawn from N(0, scale²) with the given
    generator (GPT-2 initialises with scale 0.02). Unlike the sinusoidal table it has no
    formula, and it has no row for positions beyond n_positions. Returns (n_positions, d_model).
    """
    n_positions = positive_int(n_positions, "位置の数 n_positions")
    d_model = positive_int(d_model, "d_model")
    check_rng(rng)
    scale = float(scale)
    if not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale（標準偏差）は 0 以上の有限の数が必要です（scale = {scale}）。")
    return rng.normal(0.0, scale, size=(n_positions, d_model))   # (n_positions, d_model)


def add_positional_encoding(x, pe) -> np.ndarray:
    """Input of the first layer: X + PE (token embedding plus position vector, row by row).

    x: (..., n, d_model) embeddings; pe: (n_pe, d_model) with n_pe ≥ n (a precomputed
    table; its first n rows are used). Returns a new (..., n, d_model) array.
    """
    x = as_matrix(x, "埋め込み X", ndim=(2, 3))
    pe = as_matrix(pe, "位置エンコーディング PE", ndim=2)
    n, d_model = x.shape[-2:]
    n_pe, d_pe = pe.shape
    if d_pe != d_model:
        raise ValueError(
            f"埋め込み X（形 {x.shape}）と位置エンコーディング PE（形 {pe.shape}）の次元 d_model が"
            f"一致しません（{d_model} と {d_pe}）。足し算には同じ次元が必要です。"
        )
    if n_pe < n:
        raise ValueError(
            f"位置エンコーディング PE（形 {pe.shape}）には {n_pe} 位置分しかありませんが、"
            f"X（形 {x.shape}）は {n} トークンです。PE の行数を n 以上にしてください。"
        )
    return x + pe[:n]                                            # (..., n, d_model)


PE_INPUT_MISTAKES = ("no_pe", "swapped", "one_based")


def pe_input_mistake(x_row, pos: int, mistake: str | None = None) -> np.ndarray:
    """Input of the first layer for one token at position pos: x + PE(pos); or

    no_pe     — the position vector forgotten (x itself)
    swapped   — sin/cos exchanged in PE
    one_based — positions counted from 1 (PE(pos + 1) added)
    Returns (d_model,).
    """
    return pe_input_mistakes(x_row, pos, (mistake,))[mistake]


def pe_input_mistakes(x_row, pos: int, mistakes=(None,) + PE_INPUT_MISTAKES) -> dict:
    """{mistake: pe_input_mistake(x_row, pos, mistake)} for several mistakes at once.

    x is checked once and ONE table PE is built for positions 0 … pos + 1 (row pos of a table
    does not depend on how many rows it has: each entry is sin or cos of pos · ω_i). The
    swapped row is row pos with each (sin, cos) pair exchanged — the very entries of
    positional_encoding_swapped(pos + 1, d)[pos]. x_row: (d_model,); returns {None or name: (d_model,) array}.
    """
    for mistake in mistakes:
        check_mistake(mistake, PE_INPUT_MISTAKES, "pe_input_mistake")
    x = as_matrix(x_row, "埋め込み x", ndim=1)
    pos, d = int(pos), x.size
    if pos < 0:
        raise ValueError(f"位置 pos は 0 以上です（{pos}）。")
    pe = positional_encoding(pos + 2, d)                               # (pos + 2, d): rows pos and pos + 1
    out = {}
    for mistake in mistakes:
        if mistake == "no_pe":
            out[mistake] = x.copy()                                    # (d,)
        elif mistake == "swapped":
            out[mistake] = x + pe[pos].reshape(-1, 2)[:, ::-1].ravel()  # (d,)  (cos, sin) in each pair
        else:
            out[mistake] = x + pe[pos + 1 if mistake == "one_based" else pos]   # (d,)
    return out


# ---------------------------------------------------------------------------
# RoPE: rotary position embedding (Su et al., RoFormer)
# ---------------------------------------------------------------------------
def rope_angles(positions, d: int, base: float = 10000.0) -> np.ndarray:
    """Rotation angle of pair i at position m: θ_{m,i} = m · base^(−2i/d).

    positions: (..., n) (ints or floats); returns (..., n, d/2).
    """
    rates = pe_angle_rates(_even_dim(d, "d"), base)              # (d/2,)
    pos = np.asarray(positions, dtype=np.float64)
    if not np.all(np.isfinite(pos)):
        raise ValueError("位置 positions に NaN または無限大が含まれています。")
    return pos[..., None] * rates                                # (..., n, d/2)


def rope(x, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding applied to queries or keys.

    Each pair of columns (2i, 2i+1) of the row at position m is rotated by θ = m · base^(−2i/d):

        x'_{2i}   = x_{2i} cos θ − x_{2i+1} sin θ
        x'_{2i+1} = x_{2i} sin θ + x_{2i+1} cos θ

    A rotation keeps the length of every row, and (R_m q)·(R_n k) depends on the positions
    only through m − n: RoPE puts RELATIVE position into the score q·k.

    x: (..., n, d), d even; positions: broadcastable to (..., n), default 0 … n − 1.
    Returns a new (..., n, d) array.
    """
    x = as_matrix(x, "Q または K", ndim=(2, 3, 4))
    n, d = x.shape[-2:]
    _even_dim(d, "最後の次元 d")
    if positions is None:
        positions = np.arange(n, dtype=np.float64)               # (n,)
    pos = np.asarray(positions, dtype=np.float64)
    try:
        np.broadcast_shapes(pos.shape, x.shape[:-1])
    except ValueError:
        raise ValueError(
            f"位置 positions の形 {pos.shape} が入力（形 {x.shape}）のトークンの並び {x.shape[:-1]} に合いません。"
        ) from None
    angles = rope_angles(pos, d, base)                           # (..., n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)                    # (..., n, d/2)
    x_even, x_odd = x[..., 0::2], x[..., 1::2]                   # (..., n, d/2) each
    out = np.empty(np.broadcast_shapes(x.shape, angles.shape[:-1] + (d,)), dtype=np.float64)  # (..., n, d)
    out[..., 0::2] = x_even * cos - x_odd * sin
    out[..., 1::2] = x_even * sin + x_odd * cos
    return out


def rope_score(q_vec, k_vec, pos_q, pos_k, base: float = 10000.0) -> float:
    """Score of one query/key pair after RoPE: (R_{pos_q} q) · (R_{pos_k} k).

    q_vec, k_vec: (d,) with d even. The value depends on the positions only through
    pos_q − pos_k, so rope_score(q, k, 5, 3) == rope_score(q, k, 12, 10).
    """
    q_vec = as_matrix(q_vec, "クエリ q", ndim=1)
    k_vec = as_matrix(k_vec, "キー k", ndim=1)
    if q_vec.shape != k_vec.shape:
        raise ValueError(f"クエリ q（形 {q_vec.shape}）とキー k（形 {k_vec.shape}）の次元が一致しません。")
    q_rot = rope(q_vec[None, :], [pos_q], base)[0]               # (d,)
    k_rot = rope(k_vec[None, :], [pos_k], base)[0]               # (d,)
    return float(q_rot @ k_rot)


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


