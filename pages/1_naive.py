"""① 素朴なAttention: S = X·Xᵀ → softmax → weighted mean, and why it is not enough."""
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.handcalc import vector

ui.page("naive")

TOKENS = list(tb.TOKENS)
CAT, FISH, IT = (TOKENS.index(t) for t in ("猫", "魚", "それ"))
DIMS = ["次元1", "次元2", "次元3", "次元4"]

X_KEY = "naive_x"   # the embedding editor of 試してみよう; 手計算 and 可視化 compute with what it holds


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 「それ」のような語が何を指すかは、その語だけでは決まらず周りの語で決まる。"
        "このことを「猫は魚を見つけた。それを食べた。」の 2 文で確かめる。\n"
        "- 学習パラメータを 1 つも持たない **素朴な Attention** を、スコア → 重み → 混合の "
        "3 段階に分けて手で計算できる。\n"
        "- 計算結果の数値を根拠に、素朴版に足りない点を **4 つ** 挙げられる。"
    )

    ui.section("explain")
    st.markdown(
        "2 文目の「それ」は魚のことです。ところが、トークンをベクトルに置き換える **埋め込み** は"
        "単語ごとの表を引くだけの処理なので、前後に何が書かれていても「それ」のベクトルは 1 通りしかありません。"
        "もし「それ」のベクトルに魚の情報を足し込めれば、その先の計算は「食べたのは魚だ」と分かったうえで進められます。"
    )
    st.markdown(
        "考え方は単純です。どのトークンも、文中のすべてのトークン（自分も含む）に目を通し、"
        "**つながりの強い相手からより多く** 情報を受け取ります。"
        "必要なのは内積と softmax と重み付き平均の 3 つだけです（このページで 1 つずつ確かめます）。"
    )
    st.markdown(
        "1. **スコアを測る**：$\\mathbf{x}_i$ と $\\mathbf{x}_j$ の内積を $s_{ij}$ とします。"
        "2 つのベクトルが同じ方向を向いているほど、内積は大きくなります。\n"
        "2. **割合に直す**：トークン $i$ のスコアの並び（$S$ の $i$ 行目）を softmax に入れ、"
        "足すと 1 になる重み $a_{ij}$ にします。\n"
        "3. **混ぜ合わせる**：重み $a_{ij}$ の割合で全トークンの埋め込みを足し合わせ、"
        "それを $\\mathbf{z}_i$ とします。文脈を取り込んだ、$i$ 番目のトークンの新しい表現です。"
    )
    st.latex(r"s_{ij} = \mathbf{x}_i \cdot \mathbf{x}_j")
    st.latex(r"a_{ij} = \frac{e^{s_{ij}}}{\sum_{k} e^{s_{ik}}}")
    st.latex(r"\mathbf{z}_i = \sum_{j} a_{ij}\,\mathbf{x}_j")
    st.markdown("3 つを行列の式でまとめると $S = XX^\\top$、$A = \\mathrm{softmax}(S)$（行ごと）、$Z = AX$ です。"
                "$X$ は各トークンの埋め込みを 1 行ずつ積み重ねたもので、形は $n \\times d_{\\text{model}}$"
                "（$n$ はトークン数）です。")
    # 「教科書」 is used on many pages (教科書と同じく…, 教科書の値に戻す): said once, here (issue 37 §4)
    st.caption("このアプリで「教科書」と言うときは、ページをまたいで使う小さな手計算の作例"
               "（① からは「猫は魚を見つけた。それを食べた。」の 猫・魚・それ を 4 次元のベクトルにした例）と、"
               "それに添えた数値や説明のことで、「教科書の値に戻す」は入力をその作例の値に戻すボタンです。")


def hand() -> None:
    x = ui.matrix_value(X_KEY, tb.X)
    steps = ui.compute("naive_steps", tutor.handcalc.naive_steps, x, decimals=3, tokens=TOKENS)
    if steps is None:
        return
    st.markdown("手で追える大きさにするため、文から 猫・魚・それ の 3 トークンだけを使い、埋め込みは 4 次元にします。"
                "値は計算しやすいように選んだ仮のもので、実際のモデルでは埋め込みも学習で決まります。")
    ui.show_matrix(x, TOKENS, DIMS, digits=ui.handcalc.auto_digits(x), caption="埋め込み X")
    st.markdown("**手順 1　スコア $S = XX^\\top$**：すべての組で内積をとります。"
                "$s_{ij}$ は、$i$ 番目のトークンが $j$ 番目のトークンにつける点数です。")
    ui.handcalc.matrix_steps(steps.scores, key="naive_s", title="$S = XX^\\top$ の全要素", show_result=False)
    ui.show_matrix(steps.scores.result, TOKENS, TOKENS, digits=ui.handcalc.auto_digits(steps.scores.result),
                   caption="スコア S（行 = 見る側、列 = 見られる側）")
    st.markdown("**手順 2　行ごとに softmax**：各行の $e^{s}$ を合計で割ります"
                "（ここでは教科書と同じく小数第 3 位まで（第 4 位を四捨五入）求めながら計算します）。")
    ui.handcalc.softmax_steps(steps.softmax, key="naive_a", title="重み $A$：行ごとの softmax", show_result=False)
    ui.show_matrix(steps.weights, TOKENS, TOKENS, caption="注意の重み A（各行の合計が 1）")
    st.markdown("**手順 3　重み付き平均 $Z = AX$**：重みの割合で埋め込みを混ぜます。")
    ui.handcalc.weighted_sums(steps.weighted_sums, TOKENS, key="naive_z", title="$Z = AX$：埋め込みの重み付き和")
    ui.show_matrix(steps.z, TOKENS, DIMS, caption="新しいベクトル Z（文脈を取り込んだ埋め込み）")


def visual() -> None:
    x = ui.matrix_value(X_KEY, tb.X)
    weak = ui.compute("naive", tutor.naive.naive_weaknesses, x)
    if weak is None:
        return
    res = weak.result
    st.markdown("注意の重み $A$ をヒートマップにしました。明るいマスほど重みが大きい組です。")
    ui.heatmap(res.weights, TOKENS, TOKENS, title="素朴な Attention の重み A")
    st.markdown(
        f"「それ」の行に注目します。魚への重みは **{ui.handcalc.number(res.weights[IT, FISH], 3)}**、"
        f"猫への重みは **{ui.handcalc.number(res.weights[IT, CAT], 3)}**、"
        f"自分自身への重みは **{ui.handcalc.number(res.weights[IT, IT], 3)}** です。"
        + ("重みの 1 位は「それ」自身で、指している魚には集まっていません。"
           "素朴な Attention では、代名詞と指す相手の関係（照応）を拾えていないということです。"
           if weak.self_top[IT] else
           "いまの埋め込みでは、「それ」自身への重みとほかの語への最大の重みが同じで、1 位が並んでいます。"
           if weak.self_tied[IT] else
           "いまの埋め込みでは、重みの 1 位は「それ」自身ではありません。")
    )
    st.subheader("数値が示す 4 つの弱点")
    with st.container(border=True):
        st.markdown(
            f"**弱点 1：自分自身への重みが大きくなりやすい。** $s_{{ii}} = |\\mathbf{{x}}_i|^2$ はベクトルの長さの 2 乗です。"
            "どのベクトルも長さが等しければ、自分との内積を上回る組はありません（コーシー・シュワルツの不等式）。"
            f"いまの値では、自分とのスコアが {vector(weak.self_scores, ui.handcalc.auto_digits(weak.self_scores))}、"
            f"自分以外で最大のスコアが {vector(weak.max_other_scores, ui.handcalc.auto_digits(weak.max_other_scores))} です。"
            f"{len(TOKENS)} 行中 **{weak.n_self_top} 行** で、重みの 1 位が自分自身になっています"
            f"（「それ」の行：自分 {ui.handcalc.number(weak.self_weights[IT], 3)}、自分以外の最大 "
            f"{ui.handcalc.number(weak.max_other_weights[IT], 3)}）。"
            + (f"ほかに {weak.n_self_tied} 行で、自分とほかの語が 1 位に並んでいます。" if weak.n_self_tied else "")
        )
    with st.container(border=True):
        sym = "対称" if weak.symmetric else "非対称"
        sd = ui.handcalc.auto_digits(res.scores)
        st.markdown(
            f"**弱点 2：役割のつながりを測れず、向きの区別もない。** それ → 魚 のスコアは "
            f"{ui.handcalc.number(res.scores[IT, FISH], sd)}、それ → 猫 は {ui.handcalc.number(res.scores[IT, CAT], sd)} です。"
            "代名詞と、それが指す名詞とは、意味の似た語ではありません。"
            "知りたいのは「この代名詞はどの名詞の代わりか」という役割のつながりですが、"
            "埋め込みどうしの内積が測るのは意味の近さです。"
            f"さらに $S$ は **{sym}** で（魚 → それ も {ui.handcalc.number(res.scores[FISH, IT], sd)}）、"
            "見る側と見られる側を入れ替えても同じ点数になります。"
        )
    with st.container(border=True):
        st.markdown(
            "**弱点 3：1 本のベクトルが目印と中身を兼ねている。** 魚が選ばれるかどうかを決めるスコアにも、"
            f"選ばれたあと「それ」に流れ込む情報にも、同じ埋め込み {vector(x[FISH], ui.handcalc.auto_digits(x))} が使われます。"
            "相手に探し当ててもらうための特徴と、相手に届けたい情報とを、分けて持つことができません。"
        )
    with st.container(border=True):
        st.markdown(
            f"**弱点 4：調整できるパラメータが 1 つもない。** 素朴版で学習によって変えられる数は **{weak.n_params} 個** です。"
            "たくさんの文章から「代名詞は前に出た名詞に注目するとよい」といったこつを覚えようにも、書き込む場所がありません。"
            f"次のページで $W_Q, W_K, W_V$（各 {x.shape[1]}×2）を加えると、調整できる数が "
            f"**{tutor.qkv.qkv_param_count(x.shape[1], 2, 2)} 個** になります。"
        )
    st.info(f"4 つの弱点への答えが、次のページ「{ui.PAGE_BY_KEY['qkv'].label}」です。"
            "埋め込みから役割の違う 3 本のベクトルを学習で作ることで、どの弱点も解消されます。")


@st.fragment
def try_it() -> None:
    """The editor and what it changes at once, as a fragment: a cell edit reruns this part only."""
    st.markdown("埋め込みの数値を書き換えると、このページの手計算・ヒートマップ・弱点の数値がすべて計算し直されます"
                "（「手計算」「可視化」を開くと、書き換えた値で計算されています）。"
                "たとえば「それ」の行を「魚」に近づけると、それ → 魚 の重みはどう変わるでしょうか。")
    x = ui.matrix_editor(X_KEY, tb.X, TOKENS, DIMS, label="埋め込み X（1 行 = 1 トークン）", reset_label=ui.TEXTBOOK_RESET)
    weak = ui.compute("naive", tutor.naive.naive_weaknesses, x)
    if weak is None:
        return
    res = weak.result
    c1, c2, c3 = st.columns(3)
    c1.metric("それ → 猫", ui.handcalc.number(res.weights[IT, CAT], 3))
    c2.metric("それ → 魚", ui.handcalc.number(res.weights[IT, FISH], 3))
    c3.metric("それ → それ", ui.handcalc.number(res.weights[IT, IT], 3))
    ui.heatmap(res.weights, TOKENS, TOKENS, title="いまの埋め込みでの重み A")


ui.sections("naive", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("naive"))
