"""tutor.paper: BLEU, the length penalty, checkpoint averaging and the paper's published tables.

Hand-checked values: the worked example's p₁ = 5/5, p₂ = 3/4, c = 5, r = 6, BP = e^(−0.2), BLEU-2 =
√0.75 · e^(−0.2) ≈ 0.709 (and BLEU-4 = 0, since no 4-gram matches); Papineni et al.'s seven "the"
→ 2/7; lp(7) = 2^α, lp(19) = 4^α; the mean of the last 4 checkpoints; the paper's cost formula
reproduces Table 2's 3.3·10¹⁸ and 2.3·10¹⁹ FLOPs; Table 3's single head is 0.9 BLEU worse. Properties
with hypothesis (0 ≤ BLEU ≤ 1, agreement with a plain loop, the misconceptions on the right side of
the formula); bad input raises a Japanese ValueError.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tutor
from tutor import paper as P
from tutor import textbook as tb
from calchelpers import raises_japanese

WORDS = ("猫", "が", "魚", "を", "食べた", "の", "は", "その")


# ---------------------------------------------------------------------------
# BLEU: the worked example by hand
# ---------------------------------------------------------------------------
def test_worked_example_by_hand():
    b = P.bleu(P.DEMO_CANDIDATE, P.DEMO_REFERENCES, 2)
    assert [m.matched for m in b.matches] == [5, 3] and [m.total for m in b.matches] == [5, 4]
    assert b.precisions.tolist() == [1.0, 0.75]
    assert (b.c, b.r, b.reference_lengths) == (5, 6, (6, 7))
    assert b.bp == pytest.approx(math.exp(-0.2))
    assert b.geo_mean == pytest.approx(math.sqrt(0.75))
    assert b.score == pytest.approx(math.sqrt(0.75) * math.exp(-0.2)) and round(b.score, 3) == 0.709
    four = P.bleu(P.DEMO_CANDIDATE, P.DEMO_REFERENCES)
    assert four.max_n == 4 and four.precisions.tolist() == pytest.approx([1.0, 0.75, 1 / 3, 0.0])
    assert four.score == 0.0 and four.log_mean == -math.inf     # one p_n = 0 → BLEU = 0


def test_bigram_match_details():
    m = P.ngram_match(P.DEMO_CANDIDATE, P.DEMO_REFERENCES, 2)
    assert m.grams == (("猫", "が"), ("が", "魚"), ("魚", "を"), ("を", "食べた"))
    assert m.ref_max == (1, 0, 1, 1) and m.clipped == (1, 0, 1, 1)


def test_clipping_example_and_papinenis_own():
    m = P.ngram_match(P.CLIP_DEMO_CANDIDATE, P.CLIP_DEMO_REFERENCES, 1)
    assert (m.counts, m.ref_max, m.clipped, m.matched, m.total) == ((7,), (2,), (2,), 2, 7)
    assert P.modified_precision(P.CLIP_DEMO_CANDIDATE, P.CLIP_DEMO_REFERENCES, 1) == pytest.approx(2 / 7)
    assert P.precision_unclipped(P.CLIP_DEMO_CANDIDATE, P.CLIP_DEMO_REFERENCES, 1) == 1.0
    assert P.precision_by_types(P.CLIP_DEMO_CANDIDATE, P.CLIP_DEMO_REFERENCES, 1) == 1.0      # one type, found
    assert P.precision_by_types(["猫", "猫", "犬"], [("猫", "が")], 1) == 0.5
    refs = ("the cat is on the mat".split(), "there is a cat on the mat".split())
    assert P.modified_precision(["the"] * 7, refs, 1) == pytest.approx(2 / 7)      # Papineni et al. 2002, §2.1
    assert P.modified_precision(["the"] * 7, refs, 2) == 0.0


def test_brevity_penalty():
    assert P.brevity_penalty(7, 6) == 1.0 and P.brevity_penalty(6, 6) == 1.0
    assert P.brevity_penalty(5, 6) == pytest.approx(math.exp(1 - 6 / 5))
    assert P.brevity_penalty(4, 8) == pytest.approx(math.exp(-1))
    assert P.brevity_penalty_both_ways(5, 6) == P.brevity_penalty(5, 6)
    assert P.brevity_penalty_both_ways(8, 4) == pytest.approx(math.exp(-1))
    curve = P.brevity_curve([0.5, 1.0, 2.0])
    assert curve.tolist() == pytest.approx([math.exp(-1), 1.0, 1.0])
    assert P.brevity_curve_both_ways([0.5, 1.0, 2.0]).tolist() == pytest.approx([math.exp(-1), 1.0, math.exp(-1)])
    assert P.length_base(7) == 2.0 and P.in_man(4_500_000) == 450 and P.hours_to_seconds(12) == 43_200
    assert P.BIG_HOURS == 84


def test_closest_reference_length_prefers_the_shorter_on_a_tie():
    assert P.closest_reference_length(5, [6, 7]) == 6
    assert P.closest_reference_length(6, [4, 8]) == 4
    assert P.closest_reference_length(9, [4, 8, 12]) == 8


def test_the_named_mistakes_on_the_worked_example():
    c, refs = P.DEMO_CANDIDATE, P.DEMO_REFERENCES
    assert P.bleu_without_bp(c, refs, 2) == pytest.approx(math.sqrt(0.75))
    assert P.bleu_arithmetic_mean(c, refs, 2) == pytest.approx(0.875 * math.exp(-0.2))
    assert P.bleu_recall(c, refs, 2) == pytest.approx(math.sqrt(5 / 6 * 3 / 5) * math.exp(-0.2))
    assert P.ngram_recall(c, refs, 1) == pytest.approx(5 / 6)
    assert P.bleu_mistake(c, refs, "no_bp", 2) == P.bleu_without_bp(c, refs, 2)
    raises_japanese(P.bleu_mistake, c, refs, "nope", 2)
    long = ("猫", "が", "その", "魚", "を", "すっかり", "食べた")
    one = refs[:1]                                           # 6 tokens: the 7-token candidate is longer
    assert P.bleu(long, one, 2).bp == 1.0
    assert P.bleu_bp_both_ways(long, one, 2) == pytest.approx(math.exp(1 - 7 / 6) * P.bleu(long, one, 2).score)


def test_split_sentence():
    assert P.split_sentence("猫 が\u3000魚 を 食べた") == ("猫", "が", "魚", "を", "食べた")
    assert "空" in raises_japanese(P.split_sentence, "   ")
    assert "使えません" in raises_japanese(P.split_sentence, "猫 <b>が</b>")
    raises_japanese(P.split_sentence, " ".join(["猫"] * 31))
    raises_japanese(P.split_sentence, 5)


@pytest.mark.parametrize("args", [
    ((), [("猫",)], 1), (["猫"], [], 1), (["猫"], [("猫",)], 0), (["猫"], [("猫",)], 5), (["猫", ""], [("猫",)], 1),
    ("猫 が", [("猫",)], 1), (["猫"], [("猫",)] * 5, 1),
])
def test_bad_bleu_input_raises_in_japanese(args):
    raises_japanese(P.ngram_match, *args)


def test_a_candidate_shorter_than_n_says_so():
    msg = raises_japanese(P.bleu, ["猫", "が"], [("猫", "が", "魚")], 4)
    assert "4-gram" in msg


# ---------------------------------------------------------------------------
# BLEU: properties
# ---------------------------------------------------------------------------
sentences = st.lists(st.sampled_from(WORDS), min_size=4, max_size=9)


def _loop_clipped(cand, refs, n):
    """Clipped matches by a plain loop over the candidate's n-grams."""
    grams = [tuple(cand[i:i + n]) for i in range(len(cand) - n + 1)]
    matched = 0
    for g in set(grams):
        best = max(sum(tuple(r[i:i + n]) == g for i in range(len(r) - n + 1)) for r in refs)
        matched += min(grams.count(g), best)
    return matched, len(grams)


@settings(max_examples=200, deadline=None)
@given(cand=sentences, refs=st.lists(sentences, min_size=1, max_size=3), n=st.integers(1, 4))
def test_clipped_counts_agree_with_a_plain_loop(cand, refs, n):
    m = P.ngram_match(cand, refs, n)
    assert (m.matched, m.total) == _loop_clipped(cand, refs, n)
    assert Counter(dict(zip(m.grams, m.counts))) == Counter(tuple(cand[i:i + n]) for i in range(len(cand) - n + 1))


@settings(max_examples=200, deadline=None)
@given(cand=sentences, refs=st.lists(sentences, min_size=1, max_size=3), n=st.integers(1, 4))
def test_bleu_properties(cand, refs, n):
    before = (list(cand), [list(r) for r in refs])
    b = P.bleu(cand, refs, n)
    assert (list(cand), [list(r) for r in refs]) == before                     # inputs untouched
    assert 0.0 <= b.score <= b.geo_mean <= 1.0 and 0.0 < b.bp <= 1.0
    assert b.score == pytest.approx(P.bleu(cand, list(reversed(refs)), n).score)   # order of references
    assert P.bleu_without_bp(cand, refs, n) >= b.score - 1e-12
    assert P.bleu_arithmetic_mean(cand, refs, n) >= b.score - 1e-12             # AM ≥ GM
    assert P.bleu_unclipped(cand, refs, n) >= b.score - 1e-12                   # clipping only lowers
    assert P.bleu_bp_both_ways(cand, refs, n) <= b.score + 1e-12
    for k in range(1, n + 1):
        assert P.precision_unclipped(cand, refs, k) >= P.modified_precision(cand, refs, k)
        more = P.modified_precision(cand, refs + [cand], k)
        assert more == 1.0 >= P.modified_precision(cand, refs, k)               # a reference more never lowers p


@settings(max_examples=100, deadline=None)
@given(ref=sentences)
def test_a_candidate_equal_to_a_reference_scores_one(ref):
    assert P.bleu(ref, [ref], 4).score == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# length penalty
# ---------------------------------------------------------------------------
def test_length_penalty_by_hand():
    assert P.length_penalty(7, 1.0) == 2.0 and P.length_penalty(19, 1.0) == 4.0
    assert P.length_penalty(19, 0.5) == pytest.approx(2.0) and P.length_penalty(1, 0.6) == 1.0
    assert P.length_penalty(7, 0.6) == pytest.approx(2 ** 0.6)
    assert P.length_penalty(30, 0.0) == 1.0
    assert P.length_penalty_no_offset(9, 0.5) == pytest.approx(3.0)
    assert P.length_penalty_unnormalised(7, 1.0) == 12.0
    assert P.normalized_score(-3.0, 7, 1.0) == -1.5 and P.score_times_penalty(-3.0, 7, 1.0) == -6.0


def test_the_worked_example_flips_between_alpha_0_and_0_6():
    raw = P.rank_hypotheses(P.DEMO_LOG_PROBS, P.DEMO_LENGTHS, 0.0)
    assert raw.chosen == raw.raw_choice == 0
    paper = P.rank_hypotheses(P.DEMO_LOG_PROBS, P.DEMO_LENGTHS, P.PAPER_ALPHA)
    assert paper.chosen == 1 and paper.raw_choice == 0 and paper.order == (1, 0)
    assert paper.scores.tolist() == pytest.approx([-3.0 / 2 ** 0.6, -4.2 / 4 ** 0.6])
    flip = P.flip_alpha(-3.0, 7, -4.2, 19)
    assert flip == pytest.approx(math.log(3 / 4.2) / math.log(0.5)) and 0 < flip < P.PAPER_ALPHA
    at = P.rank_hypotheses(P.DEMO_LOG_PROBS, P.DEMO_LENGTHS, flip)
    assert at.scores[0] == pytest.approx(at.scores[1])
    assert P.flip_alpha(-5.0, 7, -1.0, 19) is None                # the long one is likelier: it wins at every α
    curves = P.score_curves(P.DEMO_LOG_PROBS, P.DEMO_LENGTHS, [0.0, 0.6, 1.0])
    assert curves.shape == (3, 2) and curves[2].tolist() == [-1.5, -1.05]


@settings(max_examples=200, deadline=None)
@given(lp=st.floats(-50, -0.01), n=st.integers(1, 200), m=st.integers(1, 200), a=st.floats(0, 2))
def test_length_penalty_properties(lp, n, m, a):
    assert P.length_penalty(n, a) >= 1.0
    if n < m:
        assert P.length_penalty(n, a) <= P.length_penalty(m, a)
    s = P.normalized_score(lp, n, a)
    assert lp <= s <= 0.0 and P.score_times_penalty(lp, n, a) <= lp
    # dividing by (5+1)^α or not keeps the order of two hypotheses
    r1 = P.rank_hypotheses([lp, lp / 2], [n, m], a)
    scaled = [lp / P.length_penalty_unnormalised(n, a), lp / 2 / P.length_penalty_unnormalised(m, a)]
    assert (scaled[0] >= scaled[1]) == (r1.scores[0] >= r1.scores[1])


@pytest.mark.parametrize("call", [
    lambda: P.length_penalty(0, 0.6), lambda: P.length_penalty(7, -0.1), lambda: P.length_penalty(7, 9),
    lambda: P.length_penalty(7, "a"), lambda: P.normalized_score(0.5, 7), lambda: P.normalized_score(float("nan"), 7),
    lambda: P.rank_hypotheses([-1.0], [3, 4]), lambda: P.flip_alpha(-1, 9, -2, 3), lambda: P.length_penalty(True, 0.6),
    lambda: P.length_penalty(20_000, 0.6),
])
def test_bad_decoding_input_raises_in_japanese(call):
    raises_japanese(call)


def test_max_output_length():
    assert P.max_output_length(20) == 70 and P.max_output_length(20, P.PARSING_MAX_EXTRA) == 320


# ---------------------------------------------------------------------------
# checkpoint averaging
# ---------------------------------------------------------------------------
def test_checkpoint_average_by_hand():
    ck = np.array(P.DEMO_CHECKPOINTS)
    before = ck.copy()
    avg = P.average_checkpoints(ck, P.DEMO_LAST)
    assert np.array_equal(ck, before)
    assert avg.used.shape == (4, 2) and avg.mean == pytest.approx([1.0, -1.025]) and avg.first == 3
    assert P.last_checkpoint_only(ck, 4).tolist() == [0.8, -0.9]
    assert P.sum_of_checkpoints(ck, 4) == pytest.approx([4.0, -4.1])
    assert P.average_of_all(ck, 4) == pytest.approx([1.0166666, -1.0], abs=1e-6)
    raises_japanese(P.average_checkpoints, ck, 7)
    raises_japanese(P.average_checkpoints, [1.0, 2.0], 1)
    raises_japanese(P.average_checkpoints, [[1.0, float("inf")]], 1)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 20))
def test_averaging_on_the_bowl_is_never_worse_than_the_mean_loss(seed, k):
    run = P.noisy_descent(np.random.default_rng(seed), last=k)
    again = P.noisy_descent(np.random.default_rng(seed), last=k)
    assert np.array_equal(run.path, again.path)                     # the Generator only
    assert run.path.shape == (201, 2) and run.checkpoints.shape == (20, 2)
    assert run.average_loss <= run.used_losses_mean + 1e-12         # a convex loss: Jensen's inequality


def test_bowl_loss():
    assert P.bowl_loss(P.BOWL_MINIMUM) == 0.0
    assert P.bowl_loss([[2.0, -1.0], [1.0, 0.0]]).tolist() == [0.5, 2.0]
    raises_japanese(P.bowl_loss, [1.0, 2.0, 3.0])
    raises_japanese(P.noisy_descent, np.random.default_rng(0), steps=25, every=10)


# ---------------------------------------------------------------------------
# the paper's tables and the formulas behind them
# ---------------------------------------------------------------------------
def test_cost_formula_reproduces_table_2():
    table = {r.model: r for r in P.TABLE2}
    base, big = table["Transformer (base)"], table["Transformer (big)"]
    assert float(f"{P.paper_cost('base'):.1e}") == base.cost_de == 3.3e18
    assert float(f"{P.paper_cost('big'):.1e}") == big.cost_de == 2.3e19
    assert P.training_flops(12, 8, 9.5) == pytest.approx(3.2832e18)
    assert P.flops_hours_not_seconds(12, 8, 9.5) == pytest.approx(3.2832e18 / 3600)
    assert P.flops_one_gpu(12, 8, 9.5) == pytest.approx(3.2832e18 / 8)
    assert P.flops_giga(12, 8, 9.5) == pytest.approx(3.2832e15)
    raises_japanese(P.training_flops, 0, 8, 9.5)
    raises_japanese(P.training_flops, 12, 8.5, 9.5)
    raises_japanese(P.paper_cost, "huge")


def test_training_time_from_steps():
    assert P.training_hours(P.BASE_STEPS, P.BASE_STEP_SECONDS) == pytest.approx(100_000 * 0.4 / 3600)
    assert P.training_hours(P.BASE_STEPS, P.BASE_STEP_SECONDS) <= P.BASE_HOURS         # "12 hours"
    days = P.training_hours(P.BIG_STEPS, P.BIG_STEP_SECONDS) / P.HOURS_PER_DAY
    assert round(days, 1) == P.BIG_DAYS == 3.5
    from tutor.training import recipe
    assert recipe.PAPER_BASE_STEPS == P.BASE_STEPS                                     # ⑧ quotes the same run


def test_table_2_claims():
    table = {r.model: r for r in P.TABLE2}
    big = table["Transformer (big)"]
    before = [r for r in P.TABLE2 if not r.transformer]
    best_de = max(r.bleu_de for r in before if r.bleu_de is not None)
    assert best_de == 26.36 and big.bleu_de - best_de > 2.0                 # "by more than 2.0 BLEU", ensembles included
    assert (big.bleu_de, big.bleu_fr) == (tb.PAPER_BLEU_EN_DE, tb.PAPER_BLEU_EN_FR) == (28.4, 41.8)
    base = table["Transformer (base)"]
    assert base.bleu_de > best_de and all(base.cost_de < r.cost_de for r in before if r.cost_de)
    single = [r for r in before if not r.ensemble and r.cost_fr]
    assert big.cost_fr < min(r.cost_fr for r in single) / 4                # "less than 1/4 the training cost"


def test_table_3():
    assert [r.bleu for r in P.table3("A")] == [25.8, 24.9, 25.5, 25.8, 25.4]
    assert max(r.bleu for r in P.table3("A")) - P.heads_row_for(1).bleu == pytest.approx(0.9)
    assert P.heads_row_for(32).bleu < P.heads_row_for(8).bleu                 # too many heads hurt too
    assert [r.params_m for r in P.table3("C")][1:] == [36, 50, 80, 28, 168, 53, 90]
    (e,) = P.table3("E")[1:]
    assert (e.ppl, e.bleu) == (4.92, 25.7)                                    # nearly identical to base
    assert P.TABLE3[-1].group == "big" and P.TABLE3[-1].bleu == 26.4
    raises_japanese(P.table3, "F")
    raises_japanese(P.heads_row_for, 3)
    for h in (1, 4, 8, 16, 32):
        assert tutor.head_dim(512, h) * h == 512


def test_published_data_and_parsing():
    assert (P.EN_DE.size, P.EN_DE.vocabulary, P.EN_FR.size, P.EN_FR.vocabulary) == (4_500_000, 37_000, 36_000_000, 32_000)
    assert P.BATCH_TOKENS == 25_000 and P.GPUS == 8 and P.GPU_TFLOPS["P100"] == 9.5
    assert (P.PAPER_BEAM, P.PAPER_ALPHA, P.PAPER_MAX_EXTRA) == (4, 0.6, 50)
    assert (P.BASE_CHECKPOINTS, P.BASE_CHECKPOINT_MINUTES, P.BIG_CHECKPOINTS) == (5, 10, 20)
    assert (P.PARSING_BEAM, P.PARSING_ALPHA, P.PARSING_MAX_EXTRA) == (21, 0.3, 300)
    assert P.PARSING_F1 == {"wsj": 91.3, "semi": 92.7} and P.PARSING_F1["wsj"] > P.BERKELEY_F1
    assert (P.PARSING_LAYERS, P.PARSING_D_MODEL, P.WSJ_SENTENCES) == (4, 1024, 40_000)


def test_perplexity():
    assert P.perplexity([0.5, 0.5]) == pytest.approx(2.0)
    assert P.perplexity([0.5, 0.25]) == pytest.approx(math.sqrt(8))
    assert P.perplexity([1.0]) == 1.0
    raises_japanese(P.perplexity, [0.0, 0.5])
    raises_japanese(P.perplexity, [])
