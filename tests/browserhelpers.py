"""The real-browser recipe every browser test module shares (see ../shared/design.md): Debian's
chromium driven by Playwright (never a downloaded browser), a fresh `streamlit run app.py` on
127.0.0.1, a screenshot in test-artifacts/ when a step fails, and one notion of "the script run
is over". The ``browser`` fixture (conftest.py) launches it once per module."""
from __future__ import annotations

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


def wait_until_rendered(page: Page) -> None:
    """Streamlit has finished a script run: the app view and the sidebar exist (so the run after
    the stored progress arrived has started; the loading run draws no sidebar), and the app's own
    script state is no longer 'running' (more reliable than the delayed 'Running…' status)."""
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=30_000)
    page.wait_for_selector('[data-testid="stSidebar"]', state="attached", timeout=30_000)
    page.wait_for_function(
        "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
        " return app && app.getAttribute('data-test-script-state') !== 'running'; }",
        timeout=30_000,
    )
    page.wait_for_timeout(500)


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
