"""⑪ Image generation and vision–language models: attention as the bridge between text and image.

Every number of the 「画像生成とマルチモーダル」 page and its quizzes comes from here:

- CLIP (Radford et al., 2021): image and text embeddings made unit length, their cosine
  similarities divided by a temperature τ (the logits), softmax along each row (image → text) and
  each column (text → image), and the symmetric cross-entropy whose answers are the diagonal;
  zero-shot classification is one row of it, against prompts 「〇〇の写真」;
- the cross-attention that lets text steer an image (latent diffusion, Rombach et al., 2022): the
  queries come from the image's positions, the keys and values from the text's tokens, and the
  attention itself is ``tutor.core.attention``;
- the forward process of a diffusion model (DDPM, Ho et al., 2020): a linear β schedule,
  ᾱ_t = Π_{s≤t} (1 − β_s) and x_t = √ᾱ_t x₀ + √(1 − ᾱ_t) ε, and the x₀ that a predicted noise
  gives back;
- classifier-free guidance (Ho & Salimans, 2022): ε̂ = ε_u + w (ε_c − ε_u).

Each named misconception (forgot to normalise before the dot product, softmax over the wrong axis,
Q and K/V sources swapped, β_t used for ᾱ_t, guidance applied to the unconditional term, …) is a
function next to the formula it distorts; its Japanese label lives in quizzes/gen_multimodal.py.
Conventions: float64, one token (or image position) per ROW, inputs never mutated, bad input →
ValueError in Japanese. Imports only ``tutor.core``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import AttentionResult, as_matrix, attention, positive_int, real_number, softmax

__all__ = [
    "CLIP_DEMO_LABELS", "CLIP_DEMO_IMAGES", "CLIP_DEMO_TEXTS", "CLIP_DEMO_TEMPERATURE", "CLIP_INIT_TEMPERATURE",
    "unit_rows", "ContrastiveProbs", "contrastive_probs", "ClipBatch", "clip_batch", "ZeroShot", "zero_shot",
    "zero_shot_unnormalised", "clip_logits_unnormalised", "clip_logits_no_temperature", "clip_logits_times_temperature",
    "probs_wrong_axis", "probs_whole_matrix", "loss_one_direction",
    "CROSS_DEMO_PATCHES", "CROSS_DEMO_TOKENS", "CROSS_DEMO_LATENTS", "CROSS_DEMO_TEXT", "CROSS_DEMO_W_Q",
    "CROSS_DEMO_W_K", "CROSS_DEMO_W_V", "CROSS_VOCAB", "TextImageAttention", "text_image_attention",
    "CrossShapes", "cross_shapes", "cross_shapes_swapped", "cross_shapes_self", "latent_side", "latent_positions",
    "DDPM_STEPS", "DDPM_BETA_1", "DDPM_BETA_T", "DIFFUSION_DEMO_BETAS", "DIFFUSION_DEMO_X0", "DIFFUSION_DEMO_EPS",
    "DIFFUSION_DEMO_EPS_HAT", "DIFFUSION_DEMO_IMAGE", "GUIDANCE_DEMO_UNCOND", "GUIDANCE_DEMO_COND", "GUIDANCE_DEMO_W",
    "linear_betas", "alpha_bars", "alpha_bar_at", "standard_noise", "schedule_curve",
    "alpha_bar_sum", "alpha_bar_beta_product", "alpha_bar_last_step", "Noised", "add_noise", "add_noise_swapped",
    "add_noise_no_sqrt", "add_noise_one_step", "x0_from_noise",
    "Guided", "guided", "guided_noise", "guided_noise_swapped", "guided_noise_cond_only", "guided_noise_reversed",
    "SD_GUIDANCE", "SD_FACTOR", "SD_TEXT_TOKENS",
]


# ---------------------------------------------------------------------------
# CLIP: cosine similarities ÷ τ, softmax along the rows and the columns
# ---------------------------------------------------------------------------
CLIP_DEMO_LABELS = ("猫", "犬", "車")
CLIP_DEMO_IMAGES = ((8.0, 6.0, 0.0),    # (3, 3) image encoder: a cat (length 10), a dog (5), a car (10)
                    (0.0, 4.0, 3.0),
                    (6.0, 0.0, 8.0))
CLIP_DEMO_TEXTS = ((3.0, 4.0, 0.0),     # (3, 3) text encoder: 「猫の写真」 (5), 「犬の写真」 (5), 「車の写真」 (10)
                   (0.0, 4.0, 3.0),
                   (8.0, 0.0, 6.0))
CLIP_DEMO_TEMPERATURE = 0.2             # τ of the worked example (logits = cos / τ = 5 cos)
CLIP_INIT_TEMPERATURE = 0.07            # CLIP learns τ; its code starts from 0.07 (logit scale 1/0.07 ≈ 14.3)


def unit_rows(x, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(x / ‖x‖ row by row, the lengths ‖x‖): (n, d) → (n, d), (n,). A 1-D x is one row."""
    x = as_matrix(x, name, ndim=(1, 2))
    x = x[None, :] if x.ndim == 1 else x                                   # (n, d)
    norms = np.linalg.norm(x, axis=1)                                      # (n,)
    if (norms == 0).any():
        raise ValueError(f"{name} に長さ 0 のベクトルがあります（向きが決まらないので類似度を計算できません）。")
    return x / norms[:, None], norms


def _pair(image_emb, text_emb) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    img, img_norms = unit_rows(image_emb, "画像の埋め込み")                  # (n_i, d)
    txt, txt_norms = unit_rows(text_emb, "文の埋め込み")                     # (n_t, d)
    if img.shape[1] != txt.shape[1]:
        raise ValueError(f"画像の埋め込みの次元 {img.shape[1]} と文の埋め込みの次元 {txt.shape[1]} が一致しません"
                         "（同じ空間に写していないので内積がとれません）。")
    return img, img_norms, txt, txt_norms


@dataclass(frozen=True)
class ContrastiveProbs:
    """A batch of n matching pairs (image i ↔ text i) seen through its logits."""
    logits: np.ndarray        # (n, n)  cos / τ
    image_to_text: np.ndarray  # (n, n)  softmax along each row: image i's distribution over the texts
    text_to_image: np.ndarray  # (n, n)  softmax along each column: text j's distribution over the images
    loss_rows: np.ndarray     # (n,)    −log image_to_text[i, i]
    loss_cols: np.ndarray     # (n,)    −log text_to_image[j, j]

    @property
    def logits_by_text(self) -> np.ndarray:
        """(n, n) the logits with one row per TEXT (the table read down its columns)."""
        return self.logits.T

    @property
    def loss_i2t(self) -> float:
        return float(self.loss_rows.mean())

    @property
    def loss_t2i(self) -> float:
        return float(self.loss_cols.mean())

    @property
    def loss(self) -> float:
        """CLIP's symmetric loss: the mean of the two directions' cross-entropies."""
        return (self.loss_i2t + self.loss_t2i) / 2


def contrastive_probs(logits) -> ContrastiveProbs:
    """Row softmax (image → text), column softmax (text → image) and the cross-entropy of the
    diagonal in both directions. logits: (n, n), row i = image i, column j = text j."""
    z = as_matrix(logits, "ロジット", ndim=2)
    n = z.shape[0]
    if z.shape != (n, n):
        raise ValueError(f"対の数がそろっていません（画像 {z.shape[0]} 枚、文 {z.shape[1]} 個）。"
                         "対照学習の表は、正しい組を対角に並べた正方行列です。")
    i2t = softmax(z, axis=1)                                               # (n, n) rows sum to 1
    t2i = softmax(z, axis=0)                                               # (n, n) columns sum to 1
    with np.errstate(divide="ignore"):
        rows, cols = -np.log(np.diag(i2t)), -np.log(np.diag(t2i))          # (n,), (n,)
    return ContrastiveProbs(z, i2t, t2i, rows, cols)


@dataclass(frozen=True)
class ClipBatch:
    image_norms: np.ndarray   # (n,)     ‖image_i‖ before normalising
    text_norms: np.ndarray    # (n,)
    images: np.ndarray        # (n, d)   unit vectors
    texts: np.ndarray         # (n, d)
    dots: np.ndarray          # (n, n)   raw dot products (what a forgotten normalisation compares)
    cosine: np.ndarray        # (n, n)   cos(image_i, text_j)
    temperature: float        # τ
    probs: ContrastiveProbs   # logits = cosine / τ and both softmaxes

    @property
    def logits(self) -> np.ndarray:
        return self.probs.logits

    @property
    def norm_products(self) -> np.ndarray:
        """(n, n) ‖image_i‖ · ‖text_j‖: what each raw dot product is divided by."""
        return np.outer(self.image_norms, self.text_norms)


def _similarity(image_emb, text_emb) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unit images (n_i, d), their lengths, unit texts (n_t, d), their lengths, raw dots, cosines (n_i, n_t))."""
    img, img_norms, txt, txt_norms = _pair(image_emb, text_emb)
    dots = (img * img_norms[:, None]) @ (txt * txt_norms[:, None]).T      # (n_i, n_t)
    return img, img_norms, txt, txt_norms, dots, img @ txt.T


def clip_batch(image_emb, text_emb, temperature: float = CLIP_DEMO_TEMPERATURE) -> ClipBatch:
    """CLIP's training step on n pairs: normalise, cos_ij = î_i · t̂_j, logits = cos / τ, softmax
    along the rows and the columns, loss = ½(CE_rows + CE_cols) with the diagonal as the answer."""
    tau = real_number(temperature, "温度 τ", above=0, high=100)
    img, img_norms, txt, txt_norms, dots, cos = _similarity(image_emb, text_emb)
    return ClipBatch(img_norms, txt_norms, img, txt, dots, cos, tau, contrastive_probs(cos / tau))


@dataclass(frozen=True)
class ZeroShot:
    cosine: np.ndarray        # (n_c,)  cos(image, prompt_c)
    logits: np.ndarray        # (n_c,)  cos / τ
    probs: np.ndarray         # (n_c,)  softmax over the class prompts
    predicted: int            # the class with the largest probability


def zero_shot(image_emb, prompt_embs, temperature: float = CLIP_DEMO_TEMPERATURE) -> ZeroShot:
    """Zero-shot classification: one image against the embeddings of 「〇〇の写真」 prompts, a softmax
    over cos / τ — the same form as one query's attention over the keys."""
    tau = real_number(temperature, "温度 τ", above=0, high=100)
    img, _, txt, _, _, cos = _similarity(image_emb, prompt_embs)
    if img.shape[0] != 1:
        raise ValueError(f"ゼロショット分類には画像を 1 枚だけ渡してください（{img.shape[0]} 枚あります）。")
    cos = cos[0]                                                           # (n_c,)
    probs = softmax(cos / tau)
    return ZeroShot(cos, cos / tau, probs, int(np.argmax(probs)))


def zero_shot_unnormalised(image_emb, prompt_embs, temperature: float = CLIP_DEMO_TEMPERATURE) -> np.ndarray:
    """MISTAKE: zero-shot probabilities from the raw dot products ÷ τ (no normalisation): (n_c,)."""
    return softmax(clip_logits_unnormalised(image_emb, prompt_embs, temperature)[0])


def clip_logits_unnormalised(image_emb, text_emb, temperature: float = CLIP_DEMO_TEMPERATURE) -> np.ndarray:
    """MISTAKE: the raw dot products divided by τ — no normalisation, so a long vector wins."""
    tau = real_number(temperature, "温度 τ", above=0, high=100)
    return _similarity(image_emb, text_emb)[4] / tau


def clip_logits_no_temperature(image_emb, text_emb, temperature: float = CLIP_DEMO_TEMPERATURE) -> np.ndarray:
    """MISTAKE: the cosines used as logits (τ forgotten): every logit squeezed into [−1, 1]."""
    real_number(temperature, "温度 τ", above=0, high=100)
    return _similarity(image_emb, text_emb)[5]


def clip_logits_times_temperature(image_emb, text_emb, temperature: float = CLIP_DEMO_TEMPERATURE) -> np.ndarray:
    """MISTAKE: the cosines multiplied by τ instead of divided."""
    tau = real_number(temperature, "温度 τ", above=0, high=100)
    return _similarity(image_emb, text_emb)[5] * tau


def probs_wrong_axis(logits, direction: str) -> np.ndarray:
    """MISTAKE: asked for ``direction`` ("i2t" = along the rows, "t2i" = along the columns), the
    softmax taken along the other axis."""
    p = contrastive_probs(logits)
    if direction not in ("i2t", "t2i"):
        raise ValueError(f"向きは i2t（画像→文）か t2i（文→画像）です（{direction!r}）。")
    return p.text_to_image if direction == "i2t" else p.image_to_text


def probs_whole_matrix(logits) -> np.ndarray:
    """MISTAKE: one softmax over all n × n entries (every pair in the batch competes at once)."""
    z = contrastive_probs(logits).logits
    return softmax(z.ravel()).reshape(z.shape)


def loss_one_direction(logits) -> float:
    """MISTAKE: only the image → text cross-entropy (CLIP averages both directions)."""
    return contrastive_probs(logits).loss_i2t


# ---------------------------------------------------------------------------
# cross-attention: the image asks (Q), the text answers (K, V)
# ---------------------------------------------------------------------------
CROSS_DEMO_PATCHES = ("左上", "右上", "左下", "右下")     # a 2 × 2 latent, read row by row
CROSS_DEMO_TOKENS = ("赤い", "猫", "夕焼け")
CROSS_DEMO_LATENTS = ((2.0, 0.0),       # (4, 2) the image's positions (U-Net features)
                      (-1.0, 2.0),
                      (1.0, 1.0),
                      (1.0, 2.0))
CROSS_DEMO_TEXT = ((2.0, 0.0, 1.0),     # (3, 3) the text encoder's token vectors
                   (1.0, 2.0, 0.0),
                   (0.0, 2.0, 1.0))
CROSS_DEMO_W_Q = ((1.0, 0.0), (0.0, 1.0))                  # (2, 2)  d_img → d_k (the identity, for the hand calculation)
CROSS_DEMO_W_K = ((1.0, 0.0), (0.0, 1.0), (0.0, 0.0))      # (3, 2)  d_txt → d_k
CROSS_DEMO_W_V = ((1.0, 0.0), (0.0, 0.0), (0.0, 1.0))      # (3, 2)  d_txt → d_v
# words the try-it section offers: a vector each, in the demo's text space (3 dimensions)
CROSS_VOCAB = {"赤い": (2.0, 0.0, 1.0), "猫": (1.0, 2.0, 0.0), "夕焼け": (0.0, 2.0, 1.0), "犬": (1.0, 1.0, 2.0),
               "海": (-1.0, 1.0, 2.0), "青い": (2.0, -1.0, 0.0), "山": (0.0, 1.0, 1.0)}


@dataclass(frozen=True)
class TextImageAttention:
    q: np.ndarray             # (n_img, d_k)  from the image positions: Q = Z W_Q
    k: np.ndarray             # (n_txt, d_k)  from the text tokens:    K = E W_K
    v: np.ndarray             # (n_txt, d_v)  from the text tokens:    V = E W_V
    attn: AttentionResult     # .weights (n_img, n_txt): each row sums to 1; .output (n_img, d_v)

    @property
    def weights(self) -> np.ndarray:
        return self.attn.weights

    @property
    def output(self) -> np.ndarray:
        return self.attn.output

    def token_map(self, token: int, side: int) -> np.ndarray:
        """(side, side): the weight every image position gives to one token, laid out as the image
        (positions read row by row) — where in the picture that word acts."""
        n_img = self.weights.shape[0]
        if positive_int(side, "画像の 1 辺") ** 2 != n_img:
            raise ValueError(f"位置の数 {n_img} は {side} × {side} の正方形に並びません。")
        return self.weights[:, int(token)].reshape(side, side)


def _project(x, w, x_name: str, w_name: str) -> np.ndarray:
    x, w = as_matrix(x, x_name, ndim=2), as_matrix(w, w_name, ndim=2)
    if x.shape[1] != w.shape[0]:
        raise ValueError(f"{x_name}（形 {x.shape}）の列数と {w_name}（形 {w.shape}）の行数が一致しません。")
    return x @ w


def text_image_attention(latents, tokens, w_q, w_k, w_v) -> TextImageAttention:
    """Cross-attention in a text-to-image model: softmax(QKᵀ/√d_k) V with Q = Z W_Q from the image's
    n_img positions (Z: (n_img, d_img)) and K = E W_K, V = E W_V from the text's n_txt tokens
    (E: (n_txt, d_txt)). The two sides may have different widths; W_Q and W_K bring both to d_k."""
    q = _project(latents, w_q, "画像側の特徴 Z", "W_Q")                      # (n_img, d_k)
    k = _project(tokens, w_k, "文のトークン E", "W_K")                       # (n_txt, d_k)
    v = _project(tokens, w_v, "文のトークン E", "W_V")                       # (n_txt, d_v)
    return TextImageAttention(q, k, v, attention(q, k, v))


@dataclass(frozen=True)
class CrossShapes:
    """The shapes a cross-attention layer produces: rows are always the queries' positions."""
    weights: tuple[int, int]  # (n_q, n_k)
    output: tuple[int, int]   # (n_q, d_v)

    @property
    def scores(self) -> int:
        """How many query–key scores one layer (one head) computes: n_q · n_k."""
        return self.weights[0] * self.weights[1]


def cross_shapes(n_img: int, n_txt: int, d_v: int) -> CrossShapes:
    """Text steering an image: Q from the n_img positions, K and V from the n_txt tokens →
    weights (n_img, n_txt), output (n_img, d_v): one new vector per image position."""
    n_img, n_txt = positive_int(n_img, "画像側の位置の数"), positive_int(n_txt, "文のトークン数")
    d_v = positive_int(d_v, "バリューの次元 d_v")
    return CrossShapes((n_img, n_txt), (n_img, d_v))


def cross_shapes_swapped(n_img: int, n_txt: int, d_v: int) -> CrossShapes:
    """MISTAKE: Q from the text and K, V from the image (roles reversed): weights (n_txt, n_img),
    one output per TOKEN — the image would not be changed position by position."""
    ok = cross_shapes(n_img, n_txt, d_v)
    return CrossShapes((ok.weights[1], ok.weights[0]), (ok.weights[1], ok.output[1]))


def cross_shapes_self(n_img: int, n_txt: int, d_v: int) -> CrossShapes:
    """MISTAKE: taken for the image's own self-attention: weights (n_img, n_img), the text unused."""
    ok = cross_shapes(n_img, n_txt, d_v)
    return CrossShapes((ok.weights[0], ok.weights[0]), ok.output)


SD_FACTOR = 8             # Stable Diffusion v1's autoencoder: 512 × 512 pixels → 64 × 64 latent positions
SD_TEXT_TOKENS = 77       # the CLIP text encoder's context length (the keys and values of its cross-attention)
SD_GUIDANCE = 7.5         # the guidance scale its sampling script uses by default


def latent_side(image: int, factor: int = SD_FACTOR) -> int:
    """Side of the latent: image / f (512 / 8 = 64)."""
    image, factor = positive_int(image, "画像の 1 辺（画素）"), positive_int(factor, "縮小率 f")
    if image % factor:
        raise ValueError(f"画像の 1 辺 {image} は縮小率 {factor} で割り切れません。")
    return image // factor


def latent_positions(image: int, factor: int = SD_FACTOR) -> int:
    """Positions of a square latent, (image / f)² (512, f = 8 → 4,096): the rows of Q."""
    return latent_side(image, factor) ** 2


# ---------------------------------------------------------------------------
# diffusion: noise added step by step, ᾱ_t, x_t = √ᾱ_t x₀ + √(1 − ᾱ_t) ε
# ---------------------------------------------------------------------------
DDPM_STEPS = 1000         # T of DDPM (Ho et al., 2020)
DDPM_BETA_1 = 1e-4        # its linear schedule: β_1 = 10⁻⁴ …
DDPM_BETA_T = 0.02        # … β_T = 0.02


DIFFUSION_DEMO_BETAS = (0.1, 0.2, 0.5)   # a 3-step toy schedule: ᾱ = 0.9, 0.72, 0.36 (√ = 0.6, √(1 − ᾱ) = 0.8)
DIFFUSION_DEMO_X0 = (1.0, -1.0)          # (2,) the data of the hand calculation
DIFFUSION_DEMO_EPS = (0.5, 1.0)          # (2,) the noise drawn for it
DIFFUSION_DEMO_EPS_HAT = (0.4, 1.1)      # (2,) an imperfect prediction of that noise
DIFFUSION_DEMO_IMAGE = ((-1.0, 1.0, 1.0, -1.0),   # (4, 4) a tiny grey picture (a bright square in the middle)
                        (1.0, 1.0, 1.0, 1.0),
                        (1.0, 1.0, 1.0, 1.0),
                        (-1.0, 1.0, 1.0, -1.0))
GUIDANCE_DEMO_UNCOND = (0.2, -0.4)       # ε_u (2,)
GUIDANCE_DEMO_COND = (0.6, 0.2)          # ε_c (2,)
GUIDANCE_DEMO_W = 3.0


def _betas(betas) -> np.ndarray:
    b = as_matrix(betas, "β の列", ndim=1)                                   # (t,)
    if ((b <= 0) | (b >= 1)).any():
        raise ValueError("β はどれも 0 より大きく 1 より小さい数にしてください（加えるノイズの分散の割合です）。")
    return b


def linear_betas(steps: int = DDPM_STEPS, beta_1: float = DDPM_BETA_1, beta_t: float = DDPM_BETA_T) -> np.ndarray:
    """β_1 … β_T evenly spaced from beta_1 to beta_t (DDPM's linear schedule). → (T,)."""
    steps = positive_int(steps, "ステップ数 T")
    if steps > 100_000:
        raise ValueError(f"ステップ数 T は 100,000 以下にしてください（{steps:,}）。")
    return _betas(np.linspace(float(beta_1), float(beta_t), steps))


def alpha_bars(betas) -> np.ndarray:
    """ᾱ_t = Π_{s=1..t} (1 − β_s) for every t. (T,) → (T,), falling from 1 − β_1 towards 0."""
    return np.cumprod(1.0 - _betas(betas))


def alpha_bar_at(betas, t: int) -> float:
    """ᾱ_t of step t (1-based) of the schedule."""
    b = _betas(betas)
    t = positive_int(t, "ステップ t")
    if t > b.size:
        raise ValueError(f"ステップ t = {t} はスケジュールの長さ {b.size} を超えています。")
    return float(alpha_bars(b)[t - 1])


def standard_noise(shape, rng: np.random.Generator) -> np.ndarray:
    """ε ~ N(0, I) of the given shape, drawn from the passed Generator (same seed → same noise)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng には np.random.default_rng(seed) で作った Generator を渡してください。")
    return rng.standard_normal(tuple(positive_int(n, "ノイズの形") for n in np.atleast_1d(shape)))


def schedule_curve(betas, every: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, √ᾱ_t, √(1 − ᾱ_t)) at t = 1, 1 + every, …, T (and T): how much signal and noise x_t holds."""
    a = alpha_bars(betas)
    idx = np.unique(np.r_[np.arange(0, a.size, positive_int(every, "間隔")), a.size - 1])
    return idx + 1, np.sqrt(a[idx]), np.sqrt(1.0 - a[idx])


def alpha_bar_sum(betas, t: int) -> float:
    """MISTAKE: 1 − Σ β_s (the βs added instead of the (1 − β)s multiplied)."""
    alpha_bar_at(betas, t)
    return float(1.0 - _betas(betas)[:t].sum())


def alpha_bar_beta_product(betas, t: int) -> float:
    """MISTAKE: Π β_s (the noise shares multiplied, not the signal shares 1 − β_s)."""
    alpha_bar_at(betas, t)
    return float(np.prod(_betas(betas)[:t]))


def alpha_bar_last_step(betas, t: int) -> float:
    """MISTAKE: 1 − β_t of the last step alone (the earlier steps forgotten)."""
    alpha_bar_at(betas, t)
    return float(1.0 - _betas(betas)[t - 1])


@dataclass(frozen=True)
class Noised:
    alpha_bar: float          # ᾱ_t
    signal: float             # √ᾱ_t        (what is left of x₀)
    noise: float              # √(1 − ᾱ_t)  (how much ε is mixed in)
    x_t: np.ndarray           # (d,) or the shape of x₀


def _signal_and_noise(x0, eps) -> tuple[np.ndarray, np.ndarray]:
    x0, eps = as_matrix(x0, "元のデータ x₀"), as_matrix(eps, "ノイズ ε")
    if x0.shape != eps.shape:
        raise ValueError(f"x₀（形 {x0.shape}）と ε（形 {eps.shape}）の形が一致しません。")
    return x0, eps


def _alpha_bar(alpha_bar) -> float:
    a = float(alpha_bar) if not isinstance(alpha_bar, (bool, np.bool_)) else math.nan
    if not (0.0 < a <= 1.0):
        raise ValueError(f"ᾱ_t は 0 より大きく 1 以下の数です（{alpha_bar!r}）。")
    return a


def add_noise(x0, eps, alpha_bar: float) -> Noised:
    """x_t = √ᾱ_t x₀ + √(1 − ᾱ_t) ε: one jump from the data to step t (no loop over the steps)."""
    x0, eps = _signal_and_noise(x0, eps)
    a = _alpha_bar(alpha_bar)
    s, n = math.sqrt(a), math.sqrt(1.0 - a)
    return Noised(a, s, n, s * x0 + n * eps)


def add_noise_swapped(x0, eps, alpha_bar: float) -> np.ndarray:
    """MISTAKE: the two coefficients swapped, √(1 − ᾱ_t) x₀ + √ᾱ_t ε."""
    r = add_noise(x0, eps, alpha_bar)
    x0, eps = _signal_and_noise(x0, eps)
    return r.noise * x0 + r.signal * eps


def add_noise_no_sqrt(x0, eps, alpha_bar: float) -> np.ndarray:
    """MISTAKE: ᾱ_t x₀ + (1 − ᾱ_t) ε — the square roots forgotten (the variances used as scales)."""
    a = add_noise(x0, eps, alpha_bar).alpha_bar
    x0, eps = _signal_and_noise(x0, eps)
    return a * x0 + (1.0 - a) * eps


def add_noise_one_step(x0, eps, beta_t: float) -> np.ndarray:
    """MISTAKE: the one-step formula √(1 − β_t) x₀ + √β_t ε applied to x₀ (β_t used for ᾱ_t)."""
    b = float(_betas([beta_t])[0])
    x0, eps = _signal_and_noise(x0, eps)
    return math.sqrt(1.0 - b) * x0 + math.sqrt(b) * eps


def x0_from_noise(x_t, eps_hat, alpha_bar: float) -> np.ndarray:
    """The x₀ a predicted noise ε̂ gives back: (x_t − √(1 − ᾱ_t) ε̂) / √ᾱ_t (exact when ε̂ = ε)."""
    x_t, eps_hat = _signal_and_noise(x_t, eps_hat)
    a = _alpha_bar(alpha_bar)
    return (x_t - math.sqrt(1.0 - a) * eps_hat) / math.sqrt(a)


# ---------------------------------------------------------------------------
# classifier-free guidance: push the prediction away from the unconditional one
# ---------------------------------------------------------------------------
def _guidance(eps_uncond, eps_cond, w) -> tuple[np.ndarray, np.ndarray, float]:
    u, c = as_matrix(eps_uncond, "条件なしの予測 ε_u"), as_matrix(eps_cond, "条件つきの予測 ε_c")
    if u.shape != c.shape:
        raise ValueError(f"ε_u（形 {u.shape}）と ε_c（形 {c.shape}）の形が一致しません。")
    if isinstance(w, (bool, np.bool_)) or not math.isfinite(float(w)) or not 0 <= float(w) <= 100:
        raise ValueError(f"ガイダンスの強さ w は 0 以上 100 以下の数にしてください（{w!r}）。")
    return u, c, float(w)


@dataclass(frozen=True)
class Guided:
    difference: np.ndarray    # ε_c − ε_u: the direction the text adds
    push: np.ndarray          # w (ε_c − ε_u)
    noise: np.ndarray         # ε̂ = ε_u + w (ε_c − ε_u)


def guided(eps_uncond, eps_cond, w: float) -> Guided:
    """Classifier-free guidance with its steps: the difference the text makes, scaled by w, added
    to the unconditional prediction."""
    u, c, w = _guidance(eps_uncond, eps_cond, w)
    diff = c - u
    return Guided(diff, w * diff, u + w * diff)


def guided_noise(eps_uncond, eps_cond, w: float) -> np.ndarray:
    """ε̂ = ε_u + w (ε_c − ε_u): w = 0 is the unconditional model, w = 1 the conditional one, w > 1
    goes further along the direction the text adds (Stable Diffusion's default w = 7.5)."""
    return guided(eps_uncond, eps_cond, w).noise


def guided_noise_swapped(eps_uncond, eps_cond, w: float) -> np.ndarray:
    """MISTAKE: the guidance applied to the unconditional term, ε_c + w (ε_u − ε_c)."""
    u, c, w = _guidance(eps_uncond, eps_cond, w)
    return c + w * (u - c)


def guided_noise_cond_only(eps_uncond, eps_cond, w: float) -> np.ndarray:
    """MISTAKE: w ε_c — the conditional prediction scaled, the unconditional one never used."""
    _, c, w = _guidance(eps_uncond, eps_cond, w)
    return w * c


def guided_noise_reversed(eps_uncond, eps_cond, w: float) -> np.ndarray:
    """MISTAKE: the difference taken the other way round, ε_u + w (ε_u − ε_c)."""
    u, c, w = _guidance(eps_uncond, eps_cond, w)
    return u + w * (u - c)
