"""⑦-3 エンコーダとデコーダ: encoder self-attention, masked decoder self-attention,
Source-Target Attention on a tiny seeded model, decoder-only vs encoder-decoder, BERT vs GPT,
and the whole picture of the Transformer with links to the pages that explain each box."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.validate import format_number

ui.page("encdec")

SRC_DEFAULT = "猫 は 魚 を 食べた 。"
TGT_DEFAULT = "<bos> the cat ate fish"
# hand example: ④'s cross-attention example (ate, it → 猫, 魚, それ), here with every step
DEC_TOKENS = list(tb.CROSS_DEC_TOKENS)
DIMS = ["1", "2", "3", "4"]

DIAGRAM = r"""
digraph transformer {
  graph [rankdir=BT, fontname="Noto Sans CJK JP", fontsize=11, nodesep=0.25, ranksep=0.22, bgcolor="transparent"];
  node  [shape=box, style="rounded,filled", fillcolor="#eef4fa", color="#2E6F9E", fontname="Noto Sans CJK JP", fontsize=11];
  edge  [color="#555555", arrowsize=0.6];
  subgraph cluster_enc {
    label="エンコーダ（× N = 6）"; color="#999999"; fontname="Noto Sans CJK JP"; style="rounded,dashed";
    e_self [label="自己注意（マスクなし）\n⑤ Multi-Head"];
    e_an1  [label="残差接続 + 層正規化 ⑦-2"];
    e_ffn  [label="FFN ⑦-2"];
    e_an2  [label="残差接続 + 層正規化 ⑦-2"];
    e_self -> e_an1 -> e_ffn -> e_an2;
  }
  subgraph cluster_dec {
    label="デコーダ（× N = 6）"; color="#999999"; fontname="Noto Sans CJK JP"; style="rounded,dashed";
    d_self [label="マスク付き自己注意\n⑥ 因果マスク"];
    d_an1  [label="残差接続 + 層正規化"];
    d_cross [label="Source-Target Attention\n⑦-3（Q はデコーダ、K・V はエンコーダ）", fillcolor="#fdf1dc"];
    d_an2  [label="残差接続 + 層正規化"];
    d_ffn  [label="FFN ⑦-2"];
    d_an3  [label="残差接続 + 層正規化"];
    d_self -> d_an1 -> d_cross -> d_an2 -> d_ffn -> d_an3;
  }
  src [label="入力文のトークン埋め込み\n+ 位置エンコーディング ⑦-1", fillcolor="#ffffff"];
  tgt [label="出力文（ここまで）の埋め込み\n+ 位置エンコーディング ⑦-1", fillcolor="#ffffff"];
  out [label="線形層 → softmax ⑦-4\n次のトークンの確率", fillcolor="#e8f5e9"];
  src -> e_self;
  tgt -> d_self;
  e_an2 -> d_cross [label=" K, V", fontsize=10, fontname="Noto Sans CJK JP"];
  d_an3 -> out;
}
"""
# the pages that explain the boxes of the diagram (linked with their own titles, ui.nav)
DIAGRAM_LINKS = ["position", "formula", "multihead", "mask", "block", "output", "cost"]


@st.cache_data(show_spinner=False, max_entries=16)
def run_model(seed: int, src: tuple, tgt: tuple):
    model = tutor.encdec.TinyEncoderDecoder.from_seed(seed)
    res = model.decode_step(src, tgt)
    return {
        "vocab": model.vocab, "n_layers": model.n_layers, "n_heads": model.n_heads, "d_model": model.d_model,
        "cross": [np.asarray(w) for w in res.cross_weights],                       # per layer (h, n_tgt, n_src)
        "dec_self": [np.asarray(l.self_weights) for l in res.layers],              # per layer (h, n_tgt, n_tgt)
        "enc_self": [np.asarray(l.attention_weights) for l in res.encoder.layers],  # per layer (h, n_src, n_src)
        "enc_out_shape": res.encoder.output.shape, "final_shape": res.final.shape,
    }


def wide_heatmap(matrix, rows, cols, **kwargs) -> None:
    """A model heatmap: two decimals, so that 6 × 6 still fits a phone (390 px)."""
    ui.heatmap(matrix, rows, cols, digits=2, **kwargs)


def parse_tokens(text: str, what: str):
    """Token ids of the text; the engine's error is shown with 〈bos〉 so Markdown keeps it."""
    try:
        return tutor.encdec.TINY_VOCAB.ids(text)
    except ValueError as exc:
        raise ValueError(f"{what}：" + str(exc).replace("<", "〈").replace(">", "〉")) from None


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 元の Transformer が、**エンコーダ** と **デコーダ** を組み合わせた **Seq2Seq**（系列を別の系列に変換する）"
        "モデルであることを説明できる。\n"
        "- エンコーダの自己注意、デコーダのマスク付き自己注意、**Source-Target Attention** の 3 つを、"
        "クエリ・キー・バリューをどの文から作るかで見分けられる。\n"
        "- GPT のようなデコーダだけの構成、翻訳向けのエンコーダ + デコーダの構成、BERT のようなエンコーダだけの構成を"
        "比べて整理する。"
    )

    ui.section("explain")
    explain_encoder_decoder()
    explain_source_target()
    st.subheader("構成図：エンコーダとデコーダのつながり")
    diagram()


def explain_encoder_decoder() -> None:
    st.markdown(
        "Transformer が最初に取り組んだ課題は機械翻訳です。形は RNN 時代の **Seq2Seq** と同じ二部構成で、"
        "原文（**ソース**）を読み込んで表現に直す **エンコーダ** と、その表現を手がかりに訳文（**ターゲット**）を"
        "トークン 1 つずつ書き出す **デコーダ** に分かれます。違うのは、どちらにも RNN がなく、"
        "注意の計算だけで組まれている点です。\n\n"
        f"- **エンコーダ**（同じ構造の層を N = {tb.PAPER_LAYERS} 回重ねる）：自己注意（Self-Attention、マスクなし）→ FFN。"
        "マスクがないので、どのトークンも自分より左の語と右の語の両方から情報を集められます。\n"
        f"- **デコーダ**（こちらも N = {tb.PAPER_LAYERS} 層）：① **マスク付き** 自己注意（訳文のうち、まだ書いていない位置は参照しない）→ "
        "② **Source-Target Attention** → ③ FFN。\n"
        "- エンコーダとデコーダのどのサブレイヤーにも、残差接続と層正規化が付きます（⑦-2）。"
    )


def explain_source_target() -> None:
    st.markdown(
        "**Source-Target Attention**（交差注意、エンコーダ・デコーダ注意とも呼ばれます）は、デコーダがエンコーダの結果を"
        "受け取る唯一の入り口です。**クエリ** はデコーダの直前のサブレイヤー（マスク付き自己注意に残差接続と層正規化を施したもの）の出力から、"
        "**キーとバリュー** はエンコーダが最後に出した表現から計算します。ターゲットの各トークンは、ここで「ソースのどの語の情報を借りるか」を決めます。"
        "クエリとキーの個数は違ってよいので、注意の重み $A$ は「ターゲットのトークン数 × ソースのトークン数」の"
        "長方形になります。"
    )
    st.latex(r"\begin{aligned}&\mathrm{Attention}(Q_{\text{dec}},\,K_{\text{enc}},\,V_{\text{enc}}) \\ "
             r"&\quad = \mathrm{softmax}\!\left(\frac{Q_{\text{dec}} K_{\text{enc}}^\top}{\sqrt{d_k}}\right) V_{\text{enc}}\end{aligned}")
    st.latex(r"\text{注意の重み } A \text{ の形}: n_{\text{tgt}} \times n_{\text{src}}")
    st.markdown(
        f"論文の **base モデル**（N = {tb.PAPER_LAYERS}、$d_{{\\text{{model}}}} = {tb.PAPER_D_MODEL}$ で、⑦-2 の表と同じ大きさ）は、"
        f"WMT 2014 の英語→ドイツ語の翻訳で {tb.PAPER_BASE_BLEU_EN_DE} BLEU、英語→フランス語で {tb.PAPER_BASE_BLEU_EN_FR} BLEU でした"
        "（BLEU は機械の訳と人の訳で語の並びがどれだけ重なるかを測る翻訳の評価指標で、高いほど良い）。"
        f"よく引用される {tb.PAPER_BLEU_EN_DE} と {tb.PAPER_BLEU_EN_FR} は、幅を広げた **big モデル**"
        f"（$d_{{\\text{{model}}}} = {tb.PAPER_BIG_D_MODEL}$、$h = {tb.PAPER_BIG_HEADS}$）の成績です。"
        f"英語→フランス語の {tb.PAPER_BLEU_EN_FR} は arXiv 版の論文の値で、学会で発表された版の本文では {tb.PAPER_BLEU_EN_FR_CONFERENCE} と書かれています。"
        "学習にかかった時間は ⑦-5 で扱います。"
    )


def diagram() -> None:
    st.graphviz_chart(DIAGRAM, width="stretch")
    st.caption(f"下から上へ読みます。点線の枠がエンコーダとデコーダで、どちらも同じ層を N = {tb.PAPER_LAYERS} 段重ねます。"
               "エンコーダの出力は「K, V」の矢印でデコーダの Source-Target Attention に渡ります。")
    with st.container(border=True):
        st.markdown("**図の部品を説明しているページ**")
        for key in DIAGRAM_LINKS:
            info = ui.PAGE_BY_KEY[key]
            if info.exists:
                st.page_link(info.path, label=info.label)
            else:
                st.caption(f"{info.label}（準備中）")


def hand() -> None:
    st.markdown(f"④ の最後に出てきた例を、ここでは途中の数までたどります。ソースは ①〜④ と同じ 猫・魚・それ、"
                f"ターゲットは書きかけの英訳 {len(DEC_TOKENS)} 語（{', '.join(DEC_TOKENS)}）です。"
                "3 つの変換行列（$W_Q, W_K, W_V$、$d_k = 2$）も ④ と同じです。"
                "手で追えるように、エンコーダの出力の代わりにソースの埋め込みをそのままキーとバリューの材料に使い、"
                "クエリもマスク付き自己注意を通す前のターゲットの埋め込みから作ります（本物のモデルでは、キー・バリューはエンコーダの層を通った表現、"
                "クエリはデコーダの直前のサブレイヤーの出力から作ります）。")
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    steps = tutor.handcalc.attention_steps(cross.q, cross.k, cross.v, decimals=ui.handcalc.PENCIL_DECIMALS,
                                  query_labels=DEC_TOKENS, key_labels=list(tb.TOKENS))
    hand_inputs()
    hand_scores(cross, steps)
    hand_weights_and_output(steps)


def hand_inputs() -> None:
    with st.expander("入力：2 つの文の埋め込みと変換行列", expanded=True):
        c1, c2 = st.columns(2)
        with c1:
            ui.show_matrix(tb.CROSS_X_DEC, DEC_TOKENS, DIMS, digits=0, caption="$X_{\\text{dec}}$：ターゲットの埋め込み")
        with c2:
            ui.show_matrix(tb.X, list(tb.TOKENS), DIMS, digits=0, caption="$X_{\\text{enc}}$：ソースの埋め込み")
        c1, c2, c3 = st.columns(3)
        for col, w, name in ((c1, tb.W_Q, "W_Q"), (c2, tb.W_K, "W_K"), (c3, tb.W_V, "W_V")):
            with col:
                ui.show_matrix(w, DIMS, ["1", "2"], digits=0, caption=f"${name}$")


def hand_scores(cross, steps) -> None:
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(cross.q, DEC_TOKENS, ["q1", "q2"], digits=0, caption="$Q = X_{\\text{dec}} W_Q$（ターゲットから）")
        ui.show_matrix(steps.scores.result, DEC_TOKENS, list(tb.TOKENS), digits=0, caption="S = Q Kᵀ（2 × 3）")
    with c2:
        ui.show_matrix(cross.k, list(tb.TOKENS), ["k1", "k2"], digits=0, caption="$K = X_{\\text{enc}} W_K$（ソースから）")
        ui.show_matrix(cross.v, list(tb.TOKENS), ["v1", "v2"], digits=0, caption="$V = X_{\\text{enc}} W_V$（ソースから）")
    ui.show_matrix(steps.scaled.result, DEC_TOKENS, list(tb.TOKENS), digits=ui.handcalc.PENCIL_DECIMALS,
                   caption=f"$\\tilde{{S}} = S / \\sqrt{{d_k}}$（√{steps.d_k} ≈ {format_number(cross.attn.divisor, 3)} で割り、小数第 3 位まで（第 4 位を四捨五入）求める）")


def hand_weights_and_output(steps) -> None:
    def cross_softmax_rows() -> None:
        for row in steps.softmax.rows:
            st.markdown(f"**{row.label} の行**")
            st.latex(ui.handcalc.stack(ui.handcalc.softmax_row_latex(row)))

    ui.lazy_expander("A：行ごとの softmax（指数、分母、重み）", cross_softmax_rows, key="encdec_a")
    ui.heatmap(steps.weights, DEC_TOKENS, list(tb.TOKENS), x_title="ソース（キー・バリュー）",
               y_title="ターゲット（クエリ）", title="Source-Target Attention の重み A（2 × 3）")
    ui.handcalc.weighted_sums(steps.weighted_sums, DEC_TOKENS, key="encdec_z", title="出力 Z = AV：バリューの重み付き和")
    ui.show_matrix(steps.z, DEC_TOKENS, ["z1", "z2"], digits=ui.handcalc.PENCIL_DECIMALS,
                   caption="出力 Z（ターゲットの各トークンに、ソースの情報が混ざったもの）")
    st.caption(f"途中の値は ④ の鉛筆モードと同じく小数第 3 位まで（第 4 位を四捨五入）求めながら計算しているので、表の数だけで検算できます。"
               f"A は 2 行（ターゲットの語数）× 3 列（ソースの語数）で、各行の合計は 1 です。"
               f"{DEC_TOKENS[0]} の行は猫に {format_number(steps.weights[0, 0], 3)}、"
               f"{DEC_TOKENS[1]} の行は魚に {format_number(steps.weights[1, 1], 3)} の重みを置きます。")


def visual() -> None:
    three_attentions()
    st.subheader("3 つの構成：エンコーダ + デコーダ、デコーダだけ、エンコーダだけ")
    three_architectures()


def three_attentions() -> None:
    st.markdown("学習していない、乱数を入れただけの小さなエンコーダ・デコーダ（2 層、2 ヘッド、$d_{\\text{model}} = 8$）に"
                "ソース「猫 は 魚 を 食べた 。」とターゲット「<bos> the cat ate fish」を通し、3 種類の注意の重みを比べます。"
                .replace("<bos>", "〈bos〉"))
    src_ids = tutor.encdec.TINY_VOCAB.ids(SRC_DEFAULT)
    tgt_ids = tutor.encdec.TINY_VOCAB.ids(TGT_DEFAULT)
    vis = run_model(0, src_ids, tgt_ids)
    src_labels = [vis["vocab"][i] for i in src_ids]
    tgt_labels = [vis["vocab"][i] for i in tgt_ids]
    wide_heatmap(vis["cross"][0][0], tgt_labels, src_labels, x_title="ソース（エンコーダ出力：K・V）",
               y_title="ターゲット（デコーダ：Q）", title="Source-Target Attention（層 1・ヘッド 1）n_tgt × n_src")
    tab_enc, tab_dec = st.tabs(["エンコーダの自己注意", "デコーダのマスク付き自己注意"])
    with tab_enc:
        wide_heatmap(vis["enc_self"][0][0], src_labels, src_labels, title="エンコーダの自己注意（マスクなし）")
    with tab_dec:
        wide_heatmap(vis["dec_self"][0][0], tgt_labels, tgt_labels, title="デコーダのマスク付き自己注意")
    st.caption("エンコーダの重みは、どのマスも 0 ではありません。デコーダの自己注意では、対角線より右上（未来の位置）が"
               "ぴったり 0 です。Source-Target Attention は長方形で、ターゲットのどの語もソースの全部の語を参照できます。"
               "学習前なので、どこが明るいかにはまだ意味がありません。")


def three_architectures() -> None:
    st.markdown(
        "- **エンコーダ + デコーダ**（元の Transformer、T5 など）：入力の文と出力の文が別物で、その対応づけが要る仕事"
        "（翻訳、要約など）に使います。ソースはエンコーダが最初に 1 回だけ読み込み、デコーダは 1 語書くたびに "
        "Source-Target Attention でその結果を見直します。\n"
        "- **デコーダだけ**（GPT など。現在の主な大規模言語モデルもこの形）：質問と回答を区切らずに 1 本のトークン列として扱い、"
        "マスク付き自己注意だけで列の続きを 1 トークンずつ予測します。Source-Target Attention の層はありません。\n"
        "- **エンコーダだけ**（BERT）：マスクなしの自己注意で文全体を左右両方から読み、文の分類や語句の抜き出しのような"
        "「読み取る」仕事に使います。"
    )
    ui.show_table(pd.DataFrame({
        "比べる点": ["使う部品", "注意が見る範囲", "事前学習の課題", "得意なこと", "Source-Target Attention"],
        "BERT": ["エンコーダだけ", "前後すべて（双方向）",
                 "穴をあけた単語を当てる（マスク言語モデル、MLM）と、2 つの文が本当に続いているかの判定（次文予測、NSP）",
                 "文の分類・抽出・理解", "なし"],
        "GPT": ["デコーダだけ", "前だけ（因果マスク）", "次の単語を当てる", "文章の生成", "なし"],
        "元の Transformer": ["エンコーダ + デコーダ", "エンコーダは双方向、デコーダは前だけ", "対訳で翻訳を学習",
                           "翻訳などの系列変換", "あり"],
    }).set_index("比べる点"))


def try_it() -> None:
    st.markdown("語彙：" + "、".join(f"`{t}`" for t in tutor.encdec.TINY_VOCAB) + "（空白で区切って入力）")
    try_model()


@st.fragment
def try_model() -> None:
    """The tiny encoder–decoder as a fragment: the sentences, the seed, the layer or the head rerun
    this part only."""
    c1, c2 = st.columns(2)
    with c1:
        src_text = st.text_input("ソース（エンコーダに入る文）", value=SRC_DEFAULT, key="encdec_src", persist_state="session")
    with c2:
        tgt_text = st.text_input("ターゲット（デコーダに入る、ここまでの訳）", value=TGT_DEFAULT, key="encdec_tgt",
                                 persist_state="session")
    c1, c2, c3 = st.columns(3)
    with c1:
        seed = ui.number_input("モデルのシード", min_value=0, max_value=10_000, value=0, step=1, key="encdec_seed",
                               persist_state="session")
    with c2:
        layer = st.selectbox("層", [1, 2], key="encdec_layer", persist_state="session")
    with c3:
        head = st.selectbox("ヘッド", [1, 2], key="encdec_head", persist_state="session")
    src_try = ui.compute("encdec_src_ids", parse_tokens, src_text, "ソース")
    tgt_try = ui.compute("encdec_tgt_ids", parse_tokens, tgt_text, "ターゲット")
    if src_try is not None and tgt_try is not None:
        res = run_model(int(seed), tuple(src_try), tuple(tgt_try))
        s_lab = [res["vocab"][i] for i in src_try]
        t_lab = [res["vocab"][i] for i in tgt_try]
        w = res["cross"][layer - 1][head - 1]
        st.metric("Source-Target Attention の重みの形（n_tgt × n_src）", f"{w.shape[0]} × {w.shape[1]}")
        wide_heatmap(w, t_lab, s_lab, x_title="ソース（K・V）", y_title="ターゲット（Q）",
                   title=f"Source-Target Attention（層 {layer}・ヘッド {head}、シード {int(seed)}）")
        ui.lazy_expander("デコーダのマスク付き自己注意（同じ層・ヘッド）",
                         lambda: wide_heatmap(res["dec_self"][layer - 1][head - 1], t_lab, t_lab), key="encdec_dec_self")


ui.sections("encdec", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("encdec"))
