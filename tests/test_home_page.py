"""AppTest of the home page (app.py): sidebar and body links, the study dashboard and the plan to the exam date."""
from datetime import timedelta

import pytest

import quizzes
import ui
from practice import exam as ex
from practice.progress import new_progress

from apphelpers import (
    chart_data, first_quiz_card, learning_page_with_quiz, metric, no_exception, open_page,
    page_text, wrong
)


EXAM, REVIEW = "pages/20_exam.py", "pages/21_review.py"


def test_home_runs_and_sidebar_links_every_existing_page():
    at = open_page("app.py")
    assert not at.exception
    links = {p.proto.page for p in at.sidebar.get("page_link")}
    expected = {p.url.lstrip("/") for p in ui.available_pages()}
    assert expected <= links and {"naive", "qkv", "scaling", "formula"} <= links
    body_links = {p.proto.label for p in at.main.get("page_link")}
    assert {"① 素朴なAttention", "② Q・K・V", "③ √dₖ スケーリング", "④ 完成形と手計算"} <= body_links


@pytest.mark.usefixtures("fakes")
def test_dashboard_after_some_answers():
    at, path = learning_page_with_quiz()
    key, q = first_quiz_card(at)
    at.radio(key=f"{key}__choice").set_value(wrong(q))  # a form: sent with the submit
    at.button(key=f"{key}__submit").click()
    no_exception(at.run())
    radios = [r for r in at.radio if (r.key or "").startswith("quiz_") and r.key.endswith("__choice")]
    key2 = radios[0].key[: -len("__choice")]   # the second card (the answered first one has no radio now)
    topic = key2.split("_")[1]
    q2 = quizzes.from_id(at.session_state[f"quiz_{topic}__ids"][1])
    at.radio(key=f"{key2}__choice").set_value(q2.answer)  # a form: sent with the submit
    at.button(key=f"{key2}__submit").click()
    no_exception(at.run())
    # and one finished mock exam, through the exam page
    no_exception(at.switch_page(EXAM).run())
    at.button(key="exam_start").click()
    no_exception(at.run())
    paper = dict(at.session_state["exam"])
    # one right answer, to a question of ANOTHER topic (the paper is random: a question of the page's
    # topic would change that page's 1/2), the other nine left unanswered
    qids = list(paper["qids"])
    k = next(i for i, x in enumerate(ex.questions(paper)) if x.topic != topic)
    qids[0], qids[k] = qids[k], qids[0]
    paper["qids"] = qids
    qs = ex.questions(paper)
    at.session_state["exam"] = paper
    no_exception(at.run())
    at.radio(key=f"exam_{paper['run']}_q0").set_value(qs[0].answer)
    no_exception(at.run())
    at.button(key="exam_submit").click()
    no_exception(at.run())
    at.button(key="exam_confirm").click()
    no_exception(at.run())
    n_due = len(at.session_state["progress"]["review"])
    assert n_due == 1   # the wrong page answer; the exam's 9 unanswered are not scheduled for review

    no_exception(at.switch_page("app.py").run())
    assert metric(at, "解いた問題") == "3 問"
    assert metric(at, "正答率") == "67%"
    assert metric(at, "訪問したページ").startswith("1 / ")
    text = page_text(at)
    assert "訪問済み・1/2 問正解（50%）" in text
    links = [pl.label for pl in at.get("page_link")]
    assert f"今日の復習 {n_due} 問（約 1 分）" in links
    main_links = [pl.label for pl in at.main.get("page_link")]
    # the page where one of two answers was wrong, right after its caption; then the next page and the exam
    assert main_links[:2] == [f"今日の復習 {n_due} 問（約 1 分）", ui.PAGE_BY_KEY[topic].label]
    assert main_links[3] == "模擬試験を受ける"  # after the next page's link
    assert "いちばん弱いトピックを学び直す（直近の正答率 50%）：" in [c.value for c in at.caption]
    hist = chart_data(at, 0)
    assert list(hist["正答率"]) == [10.0] and list(hist["得点"]) == ["1/10"]
    assert "1/10 問正解" in text


@pytest.mark.usefixtures("fakes")
def test_dashboard_fresh_session():
    at = no_exception(open_page("app.py"))
    assert metric(at, "解いた問題") == "0 問" and metric(at, "正答率") == "—"
    assert "まだ模擬試験を受けていません" in page_text(at)
    links = [pl.label for pl in at.get("page_link")]
    assert not any(lbl.startswith("今日の復習") for lbl in links)
    assert "次のページに進む：" in [c.value for c in at.caption]
    first = ui.PAGE_BY_KEY[ui.LEARNING_KEYS[0]]                 # ⓪-1 word vectors, before ⓪-2 Seq2Seq and ①
    assert first.key == "wordvec"
    assert [pl.label for pl in at.main.get("page_link")][:2] == [first.label, "模擬試験を受ける"]


@pytest.mark.usefixtures("fakes")
def test_home_plan_with_an_exam_date_spreads_the_pages_over_the_days_left():
    from datetime import date

    from practice.progress import set_setting

    today = date.today()
    p = set_setting(new_progress(), "exam_date", (today + timedelta(days=4)).isoformat())
    at = no_exception(open_page("app.py", session={"progress": p}))
    text = page_text(at)
    minutes = ui.learning_minutes()
    first = [i for i in ui.available_pages() if i.section == "学習"][0]
    assert "あと **4 日**" in text or "あと 4 日" in text
    assert f"合わせて約 {sum(minutes.values())} 分" in text and "1 日 30 分のうち約 20 分を新しいページに" in text
    # every page takes 20 minutes or more: 4 days are far too few, even at the longest day offered
    assert "1 日の時間を最大にしても足りない" in text
    labels = [pl.label for pl in at.main.get("page_link")]
    assert f"{first.label}（約 {minutes[first.key]} 分）" in labels
    at.select_slider(key="home_daily_minutes").set_value(120)
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["daily_minutes"] == 120
    assert "1 日 120 分のうち約 80 分を新しいページに" in page_text(at)
    assert at.date_input(key="home_exam_date").value == today + timedelta(days=4)
    # Enter saves a typed date (ui/page.js; tests/test_exam_date_browser.py): the page says so
    assert "日付を入力したら、Enter キーで保存されます。" in [c.value for c in at.caption]
    # clearing the date: back to today's reviews and the next page only
    at.date_input(key="home_exam_date").set_value(None)
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["exam_date"] is None
    assert "試験日を入れると" in page_text(at)
    at.date_input(key="home_exam_date").set_value(today + timedelta(days=30))
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["exam_date"] == (today + timedelta(days=30)).isoformat()
    assert "あと **30 日**" in page_text(at) or "あと 30 日" in page_text(at)


def test_an_exam_date_years_ahead_keeps_its_mock_exam_days_in_one_row():
    """An exam date far ahead (the validator allows up to 2199) leaves tens of thousands of days for mock
    exams and review: the plan names them as one span and one row of its table (one row a day hung a
    browser drawing the table)."""
    from datetime import date

    from practice.plan import daily_plan
    from practice.progress import set_setting
    from tutor import numfmt

    today = date.today()
    p = set_setting(new_progress(), "exam_date", date(2199, 12, 31).isoformat())
    plan = daily_plan(p, [i.key for i in ui.available_pages() if i.section == "学習"], today,
                      minutes=ui.learning_minutes())
    n = len(plan["mock_days"])
    assert n > 10_000
    at = no_exception(open_page("app.py", session={"progress": p}))
    text = page_text(at)
    assert f"最後の {n} 日（{numfmt.span(plan['mock_days'], today)}）" in text
    assert text.count("模擬試験と復習（") == 1 and f"模擬試験と復習（{n} 日）" in text
    assert text.count("模擬試験と復習") < 10


@pytest.mark.usefixtures("fakes")
@pytest.mark.parametrize("limit, minutes", [(30, 20), (10, 7), (100, 42)])
def test_home_shows_todays_share_of_the_reviews_and_the_time_it_takes(limit, minutes):
    from datetime import date

    from practice import review as rv
    from practice.progress import set_setting

    today = date.today()
    p = set_setting(new_progress(), "daily_review_limit", limit)
    skills = sorted(quizzes.GENERATOR_INFO)[:62]          # one review card per skill (practice.skill)
    p["review"] = {g: rv.from_box(quizzes.GENERATOR_INFO[g].topic, 3, (today - timedelta(days=i + 1)).isoformat(), 0)
                   for i, g in enumerate(skills)}
    assert len(p["review"]) == 62
    at = no_exception(open_page("app.py", session={"progress": p}))
    share = min(limit, 62)
    assert [pl.label for pl in at.main.get("page_link")][0] == f"今日の復習 {share} 問（約 {minutes} 分）"
    captions = [c.value for c in at.caption]
    if share < 62:
        assert (f"1 問 40 秒として見積もっています。期限が来ているのは 62 問で、1 日の上限（{limit} 問）を"
                f"超えた {62 - share} 問は明日からの分に回ります。") in captions
    else:
        assert "1 問 40 秒として見積もっています。" in captions


def test_home_says_in_one_box_what_part_of_the_exam_the_app_covers():
    """Issue 41 row 4: the scope was said only on the mock exam's start screen. Home names the syllabus's
    parts the app covers (from the syllabus map, quizzes/data/syllabus.json) and those it leaves out."""
    from quizzes.syllabus import scope_summary
    covered, outside = scope_summary()
    at = no_exception(open_page("app.py"))
    text = page_text(at)
    assert "このチューターが扱う G検定の範囲" in text
    for major, middles in covered:
        assert f"{major}：{'、'.join(middles)}" in text
    assert "Attention" in text and "AI に関する法律と契約" in text and "機械学習の概要" in text
    assert all(part in text for part in outside)


def test_one_miss_on_a_page_never_opened_is_not_the_weakest_topic():
    """Issue 41 row 10: a single mock-exam miss on ⑤ made home recommend ⑤ as the weakest topic to
    relearn, a page the learner had never opened; two misses on a page read do."""
    from datetime import datetime
    from practice.progress import apply_answer, record_visit, weak_topics
    q = quizzes.from_id(quizzes.by_topic("multihead", "calc")[0] + "#1")
    wrong = (q.answer + 1) % 4
    p = apply_answer(new_progress(), q.id, "multihead", False, wrong, "exam", datetime(2026, 12, 1, 9))
    assert weak_topics(p) == []
    at = no_exception(open_page("app.py", session={"progress": p}))
    assert "いちばん弱いトピックを学び直す" not in page_text(at)
    p = record_visit(apply_answer(p, q.id, "multihead", False, wrong, "page", datetime(2026, 12, 1, 10)), "multihead")
    assert [t for t, _ in weak_topics(p)] == ["multihead"]
    at = no_exception(open_page("app.py", session={"progress": p}))
    assert "いちばん弱いトピックを学び直す" in page_text(at)


def _japanese_by_ast(source: str) -> int:
    """What ui.nav.page_minutes counts, by Python's own parser (fine in a test: one thread)."""
    import ast
    from ui.nav import _JAPANESE
    return sum(len(n.value) for n in ast.walk(ast.parse(source))
               if isinstance(n, ast.Constant) and isinstance(n.value, str) and _JAPANESE.search(n.value))


@pytest.mark.parametrize("source", [
    '"猫が\\n魚を"', "r'猫\\n'", '("猫が" "魚を"\n  # a comment\n  "食べた")', 'f"{x}猫{{が}}{y:.2f}魚"',
    '"猫" f"が{n}匹" "います"', "'''三重\n引用'''", '"abc"', 'x = "猫"\ny = "魚"', '"\\u732b\\N{HIRAGANA LETTER A}"',
])
def test_the_page_time_counts_the_japanese_text_python_sees(source):
    """page_minutes reads strings with tokenize (ast.parse is not thread-safe on CPython 3.11): escapes,
    adjacent literals and f-strings count as Python's parser has them."""
    from ui.nav import _JAPANESE, _strings
    assert sum(len(t) for t in _strings(source) if _JAPANESE.search(t)) == _japanese_by_ast(source)


def test_every_learning_pages_time_is_read_as_pythons_parser_reads_it():
    from ui.nav import READING_CHARS_PER_MIN, _JAPANESE, _strings
    for page in ui.available_pages():
        if page.section == "学習":
            source = (ui.nav.ROOT / page.path).read_text(encoding="utf-8")
            mine = sum(len(t) for t in _strings(source) if _JAPANESE.search(t))
            assert abs(mine - _japanese_by_ast(source)) < READING_CHARS_PER_MIN / 4, page.key   # < 15 s of reading
