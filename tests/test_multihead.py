"""tutor.multihead: textbook figures (8.9, 8.10), concat + W_O, head sizes and parameter counts with their named mistakes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb


FAST = settings(max_examples=40)



SETTINGS = settings(max_examples=40)


def test_multihead_sizes_and_counts_paper():
    assert tutor.multihead.head_dim_mistake(512, 8) == 64
    assert tutor.multihead.head_dim_mistake(512, 8, "no_split") == 512
    assert tutor.multihead.head_dim_mistake(512, 8, "multiplied") == 4096
    assert tutor.multihead.head_dim_mistake(512, 8, "swapped") == 8
    assert tutor.multihead.concat_width(512, 8) == 512
    assert tutor.multihead.concat_width(512, 8, "no_split") == 4096
    assert tutor.multihead.concat_width(512, 8, "summed") == 64
    assert tutor.multihead.mha_param_count_mistake(512, 8) == 1_048_576
    assert tutor.multihead.mha_param_count_mistake(512, 8, "one_matrix") == 262_144
    assert tutor.multihead.mha_param_count_mistake(512, 8, "no_w_o") == 786_432
    assert tutor.multihead.mha_param_count_mistake(512, 8, "per_head_full") == 8 * 1_048_576
    assert tutor.multihead.mha_param_count_mistake(512, 8, bias=True) == 1_048_576 + 2048
    assert tutor.multihead.mha_param_count_mistake(512, 8, "no_bias", bias=True) == 1_048_576
    with pytest.raises(ValueError, match="割り切れません"):
        tutor.multihead.head_dim_mistake(10, 3)


def test_combine_heads_textbook_row():
    # それ: head 1 (0.159, 1.841) [rounded], head 2 (1.0, 1.7) → (1.859, 2.841, 1.0, 1.7)
    heads = np.array([[0.159, 1.841], [1.0, 1.7]])
    np.testing.assert_allclose(tutor.multihead.combine_heads_mistake(heads, tb.W_O)[0], [1.859, 2.841, 1.0, 1.7])
    np.testing.assert_allclose(tutor.multihead.combine_heads_mistake(heads, tb.W_O, "no_w_o")[0], [0.159, 1.841, 1.0, 1.7])
    np.testing.assert_allclose(tutor.multihead.combine_heads_mistake(heads, tb.W_O, "reversed_order")[0],
                               np.array([1.0, 1.7, 0.159, 1.841]) @ tb.W_O)
    np.testing.assert_allclose(tutor.multihead.combine_heads_mistake(heads, tb.W_O, "w_o_transposed")[0],
                               np.array([0.159, 1.841, 1.0, 1.7]) @ tb.W_O.T)


@FAST
@given(hnp.arrays(np.float64, (2, 2), elements=st.integers(0, 3).map(float)),
       hnp.arrays(np.float64, (4, 4), elements=st.integers(-1, 2).map(float)))


def test_combine_heads_variants_equal_one_call_per_mistake(heads, w_o):
    mistakes = (None,) + tutor.multihead.COMBINE_MISTAKES
    got = tutor.multihead.combine_heads_variants(heads, w_o, mistakes)
    for m, r in zip(mistakes, got):
        np.testing.assert_array_equal(r, tutor.multihead.combine_heads_mistake(heads, w_o, m))          # bit for bit
    engine = tutor.multihead.combine_heads([row[None, :] for row in heads], w_o)
    np.testing.assert_array_equal(got[0], engine.output)
    np.testing.assert_array_equal(got[1], engine.concat)
    np.testing.assert_array_equal(got[2], np.concatenate([heads[1], heads[0]])[None, :] @ w_o)
    with pytest.raises(ValueError):
        tutor.multihead.combine_heads_variants(heads, w_o[:3])


# ---------------------------------------------------------------------------
# multi-head (8.9)
# ---------------------------------------------------------------------------
def test_textbook_two_heads_figures():
    ex = tutor.multihead.textbook_two_heads()
    np.testing.assert_allclose(ex.head1.weights[2].round(3), [0.053, 0.894, 0.053])
    np.testing.assert_allclose(ex.head1.output[2].round(3), [0.159, 1.841])
    np.testing.assert_allclose(ex.head2_output[2], [1.0, 1.7])
    np.testing.assert_allclose(ex.combined.concat[2].round(3), [0.159, 1.841, 1.0, 1.7])
    np.testing.assert_allclose(ex.combined.output[2].round(3), [1.859, 2.841, 1.0, 1.7])
    assert ex.combined.concat.shape == (3, 4) and ex.combined.head_outputs.shape == (2, 3, 2)


def test_textbook_two_heads_matches_core_per_head_form():
    """Head 1 through multi_head_attention_per_head gives the same first half of the concat."""
    ex = tutor.multihead.textbook_two_heads()
    res = tutor.multi_head_attention_per_head(tb.X, [(tb.W_Q, tb.W_K, tb.W_V)], np.eye(2))
    np.testing.assert_allclose(res.concat, ex.combined.concat[:, :2])


def test_matmul_and_errors():
    np.testing.assert_allclose(tutor.matmul([[1, 2]], [[3], [4]]), [[11]])
    np.testing.assert_allclose(tutor.matmul([1, 2], [[3], [4]]), [11])
    with pytest.raises(ValueError, match="掛けられません"):
        tutor.matmul(np.ones((2, 3)), np.ones((2, 3)), "Concat", "W_O")


def test_weighted_sum_checks():
    with pytest.raises(ValueError, match="合計が 1"):
        tutor.weighted_sum([[0.5, 0.4]], [[1], [2]])
    with pytest.raises(ValueError, match="負"):
        tutor.weighted_sum([[1.5, -0.5]], [[1], [2]])
    with pytest.raises(ValueError, match="一致しません"):
        tutor.weighted_sum([[0.5, 0.5]], [[1], [2], [3]])


def test_combine_heads_shape_error():
    with pytest.raises(ValueError, match="ヘッド 2"):
        tutor.multihead.combine_heads([np.ones((3, 2)), np.ones((3, 3))], np.eye(5))
    with pytest.raises(ValueError, match="1 つも"):
        tutor.multihead.combine_heads([], np.eye(2))


def test_init_multihead_params_shapes_seeded_and_error():
    p = tutor.multihead.init_multihead_params(12, 3, np.random.default_rng(0))
    assert p.n_heads == 3 and p.d_k == 4 and p.d_model == 12
    assert all(w.shape == (12, 4) for head in p.heads for w in head)
    assert p.w_o.shape == (12, 12)
    q = tutor.multihead.init_multihead_params(12, 3, np.random.default_rng(0))
    np.testing.assert_array_equal(p.heads[2][1], q.heads[2][1])
    assert not np.array_equal(p.heads[0][0], p.heads[1][0])  # every head owns its own W
    with pytest.raises(ValueError, match="割り切れません"):
        tutor.multihead.init_multihead_params(10, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="Generator"):
        tutor.multihead.init_multihead_params(8, 2, 0)


@SETTINGS
@given(st.sampled_from([(4, 1), (4, 2), (8, 4), (12, 3), (16, 8)]), st.integers(0, 10_000), st.integers(1, 5))
def test_live_heads_agree_with_combine_heads(dims, seed, n):
    d_model, h = dims
    rng = np.random.default_rng(seed)
    x = tutor.multihead.random_embeddings(n, d_model, rng)
    p = tutor.multihead.init_multihead_params(d_model, h, rng)
    res = tutor.multi_head_attention_per_head(x, p.heads, p.w_o)
    assert res.weights.shape == (h, n, n)
    np.testing.assert_allclose(res.weights.sum(axis=-1), 1.0)
    comb = tutor.multihead.combine_heads(list(res.head_outputs), p.w_o)
    np.testing.assert_allclose(comb.output, res.output)
    # loop reference: concat[:, i·d_k:(i+1)·d_k] is head i's own attention output
    for i, (wq, wk, wv) in enumerate(p.heads):
        qkv = tutor.project_qkv(x, wq, wk, wv)
        z = tutor.attention(qkv.q, qkv.k, qkv.v).output
        np.testing.assert_allclose(comb.concat[:, i * p.d_k:(i + 1) * p.d_k], z)


@SETTINGS
@given(st.floats(0, 1))
def test_blend_weights_rows_still_sum_to_one(t):
    ex = tutor.multihead.textbook_two_heads()
    b = tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, t)
    np.testing.assert_allclose(b.sum(axis=-1), 1.0)
    # the blended top weight never exceeds the larger of the two patterns' top weights
    assert (b.max(axis=-1) <= np.maximum(ex.head1.weights.max(axis=-1), ex.head2_weights.max(axis=-1)) + 1e-12).all()


def test_blend_weights_endpoints_and_errors():
    ex = tutor.multihead.textbook_two_heads()
    np.testing.assert_allclose(tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, 0), ex.head1.weights)
    np.testing.assert_allclose(tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, 1), ex.head2_weights)
    np.testing.assert_allclose(tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, 0.5)[1].round(4),
                               [0.6006, 0.2506, 0.1489])
    with pytest.raises(ValueError, match="t は 0 以上"):
        tutor.multihead.blend_weights(ex.head1.weights, ex.head2_weights, 1.5)
    with pytest.raises(ValueError, match="形が違います"):
        tutor.multihead.blend_weights(np.eye(2), np.eye(3), 0.5)


def test_head_cost_paper_figures():
    c = tutor.multihead.head_cost(100, 512, 8)
    assert c.d_k == 64
    assert c.params == 1_048_576 == tutor.multihead.mha_param_count(512) == c.params_qkv + c.params_o
    assert c.params_per_head == 3 * 512 * 64
    one = tutor.multihead.head_cost(100, 512, 1)
    assert (c.params, c.macs_projection, c.macs_scores, c.macs_values, c.macs) == \
           (one.params, one.macs_projection, one.macs_scores, one.macs_values, one.macs)
    assert c.macs_scores == 100 * 100 * 512
    assert c.softmax_exps == 8 * one.softmax_exps == 80_000
    with pytest.raises(ValueError, match="割り切れません"):
        tutor.multihead.head_cost(10, 512, 5)


@SETTINGS
@given(st.integers(1, 50), st.sampled_from([1, 2, 3, 4, 6, 12]))
def test_head_cost_independent_of_h_except_softmax(n, h):
    c, one = tutor.multihead.head_cost(n, 12, h), tutor.multihead.head_cost(n, 12, 1)
    assert c.macs == one.macs and c.params == one.params
    assert c.softmax_exps == h * n * n


def test_row_sums():
    np.testing.assert_allclose(tutor.row_sums([[0.2, 0.3], [1, 0]]), [0.5, 1.0])


def test_random_multihead_live_example():
    live = tutor.multihead.random_multihead(3, 8, 4, np.random.default_rng(1))
    assert live.result.weights.shape == (4, 3, 3)
    assert live.result.concat.shape == (3, 8) and live.result.output.shape == (3, 8)
    assert live.cost.d_k == 2 and live.cost_one_head.d_k == 8
    assert live.cost.params == live.cost_one_head.params == 256
    again = tutor.multihead.random_multihead(3, 8, 4, np.random.default_rng(1))
    np.testing.assert_array_equal(again.result.output, live.result.output)
    other = tutor.multihead.random_multihead(3, 8, 2, np.random.default_rng(1))
    assert other.result.weights.shape == (2, 3, 3)
    with pytest.raises(ValueError, match="d_model = 6 はヘッド数 h = 4 で割り切れません"):
        tutor.multihead.random_multihead(3, 6, 4, np.random.default_rng(1))
