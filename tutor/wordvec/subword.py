"""fastText's subword vectors (Bojanowski et al., 2017): a word is the bag of its character
n-grams, with the boundary symbols < and > added, plus the word itself as one more unit; its
vector is the sum of theirs — with the named mistakes next to the count they distort.

    where, n = 3:   <wh  whe  her  ere  re>   + the word itself <where>
    count for a word of m characters, n from n_min to n_max:  Σ_n (m + 2 − n + 1)  (+ 1 for the word)
    v(word) = Σ_{g in its units} z_g

fastText's defaults are n = 3 … 6. A word never seen in training still has n-grams, so it still
gets a vector (the sum of those it shares with known words).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, positive_int
from .counts import WORD

BOW, EOW = "<", ">"
N_MIN, N_MAX = 3, 6                       # fastText's defaults
DEMO_WORD = "where"                       # the paper's example (n = 3)
SUM_WORD = "たべた"                        # a vector as the sum of its units (n = 3), by hand
SUM_UNITS = ("<たべ", "たべた", "べた>", "<たべた>")
SUM_VECTORS = np.array([[1.0, 0.0],       # z_g (4, 2): invented small integers
                        [2.0, 1.0],
                        [0.0, 1.0],
                        [1.0, 1.0]])
SIMILAR_PAIRS = (("たべた", "たべたい"), ("たべた", "のんだ"))   # an unseen word shares units; another does not
SUM_VECTORS.flags.writeable = False
MAX_CHARS = 30


def _word(word) -> str:
    if not isinstance(word, str) or not word.strip():
        raise ValueError("単語が空です。1 語を入れてください。")
    w = word.strip()
    if any(ch.isspace() for ch in w):
        raise ValueError("空白を含まない 1 語を入れてください。")
    if len(w) > MAX_CHARS:
        raise ValueError(f"単語は {MAX_CHARS} 文字までにしてください（{len(w)} 文字）。")
    if not WORD.fullmatch(w):
        raise ValueError(f"単語「{w}」は使えません。文字と数字だけの 1 語にしてください（境界の記号 < > は自動で付けます）。")
    return w


def _range(n_min, n_max) -> tuple[int, int]:
    lo, hi = positive_int(n_min, "n の最小"), positive_int(n_max, "n の最大")
    if lo > hi:
        raise ValueError(f"n の最小（{lo}）は最大（{hi}）以下にしてください。")
    if hi > MAX_CHARS + 2:
        raise ValueError(f"n は {MAX_CHARS + 2} 以下にしてください（{hi}）。")
    return lo, hi


@dataclass(frozen=True)
class Subwords:
    word: str                       # as given
    marked: str                     # "<word>"
    ngrams: tuple[str, ...]         # character n-grams of the marked word, by n, then position
    whole: str | None               # the word itself as one more unit ("<word>"), or None

    @property
    def units(self) -> tuple[str, ...]:
        """Everything whose vectors are summed: the n-grams, then the word itself."""
        return self.ngrams + ((self.whole,) if self.whole is not None else ())


def char_ngrams(word, n_min: int = N_MIN, n_max: int = N_MAX, *, boundary: bool = True,
                include_word: bool = True) -> Subwords:
    """The units of a word as fastText makes them (``boundary=False``: without < >, a mistake)."""
    w = _word(word)
    lo, hi = _range(n_min, n_max)
    marked = f"{BOW}{w}{EOW}" if boundary else w
    grams = tuple(marked[i:i + n] for n in range(lo, hi + 1) for i in range(len(marked) - n + 1))
    return Subwords(w, marked, grams, marked if include_word and boundary else (w if include_word else None))


def unit_count(chars, n_min: int = N_MIN, n_max: int = N_MAX) -> int:
    """Σ_{n = n_min}^{n_max} max(m + 2 − n + 1, 0) + 1 for a word of m characters."""
    m = positive_int(chars, "文字数 m")
    lo, hi = _range(n_min, n_max)
    return sum(max(m + 3 - n, 0) for n in range(lo, hi + 1)) + 1


def unit_count_no_boundary(chars, n_min: int = N_MIN, n_max: int = N_MAX) -> int:
    """Mistake: < and > forgotten (m − n + 1 n-grams of each length) — the word still counted."""
    m = positive_int(chars, "文字数 m")
    lo, hi = _range(n_min, n_max)
    return sum(max(m + 1 - n, 0) for n in range(lo, hi + 1)) + 1


def unit_count_one_boundary(chars, n_min: int = N_MIN, n_max: int = N_MAX) -> int:
    """Mistake: only one boundary symbol added (m + 1 characters)."""
    m = positive_int(chars, "文字数 m")
    lo, hi = _range(n_min, n_max)
    return sum(max(m + 2 - n, 0) for n in range(lo, hi + 1)) + 1


def unit_count_no_word(chars, n_min: int = N_MIN, n_max: int = N_MAX) -> int:
    """Mistake: the word itself not counted as a unit."""
    return unit_count(chars, n_min, n_max) - 1


def subword_vector(units, vectors) -> np.ndarray:
    """v(word) = Σ_g z_g: the rows of ``vectors`` (one per unit, (G, d)) added."""
    z = as_matrix(vectors, "n-gram のベクトル", ndim=2)
    if len(tuple(units)) != z.shape[0]:
        raise ValueError(f"単位の数（{len(tuple(units))}）とベクトルの行数（{z.shape[0]}）が違います。")
    return z.sum(axis=0)                                     # (d,)


@dataclass(frozen=True)
class SubwordOverlap:
    first: Subwords
    second: Subwords
    shared: tuple[str, ...]          # units the two words have in common
    cosine: float                    # cos of the two bags of units


def subword_overlap(word_a, word_b, n_min: int = N_MIN, n_max: int = N_MAX) -> SubwordOverlap:
    """How alike two words' fastText vectors start out if every unit had its own direction
    (orthogonal unit vectors): the cosine of the two bags of units, shared / √(|A| |B|)."""
    a, b = char_ngrams(word_a, n_min, n_max), char_ngrams(word_b, n_min, n_max)
    vocab = tuple(dict.fromkeys(a.units + b.units))
    ca = np.array([a.units.count(g) for g in vocab], dtype=float)    # (G,)
    cb = np.array([b.units.count(g) for g in vocab], dtype=float)    # (G,)
    cos = float(ca @ cb / np.sqrt((ca @ ca) * (cb @ cb)))
    shared = tuple(g for g in vocab if g in a.units and g in b.units)
    return SubwordOverlap(a, b, shared, cos)
