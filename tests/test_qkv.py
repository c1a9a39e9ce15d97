"""tutor.qkv: the naive vs Q/K/V comparison, asymmetric score tables, the score table and its K Qᵀ mistake."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb


FAST = settings(max_examples=40)



small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@FAST
@given(hnp.arrays(np.float64, (3, 2), elements=small), hnp.arrays(np.float64, (3, 2), elements=small),
       hnp.arrays(np.float64, (3, 4), elements=small))


def test_score_table_is_the_first_step_of_attention(q, k, v):
    np.testing.assert_array_equal(tutor.qkv.score_table(q, k), tutor.attention(q, k, v).scores)
    np.testing.assert_array_equal(tutor.qkv.score_table(q, k, mistake="transposed_scores"),
                                  tutor.formula.attention_mistake(q, k, v, mistake="transposed_scores").scores)
    np.testing.assert_array_equal(tutor.qkv.score_table(q, q), tutor.attention(q, q, v).scores)


def test_score_table_on_the_g_kentei_example_and_errors():
    # q = (1, 0), keys (1, 0), (0, 1), (1, 1) → scores (1, 0, 1)
    np.testing.assert_array_equal(tutor.qkv.score_table(tb.G_QUERY, tb.G_KEYS)[0], [1, 0, 1])
    with pytest.raises(ValueError, match="d_k"):
        tutor.qkv.score_table(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="n_q = n_k"):
        tutor.qkv.score_table(np.ones((2, 2)), np.ones((3, 2)), mistake="transposed_scores")
    with pytest.raises(ValueError):
        tutor.qkv.score_table(np.ones((2, 2)), np.ones((2, 2)), mistake="no_scale")


def test_compare_naive_qkv():
    c = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert not c.symmetric and c.asymmetric[0] == (1, 2)       # 魚→それ 1 vs それ→魚 4
    assert c.attn.scores[2, 1] == 4 and c.attn.scores[1, 2] == 1
    np.testing.assert_array_equal(np.round(c.attn.weights[2], 3), [0.053, 0.894, 0.053])
    assert c.n_params == 24 == tutor.qkv.qkv_param_count(4, 2, 2)
