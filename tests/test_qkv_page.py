"""AppTest of ② /qkv, section by section (ui.sections): textbook numbers, asymmetry, heatmaps, edits
in 試してみよう reaching 手計算 and 可視化, the hand calculation's weights."""
import numpy as np

import tutor
from tutor import textbook as tb

from ui.figures import shared_domain
from apphelpers import (
    assert_cell_error, assert_heatmap_is, edit_matrix, flat_tex, frames_after, metric, numbers,
    open_page, page_text, rows_of, sections_of, show_section
)


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"
SECTIONS = ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]


def test_qkv_textbook_numbers_asymmetry_and_heatmaps():
    at = open_page(QKV)
    assert sections_of(at) == SECTIONS
    assert "割る理由は次のページ" in page_text(at)                     # 解説, in the first tab
    show_section(at, "hand")
    text = page_text(at)
    assert r"q_{11} = 1\times 0 + 0\times 0 + 1\times 2 + 0\times 1 = 2" in flat_tex(text)
    assert "クエリとキーの内積は 4 です" in text
    show_section(at, "visual")
    text = page_text(at)
    for figure in ("0.894", "0.053", "0.212", "0.576"):
        assert figure in text, figure
    assert "**非対称**" in text
    ref = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    shared = shared_domain(ref.naive.scores, ref.attn.scores)                    # side by side: one colour range
    assert_heatmap_is(at, 0, ref.naive.scores, tb.TOKENS, tb.TOKENS, digits=0, domain=shared)  # 2, not 2.000
    assert_heatmap_is(at, 1, ref.attn.scores, tb.TOKENS, tb.TOKENS, digits=0, domain=shared)
    assert_heatmap_is(at, 2, ref.attn.weights, tb.TOKENS, tb.TOKENS)
    show_section(at, "try")
    assert metric(at, "それ → 魚 のスコア") == "4" and metric(at, "魚 → それ のスコア") == "1"
    assert metric(at, "それ → 魚 の重み") == "0.894"
    assert_heatmap_is(at, 0, ref.attn.scores, tb.TOKENS, tb.TOKENS, digits=0)


def test_qkv_edit_reaches_every_section_and_a_bad_cell_keeps_the_last_valid():
    """W_K := W_Q in 試してみよう: QKᵀ turns symmetric there, and 手計算 and 可視化 compute with it
    when opened next (the last valid W_K, after a bad cell)."""
    at = open_page(QKV, section="try")
    edit_matrix(at, "qkv_wk", rows_of(tb.W_Q))                    # W_K := W_Q → QKᵀ symmetric
    ref = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_Q, tb.W_V)
    assert ref.symmetric and np.allclose(ref.attn.scores, ref.attn.scores.T)
    assert metric(at, "それ → 魚 の重み") == f"{ref.attn.weights[2, 1]:.3f}" != "0.894"
    assert metric(at, "それ → 魚 のスコア") == metric(at, "魚 → それ のスコア")
    assert_heatmap_is(at, 0, ref.attn.scores, tb.TOKENS, tb.TOKENS, digits=0)
    edit_matrix(at, "qkv_wk", rows_of(tb.W_Q, {(1, 1): "abc"}))
    assert_cell_error(at)
    assert metric(at, "それ → 魚 の重み") == f"{ref.attn.weights[2, 1]:.3f}"
    show_section(at, "visual")
    assert any("対称" in w.value for w in at.warning)
    assert "**非対称**" not in page_text(at)
    assert_heatmap_is(at, 1, ref.attn.scores, tb.TOKENS, tb.TOKENS, digits=0,
                      domain=shared_domain(ref.naive.scores, ref.attn.scores))
    assert_heatmap_is(at, 2, ref.attn.weights, tb.TOKENS, tb.TOKENS)
    show_section(at, "hand")
    np.testing.assert_array_equal(numbers(frames_after(at, "変換行列 $W_K$")[0]), tb.W_Q)
    k = tb.X @ tb.W_Q
    np.testing.assert_array_equal(numbers(frames_after(at, "K")[-1]), k)        # K = XW_K with the edited W_K
    show_section(at, "try")                                       # back: the editor shows the learner's cells
    assert_cell_error(at)


def test_qkv_hand_calculation_shows_the_weights(pages):
    at = pages[QKV]
    for cap, matrix in (("変換行列 $W_Q$", tb.W_Q), ("変換行列 $W_K$", tb.W_K), ("変換行列 $W_V$", tb.W_V)):
        np.testing.assert_array_equal(numbers(frames_after(at, cap)[0]), matrix)
