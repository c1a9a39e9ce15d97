"""The one-layer attention model of ⑧: configuration, parameters, forward pass, hand-written backward
pass (:func:`loss_and_grads`), and evaluation."""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..core import softmax
from ..position import positional_encoding
from .task import MAX_LEN, SORE, VOCAB, Dataset, check_variant, readonly


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
        check_variant(self.variant)
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
    if words.count(SORE) != 1:
        raise ValueError(f"文に「それ」がちょうど 1 つ必要です（いまは {words.count(SORE)} つ）。")
    if len(words) > MAX_LEN:
        raise ValueError(f"文が長すぎます（{len(words)} 語）。{MAX_LEN} 語以内にしてください。")
    tokens = np.array(VOCAB.ids(words))[None, :]                      # (1, n)
    s = words.index(SORE)
    f = forward(params, tokens, [s], [len(words)], config)
    k = int(np.argmax(f.probs[0]))
    return Prediction(words, s, VOCAB[k], float(f.probs[0, k]), readonly(f.probs[0]), readonly(f.weights[0]))


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
    return Evaluation(loss, acc, readonly(per_head), float(per_head.max()), peak)


