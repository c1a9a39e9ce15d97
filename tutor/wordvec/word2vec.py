"""word2vec (Mikolov et al., 2013): the training examples its two forms make from a sentence,
their number, the skip-gram softmax and the negative-sampling objective — with the named
mistakes next to the formulas they distort.

With a window of c words on EACH side of position i (cut at the sentence's ends):

    skip-gram:  the centre word predicts each context word → one (centre, context) pair per
                neighbour: Σ_i [min(c, i) + min(c, L − 1 − i)] pairs; 2cL − c(c + 1) when L > 2c
    CBOW:       the context words (averaged) predict the centre word → one example per position: L

    skip-gram softmax:   P(o | c) = exp(u_o · v_c) / Σ_w exp(u_w · v_c)        (V dot products)
    negative sampling:   log σ(u_o · v_c) + Σ_{k=1..K} log σ(−u_k · v_c)        (K + 1 dot products)

(The word2vec tool draws each position's window from 1 … c, so near words are used more often;
the counts here are for the fixed window c.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, positive_int, softmax

SENTENCE = ("猫", "が", "魚", "を", "食べる")
WINDOW = 2
# the skip-gram softmax by hand: centre 食べる, four output vectors (invented, small integers)
SOFTMAX_WORDS = ("魚", "を", "猫", "空")
SOFTMAX_CENTER = np.array([1.0, 1.0])              # v_c of 食べる (d,) = (2,)
SOFTMAX_OUT = np.array([[2.0, 0.0],                # u_w (V, d) = (4, 2)
                        [0.0, 1.0],
                        [1.0, 0.0],
                        [-1.0, 0.0]])
NEG_POSITIVE, NEG_SAMPLES = 0, (2, 3)              # 魚 is the true context; 猫 and 空 drawn as negatives
for _a in (SOFTMAX_CENTER, SOFTMAX_OUT):
    _a.flags.writeable = False
MAX_LENGTH = 10 ** 6


def _window(length, window) -> tuple[int, int]:
    m, c = positive_int(length, "文の語数 L"), positive_int(window, "窓の幅 c")
    if m > MAX_LENGTH:
        raise ValueError(f"文の語数は {MAX_LENGTH:,} 以下にしてください（{m:,}）。")
    return m, c


# ---------------------------------------------------------------------------
# the training examples of the two forms
# ---------------------------------------------------------------------------
def context_positions(length, i, window) -> tuple[int, ...]:
    """The positions within ``window`` of position i on both sides, inside the sentence."""
    m, c = _window(length, window)
    if not 0 <= i < m:
        raise ValueError(f"位置は 0〜{m - 1} が必要です（{i}）。")
    return tuple(j for j in range(max(0, i - c), min(m, i + c + 1)) if j != i)


def skipgram_pairs(tokens, window) -> tuple[tuple[str, str], ...]:
    """(centre, context) pairs: each centre word with each word of its window."""
    tokens = tuple(str(t) for t in tokens)
    if not tokens:
        raise ValueError("文が空です。")
    return tuple((tokens[i], tokens[j]) for i in range(len(tokens))
                 for j in context_positions(len(tokens), i, window))


def cbow_examples(tokens, window) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(context words, centre word): one example per position whose window holds a word."""
    tokens = tuple(str(t) for t in tokens)
    if not tokens:
        raise ValueError("文が空です。")
    out = []
    for i in range(len(tokens)):
        ctx = context_positions(len(tokens), i, window)
        if ctx:
            out.append((tuple(tokens[j] for j in ctx), tokens[i]))
    return tuple(out)


def skipgram_pair_count(length, window) -> int:
    """Σ_i [min(c, i) + min(c, L − 1 − i)]  (= 2cL − c(c + 1) when L > 2c)."""
    m, c = _window(length, window)
    if m > 2 * c:
        return 2 * c * m - c * (c + 1)
    return sum(min(c, i) + min(c, m - 1 - i) for i in range(m))


def pair_count_terms(length, window) -> tuple[int, int]:
    """The two terms of 2cL − c(c + 1) (the closed form holds for L > 2c)."""
    m, c = _window(length, window)
    return 2 * c * m, c * (c + 1)


def cbow_example_count(length, window) -> int:
    """One example per position (every position has a neighbour once L ≥ 2): L (1 word: 0)."""
    m, _ = _window(length, window)
    return m if m >= 2 else 0


def pair_count_one_sided(length, window) -> int:
    """Mistake: the window counted on one side only (c words after the centre)."""
    m, c = _window(length, window)
    if m > c:
        return c * m - c * (c + 1) // 2
    return sum(min(c, m - 1 - i) for i in range(m))


def pair_count_no_edges(length, window) -> int:
    """Mistake: every position given a full window of 2c words (the sentence's ends ignored)."""
    m, c = _window(length, window)
    return 2 * c * m


def middle_context_count(length, window) -> int:
    """Context words of a centre far from both ends: 2c (a full window on each side)."""
    _m, c = _window(length, window)
    return 2 * c


# ---------------------------------------------------------------------------
# the skip-gram softmax and negative sampling
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SkipgramSoftmax:
    scores: np.ndarray       # (V,) u_w · v_c
    exps: np.ndarray         # (V,) exp(u_w · v_c)
    probs: np.ndarray        # (V,) exps / Σ exps


def skipgram_softmax(center, out) -> SkipgramSoftmax:
    """P(w | c) for every output word: softmax(U v_c). center (d,), out U (V, d)."""
    v = as_matrix(center, "中心の語のベクトル v_c", ndim=1)
    u = as_matrix(out, "出力側のベクトル U", ndim=2)
    if u.shape[1] != v.shape[0]:
        raise ValueError(f"U の列の数（{u.shape[1]}）と v_c の長さ（{v.shape[0]}）が違います。")
    scores = u @ v                                           # (V,)
    return SkipgramSoftmax(scores, np.exp(scores), softmax(scores))


def sigmoid(x) -> np.ndarray:
    """σ(x) = 1 / (1 + e^{−x}), computed without overflow for large |x|."""
    x = np.asarray(x, dtype=float)
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1.0 + np.exp(-np.abs(x))))


@dataclass(frozen=True)
class NegativeSampling:
    positive_score: float        # u_o · v_c
    negative_scores: np.ndarray  # (K,) u_k · v_c
    positive_prob: float         # σ(u_o · v_c): "o really is a neighbour"
    negative_probs: np.ndarray   # (K,) σ(−u_k · v_c): "k is not"
    objective: float             # log σ(u_o·v_c) + Σ log σ(−u_k·v_c)  (maximised)

    @property
    def loss(self) -> float:
        return -self.objective


def negative_sampling(center, positive, negatives) -> NegativeSampling:
    """The negative-sampling objective of one (centre, context) pair and K drawn words.
    center (d,), positive (d,), negatives (K, d)."""
    v = as_matrix(center, "中心の語のベクトル v_c", ndim=1)
    u_o = as_matrix(positive, "正解の周辺語のベクトル u_o", ndim=1)
    u_k = as_matrix(negatives, "負例のベクトル u_k", ndim=2)
    if u_o.shape != v.shape or u_k.shape[1] != v.shape[0]:
        raise ValueError(f"ベクトルの長さがそろっていません（v_c {v.shape[0]}、u_o {u_o.shape[0]}、u_k {u_k.shape[1]}）。")
    pos = float(u_o @ v)
    neg = u_k @ v                                            # (K,)
    p_pos = float(sigmoid(pos))
    p_neg = sigmoid(-neg)                                    # (K,)
    objective = float(np.log(p_pos) + np.log(p_neg).sum())
    return NegativeSampling(pos, neg, p_pos, p_neg, objective)


def dot_products_per_pair(vocab, negatives=None) -> int:
    """Output vectors touched per (centre, context) pair: all V with the full softmax, K + 1 with
    negative sampling."""
    v = positive_int(vocab, "語彙数 V")
    return v if negatives is None else positive_int(negatives, "負例の数 K") + 1
