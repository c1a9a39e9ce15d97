"""Charts of the 「Transformer のその後」 page: BERT's masking draw and ViT's patch grid.

Display only: every number comes in computed by tutor.pretrain; the page shows the charts
through ui.cached_chart.
"""
from __future__ import annotations

from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd

from .widgets import _title_lines

ACTION_LABELS = {"mask": "[MASK] に置換", "random": "別の語に置換", "keep": "そのまま（予測はする）",
                 "": "対象外"}
_ACTION_ORDER = list(ACTION_LABELS.values())
_ACTION_COLOURS = ["#d1495b", "#edae49", "#2E6F9E", "#d0d0d0"]


def mlm_frame(tokens: Sequence[str], masked: Sequence[str], actions: Sequence[str]) -> pd.DataFrame:
    """One row per position: the original token, what the model sees, what happened to it."""
    return pd.DataFrame({
        "位置": list(range(len(tokens))),
        "元のトークン": list(tokens),
        "モデルが見る入力": list(masked),
        "処理": [ACTION_LABELS[a] for a in actions],
    })


def mlm_chart(tokens: Sequence[str], masked: Sequence[str], actions: Sequence[str], *,
              title: str = "") -> alt.LayerChart:
    """A strip of cells, one per token (wrapped every 6 tokens for a phone): the input the model
    sees written in each cell, the colour telling what the masking did there."""
    df = mlm_frame(tokens, masked, actions)
    per_row = 6
    df["行"] = df["位置"] // per_row
    df["列"] = df["位置"] % per_row
    n_rows = int(df["行"].max()) + 1
    base = alt.Chart(df, title=_title_lines(title)).encode(
        x=alt.X("列:O", axis=None), y=alt.Y("行:O", axis=None))
    rect = base.mark_rect(stroke="#666", strokeWidth=0.8).encode(
        color=alt.Color("処理:N", scale=alt.Scale(domain=_ACTION_ORDER, range=_ACTION_COLOURS),
                        legend=alt.Legend(title=None, orient="bottom", columns=2)),
        tooltip=["位置:O", "元のトークン:N", "モデルが見る入力:N", "処理:N"])
    text = base.mark_text(fontSize=12).encode(text="モデルが見る入力:N")
    return (rect + text).properties(width=per_row * 52, height=n_rows * 40,
                                    autosize=alt.AutoSizeParams(type="pad"))


def patch_grid_chart(index, *, title: str = "") -> alt.LayerChart:
    """The image cut into patches: one cell per patch with its token number (1 … N, row by row);
    numbers are written only when the grid is small enough to read them."""
    idx = np.asarray(index)
    rows, cols = idx.shape
    df = pd.DataFrame({"行": np.repeat(np.arange(rows), cols), "列": np.tile(np.arange(cols), rows),
                       "トークン番号": idx.ravel()})
    size = max(6, min(36, 300 // max(rows, cols)))
    base = alt.Chart(df, title=_title_lines(title)).encode(
        x=alt.X("列:O", axis=alt.Axis(title="横のパッチ", labelOverlap=True, labelAngle=0)),
        y=alt.Y("行:O", axis=alt.Axis(title="縦のパッチ", labelOverlap=True)))
    rect = base.mark_rect(stroke="#fff", strokeWidth=1 if size >= 10 else 0.3).encode(
        color=alt.Color("トークン番号:Q", scale=alt.Scale(scheme="viridis"),
                        legend=alt.Legend(title="トークン番号", orient="bottom", gradientLength=160)),
        tooltip=["行:O", "列:O", "トークン番号:Q"])
    layers = [rect]
    if size >= 24:
        layers.append(base.mark_text(fontSize=10, color="#fff").encode(text="トークン番号:Q"))
    return alt.layer(*layers).properties(width=size * cols, height=size * rows,
                                         autosize=alt.AutoSizeParams(type="pad"))
