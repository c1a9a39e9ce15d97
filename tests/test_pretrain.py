"""tutor.pretrain: BERT's masking, NSP, [CLS] head, parameter counts, the tiny GPT, ViT's patches.

Published figures recomputed by the engine from the sizes (and by the plain formulas here):
197 tokens for ViT-B/16 on 224 × 224, BERT-Base 109,482,240 (≈ 110M), BERT-Large 335,141,888
(paper: 340M), ViT-B/16 86,567,656 (≈ 86M); the 80/10/10 split of MLM; properties with
hypothesis; bad input raises a Japanese ValueError.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutor import pretrain as pt
from calchelpers import raises_japanese

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# ViT
# ---------------------------------------------------------------------------
def test_vit_b16_token_count_and_patch_length():
    g = pt.vit_patch_grid(224, 224, 16)
    assert (g.rows, g.cols, g.patches, g.tokens, g.patch_dim) == (14, 14, 196, 197, 768)
    assert pt.vit_tokens(224, 224, 16) == 197
    assert pt.vit_tokens(384, 384, 16) == 577
    assert pt.vit_tokens(224, 224, 14) == 257
    assert pt.vit_tokens(224, 448, 16) == 14 * 28 + 1


def test_vit_misconceptions():
    assert pt.vit_tokens_without_class(224, 224, 16) == 196
    assert pt.vit_tokens_hw_over_p(224, 224, 16) == 224 * 224 // 16 + 1 == 3137
    assert pt.vit_tokens_sides_added(224, 224, 16) == 29
    assert pt.vit_patch_dim(16, 3) == 768
    assert pt.vit_patch_dim_p_not_p2(16, 3) == 48
    assert pt.vit_patch_dim_no_channels(16, 3) == 256


@settings(max_examples=200)
@given(rows=st.integers(1, 40), cols=st.integers(1, 40), p=st.integers(1, 32))
def test_vit_tokens_formula(rows, cols, p):
    h, w = rows * p, cols * p
    g = pt.vit_patch_grid(h, w, p)
    assert g.tokens == (h // p) * (w // p) + 1 == g.patches + 1
    assert pt.vit_patch_index(h, w, p).shape == (rows, cols)
    assert pt.vit_patch_index(h, w, p).ravel().tolist() == list(range(1, rows * cols + 1))


@pytest.mark.parametrize("args", [(225, 224, 16), (224, 230, 16), (224, 224, 0), (224, 224, -16),
                                  (224, 224, 2.5), ("224", 224, 16), (True, 224, 16), (20_000, 20_000, 16)])
def test_vit_bad_sizes_raise_in_japanese(args):
    raises_japanese(pt.vit_patch_grid, *args)


def test_not_divisible_message_names_the_sizes():
    msg = raises_japanese(pt.vit_patch_grid, 225, 224, 16)
    assert "225" in msg and "16" in msg and "割り切れません" in msg


def _patchify_loop(img, p):
    h, w, c = img.shape
    out = []
    for r in range(0, h, p):
        for s in range(0, w, p):
            out.append([img[r + i, s + j, k] for i in range(p) for j in range(p) for k in range(c)])
    return np.array(out)


@settings(max_examples=60)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), p=st.integers(1, 4), c=st.integers(1, 3),
       seed=st.integers(0, 10_000))
def test_patchify_agrees_with_a_plain_loop(rows, cols, p, c, seed):
    img = np.random.default_rng(seed).integers(-5, 6, size=(rows * p, cols * p, c)).astype(float)
    before = img.copy()
    out = pt.vit_patchify(img, p)
    assert out.shape == (rows * cols, p * p * c)
    np.testing.assert_array_equal(out, _patchify_loop(img, p))
    np.testing.assert_array_equal(img, before)          # input not mutated


def test_vit_embedding_worked_example():
    e = pt.vit_embed(pt.VIT_DEMO_IMAGE, 2, pt.VIT_DEMO_PROJ, pt.VIT_DEMO_CLS, pt.VIT_DEMO_POS)
    np.testing.assert_array_equal(e.patches, [[1, 0, 0, 1], [2, 1, 0, 1], [1, 1, 2, 0], [0, 0, 1, 1]])
    np.testing.assert_array_equal(e.projected, [[1, 1], [2, 2], [3, 1], [1, 1]])
    np.testing.assert_array_equal(e.tokens[0], pt.VIT_DEMO_CLS)
    np.testing.assert_array_equal(e.output, [[0, 0], [2, 1], [2, 3], [4, 2], [3, 1]])
    assert e.output.shape == (pt.vit_tokens(4, 4, 2), 2)


def test_vit_embedding_bad_shapes():
    raises_japanese(pt.vit_embed, pt.VIT_DEMO_IMAGE, 2, np.ones((3, 2)), pt.VIT_DEMO_CLS, pt.VIT_DEMO_POS)
    raises_japanese(pt.vit_embed, pt.VIT_DEMO_IMAGE, 2, pt.VIT_DEMO_PROJ, pt.VIT_DEMO_CLS, np.ones((4, 2)))
    raises_japanese(pt.vit_embed, pt.VIT_DEMO_IMAGE, 3, pt.VIT_DEMO_PROJ, pt.VIT_DEMO_CLS, pt.VIT_DEMO_POS)
    raises_japanese(pt.vit_patchify, [[1.0, np.nan], [0.0, 1.0]], 1)


def test_vit_base_parameter_count():
    v = pt.vit_param_count()
    d, n = 768, 197
    layer = 4 * (d * d + d) + 2 * d + (2 * d * 3072 + 3072 + d) + 2 * d
    by_hand = (768 * d + d) + d + n * d + 12 * layer + 2 * d + (d * 1000 + 1000)
    assert v.total == by_hand == 86_567_656
    assert v.backbone == v.total - v.head == 85_798_656
    assert pt.pretrain_millions(v.backbone) == 86                  # the paper's 86M (no head)
    assert pt.vit_param_count(classes=0).head == 0
    raises_japanese(pt.vit_param_count, classes=-1)
    raises_japanese(pt.vit_param_count, hidden=770, heads=12)


# ---------------------------------------------------------------------------
# BERT sizes
# ---------------------------------------------------------------------------
def test_bert_base_and_large_parameter_counts():
    base = pt.bert_param_count(12, 768, 12)
    assert base.token_embedding == 30_522 * 768 == 23_440_896
    assert base.embeddings == 23_837_184
    assert base.layer.total == 7_087_872 and base.encoder == 85_054_464
    assert base.pooler == 590_592
    assert base.total == 109_482_240
    assert pt.pretrain_millions(base.total) == 109
    large = pt.bert_param_count(24, 1024, 16)
    assert large.total == 335_141_888
    assert pt.bert_param_count(12, 768, 12, pooler=False).total == 108_891_648


@settings(max_examples=100)
@given(layers=st.integers(1, 48), d_k=st.integers(1, 128), heads=st.sampled_from([1, 2, 4, 8, 16]))
def test_heads_do_not_change_the_count_and_layers_add_linearly(layers, d_k, heads):
    h = d_k * heads
    one = pt.bert_param_count(1, h, heads)
    many = pt.bert_param_count(layers, h, heads)
    assert many.total - one.total == (layers - 1) * one.layer.total
    assert pt.bert_param_count(layers, h, 1).total == many.total
    assert one.layer.total == 12 * h * h + 13 * h
    assert pt.encoder_weights(layers, h) == 12 * layers * h * h


def test_head_dim_and_its_misconceptions():
    assert pt.bert_head_dim(768, 12) == 64 and pt.bert_head_dim(1024, 16) == 64
    assert pt.bert_head_dim_unsplit(768, 12) == 768
    assert pt.bert_head_dim_multiplied(768, 12) == 9216
    raises_japanese(pt.bert_head_dim, 768, 7)
    raises_japanese(pt.bert_param_count, 12, 768, 7)
    raises_japanese(pt.bert_param_count, 0, 768, 12)


def test_encoder_weight_misconceptions():
    assert pt.encoder_weights(12, 768) == 84_934_656
    assert pt.encoder_weights_no_ffn(12, 768) == 4 * 12 * 768 ** 2
    assert pt.encoder_weights_square_ffn(12, 768) == 6 * 12 * 768 ** 2
    assert pt.encoder_weights_per_head(12, 768, 12) == 12 * (4 * 12 + 8) * 768 ** 2
    assert pt.encoder_weights_one_layer(12, 768) == 12 * 768 ** 2


def test_cls_head_worked_example():
    head = pt.cls_head(pt.CLS_DEMO_H, pt.CLS_DEMO_W, pt.CLS_DEMO_B)
    np.testing.assert_allclose(head.logits, [2.0, -2.0])
    np.testing.assert_allclose(head.probs, [1 / (1 + np.exp(-4)), 1 / (1 + np.exp(4))])
    assert head.label == 0 and f"{head.probs[0]:.3f}" == "0.982"
    assert pt.cls_head_params(768, 2) == 1_538
    raises_japanese(pt.cls_head, [1.0, 2.0], pt.CLS_DEMO_W, pt.CLS_DEMO_B)


# ---------------------------------------------------------------------------
# BERT input, MLM, NSP
# ---------------------------------------------------------------------------
def test_bert_input_pair():
    inp = pt.bert_input(pt.DEMO_SENTENCE_A, pt.DEMO_SENTENCE_B)
    assert inp.tokens == ("[CLS]", "猫", "は", "魚", "を", "見つけた", "。", "[SEP]", "それ", "を", "食べた", "。", "[SEP]")
    assert inp.segments == (0,) * 8 + (1,) * 5
    assert inp.positions == tuple(range(13))
    assert pt.bert_input(["猫"]).tokens == ("[CLS]", "猫", "[SEP]")
    raises_japanese(pt.bert_input, [])
    raises_japanese(pt.bert_input, "猫は")
    raises_japanese(pt.bert_input, ["猫"] * 600)


def test_mlm_expected_counts_and_misconceptions():
    c = pt.mlm_expected_counts(200)
    assert (c.chosen, c.mask, c.random, c.keep) == pytest.approx((30, 24, 3, 3))
    assert pt.mlm_counts_all_mask(200).mask == pytest.approx(30)
    assert pt.mlm_counts_of_whole_sequence(200).mask == pytest.approx(160)
    assert pt.mlm_counts_changed_as_mask(200).mask == pytest.approx(27)
    raises_japanese(pt.mlm_expected_counts, 0)
    raises_japanese(pt.mlm_expected_counts, 1.5)


@settings(max_examples=100)
@given(n=st.integers(1, 100_000))
def test_mlm_split_adds_up(n):
    c = pt.mlm_expected_counts(n)
    assert c.mask + c.random + c.keep == pytest.approx(c.chosen)
    assert c.chosen == pytest.approx(0.15 * n)
    assert c.mask == pytest.approx(0.12 * n)


def test_mlm_draw_on_the_demo_sentence():
    tokens = pt.bert_input(pt.DEMO_SENTENCE_A, pt.DEMO_SENTENCE_B).tokens
    d = pt.mlm_draw(tokens, np.random.default_rng(0))
    assert d.n_candidates == 10 and d.expected_picks == pytest.approx(1.5)   # 1.5 → 2 (四捨五入)
    assert len(d.chosen) == pt.mlm_pick_count(10) == 2 and pt.mlm_pick_count(9) == 1
    assert d == pt.mlm_draw(tokens, np.random.default_rng(0))            # same seed → same draw
    for i, (orig, seen, act) in enumerate(zip(d.tokens, d.masked, d.actions)):
        assert (act != "") == (i in d.chosen)
        if act == "mask":
            assert seen == "[MASK]"
        elif act == "random":
            assert seen != orig and seen not in pt.SPECIAL
        else:
            assert seen == orig
    assert all(d.tokens[i] not in ("[CLS]", "[SEP]") for i in d.chosen)
    for u, i in zip(d.uniforms, d.chosen):
        want = "mask" if u < 0.8 else "random" if u < 0.9 else "keep"
        assert d.actions[i] == want


@settings(max_examples=80)
@given(words=st.lists(st.sampled_from(["猫", "魚", "は", "を", "[SEP]", "犬"]), min_size=1, max_size=40),
       seed=st.integers(0, 10_000))
def test_mlm_draw_properties(words, seed):
    tokens = ["[CLS]", *words]
    if all(w in pt.SPECIAL for w in tokens):
        raises_japanese(pt.mlm_draw, tokens, np.random.default_rng(seed))
        return
    before = list(tokens)
    d = pt.mlm_draw(tokens, np.random.default_rng(seed))
    assert tokens == before
    n = sum(t not in pt.SPECIAL for t in tokens)
    assert len(d.chosen) == max(1, int(np.floor(0.15 * n + 0.5))) == len(set(d.chosen))
    assert all(tokens[i] not in pt.SPECIAL for i in d.chosen)
    assert len(d.masked) == len(tokens)
    assert set(d.targets) == set(d.chosen)


def test_mlm_long_run_comes_close_to_the_rule():
    t = pt.mlm_long_run(100_000, np.random.default_rng(0))
    assert t.chosen == 15_000 and t.mask + t.random + t.keep == t.chosen
    share, mask, rand, keep = t.percentages
    assert share == pytest.approx(15.0)
    assert mask == pytest.approx(80, abs=1.5) and rand == pytest.approx(10, abs=1) and keep == pytest.approx(10, abs=1)


def test_mlm_bad_input():
    raises_japanese(pt.mlm_draw, ["猫"], None)
    raises_japanese(pt.mlm_draw, ["猫"], np.random.default_rng(0), rate=0)
    raises_japanese(pt.mlm_draw, [], np.random.default_rng(0))
    raises_japanese(pt.mlm_draw, ["[CLS]", "[SEP]"], np.random.default_rng(0))
    raises_japanese(pt.mlm_long_run, 2_000_000, np.random.default_rng(0))
    raises_japanese(pt.mlm_split_text, "   ")
    raises_japanese(pt.mlm_split_text, " ".join(["猫"] * 41))
    assert pt.mlm_split_text("猫　は 魚") == ("猫", "は", "魚")


def test_nsp_pairs_are_half_is_next():
    labels = []
    for seed in range(400):
        pair = pt.nsp_pair(6, 2, np.random.default_rng(seed))
        if pair.is_next:
            assert pair.second == 3 and pair.coin < 0.5
        else:
            assert pair.second not in (2, 3) and pair.coin >= 0.5
        labels.append(pair.is_next)
    assert 0.4 < np.mean(labels) < 0.6
    raises_japanese(pt.nsp_pair, 2, 0, np.random.default_rng(0))
    raises_japanese(pt.nsp_pair, 6, 5, np.random.default_rng(0))


# ---------------------------------------------------------------------------
# GPT: causal mask, one token at a time
# ---------------------------------------------------------------------------
def test_gpt_greedy_generates_the_sentence():
    steps = pt.gpt_greedy([0], 6)
    assert [pt.GPT_VOCAB[s.chosen] for s in steps] == ["猫", "は", "魚", "を", "食べた", "。"]
    for k, s in enumerate(steps, start=1):
        assert len(s.ids) == k
        assert s.probs.sum() == pytest.approx(1.0)
        assert s.chosen == int(np.argmax(s.probs))
        np.testing.assert_array_equal(s.weights[np.triu_indices(k, 1)], 0.0)   # the future gets exactly 0
        np.testing.assert_allclose(s.weights.sum(axis=1), 1.0)
        np.testing.assert_array_equal(s.mask, np.tril(np.ones((k, k), bool)))


@settings(max_examples=60)
@given(ids=st.lists(st.integers(0, len(pt.GPT_VOCAB) - 1), min_size=1, max_size=8),
       extra=st.integers(0, len(pt.GPT_VOCAB) - 1))
def test_appending_a_token_never_changes_earlier_positions(ids, extra):
    _, w1, z1 = pt.gpt_next_logits(ids)
    _, w2, z2 = pt.gpt_next_logits(ids + [extra])
    np.testing.assert_allclose(z2[:-1], z1)
    np.testing.assert_allclose(w2[:-1, :-1], w1)


def test_gpt_bad_input():
    raises_japanese(pt.gpt_greedy, [], 3)
    raises_japanese(pt.gpt_greedy, [99], 3)
    raises_japanese(pt.gpt_greedy, [0], 0)
    raises_japanese(pt.gpt_greedy, [0], 50)
    raises_japanese(pt.gpt_next_logits, "猫")


# ---------------------------------------------------------------------------
# the knowledge bank's numbers are the engine's; its items carry no answer cues
# ---------------------------------------------------------------------------
BANK = json.loads((ROOT / "quizzes" / "data" / "pretrain.json").read_text(encoding="utf-8"))["questions"]


def test_bank_numbers_are_the_engines():
    text = json.dumps(BANK, ensure_ascii=False)
    g = pt.vit_patch_grid(224, 224, 16)
    assert f"{g.rows}×{g.cols} = {g.patches}" in text and f"{g.tokens} トークン" in text
    assert "H × K" in text and "512 トークン" in text and pt.BERT_MAX_POSITIONS == 512
    assert "15 %" in text and "80 %" in text and "10 %" in text and pt.MLM_SPLIT == (0.8, 0.1, 0.1)


def test_bank_covers_each_keyword_twice():
    counts = Counter(k for q in BANK for k in q["keywords"])
    for kw in ("MLM", "NSP", "[CLS]", "Vision Transformer", "パッチ", "ファインチューニング", "事前学習", "GPT", "few-shot"):
        assert counts[kw] >= 2, (kw, counts[kw])


def test_bank_has_no_longest_answer_cue():
    single = [q for q in BANK if q["form"] != "blank"]
    longest = sum(len(q["answer"]) > max(len(w["text"]) for w in q["wrong"]) for q in single)
    assert longest / len(single) <= 0.30, f"{longest} of {len(single)}"


def test_bank_blanks_have_no_majority_cue():
    blanks = [q for q in BANK if q["form"] == "blank"]
    assert len(blanks) >= 3
    for q in blanks:
        texts = [q["answer"]] + [w["text"] for w in q["wrong"]]
        parts = [[x.strip() for x in re.findall(r"（[アイウ]）([^（]*)", t)] for t in texts]
        assert all(len(p) == 3 for p in parts)
        for b in range(3):
            assert set(Counter(p[b] for p in parts).values()) == {2}, (q["id"], b)
