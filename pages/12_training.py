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


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- $W_Q$・$W_K$・$W_V$ は人が決めるのではなく、**学習で決まる** ことを、目の前で小さなモデルを訓練して確かめる。\n"
        "- 学習前はばらばらだった「それ」の注意が、学習後に **指す相手（B）に集まる** 様子を見る。\n"
        "- 勾配が出力層 → $W_O$ → 重み付き和 → softmax → スコア → $W_Q$・$W_K$ と流れること、"
        "softmax が飽和するとそこで **勾配が止まる** ことを、数値で確かめる。\n"
        "- 原論文が実際にどう学習させたか（**Adam の設定、学習率の warm-up、ラベル平滑化**）を、式と数値で説明できる。"
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
    st.markdown("$\\tilde{\\mathbf{s}}$ は $\\sqrt{d_k}$ で割ったあとのスコア、$\\mathbf{a}$ は注意の重み、$\\mathbf{h}$ は注意の出力、"
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
    st.subheader("原論文の学習の設定：Adam と学習率の warm-up")
    explain_paper_recipe()
    st.subheader("ラベル平滑化：正解に自信を持ちすぎない")
    explain_label_smoothing()


def hand() -> None:
    st.subheader("softmax の微分：飽和すると勾配が消える")
    st.caption("0.001 未満の数は「仮数 × 10 の累乗」で書きます（例：2.5×10⁻⁵ = 0.000025）。")
    for scores, note in ((tb.SATURATION_SCORES[0], ""), (tb.SATURATION_SCORES[1], "（飽和）")):
        jac = tutor.softmax_jacobian(scores)
        weights_tex = ", ".join(format_tiny(a, 5, tex=True) for a in tutor.softmax(scores))
        st.markdown(f"softmax に入るスコア $\\tilde{{s}} = {vector(scores, 0)}${note} → 重み $a = ({weights_tex})$")
        ui.show_table(pd.DataFrame([[format_tiny(v, 5) for v in row] for row in jac],
                                   index=[f"a{i + 1}" for i in range(3)], columns=[f"s̃{j + 1}" for j in range(3)]))
        st.caption(r"$\partial a_i / \partial \tilde{s}_j = a_i(\delta_{ij} - a_j)$")
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
    st.subheader("学習率のスケジュール：ピークの位置と値")
    hand_schedule()
    st.subheader("ラベル平滑化：目標の分布と交差エントロピー")
    hand_label_smoothing()


def visual() -> None:
    st.subheader("学習させてみる")
    train_section()
    st.subheader("学習率のスケジュール（原論文の設定）")
    visual_schedule()
    st.subheader("ラベル平滑化で損失の最小点が動く")
    visual_smoothing()


@st.fragment
def train_section() -> None:
    """学習させてみる and its results as one fragment: a setting or 学習を始める reruns this part
    only, not the page. The finished run is kept in session state (HIST_K) for 試してみよう."""
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
        run_training(config, int(seed))
        show_estimate(estimate_slot, config)  # with the pace this run measured

    hist = st.session_state.get(HIST_K)
    if hist is None:
        st.info("「学習を始める」を押すと、ここに学習の経過と結果が出ます（既定の設定なら数秒です）。")
    else:
        show_run(hist)
        show_probe(hist)
        show_full_attention(hist)


def run_training(config, seed: int) -> None:
    """学習を始める: train with a live bar and chart; a finished run goes to HIST_K."""
    bar = st.progress(0.0, text="学習を準備しています…")
    slot = st.empty()
    live = live_callback(bar, slot, "学習中")
    result = ui.compute("training_run", run_once, "runs", (config, seed),
                        lambda cb: tutor.training.train(config, np.random.default_rng(seed), cb, REDRAW_EVERY),
                        live, config)
    slot.empty()
    if result is not None:
        bar.progress(1.0, text=done_text(f"学習が終わりました：{result.config.steps} ステップ", live))
        st.session_state[HIST_K] = result
    else:
        bar.empty()


def show_run(hist) -> None:
    """The last run's settings, its numbers before and after, and its loss / accuracy curves."""
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


def show_probe(hist) -> None:
    st.subheader("教科書の文で「それ」の行を見る")
    labels = ui.unique_labels(list(hist.probe_words))
    rows = [("学習前" if c == 0 else f"ステップ {c}") for c in hist.checkpoints]
    for h in range(hist.config.n_heads):
        ui.heatmap(hist.probe_weights[:, h, :], rows, labels, digits=2, x_title="キー（見られる側）",
                   y_title="いつ", title=f"「それ」の注意（ヘッド {h + 1}）")
    st.caption(f"「{hist.probe_words[hist.probe_b_pos]}」の列が、学習が進むにつれて明るくなるかを見てください。"
               f"学習前の重み：{format_number(float(hist.probe_weights[0, 0, hist.probe_b_pos]), 3)}、"
               f"学習後：{format_number(float(hist.probe_weights[-1, 0, hist.probe_b_pos]), 3)}（ヘッド 1）。")


def show_full_attention(hist) -> None:
    st.subheader("学習に使っていない文の注意（全行）")
    test_words = ui.unique_labels(list(hist.test_example))
    full = tutor.training.attention_map(hist.params, tutor.training.VOCAB.ids(hist.test_example), hist.config)
    for h in range(hist.config.n_heads):
        ui.heatmap(full[h], test_words, test_words, digits=2, title=f"学習後の注意の重み（ヘッド {h + 1}）")
    st.caption("損失に使うのは「それ」の行だけです。ほかの行は、同じ $W_Q$・$W_K$ がほかの語でどう働くかを示しています。")


def try_it() -> None:
    try_sentence()
    st.subheader("実験：教科書の主張をこの小さなモデルで確かめる", divider="gray")
    st.markdown("同じシードなら、2 つの実行は同じ文・同じ初期値から始まり、違うのはスイッチ 1 つだけです。"
                "**測った結果をそのまま示します**。教科書どおりにならない場合も、そう表示します。")
    experiment_section()
    st.subheader("学習率のスケジュールを動かす", divider="gray")
    try_schedule()
    st.subheader("ラベル平滑化を自分の数で", divider="gray")
    try_smoothing()


@st.fragment
def try_sentence() -> None:
    """The sentence to try, asked of the model trained in 可視化 (HIST_K), as a fragment: a new
    sentence reruns this part only."""
    hist = st.session_state.get(HIST_K)
    if hist is None:
        st.info("ここでは、学習したモデルに自分の文を読ませます。先に「可視化」の「学習させてみる」で"
                "「学習を始める」を押してください。")
        return
    st.markdown("語彙の中の単語で文を作り、学習したモデルに「それ」が何を指すか答えさせます（単語はスペースで区切ります）。")
    st.caption("使える単語：" + "　".join(tutor.training.VOCAB[1:]))
    sentence = st.text_input("文", value="犬 は 川で 豆 を 拾った 。 それ を 食べた", key="training_sentence",
                             persist_state="session")
    pred = ui.compute("training_predict", tutor.training.predict_sentence, hist.params, sentence, hist.config)
    if pred is not None:
        st.markdown(f"モデルの答え：**{pred.word}**（確率 {format_number(pred.probability, 3)}）")
        ui.heatmap(pred.weights, [f"それ（ヘッド {h + 1}）" for h in range(pred.weights.shape[0])],
                   ui.unique_labels(list(pred.words)), digits=2, title="「それ」の行の注意")


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
        run_experiment(exp_key, int(exp_seed), experiment)
        show_estimate(estimate_slot, *experiment.configs)

    done = st.session_state.get(EXP_K, {}).get(exp_key)
    if done is None:
        st.info("「実験を実行」を押すと、2 つの設定を同じシードで学習させて比べます。")
    else:
        show_experiment(exp_key, experiment, *done)


def run_experiment(exp_key: str, exp_seed: int, experiment) -> None:
    """実験を実行: both runs with a live bar and chart; the finished pair goes to EXP_K."""
    bar = st.progress(0.0, text="実験を準備しています…")
    slot = st.empty()
    live = live_callback(bar, slot, "実験中")
    result = ui.compute("training_exp", run_once, "experiments", (exp_key, exp_seed),
                        lambda cb: tutor.training.run_experiment(exp_key, exp_seed, cb, REDRAW_EVERY),
                        live, *experiment.configs)
    slot.empty()
    bar.progress(1.0, text=done_text("実験が終わりました", live))
    if result is not None:
        st.session_state.setdefault(EXP_K, {})[exp_key] = (exp_seed, *result)


def show_experiment(exp_key: str, experiment, used_seed: int, run_a, run_b) -> None:
    """The two runs side by side (table, loss, the gradient reaching W_Q) and what they showed."""
    outcome = tutor.training.experiment_outcome(exp_key, run_a, run_b)
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
    experiment_verdict(exp_key, outcome)


def experiment_verdict(exp_key: str, outcome) -> None:
    """What the measured runs say about the textbook's claim (said as measured, either way)."""
    sum_a, sum_b = outcome.runs
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
            "同じ仕事を 2 つのヘッドで分け合うこともあります（ヘッドごとの重みは「可視化」の「学習させてみる」で 2 ヘッドを選ぶと見られます）。")


# ---------------------------------------------------------------------------
# the paper's recipe: Adam, the warm-up schedule, label smoothing (tutor.training.recipe)
# ---------------------------------------------------------------------------
PAPER_D = tb.PAPER_D_MODEL                                  # 512
PHASES = {"warmup": "warm-up 中（直線の枝が小さい）", "peak": "ピーク（2 つの枝が等しい）", "decay": "ピーク後（1/√step の枝が小さい）"}
HAND_STEPS = (1, 1000, tutor.training.PAPER_WARMUP, 16000, tutor.training.PAPER_BASE_STEPS)
D_MODELS = [64, 128, 256, 512, 768, 1024, 2048]
SMOOTH_EPS = [0.0, 0.05, 0.1, 0.2, 0.3]
LS_KEY = "training_ls_p"           # the prediction editor of 試してみよう


def rate_text(x: float, tex: bool = False) -> str:
    """A learning rate as the page writes it: 6.99×10⁻⁴ (3 significant digits)."""
    return numfmt.sci(x, 2, tex=tex)


def explain_paper_recipe() -> None:
    rec = tutor.training
    adam, default = rec.PAPER_ADAM, rec.DEFAULT_ADAM
    p_step, p_rate = rec.peak(PAPER_D, rec.PAPER_WARMUP)
    st.markdown("ここまでの小さなモデルとは別に、原論文（base モデル）が実際にどう学習させたかをまとめます。"
                "最適化手法は **Adam** で、その定数を標準の値から少し変えています。学習率は一定ではなく、"
                "**小さな値から上げていき（warm-up）、そのあとゆっくり下げる** 式で、1 ステップごとに変えました。")
    ui.show_table(pd.DataFrame({
        "設定": ["Adam の β1", "Adam の β2", "Adam の ε", "warmup_steps", "学習率のピーク", "P_drop", "ε_ls", "学習のステップ数"],
        "原論文の値": [numfmt.trimmed(adam.beta1, 2), numfmt.trimmed(adam.beta2, 2), numfmt.sci(adam.eps, 0),
                    numfmt.grouped(rec.PAPER_WARMUP), f"{rate_text(p_rate)}（ステップ {numfmt.grouped(p_step)}）",
                    numfmt.trimmed(rec.PAPER_P_DROP, 2), numfmt.trimmed(rec.PAPER_LABEL_SMOOTHING, 2),
                    numfmt.grouped(rec.PAPER_BASE_STEPS)],
        "意味": [f"勾配の移動平均（進む向き）の減衰率。直近およそ {numfmt.grouped(rec.ema_horizon(adam.beta1))} ステップ分の平均",
               f"勾配の 2 乗の移動平均（歩幅の目安）の減衰率。およそ {numfmt.grouped(rec.ema_horizon(adam.beta2))} ステップ分"
               f"（標準の {numfmt.trimmed(default.beta2, 3)} ならおよそ {numfmt.grouped(rec.ema_horizon(default.beta2))} ステップ分）",
               f"0 で割るのを防ぐごく小さな数（標準は {numfmt.sci(default.eps, 0)}）",
               "学習率を上げていくステップ数", f"d_model = {PAPER_D} のときの最大の学習率",
               "ドロップアウトの率（各サブレイヤーの出力と、埋め込み＋位置エンコーディングの和：⑦-2）",
               "ラベル平滑化の強さ（下の「ラベル平滑化」）", "base モデルの学習の長さ（8 GPU でおよそ 12 時間）"],
    }).set_index("設定"))
    st.latex(r"\begin{aligned}\mathrm{lrate} &= d_{\text{model}}^{-0.5} \cdot \min\big(\mathrm{step}^{-0.5},\ "
             r"\\ &\qquad \mathrm{step} \cdot \mathrm{warmup}^{-1.5}\big)\end{aligned}")
    st.markdown(
        "$\\min$ の中の 2 つの枝のうち、$\\mathrm{step} \\cdot \\mathrm{warmup}^{-1.5}$ はステップに比例して増える直線、"
        "$\\mathrm{step}^{-0.5}$ は $1/\\sqrt{\\mathrm{step}}$ で減る曲線です。小さいほうが選ばれるので、"
        "学習率は warmup ステップ目まで直線で増え、そこで 2 つの枝が等しくなって最大になり、その後は $1/\\sqrt{\\mathrm{step}}$ に比例して下がります。")
    st.markdown(
        "**なぜ warm-up が効くのか**：理由として次の 2 つが挙げられています。\n\n"
        "1. **Adam の歩幅の目安が、最初はあてにならない**：Adam は勾配を、勾配の 2 乗の移動平均の平方根で割って 1 歩の大きさを"
        "決めます。最初の数歩では、この平均がまだ数個の勾配からしか求まっておらず、値がぶれます（$\\beta_2 = "
        f"{numfmt.trimmed(adam.beta2, 2)}$ の平均が落ち着くには、およそ {numfmt.grouped(rec.ema_horizon(adam.beta2))} ステップかかります）。"
        "その間に大きな学習率で進むと、見当違いの向きへ大きく動いてしまいます。\n"
        "2. **Post-LN は初期化直後、出力に近い層の勾配が大きい**：原論文の Post-LN（足し算のあとで正規化する形：⑦-2）では、"
        "初期化した直後に出力側の層の勾配が大きくなりやすいことが、のちの研究で示されました。いきなり大きな学習率で更新すると"
        "発散しやすいので、小さく始めます。正規化をサブレイヤーの前に置く Pre-LN では勾配が穏やかで、warm-up を省いても学習できたという報告があります。")


def explain_label_smoothing() -> None:
    st.markdown(
        "ふつうの交差エントロピーは、正解の語だけ 1 の one-hot ベクトル $y$ を目標にします。原論文は、正解から "
        f"$\\varepsilon_{{ls}} = {numfmt.trimmed(tutor.training.PAPER_LABEL_SMOOTHING, 2)}$ だけ確率を取り分け、"
        "それを語彙の全語（$K$ 語）に均等に配った分布 $q$ を目標にしました。これが **ラベル平滑化（label smoothing）** です。")
    st.latex(r"q = (1 - \varepsilon)\,y + \frac{\varepsilon}{K},\qquad L = -\sum_k q_k \ln p_k")
    st.markdown(
        "目標が one-hot でなくなるので、正解に確率 1 を置いても損失は 0 になりません。損失がいちばん小さくなるのは、"
        "予測 $p$ が目標 $q$ と同じになるときです。モデルは正解に自信を持ちすぎない予測を学びます。原論文の報告では、"
        "そのぶん **パープレキシティ（予測の迷いの大きさ）は悪くなりましたが、正解率と BLEU（翻訳の質の指標）は良くなりました**。\n\n"
        "原論文のもう 1 つの正則化は **ドロップアウト** です（各サブレイヤーの出力を残差に足す前と、埋め込みと位置エンコーディングの和に、"
        f"率 $P_{{\\text{{drop}}}} = {numfmt.trimmed(tutor.training.PAPER_P_DROP, 2)}$ でかける）。計算は ⑦-2 で確かめます。")


def hand_schedule() -> None:
    rec = tutor.training
    w = rec.PAPER_WARMUP
    p_step, p_rate = rec.peak(PAPER_D, w)
    st.markdown(f"原論文の $d_{{\\text{{model}}}} = {PAPER_D}$、$\\mathrm{{warmup}} = {w}$ を式に入れます。")
    st.latex(rf"""\begin{{aligned}}
\mathrm{{step}}^{{-0.5}} &= \mathrm{{step}} \cdot {w}^{{-1.5}} \\
&\iff \mathrm{{step}}^{{1.5}} = {w}^{{1.5}} \\
&\iff \mathrm{{step}} = {w} \\
\mathrm{{lrate}}_{{\max}} &= {PAPER_D}^{{-0.5}} \cdot {w}^{{-0.5}} \\ &= ({PAPER_D} \cdot {w})^{{-0.5}} \approx {rate_text(p_rate, tex=True)}
\end{{aligned}}""")
    st.markdown(f"2 つの枝が等しくなるステップ {numfmt.grouped(p_step)} で学習率は最大になります。"
                "その前は直線の枝なので学習率はステップに比例し（$\\mathrm{step}/\\mathrm{warmup}$ 倍）、"
                "その後は $1/\\sqrt{\\mathrm{step}}$ の枝なので、ピークの $\\sqrt{\\mathrm{warmup}/\\mathrm{step}}$ 倍になります。")
    points = rec.schedule_points(HAND_STEPS, PAPER_D, w)
    ui.show_table(pd.DataFrame({
        "ステップ": [numfmt.grouped(pt.step) for pt in points],
        "min が選ぶ枝": [PHASES[pt.phase] for pt in points],
        "学習率": [rate_text(pt.rate) for pt in points],
        "ピークの何倍か": [numfmt.significant(pt.of_peak, 3) for pt in points],
    }).set_index("ステップ"))
    st.caption(f"ステップ 1,000 は warmup の 1/4 なのでピークの 0.25 倍、ステップ 16,000 は warmup の 4 倍なので"
               f" $1/\\sqrt{{4}}$ = 0.5 倍。学習の最後（ステップ {numfmt.grouped(rec.PAPER_BASE_STEPS)}）でもピークの "
               f"{numfmt.trimmed(points[-1].of_peak, 2)} 倍が残ります。")


def hand_label_smoothing() -> None:
    rec = tutor.training
    words, eps, answer = rec.SMOOTHING_WORDS, rec.PAPER_LABEL_SMOOTHING, rec.SMOOTHING_ANSWER
    res = rec.smoothed_cross_entropy(rec.SMOOTHING_PROBS, answer, eps)
    k = len(words)
    st.markdown(f"語彙が {'・'.join(words)} の $K = {k}$ 語、正解の次の語が「{words[answer]}」、"
                f"$\\varepsilon = {numfmt.trimmed(eps, 2)}$ とします。モデルの予測は下の表の $p$ です。")
    st.latex(rf"\begin{{aligned}}\frac{{\varepsilon}}{{K}} &= \frac{{{numfmt.trimmed(eps, 2)}}}{{{k}}} = {numfmt.trimmed(res.target[(answer + 1) % k], 4)} \\ "
             rf"q_{{\text{{{words[answer]}}}}} &= 1 - {numfmt.trimmed(eps, 2)} + {numfmt.trimmed(res.target[(answer + 1) % k], 4)}"
             rf" = {numfmt.trimmed(res.target[answer], 4)}\end{{aligned}}")
    ui.show_table(pd.DataFrame({
        "語": list(words),
        "予測 p": [numfmt.trimmed(v, 3) for v in res.probs],
        "one-hot y": [numfmt.trimmed(v, 0) for v in rec.one_hot(k, answer)],
        "平滑化した目標 q": [numfmt.trimmed(v, 4) for v in res.target],
        "−ln p": [format_number(v, 3) for v in res.surprisal],
        "−q ln p": [format_number(v, 4) for v in res.terms],
    }).set_index("語"))
    st.latex(rf"""\begin{{aligned}}
L_{{\text{{平滑化}}}} &= \textstyle\sum_k (-q_k \ln p_k) = {format_number(res.loss, 3)} \\
L_{{\text{{one-hot}}}} &= -\ln p_{{\text{{{words[answer]}}}}} = {format_number(res.one_hot_loss, 3)} \\
L_{{\text{{平滑化}}}} \text{{ の下限}} &= -\textstyle\sum_k q_k \ln q_k = {format_number(res.floor, 3)}
\end{{aligned}}""")
    st.markdown("one-hot の損失は正解の項 $-\\ln p_{\\text{正解}}$ だけですが、平滑化した損失には正解以外の語の項も入ります。"
                f"予測を $q$ そのものにしても、損失は {format_number(res.floor, 3)}（$q$ のエントロピー）より下がりません。"
                "正解に確率を寄せすぎると、正解以外の語の $-q_k \\ln p_k$ が大きくなって損をします。")


def visual_schedule() -> None:
    rec = tutor.training
    sch = rec.schedule(PAPER_D, rec.PAPER_WARMUP, last_step=rec.PAPER_BASE_STEPS)
    ui.cached_chart(ui.figures.lines_chart, "ステップ", "学習率", (("原論文（d_model 512, warmup 4000）", tuple(sch.steps), tuple(sch.rates)),),
                    ((f"ピーク {rate_text(sch.peak_rate)}", sch.peak_step, sch.peak_rate),),
                    title="学習率のスケジュール", y_format=".1e", width="stretch")
    st.caption(f"ステップ {numfmt.grouped(sch.peak_step)} までの急な上り坂が warm-up です。"
               f"その後は {numfmt.grouped(rec.PAPER_BASE_STEPS)} ステップまで、$1/\\sqrt{{\\mathrm{{step}}}}$ に比例してゆっくり下がります。")


def visual_smoothing() -> None:
    rec = tutor.training
    k, eps = len(rec.SMOOTHING_WORDS), rec.PAPER_LABEL_SMOOTHING
    curve = rec.smoothing_loss_curve(k, eps)
    ui.cached_chart(ui.figures.lines_chart, "正解の語に置く確率", "損失",
                    (("one-hot の交差エントロピー", tuple(curve.p_answer), tuple(curve.one_hot)),
                     (f"平滑化（ε = {numfmt.trimmed(eps, 2)}）", tuple(curve.p_answer), tuple(curve.smoothed))),
                    ((f"最小 {numfmt.trimmed(curve.best_p, 3)}", curve.best_p, curve.best_loss),),
                    title=f"語彙 {k} 語：正解以外の語には残りを等分", width="stretch")
    st.caption(f"one-hot の損失は正解の確率を 1 に近づけるほど下がり続けます。平滑化した損失は、正解の確率が "
               f"{numfmt.trimmed(curve.best_p, 3)}（$= 1 - \\varepsilon + \\varepsilon/K$）のときに最小の "
               f"{format_number(curve.best_loss, 3)} になり、それ以上に自信を持つと損失はまた上がります。")


@st.fragment
def try_schedule() -> None:
    """学習率のスケジュールを動かす as a fragment: a new d_model or warmup reruns this part only."""
    rec = tutor.training
    c1, c2 = st.columns(2)
    with c1:
        d = st.select_slider("d_model", D_MODELS, value=PAPER_D, key="training_sched_d", persist_state="session")
    with c2:
        w = ui.number_input("warmup_steps", min_value=1, max_value=100_000, value=rec.PAPER_WARMUP, step=500,
                            key="training_sched_w", persist_state="session")
    sch = ui.compute("training_sched", rec.schedule, int(d), int(w))
    if sch is None:
        return
    paper = rec.learning_rate(sch.steps.astype(float), PAPER_D, rec.PAPER_WARMUP)
    m1, m2, m3 = st.columns(3)
    m1.metric("最大になるステップ", numfmt.grouped(sch.peak_step))
    m2.metric("最大の学習率", rate_text(sch.peak_rate))
    m3.metric(f"ステップ {numfmt.grouped(sch.steps[-1])} の学習率", rate_text(sch.rates[-1]))
    ui.cached_chart(ui.figures.lines_chart, "ステップ", "学習率",
                    ((f"あなたの設定（d_model {int(d)}, warmup {numfmt.grouped(int(w))}）", tuple(sch.steps), tuple(sch.rates)),
                     ("原論文（512, 4000）", tuple(sch.steps), tuple(paper))),
                    ((f"ピーク {rate_text(sch.peak_rate)}", sch.peak_step, sch.peak_rate),),
                    title="学習率のスケジュール（横軸は warmup の 5 倍まで）", y_format=".1e", width="stretch")
    st.caption("warmup を長くするとピークは右へずれて低くなります。$d_{\\text{model}}$ を大きくすると、曲線全体が $d_{\\text{model}}^{-0.5}$ に比例して下がります。")


@st.fragment
def try_smoothing() -> None:
    """ラベル平滑化を自分の数で as a fragment: an edit of p, ε or the answer reruns this part only."""
    rec = tutor.training
    words = list(rec.SMOOTHING_WORDS)
    c1, c2 = st.columns(2)
    with c1:
        eps = st.select_slider("ε（ラベル平滑化の強さ）", SMOOTH_EPS, value=rec.PAPER_LABEL_SMOOTHING, key="training_ls_eps",
                               persist_state="session")
    with c2:
        answer = st.selectbox("正解の次の語", words, index=rec.SMOOTHING_ANSWER, key="training_ls_answer", persist_state="session")
    # one row a word (a row of five columns was wider than a phone)
    p = ui.matrix_editor(LS_KEY, np.array([rec.SMOOTHING_PROBS]).T, words, ["予測 p"], reset_label="最初の値に戻す")
    res = ui.compute("training_ls", rec.smoothed_cross_entropy, p[:, 0], words.index(answer), float(eps))
    if res is None:
        return
    ui.show_matrix(np.vstack([res.probs, res.target, res.terms]), ["予測 p", "目標 q", "−q ln p"], words, digits=4)
    m1, m2, m3 = st.columns(3)
    m1.metric("平滑化した損失", format_number(res.loss, 3))
    m2.metric("one-hot の損失", format_number(res.one_hot_loss, 3))
    m3.metric("下限（q のエントロピー）", format_number(res.floor, 3))
    st.caption("予測の合計は 1 にしてください。予測を目標 q と同じにすると、平滑化した損失は下限まで下がります。")


ui.sections("training", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("training"))
