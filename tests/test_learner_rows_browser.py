"""Issue 41's rows 3 to 5 and 7 to 10 as a learner meets them, in a real browser: the review on a 390 px phone
starts with the question and counts down as the learner answers; in the mock exam a tap shows at once
that it was received, and two quick taps on 次へ never skip a question the learner has not seen;
Streamlit's own English words (a field's hint, the uploader, an unknown address) are Japanese; the
sidebar's rows are a finger high on a phone; nothing shows above the section tabs while a page scrolls;
a wide table keeps its key column in view on a phone; a Source-Target slip is sent to ⑦-3; ⑩'s quiz asks
exam content first; home says what the app covers and plans by the minutes a day."""
from __future__ import annotations

import io
import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

pytestmark = pytest.mark.browser

import quizzes  # noqa: E402
import ui  # noqa: E402
from practice.progress import apply_answers, new_progress  # noqa: E402
from practice.record import DAILY_MINUTES, DEFAULT_DAILY_MINUTES  # noqa: E402
from ui.storage import STORE_KEY  # noqa: E402
from browserhelpers import assert_healthy, new_page, open_url, section_url, shown_qids, wait_until_rendered  # noqa: E402
from playwright.sync_api import expect  # noqa: E402
from PIL import Image  # noqa: E402  (Streamlit's own dependency)
from test_daily_loop_browser import review_qid  # noqa: E402
from test_exam_date_browser import SEGMENT, expect_saved, open_home, type_date  # noqa: E402
from test_loop_rows_browser import ZONE, misses, seed  # noqa: E402

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


HINT = "el => [getComputedStyle(el).fontSize, getComputedStyle(el, '::after').content]"


def test_a_changed_fields_hint_says_enter_in_japanese_and_a_count_stays(browser, base):
    with new_page(browser, "row10-hint") as page:
        open_url(page, section_url(base, "/pretrain", "試してみよう"))
        field = page.get_by_label("文（トークンを空白で区切る。[CLS] や [SEP] も書けます）")
        field.click()
        field.press("End")
        field.type(" 犬")
        hint = page.locator('[data-testid="stTextInput"] [data-testid="InputInstructions"] > span').first
        expect(hint).to_have_text("Press Enter to apply", timeout=WAIT)      # Streamlit's, drawn at size 0
        assert hint.evaluate(HINT) == ["0px", '"Enter で反映"']
        open_url(page, base + "/glossary")
        search = page.get_by_label("用語を探す")
        search.click()
        search.type("bert")
        count = page.locator('[data-testid="InputInstructions"] > span').first
        expect(count).to_have_text("4/40", timeout=WAIT)
        assert count.evaluate(HINT) == ["12px", "none"]                      # the count is shown as it is


def test_the_uploader_button_is_japanese_and_has_no_english_note(browser, base):
    with new_page(browser, "row10-upload") as page:
        open_url(page, base + "/review")
        expect(page.get_by_role("button", name="ファイルを選ぶ")).to_be_visible(timeout=WAIT)
        uploader = page.locator('[data-testid="stFileUploader"]')
        assert "Upload" not in uploader.inner_text() and "per file" not in uploader.inner_text()


def test_an_unknown_address_is_answered_in_japanese(browser, base):
    with new_page(browser, "row10-notfound") as page:
        open_url(page, base + "/no_such_page")
        dialog = page.get_by_role("dialog")
        expect(dialog).to_contain_text("ページが見つかりません", timeout=WAIT)
        assert "not found" not in dialog.inner_text().lower()
        dialog.get_by_role("button", name="閉じる").click()
        expect(main(page)).to_contain_text("アテンション", timeout=WAIT)      # ホーム runs behind it


def test_the_sidebar_rows_are_a_finger_high_on_a_phone(browser, base):
    with new_page(browser, "row10-sidebar", **PHONE) as page:
        open_url(page, base + "/")
        page.locator('[data-testid="stExpandSidebarButton"]').click()
        rows = page.locator('[data-testid="stSidebar"] a')
        expect(rows.first).to_be_visible(timeout=WAIT)
        heights = [r.bounding_box()["height"] for r in rows.all()]
        assert len(heights) >= 20 and min(heights) >= 44, heights


@pytest.mark.parametrize("width", [1280, 390])
def test_nothing_shows_above_the_section_tabs_while_a_page_scrolls(browser, base, width):
    size = {"width": width, "height": 900} if width > 400 else PHONE
    with new_page(browser, f"row10-above-tabs-{width}", **size) as page:
        open_url(page, section_url(base, "/qkv", "手計算"))
        tabs = page.locator('.st-key-section [role="tablist"]')
        expect(tabs).to_be_visible(timeout=WAIT)
        page.mouse.move(size["width"] * 0.75, 500)                           # over the page's column
        page.mouse.wheel(0, 1500)
        page.wait_for_function("() => document.querySelector('.st-key-section [role=tablist]')"
                               ".getBoundingClientRect().top <= 61", timeout=WAIT)
        box = tabs.bounding_box()
        assert box is not None and box["y"] <= 61, box                       # the bar sticks under the header
        # the strip between the top edge and the bar (but Streamlit's header buttons at its ends) is
        # one colour, the background: no text of the page shows through
        strip = {"x": box["x"] + 60, "y": 4, "width": box["width"] - 120, "height": box["y"] - 8}
        picture = Image.open(io.BytesIO(page.screenshot(clip=strip))).convert("RGB")
        colours = picture.getcolors(1 << 16)
        assert len(colours) == 1, sorted(colours, reverse=True)[:5]


def test_a_wide_table_on_a_phone_keeps_its_key_column_in_view(browser, base):
    """Issue 41 row 5: ⑩'s table of model sizes is wider than a 390 px column; scrolled to its end,
    the model names are still where the table starts."""
    with new_page(browser, "row5-key-column", **PHONE) as page:
        open_url(page, section_url(base, "/llm", "手計算"))
        table = page.locator('[data-testid="stMarkdownContainer"] table', has_text="数えた合計").first
        table.scroll_into_view_if_needed()
        left, scrolled, key = table.evaluate("t => { t.scrollLeft = t.scrollWidth; const r = t.getBoundingClientRect();"
                                             " return [r.left, t.scrollLeft, t.querySelector('tbody td')"
                                             ".getBoundingClientRect().left]; }")
        assert scrolled > 20 and abs(key - left) < 1, (left, scrolled, key)
        expect(table.locator("tbody td").first).to_be_in_viewport()


def test_a_source_target_miss_sends_the_learner_where_it_is_taught(browser, base):
    """Issue 41 row 9: on ②, choosing 「クエリはエンコーダの出力から…」 (a Source-Target Attention
    slip) was filed under a つまずき whose place to relearn was ③, which does not teach it."""
    q = quizzes.from_id("kb.qkv.k05#0")
    choice = next(i for i, c in enumerate(q.choices) if c.startswith("クエリはエンコーダの出力から"))
    record = apply_answers(new_progress(), [(q.id, q.topic, False, choice)], "page", datetime.now(ZoneInfo(ZONE)))
    with new_page(browser, "row9-source-target") as page:
        seed(page, base, record)
        open_url(page, base + "/drill")
        expect(main(page)).to_contain_text(f"学び直す場所：{ui.PAGE_BY_KEY['encdec'].label} の", timeout=WAIT)
        assert ui.PAGE_BY_KEY["scaling"].label not in main(page).inner_text()


def test_the_llm_quiz_asks_exam_content_first(browser, base):
    """Issue 41 row 3: ⑩ has 17 of 32 items 発展; its quiz showed them among the first questions and
    after 新しい問題. With 発展 off (the default) every question shown is exam content."""
    with new_page(browser, "row3-llm-quiz") as page:
        open_url(page, section_url(base, "/llm", "確認クイズ"))
        seen = []
        for round_ in range(3):
            expect(main(page).locator('a[href*="q="]').first).to_be_attached(timeout=WAIT)
            shown = shown_qids(main(page))
            assert shown and shown != seen, (round_, shown)
            seen = shown
            assert not [q for q in shown if quizzes.core.is_advanced(q)], shown
            page.get_by_role("button", name="新しい問題").click()
            wait_until_rendered(page)


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_home_says_what_it_covers_and_plans_the_minutes_a_day(browser, base, size):
    """Issue 41 row 4: what the app covers was said only on the mock exam's start screen; the plan
    gave a page a day with no time budget. Home now says both, and the plan follows the minutes."""
    with new_page(browser, f"row4-home-{size}", **({} if size == "laptop" else PHONE)) as page:
        open_home(page, base)
        home = main(page)
        expect(home).to_contain_text("このチューターが扱う G検定の範囲", timeout=WAIT)
        expect(home).to_contain_text("扱わない範囲", timeout=WAIT)
        exam = date.today() + timedelta(days=40)
        page.locator(SEGMENT).first.click()
        type_date(page, exam)
        page.keyboard.press("Enter")
        expect_saved(page, exam)
        expect(home).to_contain_text(f"1 日 {DEFAULT_DAILY_MINUTES} 分のうち約", timeout=WAIT)
        expect(home).to_contain_text("は、模擬試験と復習にあてます。", timeout=WAIT)
        today = home.locator('[data-testid="stPageLink-NavLink"]').filter(has_text=re.compile(r"（約 \d+ 分）"))
        expect(today.first).to_be_visible(timeout=WAIT)
        slider = page.get_by_role("slider", name="1 日に使える時間")
        slider.focus()
        page.keyboard.press("End")                                      # the most minutes a day
        expect(home).to_contain_text(f"1 日 {max(DAILY_MINUTES)} 分のうち約", timeout=WAIT)
        page.wait_for_function("([k, m]) => { const t = window.localStorage.getItem(k);"
                               " return t !== null && JSON.parse(t).settings.daily_minutes === m; }",
                               arg=[STORE_KEY, max(DAILY_MINUTES)], timeout=WAIT)     # kept in the record
