"""The daily study plan on the home page: today's reviews, the next page, and (with an exam date)
the remaining pages spread over the days left. Pure Python.

The plan finishes before the exam day: the pages still to learn are cut into equal daily
portions (⌈pages ÷ days left⌉ a day, in the learning path's order), so the last portion falls
on the day before the exam at the latest, and any days after it are for review and mock exams.

Today's reviews are today's share of the due pile (practice.review.todays_share: at most the
learner's daily limit, the most overdue first), with the time they take at REVIEW_PACE_S a question.
A review card is a skill (practice.skill): each due card is one question to answer.
"""
from __future__ import annotations

import math
from datetime import date, timedelta, tzinfo
from typing import Any

from . import review as _review
from .exam import DEFAULT_PACE_S
from .progress import daily_review_limit, topic_stats


EXAM_DATE_AHEAD = timedelta(days=730)   # the exam-date input reaches two years ahead
REVIEW_PACE_S = DEFAULT_PACE_S          # seconds a review question takes: the exam's pace (40 s)


def review_minutes(n: int, pace_s: int = REVIEW_PACE_S) -> int:
    """Whole minutes ``n`` review questions take at ``pace_s`` seconds each, rounded up
    (one question is 1 minute, not 0); 0 for none."""
    return math.ceil(n * pace_s / 60)


def todays_reviews(progress: dict, today: date, tz: tzinfo | None = None) -> list[str]:
    """Today's share of the due reviews (skill keys, practice.skill; most overdue first): at most the
    daily limit, less the skills already reviewed today (practice.review.todays_share)."""
    return _review.todays_share(progress["review"], today, tz, daily_review_limit(progress),
                                _review.reviewed_on(progress["attempts"], today, tz))


def exam_date_bounds(today: date, saved: date | None) -> tuple[date, date]:
    """The exam-date input's (min, max): today … EXAM_DATE_AHEAD, widened to hold the saved date,
    which may lie outside it (set in another time zone, a day ahead of this one; or passed)."""
    low, high = today, today + EXAM_DATE_AHEAD
    if saved is not None:
        low, high = min(low, saved), max(high, saved)
    return low, high


def pages_left(progress: dict, keys) -> list[str]:
    """Learning pages not mastered yet: the unvisited ones first, then the visited ones, each in path order."""
    keys = list(keys)
    stats = topic_stats(progress)
    todo = [k for k in keys if not stats.get(k, {}).get("mastered")]
    return ([k for k in todo if not progress["visited"].get(k)]
            + [k for k in todo if progress["visited"].get(k)])


def spread(pages: list[str], today: date, exam_day: date) -> list[tuple[date, list[str]]]:
    """[(day, pages of that day)], every page once, in order, every day before ``exam_day``.

    ⌈len(pages) / days left⌉ pages a day; no days left (the exam is today or past) → []."""
    days_left = (exam_day - today).days
    if days_left <= 0 or not pages:
        return []
    per_day = math.ceil(len(pages) / days_left)
    return [(today + timedelta(days=i), pages[i * per_day:(i + 1) * per_day])
            for i in range(math.ceil(len(pages) / per_day))]


def daily_plan(progress: dict, keys, today: date, tz: tzinfo | None = None) -> dict:
    """What the home page shows under 今日の計画 on the learner's ``today`` (time zone ``tz``).

    {"due": today's share of the reviews (:func:`todays_reviews`), "due_all": all reviews due,
     "due_later": those of them left for the next days (the daily limit),
     "minutes": the time today's share takes (:func:`review_minutes`),
     "next": the next page (None when all are mastered),
     "exam_date": date | None, "days_left": days until the exam (None without a date),
     "today": pages for today, "schedule": [(day, pages)], "per_day": pages a day (0 without a date)}
    """
    left = pages_left(progress, keys)
    raw = progress["settings"]["exam_date"]
    exam_day = date.fromisoformat(raw) if raw else None
    share = todays_reviews(progress, today, tz)
    due_all = _review.due_count(progress["review"], today, tz)
    plan: dict[str, Any] = {"due": len(share), "due_all": due_all, "due_later": max(0, due_all - len(share)),
            "minutes": review_minutes(len(share)), "next": left[0] if left else None, "exam_date": exam_day,
            "days_left": None, "today": left[:1], "schedule": [], "per_day": 0}
    if exam_day is not None:
        plan["days_left"] = (exam_day - today).days
        plan["schedule"] = spread(left, today, exam_day)
        plan["today"] = plan["schedule"][0][1] if plan["schedule"] else []
        plan["per_day"] = len(plan["today"])
    return plan
