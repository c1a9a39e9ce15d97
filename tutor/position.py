"""Position information: sinusoidal positional encoding, a learned table, and RoPE.

Self-attention by itself does not know the order of the tokens: permuting the rows of X
permutes the output rows in exactly the same way (permutation equivariance). The
Transformer therefore ADDS a position vector to each token embedding (X + PE), or — in
many current LLMs — ROTATES q and k by an angle proportional to the position (RoPE).

Conventions: one token per ROW, positions count from 0, float64, inputs never mutated.
"""
from __future__ import annotations

import numpy as np

from .core import positive_int, check_rng, as_matrix

__all__ = [
    "pe_angle_rates",
    "positional_encoding",
    "positional_encoding_swapped",
    "learned_position_table",
    "add_positional_encoding",
    "rope_angles",
    "rope",
    "rope_score",
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
