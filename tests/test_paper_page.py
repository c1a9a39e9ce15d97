"""AppTest for ⑦-6 原論文の実験と評価 (pages/16_paper.py), section by section: the engine's numbers
in 手計算 (clipping, BLEU-2 and BLEU-4, the length penalty, the averaged checkpoints, the FLOPs of
Table 2), the charts' data in 可視化, inputs of 試してみよう that recompute (and stay when the learner
comes back), bad input → a Japanese message, and the quiz answered."""
from __future__ import annotations

import numpy as np
import pytest

import ui
from apphelpers import charts_with, metric_part, open_page, page_text, sections_of, show_section, tables
from tutor import numfmt
from tutor import paper as pp

PAGE = "pages/16_paper.py"


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_page_runs_in_the_rhythm_and_is_registered(page):
    show_section(page, "aim")
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    headings = [h.value for h in page.subheader]
    assert headings[:5] == ["ねらい", "解説", "原論文が確かめたこと：機械翻訳と構文解析", "BLEU：機械の訳を人の訳と比べる",
                            "訳の作り方：ビームサーチの設定とチェックポイント平均"]
    assert "論文の実験をもう少し詳しく" in headings
    assert ui.PAGE_BY_KEY["paper"].url == "/paper" and ui.PAGE_BY_KEY["paper"].label == "⑦-6 原論文の実験と評価"
    keys = ui.LEARNING_KEYS
    assert keys.index("paper") == keys.index("cost") + 1 and keys.index("training") == keys.index("paper") + 1
    assert ui.next_page("cost").key == "paper" and ui.next_page("paper").key == "training"


def test_explanation_states_the_papers_facts_with_their_sources(page):
    show_section(page, "aim")                       # the folded topics are opened by show_section
    text = page_text(page)
    for needle in ("Vaswani ら（2017 年）", "Papineni ら、2002 年", "Wu ら、2016 年", "Sennrich ら（2016 年）",
                   "28.4 BLEU", "41.8 BLEU", "41.0", "ビーム幅 4", "α = 0.6", "入力の長さ + 50", "最後の 5 個", "最後の 20 個",
                   "450 万文対", "37,000", "3,600 万文", "32,000", "25,000", "P100 を 8 台", "100,000 ステップ",
                   "300,000 ステップ", "3.5 日", "9.5 TFLOPS", "91.3", "92.7", "90.4", "ビーム幅 21", "α = 0.3", "+ 300"):
        assert needle in text, needle
    frames = tables(page)
    t2 = next(f for f in frames if "FLOPs 英独" in f.columns)
    assert list(t2["モデル"]) == [r.model for r in pp.TABLE2]
    assert t2.set_index("モデル").loc["Transformer (big)", "BLEU 英独"] == "28.4"
    t3 = next(f for f in frames if "base から変えたところ" in f.columns)
    assert list(t3["BLEU"]) == [numfmt.fixed(r.bleu, 1) for r in pp.TABLE3]
    assert "⑧ 学習で注意が育つ" in text and "⑦-4 出力と生成" in text          # the recipe and beam search live there


def test_engine_figures_are_shown_in_the_hand_calculation(page):
    show_section(page, "hand")
    text = page_text(page)
    demo = pp.bleu(pp.DEMO_CANDIDATE, pp.DEMO_REFERENCES, 2)
    assert r"\frac{2}{7} = 0.286" in text                                   # seven 「の」, clipped at 2
    assert f"= {numfmt.trimmed(demo.bp, 3)} \\times {numfmt.trimmed(demo.geo_mean, 3)} = 0.709" in text
    assert "e^{1 - 6/5} = 0.819" in text and "BLEU-4 は 0 です" in text
    rank = pp.rank_hypotheses(pp.DEMO_LOG_PROBS, pp.DEMO_LENGTHS, 0.6)
    assert "2^{0.6} = 1.516" in text and "4^{0.6} = 2.297" in text
    assert f"= {numfmt.trimmed(rank.scores[0], 3)}" in text and f"= {numfmt.trimmed(rank.scores[1], 3)}" in text
    assert "α ≈ 0.485" in text
    avg = pp.average_checkpoints(pp.DEMO_CHECKPOINTS, pp.DEMO_LAST)
    assert avg.mean.tolist() == pytest.approx([1.0, -1.025]) and r"(1,\ -1.025)" in text
    assert r"&= 3.3\times 10^{18}" in text and r"2.3\times 10^{19}" in text and "≈ 11.1 時間" in text
    clip = next(f for f in tables(page) if "2-gram" in f.columns)
    assert list(clip["数える回数"]) == [str(c) for c in demo.matches[1].clipped]


def test_charts_are_the_engines_numbers(page):
    show_section(page, "visual")
    lines = charts_with(page, "系列")
    bp = lines[0][lines[0]["系列"] == "BP（正しい）"]
    assert np.allclose(bp["y"], pp.brevity_curve(bp["x"]))
    scores = lines[1]
    a = scores[scores["系列"].str.startswith("A")]
    assert np.allclose(a["y"], pp.score_curves(pp.DEMO_LOG_PROBS, pp.DEMO_LENGTHS, a["x"])[:, 0])
    run = pp.noisy_descent(np.random.default_rng(3), last=5)
    points = charts_with(page, "名前")
    ck = next(p for p in points if "最後の 5 個の平均" in set(p["区分"]))
    mean = ck[ck["名前"] == "平均"]
    assert np.allclose([mean["x"].iloc[0], mean["y"].iloc[0]], run.average.mean)
    used = ck[ck["区分"] == "最後の 5 個"]
    assert np.allclose(used[["x", "y"]].to_numpy(), run.checkpoints[-5:])
    cost = next(p for p in points if "Transformer" in set(p["区分"]))
    big = cost[cost["名前"] == "big"]
    assert (float(big["x"].iloc[0]), float(big["y"].iloc[0])) == (2.3e19, 28.4)
    heads = next(p for p in points if "A 行" in set(p["区分"]))
    assert list(heads["y"]) == [pp.heads_row_for(h).bleu for h in (1, 4, 8, 16, 32)]


def test_the_try_section_starts_at_the_worked_examples(page):
    show_section(page, "try")
    assert metric_part(page, "BLEU（N = 2）") == "0.709" and metric_part(page, "BP") == "0.819"
    assert metric_part(page, "選ばれる訳") == "B"
    assert metric_part(page, "学習コスト") == numfmt.sci(pp.paper_cost("base"), 1) == "3.3×10¹⁸"


def test_editing_inputs_changes_the_numbers():
    at = open_page(PAGE, section="try")
    at.text_input(key="paper_cand").set_value("猫 が その 魚 を 食べた").run()
    assert metric_part(at, "BLEU（N = 2）") == "1.000"                          # equal to reference 1
    at.select_slider(key="paper_n").set_value(4).run()
    assert metric_part(at, "BLEU（N = 4）") == "1.000"
    at.text_input(key="paper_cand").set_value("猫 猫 猫 魚 を 食べた").run()
    want = pp.bleu(("猫", "猫", "猫", "魚", "を", "食べた"), pp.DEMO_REFERENCES, 4)
    assert metric_part(at, "BLEU（N = 4）") == numfmt.fixed(want.score, 3)
    at.text_input(key="paper_ref2").set_value("").run()                       # one reference is enough
    assert not at.exception and not at.error
    at.select_slider(key="paper_alpha").set_value(0.0).run()
    assert metric_part(at, "選ばれる訳") == "A"
    at.number_input(key="paper_logp_b").set_value(-2.0).run()
    assert metric_part(at, "選ばれる訳") == "B"
    at.number_input(key="paper_gpus").set_value(16).run()
    assert metric_part(at, "学習コスト") == numfmt.sci(pp.training_flops(12, 16, 9.5), 1)
    at.selectbox(key="paper_gpu").set_value("K80").run()
    assert metric_part(at, "学習コスト") == numfmt.sci(pp.training_flops(12, 16, 2.8), 1)
    assert not at.exception
    show_section(at, "hand")                                                  # away and back: the inputs stay
    show_section(at, "try")
    assert metric_part(at, "選ばれる訳") == "B" and at.text_input(key="paper_cand").value == "猫 猫 猫 魚 を 食べた"


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    at.text_input(key="paper_cand").set_value("   ").run()
    assert not at.exception
    assert any("候補訳が空です" in e.value for e in at.error)
    assert metric_part(at, "BLEU（N = 2）") == "0.709"                          # the last valid result stays
    at.text_input(key="paper_cand").set_value("猫 <b>が</b>").run()
    assert any("使えません" in e.value for e in at.error)
    at.text_input(key="paper_cand").set_value("猫 が").run()
    at.select_slider(key="paper_n").set_value(4).run()
    assert any("作れません" in e.value and "N を小さく" in e.value for e in at.error)
    at.number_input(key="paper_logp_a").set_value(3.0).run()                  # a probability above 1
    assert any("0 を使っています" in w.value for w in at.warning)
    at.number_input(key="paper_hours").set_value(0.0).run()
    assert any("0.1 を使っています" in w.value for w in at.warning)
    assert not at.exception
