"""AppTest for ⓪-1 単語の分散表現 (pages/15_wordvec.py), section by section: the first learning page,
解説's folded topics with their facts, the engine's numbers in 手計算 and 可視化, inputs of 試してみよう
that change them (手計算 follows the edited tables), bad input → a Japanese message, the quiz."""
from __future__ import annotations

import numpy as np
import pytest

import ui
from apphelpers import (
    assert_heatmap_is, chart_data, edit_matrix, flat_tex, metric, open_page, page_text,
    rows_of, sections_of, show_section, tables
)
from tutor import wordvec as wv
from ui.figures import shared_domain
from ui.validate import format_number

PAGE = "pages/15_wordvec.py"
FOLDED = ["テキストを語に分ける：形態素解析と構文解析", "N-gram と言語モデル", "fastText：文字の n-gram で未知語にもベクトル",
          "静的な埋め込みと文脈に応じた埋め込み（ELMo）", "学習を軽くする工夫：ネガティブサンプリング（発展）",
          "共起を数える方法：GloVe（発展）"]


@pytest.fixture(scope="module")
def page():
    """One session of the page, read only: each test opens the section it reads."""
    at = open_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_the_first_learning_page_in_the_rhythm(page):
    show_section(page, "aim")
    assert sections_of(page) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert page.title[0].value == "⓪-1 単語の分散表現"
    assert list(ui.LEARNING_KEYS[:2]) == ["wordvec", "seq2seq"] and ui.PAGE_BY_KEY["wordvec"].url == "/wordvec"
    links = [p.proto.page for p in page.sidebar.get("page_link")]
    assert links.index("wordvec") < links.index("seq2seq") < links.index("naive")
    show_section(page, "quiz")
    assert any(p.proto.label.startswith("次へ：⓪-2 Seq2Seq") for p in page.main.get("page_link"))


def test_explain_keeps_three_topics_open_and_folds_the_rest():
    closed = open_page(PAGE, unfold=False)
    subheaders = [h.value for h in closed.subheader]
    assert subheaders[:6] == ["ねらい", "解説", "語を数える：one-hot・Bag-of-Words・TF-IDF", "分布仮説から分散表現へ",
                              "word2vec：CBOW とスキップグラム", "まわりの用語と発展"]
    assert [e.label for e in closed.expander] == FOLDED
    assert "Bojanowski" not in page_text(closed) and "Peters" not in page_text(closed)
    at = open_page(PAGE)
    text = page_text(at)
    for fact in ("Spärck Jones、1972 年", "Harris（1954 年）", "Firth（1957 年）", "**word2vec**（Mikolov ら、2013 年）",
                 "**fastText**（Bojanowski ら、2017 年）", "**ELMo**（Peters ら、2018 年）", "**GloVe**（Pennington ら、2014 年）",
                 "IDF = log 1 = 0", "**周辺の語** のベクトルを平均し、**中心の語** を当てます", "**中心の語** から",
                 "<wh、whe、her、ere、re>", "**形態素解析**", "**構文解析**", "$K = 5$"):
        assert fact in text, fact
    assert f"P(\\text{{魚}} \\mid \\text{{が}}) = {format_number(0.25, 3)}" in text


def test_hand_shows_the_engines_numbers(page):
    show_section(page, "hand")
    assert not page.error
    text = flat_tex(page_text(page))
    t = wv.tfidf(wv.CORPUS)
    assert r"\text{TF-IDF} = 0.200 \times 2 = 0.400" in text and r"\mathrm{IDF} = \log_2(4/4) = 0" in text
    assert "「が」「を」は 4 件すべてに現れる" in text
    cos = wv.cosine_similarity(wv.EMB_VECTORS[0], wv.EMB_VECTORS[1])
    assert f"= {format_number(cos, 3)}" in text and r"2 \times 2 + 1 \times 1 + 0 \times 1 = 5" in text
    assert "t = (5,\\ -2) - (1,\\ -2) + (1,\\ 2) = (5,\\ 2)" in text
    assert "答えは **女王**（0.987）" in text and "城（45）が選ばれてしまいます" in text
    assert r"= 2 + 3 + 4 + 3 + 2 = 14" in text and r"2cL - c(c + 1) = 20 - 6" in text
    probs = wv.skipgram_softmax(wv.SOFTMAX_CENTER, wv.SOFTMAX_OUT).probs
    table = next(f for f in tables(page) if "P(w | c)" in f.columns)
    assert list(table["P(w | c)"]) == [format_number(p, 3) for p in probs]
    neg = wv.negative_sampling(wv.SOFTMAX_CENTER, wv.SOFTMAX_OUT[0], wv.SOFTMAX_OUT[[2, 3]])
    assert f"= {format_number(neg.objective, 3)}" in text
    assert "**6 個** の単位" in text and f"{wv.unit_count(5)} 個です" in text
    assert r"= (4,\ 3)" in text
    assert r"10,000 \times 300 = 3,000,000" in text and "2Vd = 6,000,000" in text
    assert t.everywhere == ("が", "を")


def test_visual_shows_counts_the_analogy_and_the_two_hashi(page):
    show_section(page, "visual")
    assert not page.error
    cv = wv.context_vectors(wv.DIST_CORPUS, wv.DIST_WORDS)
    assert_heatmap_is(page, 0, cv.counts, list(cv.words), list(cv.contexts), digits=0)
    assert_heatmap_is(page, 1, cv.cosines, list(cv.words), list(cv.words))
    t = wv.tfidf(wv.CORPUS)
    domain = shared_domain(t.tf.T, t.weights.T)
    assert_heatmap_is(page, 2, t.tf.T, list(t.vocab), ["文書1", "文書2", "文書3", "文書4"], domain=domain)
    assert_heatmap_is(page, 3, t.weights.T, list(t.vocab), ["文書1", "文書2", "文書3", "文書4"], domain=domain)
    points = chart_data(page, 0)
    assert list(points["語"])[:6] == list(wv.ANALOGY_WORDS) and list(points["語"])[-1].startswith("t = 王−男+女")
    assert (points["x"].iloc[-1], points["y"].iloc[-1]) == (5.0, 2.0)
    assert metric(page, "静的な 2 つの「はし」のコサイン類似度") == "1.000"
    assert metric(page, "文脈に応じた 2 つの「はし」のコサイン類似度") == "0.496"


def test_editing_the_tables_reaches_the_hand_calculation():
    at = open_page(PAGE, section="try")
    e = np.array(wv.EMB_VECTORS)
    e[1] = [0, 2, 1]
    edit_matrix(at, "wordvec_emb", rows_of(e))
    sim = wv.similarity_matrix(e)
    onehot = wv.similarity_matrix(np.eye(len(wv.EMB_WORDS)))
    assert_heatmap_is(at, 1, sim, list(wv.EMB_WORDS), list(wv.EMB_WORDS), domain=shared_domain(onehot, sim))
    a = np.array(wv.ANALOGY_VECTORS)
    a[5] = [6, 3]                                                   # 少女 now points where t points
    edit_matrix(at, "wordvec_analogy", rows_of(a))
    assert metric(at, "男 : 王 = 女 : ？") == "少女"
    at.selectbox(key="wordvec_pick_2").set_value(5).run()           # 男 : 王 = 少女 : ?
    res = wv.analogy(a, 0, 2, 5)
    assert metric(at, "男 : 王 = 少女 : ？") == wv.ANALOGY_WORDS[res.best]
    show_section(at, "hand")
    text = flat_tex(page_text(at))
    assert f"= {format_number(wv.cosine_similarity(e[0], e[1]), 3)}" in text
    assert "答えは **少女**" in text


def test_try_recomputes_tfidf_windows_subwords_and_sizes():
    at = open_page(PAGE, section="try")
    at.text_area(key="wordvec_docs").set_value("犬 が 走る\n猫 が 寝る\n犬 と 猫").run()
    t = wv.tfidf([("犬", "が", "走る"), ("猫", "が", "寝る"), ("犬", "と", "猫")])
    table = next(f for f in tables(at) if "IDF" in f.columns)
    assert list(table["語"]) == list(t.vocab) and list(table["IDF"]) == [format_number(x, 3) if x % 1 else
                                                                        format_number(x, 0) for x in t.idf]
    at.text_input(key="wordvec_sentence").set_value("a b c d e f g").run()
    at.slider(key="wordvec_window").set_value(3).run()
    assert metric(at, "スキップグラムの組") == str(wv.skipgram_pair_count(7, 3)) == "30"
    assert metric(at, "CBOW の学習例") == "7"
    at.text_input(key="wordvec_ft_other").set_value("のんだ").run()
    assert "共有する単位：なし" in page_text(at)
    at.number_input(key="wordvec_vocab").set_value(50_000).run()
    at.number_input(key="wordvec_dim").set_value(100).run()
    assert metric(at, "埋め込みの表 V × d") == "5,000,000" and metric(at, "word2vec 全体 2Vd") == "10,000,000"
    assert not at.exception


def test_bad_input_gives_a_japanese_message():
    at = open_page(PAGE, section="try")
    e = np.array(wv.EMB_VECTORS)
    e[1] = [0, 0, 0]
    edit_matrix(at, "wordvec_emb", rows_of(e))
    assert any("2 行目がすべて 0" in x.value for x in at.error), [x.value for x in at.error]
    edit_matrix(at, "wordvec_emb", rows_of(e, {(0, 0): "abc"}))
    assert any("数値として読めません" in x.value for x in at.error), [x.value for x in at.error]
    at.text_area(key="wordvec_docs").set_value("  \n ").run()
    assert any("文書が 1 つもありません" in x.value for x in at.error)
    at.text_input(key="wordvec_sentence").set_value("").run()
    assert any("文が空です" in x.value for x in at.error)
    at.text_input(key="wordvec_ft_word").set_value("two words").run()
    assert any("空白を含まない 1 語" in x.value for x in at.error)
    at.selectbox(key="wordvec_pick_1").set_value(0).run()          # a = b = 男
    assert any("別々の語" in x.value for x in at.error)
    assert not at.exception


def test_the_word_map_is_valid_vega_lite_and_fits_its_points():
    import altair as alt

    from ui.figures import word_map_chart
    res = wv.analogy(wv.ANALOGY_VECTORS, *wv.ANALOGY_QUERY)
    spec = word_map_chart(wv.ANALOGY_WORDS, wv.ANALOGY_VECTORS, res.target, offsets=((1, -2, 5, -2), (1, 2, 5, 2)),
                          x_title="王族らしさ", y_title="女性らしさ", title="2 次元の単語ベクトル")
    plain = {**spec, "datasets": {k: df.astype(object).to_dict("records") for k, df in spec["datasets"].items()}}
    alt.LayerChart.from_dict(plain, validate=True)
    x, y = (spec["layer"][0]["encoding"][a]["scale"]["domain"] for a in ("x", "y"))
    assert x[0] < 0 < 9 < x[1] and y[0] < -2 and 3 < y[1]                    # every point (and 城's label) inside
    assert "autosize" not in spec                                              # Streamlit's "fit": the column's width
