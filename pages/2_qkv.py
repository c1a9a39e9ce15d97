"""② Q・K・V: three learned views of each token; the score table stops being symmetric."""
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.steps import auto_digits, number, vector

ui.page("qkv")

TOKENS = list(tb.TOKENS)
CAT, FISH, IT = (TOKENS.index(t) for t in ("猫", "魚", "それ"))
W_ROWS = ["次元1", "次元2", "次元3", "次元4"]
W_COLS = ["列1", "列2"]

# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- 1 本の埋め込みから **クエリ・キー・バリュー** の 3 つのベクトルを作る理由を、たとえで説明できる。\n"
    "- $Q = XW_Q,\\ K = XW_K,\\ V = XW_V$ を要素ごとに計算できる。\n"
    "- スコア表が **非対称** になり、「それ」が「魚」を見るようになることを数値で確かめる。"
)

ui.section("explain")
st.markdown(
    "図書館で調べものをする場面にたとえます。あなたの頭の中にある「知りたいこと」が **クエリ**、"
    "棚に並んだ本の背に貼られた分類ラベルが **キー**、本を開いて読める本文が **バリュー** です。"
    "ラベルは本を見つけてもらうための短い目印で、本文そのものではありません。"
    "そして、知りたいことと照らし合わせるのはラベルのほうで、持ち帰るのは本文のほうです。"
)
st.markdown(
    "Attention でも、各トークンが 3 つの役割別のベクトルを持ちます。\n\n"
    "- **クエリ** $\\mathbf{q}_i$：自分はどんな情報を探しているか\n"
    "- **キー** $\\mathbf{k}_j$：自分はどんな情報を持っているか（見つけてもらうための目印）\n"
    "- **バリュー** $\\mathbf{v}_j$：選ばれたときに相手へ渡す中身\n\n"
    "3 つは、埋め込みに別々の行列を右から掛けて作ります。行列 $W_Q, W_K, W_V$ の中身は"
    "学習で調整される **パラメータ** です。「代名詞は前に出た名詞を探す」といった見方は、"
    "人が設計するのではなく、大量の文章で次の単語を当てる訓練の中で身につきます。"
)
st.latex(r"\mathbf{q}_i = \mathbf{x}_i W_Q,\quad \mathbf{k}_i = \mathbf{x}_i W_K,\quad \mathbf{v}_i = \mathbf{x}_i W_V")
st.latex(r"W_Q,\ W_K:\ d_{\text{model}}\times d_k")
st.latex(r"W_V:\ d_{\text{model}}\times d_v")
st.latex(r"s_{ij} = \mathbf{q}_i\cdot\mathbf{k}_j")
st.latex(r"a_{ij} = \mathrm{softmax}(s_{i1},\dots,s_{in})_j")
st.latex(r"\mathbf{z}_i = \sum_j a_{ij}\,\mathbf{v}_j")
st.markdown(
    "クエリとキーは内積をとるので同じ次元 $d_k$ が必要です。見る側はクエリ、見られる側はキーと、"
    "**別の顔** を使うので、「それ → 魚」と「魚 → それ」のスコアが違ってもかまわなくなります。"
    "自分のクエリと自分のキーが似ている必要もありません。渡す中身もバリューという別のベクトルです。"
    "（ここでは $\\sqrt{d_k}$ で割る操作も入れています。理由は次のページで扱います。）"
)

ui.section("hand")
hand_box = st.container()
ui.section("visual")
visual_box = st.container()

# ---------------------------------------------------------------------------
ui.section("try")
st.markdown("変換行列の数値を書き換えてみましょう。たとえば $W_Q$ と $W_K$ を同じ行列にすると、"
            "スコア表はどうなるでしょうか。埋め込み $X$ は前のページと同じ値に固定しています。")
w_q, w_k, w_v = ui.weight_editors("qkv", (tb.W_Q, tb.W_K, tb.W_V), W_ROWS, W_COLS,
                                  labels=("W_Q（クエリ用）", "W_K（キー用）", "W_V（バリュー用）"))
cmp = ui.compute("qkv", tutor.compare_naive_qkv, tb.X, w_q, w_k, w_v)
hc = ui.compute("qkv_steps", tutor.hand_calculation, tb.X, w_q, w_k, w_v, tokens=TOKENS)
if cmp is None or hc is None:
    st.stop()
attn = cmp.attn
sd = auto_digits(attn.scores)  # whole-number scores print as 4, not 4.000
m1, m2, m3 = st.columns(3)
m1.metric("それ → 魚 のスコア", number(attn.scores[IT, FISH], sd))
m2.metric("魚 → それ のスコア", number(attn.scores[FISH, IT], sd))
m3.metric("それ → 魚 の重み", number(attn.weights[IT, FISH], 3))

# ---------------------------------------------------------------------------
with hand_box:
    st.markdown("埋め込み $X$ は前のページと同じです。$d_k = d_v = 2$ の変換行列を掛けます。")
    ui.show_matrix(tb.X, TOKENS, W_ROWS, digits=0, caption="埋め込み X（3×4）")
    st.markdown("**クエリ $Q = XW_Q$**：$X$ の行と $W_Q$ の列の内積を並べます。")
    ui.steps.matrix_steps(hc.q, title="$Q = XW_Q$ の全要素", expanded=True)
    ui.steps.matrix_steps(hc.k, title="$K = XW_K$ の全要素")
    ui.steps.matrix_steps(hc.v, title="$V = XW_V$ の全要素")
    c1, c2, c3 = st.columns(3)
    with c1:
        ui.show_matrix(hc.q.result, TOKENS, ["q1", "q2"], digits=auto_digits(hc.q.result), caption="Q")
    with c2:
        ui.show_matrix(hc.k.result, TOKENS, ["k1", "k2"], digits=auto_digits(hc.k.result), caption="K")
    with c3:
        ui.show_matrix(hc.v.result, TOKENS, ["v1", "v2"], digits=auto_digits(hc.v.result), caption="V")
    st.markdown(
        f"「それ」のクエリ {vector(hc.q.result[IT], auto_digits(hc.q.result))} と、"
        f"「魚」のキー {vector(hc.k.result[FISH], auto_digits(hc.k.result))} を比べてください。"
        f"埋め込みどうし（それ {vector(tb.X[IT], 0)}、魚 {vector(tb.X[FISH], 0)}）はあまり似ていないのに、"
        "別々の変換を通すと「探している顔」と「探される顔」が近づきます。"
    )
    st.markdown("**スコア $S = QK^\\top$**：$(i, j)$ 成分は $\\mathbf{q}_i\\cdot\\mathbf{k}_j$ です。")
    ui.steps.matrix_steps(hc.scores, title="$S = QK^\\top$ の全要素")

with visual_box:
    st.markdown("素朴版のスコア $XX^\\top$ と、Q・K・V 版のスコア $QK^\\top$ を並べます。"
                "行が見る側、列が見られる側です。")
    c1, c2 = st.columns(2)
    with c1:
        ui.heatmap(cmp.naive.scores, TOKENS, TOKENS, digits=auto_digits(cmp.naive.scores),
                   title="素朴版 S = XXᵀ")
    with c2:
        ui.heatmap(attn.scores, TOKENS, TOKENS, digits=auto_digits(attn.scores), title="Q・K・V 版 S = QKᵀ")
    if cmp.symmetric:
        st.warning("いまの $W_Q, W_K$ では $QK^\\top$ が対称です。見る側と見られる側の区別が消えています。")
    else:
        st.markdown(
            f"素朴版は左右対称でしたが、$QK^\\top$ は **非対称** です。"
            f"それ → 魚 は **{number(attn.scores[IT, FISH], sd)}**、逆向きの 魚 → それ は "
            f"**{number(attn.scores[FISH, IT], sd)}** です。"
            f"向きによって値が違う組が {len(cmp.asymmetric)} 組あります。"
        )
    st.subheader("「それ」の行：前と後")
    st.markdown("素朴版の重みと、Q・K・V 版（$\\sqrt{d_k}$ で割って softmax）の重みを比べます。")
    ui.show_matrix([cmp.naive.weights[IT], attn.weights[IT]], ["素朴版（Q・K・V なし）", "Q・K・V 版"], TOKENS,
                   caption="「それ」から各トークンへの重み")
    st.markdown(
        f"素朴版では自分に {number(cmp.naive.weights[IT, IT], 3)} と偏っていましたが、"
        f"Q・K・V 版では魚に **{number(attn.weights[IT, FISH], 3)}** の重みが向き、"
        f"自分へは {number(attn.weights[IT, IT], 3)} に下がりました。照応（それ → 魚）をつかめています。"
    )
    ui.heatmap(attn.weights, TOKENS, TOKENS, title="Q・K・V 版の重み A")
    st.caption(f"学習で調整できる数値：$W_Q, W_K, W_V$ 合わせて {cmp.n_params} 個（素朴版は 0 個）。")

ui.quiz_section("qkv")
ui.next_link("qkv")
