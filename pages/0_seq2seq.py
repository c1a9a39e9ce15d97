"""⓪ Seq2Seq と Attention の誕生: the RNN encoder–decoder and its fixed-length bottleneck,
Bahdanau's additive attention by hand, dot-product attention for contrast, teacher forcing vs
the model's own output, LSTM/GRU gates, exploding gradients and clipping, word embeddings."""
import streamlit as st

import ui
from tutor import numfmt
from tutor import seq2seq as s2s
from ui.validate import format_number, format_tiny

ui.page("seq2seq")

SRC = list(s2s.SRC_TOKENS)
HID = ["成分1", "成分2"]


def fmt(x) -> str:
    """A number as the page prints it: whole numbers without decimals, others to 3 places."""
    x = float(x)
    return format_number(x, 0) if x.is_integer() else format_number(x, 3)


def length(x) -> str:
    """A length that may be tiny or huge: 3 places, 9.5×10⁻⁷ below 0.001, thousands separated."""
    x = float(x)
    return format_tiny(x, 3) if x < 1000 else numfmt.grouped(x)


def par(x) -> str:
    """A factor inside a product: negatives in parentheses."""
    text = fmt(x)
    return f"({text})" if text.startswith("-") else text


def col(xs) -> str:
    """A column vector in LaTeX."""
    return r"\begin{pmatrix} " + r" \\ ".join(fmt(x) for x in xs) + r" \end{pmatrix}"


def row(xs) -> str:
    return "(" + ",\\ ".join(fmt(x) for x in xs) + ")"


def mat(m) -> str:
    return r"\begin{pmatrix} " + r" \\ ".join(" & ".join(fmt(x) for x in r) for r in m) + r" \end{pmatrix}"


def text_row(xs) -> str:
    """(0.487, 0.760) for prose."""
    return "(" + ", ".join(fmt(x) for x in xs) + ")"


def matvec_tex(name: str, vec_name: str, m, x, result) -> str:
    """W s = (each row's products) = result: the products written out, the result from the engine."""
    rows = [" + ".join(f"{par(a)} \\times {par(b)}" for a, b in zip(r, x)) for r in m]
    return f"{name}\\,{vec_name} = " + r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix} = " + col(result)


# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- Transformer の前に機械翻訳を担っていた **RNN の Seq2Seq**（エンコーダ・デコーダ）と、その弱点である"
    "**固定長ベクトルのボトルネック** を説明できる。\n"
    "- Bahdanau らの **加法注意**（$e_j = v^\\top \\tanh(W s + U h_j)$）を小さな例で手計算し、"
    "内積による注意と比べられる。\n"
    "- **教師強制**、LSTM・GRU のゲート、**勾配クリッピング**、**分散表現** を、G検定で問われる言葉で説明できる。"
)

ui.section("explain")
st.subheader("RNN のエンコーダ・デコーダと固定長のボトルネック")
st.markdown(
    "**Seq2Seq** は、系列を別の系列に変換するモデルです（翻訳なら日本語の文 → 英語の文）。"
    "RNN 版では、**エンコーダ** が入力の語を 1 つずつ読みながら隠れ状態 $h_t$ を更新し、読み終えたときの"
    "最後の状態 $h_n$ を **文脈ベクトル** としてデコーダに渡します。**デコーダ** はそれを出発点に、"
    "訳語を 1 つずつ書き出します。"
)
st.latex(r"h_t = f(x_t,\ h_{t-1}),\qquad c = h_n")
sizes = s2s.context_sizes(30, 256)
st.markdown(
    "問題は、入力が何語あっても文脈ベクトルの大きさが変わらないことです。たとえば隠れ状態が 256 次元なら、"
    f"30 語の文もたった **{sizes['fixed']:,} 個** の数に押し込まれます。"
    f"エンコーダは途中の時刻にも状態を作っていて（30 語なら合わせて {sizes['attention']:,} 個の数）、"
    "それを捨ててしまうのが **ボトルネック** です。長い文ほど前半の情報が薄れ、訳の質が落ちます。"
)
st.subheader("Attention の誕生：加法注意（Bahdanau ら、2014 年）")
st.markdown(
    "そこで、デコーダが 1 語書くたびに、エンコーダの **すべての時刻の状態** $h_1, \\dots, h_n$ を見直せるようにしたのが "
    "Attention です。デコーダの直前の状態 $s_{i-1}$ と各 $h_j$ の相性をスコア $e_{ij}$ にし、"
    "softmax で足して 1 になる重み $\\alpha_{ij}$ に直し、その割合で $h_j$ を混ぜて、その時刻専用の文脈ベクトル "
    "$c_i$ を作ります。スコアを tanh を挟んだ小さなネット（パラメータ $W, U, v$）で計算するので **加法注意** と呼ばれます。"
)
st.latex(r"e_{ij} = v^\top \tanh\left(W s_{i-1} + U h_j\right)")
st.latex(r"\alpha_{ij} = \frac{\exp(e_{ij})}{\sum_k \exp(e_{ik})},\qquad c_i = \sum_j \alpha_{ij}\, h_j")
st.markdown(
    "スコアを内積 $e_{ij} = s_{i-1} \\cdot h_j$ で済ませるのが **内積による注意** です。パラメータが要らず、"
    "行列の積でまとめて計算できます（$s$ と $h_j$ の長さは同じ必要があります）。"
    "Transformer の注意は、この内積を $\\sqrt{d_k}$ で割る形です（① 以降のページ）。"
    "Attention は RNN の「遠くの語の情報が届きにくい」「1 本のベクトルに詰め込む」という問題を和らげ、"
    "やがて RNN そのものをなくした Transformer につながりました。"
)
st.subheader("LSTM と GRU のゲート")
st.markdown(
    "単純な RNN は、時刻をさかのぼるほど勾配が小さくなり（**勾配消失**）、遠い語との関係を学べません。"
    "**LSTM** は記憶用の **セル** を持ち、3 つのゲートで出入りを調節します。**忘却ゲート** はセルの記憶のうち何を消すか、"
    "**入力ゲート** は新しい情報をどれだけ書き込むか、**出力ゲート** はセルのどれだけを隠れ状態として外に出すかを決めます。"
    "**GRU** はこれを 2 つにまとめた簡略版で、**更新ゲート** が前の状態と新しい候補を混ぜる割合を、**リセットゲート** が"
    "候補を作るときに前の状態をどれだけ使うかを決めます（セルはありません）。どのゲートもシグモイド関数で 0〜1 の値をとり、"
    "掛け算で情報の通る量を決めます。"
)
st.subheader("勾配爆発と勾配クリッピング")
st.markdown(
    "逆に、時刻をさかのぼるたびに勾配が大きくなると **勾配爆発** が起き、1 回の更新でパラメータが大きく飛んでしまいます。"
    "素朴で効く対策が **ノルムによる勾配クリッピング** です。勾配ベクトル $g$ の長さ $\\|g\\|$ がしきい値 $c$ を超えたときだけ、"
    "向きはそのままで長さを $c$ に縮めます。"
)
st.latex(r"g \leftarrow g \cdot \min\left(1,\ \frac{c}{\|g\|}\right)")
st.subheader("教師強制（teacher forcing）")
st.markdown(
    "デコーダは前の時刻の語を入力にして次の語を予測します。学習のとき、その入力に **正解の前の語** を使うのが **教師強制** です。"
    "前の予測が外れても次の入力は正しいので、学習は安定して速く進みます。ところが推論のときには正解がなく、"
    "**自分が出した語** を次の入力にするしかありません。学習中に自分の誤りを入力として見たことがないので、"
    "一度間違えると誤りが後ろへ連鎖しがちです。この学習と推論のずれを **露出バイアス**（exposure bias）と呼びます。"
)
st.subheader("単語の分散表現（単語埋め込み）")
st.markdown(
    "RNN に語を入れるには、語をベクトルにする必要があります。語彙の数だけ次元を用意して 1 か所だけを 1 にする "
    "**one-hot 表現** では、どの 2 語も直交する（内積が 0）ので、「猫と犬は近い」ことを表せません。"
    "**分散表現**（**単語埋め込み**）は、各語を数百次元ほどの密な実数ベクトルで表し、似た使われ方の語ほど向きが近くなるように"
    "学習します（word2vec など）。近さはコサイン類似度 $\\cos(a, b) = \\dfrac{a \\cdot b}{\\|a\\|\\,\\|b\\|}$ で測ります。"
)


@st.fragment
def lesson() -> None:
    """手計算・可視化 and the editors of 試してみよう as one fragment: both follow H, s, W, U and v,
    so an edit reruns this part only (not the explanation above, the sections below or the quiz)."""
    ui.section("hand")
    hand_box = st.container()
    ui.section("visual")
    visual_box = st.container()

    # ---------------------------------------------------------------------------
    ui.section("try")
    st.markdown("エンコーダの状態 $H$（1 行が 1 語の $h_j$）やデコーダの状態 $s$ を書き換えると、手計算・ヒートマップ・"
                "内積による注意との比較がすべて計算し直されます。たとえば「食べた」の行を $s$ に近づけると、重みはどこへ移るでしょうか。")
    h = ui.matrix_editor("seq2seq_h", s2s.ENC_STATES, SRC, HID, label="エンコーダの状態 H（1 行 = 1 語）")
    s = ui.matrix_editor("seq2seq_s", s2s.DEC_STATE[None, :], ["s"], HID, label="デコーダの直前の状態 s")[0]
    with st.expander("パラメータ W, U, v も変える"):
        c1, c2 = st.columns(2)
        with c1:
            w = ui.matrix_editor("seq2seq_w", s2s.W_DEC, ["1", "2"], HID, label="W（d_a × d_s）")
        with c2:
            u = ui.matrix_editor("seq2seq_u", s2s.U_ENC, ["1", "2"], HID, label="U（d_a × d_h）")
        v = ui.matrix_editor("seq2seq_v", s2s.V_ATT[None, :], ["v"], ["1", "2"], label="v（長さ d_a）")[0]
    att = ui.compute("seq2seq_att", s2s.additive_attention, s, h, w, u, v)
    dot = ui.compute("seq2seq_dot", s2s.dot_attention, s, h)
    if att is None or dot is None:
        return
    m1, m2, m3 = st.columns(3)
    for column, j in zip((m1, m2, m3), range(len(SRC))):
        column.metric(f"{SRC[j]} への重み α", fmt(att.weights[j]))

    # ---------------------------------------------------------------------------
    with hand_box:
        st.markdown(f"入力文を「{'・'.join(SRC)}」の 3 語とし、エンコーダの状態 $h_j$ とデコーダの状態 $s$ を 2 次元にします。"
                    "値は手で追えるように選んだ仮のもので、本物のモデルではどれも学習と計算で決まります。"
                    "下の「試してみよう」で書き換えると、この手計算も変わります。")
        c1, c2 = st.columns(2)
        with c1:
            ui.show_matrix(h, SRC, HID, digits=ui.handcalc.auto_digits(h), caption="エンコーダの状態 H（行 = h_j）")
        with c2:
            ui.show_matrix(s[None, :], ["s"], HID, digits=ui.handcalc.auto_digits(s[None, :]), caption="デコーダの状態 s")
        st.latex(f"W = {mat(w)},\\quad U = {mat(u)}")
        st.latex(f"v = {col(v)}")
        st.markdown("**手順 1　$W s$**：デコーダの状態を変換します（どの $j$ にも共通）。")
        st.latex(matvec_tex("W", "s", w, s, att.ws))
        st.markdown("**手順 2　$U h_j$**：エンコーダの各状態を変換します。")
        st.latex(ui.handcalc.stack([matvec_tex("U", f"h_{{{j + 1}}}", u, h[j], att.uh[j]) for j in range(len(SRC))]))
        st.markdown("**手順 3　足して tanh、$v$ との内積でスコア $e_j$**")
        for j in range(len(SRC)):
            st.latex(r"\begin{aligned}" + f"e_{{{j + 1}}} &= v^\\top \\tanh{col(att.pre[j])} = v^\\top {col(att.hidden[j])}"
                     + r" \\ &= " + " + ".join(f"{par(a)} \\times {par(b)}" for a, b in zip(v, att.hidden[j]))
                     + f" \\\\ &\\approx {fmt(att.scores[j])}" + r"\end{aligned}")
        st.markdown("**手順 4　softmax で重み $\\alpha_j$、重み付き和で文脈ベクトル $c$**")
        st.latex(r"\begin{aligned}\alpha &= \mathrm{softmax}" + row(att.scores) + r" \\ &\approx " + row(att.weights)
                 + r"\end{aligned}")
        st.latex(r"\begin{aligned}c &= " + r" \\ &\quad + ".join(f"{fmt(a)} \\times {row(hj)}" for a, hj in zip(att.weights, h))
                 + r" \\ &\approx " + row(att.context) + r"\end{aligned}")
        st.caption("表示は小数第 4 位を四捨五入した値です（計算は丸めずに進めています）。")
        ui.show_table({"値": ["スコア e（加法注意）", "重み α（加法注意）", "スコア s·h（内積）", "重み α（内積）"],
                       **{tok: [fmt(att.scores[j]), fmt(att.weights[j]), fmt(dot.scores[j]), fmt(dot.weights[j])]
                          for j, tok in enumerate(SRC)}}, hide_index=True)
        st.markdown(
            f"加法注意の重みがいちばん大きいのは **{SRC[att.top]}**（{fmt(att.weights[att.top])}）です。"
            f"同じ $s$ と $h_j$ でも、内積による注意の文脈ベクトルは {text_row(dot.context)} になり、"
            f"Attention を使わない Seq2Seq が渡すのは最後の状態 $h_{{{len(SRC)}}}$ = "
            f"{text_row(s2s.fixed_context(h))} だけです。"
        )

    with visual_box:
        st.markdown("デコーダの 1 時刻ぶんの重みを、加法注意と内積による注意で並べました。明るいマスほど、その語の状態を多く混ぜます。")
        ui.heatmap([att.weights, dot.weights], ["加法注意", "内積注意"], SRC, x_title="入力の語（エンコーダの状態 h_j）",
                   y_title="方式", title="デコーダの 1 時刻の重み α")
        st.subheader("勾配消失と勾配爆発を数で見る")
        st.markdown("時刻を 1 つさかのぼるたびに、勾配に再帰の変換 $W^\\top$ が掛かります。ここでは $W = aI$ の線形な RNN で、"
                    "長さ 1 の勾配が $t$ 段さかのぼったときの長さ $\\|g_t\\| = a^t$ を計算しました（tanh を挟むと、さらに小さくなる向きに働きます）。")
        depths = (0, 5, 10, 20)
        back = {a: s2s.scaled_recurrence_norms(a, max(depths)) for a in (0.5, 1.0, 1.5)}
        ui.show_table({"a": [format_number(a, 1) for a in back],
                       **{f"t = {d}": [length(n[d]) for n in back.values()] for d in depths}}, hide_index=True)
        st.caption(f"a = 0.5 では 20 段で {length(back[0.5][20])} まで縮み（勾配消失）、a = 1.5 では {length(back[1.5][20])} まで"
                   "膨らみます（勾配爆発）。爆発した勾配も、ノルムによるクリッピングなら向きを保ったまま長さ c に収まります。")
        st.subheader("教師強制と、自分の出力を入れる生成")
        teacher, free = s2s.exposure_gap(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
        st.markdown(
            "前の語だけを見て次の語を当てる小さなデコーダ（2 語の組の表で予測する）を用意しました。正解の文は「"
            + " ".join(s2s.TF_TARGET) + "」です。このモデルは「は」の次を少しだけ間違えて覚えていて、「魚」より「猫」を選びます。"
            "同じモデルを、入力の与え方だけを変えて動かします。"
        )
        tab_t, tab_f = st.tabs(["教師強制（学習時）", "自分の出力を入れる（推論時）"])
        for tab, run in ((tab_t, teacher), (tab_f, free)):
            with tab:
                ui.show_table({
                    "時刻": [str(t + 1) for t in range(len(s2s.TF_TARGET))],
                    "入力": list(run.inputs),
                    "予測": list(run.predictions),
                    "正解": list(s2s.TF_TARGET),
                    "正誤": ["○" if ok else "×" for ok in run.correct],
                }, hide_index=True)
        t1, t2 = st.columns(2)
        t1.metric("教師強制での正解数", f"{teacher.n_correct} / {len(s2s.TF_TARGET)}")
        t2.metric("自分の出力を入れたときの正解数", f"{free.n_correct} / {len(s2s.TF_TARGET)}")
        st.markdown(
            f"教師強制では、時刻 3 で間違えても時刻 4 の入力は正解の「{teacher.inputs[3]}」なので、誤りは 1 か所で止まります。"
            f"自分の出力を入れると、時刻 3 の誤り「{free.predictions[2]}」が次の入力になり、そこから"
            "「猫 → は → 猫 …」のくり返しに入って、残りがすべて外れます。学習中の正解数だけを見ていると、"
            "推論時のこの弱さ（露出バイアス）に気づけません。"
            f"教師強制のもとでの平均の交差エントロピー損失は {fmt(teacher.loss)} です。"
        )


@st.fragment
def try_gradients() -> None:
    """勾配クリッピング as a fragment: g or c reruns this part and the one below it (which clips
    with this c), not the page."""
    st.markdown("**勾配クリッピング**：勾配 $g$ としきい値 $c$ を変えてみましょう。")
    g = ui.matrix_editor("seq2seq_g", s2s.CLIP_GRAD[None, :], ["g"], ["1", "2"], label="勾配 g")[0]
    c = ui.number_input("しきい値 c", min_value=0.001, max_value=1_000_000.0, value=float(s2s.CLIP_THRESHOLD),
                        step=0.5, key="seq2seq_c", persist_state="session")
    clip = ui.compute("seq2seq_clip", s2s.clip_by_norm, g, c)
    by_value = ui.compute("seq2seq_clip_value", s2s.clip_by_value, g, c)
    if clip is not None and by_value is not None:
        k1, k2, k3 = st.columns(3)
        k1.metric("‖g‖", fmt(clip.norm))
        k2.metric("倍率 min(1, c/‖g‖)", fmt(clip.factor))
        k3.metric("クリップ後の g", text_row(clip.clipped))
        st.latex(r"\|g\| = " + fmt(clip.norm) + r",\quad g \cdot " + fmt(clip.factor) + " = " + row(clip.clipped))
        st.caption(("‖g‖ がしきい値を超えたので、向きを保ったまま長さを c に縮めました。"
                    if clip.was_clipped else "‖g‖ がしきい値以下なので、勾配はそのままです。")
                   + f"成分ごとに [−c, c] に切る方法（値によるクリッピング）だと {text_row(by_value)} になり、"
                   "向きが変わることがあります。")

    try_recurrence(c)


@st.fragment
def try_recurrence(c: float) -> None:
    """勾配の爆発と消失 as a fragment inside try_gradients: a step of a reruns this part only, with
    the c of try_gradients' last run (a new c reruns both)."""
    st.markdown("**勾配の爆発と消失**：再帰の変換の大きさ $a$ を変えて、さかのぼった勾配の長さを見てみましょう。")
    a_rec = st.slider("再帰の変換の大きさ a（W = aI）", min_value=0.1, max_value=2.0, value=1.2, step=0.1,
                      key="seq2seq_a", persist_state="session")
    norms = ui.compute("seq2seq_norms", s2s.scaled_recurrence_norms, a_rec, 30)
    clip_back = ui.compute("seq2seq_clip_back", s2s.clip_by_norm, [norms[-1], 0.0], c) if norms is not None else None
    if norms is not None and clip_back is not None:
        r1, r2 = st.columns(2)
        r1.metric("30 段さかのぼった勾配の長さ", length(norms[-1]))
        r2.metric("上のしきい値 c でクリップした長さ", length(clip_back.clipped_norm))


@st.fragment
def try_embeddings() -> None:
    """分散表現 as a fragment: an edit of E reruns this part only."""
    st.markdown("**分散表現**：4 語の埋め込み（値は説明用の仮のもの）を書き換えると、下のコサイン類似度が変わります。")
    emb = ui.matrix_editor("seq2seq_emb", s2s.EMB_VECTORS, list(s2s.EMB_WORDS), list(s2s.EMB_DIMS), label="埋め込み E（1 行 = 1 語）")
    sim = ui.compute("seq2seq_sim", s2s.similarity_matrix, emb)
    onehot = s2s.similarity_matrix([s2s.one_hot_vector(i, len(s2s.EMB_WORDS)) for i in range(len(s2s.EMB_WORDS))])
    if sim is not None:
        e1, e2 = st.columns(2)
        with e1:
            ui.heatmap(onehot, s2s.EMB_WORDS, s2s.EMB_WORDS, x_title="", y_title="", title="one-hot のコサイン類似度")
        with e2:
            ui.heatmap(sim, s2s.EMB_WORDS, s2s.EMB_WORDS, x_title="", y_title="", title="分散表現のコサイン類似度")
        st.caption(f"one-hot では異なる語どうしがすべて 0 です。分散表現では 猫 と 犬 が {fmt(sim[0, 1])}、"
                   f"猫 と 走る が {fmt(sim[0, 3])} で、語の近さが数に表れます。")


lesson()
try_gradients()
try_embeddings()

ui.quiz_section("seq2seq")
ui.next_link("seq2seq")
