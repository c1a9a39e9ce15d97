"""Targeted practice (つまずき練習): fresh questions whose wrong choices include one misconception.

The index of which generators can show which misconception is built once per process by
sampling ``INDEX_SEEDS`` seeds of every generator (a generator's distractors may depend on the
seed). A drill draws generators across topics (one topic after another, so a set is not five
questions of one page) and, for each, a fresh seed whose question really offers the
misconception (tried up to ``FRESH_TRIES`` times; else a seed the index saw). Pure Python.
"""
from __future__ import annotations

import random
import secrets
from functools import lru_cache

from quizzes.core import GENERATOR_INFO, GENERATORS
from quizzes.misconceptions import catalogue, question_ids

INDEX_SEEDS = 8
FRESH_TRIES = 25
SEED_SPACE = 1_000_000      # as ui.quiz: ids "<generator>#<0 … 999999>"
DRILL_SIZE = 5


@lru_cache(maxsize=1)
def misconception_index() -> dict[str, dict[str, tuple[int, ...]]]:
    """{misconception id: {generator id: seeds (of 0 … INDEX_SEEDS−1) whose question offers it}}."""
    index: dict[str, dict[str, list[int]]] = {}
    for gid in sorted(GENERATORS):
        make = GENERATORS[gid]
        for seed in range(INDEX_SEEDS):
            for mid in question_ids(make(seed)):
                index.setdefault(mid, {}).setdefault(gid, []).append(seed)
    return {mid: {g: tuple(s) for g, s in gens.items()} for mid, gens in index.items()}


def generators_for(mid: str) -> tuple[str, ...]:
    """Generator ids that can show misconception ``mid`` (sorted; empty for an unknown id)."""
    return tuple(sorted(misconception_index().get(mid, {})))


def _offers(gid: str, seed: int, mid: str) -> bool:
    return mid in question_ids(GENERATORS[gid](seed))


def drill_ids(mid: str, n: int = DRILL_SIZE, rng: random.Random | None = None) -> list[str]:
    """n question ids whose wrong choices include ``mid``, across topics, no generator twice while
    others are left. ValueError (Japanese) for an id the catalogue does not know."""
    if mid not in catalogue():
        raise ValueError("その誤解はカタログにありません。")
    rng = rng or secrets.SystemRandom()
    gens = misconception_index().get(mid, {})
    if not gens or n <= 0:
        return []
    by_topic: dict[str, list[str]] = {}
    for gid in sorted(gens):
        by_topic.setdefault(GENERATOR_INFO[gid].topic, []).append(gid)
    for pool in by_topic.values():
        rng.shuffle(pool)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    order: list[str] = []                        # round robin over topics
    while any(by_topic[t] for t in topics):
        for t in topics:
            if by_topic[t]:
                order.append(by_topic[t].pop())
    picks = [order[i % len(order)] for i in range(n)]
    out: list[str] = []
    for gid in picks:
        for _ in range(FRESH_TRIES):
            seed = rng.randrange(SEED_SPACE)
            if f"{gid}#{seed}" not in out and _offers(gid, seed, mid):
                break
        else:
            seed = rng.choice(gens[gid])         # a seed the index saw offering it
        out.append(f"{gid}#{seed}")
    return out
