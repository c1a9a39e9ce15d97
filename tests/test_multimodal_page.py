"""AppTest for ⑪ 画像生成とマルチモーダル (pages/24_multimodal.py): registered before ⑪-2 (the last learning page),
every section shows the engine's numbers (CLIP's table, its row and column softmax and loss, the
zero-shot probabilities, the cross-attention's weights, ᾱ_t and x_t, the guided noise), an edit in
試してみよう changes what the page shows, bad input gives a Japanese message and keeps the last result,
and the quiz is answered."""
from __future__ import annotations

import numpy as np
import pytest

import quizzes
import ui
from apphelpers import (assert_cell_error, assert_heatmap_is, chart_data, edit_matrix,
                        heatmap_numbers, heatmaps, metric, open_page, page_text, rows_of, sections_of, show_section,
                        tables)
from quizzes.core import TOPICS
from tutor import multimodal as mm
from tutor import numfmt

PAGE = "pages/24_multimodal.py"
IMAGES = [f"{c}の画像" for c in mm.CLIP_DEMO_LABELS]
PROMPTS = [f"{c}の写真" for c in mm.CLIP_DEMO_LABELS]


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def demo():
    return mm.clip_batch(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS, mm.CLIP_DEMO_TEMPERATURE)


def cross():
    return mm.text_image_attention(mm.CROSS_DEMO_LATENTS, mm.CROSS_DEMO_TEXT, mm.CROSS_DEMO_W_Q, mm.CROSS_DEMO_W_K,
                                   mm.CROSS_DEMO_W_V)


def test_page_comes_before_generation_with_the_section_layout(page):
    assert ui.PAGE_BY_KEY["multimodal"].url == "/multimodal" and ui.LEARNING_KEYS[-2] == "multimodal"
    assert TOPICS["multimodal"] == ui.PAGE_BY_KEY["multimodal"].label == "⑪ 画像生成とマルチモーダル"
    assert list(TOPICS)[-2] == "multimodal"
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert len(quizzes.by_topic("multimodal", "calc")) >= 3 and len(quizzes.by_topic("multimodal", "knowledge")) >= 8
    assert ui.next_page("llm").key in ui.LEARNING_KEYS and ui.next_page("multimodal").key == "generation"


def test_aim_and_explanation_name_every_keyword_with_its_source(page):
    show_section(page, "aim")
    text = page_text(page)
    for term in ("マルチモーダル", "マルチタスク学習", "CLIP", "ゼロショット", "基盤モデル", "Image Captioning",
                 "Visual Question Answering", "Text-To-Image", "DALL-E", "拡散モデル", "GAN", "VAE", "Flamingo",
                 "Unified-IO", "Stable Diffusion", "分類器なしガイダンス", "LLaVA", "Show, Attend and Tell"):
        assert term in text, term
    for fact in ("Radford ら、2021 年", "約 4 億組", "Ramesh ら、2021 年", "Ho ら、2020 年", "Rombach ら、2022 年",
                 "Ho と Salimans、2022 年", "Alayrac ら、2022 年", "Lu ら、2022 年", "Liu ら、2023 年", "Xu ら、2015 年",
                 "Antol ら、2015 年", "120 億パラメータ", "8,192 種類", "90 を超える"):
        assert fact in text, fact
    assert "変えたい側がクエリ" in text and "T = 1{,}000" in text and "64 × 64 = 4,096" in text


def test_the_explanation_keeps_the_bridge_and_clip_open_and_folds_the_rest():
    closed = open_page(PAGE, unfold=False)
    assert [e.label for e in closed.expander] == [
        "画像から文へ：Image Captioning と VQA", "文から画像へ：DALL-E と拡散モデル", "拡散モデルの式：ノイズを足す・取り除く",
        "文で画像を操る：Stable Diffusion とガイダンス（発展）", "1 つのモデルで多くの課題：Flamingo・Unified-IO・LLaVA"]
    text = page_text(closed)
    assert "CLIP" in text and "対照学習" in text and "Unified-IO（Lu ら" not in text


def test_hand_calculations_are_the_engines(page):
    show_section(page, "hand")
    text = page_text(page)
    b = demo()
    assert "= \\frac{48}{50} = 0.96" in text
    probs = [t for t in tables(page) if list(t.columns) == PROMPTS]
    shown = [np.array(t.to_numpy(), dtype=float) for t in probs]
    assert any(np.allclose(s, np.round(b.probs.image_to_text, 3)) for s in shown)
    assert any(np.allclose(s, np.round(b.probs.text_to_image, 3)) for s in shown)
    assert f"= {numfmt.trimmed(b.probs.loss, 3)}" in text and "0.194" in text
    assert "「猫の写真」（0.774）" in text and "車と答えてしまいます" in text
    r = cross()
    weights = [t for t in tables(page) if list(t.columns) == list(mm.CROSS_DEMO_TOKENS) and len(t) == 4][-1]
    assert np.allclose(np.array(weights.to_numpy(), dtype=float), np.round(r.weights, 3))
    assert "= (1,\\ 0.2)" in text                                            # x₃ = 0.6 x₀ + 0.8 ε
    assert "\\bar\\alpha_3 &= 0.72 \\times (1 - 0.5) = 0.36" in text
    assert "= (1.4,\\ 1.4)" in text                                          # ε̂ = ε_u + 3 (ε_c − ε_u)


def test_visual_heatmaps_and_charts_are_the_engines(page):
    show_section(page, "visual")
    b, r = demo(), cross()
    hms = heatmaps(page)
    assert np.allclose(heatmap_numbers(page, 0), np.round(b.cosine, 2))
    assert np.allclose(heatmap_numbers(page, 1), np.round(b.probs.image_to_text, 3))
    assert np.allclose(heatmap_numbers(page, 2), np.round(b.probs.text_to_image, 3))
    assert_heatmap_is(page, 3, r.weights, mm.CROSS_DEMO_PATCHES, mm.CROSS_DEMO_TOKENS)
    for j in range(3):
        assert np.allclose(heatmap_numbers(page, 4 + j), np.round(r.token_map(j, 2), 3))
    assert hms[7].title == "x₀（元の画像）" and [h.title for h in hms[8:11]] == ["t = 50", "t = 200", "t = 1,000"]
    eps = mm.standard_noise((4, 4), np.random.default_rng(0))
    last = mm.add_noise(mm.DIFFUSION_DEMO_IMAGE, eps, mm.alpha_bar_at(mm.linear_betas(), 1000)).x_t
    assert np.allclose(heatmap_numbers(page, 10), np.round(last, 1))
    series = [sorted(set(chart_data(page, i)["系列"])) for i in range(len(page.get("vega_lite_chart")))
              if "系列" in chart_data(page, i).columns]
    assert ["√(1−ᾱ_t)", "√ᾱ_t"] in series
    bars = [chart_data(page, i) for i in range(len(page.get("vega_lite_chart"))) if "prob" in chart_data(page, i).columns]
    assert np.allclose(bars[0]["prob"], mm.zero_shot(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS).probs)
    guidance = next(t for t in tables(page) if "強さ w" in t.columns)
    assert list(guidance["使う予測 ε̂"])[3] == "(1.4, 1.4)"


def test_try_edits_change_the_numbers():
    at = open_page(PAGE, section="try")
    b = demo()
    assert np.allclose(heatmap_numbers(at, 0), np.round(b.probs.image_to_text, 3))
    assert metric(at, "CLIP の損失") == numfmt.fixed(b.probs.loss, 3)
    at.select_slider(key="multimodal_tau").set_value(0.05).run()
    sharp = mm.clip_batch(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS, 0.05)
    assert metric(at, "CLIP の損失") == numfmt.fixed(sharp.probs.loss, 3)
    longer = rows_of(np.array(mm.CLIP_DEMO_IMAGES) * 3)                      # lengths do not matter
    edit_matrix(at, "multimodal_img", longer)
    assert metric(at, "CLIP の損失") == numfmt.fixed(sharp.probs.loss, 3)
    moved = rows_of(mm.CLIP_DEMO_TEXTS, {(0, 0): "-3"})
    edit_matrix(at, "multimodal_txt", moved)
    new = mm.clip_batch(np.array(mm.CLIP_DEMO_IMAGES) * 3, np.array(moved, dtype=float), 0.05)
    assert metric(at, "CLIP の損失") == numfmt.fixed(new.probs.loss, 3)
    at.selectbox(key="multimodal_word1").set_value("犬").run()
    r = mm.text_image_attention(mm.CROSS_DEMO_LATENTS, [mm.CROSS_VOCAB[w] for w in ("赤い", "犬", "夕焼け")],
                                mm.CROSS_DEMO_W_Q, mm.CROSS_DEMO_W_K, mm.CROSS_DEMO_W_V)
    cross_map = next(i for i, h in enumerate(heatmaps(at)) if h.title == "クロスアテンションの重み")
    assert heatmaps(at)[cross_map].cols == ["赤い", "犬", "夕焼け"]
    assert np.allclose(heatmap_numbers(at, cross_map), np.round(r.weights, 3))
    at.slider(key="multimodal_t").set_value(1000).run()
    a = mm.alpha_bar_at(mm.linear_betas(), 1000)
    assert metric(at, "ᾱ_t") == numfmt.fixed(a, 4) and metric(at, "√ᾱ_t（x₀ の係数）") == numfmt.fixed(np.sqrt(a), 3)
    at.slider(key="multimodal_w").set_value(7.5).run()
    g = mm.guided(mm.GUIDANCE_DEMO_UNCOND, mm.GUIDANCE_DEMO_COND, 7.5)
    assert "= (" + ",\\ ".join(numfmt.trimmed(v, 2) for v in g.noise) + ")" in page_text(at)
    assert not at.exception
    show_section(at, "hand")                                                 # 手計算 keeps the textbook's numbers
    assert "0.194" in page_text(at)
    show_section(at, "try")
    assert metric(at, "CLIP の損失") == numfmt.fixed(new.probs.loss, 3)      # the learner's inputs stay


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    good = metric(at, "CLIP の損失")
    edit_matrix(at, "multimodal_img", rows_of(mm.CLIP_DEMO_IMAGES, {(1, 1): "あ"}))
    assert_cell_error(at)
    assert metric(at, "CLIP の損失") == good
    edit_matrix(at, "multimodal_img", rows_of(mm.CLIP_DEMO_IMAGES, {(1, 0): "0", (1, 1): "0", (1, 2): "0"}))
    assert not at.exception
    assert any("長さ 0" in e.value for e in at.error), [e.value for e in at.error]
    assert metric(at, "CLIP の損失") == good                                  # the last valid result stays
    edit_matrix(at, "multimodal_eps", rows_of((mm.GUIDANCE_DEMO_UNCOND, mm.GUIDANCE_DEMO_COND), {(0, 0): "1e400"}))
    assert not at.exception and at.error


def test_the_schedule_chart_is_valid_vega_lite_and_keeps_its_axes_inside():
    """ui.figures.lines_chart (the schedule chart of 可視化): autosize "fit" contained in the padding and
    as wide as the column (ui.figures.FIT_COLUMN), so that it is no wider than a phone column."""
    import altair as alt
    from ui import figures

    t, signal, noise = mm.schedule_curve(mm.linear_betas(10), every=1)
    spec = figures.lines_chart("t", "係数", (("a", tuple(t), tuple(signal)), ("b", tuple(t), tuple(noise))), title="x")
    plain = {**spec, "datasets": {k: v.to_dict("records") for k, v in spec["datasets"].items()}}
    alt.LayerChart.from_dict(plain, validate=True)
    assert spec["autosize"] == {"type": "fit", "contains": "padding"} and spec["width"] == "container"
