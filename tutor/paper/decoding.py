"""How the paper turned a trained model into translations: beam search with GNMT's length penalty,
the maximum output length, and the average of the last checkpoints.

Length penalty (Wu et al. 2016, GNMT §7; the paper's reference [38]): a hypothesis Y of |Y| tokens
with log-probability log P(Y|X) ≤ 0 is ranked by

    lp(Y)   = ((5 + |Y|) / (5 + 1))^α
    s(Y, X) = log P(Y|X) / lp(Y)                (GNMT adds a coverage penalty; the paper names only α)

Every added token adds a negative log-probability, so without it beam search prefers short
outputs; dividing by lp(Y) ≥ 1 shrinks long hypotheses' scores more. α = 0: plain log P;
the paper: beam 4, α = 0.6 (parsing: beam 21, α = 0.3). Maximum output length: input + 50.

Checkpoint averaging: the parameters of the last k saved checkpoints, averaged entry by entry
(the paper: k = 5 for base, written every 10 minutes; k = 20 for big) — one model, not an
ensemble of k models.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, check_rng, positive_int, real_number

PAPER_BEAM = 4
PAPER_ALPHA = 0.6
PAPER_MAX_EXTRA = 50             # maximum output length = input length + 50 (terminate early when possible)
PARSING_BEAM = 21
PARSING_ALPHA = 0.3
PARSING_MAX_EXTRA = 300
LP_OFFSET = 5                    # GNMT's constant: (5 + |Y|) / (5 + 1)
MAX_ALPHA = 5.0
MAX_LENGTH = 10_000

# the worked example: a short and a long hypothesis for the same source sentence
DEMO_HYPOTHESES = ("猫が食べた。", "その猫は魚をすっかり食べてしまった。")
DEMO_LOG_PROBS = (-3.0, -4.2)
DEMO_LENGTHS = (7, 19)           # (5 + 7)/6 = 2 and (5 + 19)/6 = 4: lp = 2^α and 4^α
BASE_CHECKPOINTS = 5             # the last 5 checkpoints (base), written at 10-minute intervals
BASE_CHECKPOINT_MINUTES = 10
BIG_CHECKPOINTS = 20
# the hand calculation's checkpoints: two parameters at six saves
DEMO_CHECKPOINTS = ((0.8, -1.2), (1.3, -0.7), (0.9, -1.1), (1.2, -0.8), (1.1, -1.3), (0.8, -0.9))
DEMO_LAST = 4


def _length(length) -> int:
    n = positive_int(length, "出力の長さ |Y|")
    if n > MAX_LENGTH:
        raise ValueError(f"出力の長さ |Y| は {MAX_LENGTH:,} 以下にしてください（{n:,}）。")
    return n


def _log_prob(log_prob) -> float:
    try:
        x = float(log_prob)
    except (TypeError, ValueError):
        raise ValueError(f"log P は数で入れてください（{log_prob!r}）。") from None
    if not math.isfinite(x) or x > 0:
        raise ValueError(f"log P は 0 以下の有限の数です（確率は 1 以下なので）：{log_prob!r}。")
    return x


# ---------------------------------------------------------------------------
# length penalty
# ---------------------------------------------------------------------------
def _alpha(alpha) -> float:
    """The length penalty's α: a number from 0 to MAX_ALPHA, or ValueError (Japanese)."""
    return real_number(alpha, "α", low=0, high=MAX_ALPHA)


def length_base(length: int) -> float:
    """(5 + |Y|) / (5 + 1): what lp(Y) raises to the power α (|Y| = 7 → 2, |Y| = 19 → 4)."""
    return (LP_OFFSET + _length(length)) / (LP_OFFSET + 1)


def length_penalty(length: int, alpha: float = PAPER_ALPHA) -> float:
    """lp(Y) = ((5 + |Y|) / 6)^α (≥ 1, grows with |Y|; 1 at α = 0 or |Y| = 1)."""
    return length_base(length) ** _alpha(alpha)


def length_penalty_no_offset(length: int, alpha: float = PAPER_ALPHA) -> float:
    """MISTAKE: |Y|^α — the constant 5 dropped (GNMT's earlier heuristic, dividing by length^α)."""
    return float(_length(length)) ** _alpha(alpha)


def length_penalty_unnormalised(length: int, alpha: float = PAPER_ALPHA) -> float:
    """MISTAKE: (5 + |Y|)^α without the division by (5 + 1)^α (the order of hypotheses stays,
    every score is smaller by the same factor)."""
    return float(LP_OFFSET + _length(length)) ** _alpha(alpha)


def normalized_score(log_prob: float, length: int, alpha: float = PAPER_ALPHA) -> float:
    """s = log P(Y|X) / lp(Y): the score beam search ranks finished hypotheses by."""
    return _log_prob(log_prob) / length_penalty(length, alpha)


def score_times_penalty(log_prob: float, length: int, alpha: float = PAPER_ALPHA) -> float:
    """MISTAKE: log P multiplied by lp(Y) — long hypotheses punished harder, not helped."""
    return _log_prob(log_prob) * length_penalty(length, alpha)


@dataclass(frozen=True)
class Ranking:
    log_probs: np.ndarray      # (m,)  log P(Y|X) of each hypothesis
    lengths: tuple[int, ...]   # (m,)  |Y|
    alpha: float
    penalties: np.ndarray      # (m,)  lp(Y)
    scores: np.ndarray         # (m,)  log P / lp
    chosen: int                # argmax of the scores (the output)
    raw_choice: int            # argmax of log P alone (α = 0)

    @property
    def order(self) -> tuple[int, ...]:
        """Hypotheses from the best score down (a tie keeps the earlier one first)."""
        return tuple(int(i) for i in np.argsort(-self.scores, kind="stable"))


def rank_hypotheses(log_probs, lengths, alpha: float = PAPER_ALPHA) -> Ranking:
    """Rank finished hypotheses by log P / lp(Y), and by log P alone for comparison."""
    lp = np.array([_log_prob(x) for x in np.ravel(np.asarray(log_probs, dtype=object))], dtype=np.float64)
    ls = tuple(_length(x) for x in np.ravel(np.asarray(lengths, dtype=object)))
    if lp.size == 0 or lp.size != len(ls):
        raise ValueError(f"log P と長さの数がそろっていません（{lp.size} と {len(ls)}）。")
    a = _alpha(alpha)
    pen = np.array([length_penalty(n, a) for n in ls])
    scores = lp / pen
    return Ranking(lp, ls, a, pen, scores, int(np.argmax(scores)), int(np.argmax(lp)))


def flip_alpha(log_prob_short: float, length_short: int, log_prob_long: float, length_long: int) -> float | None:
    """The α at which a shorter and a longer hypothesis score alike: log P_s / log P_l =
    ((5 + |Y_s|) / (5 + |Y_l|))^α → α = ln(log P_s / log P_l) / ln((5 + |Y_s|)/(5 + |Y_l|)).
    None when no α ≥ 0 makes them equal (one of them wins at every α)."""
    a, b = _log_prob(log_prob_short), _log_prob(log_prob_long)
    ns, nl = _length(length_short), _length(length_long)
    if ns >= nl:
        raise ValueError(f"短い方の長さ {ns} が長い方の長さ {nl} 以上になっています。")
    if a == 0 or b == 0:
        return None
    alpha = math.log(a / b) / math.log((LP_OFFSET + ns) / (LP_OFFSET + nl))
    return alpha if alpha >= 0 else None


def score_curves(log_probs, lengths, alphas) -> np.ndarray:
    """(len(alphas), m): every hypothesis's score log P / lp(Y) at each α."""
    al = np.asarray(alphas, dtype=np.float64).ravel()
    return np.array([rank_hypotheses(log_probs, lengths, a).scores for a in al])


def max_output_length(input_length: int, extra: int = PAPER_MAX_EXTRA) -> int:
    """The paper's cap on decoding: input length + 50 (parsing: + 300)."""
    return _length(input_length) + positive_int(extra, "足す長さ")


# ---------------------------------------------------------------------------
# checkpoint averaging
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckpointAverage:
    checkpoints: np.ndarray    # (n, d) every saved parameter vector, oldest first
    last: int                  # k
    used: np.ndarray           # (k, d) the last k
    mean: np.ndarray           # (d,)   their entrywise mean: the parameters of ONE model

    @property
    def first(self) -> int:
        """The 1-based position of the first checkpoint averaged (6 saved, k = 4 → 3)."""
        return self.checkpoints.shape[0] - self.last + 1


def _checkpoints(checkpoints) -> np.ndarray:
    return as_matrix(checkpoints, "チェックポイント", ndim=2)


def _last(last, n: int) -> int:
    k = positive_int(last, "平均する個数 k")
    if k > n:
        raise ValueError(f"平均する個数 k = {k} が、保存したチェックポイントの数 {n} を超えています。")
    return k


def average_checkpoints(checkpoints, last: int) -> CheckpointAverage:
    """θ̄ = (1/k) Σ_{i = n−k+1}^{n} θ_i: the mean of the last k parameter vectors."""
    ck = _checkpoints(checkpoints)                 # (n, d)
    k = _last(last, ck.shape[0])
    used = ck[-k:]                                 # (k, d)
    return CheckpointAverage(ck, k, used, used.mean(axis=0))


def last_checkpoint_only(checkpoints, last: int) -> np.ndarray:
    """MISTAKE: the last checkpoint taken as it is (no averaging)."""
    ck = _checkpoints(checkpoints)
    _last(last, ck.shape[0])
    return ck[-1].copy()


def sum_of_checkpoints(checkpoints, last: int) -> np.ndarray:
    """MISTAKE: the last k added up without dividing by k."""
    ck = _checkpoints(checkpoints)
    return ck[-_last(last, ck.shape[0]):].sum(axis=0)


def average_of_all(checkpoints, last: int) -> np.ndarray:
    """MISTAKE: every saved checkpoint averaged, the early ones of training too."""
    ck = _checkpoints(checkpoints)
    _last(last, ck.shape[0])
    return ck.mean(axis=0)


CHECKPOINT_MISTAKES = {"last_only": last_checkpoint_only, "sum": sum_of_checkpoints, "all": average_of_all}


# a toy picture of why it helps: noisy descent on a bowl L(θ) = ½ Σ_j a_j (θ_j − θ*_j)²
BOWL_CURVATURE = (1.0, 4.0)
BOWL_MINIMUM = (1.0, -1.0)


def bowl_loss(theta) -> np.ndarray:
    """L(θ) = ½ Σ_j a_j (θ_j − θ*_j)² for each row θ (…, 2) → (…)."""
    t = as_matrix(theta, "パラメータ", ndim=(1, 2))
    if t.shape[-1] != 2:
        raise ValueError(f"パラメータは 2 成分で渡してください（形 {t.shape}）。")
    d = t - np.array(BOWL_MINIMUM)
    return 0.5 * (d ** 2 * np.array(BOWL_CURVATURE)).sum(axis=-1)


@dataclass(frozen=True)
class NoisyRun:
    path: np.ndarray           # (steps + 1, 2) every parameter vector
    checkpoints: np.ndarray    # (n, 2) the saved ones (every `every` steps)
    losses: np.ndarray         # (n,) the loss at each checkpoint
    average: CheckpointAverage
    average_loss: float        # the loss at the averaged parameters

    @property
    def used_losses_mean(self) -> float:
        """The mean of the losses of the checkpoints that were averaged (≥ average_loss: the bowl is convex)."""
        return float(self.losses[-self.average.last:].mean())


def noisy_descent(rng: np.random.Generator, *, steps: int = 200, every: int = 10, last: int = 5,
                  learning_rate: float = 0.1, noise: float = 1.0, start=(-1.0, 1.0)) -> NoisyRun:
    """Gradient descent on the bowl with a noisy gradient (the noise of a mini-batch):
    θ ← θ − η (∇L(θ) + σ ε), ε ~ N(0, I). The late checkpoints scatter around the minimum; their
    mean lies nearer to it, and on a bowl L(mean) ≤ mean of the L's (the loss is convex)."""
    rng = check_rng(rng)
    steps, every = positive_int(steps, "ステップ数"), positive_int(every, "保存の間隔")
    if steps % every:
        raise ValueError(f"ステップ数 {steps} が保存の間隔 {every} で割り切れません。")
    a, opt = np.array(BOWL_CURVATURE), np.array(BOWL_MINIMUM)
    theta = as_matrix(start, "出発点", ndim=1).copy()
    path = [theta.copy()]
    for _ in range(steps):
        grad = a * (theta - opt) + float(noise) * rng.standard_normal(2)
        theta = theta - float(learning_rate) * grad
        path.append(theta.copy())
    path = np.array(path)                          # (steps + 1, 2)
    ck = path[every::every]                        # (steps / every, 2)
    avg = average_checkpoints(ck, last)
    return NoisyRun(path, ck, bowl_loss(ck), avg, float(bowl_loss(avg.mean)))
