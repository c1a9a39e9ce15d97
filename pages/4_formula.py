"""④ 完成形と手計算: softmax(QKᵀ/√d_k)V end to end, every element, heatmap, self vs cross."""
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.handcalc import auto_digits, number, vector

ui.page("formula")

TOKENS = list(tb.TOKENS)
CAT, FISH, IT = (TOKENS.index(t) for t in ("猫", "魚", "それ"))
DIMS = ["次元1", "次元2", "次元3", "次元4"]
W_COLS = ["列1", "列2"]

# the editors of 試してみよう and the switch of 手計算: every section computes with what they hold
X_KEY, W_PREFIX, PENCIL_KEY = "formula_x", "formula", "formula_pencil"
W_DEFAULTS = (tb.W_Q, tb.W_K, tb.W_V)

# What each matrix is, in words (the shapes come from the engine's result).
MEANING = {
    "X": ("入力そのもの", "トークン i の埋め込みが i 行目に入る"),
    "Q": ("X に W_Q を右から掛ける", "各トークンが何を探しているか"),
    "K": ("X に W_K を右から掛ける", "各トークンがどんな目印を掲げるか"),
    "V": ("X に W_V を右から掛ける", "選ばれたときに各トークンが渡す情報"),
    r"QK^\top": ("Q と Kᵀ の行列積", "i 行 j 列が q_i と k_j の内積 s_ij"),
    r"QK^\top/\sqrt{d_k}": ("全成分を √d_k で割る", "ぶれ幅を 1 程度にそろえたスコア s̃_ij"),
    "A": ("各行に softmax", "注意の重み a_ij（どの行も足すと 1）"),
    "Z": ("A と V の行列積", "文脈の情報を取り込んだ各トークンの新しいベクトル"),
}
PLAIN = {r"QK^\top": "S = QKᵀ", r"QK^\top/\sqrt{d_k}": "S̃ = QKᵀ/√d_k"}


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- $\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ を、"
        "途中に出てくる行列の **形** と合わせて読める。\n"
        "- 3 トークンの例で、入力から出力まで **すべての要素** を自分で計算できる。\n"
        "- 自己注意（Self-Attention）と交差注意（Source-Target Attention）の違いと、"
        "行列で書けることが **全トークン同時処理** につながる理由を説明できる。"
    )

    ui.section("explain")
    st.markdown("内積でスコアを出し、$\\sqrt{d_k}$ で割り、softmax で重みにし、その重みでバリューを混ぜる。"
                "① 〜 ③ で作ったこの手順を行列でまとめて書くと、次の 1 行になります。"
                "Transformer の論文 “Attention Is All You Need” では、これを **Scaled Dot-Product Attention** と呼んでいます。")
    st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V")
    st.markdown(
        "この式のかなめは、行列積 $QK^\\top$ がそのままスコアの表になることです。"
        "$K^\\top$ は $K$ の行を列に立て直した行列なので、その $j$ 列目は $\\mathbf{k}_j$ です。"
        "$Q$ の $i$ 行目 $\\mathbf{q}_i$ と掛け合わせると $s_{ij} = \\mathbf{q}_i\\cdot\\mathbf{k}_j$ が出ます。"
        "すべての $(i, j)$ の組の内積が、1 回の行列積で表になって出てくるわけです。"
        "$\\sqrt{d_k}$ で割ったスコアを $\\tilde{s}_{ij}$ と書きます。"
    )


def pencil_decimals() -> int | None:
    """The rounding of 手計算's switch (ui.rounding_toggle), read where the switch is not drawn."""
    return ui.handcalc.PENCIL_DECIMALS if st.session_state.get(PENCIL_KEY, True) else None


def inputs():
    """X, W_Q, W_K, W_V as the editors of 試してみよう hold them (the textbook's before any edit)."""
    return (ui.matrix_value(X_KEY, tb.X), *ui.weight_values(W_PREFIX, W_DEFAULTS))


@st.fragment
def hand() -> None:
    """The rounding switch and the whole calculation, as a fragment: the switch reruns this part only."""
    st.markdown("① と同じ 3 トークン [猫, 魚, それ] を、$d_{\\text{model}} = 4$、$d_k = d_v = 2$ で最初から最後まで計算します。"
                "各ステップを開くと、成分 1 つずつの計算式が出ます。")
    decimals = ui.rounding_toggle(PENCIL_KEY)
    x, w_q, w_k, w_v = inputs()
    hc = ui.compute("formula_steps", tutor.handcalc.hand_calculation, x, w_q, w_k, w_v, decimals=decimals, tokens=TOKENS)
    qkv = ui.compute("formula_qkv", tutor.project_qkv, x, w_q, w_k, w_v)
    if hc is None or qkv is None:
        return
    exact = ui.compute("formula_attn", tutor.attention, qkv.q, qkv.k, qkv.v)
    if exact is None:
        return
    st.subheader("入力：埋め込みと変換行列")
    st.markdown("計算に使う 4 つの行列です（「試してみよう」で書き換えられます）。")
    ui.show_matrix(x, TOKENS, DIMS, digits=auto_digits(x), caption="埋め込み X（1 行 = 1 トークン）")
    c1, c2, c3 = st.columns(3)
    for col, w, name in ((c1, w_q, "W_Q"), (c2, w_k, "W_K"), (c3, w_v, "W_V")):
        with col:
            ui.show_matrix(w, DIMS, W_COLS, digits=auto_digits(w), caption=f"変換行列 ${name}$")
    st.subheader("形の表")
    ui.show_table(pd.DataFrame(
        [(PLAIN.get(sym, sym), "×".join(str(d) for d in shape), *MEANING[sym]) for sym, shape in hc.shapes()],
        columns=["行列", "形", "計算のしかた", "中に入っているもの"]).set_index("行列"))
    st.caption("$n$ = トークン数、$d_{\\text{model}}$ = 埋め込みの次元。"
               "$X$ は $n\\times d_{\\text{model}}$、$QK^\\top$ と $A$ は $n\\times n$、$Z$ は $n\\times d_v$ です。")
    st.subheader("全要素の計算")
    every_element(hc, exact, decimals)


def every_element(hc, exact, decimals: int | None) -> None:
    """Each step's working, then what the output of 「それ」 carries."""
    if decimals is None:
        st.caption("正確な値で計算しています（表示は小数第 4 位まで）。")
    else:
        st.caption(f"鉛筆モード：各ステップの入力を小数第 {decimals} 位まで（その次の桁を四捨五入）求めてから計算し、結果も同じように丸めて書いています。"
                   "教科書の手計算と同じ数字になります。")
    ui.handcalc.hand_calculation(hc, key="formula")
    it_row = hc.softmax.result[IT]
    if tutor.most_attended(hc.softmax.result, IT) == FISH:
        st.markdown(
            f"「それ」の行では重みの {number(it_row[FISH], decimals)} が魚に向いています。"
            f"そのため「それ」の出力 {vector(hc.z[IT], ui.handcalc.digits_of(decimals))} は、"
            f"魚のバリュー {vector(hc.v.result[FISH], auto_digits(hc.v.result))} にかなり近くなりました。"
            "この層を通ったあと、「それ」の位置のベクトルは魚の情報をほとんどそのまま運んでいます。"
            "後に続く層は、この位置を「魚」として扱えるわけです。"
        )
    else:
        st.markdown(f"いまの値では、「それ」の重みがいちばん大きい相手は魚ではありません。"
                    f"「それ」の出力は {vector(hc.z[IT], ui.handcalc.digits_of(decimals))} です。")
    if decimals is not None:
        st.caption(f"丸めずに計算すると、猫の出力は {vector(exact.output[CAT], 4)} です。"
                   "鉛筆モードとの小さな差は、途中で丸めたことによるものです。")


def visual() -> None:
    x, w_q, w_k, w_v = inputs()
    qkv = ui.compute("formula_qkv", tutor.project_qkv, x, w_q, w_k, w_v)
    if qkv is None:
        return
    exact = ui.compute("formula_attn", tutor.attention, qkv.q, qkv.k, qkv.v)
    par = ui.compute("formula_parallel", tutor.formula.parallel_demo, qkv.q, qkv.k, qkv.v)
    cross = ui.compute("formula_cross", tutor.cross_attention, tb.CROSS_X_DEC, x, w_q, w_k, w_v)
    if exact is None or par is None or cross is None:
        return
    st.subheader("重みのヒートマップ")
    st.markdown("行が見る側（クエリ）、列が見られる側（キー）です。各行の合計は 1 です。")
    ui.heatmap(exact.weights, TOKENS, TOKENS, title="注意の重み A")
    st.markdown(f"たとえば「それ」の行の魚の列は {number(exact.weights[IT, FISH], 3)} です。"
                "どの語がどの語を参照しているかが、色の明るさ（明るいマスほど重みが大きい）でひと目で読み取れます。")
    st.subheader("自己注意と交差注意")
    self_and_cross(exact, cross)
    st.subheader("行列で書ける = 全トークン同時に計算できる")
    all_tokens_at_once(par)


def self_and_cross(exact, cross) -> None:
    st.markdown(
        "「手計算」では、Q・K・V の 3 つとも同じ入力 $X$ から作りました。"
        "1 つの文が文の中を見渡すこの形を **自己注意**（Self-Attention）といいます。"
        "一方、翻訳モデルのデコーダには、訳文を書き進める側が原文を参照する層があります。"
        "そこでは Q を訳文側の表現（デコーダの直前のサブレイヤー、つまりマスク付き自己注意に残差接続と層正規化を施した出力）から作り、"
        "K と V は、エンコーダが原文を処理して得た表現をもとに作ります。"
        "これが **交差注意**（Source-Target Attention）です。"
        "重みの表は（訳文のトークン数）×（原文のトークン数）になるので、縦と横の長さが違ってかまいません。"
    )
    st.markdown(f"例：英訳を書いている途中のデコーダに {len(tb.CROSS_DEC_TOKENS)} 語 "
                f"（{', '.join(tb.CROSS_DEC_TOKENS)}）があり、原文は [猫, 魚, それ] です。"
                "変換行列は「手計算」と同じものを使います。"
                "手で追えるように、デコーダ側の表現としてはサブレイヤーを通す前の埋め込みを、原文側もこの文の埋め込みをそのまま使います。")
    ui.show_matrix(tb.CROSS_X_DEC, list(tb.CROSS_DEC_TOKENS), DIMS, digits=0, caption="デコーダ側の表現（ここでは埋め込みをそのまま使う）")
    ui.heatmap(cross.weights, list(tb.CROSS_DEC_TOKENS), TOKENS, x_title="原文のキー", y_title="訳文のクエリ",
               title=f"交差注意の重み（{cross.weights.shape[0]}×{cross.weights.shape[1]}）")
    ui.show_table(pd.DataFrame(
        [("自己注意", "X（同じ文）", "X（同じ文）", "×".join(map(str, exact.weights.shape))),
         ("交差注意", "訳文側（デコーダの直前のサブレイヤーの出力）", "原文側（エンコーダの出力）", "×".join(map(str, cross.weights.shape)))],
        columns=["注意の種類", "Q を作る入力", "K・V を作る入力", "重みの形"]).set_index("注意の種類"))


def all_tokens_at_once(par) -> None:
    st.markdown(
        "RNN では、隠れ状態 $\\mathbf{h}_t$ を求める式に $\\mathbf{h}_{t-1}$ が入っているので、"
        "前のトークンの計算が終わるまで次に進めません。"
        "Attention の出力 $\\mathbf{z}_i$ は $\\mathbf{q}_i$ と $K, V$ だけから決まり、ほかの行の $\\mathbf{z}$ を参照しません。"
        "行どうしが互いを待たないので、全行を 1 回の行列積として GPU にまとめて計算させられます。"
    )
    agree = "一致しました" if par.rows_agree else "一致しませんでした"
    st.markdown(f"確かめ：$Z$ を行ごとに **後ろの行から** 1 行ずつ計算しても、まとめて計算した $Z$ と {agree}。")
    ui.show_table(pd.DataFrame(
        [("順番に待つ計算の回数", par.rnn_sequential_steps, par.attention_sequential_steps),
         ("最初と最後のトークンの間の距離", par.rnn_max_path, par.attention_max_path)],
        columns=[f"n = {par.n} のとき", "RNN", "Attention"]).set_index(f"n = {par.n} のとき"))
    st.caption("先頭と末尾のトークンも内積 1 回で直接つながるため、何段も受け渡すうちに情報が弱まる心配がありません。"
               "その代わりスコアの表が $n\\times n$ あるので、計算量は $n^2$ に比例して増えます。")


@st.fragment
def try_it() -> None:
    """The editors and what they change at once, as a fragment: a cell edit reruns this part only."""
    st.markdown("入力と変換行列を書き換えると、このページの手計算・形の表・ヒートマップがすべて計算し直されます"
                "（「手計算」「可視化」を開くと、書き換えた値で計算されています）。")
    x = ui.matrix_editor(X_KEY, tb.X, TOKENS, DIMS, label="埋め込み X", reset_label=ui.TEXTBOOK_RESET)
    w_q, w_k, w_v = ui.weight_editors(W_PREFIX, W_DEFAULTS, DIMS, W_COLS, reset_label=ui.TEXTBOOK_RESET)
    decimals = pencil_decimals()
    hc = ui.compute("formula_steps", tutor.handcalc.hand_calculation, x, w_q, w_k, w_v, decimals=decimals, tokens=TOKENS)
    if hc is None:
        return
    st.markdown(f"「それ」の出力：**{vector(hc.z[IT], ui.handcalc.digits_of(decimals))}**")


ui.sections("formula", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("formula"))
