"""AppTest of ⑤ /multihead: textbook numbers, blend/heads/d_model/seed widgets, errors, head 1 = ④'s pencil z.
The page's sections: ねらい・解説 (why one head is not enough, d_k and 4·d_model²), 手計算 (two heads, Concat,
W_O), 可視化 (the two textbook heads), 試してみよう (the blend slider, your own heads)."""
import numpy as np
import pytest

import tutor
from tutor import textbook as tb
from ui.validate import format_number

from ui.figures import shared_domain
from apphelpers import (assert_heatmap_is, frame_after, heatmap_numbers, lesson_text, numbers, open_page, page_text,
                        sections_of, show_section, steppers, heatmaps as all_heatmaps)


MH = "pages/5_multihead.py"


@pytest.fixture
def mh():
    """⑤ opened at 試してみよう, where its widgets are."""
    at = open_page(MH, section="try")
    assert not at.exception, at.exception
    return at


def heatmaps(at) -> int:
    return len(all_heatmaps(at))


MASK = "pages/6_mask.py"
FORMULA = "pages/4_formula.py"


def test_multihead_has_the_four_sections():
    at = open_page(MH)
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]


def test_multihead_textbook_numbers():
    at = open_page(MH, section="hand")
    text = page_text(at)
    ex = tutor.multihead.textbook_two_heads()
    # それ: head 1 (0.159, 1.841), head 2 (1.0, 1.7), concat, W_O output (1.859, 2.841, 1.0, 1.7)
    assert "(0.159, 1.841, 1.000, 1.700)" in text
    assert "(1.859, 2.841, 1.000, 1.700)" in text
    assert "(1.00, 1.70)" in text          # head 2 of それ, 2 decimals like its table (0.15 is not shown as 0.2)
    assert format_number(ex.combined.output[2, 0], 3) == "1.859"  # the page's number is the engine's
    # the seed's two-head figures as tables
    assert "0.894" in text and "0.053" in text
    assert not at.error
    # d_k = 512 / 8 = 64 and 4·512² = 1,048,576: the explanation
    text = page_text(show_section(at, "aim"))
    assert "d_k = 64" in text
    assert "1,048,576" in text
    # the paper's numbers, said as such: no claim about how often the real exam asks them (issue 37 §4)
    assert "（原論文の値では 512 / 8 = 64）" in text and "G検定頻出" not in text


def test_multihead_why_one_head_numbers():
    text = page_text(open_page(MH, section="aim"))
    blend = tutor.multihead.blend_weights(tutor.multihead.textbook_two_heads().head1.weights, tb.HEAD2_WEIGHTS, 0.5)
    assert format_number(blend[1, 0], 3) in text  # 0.601: the half-and-half row of 魚
    assert "0.401" in text and "0.80" in text


def test_blend_slider_holds_the_blend_at_every_t_for_the_browser(mh):
    """The slider is answered in the browser (ui.stepper): the page hands it the blended weights
    at each of its 21 values of t, computed by the engine; it starts at t = 0.50."""
    blend = steppers(mh)["mh_blend"]
    shares = [0.05 * i for i in range(21)]
    assert blend.options == [format_number(t, 2) for t in shares]
    assert blend.options[blend.value] == "0.50"
    head1 = tutor.multihead.textbook_two_heads().head1.weights
    tokens = list(tb.TOKENS)
    for option, t in zip(blend.options, shares):
        (frame,) = blend.tables(option)
        expected = tutor.multihead.blend_weights(head1, tb.HEAD2_WEIGHTS, t)
        np.testing.assert_allclose(numbers(frame[tokens]), expected, atol=5e-4)
        assert list(frame["行の合計"]) == ["1.000"] * 3
    # t = 1 is exactly head 2's pattern; the row 猫 of head 2 is (0.90, 0.05, 0.05)
    assert list(blend.tables("1.00")[0].loc["猫", tokens]) == ["0.900", "0.050", "0.050"]
    assert blend.tables("0.00")[0].loc["それ", "魚"] == format_number(head1[2, 1], 3)


def test_the_visual_shows_the_two_textbook_heads():
    at = open_page(MH, section="visual")
    ex = tutor.multihead.textbook_two_heads()
    assert heatmaps(at) == 2
    shared = shared_domain(ex.head1.weights, tb.HEAD2_WEIGHTS)      # compared side by side: one colour range
    assert_heatmap_is(at, 0, ex.head1.weights, list(tb.TOKENS), list(tb.TOKENS), domain=shared)
    assert_heatmap_is(at, 1, tb.HEAD2_WEIGHTS, list(tb.TOKENS), list(tb.TOKENS), domain=shared)


def test_number_of_heads_changes_heatmaps(mh):
    assert heatmaps(mh) == 2              # h = 2 live heads
    mh.number_input(key="mh_heads").set_value(4).run()
    assert not mh.exception and not mh.error
    assert heatmaps(mh) == 4
    assert "d_k = d_{\\text{model}} / h = 8 / 4 = 2" in page_text(mh)
    mh.number_input(key="mh_heads").set_value(8).run()
    assert heatmaps(mh) == 8


def test_d_model_changes_heads_data(mh):
    first = heatmap_numbers(mh, 0)
    mh.selectbox(key="mh_d_model").set_value(16).run()
    assert not mh.exception
    assert heatmaps(mh) == 2
    live = tutor.multihead.random_multihead(3, 16, 2, np.random.default_rng(0))
    for h, w in enumerate(live.result.weights):
        assert_heatmap_is(mh, h, w, list(tb.TOKENS), list(tb.TOKENS), domain=shared_domain(*live.result.weights))
    assert not np.allclose(first, heatmap_numbers(mh, 0))
    assert f"{tutor.multihead.mha_param_count(16):,}" in page_text(mh)  # 1,024


def test_seed_changes_heads(mh):
    first = heatmap_numbers(mh, 0)
    mh.number_input(key="mh_seed").set_value(7).run()
    assert not np.allclose(first, heatmap_numbers(mh, 0))


def test_indivisible_d_model_shows_japanese_error_and_keeps_last_result(mh):
    mh.number_input(key="mh_heads").set_value(4).run()
    assert heatmaps(mh) == 4
    mh.selectbox(key="mh_d_model").set_value(6).run()
    assert not mh.exception
    errors = [e.value.replace("\\", "") for e in mh.error]  # alerts are escaped Markdown (ui.state.plain)
    assert any("d_model = 6 はヘッド数 h = 4 で割り切れません" in e for e in errors), errors
    assert heatmaps(mh) == 4              # the last valid result (d_model = 8, h = 4) is still shown
    assert "直前の正しい入力" in page_text(mh)
    mh.number_input(key="mh_heads").set_value(3).run()
    assert not mh.error and heatmaps(mh) == 3


def test_multihead_widgets_survive_page_switch(mh):
    """Back on ⑤ after another page: 試してみよう is open again, with the learner's h."""
    mh.number_input(key="mh_heads").set_value(4).run()
    mh.switch_page(MASK).run()
    mh.switch_page(MH).run()
    assert not mh.exception
    assert mh.number_input(key="mh_heads").value == 4
    assert heatmaps(mh) == 4
    show_section(mh, "hand")
    show_section(mh, "try")                  # and after another section of ⑤
    assert heatmaps(mh) == 4


def test_multihead_head1_is_formula_pencil_z(pages):
    pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    z = frame_after(pages[MH], "出力 Z⁽¹⁾")
    shown = z.to_numpy(dtype=float)
    np.testing.assert_array_equal(shown, np.round(pencil.z, 3))
    assert list(z.loc["猫"]) == ["1.510", "0.492"]                  # the textbook's value, as on ④
    # ④ (pencil mode by default) shows the same row
    formula = open_page(FORMULA, section="hand")
    assert "1.510" in lesson_text(formula) and "0.492" in lesson_text(formula)
    # Concat and MultiHead are built from the shown head-1 numbers
    concat = frame_after(pages[MH], "Concat(head₁, head₂)")
    assert list(concat.loc["猫"]) == ["1.510", "0.492", "1.000", "0.150"]
    out = frame_after(pages[MH], "$\\mathrm{MultiHead}(X) = \\mathrm{Concat} \\cdot W_O$")
    assert list(out.loc["猫"]) == ["1.660", "1.492", "1.000", "0.150"]   # 1.510 + 0.150, 0.492 + 1.000
    assert list(out.loc["それ"]) == ["1.859", "2.841", "1.000", "1.700"]
    assert "(1.5093, 0.4907)" in lesson_text(pages[MH])                 # the exact value, said once


def test_multihead_head2_output_keeps_its_second_decimal(pages):
    z2 = frame_after(pages[MH], "出力 Z⁽²⁾")
    assert list(z2.loc["猫"]) == ["1.00", "0.15"]                       # 0.90·0 + 0.05·2 + 0.05·1
    assert list(z2.loc["魚"]) == ["1.00", "0.30"]
    ex = tutor.multihead.textbook_two_heads()
    assert format_number(ex.head2_output[0, 1], 2) == "0.15"


def test_multihead_calls_w_a_transformation_matrix(pages):
    text = lesson_text(pages[MH])
    assert "変換行列 $W_Q^{(i)}" in text and "重み行列" not in text
