"""The quiz contract: Question, the generator registry, and how a draft becomes a question.

A generator module writes a function ``draft(rng) -> Draft`` that draws its inputs from
``rng``, computes the correct answer and every distractor with ``tutor/`` (each distractor
from a NAMED misconception), and registers it:

    @generator("qkv.score_element", topic="qkv")
    def _score_element(rng: np.random.Generator) -> Draft: ...

The registry turns it into ``callable(seed) -> Question``: it redraws (up to
``MAX_ATTEMPTS`` times) until the four displayed choices are distinct, then shuffles them
with the seed so that every answer position is equally likely.

The stream of a seed never changes: ``_seed_rng`` is part of every question id.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

__all__ = [
    "Question",
    "Draft",
    "TOPICS",
    "KINDS",
    "GENERATORS",
    "GENERATOR_INFO",
    "GeneratorInfo",
    "generator",
    "register",
    "by_topic",
    "from_id",
    "parse_id",
    "is_advanced",
    "MOVED",
    "SEED_SPACE",
    "MAX_SEED",
    "QuizError",
]

# One topic per learning page (the page key). Labels are shown in results by topic.
TOPICS: dict[str, str] = {
    "wordvec": "⓪-1 単語の分散表現",
    "seq2seq": "⓪-2 Seq2Seq と Attention の誕生",
    "naive": "① 素朴なAttention",
    "qkv": "② Q・K・V",
    "scaling": "③ √dₖ スケーリング",
    "formula": "④ 完成形と手計算",
    "multihead": "⑤ Multi-Head Attention",
    "mask": "⑥ 因果マスク",
    "position": "⑦-1 位置エンコーディング",
    "block": "⑦-2 FFN・残差接続・層正規化",
    "encdec": "⑦-3 エンコーダとデコーダ",
    "output": "⑦-4 出力と生成",
    "cost": "⑦-5 計算量",
    "paper": "⑦-6 原論文の実験と評価",
    "training": "⑧ 学習で注意が育つ",
    "pretrain": "⑨-1 BERT・GPT・ViT",
    "bertfamily": "⑨-2 BERT・GPT の後継たち",
    "llm": "⑩-1 大規模言語モデルとその後",
    "adapt": "⑩-2 LLM を目的に合わせる",
    "efficient": "⑩-3 モデルと推論を軽くする",
    "multimodal": "⑪ 画像生成とマルチモーダル",
    "generation": "⑪-2 GAN・NeRF・音声の生成",
}
KINDS = ("calc", "knowledge")
MAX_ATTEMPTS = 200
# The seeds the app draws when it makes a question (the page quiz, the mock exam, the review, the drill):
# ids "<generator>#<0 … 999999>". Six digits keep an id short in a link and in the stored record.
SEED_SPACE = 1_000_000
# The largest seed an id may carry: _seed_rng uses seed & 0xFFFFFFFF, so "g#4294967296" would be
# "g#0" again under another name. parse_id refuses anything above it (a link, a stored record).
MAX_SEED = 2**32 - 1


class QuizError(ValueError):
    """A generator could not make a valid question, or an id does not name one."""


@dataclass(frozen=True)
class Question:
    id: str                          # "<generator>#<seed>", stable: same id → same question
    topic: str                       # page key: "naive", "qkv", "scaling", ...
    stem: str                        # Markdown; math in $...$; G検定 phrasing
    choices: tuple[str, ...]         # exactly 4, distinct as displayed
    answer: int                      # index into choices
    explanation: str                 # why the answer is right, with the engine's numbers
    misconceptions: tuple[str, ...]  # per choice: which mistake leads there; "" for the answer
    kind: str = "calc"               # "calc" (計算問題) or "knowledge" (知識問題)

    @property
    def generator_id(self) -> str:
        return self.id.rsplit("#", 1)[0]


@dataclass(frozen=True)
class Draft:
    """What a generator returns before shuffling.

    wrong: exactly three (choice text, misconception) pairs; the misconception names the
    mistake and says in one sentence why it leads to that choice, e.g.
    "√d_k で割り忘れ：スケーリングを省くと…".
    """
    stem: str
    correct: str
    wrong: tuple[tuple[str, str], ...]
    explanation: str


class GeneratorInfo(NamedTuple):
    topic: str               # page key
    kind: str                # "calc" or "knowledge"
    advanced: bool = False   # 発展: beyond the G検定 syllabus; on the pages, not in the mock exam by default


GENERATORS: dict[str, Callable[[int], Question]] = {}
GENERATOR_INFO: dict[str, GeneratorInfo] = {}  # id → (topic, kind, advanced)
# {former generator id: its id now} for generators that moved to another page (register's moved_from,
# e.g. kb.multihead.k04 → kb.block.k10): a saved "<old>#<seed>" is read as "<new>#<seed>" (practice.store)
MOVED: dict[str, str] = {}


def _tag(generator_id: str) -> int:
    """The generator's part of the seed of its random stream: the FIRST 8 BYTES of its id (UTF-8,
    padded with zero bytes) as a little-endian integer. Every stored question depends on it, so it
    stays as it is, shortcomings and all (tests/test_question_ids.py pins it).

    Guaranteed: the same (generator, seed, attempt) gives the same stream on every machine, and two
    generators whose ids differ within their first 8 bytes draw from different streams.
    NOT guaranteed: a stream per generator. Ids that agree in their first 8 bytes share the stream of
    every seed: "scaling.divisor" and "scaling.variance_blank" ("scaling."), every knowledge item of
    one bank ("kb.seq2s"), every training.* generator. In 2026-12, 238 of the 269 generators shared
    their stream with at least one other (24 groups, the largest 33). For the same seed such
    generators start from the same numbers: pretrain.vit_tokens and pretrain.vit_worst ask about the
    same image and patch size and put the answer at the same letter; knowledge items, whose drafts
    draw nothing, only shuffle their choices with it, so items of one bank put the answer at the same
    letter. Their questions still differ, because their drafts do (other stems, choices, answers), and
    the app draws each question's seed on its own (SEED_SPACE), so a paper rarely holds two ids with
    one seed."""
    return int.from_bytes(generator_id.encode("utf-8")[:8].ljust(8, b"\0"), "little")


_Generator, _PCG64, _SeedSequence = np.random.Generator, np.random.PCG64, np.random.SeedSequence


def _seed_rng(generator_id: str, seed: int, attempt: int, tag: int | None = None) -> np.random.Generator:
    # Same (generator, seed, attempt) → same stream, on every machine. The generator's _tag is mixed
    # in: generators whose ids differ in their first 8 bytes draw other numbers for the same seed,
    # while ids that agree there share the stream (see _tag). Only the low 32 bits of the seed count
    # (hence MAX_SEED).
    if tag is None:
        tag = _tag(generator_id)
    words = (int(seed) & 0xFFFFFFFF, attempt, tag & 0xFFFFFFFF, tag >> 32)
    if 0 <= attempt <= 0xFFFFFFFF and tag >> 64 == 0:
        # The same entropy as the list of four words, handed to SeedSequence as ONE uint32 array
        # (a list of ints is coerced word by word into exactly these four uint32 words; an array
        # skips that Python-level coercion): the same stream, ~3 µs faster. default_rng(s) is
        # Generator(PCG64(SeedSequence(s))).
        return _Generator(_PCG64(_SeedSequence(np.array(words, dtype=np.uint32))))
    return np.random.default_rng(list(words))


def _assemble(generator_id: str, topic: str, kind: str, seed: int, draft, rng) -> Question | None:
    texts = [draft.correct] + [w[0] for w in draft.wrong]
    if len(texts) != 4 or len({t.strip() for t in texts}) != 4:
        return None                                  # the four choices must be distinct: redraw
    notes = ["", *[w[1] for w in draft.wrong]]
    if not (notes[1].strip() and notes[2].strip() and notes[3].strip()):
        raise QuizError(f"{generator_id}: 誤答の選択肢に誤解の名前がありません。")
    a, b, c, d = order = rng.permutation(4).tolist()
    return Question(f"{generator_id}#{int(seed)}", topic, draft.stem,
                    (texts[a], texts[b], texts[c], texts[d]), order.index(0), draft.explanation,
                    (notes[a], notes[b], notes[c], notes[d]), kind)


def register(generator_id: str, topic: str, draft_fn: Callable[[np.random.Generator], "Draft"],
             kind: str = "calc", advanced: bool = False, moved_from: str | None = None):
    """Register ``draft_fn`` under ``generator_id``; returns the ``seed -> Question`` callable.

    ``advanced=True`` tags a generator 発展 (beyond the G検定 syllabus: shown on its page with a
    label, left out of the mock exam unless the learner asks for it). ``moved_from``: the id this
    generator had on another page (kept in :data:`MOVED`; the old id is never registered again)."""
    if topic not in TOPICS:
        raise QuizError(f"未知のトピック {topic!r}")
    if kind not in KINDS:
        raise QuizError(f"未知の問題の種類 {kind!r}")
    if not isinstance(advanced, bool):
        raise QuizError(f"advanced は True か False にしてください: {advanced!r}")
    if "#" in generator_id or generator_id in GENERATORS or generator_id in MOVED:
        raise QuizError(f"生成器 id {generator_id!r} が不正か重複しています。")
    if moved_from is not None:
        if "#" in moved_from or moved_from in GENERATORS or moved_from in MOVED or moved_from == generator_id:
            raise QuizError(f"移る前の生成器 id {moved_from!r} が不正か重複しています。")
        MOVED[moved_from] = generator_id

    tag = _tag(generator_id)

    def make(seed: int) -> Question:
        for attempt in range(MAX_ATTEMPTS):
            rng = _seed_rng(generator_id, seed, attempt, tag)
            question = _assemble(generator_id, topic, kind, seed, draft_fn(rng), rng)
            if question is not None:
                return question
        raise QuizError(f"{generator_id}#{seed}: {MAX_ATTEMPTS} 回引き直しても 4 つの異なる選択肢が作れませんでした。")

    make.__name__ = f"make_{generator_id.replace('.', '_')}"
    make.__doc__ = draft_fn.__doc__
    GENERATORS[generator_id] = make
    GENERATOR_INFO[generator_id] = GeneratorInfo(topic, kind, advanced)
    return make


def generator(generator_id: str, topic: str, kind: str = "calc", advanced: bool = False,
              moved_from: str | None = None):
    """Decorator form of :func:`register`."""
    def deco(draft_fn):
        register(generator_id, topic, draft_fn, kind, advanced, moved_from)
        return draft_fn
    return deco


def by_topic(topic: str, kind: str | None = None) -> list[str]:
    """Generator ids for one page (optionally only 'calc' or 'knowledge'), in a stable order."""
    return sorted(g for g, (t, k, _) in GENERATOR_INFO.items() if t == topic and (kind is None or k == kind))


def is_advanced(qid: str) -> bool:
    """Whether a generator id or question id ('<generator>#<seed>') is tagged 発展 (unknown ids: False)."""
    info = GENERATOR_INFO.get(str(qid).rsplit("#", 1)[0])
    return bool(info and info.advanced)


def parse_id(qid: str) -> tuple[str, int]:
    """'<generator_id>#<seed>' → (generator_id, seed); QuizError if it does not name a question.
    A generator's former id (:data:`MOVED`) is read as its id now. The seed is 0 … :data:`MAX_SEED`
    (the seeds whose streams differ); a larger one is refused, never read as its alias."""
    if not isinstance(qid, str) or qid.count("#") != 1:
        raise QuizError(f"問題 id の形が正しくありません: {qid!r}")
    gid, _, seed_text = qid.partition("#")
    gid = MOVED.get(gid, gid)             # a link or a record written before the generator moved
    if gid not in GENERATORS:
        raise QuizError(f"この問題はもうありません（生成器 {gid!r} が見つかりません）。")
    if not (seed_text.isascii() and seed_text.isdigit()) or len(seed_text) > 12:
        raise QuizError(f"問題 id のシード部分が正しくありません: {seed_text!r}")
    seed = int(seed_text)
    if seed > MAX_SEED:   # would name the same question as seed & 0xFFFFFFFF (_seed_rng)
        raise QuizError(f"問題 id のシードが大きすぎます（{MAX_SEED:,} まで）。")
    return gid, seed


def from_id(qid: str) -> Question:
    """'<generator_id>#<seed>' → the same Question again."""
    gid, seed = parse_id(qid)
    return GENERATORS[gid](seed)
