"""⑦-1 位置エンコーディング: token embedding + position, sinusoidal PE, learned PE, RoPE."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.figures import dense_heatmap
from ui.handcalc import vector as vec
from ui.validate import format_number

ui.page("position")

TOKENS = list(tb.TOKENS)
ORDERS = tb.PERMUTATIONS
PE3 = tutor.positional_encoding(len(TOKENS), tb.D_MODEL)    # the PE added in the permutation experiment
Q_DEMO, K_DEMO = tb.ROPE_Q, tb.ROPE_K
VIS_N, VIS_D = 50, 64
ROPE_OFFSETS = range(-5, 11)        # the slider's offsets (query position − key position)


def pe_table(entries) -> pd.DataFrame:
    return pd.DataFrame({
        "列": [f"{e.column}（{e.func}, i = {e.i}）" for e in entries],
        "2i/d_model": [format_number(e.exponent, 3) for e in entries],
        "ω_i": [format_number(e.rate, 6).rstrip("0").rstrip(".") for e in entries],
        "角度 pos·ω_i": [format_number(e.angle, 4) for e in entries],
        "値（4 桁）": [format_number(e.value, 4) for e in entries],
        "値（5 桁）": [format_number(e.value, 5) for e in entries],
    })


def rope_frame(rows) -> pd.DataFrame:
    return pd.DataFrame({
        "クエリの位置": [r.pos_q for r in rows],
        "キーの位置": [r.pos_k for r in rows],
        "ずれ（クエリ − キー）": [r.offset for r in rows],
        "RoPE のスコア": [format_number(r.rope, 4) for r in rows],
        "PE を足した場合のスコア": [format_number(r.additive, 4) for r in rows],
    })


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- Transformer の入口で、各トークンの **トークン埋め込み** に **位置を表すベクトル** を足す理由を説明できる。\n"
        "- 論文の **正弦波の位置エンコーディング** を 1 成分ずつ手で計算できる。\n"
        "- 学習で覚える位置ベクトルと、回転で位置を入れる **RoPE** の違いを数値で確かめる。"
    )

    ui.section("explain")
    st.markdown(
        "入力の文は、まずトークンの列に切り分けられ、各トークンが学習済みのベクトル（**トークン埋め込み**）に置き換えられます。"
        "このベクトルが表すのは「何という語か」だけで、「文の何番目にあるか」は入っていません。"
        "しかも **自己注意（Self-Attention）** は、全トークンの組を同じ式でいっせいに比べるので、語順を知る手段をもともと持っていません。"
        "実際、マスクをかけない自己注意では、入力の並びを入れ替えても、各トークンの出力ベクトルは変わらず、並び順が入れ替わるだけです"
        "（「可視化」で確かめます）。この性質を **並べ替え同変性**（permutation equivariance）といいます。"
        "因果マスクのように位置で決まるマスクをかけると、見てよい相手が位置で変わるので、この性質は成り立ちません。"
        "RNN のように先頭から 1 語ずつ読む仕組みなら、読む順番そのものが語順の手がかりになりますが、"
        "自己注意にはそれがないので、位置を外から与える必要があります。"
    )
    st.markdown(
        "やり方は、位置 0, 1, 2, … のそれぞれに 1 本ずつベクトルを決めておき、その位置のトークン埋め込みに **足す** ことです。"
        "このベクトルを **位置エンコーディング（positional encoding, PE）** と呼びます。"
        "原論文の PE は、列ごとに波長を変えた sin と cos の値でできています。"
        "左の列ほど、位置が 1 つ進むたびに角度が大きく進み（短い周期）、右の列ほど角度はゆっくりしか進みません（長い周期）。"
        "時計の秒針・分針・時針を合わせて読むと時刻が 1 つに決まるように、速さの違う波の値を組にすると、"
        "位置ごとに別々のベクトルになります。"
    )
    st.latex(r"\mathrm{PE}(pos,\,2i) = \sin\!\left(\frac{pos}{10000^{2i/d_{\mathrm{model}}}}\right)")
    st.latex(r"\mathrm{PE}(pos,\,2i+1) = \cos\!\left(\frac{pos}{10000^{2i/d_{\mathrm{model}}}}\right)")
    st.latex(r"\begin{aligned}&\text{第 1 層の入力} \\ &\quad = \mathrm{Dropout}\big(\text{トークン埋め込み} \\ &\qquad\quad \times \sqrt{d_{\mathrm{model}}} + \mathrm{PE}\big)\end{aligned}")
    st.markdown(
        "原論文では、トークン埋め込みに $\\sqrt{d_{\\mathrm{model}}}$ を掛けてから PE を足し、その和にドロップアウト"
        f"（学習中に値をランダムに 0 にする正則化で、base モデルでは率 {format_number(tb.PAPER_DROPOUT, 1)}）をかけて第 1 層に渡します。"
        "このページの計算では、PE の働きだけを見るために、倍率とドロップアウトを省いて「埋め込み + PE」で計算します。"
    )
    st.markdown(
        "位置の入れ方はほかにもあります。\n\n"
        "- **学習で覚える位置ベクトル**（BERT や GPT）: 位置ごとに 1 本のベクトルを用意し、ほかのパラメータと同じように学習します。"
        "式はありませんが、学習で用意した長さより先の位置には使えるベクトルがありません。\n"
        "- **RoPE（回転位置埋め込み）**: 足し算ではなく、クエリとキーを位置に比例した角度だけ **回転** させます。"
        "回転させたクエリとキーの内積は、もちろんクエリとキーの中身で変わりますが、位置からは 2 つの位置の **差** を通してしか影響を受けません"
        "（絶対位置をそろってずらしても値は同じ）。"
        "いまの大規模言語モデルの多くがこの方式です。"
    )


def hand() -> None:
    st.markdown(f"$d_{{\\text{{model}}}} = {tb.D_MODEL}$、位置 $pos = 1$ の位置エンコーディングを 1 列ずつ求めます。"
                "列 $2i$ が sin、列 $2i+1$ が cos で、同じ $i$ の 2 列は同じ角度を使います。")
    st.info("このページでは、論文の式に合わせて **PE の位置 pos と列の番号を 0 から** 数えます"
            "（先頭のトークンが pos = 0、いちばん左の列が列 0）。ほかのページの「次元 1〜4」とは番号が 1 ずれます。")
    entries = tutor.position.pe_breakdown(1, tb.D_MODEL)
    ui.cached_table(pe_table, entries)
    st.latex(r"\begin{aligned}&\mathrm{PE}(1) \\ &= (\sin 1,\ \cos 1,\ \sin 0.01,\ \cos 0.01) \\ &= ("
             + ",\\ ".join(format_number(e.value, 5 if e.value > 0.9999 else 4) for e in entries) + r")\end{aligned}")
    st.caption("ゆっくり回る列（i = 1）は角度が 0.01 しかないので、sin はほぼ 0、cos はほぼ 1 です。"
               "cos 0.01 は 4 桁に丸めると 1.0000、5 桁で 0.99995 です。")


def visual() -> None:
    st.subheader("位置エンコーディングの模様（位置 × 次元）")
    pe_pattern()
    st.subheader("並べ替えの実験：位置の情報がないと順番は見えない")
    permutation_experiment()
    st.subheader("RoPE：位置はずれ（差）を通してだけスコアに効く")
    rope_by_offset()
    st.subheader("学習で覚える位置ベクトル（学習前）")
    learned = tutor.position.learned_position_table(4, tb.D_MODEL, np.random.default_rng(0))
    ui.show_matrix(learned, [f"位置 {i}" for i in range(4)], [f"列 {j}" for j in range(tb.D_MODEL)], digits=4,
                   caption="学習を始める前は小さな乱数（標準偏差 0.02、シード 0）。学習で位置ごとの模様が育ちます。")


def pe_pattern() -> None:
    ui.cached_chart(dense_heatmap, tutor.positional_encoding(VIS_N, VIS_D), x_title="次元（列）",
                    y_title="位置 pos", title=f"PE（位置 {VIS_N} 個 × d_model = {VIS_D}）", width="stretch")
    st.caption("左の列ほど縞が細かく（速く回る波）、右の列ほど位置が変わっても色がほとんど変わりません（ゆっくり回る波）。"
               "赤 = +1、青 = −1。")


def permutation_experiment() -> None:
    perm_name = "それ・猫・魚"
    perm = ORDERS[perm_name]
    st.markdown(f"猫・魚・それ（④ と同じ埋め込みと変換行列 $W_Q, W_K, W_V$）を **{perm_name}** の順に並べ替えて、"
                "自己注意を計算し直します。比べるのは「並べ替えてから計算した出力」と「計算してから並べ替えた出力」です。")
    pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=ui.handcalc.PENCIL_DECIMALS)   # ④'s default view
    no_pe = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, perm)
    with_pe = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, perm, PE3)
    order_labels = [TOKENS[i] for i in perm]
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(no_pe.output_of_permuted, order_labels, ["z1", "z2"], caption="PE なし：並べ替えてから計算")
        ui.show_matrix(no_pe.output_permuted, order_labels, ["z1", "z2"], caption="PE なし：計算してから並べ替え")
        st.metric("差の最大値（PE なし）", format_number(no_pe.max_diff, 3))
    with c2:
        ui.show_matrix(with_pe.output_of_permuted, order_labels, ["z1", "z2"], caption="PE あり：並べ替えてから計算")
        ui.show_matrix(with_pe.output_permuted, order_labels, ["z1", "z2"], caption="PE あり：計算してから並べ替え")
        st.metric("差の最大値（PE あり）", format_number(with_pe.max_diff, 3))
    st.caption("表の値は途中で丸めずに計算しています。そのため PE なしの 猫 の行は、"
               f"④ の鉛筆モード（小数第 3 位で丸めながら計算）の {vec(pencil.z[0])} と最後の桁が違います。")
    st.markdown("PE がないと 2 つの表は完全に一致します（差 0）。これが並べ替え同変性です。マスクのない自己注意は **どのトークンがあるか** しか見ておらず、"
                "**どこにあるか** を区別できないからです。PE を足すと、位置ベクトルはトークンと一緒に動かず位置に残るので、"
                "並べ替えると出力の中身そのものが変わります。")


def rope_by_offset() -> None:
    st.markdown("クエリとキーを同じベクトル $(1, 0, 1, 0)$ にして、位置だけを変えてスコアを比べます。")
    rows = tutor.position.rope_offset_table(Q_DEMO, K_DEMO, [(1, 0), (5, 4), (12, 11), (3, 1), (10, 8)])
    ui.cached_table(rope_frame, rows, hide_index=True)
    st.caption("クエリとキーの中身が同じなので、ずれが同じ（1 と 1、2 と 2）なら RoPE のスコアは同じ値です。"
               "PE を足し算する方式では、同じずれでも絶対位置によって値が変わります。")


def try_it() -> None:
    st.subheader("好きな位置と次元で PE を計算する")
    try_pe()
    st.subheader("並べ替えを変えてみる")
    try_permutation()
    st.subheader("RoPE のずれを変えてみる")
    ui.stepper("位置のずれ（クエリの位置 − キーの位置）", ROPE_OFFSETS, rope_panels(), value=2, key="pos_rope_offset",
               text=lambda d: format_number(d, 0))
    st.caption("RoPE の列はすべて同じ値、足し算の列は行ごとに違う値になっているはずです。")
    st.subheader("学習前の位置ベクトルを引き直す")
    try_learned()


@st.fragment
def try_pe() -> None:
    """PE at any position and dimension as a fragment: the sliders rerun this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        d_model = st.select_slider("d_model（偶数）", options=list(range(2, 129, 2)), value=8, key="pos_d_model",
                                   persist_state="session")
    with c2:
        pos = st.slider("位置 pos", 0, 100, 3, key="pos_pos", persist_state="session")
    with c3:
        n_pos = st.slider("表示する位置の数", 2, 100, 30, key="pos_n", persist_state="session")
    entries_try = ui.compute("pos_try", tutor.position.pe_breakdown, pos, d_model)
    if entries_try is not None:
        ui.cached_table(pe_table, entries_try, hide_index=True)
    pe_try = ui.compute("pos_try_table", tutor.positional_encoding, n_pos, d_model)
    if pe_try is not None:
        ui.cached_chart(dense_heatmap, pe_try, x_title="次元（列）", y_title="位置 pos",
                        title=f"PE（位置 {n_pos} 個 × d_model = {d_model}）", width="stretch")


@st.fragment
def try_permutation() -> None:
    """The permutation as a fragment: choosing one reruns this part only."""
    perm_try_name = st.selectbox("並べ替えの順番", list(ORDERS), key="pos_perm", persist_state="session")
    perm_try = ORDERS[perm_try_name]
    no_pe_try = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, perm_try)
    with_pe_try = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, perm_try, PE3)
    c1, c2 = st.columns(2)
    c1.metric(f"{perm_try_name}：差の最大値（PE なし）", format_number(no_pe_try.max_diff, 3))
    c2.metric(f"{perm_try_name}：差の最大値（PE あり）", format_number(with_pe_try.max_diff, 3))


@st.cache_data(show_spinner=False, max_entries=1)
def rope_panels() -> list[list[dict]]:
    """The RoPE and additive-PE scores at every offset of the slider (answered in the browser)."""
    return [[ui.table_block(rope_frame(tutor.position.rope_shift_table(Q_DEMO, K_DEMO, offset, range(5, 30, 6))),
                            hide_index=True)] for offset in ROPE_OFFSETS]


@st.fragment
def try_learned() -> None:
    """Drawing learned position vectors again as a fragment: the seed reruns this table only."""
    seed = ui.number_input("シード", min_value=0, max_value=10_000, value=0, step=1, key="pos_seed",
                           persist_state="session")
    learned_try = tutor.position.learned_position_table(4, tb.D_MODEL, np.random.default_rng(int(seed)))
    ui.show_matrix(learned_try, [f"位置 {i}" for i in range(4)], [f"列 {j}" for j in range(tb.D_MODEL)], digits=4)


ui.sections("position", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("position"))
