"""AppTest for ⑩-1 大規模言語モデルとその後 (pages/14_llm.py): each section shows the engine's numbers
(GPT-3's count, Chinchilla's split, BPE's merges, Swin's ratio, MAE's patches; the reward model moved
to ⑩-2, tests/test_adapt_page.py, the KV cache to ⑩-3, tests/test_efficient_page.py, CLIP to ⑪,
tests/test_multimodal_page.py), an edit in 試してみよう changes what the page shows, bad input gives a
Japanese message and keeps the last result, the quiz is answered."""
from __future__ import annotations

import numpy as np
import pytest

import quizzes
import ui
from apphelpers import (chart_series, heatmap_numbers, heatmaps, metric, open_page, page_text,
                        sections_of, show_section, steppers, tables)
from quizzes.core import TOPICS
from tutor import llm, numfmt

PAGE = "pages/14_llm.py"


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_page_is_registered_after_the_bert_family_with_the_section_layout(page):
    assert ui.PAGE_BY_KEY["llm"].url == "/llm"
    assert ui.LEARNING_KEYS[ui.LEARNING_KEYS.index("llm") - 1] == "bertfamily"      # ⑨-2 sits between ⑨-1 and ⑩-1
    assert ui.LEARNING_KEYS[ui.LEARNING_KEYS.index("llm") + 1] == "adapt"            # ⑩-2 follows
    assert TOPICS["llm"] == ui.PAGE_BY_KEY["llm"].label == "⑩-1 大規模言語モデルとその後"
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert quizzes.by_topic("llm", "calc") and len(quizzes.by_topic("llm", "knowledge")) >= 8


def test_aim_and_explanation(page):
    show_section(page, "aim")
    text = page_text(page)
    assert "12\\,L\\,d_{\\text{model}}^2" in text and "175B" in text
    g3 = llm.gpt_param_count(96, 12_288, context=2048)
    assert f"約 ${numfmt.sci(g3.total, 2, tex=True)}$" in text                 # 1.75×10¹¹ from the engine
    for term in ("zero-shot", "few-shot", "文脈内学習", "Chain-of-Thought", "ハルシネーション",
                 "BPE", "Swin Transformer", "MAE"):
        assert term in text, term
    # instruction tuning, RLHF, ChatGPT and foundation models moved to ⑩-2, the KV cache, MQA/GQA and
    # FlashAttention to ⑩-3, CLIP to ⑪: one pointer to each is left
    assert "報酬モデル" not in text and "2022 年 11 月" not in text and "Grouped-Query Attention" not in text
    assert f"[{ui.PAGE_BY_KEY['adapt'].label}](/adapt)" in text and "/efficient?section=" in text
    assert "/multimodal?section=" in text and "⑪ 画像生成とマルチモーダル" in text


def test_the_explanation_keeps_gpt_and_scaling_open_and_folds_the_rest_one_tap_away():
    """A phone opens ⑩ on its first section: GPT and the scaling laws (computed) are drawn, the
    other topics are lazy expanders that send nothing until tapped (ui.folded_topics)."""
    closed = open_page(PAGE, unfold=False)
    assert [e.label for e in closed.expander] == [
        "プロンプトだけで課題を解かせる", "ハルシネーション：もっともらしい誤り", "文章をトークンに分ける：BPE",
        "ViT のあと：Swin Transformer・MAE"]
    text = page_text(closed)
    assert "175B" in text and not any(t in text for t in ("思考の連鎖", "報酬モデル", "バイト対符号化"))


def test_hand_calculations_are_the_engines(page):
    show_section(page, "hand")
    text = page_text(page)
    g3 = llm.gpt_param_count(96, 12_288, context=2048)
    for shown in (numfmt.grouped(g3.total), numfmt.grouped(g3.rule_of_thumb), "174,604,259,328", "173,946,175,488",
                  "99.6%", "124,439,808", "1,557,611,200"):
        assert shown in text, shown
    assert "N &= \\sqrt{C/120} = 7\\times 10^{10}" in text and "D &= 20N = 1.4\\times 10^{12}" in text
    assert "5.12\\times 10^{10}" in text                                     # GPT-3's budget, split optimally
    bpe = next(t for t in tables(page) if "つないだ組" in t.columns)
    merges = llm.bpe_train(llm.BPE_DEMO_CORPUS, 8).merges
    assert list(bpe["つないだ組"]) == [f"{a} + {b} → {a}{b}" for a, b in merges]
    assert "stayed → stay ＋ e ＋ d" in text
    assert "**64 分の 1**" in text and "13.8 分の 1" in text
    assert "**49 個**" in text and "147 個" in text
    assert "CLIP" not in "".join(h.value for h in page.subheader)           # CLIP's calculation is on ⑪
    assert "浮動小数点の丸めの大きさ" not in text and "KV キャッシュのメモリ" not in text       # moved to ⑩-3


def test_visual_charts_and_heatmaps(page):
    show_section(page, "visual")
    hms = heatmaps(page)
    assert len(hms) == 3                                                    # 2 window maps, MAE's mask
    assert np.array_equal(heatmap_numbers(page, 0), llm.swin_window_ids(8, 8, 4).astype(float))
    assert np.array_equal(heatmap_numbers(page, 1), llm.swin_window_ids(8, 8, 4, shifted=True).astype(float))
    mask = heatmap_numbers(page, 2)
    assert mask.shape == (14, 14) and mask.sum() == 49
    assert np.array_equal(mask, llm.mae_mask(196, np.random.default_rng(0)).grid(14, 14))
    assert "llm_beta" not in steppers(page)                                 # the KL stepper moved to ⑩-2
    series = chart_series(page)
    assert ["損失 L(N)（べき乗則）"] in series            # a legend cannot show math: words, not N_c/N
    assert ["最適なトークン数 D", "最適なパラメータ数 N"] in series


def test_try_edits_change_the_numbers():
    at = open_page(PAGE, section="try")
    at.number_input(key="llm_layers").set_value(12).run()
    at.number_input(key="llm_width").set_value(768).run()
    at.number_input(key="llm_context").set_value(1024).run()
    assert metric(at, "数えたパラメータ数") == "124,439,808" and metric(at, "12·L·d² の見積もり") == "84,934,656"
    at.number_input(key="llm_budget_m").set_value(1.2).run()
    at.number_input(key="llm_budget_e").set_value(20).run()
    assert metric(at, "最適なパラメータ数 N") == "1.00×10⁹" and metric(at, "最適なトークン数 D") == "2.00×10¹⁰"
    at.text_area(key="llm_bpe_text").set_value("low low low lower lowest").run()
    at.number_input(key="llm_bpe_merges").set_value(2).run()
    at.text_input(key="llm_bpe_word").set_value("slow").run()
    bpe = next(t for t in tables(at) if "つないだ組" in t.columns)
    assert list(bpe["つないだ組"]) == ["l + o → lo", "lo + w → low"]
    assert metric(at, "「slow」のトークン数") == "2"
    at.number_input(key="llm_swin_window").set_value(8).run()
    assert metric(at, "注意の部分：全体 ÷ 窓") == "49"
    assert not at.exception and not at.error


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    at.number_input(key="llm_swin_window").set_value(5).run()
    assert not at.exception
    assert any("割り切れません" in e.value and "56×56" in e.value for e in at.error)
    assert metric(at, "注意の部分：全体 ÷ 窓") == "64"
    at.text_area(key="llm_bpe_text").set_value("   ").run()
    assert any("コーパスが空です" in e.value for e in at.error)
    at.text_area(key="llm_bpe_text").set_value("ab ab cd").run()
    at.text_input(key="llm_bpe_word").set_value("  ").run()
    assert any("区切る単語" in e.value for e in at.error)
    at.text_input(key="llm_bpe_word").set_value("[x](javascript:alert(1))").run()
    assert any("文字以外" in e.value for e in at.error) and not at.exception
    assert metric(at, "「stayed」のトークン数") == "6"                  # the last valid word, cut with the new merges
    at.number_input(key="llm_swin_window").set_value(7).run()
    assert not [e for e in at.error if "割り切れません" in e.value]


def test_a_number_out_of_range_is_replaced_and_said_in_japanese():
    at = open_page(PAGE, section="try")
    at.number_input(key="llm_layers").set_value(500).run()
    assert not at.exception
    assert any("入力された 500 の代わりに 200 を使っています" in w.value for w in at.warning)
