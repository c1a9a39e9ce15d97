"""The exam date on the home page, typed in a real browser and confirmed with Enter (issue 35 item 8).

Streamlit 1.67's date field (react-aria segments: year / month / day, each a spinbutton) saves a
typed date only when its calendar closes or the focus leaves it; ui/page.js makes Enter do that.
The date is typed digit by digit, as a learner does (each segment moves on to the next when full),
and the field is checked to show it before Enter. Enter alone — no click elsewhere, no Esc — must
change the plan line (「試験日 … まで、あと N 日」) and the record kept in localStorage. Both of the
field's states are covered: the calendar open (it opens when the field gets the focus) and closed
(after a first Enter the focus stays in the field and the learner corrects the day). The dates are
relative to today: the field accepts today … today + EXAM_DATE_AHEAD only."""
from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

pytestmark = pytest.mark.browser

from browserhelpers import assert_healthy, new_page, wait_until_rendered  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

from tutor import numfmt  # noqa: E402
from ui.storage import STORE_KEY  # noqa: E402

WAIT = 30_000
FIELD = '[data-testid="stDateInputField"]'
SEGMENT = FIELD + ' [role="spinbutton"]'
CALENDAR = '[data-testid="stDateInputCalendar"]'
PHONE = {"width": 390, "height": 844}


def open_home(page, base: str) -> None:
    page.goto(base + "/", wait_until="domcontentloaded")
    wait_until_rendered(page)
    assert_healthy(page)
    # the record exists (the first save of a fresh browser), with no exam date yet
    page.wait_for_function(f"() => window.localStorage.getItem({json.dumps(STORE_KEY)}) !== null", timeout=WAIT)
    assert stored_exam_date(page) is None


def stored_exam_date(page):
    text = page.evaluate("(k) => window.localStorage.getItem(k)", STORE_KEY)
    return json.loads(text)["settings"]["exam_date"]


def shown(page) -> str:
    """What the field shows: 2027/01/10, or yyyy/mm/dd while empty."""
    return page.locator(FIELD + ' [role="group"]').inner_text().replace("\n", "")


def expect_saved(page, day: date) -> None:
    """The plan line names ``day`` and the stored record holds it (no click anywhere in between)."""
    today = date.today()
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text(f"試験日 {numfmt.day(day, today)} まで、あと {(day - today).days} 日", timeout=WAIT)
    page.wait_for_function(
        f"""() => {{ const t = window.localStorage.getItem({json.dumps(STORE_KEY)});
                   return t !== null && JSON.parse(t).settings.exam_date === {json.dumps(day.isoformat())}; }}""",
        timeout=WAIT)
    assert_healthy(page)


def type_date(page, day: date) -> None:
    """Into the focused year segment: the digits only (the field adds the slashes), slowly."""
    page.keyboard.type(day.strftime("%Y%m%d"), delay=60)
    expect(page.locator(FIELD + ' [role="group"]')).to_have_text(day.strftime("%Y/%m/%d"), timeout=WAIT)


def enter_then_correct_the_day(page, first: date) -> None:
    # the calendar is open while the field has the focus: Enter saves (as its closing does)
    assert page.locator(CALENDAR).count() == 1, "the calendar did not open with the focus"
    type_date(page, first)
    assert stored_exam_date(page) is None           # typed, not saved yet
    page.keyboard.press("Enter")
    expect_saved(page, first)
    expect(page.locator(CALENDAR)).to_have_count(0, timeout=WAIT)
    # the focus stays on the day; the learner corrects it and presses Enter again (calendar closed)
    assert page.evaluate(f"() => document.activeElement.matches({json.dumps(SEGMENT)})")
    second = first.replace(day=2 if first.day != 2 else 3)
    page.keyboard.type(f"{second.day:02d}", delay=60)
    expect(page.locator(FIELD + ' [role="group"]')).to_have_text(second.strftime("%Y/%m/%d"), timeout=WAIT)
    assert stored_exam_date(page) == first.isoformat()
    page.keyboard.press("Enter")
    expect_saved(page, second)


def test_enter_saves_a_typed_exam_date_on_a_laptop(browser, base):
    first = date.today() + timedelta(days=100)
    with new_page(browser, "exam-date-enter") as page:
        open_home(page, base)
        year = page.locator(SEGMENT).first
        year.scroll_into_view_if_needed()
        year.click()
        enter_then_correct_the_day(page, first)
        # the saved date is what the page shows after a reload, too
        page.reload(wait_until="domcontentloaded")
        wait_until_rendered(page)
        expect(page.locator(FIELD + ' [role="group"]')).to_have_text(
            first.replace(day=2 if first.day != 2 else 3).strftime("%Y/%m/%d"), timeout=WAIT)


def test_enter_saves_a_typed_exam_date_on_a_phone(browser, base):
    first = date.today() + timedelta(days=400)
    with new_page(browser, "exam-date-enter-phone", PHONE["width"], PHONE["height"],
                  has_touch=True, is_mobile=True) as page:
        open_home(page, base)
        year = page.locator(SEGMENT).first
        year.scroll_into_view_if_needed()
        year.tap()
        enter_then_correct_the_day(page, first)
