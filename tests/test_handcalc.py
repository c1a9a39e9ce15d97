"""tutor.handcalc and ui.handcalc: every element equals the engine (exact) and the seed (pencil); the LaTeX fits phones."""
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import tutor
from tutor import textbook as tb

from apphelpers import flat_tex


SEED_Z = [[1.510, 0.492], [1.000, 1.000], [0.159, 1.841]]


@pytest.fixture(scope="module")
def pencil():
    return tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3, tokens=tb.TOKENS)


@pytest.fixture(scope="module")
def exact():
    return tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, tokens=tb.TOKENS)



# --- properties: exact mode is numpy's arithmetic ------------------------------------------
finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@st.composite
def chains(draw):
    n, d_model, d_k, d_v = (draw(st.integers(1, 4)) for _ in range(4))
    x = draw(arrays(np.float64, (n, d_model), elements=finite))
    w_q, w_k = (draw(arrays(np.float64, (d_model, d_k), elements=finite)) for _ in range(2))
    w_v = draw(arrays(np.float64, (d_model, d_v), elements=finite))
    return x, w_q, w_k, w_v


# --- textbook figures ----------------------------------------------------------------------
def test_pencil_z_is_the_seed_z_exactly(pencil):
    # every entry is the 3-decimal number the seed prints, not merely close to it
    np.testing.assert_array_equal(pencil.z, SEED_Z)
    assert pencil.output.elements[0][0].latex == r"z_{11} = 0.673\times 2 + 0.164\times 0 + 0.164\times 1 = 1.510"
    assert pencil.weighted_sums[2].result == (0.159, 1.841)
    assert pencil.weighted_sums[0].latex.endswith("= (1.510, 0.492)")


def test_pencil_weights_and_scaled_scores(pencil):
    np.testing.assert_array_equal(pencil.weights, [[0.673, 0.164, 0.164], [0.401, 0.401, 0.198],
                                                   [0.053, 0.894, 0.053]])
    np.testing.assert_array_equal(pencil.scaled.result, [[2.828, 1.414, 1.414], [1.414, 1.414, 0.707],
                                                         [0, 2.828, 0]])
    row = pencil.softmax.rows[2]
    assert row.exps == (1.0, 16.912, 1.0) and row.total == 18.912
    assert "0.894" in row.elements[1].latex


def test_exact_z_and_intermediates(exact):
    np.testing.assert_array_equal(np.round(exact.z, 4), [[1.5093, 0.4907], [1, 1], [0.1586, 1.8414]])
    np.testing.assert_array_equal(exact.q.result, [[2, 1], [1, 1], [0, 2]])
    np.testing.assert_array_equal(exact.k.result, [[2, 0], [0, 2], [1, 0]])
    np.testing.assert_array_equal(exact.v.result, [[2, 0], [0, 2], [1, 1]])
    np.testing.assert_array_equal(exact.scores.result, [[4, 2, 2], [2, 2, 1], [0, 4, 0]])
    np.testing.assert_array_equal(np.round(exact.scaled.result, 2), [[2.83, 1.41, 1.41], [1.41, 1.41, 0.71],
                                                                     [0, 2.83, 0]])
    ref = tutor.attention(*(getattr(tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V), a) for a in "qkv"))
    np.testing.assert_allclose(exact.weights, ref.weights, rtol=1e-12)
    np.testing.assert_allclose(exact.z, ref.output, rtol=1e-12)
    assert exact.output.elements[0][0].latex.endswith(r"\approx 1.5093")


def test_q11_expansion_as_in_the_seed(exact):
    q11 = exact.q.elements[0][0]
    assert q11.label == "q_{11}"
    assert q11.terms == ((1, 0), (0, 0), (1, 2), (0, 1))
    assert q11.expression == r"1\times 0 + 0\times 0 + 1\times 2 + 0\times 1"
    assert q11.result == 2
    assert q11.latex == r"q_{11} = 1\times 0 + 0\times 0 + 1\times 2 + 0\times 1 = 2"
    # a negative factor is parenthesised: k_12 = 1×(−1) + 0×1 + 1×1 + 0×1 = 0
    assert exact.k.elements[0][1].expression == r"1\times (-1) + 0\times 1 + 1\times 1 + 0\times 1"


def test_shapes_table(exact):
    assert dict(exact.shapes()) == {"X": (3, 4), "Q": (3, 2), "K": (3, 2), "V": (3, 2), r"QK^\top": (3, 3),
                                    r"QK^\top/\sqrt{d_k}": (3, 3), "A": (3, 3), "Z": (3, 2)}


def test_pencil_round_is_half_up_on_decimal_digits():
    assert tutor.handcalc.pencil_round(0.1635, 3) == 0.164      # np.round gives 0.163 (binary 0.16349999…)
    assert tutor.handcalc.pencil_round(-0.0004, 3) == 0.0 and str(tutor.handcalc.pencil_round(-0.0004, 3)) == "0.0"
    np.testing.assert_array_equal(tutor.handcalc.pencil_round([[1.0005, -np.inf]], 3), [[1.001, -np.inf]])
    with pytest.raises(ValueError, match="decimals"):
        tutor.handcalc.pencil_round(1.0, 0)


def test_softmax_row_with_large_and_masked_scores():
    row = tutor.handcalc.softmax_row_step([1000.0, 1001.0, -np.inf], decimals=3)
    assert row.shift == 1001.0 and row.weights == (0.269, 0.731, 0.0)
    assert r"e^{-\infty} = 0" in row.exp_latex
    with pytest.raises(ValueError, match="−∞"):
        tutor.handcalc.softmax_row_step([-np.inf, -np.inf])


def test_bad_inputs_raise_japanese_errors():
    with pytest.raises(ValueError, match="行列積ができません"):
        tutor.handcalc.matmul_steps(np.ones((2, 3)), np.ones((2, 2)), "c")
    with pytest.raises(ValueError, match="W_K"):
        tutor.handcalc.hand_calculation(tb.X, tb.W_Q, np.ones((4, 3)), tb.W_V)
    with pytest.raises(ValueError, match="NaN"):
        tutor.handcalc.hand_calculation(np.full((3, 4), np.nan), tb.W_Q, tb.W_K, tb.W_V)


@settings(max_examples=60)
@given(chains())
def test_exact_chain_equals_numpy(chain):
    x, w_q, w_k, w_v = chain
    hc = tutor.handcalc.hand_calculation(x, w_q, w_k, w_v)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    np.testing.assert_allclose(hc.q.result, q, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(hc.scores.result, q @ k.T, rtol=1e-12, atol=1e-6)
    ref = tutor.attention(q, k, v)
    np.testing.assert_allclose(hc.weights, ref.weights, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(hc.z, ref.output, rtol=1e-9, atol=1e-6)
    for elem in hc.q.flat:  # each element is the sum of its listed products
        assert math.isclose(sum(a * b for a, b in elem.terms), elem.result, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=60)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)), elements=st.floats(-1e6, 1e6)))
def test_softmax_steps_equal_softmax(s):
    steps = tutor.handcalc.softmax_steps(s)
    np.testing.assert_allclose(steps.result, tutor.softmax(s), rtol=1e-9, atol=1e-15)
    for row in steps.rows:
        assert all(np.isfinite(row.exps)) and row.total > 0


@settings(max_examples=40)
@given(arrays(np.float64, (3, 3), elements=st.floats(0, 1)), arrays(np.float64, (3, 2), elements=finite),
       st.integers(1, 4))


def test_pencil_results_are_rounded_products_of_rounded_inputs(a, v, k):
    sums = tutor.handcalc.weighted_sum_steps(a, v, decimals=k)
    expected = tutor.handcalc.pencil_round(tutor.handcalc.pencil_round(a, k) @ tutor.handcalc.pencil_round(v, k), k)
    np.testing.assert_array_equal(np.array([s.result for s in sums]), expected)


def test_no_input_is_mutated():
    x = np.array(tb.X)
    tutor.handcalc.hand_calculation(x, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    tutor.naive.naive_weaknesses(x)
    np.testing.assert_array_equal(x, tb.X)


def test_naive_steps_reproduce_8_2():
    ns = tutor.handcalc.naive_steps(tb.X, decimals=3, tokens=tb.TOKENS)
    np.testing.assert_array_equal(ns.scores.result, [[2, 0, 1], [0, 2, 1], [1, 1, 2]])
    np.testing.assert_array_equal(ns.weights[2], [0.212, 0.212, 0.576])
    np.testing.assert_array_equal(ns.z, [[0.910, 0.335, 0.665, 0.090], [0.335, 0.910, 0.090, 0.665],
                                         [0.788, 0.788, 0.212, 0.212]])
    assert ns.weighted_sums[2].latex.endswith("= (0.788, 0.788, 0.212, 0.212)")
    exact = tutor.handcalc.naive_steps(tb.X)
    ref = tutor.naive.naive_attention(tb.X)
    np.testing.assert_allclose(exact.weights, ref.weights, rtol=1e-12)
    np.testing.assert_allclose(exact.z, ref.output, rtol=1e-12)


def test_attention_steps_g_kentei_with_and_without_scaling():
    with_s = tutor.handcalc.attention_steps(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES)
    without = tutor.handcalc.attention_steps(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, scale=False)
    np.testing.assert_array_equal(np.round(with_s.weights, 4), [[0.4011, 0.1978, 0.4011]])
    np.testing.assert_array_equal(np.round(without.weights, 4), [[0.4223, 0.1554, 0.4223]])
    np.testing.assert_array_equal(np.round(with_s.z, 3), [[1.203, 1.192]])
    assert without.scaled is None and with_s.softmax.rows[0].total == pytest.approx(5.056, abs=1e-3)


def test_most_attended_on_the_textbook_weights(pencil):
    # ④: 「それ」 (row 3) gives 0.894 to 魚 (key 2); 猫 (row 1) gives 0.673 to itself
    assert tutor.most_attended(pencil.softmax.result, 2) == 1
    assert tutor.most_attended(pencil.softmax.result, 0) == 0
    assert tutor.most_attended([[0.5, 0.5]], 0) == 0          # a tie: the first key
    with pytest.raises(ValueError, match="範囲外"):
        tutor.most_attended([[1.0]], 1)


@settings(max_examples=60)
@given(arrays(np.float64, (3, 4), elements=st.floats(0, 1)), st.integers(0, 2))
def test_most_attended_is_the_row_argmax(a, i):
    before = a.copy()
    assert tutor.most_attended(a, i) == int(np.argmax(a[i]))
    assert np.array_equal(a, before)


def test_step_latex_is_broken_for_phones_without_changing_it():
    from ui.handcalc import LINE_CHARS, _visible_len, element_latex, fit, softmax_row_latex

    hc = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    ns = tutor.handcalc.naive_steps(tb.X, decimals=3)
    elems = list(hc.q.flat) + list(hc.output.flat) + list(ns.output.flat) + list(hc.softmax.rows[0].elements)
    for elem in elems:
        tex = element_latex(elem)
        assert flat_tex(tex).strip() == flat_tex(elem.latex).strip()
        for line in re.sub(r"\\(begin|end)\{aligned\}", "", tex).split(r"\\"):
            assert _visible_len(line) <= LINE_CHARS or len(elem.parts) == 1, line
    ws = ns.weighted_sums[2]
    assert flat_tex(fit(ws.label, ws.parts, ws.tail)).strip() == flat_tex(ws.latex).strip()
    assert len(softmax_row_latex(hc.softmax.rows[2])) == 2 + 3



def test_softmax_row_step_digits_is_display_only():
    exact = tutor.handcalc.softmax_row_step([20, 10, 0])
    five = tutor.handcalc.softmax_row_step([20, 10, 0], digits=5)
    assert five.weights == exact.weights                               # same numbers, more decimals
    assert five.elements[0].tail.endswith(r"\approx 0.99995")
    assert exact.elements[0].tail.endswith(r"\approx 1.0000")
    assert five.elements[1].tail.endswith(r"\approx 4.5\times 10^{-5}")
    assert exact.elements[1].tail.endswith(r"\approx 4.54\times 10^{-5}")  # default unchanged
    with pytest.raises(ValueError, match="digits"):
        tutor.handcalc.softmax_row_step([2, 1, 0], decimals=3, digits=5)
