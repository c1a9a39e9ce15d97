"""AppTest of ④ /formula: pencil and exact modes, heatmaps, shape table, edits, the hand calculation's inputs.
The editors live in 試してみよう, the rounding switch in 手計算; 手計算 and 可視化 compute with what they hold."""
import numpy as np

import tutor
from tutor import textbook as tb

from apphelpers import (
    assert_cell_error, assert_heatmap_is, edit_matrix, element_text, flat_tex, frames_after,
    lesson_elements, lesson_text, numbers, open_page, page_text, rows_of, sections_of, show_section
)


FORMULA = "pages/4_formula.py"


def sore_output(z, digits: int = 3) -> str:
    return f"「それ」の出力：**({z[2, 0]:.{digits}f}, {z[2, 1]:.{digits}f})**"


def test_formula_has_the_four_sections():
    at = open_page(FORMULA)
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert "Scaled Dot-Product Attention" in page_text(at)


def test_formula_pencil_and_exact_modes():
    at = open_page(FORMULA, section="hand")
    assert at.toggle(key="formula_pencil").value is True
    text = page_text(at)
    for figure in ("1.510", "0.492", "1.000", "0.159", "1.841", "0.673", "0.894", "0.053", "2.828"):
        assert figure in text, figure
    assert r"z_{11} = 0.673\times 2 + 0.164\times 0 + 0.164\times 1 = 1.510" in flat_tex(text)
    at.toggle(key="formula_pencil").set_value(False).run()
    text = page_text(at)
    assert "1.5093" in text and "0.4907" in text and "1.8414" in text
    assert r"z_{11} = 0.6728\times 2 + 0.1636\times 0 + 0.1636\times 1 \approx 1.5093" in flat_tex(text)
    assert "1.510" not in text


def test_the_rounding_switch_of_hand_holds_in_try():
    """試してみよう writes the output of 「それ」 with the rounding 手計算's switch chose (the switch is
    drawn in 手計算 only), and the switch is still off when 手計算 is opened again."""
    pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    exact = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    at = open_page(FORMULA, section="try")
    assert sore_output(pencil.z) in page_text(at)
    show_section(at, "hand")
    at.toggle(key="formula_pencil").set_value(False).run()
    show_section(at, "try")
    assert sore_output(exact.z, 4) in page_text(at) and sore_output(pencil.z) not in page_text(at)
    show_section(at, "hand")
    assert at.toggle(key="formula_pencil").value is False
    assert "正確な値で計算しています（表示は小数第 4 位まで）" in page_text(at)


def test_formula_heatmaps_shape_table_and_edits():
    at = open_page(FORMULA, section="visual")
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, tutor.attention(qkv.q, qkv.k, qkv.v).weights, tb.TOKENS, tb.TOKENS)
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 1, cross.weights, list(tb.CROSS_DEC_TOKENS), tb.TOKENS)
    assert "2×3" in page_text(at) and "一致しました" in page_text(at)
    show_section(at, "hand")
    assert "3×4" in page_text(at)
    show_section(at, "try")
    x = np.array(tb.X)
    x[2] = [1, 0, 1, 0]                                           # それ := 猫
    edit_matrix(at, "formula_x", rows_of(x))
    hc = tutor.handcalc.hand_calculation(x, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    assert sore_output(hc.z) in page_text(at)
    for bad in ("1e308", "nan"):
        edit_matrix(at, "formula_wv", rows_of(tb.W_V, {(0, 0): bad}))
        assert_cell_error(at)
        assert sore_output(hc.z) in page_text(at)                 # the last VALID input, not the default
    # opened next, 可視化 and 手計算 compute with the edited X (and the last valid W_V)
    q2 = tutor.project_qkv(x, tb.W_Q, tb.W_K, tb.W_V)
    show_section(at, "visual")
    assert_heatmap_is(at, 0, tutor.attention(q2.q, q2.k, q2.v).weights, tb.TOKENS, tb.TOKENS)
    assert_heatmap_is(at, 1, tutor.cross_attention(tb.CROSS_X_DEC, x, tb.W_Q, tb.W_K, tb.W_V).weights,
                      list(tb.CROSS_DEC_TOKENS), tb.TOKENS)
    show_section(at, "hand")
    np.testing.assert_array_equal(numbers(frames_after(at, "埋め込み X（1 行")[0]), x)
    assert "いちばん大きい相手は魚ではありません" in page_text(at)
    assert f"{hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})" in page_text(at)


def test_formula_hand_calculation_starts_with_its_four_inputs():
    at = open_page(FORMULA, section="hand")
    kinds = [(getattr(e, "type", ""), element_text(e)) for e in lesson_elements(at)]
    first_step = next(i for i, (_, t) in enumerate(kinds) if t.startswith("① $Q = XW_Q$"))
    caps = [t for kind, t in kinds[:first_step] if kind == "caption"]
    assert caps[:4] == ["埋め込み X（1 行 = 1 トークン）", "変換行列 $W_Q$", "変換行列 $W_K$", "変換行列 $W_V$"]
    for cap, matrix in (("埋め込み X（1 行", tb.X), ("変換行列 $W_Q$", tb.W_Q), ("変換行列 $W_K$", tb.W_K),
                        ("変換行列 $W_V$", tb.W_V)):
        np.testing.assert_array_equal(numbers(frames_after(at, cap)[0]), matrix)
    assert "（「試してみよう」で書き換えられます）" in page_text(at)


def test_formula_shown_inputs_follow_the_editors():
    at = open_page(FORMULA, section="try")
    w_q = np.array(tb.W_Q, dtype=float)
    w_q[0] = [3, -1]
    edit_matrix(at, "formula_wq", rows_of(w_q))
    show_section(at, "hand")
    np.testing.assert_array_equal(numbers(frames_after(at, "変換行列 $W_Q$")[0]), w_q)
    hc = tutor.handcalc.hand_calculation(tb.X, w_q, tb.W_K, tb.W_V, decimals=3)
    assert f"({hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})" in lesson_text(at)
