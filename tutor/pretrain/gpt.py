"""GPT (decoder only): a tiny hand-built decoder that writes one token at a time under a causal mask."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import attention, causal_mask, positive_int, softmax
from ..vocab import Vocabulary

# ---------------------------------------------------------------------------
# GPT: a tiny decoder-only model, one token at a time
# ---------------------------------------------------------------------------
GPT_VOCAB = Vocabulary(("<bos>", "猫", "は", "魚", "を", "食べた", "。"))
# the next word the toy model has "learned" for each word (a hand-made table standing in for training)
_GPT_NEXT = {"<bos>": "猫", "猫": "は", "は": "魚", "魚": "を", "を": "食べた", "食べた": "。", "。": "。"}
_GPT_SHARPNESS = 3.0     # score of a token with itself (others 0): a token attends mostly to itself
_GPT_LOGIT = 4.0         # logit of the table's next word for a position that attends only to itself


def _gpt_weights() -> tuple[np.ndarray, np.ndarray]:
    v = len(GPT_VOCAB)
    embed = np.eye(v)                                                       # (V, V) one-hot embeddings
    w_out = np.zeros((v, v))                                                # (V, V) "successor" table
    for word, nxt in _GPT_NEXT.items():
        w_out[GPT_VOCAB.index(word), GPT_VOCAB.index(nxt)] = _GPT_LOGIT
    return embed, w_out


def _gpt_ids(ids) -> list[int]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence) or not ids:
        raise ValueError("書き出しのトークン番号を 1 つ以上並べてください。")
    out = []
    for i in ids:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < len(GPT_VOCAB):
            raise ValueError(f"トークン番号は 0 以上 {len(GPT_VOCAB) - 1} 以下の整数です（{i!r}）。")
        out.append(int(i))
    return out


@dataclass(frozen=True)
class GptStep:
    ids: tuple[int, ...]      # (n,)    the sequence the model reads
    mask: np.ndarray          # (n, n)  causal mask, True = may attend (j ≤ i)
    weights: np.ndarray       # (n, n)  attention weights (0 above the diagonal)
    logits: np.ndarray        # (V,)    scores of the next token at the LAST position
    probs: np.ndarray         # (V,)    softmax(logits)
    chosen: int               # greedy: argmax of probs


def gpt_next_logits(ids) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The toy decoder on a sequence: X = one-hot rows, A = softmax(c·X Xᵀ + M) with the causal
    mask M, H = A X, logits = H W_out (W_out: the hand-made next-word table).

    Returns (mask (n, n), weights (n, n), logits (n, V)): row i predicts the token after position i
    from positions 0 … i only."""
    ids = _gpt_ids(ids)
    embed, w_out = _gpt_weights()
    x = embed[ids]                                                          # (n, V)
    n = x.shape[0]
    mask = causal_mask(n)                                                   # (n, n)
    att = attention(x * math.sqrt(_GPT_SHARPNESS), x * math.sqrt(_GPT_SHARPNESS), x, mask,
                    scale=False)                                            # scores c·X Xᵀ
    return mask, att.weights, att.output @ w_out                            # (n, n), (n, n), (n, V)


def gpt_greedy(prompt_ids, n_steps: int) -> tuple[GptStep, ...]:
    """Autoregressive generation: read the sequence, take the last position's logits, append the
    most probable token (greedy), repeat n_steps times (max 20)."""
    ids = _gpt_ids(prompt_ids)
    n_steps = positive_int(n_steps, "生成するトークン数")
    if n_steps > 20:
        raise ValueError(f"生成するトークン数は 20 以下にしてください（{n_steps}）。")
    steps = []
    for _ in range(n_steps):
        mask, weights, logits = gpt_next_logits(ids)
        probs = softmax(logits[-1])                                         # (V,)
        chosen = int(np.argmax(probs))
        steps.append(GptStep(tuple(ids), mask, weights, logits[-1], probs, chosen))
        ids = ids + [chosen]
    return tuple(steps)

