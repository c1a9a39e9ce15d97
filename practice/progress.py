"""The learner's progress as plain JSON-able data, and the pure functions that update it.

Schema (version 1)::

    {"version": 1,
     "visited":  {"<page key>": true, ...},
     "attempts": [{"qid": str, "topic": str, "correct": bool, "choice": int,
                   "at": "YYYY-MM-DDTHH:MM:SS", "source": "page" | "exam" | "review"}, ...],
     "exams":    [...],     # mock-exam results (practice.exam.history_record)
     "review":   {...}}     # spaced-repetition boxes (practice.review)

Functions never mutate their input: they return a new dict (the session keeps one
reference and swaps it), so an interrupted update can never leave half-written progress.

Every answer anywhere goes through :func:`apply_answer`: it records the attempt AND updates
the review schedule (a wrong answer → box 1; an answer given in review → the Leitner move).
"""
from __future__ import annotations

import copy
from datetime import date, datetime

from . import review as _review

SCHEMA_VERSION = 1
SOURCES = ("page", "exam", "review")
MAX_ATTEMPTS_KEPT = 2000   # oldest attempts are dropped beyond this (keeps files small)
MASTERY_WINDOW = 5      # the last N answers of a topic
MASTERY_CORRECT = 4     # … of which at least this many are correct


def new_progress() -> dict:
    return {"version": SCHEMA_VERSION, "visited": {}, "attempts": [], "exams": [], "review": {}}


def record_visit(progress: dict, page_key: str) -> dict:
    if progress["visited"].get(page_key):
        return progress
    out = copy.deepcopy(progress)
    out["visited"][page_key] = True
    return out


def _check_answer(source: str, choice: int) -> None:
    if source not in SOURCES:
        raise ValueError(f"未知の回答元 {source!r}")
    if not 0 <= int(choice) <= 3:
        raise ValueError(f"選択肢の番号 {choice!r} は 0〜3 ではありません")


def _append_attempt(out: dict, qid: str, topic: str, correct: bool, choice: int,
                    source: str, now: datetime) -> None:
    """In place, on a copy the caller owns."""
    out["attempts"].append({
        "qid": qid, "topic": topic, "correct": bool(correct), "choice": int(choice),
        "at": now.replace(microsecond=0, tzinfo=None).isoformat(), "source": source,
    })
    del out["attempts"][:-MAX_ATTEMPTS_KEPT]


def record_attempt(progress: dict, qid: str, topic: str, correct: bool, choice: int,
                   source: str = "page", now: datetime | None = None) -> dict:
    """Only the attempt (no review update): prefer :func:`apply_answer`."""
    _check_answer(source, choice)
    out = copy.deepcopy(progress)
    _append_attempt(out, qid, topic, correct, choice, source, now or datetime.now())
    return out


def apply_answers(progress: dict, answers: list[tuple[str, str, bool, int]], source: str = "page",
                  now: datetime | None = None) -> dict:
    """Several answers ``(qid, topic, correct, choice)`` at once (one copy of the progress).

    Each answer is recorded as an attempt and updates the review schedule:

    - source "page" / "exam": a wrong answer puts the question in box 1, due today;
      a right answer leaves the schedule as it is.
    - source "review": the Leitner move of :func:`practice.review.review_answer`
      (a question not in the schedule is treated like a page answer).
    """
    now = now or datetime.now()
    today = now.date()
    for _, _, _, choice in answers:
        _check_answer(source, choice)
    out = copy.deepcopy(progress)
    for qid, topic, correct, choice in answers:
        _append_attempt(out, qid, topic, correct, choice, source, now)
        if source == "review" and qid in out["review"]:
            out["review"] = _review.review_answer(out["review"], qid, correct, today)
        elif not correct:
            out["review"] = _review.schedule_wrong(out["review"], qid, topic, today)
    return out


def apply_answer(progress: dict, qid: str, topic: str, correct: bool, choice: int,
                 source: str = "page", now: datetime | None = None) -> dict:
    """One answer anywhere: the attempt recorded AND the review schedule updated."""
    return apply_answers(progress, [(qid, topic, correct, choice)], source, now)


def topic_stats(progress: dict) -> dict[str, dict]:
    """{topic: {"answered", "correct", "accuracy", "recent_accuracy", "recent", "mastered"}}."""
    by_topic: dict[str, list[bool]] = {}
    for a in progress["attempts"]:
        by_topic.setdefault(a["topic"], []).append(a["correct"])
    stats = {}
    for topic, results in by_topic.items():
        recent = results[-MASTERY_WINDOW:]
        stats[topic] = {
            "answered": len(results),
            "correct": sum(results),
            "accuracy": sum(results) / len(results),
            "recent_accuracy": sum(recent) / len(recent),
            "recent": len(recent),
            "recent_correct": sum(recent),
            "mastered": len(recent) >= MASTERY_WINDOW and sum(recent) >= MASTERY_CORRECT,
        }
    return stats


def is_mastered(progress: dict, topic: str) -> bool:
    return topic_stats(progress).get(topic, {}).get("mastered", False)


def weak_topics(progress: dict, limit: int | None = None) -> list[tuple[str, dict]]:
    """Topics whose recent accuracy is below the mastery bar (4 of 5), weakest first.

    Ranked by recent accuracy (last MASTERY_WINDOW answers), then by fewer recent
    answers (less evidence first), then by topic key for a stable order. A topic answered
    right every time so far is not weak, even before it has enough answers to be mastered.
    """
    stats = topic_stats(progress)
    bar = MASTERY_CORRECT / MASTERY_WINDOW
    rows = [(t, s) for t, s in stats.items() if not s["mastered"] and s["recent_accuracy"] < bar]
    rows.sort(key=lambda ts: (ts[1]["recent_accuracy"], ts[1]["recent"], ts[0]))
    return rows if limit is None else rows[:limit]


def overall(progress: dict) -> dict:
    """Totals for the dashboard: answers, correct, accuracy (None without answers)."""
    answered = len(progress["attempts"])
    correct = sum(a["correct"] for a in progress["attempts"])
    return {"answered": answered, "correct": correct,
            "accuracy": correct / answered if answered else None}


def due_today(progress: dict, today: date) -> int:
    return _review.due_count(progress["review"], today)


def drop_review(progress: dict, qid: str) -> dict:
    out = copy.deepcopy(progress)
    out["review"] = _review.drop(out["review"], qid)
    return out


def suggest_page(progress: dict, keys) -> str | None:
    """The next learning page: the first one not visited yet, else the first not mastered."""
    keys = list(keys)
    stats = topic_stats(progress)
    for k in keys:
        if not progress["visited"].get(k):
            return k
    for k in keys:
        if not stats.get(k, {}).get("mastered"):
            return k
    return None


def path_counts(progress: dict, keys) -> dict:
    """{"total", "visited", "mastered"} over the given learning-page keys."""
    keys = list(keys)
    stats = topic_stats(progress)
    return {"total": len(keys),
            "visited": sum(1 for k in keys if progress["visited"].get(k)),
            "mastered": sum(1 for k in keys if stats.get(k, {}).get("mastered"))}
