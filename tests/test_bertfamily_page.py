"""AppTest for ⑨-2 BERT・GPT の後継たち (pages/17_bertfamily.py), section by section: the family map and
the folded topics in 解説, the engine's numbers in 手計算 (ALBERT-base's counts, the SQuAD span, the
static masks, ELECTRA's signal, XLNet's order, T5's lengths), the heatmaps and the chart of 可視化 as
the engine's numbers, inputs of 試してみよう that change them (and stay when the learner comes back),
bad input → a Japanese error with the last result kept, and the quiz answered."""
from __future__ import annotations

import numpy as np
import pytest

import quizzes
import ui
from apphelpers import (
    assert_heatmap_is, charts_with, heatmaps, metric_part, open_page, page_text, sections_of, show_section, tables
)
from quizzes.core import TOPICS, is_advanced
from tutor import bertfamily as bf

PAGE = "pages/17_bertfamily.py"


def heatmap_titled(at, start: str):
    hits = [i for i, h in enumerate(heatmaps(at)) if h.title.startswith(start)]
    assert hits, [h.title for h in heatmaps(at)]
    return hits[0]


@pytest.fixture(scope="module")
def page():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_page_runs_in_the_rhythm_between_9_1_and_10_1(page):
    show_section(page, "aim")
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    headings = [h.value for h in page.subheader]
    assert headings[:4] == ["ねらい", "解説", "BERT・GPT の後継たちの地図", "後継モデルごとの変更点"]
    assert ui.PAGE_BY_KEY["bertfamily"].url == "/bertfamily"
    assert TOPICS["bertfamily"] == ui.PAGE_BY_KEY["bertfamily"].label == "⑨-2 BERT・GPT の後継たち"
    keys = ui.LEARNING_KEYS
    assert keys[keys.index("bertfamily") - 1] == "pretrain" and keys[keys.index("bertfamily") + 1] == "llm"


def test_the_map_and_every_folded_topic_name_their_models_with_year_and_authors(page):
    show_section(page, "aim")
    text = page_text(page)
    for model, who in (("RoBERTa", "Liu ら"), ("ALBERT", "Lan ら"), ("DistilBERT", "Sanh ら"), ("ELECTRA", "Clark ら"),
                       ("XLNet", "Yang ら"), ("T5", "Raffel ら"), ("BART", "Lewis ら"), ("GPT-2", "Radford ら"),
                       ("PaLM", "Chowdhery ら"), ("GLUE", "Wang ら"), ("SQuAD", "Rajpurkar ら")):
        assert model in text and who in text, model
    (family,) = [t for t in tables(page) if "型" in t.columns]
    assert family["型"].tolist().count("エンコーダ") == 4 and family["型"].tolist().count("エンコーダ・デコーダ") == 2
    for word in ("質問応答", "文書要約", "感情分析", "情報検索", "抽出型", "生成型", "5,400 億", "Pathways", "C4"):
        assert word in text, word
    assert "発展" in text


def test_hand_shows_the_engines_numbers(page):
    show_section(page, "hand")
    text = page_text(page)
    a = bf.albert_count(30_000, 128, 768, 12)
    for shown in ("23{,}040{,}000", "3{,}840{,}000", "98{,}304", "3{,}938{,}304", "7{,}077{,}888", "84{,}934{,}656"):
        assert shown in text, shown
    assert f"{a.bert_total:,}" in text and f"{a.albert_total:,}" in text
    squad = bf.best_span(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END)
    assert "$4 + 6 = 10$" in text and "「焼いた 魚」" in text and "和は 11" in text
    i = heatmap_titled(page, "範囲のスコア")
    assert_heatmap_is(page, i, squad.scores, [f"開始 {k}" for k in range(1, 5)], [f"終了 {k}" for k in range(1, 5)],
                      digits=0)
    assert "40 \\div 10 = 4" in text                              # RoBERTa's account of BERT's static masks
    assert "\\text{「置き換え」} &= 2 - 1 = 1" in text and "約 6.7 倍" in text
    assert "4! = 4 \\times 3 \\times 2 \\times 1 = 24" in text
    assert "10 - 3 + 2 = 9" in text and "3 + 2 + 1 = 6" in text
    assert "〈X〉 昨日 〈Y〉 古い 友人 〈Z〉" in text


def test_visual_is_the_engines_masks_and_counts(page):
    show_section(page, "visual")
    toks = list(bf.XLNET_DEMO_TOKENS)
    assert_heatmap_is(page, heatmap_titled(page, "左から右"), bf.permutation_mask(range(4)).mask.astype(float),
                      toks, toks, digits=0)
    assert_heatmap_is(page, heatmap_titled(page, "順序 魚 → 猫"), bf.permutation_mask(bf.XLNET_DEMO_ORDER).mask.astype(float),
                      toks, toks, digits=0)
    d = bf.rtd_draw(bf.RTD_DEMO_TOKENS, bf.RTD_DEMO_CANDIDATES, np.random.default_rng(bf.RTD_DEMO_SEED))
    grid = [[1.0 if i in d.masked else 0.0, 1.0] for i in range(10)]
    assert_heatmap_is(page, heatmap_titled(page, "1 = その位置"), grid, list(d.corrupted), ["MLM", "ELECTRA"], digits=0)
    demo = bf.MASK_DEMO
    static = bf.mask_schedule(demo["tokens"], demo["epochs"], np.random.default_rng(demo["seed"]), copies=demo["copies"])
    dynamic = bf.mask_schedule(demo["tokens"], demo["epochs"], np.random.default_rng(demo["seed"]))
    rows, cols = [str(i) for i in range(1, 11)], [str(t) for t in range(1, 9)]      # positions × epochs
    assert_heatmap_is(page, heatmap_titled(page, "静的"), static.masks.T.astype(float), rows, cols, digits=0)
    assert_heatmap_is(page, heatmap_titled(page, "動的"), dynamic.masks.T.astype(float), rows, cols, digits=0)
    assert f"静的（2 通りを順に使う）：{static.distinct} 通り" in heatmaps(page)[heatmap_titled(page, "静的")].title
    (bars,) = charts_with(page, "部分")
    a = bf.albert_count(30_000, 128, 768, 12)
    assert bars["数"].tolist() == [a.embedding.untied, a.sharing.unshared, a.embedding.factorized, a.sharing.shared]


def test_the_try_section_starts_at_albert_base(page):
    show_section(page, "try")
    assert metric_part(page, "ALBERT 型の合計") == "11,016,192"
    assert page.text_input(key="bertfamily_order").value == "3 1 4 2"
    assert "出力 3 + 2 + 1 = **6**" in page_text(page)


def test_editing_inputs_changes_the_numbers_and_they_stay():
    at = open_page(PAGE, section="try")
    at.number_input(key="bertfamily_hidden").set_value(4096).run()
    at.number_input(key="bertfamily_layers").set_value(12).run()
    want = bf.albert_count(30_000, 128, 4096, 12)
    assert metric_part(at, "ALBERT 型の合計") == f"{want.albert_total:,}"
    at.text_input(key="bertfamily_order").set_value("2 4 1 3 5").run()
    m = bf.permutation_mask((1, 3, 0, 2, 4))
    labels = [f"位置 {i}" for i in range(1, 6)]
    assert_heatmap_is(at, heatmap_titled(at, "1 = 見える"), m.mask.astype(float), labels, labels, digits=0)
    assert "全部で 120 通り" in page_text(at)
    at.text_input(key="bertfamily_t5_spans").set_value("1-2, 9").run()
    c = bf.span_corruption(bf.T5_DEMO_TOKENS, ((0, 2), (8, 1)))
    assert f"**{c.input_length}**" in page_text(at) and f"**{c.target_length}**" in page_text(at)
    at.number_input(key="bertfamily_rtd_seed").set_value(2).run()
    d = bf.rtd_draw(bf.RTD_DEMO_TOKENS, bf.RTD_DEMO_CANDIDATES, np.random.default_rng(2))
    (frame,) = [t for t in tables(at) if "識別器が読む語" in t.columns]
    assert frame["識別器が読む語"].tolist() == list(d.corrupted)
    at.number_input(key="bertfamily_epochs").set_value(40).run()
    at.number_input(key="bertfamily_copies").set_value(10).run()
    dyn = bf.mask_schedule(10, 40, np.random.default_rng(3))
    assert "静的：10 通りのマスクを 4 回ずつ" in page_text(at) and f"**{dyn.distinct}** 通り" in page_text(at)
    assert not at.exception
    show_section(at, "hand")                                        # the hand calculation keeps ALBERT-base
    assert "3{,}938{,}304" in page_text(at)
    show_section(at, "try")
    assert metric_part(at, "ALBERT 型の合計") == f"{want.albert_total:,}"
    assert at.text_input(key="bertfamily_order").value == "2 4 1 3 5"


def test_bad_input_gives_a_japanese_message_and_keeps_the_last_result():
    at = open_page(PAGE, section="try")
    at.number_input(key="bertfamily_embed").set_value(1024).run()
    assert not at.exception
    assert any("E は H 以下" in e.value for e in at.error)
    assert metric_part(at, "ALBERT 型の合計") == "11,016,192"
    at.text_input(key="bertfamily_order").set_value("1 1 2").run()
    assert any("ちょうど 1 回ずつ" in e.value for e in at.error)
    at.text_input(key="bertfamily_t5_spans").set_value("2-3, 4").run()
    assert any("隣り合" in e.value for e in at.error)
    at.text_input(key="bertfamily_t5_text").set_value("<b>x</b>").run()
    assert any("使えません" in e.value for e in at.error)
    at.number_input(key="bertfamily_copies").set_value(3).run()
    assert any("割り切れません" in e.value for e in at.error)
    assert not at.exception



def test_every_generator_of_the_page_is_offered_and_the_squad_span_is_not_advanced():
    gids = quizzes.by_topic("bertfamily")
    calc = [g for g in gids if not g.startswith("kb.")]
    assert len(calc) == 9 and len(gids) == 9 + 24
    assert not is_advanced("bertfamily.squad_span")
    assert all(is_advanced(g) for g in calc if g != "bertfamily.squad_span")
    q = quizzes.from_id("bertfamily.squad_span#0")
    assert q.choices[q.answer] in q.explanation


def test_the_count_chart_is_valid_vega_lite_and_fits_its_column():
    """ui.figures.stacked_counts (the ALBERT chart of 可視化 and 試してみよう): as wide as the column, the
    axis, legend and totals inside it (ui.figures.FIT_COLUMN: autosize "fit"; "pad" put them past a 390 px
    phone's column); valid Vega-Lite."""
    import altair as alt

    from test_widgets import _plain
    from ui import figures
    chart = figures.stacked_counts([("BERT 型", "埋め込み", 23_040_000), ("ALBERT 型", "埋め込み", 3_938_304)], title="t")
    assert chart["autosize"] == {"type": "fit", "contains": "padding"} and chart["width"] == "container"
    alt.LayerChart.from_dict(_plain(chart), validate=True)
