"""Vision after ViT: Swin's window attention against global attention and MAE's random mask of 75 %
of the patches — with the named mistakes next to them. (CLIP's image–text similarities moved to
tutor.multimodal, page ⑪.)"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import check_rng
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
