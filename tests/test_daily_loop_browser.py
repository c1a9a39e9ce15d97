"""The learner's daily loop in a real browser (Debian chromium, see tests/browserhelpers.py): two
promises that tests/test_review_page.py and tests/test_skill_cards.py check with AppTest only.

1. A miss comes back in 復習と進捗 as a fresh instance of its SKILL, not the printed item
   (practice.skill.draw): an item of the same skill, never the question id last shown, looking
   different (a calculation: new numbers, so another stem; a knowledge item: the same stem, its
   choices in another order) and with the right answer at another letter. A wrong answer puts the
   skill into today's review at once (practice.review: rated Again, a learning card belongs to the
   day of its last answer), so nothing needs to be edited to make the card due.
2. The page's ✓ can be earned on the page itself: answering right in 確認クイズ, with 「もう 1 問」
   for more cards, counts 「あと N 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）」 down (practice.progress.to_master) to
   「このページは習得済みです（✓）」, and the sidebar and the home page show ✓ for the page.

Which question a card shows: a page card links to it (``?q=<generator>#<seed>``, ui.quiz);
the review card prints none (link=False), but its widgets are keyed ``review_<round>_<id>__…``
and Streamlit puts that key, each character outside [a-zA-Z0-9_-] as "-", in a ``st-key-…``
class. quizzes.from_id rebuilds the question, its answer included; the stored attempt of the
review answer names the id the server used, so the id read from the class is checked there too.
"""
from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

import quizzes
from practice import skill
from practice.progress import MASTERY_WINDOW
from quizzes.core import GENERATOR_INFO, TOPICS
from ui.nav import PAGES
from ui.storage import STORE_KEY
from browserhelpers import assert_healthy, link_to, new_page, open_url, quiz_url, shown_qids, wait_until_rendered

pytestmark = pytest.mark.browser
WAIT = 30_000
QID = re.compile(r"^[\w.]+#\d+$")
TOPIC = "naive"
LABEL = TOPICS[TOPIC]                     # the page's label in the sidebar and on the home page
# the items missed on the page: one calculation, one knowledge item (fixed ids: the test reads the same
# item every run; what the review draws is random, secrets.randbits in pages/21_review.py)
MISSED = {"calc": "naive.score_element#5", "knowledge": "kb.naive.k02#7"}
# the block of one question card: the nearest one holding its head 「問」/「問1」 (ui.quiz.question_card)
CARD = ('xpath=ancestor::div[@data-testid="stVerticalBlock"]'
        '[.//div[@data-testid="stMarkdownContainer"]/p/strong[starts-with(normalize-space(.), "問")]][1]')


# a quiz card's 「この問題へのリンク」 (ui.quiz.question_card): one per card on the page
CARD_LINK = '[data-testid="stMain"] a[href^="?q="]:text-is("この問題へのリンク")'


def stored(page) -> dict:
    text = page.evaluate(f"() => window.localStorage.getItem({json.dumps(STORE_KEY)})")
    assert text is not None, "nothing is stored in this browser"
    return json.loads(text)


def wait_stored_attempts(page, n: int) -> None:
    page.wait_for_function(
        f"""() => {{ const t = window.localStorage.getItem({json.dumps(STORE_KEY)});
                   return t !== null && JSON.parse(t).attempts.length === {n}; }}""", timeout=WAIT)


def page_card(page, qid: str):
    """The card of a learning page's quiz that shows ``qid`` (its 「この問題へのリンク」)."""
    link = link_to(page.locator('[data-testid="stMain"]'), qid)
    expect(link).to_have_count(1, timeout=WAIT)
    return link.locator(CARD)


def page_card_ids(page) -> list[str]:
    """The ids the page's quiz cards show, in order."""
    return [q for q in shown_qids(page.locator('[data-testid="stMain"]')) if QID.match(q)]


def stem_text(card) -> str:
    """The stem as the browser renders it: the card's second Markdown block (after 「問（…）」)."""
    return card.locator('[data-testid="stMarkdownContainer"]').nth(1).inner_text().strip()


def choice_texts(card) -> list[str]:
    """The four radio options as shown, without their letter ("A. 6" → "6")."""
    labels = card.locator('[data-testid="stRadioGroup"] label')
    expect(labels).to_have_count(4, timeout=WAIT)
    texts = [t.strip() for t in labels.all_inner_texts()]
    assert [t[:2] for t in texts] == ["A.", "B.", "C.", "D."], texts
    return [t[2:].strip() for t in texts]


def answer(page, card, choice: int) -> None:
    """Choose ``choice`` (0–3) in ``card`` and press its 回答する."""
    card.scroll_into_view_if_needed()
    card.locator('[data-testid="stRadioGroup"] label').nth(choice).click()
    button = card.get_by_role("button", name="回答する")
    expect(button).to_be_enabled(timeout=WAIT)
    button.click()


def _css_key(text: str) -> str:
    """How Streamlit turns a widget key into its st-key-… class."""
    return re.sub(r"[^a-zA-Z0-9_-]", "-", text.strip())


def review_qid(page) -> str:
    """The id of the question on 今日の復習, from its radio's st-key-review_<round>_<id>__choice class."""
    radio = page.locator('[data-testid="stMain"] [class*="st-key-review_"][class*="__choice"]')
    expect(radio).to_have_count(1, timeout=WAIT)
    css = next(c for c in radio.get_attribute("class").split() if c.startswith("st-key-review_"))
    m = re.fullmatch(r"st-key-review_\d+_(.+)-(\d+)__choice", css)
    assert m, css
    gens = [g for g in GENERATOR_INFO if _css_key(g) == m.group(1)]
    assert len(gens) == 1, (css, gens)
    return f"{gens[0]}#{m.group(2)}"


def review_card(page):
    """The one question card of 今日の復習 (before and after its answer)."""
    head = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"] p > strong').filter(
        has_text=re.compile(r"^問$"))
    expect(head).to_have_count(1, timeout=WAIT)
    return head.locator(CARD)


# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["calc", "knowledge"])
def test_a_missed_question_comes_back_in_review_as_a_fresh_instance_of_its_skill(base, browser, kind):
    missed = quizzes.from_id(MISSED[kind])
    assert missed.kind == kind and missed.topic == TOPIC
    gid = missed.id.partition("#")[0]
    # draw takes the first of its DRAW_TRIES candidates that looks different AND has its answer at
    # another letter, and only falls back (a question with few forms) when none does. For this
    # item most seeds do, so the fallback has a chance below 2**-DRAW_TRIES: the promise holds here.
    others = [quizzes.from_id(f"{gid}#{s}") for s in range(1000, 1200)]
    assert sum(q.answer != missed.answer and (q.stem, q.choices) != (missed.stem, missed.choices)
               for q in others) >= len(others) / 2
    alone = skill.instances(gid) == (gid,)      # no sibling of the fact in the bank: the same item comes back
    wrong = (missed.answer + 1) % 4
    with new_page(browser, f"daily-loop-review-{kind}") as page:
        # 1. on the page, opened at this exact item (?q=), the learner picks a wrong choice
        open_url(page, f"{base}/naive?q={quote(missed.id, safe='')}")
        card = page_card(page, missed.id)
        first_stem, first_choices = stem_text(card), choice_texts(card)
        assert first_choices[missed.answer] and first_choices.count(first_choices[missed.answer]) == 1
        answer(page, card, wrong)
        expect(card).to_contain_text("不正解です", timeout=WAIT)
        wait_stored_attempts(page, 1)
        record = stored(page)
        assert [a["qid"] for a in record["attempts"]] == [missed.id]
        assert set(record["review"]) == {skill.key(missed.id)}     # one card, keyed by the skill

        # 2. 復習と進捗: the skill is due today, shown as another instance of it
        open_url(page, base + "/review")
        assert_healthy(page)
        expect(page.locator('[data-testid="stMetric"]').filter(has_text="今日が期限の問題")
               .locator('[data-testid="stMetricValue"]')).to_have_text("1 問", timeout=WAIT)
        qid = review_qid(page)
        shown = quizzes.from_id(qid)
        card = review_card(page)
        stem, choices = stem_text(card), choice_texts(card)
        assert skill.key(qid) == skill.key(missed.id), (qid, missed.id)          # the same skill
        assert qid != missed.id                                                   # … not the printed item
        assert (stem, choices) != (first_stem, first_choices)                     # … nor one looking like it
        if alone:                                   # (a sibling, if the bank had one, would be another item)
            assert qid.partition("#")[0] == gid, qid
        else:
            assert qid.partition("#")[0] != gid, qid
        if kind == "calc":
            assert stem != first_stem, stem                                      # new numbers
        elif alone:
            assert stem == first_stem, (stem, first_stem)                        # one item: the same question …
            assert sorted(choices) == sorted(first_choices), (choices, first_choices)   # … its choices reordered
        # the right answer at another letter than the missed item's
        assert shown.answer != missed.answer, (qid, shown.answer, missed.answer)
        if kind == "knowledge" and alone:       # … as the browser shows it: the right choice has moved
            assert choices.index(first_choices[missed.answer]) == shown.answer, (choices, first_choices)

        # 3. the review answer rates the same card; the stored attempt names the question shown
        answer(page, card, shown.answer)
        expect(card).to_contain_text("正解です", timeout=WAIT)
        expect(card).not_to_contain_text("不正解です")
        wait_stored_attempts(page, 2)
        record = stored(page)
        last = record["attempts"][-1]
        assert (last["qid"], last["source"], last["correct"]) == (qid, "review", True)
        assert set(record["review"]) == {skill.key(missed.id)}
        assert_healthy(page)


# ---------------------------------------------------------------------------
def _mastery_line(page):
    return page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"] p').filter(
        has_text=re.compile(r"^(あと \d+ 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）|このページは習得済みです（✓）)"))


def _sidebar_link(page):
    return page.locator('[data-testid="stSidebar"] a').filter(has_text=LABEL)


def test_the_pages_check_mark_is_earned_on_the_page_with_the_countdown(base, browser):
    n_learning = sum(1 for p in PAGES if p.section == "学習" and p.exists)
    with new_page(browser, "daily-loop-mastery") as page:
        open_url(page, quiz_url(base, "/naive"))
        assert_healthy(page)
        line = _mastery_line(page)
        expect(line).to_have_text(f"あと {MASTERY_WINDOW} 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）", timeout=WAIT)
        expect(_sidebar_link(page)).to_have_text(LABEL, timeout=WAIT)        # no ✓ yet
        ids = page_card_ids(page)
        assert len(ids) == 3, ids
        for i in range(1, MASTERY_WINDOW + 1):
            if i > len(ids):                    # every card answered: 「もう 1 問」 adds one
                page.get_by_role("button", name="もう 1 問").click()
                expect(page.locator(CARD_LINK)).to_have_count(i, timeout=WAIT)
                ids = page_card_ids(page)
                assert len(ids) == i and len(set(ids)) == i, ids
            qid = ids[i - 1]
            question = quizzes.from_id(qid)
            assert question.topic == TOPIC, qid
            if i == MASTERY_WINDOW:             # one right answer to go: the sidebar has no ✓ yet
                expect(_sidebar_link(page)).to_have_text(LABEL)
            card = page_card(page, qid)
            answer(page, card, question.answer)
            expect(card).to_contain_text("正解です", timeout=WAIT)
            expect(card).not_to_contain_text("不正解です")
            wait_stored_attempts(page, i)
            left = MASTERY_WINDOW - i
            if left:
                more = "。「もう 1 問」で続けられます。" if i >= len(ids) else ""
                expect(line).to_have_text(f"あと {left} 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）{more}", timeout=WAIT)
            else:
                expect(line).to_have_text("このページは習得済みです（✓）", timeout=WAIT)
        wait_until_rendered(page)
        expect(_sidebar_link(page)).to_have_text(f"{LABEL} ✓", timeout=WAIT)  # the app reran: ✓ at once
        record = stored(page)
        assert [a["correct"] for a in record["attempts"]] == [True] * MASTERY_WINDOW
        assert [a["qid"] for a in record["attempts"]] == ids[:MASTERY_WINDOW]
        assert_healthy(page)

        # the home page (a new session, from the stored record): ✓ in the sidebar and on the path
        open_url(page, base + "/")
        expect(_sidebar_link(page)).to_have_text(f"{LABEL} ✓", timeout=WAIT)
        expect(page.locator('[data-testid="stMetric"]').filter(has_text="習得したページ")
               .locator('[data-testid="stMetricValue"]')).to_have_text(f"1 / {n_learning}", timeout=WAIT)
        status = page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').filter(
            has_text=f"{MASTERY_WINDOW}/{MASTERY_WINDOW} 問正解")
        expect(status).to_have_count(1, timeout=WAIT)
        expect(status).to_contain_text("・習得 ✓")
        # … in the row of this page
        row = status.locator('xpath=ancestor::div[@data-testid="stHorizontalBlock"][1]')
        expect(row.locator("a")).to_have_text(LABEL)
        assert_healthy(page)
