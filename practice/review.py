"""Spaced review of wrong answers: Leitner boxes, pure Python.

Rule (chosen for being explainable in one sentence to a learner):
- a question answered wrongly anywhere (page, exam, review), or left unanswered in a mock exam,
  goes to box 1, due today;
- answered correctly in review, it moves up one box and comes back after the box's interval;
- answered wrongly in review, it falls back to box 1 (due today again) and a lapse is counted;
- answered correctly in the last box, it leaves the schedule (覚えた).

    box:       1    2    3    4    5
    interval:  0d   1d   3d   7d   14d   (days until it is due again after reaching the box)

State: ``{"<qid>": {"topic": str, "box": 1..5, "due": "YYYY-MM-DD", "lapses": int}}``.
Functions return a new dict; the input is never changed.
"""
from __future__ import annotations

import copy
from datetime import date, timedelta

INTERVAL_DAYS = (0, 1, 3, 7, 14)   # index = box - 1
N_BOXES = len(INTERVAL_DAYS)
MAX_ITEMS = 1000                   # beyond this, the best-learned items leave first


def _due(box: int, today: date) -> str:
    return (today + timedelta(days=INTERVAL_DAYS[box - 1])).isoformat()


def schedule_wrong(review: dict, qid: str, topic: str, today: date) -> dict:
    """A wrong answer: (re)enter box 1, due today."""
    out = copy.deepcopy(review)
    item = out.get(qid)
    lapses = item["lapses"] + 1 if item else 0
    out[qid] = {"topic": topic, "box": 1, "due": _due(1, today), "lapses": lapses}
    if len(out) > MAX_ITEMS:  # keep the schedule (and the progress file) bounded
        best = sorted(out, key=lambda k: (k == qid, -out[k]["box"], out[k]["due"], k))
        for k in best[: len(out) - MAX_ITEMS]:
            del out[k]
    return out


def review_answer(review: dict, qid: str, correct: bool, today: date) -> dict:
    """The learner answered a scheduled item during review."""
    if qid not in review:
        raise KeyError(qid)
    if not correct:
        return schedule_wrong(review, qid, review[qid]["topic"], today)
    out = copy.deepcopy(review)
    box = out[qid]["box"]
    if box >= N_BOXES:
        del out[qid]  # learned: leaves the schedule
    else:
        out[qid] = {**out[qid], "box": box + 1, "due": _due(box + 1, today)}
    return out


def due_items(review: dict, today: date) -> list[str]:
    """qids due on or before ``today``: lowest box first, then oldest due date, then id."""
    due = [(v["box"], v["due"], qid) for qid, v in review.items() if v["due"] <= today.isoformat()]
    return [qid for _, _, qid in sorted(due)]


def due_count(review: dict, today: date) -> int:
    return len(due_items(review, today))


def box_counts(review: dict) -> list[int]:
    """How many items sit in each box (index 0 = box 1)."""
    counts = [0] * N_BOXES
    for v in review.values():
        counts[v["box"] - 1] += 1
    return counts


def next_due(review: dict) -> str | None:
    """The earliest due date in the schedule ("YYYY-MM-DD"), or None when it is empty."""
    return min((v["due"] for v in review.values()), default=None)


def drop(review: dict, qid: str) -> dict:
    """The schedule without ``qid`` (e.g. a question that can no longer be generated)."""
    return {k: copy.deepcopy(v) for k, v in review.items() if k != qid}
