"""⑪-2 GAN・NeRF・音声の生成: the generators of the syllabus's データ生成 that are not diffusion models.

Every number of the 「GAN・NeRF・音声の生成」 page and its quizzes comes from here:

- GAN (Goodfellow et al., 2014): the value V(D, G) = E[log D(x)] + E[log(1 − D(G(z)))] on a batch
  of discriminator outputs, the discriminator's and the two generator losses (saturating
  log(1 − D(G(z))) and non-saturating −log D(G(z))) with their gradients through the discriminator's
  logit a (D = σ(a)); the optimal discriminator D* = p_data / (p_data + p_g) on a discrete
  distribution and the value it reaches (−log 4 at the equilibrium p_g = p_data);
- DCGAN (Radford et al., 2015): the output side of a transposed convolution (n − 1)·s − 2p + k, the
  sides through a generator (4 → 8 → 16 → 32 → 64), and latent-vector arithmetic;
- Pix2Pix (Isola et al., 2016): the generator's loss L_cGAN + λ·L1 (λ = 100);
- CycleGAN (Zhu et al., 2017): the cycle-consistency loss ‖F(G(x)) − x‖₁ + ‖G(F(y)) − y‖₁ with two
  small linear maps G and F;
- NeRF (Mildenhall et al., 2020): volume rendering along one ray, α_i = 1 − exp(−σ_i δ_i),
  T_i = exp(−Σ_{j<i} σ_j δ_j), w_i = T_i α_i, C = Σ w_i c_i, and the positional encoding γ(p);
- WaveNet (van den Oord et al., 2016): the receptive field (k − 1)·Σ d + 1 of dilated causal
  convolutions and μ-law companding F(x) = sign(x)·ln(1 + μ|x|) / ln(1 + μ) with its 256 levels.

Each named misconception is a function next to the formula it distorts (its Japanese label lives in
quizzes/gen_generation.py). Conventions: float64, inputs never mutated, bad input → ValueError in
Japanese. Imports only ``tutor.core``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import as_matrix, positive_int, real_number

__all__ = [
    "EQUILIBRIUM_VALUE", "GAN_DEMO_REAL", "GAN_DEMO_FAKE", "GAN_DEMO_P_DATA", "GAN_DEMO_P_G", "GAN_DEMO_POINTS",
    "GanLosses", "gan_losses", "OptimalD", "optimal_discriminator", "optimal_d_swapped", "optimal_d_unnormalised",
    "optimal_d_half", "gradient_curves", "saturating_gradient", "nonsaturating_gradient", "gradient_wrt_probability",
    "DCGAN_Z", "DCGAN_START", "DCGAN_KERNEL", "DCGAN_STRIDE", "DCGAN_PADDING", "DCGAN_LAYERS", "DCGAN_LR",
    "DCGAN_BETA1", "DCGAN_LEAK", "LATENT_DEMO", "tconv_size", "conv_size", "tconv_size_conv_formula",
    "tconv_size_no_padding", "tconv_size_forgot_minus_one", "dcgan_sizes", "latent_arithmetic",
    "PIX2PIX_LAMBDA", "Pix2PixLoss", "pix2pix_loss",
    "CYCLE_LAMBDA", "CYCLE_DEMO_G", "CYCLE_DEMO_F", "CYCLE_DEMO_X", "CYCLE_DEMO_Y", "Cycle", "cycle_loss",
    "cycle_loss_forward_only", "cycle_loss_squared", "cycle_loss_no_return",
    "NERF_L_POSITION", "NERF_L_DIRECTION", "NERF_DEMO_SIGMA", "NERF_DEMO_DELTA", "NERF_DEMO_COLORS",
    "RayRender", "render_ray", "render_no_transmittance", "render_inclusive_transmittance",
    "render_reversed", "nerf_encoding", "nerf_encoding_width",
    "WAVENET_KERNEL", "WAVENET_LAYERS", "WAVENET_RATE", "MU", "MU_DEMO", "dilation_total", "wavenet_dilations", "receptive_field",
    "fields_by_layer", "milliseconds", "receptive_field_no_dilation", "receptive_field_forgot_one", "receptive_field_per_stack",
    "MuLaw", "mu_law", "mu_law_expand", "mu_law_curve", "mu_law_no_normalisation", "mu_law_unsigned",
]


def _open_unit(x, name: str) -> np.ndarray:
    """Probabilities strictly between 0 and 1 (log D and log(1 − D) must exist): (n,)."""
    p = as_matrix(x, name, ndim=(0, 1)).reshape(-1)
    if ((p <= 0) | (p >= 1)).any():
        raise ValueError(f"{name} は 0 より大きく 1 より小さい確率にしてください（0 や 1 では log が −∞ になります）。")
    return p


# ---------------------------------------------------------------------------
# GAN: V(D, G), the losses and their gradients; the optimal discriminator
# ---------------------------------------------------------------------------
EQUILIBRIUM_VALUE = -math.log(4.0)     # V at p_g = p_data, D = 1/2 everywhere: log ½ + log ½
GAN_DEMO_REAL = (0.9, 0.8)             # D(x) on two real images: the discriminator says "real"
GAN_DEMO_FAKE = (0.1, 0.2)             # D(G(z)) on two generated ones: early training, easily caught
GAN_DEMO_POINTS = ("A", "B", "C", "D")
GAN_DEMO_P_DATA = (0.4, 0.3, 0.2, 0.1)   # a data distribution over four points
GAN_DEMO_P_G = (0.1, 0.2, 0.3, 0.4)      # what the generator makes at first


@dataclass(frozen=True)
class GanLosses:
    """One batch seen by both players. Logs are natural."""
    d_real: np.ndarray        # (m,) D(x) on real samples
    d_fake: np.ndarray        # (n,) D(G(z)) on generated samples
    value: float              # V = mean log D(x) + mean log(1 − D(G(z)))  (D raises it, G lowers it)
    loss_d: float             # −V: the discriminator's cross-entropy
    loss_g_saturating: float  # mean log(1 − D(G(z))): the minimax generator minimises this
    loss_g_nonsat: float      # mean −log D(G(z)): the non-saturating generator loss
    grad_saturating: np.ndarray   # (n,) ∂ log(1 − σ(a)) / ∂a = −D(G(z)): tiny when D(G(z)) ≈ 0
    grad_nonsat: np.ndarray       # (n,) ∂ (−log σ(a)) / ∂a = −(1 − D(G(z))): large when D(G(z)) ≈ 0

    @property
    def fake_complement(self) -> np.ndarray:
        """(n,) 1 − D(G(z)): what log(1 − D(G(z))) takes the log of."""
        return 1.0 - self.d_fake

    @property
    def nonsat_magnitude(self) -> np.ndarray:
        """(n,) |∂(−log σ(a)) / ∂a| = 1 − D(G(z))."""
        return np.abs(self.grad_nonsat)


def saturating_gradient(d_fake) -> np.ndarray:
    """∂/∂a of log(1 − σ(a)) at D = σ(a): −D. (n,) → (n,)."""
    return -_open_unit(d_fake, "D(G(z))")


def nonsaturating_gradient(d_fake) -> np.ndarray:
    """∂/∂a of −log σ(a) at D = σ(a): −(1 − D). (n,) → (n,)."""
    return -(1.0 - _open_unit(d_fake, "D(G(z))"))


def gradient_curves(points: int = 99) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(D, |saturating gradient| = D, |non-saturating gradient| = 1 − D) at D = 0.01 … 0.99: (points,) each."""
    d = np.linspace(0.01, 0.99, positive_int(points, "点の数"))
    return d, np.abs(saturating_gradient(d)), np.abs(nonsaturating_gradient(d))


def gradient_wrt_probability(d_fake, *, saturating: bool) -> np.ndarray:
    """MISTAKE: the gradient taken with respect to D itself instead of the logit a:
    −1 / (1 − D) for log(1 − D), −1 / D for −log D. (n,) → (n,)."""
    d = _open_unit(d_fake, "D(G(z))")
    return -1.0 / (1.0 - d) if saturating else -1.0 / d


def gan_losses(d_real, d_fake) -> GanLosses:
    """V(D, G) on a batch: d_real (m,) = D(x), d_fake (n,) = D(G(z)), every value in (0, 1)."""
    real, fake = _open_unit(d_real, "D(x)"), _open_unit(d_fake, "D(G(z))")
    value = float(np.log(real).mean() + np.log(1.0 - fake).mean())
    return GanLosses(real, fake, value, -value, float(np.log(1.0 - fake).mean()), float(-np.log(fake).mean()),
                     saturating_gradient(fake), nonsaturating_gradient(fake))


def _distribution(p, name: str) -> np.ndarray:
    q = as_matrix(p, name, ndim=1)
    if (q < 0).any() or not math.isclose(float(q.sum()), 1.0, abs_tol=1e-9):
        raise ValueError(f"{name} は 0 以上の数で、合計がちょうど 1 の分布にしてください（合計 {float(q.sum()):g}）。")
    return q


def _pair(p_data, p_g) -> tuple[np.ndarray, np.ndarray]:
    pd_, pg = _distribution(p_data, "p_data"), _distribution(p_g, "p_g")
    if pd_.shape != pg.shape:
        raise ValueError(f"p_data（{pd_.size} 点）と p_g（{pg.size} 点）の点の数が一致しません。")
    return pd_, pg


@dataclass(frozen=True)
class OptimalD:
    p_data: np.ndarray        # (k,)
    p_g: np.ndarray           # (k,)
    d_star: np.ndarray        # (k,) p_data / (p_data + p_g); ½ where neither puts mass (it never matters there)
    value: float              # V(D*, G) = Σ p_data log D* + Σ p_g log(1 − D*)  (0 · log 0 = 0)
    jsd: float                # (V + log 4) / 2: the Jensen–Shannon divergence, 0 exactly at p_g = p_data


def optimal_discriminator(p_data, p_g) -> OptimalD:
    """The best discriminator for a fixed generator, point by point, and the value it reaches."""
    pd_, pg = _pair(p_data, p_g)
    total = pd_ + pg                                                       # (k,)
    d = np.divide(pd_, total, out=np.full_like(total, 0.5), where=total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        real = np.where(pd_ > 0, pd_ * np.log(d), 0.0)
        fake = np.where(pg > 0, pg * np.log(1.0 - d), 0.0)
    value = float(real.sum() + fake.sum())
    return OptimalD(pd_, pg, d, value, (value - EQUILIBRIUM_VALUE) / 2)


def optimal_d_swapped(p_data, p_g) -> np.ndarray:
    """MISTAKE: p_g / (p_data + p_g) — the probability of "generated", not of "real"."""
    r = optimal_discriminator(p_data, p_g)
    return 1.0 - r.d_star


def optimal_d_unnormalised(p_data, p_g) -> np.ndarray:
    """MISTAKE: p_data alone (the share of the generated samples never enters)."""
    return optimal_discriminator(p_data, p_g).p_data.copy()


def optimal_d_half(p_data, p_g) -> np.ndarray:
    """MISTAKE: ½ everywhere — the equilibrium's answer given before the generator has learnt."""
    return np.full_like(optimal_discriminator(p_data, p_g).d_star, 0.5)


# ---------------------------------------------------------------------------
# DCGAN: transposed convolutions make the picture larger
# ---------------------------------------------------------------------------
DCGAN_Z = 100            # the length of z in the paper's LSUN generator
DCGAN_START = 4          # z is projected and reshaped to 4 × 4 (× 1,024 channels)
DCGAN_KERNEL, DCGAN_STRIDE, DCGAN_PADDING = 4, 2, 1   # the usual 5 × 5 of the paper is 4 × 4 in most code: side × 2
DCGAN_LAYERS = 4         # 4 → 8 → 16 → 32 → 64
DCGAN_LR, DCGAN_BETA1, DCGAN_LEAK = 0.0002, 0.5, 0.2   # Adam's learning rate and β1, LeakyReLU's slope
LATENT_DEMO = {"笑顔の女性": (2.0, 1.0, 1.0), "無表情の女性": (0.0, 1.0, 1.0), "無表情の男性": (0.0, -1.0, 1.0),
               "笑顔の男性": (2.0, -1.0, 1.0)}   # toy 3-d averages of z: (笑顔, 性別, 向き)


def _conv_args(n, kernel, stride, padding) -> tuple[int, int, int, int]:
    n, k, s = positive_int(n, "入力の 1 辺"), positive_int(kernel, "カーネルの大きさ"), positive_int(stride, "ストライド")
    if isinstance(padding, (bool, np.bool_)) or int(padding) != padding or padding < 0:
        raise ValueError(f"パディングは 0 以上の整数にしてください（{padding!r}）。")
    if max(n, k, s, int(padding)) > 10_000:
        raise ValueError("大きさ・カーネル・ストライド・パディングは 10,000 以下にしてください。")
    return n, k, s, int(padding)


def tconv_size(n: int, kernel: int, stride: int, padding: int) -> int:
    """The side of a transposed convolution's output: (n − 1)·s − 2p + k (PyTorch's ConvTranspose2d
    without output_padding). 4 → 8 with k = 4, s = 2, p = 1."""
    n, k, s, p = _conv_args(n, kernel, stride, padding)
    out = (n - 1) * s - 2 * p + k
    if out < 1:
        raise ValueError(f"出力の 1 辺が {out} になります。パディングを小さくしてください。")
    return out


def conv_size(n: int, kernel: int, stride: int, padding: int) -> int:
    """The side of an ordinary (strided) convolution's output: ⌊(n + 2p − k) / s⌋ + 1 (the discriminator)."""
    n, k, s, p = _conv_args(n, kernel, stride, padding)
    if n + 2 * p < k:
        raise ValueError(f"カーネル {k} が、パディングを足した入力 {n + 2 * p} より大きくなっています。")
    return (n + 2 * p - k) // s + 1


def tconv_size_conv_formula(n: int, kernel: int, stride: int, padding: int) -> int:
    """MISTAKE: the ordinary convolution's formula used for a transposed one (the picture shrinks)."""
    tconv_size(n, kernel, stride, padding)
    return conv_size(n, kernel, stride, padding) if n + 2 * padding >= kernel else 0


def tconv_size_no_padding(n: int, kernel: int, stride: int, padding: int) -> int:
    """MISTAKE: the padding forgotten, (n − 1)·s + k."""
    tconv_size(n, kernel, stride, padding)
    return (n - 1) * stride + kernel


def tconv_size_forgot_minus_one(n: int, kernel: int, stride: int, padding: int) -> int:
    """MISTAKE: n·s − 2p + k — every input pixel taken to start a new stride (one stride too many)."""
    return tconv_size(n, kernel, stride, padding) + stride


def dcgan_sizes(start: int = DCGAN_START, layers: int = DCGAN_LAYERS, kernel: int = DCGAN_KERNEL,
                stride: int = DCGAN_STRIDE, padding: int = DCGAN_PADDING) -> tuple[int, ...]:
    """The sides through a generator of ``layers`` transposed convolutions: (start, …), layers + 1 sides."""
    layers = positive_int(layers, "層の数")
    if layers > 12:
        raise ValueError(f"層の数は 12 以下にしてください（{layers}）。")
    sides = [positive_int(start, "最初の 1 辺")]
    for _ in range(layers):
        sides.append(tconv_size(sides[-1], kernel, stride, padding))
    if sides[-1] > 100_000:
        raise ValueError(f"最後の 1 辺 {sides[-1]:,} が大きすぎます（100,000 以下）。")
    return tuple(sides)


def latent_arithmetic(a, b, c) -> np.ndarray:
    """a − b + c on latent vectors (DCGAN's 「笑顔の女性 − 無表情の女性 + 無表情の男性」). (d,) each → (d,)."""
    a, b, c = (as_matrix(v, name, ndim=1) for v, name in ((a, "a"), (b, "b"), (c, "c")))
    if not a.shape == b.shape == c.shape:
        raise ValueError(f"3 つの潜在ベクトルの長さがそろっていません（{a.size}, {b.size}, {c.size}）。")
    return a - b + c


# ---------------------------------------------------------------------------
# Pix2Pix: the adversarial term plus λ times the L1 distance to the paired answer
# ---------------------------------------------------------------------------
PIX2PIX_LAMBDA = 100.0


@dataclass(frozen=True)
class Pix2PixLoss:
    l1: float                 # mean |y − G(x)| over the pixels
    adversarial: float        # the cGAN term (given)
    total: float              # adversarial + λ·l1


def pix2pix_loss(target, generated, adversarial: float, lam: float = PIX2PIX_LAMBDA) -> Pix2PixLoss:
    """The Pix2Pix generator's loss: L_cGAN + λ·mean|y − G(x)|; target and generated share a shape."""
    y, g = as_matrix(target, "正解の画像 y"), as_matrix(generated, "生成した画像 G(x)")
    if y.shape != g.shape:
        raise ValueError(f"y（形 {y.shape}）と G(x)（形 {g.shape}）の形が一致しません。対になる画像どうしを比べます。")
    adv, lam = real_number(adversarial, "敵対的な損失"), real_number(lam, "λ")
    l1 = float(np.abs(y - g).mean())
    return Pix2PixLoss(l1, adv, adv + lam * l1)


# ---------------------------------------------------------------------------
# CycleGAN: translate and translate back
# ---------------------------------------------------------------------------
CYCLE_LAMBDA = 10.0
CYCLE_DEMO_G = ((2.0, 0.0), (0.0, 1.0))       # G: X → Y  (2, 2)
CYCLE_DEMO_F = ((0.5, 0.0), (0.5, 1.0))       # F: Y → X  (2, 2): undoes G's first axis, but mixes it into the second
CYCLE_DEMO_X = (1.0, 2.0)                     # an "image" of domain X (2 pixels)
CYCLE_DEMO_Y = (2.0, -1.0)                    # an "image" of domain Y


@dataclass(frozen=True)
class Cycle:
    g_x: np.ndarray           # (d,) G(x)
    f_g_x: np.ndarray         # (d,) F(G(x)): x translated and brought back
    forward: float            # ‖F(G(x)) − x‖₁
    f_y: np.ndarray           # (d,) F(y)
    g_f_y: np.ndarray         # (d,) G(F(y))
    backward: float           # ‖G(F(y)) − y‖₁
    lam: float                # λ

    @property
    def total(self) -> float:
        """L_cyc = forward + backward."""
        return self.forward + self.backward

    @property
    def weighted(self) -> float:
        """λ·L_cyc: what is added to the two adversarial losses."""
        return self.lam * self.total


def _linear(m, name: str, d: int) -> np.ndarray:
    """A linear map as a (d, d) matrix; a number c is c·I."""
    a = as_matrix(m, name, ndim=(0, 2))
    if a.ndim == 0:
        return float(a) * np.eye(d)
    if a.shape != (d, d):
        raise ValueError(f"{name}（形 {a.shape}）は {d} × {d} の行列にしてください（画像の長さ {d}）。")
    return a


def _cycle_inputs(x, y, g, f) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x, y = as_matrix(x, "x（領域 X の画像）", ndim=1), as_matrix(y, "y（領域 Y の画像）", ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"x（長さ {x.size}）と y（長さ {y.size}）の長さをそろえてください。")
    gm, fm = _linear(g, "G", x.size), _linear(f, "F", x.size)
    if max(np.abs(gm).max(), np.abs(fm).max(), np.abs(x).max(), np.abs(y).max()) > 1e6:
        raise ValueError("値は絶対値 1,000,000 以下にしてください。")
    return x, y, gm, fm


def cycle_loss(x, y, g, f, lam: float = CYCLE_LAMBDA) -> Cycle:
    """CycleGAN's cycle-consistency loss with linear maps G(x) = G·x and F(y) = F·y (x, y: (d,))."""
    x, y, gm, fm = _cycle_inputs(x, y, g, f)
    gx, fy = gm @ x, fm @ y                                                # (d,), (d,)
    fgx, gfy = fm @ gx, gm @ fy                                            # (d,), (d,)
    return Cycle(gx, fgx, float(np.abs(fgx - x).sum()), fy, gfy, float(np.abs(gfy - y).sum()), real_number(lam, "λ"))


def cycle_loss_forward_only(x, y, g, f) -> float:
    """MISTAKE: only ‖F(G(x)) − x‖₁ (the cycle that starts from Y forgotten)."""
    return cycle_loss(x, y, g, f).forward


def cycle_loss_squared(x, y, g, f) -> float:
    """MISTAKE: squared differences (L2²) instead of CycleGAN's L1 distances."""
    c = cycle_loss(x, y, g, f)
    x, y, _, _ = _cycle_inputs(x, y, g, f)
    return float(((c.f_g_x - x) ** 2).sum() + ((c.g_f_y - y) ** 2).sum())


def cycle_loss_no_return(x, y, g, f) -> float:
    """MISTAKE: ‖G(x) − x‖₁ + ‖F(y) − y‖₁ — the translation compared with its input, never brought back."""
    c = cycle_loss(x, y, g, f)
    x, y, _, _ = _cycle_inputs(x, y, g, f)
    return float(np.abs(c.g_x - x).sum() + np.abs(c.f_y - y).sum())


# ---------------------------------------------------------------------------
# NeRF: volume rendering along one ray, and the positional encoding
# ---------------------------------------------------------------------------
NERF_L_POSITION, NERF_L_DIRECTION = 10, 4     # frequencies of γ for (x, y, z) and for the viewing direction
NERF_DEMO_SIGMA = (0.0, math.log(2.0), math.log(5.0), math.log(4.0))   # densities: empty, half, mostly, …
NERF_DEMO_DELTA = 1.0                         # the distance between neighbouring samples
NERF_DEMO_COLORS = ((0.9, 0.9, 0.9), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0))   # (4, 3) RGB


@dataclass(frozen=True)
class RayRender:
    optical: np.ndarray       # (n,) σ_i δ_i
    alpha: np.ndarray         # (n,) 1 − exp(−σ_i δ_i): how much sample i stops the ray
    transmittance: np.ndarray  # (n,) T_i = exp(−Σ_{j<i} σ_j δ_j) = Π_{j<i} (1 − α_j): light left before i
    weights: np.ndarray       # (n,) T_i α_i
    color: np.ndarray         # (c,) Σ w_i c_i (or a number for grey)

    @property
    def opacity(self) -> float:
        """Σ w_i = 1 − T_{n+1}: how much of the ray stopped inside the samples."""
        return float(self.weights.sum())


def _ray(sigma, delta, colors) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = as_matrix(sigma, "密度 σ", ndim=1)                                 # (n,)
    if (s < 0).any():
        raise ValueError("密度 σ は 0 以上にしてください（光を吸収する量なので負にはなりません）。")
    d = as_matrix(delta, "間隔 δ", ndim=(0, 1))
    d = np.full_like(s, float(d)) if d.ndim == 0 else d
    if d.shape != s.shape or (d <= 0).any():
        raise ValueError(f"間隔 δ は正の数 1 つか、σ と同じ長さ {s.size} の正の数の列にしてください。")
    c = as_matrix(colors, "色 c", ndim=(1, 2))                             # (n,) or (n, 3)
    if c.shape[0] != s.size:
        raise ValueError(f"色 c の行数 {c.shape[0]} を、サンプルの数 {s.size} にそろえてください。")
    if (s * d).max() > 1e4:
        raise ValueError("σ·δ は 10,000 以下にしてください。")
    return s, d, c


def _composite(optical, alpha, transmittance, colors) -> RayRender:
    w = transmittance * alpha                                              # (n,)
    color = np.tensordot(w, colors, axes=(0, 0))                            # (c,) or ()
    return RayRender(optical, alpha, transmittance, w, np.asarray(color, dtype=np.float64))


def render_ray(sigma, delta, colors) -> RayRender:
    """NeRF's quadrature: α_i = 1 − e^{−σ_i δ_i}, T_i = e^{−Σ_{j<i} σ_j δ_j}, C = Σ T_i α_i c_i.
    sigma (n,), delta a number or (n,), colors (n,) or (n, 3)."""
    s, d, c = _ray(sigma, delta, colors)
    optical = s * d                                                        # (n,)
    before = np.concatenate(([0.0], np.cumsum(optical)[:-1]))              # (n,) Σ_{j<i}
    return _composite(optical, 1.0 - np.exp(-optical), np.exp(-before), c)


def render_no_transmittance(sigma, delta, colors) -> np.ndarray:
    """MISTAKE: Σ α_i c_i — every sample counted as if nothing in front of it blocked the light."""
    r = render_ray(sigma, delta, colors)
    return _composite(r.optical, r.alpha, np.ones_like(r.alpha), _ray(sigma, delta, colors)[2]).color


def render_inclusive_transmittance(sigma, delta, colors) -> np.ndarray:
    """MISTAKE: T_i = Π_{j≤i} (1 − α_j) — the sample's own absorption counted in front of itself."""
    r = render_ray(sigma, delta, colors)
    return _composite(r.optical, r.alpha, r.transmittance * (1.0 - r.alpha), _ray(sigma, delta, colors)[2]).color


def render_reversed(sigma, delta, colors) -> np.ndarray:
    """MISTAKE: the samples composited from the far end of the ray (the camera put behind the scene)."""
    s, d, c = _ray(sigma, delta, colors)
    return render_ray(s[::-1], d[::-1], c[::-1]).color


def nerf_encoding(p, n_freq: int) -> np.ndarray:
    """γ(p) = (sin(2⁰πp), cos(2⁰πp), …, sin(2^{L−1}πp), cos(2^{L−1}πp)) for each coordinate of p.
    p: a number or (c,) → (c, 2L) (one row per coordinate, sin and cos interleaved)."""
    q = as_matrix(p, "座標 p", ndim=(0, 1)).reshape(-1)                    # (c,)
    n_freq = positive_int(n_freq, "周波数の数 L")
    if n_freq > 16:
        raise ValueError(f"周波数の数 L は 16 以下にしてください（{n_freq}）。")
    angles = np.pi * q[:, None] * 2.0 ** np.arange(n_freq)[None, :]        # (c, L)
    out = np.empty((q.size, 2 * n_freq))                                   # (c, 2L)
    out[:, 0::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
    return out


def nerf_encoding_width(n_freq: int, coords: int = 3) -> int:
    """How many numbers γ makes from ``coords`` coordinates: coords · 2L (60 for (x, y, z), L = 10)."""
    return positive_int(coords, "座標の数") * 2 * positive_int(n_freq, "周波数の数 L")


# ---------------------------------------------------------------------------
# WaveNet: dilated causal convolutions and μ-law
# ---------------------------------------------------------------------------
WAVENET_KERNEL = 2
WAVENET_LAYERS = 10        # dilations 1, 2, …, 512 in one stack
WAVENET_RATE = 16_000      # samples per second of the paper's speech data
MU = 255                   # μ-law with 256 levels
MU_DEMO = (15 / 255, -63 / 255)   # two samples whose F is exact: ln 16 / ln 256 = 0.5, −ln 64 / ln 256 = −0.75


def wavenet_dilations(layers: int = WAVENET_LAYERS, stacks: int = 1) -> tuple[int, ...]:
    """1, 2, 4, …, 2^(layers−1), repeated ``stacks`` times."""
    layers, stacks = positive_int(layers, "1 スタックの層の数"), positive_int(stacks, "スタックの数")
    if layers > 20 or stacks > 20:
        raise ValueError("層の数とスタックの数は 20 以下にしてください。")
    return tuple(2 ** i for i in range(layers)) * stacks


def _dilations(dilations, kernel) -> tuple[np.ndarray, int]:
    d = as_matrix(dilations, "dilation の列", ndim=1)
    if (d < 1).any() or (d != np.round(d)).any() or d.max() > 2 ** 20:
        raise ValueError("dilation はどれも 1 以上（2²⁰ 以下）の整数にしてください。")
    return d.astype(np.int64), positive_int(kernel, "カーネルの大きさ")


def receptive_field(dilations, kernel: int = WAVENET_KERNEL) -> int:
    """How many past samples one output sees: (k − 1)·Σ dilations + 1 (1,024 for 1, 2, …, 512, k = 2)."""
    d, k = _dilations(dilations, kernel)
    return int((k - 1) * d.sum() + 1)


def dilation_total(dilations) -> int:
    """Σ d over the layers (1,023 for 1, 2, …, 512)."""
    return int(_dilations(dilations, WAVENET_KERNEL)[0].sum())


def fields_by_layer(dilations, kernel: int = WAVENET_KERNEL) -> np.ndarray:
    """The receptive field after each layer: 1 + (k − 1)·(d_1 + … + d_l). (L,) → (L,)."""
    d, k = _dilations(dilations, kernel)
    return 1 + (k - 1) * np.cumsum(d)


def milliseconds(samples: int, rate: int = WAVENET_RATE) -> float:
    """How long ``samples`` samples last at ``rate`` per second, in ms (1,024 at 16 kHz → 64 ms)."""
    return 1000.0 * positive_int(samples, "標本の数") / positive_int(rate, "標本化周波数")


def receptive_field_no_dilation(dilations, kernel: int = WAVENET_KERNEL) -> int:
    """MISTAKE: every layer taken as an ordinary causal convolution: (k − 1)·layers + 1."""
    d, k = _dilations(dilations, kernel)
    return int((k - 1) * d.size + 1)


def receptive_field_forgot_one(dilations, kernel: int = WAVENET_KERNEL) -> int:
    """MISTAKE: (k − 1)·Σ d — the current sample itself not counted."""
    return receptive_field(dilations, kernel) - 1


def receptive_field_per_stack(dilations, kernel: int = WAVENET_KERNEL, stacks: int = 1) -> int:
    """MISTAKE: each stack's field (with its own +1) added: stacks · ((k − 1)·Σ d_stack + 1)."""
    d, k = _dilations(dilations, kernel)
    stacks = positive_int(stacks, "スタックの数")
    if d.size % stacks:
        raise ValueError(f"dilation の数 {d.size} がスタックの数 {stacks} で割り切れません。")
    return int(stacks * ((k - 1) * d[: d.size // stacks].sum() + 1))


@dataclass(frozen=True)
class MuLaw:
    x: np.ndarray             # (n,) the samples, in [−1, 1]
    companded: np.ndarray     # (n,) F(x) = sign(x)·ln(1 + μ|x|) / ln(1 + μ), in [−1, 1]
    index: np.ndarray         # (n,) the level 0 … μ: ⌊(F + 1)/2 · μ + ½⌋
    restored: np.ndarray      # (n,) x back from the level (its centre), through the inverse of F
    linear_index: np.ndarray  # (n,) the level of x under a plain, uniform quantisation (for comparison)
    mu: int


def _samples(x) -> np.ndarray:
    s = as_matrix(x, "音の標本 x", ndim=(0, 1)).reshape(-1)
    if (np.abs(s) > 1).any():
        raise ValueError("音の標本 x は −1 以上 1 以下にしてください（波形を最大の振幅で割った値です）。")
    return s


def _mu(mu) -> int:
    m = positive_int(mu, "μ")
    if m > 65_535:
        raise ValueError(f"μ は 65,535 以下にしてください（{m:,}）。")
    return m


def mu_law_expand(companded, mu: int = MU) -> np.ndarray:
    """The inverse of F: sign(y)·((1 + μ)^|y| − 1) / μ. (n,) → (n,)."""
    y, m = _samples(companded), _mu(mu)
    return np.sign(y) * np.expm1(np.abs(y) * math.log1p(m)) / m


def mu_law(x, mu: int = MU) -> MuLaw:
    """μ-law companding and quantisation to μ + 1 levels (256 for μ = 255): small amplitudes get
    many levels, loud ones few — WaveNet's 256-way softmax output."""
    s, m = _samples(x), _mu(mu)
    f = np.sign(s) * np.log1p(m * np.abs(s)) / math.log1p(m)               # (n,)
    index = np.floor((f + 1.0) / 2.0 * m + 0.5)                            # (n,) 0 … μ
    restored = mu_law_expand(np.clip(2.0 * index / m - 1.0, -1.0, 1.0), m)
    linear = np.floor((s + 1.0) / 2.0 * m + 0.5)
    return MuLaw(s, f, index.astype(np.int64), restored, linear.astype(np.int64), m)


def mu_law_curve(points: int = 201, mu: int = MU) -> tuple[np.ndarray, np.ndarray]:
    """(x, F(x)) at x = −1 … 1: the companding curve. (points,) each."""
    x = np.linspace(-1.0, 1.0, positive_int(points, "点の数"))
    return x, mu_law(x, mu).companded


def mu_law_no_normalisation(x, mu: int = MU) -> np.ndarray:
    """MISTAKE: sign(x)·ln(1 + μ|x|) — not divided by ln(1 + μ), so it leaves [−1, 1]."""
    r = mu_law(x, mu)
    return np.sign(r.x) * np.log1p(r.mu * np.abs(r.x))


def mu_law_unsigned(x, mu: int = MU) -> np.ndarray:
    """MISTAKE: the sign dropped, ln(1 + μ|x|) / ln(1 + μ) for a negative sample too."""
    return np.abs(mu_law(x, mu).companded)
