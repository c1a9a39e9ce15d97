"""The mock exam (模擬試験): assembling a paper, the clock, and scoring. Pure Python.

As in the real G検定, knowledge questions are the majority and calculation questions a
minority (CALC_SHARE); the default pace is the real exam's ≈ 40 s per question.
The server's clock is the authority: ``remaining_s`` is computed from the start time
kept in the session, never from anything the browser sends.
"""
from __future__ import annotations

import math
import random
from datetime import datetime

from quizzes.core import GENERATOR_INFO, TOPICS, Question

from .progress import apply_answers
from .review import schedule_wrong

LENGTHS = (10, 20, 40)
DEFAULT_PACE_S = 40          # seconds per question (about 145 questions in 100 minutes)
PACE_CHOICES = (30, 40, 60, 90)
CALC_SHARE = 0.2             # about one question in five is a calculation
SEED_SPACE = 1_000_000
MAX_EXAMS_KEPT = 200         # history entries kept in the progress file


def _spread(pool: list[str], n: int, rng: random.Random) -> list[str]:
    """n generator ids from pool, topics taking turns, no id twice until the pool is used up.

    A topic whose ids are used up sits out until every topic is used up; then a new
    round starts (ids repeat only when n is larger than the pool).
    """
    if not pool or n <= 0:
        return []
    by_topic: dict[str, list[str]] = {}
    for gid in sorted(pool):
        by_topic.setdefault(GENERATOR_INFO[gid][0], []).append(gid)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    out: list[str] = []
    while len(out) < n:
        queues = {t: rng.sample(by_topic[t], len(by_topic[t])) for t in topics}
        while len(out) < n and any(queues.values()):
            for t in topics:
                if len(out) == n:
                    break
                if queues[t]:
                    out.append(queues[t].pop())
    return out


def exam_mix(n: int, n_calc_pool: int, n_know_pool: int) -> tuple[int, int]:
    """(calculation, knowledge) counts for an n-question paper.

    About CALC_SHARE calculations (at least one when there are any); knowledge questions
    are never repeated within a paper (the seed only reshuffles their choices), so when
    the bank has fewer than needed, calculations (fresh numbers each time) fill the rest.
    """
    if n < 1:
        raise ValueError("問題数は 1 以上にしてください。")
    if n_know_pool == 0:
        return (n if n_calc_pool else 0), 0
    if n_calc_pool == 0:
        return 0, min(n, n_know_pool)
    n_calc = min(n, max(1, round(n * CALC_SHARE)))
    n_know = min(n - n_calc, n_know_pool)
    return n - n_know, n_know


def build_exam(n: int, seed: int) -> list[str]:
    """Question ids for an n-question paper mixing every topic; same seed → same paper.

    Shorter than n only when there are no calculation generators and the knowledge bank
    is smaller than n (knowledge questions are not repeated). Empty registry → [].
    """
    rng = random.Random(seed)
    calc = sorted(g for g, (_, k) in GENERATOR_INFO.items() if k == "calc")
    know = sorted(g for g, (_, k) in GENERATOR_INFO.items() if k == "knowledge")
    n_calc, n_know = exam_mix(n, len(calc), len(know))
    picks = _spread(calc, n_calc, rng) + _spread(know, n_know, rng)
    rng.shuffle(picks)
    return [f"{g}#{rng.randrange(SEED_SPACE)}" for g in picks]


def time_limit_s(n: int, pace_s: int = DEFAULT_PACE_S) -> int:
    return int(n) * int(pace_s)


def elapsed_s(started_at: datetime, now: datetime) -> float:
    return max(0.0, (now - started_at).total_seconds())


def remaining_s(started_at: datetime, now: datetime, limit_s: int) -> int:
    """Whole seconds left, rounded up (never negative): 0 exactly when time is up."""
    return max(0, math.ceil(limit_s - (now - started_at).total_seconds()))


def is_time_up(started_at: datetime, now: datetime, limit_s: int) -> bool:
    return remaining_s(started_at, now, limit_s) == 0


def format_clock(seconds: float) -> str:
    """Seconds → "m:ss" (or "h:mm:ss" from one hour)."""
    s = max(0, int(math.ceil(seconds)))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def time_fraction_left(started_at: datetime, now: datetime, limit_s: int) -> float:
    """Share of the time still left, 0.0 … 1.0 (for a progress bar)."""
    if limit_s <= 0:
        return 0.0
    return min(1.0, remaining_s(started_at, now, limit_s) / limit_s)


def paper_status(n: int, answers: dict[int, int | None], flags: set[int] | frozenset[int]) -> dict:
    """Counts and lists shown before submitting: answered, unanswered, flagged."""
    answered = [i for i in range(n) if answers.get(i) is not None]
    unanswered = [i for i in range(n) if answers.get(i) is None]
    flagged = sorted(i for i in flags if 0 <= i < n)
    return {"answered": len(answered), "unanswered": unanswered, "flagged": flagged, "total": n}


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
    unanswered = sum(it["choice"] is None for it in items)
    return {"score": score, "total": len(questions),
            "percent": 100.0 * score / len(questions) if questions else 0.0,
            "wrong": len(questions) - score - unanswered, "unanswered": unanswered,
            "by_topic": by_topic, "items": items}


def review_note(result: dict) -> str:
    """What the result page says about the questions that went into the review schedule."""
    parts = [f"{label} {n} 問" for label, n in (("間違えた", result["wrong"]), ("未回答の", result["unanswered"])) if n]
    return "と".join(parts) + "は復習の予定に入りました。" if parts else ""


def topic_rows(result: dict) -> list[dict]:
    """Per-topic rows for the result chart, in the learning path's order."""
    return [{"topic": t, "label": TOPICS[t], "correct": v["correct"], "total": v["total"],
             "percent": 100.0 * v["correct"] / v["total"]}
            for t in TOPICS if (v := result["by_topic"].get(t))]


def weakest_topic(result: dict) -> str | None:
    """The topic with the lowest share correct (ties: learning-path order); None if all right."""
    rows = [r for r in topic_rows(result) if r["correct"] < r["total"]]
    return min(rows, key=lambda r: r["percent"])["topic"] if rows else None


def history_record(result: dict, started_at: datetime, finished_at: datetime, pace_s: int) -> dict:
    """What the progress file keeps of one finished exam.

    Time used never exceeds the time limit (a paper submitted late by the server — e.g.
    the tab was asleep at the deadline — used exactly the limit).
    """
    limit = time_limit_s(result["total"], pace_s)
    return {
        "at": finished_at.replace(microsecond=0, tzinfo=None).isoformat(),
        "total": result["total"], "score": result["score"],
        "seconds": min(limit, int(elapsed_s(started_at, finished_at))), "pace": int(pace_s),
        "by_topic": {t: [v["correct"], v["total"]] for t, v in result["by_topic"].items()},
    }


def record_exam(progress: dict, result: dict, started_at: datetime, finished_at: datetime,
                pace_s: int) -> dict:
    """Progress after a finished exam: each answered question recorded as an attempt
    (source "exam", wrong ones into the review schedule) and the result in the history.
    Unanswered questions are scored wrong and go into the review schedule like wrong answers
    (a learner who ran out of time sees them again), but are not recorded as attempts: no
    choice was made, so they do not count in a page's answer statistics."""
    answered = [(it["qid"], it["topic"], it["correct"], it["choice"])
                for it in result["items"] if it["choice"] is not None]
    out = apply_answers(progress, answered, "exam", finished_at)  # a fresh copy
    for it in result["items"]:
        if it["choice"] is None:
            out["review"] = schedule_wrong(out["review"], it["qid"], it["topic"], finished_at.date())
    out["exams"].append(history_record(result, started_at, finished_at, pace_s))
    del out["exams"][:-MAX_EXAMS_KEPT]
    return out


def history_rows(exams: list[dict]) -> list[dict]:
    """One row per past exam for the history chart: number, date, percent, score text."""
    return [{"回": i, "日時": e["at"].replace("T", " ")[:16], "正答率": 100.0 * e["score"] / e["total"],
             "得点": f"{e['score']}/{e['total']}", "所要時間": format_clock(e["seconds"])}
            for i, e in enumerate(exams, start=1)]
