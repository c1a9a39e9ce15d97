"""AppTest for ⑩-2 LLM を目的に合わせる (pages/18_adapt.py): registered after ⑩-1 with the page rhythm;
解説 names every keyword with its year and source and folds the later topics; each section shows the
engine's numbers (LoRA's 65,536 and GPT-3's 18,874,368, the forward pass from B = 0, BERT-Base's
adapters, the reward model's and DPO's losses, RAG's cosines and top 2, the KL stepper); an edit in
試してみよう changes what the page shows; bad input gives a Japanese message and keeps the last result;
the quiz is answered."""
from __future__ import annotations

import numpy as np
import pytest

import quizzes
import ui
from apphelpers import (chart_data, edit_matrix, heatmap_numbers, heatmaps, metric,
                        open_page, page_text, rows_of, sections_of, show_section, steppers, tables)
from quizzes.core import TOPICS
from tutor import adapt, numfmt

PAGE = "pages/18_adapt.py"
DOCS = np.array([v for _, _, v in adapt.RAG_DEMO_DOCS])


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_page_is_registered_after_llm_with_the_section_layout(page):
    assert ui.PAGE_BY_KEY["adapt"].url == "/adapt"
    assert ui.LEARNING_KEYS[ui.LEARNING_KEYS.index("adapt") - 1] == "llm"
    assert TOPICS["adapt"] == ui.PAGE_BY_KEY["adapt"].label == "⑩-2 LLM を目的に合わせる"
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert len(quizzes.by_topic("adapt", "calc")) >= 3 and len(quizzes.by_topic("adapt", "knowledge")) >= 8


def test_aim_and_explanation_name_every_keyword_with_year_and_source(page):
    show_section(page, "aim")
    text = page_text(page)
    for term in ("基盤モデル", "転移学習", "ファインチューニング", "破壊的忘却", "自己教師あり学習", "半教師あり学習", "PEFT",
                 "LoRA", "Adapter", "プレフィックスチューニング", "プロンプトチューニング", "指示チューニング", "ChatGPT",
                 "アラインメント", "RLHF", "報酬モデル", "KL ダイバージェンス", "DPO", "Constitutional AI", "RLAIF",
                 "プロンプトエンジニアリング", "RAG", "コサイン類似度", "エージェント", "ReAct"):
        assert term in text, term
    for fact in ("McCloskey と Cohen（1989 年）", "Kirkpatrick ら、2017 年", "Hu ら、2021 年", "Houlsby ら、2019 年",
                 "Li と Liang、2021 年", "Lester ら、2021 年", "Wei ら、2021 年", "Ouyang ら、2022 年", "2022 年 11 月",
                 "Rafailov ら、2023 年", "Bai ら、2022 年", "Lewis ら、2020 年", "Yao ら、2022 年"):
        assert fact in text, fact
    c = adapt.lora_params(4096, 4096, 8)
    assert f"${c.trainable:,}$".replace(",", "{,}") in text and "256 分の 1" in text     # LoRA's example, from the engine
    assert "r(d + k)" in text and "問われるのは" in text
    assert f"[{ui.PAGE_BY_KEY['pretrain'].label}](/pretrain?section=" in text          # builds on ⑨-1
    assert "/llm?section=" in text                                                    # links ⑩-1, does not repeat it


def test_the_explanation_keeps_transfer_and_lora_open_and_folds_the_rest():
    closed = open_page(PAGE, unfold=False)
    assert [e.label for e in closed.expander] == [
        "Adapter・プレフィックスチューニング・プロンプトチューニング", "指示に従わせる：指示チューニングと ChatGPT",
        "人の好みに合わせる：アラインメントと RLHF", "報酬モデルなしで：DPO と Constitutional AI", "プロンプトエンジニアリング",
        "RAG：検索した文書を根拠にする", "エージェント：道具を使うモデル（ReAct）"]
    text = page_text(closed)
    assert "破壊的忘却" in text and "LoRA" in text
    assert not any(t in text for t in ("Houlsby", "Rafailov", "ReAct（Yao"))


def test_hand_calculations_are_the_engines(page):
    show_section(page, "hand")
    text = page_text(page)
    for shown in ("32{,}768", "65{,}536", "16{,}777{,}216", "18{,}874{,}368", "174,604,259,328", "0.0108%", "9,251 分の 1",
                  "99{,}136", "2{,}379{,}264", "15{,}360", "= 0.201", "1.701", "**0.408**", "= 0.313", "= 0.933"):
        assert shown in text, shown
    assert "h = W_0 x + B(Ax) = (3,\\ 3)" in text and "= (6,\\ 0)" in text      # B = 0, then after training
    table = next(t for t in tables(page) if "学習するパラメータ" in t.columns)
    rows = adapt.peft_table(768, 12, 109_482_240, 8, 64, 20)
    assert list(table["学習するパラメータ"]) == [numfmt.grouped(r.trainable) for r in rows]
    rag = next(t for t in tables(page) if "コサイン類似度" in t.columns)
    r = adapt.retrieve(adapt.RAG_DEMO_QUERY, DOCS, 2)
    assert list(rag["コサイン類似度"]) == [numfmt.fixed(x, 3) for x in r.cosine] and list(rag["順位"]) == ["2", "1", "4", "3"]
    assert "文書 **B・A**" in text and "D・B" in text
    assert "[資料 1] LoRA（2021 年）" in text and "質問：LoRA では" in text            # the prompt the two go into


def test_visual_chart_heatmaps_and_the_beta_stepper(page):
    show_section(page, "visual")
    lines = chart_data(page, 0)
    assert sorted(set(lines["系列"])) == ["LoRA：r(d + k)", "全体を学習：dk"]
    lora = lines[lines["系列"] == "LoRA：r(d + k)"]
    assert list(lora["y"]) == [float(8192 * r) for r in (1, 2, 4, 8, 16, 32, 64, 128, 256)]
    f = adapt.lora_forward(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B, adapt.LORA_DEMO_X)
    assert np.array_equal(heatmap_numbers(page, 1), f.delta_w) and np.array_equal(heatmap_numbers(page, 2), f.merged)
    cos, dots = adapt.similarity_table([q for _, q in adapt.RAG_DEMO_QUERIES], DOCS)
    hms = heatmaps(page)
    assert [h.title for h in hms[3:]] == ["コサイン類似度", "内積（長さで割らない）"]
    assert np.allclose(heatmap_numbers(page, 3), np.round(cos, 3)) and np.array_equal(heatmap_numbers(page, 4), dots)
    beta = steppers(page)["adapt_beta"]
    assert beta.options[beta.value] == "0.5"
    for option, b in zip(beta.options, (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)):
        (frame,) = beta.tables(option)
        k = adapt.kl_optimal_policy((0.5, 0.2, 0.05, 0.25), (1.0, 0.0, 2.0, -1.0), b)
        assert list(frame["調整後 π*"]) == [numfmt.fixed(x, 3) for x in k.policy]


def test_try_edits_change_the_numbers():
    at = open_page(PAGE, section="try")
    assert metric(at, "1 行列で学習する数 r(d + k)") == "65,536" and metric(at, "モデル全体で学習する数") == "4,194,304"
    at.number_input(key="adapt_lora_k").set_value(1024).run()
    at.number_input(key="adapt_lora_r").set_value(16).run()
    assert metric(at, "1 行列で学習する数 r(d + k)") == "81,920"
    assert metric(at, "モデル全体で学習する数") == f"{32 * 2 * 81_920:,}"
    edit_matrix(at, "adapt_lora_b", rows_of([[0.0], [0.0]]))                # B = 0: back to the pretrained output
    assert "h &= (3,\\ 3)" in page_text(at)
    edit_matrix(at, "adapt_lora_b", rows_of([[2.0], [1.0]]))
    assert "h &= (9,\\ 6)" in page_text(at)
    at.number_input(key="adapt_rw").set_value(0.0).run()
    at.number_input(key="adapt_rl").set_value(0.0).run()
    assert metric(at, "σ(r_w − r_l)") == "0.500" and metric(at, "損失 −log σ(r_w − r_l)") == "0.693"
    assert metric(at, "プロンプトに入る文書") == "B・A"
    edit_matrix(at, "adapt_rag_q", rows_of([[4.0, 0.0, 3.0]]))              # a question about 2017's paper
    at.number_input(key="adapt_rag_k").set_value(1).run()
    assert metric(at, "プロンプトに入る文書") == "C"
    assert not at.exception and not at.error


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    at.number_input(key="adapt_lora_r").set_value(5000).run()
    assert not at.exception
    assert any("ランク r" in e.value and "以下" in e.value for e in at.error)
    assert metric(at, "1 行列で学習する数 r(d + k)") == "65,536"                  # the last valid result stays
    edit_matrix(at, "adapt_rag_q", rows_of([[0.0, 0.0, 0.0]]))
    assert any("すべて 0" in e.value for e in at.error) and not at.exception
    assert metric(at, "プロンプトに入る文書") == "B・A"
    edit_matrix(at, "adapt_lora_a", rows_of([[1.0, 1.0, 0.0]], {(0, 1): "abc"}))
    assert any("最後に正しかった値" in e.value for e in at.error) and not at.exception
    at.number_input(key="adapt_lora_r").set_value(8).run()
    edit_matrix(at, "adapt_rag_q", rows_of([[1.0, 2.0, 2.0]]))
    assert not [e for e in at.error if "ランク" in e.value or "すべて 0" in e.value]


def test_a_number_out_of_range_is_replaced_and_said_in_japanese():
    at = open_page(PAGE, section="try")
    at.number_input(key="adapt_lora_d").set_value(500_000).run()
    assert not at.exception
    assert any("入力された 500,000 の代わりに 100,000 を使っています" in w.value for w in at.warning)



def test_the_line_chart_is_valid_vega_lite_and_fits_its_column():
    """ui.figures.lines_chart (the rank chart): as wide as the column, axes and legend inside it
    (ui.figures.FIT_COLUMN: autosize "fit"); valid Vega-Lite."""
    import altair as alt

    from test_widgets import _plain
    from ui import figures
    args = ("ランク r", "パラメータの数", (("LoRA", (1, 2, 4), (8192, 16384, 32768)),))
    chart = figures.lines_chart(*args, title="t", log=True)
    assert chart["autosize"] == {"type": "fit", "contains": "padding"} and chart["width"] == "container"
    alt.LayerChart.from_dict(_plain(chart), validate=True)
