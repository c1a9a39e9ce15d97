"""Properties of tutor/core.py, checked with hypothesis on random inputs.

- weight rows sum to 1; masked weights are exact zeros; no NaN/inf for finite inputs;
- attention agrees with a plain Python-loop reference implementation (written below);
- multi-head: h = 1 is single-head attention followed by W_O; the paper form (full
  d_model×d_model matrices split into heads) equals the seed form (per-head matrices);
- cross-attention shapes; inputs are never mutated (also with read-only inputs);
- softmax shift invariance and temperature; the three mask helpers; the
  mask-after-softmax mistake.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tutor
from tutor import textbook as tb

SETTINGS = settings(max_examples=100)

BIG = 1e6     # |x| ≤ 1e6: the range where the engine must stay finite
SMALL = 10.0  # moderate values for comparisons against the loop reference


def floats(bound):
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=64)


def matrices(rows, cols, bound=SMALL):
    return hnp.arrays(np.float64, (rows, cols), elements=floats(bound))


dims = st.integers(1, 5)


@st.composite
def qkv_inputs(draw, bound=SMALL):
    n_q, n_k, d_k, d_v = draw(dims), draw(dims), draw(dims), draw(dims)
    q = draw(matrices(n_q, d_k, bound))
    k = draw(matrices(n_k, d_k, bound))
    v = draw(matrices(n_k, d_v, bound))
    return q, k, v


@st.composite
def masks(draw, n_q, n_k):
    """Random bool mask (n_q, n_k) with at least one allowed key per row."""
    mask = draw(hnp.arrays(np.bool_, (n_q, n_k)))
    for i in range(n_q):
        if not mask[i].any():
            mask[i, draw(st.integers(0, n_k - 1))] = True
    return mask


@st.composite
def qkv_with_mask(draw, bound=SMALL):
    q, k, v = draw(qkv_inputs(bound))
    kind = draw(st.sampled_from(["none", "random", "causal"]))
    if kind == "random":
        mask = draw(masks(q.shape[0], k.shape[0]))
    elif kind == "causal":
        # self-attention shapes so the causal mask fits
        k = draw(matrices(q.shape[0], q.shape[1], bound))
        v = draw(matrices(q.shape[0], v.shape[1], bound))
        mask = tutor.causal_mask(q.shape[0])
    else:
        mask = None
    return q, k, v, mask


def rng_from(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------
# plain Python-loop reference (no NumPy in the arithmetic)
# ---------------------------------------------------------------------------
def loop_attention(q, k, v, mask=None, scale=True):
    q, k, v = q.tolist(), k.tolist(), v.tolist()
    d_k = len(q[0])
    divisor = math.sqrt(d_k) if scale else 1.0
    weights, output = [], []
    for i, qi in enumerate(q):
        scores = []
        for j, kj in enumerate(k):
            if mask is not None and not mask[i][j]:
                scores.append(None)
            else:
                scores.append(sum(a * b for a, b in zip(qi, kj)) / divisor)
        top = max(s for s in scores if s is not None)
        exps = [0.0 if s is None else math.exp(s - top) for s in scores]
        total = sum(exps)
        row = [e / total for e in exps]
        weights.append(row)
        output.append([sum(row[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return np.array(weights), np.array(output)


# ---------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------
@SETTINGS
@given(qkv_with_mask(bound=BIG))
def test_weight_rows_sum_to_one(args):
    q, k, v, mask = args
    w = tutor.attention(q, k, v, mask).weights
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert (w >= 0).all()


@SETTINGS
@given(qkv_with_mask(bound=BIG))
def test_masked_weights_are_exactly_zero(args):
    q, k, v, mask = args
    if mask is None:
        mask = np.ones((q.shape[0], k.shape[0]), dtype=bool)
    r = tutor.attention(q, k, v, mask)
    assert (r.weights[~mask] == 0.0).all()
    assert np.isneginf(r.masked[~mask]).all()
    assert np.isfinite(r.masked[mask]).all()


@SETTINGS
@given(qkv_with_mask(bound=BIG), st.booleans())
def test_no_nan_or_inf_for_finite_inputs(args, scale):
    q, k, v, mask = args
    r = tutor.attention(q, k, v, mask, scale=scale)
    for arr in (r.scores, r.scaled, r.weights, r.output):
        assert np.isfinite(arr).all()
    # the output is a convex combination of the value rows
    assert (r.output <= v.max(axis=0) + 1e-9 * (1 + np.abs(v).max())).all()
    assert (r.output >= v.min(axis=0) - 1e-9 * (1 + np.abs(v).max())).all()


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(dims, dims), elements=floats(BIG)))
def test_naive_attention_finite_and_normalised(x):
    r = tutor.naive.naive_attention(x)
    assert np.isfinite(r.weights).all() and np.isfinite(r.output).all()
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(r.scores, r.scores.T)


@SETTINGS
@given(qkv_with_mask(), st.booleans())
def test_attention_matches_loop_reference(args, scale):
    q, k, v, mask = args
    r = tutor.attention(q, k, v, mask, scale=scale)
    w_ref, out_ref = loop_attention(q, k, v, mask, scale)
    np.testing.assert_allclose(r.weights, w_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.output, out_ref, rtol=1e-9, atol=1e-9)
    assert r.divisor == (math.sqrt(q.shape[1]) if scale else 1.0)


@SETTINGS
@given(st.integers(1, 3), qkv_inputs())
def test_batched_attention_equals_each_batch_alone(b, args):
    q, k, v = args
    rng = rng_from(b)
    qb = np.stack([q + rng.standard_normal(q.shape) for _ in range(b)])  # (b, n_q, d_k)
    kb = np.stack([k + rng.standard_normal(k.shape) for _ in range(b)])  # (b, n_k, d_k)
    vb = np.stack([v + rng.standard_normal(v.shape) for _ in range(b)])  # (b, n_k, d_v)
    r = tutor.attention(qb, kb, vb)
    for i in range(b):
        one = tutor.attention(qb[i], kb[i], vb[i])
        np.testing.assert_allclose(r.weights[i], one.weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(r.output[i], one.output, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_self_attention_is_permutation_equivariant(n, d, seed):
    # without positional encoding, shuffling the tokens shuffles the outputs the same way
    rng = rng_from(seed)
    x = rng.standard_normal((n, d))
    w_q, w_k, w_v = (rng.standard_normal((d, 2)) for _ in range(3))
    perm = rng.permutation(n)
    p = tutor.project_qkv(x, w_q, w_k, w_v)
    pp = tutor.project_qkv(x[perm], w_q, w_k, w_v)
    out = tutor.attention(p.q, p.k, p.v).output
    out_perm = tutor.attention(pp.q, pp.k, pp.v).output
    np.testing.assert_allclose(out_perm, out[perm], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tutor.naive.naive_attention(x[perm]).output,
                               tutor.naive.naive_attention(x).output[perm], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# multi-head
# ---------------------------------------------------------------------------
@SETTINGS
@given(st.integers(1, 5), st.integers(1, 4), st.integers(0, 2**32 - 1), st.booleans())
def test_one_head_is_attention_then_w_o(n, d_model, seed, causal):
    rng = rng_from(seed)
    x = rng.standard_normal((n, d_model))
    w_q, w_k, w_v, w_o = (rng.standard_normal((d_model, d_model)) for _ in range(4))
    mask = tutor.causal_mask(n) if causal else None
    mha = tutor.multi_head_attention(x, w_q, w_k, w_v, w_o, 1, mask)
    single = tutor.attention(x @ w_q, x @ w_k, x @ w_v, mask)
    assert mha.n_heads == 1
    np.testing.assert_allclose(mha.weights[0], single.weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(mha.concat, single.output, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mha.output, single.output @ w_o, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 5), st.integers(1, 5),
       st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_paper_form_equals_seed_form(h, d_k, n, n_kv, seed, cross, causal):
    rng = rng_from(seed)
    d_model = h * d_k
    x = rng.standard_normal((n, d_model))
    x_kv = rng.standard_normal((n_kv, d_model)) if cross else None
    w_q, w_k, w_v, w_o = (rng.standard_normal((d_model, d_model)) for _ in range(4))
    mask = tutor.causal_mask(n) if (causal and not cross) else None
    paper = tutor.multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask, x_kv=x_kv)
    blocks = [slice(i * d_k, (i + 1) * d_k) for i in range(h)]
    per_head = [(w_q[:, b], w_k[:, b], w_v[:, b]) for b in blocks]   # W^(i) = column block i
    seed_form = tutor.multi_head_attention_per_head(x, per_head, w_o, mask, x_kv=x_kv)
    n_k = n if x_kv is None else n_kv
    assert paper.weights.shape == seed_form.weights.shape == (h, n, n_k)
    assert paper.head_outputs.shape == (h, n, d_k)
    assert paper.concat.shape == (n, d_model) and paper.output.shape == (n, d_model)
    np.testing.assert_allclose(paper.weights, seed_form.weights, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(paper.concat, seed_form.concat, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(paper.output, seed_form.output, rtol=1e-10, atol=1e-10)
    # each head is an ordinary attention on its column block
    src = x if x_kv is None else x_kv
    for i, b in enumerate(blocks):
        head = tutor.attention(x @ w_q[:, b], src @ w_k[:, b], src @ w_v[:, b], mask)
        np.testing.assert_allclose(paper.head_outputs[i], head.output, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(paper.concat[:, b], head.output, rtol=1e-10, atol=1e-12)


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_split_and_merge_heads_are_inverse(h, n, d, seed):
    x = rng_from(seed).standard_normal((n, h * d))
    heads = tutor.split_heads(x, h)
    assert heads.shape == (h, n, d)
    np.testing.assert_array_equal(heads[-1], x[:, (h - 1) * d:])
    np.testing.assert_array_equal(tutor.merge_heads(heads), x)


# ---------------------------------------------------------------------------
# cross-attention
# ---------------------------------------------------------------------------
@SETTINGS
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 4), st.integers(1, 3),
       st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_cross_attention_shapes(n_tgt, n_src, d_model, d_k, d_v, seed):
    rng = rng_from(seed)
    x_dec = rng.standard_normal((n_tgt, d_model))
    x_enc = rng.standard_normal((n_src, d_model))
    w_q, w_k = rng.standard_normal((d_model, d_k)), rng.standard_normal((d_model, d_k))
    w_v = rng.standard_normal((d_model, d_v))
    r = tutor.cross_attention(x_dec, x_enc, w_q, w_k, w_v)
    assert r.weights.shape == (n_tgt, n_src)
    assert r.output.shape == (n_tgt, d_v)
    assert r.q.shape == (n_tgt, d_k) and r.k.shape == (n_src, d_k) and r.v.shape == (n_src, d_v)
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(r.q, x_dec @ w_q, rtol=1e-12, atol=1e-12)   # Q from the decoder
    np.testing.assert_allclose(r.k, x_enc @ w_k, rtol=1e-12, atol=1e-12)   # K, V from the encoder
    np.testing.assert_allclose(r.v, x_enc @ w_v, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# inputs are never mutated
# ---------------------------------------------------------------------------
def _every_call(rng):
    """(name, function, args, kwargs) for every public function, on fresh random arrays."""
    n, m, d_model, h = 3, 4, 4, 2
    x = rng.standard_normal((n, d_model))
    x_enc = rng.standard_normal((m, d_model))
    w_q, w_k, w_v, w_o = (rng.standard_normal((d_model, d_model)) for _ in range(4))
    w_q2, w_k2, w_v2 = (rng.standard_normal((d_model, 2)) for _ in range(3))
    q, k, v = rng.standard_normal((n, 2)), rng.standard_normal((n, 2)), rng.standard_normal((n, 3))
    scores = rng.standard_normal((n, n))
    scores[0, 1] = -np.inf
    mask = tutor.causal_mask(n).copy()
    weights = tutor.softmax(rng.standard_normal((n, n)))
    heads = rng.standard_normal((h, n, 2))
    lengths = np.array([2, 3])
    return [
        ("as_matrix", tutor.as_matrix, (x,), {}),
        ("softmax", tutor.softmax, (scores,), {"temperature": 0.5}),
        ("naive_attention", tutor.naive.naive_attention, (x,), {}),
        ("project_qkv", tutor.project_qkv, (x, w_q2, w_k2, w_v2), {}),
        ("attention", tutor.attention, (q, k, v, mask), {}),
        ("attention_noscale", tutor.attention, (q, k, v), {"scale": False}),
        ("padding_mask", tutor.padding_mask, (lengths, n), {}),
        ("additive_mask", tutor.additive_mask, (mask,), {}),
        ("mask_after_softmax", tutor.mask_after_softmax, (weights, mask), {}),
        ("split_heads", tutor.split_heads, (x, h), {}),
        ("merge_heads", tutor.merge_heads, (heads,), {}),
        ("multi_head_attention", tutor.multi_head_attention, (x, w_q, w_k, w_v, w_o, h, mask), {}),
        ("multi_head_attention_cross", tutor.multi_head_attention, (x, w_q, w_k, w_v, w_o, h),
         {"x_kv": x_enc}),
        ("multi_head_attention_per_head", tutor.multi_head_attention_per_head,
         (x, [(w_q2, w_k2, w_v2), (w_k2, w_q2, w_v2)], w_o, mask), {}),
        ("cross_attention", tutor.cross_attention, (x, x_enc, w_q2, w_k2, w_v2), {}),
    ]


def _arrays_in(obj):
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _arrays_in(item)


def _arrays_of_result(res):
    if isinstance(res, np.ndarray):
        yield res
    elif hasattr(res, "__dataclass_fields__"):
        for name in res.__dataclass_fields__:
            yield from _arrays_of_result(getattr(res, name))


@pytest.mark.parametrize("index", range(len(_every_call(np.random.default_rng(0)))))
def test_inputs_are_not_mutated(index):
    name, fn, args, kwargs = _every_call(np.random.default_rng(index))[index]
    inputs = list(_arrays_in(args)) + list(_arrays_in(list(kwargs.values())))
    copies = [a.copy() for a in inputs]
    fn(*args, **kwargs)
    for before, after in zip(copies, inputs):
        np.testing.assert_array_equal(after, before, err_msg=f"{name} changed its input")


@pytest.mark.parametrize("index", range(len(_every_call(np.random.default_rng(0)))))
def test_read_only_inputs_work(index):
    name, fn, args, kwargs = _every_call(np.random.default_rng(index))[index]
    for a in list(_arrays_in(args)) + list(_arrays_in(list(kwargs.values()))):
        a.flags.writeable = False
    fn(*args, **kwargs)  # must not try to write into any input


@pytest.mark.parametrize("name", ["naive_attention", "project_qkv", "attention", "attention_noscale",
                                  "softmax", "additive_mask", "mask_after_softmax",
                                  "multi_head_attention", "multi_head_attention_per_head",
                                  "cross_attention"])
def test_results_do_not_alias_inputs(name):
    # a page that edits a result in place must not corrupt the input (e.g. a textbook constant)
    calls = {c[0]: c for c in _every_call(np.random.default_rng(7))}
    _, fn, args, kwargs = calls[name]
    inputs = list(_arrays_in(args)) + list(_arrays_in(list(kwargs.values())))
    for out in _arrays_of_result(fn(*args, **kwargs)):
        for a in inputs:
            assert not np.shares_memory(out, a), f"{name} returned a view of its input"


def test_textbook_constants_survive_the_engine():
    before = {n: getattr(tb, n).copy() for n in ("X", "W_Q", "W_K", "W_V", "G_QUERY", "G_KEYS", "G_VALUES")}
    p = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    tutor.attention(p.q, p.k, p.v, tutor.causal_mask(3))
    tutor.naive.naive_attention(tb.X)
    tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES, tb.G_MASK_KEY3)
    for n, arr in before.items():
        np.testing.assert_array_equal(getattr(tb, n), arr)
        assert not getattr(tb, n).flags.writeable


# ---------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------
vectors = hnp.arrays(np.float64, st.integers(1, 8), elements=floats(1e3))


@SETTINGS
@given(vectors, floats(1e3))
def test_softmax_is_shift_invariant(x, c):
    np.testing.assert_allclose(tutor.softmax(x + c), tutor.softmax(x), rtol=1e-9, atol=1e-12)


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(dims, dims), elements=floats(1e3)),
       hnp.arrays(np.float64, st.tuples(dims, st.just(1)), elements=floats(1e3)))
def test_softmax_row_shift_invariant(x, c):
    c = np.resize(c, (x.shape[0], 1))
    np.testing.assert_allclose(tutor.softmax(x + c), tutor.softmax(x), rtol=1e-9, atol=1e-12)


@SETTINGS
@given(hnp.arrays(np.float64, st.tuples(dims, dims), elements=floats(BIG)), st.sampled_from([0, 1, -1]))
def test_softmax_sums_to_one_along_axis(x, axis):
    p = tutor.softmax(x, axis=axis)
    assert np.isfinite(p).all() and (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=axis), 1.0, rtol=0, atol=1e-12)


@SETTINGS
@given(vectors, st.floats(0.05, 20.0))
def test_softmax_with_temperature(x, t):
    p = tutor.softmax(x, temperature=t)
    np.testing.assert_allclose(p, tutor.softmax(x / t), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(p.sum(), 1.0, atol=1e-12)
    # the largest score gets the largest probability (ties in p allowed when scores are ~equal)
    assert p[int(np.argmax(x))] == p.max()
    # a lower temperature sharpens: the top probability does not drop
    assert tutor.softmax(x, temperature=t / 2).max() >= p.max() - 1e-12


def test_softmax_temperature_one_is_default_and_limits():
    x = np.array([2.0, 1.0, 0.0])
    np.testing.assert_array_equal(tutor.softmax(x, temperature=1.0), tutor.softmax(x))
    np.testing.assert_allclose(tutor.softmax(x, temperature=1e6), [1 / 3] * 3, atol=1e-6)
    np.testing.assert_allclose(tutor.softmax(x, temperature=1e-3), [1, 0, 0], atol=1e-12)


@SETTINGS
@given(vectors, st.data())
def test_softmax_minus_inf_is_exact_zero(x, data):
    i = data.draw(st.integers(0, len(x) - 1))
    y = x.copy()
    y[i] = -np.inf
    if np.isneginf(y).all():
        return
    p = tutor.softmax(y)
    assert p[i] == 0.0
    keep = np.arange(len(x)) != i
    np.testing.assert_allclose(p[keep], tutor.softmax(x[keep]), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------
# mask helpers
# ---------------------------------------------------------------------------
@SETTINGS
@given(st.integers(1, 20))
def test_causal_mask_shape_and_values(n):
    m = tutor.causal_mask(n)
    assert m.shape == (n, n) and m.dtype == np.bool_
    i, j = np.indices((n, n))
    np.testing.assert_array_equal(m, j <= i)
    assert m.sum() == n * (n + 1) // 2


@SETTINGS
@given(st.integers(1, 12), st.data())
def test_padding_mask_single_and_batch(n, data):
    length = data.draw(st.integers(1, n))
    m = tutor.padding_mask(length, n)
    assert m.shape == (n, n) and m.dtype == np.bool_
    np.testing.assert_array_equal(m, np.broadcast_to(np.arange(n) < length, (n, n)))
    lengths = data.draw(st.lists(st.integers(1, n), min_size=1, max_size=4))
    mb = tutor.padding_mask(lengths, n)
    assert mb.shape == (len(lengths), n, n)
    for b, ln in enumerate(lengths):
        np.testing.assert_array_equal(mb[b], tutor.padding_mask(ln, n))
    mb[0, 0, 0] = not mb[0, 0, 0]  # the result is a real, writable array (not a broadcast view)


@SETTINGS
@given(hnp.arrays(np.bool_, st.tuples(dims, dims)))
def test_additive_mask_values(mask):
    a = tutor.additive_mask(mask)
    assert a.shape == mask.shape and a.dtype == np.float64
    assert (a[mask] == 0.0).all()
    assert np.isneginf(a[~mask]).all()


def test_padding_mask_in_attention_hides_padding_keys():
    rng = rng_from(3)
    q, k, v = rng.standard_normal((4, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 3))
    r = tutor.attention(q, k, v, tutor.padding_mask(2, 4))
    assert (r.weights[:, 2:] == 0).all()
    np.testing.assert_allclose(r.output, tutor.attention(q, k[:2], v[:2]).output, rtol=1e-12, atol=1e-12)


def test_mask_after_softmax_breaks_row_sums_on_the_textbook_example():
    p = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    w = tutor.attention(p.q, p.k, p.v).weights
    wrong = tutor.mask_after_softmax(w, tutor.causal_mask(3))
    sums = wrong.sum(axis=-1)
    assert round(sums[0], 3) == 0.673        # 猫 keeps only its own 0.673
    assert round(sums[1], 3) == 0.802        # 魚 keeps 0.401 + 0.401
    assert sums[2] == pytest.approx(1.0)     # それ sees everything: nothing lost
    assert not np.allclose(sums, 1.0)
    # the right way (−∞ before softmax) does sum to 1 and differs from the mistake
    right = tutor.attention(p.q, p.k, p.v, tutor.causal_mask(3)).weights
    np.testing.assert_allclose(right.sum(axis=-1), 1.0, atol=1e-12)
    assert not np.allclose(right, wrong)
    # G検定 example: masking key 3 after softmax keeps 0.4011 + 0.1978, not 1
    g = tutor.attention(tb.G_QUERY, tb.G_KEYS, tb.G_VALUES).weights
    assert round(tutor.mask_after_softmax(g, tb.G_MASK_KEY3).sum(), 4) == 0.5989
