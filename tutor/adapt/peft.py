"""Parameter-efficient fine-tuning (PEFT): what LoRA, adapters and soft prompts train, counted,
and LoRA's forward pass h = W₀x + BAx — with the named mistakes next to the formulas.

LoRA is written as in its paper (Hu et al. 2021): the frozen weight W₀ is d × k and acts on a
column vector x with k entries; the update ΔW = BA has B (d × r) and A (r × k), r ≪ min(d, k).
Counts are Python ints (exact)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, check_rng, positive_int

MAX_SIZE = 10 ** 6                     # d, k, m, n, layers: larger sizes are refused (a typo, not a model)

# LoRA's example (Hu et al. 2021): GPT-3 175B with r = 4 on W_Q and W_V of every layer
GPT3_LORA = {"r": 4, "matrices": ("W_Q", "W_V")}
# Houlsby et al. (2019): two adapters per layer, after the attention and after the FFN sub-layer
ADAPTERS_PER_LAYER = 2

# a tiny forward pass (d = 2 outputs, k = 3 inputs, r = 1): the hand calculation's numbers
LORA_DEMO_W0 = ((1.0, 0.0, 2.0), (0.0, 1.0, 1.0))     # (d, k) the frozen pretrained weight
LORA_DEMO_X = (1.0, 2.0, 1.0)                          # (k,)
LORA_DEMO_A = ((1.0, 1.0, 0.0),)                       # (r, k) random at the start (here chosen small)
LORA_DEMO_B = ((1.0,), (-1.0,))                        # (d, r) after training (zero at the start)


def _size(value, name: str) -> int:
    n = positive_int(value, name)
    if n > MAX_SIZE:
        raise ValueError(f"{name} は {MAX_SIZE:,} 以下にしてください（{n:,}）。")
    return n


# ---------------------------------------------------------------------------
# LoRA: trainable parameters of one weight matrix and of a whole model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LoraCount:
    d: int           # rows of W₀ (outputs)
    k: int           # columns of W₀ (inputs)
    r: int           # the rank of ΔW = BA
    frozen: int      # d·k: W₀, kept as it was (what full fine-tuning would train)
    b: int           # d·r
    a: int           # r·k

    @property
    def trainable(self) -> int:
        """r·(d + k) = d·r + r·k."""
        return self.b + self.a

    @property
    def share(self) -> float:
        """r(d + k) / (d·k): the part of the matrix's size that LoRA trains."""
        return self.trainable / self.frozen

    @property
    def ratio(self) -> float:
        """d·k / r(d + k): how many times fewer parameters are trained."""
        return self.frozen / self.trainable


def lora_params(d: int, k: int, r: int) -> LoraCount:
    """LoRA on one d × k matrix: W₀ frozen (d·k), B (d × r) and A (r × k) trained, r(d + k) in all.
    4,096 × 4,096 with r = 8 → 65,536 of 16,777,216 (1/256)."""
    d, k, r = _size(d, "行数 d"), _size(k, "列数 k"), _size(r, "ランク r")
    if r > min(d, k):
        raise ValueError(f"ランク r（{r}）は d と k の小さいほう（{min(d, k)}）以下にしてください。")
    return LoraCount(d, k, r, d * k, d * r, r * k)


def lora_params_rdk(d: int, k: int, r: int) -> int:
    """MISTAKE: r·d·k, as if r copies of the whole matrix were trained."""
    c = lora_params(d, k, r)
    return c.r * c.frozen


def lora_params_b_only(d: int, k: int, r: int) -> int:
    """MISTAKE: one of the two factors only, B (d·r), A forgotten."""
    return lora_params(d, k, r).b


def lora_params_with_frozen(d: int, k: int, r: int) -> int:
    """MISTAKE: the frozen W₀ counted as trained too, d·k + r(d + k)."""
    c = lora_params(d, k, r)
    return c.frozen + c.trainable


@dataclass(frozen=True)
class LoraModel:
    layers: int          # L
    matrices: int        # adapted matrices per layer (2: W_Q and W_V)
    per_matrix: LoraCount
    trainable: int       # L · matrices · r(d + k)
    total: int           # every parameter of the model (frozen, except the LoRA matrices added)

    @property
    def share(self) -> float:
        """trainable / total."""
        return self.trainable / self.total

    @property
    def ratio(self) -> float:
        """total / trainable (GPT-3 with r = 4 on W_Q, W_V: about 9,000)."""
        return self.total / self.trainable


def lora_trainable(layers: int, matrices: int, d: int, k: int, r: int) -> int:
    """L · matrices · r(d + k): LoRA on ``matrices`` d × k matrices in each of ``layers`` layers."""
    l, m = _size(layers, "層数 L"), _size(matrices, "1 層で LoRA を付ける行列の数")
    return l * m * lora_params(d, k, r).trainable


def lora_model(layers: int, matrices: int, d: int, k: int, r: int, total: int) -> LoraModel:
    """LoRA on ``matrices`` d × k matrices in each of ``layers`` layers of a model with ``total``
    parameters: GPT-3 (96 layers, W_Q and W_V, 12,288², r = 4) → 18,874,368 trained."""
    trainable = lora_trainable(layers, matrices, d, k, r)
    l, m, per = int(layers), int(matrices), lora_params(d, k, r)
    t = positive_int(total, "モデル全体のパラメータ数")
    if l * m * per.frozen > t:
        raise ValueError("LoRA を付ける行列の合計が、モデル全体のパラメータ数より多くなっています。")
    return LoraModel(l, m, per, trainable, t)


def lora_rank_curve(d: int, k: int, ranks) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(ranks, r(d + k) for each): the line that 可視化 draws against d·k."""
    rs = tuple(_size(r, "ランク r") for r in ranks)
    return rs, tuple(lora_params(d, k, r).trainable for r in rs)


# ---------------------------------------------------------------------------
# LoRA's forward pass: h = W₀x + BAx (scaled by α/r when α is given)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class LoraForward:
    w0: np.ndarray       # (d, k)
    a: np.ndarray        # (r, k)
    b: np.ndarray        # (d, r)
    x: np.ndarray        # (k,)
    scale: float         # α/r (1 when no α is given)
    base: np.ndarray     # (d,) W₀x: the pretrained model's output
    ax: np.ndarray       # (r,) Ax: x squeezed to r numbers
    delta: np.ndarray    # (d,) scale·B(Ax): what LoRA adds
    h: np.ndarray        # (d,) base + delta
    delta_w: np.ndarray  # (d, k) scale·BA: rank ≤ r
    merged: np.ndarray   # (d, k) W₀ + scale·BA: one matrix again after training (no extra step at inference)


def _lora_inputs(w0, a, b, x) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    w0 = as_matrix(w0, "W₀", ndim=2)
    a = as_matrix(a, "A", ndim=2)
    b = as_matrix(b, "B", ndim=2)
    x = as_matrix(x, "x", ndim=1)
    d, k = w0.shape
    if a.shape[1] != k or x.shape[0] != k:
        raise ValueError(f"W₀ の列数 k = {k}、A の列数 {a.shape[1]}、x の長さ {x.shape[0]} がそろっていません。")
    if b.shape != (d, a.shape[0]):
        raise ValueError(f"B は d × r = {d} × {a.shape[0]} が必要ですが、形は {b.shape} です。")
    return w0, a, b, x


def lora_forward(w0, a, b, x, alpha: float | None = None) -> LoraForward:
    """h = W₀x + (α/r)·B(Ax): the frozen path and the low-rank path side by side, and the merged
    weight W₀ + (α/r)·BA that gives the same h with one product."""
    w0, a, b, x = _lora_inputs(w0, a, b, x)
    r = a.shape[0]
    if alpha is None:
        scale = 1.0
    elif isinstance(alpha, bool) or not (isinstance(alpha, (int, float)) and np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"α は正の数にしてください（{alpha!r}）。")
    else:
        scale = float(alpha) / r
    base = w0 @ x                                   # (d,)
    ax = a @ x                                      # (r,)
    delta = scale * (b @ ax)                        # (d,)
    delta_w = scale * (b @ a)                       # (d, k)
    return LoraForward(w0, a, b, x, scale, base, ax, delta, base + delta, delta_w, w0 + delta_w)


def lora_forward_no_delta(w0, a, b, x) -> np.ndarray:
    """MISTAKE: ΔW left out, W₀x only (as if B stayed zero after training)."""
    return lora_forward(w0, a, b, x).base


def lora_forward_no_base(w0, a, b, x) -> np.ndarray:
    """MISTAKE: the frozen path left out, BAx only."""
    return lora_forward(w0, a, b, x).delta


def lora_forward_multiplied(w0, a, b, x) -> np.ndarray:
    """MISTAKE: ΔW multiplied into W₀ instead of added, (W₀·BA)x (square W₀ only)."""
    f = lora_forward(w0, a, b, x)
    if f.w0.shape[0] != f.w0.shape[1]:
        raise ValueError("W₀·BA は W₀ が正方行列のときだけ計算できます。")
    return (f.w0 @ f.delta_w) @ f.x


def lora_init(d: int, k: int, r: int, rng: np.random.Generator, sigma: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """LoRA's start: A (r × k) drawn from N(0, σ²), B (d × r) all zeros — so BA = 0 and the model
    starts exactly as the pretrained one."""
    c = lora_params(d, k, r)
    rng = check_rng(rng)
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"σ は正の数にしてください（{sigma!r}）。")
    return sigma * rng.standard_normal((c.r, c.k)), np.zeros((c.d, c.r))


# ---------------------------------------------------------------------------
# adapters (Houlsby et al. 2019): a bottleneck d → m → d with a skip connection
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AdapterCount:
    d: int               # the layer's width
    m: int               # the bottleneck
    layers: int
    per_layer: int       # adapters in each layer (2 in Houlsby et al.)
    down: int            # d·m + m (weights and biases of d → m)
    up: int              # m·d + d (weights and biases of m → d)

    @property
    def per_adapter(self) -> int:
        """2·d·m + d + m."""
        return self.down + self.up

    @property
    def per_layer_total(self) -> int:
        return self.per_layer * self.per_adapter

    @property
    def total(self) -> int:
        return self.layers * self.per_layer_total


def adapter_params(d: int, m: int, layers: int = 1, per_layer: int = ADAPTERS_PER_LAYER) -> AdapterCount:
    """Adapters of bottleneck m in a width-d model: (2dm + d + m) each, ``per_layer`` per layer.
    BERT-Base (d = 768, 12 layers) with m = 64: 99,136 each, 2,379,264 in all."""
    d, m = _size(d, "幅 d"), _size(m, "ボトルネックの幅 m")
    if m >= d:
        raise ValueError(f"ボトルネックの幅 m（{m}）は幅 d（{d}）より小さくしてください。")
    return AdapterCount(d, m, _size(layers, "層数 L"), _size(per_layer, "1 層あたりの Adapter の数"),
                        d * m + m, m * d + d)


def adapter_params_no_bias(d: int, m: int, layers: int = 1, per_layer: int = ADAPTERS_PER_LAYER) -> int:
    """MISTAKE: the biases forgotten, 2·d·m per adapter."""
    c = adapter_params(d, m, layers, per_layer)
    return c.layers * c.per_layer * 2 * c.d * c.m


def adapter_params_one_per_layer(d: int, m: int, layers: int = 1, per_layer: int = ADAPTERS_PER_LAYER) -> int:
    """MISTAKE: one adapter per layer instead of two."""
    c = adapter_params(d, m, layers, per_layer)
    return c.layers * c.per_adapter


def adapter_params_down_only(d: int, m: int, layers: int = 1, per_layer: int = ADAPTERS_PER_LAYER) -> int:
    """MISTAKE: the down-projection d → m only, its way back m → d forgotten."""
    c = adapter_params(d, m, layers, per_layer)
    return c.layers * c.per_layer * c.down


# ---------------------------------------------------------------------------
# soft prompts: prompt tuning (Lester et al. 2021) and prefix tuning (Li & Liang 2021)
# ---------------------------------------------------------------------------
def prompt_tuning_params(n: int, d: int) -> int:
    """n learned vectors of width d put before the input embeddings: n·d (20 × 4,096 = 81,920)."""
    return _size(n, "ソフトプロンプトの長さ n") * _size(d, "幅 d")


def prompt_tuning_every_layer(n: int, d: int, layers: int) -> int:
    """MISTAKE: the input's soft prompt counted again in every layer, L·n·d."""
    return _size(layers, "層数 L") * prompt_tuning_params(n, d)


def prefix_tuning_params(n: int, d: int, layers: int) -> int:
    """Prefix tuning's stored prefix: n vectors for the keys and n for the values of every layer,
    2·L·n·d (the reparametrising network used during training is dropped afterwards)."""
    return 2 * _size(layers, "層数 L") * prompt_tuning_params(n, d)


@dataclass(frozen=True)
class PeftRow:
    method: str          # "lora" | "adapter" | "prompt" | "prefix" | "full"
    trainable: int
    share: float         # trainable / the model's total


def peft_table(d: int, layers: int, total: int, r: int, m: int, n: int, lora_matrices: int = 2) -> tuple[PeftRow, ...]:
    """What each method trains in one model (width d, ``layers`` layers, ``total`` parameters):
    LoRA (r, on ``lora_matrices`` d × d matrices per layer), adapters (m, two per layer), prompt
    tuning (n vectors), prefix tuning (n per layer for keys and values), full fine-tuning."""
    t = positive_int(total, "モデル全体のパラメータ数")
    counts = (("lora", lora_model(layers, lora_matrices, d, d, r, t).trainable),
              ("adapter", adapter_params(d, m, layers).total),
              ("prompt", prompt_tuning_params(n, d)),
              ("prefix", prefix_tuning_params(n, d, layers)),
              ("full", t))
    return tuple(PeftRow(name, c, c / t) for name, c in counts)
