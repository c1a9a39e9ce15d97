"""Accessibility and the rough edges a learner meets, in a real browser (issue 16 §2–§3).

axe-core (the engine of the browsers' own audit tools, the npm package installed by
`.ci/install-browser` into .ci/node/) is injected by Playwright into Debian's Chromium and run on
every page, light theme at 1280 px and 390 px and dark theme at 1280 px: no violation of impact
serious or critical (WCAG AA contrast included), and no empty table header. Then: a quiz answered
with the keyboard alone, heatmap values written as text, the dark setting followed (chart text
too, which axe does not judge), a number out of range explained in Japanese, a mistyped URL
explained in Japanese, nothing cut at 390 px, ⑧'s loss shown falling, ⑦-3's vocabulary message
written as Japanese.

One server for the whole module; pages are reused (a goto per page).
"""
from __future__ import annotations

import json
import os
import re
from urllib.parse import quote

import pytest

from ui.nav import PAGES
from ui import widgets

pytestmark = pytest.mark.browser

from browserhelpers import ARTIFACTS, ROOT, TABLE, go_to_page, new_page, open_section, wait_until_rendered  # noqa: E402
from ui.sections import QUERY, QUIZ, TABS  # noqa: E402
from browserhelpers import streamlit_server as start_app  # noqa: E402
from playwright.sync_api import Page, expect  # noqa: E402

AXE = ROOT / ".ci" / "node" / "node_modules" / "axe-core" / "axe.min.js"
EXISTING = [p for p in PAGES if p.exists]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def need_axe() -> None:
    """axe-core comes from npm (.ci/install-browser). Under CI its absence is a failure, not a skip."""
    if AXE.is_file():
        return
    message = f"axe-core is not installed ({AXE.relative_to(ROOT)}): run `bash .ci/install-browser`"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def base():
    with start_app() as url:
        yield url


def open_page(browser, name: str, viewport=DESKTOP, scheme: str = "light", **kwargs):
    """browserhelpers.new_page at a viewport and colour scheme (screenshot a11y-<name>.png on failure)."""
    return new_page(browser, f"a11y-{name}", viewport["width"], viewport["height"], color_scheme=scheme, **kwargs)


LAID_OUT_MS = 300   # the page unchanged this long: charts, formulas and tables laid out


def settle(page: Page) -> None:
    """A script run has finished and the page is laid out (browserhelpers.wait_until_rendered, with a
    longer quiet time), every sidebar link is drawn, and no element is still fading in."""
    wait_until_rendered(page, LAID_OUT_MS)
    page.wait_for_function(f"() => document.querySelectorAll("
                           f"'[data-testid=\"stSidebar\"] [data-testid=\"stPageLink-NavLink\"]').length >= {len(EXISTING)}",
                           timeout=30_000)
    # elements fade and scale in: axe would measure the colours of a half-drawn frame
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')", timeout=10_000)


def at_section(url: str, name: str) -> str:
    """A learning page's URL opened at one section ("hand", "visual", "try", "quiz"; ui.sections)."""
    return f"{url}?{QUERY}={quote(QUIZ if name == 'quiz' else TABS[name])}"


# the sections of a learning page whose content axe judges (the quiz: test_axe_after_a_quiz_answer…)
AXE_SECTIONS = ("aim", "hand", "visual", "try")


def goto(page: Page, base: str, url: str) -> None:
    page.goto(base + url, wait_until="domcontentloaded")
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0, f"an exception box on {url}"


AXE_RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical' || v.id === 'empty-table-header')
    .map(v => ({id: v.id, impact: v.impact,
                nodes: v.nodes.slice(0, 5).map(n => n.html.slice(0, 100) + ' :: '
                                                   + n.failureSummary.replace(/\\s+/g, ' ').slice(0, 200))}));
}"""


def axe_violations(page: Page) -> list[dict]:
    """axe-core's serious findings on the whole page. axe judges colours only of what is in the
    viewport (the rest is 'incomplete'), so the viewport is stretched to the page's full height."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    size = page.viewport_size
    full = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(full) + 50, 20_000))})
    try:
        page.wait_for_timeout(300)
        return page.evaluate(AXE_RUN)
    finally:
        page.set_viewport_size(size)


def luminance(rgb: str) -> float:
    """Relative luminance (WCAG: 0 black … 1 white) of a CSS colour "rgb(r, g, b)" (the app's
    own formula, ui.widgets.luminance, which picks the heatmaps' text colour)."""
    return widgets.luminance("#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", rgb)[:3]))


def background_luminance(page: Page) -> float:
    """Relative luminance of the app's background."""
    return luminance(page.evaluate("getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"))


# ---------------------------------------------------------------------------
# §2 axe-core on every page; the dark setting followed
# ---------------------------------------------------------------------------
# Time (the suite's slowest, ≈ 3 min at 1280 px on 2 cores): axe-core judges every section of every page (each
# section is its own DOM: over a hundred axe runs), in one browser session moving by the sidebar and the tabs
# as a learner does (no page load per section). Splitting it across workers would not shorten the whole run.
@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("light", 390), ("dark", 1280)],
                         ids=["light-1280", "light-390", "dark-1280"])
def test_axe_finds_nothing_serious_on_any_page(base, browser, scheme, width):
    need_axe()
    viewport = DESKTOP if width == 1280 else PHONE
    found = {}
    with open_page(browser, f"axe-{scheme}-{width}", viewport, scheme) as page:
        for info in EXISTING:
            # a learning page shows one section at a time: each is judged at 1280 px, the first at 390 px.
            # At 1280 px the learner's own way around (sidebar, section tabs) keeps one session; a phone
            # opens each page by its address (its sidebar is closed).
            if width == 1280 and info is not EXISTING[0]:
                go_to_page(page, info, quiet_ms=LAID_OUT_MS)
            else:
                goto(page, base, info.url)
            names = AXE_SECTIONS if info.section == "学習" and width == 1280 else (None,)
            for name in names:
                if name is not None:
                    open_section(page, TABS[name], quiet_ms=LAID_OUT_MS)
                    settle(page)
                url = info.url if name is None else at_section(info.url, name)
                assert page.locator('[data-testid="stException"]').count() == 0, f"an exception box on {url}"
                lum = background_luminance(page)
                assert (lum < 0.05) if scheme == "dark" else (lum > 0.9), \
                    f"{url}: a {scheme} system setting gives a background of luminance {lum:.2f}"
                violations = axe_violations(page)
                if violations:
                    found[url] = violations
                    ARTIFACTS.mkdir(exist_ok=True)
                    page.screenshot(path=str(ARTIFACTS / f"axe-{scheme}-{width}-{info.key}-{len(found)}.png"))
    assert not found, "axe-core: " + json.dumps(found, ensure_ascii=False, indent=1)


def test_axe_after_a_quiz_answer_in_both_themes(base, browser):
    """The verdict, the explanation and the mistake label pass the contrast check too."""
    need_axe()
    for scheme in ("light", "dark"):
        with open_page(browser, f"axe-quiz-{scheme}", DESKTOP, scheme) as page:
            goto(page, base, at_section("/naive", "quiz"))
            radio = page.locator('[data-testid="stRadio"]').last
            radio.scroll_into_view_if_needed()
            radio.locator("label").nth(1).click()
            settle(page)
            page.get_by_role("button", name="回答する").last.click()
            settle(page)
            expect(page.get_by_text("解説").last).to_be_visible(timeout=20_000)
            assert axe_violations(page) == [], scheme


# ---------------------------------------------------------------------------
# §2 keyboard alone; heatmap values as text
# ---------------------------------------------------------------------------
def test_quiz_is_answered_with_the_keyboard_alone(base, browser):
    """Tab to the choices, arrow keys to move, Tab to 回答する, Enter: the verdict appears."""
    with open_page(browser, "quiz-keyboard") as page:
        goto(page, base, at_section("/naive", "quiz"))
        radio = page.locator('[data-testid="stRadio"]').last
        radio.scroll_into_view_if_needed()
        choices = radio.locator('input[type="radio"]')
        assert choices.count() == 4
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # from the top
        for _ in range(300):  # Tab through the page until a choice of the quiz has the focus
            page.keyboard.press("Tab")
            if radio.evaluate("el => el.contains(document.activeElement)"):
                break
        else:
            pytest.fail("Tab never reaches the quiz's choices")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        settle(page)
        checked = [choices.nth(i).is_checked() for i in range(4)]
        assert sum(checked) == 1, checked
        for _ in range(10):  # from the choices, Tab on to the submit button
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement && document.activeElement.innerText"
                             " && document.activeElement.innerText.includes('回答する')"):
                break
        else:
            pytest.fail("Tab from the choices never reaches 回答する")
        page.keyboard.press("Enter")
        settle(page)
        expect(page.get_by_text("解説").last).to_be_visible(timeout=20_000)
        body = page.inner_text("body")
        assert "正解です" in body or "不正解です" in body


HEATMAP_JS = """() => [...document.querySelectorAll('.hm table')].map(t => [...t.querySelectorAll('tbody td')]
  .map(td => { const row = td.parentElement.querySelector('th[scope="row"]');
               const col = t.querySelectorAll('thead tr:last-child th')[td.cellIndex];
               return [row && row.innerText, col && col.innerText, td.innerText, getComputedStyle(td).backgroundColor]; }))"""


def test_heatmap_values_are_text_in_a_table(base, browser):
    """① heatmap: the weights are written in their cells as text, not only shown as colours, in a
    table whose row and column headers name each cell (a screen reader reads 「それ」「それ」0.576)."""
    with open_page(browser, "heatmap-text") as page:
        goto(page, base, at_section("/naive", "visual"))
        [cells] = page.evaluate(HEATMAP_JS)
        named = {(row, col): (text, bg) for row, col, text, bg in cells}
        assert len(named) == 9
        assert named[("それ", "それ")][0] == "0.576" and named[("それ", "魚")][0] == "0.212"
        assert named[("猫", "猫")][0] == "0.665" and named[("猫", "魚")][0] == "0.090"
        # the colour follows the value: the largest weight is not drawn like the smallest
        assert named[("猫", "猫")][1] != named[("猫", "魚")][1]


FILLS_JS = """() => [...document.querySelectorAll('.vega-embed svg text')]
  .map(t => [getComputedStyle(t).fill, t.textContent.slice(0, 30)])"""


@pytest.mark.parametrize("url", ["/output", "/cost"])
def test_chart_text_on_the_dark_background_is_light(base, browser, url):
    """axe does not judge SVG text: on the dark theme every text a chart writes on the page's
    background (axes, titles, ⑦-4's readout and the values beside its bars, ⑦-5's crossover label)
    is light. These pages write no text on coloured cells (heatmaps, ⑨'s strip keep their own)."""
    with open_page(browser, f"dark-chart-text-{url[1:]}", DESKTOP, "dark") as page:
        goto(page, base, at_section(url, "visual"))
        page.wait_for_function("() => document.querySelectorAll('.vega-embed svg text').length > 20",
                               timeout=20_000)
        # the dark theme's background is near black: text below 0.2 would fail WCAG AA's 4.5 : 1 there
        dark = [(fill, text) for fill, text in page.evaluate(FILLS_JS) if luminance(fill) < 0.2]
        assert not dark, f"dark text on the dark background: {dark[:8]}"


# ---------------------------------------------------------------------------
# §3 Japanese throughout
# ---------------------------------------------------------------------------
def test_number_out_of_range_is_explained_in_japanese(base, browser):
    """⑦-4's model seed (0〜1,000): typing 5000 uses 1,000 and says so in Japanese, in the box too."""
    with open_page(browser, "number-range") as page:
        goto(page, base, at_section("/output", "visual"))
        box = page.get_by_role("spinbutton", name="モデルのシード")
        box.scroll_into_view_if_needed()
        box.fill("5000")
        box.press("Enter")
        settle(page)
        note = page.locator('[data-testid="stAlert"]').filter(has_text="モデルのシード")
        expect(note.first).to_contain_text("0〜1,000", timeout=20_000)
        expect(note.first).to_contain_text("5,000 の代わりに 1,000 を使っています")
        assert box.input_value() == "1000"
        assert "outside the allowed range" not in page.inner_text('[data-testid="stMain"]')
        box.fill("7")
        box.press("Enter")
        settle(page)
        expect(note).to_have_count(0, timeout=20_000)  # a stale message does not stay


def test_mistyped_url_gets_japanese_guidance(base, browser):
    """A mistyped URL: Streamlit's own English dialog (classic multipage mode has no custom 404)
    over the home page, which says in Japanese what happened and where to go."""
    with open_page(browser, "not-found") as page:
        page.goto(base + "/qvk", wait_until="domcontentloaded")
        settle(page)
        note = page.locator('[data-testid="stAlert"]').filter(has_text="ページはありません")
        expect(note.first).to_contain_text("ホームを表示しています", timeout=20_000)
        assert "qvk" not in note.first.inner_text()      # the address a link chose is never quoted
        goto(page, base, "/")
        assert page.locator('[data-testid="stAlert"]').filter(has_text="ページはありません").count() == 0


def test_vocabulary_message_names_the_words_in_japanese(base, browser):
    with open_page(browser, "encdec-vocab") as page:
        goto(page, base, at_section("/encdec", "try"))
        box = page.get_by_label("ソース（エンコーダに入る文）")
        box.scroll_into_view_if_needed()
        box.fill("猫 は 犬 を 食べた")
        box.press("Enter")
        settle(page)
        error = page.locator('[data-testid="stAlert"]').filter(has_text="語彙にない")
        expect(error.first).to_contain_text("「犬」", timeout=20_000)
        text = error.first.inner_text()
        assert "[" not in text and "'" not in text, text


# ---------------------------------------------------------------------------
# §3 rough edges at 390 px; ⑧'s loss
# ---------------------------------------------------------------------------
CUT_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const editors = [...main.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')]
      .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => [e.scrollWidth, e.clientWidth]);
  const tables = [...main.querySelectorAll('""" + TABLE + """, .hm table')]
      .filter(e => e.scrollWidth > e.clientWidth + 1)
      .map(e => e.innerText.replace(/\\s+/g, ' ').slice(0, 50));
  return {editors, tables};
}"""


# Time (≈ 35 s): every page's 試してみよう and 可視化 at 390 px, measured after layout; one session.
def test_editors_and_tables_fit_a_phone(base, browser):
    """At 390 px no matrix editor, no table and no heatmap scrolls sideways (a cut last column,
    ⑦-4's h; ⑦-3's 6 × 6 heatmaps, ⑥'s 5 × 5 ones)."""
    found = {}
    with open_page(browser, "phone-cut", PHONE, is_mobile=True, has_touch=True) as page:
        for url in ("/naive", "/qkv", "/formula", "/block", "/output", "/mask", "/encdec", "/seq2seq"):
            for name in ("hand", "visual", "try"):
                goto(page, base, at_section(url, name))
                result = page.evaluate(CUT_JS)
                if result["editors"] or result["tables"]:
                    found[at_section(url, name)] = result
        goto(page, base, at_section("/output", "visual"))
        h = page.locator(TABLE).filter(has_text="h（「を」の位置）")
        expect(h.first).to_be_visible()
        assert h.first.locator("tbody tr").count() == 8  # all 8 components, one per row
    assert not found, found


SCROLLING_TABLES_JS = """() => [...document.querySelectorAll('""" + TABLE + """')]
  .filter(t => t.checkVisibility()).map(t => ({
    scrolls: t.scrollWidth > t.clientWidth + 1, tabindex: t.getAttribute('tabindex'),
    label: t.getAttribute('aria-label'), head: t.rows[0].innerText.replace(/\\s+/g, ' ').slice(0, 40)}))"""


def test_a_table_that_scrolls_on_a_phone_is_reached_and_scrolled_by_the_keyboard(base, browser):
    """⑦'s PE table is wider than a phone: Tab reaches it (named in Japanese) and → scrolls it;
    at 1280 px it fits, and no table is a Tab stop."""
    with open_page(browser, "phone-scroll-table", PHONE) as page:
        goto(page, base, at_section("/position", "try"))
        tables = page.evaluate(SCROLLING_TABLES_JS)
        scrolling = [t for t in tables if t["scrolls"]]
        assert scrolling, f"⑦ was expected to have a table wider than 390 px: {tables}"
        assert all(t["tabindex"] == "0" and "スクロール" in t["label"] for t in scrolling), scrolling
        assert all(t["tabindex"] is None for t in tables if not t["scrolls"]), tables
        table = page.locator(TABLE + '[tabindex="0"]').first
        table.focus()
        page.keyboard.press("Tab")
        page.keyboard.press("Shift+Tab")            # back by the keyboard: it is a Tab stop
        expect(table).to_be_focused()
        assert table.evaluate("t => getComputedStyle(t).outlineStyle") == "solid"  # the focus ring
        page.keyboard.press("ArrowRight")
        page.wait_for_function("t => t.scrollLeft > 0", arg=table.element_handle(), timeout=5_000)
    with open_page(browser, "desktop-scroll-table", DESKTOP) as page:
        goto(page, base, at_section("/position", "try"))
        tables = page.evaluate(SCROLLING_TABLES_JS)
        assert tables and not any(t["scrolls"] or t["tabindex"] for t in tables), tables


def test_training_loss_falls_with_a_downward_green_arrow(base, browser):
    with open_page(browser, "training-loss") as page:
        goto(page, base, at_section("/training", "visual"))
        page.get_by_role("button", name="学習を始める").first.click()
        expect(page.get_by_text("学習が終わりました").first).to_be_visible(timeout=90_000)
        settle(page)
        metric = page.locator('[data-testid="stMetric"]').filter(has_text="最後の損失")
        delta = metric.locator('[data-testid="stMetricDelta"]')
        expect(delta).to_contain_text("-")  # the loss fell: a negative change
        expect(delta.locator('[data-testid="stMetricDeltaIcon-Down"]')).to_have_count(1)
        color = delta.evaluate("e => getComputedStyle(e).color")
        r, g, _ = (int(v) for v in re.findall(r"\d+", color)[:3])
        assert g > r, f"the fall of a loss is shown in green (inverse), got {color}"
        expect(metric).to_contain_text("最初")


def test_a_formula_too_wide_for_a_phone_is_a_named_group_axe_accepts(base, browser):
    """A display formula that still does not fit at the smallest size scrolls in its box; ui/page.js makes
    the box a Tab stop named in Japanese, and gives the span a role (a name on a bare span is an
    aria-prohibited-attr violation, as ⑪-2's minimax formula once was on a phone)."""
    need_axe()
    with open_page(browser, "phone-wide-formula", PHONE) as page:
        goto(page, base, "/naive")
        page.evaluate("""() => {
          const box = document.createElement('div');
          box.innerHTML = '<span class="katex-display"><span class="katex">'
            + 'x = a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q + r + s + t + u + v + w'.repeat(3)
            + '</span></span>';
          document.querySelector('[data-testid="stMainBlockContainer"]').appendChild(box);
        }""")
        wide = page.locator('.katex-display[tabindex="0"]')
        expect(wide).to_have_attribute("role", "group", timeout=5_000)
        assert "スクロール" in wide.get_attribute("aria-label")
        assert axe_violations(page) == []
