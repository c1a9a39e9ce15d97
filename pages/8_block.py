"""⑦-2 FFN・残差接続・層正規化: one Transformer layer around the attention."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import numfmt
from tutor import textbook as tb
from ui.figures import activation_chart
from ui.handcalc import vector
from ui.validate import format_number

ui.page("block")

# hand example (inputs only; every result below is computed by the engine)
X_HAND, W1_HAND, W2_HAND, LN_HAND = tb.FFN_X, tb.FFN_W1, tb.FFN_W2, tb.LN_ROW
BATCH_ROW0, OTHERS_A, OTHERS_B = tb.NORM_ROW0, tb.NORM_OTHERS_A, tb.NORM_OTHERS_B
BATCH_A = np.vstack([BATCH_ROW0, OTHERS_A])       # (3, 4)
BATCH_B = np.vstack([BATCH_ROW0, OTHERS_B])       # (3, 4)
COLS = [f"特徴 {j + 1}" for j in range(4)]
EXAMPLES = ["例 1", "例 2", "例 3"]
ACT_LABELS = {"relu": "ReLU（原論文）", "gelu": "GELU（BERT・GPT）", "silu": "SiLU（SwiGLU のゲート）"}


def hand_ffn(z):
    return tutor.block.ffn(z, W1_HAND, None, W2_HAND, None, activation="relu").output


@st.cache_data(show_spinner=False, max_entries=16)
def ffn_try(activation: str, d_ff: int, seed: int):
    params = tutor.block.init_ffn_params(tb.D_MODEL, d_ff, np.random.default_rng(seed))
    full = tutor.block.ffn(tb.X, *params, activation=activation)
    alone = tutor.block.ffn(tb.X[:1], *params, activation=activation)
    return full, tutor.max_abs_difference(full.output[:1], alone.output)


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- Transformer の 1 層が「Attention → 残差接続と層正規化 → FFN → 残差接続と層正規化」でできていることを説明できる。\n"
        "- **層正規化（LayerNorm）** を手で計算し、**バッチ正規化** との違い（バッチのほかの例に左右されない）を確かめる。\n"
        "- 原論文の **Post-LN** と、GPT-2 以降の多くのモデルが使う **Pre-LN** の順番の違いを区別できる。\n"
        "- 原論文が **ドロップアウト** をかける場所と率を言え、学習時の $1/(1-p)$ 倍と推論時の扱いを計算で確かめる。"
    )

    ui.section("explain")
    explain_ffn_residual_norm()
    st.subheader("正規化を置く場所：Post-LN（原論文）と Pre-LN（GPT-2 以降）")
    post_ln_and_pre_ln()
    st.subheader("原論文の大きさ（base モデル）")
    paper_sizes()
    st.subheader("ドロップアウト：原論文がかける場所と率")
    explain_dropout()


def explain_ffn_residual_norm() -> None:
    st.markdown(
        "**FFN（位置ごとの全結合層、position-wise feed-forward network）**：Attention の役目がほかのトークンの情報を"
        "取り込むことだとすれば、FFN の役目は、集まった情報をトークンごとに加工することです。"
        "同じ 2 層の全結合ネットワークを、各トークンのベクトルに **1 本ずつ別々に** 当てはめます（トークンどうしは混ざりません）。"
        "1 層目の $W_1$ で $d_{\\text{model}}$ 次元を $d_{ff}$ 次元まで大きくし、活性化関数で曲げてから、"
        "2 層目の $W_2$ で $d_{\\text{model}}$ 次元へ縮めます。"
        "途中の活性化関数（非線形の関数）を抜くと、$W_1$ と $W_2$ を続けて掛けることは 1 枚の行列 $W_1 W_2$ を掛けることと同じになり、"
        "何層積んでも 1 回の行列の掛け算以上のことはできません。"
    )
    st.latex(r"\mathrm{FFN}(x) = \mathrm{act}(x W_1 + b_1)\,W_2 + b_2")
    st.latex(r"\begin{aligned}&\mathrm{SwiGLU}(x) \\ &\quad = \big(\mathrm{SiLU}(x W_{\text{gate}}) \odot x W_{\text{up}}\big)\,W_{\text{down}}\end{aligned}")
    st.markdown(
        "活性化関数は、原論文が **ReLU**、BERT や GPT が **GELU**、LLaMA などの最近のモデルがゲート付きの **SwiGLU** です。\n\n"
        "**残差接続**：サブレイヤー（Attention や FFN）の出力に、そのサブレイヤーへの入力を足し合わせます"
        "（$x + \\mathrm{Sublayer}(x)$）。サブレイヤーの出力が 0 なら入力がそのまま次へ進むので、"
        "各サブレイヤーは入力を「どれだけ直すか」だけを覚えればよくなります。"
        "逆伝播でも、足し算の枝は勾配を 1 倍のまま通すので、層を深く積んでも **勾配消失** が起きにくくなります。\n\n"
        "**層正規化（LayerNorm）**：1 つのトークンの $d$ 個の値について平均を引き、標準偏差で割ってそろえます。"
        "統計は **そのトークン自身の中だけ** で計算します。これに対し **バッチ正規化** は、ミニバッチ内のほかの例と"
        "同じ特徴どうしで平均・分散をとるので、結果が一緒にバッチに入った例に左右されます。"
        "系列の長さがまちまちで、生成時には 1 文ずつ処理する言語モデルには、層正規化の方が向いています。"
    )
    st.latex(r"\mathrm{LayerNorm}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta")
    st.latex(r"\mu = \frac{1}{d}\sum_j x_j,\qquad \sigma^2 = \frac{1}{d}\sum_j (x_j - \mu)^2")
    st.markdown("**RMSNorm** は平均を引く手間を省き、値の大きさ（二乗平均平方根）で割るだけにした簡略版です。"
                "LLaMA をはじめ、最近の大規模言語モデルで広く採用されています。")
    st.latex(r"\mathrm{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\frac{1}{d}\sum_j x_j^2 + \varepsilon}}")


def post_ln_and_pre_ln() -> None:
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Post-LN — 原論文『Attention Is All You Need』**")
        st.latex(r"\text{出力} = \mathrm{LayerNorm}\big(x + \mathrm{Sublayer}(x)\big)")
        st.caption("足し算のあとで正規化。BERT や初代の GPT もこの形です。")
    with c2:
        st.markdown("**Pre-LN — GPT-2 以降の多くのモデル**")
        st.latex(r"\text{出力} = x + \mathrm{Sublayer}\big(\mathrm{LayerNorm}(x)\big)")
        st.caption("正規化してからサブレイヤーへ。残差の道には何も挟まらないので、深いモデルでも学習が安定しやすい。"
                   "最後の層の後ろ（出力の直前）に LayerNorm をもう 1 つ置きます。")


def paper_sizes() -> None:
    d_k = tutor.head_dim(tb.PAPER_D_MODEL, tb.PAPER_HEADS)
    # both counted WITH their biases (W and b), so that the two rows compare like with like
    mha_params = tutor.multihead.mha_param_count(tb.PAPER_D_MODEL, bias=True)
    ffn_params = tutor.block.ffn_param_count(tb.PAPER_D_MODEL, tb.PAPER_D_FF, bias=True)
    ui.show_table(pd.DataFrame({
        "記号": ["N", "d_model", "h", "d_k = d_v", "d_ff", "Multi-Head Attention のパラメータ（W_Q, W_K, W_V, W_O とそれぞれのバイアス）",
               "FFN のパラメータ（W_1, b_1, W_2, b_2）"],
        "意味": ["エンコーダ・デコーダそれぞれの層の数", "各層の入出力の次元", "ヘッドの数", "1 ヘッドあたりの次元（d_model / h）",
               "FFN の中間の次元", "1 層の Attention のパラメータ数（4·d_model² + 4·d_model）",
               "1 層の FFN のパラメータ数（2·d_model·d_ff + d_ff + d_model）"],
        "値": [f"{tb.PAPER_LAYERS}", f"{tb.PAPER_D_MODEL}", f"{tb.PAPER_HEADS}", f"{d_k}", f"{tb.PAPER_D_FF:,}",
              f"{mha_params:,}", f"{ffn_params:,}"],
    }).set_index("記号"))
    st.caption("論文が基本の設定として示した **base モデル** の値です。パラメータ数は Attention も FFN も、"
               "行列の重みとバイアスの両方を数えています。バイアスを除くと Attention は "
               f"{tutor.multihead.mha_param_count(tb.PAPER_D_MODEL, bias=False):,}（$4 d_{{\\text{{model}}}}^2$）、FFN は "
               f"{tutor.block.ffn_param_count(tb.PAPER_D_MODEL, tb.PAPER_D_FF, bias=False):,}（$2 d_{{\\text{{model}}}} d_{{\\text{{ff}}}}$）です。"
               f"幅を広げた big モデルは $d_{{\\text{{model}}}}$ = {tb.PAPER_BIG_D_MODEL:,}、$d_{{\\text{{ff}}}}$ = {tb.PAPER_BIG_D_FF:,}、$h$ = {tb.PAPER_BIG_HEADS} です。")


def hand() -> None:
    st.subheader("1. 層正規化と RMSNorm")
    hand_norms()
    st.subheader("2. FFN → 残差接続 → 層正規化")
    hand_ffn_residual_norm()
    st.subheader("3. ドロップアウト：学習時と推論時")
    hand_dropout()


def hand_norms() -> None:
    steps = tutor.block.layer_norm_steps(LN_HAND, eps=0.0)
    rms = tutor.block.rms_norm(LN_HAND, eps=0.0)
    st.markdown(f"$x = {vector(LN_HAND, 0, tex=True)}$（$\\varepsilon = 0$、$\\gamma = 1$、$\\beta = 0$ として手で計算します）")
    st.latex(rf"""\begin{{aligned}}
\mu &= {format_number(steps.mean, 2)} \\
x - \mu &= {vector(steps.centered, 1, tex=True)} \\
\sigma^2 &= {format_number(steps.var, 2)} \\
\sqrt{{\sigma^2}} &= {format_number(steps.std, 3)}
\end{{aligned}}""")
    st.latex(rf"\begin{{aligned}}&\mathrm{{LayerNorm}}(x) \\ &\quad = {vector(steps.output, 3, tex=True)}\end{{aligned}}")
    st.latex(rf"\begin{{aligned}}&\mathrm{{RMSNorm}}(x) \\ &\quad = {vector(rms, 3, tex=True)}\end{{aligned}}")
    st.caption("LayerNorm の結果は平均 0・分散 1。RMSNorm は平均を引かないので、すべて正のままで大きさだけがそろいます。")


def hand_ffn_residual_norm() -> None:
    ff = tutor.block.ffn(X_HAND, W1_HAND, None, W2_HAND, None, activation="relu")
    post = tutor.block.post_ln_block(X_HAND, hand_ffn, eps=0.0)
    pre = tutor.block.pre_ln_block(X_HAND, hand_ffn, eps=0.0)
    st.markdown(f"入力は $x = {vector(X_HAND, 0, tex=True)}$ です（$d_{{\\text{{model}}}} = {X_HAND.shape[1]}$ の小さな例で、"
                "1. の $x$ とは別のベクトル）。$W_1$ と $W_2$ は下の値、バイアスは 0、活性化関数は ReLU とします。")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(W1_HAND, ["1", "2"], ["1", "2", "3", "4"], digits=0, caption="W₁（2 → 4 に広げる）")
    with c2:
        ui.show_matrix(W2_HAND, ["1", "2", "3", "4"], ["1", "2"], digits=0, caption="W₂（4 → 2 に戻す）")
    st.latex(rf"""\begin{{aligned}}
x W_1 &= {vector(ff.pre_activation, 0, tex=True)} \\
\mathrm{{ReLU}}(x W_1) &= {vector(ff.hidden, 0, tex=True)} \\
\mathrm{{FFN}}(x) &= \mathrm{{ReLU}}(x W_1)\,W_2 \\ &= {vector(ff.output, 0, tex=True)}
\end{{aligned}}""")
    st.markdown("**Post-LN（原論文）**：残差を足してから正規化")
    st.latex(rf"""\begin{{aligned}}
x + \mathrm{{FFN}}(x) &= {vector(post.residual_sum, 0, tex=True)} \\
\mathrm{{LayerNorm}}\big(x + \mathrm{{FFN}}(x)\big) &= {vector(post.output, 2, tex=True)}
\end{{aligned}}""")
    st.markdown("**Pre-LN（GPT-2 以降）**：同じ $W_1, W_2$ で、正規化してからサブレイヤーへ")
    st.latex(rf"""\begin{{aligned}}
\mathrm{{LayerNorm}}(x) &= {vector(pre.sublayer_input, 2, tex=True)} \\
\mathrm{{FFN}}\big(\mathrm{{LayerNorm}}(x)\big) &= {vector(pre.sublayer_output, 0, tex=True)} \\
x + \mathrm{{FFN}}\big(\mathrm{{LayerNorm}}(x)\big) &= {vector(pre.output, 0, tex=True)}
\end{{aligned}}""")
    st.caption("Post-LN の出力は正規化済み、Pre-LN の出力は正規化されていない（残差の和そのもの）ことに注目してください。")


def visual() -> None:
    st.subheader("層正規化とバッチ正規化：ほかの例を変えると？")
    layer_norm_vs_batch_norm()
    st.subheader("活性化関数のかたち")
    ui.cached_chart(activation_chart, width="stretch")
    st.caption("GELU と SiLU は 0 の近くでなめらかに曲がり、負の側でわずかにマイナスになります。")
    st.subheader("ドロップアウトを何度もかけた平均")
    visual_dropout_average()


def layer_norm_vs_batch_norm() -> None:
    st.markdown("例 1 を同じにしたまま、同じバッチに入るほかの 2 例だけを大きく変えた 2 つのバッチを正規化し、**例 1 の結果** を比べます。")
    demo = tutor.block.norm_batch_dependence(BATCH_A, BATCH_B)
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(BATCH_A, EXAMPLES, COLS, digits=0, caption="バッチ A（入力）")
    with c2:
        ui.show_matrix(BATCH_B, EXAMPLES, COLS, digits=0, caption="バッチ B（入力：例 1 は同じ、例 2・例 3 だけ違う）")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(np.vstack([demo.ln_a[0], demo.ln_b[0]]), ["バッチ A", "バッチ B"], COLS, caption="層正規化：例 1 の出力")
        st.metric("例 1 の差（層正規化）", format_number(demo.ln_row_diff, 3))
    with c2:
        ui.show_matrix(np.vstack([demo.bn_a[0], demo.bn_b[0]]), ["バッチ A", "バッチ B"], COLS, caption="バッチ正規化：例 1 の出力")
        st.metric("例 1 の差（バッチ正規化）", format_number(demo.bn_row_diff, 3))
    st.caption("「差」は、バッチ A と B で例 1 の出力を成分ごとに比べたときの、差の絶対値の最大です。"
               "層正規化は例 1 の中だけで平均と分散をとるので、ほかの例をどう変えても結果は同じです。"
               "バッチ正規化は特徴ごとにバッチ全体で平均と分散をとるので、例 1 の結果まで変わってしまいます。")


def try_it() -> None:
    st.subheader("層正規化を自分の数で")
    try_layer_norm()
    st.subheader("バッチのほかの例を書き換える")
    st.markdown(f"例 1 は ${vector(BATCH_ROW0, 0, tex=True)}$ に固定です。例 2・例 3 を書き換えて、例 1 の正規化結果がどう変わるかを見ます。")
    try_batch()
    st.subheader("FFN を動かす")
    try_ffn()
    st.subheader("ドロップアウトをかけてみる")
    try_dropout()


@st.fragment
def try_layer_norm() -> None:
    """層正規化を自分の数で as a fragment: an edit of x reruns this part only."""
    x_try = ui.matrix_editor("block_ln_x", LN_HAND[None, :], ["x"], [f"x{j + 1}" for j in range(4)])
    steps_try = ui.compute("block_ln", tutor.block.layer_norm_steps, x_try[0], 1e-5)
    rms_try = ui.compute("block_rms", tutor.block.rms_norm, x_try[0], 1e-5)
    if steps_try is not None and rms_try is not None:
        ui.show_matrix(np.vstack([steps_try.output, rms_try]), ["LayerNorm", "RMSNorm"],
                       [f"x{j + 1}" for j in range(4)], caption=f"ε = 10⁻⁵。平均 μ = {format_number(steps_try.mean, 3)}、"
                                                              f"標準偏差 = {format_number(steps_try.std, 3)}")


@st.fragment
def try_batch() -> None:
    """バッチのほかの例 as a fragment: an edit of 例 2・例 3 reruns this part only."""
    others = ui.matrix_editor("block_batch_others", OTHERS_B, ["例 2", "例 3"], COLS)
    demo_try = ui.compute("block_batch", tutor.block.norm_batch_dependence, BATCH_A, np.vstack([BATCH_ROW0, others]))
    if demo_try is not None:
        c1, c2 = st.columns(2)
        c1.metric("例 1 の差：層正規化", format_number(demo_try.ln_row_diff, 3))
        c2.metric("例 1 の差：バッチ正規化", format_number(demo_try.bn_row_diff, 3))
        ui.show_matrix(demo_try.bn_b[:1], ["例 1"], COLS, caption="書き換えたバッチでのバッチ正規化の例 1")


@st.fragment
def try_ffn() -> None:
    """FFN を動かす as a fragment: a new activation, d_ff or seed reruns this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        act = st.selectbox("活性化関数", list(ACT_LABELS), format_func=ACT_LABELS.get, key="block_act",
                           persist_state="session")
    with c2:
        d_ff = st.select_slider("中間の次元 d_ff", options=[4, 8, 16, 32, 64], value=16, key="block_dff",
                                persist_state="session")
    with c3:
        seed = ui.number_input("W₁, W₂ を作る乱数のシード", min_value=0, max_value=10_000, value=0, step=1, key="block_seed",
                               persist_state="session")
    ffn_res, per_token = ffn_try(act, int(d_ff), int(seed))
    st.markdown(f"猫・魚・それ（$d_{{\\text{{model}}}} = {tb.D_MODEL}$）を、$d_{{ff}} = {int(d_ff)}$ に広げて戻します。"
                f"中間の表現の形は {ffn_res.hidden.shape}、出力の形は {ffn_res.output.shape} です。")
    ui.show_matrix(ffn_res.output, list(tb.TOKENS), [f"{j + 1}" for j in range(tb.D_MODEL)],
                   caption=f"FFN の出力（{ACT_LABELS[act]}）")
    st.metric("猫だけを FFN に通した結果との差", format_number(per_token, 3))
    st.caption("FFN はトークンごとに別々に計算するので、3 語まとめて通しても 1 語だけ通しても、猫の結果は同じです（差 0）。"
               f"このときのパラメータ数はバイアスを含めて {tutor.block.ffn_param_count(tb.D_MODEL, int(d_ff), bias=True):,} 個"
               f"（バイアスを持たない 3 枚の行列でできた SwiGLU なら {tutor.block.swiglu_param_count(tb.D_MODEL, int(d_ff)):,} 個）。")


# ---------------------------------------------------------------------------
# dropout as the paper uses it (tutor.training.recipe: inverted dropout)
# ---------------------------------------------------------------------------
DROP_X = tutor.training.DROPOUT_X            # one token's sub-layer output (hand example)
DROP_KEEP = tutor.training.DROPOUT_KEEP      # one drawn mask
DROP_P = tutor.training.DROPOUT_RATE         # 0.2: 1/(1 − p) = 1.25
DROP_COLS = [f"x{j + 1}" for j in range(len(DROP_X))]
DROP_RATES = [0.1, 0.2, 0.3, 0.5]
DROP_MODES = {"train": "学習時（マスクを引く）", "infer": "推論時（何も落とさない）"}
AVERAGE_DRAWS = 10_000


def explain_dropout() -> None:
    p_drop = numfmt.trimmed(tutor.training.PAPER_P_DROP, 2)
    st.markdown(
        "**ドロップアウト** は、学習のあいだだけ、ランダムに選んだ値を 0 にして、特定の値に頼りすぎないようにする正則化です。"
        f"原論文（base モデル）は率 $P_{{\\text{{drop}}}} = {p_drop}$ で、次の 2 か所にかけました。\n\n"
        "1. **各サブレイヤーの出力**：Multi-Head Attention や FFN の出力を、入力 $x$ に足して正規化する **前に** 落とします"
        "（足し戻す $x$ のほうは落としません）。\n"
        "2. **エンコーダとデコーダの入口**：トークン埋め込みと位置エンコーディングの和（⑦-1）にかけます。")
    st.latex(r"\begin{aligned}\text{出力} &= \mathrm{LayerNorm}\big(x \\ &\qquad + \mathrm{Dropout}(\mathrm{Sublayer}(x))\big)"
             r"\end{aligned}")
    st.markdown(
        "実装では **逆ドロップアウト（inverted dropout）** がふつうです。学習時は値を確率 $1-p$ で残し、"
        "残した値を $1/(1-p)$ 倍します。こうすると出力の期待値が入力と同じになるので、**推論時は何も落とさず、倍率もかけずに** 入力をそのまま通せます。")
    st.latex(r"\begin{aligned}\text{学習時：}\ y_i &= \frac{m_i\,x_i}{1-p} \\ &\quad\ (m_i = 1 \text{ の確率 } 1-p) \\ "
             r"\text{推論時：}\ y &= x\end{aligned}")


def hand_dropout() -> None:
    res = tutor.training.dropout_with_mask(DROP_X, np.array(DROP_KEEP), DROP_P)
    infer = tutor.training.dropout(DROP_X, DROP_P, training=False)
    mask = vector(res.keep.astype(float), 0, tex=True)                  # (1,\ 0,\ 1,\ 1)
    st.markdown(f"1 つのトークンのサブレイヤーの出力 $x = {vector(res.x, 0, tex=True)}$ に、率 $p = {numfmt.trimmed(DROP_P, 2)}$ の"
                "ドロップアウトをかけます。マスク $m$ は学習の 1 歩ごとに引き直す乱数で、ここでは引いた 1 回分を使います。")
    st.latex(rf"""\begin{{aligned}}
m &= {mask} \\ &\quad (1 = \text{{残す}},\ 0 = \text{{落とす}}) \\
\frac{{1}}{{1-p}} &= \frac{{1}}{{{numfmt.trimmed(res.keep_rate, 2)}}} = {numfmt.trimmed(res.scale, 3)} \\
y_{{\text{{学習時}}}} &= \frac{{m \odot x}}{{1-p}} \\ &= {vector(res.output, 2, tex=True)} \\
y_{{\text{{推論時}}}} = x &= {vector(infer.output, 0, tex=True)}
\end{{aligned}}""")
    st.markdown("残した成分だけが $1/(1-p)$ 倍に大きくなり、落とした成分は 0 になります。残る確率が $1-p$ なので、"
                "$y_i$ の期待値は $(1-p) \\cdot x_i/(1-p) = x_i$ で、入力と同じです。推論時は入力がそのまま出ていきます。")


def visual_dropout_average() -> None:
    p_drop = tutor.training.PAPER_P_DROP
    keep_rate = tutor.training.dropout(DROP_X, p_drop, training=False).keep_rate      # 1 − p
    inverted, plain_mean = tutor.training.dropout_average(DROP_X, p_drop, np.random.default_rng(0), AVERAGE_DRAWS)
    st.markdown(f"同じ $x = {vector(DROP_X, 0, tex=True)}$ に、原論文の率 $p = {numfmt.trimmed(p_drop, 2)}$ でマスクを "
                f"{numfmt.grouped(AVERAGE_DRAWS)} 回引き直してかけ、出力の平均をとります。")
    ui.show_matrix(np.vstack([np.asarray(DROP_X), inverted, plain_mean]),
                   ["入力 x", "平均：1/(1−p) 倍する（逆ドロップアウト）", "平均：倍率をかけない"], DROP_COLS, digits=3)
    st.caption(f"1/(1−p) 倍すると平均は入力 x にほぼ戻ります。倍率をかけないと、平均は x の約 {numfmt.trimmed(keep_rate, 2)} 倍"
               "（残る確率）に縮みます。学習時と推論時で値の大きさがずれないように、学習時のうちに倍率をかけておくのが逆ドロップアウトです。")


@st.fragment
def try_dropout() -> None:
    """ドロップアウトをかけてみる as a fragment: a new x, p, seed or mode reruns this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        rate = st.select_slider("率 p", DROP_RATES, value=tutor.training.PAPER_P_DROP, key="block_drop_p",
                                persist_state="session")
    with c2:
        seed = ui.number_input("マスクを引く乱数のシード", min_value=0, max_value=10_000, value=0, step=1,
                               key="block_drop_seed", persist_state="session")
    with c3:
        mode = st.radio("いつ", list(DROP_MODES), format_func=DROP_MODES.get, key="block_drop_mode",
                        persist_state="session")
    x = ui.matrix_editor("block_drop_x", np.array([DROP_X]), ["x"], DROP_COLS, reset_label="最初の値に戻す")
    res = ui.compute("block_drop", tutor.training.dropout, x[0], float(rate), np.random.default_rng(int(seed)),
                     training=mode == "train")
    if res is None:
        return
    mask = vector(res.keep.astype(float), 0, tex=True)                  # (1,\ 0,\ 1,\ 1)
    st.markdown(f"マスク $m = {mask}$（1 = 残す、0 = 落とす）")
    ui.show_matrix(np.vstack([res.x, res.output]), ["入力 x", "出力 y"], DROP_COLS, digits=3)
    st.metric("残した成分の倍率", numfmt.trimmed(res.scale, 3))
    st.caption("学習時はシードを変えるたびに落ちる成分が変わり、残った成分は 1/(1−p) 倍になります。"
               "推論時はマスクを引かず、出力は入力と同じです。")


ui.sections("block", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("block"))
