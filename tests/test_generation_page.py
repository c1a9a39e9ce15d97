"""AppTest for ⑪-2 GAN・NeRF・音声の生成 (pages/25_generation.py): registered as the last learning page, right
after ⑪; every section shows the engine's numbers (V and the losses, the gradients, D*, the sides 4 → 64, the
cycle-consistency loss, α, T and the weights along a ray, the receptive field, μ-law), an edit in 試してみよう
changes what the page shows, bad input (empty, text, NaN, inf, huge, out of range, a wrong distribution) gives
a Japanese message and keeps the last result, and the quiz is answered."""
from __future__ import annotations

import numpy as np
import pytest

import quizzes
import ui
from apphelpers import (answer_card, assert_cell_error, chart_data, check_quiz, edit_matrix, metric, open_page,
                        page_text, rows_of, sections_of, show_section, tables)
from quizzes.core import TOPICS
from tutor import generation as gen
from tutor import numfmt

PAGE = "pages/25_generation.py"


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def fx(x, digits: int = 3) -> str:
    return numfmt.trimmed(float(x), digits)


def test_page_is_the_last_learning_page_right_after_multimodal(page):
    assert ui.PAGE_BY_KEY["generation"].url == "/generation" and ui.LEARNING_KEYS[-1] == "generation"
    assert ui.LEARNING_KEYS[-2] == "multimodal" and ui.next_page("multimodal").key == "generation"
    assert ui.next_page("generation") is None and list(TOPICS)[-1] == "generation"
    assert TOPICS["generation"] == ui.PAGE_BY_KEY["generation"].label == "⑪-2 GAN・NeRF・音声の生成"
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert len(quizzes.by_topic("generation", "calc")) >= 5 and len(quizzes.by_topic("generation", "knowledge")) >= 8


def test_aim_and_explanation_name_every_keyword_with_its_source(page):
    show_section(page, "aim")
    text = page_text(page)
    for term in ("GAN", "敵対的生成ネットワーク", "生成器", "識別器", "モード崩壊", "非飽和の損失", "DCGAN", "転置畳み込み",
                 "Pix2Pix", "U-Net", "PatchGAN", "CycleGAN", "サイクル一貫性損失", "NeRF", "光線",
                 "音声生成", "WaveNet", "μ-law", "Self-Attention GAN", "Transformer TTS"):
        assert term in text, term
    for fact in ("Goodfellow ら、2014 年", "Radford・Metz・Chintala、2015 年", "Isola ら、2016 年", "Zhu ら、2017 年",
                 "Mildenhall ら、2020 年", "van den Oord ら、2016 年", "Li ら、2019 年", "Zhang ら、2018 年",
                 "-\\log 4", "\\lambda = 100", "\\lambda = 10", "L = 10", "L = 4", "\\mu = 255", "1,024 標本"):
        assert fact in text, fact
    assert "対あり = Pix2Pix、対なし = CycleGAN" in text and "/position?section=" in text and "/multimodal?section=" in text


def test_the_explanation_keeps_gan_open_and_folds_the_rest():
    closed = open_page(PAGE, unfold=False)
    assert [e.label for e in closed.expander] == [
        "DCGAN：畳み込みで画像を作る", "Pix2Pix と CycleGAN：画像を別の画像に変える", "NeRF：写真から新しい視点の画像を作る",
        "音声生成：WaveNet", "ほかのページとのつながり"]
    text = page_text(closed)
    assert "最適な識別器" in text and "Mildenhall ら" not in text


def test_hand_calculations_are_the_engines(page):
    show_section(page, "hand")
    text = page_text(page)
    r = gen.gan_losses(gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE)
    assert f"= {fx(r.value)}" in text and f"-V = {fx(r.loss_d)}" in text and fx(r.loss_g_nonsat) in text
    opt = gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G)
    d_table = next(t for t in tables(page) if "D* = p_data / (p_data + p_g)" in t.columns)
    assert [float(v) for v in d_table["D* = p_data / (p_data + p_g)"]] == pytest.approx(opt.d_star)
    assert f"= {fx(opt.value)}" in text and fx(opt.jsd) in text
    assert all(f"&= {b}" in text for b in gen.dcgan_sizes()[1:])
    c = gen.cycle_loss(gen.CYCLE_DEMO_X, gen.CYCLE_DEMO_Y, gen.CYCLE_DEMO_G, gen.CYCLE_DEMO_F)
    assert f"= {fx(c.forward)} + {fx(c.backward)} = {fx(c.total)}" in text
    ray = gen.render_ray(gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_DELTA, gen.NERF_DEMO_COLORS)
    assert "w_i &= T_i \\alpha_i = (" + ", ".join(fx(w) for w in ray.weights) + ")" in text
    assert "C = \\textstyle\\sum_i w_i c_i = (" + ", ".join(fx(v) for v in ray.color) + ")" in text
    field = gen.receptive_field(gen.wavenet_dilations())
    assert f"= {numfmt.grouped(field)}" in text and f"{fx(gen.milliseconds(field))} ms" in text
    mu = gen.mu_law(gen.MU_DEMO)
    assert f"= {fx(mu.companded[0])}" in text and f"{mu.index[0]} と {mu.index[1]}" in text


def test_visual_charts_and_tables_are_the_engines(page):
    show_section(page, "visual")
    charts = [chart_data(page, i) for i in range(len(page.get("vega_lite_chart")))]
    d, sat, non = gen.gradient_curves()
    grad = next(c for c in charts if "系列" in c.columns and "−log D の勾配 = 1 − D" in set(c["系列"]))
    assert np.allclose(grad[grad["系列"] == "−log D の勾配 = 1 − D"]["y"], non)
    bars = next(c for c in charts if "prob" in c.columns)
    assert np.allclose(bars["prob"], gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G).d_star)
    ray = gen.render_ray(gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_DELTA, gen.NERF_DEMO_COLORS)
    lines = next(c for c in charts if "系列" in c.columns and "重み w = Tα" in set(c["系列"]))
    assert np.allclose(lines[lines["系列"] == "重み w = Tα"]["y"], ray.weights)
    x, f = gen.mu_law_curve()
    mu = next(c for c in charts if "系列" in c.columns and "μ-law F(x)（μ = 255）" in set(c["系列"]))
    assert np.allclose(mu[mu["系列"] == "μ-law F(x)（μ = 255）"]["y"], f)
    field = next(t for t in tables(page) if "受容野（標本）" in t.columns)
    assert list(field["受容野（標本）"]) == [numfmt.grouped(v) for v in gen.fields_by_layer(gen.wavenet_dilations())]


def test_try_edits_change_the_numbers():
    at = open_page(PAGE, section="try")
    r = gen.gan_losses(gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE)
    assert metric(at, "価値関数 V") == numfmt.fixed(r.value, 3)
    edit_matrix(at, "generation_d", [["0.6", "0.7"], ["0.4", "0.3"]])
    new = gen.gan_losses([0.6, 0.7], [0.4, 0.3])
    assert metric(at, "価値関数 V") == numfmt.fixed(new.value, 3)
    assert metric(at, "生成器の損失（非飽和）") == numfmt.fixed(new.loss_g_nonsat, 3)
    edit_matrix(at, "generation_p", [["0.25", "0.25", "0.25", "0.25"], ["0.25", "0.25", "0.25", "0.25"]])
    assert metric(at, "V(D*, G)") == numfmt.fixed(gen.EQUILIBRIUM_VALUE, 3)              # −log 4
    at.number_input(key="generation_layers").set_value(5).run()
    assert metric(at, "最後の 1 辺") == numfmt.grouped(gen.dcgan_sizes(layers=5)[-1])
    edit_matrix(at, "generation_f", [["0.5", "0"], ["0", "1"]])                        # F undoes G
    assert metric(at, "サイクル一貫性損失") == numfmt.fixed(0, 3)
    edit_matrix(at, "generation_ray", rows_of(np.column_stack([gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_COLORS]),
                                              {(0, 0): "5"}))
    sigma = np.array(gen.NERF_DEMO_SIGMA)
    sigma[0] = 5
    ray = gen.render_ray(sigma, 1.0, gen.NERF_DEMO_COLORS)
    assert metric(at, "重みの和（不透明さ）") == numfmt.fixed(ray.opacity, 3)
    at.number_input(key="generation_wn_stacks").set_value(3).run()
    assert metric(at, "受容野（標本）") == numfmt.grouped(gen.receptive_field(gen.wavenet_dilations(10, 3)))
    at.number_input(key="generation_wn_x").set_value(-0.25).run()
    assert metric(at, "μ-law の段階（0〜255）") == str(gen.mu_law(-0.25).index[0])
    assert not at.exception
    show_section(at, "hand")                                                          # 手計算 keeps the demo's numbers
    assert f"= {fx(r.value)}" in page_text(at)


@pytest.mark.parametrize("bad", ["", "あ", "nan", "inf", "1e400"])
def test_bad_cells_give_a_japanese_message_and_keep_the_last_result(bad):
    at = open_page(PAGE, section="try")
    good = metric(at, "価値関数 V")
    edit_matrix(at, "generation_d", rows_of((gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE), {(0, 1): bad}))
    assert_cell_error(at)
    assert metric(at, "価値関数 V") == good


def test_engine_refusals_are_japanese_and_keep_the_last_result():
    at = open_page(PAGE, section="try")
    good = metric(at, "価値関数 V")
    edit_matrix(at, "generation_d", rows_of((gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE), {(1, 0): "0"}))      # log 0
    assert not at.exception and any("確率" in e.value for e in at.error), [e.value for e in at.error]
    assert metric(at, "価値関数 V") == good
    good_v = metric(at, "V(D*, G)")
    edit_matrix(at, "generation_p", rows_of((gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G), {(0, 0): "0.9"}))   # sum ≠ 1
    assert any("合計" in e.value for e in at.error) and metric(at, "V(D*, G)") == good_v
    edit_matrix(at, "generation_ray", rows_of(np.column_stack([gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_COLORS]),
                                              {(1, 0): "-1"}))
    assert any("密度" in e.value for e in at.error)
    edit_matrix(at, "generation_g", [["1e7", "0"], ["0", "1"]])                                         # huge
    assert_cell_error(at)
    edit_matrix(at, "generation_xy", [["1", "2"]])                                                      # wrong shape: one row
    assert not at.exception
    at.number_input(key="generation_padding").set_value(4).run()                                      # output < 1
    at.number_input(key="generation_kernel").set_value(1).run()
    assert any("パディング" in e.value for e in at.error)
    at.number_input(key="generation_wn_x").set_value(5.0).run()                                       # clamped to 1
    assert any("使える数" in w.value for w in at.warning)
    assert not at.exception


def test_quiz_answered():
    at = open_page(PAGE, section="quiz")
    check_quiz(at, "generation")
    ids = at.session_state["quiz_generation__ids"]
    q = quizzes.from_id(ids[0])
    answer_card(at, 1, q.answer)
    assert not at.exception
    assert any("正解です" in s.value for s in at.success)
