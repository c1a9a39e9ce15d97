"""The learning path as a learner walks it, in a real browser (issue 41): the next page opens at its
lesson, not at the quiz the page before had open (row 1), and an edited input shows what the results
use after the learner visited another section or page (row 2). On a laptop and on a 390 px phone."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

from browserhelpers import assert_healthy, new_page, section_url, wait_until_rendered  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

TABLIST = '.st-key-section [role="tablist"]'
SIZES = {"laptop": {}, "phone": {"width": 390, "height": 844, "has_touch": True, "is_mobile": True}}
METRIC_JS = """(label) => { for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
  if (m.innerText.startsWith(label)) return m.querySelector('[data-testid="stMetricValue"]').innerText; } return null; }"""


def opened(browser, name: str, size: str):
    return new_page(browser, f"path-{name}-{size}", **SIZES[size])


def go(page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    wait_until_rendered(page)
    assert_healthy(page)


def selected(page) -> list[str]:
    """The open section (the page's own tab list: a section may hold tabs of its own)."""
    return page.locator(TABLIST).first.locator('[role="tab"][aria-selected="true"]').all_inner_texts()


def open_quiz(page, base: str, path: str, size: str) -> None:
    """A learner opens a page and taps its 確認クイズ tab (a tap, not a link: what the tabs remember)."""
    go(page, base + path)
    tap(page, page.locator(TABLIST).first.get_by_role("tab", name="確認クイズ"), size)
    assert selected(page) == ["確認クイズ"]


def tap(page, locator, size: str) -> None:
    locator.scroll_into_view_if_needed()
    locator.tap() if size == "phone" else locator.click()
    wait_until_rendered(page)


@pytest.mark.parametrize("size", SIZES)
def test_next_page_from_a_finished_quiz_opens_at_the_lesson(browser, base, size):
    """⓪-2's quiz → 「次へ：①…」: ① shows ねらい・解説 from its top, and its quiz is not drawn."""
    with opened(browser, "next", size) as page:
        open_quiz(page, base, "/seq2seq", size)
        tap(page, page.locator('[data-testid="stMain"] a', has_text="次へ：① 素朴なAttention"), size)
        expect(page).to_have_url(re.compile(re.escape(f"{base}/naive") + r"(\?|$)"), timeout=20_000)
        assert selected(page) == ["ねらい・解説"]
        assert page.locator('[data-testid="stMain"] button', has_text="回答する").count() == 0
        # at the lesson's top, not at its last question (the browser keeps the old offset for a moment)
        page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop < 50",
                               timeout=10_000)


def sidebar_link(page, text: str, size: str):
    """The sidebar's link to a page (on a phone, the sidebar is opened first, as a learner does)."""
    if size == "phone":
        page.locator('[data-testid="stExpandSidebarButton"]').tap()
    link = page.locator('[data-testid="stSidebar"] a', has_text=text).first
    expect(link).to_be_visible(timeout=10_000)
    return link


@pytest.mark.parametrize("size", SIZES)
def test_the_sidebar_and_home_open_a_new_page_at_its_lesson(browser, base, size):
    """After ⓪-2's quiz, in the same session: ① from the sidebar, and ⑦-1 from home's plan after a
    look at ②'s quiz, each open at ねらい・解説; a page seen before comes back at its own section."""
    with opened(browser, "sidebar", size) as page:
        open_quiz(page, base, "/seq2seq", size)
        tap(page, sidebar_link(page, "① 素朴なAttention", size), size)
        assert selected(page) == ["ねらい・解説"]
        tap(page, page.get_by_role("tab", name="可視化"), size)
        tap(page, sidebar_link(page, "⓪-2", size), size)
        assert selected(page) == ["確認クイズ"]                 # its own section, kept for the session
        tap(page, sidebar_link(page, "ホーム", size), size)
        nxt = page.locator('[data-testid="stMain"] a').filter(has_text="② Q・K・V").first
        tap(page, nxt, size)                                     # home's 「次のページに進む」
        assert selected(page) == ["ねらい・解説"]
        tap(page, sidebar_link(page, "① 素朴なAttention", size), size)
        assert selected(page) == ["可視化"]


def grid_row(page, row: int, cols: int = 4) -> list[str]:
    grid = page.locator('[data-testid="stDataFrame"]').first
    return [grid.locator(f'[data-testid="glide-cell-{c}-{row}"]').first.inner_text() for c in range(1, cols + 1)]


def edit_cell(page, column_from_right: int, value: str) -> None:
    """Type ``value`` into それ's row of ①'s X, ``column_from_right`` columns from the right (0 = 次元4)."""
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    box = grid.bounding_box()
    cell_w = (box["width"] - 2) / 5                              # the row labels and 4 columns
    before = page.evaluate(METRIC_JS, "それ → それ")
    page.mouse.dblclick(box["x"] + box["width"] - cell_w * (column_from_right + 0.5), box["y"] + 37 + 35 * 2 + 35 / 2)
    editor = page.locator("textarea.gdg-input")
    editor.wait_for(timeout=10_000)
    editor.fill(value)
    editor.press("Enter")
    page.wait_for_function(f"(b) => ({METRIC_JS})('それ → それ') !== b", arg=before, timeout=20_000)
    wait_until_rendered(page)


@pytest.mark.parametrize("size", SIZES)
def test_an_edit_shows_in_the_editor_after_another_section_and_another_page(browser, base, size):
    """① 試してみよう: それ = (1,1,0,3); 手計算 and back, then ② (sidebar) and back: the grid still shows
    the edit and the weights are the edit's; a second edit keeps the first (both reach 手計算's S)."""
    with opened(browser, "edit", size) as page:
        go(page, section_url(base, "/naive", "試してみよう"))
        assert grid_row(page, 2) == ["1", "1", "0", "0"]
        edit_cell(page, 0, "3")
        weight = page.evaluate(METRIC_JS, "それ → それ")
        tap(page, page.get_by_role("tab", name="手計算"), size)
        tap(page, page.get_by_role("tab", name="試してみよう"), size)
        assert grid_row(page, 2) == ["1", "1", "0", "3"]
        assert page.evaluate(METRIC_JS, "それ → それ") == weight
        tap(page, sidebar_link(page, "② Q・K・V", size), size)
        tap(page, sidebar_link(page, "① 素朴なAttention", size), size)
        assert selected(page) == ["試してみよう"]
        assert grid_row(page, 2) == ["1", "1", "0", "3"]
        assert page.evaluate(METRIC_JS, "それ → それ") == weight
        edit_cell(page, 1, "2")                                   # それ = (1, 1, 2, 3): both edits count
        assert grid_row(page, 2) == ["1", "1", "2", "3"]
        tap(page, page.get_by_role("tab", name="手計算"), size)
        table = page.locator('[data-testid="stMarkdownContainer"] table').filter(has_text="それ").nth(1)
        expect(table).to_contain_text("15", timeout=20_000)      # s_33 = 1 + 1 + 4 + 9 for the edited X
