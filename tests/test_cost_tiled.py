"""tutor.cost (tiled attention): tiled attention with online softmax equals plain attention exactly."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb
from tutor.cost import online_softmax_trace, tiled_attention

FAST = settings(max_examples=80)


def _plain(q, k, v, causal=False, scale=True):
    mask = tutor.causal_mask(q.shape[-2]) if causal else None
    return tutor.attention(q, k, v, mask, scale=scale).output


@st.composite
def qkv_case(draw):
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 8))
    d_v = draw(st.integers(1, 5))
    lead = draw(st.sampled_from([(), (2,), (2, 3)]))
    block = draw(st.integers(1, 48))
    elems = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
    q = draw(hnp.arrays(np.float64, lead + (n, d), elements=elems))
    k = draw(hnp.arrays(np.float64, lead + (n, d), elements=elems))
    v = draw(hnp.arrays(np.float64, lead + (n, d_v), elements=elems))
    return q, k, v, block


@FAST
@given(qkv_case(), st.booleans(), st.booleans())
def test_equals_plain_attention(case, causal, scale):
    q, k, v, block = case
    r = tiled_attention(q, k, v, block_size=block, causal=causal, scale=scale)
    ref = _plain(q, k, v, causal, scale)
    np.testing.assert_allclose(r.output, ref, rtol=0, atol=1e-12)
    n = q.shape[-2]
    b = min(block, n)
    assert r.peak_score_elements <= block * block
    assert r.peak_score_elements == b * b
    assert r.full_score_elements == n * n


@FAST
@given(qkv_case(), st.integers(1, 20), st.booleans())
def test_separate_query_block(case, q_block, causal):
    q, k, v, block = case
    r = tiled_attention(q, k, v, block, causal, q_block_size=q_block)
    np.testing.assert_allclose(r.output, _plain(q, k, v, causal), rtol=0, atol=1e-12)
    assert r.peak_score_elements <= q_block * block
    assert r.q_block_size == q_block and r.block_size == block


@FAST
@given(qkv_case())
def test_running_stats_are_logsumexp(case):
    q, k, v, block = case
    r = tiled_attention(q, k, v, block)
    scaled = tutor.attention(q, k, v).scaled
    expected = scaled.max(axis=-1) + np.log(np.exp(scaled - scaled.max(axis=-1, keepdims=True)).sum(axis=-1))
    np.testing.assert_allclose(r.logsumexp, expected, atol=1e-12)
    np.testing.assert_allclose(r.row_max, scaled.max(axis=-1), atol=1e-12)


def test_textbook_hand_calculation():
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    for block in (1, 2, 3, 64):
        r = tiled_attention(qkv.q, qkv.k, qkv.v, block_size=block)
        assert np.round(r.output, 4).tolist() == [[1.5093, 0.4907], [1.0, 1.0], [0.1586, 1.8414]]
    causal = tiled_attention(qkv.q, qkv.k, qkv.v, block_size=1, causal=True)
    np.testing.assert_allclose(causal.output[0], qkv.v[0], atol=1e-15)   # 猫 sees only itself
    np.testing.assert_allclose(causal.output, _plain(qkv.q, qkv.k, qkv.v, True), atol=1e-15)


def test_g_kentei_example():
    r = tiled_attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, block_size=2)
    assert np.round(r.output, 3).tolist() == [[1.203, 1.192]]
    assert r.blocks_computed == 2


def test_causal_skips_tiles_above_diagonal():
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(8, 4)) for _ in range(3))
    full = tiled_attention(q, k, v, block_size=2)
    causal = tiled_attention(q, k, v, block_size=2, causal=True)
    assert full.blocks_computed == 16 and full.blocks_skipped == 0
    assert causal.blocks_computed == 10 and causal.blocks_skipped == 6   # 4·5/2 on or below the diagonal
    assert causal.blocks_computed + causal.blocks_skipped == 16
    # block not dividing n: 7 tokens, block 3 → 3×3 tiles, 3 above the diagonal
    q7, k7, v7 = q[:7], k[:7], v[:7]
    r7 = tiled_attention(q7, k7, v7, block_size=3, causal=True)
    assert r7.blocks_computed == 6 and r7.blocks_skipped == 3
    assert r7.peak_score_elements == 9


def test_peak_is_much_smaller_than_full_matrix():
    rng = np.random.default_rng(2)
    q, k, v = (rng.normal(size=(256, 8)) for _ in range(3))
    r = tiled_attention(q, k, v, block_size=32)
    assert r.peak_score_elements == 32 * 32
    assert r.full_score_elements == 256 * 256
    np.testing.assert_allclose(r.output, _plain(q, k, v), atol=1e-12)


def test_large_scores_do_not_overflow():
    # scores of hundreds: exp would overflow without the running max
    q = np.array([[30.0, 0.0], [0.0, 30.0]])
    k = np.array([[30.0, 0.0], [0.0, 30.0], [20.0, 20.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    with np.errstate(over="raise", invalid="raise"):
        r = tiled_attention(q, k, v, block_size=1)
    np.testing.assert_allclose(r.output, _plain(q, k, v), atol=1e-12)


def test_does_not_mutate_inputs():
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(2, 9, 4)) for _ in range(3))
    copies = [a.copy() for a in (q, k, v)]
    tiled_attention(q, k, v, block_size=4, causal=True)
    for a, c in zip((q, k, v), copies):
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("block", [0, -3, 2.5, "8", True, None])
def test_block_size_validation(block):
    q = np.ones((4, 2))
    with pytest.raises(ValueError, match="block_size"):
        tiled_attention(q, q, q, block_size=block)


def test_shape_validation():
    q = np.ones((4, 2))
    with pytest.raises(ValueError, match="d_k"):
        tiled_attention(q, np.ones((4, 3)), q)
    with pytest.raises(ValueError, match="トークン数"):
        tiled_attention(q, q, np.ones((5, 2)))
    with pytest.raises(ValueError, match="因果マスク"):
        tiled_attention(q, np.ones((5, 2)), np.ones((5, 2)), causal=True)
    with pytest.raises(ValueError, match="先頭の次元"):
        tiled_attention(np.ones((2, 4, 2)), np.ones((3, 4, 2)), np.ones((3, 4, 2)))
    with pytest.raises(ValueError):
        tiled_attention(np.full((4, 2), np.nan), q, q)
    with pytest.raises(ValueError, match="q_block_size"):
        tiled_attention(q, q, q, q_block_size=0)


def test_online_softmax_trace():
    steps, probs = online_softmax_trace([1.0, 3.0, 2.0, 5.0, 0.0], block_size=2)
    np.testing.assert_allclose(probs, tutor.softmax([1.0, 3.0, 2.0, 5.0, 0.0]), atol=1e-15)
    assert len(steps) == 3
    assert steps[0].max_before == -np.inf and steps[0].max_after == 3.0 and steps[0].correction == 0.0
    assert steps[1].max_after == 5.0
    assert steps[1].correction == pytest.approx(np.exp(3.0 - 5.0))
    assert steps[2].max_after == 5.0 and steps[2].correction == 1.0
    assert steps[-1].sum_after == pytest.approx(np.exp(np.array([1, 3, 2, 5, 0]) - 5.0).sum())
    assert steps[2].block.tolist() == [0.0]
    with pytest.raises(ValueError):
        online_softmax_trace([[1.0, 2.0]], 2)
