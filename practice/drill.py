"""Targeted practice (つまずき練習): fresh questions aimed at one misconception.

What a set holds depends on the misconception's kind (quizzes.misconceptions):

- a topic misconception: questions whose wrong choices include it;
- a form misconception (a reading skill, e.g. choosing a true statement on a 不適切 item):
  questions of that form (quizzes.misconceptions.question_form), across topics.

The index of which generators fit is built once per process by sampling ``INDEX_SEEDS`` seeds of
every generator (a generator's distractors may depend on the seed). A drill draws generators across
topics (one topic after another, so a set is not five questions of one page) and, for each, a fresh
seed whose question really fits (tried up to ``FRESH_TRIES`` times; else a seed the index saw).

No repeats inside a set: never the same id twice, never two questions of one knowledge item (a
knowledge item is one generator ``kb.<id>``; its seed only shuffles the choices). Every fitting
generator is used once before any repeats; only a calculation generator may then come back, with
another seed and a question of other numbers (another stem), when there are fewer distinct
generators than the set's size. If none of the fitting generators is a calculation, the set is
shorter than asked (as many questions as there are distinct items). Pure Python.
"""
from __future__ import annotations

import random
import secrets
from functools import lru_cache

from quizzes.core import GENERATOR_INFO, GENERATORS, SEED_SPACE, Question
from quizzes.misconceptions import Misconception, catalogue, question_form, question_ids

from .skill import unseen_first

INDEX_SEEDS = 8
FRESH_TRIES = 25
DRILL_SIZE = 5


@lru_cache(maxsize=1)
def _sampled() -> tuple[dict[str, dict[str, tuple[int, ...]]], dict[str, dict[str, tuple[int, ...]]]]:
    """(by misconception, by question form): {key: {generator id: seeds of 0 … INDEX_SEEDS−1 that fit}}."""
    by_mid: dict[str, dict[str, list[int]]] = {}
    by_form: dict[str, dict[str, list[int]]] = {}
    for gid in sorted(GENERATORS):
        make = GENERATORS[gid]
        for seed in range(INDEX_SEEDS):
            q = make(seed)
            for mid in question_ids(q):
                by_mid.setdefault(mid, {}).setdefault(gid, []).append(seed)
            form = question_form(q)
            if form is not None:
                by_form.setdefault(form, {}).setdefault(gid, []).append(seed)

    def freeze(index):
        return {k: {g: tuple(s) for g, s in gens.items()} for k, gens in index.items()}
    return freeze(by_mid), freeze(by_form)


def misconception_index() -> dict[str, dict[str, tuple[int, ...]]]:
    """{misconception id: {generator id: seeds (of 0 … INDEX_SEEDS−1) whose question offers it}}."""
    return _sampled()[0]


def form_index() -> dict[str, dict[str, tuple[int, ...]]]:
    """{question form: {generator id: seeds (of 0 … INDEX_SEEDS−1) whose question is of that form}}."""
    return _sampled()[1]


def _pool(m: Misconception) -> dict[str, tuple[int, ...]]:
    return form_index().get(m.form or "", {}) if m.kind == "form" else misconception_index().get(m.id, {})


def generators_for(mid: str) -> tuple[str, ...]:
    """Generator ids a drill for ``mid`` draws from (sorted; empty for an unknown id): those that can
    show it (topic), or those of its question form (form)."""
    m = catalogue().get(mid)
    return tuple(sorted(_pool(m))) if m is not None else ()


def _fits(m: Misconception, q: Question) -> bool:
    return question_form(q) == m.form if m.kind == "form" else m.id in question_ids(q)


def drill_ids(mid: str, n: int = DRILL_SIZE, rng: random.Random | None = None,
              seen: frozenset[str] = frozenset(), advanced: bool = False) -> list[str]:
    """Up to n question ids aimed at ``mid`` (see the module docstring), across topics, without
    repeats; within a topic, a skill the learner has not answered yet (``seen``:
    practice.skill.seen) before one they have; 発展 items only with ``advanced`` (practice.scope).
    ValueError (Japanese) for an id the catalogue does not know."""
    m = catalogue().get(mid) if isinstance(mid, str) else None
    if m is None:
        raise ValueError("その誤解はカタログにありません。")
    rng = rng or secrets.SystemRandom()
    gens = {g: seeds for g, seeds in _pool(m).items() if advanced or not GENERATOR_INFO[g].advanced}
    if not gens or n <= 0:
        return []
    by_topic: dict[str, list[str]] = {}
    for gid in sorted(gens):
        by_topic.setdefault(GENERATOR_INFO[gid].topic, []).append(gid)
    for t, pool in by_topic.items():
        rng.shuffle(pool)
        by_topic[t] = unseen_first(pool, seen)[::-1]     # popped from the end: the unseen first
    topics = sorted(by_topic)
    rng.shuffle(topics)
    order: list[str] = []                        # round robin over topics
    while any(by_topic[t] for t in topics):
        for t in topics:
            if by_topic[t]:
                order.append(by_topic[t].pop())
    order = unseen_first(order, seen)            # a topic's only, already-met item waits for the new ones
    out: list[str] = []
    stems: set[str] = set()

    def add(gid: str) -> None:
        """Append a fresh seed of ``gid`` whose question fits and is not in the set yet (id, stem)."""
        for _ in range(FRESH_TRIES):
            seed = rng.randrange(SEED_SPACE)
            q = GENERATORS[gid](seed)
            if q.id not in out and q.stem not in stems and _fits(m, q):
                break
        else:                                    # a seed the index saw fitting, if one is still new
            left = [q for s in gens[gid] if (q := GENERATORS[gid](s)).id not in out and q.stem not in stems]
            if not left:
                return
            q = rng.choice(left)
        out.append(q.id)
        stems.add(q.stem)

    for gid in order[:n]:                        # every generator once
        add(gid)
    again = [g for g in order if GENERATOR_INFO[g].kind == "calc"]
    for k in range(2 * n * len(again)):          # then calculations only, other numbers
        if len(out) >= n:
            break
        add(again[k % len(again)])
    return out
