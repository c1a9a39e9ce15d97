"""Seq2Seq and the birth of attention: what came before the Transformer, computed.

- the RNN encoder–decoder hands the decoder ONE fixed-length context vector (the last encoder
  state): the bottleneck;
- additive attention (Bahdanau et al., 2014) lets every decoder step look at every encoder
  state again:

      e_j  = vᵀ tanh(W s_{i-1} + U h_j)          (score of source position j)
      α_j  = exp(e_j) / Σ_k exp(e_k)              (softmax over the source positions)
      c_i  = Σ_j α_j h_j                          (context vector of decoder step i)

  and, for contrast, dot-product attention e_j = s · h_j (no parameters, needs d_s = d_h);
- teacher forcing (教師強制) vs feeding the model its own output (exposure bias) on a tiny
  bigram decoder;
- gradient clipping by norm: g ← g · min(1, c / ‖g‖);
- kinds of attention: soft (a softmax-weighted mean, differentiable) vs hard (ONE position drawn
  from the weights, Xu et al., 2015); global vs local (Luong et al., 2015: local attends only to
  the window [p − D, p + D]; local-p multiplies by exp(−(s − p)² / (2σ²)), σ = D / 2).

Conventions of this module: vectors are 1-D arrays; matrices that act on a state are written as
in the paper (W s, U h_j: W is (d_a, d_s), U is (d_a, d_h)); the encoder states are stacked one
per ROW in H (n, d_h), so U h_j for every j at once is H Uᵀ. Everything is float64, inputs are
never mutated, bad input raises ValueError with a Japanese message. Each named misconception is a
function next to the formula it distorts; its Japanese label lives in quizzes/.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import as_matrix, check_rng, positive_int, softmax, top_keys
from .vocab import Vocabulary

__all__ = [
    "SRC_TOKENS", "ENC_STATES", "DEC_STATE", "W_DEC", "U_ENC", "V_ATT",
    "TF_VOCAB", "TF_TARGET", "TF_LOGITS",
    "CLIP_GRAD", "CLIP_THRESHOLD",
    "AdditiveAttentionResult", "additive_attention", "ADDITIVE_MISTAKES", "additive_attention_mistake",
    "score_from_hidden", "score_without_v", "DotAttentionResult",
    "dot_attention", "attend", "fixed_context", "uniform_context", "hard_context",
    "context_sizes", "context_size_mistake",
    "BigramDecodeResult", "bigram_decode", "exposure_gap",
    "gradient_through_time", "scaled_recurrence_norms", "ClipResult", "clip_by_norm", "CLIP_MISTAKES", "clip_mistake", "clip_by_value",
    "LONG_SRC", "LONG_STATES", "LONG_QUERY", "LocalAttentionResult", "local_attention", "hard_attention",
]

# ---------------------------------------------------------------------------
# the worked example (small integers, so every step can be checked by hand)
# ---------------------------------------------------------------------------
SRC_TOKENS = ("猫", "魚", "食べた")               # the source sentence, one encoder state per token
ENC_STATES = np.array([[1.0, 0.0],               # h_1  猫      (n, d_h) = (3, 2)
                       [0.0, 1.0],               # h_2  魚
                       [1.0, 1.0]])              # h_3  食べた
DEC_STATE = np.array([0.0, 1.0])                 # s_{i-1}: the decoder about to write "fish"  (d_s,) = (2,)
W_DEC = np.array([[1.0, -1.0],                   # W (d_a, d_s) = (2, 2)
                  [0.0, 1.0]])
U_ENC = np.array([[1.0, 0.0],                    # U (d_a, d_h) = (2, 2)
                  [1.0, 1.0]])
V_ATT = np.array([-1.0, 1.0])                    # v (d_a,) = (2,)
for _a in (ENC_STATES, DEC_STATE, W_DEC, U_ENC, V_ATT):
    _a.flags.writeable = False

# teacher forcing: a bigram decoder (next-token logits from the previous token only) that has
# learned the sentence well except one step: after 「は」 it prefers 「猫」 to 「魚」.
TF_VOCAB = Vocabulary(("〈bos〉", "猫", "は", "魚", "を", "食べた", "〈eos〉"))
TF_TARGET = ("猫", "は", "魚", "を", "食べた", "〈eos〉")


def _bigram_logits() -> np.ndarray:
    idx = {t: i for i, t in enumerate(TF_VOCAB)}
    logits = np.zeros((len(TF_VOCAB), len(TF_VOCAB)))       # (V, V) row = previous token
    for prev, nxt in zip(("〈bos〉",) + TF_TARGET[:-1], TF_TARGET):
        logits[idx[prev], idx[nxt]] = 3.0
    logits[idx["は"], idx["魚"]] = 2.0                       # the one weak step
    logits[idx["は"], idx["猫"]] = 3.0
    logits[idx["〈eos〉"], idx["〈eos〉"]] = 3.0
    return logits


TF_LOGITS = _bigram_logits()
TF_LOGITS.flags.writeable = False

CLIP_GRAD = np.array([3.0, 4.0])                 # ‖g‖ = 5
CLIP_THRESHOLD = 1.0

# kinds of attention: a longer source (8 tokens), dot-product scores against one decoder state
LONG_SRC = ("私", "は", "昨日", "駅", "で", "猫", "を", "見た")
LONG_STATES = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [1.0, 1.0],     # (8, 2) one row per token
                        [0.0, 0.0], [2.0, 1.0], [0.0, 0.0], [1.0, 2.0]])
LONG_QUERY = np.array([1.0, 0.0])                # the decoder about to write "cat"  (2,)

for _a in (LONG_STATES, LONG_QUERY):
    _a.flags.writeable = False


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------
def _vector(x, name: str) -> np.ndarray:
    return as_matrix(x, name, ndim=1)


def _attention_inputs(s, h, w, u, v):
    s = _vector(s, "デコーダの状態 s")
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    w = as_matrix(w, "変換行列 W", ndim=2)
    u = as_matrix(u, "変換行列 U", ndim=2)
    v = _vector(v, "ベクトル v")
    d_a = v.shape[0]
    if w.shape != (d_a, s.shape[0]):
        raise ValueError(f"W の形は (d_a, d_s) = ({d_a}, {s.shape[0]}) が必要ですが、{w.shape} です"
                         f"（v の長さ d_a = {d_a}、s の長さ d_s = {s.shape[0]}）。")
    if u.shape != (d_a, h.shape[1]):
        raise ValueError(f"U の形は (d_a, d_h) = ({d_a}, {h.shape[1]}) が必要ですが、{u.shape} です"
                         f"（H の列数 d_h = {h.shape[1]}）。")
    return s, h, w, u, v


# ---------------------------------------------------------------------------
# additive attention (Bahdanau et al.)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AdditiveAttentionResult:
    ws: np.ndarray        # (d_a,)    W s_{i-1}
    uh: np.ndarray        # (n, d_a)  U h_j, one row per source position
    pre: np.ndarray       # (n, d_a)  W s_{i-1} + U h_j
    hidden: np.ndarray    # (n, d_a)  tanh(W s_{i-1} + U h_j)
    scores: np.ndarray    # (n,)      e_j = vᵀ tanh(...)
    weights: np.ndarray   # (n,)      α_j = softmax(e)_j, sums to 1
    context: np.ndarray   # (d_h,)    c = Σ_j α_j h_j

    @property
    def top(self) -> int:
        """The source position with the largest weight (the first one on a tie)."""
        return int(np.argmax(self.weights))

    @property
    def tops(self) -> tuple[int, ...]:
        """Every source position with the largest weight: one, or several on a tie (core.top_keys)."""
        return top_keys(self.weights[None, :], 0)


def additive_attention(s, h, w, u, v) -> AdditiveAttentionResult:
    """Additive (Bahdanau) attention of one decoder step over all encoder states.

        e_j = vᵀ tanh(W s + U h_j),  α = softmax(e),  c = Σ_j α_j h_j

    s: (d_s,) previous decoder state; h: (n, d_h) encoder states, one per row;
    w: (d_a, d_s); u: (d_a, d_h); v: (d_a,). Returns every intermediate.
    """
    s, h, w, u, v = _attention_inputs(s, h, w, u, v)
    ws = w @ s                        # (d_a,)
    uh = h @ u.T                      # (n, d_a)  row j = U h_j
    pre = ws + uh                     # (n, d_a)  broadcast W s over the positions
    hidden = np.tanh(pre)             # (n, d_a)
    scores = hidden @ v               # (n,)
    weights = softmax(scores)         # (n,)
    context = weights @ h             # (d_h,)
    return AdditiveAttentionResult(ws, uh, pre, hidden, scores, weights, context)


def score_from_hidden(hidden, v) -> np.ndarray:
    """e = tanh(...) v for hidden (n, d_a) or (d_a,) as GIVEN (e.g. the tanh values a hint rounds):
    the last step of the score, for a score computed by hand from rounded tanh values."""
    hidden = as_matrix(hidden, "tanh の値", ndim=(1, 2))
    v = _vector(v, "ベクトル v")
    if hidden.shape[-1] != v.shape[0]:
        raise ValueError(f"tanh の値の長さ（{hidden.shape[-1]}）と v の長さ（{v.shape[0]}）が一致しません。")
    return hidden @ v                 # (n,) or ()


def score_without_v(hidden) -> np.ndarray:
    """Misconception: forgot the vector v, e_j = Σ_k tanh(...)_k (as if v were all ones)."""
    hidden = as_matrix(hidden, "tanh の値", ndim=(1, 2))
    return hidden.sum(axis=-1)


ADDITIVE_MISTAKES = ("no_tanh", "no_softmax", "last_state", "dot_product")


def additive_attention_mistake(s, h, w, u, v, mistake: str) -> AdditiveAttentionResult:
    """Additive attention as a learner gets it wrong (the distortion is named by ``mistake``):

    - "no_tanh":     e_j = vᵀ (W s + U h_j)       — forgot the tanh (the score becomes linear)
    - "no_softmax":  α_j = e_j                    — used the raw scores as weights (no softmax)
    - "last_state":  c = h_n                      — no attention at all: the fixed context of plain
                                                    Seq2Seq (weights one-hot on the last state)
    - "dot_product": e_j = s · h_j                — dot-product attention instead (needs d_s = d_h)
    """
    s, h, w, u, v = _attention_inputs(s, h, w, u, v)
    right = additive_attention(s, h, w, u, v)
    if mistake == "no_tanh":
        scores = right.pre @ v                                 # (n,)
        weights = softmax(scores)
        return AdditiveAttentionResult(right.ws, right.uh, right.pre, right.pre, scores, weights, weights @ h)
    if mistake == "no_softmax":
        return AdditiveAttentionResult(right.ws, right.uh, right.pre, right.hidden, right.scores, right.scores,
                                       right.scores @ h)
    if mistake == "last_state":
        weights = np.zeros(h.shape[0])
        weights[-1] = 1.0
        return AdditiveAttentionResult(right.ws, right.uh, right.pre, right.hidden, right.scores, weights,
                                       fixed_context(h))
    if mistake == "dot_product":
        dot = dot_attention(s, h)
        return AdditiveAttentionResult(right.ws, right.uh, right.pre, right.hidden, dot.scores, dot.weights,
                                       dot.context)
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(ADDITIVE_MISTAKES)} のどれか）")


@dataclass(frozen=True)
class DotAttentionResult:
    scores: np.ndarray    # (n,)   e_j = s · h_j
    weights: np.ndarray   # (n,)
    context: np.ndarray   # (d_h,)


def dot_attention(s, h) -> DotAttentionResult:
    """Dot-product attention of one decoder step: e_j = s · h_j, α = softmax(e), c = Σ α_j h_j.

    No parameters; s (d_s,) and the rows of h (n, d_h) must have the same length."""
    s = _vector(s, "デコーダの状態 s")
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    if s.shape[0] != h.shape[1]:
        raise ValueError(f"内積の注意には s の長さ（{s.shape[0]}）と h_j の長さ（{h.shape[1]}）が等しい必要があります"
                         f"（H の形 {h.shape}）。")
    scores = h @ s                    # (n,)
    weights = softmax(scores)         # (n,)
    return DotAttentionResult(scores, weights, weights @ h)


def attend(h, scores) -> DotAttentionResult:
    """Weights and context from GIVEN scores: α = softmax(e), c = Σ_j α_j h_j.

    h: (n, d_h) encoder states; scores: (n,) one score per source position."""
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    scores = _vector(scores, "スコア e")
    if scores.shape[0] != h.shape[0]:
        raise ValueError(f"スコアの数（{scores.shape[0]}）とエンコーダの状態の数（{h.shape[0]}）が一致しません。")
    weights = softmax(scores)         # (n,)
    return DotAttentionResult(scores, weights, weights @ h)


def fixed_context(h) -> np.ndarray:
    """The context of plain Seq2Seq (no attention): the LAST encoder state h_n, (d_h,).

    Whatever the length n, the decoder receives these d_h numbers only: the bottleneck."""
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    return h[-1].copy()               # (d_h,)


def uniform_context(h) -> np.ndarray:
    """Misconception: every source position weighted equally, c = mean_j h_j (attention ignored)."""
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    return h.mean(axis=0)             # (d_h,)


def hard_context(h, scores) -> np.ndarray:
    """Misconception: take only the state with the largest score (argmax instead of softmax)."""
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    scores = _vector(scores, "スコア e")
    if scores.shape[0] != h.shape[0]:
        raise ValueError(f"スコアの数（{scores.shape[0]}）とエンコーダの状態の数（{h.shape[0]}）が一致しません。")
    return h[int(np.argmax(scores))].copy()


# ---------------------------------------------------------------------------
# kinds of attention: hard (one sampled position), local (a window, Luong et al.)
# ---------------------------------------------------------------------------
def hard_attention(h, scores, rng) -> tuple[int, np.ndarray]:
    """Hard attention: ONE position j drawn with probability α_j = softmax(e)_j; c = h_j. Returns
    (j, one-hot weights (n,)). A draw has no gradient: it is trained by sampling (REINFORCE-style)."""
    rng = check_rng(rng)
    res = attend(h, scores)
    j = int(rng.choice(res.weights.shape[0], p=res.weights))
    weights = np.zeros_like(res.weights)
    weights[j] = 1.0
    return j, weights


@dataclass(frozen=True)
class LocalAttentionResult:
    scores: np.ndarray    # (n,)   e_s = q · h_s for every position
    window: np.ndarray    # (n,)   bool: |s − p| ≤ D (positions counted from 1)
    align: np.ndarray     # (n,)   softmax of the scores inside the window, 0 outside
    weights: np.ndarray   # (n,)   align · exp(−(s − p)² / (2σ²)) for local-p; = align for local-m
    context: np.ndarray   # (d_h,) Σ_s weights_s h_s


def local_attention(q, h, center, half_width, *, gaussian: bool = True) -> LocalAttentionResult:
    """Local attention (Luong et al., 2015) with dot-product scores e_s = q · h_s:

        window: p − D ≤ s ≤ p + D (s = 1 … n; clipped at the ends), align = softmax over the window,
        local-p (gaussian=True): a_s = align_s · exp(−(s − p)² / (2σ²)), σ = D / 2 (not renormalised);
        local-m (gaussian=False, p = the decoder's own step t): a_s = align_s.

    q (d,), h (n, d); center p (a real number; local-p predicts it as n·σ(…)); half_width D ≥ 1."""
    q = _vector(q, "デコーダの状態 q")
    h = as_matrix(h, "エンコーダの状態 H", ndim=2)
    if q.shape[0] != h.shape[1]:
        raise ValueError(f"q の長さ（{q.shape[0]}）と h_s の長さ（{h.shape[1]}）が一致しません（H の形 {h.shape}）。")
    d = positive_int(half_width, "窓の半幅 D")
    try:
        p = float(center)
    except (TypeError, ValueError):
        raise ValueError(f"中心の位置 p は数が必要です（{center!r}）。") from None
    n = h.shape[0]
    s = np.arange(1, n + 1, dtype=float)                     # (n,) positions 1 … n
    window = np.abs(s - p) <= d                              # (n,)
    if not window.any():
        raise ValueError(f"中心 p = {p} の前後 {d} 語の窓に入力の位置（1〜{n}）が 1 つもありません。")
    scores = h @ q                                           # (n,)
    align = np.zeros(n)
    align[window] = softmax(scores[window])                  # (n,) zero outside the window
    weights = align * np.exp(-((s - p) ** 2) / (2 * (d / 2) ** 2)) if gaussian else align.copy()
    return LocalAttentionResult(scores, window, align, weights, weights @ h)


# ---------------------------------------------------------------------------
# the bottleneck in numbers
# ---------------------------------------------------------------------------
def context_sizes(n_tokens, d_h) -> dict[str, int]:
    """How many numbers the decoder can draw on about the source.

    without attention: the context vector h_n has d_h numbers, for any n;
    with attention: all n encoder states, n·d_h numbers, and n weights per decoder step."""
    n = positive_int(n_tokens, "入力の長さ n")
    d = positive_int(d_h, "隠れ状態の次元 d_h")
    return {"fixed": d, "attention": n * d, "weights": n}


def context_size_mistake(n_tokens, d_h, mistake: str) -> int:
    """Misconceptions about the size of plain Seq2Seq's context vector:
    "per_token" (n·d_h: as if every state were passed, i.e. attention), "tokens" (n: one number per
    word), "square" (d_h²: the size of the recurrent matrix W_hh)."""
    n = positive_int(n_tokens, "入力の長さ n")
    d = positive_int(d_h, "隠れ状態の次元 d_h")
    table = {"per_token": n * d, "tokens": n, "square": d * d}
    if mistake not in table:
        raise ValueError(f"未知の誤り {mistake!r}（{', '.join(table)} のどれか）")
    return table[mistake]


# ---------------------------------------------------------------------------
# teacher forcing vs the model's own output (exposure bias)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BigramDecodeResult:
    inputs: tuple[str, ...]       # the token fed in at each step (the previous token)
    predictions: tuple[str, ...]  # the model's most probable next token at each step
    correct: tuple[bool, ...]     # prediction == target at that step
    p_target: np.ndarray          # (T,) probability the model gives the target token at each step
    n_correct: int
    loss: float                   # mean −log p(target) over the steps (cross-entropy)


def bigram_decode(logits, vocab, target, mode: str = "teacher", bos: str = "〈bos〉", *,
                  use_truth=None) -> BigramDecodeResult:
    """Run a bigram decoder (next-token logits = logits[previous token]) for len(target) steps.

    mode "teacher" (教師強制): the input at step t is the CORRECT previous token y_{t-1};
    mode "free" (自己回帰・推論時と同じ): the input is the model's own previous prediction ŷ_{t-1};
    mode "mixed" (scheduled sampling, tutor.seq2seq_rnn): use_truth[t − 1] says, for each step t ≥ 1,
    whether its input is y_{t-1} (True) or ŷ_{t-1} (False); len(use_truth) = len(target) − 1.
    The prediction is the argmax of softmax(logits[input]) (ties → the first in vocab order).
    logits: (V, V) row = previous token, column = next token.
    """
    vocab = tuple(vocab)
    logits = as_matrix(logits, "ロジットの表", ndim=2)
    if logits.shape != (len(vocab), len(vocab)):
        raise ValueError(f"ロジットの表の形は語彙数 × 語彙数 = ({len(vocab)}, {len(vocab)}) が必要ですが、{logits.shape} です。")
    index = {t: i for i, t in enumerate(vocab)}
    target = tuple(target)
    unknown = [t for t in (bos, *target) if t not in index]
    if not target or unknown:
        raise ValueError("正解の系列が空か、語彙にない語を含んでいます：" + "、".join(unknown))
    if mode not in ("teacher", "free", "mixed"):
        raise ValueError(f"mode は 'teacher'（教師強制）か 'free'（自分の出力を入れる）か 'mixed' です（{mode!r}）。")
    truth = (True,) * len(target) if mode == "teacher" else (False,) * len(target)
    if mode == "mixed":
        truth = tuple(bool(t) for t in (use_truth if use_truth is not None else ()))
        if len(truth) != len(target) - 1:
            raise ValueError(f"use_truth の長さは 正解の長さ − 1 = {len(target) - 1} が必要です（{len(truth)}）。")
    probs = softmax(logits)                                  # (V, V) each row sums to 1
    inputs, preds, p_target = [], [], []
    prev = bos
    for t, y in enumerate(target):
        inputs.append(prev)
        row = probs[index[prev]]                             # (V,)
        pred = vocab[int(np.argmax(row))]
        preds.append(pred)
        p_target.append(row[index[y]])
        prev = y if t < len(truth) and truth[t] else pred   # the one line that differs
    correct = tuple(p == y for p, y in zip(preds, target))
    p_arr = np.array(p_target)
    return BigramDecodeResult(tuple(inputs), tuple(preds), correct, p_arr, sum(correct),
                        float(-np.mean(np.log(p_arr))))


def exposure_gap(logits, vocab, target) -> tuple[BigramDecodeResult, BigramDecodeResult]:
    """(teacher-forced run, free run) on the same model: the gap between their correct counts is
    exposure bias — in training the model never saw its own mistakes as input."""
    return bigram_decode(logits, vocab, target, "teacher"), bigram_decode(logits, vocab, target, "free")


# ---------------------------------------------------------------------------
# exploding gradients: clipping by norm
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ClipResult:
    norm: float           # ‖g‖ (L2)
    factor: float         # min(1, c / ‖g‖)
    clipped: np.ndarray   # g · factor, same shape as g
    was_clipped: bool     # ‖g‖ > c

    @property
    def clipped_norm(self) -> float:
        """‖g · factor‖ = min(‖g‖, c)."""
        return _norm(self.clipped)


def _clip_inputs(g, c):
    g = as_matrix(g, "勾配 g", ndim=(1, 2))
    try:
        c = float(c)
    except (TypeError, ValueError):
        raise ValueError(f"しきい値 c は正の数が必要です（{c!r}）。") from None
    if not math.isfinite(c) or c <= 0:
        raise ValueError(f"しきい値 c は正の有限な数が必要です（c = {c}）。")
    return g, c


def _norm(g: np.ndarray) -> float:
    scale = float(np.max(np.abs(g)))
    if scale == 0.0:
        return 0.0
    return scale * float(np.sqrt(np.sum((g / scale) ** 2)))    # no overflow for huge entries


def clip_by_norm(g, c) -> ClipResult:
    """Gradient clipping by norm: g ← g · min(1, c / ‖g‖).

    The direction of g is kept; only its length is cut to c when it is longer (a zero gradient
    stays zero). g: (d,) or (r, d) (the norm is over all entries); c > 0."""
    g, c = _clip_inputs(g, c)
    norm = _norm(g)
    factor = 1.0 if norm <= c else c / norm
    return ClipResult(norm, factor, g * factor, norm > c)


def gradient_through_time(w, g, steps) -> np.ndarray:
    """‖g (Wᵀ)^t‖ for t = 0 … steps: the gradient sent back t time steps through a LINEAR
    recurrence h_t = h_{t-1} W (row vectors, so ∂L/∂h_{t-1} = ∂L/∂h_t Wᵀ). With tanh each step
    is also multiplied by tanh' ≤ 1, which only shrinks it further.

    W = a·I gives ‖g‖ aᵗ: a < 1 vanishes (勾配消失), a > 1 explodes (勾配爆発).
    w: (d, d); g: (d,); steps ≤ 200. Returns (steps + 1,)."""
    w = as_matrix(w, "再帰の変換行列 W", ndim=2)
    g = _vector(g, "勾配 g")
    steps = positive_int(steps, "さかのぼる段数")
    if steps > 200:
        raise ValueError(f"さかのぼる段数は 200 までにしてください（{steps}）。")
    if w.shape != (g.shape[0], g.shape[0]):
        raise ValueError(f"W の形は ({g.shape[0]}, {g.shape[0]}) が必要ですが、{w.shape} です。")
    norms = [_norm(g)]
    cur = g
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(steps):
            cur = cur @ w.T                                   # (d,) one step further back
            if not np.all(np.isfinite(cur)):
                raise ValueError("勾配が大きくなりすぎて、浮動小数点数で表せなくなりました（勾配爆発）。"
                                 "段数か W の値を小さくしてください。")
            norms.append(_norm(cur))
    return np.array(norms)


def scaled_recurrence_norms(a, steps) -> np.ndarray:
    """gradient_through_time for W = a·I (2 × 2) and g = (1, 0): the norms aᵗ, t = 0 … steps."""
    try:
        a = float(a)
    except (TypeError, ValueError):
        raise ValueError(f"a は数が必要です（{a!r}）。") from None
    return gradient_through_time(a * np.eye(2), np.array([1.0, 0.0]), steps)


CLIP_MISTAKES = ("always_scale", "squared_norm", "l1_norm")


def clip_mistake(g, c, mistake: str) -> np.ndarray:
    """Clipping by norm as a learner gets it wrong:
    "always_scale": g · c / ‖g‖ without min(1, ·) (a short gradient is stretched up to length c);
    "squared_norm": g · c / ‖g‖² (divided by the squared length);
    "l1_norm": g · min(1, c / ‖g‖₁) (the length measured as the sum of absolute values)."""
    g, c = _clip_inputs(g, c)
    norm = _norm(g)
    if norm == 0.0:
        return g.copy()
    if mistake == "always_scale":
        return g * (c / norm)
    if mistake == "squared_norm":
        return g * (c / norm / norm)
    if mistake == "l1_norm":
        l1 = float(np.sum(np.abs(g)))
        return g * min(1.0, c / l1)
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(CLIP_MISTAKES)} のどれか）")


def clip_by_value(g, c) -> np.ndarray:
    """Misconception (for clipping by norm): clip every entry to [−c, c] separately. A real method
    too (clipping by value), but it changes the DIRECTION of g, and the result is not g·min(1, c/‖g‖)."""
    g, c = _clip_inputs(g, c)
    return np.clip(g, -c, c)
