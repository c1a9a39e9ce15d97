"""BERT (encoder only): its published sizes, the input [CLS] A [SEP] B [SEP], the masked language
model's draw and expected counts, next-sentence prediction, the [CLS] classification head, and
parameter counts — each with the named mistakes next to it."""
from __future__ import annotations

import re

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import numfmt
from ..core import as_matrix, check_rng, head_dim, positive_int, softmax
from ..vocab import PAD

# ---------------------------------------------------------------------------
# published sizes (Devlin et al. 2019; Dosovitskiy et al. 2021)
# ---------------------------------------------------------------------------
BERT_VOCAB = 30_522          # WordPiece vocabulary of the released English (uncased) models
BERT_MAX_POSITIONS = 512     # learned position embeddings: at most 512 tokens
BERT_TYPE_VOCAB = 2          # segment (token type) embeddings: sentence A / sentence B
BERT_SIZES = {               # L layers, hidden width H, A heads (FFN width 4H)
    "BERT-Base": {"layers": 12, "hidden": 768, "heads": 12},
    "BERT-Large": {"layers": 24, "hidden": 1024, "heads": 16},
}

MLM_RATE = 0.15              # share of the ordinary tokens chosen for prediction
MLM_SPLIT = (0.8, 0.1, 0.1)  # of the chosen: [MASK] / random token / unchanged
MLM_ACTIONS = ("mask", "random", "keep")
SPECIAL = ("[CLS]", "[SEP]", "[MASK]", PAD)

# worked examples (small whole numbers, so that every step can be done by hand)
DEMO_SENTENCE_A = ("猫", "は", "魚", "を", "見つけた", "。")
DEMO_SENTENCE_B = ("それ", "を", "食べた", "。")
NSP_CORPUS = ("猫は魚を見つけた。", "それを食べた。", "雨が降ってきた。", "犬は傘を持っていない。",
              "電車は駅に着いた。", "窓の外は明るい。")
CLS_DEMO_H = (1.0, 0.0, 2.0, -1.0)                                 # final [CLS] vector (H = 4)
CLS_DEMO_W = ((1.0, 0.0), (0.0, 1.0), (0.5, -0.5), (0.0, 1.0))     # W (H, K = 2)
CLS_DEMO_B = (0.0, 0.0)


def pretrain_half_up(x: float) -> int:
    """x rounded to a whole number by 四捨五入 (2.5 → 3), as every count on the page
    (tutor.numfmt.round_half_up, the app's one rounding rule)."""
    return int(numfmt.round_half_up(x, 0))


def pretrain_millions(count: int) -> int:
    """A parameter count in millions, 四捨五入 (109,482,240 → 109)."""
    return pretrain_half_up(int(count) / 1_000_000)


MAX_SENTENCE_TOKENS = 40


MAX_TOKEN_CHARS = 12
# a token is a word (letters, digits, kana, kanji, a little Japanese punctuation) or a special
# token: no Markdown or HTML punctuation ever reaches the tables that show the draw
_TOKEN = re.compile(r"\[(?:CLS|SEP|MASK)\]|[^\W_]+|[。、！？ー・]")


def mlm_split_text(text: str) -> tuple[str, ...]:
    """A sentence typed with spaces between the tokens → its tokens (full-width spaces count;
    at most 40 tokens)."""
    if not isinstance(text, str):
        raise ValueError("文は文字列で入れてください。")
    tokens = tuple(text.replace("\u3000", " ").split())
    if not tokens:
        raise ValueError("文が空です。トークンを空白で区切って入れてください（例：猫 は 魚 を 見つけた）。")
    if len(tokens) > MAX_SENTENCE_TOKENS:
        raise ValueError(f"トークンは {MAX_SENTENCE_TOKENS} 個までにしてください（いま {len(tokens)} 個）。")
    bad = next((t for t in tokens if len(t) > MAX_TOKEN_CHARS or not _TOKEN.fullmatch(t)), None)
    if bad is not None:
        raise ValueError(f"トークン「{bad[:MAX_TOKEN_CHARS]}」は使えません。1 トークンは {MAX_TOKEN_CHARS} 文字までの"
                         "文字・数字（と 。、！？ー・）か、[CLS]・[SEP]・[MASK] にしてください。")
    return tokens


def _tokens(tokens, name: str) -> tuple[str, ...]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise ValueError(f"{name} はトークン（文字列）の列で渡してください。")
    out = tuple(str(t).strip() for t in tokens)
    if not out:
        raise ValueError(f"{name} が空です。少なくとも 1 トークン必要です。")
    if any(not t for t in out):
        raise ValueError(f"{name} に空のトークンがあります。")
    return out


# ---------------------------------------------------------------------------
# BERT input: [CLS] A [SEP] B [SEP], segment ids, positions
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BertInput:
    tokens: tuple[str, ...]      # (n,)  "[CLS]", sentence A, "[SEP]", sentence B, "[SEP]"
    segments: tuple[int, ...]    # (n,)  0 for [CLS] + A + first [SEP], 1 for B + last [SEP]
    positions: tuple[int, ...]   # (n,)  0 … n − 1 (learned position embeddings)


def bert_input(sentence_a, sentence_b=None, *, max_positions: int = BERT_MAX_POSITIONS) -> BertInput:
    """BERT's input sequence: [CLS] A [SEP] (B [SEP]); segment id 0 for A's part, 1 for B's.

    The embedding of token i is token_emb + segment_emb[segments[i]] + position_emb[i];
    n may not exceed ``max_positions`` (512 for BERT)."""
    a = _tokens(sentence_a, "文 A")
    tokens = ["[CLS]", *a, "[SEP]"]
    segments = [0] * len(tokens)
    if sentence_b is not None:
        b = _tokens(sentence_b, "文 B")
        tokens += [*b, "[SEP]"]
        segments += [1] * (len(b) + 1)
    if len(tokens) > positive_int(max_positions, "最大位置数"):
        raise ValueError(f"トークン数 {len(tokens)} が最大位置数 {max_positions} を超えています。")
    return BertInput(tuple(tokens), tuple(segments), tuple(range(len(tokens))))


# ---------------------------------------------------------------------------
# MLM: expected counts and their misconceptions
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class MlmCounts:
    chosen: float   # 0.15 n           tokens whose original the model must predict
    mask: float     # 0.8 · 0.15 n     replaced by [MASK]
    random: float   # 0.1 · 0.15 n     replaced by a random token
    keep: float     # 0.1 · 0.15 n     left as they were (still predicted)


def _n_tokens(n) -> int:
    return positive_int(n, "トークン数 n")


def mlm_expected_counts(n: int) -> MlmCounts:
    """Expected counts for n ordinary tokens:

        chosen = 0.15 n,  [MASK] = 0.8 · chosen,  random = 0.1 · chosen,  unchanged = 0.1 · chosen
    """
    n = _n_tokens(n)
    chosen = MLM_RATE * n
    m, r, k = MLM_SPLIT
    return MlmCounts(chosen, m * chosen, r * chosen, k * chosen)


def mlm_counts_all_mask(n: int) -> MlmCounts:
    """MISTAKE: every chosen token becomes [MASK] (the 80/10/10 rule forgotten)."""
    chosen = MLM_RATE * _n_tokens(n)
    return MlmCounts(chosen, chosen, 0.0, 0.0)


def mlm_counts_of_whole_sequence(n: int) -> MlmCounts:
    """MISTAKE: the 80/10/10 split applied to all n tokens instead of the 15 % chosen."""
    n = _n_tokens(n)
    m, r, k = MLM_SPLIT
    return MlmCounts(float(n), m * n, r * n, k * n)


def mlm_counts_changed_as_mask(n: int) -> MlmCounts:
    """MISTAKE: the tokens replaced by a random token counted as [MASK] too (90 % of the chosen)."""
    right = mlm_expected_counts(n)
    return MlmCounts(right.chosen, right.mask + right.random, 0.0, right.keep)


# ---------------------------------------------------------------------------
# MLM: the draw on a sentence
# ---------------------------------------------------------------------------
def mlm_pick_count(n_candidates: int, rate: float = MLM_RATE) -> int:
    """How many tokens are chosen: rate · n_candidates rounded half up, at least 1."""
    n_candidates = _n_tokens(n_candidates)
    rate = float(rate)
    if not (0.0 < rate <= 1.0):
        raise ValueError(f"選ぶ割合は 0 より大きく 1 以下にしてください（{rate}）。")
    return max(1, pretrain_half_up(rate * n_candidates))


@dataclass(frozen=True)
class MlmDraw:
    tokens: tuple[str, ...]      # (n,) the input as given
    masked: tuple[str, ...]      # (n,) what the model sees
    actions: tuple[str, ...]     # (n,) "mask" | "random" | "keep" | "" (not chosen / special)
    chosen: tuple[int, ...]      # positions chosen for prediction, ascending
    uniforms: tuple[float, ...]  # the u ∈ [0, 1) drawn for each chosen position (u < 0.8 → [MASK] …)
    n_candidates: int            # ordinary tokens ([CLS], [SEP] … are never chosen)

    @property
    def expected_picks(self) -> float:
        """0.15 · n_candidates before rounding (10 tokens → 1.5 → 2 chosen)."""
        return MLM_RATE * self.n_candidates

    @property
    def targets(self) -> dict[int, str]:
        """position → the original token the model must predict there."""
        return {i: self.tokens[i] for i in self.chosen}


def mlm_draw(tokens, rng: np.random.Generator, vocabulary=None, *, rate: float = MLM_RATE) -> MlmDraw:
    """BERT's masking of one sequence.

    1. candidates = positions of ordinary tokens (not [CLS], [SEP], [MASK], [PAD]);
    2. choose k = max(1, 四捨五入(rate · #candidates)) of them without replacement;
    3. for each chosen position draw u ~ U[0, 1): u < 0.8 → [MASK], u < 0.9 → a random token,
       otherwise the token stays (the model still has to predict it).

    The random token is drawn uniformly from ``vocabulary`` minus the original token and the
    special tokens (assumption of this demo: BERT draws from all 30,522 words, where hitting the
    original is rare). vocabulary defaults to the sentence's own ordinary words.
    """
    rng = check_rng(rng)
    tokens = _tokens(tokens, "文")
    candidates = [i for i, t in enumerate(tokens) if t not in SPECIAL]
    if not candidates:
        raise ValueError("予測の対象にできる普通のトークンがありません（特殊トークンだけです）。")
    vocab = sorted(set(_tokens(vocabulary, "語彙") if vocabulary is not None else ()) |
                   {tokens[i] for i in candidates})
    vocab = [w for w in vocab if w not in SPECIAL]
    where = {w: i for i, w in enumerate(vocab)}
    k = mlm_pick_count(len(candidates), rate)
    picked = rng.choice(len(candidates), size=k, replace=False)            # (k,)
    chosen = sorted(candidates[int(j)] for j in picked)
    uniforms = rng.random(k)                                               # (k,)
    masked, actions = list(tokens), [""] * len(tokens)
    for pos, u in zip(chosen, uniforms):
        if u < MLM_SPLIT[0]:
            masked[pos], actions[pos] = "[MASK]", "mask"
        elif u < MLM_SPLIT[0] + MLM_SPLIT[1]:
            if len(vocab) > 1:                     # uniform over the vocabulary without the original
                j = int(rng.integers(len(vocab) - 1))
                masked[pos] = vocab[j + (j >= where[tokens[pos]])]
            actions[pos] = "random"
        else:
            actions[pos] = "keep"
    return MlmDraw(tokens, tuple(masked), tuple(actions), tuple(chosen),
                   tuple(float(u) for u in uniforms), len(candidates))


@dataclass(frozen=True)
class MlmTally:
    n_tokens: int
    chosen: int
    mask: int
    random: int
    keep: int

    @property
    def chosen_share(self) -> float:
        """chosen / n_tokens (≈ 0.15)."""
        return self.chosen / self.n_tokens

    @property
    def split(self) -> tuple[float, float, float]:
        """([MASK], random, unchanged) / chosen (≈ 0.8, 0.1, 0.1)."""
        return (self.mask / self.chosen, self.random / self.chosen, self.keep / self.chosen)

    @property
    def percentages(self) -> tuple[float, float, float, float]:
        """(chosen of all, [MASK], random, unchanged of the chosen) in per cent (≈ 15, 80, 10, 10)."""
        mask, rand, keep = self.split
        return (100 * self.chosen_share, 100 * mask, 100 * rand, 100 * keep)


def mlm_tally(draw: MlmDraw) -> MlmTally:
    """Counts of one draw: how many ordinary tokens, chosen, [MASK], random, unchanged."""
    acts = draw.actions
    return MlmTally(draw.n_candidates, len(draw.chosen), acts.count("mask"), acts.count("random"),
                    acts.count("keep"))


def mlm_long_run(n_tokens: int, rng: np.random.Generator) -> MlmTally:
    """The same draw on a long sequence of n_tokens ordinary tokens (w0, w1, …): the shares come
    close to 15 % and 80/10/10 (the rule is a probability, a short sentence varies)."""
    n_tokens = _n_tokens(n_tokens)
    if n_tokens > 1_000_000:
        raise ValueError(f"トークン数は 1,000,000 以下にしてください（{n_tokens:,}）。")
    words = [f"w{i}" for i in range(n_tokens)]
    return mlm_tally(mlm_draw(words, rng, vocabulary=words[:50]))


# ---------------------------------------------------------------------------
# NSP: is sentence B the sentence that follows A?
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NspPair:
    first: int          # index of sentence A in the corpus
    second: int         # index of sentence B
    is_next: bool       # label: B really follows A (IsNext) or was drawn at random (NotNext)
    coin: float         # the u ∈ [0, 1) drawn: u < 0.5 → IsNext


def nsp_pair(n_sentences: int, first: int, rng: np.random.Generator) -> NspPair:
    """One NSP training pair: with probability 1/2 B is the sentence after A (IsNext), otherwise
    a random other sentence of the corpus (NotNext; this demo never draws A or its successor)."""
    rng = check_rng(rng)
    n = positive_int(n_sentences, "文の数")
    if n < 3:
        raise ValueError(f"次文予測の例には 3 文以上が必要です（{n} 文）。")
    if not (isinstance(first, (int, np.integer)) and 0 <= int(first) < n - 1):
        raise ValueError(f"文 A の番号は 0 以上 {n - 2} 以下にしてください（{first!r}）。")
    first = int(first)
    coin = float(rng.random())
    if coin < 0.5:
        return NspPair(first, first + 1, True, coin)
    others = [i for i in range(n) if i not in (first, first + 1)]
    return NspPair(first, others[int(rng.integers(len(others)))], False, coin)


# ---------------------------------------------------------------------------
# fine-tuning for classification: a linear layer on the final [CLS] vector
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ClsHead:
    logits: np.ndarray   # (K,)  z = h_[CLS] W + b
    probs: np.ndarray    # (K,)  softmax(z)
    label: int           # argmax


def cls_head(h_cls, w, b) -> ClsHead:
    """Classification on [CLS]: p = softmax(h_[CLS] W + b); h_cls (H,), W (H, K), b (K,)."""
    h = as_matrix(h_cls, "[CLS] のベクトル", ndim=1)
    w = as_matrix(w, "分類層の重み W", ndim=2)
    b = as_matrix(b, "分類層のバイアス b", ndim=1)
    if w.shape[0] != h.shape[0] or b.shape[0] != w.shape[1]:
        raise ValueError(f"形が合いません：[CLS] {h.shape}、W {w.shape}、b {b.shape}"
                         "（W は (H, K)、b は (K,) が必要です）。")
    z = h @ w + b                       # (K,)
    p = softmax(z)                      # (K,)
    return ClsHead(z, p, int(np.argmax(p)))


def cls_head_params(hidden: int, classes: int) -> int:
    """New parameters of the classification head: H · K + K."""
    hidden, classes = positive_int(hidden, "幅 H"), positive_int(classes, "クラス数 K")
    return hidden * classes + classes


# ---------------------------------------------------------------------------
# parameter counts
# ---------------------------------------------------------------------------
def bert_head_dim(hidden: int, heads: int) -> int:
    """d_k = H / A (each head gets an equal share of the width)."""
    return head_dim(positive_int(hidden, "幅 H"), positive_int(heads, "ヘッド数 A"))


def bert_head_dim_unsplit(hidden: int, heads: int) -> int:
    """MISTAKE: each head has the whole width, d_k = H."""
    bert_head_dim(hidden, heads)
    return int(hidden)


def bert_head_dim_multiplied(hidden: int, heads: int) -> int:
    """MISTAKE: multiplied instead of divided, d_k = H · A."""
    bert_head_dim(hidden, heads)
    return int(hidden) * int(heads)


@dataclass(frozen=True)
class LayerParams:
    attention: int      # 4 (H² + H)          W_Q, W_K, W_V, W_O with biases
    attention_norm: int  # 2H                 LayerNorm γ, β
    ffn: int            # H·F + F + F·H + H   two linear layers with biases
    ffn_norm: int       # 2H
    width: int = 0      # H
    ffn_width: int = 0  # F (4H unless given)

    @property
    def total(self) -> int:
        return self.attention + self.attention_norm + self.ffn + self.ffn_norm


def encoder_layer_params(hidden: int, ffn: int | None = None) -> LayerParams:
    """One encoder layer (BERT and ViT alike): attention 4(H² + H), FFN 2HF + F + H, two
    LayerNorms of 2H each; F = 4H unless given. (Heads do not change the count: they share H.)"""
    h = positive_int(hidden, "幅 H")
    f = 4 * h if ffn is None else positive_int(ffn, "FFN の幅")
    return LayerParams(4 * (h * h + h), 2 * h, 2 * h * f + f + h, 2 * h, h, f)


@dataclass(frozen=True)
class BertParams:
    token_embedding: int      # V · H
    position_embedding: int   # 512 · H
    segment_embedding: int    # 2 · H
    embedding_norm: int       # 2H
    layer: LayerParams        # one encoder layer
    layers: int               # L
    pooler: int               # H² + H (the tanh layer on [CLS] used by NSP and classification)
    heads: int = 0            # A (does not change the count)

    @property
    def embeddings(self) -> int:
        return self.token_embedding + self.position_embedding + self.segment_embedding + self.embedding_norm

    @property
    def encoder(self) -> int:
        return self.layers * self.layer.total

    @property
    def total(self) -> int:
        return self.embeddings + self.encoder + self.pooler


def bert_param_count(layers: int, hidden: int, heads: int, *, vocab: int = BERT_VOCAB,
                     max_positions: int = BERT_MAX_POSITIONS, type_vocab: int = BERT_TYPE_VOCAB,
                     ffn: int | None = None, pooler: bool = True) -> BertParams:
    """BERT's parameters from its sizes:

        embeddings (V + 512 + 2) H + 2H,  L × [4(H² + H) + 2H + (2HF + F + H) + 2H],  pooler H² + H

    Counted: embeddings with their LayerNorm, the L encoder layers, the pooler. Not counted: the
    pre-training heads (the MLM output reuses the token embedding; its small transform and bias
    and the 2-way NSP layer are dropped after pre-training). A must divide H (d_k = H/A)."""
    layers = positive_int(layers, "層数 L")
    bert_head_dim(hidden, heads)                                   # A divides H, or ValueError
    h = int(hidden)
    v = positive_int(vocab, "語彙数")
    p = positive_int(max_positions, "最大位置数")
    t = positive_int(type_vocab, "文の種類の数")
    return BertParams(v * h, p * h, t * h, 2 * h, encoder_layer_params(h, ffn), layers,
                      h * h + h if pooler else 0, int(heads))


def encoder_weights(layers: int, hidden: int, ffn_mult: int = 4) -> int:
    """Weight matrices only (no biases, no LayerNorm) of L encoder layers: L (4H² + 2·H·4H) = 12 L H²."""
    layers, h = positive_int(layers, "層数 L"), positive_int(hidden, "幅 H")
    return layers * (4 * h * h + 2 * h * ffn_mult * h)


def encoder_weights_no_ffn(layers: int, hidden: int) -> int:
    """MISTAKE: only the attention matrices counted, 4 L H²."""
    return positive_int(layers, "層数 L") * 4 * positive_int(hidden, "幅 H") ** 2


def encoder_weights_square_ffn(layers: int, hidden: int) -> int:
    """MISTAKE: the FFN taken as two H × H matrices (inner width H, not 4H): 6 L H²."""
    return encoder_weights(layers, hidden, ffn_mult=1)


def encoder_weights_per_head(layers: int, hidden: int, heads: int) -> int:
    """MISTAKE: every head has its own full H × H W_Q, W_K, W_V, W_O: L (4 A H² + 8 H²)."""
    layers, h, a = positive_int(layers, "層数 L"), positive_int(hidden, "幅 H"), positive_int(heads, "ヘッド数 A")
    return layers * (4 * a * h * h + 8 * h * h)


def encoder_weights_one_layer(layers: int, hidden: int) -> int:
    """MISTAKE: the L layers forgotten, 12 H² (one layer)."""
    positive_int(layers, "層数 L")
    return encoder_weights(1, hidden)


