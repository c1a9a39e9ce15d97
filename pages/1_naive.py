"""① 素朴なAttention: S = X·Xᵀ → softmax → weighted mean, and why it is not enough."""
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.steps import vector

ui.page("naive")

TOKENS = list(tb.TOKENS)
CAT, FISH, IT = (TOKENS.index(t) for t in ("猫", "魚", "それ"))
DIMS = ["次元1", "次元2", "次元3", "次元4"]

# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- 単語の意味が **前後の単語** によって決まることを、例文「猫は魚を見つけた。それを食べた。」で確かめる。\n"
    "- 学習する重みを 1 つも使わない **素朴な Attention**（内積 → softmax → 重み付き平均）を手で計算できる。\n"
    "- 数値を見て、この素朴版の **4 つの弱点** を説明できる。"
)

ui.section("explain")
st.markdown(
    "例文の「それ」が指しているのは「魚」です。ところが、単語をベクトルに変える **埋め込み** は、"
    "辞書を引くのと同じで、どんな文脈でも「それ」に同じベクトルを返します。"
    "「それ」のベクトルに「魚」の情報を混ぜ込めれば、後の計算は「魚を食べた」と分かった状態で進められます。"
)
st.markdown(
    "そこで、各トークンが文中の全トークンを見渡し、**関係が深いトークンほど多く** 情報をもらう仕組みを作ります。"
    "材料はこれまでに学んだ 3 つの道具だけです。"
)
st.markdown(
    "1. **スコア**：トークン $i$ と $j$ の関係の深さを内積で測る（向きがそろうほど大きい）。\n"
    "2. **重み**：スコアの行を softmax に通し、合計 1 の割合にする。\n"
    "3. **混合**：その割合で全トークンの埋め込みを混ぜ、新しいベクトル $\\mathbf{z}_i$ を作る。"
)
st.latex(r"s_{ij} = \mathbf{x}_i \cdot \mathbf{x}_j")
st.latex(r"a_{ij} = \frac{e^{s_{ij}}}{\sum_{k} e^{s_{ik}}}")
st.latex(r"\mathbf{z}_i = \sum_{j} a_{ij}\,\mathbf{x}_j")
st.markdown("行列でまとめて書くと $S = XX^\\top$、$A = \\mathrm{softmax}(S)$（行ごと）、$Z = AX$ です。"
            "$X$ は 1 行が 1 トークンの埋め込みを表す $n \\times d_{\\text{model}}$ の行列です。")

ui.section("hand")
hand_box = st.container()
ui.section("visual")
visual_box = st.container()

# ---------------------------------------------------------------------------
ui.section("try")
st.markdown("埋め込みの数値を書き換えると、このページの手計算・ヒートマップ・弱点の数値がすべて計算し直されます。"
            "たとえば「それ」の行を「魚」に近づけると、それ → 魚 の重みはどう変わるでしょうか。")
x = ui.matrix_editor("naive_x", tb.X, TOKENS, DIMS, label="埋め込み X（1 行 = 1 トークン）")
weak = ui.compute("naive", tutor.naive_weaknesses, x)
steps = ui.compute("naive_steps", tutor.naive_steps, x, decimals=3, tokens=TOKENS)
if weak is None or steps is None:
    st.stop()
res = weak.result
c1, c2, c3 = st.columns(3)
c1.metric("それ → 猫", ui.steps.number(res.weights[IT, CAT], 3))
c2.metric("それ → 魚", ui.steps.number(res.weights[IT, FISH], 3))
c3.metric("それ → それ", ui.steps.number(res.weights[IT, IT], 3))

# ---------------------------------------------------------------------------
with hand_box:
    st.markdown("3 語 [猫, 魚, それ] だけを取り出し、4 次元の埋め込みで計算します"
                "（説明用に選んだ単純な値です。本物の埋め込みは学習で決まります）。")
    ui.show_matrix(x, TOKENS, DIMS, digits=ui.steps.auto_digits(x), caption="埋め込み X")
    st.markdown("**手順 1　スコア $S = XX^\\top$**：全ペアの内積です。行が「見る側」、列が「見られる側」。")
    ui.steps.matrix_steps(steps.scores, title="$S = XX^\\top$ の全要素")
    ui.show_matrix(steps.scores.result, TOKENS, TOKENS, digits=ui.steps.auto_digits(steps.scores.result),
                   caption="スコア行列 S")
    st.markdown("**手順 2　行ごとに softmax**：各行の $e^{s}$ を合計で割ります"
                "（ここでは教科書と同じく小数第 3 位に丸めながら計算します）。")
    ui.steps.softmax_steps(steps.softmax, title="重み $A$：行ごとの softmax")
    ui.show_matrix(steps.weights, TOKENS, TOKENS, caption="重み行列 A（各行の合計が 1）")
    st.markdown("**手順 3　重み付き平均 $Z = AX$**：重みの割合で埋め込みを混ぜます。")
    ui.steps.weighted_sums(steps.weighted_sums, TOKENS, title="$Z = AX$：埋め込みの重み付き和", expanded=True)
    ui.show_matrix(steps.z, TOKENS, DIMS, caption="新しいベクトル Z（文脈を取り込んだ埋め込み）")

with visual_box:
    st.markdown("重み行列 $A$ を色で表します。色が明るいほど重みが大きい組です。")
    ui.heatmap(res.weights, TOKENS, TOKENS, title="素朴な Attention の重み A")
    st.markdown(
        f"「それ」の行を見てください。指しているはずの魚への重みは **{ui.steps.number(res.weights[IT, FISH], 3)}** で、"
        f"猫への重み **{ui.steps.number(res.weights[IT, CAT], 3)}** と変わりません。"
        f"いちばん大きい **{ui.steps.number(res.weights[IT, IT], 3)}** は自分自身に向いています。"
        "照応（それ → 魚）をつかめていません。"
    )
    st.subheader("数値が示す 4 つの弱点")
    with st.container(border=True):
        st.markdown(
            f"**弱点 1：自分ばかり見る。** 自分とのスコア $s_{{ii}} = |\\mathbf{{x}}_i|^2$ は "
            f"{vector(weak.self_scores, ui.steps.auto_digits(weak.self_scores))}、"
            f"ほかとの最大スコアは {vector(weak.max_other_scores, ui.steps.auto_digits(weak.max_other_scores))} です。"
            f"{len(TOKENS)} 行のうち **{weak.n_self_top} 行** で、自分への重みがいちばん大きくなっています"
            f"（それ：自分 {ui.steps.number(weak.self_weights[IT], 3)}、ほかの最大 "
            f"{ui.steps.number(weak.max_other_weights[IT], 3)}）。"
        )
    with st.container(border=True):
        sym = "対称" if weak.symmetric else "非対称"
        sd = ui.steps.auto_digits(res.scores)
        st.markdown(
            f"**弱点 2：単語どうしの似かたしか測れない。** それ → 魚 のスコアは "
            f"{ui.steps.number(res.scores[IT, FISH], sd)}、それ → 猫 も {ui.steps.number(res.scores[IT, CAT], sd)} です。"
            "代名詞と名詞は単語として似ていないので、「前に出た名詞を探す」という役割の関係は内積に現れません。"
            f"しかも $S$ は **{sym}**（魚 → それ も {ui.steps.number(res.scores[FISH, IT], sd)}）で、"
            "「見る側」と「見られる側」の区別がつきません。"
        )
    with st.container(border=True):
        st.markdown(
            f"**弱点 3：探す目印と渡す中身が同じ。** 魚のスコアを決めたのも、それに混ぜられる中身も、"
            f"同じ埋め込み {vector(x[FISH], ui.steps.auto_digits(x))} です。"
            "「見つけてもらうための目印」と「見つけた相手に渡す情報」を別々に持てません。"
        )
    with st.container(border=True):
        st.markdown(
            f"**弱点 4：学習の余地がない。** 素朴版の学習パラメータは **{weak.n_params} 個** です。"
            "データから「代名詞は前の名詞を探すとよい」と覚える場所がありません。"
            f"次のページの $W_Q, W_K, W_V$（各 {x.shape[1]}×2）を入れると "
            f"**{tutor.qkv_param_count(x.shape[1], 2, 2)} 個** の数値を学習で調整できるようになります。"
        )
    st.info("この 4 つをまとめて解決するのが、次のページのクエリ・キー・バリュー（Q・K・V）です。")

ui.quiz_section("naive")
ui.next_link("naive")
