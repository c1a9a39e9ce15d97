"""Felt latency in a real browser: an input event → the changed result painted.

Four servers run side by side: ``streamlit run app.py``, the floor app (bench/floor_app.py:
one slider, one number), for the cell edit an editor floor (bench/floor_editor_app.py: one
st.data_editor, one number; st.data_editor alone needs ~3× the slider floor) and, for the page
switch, a two-page floor (bench/floor_pages_app.py: a sidebar link to another one-slider page).
Each sample of this app is paired with a floor sample taken just before it, so a ratio compares
the two under the same load.

How one interaction is timed (all inside the page, on the page's own clock): a capture-phase
listener notes the ``timeStamp`` of the first ``pointerdown``/``keydown`` after the section
arms it; a MutationObserver then waits until the result under test has changed AND the script
run is over (``stApp``'s ``data-test-script-state`` is no longer ``running``), and two
animation frames later (the frame with the new result has been painted) notes the end.
A cold open is timed from ``page.goto`` in a fresh browser context to a settled page: its h1
drawn, no skeleton, the script run over, and on a learning page the quiz's question id shown.
A return visit is the same in a new tab of a context that has opened the app before (the HTTP
cache holds Streamlit's script chunks, the storage the progress): what a learner's next day feels.
The verdict is also timed for a learner after weeks of practice: a browser whose storage holds a
record at the kept maximum (2,000 answers, 1,000 questions to review), which every answer changes;
and, with that record, on an emulated phone connection (PHONE: 10 Mbit/s down, 2 up, 20 ms), the
verdict, a page switch right after it and a return visit (the record is read at every visit).
"""
from __future__ import annotations

import json
import time
from contextlib import ExitStack
from urllib.parse import quote

from .common import CHROMIUM, LAUNCH_ARGS, Config, Row, browser_available, median, ratio_samples, streamlit_server

FULL_RECORD_JS = """([key, text]) => { if (!sessionStorage.getItem('felt-seeded')) {
  localStorage.setItem(key, text); sessionStorage.setItem('felt-seeded', '1'); } }"""

TARGET_RATIO = 1.5
PHONE = {"offline": False, "latency": 20, "downloadThroughput": 10e6 / 8, "uploadThroughput": 2e6 / 8}
PHONE_NOTE = "emulated phone: 10/2 Mbit/s, 20 ms"
TIMEOUT_MS = 60_000

INIT_JS = r"""
(() => {
  const felt = window.__felt = {armed: false, start: null, end: null, pred: null};
  const onInput = (e) => { if (felt.armed) { felt.armed = false; felt.start = e.timeStamp; } };
  addEventListener("pointerdown", onInput, true);
  addEventListener("keydown", onInput, true);
  const check = () => {
    if (felt.start === null || felt.end !== null || !felt.pred) return;
    const app = document.querySelector('[data-testid="stApp"]');
    if (app && app.getAttribute("data-test-script-state") === "running") return;
    let ok = false;
    try { ok = felt.pred(); } catch (e) { ok = false; }
    if (!ok) return;
    felt.end = -1;
    requestAnimationFrame(() => requestAnimationFrame(() => { felt.end = performance.now(); }));
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  felt.arm = (pred) => { felt.pred = pred; felt.start = null; felt.end = null; felt.armed = true; };
})();
"""

# JS expressions read in the page; an interaction is done when the value differs from the
# value read when the section armed the timer.
METRIC_JS = """(label) => { const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
  .find(e => e.innerText.includes(label));
  return m ? m.querySelector('[data-testid="stMetricValue"]').innerText : null; }"""
FLOOR_JS = """() => { const m = [...document.querySelectorAll('[data-testid="stMarkdown"]')]
  .find(e => e.innerText.includes('結果')); return m ? m.innerText : null; }"""
# "回答する clickable": the option shown chosen AND the first card's 回答する enabled. A state, not a
# change: the card may be an st.form whose button is enabled before any choice (then choosing needs
# no round trip), or a button that is enabled only after the choice's rerun.
SUBMIT_READY_JS = """() => { const r = document.querySelector('[data-testid="stRadio"] input[type="radio"]');
  const b = [...document.querySelectorAll('button')].find(e => e.innerText.trim() === '回答する');
  return String(!!r && r.checked && !!b && !b.disabled); }"""
# ③'s slider is drawn by Vega inside its chart (ui.figures.saturation_explorer): a step is done
# when the chart's readout shows the new c
SATURATION_SLIDER = '.vega-bindings input[type="range"]'
READOUT_JS = """(label) => { const t = [...document.querySelectorAll('svg text')]
  .find(e => e.textContent.includes(label)); return t ? t.textContent : null; }"""
VERDICT_JS = """() => { const t = document.body.innerText; return String(t.includes('正解です。') || t.includes('不正解です。')); }"""
H1_JS = """() => { const h = document.querySelector('h1'); return h ? h.innerText : null; }"""
SETTLED_JS = """(needQuiz) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') === 'running') return false;
  if (!document.querySelector('h1') || document.querySelector('[data-testid="stSkeleton"]')) return false;
  if (!needQuiz) return true;
  return [...document.querySelectorAll('code')].some(c => /^[\\w.]+#\\d+$/.test(c.innerText.trim()));
}"""


# The try-it sliders other than ③'s and ⑦-4's temperature (those are drawn by Vega in their chart,
# timed above): Streamlit sliders in a fragment, a round trip per step, and the sliders answered in
# the browser by ui.stepper. A step goes right, then left, so the slider stays near its default.
TABLE_AFTER_JS = """(label) => { const s = [...document.querySelectorAll('[data-testid="stSlider"]')]
  .find(e => e.innerText.includes(label)); if (!s) return null;
  const t = [...document.querySelectorAll('[data-testid="stMarkdownContainer"] table')]
  .find(t => s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING); return t ? t.innerText : null; }"""
CAPTION_JS = """(text) => { const c = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
  .find(e => e.innerText.includes(text)); return c ? c.innerText : null; }"""
# a ui.stepper (a native range input over the tables the page computed for each of its positions):
# a step is done when the panel shown has changed
STEPPER_JS = """(label) => { const s = [...document.querySelectorAll('.stp')]
  .find(e => e.querySelector('label').innerText.includes(label)); if (!s) return null;
  const p = [...s.querySelectorAll('.stp-panel')].find(e => !e.hidden); return p ? p.innerText : null; }"""
STREAMLIT_SLIDER = '[data-testid="stSlider"]:has-text("{}") input[type="range"]'
STEPPER_SLIDER = '.stp:has-text("{}") input[type="range"]'
TRY_SLIDERS = (       # (page key, the slider's label, its range input, a JS reading what a step changes, its arg)
    ("seq2seq", "再帰の変換の大きさ a", STREAMLIT_SLIDER, METRIC_JS, "30 段さかのぼった勾配の長さ"),
    ("multihead", "配分の割合 t", STEPPER_SLIDER, STEPPER_JS, "配分の割合 t"),
    ("mask", "文の本当の長さ", STREAMLIT_SLIDER, TABLE_AFTER_JS, "文の本当の長さ"),
    ("position", "位置 pos", STREAMLIT_SLIDER, TABLE_AFTER_JS, "位置 pos"),
    ("position", "位置のずれ", STEPPER_SLIDER, STEPPER_JS, "位置のずれ"),
    ("block", "中間の次元 d_ff", STREAMLIT_SLIDER, CAPTION_JS, "バイアスを含めて"),
    ("output", "top-k の k", STREAMLIT_SLIDER, CAPTION_JS, "残った候補の元の確率の合計"),
    ("cost", "ブロックの大きさ", STREAMLIT_SLIDER, METRIC_JS, "計算したブロック / 飛ばしたブロック"),
    ("pretrain", "生成するトークン数", STEPPER_SLIDER, STEPPER_JS, "生成するトークン数"),
)


def _arm(page, read_js: str, arg=None) -> None:
    page.evaluate(
        "([src, arg]) => { const read = eval(src); const before = read(arg);"
        " window.__felt.arm(() => { const now = read(arg); return now !== null && now !== before; }); }",
        [read_js, arg])


def _arm_until_true(page, read_js: str) -> None:
    """Like _arm, but done when ``read()`` returns "true" (a state, whatever it was before)."""
    page.evaluate("(src) => { const read = eval(src); window.__felt.arm(() => read() === 'true'); }", read_js)


def _elapsed_ms(page) -> float:
    page.wait_for_function("() => window.__felt.end !== null && window.__felt.end > 0", timeout=TIMEOUT_MS)
    start, end = page.evaluate("() => [window.__felt.start, window.__felt.end]")
    if start is None:
        raise RuntimeError("no input event was seen")
    return end - start


def _settle(page, need_quiz: bool = False) -> None:
    page.wait_for_function(SETTLED_JS, arg=need_quiz, timeout=TIMEOUT_MS, polling="raf")
    page.wait_for_timeout(250)


def _context(browser):
    """A fresh browser context (empty HTTP cache and storage) with the timer installed."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(INIT_JS)
    return ctx


def _on_phone(ctx, page) -> None:
    """Hold ``page``'s network to PHONE (Chromium's own throttling, through CDP)."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", PHONE)


def _full_record_context(browser, key: str, full: str):
    """A fresh context whose storage holds ``full`` under ``key`` (seeded once per tab)."""
    ctx = _context(browser)
    ctx.add_init_script(script=f"({FULL_RECORD_JS})({json.dumps([key, full])})")
    return ctx


# a learning page shows one section at a time (ui.sections): the URL of its 試してみよう, of its 確認クイズ
TRY, QUIZ = "?section=" + quote("試してみよう"), "?section=" + quote("確認クイズ")


def _open(browser, url: str, need_quiz: bool, ctx=None):
    """Open ``url`` in a new tab and wait until it has settled: in a fresh browser context (a
    first visit: empty HTTP cache and storage) or in ``ctx`` (a return visit: the script chunks
    already in the HTTP cache, the progress in the browser's storage)."""
    if ctx is None:
        ctx = _context(browser)
    page = ctx.new_page()
    t0 = time.perf_counter()
    page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
    _settle(page, need_quiz)
    return ctx, page, time.perf_counter() - t0


def _slider_step(page, key: str, selector: str = '[data-testid="stSlider"] input[type="range"]') -> None:
    """Focus the slider's range input (Streamlit's, or ③'s drawn by Vega: SATURATION_SLIDER), then
    one ArrowRight/ArrowLeft (whichever keeps it in range)."""
    thumb = page.locator(selector).first
    thumb.focus()
    now, top = float(thumb.input_value()), float(thumb.get_attribute("max"))
    page.keyboard.press(key if now < top else "ArrowLeft")


class _Floor:
    def __init__(self, page):
        self.page = page

    def sample(self) -> float:
        _arm(self.page, FLOOR_JS)
        _slider_step(self.page, "ArrowRight")
        ms = _elapsed_ms(self.page)
        _settle(self.page)
        return ms


def _cell_edit(page, value: str) -> float:
    """① : type ``value`` into the last column of the それ row of the embedding editor, Enter."""
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    box = grid.bounding_box()
    header, row_h = 37, 35
    editor = page.locator("textarea.gdg-input")
    for attempt in range(4):  # a double click that lands while the grid is still settling opens nothing
        page.mouse.dblclick(box["x"] + box["width"] - 20, box["y"] + header + row_h * 2 + row_h / 2)
        try:
            editor.wait_for(timeout=3_000)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: try again, then give up
            if attempt == 3:
                raise
            page.wait_for_timeout(300)
            box = grid.bounding_box()
    editor.fill(value)
    _arm(page, METRIC_JS, "それ → 猫")
    editor.press("Enter")
    ms = _elapsed_ms(page)
    _settle(page)
    return ms


def _choose_and_submit(page) -> tuple[float, float]:
    """① quiz, first card: choose A (→ 回答する clickable), then press 回答する (→ verdict)."""
    radio = page.locator('[data-testid="stRadio"]').first
    radio.scroll_into_view_if_needed()
    _arm_until_true(page, SUBMIT_READY_JS)
    radio.locator('[data-testid="stRadioGroup"] label').first.click()
    choose = _elapsed_ms(page)
    _settle(page)
    _arm(page, VERDICT_JS)
    page.get_by_role("button", name="回答する").first.click()
    submit = _elapsed_ms(page)
    _settle(page)
    page.get_by_role("button", name="新しい問題").first.click()  # fresh cards for the next sample
    _settle(page, need_quiz=True)
    return choose, submit


def full_record() -> str:
    """The stored text of a record at the kept maximum: MAX_ATTEMPTS_KEPT answers to questions of
    every topic (one in three right), every skill that was answered wrong scheduled for review
    (one card per skill: practice.skill; MAX_ITEMS bounds them, the bank has fewer skills)."""
    from datetime import datetime

    import quizzes
    from practice.progress import MAX_ATTEMPTS_KEPT, apply_answers, new_progress
    from practice.review import MAX_ITEMS
    from practice.store import dumps
    from quizzes.core import TOPICS

    gens = [g for topic in TOPICS for g in quizzes.by_topic(topic)]
    answers, wrong, i = [], 0, 0
    while len(answers) < MAX_ATTEMPTS_KEPT or wrong < MAX_ITEMS:
        q = quizzes.from_id(f"{gens[i % len(gens)]}#{i}")
        right = i % 3 == 0
        wrong += not right
        answers.append((q.id, q.topic, right, q.answer if right else (q.answer + 1) % 4))
        i += 1
    return dumps(apply_answers(new_progress(), answers, "page", datetime(2026, 9, 30, 9)))


def _switch(page, label: str, need_quiz: bool = True) -> float:
    link = page.locator('[data-testid="stSidebar"] a[data-testid="stPageLink-NavLink"]').filter(has_text=label).first
    _arm(page, H1_JS)
    link.click()
    ms = _elapsed_ms(page)
    _settle(page, need_quiz=need_quiz)
    return ms


def _row(what: str, samples: list[float], floor: list[float], unit: str = "ms") -> Row:
    ratios = ratio_samples(samples, floor)
    r = median(ratios)
    return Row("felt", what, samples, unit,
               ratio=f"{r:.2f}× floor (per-sample {min(ratios):.2f}–{max(ratios):.2f})" if ratios else "",
               target=f"≤ {TARGET_RATIO}× floor", ok=(r <= TARGET_RATIO) if ratios else None)


def run(cfg: Config) -> list[Row]:
    reason = browser_available()
    if reason:
        return [Row("felt", "felt latency in a real browser", [], "ms", note=f"skipped: {reason}")]
    from playwright.sync_api import sync_playwright

    from ui.figures import SATURATION_READOUT
    from ui.nav import PAGE_BY_KEY, available_pages
    from ui.storage import STORE_KEY

    reps = cfg.reps(full=15, quick=2)  # interactions spread widely on a shared machine: 15 pairs
    try_reps = cfg.reps(full=8, quick=2)  # per try-it slider (nine of them)
    opens = cfg.reps(full=3, quick=1)
    res: dict[str, list[float]] = {k: [] for k in ("floor", "slider", "floor2", "cell", "floor3", "choose",
                                                   "submit", "submit_full", "floor4", "switch", "edfloor", "pgfloor",
                                                   "phone_submit", "phone_switch", "phone_back")}
    full = full_record()
    with sync_playwright() as p, ExitStack() as stack:
        app = stack.enter_context(streamlit_server(watch_files=False))
        floor_srv = stack.enter_context(streamlit_server(watch_files=False, script="bench/floor_app.py"))
        ed_srv = stack.enter_context(streamlit_server(watch_files=False, script="bench/floor_editor_app.py"))
        pg_srv = stack.enter_context(streamlit_server(watch_files=False, script="bench/floor_pages_app.py"))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        stack.callback(browser.close)
        _fc, fpage, _ = _open(browser, floor_srv.base + "/", False)
        _ec, epage, _ = _open(browser, ed_srv.base + "/", False)
        _pc, ppage, _ = _open(browser, pg_srv.base + "/", False)
        floor = _Floor(fpage)
        floor.sample()  # warm both sides once
        scaling, naive, qkv = PAGE_BY_KEY["scaling"], PAGE_BY_KEY["naive"], PAGE_BY_KEY["qkv"]
        _c1, spage, _ = _open(browser, app.base + scaling.url + TRY, False)
        _c2, npage, _ = _open(browser, app.base + naive.url + TRY, False)          # ①'s editor
        _c5, qpage, _ = _open(browser, app.base + naive.url + QUIZ, True)          # ①'s quiz
        full_ctx = _full_record_context(browser, STORE_KEY, full)
        _c3, fullpage, _ = _open(browser, app.base + naive.url + QUIZ, True, ctx=full_ctx)
        phone_ctx = _full_record_context(browser, STORE_KEY, full)
        _c4, phonepage, _ = _open(browser, app.base + naive.url + QUIZ, True, ctx=phone_ctx)
        _on_phone(phone_ctx, phonepage)
        cfg.log("  felt: slider on ③ vs the floor's slider …")
        for i in range(reps):
            res["floor"].append(floor.sample())
            _arm(spage, READOUT_JS, SATURATION_READOUT)
            _slider_step(spage, "ArrowRight", SATURATION_SLIDER)
            res["slider"].append(_elapsed_ms(spage))
            _settle(spage)
        cfg.log("  felt: cell edit, quiz, page switch on ① …")
        for i in range(reps):
            res["floor2"].append(floor.sample())
            res["edfloor"].append(_cell_edit(epage, "1" if i % 2 == 0 else "0"))
            res["cell"].append(_cell_edit(npage, "1" if i % 2 == 0 else "0"))
            res["floor3"].append(floor.sample())
            choose, submit = _choose_and_submit(qpage)
            res["choose"].append(choose)
            res["submit"].append(submit)
            res["submit_full"].append(_choose_and_submit(fullpage)[1])
            res["phone_submit"].append(_choose_and_submit(phonepage)[1])
            # a page switch right after an answer (and back, for the next sample)
            # (② opens at its first section; back on ①, the quiz the learner left is open again)
            res["phone_switch"].append(_switch(phonepage, qkv.label, need_quiz=False))
            _switch(phonepage, naive.label)
        cfg.log("  felt: try-it sliders …")
        tries: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
        for key, label, slider, read_js, arg in TRY_SLIDERS:
            ctx, tpage, _ = _open(browser, app.base + PAGE_BY_KEY[key].url + TRY, False)
            thumb = slider.format(label)
            mine, floors = tries.setdefault((key, label), ([], []))
            for i in range(try_reps):
                floors.append(floor.sample())
                _arm(tpage, read_js, arg)
                _slider_step(tpage, "ArrowRight" if i % 2 == 0 else "ArrowLeft", thumb)
                mine.append(_elapsed_ms(tpage))
                _settle(tpage)
            ctx.close()
        for i in range(reps):
            res["floor4"].append(floor.sample())
            res["pgfloor"].append(_switch(ppage, "ページ 2" if i % 2 == 0 else "ページ 1", need_quiz=False))
            # (② opens at its first section, ① at the 試してみよう the learner left: no quiz to wait for)
            res["switch"].append(_switch(npage, qkv.label if i % 2 == 0 else naive.label, need_quiz=False))
        rows = [
            Row("felt", "floor app: slider step → number painted (reference)", res["floor"], "ms"),
            _row("③ slider step → chart updated", res["slider"], res["floor"]),
            Row("felt", "floor editor app: cell edit + Enter → number painted (reference)", res["edfloor"], "ms"),
            _row("① matrix cell edit + Enter → result updated", res["cell"], res["floor2"]),
            _row("① matrix cell edit + Enter vs the editor floor", res["cell"], res["edfloor"]),
            _row("① quiz: choose an option → 回答する clickable", res["choose"], res["floor3"]),
            _row("① quiz: 回答する → verdict shown", res["submit"], res["floor3"]),
            _row(f"① quiz: 回答する → verdict shown, full stored record ({len(full.encode()) // 1000} kB)",
                 res["submit_full"], res["floor3"]),
            Row("felt", f"① quiz: 回答する → verdict shown, full stored record, {PHONE_NOTE}",
                res["phone_submit"], "ms"),
            Row("felt", f"sidebar page switch right after an answer (① → ②), full stored record, {PHONE_NOTE}",
                res["phone_switch"], "ms"),
            Row("felt", "floor pages app: sidebar page switch → other page drawn (reference)", res["pgfloor"], "ms"),
            _row("sidebar page switch (① ⇄ ②) → page settled", res["switch"], res["floor4"]),
            _row("sidebar page switch (① ⇄ ②) vs the page-switch floor", res["switch"], res["pgfloor"]),
        ]
        rows += [_row(f"try-it slider {PAGE_BY_KEY[key].label.split()[0]} {label} → result updated", mine, floors)
                 for (key, label), (mine, floors) in tries.items()]
        cfg.log("  felt: cold opens …")
        floor_open: list[float] = []
        per_page: dict[str, list[float]] = {}
        pairs: dict[str, list[float]] = {}
        for _ in range(opens):
            for info in available_pages():
                ctx, _pg, t = _open(browser, floor_srv.base + "/", False)
                ctx.close()
                floor_open.append(t)
                ctx, _pg, t_app = _open(browser, app.base + info.url, False)   # its first section
                ctx.close()
                per_page.setdefault(info.key, []).append(t_app)
                pairs.setdefault(info.key, []).append(t)
        rows.append(Row("felt", "floor app: cold open → settled (reference)", floor_open, "s"))
        for info in available_pages():
            rows.append(_row(f"cold open {info.url} {info.label} → settled", per_page[info.key], pairs[info.key],
                             unit="s"))
        cfg.log("  felt: return visits …")
        # a learner's usual open: the same browser again, so Streamlit's script chunks (served as
        # immutable, cached for a year) come from the HTTP cache; a new tab is a new session
        floor_ctx, page, _ = _open(browser, floor_srv.base + "/", False)
        page.close()
        app_ctx, page, _ = _open(browser, app.base + "/", False)
        page.close()
        back_floor: list[float] = []
        back: dict[str, list[float]] = {}
        back_pairs: dict[str, list[float]] = {}
        for _ in range(opens):
            for info in available_pages():
                _c, page, t = _open(browser, floor_srv.base + "/", False, ctx=floor_ctx)
                page.close()
                back_floor.append(t)
                _c, page, t_app = _open(browser, app.base + info.url, False, ctx=app_ctx)
                page.close()
                back.setdefault(info.key, []).append(t_app)
                back_pairs.setdefault(info.key, []).append(t)
        floor_ctx.close()
        app_ctx.close()
        rows.append(Row("felt", "floor app: return visit (same browser, new tab) → settled (reference)",
                        back_floor, "s"))
        for info in available_pages():
            rows.append(_row(f"return visit {info.url} {info.label} → settled", back[info.key],
                             back_pairs[info.key], unit="s"))
        for _ in range(opens):  # the learner after weeks, on the phone: the record is read at every visit
            page = phone_ctx.new_page()
            _on_phone(phone_ctx, page)
            t0 = time.perf_counter()
            page.goto(app.base + naive.url + QUIZ, wait_until="commit", timeout=TIMEOUT_MS)
            _settle(page, need_quiz=True)
            res["phone_back"].append(time.perf_counter() - t0)
            page.close()
        rows.append(Row("felt", f"return visit {naive.url} with the full stored record, {PHONE_NOTE} → settled",
                        res["phone_back"], "s"))
    cfg.log("  felt: done")
    return rows


__all__ = ["run", "TARGET_RATIO"]
