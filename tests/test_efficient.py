"""tutor.efficient and quizzes/gen_efficient.py: distillation's soft targets and loss, symmetric and
affine quantization and the weights' memory, magnitude pruning and the lottery ticket's rewind, the
KV cache with MQA/GQA (moved from ⑩-1), a sliding window with global tokens, speculative decoding's
expected tokens, a mixture of experts' active parameters.

Hand-checked values: the teacher (4, 2, 0) at T = 2 is (0.665, 0.245, 0.090) (e² : e : 1); the
vector (0.5, −1.27, 0.834, −0.316) at 8 bits has S = 0.01 and q = (50, −127, 83, −32); a 7B model
is 28 / 14 / 7 / 3.5 GB at 32 / 16 / 8 / 4 bits; the 3×4 example pruned by half keeps |w| > 0.25;
a 7B-size model's KV cache is 2 GiB at 4,096 tokens; 12 tokens with a window of ±2 compute 54 scores
(60 − 6). Properties with hypothesis against plain loops; bad input raises a Japanese ValueError;
inputs never mutated; every calculation item's answer recomputed here by the plain formula.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
from calchelpers import accepted_params, raises_japanese
from quizzes.core import GENERATOR_INFO, MOVED, is_advanced
from tutor import efficient as ef

# ---------------------------------------------------------------------------
# distillation
# ---------------------------------------------------------------------------
def test_soft_targets_of_the_demo_teacher():
    e = math.e
    assert np.allclose(ef.soft_targets(ef.DEMO_TEACHER, 2).probs, np.array([e * e, e, 1]) / (e * e + e + 1))
    assert np.allclose(ef.soft_targets(ef.DEMO_TEACHER, 2).exps, [e * e, e, 1])
    assert ef.soft_targets(ef.DEMO_TEACHER, 2).exp_sum == pytest.approx(11.107, abs=5e-4)
    rows = [ef.soft_targets(ef.DEMO_TEACHER, t).probs for t in ef.DEMO_TEMPERATURES]
    assert [round(float(r[0]), 3) for r in rows] == [0.867, 0.665, 0.506]
    assert rows[0][2] < rows[1][2] < rows[2][2]                              # the small one rises with T
    assert ef.soft_target_curve(ef.DEMO_TEACHER).shape == (3, len(ef.CURVE_TEMPERATURES))


def test_soft_targets_of_ln_logits_are_ratios():
    z = ef.logits_for([6, 3, 1], 3)                                          # ln 216, ln 27, 0
    assert np.allclose(z, [math.log(216), math.log(27), 0.0])
    assert np.allclose(ef.soft_targets(z, 3).probs, [0.6, 0.3, 0.1])
    assert np.allclose(ef.soft_targets_undivided(z, 3), np.array([216, 27, 1]) / 244)
    assert np.allclose(ef.soft_targets_multiplied(z, 3), np.array([6 ** 9, 3 ** 9, 1]) / (6 ** 9 + 3 ** 9 + 1))
    assert np.allclose(ef.soft_targets_divided_after(z, 3), np.array([216, 27, 1]) / 244 / 3)


@settings(max_examples=200)
@given(z=st.lists(st.floats(-20, 20), min_size=2, max_size=6), t=st.floats(0.2, 50))
def test_soft_targets_keep_the_order_and_flatten(z, t):
    p = ef.soft_targets(z, t).probs
    assert p.sum() == pytest.approx(1.0) and (p >= 0).all()
    e = np.exp((np.array(z) - max(z)) / t)
    assert np.allclose(p, e / e.sum())                                      # the plain formula
    hotter = ef.soft_targets(z, 2 * t).probs
    assert hotter.max() <= p.max() + 1e-12 and hotter.min() >= p.min() - 1e-12
    order = np.argsort(z, kind="stable")
    assert np.all(np.diff(p[order]) >= -1e-12)                              # the order is kept


def test_distillation_loss_of_the_demo():
    d = ef.distillation_loss(ef.DEMO_TEACHER, ef.DEMO_STUDENT, 2, 0, 0.9)
    p, q = d.teacher.probs, d.student.probs
    assert d.soft_ce == pytest.approx(-(p * np.log(q)).sum())
    assert d.t2 == 4 and d.soft == pytest.approx(4 * d.soft_ce)
    assert d.hard == pytest.approx(-math.log(math.e ** 2 / (2 * math.e ** 2 + 1)))
    assert d.total == pytest.approx(0.9 * d.soft + 0.1 * d.hard)
    assert (round(d.soft_ce, 3), round(d.soft, 3), round(d.hard, 3), round(d.total, 3)) == (0.952, 3.808, 0.759, 3.503)


def test_soft_term_and_its_mistakes_with_powers_of_two():
    p, q = [0.5, 0.25, 0.125, 0.125], [0.25, 0.25, 0.25, 0.25]
    assert ef.as_ln2_multiple(ef.soft_cross_entropy(p, q)) == 2                 # −Σ p log ¼ = 2 ln 2
    assert ef.as_ln2_multiple(ef.soft_term(p, q, 2)) == 8
    assert ef.as_ln2_multiple(ef.soft_term_no_t2(p, q, 2)) == 2
    assert ef.as_ln2_multiple(ef.soft_term_t_once(p, q, 2)) == 4
    assert ef.as_ln2_multiple(ef.soft_term_divided(p, q, 2)) == Fraction(1, 2)
    assert ef.as_ln2_multiple(ef.soft_term_swapped(p, q, 2)) == 4 * Fraction(9, 4)   # −Σ ¼ log p = 9/4 ln 2
    raises_japanese(ef.as_ln2_multiple, 1.0)


def test_distillation_bad_input():
    raises_japanese(ef.soft_targets, [1.0], 2)
    raises_japanese(ef.soft_targets, [1.0, 2.0], 0)
    raises_japanese(ef.soft_targets, [1.0, float("nan")], 2)
    raises_japanese(ef.soft_targets, [1.0, 2.0], "x")
    raises_japanese(ef.soft_cross_entropy, [0.5, 0.5], [1.0, 0.0])
    raises_japanese(ef.soft_cross_entropy, [0.5, 0.6], [0.5, 0.5])
    raises_japanese(ef.distillation_loss, [1, 2, 3], [1, 2], 2)
    raises_japanese(ef.distillation_loss, [1, 2, 3], [1, 2, 3], 2, 3)
    raises_japanese(ef.distillation_loss, [1, 2, 3], [1, 2, 3], 2, 0, 1.5)
    raises_japanese(ef.logits_for, [2, 0], 2)


# ---------------------------------------------------------------------------
# quantization
# ---------------------------------------------------------------------------
def test_symmetric_int8_of_the_demo_vector():
    r = ef.quantize(ef.DEMO_WEIGHTS, 8)
    assert (r.qmin, r.qmax, r.zero_point) == (-127, 127, 0) and r.scale == pytest.approx(0.01)
    assert r.q.tolist() == [50, -127, 83, -32]
    assert np.allclose(r.dequantized, [0.5, -1.27, 0.83, -0.32]) and np.allclose(r.abs_error, [0, 0, 0.004, 0.004])
    assert r.half_step == pytest.approx(0.005) and r.max_error <= r.half_step
    cut = ef.quantize_truncated(ef.DEMO_WEIGHTS, 8)
    assert cut.q.tolist() == [50, -127, 83, -31] and cut.abs_error[3] == pytest.approx(0.006)
    assert ef.scale_power_of_two(ef.DEMO_WEIGHTS, 8) == pytest.approx(1.27 / 128)
    assert ef.scale_unsigned_steps(ef.DEMO_WEIGHTS, 8) == pytest.approx(1.27 / 255)


def test_affine_quantization_maps_the_range_onto_0_to_255():
    r = ef.quantize([-1.0, 0.0, 3.0], 8, symmetric=False)
    assert r.scale == pytest.approx(4 / 255) and r.zero_point == round(255 / 4)
    assert r.q.tolist() == [0, r.zero_point, 255]
    assert r.dequantized[1] == 0.0                                             # the real 0 is exact


@settings(max_examples=200)
@given(x=st.lists(st.floats(-100, 100), min_size=1, max_size=8).filter(lambda v: max(map(abs, v)) > 1e-3),
       bits=st.integers(2, 12), symmetric=st.booleans())
def test_quantization_error_is_at_most_half_a_step(x, bits, symmetric):
    r = ef.quantize(x, bits, symmetric=symmetric)
    assert (r.q >= r.qmin).all() and (r.q <= r.qmax).all() and np.all(r.q == np.round(r.q))
    assert r.max_error <= r.half_step * (1 + 1e-9) + 1e-12
    assert np.allclose(r.dequantized, r.scale * (r.q - r.zero_point))
    one_more = ef.quantize(x, bits + 1, symmetric=symmetric)
    assert one_more.scale < r.scale                                            # a bit more: a finer step


def test_rounding_is_half_away_from_zero():
    assert ef.round_half_away([2.5, -2.5, 0.49, -0.51]).tolist() == [3, -3, 0, -1]


def test_weight_memory():
    assert [(b, ef.in_gb(v)) for b, v in ef.memory_table(7_000_000_000)] == [(32, 28), (16, 14), (8, 7), (4, 3.5)]
    assert ef.weight_bytes_bits_as_bytes(10 ** 9, 4) == 8 * ef.weight_bytes(10 ** 9, 4)
    assert ef.weight_bytes_ratio_inverted(10 ** 9, 4, 16) == 4 * ef.weight_bytes(10 ** 9, 16)
    assert ef.quant_error_curve(ef.DEMO_WEIGHTS)[1][-1] == pytest.approx(0.005)


def test_quantization_bad_input():
    raises_japanese(ef.quantize, [0.0, 0.0], 8)
    raises_japanese(ef.quantize, [1.0], 1)
    raises_japanese(ef.quantize, [1.0], 17)
    raises_japanese(ef.quantize, [[1.0, 2.0]], 8)
    raises_japanese(ef.quantize, [1.0, float("inf")], 8)
    raises_japanese(ef.weight_bytes, 0, 8)
    raises_japanese(ef.weight_bytes, 10, 0)


# ---------------------------------------------------------------------------
# pruning and the lottery ticket
# ---------------------------------------------------------------------------
def test_magnitude_pruning_of_the_demo_matrix():
    p = ef.magnitude_prune(ef.DEMO_MATRIX, 0.5)
    assert (p.removed, p.kept, p.threshold) == (6, 6, 0.25)
    w = np.array(ef.DEMO_MATRIX)
    assert np.array_equal(p.pruned, np.where(np.abs(w) > 0.25, w, 0.0))
    t = ef.winning_ticket(ef.DEMO_INIT, ef.DEMO_MATRIX, 0.5)
    assert np.array_equal(t.keep, p.keep) and np.array_equal(t.ticket, np.where(p.keep, ef.DEMO_INIT, 0.0))
    assert ef.magnitude_prune(ef.DEMO_MATRIX, 0).threshold is None and ef.magnitude_prune(ef.DEMO_MATRIX, 1).kept == 0


def test_pruning_mistakes():
    w = [0.3, -0.9, 0.1, -0.2]
    assert ef.magnitude_prune(w, 0.5).pruned.tolist() == [0.3, -0.9, 0, 0]
    assert ef.prune_signed(w, 0.5).pruned.tolist() == [0.3, 0, 0.1, 0]
    assert ef.prune_largest(w, 0.5).pruned.tolist() == [0, 0, 0.1, -0.2]
    assert ef.prune_kept_share(w, 0.25).pruned.tolist() == [0, -0.9, 0, 0]


@settings(max_examples=200)
@given(w=st.lists(st.floats(-10, 10), min_size=1, max_size=30), s=st.floats(0, 1))
def test_pruning_removes_the_smallest_magnitudes(w, s):
    p = ef.magnitude_prune(w, s)
    assert p.removed == math.floor(s * len(w) + 0.5 + 1e-9) and p.kept == len(w) - p.removed
    a = np.abs(np.array(w))
    if 0 < p.removed < len(w):
        assert a[~p.keep].max() <= a[p.keep].min()                             # every removed ≤ every kept
    assert np.array_equal(p.pruned[p.keep], np.array(w)[p.keep]) and (p.pruned[~p.keep] == 0).all()


def test_pruning_bad_input():
    raises_japanese(ef.magnitude_prune, [1.0, 2.0], 1.5)
    raises_japanese(ef.magnitude_prune, [1.0, 2.0], "x")
    raises_japanese(ef.magnitude_prune, np.zeros((2, 2, 2)), 0.5)
    raises_japanese(ef.winning_ticket, [1.0, 2.0], [1.0, 2.0, 3.0], 0.5)


# ---------------------------------------------------------------------------
# KV cache (moved from ⑩-1)
# ---------------------------------------------------------------------------
def test_kv_cache_of_a_7b_size_model():
    c = ef.kv_cache(32, 32, 128, 4096)
    assert c.per_token == 524_288 and ef.in_kib(c.per_token) == 512
    assert c.total == 2 * ef.GIB == 2_147_483_648 and ef.in_gib(c.total) == 2
    assert ef.kv_cache_bytes(32, 8, 128, 4096) == 512 * ef.MIB                  # GQA, 8 KV heads
    assert ef.kv_cache_bytes(32, 1, 128, 4096) == 64 * ef.MIB                   # MQA
    assert (ef.kv_saving(32, 32), ef.kv_saving(32, 8), ef.kv_saving(32, 1)) == (1, 4, 32)
    assert ef.kv_groups(8, 2) == (0, 0, 0, 0, 1, 1, 1, 1) and ef.kv_groups(4, 4) == (0, 1, 2, 3)


def test_kv_cache_mistakes():
    args = (80, 8, 128, 1024, 2, 2)
    right = ef.kv_cache_bytes(*args)
    assert right == 2 * 80 * 8 * 128 * 1024 * 2 * 2 == 640 * ef.MIB
    assert ef.kv_cache_bytes_k_only(*args) == right // 2
    assert ef.kv_cache_bytes_query_heads(80, 64, *args[1:]) == 8 * right
    assert ef.kv_cache_bytes_one_layer(*args) == right // 80
    assert ef.kv_cache_bytes_no_batch(*args) == right // 2
    curve = ef.kv_cache_curve(32, 32, [32, 8], 128, (1024, 2048))
    assert curve == {32: (512 * ef.MIB, ef.GIB), 8: (128 * ef.MIB, 256 * ef.MIB)}


@settings(max_examples=200)
@given(l=st.integers(1, 100), g=st.integers(1, 64), dh=st.integers(1, 256), t=st.integers(1, 10 ** 5),
       b=st.integers(1, 8), nbytes=st.sampled_from([1, 2, 4]))
def test_kv_cache_against_a_plain_count(l, g, dh, t, b, nbytes):
    values = sum(2 * g * dh for _layer in range(l))                       # K and V of one token, every layer
    assert ef.kv_cache_bytes(l, g, dh, t, nbytes, b) == values * t * b * nbytes


def test_kv_cache_bad_input():
    assert "割り切れません" in raises_japanese(ef.kv_saving, 32, 5)
    raises_japanese(ef.kv_cache, 0, 8, 128, 4096)
    raises_japanese(ef.kv_cache, 32, 8, 128, 10 ** 8)
    raises_japanese(ef.kv_cache_bytes_query_heads, 32, 30, 8, 128, 4096)
    raises_japanese(ef.kv_cache_curve, 32, 32, [32, 5], 128, (1024,))


# ---------------------------------------------------------------------------
# sparse attention, speculative decoding, mixture of experts
# ---------------------------------------------------------------------------
def test_window_pairs_of_the_demo():
    w = ef.window_pairs(12, 2)
    assert (w.full, w.pairs, w.width) == (144, 54, 5)
    assert ef.window_pairs_no_edges(12, 2) == 60 and ef.window_edge_cut(2) == 6
    assert ef.window_pairs_one_side(12, 2) == 33
    g = ef.window_pairs(12, 2, 1)
    assert g.pairs == 54 + 2 * (12 - 3) and g.mask[0].all() and g.mask[:, 0].all()
    assert ef.window_pairs(5, 5).pairs == 25                                  # a window wider than the sequence


@settings(max_examples=200)
@given(n=st.integers(1, 60), r=st.integers(0, 70), g=st.integers(0, 5))
def test_window_mask_against_a_plain_loop(n, r, g):
    g = min(g, n)
    m = ef.window_mask(n, r, g)
    plain = [[abs(i - j) <= r or i < g or j < g for j in range(n)] for i in range(n)]
    assert m.tolist() == plain and np.array_equal(m, m.T)
    if g == 0 and r < n:
        assert ef.window_pairs(n, r).pairs == n * (2 * r + 1) - r * (r + 1)


def test_speculative_tokens_and_moe():
    assert ef.speculative_tokens(0.8, 4) == pytest.approx((1 - 0.8 ** 5) / 0.2) == pytest.approx(3.3616)
    assert ef.speculative_tokens(1.0, 4) == 5 and ef.speculative_tokens(0.0, 4) == 1
    m = ef.moe_params(100, 8, 2)
    assert (m.total, m.active) == (800, 200)


def test_inference_bad_input():
    raises_japanese(ef.window_mask, 0, 1)
    raises_japanese(ef.window_mask, 4, 1, 5)
    raises_japanese(ef.window_mask, 5000, 1)
    raises_japanese(ef.speculative_tokens, 1.5, 4)
    raises_japanese(ef.speculative_tokens, 0.5, 0)
    raises_japanese(ef.moe_params, 10, 4, 5)


def test_inputs_are_never_mutated():
    z, x, w, w0 = (np.array(v, dtype=float) for v in (ef.DEMO_TEACHER, ef.DEMO_WEIGHTS, ef.DEMO_MATRIX, ef.DEMO_INIT))
    copies = [a.copy() for a in (z, x, w, w0)]
    ef.soft_targets(z, 2)
    ef.distillation_loss(z, z, 3)
    ef.quantize(x, 4)
    ef.quantize(x, 8, symmetric=False)
    ef.quantize_truncated(x, 8)
    ef.magnitude_prune(w, 0.5)
    ef.prune_signed(w, 0.5)
    ef.winning_ticket(w0, w, 0.5)
    assert all(np.array_equal(a, b) for a, b in zip((z, x, w, w0), copies))


# ---------------------------------------------------------------------------
# the calculation items: answers recomputed here from the drawn inputs, by the plain formulas
# ---------------------------------------------------------------------------
def _trim(x: float, nd: int = 3) -> str:
    from decimal import ROUND_HALF_UP, Decimal
    text = f"{Decimal(repr(round(x, 9))).quantize(Decimal(1).scaleb(-nd), rounding=ROUND_HALF_UP):,}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _ln2(c: Fraction) -> str:
    return f"${c.numerator}\\ln 2$" if c.denominator == 1 else f"$\\frac{{{c.numerator}}}{{{c.denominator}}}\\ln 2$"


def _plain_soft(p):
    return _trim(p["m"][p["j"]] / sum(p["m"]))


def _plain_loss(p):
    bits = {Fraction(1, 2): 1, Fraction(1, 4): 2, Fraction(1, 8): 3}
    return _ln2(p["t"] ** 2 * sum(a * bits[b] for a, b in zip(p["p"], p["q"])))


def _plain_quant(p):
    qmax = 2 ** (p["bits"] - 1) - 1
    s = max(abs(v) for v in p["x"]) / qmax
    v = p["x"][p["j"]] / s
    q = int(math.copysign(math.floor(abs(v) + 0.5), v))
    return f"（ア）{_trim(s, 4)}　（イ）{q}　（ウ）{_trim(s * q, 4)}"


def _plain_prune(p):
    k = int(p["s"] * 6)
    gone = sorted(range(6), key=lambda i: abs(p["w"][i]))[:k]
    kept = [0 if i in gone else v for i, v in enumerate(p["w"])]
    return "$(" + ",\\ ".join(_trim(v) for v in kept) + ")$"


PLAIN = {
    "efficient.soft_target": _plain_soft,
    "efficient.distill_loss": _plain_loss,
    "efficient.quant_blank": _plain_quant,
    "efficient.weight_memory": lambda p: f"{_trim(p['n'] * p['to'] / 8 / 10 ** 9, 2)} GB",
    "efficient.prune": _plain_prune,
    "efficient.window_pairs": lambda p: f"{p['n'] * (2 * p['r'] + 1) - p['r'] * (p['r'] + 1):,}",
    "efficient.kv_cache": lambda p: f"{_trim(2 * p['l'] * p['g'] * p['dh'] * p['t'] * 2 * p['b'] / 2 ** 20)} MiB",
}


@pytest.mark.parametrize("gid", sorted(PLAIN))
def test_calculation_answers_follow_from_the_drawn_inputs(gid):
    for seed in range(150):
        p, q = accepted_params(gid, seed)
        assert q.choices[q.answer] == PLAIN[gid](p), (gid, seed, p)


def test_every_calculation_item_is_checked_tagged_and_the_page_has_every_form():
    calc = quizzes.by_topic("efficient", "calc")
    assert sorted(calc) == sorted(PLAIN)
    assert sorted(g for g in calc if is_advanced(g)) == ["efficient.distill_loss", "efficient.kv_cache",
                                                         "efficient.window_pairs"]
    stems = [quizzes.GENERATORS[g](1).stem for g in calc]
    assert any("（ア）" in s for s in stems) and any("最も適切" in s for s in stems)


def test_the_kv_cache_item_moved_from_llm():
    assert MOVED["llm.kv_cache"] == "efficient.kv_cache" and "llm.kv_cache" not in quizzes.GENERATORS
    assert quizzes.from_id("llm.kv_cache#5") == quizzes.from_id("efficient.kv_cache#5")
    assert GENERATOR_INFO["efficient.kv_cache"].topic == "efficient"
    for old, new in (("kb.llm.k15", "kb.efficient.k01"), ("kb.llm.k16", "kb.efficient.k02"), ("kb.llm.k17", "kb.efficient.k03")):
        assert MOVED[old] == new and old not in quizzes.GENERATORS
        assert quizzes.from_id(f"{old}#3") == quizzes.from_id(f"{new}#3")


def test_the_quant_blank_offers_each_slip_once():
    """Each (ア)(イ)(ウ) value appears in two choices: the scale slip in (ア), truncation in (イ)(ウ)."""
    for seed in range(60):
        q = quizzes.GENERATORS["efficient.quant_blank"](seed)
        names = [m.split("：")[0] for m in q.misconceptions if m]
        both = [n for n in names if "＋" in n]
        assert "四捨五入せず切り捨てた" in names and len(both) == 1, names
        assert set(both[0].split("＋")) == set(names) - set(both)
