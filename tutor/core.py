"""The shared kernel of the engine: input checks, softmax, (scaled dot-product) attention,
masks, multi-head and cross-attention.

Conventions (those of the seeds):
- one token per ROW: X is (n, d_model);
- weights multiply on the right: Q = X @ W_Q;
- softmax runs along the last axis (each row sums to 1);
- everything is float64, inputs are never mutated, errors are ``ValueError`` with a
  Japanese message that names the shapes or the problem.

Every topic module (``tutor/<page key>.py``) builds on these; the named misconceptions that
distort a formula of this module (e.g. ``mask_after_softmax``) live here too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


__all__ = [
    "as_matrix",
    "positive_int",
    "check_rng",
    "checked_qkv",
    "softmax",
    "softmax_jacobian",
    "finite_scores",
    "QKV",
    "project_qkv",
    "causal_mask",
    "padding_mask",
    "as_bool_mask",
    "additive_mask",
    "mask_after_softmax",
    "AttentionResult",
    "attention",
    "head_dim",
    "split_heads",
    "merge_heads",
    "MultiHeadResult",
    "multi_head_attention",
    "multi_head_attention_per_head",
    "CrossAttentionResult",
    "cross_attention",
    "row_sums",
    "matmul",
    "weighted_sum",
    "most_attended",
    "check_mistake",
    "max_abs_difference",
]


# ---------------------------------------------------------------------------
# input checking
# ---------------------------------------------------------------------------
def as_matrix(x, name: str = "入力", *, ndim: int | tuple[int, ...] | None = None) -> np.ndarray:
    """Return ``x`` as a float64 array (a copy is never needed: we do not write to it).

    Raises ValueError (Japanese) for: non-numeric entries, empty arrays, NaN/inf,
    and a wrong number of dimensions when ``ndim`` is given.
    """
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} に数値でない値が含まれています。") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " または ".join(f"{d} 次元" for d in allowed)
            raise ValueError(f"{name} は {want} の配列が必要ですが、形は {arr.shape}（{arr.ndim} 次元）です。")
    if arr.size == 0:
        raise ValueError(f"{name} が空です（形 {arr.shape}）。少なくとも 1 つの値が必要です。")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} に NaN または無限大（inf）が含まれています。有限の数値を入れてください。")
    return arr


def positive_int(value, name: str) -> int:
    """``value`` as a Python int ≥ 1 (bools, fractions and text refused), or ValueError (Japanese)."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} は 1 以上の整数が必要です（{value!r}）。")
    try:
        as_int = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} は 1 以上の整数が必要です（{value!r}）。") from None
    if as_int != value or as_int < 1:
        raise ValueError(f"{name} は 1 以上の整数が必要です（{value!r}）。")
    return as_int


def real_number(value, name: str, *, low: float | None = None, high: float | None = None,
                above: float | None = None) -> float:
    """``value`` as a finite float (a bool or a text is not a number), ≥ ``low`` or > ``above``, and ≤
    ``high``; otherwise ValueError (Japanese) that names the range."""
    if high is not None:
        lower = f" {above:g} より大きく" if above is not None else f" {low:g} 以上" if low is not None else ""
        limit = f"{lower} {high:g} 以下の"
    else:
        limit = (f" {above:g} より大きい有限の" if above is not None else f" {low:g} 以上の有限の" if low is not None
                 else "有限の")
    wrong = ValueError(f"{name} は{limit}数にしてください（{value!r}）。")
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise wrong
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise wrong from None
    if (not math.isfinite(x) or (low is not None and x < low) or (above is not None and x <= above)
            or (high is not None and x > high)):
        raise wrong
    return x


def check_rng(rng) -> np.random.Generator:
    """Randomness only from a passed Generator (same seed → same numbers)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng には np.random.default_rng(seed) で作った Generator を渡してください。")
    return rng


def finite_scores(scores: np.ndarray) -> np.ndarray:
    """The score table S = Q Kᵀ, or ValueError (Japanese) when a dot product overflowed to ±∞.

    Finite inputs can still give an infinite score (1e200 · 1e200): softmax would then see ±∞
    and no weight can be computed, so every attention path stops here with the same message."""
    if not np.isfinite(scores).all():
        raise ValueError(
            f"スコア QKᵀ（形 {scores.shape}）に大きすぎて表せない値（オーバーフロー）があります。"
            "Q と K の値を小さくしてください。"
        )
    return scores


def checked_qkv(q, k, v, *, same_leading: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v) as float64; Japanese errors otherwise.

    same_leading: also require identical leading (batch, heads) dims, as the block-wise paths
    (tiled, fast) do; ``attention`` lets them broadcast."""
    q = as_matrix(q, "Q", ndim=(2, 3, 4))
    k = as_matrix(k, "K", ndim=(2, 3, 4))
    v = as_matrix(v, "V", ndim=(2, 3, 4))
    if k.shape[-1] != q.shape[-1]:
        raise ValueError(
            f"Q（形 {q.shape}）と K（形 {k.shape}）の最後の次元 d_k が一致しません"
            f"（{q.shape[-1]} と {k.shape[-1]}）。内積 QKᵀ がとれません。"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"K（形 {k.shape}）と V（形 {v.shape}）のトークン数が一致しません"
            f"（{k.shape[-2]} と {v.shape[-2]}）。キーとバリューは同じ数だけ必要です。"
        )
    if same_leading and not (k.shape[:-2] == v.shape[:-2] == q.shape[:-2]):
        raise ValueError(
            f"Q（形 {q.shape}）、K（形 {k.shape}）、V（形 {v.shape}）の先頭の次元（バッチ・ヘッド）が揃っていません。"
        )
    return q, k, v


# ---------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------
def softmax(x, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Numerically stable softmax.

        softmax(x)_i = exp((x_i - max_j x_j) / T) / sum_j exp((x_j - max_j x_j) / T)

    Subtracting the row max changes nothing mathematically but keeps exp() from
    overflowing: softmax([1000, 1001]) = (0.269, 0.731). Entries equal to -inf get an
    exact 0 (this is how masks work). A row whose entries are all -inf has no valid
    key and raises ValueError; NaN or +inf raise too.
    """
    try:
        x = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("softmax の入力に数値でない値が含まれています。") from exc
    if x.size == 0:
        raise ValueError(f"softmax の入力が空です（形 {x.shape}）。")
    if np.isnan(x).any() or np.isposinf(x).any():
        raise ValueError("softmax の入力に NaN または +∞ が含まれています。")
    temperature = float(temperature)
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"温度 T は正の有限な数でなければなりません（T = {temperature}）。")
    row_max = x.max(axis=axis, keepdims=True)
    if np.isneginf(row_max).any():
        raise ValueError("すべての要素が −∞（全部マスク）の行があります。少なくとも 1 つは見てよい位置が必要です。")
    with np.errstate(over="ignore"):                     # (x − max) / T for a tiny T: −huge → e^… = 0
        shifted = (x - row_max) / temperature            # ≤ 0; the max → 0, −∞ → −∞
    e = np.exp(shifted)                                  # the max → 1, −∞ → exactly 0
    return e / e.sum(axis=axis, keepdims=True)


def softmax_jacobian(scores) -> np.ndarray:
    """Jacobian of softmax for one row: J[i, j] = ∂a_i/∂s_j = a_i (δ_ij − a_j). s (n,) → J (n, n).

    When softmax is saturated (one a_i ≈ 1) every entry is ≈ 0: learning stalls.
    """
    s = as_matrix(scores, "スコア", ndim=1)                   # (n,)
    a = softmax(s)                                            # (n,)
    return np.diag(a) - np.outer(a, a)                        # (n, n)


# ---------------------------------------------------------------------------
# Q / K / V projections (8.3)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class QKV:
    q: np.ndarray  # (n, d_k)
    k: np.ndarray  # (n, d_k)
    v: np.ndarray  # (n, d_v)


def _check_matmul(a: np.ndarray, b: np.ndarray, a_name: str, b_name: str) -> None:
    if a.shape[-1] != b.shape[0]:
        raise ValueError(
            f"{a_name}（形 {a.shape}）と {b_name}（形 {b.shape}）は掛けられません："
            f"{a_name} の列数 {a.shape[-1]} と {b_name} の行数 {b.shape[0]} が一致しません。"
        )


def project_qkv(x, w_q, w_k, w_v) -> QKV:
    """Q = X·W_Q, K = X·W_K, V = X·W_V.

    x: (n, d_model); w_q, w_k: (d_model, d_k); w_v: (d_model, d_v).
    """
    x = as_matrix(x, "X", ndim=2)
    w_q = as_matrix(w_q, "W_Q", ndim=2)
    w_k = as_matrix(w_k, "W_K", ndim=2)
    w_v = as_matrix(w_v, "W_V", ndim=2)
    for w, name in ((w_q, "W_Q"), (w_k, "W_K"), (w_v, "W_V")):
        _check_matmul(x, w, "X", name)
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"W_Q の列数（d_k = {w_q.shape[1]}）と W_K の列数（{w_k.shape[1]}）が違います。"
            "クエリとキーは同じ次元 d_k でないと内積がとれません。"
        )
    return QKV(q=x @ w_q, k=x @ w_k, v=x @ w_v)  # (n, d_k), (n, d_k), (n, d_v)


# ---------------------------------------------------------------------------
# masks
# ---------------------------------------------------------------------------
def causal_mask(n: int) -> np.ndarray:
    """(n, n) bool; mask[i, j] is True when query i may attend to key j, i.e. j <= i."""
    n = int(n)
    if n <= 0:
        raise ValueError(f"系列長 n は 1 以上が必要です（n = {n}）。")
    idx = np.arange(n)
    return idx[:, None] >= idx                              # (n, n), = np.tril(np.ones((n, n), bool))


def padding_mask(valid_lengths, n: int) -> np.ndarray:
    """Mask that hides padding keys.

    valid_lengths: an int (one sequence) or a 1-D sequence of ints (a batch).
    Returns (n, n) for an int, (b, n, n) for a sequence; mask[..., i, j] = (j < length).
    """
    n = int(n)
    lengths = np.asarray(valid_lengths)
    if lengths.size == 0 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"有効長は整数で指定してください（{valid_lengths!r}）。")
    if (lengths < 1).any() or (lengths > n).any():
        raise ValueError(f"有効長は 1 以上 n = {n} 以下でなければなりません（{lengths.tolist()}）。")
    keys_ok = np.arange(n) < lengths[..., None]           # (..., n)
    return np.broadcast_to(keys_ok[..., None, :], lengths.shape + (n, n)).copy()  # (..., n, n)


def _check_mask_shape(mask: np.ndarray, shape: tuple, what: str) -> None:
    """The mask must broadcast TO ``shape`` (never enlarge it, e.g. (3, 3) onto (1, 3))."""
    if mask.shape == tuple(shape):
        return
    try:
        fits = np.broadcast_shapes(mask.shape, shape) == tuple(shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"マスクの形 {mask.shape} が{what}の形 {tuple(shape)} に合いません。")


def as_bool_mask(mask, name: str = "マスク") -> np.ndarray:
    """A mask must be bool (True = may attend). A float mask is refused: the additive form
    (0 / −∞) cast to bool would silently invert it."""
    arr = np.asarray(mask)
    if arr.dtype != np.bool_:
        raise ValueError(
            f"{name} は True/False の配列（True = 見てよい）で渡してください（dtype {arr.dtype}）。"
            "0 / −∞ の加算形は additive_mask で作る表示用の形です。"
        )
    return arr


def additive_mask(mask) -> np.ndarray:
    """Bool mask (True = may attend) → the additive form M: 0 where allowed, -inf elsewhere."""
    mask = as_bool_mask(mask)
    return np.where(mask, 0.0, -np.inf)


def mask_after_softmax(weights, mask) -> np.ndarray:
    """The classic MISTAKE, kept for the pages and quizzes: zero the weights after softmax.

    Rows then no longer sum to 1 (the mass that was on the future is simply lost).
    """
    weights = np.asarray(weights, dtype=np.float64)
    mask = as_bool_mask(mask)
    _check_mask_shape(mask, weights.shape, "重み")
    return np.where(mask, weights, 0.0)


# ---------------------------------------------------------------------------
# scaled dot-product attention (8.5)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AttentionResult:
    scores: np.ndarray   # (..., n_q, n_k)  Q Kᵀ
    scaled: np.ndarray   # (..., n_q, n_k)  Q Kᵀ / √d_k   (equal to scores when scale=False)
    masked: np.ndarray   # (..., n_q, n_k)  scaled + M    (-inf where masked)
    weights: np.ndarray  # (..., n_q, n_k)  softmax(masked), rows sum to 1
    output: np.ndarray   # (..., n_q, d_v)  weights · V
    divisor: float       # √d_k (1.0 when scale=False)


def attention(q, k, v, mask=None, *, scale: bool = True) -> AttentionResult:
    """Scaled dot-product attention with every intermediate.

        Attention(Q, K, V) = softmax(Q Kᵀ / √d_k + M) V

    q: (..., n_q, d_k), k: (..., n_k, d_k), v: (..., n_k, d_v);
    mask: bool, broadcastable to (..., n_q, n_k), True = may attend (M = 0 there, -inf elsewhere).
    scale=False is the "forgot √d_k" variant.
    """
    q, k, v = checked_qkv(q, k, v, same_leading=False)  # leading dims may broadcast here
    d_k = q.shape[-1]
    divisor = math.sqrt(d_k) if scale else 1.0
    with np.errstate(over="ignore"):                         # an overflow is reported just below
        scores = finite_scores(q @ k.swapaxes(-1, -2))       # (..., n_q, n_k)
    scaled = scores / divisor                                # (..., n_q, n_k)
    if mask is None:
        masked = scaled
    else:
        mask = as_bool_mask(mask)
        _check_mask_shape(mask, scaled.shape, "スコア")
        if not mask.any(axis=-1).all():
            raise ValueError("すべてのキーがマスクされた行があります。少なくとも 1 つは見てよいキーが必要です。")
        masked = scaled + additive_mask(mask)                # (..., n_q, n_k), -inf where hidden
    weights = softmax(masked, axis=-1)                       # (..., n_q, n_k)
    output = weights @ v                                     # (..., n_q, d_v)
    return AttentionResult(scores, scaled, masked, weights, output, divisor)


# ---------------------------------------------------------------------------
# multi-head attention (8.9)
# ---------------------------------------------------------------------------
def head_dim(d_model: int, n_heads: int) -> int:
    """d_k = d_model / h; raises ValueError (Japanese) when h does not divide d_model."""
    d_model, n_heads = int(d_model), int(n_heads)
    if n_heads <= 0 or d_model <= 0:
        raise ValueError(f"d_model と ヘッド数 h は 1 以上が必要です（d_model = {d_model}, h = {n_heads}）。")
    if d_model % n_heads != 0:
        raise ValueError(
            f"d_model = {d_model} はヘッド数 h = {n_heads} で割り切れません。"
            f"d_k = d_model / h が整数になる組み合わせを選んでください。"
        )
    return d_model // n_heads


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(n, h·d) → (h, n, d): head i takes columns i·d … (i+1)·d - 1."""
    x = as_matrix(x, "分割する行列", ndim=2)
    n, d_total = x.shape
    d = head_dim(d_total, n_heads)
    return x.reshape(n, n_heads, d).transpose(1, 0, 2)      # (h, n, d)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(h, n, d) → (n, h·d): the concatenation Concat(head_1, …, head_h)."""
    x = as_matrix(x, "ヘッドの出力", ndim=3)
    h, n, d = x.shape
    return x.transpose(1, 0, 2).reshape(n, h * d)           # (n, h·d)


@dataclass(frozen=True)
class MultiHeadResult:
    q: np.ndarray             # (h, n_q, d_k)
    k: np.ndarray             # (h, n_k, d_k)
    v: np.ndarray             # (h, n_k, d_v)
    heads: AttentionResult    # batched over heads: .weights (h, n_q, n_k), .output (h, n_q, d_v)
    concat: np.ndarray        # (n_q, h·d_v)
    output: np.ndarray        # (n_q, d_model) = concat · W_O

    @property
    def weights(self) -> np.ndarray:  # (h, n_q, n_k)
        return self.heads.weights

    @property
    def head_outputs(self) -> np.ndarray:  # (h, n_q, d_v)
        return self.heads.output

    @property
    def n_heads(self) -> int:
        return self.heads.weights.shape[0]


def _mha_from_heads(q, k, v, w_o, mask) -> MultiHeadResult:
    # q (h, n_q, d_k), k (h, n_k, d_k), v (h, n_k, d_v)
    heads = attention(q, k, v, mask)                          # weights (h, n_q, n_k)
    concat = merge_heads(heads.output)                        # (n_q, h·d_v)
    w_o = as_matrix(w_o, "W_O", ndim=2)
    _check_matmul(concat, w_o, "Concat(head_1…head_h)", "W_O")
    return MultiHeadResult(q, k, v, heads, concat, concat @ w_o)  # output (n_q, d_model)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads: int, mask=None, *, x_kv=None) -> MultiHeadResult:
    """Multi-head attention in the paper's form: full d_model×d_model matrices split into h heads.

        head_i = Attention(X W_Q[:, i], X W_K[:, i], X W_V[:, i])   (column block i, width d_k = d_model/h)
        MultiHead(X) = Concat(head_1, …, head_h) W_O

    x: (n, d_model); w_q, w_k, w_v: (d_model, d_model); w_o: (d_model, d_model).
    x_kv: optional (n_k, d_model) source of keys/values (cross-attention); defaults to x.
    """
    x = as_matrix(x, "X", ndim=2)
    x_kv = x if x_kv is None else as_matrix(x_kv, "エンコーダ出力", ndim=2)
    head_dim(x.shape[1], n_heads)
    w_q = as_matrix(w_q, "W_Q", ndim=2)
    w_k = as_matrix(w_k, "W_K", ndim=2)
    w_v = as_matrix(w_v, "W_V", ndim=2)
    _check_matmul(x, w_q, "X", "W_Q")
    _check_matmul(x_kv, w_k, "X", "W_K")
    _check_matmul(x_kv, w_v, "X", "W_V")
    q = split_heads(x @ w_q, n_heads)                         # (h, n_q, d_k)
    k = split_heads(x_kv @ w_k, n_heads)                      # (h, n_k, d_k)
    v = split_heads(x_kv @ w_v, n_heads)                      # (h, n_k, d_v)
    return _mha_from_heads(q, k, v, w_o, mask)


def multi_head_attention_per_head(x, head_weights, w_o, mask=None, *, x_kv=None) -> MultiHeadResult:
    """Multi-head attention in the seed's form: each head owns W_Q^(i), W_K^(i), W_V^(i).

        head_i = Attention(X W_Q^(i), X W_K^(i), X W_V^(i));  MultiHead(X) = Concat(head_1…head_h) W_O

    head_weights: sequence of h triples (w_q (d_model, d_k), w_k (d_model, d_k), w_v (d_model, d_v)),
    all heads of the same shapes; w_o: (h·d_v, d_model).
    """
    x = as_matrix(x, "X", ndim=2)
    x_kv = x if x_kv is None else as_matrix(x_kv, "エンコーダ出力", ndim=2)
    if len(head_weights) == 0:
        raise ValueError("ヘッドが 1 つもありません。")
    qs, ks, vs = [], [], []
    for i, (w_q, w_k, w_v) in enumerate(head_weights, start=1):
        qs.append(project_qkv(x, w_q, w_k, w_v).q)            # (n_q, d_k)
        kv = project_qkv(x_kv, w_q, w_k, w_v)
        ks.append(kv.k)                                       # (n_k, d_k)
        vs.append(kv.v)                                       # (n_k, d_v)
        if qs[-1].shape[1] != qs[0].shape[1] or vs[-1].shape[1] != vs[0].shape[1]:
            raise ValueError(f"ヘッド {i} の行列の形がヘッド 1 と違います。全ヘッドで同じ d_k, d_v にしてください。")
    return _mha_from_heads(np.stack(qs), np.stack(ks), np.stack(vs), w_o, mask)


# ---------------------------------------------------------------------------
# cross-attention = Source-Target Attention
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CrossAttentionResult:
    q: np.ndarray             # (n_tgt, d_k)  from the decoder
    k: np.ndarray             # (n_src, d_k)  from the encoder
    v: np.ndarray             # (n_src, d_v)  from the encoder
    attn: AttentionResult     # .weights (n_tgt, n_src)

    @property
    def weights(self) -> np.ndarray:
        return self.attn.weights

    @property
    def output(self) -> np.ndarray:
        return self.attn.output


def cross_attention(x_dec, x_enc, w_q, w_k, w_v, mask=None, *, scale: bool = True) -> CrossAttentionResult:
    """Source-Target Attention: Q = X_dec W_Q, K = X_enc W_K, V = X_enc W_V.

    x_dec: (n_tgt, d_model), x_enc: (n_src, d_model) → weights (n_tgt, n_src), output (n_tgt, d_v).
    """
    x_dec = as_matrix(x_dec, "デコーダ側の入力", ndim=2)
    x_enc = as_matrix(x_enc, "エンコーダ側の入力", ndim=2)
    if x_dec.shape[1] != x_enc.shape[1]:
        raise ValueError(
            f"デコーダ側（形 {x_dec.shape}）とエンコーダ側（形 {x_enc.shape}）の d_model が一致しません。"
        )
    q = project_qkv(x_dec, w_q, w_k, w_v).q               # (n_tgt, d_k)
    kv = project_qkv(x_enc, w_q, w_k, w_v)                 # k (n_src, d_k), v (n_src, d_v)
    return CrossAttentionResult(q, kv.k, kv.v, attention(q, kv.k, kv.v, mask, scale=scale))


def row_sums(weights) -> np.ndarray:
    """Sum of each row (last axis): 1 for attention weights, less after the classic mistake."""
    w = as_matrix(weights, "重み")
    return w.sum(axis=-1)                                      # (..., n_q)


# ---------------------------------------------------------------------------
# small steps
# ---------------------------------------------------------------------------
def matmul(a, b, a_name: str = "A", b_name: str = "B") -> np.ndarray:
    """A · B for 1-D or 2-D arrays, with a Japanese message when the shapes do not fit.

    a: (n, m) or (m,); b: (m, p) → (n, p) or (p,).
    """
    a = as_matrix(a, a_name, ndim=(1, 2))
    b = as_matrix(b, b_name, ndim=2)
    _check_matmul(a, b, a_name, b_name)
    return a @ b                                              # (n, p) or (p,)


def weighted_sum(weights, values, *, normalised: bool = True) -> np.ndarray:
    """Z = A · V for GIVEN attention weights A: z_ic = Σ_k a_ik v_kc.

    weights: (n_q, n_k) or one row (n_k,); values: (n_k, d_v) or (n_k,). Returns (n_q, d_v), (n_q,),
    (d_v,) or a 0-d array, as ``weights @ values``. Each row of A must be a distribution (≥ 0,
    sums to 1) — unless ``normalised=False``: weights as a question's stem shows them (rounded to a
    few places, so rows sum to 1 only up to rounding) or the scores a mistake uses as weights.
    """
    a = as_matrix(weights, "注意の重み", ndim=(1, 2))
    v = as_matrix(values, "バリュー V", ndim=(1, 2))
    if normalised:
        if (a < 0).any():
            raise ValueError("注意の重みに負の値があります。重みは 0 以上でなければなりません。")
        sums = a.sum(axis=-1)                                 # (n_q,) or ()
        if not np.allclose(sums, 1.0, atol=1e-9):
            raise ValueError(f"注意の重みの行の合計が 1 になっていません（合計 {np.round(sums, 4).tolist()}）。")
    if v.shape[0] != a.shape[-1]:
        raise ValueError(
            f"重み（形 {a.shape}）のキーの数 {a.shape[-1]} と"
            f"バリュー（形 {v.shape}）のトークン数 {v.shape[0]} が一致しません。"
        )
    return a @ v                                              # (n_q, d_v) / (n_q,) / (d_v,) / ()


TIE_TOL = 1e-12   # two weights this close are equal: a sentence never names one of them "the largest"


def top_keys(weights, query: int) -> tuple[int, ...]:
    """Every key that query ``query`` gives the largest weight, in key order: one index, or several
    when weights tie (within TIE_TOL). weights: (n_q, n_k). A page names "the largest" only when it is
    one key, and says that the first place is shared otherwise."""
    a = as_matrix(weights, "重み", ndim=2)
    if not 0 <= int(query) < a.shape[0]:
        raise ValueError(f"クエリの番号 {query} が重み（形 {a.shape}）の範囲外です。")
    row = a[int(query)]                                        # (n_k,)
    return tuple(int(j) for j in np.flatnonzero(np.isclose(row, row.max(), rtol=0.0, atol=TIE_TOL)))


def most_attended(weights, query: int) -> int:
    """Index of the key that query ``query`` gives the largest weight (the first on a tie):
    argmax_j A[query, j]. weights: (n_q, n_k). Lets a page say "「それ」 looks mostly at 魚"
    only when the learner's numbers make it true."""
    a = as_matrix(weights, "重み", ndim=2)
    if not 0 <= int(query) < a.shape[0]:
        raise ValueError(f"クエリの番号 {query} が重み（形 {a.shape}）の範囲外です。")
    return int(np.argmax(a[int(query)]))


def check_mistake(mistake, allowed, what: str) -> None:
    """A named misconception must be one of ``allowed`` (None = the correct formula)."""
    if mistake is not None and mistake not in allowed:
        raise ValueError(f"未知の誤り {mistake!r}（{what}）。使えるのは {', '.join(allowed)} です。")


def max_abs_difference(a, b) -> float:
    """max |a − b| over all elements (the number pages show to say "identical")."""
    a = as_matrix(a, "a")
    b = as_matrix(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"形の違う配列は比べられません（{a.shape} と {b.shape}）。")
    return float(np.max(np.abs(a - b)))
