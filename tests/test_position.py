"""tutor.position: sinusoidal PE (figure of seed 004), learned table, RoPE, permutation demo."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb
from tutor.position import (
    add_positional_encoding,
    learned_position_table,
    pe_angle_rates,
    positional_encoding_swapped,
    rope,
    rope_angles,
    rope_score,
)
from tutor import positional_encoding

FAST = settings(max_examples=60, deadline=None)
finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


# --- figure (004): d_model = 4, pos = 1 -------------------------------------------------
def test_pe_figure_d4_pos1():
    pe = positional_encoding(2, 4)
    assert pe.shape == (2, 4)
    assert np.round(pe[1], 4).tolist() == [0.8415, 0.5403, 0.0100, 1.0000]
    assert round(pe[1, 3], 5) == 0.99995
    # pos = 0: sin 0 = 0 on even columns, cos 0 = 1 on odd columns
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]


def test_pe_matches_paper_formula_elementwise():
    n, d = 7, 8
    pe = positional_encoding(n, d)
    for pos in range(n):
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            assert pe[pos, 2 * i] == pytest.approx(np.sin(angle), abs=1e-15)
            assert pe[pos, 2 * i + 1] == pytest.approx(np.cos(angle), abs=1e-15)


def test_pe_paper_size_and_base():
    pe = positional_encoding(50, tb.PAPER_D_MODEL, base=tb.PE_BASE)
    assert pe.shape == (50, 512) and pe.dtype == np.float64
    # a smaller base makes the slow columns turn faster
    assert not np.allclose(positional_encoding(5, 4, base=100.0), positional_encoding(5, 4))
    assert positional_encoding(5, 4, base=100.0)[1, 2] == pytest.approx(np.sin(0.1))


def test_angle_rates():
    assert pe_angle_rates(4).tolist() == [1.0, 0.01]
    assert pe_angle_rates(512).shape == (256,)


def test_swapped_misconception_differs_and_is_swapped():
    right = positional_encoding(3, 4)
    wrong = positional_encoding_swapped(3, 4)
    assert np.round(wrong[1], 4).tolist() == [0.5403, 0.8415, 1.0000, 0.0100]
    np.testing.assert_array_equal(wrong[:, 0::2], right[:, 1::2])
    np.testing.assert_array_equal(wrong[:, 1::2], right[:, 0::2])
    assert not np.allclose(wrong, right)


@FAST
@given(st.integers(1, 40), st.integers(1, 32).map(lambda h: 2 * h))
def test_pe_values_in_unit_interval_and_rows_distinct(n, d):
    pe = positional_encoding(n, d)
    assert pe.shape == (n, d)
    assert np.all(pe >= -1.0) and np.all(pe <= 1.0)
    # each row is (sin, cos) pairs → every pair has length 1, row norm² = d/2
    np.testing.assert_allclose(np.sum(pe ** 2, axis=1), d / 2, atol=1e-12)


@pytest.mark.parametrize("n, d", [(3, 5), (3, 1), (0, 4), (-1, 4), (2.5, 4), (3, 0), (True, 4)])
def test_pe_bad_input(n, d):
    with pytest.raises(ValueError):
        positional_encoding(n, d)


def test_pe_odd_d_message_is_japanese():
    with pytest.raises(ValueError, match="偶数"):
        positional_encoding(3, 5)
    with pytest.raises(ValueError, match="偶数"):
        positional_encoding_swapped(3, 3)
    with pytest.raises(ValueError, match="base"):
        positional_encoding(3, 4, base=1.0)


# --- learned table ----------------------------------------------------------------------
def test_learned_table_seeded_and_scaled():
    a = learned_position_table(64, 16, np.random.default_rng(0))
    b = learned_position_table(64, 16, np.random.default_rng(0))
    c = learned_position_table(64, 16, np.random.default_rng(1))
    assert a.shape == (64, 16)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert 0.015 < a.std() < 0.025
    assert learned_position_table(3, 4, np.random.default_rng(0), scale=0.0).tolist() == [[0.0] * 4] * 3
    with pytest.raises(ValueError):
        learned_position_table(3, 4, 42)
    with pytest.raises(ValueError):
        learned_position_table(3, 4, np.random.default_rng(0), scale=-1)


# --- adding PE ----------------------------------------------------------------------------
def test_add_positional_encoding_textbook_x():
    pe = positional_encoding(10, 4)
    out = add_positional_encoding(tb.X, pe)
    assert out.shape == (3, 4)
    np.testing.assert_array_equal(out, np.asarray(tb.X) + pe[:3])
    assert out[1].round(4).tolist() == [0.8415, 1.5403, 0.0100, 2.0000]
    # batched input
    batch = np.stack([tb.X, tb.X])
    assert add_positional_encoding(batch, pe).shape == (2, 3, 4)


def test_add_positional_encoding_does_not_mutate():
    x = np.ones((3, 4))
    pe = positional_encoding(3, 4)
    x_before, pe_before = x.copy(), pe.copy()
    add_positional_encoding(x, pe)
    np.testing.assert_array_equal(x, x_before)
    np.testing.assert_array_equal(pe, pe_before)


def test_add_positional_encoding_bad_shapes():
    with pytest.raises(ValueError, match="d_model"):
        add_positional_encoding(np.ones((3, 4)), positional_encoding(3, 6))
    with pytest.raises(ValueError, match="行数"):
        add_positional_encoding(np.ones((5, 4)), positional_encoding(3, 4))
    with pytest.raises(ValueError):
        add_positional_encoding(np.ones(4), positional_encoding(3, 4))


# --- RoPE -----------------------------------------------------------------------------------
def test_rope_hand_values():
    # d = 2: a single pair rotated by θ = pos radians
    x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    out = rope(x)
    np.testing.assert_allclose(out[0], [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(out[1], [np.cos(1), np.sin(1)], atol=1e-15)
    np.testing.assert_allclose(out[2], [-np.sin(2), np.cos(2)], atol=1e-15)
    # d = 4, pos = 1: second pair turns by 0.01 rad
    out4 = rope(np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]]))
    np.testing.assert_allclose(out4[1], [0, 0, np.cos(0.01), np.sin(0.01)], atol=1e-15)
    # position 0 changes nothing
    np.testing.assert_array_equal(rope(tb.X, positions=[0, 0, 0]), tb.X)


def test_rope_angles_shape_and_values():
    ang = rope_angles(np.arange(3), 4)
    assert ang.shape == (3, 2)
    np.testing.assert_allclose(ang[2], [2.0, 0.02])


def test_rope_batched_and_explicit_positions():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 5, 6))                      # (h, n, d)
    out = rope(q)
    assert out.shape == (2, 5, 6)
    for h in range(2):
        np.testing.assert_allclose(out[h], rope(q[h]), atol=1e-15)
    np.testing.assert_allclose(rope(q, positions=np.arange(5) + 10)[0], rope(q[0], np.arange(10, 15)))


def test_rope_bad_input():
    with pytest.raises(ValueError, match="偶数"):
        rope(np.ones((3, 3)))
    with pytest.raises(ValueError, match="positions"):
        rope(np.ones((3, 4)), positions=[0, 1])
    with pytest.raises(ValueError):
        rope(np.ones(4))
    with pytest.raises(ValueError):
        rope_score(np.ones(4), np.ones(2), 0, 1)


@FAST
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 4).map(lambda h: 2 * h)), elements=finite))
def test_rope_preserves_row_norms(x):
    out = rope(x, positions=np.arange(x.shape[0]) * 7 + 3)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), atol=1e-9)


@FAST
@given(
    st.integers(1, 8).flatmap(lambda h: st.tuples(
        hnp.arrays(np.float64, (2 * h,), elements=finite),
        hnp.arrays(np.float64, (2 * h,), elements=finite))),
    st.integers(0, 200), st.integers(0, 200), st.integers(-100, 500),
)
def test_rope_score_depends_only_on_offset(qk, m, n, t):
    q, k = qk
    if m + t < 0 or n + t < 0:
        t = -min(m, n)
    assert rope_score(q, k, m, n) == pytest.approx(rope_score(q, k, m + t, n + t), abs=1e-9)
    # same position → plain dot product (the rotations cancel)
    assert rope_score(q, k, m, m) == pytest.approx(float(q @ k), abs=1e-9)


def test_rope_score_changes_with_offset():
    q = np.array([1.0, 0.0, 1.0, 0.0])
    assert rope_score(q, q, 0, 0) == pytest.approx(2.0)
    assert rope_score(q, q, 1, 0) == pytest.approx(np.cos(1) + np.cos(0.01))
    assert rope_score(q, q, 3, 1) == pytest.approx(rope_score(q, q, 2, 0))


# --- why position information is needed: permutation equivariance ------------------------
PERM = np.array([2, 0, 1])   # それ, 猫, 魚


def _self_attention(x):
    return tutor.attention(x @ tb.W_Q, x @ tb.W_K, x @ tb.W_V).output


def test_self_attention_without_pe_is_permutation_equivariant():
    x = np.asarray(tb.X)
    np.testing.assert_allclose(_self_attention(x[PERM]), _self_attention(x)[PERM], atol=1e-12)


def test_self_attention_with_pe_is_not_permutation_equivariant():
    x = np.asarray(tb.X)
    pe = positional_encoding(3, tb.D_MODEL)
    with_pe = _self_attention(add_positional_encoding(x, pe))
    permuted_then_pe = _self_attention(add_positional_encoding(x[PERM], pe))
    diff = np.max(np.abs(permuted_then_pe - with_pe[PERM]))
    assert diff > 1e-3


@FAST
@given(hnp.arrays(np.float64, (4, 4), elements=finite), st.permutations(range(4)))
def test_equivariance_property_random_x(x, perm):
    perm = np.array(perm)
    np.testing.assert_allclose(_self_attention(x[perm]), _self_attention(x)[perm], atol=1e-9)
