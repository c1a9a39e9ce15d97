"""Audit C fixes on ① /naive, ② /qkv, ③ /scaling, ④ /formula (helper F).

- the prose and the table cells are our own (the known copies are gone; the check against the
  seeds themselves is tests/test_own_words.py);
- one notation: s = QKᵀ (unscaled), s̃ = s/√d_k; 「注意の重み A」 for A, 「変換行列」 for W;
- tiny probabilities as 4.5×10⁻⁵ (never "e-5"), the (20, 10, 0) row with 5 decimals;
- the hand calculations show their inputs (X, W_Q, W_K, W_V), /naive shows S and A once;
- the link text names the next pages by their real titles, and the sentences about the
  「それ」 row follow the numbers after an edit.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import tutor
import ui
from apphelpers import edit_matrix, element_text, lesson_elements, lesson_text, open_page, open_pages
from tutor import textbook as tb

NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"
MY_PAGES = (NAIVE, QKV, SCALING, FORMULA)
E_NOTATION = re.compile(r"\d(?:\.\d+)?e[-+]?\d")


# --- helpers ---------------------------------------------------------------------------------
def frames_after(at, caption: str) -> list[pd.DataFrame]:
    """Every table shown right after a caption containing ``caption``."""
    els, found = lesson_elements(at), []
    for i, el in enumerate(els):
        if getattr(el, "type", "") == "caption" and caption in el.value:
            nxt = next((e for e in els[i + 1:] if getattr(e, "type", "") == "table"), None)
            if nxt is not None:
                found.append(nxt.value)
    return found


def numbers(frame: pd.DataFrame) -> np.ndarray:
    return frame.to_numpy(dtype=float)


def rows_of(matrix) -> list[list[str]]:
    return [[f"{float(v):g}" for v in r] for r in np.asarray(matrix)]


@pytest.fixture(scope="module")
def pages():
    return open_pages(MY_PAGES)


# --- copied prose (audit C #1, #2) -----------------------------------------------------------
GONE = {
    NAIVE: ["見つけてもらうための目印", "どんな文脈でも「それ」に同じベクトルを返します", "弱点 4：学習の余地がない",
            "弱点 1：自分ばかり見る", "弱点 3：探す目印と渡す中身が同じ", "この 4 つをまとめて解決するのが",
            "行が「見る側」、列が「見られる側」", "内積 → softmax → 重み付き平均", "重み行列"],
    QKV: ["自分のクエリと自分のキーが似ている必要もありません", "渡す中身もバリューという別のベクトルです",
          "人が設計するのではなく", "棚に並んだ本の背", "素朴版（Q・K・V なし）", "重み行列"],
    SCALING: ["サイコロを 1 個振るより 64 個振って", "でほぼ独り占めです", "と出たとします",
              "情報を混ぜられない", "学習が進まない", "s'"],
    FORMULA: ["Attention を 1 回通っただけで", "ほぼ魚の情報に置き換わりました", "埋め込みを縦に積む",
              "全トークンのクエリ（探す顔）", "全トークンのキー（探される顔）", "全トークンのバリュー（渡す中身）",
              "Attention の重み（各行の合計 1）", "デコーダ側の文", "エンコーダ側の文", "クエリの出どころ",
              "入口から出口まで全要素を追います", "伝言ゲーム", "重み行列"],
}


@pytest.mark.parametrize("page", MY_PAGES)
def test_copied_sentences_and_cells_are_gone(pages, page):
    text = lesson_text(pages[page])
    for phrase in GONE[page]:
        assert phrase not in text, (page, phrase)


def test_copied_sentences_are_gone_in_the_other_branches_too():
    """Exact mode on ④ and the 'self is not the top' branches after edits."""
    at = open_page(FORMULA)
    at.toggle(key="formula_pencil").set_value(False).run()
    text = lesson_text(at)
    for phrase in GONE[FORMULA]:
        assert phrase not in text, phrase


# --- one notation (audit C #8, #9) -----------------------------------------------------------
def test_scores_are_s_and_scaled_scores_are_s_tilde(pages):
    scaling = lesson_text(pages[SCALING])
    assert r"\tilde{s}_{ij} = \frac{s_{ij}}{\sqrt{d_k}}" in scaling
    assert r"s_{ij} = \frac{\mathbf{q}" not in scaling                 # s is never the scaled score
    assert r"\tilde{s}_{11} = \frac{16}{8} = 2" in scaling                # (16, 8, 0) ÷ √64 written with s̃
    assert r"\tilde{s}_{11} = \frac{1}{\sqrt{2}} \approx 0.7071" in scaling   # the G検定 example
    assert r"s_{11} = 1\times 1 + 0\times 0 = 1" in scaling
    qkv = lesson_text(pages[QKV])
    assert r"\tilde{s}_{ij} = \frac{s_{ij}}{\sqrt{d_k}}" in qkv
    assert r"a_{ij} = \frac{e^{\tilde{s}_{ij}}}" in qkv
    assert r"\mathrm{softmax}(s_{i1},\dots,s_{in})" not in qkv
    assert r"\tilde{s}_{32} = \frac{4}{\sqrt{2}}" in qkv                # the scaled step is shown
    formula = lesson_text(pages[FORMULA])
    assert r"⑤ $\sqrt{d_k}$ で割る → $\tilde{S}$" in formula and "S̃ = QKᵀ/√d_k" in formula


@pytest.mark.parametrize("page", MY_PAGES)
def test_attention_weights_and_learned_matrices_have_one_name_each(pages, page):
    text = lesson_text(pages[page])
    assert "重み行列" not in text
    if page in (NAIVE, FORMULA):
        assert "注意の重み A" in text
    if page in (QKV, FORMULA):
        for name in ("W_Q", "W_K", "W_V"):
            assert f"変換行列 {name}" in text


# --- tiny numbers (audit C #11) --------------------------------------------------------------
def test_scaling_tiny_numbers_without_e_notation(pages):
    at = pages[SCALING]
    text = lesson_text(at)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)
    table = next(el for el in lesson_elements(at) if getattr(el, "type", "") == "table").value
    assert table.loc["(20, 10, 0)", "softmax 後の重み"] == "(0.99995, 4.5×10⁻⁵, 2.1×10⁻⁹)"
    assert table.loc["(20, 10, 0)", "勾配の大きさ"] == "4.5×10⁻⁵"
    assert table.loc["(16, 8, 0)", "softmax 後の重み"] == "(0.99966, 0.00034, 1.1×10⁻⁷)"
    # the expander writes the same row with 5 decimals: 0.99995, not 1.0000
    assert r"\approx 0.99995" in text and r"\approx 4.5\times 10^{-5}" in text
    assert r"\approx 2.1\times 10^{-9}" in text and r"\approx 1.0000" not in text
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 10.0)
    assert round(p.weights[1], 6) == 4.5e-5 and round(p.gradient, 6) == 4.5e-5


def test_scaling_slider_latex_and_metrics_without_e_notation():
    at = open_page(SCALING)
    at.slider(key="scaling_factor").set_value(20.0).run()
    text = lesson_text(at)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 20.0)            # (40, 20, 0)
    assert p.weights[1] < 1e-8 and p.weights[2] < 1e-17
    assert r"2.1\times 10^{-9}" in text and r"4.2\times 10^{-18}" in text
    assert next(m.value for m in at.metric if m.label == "勾配の大きさ max|∂a/∂s|") == "2.1×10⁻⁹"


def test_softmax_row_step_digits_is_display_only():
    exact = tutor.handcalc.softmax_row_step([20, 10, 0])
    five = tutor.handcalc.softmax_row_step([20, 10, 0], digits=5)
    assert five.weights == exact.weights                               # same numbers, more decimals
    assert five.elements[0].tail.endswith(r"\approx 0.99995")
    assert exact.elements[0].tail.endswith(r"\approx 1.0000")
    assert five.elements[1].tail.endswith(r"\approx 4.5\times 10^{-5}")
    assert exact.elements[1].tail.endswith(r"\approx 4.54\times 10^{-5}")  # default unchanged
    with pytest.raises(ValueError, match="digits"):
        tutor.handcalc.softmax_row_step([2, 1, 0], decimals=3, digits=5)


# --- inputs shown, no duplicate tables (audit C #12, #16) ------------------------------------
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


def test_qkv_hand_calculation_shows_the_weights(pages):
    at = pages[QKV]
    for cap, matrix in (("変換行列 W_Q", tb.W_Q), ("変換行列 W_K", tb.W_K), ("変換行列 W_V", tb.W_V)):
        np.testing.assert_array_equal(numbers(frames_after(at, cap)[0]), matrix)


def test_naive_shows_s_and_a_once(pages):
    at = pages[NAIVE]
    res = tutor.naive.naive_attention(tb.X)
    frames = [e.value for e in lesson_elements(at) if getattr(e, "type", "") == "table"]
    same_s = [f for f in frames if f.shape == (3, 3) and np.allclose(numbers(f), res.scores)]
    same_a = [f for f in frames if f.shape == (3, 3) and np.allclose(numbers(f), res.weights, atol=5e-4)]
    assert len(same_s) == 1 and len(same_a) == 1, (len(same_s), len(same_a))
    assert list(same_a[0].loc["それ"]) == ["0.212", "0.212", "0.576"]


# --- links and data-driven sentences (audit C #14) -------------------------------------------
def test_links_name_the_pages_by_their_titles(pages):
    assert f"「{ui.PAGE_BY_KEY['qkv'].label}」" in lesson_text(pages[NAIVE])
    assert f"「{ui.PAGE_BY_KEY['scaling'].label}」" in lesson_text(pages[QKV])


def test_sentences_about_the_sore_row_follow_the_numbers(pages):
    assert "重みの 1 位は「それ」自身で" in lesson_text(pages[NAIVE])
    at = open_page(NAIVE)
    x = np.array(tb.X, dtype=float)
    x[2] = [0.1, 0.1, 0, 0]                       # a short それ: its own score is no longer the largest
    edit_matrix(at, "naive_x", rows_of(x))
    assert not tutor.naive.naive_weaknesses(x).self_top[2]
    text = lesson_text(at)
    assert "重みの 1 位は「それ」自身ではありません" in text and "重みの 1 位は「それ」自身で、" not in text

    assert "魚のバリュー (0, 2) にかなり近くなりました" in lesson_text(pages[FORMULA])
    at = open_page(FORMULA)
    x = np.array(tb.X, dtype=float)
    x[2] = [1, 0, 1, 0]                           # それ := 猫: its row now looks at 猫 most
    edit_matrix(at, "formula_x", rows_of(x))
    text = lesson_text(at)
    assert "いちばん大きい相手は魚ではありません" in text and "かなり近くなりました" not in text
