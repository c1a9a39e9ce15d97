"""tutor.numfmt: the one number format of the app (四捨五入 on the decimal value as shown).

- properties of the formatter (hypothesis): half up against a Decimal reference, negatives,
  never "-0.000", huge and tiny values, NaN / ±∞ written as placeholders, never "e-05";
- the same value is written the same way by a page and by a question (0.3125 → 0.313 on both);
- the hand calculations the pages show add up: the displayed terms, recomputed at the shown
  precision, give the displayed result (③'s G検定 example once showed z₁₂ = 1.1922 while its
  terms 0.1978 × 4 + 0.4011 × 1 give 1.1923), and a page that computes exactly says so.
"""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
import tutor
import ui
from quizzes.calc import num
from apphelpers import edit_matrix, open_page, page_text, show_section, tables
from tutor import numfmt
from tutor import textbook as tb
from ui.validate import format_number, format_tiny


def reference(x: float, nd: int) -> str:
    """四捨五入 by hand: the decimal value of x (snapped to 9 places) rounded half away from zero."""
    d = Decimal(repr(round(x, 9))).quantize(Decimal(1).scaleb(-nd), rounding=ROUND_HALF_UP)
    text = f"{d:f}"
    return text[1:] if text.startswith("-") and Decimal(text) == 0 else text


# ---------------------------------------------------------------------------
# the rule on the examples of the issue
# ---------------------------------------------------------------------------
def test_ties_round_half_up_on_the_decimal_value():
    assert numfmt.fixed(0.0625, 3) == "0.063" and numfmt.fixed(0.3125, 3) == "0.313"
    assert numfmt.fixed(-0.0625, 3) == "-0.063" and numfmt.fixed(2.5, 0) == "3" and numfmt.fixed(-2.5, 0) == "-3"
    assert numfmt.fixed(2.675, 2) == "2.68"                     # stored as 2.67499999…: written as on paper
    assert numfmt.fixed(0.31249999999999994, 3) == "0.313"      # float noise of 0.3125
    assert numfmt.fixed(0.3124999, 3) == "0.312"                # not a tie
    assert numfmt.round_half_up(0.0625, 3) == 0.063 and numfmt.round_half_up(0.1635, 3) == 0.164
    # the ui's names are the same function (tables, heatmaps, prose) …
    assert format_number(0.0625, 3) == "0.063" and format_tiny(0.3125, 3) == "0.313"
    # … as the questions' (trailing zeros dropped there, the digits the same)
    assert num(0.0625) == "0.063" and num(0.3125) == "0.313"
    assert tutor.handcalc.latex_number(0.3125, 3) == "0.313" and tutor.handcalc.pencil_round(0.0625, 3) == 0.063


def test_special_values_are_placeholders_not_programmer_text():
    for f in (numfmt.fixed, numfmt.trimmed, numfmt.tiny):
        assert f(float("nan")) == numfmt.NAN_TEXT == "計算不能"
        assert f(float("-inf")) == "−∞" and f(float("inf")) == "∞"
    assert numfmt.percent(float("nan")) == "計算不能"
    assert numfmt.sci(float("-inf"), tex=True) == r"-\infty"
    assert math.isnan(numfmt.round_half_up(float("nan"), 3)) and numfmt.round_half_up(-math.inf, 3) == -math.inf
    with pytest.raises(ValueError, match="桁数"):
        numfmt.fixed(1.0, -1)
    with pytest.raises(ValueError, match="桁数"):
        numfmt.fixed(1.0, 2.5)


def test_percent_sci_grouped():
    assert numfmt.percent(0.625) == "63%" and numfmt.percent(0.145) == "15%" and numfmt.percent(0.1234, 1) == "12.3%"
    assert numfmt.sci(4.54e-5, 1) == "4.5×10⁻⁵" and numfmt.sci(4.55e-5, 1) == "4.6×10⁻⁵"
    assert numfmt.sci(9.96e-5, 1) == "1.0×10⁻⁴" and numfmt.sci(-2.0611536e-09, 1, tex=True) == r"-2.1\times 10^{-9}"
    assert numfmt.grouped(1234567.5) == "1,234,568" and numfmt.grouped(-999.5) == "-1,000"
    assert numfmt.grouped(1234.5, 1) == "1,234.5" and numfmt.grouped(float("-inf")) == "−∞"
    assert numfmt.significant(22.627417) == "22.63" and numfmt.significant(0.0012345) == "0.001235"   # %g: 0.001234
    assert numfmt.significant(512.0) == "512" and numfmt.significant(1000.0) == "1,000"
    assert numfmt.significant(9.99996) == "10" and numfmt.significant(4.5e-5, 3) == "4.5×10⁻⁵"
    assert numfmt.significant(-0.066625, 3) == "-0.0666" and numfmt.significant(0.5, 3) == "0.5"


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------
values = st.one_of(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.integers(-10**8, 10**8).map(lambda k: k / 10_000),               # exact 4-place decimals: many ties
    st.integers(-10**8, 10**8).map(lambda k: k / 16),                   # binary-exact halves (0.0625 …)
    st.integers(-10**6, 10**6).map(lambda k: (k + 0.5) / 1000 + 1e-16 * k),   # ties with float noise
)


@settings(max_examples=500)
@given(values, st.integers(0, 6))
def test_fixed_is_half_up_of_the_decimal_value(x, nd):
    text = numfmt.fixed(x, nd)
    assert text == reference(x, nd)
    assert numfmt.round_half_up(x, nd) == float(text)
    assert numfmt.trimmed(x, nd) == num(x, nd)          # the questions' format, same digits
    if nd:
        assert len(text.partition(".")[2]) == nd


@settings(max_examples=300)
@given(values, st.integers(0, 6))
def test_negative_numbers_mirror_positive_ones_and_zero_has_no_sign(x, nd):
    pos, neg = numfmt.fixed(abs(x), nd), numfmt.fixed(-abs(x), nd)
    if Decimal(pos) == 0:
        assert neg == pos and not neg.startswith("-")              # never "-0.000"
    else:
        assert neg == "-" + pos
    for f in (numfmt.fixed, numfmt.trimmed, format_number):
        assert not re.fullmatch(r"-0(\.0*)?", f(x, nd)), (x, nd)


@settings(max_examples=300)
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 6))
def test_huge_and_tiny_values_are_written_in_full(x, nd):
    text = numfmt.fixed(x, nd)
    assert "e" not in text and "E" not in text
    # within half a unit of the last place shown (of the binary value: a huge float prints its exact digits)
    assert abs(Decimal(text) - Decimal(x)) <= Decimal(1).scaleb(-nd) / 2 + abs(Decimal(x)) * Decimal("1e-15")
    tiny = numfmt.tiny(x, 5, below=1e-4)              # as ③ writes weights: never 0.00000 for a non-zero value
    assert "e" not in tiny and (x == 0) == (tiny == "0") and (x == 0 or "×10" in tiny or Decimal(tiny) != 0)
    mantissa = numfmt.sci(x, 1).split("×")[0] if x else "0.0"
    assert x == 0 or 1 <= abs(Decimal(mantissa)) < 10
    sig = numfmt.significant(x, 3)
    assert "e" not in sig and (x == 0 or abs(x) < 1e-4 or abs(x) >= 100 or
                               abs(Decimal(sig) - Decimal(x)) <= abs(Decimal(x)) * Decimal("0.005"))


# ---------------------------------------------------------------------------
# a page and a question write the same value the same way
# ---------------------------------------------------------------------------
def test_a_page_and_a_question_write_0_3125_alike():
    """mask.causal_weight#97 offers (6, 5, 5)/16 → 5/16 = 0.3125 (the 'forgot the mask' choice);
    ① shows an embedding cell 0.3125 in its X table and in its pencil hand calculation. Both write
    0.313 (the page used to write 0.312: Python's binary half-even)."""
    q = quizzes.from_id("mask.causal_weight#97")
    assert "0.313" in q.choices
    assert tutor.softmax(np.log([6.0, 5.0, 5.0]))[1] == pytest.approx(0.3125)

    at = open_page("pages/1_naive.py", section="try")
    x = np.array(tb.X, dtype=float)
    x[0, 0] = 0.3125
    edit_matrix(at, "naive_x", [[repr(float(v)) for v in row] for row in x])
    show_section(at, "hand")
    assert not at.exception
    x_tables = [t for t in tables(at) if t.shape == (3, 4) and t.iloc[1, 1] == "1.000"]   # 埋め込み X
    assert x_tables and all(t.iloc[0, 0] == "0.313" == numfmt.fixed(0.3125, 3) for t in x_tables)
    text = page_text(at)
    assert r"0.313\times 0.313" in text                      # s_11 = x_1·x_1 in pencil mode: 0.313 × 0.313 + …


# ---------------------------------------------------------------------------
# the displayed terms of a hand calculation add up to the displayed result
# ---------------------------------------------------------------------------
_NUM = r"-?\d+(?:\.\d+)?"


def _dec(text: str) -> Decimal:
    return Decimal(text.strip().strip("()"))


def _places(text: str) -> int:
    return len(text.strip().partition(".")[2])


def _q(d: Decimal, places: int) -> Decimal:
    return d.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)


def _result_text(tail: str) -> str:
    return re.sub(r"^(=|\\approx)\s*", "", tail.strip())


def check_dot(elem) -> None:
    """c = Σ a × b as written: the shown products summed, rounded to the shown result's places."""
    total = Decimal(0)
    for part in elem.parts:
        a, b = part.split(r"\times")
        total += _dec(a) * _dec(b)
    shown = _result_text(elem.tail)
    assert _q(total, _places(shown)) == _dec(shown), elem.latex


def check_divide(elem) -> None:
    (s, divisor), = elem.terms
    d_k = round(divisor ** 2)                           # the page writes \frac{s}{\sqrt{d_k}}: √d_k exact
    num = re.match(r"\\frac\{(" + _NUM + r")\}", elem.expression).group(1)
    shown = _result_text(elem.tail)
    assert _q(_dec(num) / Decimal(d_k).sqrt(), _places(shown)) == _dec(shown), elem.latex


def check_softmax_row(row) -> None:
    shown_total = _result_text(row.total_tail)
    assert _q(sum(_dec(t) for t in row.total_parts), _places(shown_total)) == _dec(shown_total), row.total_latex
    for elem in row.elements:
        m = re.search(r"\\approx \\frac\{(" + _NUM + r")\}\{(" + _NUM + r")\} \\approx (" + _NUM + r")$", elem.tail)
        if m is None:                                   # a weight in powers of ten (exact mode, 5 places)
            continue
        e, tot, w = m.groups()
        assert _q(_dec(e) / _dec(tot), _places(w)) == _dec(w), elem.latex


def check_matrix(ms) -> None:
    for elem in ms.flat:
        (check_dot if elem.op == "dot" else check_divide)(elem)


def check_attention(steps) -> None:
    check_matrix(steps.scores)
    if steps.scaled is not None:
        check_matrix(steps.scaled)
    for row in steps.softmax.rows:
        check_softmax_row(row)
    check_matrix(steps.output)
    for ws in steps.weighted_sums:
        for elem in ws.components:
            check_dot(elem)


def _pages_hand_calculations():
    """The hand calculations the pages show by default (the pencil mode of ①④⑤⑥⑦⑨, ③'s
    G検定 example to 4 places, ②'s integer products)."""
    three = 3
    yield "① naive", tutor.handcalc.naive_steps(tb.X, decimals=three)
    hc = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=three)
    yield "④ pencil (also ⑤ ⑥ ⑦)", hc
    yield "② exact", tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    for scale in (True, False):
        yield f"③ G検定 scale={scale}", tutor.handcalc.attention_steps(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES,
                                                                       scale=scale, decimals=4)
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    yield "⑨ cross", tutor.handcalc.attention_steps(cross.q, cross.k, cross.v, decimals=three)


@pytest.mark.parametrize("name, steps", list(_pages_hand_calculations()), ids=lambda v: v if isinstance(v, str) else "")
def test_displayed_terms_add_up_to_the_displayed_result(name, steps):
    if name.startswith("② exact"):                      # ② shows Q, K, V, S and S̃ (whole numbers ÷ √2)
        for ms in (steps.q, steps.k, steps.v, steps.scores, steps.scaled):
            check_matrix(ms)
    elif isinstance(steps, tutor.handcalc.HandCalculation):
        for ms in (steps.q, steps.k, steps.v, steps.scores, steps.scaled, steps.output):
            check_matrix(ms)
        for row in steps.softmax.rows:
            check_softmax_row(row)
        for ws in steps.weighted_sums:
            for elem in ws.components:
                check_dot(elem)
    else:
        check_attention(steps)


def test_the_check_catches_the_old_scaling_example():
    """③'s G検定 example as it was (exact mode, 4 places shown): z₁₂ = 0.1978×4 + 0.4011×1 ≈ 1.1922."""
    old = tutor.handcalc.attention_steps(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES)
    assert old.weighted_sums[0].components[1].tail.endswith("1.1922")
    with pytest.raises(AssertionError):
        check_dot(old.weighted_sums[0].components[1])


def test_scaling_page_shows_terms_that_add_up():
    at = open_page("pages/3_scaling.py", section="hand")
    text = page_text(at)
    assert r"0.4011\,(2, 0) + 0.1978\,(0, 4)" in text and "= (1.2033, 1.1923)" in text   # 0.1978×4 + 0.4011
    assert "1.1922" not in text
    assert "小数第 4 位まで（第 5 位を四捨五入）求めてから次のステップに使っています" in text


def test_formula_exact_mode_says_which_rounding_it_uses():
    """④ with the pencil switch off computes exactly and only rounds what it writes: it says so."""
    at = open_page("pages/4_formula.py", section="hand")
    at.toggle(key="formula_pencil").set_value(False).run()
    assert not at.exception
    text = page_text(at)
    assert "正確な値で計算しています（表示は小数第 4 位まで）" in text
    assert ui.handcalc.EXACT_NOTE in text                   # and every non-integer step repeats it


def test_qkv_exact_steps_say_which_rounding_they_use():
    """② computes exactly; its S̃ = S/√2 step (not whole numbers) says that only the display is rounded."""
    at = open_page("pages/2_qkv.py", section="hand")
    assert ui.handcalc.EXACT_NOTE in page_text(at)


def test_multihead_page_sums_add_up():
    """⑤ writes two sums of its own (z⁽²⁾ of それ, and the first component of Concat · W_O)."""
    at = open_page("pages/5_multihead.py", section="hand")
    sums = [el.value for el in at.get("latex") if r"\times" in el.value and ("z^{(2)}" in el.value or "第 1 成分" in el.value)]
    assert len(sums) == 2
    for tex in sums:
        body = re.sub(r"\\begin\{aligned\}|\\end\{aligned\}|\\\\|&|\\quad|\\text\{[^}]*\}|\$", " ", tex)
        body = body.split("=", 1)[1]                    # what follows the name: terms = result
        lhs, rhs = body.rsplit("=", 1)
        terms = [t for t in lhs.split("+") if t.strip()]
        width = len(rhs.split(","))
        total = [Decimal(0)] * width
        for t in terms:
            w, v = t.split(r"\times")
            comps = [_dec(c) for c in v.strip().strip("()").split(",")]
            comps = comps if len(comps) == width else comps * width
            total = [acc + _dec(w) * c for acc, c in zip(total, comps)]
        shown = [c for c in rhs.strip().strip("()").split(",")]
        assert [_q(t, _places(s)) for t, s in zip(total, shown)] == [_dec(s) for s in shown], tex


# ---------------------------------------------------------------------------
# charts write their numbers (tooltips) with the same formatter
# ---------------------------------------------------------------------------
def test_chart_tooltips_use_the_formatter():
    from ui import figures
    exp = tutor.scaling.dot_product_spread(np.random.default_rng(0))
    df = figures.spread_chart(exp)["datasets"]["spread"]
    assert df["表示"].tolist() == [numfmt.fixed(v, 2) for v in df["値"]]
    sat = figures.saturation_explorer(tb.SATURATION_SCORES[0], ["a", "b", "c"])["datasets"]
    assert sat["curve"]["表示"].tolist() == [numfmt.fixed(v, 5) for v in sat["curve"]["値"]]
    bars = sat["bars"][sat["bars"]["倍率 c"] == 1.0]
    assert bars["表示"].tolist() == ["0.66524", "0.24473", "0.09003"]
    runs = figures.compare_runs_chart(([0, 1],), ([0.5, 0.00012345],), ["A"], "t", "y").data
    assert runs["表示"].tolist() == ["0.5", "0.000123"]
    topics = figures.exam_topic_chart([{"label": "③", "percent": 62.5, "correct": 5, "total": 8}]).data
    assert topics["正答率の表示"].tolist() == ["63"]                     # 62.5 % → 63, as 四捨五入
    history = figures.exam_history_chart([{"回": 1, "日時": "12/01", "得点": "5/8", "正答率": 62.5, "所要時間": "3分"}]).data
    assert history["正答率の表示"].tolist() == ["63"]


def test_day_reads_as_a_learner_reads_a_date():
    from datetime import date
    assert numfmt.day(date(2026, 12, 18), date(2026, 12, 5)) == "12月18日（金）"
    assert numfmt.day(date(2027, 1, 10), date(2026, 12, 5)) == "2027年1月10日（日）"
    assert numfmt.day(date(2026, 12, 7)) == "2026年12月7日（月）"


def test_span_reads_consecutive_days_as_one():
    from datetime import date
    today = date(2026, 12, 5)
    assert numfmt.span([date(2026, 12, 18), date(2026, 12, 19), date(2027, 1, 10)], today) == \
        "12月18日（金）〜2027年1月10日（日）"
    assert numfmt.span([date(2026, 12, 18)], today) == "12月18日（金）"
    assert numfmt.span([], today) == ""
