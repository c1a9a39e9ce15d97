"""⑧ 学習で注意が育つ: train a tiny attention model in the page and watch それ → B appear."""

import numpy as np
import pandas as pd
import streamlit as st

import tutor
import ui
from tutor import numfmt
from tutor import textbook as tb
from ui.figures import compare_runs_chart, training_curve_chart
from ui.handcalc import vector
from ui.memo import Memo
from ui.validate import format_number, format_tiny

ui.page("training")

VARIANTS = {"basic": "基本：A は動物、B は食べ物", "order": "語順で決まる：A も B も動物"}
OPTIMIZERS = {"adam": "Adam", "sgd": "SGD（素の勾配降下法）"}
HIST_K = "training__history"      # last finished run (non-widget key: survives page switches)
EXP_K = "training__experiments"   # {experiment key: (seed, run A, run B)}
REDRAW_EVERY = 10                 # progress bar update interval (steps)
CHART_SECONDS = 0.5               # the live chart is redrawn at most every this many seconds (each costs ~25 ms)
LONG_SECONDS = 10                 # an estimate this long is shown as a warning


@st.cache_resource(show_spinner=False, max_entries=1)  # no arguments: one store; the Memos inside are bounded
def shared_runs() -> dict:
    """Finished runs per (settings, seed) and the pace this server last measured, shared by every
    session: a second learner with the same setting gets the run at once. Not st.cache_data: its
    replay of the progress bar's messages fails on a cache hit (the bar is made outside the
    function). The runs are read-only records; nothing on this page mutates them."""
    return {"runs": Memo(maxsize=32), "experiments": Memo(maxsize=16), "pace": {}}


def pct(x: float) -> str:
    return numfmt.percent(x, 1)


def settings_text(cfg) -> str:
    return (f"{VARIANTS[cfg.variant]}／ヘッド {cfg.n_heads}・$d_k = {cfg.d_k}$／"
            f"{'√d_k で割る' if cfg.scale else '√d_k で割らない'}／"
            f"位置エンコーディング{'あり' if cfg.positional else 'なし'}／{OPTIMIZERS[cfg.optimizer]}・"
            f"学習率 {cfg.lr}／{cfg.steps} ステップ")


def seconds_text(seconds: float) -> str:
    whole = tutor.training.whole_seconds(seconds)
    return "1 秒未満" if whole < 1 else f"約 {whole} 秒"


def show_estimate(slot, *configs) -> None:
    """「目安：約 N 秒」 in ``slot`` (above the button, filled after a run so that it uses its pace):
    this server's last measured pace, else the development machine's; a long one as a warning."""
    pace = shared_runs()["pace"].get("update_seconds")
    seconds = tutor.training.estimate_seconds(
        *configs, update_seconds=pace if pace is not None else tutor.training.DEFAULT_UPDATE_SECONDS)
    source = "このサーバーで直前に測った速さ" if pace is not None else "開発用のパソコンの 1 コアで測った速さ"
    text = (f"目安：{seconds_text(seconds)}（{source}から見積もりました。サーバーの混み具合で変わります。"
            "同じ設定・同じシードの結果が残っていれば、すぐに表示されます）")
    if tutor.training.whole_seconds(seconds) >= LONG_SECONDS:
        slot.warning(text + "。時間のかかる設定です。ステップ数や d_k を小さくすると速くなります。",
                     icon=":material/schedule:")
    else:
        slot.caption(text)


def live_callback(bar, slot, title: str):
    """Progress bar + live loss/accuracy chart while the engine trains; ``cb.last`` = the last Progress."""
    seen = {"step": [], "loss": [], "acc": []}

    def cb(p) -> None:
        cb.last = p
        seen["step"].append(p.step)
        seen["loss"].append(p.loss)
        seen["acc"].append(p.accuracy)
        bar.progress(p.fraction, text=f"{title}：ステップ {p.step} / {p.total}・残り{seconds_text(p.seconds_left)}"
                                      f"（損失 {format_number(p.loss, 3)}）")
        if p.elapsed >= cb.next_chart:
            cb.next_chart = p.elapsed + CHART_SECONDS
            slot.altair_chart(training_curve_chart(seen["step"], seen["loss"], seen["acc"], "学習中の損失と正解率"),
                              width="content")
    cb.last, cb.next_chart = None, 0.0
    return cb


def run_once(store: str, key, train, callback, *configs):
    """``train(callback)`` unless the shared store has ``key``; a fresh run also records the pace."""
    def make():
        result = train(callback)
        if callback.last is not None:
            shared_runs()["pace"]["update_seconds"] = tutor.training.measured_update_seconds(
                callback.last.elapsed, *configs)
        return result
    return shared_runs()[store].get(key, make)


def done_text(what: str, callback) -> str:
    if callback.last is None:
        return f"{what}（同じ設定・同じシードの結果が残っていたので、計算せずに表示しています）"
    return f"{what}（{seconds_text(callback.last.elapsed)}かかりました）"


# ---------------------------------------------------------------------------
ui.section("aim")
st.markdown(
    "- $W_Q$・$W_K$・$W_V$ は人が決めるのではなく、**学習で決まる** ことを、目の前で小さなモデルを訓練して確かめる。\n"
    "- 学習前はばらばらだった「それ」の注意が、学習後に **指す相手（B）に集まる** 様子を見る。\n"
    "- 勾配が出力層 → $W_O$ → 重み付き和 → softmax → スコア → $W_Q$・$W_K$ と流れること、"
    "softmax が飽和するとそこで **勾配が止まる** ことを、数値で確かめる。"
)

ui.section("explain")
st.markdown(
    "これまでのページの $W_Q$・$W_K$・$W_V$ は、計算を追いやすいように選んだ値でした。実際のモデルでは、"
    "**最初は乱数を入れておき、訓練データで予測を外すたびに勾配降下法で少しずつ修正して** 決めます。"
    "ここでは「A は B を 見つけた 。 それ を 食べた」の形の短い文をたくさん作り、"
    "**「それ」の位置の出力だけから B を当てる** 課題で、1 層の Attention を学習させます。"
    "文には「昨日」「森で」「すぐに」などの語がときどき入り、B や「それ」の位置は文ごとに変わります。"
)
st.latex(r"\tilde{\mathbf{s}} = \frac{\mathbf{q}_{\text{それ}} K^\top}{\sqrt{d_k}},\quad"
         r"\mathbf{a} = \mathrm{softmax}(\tilde{\mathbf{s}})")
st.latex(r"\mathbf{h} = (\mathbf{a} V)\,W_O,\quad \mathbf{z} = \mathbf{h} W_{\text{out}} + \mathbf{b}")
st.latex(r"\begin{aligned}\mathbf{p} &= \mathrm{softmax}(\mathbf{z}) \\ L &= -\ln p_{B}\ \ (\text{交差エントロピー})\end{aligned}")
st.markdown("$\\tilde{\\mathbf{s}}$ は √d_k で割ったあとのスコア、$\\mathbf{a}$ は注意の重み、$\\mathbf{h}$ は注意の出力、"
            "$\\mathbf{z}$ は語彙の各単語のロジット、$\\mathbf{p}$ はその確率です。"
            "語彙のうち正解の語 B に当たる成分だけが 1 で、ほかが 0 のベクトル（one-hot）を $\\mathbf{t}$ と書きます。")
st.markdown(
    "損失 $L$ を下げるために、誤差逆伝播で各パラメータの勾配を求めます。勾配は順伝播を逆にたどり、"
    "出力層 → $W_O$ → 重み付き和 → **softmax** → スコア $\\tilde{\\mathbf{s}}$ → $W_Q$・$W_K$ と流れます。"
    "$W_Q$ と $W_K$ に届く勾配は、必ず softmax の微分を掛けられてから届きます。"
)
st.latex(r"\frac{\partial a_i}{\partial \tilde{s}_j} = a_i\,(\delta_{ij} - a_j),\qquad "
         r"\frac{\partial L}{\partial \mathbf{z}} = \mathbf{p} - \mathbf{t}")
st.caption("このページのモデルの勾配はすべて NumPy で手書きし、テストで数値微分（中心差分）と照合しています。")

# ---------------------------------------------------------------------------
ui.section("hand")
st.subheader("softmax の微分：飽和すると勾配が消える")
st.caption("0.001 未満の数は「仮数 × 10 の累乗」で書きます（例：2.5×10⁻⁵ = 0.000025）。")
for scores, note in ((tb.SATURATION_SCORES[0], ""), (tb.SATURATION_SCORES[1], "（飽和）")):
    jac = tutor.softmax_jacobian(scores)
    weights_tex = ", ".join(format_tiny(a, 5, tex=True) for a in tutor.softmax(scores))
    st.markdown(f"softmax に入るスコア $\\tilde{{s}} = {vector(scores, 0)}${note} → 重み $a = ({weights_tex})$")
    ui.show_table(pd.DataFrame([[format_tiny(v, 5) for v in row] for row in jac],
                               index=[f"a{i + 1}" for i in range(3)], columns=[f"s̃{j + 1}" for j in range(3)]))
    st.caption("∂a_i/∂s̃_j = a_i(δ_ij − a_j)")
st.markdown("飽和した例のヤコビ行列は、どの成分も 0 に近い小さな値です。スコアを多少ずらしても重みはほぼ動かない、"
            "ということです。誤差逆伝播で $W_Q$・$W_K$ へ戻る勾配もこの小さな成分を掛けられるので、ほとんど残りません。")

st.subheader("出力層の勾配 $p - t$")
logits = tb.TEMPERATURE_LOGITS
ce_probs = tutor.softmax(logits)
target = tutor.training.one_hot(logits.size, 1)  # the correct class is the 2nd (index 1)
st.markdown(f"ロジット $z = {vector(logits, 0)}$ の確率は $p = {vector(ce_probs, 3)}$。正解がクラス 2 のとき "
            f"$t = {vector(target, 0)}$ で、損失 $L = -\\ln p_2 = {format_number(tutor.training.cross_entropy(ce_probs, 1), 3)}$、"
            f"ロジットの勾配 $p - t = {vector(tutor.training.cross_entropy_grad(logits, 1), 3)}$。"
            "勾配降下法はこの勾配と逆の向きにロジットを動かすので、正解のロジットは上がり、ほかは下がります。")

# ---------------------------------------------------------------------------
ui.section("visual")
st.subheader("学習させてみる")


@st.fragment
def train_section() -> None:
    """学習させてみる, its results and the sentence to try as one fragment (the sentence asks the
    trained model): a setting, 学習を始める or a new sentence reruns this part only, not the page."""
    c1, c2 = st.columns(2)
    with c1:
        variant = st.radio("課題", list(VARIANTS), format_func=VARIANTS.get, key="training_variant",
                           persist_state="session")
        n_heads = st.radio("ヘッド数", [1, 2], horizontal=True, key="training_heads", persist_state="session")
        d_k = st.select_slider("各ヘッドの次元 d_k", [2, 4, 8, 16, 64], value=8, key="training_dk",
                               persist_state="session")
        scale = st.checkbox("√d_k で割る", value=True, key="training_scale", persist_state="session")
        positional = st.checkbox("位置エンコーディングを足す", value=True, key="training_pe", persist_state="session")
    with c2:
        optimizer = st.radio("最適化", list(OPTIMIZERS), format_func=OPTIMIZERS.get, horizontal=True,
                             key="training_opt", persist_state="session")
        lr = st.select_slider("学習率 η", [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0], value=0.05,
                              key="training_lr", persist_state="session")
        steps = st.slider("ステップ数", 20, 300, 150, step=10, key="training_steps", persist_state="session")
        seed = ui.number_input("乱数のシード", min_value=0, max_value=100_000, value=0, step=1, key="training_seed",
                               persist_state="session", help="同じシードと設定なら、毎回まったく同じ学習になります。")
    config = tutor.training.TrainConfig(variant=variant, n_heads=int(n_heads), d_k=int(d_k), scale=bool(scale),
                               positional=bool(positional), optimizer=optimizer, lr=float(lr), steps=int(steps))
    st.caption(f"訓練用の文 {config.n_train} 個・未知の文 {config.n_test} 個、埋め込み {config.d_model} 次元。"
               "SGD では学習率を 0.5 前後にすると進みます（大きすぎると発散します）。")

    estimate_slot = st.empty()
    show_estimate(estimate_slot, config)
    if st.button("学習を始める", key="training_run", type="primary", icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="学習を準備しています…")
        slot = st.empty()
        live = live_callback(bar, slot, "学習中")
        result = ui.compute("training_run", run_once, "runs", (config, int(seed)),
                            lambda cb: tutor.training.train(config, np.random.default_rng(int(seed)), cb, REDRAW_EVERY),
                            live, config)
        slot.empty()
        if result is not None:
            bar.progress(1.0, text=done_text(f"学習が終わりました：{result.config.steps} ステップ", live))
            st.session_state[HIST_K] = result
        else:
            bar.empty()
        show_estimate(estimate_slot, config)  # with the pace this run measured

    hist = st.session_state.get(HIST_K)
    if hist is None:
        st.info("「学習を始める」を押すと、ここに学習の経過と結果が出ます（既定の設定なら数秒です）。")
    else:
        st.caption(f"表示中の結果の設定：{settings_text(hist.config)}")
        m1, m2, m3 = st.columns(3)
        m1.metric("未知の文での正解率", pct(hist.heldout_accuracy), f"学習前 {pct(hist.initial.accuracy)}",
                  delta_color="off")
        m2.metric("それ→B の平均の重み", format_number(hist.heldout_b_weight, 3),
                  f"学習前 {format_number(hist.initial.b_weight, 3)}", delta_color="off")
        # a loss that fell is good news: the change (negative, arrow down) in green ("inverse")
        m3.metric("最後の損失", format_number(float(hist.loss[-1]), 4),
                  format_number(float(hist.loss[-1]) - float(hist.loss[0]), 3), delta_color="inverse",
                  delta_description=f"最初 {format_number(float(hist.loss[0]), 3)}")
        ui.cached_chart(training_curve_chart, hist.steps, hist.loss, hist.accuracy, "損失と正解率（訓練データ）",
                        width="content")

        st.subheader("教科書の文で「それ」の行を見る")
        labels = ui.unique_labels(list(hist.probe_words))
        rows = [("学習前" if c == 0 else f"ステップ {c}") for c in hist.checkpoints]
        for h in range(hist.config.n_heads):
            ui.heatmap(hist.probe_weights[:, h, :], rows, labels, digits=2, x_title="キー（見られる側）",
                       y_title="いつ", title=f"「それ」の注意（ヘッド {h + 1}）")
        st.caption(f"「{hist.probe_words[hist.probe_b_pos]}」の列が、学習が進むにつれて明るくなるかを見てください。"
                   f"学習前の重み：{format_number(float(hist.probe_weights[0, 0, hist.probe_b_pos]), 3)}、"
                   f"学習後：{format_number(float(hist.probe_weights[-1, 0, hist.probe_b_pos]), 3)}（ヘッド 1）。")

        st.subheader("学習に使っていない文の注意（全行）")
        test_words = ui.unique_labels(list(hist.test_example))
        full = tutor.training.attention_map(hist.params, tutor.training.VOCAB.ids(hist.test_example), hist.config)
        for h in range(hist.config.n_heads):
            ui.heatmap(full[h], test_words, test_words, digits=2, title=f"学習後の注意の重み（ヘッド {h + 1}）")
        st.caption("損失に使うのは「それ」の行だけです。ほかの行は、同じ $W_Q$・$W_K$ がほかの語でどう働くかを示しています。")

        # -----------------------------------------------------------------------
        ui.section("try")
        st.markdown("語彙の中の単語で文を作り、学習したモデルに「それ」が何を指すか答えさせます（単語はスペースで区切ります）。")
        st.caption("使える単語：" + "　".join(tutor.training.VOCAB[1:]))
        sentence = st.text_input("文", value="犬 は 川で 豆 を 拾った 。 それ を 食べた", key="training_sentence",
                                 persist_state="session")
        pred = ui.compute("training_predict", tutor.training.predict_sentence, hist.params, sentence, hist.config)
        if pred is not None:
            st.markdown(f"モデルの答え：**{pred.word}**（確率 {format_number(pred.probability, 3)}）")
            ui.heatmap(pred.weights, [f"それ（ヘッド {h + 1}）" for h in range(pred.weights.shape[0])],
                       ui.unique_labels(list(pred.words)), digits=2, title="「それ」の行の注意")


train_section()

# ---------------------------------------------------------------------------
st.header("実験：教科書の主張をこの小さなモデルで確かめる", divider="gray")
st.markdown("同じシードなら、2 つの実行は同じ文・同じ初期値から始まり、違うのはスイッチ 1 つだけです。"
            "**測った結果をそのまま示します**。教科書どおりにならない場合も、そう表示します。")


@st.fragment
def experiment_section() -> None:
    """The experiment as a fragment: choosing one, its seed or 実験を実行 reruns this part only."""
    exp_key = st.selectbox("実験", list(tutor.training.EXPERIMENTS), format_func=lambda k: tutor.training.EXPERIMENTS[k].title,
                           key="training_exp", persist_state="session")
    exp_seed = ui.number_input("実験のシード", min_value=0, max_value=100_000, value=0, step=1, key="training_exp_seed",
                               persist_state="session")
    experiment = tutor.training.EXPERIMENTS[exp_key]
    estimate_slot = st.empty()
    show_estimate(estimate_slot, *experiment.configs)
    if st.button("実験を実行", key="training_exp_run", icon=":material/science:"):
        bar = st.progress(0.0, text="実験を準備しています…")
        slot = st.empty()
        live = live_callback(bar, slot, "実験中")
        result = ui.compute("training_exp", run_once, "experiments", (exp_key, int(exp_seed)),
                            lambda cb: tutor.training.run_experiment(exp_key, int(exp_seed), cb, REDRAW_EVERY),
                            live, *experiment.configs)
        slot.empty()
        bar.progress(1.0, text=done_text("実験が終わりました", live))
        if result is not None:
            st.session_state.setdefault(EXP_K, {})[exp_key] = (int(exp_seed), *result)
        show_estimate(estimate_slot, *experiment.configs)

    done = st.session_state.get(EXP_K, {}).get(exp_key)
    if done is None:
        st.info("「実験を実行」を押すと、2 つの設定を同じシードで学習させて比べます。")
    else:
        used_seed, run_a, run_b = done
        outcome = tutor.training.experiment_outcome(exp_key, run_a, run_b)
        sum_a, sum_b = outcome.runs
        st.caption(f"シード {used_seed} の結果")
        table = pd.DataFrame({
            label: [pct(r.heldout_accuracy), format_number(r.b_weight, 3), format_number(r.peak_weight, 3),
                    format_number(r.final_loss, 3), str(r.steps_to_95) if r.steps_to_95 is not None else "届かず"]
            for label, r in zip(experiment.labels, outcome.runs)
        }, index=["未知の文での正解率", "それ→B の平均の重み", "「それ」の行の最大の重み（飽和の度合い）",
                  "最後の損失", "訓練の正解率 95 % に届いたステップ"])
        ui.show_table(table.rename_axis("比べる値"))
        ui.cached_chart(compare_runs_chart, (run_a.steps, run_b.steps), (run_a.loss, run_b.loss), experiment.labels,
                        "損失の推移", "損失", width="content")
        ui.cached_chart(compare_runs_chart, (run_a.steps, run_b.steps), (run_a.grad_norm_of("W_Q"), run_b.grad_norm_of("W_Q")),
                        experiment.labels, "W_Q に届いた勾配の大きさ（対数目盛）", "‖∂L/∂W_Q‖", log=True, width="content")
        if exp_key == "scaling":
            if outcome.switch_matters:
                st.success(
                    f"割らないと「それ」の行がすぐ 1 つのトークンに張り付き（最大の重み {format_number(sum_b.peak_weight, 3)}）、"
                    f"損失が {format_number(sum_b.final_loss, 3)} と大きいまま、$W_Q$ への勾配が "
                    f"{format_tiny(sum_b.last_grad_w_q, 3)} まで消えました。教科書の「飽和すると学習が止まる」が再現されています。")
            else:
                st.warning("このシードでは、割らなくても学習できました。Adam は小さな勾配も同じくらいの一歩に直して進むため、"
                           "いつも止まるとは限りません。別のシードや「SGD」でも試してみてください。")
            st.caption(f"正直な補足：学習の最初の一歩では、割らないほうが $W_Q$ への勾配はむしろ大きい"
                       f"（{format_number(sum_b.first_grad_w_q, 3)} 対 "
                       f"{format_number(sum_a.first_grad_w_q, 3)}）。止まるのは、数ステップで softmax が飽和したあとです。")
        elif exp_key == "position":
            if outcome.switch_matters:
                st.success(
                    f"位置エンコーディングがないと正解率は {pct(sum_b.heldout_accuracy)} で、2 匹の動物のどちらかを当てずっぽうで"
                    "選ぶのと同じです。「猫 は 鳥 を …」と「鳥 は 猫 を …」は同じトークンの並べ替えなので、"
                    "位置の情報なしでは「それ」の出力がまったく同じになるからです。")
            else:
                st.warning("このシードでは、位置エンコーディングがなくても差が出ませんでした。")
        else:
            st.info(
                f"この課題は 1 つの仕事（「それ」→ B）しかないので、1 ヘッドでも {pct(sum_a.heldout_accuracy)}、"
                f"2 ヘッドでも {pct(sum_b.heldout_accuracy)} です。ヘッドを増やしても役割が自然に分かれるとは限らず、"
                "同じ仕事を 2 つのヘッドで分け合うこともあります（ヘッドごとの重みは上の「学習させてみる」で 2 ヘッドを選ぶと見られます）。")


experiment_section()

ui.quiz_section("training")
ui.next_link("training")
