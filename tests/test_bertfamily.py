"""tutor.bertfamily (⑨-2): ALBERT's factorized embedding and cross-layer sharing, BERT's static
against dynamic masking, ELECTRA's learning signal, XLNet's order masks, T5's span corruption and
BERT's answer span on SQuAD.

Hand-checked values (ALBERT-base's 30,000 × 128 + 128 × 768 = 3,938,304; BERT-Base's encoder
weights 12 · 12 · 768² = 84,934,656; RoBERTa's 10 copies × 40 epochs → each mask seen 4 times;
T5's sentinels; 4! = 24), every named mistake, hypothesis properties of each formula, bad input →
a Japanese ValueError.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor import bertfamily as bf
from tutor import pretrain as pt
from calchelpers import raises_japanese

# ---------------------------------------------------------------------------
# ALBERT
# ---------------------------------------------------------------------------
def test_albert_base_by_hand():
    e = bf.factorized_embedding(30_000, 128, 768)
    assert (e.lookup, e.projection, e.factorized, e.untied) == (3_840_000, 98_304, 3_938_304, 23_040_000)
    assert e.saved == 19_101_696 and e.ratio == pytest.approx(3_938_304 / 23_040_000)
    s = bf.layer_sharing(12, 768)
    assert (s.attention, s.ffn, s.per_layer) == (4 * 768**2, 8 * 768**2, 7_077_888)
    assert (s.unshared, s.shared, s.attention_shared) == (84_934_656, 7_077_888, 4 * 768**2 + 12 * 8 * 768**2)
    a = bf.albert_count(30_000, 128, 768, 12)
    assert (a.bert_total, a.albert_total) == (107_974_656, 11_016_192)      # papers: BERT-base 108M, ALBERT-base 12M
    assert round(a.bert_total / 1e6) == 108


def test_albert_mistakes():
    assert bf.embedding_without_projection(30_000, 128, 768) == 3_840_000
    assert bf.embedding_unfactorized(30_000, 128, 768) == 23_040_000
    assert bf.embedding_projection_reversed(30_000, 128, 768) == 23_040_000 + 98_304
    assert bf.sharing_overlooked(12, 768) == 84_934_656
    assert bf.sharing_divided_by_heads(12, 768, 12) == 7_077_888          # L = A: equals the answer (the quiz redraws)
    assert bf.sharing_divided_by_heads(6, 768, 4) == 6 * 7_077_888 // 4
    assert bf.sharing_attention_only(6, 768) == 4 * 768**2 + 6 * 8 * 768**2


def test_one_layer_is_9_1s_encoder_weights():
    for h in (128, 768, 1024):
        assert bf.layer_sharing(7, h).per_layer == pt.encoder_weights(1, h)
        assert bf.layer_sharing(7, h).unshared == pt.encoder_weights(7, h)


@settings(max_examples=200)
@given(v=st.integers(1, 100_000), e=st.integers(1, 4096), extra=st.integers(0, 4096), layers=st.integers(1, 48))
def test_albert_properties(v, e, extra, layers):
    h = e + extra
    p = bf.factorized_embedding(v, e, h)
    assert p.factorized == v * e + e * h and p.untied == v * h
    assert p.lookup <= p.untied                                           # the table never grows (E ≤ H)
    assert p.saved == v * h - v * e - e * h
    s = bf.layer_sharing(layers, h)
    assert s.unshared == layers * s.shared and s.shared <= s.attention_shared <= s.unshared
    assert s.saved == (layers - 1) * s.per_layer


def test_albert_bad_input():
    assert "E は H 以下" in raises_japanese(bf.factorized_embedding, 30_000, 1024, 768)
    for bad in (0, -1, 1.5, "x", True, None):
        raises_japanese(bf.factorized_embedding, bad, 128, 768)
        raises_japanese(bf.layer_sharing, bad, 768)
    raises_japanese(bf.sharing_divided_by_heads, 1, 3, 7)                  # 12·9 = 108 is not a multiple of 7


# ---------------------------------------------------------------------------
# RoBERTa: static against dynamic masking
# ---------------------------------------------------------------------------
def test_bert_static_masking_as_roberta_describes_it():
    m = bf.static_masking(40, 10)
    assert (m.distinct, m.repeats, m.dynamic_most) == (10, 4, 40)
    assert bf.static_repeats_as_copies(40, 10) == 10 and bf.static_as_dynamic(40, 10) == 40
    assert "割り切れません" in raises_japanese(bf.static_masking, 40, 3)
    raises_japanese(bf.static_masking, 0, 1)


def test_mask_schedules():
    n, epochs = 10, 8
    static = bf.mask_schedule(n, epochs, np.random.default_rng(3), copies=2)
    assert static.masks.shape == (epochs, n) and static.masks.dtype == bool and static.kind == "static"
    assert (static.masks.sum(axis=1) == pt.mlm_pick_count(n)).all()          # 15 % of 10 → 2 every epoch
    assert (static.masks[::2] == static.masks[0]).all() and (static.masks[1::2] == static.masks[1]).all()
    assert static.distinct <= 2
    dynamic = bf.mask_schedule(n, epochs, np.random.default_rng(3))
    assert dynamic.kind == "dynamic" and dynamic.distinct == 8
    again = bf.mask_schedule(n, epochs, np.random.default_rng(3))
    assert (again.masks == dynamic.masks).all()                              # same seed, same masks
    raises_japanese(bf.mask_schedule, n, epochs, "seed")
    raises_japanese(bf.mask_schedule, n, 9, np.random.default_rng(0), copies=2)


@settings(max_examples=60)
@given(n=st.integers(1, 30), copies=st.integers(1, 6), rounds=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_static_masks_repeat_with_the_copies(n, copies, rounds, seed):
    sched = bf.mask_schedule(n, copies * rounds, np.random.default_rng(seed), copies=copies)
    assert sched.distinct <= copies
    for t in range(copies * rounds):
        assert (sched.masks[t] == sched.masks[t % copies]).all()
    assert bf.static_masking(copies * rounds, copies).repeats == rounds


# ---------------------------------------------------------------------------
# ELECTRA
# ---------------------------------------------------------------------------
def test_rtd_counts_by_hand():
    c = bf.rtd_counts(140, 21, 3)
    assert (c.mlm_loss, c.rtd_loss, c.replaced, c.original) == (21, 140, 18, 122)
    assert c.mlm_share == pytest.approx(0.15) and c.signal_ratio == pytest.approx(140 / 21)
    assert bf.rtd_loss_only_replaced(140, 21, 3) == 18
    assert bf.rtd_loss_only_masked(140, 21, 3) == 21
    assert bf.rtd_loss_only_original(140, 21, 3) == 122
    assert bf.rtd_restored_as_replaced(140, 21, 3) == 21
    raises_japanese(bf.rtd_counts, 10, 11)
    raises_japanese(bf.rtd_counts, 10, 2, 3)
    raises_japanese(bf.rtd_counts, 10, 2, -1)


def test_the_demo_draw():
    d = bf.rtd_draw(bf.RTD_DEMO_TOKENS, bf.RTD_DEMO_CANDIDATES, np.random.default_rng(bf.RTD_DEMO_SEED))
    assert d.masked == (0, 2) and d.corrupted[2] == "生の" and d.corrupted[0] == "猫"
    assert d.replaced == tuple(i == 2 for i in range(10))
    assert d.expected_masked == pytest.approx(1.5)
    c = d.counts
    assert (c.n, c.masked, c.restored, c.replaced, c.rtd_loss, c.mlm_loss) == (10, 2, 1, 1, 10, 2)


@settings(max_examples=100)
@given(n=st.integers(1, 40), seed=st.integers(0, 10_000), keep=st.floats(0, 1))
def test_rtd_draw_properties(n, seed, keep):
    tokens = [f"語{i}" for i in range(n)]
    d = bf.rtd_draw(tokens, ["犬", "猫", "語0"], np.random.default_rng(seed), keep=keep)
    assert len(d.masked) == pt.mlm_pick_count(n)
    assert all(d.corrupted[i] == tokens[i] for i in range(n) if i not in d.masked)   # only masked positions change
    assert d.replaced == tuple(a != b for a, b in zip(tokens, d.corrupted))
    c = d.counts
    assert c.replaced == sum(d.replaced) and c.rtd_loss == n >= c.mlm_loss == len(d.masked)


# ---------------------------------------------------------------------------
# XLNet
# ---------------------------------------------------------------------------
def test_orders_and_their_mistakes():
    assert [bf.factorization_orders(n) for n in range(1, 8)] == [1, 2, 6, 24, 120, 720, 5040]
    assert (bf.orders_as_pairs(4), bf.orders_as_subsets(4), bf.orders_as_sum(4)) == (16, 16, 10)
    raises_japanese(bf.factorization_orders, 21)
    raises_japanese(bf.factorization_orders, 0)


def test_the_demo_order_by_hand():
    m = bf.permutation_mask(bf.XLNET_DEMO_ORDER)                          # 3 → 1 → 4 → 2
    assert m.rank == (1, 3, 0, 2)
    assert [m.visible(i) for i in range(4)] == [(2,), (0, 2, 3), (), (0, 2)]
    assert m.mask.tolist() == [[False, False, True, False], [True, False, True, True],
                               [False, False, False, False], [True, False, True, False]]
    order = bf.XLNET_DEMO_ORDER
    assert bf.visible_left_to_right(order, 3) == (0, 1, 2)
    assert bf.visible_with_self(order, 3) == (0, 2, 3)
    assert bf.visible_all_others(order, 3) == (0, 1, 2)
    assert bf.visible_after(order, 0) == (1, 3)


def test_left_to_right_order_is_the_strict_causal_mask():
    import tutor
    for n in range(1, 7):
        m = bf.permutation_mask(range(n))
        assert (m.mask == (tutor.causal_mask(n) & ~np.eye(n, dtype=bool))).all()


@settings(max_examples=150)
@given(st.integers(1, 6).flatmap(lambda n: st.permutations(list(range(n)))))
def test_permutation_mask_properties(order):
    n = len(order)
    m = bf.permutation_mask(order)
    assert not m.mask.diagonal().any()                                     # never itself
    assert (m.mask & m.mask.T).sum() == 0 and m.mask.sum() == n * (n - 1) // 2   # one direction per pair
    assert [len(m.visible(p)) for p in order] == list(range(n))           # the t-th predicted sees t positions
    for i in range(n):
        assert set(m.visible(i)) | set(bf.visible_after(order, i)) | {i} == set(range(n))


def test_every_order_sees_each_other_token_half_the_time():
    n = 4
    seen = np.zeros((n, n))
    for order in itertools.permutations(range(n)):
        seen += bf.permutation_mask(order).mask
    off = ~np.eye(n, dtype=bool)
    assert (seen[off] == math.factorial(n) / 2).all()                       # both sides, on average


def test_parse_order():
    assert bf.parse_order("3 1 4 2") == (2, 0, 3, 1) == bf.parse_order("3,1、4，2")
    assert "空" in raises_japanese(bf.parse_order, "   ")
    assert "1〜4" in raises_japanese(bf.parse_order, "1 2 2 4")
    assert "読めません" in raises_japanese(bf.parse_order, "1 x 3")
    assert "8 個まで" in raises_japanese(bf.parse_order, " ".join(str(i) for i in range(1, 10)))
    raises_japanese(bf.parse_order, "0 1 2")
    raises_japanese(bf.visible_with_self, (0, 1), 5)


# ---------------------------------------------------------------------------
# T5 / BART
# ---------------------------------------------------------------------------
def test_span_corruption_by_hand():
    c = bf.span_corruption(bf.T5_DEMO_TOKENS, bf.T5_DEMO_SPANS)
    assert c.inputs == ("私", "は", "〈X〉", "駅", "で", "〈Y〉", "に", "会った", "。")
    assert c.targets == ("〈X〉", "昨日", "〈Y〉", "古い", "友人", "〈Z〉")
    assert (c.dropped, c.input_length, c.target_length) == (3, 9, 6)
    tokens, spans = bf.T5_DEMO_TOKENS, bf.T5_DEMO_SPANS
    assert bf.target_without_final_sentinel(tokens, spans) == 5
    assert bf.target_without_sentinels(tokens, spans) == 3
    assert bf.target_whole_text(tokens, spans) == 10 == bf.input_mask_per_token(tokens, spans)
    assert bf.input_without_sentinels(tokens, spans) == 7


@settings(max_examples=150)
@given(n=st.integers(2, 30), data=st.data())
def test_span_corruption_lengths(n, data):
    cuts = sorted(data.draw(st.sets(st.integers(0, n), min_size=2, max_size=8)))
    spans = [(a, b - a) for a, b in zip(cuts[::2], cuts[1::2]) if b > a]
    spans = [s for k, s in enumerate(spans) if k == 0 or s[0] > spans[k - 1][0] + spans[k - 1][1]]
    if not spans:
        return
    tokens = [f"t{i}" for i in range(n)]
    c = bf.span_corruption(tokens, spans)
    k, dropped = len(c.spans), c.dropped
    assert c.input_length == n - dropped + k and c.target_length == dropped + k + 1
    kept = [t for t in c.inputs if t not in bf.T5_SENTINELS]
    words = [t for t in c.targets if t not in bf.T5_SENTINELS]
    assert sorted(kept + words, key=lambda t: int(t[1:])) == tokens             # nothing lost, nothing added
    assert c.inputs.count(bf.T5_SENTINELS[0]) == 1 and c.targets[-1] == bf.T5_SENTINELS[k]


def test_span_parsing_and_bad_spans():
    assert bf.parse_spans("3, 6-7", 10) == ((2, 1), (5, 2))
    assert bf.parse_spans("6〜7 3", 10) == ((2, 1), (5, 2))
    assert "隣り合" in raises_japanese(bf.parse_spans, "2-3, 4", 10)
    assert "はみ出" in raises_japanese(bf.parse_spans, "9-11", 10)
    assert "読めません" in raises_japanese(bf.parse_spans, "a-b", 10)
    assert "前です" in raises_japanese(bf.parse_spans, "5-3", 10)
    raises_japanese(bf.parse_spans, "", 10)
    raises_japanese(bf.span_corruption, [], [(0, 1)])
    raises_japanese(bf.span_corruption, ["a"] * 41, [(0, 1)])
    raises_japanese(bf.span_corruption, ["a"] * 30, [(2 * k, 1) for k in range(10)])   # more spans than sentinels


# ---------------------------------------------------------------------------
# SQuAD
# ---------------------------------------------------------------------------
def test_squad_demo_by_hand():
    a = bf.best_span(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END)
    assert a.best == (0, 1) and a.best_score == 10                         # 焼いた 魚: 4 + 6
    assert (a.start_argmax, a.end_argmax) == (3, 1)                       # the maxima alone: end before start
    assert bf.span_ignoring_order(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END) == 11
    assert bf.span_start_first(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END) == (3, 3)
    assert bf.span_end_first(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END) == (0, 1)
    assert bf.span_single_token(bf.SQUAD_DEMO_START, bf.SQUAD_DEMO_END) == (3, 3)
    assert np.isneginf(a.scores[1, 0]) and a.scores[0, 1] == 10
    assert bf.span_candidates(4) == 10 == int(np.isfinite(a.scores).sum())


@settings(max_examples=200)
@given(st.integers(1, 7).flatmap(lambda n: st.tuples(st.lists(st.integers(-9, 9), min_size=n, max_size=n),
                                                     st.lists(st.integers(-9, 9), min_size=n, max_size=n))))
def test_best_span_is_the_brute_force_maximum(scores):
    s, e = scores
    a = bf.best_span(s, e)
    brute = max(s[i] + e[j] for i in range(len(s)) for j in range(i, len(s)))
    assert a.best_score == brute and a.best[0] <= a.best[1]
    for i, j in (bf.span_start_first(s, e), bf.span_end_first(s, e), bf.span_single_token(s, e)):
        assert i <= j and s[i] + e[j] <= brute                              # shortcuts never beat it
    assert bf.span_ignoring_order(s, e) >= brute


def test_squad_bad_input():
    raises_japanese(bf.best_span, [1, 2], [1])
    raises_japanese(bf.best_span, [], [])
    raises_japanese(bf.best_span, [1, float("nan")], [1, 2])
    raises_japanese(bf.span_candidates, 0)


def test_inputs_are_not_mutated():
    s, e = np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])
    bf.best_span(s, e)
    assert s.tolist() == [1.0, 2.0, 3.0] and e.tolist() == [3.0, 2.0, 1.0]
    tokens = list(bf.RTD_DEMO_TOKENS)
    bf.rtd_draw(tokens, bf.RTD_DEMO_CANDIDATES, np.random.default_rng(0))
    assert tokens == list(bf.RTD_DEMO_TOKENS)
