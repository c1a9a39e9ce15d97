"""The mock exam (模擬試験): assembling a paper, the clock, and scoring. Pure Python.

As in the real G検定, knowledge questions are the majority and calculation questions a
minority (CALC_SHARE); the default pace is the real exam's ≈ 40 s per question.
"""
from __future__ import annotations

import random
from datetime import datetime

from quizzes.core import GENERATOR_INFO, TOPICS, Question

LENGTHS = (10, 20, 40)
DEFAULT_PACE_S = 40          # seconds per question (about 145 questions in 100 minutes)
PACE_CHOICES = (30, 40, 60, 90)
CALC_SHARE = 0.2             # about one question in five is a calculation
SEED_SPACE = 1_000_000


def _spread(pool: list[str], n: int, rng: random.Random) -> list[str]:
    """n generator ids from pool, topics taking turns, no id twice until the pool is used up."""
    if not pool or n <= 0:
        return []
    by_topic: dict[str, list[str]] = {}
    for gid in pool:
        by_topic.setdefault(GENERATOR_INFO[gid][0], []).append(gid)
    for ids in by_topic.values():
        rng.shuffle(ids)
    topics = list(by_topic)
    rng.shuffle(topics)
    out: list[str] = []
    taken = {t: 0 for t in topics}
    while len(out) < n:
        for t in topics:
            if len(out) == n:
                break
            out.append(by_topic[t][taken[t] % len(by_topic[t])])
            taken[t] += 1
    return out


def build_exam(n: int, seed: int) -> list[str]:
    """Question ids for an n-question paper mixing every topic; same seed → same paper."""
    if n < 1:
        raise ValueError("問題数は 1 以上にしてください。")
    rng = random.Random(seed)
    calc = sorted(g for g, (_, k) in GENERATOR_INFO.items() if k == "calc")
    know = sorted(g for g, (_, k) in GENERATOR_INFO.items() if k == "knowledge")
    if not know:
        n_calc = n
    elif not calc:
        n_calc = 0
    else:
        n_calc = min(n, max(1, round(n * CALC_SHARE)))
    picks = _spread(calc, n_calc, rng) + _spread(know, n - n_calc, rng)
    rng.shuffle(picks)
    return [f"{g}#{rng.randrange(SEED_SPACE)}" for g in picks]


def time_limit_s(n: int, pace_s: int = DEFAULT_PACE_S) -> int:
    return int(n) * int(pace_s)


def remaining_s(started_at: datetime, now: datetime, limit_s: int) -> int:
    """Seconds left (never negative)."""
    return max(0, int(limit_s - (now - started_at).total_seconds()))


def score_exam(questions: list[Question], answers: dict[int, int | None]) -> dict:
    """Score a paper. answers maps question index → chosen index (None / missing = 未回答)."""
    items, by_topic = [], {}
    for i, q in enumerate(questions):
        choice = answers.get(i)
        correct = choice is not None and choice == q.answer
        items.append({
            "qid": q.id, "topic": q.topic, "choice": choice, "answer": q.answer, "correct": correct,
            "misconception": q.misconceptions[choice] if choice is not None and not correct else "",
        })
        t = by_topic.setdefault(q.topic, {"correct": 0, "total": 0})
        t["total"] += 1
        t["correct"] += int(correct)
    score = sum(it["correct"] for it in items)
    return {"score": score, "total": len(questions),
            "percent": 100.0 * score / len(questions) if questions else 0.0,
            "by_topic": by_topic, "items": items}


def topic_rows(result: dict) -> list[dict]:
    """Per-topic rows for the result chart, in the learning path's order."""
    return [{"topic": t, "label": TOPICS[t], "correct": v["correct"], "total": v["total"],
             "percent": 100.0 * v["correct"] / v["total"]}
            for t in TOPICS if (v := result["by_topic"].get(t))]


def history_record(result: dict, started_at: datetime, finished_at: datetime, pace_s: int) -> dict:
    """What the progress file keeps of one finished exam."""
    return {
        "at": finished_at.replace(microsecond=0).isoformat(),
        "total": result["total"], "score": result["score"],
        "seconds": max(0, int((finished_at - started_at).total_seconds())), "pace": int(pace_s),
        "by_topic": {t: [v["correct"], v["total"]] for t, v in result["by_topic"].items()},
    }
