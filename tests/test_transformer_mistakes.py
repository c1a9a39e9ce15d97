"""tutor.transformer_mistakes: mistake=None equals the engine; each named mistake equals its
wrong formula written out here by hand (so a distractor really is that mistake)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tutor
from quizzes import knowledge

FAST = settings(max_examples=40, deadline=None)


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


def test_attention_sublayers():
    assert tutor.encdec.attention_sublayers(6) == 18
    assert tutor.encdec.attention_sublayers(6, "decoder_only") == 6
    assert tutor.encdec.attention_sublayers(6, "encoder_only") == 6
    assert tutor.encdec.attention_sublayers(6, mistake="no_cross") == 12
    assert tutor.encdec.attention_sublayers(6, mistake="cross_in_encoder") == 24
    assert tutor.encdec.attention_sublayers(6, mistake="one_layer") == 3
    with pytest.raises(ValueError):
        tutor.encdec.attention_sublayers(0)


def test_temperature_mistakes_and_figures():
    z = np.array([2.0, 1.0, 0.0])
    assert [round(float(v), 3) for v in tutor.output.temperature_mistake(z, 0.5)] == [0.867, 0.117, 0.016]
    np.testing.assert_allclose(tutor.output.temperature_mistake(z, 2.0, "inverted"), tutor.output.probabilities(z, 0.5))
    np.testing.assert_allclose(tutor.output.temperature_mistake(z, 2.0, "ignored"), tutor.output.probabilities(z, 1.0))
    np.testing.assert_allclose(tutor.output.temperature_mistake(z, 2.0, "no_normalise"), np.exp(z / 2))
    with pytest.raises(ValueError, match="温度"):
        tutor.output.temperature_mistake(z, 0.0)


def test_top_k_mistakes():
    p = np.array([0.1, 0.4, 0.3, 0.2])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2), [0, 4 / 7, 3 / 7, 0])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2, "k_plus"), [0, 4 / 9, 3 / 9, 2 / 9])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2, "k_minus"), [0, 1, 0, 0])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2, "no_renormalise"), [0, 0.4, 0.3, 0])


def test_top_p_mistakes():
    p = [0.5, 0.3, 0.15, 0.05]
    assert tutor.output.top_p_mistake(p, 0.9).kept == (0, 1, 2)
    assert tutor.output.top_p_mistake(p, 0.9).mass == pytest.approx(0.95)
    assert tutor.output.top_p_mistake(p, 0.9, "stop_before").kept == (0, 1)
    assert tutor.output.top_p_mistake(p, 0.9, "ascending").kept == (3, 2, 1, 0)
    assert tutor.output.top_p_mistake(p, 0.8).kept == (0, 1)                           # exactly p reached → stop there


def test_ops_and_growth():
    assert tutor.cost.ops_mistake(100, 512) == 5_120_000
    assert tutor.cost.ops_mistake(100, 512, "swapped") == 26_214_400
    assert tutor.cost.ops_mistake(100, 512, "linear") == 51_200
    assert tutor.cost.ops_mistake(100, 512, "both_squared") == 100 ** 2 * 512 ** 2
    assert tutor.cost.cost_growth("self_attention", 3, 2) == 18
    assert tutor.cost.cost_growth("recurrent", 3, 2) == 12
    assert tutor.cost.cost_growth("self_attention", 3, 2, "linear") == 6
    assert tutor.cost.cost_growth("self_attention", 3, 2, "both_squared") == 36


def test_knowledge_facts():
    f = knowledge.engine_facts()
    assert f["paper_ffn_params"] == 2_099_712
    assert f["paper_attention_sublayers"] == 18
    assert (f["cost_self_attention_ops"], f["cost_recurrent_ops"]) == (5_120_000, 26_214_400)
    assert (f["temp_max_t1"], f["temp_max_t05"], f["temp_max_t2"]) == (0.665, 0.867, 0.506)


# --- the "all mistakes at once" forms give the very numbers of one call per mistake -------------



@settings(max_examples=40, deadline=None)
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


def test_residual_temperature_top_k_top_p_plural_forms():
    x, f = np.array([1.0, -2.0, 0.0, 3.0]), np.array([2.0, 2.0, -1.0, 0.0])
    r = tutor.block.residual_block_mistakes(x, f)
    np.testing.assert_array_equal(r[None], tutor.layer_norm(x + f, eps=0))
    np.testing.assert_array_equal(r["norm_sublayer_only"], x + tutor.layer_norm(f, eps=0))
    z = np.array([2.0, 1.0, 0.0])
    t = tutor.output.temperature_mistakes(z, 2.0)
    np.testing.assert_array_equal(t["inverted"], tutor.output.probabilities(z, 0.5))
    p = np.array([0.1, 0.4, 0.3, 0.2])
    k = tutor.output.top_k_mistakes(p, 2)
    np.testing.assert_allclose(k[None], [0, 4 / 7, 3 / 7, 0])
    np.testing.assert_allclose(k["k_minus"], [0, 1, 0, 0])
    assert tutor.output.top_p_mistakes([0.5, 0.3, 0.15, 0.05], 0.9)["ascending"].kept == (3, 2, 1, 0)
    with pytest.raises(ValueError):
        tutor.output.top_k_mistakes(p, 1, ("k_minus",))                          # k − 1 = 0 tokens kept


def test_kept_distribution_is_the_sampled_rules_distribution():
    p = np.array([0.1, 0.4, 0.3, 0.2])
    c = tutor.output.kept_distribution(p, "top_k", k=2)
    s = tutor.output.top_k_sample(p, 2, np.random.default_rng(3))
    np.testing.assert_array_equal(c.distribution, s.distribution)
    assert c.kept_mass == pytest.approx(0.7) and c.u is None and c.index == 1
    assert tutor.output.kept_distribution(p, "top_p", p=0.65).kept.tolist() == [1, 2]
    with pytest.raises(ValueError, match="top_k"):
        tutor.output.kept_distribution(p, "greedy")


def test_layer_operations_is_the_table_rows_count():
    for t in ("self_attention", "recurrent", "convolutional", "restricted_self_attention"):
        assert tutor.cost.layer_operations(t, 100, 512) == tutor.cost.layer_cost(t, 100, 512).operations
    assert tutor.cost.layer_operations("self_attention", 100, 512) == 5_120_000
    with pytest.raises(ValueError):
        tutor.cost.layer_operations("self_attention", 0, 512)
