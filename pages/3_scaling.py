"""③ √d_k で割る理由: softmax saturation, the spread of q·k growing with d_k, the cure."""

import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.figures import saturation_explorer, spread_chart
from ui.handcalc import auto_digits, number, prob_text, vector

ui.page("scaling")

BASE = tb.SATURATION_SCORES[0]          # (2, 1, 0)
KEYS3 = ["キー1", "キー2", "キー3"]
G_KEY_LABELS = [f"k{j + 1} = {vector(k, 0)}" for j, k in enumerate(tb.G_KEYS)]
G_DECIMALS = 4                          # the G検定 example: every step written AND used to 4 places


def weights_frame(points, labels) -> pd.DataFrame:
    """Rows of the saturation table (display only)."""
    return pd.DataFrame({
        "softmax 後の重み": ["(" + ", ".join(prob_text(w) for w in p.weights) + ")" for p in points],
        "勾配の大きさ": [prob_text(p.gradient) for p in points],
    }, index=pd.Index(labels, name="スコア"))


@st.cache_data(show_spinner=False, max_entries=64)
def measured_spread(seed: int):
    """The seeded measurement: the same seed gives the same result, so it is computed once."""
    return tutor.scaling.dot_product_spread(np.random.default_rng(seed))


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- スコアが大きすぎると softmax が **1 つに集中しすぎる** こと、そのとき **勾配がほぼ 0** になることを数値で確かめる。\n"
        "- 次元 $d_k$ が大きいほど内積 $\\mathbf{q}\\cdot\\mathbf{k}$ のばらつきが $\\sqrt{d_k}$ 程度に広がることを、乱数の実験で確かめる。\n"
        "- $\\sqrt{d_k}$ で割ると、ばらつきが 1 前後に戻る理由を説明できる。"
    )

    ui.section("explain")
    st.markdown(
        "softmax の結果を決めるのは、スコアどうしの **差** です（全部に同じ数を足しても重みは変わりません）。"
        "$(2, 1, 0)$ を 10 倍して $(20, 10, 0)$ にすると、並び順は同じでも差が 10 倍に開き、"
        "重みはほぼ全部が 1 位に集まります。重みがこのように一点に集まると、2 つの不都合が起きます。"
    )
    st.markdown(
        "1. **出力が 1 語の写しになる**：Attention の持ち味は、いくつものトークンの情報を割合に応じて合成できることです。"
        "重みが $(1, 0, 0)$ に近いと、出力は 1 位のバリューとほぼ同じになり、その持ち味が失われます。\n"
        "2. **勾配が消える**：重みが 1 や 0 に張り付いた状態では、スコアを多少動かしても重みはほとんど変わりません。"
        "変化がない、つまり勾配がほぼ 0 なので、誤差逆伝播で $W_Q, W_K$ を更新しようにも、"
        "どちらへ動かせばよいかの情報が届きません。"
    )
    st.latex(r"\frac{\partial a_i}{\partial s_j} = a_i\,(\delta_{ij} - a_j)")
    st.caption("どれかの重み $a_i$ が 1 に近い（残りがほぼ 0 の）とき、この値はどの $i, j$ でもほぼ 0 になります。")
    st.markdown(
        "スコアが大きくなりすぎる原因は、次元 $d_k$ にあります。"
        "内積 $\\mathbf{q}\\cdot\\mathbf{k} = q_1k_1 + \\dots + q_{d_k}k_{d_k}$ は $d_k$ 個の積の合計です。"
        "成分どうしが独立で、どれも平均 0・分散 1 なら、積の 1 つ 1 つも平均 0・分散 1 になります。"
        "独立な量を足すと分散も足し算になるので、内積の分散は $d_k$、"
        "標準偏差（ばらつきの典型的な幅）は $\\sqrt{d_k}$ です。"
    )
    st.markdown(
        "身近な例は、表なら +1・裏なら −1 としてコインを投げ続けたときの合計です。"
        "1 回だけなら ±1 ですが、64 回分の合計はおよそ ±8（$= \\sqrt{64}$）の範囲でぶれます。"
        "対策は、内積 $s_{ij}$ を $\\sqrt{d_k}$ で割り、その商を softmax に渡すことです。"
        "これで $d_k$ がいくつでも、スコアのぶれ幅は 1 程度に収まります。"
    )
    st.latex(r"s_{ij} = \mathbf{q}_i\cdot\mathbf{k}_j,\qquad \tilde{s}_{ij} = \frac{s_{ij}}{\sqrt{d_k}}")
    st.caption("このアプリでは、割る前のスコアを $s$、$\\sqrt{d_k}$ で割ったあとのスコアを $\\tilde{s}$（エス・チルダ）と書きます。")


def hand() -> None:
    saturation_by_hand()
    g_kentei_example()


def saturation_by_hand() -> None:
    """softmax が尖る様子: the saturation table, its softmax rows, and (16, 8, 0) ÷ √64."""
    st.subheader("softmax が尖る様子")
    points = [tutor.scaling.saturation_point(s) for s in tb.SATURATION_SCORES]
    scaled_1608 = tutor.handcalc.scale_steps([tb.SATURATION_SCORES[2]], tb.SATURATION_D_K, name="S")
    fixed = tutor.scaling.saturation_point(scaled_1608.result[0])
    ui.show_table(weights_frame(points + [fixed], [vector(p.scores, 0) for p in points]
                           + [f"(16, 8, 0) ÷ √{tb.SATURATION_D_K} = {vector(fixed.scores, auto_digits(fixed.scores, 2))}"]))
    st.caption("勾配の大きさ = 重みをスコアで微分した値 $\\partial a_i / \\partial s_j$ の絶対値の最大。0 に近いほど学習の手がかりが弱い。"
               "10⁻⁴ より小さい値は 4.5×10⁻⁵（= 0.000045）の形で書いています。")
    for i, (label, s) in enumerate((("(2, 1, 0)", tb.SATURATION_SCORES[0]), ("(20, 10, 0)", tb.SATURATION_SCORES[1]))):
        ui.lazy_expander(f"softmax{label} の計算", lambda s=s: ui.handcalc.show_softmax_row(
            tutor.handcalc.softmax_row_step(s, digits=5)), key=f"scaling_softmax{i}")
    st.markdown(
        f"表の下の 2 行は $d_k = {tb.SATURATION_D_K}$ の例です。内積 $s = (16, 8, 0)$ を割らずに softmax へ通すと、"
        f"1 位の重みは **{prob_text(points[2].max_weight)}** に達し、残りの 2 つはほとんど 0 です。"
        f"$\\sqrt{{{tb.SATURATION_D_K}}}$ で割った $\\tilde{{s}}$ を使えば、重みは **{vector(fixed.weights, 3)}** となり、"
        "3 つのキーのどれからも情報が入ります。割り算の中身は次のとおりです。"
    )
    ui.handcalc.show_elements(scaled_1608.flat)


def g_kentei_example() -> None:
    """A practice calculation (one query, three keys, d_k = 2; the numbers of seed 004), with and
    without dividing by √2. Our own example: its heading makes no claim about the real exam."""
    st.subheader("計算練習：クエリ 1 つとキー 3 つ（$d_k = 2$）")
    st.markdown(f"クエリ $\\mathbf{{q}} = {vector(tb.G_QUERY[0], 0)}$、"
                f"キー ${', '.join(vector(k, 0) for k in tb.G_KEYS)}$、"
                f"バリュー ${', '.join(vector(v, 0) for v in tb.G_VALUES)}$ です。"
                "$\\sqrt{2}$ で割る場合と割らない場合を比べます。")
    st.caption(f"手で確かめられるように、各ステップの値を小数第 {G_DECIMALS} 位まで（第 {G_DECIMALS + 1} 位を四捨五入）求めてから"
               "次のステップに使っています。表示された数だけで計算し直すと、同じ結果になります。")
    g_on = tutor.handcalc.attention_steps(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, decimals=G_DECIMALS, query_labels=["q"],
                                          key_labels=G_KEY_LABELS)
    g_off = tutor.handcalc.attention_steps(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, scale=False, decimals=G_DECIMALS,
                                           query_labels=["q"], key_labels=G_KEY_LABELS)
    st.markdown("**スコア $s_{1j} = \\mathbf{q}\\cdot\\mathbf{k}_j$（割る前）**")
    ui.handcalc.show_elements(g_on.scores.flat)
    st.markdown("**$\\tilde{s}_{1j} = s_{1j}/\\sqrt{2}$ にしてから softmax（正しい手順）**")
    ui.handcalc.show_elements(g_on.scaled.flat)
    ui.handcalc.show_softmax_row(g_on.softmax.rows[0])
    st.markdown("**出力：バリューの重み付き和**")
    ui.handcalc.show_weighted_sum(g_on.weighted_sums[0])
    ui.lazy_expander("割らない場合（$s$ を直接 softmax へ通した計算）",
                     lambda: ui.handcalc.show_softmax_row(g_off.softmax.rows[0]), key="scaling_g_unscaled")
    ui.show_matrix([g_on.weights[0], g_off.weights[0]], ["√2 で割る（s̃）", "割らない（s）"], G_KEY_LABELS, digits=4,
                   caption="重みの比較（小数第 4 位）")
    st.markdown(
        f"割らないと、似ているキー（k1, k3）の重みが {number(g_on.weights[0, 0], 4)} から "
        f"{number(g_off.weights[0, 0], 4)} に増え、k2 は {number(g_on.weights[0, 1], 4)} から "
        f"{number(g_off.weights[0, 1], 4)} に減ります。$d_k = 2$ でも差は出ます。$d_k$ が大きいほど、この差は急に広がります。"
    )


def visual() -> None:
    st.subheader("乱数で測る：内積のばらつきは √d_k で増える")
    spread_experiment()


@st.fragment
def spread_experiment() -> None:
    """The seeded measurement as a fragment: a new seed reruns this part only."""
    seed = ui.number_input("乱数のシード", min_value=0, max_value=100_000, value=0, step=1, key="scaling_seed",
                           persist_state="session", help="同じシードなら同じ結果になります。")
    exp = ui.compute("scaling_spread", measured_spread, int(seed))
    if exp is not None:
        st.caption(f"各 $d_k$ について、成分が平均 0・分散 1 の乱数ベクトル q を {exp.n_samples} 個、"
                   f"それぞれにキー k を {exp.n_keys} 個作り、内積のばらつき（標準偏差）を測りました。")
        ui.cached_chart(spread_chart, exp, width="content")
        ui.show_table(pd.DataFrame(
            [[number(v, 2) for v in exp.raw_std], [number(v, 2) for v in exp.theory_std],
             [number(v, 2) for v in exp.scaled_std], [number(v, 3) for v in exp.raw_max_weight],
             [number(v, 3) for v in exp.scaled_max_weight]],
            index=["測った標準偏差", "√d_k（理論）", "÷√d_k 後の標準偏差", "1位の重みの平均（割らない）",
                   "1位の重みの平均（割る）"],
            columns=[f"d_k={d}" for d in exp.d_ks]).rename_axis("測った量"))
        st.markdown(
            f"測った幅は $\\sqrt{{d_k}}$ とよく合います（$d_k = {exp.d_ks[-1]}$ で {number(exp.raw_std[-1], 1)}、"
            f"理論 {number(exp.theory_std[-1], 1)}）。割らないと、キー {exp.n_keys} 個のうち 1 位の重みの平均は "
            f"$d_k = {exp.d_ks[-1]}$ で {number(exp.raw_max_weight[-1], 3)} とほぼ総取りです。"
            f"$\\sqrt{{d_k}}$ で割ると、どの $d_k$ でも幅は 1 前後、1 位の重みも {number(exp.scaled_max_weight[-1], 3)} 程度にとどまります。"
        )


def try_it() -> None:
    st.markdown("スコア $(2, 1, 0)$ に倍率 $c$ を掛けて softmax に通します。図の下のスライダーで $c$ を大きくして、"
                "重みが 1 つに集中し、勾配が消えていく様子を見てください。")
    # every c of the slider is computed here once; the browser picks the rows of the current c, so a
    # step costs no round trip (ui.figures.saturation_explorer)
    ui.cached_chart(saturation_explorer, tuple(BASE), tuple(KEYS3))
    st.caption("勾配の大きさは、ヤコビ行列 $\\partial a_i/\\partial s_j$ の成分の絶対値の最大です"
               "（2 つの重みが半々のときにいちばん大きく、1 つの重みが 1 に近づくほど 0 に近づきます）。")


ui.sections("scaling", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("scaling"))
