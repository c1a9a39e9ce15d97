"""Slimming a trained model: knowledge distillation (soft targets softmax(z / T), the soft loss
scaled by T²), quantization (symmetric and affine int-b: scale, zero point, the integers, what
they stand for, the error; the memory of the weights at b bits) and magnitude pruning (the
smallest |w| set to zero; the lottery ticket's rewind to the initial weights) — with the named
mistakes next to each formula."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..core import as_matrix, positive_int, softmax

# ---------------------------------------------------------------------------
# knowledge distillation (Hinton, Vinyals & Dean 2015)
# ---------------------------------------------------------------------------
DEMO_TEACHER = (4.0, 2.0, 0.0)          # a teacher's logits for three classes (猫・犬・車)
DEMO_STUDENT = (2.0, 2.0, 0.0)          # the student's logits: cat and dog not yet told apart
DEMO_CLASSES = ("猫", "犬", "車")
DEMO_TEMPERATURES = (1.0, 2.0, 4.0)
DEMO_ALPHA = 0.9                          # our example's weight of the soft term (the paper fixes none)


def _temperature(t) -> float:
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise ValueError(f"温度 T は正の数にしてください（{t!r}）。") from None
    if not math.isfinite(t) or t <= 0 or t > 1000:
        raise ValueError(f"温度 T は 0 より大きく 1,000 以下の数にしてください（T = {t}）。")
    return t


def _logits(z, name: str = "ロジット") -> np.ndarray:
    z = as_matrix(z, name, ndim=1)
    if z.size < 2:
        raise ValueError(f"{name}は 2 クラス以上必要です（{z.size} 個）。")
    if np.abs(z).max() > 1000:
        raise ValueError(f"{name}の絶対値は 1,000 以下にしてください。")
    return z


@dataclass(frozen=True)
class SoftTargets:
    logits: np.ndarray          # (k,) z
    temperature: float          # T
    scaled: np.ndarray          # (k,) z / T
    probs: np.ndarray           # (k,) softmax(z / T): sums to 1, flatter as T grows

    @property
    def exps(self) -> np.ndarray:
        """(k,) e^{z/T} as written by hand (the probabilities are these over their sum)."""
        with np.errstate(over="ignore"):
            return np.exp(self.scaled)

    @property
    def exp_sum(self) -> float:
        return float(self.exps.sum())


def soft_targets(logits, temperature) -> SoftTargets:
    """softmax(z / T): T = 1 is the ordinary softmax; a larger T keeps the order of the classes
    but lifts the small probabilities (the 'dark knowledge' of how alike the wrong classes are)."""
    z, t = _logits(logits), _temperature(temperature)
    scaled = z / t                                                     # (k,)
    return SoftTargets(z, t, scaled, softmax(scaled))


CURVE_TEMPERATURES = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 20.0)


def soft_target_curve(logits, temperatures=CURVE_TEMPERATURES) -> np.ndarray:
    """(k, n_T): softmax(z / T) for each temperature (a column per T), for a plot of how the soft
    targets flatten towards 1/k as T grows."""
    return np.stack([soft_targets(logits, t).probs for t in temperatures], axis=1)


def logits_for(bases, temperature) -> np.ndarray:
    """Logits z_i = T · ln m_i (m_i > 0): their soft targets at T are m_i / Σ m exactly, which makes
    a softmax at temperature T a sum of whole numbers (hand-calculable items)."""
    m, t = as_matrix(bases, "比の値 m", ndim=1), _temperature(temperature)
    if (m <= 0).any():
        raise ValueError("比の値 m はすべて正の数にしてください。")
    return t * np.log(m)


def soft_targets_undivided(logits, temperature) -> np.ndarray:
    """MISTAKE: the logits not divided by T (the ordinary softmax, T = 1, whatever T says)."""
    _temperature(temperature)
    return softmax(_logits(logits))


def soft_targets_multiplied(logits, temperature) -> np.ndarray:
    """MISTAKE: the logits multiplied by T: softmax(z·T) is sharper, not softer."""
    return softmax(_logits(logits) * _temperature(temperature))


def soft_targets_divided_after(logits, temperature) -> np.ndarray:
    """MISTAKE: the ordinary softmax divided by T afterwards (no longer sums to 1)."""
    return softmax(_logits(logits)) / _temperature(temperature)


def _distribution(p, name: str) -> np.ndarray:
    p = as_matrix(p, name, ndim=1)
    if (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name}は 0 以上で、合計が 1 の確率にしてください（合計 {p.sum():.4g}）。")
    return p


def soft_cross_entropy(p, q) -> float:
    """H(p, q) = −Σ p_i log q_i: the cross-entropy of the student's q against the targets p
    (natural log). Both are distributions over the same classes; q_i > 0 where p_i > 0."""
    p, q = _distribution(p, "目標の確率 p"), _distribution(q, "生徒の確率 q")
    if p.shape != q.shape:
        raise ValueError(f"p と q のクラスの数が違います（{p.size} と {q.size}）。")
    if ((q == 0) & (p > 0)).any():
        raise ValueError("p が正のクラスで q が 0 です（log 0 になり、交差エントロピーが無限大）。")
    keep = p > 0                                                        # 0 · log q = 0
    return float(-(p[keep] * np.log(q[keep])).sum())


def soft_term(p, q, temperature) -> float:
    """The soft part of the distillation loss: T² · H(p, q), both softened at the same T.
    Its gradients shrink as 1/T², so the paper multiplies by T² to keep the soft and the hard
    parts in proportion when T changes."""
    t = _temperature(temperature)
    return t * t * soft_cross_entropy(p, q)


def soft_term_no_t2(p, q, temperature) -> float:
    """MISTAKE: T² left out (only H(p, q))."""
    _temperature(temperature)
    return soft_cross_entropy(p, q)


def soft_term_t_once(p, q, temperature) -> float:
    """MISTAKE: multiplied by T, not T²."""
    return _temperature(temperature) * soft_cross_entropy(p, q)


def soft_term_divided(p, q, temperature) -> float:
    """MISTAKE: divided by T² instead of multiplied."""
    t = _temperature(temperature)
    return soft_cross_entropy(p, q) / (t * t)


def soft_term_swapped(p, q, temperature) -> float:
    """MISTAKE: the two distributions swapped, T² · H(q, p) = −T² Σ q log p."""
    t = _temperature(temperature)
    return t * t * soft_cross_entropy(q, p)


def as_ln2_multiple(x: float) -> Fraction:
    """x = c · ln 2 with c a fraction of denominator ≤ 256 (for losses of power-of-two
    probabilities, which are exact multiples of ln 2); ValueError when x is not one."""
    c = Fraction(float(x) / math.log(2)).limit_denominator(256)
    if abs(float(c) * math.log(2) - float(x)) > 1e-9:
        raise ValueError(f"{x} は ln 2 の分数倍ではありません。")
    return c


@dataclass(frozen=True)
class DistillLoss:
    temperature: float
    teacher: SoftTargets        # p = softmax(v / T), the soft targets
    student: SoftTargets        # q = softmax(z / T), the student at the same T
    soft_ce: float              # H(p, q)
    soft: float                 # T² · H(p, q)
    label: int                  # the true class (0-based)
    hard_probs: np.ndarray      # (k,) softmax(z): the student at T = 1
    hard: float                 # −log softmax(z)[label]
    alpha: float                # weight of the soft part
    total: float                # α · T² H(p, q) + (1 − α) · hard

    @property
    def t2(self) -> float:
        """T², the factor of the soft part."""
        return self.temperature ** 2


def distillation_loss(teacher_logits, student_logits, temperature, label: int = 0,
                      alpha: float = DEMO_ALPHA) -> DistillLoss:
    """The student's loss: α · T² · H(softmax(v/T), softmax(z/T)) + (1 − α) · H(label, softmax(z)).
    The soft targets use the same high T for teacher and student; the hard part, T = 1."""
    teacher, student = soft_targets(teacher_logits, temperature), soft_targets(student_logits, temperature)
    if teacher.logits.shape != student.logits.shape:
        raise ValueError(f"教師と生徒のクラスの数が違います（{teacher.logits.size} と {student.logits.size}）。")
    k = teacher.logits.size
    if isinstance(label, bool) or not isinstance(label, (int, np.integer)) or not 0 <= label < k:
        raise ValueError(f"正解のクラスは 0 〜 {k - 1} の番号にしてください（{label!r}）。")
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"重み α は 0 以上 1 以下にしてください（α = {alpha}）。")
    ce = soft_cross_entropy(teacher.probs, student.probs)
    hard_probs = softmax(student.logits)                                # (k,) T = 1
    hard = float(-np.log(hard_probs[int(label)]))
    soft = teacher.temperature ** 2 * ce
    return DistillLoss(teacher.temperature, teacher, student, ce, soft, int(label), hard_probs, hard, a,
                       a * soft + (1.0 - a) * hard)


# ---------------------------------------------------------------------------
# quantization (uniform, int-b): Jacob et al. 2017, r = S (q − Z)
# ---------------------------------------------------------------------------
DEMO_WEIGHTS = (0.5, -1.27, 0.834, -0.316)   # max |w| = 1.27 → S = 0.01 at 8 bits (127 steps)
BITS = (32, 16, 8, 4)
GB = 10 ** 9                                  # weights' memory in GB (10⁹ bytes), as model sizes are quoted


def _bits(bits) -> int:
    b = positive_int(bits, "ビット数")
    if not 2 <= b <= 16:
        raise ValueError(f"量子化のビット数は 2 〜 16 にしてください（{b}）。")
    return b


def round_half_away(v) -> np.ndarray:
    """四捨五入 to whole numbers, halves away from zero (2.5 → 3, −2.5 → −3), as by hand."""
    v = np.asarray(v, dtype=np.float64)
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


@dataclass(frozen=True)
class Quantized:
    x: np.ndarray               # (n,) the real values
    bits: int
    symmetric: bool             # True: Z = 0, integers −(2^{b−1}−1) … 2^{b−1}−1; False: 0 … 2^b − 1
    qmin: int
    qmax: int
    scale: float                # S: the real step between two integers
    zero_point: int             # Z: the integer that stands for the real 0
    steps: np.ndarray           # (n,) x / S + Z before rounding
    q: np.ndarray               # (n,) the stored integers (as float64 whole numbers)
    dequantized: np.ndarray     # (n,) S (q − Z)
    error: np.ndarray           # (n,) x − S (q − Z)

    @property
    def max_error(self) -> float:
        return float(self.abs_error.max())

    @property
    def abs_error(self) -> np.ndarray:
        """(n,) |x − S (q − Z)|."""
        return np.abs(self.error)

    @property
    def half_step(self) -> float:
        """S / 2: the largest error rounding can make (inside the range)."""
        return self.scale / 2

    @property
    def absmax(self) -> float:
        """max |x|: the value the symmetric scale is set from."""
        return float(np.abs(self.x).max())


def _values(x) -> np.ndarray:
    x = as_matrix(x, "量子化する値", ndim=1)
    if x.size > 64:
        raise ValueError(f"量子化する値は 64 個までにしてください（{x.size} 個）。")
    if np.abs(x).max() > 1e6:
        raise ValueError("量子化する値の絶対値は 1,000,000 以下にしてください。")
    if not np.abs(x).max() > 0:
        raise ValueError("すべての値が 0 です。0 でない値を 1 つ以上入れてください（スケールが決まりません）。")
    return x


def quantize(x, bits: int = 8, *, symmetric: bool = True) -> Quantized:
    """Uniform quantization of a vector to b-bit integers.

    symmetric (absmax): qmax = 2^{b−1} − 1, S = max|x| / qmax, Z = 0, q = round(x / S);
    affine: the range [min(x, 0), max(x, 0)] onto 0 … 2^b − 1, S = (max − min) / (2^b − 1),
    Z = round(−min / S), q = clip(round(x / S) + Z, 0, 2^b − 1). Both: x̂ = S (q − Z), and
    |x − x̂| ≤ S / 2. Rounding is 四捨五入 (halves away from zero)."""
    x, b = _values(x), _bits(bits)
    if symmetric:
        qmin, qmax = -(2 ** (b - 1) - 1), 2 ** (b - 1) - 1
        scale, zero = float(np.abs(x).max()) / qmax, 0
    else:
        lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)     # the real 0 must be representable
        qmin, qmax = 0, 2 ** b - 1
        scale = (hi - lo) / qmax
        zero = int(np.clip(round_half_away(-lo / scale), qmin, qmax))
    steps = x / scale + zero                                            # (n,)
    q = np.clip(round_half_away(steps), qmin, qmax)                     # (n,) Z is whole: round(x/S) + Z
    back = scale * (q - zero)                                           # (n,)
    return Quantized(x, b, symmetric, qmin, qmax, scale, zero, steps, q, back, x - back)


def quantize_truncated(x, bits: int = 8) -> Quantized:
    """MISTAKE (symmetric): x / S cut toward zero instead of rounded (37.8 → 37): errors up to a
    whole step S instead of S / 2."""
    r = quantize(x, bits)
    q = np.trunc(r.steps)                                               # (n,)
    return Quantized(r.x, r.bits, True, r.qmin, r.qmax, r.scale, 0, r.steps, q, r.scale * q, r.x - r.scale * q)


def scale_power_of_two(x, bits: int = 8) -> float:
    """MISTAKE (symmetric): max|x| divided by 2^{b−1} (128 at 8 bits) — but the largest integer
    of the symmetric range is 2^{b−1} − 1 = 127."""
    return float(np.abs(_values(x)).max()) / 2 ** (_bits(bits) - 1)


def scale_unsigned_steps(x, bits: int = 8) -> float:
    """MISTAKE (symmetric): max|x| divided by 2^b − 1 (255 at 8 bits), the steps of the unsigned
    range, although the symmetric range spends half of them on negative values."""
    return float(np.abs(_values(x)).max()) / (2 ** _bits(bits) - 1)


ERROR_BITS = (2, 3, 4, 5, 6, 7, 8)


def quant_error_curve(x, bits=ERROR_BITS, *, symmetric: bool = True) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(max |x − x̂| at each bit width, the bound S / 2 at each), for a plot: one bit more halves
    the step (about)."""
    runs = [quantize(x, b, symmetric=symmetric) for b in bits]
    return tuple(r.max_error for r in runs), tuple(r.scale / 2 for r in runs)


def _params(n) -> int:
    n = positive_int(n, "パラメータ数")
    if n > 10 ** 13:
        raise ValueError("パラメータ数は 10 兆以下にしてください。")
    return n


def _stored_bits(bits) -> int:
    b = positive_int(bits, "1 パラメータのビット数")
    if b > 64:
        raise ValueError(f"1 パラメータのビット数は 64 以下にしてください（{b}）。")
    return b


def weight_bytes(n_params, bits) -> float:
    """The weights' memory: N parameters × b bits / 8 bits per byte (7×10⁹ at 16 bits: 1.4×10¹⁰ B)."""
    return _params(n_params) * _stored_bits(bits) / 8


def weight_bytes_bits_as_bytes(n_params, bits) -> float:
    """MISTAKE: b bits counted as b bytes (8 times too much)."""
    return float(_params(n_params) * _stored_bits(bits))


def weight_bytes_ratio_inverted(n_params, bits, from_bits) -> float:
    """MISTAKE: the memory at ``from_bits`` multiplied by from_bits / b (the saving turned into
    growth) instead of b / from_bits."""
    return weight_bytes(n_params, from_bits) * _stored_bits(from_bits) / _stored_bits(bits)


def in_gb(nbytes: float) -> float:
    """Bytes in GB (10⁹ bytes), as the sizes of models are quoted: 1.4×10¹⁰ → 14."""
    return float(nbytes) / GB


def memory_table(n_params, bits=BITS) -> tuple[tuple[int, float], ...]:
    """((b, bytes at b bits), …) for one model."""
    return tuple((int(b), weight_bytes(n_params, b)) for b in bits)


# ---------------------------------------------------------------------------
# pruning by magnitude (Han et al. 2015) and the lottery ticket (Frankle & Carbin 2018)
# ---------------------------------------------------------------------------
SPARSITY_STEPS = tuple(k / 20 for k in range(21))     # 0, 0.05, …, 1: the slider's shares
DEMO_MATRIX = ((0.8, -0.05, 0.3, -0.6), (0.02, -0.9, 0.15, 0.4), (-0.25, 0.07, 0.5, -0.1))
DEMO_INIT = ((0.3, 0.2, -0.1, -0.4), (-0.2, -0.5, 0.1, 0.3), (-0.3, 0.4, 0.2, 0.1))   # before training


def _sparsity(s) -> float:
    try:
        s = float(s)
    except (TypeError, ValueError):
        raise ValueError(f"削る割合は 0 以上 1 以下の数にしてください（{s!r}）。") from None
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"削る割合は 0 以上 1 以下の数にしてください（{s}）。")
    return s


def _weights(w) -> np.ndarray:
    w = as_matrix(w, "重み", ndim=(1, 2))
    if w.size > 400:
        raise ValueError(f"重みは 400 個までにしてください（{w.size} 個）。")
    return w


def prune_count(size: int, sparsity) -> int:
    """How many of ``size`` weights are removed at sparsity s: s·size rounded half up."""
    return int(math.floor(_sparsity(sparsity) * positive_int(size, "重みの数") + 0.5 + 1e-9))


@dataclass(frozen=True)
class Pruned:
    weights: np.ndarray         # the trained weights (any shape)
    sparsity: float             # s: the share removed
    removed: int                # round(s · size)
    keep: np.ndarray            # bool, same shape: True = kept
    pruned: np.ndarray          # weights ⊙ keep
    threshold: float | None     # the largest |w| removed (None when none is)

    @property
    def kept(self) -> int:
        return int(self.keep.sum())


def _pruned(w: np.ndarray, s: float, order: np.ndarray) -> Pruned:
    k = prune_count(w.size, s)
    keep = np.ones(w.size, dtype=bool)
    keep[order[:k]] = False                                             # the first k in ``order`` go
    keep = keep.reshape(w.shape)
    removed = np.abs(w[~keep])
    return Pruned(w, s, k, keep, np.where(keep, w, 0.0), float(removed.max()) if k else None)


def magnitude_prune(weights, sparsity) -> Pruned:
    """Set the share s of the weights with the smallest |w| to zero (ties: the earlier position,
    reading row by row, goes first); the rest keep their values."""
    w, s = _weights(weights), _sparsity(sparsity)
    return _pruned(w, s, np.argsort(np.abs(w).ravel(), kind="stable"))


def prune_signed(weights, sparsity) -> Pruned:
    """MISTAKE: the smallest signed values removed (−0.9 before 0.02): large negative weights go."""
    w, s = _weights(weights), _sparsity(sparsity)
    return _pruned(w, s, np.argsort(w.ravel(), kind="stable"))


def prune_largest(weights, sparsity) -> Pruned:
    """MISTAKE: the largest |w| removed (the most important connections)."""
    w, s = _weights(weights), _sparsity(sparsity)
    return _pruned(w, s, np.argsort(-np.abs(w).ravel(), kind="stable"))


def prune_kept_share(weights, sparsity) -> Pruned:
    """MISTAKE: s read as the share kept, so 1 − s is removed."""
    w, s = _weights(weights), _sparsity(sparsity)
    return _pruned(w, 1.0 - s, np.argsort(np.abs(w).ravel(), kind="stable"))


@dataclass(frozen=True)
class Ticket:
    keep: np.ndarray            # bool: the mask found by pruning the TRAINED weights
    initial: np.ndarray         # the weights before training
    ticket: np.ndarray          # initial ⊙ keep: the subnetwork that is trained again from here


def winning_ticket(initial, trained, sparsity) -> Ticket:
    """One round of the lottery-ticket procedure: prune the trained weights by magnitude, then
    rewind the surviving ones to their values before training (not to new random values)."""
    w0, w = _weights(initial), _weights(trained)
    if w0.shape != w.shape:
        raise ValueError(f"学習前と学習後の重みの形が違います（{w0.shape} と {w.shape}）。")
    keep = magnitude_prune(w, sparsity).keep
    return Ticket(keep, w0, np.where(keep, w0, 0.0))
