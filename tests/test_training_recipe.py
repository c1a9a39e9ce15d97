"""tutor.training.recipe — how the paper trained the Transformer (issue 37 §1): the warm-up
schedule (the paper's numbers, the peak found by search, the two branches), Adam's settings,
label smoothing (the smoothed target, its cross-entropy and its floor), inverted dropout
(training and inference), each named mistake; and the recipe's calculation items of ⑧, whose
answers are recomputed here from the plain formulas (no engine call)."""
from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
import tutor
from quizzes import core
from quizzes.misconceptions import distractor_name
from tutor import numfmt
from tutor import training as T
from calchelpers import accepted_params

PAPER_D, PAPER_W = 512, 4000


# ---------------------------------------------------------------------------
# the schedule: the paper's numbers
# ---------------------------------------------------------------------------
def test_paper_schedule_numbers():
    step, rate = T.peak(PAPER_D, PAPER_W)
    assert step == 4000 == T.PAPER_WARMUP
    assert rate == pytest.approx(1 / math.sqrt(512 * 4000)) == pytest.approx(6.9877e-4, rel=1e-4)
    assert numfmt.sci(rate, 1) == "7.0×10⁻⁴"                        # ≈ 7.0×10⁻⁴ (issue 37)
    assert T.learning_rate(1000) == pytest.approx(rate / 4)          # during warm-up: ∝ step
    assert T.learning_rate(16000) == pytest.approx(rate / 2)         # after: ∝ 1/√step
    assert T.learning_rate(T.PAPER_BASE_STEPS) == pytest.approx(1.3975e-4, rel=1e-4)
    assert T.learning_rate(1) == pytest.approx(512 ** -0.5 * 4000 ** -1.5)


def test_paper_adam_and_regularisation_settings():
    assert (T.PAPER_ADAM.beta1, T.PAPER_ADAM.beta2, T.PAPER_ADAM.eps) == (0.9, 0.98, 1e-9)
    assert (T.DEFAULT_ADAM.beta1, T.DEFAULT_ADAM.beta2, T.DEFAULT_ADAM.eps) == (0.9, 0.999, 1e-8)
    assert (T.PAPER_P_DROP, T.PAPER_LABEL_SMOOTHING, T.PAPER_WARMUP, T.PAPER_BASE_STEPS) == (0.1, 0.1, 4000, 100_000)
    assert T.ema_horizon(0.9) == pytest.approx(10) and T.ema_horizon(0.98) == pytest.approx(50)
    assert T.ema_horizon(0.999) == pytest.approx(1000) and T.ema_horizon(0) == 1
    # the horizon is the sum of the EMA's weights β^k
    assert sum(0.98 ** k for k in range(5000)) == pytest.approx(T.ema_horizon(0.98))
    for bad in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="減衰率"):
            T.ema_horizon(bad)


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 4096), w=st.integers(1, 3000))
def test_the_peak_is_at_warmup_by_search(d, w):
    steps = np.arange(1, 3 * w + 2, dtype=float)
    rates = T.learning_rate(steps, d, w)
    assert int(steps[np.argmax(rates)]) == w == T.peak(d, w)[0]      # argmax over every step
    assert rates.max() == pytest.approx((d * w) ** -0.5) == pytest.approx(T.peak(d, w)[1])
    before, after = steps[:w], steps[w - 1:]
    np.testing.assert_allclose(rates[:w] / before, d ** -0.5 * w ** -1.5)        # a straight line through 0
    np.testing.assert_allclose(rates[w - 1:] * np.sqrt(after), d ** -0.5)        # ∝ 1/√step after the peak


def test_learning_rate_arrays_match_a_loop_and_keep_their_shape():
    steps = np.array([[1.0, 10.0], [4000.0, 99999.0]])
    got = T.learning_rate(steps, 256, 400)
    assert got.shape == (2, 2)
    want = [[256 ** -0.5 * min(s ** -0.5, s * 400 ** -1.5) for s in row] for row in steps]
    np.testing.assert_allclose(got, want)
    assert steps[0, 0] == 1.0                                                     # not modified
    assert isinstance(T.learning_rate(7, 64, 100), float)


@pytest.mark.parametrize(("args", "message"), [
    ((0,), "1 以上の整数"), ((2.5,), "1 以上の整数"), ((-3,), "1 以上の整数"), ((np.nan,), "NaN"),
    ((10, 0), "d_model"), ((10, 512, 0), "warmup_steps"), ((10, 512.5), "d_model"), ((10, True), "d_model"),
])
def test_schedule_rejects_bad_input_in_japanese(args, message):
    with pytest.raises(ValueError, match=message):
        T.learning_rate(*args)


def test_schedule_for_a_chart():
    s = T.schedule(512, 4000, last_step=100_000, n_points=50)
    assert s.steps[0] == 1 and s.steps[-1] == 100_000 and 4000 in s.steps
    assert np.all(np.diff(s.steps) > 0)
    np.testing.assert_allclose(s.rates, T.learning_rate(s.steps.astype(float), 512, 4000))
    assert (s.peak_step, s.peak_rate) == T.peak(512, 4000)
    assert s.rates.max() == s.peak_rate
    assert T.schedule(64, 300).steps[-1] == 1500                                  # default: 5 · warmup
    assert T.schedule(64, 300, last_step=100).steps[-1] == 100                    # the peak beyond the chart
    with pytest.raises(ValueError, match="最後のステップ"):
        T.schedule(64, 300, last_step=0)


def test_schedule_points_of_the_hand_calculation():
    pts = T.schedule_points((1, 1000, 4000, 16000, 100_000))
    assert [p.phase for p in pts] == ["warmup", "warmup", "peak", "decay", "decay"]
    assert [round(p.of_peak, 10) for p in pts] == [0.00025, 0.25, 1.0, 0.5, 0.2]
    assert [p.rate for p in pts] == [T.learning_rate(p.step) for p in pts]


def test_lr_mistakes_are_the_formulas_they_name():
    d, w = 256, 2500
    top = (d * w) ** -0.5
    for s in (100, 625, 40_000):
        assert T.lr_mistake(s, d, w) == pytest.approx(d ** -0.5 * min(s ** -0.5, s * w ** -1.5))
        assert T.lr_mistake(s, d, w, "no_warmup") == pytest.approx(d ** -0.5 * s ** -0.5)
        assert T.lr_mistake(s, d, w, "max_not_min") == pytest.approx(d ** -0.5 * max(s ** -0.5, s * w ** -1.5))
        assert T.lr_mistake(s, d, w, "no_d_model") == pytest.approx(min(s ** -0.5, s * w ** -1.5))
        assert T.lr_mistake(s, d, w, "peak_everywhere") == pytest.approx(top)
    assert T.lr_mistake(40_000, d, w, "inverse_step") == pytest.approx(top * w / 40_000)       # ∝ 1/step
    assert T.lr_mistake(100, d, w, "inverse_step") == T.lr_mistake(100, d, w)                  # warm-up unchanged
    assert T.peak_mistake(d, w, "no_warmup") == (1, pytest.approx(d ** -0.5))
    with pytest.raises(ValueError, match="未知の誤り"):
        T.lr_mistake(10, d, w, "typo")
    with pytest.raises(ValueError, match="未知の誤り"):
        T.peak_mistake(d, w, "max_not_min")


# ---------------------------------------------------------------------------
# label smoothing
# ---------------------------------------------------------------------------
def test_smoothed_target_of_the_page():
    np.testing.assert_allclose(T.smoothed_target(5, 1, 0.1), [0.02, 0.92, 0.02, 0.02, 0.02])
    np.testing.assert_array_equal(T.smoothed_target(4, 2, 0.0), [0, 0, 1, 0])      # ε = 0: one-hot


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 60), data=st.data(), eps=st.floats(0, 0.99))
def test_smoothed_target_properties(k, data, eps):
    t = data.draw(st.integers(0, k - 1))
    q = T.smoothed_target(k, t, eps)
    assert q.sum() == pytest.approx(1.0) and np.all(q >= 0)
    assert q[t] == pytest.approx(1 - eps + eps / k)
    assert np.allclose(np.delete(q, t), eps / k)
    assert q[t] >= q.max() - 1e-12                                               # the answer keeps the most


def test_smoothed_target_mistakes():
    k, t, e = 5, 0, 0.1
    np.testing.assert_allclose(T.smoothed_target_mistake(k, t, e, "others_only"), [0.9, 0.025, 0.025, 0.025, 0.025])
    np.testing.assert_allclose(T.smoothed_target_mistake(k, t, e, "swap_eps"), [0.28, 0.18, 0.18, 0.18, 0.18])
    np.testing.assert_allclose(T.smoothed_target_mistake(k, t, e, "no_share_to_answer"), [0.9, 0.02, 0.02, 0.02, 0.02])
    assert T.smoothed_target_mistake(k, t, e, "others_only").sum() == pytest.approx(1)
    assert T.smoothed_target_mistake(k, t, e, "no_share_to_answer").sum() == pytest.approx(1 - e / k)
    with pytest.raises(ValueError, match="未知の誤り"):
        T.smoothed_target_mistake(k, t, e, "typo")


@pytest.mark.parametrize(("args", "message"), [
    ((5, 5, 0.1), "範囲"), ((5, -1, 0.1), "範囲"), ((1, 0, 0.1), "2 語以上"), ((5, 0, 1.0), "0 以上 1 未満"),
    ((5, 0, -0.1), "0 以上 1 未満"), ((0, 0, 0.1), "語彙の大きさ"), ((5, True, 0.1), "範囲"),
])
def test_smoothed_target_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        T.smoothed_target(*args)


def test_smoothed_cross_entropy_of_the_page():
    r = T.smoothed_cross_entropy(T.SMOOTHING_PROBS, T.SMOOTHING_ANSWER, T.PAPER_LABEL_SMOOTHING)
    assert T.SMOOTHING_WORDS[T.SMOOTHING_ANSWER] == "魚"
    want = -(0.92 * math.log(0.8) + 4 * 0.02 * math.log(0.05))
    assert r.loss == pytest.approx(want) and f"{r.loss:.3f}" == "0.445"
    assert r.one_hot_loss == pytest.approx(-math.log(0.8)) and f"{r.one_hot_loss:.3f}" == "0.223"
    assert r.floor == pytest.approx(-(0.92 * math.log(0.92) + 4 * 0.02 * math.log(0.02))) and f"{r.floor:.3f}" == "0.390"
    np.testing.assert_allclose(r.terms, -r.target * np.log(r.probs))
    np.testing.assert_allclose(r.surprisal, -np.log(r.probs))
    assert r.terms.sum() == pytest.approx(r.loss)


@settings(max_examples=60, deadline=None)
@given(logits=st.lists(st.floats(-5, 5), min_size=2, max_size=12), data=st.data(), eps=st.floats(0.0, 0.5))
def test_smoothed_loss_is_never_below_its_floor_and_meets_it_at_q(logits, data, eps):
    """Gibbs' inequality: −Σ q ln p ≥ −Σ q ln q, with equality at p = q; ε = 0 gives −ln p_answer."""
    p = np.exp(np.array(logits) - max(logits))
    p /= p.sum()
    t = data.draw(st.integers(0, p.size - 1))
    r = T.smoothed_cross_entropy(p, t, eps)
    assert r.loss >= r.floor - 1e-9
    at_q = T.smoothed_cross_entropy(r.target, t, eps)
    assert at_q.loss == pytest.approx(at_q.floor)
    assert T.smoothed_cross_entropy(p, t, 0.0).loss == pytest.approx(-math.log(p[t]))


def test_smoothed_cross_entropy_mistakes_and_errors():
    p = np.array([0.5, 0.125, 0.125, 0.125, 0.125])
    ln2 = math.log(2)
    assert T.smoothed_ce_mistake(p, 0, 0.2) / ln2 == pytest.approx(0.84 * 1 + 4 * 0.04 * 3)     # 1.32 ln 2
    assert T.smoothed_ce_mistake(p, 0, 0.2, "no_smoothing") / ln2 == pytest.approx(1)
    assert T.smoothed_ce_mistake(p, 0, 0.2, "answer_term_only") / ln2 == pytest.approx(0.84)
    assert T.smoothed_ce_mistake(p, 0, 0.2, "others_only") / ln2 == pytest.approx(0.8 + 4 * 0.05 * 3)
    with pytest.raises(ValueError, match="未知の誤り"):
        T.smoothed_ce_mistake(p, 0, 0.2, "typo")
    with pytest.raises(ValueError, match="合計 1"):
        T.smoothed_cross_entropy([0.5, 0.6], 0)
    with pytest.raises(ValueError, match="0 以上"):
        T.smoothed_cross_entropy([1.5, -0.5], 0)
    with pytest.raises(ValueError, match="無限大"):
        T.smoothed_cross_entropy([1.0, 0.0], 0, 0.1)                   # q_2 > 0 but p_2 = 0
    assert T.smoothed_cross_entropy([1.0, 0.0], 0, 0.0).loss == 0.0      # without smoothing: fine
    with pytest.raises(ValueError, match="数値でない"):
        T.smoothed_cross_entropy(["a", "b"], 0)


def test_the_smoothed_loss_curve_has_its_minimum_at_q():
    c = T.smoothing_loss_curve(5, 0.1)
    assert c.best_p == pytest.approx(0.92)
    assert c.p_answer[np.argmin(c.smoothed)] == pytest.approx(0.92)
    assert c.best_loss == pytest.approx(T.smoothed_cross_entropy(T.smoothed_target(5, 0, 0.1), 0, 0.1).floor)
    assert np.all(np.diff(c.one_hot) < 0)                                   # one-hot keeps falling
    assert c.smoothed[-1] > c.best_loss                                      # near-certainty costs again
    np.testing.assert_allclose(c.one_hot, -np.log(c.p_answer))


# ---------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------
def test_inverted_dropout_of_the_hand_example():
    r = T.dropout_with_mask(T.DROPOUT_X, np.array(T.DROPOUT_KEEP), T.DROPOUT_RATE)
    assert r.scale == pytest.approx(1.25)
    np.testing.assert_allclose(r.output, [2.5, 0.0, -1.25, 3.75])
    inf = T.dropout(T.DROPOUT_X, T.DROPOUT_RATE, training=False)
    np.testing.assert_array_equal(inf.output, T.DROPOUT_X)
    assert inf.keep.all() and inf.scale == 1.0 and not inf.training


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.floats(0.0, 0.9),
       x=st.lists(st.floats(-100, 100), min_size=1, max_size=20))
def test_dropout_properties(seed, p, x):
    xs = np.array(x)
    before = xs.copy()
    a = T.dropout(xs, p, np.random.default_rng(seed))
    b = T.dropout(xs, p, np.random.default_rng(seed))
    np.testing.assert_array_equal(a.keep, b.keep)                             # same seed, same mask
    np.testing.assert_allclose(a.output, np.where(a.keep, xs / (1 - p), 0.0))
    np.testing.assert_array_equal(xs, before)                                 # input not modified
    rng = np.random.default_rng(seed)
    state = rng.bit_generator.state
    np.testing.assert_array_equal(T.dropout(xs, p, rng, training=False).output, xs)
    assert rng.bit_generator.state == state                                   # inference draws nothing


def test_dropout_keeps_the_expectation_and_the_plain_version_shrinks_it():
    x = np.array(T.DROPOUT_X)
    inverted, plain = T.dropout_average(x, 0.1, np.random.default_rng(0), 200_000)
    np.testing.assert_allclose(inverted, x, atol=0.03)
    np.testing.assert_allclose(plain, 0.9 * x, atol=0.03)
    assert T.dropout(x, 0.0, np.random.default_rng(1)).output.tolist() == x.tolist()      # p = 0: nothing dropped
    kept = T.dropout(np.ones(100_000), 0.1, np.random.default_rng(2)).keep.mean()
    assert kept == pytest.approx(0.9, abs=0.005)


def test_dropout_mistakes():
    x, keep, p = np.array([2.0, 4.0, -1.0, 3.0]), np.array([True, False, True, True]), 0.2
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, "no_rescale"), [2, 0, -1, 3])
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, "times_keep"), [1.6, 0, -0.8, 2.4])
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, "divide_by_p"), [10, 0, -5, 15])
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, None, training=False), x)
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, "shrunk_at_inference", training=False), 0.8 * x)
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, "scaled_at_inference", training=False), 1.25 * x)
    np.testing.assert_allclose(T.dropout_mistake(x, keep, p, "dropped_at_inference", training=False), [2.5, 0, -1.25, 3.75])
    with pytest.raises(ValueError, match="未知の誤り"):
        T.dropout_mistake(x, keep, p, "no_rescale", training=False)
    with pytest.raises(ValueError, match="未知の誤り"):
        T.dropout_mistake(x, keep, 0.0, "divide_by_p")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: T.dropout([1.0, 2.0], 1.0, np.random.default_rng(0)), "0 以上 1 未満"),
    (lambda: T.dropout([1.0, 2.0], -0.1, np.random.default_rng(0)), "0 以上 1 未満"),
    (lambda: T.dropout([1.0, 2.0], 0.1, None), "Generator"),
    (lambda: T.dropout([1.0, 2.0], 0.1, 0), "Generator"),
    (lambda: T.dropout([1.0, np.inf], 0.1, np.random.default_rng(0)), "NaN または無限大"),
    (lambda: T.dropout_with_mask([1.0, 2.0], np.array([True]), 0.1), "同じ形"),
    (lambda: T.dropout_with_mask([1.0, 2.0], np.array([1, 0]), 0.1), "真偽値"),
])
def test_dropout_rejects_bad_input_in_japanese(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_residual_dropout_drops_the_sublayer_not_the_input():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    f = np.array([[2.0, 4.0, -1.0, 3.0]])
    r = T.residual_dropout(x, f, 0.5, np.random.default_rng(3))
    np.testing.assert_allclose(r.residual_sum, x + np.where(r.dropped.keep, f * 2, 0.0))
    np.testing.assert_allclose(r.output, tutor.layer_norm(r.residual_sum, eps=1e-5))
    inference = T.residual_dropout(x, f, 0.5, training=False)
    np.testing.assert_allclose(inference.output, tutor.layer_norm(x + f, eps=1e-5))     # post-LN, nothing dropped
    with pytest.raises(ValueError, match="形"):
        T.residual_dropout(x, f[:, :3], 0.1, np.random.default_rng(0))


# ---------------------------------------------------------------------------
# ⑧'s recipe items: every answer recomputed from the plain formula
# ---------------------------------------------------------------------------


def frac(x: Fraction) -> str:
    return f"${x.numerator}/{x.denominator:,}$".replace(",", "{,}")


def root(n: int) -> int:
    r = math.isqrt(n)
    assert r * r == n, n
    return r


def rate(step: int, d: int, w: int) -> Fraction:
    """The paper's rate as an exact fraction (d, warmup and the asked steps are squares in the items)."""
    return min(Fraction(1, root(d) * root(step)), Fraction(step, root(d) * root(w) ** 3))


def dec(x: Fraction) -> str:
    """An exact decimal (the denominators are 2^a·5^b) as the items write it: 0.92, 0.0125, 1."""
    with localcontext() as ctx:
        ctx.prec = 40
        text = f"{(Decimal(x.numerator) / Decimal(x.denominator)).normalize():f}"
    return text


SEEDS = range(150)


def test_lr_peak_items():
    for seed in SEEDS:
        p, q = accepted_params("training.lr_peak", seed)
        d, w, m = p["d"], p["w"], p["m"]
        peak = Fraction(1, math.isqrt(d) * math.isqrt(w))
        want = f"（ア）{w:,}　（イ）{frac(peak)}　（ウ）{frac(peak / m)}"
        assert q.choices[q.answer] == want, (seed, q.choices[q.answer], want)
        assert q.topic == "training" and q.id == f"training.lr_peak#{seed}"
        names = {distractor_name(x) for x in q.misconceptions if x}
        assert names == {"warm-up の見落とし", {"inverse_step": "1/ステップで減るという誤解",
                                               "peak_everywhere": "ピークの値のままという誤解"}[p["decay_slip"]],
                         "warm-up の見落とし＋" + {"inverse_step": "1/ステップで減るという誤解",
                                              "peak_everywhere": "ピークの値のままという誤解"}[p["decay_slip"]]}
    assert quizzes.GENERATORS["training.lr_peak"](0).stem.startswith("次の文章の（ア）〜（ウ）")


def test_lr_at_step_items():
    phases = set()
    for seed in SEEDS:
        p, q = accepted_params("training.lr_at_step", seed)
        d, w, s = p["d"], p["w"], p["step"]
        assert q.choices[q.answer] == frac(rate(s, d, w)), (seed, q.choices)
        phases.add(s < w)
        wrong = {distractor_name(x): c for x, c in zip(q.misconceptions, q.choices) if x}
        assert wrong["d_model^-0.5 の掛け忘れ"] == frac(rate(s, d, w) * math.isqrt(d))
        if s < w:
            assert wrong["warm-up の見落とし"] == frac(1 / Fraction(math.isqrt(d) * math.isqrt(s)))
            assert wrong["ピークの値のままという誤解"] == frac(Fraction(1, math.isqrt(d) * math.isqrt(w)))
        else:
            assert wrong["min と max の取り違え"] == frac(Fraction(s, math.isqrt(d) * math.isqrt(w) ** 3))
            assert wrong["1/ステップで減るという誤解"] == frac(Fraction(w, math.isqrt(d) * math.isqrt(w) * s))
    assert phases == {True, False}                                           # both phases are drawn


def _vec(xs) -> str:
    return "$(" + ",\\ ".join(dec(x) for x in xs) + ")$"


def test_smoothed_target_items():
    for seed in SEEDS:
        p, q = accepted_params("training.smoothed_target", seed)
        e, t = Fraction(str(p["eps"])), p["target"]
        want = [e / 5 + (1 - e if k == t else 0) for k in range(5)]
        assert q.choices[q.answer] == _vec(want), (seed, q.choices[q.answer])
        assert "（語彙の順）" in q.stem and f"「{T.SMOOTHING_WORDS[t]}」" in q.stem


def ln2(c: Fraction) -> str:
    return "$\\ln 2$" if c == 1 else f"${dec(c)}\\ln 2$"


def test_smoothed_ce_items():
    for seed in SEEDS:
        p, q = accepted_params("training.smoothed_ce", seed)
        probs, t, e = p["probs"], p["target"], Fraction(str(p["eps"]))
        bits = [round(-math.log2(x)) for x in probs]
        assert all(2.0 ** -b == x for b, x in zip(bits, probs))
        coef = sum((e / 5 + (1 - e if k == t else 0)) * b for k, b in enumerate(bits))
        assert q.choices[q.answer] == ln2(coef), (seed, q.choices)
        others = {distractor_name(x): c for x, c in zip(q.misconceptions, q.choices) if x}
        assert others["平滑化の掛け忘れ"] == ln2(Fraction(bits[t]))
        assert others["正解の項だけ計算"] == ln2((1 - e + e / 5) * bits[t])
        assert others["正解以外にだけ配った"] == ln2(sum((e / 4 if k != t else 1 - e) * b for k, b in enumerate(bits)))


def test_recipe_items_are_advanced_and_hand_calculable():
    for gid in ("training.lr_peak", "training.lr_at_step", "training.smoothed_target", "training.smoothed_ce"):
        assert core.GENERATOR_INFO[gid].advanced and core.GENERATOR_INFO[gid].topic == "training"
        for seed in range(40):
            stem = quizzes.GENERATORS[gid](seed).stem
            assert "\\approx" not in stem and "小数第" not in stem                   # exact answers: no rounding to state
            assert not re.search(r"\d\.\d{5,}", stem)
