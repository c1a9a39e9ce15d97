"""AppTest for ⑨-1 BERT・GPT・ViT (pages/13_pretrain.py), section by section: the engine's numbers
in 手計算, the MLM draw and the patch grid as chart data in 可視化, inputs of 試してみよう that change
them (and stay when the learner comes back), bad input → a Japanese error (nothing lost), and the
quiz answered."""
from __future__ import annotations

import numpy as np
import pytest

from apphelpers import (
    assert_heatmap_is, charts_with, heatmaps, metric_part, open_page, page_text, sections_of, show_section, steppers
)
from tutor import pretrain as pt
from ui.validate import format_number

PAGE = "pages/13_pretrain.py"


@pytest.fixture(scope="module")
def page():
    """One session of the page, read only: each test opens the section it reads."""
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


TOKENS = pt.bert_input(pt.DEMO_SENTENCE_A, pt.DEMO_SENTENCE_B).tokens


def test_page_runs_in_the_rhythm_and_is_registered(page):
    show_section(page, "aim")
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    headings = [h.value for h in page.subheader]
    assert headings == ["ねらい", "解説", "事前学習とファインチューニング", "BERT：エンコーダだけを積み重ねたモデル",
                        "GPT：デコーダだけを積み重ねたモデル", "Vision Transformer：画像をパッチのトークン列にする"]
    assert any(c.value.startswith("Transformer のその後") for c in page.caption)     # the page's subtitle
    import ui
    assert ui.PAGE_BY_KEY["pretrain"].url == "/pretrain"
    assert ui.LEARNING_KEYS.index("pretrain") == ui.LEARNING_KEYS.index("training") + 1     # ⑨ follows ⑧


def test_engine_figures_are_shown_in_the_hand_calculation(page):
    show_section(page, "hand")
    text = page_text(page)
    base = pt.bert_param_count(12, 768, 12)
    large = pt.bert_param_count(24, 1024, 16)
    vit = pt.vit_param_count()
    for shown in (f"{base.total:,}", f"{large.total:,}", f"{vit.backbone:,}", f"{vit.total:,}",
                  "109,482,240", "335,141,888", "85,798,656", "1,538", "0.982"):
        assert shown in text, shown
    assert "= 14 \\times 14 + 1 \\\\ &= 196 + 1 = 197" in text
    assert "= 30" in text and "= 24" in text          # 200 × 0.15 = 30, 30 × 0.8 = 24
    assert f"全部で {len(TOKENS)} トークン。" in text
    assert "ViT-B/16 のトークン数とパラメータ数" in [h.value for h in page.subheader]


def test_the_try_section_starts_at_the_textbook_sizes(page):
    show_section(page, "try")
    assert metric_part(page, "トークン数") == "197"
    assert metric_part(page, "パラメータ数") == f"{pt.bert_param_count(12, 768, 12).total:,}"
    assert page.text_input(key="pretrain_sentence").value == " ".join(TOKENS)


def test_mlm_chart_is_the_engines_draw(page):
    show_section(page, "visual")
    (chart,) = charts_with(page, "モデルが見る入力")
    want = pt.mlm_draw(TOKENS, np.random.default_rng(2))
    assert chart["モデルが見る入力"].tolist() == list(want.masked)
    assert "別の語に置換" in chart["処理"].tolist() and "[MASK] に置換" in chart["処理"].tolist()
    show_section(page, "try")
    (chart,) = charts_with(page, "モデルが見る入力")
    seed1 = pt.mlm_draw(TOKENS, np.random.default_rng(1))
    assert chart["モデルが見る入力"].tolist() == list(seed1.masked)


def test_patch_grid_and_gpt_steps(page):
    show_section(page, "visual")
    (grid,) = charts_with(page, "トークン番号")
    assert len(grid) == 196 and sorted(grid["トークン番号"]) == list(range(1, 197))
    text = page_text(page)
    assert "<bos> 猫 は 魚 を 食べた" in text
    last = pt.gpt_greedy([0], 6)[-1]
    [heat] = heatmaps(page)
    assert_heatmap_is(page, 0, last.weights, heat.rows, heat.cols)
    assert len(heat.rows) == len(heat.cols) == last.weights.shape[0] and heat.rows[0] == "<bos>"


def test_editing_inputs_changes_the_numbers():
    at = open_page(PAGE, section="try")
    at.number_input(key="pretrain_img_h").set_value(384).run()
    at.number_input(key="pretrain_img_w").set_value(384).run()
    assert not at.exception
    assert metric_part(at, "トークン数") == "577"
    at.number_input(key="pretrain_patch").set_value(32).run()
    assert metric_part(at, "トークン数") == f"{pt.vit_tokens(384, 384, 32):,}" == "145"
    at.number_input(key="pretrain_layers").set_value(24).run()
    at.number_input(key="pretrain_hidden").set_value(1024).run()
    at.number_input(key="pretrain_heads").set_value(16).run()
    assert metric_part(at, "パラメータ数") == "335,141,888"
    at.number_input(key="pretrain_seed").set_value(2).run()
    (chart,) = charts_with(at, "モデルが見る入力")
    assert chart["モデルが見る入力"].tolist() == list(pt.mlm_draw(TOKENS, np.random.default_rng(2)).masked)  # = 可視化's
    at.text_input(key="pretrain_sentence").set_value("[CLS] 犬 は 骨 を 拾った [SEP]").run()
    want = pt.mlm_draw(["[CLS]", "犬", "は", "骨", "を", "拾った", "[SEP]"], np.random.default_rng(2))
    assert charts_with(at, "モデルが見る入力")[0]["モデルが見る入力"].tolist() == list(want.masked)
    at.selectbox(key="pretrain_gpt_start").set_value(3).run()
    # the length is answered in the browser (ui.stepper): the generation at every length 1 … 10
    gen_steps = steppers(at)["pretrain_gpt_steps"]
    assert gen_steps.options == [str(n) for n in range(1, 11)] and gen_steps.options[gen_steps.value] == "4"
    for n in range(1, 11):
        (frame,) = gen_steps.tables(str(n))
        gen = pt.gpt_greedy([3], n)
        assert list(frame["最も確率の高い次の語"]) == [pt.GPT_VOCAB[s.chosen] for s in gen]
        assert list(frame["その確率"]) == [format_number(s.probs[s.chosen], 3) for s in gen]
    (three,) = gen_steps.tables("3")
    assert list(three["最も確率の高い次の語"]) == ["を", "食べた", "。"]
    assert list(three["読んだ列"])[-1] == "魚 を 食べた"
    at.number_input(key="pretrain_nsp_seed").set_value(5).run()
    pair = pt.nsp_pair(len(pt.NSP_CORPUS), 0, np.random.default_rng(5))
    assert f"u = {pair.coin:.3f}" in page_text(at)
    assert not at.exception
    # the learner's inputs live in the session: away to 手計算 (which keeps the textbook's ViT-B/16) and back
    show_section(at, "hand")
    assert "= 14 \\times 14 + 1 \\\\ &= 196 + 1 = 197" in page_text(at)
    show_section(at, "try")
    assert metric_part(at, "トークン数") == "145" and metric_part(at, "パラメータ数") == "335,141,888"
    assert charts_with(at, "モデルが見る入力")[0]["モデルが見る入力"].tolist() == list(want.masked)
    assert f"u = {pair.coin:.3f}" in page_text(at)


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    at.number_input(key="pretrain_img_h").set_value(225).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("割り切れません" in e and "225" in e for e in errors), errors
    assert metric_part(at, "トークン数") == "197"                  # the last valid result stays
    at.number_input(key="pretrain_heads").set_value(7).run()
    assert any("割り切れません" in e.value and "7" in e.value for e in at.error)
    assert metric_part(at, "パラメータ数") == "109,482,240"
    at.text_input(key="pretrain_sentence").set_value("   ").run()
    assert not at.exception
    assert any("文が空です" in e.value for e in at.error)
    at.text_input(key="pretrain_sentence").set_value("[CLS] [SEP]").run()
    assert any("普通のトークン" in e.value for e in at.error)
    at.number_input(key="pretrain_img_h").set_value(224).run()
    at.number_input(key="pretrain_heads").set_value(12).run()
    assert not [e for e in at.error if "割り切れません" in e.value]


def test_a_size_out_of_range_is_replaced_and_said_in_japanese():
    """ui.number_input on ⑨ too: 5,000 px is clamped to 4,096 and the page says which number it uses."""
    at = open_page(PAGE, section="try")
    at.number_input(key="pretrain_img_h").set_value(5000).run()
    assert not at.exception
    assert any("入力された 5,000 の代わりに 4,096 を使っています" in w.value for w in at.warning)
