"""The validator's extremes in a real browser (issue 33): a record whose every date lies at an end
of practice.store.YEARS, kept in the browser's localStorage, opens every page that reads dates
in Kiritimati (UTC+14), and again after the learner's time zone moves to Pago Pago (UTC−11),
with no exception; the record is read (not moved aside as unreadable) and kept as it was.

tests/test_progress_extremes.py checks the same in AppTest (with ui.clock.zone patched); here
the zone is the browser's own (CDP Emulation.setTimezoneOverride: one browser, one localStorage,
the zone changed between page loads, as when a learner flies), and reaches the server the way
it does for a learner (st.context.timezone_offset).
"""
from __future__ import annotations

import json
import re
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from practice.plan import EXAM_DATE_AHEAD
from practice.progress import apply_answer, new_progress, set_setting
from practice.store import YEARS, dumps, validate_progress
from browserhelpers import assert_healthy, new_page, open_url
from ui.storage import ASIDE_KEYS, STORE_KEY

pytestmark = pytest.mark.browser

WAIT = 30_000
ZONES = ("Pacific/Kiritimati", "Pacific/Pago_Pago")      # UTC+14, UTC−11: 25 hours apart
FIRST, LAST = date(YEARS[0], 1, 1), date(YEARS[1], 12, 31)
EARLY, LATE = f"{FIRST}T00:00:00", f"{LAST}T23:59:59"    # the first and the last second the validator accepts
# a wrong answer at each end, kept with the offset of the zone it was given in (as the app keeps
# it); each makes a review card of its skill (practice.skill.key), kept in UTC (as the app keeps it)
ANSWERS = (("naive.weight#3", "naive", EARLY + "+14:00"), ("qkv.projection#5", "qkv", LATE + "-11:00"))
SKILLS = {"naive.weight": EARLY + "+00:00", "qkv.projection": LATE + "+00:00"}
PATHS = ("/", "/review", "/exam", "/drill", "/naive")     # home, review, mock exam, drill, a learning page


def extreme_record() -> dict:
    """A valid record at the validator's extremes: the exam date on the last accepted day, an
    attempt, a mock-exam result and a review card (due and last review, in UTC) at each end:
    the first card is due (it was due on the first day), the second one is not (the last)."""
    p = new_progress()
    for qid, topic, at in ANSWERS:
        p = apply_answer(p, qid, topic, False, 1, "page", datetime.fromisoformat(at))
    p = set_setting(p, "exam_date", LAST.isoformat())
    review = {k: {**p["review"][k], "due": at, "last_review": at} for k, at in SKILLS.items()}
    exams = [{"at": at, "total": 10, "score": score, "seconds": 300, "pace": 40,
              "by_topic": {"naive": [score - 3, 5], "qkv": [3, 5]}}
             for at, score in ((ANSWERS[0][2], 6), (ANSWERS[1][2], 8))]
    return validate_progress({**p, "review": review, "exams": exams})


RECORD = extreme_record()


def storage(page) -> tuple[dict | None, list]:
    """The stored record (parsed) and the texts kept aside (ASIDE_KEYS) in this browser."""
    text, aside = page.evaluate("([k, a]) => [localStorage.getItem(k), a.map(x => localStorage.getItem(x))]",
                                [STORE_KEY, list(ASIDE_KEYS)])
    return (None if text is None else json.loads(text)), aside


def assert_record_kept(page) -> None:
    stored, aside = storage(page)
    assert aside == [None] * len(ASIDE_KEYS), "the record was moved aside as unreadable"
    assert stored is not None, "the stored record is gone"
    for part in ("attempts", "exams", "review"):
        assert stored[part] == RECORD[part], part
    assert stored["settings"]["exam_date"] == LAST.isoformat()


def metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label)
    expect(box).to_be_visible(timeout=WAIT)
    return box.locator('[data-testid="stMetricValue"]').inner_text().strip()


def learners_days(zone: str, before: datetime, after: datetime) -> set[date]:
    """The calendar days it was in ``zone`` while a page was being loaded (two near midnight)."""
    return {before.astimezone(ZoneInfo(zone)).date(), after.astimezone(ZoneInfo(zone)).date()}


def check_home(page, zone: str, before: datetime) -> None:
    main = page.locator('[data-testid="stMain"]')
    days = learners_days(zone, before, datetime.now(ZoneInfo("UTC")))
    # the server counts the days left from the learner's today, so the zone reached it
    left = "|".join(str((LAST - d).days) for d in days)
    expect(main).to_contain_text(re.compile(rf"試験日 {LAST.year}年12月31日（.）\s*まで、あと ({left}) 日です"),
                                 timeout=WAIT)
    field = page.locator('[data-testid="stDateInput"]').filter(has_text="試験日")
    shown = field.get_by_role("group", name="試験日")         # the date field the learner reads (react-aria)
    expect(shown).to_have_text(LAST.strftime("%Y/%m/%d"), timeout=WAIT)
    expect(shown).not_to_have_attribute("aria-invalid", "true")  # inside the field's min … max
    expect(field.locator('input[type="date"]')).to_have_value(LAST.isoformat())
    assert metric(page, "解いた問題") == "2 問"
    expect(main).to_contain_text(f"直近：{LAST} 23:59 に 8/10 問正解（所要時間 5:00）・全 2 回", timeout=WAIT)
    expect(main).to_contain_text("今日の復習 1 問", timeout=WAIT)
    assert "読めなかった以前の記録" not in main.inner_text()


def check_review(page) -> None:
    assert metric(page, "今日が期限の問題") == "1 問"      # the card due on the first day; not the last one
    assert metric(page, "復習予定の全体") == "2 問"
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text("今日の分 1 問（期限が来ている 1 問のうち）", timeout=WAIT)
    expect(main).to_contain_text("明日から 7 日以内に出る問題：0 問", timeout=WAIT)


def seed(page, base: str, record: dict) -> None:
    """Keep ``record`` in this browser's storage, as if the learner had studied here before (written
    on a page of the origin that runs no app, so no session of it writes over it)."""
    page.goto(base + "/_stcore/health", wait_until="domcontentloaded")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [STORE_KEY, dumps(record)])


def test_the_extremes_open_every_page_before_and_after_the_time_zone_moves(browser, base):
    with new_page(browser, "extremes-zones") as page:
        zone_of = page.context.new_cdp_session(page)
        seed(page, base, RECORD)
        for zone in ZONES:
            zone_of.send("Emulation.setTimezoneOverride", {"timezoneId": zone})
            for path in PATHS:
                before = datetime.now(ZoneInfo("UTC"))
                open_url(page, base + path)
                assert page.evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone") == zone
                assert_healthy(page)
                if path == "/":
                    check_home(page, zone, before)
                elif path == "/review":
                    check_review(page)
                assert_healthy(page)
                assert_record_kept(page)
            # the learning page's visit is written back: the record was read and saved, not replaced
            page.wait_for_function(f"() => JSON.parse(localStorage.getItem({json.dumps(STORE_KEY)}))"
                                   ".visited.naive === true", timeout=WAIT)
        assert_record_kept(page)


def test_an_exam_date_set_at_the_inputs_latest_day_shows_after_the_zone_moves_west(browser, base):
    """The crash of issue 33 as a learner met it: the latest day the home page's date input offers
    in Kiritimati (today there + EXAM_DATE_AHEAD) is a day or two past its latest in Pago Pago."""
    with new_page(browser, "extremes-exam-date") as page:
        zone_of = page.context.new_cdp_session(page)
        zone_of.send("Emulation.setTimezoneOverride", {"timezoneId": ZONES[0]})
        seed(page, base, {**RECORD, "settings": {**RECORD["settings"], "exam_date": None}})
        before = datetime.now(ZoneInfo("UTC"))
        open_url(page, base + "/")
        day = min(learners_days(ZONES[0], before, datetime.now(ZoneInfo("UTC"))))   # (near midnight: the earlier)
        latest = day + EXAM_DATE_AHEAD
        field = page.locator('[data-testid="stDateInput"]').filter(has_text="試験日")
        field.get_by_role("spinbutton", name=re.compile("^year")).click()
        page.keyboard.type(latest.strftime("%Y%m%d"))
        page.keyboard.press("Escape")            # closes the calendar the focus opened: the field saves the date
        page.wait_for_function(f"() => JSON.parse(localStorage.getItem({json.dumps(STORE_KEY)}))"
                               f".settings.exam_date === {json.dumps(latest.isoformat())}", timeout=WAIT)
        zone_of.send("Emulation.setTimezoneOverride", {"timezoneId": ZONES[1]})
        before = datetime.now(ZoneInfo("UTC"))
        open_url(page, base + "/")
        assert_healthy(page)
        days = learners_days(ZONES[1], before, datetime.now(ZoneInfo("UTC")))
        assert all((latest - d).days > EXAM_DATE_AHEAD.days for d in days)    # past the input's usual range here
        left = "|".join(str((latest - d).days) for d in days)
        expect(page.locator('[data-testid="stMain"]')).to_contain_text(re.compile(rf"あと ({left}) 日です"),
                                                                      timeout=WAIT)
        shown = field.get_by_role("group", name="試験日")
        expect(shown).to_have_text(latest.strftime("%Y/%m/%d"), timeout=WAIT)
        expect(shown).not_to_have_attribute("aria-invalid", "true")
        assert_healthy(page)
