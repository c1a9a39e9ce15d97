"""⑦-2 the parts around attention in a Transformer layer: normalisation, activations, the
position-wise feed-forward network (FFN), residual connections, post-LN / pre-LN blocks, and
parameter counts — with the named mistakes of LayerNorm and of the residual block, and
LayerNorm vs BatchNorm on two batches (:func:`norm_batch_dependence`).

Conventions: one token per ROW (x is (..., n, d_model)), weights on the right (x W),
normalisations act on the LAST axis unless the name says otherwise (batch_norm: axis 0).
float64, inputs never mutated, randomness only from a passed np.random.Generator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .core import as_matrix, check_mistake, check_rng, max_abs_difference, positive_int

__all__ = [
    "LayerNormSteps",
    "layer_norm_steps",
    "layer_norm",
    "batch_norm",
    "rms_norm",
    "relu",
    "gelu",
    "gelu_exact",
    "sigmoid",
    "silu",
    "ACTIVATIONS",
    "FFNResult",
    "ffn",
    "SwiGLUResult",
    "swiglu_ffn",
    "residual",
    "SublayerBlockResult",
    "post_ln_block",
    "pre_ln_block",
    "FFNParams",
    "init_ffn_params",
    "SwiGLUParams",
    "init_swiglu_params",
    "ffn_param_count",
    "swiglu_param_count",
    "NormBatchDemo",
    "norm_batch_dependence",
    "NormResult",
    "LN_MISTAKES",
    "layer_norm_mistake",
    "layer_norm_mistakes",
    "BLOCK_MISTAKES",
    "residual_block_mistake",
    "residual_block_mistakes",
]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _check_eps(eps) -> float:
    eps = float(eps)
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"eps は 0 以上の小さな有限の数が必要です（eps = {eps}）。")
    return eps


def _affine(y: np.ndarray, gamma, beta, d: int) -> np.ndarray:
    """y · γ + β with γ, β of shape (d,) (γ = 1, β = 0 when None)."""
    if gamma is not None:
        gamma = as_matrix(gamma, "γ（gamma）", ndim=1)
        if gamma.shape != (d,):
            raise ValueError(f"γ（gamma）の形 {gamma.shape} は最後の次元 ({d},) と同じでなければなりません。")
        y = y * gamma
    if beta is not None:
        beta = as_matrix(beta, "β（beta）", ndim=1)
        if beta.shape != (d,):
            raise ValueError(f"β（beta）の形 {beta.shape} は最後の次元 ({d},) と同じでなければなりません。")
        y = y + beta
    return y


# ---------------------------------------------------------------------------
# normalisation
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LayerNormSteps:
    mean: np.ndarray        # (...,)     μ = mean of each row (each token)
    var: np.ndarray         # (...,)     σ² = mean((x − μ)²)   (population variance, ÷ d)
    std: np.ndarray         # (...,)     √(σ² + ε)
    centered: np.ndarray    # (..., d)   x − μ
    normalized: np.ndarray  # (..., d)   (x − μ) / √(σ² + ε)
    output: np.ndarray      # (..., d)   γ ⊙ normalized + β   (= normalized when γ, β are None)
    eps: float


def _check_representable(stat: np.ndarray, shape: tuple, what: str) -> None:
    """A mean of squares of finite inputs can still overflow (1e200² = ∞): then the result would be
    silently 0 (x / ∞), so refuse it with a clear message instead."""
    if not np.isfinite(stat).all():
        raise ValueError(
            f"入力（形 {shape}）の値が大きすぎて{what}が計算できません（オーバーフロー）。"
            "値を小さくしてください（例えば全体を 10 のべき乗で割る）。"
        )


def _layer_norm_core(x: np.ndarray, eps: float) -> LayerNormSteps:
    """layer_norm_steps without the input checks: x already a finite float64 (..., d) array,
    eps a checked float (the public functions check once, then call this)."""
    mean = x.mean(axis=-1)                                   # (...,)   μ
    centered = x - mean[..., None]                           # (..., d) x − μ
    with np.errstate(over="ignore"):
        var = (centered * centered).mean(axis=-1)            # (...,)   σ² = mean((x − μ)²)
    _check_representable(var, x.shape, "分散 σ²")
    if eps == 0.0 and (var == 0.0).any():
        raise ValueError(
            f"入力（形 {x.shape}）にすべての値が同じ行（分散 0）があります。eps = 0 では割り算ができません。"
            "eps を正の値にしてください。"
        )
    std = np.sqrt(var + eps)                                 # (...,)
    normalized = centered / std[..., None]                   # (..., d)
    return LayerNormSteps(mean, var, std, centered, normalized, normalized, eps)


def layer_norm_steps(x, eps: float = 1e-5, gamma=None, beta=None) -> LayerNormSteps:
    """Layer normalisation of each row (each token) over its own d features:

        μ = (1/d) Σ_j x_j,   σ² = (1/d) Σ_j (x_j − μ)²
        LN(x) = γ ⊙ (x − μ) / √(σ² + ε) + β

    Statistics come from ONE token of ONE example: the result does not depend on the other
    rows or on the batch (contrast batch_norm). x: (..., d); gamma, beta: (d,) or None.
    eps = 0 is allowed for hand calculations, but then a constant row cannot be normalised.
    """
    x = as_matrix(x, "LayerNorm の入力 x", ndim=(1, 2, 3, 4))
    steps = _layer_norm_core(x, _check_eps(eps))             # (..., d)
    if gamma is None and beta is None:
        return steps
    output = _affine(steps.normalized, gamma, beta, x.shape[-1])  # (..., d)
    return LayerNormSteps(steps.mean, steps.var, steps.std, steps.centered, steps.normalized, output, steps.eps)


def layer_norm(x, eps: float = 1e-5, gamma=None, beta=None) -> np.ndarray:
    """LayerNorm over the last axis: γ ⊙ (x − μ) / √(σ² + ε) + β (see layer_norm_steps).

    layer_norm([1, 2, 3, 4], eps=0) = (−3, −1, 1, 3)/√5 ≈ (−1.342, −0.447, 0.447, 1.342).
    Returns an array of x's shape.
    """
    return layer_norm_steps(x, eps, gamma, beta).output


def _batch_norm_core(x: np.ndarray, eps: float) -> np.ndarray:
    """batch_norm without the input checks and without γ, β: x a finite float64 (batch, …, d)."""
    mean = x.mean(axis=0, keepdims=True)                                  # (1, …, d)
    dev = x - mean                                                        # (batch, …, d)
    with np.errstate(over="ignore"):
        var = (dev * dev).mean(axis=0, keepdims=True)                     # (1, …, d)
    _check_representable(var, x.shape, "バッチ方向の分散")
    if eps == 0.0 and (var == 0.0).any():
        raise ValueError(f"バッチ方向の分散が 0 の特徴があります（入力の形 {x.shape}）。eps を正の値にしてください。")
    return dev / np.sqrt(var + eps)                                       # (batch, …, d)


def batch_norm(x, eps: float = 1e-5, gamma=None, beta=None) -> np.ndarray:
    """Batch normalisation (training mode) over the BATCH axis 0, per feature:

        μ_j = mean over the batch of x[:, j],  σ²_j = var over the batch
        BN(x)[b, j] = γ_j (x[b, j] − μ_j) / √(σ²_j + ε) + β_j

    Here the result for one example DOES depend on the other examples in the batch —
    the contrast with layer_norm, which the Transformer uses. x: (batch, d) or (batch, …, d).
    """
    x = as_matrix(x, "BatchNorm の入力 x", ndim=(2, 3))
    normalized = _batch_norm_core(x, _check_eps(eps))        # (batch, …, d)
    return _affine(normalized, gamma, beta, x.shape[-1])


def _rms_norm_core(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(mean of squares (..., 1), x / √(ms + ε) (..., d)) without the input checks."""
    with np.errstate(over="ignore"):
        ms = (x * x).mean(axis=-1, keepdims=True)            # (..., 1)  mean of squares
    _check_representable(ms, x.shape, "二乗平均")
    if eps == 0.0 and (ms == 0.0).any():
        raise ValueError(f"入力（形 {x.shape}）にすべて 0 の行があります。eps = 0 では割り算ができません。")
    return ms, x / np.sqrt(ms + eps)                         # (..., 1), (..., d)


def rms_norm(x, eps: float = 1e-5, gamma=None) -> np.ndarray:
    """RMSNorm (used by LLaMA and other current LLMs): LayerNorm without the centring.

        RMS(x) = √((1/d) Σ_j x_j² + ε),   RMSNorm(x) = γ ⊙ x / RMS(x)

    No mean is subtracted and there is no β. x: (..., d); gamma: (d,) or None.
    """
    x = as_matrix(x, "RMSNorm の入力 x", ndim=(1, 2, 3, 4))
    _, out = _rms_norm_core(x, _check_eps(eps))              # (..., d)
    return _affine(out, gamma, None, x.shape[-1])            # (..., d)


# ---------------------------------------------------------------------------
# named mistakes of LayerNorm (the quiz distractors)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NormResult:
    mean: float          # the mean that was subtracted (0 when none was)
    spread: float        # the number divided by
    output: np.ndarray   # (d,)
    centered: np.ndarray | None = None   # (d,) x − μ that was divided (None when no mean was subtracted, or for BatchNorm)


LN_MISTAKES = ("variance", "sample", "rms", "batch")


def layer_norm_mistake(batch, row: int = 0, mistake: str | None = None) -> NormResult:
    """LayerNorm (ε = 0, γ = 1, β = 0) of example ``row`` of a (b, d) batch; or

    variance — divided by the variance σ² instead of the standard deviation σ
    sample   — the sample variance (÷ (d − 1)) instead of the population variance (÷ d)
    rms      — the mean not subtracted, divided by the root mean square (RMSNorm)
    batch    — statistics over the BATCH axis per feature (BatchNorm), row ``row`` returned
    """
    return layer_norm_mistakes(batch, row, (mistake,))[mistake]


def layer_norm_mistakes(batch, row: int = 0, mistakes=(None,) + LN_MISTAKES) -> dict:
    """{mistake: layer_norm_mistake(batch, row, mistake)} for several mistakes at once.

    The input is checked once and μ, x − μ, σ², σ of the row are computed once; every
    mistake is derived from these shared steps (same numbers as one call per mistake).
    batch: (b, d); returns {None or name: NormResult with output (d,)}.
    """
    for mistake in mistakes:
        check_mistake(mistake, LN_MISTAKES, "layer_norm_mistake")
    b = as_matrix(batch, "バッチ", ndim=2)
    row = int(row)
    if not 0 <= row < b.shape[0]:
        raise ValueError(f"例の番号 {row} がバッチ（形 {b.shape}）の範囲外です。")
    x = b[row]                                                # (d,)
    steps = _layer_norm_core(x, 0.0)                          # μ, x − μ, σ², σ: once
    mean = float(steps.mean)
    out = {}
    for mistake in mistakes:
        if mistake == "variance":
            out[mistake] = NormResult(mean, float(steps.var), steps.centered / steps.var, steps.centered)   # (d,)
        elif mistake == "sample":
            d = x.size
            if d < 2:
                raise ValueError("標本分散には 2 個以上の値が必要です。")
            spread = math.sqrt(float((steps.centered * steps.centered).sum()) / (d - 1))
            out[mistake] = NormResult(mean, spread, steps.centered / spread, steps.centered)               # (d,)
        elif mistake == "rms":
            ms, normed = _rms_norm_core(x, 0.0)               # (1,), (d,)
            out[mistake] = NormResult(0.0, math.sqrt(float(ms[0])), normed)
        elif mistake == "batch":
            normed = _batch_norm_core(b, 1e-12)[row]          # (d,)  a feature equal in every example → 0
            out[mistake] = NormResult(float("nan"), float("nan"), normed)
        else:
            out[mistake] = NormResult(mean, float(steps.std), steps.output, steps.centered)                # (d,)
    return out


def mean_mistake(x, mistake: str | None = None) -> float:
    """The mean μ = (1/d) Σ_i x_i of one vector (LayerNorm's first step), or

    no_divide — the sum Σ_i x_i, not divided by the number of entries d (sum and mean confused)

    x: (d,). Returns a float."""
    check_mistake(mistake, ("no_divide",), "mean_mistake")
    v = as_matrix(x, "ベクトル", ndim=1)                      # (d,)
    total = float(v.sum())
    return total if mistake == "no_divide" else total / v.size


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
# activations (element-wise)
# ---------------------------------------------------------------------------
def relu(x) -> np.ndarray:
    """ReLU(x) = max(0, x) (the original Transformer's FFN)."""
    x = as_matrix(x, "x")
    return np.maximum(x, 0.0)


def gelu(x) -> np.ndarray:
    """GELU, tanh approximation — the form used in the GPT-2 and original BERT code:

        GELU(x) ≈ 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))

    gelu(0) = 0, gelu(1) ≈ 0.8412 (the exact x·Φ(x) gives 0.8413, see gelu_exact).
    Smooth, and slightly negative for negative x (minimum ≈ −0.17 near x ≈ −0.75).
    """
    x = as_matrix(x, "x")
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_exact(x) -> np.ndarray:
    """Exact GELU: x · Φ(x) = 0.5 x (1 + erf(x / √2)), Φ = standard normal CDF."""
    x = as_matrix(x, "x")
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def sigmoid(x) -> np.ndarray:
    """σ(x) = 1 / (1 + e^(−x)), computed without overflow for large |x|."""
    x = as_matrix(x, "x")
    e = np.exp(-np.abs(x))                                   # ≤ 1, never overflows
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def silu(x) -> np.ndarray:
    """SiLU (= Swish with β = 1): x · σ(x). The gate of SwiGLU."""
    x = as_matrix(x, "x")
    return x * sigmoid(x)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"relu": relu, "gelu": gelu, "silu": silu}


# ---------------------------------------------------------------------------
# position-wise feed-forward network
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FFNResult:
    pre_activation: np.ndarray  # (..., n, d_ff)     x W1 + b1
    hidden: np.ndarray          # (..., n, d_ff)     act(x W1 + b1)
    output: np.ndarray          # (..., n, d_model)  hidden W2 + b2
    activation: str


def _weight(w, name: str, rows: int) -> np.ndarray:
    w = as_matrix(w, name, ndim=2)
    if w.shape[0] != rows:
        raise ValueError(f"{name}（形 {w.shape}）の行数は {rows} が必要です（直前の次元と掛け算するため）。")
    return w


def _bias(b, name: str, size: int) -> np.ndarray:
    if b is None:
        return np.zeros(size)
    b = as_matrix(b, name, ndim=1)
    if b.shape != (size,):
        raise ValueError(f"{name} の形 {b.shape} は ({size},) が必要です。")
    return b


def ffn(x, w1, b1, w2, b2, activation: str = "relu") -> FFNResult:
    """Position-wise feed-forward network, applied to every token (row) separately:

        FFN(x) = act(x W1 + b1) W2 + b2

    The paper: d_model = 512 → d_ff = 2048 → 512 with ReLU; GPT/BERT use GELU.
    x: (..., n, d_model) or (d_model,); w1: (d_model, d_ff); b1: (d_ff,) or None;
    w2: (d_ff, d_model); b2: (d_model,) or None; activation: "relu", "gelu" or "silu".
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"活性化関数 {activation!r} には対応していません。{sorted(ACTIVATIONS)} から選んでください。")
    x = as_matrix(x, "FFN の入力 x", ndim=(1, 2, 3))
    d_model = x.shape[-1]
    w1 = _weight(w1, "W1", d_model)
    d_ff = w1.shape[1]
    b1 = _bias(b1, "b1", d_ff)
    w2 = _weight(w2, "W2", d_ff)
    b2 = _bias(b2, "b2", w2.shape[1])
    if w2.shape[1] != d_model:
        raise ValueError(f"W2（形 {w2.shape}）の列数は入力の次元 d_model = {d_model} に戻す必要があります。")
    pre = x @ w1 + b1                                        # (..., n, d_ff)   広げる
    hidden = ACTIVATIONS[activation](pre)                    # (..., n, d_ff)   非線形
    output = hidden @ w2 + b2                                # (..., n, d_model) 戻す
    return FFNResult(pre, hidden, output, activation)


@dataclass(frozen=True)
class SwiGLUResult:
    gate_pre: np.ndarray  # (..., n, d_ff)     x W_gate
    gate: np.ndarray      # (..., n, d_ff)     SiLU(x W_gate)
    up: np.ndarray        # (..., n, d_ff)     x W_up
    hidden: np.ndarray    # (..., n, d_ff)     gate ⊙ up
    output: np.ndarray    # (..., n, d_model)  hidden W_down


def swiglu_ffn(x, w_gate, w_up, w_down) -> SwiGLUResult:
    """SwiGLU feed-forward network (LLaMA, PaLM): a gated FFN without biases.

        SwiGLU(x) = (SiLU(x W_gate) ⊙ x W_up) W_down

    x: (..., n, d_model); w_gate, w_up: (d_model, d_ff); w_down: (d_ff, d_model).
    """
    x = as_matrix(x, "SwiGLU の入力 x", ndim=(1, 2, 3))
    d_model = x.shape[-1]
    w_gate = _weight(w_gate, "W_gate", d_model)
    w_up = _weight(w_up, "W_up", d_model)
    if w_up.shape != w_gate.shape:
        raise ValueError(f"W_gate（形 {w_gate.shape}）と W_up（形 {w_up.shape}）は同じ形が必要です。")
    w_down = _weight(w_down, "W_down", w_gate.shape[1])
    if w_down.shape[1] != d_model:
        raise ValueError(f"W_down（形 {w_down.shape}）の列数は d_model = {d_model} が必要です。")
    gate_pre = x @ w_gate                                    # (..., n, d_ff)
    gate = silu(gate_pre)                                    # (..., n, d_ff)
    up = x @ w_up                                            # (..., n, d_ff)
    hidden = gate * up                                       # (..., n, d_ff)
    output = hidden @ w_down                                 # (..., n, d_model)
    return SwiGLUResult(gate_pre, gate, up, hidden, output)


# ---------------------------------------------------------------------------
# residual connection and the two block orders
# ---------------------------------------------------------------------------
def residual(x, sublayer_out) -> np.ndarray:
    """Residual (skip) connection: x + Sublayer(x). Both of the same shape."""
    x = as_matrix(x, "残差の入力 x")
    sublayer_out = as_matrix(sublayer_out, "サブレイヤーの出力")
    if x.shape != sublayer_out.shape:
        raise ValueError(
            f"残差接続では入力 x（形 {x.shape}）とサブレイヤーの出力（形 {sublayer_out.shape}）の形が"
            "同じでなければ足せません。"
        )
    return x + sublayer_out


@dataclass(frozen=True)
class SublayerBlockResult:
    order: str                  # "post"（論文）or "pre"（GPT 系）
    sublayer_input: np.ndarray  # (..., n, d)  post: x;            pre: LN(x)
    sublayer_output: np.ndarray # (..., n, d)  Sublayer(sublayer_input)
    residual_sum: np.ndarray    # (..., n, d)  x + sublayer_output
    ln: LayerNormSteps          # post: LN of residual_sum;  pre: LN of x
    output: np.ndarray          # (..., n, d)  post: LN(residual_sum); pre: residual_sum

    @property
    def normalized(self) -> np.ndarray:  # (..., n, d) the LayerNorm output of this block
        return self.ln.output


def _run_sublayer(sublayer, z: np.ndarray) -> np.ndarray:
    if not callable(sublayer):
        raise ValueError("sublayer には配列を受け取って配列を返す関数を渡してください。")
    out = as_matrix(sublayer(z), "サブレイヤーの出力")
    if out.shape != z.shape:
        raise ValueError(
            f"サブレイヤーの出力の形 {out.shape} が入力の形 {z.shape} と違います。残差接続には同じ形が必要です。"
        )
    return out


def post_ln_block(x, sublayer: Callable[[np.ndarray], np.ndarray], eps: float = 1e-5,
                  gamma=None, beta=None) -> SublayerBlockResult:
    """Post-LN (the original paper): output = LayerNorm(x + Sublayer(x)).

    x: (..., n, d); sublayer: callable (..., n, d) → (..., n, d), e.g. self-attention or FFN.
    """
    x = as_matrix(x, "ブロックの入力 x", ndim=(1, 2, 3))
    sub_out = _run_sublayer(sublayer, x)                     # (..., n, d)  1. サブレイヤー
    summed = residual(x, sub_out)                            # (..., n, d)  2. 残差
    ln = layer_norm_steps(summed, eps, gamma, beta)          # (..., n, d)  3. 正規化
    return SublayerBlockResult("post", x, sub_out, summed, ln, ln.output)


def pre_ln_block(x, sublayer: Callable[[np.ndarray], np.ndarray], eps: float = 1e-5,
                 gamma=None, beta=None) -> SublayerBlockResult:
    """Pre-LN (GPT-2 and most current LLMs): output = x + Sublayer(LayerNorm(x)).

    The residual path carries x unchanged, which makes deep stacks easier to train; the
    output itself is NOT normalised (GPT adds one final LayerNorm after the last layer).
    x: (..., n, d); sublayer: callable (..., n, d) → (..., n, d).
    """
    x = as_matrix(x, "ブロックの入力 x", ndim=(1, 2, 3))
    ln = layer_norm_steps(x, eps, gamma, beta)               # (..., n, d)  1. 正規化
    sub_out = _run_sublayer(sublayer, ln.output)             # (..., n, d)  2. サブレイヤー
    summed = residual(x, sub_out)                            # (..., n, d)  3. 残差
    return SublayerBlockResult("pre", ln.output, sub_out, summed, ln, summed)


BLOCK_MISTAKES = ("no_residual", "no_norm", "norm_sublayer_only")


def residual_block_mistake(x, sublayer_out, mistake: str | None = None) -> np.ndarray:
    """Post-LN output LayerNorm(x + Sublayer(x)) (ε = 0), given x and Sublayer(x); or

    no_residual        — the residual forgotten: LayerNorm(Sublayer(x))
    no_norm            — the LayerNorm forgotten: x + Sublayer(x)
    norm_sublayer_only — normalised only the sub-layer's output: x + LayerNorm(Sublayer(x))
    """
    return residual_block_mistakes(x, sublayer_out, (mistake,))[mistake]


def residual_block_mistakes(x, sublayer_out, mistakes=(None,) + BLOCK_MISTAKES) -> dict:
    """{mistake: residual_block_mistake(x, sublayer_out, mistake)} for several mistakes at once.

    x and Sublayer(x) are checked once and LayerNorm(Sublayer(x)) is computed at most once.
    x, sublayer_out: (d,); returns {None or name: (d,) array}.
    """
    for mistake in mistakes:
        check_mistake(mistake, BLOCK_MISTAKES, "residual_block_mistake")
    x = as_matrix(x, "x", ndim=1)
    f = as_matrix(sublayer_out, "Sublayer(x)", ndim=1)
    if x.shape != f.shape:
        residual(x, f)                                        # raises its Japanese shape error
    ln_f = None
    out = {}
    for mistake in mistakes:
        if mistake == "no_norm":
            out[mistake] = x + f                              # (d,)  = residual(x, f)
            continue
        if mistake is None:
            out[mistake] = _layer_norm_core(x + f, 0.0).normalized   # (d,)  = post_ln_block(x, f).output
            continue
        if ln_f is None:
            ln_f = _layer_norm_core(f, 0.0).normalized        # (d,)  = layer_norm(f, eps=0)
        out[mistake] = ln_f if mistake == "no_residual" else x + ln_f   # (d,)
    return out


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FFNParams:
    w1: np.ndarray  # (d_model, d_ff)
    b1: np.ndarray  # (d_ff,)
    w2: np.ndarray  # (d_ff, d_model)
    b2: np.ndarray  # (d_model,)

    def __iter__(self):  # ffn(x, *params)
        return iter((self.w1, self.b1, self.w2, self.b2))


def init_ffn_params(d_model: int, d_ff: int, rng: np.random.Generator) -> FFNParams:
    """Random FFN weights (before training): W ~ N(0, 1/fan_in), biases 0.

    Usage: p = init_ffn_params(4, 16, np.random.default_rng(0)); ffn(x, *p).
    """
    d_model = positive_int(d_model, "d_model")
    d_ff = positive_int(d_ff, "d_ff")
    check_rng(rng)
    w1 = rng.normal(0.0, 1.0 / math.sqrt(d_model), size=(d_model, d_ff))  # (d_model, d_ff)
    w2 = rng.normal(0.0, 1.0 / math.sqrt(d_ff), size=(d_ff, d_model))     # (d_ff, d_model)
    return FFNParams(w1, np.zeros(d_ff), w2, np.zeros(d_model))


@dataclass(frozen=True)
class SwiGLUParams:
    w_gate: np.ndarray  # (d_model, d_ff)
    w_up: np.ndarray    # (d_model, d_ff)
    w_down: np.ndarray  # (d_ff, d_model)

    def __iter__(self):  # swiglu_ffn(x, *params)
        return iter((self.w_gate, self.w_up, self.w_down))


def init_swiglu_params(d_model: int, d_ff: int, rng: np.random.Generator) -> SwiGLUParams:
    """Random SwiGLU weights: W ~ N(0, 1/fan_in)."""
    d_model = positive_int(d_model, "d_model")
    d_ff = positive_int(d_ff, "d_ff")
    check_rng(rng)
    s_in, s_ff = 1.0 / math.sqrt(d_model), 1.0 / math.sqrt(d_ff)
    return SwiGLUParams(rng.normal(0.0, s_in, size=(d_model, d_ff)),
                        rng.normal(0.0, s_in, size=(d_model, d_ff)),
                        rng.normal(0.0, s_ff, size=(d_ff, d_model)))


def ffn_param_count(d_model: int, d_ff: int, bias: bool = True) -> int:
    """Parameters of one FFN: W1 (d_model·d_ff) + b1 (d_ff) + W2 (d_ff·d_model) + b2 (d_model).

    The paper (512, 2048): 2·512·2048 + 2048 + 512 = 2,099,712.
    """
    d_model = positive_int(d_model, "d_model")
    d_ff = positive_int(d_ff, "d_ff")
    return 2 * d_model * d_ff + ((d_ff + d_model) if bias else 0)


def swiglu_param_count(d_model: int, d_ff: int) -> int:
    """Parameters of a SwiGLU FFN: three matrices, 3 · d_model · d_ff (no biases)."""
    return 3 * positive_int(d_model, "d_model") * positive_int(d_ff, "d_ff")


