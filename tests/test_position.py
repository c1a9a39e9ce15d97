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
import math

FAST = settings(max_examples=60)
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


FAST = settings(max_examples=40)



finite = st.floats(-4, 4, allow_nan=False, allow_infinity=False)


def test_pe_angle_mistakes():
    # d_model = 8, pos = 3, column 5 → i = 2: 3 / 10000^(4/8) = 0.03
    assert tutor.position.pe_angle_mistake(3, 5, 8) == pytest.approx(0.03)
    assert tutor.position.pe_angle_mistake(3, 5, 8, "column_as_i") == pytest.approx(3 / 10000 ** (10 / 8))
    assert tutor.position.pe_angle_mistake(3, 5, 8, "pos_i_swapped") == pytest.approx(2 / 10000 ** (6 / 8))
    assert tutor.position.pe_angle_mistake(3, 5, 8, "no_d_model") == pytest.approx(3 / 10000 ** 4)
    with pytest.raises(ValueError):
        tutor.position.pe_angle_mistake(3, 8, 8)
    with pytest.raises(ValueError):
        tutor.position.pe_angle_mistake(3, 1, 4, "nope")


@FAST
@given(st.integers(0, 30), st.sampled_from([4, 8, 16]), st.data())
def test_pe_value_correct_equals_table(pos, d, data):
    col = data.draw(st.integers(0, d - 1))
    assert tutor.position.pe_value_mistake(pos, col, d) == tutor.positional_encoding(pos + 1, d)[pos, col]
    assert tutor.position.pe_value_mistake(pos, col, d, "swapped") == tutor.position.positional_encoding_swapped(pos + 1, d)[pos, col]


def test_pe_value_figure_and_mistakes():
    assert round(tutor.position.pe_value_mistake(1, 3, 4), 5) == 0.99995                   # cos 0.01
    assert tutor.position.pe_value_mistake(1, 3, 4, "swapped") == pytest.approx(math.sin(0.01))
    assert tutor.position.pe_value_mistake(1, 3, 4, "no_rate") == pytest.approx(math.cos(1))
    assert tutor.position.pe_value_mistake(1, 3, 4, "column_as_i") == pytest.approx(math.cos(1 / 10000 ** (6 / 4)))


def test_pe_input_mistakes():
    x = np.array([1.0, -1.0, 0.0, 2.0])
    np.testing.assert_allclose(tutor.position.pe_input_mistake(x, 0), [1, 0, 0, 3])
    np.testing.assert_allclose(tutor.position.pe_input_mistake(x, 0, "no_pe"), x)
    np.testing.assert_allclose(tutor.position.pe_input_mistake(x, 0, "swapped"), [2, -1, 1, 2])
    np.testing.assert_allclose(tutor.position.pe_input_mistake(x, 0, "one_based"), x + tutor.positional_encoding(2, 4)[1])
    np.testing.assert_array_equal(x, [1.0, -1.0, 0.0, 2.0])                   # input not mutated


@FAST
@given(st.integers(0, 40), st.sampled_from((2, 4, 8, 16)))
def test_pe_input_mistakes_at_once_equal_the_tables(pos, d):
    x = np.arange(d, dtype=float) - 1.0
    r = tutor.position.pe_input_mistakes(x, pos)
    np.testing.assert_array_equal(r[None], x + tutor.positional_encoding(pos + 1, d)[pos])          # bit for bit
    np.testing.assert_array_equal(r["swapped"], x + tutor.position.positional_encoding_swapped(pos + 1, d)[pos])
    np.testing.assert_array_equal(r["one_based"], x + tutor.positional_encoding(pos + 2, d)[pos + 1])
    np.testing.assert_array_equal(r["no_pe"], x)
    assert r["no_pe"] is not x
    with pytest.raises(ValueError):
        tutor.position.pe_input_mistakes(x, -1)


def test_pe_breakdown_reproduces_seed_004():
    entries = tutor.position.pe_breakdown(1, 4)
    assert [e.column for e in entries] == [0, 1, 2, 3]
    assert [e.func for e in entries] == ["sin", "cos", "sin", "cos"]
    assert [e.i for e in entries] == [0, 0, 1, 1]
    assert [round(e.value, 4) for e in entries[:3]] == [0.8415, 0.5403, 0.0100]
    assert round(entries[3].value, 5) == 0.99995
    assert [e.angle for e in entries] == pytest.approx([1, 1, 0.01, 0.01])
    assert [e.rate for e in entries] == pytest.approx([1, 1, 0.01, 0.01])


@FAST
@given(st.integers(0, 60), st.integers(1, 16).map(lambda h: 2 * h))
def test_pe_breakdown_equals_table_row(pos, d):
    values = [e.value for e in tutor.position.pe_breakdown(pos, d)]
    np.testing.assert_allclose(values, tutor.positional_encoding(pos + 1, d)[pos], atol=1e-15)
    for e in tutor.position.pe_breakdown(pos, d):
        assert tutor.position.pe_component(pos, e.i, e.func, d) == pytest.approx(e.value, abs=1e-12)


def test_pe_angle_values():
    assert tutor.position.pe_angle(3, 2, 8) == pytest.approx(0.03)
    assert tutor.position.pe_angle(5, 1, 4) == pytest.approx(0.05)
    assert tutor.position.pe_angle(7, 0, 8) == 7.0
    with pytest.raises(ValueError):
        tutor.position.pe_component(1, 0, "tan", 4)


def test_permutation_demo_without_and_with_pe():
    no_pe = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, [2, 0, 1])
    assert no_pe.max_diff < 1e-12 and no_pe.equivariant
    pe = tutor.positional_encoding(3, 4)
    with_pe = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, [2, 0, 1], pe)
    assert round(with_pe.max_diff, 3) == 0.714
    assert not with_pe.equivariant
    # the permuted inputs keep PE at the POSITION: row 0 = それ + PE(0)
    np.testing.assert_allclose(with_pe.permuted_inputs[0], np.asarray(tb.X)[2] + pe[0])


def test_permutation_identity_is_trivially_equal():
    pe = tutor.positional_encoding(3, 4)
    assert tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, [0, 1, 2], pe).max_diff == 0.0


@pytest.mark.parametrize("perm", [[0, 0, 1], [0, 1], [0, 1, 3], [0.0, 1.0, 2.0]])
def test_permutation_bad_input(perm):
    with pytest.raises(ValueError, match="並べ替え"):
        tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, perm)


@FAST
@given(hnp.arrays(np.float64, (4, 4), elements=finite), st.permutations(range(4)))
def test_permutation_demo_property(x, perm):
    w = np.eye(4)
    assert tutor.position.permutation_demo(x, w, w, w, list(perm)).max_diff < 1e-9


def test_rope_offset_table_same_offset_same_score():
    q = np.array([1.0, 0.0, 1.0, 0.0])
    rows = tutor.position.rope_offset_table(q, q, [(1, 0), (5, 4), (12, 11)])
    assert [r.offset for r in rows] == [1, 1, 1]
    assert rows[0].rope == pytest.approx(np.cos(1) + np.cos(0.01))
    assert rows[1].rope == pytest.approx(rows[0].rope) and rows[2].rope == pytest.approx(rows[0].rope)
    # additive PE depends on the absolute position
    assert abs(rows[0].additive - rows[1].additive) > 0.1


@FAST
@given(st.integers(-5, 10), hnp.arrays(np.float64, (4,), elements=finite), hnp.arrays(np.float64, (4,), elements=finite))
def test_rope_shift_table_constant(offset, q, k):
    rows = tutor.position.rope_shift_table(q, k, offset, range(5, 30, 6))
    assert all(r.offset == offset for r in rows)
    np.testing.assert_allclose([r.rope for r in rows], rows[0].rope, atol=1e-9)


def test_rope_shift_negative_position_refused():
    with pytest.raises(ValueError, match="位置"):
        tutor.position.rope_shift_table([1, 0], [1, 0], -3, [0, 5])
