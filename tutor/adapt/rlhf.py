"""From a pretrained model to an assistant (RLHF, and DPO without a reward model): the reward
model's pairwise loss −log σ(r_w − r_l), the KL-penalised objective E_π[r] − β·KL(π ‖ π_ref) and
its maximiser π ∝ π_ref · exp(r / β), and DPO's loss, the same logistic loss on the implicit
rewards β·log(π / π_ref) — with the named mistakes next to them. (Moved here from tutor.llm with
its page section: ⑩-2 teaches the assistant's tuning, ⑩-1 the models themselves.)"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..core import as_matrix, positive_int, softmax

# ---------------------------------------------------------------------------
# RLHF: the reward model's pairwise loss, the KL-penalised objective
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RewardLoss:
    margin: np.ndarray        # r_w − r_l per pair
    prob: np.ndarray          # σ(r_w − r_l): the model's probability that the preferred answer wins
    loss: np.ndarray          # −log σ(r_w − r_l) per pair
    mean: float               # the loss of the batch (mean over pairs)


def _pairs(r_chosen, r_rejected) -> tuple[np.ndarray, np.ndarray]:
    w = as_matrix(r_chosen, "好ましい応答の報酬 r_w", ndim=(0, 1))
    lo = as_matrix(r_rejected, "好ましくない応答の報酬 r_l", ndim=(0, 1))
    if w.shape != lo.shape:
        raise ValueError(f"r_w {w.shape} と r_l {lo.shape} の数がそろっていません。")
    return w, lo


def reward_pair_loss(r_chosen, r_rejected) -> RewardLoss:
    """Bradley–Terry loss of a reward model on pairs the labellers ranked:
    −log σ(r_w − r_l) = log(1 + e^{−(r_w − r_l)}) (computed stably); small when r_w ≫ r_l."""
    w, lo = _pairs(r_chosen, r_rejected)
    margin = w - lo
    loss = np.logaddexp(0.0, -margin)
    return RewardLoss(margin, np.exp(-loss), loss, float(np.mean(loss)))


def reward_loss_swapped(r_chosen, r_rejected) -> np.ndarray:
    """MISTAKE: the two answers swapped, −log σ(r_l − r_w)."""
    w, lo = _pairs(r_chosen, r_rejected)
    return np.logaddexp(0.0, w - lo)


def reward_loss_no_minus(r_chosen, r_rejected) -> np.ndarray:
    """MISTAKE: the minus sign left out, log σ(r_w − r_l) (never positive)."""
    return -reward_pair_loss(r_chosen, r_rejected).loss


def reward_loss_no_sigmoid(r_chosen, r_rejected) -> np.ndarray:
    """MISTAKE: σ and log left out, −(r_w − r_l)."""
    return -reward_pair_loss(r_chosen, r_rejected).margin


REWARD_MISTAKES = ("swapped", "no_minus", "no_sigmoid")


def reward_loss_exp(a_chosen: int, a_rejected: int, mistake: str | None = None) -> Fraction:
    """For rewards written as logarithms, r_w = ln a_w and r_l = ln a_l: σ(r_w − r_l) = a_w / (a_w + a_l),
    so the loss is ln of the returned fraction: e^{loss} = (a_w + a_l) / a_w (ln 6, ln 2 → ln 4/3).
    ``mistake`` gives e^{…} of a named mistake: "swapped" (a_w + a_l) / a_l, "no_minus" a_w / (a_w + a_l),
    "no_sigmoid" a_l / a_w. Two intermediate values: "margin" e^{r_w − r_l} = a_w / a_l and "win" the
    probability σ(r_w − r_l) = a_w / (a_w + a_l) itself (not a logarithm)."""
    a, b = positive_int(a_chosen, "a_w"), positive_int(a_rejected, "a_l")
    table = {None: Fraction(a + b, a), "margin": Fraction(a, b), "win": Fraction(a, a + b),
             "swapped": Fraction(a + b, b), "no_minus": Fraction(a, a + b),
             "no_sigmoid": Fraction(b, a)}
    if mistake not in table:
        raise ValueError(f"未知の誤りの種類です（{mistake!r}）。")
    return table[mistake]


def _distribution(p, name: str) -> np.ndarray:
    p = as_matrix(p, name, ndim=1)
    if (p < 0).any() or not math.isclose(float(p.sum()), 1.0, abs_tol=1e-9):
        raise ValueError(f"{name} は 0 以上で合計 1 の確率にしてください（合計 {float(p.sum()):.4g}）。")
    return p


def kl_divergence(p, q) -> float:
    """KL(p ‖ q) = Σ p_i log(p_i / q_i) (0·log 0 = 0); ∞ when q_i = 0 < p_i."""
    p, q = _distribution(p, "分布 p"), _distribution(q, "分布 q")
    if p.shape != q.shape:
        raise ValueError(f"2 つの分布の長さがそろっていません（{p.shape} と {q.shape}）。")
    on = p > 0
    if (q[on] == 0).any():
        return math.inf
    return float(np.sum(p[on] * np.log(p[on] / q[on])))


@dataclass(frozen=True)
class KlPolicy:
    beta: float
    policy: np.ndarray        # (K,) π* ∝ π_ref · exp(r / β)
    expected_reward: float    # E_π*[r]
    kl: float                 # KL(π* ‖ π_ref)
    objective: float          # E_π*[r] − β·KL


def kl_optimal_policy(ref_probs, rewards, beta: float) -> KlPolicy:
    """The policy that maximises E_π[r] − β·KL(π ‖ π_ref) over K answers:
    π*_i = π_ref,i · e^{r_i/β} / Σ_j π_ref,j · e^{r_j/β} = softmax(log π_ref + r / β).
    Small β: the best-rewarded answer takes everything; large β: π* stays near π_ref."""
    ref = _distribution(ref_probs, "元のモデルの確率 π_ref")
    r = as_matrix(rewards, "報酬 r", ndim=1)
    if r.shape != ref.shape:
        raise ValueError(f"報酬 {r.shape} と確率 {ref.shape} の数がそろっていません。")
    if isinstance(beta, bool) or not (isinstance(beta, (int, float)) and math.isfinite(beta) and beta > 0):
        raise ValueError(f"β は正の数にしてください（{beta!r}）。")
    with np.errstate(divide="ignore"):
        logits = np.log(ref) + r / beta                                     # (K,) −∞ where π_ref = 0
    pi = softmax(logits)                                                    # (K,)
    expected, kl = float(pi @ r), kl_divergence(pi, ref)
    return KlPolicy(float(beta), pi, expected, kl, expected - beta * kl)


# ---------------------------------------------------------------------------
# DPO: the same pairwise loss, on the implicit rewards β·log(π / π_ref)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DpoLoss:
    beta: float
    reward_chosen: np.ndarray      # β·(log π(y_w) − log π_ref(y_w)): the implicit reward of the preferred answer
    reward_rejected: np.ndarray    # β·(log π(y_l) − log π_ref(y_l))
    pair: RewardLoss               # −log σ(reward_chosen − reward_rejected), per pair and mean


def dpo_loss(logp_chosen, logp_ref_chosen, logp_rejected, logp_ref_rejected, beta: float) -> DpoLoss:
    """DPO (Rafailov et al. 2023): −log σ(β[(log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l))]).
    No reward model and no sampling: the policy's own log-probabilities, against the frozen
    reference model's, play the rewards' part in the reward model's loss."""
    if isinstance(beta, bool) or not (isinstance(beta, (int, float)) and math.isfinite(beta) and beta > 0):
        raise ValueError(f"β は正の数にしてください（{beta!r}）。")
    names = ("log π(y_w)", "log π_ref(y_w)", "log π(y_l)", "log π_ref(y_l)")
    lw, rw, ll, rl = (as_matrix(x, n, ndim=(0, 1)) for x, n in
                      zip((logp_chosen, logp_ref_chosen, logp_rejected, logp_ref_rejected), names))
    if not lw.shape == rw.shape == ll.shape == rl.shape:
        raise ValueError("4 つの対数確率の数がそろっていません。")
    if (np.stack([lw, rw, ll, rl]) > 0).any():
        raise ValueError("対数確率は 0 以下にしてください（確率は 1 以下）。")
    chosen, rejected = beta * (lw - rw), beta * (ll - rl)
    return DpoLoss(float(beta), chosen, rejected, reward_pair_loss(chosen, rejected))
