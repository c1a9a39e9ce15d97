"""On a phone (390×844, touch), in a real browser: a learning page one section at a time, and the
details a learner on the train hit (issue 34). The section tabs fit one row and stay in reach while
a long section scrolls; a link opens a section and the keyboard reaches every one; 「次へ」 opens the
next section at its top; an edit in 試してみよう is what 手計算 shows next; only the open section is
sent; the sidebar closes after a page is chosen; the mock exam's remaining time stays in view;
a quiz choice is a 44 px tap target; Japanese lines never start with 「、」「。」."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

from browserhelpers import assert_healthy, new_page, quiz_url, section_url, wait_until_rendered  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

PHONE = {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}
TABLIST = '.st-key-section [role="tablist"]'
ELEMENTS = '[data-testid="stMain"] [data-testid="stElementContainer"]'


def phone(browser, name: str):
    return new_page(browser, f"phone-{name}", PHONE["width"], PHONE["height"], has_touch=True, is_mobile=True)


def go(page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    wait_until_rendered(page)
    assert_healthy(page)


def selected(page) -> list[str]:
    return page.locator(f'{TABLIST} [role="tab"][aria-selected="true"]').all_inner_texts()


def scroll_main(page, y: int) -> None:
    page.evaluate(f"() => document.querySelector('[data-testid=\"stMain\"]').scrollTop = {y}")
    page.wait_for_timeout(300)


def test_the_tabs_fit_one_row_stay_in_reach_and_next_opens_the_next_section_at_its_top(browser, base):
    with phone(browser, "tabs") as page:
        go(page, base + "/naive")
        assert page.locator(f'{TABLIST} [role="tab"]').all_inner_texts() == [
            "ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
        fits = "(sel) => { const t = document.querySelector(sel); return t.scrollWidth <= t.clientWidth + 1; }"
        assert page.evaluate(fits, TABLIST), "the tabs need a sideways scroll"
        first = page.locator(ELEMENTS).count()
        go(page, section_url(base, "/naive", "手計算"))
        assert selected(page) == ["手計算"]
        scroll_main(page, 3000)                                # deep in a long section
        top = page.locator(TABLIST).bounding_box()["y"]
        assert 0 <= top <= 80, top                             # the tabs stay under the header
        page.get_by_role("tab", name="確認クイズ").tap()       # the quiz, one tap away
        wait_until_rendered(page)
        assert selected(page) == ["確認クイズ"]
        expect(page.get_by_role("button", name="回答する").first).to_be_visible(timeout=20_000)
        go(page, section_url(base, "/naive", "手計算"))
        hand = page.locator(ELEMENTS).count()
        step = page.get_by_role("button", name="次へ：可視化")
        step.scroll_into_view_if_needed()
        step.tap()
        wait_until_rendered(page)
        assert selected(page) == ["可視化"] and "%E5%8F%AF%E8%A6%96%E5%8C%96" in page.url
        page.wait_for_timeout(300)
        assert 0 <= page.locator(TABLIST).bounding_box()["y"] <= 200   # the new section opens at its top
        visual = page.locator(ELEMENTS).count()
        # only the open section is sent: each is a fraction of the three together
        assert max(first, hand, visual) < first + hand + visual - 20, (first, hand, visual)


def test_an_edit_in_try_it_is_what_the_hand_calculation_shows_next(browser, base):
    with phone(browser, "edit") as page:
        go(page, section_url(base, "/naive", "試してみよう"))
        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        box = grid.bounding_box()
        cell_w = (box["width"] - 2) / 5                               # the row labels and 4 columns
        page.mouse.dblclick(box["x"] + box["width"] - cell_w / 2, box["y"] + 37 + 35 * 2 + 35 / 2)  # それ, 次元4
        editor = page.locator("textarea.gdg-input")
        editor.wait_for(timeout=10_000)
        editor.fill("3")                                              # それ = (1, 1, 0, 3): s_33 = 11
        editor.press("Enter")
        wait_until_rendered(page)
        page.get_by_role("tab", name="手計算").tap()
        wait_until_rendered(page)
        table = page.locator('[data-testid="stMarkdownContainer"] table').filter(has_text="それ").nth(1)
        expect(table).to_contain_text("11", timeout=20_000)          # S = XXᵀ of the edited X


def test_the_keyboard_reaches_every_section(browser, base):
    with new_page(browser, "phone-keyboard") as page:
        go(page, base + "/naive")
        page.locator(f'{TABLIST} [role="tab"]').first.focus()
        for name in ["手計算", "可視化", "試してみよう", "確認クイズ"]:
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            wait_until_rendered(page)
            assert selected(page) == [name]
            page.locator(f'{TABLIST} [role="tab"][aria-selected="true"]').focus()


def test_the_sidebar_closes_after_a_page_is_chosen(browser, base):
    with phone(browser, "sidebar") as page:
        go(page, base + "/")
        page.locator('[data-testid="stExpandSidebarButton"]').tap()
        link = page.locator('[data-testid="stSidebar"] a', has_text="Q・K・V").first
        expect(link).to_be_visible(timeout=10_000)
        link.tap()
        wait_until_rendered(page)
        assert page.url.endswith("/qkv")
        page.wait_for_timeout(800)
        width = page.evaluate("() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right")
        assert width <= 1, f"the sidebar still covers the page up to x = {width}"


def test_the_exam_clock_stays_in_view_while_scrolling(browser, base):
    with phone(browser, "exam-clock") as page:
        go(page, base + "/exam")
        page.get_by_role("button", name="試験を始める").tap()
        wait_until_rendered(page)
        clock = page.locator('[class*="st-key-sticky_exam_clock"]')
        expect(clock).to_contain_text("残り時間", timeout=20_000)
        scroll_main(page, 2000)
        box = clock.bounding_box()
        assert box and 0 <= box["y"] <= 80, box


def test_quiz_choices_are_44px_tap_targets_and_lines_follow_kinsoku(browser, base):
    with phone(browser, "tap") as page:
        go(page, quiz_url(base, "/naive"))
        labels = page.locator('[data-testid="stMain"] [data-testid="stRadioGroup"] label')
        expect(labels.first).to_be_visible(timeout=20_000)
        sizes = labels.evaluate_all("els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
        assert sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes
        breaks = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"] p')]"
                               ".map(p => getComputedStyle(p).lineBreak)")
        assert breaks and set(breaks) == {"strict"}, set(breaks)


SIDEBAR_WATCH_JS = """() => { window.__sidebarMuts = [];
  new MutationObserver(ms => window.__sidebarMuts.push(...ms.map(m => m.type + ':' + (m.attributeName || ''))))
    .observe(document.querySelector('[data-testid="stSidebar"]'),
             {subtree: true, childList: true, attributes: true, characterData: true}); }"""


def test_a_section_switch_reruns_the_sections_only(browser, base):
    """A tab reruns ui.sections' fragment, not ui.page(): the sidebar is not touched (a full run
    would re-send it and mark it stale while it runs)."""
    with new_page(browser, "phone-switch-scope") as page:
        go(page, base + "/naive")
        page.evaluate(SIDEBAR_WATCH_JS)
        page.get_by_role("tab", name="手計算").click()
        wait_until_rendered(page)
        expect(page.locator('[data-testid="stMain"]')).to_contain_text("0.576", timeout=20_000)
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.__sidebarMuts") == []


def test_the_exam_submit_confirmation_opens_in_view(browser, base):
    """提出する at the bottom of a question: 提出を確定する is on screen at once, below the sticky clock."""
    with phone(browser, "exam-confirm") as page:
        go(page, base + "/exam")
        page.get_by_role("button", name="試験を始める").tap()
        wait_until_rendered(page)
        submit = page.get_by_role("button", name="提出する")
        submit.scroll_into_view_if_needed()
        submit.tap()
        wait_until_rendered(page)
        confirm = page.get_by_role("button", name="提出を確定する")
        expect(confirm).to_be_visible(timeout=20_000)
        page.wait_for_timeout(300)
        box = confirm.bounding_box()
        clock = page.locator('[class*="st-key-sticky_exam_clock"]').bounding_box()
        assert box["y"] >= clock["y"] + clock["height"] - 1 and box["y"] + box["height"] <= PHONE["height"], (box, clock)
