"""AppTest of ⑦-1 /position: figures, sliders, permutation and RoPE widgets, positions counted from zero."""
import numpy as np
import pytest

import tutor
from tutor import textbook as tb
from ui.validate import format_number

from apphelpers import (
    chart_data, check_quiz, lesson_text, metric_part, open_page, page_text, sections_of, show_section, steppers
)


POSITION = "pages/7_position.py"


def test_position_page_figures():
    at = open_page(POSITION)
    assert not at.exception
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert "ねらい" in page_text(at) and "並べ替え同変性" in page_text(at)
    show_section(at, "hand")
    text = page_text(at)
    for s in ("0.8415", "0.5403", "0.0100", "0.99995"):
        assert s in text
    show_section(at, "visual")
    # permutation demo: 0 without PE, engine's value with PE
    pe = tutor.positional_encoding(3, 4)
    with_pe = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, [2, 0, 1], pe).max_diff
    assert metric_part(at, "差の最大値（PE なし）") == "0.000"
    assert metric_part(at, "差の最大値（PE あり）") == f"{with_pe:.3f}" == "0.714"
    # the heatmap positions × dimensions: 50 × 64 cells, values of the engine's table
    df = chart_data(at, 0)
    assert len(df) == 50 * 64
    cell = df[(df["row"] == 1) & (df["col"] == 0)]["value"].iloc[0]
    assert cell == pytest.approx(np.sin(1.0))
    check_quiz(at, "position")


def test_position_sliders_change_output():
    at = open_page(POSITION, section="try")
    before = page_text(at)
    at.slider(key="pos_pos").set_value(7).run()
    assert not at.exception
    after = page_text(at)
    assert after != before
    value = tutor.positional_encoding(8, 8)[7, 0]
    assert f"{value:.4f}" in after
    at.select_slider(key="pos_d_model").set_value(16).run()
    assert not at.exception
    charts = at.get("vega_lite_chart")
    df = chart_data(at, len(charts) - 1)        # the try-it heatmap: 30 positions × 16 dims
    assert len(df) == 30 * 16
    assert df["value"].to_numpy() == pytest.approx(tutor.positional_encoding(30, 16).ravel())
    # the sliders keep their values when the learner leaves 試してみよう and comes back
    show_section(at, "hand")
    show_section(at, "try")
    assert at.slider(key="pos_pos").value == 7 and at.select_slider(key="pos_d_model").value == 16
    shown = page_text(at)
    assert all(format_number(e.value, 5) in shown for e in tutor.position.pe_breakdown(7, 16))


def test_position_permutation_and_rope_widgets():
    at = open_page(POSITION, section="try")
    at.selectbox(key="pos_perm").set_value("魚・猫・それ").run()
    assert not at.exception
    assert metric_part(at, "魚・猫・それ：差の最大値（PE なし）") == "0.000"
    assert float(metric_part(at, "魚・猫・それ：差の最大値（PE あり）")) > 0.01
    # the RoPE offset is answered in the browser (ui.stepper): a table for every offset −5 … 10
    shift = steppers(at)["pos_rope_offset"]
    assert shift.options == [format_number(d, 0) for d in range(-5, 11)]
    assert shift.options[shift.value] == "2"
    for offset in range(-5, 11):
        (frame,) = shift.tables(format_number(offset, 0))
        expected = tutor.position.rope_shift_table(tb.ROPE_Q, tb.ROPE_K, offset, range(5, 30, 6))
        assert list(frame["RoPE のスコア"]) == [format_number(r.rope, 4) for r in expected]
        assert list(frame["PE を足した場合のスコア"]) == [format_number(r.additive, 4) for r in expected]
        assert len(set(frame["RoPE のスコア"])) == 1          # RoPE sees the offset only
    (at3,) = shift.tables("3")
    assert at3["RoPE のスコア"][0] == format_number(tutor.position.rope_score(tb.ROPE_Q, tb.ROPE_K, 8, 5), 4)
    # learned position vectors: reproducible from the seed
    at.number_input(key="pos_seed").set_value(5).run()
    table = tutor.position.learned_position_table(4, 4, np.random.default_rng(5))
    assert f"{table[0, 0]:.4f}" in page_text(at)
    # 可視化 keeps its own fixed example: それ・猫・魚 and the seed-0 table, whatever was tried
    show_section(at, "visual")
    assert metric_part(at, "差の最大値（PE あり）") == "0.714"
    seed0 = tutor.position.learned_position_table(4, 4, np.random.default_rng(0))
    assert f"{seed0[0, 0]:.4f}" in page_text(at)


def test_position_counts_from_zero_once_and_rope_has_no_n(pages):
    at = pages[POSITION]
    text = lesson_text(at)
    assert text.count("0 から") == 1 and "pos = 0" in text
    assert "キーの位置 n" not in text and "m − n" not in text
    assert "Self-Attention" in text and text.count("Self-Attention") == 1   # English once, then 自己注意
    pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    assert f"({format_number(pencil.z[0, 0], 3)}, {format_number(pencil.z[0, 1], 3)})" in text  # (1.510, 0.492)
    assert "下の「可視化」" not in text and "（「可視化」で確かめます）" in text      # the tab is named, not "below"
