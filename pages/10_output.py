"""⑦-4 出力と生成: final representation → logits → softmax, temperature, greedy / top-k / top-p,
and a generation loop that appends one token per click."""
import numpy as np
import pandas as pd
import streamlit as st
from ui import cached_chart

import tutor
import ui
from tutor import textbook as tb
from ui.figures import prob_bars, temperature_explorer
from ui.validate import format_number

ui.page("output")

VOCAB = tutor.output.TOY_VOCAB
# Markdown would swallow "<eos>" as an HTML tag: show special tokens with 〈 〉 in text
SHOW = [t.replace("<", "〈").replace(">", "〉") for t in VOCAB]
STRATEGY_LABELS = {"greedy": "貪欲法（greedy）", "sample": "そのままサンプリング",
                   "top_k": "top-k サンプリング", "top_p": "top-p（nucleus）サンプリング"}
PROMPT = "猫 は 魚 を"
GEN_KEY = "output_gen_steps"


@st.cache_data(show_spinner=False, max_entries=8)
def tiny_forward(seed: int, text: str):
    model = tutor.encdec.TinyDecoderOnly.from_seed(seed)
    ids = model.vocab.ids(text)
    res = model.forward(ids)
    return model.vocab, res.final[-1].copy(), np.asarray(model.embedding).copy(), res.next_logits.copy()


def choose_with(probs, strategy, seed, k, p):
    rng = np.random.default_rng(int(seed))
    return tutor.output.choose(probs, strategy, rng, k=k, p=p)


def describe_choice(choice) -> str:
    kept = "、".join(SHOW[i] for i in choice.kept)
    u = "（乱数なし）" if choice.u is None else f"一様乱数 u = {format_number(choice.u, 3)}"
    return f"候補に残ったトークン：{kept}　／　{u}　→ 選ばれたのは **{SHOW[choice.index]}**"


def add_step() -> None:
    steps = st.session_state.get(GEN_KEY, [])
    ids = steps[-1].ids + (steps[-1].chosen,) if steps else tutor.output.TOY_VOCAB.ids([st.session_state["output_prompt"]])
    try:
        step = tutor.output.generation_step(ids, st.session_state["output_strategy"], int(st.session_state["output_seed"]),
                                     float(st.session_state["output_temp2"]), k=int(st.session_state["output_k"]),
                                     p=float(st.session_state["output_p"]))
    except ValueError as exc:
        st.session_state["output_gen_error"] = str(exc)
        return
    st.session_state.pop("output_gen_error", None)
    st.session_state[GEN_KEY] = steps + [step]


def reset_steps() -> None:
    st.session_state[GEN_KEY] = []


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 最終層の表現から **語彙全体のロジット** を作り、**softmax（ソフトマックス関数）** で次のトークンの確率にする流れを説明できる。\n"
        "- **温度** T が確率分布をどう尖らせ・平らにするかを数で確かめる。\n"
        "- 貪欲法・top-k・top-p の違いと、1 トークンずつ足しては予測し直す **自己回帰的な生成** を体験する。"
    )

    ui.section("explain")
    st.markdown(
        "Transformer の層を何段も通り抜けたあと、各位置のベクトルは前後の語の事情をすでに反映しています。"
        "GPT のようなデコーダ型で次の語を決めるときに使うのは、列の **いちばん最後の位置** のベクトル $h$ だけです。"
        "$h$ に出力用の行列 $W_{\\text{out}}$（$d_{\\text{model}} \\times |V|$）を掛けると、語彙のトークンごとに 1 つずつ点数が並びます。"
        "この点数の並びを **ロジット** $z$ と呼びます。"
        "出力用の行列として、入力側の埋め込み行列 $E$ をそのまま使い回すこともできます（$W_{\\text{out}} = E^\\top$、**重み共有**）。"
        "元の Transformer や GPT-2 はこの共有を選びましたが、これは設計の選択で、決まりではありません。"
        "出力用の行列を別に学習するモデルもあります。「可視化」の小さなモデルは共有を使います。"
    )
    st.latex(r"\begin{aligned}&z = h\,W_{\text{out}} \in \mathbb{R}^{|V|} \\ &(\text{重み共有なら } W_{\text{out}} = E^\top)\end{aligned}")
    st.latex(r"\begin{aligned}P(\text{次のトークン} = j) &= \mathrm{softmax}(z / T)_j \\ &= \frac{e^{z_j / T}}{\sum_{k} e^{z_k / T}}\end{aligned}")
    st.markdown(
        "**温度** $T$ はロジットを割る数です。$T < 1$ では差が広がって分布が尖り（$T \\to 0$ で貪欲法と同じ）、"
        "$T > 1$ では差が縮んで分布が平らになります（$T \\to \\infty$ で一様分布）。\n\n"
        "次のトークンの **選び方** にはいくつかあります。\n\n"
        "- **貪欲法**：毎回、確率が最大のトークンに決める。乱数を使わないので、何度やっても同じ文になる。\n"
        "- **サンプリング**：確率をそのまま割合にして乱数で 1 つ引く。文に変化が出るが、確率の低い的外れなトークンを"
        "引くこともある。\n"
        "- **top-k**：確率の上位 k 個だけを候補に残し、その k 個の確率を合計 1 になるよう割り直してから乱数で引く。\n"
        "- **top-p**：確率の大きいものから順に足し、累積が p に届いた時点までのトークンを候補にして、乱数で引く。\n\n"
        "決まったトークンは列の末尾につなげ、伸びた列をまたモデルに入れて、その次の 1 つを予測します。"
        "1 トークンずつこれを繰り返すのが **自己回帰的な生成** です。確率の高い途中経過を何本か同時に残して伸ばし、"
        "最後に全体として最もよい列を選ぶ **ビームサーチ** もあります。"
    )


def temperature_rows() -> list:
    """The textbook logits divided by each T of tb.TEMPERATURES: 手計算's table and 可視化's bars."""
    return tutor.output.temperature_table(tb.TEMPERATURE_LOGITS, tb.TEMPERATURES)


def hand() -> None:
    st.markdown(f"3 語の語彙で、ロジットが $z = ({', '.join(format_number(v, 0) for v in tb.TEMPERATURE_LOGITS)})$ の場合です。"
                "T で割ってから softmax に通すと、次の表のようになります。")
    t_rows = temperature_rows()
    ui.show_table(pd.DataFrame({
        "温度": [f"T = {format_number(r.temperature, 1)}" for r in t_rows],
        "z / T": ["(" + ", ".join(format_number(v, 1) for v in r.scaled) + ")" for r in t_rows],
        "P(A)": [format_number(r.probs[0], 3) for r in t_rows],
        "P(B)": [format_number(r.probs[1], 3) for r in t_rows],
        "P(C)": [format_number(r.probs[2], 3) for r in t_rows],
    }).set_index("温度"))
    st.caption("T = 0.5 で割るとロジットどうしの差が 2 倍になり、A の確率がさらに上がります。"
               "T = 2 で割ると差は半分になり、3 つの確率が互いに近づきます。")


@st.fragment
def model_output() -> None:
    """The tiny model's logits and probabilities as a fragment: a new seed reruns this part only."""
    model_seed = ui.number_input("モデルのシード", min_value=0, max_value=1000, value=0, step=1, key="output_model_seed",
                                 persist_state="session")
    vocab_m, h_last, emb, logits_m = tiny_forward(int(model_seed), PROMPT)
    # h stands as a column: as a row its 8 numbers were wider than a 390 px phone and the last ones hid
    ui.show_matrix(h_last[:, None], [f"{j + 1}" for j in range(h_last.size)], ["h（「を」の位置）"], digits=3,
                   corner="成分", caption=f"最後の位置の表現 $h$（$d_{{\\text{{model}}}}$ = {h_last.size}、成分を縦に並べています）")
    probs_m = tutor.output.probabilities(logits_m, 1.0)
    c1, c2 = st.columns(2)
    with c1:
        st.caption(f"ロジット z = h Eᵀ（重み共有、語彙 {len(vocab_m)} 語）")
        ui.show_table(pd.DataFrame({"トークン": list(vocab_m), "ロジット": [format_number(v, 3) for v in logits_m]}),
                      hide_index=True)
    with c2:
        cached_chart(prob_bars, probs_m, vocab_m, title="softmax(z)：次のトークンの確率", width="stretch")


def visual() -> None:
    st.subheader("最終表現 → ロジット → 確率（小さなデコーダ型モデル）")
    st.markdown(f"乱数で初期化しただけの（学習していない）小さなデコーダ型 Transformer に「{PROMPT}」を入れ、"
                "最後の位置の表現 $h$ から次のトークンの確率を計算します。学習前なので予測は当てになりませんが、"
                "計算の流れは本物と同じです。")
    model_output()

    st.subheader("温度で分布の形が変わる")
    temp_rows = {f"T = {format_number(r.temperature, 1)}": r.probs for r in temperature_rows()}
    cols = st.columns(len(tb.TEMPERATURES))
    for col, (name, probs_t) in zip(cols, temp_rows.items()):
        with col:
            cached_chart(prob_bars, probs_t, ["A", "B", "C"], title=name, width="stretch")


def try_it() -> None:
    st.subheader("温度を動かす")
    st.markdown(f"「手計算」と同じロジット $z = ({', '.join(format_number(v, 0) for v in tb.TEMPERATURE_LOGITS)})$ を温度 $T$ で"
                "割ってから softmax に通します。図の下のスライダーで $T$ を動かして、$T$ が小さいほど 1 位に集中し、"
                "大きいほど 3 つが平らに近づく様子を見てください。")
    # every T of the slider is computed here once; the browser picks the rows of the current T, so a
    # step costs no round trip (ui.figures.temperature_explorer)
    cached_chart(temperature_explorer, tuple(tb.TEMPERATURE_LOGITS), ("A", "B", "C"))
    st.subheader("選び方を比べる")
    try_choosing()
    st.subheader("1 トークンずつ生成する")
    try_generating()


@st.fragment
def try_choosing() -> None:
    """選び方を比べる as a fragment: a widget here reruns this part only, not the page (nor
    1 トークンずつ生成する below, whose button reads these settings from the session: add_step)."""
    st.markdown("小さな語彙の「次のトークンの確率」から 1 つ選びます。確率は直前のトークンで決まる簡単な表から作っています。"
                "シードを決めればサンプリングも毎回同じ結果になります。")
    c1, c2 = st.columns(2)
    with c1:
        prev = st.selectbox("直前のトークン", [t for t in VOCAB if t != "<eos>"], index=3, key="output_prev",
                            persist_state="session")
        strategy = st.selectbox("選び方", list(STRATEGY_LABELS), format_func=STRATEGY_LABELS.get, index=2,
                                key="output_strategy", persist_state="session")
        seed = ui.number_input("シード", min_value=0, max_value=1_000_000, value=0, step=1, key="output_seed",
                               persist_state="session")
    with c2:
        t_choice = st.slider("温度 T（選び方用）", min_value=0.1, max_value=3.0, value=1.5, step=0.1, key="output_temp2",
                             persist_state="session")
        k = st.slider("top-k の k", min_value=1, max_value=len(VOCAB), value=2, key="output_k", persist_state="session")
        p = st.slider("top-p の p", min_value=0.05, max_value=1.0, value=0.9, step=0.05, key="output_p",
                      persist_state="session")
    probs_c = tutor.output.probabilities(tutor.output.toy_next_logits(tutor.output.TOY_VOCAB.ids([prev])), t_choice)
    choice = ui.compute("output_choice", choose_with, probs_c, strategy, seed, k, p)
    if choice is not None:
        cached_chart(prob_bars, choice.distribution, VOCAB, highlight=choice.kept,
                     title=f"{STRATEGY_LABELS[strategy]}：残った候補の確率（合計 1 に直した後）", width="stretch")
        st.markdown(describe_choice(choice))
        st.metric("選ばれたトークン", SHOW[choice.index])
        st.caption(f"残った候補の元の確率の合計：{format_number(choice.kept_mass, 3)}")


@st.fragment
def try_generating() -> None:
    """1 トークンずつ生成する as a fragment: its widgets and buttons rerun this part only; a step uses
    the settings of 選び方を比べる as they are when the button is pressed."""
    st.markdown("ボタンを押すたびに、いまの列から次のトークンの確率を計算し、上で選んだ選び方・温度・シードで 1 つ選んで列に足します。"
                "〈eos〉が出たら文の終わりです。")
    prompt_tok = st.selectbox("書き出し", ["猫", "魚", "は", "を"], key="output_prompt", persist_state="session")
    steps = st.session_state.get(GEN_KEY, [])
    if steps and VOCAB[steps[0].ids[0]] != prompt_tok:  # the learner changed the opening word
        steps = []
        st.session_state[GEN_KEY] = steps
    finished = bool(steps) and VOCAB[steps[-1].chosen] == "<eos>"
    c1, c2 = st.columns(2)
    c1.button("1 トークン生成", key="output_gen_one", on_click=add_step, disabled=finished, icon="▶️", type="primary")
    c2.button("最初からやり直す", key="output_gen_reset", on_click=reset_steps, icon="↩️")
    if "output_gen_error" in st.session_state:
        st.error(st.session_state["output_gen_error"], icon="⚠️")
    sequence = tutor.output.TOY_VOCAB.ids([prompt_tok]) if not steps else steps[-1].ids + (steps[-1].chosen,)
    st.markdown("**いまの列**：" + " ".join(SHOW[i] for i in sequence))
    for number, step in enumerate(steps, start=1):
        top = step.choice.ranking[:3]
        with st.expander(f"ステップ {number}：{' '.join(SHOW[i] for i in step.ids)} → {SHOW[step.chosen]}",
                         expanded=number == len(steps)):
            st.markdown("確率の上位：" + "、".join(f"{SHOW[i]} {format_number(step.probs[i], 3)}" for i in top))
            st.markdown(describe_choice(step.choice))
    if finished:
        st.success("〈eos〉（文の終わり）が選ばれたので、生成はここで終わりです。")


ui.sections("output", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("output"))
