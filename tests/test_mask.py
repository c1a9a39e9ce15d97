"""tutor.mask: masked softmax step by step, mask order, combined masks, padding labels, visible pairs."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tutor
from tutor import textbook as tb


SETTINGS = settings(max_examples=40)


# ---------------------------------------------------------------------------
# masks (8.10, G検定 page)
# ---------------------------------------------------------------------------
def _scaled():
    return tutor.multihead.textbook_two_heads().head1.scaled


def test_allowed_pairs():
    assert tutor.mask.allowed_pairs(4) == 10
    assert tutor.mask.allowed_pairs(4, "strict") == 6
    assert tutor.mask.allowed_pairs(4, "no_mask") == 16
    assert tutor.mask.allowed_pairs(4, "masked") == 6
    assert tutor.mask.allowed_pairs(4, "diagonal_only") == 4


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


def test_inputs_not_mutated():
    s = _scaled().copy()
    m = tutor.causal_mask(3)
    tutor.mask.compare_mask_order(s, m)
    np.testing.assert_array_equal(s, _scaled())
    assert m.sum() == 6
