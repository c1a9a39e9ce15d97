"""Spans of tokens: T5's span corruption (and BART's text infilling) with its input and target
lengths, and BERT's answer span on SQuAD — each with the named mistakes next to it
(tutor.bertfamily re-exports every name)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import positive_int

T5_SENTINELS = ("〈X〉", "〈Y〉", "〈Z〉", "〈W〉", "〈V〉", "〈U〉", "〈T〉", "〈S〉", "〈R〉")
T5_DEMO_TOKENS = ("私", "は", "昨日", "駅", "で", "古い", "友人", "に", "会った", "。")
T5_DEMO_SPANS = ((2, 1), (5, 2))         # 昨日 | 古い 友人
MAX_SPAN_TOKENS = 40
SQUAD_DEMO_TOKENS = ("焼いた", "魚", "を", "食べた")    # the passage; the question: 猫は何を食べた？
SQUAD_DEMO_START = (4, 0, 1, 5)
SQUAD_DEMO_END = (1, 6, 0, 2)


# ---------------------------------------------------------------------------
# T5: span corruption (and BART's text infilling)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SpanCorruption:
    tokens: tuple[str, ...]               # (n,) the original
    spans: tuple[tuple[int, int], ...]    # (start, length), ascending, 0-based
    inputs: tuple[str, ...]               # kept tokens, one sentinel where each span was
    targets: tuple[str, ...]              # sentinel, span, sentinel, span, …, final sentinel

    @property
    def dropped(self) -> int:
        return sum(length for _, length in self.spans)

    @property
    def input_length(self) -> int:
        """n − dropped + spans."""
        return len(self.inputs)

    @property
    def target_length(self) -> int:
        """dropped + spans + 1."""
        return len(self.targets)


def _check_spans(spans, n: int) -> tuple[tuple[int, int], ...]:
    out = tuple(sorted((int(s), int(length)) for s, length in spans))
    if not out:
        raise ValueError("隠す範囲がありません。少なくとも 1 つ指定してください。")
    if len(out) > len(T5_SENTINELS):
        raise ValueError(f"隠す範囲は {len(T5_SENTINELS)} 個までにしてください（いま {len(out)} 個）。")
    end = -1
    for s, length in out:
        if length < 1 or s < 0 or s + length > n:
            raise ValueError(f"範囲 {s + 1}〜{s + length} が文（1〜{n}）の外にはみ出しています。")
        if s <= end:
            raise ValueError(f"範囲 {s + 1}〜{s + length} が前の範囲と重なるか隣り合っています。"
                             "隣り合う範囲は 1 つの範囲にまとめてください。")
        end = s + length
    return out


def span_corruption(tokens: Sequence[str], spans) -> SpanCorruption:
    """T5's objective on one sentence: each span (start, length) is dropped and ONE sentinel
    takes its place in the input; the target is sentinel₁ span₁ sentinel₂ span₂ … and a final
    sentinel (Raffel et al. 2019/2020).

        input length  = n − dropped + spans
        target length = dropped + spans + 1
    """
    tokens = tuple(tokens)
    if not tokens:
        raise ValueError("文が空です。トークンを 1 つ以上入れてください。")
    if len(tokens) > MAX_SPAN_TOKENS:
        raise ValueError(f"トークンは {MAX_SPAN_TOKENS} 個までにしてください（いま {len(tokens)} 個）。")
    spans = _check_spans(spans, len(tokens))
    inputs, targets, pos = [], [], 0
    for k, (s, length) in enumerate(spans):
        inputs += [*tokens[pos:s], T5_SENTINELS[k]]
        targets += [T5_SENTINELS[k], *tokens[s:s + length]]
        pos = s + length
    inputs += tokens[pos:]
    targets.append(T5_SENTINELS[len(spans)])
    return SpanCorruption(tokens, spans, tuple(inputs), tuple(targets))


def target_without_final_sentinel(tokens, spans) -> int:
    """MISTAKE: the closing sentinel of the target forgotten: dropped + spans."""
    return span_corruption(tokens, spans).target_length - 1


def target_without_sentinels(tokens, spans) -> int:
    """MISTAKE: the target taken as the dropped words alone: dropped."""
    return span_corruption(tokens, spans).dropped


def target_whole_text(tokens, spans) -> int:
    """MISTAKE (BART's infilling): the target taken as the whole original text: n."""
    return len(span_corruption(tokens, spans).tokens)


def input_mask_per_token(tokens, spans) -> int:
    """MISTAKE: one mask per dropped token (BERT's way), not one per span: n."""
    return len(span_corruption(tokens, spans).tokens)


def input_without_sentinels(tokens, spans) -> int:
    """MISTAKE: the spans dropped with nothing in their place: n − dropped."""
    c = span_corruption(tokens, spans)
    return len(c.tokens) - c.dropped


def parse_spans(text: str, n: int) -> tuple[tuple[int, int], ...]:
    """'2-3, 7' (1-based, inclusive, as the learner types it) → ((1, 2), (6, 1))."""
    n = positive_int(n, "トークン数 n")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("隠す範囲が空です。「2-3, 7」のように位置の番号で入れてください。")
    spans = []
    for part in (p for p in re.split(r"[,、，\s]+", text.strip()) if p):
        m = re.fullmatch(r"(\d{1,2})(?:[-‐－〜~](\d{1,2}))?", part)
        if not m:
            raise ValueError(f"「{part[:8]}」は範囲として読めません。「2-3」や「7」のように書いてください。")
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b < a:
            raise ValueError(f"範囲「{part}」は終わりが始まりより前です。")
        spans.append((a - 1, b - a + 1))
    return _check_spans(spans, n)


# ---------------------------------------------------------------------------
# SQuAD with BERT: the answer span
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SpanAnswer:
    start: np.ndarray    # (n,) start scores S·T_i
    end: np.ndarray      # (n,) end scores E·T_j
    scores: np.ndarray   # (n, n) start_i + end_j, −inf where j < i
    best: tuple[int, int]

    @property
    def best_score(self) -> float:
        return float(self.scores[self.best])

    @property
    def start_argmax(self) -> int:
        """Where the start score alone is largest."""
        return int(np.argmax(self.start))

    @property
    def end_argmax(self) -> int:
        """Where the end score alone is largest."""
        return int(np.argmax(self.end))


def _scores(start, end) -> tuple[np.ndarray, np.ndarray]:
    s, e = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    if s.ndim != 1 or s.shape != e.shape or s.size == 0:
        raise ValueError(f"開始と終了のスコアは同じ長さの 1 次元の列にしてください（{s.shape} と {e.shape}）。")
    if not (np.isfinite(s).all() and np.isfinite(e).all()):
        raise ValueError("スコアに NaN または無限大が含まれています。")
    return s, e


def best_span(start, end) -> SpanAnswer:
    """BERT on SQuAD (Devlin et al. 2019): the span i..j (i ≤ j) with the largest start_i + end_j
    (ties: the earliest i, then the earliest j)."""
    s, e = _scores(start, end)
    n = s.size
    table = s[:, None] + e[None, :]                                   # (n, n)
    table = np.where(np.triu(np.ones((n, n), dtype=bool)), table, -np.inf)
    i, j = np.unravel_index(int(np.argmax(table)), table.shape)
    return SpanAnswer(s, e, table, (int(i), int(j)))


def span_ignoring_order(start, end) -> float:
    """MISTAKE: the largest start and the largest end added, even when the end comes first:
    max start + max end."""
    s, e = _scores(start, end)
    return float(s.max() + e.max())


def span_start_first(start, end) -> tuple[int, int]:
    """MISTAKE: the best start fixed first, then the best end after it."""
    s, e = _scores(start, end)
    i = int(np.argmax(s))
    return i, i + int(np.argmax(e[i:]))


def span_end_first(start, end) -> tuple[int, int]:
    """MISTAKE: the best end fixed first, then the best start before it."""
    s, e = _scores(start, end)
    j = int(np.argmax(e))
    return int(np.argmax(s[: j + 1])), j


def span_single_token(start, end) -> tuple[int, int]:
    """MISTAKE: the answer taken as one token, the i that maximises start_i + end_i."""
    s, e = _scores(start, end)
    i = int(np.argmax(s + e))
    return i, i


def span_candidates(n: int) -> int:
    """Spans i ≤ j of an n-token passage: n(n + 1)/2."""
    n = positive_int(n, "トークン数 n")
    return n * (n + 1) // 2
