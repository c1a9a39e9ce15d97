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
# hand example: two decoder-side tokens (their embeddings happen to equal 猫 and 魚)
DEC_TOKENS = ["cat", "fish"]
X_DEC = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])

DIAGRAM = r"""
digraph transformer {
  graph [rankdir=BT, fontname="Noto Sans CJK JP", fontsize=11, nodesep=0.25, ranksep=0.22, bgcolor="transparent"];
  node  [shape=box, style="rounded,filled", fillcolor="#eef4fa", color="#2E6F9E", fontname="Noto Sans CJK JP", fontsize=11];
  edge  [color="#555555", arrowsize=0.6];
  subgraph cluster_enc {
    label="エンコーダ（× N = 6）"; color="#999999"; fontname="Noto Sans CJK JP"; style="rounded,dashed";
    e_self [label="Self-Attention（マスクなし）\n⑤ Multi-Head"];
    e_an1  [label="残差接続 + 層正規化 ⑦-2"];
    e_ffn  [label="FFN ⑦-2"];
    e_an2  [label="残差接続 + 層正規化 ⑦-2"];
    e_self -> e_an1 -> e_ffn -> e_an2;
  }
  subgraph cluster_dec {
    label="デコーダ（× N = 6）"; color="#999999"; fontname="Noto Sans CJK JP"; style="rounded,dashed";
    d_self [label="マスク付き Self-Attention\n⑥ 因果マスク"];
    d_an1  [label="残差接続 + 層正規化"];
    d_cross [label="Source-Target Attention\n⑦-3（Q はデコーダ、K・V はエンコーダ）", fillcolor="#fdf1dc"];
    d_an2  [label="残差接続 + 層正規化"];
    d_ffn  [label="FFN ⑦-2"];
    d_an3  [label="残差接続 + 層正規化"];
    d_self -> d_an1 -> d_cross -> d_an2 -> d_ffn -> d_an3;
  }
  src [label="入力文のトークン埋め込み\n+ 位置エンコーディング ⑦-1", fillcolor="#ffffff"];
  tgt [label="出力文（ここまで）の埋め込み\n+ 位置エンコーディング ⑦-1", fillcolor="#ffffff"];
  out [label="線形層 → ソフトマックス ⑦-4\n次のトークンの確率", fillcolor="#e8f5e9"];
  src -> e_self;
  tgt -> d_self;
  e_an2 -> d_cross [label=" K, V", fontsize=10, fontname="Noto Sans CJK JP"];
  d_an3 -> out;
}
"""
DIAGRAM_LINKS = [
    ("position", "⑦-1 入力：埋め込み + 位置エンコーディング"),
    ("formula", "④ Attention の式（クエリ・キー・バリュー）"),
    ("multihead", "⑤ Multi-Head Attention"),
    ("mask", "⑥ デコーダの因果マスク"),
    ("block", "⑦-2 FFN・残差接続・層正規化"),
    ("output", "⑦-4 線形層とソフトマックス、生成"),
    ("cost", "⑦-5 計算量（n² の重さ）"),
]


@st.cache_data(show_spinner=False, max_entries=16)
def run_model(seed: int, src: tuple, tgt: tuple):
    model = tutor.TinyEncoderDecoder.from_seed(seed)
    res = model.decode_step(src, tgt)
    return {
        "vocab": model.vocab, "n_layers": model.n_layers, "n_heads": model.n_heads, "d_model": model.d_model,
        "cross": [np.asarray(w) for w in res.cross_weights],                       # per layer (h, n_tgt, n_src)
        "dec_self": [np.asarray(l.self_weights) for l in res.layers],              # per layer (h, n_tgt, n_tgt)
        "enc_self": [np.asarray(l.attention_weights) for l in res.encoder.layers],  # per layer (h, n_src, n_src)
        "enc_out_shape": res.encoder.output.shape, "final_shape": res.final.shape,
    }


def _wide_chart(matrix, rows, cols, **kwargs):
    n_rows, n_cols = np.shape(matrix)
    return ui.heatmap_chart(matrix, rows, cols, digits=2, **kwargs).properties(width=40 * n_cols, height=40 * n_rows)


def wide_heatmap(matrix, rows, cols, **kwargs) -> None:
    """A model heatmap with 40-pixel cells, so that 6 × 6 still fits a phone (390 px)."""
    ui.widgets.cached_chart(_wide_chart, matrix, rows, cols, width="content", **kwargs)


def parse_tokens(text: str, what: str):
    """Token ids of the text; the engine's error is shown with 〈bos〉 so Markdown keeps it."""
    try:
        return tutor.token_ids(text)
    except ValueError as exc:
        raise ValueError(f"{what}：" + str(exc).replace("<", "〈").replace(">", "〉")) from None


# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- 元の Transformer が **エンコーダ** と **デコーダ** の 2 つでできた **Seq2Seq**（系列から系列への変換）モデルであることを説明できる。\n"
    "- エンコーダの Self-Attention、デコーダのマスク付き Self-Attention、**Source-Target Attention** の違いを、"
    "クエリ・キー・バリューがどこから来るかで区別できる。\n"
    "- いまの大規模言語モデル（デコーダだけ）と翻訳モデル（エンコーダ + デコーダ）、**BERT** と **GPT** の違いを整理する。"
)

ui.section("explain")
st.markdown(
    "Transformer はもともと翻訳のためのモデルです。RNN の **Seq2Seq** と同じく、入力文を読み取る **エンコーダ** と、"
    "出力文を 1 語ずつ作る **デコーダ** からなりますが、どちらも RNN を使わず Attention だけで組み立てています。\n\n"
    "- **エンコーダ**（同じ層を N = 6 段）：Self-Attention（マスクなし）→ FFN。各トークンは文の前も後ろも自由に見て、"
    "文脈を含んだ表現を作ります。\n"
    "- **デコーダ**（同じ層を N = 6 段）：① **マスク付き** Self-Attention（まだ作っていない未来の語は見ない）→ "
    "② **Source-Target Attention** → ③ FFN。\n"
    "- どのサブレイヤーにも、残差接続と層正規化が付いています（⑦-2）。"
)
st.markdown(
    "**Source-Target Attention**（エンコーダ・デコーダ注意、交差注意とも）は、訳文を作りながら原文のどこを見るかを決める部品です。"
    "**クエリはデコーダ側** から、**キーとバリューはエンコーダの出力** から作ります。"
    "そのため注意の重みは「出力側のトークン数 × 入力側のトークン数」の長方形になります。"
)
st.latex(r"\begin{aligned}&\mathrm{Attention}(Q_{\text{dec}},\,K_{\text{enc}},\,V_{\text{enc}}) \\ "
         r"&\quad = \mathrm{softmax}\!\left(\frac{Q_{\text{dec}} K_{\text{enc}}^\top}{\sqrt{d_k}}\right) V_{\text{enc}}\end{aligned}")
st.latex(r"\text{重み行列の形}: n_{\text{tgt}} \times n_{\text{src}}")

st.subheader("Transformer の全体像")
st.graphviz_chart(DIAGRAM, width="stretch")
st.caption("図は下から上へ流れます。点線の枠がエンコーダとデコーダ（それぞれ同じ層を N = 6 段）で、"
           "エンコーダの出力が矢印「K, V」でデコーダの Source-Target Attention に入ります。")
with st.container(border=True):
    st.markdown("**図の部品を説明しているページ**")
    for key, label in DIAGRAM_LINKS:
        info = ui.PAGE_BY_KEY[key]
        if info.exists:
            st.page_link(info.path, label=label)
        else:
            st.caption(f"{label}（準備中）")

# ---------------------------------------------------------------------------
ui.section("hand")
st.markdown("第 8 章の 猫・魚・それ をエンコーダ側（ソース）、2 語をデコーダ側（ターゲット）として、"
            "同じ $W_Q, W_K, W_V$（$d_k = 2$）で Source-Target Attention を計算します。")
cross = tutor.cross_attention(X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
c1, c2 = st.columns(2)
with c1:
    ui.show_matrix(X_DEC, DEC_TOKENS, ["1", "2", "3", "4"], digits=0, caption="デコーダ側の入力（ターゲット）")
    ui.show_matrix(cross.q, DEC_TOKENS, ["q1", "q2"], digits=0, caption="Q = X_dec W_Q（デコーダから）")
with c2:
    ui.show_matrix(cross.k, list(tb.TOKENS), ["k1", "k2"], digits=0, caption="K = X_enc W_K（エンコーダから）")
    ui.show_matrix(cross.v, list(tb.TOKENS), ["v1", "v2"], digits=0, caption="V = X_enc W_V（エンコーダから）")
ui.show_matrix(cross.attn.scores, DEC_TOKENS, list(tb.TOKENS), digits=0, caption="Q Kᵀ（2 × 3）")
ui.show_matrix(cross.attn.scaled, DEC_TOKENS, list(tb.TOKENS), digits=3,
               caption=f"Q Kᵀ / √d_k（√2 ≈ {format_number(cross.attn.divisor, 3)} で割る）")
ui.heatmap(cross.weights, DEC_TOKENS, list(tb.TOKENS), x_title="ソース（キー・バリュー）",
           y_title="ターゲット（クエリ）", title="Source-Target Attention の重み（2 × 3）")
ui.show_matrix(cross.output, DEC_TOKENS, ["z1", "z2"], caption="出力 = 重み × V（ターゲットの各語に、ソースの情報が混ざる）")
st.caption("重みの行は 2 つ（ターゲットの語数）、列は 3 つ（ソースの語数）。各行の和は 1 です。"
           "cat は Q が猫と同じなので猫に、fish は猫と魚に同じだけ注目しています。")

# ---------------------------------------------------------------------------
ui.section("visual")
st.markdown("乱数で初期化した小さなエンコーダ・デコーダ（2 層、2 ヘッド、$d_{\\text{model}} = 8$、学習なし）に、"
            "ソース「猫 は 魚 を 食べた 。」とターゲット「<bos> the cat ate fish」を入れて、3 種類の注意の重みを並べます。"
            .replace("<bos>", "〈bos〉"))
src_ids = tutor.token_ids(SRC_DEFAULT)
tgt_ids = tutor.token_ids(TGT_DEFAULT)
vis = run_model(0, src_ids, tgt_ids)
src_labels = [vis["vocab"][i] for i in src_ids]
tgt_labels = [vis["vocab"][i] for i in tgt_ids]
wide_heatmap(vis["cross"][0][0], tgt_labels, src_labels, x_title="ソース（エンコーダ出力：K・V）",
           y_title="ターゲット（デコーダ：Q）", title="Source-Target Attention（層 1・ヘッド 1）n_tgt × n_src")
tab_enc, tab_dec = st.tabs(["エンコーダの Self-Attention", "デコーダのマスク付き Self-Attention"])
with tab_enc:
    wide_heatmap(vis["enc_self"][0][0], src_labels, src_labels, title="エンコーダの Self-Attention（マスクなし）")
with tab_dec:
    wide_heatmap(vis["dec_self"][0][0], tgt_labels, tgt_labels, title="デコーダのマスク付き Self-Attention")
st.caption("エンコーダの重みはどのマスにも値があります。デコーダの Self-Attention は対角より右上（未来）がちょうど 0 です。"
           "Source-Target Attention は長方形で、ターゲットの各語がソースのすべての語を見られます。"
           "学習していないので、どこに注目するかにまだ意味はありません。")

st.subheader("デコーダだけのモデルと、エンコーダ・デコーダ")
st.markdown(
    "- **エンコーダ・デコーダ**（元の Transformer、T5 など）：入力と出力がはっきり分かれる仕事（翻訳、要約）向き。"
    "入力はエンコーダで一度だけ読み、デコーダが Source-Target Attention で何度も参照します。\n"
    "- **デコーダだけ**（GPT など、いまの大規模言語モデルの多く）：指示文も答えも 1 本の列につなげ、"
    "マスク付き Self-Attention だけで次のトークンを予測し続けます。Source-Target Attention はありません。\n"
    "- **エンコーダだけ**（BERT）：文全体を双方向に見て、分類や抽出などの「理解」に使います。"
)
st.table(pd.DataFrame({
    "": ["使う部品", "注意が見る範囲", "事前学習の課題", "得意なこと", "Source-Target Attention"],
    "BERT": ["エンコーダだけ", "前後すべて（双方向）", "穴をあけた単語を当てる（マスク言語モデル）", "文の分類・抽出・理解", "なし"],
    "GPT": ["デコーダだけ", "前だけ（因果マスク）", "次の単語を当てる", "文章の生成", "なし"],
    "元の Transformer": ["エンコーダ + デコーダ", "エンコーダは双方向、デコーダは前だけ", "対訳で翻訳を学習",
                       "翻訳などの系列変換", "あり"],
}).set_index(""))

# ---------------------------------------------------------------------------
ui.section("try")
st.markdown("語彙：" + "、".join(f"`{t}`" for t in tutor.TINY_VOCAB) + "（空白で区切って入力）")
c1, c2 = st.columns(2)
with c1:
    src_text = st.text_input("ソース（エンコーダに入る文）", value=SRC_DEFAULT, key="encdec_src", persist_state="session")
with c2:
    tgt_text = st.text_input("ターゲット（デコーダに入る、ここまでの訳）", value=TGT_DEFAULT, key="encdec_tgt",
                             persist_state="session")
c1, c2, c3 = st.columns(3)
with c1:
    seed = st.number_input("モデルのシード", min_value=0, max_value=10_000, value=0, step=1, key="encdec_seed",
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
    with st.expander("デコーダのマスク付き Self-Attention（同じ層・ヘッド）"):
        wide_heatmap(res["dec_self"][layer - 1][head - 1], t_lab, t_lab)

ui.quiz_section("encdec")
ui.next_link("encdec")
