"""Input: byte-pair encoding (BPE) on a tiny corpus — subword merges learned from counts and applied
to unseen words. (The KV cache moved to ⑩-3: tutor.efficient.inference.)"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .models import _count

# ---------------------------------------------------------------------------
# subword tokenisation: byte-pair encoding (BPE)
# ---------------------------------------------------------------------------
BPE_DEMO_CORPUS = (("play", 8), ("plays", 3), ("played", 5), ("playing", 6), ("stay", 4), ("staying", 2),
                   ("sing", 3))
BPE_DEMO_NEW_WORDS = ("stayed", "singing", "pray")


@dataclass(frozen=True)
class BpeStep:
    pair: tuple[str, str]                  # the pair merged at this step
    count: int                             # how often it occurred (weighted by word counts)
    segments: tuple[tuple[str, ...], ...]  # every word after the merge
    vocabulary: tuple[str, ...]            # the symbols in use after the merge, sorted


@dataclass(frozen=True)
class BpeResult:
    words: tuple[str, ...]
    counts: tuple[int, ...]
    start: tuple[tuple[str, ...], ...]     # every word cut into characters
    steps: tuple[BpeStep, ...]

    @property
    def merges(self) -> tuple[tuple[str, str], ...]:
        return tuple(s.pair for s in self.steps)


def _letters(word: str, what: str) -> str:
    """A word of letters only (alphabet, kana, kanji …): BPE here merges letters, and a word with
    punctuation or symbols is refused with a Japanese message that quotes it."""
    if not word.isalpha():
        raise ValueError(f"{what}「{word[:24]}」に文字以外（記号・数字・空白など）が含まれています。"
                         "アルファベットや仮名・漢字だけの単語にしてください。")
    return word


def bpe_corpus(text: str) -> tuple[tuple[str, int], ...]:
    """Words separated by spaces (or new lines) → (word, count) in order of first appearance.
    Words are letters only (alphabet, kana, kanji)."""
    if not isinstance(text, str) or not text.split():
        raise ValueError("コーパスが空です。空白で区切った単語を 1 つ以上書いてください。")
    words = text.split()
    if len(words) > 300 or max(map(len, words)) > 24:
        raise ValueError("単語は 300 個まで、1 語は 24 文字までにしてください。")
    for w in words:
        _letters(w, "コーパスの単語")
    return tuple(Counter(words).items())


def _merge(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def bpe_train(corpus, n_merges: int) -> BpeResult:
    """Start from characters; at each step count every adjacent pair over the corpus (each word
    weighted by its count), merge the most frequent pair everywhere (a tie: the pair met first when
    reading the corpus word by word, left to right), repeat ``n_merges`` times (fewer when every
    word is one symbol). Merges never cross a word boundary."""
    items = tuple(corpus.items()) if isinstance(corpus, dict) else tuple(corpus)
    if not items or any(not (isinstance(w, str) and w) for w, _ in items):
        raise ValueError("コーパスには 1 文字以上の単語を 1 つ以上入れてください。")
    n = _count(n_merges, "マージの回数", zero=True)
    if n > 200:
        raise ValueError("マージの回数は 200 以下にしてください。")
    words = tuple(w for w, _ in items)
    counts = tuple(_count(c, f"「{w}」の回数") for w, c in items)
    segs = [tuple(w) for w in words]
    start, steps = tuple(segs), []
    for _ in range(n):
        tally: dict[tuple[str, str], int] = {}                              # insertion order = reading order
        for seg, c in zip(segs, counts):
            for pair in zip(seg, seg[1:]):
                tally[pair] = tally.get(pair, 0) + c
        if not tally:
            break
        pair = max(tally, key=tally.get)                                    # first maximum in reading order
        segs = [_merge(s, pair) for s in segs]
        steps.append(BpeStep(pair, tally[pair], tuple(segs), tuple(sorted({t for s in segs for t in s}))))
    return BpeResult(words, counts, start, tuple(steps))


def bpe_tokenize(word: str, merges) -> tuple[str, ...]:
    """A (possibly unseen) word of letters cut into characters, then the learned merges applied in order."""
    if not isinstance(word, str) or not word or len(word) > 24:
        raise ValueError("区切る単語は 1 文字以上 24 文字以下で書いてください。")
    seg = tuple(_letters(word, "区切る単語"))
    for pair in merges:
        seg = _merge(seg, tuple(pair))
    return seg
