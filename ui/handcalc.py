"""Rendering the engine's hand-calculation steps (tutor.handcalc): one st.latex per row of a matrix
(its elements stacked, each line-broken for a phone), one expander per matrix so that a phone
screen is not flooded with formulas — drawn only while open (ui.widgets.lazy_expander). The LaTeX
of a step depends only on its text, so the line breaking is memoised (the same numbers come back
on every rerun)."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

import numpy as np
import streamlit as st

from .validate import format_number, format_tiny
from .widgets import lazy_expander, show_matrix

PENCIL_DECIMALS = 3
# what an exact-mode step says about its numbers (the displayed terms need not add up in the last place)
EXACT_NOTE = ("丸めずに計算した値を、表示だけ小数第 4 位まで（第 5 位を四捨五入）にしています。"
              "表示された数で計算し直すと、最後の桁がずれることがあります。")
LINE_CHARS = 30  # width units that fit on one line of a 390 px phone at st.latex's font size (~9.5 px each)


@lru_cache(maxsize=8192)  # pure function of a short string
def _visible_len(tex: str) -> int:
    """Rough width of a LaTeX snippet in character units: a fraction counts as its wider part,
    a binary operator or relation (+ × = ≈) as 3 (KaTeX puts space around it)."""
    t = re.sub(r"\\frac\{((?:[^{}]|\{[^{}]*\})*)\}\{((?:[^{}]|\{[^{}]*\})*)\}",
               lambda m: max(m.group(1), m.group(2), key=len), tex)
    t = re.sub(r"\\(times|approx)|[+=]", "ooo", t)
    t = re.sub(r"\\infty", "o", t)
    t = re.sub(r"\\[a-zA-Z]+|\\[,;!]|[{}^_ &]", "", t)
    return len(t)


def fit(label: str, parts, tail: str, width: int = LINE_CHARS) -> str:
    """``label = p1 + p2 + … tail`` on one line if it is short, else broken into aligned lines."""
    return _fit(label, tuple(parts), tail, width)


@lru_cache(maxsize=4096)  # pure function of its strings; a page shows at most a few hundred steps
def _fit(label: str, parts: tuple[str, ...], tail: str, width: int) -> str:
    one = f"{label} = {' + '.join(parts)} {tail}".strip()
    if _visible_len(one) <= width or not parts:
        return one
    lines = [f"{label} &= {parts[0]}"]
    for part in parts[1:]:
        if _visible_len(lines[-1]) + _visible_len(part) + 1 <= width:
            lines[-1] += f" + {part}"
        else:
            lines.append(rf"&\quad + {part}")
    if tail:
        if _visible_len(lines[-1]) + _visible_len(tail) <= width:
            lines[-1] += f" {tail}"
        else:
            lines.append(f"&{tail}")
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


def fit_list(items, width: int = LINE_CHARS) -> str:
    """Items separated by commas, wrapped onto several centred lines when needed."""
    lines = [""]
    for item in items:
        if lines[-1] and _visible_len(lines[-1]) + _visible_len(item) + 1 > width:
            lines.append("")
        lines[-1] += (r",\quad " if lines[-1] else "") + item
    return lines[0] if len(lines) == 1 else r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"


def element_latex(elem) -> str:
    """One tutor.handcalc.ElementStep, line-broken for narrow screens."""
    return fit(elem.label, elem.parts, elem.tail) if elem.parts else elem.latex


def stack(texs: Sequence[str]) -> str:
    """Several formulas as ONE display block, one under the other (one st.latex instead of many:
    each element costs the page a rerun message of its own)."""
    texs = list(texs)
    if not texs:
        return ""
    return texs[0] if len(texs) == 1 else r"\begin{gathered}" + r" \\[10pt] ".join(texs) + r"\end{gathered}"


def softmax_row_latex(row) -> list[str]:
    """The exponentials, the denominator, then each weight of a tutor.handcalc.SoftmaxRowStep."""
    out = [fit_list(row.exp_parts) if row.exp_parts else row.exp_latex,
           fit(r"\text{分母}", row.total_parts, row.total_tail) if row.total_parts
           else r"\text{分母} = " + row.total_latex]
    return out + [element_latex(e) for e in row.elements]


def rounding_toggle(key: str, *, default: bool = True) -> int | None:
    """The exact ↔ pencil switch. Returns 3 (pencil: round to 3 decimals as the textbook does)
    or None (exact). The choice survives page switches."""
    on = st.toggle("鉛筆モード：途中の値を小数第 3 位まで（第 4 位を四捨五入）求めながら計算する（教科書と同じ）", value=default,
                   key=key, persist_state="session",
                   help="オフにすると丸めずに計算した正確な値（小数第 4 位まで表示）になります。")
    return PENCIL_DECIMALS if on else None


def digits_of(decimals: int | None) -> int:
    """How many decimals to print for a stepper result (exact mode prints 4)."""
    return 4 if decimals is None else decimals


def _row_caption(label: str) -> None:
    st.markdown(f"**{label} の行**")


def matrix_steps(ms, *, key: str, title: str | None = None, expanded: bool = False,
                 show_result: bool = True) -> None:
    """Every element of a tutor.handcalc.MatrixSteps, grouped by row, inside one expander (drawn
    only while open: ui.widgets.lazy_expander, ``key`` names it on the page)."""
    rows, cols = len(ms.elements), len(ms.elements[0]) if ms.elements else 0
    head = title or f"${ms.name}$ の全要素"

    def draw() -> None:
        if ms.formula:
            st.latex(ms.formula)
        if ms.note:
            st.latex(ms.note)
        if ms.decimals is None and not _all_int(ms.result):
            st.caption(EXACT_NOTE)
        for label, row in zip(ms.row_labels or [str(i + 1) for i in range(rows)], ms.elements):
            _row_caption(label)
            st.latex(stack([element_latex(elem) for elem in row]))
        if show_result:
            show_matrix(ms.result, ms.row_labels or None, ms.col_labels or None,
                        digits=0 if _all_int(ms.result) else digits_of(ms.decimals),
                        caption=f"結果（{rows}×{cols}）")

    lazy_expander(f"{head}（{rows}×{cols}）", draw, key=key, expanded=expanded)


def _all_int(matrix) -> bool:
    return all(float(v).is_integer() for v in np.asarray(matrix, dtype=np.float64).ravel())


def auto_digits(matrix, digits: int = 3) -> int:
    """0 decimals for a matrix of whole numbers (the textbook prints 2, not 2.000), else ``digits``."""
    return 0 if _all_int(matrix) else digits


def softmax_steps(ss, *, key: str, title: str | None = None, expanded: bool = False,
                  show_result: bool = True) -> None:
    """Each softmax row of a tutor.handcalc.SoftmaxSteps: exponentials, their sum, every weight
    (in an expander drawn only while open)."""
    def draw() -> None:
        st.latex(ss.formula)
        for row in ss.rows:
            _row_caption(row.label)
            st.latex(stack(softmax_row_latex(row)))
        if show_result:
            show_matrix(ss.result, [r.label for r in ss.rows], [r.label for r in ss.rows]
                        if len(ss.rows) == len(ss.rows[0].weights) else None,
                        digits=digits_of(ss.decimals), caption="注意の重み A（各行の合計が 1）")

    lazy_expander(title or f"${ss.name}$：行ごとの softmax", draw, key=key, expanded=expanded)


def weighted_sums(sums, row_labels: Sequence[str], *, key: str, title: str = "出力 Z：バリューの重み付き和",
                  expanded: bool = False) -> None:
    """z_i = Σ_j a_ij v_j as a sum of vectors, then each component expanded (in an expander drawn
    only while open)."""
    def draw() -> None:
        for label, ws in zip(row_labels, sums):
            _row_caption(label)
            st.latex(stack([fit(ws.label, ws.parts, ws.tail) if ws.parts else ws.latex]
                           + [element_latex(elem) for elem in ws.components]))

    lazy_expander(title, draw, key=key, expanded=expanded)


def hand_calculation(hc, *, key: str, expanded_last: bool = True) -> None:
    """The whole chain of tutor.handcalc.HandCalculation: Q, K, V, QKᵀ, ÷√d_k, softmax, Z
    (expanders ``key``_q … ``key``_z)."""
    matrix_steps(hc.q, key=f"{key}_q", title="① $Q = XW_Q$（クエリ）")
    matrix_steps(hc.k, key=f"{key}_k", title="② $K = XW_K$（キー）")
    matrix_steps(hc.v, key=f"{key}_v", title="③ $V = XW_V$（バリュー）")
    matrix_steps(hc.scores, key=f"{key}_s", title=r"④ スコア $S = QK^\top$（成分 $s_{ij}$）")
    matrix_steps(hc.scaled, key=f"{key}_scaled", title=r"⑤ $\sqrt{d_k}$ で割る → $\tilde{S}$（成分 $\tilde{s}_{ij}$）")
    softmax_steps(hc.softmax, key=f"{key}_a", title=r"⑥ $\tilde{S}$ の行ごとに softmax → 重み $A$")
    weighted_sums(hc.weighted_sums, hc.tokens, key=f"{key}_z", title="⑦ 出力 $Z = AV$（バリューの重み付き和）",
                  expanded=expanded_last)
    show_matrix(hc.z, hc.tokens, [f"z{j + 1}" for j in range(hc.z.shape[1])], digits=digits_of(hc.decimals),
                caption="出力 Z（1 行 = 1 トークンの新しいベクトル）")


def number(x: float, decimals: int | None) -> str:
    """A stepper number for prose (3 decimals in pencil mode, 4 in exact mode)."""
    return format_number(x, digits_of(decimals))


def vector(values, digits: int = 3, *, tex: bool = False) -> str:
    """(0.212, 0.212, 0.576) — a row printed for prose (any array: its entries in order);
    ``tex``: with LaTeX spaces after the commas, (0.212,\\ 0.212,\\ 0.576), for st.latex."""
    sep = ",\\ " if tex else ", "
    return "(" + sep.join(format_number(float(v), digits) for v in np.ravel(values)) + ")"


def prob_text(p: float) -> str:
    """A probability that may be tiny, as plain text for tables and metrics: 0.99995, 0.00034,
    and below 10⁻⁴ 4.5×10⁻⁵ (ui.validate.format_tiny: never the programmer's "e-5")."""
    return format_tiny(p, 5, below=1e-4)


def show_elements(elems) -> None:
    """st.latex for each tutor.handcalc.ElementStep (no expander)."""
    if tex := stack([element_latex(elem) for elem in elems]):
        st.latex(tex)


def show_softmax_row(row) -> None:
    """st.latex for one tutor.handcalc.SoftmaxRowStep: exponentials, denominator, weights."""
    st.latex(stack(softmax_row_latex(row)))


def show_weighted_sum(ws) -> None:
    st.latex(fit(ws.label, ws.parts, ws.tail) if ws.parts else ws.latex)
