"""AppTest of /exam, /review and the home dashboard, on the known fake question registry.

Every test starts from app.py and switches page (see shared/design.md)."""
from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

import quizzes
import ui
import ui.state as state
from practice import exam as ex
from practice.progress import apply_answer, new_progress
from practice import review as rv
from practice.store import export_bytes

from apphelpers import ROOT, TIMEOUT, chart_data, open_page, page_text
from practice_fakes import fake_registry

EXAM, REVIEW = "pages/20_exam.py", "pages/21_review.py"


@pytest.fixture(autouse=True)
def fakes():
    with fake_registry():
        yield


def no_exception(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def wrong(q) -> int:
    return (q.answer + 1) % 4


# ---------------------------------------------------------------------------
# /exam
# ---------------------------------------------------------------------------
def start_exam(n: int = 10, pace: int | None = None) -> tuple[AppTest, dict]:
    at = no_exception(open_page(EXAM))
    assert "知識問題が中心" in page_text(at)
    at.radio(key="exam_len").set_value(n)
    if pace is not None:
        at.radio(key="exam_pace").set_value(pace)
    no_exception(at.run())
    assert "制限時間" in page_text(at)
    at.button(key="exam_start").click()
    no_exception(at.run())
    return at, at.session_state["exam"]


def test_exam_setup_defaults_to_the_real_pace():
    at = no_exception(open_page(EXAM))
    assert at.radio(key="exam_len").options == ["10 問", "20 問", "40 問"]
    assert at.radio(key="exam_pace").value == ex.DEFAULT_PACE_S == 40
    assert "制限時間 6:40（40 秒 × 10 問）" in page_text(at)
    at.radio(key="exam_len").set_value(40)
    at.radio(key="exam_pace").set_value(60)
    assert "制限時間 40:00（60 秒 × 40 問）" in page_text(no_exception(at.run()))


def test_whole_mock_exam_answer_flag_revisit_submit():
    at, paper = start_exam(10)
    qs, run = ex.questions(paper), paper["run"]
    assert len(qs) == 10 and paper["limit"] == 400
    kinds = [q.kind for q in qs]
    assert kinds.count("calc") == ex.calc_count(10, ex.DEFAULT_CALC_SHARE) == 0  # a handful in ~145: none in 10
    text = page_text(at)
    assert "問1** / 10" in text and qs[0].stem in text

    # 問1 right, 問2 wrong and flagged, 問3 flagged without an answer
    at.radio(key=f"exam_{run}_q0").set_value(qs[0].answer)
    no_exception(at.run())
    at.button(key="exam_next").click()
    no_exception(at.run())
    assert qs[1].stem in page_text(at)
    at.radio(key=f"exam_{run}_q1").set_value(wrong(qs[1]))
    no_exception(at.run())
    at.checkbox(key=f"exam_{run}_flag1").check()
    no_exception(at.run())
    at.button(key="exam_next").click()
    no_exception(at.run())
    at.checkbox(key=f"exam_{run}_flag2").check()
    no_exception(at.run())
    nav = at.pills(key=f"exam_{run}_nav")
    assert nav.options[:4] == ["1✓", "2★✓", "3★", "4"]
    assert "回答済み 2 / 10 問・チェック 2 問" in page_text(at)

    # change an answer: go back to 問1 with the navigator, its answer is still there
    nav.set_value(0)
    no_exception(at.run())
    assert at.radio(key=f"exam_{run}_q0").value == qs[0].answer
    at.radio(key=f"exam_{run}_q0").set_value(wrong(qs[0]))
    no_exception(at.run())
    at.radio(key=f"exam_{run}_q0").set_value(qs[0].answer)
    no_exception(at.run())

    # submit → the confirmation lists the unanswered and the flagged questions
    at.button(key="exam_submit").click()
    no_exception(at.run())
    warn = at.warning[0].value
    assert "未回答：問3、問4、" in warn and "（未回答は不正解として数え、復習の予定に入ります）" in warn and "チェックした問題：問2、問3" in warn

    # revisit flagged 問3 from the confirmation, answer it, clear its flag
    at.button(key="exam_goto_2").click()
    no_exception(at.run())
    assert at.session_state["exam"]["cur"] == 2 and qs[2].stem in page_text(at)
    at.radio(key=f"exam_{run}_q2").set_value(qs[2].answer)
    no_exception(at.run())
    at.checkbox(key=f"exam_{run}_flag2").uncheck()
    no_exception(at.run())
    at.button(key="exam_next_flag").click()  # the only flag left: 問2
    no_exception(at.run())
    assert at.session_state["exam"]["cur"] == 1

    at.button(key="exam_submit").click()
    no_exception(at.run())
    at.button(key="exam_confirm").click()
    no_exception(at.run())

    # the result
    assert at.session_state["exam"] is None
    assert metric(at, "得点") == "2 / 10" and metric(at, "正答率") == "20%"
    result = at.session_state["exam__result"]["result"]
    chart = chart_data(at, 0)
    rows = ex.topic_rows(result)
    assert list(chart["トピック"]) == [r["label"] for r in rows]
    assert list(chart["正答率"]) == pytest.approx([r["percent"] for r in rows])
    assert list(chart["得点"]) == [f"{r['correct']}/{r['total']}" for r in rows]
    assert len(at.expander) == 10
    labels = [e.label for e in at.expander]
    assert labels[0].startswith("問1　○ 正解") and labels[1].startswith("問2　× 不正解") and "未回答" in labels[3]
    text = page_text(at)
    assert qs[1].misconceptions[wrong(qs[1])] in text and qs[1].explanation in text
    assert "間違えた 1 問と未回答の 7 問は復習の予定に入りました。" in text
    assert "復習と進捗へ" in [p.label for p in at.get("page_link")]

    # saved: history, attempts (source exam), the wrong and the unanswered ones scheduled for review
    progress = at.session_state["progress"]
    assert len(progress["exams"]) == 1
    rec = progress["exams"][0]
    assert (rec["score"], rec["total"], rec["pace"]) == (2, 10, 40) and 0 <= rec["seconds"] <= 400
    assert [(a["qid"], a["correct"], a["source"]) for a in progress["attempts"]] == [
        (qs[0].id, True, "exam"), (qs[1].id, False, "exam"), (qs[2].id, True, "exam")]
    assert sorted(progress["review"]) == sorted(q.id for q in qs[1:2] + qs[3:])  # wrong + unanswered

    at.toggle(key="exam_only_wrong").set_value(True)
    no_exception(at.run())
    assert len(at.expander) == 8  # 問2 wrong + 7 unanswered
    at.button(key="exam_again").click()
    no_exception(at.run())
    assert at.button(key="exam_start")


def test_exam_submits_itself_at_time_out_and_ignores_late_answers():
    at, paper = start_exam(10, pace=30)
    qs, run = ex.questions(paper), paper["run"]
    at.radio(key=f"exam_{run}_q0").set_value(qs[0].answer)
    no_exception(at.run())
    # the server's clock is the authority: move the start back past the limit
    paper = dict(at.session_state["exam"])
    paper["started_at"] = time.time() - (paper["limit"] + 2)
    at.session_state["exam"] = paper
    at.radio(key=f"exam_{run}_q0").set_value(wrong(qs[0]))  # arrives after the deadline
    no_exception(at.run())
    assert at.session_state["exam"] is None
    assert any("時間切れ" in w.value for w in at.warning)
    assert metric(at, "得点") == "1 / 10"  # the answer given in time counts, the late one does not
    rec = at.session_state["progress"]["exams"][0]
    assert rec["seconds"] == 300 and rec["pace"] == 30
    assert metric(at, "所要時間") == "5:00"


def test_exam_clock_is_shown():
    at, paper = start_exam(20)
    bar = at.get("progress")[0]
    assert "残り時間" in bar.proto.text and "制限 13:20" in bar.proto.text


def test_exam_without_questions():
    with fake_registry(topics=[]):
        at = no_exception(open_page(EXAM))
        assert "出題できる問題がまだありません" in page_text(at)
        assert not [b for b in at.button if b.key == "exam_start"]


# ---------------------------------------------------------------------------
# /review
# ---------------------------------------------------------------------------
def first_quiz_card(at: AppTest):
    """(radio key prefix, Question) of the first quiz card on a learning page."""
    radios = [r for r in at.radio if r.key and r.key.startswith("quiz_") and r.key.endswith("__choice")]
    assert radios, "no quiz card on the page"
    key = radios[0].key[: -len("__choice")]
    topic = key.split("_")[1]
    qid = at.session_state[f"quiz_{topic}__ids"][0]
    return key, quizzes.from_id(qid)


def learning_page_with_quiz() -> tuple[AppTest, str]:
    for path in ("pages/2_qkv.py", "pages/1_naive.py", "pages/6_mask.py", "pages/5_multihead.py"):
        if (ROOT / path).exists():
            at = open_page(path)
            if not at.exception and any((r.key or "").startswith("quiz_") for r in at.radio):
                return at, path
    pytest.skip("no learning page with a quiz section yet")


def test_review_session_wrong_on_page_then_due_then_fsrs_moves_it():
    at, path = learning_page_with_quiz()
    key, q = first_quiz_card(at)
    at.radio(key=f"{key}__choice").set_value(wrong(q))  # a form: sent with the submit
    at.button(key=f"{key}__submit").click()
    no_exception(at.run())
    assert at.session_state["progress"]["review"][q.id]["state"] == 1
    assert at.radio(key=f"{key}__choice").disabled  # one answer per card

    no_exception(at.switch_page(REVIEW).run())
    assert metric(at, "今日が期限の問題") == "1 問"
    assert q.stem in page_text(at)
    card = [r for r in at.radio if (r.key or "").startswith("review_")][0].key[: -len("__choice")]
    at.radio(key=f"{card}__choice").set_value(q.answer)  # a form: sent with the submit
    at.button(key=f"{card}__submit").click()
    no_exception(at.run())
    item = at.session_state["progress"]["review"][q.id]
    assert item["reps"] == 2 and item["lapses"] == 0   # FSRS: Again, then Good (its second learning step)
    assert "今日のうちにもう一度出ます。" in page_text(at)
    assert list(at.table[0].value["問題数"]) == [1, 0, 0]
    assert [a["source"] for a in at.session_state["progress"]["attempts"]] == ["page", "review"]
    at.button(key="review_next").click()
    no_exception(at.run())
    assert "この回の復習は終わりました" in page_text(at)
    # right once more (the next round): the question graduates to days
    at.button(key="review_again").click()
    no_exception(at.run())
    card = [r for r in at.radio if (r.key or "").startswith("review_")][0].key[: -len("__choice")]
    at.radio(key=f"{card}__choice").set_value(q.answer)  # a form: sent with the submit
    at.button(key=f"{card}__submit").click()
    no_exception(at.run())
    item = at.session_state["progress"]["review"][q.id]
    day = rv.due_date(item)
    assert item["state"] == 2 and day > datetime.now().date()
    assert f"次は {day.isoformat()}（{(day - datetime.now().date()).days} 日後）に出ます。" in page_text(at)
    assert metric(at, "今日が期限の問題") == "0 問"
    at.button(key="review_next").click()
    no_exception(at.run())
    assert "今日の復習はすべて終わりました" in page_text(at) and day.isoformat() in page_text(at)


def test_review_wrong_answer_stays_due_and_comes_back_next_round():
    q1, q2 = quizzes.from_id("zz.qkv.calc0#11"), quizzes.from_id("zz.mask.know1#4")
    now = datetime.now() - timedelta(minutes=30)
    p = apply_answer(new_progress(), q1.id, q1.topic, False, wrong(q1), "page", now)
    p = apply_answer(p, q2.id, q2.topic, False, wrong(q2), "exam", now)
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    assert metric(at, "今日が期限の問題") == "2 問"
    assert at.session_state["review__cur"] == q2.id  # due at the same time: ordered by id
    for q, right in ((q2, True), (q1, False)):
        card = [r for r in at.radio if (r.key or "").startswith("review_")][0].key[: -len("__choice")]
        assert q.stem in page_text(at)
        at.radio(key=f"{card}__choice").set_value(q.answer if right else wrong(q))  # a form: sent with the submit
        at.button(key=f"{card}__submit").click()
        no_exception(at.run())
        at.button(key="review_next").click()
        no_exception(at.run())
    review = at.session_state["progress"]["review"]
    assert review[q1.id]["lapses"] == 1 and review[q2.id]["lapses"] == 0 and review[q2.id]["reps"] == 2
    assert "今日の予定にまだ 2 問残っています" in page_text(at)
    at.button(key="review_again").click()
    no_exception(at.run())
    assert q1.stem in page_text(at)


def test_review_weak_topics_ranked_with_links():
    p = new_progress()
    for i, ok in enumerate([True, False, False]):
        p = apply_answer(p, f"zz.mask.calc0#{i}", "mask", ok, 0, "page")
    for i, ok in enumerate([True, True, False]):
        p = apply_answer(p, f"zz.naive.calc0#{i}", "naive", ok, 0, "page")
    for i in range(5):
        p = apply_answer(p, f"zz.qkv.calc0#{i}", "qkv", True, 0, "page")
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    links = {pl.label: pl.proto.page for pl in at.get("page_link")}
    assert links["1. ⑥ 因果マスク"] == "mask" and links["2. ① 素朴なAttention"] == "naive"
    assert not any(label.startswith("3.") for label in links)  # mastered qkv is not weak
    captions = [c.value for c in at.caption]
    i = captions.index("直近 3 問中 1 問正解（33%）")
    assert captions[i + 1] == "直近 3 問中 2 問正解（67%）"


# ---------------------------------------------------------------------------
# export / import
# ---------------------------------------------------------------------------
def saved_progress() -> dict:
    q = quizzes.from_id("zz.formula.know2#8")
    p = apply_answer(new_progress(), q.id, q.topic, False, wrong(q), "page", datetime(2026, 3, 1, 9))
    qs = [quizzes.from_id(i) for i in ex.build_exam(10, 4)]
    r = ex.score_exam(qs, {i: qs[i].answer for i in range(7)})
    return ex.record_exam(p, r, datetime(2026, 3, 1, 10), datetime(2026, 3, 1, 10, 5), 40)


def test_export_download_has_the_progress():
    at = no_exception(open_page(REVIEW, session={"progress": saved_progress()}))
    buttons = at.get("download_button")
    assert buttons and "進捗を書き出す" in buttons[0].proto.label


def test_import_good_file_through_the_uploader():
    good = saved_progress()
    at = no_exception(open_page(REVIEW))
    # the uploader's English button and hint are explained in Japanese, with the configured size cap
    config = tomllib.loads((Path(__file__).parent.parent / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert f"JSON ファイル（{config['server']['maxUploadSize']} MB まで）" in page_text(at)
    at.file_uploader(key=state.UPLOAD_KEY).set_value(("progress.json", export_bytes(good), "application/json"))
    no_exception(at.run())
    now = at.session_state["progress"]
    assert {k: v for k, v in now.items() if k != "visited"} == {k: v for k, v in good.items() if k != "visited"}
    assert now["visited"] == {"review": True}  # the file's (none) + this page's visit after the import
    assert any("進捗を読み込みました（解答 8 件・模擬試験 1 回・復習予定 4 問）" in s.value for s in at.success)
    assert metric(at, "復習予定の全体") == "4 問"
    no_exception(at.switch_page("app.py").run())
    assert "7/10" in page_text(at)  # the imported exam is on the dashboard


def test_import_bad_file_through_the_uploader_leaves_progress_untouched():
    at = no_exception(open_page(REVIEW, session={"progress": saved_progress()}))
    current = at.session_state["progress"]
    hostile = json.dumps({"version": 1, "visited": {"<script>alert(1)</script>": True}, "attempts": [],
                          "exams": [], "review": {}}).encode()
    at.file_uploader(key=state.UPLOAD_KEY).set_value(("evil.json", hostile, "application/json"))
    no_exception(at.run())
    assert at.session_state["progress"] == current
    err = at.error[0].value
    assert "読み込めませんでした" in err and "今の進捗はそのままです" in err
    assert "\\<script\\>" in err and "<script>" not in err.replace("\\<script\\>", "")
    # then a good one still works
    at.file_uploader(key=state.UPLOAD_KEY).set_value(("ok.json", export_bytes(new_progress()), "application/json"))
    no_exception(at.run())
    assert at.session_state["progress"]["attempts"] == []


class FakeUpload:
    def __init__(self, data: bytes | Exception):
        self.data = data

    def getvalue(self) -> bytes:
        if isinstance(self.data, Exception):
            raise self.data
        return self.data


@pytest.mark.parametrize("upload, ok", [
    (FakeUpload(export_bytes(new_progress())), True),
    (FakeUpload(b"{not json"), False),
    (FakeUpload(b"\xff" * 10), False),
    (FakeUpload(OSError("gone")), False),
    (None, None),
])
def test_import_callback_directly(monkeypatch, upload, ok):
    current = saved_progress()
    session = {state.PROGRESS_KEY: current, state.UPLOAD_KEY: upload}
    monkeypatch.setattr(state, "st", SimpleNamespace(session_state=session, warning=lambda *a, **k: None))
    state.import_uploaded()
    if ok is None:  # the learner removed the file: nothing happens
        assert state.IMPORT_MSG_KEY not in session and session[state.PROGRESS_KEY] is current
    elif ok:
        assert session[state.PROGRESS_KEY] == new_progress() and session[state.IMPORT_MSG_KEY][0] == "success"
    else:
        assert session[state.PROGRESS_KEY] is current and session[state.IMPORT_MSG_KEY][0] == "error"
    # the page shows the outcome
    if ok is not None:
        monkeypatch.undo()
        with fake_registry():
            at = no_exception(open_page(REVIEW, session={"progress": session[state.PROGRESS_KEY],
                                                         state.IMPORT_MSG_KEY: session[state.IMPORT_MSG_KEY]}))
            shown = (at.success if ok else at.error)[0].value
            assert ("読み込みました" if ok else "今の進捗はそのままです") in shown


# ---------------------------------------------------------------------------
# home dashboard
# ---------------------------------------------------------------------------
def test_dashboard_after_some_answers():
    at, path = learning_page_with_quiz()
    key, q = first_quiz_card(at)
    at.radio(key=f"{key}__choice").set_value(wrong(q))  # a form: sent with the submit
    at.button(key=f"{key}__submit").click()
    no_exception(at.run())
    radios = [r for r in at.radio if (r.key or "").startswith("quiz_") and r.key.endswith("__choice")]
    key2 = radios[1].key[: -len("__choice")]
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
    n_due = len(at.session_state["progress"]["review"])   # the wrong page answer + the exam's 9 unanswered
    assert n_due == 10 or q.id in {x.id for x in qs}

    no_exception(at.switch_page("app.py").run())
    assert metric(at, "解いた問題") == "3 問"
    assert metric(at, "正答率") == "67%"
    assert metric(at, "訪問したページ").startswith("1 / ")
    text = page_text(at)
    assert "訪問済み・1/2 問正解（50%）" in text
    links = [pl.label for pl in at.get("page_link")]
    assert f"今日の復習が {n_due} 問あります" in links
    main_links = [pl.label for pl in at.main.get("page_link")]
    # the page where one of two answers was wrong, right after its caption; then the next page and the exam
    assert main_links[:2] == [f"今日の復習が {n_due} 問あります", ui.PAGE_BY_KEY[topic].label]
    assert main_links[3] == "模擬試験を受ける"  # after the next page's link
    assert "いちばん弱いトピックを学び直す（直近の正答率 50%）：" in [c.value for c in at.caption]
    hist = chart_data(at, 0)
    assert list(hist["正答率"]) == [10.0] and list(hist["得点"]) == ["1/10"]
    assert "1/10 問正解" in text


def test_dashboard_fresh_session():
    at = no_exception(open_page("app.py"))
    assert metric(at, "解いた問題") == "0 問" and metric(at, "正答率") == "—"
    assert "まだ模擬試験を受けていません" in page_text(at)
    links = [pl.label for pl in at.get("page_link")]
    assert not any(lbl.startswith("今日の復習") for lbl in links)
    assert "次のページに進む：" in [c.value for c in at.caption]
    first = ui.PAGE_BY_KEY[ui.LEARNING_KEYS[0]]                 # ⓪ Seq2Seq since the page before ①
    assert first.key == "seq2seq"
    assert [pl.label for pl in at.main.get("page_link")][:2] == [first.label, "模擬試験を受ける"]


# ---------------------------------------------------------------------------
# the exam date, the daily plan, the desired retention
# ---------------------------------------------------------------------------
def test_home_plan_with_an_exam_date_spreads_the_pages_over_the_days_left():
    from datetime import date

    from practice.progress import set_setting

    today = date.today()
    p = set_setting(new_progress(), "exam_date", (today + timedelta(days=4)).isoformat())
    at = no_exception(open_page("app.py", session={"progress": p}))
    text = page_text(at)
    n_pages = len([i for i in ui.available_pages() if i.section == "学習"])
    per_day = -(-n_pages // 4)
    assert "あと **4 日**" in text or "あと 4 日" in text
    assert f"1 日 **{per_day} ページ**" in text or f"1 日 {per_day} ページ" in text
    labels = [pl.label for pl in at.main.get("page_link")]
    first = [i for i in ui.available_pages() if i.section == "学習"][:per_day]
    assert all(f.label in labels for f in first)
    assert at.date_input(key="home_exam_date").value == today + timedelta(days=4)
    # clearing the date: back to today's reviews and the next page only
    at.date_input(key="home_exam_date").set_value(None)
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["exam_date"] is None
    assert "試験日を入れると" in page_text(at)
    at.date_input(key="home_exam_date").set_value(today + timedelta(days=30))
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["exam_date"] == (today + timedelta(days=30)).isoformat()
    assert "あと **30 日**" in page_text(at) or "あと 30 日" in page_text(at)


def test_review_page_sets_the_desired_retention_and_says_where_progress_lives():
    at = no_exception(open_page(REVIEW))
    assert "このブラウザの中だけ" in page_text(at) and "サイトデータの削除" in page_text(at)
    at.select_slider(key="review_retention").set_value(0.95)
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["retention"] == 0.95


def test_clear_this_device_asks_first_then_empties_the_progress():
    p = apply_answer(new_progress(), "zz.qkv.calc0#1", "qkv", False, 1, "page")
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    at.button(key="review_clear").click()
    no_exception(at.run())
    assert "元には戻せません" in page_text(at) and at.session_state["progress"]["attempts"]
    at.button(key="review_clear_cancel").click()
    no_exception(at.run())
    assert at.session_state["progress"]["attempts"]
    at.button(key="review_clear").click()
    no_exception(at.run())
    at.button(key="review_clear_confirm").click()
    no_exception(at.run())
    assert at.session_state["progress"]["attempts"] == [] and at.session_state["progress"]["review"] == {}
    assert any("この端末の記録を消しました" in s.value for s in at.success)
