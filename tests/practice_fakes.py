"""A small, known question registry for the practice tests (exam, review, progress files).

``fake_registry()`` swaps the contents of quizzes.GENERATORS / GENERATOR_INFO for fake
generators — for every topic, CALC_PER_TOPIC calculation and KNOW_PER_TOPIC knowledge
generators — and restores the real registry afterwards (also on failure). Pages run by
AppTest in the same process see the same registry, so the tests do not depend on how many
real questions colleagues have written yet.
"""
from __future__ import annotations

from contextlib import contextmanager

from quizzes.core import GENERATOR_INFO, GENERATORS, MOVED, TOPICS, Draft, register

CALC_PER_TOPIC = 2
KNOW_PER_TOPIC = 4


def _calc_draft(topic: str, k: int):
    def draft(rng) -> Draft:
        a, b = (int(x) for x in rng.integers(2, 50, size=2))
        return Draft(
            stem=f"（{topic} 計算 {k}）{a} + {b} を求めよ。",
            correct=str(a + b),
            wrong=((str(a - b), "引き算した：足すところを引いた"),
                   (str(a * b), "掛け算した：足すところを掛けた"),
                   (str(a + b + 1), "1 ずれた：数え間違い")),
            explanation=f"{a} と {b} を足すと {a + b} になる（テスト用の問題）。",
        )
    return draft


def _know_draft(topic: str, k: int):
    def draft(rng) -> Draft:
        return Draft(
            stem=f"（{topic} 知識 {k}）正しいものを1つ選べ。",
            correct=f"正しい記述 {topic}-{k}",
            wrong=tuple((f"誤った記述 {topic}-{k}-{w}", f"誤解{w}：テスト用の誤解") for w in range(3)),
            explanation=f"テスト用の知識問題 {topic}-{k} の解説です。",
        )
    return draft


@contextmanager
def fake_registry(topics=None, calc_per_topic: int = CALC_PER_TOPIC, know_per_topic: int = KNOW_PER_TOPIC):
    saved_g, saved_i, saved_m = dict(GENERATORS), dict(GENERATOR_INFO), dict(MOVED)
    GENERATORS.clear()
    GENERATOR_INFO.clear()
    try:
        for topic in (list(TOPICS) if topics is None else topics):
            for k in range(calc_per_topic):
                register(f"zz.{topic}.calc{k}", topic, _calc_draft(topic, k), kind="calc")
            for k in range(know_per_topic):
                register(f"zz.{topic}.know{k}", topic, _know_draft(topic, k), kind="knowledge")
        yield
    finally:
        GENERATORS.clear()
        GENERATORS.update(saved_g)
        GENERATOR_INFO.clear()
        GENERATOR_INFO.update(saved_i)
        MOVED.clear()
        MOVED.update(saved_m)
