"""tutor.scaling: √d_k, the variance of q·k, softmax saturation and the divisor mistakes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb


FAST = settings(max_examples=40)



small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def test_scaling_facts():
    assert tutor.scaling.score_divisor(64) == 8.0
    assert tutor.scaling.dot_product_variance(64) == 64.0
    assert tutor.scaling.scaled_variance(64, 8.0) == 1.0
    assert tutor.scaling.scaled_variance(64, 64.0) == 1 / 64
    with pytest.raises(ValueError):
        tutor.scaling.score_divisor(0)


@FAST
@given(hnp.arrays(np.float64, (2, 3), elements=small), st.sampled_from((1, 4, 9, 16)))
def test_scale_scores_is_the_scaled_step(s, d_k):
    for mistake in (None,) + tutor.scaling.SCALE_MISTAKES:
        np.testing.assert_array_equal(tutor.scaling.scale_scores(s, d_k, mistake=mistake, d_model=64),
                                      tutor.formula.attention_from_scores(s, d_k=d_k, mistake=mistake, d_model=64).scaled)


def test_scale_scores_values_and_errors():
    row = [3.0, 6.0, 0.0]
    np.testing.assert_array_equal(tutor.scaling.scale_scores(row, 9), [[1.0, 2.0, 0.0]])                 # ÷ √9
    np.testing.assert_array_equal(tutor.scaling.scale_scores(row, 9, mistake="divide_by_d_k"), [[1 / 3, 2 / 3, 0.0]])
    np.testing.assert_array_equal(tutor.scaling.scale_scores(row, 9, mistake="no_scale"), [row])
    np.testing.assert_array_equal(tutor.scaling.scale_scores(row, 9, mistake="d_model", d_model=36), [[0.5, 1.0, 0.0]])
    for bad in ({"d_k": 0}, {"d_k": 4, "mistake": "uniform"}, {"d_k": 4, "mistake": "d_model"}):
        with pytest.raises(ValueError):
            tutor.scaling.scale_scores(row, **bad)


def test_saturation():
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 10)      # (20, 10, 0)
    np.testing.assert_array_equal(np.round(p.weights, 5), [0.99995, 0.00005, 0.0])
    assert p.gradient < 1e-4 < 0.2 < tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 1).gradient
    np.testing.assert_allclose(tutor.softmax_jacobian([0.0, 0.0]), [[0.25, -0.25], [-0.25, 0.25]])
    grads = [pt.gradient for pt in tutor.scaling.saturation_curve([2, 1, 0], np.linspace(1, 20, 20))]
    assert all(a > b for a, b in zip(grads, grads[1:]))        # larger scores, smaller gradient
    with pytest.raises(ValueError):
        tutor.scaling.saturation_point([2, 1, 0], 0)


def test_spread_experiment_matches_sqrt_dk():
    e = tutor.scaling.dot_product_spread(np.random.default_rng(0))
    np.testing.assert_array_equal(np.round(e.theory_std, 1), [1.4, 2.8, 8.0, 22.6])
    np.testing.assert_allclose(e.raw_std, e.theory_std, rtol=0.1)
    np.testing.assert_allclose(e.scaled_std, 1.0, rtol=0.1)
    assert e.raw_max_weight[-1] > 0.9 > 0.5 > e.scaled_max_weight[-1]
    again = tutor.scaling.dot_product_spread(np.random.default_rng(0))
    np.testing.assert_array_equal(e.raw_std, again.raw_std)     # same seed, same numbers
