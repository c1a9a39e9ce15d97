"""⑦-5 計算量: Table 1 of the paper, n = 100 / d = 512, the crossover, and tiled attention run live."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.figures import cost_chart
from ui.validate import format_number

ui.page("cost")

MAIN = ("self_attention", "recurrent")


def ops(x: int) -> str:
    return f"{int(x):,}"


def table1_markdown(rows) -> str:
    lines = ["| 層の種類 | 層ごとの計算量 | 逐次操作の数 | 位置間の最大経路長 |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.label} | ${r.complexity}$ | ${r.sequential}$ | ${r.max_path_length}$ |")
    return "\n".join(lines)


@st.cache_data(show_spinner=False, max_entries=32)
def run_tiled(n: int, d_k: int, block: int, causal: bool, seed: int):
    q, k, v = tutor.random_qkv(n, d_k, np.random.default_rng(seed))
    return tutor.compare_tiled(q, k, v, block, causal)


# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- 論文の表 1 を読み、Self-Attention と RNN の **計算量** の違いを説明できる。\n"
    "- n = 100、d = 512 の例で、どちらの層が軽いかを数で確かめる。\n"
    "- 長い系列で Self-Attention が重くなる理由と、それを和らげる 3 つの方向を知る。"
)

ui.section("explain")
st.markdown(
    "Self-Attention は、すべてのトークンの組について内積をとります。トークンが n 個なら組は $n^2$ 通りで、"
    "1 組あたり d 回の掛け算が要るので、層ごとの計算量は $O(n^2 \\cdot d)$ です。"
    "RNN は 1 トークンごとに $d \\times d$ の行列を掛けるので $O(n \\cdot d^2)$ です。"
    "表 1 は、ほかに「順番に待たなければならない操作の数」と「離れた 2 つの位置を情報が行き来するまでの段数」も比べています。"
)
rows_paper = tutor.table1(tb.COST_N, tb.COST_D)
st.markdown(table1_markdown(rows_paper))
st.caption("n：系列長、d：表現の次元、k：畳み込みのカーネル幅、r：制限付き自己注意で見る近傍の大きさ。")
st.markdown(
    "- **逐次操作の数**：Self-Attention はすべての組を同時に計算できるので $O(1)$。RNN は前の時刻の結果を待つので $O(n)$ で、"
    "学習を並列化しにくい原因です。\n"
    "- **最大経路長**：Self-Attention では、どの 2 つの位置も 1 段で直接つながります（$O(1)$）。"
    "RNN では最大 n 段を伝わる必要があり、遠い位置の関係を学ぶのが難しくなります（勾配消失の問題ともつながります）。"
)

# ---------------------------------------------------------------------------
ui.section("hand")
sa, rnn = (tutor.layer_cost(t, tb.COST_N, tb.COST_D) for t in MAIN)
st.markdown(f"論文の設定に近い n = {tb.COST_N}（1 文のトークン数）、d = {tb.COST_D}（$d_{{\\text{{model}}}}$）で、"
            "O(·) の中の式に数を入れてみます。")
st.latex(rf"\begin{{aligned}}\text{{自己注意}}:\ n^2 \cdot d &= {tb.COST_N}^2 \times {tb.COST_D} \\ &= {sa.operations:,}"
         r"\end{aligned}".replace(",", "{,}"))
st.latex(rf"\begin{{aligned}}\text{{再帰（RNN）}}:\ n \cdot d^2 &= {tb.COST_N} \times {tb.COST_D}^2 \\ &= {rnn.operations:,}"
         r"\end{aligned}".replace(",", "{,}"))
c1, c2 = st.columns(2)
c1.metric("自己注意 n²·d（n = 100, d = 512）", ops(sa.operations))
c2.metric("再帰 n·d²（n = 100, d = 512）", ops(rnn.operations))
cheap = tutor.cheaper_layer(tb.COST_N, tb.COST_D)
st.markdown(f"n = {tb.COST_N} が d = {tb.COST_D} より小さいので、軽いのは **{tutor.LAYER_LABELS[cheap]}** です。"
            "2 つの式を $n \\cdot d$ で割ると $n$ と $d$ の比較になるので、分かれ目は $n = d$ です。")
st.latex(r"n^2 d < n d^2 \iff n < d")

# ---------------------------------------------------------------------------
ui.section("visual")
st.markdown(f"d = {tb.COST_D} のまま n を 1 から 4096 まで伸ばしたときの演算量です（両軸とも対数目盛）。")
ns_vis = tutor.cost_lengths(4096)
curve = tutor.cost_curve(ns_vis, tb.COST_D)
ui.widgets.cached_chart(cost_chart, ns_vis, {t: curve[t] for t in MAIN}, tutor.LAYER_LABELS,
                           crossover=tutor.crossover(tb.COST_D), n_mark=tb.COST_N,
                           marks={t: tutor.layer_cost(t, tb.COST_N, tb.COST_D).operations for t in MAIN},
                           title=f"層ごとの演算量（d = {tb.COST_D}）", width="stretch")
st.caption("点は n = 100 の値。2 本の線は n = d で交わり、そこより右では自己注意の方が重くなります。")

# ---------------------------------------------------------------------------
ui.section("try")
st.subheader("n と d を変えて比べる")
c1, c2 = st.columns(2)
with c1:
    n = st.number_input("系列長 n", min_value=1, max_value=1_000_000, value=tb.COST_N, step=50, key="cost_n",
                        persist_state="session")
with c2:
    d = st.select_slider("表現の次元 d", options=[64, 128, 256, 512, 768, 1024, 2048, 4096], value=tb.COST_D,
                         key="cost_d", persist_state="session")
rows_try = ui.compute("cost_try", tutor.table1, int(n), int(d))
if rows_try is not None:
    sa_try, rnn_try = rows_try[0], rows_try[1]
    c1, c2, c3 = st.columns(3)
    c1.metric("自己注意 n²·d", ops(sa_try.operations))
    c2.metric("再帰 n·d²", ops(rnn_try.operations))
    winner = tutor.cheaper_layer(int(n), int(d))
    c3.metric("軽いのは", "同じ" if winner == "equal" else tutor.LAYER_LABELS[winner])
    st.markdown(f"分かれ目は n = d = {tutor.crossover(int(d)):,} です。")
    ns_try = tutor.cost_lengths(max(4096, int(n)))
    curve_try = tutor.cost_curve(ns_try, int(d))
    ui.widgets.cached_chart(cost_chart, ns_try, {t: curve_try[t] for t in MAIN}, tutor.LAYER_LABELS,
                               crossover=tutor.crossover(int(d)), n_mark=int(n),
                               marks={"self_attention": sa_try.operations, "recurrent": rnn_try.operations},
                               title=f"層ごとの演算量（d = {int(d):,}）", width="stretch")

st.subheader("長い系列への 3 つの処方")
st.markdown(
    "1. **計算の順番を工夫する（FlashAttention の考え方）**：結果はまったく同じまま、$n \\times n$ の表を一度に作らず、"
    "小さなブロックごとに計算してメモリの読み書きを減らします。下で実際に動かします。\n"
    "2. **見る相手を絞る**：近くのトークンや一部の代表だけを見ると、組の数が減ります。"
    "表 1 の「制限付き自己注意」（近傍 r 個だけを見る）は $O(r \\cdot n \\cdot d)$ です。\n"
    "3. **位置の表し方を変える（RoPE）**：クエリとキーを回転させて位置の差を入れる方式は、"
    "学習より長い文章にも比較的なじみやすく、長い文脈を扱うモデルで広く使われています。"
)
restricted = tutor.layer_cost("restricted_self_attention", int(n), int(d), r=64)
st.caption(f"例：n = {int(n):,}、d = {int(d):,} で近傍 r = {restricted.param} だけを見ると、"
           f"演算量 r·n·d = {ops(restricted.operations)}（全部を見ると {ops(rows_try[0].operations) if rows_try else '—'}）。")

st.subheader("タイル分割した Attention を実際に動かす")
st.markdown("同じ Q・K・V（シード付きの乱数）で、ふつうの Attention と、キーをブロックに分けて少しずつ処理する "
            "Attention（オンライン softmax）を計算し、出力と、計算中に抱えるスコアの大きさを比べます。")
c1, c2, c3 = st.columns(3)
with c1:
    n_t = st.select_slider("トークン数 n", options=[16, 32, 64, 128, 256, 512, 1024], value=256, key="cost_tile_n",
                           persist_state="session")
with c2:
    block = st.select_slider("ブロックの大きさ", options=[4, 8, 16, 32, 64, 128], value=32, key="cost_tile_block",
                             persist_state="session")
with c3:
    seed = st.number_input("シード", min_value=0, max_value=10_000, value=0, step=1, key="cost_tile_seed",
                           persist_state="session")
causal = st.toggle("因果マスクあり（未来のブロックは計算しない）", value=False, key="cost_tile_causal",
                   persist_state="session")
cmp = ui.compute("cost_tiled", run_tiled, int(n_t), 16, int(block), bool(causal), int(seed))
if cmp is not None:
    c1, c2 = st.columns(2)
    c1.metric("出力の差の最大値 |ふつう − タイル|", f"{cmp.max_diff:.1e}")
    c2.metric("計算したブロック / 飛ばしたブロック", f"{cmp.tiled.blocks_computed} / {cmp.tiled.blocks_skipped}")
    c1, c2 = st.columns(2)
    c1.metric("ふつうの Attention が抱えるスコア", f"{cmp.full_elements:,} 個",
              help="n × n の表をまるごと作る")
    c2.metric("タイル版が一度に抱えるスコア", f"{cmp.peak_elements:,} 個", help="ブロック × ブロックの小さな表だけ")
    st.markdown(f"float64 で数えると、ふつうは **{tutor.human_bytes(cmp.full_bytes)}**、"
                f"タイル版は **{tutor.human_bytes(cmp.tiled_bytes)}** です。"
                "差は丸め誤差（10⁻¹⁵ 程度）だけで、結果は同じです。近似ではありません。")
    ui.show_matrix(np.vstack([cmp.plain_output[0, :4], cmp.tiled.output[0, :4]]), ["ふつう", "タイル"],
                   [f"出力 {j + 1}" for j in range(4)], digits=6, caption="1 行目の出力（先頭 4 列）")

st.markdown("**オンライン softmax の中身**：1 行のスコア (1, 3, 2, 5) をブロック 2 つずつ読みながら、"
            "最大値 m と合計 l を更新します。新しいブロックで最大値が上がったら、それまでの合計に $e^{m - m'}$ を掛けて直します。")
steps, probs = tutor.online_softmax_trace(np.array([1.0, 3.0, 2.0, 5.0]), 2)
st.dataframe(pd.DataFrame({
    "ブロック": [", ".join(format_number(x, 0) for x in s.block) for s in steps],
    "m（前）": [format_number(s.max_before, 0) for s in steps],
    "m'（後）": [format_number(s.max_after, 0) for s in steps],
    "補正 e^(m−m')": [format_number(s.correction, 4) for s in steps],
    "ブロックの和": [format_number(s.block_sum, 4) for s in steps],
    "l（後）": [format_number(s.sum_after, 4) for s in steps],
}), hide_index=True)
ui.show_matrix(np.vstack([probs, tutor.softmax(np.array([1.0, 3.0, 2.0, 5.0]))]), ["オンライン", "ふつうの softmax"],
               ["1", "3", "2", "5"], digits=4, caption="最後に exp(スコア − m) / l を計算すると、ふつうの softmax と一致します。")

ui.quiz_section("cost")
ui.next_link("cost")
