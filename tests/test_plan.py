"""practice.plan: the daily plan to the exam date (pure Python), with hypothesis."""
from __future__ import annotations

import math
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from practice import review as rv
from practice.exam import DEFAULT_PACE_S
from practice.plan import (REVIEW_PACE_S, daily_plan, lay_out, pages_left, reserved_days, review_minutes, schedule,
                           study_minutes, todays_reviews)
from practice.record import DAILY_MINUTES
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
@given(minutes=st.lists(st.integers(1, 90), max_size=30), per_day=st.integers(1, 80))
def test_lay_out_fills_each_day_in_order_and_splits_a_long_page(minutes, per_day):
    pages = [f"p{i}" for i in range(len(minutes))]
    days = lay_out(pages, dict(zip(pages, minutes)), per_day)
    assert len(days) == math.ceil(sum(minutes) / per_day)               # no day left half empty but the last
    seen = [k for day in days for k in day]
    assert [k for i, k in enumerate(seen) if i == 0 or seen[i - 1] != k] == pages   # in order, each page in one run
    for k, m in zip(pages, minutes):
        assert sum(day.count(k) for day in days) <= math.ceil(m / per_day) + 1   # a page takes the days its minutes need


@settings(max_examples=300)
@given(n=st.integers(0, 25), days=st.integers(-5, 120), daily=st.sampled_from(DAILY_MINUTES))
def test_schedule_ends_before_the_exam_with_days_for_mock_exams_or_says_what_fits(n, days, daily):
    pages = [f"p{i}" for i in range(n)]
    minutes = {k: 20 + 5 * (i % 4) for i, k in enumerate(pages)}
    exam = TODAY + timedelta(days=days)
    laid = schedule(pages, minutes, TODAY, exam, daily)
    if days <= 0 or n == 0:
        assert laid.days == [] and laid.fits
        return
    dates = [d for d, _ in laid.days]
    assert dates == [TODAY + timedelta(days=i) for i in range(len(dates))]   # consecutive days from today
    assert laid.mock_days == [TODAY + timedelta(days=i) for i in range(len(dates), days)]
    assert laid.fits == (len(dates) <= days - reserved_days(days))
    if laid.fits:
        assert len(laid.mock_days) >= reserved_days(days) and laid.needed is None
    elif laid.needed is not None:                                          # the fewest minutes that fit
        assert laid.needed > daily and schedule(pages, minutes, TODAY, exam, laid.needed).fits
        assert all(not schedule(pages, minutes, TODAY, exam, m).fits for m in DAILY_MINUTES if m < laid.needed)
    else:
        assert not schedule(pages, minutes, TODAY, exam, max(DAILY_MINUTES)).fits


def test_reserved_days_and_study_minutes():
    assert [reserved_days(d) for d in (1, 3, 4, 7, 14, 21, 35, 100)] == [0, 0, 1, 1, 2, 3, 5, 5]
    assert study_minutes(30) == 20 and study_minutes(15) == 10 and study_minutes(120) == 80


def test_schedule_examples():
    """A 45-minute page and two 20-minute ones in 30 minutes a day (20 for new pages): three days and
    a bit; with 3 days to the exam it does not fit, and 45 minutes a day would."""
    m = {"a": 45, "b": 20, "c": 20}
    laid = schedule(["a", "b", "c"], m, TODAY, TODAY + timedelta(days=10), 30)
    assert [keys for _, keys in laid.days] == [["a"], ["a"], ["a", "b"], ["b", "c"], ["c"]]
    assert laid.fits and len(laid.mock_days) == 5 and laid.mock_days[-1] == TODAY + timedelta(days=9)
    short = schedule(["a", "b", "c"], m, TODAY, TODAY + timedelta(days=3), 30)
    assert not short.fits and short.needed == 45               # 30 minutes a day of new pages: 3 days


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


def test_plan_with_exam_date_lays_the_pages_left_over_the_days_in_the_learners_minutes():
    p = set_setting(_mastered(new_progress(), "naive"), "exam_date", "2026-03-03")
    plan = daily_plan(p, KEYS, TODAY)                        # 1 minute a page when not told
    assert plan["days_left"] == 2 and plan["daily"] == 30 and plan["per_day"] == 20
    assert plan["today"] == ["qkv", "scaling", "formula", "multihead", "mask"] and plan["fits"]
    minutes = {k: 20 for k in KEYS}
    plan = daily_plan(p, KEYS, TODAY, minutes=minutes)
    assert plan["pages_left"] == 5 and plan["left_minutes"] == 100 and plan["today"] == ["qkv"] and not plan["fits"]
    assert [d for d, _ in plan["schedule"]] == [TODAY + timedelta(days=i) for i in range(5)]
    plan = daily_plan(set_setting(p, "daily_minutes", 120), KEYS, TODAY, minutes=minutes)
    assert plan["per_day"] == 80 and plan["today"] == ["qkv", "scaling", "formula", "multihead"]
    assert [keys for _, keys in plan["schedule"]] == [["qkv", "scaling", "formula", "multihead"], ["mask"]]
    assert plan["fits"] and plan["mock_days"] == []           # two days left: none kept for mock exams


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
