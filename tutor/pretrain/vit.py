"""Vision Transformer: the image cut into P×P patches, the patch vectors, the embedding
z₀ = [x_class; x_p E] + E_pos, and ViT-Base's parameter count — with the named mistakes next to them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, positive_int
from .bert import LayerParams, bert_head_dim, encoder_layer_params


# ---------------------------------------------------------------------------
# published size and worked example of ViT
# ---------------------------------------------------------------------------
VIT_B16 = {"image": 224, "patch": 16, "channels": 3, "layers": 12, "hidden": 768, "heads": 12,
           "mlp": 3072, "classes": 1000}
VIT_DEMO_IMAGE = ((1.0, 0.0, 2.0, 1.0),      # (4, 4) grey image, cut into 2 × 2 patches
                  (0.0, 1.0, 0.0, 1.0),
                  (1.0, 1.0, 0.0, 0.0),
                  (2.0, 0.0, 1.0, 1.0))
VIT_DEMO_PROJ = ((1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (0.0, 1.0))   # E (P²C = 4, D = 2)
VIT_DEMO_CLS = (0.0, 0.0)                                          # x_class (D,)
VIT_DEMO_POS = ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (2.0, 0.0))   # E_pos (N + 1, D)



# ---------------------------------------------------------------------------
# ViT: image → patch tokens
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PatchGrid:
    rows: int         # H / P
    cols: int         # W / P
    patches: int      # (H/P)(W/P)
    tokens: int       # patches + 1 (class token)
    patch_dim: int    # P² · C (length of a flattened patch)
    height: int = 0   # H, W, P as given (so that a page can redraw the grid of this very result)
    width: int = 0
    patch: int = 0


def _image_size(height, width, patch, channels=3) -> tuple[int, int, int, int]:
    h = positive_int(height, "画像の高さ H")
    w = positive_int(width, "画像の幅 W")
    p = positive_int(patch, "パッチの大きさ P")
    c = positive_int(channels, "チャンネル数 C")
    if max(h, w) > 10_000:
        raise ValueError(f"画像の大きさは 10,000 画素以下にしてください（{h}×{w}）。")
    if h % p or w % p:
        raise ValueError(f"画像 {h}×{w} はパッチ {p}×{p} で割り切れません"
                         f"（{h} ÷ {p}、{w} ÷ {p} がどちらも整数になる大きさにしてください）。")
    return h, w, p, c


def vit_patch_grid(height: int, width: int, patch: int, channels: int = 3) -> PatchGrid:
    """N = (H/P)(W/P) patches; tokens = N + 1 with the class token; patch vector length P²·C."""
    h, w, p, c = _image_size(height, width, patch, channels)
    rows, cols = h // p, w // p
    return PatchGrid(rows, cols, rows * cols, rows * cols + 1, p * p * c, h, w, p)


def vit_tokens(height: int, width: int, patch: int) -> int:
    """(H/P)(W/P) + 1 (224, 224, 16 → 14 × 14 + 1 = 197)."""
    return vit_patch_grid(height, width, patch).tokens


def vit_tokens_without_class(height: int, width: int, patch: int) -> int:
    """MISTAKE: the class token forgotten, (H/P)(W/P)."""
    return vit_patch_grid(height, width, patch).patches


def vit_tokens_hw_over_p(height: int, width: int, patch: int) -> int:
    """MISTAKE: divided by P instead of P² (H·W/P + 1)."""
    h, w, p, _ = _image_size(height, width, patch)
    return h * w // p + 1


def vit_tokens_sides_added(height: int, width: int, patch: int) -> int:
    """MISTAKE: the two sides added instead of multiplied, H/P + W/P + 1."""
    g = vit_patch_grid(height, width, patch)
    return g.rows + g.cols + 1


def vit_patch_dim(patch: int, channels: int = 3) -> int:
    """Length of a flattened patch: P² · C (16, 3 → 768)."""
    return positive_int(patch, "パッチの大きさ P") ** 2 * positive_int(channels, "チャンネル数 C")


def vit_patch_dim_p_not_p2(patch: int, channels: int = 3) -> int:
    """MISTAKE: P · C (one side of the patch only)."""
    return positive_int(patch, "パッチの大きさ P") * positive_int(channels, "チャンネル数 C")


def vit_patch_dim_no_channels(patch: int, channels: int = 3) -> int:
    """MISTAKE: P² (the colour channels forgotten)."""
    positive_int(channels, "チャンネル数 C")
    return positive_int(patch, "パッチの大きさ P") ** 2


def vit_patch_index(height: int, width: int, patch: int) -> np.ndarray:
    """(H/P, W/P) int array: the token position of each patch (1 … N, row by row; 0 is the class token)."""
    g = vit_patch_grid(height, width, patch)
    return np.arange(1, g.patches + 1).reshape(g.rows, g.cols)


def vit_patchify(image, patch: int) -> np.ndarray:
    """(H, W, C) or (H, W) image → (N, P²·C): patch by patch (row-major), each flattened row by row."""
    img = as_matrix(image, "画像", ndim=(2, 3))
    if img.ndim == 2:
        img = img[:, :, None]                                               # (H, W, 1)
    h, w, c = img.shape
    _, _, p, _ = _image_size(h, w, patch, c)
    x = img.reshape(h // p, p, w // p, p, c)                                # (H/P, P, W/P, P, C)
    x = x.transpose(0, 2, 1, 3, 4)                                          # (H/P, W/P, P, P, C)
    return x.reshape((h // p) * (w // p), p * p * c)                        # (N, P²C)


@dataclass(frozen=True)
class VitEmbedding:
    patches: np.ndarray     # (N, P²C)   flattened patches x_p
    projected: np.ndarray   # (N, D)     x_p E
    tokens: np.ndarray      # (N+1, D)   [x_class; x_p E]
    output: np.ndarray      # (N+1, D)   z₀ = tokens + E_pos


def vit_embed(image, patch: int, w_proj, cls_token, pos_emb) -> VitEmbedding:
    """z₀ = [x_class; x_p¹E; …; x_pᴺE] + E_pos.

    image (H, W[, C]); w_proj E (P²C, D); cls_token (D,); pos_emb E_pos (N+1, D) (learned)."""
    xp = vit_patchify(image, patch)                                         # (N, P²C)
    e = as_matrix(w_proj, "射影行列 E", ndim=2)
    cls = as_matrix(cls_token, "クラストークン", ndim=1)
    pos = as_matrix(pos_emb, "位置埋め込み E_pos", ndim=2)
    n, d_in = xp.shape
    if e.shape[0] != d_in:
        raise ValueError(f"射影行列 E の行数 {e.shape[0]} がパッチの長さ P²C = {d_in} と一致しません。")
    d = e.shape[1]
    if cls.shape != (d,) or pos.shape != (n + 1, d):
        raise ValueError(f"クラストークン {cls.shape} は ({d},)、位置埋め込み {pos.shape} は ({n + 1}, {d}) が必要です。")
    projected = xp @ e                                                      # (N, D)
    tokens = np.vstack([cls[None, :], projected])                           # (N+1, D)
    return VitEmbedding(xp, projected, tokens, tokens + pos)                # (N+1, D)


@dataclass(frozen=True)
class VitParams:
    patch_embedding: int     # P²C · D + D (the linear projection E with its bias)
    class_token: int         # D
    position_embedding: int  # (N + 1) · D
    layer: LayerParams       # one encoder layer (MLP width given)
    layers: int              # L
    final_norm: int          # 2D
    head: int                # D · K + K (one linear layer; 0 when K = 0)

    @property
    def encoder(self) -> int:
        return self.layers * self.layer.total

    @property
    def backbone(self) -> int:
        """Everything but the classification head (85,798,656 ≈ 86M for ViT-B/16: the paper's figure)."""
        return self.total - self.head

    @property
    def total(self) -> int:
        return (self.patch_embedding + self.class_token + self.position_embedding + self.encoder
                + self.final_norm + self.head)


def vit_param_count(image: int = 224, patch: int = 16, layers: int = 12, hidden: int = 768,
                    heads: int = 12, mlp: int = 3072, channels: int = 3, classes: int = 1000) -> VitParams:
    """ViT's parameters: patch projection (P²C + 1) D, class token D, position embeddings (N+1) D,
    L encoder layers, final LayerNorm 2D, a linear head D·K + K (classes = 0: no head).
    ViT-B/16 on 224 × 224: 85,798,656 without the head (≈ 86M, the paper's figure), 86,567,656 with
    a 1,000-class head."""
    g = vit_patch_grid(image, image, patch, channels)
    layers = positive_int(layers, "層数 L")
    d = bert_head_dim(hidden, heads) * int(heads)                           # = hidden, A divides it
    if isinstance(classes, bool) or not isinstance(classes, (int, np.integer)) or classes < 0:
        raise ValueError(f"クラス数は 0 以上の整数にしてください（{classes!r}）。")
    k = int(classes)
    return VitParams(g.patch_dim * d + d, d, g.tokens * d, encoder_layer_params(d, mlp), layers, 2 * d,
                     d * k + k)
