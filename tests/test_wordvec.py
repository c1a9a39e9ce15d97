"""tutor.wordvec (⓪-1 単語の分散表現): counts, vectors, word2vec's examples, fastText's units — and
the page's calculation generators and knowledge bank.

Values are checked against hand computations written out here (fractions, logs, counts by a plain
loop), properties with hypothesis, bad input against Japanese ValueErrors.
"""
from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import quizzes
from quizzes import knowledge
from quizzes.calc import CALC, num
from tutor import wordvec as wv
from calchelpers import raises_japanese


# ---------------------------------------------------------------------------
# counts: BoW, TF-IDF, N-grams, the bigram language model
# ---------------------------------------------------------------------------
def test_tfidf_of_the_worked_corpus_by_hand():
    t = wv.tfidf(wv.CORPUS)
    w = {word: j for j, word in enumerate(t.vocab)}
    assert t.lengths.tolist() == [5, 5, 5, 5]
    # 魚: only in 文書1 → idf = log2(4/1) = 2, tf = 1/5 → 0.4; 猫: in 2 documents → 1 → 0.2; が: everywhere → 0
    assert t.idf[w["魚"]] == 2.0 and t.idf[w["猫"]] == 1.0 and t.idf[w["が"]] == 0.0
    assert t.weights[0, w["魚"]] == pytest.approx(0.4) and t.weights[0, w["猫"]] == pytest.approx(0.2)
    assert t.weights[:, w["が"]].tolist() == [0.0] * 4 and t.everywhere == ("が", "を")
    np.testing.assert_allclose(t.tf.sum(axis=1), 1.0)
    e = wv.tfidf(wv.CORPUS, base="e")
    np.testing.assert_allclose(e.weights, t.weights * math.log(2))          # another base: the same ratios


def test_tfidf_value_and_its_mistakes():
    assert wv.tfidf_value(3, 20, 16, 4) == pytest.approx(3 / 20 * 2)
    assert wv.tfidf_without_log(3, 20, 16, 4) == pytest.approx(3 / 20 * 4)
    assert wv.tfidf_raw_count(3, 20, 16, 4) == pytest.approx(3 * 2)
    assert wv.tfidf_inverted(3, 20, 16, 4) == pytest.approx(-3 / 20 * 2)
    assert wv.idf_value(8, 8) == 0.0 and wv.idf_without_log(8, 8) == 1.0   # a word in every document
    assert wv.idf_value(1000, 10, base=10) == pytest.approx(2.0)


def test_bag_of_words_forgets_the_order_and_ngrams_keep_some():
    bow = wv.bag_of_words(wv.WORD_ORDER_PAIR)
    assert bow.counts[0].tolist() == bow.counts[1].tolist()
    a, b = (wv.ngrams(d, 2) for d in wv.WORD_ORDER_PAIR)
    assert a != b and len(a) == wv.ngram_count(5, 2) == 4
    assert wv.ngrams(wv.SENTENCE, 2)[0] == ("猫", "が") and wv.ngram_count(2, 3) == 0


def test_bigram_language_model():
    assert wv.bigram_probability(wv.CORPUS, "が", "魚") == pytest.approx(1 / 4)
    assert wv.bigram_probability(wv.CORPUS, "魚", "を") == 1.0
    m = wv.bigram_model(wv.CORPUS)
    rows = m.counts.sum(axis=1) > 0
    np.testing.assert_allclose(m.probs[rows].sum(axis=1), 1.0)
    raises_japanese(wv.bigram_probability, wv.CORPUS, "食べる", "猫")        # never followed by a word
    raises_japanese(wv.bigram_probability, wv.CORPUS, "象", "猫")


@settings(max_examples=200)
@given(length=st.integers(1, 40), n=st.integers(1, 8))
def test_ngram_count_is_the_length_of_the_list(length, n):
    assert wv.ngram_count(length, n) == len(wv.ngrams(["w"] * length, n)) == max(length - n + 1, 0)


def test_text_splitting_and_its_limits():
    assert wv.split_text("猫 が\u3000魚 を 食べる") == ("猫", "が", "魚", "を", "食べる")
    assert wv.split_corpus(["猫 が 鳴く", "", "犬 が 鳴く"]) == (("猫", "が", "鳴く"), ("犬", "が", "鳴く"))
    raises_japanese(wv.split_text, "   ")
    raises_japanese(wv.split_text, " ".join(["語"] * (wv.MAX_WORDS + 1)))
    raises_japanese(wv.split_text, "あ" * 21)
    assert "「<b>」は使えません" in raises_japanese(wv.split_text, "猫 <b> 犬")
    raises_japanese(wv.char_ngrams, "<where>")
    raises_japanese(wv.split_corpus, ["", " "])
    raises_japanese(wv.split_corpus, ["猫"] * (wv.MAX_DOCS + 1))
    raises_japanese(wv.idf_value, 4, 5)
    raises_japanese(wv.tf_value, 6, 5)
    raises_japanese(wv.idf_value, 4, 0)
    raises_japanese(wv.idf_value, 4, 2, base=3)
    raises_japanese(wv.tfidf, [("猫",), ()])


# ---------------------------------------------------------------------------
# vectors: one-hot, cosine, analogy, sizes, the distributional idea, static vs contextual
# ---------------------------------------------------------------------------
def test_one_hot_vs_dense_similarity():
    oh = [wv.one_hot_vector(i, 4) for i in range(4)]
    assert wv.similarity_matrix(oh).tolist() == np.eye(4).tolist()
    sim = wv.similarity_matrix(wv.EMB_VECTORS)
    assert sim[0, 1] == pytest.approx(5 / math.sqrt(30))                      # 猫·犬 = 5, |猫| = √5, |犬| = √6
    assert sim[0, 2] == pytest.approx(0.8) and sim[0, 3] == 0.0
    assert wv.cosine_similarity([1, 2, 2], [2, 1, 2]) == pytest.approx(8 / 9)
    raises_japanese(wv.cosine_similarity, [0.0, 0.0], [1.0, 1.0])
    raises_japanese(wv.cosine_similarity, [1.0, 0.0], [1.0, 1.0, 0.0])
    assert "2 行目がすべて 0" in raises_japanese(wv.similarity_matrix, [[1.0, 0.0], [0.0, 0.0]])
    for bad in (-1, 4, 1.5, True):
        assert "単語の番号" in raises_japanese(wv.one_hot_vector, bad, 4)


def test_cosine_mistakes():
    a, b = [3, 0, 4], [1, 4, 8]
    assert wv.cosine_without_norm(a, b) == 35.0
    assert wv.cosine_one_norm(a, b) == 7.0
    assert wv.euclidean_distance(a, b) == pytest.approx(math.sqrt(4 + 16 + 16))
    assert wv.cosine_similarity(a, b) == pytest.approx(35 / 45)
    assert wv.vector_norm(a) == 5.0


@settings(max_examples=100)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 4)), elements=st.floats(-100, 100)))
def test_similarity_is_symmetric_with_unit_diagonal(e):
    if np.any(np.all(np.abs(e) < 1e-150, axis=1)):
        return
    sim = wv.similarity_matrix(e)
    np.testing.assert_allclose(sim, sim.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-12)
    assert np.all(np.abs(sim) <= 1.0)


@settings(max_examples=100)
@given(hnp.arrays(np.float64, 3, elements=st.floats(-50, 50)), hnp.arrays(np.float64, 3, elements=st.floats(-50, 50)),
       st.floats(0.01, 100))
def test_cosine_ignores_length(a, b, k):
    if np.abs(a).max() < 1e-6 or np.abs(b).max() < 1e-6:
        return
    assert wv.cosine_similarity(k * a, b) == pytest.approx(wv.cosine_similarity(a, b), abs=1e-9)
    assert wv.cosine_similarity(a, b) == pytest.approx(wv.cosine_similarity(b, a), abs=1e-12)


def test_the_analogy_of_the_page_by_hand():
    r = wv.analogy(wv.ANALOGY_VECTORS, *wv.ANALOGY_QUERY)                    # 男 : 王 = 女 : ?
    assert r.target.tolist() == [5.0, 2.0]                                    # (5, −2) − (1, −2) + (1, 2)
    assert wv.ANALOGY_WORDS[r.best] == "女王"
    assert r.cosines[3] == pytest.approx(31 / (math.sqrt(29) * math.sqrt(34)))
    assert wv.ANALOGY_WORDS[r.best_by_dot] == "城" and r.dots[4] == 45.0      # a dot product prefers the long 城
    assert not r.allowed[[0, 1, 2]].any()
    assert wv.analogy_sign_slip(wv.ANALOGY_VECTORS, *wv.ANALOGY_QUERY).tolist() == [-3.0, 2.0]
    raises_japanese(wv.analogy, wv.ANALOGY_VECTORS, 0, 0, 1)
    raises_japanese(wv.analogy, wv.ANALOGY_VECTORS, 0, 2, 9)
    assert "すべて 0 の行" in raises_japanese(wv.analogy, [[1, 0], [2, 0], [1, 1], [0, 0]], 0, 1, 2)
    assert "0 ベクトル" in raises_japanese(wv.analogy, [[2, 0], [1, 0], [1, 0], [0, 1]], 0, 1, 2)   # b − a + c = 0


def test_one_hot_times_the_table_picks_a_row_and_the_sizes():
    x, picked = wv.embedding_lookup(wv.EMB_VECTORS, 2)
    assert x.tolist() == [0, 0, 1, 0] and picked.tolist() == wv.EMB_VECTORS[2].tolist()
    assert wv.embedding_params(10_000, 300) == 3_000_000 and wv.word2vec_params(10_000, 300) == 6_000_000
    assert wv.embedding_params_one_hot(10_000, 300) == 10_000 and wv.embedding_params_added(10_000, 300) == 10_300
    raises_japanese(wv.embedding_params, 0, 300)
    raises_japanese(wv.embedding_params, 10 ** 10, 300)


def test_count_based_vectors_show_the_distributional_idea():
    cv = wv.context_vectors(wv.DIST_CORPUS, wv.DIST_WORDS)
    assert cv.contexts == ("かわいい", "を", "おいしい", "が")
    assert cv.counts.tolist() == [[1, 1, 0, 1], [1, 1, 0, 1], [0, 1, 1, 0], [0, 1, 1, 0]]
    assert cv.cosines[0, 1] == pytest.approx(1.0) and cv.cosines[2, 3] == pytest.approx(1.0)
    assert cv.cosines[0, 2] == pytest.approx(1 / math.sqrt(6))                # share を only: 1 / (√3 √2)
    co = wv.cooccurrence([("a", "b", "c")], window=2)
    assert co.counts.tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    raises_japanese(wv.context_vectors, wv.DIST_CORPUS, ("象",))
    raises_japanese(wv.cooccurrence, [], 1)


def test_the_two_hashi_by_hand():
    res = wv.contextual_embeddings(wv.CTX_VECTORS, wv.CTX_SENTENCES)
    np.testing.assert_array_equal(res.static[0][1], res.static[1][1])                   # one row for はし
    # 川・はし・渡る: はし's scores (1, 2, 2) → weights ∝ (e, e², e²)
    z = math.e + 2 * math.e ** 2
    wa = [math.e / z, math.e ** 2 / z, math.e ** 2 / z]
    np.testing.assert_allclose(res.weights[0][1], wa, rtol=1e-14)
    np.testing.assert_allclose(res.context[0][1], np.array(wa) @ np.array([[0, 1, 2], [1, 1, 0], [0, 2, 1]]), rtol=1e-14)
    # ご飯・はし・食べる: scores (2, 2, 2) → the mean (5/3, 1/3, 1/3)
    np.testing.assert_allclose(res.context[1][1], [5 / 3, 1 / 3, 1 / 3], rtol=1e-14)
    assert wv.cosine_similarity(res.static[0][1], res.static[1][1]) == pytest.approx(1.0)
    assert f"{wv.cosine_similarity(res.context[0][1], res.context[1][1]):.3f}" == "0.496"
    assert "2 文目の語の番号" in raises_japanese(wv.contextual_embeddings, wv.CTX_VECTORS, [(0, 1), (0, 9)])


def test_constants_are_read_only_and_inputs_are_not_written():
    for a in (wv.EMB_VECTORS, wv.ANALOGY_VECTORS, wv.CTX_VECTORS, wv.SOFTMAX_CENTER, wv.SOFTMAX_OUT, wv.SUM_VECTORS):
        with pytest.raises(ValueError):
            a[0] = 9
    e = np.array(wv.ANALOGY_VECTORS)
    before = e.copy()
    wv.analogy(e, 0, 2, 1), wv.similarity_matrix(e), wv.embedding_lookup(e, 1)
    assert (e == before).all()


# ---------------------------------------------------------------------------
# word2vec: the training examples, the softmax, negative sampling
# ---------------------------------------------------------------------------
def test_pairs_of_the_worked_sentence():
    pairs = wv.skipgram_pairs(wv.SENTENCE, 2)
    assert len(pairs) == wv.skipgram_pair_count(5, 2) == 14 == 2 * 2 * 5 - 2 * 3
    assert ("猫", "が") in pairs and ("猫", "魚") in pairs and ("猫", "を") not in pairs
    cbow = wv.cbow_examples(wv.SENTENCE, 2)
    assert len(cbow) == wv.cbow_example_count(5, 2) == 5
    assert cbow[2] == (("猫", "が", "を", "食べる"), "魚")
    assert wv.pair_count_one_sided(5, 2) == 7 and wv.pair_count_no_edges(5, 2) == 20
    assert wv.middle_context_count(5, 2) == 4 and wv.pair_count_terms(5, 2) == (20, 6)


@settings(max_examples=300)
@given(length=st.integers(1, 30), window=st.integers(1, 6))
def test_pair_counts_match_a_plain_loop(length, window):
    loop = sum(1 for i in range(length) for j in range(length) if i != j and abs(i - j) <= window)
    one_sided = sum(1 for i in range(length) for j in range(i + 1, length) if j - i <= window)
    assert wv.skipgram_pair_count(length, window) == loop == len(wv.skipgram_pairs(["w"] * length, window))
    assert wv.pair_count_one_sided(length, window) == one_sided
    assert wv.cbow_example_count(length, window) == len(wv.cbow_examples(["w"] * length, window))
    if length > 2 * window:
        assert loop == 2 * window * length - window * (window + 1)


def test_skipgram_softmax_and_negative_sampling_by_hand():
    sm = wv.skipgram_softmax(wv.SOFTMAX_CENTER, wv.SOFTMAX_OUT)
    assert sm.scores.tolist() == [2.0, 1.0, 1.0, -1.0]
    z = math.e ** 2 + 2 * math.e + math.e ** -1
    np.testing.assert_allclose(sm.probs, [math.e ** 2 / z, math.e / z, math.e / z, math.e ** -1 / z], rtol=1e-14)
    np.testing.assert_allclose(sm.exps, np.exp(sm.scores))
    neg = wv.negative_sampling(wv.SOFTMAX_CENTER, wv.SOFTMAX_OUT[0], wv.SOFTMAX_OUT[[2, 3]])
    sig = lambda x: 1 / (1 + math.exp(-x))                                    # noqa: E731
    assert neg.positive_prob == pytest.approx(sig(2))
    np.testing.assert_allclose(neg.negative_probs, [sig(-1), sig(1)])
    assert neg.objective == pytest.approx(math.log(sig(2)) + math.log(sig(-1)) + math.log(sig(1)))
    assert neg.loss == -neg.objective
    assert wv.sigmoid(1000.0) == 1.0 and wv.sigmoid(-1000.0) == 0.0          # no overflow warning
    assert wv.dot_products_per_pair(10_000) == 10_000 and wv.dot_products_per_pair(10_000, 5) == 6
    raises_japanese(wv.skipgram_softmax, [1, 1], [[1, 0, 0]])
    raises_japanese(wv.negative_sampling, [1, 1], [1, 0], [[1, 0, 0]])
    raises_japanese(wv.skipgram_pair_count, 0, 2)
    raises_japanese(wv.context_positions, 5, 7, 2)


# ---------------------------------------------------------------------------
# fastText's units
# ---------------------------------------------------------------------------
def test_where_as_in_the_paper():
    s = wv.char_ngrams("where", 3, 3)
    assert s.ngrams == ("<wh", "whe", "her", "ere", "re>") and s.whole == "<where>"
    assert len(s.units) == wv.unit_count(5, 3, 3) == 6
    assert wv.unit_count(5) == 5 + 4 + 3 + 2 + 1 == len(wv.char_ngrams("where").units)   # n = 3 … 6
    assert wv.unit_count_no_boundary(5, 3, 3) == 4 and wv.unit_count_one_boundary(5, 3, 3) == 5
    assert wv.unit_count_no_word(5, 3, 3) == 5
    assert wv.char_ngrams("where", 3, 3, boundary=False).ngrams == ("whe", "her", "ere")


@settings(max_examples=200)
@given(word=st.text(alphabet="abcあいうカキ", min_size=1, max_size=12), lo=st.integers(1, 6), extra=st.integers(0, 3))
def test_unit_count_is_the_number_of_units(word, lo, extra):
    hi = lo + extra
    assert wv.unit_count(len(word), lo, hi) == len(wv.char_ngrams(word, lo, hi).units)
    assert wv.unit_count_no_boundary(len(word), lo, hi) == len(wv.char_ngrams(word, lo, hi, boundary=False).units)


def test_a_word_vector_is_the_sum_and_unseen_words_share_units():
    assert wv.char_ngrams(wv.SUM_WORD, 3, 3).units == wv.SUM_UNITS
    assert wv.subword_vector(wv.SUM_UNITS, wv.SUM_VECTORS).tolist() == [4.0, 3.0]
    near = wv.subword_overlap(*wv.SIMILAR_PAIRS[0], 3, 3)
    assert near.shared == ("<たべ", "たべた") and near.cosine == pytest.approx(2 / math.sqrt(4 * 5))
    far = wv.subword_overlap(*wv.SIMILAR_PAIRS[1], 3, 3)
    assert far.shared == () and far.cosine == 0.0
    raises_japanese(wv.char_ngrams, "two words")
    raises_japanese(wv.char_ngrams, "   ")
    raises_japanese(wv.char_ngrams, "where", 4, 3)
    raises_japanese(wv.subword_vector, ("a", "b"), [[1, 0]])


# ---------------------------------------------------------------------------
# the calculation generators
# ---------------------------------------------------------------------------
CALC_IDS = quizzes.by_topic("wordvec", "calc")


def test_three_calc_generators_with_every_form():
    assert len(CALC_IDS) >= 3
    stems = [quizzes.GENERATORS[g](1).stem for g in CALC_IDS]
    assert any("（ア）" in s for s in stems) and any("最も適切" in s for s in stems) and any("不適切" in s for s in stems)


def _drawn(gid: str, seed: int):
    from quizzes.core import _seed_rng
    params, build = CALC[gid]
    q = quizzes.GENERATORS[gid](seed)
    for attempt in range(200):
        rng = _seed_rng(gid, seed, attempt)
        p = params(rng)
        d = build(p)
        if d.correct == q.choices[q.answer] and d.stem == q.stem:
            return p, q
    raise AssertionError(gid)


@pytest.mark.parametrize("gid, want", [
    ("wordvec.cosine", lambda p: num(float(p["a"] @ p["b"]) / math.sqrt(float(p["a"] @ p["a"]) * float(p["b"] @ p["b"])))),
    ("wordvec.tfidf", lambda p: num(p["count"] / p["length"] * math.log2(p["n"] / p["df"]))),
    ("wordvec.skipgram_pairs", lambda p: num(sum(min(p["window"], i) + min(p["window"], p["length"] - 1 - i)
                                                 for i in range(p["length"])))),
    ("wordvec.fasttext_units", lambda p: num(sum(len(p["word"]) + 3 - n for n in range(p["n_min"], p["n_max"] + 1)
                                                 if len(p["word"]) + 3 - n > 0) + 1)),
    ("wordvec.embedding_params", lambda p: num(p["vocab"] * p["dim"] * (2 if p["whole"] else 1))),
])
def test_answers_recomputed_here(gid, want):
    for seed in range(60):
        p, q = _drawn(gid, seed)
        assert q.choices[q.answer] == want(p), (gid, seed)


def test_the_analogy_item_always_has_one_false_statement():
    kinds = Counter()
    for seed in range(120):
        q = quizzes.GENERATORS["wordvec.analogy_worst"](seed)
        assert "不適切" in q.stem
        wrong = [m for i, m in enumerate(q.misconceptions) if i != q.answer]
        assert all(m.startswith("正しい記述") for m in wrong)
        kinds["内積" if "内積が最も大きい" in q.choices[q.answer] or "内積は" in q.choices[q.answer].split("で最も")[0]
              else "引き算"] += 1
        assert ("内積で比べた類推" in q.explanation) or ("類推の引き算の向きの取り違え" in q.explanation)
    assert len(kinds) == 2


def test_tfidf_blank_shows_idf_zero_for_a_word_in_every_document():
    seen = False
    for seed in range(80):
        p, q = _drawn("wordvec.tfidf_blank", seed)
        if p["df"] == p["n"]:
            seen = True
            assert "（イ）0　（ウ）0" in q.choices[q.answer]
    assert seen


# ---------------------------------------------------------------------------
# the knowledge bank
# ---------------------------------------------------------------------------
BANK = {it["id"]: it for it in knowledge.bank()["wordvec"]}
IN_SYLLABUS = ("ワンホットベクトル", "BoW", "TF-IDF", "N-gram", "言語モデル", "分散表現", "単語埋め込み", "word2vec", "CBOW",
               "スキップグラム", "fastText", "ELMo", "形態素解析", "構文解析")


def test_every_keyword_twice_and_beyond_the_syllabus_tagged():
    kws = Counter(k for it in BANK.values() for k in it["keywords"])
    for kw in IN_SYLLABUS:
        assert kws[kw] >= 2, kw
        forms = {it["form"] for it in BANK.values() if kw in it["keywords"]}
        assert forms & {"worst", "blank"}, kw                                   # asked in a 不適切 or 穴埋め form too
    advanced = {i for i, it in BANK.items() if it.get("advanced")}
    assert advanced == {"wordvec.k12", "wordvec.k13", "wordvec.k18", "wordvec.k19", "wordvec.k29"}
    for i in advanced:                                                         # 分布仮説, ネガティブサンプリング, GloVe
        assert set(BANK[i]["keywords"]) & {"分布仮説", "ネガティブサンプリング", "GloVe"}
    assert len(BANK) >= 25


def test_moved_items_and_the_fixed_k31():
    moved = {i: it["moved_from"] for i, it in BANK.items() if "moved_from" in it}
    assert moved == {"wordvec.k01": "seq2seq.k11", "wordvec.k02": "seq2seq.k12", "wordvec.k03": "seq2seq.k31",
                     "wordvec.k04": "seq2seq.k32"}
    assert not any(i in {it["id"] for it in knowledge.bank()["seq2seq"]} for i in moved.values())
    k03 = json.dumps(BANK["wordvec.k03"], ensure_ascii=False)
    assert "周りの語を予測する浅いネット" not in k03 and "周りの語の予測から" not in k03
    assert "中心の語を予測する CBOW" in BANK["wordvec.k03"]["explanation"]
    assert "中心の語から周辺の語を予測するスキップグラム" in BANK["wordvec.k03"]["explanation"]


def test_knowledge_items_quote_the_engine_numbers():
    k26 = BANK["wordvec.k26"]
    v, d = 10_000, 300
    assert f"{wv.embedding_params(v, d):,}" in k26["answer"]
    texts = {w["why"].split("：")[0]: w["text"] for w in k26["wrong"]}
    assert f"{wv.embedding_params_added(v, d):,}" in texts["V と d を足した"]
    assert f"{wv.embedding_params_one_hot(v, d):,}" in texts["one-hot の長さと取り違え"]
    assert f"{wv.word2vec_params(v, d):,}" in texts["入力側と出力側の 2 つを数えた"]
    k21 = BANK["wordvec.k21"]
    assert "、".join(wv.char_ngrams("where", 3, 3).ngrams) in k21["wrong"][0]["text"]
    assert wv.idf_value(4, 4) == 0 and "log(4 / 4) = 0" in BANK["wordvec.k28"]["answer"]


def test_the_bank_has_no_answer_cues():
    from test_bank_quality import majority_score, rank_scores, strictly_longest, strictly_shortest, unbalanced_blanks
    single = [it for it in BANK.values() if it["form"] != "blank"]
    longest = sum(strictly_longest(it["answer"], [w["text"] for w in it["wrong"]]) for it in single)
    shortest = sum(strictly_shortest(it["answer"], [w["text"] for w in it["wrong"]]) for it in single)
    assert longest <= 0.3 * len(single) and shortest <= 0.3 * len(single)
    assert max(rank_scores(single)) <= 0.35
    for it in (it for it in BANK.values() if it["form"] == "blank"):
        texts = [it["answer"]] + [w["text"] for w in it["wrong"]]
        assert unbalanced_blanks(texts) == [] and majority_score(texts, 0) == 0.25, it["id"]
