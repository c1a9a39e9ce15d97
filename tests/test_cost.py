"""tutor.cost: Table 1 of the paper (figure of seed 004), crossover n = d, memory of the scores."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tutor import textbook as tb
from tutor.cost import (
    LAYER_LABELS,
    LAYER_TYPES,
    attention_memory_bytes,
    cheaper_layer,
    cost_curve,
    crossover,
    human_bytes,
    layer_cost,
    table1,
    tiled_memory_bytes,
)
from tutor.cost import tiled_attention
import tutor

FAST = settings(max_examples=80)


def test_figure_n100_d512():
    rows = {row.layer_type: row for row in table1(tb.COST_N, tb.COST_D)}
    assert rows["self_attention"].operations == 5_120_000
    assert rows["recurrent"].operations == 26_214_400
    assert f"{rows['self_attention'].operations:,}" == "5,120,000"
    assert f"{rows['recurrent'].operations:,}" == "26,214,400"
    assert cheaper_layer(tb.COST_N, tb.COST_D) == "self_attention"


def test_table1_rows_order_and_formulas():
    rows = table1(100, 512, k=3, r=10)
    assert tuple(r.layer_type for r in rows) == LAYER_TYPES
    sa, rnn, conv, restricted = rows
    assert (sa.complexity, sa.sequential, sa.max_path_length) == ("O(n^2 \\cdot d)", "O(1)", "O(1)")
    assert (rnn.complexity, rnn.sequential, rnn.max_path_length) == ("O(n \\cdot d^2)", "O(n)", "O(n)")
    assert (conv.complexity, conv.sequential, conv.max_path_length) == ("O(k \\cdot n \\cdot d^2)", "O(1)", "O(\\log_k(n))")
    assert (restricted.complexity, restricted.sequential, restricted.max_path_length) == ("O(r \\cdot n \\cdot d)", "O(1)", "O(n/r)")
    assert conv.operations == 3 * 100 * 512 ** 2 == 78_643_200
    assert restricted.operations == 10 * 100 * 512 == 512_000
    assert [r.sequential_value for r in rows] == [1, 100, 1, 1]
    assert sa.path_value == 1.0 and rnn.path_value == 100.0
    assert conv.path_value == pytest.approx(math.log(100, 3))
    assert restricted.path_value == 10.0
    assert conv.param == 3 and restricted.param == 10 and sa.param is None
    assert [r.label for r in rows] == [LAYER_LABELS[t] for t in LAYER_TYPES]
    assert sa.label == "自己注意"


def test_restricted_r_capped_at_n():
    row = layer_cost("restricted_self_attention", 5, 8, r=10)
    assert row.param == 5
    assert row.operations == 5 * 5 * 8 == layer_cost("self_attention", 5, 8).operations
    assert row.path_value == 1.0


@pytest.mark.parametrize("kwargs", [
    dict(layer_type="transformer", n=10, d=4),
    dict(layer_type="self_attention", n=0, d=4),
    dict(layer_type="self_attention", n=10, d=-1),
    dict(layer_type="self_attention", n=2.5, d=4),
    dict(layer_type="convolutional", n=10, d=4, k=1),
    dict(layer_type="restricted_self_attention", n=10, d=4, r=0),
])


def test_layer_cost_bad_input(kwargs):
    with pytest.raises(ValueError):
        layer_cost(**kwargs)


def test_crossover_and_cheaper_layer():
    assert crossover(512) == 512
    assert cheaper_layer(511, 512) == "self_attention"
    assert cheaper_layer(512, 512) == "equal"
    assert cheaper_layer(513, 512) == "recurrent"
    assert cheaper_layer(4096, 512) == "recurrent"
    with pytest.raises(ValueError):
        crossover(0)


@FAST
@given(st.integers(1, 5000), st.integers(1, 2048))
def test_crossover_property(n, d):
    sa = layer_cost("self_attention", n, d).operations
    rnn = layer_cost("recurrent", n, d).operations
    assert (sa < rnn) == (n < crossover(d))
    assert (sa == rnn) == (n == d)
    assert sa == n * n * d and rnn == n * d * d
    expected = "self_attention" if sa < rnn else ("recurrent" if sa > rnn else "equal")
    assert cheaper_layer(n, d) == expected


@FAST
@given(st.integers(1, 2000), st.integers(1, 512))
def test_doubling_n_quadruples_self_attention(n, d):
    # 単語数が 2 倍 → 自己注意の計算はおよそ 4 倍、RNN は 2 倍
    assert layer_cost("self_attention", 2 * n, d).operations == 4 * layer_cost("self_attention", n, d).operations
    assert layer_cost("recurrent", 2 * n, d).operations == 2 * layer_cost("recurrent", n, d).operations


def test_cost_curve():
    curve = cost_curve([100, 512, 1000], 512)
    assert set(curve) == set(LAYER_TYPES)
    assert curve["self_attention"].tolist() == [5_120_000.0, 512.0 ** 3, 1000.0 ** 2 * 512]
    assert curve["recurrent"].tolist() == [26_214_400.0, 512.0 ** 3, 1000.0 * 512 ** 2]
    with pytest.raises(ValueError):
        cost_curve([], 512)


def test_attention_memory():
    assert attention_memory_bytes(4096) == 4096 * 4096 * 8 == 134_217_728
    assert human_bytes(attention_memory_bytes(4096)) == "128.0 MiB"
    assert attention_memory_bytes(2048, h=8, dtype_bytes=2) == 8 * 2048 ** 2 * 2
    assert attention_memory_bytes(100) == 80_000
    with pytest.raises(ValueError):
        attention_memory_bytes(0)
    with pytest.raises(ValueError):
        attention_memory_bytes(10, dtype_bytes=0)


def test_tiled_memory_and_agreement_with_tiled_attention():
    assert tiled_memory_bytes(4096, 64) == 64 * 64 * 8 == 32_768
    assert human_bytes(tiled_memory_bytes(4096, 64)) == "32.0 KiB"
    assert tiled_memory_bytes(10, 64) == 10 * 10 * 8             # block larger than n
    assert tiled_memory_bytes(4096, 64, h=8, dtype_bytes=2) == 8 * 64 * 64 * 2
    assert attention_memory_bytes(4096) // tiled_memory_bytes(4096, 64) == 4096
    rng = np.random.default_rng(0)
    for n, block in ((100, 16), (10, 64), (33, 8)):
        q, k, v = (rng.normal(size=(n, 4)) for _ in range(3))
        r = tiled_attention(q, k, v, block)
        assert tiled_memory_bytes(n, block) == r.peak_score_elements * 8
    with pytest.raises(ValueError):
        tiled_memory_bytes(10, 0)


def test_human_bytes():
    assert human_bytes(0) == "0 B"
    assert human_bytes(1023) == "1023 B"
    assert human_bytes(1024) == "1.0 KiB"
    assert human_bytes(3 * 1024 ** 3) == "3.0 GiB"
    with pytest.raises(ValueError):
        human_bytes(-1)


def test_ops_and_growth():
    assert tutor.cost.ops_mistake(100, 512) == 5_120_000
    assert tutor.cost.ops_mistake(100, 512, "swapped") == 26_214_400
    assert tutor.cost.ops_mistake(100, 512, "linear") == 51_200
    assert tutor.cost.ops_mistake(100, 512, "both_squared") == 100 ** 2 * 512 ** 2
    assert tutor.cost.cost_growth("self_attention", 3, 2) == 18
    assert tutor.cost.cost_growth("recurrent", 3, 2) == 12
    assert tutor.cost.cost_growth("self_attention", 3, 2, "linear") == 6
    assert tutor.cost.cost_growth("self_attention", 3, 2, "both_squared") == 36


def test_layer_operations_is_the_table_rows_count():
    for t in ("self_attention", "recurrent", "convolutional", "restricted_self_attention"):
        assert tutor.cost.layer_operations(t, 100, 512) == tutor.cost.layer_cost(t, 100, 512).operations
    assert tutor.cost.layer_operations("self_attention", 100, 512) == 5_120_000
    with pytest.raises(ValueError):
        tutor.cost.layer_operations("self_attention", 0, 512)


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
