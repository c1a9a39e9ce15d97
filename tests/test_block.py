"""tutor.block: LayerNorm / BatchNorm / RMSNorm, activations, FFN, SwiGLU, post-LN vs pre-LN."""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb
from tutor.block import (
    ACTIVATIONS,
    batch_norm,
    ffn,
    ffn_param_count,
    gelu,
    gelu_exact,
    init_ffn_params,
    init_swiglu_params,
    layer_norm_steps,
    post_ln_block,
    pre_ln_block,
    relu,
    residual,
    rms_norm,
    sigmoid,
    silu,
    swiglu_ffn,
    swiglu_param_count,
)
from tutor import layer_norm
from tutor.multihead import mha_param_count

FAST = settings(max_examples=60)
finite = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
matrices = hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(2, 8)), elements=finite)


# --- LayerNorm -----------------------------------------------------------------------------
def test_layer_norm_hand_values():
    out = layer_norm([1.0, 2.0, 3.0, 4.0], eps=0.0)
    np.testing.assert_allclose(out, np.array([-3, -1, 1, 3]) / math.sqrt(5), atol=1e-15)
    assert np.round(out, 3).tolist() == [-1.342, -0.447, 0.447, 1.342]
    # with the default eps = 1e-5 the values move only in the 6th decimal
    out_eps = layer_norm([1.0, 2.0, 3.0, 4.0])
    assert np.round(out_eps, 3).tolist() == [-1.342, -0.447, 0.447, 1.342]
    np.testing.assert_allclose(out_eps, np.array([-1.5, -0.5, 0.5, 1.5]) / math.sqrt(1.25 + 1e-5))


def test_layer_norm_steps_fields():
    s = layer_norm_steps(tb.X, eps=0.0)
    assert s.mean.tolist() == [0.5, 0.5, 0.5]
    assert s.var.tolist() == [0.25, 0.25, 0.25]
    assert s.std.tolist() == [0.5, 0.5, 0.5]
    assert s.normalized.tolist() == [[1, -1, 1, -1], [-1, 1, -1, 1], [1, 1, -1, -1]]
    np.testing.assert_array_equal(s.output, s.normalized)
    assert s.eps == 0.0


def test_layer_norm_gamma_beta():
    out = layer_norm([1.0, 2.0, 3.0, 4.0], eps=0.0, gamma=[2, 2, 2, 2], beta=[1, 0, 0, 0])
    np.testing.assert_allclose(out, 2 * np.array([-3, -1, 1, 3]) / math.sqrt(5) + [1, 0, 0, 0])
    with pytest.raises(ValueError, match="gamma"):
        layer_norm(np.ones((2, 4)), gamma=[1, 1])
    with pytest.raises(ValueError, match="beta"):
        layer_norm(np.ones((2, 4)), beta=np.ones(3))


def test_layer_norm_bad_input():
    with pytest.raises(ValueError, match="分散 0"):
        layer_norm([[1.0, 1.0, 1.0]], eps=0.0)
    np.testing.assert_array_equal(layer_norm([[1.0, 1.0, 1.0]]), [[0.0, 0.0, 0.0]])
    with pytest.raises(ValueError):
        layer_norm([1.0, np.nan])
    with pytest.raises(ValueError):
        layer_norm([1.0, 2.0], eps=-1)


@FAST
@given(matrices)
def test_layer_norm_mean0_var1(x):
    var = x.var(axis=-1)
    assume(np.all(var > 1e-3))
    out = layer_norm(x, eps=0.0)
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-6)
    np.testing.assert_allclose(out.var(axis=-1), 1.0, atol=1e-6)
    # with eps the variance is exactly σ²/(σ² + ε)
    out_eps = layer_norm(x, eps=1e-5)
    np.testing.assert_allclose(out_eps.var(axis=-1), var / (var + 1e-5), rtol=1e-9)


@FAST
@given(matrices, hnp.arrays(np.float64, 8, elements=finite))
def test_layer_norm_row_independent_of_other_rows_bn_is_not(x, other):
    # change every row except row 0: LayerNorm of row 0 must not move
    x2 = x.copy()
    x2[1:] = other[: x.shape[1]]
    np.testing.assert_array_equal(layer_norm(x2)[0], layer_norm(x)[0])
    np.testing.assert_array_equal(layer_norm(x[:1])[0], layer_norm(x)[0])


def test_batch_norm_depends_on_batch():
    batch_a = np.array([[1.0, 2.0, 3.0, 4.0], [3.0, 2.0, 1.0, 0.0]])
    batch_b = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 10.0, -3.0, 0.0]])
    # same first example, different partner → BatchNorm result for it changes, LayerNorm does not
    assert not np.allclose(batch_norm(batch_a)[0], batch_norm(batch_b)[0])
    np.testing.assert_array_equal(layer_norm(batch_a)[0], layer_norm(batch_b)[0])
    # hand value: per feature the two examples become −1 and +1
    bn = batch_norm(np.array([[1.0, 2.0], [3.0, 6.0]]), eps=0.0)
    assert bn.tolist() == [[-1.0, -1.0], [1.0, 1.0]]
    np.testing.assert_allclose(batch_norm(batch_b).mean(axis=0), 0.0, atol=1e-12)
    with pytest.raises(ValueError):
        batch_norm([1.0, 2.0])
    with pytest.raises(ValueError, match="分散が 0"):
        batch_norm(np.ones((3, 2)), eps=0.0)


def test_rms_norm():
    out = rms_norm([3.0, 4.0], eps=0.0)            # RMS = √(12.5)
    np.testing.assert_allclose(out, np.array([3.0, 4.0]) / math.sqrt(12.5))
    np.testing.assert_allclose(rms_norm([[1.0, 1.0, 1.0, 1.0]], eps=0.0), [[1.0, 1.0, 1.0, 1.0]])
    np.testing.assert_allclose(rms_norm([3.0, 4.0], eps=0.0, gamma=[2.0, 0.5]), [2 * 3 / math.sqrt(12.5), 0.5 * 4 / math.sqrt(12.5)])
    # differs from LayerNorm: no centring
    assert not np.allclose(rms_norm([1.0, 2.0, 3.0, 4.0]), layer_norm([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(ValueError):
        rms_norm([0.0, 0.0], eps=0.0)


@FAST
@given(matrices)
def test_rms_norm_unit_rms(x):
    assume(np.all(np.mean(x ** 2, axis=-1) > 1e-3))
    np.testing.assert_allclose(np.sqrt(np.mean(rms_norm(x, eps=0.0) ** 2, axis=-1)), 1.0, atol=1e-9)


# --- activations -----------------------------------------------------------------------------
def test_activation_values():
    assert relu([-2.0, 0.0, 3.0]).tolist() == [0.0, 0.0, 3.0]
    assert float(gelu(0.0)) == 0.0
    assert round(float(gelu(1.0)), 4) == 0.8412           # tanh approximation
    assert round(float(gelu_exact(1.0)), 4) == 0.8413     # x·Φ(x)
    assert round(float(gelu(-1.0)), 4) == -0.1588
    np.testing.assert_allclose(gelu([-3, -1, 0, 1, 3]), gelu_exact([-3, -1, 0, 1, 3]), atol=1e-3)
    assert float(silu(0.0)) == 0.0
    assert float(silu(1.0)) == pytest.approx(1 / (1 + math.exp(-1)))
    assert float(sigmoid(0.0)) == 0.5
    # no overflow warnings for large inputs
    with np.errstate(over="raise", invalid="raise"):
        assert sigmoid([-1000.0, 1000.0]).tolist() == [0.0, 1.0]
        assert silu([-1000.0]).tolist() == [-0.0]
    assert set(ACTIVATIONS) == {"relu", "gelu", "silu"}


@FAST
@given(hnp.arrays(np.float64, 6, elements=st.floats(-20, 20)))
def test_gelu_between_relu_bounds(x):
    g = gelu(x)
    assert np.all(g <= np.maximum(x, 0) + 1e-12)
    assert np.all(g >= -0.171)


# --- FFN -------------------------------------------------------------------------------------
W1 = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, 1.0]])       # (2, 3)
B1 = np.array([0.0, 0.5, -2.0])
W2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])      # (3, 2)
B2 = np.array([0.1, 0.2])


def test_ffn_hand_values_relu():
    x = np.array([[1.0, 2.0], [-1.0, 0.0]])
    r = ffn(x, W1, B1, W2, B2)
    assert r.pre_activation.tolist() == [[1.0, 1.5, 0.0], [-1.0, 1.5, -2.0]]
    assert r.hidden.tolist() == [[1.0, 1.5, 0.0], [0.0, 1.5, 0.0]]
    np.testing.assert_allclose(r.output, [[1.1, 1.7], [0.1, 1.7]])
    assert r.activation == "relu"
    # position-wise: each row on its own gives the same row
    np.testing.assert_allclose(ffn(x[1:], W1, B1, W2, B2).output[0], r.output[1])


def test_ffn_gelu_and_shapes_and_errors():
    x = np.array([[1.0, 2.0]])
    r = ffn(x, W1, None, W2, None, activation="gelu")
    np.testing.assert_allclose(r.hidden, gelu(x @ W1))
    np.testing.assert_allclose(r.output, gelu(x @ W1) @ W2)
    p = init_ffn_params(4, 16, np.random.default_rng(0))
    assert ffn(np.ones((2, 3, 4)), *p).output.shape == (2, 3, 4)
    assert ffn(np.ones((3, 4)), *p).hidden.shape == (3, 16)
    with pytest.raises(ValueError, match="活性化"):
        ffn(x, W1, B1, W2, B2, activation="tanh")
    with pytest.raises(ValueError, match="W1"):
        ffn(np.ones((1, 3)), W1, B1, W2, B2)
    with pytest.raises(ValueError, match="b1"):
        ffn(x, W1, np.ones(2), W2, B2)
    with pytest.raises(ValueError, match="W2"):
        ffn(x, W1, B1, np.ones((3, 3)), None)


def test_init_params_seeded():
    a = init_ffn_params(4, 16, np.random.default_rng(7))
    b = init_ffn_params(4, 16, np.random.default_rng(7))
    assert a.w1.shape == (4, 16) and a.w2.shape == (16, 4) and a.b1.shape == (16,) and a.b2.shape == (4,)
    np.testing.assert_array_equal(a.w1, b.w1)
    assert not np.allclose(a.w1, init_ffn_params(4, 16, np.random.default_rng(8)).w1)
    assert np.all(a.b1 == 0)
    with pytest.raises(ValueError):
        init_ffn_params(4, 16, 7)
    with pytest.raises(ValueError):
        init_ffn_params(0, 16, np.random.default_rng(0))
    s = init_swiglu_params(4, 8, np.random.default_rng(0))
    assert [w.shape for w in s] == [(4, 8), (4, 8), (8, 4)]


def test_swiglu_hand_values():
    x = np.array([[1.0, 2.0]])
    w_gate = np.array([[1.0, 0.0], [0.0, 0.0]])
    w_up = np.array([[0.0, 1.0], [1.0, 0.0]])
    w_down = np.array([[1.0, 0.0], [0.0, 1.0]])
    r = swiglu_ffn(x, w_gate, w_up, w_down)
    assert r.gate_pre.tolist() == [[1.0, 0.0]]
    assert r.up.tolist() == [[2.0, 1.0]]
    s1 = 1 / (1 + math.exp(-1))
    np.testing.assert_allclose(r.gate, [[s1, 0.0]])
    np.testing.assert_allclose(r.hidden, [[2 * s1, 0.0]])
    np.testing.assert_allclose(r.output, [[2 * s1, 0.0]])
    with pytest.raises(ValueError):
        swiglu_ffn(x, w_gate, np.ones((2, 3)), w_down)
    with pytest.raises(ValueError):
        swiglu_ffn(x, w_gate, w_up, np.ones((2, 3)))


# --- residual, post-LN vs pre-LN --------------------------------------------------------------
def square(z):
    return z ** 2


def test_post_ln_exact():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    r = post_ln_block(x, square, eps=0.0)
    assert r.order == "post"
    np.testing.assert_array_equal(r.sublayer_input, x)
    assert r.sublayer_output.tolist() == [[1.0, 4.0, 9.0, 16.0]]
    assert r.residual_sum.tolist() == [[2.0, 6.0, 12.0, 20.0]]   # mean 10, var 46
    np.testing.assert_allclose(r.output, np.array([[-8.0, -4.0, 2.0, 10.0]]) / math.sqrt(46), atol=1e-15)
    np.testing.assert_array_equal(r.normalized, r.output)


def test_pre_ln_exact():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    r = pre_ln_block(x, square, eps=0.0)
    assert r.order == "pre"
    np.testing.assert_allclose(r.sublayer_input, np.array([[-3.0, -1.0, 1.0, 3.0]]) / math.sqrt(5), atol=1e-15)
    np.testing.assert_allclose(r.sublayer_output, [[1.8, 0.2, 0.2, 1.8]], atol=1e-14)
    np.testing.assert_allclose(r.output, [[2.8, 2.2, 3.2, 5.8]], atol=1e-14)
    np.testing.assert_array_equal(r.residual_sum, r.output)
    # post-LN output is normalised, pre-LN output is not
    post = post_ln_block(x, square, eps=0.0).output
    assert post.mean() == pytest.approx(0.0, abs=1e-12)
    assert r.output.mean() == pytest.approx(3.5)


def test_blocks_with_attention_sublayer_textbook():
    x = np.asarray(tb.X)
    w = np.eye(4)

    def self_attn(z):
        return tutor.attention(z @ w, z @ w, z @ w).output

    post = post_ln_block(x, self_attn)
    np.testing.assert_allclose(post.sublayer_output, tutor.attention(x, x, x).output)
    np.testing.assert_allclose(post.output, layer_norm(x + tutor.attention(x, x, x).output))
    pre = pre_ln_block(x, self_attn)
    ln_x = layer_norm(x)
    np.testing.assert_allclose(pre.output, x + tutor.attention(ln_x, ln_x, ln_x).output)


def test_residual_and_block_errors():
    assert residual([1.0, 2.0], [0.5, 0.5]).tolist() == [1.5, 2.5]
    with pytest.raises(ValueError, match="形"):
        residual(np.ones((2, 3)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="関数"):
        post_ln_block(np.ones((2, 3)), "not callable")
    with pytest.raises(ValueError, match="形"):
        pre_ln_block(np.ones((2, 4)), lambda z: z[:, :2])


def test_blocks_do_not_mutate_input():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 2.0]])
    before = x.copy()
    post_ln_block(x, square)
    pre_ln_block(x, square)
    layer_norm(x)
    batch_norm(x)
    rms_norm(x)
    np.testing.assert_array_equal(x, before)


# --- parameter counts -------------------------------------------------------------------------
def test_param_counts():
    assert mha_param_count(tb.PAPER_D_MODEL) == 1_048_576
    assert mha_param_count(512, bias=True) == 1_048_576 + 2048
    assert mha_param_count(4) == 64
    assert ffn_param_count(tb.PAPER_D_MODEL, tb.PAPER_D_FF) == 2_099_712
    assert ffn_param_count(512, 2048, bias=False) == 2_097_152
    assert swiglu_param_count(4, 8) == 96
    # the count agrees with the arrays that init_ffn_params creates
    p = init_ffn_params(6, 10, np.random.default_rng(0))
    assert ffn_param_count(6, 10) == sum(w.size for w in p)
    with pytest.raises(ValueError):
        mha_param_count(0)
    with pytest.raises(ValueError):
        ffn_param_count(512, -1)


def test_layer_norm_mistakes():
    batch = np.array([[1.0, 2, 3, 4], [0, 5, 1, 1]])
    right = tutor.block.layer_norm_mistake(batch, 0)
    np.testing.assert_allclose(right.output, tutor.layer_norm(batch[0], eps=0))
    assert right.mean == 2.5 and right.spread == pytest.approx(math.sqrt(1.25))
    var = tutor.block.layer_norm_mistake(batch, 0, "variance")
    np.testing.assert_allclose(var.output, (batch[0] - 2.5) / 1.25)
    sample = tutor.block.layer_norm_mistake(batch, 0, "sample")
    np.testing.assert_allclose(sample.output, (batch[0] - 2.5) / np.std(batch[0], ddof=1))
    rms = tutor.block.layer_norm_mistake(batch, 0, "rms")
    np.testing.assert_allclose(rms.output, batch[0] / np.sqrt(np.mean(batch[0] ** 2)))
    bn = tutor.block.layer_norm_mistake(batch, 0, "batch")
    np.testing.assert_allclose(bn.output, [1, -1, 1, 1], atol=1e-6)            # two examples: ±1 per feature


def test_residual_block_mistakes():
    x, f = np.array([2.0, 0.0, 1.0, -1.0]), np.array([-3.0, 1.0, 0.0, 2.0])
    np.testing.assert_allclose(tutor.block.residual_block_mistake(x, f), tutor.layer_norm(x + f, eps=0))
    np.testing.assert_allclose(tutor.block.residual_block_mistake(x, f, "no_residual"), tutor.layer_norm(f, eps=0))
    np.testing.assert_allclose(tutor.block.residual_block_mistake(x, f, "no_norm"), x + f)
    np.testing.assert_allclose(tutor.block.residual_block_mistake(x, f, "norm_sublayer_only"), x + tutor.layer_norm(f, eps=0))


@settings(max_examples=40)
@given(st.lists(st.integers(-5, 5), min_size=4, max_size=4).filter(lambda v: len(set(v)) > 1),
       st.lists(st.integers(-5, 5), min_size=4, max_size=4))


def test_layer_norm_mistakes_match_single_calls(x, other):
    batch = np.array([x, [o + 11 for o in other]], float)           # every feature differs → BN defined
    together = tutor.block.layer_norm_mistakes(batch, 0)
    for mistake in (None,) + tutor.block.LN_MISTAKES:
        one = tutor.block.layer_norm_mistake(batch, 0, mistake)
        np.testing.assert_array_equal(together[mistake].output, one.output)
    xs = np.array(x, float)
    np.testing.assert_array_equal(together[None].output, tutor.layer_norm(xs, eps=0))
    np.testing.assert_array_equal(together["rms"].output, tutor.block.rms_norm(xs, eps=0))
    np.testing.assert_array_equal(together["batch"].output, tutor.block.batch_norm(batch, eps=1e-12)[0])
    assert together["variance"].spread == pytest.approx(np.var(xs))
    assert together["sample"].spread == pytest.approx(np.std(xs, ddof=1))
    centered = tutor.block.layer_norm_steps(xs, eps=0).centered                # x − μ, shown in the explanations
    for mistake in (None, "variance", "sample"):
        np.testing.assert_array_equal(together[mistake].centered, centered)
    assert together["rms"].centered is None and together["batch"].centered is None


def test_norm_batch_dependence():
    a = np.array([[1.0, 2, 3, 4], [2, 0, 1, 1], [0, 0, 4, 0]])
    b = a.copy()
    b[1:] *= 10
    demo = tutor.block.norm_batch_dependence(a, b, row=0)
    assert demo.ln_row_diff == 0.0
    assert demo.bn_row_diff > 0.1
    np.testing.assert_allclose(demo.ln_a[0], tutor.layer_norm(a[0]))
    with pytest.raises(ValueError, match="同じ値"):
        tutor.block.norm_batch_dependence(a, b * 2, row=0)


def test_normalisation_refuses_an_overflowing_variance():
    """(1e200)² overflows: the result used to be silently all zeros; now a clear Japanese error."""
    for run in (lambda: layer_norm([1e200, -1e200, 0.0, 0.0]), lambda: rms_norm([1e200, 1.0]),
                lambda: batch_norm([[1e200, 0.0], [-1e200, 0.0]]), lambda: layer_norm_steps([[1e300, -1e300]])):
        with pytest.raises(ValueError, match="オーバーフロー"):
            run()


def test_normalisation_of_huge_but_representable_rows():
    """σ² = 5e299 still fits in float64: the result is the same as for the row divided by 1e150."""
    np.testing.assert_allclose(layer_norm([1e150, -1e150, 0.0, 0.0]), layer_norm([1.0, -1.0, 0.0, 0.0], eps=0.0),
                               rtol=1e-12)


def test_mean_mistake_sum_and_mean():
    """LayerNorm's first step and its named slip: the mean, or the sum left undivided (block.ln_blank)."""
    x = np.array([2.0, 0.0, 6.0, 4.0])
    assert tutor.block.mean_mistake(x) == 3.0 == tutor.block.layer_norm_mistakes(x[None, :], 0)[None].mean
    assert tutor.block.mean_mistake(x, "no_divide") == 12.0
    assert x.tolist() == [2.0, 0.0, 6.0, 4.0]                  # input not mutated
    with pytest.raises(ValueError):
        tutor.block.mean_mistake(x, "median")
    with pytest.raises(ValueError):
        tutor.block.mean_mistake(np.ones((2, 2)))
