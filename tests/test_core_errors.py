"""Bad input to tutor/core.py raises ValueError with a Japanese message naming the problem.

Pages show these messages to the learner via st.error, so each one must be in Japanese
(at least one Hiragana, Katakana or Kanji character) and say what is wrong: the shapes,
the numbers, or the kind of problem.
"""
import re

import numpy as np
import pytest

import tutor

JAPANESE = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u4e00-\u9fff]")


def japanese_error(fn, *args, **kwargs) -> str:
    """Call fn, expect ValueError with a Japanese message; return the message."""
    with pytest.raises(ValueError) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    assert JAPANESE.search(msg), f"message is not Japanese: {msg!r}"
    return msg


def ones(*shape):
    return np.ones(shape)


# ---------------------------------------------------------------------------
# d_k mismatch
# ---------------------------------------------------------------------------
def test_attention_dk_mismatch_names_both_shapes():
    msg = japanese_error(tutor.attention, ones(2, 3), ones(4, 2), ones(4, 5))
    assert "(2, 3)" in msg and "(4, 2)" in msg


def test_project_qkv_dk_mismatch_names_both_sizes():
    msg = japanese_error(tutor.project_qkv, ones(3, 4), ones(4, 2), ones(4, 3), ones(4, 2))
    assert "d_k" in msg and "2" in msg and "3" in msg


def test_project_qkv_x_and_w_do_not_multiply():
    msg = japanese_error(tutor.project_qkv, ones(3, 4), ones(5, 2), ones(5, 2), ones(5, 2))
    assert "(3, 4)" in msg and "(5, 2)" in msg


def test_cross_attention_d_model_mismatch_names_both_shapes():
    msg = japanese_error(tutor.cross_attention, ones(2, 4), ones(3, 5), ones(4, 2), ones(4, 2), ones(4, 2))
    assert "(2, 4)" in msg and "(3, 5)" in msg


# ---------------------------------------------------------------------------
# K / V token counts
# ---------------------------------------------------------------------------
def test_k_v_token_count_mismatch_names_both_shapes():
    msg = japanese_error(tutor.attention, ones(2, 3), ones(4, 3), ones(5, 2))
    assert "(4, 3)" in msg and "(5, 2)" in msg


# ---------------------------------------------------------------------------
# a row with every key masked
# ---------------------------------------------------------------------------
def test_fully_masked_row_in_attention():
    mask = np.array([[True, False], [False, False]])
    msg = japanese_error(tutor.attention, ones(2, 2), ones(2, 2), ones(2, 2), mask)
    assert "マスク" in msg


def test_fully_masked_row_in_multi_head():
    x, w = ones(2, 4), np.eye(4)
    mask = np.array([[False, False], [True, True]])
    msg = japanese_error(tutor.multi_head_attention, x, w, w, w, w, 2, mask)
    assert "マスク" in msg


def test_softmax_all_minus_inf_row():
    msg = japanese_error(tutor.softmax, np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
    assert "−∞" in msg or "-inf" in msg or "マスク" in msg


# ---------------------------------------------------------------------------
# NaN / inf
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["q", "k", "v"])
def test_attention_nan_inf(bad, where):
    arrays = {"q": ones(2, 2), "k": ones(3, 2), "v": ones(3, 2)}
    arrays[where][0, 0] = bad
    msg = japanese_error(tutor.attention, arrays["q"], arrays["k"], arrays["v"])
    assert "NaN" in msg and "inf" in msg
    assert where.upper() in msg  # names which input is broken


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_naive_attention_nan_inf(bad):
    x = ones(3, 4)
    x[1, 2] = bad
    assert "NaN" in japanese_error(tutor.naive.naive_attention, x)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_nan_or_plus_inf(bad):
    assert "NaN" in japanese_error(tutor.softmax, [1.0, bad, 0.0])


def test_multi_head_nan_in_weights():
    w = np.eye(4)
    w_bad = w.copy()
    w_bad[0, 0] = np.nan
    msg = japanese_error(tutor.multi_head_attention, ones(2, 4), w, w_bad, w, w, 2)
    assert "W_K" in msg and "NaN" in msg


# ---------------------------------------------------------------------------
# non-numeric input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [[["a", "b"], ["c", "d"]], [[1.0, "猫"], [0.0, 1.0]], [[1.0, 2.0], [3.0]]])
def test_attention_non_numeric(bad):
    msg = japanese_error(tutor.attention, bad, ones(2, 2), ones(2, 2))
    assert "Q" in msg and "数値" in msg


def test_naive_attention_non_numeric():
    assert "数値" in japanese_error(tutor.naive.naive_attention, [["x", "y"], ["z", "w"]])


def test_softmax_non_numeric():
    assert "数値" in japanese_error(tutor.softmax, ["a", "b"])


def test_project_qkv_non_numeric_weight():
    msg = japanese_error(tutor.project_qkv, ones(2, 2), [["?", 0], [0, 1]], np.eye(2), np.eye(2))
    assert "W_Q" in msg and "数値" in msg


# ---------------------------------------------------------------------------
# d_model not divisible by h
# ---------------------------------------------------------------------------
def test_head_dim_not_divisible_names_both_numbers():
    msg = japanese_error(tutor.head_dim, 10, 3)
    assert "10" in msg and "3" in msg


@pytest.mark.parametrize("d_model, h", [(6, 4), (512, 7)])
def test_multi_head_not_divisible_names_both_numbers(d_model, h):
    w = np.eye(d_model)
    msg = japanese_error(tutor.multi_head_attention, ones(2, d_model), w, w, w, w, h)
    assert str(d_model) in msg and str(h) in msg


def test_split_heads_not_divisible():
    msg = japanese_error(tutor.split_heads, ones(3, 6), 4)
    assert "6" in msg and "4" in msg


@pytest.mark.parametrize("d_model, h", [(0, 1), (4, 0), (4, -2)])
def test_head_dim_non_positive(d_model, h):
    japanese_error(tutor.head_dim, d_model, h)


def test_per_head_without_heads():
    japanese_error(tutor.multi_head_attention_per_head, ones(2, 4), [], np.eye(4))


def test_per_head_heads_of_different_sizes():
    heads = [(ones(4, 2), ones(4, 2), ones(4, 2)), (ones(4, 3), ones(4, 3), ones(4, 3))]
    assert "ヘッド" in japanese_error(tutor.multi_head_attention_per_head, ones(2, 4), heads, np.eye(4))


def test_w_o_of_the_wrong_size():
    w = np.eye(4)
    msg = japanese_error(tutor.multi_head_attention, ones(2, 4), w, w, w, ones(3, 4), 2)
    assert "W_O" in msg and "(2, 4)" in msg and "(3, 4)" in msg


# ---------------------------------------------------------------------------
# wrong number of dimensions
# ---------------------------------------------------------------------------
def test_attention_one_dimensional_query():
    msg = japanese_error(tutor.attention, np.ones(3), ones(2, 3), ones(2, 3))
    assert "(3,)" in msg and "次元" in msg


def test_attention_five_dimensional_query():
    msg = japanese_error(tutor.attention, ones(1, 1, 1, 2, 3), ones(2, 3), ones(2, 3))
    assert "(1, 1, 1, 2, 3)" in msg


def test_naive_attention_three_dimensional():
    msg = japanese_error(tutor.naive.naive_attention, ones(2, 3, 4))
    assert "(2, 3, 4)" in msg


def test_project_qkv_vector_weight():
    msg = japanese_error(tutor.project_qkv, ones(2, 4), np.ones(4), ones(4, 2), ones(4, 2))
    assert "W_Q" in msg and "(4,)" in msg


def test_split_heads_wrong_ndim():
    msg = japanese_error(tutor.split_heads, ones(2, 3, 4), 2)
    assert "(2, 3, 4)" in msg


def test_merge_heads_wrong_ndim():
    msg = japanese_error(tutor.merge_heads, ones(3, 4))
    assert "(3, 4)" in msg


# ---------------------------------------------------------------------------
# empty arrays
# ---------------------------------------------------------------------------
def test_attention_empty():
    msg = japanese_error(tutor.attention, np.zeros((0, 2)), ones(2, 2), ones(2, 2))
    assert "空" in msg and "(0, 2)" in msg


def test_naive_attention_empty():
    assert "空" in japanese_error(tutor.naive.naive_attention, np.zeros((3, 0)))


def test_softmax_empty():
    assert "空" in japanese_error(tutor.softmax, [])


@pytest.mark.parametrize("n", [0, -3])
def test_causal_mask_non_positive_length(n):
    assert str(n) in japanese_error(tutor.causal_mask, n)


# ---------------------------------------------------------------------------
# temperature
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("t", [0, 0.0, -1.0, -1e-9, np.inf, np.nan])
def test_softmax_temperature_must_be_positive_and_finite(t):
    msg = japanese_error(tutor.softmax, [2.0, 1.0, 0.0], temperature=t)
    assert "温度" in msg


# ---------------------------------------------------------------------------
# mask of the wrong shape
# ---------------------------------------------------------------------------
def test_mask_wrong_shape_names_both_shapes():
    msg = japanese_error(tutor.attention, ones(3, 2), ones(3, 2), ones(3, 2), np.ones((2, 2), bool))
    assert "(2, 2)" in msg and "(3, 3)" in msg


def test_mask_larger_than_scores_is_rejected():
    # a (3, 3) mask would broadcast a single query (1, 3) into three rows: the result would
    # silently have the wrong shape
    msg = japanese_error(tutor.attention, ones(1, 2), ones(3, 2), ones(3, 2), np.ones((3, 3), bool))
    assert "(3, 3)" in msg and "(1, 3)" in msg


def test_batch_mask_on_a_single_sequence_is_rejected():
    msg = japanese_error(tutor.attention, ones(3, 2), ones(3, 2), ones(3, 2), tutor.padding_mask([2, 3], 3))
    assert "(2, 3, 3)" in msg and "(3, 3)" in msg


def test_mask_after_softmax_wrong_shape():
    msg = japanese_error(tutor.mask_after_softmax, ones(3, 3), np.ones((2, 2), bool))
    assert "(2, 2)" in msg and "(3, 3)" in msg


@pytest.mark.parametrize("lengths", [0, 5, [1, 6], [2.5], []])
def test_padding_mask_bad_lengths(lengths):
    japanese_error(tutor.padding_mask, lengths, 4)


def test_multi_head_mask_wrong_shape():
    w = np.eye(4)
    msg = japanese_error(tutor.multi_head_attention, ones(3, 4), w, w, w, w, 2, np.ones((2, 2), bool))
    assert "(2, 2)" in msg


# ---------------------------------------------------------------------------
# valid edge cases must NOT raise
# ---------------------------------------------------------------------------
def test_single_token_and_broadcast_masks_are_fine():
    r = tutor.attention(ones(1, 1), ones(1, 1), ones(1, 1), np.array([[True]]))
    assert r.weights.tolist() == [[1.0]]
    # a per-key mask (n_k,) broadcasts over the queries
    r = tutor.attention(ones(2, 2), ones(3, 2), ones(3, 1), np.array([True, True, False]))
    assert r.weights.shape == (2, 3) and (r.weights[:, 2] == 0).all()
    # one (n, n) mask broadcasts over heads
    r = tutor.attention(ones(4, 3, 2), ones(4, 3, 2), ones(4, 3, 2), tutor.causal_mask(3))
    assert r.weights.shape == (4, 3, 3)


def test_float_mask_is_refused_not_silently_inverted():
    """The additive form (0 / −∞) cast to bool would flip the mask: refuse it with a Japanese message."""
    import numpy as np
    import pytest
    import tutor
    from tutor import textbook as tb

    additive = tutor.additive_mask(tutor.causal_mask(3))
    p = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    with pytest.raises(ValueError, match="True/False"):
        tutor.attention(p.q, p.k, p.v, additive)
    with pytest.raises(ValueError, match="True/False"):
        tutor.mask_after_softmax(np.full((3, 3), 1 / 3), np.ones((3, 3)))


# --- edge cases of finite but huge input (one behaviour each) ---------------------------------
def test_finite_check_gives_no_overflow_warning_for_huge_valid_input():
    """Above ~1e154, Σ x² overflows: the check itself must not warn (np.isfinite, no dot product)."""
    import warnings
    big = [[1e200, -1e200], [3e300, 1.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arr = tutor.as_matrix(big)
        np.testing.assert_array_equal(arr, big)
        np.testing.assert_allclose(tutor.softmax([1e300, 0.0]), [1.0, 0.0])


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_score_overflow_is_one_clear_error(sign):
    """1e200 · 1e200 overflows to ±∞: attention and tiled attention refuse it with the same message
    (before: the all-masked message for −∞ although nothing was masked, or NaN from the tiles)."""
    q = np.array([[1e200, 0.0], [1.0, 0.0]])
    k = np.array([[sign * 1e200, 0.0], [1.0, 0.0]])
    v = np.eye(2)
    for run in (lambda: tutor.attention(q, k, v), lambda: tutor.cost.tiled_attention(q, k, v, block_size=1),
                lambda: tutor.cost.tiled_attention(q, k, v, causal=True)):
        with pytest.raises(ValueError, match="オーバーフロー") as err:
            run()
        assert "マスク" not in str(err.value)


def test_huge_but_representable_scores_still_work():
    q = np.array([[1e150, 0.0]])
    k = np.array([[1e150, 0.0], [0.0, 1.0]])
    r = tutor.attention(q, k, np.eye(2))
    np.testing.assert_array_equal(r.weights, [[1.0, 0.0]])
    np.testing.assert_array_equal(tutor.cost.tiled_attention(q, k, np.eye(2), block_size=1).output, r.output)


@pytest.mark.parametrize("value", [True, np.bool_(False), "1", None, [1.0], float("nan"), float("inf"), -float("inf")])
def test_real_number_refuses_what_is_not_a_finite_number(value):
    with pytest.raises(ValueError, match="数にしてください"):
        tutor.core.real_number(value, "λ")


@pytest.mark.parametrize("kw, inside, outside, says", [
    ({"above": 0, "high": 100}, [1e-9, 100, np.float64(3)], [0, -1, 100.5], "λ は 0 より大きく 100 以下の数"),
    ({"low": 0, "high": 2}, [0, 2, 1], [-1e-9, 2.5], "λ は 0 以上 2 以下の数"),
    ({"above": 0}, [1e300], [0], "λ は 0 より大きい有限の数"),
    ({"low": 1}, [1, np.int64(7)], [0.5], "λ は 1 以上の有限の数"),
])
def test_real_number_keeps_its_range_and_names_it(kw, inside, outside, says):
    for v in inside:
        assert tutor.core.real_number(v, "λ", **kw) == float(v)
    for v in outside:
        with pytest.raises(ValueError, match=says):
            tutor.core.real_number(v, "λ", **kw)
