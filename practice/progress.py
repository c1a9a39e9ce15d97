"""The learner's progress as plain JSON-able data, and the pure functions that update it.

Schema (version 1)::

    {"version": 1,
     "visited":  {"<page key>": true, ...},
     "attempts": [{"qid": str, "topic": str, "correct": bool, "choice": int,
                   "at": "YYYY-MM-DDTHH:MM:SS", "source": "page" | "exam" | "review"}, ...],
     "exams":    [...],     # mock-exam results (practice.exam)
     "review":   {...}}     # spaced-repetition boxes (practice.review)

Functions never mutate their input: they return a new dict (the session keeps one
reference and swaps it), so an interrupted update can never leave half-written progress.
"""
from __future__ import annotations

import copy
from datetime import datetime

SCHEMA_VERSION = 1
SOURCES = ("page", "exam", "review")
MAX_ATTEMPTS_KEPT = 5000
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


def record_attempt(progress: dict, qid: str, topic: str, correct: bool, choice: int,
                   source: str = "page", now: datetime | None = None) -> dict:
    if source not in SOURCES:
        raise ValueError(f"未知の回答元 {source!r}")
    now = now or datetime.now()
    out = copy.deepcopy(progress)
    out["attempts"].append({
        "qid": qid, "topic": topic, "correct": bool(correct), "choice": int(choice),
        "at": now.replace(microsecond=0).isoformat(), "source": source,
    })
    del out["attempts"][:-MAX_ATTEMPTS_KEPT]
    return out


def topic_stats(progress: dict) -> dict[str, dict]:
    """{topic: {"answered", "correct", "accuracy", "recent_accuracy", "mastered"}} over all attempts."""
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
            "mastered": len(recent) >= MASTERY_WINDOW and sum(recent) >= MASTERY_CORRECT,
        }
    return stats


def is_mastered(progress: dict, topic: str) -> bool:
    return topic_stats(progress).get(topic, {}).get("mastered", False)
