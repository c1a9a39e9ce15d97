"""Audit C fixes on ⑤ /multihead, ⑥ /mask, ⑦-1 /position, ⑦-2 /block (helper G).

- the prose is our own (the known copies are gone; the check against the seeds themselves is
  tests/test_own_words.py);
- every hand calculation can be redone from the numbers shown (the /mask pencil chain,
  the /block FFN input x), and /multihead's head 1 is ④'s default (pencil) Z;
- one notation: s̃ for the scaled scores, PE counted from 0 said once, no e-notation.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import tutor
from apphelpers import lesson_elements, lesson_text, open_page, open_pages
from tutor import textbook as tb
from ui.validate import format_number

MH = "pages/5_multihead.py"
MASK = "pages/6_mask.py"
POSITION = "pages/7_position.py"
BLOCK = "pages/8_block.py"
FORMULA = "pages/4_formula.py"
MY_PAGES = (MH, MASK, POSITION, BLOCK)


def frame_after(at, caption: str) -> pd.DataFrame:
    """The table shown right after the caption that contains ``caption``."""
    els = lesson_elements(at)
    for i, el in enumerate(els):
        if getattr(el, "type", "") == "caption" and caption in el.value:
            for nxt in els[i + 1:]:
                if getattr(nxt, "type", "") == "table":
                    return nxt.value
    raise AssertionError(f"no table after caption {caption!r}")


@pytest.fixture(scope="module")
def pages():
    return open_pages(MY_PAGES)


# ---------------------------------------------------------------------------
# copied prose (audit C #1)
# ---------------------------------------------------------------------------
GONE = {
    MH: ["各ヘッドは $d_k = 64$ 次元で働きます", "1 つ前のトークンに重みが集まっています",
         "先頭の 猫 は前がないので自分を見ます", "自分専用の $W_Q^{(i)}", "2 人の係のメモが混ざった",
         "前半が照応係のメモ", "1 組の $W_Q, W_K, W_V$ から作れる", "説明用の値"],
    MASK: ["照応は無傷です", "原因（過去）から結果（未来）への向きを守らせる", "答えを見ながら答える",
           "場合分けを書かずに、足し算だけで", "前に語がないので自分だけを見ます", "右上（未来を見る組）が"],
    POSITION: ["順番が自然に入りますが", "周期の違う sin 波と cos 波を並べたベクトルを使いました",
               "意味のベクトル（トークン埋め込み）", "順番を別に教える仕組みが要ります", "第 8 章"],
    BLOCK: ["トークンどうしの情報を混ぜるのに対し", "非線形の活性化関数を通し、元の",
            "何層重ねても 1 つの行列の掛け算にまとまってしまいます", "「入力からの変化分」だけを学べばよく",
            "最後に LayerNorm を 1 回足します"],
}


@pytest.mark.parametrize("page", MY_PAGES)
def test_copied_sentences_are_gone(pages, page):
    text = lesson_text(pages[page])
    for phrase in GONE[page]:
        assert phrase not in text, (page, phrase)


# ---------------------------------------------------------------------------
# numbers a learner can redo (audit C #3, #4, #5, #6)
# ---------------------------------------------------------------------------
def test_multihead_head1_is_formula_pencil_z(pages):
    pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    z = frame_after(pages[MH], "出力 Z⁽¹⁾")
    shown = z.to_numpy(dtype=float)
    np.testing.assert_array_equal(shown, np.round(pencil.z, 3))
    assert list(z.loc["猫"]) == ["1.510", "0.492"]                  # the textbook's value, as on ④
    # ④ (pencil mode by default) shows the same row
    formula = open_page(FORMULA)
    assert "1.510" in lesson_text(formula) and "0.492" in lesson_text(formula)
    # Concat and MultiHead are built from the shown head-1 numbers
    concat = frame_after(pages[MH], "Concat(head₁, head₂)")
    assert list(concat.loc["猫"]) == ["1.510", "0.492", "1.000", "0.150"]
    out = frame_after(pages[MH], "MultiHead(X) = Concat · W_O")
    assert list(out.loc["猫"]) == ["1.660", "1.492", "1.000", "0.150"]   # 1.510 + 0.150, 0.492 + 1.000
    assert list(out.loc["それ"]) == ["1.859", "2.841", "1.000", "1.700"]
    assert "(1.5093, 0.4907)" in lesson_text(pages[MH])                 # the exact value, said once


def test_multihead_head2_output_keeps_its_second_decimal(pages):
    z2 = frame_after(pages[MH], "出力 Z⁽²⁾")
    assert list(z2.loc["猫"]) == ["1.00", "0.15"]                       # 0.90·0 + 0.05·2 + 0.05·1
    assert list(z2.loc["魚"]) == ["1.00", "0.30"]
    ex = tutor.multihead.textbook_two_heads()
    assert format_number(ex.head2_output[0, 1], 2) == "0.15"


def test_mask_hand_calculation_follows_from_the_shown_numbers(pages):
    at = pages[MASK]
    scaled = frame_after(at, "① スケール済みスコア S̃").to_numpy(dtype=float)
    exps = frame_after(at, "③ 分子")
    weights = frame_after(at, "④ 重み").drop(columns="行の合計").to_numpy(dtype=float)
    assert scaled[0, 0] == 2.828 and exps.loc["猫", "猫"] == "16.912"
    num = exps.drop(columns="分母（行の合計）").to_numpy(dtype=float)
    den = exps["分母（行の合計）"].to_numpy(dtype=float)
    visible = np.tril(np.ones((3, 3), dtype=bool))
    # e^s̃ of the SHOWN score, rounded to 3 decimals; e^(−∞) = 0
    np.testing.assert_allclose(num[visible], np.round(np.exp(scaled[visible]), 3), atol=1e-9)
    assert np.all(num[~visible] == 0)
    # the denominator is the sum of the shown numerators, each weight their shown quotient
    np.testing.assert_allclose(den, num.sum(axis=1), atol=1e-9)
    np.testing.assert_allclose(weights, np.round(num / den[:, None], 3), atol=1e-9)
    assert list(den) == [16.912, 8.224, 18.912]
    text = lesson_text(at)
    assert "マスクなしと同じ値 → $(0.053, 0.894, 0.053)$" in text
    assert "（マスクなし $(0.053" not in text                             # no repeated vector (#16)
    assert r"\tilde{S}" in text and r"e^{\tilde{s}}" in text              # s̃ = scaled score (#8)


def test_block_ffn_step_shows_its_input(pages):
    at = pages[BLOCK]
    text = lesson_text(at)
    assert r"$x = (2,\ 0)$" in text
    # and the shown x really gives the shown x W₁ and x + FFN(x)
    x = np.array([[2.0, 0.0]])
    w1 = frame_after(at, "W₁").to_numpy(dtype=float)
    assert tutor.block.ffn(x, w1, None, frame_after(at, "W₂").to_numpy(dtype=float), None).pre_activation.tolist() \
        == [[2.0, 0.0, -2.0, 4.0]]
    assert r"x W_1 &= (2,\ 0,\ -2,\ 4)" in text and r"x + \mathrm{FFN}(x) &= (4,\ -4)" in text


def test_block_shows_both_batches_and_the_pre_ln_wording(pages):
    at = pages[BLOCK]
    a = frame_after(at, "バッチ A（入力）")
    b = frame_after(at, "バッチ B（入力")
    assert list(a.loc["例 2"]) == ["2", "0", "1", "1"] and list(a.loc["例 3"]) == ["0", "0", "4", "0"]
    assert list(b.loc["例 2"]) == ["20", "0", "10", "10"] and list(b.loc["例 1"]) == list(a.loc["例 1"])
    text = lesson_text(at)
    assert "LayerNorm をもう 1 つ置きます" in text
    assert "FFN のパラメータ" in text and "FFN の重み" not in text       # 重み is A, not W (#9)


# ---------------------------------------------------------------------------
# notation (audit C #8, #9, #11, #13, #14)
# ---------------------------------------------------------------------------
def test_position_counts_from_zero_once_and_rope_has_no_n(pages):
    at = pages[POSITION]
    text = lesson_text(at)
    assert text.count("0 から") == 1 and "pos = 0" in text
    assert "キーの位置 n" not in text and "m − n" not in text
    assert "Self-Attention" in text and text.count("Self-Attention") == 1   # English once, then 自己注意
    pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    assert f"({format_number(pencil.z[0, 0], 3)}, {format_number(pencil.z[0, 1], 3)})" in text  # (1.510, 0.492)


def test_multihead_calls_w_a_transformation_matrix(pages):
    text = lesson_text(pages[MH])
    assert "変換行列 $W_Q^{(i)}" in text and "重み行列" not in text


@pytest.mark.parametrize("page", MY_PAGES)
def test_no_e_notation(pages, page):
    text = lesson_text(pages[page])
    assert not re.search(r"\d(\.\d+)?e[-+]?\d", text), re.search(r".{20}\d(\.\d+)?e[-+]?\d.{5}", text)
