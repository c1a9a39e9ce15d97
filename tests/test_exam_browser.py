"""The mock exam in a real browser (Debian chromium, see tests/test_browser.py): the clock ticks on
its own, an answer is clicked, a question flagged, the paper submitted and scored; the 発展 badge
of a page's quiz card is drawn as a badge.

The clock fragment reruns every second, so every check waits with expect() (which retries)
instead of reading the page once."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from browserhelpers import assert_healthy, new_page, streamlit_server, wait_until_rendered  # noqa: F401

pytestmark = pytest.mark.browser
WAIT = 30_000


def _clock(page) -> int:
    text = page.locator('[data-testid="stProgress"]').inner_text()
    m = re.search(r"残り時間\s*(\d+):(\d\d)", text)
    assert m, text
    return int(m.group(1)) * 60 + int(m.group(2))


def test_exam_ticks_answers_flags_and_submits(browser):  # noqa: F811
    with streamlit_server() as base, new_page(browser, "exam-flow") as page:
        page.goto(base + "/exam", wait_until="domcontentloaded")
        wait_until_rendered(page)
        body = page.locator('[data-testid="stMain"]')
        expect(body).to_contain_text("知識問題 10 問、計算問題 0 問", timeout=WAIT)
        page.get_by_role("button", name="試験を始める").click()
        expect(page.locator('[data-testid="stProgress"]')).to_contain_text("残り時間", timeout=WAIT)
        first = _clock(page)
        assert 380 <= first <= 400
        expect(page.locator('[data-testid="stProgress"]')).not_to_contain_text(
            re.compile(rf"残り時間\s*{first // 60}:{first % 60:02d}"), timeout=WAIT)   # it ticks without a click
        assert _clock(page) < first
        # force: the clock fragment redraws every second, and on a busy machine Playwright's
        # "stable element" wait can miss its window; what the clicks did is checked right after
        page.locator('[data-testid="stRadio"]').last.get_by_text("A.", exact=False).first.click(force=True)
        expect(body).to_contain_text("回答済み 1 / 10 問", timeout=WAIT)
        page.get_by_text("チェック（あとで見直す）").click(force=True)
        expect(body).to_contain_text("回答済み 1 / 10 問・チェック 1 問", timeout=WAIT)
        page.get_by_role("button", name="提出する").click()
        expect(body).to_contain_text("未回答：問2、", timeout=WAIT)
        page.get_by_role("button", name="提出を確定する").click()
        expect(body).to_contain_text("トピック別の正答率", timeout=WAIT)
        expect(page.locator('[data-testid="stMetric"]').first).to_contain_text(re.compile(r"得点\s*[01] / 10"),
                                                                           timeout=WAIT)
        assert_healthy(page)


def test_advanced_badge_is_drawn_on_the_quiz_card(browser):  # noqa: F811
    with streamlit_server() as base, new_page(browser, "advanced-badge") as page:
        page.goto(base + "/output?q=output.top_p_blank%237", wait_until="domcontentloaded")
        wait_until_rendered(page)
        # anchored: another card may draw the same generator with a seed that starts with 7
        expect(page.get_by_text(re.compile(r"id: output\.top_p_blank#7$"))).to_be_visible(timeout=WAIT)
        badge = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"] span',
                             has_text=re.compile(r"^発展$"))
        expect(badge.first).to_be_visible(timeout=WAIT)
        assert_healthy(page)
