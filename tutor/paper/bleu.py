"""BLEU (Papineni et al. 2002): how machine translation is scored against human translations.

For a candidate translation and one or more reference translations (tokens):

    Count_clip(g) = min(Count_cand(g), max over references of Count_ref(g))      (clipping)
    p_n  = Σ_g Count_clip(g) / Σ_g Count_cand(g)        over the candidate's n-grams g
    BP   = 1                 if c > r                   c: candidate length
         = exp(1 − r / c)    if c ≤ r                   r: the reference length closest to c
    BLEU = BP · exp(Σ_n w_n · log p_n),  n = 1 … N,  w_n = 1 / N   (the paper: N = 4)

so BLEU is BP times the GEOMETRIC mean of the modified (clipped) n-gram PRECISIONS: a p_n of 0
makes BLEU 0. Papers write it ×100 (28.4 BLEU = 0.284). The paper computes c and r over a whole
test corpus; here one sentence (a worked example), which is where the formula is seen step by step.

Each named mistake (precision without clipping, BP forgotten or applied to a long candidate too,
the arithmetic instead of the geometric mean, recall instead of precision) is a function below
the formula it distorts.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import positive_int

MAX_N = 4                        # the paper's N: 1- to 4-grams
MAX_SENTENCE_TOKENS = 30
MAX_TOKEN_CHARS = 12
MAX_REFERENCES = 4
# a token is a word (letters, digits, kana, kanji) or a little punctuation: nothing that Markdown
# or HTML would read reaches the tables that show the counts
_TOKEN = re.compile(r"[^\W_]+|[。、！？ー・.,!?']")

# the worked example (手計算): one candidate, two human references (tokens separated by spaces)
DEMO_CANDIDATE = ("猫", "が", "魚", "を", "食べた")
DEMO_REFERENCES = (("猫", "が", "その", "魚", "を", "食べた"),
                   ("その", "猫", "は", "魚", "を", "全部", "食べた"))
# clipping, in the form of Papineni et al.'s own example (a candidate that repeats one word)
CLIP_DEMO_CANDIDATE = ("の",) * 7
CLIP_DEMO_REFERENCES = (("庭", "の", "木", "の", "下", "に", "猫", "が", "いる"),
                        ("木", "の", "下", "で", "猫", "が", "寝て", "いる"))


def split_sentence(text: str, name: str = "文") -> tuple[str, ...]:
    """A sentence typed with spaces between its tokens → the tokens (full-width spaces count;
    at most 30 tokens of at most 12 characters)."""
    if not isinstance(text, str):
        raise ValueError(f"{name}は文字列で入れてください。")
    tokens = tuple(text.replace("\u3000", " ").split())
    if not tokens:
        raise ValueError(f"{name}が空です。単語を空白で区切って入れてください（例：猫 が 魚 を 食べた）。")
    if len(tokens) > MAX_SENTENCE_TOKENS:
        raise ValueError(f"{name}の単語は {MAX_SENTENCE_TOKENS} 個までにしてください（いま {len(tokens)} 個）。")
    bad = next((t for t in tokens if len(t) > MAX_TOKEN_CHARS or not _TOKEN.fullmatch(t)), None)
    if bad is not None:
        raise ValueError(f"{name}の単語「{bad[:MAX_TOKEN_CHARS]}」は使えません。1 語は {MAX_TOKEN_CHARS} 文字までの"
                         "文字・数字（と 。、！？ー・.,!?'）にしてください。")
    return tokens


def _tokens(tokens, name: str) -> tuple[str, ...]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise ValueError(f"{name}は単語（文字列）の列で渡してください。")
    out = tuple(str(t).strip() for t in tokens)
    if not out:
        raise ValueError(f"{name}が空です。少なくとも 1 語必要です。")
    if any(not t for t in out):
        raise ValueError(f"{name}に空の単語があります。")
    return out


def _references(references) -> tuple[tuple[str, ...], ...]:
    if isinstance(references, str) or not isinstance(references, Sequence) or not references:
        raise ValueError("参照訳は 1 つ以上の単語の列で渡してください。")
    if isinstance(references[0], str):             # a single reference given as one token list
        references = (references,)
    if len(references) > MAX_REFERENCES:
        raise ValueError(f"参照訳は {MAX_REFERENCES} つまでにしてください（いま {len(references)} つ）。")
    return tuple(_tokens(r, f"参照訳 {i + 1} ") for i, r in enumerate(references))


def _order(n, max_n: int = MAX_N) -> int:
    n = positive_int(n, "n-gram の n")
    if n > max_n:
        raise ValueError(f"n-gram の n は 1 から {max_n} までにしてください（{n}）。")
    return n


def ngrams(tokens, n: int) -> tuple[tuple[str, ...], ...]:
    """The n-grams of a token list, in order: ("a", "b", "c"), 2 → (("a", "b"), ("b", "c"))."""
    t = _tokens(tokens, "単語の列")
    n = _order(n)
    return tuple(t[i:i + n] for i in range(len(t) - n + 1))


# ---------------------------------------------------------------------------
# modified n-gram precision (clipped counts)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NgramMatch:
    n: int
    grams: tuple[tuple[str, ...], ...]     # (g,)  the candidate's distinct n-grams, first appearance first
    counts: tuple[int, ...]                # (g,)  how often each appears in the candidate
    ref_max: tuple[int, ...]               # (g,)  the most times it appears in any one reference
    clipped: tuple[int, ...]               # (g,)  min(counts, ref_max)
    matched: int                           # Σ clipped      (the numerator of p_n)
    total: int                             # Σ counts       (the candidate's n-grams: c − n + 1)

    @property
    def precision(self) -> float:
        """p_n = matched / total (0 when the candidate has no n-gram of this order)."""
        return self.matched / self.total if self.total else 0.0

    @property
    def unclipped(self) -> int:
        """Σ over the candidate's n-grams found in some reference, each counted every time."""
        return sum(c for c, m in zip(self.counts, self.ref_max) if m > 0)


def ngram_match(candidate, references, n: int) -> NgramMatch:
    """Clipped counts of the candidate's n-grams against the references (Papineni et al.'s
    Count_clip = min(Count, Max_Ref_Count))."""
    cand = _tokens(candidate, "候補訳")
    refs = _references(references)
    n = _order(n)
    cand_counts = Counter(cand[i:i + n] for i in range(len(cand) - n + 1))
    ref_counts = [Counter(r[i:i + n] for i in range(len(r) - n + 1)) for r in refs]
    grams = tuple(cand_counts)                      # insertion order = first appearance
    counts = tuple(cand_counts[g] for g in grams)
    ref_max = tuple(max(rc[g] for rc in ref_counts) for g in grams)
    clipped = tuple(min(c, m) for c, m in zip(counts, ref_max))
    return NgramMatch(n, grams, counts, ref_max, clipped, sum(clipped), sum(counts))


def modified_precision(candidate, references, n: int) -> float:
    """p_n: the clipped matches over the candidate's n-grams."""
    return ngram_match(candidate, references, n).precision


def precision_unclipped(candidate, references, n: int) -> float:
    """MISTAKE: every candidate n-gram found in some reference counts, however often it repeats
    (seven "the" against "the cat is on the mat" → 7/7 instead of 2/7)."""
    m = ngram_match(candidate, references, n)
    return m.unclipped / m.total if m.total else 0.0


def precision_by_types(candidate, references, n: int) -> float:
    """MISTAKE: each distinct n-gram counted once (types, not occurrences): the distinct
    n-grams found in some reference over the distinct n-grams of the candidate."""
    m = ngram_match(candidate, references, n)
    return sum(1 for x in m.ref_max if x > 0) / len(m.grams) if m.grams else 0.0


def closest_reference_length(c: int, reference_lengths) -> int:
    """r: the reference length closest to the candidate length c (a tie → the shorter one)."""
    c = positive_int(c, "候補訳の長さ c")
    lengths = [positive_int(x, "参照訳の長さ") for x in reference_lengths]
    if not lengths:
        raise ValueError("参照訳の長さが 1 つもありません。")
    return min(lengths, key=lambda r: (abs(r - c), r))


def ngram_recall(candidate, references, n: int) -> float:
    """MISTAKE: recall instead of precision — the clipped matches over the n-grams of the
    reference (the one closest in length), not over the candidate's own n-grams."""
    cand = _tokens(candidate, "候補訳")
    refs = _references(references)
    r = closest_reference_length(len(cand), [len(x) for x in refs])
    ref_total = max(r - _order(n) + 1, 0)
    return ngram_match(cand, refs, n).matched / ref_total if ref_total else 0.0


# ---------------------------------------------------------------------------
# brevity penalty
# ---------------------------------------------------------------------------
def brevity_penalty(c: int, r: int) -> float:
    """BP = 1 if c > r, else exp(1 − r/c): only a candidate SHORTER than the reference is
    penalised (a long one already loses precision)."""
    c = positive_int(c, "候補訳の長さ c")
    r = positive_int(r, "参照訳の長さ r")
    return 1.0 if c > r else math.exp(1.0 - r / c)


def brevity_penalty_both_ways(c: int, r: int) -> float:
    """MISTAKE: a length penalty for any difference — a candidate longer than the reference is
    penalised too, exp(1 − c/r)."""
    c = positive_int(c, "候補訳の長さ c")
    r = positive_int(r, "参照訳の長さ r")
    return math.exp(1.0 - max(c, r) / min(c, r))


# ---------------------------------------------------------------------------
# BLEU
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Bleu:
    matches: tuple[NgramMatch, ...]    # n = 1 … N
    weights: tuple[float, ...]         # w_n (1/N each)
    c: int                             # candidate length
    r: int                             # the closest reference length
    reference_lengths: tuple[int, ...]
    log_mean: float                    # Σ w_n log p_n   (−inf when some p_n = 0)
    geo_mean: float                    # exp(log_mean) = Π p_n^{w_n}
    bp: float
    score: float                       # BP · geo_mean

    @property
    def max_n(self) -> int:
        return len(self.matches)

    @property
    def precisions(self) -> np.ndarray:   # (N,)
        return np.array([m.precision for m in self.matches])

    @property
    def points(self) -> float:
        """BLEU as papers write it: ×100 (0.284 → 28.4)."""
        return 100.0 * self.score

    @property
    def length_ratio(self) -> float:
        """c / r: above 1 the candidate is longer than its reference and BP = 1."""
        return self.c / self.r


def _check_length(cand: tuple[str, ...], max_n: int) -> None:
    if len(cand) < max_n:
        raise ValueError(f"候補訳が {len(cand)} 語しかなく、{max_n}-gram が作れません。"
                         f"{max_n} 語以上にするか、N を小さくしてください。")


def bleu(candidate, references, max_n: int = MAX_N) -> Bleu:
    """BLEU of one candidate with uniform weights w_n = 1/N over n = 1 … N.

    1. clipped n-gram counts → p_n for n = 1 … N;
    2. geometric mean: exp(Σ w_n log p_n) (0 as soon as one p_n is 0);
    3. c = candidate length, r = closest reference length, BP = 1 if c > r else e^(1 − r/c);
    4. BLEU = BP · geometric mean."""
    cand = _tokens(candidate, "候補訳")
    refs = _references(references)
    max_n = _order(max_n)
    _check_length(cand, max_n)
    matches = tuple(ngram_match(cand, refs, n) for n in range(1, max_n + 1))
    weights = (1.0 / max_n,) * max_n
    ps = [m.precision for m in matches]
    log_mean = -math.inf if min(ps) == 0 else sum(w * math.log(p) for w, p in zip(weights, ps))
    geo = 0.0 if log_mean == -math.inf else math.exp(log_mean)
    lengths = tuple(len(x) for x in refs)
    r = closest_reference_length(len(cand), lengths)
    bp = brevity_penalty(len(cand), r)
    return Bleu(matches, weights, len(cand), r, lengths, log_mean, geo, bp, bp * geo)


def _geometric(ps) -> float:
    ps = [float(p) for p in ps]
    return 0.0 if min(ps) == 0 else math.exp(sum(math.log(p) for p in ps) / len(ps))


def bleu_without_bp(candidate, references, max_n: int = MAX_N) -> float:
    """MISTAKE: the brevity penalty forgotten — a short candidate scores its precisions alone."""
    return bleu(candidate, references, max_n).geo_mean


def bleu_bp_both_ways(candidate, references, max_n: int = MAX_N) -> float:
    """MISTAKE: the penalty applied to a candidate longer than the reference too."""
    b = bleu(candidate, references, max_n)
    return brevity_penalty_both_ways(b.c, b.r) * b.geo_mean


def bleu_arithmetic_mean(candidate, references, max_n: int = MAX_N) -> float:
    """MISTAKE: the arithmetic mean of the p_n instead of the geometric mean."""
    b = bleu(candidate, references, max_n)
    return b.bp * float(np.mean(b.precisions))


def bleu_unclipped(candidate, references, max_n: int = MAX_N) -> float:
    """MISTAKE: every precision without clipping (a repeated word counts every time)."""
    b = bleu(candidate, references, max_n)
    return b.bp * _geometric([precision_unclipped(candidate, references, n) for n in range(1, b.max_n + 1)])


def bleu_recall(candidate, references, max_n: int = MAX_N) -> float:
    """MISTAKE: recall (matches over the reference's n-grams) in place of every precision."""
    b = bleu(candidate, references, max_n)
    return b.bp * _geometric([ngram_recall(candidate, references, n) for n in range(1, b.max_n + 1)])


BLEU_MISTAKES = {
    "no_bp": bleu_without_bp,
    "bp_both_ways": bleu_bp_both_ways,
    "arithmetic": bleu_arithmetic_mean,
    "unclipped": bleu_unclipped,
    "recall": bleu_recall,
}


def bleu_mistake(candidate, references, mistake: str, max_n: int = MAX_N) -> float:
    """The BLEU a named mistake gives (keys of BLEU_MISTAKES)."""
    if mistake not in BLEU_MISTAKES:
        raise ValueError(f"未知の誤りの種類です：{mistake!r}（{', '.join(BLEU_MISTAKES)} のどれか）。")
    return BLEU_MISTAKES[mistake](candidate, references, max_n)


def _ratios(ratios) -> np.ndarray:
    x = np.asarray(ratios, dtype=np.float64)
    if x.size == 0 or not np.isfinite(x).all() or (x <= 0).any():
        raise ValueError("長さの比 c/r は正の有限の数で渡してください。")
    return x


def brevity_curve(ratios) -> np.ndarray:
    """BP at candidate/reference length ratios c/r (> 0): 1 from c/r > 1 on, e^(1 − r/c) below."""
    x = _ratios(ratios)
    return np.where(x > 1.0, 1.0, np.exp(1.0 - 1.0 / x))


def brevity_curve_both_ways(ratios) -> np.ndarray:
    """MISTAKE, as a curve: e^(1 − max(c, r)/min(c, r)) at each ratio c/r — long candidates penalised too."""
    x = _ratios(ratios)
    return np.exp(1.0 - np.maximum(x, 1.0 / x))
