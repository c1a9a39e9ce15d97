"""A review card is a skill, not a printed item. Pure Python.

The review schedule (practice.review) keeps one FSRS card per SKILL; the attempt log keeps the
exact question shown (``"<generator>#<seed>"``), and ``?q=<id>`` still opens that exact question.

The skill of a question id (:func:`key`):

- a calculation question ``"naive.score_element#42"`` → its generator, ``"naive.score_element"``:
  every seed is an instance of the same skill (new numbers, the same misconceptions behind the
  wrong choices);
- a knowledge question ``"kb.naive.k02#7"`` → the item's fact. An item is a fact of its own, so
  the key is its generator ``"kb.naive.k02"`` (the seed only orders the choices); items that name
  one shared ``fact`` in the bank (siblings, quizzes.knowledge.fact_groups) share one key, the
  first of their generator ids in sorted order, whichever of them was answered.

So a skill key is always a generator id, never has a ``#``, and ``key(key(q)) == key(q)``.

Reviewing a due card shows a fresh instance of its skill (:func:`draw`): another seed of the
generator (another sibling of the fact, where it has one), never the question last shown for that
skill (:func:`last_shown`), and with the right answer at another letter than last time, so the
review cannot be answered by remembering the letter.

Records written before skill cards (schema 2 and 1) kept one card per question id: :func:`rekey`
turns such a schedule into one keyed by skill, merging the cards of one skill (:func:`merged`).
"""
from __future__ import annotations

from datetime import datetime

import numpy as np

from quizzes import knowledge as _knowledge
from quizzes.core import GENERATOR_INFO, SEED_SPACE, QuizError, from_id

from .record import MAX_COUNT  # a merged card's lapses and reps stay within what practice.record allows

DRAW_TRIES = 16             # candidates :func:`draw` looks at (each has its answer elsewhere with p = 3/4)


def instances(gid: str) -> tuple[str, ...]:
    """The generator ids of ``gid``'s skill, sorted: the items of its fact that this version has
    (quizzes.knowledge.fact_groups), or just ``(gid,)``. The first one is the skill key."""
    for group in _knowledge.fact_groups().values():
        if gid in group:
            present = tuple(g for g in group if g in GENERATOR_INFO)
            return present or (gid,)
    return (gid,)


def key(qid: str) -> str:
    """The skill key of a question id ``"<generator>#<seed>"`` (or of a skill key: the same key).

    The generator, or for a knowledge item that shares a fact, the fact's first generator id. An id
    whose generator this version does not know keeps its generator part (practice.store decides
    whether such a card is kept)."""
    return instances(str(qid).partition("#")[0])[0]


def is_skill(k) -> bool:
    """Whether ``k`` is a skill key this version knows: a generator id that is its own key."""
    return isinstance(k, str) and "#" not in k and k in GENERATOR_INFO and key(k) == k


def topic(skill: str, default: str | None = None) -> str | None:
    """The page key of a skill (its generator's topic); ``default`` for a generator this version lacks."""
    info = GENERATOR_INFO.get(skill)
    return info.topic if info is not None else default


def seen(attempts: list) -> frozenset[str]:
    """The skills the learner has answered a question of, anywhere (page, exam, review, drill)."""
    return frozenset(key(a["qid"]) for a in attempts)


def unseen_first(gids, seen_skills: frozenset[str]) -> list[str]:
    """``gids`` in their order, those of a skill the learner has not met yet first (a stable
    partition): practice draws what is new before it repeats, so an hour of page quizzes, drill
    and mock exam does not bring back a knowledge item while unseen ones remain."""
    gids = list(gids)
    return [g for g in gids if key(g) not in seen_skills] + [g for g in gids if key(g) in seen_skills]


def last_shown(attempts: list, skill: str) -> str | None:
    """The question id last answered for ``skill`` (newest attempt first), or None."""
    for a in reversed(attempts):
        if key(a["qid"]) == skill:
            return a["qid"]
    return None


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(f"np.random.Generator か整数のシードを渡してください：{rng!r}")


def draw(skill: str, rng, last: str | None = None) -> str:
    """The question id to show for the due card of ``skill``: deterministic given ``rng`` (an
    ``np.random.Generator``, which it advances, or an integer seed) and ``last``.

    Rule: the item is drawn among the skill's :func:`instances` other than ``last``'s (a sibling
    of the fact, when the bank has one; else the same generator), the seed from ``SEED_SPACE``.
    Of up to ``DRAW_TRIES`` candidates the first is taken that is not ``last`` itself, does not
    look like it (the same stem and choices in the same order) and has its right answer at another
    letter; failing that (a question with few forms), the first candidate that looks different;
    failing that, the first that is not ``last``. ``last`` (usually :func:`last_shown`) may be None
    or an id that can no longer be made: then any candidate will do. QuizError when the skill's
    generator is gone."""
    rng = _rng(rng)
    items = [g for g in instances(skill) if g in GENERATOR_INFO]
    if not items:
        raise QuizError(f"この問題はもうありません（生成器 {skill!r} が見つかりません）。")
    before = None
    if last is not None:
        try:
            before = from_id(last)
        except QuizError:
            before = None
    last_gid = str(last).partition("#")[0] if last is not None else None
    pool = [g for g in items if g != last_gid] or items
    other = different = None
    for _ in range(DRAW_TRIES):
        gid = pool[int(rng.integers(len(pool)))]
        qid = f"{gid}#{int(rng.integers(SEED_SPACE))}"
        if qid == last:
            continue
        if before is None:
            return qid
        question = from_id(qid)
        same_look = (question.stem, question.choices) == (before.stem, before.choices)
        if not same_look and question.answer != before.answer:
            return qid
        other = other or qid
        different = different or (None if same_look else qid)
    pick = different or other
    if pick:
        return pick
    gid, _, seed = str(last).partition("#")          # every candidate was ``last`` itself
    return f"{gid}#{(int(seed) + 1) % SEED_SPACE}"


def _due(card: dict) -> datetime:
    return datetime.fromisoformat(card["due"])


def merged(cards: list[dict], topic_: str | None = None) -> dict:
    """One card for several cards of one skill (a record from before skill cards kept one card
    per question id). Rule:

    - the memory (state, step, stability, difficulty, last_review) is that of the card reviewed
      last (on a tie: more reviews, then the lower stability; never reviewed counts as oldest);
    - the due time is the earliest of all the cards';
    - lapses and reps are added up (capped at MAX_COUNT): each was one answer to this skill.

    Why: the skill's latest answer is the best evidence of what the learner knows of it now (a
    miss yesterday outweighs a right answer weeks ago, and a right answer today after a miss last
    week shows the skill came back); it is also how two tabs' cards of one skill are joined
    (practice.progress.merge). The earliest due time keeps every promise the schedule made: a
    question the learner was told would come back on a day still comes back by then, as its skill
    (never later: a merge postpones no review). Keeping only the card due first could instead keep
    an old, long-stable card and let the next right answer jump weeks ahead over a fresh miss;
    keeping the most lapses would throw away the latest answers.

    ``topic_``: the skill's page (default: that card's). One card is returned as it is (with ``topic_``)."""
    if not cards:
        raise ValueError("合わせるカードがありません。")
    latest = min(cards, key=lambda c: (_neg(c["last_review"]), -c["reps"], c["stability"] or 0.0))
    if len(cards) == 1:
        return latest if topic_ in (None, latest["topic"]) else {**latest, "topic": topic_}
    first = min(cards, key=_due)
    return {**latest, "topic": topic_ or latest["topic"], "due": first["due"],
            "lapses": min(MAX_COUNT, sum(c["lapses"] for c in cards)),
            "reps": min(MAX_COUNT, sum(c["reps"] for c in cards))}


def _neg(last_review: str | None) -> float:
    """Sort key: the card reviewed last first (never reviewed: after all the others)."""
    return float("inf") if last_review is None else -datetime.fromisoformat(last_review).timestamp()


def rekey(review: dict) -> dict:
    """A schedule keyed by question ids (a record before skill cards) or by skill keys, as one
    keyed by skill keys (:func:`key`): the cards of one skill merged into one (:func:`merged`),
    each with its skill's topic. In the order of each skill's first card. ``review`` itself when
    every key is a skill key already (nothing to merge)."""
    groups: dict[str, list[dict]] = {}
    for k, card in review.items():
        groups.setdefault(key(k), []).append(card)
    if len(groups) == len(review) and all(k in groups for k in review):
        return review
    return {s: merged(cards, topic(s, cards[0]["topic"])) for s, cards in groups.items()}
