"""Spaced review of wrong answers with FSRS (the `fsrs` package, the scheduler Anki uses). Pure Python.

A card is a SKILL, not a printed question: it is keyed by the skill key of the questions
(practice.skill.key: a calculation generator, or a knowledge item's fact), so the review shows a
fresh instance of the skill (practice.skill.draw), and an answer to ANY instance of it, anywhere,
rates its one card. The functions here take the keys as they come (callers pass skill keys).

Rule:
- a skill answered wrongly anywhere (page, exam, review, drill) enters the schedule (rated Again:
  due again within minutes, so it is part of today's review); a question left unanswered in a mock
  exam does not (no choice was made);
- every later answer to an instance of a scheduled skill is a review for FSRS: wrong → Again,
  right → Good. (A fast right answer is not rated Easy: the app does not measure how long a
  learner thought, and a lucky guess among four choices is fast too.)
- FSRS computes each question's memory stability and difficulty from these ratings and sets the
  next due time so that the chance of still remembering it then is the desired retention
  (RETENTIONS; default 0.9). Fuzzing is off: the same answers give the same schedule.

State: ``{"<skill key>": {"topic": str, "state": 1 | 2 | 3 (learning, review, relearning),
"step": int | None, "stability": float | None, "difficulty": float | None,
"due": ISO datetime (UTC), "last_review": ISO datetime | None, "lapses": int, "reps": int}}``.
Functions return a new dict; the input is never changed (nor any card in it: a card that
changes is replaced, so the new schedule shares the others with the old one).

Files of schema version 1 kept Leitner boxes (1..5 with intervals 0, 1, 3, 7, 14 days):
:func:`from_box` maps such an item onto an FSRS card. Schema 1 and 2 keyed cards by question id:
practice.skill.rekey merges them into skill cards (practice.store).
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache

from fsrs import Card, Rating, Scheduler, State

from .record import Card as CardRecord
from .record import required
from .skill import key as skill_key

RETENTIONS = (0.8, 0.85, 0.9, 0.95)
DEFAULT_RETENTION = 0.9
# The most questions today's review holds (settings "daily_review_limit"). 30 is about 20 minutes
# at the exam's pace of 40 s a question: a daily session one can keep up; 10 / 20 fit a busy
# day, 50 / 100 the weeks before the exam. A few fixed steps, not any number: a choice one makes
# at a glance, and a value a hostile file cannot stretch.
DAILY_LIMITS = (10, 20, 30, 50, 100)
DEFAULT_DAILY_LIMIT = 30
MAX_ITEMS = 1000                   # beyond this, the best-remembered items leave first
STATES = {1: "学習中", 2: "復習", 3: "再学習"}
LEGACY_INTERVAL_DAYS = (0, 1, 3, 7, 14)   # schema 1's Leitner boxes (index = box - 1)
LEGACY_N_BOXES = len(LEGACY_INTERVAL_DAYS)
ITEM_KEYS = required(CardRecord)   # a stored card's keys (practice.record.Card)


@lru_cache(maxsize=8)
def _scheduler(retention: float) -> Scheduler:
    return Scheduler(desired_retention=float(retention), enable_fuzzing=False)


def as_utc(when) -> datetime:
    """A date (→ its midnight in UTC), a naive datetime (local time) or an aware one → aware UTC."""
    if isinstance(when, datetime):
        return (when if when.tzinfo else when.astimezone()).astimezone(timezone.utc)
    if isinstance(when, date):
        return datetime.combine(when, time(0, 0), tzinfo=timezone.utc)
    raise TypeError(f"日時ではありません：{when!r}")


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.astimezone(timezone.utc).replace(microsecond=0).isoformat()


def _card(item: dict) -> Card:
    return Card(card_id=1, state=State(item["state"]), step=item["step"], stability=item["stability"],
                difficulty=item["difficulty"], due=datetime.fromisoformat(item["due"]),
                last_review=None if item["last_review"] is None else datetime.fromisoformat(item["last_review"]))


def _item(card: Card, topic: str, lapses: int, reps: int) -> dict:
    return {"topic": topic, "state": int(card.state), "step": card.step,
            "stability": None if card.stability is None else round(float(card.stability), 4),
            "difficulty": None if card.difficulty is None else round(float(card.difficulty), 4),
            "due": _iso(card.due), "last_review": _iso(card.last_review), "lapses": lapses, "reps": reps}


def rating_for(correct: bool) -> Rating:
    """wrong → Again, right → Good."""
    return Rating.Good if correct else Rating.Again


def _bounded(out: dict, keep: str) -> dict:
    if len(out) > MAX_ITEMS:  # keep the schedule (and the stored progress) bounded
        best = sorted(out, key=lambda k: (k == keep, -(out[k]["stability"] or 0.0), out[k]["due"], k))
        for k in best[: len(out) - MAX_ITEMS]:
            del out[k]
    return out


def rate(review: dict, skill: str, topic: str, correct: bool, when, retention: float = DEFAULT_RETENTION) -> dict:
    """One answer to an instance of ``skill`` (its skill key) at ``when``: a scheduled skill is
    reviewed (Again / Good); a wrong answer to an unscheduled one enters the schedule (Again);
    a right one changes nothing."""
    if skill not in review and correct:
        return review
    out = dict(review)   # the cards are replaced, never changed in place: the others are shared
    now = as_utc(when)
    old = out.get(skill)
    card = _card(old) if old else Card(card_id=1, due=now)
    card, _ = _scheduler(retention).review_card(card, rating_for(correct), now)
    lapses = (old["lapses"] if old else 0) + (0 if correct or old is None else 1)
    reps = (old["reps"] if old else 0) + 1
    out[skill] = _item(card, old["topic"] if old else topic, lapses, reps)
    return _bounded(out, skill)


def schedule_wrong(review: dict, skill: str, topic: str, when, retention: float = DEFAULT_RETENTION) -> dict:
    """A wrong answer to an instance of ``skill``: rated Again (it enters the schedule if it was not in it)."""
    return rate(review, skill, topic, False, when, retention)


def review_answer(review: dict, skill: str, correct: bool, when, retention: float = DEFAULT_RETENTION) -> dict:
    """The learner answered an instance of a scheduled skill during review."""
    if skill not in review:
        raise KeyError(skill)
    return rate(review, skill, review[skill]["topic"], correct, when, retention)


def due_date(item: dict, tz: tzinfo | None = None) -> date:
    """The learner's calendar day an item is due, in the time zone ``tz`` (None: the server's).

    A review item (state 2) is due on the day of its due time. A learning or relearning item
    (states 1, 3) waits only minutes between steps, so it belongs to the day of its last answer:
    a question missed at 23:59 is part of that day's review, not the next day's. (Nor is it
    ever "due tomorrow" while the learner is still at it.)"""
    learning = item["state"] != State.Review.value and item["last_review"] is not None
    when = item["last_review"] if learning else item["due"]
    return datetime.fromisoformat(when).astimezone(tz).date()


def due_items(review: dict, today: date, tz: tzinfo | None = None) -> list[str]:
    """Skill keys due on or before ``today`` (the learner's day in ``tz``): earliest due first, then key."""
    due = [(v["due"], k) for k, v in review.items() if due_date(v, tz) <= today]
    return [k for _, k in sorted(due)]


def due_count(review: dict, today: date, tz: tzinfo | None = None) -> int:
    return len(due_items(review, today, tz))


def reviewed_on(attempts: list, today: date, tz: tzinfo | None = None) -> set[str]:
    """Skill keys (practice.skill.key) of the questions answered in 今日の復習 (source "review") on
    the learner's ``today`` in ``tz``.

    A time kept without an offset (records before 2026-12) is the learner's wall-clock time."""
    out = set()
    for a in attempts:
        if a["source"] != "review":
            continue
        at = datetime.fromisoformat(a["at"])
        if (at if at.utcoffset() is None else at.astimezone(tz)).date() == today:
            out.add(skill_key(a["qid"]))
    return out


def todays_share(review: dict, today: date, tz: tzinfo | None = None, limit: int = DEFAULT_DAILY_LIMIT,
                 started=()) -> list[str]:
    """The part of the due pile (:func:`due_items`) that is today's review: at most ``limit`` skill keys.

    ``started``: skills already reviewed today (:func:`reviewed_on`). Each of them takes one of the
    day's ``limit`` places, so a share finished today is not followed by another one the same day;
    one of them that is due again (answered wrongly: it comes back within minutes) stays in the
    share, to be finished today. The other places go to the rest of the pile, most overdue first
    (the earliest due time, then the id: the questions most at risk of being forgotten); what does
    not fit waits for the next days. The order is :func:`due_items`' order, whatever the dict's."""
    due = due_items(review, today, tz)
    started = set(started)
    room = max(0, limit - len(started))
    fresh = [q for q in due if q not in started][:room]
    keep = set(fresh) | started
    return [q for q in due if q in keep][:limit]


def round_left(pending: list[str], current: str | None, answered: bool) -> int:
    """How many questions this round of the review still holds: the skills not answered in it yet
    (``pending``), the one on screen counted until it is answered (it may have left the due pile or
    stayed in it after its answer)."""
    rest = sum(1 for q in pending if q != current)
    return rest + (1 if current is not None and not answered else 0)


def state_counts(review: dict) -> dict[int, int]:
    """How many items are learning (1), in review (2), relearning (3)."""
    counts = {s: 0 for s in STATES}
    for v in review.values():
        counts[v["state"]] += 1
    return counts


def due_within(review: dict, today: date, days: int, tz: tzinfo | None = None) -> int:
    """Items due from tomorrow up to ``today + days``."""
    return sum(1 for v in review.values() if today < due_date(v, tz) <= today + timedelta(days=days))


def next_due(review: dict, tz: tzinfo | None = None) -> date | None:
    """The earliest due day in the schedule, or None when it is empty."""
    return min((due_date(v, tz) for v in review.values()), default=None)


def drop(review: dict, skill: str) -> dict:
    """The schedule without ``skill``'s card (e.g. a skill whose questions can no longer be made)."""
    return {k: v for k, v in review.items() if k != skill}


def from_box(topic: str, box: int, due: str, lapses: int) -> dict:
    """A schema-1 Leitner item as an FSRS card, keeping its due day.

    Box 1 (just answered wrongly) → a learning card, never reviewed by FSRS yet;
    box b ≥ 2 → a review card whose stability is the box's interval in days (what the
    learner had shown they keep that long), medium difficulty, last reviewed one interval
    before its due day."""
    due_dt = datetime.combine(date.fromisoformat(due), time(0, 0), tzinfo=timezone.utc)
    if box <= 1:
        return {"topic": topic, "state": 1, "step": 0, "stability": None, "difficulty": None,
                "due": _iso(due_dt), "last_review": None, "lapses": lapses, "reps": 0}
    days = LEGACY_INTERVAL_DAYS[box - 1]
    return {"topic": topic, "state": 2, "step": None, "stability": float(days), "difficulty": 5.0,
            "due": _iso(due_dt), "last_review": _iso(due_dt - timedelta(days=days)),
            "lapses": lapses, "reps": box - 1}
