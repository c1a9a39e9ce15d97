"""The daily study plan on the home page: today's reviews, the next page, and (with an exam date)
the remaining pages laid over the days left in the minutes a day the learner has. Pure Python.

The learner says how many minutes a day they have (``settings["daily_minutes"]``); about two thirds
of them go to new pages (NEW_SHARE) and the rest to the day's review. Each page takes about as long
as its text takes to read plus its calculations and quiz (its estimate comes from ui.nav). The pages
still to learn are laid over the days in the learning path's order, a long page over several days
(:func:`schedule`), and the last days before the exam are kept for mock exams and review
(:func:`reserved_days`). When they do not fit, the plan says how many minutes a day would fit.

Today's reviews are today's share of the due pile (practice.review.todays_share: at most the
learner's daily limit, the most overdue first), with the time they take at REVIEW_PACE_S a question.
A review card is a skill (practice.skill): each due card is one question to answer.
"""
from __future__ import annotations

import math
from datetime import date, timedelta, tzinfo
from typing import Any, NamedTuple

from . import review as _review
from .exam import DEFAULT_PACE_S
from .progress import daily_minutes, daily_review_limit, topic_stats
from .record import DAILY_MINUTES
from .scope import practised_review


EXAM_DATE_AHEAD = timedelta(days=730)   # the exam-date input reaches two years ahead
REVIEW_PACE_S = DEFAULT_PACE_S          # seconds a review question takes: the exam's pace (40 s)


def review_minutes(n: int, pace_s: int = REVIEW_PACE_S) -> int:
    """Whole minutes ``n`` review questions take at ``pace_s`` seconds each, rounded up
    (one question is 1 minute, not 0); 0 for none."""
    return math.ceil(n * pace_s / 60)


def todays_reviews(progress: dict, today: date, tz: tzinfo | None = None) -> list[str]:
    """Today's share of the due reviews (skill keys, practice.skill; most overdue first): at most the
    daily limit, less the skills already reviewed today (practice.review.todays_share)."""
    return _review.todays_share(practised_review(progress), today, tz, daily_review_limit(progress),
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


NEW_SHARE = 2 / 3     # of the daily minutes for new pages; the rest for the day's review


def reserved_days(days_left: int) -> int:
    """The last days before the exam kept for mock exams and review: none with under 4 days left, a
    day a week otherwise (at least 1, at most 5)."""
    return 0 if days_left < 4 else min(5, max(1, days_left // 7))


def study_minutes(daily: int) -> int:
    """The minutes of a day with ``daily`` minutes that go to new pages (NEW_SHARE, at least 1)."""
    return max(1, math.floor(daily * NEW_SHARE))


def lay_out(pages: list[str], minutes, per_day: int) -> list[list[str]]:
    """The pages day by day, each day filled up to ``per_day`` minutes in order: a page longer than
    what a day has left goes on into the next day(s) (it is listed on every day it takes)."""
    days: list[list[str]] = []
    left = 0                                 # minutes left in the last day
    for key in pages:
        need = max(1, int(minutes[key]))
        while need > 0:
            if left == 0:
                days.append([])
                left = per_day
            if not days[-1] or days[-1][-1] != key:
                days[-1].append(key)
            take = min(need, left)
            need, left = need - take, left - take
    return days


class Schedule(NamedTuple):
    days: list[tuple[date, list[str]]]   # study days from today, in order: the pages of each
    mock_days: list[date]                # the days after them, before the exam: mock exams and review
    fits: bool                           # the pages end with reserved_days(days_left) days to spare
    needed: int | None                   # if not: the fewest DAILY_MINUTES that would fit (None: none does)


def schedule(pages: list[str], minutes, today: date, exam_day: date, daily: int) -> Schedule:
    """The pages still to learn laid over the days before ``exam_day`` in ``daily`` minutes a day.
    The exam today or past, or nothing to learn: no days."""
    days_left = (exam_day - today).days
    if days_left <= 0 or not pages:
        return Schedule([], [today + timedelta(days=i) for i in range(max(0, days_left))], True, None)
    laid = lay_out(pages, minutes, study_minutes(daily))
    fits = len(laid) <= days_left - reserved_days(days_left)
    needed = None if fits else next(
        (m for m in DAILY_MINUTES if len(lay_out(pages, minutes, study_minutes(m))) <= days_left - reserved_days(days_left)),
        None)
    dated = [(today + timedelta(days=i), keys) for i, keys in enumerate(laid)]
    return Schedule(dated, [today + timedelta(days=i) for i in range(len(laid), days_left)], fits, needed)


def daily_plan(progress: dict, keys, today: date, tz: tzinfo | None = None, minutes=None) -> dict:
    """What the home page shows under 今日の計画 on the learner's ``today`` (time zone ``tz``);
    ``minutes``: {page key: minutes it takes} (ui.nav's estimates; 1 a page when not given).

    {"due": today's share of the reviews (:func:`todays_reviews`), "due_all": all reviews due,
     "due_later": those of them left for the next days (the daily limit),
     "minutes": the time today's share takes (:func:`review_minutes`),
     "next": the next page (None when all are mastered),
     "exam_date": date | None, "days_left": days until the exam (None without a date),
     "daily": the learner's minutes a day, "per_day": those for new pages (:func:`study_minutes`),
     "pages_left": how many pages are left (not mastered), "left_minutes": they take, in minutes,
     "today": pages for today, "schedule": [(day, pages)], "mock_days": [day], "fits": bool,
     "needed": minutes a day that would fit (when it does not)}
    """
    left = pages_left(progress, keys)
    minutes = {k: 1 for k in left} if minutes is None else minutes
    raw = progress["settings"]["exam_date"]
    exam_day = date.fromisoformat(raw) if raw else None
    share = todays_reviews(progress, today, tz)
    due_all = _review.due_count(practised_review(progress), today, tz)
    daily = daily_minutes(progress)
    plan: dict[str, Any] = {"due": len(share), "due_all": due_all, "due_later": max(0, due_all - len(share)),
            "minutes": review_minutes(len(share)), "next": left[0] if left else None, "exam_date": exam_day,
            "days_left": None, "daily": daily, "per_day": study_minutes(daily),
            "pages_left": len(left), "left_minutes": sum(minutes[k] for k in left), "today": left[:1],
            "schedule": [], "mock_days": [], "fits": True, "needed": None}
    if exam_day is not None:
        plan["days_left"] = (exam_day - today).days
        laid = schedule(left, minutes, today, exam_day, daily)
        plan.update(schedule=laid.days, mock_days=laid.mock_days, fits=laid.fits, needed=laid.needed,
                    today=laid.days[0][1] if laid.days else [])
    return plan
