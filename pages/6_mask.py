"""⑥ 因果マスク: −∞ before softmax, exact zeros, rows renormalised, the classic mistake, padding."""
import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import textbook as tb
from ui.validate import format_number

ui.page("mask")

TOKENS = list(tb.TOKENS)
SORE = TOKENS.index("それ")
SENTENCE = ["猫", "は", "魚", "を", "食べた", "。"]   # the next-token table
SLOTS = ["猫", "は", "魚", "を", "食べた"]           # the padding demo: a batch slot of 5 positions
PAD = "PAD"
G_KEYS = ["キー1", "キー2", "キー3"]

ex = tutor.textbook_two_heads()          # head 1 = the ④ hand calculation
scaled = ex.head1.scaled                 # QKᵀ/√2, (3, 3)
causal3 = tutor.causal_mask(len(TOKENS))
steps = tutor.masked_softmax_steps(scaled, causal3)
unmasked = tutor.softmax(scaled)


def vec(values, digits: int = 3) -> str:
    return "(" + ", ".join(format_number(v, digits) for v in values) + ")"


def weights_with_sums(weights, sums, rows, cols, digits: int = 3):
    frame = ui.matrix_frame(weights, rows, cols, digits)
    frame["行の合計"] = [format_number(v, digits) for v in sums]
    return frame


def exps_with_denominators(exps, denominators, tokens):
    frame = ui.matrix_frame(exps, tokens, tokens, digits=2)
    frame["分母（行の合計）"] = [format_number(v, 2) for v in denominators]
    return frame


def tasks_frame(sentence):
    """The next-token problems one sentence gives at once under the causal mask."""
    tasks = tutor.next_token_tasks(list(sentence))
    return pd.DataFrame({"位置": [f"{k}" for k, _ in enumerate(tasks, start=1)],
                         "見てよい語（因果マスクの行）": ["・".join(seen) for seen, _ in tasks],
                         "当てる次の語": [target for _, target in tasks]})


def mask_frame(mask, rows, cols):
    """A bool mask as the additive M: 0 = may look, −∞ = hidden."""
    return ui.matrix_frame(tutor.additive_mask(mask), rows, cols, digits=0)


def _small_chart(matrix, rows, cols, title: str, px: int, digits: int):
    chart = ui.heatmap_chart(matrix, rows, cols, title=title, x_title="キー", y_title="クエリ", digits=digits)
    # autosize "pad": px is the size of the cells' area; axes and legend come on top of it
    # (Streamlit's default "fit" squeezes them into px and the cells shrink to nothing)
    return chart.properties(width=px, height=px, autosize=alt.AutoSizeParams(type="pad"))


def small_heatmap(matrix, rows, cols, title: str, px: int = 150, digits: int = 3) -> None:
    ui.widgets.cached_chart(_small_chart, matrix, rows, cols, title, px, digits, width="content")


# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- 文章を作るモデルが、まだ来ていない **未来のトークンを見てはいけない** 理由を説明できる。\n"
    "- マスク行列 $M$（見てよい = 0、見てはいけない = $-\\infty$）を softmax の **前に** 足すと、"
    "重みがちょうど 0 になり、行の合計は 1 のままになることを手計算で確かめる。\n"
    "- softmax の **後に** 0 を入れるよくある間違い、パディングマスク、エンコーダとデコーダの違いを区別できる。"
)

# ---------------------------------------------------------------------------
ui.section("explain")
st.markdown(
    "言語モデルの仕事は、ここまでの語から **次の語を当てる** ことです。"
    "「猫 は 魚 を」まで読んで「食べた」を当てるとき、「食べた」そのものが見えていたら、答えを見ながら答えるのと同じです。"
    "ところが Attention はすべての組のスコアを計算するので、何もしなければ前の位置から後ろの位置も見えてしまいます。"
    "そこで、**各位置は自分と、自分より前だけを見てよい** という決まりを入れます。"
    "原因（過去）から結果（未来）への向きを守らせるので、**因果マスク** と呼びます。"
)
st.markdown("決まりは、スコアに行列 $M$ を **足す** だけで表せます。")
st.latex(r"\mathrm{Attention}(Q,K,V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V")
st.markdown("$M$ は対角とその左下が 0、右上（未来を見る組）が $-\\infty$ の三角形です。3 トークンなら次のとおりです。")
st.caption("マスク行列 M（行 = クエリ、列 = キー）")
ui.cached_table(mask_frame, causal3, TOKENS, TOKENS)
st.markdown(
    "softmax は各スコア $s$ を $e^{s}$ に変えてから行ごとに割ります。"
    "$e^{-\\infty} = 0$ なので、$-\\infty$ を足した位置の分子はちょうど 0 になり、"
    "残りの見てよい位置だけで合計 1 に配り直されます。場合分けを書かずに、足し算だけで「禁止」を表しているのです。"
)
st.latex(r"e^{-\infty} = 0")
st.markdown(
    "**どこでマスクを使うか**：翻訳の原文を読む **エンコーダ** は文全体を一度に見てよいので、マスクなしの自己注意です。"
    "文を 1 語ずつ作る **デコーダ**（GPT のようなデコーダだけのモデルも）は、因果マスク付きの自己注意を使います。"
)
st.markdown(
    "**学習が速くなる理由**：因果マスクがあれば、どの位置もカンニングせずに予測していると保証されます。"
    "だから 1 つの文を 1 回計算するだけで、すべての位置の「次の語当て」を同時に採点できます。"
    "下の表は、6 語の文 1 本から同時に作られる問題です。"
)
tasks = tutor.next_token_tasks(SENTENCE)
ui.cached_table(tasks_frame, tuple(SENTENCE), hide_index=True)
st.caption(f"{len(SENTENCE)} 語の文から {len(tasks)} 問。マスクがなければ、どの問題も答えが見えてしまいます。")

# ---------------------------------------------------------------------------
ui.section("hand")
st.markdown("④ の手計算（猫・魚・それ、$d_k = 2$）のスケール済みスコアにマスクをかけます。")
c1, c2 = st.columns(2)
with c1:
    ui.show_matrix(scaled, TOKENS, TOKENS, digits=2, caption="① スケール済みスコア QKᵀ/√2")
with c2:
    ui.show_matrix(steps.masked, TOKENS, TOKENS, digits=2, caption="② QKᵀ/√2 + M")
st.caption("③ 分子 e^s（e^(−∞) = 0）と分母")
ui.cached_table(exps_with_denominators, steps.exps, steps.denominators, TOKENS)
st.caption("④ 重み = 分子 ÷ 分母（マスク付き）")
ui.cached_table(weights_with_sums, steps.weights, steps.sums, TOKENS, TOKENS)
st.markdown(
    f"- 猫 の行：前に語がないので自分だけを見ます → ${vec(steps.weights[0])}$\n"
    f"- 魚 の行：猫 と自分のスコアが同じなので半分ずつ → ${vec(steps.weights[1])}$\n"
    f"- それ の行：最後の語なので隠すものがなく、マスクなしと同じ → ${vec(steps.weights[SORE])}$"
    f"（マスクなし ${vec(unmasked[SORE])}$）\n\n"
    "右上の三角形はちょうど 0 で、どの行も合計 1 のままです。"
    "そして「それ → 魚」の照応は無傷です。魚 は それ より **前** にあるので、見てよい範囲に入っています。"
)

st.subheader("G検定の例：3 番目のキーを隠す")
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
    f"残る 2 つで配り直されて ${vec(g_masked.weights[0, :2], 4)}$、合計は {format_number(g_sums[1], 4)} のままです。"
)

# ---------------------------------------------------------------------------
ui.section("visual")
st.markdown("同じスコアで、マスクなし（エンコーダの自己注意）と因果マスク付き（デコーダの自己注意）を並べます。")
c1, c2 = st.columns(2)
with c1:
    small_heatmap(unmasked, TOKENS, TOKENS, "エンコーダ：マスクなし")
with c2:
    small_heatmap(steps.weights, TOKENS, TOKENS, "デコーダ：因果マスク")
st.caption("右は対角より右上がすべて 0。それ の行（いちばん下）は左右で同じです。")

# ---------------------------------------------------------------------------
ui.section("try")
st.subheader("よくある間違い：softmax の後でマスクする")
wrong_order = st.toggle("softmax を先に計算し、あとから未来の重みを 0 にする（間違った順番）", value=False,
                        key="mask_wrong_order", persist_state="session")
order = tutor.compare_mask_order(scaled, causal3)
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

st.subheader("パディングマスクと因果マスク")
st.markdown(
    "長さの違う文をまとめて計算するとき、短い文の後ろは PAD（詰め物のトークン）で埋めて長さをそろえます。"
    "PAD はただの詰め物なので、キーとして見てはいけません。これを隠すのが **パディングマスク** です。"
    "エンコーダはパディングマスクだけ、デコーダは因果マスクとパディングマスクの **両方** を使います。"
)
valid = st.slider("文の本当の長さ（有効長）", 1, len(SLOTS), 3, key="mask_valid_len", persist_state="session")
labels = list(tutor.pad_tokens(SLOTS, valid, PAD))
pad = tutor.padding_mask(valid, len(SLOTS))
causal = tutor.causal_mask(len(SLOTS))
both = tutor.combine_masks(causal, pad)
c1, c2 = st.columns(2)
with c1:
    st.caption("パディングマスク（エンコーダ）")
    ui.cached_table(mask_frame, pad, labels, labels)
with c2:
    st.caption("因果マスク")
    ui.cached_table(mask_frame, causal, labels, labels)
st.caption("両方（デコーダ）：どちらかで隠れる位置は隠す")
ui.cached_table(mask_frame, both, labels, labels)
st.markdown(
    "スコアをすべて同じ値（0）にして softmax にかけると、見てよいキーに重みが均等に配られます。"
    "隠した列はちょうど 0 です。PAD の行の出力は、あとで損失を計算するときに捨てられます。"
)
flat = np.zeros((len(SLOTS), len(SLOTS)))
enc_w = tutor.masked_softmax_steps(flat, pad).weights
dec_w = tutor.masked_softmax_steps(flat, both).weights
c1, c2 = st.columns(2)
with c1:
    small_heatmap(enc_w, labels, labels, "エンコーダ（パディングのみ）", px=200, digits=2)
with c2:
    small_heatmap(dec_w, labels, labels, "デコーダ（因果 + パディング）", px=200, digits=2)

ui.quiz_section("mask")
ui.next_link("mask")
