"""The small formulas behind ⑧'s hand calculations and questions — cross-entropy and its gradient p − t,
one gradient-descent step — each with the named mistakes the questions use (their Japanese labels
stay in quizzes/)."""
from __future__ import annotations

import numpy as np

from ..core import softmax


# ---------------------------------------------------------------------------
# small formulas for the quizzes and the page
# ---------------------------------------------------------------------------
def cross_entropy(probs, target: int) -> float:
    """L = −log p[target] for one probability vector (n,)."""
    p = np.asarray(probs, dtype=np.float64).ravel()                   # (n,)
    if not (0 <= int(target) < p.size):
        raise ValueError(f"正解の番号 {target} が確率ベクトルの長さ {p.size} の範囲外です。")
    total = float(p.sum())
    if (p < 0).any() or not np.isclose(total, 1.0):
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
