"""⓪-1 単語の分散表現: words as numbers before Seq2Seq — one-hot vectors, Bag-of-Words and TF-IDF,
the distributional idea, word2vec's CBOW and skip-gram (their training examples, the softmax,
negative sampling), fastText's character n-grams, static vs contextual vectors (ELMo), N-grams and
language models, morphological and syntactic analysis.

Every number comes from tutor.wordvec: TF-IDF of a tiny corpus, cosine similarities and an analogy,
the (centre, context) pairs of a window, fastText's units, the embedding table's size.
"""
import numpy as np
import streamlit as st

import ui
from tutor import numfmt
from tutor import wordvec as wv
from ui.figures import word_map_chart
from ui.latex import dot_terms, fmt, par, row, text_row
from ui.state import plain

ui.page("wordvec")

EMB_KEY, ANALOGY_KEY = "wordvec_emb", "wordvec_analogy"   # 試してみよう's tables; 手計算 computes with EMB_KEY's
DOCS = ["文書" + str(i + 1) for i in range(len(wv.CORPUS))]
A_WORDS = list(wv.ANALOGY_WORDS)


def count(x) -> str:
    return numfmt.grouped(x)


def words_of(doc) -> str:
    return "・".join(doc)


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 語を数で表す方法を、数える方法（**ワンホットベクトル**・**BoW**・**TF-IDF**）→ 学習した **分散表現**"
        "（**単語埋め込み**）→ 文脈に応じた埋め込み（**ELMo**）の順に区別して説明できる。\n"
        "- **word2vec** の **CBOW** と **スキップグラム** が何から何を予測するかを言え、窓の幅から学習データの数を数えられる。\n"
        "- コサイン類似度と単語の類推（王 − 男 + 女）、TF-IDF、**fastText** の文字 n-gram、埋め込みの表のパラメータ数を手計算できる。\n"
        "- **N-gram** と **言語モデル**、**形態素解析** と **構文解析** の役割を、それぞれの用語で説明できる。"
    )
    ui.section("explain")
    st.subheader("語を数える：one-hot・Bag-of-Words・TF-IDF")
    explain_counts()
    st.subheader("分布仮説から分散表現へ")
    explain_distributional()
    st.subheader("word2vec：CBOW とスキップグラム")
    explain_word2vec()
    ui.folded_topics("まわりの用語と発展", TERMS, key="wordvec")


def explain_counts() -> None:
    """解説: ワンホットベクトル, BoW, TF-IDF."""
    st.markdown(
        "語をコンピュータに渡すには数にします。いちばん素朴なのが **ワンホットベクトル**（one-hot 表現）で、語彙の語数 $V$ と"
        "同じ長さのベクトルの、その語の位置だけを 1、残りを 0 にします（1 語を 1 つの次元で表すので **局所表現** とも呼びます）。"
        "試験で問われるのは、次元が語彙数と同じで、ほとんどが 0（疎）で、どの 2 語も内積が 0 になるので **語どうしの近さを表せない** ことです。"
    )
    st.markdown(
        "文書は、語ごとの出現回数を並べた **Bag-of-Words（BoW）** で表せます。袋に入れて数えるだけなので **語の並び順は捨てられ**、"
        f"「{words_of(wv.WORD_ORDER_PAIR[0])}」と「{words_of(wv.WORD_ORDER_PAIR[1])}」は同じベクトルになります。"
        "回数のままでは「が」「を」のようにどの文書にも出る語が強く効くので、**TF-IDF** では文書の中での出現の割合 TF に、"
        "その語を含む文書が少ないほど大きい IDF を掛けます（IDF の考え方は Spärck Jones、1972 年。TF との積の重みは Salton らの"
        "情報検索の研究で広まりました）。"
    )
    st.latex(r"\mathrm{TF}(t, d) = \frac{\text{d の中の t の回数}}{\text{d の語数}}")
    st.latex(r"\mathrm{IDF}(t) = \log_2 \frac{N}{\mathrm{df}(t)}")
    st.latex(r"\text{TF-IDF}(t, d) = \mathrm{TF}(t, d) \times \mathrm{IDF}(t)")
    st.markdown(
        "$N$ は文書の数、$\\mathrm{df}(t)$ は語 $t$ を含む文書の数です。このページは底 2 の対数を使います（e や 10 を使う形、"
        "1 を足して 0 で割るのを防ぐ形などもあり、底を変えても重みの比は変わりません）。決め手は向きで、**すべての文書に現れる語は "
        "IDF = log 1 = 0** で重みが消え、珍しい語ほど重くなります。"
    )


def explain_distributional() -> None:
    """解説: 分布仮説, 分散表現（単語埋め込み）, コサイン類似度."""
    st.markdown(
        "ワンホットの弱点を越えるのが **分散表現**（**単語埋め込み**）です。各語を数百次元ほどの **密な実数ベクトル** にし、"
        "1 つの意味を多くの次元に分散して持たせます。使われ方の似た語ほど向きが近くなるように学習し、近さは "
        "**コサイン類似度**（向きが同じなら 1、直交なら 0）で測ります。"
    )
    st.latex(r"\cos(a, b) = \frac{a \cdot b}{\|a\|\,\|b\|}")
    st.markdown(
        "土台にあるのが **分布仮説** です。周りに現れる語が似ている語どうしは、意味も似ているという考え方で、Harris（1954 年）に"
        "さかのぼり、Firth（1957 年）の「語はその仲間で分かる」という言い方で知られています。周りの語を数えて並べるだけでも"
        "似た語は似たベクトルになります（「可視化」）。周りの語の **予測** を解いて学ぶのが次の word2vec です。"
    )


def explain_word2vec() -> None:
    """解説: word2vec, CBOW, スキップグラム, the skip-gram softmax."""
    st.markdown(
        "**word2vec**（Mikolov ら、2013 年）は、入力層・中間層・出力層だけの浅いネットで周りの語との予測を解き、"
        "各語のベクトル（入力側の重み）を学びます。形は 2 つあり、試験の決め手は **何から何を予測するか** です。\n\n"
        "- **CBOW**（Continuous Bag-of-Words）：窓の中の **周辺の語** のベクトルを平均し、**中心の語** を当てます。"
        "平均するので周辺の語の順序は使わず、1 つの位置から 1 つの学習例を作ります。\n"
        "- **スキップグラム**（Skip-gram）：**中心の語** から、窓の中の **周辺の語** を 1 つずつ当てます。"
        "周辺の語 1 つごとに 1 組で、窓の幅 $c$（前後に $c$ 語ずつ）なら 1 語あたり最大 $2c$ 組です。"
    )
    st.latex(r"P(o \mid c) = \frac{\exp(u_o \cdot v_c)}{\sum_{w=1}^{V} \exp(u_w \cdot v_c)}")
    st.markdown(
        "$v_c$ は中心の語の入力側のベクトル、$u_w$ は出力側のベクトルです。分母で語彙の全語と内積をとるので重く、"
        "ネガティブサンプリングなどで軽くします。word2vec の道具は位置ごとに窓の幅を 1〜$c$ からくじで選ぶので、近い語ほど"
        "多く使われます。学習したベクトルでは 王 − 男 + 女 が 女王 に近くなるような関係（類推）が報告されました。"
        "語ごとに 1 本のベクトルなので、word2vec は **静的な埋め込み** です。"
    )


def explain_analysis() -> None:
    st.markdown(
        "日本語の文は語の間に空白がないので、数える前に語に区切ります。**形態素解析** は文を意味を持つ最小の単位（形態素）に"
        "区切り、名詞・助詞・動詞などの品詞を付けます（「猫が魚を食べる」→「猫／が／魚／を／食べる」）。**構文解析** は、区切った語"
        "どうしの係り受けを調べて文の構造を求めます（「黒い猫の尻尾」で「黒い」がどの語にかかるか）。区切る・品詞を付けるのが"
        "形態素解析、語どうしの関係を求めるのが構文解析、と押さえましょう。このページの例文は、形態素解析の後の形として空白で区切ってあります。"
    )


def explain_ngram() -> None:
    bigram = wv.bigram_probability(wv.CORPUS, "が", "魚")
    st.markdown(
        "**N-gram** は連続する $N$ 個の語（または文字）の並びで、$L$ 語の文から $L - N + 1$ 個できます。BoW が捨てた語順の一部を残せます。"
        "**言語モデル** は語の並びの現れやすさを確率で表すモデルで、並びの確率を前の語からの条件付き確率の積に分けます。"
        "**N-gram 言語モデル** は直前の $N - 1$ 語だけを条件にし、コーパスの回数から確率を見積もります。"
        "試験の決め手は、言語モデルが語の並びに **確率を与える** ものだということと、N-gram 言語モデルが見るのは直前の "
        "$N - 1$ 語だけだということです。"
    )
    st.latex(r"P(w_1, \dots, w_n) \approx \prod_{t} P(w_t \mid w_{t-1})")
    st.latex(r"P(w \mid v) = \frac{C(v\,w)}{\sum_u C(v\,u)}")
    st.markdown(
        f"「手計算」のコーパスでは「が」の後に 魚・肉・犬・空 が 1 回ずつ続くので、バイグラム（2-gram）言語モデルの "
        f"$P(\\text{{魚}} \\mid \\text{{が}}) = {fmt(bigram)}$ です。ELMo や GPT は、この言語モデルをニューラルネットで作ったものです。"
    )


def explain_fasttext() -> None:
    where = wv.char_ngrams(wv.DEMO_WORD, 3, 3)
    st.markdown(
        "**fastText**（Bojanowski ら、2017 年）は、スキップグラムの語のベクトルを、その語の **文字の n-gram** のベクトルの和で作ります。"
        "語の前後に境界の記号 < と > を付けて接頭辞・接尾辞を区別し、$n = 3$〜$6$ の n-gram に語そのものも 1 つの単位として加えます。"
        f"{wv.DEMO_WORD} の 3-gram は {'、'.join(where.ngrams)} で、これに {where.whole} が加わります。"
        "決め手は、学習に出てこなかった語（未知語）や活用形にも、共有する n-gram からベクトルを作れることです。語ごとに 1 本だけの word2vec にはできません。"
    )


def explain_contextual() -> None:
    st.markdown(
        "word2vec の埋め込みは、語ごとに用意した **1 本のベクトル** を表から引くだけなので、どの文に出てきても同じです"
        "（**静的な埋め込み**）。「はし」が橋の意味でも箸の意味でも、ベクトルは 1 つしかありません。"
        "**ELMo**（Peters ら、2018 年）は、前向きと後ろ向きの LSTM で組んだ言語モデル（双方向の言語モデル）を大量の文章で学習し、"
        "その層ごとの状態を重み付きで足して語のベクトルにします。同じ語でも前後の語に応じて違うベクトルになります"
        "（**文脈に応じた埋め込み**）。**BERT**（2018 年）は同じことを Transformer のエンコーダで行います（⑨-1）。"
        "「可視化」で、2 つの文の「はし」を比べます。"
    )


def explain_negative() -> None:
    st.markdown(
        "スキップグラムの softmax は、1 組ごとに語彙の全語と内積をとります。**ネガティブサンプリング**（Mikolov ら、2013 年の"
        "「Distributed Representations of Words and Phrases…」）は、本当の周辺の語 $o$ との組を 1 に、出現頻度の 3/4 乗に比例する"
        "分布から引いた $K$ 語との組を 0 に近づける 2 値の分類に置き換え、内積を $V$ 回から $K + 1$ 回に減らします"
        "（word2vec の道具の既定は $K = 5$）。同じ論文は、よく出る語を確率的に間引く **サブサンプリング** も示しました。"
    )
    st.latex(r"\log \sigma(u_o \cdot v_c) + \sum_{k=1}^{K} \log \sigma(-u_k \cdot v_c)")


def explain_glove() -> None:
    st.markdown(
        "**GloVe**（Pennington ら、2014 年）は、コーパス全体で語と語が一緒に現れた回数（共起の回数）の表を先に作り、その統計に"
        "合うように語のベクトルを学習します。窓ごとに予測を解く word2vec と、全体の回数を使う数える方法の両方の良さを合わせようと"
        "したものです。語と文書の回数の行列を特異値分解する **潜在的意味解析**（LSA）も、数える方法の仲間です。"
    )


# 解説's second half, one tap each (a phone pays for every element drawn: docs/performance.md)
TERMS = (("テキストを語に分ける：形態素解析と構文解析", explain_analysis, "analysis"),
         ("N-gram と言語モデル", explain_ngram, "ngram"),
         ("fastText：文字の n-gram で未知語にもベクトル", explain_fasttext, "fasttext"),
         ("静的な埋め込みと文脈に応じた埋め込み（ELMo）", explain_contextual, "contextual"),
         ("学習を軽くする工夫：ネガティブサンプリング（発展）", explain_negative, "negative"),
         ("共起を数える方法：GloVe（発展）", explain_glove, "glove"))


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("TF-IDF を数える")
    hand_tfidf()
    st.subheader("コサイン類似度と類推")
    hand_cosine()
    hand_analogy()
    st.subheader("スキップグラムと CBOW の学習データ")
    hand_pairs()
    st.subheader("スキップグラムの確率とネガティブサンプリング")
    hand_softmax()
    st.subheader("fastText の文字 n-gram")
    hand_fasttext()
    st.subheader("パラメータ数：埋め込みの表 V × d")
    hand_params()


def hand_tfidf() -> None:
    """手計算: TF, IDF and TF-IDF of three words of 文書1 (tutor.wordvec.tfidf)."""
    t = wv.tfidf(wv.CORPUS)
    ui.show_table({"文書": DOCS, "語（形態素解析の後）": [words_of(d) for d in wv.CORPUS]}, hide_index=True)
    st.markdown(f"文書は $N = {len(wv.CORPUS)}$ 件です。文書1 の 3 つの語で計算します（どれも文書1 に 1 回、文書1 は 5 語）。")
    lines = []
    for w in ("魚", "猫", "が"):
        j = t.vocab.index(w)
        lines.append(f"\\text{{{w}}}：\\ \\mathrm{{TF}} &= {count(t.counts[0, j])}/{count(t.lengths[0])} = {fmt(t.tf[0, j])} \\\\"
                     f"\\mathrm{{IDF}} &= \\log_2({len(wv.CORPUS)}/{count(t.df[j])}) = {fmt(t.idf[j])} \\\\"
                     f"\\text{{TF-IDF}} &= {fmt(t.tf[0, j])} \\times {fmt(t.idf[j])} = {fmt(t.weights[0, j])}")
    st.latex(r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}")
    st.markdown(f"「{'」「'.join(t.everywhere)}」は 4 件すべてに現れるので IDF = 0 で、何回出ても重みは 0 です。"
                "文書1 だけに現れる「魚」がいちばん重くなりました。")
    ui.show_table({"語": list(t.vocab), "df": [count(x) for x in t.df], "IDF": [fmt(x) for x in t.idf]}, hide_index=True)


def hand_cosine() -> None:
    """手計算: cos(猫, 犬) of 試してみよう's table (the example before any edit)."""
    e = ui.matrix_value(EMB_KEY, wv.EMB_VECTORS)
    a, b = e[0], e[1]
    cos = ui.compute("wordvec_hand_cos", wv.cosine_similarity, a, b)
    if cos is None:
        return
    st.markdown(f"「試してみよう」の表の 猫 $a = {row(a)}$ と 犬 $b = {row(b)}$ のコサイン類似度です（書き換えるとここも変わります）。")
    st.latex(r"\begin{aligned}a \cdot b &= " + dot_terms(a, b) + f" = {fmt(wv.cosine_without_norm(a, b))}"
             + r" \\ \|a\| &= " + fmt(wv.vector_norm(a)) + r",\quad \|b\| = " + fmt(wv.vector_norm(b))
             + r" \\ \cos(a, b) &= \frac{" + fmt(wv.cosine_without_norm(a, b)) + "}{" + fmt(wv.vector_norm(a))
             + r" \times " + fmt(wv.vector_norm(b)) + "} = " + fmt(cos) + r"\end{aligned}")
    st.caption("長さは小数第 4 位を四捨五入して表示しています（計算は丸めずに進めています）。")


def hand_analogy() -> None:
    """手計算: 男 : 王 = 女 : ? on the 2-D table (tutor.wordvec.analogy)."""
    e = ui.matrix_value(ANALOGY_KEY, wv.ANALOGY_VECTORS)
    a, b, c = wv.ANALOGY_QUERY
    res = ui.compute("wordvec_hand_analogy", wv.analogy, e, a, b, c)
    if res is None:
        return
    st.markdown(f"類推「{A_WORDS[a]} : {A_WORDS[b]} = {A_WORDS[c]} : ？」は、{A_WORDS[b]} − {A_WORDS[a]} の差を {A_WORDS[c]} に足した "
                "$t$ を作り、入力の 3 語を除いてコサイン類似度が最大の語を探します（word2vec の道具と同じ）。")
    st.latex(f"t = {row(e[b])} - {row(e[a])} + {row(e[c])} = {row(res.target)}")
    cand = np.flatnonzero(res.allowed)
    ui.show_table({"候補": [A_WORDS[i] for i in cand], "ベクトル": [text_row(e[i]) for i in cand],
                   "t との内積": [fmt(res.dots[i]) for i in cand], "コサイン類似度": [fmt(res.cosines[i]) for i in cand]},
                  hide_index=True)
    dot_word = A_WORDS[res.best_by_dot]
    st.markdown(f"答えは **{A_WORDS[res.best]}**（{fmt(res.cosines[res.best])}）。"
                + (f"内積のまま比べると、長いベクトルの {dot_word}（{fmt(res.dots[res.best_by_dot])}）が選ばれてしまいます。"
                   if res.best_by_dot != res.best else "この表では内積で比べても同じ語になりますが、いつもそうとは限りません。")
                + "長さで割るのは、向きだけを比べるためです。")


def hand_pairs() -> None:
    """手計算: skip-gram's pairs and CBOW's examples of one sentence, window 2."""
    s, c = wv.SENTENCE, wv.WINDOW
    st.markdown(f"文「{words_of(s)}」（$L = {len(s)}$ 語）、窓の幅 $c = {c}$（前後に {c} 語ずつ）で作る学習データです。")
    ctx = [[s[j] for j in wv.context_positions(len(s), i, c)] for i in range(len(s))]
    ui.show_table({"中心の語": list(s), "窓の中の周辺の語": ["・".join(x) for x in ctx],
                   "スキップグラムの組": [str(len(x)) for x in ctx]}, hide_index=True)
    st.markdown("スキップグラムは各行の（中心の語, 周辺の語）を 1 組ずつ作り、CBOW は各行の「周辺の語 → 中心の語」を"
                "1 つの学習例にします。")
    pairs, (two_cl, cc1) = wv.skipgram_pair_count(len(s), c), wv.pair_count_terms(len(s), c)
    st.latex(r"\begin{aligned}\text{組の数} &= " + " + ".join(str(len(x)) for x in ctx) + f" = {pairs}"
             + r" \\ &= 2cL - c(c + 1) = " + f"{two_cl} - {cc1}" + r" \\ \text{CBOW の例} &= L = "
             + f"{wv.cbow_example_count(len(s), c)}" + r"\end{aligned}")
    st.markdown(f"文の中ほどの「{s[2]}」は $2c = {wv.middle_context_count(len(s), c)}$ 組を作り、端の語ははみ出す分だけ減ります。"
                f"窓を片側だけ数えると {wv.pair_count_one_sided(len(s), c)}、端を考えないと {wv.pair_count_no_edges(len(s), c)} に"
                "なってしまいます。")


def hand_softmax() -> None:
    """手計算: P(o | 食べる) by softmax, then the negative-sampling objective (tutor.wordvec.word2vec)."""
    v, u, words = wv.SOFTMAX_CENTER, wv.SOFTMAX_OUT, wv.SOFTMAX_WORDS
    sm = wv.skipgram_softmax(v, u)
    st.markdown(f"中心の語「{wv.SENTENCE[-1]}」の入力側のベクトルを $v_c = {row(v)}$、出力側の 4 語のベクトルを下の表とします"
                "（説明用の小さな整数）。スコア $u_w \\cdot v_c$ を softmax にかけると、周辺に来る語の確率になります。")
    ui.show_table({"語": list(words), "u_w": [text_row(x) for x in u], "u_w · v_c": [fmt(x) for x in sm.scores],
                   "exp": [fmt(x) for x in sm.exps], "P(w | c)": [fmt(x) for x in sm.probs]}, hide_index=True)
    neg = wv.negative_sampling(v, u[wv.NEG_POSITIVE], u[list(wv.NEG_SAMPLES)])
    o, ks = words[wv.NEG_POSITIVE], [words[k] for k in wv.NEG_SAMPLES]
    st.markdown(f"ネガティブサンプリング（発展）では、本当の周辺の語「{o}」と、引いた負例「{'」「'.join(ks)}」だけを使い、"
                "σ（シグモイド）で「来る・来ない」を見分けます。内積は 4 回ではなく 3 回で済みます。")
    st.latex(r"\begin{aligned}\sigma(" + fmt(neg.positive_score) + ") &= " + fmt(neg.positive_prob) + r" \\ "
             + r" \\ ".join(f"\\sigma(-{par(s)}) &= {fmt(p)}" for s, p in zip(neg.negative_scores, neg.negative_probs))
             + r" \\ \text{目的関数} &= \log " + fmt(neg.positive_prob)
             + "".join(f" \\\\ &\\quad + \\log {fmt(p)}" for p in neg.negative_probs)
             + f" \\\\ &= {fmt(neg.objective)}" + r"\end{aligned}")
    st.caption("目的関数を大きく（損失 = −目的関数を小さく）するように、$v_c$ と $u$ を少しずつ動かします。表示は小数第 4 位を四捨五入した値です。")


def hand_fasttext() -> None:
    """手計算: the units of where (n = 3) and a word vector as the sum of its units."""
    where = wv.char_ngrams(wv.DEMO_WORD, 3, 3)
    full = wv.unit_count(len(wv.DEMO_WORD))
    st.markdown(f"{wv.DEMO_WORD}（{len(wv.DEMO_WORD)} 文字）に < > を付けた {where.marked}（{len(where.marked)} 文字）から、3 文字ずつ"
                f"ずらして {'、'.join(where.ngrams)} の {len(where.ngrams)} 個（= {len(where.marked)} − 3 + 1）。"
                f"語そのもの {where.whole} を加えて **{len(where.units)} 個** の単位になります。fastText の既定の $n = 3$〜$6$ なら "
                f"{full} 個です。")
    z = wv.SUM_VECTORS
    total = wv.subword_vector(wv.SUM_UNITS, z)
    st.markdown(f"語のベクトルは単位のベクトルの和です。「{wv.SUM_WORD}」の 4 つの単位に説明用の 2 次元のベクトルを置くと：")
    ui.show_table({"単位": [*wv.SUM_UNITS, f"和（{wv.SUM_WORD} のベクトル）"],
                   "ベクトル z": [text_row(v) for v in z] + [text_row(total)]}, hide_index=True)
    st.latex(ui.handcalc.fit(f"v(\\text{{{wv.SUM_WORD}}})", [row(v) for v in z], f"= {row(total)}"))
    st.caption("学習に出てこなかった「たべたい」も、<たべ と たべた を共有するので、その分だけ近いベクトルになります。")


def hand_params() -> None:
    """手計算: V × d, word2vec's 2 V d, and one-hot × E = one row."""
    v, d = wv.PARAM_EXAMPLE["vocab"], wv.PARAM_EXAMPLE["dim"]
    st.markdown(f"語彙 $V = {count(v)}$ 語を $d = {d}$ 次元で表す埋め込みの表は $V$ 行 × $d$ 列です。")
    st.latex(r"\begin{aligned}V \times d &= " + f"{count(v)} \\times {d} = {count(wv.embedding_params(v, d))}"
             + r" \\ 2Vd &= " + count(wv.word2vec_params(v, d)) + r"\end{aligned}")
    st.markdown("word2vec は学習中に、同じ大きさの出力側の表も持つので $2Vd$ です（単語ベクトルとして使うのは入力側の表）。")
    e = ui.matrix_value(EMB_KEY, wv.EMB_VECTORS)
    x, picked = wv.embedding_lookup(e, 0)
    st.markdown(f"ワンホットベクトルは長さ $V = {count(v)}$ のベクトル 1 本で、パラメータではありません。表に掛けると、その語の行が"
                f"取り出されるだけです（「試してみよう」の 4 語の表で、{wv.EMB_WORDS[0]} の場合）：")
    st.latex(f"{row(x)} \\times E = {row(picked)}")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("同じ場所に現れる語は似たベクトルになる")
    visual_contexts()
    st.subheader("類推を平面で見る")
    visual_analogy()
    st.subheader("回数と TF-IDF を比べる")
    t = wv.tfidf(wv.CORPUS)
    st.markdown("「手計算」の 4 件の文書で、各語の TF（出現の割合）と TF-IDF を同じ色の範囲で並べました。")
    ui.side_by_side([(t.tf.T, t.vocab, DOCS, "TF"), (t.weights.T, t.vocab, DOCS, "TF-IDF")], x_title="文書", y_title="語")
    st.caption("が・を は TF が大きくても TF-IDF は 0 になり、1 件にしか出ない語（魚・肉・空…）が明るくなります。")
    st.subheader("2 つの「はし」：静的な埋め込みと文脈に応じた埋め込み")
    contextual_view()


def visual_contexts() -> None:
    """可視化: count-based vectors (window 1) of 猫・犬・魚・肉 and their cosines."""
    cv = wv.context_vectors(wv.DIST_CORPUS, wv.DIST_WORDS)
    st.markdown("6 つの短い文「" + "」「".join(words_of(d) for d in wv.DIST_CORPUS) + "」で、各語のすぐ隣（窓の幅 1）に"
                "来た語を数えました。猫 と 犬 は一度も同じ文に出てきませんが、同じ場所に立つので同じ行になります。")
    ui.heatmap(cv.counts, cv.words, cv.contexts, x_title="隣に来た語", y_title="語", title="隣に来た回数", digits=0)
    ui.heatmap(cv.cosines, cv.words, cv.words, x_title="語", y_title="語", title="行どうしのコサイン類似度")
    st.caption(f"猫 と 犬、魚 と 肉 は {fmt(cv.cosines[0, 1])}、猫 と 魚 は {fmt(cv.cosines[0, 2])} です（分布仮説）。"
               "word2vec は、数える代わりに周りの語の予測を解いて、同じ性質のベクトルを学びます。")


def visual_analogy() -> None:
    """可視化: the analogy table on the plane, t = 王 − 男 + 女 and the two equal offsets."""
    e = ui.matrix_value(ANALOGY_KEY, wv.ANALOGY_VECTORS)
    a, b, c = wv.ANALOGY_QUERY
    res = ui.compute("wordvec_vis_analogy", wv.analogy, e, a, b, c)
    if res is None:
        return
    offsets = ((*e[a], *e[b]), (*e[c], *res.target))
    ui.cached_chart(word_map_chart, tuple(A_WORDS), tuple(map(tuple, e)), tuple(res.target),
                    target_label=f"t = {A_WORDS[b]}−{A_WORDS[a]}+{A_WORDS[c]}", offsets=offsets,
                    x_title=wv.ANALOGY_DIMS[0], y_title=wv.ANALOGY_DIMS[1], title="2 次元の単語ベクトル", width="stretch")
    st.caption(f"点線は同じずれ（{A_WORDS[b]} − {A_WORDS[a]}）を {A_WORDS[a]} と {A_WORDS[c]} から引いたもの。原点からの線の向きが近いほど"
               f"コサイン類似度が大きく、t に向きがいちばん近いのは {A_WORDS[res.best]} です。")


def contextual_view() -> None:
    """可視化: the two はし, static (the same row) vs contextual (softmax(E Eᵀ) E in each sentence)."""
    res = wv.contextual_embeddings(wv.CTX_VECTORS, wv.CTX_SENTENCES)
    words = [[wv.CTX_WORDS[w] for w in sent] for sent in wv.CTX_SENTENCES]
    at = [list(sent).index(0) for sent in wv.CTX_SENTENCES]            # where はし stands in each sentence
    static = [res.static[k][at[k]] for k in range(2)]
    ctx = [res.context[k][at[k]] for k in range(2)]
    st.markdown("2 つの文「川の **はし** を渡る」「ご飯を **はし** で食べる」の「はし」を比べます。埋め込みの列は、その語が"
                "どれだけ食事・移動・水辺に関わるかを表す説明用の値です。文脈に応じた埋め込みの代わりに、① の素朴な自己注意を "
                "1 回だけ通して、文の中の語どうしを混ぜました（ELMo は双方向 LSTM、BERT は何層もの自己注意で同じことをします）。")
    ui.show_table({"文": ["・".join(w) for w in words],
                   "はし（静的：表から引く）": [text_row(v) for v in static],
                   "はしの重み（文の各語へ）": [text_row(res.weights[k][at[k]]) for k in range(2)],
                   "はし（文脈に応じた）": [text_row(v) for v in ctx]}, hide_index=True)
    c1, c2 = st.columns(2)
    c1.metric("静的な 2 つの「はし」のコサイン類似度", fmt(wv.cosine_similarity(*static)))
    c2.metric("文脈に応じた 2 つの「はし」のコサイン類似度", fmt(wv.cosine_similarity(*ctx)))
    st.caption("静的な埋め込みでは、どちらの文の「はし」も同じベクトルなので類似度は 1 です。文脈で混ぜると、川の文では移動・水辺の向きに、"
               "ご飯の文では食事の向きに寄り、同じ語でも別のベクトルになります。")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    """Six fragments: an edit reruns only its own part."""
    st.subheader("分散表現を書き換える")
    try_embeddings()
    try_analogy()
    st.subheader("自分の文書で TF-IDF")
    try_tfidf()
    st.subheader("窓の幅と学習データ")
    try_window()
    st.subheader("fastText の n-gram を作る")
    try_fasttext()
    st.subheader("埋め込みの大きさ")
    try_params()


@st.fragment
def try_embeddings() -> None:
    """分散表現 as a fragment: an edit of E reruns this part only (手計算 computes with it next)."""
    st.markdown("4 語の埋め込み（値は説明用の仮のもの）を書き換えると、下のコサイン類似度と「手計算」の計算が変わります。"
                "列は、その語がどれだけ動物らしいか・食べ物らしいか・動きを表すかです。")
    emb = ui.matrix_editor(EMB_KEY, wv.EMB_VECTORS, list(wv.EMB_WORDS), list(wv.EMB_DIMS), label="埋め込み E（1 行 = 1 語）")
    sim = ui.compute("wordvec_sim", wv.similarity_matrix, emb)
    onehot = wv.similarity_matrix([wv.one_hot_vector(i, len(wv.EMB_WORDS)) for i in range(len(wv.EMB_WORDS))])
    if sim is not None:
        ui.side_by_side([(onehot, wv.EMB_WORDS, wv.EMB_WORDS, "one-hot のコサイン類似度"),
                         (sim, wv.EMB_WORDS, wv.EMB_WORDS, "分散表現のコサイン類似度")], x_title="", y_title="")
        st.caption(f"one-hot では異なる語どうしがすべて 0 です。分散表現では 猫 と 犬 が {fmt(sim[0, 1])}、"
                   f"猫 と 走る が {fmt(sim[0, 3])} で、語の近さが数に表れます。")


@st.fragment
def try_analogy() -> None:
    """類推 as a fragment: the 2-D table and the three words rerun this part only."""
    st.markdown("**類推**：2 次元の表を書き換えたり、3 つの語を選び直したりして、答えがどう変わるかを見ましょう"
                "（「手計算」と「可視化」もこの表で計算します）。")
    e = ui.matrix_editor(ANALOGY_KEY, wv.ANALOGY_VECTORS, A_WORDS, list(wv.ANALOGY_DIMS), label="2 次元の単語ベクトル")
    c1, c2, c3 = st.columns(3)
    picks = [box.selectbox(label, range(len(A_WORDS)), index=default, format_func=A_WORDS.__getitem__,
                           key=f"wordvec_pick_{k}", persist_state="session")
             for k, (box, label, default) in enumerate(zip((c1, c2, c3), ("a", "b", "c"), wv.ANALOGY_QUERY))]
    res = ui.compute("wordvec_try_analogy", wv.analogy, e, *picks)
    if res is None:
        return
    a, b, c = (A_WORDS[i] for i in picks)
    st.metric(f"{a} : {b} = {c} : ？", A_WORDS[res.best])
    other = {"内積で選ぶと": res.best_by_dot, "入力の語を除かないと": res.best_with_inputs}
    slips = "、".join(f"{how} {A_WORDS[i]}" for how, i in other.items() if i != res.best)
    st.caption(f"t = {b} − {a} + {c} = {text_row(res.target)}、コサイン類似度 {fmt(res.cosines[res.best])}。"
               + (f"{slips} が選ばれます。" if slips else "内積で選んでも、入力の語を除かなくても、この表では同じ語です。"))


@st.fragment
def try_tfidf() -> None:
    """TF-IDF as a fragment: the documents rerun this part only."""
    text = st.text_area(f"文書（1 行に 1 文書、語は空白で区切る。{wv.MAX_DOCS} 文書・1 文書 {wv.MAX_WORDS} 語まで）",
                        value="\n".join(" ".join(d) for d in wv.CORPUS), key="wordvec_docs", persist_state="session",
                        height=130)
    docs = ui.compute("wordvec_docs_split", wv.split_corpus, text.splitlines())
    t = ui.compute("wordvec_try_tfidf", wv.tfidf, docs) if docs is not None else None
    if t is None:
        return
    names = [f"文書{i + 1}" for i in range(len(docs))]
    ui.show_table({"語": list(t.vocab), "df": [count(x) for x in t.df], "IDF": [fmt(x) for x in t.idf],
                   **{n: [fmt(x) for x in t.weights[i]] for i, n in enumerate(names)}}, hide_index=True)
    top = [t.vocab[int(np.argmax(t.weights[i]))] for i in range(len(docs))]
    st.markdown("各文書で TF-IDF がいちばん大きい語：" + "、".join(f"{n}＝{plain(w)}" for n, w in zip(names, top)))
    if t.everywhere:
        st.caption("すべての文書に現れる語（IDF = 0）：" + "、".join(plain(w) for w in t.everywhere))


@st.fragment
def try_window() -> None:
    """The window as a fragment: the sentence or c reruns this part only."""
    text = st.text_input("文（語を空白で区切る）", value=" ".join(wv.SENTENCE), key="wordvec_sentence", persist_state="session")
    c = st.slider("窓の幅 c（前後に c 語ずつ）", min_value=1, max_value=5, value=wv.WINDOW, key="wordvec_window",
                  persist_state="session")
    tokens = ui.compute("wordvec_sentence_split", wv.split_text, text)
    if tokens is None:
        return
    m1, m2 = st.columns(2)
    m1.metric("スキップグラムの組", str(wv.skipgram_pair_count(len(tokens), c)))
    m2.metric("CBOW の学習例", str(wv.cbow_example_count(len(tokens), c)))
    ui.show_table({"中心の語": list(tokens),
                   "周辺の語（スキップグラムは 1 つずつ組に、CBOW はまとめて入力に）":
                       ["・".join(tokens[j] for j in wv.context_positions(len(tokens), i, c)) for i in range(len(tokens))]},
                  hide_index=True)


@st.fragment
def try_fasttext() -> None:
    """fastText's units as a fragment: the words or n rerun this part only."""
    c1, c2 = st.columns(2)
    w1 = c1.text_input("単語 1", value=wv.SIMILAR_PAIRS[0][0], key="wordvec_ft_word", persist_state="session")
    w2 = c2.text_input("単語 2（学習に出てこなかった語のつもりで）", value=wv.SIMILAR_PAIRS[0][1], key="wordvec_ft_other",
                       persist_state="session")
    lo, hi = st.slider("n の範囲", min_value=1, max_value=6, value=(3, 3), key="wordvec_ft_n", persist_state="session")
    res = ui.compute("wordvec_ft_overlap", wv.subword_overlap, w1, w2, lo, hi)
    if res is None:
        return
    ui.show_table({"単語": [res.first.word, res.second.word], "単位の数": [str(len(res.first.units)), str(len(res.second.units))],
                   "単位（n-gram と語そのもの）": ["、".join(res.first.units), "、".join(res.second.units)]}, hide_index=True)
    shared = "、".join(plain(g) for g in res.shared) or "なし"
    st.markdown(f"共有する単位：{shared}")
    st.caption(f"単位のベクトルがどれも別の向き（直交）だとすると、2 語のベクトルのコサイン類似度は {fmt(res.cosine)} です。"
               "共有する n-gram が多いほど、学習の前から近いベクトルになります。")


@st.fragment
def try_params() -> None:
    """The embedding table's size as a fragment: V or d reruns this part only."""
    c1, c2 = st.columns(2)
    with c1:
        v = ui.number_input("語彙数 V", min_value=1, max_value=10_000_000, value=wv.PARAM_EXAMPLE["vocab"], step=1000,
                            key="wordvec_vocab", persist_state="session")
    with c2:
        d = ui.number_input("次元 d", min_value=1, max_value=10_000, value=wv.PARAM_EXAMPLE["dim"], step=50,
                            key="wordvec_dim", persist_state="session")
    table = ui.compute("wordvec_params", wv.embedding_params, int(v), int(d))
    if table is None:
        return
    k1, k2, k3 = st.columns(3)
    k1.metric("ワンホットベクトルの長さ", count(v))
    k2.metric("埋め込みの表 V × d", count(table))
    k3.metric("word2vec 全体 2Vd", count(wv.word2vec_params(int(v), int(d))))
    st.caption("ワンホットベクトルの長さは語彙数だけ伸び、表のパラメータは V と d の積で増えます。")


ui.sections("wordvec", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("wordvec"))
