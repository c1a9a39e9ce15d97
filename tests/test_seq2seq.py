"""tutor.seq2seq: additive attention, the bottleneck, teacher forcing, clipping, kinds of attention
(word vectors moved to ⓪-1: tests/test_wordvec.py).

Values are checked against a hand computation (written out here with math, not the engine),
properties with hypothesis, and bad input against Japanese ValueErrors.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tutor import seq2seq as s2s

EX = (s2s.DEC_STATE, s2s.ENC_STATES, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)


# ---------------------------------------------------------------------------
# the worked example, by hand
# ---------------------------------------------------------------------------
def test_worked_example_by_hand():
    r = s2s.additive_attention(*EX)
    # W s = (1·0 − 1·1, 0·0 + 1·1) = (−1, 1);  U h_j = (1,1), (0,1), (1,2)
    assert r.ws.tolist() == [-1.0, 1.0]
    assert r.uh.tolist() == [[1, 1], [0, 1], [1, 2]]
    assert r.pre.tolist() == [[0, 2], [-1, 2], [0, 3]]
    t1, t2, t3 = math.tanh(1), math.tanh(2), math.tanh(3)
    e = [t2, t1 + t2, t3]                              # v = (−1, 1): −tanh(a) + tanh(b)
    np.testing.assert_allclose(r.scores, e, rtol=1e-15)
    z = sum(math.exp(x) for x in e)
    alpha = [math.exp(x) / z for x in e]
    np.testing.assert_allclose(r.weights, alpha, rtol=1e-14)
    np.testing.assert_allclose(r.context, [alpha[0] + alpha[2], alpha[1] + alpha[2]], rtol=1e-14)
    assert [f"{x:.3f}" for x in r.weights] == ["0.240", "0.513", "0.247"]
    assert [f"{x:.3f}" for x in r.context] == ["0.487", "0.760"]
    assert r.top == int(np.argmax(r.weights)) == s2s.SRC_TOKENS.index("魚")


def test_dot_attention_by_hand():
    d = s2s.dot_attention(s2s.DEC_STATE, s2s.ENC_STATES)
    assert d.scores.tolist() == [0, 1, 1]
    z = 1 + 2 * math.e
    np.testing.assert_allclose(d.weights, [1 / z, math.e / z, math.e / z], rtol=1e-14)
    np.testing.assert_allclose(d.context, [(1 + math.e) / z, 2 * math.e / z], rtol=1e-14)


def test_attend_from_ln_scores_gives_ratios():
    h = np.array([[0.0, 0.0], [1.0, 3.0], [3.0, 2.0]])
    r = s2s.attend(h, np.log([6.0, 2.0, 4.0]))
    np.testing.assert_allclose(r.weights, [0.5, 1 / 6, 1 / 3], rtol=1e-14)
    np.testing.assert_allclose(r.context, [1 / 6 + 1, 0.5 + 2 / 3], rtol=1e-14)


def test_mistakes_are_the_named_distortions():
    r = s2s.additive_attention(*EX)
    no_tanh = s2s.additive_attention_mistake(*EX, "no_tanh")
    np.testing.assert_allclose(no_tanh.scores, [2, 3, 3])           # v · (W s + U h_j)
    raw = s2s.additive_attention_mistake(*EX, "no_softmax")
    np.testing.assert_allclose(raw.context, r.scores @ s2s.ENC_STATES)
    last = s2s.additive_attention_mistake(*EX, "last_state")
    assert last.context.tolist() == [1, 1] and last.weights.tolist() == [0, 0, 1]
    dot = s2s.additive_attention_mistake(*EX, "dot_product")
    np.testing.assert_allclose(dot.context, s2s.dot_attention(s2s.DEC_STATE, s2s.ENC_STATES).context)
    assert s2s.score_without_v(r.hidden).tolist() == pytest.approx([math.tanh(2), math.tanh(2) - math.tanh(1),
                                                                    math.tanh(3)])
    np.testing.assert_allclose(s2s.score_from_hidden(r.hidden, s2s.V_ATT), r.scores)
    assert s2s.uniform_context(s2s.ENC_STATES).tolist() == pytest.approx([2 / 3, 2 / 3])
    assert s2s.hard_context(s2s.ENC_STATES, r.scores).tolist() == [0, 1]
    with pytest.raises(ValueError, match="未知の誤り"):
        s2s.additive_attention_mistake(*EX, "nope")


def test_context_sizes_and_mistakes():
    assert s2s.context_sizes(30, 256) == {"fixed": 256, "attention": 7680, "weights": 30}
    assert s2s.context_sizes(5, 256)["fixed"] == s2s.context_sizes(500, 256)["fixed"]   # the bottleneck
    assert [s2s.context_size_mistake(12, 100, m) for m in ("per_token", "tokens", "square")] == [1200, 12, 10000]
    for bad in (0, -1, 2.5, "x", True):
        with pytest.raises(ValueError, match="1 以上の整数"):
            s2s.context_sizes(bad, 4)


# ---------------------------------------------------------------------------
# teacher forcing vs the model's own output
# ---------------------------------------------------------------------------
def test_teacher_forcing_stops_the_error_free_running_repeats_it():
    teacher, free = s2s.exposure_gap(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
    assert teacher.inputs == ("〈bos〉", "猫", "は", "魚", "を", "食べた")          # always the right previous token
    assert teacher.predictions == ("猫", "は", "猫", "を", "食べた", "〈eos〉")
    assert teacher.correct == (True, True, False, True, True, True) and teacher.n_correct == 5
    assert free.inputs == ("〈bos〉", "猫", "は", "猫", "は", "猫")                # its own outputs
    assert free.predictions == ("猫", "は", "猫", "は", "猫", "は") and free.n_correct == 2
    # p(right next) for a row with one logit 3 and six 0: e³ / (e³ + 6); the weak row (猫 3, 魚 2, five 0): e² / (e³ + e² + 5)
    p_ok = math.exp(3) / (math.exp(3) + 6)
    p_weak = math.exp(2) / (math.exp(3) + math.exp(2) + 5)
    np.testing.assert_allclose(teacher.p_target, [p_ok, p_ok, p_weak, p_ok, p_ok, p_ok], rtol=1e-14)
    assert teacher.loss == pytest.approx(-(5 * math.log(p_ok) + math.log(p_weak)) / 6, rel=1e-14)
    assert free.loss > teacher.loss


def test_a_perfect_model_is_the_same_both_ways():
    logits = np.array(s2s.TF_LOGITS)
    idx = s2s.TF_VOCAB.index
    logits[idx("は"), idx("猫")] = 0.0                  # repair the weak step
    teacher, free = s2s.exposure_gap(logits, s2s.TF_VOCAB, s2s.TF_TARGET)
    assert teacher.n_correct == free.n_correct == len(s2s.TF_TARGET)
    assert teacher.inputs == free.inputs


def test_decode_bad_input():
    with pytest.raises(ValueError, match="語彙にない語"):
        s2s.bigram_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, ("犬",))
    with pytest.raises(ValueError, match="語彙数 × 語彙数"):
        s2s.bigram_decode(np.zeros((3, 3)), s2s.TF_VOCAB, s2s.TF_TARGET)
    with pytest.raises(ValueError, match="mode"):
        s2s.bigram_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, mode="beam")


# ---------------------------------------------------------------------------
# clipping by norm
# ---------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")   # tutor.core's finiteness fast path
def test_clip_by_norm_by_hand():
    r = s2s.clip_by_norm([3.0, 4.0], 1.0)
    assert (r.norm, r.factor, r.was_clipped) == (5.0, 0.2, True)
    np.testing.assert_allclose(r.clipped, [0.6, 0.8])
    kept = s2s.clip_by_norm([3.0, 4.0], 10.0)
    assert kept.factor == 1.0 and kept.clipped.tolist() == [3.0, 4.0] and not kept.was_clipped
    assert s2s.clip_by_value([3.0, 4.0], 1.0).tolist() == [1.0, 1.0]          # direction changed
    np.testing.assert_allclose(s2s.clip_mistake([3.0, 4.0], 10.0, "always_scale"), [6.0, 8.0])
    np.testing.assert_allclose(s2s.clip_mistake([3.0, 4.0], 1.0, "squared_norm"), [3 / 25, 4 / 25])
    np.testing.assert_allclose(s2s.clip_mistake([3.0, 4.0], 1.0, "l1_norm"), [3 / 7, 4 / 7])
    assert s2s.clip_by_norm([0.0, 0.0], 1.0).clipped.tolist() == [0.0, 0.0]
    big = s2s.clip_by_norm([1e300, 1e300], 1.0)                                # no overflow in ‖g‖
    np.testing.assert_allclose(big.clipped, [2 ** -0.5, 2 ** -0.5])


@settings(max_examples=200)
@given(hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-1e6, 1e6)), st.floats(1e-3, 1e6))
def test_clip_keeps_direction_and_caps_length(g, c):
    g0 = g.copy()
    r = s2s.clip_by_norm(g, c)
    assert np.array_equal(g, g0)                                               # input untouched
    assert np.linalg.norm(r.clipped) <= c * (1 + 1e-12) or not r.was_clipped
    assert np.linalg.norm(r.clipped) <= np.linalg.norm(g) * (1 + 1e-12)
    if r.norm > 0:
        np.testing.assert_allclose(r.clipped, g * r.factor)
        assert 0 < r.factor <= 1
    if r.norm <= c:
        assert np.array_equal(r.clipped, g)


def test_clip_bad_input():
    for bad in (0, -1, float("nan"), float("inf"), "x"):
        with pytest.raises(ValueError, match="しきい値 c"):
            s2s.clip_by_norm([1.0, 2.0], bad)
    with pytest.raises(ValueError, match="NaN"):
        s2s.clip_by_norm([1.0, float("nan")], 1.0)
    with pytest.raises(ValueError, match="空"):
        s2s.clip_by_norm([], 1.0)


# ---------------------------------------------------------------------------
# properties of additive attention
# ---------------------------------------------------------------------------
small = st.floats(-5, 5, allow_nan=False)


@settings(max_examples=150)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.data())
def test_additive_attention_properties(n, d_s, d_h, d_a, data):
    s = data.draw(hnp.arrays(np.float64, d_s, elements=small))
    h = data.draw(hnp.arrays(np.float64, (n, d_h), elements=small))
    w = data.draw(hnp.arrays(np.float64, (d_a, d_s), elements=small))
    u = data.draw(hnp.arrays(np.float64, (d_a, d_h), elements=small))
    v = data.draw(hnp.arrays(np.float64, d_a, elements=small))
    copies = [a.copy() for a in (s, h, w, u, v)]
    r = s2s.additive_attention(s, h, w, u, v)
    for a, b in zip((s, h, w, u, v), copies):
        assert np.array_equal(a, b)                                             # inputs untouched
    assert r.weights.shape == (n,) and r.context.shape == (d_h,)
    assert r.weights.sum() == pytest.approx(1.0) and np.all(r.weights >= 0)
    assert np.all(np.abs(r.scores) <= np.abs(v).sum() + 1e-12)                 # |tanh| ≤ 1 bounds every score
    # a plain loop over the positions
    for j in range(n):
        e_j = sum(v[k] * math.tanh(sum(w[k, a] * s[a] for a in range(d_s)) + sum(u[k, b] * h[j, b] for b in range(d_h)))
                  for k in range(d_a))
        assert r.scores[j] == pytest.approx(e_j, abs=1e-9)
    # the context lies in the box spanned by the states (a convex combination)
    assert np.all(r.context >= h.min(axis=0) - 1e-9) and np.all(r.context <= h.max(axis=0) + 1e-9)
    # reordering the source positions reorders the weights the same way
    perm = np.arange(n)[::-1]
    rp = s2s.additive_attention(s, h[perm], w, u, v)
    np.testing.assert_allclose(rp.weights, r.weights[perm], atol=1e-12)
    np.testing.assert_allclose(rp.context, r.context, atol=1e-9)


def test_additive_attention_bad_input():
    s, h, w, u, v = EX
    with pytest.raises(ValueError, match="W の形"):
        s2s.additive_attention(s, h, np.ones((3, 2)), u, v)
    with pytest.raises(ValueError, match="U の形"):
        s2s.additive_attention(s, h, w, np.ones((2, 3)), v)
    with pytest.raises(ValueError, match="NaN"):
        s2s.additive_attention([np.nan, 1.0], h, w, u, v)
    with pytest.raises(ValueError, match="数値でない"):
        s2s.additive_attention(s, [["a", "b"]], w, u, v)
    with pytest.raises(ValueError, match="2 次元"):
        s2s.additive_attention(s, [1.0, 2.0], w, u, v)
    with pytest.raises(ValueError, match="長さ"):
        s2s.dot_attention([1.0, 2.0, 3.0], h)
    with pytest.raises(ValueError, match="一致しません"):
        s2s.attend(h, [1.0, 2.0])
    huge = s2s.additive_attention([1e6, -1e6], h * 1e6, w, u, v)              # saturated tanh: still finite
    assert np.all(np.isfinite(huge.weights)) and huge.weights.sum() == pytest.approx(1.0)


def test_constants_are_read_only():
    for a in (s2s.ENC_STATES, s2s.DEC_STATE, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT, s2s.TF_LOGITS, s2s.LONG_STATES):
        with pytest.raises(ValueError):
            a[0] = 9


# ---------------------------------------------------------------------------
# vanishing / exploding through time
# ---------------------------------------------------------------------------
def test_gradient_through_time_is_a_power():
    np.testing.assert_allclose(s2s.scaled_recurrence_norms(0.5, 20), [0.5 ** t for t in range(21)], rtol=1e-14)
    np.testing.assert_allclose(s2s.scaled_recurrence_norms(1.5, 20), [1.5 ** t for t in range(21)], rtol=1e-12)
    assert s2s.scaled_recurrence_norms(1.0, 5).tolist() == [1.0] * 6
    rot = np.array([[0.0, -2.0], [2.0, 0.0]])                      # a rotation scaled by 2: norms 2ᵗ
    assert s2s.gradient_through_time(rot, [3.0, 4.0], 3).tolist() == [5.0, 10.0, 20.0, 40.0]
    assert s2s.clip_by_norm([3325.0, 0.0], 1.0).clipped_norm == 1.0
    with pytest.raises(ValueError, match="勾配爆発"):
        s2s.gradient_through_time(1e6 * np.eye(2), [1.0, 0.0], 200)
    with pytest.raises(ValueError, match="200 まで"):
        s2s.scaled_recurrence_norms(1.0, 201)
    with pytest.raises(ValueError, match="W の形"):
        s2s.gradient_through_time(np.eye(3), [1.0, 0.0], 2)


# ---------------------------------------------------------------------------
# the quiz generators: answers recomputed here with plain math, and the bank's answer cues
# ---------------------------------------------------------------------------
def _replay(gid: str, seed: int):
    """(params of the attempt the registry kept, the question)."""
    import quizzes
    from quizzes import core
    from quizzes.calc import CALC

    q = quizzes.GENERATORS[gid](seed)
    params, build = CALC[gid]
    for attempt in range(core.MAX_ATTEMPTS):
        p = params(core._seed_rng(gid, seed, attempt))
        d = build(p)
        if len({t.strip() for t in [d.correct, *(w[0] for w in d.wrong)]}) == 4:
            assert d.stem == q.stem
            return p, q
    raise AssertionError("no accepted attempt")


def _d3(x: float) -> str:
    from decimal import ROUND_HALF_UP, Decimal
    text = f"{Decimal(repr(round(float(x), 9))).quantize(Decimal('0.001'), rounding=ROUND_HALF_UP):f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _by_label(q, prefix: str) -> str:
    return next(c for c, m in zip(q.choices, q.misconceptions) if m.startswith(prefix))


def test_generator_answers_recomputed_by_hand():
    for seed in range(60):
        p, q = _replay("seq2seq.additive_score", seed)
        pre = [sum(p["w"][k, a] * p["s"][a] for a in range(2)) + sum(p["u"][k, b] * p["h"][b] for b in range(2))
               for k in range(2)]
        tanh = [float(_d3(math.tanh(x))) for x in pre]                # the hint's values
        assert q.choices[q.answer] == _d3(sum(vk * t for vk, t in zip(p["v"], tanh)))
        assert q.choices[q.answer] == _d3(sum(vk * math.tanh(x) for vk, x in zip(p["v"], pre)))   # exact agrees
        assert _by_label(q, "tanh の付け忘れ") == _d3(sum(vk * x for vk, x in zip(p["v"], pre)))
        assert _by_label(q, "内積の注意との混同") == _d3(float(p["s"] @ p["h"]))

        p, q = _replay("seq2seq.context", seed)
        m, h, k = p["m"], p["h"], p["k"]
        assert q.choices[q.answer] == _d3(sum(mj * h[j, k] for j, mj in enumerate(m)) / sum(m))
        assert _by_label(q, "最後の状態だけを使う") == _d3(h[-1, k])
        assert _by_label(q, "均等な平均") == _d3(h[:, k].mean())
        assert _by_label(q, "最大スコアの状態だけを使う") == _d3(h[m.index(max(m)), k])

        p, q = _replay("seq2seq.clip_norm", seed)
        g, c = p["g"], p["c"]
        n = math.sqrt(sum(x * x for x in g))
        f = min(1.0, c / n)
        assert q.choices[q.answer] == "$(" + ",\\ ".join(_d3(x * f) for x in g) + ")$"
        assert _by_label(q, "ノルムの 2 乗で割る") == "$(" + ",\\ ".join(_d3(x * c / n / n) for x in g) + ")$"

        p, q = _replay("seq2seq.context_size", seed)
        assert q.choices[q.answer] == f"{p['d']:,}"
        assert _by_label(q, "Attention 付きとの混同") == f"{p['n'] * p['d']:,}"


def test_the_bank_has_no_answer_cues():
    import json
    import re
    from collections import Counter
    from pathlib import Path

    items = json.loads((Path(__file__).parents[1] / "quizzes" / "data" / "seq2seq.json").read_text("utf-8"))["questions"]
    kws = Counter(k for it in items for k in it["keywords"])
    for kw in ("Seq2Seq", "教師強制", "LSTM", "GRU", "勾配クリッピング", "Attention"):
        assert kws[kw] >= 2, kw
    plain = lambda t: re.sub(r"\$[^$]*\$", "", t)                    # noqa: E731  (what the learner reads)
    single = [it for it in items if it["form"] != "blank"]
    longest = sum(len(plain(it["answer"])) > max(len(plain(w["text"])) for w in it["wrong"]) for it in single)
    assert longest <= 0.3 * len(single), longest
    blanks = [it for it in items if it["form"] == "blank"]
    assert len(blanks) >= 3
    for it in blanks:                                                  # every candidate word in two of four choices
        texts = [it["answer"], *(w["text"] for w in it["wrong"])]
        parts = [re.findall(r"（[アイウ]）([^　]*)", t) for t in texts]
        for k in range(3):
            assert set(Counter(p[k] for p in parts).values()) == {2}, (it["id"], k)


# ---------------------------------------------------------------------------
# kinds of attention: soft vs hard, global vs local (Luong ら)
# ---------------------------------------------------------------------------
def test_local_attention_of_the_example_by_hand():
    """q = (1, 0): the scores are H's first column (1, 0, 0, 1, 0, 2, 0, 1)."""
    scores = s2s.dot_attention(s2s.LONG_QUERY, s2s.LONG_STATES).scores
    assert scores.tolist() == [1, 0, 0, 1, 0, 2, 0, 1]
    m = s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, 4, 1, gaussian=False)      # window 3 … 5
    assert m.window.tolist() == [False, False, True, True, True, False, False, False]
    z = 1 + math.e + 1                                                                  # e⁰, e¹, e⁰
    np.testing.assert_allclose(m.weights, [0, 0, 1 / z, math.e / z, 1 / z, 0, 0, 0], rtol=1e-14)
    assert m.weights[5] == 0.0                                                          # 猫 is outside
    p = s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, 5.6, 1)                    # window 5, 6; σ = 0.5
    align = [1 / (1 + math.e ** 2), math.e ** 2 / (1 + math.e ** 2)]                   # e⁰ and e² over the window
    gauss = [math.exp(-(0.6 ** 2) / 0.5), math.exp(-(0.4 ** 2) / 0.5)]
    np.testing.assert_allclose(p.align[4:6], align, rtol=1e-14)
    np.testing.assert_allclose(p.weights[4:6], [a * g for a, g in zip(align, gauss)], rtol=1e-14)
    assert f"{p.weights[5]:.3f}" == "0.640" and f"{p.weights.sum():.3f}" == "0.698"      # not renormalised
    np.testing.assert_allclose(p.context, p.weights @ s2s.LONG_STATES, rtol=1e-14)


@settings(max_examples=100)
@given(st.integers(1, 8), st.floats(-2, 11), st.integers(1, 9), st.data())
def test_local_attention_properties(n, center, d, data):
    h = data.draw(hnp.arrays(np.float64, (n, 2), elements=st.floats(-5, 5)))
    q = data.draw(hnp.arrays(np.float64, (2,), elements=st.floats(-5, 5)))
    s = np.arange(1, n + 1)
    if not np.any(np.abs(s - center) <= d):
        with pytest.raises(ValueError, match="窓に入力の位置"):
            s2s.local_attention(q, h, center, d)
        return
    m = s2s.local_attention(q, h, center, d, gaussian=False)
    assert m.weights.sum() == pytest.approx(1.0) and np.all(m.weights[~m.window] == 0)
    p = s2s.local_attention(q, h, center, d)
    assert np.all(p.weights <= m.weights + 1e-15) and p.weights.sum() <= 1 + 1e-12       # the Gaussian only shrinks
    if d >= n + abs(center) + 1:                                                          # the window covers all
        np.testing.assert_allclose(m.weights, s2s.dot_attention(q, h).weights, rtol=1e-12, atol=1e-15)


def test_hard_attention_draws_one_position_as_often_as_its_weight():
    scores = s2s.dot_attention(s2s.LONG_QUERY, s2s.LONG_STATES).scores
    alpha = s2s.attend(s2s.LONG_STATES, scores).weights
    rng = np.random.default_rng(0)
    counts = np.zeros(len(alpha))
    for _ in range(20_000):
        j, w = s2s.hard_attention(s2s.LONG_STATES, scores, rng)
        assert w.sum() == 1.0 and w[j] == 1.0
        counts[j] += 1
    np.testing.assert_allclose(counts / counts.sum(), alpha, atol=0.015)
    assert s2s.hard_attention(s2s.LONG_STATES, scores, np.random.default_rng(3))[0] == \
        s2s.hard_attention(s2s.LONG_STATES, scores, np.random.default_rng(3))[0]
    with pytest.raises(ValueError, match="Generator"):
        s2s.hard_attention(s2s.LONG_STATES, scores, 3)


def test_local_attention_bad_input():
    with pytest.raises(ValueError, match="一致しません"):
        s2s.local_attention([1, 0, 0], s2s.LONG_STATES, 4, 1)
    with pytest.raises(ValueError, match="半幅 D"):
        s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, 4, 0)
    with pytest.raises(ValueError, match="中心の位置 p"):
        s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, "x", 1)
    with pytest.raises(ValueError, match="窓に入力の位置"):
        s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, 20, 2)


def test_a_tie_for_the_largest_weight_names_every_source_word():
    """Issue 41 row 10: the page named one word as 「いちばん大きい」 when two weights tie."""
    h = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.5]])         # two equal encoder states: equal scores
    r = s2s.additive_attention(np.zeros(2), h, np.eye(2), np.eye(2), np.ones(2))
    assert r.tops == (0, 1) and r.top == 0
    assert s2s.additive_attention(s2s.DEC_STATE, s2s.ENC_STATES, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT).tops == (
        s2s.SRC_TOKENS.index("魚"),)
