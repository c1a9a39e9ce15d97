"""tutor.transformer_demos: the helpers behind the ⑦ pages (permutation demo, PE breakdown,
RoPE offset table, LayerNorm vs BatchNorm, toy next-token model, reproducible generation step)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb

FAST = settings(max_examples=40, deadline=None)
finite = st.floats(-4, 4, allow_nan=False, allow_infinity=False)


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


def test_toy_model_and_generation_step():
    ids = tutor.output.toy_ids("猫")
    logits = tutor.output.toy_next_logits(ids)
    assert logits.shape == (len(tutor.output.TOY_VOCAB),)
    step = tutor.output.generation_step(ids, "greedy", 0)
    assert tutor.output.TOY_VOCAB[step.chosen] == "は"
    # reproducible: same seed and history → same token and same u
    s1 = tutor.output.generation_step(ids, "sample", 7, temperature=2.0)
    s2 = tutor.output.generation_step(ids, "sample", 7, temperature=2.0)
    assert s1.chosen == s2.chosen and s1.choice.u == s2.choice.u
    # greedy path: 猫 は 魚 を 食べた 。 <eos>
    seq = ids
    for _ in range(6):
        seq = seq + (tutor.output.generation_step(seq, "greedy", 0).chosen,)
    assert [tutor.output.TOY_VOCAB[i] for i in seq] == ["猫", "は", "魚", "を", "食べた", "。", "<eos>"]
    with pytest.raises(ValueError, match="語彙"):
        tutor.output.toy_ids("犬")
    with pytest.raises(ValueError, match="シード"):
        tutor.output.generation_step(ids, "sample", -1)


def test_toy_logits_read_only():
    with pytest.raises(ValueError):
        tutor.output.TOY_LOGITS[0, 0] = 5


def test_cost_lengths_log_grid():
    grid = tutor.cost.cost_lengths(4096)
    assert grid[0] == 1 and grid[-1] == 4096
    assert grid == sorted(set(grid))
    assert len(grid) < 60
    with pytest.raises(ValueError):
        tutor.cost.cost_lengths(1)


@pytest.mark.parametrize("causal", [False, True])
def test_compare_tiled_same_output_less_memory(causal):
    q, k, v = tutor.cost.random_qkv(100, 8, np.random.default_rng(1))
    cmp = tutor.cost.compare_tiled(q, k, v, 16, causal)
    assert cmp.max_diff < 1e-12
    assert cmp.full_elements == 100 * 100
    assert cmp.peak_elements == 16 * 16
    assert cmp.full_bytes == 100 * 100 * 8 and cmp.tiled_bytes == 16 * 16 * 8
    ref = tutor.attention(q, k, v, tutor.causal_mask(100) if causal else None).output
    np.testing.assert_allclose(cmp.plain_output, ref)
    if causal:
        assert cmp.tiled.blocks_skipped > 0


def test_random_qkv_seeded():
    a = tutor.cost.random_qkv(5, 3, np.random.default_rng(3))
    b = tutor.cost.random_qkv(5, 3, np.random.default_rng(3))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="Generator"):
        tutor.cost.random_qkv(5, 3, 3)


def test_temperature_table_figures():
    rows = tutor.output.temperature_table(tb.TEMPERATURE_LOGITS, tb.TEMPERATURES)
    got = [tuple(round(float(p), 3) for p in r.probs) for r in rows]
    assert got == [(0.665, 0.245, 0.090), (0.867, 0.117, 0.016), (0.506, 0.307, 0.186)]
    np.testing.assert_allclose(rows[1].scaled, [4, 2, 0])
    np.testing.assert_allclose(rows[2].scaled, [1, 0.5, 0])
    with pytest.raises(ValueError, match="温度"):
        tutor.output.temperature_table([2, 1, 0], [0.0])


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 9), elements=st.floats(-1e3, 1e3)),
       st.lists(st.floats(1e-2, 1e2), min_size=1, max_size=5))
def test_temperature_table_rows_are_one_softmax_per_temperature_bit_for_bit(z, temps):
    """The stacked softmax gives every row exactly what probabilities(z, T) gives alone."""
    z_before = z.copy()
    rows = tutor.output.temperature_table(z, temps)
    assert [r.temperature for r in rows] == [float(t) for t in temps]
    for row, t in zip(rows, temps):
        assert np.array_equal(row.scaled, z / float(t))
        assert np.array_equal(row.probs, tutor.output.probabilities(z, t))
    assert np.array_equal(z, z_before)
    assert tutor.output.temperature_table(z, []) == []
