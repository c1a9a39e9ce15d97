"""⑥ 因果マスク: −∞ before softmax, exact zeros, rows renormalised, the classic mistake, padding."""
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.handcalc import vector as vec
from ui.validate import format_number

ui.page("mask")

TOKENS = list(tb.TOKENS)
SORE = TOKENS.index("それ")
SENTENCE = ["猫", "は", "魚", "を", "食べた", "。"]   # the next-token table
SLOTS = ["猫", "は", "魚", "を", "食べた"]           # the padding demo: a batch slot of 5 positions
PAD = "PAD"
G_KEYS = ["キー1", "キー2", "キー3"]

ex = tutor.multihead.textbook_two_heads()          # head 1 = the ④ hand calculation
scaled = ex.head1.scaled                 # QKᵀ/√2, (3, 3)
causal3 = tutor.causal_mask(len(TOKENS))
steps = tutor.mask.masked_softmax_steps(scaled, causal3)
unmasked = tutor.softmax(scaled)
# the hand calculation as ④ shows it by default (pencil mode: every step rounded to 3 decimals)
pencil = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=ui.handcalc.PENCIL_DECIMALS, tokens=TOKENS)
hand_scaled = pencil.scaled.result                                     # S̃ = QKᵀ/√2, (3, 3)
hand_masked = tutor.mask.masked_softmax_steps(hand_scaled, causal3).masked  # S̃ + M, (3, 3)
hand_sm = tutor.handcalc.softmax_steps(hand_masked, decimals=ui.handcalc.PENCIL_DECIMALS, row_labels=TOKENS)
hand_exps = np.array([row.exps for row in hand_sm.rows])             # e^s̃ as written, (3, 3)
hand_denominators = np.array([row.total for row in hand_sm.rows])    # (3,)


def weights_with_sums(weights, sums, rows, cols, digits: int = 3):
    frame = ui.matrix_frame(weights, rows, cols, digits)
    frame["行の合計"] = [format_number(v, digits) for v in sums]
    return frame


def exps_with_denominators(exps, denominators, tokens):
    frame = ui.matrix_frame(exps, tokens, tokens, digits=3)
    frame["分母（行の合計）"] = [format_number(v, 3) for v in denominators]
    return frame


def tasks_frame(sentence):
    """The next-token problems one sentence gives at once under the causal mask."""
    tasks = tutor.mask.next_token_tasks(list(sentence))
    return pd.DataFrame({"位置": [f"{k}" for k, _ in enumerate(tasks, start=1)],
                         "見てよい語（因果マスクの行）": ["・".join(seen) for seen, _ in tasks],
                         "当てる次の語": [target for _, target in tasks]})


def mask_frame(mask, rows, cols):
    """A bool mask as the additive M: 0 = may look, −∞ = hidden."""
    return ui.matrix_frame(tutor.additive_mask(mask), rows, cols, digits=0)


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 文章を作るモデルが、まだ来ていない **未来のトークンを見てはいけない** 理由を説明できる。\n"
        "- マスク行列 $M$（見てよい = 0、見てはいけない = $-\\infty$）を softmax の **前に** 足すと、"
        "重みがちょうど 0 になり、行の合計は 1 のままになることを手計算で確かめる。\n"
        "- softmax の **後に** 0 を入れるよくある間違い、パディングマスク、エンコーダとデコーダの違いを区別できる。"
    )

    ui.section("explain")
    st.markdown(
        "文章を作るモデル（言語モデル）は、それまでに出た語を手がかりに **続く 1 語を予想する** 練習を重ねて学びます。"
        "たとえば「猫 は 魚 を」の続きとして「食べた」を予想させるとき、モデルの目に「食べた」自体が入っていたら、"
        "問題用紙に正解が印刷されているようなもので、練習になりません。"
        "注意の計算は、何も手を打たなければ文中のあらゆる組み合わせのスコアを出すので、前の語から後ろの語がまる見えです。"
        "そこで「**どの位置も、自分自身とそれより前の語にしか注意を向けない**」という制限をかけます。"
        "情報が過去から未来へ一方向にしか流れないようにする目隠しなので、**因果マスク（causal mask）** と呼ばれます。"
    )
    st.markdown(
        "この制限は、スケール済みのスコア $\\tilde{S} = QK^\\top/\\sqrt{d_k}$ に行列 $M$ を **足す** だけで書けます。"
    )
    st.latex(r"\begin{aligned}&\mathrm{Attention}(Q,K,V) \\ &\quad = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V\end{aligned}")
    st.markdown(
        "$M$ の成分は、クエリ $i$ がキー $j$ を見てよい（$j \\le i$）なら 0、"
        "キーのほうが後ろにあって見てはいけない（$j > i$）なら $-\\infty$ です。"
        "猫・魚・それ の 3 語なら、対角より右上の欄だけが $-\\infty$ になります。"
    )
    st.caption("マスク行列 M（行 = クエリ、列 = キー）")
    ui.cached_table(mask_frame, causal3, TOKENS, TOKENS)
    st.markdown(
        "なぜ足し算で済むのでしょうか。softmax の分子は $e^{\\tilde{s}}$ で、指数関数は $-\\infty$ で 0 になります。"
        "$-\\infty$ を足された欄は分子が 0、つまり重みはぴったり 0 になり、分母も見てよい欄の分子だけの和になります。"
        "その結果、見てよい欄の重みだけで合計がきちんと 1 になります。"
        "「この組は計算しない」という特別扱いを書かなくても、行列を 1 つ足すだけで同じ効果が得られるわけです。"
    )
    st.latex(r"e^{-\infty} = 0")
    st.markdown(
        "**マスクが要る場所・要らない場所**：翻訳で原文を読み込む **エンコーダ** には入力文が最初から全部そろっているので、"
        "前後どちらの語を見てもかまいません（マスクなしの自己注意）。"
        "訳文を 1 語ずつ書き出していく **デコーダ** や、GPT のようにデコーダだけでできたモデルは、"
        "まだ書いていない語を見てはいけないので、自己注意に因果マスクをかけます。"
    )
    st.markdown(
        "**学習が速くなる理由**：因果マスクをかけておけば、どの位置の予想も「自分より後ろは見ていない」ことが保証されます。"
        "そのため、1 本の文を 1 回通すだけで、各位置の「次の 1 語」の予想をまとめて答え合わせできます。"
        f"下の表は、{len(SENTENCE)} 語の文 1 本から一度に得られる練習問題です。"
    )
    tasks = tutor.mask.next_token_tasks(SENTENCE)
    ui.cached_table(tasks_frame, tuple(SENTENCE), hide_index=True)
    st.caption(f"{len(SENTENCE)} 語の文から {len(tasks)} 問。マスクがなければ、どの問題も答えが見えてしまいます。")


def masked_rows() -> None:
    for row in hand_sm.rows:
        st.markdown(f"**{row.label} の行**")
        ui.handcalc.show_softmax_row(row)


def hand() -> None:
    st.markdown(
        "④ の手計算（猫・魚・それ、$d_k = 2$）のスケール済みスコア $\\tilde{S}$ に $M$ を足し、行ごとに softmax をとります。"
        "④ の鉛筆モードと同じく、どの段階の値も小数第 3 位まで（第 4 位を四捨五入）求めてから次の段階に使うので、"
        "表の数だけで手計算をたどれます。"
    )
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(hand_scaled, TOKENS, TOKENS, digits=3, caption="① スケール済みスコア S̃ = QKᵀ/√2")
    with c2:
        ui.show_matrix(hand_masked, TOKENS, TOKENS, digits=3, caption="② S̃ + M")
    st.caption("③ 分子 $e^{\\tilde{s}}$（$e^{-\\infty} = 0$）と分母（行の合計）")
    ui.cached_table(exps_with_denominators, hand_exps, hand_denominators, TOKENS)
    st.caption("④ 重み = 分子 ÷ 分母（マスク付き）")
    ui.cached_table(weights_with_sums, hand_sm.result, tutor.row_sums(hand_sm.result), TOKENS, TOKENS)
    ui.lazy_expander("行ごとの式（分子・分母・重み）", masked_rows, key="mask_rows")
    st.markdown(
        f"- 猫 の行：文の先頭なので、見てよいキーは自分 1 つだけ → ${vec(hand_sm.result[0])}$\n"
        f"- 魚 の行：見てよい 猫 と 魚 のスコアがどちらも {format_number(hand_scaled[1, 0], 3)} で等しいので、"
        f"重みも半分ずつ → ${vec(hand_sm.result[1])}$\n"
        f"- それ の行：いちばん後ろの語なので隠れる欄がなく、マスクなしと同じ値 → ${vec(hand_sm.result[SORE])}$\n\n"
        "右上の三角形の重みはどれも 0 ちょうどで、各行の合計は 1 のままです。"
        "照応（それ → 魚）も失われていません。魚 は それ より **前** に出てくる語なので、"
        "それ の行から見てよい範囲にもともと入っています。"
    )

    st.subheader("計算練習：3 番目のキーを隠す（③ と同じクエリとキー）")
    g_example()


def g_example() -> None:
    """The practice calculation of ③ (seed 004's numbers): hiding key 3 hands its weight to the two keys left."""
    g_plain = tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES)
    g_masked = tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, tb.G_MASK_KEY3)
    st.markdown(
        f"クエリ $q = {vec(tb.G_QUERY[0], 0)}$、キー ${', '.join(vec(k, 0) for k in tb.G_KEYS)}$、$d_k = 2$ の例です。"
    )
    g_rows = ["マスクなし", "キー3 を隠す"]
    g_weights = np.vstack([g_plain.weights, g_masked.weights])
    g_sums = tutor.row_sums(g_weights)
    ui.cached_table(weights_with_sums, g_weights, g_sums, g_rows, G_KEYS, digits=4)
    st.markdown(
        f"隠す前は ${vec(g_plain.weights[0], 4)}$。キー3 のスコアを $-\\infty$ にすると、"
        f"残る 2 つで配り直されて ${vec(g_masked.weights[0, :2], 4)}$、合計はやはり {format_number(g_sums[1], 4)} です。"
    )


def visual() -> None:
    st.markdown("同じスコアで、マスクなし（エンコーダの自己注意）と因果マスク付き（デコーダの自己注意）を並べます。")
    ui.side_by_side([(unmasked, TOKENS, TOKENS, "エンコーダ：マスクなし"),
                     (steps.weights, TOKENS, TOKENS, "デコーダ：因果マスク")])
    st.caption("右は対角より右上がすべて 0。それ の行（いちばん下）は左右で同じです。")


def try_it() -> None:
    st.subheader("よくある間違い：softmax の後でマスクする")
    try_mask_order()

    st.subheader("パディングマスクと因果マスク")
    st.markdown(
        "長さの違う文をまとめて計算するとき、短い文の後ろは PAD（詰め物のトークン）で埋めて長さをそろえます。"
        "PAD はただの詰め物なので、キーとして見てはいけません。これを隠すのが **パディングマスク** です。"
        "エンコーダの自己注意はパディングマスクだけ、デコーダの自己注意は因果マスクとパディングマスクの **両方** を使います。"
        "デコーダの Source-Target Attention は、キーがソース（原文）側のトークンなので、ソースのパディングマスクだけで足ります。"
        "原文は最初から全部そろっているので、因果マスクはかけません。"
    )
    try_padding()


@st.fragment
def try_mask_order() -> None:
    """The wrong-order toggle as a fragment: switching reruns this table only."""
    wrong_order = st.toggle("softmax を先に計算し、あとから未来の重みを 0 にする（間違った順番）", value=False,
                            key="mask_wrong_order", persist_state="session")
    order = tutor.mask.compare_mask_order(scaled, causal3)
    if wrong_order:
        ui.cached_table(weights_with_sums, order.wrong, order.wrong_sums, TOKENS, TOKENS)
        st.error(
            f"行の合計が 1 になりません：猫 の行は {format_number(order.wrong_sums[0], 3)}、"
            f"魚 の行は {format_number(order.wrong_sums[1], 3)}。"
            f"未来に配られていた {format_number(order.lost[0], 3)} と {format_number(order.lost[1], 3)} が"
            "消えただけで、残りの重みは配り直されていません。出力ベクトルも小さく縮んでしまいます。",
        )
    else:
        ui.cached_table(weights_with_sums, order.right, order.right_sums, TOKENS, TOKENS)
        st.success(
            f"−∞ を softmax の前に足す正しい順番です。行の合計は {vec(order.right_sums)} で、"
            "見てよい位置だけで重みが配り直されています。",
        )


@st.fragment
def try_padding() -> None:
    """The valid length as a fragment: the slider reruns the masks and heatmaps only."""
    valid = st.slider("文の本当の長さ（有効長）", 1, len(SLOTS), 3, key="mask_valid_len", persist_state="session")
    labels = list(tutor.mask.pad_tokens(SLOTS, valid, PAD))
    pad = tutor.padding_mask(valid, len(SLOTS))
    causal = tutor.causal_mask(len(SLOTS))
    both = tutor.mask.combine_masks(causal, pad)
    c1, c2 = st.columns(2)
    with c1:
        st.caption("パディングマスク（エンコーダ）")
        ui.cached_table(mask_frame, pad, labels, labels)
    with c2:
        st.caption("因果マスク")
        ui.cached_table(mask_frame, causal, labels, labels)
    st.caption("両方（デコーダの自己注意）：どちらかで隠れる位置は隠す")
    ui.cached_table(mask_frame, both, labels, labels)
    st.markdown(
        "スコアをすべて同じ値（0）にして softmax にかけると、見てよいキーに重みが均等に配られます。"
        "隠した列はちょうど 0 です。PAD の行の出力は、あとで損失を計算するときに捨てられます。"
    )
    flat = np.zeros((len(SLOTS), len(SLOTS)))
    enc_w = tutor.mask.masked_softmax_steps(flat, pad).weights
    dec_w = tutor.mask.masked_softmax_steps(flat, both).weights
    ui.side_by_side([(enc_w, labels, labels, "エンコーダ（パディングのみ）"),
                     (dec_w, labels, labels, "デコーダの自己注意（因果 + パディング）")], digits=2)


ui.sections("mask", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("mask"))
