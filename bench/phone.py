"""The learning pages on an emulated mid-range phone (issue 34), side by side with the floor apps.

The phone is Lighthouse's mobile setting: the page's CPU slowed 4× through CDP
(``Emulation.setCPUThrottlingRate``, rate 4), a 390×844 touch viewport (``is_mobile``,
``has_touch``, device scale factor 1.75 as Lighthouse's), and a fresh browser context per open
(an empty HTTP cache: every script chunk is fetched and compiled again). The network is not
throttled (the floor and the app would pay the same per chunk; ``felt`` has a phone connection).

Four servers run at once: ``streamlit run app.py``, the floor app (bench/floor_app.py: one
slider, one number), the two-page floor (bench/floor_pages_app.py: Streamlit's own page
switch) and the floor with one formula (bench/floor_math_app.py). Every sample of the app is paired with a floor sample taken just before it, under the
same throttle, and a row's ratio is the median of the per-sample ratios.

**Settled** (one notion for every row, :data:`SETTLED_JS`): the page's script run is over (``stApp``'s
``data-test-script-state`` is not ``running``), an h1 is drawn and no skeleton is left, and the DOM
has not changed for :data:`QUIET_MS` (300 ms); the settled time is the last DOM mutation before that
quiet spell, on the page's own clock. A cold open is timed from navigation start (the document's
``performance.timeOrigin``) to settled; a section switch from the tap's ``pointerdown`` to settled,
once the server has answered the tap (a websocket message after it).

**Total blocking time** of a cold open: the sum over the long tasks (a ``PerformanceObserver`` on
``longtask``, registered before the page's first script, ``buffered``) that started before the page
settled of their duration − 50 ms (:func:`total_blocking_ms`), as Lighthouse sums it.

Rows: every learning page's cold open (ui.nav: each page of the 学習 section that exists) and its
total blocking time against the floor app's; a tap on a section tab of a learning page
(:data:`SWITCHES`, ui.sections' tabs in ``.st-key-section``) against a sidebar page switch of the
two-page floor; two reference rows split a page's ratio: the floor app with one formula (what
Streamlit's KaTeX adds) and the mock exam's start screen (this app's shell: sidebar, progress
bridge, styles; no formula). ``BENCH_PHONE_PAGES`` (page keys, comma-separated) and ``BENCH_PHONE_SWITCH``
(``naive:ねらい・解説>手計算;formula``; see :func:`parse_switches`) choose other pages.
"""
from __future__ import annotations

import os
import time
from contextlib import ExitStack

from .common import CHROMIUM, LAUNCH_ARGS, Config, Row, browser_available, median, ratio_samples, streamlit_server

SECTION = "phone"
CPU_RATE = 4
PHONE_CONTEXT = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1.75, "is_mobile": True,
                 "has_touch": True, "locale": "ja-JP"}
PHONE_NOTE = f"CPU {CPU_RATE}× slower, 390×844 touch"
QUIET_MS = 300          # settled: no DOM mutation for this long after the run is over
LONG_TASK_MS = 50       # a long task blocks for what it takes beyond this
TARGET_OPEN = 1.5       # cold open ≤ 1.5× the floor app's
TARGET_TBT = 2.0        # total blocking time ≤ 2× the floor app's
TARGET_SWITCH = 2.0     # a section switch ≤ 2× Streamlit's own page switch
TIMEOUT_MS = 90_000
QUICK_PAGES = ("naive", "formula")
# (page key, the tab open before, the tab tapped): None = the page's first / second tab
SWITCHES: tuple[tuple[str, str | None, str | None], ...] = (("naive", "ねらい・解説", "手計算"),
                                                            ("formula", "ねらい・解説", "手計算"))
TABS = '.st-key-section [role="tab"]'
FLOOR_LINK = '[data-testid="stSidebar"] a[data-testid="stPageLink-NavLink"]'

# Installed in every page before its own scripts (context.add_init_script): the time of the last
# DOM mutation, the long tasks, the server's websocket messages, and the start of an interaction
# (the first pointerdown/keydown after arm()).
INIT_JS = r"""
(() => {
  const ph = window.__phone = {last: 0, longtasks: [], armed: false, start: null, frames: 0, since: 0};
  new MutationObserver(() => { ph.last = performance.now(); })
    .observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) ph.longtasks.push([e.startTime, e.duration]);
    }).observe({type: "longtask", buffered: true});
  } catch (e) { ph.longtasks = null; }
  // every message the server sends (Streamlit's one websocket): an interaction is over only after
  // the server has answered it (the script state alone may never show "running": React can batch
  // a short run's start and end into one render)
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...args) { super(...args); this.addEventListener("message", () => { ph.frames += 1; }); }
  };
  const onInput = (e) => {
    if (!ph.armed) return;
    ph.armed = false; ph.start = e.timeStamp; ph.last = e.timeStamp; ph.since = ph.frames;
  };
  addEventListener("pointerdown", onInput, true);
  addEventListener("keydown", onInput, true);
  ph.arm = () => { ph.armed = true; ph.start = null; };
})();
"""

# Polled until it returns an object: {start, settled, longtasks} (ms on the page's clock; start 0
# for an open, i.e. navigation start).
SETTLED_JS = r"""(quiet) => {
  const ph = window.__phone;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!ph || !app || app.getAttribute("data-test-script-state") === "running") return null;
  if (!document.querySelector("h1") || document.querySelector('[data-testid="stSkeleton"]')) return null;
  if (ph.start !== null && ph.frames === ph.since) return null;
  if (ph.armed) return null;
  if (performance.now() - ph.last < quiet) return null;
  return {start: ph.start === null ? 0 : ph.start, settled: ph.last, longtasks: ph.longtasks};
}"""


def total_blocking_ms(longtasks, until: float | None = None, since: float = 0.0) -> float:
    """Lighthouse's total blocking time: Σ max(0, duration − 50 ms) over the long tasks
    ``[(startTime, duration), …]`` that started in [since, until) (``until`` None: no end)."""
    return sum(max(0.0, d - LONG_TASK_MS) for s, d in longtasks
               if s >= since and (until is None or s < until))


def paired_row(what: str, samples: list[float], floor: list[float], unit: str, target: float | None,
               floor_name: str = "floor") -> Row:
    """A row of the app's samples with the median of the per-sample ratios to the floor samples
    taken alongside (``samples[i] / floor[i]``), their range, and the goal ``≤ target× floor``
    (None: a reference row, no goal)."""
    ratios = ratio_samples(samples, floor)
    r = median(ratios)
    return Row(SECTION, what, samples, unit,
               ratio=f"{r:.2f}× {floor_name} (per-sample {min(ratios):.2f}–{max(ratios):.2f})" if ratios else "",
               target="" if target is None else f"≤ {target:g}× {floor_name}",
               ok=(r <= target) if ratios and target is not None else None)


def parse_pages(text: str | None, default: list[str]) -> list[str]:
    """``BENCH_PHONE_PAGES``: page keys, comma-separated ("" or None: ``default``)."""
    keys = [k.strip() for k in (text or "").split(",") if k.strip()]
    return keys or list(default)


def parse_switches(text: str | None) -> tuple[tuple[str, str | None, str | None], ...]:
    """``BENCH_PHONE_SWITCH``: entries separated by ";", each ``page`` (its first tab → its second)
    or ``page:from>to`` with the tabs' labels ("" or None: :data:`SWITCHES`)."""
    out = []
    for entry in (text or "").split(";"):
        entry = entry.strip()
        if not entry:
            continue
        key, _, tabs = entry.partition(":")
        a, _, b = tabs.partition(">")
        out.append((key.strip(), a.strip() or None, b.strip() or None))
    return tuple(out) or SWITCHES


def _context(browser):
    ctx = browser.new_context(**PHONE_CONTEXT)
    ctx.add_init_script(INIT_JS)
    return ctx


def _phone_page(ctx):
    """A new tab of ``ctx`` with its CPU slowed CPU_RATE× (kept across its navigations)."""
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_RATE})
    return page


def _settled(page) -> dict:
    handle = page.wait_for_function(SETTLED_JS, arg=QUIET_MS, timeout=TIMEOUT_MS, polling=50)
    return handle.json_value()


def cold_open(browser, url: str) -> tuple[float, float]:
    """Open ``url`` in a fresh phone context: (navigation start → settled in s, total blocking time
    in ms)."""
    ctx = _context(browser)
    try:
        page = _phone_page(ctx)
        page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
        got = _settled(page)
        if got["longtasks"] is None:
            raise RuntimeError("this Chromium reports no long tasks")
        return got["settled"] / 1000.0, total_blocking_ms(got["longtasks"], until=got["settled"])
    finally:
        ctx.close()


def _tap_timed(page, locator) -> float:
    """Tap ``locator``: ms from its pointerdown to the page settled once the server has answered it."""
    page.evaluate("() => window.__phone.arm()")
    locator.tap()
    got = _settled(page)
    if got["start"] is None:
        raise RuntimeError("no input event was seen")
    return got["settled"] - got["start"]


def _tab(page, label: str | None, index: int):
    tabs = page.locator(TABS)
    return tabs.filter(has_text=label).first if label else tabs.nth(index)


class _PagesFloor:
    """The two-page floor app on the phone: a tap on the sidebar's link to the other page."""

    def __init__(self, browser, base: str):
        self.ctx = _context(browser)
        self.page = _phone_page(self.ctx)
        self.page.goto(base + "/", wait_until="commit", timeout=TIMEOUT_MS)
        _settled(self.page)
        expand = self.page.locator('[data-testid="stExpandSidebarButton"]')
        if expand.count():      # collapsed on a phone; it stays open after a link is tapped
            expand.first.tap()
            self.page.wait_for_timeout(QUIET_MS + 300)
        self.n = 0

    def sample(self) -> float:
        self.n += 1
        link = self.page.locator(FLOOR_LINK).filter(has_text="ページ 2" if self.n % 2 else "ページ 1").first
        return _tap_timed(self.page, link)


def run(cfg: Config, pages: list[str] | None = None, switches=None) -> list[Row]:
    reason = browser_available()
    if reason:
        return [Row(SECTION, "learning pages on an emulated phone", [], "s", note=f"skipped: {reason}")]
    from playwright.sync_api import sync_playwright

    from ui.nav import PAGE_BY_KEY, available_pages

    learning = [p.key for p in available_pages() if p.section == "学習"]
    default = [k for k in QUICK_PAGES if k in learning] if cfg.quick else learning
    keys = pages or parse_pages(os.environ.get("BENCH_PHONE_PAGES"), default)
    switches = switches or parse_switches(os.environ.get("BENCH_PHONE_SWITCH"))
    if cfg.quick and not os.environ.get("BENCH_PHONE_SWITCH"):
        switches = switches[:1]
    opens = cfg.reps(full=3, quick=1)
    taps = cfg.reps(full=5, quick=1)
    rows: list[Row] = []
    with sync_playwright() as p, ExitStack() as stack:
        app = stack.enter_context(streamlit_server(watch_files=False))
        floor_srv = stack.enter_context(streamlit_server(watch_files=False, script="bench/floor_app.py"))
        pg_srv = stack.enter_context(streamlit_server(watch_files=False, script="bench/floor_pages_app.py"))
        math_srv = stack.enter_context(streamlit_server(watch_files=False, script="bench/floor_math_app.py"))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        stack.callback(browser.close)
        cold_open(browser, floor_srv.base + "/")    # each server's first run (imports) is not a sample
        cold_open(browser, app.base + PAGE_BY_KEY[keys[0]].url)
        cold_open(browser, math_srv.base + "/")

        t0 = time.perf_counter()
        cfg.log(f"  phone: cold opens of {len(keys)} learning pages × {opens} …")
        floor_t: dict[str, list[float]] = {k: [] for k in keys}
        floor_b: dict[str, list[float]] = {k: [] for k in keys}
        page_t: dict[str, list[float]] = {k: [] for k in keys}
        page_b: dict[str, list[float]] = {k: [] for k in keys}
        for _ in range(opens):
            for key in keys:
                t, b = cold_open(browser, floor_srv.base + "/")
                floor_t[key].append(t)
                floor_b[key].append(b)
                t, b = cold_open(browser, app.base + PAGE_BY_KEY[key].url)
                page_t[key].append(t)
                page_b[key].append(b)
                cfg.log(f"    {PAGE_BY_KEY[key].url}: {t:.2f} s, TBT {b:.0f} ms (floor {floor_t[key][-1]:.2f} s, "
                        f"{floor_b[key][-1]:.0f} ms)")
        rows.append(Row(SECTION, f"floor app: cold open → settled (reference; {PHONE_NOTE})",
                        [x for k in keys for x in floor_t[k]], "s"))
        rows.append(Row(SECTION, "floor app: total blocking time of a cold open (reference)",
                        [x for k in keys for x in floor_b[k]], "ms"))
        for key in keys:
            info = PAGE_BY_KEY[key]
            rows.append(paired_row(f"cold open {info.url} {info.label} → settled", page_t[key], floor_t[key],
                                   "s", TARGET_OPEN))
            rows.append(paired_row(f"total blocking time, cold open {info.url}", page_b[key], floor_b[key],
                                   "ms", TARGET_TBT, "floor's"))

        # where a learning page's ratio comes from: Streamlit's math alone, and this app's shell alone
        for what, url in (("floor app + one formula (bench/floor_math_app.py): cold open → settled", math_srv.base + "/"),
                          (f"mock exam's start screen {PAGE_BY_KEY['exam'].url} (the app's shell, no formula): "
                           "cold open → settled", app.base + PAGE_BY_KEY["exam"].url)):
            mine, floors = [], []
            for _ in range(max(opens, 3)):
                floors.append(cold_open(browser, floor_srv.base + "/")[0])
                mine.append(cold_open(browser, url)[0])
            rows.append(paired_row(what + " (reference)", mine, floors, "s", None))
            cfg.log(f"    {what}: {median(mine):.2f} s (floor {median(floors):.2f} s)")

        cfg.log(f"  phone: cold opens took {time.perf_counter() - t0:.0f} s; "
                f"section switches ({len(switches)} pages × {taps}) …")
        t0 = time.perf_counter()
        floor = _PagesFloor(browser, pg_srv.base)
        stack.callback(floor.ctx.close)
        floor.sample()  # warm
        floor_sw: list[float] = []
        switch_rows: list[Row] = []
        for key, a, b in switches:
            info = PAGE_BY_KEY[key]
            ctx = _context(browser)
            try:
                page = _phone_page(ctx)
                page.goto(app.base + info.url, wait_until="commit", timeout=TIMEOUT_MS)
                _settled(page)
                if page.locator(TABS).count() < 2:
                    switch_rows.append(Row(SECTION, f"section switch {info.url}", [], "ms",
                                    note="skipped: the page shows no section tabs"))
                    continue
                tab_a, tab_b = _tab(page, a, 0), _tab(page, b, 1)
                names = f"{tab_a.inner_text().strip()} → {tab_b.inner_text().strip()}"
                if tab_a.get_attribute("aria-selected") != "true":
                    _tap_timed(page, tab_a)
                mine, floors = [], []
                for _ in range(taps):
                    floors.append(floor.sample())
                    mine.append(_tap_timed(page, tab_b))
                    _tap_timed(page, tab_a)     # back, untimed
                    cfg.log(f"    {info.url} {names}: {mine[-1]:.0f} ms (floor {floors[-1]:.0f} ms)")
            finally:
                ctx.close()
            floor_sw += floors
            switch_rows.append(paired_row(f"section switch {info.url} {names} (tap on the tab) → settled", mine,
                                          floors, "ms", TARGET_SWITCH, "page-switch floor"))
        rows.append(Row(SECTION, f"floor pages app: sidebar page switch (tap) → settled (reference; {PHONE_NOTE})",
                        floor_sw, "ms"))
        rows += switch_rows
        cfg.log(f"  phone: section switches took {time.perf_counter() - t0:.0f} s")
    return rows


__all__ = ["run", "total_blocking_ms", "paired_row", "parse_switches", "parse_pages", "SWITCHES", "QUIET_MS"]
