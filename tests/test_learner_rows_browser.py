"""Issue 41's rows 7 and 8 as a learner meets them, in a real browser: the review on a 390 px phone
starts with the question and counts down as the learner answers; in the mock exam a tap shows at once
that it was received, and two quick taps on 次へ never skip a question the learner has not seen."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

import quizzes  # noqa: E402
from browserhelpers import assert_healthy, new_page, open_url, wait_until_rendered  # noqa: E402
from playwright.sync_api import expect  # noqa: E402
from test_daily_loop_browser import review_qid  # noqa: E402
from test_loop_rows_browser import misses, seed  # noqa: E402

WAIT = 30_000
PHONE = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
MISSED = ("naive.score_element#5", "kb.naive.k02#7", "kb.qkv.k01#3")


def main(page):
    return page.locator('[data-testid="stMain"]')


def test_the_review_on_a_phone_starts_with_the_question_and_counts_down(browser, base):
    with new_page(browser, "row7-review", **PHONE) as page:
        seed(page, base, misses(MISSED))
        open_url(page, base + "/review")
        assert_healthy(page)
        expect(main(page)).to_contain_text("この回 あと 3 問", timeout=WAIT)
        choices = page.locator('[data-testid="stRadioGroup"]').first
        box = choices.bounding_box()
        assert box is not None and box["y"] + 40 < PHONE["height"], box      # the choices are on the first screen
        for left in (2, 1):
            q = quizzes.from_id(review_qid(page))
            label = page.locator('[data-testid="stRadioGroup"] label').nth(q.answer)
            label.scroll_into_view_if_needed()
            label.tap()
            page.get_by_role("button", name="回答する").tap()
            expect(main(page)).to_contain_text(f"この回 あと {left} 問", timeout=WAIT)
            expect(main(page)).to_contain_text("正解です", timeout=WAIT)
            expect(main(page).locator('[data-testid="stAlert"]').filter(has_text="解説")).to_be_visible(timeout=WAIT)
            page.get_by_role("button", name="次の問題へ").tap()
            wait_until_rendered(page)


def start_paper(page, base: str) -> None:
    open_url(page, base + "/exam")
    page.get_by_role("button", name="試験を始める").click()
    expect(main(page)).to_contain_text("問1** / 10".replace("**", ""), timeout=WAIT)


def shown_number(page) -> int:
    text = main(page).inner_text()
    m = re.search(r"問(\d+)\s*/\s*10", text)
    assert m, text[:200]
    return int(m.group(1))


@pytest.mark.parametrize("gap_ms", [0, 120, 400])
def test_two_quick_taps_on_next_never_skip_a_question(browser, base, gap_ms):
    """Two taps on 次へ of 問1, the second before 問2 is drawn: the paper shows 問2 (before the fix a
    second tap acted on 問2's button and showed 問3, 問2 unseen), and the button looked pressed at once."""
    with new_page(browser, f"row8-taps-{gap_ms}") as page:
        start_paper(page, base)
        button = page.get_by_role("button", name="次へ")
        handle = button.element_handle()
        pressed = page.evaluate(
            """([b, gap]) => new Promise(done => { b.click(); const now = b.getAttribute('aria-busy');
                 setTimeout(() => { b.click(); done(now); }, gap); })""", [handle, gap_ms])
        assert pressed == "true"                                   # the tap showed at once that it arrived
        wait_until_rendered(page)
        expect(main(page)).to_contain_text(re.compile(r"問2\s*/\s*10"), timeout=WAIT)
        page.wait_for_timeout(1500)                                # a late second run would have moved on
        wait_until_rendered(page)
        assert shown_number(page) == 2
        assert page.locator("button.tutor-tapped").count() == 0    # released once its run was over
