"""Every chart builder of the app: the dense heatmap of ⑦-1, the small side-by-side heatmaps of
⑤ and ⑥ (tables, like every heatmap with values in its cells: ui.widgets.heatmap_html),
probability bars and cost curves (⑦), the saturation and spread charts of ③, the activation
functions of ⑦-2, the training curves of ⑧, BERT's masking strip and ViT's patch grid (⑨), the
mock-exam charts (home, 模擬試験).

Only display code: every number comes in computed by the engine (or is one engine call away,
as for a fixed curve); every number written on a chart, tooltips included, goes through
tutor.numfmt like the rest of the app. The pages show the charts through ui.cached_chart, which
keeps the finished spec per input.

A chart that a learner's input draws anew (a slider step, a typed seed, an edited matrix) is
built as a plain Vega-Lite dict, its data a named dataset: Altair took 10–30 ms to build and
validate each one, a dict a fraction of a millisecond (tests/test_widgets.py checks them against
the Vega-Lite schema). Charts of fixed or rarely changing data stay in Altair.
"""
from __future__ import annotations

import math
from typing import Sequence

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import tutor

from tutor import numfmt

from .handcalc import prob_text
from .validate import format_number, format_tiny
from .widgets import _title_lines, cached_chart, colour_domain, heatmap


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


# A chart as wide as the text column, its axes, legend and labels inside it (ui.widgets.cached_chart
# draws it with width="stretch"): a fixed width plus axes outside cut its right end off on a phone.
FIT_COLUMN = {"width": "container", "autosize": {"type": "fit", "contains": "padding"}}
LEGEND_BELOW = {"orient": "bottom", "direction": "vertical", "title": None}   # one entry a line: never cut


def prob_bars(probs, labels: Sequence[str], *, title: str = "", highlight: Sequence[int] = (),
              value_title: str = "確率") -> dict:
    """Horizontal bars of a distribution over tokens, the value printed next to each bar;
    ``highlight``: token ids drawn in the accent colour (kept / chosen). A Vega-Lite dict: ⑦-4's
    temperature slider draws a new one at every step (Altair took ≈ 15 ms to build and validate)."""
    p = np.asarray(probs, dtype=np.float64)
    kept = {int(h) for h in highlight}
    df = pd.DataFrame({
        "token": list(labels),
        "prob": p,
        "text": [format_number(v, 3) for v in p],
        "mark": ["選ばれうる" if i in kept else "対象外" for i in range(p.size)],
    })
    axes = {"y": {"field": "token", "type": "nominal", "sort": list(labels), "title": None},
            "x": {"field": "prob", "type": "quantitative", "title": value_title, "scale": {"domain": [0, 1]}}}
    color = ({"field": "mark", "type": "nominal", "title": None,
              "scale": {"domain": ["選ばれうる", "対象外"], "range": ["#2E6F9E", "#b0b0b0"]}}
             if len(highlight) else {"value": "#2E6F9E"})
    bars = {"mark": {"type": "bar"}, "encoding": {**axes, "color": color, "tooltip": [
        {"field": "token", "type": "nominal"}, {"field": "text", "type": "nominal"}]}}
    text = {"mark": {"type": "text", "align": "left", "dx": 4},
            "encoding": {**axes, "text": {"field": "text", "type": "nominal"}}}
    bars["title"] = text["title"] = title
    # as wide as the column, the height including title and axes (autosize "fit")
    return {"data": {"name": "bars"}, "datasets": {"bars": df}, "layer": [bars, text],
            "height": 100 + 36 * len(labels), **FIT_COLUMN}


def cost_chart(ns, curves: dict, labels: dict, *, crossover: int, n_mark: int | None = None,
               marks: dict | None = None, title: str = "") -> dict:
    """Operations per layer against the sequence length n, both axes on a log scale (a
    Vega-Lite dict: ⑦-5's try-it draws a new one for every n and d; Altair took ≈ 27 ms).

    curves: {layer_type: (len(ns),) counts}; labels: {layer_type: 日本語名};
    crossover: n where the two main curves cross (a vertical rule);
    marks: {layer_type: count at n_mark} drawn as points at n_mark.
    """
    records = []
    for key, values in curves.items():
        for n, v in zip(ns, values):
            records.append({"n": int(n), "ops": float(v), "層": labels[key],
                            "text": numfmt.grouped(v)})
    order = [labels[k] for k in curves]
    palette = ["#d1495b", "#2E6F9E", "#66a182", "#edae49"]
    color = {"field": "層", "type": "nominal", "sort": order, "legend": {"title": None, "orient": "bottom"},
             "scale": {"domain": order, "range": palette[:len(order)]}}
    tooltip = [{"field": "層", "type": "nominal"}, {"field": "n", "type": "quantitative"},
               {"field": "text", "type": "nominal", "title": "演算量"}]
    n_q = {"field": "n", "type": "quantitative"}
    lines = {"data": {"name": "curves"}, "mark": {"type": "line"}, "title": title, "encoding": {
        "x": {**n_q, "scale": {"type": "log"}, "title": "系列長 n（対数目盛）"},
        "y": {"field": "ops", "type": "quantitative", "scale": {"type": "log"}, "title": "層ごとの演算量（対数目盛）"},
        "color": color, "tooltip": tooltip}}
    rule_df = pd.DataFrame({"n": [int(crossover)], "label": [f"交差点 n = d = {int(crossover):,}"]})
    rule = {"data": {"name": "crossover"}, "mark": {"type": "rule", "strokeDash": [6, 4], "color": "#888"},
            "encoding": {"x": n_q}}
    # the label on the side of the rule with more room (a phone-wide chart clips what crosses its edge)
    right_half = math.log(max(crossover, 1)) > math.log(max(min(ns), 1) * max(max(ns), 1)) / 2
    rule_text = {"data": {"name": "crossover"},
                 "mark": {"type": "text", "align": "right" if right_half else "left", "dx": -4 if right_half else 4,
                          "dy": -6},
                 "encoding": {"x": n_q, "y": {"value": 12}, "text": {"field": "label", "type": "nominal"}}}
    layers = [lines, rule, rule_text]
    datasets = {"curves": pd.DataFrame.from_records(records), "crossover": rule_df}
    if n_mark is not None and marks:
        datasets["marks"] = pd.DataFrame({
            "n": [int(n_mark)] * len(marks), "ops": [float(v) for v in marks.values()],
            "層": [labels[k] for k in marks], "text": [numfmt.grouped(v) for v in marks.values()]})
        layers.append({"data": {"name": "marks"}, "mark": {"type": "point", "size": 80, "filled": True},
                       "encoding": {"x": n_q, "y": {"field": "ops", "type": "quantitative"}, "color": color,
                                    "tooltip": tooltip}})
    return {"datasets": datasets, "layer": layers, "height": 440}   # autosize "fit": includes title, axes, legend


# ---------------------------------------------------------------------------
# small heatmaps that stand side by side in st.columns (⑤ heads, ⑥ masks)
# ---------------------------------------------------------------------------
def small_heatmap(matrix, rows, cols, title: str, digits: int = 3,
                  domain: tuple[float, float] | None = None, x_title: str = "キー", y_title: str = "クエリ") -> None:
    """A heatmap narrow enough to stand next to others in st.columns."""
    heatmap(matrix, rows, cols, title=title, x_title=x_title, y_title=y_title, digits=digits, small=True,
            domain=domain)


def shared_domain(*matrices) -> tuple[float, float]:
    """One colour range for heatmaps that are compared: the range of all their finite cells."""
    return colour_domain(np.concatenate([np.asarray(m, dtype=np.float64).ravel() for m in matrices]))


def side_by_side(parts, *, digits: int = 3, x_title: str = "キー", y_title: str = "クエリ", per_row: int = 2) -> None:
    """Heatmaps compared next to each other, ``per_row`` to a row of st.columns, all on ONE colour
    range (the same colour is the same value in each; on a phone the columns stack). ``parts``:
    (matrix, row labels, column labels, title) per heatmap."""
    parts = list(parts)
    domain = shared_domain(*(m for m, *_ in parts))
    for start in range(0, len(parts), per_row):
        for column, (matrix, rows, cols, title) in zip(st.columns(per_row), parts[start:start + per_row]):
            with column:
                small_heatmap(matrix, rows, cols, title, digits=digits, domain=domain, x_title=x_title,
                              y_title=y_title)


# ---------------------------------------------------------------------------
# ③ softmax saturation and the spread of q·k
# ---------------------------------------------------------------------------


def spread_chart(exp) -> dict:
    """Measured standard deviation of q·k next to √d_k, per d_k (exp: tutor.scaling.SpreadExperiment;
    a Vega-Lite dict: every seed the learner types draws a new one)."""
    values = list(exp.raw_std) + list(exp.theory_std)
    df = pd.DataFrame({
        "d_k": [str(d) for d in exp.d_ks] * 2,
        "系列": ["測定した標準偏差"] * len(exp.d_ks) + ["√d_k（理論）"] * len(exp.d_ks),
        "値": values,
        "表示": [numfmt.fixed(v, 2) for v in values],
    })
    return {"title": "内積 q·k のばらつき（標準偏差）", "mark": {"type": "bar"},
            "data": {"name": "spread"}, "datasets": {"spread": df}, "encoding": {
                "x": {"field": "d_k", "type": "nominal", "sort": [str(d) for d in exp.d_ks], "title": "d_k",
                      "axis": {"labelAngle": 0}},
                "xOffset": {"field": "系列", "type": "nominal"},
                "y": {"field": "値", "type": "quantitative", "title": "標準偏差"},
                "color": {"field": "系列", "type": "nominal", "scale": {"scheme": "viridis"},
                          "legend": {"orient": "bottom", "title": None}},
                "tooltip": [{"field": "d_k", "type": "nominal"}, {"field": "系列", "type": "nominal"},
                            {"field": "表示", "type": "nominal", "title": "値"}]},
            "width": 260, "height": 220, "autosize": {"type": "pad"}}


_VIRIDIS_LEGEND = {"scale": {"scheme": "viridis"}, "legend": {"orient": "bottom", "title": None}}


def _saturation_rows(points) -> list[dict]:
    """One row per tutor.scaling.SaturationPoint and series (largest weight, gradient size)."""
    return [{"倍率 c": float(p.factor), "系列": name, "値": float(v), "表示": numfmt.fixed(v, 5)}
            for name, attr in (("最大の重み", "max_weight"), ("勾配の大きさ", "gradient"))
            for p in points for v in (getattr(p, attr),)]


SATURATION_READOUT = "最大の重み ="     # the readout line a browser test and the benchmark look for


def _row_text(values) -> str:
    """(4, 2, 0) for whole numbers, else one decimal — as ③ prints the scores c·s."""
    digits = 0 if all(float(v).is_integer() for v in values) else 1
    return "(" + ", ".join(format_number(float(v), digits) for v in values) + ")"


def saturation_explorer(scores, labels: Sequence[str]) -> dict:
    """③'s 試してみよう as one Vega-Lite dict: softmax(c·s) for every factor c of the slider
    (tutor.scaling.saturation_curve), with the slider drawn by Vega itself (a param bound to a
    range input). Moving it filters the data in the browser: no round trip, and the charts follow
    the thumb while it is dragged. Every number is computed by the engine and written by the app's
    formatter here; the browser only picks the rows of the current c.

    Top to bottom: the readout (softmax(c·s) ≈ a, the largest weight, the gradient size), the
    weights as bars, and the largest weight and the gradient size against c (lines, a dashed rule
    and a point on each line at the current c). Stacked, not side by side, so that it fits a
    390 px phone; drawn as SVG, so that the readout is text a screen reader can read (in the
    theme's text colour: ui.widgets.themed)."""
    scores = tuple(float(v) for v in np.ravel(scores))
    points = tutor.scaling.saturation_curve(np.asarray(scores))
    factors = [float(p.factor) for p in points]
    readout = [{"倍率 c": float(p.factor), "読み": "\n".join((
        f"softmax{_row_text(p.scores)}",
        "≈ (" + ", ".join(prob_text(w) for w in p.weights) + ")",
        f"{SATURATION_READOUT} {prob_text(p.max_weight)}",
        f"勾配の大きさ max|∂a/∂s| = {prob_text(p.gradient)}"))} for p in points]
    bars = [{"倍率 c": float(p.factor), "キー": k, "重み": float(w), "表示": prob_text(w)}
            for p in points for k, w in zip(labels, p.weights)]
    at_c = [{"filter": "datum['倍率 c'] == c"}]
    encoding = {"x": {"field": "倍率 c", "type": "quantitative"},
                "y": {"field": "値", "type": "quantitative", "scale": {"domain": [0, 1]}},
                "color": {"field": "系列", "type": "nominal", **_VIRIDIS_LEGEND},
                "tooltip": [{"field": "倍率 c", "type": "quantitative"}, {"field": "系列", "type": "nominal"},
                            {"field": "表示", "type": "nominal", "title": "値"}]}
    return {
        "params": [{"name": "c", "value": 1.0,
                    "bind": {"input": "range", "min": factors[0], "max": factors[-1],
                             "step": factors[1] - factors[0], "name": "スコアの倍率 c "}}],
        "usermeta": {"embedOptions": {"renderer": "svg"}},
        "datasets": {"readout": pd.DataFrame(readout), "bars": pd.DataFrame(bars),
                     "curve": pd.DataFrame(_saturation_rows(points))},
        "vconcat": [
            {"data": {"name": "readout"}, "transform": at_c, "width": 280, "height": 70,
             "mark": {"type": "text", "align": "left", "baseline": "top", "x": 0, "y": 0, "fontSize": 14,
                      "lineBreak": "\n", "lineHeight": 18},
             "encoding": {"text": {"field": "読み", "type": "nominal"}}},
            {"data": {"name": "bars"}, "transform": at_c, "title": "重み", "width": 280, "height": 150,
             "mark": {"type": "bar", "color": "#2E6F9E"},
             "encoding": {"x": {"field": "キー", "type": "nominal", "sort": list(labels), "axis": {"labelAngle": 0}},
                          "y": {"field": "重み", "type": "quantitative", "scale": {"domain": [0, 1]}},
                          "tooltip": [{"field": "キー", "type": "nominal"},
                                      {"field": "表示", "type": "nominal", "title": "重み"}]}},
            {"data": {"name": "curve"}, "title": "倍率 c を大きくすると", "width": 280, "height": 180,
             "layer": [{"mark": {"type": "line"}, "encoding": encoding},
                       {"transform": at_c, "mark": {"type": "rule", "strokeDash": [4, 4], "color": "#888"},
                        "encoding": {"x": {"field": "倍率 c", "type": "quantitative"}}},
                       {"transform": at_c, "mark": {"type": "point", "filled": True, "size": 70},
                        "encoding": encoding}]}],
        "autosize": {"type": "pad"}}


def temperature_explorer(logits, labels: Sequence[str], temperatures=tutor.output.TRY_TEMPERATURES) -> dict:
    """⑦-4's 温度を動かす as one Vega-Lite dict, the lever of saturation_explorer: softmax(z / T)
    for every temperature of the slider (tutor.output.temperature_table), the slider drawn by Vega
    (a param bound to a range input), so that a step picks rows in the browser with no round trip.

    Top to bottom: the readout (T, z / T and softmax(z / T), written by the app's formatter, a
    probability below 10⁻³ as 4.5×10⁻⁵), then one bar per token with its probability printed beside
    it. SVG, so that the readout is text a screen reader can read."""
    rows = tutor.output.temperature_table(logits, temperatures)
    readout = [{"T": r.temperature, "読み": "\n".join((
        f"T = {format_number(r.temperature, 1)}",
        "z / T = (" + ", ".join(format_number(v, 2) for v in r.scaled) + ")",
        "softmax(z / T) = (" + ", ".join(format_tiny(v, 3) for v in r.probs) + ")"))} for r in rows]
    bars = [{"T": r.temperature, "トークン": k, "確率": float(p), "表示": format_tiny(p, 3)}
            for r in rows for k, p in zip(labels, r.probs)]
    at_t = [{"filter": "abs(datum['T'] - T) < 1e-6"}]     # (the range input's 0.3 is the data's 0.3)
    axes = {"y": {"field": "トークン", "type": "nominal", "sort": list(labels), "title": None},
            "x": {"field": "確率", "type": "quantitative", "title": "確率", "scale": {"domain": [0, 1]}}}
    return {
        "params": [{"name": "T", "value": 1.0,
                    "bind": {"input": "range", "min": temperatures[0], "max": temperatures[-1],
                             "step": round(temperatures[1] - temperatures[0], 6), "name": "温度 T "}}],
        "usermeta": {"embedOptions": {"renderer": "svg"}},
        "datasets": {"readout": pd.DataFrame(readout), "bars": pd.DataFrame(bars)},
        "vconcat": [
            {"data": {"name": "readout"}, "transform": at_t, "width": 280, "height": 56,
             "mark": {"type": "text", "align": "left", "baseline": "top", "x": 0, "y": 0, "fontSize": 14,
                      "lineBreak": "\n", "lineHeight": 18},
             "encoding": {"text": {"field": "読み", "type": "nominal"}}},
            {"data": {"name": "bars"}, "transform": at_t, "title": "softmax(z / T)：次のトークンの確率",
             "width": 240, "height": 36 * len(labels),
             "layer": [{"mark": {"type": "bar", "color": "#2E6F9E"},
                        "encoding": {**axes, "tooltip": [{"field": "トークン", "type": "nominal"},
                                                         {"field": "表示", "type": "nominal", "title": "確率"}]}},
                       {"mark": {"type": "text", "align": "left", "dx": 4},
                        "encoding": {**axes, "text": {"field": "表示", "type": "nominal"}}}]}],
        "autosize": {"type": "pad"}}


# ---------------------------------------------------------------------------
# ⑦-2 activation functions
# ---------------------------------------------------------------------------
def activation_chart() -> alt.Chart:
    """ReLU, GELU and SiLU on [−3, 3] (fixed data: built once, then served from the cache)."""
    xs = np.linspace(-3.0, 3.0, 61)
    ys = np.concatenate([tutor.block.relu(xs), tutor.block.gelu(xs), tutor.block.silu(xs)])
    act_df = pd.DataFrame({"x": np.tile(xs, 3), "y": ys, "関数": np.repeat(["ReLU", "GELU", "SiLU"], xs.size),
                           "x の値": [numfmt.fixed(v, 2) for v in np.tile(xs, 3)],
                           "y の値": [numfmt.fixed(v, 3) for v in ys]})
    return alt.Chart(act_df).mark_line().encode(
        x=alt.X("x:Q"), y=alt.Y("y:Q"), color=alt.Color("関数:N", sort=["ReLU", "GELU", "SiLU"]),
        tooltip=["関数", alt.Tooltip("x の値:N", title="x"), alt.Tooltip("y の値:N", title="y")],
    ).properties(height=260)


# ---------------------------------------------------------------------------
# ⑧ training curves
# ---------------------------------------------------------------------------
def training_curve_chart(steps, loss, acc, title: str) -> alt.Chart:
    """Loss and training accuracy against the step."""
    values = [float(v) for v in loss] + [float(v) for v in acc]
    df = pd.DataFrame({"ステップ": [int(s) for s in steps] * 2,
                       "系列": ["損失"] * len(steps) + ["正解率（訓練）"] * len(steps),
                       "値": values, "表示": [numfmt.fixed(v, 3) for v in values]})
    return alt.Chart(df, title=title).mark_line().encode(
        x=alt.X("ステップ:Q"), y=alt.Y("値:Q", title="損失 / 正解率"),
        color=alt.Color("系列:N", scale=alt.Scale(scheme="viridis"), legend=alt.Legend(**LEGEND_BELOW)),
        tooltip=["ステップ", "系列", alt.Tooltip("表示:N", title="値")],
    ).properties(width="container", height=220, autosize=alt.AutoSizeParams(type="fit", contains="padding"))


def compare_runs_chart(steps_per_run, values_per_run, labels: Sequence[str], title: str, y_title: str,
                       log: bool = False) -> alt.Chart:
    """One line per run (the same quantity of two training runs against the step)."""
    frames = [pd.DataFrame({"ステップ": [int(s) for s in steps], "実行": label,
                            "値": [float(v) for v in values], "表示": [numfmt.significant(v, 3) for v in values]})
              for steps, values, label in zip(steps_per_run, values_per_run, labels)]
    df = pd.concat(frames, ignore_index=True)
    scale = alt.Scale(type="log") if log else alt.Scale()
    return alt.Chart(df, title=title).mark_line().encode(
        x="ステップ:Q", y=alt.Y("値:Q", title=y_title, scale=scale),
        color=alt.Color("実行:N", scale=alt.Scale(scheme="viridis"), legend=alt.Legend(**LEGEND_BELOW)),
        tooltip=["ステップ", "実行", alt.Tooltip("表示:N", title="値")],
    ).properties(width="container", height=200, autosize=alt.AutoSizeParams(type="fit", contains="padding"))


# ---------------------------------------------------------------------------
# mock exams (home and 模擬試験)
# ---------------------------------------------------------------------------
def exam_history_chart(rows: Sequence[dict]) -> alt.Chart:
    """正答率 (%) of every finished mock exam (practice.exam.history_rows), one point per exam."""
    df = pd.DataFrame(list(rows))
    df["正答率の表示"] = [numfmt.fixed(v, 0) for v in df["正答率"]]
    return alt.Chart(df).mark_line(point=alt.OverlayMarkDef(size=70), color="#2E6F9E").encode(
        x=alt.X("回:O", title="回", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("正答率:Q", scale=alt.Scale(domain=[0, 100]), title=None),
        tooltip=["回", "日時", "得点", alt.Tooltip("正答率の表示:N", title="正答率"), "所要時間"],
    ).properties(height=220, title=alt.TitleParams("正答率（%）の推移", anchor="start", fontSize=13))


def exam_topic_chart(rows: Sequence[dict]) -> alt.LayerChart:
    """Per-topic score of one mock exam: a bar of 正答率 (%) in a 100 % track, the score inside it."""
    df = pd.DataFrame([{"トピック": r["label"], "正答率": r["percent"], "正答率の表示": numfmt.fixed(r["percent"], 0),
                        "得点": f"{r['correct']}/{r['total']}"} for r in rows])
    order = [r["label"] for r in rows]
    base = alt.Chart(df).encode(
        y=alt.Y("トピック:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
        x=alt.X("正答率:Q", scale=alt.Scale(domain=[0, 100]), title="正答率（%）"),
        tooltip=["トピック", "得点", alt.Tooltip("正答率の表示:N", title="正答率")],
    )
    full = base.mark_bar(color="#9e9e9e", opacity=0.18).encode(x=alt.datum(100))  # the 100 % track
    bars = base.mark_bar(color="#2E6F9E")
    text = base.mark_text(align="right", dx=-4).encode(x=alt.datum(100), text="得点:N")  # inside the track
    return (full + bars + text).properties(height=alt.Step(28))


# ---------------------------------------------------------------------------
# ⑨ BERT's masking draw and ViT's patch grid
# ---------------------------------------------------------------------------
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
              title: str = "") -> dict:
    """A strip of cells, one per token (wrapped every 6 tokens for a phone): the input the model
    sees written in each cell, the colour telling what the masking did there (a Vega-Lite dict:
    a new one for every seed the learner draws; Altair took ≈ 24 ms)."""
    df = mlm_frame(tokens, masked, actions)
    per_row = 6
    df["行"] = df["位置"] // per_row
    df["列"] = df["位置"] % per_row
    n_rows = int(df["行"].max()) + 1
    cell = {"x": {"field": "列", "type": "ordinal", "axis": None}, "y": {"field": "行", "type": "ordinal", "axis": None}}
    rect = {"mark": {"type": "rect", "stroke": "#666", "strokeWidth": 0.8}, "title": _title_lines(title), "encoding": {
        **cell,
        "color": {"field": "処理", "type": "nominal", "scale": {"domain": _ACTION_ORDER, "range": _ACTION_COLOURS},
                  "legend": {"title": None, "orient": "bottom", "columns": 2}},
        "tooltip": [{"field": "位置", "type": "ordinal"}, {"field": "元のトークン", "type": "nominal"},
                    {"field": "モデルが見る入力", "type": "nominal"}, {"field": "処理", "type": "nominal"}]}}
    text = {"mark": {"type": "text", "fontSize": 12, "color": "#111111"}, "title": _title_lines(title),   # on the cells
            "encoding": {**cell, "text": {"field": "モデルが見る入力", "type": "nominal"}}}
    return {"data": {"name": "tokens"}, "datasets": {"tokens": df}, "layer": [rect, text],
            "width": per_row * 52, "height": n_rows * 40, "autosize": {"type": "pad"}}


def patch_grid_chart(index, *, title: str = "") -> dict:
    """The image cut into patches: one cell per patch with its token number (1 … N, row by row);
    numbers are written only when the grid is small enough to read them (a Vega-Lite dict: a
    new one for every image and patch size the learner sets; Altair took ≈ 14 ms)."""
    idx = np.asarray(index)
    rows, cols = idx.shape
    df = pd.DataFrame({"行": np.repeat(np.arange(rows), cols), "列": np.tile(np.arange(cols), rows),
                       "トークン番号": idx.ravel()})
    size = max(6, min(36, 300 // max(rows, cols)))
    cell = {"x": {"field": "列", "type": "ordinal", "axis": {"title": "横のパッチ", "labelOverlap": True, "labelAngle": 0}},
            "y": {"field": "行", "type": "ordinal", "axis": {"title": "縦のパッチ", "labelOverlap": True}}}
    layers = [{"mark": {"type": "rect", "stroke": "#fff", "strokeWidth": 1 if size >= 10 else 0.3},
               "title": _title_lines(title), "encoding": {
                   **cell,
                   "color": {"field": "トークン番号", "type": "quantitative", "scale": {"scheme": "viridis"},
                             "legend": {"title": "トークン番号", "orient": "bottom", "gradientLength": 160}},
                   "tooltip": [{"field": "行", "type": "ordinal"}, {"field": "列", "type": "ordinal"},
                               {"field": "トークン番号", "type": "quantitative"}]}}]
    if size >= 24:
        layers.append({"mark": {"type": "text", "fontSize": 10, "color": "#fff"}, "title": _title_lines(title),
                       "encoding": {**cell, "text": {"field": "トークン番号", "type": "quantitative"}}})
    return {"data": {"name": "patches"}, "datasets": {"patches": df}, "layer": layers,
            "width": size * cols, "height": size * rows, "autosize": {"type": "pad"}}


# ---------------------------------------------------------------------------
# lines with labelled points (⑧'s learning-rate schedule and smoothed loss, ⑩'s scaling curves)
# ---------------------------------------------------------------------------
def lines_chart(x_title: str, y_title: str, series: tuple, marks: tuple = (), *, title: str,
                y_format: str | None = None, log: bool = False) -> dict:
    """Lines (a Vega-Lite dict for cached_chart): ``series`` = ((name, xs, ys), …); ``marks`` =
    ((label, x, y), …) drawn as labelled points; ``y_format``: the d3 format of the y labels;
    ``log``: both axes logarithmic (x labelled 1e+3 …) with a point at each value. Tooltips show
    numbers written by tutor.numfmt."""
    rows = [{"x": float(x), "y": float(y), "系列": name, "表示": numfmt.significant(y, 3)}
            for name, xs, ys in series for x, y in zip(xs, ys)]
    scale = {"scale": {"type": "log"}} if log else {}
    x_axis = {"format": ".0e", "labelOverlap": True} if log else {"labelOverlap": True}
    y_axis = {"format": y_format, "labelOverlap": True} if y_format else {"labelOverlap": True}
    enc = {"x": {"field": "x", "type": "quantitative", **scale, "title": x_title, "axis": x_axis},
           "y": {"field": "y", "type": "quantitative", **scale, "title": y_title, "axis": y_axis}}
    layers = [{"data": {"name": "lines"}, "mark": {"type": "line", "point": log},
               "encoding": {**enc, "color": {"field": "系列", "type": "nominal", "legend": LEGEND_BELOW},
                            "tooltip": [{"field": "系列", "type": "nominal"}, {"field": "x", "type": "quantitative", "title": x_title},
                                        {"field": "表示", "type": "nominal", "title": y_title}]}}]
    datasets = {"lines": pd.DataFrame(rows)}
    if marks:
        # a point's name goes to its right, or to its left in the right half (it would leave the chart)
        xs = [float(x) for _, x_s, _ in series for x in x_s] + [float(x) for _, x, _ in marks]
        where = (lambda v: np.log10(v)) if log else (lambda v: v)
        mid = (where(min(xs)) + where(max(xs))) / 2
        datasets["marks"] = pd.DataFrame([{"x": float(x), "y": float(y), "名前": label, "左": where(float(x)) > mid}
                                          for label, x, y in marks])
        layers += [{"data": {"name": "marks"}, "mark": {"type": "point", "filled": True, "size": 80, "color": "#d1495b"},
                    "encoding": enc}]
        layers += [{"data": {"name": "marks"}, "transform": [{"filter": f"{'' if left else '!'}datum['左']"}],
                    "mark": {"type": "text", "dx": -6 if left else 6, "align": "right" if left else "left",
                             "baseline": "bottom"},
                    "encoding": {**enc, "text": {"field": "名前", "type": "nominal"}}} for left in (False, True)]
    # as wide as the column, axes and legend inside it: a phone's 358 px column cut the right end off
    return {"title": title, "datasets": datasets, "layer": layers, "height": 300, **FIT_COLUMN}


# ---------------------------------------------------------------------------
# ⓪-1: word vectors on a plane (the analogy a : b = c : ?)
# ---------------------------------------------------------------------------
def word_map_chart(words: Sequence[str], vectors, target=None, *, target_label: str = "t",
                   offsets: tuple = (), x_title: str, y_title: str, title: str) -> dict:
    """2-D word vectors (a Vega-Lite dict for cached_chart): a ray from the origin to each word (the
    cosine compares these directions) and its label; ``target``: one more point drawn apart (the
    vector a − b + c of an analogy); ``offsets``: ((x, y, x2, y2), …) dashed arrows (the same offset
    b − a drawn from a and from c). Coordinates in tooltips are written by tutor.numfmt."""
    v = np.asarray(vectors, dtype=np.float64)
    pts = [{"x": float(x), "y": float(y), "語": str(w), "種類": "語", "座標": f"({numfmt.trimmed(x, 2)}, {numfmt.trimmed(y, 2)})"}
           for w, (x, y) in zip(words, v)]
    if target is not None:
        tx, ty = (float(a) for a in target)
        pts.append({"x": tx, "y": ty, "語": target_label, "種類": "計算した点",
                    "座標": f"({numfmt.trimmed(tx, 2)}, {numfmt.trimmed(ty, 2)})"})
    points = pd.DataFrame(pts)
    rays = points.assign(x0=0.0, y0=0.0)
    xs, ys = [0.0, *points["x"]], [0.0, *points["y"]]
    room = {"x": [math.floor(min(xs)) - 1, math.ceil(max(xs)) + 2], "y": [math.floor(min(ys)) - 1, math.ceil(max(ys)) + 1]}
    axis = {"labelOverlap": True, "tickMinStep": 1}                          # whole-number ticks, room for the labels
    enc = {"x": {"field": "x", "type": "quantitative", "title": x_title, "axis": axis,
                 "scale": {"domain": room["x"], "nice": False}},
           "y": {"field": "y", "type": "quantitative", "title": y_title, "axis": axis,
                 "scale": {"domain": room["y"], "nice": False}}}
    colour = {"field": "種類", "type": "nominal", "legend": {"orient": "bottom", "title": None},
              "scale": {"domain": ["語", "計算した点"], "range": ["#3b6ea5", "#d1495b"]}}
    layers = [
        {"data": {"name": "rays"}, "mark": {"type": "rule", "opacity": 0.35},
         "encoding": {**enc, "x2": {"field": "x0"}, "y2": {"field": "y0"}, "color": colour}},
        {"data": {"name": "points"}, "mark": {"type": "point", "filled": True, "size": 70},
         "encoding": {**enc, "color": colour, "tooltip": [{"field": "語", "type": "nominal"},
                                                          {"field": "座標", "type": "nominal"}]}},
        {"data": {"name": "points"}, "mark": {"type": "text", "dx": 7, "align": "left", "baseline": "middle", "fontSize": 13},
         "encoding": {**enc, "text": {"field": "語", "type": "nominal"}}},
    ]
    datasets = {"points": points, "rays": rays}
    if offsets:
        datasets["offsets"] = pd.DataFrame([{"x": float(a), "y": float(b), "x2": float(c), "y2": float(d)}
                                            for a, b, c, d in offsets])
        layers.insert(1, {"data": {"name": "offsets"}, "mark": {"type": "rule", "strokeDash": [5, 4], "color": "#8a6d00"},
                          "encoding": {**enc, "x2": {"field": "x2"}, "y2": {"field": "y2"}}})
    return {"title": _title_lines(title), "datasets": datasets, "layer": layers, "height": 380}   # autosize "fit": in the column


# ---------------------------------------------------------------------------
# labelled points (⑦-6: Table 2's cost against BLEU, Table 3's heads against BLEU)
# ---------------------------------------------------------------------------
def points_chart(points: Sequence[tuple], x_title: str, y_title: str, *, title: str, log_x: bool = False,
                 line: bool = False, x_format: str | None = None, x_ticks: Sequence[float] | None = None) -> dict:
    """Points with a short label each (a Vega-Lite dict for cached_chart, fitted to the column):
    ``points`` = ((label, x, y, group[, below]), …), coloured by group, the label above the point (below
    it when ``below`` is true, so that two neighbours do not overlap); ``log_x``: a logarithmic x axis,
    ``x_ticks`` its tick values; ``line``: the points joined in the order given. Labels and tooltips
    show numbers written by tutor.numfmt."""
    rows = [{"x": float(p[1]), "y": float(p[2]), "名前": p[0], "区分": p[3], "下": bool(p[4]) if len(p) > 4 else False,
             "表示": numfmt.significant(p[2], 3), "横": numfmt.significant(p[1], 2)} for p in points]
    x_axis = {"labelOverlap": True, **({"format": x_format} if x_format else {}), **({"values": list(x_ticks)} if x_ticks else {})}
    enc = {"x": {"field": "x", "type": "quantitative", "title": x_title, "axis": x_axis,
                 "scale": {"type": "log"} if log_x else {"zero": False}},
           "y": {"field": "y", "type": "quantitative", "title": y_title, "scale": {"zero": False},
                 "axis": {"labelOverlap": True}}}
    colour = {"field": "区分", "type": "nominal", "legend": {"orient": "bottom", "title": None, "columns": 2}}
    text = {**enc, "text": {"field": "名前", "type": "nominal"}}
    layers = [{"mark": {"type": "point", "filled": True, "size": 70},
               "encoding": {**enc, "color": colour,
                            "tooltip": [{"field": "名前", "type": "nominal"}, {"field": "横", "type": "nominal", "title": x_title},
                                        {"field": "表示", "type": "nominal", "title": y_title}]}},
              {"transform": [{"filter": "!datum['下']"}], "mark": {"type": "text", "dy": -9, "fontSize": 10}, "encoding": text},
              {"transform": [{"filter": "datum['下']"}], "mark": {"type": "text", "dy": 13, "fontSize": 10}, "encoding": text}]
    if line:
        layers.insert(0, {"mark": {"type": "line", "color": "#888"}, "encoding": enc})
    return {"title": title, "data": {"name": "points"}, "datasets": {"points": pd.DataFrame(rows)}, "layer": layers,
            "height": 320, **FIT_COLUMN}


# ---------------------------------------------------------------------------
# ⑨-2 parameter counts side by side (BERT and ALBERT)
# ---------------------------------------------------------------------------
def stacked_counts(rows: Sequence[tuple[str, str, int]], *, title: str, x_title: str = "パラメータ数") -> dict:
    """Horizontal stacked bars of whole counts: ``rows`` = ((bar, part, count), …), one bar per
    distinct ``bar`` (in the order given), its parts stacked in the order given; each part's count
    (tutor.numfmt.grouped) in the tooltip and each bar's total written after it. A Vega-Lite dict:
    ⑨-2's 試してみよう draws a new one for every size the learner sets."""
    bars = list(dict.fromkeys(r[0] for r in rows))
    parts = list(dict.fromkeys(r[1] for r in rows))
    df = pd.DataFrame({"モデル": [r[0] for r in rows], "部分": [r[1] for r in rows],
                       "数": [int(r[2]) for r in rows], "表示": [numfmt.grouped(r[2]) for r in rows],
                       "順": [parts.index(r[1]) for r in rows]})
    totals = pd.DataFrame({"モデル": bars, "合計": [int(df.loc[df["モデル"] == b, "数"].sum()) for b in bars]})
    totals["表示"] = [numfmt.grouped(t) for t in totals["合計"]]
    y = {"field": "モデル", "type": "nominal", "sort": bars, "title": None}
    room = {"domain": [0, float(totals["合計"].max()) * 1.6]}      # the total written after the longest bar fits
    stack = {"data": {"name": "parts"}, "mark": {"type": "bar"}, "encoding": {
        "y": y, "x": {"field": "数", "type": "quantitative", "stack": "zero", "title": x_title, "scale": room,
                      "axis": {"labelOverlap": True, "format": "~s"}},
        "color": {"field": "部分", "type": "nominal", "sort": parts, "legend": {"orient": "bottom", "title": None}},
        "order": {"field": "順", "type": "quantitative"},
        "tooltip": [{"field": "モデル", "type": "nominal"}, {"field": "部分", "type": "nominal"},
                    {"field": "表示", "type": "nominal", "title": "数"}]}}
    label = {"data": {"name": "totals"}, "mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"y": y, "x": {"field": "合計", "type": "quantitative"},
                          "text": {"field": "表示", "type": "nominal"}}}
    # as wide as the column, the axis, legend and totals inside it (autosize "pad" put them outside a phone's)
    return {"title": _title_lines(title), "datasets": {"parts": df, "totals": totals}, "layer": [stack, label],
            "height": 180 + 44 * len(bars), **FIT_COLUMN}

