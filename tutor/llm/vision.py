"""Vision after ViT: Swin's window attention against global attention, MAE's random mask of 75 %
of the patches, CLIP's image–text similarities and the softmax over them — with the named mistakes
next to them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, check_rng, softmax
from ..pretrain import vit_patch_grid
from .models import _count

# ---------------------------------------------------------------------------
# Swin Transformer: attention inside M × M windows
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SwinCost:
    h: int
    w: int
    channels: int             # C
    window: int               # M
    projections: int          # 4·hw·C² (Q, K, V and the output projection; both kinds)
    global_attention: int     # 2·(hw)²·C  (QKᵀ and A·V over all hw tokens)
    window_attention: int     # 2·M²·hw·C  (the same inside each of the hw / M² windows)

    @property
    def tokens(self) -> int:
        return self.h * self.w

    @property
    def windows(self) -> int:
        return (self.h // self.window) * (self.w // self.window)

    @property
    def attention_ratio(self) -> int:
        """global / window attention = hw / M² (= the number of windows)."""
        return self.global_attention // self.window_attention

    @property
    def total_ratio(self) -> float:
        """global ÷ window with the projections 4hwC² included (13.8 for 56 × 56, C = 96, M = 7)."""
        return self.global_total / self.window_total

    @property
    def global_total(self) -> int:
        return self.projections + self.global_attention

    @property
    def window_total(self) -> int:
        return self.projections + self.window_attention


def _swin_sizes(h, w, m) -> tuple[int, int, int]:
    h, w, m = _count(h, "高さ h"), _count(w, "幅 w"), _count(m, "窓の大きさ M")
    if max(h, w) > 4096:
        raise ValueError("特徴マップの大きさは 4,096 以下にしてください。")
    if h % m or w % m:
        raise ValueError(f"特徴マップ {h}×{w} は窓 {m}×{m} で割り切れません（h と w を M の倍数にしてください）。")
    return h, w, m


def swin_cost(h: int, w: int, channels: int, window: int) -> SwinCost:
    """Multiply-adds of one attention layer on an h × w map of C channels (Swin, 2021):
    global Ω = 4hwC² + 2(hw)²C, window Ω = 4hwC² + 2M²hwC. 56 × 56, C = 96, M = 7 → 64 times less attention."""
    h, w, m = _swin_sizes(h, w, window)
    c = _count(channels, "チャンネル数 C")
    hw = h * w
    return SwinCost(h, w, c, m, 4 * hw * c * c, 2 * hw * hw * c, 2 * m * m * hw * c)


def swin_ratio_m_not_m2(h: int, w: int, window: int) -> int:
    """MISTAKE: divided by M instead of M² (hw / M)."""
    h, w, m = _swin_sizes(h, w, window)
    return h * w // m


def swin_ratio_one_window(h: int, w: int, window: int) -> int:
    """MISTAKE: global attention against ONE window's cost (M²)²·C: (hw / M²)²."""
    h, w, m = _swin_sizes(h, w, window)
    return (h * w // (m * m)) ** 2


def swin_ratio_sides_added(h: int, w: int, window: int) -> int:
    """MISTAKE: the windows counted as h/M + w/M (the two sides added, not multiplied)."""
    h, w, m = _swin_sizes(h, w, window)
    return h // m + w // m


def swin_window_ids(h: int, w: int, window: int, shifted: bool = False) -> np.ndarray:
    """(h, w) int: which window each position belongs to, numbered row by row from 0. Shifted
    (the next layer): the window borders move by ⌊M/2⌋, so windows straddle the old borders and
    the map splits into (h/M + 1)(w/M + 1) windows, some of them smaller at the edges."""
    h, w, m = _swin_sizes(h, w, window)
    s = m // 2 if shifted else 0
    rows = (np.arange(h) + (m - s) % m) // m                                # (h,) window row of each position
    cols = (np.arange(w) + (m - s) % m) // m                                # (w,)
    n_cols = int(cols.max()) + 1
    return rows[:, None] * n_cols + cols[None, :]                           # (h, w)


# ---------------------------------------------------------------------------
# MAE: mask 75 % of the patches, encode only the visible ones
# ---------------------------------------------------------------------------
MAE_MASK_PERCENT = 75


def _percent(p) -> int:
    p = _count(p, "隠す割合（%）", zero=True)
    if p >= 100:
        raise ValueError(f"隠す割合は 0 以上 99 以下（%）にしてください（{p}）。")
    return p


def mae_visible(n_patches: int, mask_percent: int = MAE_MASK_PERCENT) -> int:
    """Patches left visible: ⌊N·(100 − p) / 100⌋ (196, 75 % → 49)."""
    return _count(n_patches, "パッチの数 N") * (100 - _percent(mask_percent)) // 100


def mae_hidden(n_patches: int, mask_percent: int = MAE_MASK_PERCENT) -> int:
    """Patches hidden: N − N_vis (196, 75 % → 147); the decoder puts a mask token at each of them."""
    return _count(n_patches, "パッチの数 N") - mae_visible(n_patches, mask_percent)


@dataclass(frozen=True)
class MaeSplit:
    n_patches: int
    visible: np.ndarray       # (N_vis,) sorted patch indices the encoder sees
    masked: np.ndarray        # (N − N_vis,) sorted patch indices the decoder reconstructs

    def grid(self, rows: int, cols: int) -> np.ndarray:
        """(rows, cols) float: 1 where the patch is visible, 0 where it is hidden (patches row by row)."""
        if _count(rows, "行の数") * _count(cols, "列の数") != self.n_patches:
            raise ValueError(f"{rows}×{cols} はパッチの数 {self.n_patches} と合いません。")
        return np.isin(np.arange(self.n_patches), self.visible).astype(float).reshape(rows, cols)

    @property
    def encoder_tokens(self) -> int:
        return int(self.visible.size)

    @property
    def decoder_tokens(self) -> int:
        """The decoder gets every position: encoded visible patches + one mask token per hidden patch."""
        return self.n_patches


def mae_mask(n_patches: int, rng: np.random.Generator, mask_percent: int = MAE_MASK_PERCENT) -> MaeSplit:
    """A random mask as MAE draws it: shuffle the patch indices, keep the first N_vis."""
    n, keep = _count(n_patches, "パッチの数 N"), mae_visible(n_patches, mask_percent)
    order = check_rng(rng).permutation(n)                                   # (N,)
    return MaeSplit(n, np.sort(order[:keep]), np.sort(order[keep:]))


def mae_image_visible(image: int, patch: int, mask_percent: int = MAE_MASK_PERCENT) -> int:
    """Visible patches of an image × image picture cut into patch × patch pieces."""
    return mae_visible(vit_patch_grid(image, image, patch).patches, mask_percent)


def mae_visible_masked_instead(image: int, patch: int, mask_percent: int = MAE_MASK_PERCENT) -> int:
    """MISTAKE: the hidden patches counted instead of the visible ones."""
    return mae_hidden(vit_patch_grid(image, image, patch).patches, mask_percent)


def mae_visible_all_patches(image: int, patch: int, mask_percent: int = MAE_MASK_PERCENT) -> int:
    """MISTAKE: the encoder thought to take every patch (mask tokens included), N."""
    _percent(mask_percent)
    return vit_patch_grid(image, image, patch).patches


def mae_visible_p_not_p2(image: int, patch: int, mask_percent: int = MAE_MASK_PERCENT) -> int:
    """MISTAKE: the patches counted as H·W / P (P, not P²), then the visible share taken."""
    vit_patch_grid(image, image, patch)
    return image * image // patch * (100 - _percent(mask_percent)) // 100


# ---------------------------------------------------------------------------
# CLIP: image–text similarities, a softmax over the texts
# ---------------------------------------------------------------------------
CLIP_DEMO_LABELS = ("猫", "犬", "車")
CLIP_DEMO_TEXTS = ((1.0, 0.2, 0.0, 0.1),      # (3, 4) 「猫の写真」「犬の写真」「車の写真」 from the text encoder
                   (0.6, 0.8, 0.0, 0.1),
                   (0.0, 0.1, 1.0, 0.3))
CLIP_DEMO_IMAGES = ((0.9, 0.4, 0.1, 0.0),     # (3, 4) a cat, a dog and a car photo from the image encoder
                    (0.5, 0.9, 0.0, 0.2),
                    (0.1, 0.0, 0.8, 0.6))
CLIP_DEMO_SCALE = 10.0                         # the logit scale (1 / temperature); CLIP learns it


@dataclass(frozen=True)
class ClipResult:
    images: np.ndarray        # (n_i, d) unit vectors
    texts: np.ndarray         # (n_t, d) unit vectors
    similarity: np.ndarray    # (n_i, n_t) cosine similarities
    logits: np.ndarray        # (n_i, n_t) scale · similarity
    probs: np.ndarray         # (n_i, n_t) softmax over the texts (each row sums to 1)
    predicted: np.ndarray     # (n_i,) the text with the largest probability


def _unit_rows(x, name: str) -> np.ndarray:
    x = as_matrix(x, name, ndim=(1, 2))
    x = x[None, :] if x.ndim == 1 else x                                   # (n, d)
    norms = np.linalg.norm(x, axis=1, keepdims=True)                       # (n, 1)
    if (norms == 0).any():
        raise ValueError(f"{name} に長さ 0 のベクトルがあります（向きが決まらないので類似度を計算できません）。")
    return x / norms


def clip_zero_shot(image_emb, text_emb, scale: float = CLIP_DEMO_SCALE) -> ClipResult:
    """Zero-shot classification: s_ij = cos(image_i, text_j), p_i = softmax(scale · s_i) over the
    class prompts — the same form as attention, a query (the image) against keys (the texts)."""
    img, txt = _unit_rows(image_emb, "画像の埋め込み"), _unit_rows(text_emb, "文の埋め込み")
    if img.shape[1] != txt.shape[1]:
        raise ValueError(f"画像の埋め込みの次元 {img.shape[1]} と文の埋め込みの次元 {txt.shape[1]} が一致しません。")
    if isinstance(scale, bool) or not (isinstance(scale, (int, float)) and 0 < scale <= 1000):
        raise ValueError(f"倍率は 0 より大きく 1,000 以下の数にしてください（{scale!r}）。")
    sim = img @ txt.T                                                       # (n_i, n_t)
    logits = scale * sim
    probs = softmax(logits)
    return ClipResult(img, txt, sim, logits, probs, np.argmax(probs, axis=1))


def clip_contrastive_loss(image_emb, text_emb, scale: float = CLIP_DEMO_SCALE) -> tuple[float, float, float]:
    """CLIP's training loss on a batch of n matching pairs (image i ↔ text i): the cross-entropy of
    the diagonal along the rows (image → text) and along the columns (text → image), and their mean."""
    res = clip_zero_shot(image_emb, text_emb, scale)
    n = res.logits.shape[0]
    if res.logits.shape != (n, n):
        raise ValueError(f"対の数がそろっていません（画像 {n} 枚、文 {res.logits.shape[1]} 個）。")
    i2t = float(-np.mean(np.diag(np.log(softmax(res.logits, axis=1)))))
    t2i = float(-np.mean(np.diag(np.log(softmax(res.logits, axis=0)))))
    return i2t, t2i, (i2t + t2i) / 2
