"""How the paper trained the Transformer (Vaswani et al. 2017, §5.3 Optimizer and §5.4
Regularization): the learning-rate schedule with warm-up, Adam's settings, label smoothing and
dropout — each with the named mistakes the questions use (their Japanese labels stay in quizzes/).

Learning-rate schedule (the paper's eq. 3)::

    lrate(step) = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)        step = 1, 2, …

The first branch falls as 1/√step, the second rises in a straight line; they meet at
step = warmup, so the rate climbs for ``warmup`` steps and then decays:

    peak step = warmup,   peak rate = d_model^-0.5 · warmup^-0.5 = (d_model · warmup)^-0.5
    (d_model 512, warmup 4000 → 6.99×10⁻⁴ ≈ 7.0×10⁻⁴)

Adam (the paper): β1 = 0.9, β2 = 0.98, ε = 10⁻⁹ (Kingma & Ba's defaults: 0.9, 0.999, 10⁻⁸).
An exponential moving average with decay β remembers about 1/(1 − β) recent steps: the paper's
β2 = 0.98 about 50, the default 0.999 about 1,000 (:func:`ema_horizon`).

Label smoothing (Szegedy et al. 2016; the paper: ε_ls = 0.1), K classes, answer y::

    q = (1 − ε) · onehot(y) + ε / K          q_y = 1 − ε + ε/K, q_k = ε/K otherwise (sums to 1)
    L = −Σ_k q_k ln p_k                       cross-entropy against the smoothed target

L is smallest (= the entropy H(q) > 0) at p = q: the model is never asked to put all of its
probability on the answer (the paper: perplexity worse, accuracy and BLEU better).

Dropout, inverted (what implementations do), rate p::

    training:   m_i ~ Bernoulli(1 − p),   y = x ⊙ m / (1 − p)      E[y] = x
    inference:  y = x                      (nothing dropped, nothing rescaled)

The paper (P_drop = 0.1) drops every sub-layer's output before the residual add,
LayerNorm(x + Dropout(Sublayer(x))), and the sum of the embeddings and the positional encoding.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..block import layer_norm_steps
from ..core import as_matrix, check_rng, positive_int

# ---------------------------------------------------------------------------
# the paper's settings (§5.2–5.4, base model)
# ---------------------------------------------------------------------------
PAPER_WARMUP = 4000            # warmup_steps
PAPER_BASE_STEPS = 100_000     # the base model's training steps (about 12 hours on 8 P100 GPUs)
PAPER_P_DROP = 0.1             # dropout rate of the base model
PAPER_LABEL_SMOOTHING = 0.1    # ε_ls

# worked-example inputs of the pages (⑧ 手計算: label smoothing; ⑦-2 手計算: dropout)
SMOOTHING_WORDS = ("猫", "魚", "それ", "を", "食べた")   # a 5-word vocabulary
SMOOTHING_PROBS = (0.05, 0.8, 0.05, 0.05, 0.05)          # the model's prediction p
SMOOTHING_ANSWER = 1                                     # the correct next word: 魚
DROPOUT_X = (2.0, 4.0, -1.0, 3.0)                        # a sub-layer's output for one token
DROPOUT_KEEP = (True, False, True, True)                 # one drawn mask (True = kept)
DROPOUT_RATE = 0.2                                       # 1/(1 − p) = 1.25: hand-calculable


@dataclass(frozen=True)
class AdamSettings:
    """Adam's constants: decay of the gradient's average (β1), of the squared gradient's (β2), ε."""
    beta1: float
    beta2: float
    eps: float


PAPER_ADAM = AdamSettings(beta1=0.9, beta2=0.98, eps=1e-9)
DEFAULT_ADAM = AdamSettings(beta1=0.9, beta2=0.999, eps=1e-8)   # Kingma & Ba's suggested values


def ema_horizon(beta: float) -> float:
    """About how many recent steps an exponential moving average with decay β remembers: 1/(1 − β)
    (the weights β^k sum to 1/(1 − β)). 0.9 → 10, 0.98 → 50, 0.999 → 1,000."""
    b = float(beta)
    if not 0.0 <= b < 1.0:
        raise ValueError(f"減衰率 β は 0 以上 1 未満が必要です（{beta!r}）。")
    return 1.0 / (1.0 - b)


# ---------------------------------------------------------------------------
# the learning-rate schedule
# ---------------------------------------------------------------------------
def _schedule_inputs(d_model, warmup) -> tuple[int, int]:
    return positive_int(d_model, "d_model"), positive_int(warmup, "warmup_steps")


def _steps(step) -> np.ndarray:
    s = as_matrix(step, "ステップ数")
    if (s < 1).any() or (s != np.round(s)).any():
        raise ValueError("ステップ数は 1 以上の整数が必要です（学習の 1 歩目が 1）。")
    return s


def learning_rate(step, d_model: int = 512, warmup: int = PAPER_WARMUP):
    """lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5) for a step (a float) or an
    array of steps (an array of the same shape)."""
    d, w = _schedule_inputs(d_model, warmup)
    s = _steps(step)                                                   # (...)
    rate = d ** -0.5 * np.minimum(s ** -0.5, s * w ** -1.5)            # (...)
    return float(rate) if np.ndim(step) == 0 else rate


@dataclass(frozen=True)
class Schedule:
    """The schedule over steps 1 … last_step (for a chart) and its peak."""
    d_model: int
    warmup: int
    steps: np.ndarray       # (n,) increasing, including 1, warmup and last_step
    rates: np.ndarray       # (n,)
    peak_step: int          # = warmup
    peak_rate: float        # = (d_model · warmup)^-0.5


def peak(d_model: int = 512, warmup: int = PAPER_WARMUP) -> tuple[int, float]:
    """(the step where the rate is largest, that rate). The branches meet where
    step^-0.5 = step · warmup^-1.5, i.e. step = warmup: (warmup, (d_model · warmup)^-0.5)."""
    d, w = _schedule_inputs(d_model, warmup)
    return w, learning_rate(w, d, w)


def schedule(d_model: int = 512, warmup: int = PAPER_WARMUP, last_step: int | None = None,
             n_points: int = 200) -> Schedule:
    """The rate at about ``n_points`` steps spread over 1 … last_step (default 5 · warmup), with
    step 1, the peak step and the last step among them."""
    d, w = _schedule_inputs(d_model, warmup)
    last = positive_int(last_step if last_step is not None else 5 * w, "最後のステップ")
    n = positive_int(n_points, "点の数")
    grid = np.round(np.linspace(1, last, max(n, 2)))                  # (n,)
    steps = np.unique(np.concatenate([grid, [1.0, float(min(w, last)), float(last)]])).astype(np.int64)
    rates = learning_rate(steps.astype(np.float64), d, w)               # (n',)
    p_step, p_rate = peak(d, w)
    return Schedule(d, w, steps, rates, p_step, p_rate)


@dataclass(frozen=True)
class SchedulePoint:
    """One step of the schedule for the hand calculation: which branch min() takes there."""
    step: int
    phase: str            # "warmup" (the straight branch is smaller), "peak" (they are equal), "decay"
    rate: float
    of_peak: float        # rate / peak rate: step/warmup during warm-up, √(warmup/step) after


def schedule_points(steps, d_model: int = 512, warmup: int = PAPER_WARMUP) -> list[SchedulePoint]:
    """The rate at each of ``steps`` with its phase and its share of the peak rate."""
    d, w = _schedule_inputs(d_model, warmup)
    s = _steps(steps).ravel()                                         # (n,)
    rates = learning_rate(s, d, w)                                    # (n,)
    top = peak(d, w)[1]
    phase = np.where(s < w, "warmup", np.where(s == w, "peak", "decay"))
    return [SchedulePoint(int(k), str(ph), float(r), float(r / top)) for k, ph, r in zip(s, phase, rates)]


# --- named mistakes behind the quiz distractors (None = the paper's formula) ---------------
LR_MISTAKES = ("no_warmup", "max_not_min", "no_d_model", "peak_everywhere", "inverse_step")


def lr_mistake(step: int, d_model: int, warmup: int, mistake: str | None = None) -> float:
    """The rate at ``step``, by the formula (None) or by a named mistake:

    - "no_warmup": the warm-up branch left out, d_model^-0.5 · step^-0.5 (largest at step 1);
    - "max_not_min": d_model^-0.5 · max(…) — the other branch at every step;
    - "no_d_model": min(step^-0.5, step · warmup^-1.5) without the factor d_model^-0.5;
    - "peak_everywhere": the peak rate (d_model · warmup)^-0.5 whatever the step;
    - "inverse_step": after the peak the decay taken as 1/step instead of 1/√step
      (peak rate · warmup / step); during warm-up the formula itself.
    """
    d, w = _schedule_inputs(d_model, warmup)
    s = float(_steps(step))
    if mistake is None:
        return learning_rate(s, d, w)
    if mistake == "no_warmup":
        return d ** -0.5 * s ** -0.5
    if mistake == "max_not_min":
        return d ** -0.5 * max(s ** -0.5, s * w ** -1.5)
    if mistake == "no_d_model":
        return min(s ** -0.5, s * w ** -1.5)
    if mistake == "peak_everywhere":
        return peak(d, w)[1]
    if mistake == "inverse_step":
        return learning_rate(s, d, w) if s <= w else peak(d, w)[1] * w / s
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(LR_MISTAKES)} のどれか）")


def peak_mistake(d_model: int, warmup: int, mistake: str | None = None) -> tuple[int, float]:
    """(peak step, peak rate) by the formula (None) or with the warm-up left out ("no_warmup":
    d_model^-0.5 · step^-0.5 only falls, so its largest rate is at step 1: (1, d_model^-0.5))."""
    d, w = _schedule_inputs(d_model, warmup)
    if mistake is None:
        return peak(d, w)
    if mistake == "no_warmup":
        return 1, lr_mistake(1, d, w, "no_warmup")
    raise ValueError(f"未知の誤り {mistake!r}（no_warmup）")


# ---------------------------------------------------------------------------
# label smoothing
# ---------------------------------------------------------------------------
def _check_eps_ls(eps) -> float:
    e = float(eps)
    if not 0.0 <= e < 1.0:
        raise ValueError(f"ラベル平滑化の ε は 0 以上 1 未満が必要です（{eps!r}）。")
    return e


def _check_class(n_classes: int, target: int) -> tuple[int, int]:
    k = positive_int(n_classes, "語彙の大きさ K")
    if k < 2:
        raise ValueError("ラベル平滑化には 2 語以上の語彙が必要です。")
    if isinstance(target, (bool, np.bool_)) or int(target) != target or not 0 <= int(target) < k:
        raise ValueError(f"正解の番号 {target!r} が語彙の範囲 0〜{k - 1} の外です。")
    return k, int(target)


def smoothed_target(n_classes: int, target: int, eps: float = PAPER_LABEL_SMOOTHING) -> np.ndarray:
    """q = (1 − ε) · onehot(target) + ε / K → (K,): the answer gets 1 − ε + ε/K, every other
    class ε/K; the entries sum to 1."""
    k, t = _check_class(n_classes, target)
    e = _check_eps_ls(eps)
    q = np.full(k, e / k)                                             # (K,) the uniform share ε/K
    q[t] += 1.0 - e                                                   # (K,)
    return q


SMOOTHING_MISTAKES = ("others_only", "swap_eps", "no_share_to_answer")


def smoothed_target_mistake(n_classes: int, target: int, eps: float, mistake: str | None = None) -> np.ndarray:
    """The smoothed target by the formula (None) or a named mistake (→ (K,)):

    - "others_only": ε spread over the K − 1 other classes only (answer 1 − ε, others ε/(K − 1));
    - "swap_eps": ε and 1 − ε exchanged: ε · onehot + (1 − ε)/K;
    - "no_share_to_answer": the answer keeps 1 − ε without its own share ε/K (sums to 1 − ε/K).
    """
    k, t = _check_class(n_classes, target)
    e = _check_eps_ls(eps)
    if mistake is None:
        return smoothed_target(k, t, e)
    if mistake == "others_only":
        q = np.full(k, e / (k - 1))
        q[t] = 1.0 - e
        return q
    if mistake == "swap_eps":
        return smoothed_target(k, t, 1.0 - e) if e > 0 else np.full(k, 1.0 / k)
    if mistake == "no_share_to_answer":
        q = np.full(k, e / k)
        q[t] = 1.0 - e
        return q
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(SMOOTHING_MISTAKES)} のどれか）")


def _probs(probs) -> np.ndarray:
    p = as_matrix(probs, "予測の確率", ndim=1)                          # (K,)
    if (p < 0).any() or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"予測の確率は 0 以上で合計 1 が必要です（合計 {p.sum():.4g}）。")
    return p


def _cross_entropy(q: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The terms −q_k ln p_k (a term with q_k = 0 is 0; p_k = 0 under q_k > 0 is refused)."""
    if ((p == 0) & (q > 0)).any():
        raise ValueError("目標の確率が正の語に、予測の確率 0 があります（ln 0 = −∞ で損失が無限大）。")
    safe = np.where(q > 0, p, 1.0)                                    # (K,) ln 1 = 0 where q_k = 0
    return -q * np.log(safe)                                          # (K,)


@dataclass(frozen=True)
class SmoothedLoss:
    """Cross-entropy against the smoothed target, with what the hand calculation shows."""
    probs: np.ndarray       # (K,) the model's prediction p
    target: np.ndarray      # (K,) q = (1 − ε) onehot + ε/K
    surprisal: np.ndarray   # (K,) −ln p_k
    terms: np.ndarray       # (K,) −q_k ln p_k
    loss: float             # Σ terms
    one_hot_loss: float     # −ln p_answer (no smoothing)
    floor: float            # H(q) = −Σ q ln q: the smallest loss any prediction can reach (at p = q)


def smoothed_cross_entropy(probs, target: int, eps: float = PAPER_LABEL_SMOOTHING) -> SmoothedLoss:
    """L = −Σ_k q_k ln p_k with q = smoothed_target(K, target, ε); also −ln p_target and H(q)."""
    p = _probs(probs)                                                 # (K,)
    q = smoothed_target(p.size, target, eps)                          # (K,)
    terms = _cross_entropy(q, p)                                      # (K,)
    floor = float(_cross_entropy(q, q).sum())
    one_hot = float(_cross_entropy(np.eye(p.size)[int(target)], p).sum())
    surprisal = -np.log(np.where(p > 0, p, np.nan))                   # (K,) NaN where p_k = 0 (−ln 0 = ∞)
    return SmoothedLoss(p, q, surprisal, terms, float(terms.sum()), one_hot, floor)


SMOOTHED_CE_MISTAKES = ("no_smoothing", "answer_term_only") + SMOOTHING_MISTAKES


def smoothed_ce_mistake(probs, target: int, eps: float, mistake: str | None = None) -> float:
    """The smoothed cross-entropy (None) or a named mistake: "no_smoothing" (−ln p_target),
    "answer_term_only" (only the answer's term −q_target ln p_target), or the cross-entropy
    against one of the mistaken targets of :func:`smoothed_target_mistake`."""
    p = _probs(probs)
    if mistake is None:
        return smoothed_cross_entropy(p, target, eps).loss
    if mistake == "no_smoothing":
        return smoothed_cross_entropy(p, target, eps).one_hot_loss
    if mistake == "answer_term_only":
        return float(smoothed_cross_entropy(p, target, eps).terms[int(target)])
    if mistake in SMOOTHING_MISTAKES:
        return float(_cross_entropy(smoothed_target_mistake(p.size, target, eps, mistake), p).sum())
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(SMOOTHED_CE_MISTAKES)} のどれか）")


@dataclass(frozen=True)
class LossCurve:
    """Both losses as the probability on the answer goes from near 0 to near 1 (the rest shared
    evenly by the other K − 1 classes)."""
    p_answer: np.ndarray      # (n,)
    one_hot: np.ndarray       # (n,) −ln p_answer: keeps falling towards 0 as p_answer → 1
    smoothed: np.ndarray      # (n,) −Σ q ln p: smallest at p_answer = q_answer, rises again after it
    best_p: float             # q_answer = 1 − ε + ε/K
    best_loss: float          # H(q)


def smoothing_loss_curve(n_classes: int = 5, eps: float = PAPER_LABEL_SMOOTHING, n_points: int = 99) -> LossCurve:
    """The one-hot and the smoothed cross-entropy against the probability the model puts on the
    answer (p_answer = 0.01 … 0.99, the rest split evenly): where each is smallest."""
    k, _ = _check_class(n_classes, 0)
    e = _check_eps_ls(eps)
    n = positive_int(n_points, "点の数")
    pa = np.linspace(0.01, 0.99, max(n, 2))                           # (n,)
    rest = (1.0 - pa) / (k - 1)                                       # (n,) each other class
    q = smoothed_target(k, 0, e)                                      # (K,)
    smoothed = -q[0] * np.log(pa) - (1.0 - q[0]) * np.log(rest)       # (n,)
    best = float(q[0])
    floor = float(_cross_entropy(q, q).sum())
    return LossCurve(pa, -np.log(pa), smoothed, best, floor)


# ---------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------
def _check_rate(p) -> float:
    r = float(p)
    if not 0.0 <= r < 1.0:
        raise ValueError(f"ドロップアウトの率 p は 0 以上 1 未満が必要です（{p!r}）。p = 1 ではすべてが落ちます。")
    return r


@dataclass(frozen=True)
class DropoutResult:
    """Inverted dropout of x: which entries were kept, the factor on the kept ones, the output."""
    x: np.ndarray          # (...) the input (not modified)
    keep: np.ndarray       # (...) bool, True = kept (all True at inference)
    scale: float           # 1/(1 − p) in training, 1 at inference
    output: np.ndarray     # (...) x ⊙ keep · scale
    rate: float            # p
    training: bool

    @property
    def keep_rate(self) -> float:
        """1 − p: the probability that an entry is kept in training."""
        return 1.0 - self.rate


def dropout_with_mask(x, keep, p: float) -> DropoutResult:
    """Training-time inverted dropout with a given mask (True = kept): y = x ⊙ m / (1 − p)."""
    xs = as_matrix(x, "ドロップアウトの入力")                          # (...)
    r = _check_rate(p)
    m = np.asarray(keep)
    if m.shape != xs.shape or m.dtype != bool:
        raise ValueError(f"マスクは入力と同じ形 {xs.shape} の真偽値が必要です（形 {m.shape}）。")
    scale = 1.0 / (1.0 - r)
    return DropoutResult(xs, m.copy(), scale, np.where(m, xs * scale, 0.0), r, True)


def dropout(x, p: float = PAPER_P_DROP, rng: np.random.Generator | None = None, *,
            training: bool = True) -> DropoutResult:
    """Inverted dropout: in training each entry is kept with probability 1 − p (drawn from
    ``rng``) and the kept ones are multiplied by 1/(1 − p), so that E[output] = x; at inference
    (training=False) the output is x itself and no random number is drawn."""
    xs = as_matrix(x, "ドロップアウトの入力")                          # (...)
    r = _check_rate(p)
    if not training:
        return DropoutResult(xs, np.ones(xs.shape, dtype=bool), 1.0, xs.copy(), r, False)
    keep = check_rng(rng).random(xs.shape) >= r                       # (...) kept with probability 1 − p
    return dropout_with_mask(xs, keep, r)


DROPOUT_MISTAKES = ("no_rescale", "times_keep", "divide_by_p")
INFERENCE_MISTAKES = ("shrunk_at_inference", "scaled_at_inference", "dropped_at_inference")


def dropout_mistake(x, keep, p: float, mistake: str | None = None, *, training: bool = True) -> np.ndarray:
    """Dropout's output by the rule (None) or a named mistake.

    Training (the mask ``keep`` applied): "no_rescale" x ⊙ m (1/(1 − p) forgotten),
    "times_keep" x ⊙ m · (1 − p) (multiplied instead of divided), "divide_by_p" x ⊙ m / p.
    Inference (training=False; the rule is y = x): "shrunk_at_inference" x · (1 − p) (the original,
    non-inverted dropout's test-time scaling), "scaled_at_inference" x / (1 − p),
    "dropped_at_inference" x ⊙ m / (1 − p) (the training rule at inference)."""
    res = dropout_with_mask(x, keep, p)
    xs, m, r = res.x, res.keep, res.rate
    if training:
        table = {None: res.output, "no_rescale": np.where(m, xs, 0.0), "times_keep": np.where(m, xs * (1.0 - r), 0.0),
                 "divide_by_p": np.where(m, xs / r, 0.0) if r > 0 else None}
    else:
        table = {None: xs.copy(), "shrunk_at_inference": xs * (1.0 - r), "scaled_at_inference": xs / (1.0 - r),
                 "dropped_at_inference": res.output}
    if mistake not in table or table[mistake] is None:
        raise ValueError(f"未知の誤り {mistake!r}（{', '.join(DROPOUT_MISTAKES + INFERENCE_MISTAKES)} のどれか）")
    return table[mistake]


def dropout_average(x, p: float, rng: np.random.Generator, n_draws: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """The mean over ``n_draws`` independent dropout masks of (inverted output, output without
    1/(1 − p)): the first stays near x, the second near (1 − p) · x. → ((...), (...))."""
    xs = as_matrix(x, "ドロップアウトの入力")                          # (...)
    r = _check_rate(p)
    n = positive_int(n_draws, "回数")
    keep = check_rng(rng).random((n,) + xs.shape) >= r                # (n, ...)
    kept_mean = keep.mean(axis=0)                                     # (...) share of draws that kept each entry
    return xs * kept_mean / (1.0 - r), xs * kept_mean


@dataclass(frozen=True)
class ResidualDropoutResult:
    """LayerNorm(x + Dropout(Sublayer(x))): the paper's sub-layer with its dropout."""
    dropped: DropoutResult      # Dropout(Sublayer(x))
    residual_sum: np.ndarray    # (n, d) x + Dropout(Sublayer(x))
    output: np.ndarray          # (n, d) LayerNorm of the sum


def residual_dropout(x, sublayer_out, p: float = PAPER_P_DROP, rng: np.random.Generator | None = None, *,
                     training: bool = True, eps: float = 1e-5) -> ResidualDropoutResult:
    """The paper's residual dropout: the sub-layer's output is dropped BEFORE it is added to the
    input and normalised — LayerNorm(x + Dropout(Sublayer(x))); the input x is never dropped."""
    xs = as_matrix(x, "入力 x")                                        # (n, d)
    f = as_matrix(sublayer_out, "サブレイヤーの出力")                   # (n, d)
    if f.shape != xs.shape:
        raise ValueError(f"サブレイヤーの出力の形 {f.shape} が入力の形 {xs.shape} と違います。")
    dropped = dropout(f, p, rng, training=training)
    s = xs + dropped.output                                           # (n, d)
    return ResidualDropoutResult(dropped, s, layer_norm_steps(s, eps).output)
