"""The synthetic task of ⑧: its vocabulary, its sentences 「A は B を V1 。 それ を V2」, and datasets."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..vocab import PAD, Vocabulary


# ---------------------------------------------------------------------------
# vocabulary
# ---------------------------------------------------------------------------
ANIMALS = ("猫", "犬", "鳥", "熊", "狐")
FOODS = ("魚", "肉", "米", "豆", "柿")
_PARTICLES = ("は", "を", "。")
_VERBS_FOUND = ("見つけた", "拾った", "運んだ")
_VERBS_AFTER = ("食べた", "隠した", "追いかけた")
SORE = "それ"
_WHEN = ("昨日", "今朝")          # optional, sentence start
_WHERE = ("森で", "川で")         # optional, after は
_HOW = ("すぐに", "そっと")       # optional, after 。
VOCAB = Vocabulary((PAD, *ANIMALS, *FOODS, *_PARTICLES, *_VERBS_FOUND, *_VERBS_AFTER,
                    SORE, *_WHEN, *_WHERE, *_HOW))      # id 0 = PAD (the padding of every batch)
VARIANTS = ("basic", "order")
MAX_LEN = 12  # 昨日 A は 森で B を V1 。 すぐに それ を V2


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant は {VARIANTS} のどれかです（{variant!r}）。")
    return variant


# ---------------------------------------------------------------------------
# the synthetic task
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Dataset:
    tokens: np.ndarray     # (N, MAX_LEN) int, padded with 0 (= <pad>)
    lengths: np.ndarray    # (N,) number of real tokens
    sore_pos: np.ndarray   # (N,) position of それ
    target: np.ndarray     # (N,) token id of B (the referent of それ)
    b_pos: np.ndarray      # (N,) position of B
    variant: str

    def __len__(self) -> int:
        return int(self.tokens.shape[0])

    def sentence(self, i: int) -> tuple[str, ...]:
        return VOCAB.tokens(self.tokens[i, : self.lengths[i]])


def readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a)  # own copy, then frozen
    a.flags.writeable = False
    return a


def _sentence(rng: np.random.Generator, variant: str) -> tuple[list[str], int, int]:
    """One sentence → (words, position of B, position of それ)."""
    if variant == "basic":
        a = ANIMALS[rng.integers(len(ANIMALS))]
        b = FOODS[rng.integers(len(FOODS))]
        v2 = _VERBS_AFTER[rng.integers(2)]                     # 食べた / 隠した
    else:
        i, j = rng.choice(len(ANIMALS), size=2, replace=False)
        a, b = ANIMALS[i], ANIMALS[j]
        v2 = _VERBS_AFTER[[0, 2][rng.integers(2)]]             # 食べた / 追いかけた
    v1 = _VERBS_FOUND[rng.integers(len(_VERBS_FOUND))]
    when, where, how = (rng.integers(3) for _ in range(3))      # 0, 1 → that word; 2 → none
    words: list[str] = []
    if when < 2:
        words.append(_WHEN[when])
    words += [a, "は"]
    if where < 2:
        words.append(_WHERE[where])
    b_pos = len(words)
    words += [b, "を", v1, "。"]
    if how < 2:
        words.append(_HOW[how])
    sore_pos = len(words)
    words += [SORE, "を", v2]
    return words, b_pos, sore_pos


def make_dataset(n: int, rng: np.random.Generator, variant: str = "basic") -> Dataset:
    """``n`` sentences of the task drawn from ``rng``; see the module docstring."""
    check_variant(variant)
    n = int(n)
    if n < 1:
        raise ValueError(f"文の数 n は 1 以上が必要です（n = {n}）。")
    tokens = np.zeros((n, MAX_LEN), dtype=np.int64)             # (N, MAX_LEN)
    lengths = np.zeros(n, dtype=np.int64)                        # (N,)
    sore_pos = np.zeros(n, dtype=np.int64)                       # (N,)
    b_pos = np.zeros(n, dtype=np.int64)                          # (N,)
    for i in range(n):
        words, b_pos[i], sore_pos[i] = _sentence(rng, variant)
        lengths[i] = len(words)
        tokens[i, : len(words)] = VOCAB.ids(words)
    target = tokens[np.arange(n), b_pos]                         # (N,)
    return Dataset(readonly(tokens), readonly(lengths), readonly(sore_pos), readonly(target), readonly(b_pos), variant)


def probe_sentence(variant: str = "basic") -> Dataset:
    """The textbook sentence as a one-sentence dataset (fixed, no randomness).

    basic: 猫 は 魚 を 見つけた 。 それ を 食べた   order: 猫 は 鳥 を 見つけた 。 それ を 追いかけた
    """
    check_variant(variant)
    b, v2 = ("魚", "食べた") if variant == "basic" else ("鳥", "追いかけた")
    words = ["猫", "は", b, "を", "見つけた", "。", SORE, "を", v2]
    tokens = np.zeros((1, MAX_LEN), dtype=np.int64)              # (1, MAX_LEN)
    tokens[0, : len(words)] = VOCAB.ids(words)
    return Dataset(readonly(tokens), readonly([len(words)]), readonly([6]), readonly([VOCAB.index(b)]), readonly([2]), variant)


