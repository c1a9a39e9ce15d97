"""tutor.multihead and tutor.masking: textbook figures (8.9, 8.10, G検定 page), properties, errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tutor
from tutor import textbook as tb

SETTINGS = settings(max_examples=40, deadline=None)


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


# ---------------------------------------------------------------------------
# masks (8.10, G検定 page)
# ---------------------------------------------------------------------------
def _scaled():
    return tutor.multihead.textbook_two_heads().head1.scaled


def test_masked_softmax_steps_textbook():
    s = tutor.mask.masked_softmax_steps(_scaled(), tutor.causal_mask(3))
    assert np.isneginf(s.additive[0, 1]) and s.additive[1, 0] == 0
    np.testing.assert_allclose(s.weights.round(3), [[1, 0, 0], [0.5, 0.5, 0], [0.053, 0.894, 0.053]])
    assert s.weights[0, 1] == 0.0 and s.weights[0, 2] == 0.0 and s.weights[1, 2] == 0.0  # exact zeros
    np.testing.assert_allclose(s.sums, 1.0)
    np.testing.assert_allclose(s.exps[0].round(2), [16.92, 0, 0])
    np.testing.assert_allclose(s.exps[1].round(2), [4.11, 4.11, 0])
    # それ's row is the same as without the mask
    np.testing.assert_allclose(s.weights[2], tutor.softmax(_scaled())[2])


def test_g_kentei_masked_key3():
    res = tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, tb.G_MASK_KEY3)
    np.testing.assert_allclose(res.weights[0].round(4), [0.6698, 0.3302, 0])
    s = tutor.mask.masked_softmax_steps(res.scaled, tb.G_MASK_KEY3)
    np.testing.assert_allclose(s.weights, res.weights)


def test_compare_mask_order_textbook():
    c = tutor.mask.compare_mask_order(_scaled(), tutor.causal_mask(3))
    np.testing.assert_allclose(c.right_sums, 1.0)
    np.testing.assert_allclose(c.wrong_sums.round(3), [0.673, 0.802, 1.0])
    np.testing.assert_allclose(c.lost.round(3), [0.327, 0.198, 0.0])
    np.testing.assert_allclose(c.wrong, tutor.mask_after_softmax(c.unmasked, tutor.causal_mask(3)))


@SETTINGS
@given(st.integers(1, 6), st.integers(0, 10_000))
def test_mask_order_properties(n, seed):
    scores = np.random.default_rng(seed).normal(0, 2, size=(n, n))
    mask = tutor.causal_mask(n)
    c = tutor.mask.compare_mask_order(scores, mask)
    np.testing.assert_allclose(c.right_sums, 1.0)
    assert (c.right[~mask] == 0).all() and (c.wrong[~mask] == 0).all()
    assert (c.wrong_sums <= 1 + 1e-12).all()
    assert c.wrong_sums[-1] == pytest.approx(1.0)        # the last row hides nothing
    # right order = the mistake renormalised
    np.testing.assert_allclose(c.right, c.wrong / c.wrong_sums[:, None])


def test_mask_errors():
    with pytest.raises(ValueError, match="すべてのキー"):
        tutor.mask.masked_softmax_steps(np.zeros((2, 2)), np.array([[True, False], [False, False]]))
    with pytest.raises(ValueError, match="形"):
        tutor.mask.masked_softmax_steps(np.zeros((2, 2)), np.ones((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="True / False"):
        tutor.mask.masked_softmax_steps(np.zeros((2, 2)), np.ones((2, 2)))


def test_combine_masks_causal_and_padding():
    m = tutor.mask.combine_masks(tutor.causal_mask(4), tutor.padding_mask(2, 4))
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]], dtype=bool)
    np.testing.assert_array_equal(m, expected)
    with pytest.raises(ValueError, match="合いません"):
        tutor.mask.combine_masks(tutor.causal_mask(3), tutor.causal_mask(4))
    with pytest.raises(ValueError, match="1 つも"):
        tutor.mask.combine_masks()


def test_pad_tokens_and_next_token_tasks():
    assert tutor.mask.pad_tokens(["猫", "は", "魚"], 2) == ("猫", "は", "[PAD]")
    with pytest.raises(ValueError, match="有効長"):
        tutor.mask.pad_tokens(["猫"], 2)
    tasks = tutor.mask.next_token_tasks(["猫", "は", "魚", "が", "好き"])
    assert len(tasks) == 4
    assert tasks[0] == (("猫",), "は")
    assert tasks[-1] == (("猫", "は", "魚", "が"), "好き")
    with pytest.raises(ValueError, match="2 トークン"):
        tutor.mask.next_token_tasks(["猫"])


def test_row_sums():
    np.testing.assert_allclose(tutor.row_sums([[0.2, 0.3], [1, 0]]), [0.5, 1.0])


def test_inputs_not_mutated():
    s = _scaled().copy()
    m = tutor.causal_mask(3)
    tutor.mask.compare_mask_order(s, m)
    np.testing.assert_array_equal(s, _scaled())
    assert m.sum() == 6


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
