"""Fuzzing every surface a learner touches, through AppTest.

Hypothesis drives one AppTest per example through many interactions (each one is a script
rerun, as a click or an edit in the browser would be): matrix cells set to anything a
keyboard, a paste or a hand-made websocket message can produce (empty, text, NaN, inf,
1e308, −0, full-width digits, huge and negative numbers, long strings, ``<script>``),
widgets discovered generically from the element tree (slider, select_slider,
number_input, selectbox, toggle, checkbox, radio, text_input, text_area, button) set within and
at the edges of their ranges, quiz answers (radio + 回答する), taps on a learning page's section
tabs (ui.sections draws one section at a time) and page switches.

After EVERY interaction: no exception element, every error/warning is Japanese, no
"Traceback". After a bad matrix cell: a Japanese st.error naming the cell, the editor's
last valid matrix kept, and every result the page shows (metrics, formulas, tables,
charts) identical to the run before the bad edit. After a quiz answer: the verdict of the
chosen choice, exactly one attempt recorded.

Speed: the pages are fuzzed in a pool of (up to) 2 worker processes (this machine has 2
cores); every page gets the same share of the ≥ 10,000 interactions. A failure ends its
session, not the page's share: a fresh session takes the rest of the example and the next
examples still run, so the total holds whether a page fails or not. The whole file's
runtime is printed by the last test. The run's seed is drawn in tests/conftest.py and shown in
pytest's header (and at the end); ``FUZZ_SEED=<n>`` replays a run; ``FUZZ_TOTAL``
lowers the total for a quick local run (the last test then checks that lower total).
"""
from __future__ import annotations

import math
import multiprocessing as mp
import os
import random
import re
import time
import traceback
from datetime import date, timedelta
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed as hyp_seed, settings
from hypothesis import strategies as hs

from ui.nav import PAGES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TOTAL_INTERACTIONS = int(os.environ.get("FUZZ_TOTAL", "10000"))
STEPS_PER_EXAMPLE = 30          # interactions on one AppTest (one hypothesis example)
WORKERS = max(1, min(2, os.cpu_count() or 1))
SEED = int(os.environ.get("FUZZ_SEED", str(random.SystemRandom().randrange(2**31))))  # conftest sets it
EXISTING = [p for p in PAGES if p.exists]
PER_PAGE = math.ceil(TOTAL_INTERACTIONS / len(EXISTING))
EXAMPLES_PER_PAGE = max(3, math.ceil(PER_PAGE / STEPS_PER_EXAMPLE))  # ≥ 3: the first one is the simplest plan

# Buttons that start a real training run (2–23 s each); their page test drives them once.
EXPENSIVE_BUTTONS = {"training_run", "training_exp_run"}
KNOWN_WIDGETS = {"slider", "select_slider", "number_input", "selectbox", "toggle", "checkbox", "radio",
                 "text_input", "text_area", "button", "button_group", "date_input"}
# on screen but not driven here: the download/upload of the progress file (test_progress_fuzz.py
# feeds hostile files through the import path)
IGNORED_WIDGETS = {"download_button", "file_uploader"}

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")
CELL_ERROR = re.compile(r"行・.+ 列のセル")
KEPT = "いまは最後に正しかった値で計算しています"

# (text, valid?) — what a learner or a hand-made message may put into a cell
HOSTILE_CELLS = [
    (None, False), ("", False), ("   ", False), ("\u3000", False), ("abc", False), ("nan", False),
    ("NaN", False), ("inf", False), ("-inf", False), ("Infinity", False), ("∞", False), ("1e308", False),
    ("-1e308", False), ("1e309", False), ("1e1000000", False), ("1" * 400, False), ("0x10", False),
    ("1,000", False), ("1/2", False), ("½", False), ("--1", False), ("1e6.5", False), ("\x00", False),
    ("<script>alert(1)</script>", False), ("<img src=x onerror=alert(1)>", False),
    ("[x](javascript:alert(1))", False), ("![x](http://x/a.png)", False), ("**1**", False),
    ("$1$", False), ("x" * 10_000, False), ("1000001", False), ("-1000001", False), ("1e7", False),
    ("-0", True), ("−0", True), ("0", True), ("-0.0", True), ("１２", True), ("−３．５", True),
    ("ー1", True), (" 2 ", True), ("+3", True), ("1e6", True), ("-1e6", True), ("1e-300", True),
    ("5e-324", True), ("1_000", True), ("0.1", True), ("١٢", True), ("1E2", True),
]
BAD_CELLS = [cell for cell in HOSTILE_CELLS if not cell[1]]   # what the counted part of an example types
TEXT_INPUTS = ["", " ", "猫 は 魚 を 見つけた", "犬 は 川で 豆 を 拾った 。 それ を 食べた", "それ",
               "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))",
               "猫 " * 300, "x" * 5000, "\x00", "**太字**", "$x$", "😀", "\n\n", "a\tb", "cat dog"]

# ---------------------------------------------------------------------------
# helpers that read the AppTest tree
# ---------------------------------------------------------------------------


def _state_keys(at) -> list[str]:
    return list(at.session_state._state.filtered_state)


def widgets(at) -> list:
    from streamlit.testing.v1.element_tree import Widget
    return [n for n in at._tree if isinstance(n, Widget)]


def alerts(at, kind: str) -> list[str]:
    return [str(e.value) for e in at.get(kind)]


def results_signature(at) -> tuple:
    """Everything computed the page shows: metrics, formulas, read-only tables, chart data,
    Markdown prose (numbers are printed inside it). Editors and alerts are left out."""
    parts = []
    for m in at.metric:
        parts.append(("metric", m.label, m.value))
    for el in at.latex:
        parts.append(("latex", el.value))
    for el in at.markdown:  # prose and the read-only tables (ui.show_table); the editors are st.data_editor
        parts.append(("md", el.value))
    for ch in at.get("vega_lite_chart"):
        parts.append(("chart", tuple(bytes(ds.data.data) for ds in ch.proto.datasets)))
    for el in at.get("html"):  # the heatmaps (ui.heatmap_html)
        parts.append(("html", el.proto.body))
    return tuple(parts)


class Failure(AssertionError):
    pass


def check_healthy(at, log: list[str]) -> None:
    def fail(msg: str):
        raise Failure(msg + "\n  last actions:\n    " + "\n    ".join(log[-15:]))

    if at.exception:
        fail(f"exception element: {[(e.value, list(e.stack_trace)[-6:]) for e in at.exception]}")
    for kind in ("error", "warning"):
        for text in alerts(at, kind):
            if not JAPANESE.search(text):
                fail(f"{kind} without Japanese: {text!r}")
            if "Traceback" in text:
                fail(f"traceback in {kind}: {text!r}")


# ---------------------------------------------------------------------------
# widget drivers that mimic what the browser sends (by displayed option)
# ---------------------------------------------------------------------------


def _pick_option(widget, state_fn) -> None:
    """Make ``widget`` send the widget state built by ``state_fn`` on the next run (the
    frontend sends the DISPLAYED option; AppTest's set_value needs the Python value)."""
    cls = type(widget)
    picked = type(f"Picked{cls.__name__}", (cls,), {"_widget_state": property(state_fn)})
    widget.__class__ = picked


def pick_index(widget, i: int) -> None:
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    def state(self):
        ws = WidgetState()
        ws.id = self.id
        ws.string_value = self.options[i]
        return ws
    _pick_option(widget, state)


def pick_strings(widget, idx: list[int]) -> None:
    """select_slider (one value or a range) and pills/segmented_control: displayed options."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    def state(self):
        ws = WidgetState()
        ws.id = self.id
        ws.string_array_value.data[:] = [self.options[i] for i in idx]
        return ws
    _pick_option(widget, state)


class Act:
    """The random choices of ONE interaction, all drawn by hypothesis BEFORE the app runs.

    The app has its own randomness (fresh quiz ids), so the same earlier choices can meet a
    different page state; hypothesis refuses an example whose draws change shape between runs
    (FlakyStrategyDefinition). So every example draws a fixed-shape plan up front, and the
    plan is interpreted against whatever is on screen (indices taken modulo the options)."""

    def __init__(self, d: dict):
        self.d = d
        self._ints = list(d["ints"])

    def __getitem__(self, name):
        return self.d[name]

    def pick(self, n: int) -> int:
        v = self._ints.pop(0) if self._ints else 0
        return v % n


ACT = hs.fixed_dictionaries({
    "kind": hs.integers(0, 2**20),
    "ints": hs.lists(hs.integers(0, 2**20), min_size=4, max_size=4),
    "mode": hs.sampled_from(["hostile", "number", "fix"]),
    "hostile": hs.sampled_from(HOSTILE_CELLS),
    "number": hs.one_of(hs.integers(-1_000_000, 1_000_000),
                        hs.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)),
    "fmt": hs.integers(0, 2),
    "where": hs.lists(hs.sampled_from(["min", "max", "now", "any", "-0"]), min_size=2, max_size=2),
    "u": hs.floats(0.0, 1.0),
    "big": hs.integers(0, 2**62),
    "flag": hs.booleans(),
    "text": hs.one_of(hs.sampled_from(TEXT_INPUTS), hs.text(max_size=12)),
    "trunc": hs.integers(0, 9),
    "target": hs.integers(0, 2**20),
})


def slider_values(w, a: Act) -> list[float]:
    lo, hi, step = float(w.proto.min), float(w.proto.max), float(w.proto.step) or 1.0
    n_steps = int(round((hi - lo) / step))
    vals = []
    for where in a["where"][: len(w.proto.default) or 1]:
        k = 0 if where == "min" else n_steps if where == "max" else a.pick(n_steps + 1)
        vals.append(min(lo + k * step, hi))
    vals.sort()
    if w.proto.data_type == 0:  # INT
        vals = [int(round(v)) for v in vals]
    return vals


# ---------------------------------------------------------------------------
# the fuzz run of one page (executed in a worker process)
# ---------------------------------------------------------------------------


def fuzz_page(path: str, n_examples: int, steps: int, run_seed: int, *, fail_at: int = 0) -> dict:
    """Run ``n_examples`` hypothesis examples of ``steps`` interactions starting on ``path``.
    ``fail_at``: a failure injected at the page's n-th interaction (this file's test of a failing page).

    Returns {"count", "seconds", "failure" (the first one's text or None), "failures" (how many
    sessions failed), "unknown" (widget types seen but not driven), "bad_cells", "answers",
    "switches"}."""
    import sys
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    tests_dir = str(ROOT / "tests")
    if tests_dir not in sys.path:
        sys.path.insert(0, tests_dir)
    import logging
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    from streamlit import config as st_config
    # the app's config hides error details from browsers; the fuzzer wants them in its report
    st_config.set_option("client.showErrorDetails", "full")
    from apphelpers import editors_on_screen, open_page, section_tabs  # noqa: E402

    from ui.validate import CellError, parse_cell  # noqa: E402

    stats = {"count": 0, "unknown": set(), "bad_cells": 0, "answers": 0, "switches": 0, "examples": 0,
             "counted_bad": 0, "counted_answers": 0, "opened_at": 0}
    failures: list[str] = []
    pages = [p.path for p in EXISTING]

    def run(at, log, what):
        log.append(what)
        at.run()
        stats["count"] += 1
        if stats["count"] == fail_at:
            fail(log, f"failure injected at interaction {fail_at}")
        check_healthy(at, log)

    def fail(log, msg):
        raise Failure(msg + "\n  last actions:\n    " + "\n    ".join(log[-15:]))

    def act_matrix(at, a, log, editors):
        key = editors[a.pick(len(editors))]
        raw = [list(r) for r in at.session_state[f"{key}__raw"]]
        i = a.pick(len(raw))
        j = a.pick(len(raw[i]))
        mode = a["mode"]
        if mode == "fix":  # the learner corrects every bad cell (back to the last valid value)
            valid = at.session_state[f"{key}__valid"]
            for r, row in enumerate(raw):
                for c, cell in enumerate(row):
                    try:
                        parse_cell(cell, "x")
                    except CellError:
                        raw[r][c] = repr(float(valid[r][c]))
            expect_ok = None
        elif mode == "number":
            x = a["number"]
            raw[i][j] = [repr(x), str(x), f"{x:.3g}"][a["fmt"]]
            expect_ok = None if "e" in raw[i][j] else True
        else:
            text, expect_ok = a["hostile"]
            raw[i][j] = text
        # the oracle for the whole table: the first bad cell (row-major) decides
        any_bad = False
        for row in raw:
            for cell in row:
                try:
                    parse_cell(cell, "x")
                except CellError:
                    any_bad = True
        if expect_ok is not None:
            try:
                parse_cell(raw[i][j], "x")
                ok = True
            except CellError:
                ok = False
            if ok != expect_ok:
                fail(log, f"cell parser says {'valid' if ok else 'invalid'} for {raw[i][j]!r:.60}")
        before_valid = at.session_state[f"{key}__valid"].copy() if f"{key}__valid" in _state_keys(at) else None
        before_sig = results_signature(at) if any_bad else None
        at.session_state[f"{key}__raw"] = raw
        at.session_state[f"{key}__ver"] = at.session_state[f"{key}__ver"] + 1
        run(at, log, f"matrix {key}[{i}][{j}] = {raw[i][j]!r:.60} ({mode})")
        errors = alerts(at, "error")
        if any_bad:
            stats["bad_cells"] += 1
            if not any(CELL_ERROR.search(e) and KEPT in e for e in errors):
                fail(log, f"bad cell in {key} but no Japanese cell error: {errors}")
            import numpy as np
            if before_valid is not None and not np.array_equal(at.session_state[f"{key}__valid"], before_valid):
                fail(log, f"{key}: last valid matrix not kept")
            after_sig = results_signature(at)
            if after_sig != before_sig:
                diff = [(x, y) for x, y in zip(before_sig, after_sig) if x != y][:2]
                fail(log, f"{key}: results changed after a bad cell ({len(before_sig)} → {len(after_sig)} "
                          f"items): {str(diff)[:600]}")
        else:
            if any(CELL_ERROR.search(e) for e in errors if key in e):
                fail(log, f"valid table {key} but a cell error: {errors}")
            import numpy as np
            valid = at.session_state[f"{key}__valid"]
            if np.any((valid == 0) & np.signbit(valid)):
                fail(log, f"{key}: −0 kept as negative zero")

    def act_quiz(at, a, log, cards):
        card = cards[a.pick(len(cards))]
        radio = next(r for r in at.radio if r.key == f"{card}__choice")
        choice = a.pick(len(radio.options))
        n_before = len(at.session_state["progress"]["attempts"])
        pick_index(radio, choice)  # a form: the choice is sent with 回答する, in one run
        submit = next((b for b in at.button if b.key == f"{card}__submit"), None)
        if submit is None or submit.disabled:
            fail(log, f"quiz {card}: 回答する missing or disabled after a choice")
        submit.click()
        run(at, log, f"quiz {card}: 回答する")
        stats["answers"] += 1
        if at.session_state[f"{card}__answered"] != choice:
            fail(log, f"quiz {card}: recorded {at.session_state[f'{card}__answered']} for choice {choice}")
        n_after = len(at.session_state["progress"]["attempts"])
        if n_after != min(n_before + 1, 2000):
            fail(log, f"quiz {card}: attempts {n_before} → {n_after}")
        verdicts = [t for t in alerts(at, "success") if t.startswith("正解です")] + \
                   [t for t in alerts(at, "error") if t.startswith("不正解です")]
        if not verdicts:
            fail(log, f"quiz {card}: no verdict shown")

    def act_widget(at, a, log):
        ws = [w for w in widgets(at) if not w.disabled]
        for w in ws:
            if w.type not in KNOWN_WIDGETS and w.type not in IGNORED_WIDGETS:
                stats["unknown"].add(w.type)
        ws = [w for w in ws if w.type in KNOWN_WIDGETS and w.key not in EXPENSIVE_BUTTONS]
        if not ws:
            return False
        w = ws[a.pick(len(ws))]
        if w.type == "slider":
            if w.proto.data_type not in (0, 1):
                return False
            vals = slider_values(w, a)
            w.set_value(vals if len(vals) > 1 else vals[0])
            what = f"slider {w.key} = {vals}"
        elif w.type == "select_slider":
            n = len(w.options)
            idx = sorted(a.pick(n) for _ in range(len(w.proto.default) or 1))
            pick_strings(w, idx)
            what = f"select_slider {w.key} = {[w.options[i] for i in idx]}"
        elif w.type == "number_input":
            is_int = w.proto.data_type == 0
            lo = w.min if w.min is not None else -1e308
            hi = w.max if w.max is not None else 1e308
            if is_int:
                lo, hi = int(max(lo, -(2**53))), int(min(hi, 2**53))
                v = {"min": lo, "max": hi, "now": int(w.value if w.value is not None else lo),
                     "-0": 0 if lo <= 0 <= hi else lo,
                     "any": lo + a["big"] % (hi - lo + 1)}[a["where"][0]]
            else:
                u = a["u"]
                v = {"min": lo, "max": hi, "now": w.value if w.value is not None else lo,
                     "-0": -0.0 if lo <= 0 <= hi else lo,
                     "any": min(max(lo * (1 - u) + hi * u, lo), hi)}[a["where"][0]]
            w.set_value(v)
            what = f"number_input {w.key} = {v!r}"
        elif w.type in ("selectbox", "radio"):
            if not w.options:
                return False
            i = a.pick(len(w.options))
            pick_index(w, i)
            what = f"{w.type} {w.key} = #{i} {w.options[i]!r:.40}"
        elif w.type == "button_group":  # st.pills / st.segmented_control
            if not w.options:
                return False
            if w.proto.click_mode == 0:  # SINGLE_SELECT
                idx = [a.pick(len(w.options))]
            else:
                bits = a["big"]
                idx = [k for k in range(len(w.options)) if bits >> (k % 20) & 1]
            pick_strings(w, idx)
            what = f"button_group {w.key} = {[w.options[i] for i in idx]}"
        elif w.type in ("toggle", "checkbox"):
            v = a["flag"]
            w.set_value(v)
            what = f"{w.type} {w.key} = {v}"
        elif w.type in ("text_input", "text_area"):
            v = a["text"]
            if w.proto.max_chars and a["trunc"]:  # mostly what the browser allows
                v = v[: w.proto.max_chars]
            w.set_value(v)
            what = f"{w.type} {w.key} = {v!r:.50}"
        elif w.type == "button":
            w.click()
            what = f"button {w.key} ({w.label})"
        elif w.type == "date_input":  # the exam date on the home page: empty, or a day in its range
            lo, hi = (date.fromisoformat(x.replace("/", "-")) for x in (w.proto.min, w.proto.max))
            v = None if a["flag"] else lo + timedelta(days=a["big"] % ((hi - lo).days + 1))
            w.set_value(v)
            what = f"date_input {w.key} = {v}"
        else:  # pragma: no cover
            return False
        run(at, log, what)
        return True

    # A failure is recorded, not raised: the app has its own randomness (fresh quiz ids), so
    # hypothesis could not replay or shrink an example; the action log says what happened.
    @settings(max_examples=n_examples, deadline=None, database=None, print_blob=False,  # (worker processes do not load conftest's profile)
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @hyp_seed(run_seed)
    @given(data=hs.data())
    def example(data):
        log = [f"open {path}"]
        plan = data.draw(hs.lists(ACT, min_size=steps, max_size=steps), label="plan")
        stats["examples"] += 1           # counted once drawn (hypothesis may drop a draw and try again)
        stats["opened_at"] = stats["count"]
        progress = {"counted": False, "acts": 0}     # where the example is, should a session fail
        while True:
            before = stats["count"]
            try:
                one_example(plan, log, progress)
                return
            except Exception as exc:  # noqa: BLE001 - recorded, reported by the parent test
                # (hypothesis' own control flow, e.g. StopTest when an example drew too much, is a
                # BaseException and passes through)
                text = str(exc) if isinstance(exc, Failure) else (
                    f"{type(exc).__name__}: {exc}\n  last actions:\n    " + "\n    ".join(log[-15:]) + "\n"
                    + "".join(traceback.format_exception(exc))[-3000:])
                failures.append(text)
            # A failure ends the session, not the example's share of the page's interactions (when a
            # failing page stopped at its first failure, the total fell short with it: FUZZ_SEED=89597979,
            # 9,848 of 10,000): a fresh session, as after a reload, goes on with the rest of the plan
            # (and the examples after this one still run), so the failing page is fuzzed as much as
            # a passing one. Only a page that fails before any interaction has nothing left to run.
            if stats["count"] - stats["opened_at"] >= steps or stats["count"] == before:
                return
            log = [f"reopen {path} in a fresh session after the failure above"]

    def counted(at, a, log) -> None:
        """The counted part of every example, not left to the draw (a floor that held only for lucky
        seeds failed a clean run once: FUZZ_SEED=595750105): on a learning page, a bad cell in each
        editor of 試してみよう (left bad for the next one: the table's first bad cell decides), then an
        answer to the quiz's first card."""
        tabs = [t.label for t in section_tabs(at)]
        if not tabs:
            return
        if "試してみよう" in tabs:
            at.session_state["section"] = "試してみよう"
            run(at, log, "open section 試してみよう (counted)")
            for key in editors_on_screen(at):
                bad = Act({**a.d, "mode": "hostile", "ints": [0, 0, 0, 0],
                           "hostile": BAD_CELLS[(a["kind"] + stats["counted_bad"]) % len(BAD_CELLS)]})
                act_matrix(at, bad, log, [key])
                stats["counted_bad"] += 1
        at.session_state["section"] = tabs[-1]
        run(at, log, f"open section {tabs[-1]} (counted)")
        cards = [r.key[: -len("__choice")] for r in at.radio
                 if r.key and r.key.endswith("__choice") and not r.disabled]
        if cards:
            act_quiz(at, a, log, cards[:1])
            stats["counted_answers"] += 1

    def one_example(plan, log, progress):
        at = open_page(path)
        check_healthy(at, log)
        if not progress["counted"]:      # a fresh session after a failure goes on where it was (not
            progress["counted"] = True   # into a counted part that failed once more)
            counted(at, Act(plan[0]), log)
        done = stats["count"] - stats["opened_at"]
        while done < steps:  # every action is ≥ 1 rerun, so the plan is long enough
            a = Act(plan[progress["acts"] % len(plan)])
            progress["acts"] += 1
            editors = editors_on_screen(at)
            cards = [r.key[: -len("__choice")] for r in at.radio
                     if r.key and r.key.endswith("__choice") and not r.disabled]
            kinds = ["widget"] * 4 + ["switch"]
            tabs = [t.label for t in section_tabs(at)]     # a learning page: one section at a time
            if tabs:
                kinds += ["section"] * 3
            if editors:
                kinds += ["matrix"] * 5
            if cards:
                kinds += ["quiz"] * 2
            kind = kinds[a["kind"] % len(kinds)]
            before = stats["count"]
            if kind == "section":
                label = tabs[a["target"] % len(tabs)]
                at.session_state["section"] = label      # a tap on a section's tab
                run(at, log, f"open section {label}")
            elif kind == "matrix":
                act_matrix(at, a, log, editors)
            elif kind == "quiz":
                act_quiz(at, a, log, cards)
            elif kind == "widget":
                if not act_widget(at, a, log):
                    kind = "switch"
            if kind == "switch":
                # mostly back to the page under test, sometimes anywhere
                targets = [path, path] + pages
                target = targets[a["target"] % len(targets)]
                at.switch_page(target)
                stats["switches"] += 1
                run(at, log, f"switch to {target}")
            done += stats["count"] - before

    t0 = time.perf_counter()
    failure = None
    try:
        example()
    except BaseException as exc:  # noqa: BLE001 - reported to the parent process as text
        failure = f"{type(exc).__name__}: {exc}\n" + "".join(traceback.format_exception(exc))[-4000:]
    if failures:
        failure = failures[0]
    return {"count": stats["count"], "seconds": time.perf_counter() - t0, "failure": failure, "failures": len(failures),
            "unknown": sorted(stats["unknown"]), "bad_cells": stats["bad_cells"],
            "answers": stats["answers"], "switches": stats["switches"], "examples": stats["examples"],
            "counted_bad": stats["counted_bad"], "counted_answers": stats["counted_answers"]}


# ---------------------------------------------------------------------------
# regressions: crashes the fuzzer found (each fixed where it belonged)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0.2, 0.0, -2.0, 1e6])
def test_heatmap_of_a_constant_matrix(value):
    """Found on /mask (valid length at the slider's max → uniform weights): a constant matrix gave
    the colour scale a zero-width domain (Altair refused it; a table would divide by zero)."""
    import numpy as np
    from ui.widgets import colour_domain
    lo, hi = colour_domain(np.full((3, 3), value))
    assert lo < hi and lo <= value <= hi


def test_mask_page_with_no_padding():
    from apphelpers import heatmaps, open_page
    at = open_page("pages/6_mask.py", section="try")
    at.slider(key="mask_valid_len").set_value(at.slider(key="mask_valid_len").max).run()
    assert not at.exception, at.exception
    assert len(heatmaps(at)) >= 2


def test_the_counted_mix_gives_the_same_floor_whatever_the_seed():
    """FUZZ_SEED=595750105 counted 99 bad cells in 10,200 interactions against a floor of 100 (the
    mix was sampled): replayed on ① and next to another seed, each example's counted part gives one
    bad cell per editor and one quiz answer, whatever the seed draws."""
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        runs = [pool.submit(fuzz_page, "pages/1_naive.py", 2, 8, s).result(timeout=600) for s in (595750105, 7)]
    for res in runs:
        assert res["failure"] is None, res["failure"]
        assert (res["examples"], res["counted_bad"], res["counted_answers"]) == (2, 2, 2), res
        assert res["bad_cells"] >= 2 and res["answers"] >= 2


def test_a_failing_page_still_makes_its_share_of_the_interactions():
    """FUZZ_SEED=89597979: /exam failed in its 4th example and stopped there (98 interactions of 390), so the
    total fell to 9,848 of 10,000 with it. A failure (here injected) ends its session only: a fresh session
    goes on with the example and the next example still runs, so the page's count is its share."""
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        res = pool.submit(fuzz_page, "pages/1_naive.py", 2, 8, 7, fail_at=3).result(timeout=600)
    assert "failure injected at interaction 3" in res["failure"] and res["failures"] == 1, res
    assert res["examples"] == 2 and res["count"] >= 2 * 8, res
    assert res["counted_answers"] == 1, res       # the first counted part failed: not run again, the second one ran


# ---------------------------------------------------------------------------
# pytest side: one pool for the module, one test per page, a total at the end
# ---------------------------------------------------------------------------
RESULTS: dict[str, dict] = {}
INTERACTIONS = 0
_T0 = time.perf_counter()


@pytest.fixture(scope="module")
def fuzz_jobs(request):
    ctx = mp.get_context("spawn")  # never fork a process that runs streamlit threads
    pool = ProcessPoolExecutor(max_workers=WORKERS, mp_context=ctx)
    selected = {item.callspec.params["info"].key for item in request.session.items
                if getattr(item, "originalname", "") == "test_fuzz_page" and item.module is request.module}
    futures = {p.key: pool.submit(fuzz_page, p.path, EXAMPLES_PER_PAGE, STEPS_PER_EXAMPLE, SEED + n)
               for n, p in enumerate(EXISTING) if p.key in selected}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


# Time (≈ 20 s a page, ≈ 4–7 min in all, run in parallel processes by fuzz_jobs): 390 counted interactions a
# page, so the run as a whole makes its 10,000; each is a real AppTest rerun of the page.
@pytest.mark.parametrize("info", EXISTING, ids=[p.key for p in EXISTING])
def test_fuzz_page(fuzz_jobs, info):
    global INTERACTIONS
    res = fuzz_jobs[info.key].result(timeout=1800)
    RESULTS[info.key] = res
    INTERACTIONS += res["count"]
    print(f"\n{info.key}: {res['count']} interactions in {res['seconds']:.1f} s "
          f"({res['examples']} examples, {res['bad_cells']} bad tables, {res['answers']} quiz answers, "
          f"{res['switches']} switches)")
    assert res["failure"] is None, (f"fuzzing {info.path} failed in {res['failures']} session(s) (FUZZ_SEED={SEED} "
                                    f"replays it); the first:\n{res['failure']}")
    assert not res["unknown"], (f"{info.path} has widgets the fuzzer does not drive: {res['unknown']} "
                                "(add them to act_widget)")
    assert res["count"] >= EXAMPLES_PER_PAGE * STEPS_PER_EXAMPLE
    if info.section == "学習":     # every example's counted part: a bad cell per editor, one answer
        assert res["counted_answers"] == res["examples"], res
        assert res["counted_bad"] % res["examples"] == 0, res


def test_fuzz_total_interactions():
    """Runs last in this file: the suite really made ≥ 10,000 interactions."""
    if len(RESULTS) < len(EXISTING):
        pytest.skip("only part of the fuzz suite ran")
    elapsed = time.perf_counter() - _T0
    print(f"\nfuzz total: {INTERACTIONS} interactions over {len(RESULTS)} pages in {elapsed:.0f} s "
          f"({WORKERS} workers, FUZZ_SEED={SEED})")
    # every page makes its share, failing or not (fuzz_page), so only a page that fails before any
    # interaction can leave the total short
    assert INTERACTIONS >= TOTAL_INTERACTIONS, {k: r["count"] for k, r in RESULTS.items()
                                                if r["count"] < EXAMPLES_PER_PAGE * STEPS_PER_EXAMPLE}
    # the mix exercised bad cells and quiz answers: each example's counted part gives a floor that holds
    # for every seed (a sampled mix gave 87 and 99 on unlucky seeds), on top of the sampled ones
    counted_bad = sum(r["counted_bad"] for r in RESULTS.values())
    counted_answers = sum(r["counted_answers"] for r in RESULTS.values())
    assert counted_bad >= TOTAL_INTERACTIONS // 100 and counted_answers >= TOTAL_INTERACTIONS // 100, \
        (counted_bad, counted_answers)
    assert sum(r["bad_cells"] for r in RESULTS.values()) >= counted_bad
    assert sum(r["answers"] for r in RESULTS.values()) >= counted_answers
