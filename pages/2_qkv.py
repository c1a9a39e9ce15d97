"""② Q・K・V: three learned views of each token; the score table stops being symmetric."""
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.handcalc import auto_digits, number, vector

ui.page("qkv")

TOKENS = list(tb.TOKENS)
CAT, FISH, IT = (TOKENS.index(t) for t in ("猫", "魚", "それ"))
W_ROWS = ["次元1", "次元2", "次元3", "次元4"]
W_COLS = ["列1", "列2"]

W_PREFIX = "qkv"   # the weight editors of 試してみよう (qkv_wq, qkv_wk, qkv_wv); 手計算 and 可視化 compute with them
DEFAULTS = (tb.W_Q, tb.W_K, tb.W_V)


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 1 本の埋め込みから **クエリ・キー・バリュー** の 3 つのベクトルを作る理由を、たとえで説明できる。\n"
        "- $Q = XW_Q,\\ K = XW_K,\\ V = XW_V$ を要素ごとに計算できる。\n"
        "- スコア表が **非対称** になり、「それ」が「魚」を見るようになることを数値で確かめる。"
    )

    ui.section("explain")
    st.markdown(
        "勉強会の交流タイムを思い浮かべてください。参加者はみな、次の 3 つを持っています。\n\n"
        "- 手帳に書いた「いま聞きたいこと」のメモ\n"
        "- 胸の名札に書いた「得意分野」\n"
        "- 話しかけられたときに教えられる、実際の知識\n\n"
        "あなたは自分のメモと周りの人の名札を見比べ、話が合いそうな人ほど長く話を聞いて、"
        "聞いた知識をノートにまとめます。名札は短い目印にすぎず、知識そのものではありません。"
        "また、自分のメモと自分の名札が似ている必要もありません。"
    )
    st.markdown(
        "Attention では、メモが **クエリ**、名札が **キー**、知識が **バリュー** にあたります。"
        "トークンごとに、役割の違う 3 本のベクトルを用意するわけです。\n\n"
        "- **クエリ** $\\mathbf{q}_i$：トークン $i$ がどんな相手を探しているか\n"
        "- **キー** $\\mathbf{k}_j$：トークン $j$ が「自分はこういう者だ」と示す目印\n"
        "- **バリュー** $\\mathbf{v}_j$：トークン $j$ が選ばれたときに差し出す情報\n\n"
        "3 本とも、同じ埋め込み $\\mathbf{x}_i$ に別々の **変換行列** $W_Q, W_K, W_V$ を右から掛けて作ります。"
        "変換行列の成分は、学習で調整される **パラメータ** です。"
        "「代名詞は前に出た名詞に注目する」のような注目の仕方は、誰かがプログラムに書き込むわけではありません。"
        "次の単語を予測する練習をたくさんの文で繰り返すうちに、変換行列の値として身についていきます。"
    )
    st.latex(r"\mathbf{q}_i = \mathbf{x}_i W_Q,\quad \mathbf{k}_i = \mathbf{x}_i W_K,\quad \mathbf{v}_i = \mathbf{x}_i W_V")
    st.latex(r"W_Q,\ W_K:\ d_{\text{model}}\times d_k")
    st.latex(r"W_V:\ d_{\text{model}}\times d_v")
    st.latex(r"s_{ij} = \mathbf{q}_i\cdot\mathbf{k}_j,\qquad \tilde{s}_{ij} = \frac{s_{ij}}{\sqrt{d_k}}")
    st.latex(r"a_{ij} = \frac{e^{\tilde{s}_{ij}}}{\sum_{m} e^{\tilde{s}_{im}}}")
    st.latex(r"\mathbf{z}_i = \sum_j a_{ij}\,\mathbf{v}_j")
    st.markdown(
        "クエリとキーは内積をとる相手どうしなので、どちらも $d_k$ 次元にそろえます。"
        "スコアを計算するとき、見る側 $i$ はクエリを、見られる側 $j$ はキーを出すので、"
        "$s_{ij}$ と $s_{ji}$ は一般に別の値になります。"
        "「それ → 魚」は強く「魚 → それ」は弱い、という向きのある関係が書けるようになるわけです。"
        "このページでも、スコア $s_{ij}$ を $\\sqrt{d_k}$ で割った $\\tilde{s}_{ij}$ を softmax に通しています。"
        f"割る理由は次のページ「{ui.PAGE_BY_KEY['scaling'].label}」で扱います。"
    )


def hand() -> None:
    w_q, w_k, w_v = ui.weight_values(W_PREFIX, DEFAULTS)
    cmp = ui.compute("qkv", tutor.qkv.compare_naive_qkv, tb.X, w_q, w_k, w_v)
    hc = ui.compute("qkv_steps", tutor.handcalc.hand_calculation, tb.X, w_q, w_k, w_v, tokens=TOKENS)
    if cmp is None or hc is None:
        return
    attn = cmp.attn
    sd = auto_digits(attn.scores)  # whole-number scores print as 4, not 4.000
    st.markdown("埋め込み $X$ は前のページと同じです。これに $d_k = d_v = 2$ の変換行列を掛けます。")
    ui.show_matrix(tb.X, TOKENS, W_ROWS, digits=0, caption="埋め込み X（3×4）")
    c1, c2, c3 = st.columns(3)
    for col, w, name in ((c1, w_q, "W_Q"), (c2, w_k, "W_K"), (c3, w_v, "W_V")):
        with col:
            ui.show_matrix(w, W_ROWS, W_COLS, digits=auto_digits(w), caption=f"変換行列 ${name}$")
    st.markdown("**クエリ $Q = XW_Q$**：$X$ の行と $W_Q$ の列の内積を並べます。")
    ui.handcalc.matrix_steps(hc.q, key="qkv_q", title="$Q = XW_Q$ の全要素", expanded=True)
    ui.handcalc.matrix_steps(hc.k, key="qkv_k", title="$K = XW_K$ の全要素")
    ui.handcalc.matrix_steps(hc.v, key="qkv_v", title="$V = XW_V$ の全要素")
    c1, c2, c3 = st.columns(3)
    with c1:
        ui.show_matrix(hc.q.result, TOKENS, ["q1", "q2"], digits=auto_digits(hc.q.result), caption="Q")
    with c2:
        ui.show_matrix(hc.k.result, TOKENS, ["k1", "k2"], digits=auto_digits(hc.k.result), caption="K")
    with c3:
        ui.show_matrix(hc.v.result, TOKENS, ["v1", "v2"], digits=auto_digits(hc.v.result), caption="V")
    st.markdown(
        f"「それ」のクエリ {vector(hc.q.result[IT], auto_digits(hc.q.result))} と"
        f"「魚」のキー {vector(hc.k.result[FISH], auto_digits(hc.k.result))} を並べてみます。"
        f"元の埋め込み（それ {vector(tb.X[IT], 0)}、魚 {vector(tb.X[FISH], 0)}）どうしの内積は "
        f"{number(cmp.naive.scores[IT, FISH], auto_digits(cmp.naive.scores))} でしたが、"
        f"クエリとキーの内積は {number(attn.scores[IT, FISH], sd)} です。"
        "クエリ用とキー用で異なる変換行列を通したことで、「それ」が探すものと魚が掲げる目印とが結びつきました。"
    )
    st.markdown("**スコア $S = QK^\\top$**：$(i, j)$ 成分は $s_{ij} = \\mathbf{q}_i\\cdot\\mathbf{k}_j$ です。")
    ui.handcalc.matrix_steps(hc.scores, key="qkv_s", title="$S = QK^\\top$ の全要素")
    ui.handcalc.matrix_steps(hc.scaled, key="qkv_scaled", title="$\\tilde{S} = S/\\sqrt{d_k}$ の全要素")


def visual() -> None:
    cmp = ui.compute("qkv", tutor.qkv.compare_naive_qkv, tb.X, *ui.weight_values(W_PREFIX, DEFAULTS))
    if cmp is None:
        return
    attn = cmp.attn
    sd = auto_digits(attn.scores)
    st.markdown("① の素朴版のスコア $XX^\\top$ と、Q・K・V 版のスコア $QK^\\top$ を左右に置きます。"
                "どちらも行が見る側、列が見られる側です。")
    ui.side_by_side([(cmp.naive.scores, TOKENS, TOKENS, "素朴版 S = XXᵀ"), (attn.scores, TOKENS, TOKENS, "Q・K・V 版 S = QKᵀ")],
                    digits=max(auto_digits(cmp.naive.scores), sd), x_title="キー（見られる側）", y_title="クエリ（見る側）")
    if cmp.symmetric:
        st.warning("いまの $W_Q, W_K$ では $QK^\\top$ が対称です。見る側と見られる側の区別が消えています。")
    else:
        st.markdown(
            f"左の表は対角線をはさんで対称ですが、右の $QK^\\top$ は **非対称** です。"
            f"それ → 魚 が **{number(attn.scores[IT, FISH], sd)}** なのに対し、逆向きの 魚 → それ は "
            f"**{number(attn.scores[FISH, IT], sd)}** です。"
            f"向きを入れ替えると値が変わる組は {len(cmp.asymmetric)} 組あります。"
        )
    st.subheader("「それ」の行：前と後")
    st.markdown("① の素朴版の重みと、Q・K・V 版（$\\tilde{s}$ に softmax）の重みを並べます。")
    ui.show_matrix([cmp.naive.weights[IT], attn.weights[IT]], ["① 内積だけ", "② Q・K・V あり"], TOKENS,
                   caption="「それ」から各トークンへの重み")
    st.markdown(
        f"素朴版では「それ」自身に {number(cmp.naive.weights[IT, IT], 3)} が集まっていました。"
        f"Q・K・V 版では、魚への重みが **{number(attn.weights[IT, FISH], 3)}**、"
        f"自分への重みが {number(attn.weights[IT, IT], 3)} です。"
        + ("指している魚に重みの大半が向き、照応（それ → 魚）をとらえています。"
           if tutor.top_keys(attn.weights, IT) == (FISH,) else
           "いまの変換行列では、魚が 1 位に並んでいますが、ほかの語と同じ重みです。"
           if FISH in tutor.top_keys(attn.weights, IT) else
           "いまの変換行列では、重みの 1 位は魚ではありません。")
    )
    ui.heatmap(attn.weights, TOKENS, TOKENS, title="Q・K・V 版の重み A")
    st.caption(f"学習で調整できる数値：$W_Q, W_K, W_V$ 合わせて {cmp.n_params} 個（素朴版は 0 個）。")


@st.fragment
def try_it() -> None:
    """The weight editors and what they change at once, as a fragment: an edit reruns this part only."""
    st.markdown("変換行列の数値を書き換えてみましょう（「手計算」「可視化」を開くと、書き換えた値で計算されています）。"
                "たとえば $W_Q$ と $W_K$ を同じ行列にすると、"
                "スコア表はどうなるでしょうか。埋め込み $X$ は前のページと同じ値に固定しています。")
    w_q, w_k, w_v = ui.weight_editors(W_PREFIX, DEFAULTS, W_ROWS, W_COLS,
                                      labels=("$W_Q$（クエリ用）", "$W_K$（キー用）", "$W_V$（バリュー用）"),
                                      reset_label=ui.TEXTBOOK_RESET)
    cmp = ui.compute("qkv", tutor.qkv.compare_naive_qkv, tb.X, w_q, w_k, w_v)
    if cmp is None:
        return
    attn = cmp.attn
    sd = auto_digits(attn.scores)  # whole-number scores print as 4, not 4.000
    m1, m2, m3 = st.columns(3)
    m1.metric("それ → 魚 のスコア", number(attn.scores[IT, FISH], sd))
    m2.metric("魚 → それ のスコア", number(attn.scores[FISH, IT], sd))
    m3.metric("それ → 魚 の重み", number(attn.weights[IT, FISH], 3))
    ui.heatmap(attn.scores, TOKENS, TOKENS, digits=sd, title="いまの変換行列でのスコア S = QKᵀ")


ui.sections("qkv", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("qkv"))
