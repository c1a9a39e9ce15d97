"""bench.fast: the output-only attention path equals tutor.attention(...).output to 1e-12."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from bench.fast import fast_attention, fast_attention_block_rows

FAST = settings(max_examples=60)
ELEMS = st.floats(-4, 4, allow_nan=False, allow_infinity=False)


def _reference(q, k, v, causal=False, scale=True):
    mask = tutor.causal_mask(q.shape[-2]) if causal else None
    return tutor.attention(q, k, v, mask, scale=scale).output


@st.composite
def qkv_case(draw, lead_dims=(1, 2)):
    """(h, n, d) or (b, h, n, d) inputs; n odd or even, small d."""
    n_lead = draw(st.sampled_from(lead_dims))
    lead = tuple(draw(st.integers(1, 3)) for _ in range(n_lead))
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 7))
    d_v = draw(st.integers(1, 5))
    q = draw(hnp.arrays(np.float64, lead + (n, d), elements=ELEMS))
    k = draw(hnp.arrays(np.float64, lead + (n, d), elements=ELEMS))
    v = draw(hnp.arrays(np.float64, lead + (n, d_v), elements=ELEMS))
    return q, k, v


@FAST
@given(qkv_case(), st.booleans(), st.booleans(), st.sampled_from([None, 1, 2, 3]))
def test_equals_attention_output(case, causal, scale, n_threads):
    q, k, v = case
    copies = [x.copy() for x in case]
    out = fast_attention(q, k, v, causal, scale=scale, n_threads=n_threads)
    ref = _reference(q, k, v, causal, scale)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)
    for before, after in zip(copies, case):  # inputs never mutated
        np.testing.assert_array_equal(before, after)


@settings(max_examples=15)
@given(st.sampled_from([(3, 127, 8), (1, 2, 129, 16), (2, 255, 4), (1, 1, 301, 3)]), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_many_row_blocks_odd_n(shape, causal, seed):
    """n large enough to use several row blocks (odd n, last block partial), 3-D and 4-D."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(0, 2, shape) for _ in range(3))
    frozen = [x.copy() for x in (q, k, v)]
    for x in (q, k, v):
        x.flags.writeable = False  # any write would raise
    import bench.fast as fast_mod
    old = fast_mod._BLOCK_ELEMENTS
    fast_mod._BLOCK_ELEMENTS = 997  # force small, uneven row blocks
    try:
        for threads in (1, 2):
            out = fast_attention(q, k, v, causal, n_threads=threads)
            np.testing.assert_allclose(out, _reference(q, k, v, causal), rtol=0, atol=1e-12)
    finally:
        fast_mod._BLOCK_ELEMENTS = old
    for before, after in zip(frozen, (q, k, v)):
        np.testing.assert_array_equal(before, after)


def test_real_size_and_strided_input():
    """h = 8, n = 513, d_k = 64 (the benchmark's shape, odd n) and a non-contiguous view."""
    rng = np.random.default_rng(7)
    base = rng.normal(size=(8, 513, 128))
    q, k, v = base[..., ::2], base[..., 1::2], base[..., :64]  # strided views of one array
    for causal in (False, True):
        out = fast_attention(q, k, v, causal)
        np.testing.assert_allclose(out, _reference(q, k, v, causal), rtol=0, atol=1e-12)


def test_causal_first_row_is_first_value_and_2d():
    """Query 0 sees only key 0: its output is exactly v[0]. 2-D input works too."""
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    out = fast_attention(q, k, v, causal=True)
    np.testing.assert_allclose(out[0], v[0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out, _reference(q, k, v, True), rtol=0, atol=1e-12)


def test_not_part_of_the_engine():
    """The benchmark's path lives in bench/ (module-level thread pools): the engine has no such name."""
    assert not hasattr(tutor, "fast_attention") and not hasattr(tutor.core, "fast_attention")


def test_block_rows_fit_budget():
    assert fast_attention_block_rows(1024, 1024) == (1, 128)
    g, rows = fast_attention_block_rows(128, 128)
    assert rows == 128 and g * 128 * 128 <= 1 << 17


@pytest.mark.parametrize("args, kwargs, word", [
    (((2, 4, 3), (2, 4, 5), (2, 4, 2)), {}, "d_k"),
    (((2, 4, 3), (2, 4, 3), (2, 5, 2)), {}, "トークン数"),
    (((2, 4, 3), (3, 4, 3), (3, 4, 2)), {}, "先頭の次元"),
    (((2, 4, 3), (2, 6, 3), (2, 6, 2)), {"causal": True}, "因果マスク"),
    (((2, 4, 3), (2, 4, 3), (2, 4, 2)), {"n_threads": 0}, "n_threads"),
])
def test_bad_input_japanese_error(args, kwargs, word):
    q, k, v = (np.ones(s) for s in args)
    with pytest.raises(ValueError, match=word):
        fast_attention(q, k, v, **kwargs)


def test_nan_refused():
    q = np.ones((2, 3, 2))
    bad = q.copy()
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fast_attention(q, bad, q)


@pytest.mark.parametrize("hold_blas", [True, False])
def test_both_threading_strategies_agree(monkeypatch, hold_blas):
    """With threadpoolctl (whole blocks per thread, OpenBLAS held to 1 thread) and without it
    (products on the caller, exp split over threads): same numbers."""
    import bench.fast as fast_mod

    if hold_blas and not fast_mod._blas_one_thread.available:
        pytest.skip("threadpoolctl not installed: only the fallback strategy exists here")
    if not hold_blas:
        monkeypatch.setattr(fast_mod._blas_one_thread, "_libs", [])
    monkeypatch.setattr(fast_mod, "_BLOCK_ELEMENTS", 5000)  # many blocks
    rng = np.random.default_rng(11)
    q, k, v = (rng.normal(size=(2, 3, 157, 6)) for _ in range(3))
    for causal in (False, True):
        for threads in (2, 3):
            out = fast_attention(q, k, v, causal, n_threads=threads)
            np.testing.assert_allclose(out, _reference(q, k, v, causal), rtol=0, atol=1e-12)


def test_blas_threads_restored_after_overlapping_calls():
    """The reference-counted hold never leaves OpenBLAS at one thread, even when calls overlap."""
    import threading

    import bench.fast as fast_mod

    hold = fast_mod._blas_one_thread
    if not hold.available:
        pytest.skip("threadpoolctl not installed")
    before = [lib.num_threads for lib in hold._blas_libs()]
    rng = np.random.default_rng(5)
    q = rng.normal(size=(4, 300, 16))
    errors = []

    def work():
        try:
            for _ in range(3):
                fast_attention(q, q, q, True, n_threads=2)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    assert [lib.num_threads for lib in hold._blas_libs()] == before
    with hold:
        assert all(lib.num_threads == 1 for lib in hold._blas_libs())
    assert [lib.num_threads for lib in hold._blas_libs()] == before


def test_score_overflow_raises_like_the_engine():
    q = np.array([[1e200, 0.0], [1.0, 0.0]])
    k = np.array([[-1e200, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="オーバーフロー"):
        fast_attention(q, k, np.eye(2))
    with pytest.raises(ValueError, match="オーバーフロー"):
        fast_attention(q, k, np.eye(2), causal=True)


# ---------------------------------------------------------------------------
# bench.phone's pure helpers (the `phone` section itself needs a browser: `python -m bench --only phone`)
# ---------------------------------------------------------------------------
def test_phone_total_blocking_time_sums_what_each_long_task_blocks():
    from bench.phone import total_blocking_ms

    tasks = [(100.0, 120.0), (400.0, 50.0), (900.0, 51.5), (2000.0, 300.0)]
    assert total_blocking_ms([]) == 0
    assert total_blocking_ms(tasks) == 70 + 0 + 1.5 + 250      # duration − 50 ms, never negative
    assert total_blocking_ms(tasks, until=2000.0) == 71.5       # started before the page settled
    assert total_blocking_ms(tasks, since=400.0) == 251.5       # started at or after the input


def test_phone_paired_row_reports_the_median_of_per_sample_ratios():
    from bench.phone import TARGET_OPEN, TARGET_TBT, paired_row

    row = paired_row("cold open /naive", [3.0, 6.0, 4.0], [2.0, 3.0, 4.0], "s", TARGET_OPEN)
    assert (row.section, row.unit, row.median) == ("phone", "s", 4.0)
    assert row.ratio == "1.50× floor (per-sample 1.00–2.00)"    # ratios 1.5, 2.0, 1.0: not 4.0 / 3.0
    assert row.target == "≤ 1.5× floor" and row.ok is True      # the goal holds at equality
    tbt = paired_row("TBT /naive", [900.0, 1300.0], [400.0, 0.0], "ms", TARGET_TBT, "floor's")
    assert tbt.ratio == "2.25× floor's (per-sample 2.25–2.25)"  # a floor without long tasks has no ratio
    assert tbt.target == "≤ 2× floor's" and tbt.ok is False
    empty = paired_row("x", [1.0], [0.0], "ms", 2.0)
    assert empty.ratio == "" and empty.ok is None


def test_phone_pages_and_switches_from_the_environment():
    from bench.phone import SWITCHES, parse_pages, parse_switches

    assert parse_pages(None, ["naive", "qkv"]) == ["naive", "qkv"]
    assert parse_pages(" formula, ,mask ", ["naive"]) == ["formula", "mask"]
    assert parse_switches(None) == parse_switches(" ; ") == SWITCHES
    assert parse_switches("naive:ねらい・解説>手計算; formula") == (("naive", "ねらい・解説", "手計算"),
                                                                    ("formula", None, None))
    assert parse_switches("qkv:>可視化") == (("qkv", None, "可視化"),)
