"""tutor.naive: naive self-attention, its weaknesses on the textbook numbers, and its named mistakes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb


FAST = settings(max_examples=40)


def test_naive_mistakes_on_the_textbook_example():
    right = tutor.naive.naive_attention_mistake(tb.X)
    np.testing.assert_allclose(right.weights[0], [0.665, 0.090, 0.245], atol=5e-4)
    col = tutor.naive.naive_attention_mistake(tb.X, "column_softmax")
    np.testing.assert_allclose(col.weights, right.weights.T, atol=1e-12)  # S symmetric → transposed
    np.testing.assert_allclose(tutor.naive.naive_attention_mistake(tb.X, "no_exp").weights[2], [0.25, 0.25, 0.5])
    np.testing.assert_allclose(tutor.naive.naive_attention_mistake(tb.X, "no_softmax").output[0], [3, 1, 2, 0])
    g = tutor.naive.naive_attention_mistake(tb.X, "gram_transposed")
    np.testing.assert_allclose(g.scores, tb.X.T @ tb.X)
    assert g.weights is None  # d = 4 ≠ n = 3
    with pytest.raises(ValueError):
        tutor.naive.naive_attention_mistake(np.zeros((2, 2)) + [[1, 0], [0, 0]], "no_exp")


@FAST
@given(hnp.arrays(np.float64, st.sampled_from([(3, 4), (3, 3), (2, 5)]), elements=st.integers(0, 2).map(float)))
def test_naive_variants_equal_one_call_per_mistake(x):
    mistakes = (None, "column_softmax", "no_softmax", "gram_transposed")
    if (x @ x.T).sum(axis=1).min() > 0:
        mistakes += ("no_exp",)
    for m, r in zip(mistakes, tutor.naive.naive_attention_variants(x, mistakes)):
        one = tutor.naive.naive_attention_mistake(x, m)
        for got, want in ((r.scores, one.scores), (r.weights, one.weights), (r.output, one.output)):
            assert (got is None and want is None) or np.array_equal(got, want)     # bit for bit
    right = tutor.naive.naive_attention_variants(x, (None,))[0]
    np.testing.assert_array_equal(right.weights, tutor.naive.naive_attention(x).weights)
    with pytest.raises(ValueError):
        tutor.naive.naive_attention_variants(x, ("typo",))


def test_inputs_not_mutated():
    x = np.array(tb.X)
    before = x.copy()
    tutor.naive.naive_attention_mistake(x, "column_softmax")
    np.testing.assert_array_equal(x, before)


# --- lessons: the page helpers ---------------------------------------------------------------
def test_naive_weaknesses_on_the_seed():
    w = tutor.naive.naive_weaknesses(tb.X)
    assert w.symmetric and w.n_params == 0 and w.n_self_top == 3
    np.testing.assert_array_equal(np.round(w.result.weights[2], 3), [0.212, 0.212, 0.576])
    np.testing.assert_array_equal(w.self_scores, [2, 2, 2])
    np.testing.assert_array_equal(w.max_other_scores, [1, 1, 1])
