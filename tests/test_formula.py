"""tutor.formula: the complete formula from a given score table, with its named mistakes, checked against tutor.attention and real values."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb


FAST = settings(max_examples=40)



small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def _g(mistake=None, mask=None):
    return tutor.formula.attention_mistake(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, mask, mistake=mistake, d_model=4)


def test_correct_is_the_engine_on_the_g_kentei_example():
    r = _g()
    np.testing.assert_allclose(r.weights[0], [0.4011, 0.1978, 0.4011], atol=5e-5)
    np.testing.assert_allclose(r.output[0], [1.203, 1.192], atol=5e-4)


def test_named_attention_mistakes_on_the_g_kentei_example():
    np.testing.assert_allclose(_g("no_scale").weights[0], [0.4223, 0.1554, 0.4223], atol=5e-5)
    # divided by d_k = 2: scores (0.5, 0, 0.5)
    e = math.exp(0.5)
    np.testing.assert_allclose(_g("divide_by_d_k").weights[0], [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)])
    # √d_model = 2 is the same number here: divisor 2
    assert _g("d_model").divisor == 2.0
    np.testing.assert_allclose(_g("no_softmax").weights[0], [1 / math.sqrt(2), 0, 1 / math.sqrt(2)])
    np.testing.assert_allclose(_g("no_normalise").weights[0], np.exp([1 / math.sqrt(2), 0, 1 / math.sqrt(2)]))
    np.testing.assert_allclose(_g("uniform").output[0], [1.0, 5 / 3])
    # masking key 3: right (0.6698, 0.3302, 0); after softmax (0.4011, 0.1978, 0)
    np.testing.assert_allclose(_g(mask=tb.G_MASK_KEY3).weights[0], [0.6698, 0.3302, 0], atol=5e-5)
    np.testing.assert_allclose(_g("mask_after_softmax", tb.G_MASK_KEY3).weights[0], [0.4011, 0.1978, 0], atol=5e-5)
    np.testing.assert_allclose(_g("no_mask", tb.G_MASK_KEY3).weights, _g().weights)
    zf = _g("zero_fill", tb.G_MASK_KEY3).weights[0]
    a = math.exp(1 / math.sqrt(2))
    np.testing.assert_allclose(zf, [a / (a + 2), 1 / (a + 2), 1 / (a + 2)])


def test_column_softmax_and_transposed_scores_on_the_textbook_qkv():
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    col = tutor.formula.attention_mistake(qkv.q, qkv.k, qkv.v, mistake="column_softmax")
    np.testing.assert_allclose(col.weights.sum(axis=0), np.ones(3))
    t = tutor.formula.attention_mistake(qkv.q, qkv.k, qkv.v, mistake="transposed_scores")
    np.testing.assert_allclose(t.scores, [[4, 2, 0], [2, 2, 4], [2, 1, 0]])  # (QKᵀ)ᵀ of 8.6
    with pytest.raises(ValueError, match="d_k = n_k"):
        tutor.formula.attention_mistake(qkv.q, qkv.k, qkv.v, mistake="k_not_transposed")
    sq = np.array([[1.0, 2.0], [0.0, 1.0]])
    r = tutor.formula.attention_mistake(sq, sq, sq, mistake="k_not_transposed")
    np.testing.assert_allclose(r.scores, sq @ sq)


def test_causal_mask_mistakes_on_the_textbook_example():
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    m = tutor.causal_mask(3)
    right = tutor.formula.attention_mistake(qkv.q, qkv.k, qkv.v, m)
    np.testing.assert_allclose(right.weights, [[1, 0, 0], [0.5, 0.5, 0], [0.053, 0.894, 0.053]], atol=5e-4)
    after = tutor.formula.attention_mistake(qkv.q, qkv.k, qkv.v, m, mistake="mask_after_softmax")
    assert after.weights.sum(axis=1)[0] == pytest.approx(0.673, abs=5e-4)
    trans = tutor.formula.attention_mistake(qkv.q, qkv.k, qkv.v, m, mistake="mask_transposed")
    assert trans.weights[2, 2] == 1.0 and trans.weights[0, 0] == pytest.approx(0.673, abs=5e-4)


@FAST
@given(hnp.arrays(np.float64, (3, 2), elements=small), hnp.arrays(np.float64, (4, 2), elements=small),
       hnp.arrays(np.float64, (4, 3), elements=small))


def test_from_scores_agrees_with_attention(q, k, v):
    ref = tutor.attention(q, k, v, tutor.causal_mask(4)[:3])
    got = tutor.formula.attention_from_scores(ref.scores, v, d_k=2, mask=tutor.causal_mask(4)[:3])
    np.testing.assert_allclose(got.weights, ref.weights, atol=1e-12)
    np.testing.assert_allclose(got.output, ref.output, atol=1e-12)


@FAST
@given(st.lists(st.integers(1, 6), min_size=2, max_size=5), st.sampled_from([1, 4, 9, 16]))
def test_ln_scores_make_softmax_exact(ms, d_k):
    r = tutor.formula.attention_from_scores(tutor.scaling.ln_scores(ms, d_k), d_k=d_k)
    np.testing.assert_allclose(r.weights[0], np.array(ms) / sum(ms), atol=1e-12)
    r0 = tutor.formula.attention_from_scores(tutor.scaling.ln_scores(ms, d_k), d_k=d_k, mistake="no_scale")
    sq = np.array(ms, float) ** math.sqrt(d_k)
    np.testing.assert_allclose(r0.weights[0], sq / sq.sum(), atol=1e-12)


def test_shapes():
    s = tutor.formula.attention_shapes(2, 5, 3, 4)
    assert s["scores"] == (2, 5) and s["weights"] == (2, 5) and s["output"] == (2, 4)


def test_unknown_mistake_is_a_japanese_error():
    with pytest.raises(ValueError, match="未知の誤り"):
        tutor.formula.attention_mistake(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, mistake="typo")


@FAST
@given(hnp.arrays(np.float64, (3, 3), elements=small), hnp.arrays(np.float64, (3, 2), elements=small),
       hnp.arrays(np.bool_, (3, 3)), st.lists(st.sampled_from((None,) + tutor.formula.ATTENTION_MISTAKES), min_size=1, max_size=5))


def test_attention_variants_are_attention_from_scores_one_by_one(s, v, mask, mistakes):
    mask[:, 0] = True                                         # every row sees at least one key …
    for use_mask in (None, mask):
        for m in (mistakes, list(reversed(mistakes))):
            one = []
            for mistake in m:
                try:
                    one.append(tutor.formula.attention_from_scores(s, v, d_k=4, mask=use_mask, mistake=mistake, d_model=9))
                except ValueError:                            # … but a transposed mask may hide a whole row
                    with pytest.raises(ValueError):
                        tutor.formula.attention_variants(s, v, d_k=4, mask=use_mask, mistakes=m, d_model=9)
                    break
            else:
                many = tutor.formula.attention_variants(s, v, d_k=4, mask=use_mask, mistakes=m, d_model=9)
                for a, b in zip(one, many):
                    for field in ("scores", "scaled", "masked", "weights", "output"):
                        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
                    assert a.divisor == b.divisor
                for x in range(len(many)):                    # each result owns its weights
                    for y in range(x):
                        assert not np.shares_memory(many[x].weights, many[y].weights)


def test_attention_variants_of_the_mask_mistakes_on_a_fixed_table():
    """no_mask and mask_after_softmax among other mistakes, with and without a causal mask: the same
    numbers as one by one (both are softmax(S / √d_k), the second with the hidden keys zeroed
    afterwards), and no two results share a weights array."""
    s = np.array([[2.0, 4.0, 0.0], [1.0, -3.0, 5.0], [0.5, 0.5, 7.0]])
    mask = tutor.causal_mask(3)
    for use_mask in (None, mask):
        mistakes = (None, "no_mask", "mask_after_softmax", None, "no_mask", "no_scale", "zero_fill")
        many = tutor.formula.attention_variants(s, d_k=4, mask=use_mask, mistakes=mistakes)
        for mistake, got in zip(mistakes, many):
            one = tutor.formula.attention_from_scores(s, d_k=4, mask=use_mask, mistake=mistake)
            np.testing.assert_array_equal(got.weights, one.weights)
        for x in range(len(many)):
            for y in range(x):
                assert not np.shares_memory(many[x].weights, many[y].weights)
    np.testing.assert_allclose(many[1].weights[0], tutor.softmax(s[0] / 2))
    np.testing.assert_allclose(many[2].weights[0], tutor.softmax(s[0] / 2) * [1, 0, 0])


# ---------------------------------------------------------------------------
# hand calculation from the numbers a question shows (rounded e^s, rounded weights)
# ---------------------------------------------------------------------------
def test_softmax_from_exps_with_the_hint_values():
    """e^1 ≈ 2.718, e^2 ≈ 7.389, e^0 = 1 as a stem gives them: 2.718 / 11.107 = 0.24471…"""
    w = tutor.formula.softmax_from_exps([2.718, 7.389, 1.0])
    np.testing.assert_allclose(w, [2.718 / 11.107, 7.389 / 11.107, 1 / 11.107])
    assert abs(w.sum() - 1) < 1e-12
    col = tutor.formula.softmax_from_exps([[1.0, 2.0], [3.0, 2.0]], axis=0)
    np.testing.assert_allclose(col, [[0.25, 0.5], [0.75, 0.5]])
    with pytest.raises(ValueError):
        tutor.formula.softmax_from_exps([1.0, 0.0, 2.0])


@FAST
@given(hnp.arrays(np.float64, (2, 4), elements=small))
def test_softmax_from_exact_exps_is_the_engine_softmax(s):
    np.testing.assert_allclose(tutor.formula.softmax_from_exps(np.exp(s)), tutor.softmax(s), rtol=1e-12)
    np.testing.assert_allclose(tutor.formula.softmax_from_exps(np.exp(s), axis=0), tutor.softmax(s, axis=0), rtol=1e-12)


def test_weighted_sum_of_shown_weights():
    """naive.output#0 of audit B: weights (0.063, 0.468, 0.468) on the column (0, 1, 1) give 0.936."""
    assert float(tutor.weighted_sum([0.063, 0.468, 0.468], [0.0, 1.0, 1.0], normalised=False)) == 0.936
    np.testing.assert_allclose(tutor.weighted_sum([[0.5, 0.5]], [[1.0, 2.0], [3.0, 4.0]]), [[2.0, 3.0]])
    with pytest.raises(ValueError):
        tutor.weighted_sum([0.5, 0.5], [1.0, 2.0, 3.0], normalised=False)


def test_cross_example_is_not_square_and_parallel_demo():
    r = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert r.weights.shape == (2, 3)
    assert np.argmax(r.weights[0]) == 0 and np.argmax(r.weights[1]) == 1   # ate → 猫, it → 魚
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    p = tutor.formula.parallel_demo(qkv.q, qkv.k, qkv.v)
    assert p.rows_agree and (p.rnn_sequential_steps, p.attention_sequential_steps) == (3, 1)
