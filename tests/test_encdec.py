"""tutor.encdec: seeded layer parameters, encoder / decoder layers, the two tiny models."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tutor.encdec import (
    BOS,
    EOS,
    TINY_VOCAB,
    DecoderLayerParams,
    EncoderLayerParams,
    TinyDecoderOnly,
    TinyEncoderDecoder,
    decoder_layer,
    encoder_layer,
    init_decoder_layer,
    init_encoder_layer,
)
from tutor import positional_encoding
from tutor.output import generate
import tutor

SETTINGS = settings(max_examples=25)
SRC = TINY_VOCAB.ids("猫 は 魚 を 食べた 。")
TGT = TINY_VOCAB.ids("<bos> the cat ate")


# ---------------------------------------------------------------------------
# a plain loop implementation, written without tutor.core, to compare against
# ---------------------------------------------------------------------------
def ref_mha(x, kv, p, h, mask=None):
    d = x.shape[1]
    dk = d // h
    q, k, v = x @ p.w_q, kv @ p.w_k, kv @ p.w_v
    heads = []
    for i in range(h):
        cols = slice(i * dk, (i + 1) * dk)
        out = np.zeros((x.shape[0], dk))
        for r in range(x.shape[0]):
            s = np.array([q[r, cols] @ k[c, cols] / np.sqrt(dk) for c in range(kv.shape[0])])
            if mask is not None:
                s = np.where(mask[r], s, -np.inf)
            w = np.exp(s - s.max())
            w = w / w.sum()
            out[r] = sum(w[c] * v[c, cols] for c in range(kv.shape[0]))
        heads.append(out)
    return np.concatenate(heads, axis=1) @ p.w_o


def ref_ln(x, p, eps=1e-5):
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return p.gain * (x - mu) / np.sqrt(var + eps) + p.bias


def ref_ffn(x, f):
    return np.maximum(x @ f.w1 + f.b1, 0) @ f.w2 + f.b2


def ref_encoder_layer(x, p, h, mask=None):
    a = ref_ln(x + ref_mha(x, x, p.self_attn, h, mask), p.ln1)
    return ref_ln(a + ref_ffn(a, p.ffn), p.ln2)


def ref_decoder_layer(y, enc, p, h):
    n = y.shape[0]
    a = ref_ln(y + ref_mha(y, y, p.self_attn, h, np.tril(np.ones((n, n), bool))), p.ln1)
    b = ref_ln(a + ref_mha(a, enc, p.cross_attn, h), p.ln2)
    return ref_ln(b + ref_ffn(b, p.ffn), p.ln3)


# ---------------------------------------------------------------------------
# vocabulary
# ---------------------------------------------------------------------------
def test_vocabulary():
    assert 10 <= len(TINY_VOCAB) <= 16
    assert len(set(TINY_VOCAB)) == len(TINY_VOCAB)
    for t in ("<bos>", "<eos>", "猫", "魚", "それ", "を", "食べた", "cat", "fish", "ate"):
        assert t in TINY_VOCAB
    assert TINY_VOCAB[BOS] == "<bos>" and TINY_VOCAB[EOS] == "<eos>"
    assert TINY_VOCAB.tokens(TINY_VOCAB.ids("猫 は 魚 を 食べた")) == ("猫", "は", "魚", "を", "食べた")
    assert TINY_VOCAB.ids(["それ", "。"]) == (TINY_VOCAB.index("それ"), TINY_VOCAB.index("。"))


def test_unknown_tokens_and_ids():
    with pytest.raises(ValueError, match="語彙にない"):
        TINY_VOCAB.ids("犬 を 見つけた")
    with pytest.raises(ValueError, match="範囲"):
        TINY_VOCAB.tokens([0, len(TINY_VOCAB)])
    with pytest.raises(ValueError, match="範囲"):
        TinyDecoderOnly.from_seed(0).forward([0, -1])


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------
def test_init_encoder_layer_shapes_and_readonly():
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(0))
    assert isinstance(p, EncoderLayerParams)
    for w in (p.self_attn.w_q, p.self_attn.w_k, p.self_attn.w_v, p.self_attn.w_o):
        assert w.shape == (8, 8) and w.dtype == np.float64
        assert not w.flags.writeable
    assert p.ffn.w1.shape == (8, 16) and p.ffn.b1.shape == (16,)
    assert p.ffn.w2.shape == (16, 8) and p.ffn.b2.shape == (8,)
    np.testing.assert_array_equal(p.ln1.gain, np.ones(8))
    np.testing.assert_array_equal(p.ln2.bias, np.zeros(8))
    assert (p.d_model, p.d_ff) == (8, 16)
    with pytest.raises(ValueError):
        p.ffn.w1[0, 0] = 1.0
    # W_Q and W_K are different draws; the scale is N(0, 1/d_model)
    assert not np.allclose(p.self_attn.w_q, p.self_attn.w_k)
    big = init_encoder_layer(64, 4, 64, np.random.default_rng(1))
    assert big.self_attn.w_q.std() == pytest.approx(1 / 8, rel=0.1)


def test_init_decoder_layer_shapes():
    p = init_decoder_layer(8, 2, 16, np.random.default_rng(0))
    assert isinstance(p, DecoderLayerParams)
    assert p.cross_attn.w_q.shape == (8, 8)
    assert not np.allclose(p.cross_attn.w_q, p.self_attn.w_q)
    np.testing.assert_array_equal(p.ln3.gain, np.ones(8))


def test_init_is_seeded():
    a = init_decoder_layer(8, 2, 16, np.random.default_rng(5))
    b = init_decoder_layer(8, 2, 16, np.random.default_rng(5))
    c = init_decoder_layer(8, 2, 16, np.random.default_rng(6))
    np.testing.assert_array_equal(a.cross_attn.w_v, b.cross_attn.w_v)
    assert not np.array_equal(a.cross_attn.w_v, c.cross_attn.w_v)


def test_init_bad_dims():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="割り切れません"):
        init_encoder_layer(6, 4, 16, rng)
    with pytest.raises(ValueError, match="d_ff"):
        init_decoder_layer(8, 2, 0, rng)
    with pytest.raises(ValueError, match="Generator"):
        init_encoder_layer(8, 2, 16, 0)


# ---------------------------------------------------------------------------
# encoder layer
# ---------------------------------------------------------------------------
def _x(n=5, d=8, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_encoder_layer_matches_plain_loop():
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(0))
    x = _x()
    res = encoder_layer(x, p, 2)
    np.testing.assert_allclose(res.output, ref_encoder_layer(x, p, 2), atol=1e-12)
    np.testing.assert_allclose(res.attention.output, ref_mha(x, x, p.self_attn, 2), atol=1e-12)


def test_encoder_layer_intermediates():
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(3))
    x = _x(4)
    res = encoder_layer(x, p, 2)
    assert res.attention_weights.shape == (2, 4, 4)
    np.testing.assert_allclose(res.attention_weights.sum(-1), 1.0)
    assert (res.attention_weights > 0).all()            # no mask: every token sees every token
    np.testing.assert_allclose(res.attention_block.residual_sum, x + res.attention.output)
    np.testing.assert_allclose(res.after_attention, ref_ln(x + res.attention.output, p.ln1), atol=1e-12)
    assert res.ffn.hidden.shape == (4, 16)
    assert (res.ffn.hidden >= 0).all()                  # ReLU
    np.testing.assert_allclose(res.after_ffn, ref_ffn(res.after_attention, p.ffn), atol=1e-12)
    # post-LN with γ = 1, β = 0: each output row has mean 0 and variance ≈ 1
    np.testing.assert_allclose(res.output.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(res.output.var(-1), 1, atol=1e-4)
    np.testing.assert_array_equal(res.x, x)


def test_encoder_layer_pre_ln():
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(3))
    x = _x(4)
    res = encoder_layer(x, p, 2, norm="pre", activation="relu")
    ln1 = ref_ln(x, p.ln1)
    a = x + ref_mha(ln1, ln1, p.self_attn, 2)
    np.testing.assert_allclose(res.after_attention, a, atol=1e-12)
    np.testing.assert_allclose(res.output, a + ref_ffn(ref_ln(a, p.ln2), p.ffn), atol=1e-12)
    assert not np.allclose(res.output.var(-1), 1, atol=1e-3)   # pre-LN output is not normalised


def test_encoder_layer_does_not_mutate_input():
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(0))
    x = _x()
    before = x.copy()
    encoder_layer(x, p, 2)
    np.testing.assert_array_equal(x, before)


@SETTINGS
@given(st.integers(0, 10_000), st.integers(2, 7), st.randoms(use_true_random=False))
def test_encoder_layer_is_permutation_equivariant_without_pe(seed, n, rnd):
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(seed))
    x = _x(n, seed=seed + 1)
    perm = np.array(rnd.sample(range(n), n))
    out = encoder_layer(x, p, 2).output
    out_perm = encoder_layer(x[perm], p, 2).output
    np.testing.assert_allclose(out_perm, out[perm], atol=1e-10)


def test_positional_encoding_breaks_permutation_equivariance():
    model = TinyEncoderDecoder.from_seed(0)
    nopos = TinyEncoderDecoder.from_seed(0, use_pe=False)
    ids = TINY_VOCAB.ids("猫 は 魚 を")
    swapped = TINY_VOCAB.ids("魚 は 猫 を")
    perm = [2, 1, 0, 3]
    np.testing.assert_allclose(nopos.encode(swapped).output, nopos.encode(ids).output[perm], atol=1e-12)
    assert not np.allclose(model.encode(swapped).output, model.encode(ids).output[perm], atol=1e-3)


def test_encoder_layer_bad_input():
    p = init_encoder_layer(8, 2, 16, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"d_model = 8"):
        encoder_layer(np.ones((3, 4)), p, 2)
    with pytest.raises(ValueError, match="割り切れません"):
        encoder_layer(_x(), p, 3)
    with pytest.raises(ValueError, match="norm"):
        encoder_layer(_x(), p, 2, norm="middle")
    with pytest.raises(ValueError, match="NaN"):
        encoder_layer(np.full((2, 8), np.nan), p, 2)


# ---------------------------------------------------------------------------
# decoder layer
# ---------------------------------------------------------------------------
def test_decoder_layer_matches_plain_loop():
    p = init_decoder_layer(8, 2, 16, np.random.default_rng(0))
    y, enc = _x(3, seed=1), _x(5, seed=2)
    res = decoder_layer(y, enc, p, 2)
    np.testing.assert_allclose(res.output, ref_decoder_layer(y, enc, p, 2), atol=1e-12)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 7), st.integers(0, 10_000))
def test_decoder_layer_weights(n_tgt, n_src, seed):
    p = init_decoder_layer(8, 2, 16, np.random.default_rng(seed))
    res = decoder_layer(_x(n_tgt, seed=seed), _x(n_src, seed=seed + 1), p, 2)
    assert res.cross_weights.shape == (2, n_tgt, n_src)
    np.testing.assert_allclose(res.cross_weights.sum(-1), 1.0, atol=1e-12)
    assert res.self_weights.shape == (2, n_tgt, n_tgt)
    upper = np.triu(np.ones((n_tgt, n_tgt), bool), k=1)
    assert (res.self_weights[:, upper] == 0.0).all()     # exactly zero above the diagonal
    np.testing.assert_allclose(res.self_weights.sum(-1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(res.self_mask, ~upper)
    assert res.output.shape == (n_tgt, 8)


def test_decoder_layer_cross_attention_uses_encoder_for_keys_and_values():
    p = init_decoder_layer(8, 2, 16, np.random.default_rng(0))
    y, enc = _x(3, seed=1), _x(4, seed=2)
    res = decoder_layer(y, enc, p, 2)
    np.testing.assert_allclose(res.cross_attention.k[0], (enc @ p.cross_attn.w_k)[:, :4])
    np.testing.assert_allclose(res.cross_attention.v[1], (enc @ p.cross_attn.w_v)[:, 4:])
    np.testing.assert_allclose(res.cross_attention.q[0], (res.after_self_attention @ p.cross_attn.w_q)[:, :4])
    # reordering the source rows permutes the cross-attention columns and leaves the output unchanged
    perm = [3, 1, 0, 2]
    res_p = decoder_layer(y, enc[perm], p, 2)
    np.testing.assert_allclose(res_p.cross_weights, res.cross_weights[:, :, perm], atol=1e-12)
    np.testing.assert_allclose(res_p.output, res.output, atol=1e-12)


def test_decoder_layer_bad_input():
    p = init_decoder_layer(8, 2, 16, np.random.default_rng(0))
    with pytest.raises(ValueError, match="エンコーダ出力"):
        decoder_layer(_x(3), np.ones((4, 6)), p, 2)


# ---------------------------------------------------------------------------
# TinyEncoderDecoder
# ---------------------------------------------------------------------------
def test_encoder_decoder_shapes_and_intermediates():
    m = TinyEncoderDecoder.from_seed(0)
    assert (m.d_model, m.n_heads, m.n_layers, m.vocab_size) == (8, 2, 2, len(TINY_VOCAB))
    assert m.encoder_layers[0].d_ff == 16
    r = m.decode_step(SRC, TGT)
    n_src, n_tgt = len(SRC), len(TGT)
    assert r.encoder.output.shape == (n_src, 8)
    assert len(r.encoder.layers) == 2 and len(r.layers) == 2
    assert r.all_logits.shape == (n_tgt, len(TINY_VOCAB))
    assert r.logits.shape == (len(TINY_VOCAB),)
    np.testing.assert_array_equal(r.logits, r.all_logits[-1])
    for w in r.cross_weights:
        assert w.shape == (2, n_tgt, n_src)
        np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-12)
    # embedding step: E[ids] · √d_model + PE, and tied output weights
    emb = r.embedding
    assert emb.tokens == ("<bos>", "the", "cat", "ate")
    np.testing.assert_allclose(emb.output, m.embedding[list(TGT)] * np.sqrt(8) + positional_encoding(n_tgt, 8))
    np.testing.assert_allclose(r.all_logits, r.final @ m.embedding.T)
    # the layers are chained: each layer's input is the previous output
    np.testing.assert_array_equal(r.layers[1].y, r.layers[0].output)
    np.testing.assert_array_equal(r.encoder.layers[0].x, r.encoder.embedding.output)
    np.testing.assert_allclose(r.final, ref_decoder_layer(r.layers[1].y, r.encoder.output, m.decoder_layers[1], 2),
                               atol=1e-12)


def test_encoder_decoder_is_deterministic_and_seeded():
    a = TinyEncoderDecoder.from_seed(7).decode_step(SRC, TGT)
    b = TinyEncoderDecoder.from_seed(7).decode_step(SRC, TGT)
    c = TinyEncoderDecoder.from_seed(8).decode_step(SRC, TGT)
    np.testing.assert_array_equal(a.all_logits, b.all_logits)
    assert not np.allclose(a.logits, c.logits)
    m = TinyEncoderDecoder.init(np.random.default_rng(7))
    np.testing.assert_array_equal(m.decode_step(SRC, TGT).all_logits, a.all_logits)


def test_encoder_decoder_is_immutable():
    m = TinyEncoderDecoder.from_seed(0)
    assert not m.embedding.flags.writeable
    with pytest.raises(Exception):
        m.n_heads = 4
    first = m.decode_step(SRC, TGT).logits
    m.decode_step(TINY_VOCAB.ids("それ を 見つけた"), TGT)
    np.testing.assert_array_equal(m.decode_step(SRC, TGT).logits, first)


def test_encoder_decoder_causal_target_and_source_dependence():
    m = TinyEncoderDecoder.from_seed(1)
    a = m.decode_step(SRC, TINY_VOCAB.ids("<bos> the cat ate"))
    b = m.decode_step(SRC, TINY_VOCAB.ids("<bos> the fish found"))
    np.testing.assert_allclose(a.all_logits[:2], b.all_logits[:2], atol=1e-12)   # earlier positions unchanged
    assert not np.allclose(a.all_logits[2:], b.all_logits[2:])
    np.testing.assert_array_equal(a.encoder.output, b.encoder.output)           # encoder ignores the target
    c = m.decode_step(TINY_VOCAB.ids("猫 は 魚 を 見つけた 。"), TINY_VOCAB.ids("<bos> the cat ate"))
    assert not np.allclose(a.all_logits[0], c.all_logits[0])                     # the source matters everywhere


def test_encoder_decoder_generation():
    m = TinyEncoderDecoder.from_seed(0)
    next_logits = m.next_logits_for(SRC)
    np.testing.assert_allclose(next_logits(TGT), m.decode_step(SRC, TGT).logits, atol=1e-12)
    g1 = generate(next_logits, [BOS], 6, "top_p", np.random.default_rng(3), p=0.9, eos_id=EOS)
    g2 = generate(m.next_logits_for(SRC), [BOS], 6, "top_p", np.random.default_rng(3), p=0.9, eos_id=EOS)
    assert g1.ids == g2.ids
    assert g1.ids[0] == BOS and 1 <= len(g1.steps) <= 6
    greedy = generate(next_logits, [BOS], 3, "greedy")
    assert greedy.ids[1] == int(np.argmax(m.decode_step(SRC, [BOS]).logits))


def test_encoder_decoder_bad_config():
    with pytest.raises(ValueError, match="割り切れません"):
        TinyEncoderDecoder.from_seed(0, d_model=8, n_heads=3)
    with pytest.raises(ValueError, match="層の数"):
        TinyEncoderDecoder.from_seed(0, n_layers=0)
    with pytest.raises(ValueError, match="Generator"):
        TinyEncoderDecoder.init(42)
    with pytest.raises(ValueError, match="ソース"):
        TinyEncoderDecoder.from_seed(0).encode([])


# ---------------------------------------------------------------------------
# TinyDecoderOnly
# ---------------------------------------------------------------------------
def test_decoder_only_shapes_and_mask():
    m = TinyDecoderOnly.from_seed(0)
    ids = TINY_VOCAB.ids("<bos> 猫 は 魚 を 食べた")
    r = m.forward(ids)
    n = len(ids)
    assert r.logits.shape == (n, len(TINY_VOCAB))
    assert r.final.shape == (n, 8)
    np.testing.assert_array_equal(r.next_logits, r.logits[-1])
    np.testing.assert_array_equal(m.next_logits(ids), r.logits[-1])
    upper = np.triu(np.ones((n, n), bool), k=1)
    for layer in r.layers:
        assert layer.attention_weights.shape == (2, n, n)
        assert (layer.attention_weights[:, upper] == 0.0).all()
        np.testing.assert_allclose(layer.attention_weights.sum(-1), 1.0, atol=1e-12)
        assert layer.norm == "pre"
    np.testing.assert_allclose(r.logits, r.final @ m.embedding.T)
    # first token can only look at itself
    np.testing.assert_array_equal(r.layers[0].attention_weights[:, 0, 0], [1.0, 1.0])


@SETTINGS
@given(
    st.lists(st.integers(0, len(TINY_VOCAB) - 1), min_size=2, max_size=8),
    st.data(),
    st.sampled_from(["pre", "post"]),
    st.integers(0, 50),
)


def test_decoder_only_is_causal(ids, data, norm, seed):
    m = TinyDecoderOnly.from_seed(seed, norm=norm)
    pos = data.draw(st.integers(1, len(ids) - 1))
    new_tok = data.draw(st.integers(0, len(TINY_VOCAB) - 1).filter(lambda t: t != ids[pos]))
    changed = list(ids)
    changed[pos] = new_tok
    a, b = m.forward(ids).logits, m.forward(changed).logits
    np.testing.assert_allclose(a[:pos], b[:pos], atol=1e-12)      # earlier positions: unchanged
    assert not np.allclose(a[pos], b[pos])                        # the changed position: changed
    # a prefix gives the same logits as the first rows of the longer run
    np.testing.assert_allclose(m.forward(ids[:pos]).logits, a[:pos], atol=1e-12)


def test_decoder_only_without_mask_would_not_be_causal():
    """Control for the causality test: the same blocks without the mask leak the future."""
    m = TinyDecoderOnly.from_seed(0)
    x1 = m.forward(TINY_VOCAB.ids("<bos> 猫 は")).embedding.output
    x2 = m.forward(TINY_VOCAB.ids("<bos> 猫 を")).embedding.output
    p = m.layers[0]
    no_mask = encoder_layer(x1, p, 2, norm="pre").output[0], encoder_layer(x2, p, 2, norm="pre").output[0]
    assert not np.allclose(*no_mask)


def test_decoder_only_deterministic_and_generation_reproducible():
    a = TinyDecoderOnly.from_seed(3)
    b = TinyDecoderOnly.from_seed(3)
    ids = TINY_VOCAB.ids("<bos> それ を")
    np.testing.assert_array_equal(a.forward(ids).logits, b.forward(ids).logits)
    assert not np.allclose(TinyDecoderOnly.from_seed(4).forward(ids).logits, a.forward(ids).logits)
    for strategy in ("sample", "top_k", "top_p"):
        g1 = generate(a.next_logits, ids, 6, strategy, np.random.default_rng(11), temperature=1.5, k=4, p=0.8)
        g2 = generate(b.next_logits, ids, 6, strategy, np.random.default_rng(11), temperature=1.5, k=4, p=0.8)
        assert g1.ids == g2.ids
        for step in g1.steps:
            np.testing.assert_allclose(step.logits, a.forward(step.ids).logits[-1], atol=1e-12)
    g = generate(a.next_logits, ids, 4, "greedy")
    chain = list(ids)
    for _ in range(4):
        chain.append(int(np.argmax(a.forward(chain).logits[-1])))
    assert g.ids == tuple(chain)


def test_decoder_only_post_ln_and_activation_options():
    m = TinyDecoderOnly.from_seed(0, norm="post", activation="relu")
    r = m.forward(TINY_VOCAB.ids("<bos> 猫"))
    np.testing.assert_allclose(r.final.var(-1), 1, atol=1e-4)      # post-LN output is normalised
    assert (r.layers[0].ffn.hidden >= 0).all()
    assert r.layers[0].ffn.activation == "relu"
    assert TinyDecoderOnly.from_seed(0).layers[0].d_model == 8
    with pytest.raises(ValueError, match="活性化関数"):
        TinyDecoderOnly.from_seed(0, activation="tanh")
    with pytest.raises(ValueError, match="norm"):
        TinyDecoderOnly.from_seed(0, norm="both")


def test_attention_sublayers():
    assert tutor.encdec.attention_sublayers(6) == 18
    assert tutor.encdec.attention_sublayers(6, "decoder_only") == 6
    assert tutor.encdec.attention_sublayers(6, "encoder_only") == 6
    assert tutor.encdec.attention_sublayers(6, mistake="no_cross") == 12
    assert tutor.encdec.attention_sublayers(6, mistake="cross_in_encoder") == 24
    assert tutor.encdec.attention_sublayers(6, mistake="one_layer") == 3
    with pytest.raises(ValueError):
        tutor.encdec.attention_sublayers(0)
