"""AppTest of ⑧ /training: hand calculation, estimates, runs, settings, experiments, symbols, formatting."""
import json

import numpy as np
import pytest
import streamlit as st

import tutor
from tutor import textbook as tb
from ui.validate import format_number, format_tiny

from apphelpers import chart_data, heatmaps, metric_part, open_page, page_text, tables


PAGE = "pages/12_training.py"


def estimates(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("目安：")] + \
        [w.value for w in at.warning if w.value.startswith("目安：")]


def seconds_text(seconds: float) -> str:
    whole = tutor.training.whole_seconds(seconds)
    return "1 秒未満" if whole < 1 else f"約 {whole} 秒"


TRAINING = "pages/12_training.py"


@pytest.fixture(autouse=True)
def empty_store():
    """Each test starts with ⑧'s shared store of finished runs empty (st.cache_resource lives as
    long as the process: a run of another test module would otherwise be 'kept' here)."""
    st.cache_resource.clear()
    yield


def test_page_opens_with_hand_calculation():
    at = open_page(PAGE)
    assert not at.exception, at.exception
    text = page_text(at)
    assert "ねらい" in text and "確認クイズ" in text
    # the saturated Jacobian entry and the gentle one, formatted by the page from the engine
    gentle = tutor.softmax_jacobian(tb.SATURATION_SCORES[0])
    assert format_number(gentle[0, 0], 5) in text                      # 0.22270
    assert format_number(tutor.training.cross_entropy(tutor.softmax(tb.TEMPERATURE_LOGITS), 1), 3) in text
    assert not at.get("progress")
    assert any("学習を始める" in str(i.value) for i in at.info)


def test_estimate_before_the_first_run_uses_the_development_pace():
    at = open_page(PAGE)
    train_est, exp_est = estimates(at)
    want = tutor.training.estimate_seconds(tutor.training.TrainConfig())          # 0.495 s
    assert train_est.startswith(f"目安：{seconds_text(want)}（開発用のパソコン") and "混み具合" in train_est
    assert "目安：1 秒未満" in train_est
    scaling = tutor.training.estimate_seconds(*tutor.training.EXPERIMENTS["scaling"].configs)
    assert exp_est.startswith(f"目安：{seconds_text(scaling)}（") and "約 3 秒" in exp_est
    # the largest setting: 2 heads, d_k = 64, 300 steps
    at.radio(key="training_heads").set_value(2)
    at.select_slider(key="training_dk").set_value(64)
    at.slider(key="training_steps").set_value(300).run()
    largest = tutor.training.TrainConfig(n_heads=2, d_k=64, steps=300)
    assert estimates(at)[0].startswith(f"目安：{seconds_text(tutor.training.estimate_seconds(largest))}（")
    assert "約 5 秒" in estimates(at)[0]


def test_train_button_runs_the_engine_and_shows_its_numbers():
    at = open_page(PAGE)
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
    # the prediction box answers with the trained model
    text = page_text(at)
    assert "モデルの答え：**豆**" in text


def test_settings_two_heads_and_bad_sentence_and_divergence():
    at = open_page(PAGE)
    at.radio(key="training_heads").set_value(2)
    at.select_slider(key="training_dk").set_value(4)
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    titles = " ".join(h.title for h in heatmaps(at))
    assert "「それ」の注意（ヘッド 2）" in titles and "学習後の注意の重み（ヘッド 2）" in titles
    # a sentence without それ: Japanese error, no traceback
    at.text_input(key="training_sentence").set_value("猫 は 魚 を 食べた").run()
    assert not at.exception
    assert any("それ" in e.value for e in at.error)
    # SGD with a huge learning rate diverges: st.error, the last good run stays on the page
    at.radio(key="training_opt").set_value("sgd")
    at.select_slider(key="training_lr").set_value(2.0)
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    assert any("発散" in e.value for e in at.error)
    assert metric_part(at, "未知の文での正解率") == "100.0%"


def test_experiment_position_shows_measured_numbers():
    at = open_page(PAGE)
    at.selectbox(key="training_exp").set_value("position")
    at.button(key="training_exp_run").click().run()
    assert not at.exception, at.exception
    with_pe, without = tutor.training.run_experiment("position", 0)
    table = tables(at)[-1]
    assert table.loc["未知の文での正解率"].tolist() == [f"{with_pe.heldout_accuracy:.1%}",
                                                       f"{without.heldout_accuracy:.1%}"]
    assert any("当てずっぽう" in s.value for s in at.success)
    assert "実験が終わりました" in at.get("progress")[0].proto.text and "かかりました" in at.get("progress")[0].proto.text
    at.button(key="training_exp_run").click().run()                      # again: kept, the bar still works
    assert not at.exception, at.exception
    assert "計算せずに表示しています" in at.get("progress")[0].proto.text
    assert tables(at)[-1].loc["未知の文での正解率"].tolist() == table.loc["未知の文での正解率"].tolist()


def test_same_setting_again_comes_from_the_shared_store_without_breaking_the_bar():
    """A second click, and a second learner (a new session), get the finished run at once."""
    at = open_page(PAGE)
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    first = metric_part(at, "それ→B")
    at.button(key="training_run").click().run()
    assert not at.exception, at.exception
    assert "計算せずに表示しています" in at.get("progress")[0].proto.text
    assert metric_part(at, "それ→B") == first
    other = open_page(PAGE)                                               # another learner
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
    table = tables(pages[TRAINING])[1]
    assert table.iloc[0, 0] == format_tiny(jac[0, 0]) == "4.5×10⁻⁵"
    assert table.iloc[1, 2] == format_tiny(jac[1, 2]) == "-9.4×10⁻¹⁴"
    assert "0.00000" not in table.to_string()
