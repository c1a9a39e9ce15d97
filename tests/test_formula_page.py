"""AppTest of ④ /formula: pencil and exact modes, heatmaps, shape table, edits, the hand calculation's inputs."""
import numpy as np

import tutor
from tutor import textbook as tb

from apphelpers import (
    assert_cell_error, assert_heatmap_is, edit_matrix, element_text, flat_tex, frames_after,
    lesson_elements, lesson_text, numbers, open_page, page_text, rows_of
)


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"


def test_formula_pencil_and_exact_modes():
    at = open_page(FORMULA)
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


def test_formula_heatmaps_shape_table_and_edits():
    at = open_page(FORMULA)
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, tutor.attention(qkv.q, qkv.k, qkv.v).weights, tb.TOKENS, tb.TOKENS)
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 1, cross.weights, list(tb.CROSS_DEC_TOKENS), tb.TOKENS)
    text = page_text(at)
    assert "3×4" in text and "2×3" in text and "一致しました" in text
    x = np.array(tb.X)
    x[2] = [1, 0, 1, 0]                                           # それ := 猫
    edit_matrix(at, "formula_x", rows_of(x))
    hc = tutor.handcalc.hand_calculation(x, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    text = page_text(at)
    assert f"「それ」の出力：**({hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})**" in text
    q2 = tutor.project_qkv(x, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, tutor.attention(q2.q, q2.k, q2.v).weights, tb.TOKENS, tb.TOKENS)
    for bad in ("1e308", "nan"):
        edit_matrix(at, "formula_wv", rows_of(tb.W_V, {(0, 0): bad}))
        assert_cell_error(at)
        assert f"「それ」の出力：**({hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})**" in page_text(at)


def test_formula_hand_calculation_starts_with_its_four_inputs(pages):
    at = pages[FORMULA]
    els = lesson_elements(at)
    kinds = [(getattr(e, "type", ""), element_text(e)) for e in els]
    hand = kinds.index(("header", "手計算"))
    first_step = next(i for i, (_, t) in enumerate(kinds) if t.startswith("① $Q = XW_Q$"))
    caps = [t for kind, t in kinds[hand:first_step] if kind == "caption"]
    assert caps[:4] == ["埋め込み X（1 行 = 1 トークン）", "変換行列 W_Q", "変換行列 W_K", "変換行列 W_V"]
    for cap, matrix in (("埋め込み X（1 行", tb.X), ("変換行列 W_Q", tb.W_Q), ("変換行列 W_K", tb.W_K),
                        ("変換行列 W_V", tb.W_V)):
        np.testing.assert_array_equal(numbers(frames_after(at, cap)[0]), matrix)


def test_formula_shown_inputs_follow_the_editors():
    at = open_page(FORMULA)
    w_q = np.array(tb.W_Q, dtype=float)
    w_q[0] = [3, -1]
    edit_matrix(at, "formula_wq", rows_of(w_q))
    np.testing.assert_array_equal(numbers(frames_after(at, "変換行列 W_Q")[0]), w_q)
    hc = tutor.handcalc.hand_calculation(tb.X, w_q, tb.W_K, tb.W_V, decimals=3)
    assert f"({hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})" in lesson_text(at)
