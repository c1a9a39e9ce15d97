"""Vocabularies: token ↔ id, one class for the small vocabularies of the pages (⓪ seq2seq, ⑦-3 the
encoder–decoder, ⑦-4 generation, ⑧ training, ⑨ GPT) and one padding token.

A vocabulary is a tuple of distinct tokens; a token's id is its index:

    v = Vocabulary(("<bos>", "猫", "は"))
    v.ids("猫 は")       → (1, 2)        (a str is split on whitespace; a list is taken as is)
    v.tokens((1, 2))     → ("猫", "は")
    v[1], v.index("猫"), len(v)            (it is a tuple)

Bad input raises ValueError with a Japanese message that lists what the vocabulary allows.
"""
from __future__ import annotations

import numpy as np

__all__ = ["PAD", "Vocabulary"]

PAD = "[PAD]"   # the padding token: ⑥ pads short sentences with it, ⑧'s vocabulary starts with it (id 0)


def quoted(words) -> str:
    """「猫」「は」…: words named the Japanese way, not as a Python list."""
    return "".join(f"「{w}」" for w in words)


class Vocabulary(tuple):
    """A fixed tuple of distinct tokens (id = index), with the tokenizer ``ids`` and its inverse ``tokens``."""

    __slots__ = ()

    def __new__(cls, tokens):
        tokens = tuple(tokens)
        if not tokens or not all(isinstance(t, str) and t for t in tokens):
            raise ValueError(f"語彙は空でない文字列のトークンの列が必要です（{tokens!r}）。")
        if len(set(tokens)) != len(tokens):
            raise ValueError(f"語彙に同じトークンが 2 回あります（{list(tokens)}）。")
        return super().__new__(cls, tokens)

    def ids(self, tokens) -> tuple[int, ...]:
        """Tokens → ids. A str is split on whitespace: "猫 は 魚 を 食べた"."""
        if isinstance(tokens, str):
            tokens = tokens.split()
        tokens = list(tokens)
        if not tokens:
            raise ValueError("トークン列が空です。少なくとも 1 トークン必要です。")
        unknown = list(dict.fromkeys(t for t in tokens if t not in self))
        if unknown:
            raise ValueError(f"語彙にないトークンがあります：{quoted(unknown)}。使えるのは {quoted(self)} です。")
        return tuple(self.index(t) for t in tokens)

    def check_ids(self, ids, name: str = "トークン ID 列") -> tuple[int, ...]:
        """A non-empty 1-D sequence of integer ids inside the vocabulary, as Python ints."""
        arr = np.asarray(ids)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{name} は空でない 1 次元のトークン ID 列が必要です（形 {arr.shape}）。")
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} のトークン ID は整数でなければなりません。")
        if (arr < 0).any() or (arr >= len(self)).any():
            raise ValueError(f"{name} に語彙の範囲 0〜{len(self) - 1} の外の ID があります（{arr.tolist()}）。")
        return tuple(int(i) for i in arr)

    def tokens(self, ids) -> tuple[str, ...]:
        """Ids → tokens."""
        return tuple(self[i] for i in self.check_ids(ids))
