"""The real-browser recipe every browser test module shares (see ../shared/design.md): Debian's
chromium driven by Playwright (never a downloaded browser), a fresh `streamlit run app.py` on
127.0.0.1, a screenshot in test-artifacts/ when a step fails, and one notion of "the script run
is over". The ``browser`` fixture (conftest.py) launches it once per module."""
from __future__ import annotations

import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TABLE = '[data-testid="stMarkdownContainer"] table'  # a read-only table (ui.show_table: a Markdown table)
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]

if not Path(CHROMIUM).exists():  # pragma: no cover - CI installs it (.ci/install-browser)
    pytest.fail("Debian chromium is not installed: run `bash .ci/install-browser` first", pytrace=False)

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from bench.common import streamlit_server as start_server  # noqa: E402


@contextmanager
def streamlit_server():
    """A fresh `streamlit run app.py` on 127.0.0.1 (bench.common's); yields its base URL."""
    with start_server(watch_files=False, timeout=30) as server:
        yield server.base


@contextmanager
def launch():
    """A headless Debian Chromium (the ``browser`` fixture of conftest.py, one per test module)."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield b
        finally:
            b.close()


@contextmanager
def new_page(browser, name: str, width: int = 1280, height: int = 900, **context_options):
    """A page in a fresh browser context (Japanese locale); a screenshot test-artifacts/<name>.png
    if the block fails. ``context_options`` go to ``browser.new_context`` (color_scheme, has_touch …)."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ja-JP", **context_options)
    context.add_init_script(WATCH_JS)
    page = context.new_page()
    try:
        yield page
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        except Exception:  # the page may be gone; the original failure matters
            pass
        raise
    finally:
        context.close()


# Installed in every page of a context made by new_page (and lazily by wait_until_rendered in any
# other): when the learner last acted (a pointer, key or input event), when the last script run
# started and ended (stApp's data-test-script-state), and when the document last changed.
WATCH_JS = """(() => {
  if (window.__stWatch) return;
  const w = window.__stWatch = {input: 0, runStart: 0, runEnd: 0, mutated: performance.now(), running: false};
  const acted = () => { w.input = performance.now(); };
  for (const t of ['pointerdown', 'touchstart', 'keydown', 'click', 'input', 'change']) addEventListener(t, acted, true);
  const watch = () => new MutationObserver(() => {
    w.mutated = performance.now();
    const app = document.querySelector('[data-testid="stApp"]');
    const running = !!app && app.getAttribute('data-test-script-state') === 'running';
    if (running && !w.running) w.runStart = w.mutated;
    if (!running && w.running) w.runEnd = w.mutated;
    w.running = running;
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  if (document.documentElement) watch(); else addEventListener('DOMContentLoaded', watch);
})()"""
# Settled: no script run in progress, no input still waiting for the run it asks for (a click reaches
# the server and comes back as 'running' within GRACE_MS; an input that asks for no run, like a choice
# inside a form, is waited for that long), and the document unchanged for QUIET_MS (charts and
# formulas are drawn after the run's last message).
QUIET_MS = 150
GRACE_MS = 800
SETTLED_JS = """(q) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') === 'running') return false;
  const w = window.__stWatch, now = performance.now();
  if (!w) return true;
  if (w.input > w.runStart && now - w.input < q.grace) return false;
  return now - w.mutated >= q.quiet;
}"""


def wait_until_rendered(page: Page, quiet_ms: int = QUIET_MS) -> None:
    """Streamlit has finished a script run: the app view and the sidebar exist (so the run after
    the stored progress arrived has started; the loading run draws no sidebar), no run is in progress
    or about to start for the last input, and the page has not changed for ``quiet_ms`` (a state, not
    a fixed sleep: WATCH_JS)."""
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=30_000)
    page.wait_for_selector('[data-testid="stSidebar"]', state="attached", timeout=30_000)
    page.evaluate(WATCH_JS)
    page.wait_for_function(SETTLED_JS, arg={"quiet": quiet_ms, "grace": GRACE_MS}, timeout=30_000, polling=50)


TABLIST = '.st-key-section [role="tablist"]'   # a learning page's section tabs (ui.sections)


def open_section(page: Page, label: str, *, quiet_ms: int = QUIET_MS) -> None:
    """Open section ``label`` of the learning page on screen as a learner does, by its tab (a rerun
    of the tabs alone, where a new page load per section cost a whole new session)."""
    tabs = page.locator(TABLIST).first
    tab = tabs.get_by_role("tab", name=label, exact=True)
    if tab.get_attribute("aria-selected") != "true":
        tab.click()
        tabs.locator('[role="tab"][aria-selected="true"]', has_text=label).wait_for(timeout=20_000)
    wait_until_rendered(page, quiet_ms)


def unfold_all(page: Page, *, quiet_ms: int = QUIET_MS) -> int:
    """Open every folded step and topic on screen (ui.lazy_expander draws its content only when it is
    opened), one tap after another, as a learner who reads everything; returns how many were opened."""
    opened = 0
    for _ in range(60):
        closed = page.locator('[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary')
        if closed.count() == 0:
            break
        closed.first.scroll_into_view_if_needed()
        closed.first.click()
        wait_until_rendered(page, quiet_ms)
        opened += 1
    return opened


def go_to_page(page: Page, info, *, quiet_ms: int = QUIET_MS) -> None:
    """Open page ``info`` (a ui.nav.PageInfo) from the sidebar, in the same session, as a learner on a
    laptop does (the sidebar is open there)."""
    page.locator('[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]', has_text=info.label).first.click()
    page.wait_for_function("(u) => location.pathname.replace(/\\/$/, '').endsWith(u.replace(/\\/$/, ''))",
                           arg=info.url, timeout=20_000)
    wait_until_rendered(page, quiet_ms)


def shown_qids(scope) -> list[str]:
    """The question ids the cards in ``scope`` link to, in order: a quiz card's 「この問題へのリンク」 and a
    drill card's link to its page both end in ``?q=<id>`` (ui.quiz.question_link)."""
    from urllib.parse import unquote
    hrefs = scope.locator('a[href*="q="]').evaluate_all("els => els.map(e => e.getAttribute('href'))")
    return [unquote(m.group(1)) for h in hrefs if (m := re.search(r"[?&]q=([^&#]+)$", h or ""))]


def link_to(scope, qid: str):
    """The one link in ``scope`` to question ``qid`` (see shown_qids)."""
    from urllib.parse import quote
    return scope.locator(f'a[href$="q={quote(qid, safe="")}"]')


def open_url(page: Page, url: str) -> None:
    """Go to ``url`` and wait until its script run is over."""
    page.goto(url, wait_until="domcontentloaded")
    wait_until_rendered(page)


def assert_healthy(page: Page) -> None:
    body = page.inner_text("body")
    assert "Page not found" not in body
    assert page.locator('[data-testid="stException"]').count() == 0, "an exception box is on the page"
    assert "Traceback" not in body


def quiz_url(base: str, path: str) -> str:
    """The URL of a learning page opened at its quiz (ui.sections: one section at a time)."""
    from urllib.parse import quote
    return f"{base}{path}?section={quote('確認クイズ')}"


def section_url(base: str, path: str, label: str) -> str:
    """The URL of a learning page opened at the section labelled ``label`` (「試してみよう」 …)."""
    from urllib.parse import quote
    return f"{base}{path}?section={quote(label)}"


# A full store (the storage tests in both engines): FILL fills this origin's localStorage with filler
# keys until not one more character fits (returns how many it wrote); FREE removes them again.
FILL = """() => { let n = 0;
  for (const size of [1 << 19, 1 << 14, 1 << 10, 64, 4, 1]) {
    const chunk = "x".repeat(size);
    try { for (let i = 0; i < 100000; i++) { localStorage.setItem("filler/" + size + "/" + i, chunk); n++; } }
    catch (e) { /* no room for one more of this size */ }
  }
  return n; }"""
FREE = """() => { for (const k of Object.keys(localStorage)) if (k.startsWith("filler/")) localStorage.removeItem(k); return true; }"""
