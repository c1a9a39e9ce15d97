"""⑨ Transformer のその後：BERT（エンコーダだけ）、GPT（デコーダだけ）、Vision Transformer。

Every number comes from tutor.pretrain: the MLM draw, the expected counts, parameter counts,
the tiny decoder's greedy generation, ViT's patch count and embedding.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import numfmt
from tutor import pretrain as pt
from ui.figures import mlm_chart, mlm_frame, patch_grid_chart
from ui.validate import format_number

ui.page("pretrain")
st.caption("Transformer のその後：事前学習した大きなモデル（BERT・GPT）と、画像への応用（Vision Transformer）")


def count(x) -> str:
    """A whole count with thousands separators (the engine's numbers are whole)."""
    return numfmt.grouped(x)


def input_frame(inp: pt.BertInput) -> pd.DataFrame:
    return pd.DataFrame({"位置": list(inp.positions), "トークン": list(inp.tokens),
                         "文の区別（セグメント）": ["A" if s == 0 else "B" for s in inp.segments]})


def bert_frame(b: pt.BertParams) -> pd.DataFrame:
    layer = b.layer
    return pd.DataFrame({
        "部分": ["トークン埋め込み", "位置埋め込み", "セグメント埋め込み", "埋め込みの層正規化",
               f"注意（1 層）", "FFN（1 層）", "層正規化 2 つ（1 層）", f"エンコーダ {b.layers} 層の合計",
               "プーラー（[CLS] の変換）", "合計"],
        "数え方": ["V × H", "512 × H", "2 × H", "2H", "4(H² + H)", "2HF + F + H", "2 × 2H",
                 "L × 1 層分", "H² + H", ""],
        "パラメータ数": [count(b.token_embedding), count(b.position_embedding), count(b.segment_embedding),
                    count(b.embedding_norm), count(layer.attention), count(layer.ffn),
                    count(layer.attention_norm + layer.ffn_norm), count(b.encoder), count(b.pooler),
                    count(b.total)],
    })


def vit_frame(v: pt.VitParams) -> pd.DataFrame:
    return pd.DataFrame({
        "部分": ["パッチの線形射影 E（バイアス込み）", "クラストークン", "位置埋め込み", f"エンコーダ {v.layers} 層",
               "最後の層正規化", "分類ヘッド（1,000 クラス）", "合計"],
        "パラメータ数": [count(v.patch_embedding), count(v.class_token), count(v.position_embedding),
                    count(v.encoder), count(v.final_norm), count(v.head), count(v.total)],
    })


def gpt_frame(steps) -> pd.DataFrame:
    vocab = pt.GPT_VOCAB
    return pd.DataFrame({
        "ステップ": [i + 1 for i in range(len(steps))],
        "読んだ列": [" ".join(vocab[i] for i in s.ids) for s in steps],
        "最も確率の高い次の語": [vocab[s.chosen] for s in steps],
        "その確率": [format_number(s.probs[s.chosen], 3) for s in steps],
    })


def tally_frame(t: pt.MlmTally) -> pd.DataFrame:
    share, mask, rand, keep = t.percentages
    return pd.DataFrame({
        "数える語": ["予測の対象に選ばれた", "うち [MASK] に置換", "うち別の語に置換", "うちそのまま"],
        "個数": [f"{t.chosen:,}", f"{t.mask:,}", f"{t.random:,}", f"{t.keep:,}"],
        "割合": [f"全体の {format_number(share, 1)} %", f"選ばれた中の {format_number(mask, 1)} %",
               f"選ばれた中の {format_number(rand, 1)} %", f"選ばれた中の {format_number(keep, 1)} %"],
    })


@st.cache_data(show_spinner=False, max_entries=4)
def long_run(n_tokens: int, seed: int) -> pt.MlmTally:
    return pt.mlm_long_run(n_tokens, np.random.default_rng(seed))


BASE = pt.BERT_SIZES["BERT-Base"]
LARGE = pt.BERT_SIZES["BERT-Large"]
VIT = pt.VIT_B16
DEMO = pt.bert_input(pt.DEMO_SENTENCE_A, pt.DEMO_SENTENCE_B)   # the hand calculation's BERT input
GRID = pt.vit_patch_grid(VIT["image"], VIT["image"], VIT["patch"], VIT["channels"])   # ViT-B/16's patches
VIS_SEED = 2   # a draw that shows [MASK] and a random word (the try-it section starts at seed 1: [MASK] and a kept word)
GEN_LENGTHS = range(1, 11)          # the slider's numbers of generated tokens


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- **事前学習** と **ファインチューニング** の 2 段階で、1 つのモデルをいろいろな課題に使い回す考え方を説明できる。\n"
        "- **BERT**（エンコーダだけ）の事前学習の課題 **MLM**（15 % を選んで 80 / 10 / 10）と **NSP**、"
        "分類に使う **[CLS]** を説明でき、隠されるトークンの数やパラメータ数を計算できる。\n"
        "- **GPT**（デコーダだけ）が因果マスクのもとで 1 トークンずつ生成することを、BERT との対比で説明できる。\n"
        "- **Vision Transformer（ViT）** が画像をパッチのトークン列に変える手順をたどり、トークン数 "
        "$(H/P)(W/P)+1$ を計算できる。"
    )

    ui.section("explain")
    st.subheader("事前学習とファインチューニング")
    explain_pretraining()
    st.subheader("BERT：エンコーダだけを積み重ねたモデル")
    explain_bert()
    st.subheader("GPT：デコーダだけを積み重ねたモデル")
    explain_gpt()
    st.subheader("Vision Transformer：画像をパッチのトークン列にする")
    explain_vit()


def explain_pretraining() -> None:
    st.markdown(
        "Transformer の登場後、まず大量のラベルなしデータで汎用的なモデルを学習し（**事前学習**）、"
        "それを出発点にして、目的の課題の少量のラベル付きデータで全体を少しだけ学習し直す（**ファインチューニング**）"
        "やり方が主流になりました。事前学習の課題は、文章の一部を隠して当てさせるなど、正解を文章そのものから作れるもの"
        "（自己教師あり学習）なので、人手のラベルがいりません。課題ごとに一から学習するより、少ないデータで高い性能が出ます。"
    )


def explain_bert() -> None:
    st.markdown(
        "BERT（2018 年、Google）は Transformer の **エンコーダだけ** を積み重ねたモデルです。因果マスクを使わないので、"
        "各トークンは文の前後を同時に（**双方向** に）見て表現を作ります。入力は "
        "「**[CLS]** 文A **[SEP]** 文B **[SEP]**」の形で、[CLS] は先頭に置く分類用のトークン、[SEP] は文の区切りです。"
        "各トークンの埋め込みには、トークン埋め込み・**学習で覚える位置埋め込み**（最大 512 位置）・"
        "どちらの文かを表すセグメント埋め込み（2 種類）を足します。"
    )
    st.markdown(
        "事前学習の課題は次の 2 つです。\n\n"
        "- **MLM（マスク言語モデル）**：普通のトークンの **15 %** を予測の対象に選び、元の語を当てさせます。"
        "選んだトークンのうち **80 %** は [MASK] に、**10 %** はランダムな別の語に置き換え、**10 %** はそのまま残します。"
        "ファインチューニングや実際の利用では [MASK] が現れないので、全部を [MASK] にすると学習時と使用時の入力がずれます。"
        "置き換えない・別の語にする分を混ぜるのはそのためです。\n"
        "- **NSP（次文予測）**：文B が文A の本当の続きか（50 %）、コーパスから選んだ無関係な文か（50 %）を、"
        "[CLS] の最終層のベクトルから 2 択で当てさせます。"
    )
    st.markdown(
        "ファインチューニングで文を分類するときは、[CLS] の最終層のベクトル $h_{\\text{[CLS]}}$ に分類用の線形層を 1 つ足し、"
        "$\\mathrm{softmax}(h_{\\text{[CLS]}} W + b)$ でクラスの確率を出します。新しく加わるパラメータは $H \\times K + K$ 個"
        "（K はクラス数）だけで、残りは事前学習した重みから始めます。"
        f"大きさは 2 種類が公開されました：**BERT-Base**（L = {BASE['layers']} 層、H = {BASE['hidden']}、A = {BASE['heads']} ヘッド、"
        f"約 1 億 1,000 万）と **BERT-Large**（L = {LARGE['layers']}、H = {LARGE['hidden']}、A = {LARGE['heads']}、約 3 億 4,000 万）です。"
    )


def explain_gpt() -> None:
    st.markdown(
        "GPT は、Transformer の **デコーダだけ**（Source-Target Attention を除いたもの）を積み重ねたモデルです。"
        "因果マスクで各位置は自分より前だけを見て、次のトークンを予測する課題で事前学習します。"
        "文章を作るときは、予測した 1 トークンを列の末尾に足して、また次を予測する、をくり返します（**自己回帰**）。"
        "文の理解に向く BERT（双方向・エンコーダ）と、文の生成に向く GPT（一方向・デコーダ）という対比で押さえましょう。"
    )
    st.markdown(
        "モデルを大きくすると、重みを更新しなくても、入力（プロンプト）に課題の説明と数個の例を書くだけで新しい課題を"
        "こなせるようになりました。例を数個見せるのを **few-shot**、1 個を one-shot、例なしを zero-shot と呼び、"
        "プロンプトの中の例から課題を読み取るこの振る舞いを **文脈内学習（in-context learning）** と呼びます"
        "（GPT-3 の論文で大きく取り上げられました）。ファインチューニングと違い、パラメータは 1 つも変わりません。"
    )


def explain_vit() -> None:
    st.markdown(
        f"ViT は画像を $P \\times P$ 画素の **パッチ** に切り分け、各パッチを 1 列に並べて（長さ $P^2 C$、C は色のチャンネル数）"
        "線形層で D 次元に射影し、これを 1 トークンとして Transformer のエンコーダに入れます。"
        "先頭には BERT の [CLS] と同じ役割の **クラストークン** を 1 つ足し、その最終層のベクトルで画像を分類します。"
        "位置の情報は **学習で覚える位置埋め込み** で足します。"
        f"ViT-B/16 は {VIT['image']}×{VIT['image']} の画像を {VIT['patch']}×{VIT['patch']} のパッチに分けます。"
    )
    st.latex(r"\text{トークン数} = \frac{H}{P}\cdot\frac{W}{P} + 1")
    st.markdown(
        "CNN は「近くの画素どうしが関係する」「同じ模様は場所が変わっても同じ」という前提（**帰納バイアス**）を構造に"
        "組み込んでいますが、ViT の自己注意はこの前提を持たず、関係をデータから学ぶしかありません。そのため ImageNet"
        "（約 130 万枚）だけで学習すると同じ規模の CNN（ResNet）に届かず、ImageNet-21k（約 1,400 万枚）や JFT-300M"
        "（約 3 億枚）のような大規模なデータで事前学習して初めて、CNN と同等以上の性能を示しました（JFT-300M で事前学習したものは CNN を上回りました）。"
    )


def hand() -> None:
    st.subheader("BERT の入力を組み立てる")
    hand_bert_input()
    st.subheader("MLM で隠されるトークンの数（n = 200 のとき）")
    hand_mlm_counts()
    st.subheader("BERT-Base のパラメータ数")
    hand_bert_params()
    st.subheader("ViT-B/16 のトークン数とパラメータ数")
    hand_vit_params()
    st.subheader("小さな画像をトークン列にする（P = 2）")
    hand_vit_embedding()
    st.subheader("[CLS] で 2 クラスに分類する")
    hand_cls()


def hand_bert_input() -> None:
    ui.cached_table(input_frame, DEMO, hide_index=True)
    st.caption(f"全部で {len(DEMO.tokens)} トークン。[CLS] と [SEP] は予測の対象（MLM）に選ばれません。")


def hand_mlm_counts() -> None:
    hand_n = 200
    c = pt.mlm_expected_counts(hand_n)
    st.latex(rf"\begin{{aligned}}\text{{予測の対象}} &= {hand_n} \times 0.15 = {count(c.chosen)} \\"
             rf"\text{{[MASK] に置換}} &= {count(c.chosen)} \times 0.8 = {count(c.mask)} \\"
             rf"\text{{別の語に置換}} &= {count(c.chosen)} \times 0.1 = {count(c.random)} \\"
             rf"\text{{そのまま}} &= {count(c.chosen)} \times 0.1 = {count(c.keep)}\end{{aligned}}")
    st.caption("どれも期待値（平均）です。1 つの文ごとの内訳は乱数で決まるので、ちょうどこの数になるとは限りません。")


def hand_bert_params() -> None:
    base = pt.bert_param_count(BASE["layers"], BASE["hidden"], BASE["heads"])
    st.markdown(f"V = {pt.BERT_VOCAB:,}（語彙）、H = {BASE['hidden']}、F = 4H = {count(base.layer.ffn_width)}（FFN の中間の幅）、"
                f"L = {BASE['layers']} として数えます。ヘッド数 A = {BASE['heads']} は数に関係しません"
                f"（各ヘッドは $d_k = H/A = {pt.bert_head_dim(BASE['hidden'], BASE['heads'])}$ 次元ずつ幅を分け合うだけ）。")
    ui.cached_table(bert_frame, base, hide_index=True)
    large = pt.bert_param_count(LARGE["layers"], LARGE["hidden"], LARGE["heads"])
    st.markdown(f"合計 **{count(base.total)}**（約 {pt.pretrain_millions(base.total)}M、論文の表記は 110M）。"
                f"同じ数え方で BERT-Large は **{count(large.total)}**（約 {pt.pretrain_millions(large.total)}M、論文の表記は 340M）。")
    st.caption("数えたもの：埋め込み 3 種類とその層正規化、エンコーダの全層（バイアスと層正規化を含む）、プーラー。"
               "数えていないもの：事前学習だけに使う出力部分（MLM の出力はトークン埋め込みを共有して使い、その前の小さな変換層と"
               "語ごとのバイアス、NSP の 2 択の層は含めていません）。")


def hand_vit_params() -> None:
    st.latex(rf"\begin{{aligned}}&\frac{{{VIT['image']}}}{{{VIT['patch']}}} \cdot \frac{{{VIT['image']}}}{{{VIT['patch']}}} + 1"
             rf" = {GRID.rows} \times {GRID.cols} + 1 \\ &= {GRID.patches} + 1 = {GRID.tokens}\end{{aligned}}")
    st.latex(rf"\begin{{aligned}}&\text{{パッチ 1 つの長さ}} \\ &\quad = P^2 C = {VIT['patch']}^2 \times {VIT['channels']} = {GRID.patch_dim}"
             r"\end{aligned}")   # two rows: one is 2 px wider than a 390 px phone
    vit = pt.vit_param_count()
    ui.cached_table(vit_frame, vit, hide_index=True)
    st.markdown(f"分類ヘッドを除いた本体は **{count(vit.backbone)}**（約 {pt.pretrain_millions(vit.backbone)}M、論文の表記と同じ）、"
                f"1,000 クラスの分類ヘッドまで含めると {count(vit.total)} です。"
                "エンコーダの 1 層のパラメータは BERT と同じ形なので（層正規化を置く位置は違います）、"
                "エンコーダ部分の数も BERT-Base と同じです。")
    st.caption("分類ヘッドは ImageNet の 1,000 クラスを出す線形層 1 つと仮定しました。パッチの射影は "
               f"{GRID.patch_dim} × {VIT['hidden']} の行列とバイアスです。")


def hand_vit_embedding() -> None:
    st.markdown("4×4 画素の白黒画像（C = 1）を 2×2 のパッチに分けると $(4/2)(4/2) = 4$ 個のパッチになります。"
                "各パッチを行ごとに読んで長さ 4 のベクトルにし、射影行列 $E$（4×2）を掛け、先頭にクラストークンを置き、"
                "位置埋め込み $E_{\\text{pos}}$ を足します。")
    st.latex(r"z_0 = [\,x_{\text{class}};\ x_p^1 E;\ \dots;\ x_p^N E\,] + E_{\text{pos}}")
    emb = pt.vit_embed(pt.VIT_DEMO_IMAGE, 2, pt.VIT_DEMO_PROJ, pt.VIT_DEMO_CLS, pt.VIT_DEMO_POS)
    patch_rows = [f"パッチ {i + 1}" for i in range(emb.patches.shape[0])]
    token_rows = ["クラス"] + patch_rows
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(pt.VIT_DEMO_IMAGE, [f"{i + 1}" for i in range(4)], [f"{j + 1}" for j in range(4)], digits=0,
                       caption="画像（4×4）")
        ui.show_matrix(pt.VIT_DEMO_PROJ, [f"{i + 1}" for i in range(4)], ["1", "2"], digits=0, caption="射影行列 E（4×2）")
    with c2:
        ui.show_matrix(emb.patches, patch_rows, [f"{j + 1}" for j in range(4)], digits=0,
                       caption="並べたパッチ $x_p$（左上・右上・左下・右下の順）")
        ui.show_matrix(emb.projected, patch_rows, ["1", "2"], digits=0, caption="$x_p E$")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(pt.VIT_DEMO_POS, token_rows, ["1", "2"], digits=0, caption="位置埋め込み $E_{\\text{pos}}$（5×2）")
    with c2:
        ui.show_matrix(emb.output, token_rows, ["1", "2"], digits=0, caption="z₀（クラストークン + 4 パッチ = 5 トークン）")


def hand_cls() -> None:
    head = pt.cls_head(pt.CLS_DEMO_H, pt.CLS_DEMO_W, pt.CLS_DEMO_B)
    st.markdown(f"最終層の $h_{{\\text{{[CLS]}}}} = {ui.handcalc.vector(pt.CLS_DEMO_H, 0)}$（H = 4）に、"
                "分類層 $W$（4×2）と $b = (0, 0)$ を使います。")
    ui.show_matrix(pt.CLS_DEMO_W, [f"{i + 1}" for i in range(4)], ["肯定", "否定"], digits=1, caption="分類層の重み W")
    st.latex(rf"\begin{{aligned}}z &= h_{{\text{{[CLS]}}}} W + b = {ui.handcalc.vector(head.logits, 0)} \\"
             rf"\mathrm{{softmax}}(z) &= {ui.handcalc.vector(head.probs, 3)}\end{{aligned}}")
    st.markdown(f"「肯定」の確率が {format_number(head.probs[0], 3)} で、こちらに分類されます。BERT-Base（H = {BASE['hidden']}）に"
                f"2 クラスの分類層を足すと、新しいパラメータは ${BASE['hidden']} \\times 2 + 2 = "
                f"{count(pt.cls_head_params(BASE['hidden'], 2))}$ 個だけです。")


def visual() -> None:
    st.subheader(f"MLM の抽選（シード {VIS_SEED}）")
    tokens_demo = DEMO.tokens
    draw0 = pt.mlm_draw(tokens_demo, np.random.default_rng(VIS_SEED))
    ui.cached_chart(mlm_chart, draw0.tokens, draw0.masked, draw0.actions, title="モデルが見る入力と、各トークンの扱い")
    tally0 = pt.mlm_tally(draw0)
    st.caption(f"普通のトークン {tally0.n_tokens} 個の 15 % は {format_number(draw0.expected_picks, 2)} 個 → "
               f"四捨五入で {pt.mlm_pick_count(tally0.n_tokens)} 個を選びます。選んだ位置ごとに 0 以上 1 未満の乱数 u を引き、"
               "u < 0.8 なら [MASK]、0.8 ≤ u < 0.9 なら別の語、0.9 ≤ u ならそのままです。")
    st.markdown("抽選した乱数：" + "、".join(f"位置 {i}（{tokens_demo[i]}）u = {format_number(u, 3)}"
                                      for i, u in zip(draw0.chosen, draw0.uniforms)))

    st.subheader("長い系列では 15 % と 80 / 10 / 10 に近づく")
    ui.cached_table(tally_frame, long_run(100_000, 0), hide_index=True)
    st.caption("100,000 トークンで同じ抽選をした結果（シード 0）。短い文では内訳がばらつきますが、割合は確率どおりに近づきます。")

    st.subheader("ViT-B/16：224×224 の画像を 14×14 のパッチに")
    ui.cached_chart(patch_grid_chart, pt.vit_patch_index(VIT["image"], VIT["image"], VIT["patch"]),
                    title=f"パッチ {GRID.patches} 個（トークン番号 1〜{GRID.patches}、0 番はクラストークン）")

    st.subheader("GPT：1 トークンずつ生成する（手作りの小さなデコーダ）")
    st.markdown("学習済みの GPT の代わりに、「次の語の表」を手で決めた 1 層の小さなデコーダを使います（語彙 "
                f"{len(pt.GPT_VOCAB)} 語）。因果マスクつきの自己注意で各位置は自分より前だけを見て、最後の位置のスコアから"
                "最も確率の高い語を選び（貪欲法）、列の末尾に足してくり返します。")
    steps0 = pt.gpt_greedy([0], 6)
    ui.cached_table(gpt_frame, steps0, hide_index=True)
    last = steps0[-1]
    labels = [pt.GPT_VOCAB[i] for i in last.ids]
    ui.heatmap(last.weights, labels, labels, title="最後のステップの注意の重み")
    st.caption("右上（自分より後ろの位置）は因果マスクでちょうど 0 です。新しいトークンを足しても、それより前の行の重みは変わりません。")


def try_it() -> None:
    st.subheader("自分の文で MLM の抽選をする")
    try_mlm()
    st.subheader("NSP の組を作る")
    try_nsp()
    st.subheader("小さなデコーダで生成する")
    try_generate()
    st.subheader("ViT のトークン数を計算する")
    try_patches()
    st.subheader("BERT の大きさを変えてパラメータ数を数える")
    try_params()


@st.fragment
def try_mlm() -> None:
    """MLM の抽選 as a fragment: the sentence or the seed reruns this part only."""
    text = st.text_input("文（トークンを空白で区切る。[CLS] や [SEP] も書けます）",
                         value=" ".join(DEMO.tokens), key="pretrain_sentence", persist_state="session")
    seed = ui.number_input("シード", min_value=0, max_value=100_000, value=1, step=1, key="pretrain_seed",
                           persist_state="session")
    tokens_try = ui.compute("pretrain_tokens", pt.mlm_split_text, text)
    if tokens_try is not None:
        draw = ui.compute("pretrain_draw", pt.mlm_draw, tokens_try, np.random.default_rng(int(seed)))
        if draw is not None:
            ui.cached_chart(mlm_chart, draw.tokens, draw.masked, draw.actions, title=f"シード {int(seed)} の抽選")
            ui.cached_table(mlm_frame, draw.tokens, draw.masked, draw.actions, hide_index=True)
            t = pt.mlm_tally(draw)
            st.markdown(f"普通のトークン {t.n_tokens} 個のうち **{t.chosen} 個** を選び、[MASK] {t.mask} 個・"
                        f"別の語 {t.random} 個・そのまま {t.keep} 個になりました。")


@st.fragment
def try_nsp() -> None:
    """The NSP pair as a fragment: the seed or sentence A reruns this part only."""
    nsp_seed = ui.number_input("NSP のシード", min_value=0, max_value=100_000, value=0, step=1, key="pretrain_nsp_seed",
                               persist_state="session")
    first = st.selectbox("文A", list(range(len(pt.NSP_CORPUS) - 1)), format_func=lambda i: pt.NSP_CORPUS[i],
                         key="pretrain_nsp_first", persist_state="session")
    pair = pt.nsp_pair(len(pt.NSP_CORPUS), int(first), np.random.default_rng(int(nsp_seed)))
    st.markdown(f"文A：{pt.NSP_CORPUS[pair.first]}　文B：{pt.NSP_CORPUS[pair.second]}")
    st.markdown(f"引いた乱数 u = {format_number(pair.coin, 3)} → 正解ラベル **{'IsNext（本当の続き）' if pair.is_next else 'NotNext（無関係な文）'}**")


@st.cache_data(show_spinner=False, max_entries=len(pt.GPT_VOCAB))
def generation_panels(start: int) -> list[list[dict]]:
    """The greedy generation from ``start`` at every length of the slider (answered in the browser)."""
    return [[ui.table_block(gpt_frame(pt.gpt_greedy([start], n)), hide_index=True)] for n in GEN_LENGTHS]


@st.fragment
def try_generate() -> None:
    """The tiny decoder's generation as a fragment: a new start word reruns this part only (the
    length is answered in the browser)."""
    start = st.selectbox("書き出しの語", list(range(len(pt.GPT_VOCAB))), format_func=lambda i: pt.GPT_VOCAB[i],
                         key="pretrain_gpt_start", persist_state="session")
    ui.stepper("生成するトークン数", GEN_LENGTHS, generation_panels(int(start)), value=4, key="pretrain_gpt_steps")
    st.caption("どのステップも、読んだ列の最後の位置のスコアだけから次の 1 語を決めています。"
               "「。」のあとは表が「。」を返すので、同じ語がくり返されます（本物のモデルは文の終わりの記号で止めます）。")


@st.fragment
def try_patches() -> None:
    """ViT のトークン数 as a fragment: H, W or P rerun this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        img_h = ui.number_input("画像の高さ H", min_value=1, max_value=4096, value=224, step=16, key="pretrain_img_h",
                                persist_state="session")
    with c2:
        img_w = ui.number_input("画像の幅 W", min_value=1, max_value=4096, value=224, step=16, key="pretrain_img_w",
                                persist_state="session")
    with c3:
        patch = ui.number_input("パッチ P", min_value=1, max_value=512, value=16, step=1, key="pretrain_patch",
                                persist_state="session")
    g = ui.compute("pretrain_grid", pt.vit_patch_grid, int(img_h), int(img_w), int(patch))
    if g is not None:
        st.latex(rf"\begin{{aligned}}&\frac{{{g.height}}}{{{g.patch}}} \cdot \frac{{{g.width}}}{{{g.patch}}} + 1 \\"
                 rf"&= {g.rows} \times {g.cols} + 1 = {g.tokens:,}\end{{aligned}}")
        st.metric("Transformer に入るトークン数", f"{g.tokens:,}")
        st.caption(f"パッチ {g.patches:,} 個 + クラストークン 1 個。カラー画像ならパッチ 1 つの長さは P²·3 = {g.patch_dim:,}。")
        if g.patches <= 4096:
            ui.cached_chart(patch_grid_chart, pt.vit_patch_index(g.height, g.width, g.patch),
                            title=f"{g.rows}×{g.cols} のパッチ")


@st.fragment
def try_params() -> None:
    """BERT のパラメータ数 as a fragment: L, H or A rerun this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        n_layers = ui.number_input("層数 L", min_value=1, max_value=96, value=BASE["layers"], step=1,
                                   key="pretrain_layers", persist_state="session")
    with c2:
        hidden = ui.number_input("幅 H", min_value=8, max_value=8192, value=BASE["hidden"], step=64,
                                 key="pretrain_hidden", persist_state="session")
    with c3:
        heads = ui.number_input("ヘッド数 A", min_value=1, max_value=128, value=BASE["heads"], step=1,
                                key="pretrain_heads", persist_state="session")
    params = ui.compute("pretrain_params", pt.bert_param_count, int(n_layers), int(hidden), int(heads))
    if params is not None:
        st.metric("パラメータ数（埋め込み + エンコーダ + プーラー）", f"{params.total:,}")
        st.caption(f"約 {pt.pretrain_millions(params.total):,}M。1 ヘッドの次元 $d_k = H/A$ = "
                   f"{pt.bert_head_dim(params.layer.width, params.heads)}。")
        ui.cached_table(bert_frame, params, hide_index=True)


ui.sections("pretrain", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("pretrain"))
