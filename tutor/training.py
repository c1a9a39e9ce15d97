"""Training a tiny one-layer attention model by hand: watch それ → B appear.

The chapter says that nobody designs W_Q, W_K, W_V: the pattern "a pronoun looks for the
object mentioned before it" is FOUND by gradient descent. This module lets the page show
it happen, in plain NumPy with every gradient written out.

Task (synthetic, from a seed)
-----------------------------
Sentences shaped like the textbook's 「猫 は 魚 を 見つけた 。 それ を 食べた」:

    [時] A は [場所] B を V1 。 [副詞] それ を V2          (optional words in brackets)

The label is B, the thing それ refers to, and it must be predicted from the
representation at the それ position only.

- ``variant="basic"``: A is an animal, B a food. The content alone tells B apart, so the
  model does not need positions.
- ``variant="order"``: A and B are BOTH animals (「猫 は 鳥 を 見つけた 。 それ を 追いかけた」).
  The two sentences 「猫 は 鳥 を …」 and 「鳥 は 猫 を …」 contain exactly the same tokens,
  so without positional information the それ row cannot tell which animal is the object:
  the best possible accuracy is 50 % (attention is permutation-equivariant). With the
  sinusoidal positional encoding the object is "the later animal", which one layer can learn.

  (We do not use the pair 「A は B を …」 / 「B を A が …」: there the object is chosen by the
  PARTICLE next to it, i.e. by an interaction between two other tokens, which a single
  attention layer with a linear read-out cannot express even with positional encoding.)

Model (one layer, h heads, read-out at the それ position s)
----------------------------------------------------------
    X      = E[tokens] + PE                       (b, n, d_model)     PE optional
    q_h    = X[s] W_Q^(h)                          (b, h, d_k)        only the それ row is needed
    K_h    = X W_K^(h),  V_h = X W_V^(h)           (b, h, n, d_k)
    a_h    = softmax(q_h K_hᵀ / √d_k + M)          (b, h, n)           M = −∞ on padding
    c      = Concat_h(a_h V_h)                     (b, h·d_k)
    y      = c W_O                                 (b, d_model)
    p      = softmax(y W_out + b_out)              (b, vocab)
    L      = −mean log p[target]                   cross-entropy

Backpropagation is written out step by step in :func:`loss_and_grads`, the softmax
backward being  ∂a_i/∂z_j = a_i (δ_ij − a_j)  ⇒  dz = a ⊙ (da − Σ_j a_j da_j).

Measured (seed 0, the fixed seeds of tests/test_training.py; one core, CPU time):
- default config (basic, d_model 16, d_k 8, 1 head, Adam lr 0.05, 150 full-batch steps on
  512 sentences): held-out accuracy 1.00, mean それ→B weight 1.00 (0.13 before training),
  95 % training accuracy after 17 steps, ≈ 0.6 s.
- √d_k at d_k = 64 (≈ 2 s per run): scaled → 1.00 / weight 1.00; unscaled → 0.22 (a guess
  among the 5 foods), the それ row saturated (max weight 1.00) on a WRONG token, loss stuck at
  1.58 ≈ ln 5 while ‖∂L/∂W_Q‖ falls below 1e-9. The textbook's claim reproduces, with one
  honest nuance: at step 0 the unscaled gradient is LARGER (0.23 vs 0.05); the stall comes
  after the first updates saturate the softmax. Over seeds 0–3 unscaled failed 3 of 4 with
  Adam and 4 of 4 with SGD (lr 0.5); scaled succeeded 4 of 4 with both.
- positional encoding on the "order" variant: with PE 1.00 / weight 1.00; without 0.52
  (a coin flip between the two animals, as the symmetry argument predicts).
- one head (d_k 8) vs two heads (d_k 4, same width): both 1.00; two heads reach 95 % a little
  sooner (9 vs 17 steps with seed 0). One head is enough for this task; with two heads the
  それ→B attention is sometimes shared between the heads (seen on the order variant).
- initialisation matters: with E ~ N(0, 1) instead of N(0, 0.3²) the model often found a
  shortcut (see ``init_params``), so ``embed_scale`` = 0.3.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable

import numpy as np

from .core import softmax
from .position import positional_encoding

__all__ = [
    "VOCAB",
    "TOKEN_ID",
    "ANIMALS",
    "FOODS",
    "VARIANTS",
    "encode",
    "decode",
    "Dataset",
    "make_dataset",
    "probe_sentence",
    "TrainConfig",
    "Params",
    "init_params",
    "Forward",
    "forward",
    "loss_and_grads",
    "attention_map",
    "Prediction",
    "predict_sentence",
    "Evaluation",
    "evaluate",
    "Progress",
    "TrainHistory",
    "train",
    "Experiment",
    "EXPERIMENTS",
    "run_experiment",
    "softmax_jacobian",
    "cross_entropy",
    "sgd_step",
    "cross_entropy_grad",
    "one_hot",
    "SOFTMAX_GRAD_MISTAKES",
    "BIAS_STEP_MISTAKES",
    "CROSS_ENTROPY_MISTAKES",
    "softmax_grad_mistake",
    "softmax_grad_mistakes",
    "bias_step_mistake",
    "bias_step_mistakes",
    "cross_entropy_mistake",
]

# ---------------------------------------------------------------------------
# vocabulary
# ---------------------------------------------------------------------------
PAD = "<pad>"
ANIMALS = ("猫", "犬", "鳥", "熊", "狐")
FOODS = ("魚", "肉", "米", "豆", "柿")
_PARTICLES = ("は", "を", "。")
_VERBS_FOUND = ("見つけた", "拾った", "運んだ")
_VERBS_AFTER = ("食べた", "隠した", "追いかけた")
_SORE = "それ"
_WHEN = ("昨日", "今朝")          # optional, sentence start
_WHERE = ("森で", "川で")         # optional, after は
_HOW = ("すぐに", "そっと")       # optional, after 。
VOCAB: tuple[str, ...] = (PAD, *ANIMALS, *FOODS, *_PARTICLES, *_VERBS_FOUND, *_VERBS_AFTER,
                          _SORE, *_WHEN, *_WHERE, *_HOW)
TOKEN_ID: dict[str, int] = {w: i for i, w in enumerate(VOCAB)}
VARIANTS = ("basic", "order")
MAX_LEN = 12  # 昨日 A は 森で B を V1 。 すぐに それ を V2


def encode(words) -> np.ndarray:
    """Words → token ids (n,). Unknown word → ValueError (Japanese)."""
    words = list(words)
    unknown = [w for w in words if w not in TOKEN_ID]
    if unknown:
        raise ValueError(f"語彙にない単語があります: {unknown}。使える単語: {list(VOCAB[1:])}")
    return np.array([TOKEN_ID[w] for w in words], dtype=np.int64)  # (n,)


def decode(ids) -> tuple[str, ...]:
    """Token ids → words (padding dropped)."""
    return tuple(VOCAB[int(i)] for i in np.asarray(ids).ravel() if int(i) != 0)


def _check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant は {VARIANTS} のどれかです（{variant!r}）。")
    return variant


# ---------------------------------------------------------------------------
# the synthetic task
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Dataset:
    tokens: np.ndarray     # (N, MAX_LEN) int, padded with 0 (= <pad>)
    lengths: np.ndarray    # (N,) number of real tokens
    sore_pos: np.ndarray   # (N,) position of それ
    target: np.ndarray     # (N,) token id of B (the referent of それ)
    b_pos: np.ndarray      # (N,) position of B
    variant: str

    def __len__(self) -> int:
        return int(self.tokens.shape[0])

    def sentence(self, i: int) -> tuple[str, ...]:
        return decode(self.tokens[i, : self.lengths[i]])


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.array(a)  # own copy, then frozen
    a.flags.writeable = False
    return a


def _sentence(rng: np.random.Generator, variant: str) -> tuple[list[str], int, int]:
    """One sentence → (words, position of B, position of それ)."""
    if variant == "basic":
        a = ANIMALS[rng.integers(len(ANIMALS))]
        b = FOODS[rng.integers(len(FOODS))]
        v2 = _VERBS_AFTER[rng.integers(2)]                     # 食べた / 隠した
    else:
        i, j = rng.choice(len(ANIMALS), size=2, replace=False)
        a, b = ANIMALS[i], ANIMALS[j]
        v2 = _VERBS_AFTER[[0, 2][rng.integers(2)]]             # 食べた / 追いかけた
    v1 = _VERBS_FOUND[rng.integers(len(_VERBS_FOUND))]
    when, where, how = (rng.integers(3) for _ in range(3))      # 0, 1 → that word; 2 → none
    words: list[str] = []
    if when < 2:
        words.append(_WHEN[when])
    words += [a, "は"]
    if where < 2:
        words.append(_WHERE[where])
    b_pos = len(words)
    words += [b, "を", v1, "。"]
    if how < 2:
        words.append(_HOW[how])
    sore_pos = len(words)
    words += [_SORE, "を", v2]
    return words, b_pos, sore_pos


def make_dataset(n: int, rng: np.random.Generator, variant: str = "basic") -> Dataset:
    """``n`` sentences of the task drawn from ``rng``; see the module docstring."""
    _check_variant(variant)
    n = int(n)
    if n < 1:
        raise ValueError(f"文の数 n は 1 以上が必要です（n = {n}）。")
    tokens = np.zeros((n, MAX_LEN), dtype=np.int64)             # (N, MAX_LEN)
    lengths = np.zeros(n, dtype=np.int64)                        # (N,)
    sore_pos = np.zeros(n, dtype=np.int64)                       # (N,)
    b_pos = np.zeros(n, dtype=np.int64)                          # (N,)
    for i in range(n):
        words, b_pos[i], sore_pos[i] = _sentence(rng, variant)
        lengths[i] = len(words)
        tokens[i, : len(words)] = encode(words)
    target = tokens[np.arange(n), b_pos]                         # (N,)
    return Dataset(_ro(tokens), _ro(lengths), _ro(sore_pos), _ro(target), _ro(b_pos), variant)


def probe_sentence(variant: str = "basic") -> Dataset:
    """The textbook sentence as a one-sentence dataset (fixed, no randomness).

    basic: 猫 は 魚 を 見つけた 。 それ を 食べた   order: 猫 は 鳥 を 見つけた 。 それ を 追いかけた
    """
    _check_variant(variant)
    b, v2 = ("魚", "食べた") if variant == "basic" else ("鳥", "追いかけた")
    words = ["猫", "は", b, "を", "見つけた", "。", _SORE, "を", v2]
    tokens = np.zeros((1, MAX_LEN), dtype=np.int64)              # (1, MAX_LEN)
    tokens[0, : len(words)] = encode(words)
    return Dataset(_ro(tokens), _ro([len(words)]), _ro([6]), _ro([TOKEN_ID[b]]), _ro([2]), variant)


# ---------------------------------------------------------------------------
# configuration and parameters
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TrainConfig:
    variant: str = "basic"
    n_train: int = 512
    n_test: int = 256
    d_model: int = 16            # even (sin/cos pairs of the positional encoding)
    d_k: int = 8                 # per head; d_v = d_k
    n_heads: int = 1
    embed_scale: float = 0.3     # E ~ N(0, embed_scale²) at the start (see init_params)
    scale: bool = True           # divide the scores by √d_k
    positional: bool = True      # add the sinusoidal positional encoding
    optimizer: str = "adam"      # "adam" or "sgd"
    lr: float = 0.05
    steps: int = 150
    batch_size: int = 0          # 0 = full batch (deterministic, no shuffling)
    checkpoints: tuple[int, ...] = (0, 10, 25, 50, 100)  # + the last step, always

    def validate(self) -> "TrainConfig":
        _check_variant(self.variant)
        for name in ("n_train", "n_test", "d_model", "d_k", "n_heads", "steps"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} は 1 以上が必要です（{getattr(self, name)}）。")
        if self.d_model % 2:
            raise ValueError(f"d_model = {self.d_model} は偶数にしてください（位置エンコーディングの sin/cos の組）。")
        if self.optimizer not in ("adam", "sgd"):
            raise ValueError(f"optimizer は 'adam' か 'sgd' です（{self.optimizer!r}）。")
        if not (np.isfinite(self.embed_scale) and self.embed_scale > 0):
            raise ValueError(f"embed_scale は正の数が必要です（{self.embed_scale}）。")
        if not (np.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"学習率 lr は正の数が必要です（{self.lr}）。")
        if self.batch_size < 0:
            raise ValueError(f"batch_size は 0（全データ）か正の整数です（{self.batch_size}）。")
        return self

    @property
    def checkpoint_steps(self) -> tuple[int, ...]:
        """Sorted checkpoint steps within [0, steps], the last step always included."""
        return tuple(sorted({int(c) for c in self.checkpoints if 0 <= int(c) <= self.steps} | {self.steps}))


@dataclass(frozen=True)
class Params:
    """All learned matrices (the positional encoding is fixed, not learned)."""
    E: np.ndarray      # (vocab, d_model)    token embeddings
    W_Q: np.ndarray    # (h, d_model, d_k)
    W_K: np.ndarray    # (h, d_model, d_k)
    W_V: np.ndarray    # (h, d_model, d_k)
    W_O: np.ndarray    # (h·d_k, d_model)
    W_out: np.ndarray  # (d_model, vocab)   output layer
    b_out: np.ndarray  # (vocab,)

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(Params))

    def as_dict(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.names()}


def init_params(config: TrainConfig, rng: np.random.Generator) -> Params:
    """Random start: E ~ N(0, embed_scale²), every W ~ N(0, 1/fan_in), b_out = 0.

    With this start the components of q and k have variance ≈ |x|²/d_model (≈ 0.6 with the
    positional encoding), so q·k spreads like ±√d_k — the textbook's reason to divide by √d_k.
    Small embeddings (0.3) matter: with E ~ N(0, 1) the random start often lets the model
    find a shortcut (for ONE food it looks at 。 and outputs that food by default), which
    gives 100 % accuracy but only ≈ 0.8 それ→B weight; we measured it on 4 of 6 seeds.
    """
    v, d, dk, h = len(VOCAB), config.d_model, config.d_k, config.n_heads
    return Params(
        E=config.embed_scale * rng.standard_normal((v, d)),             # (vocab, d_model)
        W_Q=rng.standard_normal((h, d, dk)) / np.sqrt(d),               # (h, d_model, d_k)
        W_K=rng.standard_normal((h, d, dk)) / np.sqrt(d),               # (h, d_model, d_k)
        W_V=rng.standard_normal((h, d, dk)) / np.sqrt(d),               # (h, d_model, d_k)
        W_O=rng.standard_normal((h * dk, d)) / np.sqrt(h * dk),         # (h·d_k, d_model)
        W_out=rng.standard_normal((d, v)) / np.sqrt(d),                 # (d_model, vocab)
        b_out=np.zeros(v),                                              # (vocab,)
    )


# ---------------------------------------------------------------------------
# forward pass (only the それ row is needed for the loss)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Forward:
    x: np.ndarray        # (b, n, d_model)  E[tokens] (+ PE)
    x_q: np.ndarray      # (b, d_model)     the それ row of X
    q: np.ndarray        # (b, h, d_k)
    k: np.ndarray        # (b, h, n, d_k)
    v: np.ndarray        # (b, h, n, d_k)
    scores: np.ndarray   # (b, h, n)        q·k
    scaled: np.ndarray   # (b, h, n)        q·k / √d_k (or q·k)
    weights: np.ndarray  # (b, h, n)        the それ row of attention, 0 on padding
    concat: np.ndarray   # (b, h·d_k)
    y: np.ndarray        # (b, d_model)     c W_O
    logits: np.ndarray   # (b, vocab)
    probs: np.ndarray    # (b, vocab)
    divisor: float


def _embed(params: Params, tokens: np.ndarray, positional: bool) -> np.ndarray:
    b, n = tokens.shape
    x = params.E[tokens]                                              # (b, n, d_model)
    if positional:
        x = x + positional_encoding(n, params.E.shape[1])[None]       # (b, n, d_model)
    return x


def _heads_to_cols(w: np.ndarray) -> np.ndarray:
    """(h, d_model, d_k) → (d_model, h·d_k): the per-head matrices side by side."""
    h, d, d_k = w.shape
    return w.transpose(1, 0, 2).reshape(d, h * d_k)                  # (d_model, h·d_k)


def _cols_to_heads(w: np.ndarray, h: int) -> np.ndarray:
    """(d_model, h·d_k) → (h, d_model, d_k), the inverse of ``_heads_to_cols``."""
    d, hd = w.shape
    return w.reshape(d, h, hd // h).transpose(1, 0, 2)                # (h, d_model, d_k)


def forward(params: Params, tokens, sore_pos, lengths, config: TrainConfig) -> Forward:
    """The model above for a batch; tokens (b, n) int, sore_pos (b,), lengths (b,)."""
    tokens = np.asarray(tokens)
    sore_pos = np.asarray(sore_pos)
    b, n = tokens.shape
    h, d, d_k = params.W_Q.shape
    rows = np.arange(b)                                               # (b,)
    x = _embed(params, tokens, config.positional)                     # (b, n, d_model)
    x_q = x[rows, sore_pos]                                           # (b, d_model)
    q = (x_q @ _heads_to_cols(params.W_Q)).reshape(b, h, d_k)         # (b, h, d_k)
    k = (x @ _heads_to_cols(params.W_K)).reshape(b, n, h, d_k).transpose(0, 2, 1, 3)  # (b, h, n, d_k)
    v = (x @ _heads_to_cols(params.W_V)).reshape(b, n, h, d_k).transpose(0, 2, 1, 3)  # (b, h, n, d_k)
    scores = np.sum(k * q[:, :, None, :], axis=-1)                    # (b, h, n)  s_j = q·k_j
    divisor = float(np.sqrt(d_k)) if config.scale else 1.0
    scaled = scores / divisor                                         # (b, h, n)
    valid = np.arange(n)[None, :] < np.asarray(lengths)[:, None]      # (b, n) padding → False
    masked = np.where(valid[:, None, :], scaled, -np.inf)             # (b, h, n)
    weights = softmax(masked, axis=-1)                                # (b, h, n), 0 on padding
    heads = np.sum(weights[..., None] * v, axis=2)                    # (b, h, d_k)  Σ_j a_j v_j
    concat = heads.reshape(b, h * d_k)                                # (b, h·d_k)
    y = concat @ params.W_O                                           # (b, d_model)
    logits = y @ params.W_out + params.b_out                          # (b, vocab)
    probs = softmax(logits, axis=-1)                                  # (b, vocab)
    return Forward(x, x_q, q, k, v, scores, scaled, weights, concat, y, logits, probs, divisor)


def _cross_entropy_batch(logits: np.ndarray, target: np.ndarray) -> float:
    """−mean log softmax(logits)[target], computed as logsumexp − logit (never log 0)."""
    b = logits.shape[0]
    m = logits.max(axis=-1, keepdims=True)                            # (b, 1)
    lse = m[:, 0] + np.log(np.sum(np.exp(logits - m), axis=-1))       # (b,)
    return float(np.mean(lse - logits[np.arange(b), target]))


def loss_and_grads(params: Params, tokens, sore_pos, lengths, target, config: TrainConfig
                   ) -> tuple[float, Params, Forward]:
    """Cross-entropy L = −(1/b) Σ log p[target] and ∂L/∂(every parameter), by hand.

    Each backward step mirrors a forward line (read ``forward`` bottom-up).
    """
    tokens = np.asarray(tokens)
    sore_pos = np.asarray(sore_pos)
    target = np.asarray(target)
    f = forward(params, tokens, sore_pos, lengths, config)
    b, n = tokens.shape
    h, d, d_k = params.W_Q.shape
    vocab = params.E.shape[0]
    rows = np.arange(b)                                               # (b,)
    loss = _cross_entropy_batch(f.logits, target)

    # 1. softmax + cross-entropy: ∂L/∂logits = (p − onehot) / b
    d_logits = f.probs.copy()                                         # (b, vocab)
    d_logits[rows, target] -= 1.0                                     # (b, vocab)
    d_logits /= b                                                     # (b, vocab)
    # 2. output layer: logits = y W_out + b_out
    g_W_out = f.y.T @ d_logits                                        # (d_model, vocab)
    g_b_out = d_logits.sum(axis=0)                                    # (vocab,)
    d_y = d_logits @ params.W_out.T                                   # (b, d_model)
    # 3. y = c W_O
    g_W_O = f.concat.T @ d_y                                          # (h·d_k, d_model)
    d_concat = d_y @ params.W_O.T                                     # (b, h·d_k)
    d_heads = d_concat.reshape(b, h, d_k)                             # (b, h, d_k)
    # 4. weighted sum: head = Σ_j a_j v_j  ⇒  ∂/∂a_j = d_head·v_j,  ∂/∂v_j = a_j d_head
    d_weights = np.sum(f.v * d_heads[:, :, None, :], axis=-1)         # (b, h, n)
    d_v = f.weights[..., None] * d_heads[:, :, None, :]               # (b, h, n, d_k)
    # 5. softmax: ∂a_i/∂z_j = a_i(δ_ij − a_j) ⇒ dz = a ⊙ (da − Σ a·da)  (padding: a = 0 ⇒ dz = 0)
    d_scaled = f.weights * (d_weights - np.sum(f.weights * d_weights, axis=-1, keepdims=True))  # (b, h, n)
    # 6. scaling: z = s / divisor
    d_scores = d_scaled / f.divisor                                   # (b, h, n)
    # 7. scores s_j = q·k_j  ⇒  ∂/∂q = Σ_j ds_j k_j,  ∂/∂k_j = ds_j q
    d_q = np.sum(d_scores[..., None] * f.k, axis=2)                   # (b, h, d_k)
    d_k_ = d_scores[..., None] * f.q[:, :, None, :]                   # (b, h, n, d_k)
    # 8. projections q = x_s W_Q, K = X W_K, V = X W_V (all heads side by side)
    d_q_cols = d_q.reshape(b, h * d_k)                                # (b, h·d_k)
    d_k_cols = d_k_.transpose(0, 2, 1, 3).reshape(b * n, h * d_k)     # (b·n, h·d_k)
    d_v_cols = d_v.transpose(0, 2, 1, 3).reshape(b * n, h * d_k)      # (b·n, h·d_k)
    x_flat = f.x.reshape(b * n, d)                                    # (b·n, d_model)
    g_W_Q = _cols_to_heads(f.x_q.T @ d_q_cols, h)                     # (h, d_model, d_k)
    g_W_K = _cols_to_heads(x_flat.T @ d_k_cols, h)                    # (h, d_model, d_k)
    g_W_V = _cols_to_heads(x_flat.T @ d_v_cols, h)                    # (h, d_model, d_k)
    d_x = (d_k_cols @ _heads_to_cols(params.W_K).T
           + d_v_cols @ _heads_to_cols(params.W_V).T).reshape(b, n, d)  # (b, n, d_model)
    d_x[rows, sore_pos] += d_q_cols @ _heads_to_cols(params.W_Q).T    # (b, n, d_model) それ row
    # 9. embeddings: X = E[tokens] (+ PE, which is fixed) ⇒ each row of d_x goes back to its token
    one_hot = (tokens.reshape(b * n, 1) == np.arange(vocab)).astype(np.float64)  # (b·n, vocab)
    g_E = one_hot.T @ d_x.reshape(b * n, d)                           # (vocab, d_model)
    grads = Params(g_E, g_W_Q, g_W_K, g_W_V, g_W_O, g_W_out, g_b_out)
    return loss, grads, f


def attention_map(params: Params, tokens, config: TrainConfig) -> np.ndarray:
    """Full self-attention weights (h, n, n) of the trained layer for ONE sentence (no padding).

    Row i = query token i. The loss only uses the それ row; the other rows show what the
    same W_Q, W_K do elsewhere (for the learned heatmap on the page).
    """
    tokens = np.asarray(tokens).ravel()
    tokens = tokens[tokens != 0]                                      # (n,)
    if tokens.size == 0:
        raise ValueError("文が空です。")
    x = _embed(params, tokens[None, :], config.positional)[0]         # (n, d_model)
    q = np.einsum("nd,hdk->hnk", x, params.W_Q)                       # (h, n, d_k)
    k = np.einsum("nd,hdk->hnk", x, params.W_K)                       # (h, n, d_k)
    divisor = float(np.sqrt(params.W_Q.shape[2])) if config.scale else 1.0
    return softmax(q @ np.swapaxes(k, -1, -2) / divisor, axis=-1)     # (h, n, n)


@dataclass(frozen=True)
class Prediction:
    words: tuple[str, ...]
    sore_pos: int
    word: str                 # the most probable word at the それ position
    probability: float
    probs: np.ndarray         # (vocab,)
    weights: np.ndarray       # (h, n) the それ row of attention


def predict_sentence(params: Params, words, config: TrainConfig) -> Prediction:
    """What the trained model says それ refers to in any sentence made of VOCAB words.

    ``words``: a sequence of words, or one string with the words separated by spaces.
    The sentence must contain それ exactly once and at most MAX_LEN words.
    """
    if isinstance(words, str):
        words = words.replace("\u3000", " ").split()
    words = tuple(words)
    if words.count(_SORE) != 1:
        raise ValueError(f"文に「それ」がちょうど 1 つ必要です（いまは {words.count(_SORE)} つ）。")
    if len(words) > MAX_LEN:
        raise ValueError(f"文が長すぎます（{len(words)} 語）。{MAX_LEN} 語以内にしてください。")
    tokens = encode(words)[None, :]                                   # (1, n)
    s = words.index(_SORE)
    f = forward(params, tokens, [s], [len(words)], config)
    k = int(np.argmax(f.probs[0]))
    return Prediction(words, s, VOCAB[k], float(f.probs[0, k]), _ro(f.probs[0]), _ro(f.weights[0]))


# ---------------------------------------------------------------------------
# evaluation
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation:
    loss: float
    accuracy: float                # fraction with argmax p = B
    b_weight_per_head: np.ndarray  # (h,) mean それ→B attention weight
    b_weight: float                # the largest head value (the head that resolves それ)
    peak_weight: float             # mean of max_j a_j in the それ row (≈ 1: saturated softmax)


def evaluate(params: Params, data: Dataset, config: TrainConfig) -> Evaluation:
    """Loss, accuracy and the それ-row attention statistics on ``data``."""
    f = forward(params, data.tokens, data.sore_pos, data.lengths, config)
    rows = np.arange(len(data))                                       # (N,)
    loss = _cross_entropy_batch(f.logits, data.target)
    acc = float(np.mean(np.argmax(f.probs, axis=-1) == data.target))
    per_head = f.weights[rows, :, data.b_pos].mean(axis=0)           # (h,)
    peak = float(f.weights.max(axis=-1).mean())
    return Evaluation(loss, acc, _ro(per_head), float(per_head.max()), peak)


# ---------------------------------------------------------------------------
# optimisers
# ---------------------------------------------------------------------------
def sgd_step(w, grad, lr: float) -> np.ndarray:
    """One plain gradient-descent step: w ← w − η·∂L/∂w (returns a new array)."""
    return np.asarray(w, dtype=np.float64) - float(lr) * np.asarray(grad, dtype=np.float64)


class _Adam:
    """Adam (Kingma & Ba): m ← β1 m + (1−β1) g, v ← β2 v + (1−β2) g², w ← w − η m̂ / (√v̂ + ε)."""

    def __init__(self, params: Params, lr: float, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps, self.t = lr, beta1, beta2, eps, 0
        self.m = {k: np.zeros_like(a) for k, a in params.as_dict().items()}
        self.v = {k: np.zeros_like(a) for k, a in params.as_dict().items()}

    def step(self, params: Params, grads: Params) -> Params:
        self.t += 1
        new = {}
        for k, w in params.as_dict().items():
            g = getattr(grads, k)
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g          # same shape as w
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g      # same shape as w
            m_hat = self.m[k] / (1 - self.b1 ** self.t)
            v_hat = self.v[k] / (1 - self.b2 ** self.t)
            new[k] = w - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        return Params(**new)


# ---------------------------------------------------------------------------
# training loop
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Progress:
    """What the per-step callback receives."""
    step: int          # updates done so far (1 … total)
    total: int
    loss: float        # batch loss of this step
    accuracy: float    # batch accuracy of this step
    run: int = 0       # which run of an experiment (0 or 1)

    @property
    def fraction(self) -> float:
        """step / total, for a progress bar."""
        return self.step / self.total


@dataclass(frozen=True)
class TrainHistory:
    config: TrainConfig
    loss: np.ndarray               # (steps,) batch loss at step t, BEFORE update t+1
    accuracy: np.ndarray           # (steps,) training accuracy of that batch
    grad_norm: np.ndarray          # (steps, 7) ‖∂L/∂θ‖ per group, in Params.names() order
    checkpoints: tuple[int, ...]   # updates done when the probe was recorded (0 = before training)
    probe_words: tuple[str, ...]   # the probe sentence (the textbook sentence)
    probe_sore_pos: int
    probe_b_pos: int
    probe_weights: np.ndarray      # (C, h, n_probe) the それ row of attention at each checkpoint
    checkpoint_accuracy: np.ndarray  # (C,) held-out accuracy at each checkpoint
    checkpoint_b_weight: np.ndarray  # (C,) held-out mean それ→B weight (best head) at each checkpoint
    initial: Evaluation            # held-out, before training
    heldout: Evaluation            # held-out, after training
    params: Params                 # final parameters (for the learned heatmap)
    test_example: tuple[str, ...]  # first held-out sentence (for the heatmap)

    @property
    def heldout_accuracy(self) -> float:
        return self.heldout.accuracy

    @property
    def heldout_b_weight(self) -> float:
        return self.heldout.b_weight

    @property
    def steps(self) -> np.ndarray:  # (steps,)
        return np.arange(len(self.loss))

    def steps_to(self, accuracy: float = 0.95) -> int | None:
        """First step whose training accuracy reaches ``accuracy`` (None if never)."""
        hit = np.flatnonzero(self.accuracy >= accuracy)
        return int(hit[0]) if hit.size else None

    def grad_norm_of(self, name: str) -> np.ndarray:
        """(steps,) gradient norm of one parameter group, e.g. "W_Q"."""
        return self.grad_norm[:, Params.names().index(name)]


try:  # small matrices: BLAS threads only cost time (measured ×2–×4 on a busy 2-core machine)
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover - optional
    _threadpool_limits = None


def train(config: TrainConfig = TrainConfig(), rng: np.random.Generator | None = None,
          callback: Callable[["Progress"], None] | None = None, callback_every: int = 1) -> TrainHistory:
    """Train the model of this module; deterministic for a given ``rng`` seed.

    rng draws, in this order: training set, held-out set, initial parameters, and (only
    with batch_size > 0) the mini-batch order. ``callback(Progress(step, total, loss,
    accuracy))`` is called after every ``callback_every``-th update and after the last one
    (e.g. to move ``st.progress`` and redraw a live chart). A run whose loss or
    parameters stop being finite raises ValueError (Japanese: lower the learning rate).
    """
    config.validate()
    if rng is None:
        raise ValueError("乱数生成器 rng を渡してください（例: np.random.default_rng(0)）。")
    every = int(callback_every)
    if every < 1:
        raise ValueError(f"callback_every は 1 以上が必要です（{callback_every}）。")
    if _threadpool_limits is None:
        return _train(config, rng, callback, every)
    with _threadpool_limits(limits=1):
        return _train(config, rng, callback, every)


def _diverged(step: int, config: TrainConfig) -> ValueError:
    return ValueError(
        f"学習が発散しました（ステップ {step}、学習率 lr = {config.lr}）。"
        "損失や重みが無限大になりました。学習率を小さくしてください。"
    )


def _train(config: TrainConfig, rng: np.random.Generator, callback, every: int) -> TrainHistory:
    train_set = make_dataset(config.n_train, rng, config.variant)
    test_set = make_dataset(config.n_test, rng, config.variant)
    params = init_params(config, rng)
    probe = probe_sentence(config.variant)
    n_probe = int(probe.lengths[0])
    opt = _Adam(params, config.lr) if config.optimizer == "adam" else None
    ckpts = config.checkpoint_steps

    losses = np.zeros(config.steps)                                   # (steps,)
    accs = np.zeros(config.steps)                                     # (steps,)
    gnorms = np.zeros((config.steps, len(Params.names())))            # (steps, 7)
    probe_w, ck_acc, ck_bw = [], [], []
    initial = evaluate(params, test_set, config)

    def record_checkpoint(p: Params) -> None:
        fp = forward(p, probe.tokens[:, :n_probe], probe.sore_pos, probe.lengths, config)
        probe_w.append(fp.weights[0])                                 # (h, n_probe)
        ev = evaluate(p, test_set, config)
        ck_acc.append(ev.accuracy)
        ck_bw.append(ev.b_weight)

    n, bs = config.n_train, (config.batch_size or config.n_train)
    order = np.arange(n)                                              # (n_train,)
    cursor = n  # forces a shuffle at the first mini-batch step
    for t in range(config.steps):
        if t in ckpts:
            record_checkpoint(params)
        if bs >= n:
            idx = order                                               # (n_train,) full batch
        else:
            if cursor + bs > n:
                order, cursor = rng.permutation(n), 0
            idx = order[cursor: cursor + bs]                          # (batch,)
            cursor += bs
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                loss, grads, f = loss_and_grads(params, train_set.tokens[idx], train_set.sore_pos[idx],
                                                train_set.lengths[idx], train_set.target[idx], config)
                gnorms[t] = [np.linalg.norm(g) for g in grads.as_dict().values()]
        except (FloatingPointError, ValueError):
            raise _diverged(t, config) from None
        losses[t] = loss
        accs[t] = np.mean(np.argmax(f.probs, axis=-1) == train_set.target[idx])
        if opt is not None:
            params = opt.step(params, grads)
        else:
            params = Params(**{k: sgd_step(w, getattr(grads, k), config.lr)
                               for k, w in params.as_dict().items()})
        if not all(np.all(np.isfinite(w)) for w in params.as_dict().values()):
            raise _diverged(t + 1, config)
        if callback is not None and ((t + 1) % every == 0 or t + 1 == config.steps):
            callback(Progress(t + 1, config.steps, loss, float(accs[t])))
    record_checkpoint(params)                                         # after the last update

    return TrainHistory(
        config=config,
        loss=_ro(losses),
        accuracy=_ro(accs),
        grad_norm=_ro(gnorms),
        checkpoints=ckpts,
        probe_words=probe.sentence(0),
        probe_sore_pos=int(probe.sore_pos[0]),
        probe_b_pos=int(probe.b_pos[0]),
        probe_weights=_ro(np.stack(probe_w)),                         # (C, h, n_probe)
        checkpoint_accuracy=_ro(ck_acc),
        checkpoint_b_weight=_ro(ck_bw),
        initial=initial,
        heldout=evaluate(params, test_set, config),
        params=params,
        test_example=test_set.sentence(0),
    )


# ---------------------------------------------------------------------------
# the three experiments of the page (same seed ⇒ same data and same start for both runs)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Experiment:
    key: str
    title: str                          # 日本語の見出し
    labels: tuple[str, str]             # run A, run B
    configs: tuple[TrainConfig, TrainConfig]


EXPERIMENTS: dict[str, Experiment] = {
    "scaling": Experiment(
        "scaling", "√d_k で割る／割らない（d_k = 64）", ("√d_k で割る", "割らない"),
        (TrainConfig(d_k=64, scale=True), TrainConfig(d_k=64, scale=False))),
    "position": Experiment(
        "position", "位置エンコーディングあり／なし（語順で指す相手が決まる文）", ("位置エンコーディングあり", "なし"),
        (TrainConfig(variant="order", positional=True), TrainConfig(variant="order", positional=False))),
    "heads": Experiment(
        "heads", "1 ヘッド／2 ヘッド（h·d_k = 8 で同じ幅）", ("1 ヘッド（d_k = 8）", "2 ヘッド（d_k = 4）"),
        (TrainConfig(n_heads=1, d_k=8), TrainConfig(n_heads=2, d_k=4))),
}


def run_experiment(key: str, seed: int,
                   callback: Callable[["Progress"], None] | None = None, callback_every: int = 1
                   ) -> tuple[TrainHistory, TrainHistory]:
    """Train both configurations of ``EXPERIMENTS[key]`` from ``np.random.default_rng(seed)``.

    Both runs see the same sentences and (when the shapes agree) the same starting
    weights, so the difference comes from the one switch. ``callback(Progress(...))``
    counts steps over both runs (``run`` = 0 for the first configuration, 1 for the second).
    """
    if key not in EXPERIMENTS:
        raise ValueError(f"実験 {key!r} はありません。選べるのは {list(EXPERIMENTS)} です。")
    cfg_a, cfg_b = EXPERIMENTS[key].configs
    total = cfg_a.steps + cfg_b.steps

    def shifted(offset: int):
        if callback is None:
            return None
        return lambda pr: callback(Progress(offset + pr.step, total, pr.loss, pr.accuracy, int(offset > 0)))

    run_a = train(cfg_a, np.random.default_rng(int(seed)), shifted(0), callback_every)
    run_b = train(cfg_b, np.random.default_rng(int(seed)), shifted(cfg_a.steps), callback_every)
    return run_a, run_b


# ---------------------------------------------------------------------------
# small formulas for the quizzes and the page
# ---------------------------------------------------------------------------
def softmax_jacobian(scores) -> np.ndarray:
    """J[i, j] = ∂a_i/∂s_j = a_i (δ_ij − a_j) for a = softmax(s); s (n,) → J (n, n).

    When softmax is saturated (one a_i ≈ 1) every entry is ≈ 0: the gradient stalls.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()                  # (n,)
    a = softmax(s)                                                    # (n,)
    return np.diag(a) - np.outer(a, a)                                # (n, n)


def cross_entropy(probs, target: int) -> float:
    """L = −log p[target] for one probability vector (n,)."""
    p = np.asarray(probs, dtype=np.float64).ravel()                   # (n,)
    if not (0 <= int(target) < p.size):
        raise ValueError(f"正解の番号 {target} が確率ベクトルの長さ {p.size} の範囲外です。")
    total = float(np.add.reduce(p))
    # |Σp − 1| ≤ atol + rtol·1: the test of np.isclose(Σp, 1.0) (rtol 1e-5, atol 1e-8), without its overhead
    if (p < 0).any() or not abs(total - 1.0) <= 1e-8 + 1e-5 * 1.0:
        raise ValueError(f"確率は 0 以上で合計 1 が必要です（合計 {total:.4g}）。")
    if p[int(target)] <= 0:
        raise ValueError("正解の確率が 0 なので交差エントロピーは無限大です。")
    return float(-np.log(p[int(target)]))


def one_hot(n: int, target: int) -> np.ndarray:
    """The correct-answer vector t of length n: t_k = 1 for k = target, else 0. → (n,)."""
    if not (0 <= int(target) < int(n)):
        raise ValueError(f"正解の番号 {target} がロジットの長さ {n} の範囲外です。")
    t = np.zeros(int(n))                                              # (n,)
    t[int(target)] = 1.0
    return t


def cross_entropy_grad(logits, target: int) -> np.ndarray:
    """∂L/∂z for L = −log softmax(z)[target]: the famous p − t (t = one_hot). (n,) → (n,)."""
    z = np.asarray(logits, dtype=np.float64).ravel()                  # (n,)
    return softmax(z) - one_hot(z.size, target)                       # (n,)


# --- named mistakes behind the quiz distractors (None = the correct formula) --------------
SOFTMAX_GRAD_MISTAKES = ("no_delta", "exp_only", "sign", "diagonal_formula")
BIAS_STEP_MISTAKES = ("ascent", "onehot", "no_lr")
CROSS_ENTROPY_MISTAKES = ("other_class", "no_minus", "all_classes")


def softmax_grad_mistake(scores, i: int, j: int, mistake: str | None = None) -> float:
    """∂a_i/∂s_j for a = softmax(s), correct (mistake=None) or by a named mistake:

    - "no_delta": forgot δ_ij → −a_i a_j everywhere;
    - "exp_only": differentiated e^{s_i} but not the denominator → δ_ij a_i;
    - "sign": a_i(a_j − δ_ij), the sign flipped;
    - "diagonal_formula": used a_i(1 − a_i) for every j.
    """
    return softmax_grad_mistakes(scores, i, j, (mistake,))[mistake]


def softmax_grad_mistakes(scores, i: int, j: int, mistakes=(None,) + SOFTMAX_GRAD_MISTAKES) -> dict:
    """{mistake: softmax_grad_mistake(scores, i, j, mistake)} for several mistakes with ONE softmax.

    s (n,) → a = softmax(s) (n,); correct: ∂a_i/∂s_j = a_i(δ_ij − a_j), the entry [i, j] of
    softmax_jacobian(s) = diag(a) − a aᵀ (the same float: δ_ij·a_i − a_i a_j)."""
    for mistake in mistakes:
        if mistake is not None and mistake not in SOFTMAX_GRAD_MISTAKES:
            raise ValueError(f"未知の誤り {mistake!r}（{SOFTMAX_GRAD_MISTAKES}）")
    a = softmax(np.asarray(scores, dtype=np.float64).ravel()).tolist()   # (n,) as Python floats
    a_i, a_j = a[i], a[j]
    delta = 1.0 if i == j else 0.0
    values = {
        None: (a_i if i == j else 0.0) - a_i * a_j,                  # diag(a)[i, j] − (a aᵀ)[i, j]
        "no_delta": -a_i * a_j,
        "exp_only": delta * a_i,
        "sign": a_i * (a_j - delta),
        "diagonal_formula": a_i * (1.0 - a_i),
    }
    return {mistake: values[mistake] for mistake in mistakes}


def bias_step_mistake(bias, probs, target: int, j: int, lr: float, mistake: str | None = None) -> float:
    """New b_j after one SGD step on the output bias, with ∂L/∂b = p − y (correct: mistake=None).

    - "ascent": b + η(p − y), moved up the gradient;
    - "onehot": the one-hot y misplaced (forgotten for the target, put on j otherwise);
    - "no_lr": b − (p − y), forgot the learning rate.
    """
    return bias_step_mistakes(bias, probs, target, j, lr, (mistake,))[mistake]


def bias_step_mistakes(bias, probs, target: int, j: int, lr: float,
                       mistakes=(None,) + BIAS_STEP_MISTAKES) -> dict:
    """{mistake: bias_step_mistake(bias, probs, target, j, lr, mistake)} with the inputs checked once.

    b, p (n,); only entry j is needed, so each value is the scalar form of
    sgd_step(b, g, η)[j] = b_j − η·g_j with g = p − y (the same float as the array form)."""
    for mistake in mistakes:
        if mistake is not None and mistake not in BIAS_STEP_MISTAKES:
            raise ValueError(f"未知の誤り {mistake!r}（{BIAS_STEP_MISTAKES}）")
    b = np.asarray(bias, dtype=np.float64).ravel()                    # (n,)
    p = np.asarray(probs, dtype=np.float64).ravel()                   # (n,)
    if b.shape != p.shape:
        raise ValueError(f"バイアスの形 {b.shape} と確率の形 {p.shape} が違います。")
    n = range(p.size)
    target, j, lr = n[int(target)], n[int(j)], float(lr)              # IndexError outside, as y[target] / b[j]
    b_j, p_j = float(b[j]), float(p[j])
    g_j = p_j - (1.0 if j == target else 0.0)                         # (p − y)_j
    wrong_g_j = p_j - (1.0 if j != target else 0.0)                   # one-hot misplaced
    values = {
        None: b_j - lr * g_j,
        "ascent": b_j - lr * -g_j,                                     # sgd_step(b, −g, η)
        "onehot": b_j - lr * wrong_g_j,
        "no_lr": b_j - 1.0 * g_j,                                      # sgd_step(b, g, 1)
    }
    return {mistake: values[mistake] for mistake in mistakes}


def cross_entropy_mistake(probs, target: int, mistake: str | None = None, other: int | None = None) -> float:
    """−log p[target] (mistake=None) or a named mistake:

    - "other_class": −log p[other] (the probability of another class);
    - "no_minus": log p[target];
    - "all_classes": −Σ_k log p_k (as if every class were correct).
    """
    p = np.asarray(probs, dtype=np.float64).ravel()                   # (n,)
    if mistake is None:
        return cross_entropy(p, target)
    if mistake == "other_class":
        if other is None or int(other) == int(target):
            raise ValueError("other_class には正解以外のクラス番号 other が必要です。")
        return cross_entropy(p, int(other))
    if mistake == "no_minus":
        return -cross_entropy(p, target)
    if mistake == "all_classes":
        return float(sum(cross_entropy(p, k) for k in range(p.size)))
    raise ValueError(f"未知の誤り {mistake!r}（{CROSS_ENTROPY_MISTAKES}）")
