"""⑤ Multi-Head Attention: split → heads in parallel → concat → W_O; d_k = d_model / h."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.handcalc import vector as vec
from ui.validate import format_number

ui.page("multihead")

TOKENS = list(tb.TOKENS)
SORE = TOKENS.index("それ")
SAKANA = TOKENS.index("魚")
D_MODEL_OPTIONS = [4, 6, 8, 12, 16, 24, 32, 64, 512]
CONCAT_COLS = ["h1-1", "h1-2", "h2-1", "h2-2"]
BLEND_SHARES = [round(0.05 * i, 2) for i in range(21)]     # the slider's t: 0, 0.05, …, 1

ex = tutor.multihead.textbook_two_heads()
comb = ex.combined
paper = tutor.multihead.head_cost(tb.COST_N, tb.PAPER_D_MODEL, tb.PAPER_HEADS)
paper_one = tutor.multihead.head_cost(tb.COST_N, tb.PAPER_D_MODEL, 1)
# head 1 exactly as ④ shows it by default (pencil mode: rounded to 3 decimals at each step, Z 猫 = 1.510, 0.492)
head1 = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=ui.handcalc.PENCIL_DECIMALS, tokens=TOKENS)
hand_comb = tutor.multihead.combine_heads([head1.z, ex.head2_output], tb.W_O)   # concat (3, 4), output (3, 4)


def cost_frame(many: "tutor.multihead.HeadCost", one: "tutor.multihead.HeadCost") -> pd.DataFrame:
    label_many = f"{many.n_heads} ヘッド × d_k = {many.d_k}"
    label_one = f"1 ヘッド × d_k = {one.d_k}"
    rows = [
        ("パラメータ数（W_Q, W_K, W_V, W_O）", many.params, one.params),
        ("1 ヘッドあたりの W_Q, W_K, W_V", many.params_per_head, one.params_per_head),
        ("積和：Q・K・V と W_O の射影", many.macs_projection, one.macs_projection),
        ("積和：スコア QKᵀ（全ヘッド）", many.macs_scores, one.macs_scores),
        ("積和：重み × V（全ヘッド）", many.macs_values, one.macs_values),
        ("積和の合計", many.macs, one.macs),
        ("softmax の exp の回数", many.softmax_exps, one.softmax_exps),
    ]
    return pd.DataFrame({"項目": [r[0] for r in rows], label_many: [f"{r[1]:,}" for r in rows],
                         label_one: [f"{r[2]:,}" for r in rows]})


@st.cache_data(show_spinner=False, max_entries=1)
def blend_panels() -> list[list[dict]]:
    """The blended weights and their row sums at every t of the slider (answered in the browser)."""
    panels = []
    for t in BLEND_SHARES:
        blended = tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, t)
        frame = ui.matrix_frame(blended, TOKENS, TOKENS)
        frame["行の合計"] = [format_number(v, 3) for v in tutor.row_sums(blended)]
        panels.append([ui.table_block(frame)])
    return panels


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 1 つの Attention（1 ヘッド）では、いくつもの種類の関係を同時に表せない理由を、数値で説明できる。\n"
        "- 「分割 → ヘッドごとに Attention → 連結（Concat）→ $W_O$ で混ぜる」の流れを、2 ヘッドの例で手計算できる。\n"
        "- $d_k = d_{\\text{model}} / h$ と、パラメータ数 $4\\,d_{\\text{model}}^2$ を求められる"
        "（原論文の値では 512 / 8 = 64）。"
    )

    ui.section("explain")
    st.markdown(
        "文を読むとき、手がかりにしたい語と語のつながりはいくつもあります。代名詞がどの名詞を受けるか"
        "（**照応**：それ → 魚）、動作をしたのは誰か（**主語と述語**：食べた → 猫）、"
        "すぐ隣にどの語があるか（**位置の関係**）など、性質の違う手がかりが同じ文の中に重なっています。"
    )
    st.markdown(
        "一方で注意の重み $A$ は、クエリ 1 つにつき **足して 1 になる配分を 1 通り** しか持てません。"
        "変換行列 $W_Q, W_K, W_V$ が 1 組だけなら、1 つのクエリが 2 つの相手の **両方に** 大きな重み（たとえば 0.8 ずつ）を向けることはできず、配分を分け合うしかありません。"
        "下の表では、クエリ「魚」について、④ で手計算したヘッド（照応係）と、"
        "教科書に出てくるもう 1 つのヘッド（直前の語を見る係）の配分を並べました。"
    )
    one_head_or_two()
    st.markdown(
        "解決策は、注意の計算を **何組も用意して並行に行う** ことです。この 1 組ぶんを **ヘッド（head）** と呼びます。"
        "$i$ 番目のヘッドには、そのヘッドだけが使う変換行列 $W_Q^{(i)},\\ W_K^{(i)},\\ W_V^{(i)}$ があり、"
        "そのため同じ入力からでも、ヘッドごとに違うクエリ・キー・バリューが得られます。"
        "全ヘッドの結果はトークンごとに横一列に並べ（連結、Concat）、変換行列 $W_O$ を掛けて "
        "$d_{\\text{model}}$ 次元のベクトルにまとめ直します。"
    )
    st.latex(r"\begin{aligned}&\mathrm{head}_i \\ &\quad = \mathrm{Attention}\!\left(XW_Q^{(i)},\ XW_K^{(i)},\ XW_V^{(i)}\right)\end{aligned}")
    st.latex(r"\begin{aligned}&\mathrm{MultiHead}(X) \\ &\quad = \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\,W_O\end{aligned}")
    st.latex(r"d_k = d_v = \frac{d_{\text{model}}}{h}")
    heads_cost_nothing()


def one_head_or_two() -> None:
    """Why one head cannot do two jobs: the row of 魚 in both heads and in their half-and-half blend."""
    blend_half = tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, 0.5)
    compare = np.stack([ex.head1.weights[SAKANA], ex.head2_weights[SAKANA], blend_half[SAKANA]])
    compare_sums = tutor.row_sums(compare)
    frame = ui.matrix_frame(compare, ["照応係（ヘッド 1）", "直前の語の係（ヘッド 2）", "1 つのヘッドで半分ずつ"], TOKENS)
    frame["行の合計"] = [format_number(v, 3) for v in compare_sums]
    st.caption("クエリ「魚」の行：どのキーにどれだけ注目するか")
    ui.show_table(frame)
    st.markdown(
        f"照応係は 猫 と 魚 に {format_number(ex.head1.weights[SAKANA, 0], 3)} ずつ、"
        f"直前の語の係は 直前の 猫 に {format_number(ex.head2_weights[SAKANA, 0], 2)} を向けます。"
        "どちらの行も合計は 1 なので、1 つのヘッドに両方の仕事をさせると、いちばん下の行のように"
        f"配分を分け合うしかなく（猫 へは {format_number(blend_half[SAKANA, 0], 3)}）、"
        "どちらの関係もぼやけます。出力もこの 1 つの配分で混ぜた 1 本のベクトルになり、"
        "あとから「照応の情報」と「位置の情報」を取り出せません。"
    )


def heads_cost_nothing() -> None:
    """d_k = d_model / h, and 4·d_model² parameters and the same multiply-adds for any h."""
    st.markdown(
        "ヘッドの幅はふつう、$d_{\\text{model}}$ をヘッド数 $h$ で等分して決めます。"
        f"論文 \"Attention Is All You Need\" の設定に当てはめると $d_k = {paper.d_model} / {paper.n_heads} = {paper.d_k}$ で、"
        f"{paper.n_heads} 本のヘッドがそれぞれ {paper.d_k} 次元のクエリ・キー・バリューを扱います。"
    )
    st.markdown(
        "**パラメータ数**：$W_Q^{(i)}$ の形は $d_{\\text{model}} \\times d_k$ です。"
        "$h$ 枚を横につなげると列の数は $h \\cdot d_k = d_{\\text{model}}$ になり、ちょうど正方行列 1 枚ぶんです。"
        "$W_K$、$W_V$ と、連結の後に掛ける $W_O$ も同じ大きさなので、バイアスを数えなければ合計は次の式になり、"
        "**$h$ をいくつにしても変わりません**。"
    )
    st.latex(r"4\,d_{\text{model}}^2 = 4 \times " + f"{paper.d_model}^2 = {paper.params:,}".replace(",", "{,}"))
    st.markdown(
        f"計算量も同じです。{paper.n_heads} 個の {paper.d_k} 次元ヘッドがスコアに使う積和は、"
        f"1 個の {paper_one.d_k} 次元ヘッドと同じ数になります（トークン数 {paper.n} の場合、"
        f"{paper.macs_scores:,} 回と {paper_one.macs_scores:,} 回）。増えるのは softmax の回数だけです。"
        "コストをほとんど増やさずに、注目のしかたの違うヘッドを何本も持てる — これがマルチヘッドを使う理由です。"
    )
    ui.show_table(cost_frame(paper, paper_one), hide_index=True)
    st.caption(f"原論文の大きさ（モデルの次元 $d_{{\\text{{model}}}}$ = {paper.d_model}、トークン数 $n$ = {paper.n}、バイアスなし）。積和 = 掛け算と足し算 1 組の回数。")


def hand() -> None:
    st.markdown(
        f"ここからは小さな例で計算します。トークン 1 つのベクトルが $d_{{\\text{{model}}}} = {tb.D_MODEL}$ 次元、"
        f"ヘッドは $h = {comb.head_outputs.shape[0]}$ 本なので、1 本あたり "
        f"$d_k = d_v = {tb.D_MODEL} / {comb.head_outputs.shape[0]} = {comb.head_outputs.shape[2]}$ 次元です。"
    )
    st.subheader("ヘッド 1（照応係）：④ の手計算と同じ")
    head_1()
    st.subheader("ヘッド 2（直前の語を見る係）")
    head_2()
    st.subheader("連結（Concat）")
    concat()
    st.subheader("W_O で混ぜる")
    mix_with_w_o()


def head_1() -> None:
    c1, c2, c3 = st.columns(3)
    with c1:
        ui.show_matrix(head1.q.result, TOKENS, ["1", "2"], digits=0, caption="$Q = X W_Q$")
    with c2:
        ui.show_matrix(head1.k.result, TOKENS, ["1", "2"], digits=0, caption="$K = X W_K$")
    with c3:
        ui.show_matrix(head1.v.result, TOKENS, ["1", "2"], digits=0, caption="$V = X W_V$")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(head1.weights, TOKENS, TOKENS, digits=3, caption="重み A⁽¹⁾ = softmax(QKᵀ/√2)")
    with c2:
        ui.show_matrix(head1.z, TOKENS, ["1", "2"], digits=3, caption="出力 Z⁽¹⁾ = A⁽¹⁾ V")
    st.caption(
        "④ の鉛筆モードと同じく、途中の値を小数第 3 位まで（第 4 位を四捨五入）求めながら計算した値です"
        f"（丸めずに計算すると 猫 の行は {vec(ex.head1.output[0], 4)}）。"
    )
    st.markdown(f"ヘッド 1 が「それ」に返すベクトル：$z^{{(1)}}_{{\\text{{それ}}}} = {vec(head1.z[SORE])}$")


def head_2() -> None:
    st.markdown(
        "ヘッド 2 については、変換行列を使った途中の計算を省き、注意の重み $A^{(2)}$ とバリュー $V^{(2)}$ を"
        "例として決めた値で与えます。行ごとに大きな重みの欄をたどると、それ は 魚 を、魚 は 猫 を、"
        "というように、どのクエリも自分のすぐ左隣の語を強く見ています。"
        f"猫 は文の先頭で左隣がないため、自分自身に {format_number(ex.head2_weights[0, 0], 2)} を向けています。"
    )
    c1, c2, c3 = st.columns(3)
    with c1:
        ui.show_matrix(ex.head2_weights, TOKENS, TOKENS, digits=2, caption="重み A⁽²⁾（与えられた値）")
    with c2:
        ui.show_matrix(ex.head2_values, TOKENS, ["1", "2"], digits=0, caption="バリュー V⁽²⁾（与えられた値）")
    with c3:
        ui.show_matrix(ex.head2_output, TOKENS, ["1", "2"], digits=2, caption="出力 Z⁽²⁾ = A⁽²⁾ V⁽²⁾")
    terms = [f"{format_number(w, 2)} \\times {vec(v, 0)}" for w, v in zip(ex.head2_weights[SORE], ex.head2_values)]
    st.latex(r"\begin{aligned} z^{(2)}_{\text{それ}} &= " + " + ".join(terms[:2]) + r" \\ &\quad + "
             + " + ".join(terms[2:]) + " = " + vec(ex.head2_output[SORE], 2) + r" \end{aligned}")


def concat() -> None:
    st.markdown(
        "トークンごとに、ヘッド 1 の成分の後ろへヘッド 2 の成分を続けて書くと、"
        f"{hand_comb.concat.shape[1]} 次元のベクトルになります。"
        "左の列（h1-1, h1-2）が照応係の結果、右の列（h2-1, h2-2）が直前の語の係の結果です。"
    )
    ui.show_matrix(hand_comb.concat, TOKENS, CONCAT_COLS, caption="Concat(head₁, head₂)")
    st.latex(r"\mathrm{Concat}_{\text{それ}} = " + vec(hand_comb.concat[SORE]))


def mix_with_w_o() -> None:
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(hand_comb.w_o, CONCAT_COLS, ["1", "2", "3", "4"], digits=0, caption="$W_O$（この例のために決めた値）")
    with c2:
        ui.show_matrix(hand_comb.output, TOKENS, ["1", "2", "3", "4"], caption="$\\mathrm{MultiHead}(X) = \\mathrm{Concat} \\cdot W_O$")
    first = [f"{format_number(c, 3)} \\times {format_number(w, 0)}"
             for c, w in zip(hand_comb.concat[SORE], hand_comb.w_o[:, 0])]
    st.latex(r"\begin{aligned} &\text{それの第 1 成分} \\ &= " + " + ".join(first[:2]) + r" \\ &\quad + "
             + " + ".join(first[2:]) + " = " + format_number(hand_comb.output[SORE, 0], 3) + r" \end{aligned}")
    st.latex(r"\begin{aligned}&\mathrm{MultiHead}(X)_{\text{それ}} \\ &\quad = " + vec(hand_comb.output[SORE]) + r"\end{aligned}")
    st.markdown(
        f"こうして「それ」には、照応係と直前の語の係の両方の結果を合わせ持つ "
        f"{hand_comb.output.shape[1]} 次元のベクトル ${vec(hand_comb.output[SORE])}$ が割り当てられ、"
        "次の層の入力になります。"
    )


def visual() -> None:
    st.markdown("同じ 3 トークンでも、ヘッドごとに注目のしかたがまったく違います。")
    ui.side_by_side([(ex.head1.weights, TOKENS, TOKENS, "ヘッド 1：照応係"),
                     (ex.head2_weights, TOKENS, TOKENS, "ヘッド 2：直前の語の係")])
    st.caption("行 = クエリ（見る側）、列 = キー（見られる側）。ヘッド 1 の それ の行は 魚 に集中し、"
               "ヘッド 2 はどの行も 1 つ前の語に集中しています。")


def try_it() -> None:
    st.subheader("1 つのヘッドに 2 つの仕事をさせると")
    ui.stepper("ヘッド 2（直前の語の係）の配分の割合 t", BLEND_SHARES, blend_panels(), value=0.5, key="mh_blend",
               text=lambda t: format_number(t, 2))
    st.caption("(1 − t)·(照応係の重み) + t·(直前の語の係の重み)。t を動かしても行の合計は 1 のまま。"
               "片方の関係を強めれば、もう片方は必ず弱まります。")

    st.subheader("自分でヘッドを組む")
    st.markdown(
        "$d_{\\text{model}}$ とヘッド数 $h$ を選ぶと、シードから作った乱数の埋め込みと、"
        "ヘッドごとに別々の $W_Q^{(i)}, W_K^{(i)}, W_V^{(i)}$（学習前の乱数）で計算します。"
    )
    try_own_heads()


@st.fragment
def try_own_heads() -> None:
    """Your own heads as a fragment: d_model, h or the seed rerun this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        d_model = st.selectbox("d_model", D_MODEL_OPTIONS, index=D_MODEL_OPTIONS.index(8), key="mh_d_model",
                               persist_state="session")
    with c2:
        n_heads = ui.number_input("ヘッド数 h", min_value=1, max_value=16, value=2, step=1, key="mh_heads",
                                  persist_state="session")
    with c3:
        seed = ui.number_input("乱数のシード", min_value=0, max_value=9999, value=0, step=1, key="mh_seed",
                               persist_state="session")
    live = ui.compute("mh_live", tutor.multihead.random_multihead, len(TOKENS), d_model, n_heads,
                      np.random.default_rng(int(seed)))
    if live is not None:
        res, cost = live.result, live.cost
        st.markdown(
            f"$d_k = d_{{\\text{{model}}}} / h = {cost.d_model} / {cost.n_heads} = {cost.d_k}$　"
            f"（各ヘッドの $W_Q^{{(i)}}$ は ${cost.d_model} \\times {cost.d_k}$）"
        )
        st.markdown(f"**各ヘッドの注意の重み**（{res.n_heads} 枚）")
        ui.side_by_side([(w, TOKENS, TOKENS, f"ヘッド {number}") for number, w in enumerate(res.weights, start=1)])
        st.caption("同じ入力でも、W が違えば注目のしかたが変わります（学習前なので模様に意味はまだありません）。")
        with st.expander(f"連結 Concat（3 × {res.concat.shape[1]}）と W_O を掛けた出力（3 × {res.output.shape[1]}）"):
            ui.show_matrix(res.concat, TOKENS,
                           caption="$\\mathrm{Concat}(\\text{head}_1, \\dots, \\text{head}_h)$：ヘッドの出力を順に横へ")
            ui.show_matrix(res.output, TOKENS,
                           caption="$\\mathrm{MultiHead}(X) = \\mathrm{Concat} \\cdot W_O$")
        st.markdown(
            f"パラメータ数は $4 \\times {cost.d_model}^2 = {cost.params:,}$（$h$ を変えても同じ）。"
            "下の表で、同じ $d_{\\text{model}}$ を 1 ヘッドで使う場合と比べてください。"
        )
        ui.show_table(cost_frame(live.cost, live.cost_one_head), hide_index=True)


ui.sections("multihead", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("multihead"))
