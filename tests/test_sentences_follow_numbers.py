"""The sentences about the 「それ」 row on ① and ④ follow the numbers after an edit."""
import numpy as np

import tutor
from tutor import textbook as tb

from apphelpers import edit_matrix, lesson_text, open_page, rows_of, show_section


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"


def test_sentences_about_the_sore_row_follow_the_numbers(pages):
    assert "重みの 1 位は「それ」自身で" in lesson_text(pages[NAIVE])
    at = open_page(NAIVE, section="try")
    x = np.array(tb.X, dtype=float)
    x[2] = [0.1, 0.1, 0, 0]                       # a short それ: its own score is no longer the largest
    edit_matrix(at, "naive_x", rows_of(x))
    assert not tutor.naive.naive_weaknesses(x).self_top[2]
    text = lesson_text(show_section(at, "visual"))
    assert "重みの 1 位は「それ」自身ではありません" in text and "重みの 1 位は「それ」自身で、" not in text

    assert "魚のバリュー (0, 2) にかなり近くなりました" in lesson_text(pages[FORMULA])
    at = open_page(FORMULA, section="try")
    x = np.array(tb.X, dtype=float)
    x[2] = [1, 0, 1, 0]                           # それ := 猫: its row now looks at 猫 most
    edit_matrix(at, "formula_x", rows_of(x))
    text = lesson_text(show_section(at, "hand"))
    assert "いちばん大きい相手は魚ではありません" in text and "かなり近くなりました" not in text


def test_a_tie_for_the_first_place_is_said_as_a_tie():
    """Issue 41 row 10: with two equal weights the page said 「重みの 1 位は…」 of one of them. それ = 猫 =
    (1, 0, 1, 0): それ's row gives itself and 猫 the same weight — a shared first place."""
    x = np.array(tb.X, dtype=float)
    x[2] = [1, 0, 1, 0]
    weak = tutor.naive.naive_weaknesses(x)
    assert weak.self_tied[2] and not weak.self_top[2] and weak.n_self_tied == 2       # 猫's row ties too
    assert tutor.top_keys(weak.result.weights, 2) == (0, 2)
    assert tutor.top_keys(weak.result.weights, 1) == (1,)
    at = open_page(NAIVE, section="try")
    edit_matrix(at, "naive_x", rows_of(x))
    text = lesson_text(show_section(at, "visual"))
    assert "1 位が並んでいます" in text and "重みの 1 位は「それ」自身で、" not in text
    assert "ほかに 2 行で、自分とほかの語が 1 位に並んでいます。" in text
