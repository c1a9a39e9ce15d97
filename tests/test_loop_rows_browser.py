"""Rows of issue 35's daily loop in a real browser (Debian chromium, see tests/browserhelpers.py),
each written as a learner meets it:

1. A reading-skill misconception (kind "form": 「正しい記述を誤りと判断」, picking a TRUE statement on
   a 「不適切なものを1つ選べ」 item) is re-learnt by practising that question form, not on a page
   (practice.profile.relearn, ui.profile.links): the profile on home and on /drill says so and links
   to /drill?m=<id>, and that link drills items of that form from several pages.
2. No item twice inside one つまずき練習 set: 5 different question ids, and for knowledge items 5
   different facts (practice.skill.key: an item's fact is its skill; siblings of one fact share it).
3. Abandoned mock exams do not flood the review: a paper dropped with 「この試験をやめる（採点しない）」
   records nothing; a submitted paper puts only its WRONG answers into the review, never the
   unanswered questions (practice.exam.record_exam); today's review holds at most the daily limit
   (設定「1 日の復習の上限」, default 30), and home shows today's count and the time it takes.
4. The mock exam reads like the real one: the start screen says it is only the Attention /
   Transformer part of G検定, no question shows its topic during the exam, the results list the
   topic of every question.

Which question a card shows: a drill card links to it on its page (``{topic} の問題`` → ``?q=<id>``, ui.profile);
the exam paper's ids are in the stored record (``exam_in_progress.qids``), as the server made them.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from datetime import datetime
from urllib.parse import quote
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

import quizzes
from practice import skill
from practice.drill import DRILL_SIZE, generators_for
from practice.exam import LENGTHS, exam_pool, planned_mix, pool_topics
from practice.plan import REVIEW_PACE_S, review_minutes
from practice.progress import apply_answers, new_progress
from practice.review import DEFAULT_DAILY_LIMIT
from practice.scope import in_scope, practised_review
from practice.store import dumps
from quizzes.core import GENERATOR_INFO, TOPICS
from quizzes.misconceptions import catalogue, choice_ids, question_form, question_ids
from ui.nav import PAGE_BY_KEY
from ui.storage import STORE_KEY
from browserhelpers import assert_healthy, link_to, new_page, open_url, shown_qids, wait_until_rendered

pytestmark = pytest.mark.browser
WAIT = 30_000
KEY = json.dumps(STORE_KEY)
QID = re.compile(r"^[\w.]+#\d+$")
ZONE = "Asia/Tokyo"               # the learner's zone (the browser's; seeded answers are given there)
FORM_MID = "true_statement_judged_false"     # 「正しい記述を誤りと判断」: the catalogue's one "form" entry
FORM_ITEM = "kb.mask.k04#7"       # a 不適切 knowledge item on ⑥ 因果マスク; three of its choices are true statements
PRACTICE = "『不適切なもの』を選ぶ問題"       # what practising that form is called (quizzes.misconceptions.QUESTION_FORMS)
SEEDED = ("naive.score_element#5", "kb.naive.k02#7")   # two misses a learner brings to the mock exam
# the block of one question card: the nearest one holding its head 「問」/「問1」 (ui.quiz.question_card)
CARD = ('xpath=ancestor::div[@data-testid="stVerticalBlock"]'
        '[.//div[@data-testid="stMarkdownContainer"]/p/strong[starts-with(normalize-space(.), "問")]][1]')
CIRCLED = "⓪①②③④⑤⑥⑦⑧⑨⑩⑪"        # the page numbers of the learning path (TOPICS labels start with one)


def main(page):
    return page.locator('[data-testid="stMain"]')


def stored(page) -> dict:
    text = page.evaluate(f"() => window.localStorage.getItem({KEY})")
    assert text is not None, "nothing is stored in this browser"
    return json.loads(text)


def wait_stored(page, condition: str) -> None:
    """Wait until the stored record ``r`` satisfies the JavaScript expression ``condition``."""
    page.wait_for_function(f"() => {{ const t = window.localStorage.getItem({KEY});"
                           f" if (t === null) return false; const r = JSON.parse(t); return {condition}; }}",
                           timeout=WAIT)


def misses(qids) -> dict:
    """A record of a learner who answered each of ``qids`` wrong on its page just now (in ZONE)."""
    answers = []
    for qid in qids:
        q = quizzes.from_id(qid)
        answers.append((q.id, q.topic, False, (q.answer + 1) % 4))
    return apply_answers(new_progress(), answers, "page", datetime.now(ZoneInfo(ZONE)))


def seed(page, base: str, progress: dict) -> None:
    """Put ``progress`` into this browser's storage, as if the learner had studied here before (the
    app's own first write is waited for, so it cannot land on top of the seeded record)."""
    open_url(page, base + "/review")
    wait_stored(page, "true")
    page.evaluate("([k, v]) => window.localStorage.setItem(k, v)", [STORE_KEY, dumps(progress)])


def metric(page, label: str):
    return (page.locator('[data-testid="stMetric"]').filter(has_text=label)
            .locator('[data-testid="stMetricValue"]'))


def card_of(page, qid: str):
    """The question card linking to ``qid`` (a learning page's quiz, or a drill card)."""
    link = link_to(main(page), qid)
    expect(link).to_have_count(1, timeout=WAIT)
    return link.locator(CARD)


def stem_text(card) -> str:
    """The stem as the browser renders it: the card's second Markdown block (after 「問（…）」)."""
    return card.locator('[data-testid="stMarkdownContainer"]').nth(1).inner_text().strip()


def answer(card, choice: int) -> None:
    card.scroll_into_view_if_needed()
    card.locator('[data-testid="stRadioGroup"] label').nth(choice).click()
    button = card.get_by_role("button", name="回答する")
    expect(button).to_be_enabled(timeout=WAIT)
    button.click()


def drill_cards(page, rnd: int) -> list[tuple[str, str, str]]:
    """The cards of つまずき練習 set ``rnd`` (its widgets are keyed drill_<rnd>_<i>): per card, the id
    it links to, its stem and the page it names (「⑥ 因果マスク の問題」, a link to it there), in order."""
    expect(page.locator(f'[class*="st-key-drill_{rnd}_1__"]').first).to_be_attached(timeout=WAIT)
    wait_until_rendered(page)
    ids = [q for q in shown_qids(main(page)) if QID.match(q)]
    out = []
    for qid in ids:
        card = card_of(page, qid)
        caption = card.locator('[data-testid="stCaptionContainer"]').filter(has_text="の問題").inner_text()
        m = re.match(r"\s*(.+?) の問題\s*$", caption)
        assert m, caption
        out.append((qid, stem_text(card), m.group(1)))
    return out


def profile_row(page):
    """The first row of あなたのつまずき (ui.profile.profile_section: container profile_row_1)."""
    row = page.locator(".st-key-profile_row_1")
    expect(row).to_be_visible(timeout=WAIT)
    return row


# ---------------------------------------------------------------------------
# 1. a reading-skill misconception → practice of that question form
# ---------------------------------------------------------------------------
def check_form_row(row) -> None:
    name = catalogue()[FORM_MID].name
    expect(row).to_contain_text(re.compile(rf"1\. {re.escape(name)}\s*1 回・最後は"), timeout=WAIT)
    expect(row).to_contain_text(f"学び直す場所：ページではなく、問題の読み方です。{PRACTICE}を、"
                                "いろいろなページから集めて練習します。")
    text = row.inner_text()
    assert not [label for label in TOPICS.values() if label in text], text      # no page is named …
    links = row.locator("a")
    expect(links).to_have_count(1)                                               # … nor linked
    expect(links).to_have_text(re.compile(rf"{re.escape(PRACTICE)}を練習する$"))
    expect(links).to_have_attribute("href", re.compile(rf"(^|/)drill\?m={FORM_MID}$"))


def test_a_reading_skill_misconception_points_to_practice_of_its_question_form(base, browser):
    m = catalogue()[FORM_MID]
    assert (m.kind, m.page, m.name) == ("form", None, "正しい記述を誤りと判断")
    item = quizzes.from_id(FORM_ITEM)
    assert item.kind == "knowledge" and question_form(item) == "worst"
    wrong = choice_ids(item).index(FORM_MID)       # a true statement, taken for the wrong one
    pool_topics = {GENERATOR_INFO[g].topic for g in generators_for(FORM_MID)}
    assert len(pool_topics) >= DRILL_SIZE           # enough pages for a set drawn one page after another
    with new_page(browser, "loop-form-misconception") as page:
        # on ⑥ 因果マスク, opened at the 不適切 item, the learner picks a true statement
        open_url(page, f"{base}{PAGE_BY_KEY[item.topic].url}?q={quote(FORM_ITEM, safe='')}")
        card = card_of(page, FORM_ITEM)
        expect(card).to_contain_text("不適切なものを1つ選べ")
        answer(card, wrong)
        expect(card).to_contain_text("不正解です", timeout=WAIT)
        expect(card).to_contain_text("あなたの選んだ選択肢は誤りではありません")
        wait_stored(page, "r.attempts.length === 1")

        # home: the profile names the question form as the place to re-learn, with one link to /drill
        open_url(page, base + "/")
        assert_healthy(page)
        row = profile_row(page)
        check_form_row(row)
        row.locator("a").click()

        # /drill?m=<id>: the same profile row, and a set of that form from several pages
        page.wait_for_url(re.compile(rf"/drill\?m={FORM_MID}$"), timeout=WAIT)
        expect(main(page)).to_contain_text(f"練習：{PRACTICE}", timeout=WAIT)
        expect(main(page)).to_contain_text(f"どれも{PRACTICE}です（いろいろなページから集めています）")
        cards = drill_cards(page, 1)
        check_form_row(profile_row(page))
        assert len(cards) == DRILL_SIZE, cards
        for qid, stem, label in cards:
            q = quizzes.from_id(qid)
            assert question_form(q) == "worst", qid
            assert "不適切なものを1つ選べ" in stem, (qid, stem)       # as the learner reads it
            assert label == TOPICS[q.topic], (qid, label)
        labels = [label for _, _, label in cards]
        assert len(set(labels)) == DRILL_SIZE, labels                # five pages, not one page's items
        assert_healthy(page)


# ---------------------------------------------------------------------------
# 2. no repeated item inside one drill set
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("mid", ["scaling_purpose", "softmax_skipped"])
def test_a_drill_set_never_shows_one_item_twice(base, browser, mid):
    """scaling_purpose: exactly 5 knowledge items can show it (a set must use each once);
    softmax_skipped: 16 items, calculation and knowledge mixed. Three sets each (「同じつまずきで新しい問題」)."""
    gens = generators_for(mid)
    assert len({skill.key(g) for g in gens}) >= DRILL_SIZE, gens     # enough different items for a set
    with new_page(browser, f"loop-drill-no-repeat-{mid}") as page:
        open_url(page, f"{base}/drill?m={mid}")
        expect(main(page)).to_contain_text(f"練習：{catalogue()[mid].name}", timeout=WAIT)
        for rnd in (1, 2, 3):
            if rnd > 1:
                main(page).get_by_role("button", name="同じつまずきで新しい問題").click()
            cards = drill_cards(page, rnd)
            ids = [qid for qid, _, _ in cards]
            assert len(ids) == DRILL_SIZE, ids
            assert len(set(ids)) == DRILL_SIZE, ids                       # five question ids
            know = [skill.key(qid) for qid in ids if quizzes.from_id(qid).kind == "knowledge"]
            assert len(set(know)) == len(know), ids                        # no knowledge fact twice
            stems = [stem for _, stem, _ in cards]
            assert len(set(stems)) == DRILL_SIZE, stems                    # five different questions on screen
            for qid in ids:
                assert mid in question_ids(quizzes.from_id(qid)), qid      # each one aimed at the misconception
            if mid == "scaling_purpose":
                assert sorted(skill.key(qid) for qid in ids) == sorted(skill.key(g) for g in gens)
        expect(main(page)).not_to_contain_text("種類なので、同じ問題をくり返さないよう")
        assert_healthy(page)


# ---------------------------------------------------------------------------
# 3. abandoned mock exams do not flood the review
# ---------------------------------------------------------------------------
def start_paper(page, base: str) -> dict:
    """On /exam: 試験を始める (10 questions), and the paper the server made (its stored state)."""
    open_url(page, base + "/exam")
    page.get_by_role("button", name="試験を始める").click()
    expect(page.locator('[data-testid="stProgress"]')).to_contain_text("残り時間", timeout=WAIT)
    wait_stored(page, "r.exam_in_progress !== null")
    paper = stored(page)["exam_in_progress"]
    assert len(paper["qids"]) == LENGTHS[0], paper
    return paper


def answer_first_wrong(page, paper: dict) -> int:
    """Choose a wrong choice for 問1 (force: the clock fragment redraws every second)."""
    wrong = (quizzes.from_id(paper["qids"][0]).answer + 1) % 4
    page.locator(f'.st-key-exam_{paper["run"]}_q0 [data-testid="stRadioGroup"] label').nth(wrong).click(force=True)
    expect(main(page)).to_contain_text(f"回答済み 1 / {len(paper['qids'])} 問", timeout=WAIT)
    wait_stored(page, f"r.exam_in_progress !== null && r.exam_in_progress.answers[0] === {wrong}")
    return wrong


def due_on_review(page, base: str, n: int) -> None:
    open_url(page, base + "/review")
    assert_healthy(page)
    expect(metric(page, "今日が期限の問題")).to_have_text(f"{n} 問", timeout=WAIT)
    expect(metric(page, "復習予定の全体")).to_have_text(f"{n} 問", timeout=WAIT)
    expect(main(page)).to_contain_text(f"今日の分 {n} 問（期限が来ている {n} 問のうち）")


def test_a_dropped_mock_exam_records_nothing(base, browser):
    seeded = misses(SEEDED)
    n_due = len(seeded["review"])
    assert n_due == 2
    with new_page(browser, "loop-exam-dropped", timezone_id=ZONE) as page:
        seed(page, base, seeded)
        due_on_review(page, base, n_due)
        paper = start_paper(page, base)
        answer_first_wrong(page, paper)
        page.get_by_role("button", name="この試験をやめる（採点しない）", exact=True).click()
        expect(main(page)).to_contain_text("この試験をやめると、採点はせず、ここまでの解答も捨てます"
                                           "（試験の記録にも復習の予定にも入りません）。", timeout=WAIT)
        page.get_by_role("button", name="やめる（採点しない）", exact=True).click()
        expect(main(page)).to_contain_text("模擬試験をやめました。採点はせず、解答も記録も残していません。",
                                           timeout=WAIT)
        expect(page.get_by_role("button", name="試験を始める")).to_be_visible(timeout=WAIT)
        wait_stored(page, "r.exam_in_progress === null")
        record = stored(page)
        assert record["attempts"] == seeded["attempts"]     # the answer given was thrown away
        assert record["exams"] == []
        assert record["review"] == seeded["review"]
        due_on_review(page, base, n_due)                      # today's review did not grow
        open_url(page, base + "/")
        expect(main(page)).to_contain_text("まだ模擬試験を受けていません。", timeout=WAIT)


def test_a_submitted_paper_sends_only_its_wrong_answers_to_the_review(base, browser):
    seeded = misses(SEEDED)
    n_due = len(seeded["review"])
    with new_page(browser, "loop-exam-unanswered", timezone_id=ZONE) as page:
        seed(page, base, seeded)
        due_on_review(page, base, n_due)
        paper = start_paper(page, base)
        n = len(paper["qids"])
        wrong = answer_first_wrong(page, paper)
        page.get_by_role("button", name="提出する").click()
        unanswered = "、".join(f"問{j}" for j in range(2, n + 1))
        expect(main(page)).to_contain_text(f"未回答：{unanswered}（未回答は不正解として数えます。復習の予定には入りません）",
                                           timeout=WAIT)
        page.get_by_role("button", name="提出を確定する").click()
        expect(main(page)).to_contain_text("トピック別の正答率", timeout=WAIT)
        expect(metric(page, "得点")).to_have_text(f"0 / {n}", timeout=WAIT)
        expect(main(page)).to_contain_text(f"間違えた 1 問は復習の予定に入りました。未回答の {n - 1} 問は"
                                           "復習の予定に入れていません（解説は下の振り返りで読めます）。")
        summaries = page.locator('[data-testid="stExpander"] summary')
        expect(summaries).to_have_count(n, timeout=WAIT)
        texts = summaries.all_inner_texts()
        assert "× 不正解" in texts[0] and all("− 未回答" in t for t in texts[1:]), texts

        wait_stored(page, "r.exams.length === 1")            # (the paper's answers are written with it)
        record = stored(page)
        assert len(record["attempts"]) == len(seeded["attempts"]) + 1, record["attempts"]   # the one answer given
        last = record["attempts"][-1]
        assert (last["qid"], last["choice"], last["correct"], last["source"]) == \
            (paper["qids"][0], wrong, False, "exam")
        assert (record["exams"][0]["total"], record["exams"][0]["score"]) == (n, 0)
        expected = set(seeded["review"]) | {skill.key(paper["qids"][0])}
        assert set(record["review"]) == expected                       # the wrong answer, nothing unanswered
        assert not {skill.key(q) for q in paper["qids"][1:]} & (set(record["review"]) - set(seeded["review"]))
        due_on_review(page, base, len(expected))                      # grew by the one wrong answer, not by 10
        open_url(page, base + "/")
        expect(main(page).get_by_role("link", name=re.compile("今日の復習"))).to_have_text(
            re.compile(rf"今日の復習 {len(expected)} 問（約 {review_minutes(len(expected))} 分）$"), timeout=WAIT)


def test_todays_review_holds_at_most_the_daily_limit(base, browser):
    limit = DEFAULT_DAILY_LIMIT
    assert limit == 30
    due = limit + 5
    # knowledge items within the exam's scope: a new learner's review leaves 発展 skills out
    # (settings["advanced"] is off by default; practice.scope.practised_review)
    gens = sorted(g for g, info in GENERATOR_INFO.items() if info.kind == "knowledge" and in_scope(g))
    pile = []
    for g in gens:                                         # one question each of `due` different skills
        if skill.key(g) not in {skill.key(q) for q in pile}:
            pile.append(f"{g}#1")
        if len(pile) == due:
            break
    seeded = misses(pile)
    assert len(seeded["review"]) == due
    assert len(practised_review(seeded)) == due           # every one of them is due on /review today
    with new_page(browser, "loop-review-limit", timezone_id=ZONE) as page:
        seed(page, base, seeded)
        open_url(page, base + "/review")
        assert_healthy(page)
        expect(metric(page, "今日が期限の問題")).to_have_text(f"{due} 問", timeout=WAIT)
        expect(main(page)).to_contain_text(f"今日の分 {limit} 問（期限が来ている {due} 問のうち）")
        expect(main(page)).to_contain_text(f"1 日の上限は {limit} 問です。期限を過ぎてから長い問題ほど忘れやすいので"
                                           "先に出し、残りは明日からの分に回します。")
        expect(main(page)).to_contain_text(f"この回 あと {limit} 問")
        expect(main(page)).to_contain_text(f"今日の復習に出すのは 1 日 {limit} 問まで"
                                           f"（1 問 {REVIEW_PACE_S} 秒として約 {review_minutes(limit)} 分）。")

        open_url(page, base + "/")
        assert_healthy(page)
        link = main(page).get_by_role("link", name=re.compile("今日の復習"))
        expect(link).to_have_text(re.compile(rf"今日の復習 {limit} 問（約 {review_minutes(limit)} 分）$"), timeout=WAIT)
        assert review_minutes(limit) == 20                    # 30 questions at 40 s
        expect(main(page)).to_contain_text(f"1 問 {REVIEW_PACE_S} 秒として見積もっています。期限が来ているのは {due} 問で、"
                                           f"1 日の上限（{limit} 問）を超えた {due - limit} 問は明日からの分に回ります。")


# ---------------------------------------------------------------------------
# 4. the mock exam reads like the real one
# ---------------------------------------------------------------------------
def start_long_paper(page, base: str, n: int) -> dict:
    open_url(page, base + "/exam")
    page.locator('[data-testid="stRadio"]').filter(has_text="問題数").get_by_text(f"{n} 問", exact=True).click()
    n_calc, n_know = planned_mix(n)
    expect(main(page)).to_contain_text(f"知識問題 {n_know} 問、計算問題 {n_calc} 問", timeout=WAIT)
    page.get_by_role("button", name="試験を始める").click()
    expect(page.locator('[data-testid="stProgress"]')).to_contain_text("残り時間", timeout=WAIT)
    wait_stored(page, "r.exam_in_progress !== null")
    paper = stored(page)["exam_in_progress"]
    assert len(paper["qids"]) == n, paper
    return paper


def submit_blank(page, n: int) -> list[str]:
    """提出する → 提出を確定する; the results' one line per question of the ``n`` (「問1　− 未回答　⑥ 因果マスク」),
    once all of them are drawn."""
    page.get_by_role("button", name="提出する").click()
    page.get_by_role("button", name="提出を確定する").click()
    expect(main(page)).to_contain_text("1 問ずつの振り返り", timeout=WAIT)
    summaries = page.locator('[data-testid="stExpander"] summary')
    expect(summaries).to_have_count(n, timeout=WAIT)
    return [" ".join(t.split()) for t in summaries.all_inner_texts()]


def next_question(page, head, number: int, n: int) -> None:
    """次へ, until question ``number`` shows. The clock redraws every second, and on a loaded machine
    a click can land while the page is between two runs and be lost; a learner clicks again, and so
    does this (only while the previous question still shows, so no question is skipped). Until the run
    that drew this question is over, the button pressed for the previous one can still be on the page
    (drawn pressed: aria-busy, ui/page.js); the new one is the one to press."""
    for _ in range(3):
        page.get_by_role("button", name="次へ").and_(page.locator(":not([aria-busy])")).click(force=True)
        try:
            expect(head).to_contain_text(f"問{number} / {n}", timeout=WAIT // 3)
            return
        except AssertionError:
            if f"問{number - 1} / {n}" not in head.inner_text():
                raise
    expect(head).to_contain_text(f"問{number} / {n}", timeout=WAIT)


def check_topic_shares(questions, n: int) -> None:
    """The paper as practice.exam._spread promises it (default settings: no 発展): calculation and
    knowledge questions from their pools, and each topic's knowledge questions n_know × its share of
    the knowledge pool, rounded down or up (a small page may get none on a short paper)."""
    calc, know = exam_pool()
    n_calc, n_know = planned_mix(n)
    assert sorted(q.kind for q in questions) == sorted(["calc"] * n_calc + ["knowledge"] * n_know)
    gids = [q.id.split("#")[0] for q in questions]
    assert all(g in (calc if q.kind == "calc" else know) for g, q in zip(gids, questions)), gids
    assert len(set(gids)) == len(gids), gids                  # no item twice in one paper
    drawn = Counter(q.topic for q in questions if q.kind == "knowledge")
    pool = Counter(GENERATOR_INFO[g].topic for g in know)
    for topic, size in pool.items():
        share = n_know * size / len(know)
        assert math.floor(share) <= drawn[topic] <= math.ceil(share), (topic, drawn[topic], share)
    assert set(drawn) <= set(pool), drawn


def test_the_mock_exam_hides_topics_until_the_results(base, browser):
    n = LENGTHS[1]                     # 20: knowledge items from the pages in proportion to the syllabus map
    with new_page(browser, "loop-exam-real") as page:
        open_url(page, base + "/exam")
        body = main(page)
        expect(body).to_contain_text("出題は G検定の範囲のうち、このチューターが扱う Attention と Transformer のまわり",
                                     timeout=WAIT)
        expect(body).to_contain_text("本番は AI の歴史、機械学習の手法、法律・倫理などもっと広い範囲から出るので、"
                                     "これは本番の一部の練習です。")
        paper = start_long_paper(page, base, n)
        questions = [quizzes.from_id(q) for q in paper["qids"]]
        head = body.locator('[data-testid="stMarkdownContainer"] p').filter(
            has=page.locator("strong", has_text=re.compile(r"^問\d+$")))
        for i, q in enumerate(questions):
            kind = "計算問題" if q.kind == "calc" else "知識問題"
            expect(head).to_have_text(f"問{i + 1} / {n}（{kind}）", timeout=WAIT)   # no 「・⑥ 因果マスク」
            text = body.inner_text()
            shown = [label for label in TOPICS.values() if label in text]
            assert not shown, (i + 1, q.id, shown)
            assert not re.search(f"[{CIRCLED}]", text), (i + 1, q.id, text[-600:])   # not even a page number
            if i < n - 1:
                next_question(page, head, i + 2, n)
        lines = submit_blank(page, n)
        assert len(lines) == n, lines
        for i, (line, q) in enumerate(zip(lines, questions)):
            assert re.search(rf"問{i + 1} − 未回答 {re.escape(TOPICS[q.topic])}", line), (line, q.id)
            assert [label for label in TOPICS.values() if label in line] == [TOPICS[q.topic]], line
        assert {label for line in lines for label in TOPICS.values() if label in line} == \
            {TOPICS[q.topic] for q in questions}                     # the results name every topic the paper drew
        check_topic_shares(questions, n)
        assert_healthy(page)


def test_the_start_screen_names_every_topic_the_exam_draws(base, browser):
    n = LENGTHS[1]
    with new_page(browser, "loop-exam-range") as page:
        open_url(page, base + "/exam")
        expect(main(page)).to_contain_text("の全トピック）", timeout=WAIT)
        said = re.search(rf"（([{CIRCLED}])〜([{CIRCLED}]) の全トピック）", main(page).inner_text())
        assert said, main(page).inner_text()[:400]
        low, high = CIRCLED.index(said.group(1)), CIRCLED.index(said.group(2))
        named = {t for t, label in TOPICS.items() if low <= CIRCLED.index(label[0]) <= high}
        assert named == set(pool_topics()), (said.group(0), pool_topics())   # every topic the exam draws
        start_long_paper(page, base, n)
        lines = submit_blank(page, n)
        labels = [label for line in lines for label in TOPICS.values() if label in line]
        assert len(labels) == n, lines
        outside = sorted({label for label in labels if not low <= CIRCLED.index(label[0]) <= high})
        assert not outside, f"the start screen says {said.group(0)}; the results list {outside}"
