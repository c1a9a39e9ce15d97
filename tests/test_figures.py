"""Every figure of the course's worked example that tutor/core.py computes.

The figures are the numbers printed in the source texts (the Japanese documents the course was
written from; they are kept outside the repository, see tests/seedtext.py). Each expected number is
copied into this file, so it needs none of them: each test feeds the example's inputs
(tutor.textbook) to the engine and compares the engine's result with the printed number, rounded
the way the source ("the seed") rounds it.

Not here (owned by the modules that compute them, tested by their authors): positional
encoding, temperature, Table 1 cost, the hand-calculation stepper that rounds
intermediates to 3 decimals (seed Z ≈ [[1.510, 0.492], …]).
"""
import numpy as np
import pytest

import tutor
from tutor import textbook as tb


def rounded(x, decimals):
    """The engine's value rounded as the seed rounds it (float64 array)."""
    return np.round(np.asarray(x, dtype=np.float64), decimals)


def assert_seed(actual, expected, decimals):
    """actual, rounded to `decimals`, equals the seed's printed numbers exactly."""
    np.testing.assert_array_equal(rounded(actual, decimals), np.asarray(expected, dtype=np.float64))


@pytest.fixture(scope="module")
def qkv():
    return tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)


@pytest.fixture(scope="module")
def hand(qkv):
    """8.6: the full hand calculation, d_k = d_v = 2."""
    return tutor.attention(qkv.q, qkv.k, qkv.v)


@pytest.fixture(scope="module")
def g_result():
    """004 (G検定 page): one query, three keys, d_k = 2."""
    return tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES)


# ---------------------------------------------------------------------------
# 8.2 naive attention: S = X Xᵀ, A = softmax(S), Z = A X
# ---------------------------------------------------------------------------
def test_naive_scores_are_x_xt():
    r = tutor.naive.naive_attention(tb.X)
    np.testing.assert_array_equal(r.scores, [[2, 0, 1], [0, 2, 1], [1, 1, 2]])


def test_naive_weight_rows():
    r = tutor.naive.naive_attention(tb.X)
    assert_seed(r.weights[0], [0.665, 0.090, 0.245], 3)  # 猫
    assert_seed(r.weights[1], [0.090, 0.665, 0.245], 3)  # 魚
    assert_seed(r.weights[2], [0.212, 0.212, 0.576], 3)  # それ


def test_naive_output_rows():
    r = tutor.naive.naive_attention(tb.X)
    assert_seed(r.output[0], [0.910, 0.335, 0.665, 0.090], 3)  # 猫
    assert_seed(r.output[1], [0.335, 0.910, 0.090, 0.665], 3)  # 魚
    assert_seed(r.output[2], [0.788, 0.788, 0.212, 0.212], 3)  # それ


def test_naive_sore_looks_mostly_at_itself():
    # the point of 8.2: without W_Q/W_K, それ's largest weight is on それ itself, not 魚
    w = tutor.naive.naive_attention(tb.X).weights
    assert int(np.argmax(w[2])) == tb.TOKENS.index("それ")


# ---------------------------------------------------------------------------
# 8.6 full hand calculation
# ---------------------------------------------------------------------------
def test_q_k_v(qkv):
    np.testing.assert_array_equal(qkv.q, [[2, 1], [1, 1], [0, 2]])
    np.testing.assert_array_equal(qkv.k, [[2, 0], [0, 2], [1, 0]])
    np.testing.assert_array_equal(qkv.v, [[2, 0], [0, 2], [1, 1]])


def test_scores_qkt(hand):
    np.testing.assert_array_equal(hand.scores, [[4, 2, 2], [2, 2, 1], [0, 4, 0]])


def test_scaled_scores(hand):
    assert hand.divisor == pytest.approx(np.sqrt(2), abs=0)
    assert_seed(hand.scaled, [[2.83, 1.41, 1.41], [1.41, 1.41, 0.71], [0, 2.83, 0]], 2)


def test_weights(hand):
    assert_seed(hand.weights, [[0.673, 0.164, 0.164],
                               [0.401, 0.401, 0.198],
                               [0.053, 0.894, 0.053]], 3)


def test_output_exact(hand):
    assert_seed(hand.output, [[1.5093, 0.4907], [1, 1], [0.1586, 1.8414]], 4)


def test_sore_now_looks_at_fish(hand):
    # the point of 8.3–8.6: with learned W_Q/W_K, それ attends mostly to 魚
    assert int(np.argmax(hand.weights[2])) == tb.TOKENS.index("魚")


def test_no_mask_means_masked_equals_scaled(hand):
    np.testing.assert_array_equal(hand.masked, hand.scaled)


# ---------------------------------------------------------------------------
# 8.4 scaling: softmax saturation and √d_k
# ---------------------------------------------------------------------------
def test_softmax_2_1_0():
    assert_seed(tutor.softmax(tb.SATURATION_SCORES[0]), [0.665, 0.245, 0.090], 3)


def test_softmax_20_10_0_saturates():
    p = tutor.softmax(tb.SATURATION_SCORES[1])
    assert round(p[0], 5) == 0.99995
    assert round(p[1], 6) == 0.000045
    assert round(p[2], 10) == 0.0000000021


def test_softmax_16_8_0_saturates():
    p = tutor.softmax(tb.SATURATION_SCORES[2])
    assert round(p[0], 5) == 0.99966
    assert round(p[1], 5) == 0.00034
    assert round(p[2], 7) == 0.0000001


def test_16_8_0_over_sqrt_64_is_2_1_0_via_attention_divisor():
    # build one query/three keys with d_k = 64 whose dot products are exactly (16, 8, 0);
    # attention divides by its own √d_k (= 8) and must land on (2, 1, 0).
    d_k = tb.SATURATION_D_K
    q = np.zeros((1, d_k))
    q[0, 0] = 1.0
    k = np.zeros((3, d_k))
    k[:, 0] = tb.SATURATION_SCORES[2]
    v = np.eye(3)
    r = tutor.attention(q, k, v)
    assert r.divisor == 8.0
    np.testing.assert_array_equal(r.scores[0], [16, 8, 0])
    np.testing.assert_array_equal(r.scaled[0], [2, 1, 0])
    # … and the weights are then the mild softmax(2, 1, 0), not the saturated one
    assert_seed(r.weights[0], [0.665, 0.245, 0.090], 3)


@pytest.mark.parametrize("d_k, spread", [(2, 1.4), (64, 8.0), (512, 22.6)])
def test_typical_spread_is_sqrt_dk_via_attention_divisor(d_k, spread):
    # The seed's spread ±√d_k is exactly what attention divides by: the engine's .divisor.
    q = np.ones((1, d_k))
    r = tutor.attention(q, np.ones((1, d_k)), np.ones((1, 1)))
    assert round(r.divisor, 1) == spread


def test_forgetting_the_scale_uses_divisor_one():
    q = np.ones((1, 64))
    r = tutor.attention(q, q, np.ones((1, 1)), scale=False)
    assert r.divisor == 1.0
    np.testing.assert_array_equal(r.scaled, r.scores)


# ---------------------------------------------------------------------------
# 8.9 multi-head: head 2, concat, W_O
# ---------------------------------------------------------------------------
SORE = tb.TOKENS.index("それ")


def test_head2_sore_row():
    head2 = tb.HEAD2_WEIGHTS @ tb.HEAD2_VALUES  # (3, 2): the seed gives weights and values directly
    assert_seed(head2[SORE], [1.0, 1.7], 1)


def _multi_head_concat(hand):
    head2 = tb.HEAD2_WEIGHTS @ tb.HEAD2_VALUES                   # (3, 2)
    return tutor.merge_heads(np.stack([hand.output, head2]))     # (3, 4)


def test_concat_sore_row(hand):
    concat = _multi_head_concat(hand)
    assert concat.shape == (3, 4)
    assert_seed(concat[SORE], [0.159, 1.841, 1.0, 1.7], 3)
    # the first two columns are head 1 (8.6), the last two head 2, in order
    np.testing.assert_array_equal(concat[:, :2], hand.output)


def test_w_o_mixes_the_heads(hand):
    out = _multi_head_concat(hand) @ tb.W_O                      # (3, 4)
    assert_seed(out[SORE], [1.859, 2.841, 1.0, 1.7], 3)


def test_split_heads_undoes_merge_heads(hand):
    concat = _multi_head_concat(hand)
    heads = tutor.split_heads(concat, 2)                         # (2, 3, 2)
    np.testing.assert_array_equal(heads[0], hand.output)
    np.testing.assert_array_equal(heads[1], tb.HEAD2_WEIGHTS @ tb.HEAD2_VALUES)


def test_paper_dimensions():
    assert tutor.head_dim(tb.PAPER_D_MODEL, tb.PAPER_HEADS) == 64


# ---------------------------------------------------------------------------
# 8.10 causal mask
# ---------------------------------------------------------------------------
def test_causal_mask_weights(qkv):
    r = tutor.attention(qkv.q, qkv.k, qkv.v, tutor.causal_mask(3))
    assert_seed(r.weights, [[1, 0, 0], [0.5, 0.5, 0], [0.053, 0.894, 0.053]], 3)
    # the hidden entries are exact zeros, not merely tiny
    assert r.weights[0, 1] == 0.0 and r.weights[0, 2] == 0.0 and r.weights[1, 2] == 0.0
    assert np.isneginf(r.masked[0, 1]) and np.isneginf(r.masked[1, 2])
    # 猫 can only see itself: its output is its own value
    np.testing.assert_array_equal(r.output[0], qkv.v[0])


# ---------------------------------------------------------------------------
# 004 G検定 example
# ---------------------------------------------------------------------------
def test_g_dot_products(g_result):
    np.testing.assert_array_equal(g_result.scores, [[1, 0, 1]])


def test_g_scaled(g_result):
    assert_seed(g_result.scaled, [[0.7071, 0, 0.7071]], 4)


def test_g_exp_and_sum_from_the_weights(g_result):
    # e^0.7071 ≈ 2.028 and the sum 5.056, read back from the engine's weights:
    # w_j = e^{s_j} / Σ, and s_2 = 0 so Σ = 1 / w_2 and e^{s_1} = w_1 / w_2.
    w = g_result.weights[0]
    assert round(w[0] / w[1], 3) == 2.028
    assert round(1.0 / w[1], 3) == 5.056


def test_g_weights(g_result):
    assert_seed(g_result.weights, [[0.4011, 0.1978, 0.4011]], 4)


def test_g_output(g_result):
    assert_seed(g_result.output, [[1.203, 1.192]], 3)


def test_g_without_scaling():
    r = tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, scale=False)
    assert_seed(r.weights, [[0.4223, 0.1554, 0.4223]], 4)


def test_g_masking_key_3():
    r = tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, tb.G_MASK_KEY3)
    assert_seed(r.weights, [[0.6698, 0.3302, 0.0]], 4)
    assert r.weights[0, 2] == 0.0


# ---------------------------------------------------------------------------
# numerically stable softmax
# ---------------------------------------------------------------------------
def test_softmax_1000_1001_does_not_overflow():
    with np.errstate(all="raise"):  # a naive exp(1000) would overflow and raise here
        p = tutor.softmax([1000, 1001])
    assert_seed(p, [0.269, 0.731], 3)
