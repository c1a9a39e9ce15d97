"""The verdict of a quiz card in a real browser (Debian chromium, see tests/browserhelpers.py): after
an answer the four choices are text, the right one and the learner's marked with an icon and words
(ui.quiz.marked_choices), and every line of the card passes axe-core's colour-contrast rule
(WCAG AA, 4.5 : 1) in the light and the dark theme. A disabled radio, as the card drew the choices
before, fades them to about 2.6 : 1 (axe leaves disabled controls out, so it never said so)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

import quizzes
from ui import widgets
from browserhelpers import ROOT, link_to, new_page, quiz_url, shown_qids, wait_until_rendered  # noqa: F401

pytestmark = pytest.mark.browser
WAIT = 30_000
AXE = ROOT / ".ci" / "node" / "node_modules" / "axe-core" / "axe.min.js"
QID = re.compile(r"^[\w.]+#\d+$")

# axe's colour-contrast rule on one element: its violations, and the text nodes it could not judge
# (incomplete) or judged (passes), as short HTML snippets
CONTRAST_JS = """async (el) => {
  const r = await axe.run(el, {runOnly: {type: 'rule', values: ['color-contrast']}});
  const nodes = (list) => list.flatMap(v => v.nodes.map(n => n.html.slice(0, 160)
                                                    + (n.failureSummary ? ' :: ' + n.failureSummary.replace(/\\s+/g, ' ') : '')));
  return {violations: nodes(r.violations), incomplete: nodes(r.incomplete), passes: nodes(r.passes)};
}"""


def luminance(rgb: str) -> float:
    """WCAG relative luminance of a CSS "rgb(r, g, b)" (the app's own formula, ui.widgets.luminance)."""
    return widgets.luminance("#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", rgb)[:3]))


CHOICE_COLOURS_JS = """(el) => [...el.querySelectorAll('li')].map((li) => {
  let bg = 'rgba(0, 0, 0, 0)', opacity = 1;
  for (let n = li; n; n = n.parentElement) {
    const cs = getComputedStyle(n);
    opacity *= Number(cs.opacity);
    if (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent') bg = cs.backgroundColor;
  }
  return [getComputedStyle(li).color, bg, opacity];
})"""


def _first_card(page):
    """The first quiz card before its answer (the block holding its radio and its 「この問題へのリンク」)
    and its Question."""
    main = page.locator('[data-testid="stMain"]')
    expect(main.locator('a[href*="q="]').first).to_be_visible(timeout=WAIT)
    qids = [qid for qid in shown_qids(main) if QID.match(qid)]
    assert qids, shown_qids(main)
    q = quizzes.from_id(qids[0])
    link = link_to(main, qids[0]).first
    expect(link).to_be_visible(timeout=WAIT)
    card = link.locator('xpath=ancestor::div[@data-testid="stVerticalBlock"][.//div[@data-testid="stRadio"]][1]')
    return card, q


def _answered_card(page, key: str):
    """The card ``key`` after its answer: the block holding its verdict and its link."""
    return page.locator(f".st-key-at-result-{key}").locator(
        'xpath=ancestor::div[@data-testid="stVerticalBlock"][.//a[contains(@href, "?q=")]][1]')


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_answered_card_marks_the_choices_in_words_and_is_readable(base, browser, scheme):
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed ({AXE.relative_to(ROOT)}): run `bash .ci/install-browser`")
    with new_page(browser, f"quiz-verdict-{scheme}", color_scheme=scheme) as page:
        page.goto(quiz_url(base, "/naive"), wait_until="domcontentloaded")
        wait_until_rendered(page)
        card, q = _first_card(page)
        key = card.evaluate("el => [...el.querySelectorAll('[class*=\"st-key-quiz_naive_\"]')]"
                            ".map(e => [...e.classList].find(c => c.startsWith('st-key-quiz_naive_')))[0]")
        key = re.sub(r"^st-key-|__.*$", "", key)       # quiz_naive_<round>_<i>: the card's key
        wrong = (q.answer + 1) % 4
        card.scroll_into_view_if_needed()
        card.locator('[data-testid="stRadioGroup"] label').nth(wrong).click()
        card.get_by_role("button", name="回答する").click()
        verdict = page.locator(f".st-key-at-verdict-{key}")
        expect(verdict).to_contain_text("不正解です", timeout=WAIT)
        expect(verdict).to_be_visible(timeout=WAIT)      # shown once the answer is saved in the browser
        wait_until_rendered(page)
        # the choices, as a list of 4 lines: the right one and the learner's marked in words
        items = verdict.locator("li")
        expect(items).to_have_count(4)
        for i in range(4):
            expect(items.nth(i)).to_be_visible()
        texts = [items.nth(i).inner_text() for i in range(4)]
        assert [t[:2] for t in texts] == ["A.", "B.", "C.", "D."], texts
        assert "✓ 正解" in texts[q.answer] and "あなたの解答" not in texts[q.answer], texts
        assert "← あなたの解答" in texts[wrong] and "正解" not in texts[wrong], texts
        assert all("正解" not in t and "あなたの解答" not in t for i, t in enumerate(texts) if i not in (q.answer, wrong))
        assert page.locator(f'.st-key-at-result-{key} [data-testid="stRadio"]').count() == 0
        expect(verdict).to_contain_text("解説")
        expect(verdict).to_contain_text("あなたの選んだ選択肢")   # the mistake line stays
        # readable: no text of the card below WCAG AA's contrast, and each choice was judged
        page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')",
                               timeout=10_000)
        page.add_script_tag(path=str(AXE))
        result = _answered_card(page, key).evaluate(CONTRAST_JS)
        assert result["violations"] == [], result["violations"]
        # axe cannot always decide for KaTeX's glyphs (a choice that is a formula): those are
        # "incomplete", never a violation. So each choice's own colours are measured too: its text
        # colour against the first opaque background behind it, at the opacity it is drawn with
        for colour, background, opacity in _answered_card(page, key).evaluate(CHOICE_COLOURS_JS):
            assert opacity == 1, opacity                          # not faded (a disabled radio was)
            light, dark = sorted((luminance(colour), luminance(background)), reverse=True)
            assert (light + 0.05) / (dark + 0.05) >= 4.5, (colour, background)
