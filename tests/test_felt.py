"""Felt latency, functional side (real browser): what the learner's hand notices, never timings
(those belong to `python -m bench --only felt`).

- ① a fast click on 回答する right after choosing an option is not lost: the card is an st.form,
  so 回答する does not wait for a round trip to become clickable;
- ③'s and ⑦-4's temperature sliders answer in the browser (Vega draws them in their chart): no
  frame to the server;
- an answer, a cell edit on ① and ④ and the try-it sliders (⓪, ⑦-2, ⑦-4's top-k, ⑦-5, ⑨) rerun only
  their fragment: an element outside it is the same DOM node afterwards and was never marked stale
  (a full rerun flips ``data-stale`` on every element container of the page while it runs, even on
  elements whose content stays the same);
- a folded step of a hand calculation (ui.lazy_expander) is drawn when opened, by a rerun of that
  expander alone, with the numbers of the moment (also after an edit made while it was folded).
"""
from __future__ import annotations

import re

import pytest

from browserhelpers import (TABLE, link_to, new_page, quiz_url, section_url, shown_qids,  # noqa: F401 - fixture recipe
                            streamlit_server, wait_until_rendered)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Watch element containers outside the fragment for any mutation: each is found by a selector and
# a text it contains ("" = the first match). One after the fragment matters most: a full rerun sends
# it last, so it is marked stale for the whole run (an early one may be re-sent before a repaint).
WATCH_JS = r"""(targets) => {
  const w = window.__watch = {els: [], muts: []};
  for (const [sel, text] of targets) {
    const el = [...document.querySelectorAll(sel)].find(e => e.innerText.includes(text));
    const box = el.closest('[data-testid="stElementContainer"]');
    w.els.push(el);
    new MutationObserver((ms) => { for (const m of ms) w.muts.push(sel + ' ' + m.type + ':' + (m.attributeName || '')); })
      .observe(box, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return w.els.length;
}"""
WATCHED_JS = r"""(targets) => ({
  same: targets.every(([sel, text], i) =>
    [...document.querySelectorAll(sel)].find(e => e.innerText.includes(text)) === window.__watch.els[i]),
  connected: window.__watch.els.every(e => e.isConnected), muts: window.__watch.muts})"""
# A learning page shows one section at a time (ui.sections). What a full rerun would touch: the
# section's 「次へ」 step after everything it draws, and the page's title before it.
NEXT_STEP = ['[data-testid="stMain"] [data-testid="stButton"] button', "次へ："]
NEXT_PAGE = ['[data-testid="stMain"] [data-testid="stPageLink-NavLink"]', "次へ："]   # after the quiz
TITLE = ["h1", ""]
METRIC_JS = """(label) => { const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
  .find(e => e.innerText.includes(label));
  return m ? m.querySelector('[data-testid="stMetricValue"]').innerText : null; }"""


def _watch(page, *targets) -> None:
    page.wait_for_function("(ts) => ts.every(([sel, text]) => [...document.querySelectorAll(sel)]"
                           ".some(e => e.innerText.includes(text)))", arg=list(targets), timeout=20_000)
    assert page.evaluate(WATCH_JS, list(targets)) == len(targets)


def _untouched(page, *targets) -> None:
    seen = page.evaluate(WATCHED_JS, list(targets))
    assert seen["same"] and seen["connected"], "the element outside the fragment was replaced"
    assert seen["muts"] == [], f"the element outside the fragment was touched (a full rerun?): {seen['muts'][:6]}"


def _first_card(page):
    """The first quiz card's radio, and the nearest block holding it and its 回答する (the verdict
    appears there too)."""
    radio = page.locator('[data-testid="stRadio"]').first
    radio.scroll_into_view_if_needed()
    return radio, radio.locator('xpath=ancestor::div[@data-testid="stVerticalBlock"]'
                                '[.//button[normalize-space()="回答する"]]'
                                '[not(ancestor-or-self::div[@data-testid="stForm"])][1]')


def _steady_box(page, locator) -> dict:
    """The element's bounding box once it has stopped moving (two reads 300 ms apart agree)."""
    box = locator.bounding_box()
    for _ in range(20):
        page.wait_for_timeout(300)
        again = locator.bounding_box()
        if box and again and abs(box["y"] - again["y"]) < 1 and abs(box["x"] - again["x"]) < 1:
            return again
        box = again
    assert box, "the element has no box"
    return box


def test_fast_click_on_answer_right_after_choosing_is_not_lost(browser):
    with streamlit_server() as base, new_page(browser, "felt-fast-click") as page:
        page.goto(quiz_url(base, "/naive"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        radio, card = _first_card(page)
        option = radio.locator('[data-testid="stRadioGroup"] label').first
        submit = card.get_by_role("button", name="回答する")
        radio.scroll_into_view_if_needed()
        o, s = _steady_box(page, option), _steady_box(page, submit)   # charts above may still be sizing
        outside = TITLE, NEXT_PAGE                                   # the page's title, the link after the quiz
        _watch(page, *outside)
        # this card by its id (answered, it draws no radio: the locator above would move on to the next card)
        qids = shown_qids(card)
        assert len(qids) == 1, qids                                   # its 「この問題へのリンク」
        card = link_to(page.locator('[data-testid="stMain"]'), qids[0]).locator(
            'xpath=ancestor::div[@data-testid="stVerticalBlock"]'
            '[.//div[@data-testid="stMarkdownContainer"]/p/strong[starts-with(normalize-space(.), "問")]][1]')
        expect(card).to_have_count(1)
        # two raw clicks back to back, as a quick hand does: no waiting for 回答する to become enabled
        page.mouse.click(o["x"] + 12, o["y"] + o["height"] / 2)
        page.mouse.click(s["x"] + s["width"] / 2, s["y"] + s["height"] / 2)
        expect(card).to_contain_text(re.compile("正解です。|不正解です。"), timeout=20_000)
        wait_until_rendered(page)
        text = card.inner_text()
        assert "選択肢を 1 つ選んでから" not in text
        assert "← あなたの解答" in next(line for line in text.splitlines() if line.startswith("A. "))  # as chosen
        assert card.locator('input[type="radio"]').count() == 0             # one answer per card: the
        assert card.get_by_role("button", name="回答する").count() == 0     # choices are text now
        _untouched(page, *outside)                                        # only the card reran


def test_answer_without_a_choice_asks_for_one(browser):
    with streamlit_server() as base, new_page(browser, "felt-empty-submit") as page:
        page.goto(quiz_url(base, "/naive"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        _radio, card = _first_card(page)
        card.get_by_role("button", name="回答する").click()
        page.wait_for_function("(el) => el.innerText.includes('選択肢を 1 つ選んでから')",
                               arg=card.element_handle(), timeout=20_000)
        assert "正解です。" not in card.inner_text() and "不正解です。" not in card.inner_text()
        assert not card.locator('input[type="radio"]').first.is_disabled()


def _frames_sent(page) -> list:
    """The websocket frames the page sends (filled as it sends them)."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def _press_without_a_round_trip(page, sent, thumb, key, presses, done_js, arg) -> None:
    """Press ``key`` ``presses`` times on ``thumb`` until ``done_js(arg)`` holds, and check that the
    steps sent nothing to the server (``sent``: _frames_sent, which saw the page's own messages)."""
    page.wait_for_timeout(500)
    assert sent, "the page's websocket was not observed"     # the page's own messages on load
    sent.clear()
    thumb.focus()
    for _ in range(presses):
        page.keyboard.press(key)
    page.wait_for_function(done_js, arg=arg, timeout=20_000)
    page.wait_for_timeout(500)
    assert sent == [], f"a slider step talked to the server: {len(sent)} frames"


READOUT_JS = """(head) => { const t = [...document.querySelectorAll('svg text')]
  .find(e => e.textContent.includes(head)); return t ? t.textContent : null; }"""
# a slider drawn by Vega inside its chart: (page, the slider's label, the readout's fixed text, the
# key pressed and how often, what the readout says before and after)
EXPLORERS = {
    "scaling-c": ("/scaling", "スコアの倍率 c", "最大の重み =", "ArrowRight", 18,      # c: 1 → 10
                  ["最大の重み = 0.66524"], ["最大の重み = 0.99995", "4.5×10⁻⁵"]),
    "output-T": ("/output", "温度 T", "softmax(z / T) =", "ArrowLeft", 9,             # T: 1.0 → 0.1
                 ["T = 1.0", "(0.665, 0.245, 0.090)"], ["T = 0.1", "(1.000, 4.5×10⁻⁵, 2.1×10⁻⁹)"]),
}


@pytest.mark.parametrize(("url", "label", "head", "key", "presses", "before", "after"), EXPLORERS.values(),
                         ids=EXPLORERS)
def test_a_slider_drawn_in_its_chart_answers_in_the_browser_without_a_round_trip(browser, base, url, label, head,
                                                                                key, presses, before, after):
    """③'s c and ⑦-4's T are drawn by Vega inside their chart: a step (keyboard or drag) redraws
    the readout and the bars in the browser, sends nothing to the server and touches nothing outside
    the chart."""
    with new_page(browser, "felt-slider") as page:
        sent = _frames_sent(page)
        page.goto(section_url(base, url, "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        page.wait_for_function(f"(h) => ({READOUT_JS})(h) !== null", arg=head, timeout=20_000)
        shown = page.evaluate(READOUT_JS, head)
        assert all(b in shown for b in before), shown
        outside = TITLE, NEXT_STEP            # the page's title, the section's 「次へ」 after the chart
        _watch(page, *outside)
        thumb = page.locator('.vega-bindings input[type="range"]').first
        assert thumb.evaluate("(el, label) => el.closest('label').innerText.includes(label)", label)
        _press_without_a_round_trip(page, sent, thumb, key, presses,
                                    f"([h, a]) => a.every(t => ({READOUT_JS})(h).includes(t))", [head, after])
        _untouched(page, *outside)


STEPPER_PANEL_JS = """(label) => { const s = [...document.querySelectorAll('.stp')]
  .find(e => e.querySelector('label').innerText.includes(label)); if (!s) return null;
  const p = [...s.querySelectorAll('.stp-panel')].filter(e => !e.hidden);
  return {value: s.querySelector('output').innerText, panel: p.map(e => e.innerText).join('|'), panels: p.length,
          rows: p.length ? p[0].querySelectorAll('tbody tr').length : 0}; }"""
# a slider answered in the browser by ui.stepper: (page, its label, the key pressed and how often,
# before and after: the value shown, a row of its table (cells joined by tabs), the table's rows)
STEPPERS = {
    "multihead-t": ("/multihead", "配分の割合 t", "ArrowRight", 10,               # t: 0.50 → 1.00
                    ("0.50", "猫\t0.786\t0.107\t0.107\t1.000", 3), ("1.00", "猫\t0.900\t0.050\t0.050\t1.000", 3)),
    "pretrain-n": ("/pretrain", "生成するトークン数", "ArrowLeft", 3,              # 4 tokens → 1
                   ("4", "4\t<bos> 猫 は 魚\tを\t0.832", 4), ("1", "1\t<bos>\t猫\t0.901", 1)),
}


@pytest.mark.parametrize(("url", "label", "key", "presses", "before", "after"), STEPPERS.values(), ids=STEPPERS)
def test_a_slider_over_tables_answers_in_the_browser_and_keeps_its_place_in_the_tab(browser, base, url, label, key,
                                                                                 presses, before, after):
    """ui.stepper: the page computed the table at every position; a step (keyboard) shows another
    one, sends nothing to the server and touches nothing outside it. The position is still there
    after a reload of the tab (sessionStorage), and the range input is named by its label."""
    with new_page(browser, "felt-stepper") as page:
        sent = _frames_sent(page)
        page.goto(section_url(base, url, "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        page.wait_for_function(f"(l) => ({STEPPER_PANEL_JS})(l) !== null", arg=label, timeout=20_000)
        shown = page.evaluate(STEPPER_PANEL_JS, label)
        assert (shown["value"], shown["panels"], shown["rows"]) == (before[0], 1, before[2]), shown
        assert before[1] in shown["panel"], shown
        outside = TITLE, NEXT_STEP
        _watch(page, *outside)
        thumb = page.locator(".stp").filter(has_text=label).locator('input[type="range"]')
        assert page.get_by_label(label).first.evaluate("(el) => el.type") == "range"
        _press_without_a_round_trip(page, sent, thumb, key, presses,
                                    f"([l, v]) => ({STEPPER_PANEL_JS})(l).value === v", [label, after[0]])
        shown = page.evaluate(STEPPER_PANEL_JS, label)
        assert (shown["panels"], shown["rows"]) == (1, after[2]) and after[1] in shown["panel"], shown
        assert thumb.get_attribute("aria-valuetext") == after[0]
        _untouched(page, *outside)
        page.reload(wait_until="domcontentloaded")
        wait_until_rendered(page)
        page.wait_for_function(f"(l) => ({STEPPER_PANEL_JS})(l) !== null", arg=label, timeout=20_000)
        kept = page.evaluate(STEPPER_PANEL_JS, label)
        assert kept["value"] == after[0] and after[1] in kept["panel"], kept


@pytest.fixture(scope="module")
def base():
    """One server for the explorer and fragment tests (each opens its page in a fresh context)."""
    with streamlit_server() as url:
        yield url


def _text_after(label: str, selector: str) -> str:
    """JS: the text of the first ``selector`` after the widget labelled ``label``."""
    return f"""() => {{ const s = [...document.querySelectorAll('[data-testid="stSlider"]')]
       .find(e => e.innerText.includes('{label}')); if (!s) return null;
       const t = [...document.querySelectorAll('{selector}')]
       .find(t => s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING); return t ? t.innerText : null; }}"""


def _caption(text: str) -> str:
    return f"""() => {{ const c = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
       .find(e => e.innerText.includes('{text}')); return c ? c.innerText : null; }}"""


# a slider inside a fragment: (page, the slider's label, a JS reading what the step changes,
# elements outside the fragment that must stay untouched). Every try-it part of every learning page
# is a fragment (tests/test_architecture.py checks the source); these drive one of each kind.
FRAGMENT_SLIDERS = {
    "output-top-k": ("/output", "top-k の k", _caption("残った候補の元の確率の合計"),
                     (TITLE, ("h3", "1 トークンずつ生成する"), NEXT_STEP)),
    "seq2seq-a": ("/seq2seq", "再帰の変換の大きさ a", f"() => ({METRIC_JS})('30 段さかのぼった勾配の長さ')",
                  (TITLE, ('[data-testid="stMetric"]', "倍率 min(1, c/‖g‖)"), NEXT_STEP)),
    "block-d_ff": ("/block", "中間の次元 d_ff", _caption("バイアスを含めて"), (TITLE, NEXT_STEP)),
    "cost-block": ("/cost", "ブロックの大きさ", f"() => ({METRIC_JS})('計算したブロック / 飛ばしたブロック')",
                   (TITLE, NEXT_STEP)),
    "mask-valid": ("/mask", "文の本当の長さ", _text_after("文の本当の長さ", TABLE), (TITLE, NEXT_STEP)),
}


@pytest.mark.parametrize(("url", "label", "read_js", "outside"), FRAGMENT_SLIDERS.values(), ids=FRAGMENT_SLIDERS)
def test_a_try_it_slider_reruns_only_its_section(browser, base, url, label, read_js, outside):
    with new_page(browser, "felt-fragment") as page:
        page.goto(section_url(base, url, "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        page.wait_for_function(f"() => ({read_js})() !== null", timeout=20_000)
        before = page.evaluate(read_js)
        _watch(page, *outside)
        thumb = page.locator('[data-testid="stSlider"]').filter(has_text=label).locator('input[type="range"]').first
        thumb.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"(b) => ({read_js})() !== b", arg=before, timeout=20_000)
        wait_until_rendered(page)
        _untouched(page, *outside)


def test_generating_a_token_uses_the_choice_settings_of_the_fragment_above(browser, base):
    """⑦-4's 1 トークンずつ生成する is a fragment of its own: its button reads the settings that
    選び方を比べる (another fragment) holds at the time, here top-k with k lowered from 2 to 1."""
    with new_page(browser, "felt-generate") as page:
        page.goto(section_url(base, "/output", "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        caption = _caption("残った候補の元の確率の合計")
        page.wait_for_function(f"() => ({caption})() !== null", timeout=20_000)
        before = page.evaluate(caption)
        thumb = page.locator('[data-testid="stSlider"]').filter(has_text="top-k の k").locator('input[type="range"]')
        thumb.focus()
        page.keyboard.press("ArrowLeft")                                     # k: 2 → 1
        page.wait_for_function(f"(b) => ({caption})() !== b", arg=before, timeout=20_000)
        wait_until_rendered(page)
        page.get_by_role("button", name="1 トークン生成").click()
        step = page.locator('[data-testid="stExpander"]').filter(has_text="ステップ 1")
        expect(step).to_contain_text("候補に残ったトークン：", timeout=20_000)
        kept = step.inner_text().split("候補に残ったトークン：")[1].split("／")[0]
        assert "、" not in kept.strip(), f"top-1 kept more than one token: {kept!r}"


def test_a_new_clip_threshold_reaches_the_recurrence_fragment_inside(browser, base):
    """⓪'s 勾配の爆発と消失 is a fragment inside 勾配クリッピング's: a new c reruns both (the clipped
    length follows it), and a later step of a, which reruns the inner one alone, keeps that c."""
    clipped = f"() => ({METRIC_JS})('上のしきい値 c でクリップした長さ')"
    with new_page(browser, "felt-nested") as page:
        page.goto(section_url(base, "/seq2seq", "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        page.wait_for_function(f"() => ({clipped})() === '1.000'", timeout=20_000)   # a = 1.2, c = 1
        box = page.get_by_role("spinbutton", name="しきい値 c")
        box.fill("3")
        box.press("Enter")
        page.wait_for_function(f"() => ({clipped})() === '3.000'", timeout=20_000)
        wait_until_rendered(page)
        before = page.evaluate(f"() => ({METRIC_JS})('30 段さかのぼった勾配の長さ')")
        thumb = page.locator('[data-testid="stSlider"]').filter(has_text="再帰の変換の大きさ a").locator('input[type="range"]')
        thumb.focus()
        page.keyboard.press("ArrowRight")                                    # a: 1.2 → 1.3
        page.wait_for_function(f"(b) => ({METRIC_JS})('30 段さかのぼった勾配の長さ') !== b", arg=before,
                               timeout=20_000)
        wait_until_rendered(page)
        assert page.evaluate(clipped) == "3.000"


MARKDOWN_JS = """(text) => { const m = [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
  .find(e => e.innerText.startsWith(text)); return m ? m.innerText : null; }"""
# a cell edit in the lesson's first editor: (page, a JS reading what the edit changes, its argument)
CELL_EDITS = {
    "naive": ("/naive", METRIC_JS, "それ → 猫"),
    "formula": ("/formula", MARKDOWN_JS, "「それ」の出力"),
}


@pytest.mark.parametrize(("url", "read_js", "arg"), CELL_EDITS.values(), ids=CELL_EDITS)
def test_cell_edit_reruns_only_the_try_it_section(browser, base, url, read_js, arg):
    """試してみよう is a fragment: a cell edit reruns it alone; the page's title above and the
    section's 「次へ」 below stay."""
    with new_page(browser, "felt-cell") as page:
        page.goto(section_url(base, url, "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        page.wait_for_function(f"(a) => ({read_js})(a) !== null", arg=arg, timeout=20_000)
        before = page.evaluate(read_js, arg)
        outside = TITLE, NEXT_STEP
        _watch(page, *outside)
        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        box = grid.bounding_box()
        page.mouse.dblclick(box["x"] + box["width"] - 20, box["y"] + 37 + 35 * 2 + 35 / 2)  # それ, last column
        editor = page.locator("textarea.gdg-input")
        editor.wait_for(timeout=10_000)
        editor.fill("3")
        editor.press("Enter")
        page.wait_for_function(f"([a, b]) => ({read_js})(a) !== b", arg=[arg, before], timeout=20_000)
        wait_until_rendered(page)
        _untouched(page, *outside)


def test_opening_a_folded_step_draws_it_and_reruns_only_that_step(browser):
    """④: a closed step of the hand calculation sends no KaTeX; opening it draws Q's elements
    (a rerun of that expander alone: the quiz header outside stays untouched), closing and
    opening again shows the same working."""
    with streamlit_server() as base, new_page(browser, "felt-lazy") as page:
        page.goto(section_url(base, "/formula", "手計算"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        box = page.locator('[data-testid="stExpander"]').filter(has_text="（クエリ）").first
        assert box.locator(".katex-display").count() == 0  # folded: none of Q's working (only its title's maths)
        _watch(page, NEXT_STEP)
        box.locator("summary").click()
        page.wait_for_function("(el) => el.querySelectorAll('.katex-display').length >= 4", arg=box.element_handle(),
                               timeout=20_000)                # Q = XW_Q and one block per row of Q
        wait_until_rendered(page)
        assert "q_{11}" not in box.inner_text()               # rendered maths, not LaTeX source
        _untouched(page, NEXT_STEP)
        box.locator("summary").click()
        wait_until_rendered(page)
        box.locator("summary").click()
        page.wait_for_function("(el) => el.querySelectorAll('.katex-display').length >= 4", arg=box.element_handle(),
                               timeout=20_000)


def test_a_step_folded_during_an_edit_opens_with_the_new_numbers(browser):
    """①: the learner edits X in 試してみよう, then opens 手計算: S's working is still folded (it
    sent nothing), and opened it shows S for the edited X, not the old one."""
    with streamlit_server() as base, new_page(browser, "felt-lazy-edit") as page:
        page.goto(section_url(base, "/naive", "試してみよう"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        box = grid.bounding_box()
        page.mouse.dblclick(box["x"] + box["width"] - 20, box["y"] + 37 + 35 * 2 + 35 / 2)  # それ, 次元4
        editor = page.locator("textarea.gdg-input")
        editor.wait_for(timeout=10_000)
        editor.fill("3")                                         # それ = (1, 1, 0, 3): s_33 = 1 + 1 + 9 = 11
        before = page.evaluate(METRIC_JS, "それ → 猫")
        editor.press("Enter")
        page.wait_for_function(f"(b) => ({METRIC_JS})('それ → 猫') !== b", arg=before, timeout=20_000)
        wait_until_rendered(page)
        page.get_by_role("tab", name="手計算").click()
        wait_until_rendered(page)
        step = page.locator('[data-testid="stExpander"]').filter(has_text="の全要素").first
        expect(step).to_be_visible(timeout=20_000)
        assert step.locator(".katex-display").count() == 0      # still folded
        step.locator("summary").click()
        page.wait_for_function("(el) => el.querySelectorAll('.katex-display').length >= 3",
                               arg=step.element_handle(), timeout=20_000)
        wait_until_rendered(page)
        body = step.locator('[data-testid="stExpanderDetails"]').inner_text().replace(" ", "").replace("\n", "")
        assert "×3" in body      # a term of それ's new 3 (the old X held only 0 and 1): S of the edited X
