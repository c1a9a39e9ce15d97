"""practice.plan: the daily plan to the exam date (pure Python), with hypothesis."""
from __future__ import annotations

import math
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from practice import review as rv
from practice.exam import DEFAULT_PACE_S
from practice.plan import REVIEW_PACE_S, daily_plan, pages_left, review_minutes, spread, todays_reviews
from practice.progress import apply_answer, apply_answers, new_progress, record_visit, set_setting

from quizzes.core import GENERATOR_INFO

from practice_fakes import fake_registry

KEYS = ["naive", "qkv", "scaling", "formula", "multihead", "mask"]
TODAY = date(2026, 3, 1)


@pytest.fixture(autouse=True)
def fakes():
    with fake_registry():
        yield


@settings(max_examples=300)
@given(n=st.integers(0, 40), days=st.integers(-5, 400))
def test_spread_covers_every_page_once_in_order_and_ends_before_the_exam(n, days):
    pages = [f"p{i}" for i in range(n)]
    exam = TODAY + timedelta(days=days)
    plan = spread(pages, TODAY, exam)
    if days <= 0 or n == 0:
        assert plan == []
        return
    assert [p for _, ps in plan for p in ps] == pages                     # each once, in path order
    dates = [d for d, _ in plan]
    assert dates == [TODAY + timedelta(days=i) for i in range(len(plan))]  # consecutive days from today
    assert dates[-1] < exam                                                # finished before the exam day
    per_day = math.ceil(n / days)
    assert all(1 <= len(ps) <= per_day for _, ps in plan) and len(plan[0][1]) == per_day
    assert math.ceil(n / (per_day - 1)) > days if per_day > 1 else True    # no smaller daily load would fit


def test_spread_examples():
    assert spread(["a", "b", "c"], TODAY, TODAY + timedelta(days=1)) == [(TODAY, ["a", "b", "c"])]
    assert spread(["a", "b", "c"], TODAY, TODAY + timedelta(days=2)) == [
        (TODAY, ["a", "b"]), (TODAY + timedelta(days=1), ["c"])]
    assert spread(["a", "b"], TODAY, TODAY + timedelta(days=10)) == [
        (TODAY, ["a"]), (TODAY + timedelta(days=1), ["b"])]


def _mastered(p, topic):
    for i in range(5):
        p = apply_answer(p, f"zz.{topic}.calc0#{i}", topic, True, 0, "page", datetime(2026, 2, 1, 9))
    return p


def test_pages_left_unvisited_first_then_visited_unmastered_and_never_mastered():
    p = record_visit(record_visit(new_progress(), "naive"), "scaling")
    p = _mastered(p, "qkv")
    assert pages_left(p, KEYS) == ["formula", "multihead", "mask", "naive", "scaling"]


def test_plan_without_exam_date_is_todays_reviews_and_the_next_page():
    p = apply_answer(new_progress(), "zz.mask.calc0#1", "mask", False, 0, "page", datetime(2026, 3, 1, 8))
    plan = daily_plan(p, KEYS, TODAY)
    assert plan["due"] == 1 and plan["next"] == "naive" and plan["today"] == ["naive"]
    assert plan["due_all"] == 1 and plan["minutes"] == 1
    assert plan["exam_date"] is None and plan["days_left"] is None and plan["schedule"] == []


def test_plan_with_exam_date_spreads_the_pages_left():
    p = set_setting(_mastered(new_progress(), "naive"), "exam_date", "2026-03-03")
    plan = daily_plan(p, KEYS, TODAY)
    assert plan["days_left"] == 2 and plan["per_day"] == 3
    assert plan["today"] == ["qkv", "scaling", "formula"]
    assert plan["schedule"] == [(TODAY, ["qkv", "scaling", "formula"]), (date(2026, 3, 2), ["multihead", "mask"])]


@pytest.mark.parametrize("exam, days_left", [("2026-03-01", 0), ("2026-02-20", -9)])
def test_plan_on_or_after_the_exam_day_has_no_pages_to_spread(exam, days_left):
    plan = daily_plan(set_setting(new_progress(), "exam_date", exam), KEYS, TODAY)
    assert plan["days_left"] == days_left and plan["schedule"] == [] and plan["today"] == []
    assert plan["next"] == "naive"


def test_everything_mastered():
    p = new_progress()
    for k in KEYS:
        p = _mastered(record_visit(p, k), k)
    plan = daily_plan(set_setting(p, "exam_date", "2026-04-01"), KEYS, TODAY)
    assert plan["next"] is None and plan["schedule"] == [] and plan["days_left"] == 31


def test_set_setting_checks_its_values():
    p = new_progress()
    assert set_setting(p, "exam_date", date(2026, 5, 1))["settings"]["exam_date"] == "2026-05-01"
    assert set_setting(p, "exam_date", None) is p
    with pytest.raises(ValueError):
        set_setting(p, "exam_date", "tomorrow")
    with pytest.raises(ValueError):
        set_setting(p, "retention", 0.5)
    with pytest.raises(ValueError):
        set_setting(p, "theme", "dark")
    assert p == new_progress()


# ---------------------------------------------------------------------------
# today's reviews: the share of the pile, and the time it takes
# ---------------------------------------------------------------------------
def _skills(n: int) -> list[str]:
    """n skill keys of the fake registry (a review card is a skill: practice.skill)."""
    skills = sorted(GENERATOR_INFO)
    assert len(skills) >= n
    return skills[:n]


def _overdue(n: int) -> dict:
    """n review cards (n skills), card i due i + 1 days before TODAY (card 0 the least overdue)."""
    p = new_progress()
    p["review"] = {g: rv.from_box(GENERATOR_INFO[g].topic, 3, (TODAY - timedelta(days=i + 1)).isoformat(), 0)
                   for i, g in enumerate(_skills(n))}
    return p


def _instances(skills: list[str]) -> list[tuple[str, str, bool, int]]:
    """A right answer to a fresh instance of each skill, as apply_answers takes it."""
    return [(f"{g}#{i + 100}", GENERATOR_INFO[g].topic, True, 0) for i, g in enumerate(skills)]


def test_review_minutes_at_the_exam_pace():
    assert REVIEW_PACE_S == DEFAULT_PACE_S == 40
    assert [review_minutes(n) for n in (0, 1, 2, 3, 30, 62, 100)] == [0, 1, 2, 2, 20, 42, 67]
    assert review_minutes(30, 60) == 30


@settings(max_examples=200)
@given(n=st.integers(0, 5000), pace=st.integers(1, 600))
def test_review_minutes_is_never_short_and_never_a_minute_too_long(n, pace):
    m = review_minutes(n, pace)
    assert m * 60 >= n * pace > (m - 1) * 60 if n else m == 0


@pytest.mark.parametrize("limit", rv.DAILY_LIMITS)
def test_plan_counts_todays_share_not_the_whole_pile(limit):
    p = set_setting(_overdue(62), "daily_review_limit", limit)
    plan = daily_plan(p, KEYS, TODAY)
    share = min(limit, 62)
    assert plan["due"] == share and plan["due_all"] == 62
    assert plan["minutes"] == math.ceil(share * 40 / 60)
    oldest = [_skills(62)[i] for i in range(61, 61 - share, -1)]          # the most overdue first
    assert todays_reviews(p, TODAY) == oldest


def test_plan_after_todays_share_was_reviewed():
    p = _overdue(62)
    share = todays_reviews(p, TODAY)
    p = apply_answers(p, _instances(share[:10]), "review", datetime(2026, 3, 1, 9))
    plan = daily_plan(p, KEYS, TODAY)
    assert plan["due"] == 20 and plan["due_all"] == 52 and plan["due_later"] == 32 and plan["minutes"] == 14
    p = apply_answers(p, _instances(share[10:]), "review", datetime(2026, 3, 1, 10))
    plan = daily_plan(p, KEYS, TODAY)
    assert plan["due"] == 0 and plan["due_all"] == 32 and plan["minutes"] == 0
    assert daily_plan(p, KEYS, TODAY + timedelta(days=1))["due"] == 30     # the next day: the next share
