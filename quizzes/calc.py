"""Shared pieces of the calculation generators (quizzes/gen_*.py): registration with
recoverable inputs, number formatting, and the (ア)(イ)(ウ) layout.

A calculation generator is written as two pure functions:

    def _params(rng) -> dict          # draws the inputs from the seed's rng, nothing else
    @calc_generator("naive.weight", "naive", _params)
    def _weight(p: dict) -> Draft:    # computes answer + distractors with tutor/, formats

The registered draft is ``build(params(rng))``. ``CALC[gid] = (params, build)`` lets the item
quality gate (tests/test_quizzes.py) redraw the very inputs of a question and recompute its
answer with the engine on its own. Formatting is the only thing done here: no arithmetic.

``build`` returns ``draft(correct, wrong_texts, stem, notes, explanation)``: the four choice texts,
then the stem, one misconception note per wrong choice, and the explanation.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from tutor import numfmt

from .core import Draft, register

__all__ = [
    "CALC",
    "calc_generator",
    "draft",
    "num",
    "shown",
    "tnum",
    "vec",
    "tex_mat",
    "math_lines",
    "tex_vec",
    "ln_tex",
    "blank",
    "two_slips",
    "redraw",
    "mc",
    "TOKEN_SETS",
    "pick",
    "sample",
    "BEST",
    "WORST",
    "BLANK",
]

CALC: dict[str, tuple[Callable[[np.random.Generator], dict], Callable[[dict], Draft]]] = {}

BEST = "として、最も適切なものを1つ選べ。"
WORST = "として、不適切なものを1つ選べ。"
BLANK = "次の文章の（ア）〜（ウ）に最もよく当てはまる組み合わせを1つ選べ。"

# three-token sentences for the naive / Q·K·V / mask items (labels only)
TOKEN_SETS = (
    ("猫", "魚", "それ"),
    ("犬", "骨", "それ"),
    ("私", "本", "読む"),
    ("彼", "駅", "歩く"),
    ("雨", "傘", "差す"),
    ("鳥", "空", "飛ぶ"),
)


def pick(rng: np.random.Generator, options):
    """``rng.choice(options)`` for a sequence (or ``rng.choice(n)`` for ``range(n)``): the very
    same single draw (Generator.choice with replace=True draws ``integers(0, len)``), without
    choice()'s array handling. Returns the element itself."""
    return options[int(rng.integers(len(options)))]


def sample(rng: np.random.Generator, n: int, k: int) -> list[int]:
    """k distinct indices out of range(n), in random order: ``rng.choice(n, size=k, replace=False)``."""
    return rng.choice(n, size=k, replace=False).tolist()


def draft(correct: str, wrong_texts, stem: str, notes, explanation: str) -> Draft:
    """The Draft of a calculation question: the correct choice, the three wrong choices, the stem,
    one misconception note per wrong choice (in the same order), and the explanation."""
    return Draft(stem, correct, tuple(zip(wrong_texts, notes, strict=True)), explanation)


def calc_generator(generator_id: str, topic: str, params: Callable[[np.random.Generator], dict],
                   advanced: bool = False, moved_from: str | None = None):
    """Register ``build`` so that the question is ``build(params(rng))``; keep both in CALC.
    ``advanced=True``: 発展 (beyond the syllabus); ``moved_from``: the generator's id on the page it
    came from (see quizzes.core.register)."""
    def deco(build: Callable[[dict], Draft]):
        def draft(rng: np.random.Generator) -> Draft:
            return build(params(rng))
        draft.__doc__ = build.__doc__
        register(generator_id, topic, draft, kind="calc", advanced=advanced, moved_from=moved_from)
        CALC[generator_id] = (params, build)
        return build
    return deco


def num(x, nd: int = 3) -> str:
    """A number as shown in a choice: tutor.numfmt.trimmed, the app's one format (integers without
    decimals, others rounded to nd decimals by 四捨五入 — 0.3125 → 0.313, -0.0625 → -0.063, also
    when float noise made them 0.31249999999999994 — trailing zeros dropped: 0.750 → 0.75)."""
    return numfmt.trimmed(x, nd)


def _nums(xs, nd: int) -> list[str]:
    """num() of every entry, row by row."""
    return [num(x, nd) for x in np.ravel(xs).tolist()]


def shown(xs, nd: int = 3) -> np.ndarray:
    """The numbers exactly as num() shows them, back as float64 (same shape): 0.93660 → 0.937.
    For a question whose stem gives rounded values (weights, e^s hints) as its data, so that the
    engine computes the answer FROM THE DISPLAYED NUMBERS (what the learner is told to use).

    round(x·10^nd) / 10^nd is the float of num()'s text wherever x is not near a decimal tie (there
    format() and np.round round alike, and the division of two whole floats is correctly rounded);
    the near-ties that num() rounds half up are read back from num()'s own text (tested)."""
    a = np.asarray(xs, dtype=float)
    scale, lo, hi = numfmt.tie_bounds(nd)
    out = []
    for x in a.ravel().tolist():
        y = x * scale
        if lo < y % 1.0 < hi:                        # a (near) tie: num()'s own 四捨五入
            out.append(float(num(x, nd).replace(",", "")))
        else:
            out.append(round(y) / scale)
    return np.array(out).reshape(a.shape)


def tnum(x, nd: int = 3) -> str:
    """num() for use inside $...$ (thousands separators as {,} so KaTeX adds no space)."""
    return num(x, nd).replace(",", "{,}")


def vec(xs, nd: int = 3) -> str:
    """(a, b, c) in math mode."""
    return "$(" + ",\\ ".join(_nums(xs, nd)) + ")$"


def tex_mat(m, nd: int = 3) -> str:
    """A matrix as LaTeX pmatrix (no $)."""
    m = np.asarray(m, dtype=float)
    if m.ndim < 2:
        m = m.reshape(1, -1)                            # = np.atleast_2d for a number or a vector
    cols = m.shape[-1]
    cells = _nums(m, nd)                                # every entry, then cut into rows
    rows = " \\\\ ".join([" & ".join(cells[k:k + cols]) for k in range(0, len(cells), cols)])
    return "\\begin{pmatrix} " + rows + " \\end{pmatrix}"


def math_lines(*formulas: str) -> str:
    """Formulas (LaTeX, no $) as display math, each on a line of its own (a block: ``$$`` on lines of
    their own). Written in one ``$$…$$`` line, four matrices joined by \\quad were inline math: on a
    phone they wrapped after 「W_Q =」 and the matrices touched."""
    return "\n\n".join(f"$$\n{f}\n$$" for f in formulas)


def tex_rows(m, nd: int = 3) -> list[str]:
    """tex_vec() of every row of a 2-D array (or one row for a vector), formatted in one pass."""
    m = np.asarray(m, dtype=float)
    cols = m.shape[-1] if m.ndim else 1
    cells = _nums(m, nd)
    return ["(" + ",\\ ".join(cells[k:k + cols]) + ")" for k in range(0, len(cells), cols)]


def tex_vec(xs, nd: int = 3) -> str:
    """(a, b, c) inside math (no $)."""
    return "(" + ",\\ ".join(_nums(xs, nd)) + ")"


def ln_tex(coef: int, m: int) -> str:
    """c·ln m as LaTeX: 0 for m = 1, '\\ln 3' for c = 1, '2\\ln 3' otherwise."""
    if int(m) == 1:
        return "0"
    return ("" if int(coef) == 1 else str(int(coef))) + f"\\ln {int(m)}"


def blank(a: str, b: str, c: str) -> str:
    """The combined choice of a (ア)(イ)(ウ) item."""
    return f"（ア）{a}　（イ）{b}　（ウ）{c}"


_LABELS = ("（ア）", "（イ）", "（ウ）", "（エ）")


def two_slips(right, first, second):
    """The three wrong choices of a balanced 穴埋め and their notes, from two named slips.

    right: the answer's blank texts (2 to 4 of them). first, second: ``(name, why, {index: text})`` —
    a named slip, the reason it gives (a clause ending before 「ため」) and the blanks it changes,
    with the text each of them then shows. The two slips change disjoint sets of blanks that
    together cover every blank. The wrong choices are the first slip alone, the second alone, and
    both together, so each blank shows exactly two texts (the right one in the answer and in the
    choice of the other slip, the wrong one in the other two choices): the combination that
    agrees most with the others is every choice alike (25 %). Each note names every blank its
    choice changes, with the value and the slip behind it.

    Returns ``(wrong_texts, notes)``, or None when a slip leaves a blank it changes equal to the
    right text (the caller then redraws)."""
    right = tuple(right)
    (n1, why1, ch1), (n2, why2, ch2) = first, second
    if set(ch1) & set(ch2) or set(ch1) | set(ch2) != set(range(len(right))) or not ch1 or not ch2:
        raise ValueError("二つの誤りで変わる空欄が、重ならずにすべての空欄を覆っていません。")
    if any(ch1[k].strip() == right[k].strip() for k in ch1) or any(ch2[k].strip() == right[k].strip() for k in ch2):
        return None

    def texts(*changes):
        out = list(right)
        for ch in changes:
            for k, t in ch.items():
                out[k] = t
        return tuple(out)

    def diff(ch):
        return "、".join(f"{_LABELS[k]}が {ch[k]}" for k in sorted(ch))

    wrong = tuple("　".join(f"{_LABELS[k]}{v}" for k, v in enumerate(t))      # = blank(*t) for three blanks
                  for t in (texts(ch1), texts(ch2), texts(ch1, ch2)))
    notes = (mc(n1, f"{why1}ため、{diff(ch1)} になった（ほかの空欄は正しい）。"),
             mc(n2, f"{why2}ため、{diff(ch2)} になった（ほかの空欄は正しい）。"),
             mc(f"{n1}＋{n2}", f"{why1}ため、{diff(ch1)} になり、さらに{why2}ため、{diff(ch2)} になった。"))
    return wrong, notes


def redraw() -> Draft:
    """A draft the registry rejects (four equal choices): the next attempt of the seed is drawn."""
    return Draft("", "-", (("-", ""), ("-", ""), ("-", "")), "")


def mc(name: str, why: str) -> str:
    """Misconception label: '<名前>：<一文で、なぜその値になるか>'."""
    return f"{name}：{why}"
