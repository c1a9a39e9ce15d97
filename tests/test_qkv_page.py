"""AppTest of ② /qkv: textbook numbers, asymmetry, heatmaps, edits, the hand calculation's weights."""
import numpy as np

import tutor
from tutor import textbook as tb

from apphelpers import (
    assert_cell_error, assert_heatmap_is, edit_matrix, flat_tex, frames_after, metric, numbers,
    open_page, page_text, rows_of
)


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"


def test_qkv_textbook_numbers_asymmetry_and_heatmaps():
    at = open_page(QKV)
    text = page_text(at)
    for figure in ("0.894", "0.053", "0.212", "0.576"):
        assert figure in text, figure
    assert metric(at, "それ → 魚 のスコア") == "4" and metric(at, "魚 → それ のスコア") == "1"
    assert "非対称" in text
    assert r"q_{11} = 1\times 0 + 0\times 0 + 1\times 2 + 0\times 1 = 2" in flat_tex(text)
    ref = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, ref.naive.scores, tb.TOKENS, tb.TOKENS, digits=0)     # whole numbers: 2, not 2.000
    assert_heatmap_is(at, 1, ref.attn.scores, tb.TOKENS, tb.TOKENS, digits=0)
    assert_heatmap_is(at, 2, ref.attn.weights, tb.TOKENS, tb.TOKENS)


def test_qkv_edit_and_bad_cell():
    at = open_page(QKV)
    edit_matrix(at, "qkv_wk", rows_of(tb.W_Q))                    # W_K := W_Q → QKᵀ symmetric
    assert any("対称" in w.value for w in at.warning)
    ref = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_Q, tb.W_V)
    assert metric(at, "それ → 魚 の重み") == f"{ref.attn.weights[2, 1]:.3f}" != "0.894"
    edit_matrix(at, "qkv_wk", rows_of(tb.W_Q, {(1, 1): "abc"}))
    assert_cell_error(at)
    assert metric(at, "それ → 魚 の重み") == f"{ref.attn.weights[2, 1]:.3f}"
    assert_heatmap_is(at, 2, ref.attn.weights, tb.TOKENS, tb.TOKENS)


def test_qkv_hand_calculation_shows_the_weights(pages):
    at = pages[QKV]
    for cap, matrix in (("変換行列 W_Q", tb.W_Q), ("変換行列 W_K", tb.W_K), ("変換行列 W_V", tb.W_V)):
        np.testing.assert_array_equal(numbers(frames_after(at, cap)[0]), matrix)
