"""⑦-3 Tiny Transformers with random (untrained) weights, small enough to show every number.

Two models, both immutable and seeded:

- ``TinyEncoderDecoder``: the original Transformer (translation): an encoder of N layers
  (self-attention without mask + FFN), a decoder of N layers (masked self-attention +
  Source-Target attention + FFN), post-LN as in the paper: LayerNorm(x + Sublayer(x)).
- ``TinyDecoderOnly``: the GPT shape: only masked self-attention + FFN blocks; it predicts
  the next token at every position (pre-LN + final LayerNorm as in GPT-2 by default).

The weights are NOT trained: the models show the computation (shapes, masks, which
weights exist and what they multiply), not sensible translations.

Conventions: one token per ROW, weights on the right (Q = X W_Q), float64, inputs never
mutated, parameters are read-only arrays, randomness only from a passed Generator.
Embedding weights are shared with the output projection (logits = H Eᵀ), and the
embedding is multiplied by √d_model before the positional encoding is added — both as in
the paper (section 3.4).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .block import ACTIVATIONS, FFNParams, FFNResult, SublayerBlockResult, ffn, init_ffn_params, layer_norm, post_ln_block, pre_ln_block
from .core import MultiHeadResult, as_matrix, causal_mask, check_mistake, check_rng, head_dim, multi_head_attention, positive_int
from .position import positional_encoding
from .vocab import Vocabulary

__all__ = [
    "TINY_VOCAB",
    "BOS",
    "EOS",
    "LN_EPS",
    "NORMS",
    "AttentionParams",
    "LayerNormParams",
    "EncoderLayerParams",
    "DecoderLayerParams",
    "init_encoder_layer",
    "init_decoder_layer",
    "EncoderLayerResult",
    "encoder_layer",
    "DecoderLayerResult",
    "decoder_layer",
    "EmbeddingResult",
    "EncodeResult",
    "DecodeResult",
    "TinyEncoderDecoder",
    "DecoderOnlyResult",
    "TinyDecoderOnly",
    "SUBLAYER_MISTAKES",
    "attention_sublayers",
]


# ---------------------------------------------------------------------------
# a tiny vocabulary (Japanese source side, English target side, shared specials)
# ---------------------------------------------------------------------------
TINY_VOCAB = Vocabulary((
    "<bos>", "<eos>",
    "猫", "魚", "それ", "は", "を", "食べた", "見つけた", "。",
    "the", "cat", "fish", "it", "ate", "found",
))
BOS = TINY_VOCAB.index("<bos>")
EOS = TINY_VOCAB.index("<eos>")
LN_EPS = 1e-5
NORMS = ("post", "pre")


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, dtype=np.float64)  # own copy
    arr.flags.writeable = False
    return arr


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AttentionParams:
    w_q: np.ndarray  # (d_model, d_model)
    w_k: np.ndarray  # (d_model, d_model)
    w_v: np.ndarray  # (d_model, d_model)
    w_o: np.ndarray  # (d_model, d_model)


@dataclass(frozen=True)
class LayerNormParams:
    gain: np.ndarray  # (d_model,)  γ, starts at 1
    bias: np.ndarray  # (d_model,)  β, starts at 0


@dataclass(frozen=True)
class EncoderLayerParams:
    """One encoder layer (also one decoder-only block): self-attention + FFN, two LayerNorms."""

    self_attn: AttentionParams
    ln1: LayerNormParams
    ffn: FFNParams            # tutor.block.FFNParams: w1 (d_model, d_ff), b1, w2 (d_ff, d_model), b2
    ln2: LayerNormParams

    @property
    def d_model(self) -> int:
        return self.self_attn.w_q.shape[0]

    @property
    def d_ff(self) -> int:
        return self.ffn.w1.shape[1]


@dataclass(frozen=True)
class DecoderLayerParams:
    """One decoder layer: masked self-attention, cross-attention, FFN, three LayerNorms."""

    self_attn: AttentionParams
    ln1: LayerNormParams
    cross_attn: AttentionParams
    ln2: LayerNormParams
    ffn: FFNParams
    ln3: LayerNormParams

    @property
    def d_model(self) -> int:
        return self.self_attn.w_q.shape[0]

    @property
    def d_ff(self) -> int:
        return self.ffn.w1.shape[1]


def _dense(rng: np.random.Generator, d_in: int, d_out: int) -> np.ndarray:
    """Glorot-style init: N(0, 1/d_in) keeps the scale of x W close to that of x."""
    return _readonly(rng.normal(0.0, 1.0 / np.sqrt(d_in), size=(d_in, d_out)))  # (d_in, d_out)


def _init_attention(rng, d_model: int) -> AttentionParams:
    return AttentionParams(*(_dense(rng, d_model, d_model) for _ in range(4)))


def _init_ffn(rng, d_model: int, d_ff: int) -> FFNParams:
    return FFNParams(*(_readonly(a) for a in init_ffn_params(d_model, d_ff, rng)))


def _init_ln(d_model: int) -> LayerNormParams:
    return LayerNormParams(gain=_readonly(np.ones(d_model)), bias=_readonly(np.zeros(d_model)))


def _check_dims(d_model, n_heads, d_ff) -> tuple[int, int, int]:
    d_model = positive_int(d_model, "d_model")
    n_heads = positive_int(n_heads, "ヘッド数 h")
    d_ff = positive_int(d_ff, "d_ff")
    head_dim(d_model, n_heads)
    return d_model, n_heads, d_ff


def init_encoder_layer(d_model: int, n_heads: int, d_ff: int, rng: np.random.Generator) -> EncoderLayerParams:
    """Random parameters of one encoder layer (W ~ N(0, 1/d_in), biases 0, LayerNorm γ = 1, β = 0).

    n_heads only checks that d_model / h is an integer; the W matrices are (d_model, d_model)
    and are split into heads at run time. All arrays are read-only.
    """
    d_model, _, d_ff = _check_dims(d_model, n_heads, d_ff)
    rng = check_rng(rng)
    return EncoderLayerParams(
        self_attn=_init_attention(rng, d_model),
        ln1=_init_ln(d_model),
        ffn=_init_ffn(rng, d_model, d_ff),
        ln2=_init_ln(d_model),
    )


def init_decoder_layer(d_model: int, n_heads: int, d_ff: int, rng: np.random.Generator) -> DecoderLayerParams:
    """Random parameters of one decoder layer (same init as ``init_encoder_layer``)."""
    d_model, _, d_ff = _check_dims(d_model, n_heads, d_ff)
    rng = check_rng(rng)
    return DecoderLayerParams(
        self_attn=_init_attention(rng, d_model),
        ln1=_init_ln(d_model),
        cross_attn=_init_attention(rng, d_model),
        ln2=_init_ln(d_model),
        ffn=_init_ffn(rng, d_model, d_ff),
        ln3=_init_ln(d_model),
    )


# ---------------------------------------------------------------------------
# building blocks (sub-layers wrapped in tutor.block's post-LN / pre-LN blocks)
# ---------------------------------------------------------------------------
def _mha(x, p: AttentionParams, n_heads: int, mask=None, x_kv=None) -> MultiHeadResult:
    return multi_head_attention(x, p.w_q, p.w_k, p.w_v, p.w_o, n_heads, mask, x_kv=x_kv)


def _sublayer(norm: str, x: np.ndarray, run, ln: LayerNormParams):
    """Run ``run`` (z → result with .output) inside a post-LN or pre-LN residual block.

    Returns (SublayerBlockResult, the sub-layer's own result with all its intermediates).
    """
    inner = []

    def sublayer(z):
        inner.append(run(z))
        return inner[-1].output

    block = (post_ln_block if norm == "post" else pre_ln_block)(x, sublayer, LN_EPS, ln.gain, ln.bias)
    return block, inner[0]


def _check_norm(norm: str) -> str:
    if norm not in NORMS:
        raise ValueError(f"正規化の位置 norm は 'post'（原論文）か 'pre'（GPT 系）です（{norm!r}）。")
    return norm


def _check_activation(activation: str) -> str:
    if activation not in ACTIVATIONS:
        raise ValueError(f"活性化関数 {activation!r} には対応していません。{sorted(ACTIVATIONS)} から選んでください。")
    return activation


def _check_layer_input(x, d_model: int, name: str) -> np.ndarray:
    x = as_matrix(x, name, ndim=2)
    if x.shape[1] != d_model:
        raise ValueError(
            f"{name}（形 {x.shape}）の列数 {x.shape[1]} が層の d_model = {d_model} と一致しません。"
        )
    return x


@dataclass(frozen=True)
class EncoderLayerResult:
    """Every intermediate of one encoder layer (or one decoder-only block).

    post-LN:  a = LN1(x + MHA(x));      output = LN2(a + FFN(a))
    pre-LN:   a = x + MHA(LN1(x));      output = a + FFN(LN2(a))
    """

    norm: str                          # "post" | "pre"
    x: np.ndarray                      # (n, d_model) input
    attention: MultiHeadResult         # .weights (h, n, n) per head, .output (n, d_model)
    attention_block: SublayerBlockResult  # .sublayer_input, .residual_sum, .ln (LayerNorm steps), .output
    ffn: FFNResult                     # .pre_activation, .hidden (n, d_ff), .output (n, d_model)
    ffn_block: SublayerBlockResult
    output: np.ndarray                 # (n, d_model)

    @property
    def attention_weights(self) -> np.ndarray:  # (h, n, n)
        return self.attention.weights

    @property
    def after_attention(self) -> np.ndarray:    # (n, d_model) a: input of the FFN sub-layer
        return self.attention_block.output

    @property
    def after_ffn(self) -> np.ndarray:          # (n, d_model) the FFN's own output, before the residual
        return self.ffn.output


def encoder_layer(x, params: EncoderLayerParams, n_heads: int, mask=None, *, norm: str = "post",
                  activation: str = "relu") -> EncoderLayerResult:
    """One encoder layer.

        1. self-attention   A = MultiHead(X, X, X)        (mask=None: every token sees every token)
        2. add & norm       X' = LayerNorm(X + A)          (post-LN, the paper)
        3. feed-forward     F = ReLU(X' W_1 + b_1) W_2 + b_2
        4. add & norm       Y = LayerNorm(X' + F)

    norm="pre" gives the GPT form: X' = X + A(LN(X)), Y = X' + F(LN(X')).
    With a causal mask this is exactly one block of a decoder-only model.
    x: (n, d_model); mask: bool broadcastable to (n, n), True = may attend.
    """
    norm = _check_norm(norm)
    activation = _check_activation(activation)
    x = _check_layer_input(x, params.d_model, "層の入力 X")
    n, d_model = x.shape
    attn_block, attn = _sublayer(                                         # 1–2: weights (h, n, n)
        norm, x, lambda z: _mha(z, params.self_attn, n_heads, mask), params.ln1)
    a = attn_block.output                                                 # (n, d_model)
    ffn_block, ff = _sublayer(                                            # 3–4: hidden (n, d_ff)
        norm, a, lambda z: ffn(z, *params.ffn, activation=activation), params.ln2)
    return EncoderLayerResult(norm, x, attn, attn_block, ff, ffn_block, ffn_block.output)  # (n, d_model)


@dataclass(frozen=True)
class DecoderLayerResult:
    """Every intermediate of one decoder layer (post-LN)."""

    y: np.ndarray                        # (n_tgt, d_model) input
    self_mask: np.ndarray                # (n_tgt, n_tgt) bool, causal
    self_attention: MultiHeadResult      # .weights (h, n_tgt, n_tgt), exact 0 above the diagonal
    self_block: SublayerBlockResult      # .output = LN1(y + SelfAttn(y))
    cross_attention: MultiHeadResult     # .weights (h, n_tgt, n_src): Q from decoder, K/V from encoder
    cross_block: SublayerBlockResult     # .output = LN2(a + CrossAttn(a, enc))
    ffn: FFNResult
    ffn_block: SublayerBlockResult       # .output = LN3(b + FFN(b))
    output: np.ndarray                   # (n_tgt, d_model)

    @property
    def self_weights(self) -> np.ndarray:   # (h, n_tgt, n_tgt)
        return self.self_attention.weights

    @property
    def cross_weights(self) -> np.ndarray:  # (h, n_tgt, n_src)
        return self.cross_attention.weights

    @property
    def after_self_attention(self) -> np.ndarray:   # (n_tgt, d_model)
        return self.self_block.output

    @property
    def after_cross_attention(self) -> np.ndarray:  # (n_tgt, d_model)
        return self.cross_block.output

    @property
    def after_ffn(self) -> np.ndarray:      # (n_tgt, d_model) FFN output before the residual
        return self.ffn.output


def decoder_layer(y, enc_out, params: DecoderLayerParams, n_heads: int, src_mask=None, *,
                  activation: str = "relu") -> DecoderLayerResult:
    """One decoder layer of the paper (post-LN).

        1. masked self-attention  A = MultiHead(Y, Y, Y, causal mask)     weights (h, n_tgt, n_tgt)
        2. add & norm             Y' = LayerNorm(Y + A)
        3. Source-Target attn     C = MultiHead(Q = Y', K = V = Enc)       weights (h, n_tgt, n_src)
        4. add & norm             Y'' = LayerNorm(Y' + C)
        5. feed-forward           F = ReLU(Y'' W_1 + b_1) W_2 + b_2
        6. add & norm             Out = LayerNorm(Y'' + F)

    y: (n_tgt, d_model) decoder input; enc_out: (n_src, d_model) encoder output;
    src_mask: optional bool broadcastable to (n_tgt, n_src) (e.g. hide source padding).
    """
    activation = _check_activation(activation)
    d_model = params.d_model
    y = _check_layer_input(y, d_model, "デコーダ層の入力 Y")
    enc_out = _check_layer_input(enc_out, d_model, "エンコーダ出力")
    n_tgt, _ = y.shape
    mask = causal_mask(n_tgt)                                                  # (n_tgt, n_tgt)
    self_block, self_attn = _sublayer(                                         # 1–2: (h, n_tgt, n_tgt)
        "post", y, lambda z: _mha(z, params.self_attn, n_heads, mask), params.ln1)
    cross_block, cross = _sublayer(                                            # 3–4: (h, n_tgt, n_src)
        "post", self_block.output,
        lambda z: _mha(z, params.cross_attn, n_heads, src_mask, x_kv=enc_out), params.ln2)
    ffn_block, ff = _sublayer(                                                 # 5–6: (n_tgt, d_ff)
        "post", cross_block.output, lambda z: ffn(z, *params.ffn, activation=activation), params.ln3)
    return DecoderLayerResult(y, mask, self_attn, self_block, cross, cross_block, ff, ffn_block,
                              ffn_block.output)                                # (n_tgt, d_model)


# ---------------------------------------------------------------------------
# embeddings
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class EmbeddingResult:
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    embedded: np.ndarray   # (n, d_model) E[ids]
    scaled: np.ndarray     # (n, d_model) E[ids] · √d_model
    pe: np.ndarray         # (n, d_model) sinusoidal positional encoding (zeros when use_pe=False)
    output: np.ndarray     # (n, d_model) scaled + pe: the first layer's input


def _embed(embedding: np.ndarray, vocab, ids, use_pe: bool, name: str) -> EmbeddingResult:
    ids = vocab.check_ids(ids, name)
    n, d_model = len(ids), embedding.shape[1]
    emb = embedding[list(ids)]                                   # (n, d_model)
    scaled = emb * np.sqrt(d_model)                              # (n, d_model)
    pe = positional_encoding(n, d_model) if use_pe else np.zeros((n, d_model))  # (n, d_model)
    return EmbeddingResult(ids, vocab.tokens(ids), emb, scaled, pe, scaled + pe)


# ---------------------------------------------------------------------------
# the encoder-decoder model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class EncodeResult:
    embedding: EmbeddingResult
    layers: tuple[EncoderLayerResult, ...]
    output: np.ndarray       # (n_src, d_model)


@dataclass(frozen=True)
class DecodeResult:
    encoder: EncodeResult
    embedding: EmbeddingResult
    layers: tuple[DecoderLayerResult, ...]
    final: np.ndarray        # (n_tgt, d_model) last decoder layer's output
    all_logits: np.ndarray   # (n_tgt, vocab)   final · Eᵀ
    logits: np.ndarray       # (vocab,)          the last position's row: scores of the NEXT token

    @property
    def cross_weights(self) -> tuple[np.ndarray, ...]:  # per layer (h, n_tgt, n_src)
        return tuple(layer.cross_weights for layer in self.layers)


class _TinyModel:
    """What both tiny models share: seeding and sizes read off the embedding table."""

    @classmethod
    def from_seed(cls, seed: int = 0, **kwargs):
        """Same as ``init(np.random.default_rng(seed), **kwargs)``: same seed → same model."""
        return cls.init(np.random.default_rng(seed), **kwargs)

    @property
    def d_model(self) -> int:
        return self.embedding.shape[1]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)


@dataclass(frozen=True)
class TinyEncoderDecoder(_TinyModel):
    """A seeded, untrained encoder-decoder Transformer (post-LN, shared embedding/output weights)."""

    vocab: Vocabulary
    n_heads: int
    embedding: np.ndarray                             # (vocab, d_model), read-only
    encoder_layers: tuple[EncoderLayerParams, ...]
    decoder_layers: tuple[DecoderLayerParams, ...]
    use_pe: bool = True
    activation: str = "relu"

    @classmethod
    def init(cls, rng: np.random.Generator, *, n_layers: int = 2, d_model: int = 8, n_heads: int = 2,
             d_ff: int = 16, vocab: Sequence[str] = TINY_VOCAB, use_pe: bool = True,
             activation: str = "relu") -> "TinyEncoderDecoder":
        """Draw every parameter from ``rng`` (embedding E ~ N(0, 1/d_model)); the paper's ReLU FFN."""
        d_model, n_heads, d_ff = _check_dims(d_model, n_heads, d_ff)
        activation = _check_activation(activation)
        n_layers = positive_int(n_layers, "層の数 N")
        rng = check_rng(rng)
        vocab = Vocabulary(vocab)
        if len(vocab) < 2:
            raise ValueError("語彙は重複のない 2 語以上のトークン列が必要です。")
        embedding = _readonly(rng.normal(0.0, 1.0 / np.sqrt(d_model), size=(len(vocab), d_model)))
        enc = tuple(init_encoder_layer(d_model, n_heads, d_ff, rng) for _ in range(n_layers))
        dec = tuple(init_decoder_layer(d_model, n_heads, d_ff, rng) for _ in range(n_layers))
        return cls(vocab, n_heads, embedding, enc, dec, bool(use_pe), activation)

    @property
    def n_layers(self) -> int:
        return len(self.encoder_layers)

    def encode(self, src_ids) -> EncodeResult:
        """Enc = EncoderLayer_N(… EncoderLayer_1(E[src]·√d_model + PE)); no mask."""
        emb = _embed(self.embedding, self.vocab, src_ids, self.use_pe, "入力文（ソース）")
        h = emb.output                                                     # (n_src, d_model)
        layers = []
        for params in self.encoder_layers:
            res = encoder_layer(h, params, self.n_heads, activation=self.activation)
            layers.append(res)
            h = res.output                                                 # (n_src, d_model)
        return EncodeResult(emb, tuple(layers), h)

    def _decode(self, encoded: EncodeResult, tgt_ids) -> DecodeResult:
        emb = _embed(self.embedding, self.vocab, tgt_ids, self.use_pe, "出力文（ターゲット）")
        h = emb.output                                                     # (n_tgt, d_model)
        layers = []
        for params in self.decoder_layers:
            res = decoder_layer(h, encoded.output, params, self.n_heads, activation=self.activation)
            layers.append(res)
            h = res.output                                                 # (n_tgt, d_model)
        all_logits = h @ self.embedding.T                                  # (n_tgt, vocab)
        return DecodeResult(encoded, emb, tuple(layers), h, all_logits, all_logits[-1].copy())

    def decode_step(self, src_ids, tgt_ids) -> DecodeResult:
        """Encode the source, run the decoder on the target so far; ``.logits`` scores the next token."""
        return self._decode(self.encode(src_ids), tgt_ids)

    def next_logits_for(self, src_ids) -> Callable[[Sequence[int]], np.ndarray]:
        """A ``next_logits(tgt_ids) -> (vocab,)`` function for ``tutor.output.generate``
        (the source is encoded once)."""
        encoded = self.encode(src_ids)
        return lambda tgt_ids: self._decode(encoded, tgt_ids).logits


# ---------------------------------------------------------------------------
# the decoder-only model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DecoderOnlyResult:
    embedding: EmbeddingResult
    mask: np.ndarray                          # (n, n) causal
    layers: tuple[EncoderLayerResult, ...]    # blocks = self-attention with causal mask + FFN
    final: np.ndarray                         # (n, d_model) after the final LayerNorm (pre-LN) or last block
    logits: np.ndarray                        # (n, vocab): row i scores the token at position i + 1

    @property
    def next_logits(self) -> np.ndarray:      # (vocab,)
        return self.logits[-1]


@dataclass(frozen=True)
class TinyDecoderOnly(_TinyModel):
    """A seeded, untrained GPT-shaped model: causal self-attention + FFN blocks, tied output."""

    vocab: Vocabulary
    n_heads: int
    embedding: np.ndarray                     # (vocab, d_model), read-only
    layers: tuple[EncoderLayerParams, ...]
    final_norm: LayerNormParams               # used only when norm == "pre"
    norm: str = "pre"
    use_pe: bool = True
    activation: str = "gelu"

    @classmethod
    def init(cls, rng: np.random.Generator, *, n_layers: int = 2, d_model: int = 8, n_heads: int = 2,
             d_ff: int = 16, vocab: Sequence[str] = TINY_VOCAB, norm: str = "pre",
             use_pe: bool = True, activation: str = "gelu") -> "TinyDecoderOnly":
        """Draw every parameter from ``rng``; GPT-style defaults (pre-LN, GELU)."""
        d_model, n_heads, d_ff = _check_dims(d_model, n_heads, d_ff)
        activation = _check_activation(activation)
        n_layers = positive_int(n_layers, "層の数 N")
        norm = _check_norm(norm)
        rng = check_rng(rng)
        vocab = Vocabulary(vocab)
        if len(vocab) < 2:
            raise ValueError("語彙は重複のない 2 語以上のトークン列が必要です。")
        embedding = _readonly(rng.normal(0.0, 1.0 / np.sqrt(d_model), size=(len(vocab), d_model)))
        layers = tuple(init_encoder_layer(d_model, n_heads, d_ff, rng) for _ in range(n_layers))
        return cls(vocab, n_heads, embedding, layers, _init_ln(d_model), norm, bool(use_pe), activation)

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    def forward(self, ids) -> DecoderOnlyResult:
        """H_0 = E[ids]·√d_model + PE; H_l = Block_l(H_{l−1}, causal mask); logits = H_N Eᵀ.

        Position i only sees positions 0 … i, so logits[i] is the prediction of token i + 1
        and does not change when a later token changes.
        """
        emb = _embed(self.embedding, self.vocab, ids, self.use_pe, "トークン列")
        n = len(emb.ids)
        mask = causal_mask(n)                                              # (n, n)
        h = emb.output                                                     # (n, d_model)
        layers = []
        for params in self.layers:
            res = encoder_layer(h, params, self.n_heads, mask, norm=self.norm, activation=self.activation)
            layers.append(res)
            h = res.output                                                 # (n, d_model)
        final = (layer_norm(h, LN_EPS, self.final_norm.gain, self.final_norm.bias)
                 if self.norm == "pre" else h)                                     # (n, d_model)
        logits = final @ self.embedding.T                                  # (n, vocab)
        return DecoderOnlyResult(emb, mask, tuple(layers), final, logits)

    def next_logits(self, ids) -> np.ndarray:
        """(vocab,) scores of the token after ``ids``: the function ``tutor.output.generate`` calls."""
        return self.forward(ids).logits[-1].copy()


# ---------------------------------------------------------------------------
# how many attention sub-layers, and its named mistakes
# ---------------------------------------------------------------------------
SUBLAYER_MISTAKES = ("no_cross", "cross_in_encoder", "one_layer")


def attention_sublayers(n_layers: int, arch: str = "encoder_decoder", mistake: str | None = None) -> int:
    """Number of attention sub-layers in a stack of N layers.

    encoder_decoder: encoder N (self) + decoder 2N (masked self + Source-Target) = 3N;
    decoder_only / encoder_only: N.
    Mistakes (encoder_decoder): no_cross → 2N (Source-Target attention forgotten);
    cross_in_encoder → 4N (a cross-attention in the encoder too); one_layer → 3 (N ignored).
    """
    check_mistake(mistake, SUBLAYER_MISTAKES, "attention_sublayers")
    n = int(n_layers)
    if n < 1:
        raise ValueError(f"層の数 N は 1 以上です（{n_layers!r}）。")
    per_layer = {"encoder_decoder": (1, 2), "decoder_only": (0, 1), "encoder_only": (1, 0)}
    if arch not in per_layer:
        raise ValueError(f"構成 {arch!r} は encoder_decoder / decoder_only / encoder_only のどれかです。")
    enc, dec = per_layer[arch]
    if mistake == "no_cross":
        dec = min(dec, 1)
    elif mistake == "cross_in_encoder":
        enc += 1 if enc else 0
    elif mistake == "one_layer":
        n = 1
    return n * (enc + dec)
