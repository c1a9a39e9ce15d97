"""④ 完成形と手計算: softmax(QKᵀ/√d_k)V end to end, every element, heatmap, self vs cross."""
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.steps import auto_digits, number, vector

ui.page("formula")

TOKENS = list(tb.TOKENS)
CAT, FISH, IT = (TOKENS.index(t) for t in ("猫", "魚", "それ"))
DIMS = ["次元1", "次元2", "次元3", "次元4"]
W_COLS = ["列1", "列2"]

# What each matrix is, in words (the shapes come from the engine's result).
MEANING = {
    "X": ("埋め込みを縦に積む", "入力（1 行 = 1 トークン）"),
    "Q": ("X W_Q（学習される変換）", "全トークンのクエリ（探す顔）"),
    "K": ("X W_K（学習される変換）", "全トークンのキー（探される顔）"),
    "V": ("X W_V（学習される変換）", "全トークンのバリュー（渡す中身）"),
    r"QK^\top": ("行列積", "全ペアの内積スコア"),
    r"QK^\top/\sqrt{d_k}": ("√d_k で割る", "スケールをそろえたスコア"),
    "A": ("行ごとに softmax", "Attention の重み（各行の合計 1）"),
    "Z": ("A V（行列積）", "出力（文脈を取り込んだベクトル）"),
}
PLAIN = {r"QK^\top": "QKᵀ", r"QK^\top/\sqrt{d_k}": "QKᵀ/√d_k"}

# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- 完成形 $\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ を、"
    "各行列の **形** と一緒に読めるようになる。\n"
    "- 3 トークンの例で、入力から出力まで **すべての要素** を自分で計算できる。\n"
    "- 自己注意（Self-Attention）と交差注意（Source-Target Attention）の違い、"
    "行列で書けることが **全トークン同時処理** を意味する理由を説明できる。"
)

ui.section("explain")
st.markdown("ここまでの 3 ページの部品を 1 本の式にまとめると、論文 “Attention Is All You Need” の "
            "**Scaled Dot-Product Attention** になります。")
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V")
st.markdown(
    "$QK^\\top$ の $(i, j)$ 成分は $\\mathbf{q}_i\\cdot\\mathbf{k}_j$ です（$K^\\top$ の第 $j$ 列が $\\mathbf{k}_j$ だから）。"
    "つまり 1 回の行列積で **全ペアの内積** がそろいます。それを $\\sqrt{d_k}$ で割り、行ごとに softmax をとり、"
    "その重みでバリューを混ぜれば出力です。"
)

ui.section("hand")
st.markdown("3 語 [猫, 魚, それ]、$d_{\\text{model}} = 4$、$d_k = d_v = 2$ で、入口から出口まで全要素を追います。"
            "各ステップを開くと、要素 1 つずつの計算式が出ます。")
decimals = ui.rounding_toggle("formula_pencil")
hand_box = st.container()
ui.section("visual")
visual_box = st.container()

# ---------------------------------------------------------------------------
ui.section("try")
st.markdown("入力と変換行列を書き換えると、このページの手計算・形の表・ヒートマップがすべて計算し直されます。")
x = ui.matrix_editor("formula_x", tb.X, TOKENS, DIMS, label="埋め込み X")
w_q, w_k, w_v = ui.weight_editors("formula", (tb.W_Q, tb.W_K, tb.W_V), DIMS, W_COLS)
hc = ui.compute("formula_steps", tutor.hand_calculation, x, w_q, w_k, w_v, decimals=decimals, tokens=TOKENS)
qkv = ui.compute("formula_qkv", tutor.project_qkv, x, w_q, w_k, w_v)
if hc is None or qkv is None:
    st.stop()
exact = ui.compute("formula_attn", tutor.attention, qkv.q, qkv.k, qkv.v)
par = ui.compute("formula_parallel", tutor.parallel_demo, qkv.q, qkv.k, qkv.v)
cross = ui.compute("formula_cross", tutor.cross_example, tutor.CROSS_X_DEC, x, w_q, w_k, w_v)
if exact is None or par is None or cross is None:
    st.stop()
z_cols = [f"z{j + 1}" for j in range(hc.z.shape[1])]
st.markdown(f"「それ」の出力：**{vector(hc.z[IT], ui.steps.digits_of(decimals))}**")

# ---------------------------------------------------------------------------
with hand_box:
    st.subheader("形の表")
    st.table(pd.DataFrame(
        [(PLAIN.get(sym, sym), "×".join(str(d) for d in shape), *MEANING[sym]) for sym, shape in hc.shapes()],
        columns=["記号", "形", "作り方", "意味"]).set_index("記号"))
    st.caption("$n$ = トークン数、$d_{\\text{model}}$ = 埋め込みの次元。"
               "$X$ は $n\\times d_{\\text{model}}$、$QK^\\top$ と $A$ は $n\\times n$、$Z$ は $n\\times d_v$ です。")
    st.subheader("全要素の計算")
    if decimals is None:
        st.caption("正確な値で計算しています（表示は小数第 4 位まで）。")
    else:
        st.caption(f"鉛筆モード：各ステップの入力を小数第 {decimals} 位に丸めてから計算し、結果も丸めて書いています。"
                   "教科書の手計算と同じ数字になります。")
    ui.steps.hand_calculation(hc)
    st.markdown(
        f"「それ」の出力 {vector(hc.z[IT], ui.steps.digits_of(decimals))} を、魚のバリュー "
        f"{vector(hc.v.result[FISH], auto_digits(hc.v.result))} と見比べてください。"
        "Attention を 1 回通っただけで、「それ」のベクトルの中身がほぼ魚の情報に置き換わりました。"
    )
    if decimals is not None:
        st.caption(f"丸めずに計算すると、猫の出力は {vector(exact.output[CAT], 4)} です。"
                   "鉛筆モードとの小さな差は、途中で丸めたことによるものです。")

with visual_box:
    st.subheader("重みのヒートマップ")
    st.markdown("行が見る側（クエリ）、列が見られる側（キー）です。各行の合計は 1 です。")
    ui.heatmap(exact.weights, TOKENS, TOKENS, title="Attention の重み A")
    st.markdown(f"「それ」の行は魚の列だけが明るく（{number(exact.weights[IT, FISH], 3)}）、"
                "照応がとれていることが一目で分かります。")

    st.subheader("自己注意と交差注意")
    st.markdown(
        "ここまでの計算は、クエリ・キー・バリューが **同じ文** $X$ から作られる **自己注意（Self-Attention）** です。"
        "翻訳のデコーダでは、クエリを **訳しかけの文** から、キーとバリューを **原文（エンコーダの出力）** から作ります。"
        "これが **交差注意（Source-Target Attention）** です。重みの表は「訳文のトークン数 × 原文のトークン数」になり、"
        "正方形とは限りません。"
    )
    st.markdown(f"例：英訳を書いている途中のデコーダに {len(tutor.CROSS_DEC_TOKENS)} 語 "
                f"（{', '.join(tutor.CROSS_DEC_TOKENS)}）があり、原文は [猫, 魚, それ] です。"
                "変換行列は上と同じものを使います。")
    ui.show_matrix(tutor.CROSS_X_DEC, list(tutor.CROSS_DEC_TOKENS), DIMS, digits=0, caption="デコーダ側の入力")
    ui.heatmap(cross.weights, list(tutor.CROSS_DEC_TOKENS), TOKENS, x_title="原文のキー", y_title="訳文のクエリ",
               title=f"交差注意の重み（{cross.weights.shape[0]}×{cross.weights.shape[1]}）")
    st.table(pd.DataFrame(
        [("自己注意", "文 X 自身", "文 X 自身", "×".join(map(str, exact.weights.shape))),
         ("交差注意", "デコーダ側の文", "エンコーダ側の文", "×".join(map(str, cross.weights.shape)))],
        columns=["種類", "クエリの出どころ", "キー・バリューの出どころ", "重みの形"]).set_index("種類"))

    st.subheader("行列で書ける = 全トークン同時に計算できる")
    st.markdown(
        "RNN は $\\mathbf{h}_2$ を作るのに $\\mathbf{h}_1$ を待ち、$\\mathbf{h}_3$ は $\\mathbf{h}_2$ を待つ、という"
        "順番待ちの計算でした。Attention の $Z$ の $i$ 行目に必要なのは $\\mathbf{q}_i$ と全体の $K, V$ だけで、"
        "ほかの行の結果は要りません。だから全行を 1 回の行列積でまとめて計算でき、GPU の並列計算が活きます。"
    )
    agree = "一致しました" if par.rows_agree else "一致しませんでした"
    st.markdown(f"確かめ：$Z$ を行ごとに **後ろの行から** 1 行ずつ計算しても、まとめて計算した $Z$ と {agree}。")
    st.table(pd.DataFrame(
        [("順番に待つ計算の回数", par.rnn_sequential_steps, par.attention_sequential_steps),
         ("最初と最後のトークンの間の距離", par.rnn_max_path, par.attention_max_path)],
        columns=[f"n = {par.n} のとき", "RNN", "Attention"]).set_index(f"n = {par.n} のとき"))
    st.caption("遠いトークンどうしも 1 回の内積で直接結ばれるので、RNN のように情報が伝言ゲームで薄れません。"
               "その代わりスコア表は n×n なので、計算量は文の長さの 2 乗に比例して増えます。")

ui.quiz_section("formula")
ui.next_link("formula")
