"""AppTest for ⑩-3 モデルと推論を軽くする (pages/19_efficient.py): each section shows the engine's numbers
(the soft targets at T = 1, 2, 4 and the distillation loss, the quantized vector and a 7B model's
memory per bit width, the pruned 3×4 weights and the rewound ticket, the KV cache moved from ⑩-1, the
scores of a sliding window), the secondary topics are folded, an edit in 試してみよう changes what the
page shows and what 可視化 draws, bad input gives a Japanese message and keeps the last result, the
quiz is answered."""
from __future__ import annotations

import numpy as np
import pytest

import quizzes
import ui
from apphelpers import (chart_data, chart_series, edit_matrix, heatmap_numbers, heatmaps, metric, open_page,
                        page_text, rows_of, sections_of, show_section, tables)
from quizzes.core import TOPICS
from tutor import efficient as ef, numfmt

PAGE = "pages/19_efficient.py"


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_page_is_registered_after_llm_with_the_section_layout(page):
    keys = ui.LEARNING_KEYS
    assert ui.PAGE_BY_KEY["efficient"].url == "/efficient" and keys.index("efficient") > keys.index("llm")
    assert TOPICS["efficient"] == ui.PAGE_BY_KEY["efficient"].label == "⑩-3 モデルと推論を軽くする"
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert len(quizzes.by_topic("efficient", "calc")) >= 3 and len(quizzes.by_topic("efficient", "knowledge")) >= 8


def test_aim_and_explanation(page):
    show_section(page, "aim")
    text = page_text(page)
    for term in ("モデルの軽量化", "エッジAI", "蒸留", "ソフトターゲット", "ハードターゲット", "教師モデル", "生徒モデル",
                 "量子化", "ゼロ点", "プルーニング", "宝くじ仮説", "当たりくじ", "KV キャッシュ", "Grouped-Query Attention",
                 "Longformer", "BigBird", "線形注意", "FlashAttention", "投機的デコーディング", "Mixture of Experts"):
        assert term in text, term
    for fact in ("Hinton ら、2015 年", "Jacob ら（2017 年）", "Han ら（2015 年）", "Frankle と Carbin、2018 年",
                 "Shazeer、2019 年", "Ainslie ら、2023 年", "Beltagy ら、2020 年", "Zaheer ら、2020 年",
                 "Katharopoulos ら、2020 年", "Dao ら、2022 年", "Leviathan ら、2022 年", "Fedus ら、2021 年"):
        assert fact in text, fact
    assert "/cost?section=" in text and "近似ではなく" in text                    # FlashAttention → ⑦-5, not redone
    assert f"{numfmt.trimmed(ef.speculative_tokens(0.8, 4), 2)} トークン" in text      # 3.36 from the engine
    assert "T^2" in text and "何を減らすか" in text


def test_the_explanation_keeps_the_syllabus_open_and_folds_the_rest():
    closed = open_page(PAGE, unfold=False)
    assert [e.label for e in closed.expander] == [
        "KV キャッシュと MQA・GQA", "長い系列の注意：スパースな注意と線形注意", "FlashAttention：同じ計算をメモリに優しく",
        "投機的デコーディングと Mixture of Experts"]
    text = page_text(closed)
    assert "宝くじ仮説" in text and "ソフトターゲット" in text
    assert not any(t in text for t in ("Grouped-Query Attention", "BigBird", "Leviathan"))


def test_hand_calculations_are_the_engines(page):
    show_section(page, "hand")
    text = page_text(page)
    two = ef.soft_targets(ef.DEMO_TEACHER, 2)
    assert "e^{z/T} &= (7.389,\\ 2.718,\\ 1.000)" in text and "p &= (0.665,\\ 0.245,\\ 0.090)" in text
    assert f"（{numfmt.fixed(two.exp_sum, 3)}）" in text and "（11.107）" in text
    soft = next(t for t in tables(page) if "温度 T" in t.columns)
    assert list(soft["猫"]) == ["0.867", "0.665", "0.506"] and list(soft["車"]) == ["0.016", "0.090", "0.186"]
    d = ef.distillation_loss(ef.DEMO_TEACHER, ef.DEMO_STUDENT, 2)
    assert f"T^2 H &= 4 \\times {numfmt.fixed(d.soft_ce, 3)} = {numfmt.fixed(d.soft, 3)}" in text
    assert f"L &= {numfmt.fixed(d.total, 3)}" in text and "L &= 3.503" in text
    quant = next(t for t in tables(page) if "整数 q" in t.columns)
    assert list(quant["整数 q"]) == ["50", "-127", "83", "-32"] and list(quant["誤差"]) == ["0", "0", "0.004", "0.004"]
    assert "S = \\frac{\\max|x|}{127} = \\frac{1.27}{127} = 0.01" in text and "誤差の大きさが 0.006" in text
    memory = next(t for t in tables(page) if "重みのメモリ" in t.columns)
    assert list(memory["重みのメモリ"]) == ["28 GB", "14 GB", "7 GB", "3.5 GB"]
    assert "絶対値 0.25 以下の 6 個が消え、6 個が残ります" in text
    assert "**2 GiB**" in text
    kv = next(t for t in tables(page) if "方式" in t.columns)
    assert list(kv["全体"]) == ["2 GiB", "512 MiB", "64 MiB"] and list(kv["MHA の何分の 1"]) == ["1", "4", "32"]
    assert "n(2r+1) &= 12 \\times 5 = 60" in text and "\\text{窓のスコア} &= 54" in text and "72 個" in text


def test_the_kv_formula_fits_a_phone_column(page):
    """Issue 41: on a 390 px phone the KV-cache formula lost its last factor; now no row is long."""
    show_section(page, "aim")
    formula = next(el.value for el in page.get("latex") if "\\text{KV キャッシュ}" in el.value)
    rows = formula.strip("$\n").split("\\\\")
    widths = [ui.handcalc._visible_len(r) for r in rows]
    assert len(rows) == 3 and max(widths) <= ui.handcalc.LINE_CHARS and "B" in rows[-1], widths


def test_visual_charts_and_heatmaps(page):
    show_section(page, "visual")
    series = chart_series(page)
    assert sorted(ef.DEMO_CLASSES) in series
    assert ["上限 S/2", "最大の誤差"] in series
    assert ["KV ヘッド 1", "KV ヘッド 32", "KV ヘッド 8"] in series                    # 試してみよう's defaults
    assert len(heatmaps(page)) == 6                                               # 4 pruning maps, 2 masks
    p = ef.magnitude_prune(ef.DEMO_MATRIX, 0.5)
    assert np.allclose(heatmap_numbers(page, 1), p.pruned)
    assert np.allclose(heatmap_numbers(page, 3), ef.winning_ticket(ef.DEMO_INIT, ef.DEMO_MATRIX, 0.5).ticket)
    assert heatmap_numbers(page, 4).sum() == 144
    assert np.array_equal(heatmap_numbers(page, 5), ef.window_mask(12, 2, 1).astype(float))


def test_try_edits_change_the_numbers_and_the_charts():
    at = open_page(PAGE, section="try")
    edit_matrix(at, "efficient_logits", rows_of(np.array([[3.0, 1.0, 0.0], [1.0, 1.0, 1.0]])))
    at.number_input(key="efficient_t").set_value(1.0).run()
    d = ef.distillation_loss([3, 1, 0], [1, 1, 1], 1.0)
    assert metric(at, "T² × H(p, q)") == numfmt.fixed(d.soft, 3)
    edit_matrix(at, "efficient_qx", rows_of(np.array([[0.7, -0.35, 0.1, 0.0]])))
    at.number_input(key="efficient_bits").set_value(4).run()
    assert metric(at, "スケール S") == "0.1"
    at.radio(key="efficient_scheme").set_value("非対称（ゼロ点あり）").run()
    assert metric(at, "ゼロ点 Z") == str(int(ef.quantize([0.7, -0.35, 0.1, 0.0], 4, symmetric=False).zero_point))
    at.select_slider(key="efficient_sparsity").set_value(0.75).run()
    assert metric(at, "0 にした重み") == "9 / 12"
    at.number_input(key="efficient_kv_groups").set_value(4).run()
    at.number_input(key="efficient_kv_context").set_value(8192).run()
    assert metric(at, "KV キャッシュ（16 ビット）") == "512 MiB" and metric(at, "ヘッドごとに持つ場合の何分の 1") == "8"
    at.number_input(key="efficient_win_n").set_value(8).run()
    at.number_input(key="efficient_win_g").set_value(0).run()
    assert metric(at, "計算するスコア") == "34" and len(heatmaps(at)) == 1            # 8·5 − 6
    assert not at.exception and not at.error
    show_section(at, "visual")                                                   # 可視化 follows every edit
    assert ["KV ヘッド 1", "KV ヘッド 32", "KV ヘッド 4"] in chart_series(at)
    curve = chart_data(at, 0)
    at_one = curve[(curve["系列"] == ef.DEMO_CLASSES[0]) & (curve["x"] == 1.0)]["y"]
    assert float(at_one.iloc[0]) == pytest.approx(ef.soft_targets([3, 1, 0], 1).probs[0])
    assert np.allclose(heatmap_numbers(at, 1), ef.magnitude_prune(ef.DEMO_MATRIX, 0.75).pruned)


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    edit_matrix(at, "efficient_logits", rows_of(np.array(ef.DEMO_TEACHER + ef.DEMO_STUDENT).reshape(2, 3), {(0, 1): "abc"}))
    assert not at.exception and at.error
    assert metric(at, "T² × H(p, q)") == numfmt.fixed(ef.distillation_loss(ef.DEMO_TEACHER, ef.DEMO_STUDENT, 2).soft, 3)
    edit_matrix(at, "efficient_qx", rows_of(np.zeros((1, 4))))
    assert any("すべての値が 0" in e.value for e in at.error) and metric(at, "スケール S") == "0.01"
    at.number_input(key="efficient_kv_groups").set_value(5).run()
    assert any("割り切れません" in e.value and "5" in e.value for e in at.error)
    assert metric(at, "ヘッドごとに持つ場合の何分の 1") == "4"                       # the last valid result stays
    at.number_input(key="efficient_win_n").set_value(3).run()
    at.number_input(key="efficient_win_g").set_value(5).run()
    assert any("グローバルなトークンの数 5" in e.value for e in at.error) and not at.exception
    show_section(at, "visual")                                                   # 可視化 says it too, in Japanese
    assert any("割り切れません" in e.value for e in at.error) and not at.exception


def test_logits_the_engine_refuses_are_said_in_japanese_in_the_visual_too():
    """Logits past ±1,000 typed in 試してみよう (the fuzz found -24257): 可視化's soft-target chart says the
    engine's message instead of raising, and keeps the last valid chart once there was one."""
    at = open_page(PAGE, section="visual")                                      # a valid chart first
    show_section(at, "try")
    edit_matrix(at, "efficient_logits", rows_of(np.array([[3.0, -24257.0, 0.0], [1.0, 1.0, 1.0]])))
    assert not at.exception and any("1,000 以下" in e.value for e in at.error)
    show_section(at, "visual")
    assert not at.exception and any("1,000 以下" in e.value for e in at.error)
    assert sorted(ef.DEMO_CLASSES) in chart_series(at)                          # the last valid curve stays
    fresh = open_page(PAGE, section="try")                                      # 可視化 never drawn before
    edit_matrix(fresh, "efficient_logits", rows_of(np.array([[3.0, -24257.0, 0.0], [1.0, 1.0, 1.0]])))
    show_section(fresh, "visual")
    assert not fresh.exception and any("1,000 以下" in e.value for e in fresh.error)
    assert sorted(ef.DEMO_CLASSES) not in chart_series(fresh)


def test_a_number_out_of_range_is_replaced_and_said_in_japanese():
    at = open_page(PAGE, section="try")
    at.number_input(key="efficient_bits").set_value(40).run()
    assert not at.exception
    assert any("入力された 40 の代わりに 16 を使っています" in w.value for w in at.warning)
