"""ui.memo and the display objects the widgets share between reruns and sessions.

What is kept must be keyed by VALUE (a changed matrix never shows the old table) and must never be
changed by the code that shows it (every session sees the same object).
"""
from __future__ import annotations

import copy
import json
import threading
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest

import tutor
from ui import figures
from apphelpers import edit_matrix, expander, folded, open_page, show_section, table_frame, tables, unfold_all
from tutor import textbook as tb
from ui.handcalc import element_latex, stack
from ui.memo import Memo, freeze


@dataclass(frozen=True)
class Rec:
    x: float
    label: str


@dataclass(frozen=True, eq=False)
class ById:  # hashed by identity: a recycled id must never match a stale value
    x: float


def test_freeze_is_by_value():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert freeze(a) == freeze(a.copy())
    assert freeze(a) != freeze(a.T)                      # same bytes count, other content
    assert freeze(a) != freeze(a.reshape(4))              # same bytes, other shape
    assert freeze(a) != freeze(a.astype(np.float32))      # other dtype
    assert freeze([1, 2]) != freeze((1, 2))               # list vs tuple kept apart
    assert freeze(1) != freeze(1.0) and freeze(True) != freeze(1)
    assert freeze({"b": 1, "a": [np.zeros(2)]}) == freeze({"a": [np.zeros(2)], "b": 1})
    assert freeze(Rec(1.0, "猫")) == freeze(Rec(1.0, "猫")) != freeze(Rec(1.0, "魚"))
    assert freeze(range(5, 30, 6)) == freeze(range(5, 30, 6))
    # eq=False dataclasses are frozen field by field too, not by identity
    assert freeze(ById(2.0)) == freeze(ById(2.0)) != freeze(ById(3.0))
    with pytest.raises(TypeError):
        freeze(object())
    with pytest.raises(TypeError):
        freeze(lambda: 1)


def test_memo_keeps_by_value_and_evicts_least_recent():
    calls = []
    m = Memo(maxsize=2)

    def make(v):
        calls.append(v)
        return {"v": v}

    a = np.array([1.0, 2.0])
    first = m.get(("t", a), lambda: make(1))
    assert m.get(("t", a.copy()), lambda: make(99)) is first          # same value → kept object
    b = a.copy()
    b[0] = 5.0
    assert m.get(("t", b), lambda: make(2)) == {"v": 2}                # changed matrix → new value
    m.get(("t", a), lambda: make(99))                                  # a is now most recent
    m.get(("t", np.zeros(3)), lambda: make(3))                         # evicts b, not a
    assert len(m) == 2
    assert m.get(("t", a), lambda: make(99)) is first
    assert m.get(("t", b), lambda: make(4)) == {"v": 4}
    assert calls == [1, 2, 3, 4]


def test_memo_keeps_within_its_byte_budget():
    m = Memo(maxsize=100, max_bytes=1000, weigh=len)
    for i in range(10):
        m.get(("blob", i), lambda: b"x" * 300)
    assert m.nbytes <= 1000 and len(m) == 3                        # the three most recent
    assert m.get(("blob", 9), lambda: b"new") == b"x" * 300
    assert m.get(("blob", 0), lambda: b"y" * 10) == b"y" * 10       # evicted long ago: made again
    big = m.get(("big",), lambda: b"z" * 5000)                      # larger than the budget alone:
    assert big == b"z" * 5000 and len(m) == 1 and m.nbytes == 5000  # kept, everything else out


def test_display_memos_are_bounded():
    """The shared display memos of ui.widgets have a count and (for charts, tables) a byte cap:
    the largest PE chart of ⑦-1 (100 positions × d_model 128) is ~0.5 MB of Arrow data."""
    from ui import inputs, widgets

    assert widgets._SPECS.max_bytes == 32 << 20 and widgets._TABLES.max_bytes == 16 << 20
    assert inputs._EDITOR_FRAMES.maxsize <= 1024


def test_memo_without_a_value_key_simply_computes():
    m = Memo(maxsize=4)
    unhashable = object()
    assert m.get(("x", unhashable), lambda: 1) == 1
    assert m.get(("x", unhashable), lambda: 2) == 2
    assert len(m) == 0


def test_memo_is_safe_across_threads():
    m = Memo(maxsize=50)
    errors = []

    def work(t):
        try:
            for i in range(400):
                k = (t * 7 + i) % 80
                assert m.get(("k", k), lambda: k * 10) == k * 10
        except AssertionError as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and len(m) <= 50


CHART_PAGE = """
import numpy as np
import streamlit as st
import ui
ui.cached_chart(ui.figures.prob_bars, (0.5, 0.25, 0.25), ("猫", "魚", "それ"), title="t")
ui.show_matrix(np.array([[1.0, 2.0], [3.0, 4.0]]), ["猫", "魚"], ["1", "2"], digits=0)
"""


def same(a, b) -> bool:
    """a == b for specs that hold DataFrames (their datasets)."""
    if isinstance(a, pd.DataFrame):
        return isinstance(b, pd.DataFrame) and a.equals(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return a == b


def test_showing_a_kept_chart_or_table_leaves_it_intact():
    """st.vega_lite_chart moves the datasets out of the dict it is given (on a clone, in
    Streamlit 1.67): the kept spec must come out of two reruns unchanged, with its data."""
    from ui import inputs, widgets

    widgets._SPECS.clear()
    widgets._TABLES.clear()
    at = AppTest.from_string(CHART_PAGE).run()
    assert not at.exception
    [spec] = widgets._SPECS.values()
    [text] = widgets._TABLES.values()
    before = copy.deepcopy(spec)
    at.run()
    at.run()
    assert not at.exception
    assert same(spec, before) and spec.get("datasets"), "the kept chart spec was changed by showing it"
    [table] = tables(at)
    assert at.markdown[-1].value == text             # the kept Markdown, shown as it was kept
    assert table.index.name == "行" and table.loc["魚", "2"] == "4"   # 猫, 魚 label the rows: shown
    # what the page received is the chart of these numbers
    proto = at.get("vega_lite_chart")[0].proto
    assert json.loads(proto.spec)["layer"] and len(proto.datasets) == 1


# ---------------------------------------------------------------------------
# heatmaps: HTML tables (ui.widgets.heatmap_html)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("matrix, kwargs", [
    (np.array([[0.1, 0.5, -np.inf], [0.3, 0.3, 0.4]]), {"title": "注意の重み A"}),
    (np.full((3, 3), 0.2), {"digits": 2}),
    (np.eye(4), {"title": "ヘッド 1", "x_title": "キー", "y_title": "クエリ", "small": True}),
])
def test_a_heatmap_is_a_table_of_its_values_coloured_by_them(matrix, kwargs):
    from apphelpers import parse_heatmap
    from ui.validate import format_number
    from ui.widgets import MASKED, colour_domain, heatmap_html, ink, viridis

    rows, cols = [f"r{i}" for i in range(matrix.shape[0])], [f"c{j}" for j in range(matrix.shape[1])]
    text = heatmap_html(matrix, rows, cols, **kwargs)
    h = parse_heatmap(text)
    assert (h.rows, h.cols) == (rows, cols)
    assert (h.x_title, h.y_title) == (kwargs.get("x_title", "キー（見られる側）"), kwargs.get("y_title", "クエリ（見る側）"))
    assert h.title == kwargs.get("title", "")
    digits = kwargs.get("digits", 3)
    assert h.texts == [[format_number(v, digits) for v in r] for r in matrix]
    lo, hi = colour_domain(matrix)
    assert h.colours == [[viridis((v - lo) / (hi - lo)) if np.isfinite(v) else MASKED for v in r] for r in matrix]
    assert h.inks == [[ink(bg) for bg in r] for r in h.colours]      # each value in the text colour its cell needs
    assert h.key.split("、")[0].split() == [f"色：{format_number(lo, digits)}", format_number(hi, digits)]
    assert ("灰色は −∞" in h.key) == bool(np.isneginf(matrix).any())
    assert ('class="hm hm-small"' in text) == kwargs.get("small", False)


def test_the_colour_scale_runs_from_dark_to_light_through_viridis():
    from ui.widgets import VIRIDIS, luminance, viridis

    assert viridis(0) == VIRIDIS[0] and viridis(1) == VIRIDIS[-1] and viridis(-3) == VIRIDIS[0]
    assert viridis(0.5) == "#22908c"                  # halfway between #26828e and #1f9e89 (4.5 of 9 steps)
    steps = [luminance(viridis(k / 20)) for k in range(21)]
    assert steps == sorted(steps)                      # a larger value is never drawn darker


@given(hst.floats(0, 1))
def test_every_cell_value_reads_at_wcag_aa_contrast_on_its_colour(f):
    from ui.widgets import MASKED, ink, luminance, viridis

    for bg in (viridis(f), MASKED):
        a, b = luminance(bg), luminance(ink(bg))
        assert (max(a, b) + 0.05) / (min(a, b) + 0.05) >= 4.5


def test_a_heatmap_escapes_its_labels_and_titles():
    """Labels are tokens (⑦-3, ⑧ and ⑨ show the tokens of a sentence): text, never markup."""
    from apphelpers import parse_heatmap
    from ui.widgets import heatmap_html

    text = heatmap_html(np.eye(2), ["<bos>", "a&b"], ["<script>x</script>", "猫"], title="<b>t</b>",
                        x_title="<i>k</i>", y_title="")
    assert "<script>" not in text and "<bos>" not in text and "<b>" not in text and "<i>" not in text
    h = parse_heatmap(text)
    assert h.rows == ["<bos>", "a&b"] and h.cols == ["<script>x</script>", "猫"] and h.title == "<b>t</b>"
    assert h.y_title == "行"                           # no row title given: the corner still names the rows
    # repeated labels stay apart (every row keeps its own header)
    assert parse_heatmap(heatmap_html(np.eye(2), ["を", "を"], ["を", "を"])).rows == ["を", "を(2)"]


def _plain(spec: dict) -> dict:
    """The spec with its DataFrame datasets as JSON records (NaN → null), as the schema wants."""
    return {**spec, "datasets": {name: df.astype(object).where(df.notna(), None).to_dict("records")
                                 for name, df in spec["datasets"].items()}}


@pytest.mark.parametrize("build", [
    lambda: figures.prob_bars([0.2, 0.3, 0.5], ["A", "B", "C"], title="T = 1.0"),
    lambda: figures.prob_bars([0.2, 0.3, 0.5], ["A", "B", "C"], highlight=[0, 2]),
    lambda: figures.saturation_explorer([2.0, 1.0, 0.0], ["k1", "k2", "k3"]),
    lambda: figures.temperature_explorer([2.0, 1.0, 0.0], ["A", "B", "C"]),
    lambda: figures.cost_chart([1, 64, 4096], {"self": [1.0, 4e6, 1.6e10], "rnn": [2.6e5, 1.7e7, 1.1e9]},
                               {"self": "自己注意", "rnn": "再帰"}, crossover=512, n_mark=64,
                               marks={"self": 4e6, "rnn": 1.7e7}, title="層ごとの演算量"),
    lambda: figures.mlm_chart(["[CLS]", "猫", "が", "魚", "を", "食べた", "[SEP]"],
                              ["[CLS]", "[MASK]", "が", "魚", "を", "寝た", "[SEP]"],
                              ["", "mask", "", "keep", "", "random", ""], title="シード 1"),
    lambda: figures.patch_grid_chart(np.arange(1, 17).reshape(4, 4), title="4×4 のパッチ"),
    lambda: figures.spread_chart(tutor.scaling.dot_product_spread(np.random.default_rng(0))),
    lambda: figures.points_chart((("base", 3.3e18, 27.3, "Transformer"), ("MoE", 2.0e19, 26.03, "単一モデル")), "FLOPs", "BLEU",
                                 title="表 2", log_x=True, line=True, x_format=".0e"),
    lambda: figures.lines_chart("α", "スコア", (("A", (0.0, 1.0), (-3.0, -1.5)),), (("α = 0.6", 0.6, -2.0),), title="順位"),
], ids=["prob_bars", "prob_bars_highlight", "saturation_explorer", "temperature_explorer", "cost", "mlm", "patch_grid", "spread",
        "points", "lines"])
def test_every_chart_drawn_from_a_plain_dict_is_valid_vega_lite(build):
    import altair as alt

    spec = _plain(build())
    kind = alt.VConcatChart if "vconcat" in spec else alt.LayerChart if "layer" in spec else alt.Chart
    kind.from_dict(spec, validate=True)


@pytest.mark.parametrize(("theme", "colour"), [("light", "#111111"), ("dark", "#fafafa"), (None, "#111111")])
def test_text_marks_follow_the_learners_theme(monkeypatch, theme, colour):
    """A text mark (③'s and ⑦-4's readouts, the values beside ⑦-4's bars) takes the theme's text
    colour: Streamlit themes a chart's axes, not its marks. A label that names its colour (on a
    coloured cell) keeps it, and the kept spec is not changed."""
    from types import SimpleNamespace

    import ui.widgets

    monkeypatch.setattr(ui.widgets.st, "context", SimpleNamespace(theme=SimpleNamespace(type=theme)))
    assert ui.widgets.text_color() == colour
    spec = figures.prob_bars([0.2, 0.3, 0.5], ["A", "B", "C"])
    shown = ui.widgets.themed(spec, ui.widgets.text_color())
    assert shown["config"]["text"] == {"color": colour} and "config" not in spec and shown["layer"] is spec["layer"]
    own = ui.widgets.themed({**spec, "config": {"text": {"color": "#fff"}, "view": {"stroke": None}}}, colour)
    assert own["config"] == {"text": {"color": "#fff"}, "view": {"stroke": None}}
    drawn = []
    monkeypatch.setattr(ui.widgets.st, "vega_lite_chart", lambda spec, **kw: drawn.append(spec))
    ui.widgets.cached_chart(figures.temperature_explorer, (2.0, 1.0, 0.0), ("A", "B", "C"))
    assert drawn[0]["config"]["text"]["color"] == colour
    mlm = figures.mlm_chart(["猫"], ["[MASK]"], ["mask"])
    assert mlm["layer"][1]["mark"]["color"] == "#111111"          # on a coloured cell, in either theme


def test_long_chart_titles_are_cut_into_lines():
    from ui.widgets import _title_lines

    assert _title_lines("注意の重み A") == "注意の重み A"
    assert _title_lines("Source-Target Attention（層 1・ヘッド 1）n_tgt × n_src") == [
        "Source-Target Attention（層 1・ヘッド 1）", "n_tgt × n_src"]
    # never a line that starts with a particle
    lines = _title_lines("とても長い説明のための見出しです（その一） そして の続きがあります 本当に長い")
    assert all(not line.startswith(("の", "が", "を", "に", "は")) for line in lines)
    spec = figures.mlm_chart(["猫"], ["[MASK]"], ["mask"], title="Source-Target Attention（層 1・ヘッド 1）n_tgt × n_src")
    assert spec["layer"][0]["title"] == ["Source-Target Attention（層 1・ヘッド 1）", "n_tgt × n_src"]


@pytest.mark.parametrize("crossover, align", [(512, "right"), (8, "left")])
def test_cost_chart_crossover_label_stays_inside_the_chart(crossover, align):
    """The label sits on the side of the dashed rule with more room (a 390 px chart clipped it)."""
    from ui.figures import cost_chart

    ns = np.array([1, 64, 4096])
    curves = {"self": ns ** 2 * 512.0, "rnn": ns * 512.0 ** 2}
    spec = cost_chart(ns, curves, {"self": "自己注意", "rnn": "再帰"}, crossover=crossover)
    label = next(layer for layer in spec["layer"] if layer["mark"].get("type") == "text")
    assert label["mark"]["align"] == align and (label["mark"]["dx"] < 0) == (align == "right")


# ---------------------------------------------------------------------------
# lazy expanders: a closed expander sends nothing; opening it draws the numbers of the moment
# ---------------------------------------------------------------------------
def _latex(block) -> list[str]:
    """The st.latex bodies drawn inside ``block`` (st.latex wraps each in $$ … $$)."""
    return [el.value.strip("$\n") for el in block if getattr(el, "type", "") == "latex"] if block.children else []


def test_a_closed_hand_calculation_draws_nothing_until_opened():
    at = open_page("pages/4_formula.py", unfold=False, section="hand")
    closed = folded(at)
    assert {"open_formula_q", "open_formula_k", "open_formula_v", "open_formula_s", "open_formula_a"} <= set(closed)
    assert "open_formula_z" not in closed                       # the last step is open from the start
    q_box = expander(at, "open_formula_q")
    assert not q_box.children                                     # nothing of Q's working was sent
    assert _latex(expander(at, "open_formula_z"))
    unfold_all(at)
    assert not folded(at) and not at.exception
    hc = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3, tokens=list(tb.TOKENS))
    shown = _latex(expander(at, "open_formula_q"))
    for row in hc.q.elements:                                    # every element of Q, row by row
        assert stack([element_latex(el) for el in row]) in shown


def test_an_open_step_stays_open_across_sections_and_shows_the_edited_numbers():
    """① : a step the learner opened in 手計算 is still open when they come back from an edit in
    試してみよう, and it shows the new numbers."""
    at = open_page("pages/1_naive.py", section="hand")
    before = " ".join(_latex(expander(at, "open_naive_s")))
    show_section(at, "try", unfold=False)
    rows = [["1", "0", "1", "0"], ["1", "0", "0", "1"], ["1", "1", "1", "1"]]
    edit_matrix(at, "naive_x", rows)
    show_section(at, "hand", unfold=False)
    assert "open_naive_s" not in folded(at)
    after = " ".join(_latex(expander(at, "open_naive_s")))
    assert before != after and "4" in after                       # それ·それ = 1+1+1+1 = 4


# ---------------------------------------------------------------------------
# read-only tables: Markdown tables (ui.show_table), read back by tests/apphelpers.table_frame
# ---------------------------------------------------------------------------
def _shown(md: str):
    """An object like AppTest's markdown element, for table_frame."""
    return type("Md", (), {"type": "markdown", "value": md})()


def test_a_matrix_table_has_its_labels_left_and_its_numbers_right():
    from ui.widgets import matrix_frame, table_markdown
    md = table_markdown(matrix_frame(np.array([[0.665, -0.245], [1.0, -np.inf]]), ["猫", "魚"], ["a", "b"]))
    head, align, *rows = md.split("\n")
    assert head == "| 行 | a | b |" and align == "|:--|--:|--:|" and len(rows) == 2
    frame = table_frame(_shown(md))
    assert frame.index.name == "行" and frame.loc["猫", "a"] == "0.665" and frame.loc["魚", "b"] == "−∞"


def test_a_table_without_row_labels_shows_its_columns_only():
    from ui.widgets import table_markdown
    md = table_markdown({"段階": ["学習中（まちがえたばかり）", "復習"], "問題数": [3, 12]})
    assert md.split("\n")[:2] == ["| 段階 | 問題数 |", "|---|--:|"]   # text as written, numbers right
    frame = table_frame(_shown(md))
    assert isinstance(frame.index, pd.RangeIndex) and list(frame["問題数"]) == ["3", "12"]
    shapes = table_markdown({"記号": ["Q", "S"], "形": ["3×4", "3×3"], "値": ["4.5×10⁻⁵", "−∞"]})
    assert shapes.split("\n")[1] == "|---|---|--:|"   # a shape is sizes, not a number; a tiny number is one
    shown = table_frame(_shown(table_markdown(pd.DataFrame({"a": ["1"]}), hide_index=False)))
    assert shown.index.name == "行" and list(shown.index) == ["0"]   # asked for: the labels, with a header


@given(hst.lists(hst.text(hst.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\u2060"),
                          min_size=1, max_size=10).map(lambda t: " ".join(t.split())).filter(bool),
                 min_size=1, max_size=4, unique=True))
def test_any_label_reads_back_as_written(labels):
    """Whatever the labels (a learner's tokens on ⑦-3 and ⑨), each cell is one cell, as written."""
    from ui.widgets import table_markdown
    frame = pd.DataFrame({lab: [lab] for lab in labels}, index=pd.Index(labels[:1], name="行"))
    back = table_frame(_shown(table_markdown(frame)))
    assert list(back.columns) == labels and list(back.iloc[0]) == labels and list(back.index) == labels[:1]
