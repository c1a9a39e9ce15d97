"""Real-browser measurements: cold start to first paint, and server memory per session.

Both start a real ``streamlit run app.py`` on a free 127.0.0.1 port and drive Debian's
headless Chromium with Playwright (never a downloaded browser). Every wait is bounded.
"""
from __future__ import annotations

import re
import time

from .common import CHROMIUM, LAUNCH_ARGS, Config, Row, browser_available, median, rss_mb, streamlit_server

TARGET_GROWTH_MB = 5.0
TARGET_BASELINE_MB = 690.0
PAGE_TIMEOUT_MS = 60_000


def _skip(section: str, what: str, reason: str) -> list[Row]:
    return [Row(section, what, [], "s", note=f"skipped: {reason}")]


def run_coldstart(cfg: Config) -> list[Row]:
    reason = browser_available()
    if reason:
        return _skip("cold start", "app cold start to first paint", reason)
    from playwright.sync_api import sync_playwright

    reps = cfg.reps(full=5, quick=1)
    t_health, t_h1 = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            warm = browser.new_page()  # the browser's own first-page cost is not the app's
            warm.goto("about:blank")
            warm.close()
            for i in range(reps):
                with streamlit_server(wait_healthy=False) as server:
                    base, t0 = server.base, server.t0
                    deadline = time.monotonic() + 60
                    while not server.healthy():
                        if server.proc.poll() is not None or time.monotonic() > deadline:
                            raise RuntimeError("streamlit did not start: " + server.log()[-2000:])
                        time.sleep(0.02)
                    t_health.append(time.perf_counter() - t0)
                    page = browser.new_page()
                    page.goto(base + "/", wait_until="commit", timeout=PAGE_TIMEOUT_MS)
                    page.wait_for_selector("h1", state="visible", timeout=PAGE_TIMEOUT_MS)
                    t_h1.append(time.perf_counter() - t0)
                    page.close()
                cfg.log(f"  cold start {i + 1}/{reps}: healthy {t_health[-1]:.2f} s, first h1 {t_h1[-1]:.2f} s")
        finally:
            browser.close()
    return [
        Row("cold start", "`streamlit run app.py` → /_stcore/health answers", t_health, "s"),
        Row("cold start", "`streamlit run app.py` → first h1 visible in Chromium (home page)", t_h1, "s"),
    ]


def _open_session(browser, url: str):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(url, wait_until="commit", timeout=PAGE_TIMEOUT_MS)
    page.wait_for_selector("h1", state="visible", timeout=PAGE_TIMEOUT_MS)
    return ctx, page


def _rss_samples(pid: int, settle: float, n: int = 5) -> list[float]:
    time.sleep(settle)
    out = []
    for _ in range(n):
        out.append(rss_mb(pid))
        time.sleep(0.3)
    return out


def run_memory(cfg: Config) -> list[Row]:
    reason = browser_available()
    if reason:
        return _skip("memory", "server RSS with 1 and 20 sessions", reason)
    from playwright.sync_api import sync_playwright

    from ui.nav import available_pages

    n_sessions = 3 if cfg.quick else 20
    pages = available_pages()
    settle = 1.0 if cfg.quick else 3.0
    with sync_playwright() as p, streamlit_server() as server:
        proc, base = server.proc, server.base
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        contexts = []
        try:
            rss_start = rss_mb(proc.pid)
            ctx, page = _open_session(browser, base + "/")
            contexts.append(ctx)
            # warm-up inside session 1: visit every page through the sidebar (same session),
            # so one-time imports and shared caches are in the baseline, then back home
            warmed = 0
            for info in pages[1:] + pages[:1]:
                try:
                    link = page.locator('[data-testid="stSidebar"] a[data-testid="stPageLink-NavLink"]').filter(
                        has_text=info.label).first
                    link.click(timeout=10_000)
                    page.wait_for_url(re.compile(re.escape(base + info.url) + "$"), timeout=PAGE_TIMEOUT_MS)
                    heading = page.get_by_role("heading", level=1)
                    if info.key != "home":
                        heading = heading.filter(has_text=info.label)
                    heading.first.wait_for(state="visible", timeout=PAGE_TIMEOUT_MS)
                    warmed += 1
                except Exception as exc:  # reported, not fatal
                    cfg.log(f"  memory: warm-up click to {info.url} failed: {type(exc).__name__}: {exc}"[:300])
            base_rss = _rss_samples(proc.pid, settle)
            cfg.log(f"  memory: 1 session: {median(base_rss):.1f} MB (server at start {rss_start:.1f} MB)")
            for i in range(1, n_sessions):
                info = pages[i % len(pages)]
                ctx, _page = _open_session(browser, base + info.url)
                contexts.append(ctx)
            many_rss = _rss_samples(proc.pid, settle)
            cfg.log(f"  memory: {n_sessions} sessions: {median(many_rss):.1f} MB")
        finally:
            for ctx in contexts:
                ctx.close()
            browser.close()
    growth = [(m - b) / (n_sessions - 1) for m, b in zip(many_rss, base_rss)]
    return [
        Row("memory", f"server RSS, 1 session (warmed: {warmed}/{len(pages)} pages visited via sidebar)",
            base_rss, "MB", target=f"≤ {TARGET_BASELINE_MB:.0f} MB", ok=median(base_rss) <= TARGET_BASELINE_MB),
        Row("memory", f"server RSS, {n_sessions} sessions (one browser context each, pages round robin)",
            many_rss, "MB"),
        Row("memory", f"RSS growth per session ((RSS_{n_sessions} − RSS_1) / {n_sessions - 1})", growth, "MB",
            target=f"≤ {TARGET_GROWTH_MB:.0f} MB", ok=median(growth) <= TARGET_GROWTH_MB),
    ]
