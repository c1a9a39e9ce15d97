"""tutor.seq2seq_rnn: one LSTM and one GRU step, their parameter counts, scheduled sampling; and the
two calculation generators built on them (seq2seq.lstm_cell, seq2seq.rnn_params) with the knowledge
items that quote their numbers.

Values are checked against a hand computation (math, not the engine), properties with hypothesis
(agreement with a plain loop over the gates, with the stacked-matrix form frameworks use), and bad
input against Japanese ValueErrors.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import quizzes
from quizzes import knowledge
from tutor import seq2seq as s2s
from tutor import seq2seq_rnn as rnn
from calchelpers import accepted_params


def sig(x: float) -> float:
    return 1 / (1 + math.exp(-x))


# ---------------------------------------------------------------------------
# the worked example, by hand
# ---------------------------------------------------------------------------
def test_lstm_worked_example_by_hand():
    """x = (1, 0), h = (0, 1), c = (2, −1): W x is W's first column, U h is U's second column."""
    step = rnn.lstm_step(rnn.CELL_X, rnn.CELL_H, rnn.CELL_C, rnn.LSTM_WEIGHTS)
    assert {k: step.gates[k].pre.tolist() for k in rnn.LSTM_GATES} == {
        "f": [2, 0], "i": [0, 1], "g": [1, -1], "o": [1, 2]}
    f, i, g, o = [sig(2), 0.5], [0.5, sig(1)], [math.tanh(1), -math.tanh(1)], [sig(1), sig(2)]
    np.testing.assert_allclose(step.gates["f"].value, f, rtol=1e-15)
    np.testing.assert_allclose(step.gates["g"].value, g, rtol=1e-15)
    c = [f[0] * 2 + i[0] * g[0], f[1] * -1 + i[1] * g[1]]
    np.testing.assert_allclose(step.c, c, rtol=1e-14)
    np.testing.assert_allclose(step.h, [o[0] * math.tanh(c[0]), o[1] * math.tanh(c[1])], rtol=1e-14)
    assert [f"{x:.3f}" for x in step.c] == ["2.142", "-1.057"]
    assert [f"{x:.3f}" for x in step.h] == ["0.711", "-0.691"]
    np.testing.assert_allclose(step.keep + step.write, step.c, rtol=0)
    assert step.gates["f"].b.tolist() == [0, 0]


def test_gru_worked_example_by_hand():
    step = rnn.gru_step(rnn.CELL_X, rnn.CELL_H, rnn.GRU_WEIGHTS)
    assert step.gates["z"].pre.tolist() == [2, -1] and step.gates["r"].pre.tolist() == [0, 1]
    z, r = [sig(2), sig(-1)], [0.5, sig(1)]
    reset_h = [0.0, r[1]]                                     # r ⊙ (0, 1)
    np.testing.assert_allclose(step.reset_h, reset_h, rtol=1e-15)
    cand = [math.tanh(1 + r[1]), math.tanh(2 * r[1])]         # W_h x = (1, 0), U_h (r ⊙ h) = (r₂, 2 r₂)
    np.testing.assert_allclose(step.gates["h"].value, cand, rtol=1e-14)
    h = [z[0] * 0 + (1 - z[0]) * cand[0], z[1] * 1 + (1 - z[1]) * cand[1]]
    np.testing.assert_allclose(step.h, h, rtol=1e-14)
    assert [f"{x:.3f}" for x in step.h] == ["0.112", "0.925"]
    np.testing.assert_allclose(rnn.gru_mix(z, rnn.CELL_H, cand), step.h, rtol=1e-14)


def test_parameter_counts_by_hand_and_against_the_example_weights():
    assert rnn.rnn_param_count("lstm", 256, 256) == 4 * (256 * 512 + 256) == 525_312
    assert rnn.rnn_param_count("gru", 256, 256) == 3 * (256 * 512 + 256) == 393_984
    assert rnn.rnn_param_count("rnn", 256, 256) == 131_328
    # the example's own arrays: every W, U and b of the page's LSTM and GRU, counted
    assert sum(a.size for k in rnn.LSTM_GATES for a in rnn.LSTM_WEIGHTS[k]) == rnn.rnn_param_count("lstm", 2, 2) == 40
    assert sum(a.size for k in rnn.GRU_GATES for a in rnn.GRU_WEIGHTS[k]) == rnn.rnn_param_count("gru", 2, 2) == 30
    assert rnn.param_table(2, 2)["lstm"] == {"blocks": 4, "per_block": 10, "total": 40}
    assert [rnn.rnn_param_count_mistake("lstm", 256, 256, m) for m in rnn.PARAM_MISTAKES] == [
        524_288, 4 * (256 * 256 + 256), 393_984, 131_328]
    assert rnn.rnn_param_count_mistake("gru", 10, 128, "other_blocks") == rnn.rnn_param_count("lstm", 10, 128)


@given(st.integers(1, 2000), st.integers(1, 2000))
def test_gru_is_three_quarters_of_an_lstm(d_x, d_h):
    lstm, gru = rnn.rnn_param_count("lstm", d_x, d_h), rnn.rnn_param_count("gru", d_x, d_h)
    assert 3 * lstm == 4 * gru and lstm - gru == rnn.rnn_param_count("rnn", d_x, d_h)


# ---------------------------------------------------------------------------
# properties: a plain loop over the gates, the stacked form, the limits of the gates
# ---------------------------------------------------------------------------
def _loop_lstm(x, h, c, weights):
    """The LSTM written element by element, no numpy matrix products."""
    d_h = len(h)

    def pre(gate, j):
        w, u, b = weights[gate]
        return sum(w[j][k] * x[k] for k in range(len(x))) + sum(u[j][k] * h[k] for k in range(d_h)) + b[j]
    c_new, h_new = [], []
    for j in range(d_h):
        f, i, o = sig(pre("f", j)), sig(pre("i", j)), sig(pre("o", j))
        g = math.tanh(pre("g", j))
        c_new.append(f * c[j] + i * g)
        h_new.append(o * math.tanh(c_new[-1]))
    return c_new, h_new


small = st.floats(-3, 3, allow_nan=False)


def _weights(gates, d_x, d_h, data):
    return {k: (data.draw(hnp.arrays(float, (d_h, d_x), elements=small)),
                data.draw(hnp.arrays(float, (d_h, d_h), elements=small)),
                data.draw(hnp.arrays(float, (d_h,), elements=small))) for k in gates}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_lstm_agrees_with_a_plain_loop_and_the_stacked_form(d_x, d_h, data):
    w = _weights(rnn.LSTM_GATES, d_x, d_h, data)
    x = data.draw(hnp.arrays(float, (d_x,), elements=small))
    h = data.draw(hnp.arrays(float, (d_h,), elements=small))
    c = data.draw(hnp.arrays(float, (d_h,), elements=small))
    before = [a.copy() for a in (x, h, c)]
    step = rnn.lstm_step(x, h, c, w)
    c_ref, h_ref = _loop_lstm(x, h, c, w)
    np.testing.assert_allclose(step.c, c_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(step.h, h_ref, rtol=1e-12, atol=1e-12)
    # the stacked form: one (4 d_h, d_x + d_h) matrix on [x; h], cut into four
    big = np.vstack([np.hstack([w[k][0], w[k][1]]) for k in rnn.LSTM_GATES])
    pre = big @ np.concatenate([x, h]) + np.concatenate([w[k][2] for k in rnn.LSTM_GATES])
    for n, k in enumerate(rnn.LSTM_GATES):
        np.testing.assert_allclose(step.gates[k].pre, pre[n * d_h:(n + 1) * d_h], rtol=1e-12, atol=1e-12)
    assert big.size + 4 * d_h == rnn.rnn_param_count("lstm", d_x, d_h)
    assert np.all(np.abs(step.h) < 1)
    assert all(np.array_equal(a, b) for a, b in zip((x, h, c), before))      # inputs untouched


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_gru_is_a_mix_of_the_old_state_and_the_candidate(d_x, d_h, data):
    w = _weights(rnn.GRU_GATES, d_x, d_h, data)
    x = data.draw(hnp.arrays(float, (d_x,), elements=small))
    h = data.draw(hnp.arrays(float, (d_h,), elements=small))
    step = rnn.gru_step(x, h, w)
    z, cand = step.gates["z"].value, step.gates["h"].value
    lo, hi = np.minimum(h, cand), np.maximum(h, cand)
    assert np.all(step.h >= lo - 1e-12) and np.all(step.h <= hi + 1e-12)     # between h_{t-1} and h̃
    np.testing.assert_allclose(step.h, z * h + (1 - z) * cand, rtol=1e-12, atol=1e-12)
    assert step.gates["h"].uh.tolist() == pytest.approx((w["h"][1] @ (step.gates["r"].value * h)).tolist())


@given(hnp.arrays(float, st.integers(1, 6), elements=st.floats(-1e6, 1e6)))
def test_sigmoid_is_a_stable_probability(x):
    s = rnn.sigmoid(x)
    assert np.all((s >= 0) & (s <= 1)) and np.all(np.isfinite(s))
    np.testing.assert_allclose(s + rnn.sigmoid(-x), 1.0, rtol=0, atol=1e-12)


def test_the_gates_at_their_limits():
    c, g = np.array([2.0, -1.0]), np.array([0.5, 0.5])
    np.testing.assert_allclose(rnn.cell_update([1, 1], [0, 0], g, c), c)       # keep everything, write nothing
    np.testing.assert_allclose(rnn.cell_update([0, 0], [1, 1], g, c), g)       # forget everything, write g
    np.testing.assert_allclose(rnn.gru_mix([1, 1], c, g), c)
    np.testing.assert_allclose(rnn.gru_mix([0, 0], c, g), g)


def test_cell_mistakes_are_the_named_distortions():
    f, i, g, c = [0.8, 0.3], [0.2, 0.9], [0.6, -0.4], [2.0, -1.0]
    assert rnn.cell_update(f, i, g, c).tolist() == pytest.approx([1.72, -0.66])
    got = [rnn.cell_update_mistake(f, i, g, c, m).tolist() for m in rnn.CELL_MISTAKES]
    assert got == [pytest.approx([0.52, -1.06]), pytest.approx([2.2, -0.7]), pytest.approx([0.88, -1.02])]
    with pytest.raises(ValueError, match="未知の誤り"):
        rnn.cell_update_mistake(f, i, g, c, "nope")


# ---------------------------------------------------------------------------
# scheduled sampling
# ---------------------------------------------------------------------------
def test_teacher_probability_schedules_by_hand():
    assert rnn.teacher_probability(5000, "linear", 1.0, 1e-4, 0.1) == pytest.approx(0.5)
    assert rnn.teacher_probability(20000, "linear", 1.0, 1e-4, 0.1) == 0.1          # the floor
    assert rnn.teacher_probability(5000, "exponential", 0.9997) == pytest.approx(0.9997 ** 5000)
    assert rnn.teacher_probability(7000, "inverse_sigmoid", 1000) == pytest.approx(1000 / (1000 + math.exp(7)))
    assert 0 <= rnn.teacher_probability(10 ** 9, "inverse_sigmoid", 1) < 1e-300       # no overflow
    for k, args in rnn.SCHEDULE_EXAMPLE.items():
        assert rnn.teacher_probability(0, k, *args) > 0.99


@given(st.sampled_from(rnn.SCHEDULES), st.integers(0, 50_000), st.integers(1, 5000))
def test_teacher_probability_falls_and_stays_a_probability(schedule, i, di):
    args = rnn.SCHEDULE_EXAMPLE[schedule]
    a, b = rnn.teacher_probability(i, schedule, *args), rnn.teacher_probability(i + di, schedule, *args)
    assert 0 <= b <= a <= 1


def test_scheduled_decode_between_teacher_forcing_and_free_running():
    teacher, free = s2s.exposure_gap(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
    args = (s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
    one = rnn.scheduled_decode(*args, 1.0, np.random.default_rng(0)).run
    zero = rnn.scheduled_decode(*args, 0.0, np.random.default_rng(0)).run
    assert (one.inputs, one.predictions, one.n_correct) == (teacher.inputs, teacher.predictions, 5)
    assert (zero.inputs, zero.predictions, zero.n_correct) == (free.inputs, free.predictions, 2)
    for seed in range(30):
        res = rnn.scheduled_decode(*args, 0.5, np.random.default_rng(seed))
        again = rnn.scheduled_decode(*args, 0.5, np.random.default_rng(seed))
        assert res.from_truth == again.from_truth and res.run.inputs == again.run.inputs
        assert res.from_truth[0] and res.run.inputs[0] == "〈bos〉"
        for t in range(1, len(s2s.TF_TARGET)):
            want = s2s.TF_TARGET[t - 1] if res.from_truth[t] else res.run.predictions[t - 1]
            assert res.run.inputs[t] == want
    page = rnn.scheduled_decode(*args, 0.5, np.random.default_rng(rnn.SAMPLING_SEED))
    assert page.from_truth[1:] == (True, True, False, False, True) and page.run.n_correct == 3


def test_mixed_decode_needs_one_flag_per_later_step():
    with pytest.raises(ValueError, match="use_truth の長さ"):
        s2s.bigram_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, "mixed", use_truth=[True])
    mixed = s2s.bigram_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, "mixed", use_truth=[True] * 5)
    teacher = s2s.bigram_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, "teacher")
    assert (mixed.inputs, mixed.predictions, mixed.loss) == (teacher.inputs, teacher.predictions, teacher.loss)


# ---------------------------------------------------------------------------
# bad input: Japanese messages
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda: rnn.lstm_step([1, 0, 0], rnn.CELL_H, rnn.CELL_C, rnn.LSTM_WEIGHTS), "ゲート f の形"),
    (lambda: rnn.lstm_step(rnn.CELL_X, rnn.CELL_H, [1, 2, 3], rnn.LSTM_WEIGHTS), "セル c_{t-1} の長さ"),
    (lambda: rnn.lstm_step(rnn.CELL_X, rnn.CELL_H, rnn.CELL_C, rnn.GRU_WEIGHTS), "ゲート f, i, g, o ごと"),
    (lambda: rnn.lstm_step([np.nan, 0], rnn.CELL_H, rnn.CELL_C, rnn.LSTM_WEIGHTS), "NaN"),
    (lambda: rnn.lstm_step([1e308, 1e308], [0, 1e308], rnn.CELL_C, rnn.LSTM_WEIGHTS), "大きすぎて"),
    (lambda: rnn.gru_step(rnn.CELL_X, [0, 1, 2], rnn.GRU_WEIGHTS), "ゲート z の形"),
    (lambda: rnn.rnn_param_count("transformer", 2, 2), "種類は"),
    (lambda: rnn.rnn_param_count("lstm", 0, 2), "1 以上の整数"),
    (lambda: rnn.rnn_param_count_mistake("lstm", 2, 2, "nope"), "未知の誤り"),
    (lambda: rnn.teacher_probability(-1, "linear", 1, 0.1), "0 以上の整数"),
    (lambda: rnn.teacher_probability(3, "exponential", 1.5), "0 < k < 1"),
    (lambda: rnn.teacher_probability(3, "cosine", 1), "減衰の形"),
    (lambda: rnn.scheduled_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, 1.5, np.random.default_rng(0)), "0 以上 1 以下"),
    (lambda: rnn.scheduled_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, 0.5, 3), "Generator"),
])
def test_bad_input_is_refused_in_japanese(call, message):
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        call()


def test_the_worked_example_cannot_be_changed_in_place():
    with pytest.raises(ValueError):
        rnn.CELL_STATES[0, 0] = 5.0
    with pytest.raises(ValueError):
        rnn.LSTM_WEIGHTS["f"][0][0, 0] = 5.0


# ---------------------------------------------------------------------------
# the generators and the knowledge items that quote these numbers
# ---------------------------------------------------------------------------


def _vec(xs) -> str:
    out = []
    for x in xs:
        text = f"{round(x, 3):.3f}".rstrip("0").rstrip(".")
        out.append("0" if text == "-0" else text)
    return "$(" + ",\\ ".join(out) + ")$"


def test_lstm_cell_generator_answer_is_recomputed_by_hand():
    names = {"忘却ゲートの向きの取り違え": lambda f, i, g, c: [(1 - a) * x + b * y for a, x, b, y in zip(f, c, i, g)],
             "入力ゲートの掛け忘れ": lambda f, i, g, c: [a * x + y for a, x, y in zip(f, c, g)],
             "ゲートと掛ける相手の取り違え": lambda f, i, g, c: [b * x + a * y for a, x, b, y in zip(f, c, i, g)]}
    for seed in range(150):
        p, q = accepted_params("seq2seq.lstm_cell", seed)
        f, i, g, c = (p[k].tolist() for k in "figc")
        assert q.choices[q.answer] == _vec([a * x + b * y for a, x, b, y in zip(f, c, i, g)])
        for n, label in enumerate(q.misconceptions):
            if n != q.answer:
                name = label.split("：")[0]
                assert q.choices[n] == _vec(names[name](f, i, g, c)), (seed, name)
        assert all(0 < v < 1 for v in f + i) and all(-1 < v < 1 for v in g)


def test_rnn_params_generator_answer_is_recomputed_by_hand():
    kinds = set()
    for seed in range(150):
        p, q = accepted_params("seq2seq.rnn_params", seed)
        blocks = {"lstm": 4, "gru": 3}[p["kind"]]
        kinds.add(p["kind"])
        assert q.choices[q.answer] == f"{blocks * (p['d_h'] * (p['d_h'] + p['d_x']) + p['d_h']):,}"
        assert {"LSTM": "lstm", "GRU": "gru"}[next(n for n in ("LSTM", "GRU") if f"の {n} の層" in q.stem)] == p["kind"]
    assert kinds == {"lstm", "gru"}


def _item(item_id: str) -> dict:
    return next(it for it in knowledge.bank()["seq2seq"] if it["id"] == item_id)


def test_knowledge_items_quote_the_engine_numbers():
    """k20's counts are the engine's (and each wrong count is the named mistake's)."""
    it = _item("seq2seq.k20")
    lstm, gru = rnn.rnn_param_count("lstm", 256, 256), rnn.rnn_param_count("gru", 256, 256)
    assert f"{lstm:,}" in it["answer"] and f"{gru:,}" in it["answer"] and "3/4" in it["answer"]
    no_bias = [rnn.rnn_param_count_mistake(k, 256, 256, "no_bias") for k in ("lstm", "gru")]
    assert all(f"{n:,}" in it["wrong"][0]["text"] for n in no_bias)
    assert f"{rnn.rnn_param_count_mistake('lstm', 256, 256, 'simple_rnn'):,}" in it["wrong"][2]["text"]
    assert f"{rnn.param_table(256, 256)['lstm']['per_block']:,}" in it["explanation"]


def test_new_topics_have_two_items_each_and_beyond_the_syllabus_is_tagged():
    bank = {it["id"]: it for it in knowledge.bank()["seq2seq"]}
    topics = {"LSTM": ("k17", "k18", "k33"), "GRU": ("k19", "k20"), "BPTT": ("k21", "k22"),
              "scheduled sampling": ("k23", "k24"), "soft/hard": ("k25", "k26"), "global/local": ("k27", "k28"),
              "中間層": ("k29", "k30")}          # static/contextual (k31, k32) moved to ⓪-1: wordvec.k03, k04
    for name, ids in topics.items():
        assert len(ids) >= 2 and all(f"seq2seq.{i}" in bank for i in ids), name
    advanced = {i for i, it in bank.items() if it.get("advanced")}
    assert advanced == {f"seq2seq.k{n}" for n in range(23, 29)}
    raw = json.loads(knowledge.DATA_DIR.joinpath("seq2seq.json").read_text(encoding="utf-8"))
    assert len(raw["questions"]) == 34          # 33 less k11, k12, k31, k32 (moved to ⓪-1), plus k34–k38 (RNN kinds)
