"""AppTest of ① /naive: textbook numbers, heatmap, edits and bad cells, S and A shown once."""
import numpy as np
import pytest

import tutor
import ui
from tutor import textbook as tb

from apphelpers import (
    assert_cell_error, assert_heatmap_is, edit_matrix, expander, folded, lesson_elements, metric, numbers, open_page,
    page_text, rows_of, show_section, table_frame, unfold_all
)


NAIVE = "pages/1_naive.py"
BAD_CELLS = ["abc", "", "nan", "inf", "1e308"]


def test_naive_textbook_numbers_and_heatmap():
    at = open_page(NAIVE, section="hand")
    text = page_text(at)
    for figure in ("0.576", "0.212", "0.665", "0.245", "0.788", "0.910", "0.335"):
        assert figure in text, figure
    show_section(at, "visual")
    text = page_text(at)
    assert "**0 個**" in text and "**24 個**" in text          # weakness 4: 0 vs W_Q, W_K, W_V
    assert_heatmap_is(at, 0, tutor.naive.naive_attention(tb.X).weights, tb.TOKENS, tb.TOKENS)
    show_section(at, "try")
    assert metric(at, "それ → 魚") == "0.212" and metric(at, "それ → それ") == "0.576"


def test_naive_edit_changes_every_section_and_bad_cells_keep_last_valid():
    """An edit in 試してみよう is what 手計算 and 可視化 compute with when they are opened next."""
    at = open_page(NAIVE, section="try")
    x = np.array(tb.X)
    x[2] = [0, 1, 0, 1]                                           # それ := 魚
    edit_matrix(at, "naive_x", rows_of(x))
    w = tutor.naive.naive_attention(x).weights
    assert metric(at, "それ → 魚") == f"{w[2, 1]:.3f}" != "0.212"
    assert_heatmap_is(at, 0, w, tb.TOKENS, tb.TOKENS)
    for bad in BAD_CELLS:
        edit_matrix(at, "naive_x", rows_of(x, {(0, 0): bad}))
        assert_cell_error(at)
        assert metric(at, "それ → 魚") == f"{w[2, 1]:.3f}"       # the last VALID input, not the default
        assert_heatmap_is(at, 0, w, tb.TOKENS, tb.TOKENS)
    show_section(at, "visual")
    assert_heatmap_is(at, 0, w, tb.TOKENS, tb.TOKENS)
    show_section(at, "hand")
    frames = [f for f in map(table_frame, lesson_elements(at)) if f is not None]
    assert any(f.shape == (3, 3) and np.allclose(numbers(f), w, atol=5e-4) for f in frames)
    show_section(at, "try")                                       # back: the editor shows the learner's cells
    assert_cell_error(at)


def test_naive_shows_s_and_a_once(pages):
    at = pages[NAIVE]
    res = tutor.naive.naive_attention(tb.X)
    frames = [f for f in map(table_frame, lesson_elements(at)) if f is not None]
    same_s = [f for f in frames if f.shape == (3, 3) and np.allclose(numbers(f), res.scores)]
    same_a = [f for f in frames if f.shape == (3, 3) and np.allclose(numbers(f), res.weights, atol=5e-4)]
    assert len(same_s) == 1 and len(same_a) == 1, (len(same_s), len(same_a))
    assert list(same_a[0].loc["それ"]) == ["0.212", "0.212", "0.576"]


def test_naive_working_starts_folded_and_shows_the_edited_numbers():
    """S, A and Z = AX: three folded steps in 手計算; opened after an edit in 試してみよう, the Z
    step shows the edited numbers."""
    at = open_page(NAIVE, section="try")
    edit_matrix(at, "naive_x", [["1", "0", "1", "0"], ["1", "0", "0", "1"], ["0", "1", "0", "1"]])
    show_section(at, "hand", unfold=False)
    assert {"open_naive_s", "open_naive_a", "open_naive_z"} <= set(folded(at))
    assert not expander(at, "open_naive_z").children
    unfold_all(at)
    x = np.array([[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 1]], dtype=float)
    z = tutor.handcalc.naive_steps(x, decimals=3, tokens=list(tb.TOKENS)).z
    shown = page_text(expander(at, "open_naive_z"))
    assert all(ui.handcalc.number(v, 3) in shown for v in z[2]), (z[2], shown[:300])   # それ's new vector


def test_naive_says_once_what_the_textbook_is():
    """「教科書」 (教科書と同じく…, 教科書の値に戻す) is said once, in ①'s ねらい・解説: the worked example
    of the course (issue 37 §4); the caption is there and names the running example and the reset button."""
    at = open_page(NAIVE)                                            # ねらい・解説 is the first tab
    notes = [c.value for c in at.caption if "「教科書」と言うときは" in c.value]
    assert len(notes) == 1
    (note,) = notes
    assert "猫・魚・それ" in note and "「教科書の値に戻す」" in note and "作例" in note
    show_section(at, "hand")
    assert "教科書と同じく" in page_text(at)                          # where the word is used next
    assert not [c for c in at.caption if "「教科書」と言うときは" in c.value]


@pytest.mark.parametrize("key", ["wordvec", "seq2seq"])
def test_the_pages_before_one_never_say_textbook(key):
    """Issue 41 row 10: ⓪'s reset buttons said 「教科書の値に戻す」 before ① says what 「教科書」 means (and
    ⓪'s numbers are the app's own example): a reset there returns to the page's first values."""
    path = ui.PAGE_BY_KEY[key].path
    at = open_page(path, section="try")
    assert at.button and all("教科書" not in b.label for b in at.button)
    assert any(b.label == "最初の値に戻す" for b in at.button)
