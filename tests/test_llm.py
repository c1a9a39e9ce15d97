"""tutor.llm: GPT-2/3 parameter counts, scaling laws and the compute-optimal split, BPE, Swin's window
cost, MAE's mask (the reward model and the KL-penalised policy moved with ⑩-2 to tutor.adapt:
tests/test_adapt.py; the KV cache to ⑩-3: tests/test_efficient.py; CLIP to ⑪: tests/test_multimodal.py).

Published figures recomputed by the engine from the sizes: GPT-2 small 124,439,808 … GPT-2 XL
1,557,611,200, GPT-3 174,604,259,328 ≈ 175 B with 12·L·d² = 173,946,175,488; Chinchilla's budget
5.88×10²³ → 7×10¹⁰ parameters and 1.4×10¹² tokens; Swin-T's first stage 64 times less attention;
MAE 49 of 196 patches. Properties with hypothesis against plain loops; bad input raises a Japanese ValueError; inputs never mutated.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor import llm
from calchelpers import accepted_params, raises_japanese

# ---------------------------------------------------------------------------
# GPT: parameter counts
# ---------------------------------------------------------------------------
PUBLISHED = {"GPT-2 small": 124_439_808, "GPT-2 medium": 354_823_168, "GPT-2 large": 774_030_080,
             "GPT-2 XL": 1_557_611_200, "GPT-3 175B": 174_604_259_328}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_gpt_sizes_match_the_published_counts(name):
    s = llm.GPT_SIZES[name]
    p = llm.gpt_param_count(s["layers"], s["d_model"], context=s["context"])
    assert p.total == PUBLISHED[name]


def test_gpt3_part_by_part_and_the_rule_of_thumb():
    p = llm.gpt_param_count(96, 12_288, context=2048)
    assert (p.d_ff, p.vocab) == (49_152, 50_257)
    assert p.attention == 4 * 12_288 ** 2 + 4 * 12_288 == 604_028_928
    assert p.ffn == 2 * 12_288 * 49_152 + 49_152 + 12_288 == 1_208_020_992
    assert p.per_layer == 1_812_099_072 and p.blocks == 173_961_510_912
    assert p.token_embedding == 617_558_016 and p.position_embedding == 25_165_824 and p.final_norm == 24_576
    assert p.rule_of_thumb == llm.rule_of_thumb_params(96, 12_288) == 173_946_175_488
    assert abs(p.total - 175e9) / 175e9 < 0.01                           # "175 B"
    assert round(p.rule_share, 3) == 0.996
    assert round(llm.gpt_param_count(12, 768, context=1024).rule_share, 3) == 0.683


def test_rule_of_thumb_mistakes():
    l, d = 24, 1024
    assert llm.rule_params_no_ffn(l, d) == 4 * l * d * d
    assert llm.rule_params_square_ffn(l, d) == 6 * l * d * d
    assert llm.rule_params_linear_d(l, d) == 12 * l * d
    assert llm.rule_params_one_layer(l, d) == 12 * d * d


@settings(max_examples=150)
@given(layers=st.integers(1, 100), d=st.integers(1, 5000), v=st.integers(1, 60_000), t=st.integers(1, 5000))
def test_gpt_count_against_a_plain_sum(layers, d, v, t):
    p = llm.gpt_param_count(layers, d, v, t)
    per_layer = sum([d * d + d] * 4) + (d * 4 * d + 4 * d) + (4 * d * d + d) + 2 * (2 * d)
    assert p.per_layer == per_layer == 12 * d * d + 13 * d
    assert p.total == v * d + t * d + layers * per_layer + 2 * d
    assert p.rule_of_thumb <= p.total


def test_gpt_count_refuses_bad_sizes():
    assert "層数" in raises_japanese(llm.gpt_param_count, 0, 768)
    raises_japanese(llm.gpt_param_count, 12, 768.5)
    raises_japanese(llm.gpt_param_count, 12, 2_000_000)
    raises_japanese(llm.rule_of_thumb_params, True, 768)


# ---------------------------------------------------------------------------
# scaling laws and the compute-optimal split
# ---------------------------------------------------------------------------
def test_chinchilla_budget_gives_70b_parameters_and_1_4t_tokens():
    c = llm.budget_for(70_000_000_000)
    assert c == 588_000_000_000_000_000_000_000 == llm.training_flops(70 * 10 ** 9, 1_400 * 10 ** 9)
    best = llm.compute_optimal(c)
    assert (best.params, best.tokens) == (70_000_000_000, 1_400_000_000_000) == \
        (llm.CHINCHILLA["params"], llm.CHINCHILLA["tokens"])
    assert isinstance(best.params, int) and isinstance(best.tokens, int)
    assert llm.compute_optimal_sci(5.88, 23) == best


def test_compute_optimal_mistakes():
    c = llm.budget_for(9 * 10 ** 8)
    best = llm.compute_optimal(c)
    assert llm.optimal_tokens_params_instead(c) == best.params == 9 * 10 ** 8
    assert llm.optimal_tokens_no_sqrt(c) == c // 6
    assert llm.optimal_tokens_six_divided(c) == 6 * best.tokens


def test_gpt3_was_trained_on_too_few_tokens_for_its_budget():
    c = llm.training_flops(175 * 10 ** 9, llm.GPT3_TRAINING_TOKENS)
    assert c == 315 * 10 ** 21
    best = llm.compute_optimal(c)
    assert best.params == pytest.approx(math.sqrt(c / 120)) and best.params < 175e9
    assert best.tokens == pytest.approx(20 * best.params) and best.tokens > llm.GPT3_TRAINING_TOKENS


@settings(max_examples=200)
@given(k=st.integers(1, 999), e=st.integers(0, 12), r=st.sampled_from([1, 5, 20, 40]))
def test_compute_optimal_inverts_the_budget_exactly(k, e, r):
    n = k * 10 ** e
    c = llm.budget_for(n, r)
    assert c == 6 * n * (r * n)
    best = llm.compute_optimal(c, r)
    assert (best.params, best.tokens) == (n, r * n)
    assert llm.training_flops(best.params, best.tokens) == c


@settings(max_examples=100)
@given(c=st.floats(1e10, 1e30))
def test_compute_optimal_float_budgets(c):
    best = llm.compute_optimal(c)
    assert math.isclose(6 * best.params * best.tokens, c, rel_tol=1e-9)
    assert math.isclose(best.tokens / best.params, 20, rel_tol=1e-9)


def test_budget_doubling_rule():
    small, big = llm.compute_optimal(llm.budget_for(10 ** 9)), llm.compute_optimal(4 * llm.budget_for(10 ** 9))
    assert (big.params, big.tokens) == (2 * small.params, 2 * small.tokens)


def test_power_law_is_a_line_on_log_axes():
    ns, losses = llm.loss_curve(6, 12, 2)
    assert ns.shape == losses.shape == (13,)
    slopes = np.diff(np.log(losses)) / np.diff(np.log(ns))
    assert np.allclose(slopes, -llm.KAPLAN_ALPHA_N)
    assert round(llm.loss_factor(10), 4) == 0.8395
    assert math.isclose(float(llm.power_law_loss(llm.KAPLAN_N_C)), 1.0)
    budgets, params, tokens = llm.optimal_curve(18, 26)
    assert np.allclose(tokens, 20 * params) and np.allclose(6 * params * tokens, budgets)


def test_scaling_bad_input():
    raises_japanese(llm.power_law_loss, [1e6, -1.0])
    raises_japanese(llm.compute_optimal, 0)
    raises_japanese(llm.compute_optimal, float("nan"))
    raises_japanese(llm.compute_optimal_sci, 10.0, 23)
    raises_japanese(llm.compute_optimal_sci, 5.0, 0)
    raises_japanese(llm.loss_factor, 0)


# ---------------------------------------------------------------------------
# BPE
# ---------------------------------------------------------------------------
def test_bpe_on_the_demo_corpus():
    result = llm.bpe_train(llm.BPE_DEMO_CORPUS, 8)
    assert result.merges == (("a", "y"), ("p", "l"), ("pl", "ay"), ("i", "n"), ("in", "g"), ("play", "ing"),
                             ("s", "t"), ("st", "ay"))
    assert [s.count for s in result.steps] == [28, 22, 22, 11, 11, 6, 6, 6]
    assert result.steps[-1].segments == (("play",), ("play", "s"), ("play", "e", "d"), ("playing",), ("stay",),
                                         ("stay", "ing"), ("s", "ing"))
    assert [llm.bpe_tokenize(w, result.merges) for w in llm.BPE_DEMO_NEW_WORDS] == \
        [("stay", "e", "d"), ("s", "ing", "ing"), ("p", "r", "ay")]


def test_bpe_count_is_weighted_and_ties_go_to_the_first_pair_read():
    # a·b in "ab" ×1 and "ab" again ×1 = 2; c·d in "cd" ×2 = 2: a tie, "ab" is read first
    result = llm.bpe_train(llm.bpe_corpus("ab cd cd ab"), 1)
    assert result.merges == (("a", "b"),) and result.steps[0].count == 2
    assert llm.bpe_train((("xy", 1), ("zw", 5)), 1).merges == (("z", "w"),)
    assert llm.bpe_corpus("ab cd cd ab") == (("ab", 2), ("cd", 2))


def test_bpe_stops_when_every_word_is_one_symbol():
    result = llm.bpe_train((("ab", 3), ("c", 1)), 10)
    assert result.merges == (("a", "b"),)
    assert llm.bpe_train((("ab", 3),), 0).steps == ()


@settings(max_examples=100)
@given(words=st.lists(st.text(alphabet="abcde", min_size=1, max_size=7), min_size=1, max_size=8),
       n=st.integers(0, 12))
def test_bpe_segments_always_spell_the_words(words, n):
    corpus = llm.bpe_corpus(" ".join(words))
    result = llm.bpe_train(corpus, n)
    lengths = [len(s) for s in result.start]
    for step in result.steps:
        assert ["".join(s) for s in step.segments] == list(result.words)
        now = [len(s) for s in step.segments]
        assert all(a <= b for a, b in zip(now, lengths)) and sum(now) < sum(lengths)
        lengths = now
    for word in result.words:                                            # the merges replayed give the same cut
        final = result.steps[-1].segments if result.steps else result.start
        assert llm.bpe_tokenize(word, result.merges) == final[result.words.index(word)]


def test_bpe_bad_input():
    assert "空" in raises_japanese(llm.bpe_corpus, "   ")
    raises_japanese(llm.bpe_corpus, "a" * 30)
    raises_japanese(llm.bpe_train, (("ab", 0),), 1)
    raises_japanese(llm.bpe_train, (("ab", 1),), -1)
    raises_japanese(llm.bpe_tokenize, "a b", ())
    raises_japanese(llm.bpe_tokenize, "", ())
    for payload in ("<script>alert(1)</script>", "[x](javascript:alert(1))", "www.evil.example", "me@evil.example"):
        message = raises_japanese(llm.bpe_tokenize, payload, ())
        assert "文字以外" in message or "24 文字以下" in message
        raises_japanese(llm.bpe_corpus, "play " + payload)
    assert "文字以外" in raises_japanese(llm.bpe_corpus, "play www.evil.example")
    assert llm.bpe_tokenize("ねこ", ()) == ("ね", "こ") and llm.bpe_corpus("猫 猫") == (("猫", 2),)


# ---------------------------------------------------------------------------
# Swin, MAE, CLIP
# ---------------------------------------------------------------------------
def test_swin_t_first_stage():
    s = llm.swin_cost(56, 56, 96, 7)
    assert s.tokens == 3136 and s.windows == 64
    assert s.global_attention == 2 * 3136 ** 2 * 96 == 1_888_223_232
    assert s.window_attention == 2 * 49 * 3136 * 96 == 29_503_488
    assert s.projections == 4 * 3136 * 96 ** 2 == 115_605_504
    assert s.attention_ratio == 64 and round(s.total_ratio, 2) == 13.81
    assert (llm.swin_ratio_m_not_m2(56, 56, 7), llm.swin_ratio_one_window(56, 56, 7),
            llm.swin_ratio_sides_added(56, 56, 7)) == (448, 4096, 16)


@settings(max_examples=150)
@given(rows=st.integers(1, 12), cols=st.integers(1, 12), m=st.integers(1, 9), c=st.integers(1, 256))
def test_swin_ratio_is_the_number_of_windows(rows, cols, m, c):
    s = llm.swin_cost(rows * m, cols * m, c, m)
    assert s.attention_ratio == rows * cols == s.windows
    ids = llm.swin_window_ids(rows * m, cols * m, m)
    assert len(np.unique(ids)) == rows * cols and np.bincount(ids.ravel()).tolist() == [m * m] * (rows * cols)


def test_swin_shifted_windows():
    ids, shifted = llm.swin_window_ids(8, 8, 4), llm.swin_window_ids(8, 8, 4, shifted=True)
    assert len(np.unique(ids)) == 4 and len(np.unique(shifted)) == 9
    assert np.bincount(shifted.ravel()).tolist() == [4, 8, 4, 8, 16, 8, 4, 8, 4]
    assert shifted[1, 1] != shifted[2, 2] and ids[1, 1] == ids[2, 2]      # the border moved by M/2 = 2
    assert ids[3, 3] != ids[4, 4] and shifted[3, 3] == shifted[4, 4]      # old neighbours across a border meet
    assert "割り切れません" in raises_japanese(llm.swin_cost, 56, 56, 96, 5)


def test_mae_counts():
    assert llm.mae_image_visible(224, 16) == 49 and llm.mae_hidden(196) == 147
    assert (llm.mae_visible_masked_instead(224, 16), llm.mae_visible_all_patches(224, 16),
            llm.mae_visible_p_not_p2(224, 16)) == (147, 196, 784)
    assert llm.mae_visible(196, 50) == 98 and llm.mae_visible(196, 0) == 196
    raises_japanese(llm.mae_visible, 196, 100)


def test_mae_mask_draws():
    a = llm.mae_mask(196, np.random.default_rng(0))
    b = llm.mae_mask(196, np.random.default_rng(0))
    c = llm.mae_mask(196, np.random.default_rng(1))
    assert a.encoder_tokens == 49 and a.masked.size == 147 and a.decoder_tokens == 196
    assert np.array_equal(np.union1d(a.visible, a.masked), np.arange(196)) and not np.intersect1d(a.visible, a.masked).size
    assert np.array_equal(a.visible, np.sort(a.visible)) and np.array_equal(a.visible, b.visible)
    assert not np.array_equal(a.visible, c.visible)
    grid = a.grid(14, 14)
    assert grid.shape == (14, 14) and grid.sum() == 49 and grid.ravel()[a.visible].all()
    raises_japanese(a.grid, 14, 13)
    raises_japanese(llm.mae_mask, 196, "seed")


# ---------------------------------------------------------------------------
# conventions
# ---------------------------------------------------------------------------
def test_inputs_are_never_mutated():
    corpus = [list(pair) for pair in llm.BPE_DEMO_CORPUS]      # a learner's corpus as lists: left as it was
    copy = [list(pair) for pair in corpus]
    llm.bpe_train(corpus, 8)
    assert corpus == copy


# ---------------------------------------------------------------------------
# the calculation items: answers recomputed here from the drawn inputs, by the plain formulas
# ---------------------------------------------------------------------------


def _sci_text(x: int) -> str:
    digits = str(x)
    m = digits.rstrip("0")
    return f"${m[0]}{'.' + m[1:] if len(m) > 1 else ''} \\times 10^{{{len(digits) - 1}}}$"


PLAIN = {
    "llm.decoder_weights": lambda p: f"{12 * p['l'] * p['d'] ** 2:,}",
    "llm.optimal_tokens": lambda p: _sci_text(20 * p["n"]),
    "llm.swin_ratio": lambda p: f"{(p['h'] // p['m']) ** 2:,} 倍",
    "llm.mae_visible": lambda p: f"{(p['image'] // p['patch']) ** 2 * (100 - p['pct']) // 100:,}",
}


@pytest.mark.parametrize("gid", sorted(PLAIN))
def test_calculation_answers_follow_from_the_drawn_inputs(gid):
    for seed in range(150):
        p, q = accepted_params(gid, seed)
        assert q.choices[q.answer] == PLAIN[gid](p), (gid, seed, p)


def test_every_llm_calculation_item_is_checked_and_tagged():
    import quizzes
    from quizzes.core import is_advanced
    calc = quizzes.by_topic("llm", "calc")
    assert sorted(calc) == sorted(PLAIN)
    # GPT-n and Swin Transformer are syllabus keywords (quizzes/data/syllabus.json); Chinchilla and MAE are 発展
    assert [g for g in calc if not is_advanced(g)] == ["llm.decoder_weights", "llm.swin_ratio"]
