"""Charts of the ⑦ pages (full Transformer): large heatmaps, probability bars, cost curves.

Only display code: every number comes in already computed by the engine. The pages show them
through ui.cached_chart, which keeps the finished spec per input.
"""
from __future__ import annotations

import math
from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd

from .validate import format_number


def dense_heatmap(matrix, *, x_title: str, y_title: str, title: str = "", digits: int = 4,
                  scheme: str = "redblue", domain: tuple[float, float] | None = (-1.0, 1.0),
                  ) -> alt.Chart:
    """A heatmap for many cells (e.g. positions × dimensions): no text in the cells, a tooltip
    with the value; rows are numbered 0, 1, … (position) and columns 0, 1, … (dimension)."""
    m = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    n_rows, n_cols = m.shape
    df = pd.DataFrame({
        "row": np.repeat(np.arange(n_rows), n_cols),
        "col": np.tile(np.arange(n_cols), n_rows),
        "value": m.ravel(),
        "text": [format_number(v, digits) for v in m.ravel()],
    })
    color = alt.Color("value:Q", legend=alt.Legend(title="値"),
                      scale=alt.Scale(scheme=scheme, domain=list(domain) if domain else alt.Undefined,
                                      reverse=scheme == "redblue"))
    return alt.Chart(df, title=title).mark_rect().encode(
        x=alt.X("col:O", title=x_title, axis=alt.Axis(labelAngle=0, labelOverlap=True)),
        y=alt.Y("row:O", title=y_title, axis=alt.Axis(labelOverlap=True)),
        color=color,
        tooltip=[alt.Tooltip("row:O", title=y_title), alt.Tooltip("col:O", title=x_title),
                 alt.Tooltip("text:N", title="値")],
    ).properties(height=max(6, min(22, 400 // max(n_rows, 1))) * n_rows + 60)   # width: the container's


def prob_bars(probs, labels: Sequence[str], *, title: str = "", highlight: Sequence[int] = (),
              value_title: str = "確率") -> alt.LayerChart:
    """Horizontal bars of a distribution over tokens, the value printed next to each bar;
    ``highlight``: token ids drawn in the accent colour (kept / chosen)."""
    p = np.asarray(probs, dtype=np.float64)
    df = pd.DataFrame({
        "token": list(labels),
        "prob": p,
        "text": [format_number(v, 3) for v in p],
        "mark": ["選ばれうる" if i in set(int(h) for h in highlight) else "対象外" for i in range(p.size)],
    })
    base = alt.Chart(df, title=title).encode(
        y=alt.Y("token:N", sort=list(labels), title=None),
        x=alt.X("prob:Q", title=value_title, scale=alt.Scale(domain=[0, 1])),
    )
    color = (alt.Color("mark:N", title=None, scale=alt.Scale(domain=["選ばれうる", "対象外"],
                                                             range=["#2E6F9E", "#b0b0b0"]))
             if len(highlight) else alt.value("#2E6F9E"))
    bars = base.mark_bar().encode(color=color, tooltip=["token", "text"])
    text = base.mark_text(align="left", dx=4).encode(text="text:N")
    # streamlit sizes charts with autosize "fit": the height includes title and axes
    return (bars + text).properties(height=100 + 36 * len(labels))


def cost_chart(ns, curves: dict, labels: dict, *, crossover: int, n_mark: int | None = None,
               marks: dict | None = None, title: str = "") -> alt.LayerChart:
    """Operations per layer against the sequence length n, both axes on a log scale.

    curves: {layer_type: (len(ns),) counts}; labels: {layer_type: 日本語名};
    crossover: n where the two main curves cross (a vertical rule);
    marks: {layer_type: count at n_mark} drawn as points at n_mark.
    """
    records = []
    for key, values in curves.items():
        for n, v in zip(ns, values):
            records.append({"n": int(n), "ops": float(v), "層": labels[key],
                            "text": f"{float(v):,.0f}"})
    df = pd.DataFrame.from_records(records)
    order = [labels[k] for k in curves]
    palette = ["#d1495b", "#2E6F9E", "#66a182", "#edae49"]
    color = alt.Color("層:N", sort=order, legend=alt.Legend(title=None, orient="bottom"),
                      scale=alt.Scale(domain=order, range=palette[:len(order)]))
    lines = alt.Chart(df, title=title).mark_line().encode(
        x=alt.X("n:Q", scale=alt.Scale(type="log"), title="系列長 n（対数目盛）"),
        y=alt.Y("ops:Q", scale=alt.Scale(type="log"), title="層ごとの演算量（対数目盛）"),
        color=color,
        tooltip=[alt.Tooltip("層:N"), alt.Tooltip("n:Q"), alt.Tooltip("text:N", title="演算量")],
    )
    rule_df = pd.DataFrame({"n": [int(crossover)], "label": [f"交差点 n = d = {int(crossover):,}"]})
    rule = alt.Chart(rule_df).mark_rule(strokeDash=[6, 4], color="#888").encode(x="n:Q")
    # the label on the side of the rule with more room (a phone-wide chart clips what crosses its edge)
    right_half = math.log(max(crossover, 1)) > math.log(max(min(ns), 1) * max(max(ns), 1)) / 2
    rule_text = alt.Chart(rule_df).mark_text(align="right" if right_half else "left", dx=-4 if right_half else 4,
                                             dy=-6, color="#666").encode(x="n:Q", y=alt.value(12), text="label:N")
    layers = [lines, rule, rule_text]
    if n_mark is not None and marks:
        pts = pd.DataFrame({"n": [int(n_mark)] * len(marks), "ops": [float(v) for v in marks.values()],
                            "層": [labels[k] for k in marks], "text": [f"{float(v):,.0f}" for v in marks.values()]})
        layers.append(alt.Chart(pts).mark_point(size=80, filled=True).encode(
            x="n:Q", y="ops:Q", color=color,
            tooltip=[alt.Tooltip("層:N"), alt.Tooltip("n:Q"), alt.Tooltip("text:N", title="演算量")]))
    return alt.layer(*layers).properties(height=440)   # autosize "fit": includes title, axes, legend
