"""⑩-3 モデルと推論を軽くする：モデルの軽量化とエッジAI（蒸留・量子化・プルーニングと宝くじ仮説）、
推論と長い系列のコスト（KV キャッシュ・MQA/GQA、スライディングウィンドウとグローバルなトークン）。

Every number comes from tutor.efficient: the soft targets at each temperature and the distillation
loss, a quantized vector's scale, integers, restored values and errors, the weights' memory per bit
width, the pruned weights and the lottery ticket's rewound ones, the KV cache's bytes, and the score
pairs of a sliding window against full attention.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import efficient as ef, numfmt

ui.page("efficient")

CLASSES = list(ef.DEMO_CLASSES)
LOGITS = np.array([ef.DEMO_TEACHER, ef.DEMO_STUDENT])                # rows: teacher, student
LOGITS_KEY, T_KEY, ALPHA_KEY = "efficient_logits", "efficient_t", "efficient_alpha"
QX_KEY, BITS_KEY, SCHEME_KEY = "efficient_qx", "efficient_bits", "efficient_scheme"
SPARSITY_KEY = "efficient_sparsity"
MODEL_N = 7_000_000_000                                              # a 7B model's weights
KV_KEYS = {"layers": ("efficient_kv_layers", 32), "heads": ("efficient_kv_heads", 32),
           "kv_heads": ("efficient_kv_groups", 8), "d_head": ("efficient_kv_d_head", 128),
           "context": ("efficient_kv_context", 4096), "batch": ("efficient_kv_batch", 1)}
KV_CONTEXTS = (512, 1024, 2048, 4096, 8192, 16384, 32768)
WIN_KEYS = {"n": ("efficient_win_n", ef.DEMO_N), "radius": ("efficient_win_r", ef.DEMO_RADIUS),
            "n_global": ("efficient_win_g", ef.DEMO_GLOBAL)}
SPEC_ALPHA, SPEC_GAMMA = 0.8, 4                                       # a draft accepted 80 %, 4 tokens drafted
MOE_EXPERTS, MOE_TOP_K = 8, 2


def count(x) -> str:
    return numfmt.grouped(x)


def tcount(x) -> str:
    """count() inside LaTeX: the thousands separators as {,}."""
    return count(x).replace(",", "{,}")


def size(nbytes: int) -> str:
    """Bytes in GiB from 1 GiB up, else MiB or KiB (numbers written by tutor.numfmt)."""
    if nbytes >= ef.GIB:
        return f"{numfmt.trimmed(ef.in_gib(nbytes), 2)} GiB"
    if nbytes >= ef.MIB:
        return f"{numfmt.trimmed(ef.in_mib(nbytes), 2)} MiB"
    return f"{numfmt.trimmed(ef.in_kib(nbytes), 2)} KiB"


def saved(keys: dict) -> dict:
    """The whole numbers of a 試してみよう part (their defaults until the learner changes them)."""
    return {name: int(st.session_state.get(key, default)) for name, (key, default) in keys.items()}


def vec(values, digits: int = 3) -> str:
    """A row for st.latex with ``digits`` fixed decimals: (0.665,\\ 0.245,\\ 0.090)."""
    return ui.handcalc.vector(values, digits, tex=True)


def tvec(values, digits: int = 4) -> str:
    """A row for st.latex as the values are written (trailing zeros dropped): (0.5,\\ -1.27)."""
    return "(" + ",\\ ".join(numfmt.trimmed(float(v), digits) for v in np.ravel(values)) + ")"


# ---------------------------------------------------------------------------
# tables (display only: every number is the engine's)
# ---------------------------------------------------------------------------
def soft_frame(logits: tuple, temperatures: tuple) -> pd.DataFrame:
    rows = [{"温度 T": numfmt.trimmed(t, 2), **{c: numfmt.fixed(p, 3) for c, p in zip(CLASSES, ef.soft_targets(logits, t).probs)}}
            for t in temperatures]
    return pd.DataFrame(rows)


def quant_frame(r: ef.Quantized) -> pd.DataFrame:
    return pd.DataFrame({"x": [numfmt.trimmed(v, 4) for v in r.x], "x / S + Z": [numfmt.trimmed(v, 2) for v in r.steps],
                         "整数 q": [count(v) for v in r.q], "戻した値": [numfmt.trimmed(v, 4) for v in r.dequantized],
                         "誤差": [numfmt.trimmed(v, 4) for v in r.error]})


def memory_frame(n_params: int) -> pd.DataFrame:
    return pd.DataFrame({"1 つのビット数": [f"{b} ビット" for b, _ in ef.memory_table(n_params)],
                         "重みのメモリ": [f"{numfmt.trimmed(ef.in_gb(v), 1)} GB" for _, v in ef.memory_table(n_params)]})


def kv_frame(layers: int, heads: int, d_head: int, context: int) -> pd.DataFrame:
    rows = []
    for label, groups in (("MHA（全ヘッドが自分の K・V）", heads), ("GQA（8 組を共有）", 8), ("MQA（1 組を共有）", 1)):
        c = ef.kv_cache(layers, groups, d_head, context)
        rows.append({"方式": label, "KV ヘッド数": groups, "1 トークンあたり": size(c.per_token), "全体": size(c.total),
                     "MHA の何分の 1": ef.kv_saving(heads, groups)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- **モデルの軽量化** が必要な理由（**エッジAI**：端末の上での推論）と、3 つの手法 **蒸留・量子化・プルーニング** が"
        "それぞれ何を減らすかを説明できる。\n"
        "- 蒸留の **ソフトターゲット** $\\mathrm{softmax}(z/T)$ を温度ごとに計算し、温度の向きと損失の $T^2$ を説明できる。\n"
        "- **量子化** のスケール・整数・戻した値と誤差を計算し、ビット数から重みのメモリを見積もれる。\n"
        "- **プルーニング** で小さい重みから 0 にし、**宝くじ仮説** の手順（学習前の初期値に戻す）を説明できる。\n"
        "- 発展：推論の **KV キャッシュ** と MQA/GQA、長い系列の **スパースな注意**、FlashAttention・投機的デコーディング・MoE。"
    )
    ui.section("explain")
    st.subheader("なぜ軽くするのか：モデルの軽量化とエッジAI")
    explain_why()
    st.subheader("蒸留：大きな教師から小さな生徒へ")
    explain_distill()
    st.subheader("量子化：1 つの値を少ないビットで")
    explain_quant()
    st.subheader("プルーニングと宝くじ仮説")
    explain_prune()
    ui.folded_topics("推論と長い系列を軽くする（発展）", (
        ("KV キャッシュと MQA・GQA", explain_kv, "kv"),
        ("長い系列の注意：スパースな注意と線形注意", explain_sparse, "sparse"),
        ("FlashAttention：同じ計算をメモリに優しく", explain_flash, "flash"),
        ("投機的デコーディングと Mixture of Experts", explain_more, "more")), key="efficient")


def explain_why() -> None:
    st.markdown(
        "大きなモデルほど精度は高くなりますが、メモリ・計算・電力も多く使います。スマートフォンやカメラ、車のように"
        "データが生まれる機器の上で推論するのが **エッジAI** で、応答が速く、通信がなくても動き、データを外に出さずに済みます。"
        "ただし機器の計算資源・メモリ・電力には限りがあるので、学習を終えたモデルを推論のために小さく速くします。"
        "これが **モデルの軽量化**（モデル圧縮）です。試験では 3 つの手法を **何を減らすか** で見分けます："
        "**蒸留** はモデルそのものの大きさ（小さな生徒モデルを作る）、**量子化** は 1 つの値のビット数、"
        "**プルーニング** は重みの数です。組み合わせて使うこともできます。"
    )


def explain_distill() -> None:
    st.markdown(
        "**蒸留**（知識蒸留、Hinton ら、2015 年）では、学習済みの大きな **教師モデル** の出力を手本に、小さな **生徒モデル** を"
        "学習させます。正解ラベル（**ハードターゲット**）では正解のクラスだけが 1 ですが、教師の確率には「この猫の画像は犬に少し"
        "似ていて、車には似ていない」という情報も入っています。ロジット $z$ を温度 $T$ で割ってから softmax をとると、順位はそのままで"
        "小さな確率が持ち上がり、この情報が伝わりやすくなります。これが **ソフトターゲット** です。"
    )
    st.latex(r"p_i = \mathrm{softmax}(z/T)_i = \frac{e^{z_i/T}}{\sum_j e^{z_j/T}}")
    st.markdown(
        "生徒の確率 $q$ も同じ $T$ で計算して、交差エントロピー $H(p, q) = -\\sum_i p_i \\log q_i$ を小さくします。"
        "温度で割ると勾配が $1/T^2$ に縮むので、論文はこの項に $T^2$ を掛け、正解ラベルとの交差エントロピー（温度 1）との"
        "重み付き平均を損失にしました。学習を終えた生徒は温度 1 で使います。試験では「教師のソフトターゲットを生徒が学ぶ」ことと、"
        "温度を上げると分布がなだらかになる向きが問われます。"
    )
    st.latex(r"\begin{aligned}L &= \alpha\, T^2\, H\!\left(p^{(T)}, q^{(T)}\right) \\ &\quad + (1-\alpha)\, H\!\left(y, q^{(1)}\right)\end{aligned}")


def explain_quant() -> None:
    st.markdown(
        "**量子化** は、重み（や活性化）を 32 ビットの浮動小数点数より少ないビット数で表す方法です。値を刻み $S$（スケール）の"
        "整数倍に丸め、整数 $q$ だけを保存します。8 ビットなら重みのメモリは 32 ビットの 4 分の 1、4 ビットなら 8 分の 1 です。"
        "丸めるので誤差が残ります（最大で $S/2$）。Jacob ら（2017 年）は、実数を $r = S(q - Z)$（$Z$ はゼロ点）と表して"
        "8 ビットの整数だけで推論する方式と、丸めを見込んだ学習を示しました。試験では「ビット数を減らしてメモリと計算を減らし、"
        "精度は少し下がりうる」が要点です。"
    )
    st.latex(r"q = \mathrm{round}(x/S) + Z,\qquad \hat{x} = S\,(q - Z)")


def explain_prune() -> None:
    st.markdown(
        "**プルーニング**（枝刈り）は、出力への影響が小さい重みやニューロンを取り除く方法です。代表は、絶対値の小さい重みから"
        "決めた割合だけ 0 にする **大きさによる枝刈り** で、その後に残った重みを学習し直して精度を取り戻します。Han ら（2015 年）は"
        "枝刈りで結合を 9〜13 分の 1 にし、量子化とハフマン符号化も組み合わせて、AlexNet の保存容量を精度を落とさずに"
        " 35 分の 1 にしました（Deep Compression）。"
    )
    st.markdown(
        "**宝くじ仮説**（Frankle と Carbin、2018 年）は、ランダムに初期化した大きなネットワークの中に、単独で学習しても元と同等の"
        "精度に届く小さな部分ネットワーク（**当たりくじ**）が含まれている、という主張です。学習 → 枝刈り → 残った重みを "
        "**学習前の初期値に戻す**、という手順で見つかり、新しい乱数で初期化し直すと届きにくいことが要点です。"
    )


def explain_kv() -> None:
    st.markdown(
        "1 トークンずつ生成するとき、因果マスクがあるので過去のトークンのキーとバリューは後から変わりません。"
        "そこで各層のキーとバリューを保存しておき（**KV キャッシュ**）、新しいトークンではそのクエリ・キー・バリューだけを計算します。"
        "クエリは保存しません。その代わり、メモリが文脈の長さとバッチに比例して増えます。"
    )
    st.latex(r"\begin{aligned}\text{KV キャッシュ} &= 2 \times L \times n_{\text{kv}} \\ &\quad \times d_{\text{head}} \times T \\"
             r"&\quad \times \text{バイト数} \times B\end{aligned}")
    st.markdown(
        "**Multi-Query Attention（MQA**、Shazeer、2019 年）は全部のクエリのヘッドで 1 組のキー・バリューを共有し、"
        "**Grouped-Query Attention（GQA**、Ainslie ら、2023 年）はヘッドをいくつかの組に分けて組ごとに共有します。"
        "KV キャッシュは $n_{\\text{head}} / n_{\\text{kv}}$ 分の 1 になります。GQA は MQA に近い速さで、通常の注意に近い精度を保ちます。"
    )


def explain_sparse() -> None:
    st.markdown(
        "自己注意はすべての組、$n^2$ 個のスコアを計算します（⑦-5）。**Longformer**（Beltagy ら、2020 年）は、各トークンが前後の窓の中"
        "だけに注意する **スライディングウィンドウ注意** に、分類用の [CLS] など少数の **グローバルなトークン**（すべてのトークンと"
        "注意し合う）を組み合わせ、スコアを窓の幅 $w$ として $n \\cdot w$ 程度に減らしました。**BigBird**（Zaheer ら、2020 年）は"
        "さらにランダムに選んだトークンへの注意を加え、同じ機器で約 8 倍長い系列を扱えるようにしました。どちらも注意する相手を"
        "限る（スパースにする）方法です。"
    )
    st.markdown(
        "**線形注意**（Katharopoulos ら、2020 年）は、softmax を特徴写像 $\\phi$ の内積に置き換え、$\\phi(Q)\\,(\\phi(K)^\\top V)$ の"
        "順に計算します。$n \\times n$ の表を作らないので、計算量が系列長に比例します。こちらは注意する相手を減らすのではなく、"
        "計算の順番を変える方法です（結果は softmax の注意とは別物になります）。"
    )


def explain_flash() -> None:
    st.markdown(
        "**FlashAttention**（Dao ら、2022 年）は、注意をブロックに分けて softmax の途中の最大値と合計を持ち回り、"
        "$n \\times n$ の重みの表を GPU の遅いメモリに書き出さずに計算します。近似ではなく、出力は通常の注意と同じで、"
        "掛け算の回数も $n^2$ のままです。速くなるのはメモリの読み書きが減るからです"
        f"（[{ui.PAGE_BY_KEY['cost'].label}]({ui.section_url('cost', 'try')}) でタイル分割を確かめられます）。"
    )


def explain_more() -> None:
    tokens = ef.speculative_tokens(SPEC_ALPHA, SPEC_GAMMA)
    moe = ef.moe_params(1, MOE_EXPERTS, MOE_TOP_K)
    st.markdown(
        "**投機的デコーディング**（Leviathan ら、2022 年）では、小さなモデルが数トークンを先に下書きし、大きなモデルがそれを 1 回の"
        "計算でまとめて検証します。受け入れられない分は大きなモデルの分布から選び直すので、出力の分布は大きなモデルだけで生成した"
        "場合と同じです。下書きの各トークンが受け入れられる確率を $\\alpha$、下書きの数を $\\gamma$ とすると、大きなモデル 1 回あたり"
        f"平均 $(1-\\alpha^{{\\gamma+1}})/(1-\\alpha)$ トークン進みます（$\\alpha = {numfmt.trimmed(SPEC_ALPHA, 1)}$、"
        f"$\\gamma = {SPEC_GAMMA}$ なら {numfmt.trimmed(tokens, 2)} トークン）。"
    )
    st.markdown(
        "**Mixture of Experts（MoE）** は、FFN を多数の **専門家** に分け、ルーターが各トークンを一部の専門家だけに送ります。"
        "Shazeer ら（2017 年）は最大 1,370 億パラメータの MoE 層を作り、Switch Transformer（Fedus ら、2021 年）は各トークンを"
        f"1 つの専門家だけに送る形で 1 兆パラメータ級まで大きくしました。専門家 {moe.experts} 個のうち {moe.top_k} 個を選ぶなら、"
        f"1 トークンが通るのは専門家のパラメータの {count(moe.active)}/{count(moe.total)} だけです。保存するパラメータは増えますが、"
        "1 トークンの計算はあまり増えません。"
    )


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("蒸留：温度でソフトターゲットを作る")
    hand_distill()
    st.subheader("量子化：8 ビットの整数に直す")
    hand_quant()
    st.subheader("プルーニング：小さい重みから 0 にする")
    hand_prune()
    st.subheader("KV キャッシュのメモリ")
    hand_kv()
    st.subheader("スライディングウィンドウ注意のスコアの数")
    hand_window()


def hand_distill() -> None:
    two = ef.soft_targets(ef.DEMO_TEACHER, 2)
    st.markdown(f"教師のロジットが {'・'.join(CLASSES)} の順に $z = {vec(ef.DEMO_TEACHER, 0)}$ のとき、$T = 2$ では：")
    st.latex(rf"\begin{{aligned}}z/T &= {vec(two.scaled, 0)} \\ e^{{z/T}} &= {vec(two.exps)} \\"
             rf"p &= {vec(two.probs)}\end{{aligned}}")
    st.caption(f"e の累乗をその合計（{numfmt.fixed(two.exp_sum, 3)}）で割ると確率になります。温度ごとに並べると：")
    ui.cached_table(soft_frame, ef.DEMO_TEACHER, ef.DEMO_TEMPERATURES, hide_index=True)
    d = ef.distillation_loss(ef.DEMO_TEACHER, ef.DEMO_STUDENT, 2, 0, ef.DEMO_ALPHA)
    st.markdown(f"生徒のロジット $z' = {vec(ef.DEMO_STUDENT, 0)}$（正解は{CLASSES[d.label]}）、$\\alpha = {numfmt.trimmed(d.alpha, 1)}$ で損失を組み立てます：")
    st.latex(rf"\begin{{aligned}}q^{{(2)}} &= {vec(d.student.probs)} \\ H(p, q) &= {numfmt.fixed(d.soft_ce, 3)} \\"
             rf"T^2 H &= {numfmt.trimmed(d.t2, 2)} \times {numfmt.fixed(d.soft_ce, 3)} = {numfmt.fixed(d.soft, 3)} \\"
             rf"-\log q^{{(1)}}_{{\text{{{CLASSES[d.label]}}}}} &= {numfmt.fixed(d.hard, 3)} \\"
             rf"L &= {numfmt.fixed(d.total, 3)}\end{{aligned}}")
    st.caption("q⁽¹⁾ は温度 1 の生徒の確率。ソフトターゲットの項に T² を掛けないと、正解ラベルとの項に比べて小さくなりすぎます。")


def hand_quant() -> None:
    r = ef.quantize(ef.DEMO_WEIGHTS, 8)
    st.markdown(f"重み $x = {tvec(ef.DEMO_WEIGHTS)}$ を 8 ビットの整数 $-{r.qmax}$〜${r.qmax}$ に対称に量子化します（ゼロ点 0）。"
                "絶対値の最大が端の整数になるようにスケールを決めます。")
    st.latex(rf"S = \frac{{\max|x|}}{{{r.qmax}}} = \frac{{{numfmt.trimmed(r.absmax, 4)}}}{{{r.qmax}}} = {numfmt.trimmed(r.scale, 4)}")
    ui.cached_table(quant_frame, r, hide_index=True)
    cut = ef.quantize_truncated(ef.DEMO_WEIGHTS, 8)
    st.markdown(f"誤差はどれも $S/2 = {numfmt.trimmed(r.half_step, 4)}$ 以下です。$x/S$ を四捨五入せずに切り捨てると、"
                f"第 4 成分は ${count(cut.q[3])}$ になり、誤差の大きさが {numfmt.trimmed(cut.abs_error[3], 4)} に増えます。"
                "重みのメモリはビット数に比例します（70 億パラメータの場合）：")
    ui.cached_table(memory_frame, MODEL_N, hide_index=True)


def hand_prune() -> None:
    p = ef.magnitude_prune(ef.DEMO_MATRIX, 0.5)
    rows, cols = ["1", "2", "3"], ["1", "2", "3", "4"]
    st.markdown(f"学習した 3×4 の重みのうち {numfmt.percent(p.sparsity)}（{p.removed} 個）を、絶対値の小さい順に 0 にします。"
                f"絶対値 {numfmt.trimmed(p.threshold, 2)} 以下の {p.removed} 個が消え、{p.kept} 個が残ります。")
    ui.show_matrix(ef.DEMO_MATRIX, rows, cols, digits=2, caption="学習した重み W")
    ui.show_matrix(p.pruned, rows, cols, digits=2, caption="枝刈りした重み（この後、残りを学習し直す）")
    t = ef.winning_ticket(ef.DEMO_INIT, ef.DEMO_MATRIX, 0.5)
    st.markdown("宝くじ仮説の手順では、同じ位置を残したまま、値を **学習前の初期値** に戻してから学習し直します：")
    ui.show_matrix(t.ticket, rows, cols, digits=2, caption="当たりくじの候補：初期値 × 残す位置")


def hand_kv() -> None:
    c = ef.kv_cache(ef.KV_7B["layers"], ef.KV_7B["heads"], ef.KV_7B["d_head"], 4096)
    st.markdown(f"{c.layers} 層・{ef.KV_7B['heads']} ヘッド・$d_{{\\text{{head}}}} = {c.d_head}$ の 70 億パラメータ級のモデル"
                "（Llama 2 7B と同じ形）で、各値を 16 ビット（2 バイト）で保存します。")
    st.latex(rf"\begin{{aligned}}\text{{1 トークン}} &= 2 \times {c.layers} \times {c.kv_heads} \\ &\quad \times {c.d_head} \times 2 \\"
             rf"&= {tcount(c.per_token)}\ \text{{バイト}} \\ \text{{{tcount(c.context)} トークン}} &= {tcount(c.per_token)} \times "
             rf"{tcount(c.context)} \\ &= {tcount(c.total)}\ \text{{バイト}}\end{{aligned}}")
    st.markdown(f"1 本の系列で **{size(c.total)}**（1 GiB = $2^{{30}}$ バイト）。クエリのヘッド {ef.KV_7B['heads']} 個に対して、"
                "キー・バリューのヘッドを減らすと次のようになります。")
    ui.cached_table(kv_frame, ef.KV_7B["layers"], ef.KV_7B["heads"], ef.KV_7B["d_head"], 4096, hide_index=True)


def hand_window() -> None:
    w, g = ef.window_pairs(ef.DEMO_N, ef.DEMO_RADIUS), ef.window_pairs(ef.DEMO_N, ef.DEMO_RADIUS, ef.DEMO_GLOBAL)
    n, r = w.n, w.radius
    st.markdown(f"長さ $n = {n}$ の系列で、各トークンが左右 $r = {r}$ 個ずつ（窓の幅 $2r + 1 = {w.width}$）に注意します。")
    st.latex(rf"\begin{{aligned}}n(2r+1) &= {n} \times {w.width} = {ef.window_pairs_no_edges(n, r)} \\"
             rf"\text{{端で切れる分}} &= r(r+1) = {ef.window_edge_cut(r)} \\ \text{{窓のスコア}} &= {w.pairs}\end{{aligned}}")
    st.markdown(f"すべての組なら ${n}^2 = {w.full}$ 個なので、{numfmt.percent(w.share)} で済みます。先頭の 1 トークンを"
                f"グローバル（すべてと注意し合う）にすると {g.pairs} 個です。$n$ を 2 倍にすると、窓のスコアはほぼ 2 倍、"
                "すべての組は 4 倍になります。")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("温度を上げるとソフトターゲットがなだらかになる")
    visual_soft()
    st.subheader("ビット数を減らすと量子化の誤差が増える")
    visual_quant()
    st.subheader("枝刈りで残る重みと当たりくじ")
    visual_prune()
    st.subheader("KV キャッシュは文脈の長さに比例して増える")
    visual_kv()
    st.subheader("すべての組と、窓とグローバルなトークン")
    full = ef.window_pairs(ef.DEMO_N, ef.DEMO_N)
    sparse = ef.window_pairs(ef.DEMO_N, ef.DEMO_RADIUS, ef.DEMO_GLOBAL)
    pos = [str(i + 1) for i in range(ef.DEMO_N)]
    ui.figures.side_by_side([(full.mask.astype(float), pos, pos, f"すべての組（{full.pairs} 個）"),
                             (sparse.mask.astype(float), pos, pos, f"窓 ±{ef.DEMO_RADIUS} と先頭 1 つ（{sparse.pairs} 個）")], digits=0)
    st.caption("1 = スコアを計算する組、0 = 計算しない組。2 つ目の表では、帯（窓）と 1 行目・1 列目（グローバルなトークン）だけが"
               "残ります。")


def teacher_curve(teacher: tuple) -> tuple[tuple, np.ndarray]:
    """The teacher's logits with their soft targets at every temperature (the chart's title and lines
    from the same valid input)."""
    return teacher, ef.soft_target_curve(teacher)


def visual_soft() -> None:
    # the logits of 試してみよう, which the engine may refuse (|z| > 1,000): its message, never a traceback
    curve = ui.compute("efficient_soft_curve", teacher_curve, tuple(ui.matrix_value(LOGITS_KEY, LOGITS)[0]))
    if curve is None:
        return
    teacher, probs = curve
    temps = ef.CURVE_TEMPERATURES
    ui.cached_chart(ui.figures.lines_chart, "温度 T", "確率", tuple((c, temps, tuple(p)) for c, p in zip(CLASSES, probs)),
                    title=f"教師のロジット {ui.handcalc.vector(teacher, 2)}", y_format=".1f", width="stretch")
    st.caption(f"「試してみよう」の教師のロジットで描いています。T が大きいほど 3 つの確率は 1/{len(CLASSES)} に近づき、"
               "順位は入れ替わりません。")


def visual_quant() -> None:
    x = ui.matrix_value(QX_KEY, np.array([ef.DEMO_WEIGHTS]))[0]
    curve = ui.compute("efficient_error_curve", ef.quant_error_curve, x)
    if curve is None:
        return
    errors, bounds = curve
    bits = ef.ERROR_BITS
    ui.cached_chart(ui.figures.lines_chart, "ビット数 b", "誤差", (("最大の誤差", bits, errors), ("上限 S/2", bits, bounds)),
                    title="対称な量子化の誤差", y_format=".2f", width="stretch")
    st.caption("「試してみよう」の値で描いています。1 ビット増やすと刻み S はほぼ半分になり、誤差の上限 S/2 も半分になります。")


def visual_prune() -> None:
    s = float(st.session_state.get(SPARSITY_KEY, 0.5))
    p = ef.magnitude_prune(ef.DEMO_MATRIX, s)
    t = ef.winning_ticket(ef.DEMO_INIT, ef.DEMO_MATRIX, s)
    rows, cols = ["1", "2", "3"], ["1", "2", "3", "4"]
    ui.figures.side_by_side([(p.weights, rows, cols, "学習した重み"), (p.pruned, rows, cols, f"{numfmt.percent(s)} を枝刈り"),
                             (ef.DEMO_INIT, rows, cols, "学習前の初期値"), (t.ticket, rows, cols, "初期値に戻した当たりくじ")],
                            digits=2, x_title="列", y_title="行")
    st.caption("「試してみよう」の削る割合で描いています。枝刈りで 0 になった位置は、初期値に戻した当たりくじでも 0 のままです。")


def visual_kv() -> None:
    cfg = saved(KV_KEYS)
    curve = ui.compute("efficient_kv_curve", ef.kv_cache_curve, cfg["layers"], cfg["heads"],
                       sorted({cfg["heads"], cfg["kv_heads"], 1}, reverse=True), cfg["d_head"], KV_CONTEXTS, batch=cfg["batch"])
    if curve is None:
        return
    series = tuple((f"KV ヘッド {g}", KV_CONTEXTS, tuple(ef.in_gib(b) for b in sizes)) for g, sizes in curve.items())
    ui.cached_chart(ui.figures.lines_chart, "文脈の長さ T（トークン）", "KV キャッシュ（GiB）", series,
                    title=f"{cfg['layers']} 層・d_head = {cfg['d_head']}・バッチ {cfg['batch']}", y_format="~g", log=True,
                    width="stretch")
    st.caption("「試してみよう」の KV キャッシュの設定で描いています。両対数なので、傾き 1 の直線（文脈の長さに比例）に"
               "なり、KV ヘッドを減らすと同じ傾きのまま下にずれます。")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("温度と蒸留の損失")
    try_distill()
    st.subheader("自分の値を量子化する")
    try_quant()
    st.subheader("削る割合を変える")
    try_prune()
    st.subheader("KV キャッシュのメモリを見積もる")
    try_kv()
    st.subheader("窓の幅とグローバルなトークン")
    try_window()


@st.fragment
def try_distill() -> None:
    """Soft targets and the distillation loss for the learner's logits (可視化 draws the teacher's row)."""
    logits = ui.matrix_editor(LOGITS_KEY, LOGITS, ["教師", "生徒"], CLASSES, label="ロジット（softmax の前の値）",
                              reset_label="例の値に戻す")
    c1, c2 = st.columns(2)
    with c1:
        t = ui.number_input("温度 T", min_value=0.1, max_value=100.0, value=2.0, step=0.5, key=T_KEY, persist_state="session")
    with c2:
        alpha = ui.number_input("ソフトターゲットの項の重み α", min_value=0.0, max_value=1.0, value=ef.DEMO_ALPHA, step=0.1,
                                key=ALPHA_KEY, persist_state="session")
    d = ui.compute("efficient_distill", ef.distillation_loss, logits[0], logits[1], float(t), 0, float(alpha))
    if d is None:
        return
    ui.show_table(pd.DataFrame({"分布": ["教師 p（温度 T）", "生徒 q（温度 T）", "生徒（温度 1）"],
                                **{c: [numfmt.fixed(v, 3) for v in col] for c, col in
                                   zip(CLASSES, zip(d.teacher.probs, d.student.probs, d.hard_probs))}}), hide_index=True)
    c1, c2 = st.columns(2)
    c1.metric("T² × H(p, q)", numfmt.fixed(d.soft, 3))
    c2.metric(f"損失 L（正解は{CLASSES[0]}）", numfmt.fixed(d.total, 3))


@st.fragment
def try_quant() -> None:
    """A vector of the learner's quantized to b bits (可視化 draws the error for every b)."""
    x = ui.matrix_editor(QX_KEY, np.array([ef.DEMO_WEIGHTS]), ["x"], ["1", "2", "3", "4"], label="量子化する値",
                         reset_label="例の値に戻す")
    c1, c2 = st.columns(2)
    with c1:
        bits = ui.number_input("ビット数 b", min_value=2, max_value=16, value=8, step=1, key=BITS_KEY, persist_state="session")
    with c2:
        scheme = st.radio("方式", ["対称（ゼロ点 0）", "非対称（ゼロ点あり）"], key=SCHEME_KEY, persist_state="session")
    r = ui.compute("efficient_quant", ef.quantize, x[0], int(bits), symmetric=scheme.startswith("対称"))
    if r is None:
        return
    ui.cached_table(quant_frame, r, hide_index=True)
    c1, c2, c3 = st.columns(3)
    c1.metric("スケール S", numfmt.significant(r.scale, 4))
    c2.metric("ゼロ点 Z", count(r.zero_point))
    c3.metric("最大の誤差", numfmt.significant(r.max_error, 3))


@st.fragment
def try_prune() -> None:
    """Magnitude pruning of the 3×4 example at the learner's sparsity (可視化 draws it)."""
    s = st.select_slider("削る割合", options=ef.SPARSITY_STEPS, value=0.5, format_func=numfmt.percent, key=SPARSITY_KEY,
                         persist_state="session")
    p = ef.magnitude_prune(ef.DEMO_MATRIX, s)
    ui.show_matrix(p.pruned, ["1", "2", "3"], ["1", "2", "3", "4"], digits=2, caption="枝刈りした重み")
    c1, c2 = st.columns(2)
    c1.metric("0 にした重み", f"{p.removed} / {p.weights.size}")
    c2.metric("消えた重みの絶対値の最大", "なし" if p.threshold is None else numfmt.trimmed(p.threshold, 2))


@st.fragment
def try_kv() -> None:
    """The KV cache as a fragment (可視化 draws its chart with these numbers)."""
    values = {}
    cols = st.columns(3)
    limits = {"layers": ("層数 L", 1, 200, 1), "heads": ("クエリのヘッド数", 1, 256, 1), "kv_heads": ("KV ヘッド数", 1, 256, 1),
              "d_head": ("1 ヘッドの次元", 1, 1024, 16), "context": ("文脈の長さ T", 1, 1_000_000, 1024),
              "batch": ("バッチ（同時に生成する系列の数）", 1, 1024, 1)}
    for i, (name, (key, default)) in enumerate(KV_KEYS.items()):
        label, lo, hi, step = limits[name]
        with cols[i % 3]:
            values[name] = int(ui.number_input(label, min_value=lo, max_value=hi, value=default, step=step, key=key,
                                               persist_state="session"))
    saving = ui.compute("efficient_kv_saving", ef.kv_saving, values["heads"], values["kv_heads"])
    c = ui.compute("efficient_kv", ef.kv_cache, values["layers"], values["kv_heads"], values["d_head"], values["context"], 2,
                   values["batch"])
    if c is not None and saving is not None:
        c1, c2 = st.columns(2)
        c1.metric("KV キャッシュ（16 ビット）", size(c.total))
        c2.metric("ヘッドごとに持つ場合の何分の 1", str(saving))
        st.caption(f"1 トークンあたり {count(c.per_token)} バイト × {count(c.context)} トークン × バッチ {c.batch}。")


@st.fragment
def try_window() -> None:
    """Score pairs of a sliding window with global tokens against full attention."""
    cols, v = st.columns(3), {}
    labels = {"n": ("トークン数 n", 1, 4096), "radius": ("窓の片側 r", 0, 4096), "n_global": ("グローバルな数", 0, 4096)}
    for col, (name, (key, default)) in zip(cols, WIN_KEYS.items()):
        label, lo, hi = labels[name]
        with col:
            v[name] = int(ui.number_input(label, min_value=lo, max_value=hi, value=default, step=1, key=key,
                                          persist_state="session"))
    w = ui.compute("efficient_window", ef.window_pairs, v["n"], v["radius"], v["n_global"])
    if w is None:
        return
    c1, c2 = st.columns(2)
    c1.metric("計算するスコア", count(w.pairs))
    c2.metric("すべての組に対する割合", numfmt.percent(w.share, 1))
    if w.n <= 16:
        pos = [str(i + 1) for i in range(w.n)]
        ui.figures.small_heatmap(w.mask.astype(float), pos, pos, "計算する組（1）", digits=0)
    else:
        st.caption(f"すべての組は {count(w.full)} 個。n が 16 以下なら、どの組を計算するかの表も出ます。")


ui.sections("efficient", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("efficient"))
