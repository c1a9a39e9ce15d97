"""The validator's extremes can be shown: a record it accepts opens every page that reads dates
(home, review, drill, the mock exam, a learning page), in the time zones farthest east and west
that the browser can report (ui.clock: ±18 h), with no exception.

Before practice.store.YEARS, the validator took any date Python can parse: an exam date at the
home page's maximum crashed its date input one time zone further west, and a review due in year
1 or 9999 crashed the review schedule when it was shifted into the learner's zone.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import ui.clock
from practice import review as rv
from practice import store
from practice.plan import EXAM_DATE_AHEAD, exam_date_bounds
from practice.progress import apply_answer, new_progress, set_setting
from practice.store import YEARS, ProgressError, validate_progress

from apphelpers import no_exception, open_page

QID, TOPIC = "naive.weight#3", "naive"
SKILL = "naive.weight"          # the review card's key (practice.skill.key)
FIRST, LAST = f"{YEARS[0]}-01-01", f"{YEARS[1]}-12-31"
ZONES = {"UTC+18": 18, "UTC+14 (Kiritimati)": 14, "UTC-11 (Pago Pago)": -11, "UTC-18": -18}
PAGES = ["app.py", "pages/21_review.py", "pages/22_drill.py", "pages/20_exam.py", "pages/1_naive.py"]


def extreme(day: str, hour: str) -> dict:
    """A valid record whose every date lies at one end of YEARS: exam date, a review card's due and
    last review (stored in UTC), an attempt's time."""
    at = datetime.fromisoformat(f"{day}T{hour}")
    p = apply_answer(new_progress(), QID, TOPIC, False, 1, "page", at)
    p = set_setting(p, "exam_date", day)
    card = {**p["review"][SKILL], "due": f"{day}T{hour}+00:00", "last_review": f"{day}T{hour}+00:00"}
    return validate_progress({**p, "review": {SKILL: card}})


RECORDS = {"first": extreme(FIRST, "00:00:00"), "last": extreme(LAST, "23:59:59")}


@pytest.mark.parametrize("which", list(RECORDS))
def test_the_ends_of_the_years_are_accepted_and_one_day_beyond_is_refused(which):
    record = RECORDS[which]
    assert validate_progress(record) is record
    beyond = "1999-12-31" if which == "first" else "2200-01-01"
    for name, broken in (
            ("exam date", {**record, "settings": {**record["settings"], "exam_date": beyond}}),
            ("due", {**record, "review": {SKILL: {**record["review"][SKILL], "due": beyond + "T12:00:00+00:00"}}}),
            ("attempt", {**record, "attempts": [{**record["attempts"][0], "at": beyond + "T12:00:00"}]})):
        with pytest.raises(ProgressError, match="年の範囲"):
            validate_progress(broken)
        with pytest.raises(ProgressError):
            store.parse_progress_text(store.json.dumps(broken))


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("which", list(RECORDS))
@pytest.mark.parametrize("zone", list(ZONES))
def test_every_page_shows_the_extremes_in_the_farthest_time_zones(monkeypatch, zone, which, path):
    tz = timezone(timedelta(hours=ZONES[zone]))
    monkeypatch.setattr(ui.clock, "zone", lambda offset_min=None: tz)
    at = no_exception(open_page(path, session={"progress": RECORDS[which]}, unfold=False))
    assert at.session_state["progress"]["attempts"][0]["qid"] == QID     # the record was shown, not replaced


def test_the_exam_date_input_holds_a_date_saved_a_day_ahead_in_another_zone():
    """Saved at the input's maximum east of here: the input's range widens to hold it."""
    today = datetime(2026, 12, 5).date()
    saved = today + EXAM_DATE_AHEAD + timedelta(days=1)
    assert exam_date_bounds(today, saved) == (today, saved)
    passed = today - timedelta(days=30)
    assert exam_date_bounds(today, passed) == (passed, today + EXAM_DATE_AHEAD)
    assert exam_date_bounds(today, None) == (today, today + EXAM_DATE_AHEAD)


def test_due_days_of_the_extremes_in_every_zone():
    for record in RECORDS.values():
        for hours in ZONES.values():
            tz = timezone(timedelta(hours=hours))
            day = rv.due_date(record["review"][SKILL], tz)
            assert YEARS[0] - 1 <= day.year <= YEARS[1] + 1
