"""⓪-1 単語の分散表現: cosine similarity, a 不適切 item about an analogy, TF-IDF (and its 穴埋め),
the training pairs of skip-gram and CBOW (and their 穴埋め), fastText's units, the embedding table's size.

Answers: tutor.wordvec (cosine_similarity, analogy, tfidf_value / tf_value / idf_value,
skipgram_pair_count, cbow_example_count, middle_context_count, unit_count, char_ngrams,
embedding_params, word2vec_params); every distractor is one of the named mistakes next to those
formulas (cosine_without_norm, cosine_one_norm, euclidean_distance, analogy_sign_slip /
AnalogyResult.best_by_dot, tfidf_without_log, tfidf_raw_count, tfidf_inverted, idf_without_log,
pair_count_one_sided, pair_count_no_edges, unit_count_no_boundary, unit_count_one_boundary,
unit_count_no_word, embedding_params_one_hot, embedding_params_added).
"""
from __future__ import annotations

import itertools

import numpy as np

from tutor import wordvec as wv

from .calc import BEST, BLANK, WORST, blank, calc_generator, draft, mc, num, pick, redraw, tnum, two_slips
from .core import Draft

WORD_PAIRS = (("猫", "犬"), ("王", "女王"), ("駅", "空港"), ("りんご", "みかん"), ("走る", "歩く"), ("雨", "雪"))
# 3-D vectors with whole lengths (3, 5, 7, 9): every cosine is a fraction a · b / (‖a‖ ‖b‖)
BASES = ((1, 2, 2), (0, 3, 4), (2, 3, 6), (1, 4, 8), (4, 4, 7))
VECTORS = tuple(sorted({p for b in BASES for p in itertools.permutations(b)}))


def _vec_text(v) -> str:
    return "(" + ",\\ ".join(str(int(x)) for x in v) + ")"


# ---------------------------------------------------------------------------
# cosine similarity
# ---------------------------------------------------------------------------
def _params_cosine(rng: np.random.Generator) -> dict:
    i, j = rng.choice(len(VECTORS), size=2, replace=False).tolist()
    return {"a": np.array(VECTORS[i], dtype=float), "b": np.array(VECTORS[j], dtype=float),
            "words": pick(rng, WORD_PAIRS)}


@calc_generator("wordvec.cosine", "wordvec", _params_cosine)
def _cosine(p: dict) -> Draft:
    """cos(a, b) = a · b / (‖a‖ ‖b‖) of two 3-D vectors with whole lengths."""
    a, b, (w1, w2) = p["a"], p["b"], p["words"]
    right = wv.cosine_similarity(a, b)
    dot = wv.cosine_without_norm(a, b)
    na, nb = wv.vector_norm(a), wv.vector_norm(b)
    stem = (f"単語「{w1}」のベクトルが $a = {_vec_text(a)}$、単語「{w2}」のベクトルが $b = {_vec_text(b)}$ のとき、"
            f"2 つの語のコサイン類似度 $\\cos(a, b)$ の値{BEST}")
    wrong = (
        (num(dot), mc("正規化しないコサイン類似度", f"内積 $a \\cdot b = {tnum(dot)}$ をそのまま答え、2 つのベクトルの長さ"
                                                "の積で割らなかった。")),
        (num(wv.cosine_one_norm(a, b)), mc("片方の長さだけで割った", f"内積を $\\|a\\| = {tnum(na)}$ だけで割り、"
                                                              f"$\\|b\\| = {tnum(nb)}$ で割るのを忘れた。")),
        (num(wv.euclidean_distance(a, b)), mc("ユークリッド距離との取り違え", "差のベクトル $a - b$ の長さ（距離）を求めた。"
                                                                   "距離は近いほど小さく、類似度とは向きが逆である。")),
    )
    expl = (f"$a \\cdot b = {tnum(dot)}$、$\\|a\\| = {tnum(na)}$、$\\|b\\| = {tnum(nb)}$ なので "
            f"$\\cos(a, b) = {tnum(dot)} / ({tnum(na)} \\times {tnum(nb)}) = {tnum(right)}$。"
            "長さで割るので、ベクトルの向きだけが比べられる（同じ向きなら 1、直交なら 0）。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
# the analogy a : b = c : ?  (不適切なもの)
# ---------------------------------------------------------------------------
ANALOGY_SETS = (("男", "王", "女", "女王", "城"), ("男", "王子", "女", "王女", "宮殿"), ("兄", "父", "姉", "母", "家"))


def _params_analogy(rng: np.random.Generator) -> dict:
    k, g = int(rng.integers(3, 7)), int(rng.integers(1, 4))
    s = int(pick(rng, (-1, 1))) if g > 1 else 1
    r = int(rng.integers(2, 5))
    return {"k": k, "g": g, "s": s, "r": r, "names": pick(rng, ANALOGY_SETS), "wrong": int(rng.integers(2))}


def _analogy_table(p: dict) -> np.ndarray:
    """a = (1, -g), b = (k, -g), c = (1, g): t = (k, g); the answer (k, g + s) near t's direction;
    a long word (k + r, -1) that a dot product prefers when it is long enough."""
    k, g, s, r = p["k"], p["g"], p["s"], p["r"]
    return np.array([[1, -g], [k, -g], [1, g], [k, g + s], [k + r, -1]], dtype=float)


@calc_generator("wordvec.analogy_worst", "wordvec", _params_analogy)
def _analogy_worst(p: dict) -> Draft:
    """Statements about a : b = c : ? on a 2-D table; the wrong one ranks by the dot product or
    swaps the subtraction."""
    e, names = _analogy_table(p), p["names"]
    res = wv.analogy(e, 0, 1, 2)
    if res.best != 3 or res.best_by_dot == res.best:
        return redraw()
    slip = wv.analogy_sign_slip(e, 0, 1, 2)
    a, b, c, right, long_word = names
    rows = "、".join(f"{w} ${_vec_text(v)}$" for w, v in zip(names, e))
    stem = (f"2 次元の単語ベクトル {rows} を使い、「{a} : {b} = {c} : ？」の ？ を、{b} - {a} + {c} のベクトル $t$ との"
            f"コサイン類似度が最大の語として求める（{a}・{b}・{c} は候補から外す）。この計算についての記述{WORST}")
    t = _vec_text(res.target)
    if p["wrong"] == 0:
        answer = (f"$t$ との内積は {long_word} が {num(res.dots[4])} で最も大きいので、類推の答えは {long_word} になる")
        why = ("内積で比べた類推", f"内積はベクトルの長い {long_word} を有利にする。向きを比べるコサイン類似度では {right} が最大である。")
    else:
        answer = f"$t$ は {a} - {b} + {c} で作り、$t = {_vec_text(slip)}$ となる"
        why = ("類推の引き算の向きの取り違え", f"{a} から {b} への差 {b} - {a} を {c} に足すので、$t = {t}$ である"
                                          f"（逆に引いた ${_vec_text(slip)}$ は反対向きの関係を表す）。")
    wrong = (
        (f"$t$ = {b} - {a} + {c} = ${t}$ で、{right} との内積は {num(res.dots[3])} である",
         mc("正しい記述", f"成分ごとに計算すると $t = {t}$、{right} との内積は {num(res.dots[3])}。")),
        (f"$t$ と {right} のコサイン類似度は {num(res.cosines[3])}（小数第 4 位を四捨五入）である",
         mc("正しい記述", f"内積 {num(res.dots[3])} を 2 つのベクトルの長さの積で割った値。")),
        (f"$t$ と {long_word} のコサイン類似度は {num(res.cosines[4])}（小数第 4 位を四捨五入）である",
         mc("正しい記述", f"{long_word} は長いベクトルだが、向きは {right} ほど $t$ に近くない。")),
    )
    expl = (f"誤りの記述は「{why[0]}」によるもの：{why[1]}"
            f"$t = {t}$ とのコサイン類似度は {right} が {num(res.cosines[3])}、{long_word} が {num(res.cosines[4])} で、"
            f"答えは {right}。内積では {long_word}（{num(res.dots[4])}）が {right}（{num(res.dots[3])}）より大きくなる。")
    return Draft(stem, answer, wrong, expl)


# ---------------------------------------------------------------------------
# TF-IDF
# ---------------------------------------------------------------------------
TFIDF_RULE = ("TF は「その文書での出現回数 ÷ その文書の語数」、IDF は $\\log_2(N / \\mathrm{df})$"
              "（N は文書の数、df はその語を含む文書の数）、TF-IDF は TF × IDF とする。")
LENGTHS = (10, 20, 25, 40, 50)
N_DOCS = (4, 8, 16, 32)


def _params_tfidf(rng: np.random.Generator, *, everywhere: bool = False) -> dict:
    n = pick(rng, N_DOCS)
    dfs = [n >> k for k in range(0 if everywhere else 1, n.bit_length())]      # powers of 2 up to n (or below n)
    return {"n": n, "df": pick(rng, dfs), "length": pick(rng, LENGTHS), "count": int(rng.integers(1, 6))}


def _tfidf_setting(p: dict) -> str:
    return (f"{tnum(p['n'])} 件の文書からなる文書の集まりがあり、ある語は {p['df']} 件の文書に現れる。"
            f"語数 {p['length']} の文書 d の中で、この語は {p['count']} 回現れる。{TFIDF_RULE}")


@calc_generator("wordvec.tfidf", "wordvec", _params_tfidf)
def _tfidf(p: dict) -> Draft:
    """tf · idf with tf = count / length and idf = log₂(N / df)."""
    args = (p["count"], p["length"], p["n"], p["df"])
    tf, idf = wv.tf_value(p["count"], p["length"]), wv.idf_value(p["n"], p["df"])
    right = wv.tfidf_value(*args)
    stem = f"{_tfidf_setting(p)}文書 d におけるこの語の TF-IDF の値{BEST}"
    wrong = (
        (num(wv.tfidf_without_log(*args)), mc("IDF の log の付け忘れ", f"IDF を $N / \\mathrm{{df}} = {tnum(wv.idf_without_log(p['n'], p['df']))}$ の"
                                                                    "まま使い、対数をとらなかった。")),
        (num(wv.tfidf_raw_count(*args)), mc("TF を回数のまま使った", f"出現回数 {p['count']} を文書の語数 {p['length']} で"
                                                                 "割らずに IDF を掛けた。")),
        (num(wv.tfidf_inverted(*args)), mc("IDF の分母と分子の逆", "$\\log_2(\\mathrm{df} / N)$ と逆さに計算し、"
                                                                "符号が反対の値になった。")),
    )
    expl = (f"TF $= {p['count']} / {p['length']} = {tnum(tf)}$、IDF $= \\log_2({tnum(p['n'])} / {p['df']}) = {tnum(idf)}$ なので、"
            f"TF-IDF $= {tnum(tf)} \\times {tnum(idf)} = {tnum(right)}$。多くの文書に現れる語ほど IDF が小さく、"
            "すべての文書に現れる語は IDF = 0 になる。")
    return Draft(stem, num(right), wrong, expl)


@calc_generator("wordvec.tfidf_blank", "wordvec", lambda rng: _params_tfidf(rng, everywhere=True))
def _tfidf_blank(p: dict) -> Draft:
    """(ア) tf, (イ) idf, (ウ) tf · idf; the word may be in every document (idf 0)."""
    count, length, n, df = p["count"], p["length"], p["n"], p["df"]
    tf, idf = wv.tf_value(count, length), wv.idf_value(n, df)
    right = (num(tf), num(idf), num(wv.tfidf_value(count, length, n, df)))
    made = two_slips(right,
                     ("TF を回数のまま使った", "出現回数を文書の語数で割らなかった", {0: num(count)}),
                     ("IDF の log の付け忘れ", "対数をとらずに IDF を $N / \\mathrm{df}$ のまま使った",
                      {1: num(wv.idf_without_log(n, df)), 2: num(wv.tfidf_without_log(count, length, n, df))}))
    if made is None:
        return redraw()
    wrong, notes = made
    stem = (f"{BLANK}\n\n{_tfidf_setting(p)}このとき文書 d でのこの語の TF は（ア）、IDF は（イ）、TF-IDF は（ウ）である。")
    expl = (f"（ア）TF $= {count} / {length} = {right[0]}$。（イ）IDF $= \\log_2({tnum(n)} / {df}) = {right[1]}$。"
            f"（ウ）TF-IDF $= {right[0]} \\times {right[1]} = {right[2]}$。"
            + ("この語はすべての文書に現れるので IDF は $\\log_2 1 = 0$ で、何回現れても重みは 0 になる。" if df == n else
               "df が小さい（珍しい）語ほど IDF は大きくなる。"))
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
# word2vec's training examples
# ---------------------------------------------------------------------------
def _params_window(rng: np.random.Generator) -> dict:
    c = int(rng.integers(1, 4))
    return {"length": int(rng.integers(2 * c + 2, 2 * c + 9)), "window": c}


def _window_text(p: dict) -> str:
    return (f"{p['length']} 語からなる 1 つの文から、窓の幅 $c = {p['window']}$（中心の語の前に {p['window']} 語、"
            f"後ろに {p['window']} 語。文の端ではみ出す分は数えない）で word2vec の学習データを作る。")


@calc_generator("wordvec.skipgram_pairs", "wordvec", _params_window)
def _skipgram_pairs(p: dict) -> Draft:
    """Skip-gram's (centre, context) pairs: 2cL - c(c + 1) for L > 2c."""
    m, c = p["length"], p["window"]
    right, terms = wv.skipgram_pair_count(m, c), wv.pair_count_terms(m, c)
    stem = f"{_window_text(p)}スキップグラムが作る（中心の語, 周辺の語）の組の総数{BEST}"
    wrong = (
        (num(wv.pair_count_one_sided(m, c)), mc("窓を片側だけ数えた", f"中心の語の後ろの {c} 語だけを周辺の語とし、前の {c} 語を"
                                                                  "数えなかった。")),
        (num(wv.pair_count_no_edges(m, c)), mc("文の端を考えなかった", f"どの語にも前後 {2 * c} 語がそろっているとして "
                                                                 f"${2 * c} \\times {m}$ とし、端ではみ出す分を引かなかった。")),
        (num(wv.cbow_example_count(m, c)), mc("CBOW の学習例の数と取り違え", "位置ごとに 1 つの学習例を作る CBOW の数を答えた。"
                                                                       "スキップグラムは周辺の語 1 つごとに組を作る。")),
    )
    expl = (f"文の中ほどの語は ${2 * c}$ 個の組を作り、端から {c} 語以内の語は、はみ出した分だけ組が減る。"
            f"合計は $2cL - c(c + 1) = {terms[0]} - {terms[1]} = {tnum(right)}$。"
            f"CBOW なら、位置ごとに 1 つで {wv.cbow_example_count(m, c)} 個の学習例になる。")
    return Draft(stem, num(right), wrong, expl)


@calc_generator("wordvec.window_blank", "wordvec", _params_window)
def _window_blank(p: dict) -> Draft:
    """(ア) 2c pairs of a middle word, (イ) all skip-gram pairs, (ウ) CBOW's L examples."""
    m, c = p["length"], p["window"]
    right = (num(wv.middle_context_count(m, c)), num(wv.skipgram_pair_count(m, c)), num(wv.cbow_example_count(m, c)))
    made = two_slips(right,
                     ("窓を片側だけ数えた", "窓を中心の語の後ろ側だけと考えた",
                      {0: num(c), 1: num(wv.pair_count_one_sided(m, c))}),
                     ("CBOW とスキップグラムの取り違え", "CBOW も周辺の語 1 つごとに学習例を作ると考えた",
                      {2: num(wv.skipgram_pair_count(m, c))}))
    if made is None:
        return redraw()
    wrong, notes = made
    stem = (f"{BLANK}\n\n{_window_text(p)}スキップグラムでは、文の端から離れた中心の語 1 つから（ア）個の（中心の語, 周辺の語）の"
            "組ができ、文全体では（イ）個の組ができる。CBOW では、周辺の語から中心の語を当てる学習例が文全体で（ウ）個できる。")
    expl = (f"（ア）前後に {c} 語ずつで $2c = {right[0]}$。（イ）端の語の分を引いて $2cL - c(c + 1) = {right[1]}$。"
            f"（ウ）CBOW は位置ごとに、周辺の語をまとめた 1 つの学習例を作るので $L = {right[2]}$。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
# fastText's character n-grams
# ---------------------------------------------------------------------------
FT_WORDS = ("where", "apple", "cat", "walking", "たべた", "ねこ", "さくら", "ラーメン", "はしる", "コンピュータ")
FT_RANGES = ((3, 3), (3, 4), (3, 5))


def _params_fasttext(rng: np.random.Generator) -> dict:
    lo, hi = pick(rng, FT_RANGES)
    return {"word": pick(rng, FT_WORDS), "n_min": lo, "n_max": hi}


@calc_generator("wordvec.fasttext_units", "wordvec", _params_fasttext)
def _fasttext_units(p: dict) -> Draft:
    """Σ_n (m + 3 - n) character n-grams of <word> + the word itself."""
    word, lo, hi = p["word"], p["n_min"], p["n_max"]
    m = len(word)
    units = wv.char_ngrams(word, lo, hi)
    right = wv.unit_count(m, lo, hi)
    n_text = f"$n = {lo}$" if lo == hi else f"$n = {lo}$〜${hi}$"
    stem = (f"fastText と同じやり方（単語の前後に境界の記号 < と > を付けてから文字の n-gram を取り出し、単語そのものも "
            f"1 つの単位として加える）で、単語「{word}」（{m} 文字）を {n_text} の単位に分ける。"
            f"ベクトルを足し合わせる単位の総数{BEST}")
    wrong = (
        (num(wv.unit_count_no_boundary(m, lo, hi)), mc("境界記号 < > の付け忘れ", f"「{word}」の {m} 文字だけから n-gram を"
                                                                             "取り出し、< と > を付けなかった。")),
        (num(wv.unit_count_one_boundary(m, lo, hi)), mc("片側の境界記号だけ", "< か > の片方だけを付けて、"
                                                                          f"{m + 1} 文字から n-gram を取り出した。")),
        (num(wv.unit_count_no_word(m, lo, hi)), mc("単語そのものの数え忘れ", f"n-gram だけを数え、単語そのもの {units.whole} を"
                                                                        "単位に加えなかった。")),
    )
    per_n = "、".join(f"$n = {n}$ で {m + 3 - n} 個" for n in range(lo, hi + 1))
    three = "、".join(g for g in units.ngrams if len(g) == lo)
    expl = (f"< と > を付けた {units.marked}（{m + 2} 文字）から、{per_n}（{lo} 文字なら {three}）。"
            f"これに単語そのもの {units.whole} を加えて {tnum(right)} 個。語のベクトルはこれらのベクトルの和である。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
# the embedding table's size
# ---------------------------------------------------------------------------
VOCABS = (5_000, 10_000, 20_000, 30_000, 50_000, 100_000)
DIMS = (50, 100, 200, 300, 500)


def _params_size(rng: np.random.Generator) -> dict:
    return {"vocab": pick(rng, VOCABS), "dim": pick(rng, DIMS), "whole": bool(rng.integers(2))}


@calc_generator("wordvec.embedding_params", "wordvec", _params_size)
def _embedding_params(p: dict) -> Draft:
    """The embedding table V × d (or word2vec's two tables, 2 V d)."""
    v, d = p["vocab"], p["dim"]
    table, both = wv.embedding_params(v, d), wv.word2vec_params(v, d)
    setting = f"語彙 {tnum(v)} 語の各語を {d} 次元の分散表現で表す。"
    if p["whole"]:
        stem = (f"{setting}word2vec（スキップグラム）が学習中に持つ、入力側の単語ベクトルの表と出力側のベクトルの表の"
                f"パラメータの合計（バイアスはない）{BEST}")
        right = both
        wrong = (
            (num(table), mc("出力側の行列の数え忘れ", f"単語ベクトルの表 ${tnum(v)} \\times {d}$ だけを数え、出力側の同じ大きさの表を"
                                                    "落とした。")),
            (num(wv.embedding_params_one_hot(v, d)), mc("one-hot の長さと取り違え", f"ワンホットベクトルの長さ {tnum(v)} を"
                                                                                  "パラメータの数と取り違えた。")),
            (num(2 * wv.embedding_params_added(v, d)), mc("V と d を足した", f"表の大きさを ${tnum(v)} + {d}$ と足し算にし、"
                                                                           "それを 2 つ分とした。")),
        )
    else:
        stem = f"{setting}単語の ID からベクトルを引く埋め込み層（表）のパラメータの数{BEST}"
        right = table
        wrong = (
            (num(wv.embedding_params_one_hot(v, d)), mc("one-hot の長さと取り違え", f"ワンホットベクトルの長さ {tnum(v)} を"
                                                                                  "表の大きさと取り違えた。")),
            (num(wv.embedding_params_added(v, d)), mc("V と d を足した", f"表は {tnum(v)} 行 × {d} 列なのに、"
                                                                       f"${tnum(v)} + {d}$ と足し算にした。")),
            (num(both), mc("入力側と出力側の 2 つを数えた", "word2vec の学習中だけ使う出力側の表まで数えた。"
                                                          "埋め込み層そのものは表 1 つである。")),
        )
    expl = (f"埋め込みの表は {tnum(v)} 行 × {d} 列で ${tnum(v)} \\times {d} = {tnum(table)}$ 個。word2vec は学習中に"
            f"同じ大きさの出力側の表も持つので、合わせて ${tnum(both)}$ 個になる。語 $i$ のワンホットベクトル（長さ "
            f"{tnum(v)}）を表に掛けると、$i$ 行目の {d} 個の数が取り出される。")
    return Draft(stem, num(right), wrong, expl)
