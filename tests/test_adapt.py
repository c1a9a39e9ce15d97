"""tutor.adapt: LoRA's trainable parameters (one matrix, a whole model) and its forward pass, the
adapters' and soft prompts' counts, the reward model's loss and the KL-penalised policy (moved here
from tests/test_llm.py with ⑩-2), DPO's loss, RAG's cosine retrieval.

Figures recomputed by the engine: 4,096 × 4,096 with r = 8 → 65,536 of 16,777,216 (1/256); GPT-3
with r = 4 on W_Q and W_V → 18,874,368 (4.7 M at r = 1, 37.7 M at r = 8); BERT-Base's
adapters with m = 64 → 99,136 each, 2,379,264 in all; the demo question's top 2 by cosine B, A but
by the dot product D, B. Properties with hypothesis against plain formulas; bad input raises a
Japanese ValueError; inputs never mutated; each calculation item's answer recomputed from its drawn
inputs by the plain formula.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
from quizzes.core import MOVED, is_advanced
from tutor import adapt, llm, pretrain
from calchelpers import accepted_params, raises_japanese

# ---------------------------------------------------------------------------
# LoRA: counts
# ---------------------------------------------------------------------------
def test_lora_on_one_matrix():
    c = adapt.lora_params(4096, 4096, 8)
    assert (c.frozen, c.b, c.a, c.trainable) == (16_777_216, 32_768, 32_768, 65_536)
    assert c.ratio == 256 and c.share == 1 / 256
    assert adapt.lora_params_rdk(4096, 4096, 8) == 134_217_728
    assert adapt.lora_params_b_only(4096, 1024, 8) == 32_768
    assert adapt.lora_params_with_frozen(4096, 4096, 8) == 16_842_752


def test_lora_on_gpt3_as_in_the_paper():
    g3 = llm.gpt_param_count(96, 12_288, context=2048)
    m = adapt.lora_model(96, len(adapt.GPT3_LORA["matrices"]), 12_288, 12_288, adapt.GPT3_LORA["r"], g3.total)
    assert m.trainable == 18_874_368 and m.total == 174_604_259_328
    assert 9_000 < m.ratio < 10_000                                      # "by 10,000 times" (the abstract)
    # r = 1 and r = 8 on W_Q and W_V: 4.7 M and 37.7 M
    assert round(adapt.lora_trainable(96, 2, 12_288, 12_288, 1) / 1e6, 1) == 4.7
    assert round(adapt.lora_trainable(96, 2, 12_288, 12_288, 8) / 1e6, 1) == 37.7


@settings(max_examples=200)
@given(d=st.integers(1, 5000), k=st.integers(1, 5000), r=st.integers(1, 64))
def test_lora_count_against_the_plain_formula(d, k, r):
    if r > min(d, k):
        raises_japanese(adapt.lora_params, d, k, r)
        return
    c = adapt.lora_params(d, k, r)
    assert c.trainable == d * r + r * k == r * (d + k)
    assert c.frozen == d * k and isinstance(c.trainable, int)
    assert adapt.lora_params_rdk(d, k, r) == r * d * k
    assert adapt.lora_params_with_frozen(d, k, r) == d * k + r * (d + k)
    assert (c.trainable < c.frozen) == (r < d * k / (d + k))             # LoRA saves only below this rank


def test_lora_rank_curve_is_linear_in_r():
    ranks, counts = adapt.lora_rank_curve(4096, 4096, (1, 2, 4, 8))
    assert ranks == (1, 2, 4, 8) and counts == (8192, 16384, 32768, 65536)


def test_lora_count_bad_input():
    raises_japanese(adapt.lora_params, 0, 10, 1)
    raises_japanese(adapt.lora_params, 10, 10, 11)                      # r > min(d, k)
    raises_japanese(adapt.lora_params, 10, 10, 1.5)
    raises_japanese(adapt.lora_params, 2_000_000, 10, 1)
    raises_japanese(adapt.lora_model, 2, 2, 10, 10, 1, 100)             # the matrices exceed the model
    raises_japanese(adapt.lora_model, 1, 1, 10, 10, 1, 0)


# ---------------------------------------------------------------------------
# LoRA: the forward pass
# ---------------------------------------------------------------------------
def test_lora_forward_demo_by_hand():
    zero = np.zeros((2, 1))
    start = adapt.lora_forward(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, zero, adapt.LORA_DEMO_X)
    assert np.array_equal(start.base, [3, 3]) and np.array_equal(start.h, start.base)   # B = 0: the pretrained output
    f = adapt.lora_forward(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B, adapt.LORA_DEMO_X)
    assert np.array_equal(f.ax, [3]) and np.array_equal(f.delta, [3, -3]) and np.array_equal(f.h, [6, 0])
    assert np.array_equal(f.merged, [[2, 1, 2], [-1, 0, 1]])
    assert np.array_equal(f.merged @ f.x, f.h)
    assert np.array_equal(adapt.lora_forward_no_delta(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B,
                                                      adapt.LORA_DEMO_X), [3, 3])
    assert np.array_equal(adapt.lora_forward_no_base(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B,
                                                     adapt.LORA_DEMO_X), [3, -3])


@settings(max_examples=100)
@given(d=st.integers(1, 6), k=st.integers(1, 6), r=st.integers(1, 3), seed=st.integers(0, 10_000),
       alpha=st.one_of(st.none(), st.floats(0.5, 32)))
def test_lora_forward_merges_and_is_rank_r(d, k, r, seed, alpha):
    rng = np.random.default_rng(seed)
    w0, a, b, x = rng.normal(size=(d, k)), rng.normal(size=(r, k)), rng.normal(size=(d, r)), rng.normal(size=k)
    f = adapt.lora_forward(w0, a, b, x, alpha)
    scale = 1.0 if alpha is None else alpha / r
    assert np.allclose(f.h, w0 @ x + scale * (b @ (a @ x)))
    assert np.allclose(f.merged @ x, f.h)                                # no extra step at inference
    assert np.linalg.matrix_rank(f.delta_w) <= r
    if d == k:
        assert np.allclose(adapt.lora_forward_multiplied(w0, a, b, x), (w0 @ (b @ a)) @ x)


def test_lora_init_starts_from_the_pretrained_model():
    a, b = adapt.lora_init(4, 3, 2, np.random.default_rng(0))
    assert a.shape == (2, 3) and b.shape == (4, 2) and not b.any() and a.any()
    w0, x = np.ones((4, 3)), np.array([1.0, 2.0, 3.0])
    assert np.array_equal(adapt.lora_forward(w0, a, b, x).h, w0 @ x)
    raises_japanese(adapt.lora_init, 4, 3, 2, 0)                        # not a Generator


def test_lora_forward_bad_input():
    w0, a, b, x = adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B, adapt.LORA_DEMO_X
    raises_japanese(adapt.lora_forward, w0, a, b, [1.0, 2.0])
    raises_japanese(adapt.lora_forward, w0, a, [[1.0, 2.0]], x)
    raises_japanese(adapt.lora_forward, w0, [[1.0, float("nan"), 0.0]], b, x)
    raises_japanese(adapt.lora_forward, w0, a, b, x, alpha=0)
    raises_japanese(adapt.lora_forward_multiplied, w0, a, b, x)         # W₀ not square


# ---------------------------------------------------------------------------
# adapters and soft prompts
# ---------------------------------------------------------------------------
def test_adapters_of_bert_base():
    c = adapt.adapter_params(768, 64, 12)
    assert (c.down, c.up, c.per_adapter) == (49_216, 49_920, 99_136)
    assert c.per_layer_total == 198_272 and c.total == 2_379_264
    assert adapt.adapter_params_no_bias(768, 64, 12) == 12 * 2 * 2 * 768 * 64
    assert adapt.adapter_params_one_per_layer(768, 64, 12) == 12 * 99_136
    assert adapt.adapter_params_down_only(768, 64, 12) == 12 * 2 * 49_216


@settings(max_examples=150)
@given(d=st.integers(2, 4096), m=st.integers(1, 512), layers=st.integers(1, 48))
def test_adapter_count_against_the_plain_formula(d, m, layers):
    if m >= d:
        raises_japanese(adapt.adapter_params, d, m, layers)
        return
    assert adapt.adapter_params(d, m, layers).total == layers * 2 * (2 * d * m + d + m)


def test_soft_prompts_and_the_comparison_table():
    assert adapt.prompt_tuning_params(20, 4096) == 81_920
    assert adapt.prompt_tuning_every_layer(20, 768, 12) == 12 * 20 * 768
    assert adapt.prefix_tuning_params(20, 768, 12) == 2 * 12 * 20 * 768 == 368_640
    total = pretrain.bert_param_count(12, 768, 12).total
    rows = {r.method: r for r in adapt.peft_table(768, 12, total, 8, 64, 20)}
    assert [r for r in rows] == ["lora", "adapter", "prompt", "prefix", "full"]
    assert rows["lora"].trainable == 12 * 2 * 8 * (768 + 768) == 294_912
    assert rows["full"].share == 1 and rows["prompt"].trainable == 15_360
    assert all(rows[m].share < 0.03 for m in ("lora", "adapter", "prompt", "prefix"))
    raises_japanese(adapt.prompt_tuning_params, 0, 768)


# ---------------------------------------------------------------------------
# RLHF (moved from tests/test_llm.py with the functions)
# ---------------------------------------------------------------------------
def test_reward_loss_of_one_pair():
    r = adapt.reward_pair_loss(2.0, 0.5)
    assert float(r.margin) == 1.5
    assert round(float(r.prob), 4) == 0.8176 and round(float(r.loss), 4) == 0.2014
    assert round(float(adapt.reward_loss_swapped(2.0, 0.5)), 4) == 1.7014
    assert float(adapt.reward_loss_no_minus(2.0, 0.5)) == -float(r.loss) < 0
    assert float(adapt.reward_loss_no_sigmoid(2.0, 0.5)) == -1.5


def test_reward_loss_of_a_batch_is_the_mean():
    ws, ls = (2.0, 1.0, 3.0), (0.5, 1.5, 0.0)
    r = adapt.reward_pair_loss(ws, ls)
    assert r.loss.shape == (3,)
    assert math.isclose(r.mean, float(np.mean([math.log(1 + math.exp(-(w - lo))) for w, lo in zip(ws, ls)])))
    assert round(r.mean, 3) == 0.408


@settings(max_examples=200)
@given(w=st.floats(-30, 30), lo=st.floats(-30, 30))
def test_reward_loss_properties(w, lo):
    r = adapt.reward_pair_loss(w, lo)
    assert float(r.loss) >= 0 and 0 <= float(r.prob) <= 1
    assert math.isclose(float(r.loss), -math.log(1 / (1 + math.exp(-(w - lo)))), rel_tol=1e-9, abs_tol=1e-12)
    # log σ(x) − log σ(−x) = x: swapping the two answers adds the margin
    assert math.isclose(float(adapt.reward_loss_swapped(w, lo)) - float(r.loss), w - lo, abs_tol=1e-9)


@settings(max_examples=200)
@given(a=st.integers(1, 50), b=st.integers(1, 50))
def test_reward_loss_with_log_rewards_is_exact(a, b):
    """r_w = ln a, r_l = ln b: the loss is ln((a + b) / a) and each mistake is ln of its fraction."""
    w, lo = math.log(a), math.log(b)
    assert adapt.reward_loss_exp(a, b) == Fraction(a + b, a)
    assert math.isclose(math.exp(float(adapt.reward_pair_loss(w, lo).loss)), (a + b) / a, rel_tol=1e-12)
    for mistake, fn in (("swapped", adapt.reward_loss_swapped), ("no_minus", adapt.reward_loss_no_minus),
                        ("no_sigmoid", adapt.reward_loss_no_sigmoid)):
        assert math.isclose(math.exp(float(fn(w, lo))), float(adapt.reward_loss_exp(a, b, mistake)), rel_tol=1e-12)
    assert adapt.reward_loss_exp(a, b, "margin") == Fraction(a, b)
    assert adapt.reward_loss_exp(a, b, "win") == Fraction(a, a + b)
    assert adapt.reward_loss_exp(6, 2) == Fraction(4, 3)
    raises_japanese(adapt.reward_loss_exp, a, b, "backwards")


def test_kl_divergence():
    p, q = [0.5, 0.5], [0.9, 0.1]
    assert adapt.kl_divergence(p, p) == 0
    assert math.isclose(adapt.kl_divergence(p, q), 0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(0.5 / 0.1))
    assert adapt.kl_divergence([0.0, 1.0], [0.5, 0.5]) == math.log(2)
    assert adapt.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    raises_japanese(adapt.kl_divergence, [0.5, 0.6], [0.5, 0.5])


def test_kl_optimal_policy_is_a_softmax_and_beats_other_policies():
    ref, r = np.array([0.5, 0.2, 0.05, 0.25]), np.array([1.0, 0.0, 2.0, -1.0])
    k = adapt.kl_optimal_policy(ref, r, 0.5)
    want = ref * np.exp(r / 0.5)
    assert np.allclose(k.policy, want / want.sum())
    assert math.isclose(k.objective, float(k.policy @ r) - 0.5 * adapt.kl_divergence(k.policy, ref))
    rng = np.random.default_rng(0)
    for _ in range(200):
        other = rng.dirichlet(np.ones(4))
        assert float(other @ r) - 0.5 * adapt.kl_divergence(other, ref) <= k.objective + 1e-12
    assert np.allclose(adapt.kl_optimal_policy(ref, r, 1e6).policy, ref, atol=1e-5)          # large β: π_ref
    assert adapt.kl_optimal_policy(ref, r, 0.01).policy[2] > 0.999                         # small β: the best reward
    raises_japanese(adapt.kl_optimal_policy, ref, r, 0)
    raises_japanese(adapt.kl_optimal_policy, ref, r[:3], 1.0)


def test_llm_no_longer_has_the_reward_model():
    assert not hasattr(llm, "reward_pair_loss") and not hasattr(llm, "kl_optimal_policy")


# ---------------------------------------------------------------------------
# DPO
# ---------------------------------------------------------------------------
def test_dpo_demo_and_its_link_to_the_reward_loss():
    d = adapt.dpo_loss(-1.0, -2.0, -3.0, -2.0, 0.5)
    assert (float(d.reward_chosen), float(d.reward_rejected), float(d.pair.margin)) == (0.5, -0.5, 1.0)
    assert math.isclose(d.pair.mean, math.log(1 + math.exp(-1.0)))
    assert round(d.pair.mean, 3) == 0.313


@settings(max_examples=150)
@given(lw=st.floats(-20, 0), rw=st.floats(-20, 0), ll=st.floats(-20, 0), rl=st.floats(-20, 0), beta=st.floats(0.01, 5))
def test_dpo_is_the_reward_loss_on_implicit_rewards(lw, rw, ll, rl, beta):
    d = adapt.dpo_loss(lw, rw, ll, rl, beta)
    z = beta * ((lw - rw) - (ll - rl))
    assert math.isclose(d.pair.mean, math.log1p(math.exp(-z)) if z > -30 else -z, rel_tol=1e-9, abs_tol=1e-9)
    same = adapt.dpo_loss(lw, lw, ll, ll, beta)                          # the policy is still the reference
    assert math.isclose(same.pair.mean, math.log(2))


def test_dpo_bad_input():
    raises_japanese(adapt.dpo_loss, -1.0, -2.0, -3.0, -2.0, 0)
    raises_japanese(adapt.dpo_loss, 0.5, -2.0, -3.0, -2.0, 0.1)          # a log-probability above 0
    raises_japanese(adapt.dpo_loss, [-1.0, -2.0], -2.0, -3.0, -2.0, 0.1)


# ---------------------------------------------------------------------------
# RAG: cosine retrieval
# ---------------------------------------------------------------------------
DOCS = np.array([v for _, _, v in adapt.RAG_DEMO_DOCS])


def test_rag_demo_by_hand():
    r = adapt.retrieve(adapt.RAG_DEMO_QUERY, DOCS, 2)
    assert r.query_norm == 3 and list(r.doc_norms) == [5, 6, 5, 9]
    assert list(r.dots) == [14, 18, 10, 24]
    assert np.allclose(r.cosine, [14 / 15, 1, 10 / 15, 24 / 27])
    assert r.order == (1, 0, 3, 2) and r.top == (1, 0)                  # B, A
    assert adapt.top_by_dot(adapt.RAG_DEMO_QUERY, DOCS, 2) == (3, 1)      # D (the long document), B
    assert adapt.bottom_by_cosine(adapt.RAG_DEMO_QUERY, DOCS, 2) == (2, 3)
    cos, dots = adapt.similarity_table([q for _, q in adapt.RAG_DEMO_QUERIES], DOCS)
    assert cos.shape == dots.shape == (3, 4)
    assert all(row.argmax() == 3 for row in dots)                       # the dot product always picks D
    assert [int(row.argmax()) for row in cos] == [1, 2, 3]             # the cosine picks a fitting one


@settings(max_examples=150)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.1, 50))
def test_cosine_ignores_length_and_stays_in_range(seed, scale):
    rng = np.random.default_rng(seed)
    q, docs = rng.normal(size=3), rng.normal(size=(4, 3))
    r = adapt.retrieve(q, docs, 4)
    assert np.all(np.abs(r.cosine) <= 1)
    assert np.allclose(r.cosine, [q @ d / np.linalg.norm(q) / np.linalg.norm(d) for d in docs])
    longer = adapt.retrieve(q, docs * scale, 4)
    assert np.allclose(longer.cosine, r.cosine) and longer.order == r.order
    assert math.isclose(adapt.cosine_no_norm(q, docs[0]), float(q @ docs[0]))
    assert math.isclose(adapt.cosine_one_norm(q, docs[0]), float(q @ docs[0] / np.linalg.norm(docs[0])))
    assert math.isclose(adapt.cosine_norms_added(q, docs[0]),
                        float(q @ docs[0] / (np.linalg.norm(q) + np.linalg.norm(docs[0]))))


def test_rag_prompt_holds_the_passages_then_the_question():
    p = adapt.rag_prompt("いつ？", ["資料 X です。", "資料 Y です。"])
    assert p.index("[資料 1] 資料 X です。") < p.index("[資料 2] 資料 Y です。") < p.index("質問：いつ？")
    raises_japanese(adapt.rag_prompt, "  ", ["x"])
    raises_japanese(adapt.rag_prompt, "q", [])


def test_rag_bad_input():
    raises_japanese(adapt.retrieve, [0.0, 0.0, 0.0], DOCS, 2)
    raises_japanese(adapt.retrieve, [1.0, 2.0], DOCS, 2)
    raises_japanese(adapt.retrieve, [1.0, 2.0, 2.0], np.vstack([DOCS, [0.0, 0.0, 0.0]]), 2)
    raises_japanese(adapt.retrieve, [1.0, 2.0, 2.0], DOCS, 5)
    raises_japanese(adapt.retrieve, [1.0, float("inf"), 2.0], DOCS, 1)


# ---------------------------------------------------------------------------
# conventions
# ---------------------------------------------------------------------------
def test_inputs_are_never_mutated():
    ref, r = np.array([0.5, 0.2, 0.05, 0.25]), np.array([1.0, 0.0, 2.0, -1.0])
    w, lo = np.array([2.0, 1.0]), np.array([0.5, 1.5])
    w0, a, b, x = (np.array(m, dtype=float) for m in (adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B,
                                                       adapt.LORA_DEMO_X))
    q, docs = np.array(adapt.RAG_DEMO_QUERY), DOCS.copy()
    arrays = (ref, r, w, lo, w0, a, b, x, q, docs)
    copies = [v.copy() for v in arrays]
    adapt.kl_optimal_policy(ref, r, 0.5)
    adapt.reward_pair_loss(w, lo)
    adapt.lora_forward(w0, a, b, x, 2.0)
    adapt.retrieve(q, docs, 2)
    adapt.top_by_distance(q, docs, 2)
    assert all(np.array_equal(v, c) for v, c in zip(arrays, copies))


# ---------------------------------------------------------------------------
# the calculation items: answers recomputed here from the drawn inputs, by the plain formulas
# ---------------------------------------------------------------------------
def _ln_text(f: Fraction) -> str:
    return f"$\\ln {f.numerator}$" if f.denominator == 1 else f"$\\ln\\frac{{{f.numerator}}}{{{f.denominator}}}$"


def _cos(q, d) -> float:
    return sum(a * b for a, b in zip(q, d)) / math.sqrt(sum(a * a for a in q)) / math.sqrt(sum(b * b for b in d))


def _exact_cos_text(q, d) -> str:
    """q·d / (‖q‖‖d‖) as an exact fraction (the lengths are whole), 四捨五入 to 3 places, zeros dropped."""
    nq, nd = math.isqrt(sum(a * a for a in q)), math.isqrt(sum(b * b for b in d))
    assert nq * nq == sum(a * a for a in q) and nd * nd == sum(b * b for b in d)
    f = Fraction(sum(a * b for a, b in zip(q, d)), nq * nd)
    text = str(Decimal(f.numerator) / Decimal(f.denominator))
    text = f"{Decimal(text).quantize(Decimal('0.001'), rounding=ROUND_HALF_UP):f}"
    return text.rstrip("0").rstrip(".")


def _top2(p) -> str:
    cos = [_cos(p["q"], d) for d in p["docs"]]
    i, j = sorted(sorted(range(4), key=lambda t: -cos[t])[:2])
    return f"文書 {'ABCD'[i]} と文書 {'ABCD'[j]}"


def _forward(p) -> str:
    w0, a, b, x = (np.array(m) for m in (p["w0"], p["a"], p["b"], p["x"]))
    h = [int(v) for v in w0 @ x + b @ (a @ x)]
    return f"$({h[0]},\\ {h[1]})$"


def _blank(p) -> str:
    d, l, r, m, n = p["d"], p["l"], p["r"], p["m"], p["n"]
    return f"（ア）{l * 2 * r * 2 * d:,}　（イ）{l * 2 * (2 * d * m + d + m):,}　（ウ）{n * d:,}"


PLAIN = {
    "adapt.lora_params": lambda p: f"{p['r'] * (p['d'] + p['k']):,}",
    "adapt.lora_forward": _forward,
    "adapt.adapter_params": lambda p: f"{2 * (2 * p['d'] * p['m'] + p['d'] + p['m']):,}",
    "adapt.peft_blank": _blank,
    "adapt.reward_loss": lambda p: _ln_text(Fraction(p["a"] + p["b"], p["a"])),
    "adapt.rag_cosine": lambda p: _exact_cos_text(p["q"], p["d"]),
    "adapt.rag_topk": _top2,
}


@pytest.mark.parametrize("gid", sorted(PLAIN))
def test_calculation_answers_follow_from_the_drawn_inputs(gid):
    for seed in range(150):
        p, q = accepted_params(gid, seed)
        assert q.choices[q.answer] == PLAIN[gid](p), (gid, seed, p)


def test_every_adapt_calculation_item_is_checked_tagged_and_the_reward_loss_moved():
    calc = quizzes.by_topic("adapt", "calc")
    assert sorted(calc) == sorted(PLAIN)
    assert all(is_advanced(g) for g in calc)                            # the syllabus names the methods, not these sums
    assert MOVED["llm.reward_loss"] == "adapt.reward_loss"
    assert quizzes.from_id("llm.reward_loss#3").id == "adapt.reward_loss#3"
    for old, new in (("llm.k07", "adapt.k01"), ("llm.k08", "adapt.k02"), ("llm.k09", "adapt.k03"),
                     ("llm.k10", "adapt.k04"), ("llm.k11", "adapt.k05")):
        assert MOVED[f"kb.{old}"] == f"kb.{new}"
        assert quizzes.from_id(f"kb.{old}#1").stem == quizzes.from_id(f"kb.{new}#1").stem


def test_the_topk_items_offer_four_different_pairs():
    for seed in range(60):
        p, q = accepted_params("adapt.rag_topk", seed)
        assert len(set(q.choices)) == 4 and all(c.startswith("文書 ") for c in q.choices)
