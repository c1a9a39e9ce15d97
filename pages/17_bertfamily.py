"""⑨-2 BERT・GPT の後継たち：RoBERTa・ALBERT・DistilBERT・ELECTRA・XLNet・T5・BART・GPT-2 が何を変えたか、
そして GLUE・SuperGLUE・SQuAD。

Every number comes from tutor.bertfamily: ALBERT's embedding and shared layers, the static and
dynamic masks, ELECTRA's learning signal, XLNet's order masks, T5's span corruption, the SQuAD span.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import bertfamily as bf
from tutor import numfmt
from tutor import pretrain as pt
from ui.figures import stacked_counts

ui.page("bertfamily")
st.caption("BERT と GPT のあとに出たモデルが、事前学習の課題や構造の何を変えたのかを、数えて確かめます")

BASE = bf.ALBERT_BASE
STATIC = bf.ROBERTA_STATIC
RTD = bf.rtd_draw(bf.RTD_DEMO_TOKENS, bf.RTD_DEMO_CANDIDATES, np.random.default_rng(bf.RTD_DEMO_SEED))
SQUAD = bf.best_span(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END)
T5 = bf.span_corruption(bf.T5_DEMO_TOKENS, bf.T5_DEMO_SPANS)
XLNET = bf.permutation_mask(bf.XLNET_DEMO_ORDER)
FAMILY = (   # model (year), type, what it changed
    ("RoBERTa（2019）", "エンコーダ", "NSP をやめ、動的マスク、データ約 10 倍で長く学習"),
    ("ALBERT（2019）", "エンコーダ", "埋め込みの因数分解、全層で重みを共有、NSP → SOP"),
    ("DistilBERT（2019）", "エンコーダ", "知識蒸留で層を半分に（約 4 割小さく）"),
    ("ELECTRA（2020）", "エンコーダ", "MLM → 置換トークン検出（全トークンから学ぶ）"),
    ("XLNet（2019）", "自己回帰", "予測の順序を並べ替えて両側の文脈を使う"),
    ("T5（2019）", "エンコーダ・デコーダ", "どの課題も文 → 文に、スパン破損、C4"),
    ("BART（2019）", "エンコーダ・デコーダ", "壊した文章を元に戻す（穴埋め・文の並べ替え）"),
    ("GPT-2（2019）", "デコーダ", "約 15 億に大きくし、zero-shot で課題を解く"),
    ("PaLM（2022）", "デコーダ", "約 5,400 億に大きくし、few-shot で多くの課題の最高性能"),
)


def count(x) -> str:
    return numfmt.grouped(x)


def tcount(x) -> str:
    """count() inside LaTeX."""
    return count(x).replace(",", "{,}")


def positions(ps) -> str:
    return "・".join(str(p + 1) for p in ps) if ps else "なし"


def family_frame() -> pd.DataFrame:
    return pd.DataFrame(FAMILY, columns=["モデル（年）", "型", "BERT・GPT から変えたこと"])


def order_frame(tokens, m: bf.PermutationMask) -> pd.DataFrame:
    return pd.DataFrame({"位置": [i + 1 for i in range(len(m.order))], "語": list(tokens),
                         "予測の順番": [r + 1 for r in m.rank],
                         "見える位置": [positions(m.visible(i)) for i in range(len(m.order))]})


def rtd_frame(d: bf.RtdDraw) -> pd.DataFrame:
    return pd.DataFrame({"位置": [i + 1 for i in range(len(d.tokens))], "元の語": list(d.tokens),
                         "識別器が読む語": list(d.corrupted),
                         "MLM の損失": ["あり" if i in d.masked else "—" for i in range(len(d.tokens))],
                         "識別器の正解": ["置き換え" if r else "元のまま" for r in d.replaced]})


def span_frame(c: bf.SpanCorruption) -> pd.DataFrame:
    return pd.DataFrame({"系列（長さ）": [f"元の文（{len(c.tokens)}）", f"入力・エンコーダ（{c.input_length}）",
                                      f"出力・デコーダ（{c.target_length}）"],
                         "トークン": [" ".join(c.tokens), " ".join(c.inputs), " ".join(c.targets)]})


def albert_frame(a: bf.AlbertCount) -> pd.DataFrame:
    e, s = a.embedding, a.sharing
    return pd.DataFrame({"部分": ["語彙の埋め込み", f"エンコーダ {s.layers} 層の重み", "合計"],
                         "BERT 型（E = H、共有なし）": [count(e.untied), count(s.unshared), count(a.bert_total)],
                         "ALBERT 型（分解 + 共有）": [count(e.factorized), count(s.shared), count(a.albert_total)]})


def albert_rows(a: bf.AlbertCount) -> list[tuple[str, str, int]]:
    e, s = a.embedding, a.sharing
    return [("BERT 型", "埋め込み", e.untied), ("BERT 型", "エンコーダ", s.unshared),
            ("ALBERT 型", "埋め込み", e.factorized), ("ALBERT 型", "エンコーダ", s.shared)]


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- BERT と GPT の後継モデルを **エンコーダ型・デコーダ型・エンコーダ・デコーダ型** の地図に置き、"
        "それぞれが事前学習の課題や構造の何を変えたかを説明できる。\n"
        "- ALBERT のパラメータの減らし方、ELECTRA が学習に使う位置の数、XLNet の予測の順序、T5 のスパン破損の長さを計算できる。\n"
        "- 言語理解のベンチマーク **GLUE**（と SuperGLUE）と、抜き出し型の **質問応答**（SQuAD）で BERT が答えの範囲を選ぶ方法を説明できる。\n"
        "- 応用タスク（**質問応答・文書要約・感情分析・情報検索**）を出力の形で見分け、デコーダ型を大きくした **PaLM** を GPT-3 と区別できる。"
    )
    ui.section("explain")
    st.subheader("BERT・GPT の後継たちの地図")
    st.markdown(
        "⑨-1 の BERT（エンコーダだけ・MLM と NSP）と GPT（デコーダだけ・次の語の予測）のあと、2019 年ごろから"
        "多くの後継モデルが出ました（PaLM は 2022 年）。まず **型** で分けます。文を理解する **エンコーダ型**（BERT の仲間）、"
        "文を生成する **デコーダ型**（GPT の仲間）、入力の文から別の文を作る **エンコーダ・デコーダ型**（T5・BART）です。"
        "試験でモデルの名前が出たら、「どの型か」と「BERT・GPT から何を変えたか」の 2 つで見分けます。"
    )
    ui.cached_table(family_frame, hide_index=True)
    st.caption("年は論文が arXiv に出た年。提案者（論文の著者）は下の折りたたみの説明に書きました。")
    st.markdown(
        "評価には、文や文の組を分類する 9 課題を集めた **GLUE**（Wang ら、2018 年）の総合スコアと、段落から答えの範囲を"
        "抜き出す **質問応答** のデータセット **SQuAD**（Rajpurkar ら、2016 年）がよく使われました。"
        "このページの語のうち、G検定のシラバス（2024 年版）の自然言語処理の詳細キーワードとして扱うのは GLUE・PaLM・質問応答・"
        "文書要約・感情分析・情報検索です。RoBERTa から BART までのモデル名は詳細キーワードにない **発展** の内容で、確認クイズでは「発展」と"
        "表示され、模擬試験には既定では出ません（BERT の改良として名前を見かけることが多いので、型と変えた点だけは押さえましょう）。"
    )
    ui.folded_topics("後継モデルごとの変更点", (
        ("RoBERTa：学習のやり方を見直す", explain_roberta, "roberta"),
        ("ALBERT：パラメータを減らす 2 つの工夫と SOP", explain_albert, "albert"),
        ("DistilBERT：知識蒸留で小さくする", explain_distilbert, "distilbert"),
        ("ELECTRA：置き換えを見破って全トークンから学ぶ", explain_electra, "electra"),
        ("XLNet：予測の順序を並べ替える", explain_xlnet, "xlnet"),
        ("T5 と BART：エンコーダ・デコーダで文章を直す", explain_t5_bart, "t5"),
        ("GPT-2 と PaLM：デコーダ型を大きくする", explain_gpt2, "gpt2"),
        ("評価のベンチマーク：GLUE・SuperGLUE・SQuAD", explain_benchmarks, "bench"),
        ("自然言語処理の応用タスク：質問応答・文書要約・感情分析・情報検索", explain_tasks, "tasks")), key="bertfamily")


def explain_roberta() -> None:
    st.markdown(
        "RoBERTa（Liu ら、2019 年、Facebook AI ほか）は、BERT の **構造を変えずに学習のやり方だけを見直した** モデルです。"
        "① 次文予測（NSP）をやめ、MLM だけにする。② マスクを前処理で 1 度だけ決める **静的マスク** をやめ、文を入力するたびに"
        "選び直す **動的マスク** にする。③ データを約 16 GB から約 160 GB に増やし、大きなバッチで長く学習する。"
        "これだけで、BERT のあとに出たモデルに並ぶか上回りました。"
    )
    st.markdown(f"元の BERT は、データを {STATIC['copies']} 通りに複製して別々のマスクをかけ、{STATIC['epochs']} エポック学習していました。"
                "問われるのは「変えたのは学習の設定で、構造ではない」「NSP はなくした（SOP に替えたのは ALBERT）」の 2 点です。")


def explain_albert() -> None:
    st.markdown(
        "ALBERT（Lan ら、2019 年、Google ほか）は **パラメータを減らす** ための 2 つの工夫を入れました。"
        "① **埋め込みの因数分解**：語彙 V の埋め込みを幅 H で持つ $V \\times H$ の表をやめ、小さな幅 E の表と E → H の変換に分けて "
        "$V E + E H$ にする（語の埋め込みは文脈によらないので小さな幅で足りる）。"
        "② **層をまたぐパラメータ共有**：1 層分の重みを全層でくり返し使う（層の数だけ計算はするが、覚える重みは 1 層分）。"
    )
    st.markdown(
        "さらに NSP を **文順序予測（SOP）** に替えました。SOP の負例は、同じ文書の連続する 2 区間の **順序を入れ替えたもの** です"
        "（NSP の負例は別の文書の文なので、話題の違いだけで見分けられてしまう）。"
        f"ALBERT-base（E = {BASE['embedding']}、H = {BASE['hidden']}、{BASE['layers']} 層）は約 1,200 万パラメータで、"
        "BERT-Base の約 1 億 1,000 万の 1 割ほどです。"
    )


def explain_distilbert() -> None:
    st.markdown(
        "DistilBERT（Sanh ら、2019 年、Hugging Face）は、大きな BERT（教師）の出力をまねるように小さなモデル（生徒）を事前学習させる"
        "**知識蒸留** で作った BERT です。層を 12 から 6 に減らして大きさを約 4 割減らし、性能の約 97 % を保ったまま推論が約 60 % 速くなりました。"
        "構造の工夫で減らす ALBERT、数値のビット数を減らす量子化、重みを取り除く枝刈りとの違いが問われます。"
        "蒸留の仕組みそのものはモデルの軽量化のページ（⑩-3）で扱います。"
    )


def explain_electra() -> None:
    st.markdown(
        "ELECTRA（Clark ら、2020 年）は、MLM を **置換トークン検出（replaced token detection）** に替えました。"
        "小さな **生成器**（小さな MLM）がマスクした位置をもっともらしい語で埋め、**識別器** が全トークンについて"
        "「置き換えられたか、元のままか」を当てます。生成器がたまたま元と同じ語を出した位置の正解は「元のまま」です。"
    )
    st.markdown(
        "MLM で損失が出るのはマスクした約 15 % の位置だけですが、識別器は **全トークンから学べる** ので、同じ計算量で BERT より良い表現が"
        "得られます（1 台の GPU で 4 日学習した小さなモデルが、約 30 倍の計算をした GPT を GLUE で上回りました）。"
        "ファインチューニングに使うのは識別器です。生成器は最尤で学習し、GAN のように識別器をだます学習はしません。"
    )


def explain_xlnet() -> None:
    st.markdown(
        "XLNet（Yang ら、2019 年）は、BERT のような **自己符号化型**（壊した入力から元を当てる）が [MASK] に頼るため、"
        "事前学習とファインチューニングで入力がずれる点を避けようとしました。GPT のような **自己回帰型** の形を保ったまま、"
        "**予測の順序（分解の順序）を並べ替える**（並べ替え言語モデル）ことで、両側の文脈を学びます。"
    )
    st.markdown(
        "n トークンの順序は $n!$ 通りあります。ある順序のもとで、各位置は **その順序で先に予測される位置だけ** を見ます。"
        "入力の語順と位置の情報はそのままで、変えるのは注意のマスクだけです。順序によってはある語より右の語が先に来るので、"
        "いろいろな順序で学ぶと両側の文脈を使うことになります。"
    )


def explain_t5_bart() -> None:
    st.markdown(
        "T5（Raffel ら、2019 年、Google）はエンコーダ・デコーダ型で、翻訳・要約・分類などの **すべての課題を「入力の文 → 出力の文」** "
        "にそろえました（分類ならクラス名を文字列で出力し、課題は入力の先頭の短い文で伝える）。Web の文章を掃除したコーパス "
        "**C4**（約 750 GB）で、**スパン破損** という課題で事前学習します。連続して消した範囲を **番兵トークン 1 つ** に置き換えて入力とし、"
        "出力は「番兵と消した語」を順に並べて、最後にもう 1 つ番兵を置きます。最大のモデルは約 110 億パラメータです。"
    )
    st.markdown(
        "BART（Lewis ら、2019 年、Facebook AI）もエンコーダ・デコーダ型で、文章にノイズを加えて壊し、**元の文章全体を復元** させます。"
        "範囲を 1 つの [MASK] にまとめる穴埋めと、文の順序の入れ替えの組み合わせが最もよく、要約などの生成で特に強い。"
        "出力が「消した部分だけ」の T5 と、「文章全体」の BART の違いが問われます。"
    )


def explain_gpt2() -> None:
    st.markdown(
        "デコーダ型の系統では、GPT-2（Radford ら、2019 年、OpenAI）が GPT をそのまま大きくしました（最大 48 層・約 15 億パラメータ、"
        "約 800 万の Web ページ WebText で学習）。課題ごとのファインチューニングをせず、課題の例も見せない **zero-shot** で、"
        "読解や要約などに取り組めることを示しました。約 1,750 億パラメータと few-shot の GPT-3 と、大きさの計算は ⑩-1 で扱います。"
    )
    st.markdown(
        "**PaLM**（Chowdhery ら、2022 年、Google）は、同じデコーダだけの形を **約 5,400 億パラメータ** まで大きくした大規模言語モデルです。"
        "Google の Pathways という仕組みで 6,144 個の TPU v4 を使い、約 7,800 億トークンで学習しました。few-shot で数百の課題の多くで"
        "最高性能を出し、思考の過程を書かせるプロンプト（Chain-of-Thought）と組み合わせて多段の推論の課題を大きく伸ばしました。"
        "問われるのは「Google の・デコーダだけの・約 5,400 億」の 3 点と、OpenAI の GPT-3（約 1,750 億、2020 年）との区別です。"
    )
    llm = ui.PAGE_BY_KEY["llm"]
    st.page_link(llm.path, label=llm.label, icon=":material/arrow_forward:")


def explain_benchmarks() -> None:
    st.markdown(
        "**GLUE**（Wang ら、2018 年）は、文法的に自然な文かの判定（CoLA）、感情の分類（SST-2）、2 文の言い換えや含意の判定（MRPC・MNLI など）"
        "の **9 つの課題** を集め、1 つの総合スコアでモデルを比べるベンチマークです。翻訳の一致度（BLEU）や言語モデルの迷い"
        "（パープレキシティ）のような「指標」ではなく、「課題の集まり」です。"
        "モデルの成績が約 1 年で人間の水準を超えたため、より難しい 8 課題の **SuperGLUE**（Wang ら、2019 年）が作られました。"
    )
    st.markdown(
        "**SQuAD**（Rajpurkar ら、2016 年）は、Wikipedia の段落への 10 万以上の質問からなる **抜き出し型の質問応答** のデータセットで、"
        "答えは段落の中の連続した語の範囲です（2018 年の SQuAD 2.0 には答えのない質問も入る）。BERT は段落の各位置に "
        "**開始のスコア** と **終了のスコア** を出し、開始 ≤ 終了の組で和が最大の範囲を答えます（手計算で確かめます）。"
    )


def explain_tasks() -> None:
    st.markdown(
        "事前学習したモデルは、ファインチューニングで次のような応用タスクに使われます。試験では **出力の形** で見分けます。\n\n"
        "- **質問応答**：質問に答える。抜き出し型（SQuAD）では段落の中の答えの範囲を返し、生成型では答えの文を生成する。\n"
        "- **情報検索**：検索語（クエリ）に合う文書を大量の文書から探し、関係の深い順に並べた一覧を返す（答えそのものは返さない）。\n"
        "- **文書要約**：文章を短くまとめる。元の文を選んで並べる **抽出型** と、新しい文章を書く **生成型**（抽象型）があり、"
        "生成型には T5・BART のようなエンコーダ・デコーダ型が向く。\n"
        "- **感情分析**：文が表す評価（肯定・否定など）を判定する分類。GLUE の SST-2（映画評の肯定・否定）がその例で、"
        "BERT なら [CLS] のベクトルに分類層を足して解く（⑨-1）。"
    )


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("ALBERT：埋め込みの分解と層の共有")
    hand_albert()
    st.subheader("SQuAD：答えの範囲を選ぶ")
    hand_squad()
    ui.folded_topics("発展：ほかの後継モデルの手計算", (
        ("RoBERTa：静的マスクで 1 つの文が見るマスク", hand_roberta, "hand_roberta"),
        ("ELECTRA：学習に使える位置の数", hand_electra, "hand_electra"),
        ("XLNet：分解の順序と見える位置", hand_xlnet, "hand_xlnet"),
        ("T5：スパン破損の入力と出力", hand_t5, "hand_t5")), key="bertfamily")


def hand_albert() -> None:
    v, e, h, n_layers = BASE["vocab"], BASE["embedding"], BASE["hidden"], BASE["layers"]
    albert = bf.albert_count(v, e, h, n_layers)
    emb, share = albert.embedding, albert.sharing
    st.markdown(f"ALBERT-base の大きさ（V = {count(v)}、E = {e}、H = {h}、L = {n_layers}）で、埋め込みを数えます。")
    st.latex(rf"\begin{{aligned}}V H &= {tcount(v)} \times {h} = {tcount(emb.untied)} \\"
             rf"V E &= {tcount(v)} \times {e} = {tcount(emb.lookup)} \\"
             rf"E H &= {e} \times {h} = {tcount(emb.projection)} \\"
             rf"V E + E H &= {tcount(emb.factorized)}\end{{aligned}}")
    st.markdown(f"埋め込みは {count(emb.saved)} 個減り、元の {numfmt.percent(emb.ratio, 1)} になります。"
                "次に、バイアスを除く 1 層の重み（注意の $4H^2$ と FFN の $8H^2$）を、層の数だけ数えます。")
    st.latex(rf"\begin{{aligned}}P &= 12H^2 = 12 \times {h}^2 = {tcount(share.per_layer)} \\"
             rf"L P &= {n_layers} \times {tcount(share.per_layer)} = {tcount(share.unshared)} \\"
             rf"\text{{共有}} &= P = {tcount(share.shared)}\end{{aligned}}")
    ui.cached_table(albert_frame, albert, hide_index=True)
    st.caption(f"BERT 型の合計 {count(albert.bert_total)} は論文の BERT-Base の表記（108M、語彙 30,000 で数えた値）とほぼ同じ、"
               f"ALBERT 型の {count(albert.albert_total)} は ALBERT-base の表記（12M）に近い値です"
               "（差は位置埋め込み・バイアス・層正規化など）。共有しても計算は 12 層分のままで、減るのは覚えておく重みです。")


def hand_squad() -> None:
    toks = bf.SQUAD_DEMO_TOKENS
    st.markdown("質問「猫は何を食べた？」と段落「" + " ".join(toks) + "」（4 トークン）を BERT に入れ、段落の各位置に"
                "開始のスコアと終了のスコアが出たとします。範囲 i〜j のスコアは「開始 i + 終了 j」（i ≤ j）です。")
    ui.show_table(pd.DataFrame({"位置": [1, 2, 3, 4], "語": list(toks), "開始のスコア": list(bf.SQUAD_DEMO_START),
                                "終了のスコア": list(bf.SQUAD_DEMO_END)}), hide_index=True)
    ui.heatmap(SQUAD.scores, [f"開始 {i + 1}" for i in range(4)], [f"終了 {j + 1}" for j in range(4)], digits=0,
               x_title="終了の位置", y_title="開始の位置", title="範囲のスコア（開始 + 終了）")
    i, j = SQUAD.best
    s, e = bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END
    st.markdown(f"最大は位置 {i + 1}〜{j + 1} の ${s[i]} + {e[j]} = {numfmt.trimmed(SQUAD.best_score)}$ で、答えは"
                f"「{' '.join(toks[i:j + 1])}」です。開始の最大（位置 {SQUAD.start_argmax + 1}）と終了の最大（位置 {SQUAD.end_argmax + 1}）を"
                f"別々に選ぶと和は {numfmt.trimmed(bf.span_ignoring_order(s, e))} になりますが、終了が開始より前なので範囲になりません"
                "（灰色は i > j の組）。")


def hand_roberta() -> None:
    m = bf.static_masking(STATIC["epochs"], STATIC["copies"])
    st.latex(rf"\begin{{aligned}}\text{{マスクの種類}} &= {m.copies}\ \text{{通り}} \\"
             rf"\text{{1 つを見る回数}} &= {m.epochs} \div {m.copies} = {m.repeats}\ \text{{回}}\end{{aligned}}")
    st.markdown(f"動的マスクはエポックごとに選び直すので、{m.epochs} エポックで最大 {m.dynamic_most} 通りのマスクを見ます。")


def hand_electra() -> None:
    c = RTD.counts
    st.markdown(f"{c.n} トークンの文で 15 % を選ぶと $0.15 \\times {c.n} = {numfmt.trimmed(RTD.expected_masked, 1)}$、四捨五入で "
                f"{c.masked} 個をマスクします。生成器が 1 つを別の語に、1 つを元と同じ語にしました。")
    ui.cached_table(rtd_frame, RTD, hide_index=True)
    st.latex(rf"\begin{{aligned}}\text{{MLM の損失}} &= {c.mlm_loss}\ \text{{か所}} \\"
             rf"\text{{ELECTRA の損失}} &= {c.rtd_loss}\ \text{{か所}} \\"
             rf"\text{{「置き換え」}} &= {c.masked} - {c.restored} = {c.replaced}\end{{aligned}}")
    big = bf.rtd_counts(200, 30)
    st.caption(f"200 トークンなら MLM は {big.mlm_loss} か所、ELECTRA は {big.rtd_loss} か所（約 "
               f"{numfmt.trimmed(big.signal_ratio, 1)} 倍）から学びます。")


def hand_xlnet() -> None:
    n = len(XLNET.order)
    steps = r" \times ".join(str(k) for k in range(n, 0, -1))
    st.latex(rf"{n}! = {steps} = {bf.factorization_orders(n)}\ \text{{通り}}")
    seq = " → ".join(str(p + 1) for p in XLNET.order)
    st.markdown(f"そのうちの 1 つ、位置 {seq} の順で予測するとき、各位置が見られるのは順序で先の位置だけです。")
    ui.cached_table(order_frame, bf.XLNET_DEMO_TOKENS, XLNET, hide_index=True)


def hand_t5() -> None:
    st.markdown("「昨日」と「古い 友人」の 2 つの範囲（3 語）を消します。")
    ui.cached_table(span_frame, T5, hide_index=True)
    n, dropped, spans = len(T5.tokens), T5.dropped, len(T5.spans)
    st.latex(rf"\begin{{aligned}}\text{{入力}} &= {n} - {dropped} + {spans} = {T5.input_length} \\"
             rf"\text{{出力}} &= {dropped} + {spans} + 1 = {T5.target_length}\end{{aligned}}")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("XLNet：順序を変えると見える位置が変わる")
    toks = list(bf.XLNET_DEMO_TOKENS)
    left = bf.permutation_mask(range(len(toks)))
    ui.heatmap(left.mask.astype(float), toks, toks, digits=0, x_title="見られる語", y_title="予測する語",
               title="左から右の順（GPT と同じ）：1 = 見える")
    ui.heatmap(XLNET.mask.astype(float), toks, toks, digits=0, x_title="見られる語", y_title="予測する語",
               title="順序 " + " → ".join(toks[p] for p in XLNET.order) + "：1 = 見える")
    st.caption("語の並びはどちらも同じで、変わるのはマスクだけです。下の順序では「猫」が右の「魚」を見ています。")

    st.subheader("MLM と ELECTRA：損失が出る位置")
    d = RTD
    grid = np.array([[1.0 if i in d.masked else 0.0, 1.0] for i in range(len(d.tokens))])      # (n, 2)
    ui.heatmap(grid, list(d.corrupted), ["MLM", "ELECTRA"], digits=0, x_title="課題", y_title="識別器が読む語",
               title="1 = その位置で損失を計算する")

    st.subheader("静的マスクと動的マスク：エポックごとのマスク")
    demo = bf.MASK_DEMO
    for copies, name in ((demo["copies"], f"静的（{demo['copies']} 通りを順に使う）"), (None, "動的（毎回選び直す）")):
        sched = bf.mask_schedule(demo["tokens"], demo["epochs"], np.random.default_rng(demo["seed"]), copies=copies)
        ui.heatmap(sched.masks.T.astype(float), [f"{i + 1}" for i in range(demo["tokens"])],
                   [f"{t + 1}" for t in range(demo["epochs"])], digits=0, x_title="エポック", y_title="位置",
                   title=f"{name}：{sched.distinct} 通り")
    st.caption(f"{demo['tokens']} トークンの文を {demo['epochs']} エポック学習したときに隠す位置（1 = 隠す、列がエポック）。"
               "BERT の 10 通り × 40 エポックを、描ける大きさに縮めました。")

    st.subheader("BERT 型と ALBERT 型のパラメータ数")
    albert = bf.albert_count(BASE["vocab"], BASE["embedding"], BASE["hidden"], BASE["layers"])
    ui.cached_chart(stacked_counts, albert_rows(albert), title="V = 30,000、E = 128、H = 768、12 層", width="stretch")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("ALBERT の大きさを変える")
    try_albert()
    st.subheader("XLNet の予測の順序を決める")
    try_xlnet()
    st.subheader("T5 のスパン破損を試す")
    try_t5()
    st.subheader("ELECTRA の置き換えを引く")
    try_electra()
    st.subheader("静的マスクと動的マスクを比べる")
    try_masks()


@st.fragment
def try_albert() -> None:
    """ALBERT's counts as a fragment: V, E, H or L rerun this part only."""
    c1, c2 = st.columns(2)
    with c1:
        v = ui.number_input("語彙数 V", min_value=1, max_value=1_000_000, value=BASE["vocab"], step=1000,
                            key="bertfamily_vocab", persist_state="session")
        e = ui.number_input("埋め込みの幅 E", min_value=1, max_value=8192, value=BASE["embedding"], step=64,
                            key="bertfamily_embed", persist_state="session")
    with c2:
        h = ui.number_input("隠れ層の幅 H", min_value=1, max_value=8192, value=BASE["hidden"], step=64,
                            key="bertfamily_hidden", persist_state="session")
        n_layers = ui.number_input("層数 L", min_value=1, max_value=96, value=BASE["layers"], step=1,
                                   key="bertfamily_layers", persist_state="session")
    albert = ui.compute("bertfamily_albert", bf.albert_count, int(v), int(e), int(h), int(n_layers))
    if albert is not None:
        st.metric("ALBERT 型の合計（埋め込み + エンコーダの重み）", count(albert.albert_total))
        ui.cached_table(albert_frame, albert, hide_index=True)
        ui.cached_chart(stacked_counts, albert_rows(albert), title="BERT 型と ALBERT 型", width="stretch")


@st.fragment
def try_xlnet() -> None:
    """The order mask as a fragment: a new order reruns this part only."""
    text = st.text_input("予測する位置の順序（1〜n を空白で区切る、8 個まで）", value="3 1 4 2", key="bertfamily_order",
                         persist_state="session")
    order = ui.compute("bertfamily_order_parsed", bf.parse_order, text)
    if order is not None:
        m = bf.permutation_mask(order)
        labels = [f"位置 {i + 1}" for i in range(len(order))]
        ui.heatmap(m.mask.astype(float), labels, labels, digits=0, x_title="見られる位置", y_title="予測する位置",
                   title="1 = 見える")
        st.markdown(f"{len(order)} 個の位置の順序は全部で {count(bf.factorization_orders(len(order)))} 通りあります。")


@st.fragment
def try_t5() -> None:
    """Span corruption as a fragment: the sentence or the spans rerun this part only."""
    text = st.text_input("文（トークンを空白で区切る）", value=" ".join(bf.T5_DEMO_TOKENS), key="bertfamily_t5_text",
                         persist_state="session")
    spans_text = st.text_input("消す範囲（位置の番号。例：3, 6-7）", value="3, 6-7", key="bertfamily_t5_spans",
                               persist_state="session")
    tokens = ui.compute("bertfamily_t5_tokens", pt.mlm_split_text, text)
    if tokens is None:
        return
    spans = ui.compute("bertfamily_t5_parsed", bf.parse_spans, spans_text, len(tokens))
    if spans is None:
        return
    c = ui.compute("bertfamily_t5", bf.span_corruption, tokens, spans)
    if c is not None:
        ui.cached_table(span_frame, c, hide_index=True)
        st.markdown(f"消した語 {c.dropped} 個・範囲 {len(c.spans)} 個：入力 {len(c.tokens)} − {c.dropped} + {len(c.spans)} = "
                    f"**{c.input_length}**、出力 {c.dropped} + {len(c.spans)} + 1 = **{c.target_length}** トークン。"
                    f"BART なら出力は元の文全体の {len(c.tokens)} トークンです。")


@st.fragment
def try_electra() -> None:
    """ELECTRA's draw as a fragment: the seed reruns this part only."""
    seed = ui.number_input("シード", min_value=0, max_value=100_000, value=bf.RTD_DEMO_SEED, step=1,
                           key="bertfamily_rtd_seed", persist_state="session")
    d = bf.rtd_draw(bf.RTD_DEMO_TOKENS, bf.RTD_DEMO_CANDIDATES, np.random.default_rng(int(seed)))
    ui.cached_table(rtd_frame, d, hide_index=True)
    c = d.counts
    st.markdown(f"マスク {c.masked} 個のうち元の語に戻ったのは {c.restored} 個で、「置き換え」が正解の位置は **{c.replaced}** 個。"
                f"損失は MLM なら {c.mlm_loss} か所、ELECTRA なら **{c.rtd_loss}** か所です。")


@st.fragment
def try_masks() -> None:
    """Static against dynamic masking as a fragment: epochs, copies or the seed rerun this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        epochs = ui.number_input("エポック数", min_value=1, max_value=40, value=8, step=1, key="bertfamily_epochs",
                                 persist_state="session")
    with c2:
        copies = ui.number_input("複製の数", min_value=1, max_value=40, value=2, step=1, key="bertfamily_copies",
                                 persist_state="session")
    with c3:
        seed = ui.number_input("マスクのシード", min_value=0, max_value=100_000, value=3, step=1, key="bertfamily_mask_seed",
                               persist_state="session")
    plan = ui.compute("bertfamily_static", bf.static_masking, int(epochs), int(copies))
    if plan is not None:
        dyn = bf.mask_schedule(bf.MASK_DEMO["tokens"], plan.epochs, np.random.default_rng(int(seed)))
        st.markdown(f"静的：{plan.distinct} 通りのマスクを {plan.repeats} 回ずつ。動的：{plan.epochs} 回選び直して "
                    f"**{dyn.distinct}** 通り（{bf.MASK_DEMO['tokens']} トークンの文、同じマスクが出ることもあります）。")


ui.sections("bertfamily", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("bertfamily"))
