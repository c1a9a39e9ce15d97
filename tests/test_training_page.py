"""AppTest of ⑧ /training, section by section: hand calculation, estimates, runs, settings,
experiments, symbols, formatting; a run in 可視化 is what 試してみよう's sentence asks."""

import numpy as np
import pytest
import streamlit as st

import tutor
from tutor import numfmt
from tutor import textbook as tb
from ui.validate import format_number, format_tiny

from apphelpers import chart_data, heatmaps, metric_part, open_page, page_text, sections_of, show_section, tables


PAGE = "pages/12_training.py"


def estimates(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("目安：")] + \
        [w.value for w in at.warning if w.value.startswith("目安：")]


def seconds_text(seconds: float) -> str:
    whole = tutor.training.whole_seconds(seconds)
    return "1 秒未満" if whole < 1 else f"約 {whole} 秒"


TRAINING = "pages/12_training.py"


def experiment_table(at):
    """The experiment's comparison table (試してみよう also shows the recipe's tables after it)."""
    return next(t for t in tables(at) if "未知の文での正解率" in t.index)


@pytest.fixture(autouse=True)
def empty_store():
    """Each test starts with ⑧'s shared store of finished runs empty (st.cache_resource lives as
    long as the process: a run of another test module would otherwise be 'kept' here)."""
    st.cache_resource.clear()
    yield


def test_page_opens_in_sections_with_hand_calculation():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    assert [h.value for h in at.subheader][:2] == ["ねらい", "解説"]
    show_section(at, "hand")
    text = page_text(at)
    # the saturated Jacobian entry and the gentle one, formatted by the page from the engine
    gentle = tutor.softmax_jacobian(tb.SATURATION_SCORES[0])
    assert format_number(gentle[0, 0], 5) in text                      # 0.22270
    assert format_number(tutor.training.cross_entropy(tutor.softmax(tb.TEMPERATURE_LOGITS), 1), 3) in text
    show_section(at, "visual")
    assert [h.value for h in at.subheader][0] == "学習させてみる"
    assert not at.get("progress")
    assert any("「学習を始める」を押すと、ここに学習の経過と結果が出ます" in str(i.value) for i in at.info)
    # 試してみよう before any run: no sentence box, a pointer to 可視化's button instead
    show_section(at, "try")
    assert not [t for t in at.text_input if t.key == "training_sentence"]
    assert any("「可視化」" in str(i.value) and "「学習を始める」" in str(i.value) for i in at.info)
    assert any(h.value == "実験：教科書の主張をこの小さなモデルで確かめる" for h in at.subheader)


def test_estimate_before_the_first_run_uses_the_development_pace():
    at = open_page(PAGE, section="visual")
    (train_est,) = estimates(at)
    want = tutor.training.estimate_seconds(tutor.training.TrainConfig())          # 0.495 s
    assert train_est.startswith(f"目安：{seconds_text(want)}（開発用のパソコン") and "混み具合" in train_est
    assert "目安：1 秒未満" in train_est
    # the largest setting: 2 heads, d_k = 64, 300 steps
    at.radio(key="training_heads").set_value(2)
    at.select_slider(key="training_dk").set_value(64)
    at.slider(key="training_steps").set_value(300).run()
    largest = tutor.training.TrainConfig(n_heads=2, d_k=64, steps=300)
    assert estimates(at)[0].startswith(f"目安：{seconds_text(tutor.training.estimate_seconds(largest))}（")
    assert "約 5 秒" in estimates(at)[0]
    show_section(at, "try")
    (exp_est,) = estimates(at)
    scaling = tutor.training.estimate_seconds(*tutor.training.EXPERIMENTS["scaling"].configs)
    assert exp_est.startswith(f"目安：{seconds_text(scaling)}（") and "約 3 秒" in exp_est


def test_train_button_runs_the_engine_and_shows_its_numbers():
    at = open_page(PAGE, section="visual")
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    bars = at.get("progress")
    assert bars and "学習が終わりました：150 ステップ" in bars[0].proto.text and "かかりました" in bars[0].proto.text
    # the next estimate comes from this server's measured pace
    assert "このサーバーで直前に測った速さ" in estimates(at)[0]
    want = tutor.training.train(tutor.training.TrainConfig(), np.random.default_rng(0))
    assert metric_part(at, "未知の文での正解率") == f"{want.heldout_accuracy:.1%}" == "100.0%"
    assert metric_part(at, "それ→B") == format_number(want.heldout_b_weight, 3)
    # the loss / accuracy chart holds exactly the run's curves
    df = chart_data(at, 0)
    loss = df[df["系列"] == "損失"]["値"].to_numpy()
    np.testing.assert_allclose(loss, want.loss)
    # checkpoint heatmap of the textbook sentence: 魚 column at the last checkpoint
    cp = heatmaps(at)[0]
    last = cp.texts[cp.rows.index(f"ステップ {want.checkpoints[-1]}")][cp.cols.index("魚")]
    assert last == format_number(want.probe_weights[-1, 0, want.probe_b_pos], 2)
    assert "学習前" in cp.rows


def test_the_run_of_visual_is_the_model_try_asks():
    """The model trained in 可視化 is what 試してみよう's sentence asks when it is opened next."""
    at = open_page(PAGE, section="visual")
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    show_section(at, "try")
    want = tutor.training.train(tutor.training.TrainConfig(), np.random.default_rng(0))
    sentence = "犬 は 川で 豆 を 拾った 。 それ を 食べた"
    assert at.text_input(key="training_sentence").value == sentence
    pred = tutor.training.predict_sentence(want.params, sentence, want.config)
    assert pred.word == "豆"
    assert f"モデルの答え：**豆**（確率 {format_number(pred.probability, 3)}）" in page_text(at)
    (row,) = [h for h in heatmaps(at) if h.title == "「それ」の行の注意"]
    assert row.rows == ["それ（ヘッド 1）"]
    assert row.texts == [[format_number(v, 2) for v in pred.weights[0]]]


def test_settings_two_heads_and_bad_sentence_and_divergence():
    at = open_page(PAGE, section="visual")
    at.radio(key="training_heads").set_value(2)
    at.select_slider(key="training_dk").set_value(4)
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    titles = " ".join(h.title for h in heatmaps(at))
    assert "「それ」の注意（ヘッド 2）" in titles and "学習後の注意の重み（ヘッド 2）" in titles
    # 試してみよう asks the 2-head model: one row per head
    show_section(at, "try")
    (row,) = [h for h in heatmaps(at) if h.title == "「それ」の行の注意"]
    assert row.rows == ["それ（ヘッド 1）", "それ（ヘッド 2）"]
    # a sentence without それ: Japanese error, no traceback
    at.text_input(key="training_sentence").set_value("猫 は 魚 を 食べた").run()
    assert not at.exception
    assert any("それ" in e.value for e in at.error)
    # back in 可視化 the settings are the learner's (kept in the session, not in the drawn tab)
    show_section(at, "visual")
    assert at.radio(key="training_heads").value == 2 and at.select_slider(key="training_dk").value == 4
    # SGD with a huge learning rate diverges: st.error, the last good run stays on the page
    at.radio(key="training_opt").set_value("sgd")
    at.select_slider(key="training_lr").set_value(2.0)
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    assert any("発散" in e.value for e in at.error)
    assert metric_part(at, "未知の文での正解率") == "100.0%"


def test_experiment_position_shows_measured_numbers():
    at = open_page(PAGE, section="try")
    at.selectbox(key="training_exp").set_value("position")
    at.button(key="training_exp_run").click().run()
    assert not at.exception, at.exception
    with_pe, without = tutor.training.run_experiment("position", 0)
    table = experiment_table(at)
    assert table.loc["未知の文での正解率"].tolist() == [f"{with_pe.heldout_accuracy:.1%}",
                                                       f"{without.heldout_accuracy:.1%}"]
    assert any("当てずっぽう" in s.value for s in at.success)
    assert "実験が終わりました" in at.get("progress")[0].proto.text and "かかりました" in at.get("progress")[0].proto.text
    at.button(key="training_exp_run").click().run()                      # again: kept, the bar still works
    assert not at.exception, at.exception
    assert "計算せずに表示しています" in at.get("progress")[0].proto.text
    assert experiment_table(at).loc["未知の文での正解率"].tolist() == table.loc["未知の文での正解率"].tolist()


def test_experiment_heads_points_to_the_visual_tab():
    """The heads experiment's note names where the per-head weights are (now in another tab)."""
    run_a, run_b = tutor.training.run_experiment("heads", 0, None, 5)
    at = open_page(PAGE, section="try", session={"training__experiments": {"heads": (0, run_a, run_b)}})
    at.selectbox(key="training_exp").set_value("heads").run()
    assert not at.exception, at.exception
    (note,) = [i.value for i in at.info if "ヘッドごとの重み" in i.value]
    assert "「可視化」の「学習させてみる」で 2 ヘッドを選ぶと見られます" in note
    outcome = tutor.training.experiment_outcome("heads", run_a, run_b)
    assert f"1 ヘッドでも {outcome.runs[0].heldout_accuracy:.1%}" in note


def test_same_setting_again_comes_from_the_shared_store_without_breaking_the_bar():
    """A second click, and a second learner (a new session), get the finished run at once."""
    at = open_page(PAGE, section="visual")
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    first = metric_part(at, "それ→B")
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    assert "計算せずに表示しています" in at.get("progress")[0].proto.text
    assert metric_part(at, "それ→B") == first
    other = open_page(PAGE, section="visual")                             # another learner
    other.button(key="training_run").click().run()
    assert not other.exception, other.exception
    assert "計算せずに表示しています" in other.get("progress")[0].proto.text
    assert metric_part(other, "それ→B") == first
    # another seed is a new run
    other.number_input(key="training_seed").set_value(1)
    other.button(key="training_run").click().run()
    assert not other.exception, other.exception
    assert "かかりました" in other.get("progress")[0].proto.text


def test_training_symbols_h_z_t(pages):
    text = page_text(pages[TRAINING])
    assert r"\mathbf{h} = (\mathbf{a} V)\,W_O" in text
    assert r"\mathbf{z} = \mathbf{h} W_{\text{out}} + \mathbf{b}" in text
    assert r"\frac{\partial L}{\partial \mathbf{z}} = \mathbf{p} - \mathbf{t}" in text
    assert r"\mathbf{p} - \mathbf{y}" not in text and r"\mathbf{y} = " not in text
    assert r"\frac{\partial a_i}{\partial \tilde{s}_j}" in text          # softmax input = scaled score s̃
    # the hand calculation names the one-hot target t and shows it
    grad = tutor.training.cross_entropy_grad(tb.TEMPERATURE_LOGITS, 1)
    assert "$t = (0, 1, 0)$" in text
    assert "$p - t = (" + ", ".join(format_number(v, 3) for v in grad) + ")$" in text


def test_training_saturated_softmax_formatting(pages):
    text = page_text(pages[TRAINING])
    a = tutor.softmax(tb.SATURATION_SCORES[1])
    assert "(0.99995, 4.5\\times 10^{-5}, 2.1\\times 10^{-9})" in text
    assert ", ".join(format_tiny(x, 5, tex=True) for x in a) in text
    jac = tutor.softmax_jacobian(tb.SATURATION_SCORES[1])
    table = [t for t in tables(pages[TRAINING]) if list(t.index) == ["a1", "a2", "a3"]][1]   # the saturated Jacobian
    assert table.iloc[0, 0] == format_tiny(jac[0, 0]) == "4.5×10⁻⁵"
    assert table.iloc[1, 2] == format_tiny(jac[1, 2]) == "-9.4×10⁻¹⁴"
    assert "0.00000" not in table.to_string()


# ---------------------------------------------------------------------------
# the paper's recipe (issue 37 §1): Adam, the warm-up schedule, label smoothing
# ---------------------------------------------------------------------------
def recipe_table(at, index_first: str):
    return next(t for t in tables(at) if len(t.index) and t.index[0] == index_first)


def valid_vega_lite(at, index: int) -> dict:
    """The chart's spec as sent, with its datasets put back as records, validated against Vega-Lite."""
    import json

    import altair as alt

    proto = at.get("vega_lite_chart")[index].proto
    spec = json.loads(proto.spec)
    spec["datasets"] = {ds.name: chart_frame(ds).astype(object).to_dict("records") for ds in proto.datasets}
    alt.LayerChart.from_dict(spec, validate=True)
    return spec


def chart_frame(ds):
    import io

    import pyarrow as pa

    return pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pandas()


def test_recipe_explained_with_the_papers_numbers():
    at = open_page(PAGE)
    text = page_text(at)
    table = recipe_table(at, "Adam の β1")
    assert table.loc["Adam の β1", "原論文の値"] == "0.9" and table.loc["Adam の β2", "原論文の値"] == "0.98"
    assert table.loc["Adam の ε", "原論文の値"] == "1×10⁻⁹" and table.loc["warmup_steps", "原論文の値"] == "4,000"
    step, rate = tutor.training.peak(512, 4000)
    assert table.loc["学習率のピーク", "原論文の値"] == f"{numfmt.sci(rate, 2)}（ステップ 4,000）" == "6.99×10⁻⁴（ステップ 4,000）"
    assert table.loc["P_drop", "原論文の値"] == "0.1" and table.loc["ε_ls", "原論文の値"] == "0.1"
    assert table.loc["学習のステップ数", "原論文の値"] == "100,000"
    assert "直近およそ 10 ステップ分" in table.loc["Adam の β1", "意味"]                       # 1/(1 − 0.9)
    assert "およそ 50 ステップ分" in table.loc["Adam の β2", "意味"] and "1,000 ステップ分" in table.loc["Adam の β2", "意味"]
    assert r"\mathrm{lrate} &= d_{\text{model}}^{-0.5} \cdot \min\big(\mathrm{step}^{-0.5},\ " in text
    for s in ("なぜ warm-up が効くのか", "Post-LN", "Pre-LN", "ラベル平滑化（label smoothing）",
              "パープレキシティ（予測の迷いの大きさ）は悪くなりましたが、正解率と BLEU", r"q = (1 - \varepsilon)\,y + \frac{\varepsilon}{K}"):
        assert s in text, s
    headings = [h.value for h in at.subheader]
    assert "原論文の学習の設定：Adam と学習率の warm-up" in headings and "ラベル平滑化：正解に自信を持ちすぎない" in headings


def test_recipe_hand_calculation():
    at = open_page(PAGE, section="hand")
    text = page_text(at)
    assert r"\mathrm{step} = 4000" in text and r"(512 \cdot 4000)^{-0.5} \approx 6.99\times 10^{-4}" in text
    sched = recipe_table(at, "1")
    assert sched.index.tolist() == ["1", "1,000", "4,000", "16,000", "100,000"]
    assert sched["ピークの何倍か"].tolist() == ["0.00025", "0.25", "1", "0.5", "0.2"]
    assert sched.loc["4,000", "学習率"] == "6.99×10⁻⁴" and sched.loc["16,000", "学習率"] == "3.49×10⁻⁴"
    res = tutor.training.smoothed_cross_entropy(tutor.training.SMOOTHING_PROBS, 1, 0.1)
    ls = recipe_table(at, "猫")
    assert ls.loc["魚", "平滑化した目標 q"] == "0.92" and ls.loc["猫", "平滑化した目標 q"] == "0.02"
    assert ls.loc["魚", "one-hot y"] == "1" and ls.loc["猫", "−ln p"] == format_number(res.surprisal[0], 3) == "2.996"
    for value in (res.loss, res.one_hot_loss, res.floor):
        assert format_number(value, 3) in text
    assert (format_number(res.loss, 3), format_number(res.one_hot_loss, 3), format_number(res.floor, 3)) == ("0.445", "0.223", "0.390")
    assert r"q_{\text{魚}} &= 1 - 0.1 + 0.02 = 0.92" in text


def test_recipe_charts():
    at = open_page(PAGE, section="visual")
    assert [h.value for h in at.subheader][:3] == ["学習させてみる", "学習率のスケジュール（原論文の設定）", "ラベル平滑化で損失の最小点が動く"]
    sched = chart_data(at, 0)
    want = tutor.training.schedule(512, 4000, last_step=100_000)
    np.testing.assert_allclose(sched["y"].to_numpy(), want.rates)
    assert sched["x"].max() == 100_000 and sched.loc[sched["y"].idxmax(), "x"] == 4000
    spec = valid_vega_lite(at, 0)
    assert spec["datasets"]["marks"][0]["名前"] == "ピーク 6.99×10⁻⁴"
    curve = chart_data(at, 1)
    smoothed = curve[curve["系列"].str.startswith("平滑化")]
    assert smoothed.loc[smoothed["y"].idxmin(), "x"] == pytest.approx(0.92)
    valid_vega_lite(at, 1)
    assert "0.92" in page_text(at) and "0.390" in page_text(at)


def test_try_the_schedule_and_its_bad_input():
    at = open_page(PAGE, section="try")
    assert metric_part(at, "最大になるステップ") == "4,000" and metric_part(at, "最大の学習率") == "6.99×10⁻⁴"
    at.select_slider(key="training_sched_d").set_value(256)
    at.number_input(key="training_sched_w").set_value(400).run()
    assert not at.exception
    assert metric_part(at, "最大になるステップ") == "400"
    assert metric_part(at, "最大の学習率") == numfmt.sci(tutor.training.peak(256, 400)[1], 2) == "3.13×10⁻³"   # 1/320
    assert metric_part(at, "ステップ 2,000 の学習率") == numfmt.sci(256 ** -0.5 * 2000 ** -0.5, 2)
    series = set(chart_data(at, 0)["系列"])
    assert series == {"あなたの設定（d_model 256, warmup 400）", "原論文（512, 4000）"}
    at.number_input(key="training_sched_w").set_value(500_000).run()                   # out of range → Japanese note
    assert not at.exception
    assert any("warmup" in w.value and "に使える数は 1〜100,000 です" in w.value for w in at.warning)
    assert metric_part(at, "最大になるステップ") == "100,000"
    show_section(at, "hand")                                                          # the inputs live in the session
    show_section(at, "try")
    assert at.select_slider(key="training_sched_d").value == 256


def test_try_label_smoothing_with_a_bad_prediction():
    from apphelpers import edit_matrix

    at = open_page(PAGE, section="try")
    assert metric_part(at, "平滑化した損失") == "0.445" and metric_part(at, "下限") == "0.390"
    edit_matrix(at, "training_ls_p", [["0.02"], ["0.92"], ["0.02"], ["0.02"], ["0.02"]])       # p = q: the floor
    assert metric_part(at, "平滑化した損失") == metric_part(at, "下限") == "0.390"
    at.select_slider(key="training_ls_eps").set_value(0.0).run()                       # no smoothing: one-hot loss
    assert metric_part(at, "平滑化した損失") == metric_part(at, "one-hot の損失") == format_number(-np.log(0.92), 3)
    at.selectbox(key="training_ls_answer").set_value("猫").run()
    assert metric_part(at, "one-hot の損失") == format_number(-np.log(0.02), 3)
    edit_matrix(at, "training_ls_p", [["0.5"], ["0.6"], ["0"], ["0"], ["0"]])                   # sums to 1.1
    assert not at.exception
    assert any("合計 1" in e.value for e in at.error)
    edit_matrix(at, "training_ls_p", [["x"], ["0.6"], ["0"], ["0"], ["0"]])
    assert not at.exception and at.error
