"""The hand-calculation stepper: every element of a matrix product, a softmax row and a
weighted sum, expanded the way a learner writes it on paper.

    q_{11} = 1×0 + 0×0 + 1×2 + 0×1 = 2
    a_{11} = e^{2.828} / (e^{2.828} + e^{1.414} + e^{1.414}) = 16.912 / 25.136 = 0.673
    z_1   = 0.673·v_1 + 0.164·v_2 + 0.164·v_3 = (1.510, 0.492)

Two modes:
- exact (``decimals=None``): results are numpy's own products / softmax;
- pencil (``decimals=k``): before a step uses an INPUT matrix it is rounded to k decimals,
  and the step writes its result rounded to k decimals, as a person with a pencil does
  (the seed rounds the weights to 3 decimals and then multiplies by V: Z_猫 = (1.510, 0.492),
  while the exact value is (1.5093, 0.4907)). √d_k itself is never rounded: it is not an
  input matrix, and the scaled scores are written rounded anyway.

Every record is a frozen dataclass that carries the numbers (terms, result) AND a ready
LaTeX string, so ui/handcalc.py only lays them out. One token per row, weights on the right.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import numfmt
from .core import as_matrix

__all__ = [
    "EXACT_DIGITS",
    "pencil_round",
    "latex_number",
    "ElementStep",
    "MatrixSteps",
    "SoftmaxRowStep",
    "SoftmaxSteps",
    "WeightedSumStep",
    "HandCalculation",
    "matmul_steps",
    "scale_steps",
    "softmax_row_step",
    "softmax_steps",
    "weighted_sum_steps",
    "AttentionSteps",
    "attention_steps",
    "naive_steps",
    "hand_calculation",
]
EXACT_DIGITS = 4        # how many decimals exact mode prints (1.5093)
_MAX_DECIMALS = 12
_EXP_DISPLAY_MAX = 30.0  # e^{s} printed as is up to s = 30; larger rows print e^{s − max}


# ---------------------------------------------------------------------------
# rounding and printing
# ---------------------------------------------------------------------------
def _check_decimals(decimals) -> int | None:
    if decimals is None:
        return None
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise ValueError(f"丸める桁数 decimals は整数で指定してください（{decimals!r}）。")
    decimals = int(decimals)
    if not 1 <= decimals <= _MAX_DECIMALS:
        raise ValueError(f"丸める桁数 decimals は 1 以上 {_MAX_DECIMALS} 以下です（{decimals}）。")
    return decimals


def pencil_round(x, decimals: int | None):
    """x rounded to ``decimals`` places as a person does it (None → x unchanged, as float64):
    tutor.numfmt.round_half_up, the rule every shown number follows (0.1635 → 0.164).

    Works on scalars and arrays; −∞ stays −∞ (masked scores).
    """
    decimals = _check_decimals(decimals)
    arr = np.asarray(x, dtype=np.float64)
    if decimals is None:
        return float(arr) if arr.ndim == 0 else arr.copy()
    out = np.vectorize(lambda v: numfmt.round_half_up(v, decimals), otypes=[np.float64])(arr)
    return float(out) if arr.ndim == 0 else out


def _is_integer(x: float) -> bool:
    return math.isfinite(x) and abs(x) < 1e15 and float(x).is_integer()


def latex_number(x: float, digits: int, *, as_integer: bool | None = None, paren: bool = False,
                 sci_below: float | None = None) -> str:
    """A number as the stepper prints it in LaTeX.

    Integers print without decimals (2), others with ``digits`` fixed decimals (0.490);
    tiny non-zero values in scientific form (when the fixed form would read 0: 4.54\\times 10^{-5};
    with ``sci_below``, every value below it, with 2 significant digits as ui.validate.format_tiny
    writes it: 4.5\\times 10^{-5}); −∞ as -\\infty. ``paren`` wraps negatives
    in parentheses (for a factor inside a sum: 1\\times (-1)).
    """
    x = float(x)
    if x == -math.inf:
        text = r"-\infty"
    elif x == math.inf:
        text = r"\infty"
    else:
        integer = _is_integer(x) if as_integer is None else as_integer
        if integer and _is_integer(x):
            text = str(int(x))
        elif x != 0 and abs(x) < (0.5 * 10.0 ** (-digits) if sci_below is None else sci_below):
            text = numfmt.sci(x, 2 if sci_below is None else 1, tex=True)
        else:
            text = numfmt.fixed(x, digits)
    if paren and text.startswith("-"):
        text = f"({text})"
    return text


def _rel(true_value: float, text: str) -> str:
    """"=" when the printed number is the true value, "\\approx" when it was rounded."""
    try:
        shown, value = float(text), float(true_value)
        return "=" if abs(shown - value) <= 1e-9 * max(1.0, abs(value)) else r"\approx"
    except ValueError:  # scientific or ∞ text
        return r"\approx"


def _frozen(a) -> np.ndarray:
    arr = np.array(a, dtype=np.float64)
    arr.flags.writeable = False
    return arr


# ---------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ElementStep:
    """One element written out: ``label = expression = result``.

    op = "dot":     terms are the (a, b) pairs of Σ a·b          (q_{11} = 1×0 + 0×0 + 1×2 + 0×1)
    op = "divide":  terms = ((numerator, divisor),)              (s̃_{11} = 4 / √2)
    op = "softmax": terms = ((e^{s_ij}, Σ_k e^{s_ik}),)          (a_{11} = 16.912 / 25.136)
    """
    label: str                                   # LaTeX, e.g. "q_{11}"
    row: int                                     # 0-based position in its matrix
    col: int
    op: str
    terms: tuple[tuple[float, float], ...]
    expression: str                              # LaTeX of the expansion
    result: float
    latex: str                                   # "label = expression = result"
    parts: tuple[str, ...] = ()                  # the expression's pieces (terms), for line breaking
    tail: str = ""                               # "= 2" / "\\approx 0.673": relation and result


@dataclass(frozen=True, eq=False)
class MatrixSteps:
    """Every element of one matrix of the calculation (a product or a division by √d_k)."""
    name: str                                    # LaTeX name of the matrix, e.g. "Q"
    formula: str                                 # LaTeX, e.g. "Q = X W_Q"
    elements: tuple[tuple[ElementStep, ...], ...]  # (n_rows, n_cols)
    result: np.ndarray                           # (n_rows, n_cols), read-only
    decimals: int | None
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    note: str = ""                               # LaTeX shown before the elements (√2 ≈ 1.414)

    @property
    def flat(self) -> tuple[ElementStep, ...]:
        return tuple(e for row in self.elements for e in row)


@dataclass(frozen=True, eq=False)
class SoftmaxRowStep:
    """One row of softmax written out: exponentials, their sum, each weight."""
    row: int
    label: str                                   # row label (token), plain text
    scores: tuple[float, ...]                    # the row used (rounded in pencil mode)
    shift: float                                 # 0, or the row max when e^{s} would be unreadable
    exps: tuple[float, ...]                      # e^{s_j − shift} (rounded in pencil mode)
    total: float                                 # Σ exps (rounded in pencil mode)
    weights: tuple[float, ...]                   # exps / total (rounded in pencil mode)
    elements: tuple[ElementStep, ...]            # a_{i1} … a_{in}
    exp_latex: str                               # "e^{2.828} = 16.912,\ e^{1.414} = 4.112, …"
    total_latex: str                             # "16.912 + 4.112 + 4.112 = 25.136"
    exp_parts: tuple[str, ...] = ()              # each "e^{2.828} \\approx 16.912"
    total_parts: tuple[str, ...] = ()            # the exponentials being added
    total_tail: str = ""                         # "= 25.136"


@dataclass(frozen=True, eq=False)
class SoftmaxSteps:
    name: str
    formula: str
    rows: tuple[SoftmaxRowStep, ...]
    result: np.ndarray                           # (n_rows, n_cols), read-only
    decimals: int | None


@dataclass(frozen=True, eq=False)
class WeightedSumStep:
    """One output row as a weighted sum of value rows: z_i = Σ_j a_ij v_j."""
    row: int
    label: str                                   # LaTeX, e.g. "\\mathbf{z}_{1}"
    weights: tuple[float, ...]                   # a_i1 … a_in (as used)
    vectors: tuple[tuple[float, ...], ...]       # v_1 … v_n (as used)
    expression: str                              # "0.673\,(2, 0) + 0.164\,(0, 2) + …"
    result: tuple[float, ...]
    latex: str
    components: tuple[ElementStep, ...]          # z_{i1} … z_{id}
    parts: tuple[str, ...] = ()                  # each "0.673\\,(2, 0)"
    tail: str = ""                               # "= (1.510, 0.492)"


@dataclass(frozen=True, eq=False)
class HandCalculation:
    """The whole 8.6 chain: Q, K, V → QKᵀ → /√d_k → softmax rows → Z = AV."""
    decimals: int | None
    tokens: tuple[str, ...]
    x: np.ndarray                                # (n, d_model) as used
    d_k: int
    q: MatrixSteps                               # (n, d_k)
    k: MatrixSteps                               # (n, d_k)
    v: MatrixSteps                               # (n, d_v)
    scores: MatrixSteps                          # (n, n)  QKᵀ
    scaled: MatrixSteps                          # (n, n)  QKᵀ / √d_k
    softmax: SoftmaxSteps                        # (n, n)  A
    output: MatrixSteps                          # (n, d_v) Z = A V
    weighted_sums: tuple[WeightedSumStep, ...] = field(default=())

    @property
    def weights(self) -> np.ndarray:             # (n, n)
        return self.softmax.result

    @property
    def z(self) -> np.ndarray:                   # (n, d_v)
        return self.output.result

    @property
    def divisor(self) -> float:                  # √d_k (exact, never rounded)
        return math.sqrt(self.d_k)

    def shapes(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """(LaTeX symbol, shape) of every matrix, in the order of the calculation."""
        return (("X", self.x.shape), ("Q", self.q.result.shape), ("K", self.k.result.shape),
                ("V", self.v.result.shape), (r"QK^\top", self.scores.result.shape),
                (r"QK^\top/\sqrt{d_k}", self.scaled.result.shape), ("A", self.weights.shape),
                ("Z", self.z.shape))


# ---------------------------------------------------------------------------
# the three kinds of step
# ---------------------------------------------------------------------------
def _digits(decimals: int | None) -> int:
    return EXACT_DIGITS if decimals is None else decimals


def _labels(labels, n: int) -> tuple[str, ...]:
    if labels is None:
        return tuple(str(i + 1) for i in range(n))
    labels = tuple(str(s) for s in labels)
    if len(labels) != n:
        raise ValueError(f"ラベルの数 {len(labels)} が行数 {n} と一致しません。")
    return labels


def _sub(symbol: str, i: int, j: int) -> str:
    return f"{symbol}_{{{i + 1}{j + 1}}}" if max(i, j) < 9 else f"{symbol}_{{{i + 1},{j + 1}}}"


def matmul_steps(a, b, symbol: str, *, name: str | None = None, formula: str | None = None,
                 decimals: int | None = None, row_labels: Sequence[str] | None = None,
                 col_labels: Sequence[str] | None = None) -> MatrixSteps:
    """C = A·B with every element expanded: c_ij = Σ_t a_it · b_tj.

    a: (n, m), b: (m, p) → elements (n, p). Pencil mode rounds a and b to ``decimals``
    first and writes each c_ij rounded. Exact mode's result is numpy's a @ b.
    """
    decimals = _check_decimals(decimals)
    a = as_matrix(a, "左の行列", ndim=2)
    b = as_matrix(b, "右の行列", ndim=2)
    n, m = a.shape
    m2, p = b.shape
    if m != m2:
        raise ValueError(f"行列積ができません：左の行列（形 {a.shape}）の列数 {m} と右の行列（形 {b.shape}）の行数 {m2} が違います。")
    a = pencil_round(a, decimals)                                        # (n, m)
    b = pencil_round(b, decimals)                                        # (m, p)
    raw = a @ b                                                          # (n, p)
    result = pencil_round(raw, decimals)                                 # (n, p)
    digits = _digits(decimals)
    ints = bool(np.all([_is_integer(v) for v in a.ravel()]) and np.all([_is_integer(v) for v in b.ravel()]))
    rows = []
    for i in range(n):
        row = []
        for j in range(p):
            terms = tuple((float(a[i, t]), float(b[t, j])) for t in range(m))
            parts = tuple(rf"{latex_number(x, digits, paren=t > 0)}\times {latex_number(y, digits, paren=True)}"
                          for t, (x, y) in enumerate(terms))
            expression = " + ".join(parts)
            label = _sub(symbol, i, j)
            res = latex_number(result[i, j], digits, as_integer=ints)
            rel = _rel(raw[i, j], res)
            row.append(ElementStep(label, i, j, "dot", terms, expression, float(result[i, j]),
                                   f"{label} = {expression} {rel} {res}", parts, f"{rel} {res}"))
        rows.append(tuple(row))
    return MatrixSteps(name or symbol.upper(), formula or "", tuple(rows), _frozen(result), decimals,
                       _labels(row_labels, n), _labels(col_labels, p))


def scale_steps(s, d_k: int, *, symbol: str = r"\tilde{s}", name: str = r"QK^\top/\sqrt{d_k}",
                decimals: int | None = None, row_labels: Sequence[str] | None = None,
                col_labels: Sequence[str] | None = None) -> MatrixSteps:
    """S̃ = S / √d_k element by element (s̃_ij = s_ij / √d_k). s: (n_q, n_k).

    Pencil mode rounds S first and writes each s̃_ij rounded; √d_k stays exact and is
    printed symbolically (\\sqrt{2}), with its rounded value in ``note``.
    """
    decimals = _check_decimals(decimals)
    s = as_matrix(s, "スコア行列", ndim=2)
    d_k_int = int(d_k)
    if d_k_int != d_k or d_k_int < 1:
        raise ValueError(f"d_k は 1 以上の整数です（d_k = {d_k}）。")
    n, p = s.shape
    s = pencil_round(s, decimals)                                        # (n_q, n_k)
    divisor = math.sqrt(d_k_int)
    result = pencil_round(s / divisor, decimals)                         # (n_q, n_k)
    digits = _digits(decimals)
    root = str(int(divisor)) if _is_integer(divisor) else rf"\sqrt{{{d_k_int}}}"
    rows = []
    for i in range(n):
        row = []
        for j in range(p):
            label = _sub(symbol, i, j)
            expression = rf"\frac{{{latex_number(s[i, j], digits)}}}{{{root}}}"
            res = latex_number(result[i, j], digits)
            rel = _rel(s[i, j] / divisor, res)
            row.append(ElementStep(label, i, j, "divide", ((float(s[i, j]), divisor),), expression,
                                   float(result[i, j]), f"{label} = {expression} {rel} {res}", (expression,),
                                   f"{rel} {res}"))
        rows.append(tuple(row))
    note = rf"\sqrt{{d_k}} = \sqrt{{{d_k_int}}} \approx {latex_number(divisor, digits)}" if not _is_integer(divisor) \
        else rf"\sqrt{{d_k}} = \sqrt{{{d_k_int}}} = {int(divisor)}"
    return MatrixSteps(name, rf"{name.split('/')[0]} \;\div\; \sqrt{{d_k}}", tuple(rows), _frozen(result),
                       decimals, _labels(row_labels, n), _labels(col_labels, p), note)


def softmax_row_step(scores, *, row: int = 0, label: str = "", symbol: str = "a",
                     decimals: int | None = None, digits: int | None = None) -> SoftmaxRowStep:
    """One row of softmax written out: a_j = e^{s_j} / Σ_k e^{s_k}.

    ``digits`` (exact mode only) prints every number with that many decimals instead of 4, and
    a weight below 10^(1 − digits) in scientific form (digits=5: 0.99995, 4.5×10⁻⁵).

    scores: (n,), −∞ allowed (masked: e^{−∞} = 0) but not a row of only −∞. When e^{s}
    would be unreadable (max > 30, or underflow in pencil mode) every exponent is shifted
    by the row max (softmax does not change: the factor e^{−max} cancels).
    Exact mode's weights equal tutor.softmax to rounding error.
    """
    decimals = _check_decimals(decimals)
    s = np.asarray(scores, dtype=np.float64).ravel()                     # (n,)
    if s.size == 0:
        raise ValueError("softmax の行が空です。")
    if np.isnan(s).any() or np.isposinf(s).any():
        raise ValueError(f"softmax の行 {label or row + 1} に NaN または +∞ があります。")
    if np.isneginf(s).all():
        raise ValueError(f"softmax の行 {label or row + 1} がすべて −∞（全部マスク）です。")
    s = pencil_round(s, decimals)                                        # (n,)
    m = float(np.max(s))
    shift = 0.0
    if m > _EXP_DISPLAY_MAX or pencil_round(math.exp(min(m, _EXP_DISPLAY_MAX)), decimals) == 0:
        shift = m
    exps = pencil_round(np.exp(s - shift), decimals)                     # (n,)
    if decimals is None:
        total = float(np.sum(exps))
        weights = exps / total                                           # (n,)
    else:
        total = pencil_round(float(np.sum(exps)), decimals)
        weights = pencil_round(exps / total, decimals)                   # (n,)
    if digits is not None and (decimals is not None or int(digits) != digits or digits < 0):
        raise ValueError(f"表示桁数 digits（{digits}）は 0 以上の整数で、丸めなし（decimals=None）のときだけ使えます。")
    sci_below = None if digits is None else 10.0 ** (1 - digits)
    digits = _digits(decimals) if digits is None else int(digits)

    def power(v: float) -> str:
        if shift == 0.0:
            return f"e^{{{latex_number(v, digits)}}}"
        if v == -math.inf:
            return r"e^{-\infty}"
        return f"e^{{{latex_number(v, digits)} - {latex_number(shift, digits, paren=True)}}}"

    powers = [power(v) for v in s]
    exp_texts = [latex_number(e, digits) for e in exps]
    denominator = " + ".join(powers)
    elements = []
    for j in range(s.size):
        lab = _sub(symbol, row, j)
        symbolic = rf"\frac{{{powers[j]}}}{{{denominator}}}"
        numeric = rf"\frac{{{exp_texts[j]}}}{{{latex_number(total, digits)}}}"
        expression = rf"{symbolic} \approx {numeric}"
        weight = latex_number(weights[j], digits, as_integer=False, sci_below=sci_below)
        tail = rf"\approx {numeric} \approx {weight}"
        elements.append(ElementStep(lab, row, j, "softmax", ((float(exps[j]), total),), expression,
                                    float(weights[j]), f"{lab} = {symbolic} {tail}", (symbolic,), tail))
    exp_parts = tuple(f"{p} " + ("=" if e in (0.0, 1.0) else r"\approx") + f" {t}"
                      for p, e, t in zip(powers, exps, exp_texts))
    exp_latex = r",\quad ".join(exp_parts)
    total_latex = f"{' + '.join(exp_texts)} = {latex_number(total, digits)}"
    return SoftmaxRowStep(row, label, tuple(float(v) for v in s), shift, tuple(float(e) for e in exps),
                          float(total), tuple(float(w) for w in weights), tuple(elements),
                          exp_latex, total_latex, exp_parts, tuple(exp_texts),
                          f"= {latex_number(total, digits)}")


def softmax_steps(s, *, symbol: str = "a", name: str = "A", formula: str = r"A = \mathrm{softmax}(\cdot)",
                  decimals: int | None = None, row_labels: Sequence[str] | None = None) -> SoftmaxSteps:
    """softmax of every row of s (n, p), each row written out (see softmax_row_step)."""
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 2 or s.size == 0:
        raise ValueError(f"softmax の入力は空でない 2 次元の行列が必要です（形 {s.shape}）。")
    labels = _labels(row_labels, s.shape[0])
    rows = tuple(softmax_row_step(s[i], row=i, label=labels[i], symbol=symbol, decimals=decimals)
                 for i in range(s.shape[0]))
    result = np.array([r.weights for r in rows])                         # (n, p)
    return SoftmaxSteps(name, formula, rows, _frozen(result), _check_decimals(decimals))


def weighted_sum_steps(weights, values, *, symbol: str = "z", value_symbol: str = "v",
                       decimals: int | None = None) -> tuple[WeightedSumStep, ...]:
    """z_i = Σ_j a_ij v_j for every row i, as a sum of vectors and element by element.

    weights: (n_q, n_k), values: (n_k, d_v). Pencil mode rounds both first (the seed
    multiplies the weights ROUNDED to 3 decimals by V).
    """
    decimals = _check_decimals(decimals)
    a = as_matrix(weights, "重み A", ndim=2)
    v = as_matrix(values, "バリュー V", ndim=2)
    if a.shape[1] != v.shape[0]:
        raise ValueError(f"重み A（形 {a.shape}）の列数とバリュー V（形 {v.shape}）の行数が違います。")
    prod = matmul_steps(a, v, symbol, decimals=decimals)                 # (n_q, d_v)
    a = pencil_round(a, decimals)                                        # (n_q, n_k)
    v = pencil_round(v, decimals)                                        # (n_k, d_v)
    digits = _digits(decimals)
    out = []
    for i in range(a.shape[0]):
        vec = lambda row: "(" + ", ".join(latex_number(x, digits) for x in row) + ")"  # noqa: E731
        parts = tuple(rf"{latex_number(a[i, j], digits, as_integer=False, paren=j > 0)}\,{vec(v[j])}"
                      for j in range(a.shape[1]))
        expression = " + ".join(parts)
        result = tuple(float(x) for x in prod.result[i])
        res_text = "(" + ", ".join(latex_number(x, digits, as_integer=False) for x in result) + ")"
        label = rf"\mathbf{{{symbol}}}_{{{i + 1}}}"
        rel = "=" if all(c.tail.startswith("=") for c in prod.elements[i]) else r"\approx"
        out.append(WeightedSumStep(i, label, tuple(float(x) for x in a[i]),
                                   tuple(tuple(float(x) for x in r) for r in v), expression, result,
                                   f"{label} = {expression} {rel} {res_text}", prod.elements[i], parts,
                                   f"{rel} {res_text}"))
    return tuple(out)


# ---------------------------------------------------------------------------
# from Q, K, V to Z, and the whole chain of 8.6
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class AttentionSteps:
    """softmax(QKᵀ/√d_k) V from given Q, K, V, every element expanded."""
    decimals: int | None
    scale: bool                                  # False: the "forgot √d_k" variant (scaled is None)
    d_k: int
    scores: MatrixSteps                          # (n_q, n_k)  QKᵀ
    scaled: MatrixSteps | None                   # (n_q, n_k)  QKᵀ / √d_k
    softmax: SoftmaxSteps                        # (n_q, n_k)  A
    output: MatrixSteps                          # (n_q, d_v)  Z = A V
    weighted_sums: tuple[WeightedSumStep, ...]

    @property
    def weights(self) -> np.ndarray:             # (n_q, n_k)
        return self.softmax.result

    @property
    def z(self) -> np.ndarray:                   # (n_q, d_v)
        return self.output.result


def attention_steps(q, k, v, *, scale: bool = True, decimals: int | None = None,
                    query_labels: Sequence[str] | None = None,
                    key_labels: Sequence[str] | None = None) -> AttentionSteps:
    """S = Q Kᵀ → S̃ = S/√d_k (if scale) → A = softmax rows → Z = A V, all expanded.

    q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v). Exact mode equals tutor.attention(q, k, v, scale=scale).
    """
    decimals = _check_decimals(decimals)
    q = as_matrix(q, "Q", ndim=2)
    k = as_matrix(k, "K", ndim=2)
    v = as_matrix(v, "V", ndim=2)
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"Q（形 {q.shape}）と K（形 {k.shape}）の d_k が一致しません（{q.shape[1]} と {k.shape[1]}）。")
    if k.shape[0] != v.shape[0]:
        raise ValueError(f"K（形 {k.shape}）と V（形 {v.shape}）のトークン数が一致しません。")
    d_k = q.shape[1]
    qlab, klab = _labels(query_labels, q.shape[0]), _labels(key_labels, k.shape[0])
    scores = matmul_steps(q, k.T, "s", name=r"QK^\top", formula=r"S = QK^\top", decimals=decimals,  # (n_q, n_k)
                          row_labels=qlab, col_labels=klab)
    scaled = None
    logits = scores.result                                                                  # (n_q, n_k)
    if scale:
        scaled = scale_steps(scores.result, d_k, decimals=decimals, row_labels=qlab, col_labels=klab)
        logits = scaled.result                                                              # (n_q, n_k)
    formula = (r"A = \mathrm{softmax}\!\left(QK^\top/\sqrt{d_k}\right)" if scale
               else r"A = \mathrm{softmax}\!\left(QK^\top\right)")
    sm = softmax_steps(logits, formula=formula, decimals=decimals, row_labels=qlab)          # (n_q, n_k)
    output = matmul_steps(sm.result, v, "z", name="Z", formula="Z = A V", decimals=decimals,  # (n_q, d_v)
                          row_labels=qlab)
    sums = weighted_sum_steps(sm.result, v, decimals=decimals)
    return AttentionSteps(decimals, bool(scale), d_k, scores, scaled, sm, output, sums)


def naive_steps(x, *, decimals: int | None = None, tokens: Sequence[str] | None = None) -> AttentionSteps:
    """Naive self-attention (8.2) expanded: S = X Xᵀ, A = softmax(S) (no √d_k), Z = A X.

    x: (n, d). The result's ``scaled`` is None; exact mode equals tutor.naive_attention(x).
    """
    decimals = _check_decimals(decimals)
    x = as_matrix(x, "埋め込み X", ndim=2)
    toks = _labels(tokens, x.shape[0])
    scores = matmul_steps(x, x.T, "s", name=r"XX^\top", formula=r"S = XX^\top", decimals=decimals,  # (n, n)
                          row_labels=toks, col_labels=toks)
    sm = softmax_steps(scores.result, formula=r"A = \mathrm{softmax}(S)", decimals=decimals,           # (n, n)
                       row_labels=toks)
    output = matmul_steps(sm.result, x, "z", name="Z", formula="Z = A X", decimals=decimals,          # (n, d)
                          row_labels=toks)
    sums = weighted_sum_steps(sm.result, x, decimals=decimals)
    return AttentionSteps(decimals, False, x.shape[1], scores, None, sm, output, sums)


def hand_calculation(x, w_q, w_k, w_v, *, decimals: int | None = None,
                     tokens: Sequence[str] | None = None) -> HandCalculation:
    """Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V, every element of every step expanded.

    1. Q = X W_Q, K = X W_K, V = X W_V           (n, d_k), (n, d_k), (n, d_v)
    2. S = Q Kᵀ                                   (n, n)
    3. S̃ = S / √d_k                              (n, n)
    4. A = softmax(S̃) row by row                 (n, n)
    5. Z = A V                                    (n, d_v)

    x: (n, d_model); w_q, w_k: (d_model, d_k); w_v: (d_model, d_v).
    decimals=None: exact (equals tutor.attention); decimals=k: pencil rounding, k = 3
    reproduces the seed's Z = [[1.510, 0.492], [1.000, 1.000], [0.159, 1.841]].
    """
    decimals = _check_decimals(decimals)
    x = as_matrix(x, "X", ndim=2)
    w_q = as_matrix(w_q, "W_Q", ndim=2)
    w_k = as_matrix(w_k, "W_K", ndim=2)
    w_v = as_matrix(w_v, "W_V", ndim=2)
    n, d_model = x.shape
    for w, nm in ((w_q, "W_Q"), (w_k, "W_K"), (w_v, "W_V")):
        if w.shape[0] != d_model:
            raise ValueError(f"X（形 {x.shape}）と {nm}（形 {w.shape}）は掛けられません："
                             f"X の列数 {d_model} と {nm} の行数 {w.shape[0]} が違います。")
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(f"W_Q の列数（d_k = {w_q.shape[1]}）と W_K の列数（{w_k.shape[1]}）が違います。"
                         "クエリとキーは同じ次元でないと内積がとれません。")
    d_k = w_q.shape[1]
    toks = _labels(tokens, n)
    kq = dict(decimals=decimals, row_labels=toks)
    q = matmul_steps(x, w_q, "q", name="Q", formula="Q = X W_Q", **kq)                 # (n, d_k)
    k = matmul_steps(x, w_k, "k", name="K", formula="K = X W_K", **kq)                 # (n, d_k)
    v = matmul_steps(x, w_v, "v", name="V", formula="V = X W_V", **kq)                 # (n, d_v)
    att = attention_steps(q.result, k.result, v.result, decimals=decimals,            # (n, n), (n, d_v)
                          query_labels=toks, key_labels=toks)
    return HandCalculation(decimals, toks, _frozen(pencil_round(x, decimals)), d_k, q, k, v, att.scores,
                           att.scaled, att.softmax, att.output, att.weighted_sums)
