"""⑦-5 計算量: Table 1 of the paper, n = 100 / d = 512, the crossover, and tiled attention run live."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.figures import cost_chart
from ui.validate import format_number, format_tiny

ui.page("cost")

MAIN = ("self_attention", "recurrent")


def ops(x: int) -> str:
    return f"{int(x):,}"


def table1_markdown(rows) -> str:
    lines = ["| 層 | 計算量（1 層） | 逐次操作 | 最大経路長 |", "| :-- | :-: | :-: | :-: |"]
    for r in rows:
        lines.append(f"| {r.label} | ${r.complexity}$ | ${r.sequential}$ | ${r.max_path_length}$ |")
    return "\n".join(lines)


@st.cache_data(show_spinner=False, max_entries=32)
def run_tiled(n: int, d_k: int, block: int, causal: bool, seed: int):
    q, k, v = tutor.cost.random_qkv(n, d_k, np.random.default_rng(seed))
    return tutor.cost.compare_tiled(q, k, v, block, causal)


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 論文の表 1 を読み、自己注意（Self-Attention）と RNN の **計算量** の違いを説明できる。\n"
        f"- トークン {tb.COST_N} 個・{tb.COST_D} 次元の例に数を入れて、どちらの層の演算が少ないかを確かめる。\n"
        "- 系列が長くなると自己注意のコストが急に増える理由と、そのコストを抑える 2 つのアプローチを挙げ、"
        "よく一緒に名前の出る RoPE がコストを減らす方法ではないことを説明できる。"
    )

    ui.section("explain")
    st.markdown(
        "自己注意では、クエリとキーの内積をトークンのあらゆる組み合わせについて計算します。n 個のトークンなら組み合わせは "
        "$n^2$ 個、内積 1 回に掛け算が d 回なので、1 層の計算量は $O(n^2 \\cdot d)$ です。"
        "RNN は各時刻で $d \\times d$ の行列を 1 回掛け、それを n 時刻分くり返すので $O(n \\cdot d^2)$ になります。"
        "表 1 には計算量のほかに 2 つの列があります。**逐次操作** は、前の結果を待たないと始められない操作が何回続くか、"
        "**最大経路長** は、系列の両端にある 2 つの位置の間を情報が伝わるのに何段かかるかです。"
    )
    rows_paper = tutor.cost.table1(tb.COST_N, tb.COST_D)
    st.markdown(table1_markdown(rows_paper))
    st.caption("n：トークン数（系列長）、d：表現の次元、k：畳み込みのカーネル幅、r：制限付き自己注意が見る近傍の大きさ。")
    st.markdown(
        "- **逐次操作**：自己注意は全部の組を一斉に計算できるので $O(1)$。RNN は時刻 t の計算に時刻 t − 1 の結果が要るので "
        "$O(n)$ で、文が長いほど GPU の並列計算を活かせません。\n"
        "- **最大経路長**：自己注意では、どの 2 つの位置も 1 回の注意で直接結ばれます（$O(1)$）。RNN では端から端まで"
        "最大 n ステップを経由するので（$O(n)$）、遠く離れた語どうしの関係を学びにくくなります（勾配消失とも関係します）。"
    )
    st.markdown(
        f"並列に計算できる効果は、論文の学習時間に表れています。どちらの大きさのモデルも GPU {tb.PAPER_TRAIN_GPUS} 台のマシン 1 台で学習し、"
        f"ここで例に使う大きさの **base モデル**（$d_{{\\text{{model}}}} = {tb.PAPER_D_MODEL}$）はおよそ {tb.PAPER_BASE_TRAIN_HOURS} 時間、"
        f"幅を広げた **big モデル**（$d_{{\\text{{model}}}} = {tb.PAPER_BIG_D_MODEL}$）は {tb.PAPER_TRAIN_DAYS} 日で学習を終えました。"
        f"英語→フランス語の翻訳では、big モデルが {tb.PAPER_BLEU_EN_FR} BLEU（1 つのモデルでの成績として、発表時点で最も高い値。"
        f"学会発表版の本文では {tb.PAPER_BLEU_EN_FR_CONFERENCE}）、base モデルが {tb.PAPER_BASE_BLEU_EN_FR} BLEU です。"
        f"英語→ドイツ語では big が {tb.PAPER_BLEU_EN_DE}、base が {tb.PAPER_BASE_BLEU_EN_DE} BLEU です"
        "（BLEU は翻訳の自動評価の指標で、高いほど良い）。"
    )


def hand() -> None:
    sa, rnn = (tutor.cost.layer_cost(t, tb.COST_N, tb.COST_D) for t in MAIN)
    st.markdown(f"1 文が n = {tb.COST_N} トークン、表現の次元が d = {tb.COST_D}（論文の $d_{{\\text{{model}}}}$ と同じ）"
                "の場合を考え、O(·) の中身に数をそのまま代入します。")
    st.latex(rf"\begin{{aligned}}\text{{自己注意}}:\ n^2 \cdot d &= {tb.COST_N}^2 \times {tb.COST_D} \\ &= {sa.operations:,}"
             r"\end{aligned}".replace(",", "{,}"))
    st.latex(rf"\begin{{aligned}}\text{{再帰（RNN）}}:\ n \cdot d^2 &= {tb.COST_N} \times {tb.COST_D}^2 \\ &= {rnn.operations:,}"
             r"\end{aligned}".replace(",", "{,}"))
    c1, c2 = st.columns(2)
    c1.metric(f"自己注意 n²·d（n = {tb.COST_N}, d = {tb.COST_D}）", ops(sa.operations))
    c2.metric(f"再帰 n·d²（n = {tb.COST_N}, d = {tb.COST_D}）", ops(rnn.operations))
    cheap = tutor.cost.cheaper_layer(tb.COST_N, tb.COST_D)
    st.markdown("2 つの式の比は $n^2 d \\,/\\, (n d^2) = n / d$ です。トークン数 n が次元 d より少なければ自己注意、"
                f"多ければ RNN のほうが演算は少なくなり、境目は $n = d$ です。ここでは n = {tb.COST_N}、d = {tb.COST_D} なので、"
                f"軽いのは **{tutor.cost.LAYER_LABELS[cheap]}** です。")
    st.latex(r"n^2 d < n d^2 \iff n < d")


def visual() -> None:
    st.markdown(f"d = {tb.COST_D} のまま n を 1 から 4096 まで伸ばしたときの演算量です（両軸とも対数目盛）。")
    ns_vis = tutor.cost.cost_lengths(4096)
    curve = tutor.cost.cost_curve(ns_vis, tb.COST_D)
    ui.cached_chart(cost_chart, ns_vis, {t: curve[t] for t in MAIN}, tutor.cost.LAYER_LABELS,
                    crossover=tutor.cost.crossover(tb.COST_D), n_mark=tb.COST_N,
                    marks={t: tutor.cost.layer_cost(t, tb.COST_N, tb.COST_D).operations for t in MAIN},
                    title=f"層ごとの演算量（d = {tb.COST_D}）", width="stretch")
    st.caption(f"点は n = {tb.COST_N} のときの値です。2 本の線は n = d で交差し、それより右（長い系列）では自己注意のほうが重くなります。")


def try_it() -> None:
    st.subheader("n と d を変えて比べる")

    @st.fragment
    def try_sizes() -> None:
        """n と d を変えて比べる as a fragment, with the approaches below it (their example uses the same
        n and d): a new n or d reruns these two parts only, not the page. Defined here so that the
        approaches' heading is drawn by 試してみよう's own function (tests/test_misconceptions.py)."""
        c1, c2 = st.columns(2)
        with c1:
            n = ui.number_input("系列長 n", min_value=1, max_value=1_000_000, value=tb.COST_N, step=50, key="cost_n",
                                persist_state="session")
        with c2:
            d = st.select_slider("表現の次元 d", options=[64, 128, 256, 512, 768, 1024, 2048, 4096], value=tb.COST_D,
                                 key="cost_d", persist_state="session")
        rows_try = ui.compute("cost_try", tutor.cost.table1, int(n), int(d))
        if rows_try is not None:
            sa_try, rnn_try = rows_try[0], rows_try[1]
            c1, c2, c3 = st.columns(3)
            c1.metric("自己注意 n²·d", ops(sa_try.operations))
            c2.metric("再帰 n·d²", ops(rnn_try.operations))
            winner = tutor.cost.cheaper_layer(int(n), int(d))
            c3.metric("軽いのは", "同じ" if winner == "equal" else tutor.cost.LAYER_LABELS[winner])
            st.markdown(f"分かれ目は n = d = {tutor.cost.crossover(int(d)):,} です。")
            ns_try = tutor.cost.cost_lengths(max(4096, int(n)))
            curve_try = tutor.cost.cost_curve(ns_try, int(d))
            ui.cached_chart(cost_chart, ns_try, {t: curve_try[t] for t in MAIN}, tutor.cost.LAYER_LABELS,
                            crossover=tutor.cost.crossover(int(d)), n_mark=int(n),
                            marks={"self_attention": sa_try.operations, "recurrent": rnn_try.operations},
                            title=f"層ごとの演算量（d = {int(d):,}）", width="stretch")

        st.subheader("長い系列のコストを抑える 2 つのアプローチ")
        approaches(int(n), int(d), rows_try)

    try_sizes()

    st.subheader("タイル分割した Attention を実際に動かす")
    st.markdown("同じ Q・K・V（シード付きの乱数）で、ふつうの Attention と、キーをブロックに分けて少しずつ処理する "
                "Attention（オンライン softmax）を計算し、出力と、計算中に抱えるスコアの大きさを比べます。")
    try_tiled()
    online_softmax()


def approaches(n: int, d: int, rows_try) -> None:
    """The two approaches to a long sequence's cost, and RoPE's place; the example uses 試してみよう's n and d."""
    st.markdown(
        "1. **同じ計算を、メモリに優しい順番で行う（FlashAttention）**：$n \\times n$ のスコアの表を丸ごとメモリに置かず、"
        "ブロック単位で計算しては捨てていきます。答えは（丸め誤差を除いて）同じまま、遅いメモリとのやり取りが減ります。下で試せます。\n"
        "2. **注意を向ける相手を減らす**：全トークンではなく、近くの r 個や、まとめ役の少数のトークンだけを参照させると、"
        "組み合わせの数そのものが減ります。表 1 の「制限付き自己注意」（近傍 r 個だけ）は $O(r \\cdot n \\cdot d)$ です。"
    )
    st.markdown(
        "長い文脈の話では **RoPE**（⑦-1）の名前もよく一緒に出てきますが、これはコストを減らす方法ではありません。"
        "クエリとキーを位置に応じた角度だけ回転させる、位置の入れ方の一つです。すべての組のスコアを計算することは変わらないので、"
        "計算量は $O(n^2 \\cdot d)$ のままです。"
    )
    restricted = tutor.cost.layer_cost("restricted_self_attention", n, d, r=64)
    st.caption(f"例：n = {n:,}、d = {d:,} で近傍 r = {restricted.param} だけを見ると、"
               f"演算量 r·n·d = {ops(restricted.operations)}（全部を見ると {ops(rows_try[0].operations) if rows_try else '—'}）。")


@st.fragment
def try_tiled() -> None:
    """The tiled attention as a fragment: n, the block size, the seed or the mask rerun this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        n_t = st.select_slider("トークン数 n", options=[16, 32, 64, 128, 256, 512, 1024], value=256, key="cost_tile_n",
                               persist_state="session")
    with c2:
        block = st.select_slider("ブロックの大きさ", options=[4, 8, 16, 32, 64, 128], value=32, key="cost_tile_block",
                                 persist_state="session")
    with c3:
        seed = ui.number_input("シード", min_value=0, max_value=10_000, value=0, step=1, key="cost_tile_seed",
                               persist_state="session")
    causal = st.toggle("因果マスクあり（未来のブロックは計算しない）", value=False, key="cost_tile_causal",
                       persist_state="session")
    cmp = ui.compute("cost_tiled", run_tiled, int(n_t), 16, int(block), bool(causal), int(seed))
    if cmp is not None:
        c1, c2 = st.columns(2)
        c1.metric("出力の差の最大値 |ふつう − タイル|", format_tiny(cmp.max_diff, 3))
        c2.metric("計算したブロック / 飛ばしたブロック", f"{cmp.tiled.blocks_computed} / {cmp.tiled.blocks_skipped}")
        c1, c2 = st.columns(2)
        c1.metric("ふつうの Attention が抱えるスコア", f"{cmp.full_elements:,} 個",
                  help="n × n の表をまるごと作る")
        c2.metric("タイル版が一度に抱えるスコア", f"{cmp.peak_elements:,} 個", help="ブロック × ブロックの小さな表だけ")
        st.markdown(f"float64 で数えると、ふつうは **{tutor.cost.human_bytes(cmp.full_bytes)}**、"
                    f"タイル版は **{tutor.cost.human_bytes(cmp.tiled_bytes)}** です。"
                    "出力の差は上の最大値のとおり浮動小数点の丸め誤差の大きさしかなく、近似ではなく同じ計算です。")
        ui.show_matrix(np.vstack([cmp.plain_output[0, :4], cmp.tiled.output[0, :4]]), ["ふつう", "タイル"],
                       [f"出力 {j + 1}" for j in range(4)], digits=6, caption="1 行目の出力（先頭 4 列）")


def online_softmax() -> None:
    st.markdown("**オンライン softmax の中身**：1 行のスコア (1, 3, 2, 5) をブロック 2 つずつ読みながら、"
                "最大値 m と合計 l を更新します。新しいブロックで最大値が上がったら、それまでの合計に $e^{m - m'}$ を掛けて直します。")
    steps, probs = tutor.cost.online_softmax_trace(np.array([1.0, 3.0, 2.0, 5.0]), 2)
    ui.show_table(pd.DataFrame({
        "ブロック": [", ".join(format_number(x, 0) for x in s.block) for s in steps],
        "m（前）": [format_number(s.max_before, 0) for s in steps],
        "m'（後）": [format_number(s.max_after, 0) for s in steps],
        "補正 e^(m−m')": [format_number(s.correction, 4) for s in steps],
        "ブロックの和": [format_number(s.block_sum, 4) for s in steps],
        "l（後）": [format_number(s.sum_after, 4) for s in steps],
    }), hide_index=True)
    ui.show_matrix(np.vstack([probs, tutor.softmax(np.array([1.0, 3.0, 2.0, 5.0]))]), ["オンライン", "ふつうの softmax"],
                   ["1", "3", "2", "5"], digits=4, caption="最後に exp(スコア − m) / l を計算すると、ふつうの softmax と一致します。")


ui.sections("cost", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("cost"))
