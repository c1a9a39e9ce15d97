"""AppTest of /exam: setup, a whole mock exam, time-out, clock, no questions, the calculation-share setting,
発展 items only on request, a paper restored into st.session_state["exam"], the 発展 label on a quiz card."""
from __future__ import annotations

import json
import re
import time

import pytest

import quizzes
from practice import exam as ex
from quizzes.core import TOPICS, Draft, register
from streamlit.testing.v1 import AppTest

from apphelpers import chart_data, metric, no_exception, open_page, page_text, wrong
from practice_fakes import fake_registry

EXAM = "pages/20_exam.py"


def _adv_draft(rng) -> Draft:
    return Draft(stem="（発展）正しいものを1つ選べ。", correct="正しい発展の記述",
                 wrong=tuple((f"誤った発展の記述 {w}", f"誤解{w}：テスト用") for w in range(3)),
                 explanation="テスト用の発展問題の解説です（ページでは発展の印付きで出ます）。")


def clock_seconds(at) -> int:
    m = re.search(r"残り時間 \*\*(\d+):(\d\d)\*\*", at.get("progress")[0].proto.text)
    return int(m.group(1)) * 60 + int(m.group(2))


def test_default_mix_and_the_calc_setting():
    with fake_registry():
        at = no_exception(open_page(EXAM))
        assert at.radio(key="exam_calc").value == ex.DEFAULT_CALC_SHARE
        assert "知識問題 10 問、計算問題 0 問" in page_text(at)
        assert "知識問題が中心で、計算問題はわずか" in page_text(at)
        assert "約 2 割" not in page_text(at)
        at.radio(key="exam_calc").set_value(0.2)
        assert "知識問題 8 問、計算問題 2 問" in page_text(no_exception(at.run()))
        at.button(key="exam_start").click()
        no_exception(at.run())
        state = at.session_state["exam"]
        assert json.loads(json.dumps(state)) == state
        assert [q.kind for q in ex.questions(state)].count("calc") == 2


def test_advanced_items_only_when_asked():
    with fake_registry(topics=[]):
        register("zz.qkv.adv0", "qkv", _adv_draft, kind="knowledge", advanced=True)
        at = no_exception(open_page(EXAM))
        assert at.toggle(key="exam_advanced").value is False
        at.button(key="exam_start").click()
        no_exception(at.run())
        assert "exam" not in at.session_state or not at.session_state["exam"]
        assert any("出題できる問題がありません" in e.value for e in at.error)
        at.toggle(key="exam_advanced").set_value(True)
        no_exception(at.run())
        at.button(key="exam_start").click()
        no_exception(at.run())
        state = at.session_state["exam"]
        assert [q.split("#")[0] for q in state["qids"]] == ["zz.qkv.adv0"]
        assert "（知識問題・発展）" in page_text(at) and "② Q・K・V" not in page_text(at)   # no topic during the exam


def test_a_restored_paper_resumes_with_its_answers_and_its_clock():
    with fake_registry():
        state = ex.new_exam(10, 40, 5, time.time() - 100)
        qs = ex.questions(state)
        state = ex.answer(state, 1, qs[1].answer, time.time())
        state = ex.go_to(ex.set_flag(state, 1, True), 1)
        stored = ex.validate_state(json.loads(json.dumps(state)))   # what comes back from the browser
        at = no_exception(open_page(EXAM, session={"exam": stored}))
        run = stored["run"]
        assert qs[1].stem in page_text(at)
        assert at.radio(key=f"exam_{run}_q1").value == qs[1].answer
        assert at.checkbox(key=f"exam_{run}_flag1").value is True
        assert at.pills(key=f"exam_{run}_nav").options[:3] == ["1", "2★✓", "3"]
        assert 280 <= clock_seconds(at) <= 300        # 400 s limit, 100 s already gone: not restarted
        at.button(key="exam_submit").click()
        no_exception(at.run())
        at.button(key="exam_confirm").click()
        no_exception(at.run())
        assert at.session_state["exam"] is None
        assert next(m.value for m in at.metric if m.label == "得点") == "1 / 10"
        assert 100 <= at.session_state["progress"]["exams"][0]["seconds"] <= 130
        record = at.session_state["exam__result"]
        assert json.loads(json.dumps(record)) == record


def test_a_restored_paper_past_its_deadline_is_submitted_at_once():
    with fake_registry():
        state = ex.new_exam(10, 30, 6, time.time() - 3_600)          # the tab was closed for an hour
        state = ex.answer(state, 0, ex.questions(state)[0].answer, state["started_at"] + 20)
        at = no_exception(open_page(EXAM, session={"exam": ex.validate_state(state)}))
        assert at.session_state["exam"] is None
        assert any("時間切れ" in w.value for w in at.warning)
        assert next(m.value for m in at.metric if m.label == "得点") == "1 / 10"
        rec = at.session_state["progress"]["exams"][0]
        assert rec["seconds"] == 300 and rec["score"] == 1


@pytest.mark.parametrize("qid, label", [("output.top_p_blank#7", True), ("output.temperature#7", False)])
def test_quiz_card_labels_advanced_questions(qid, label):
    assert quizzes.is_advanced(qid) is label
    at = no_exception(open_page("pages/10_output.py", query={"q": qid}))
    assert at.session_state["quiz_output__ids"][0] == qid
    heads = [m.value for m in at.markdown if m.value.startswith("**問**（")]
    assert heads[0] == "**問**（計算問題）" + ("　:orange-badge[発展]" if label else "")



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



@pytest.mark.usefixtures("fakes")
def test_exam_setup_defaults_to_the_real_pace():
    at = no_exception(open_page(EXAM))
    assert at.radio(key="exam_len").options == ["10 問", "20 問", "40 問"]
    assert at.radio(key="exam_pace").value == ex.DEFAULT_PACE_S == 40
    assert "制限時間 6:40（40 秒 × 10 問）" in page_text(at)
    at.radio(key="exam_len").set_value(40)
    at.radio(key="exam_pace").set_value(60)
    assert "制限時間 40:00（60 秒 × 40 問）" in page_text(no_exception(at.run()))


def test_the_start_screen_names_the_topics_a_paper_draws_from():
    """The range it names is the pool's (practice.exam.pool_topics): ⑩ joined the pool with its page,
    and the screen said ⓪〜⑨ until it was read from the pool; ⑪ is the last page now."""
    assert ex.pool_topics() == list(TOPICS)                          # every page has exam items
    at = no_exception(open_page(EXAM))
    assert "Attention と Transformer のまわり（⓪〜⑪ の全トピック）だけです" in page_text(at)
    assert "シラバスの範囲の広さ（試験範囲の問題の数）に比例します" in page_text(at)     # practice.exam._spread



@pytest.mark.usefixtures("fakes")
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
    at.button(key="exam_next_q0").click()
    no_exception(at.run())
    assert qs[1].stem in page_text(at)
    at.radio(key=f"exam_{run}_q1").set_value(wrong(qs[1]))
    no_exception(at.run())
    at.checkbox(key=f"exam_{run}_flag1").check()
    no_exception(at.run())
    at.button(key="exam_next_q1").click()
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
    assert "未回答：問3、問4、" in warn and "（未回答は不正解として数えます。復習の予定には入りません）" in warn and "チェックした問題：問2、問3" in warn

    # revisit flagged 問3 from the confirmation, answer it, clear its flag
    at.button(key="exam_goto_2").click()
    no_exception(at.run())
    assert at.session_state["exam"]["cur"] == 2 and qs[2].stem in page_text(at)
    at.radio(key=f"exam_{run}_q2").set_value(qs[2].answer)
    no_exception(at.run())
    at.checkbox(key=f"exam_{run}_flag2").uncheck()
    no_exception(at.run())
    at.button(key="exam_next_flag_q2").click()  # the only flag left: 問2
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
    assert ("間違えた 1 問は復習の予定に入りました。未回答の 7 問は復習の予定に入れていません"
            "（解説は下の振り返りで読めます）。") in text
    assert "復習と進捗へ" in [p.label for p in at.get("page_link")]

    # saved: history, attempts (source exam), only the wrong answer scheduled for review (not the unanswered)
    progress = at.session_state["progress"]
    assert len(progress["exams"]) == 1
    rec = progress["exams"][0]
    assert (rec["score"], rec["total"], rec["pace"]) == (2, 10, 40) and 0 <= rec["seconds"] <= 400
    assert [(a["qid"], a["correct"], a["source"]) for a in progress["attempts"]] == [
        (qs[0].id, True, "exam"), (qs[1].id, False, "exam"), (qs[2].id, True, "exam")]
    assert sorted(progress["review"]) == [qs[1].generator_id]  # the wrong answer's skill; the 7 unanswered are not scheduled

    at.toggle(key="exam_only_wrong").set_value(True)
    no_exception(at.run())
    assert len(at.expander) == 8  # 問2 wrong + 7 unanswered
    at.button(key="exam_again").click()
    no_exception(at.run())
    assert at.button(key="exam_start")



@pytest.mark.usefixtures("fakes")
def test_an_abandoned_paper_schedules_nothing_for_review():
    at, paper = start_exam(40)
    _confirm_step(at)
    assert "（未回答は不正解として数えます。復習の予定には入りません）" in at.warning[0].value
    at.button(key="exam_confirm").click()
    no_exception(at.run())
    assert metric(at, "得点") == "0 / 40"
    assert at.session_state["progress"]["review"] == {}          # before: 40 cards due today
    assert at.session_state["progress"]["exams"][0]["score"] == 0
    assert "未回答の 40 問は復習の予定に入れていません（解説は下の振り返りで読めます）。" in page_text(at)
    assert "復習と進捗へ" not in [p.label for p in at.get("page_link")]


@pytest.mark.usefixtures("fakes")
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



@pytest.mark.usefixtures("fakes")
def test_exam_clock_is_shown():
    at, paper = start_exam(20)
    bar = at.get("progress")[0]
    assert "残り時間" in bar.proto.text and "制限 13:20" in bar.proto.text



@pytest.mark.usefixtures("fakes")
def test_exam_without_questions():
    with fake_registry(topics=[]):
        at = no_exception(open_page(EXAM))
        assert "出題できる問題がまだありません" in page_text(at)
        assert not [b for b in at.button if b.key == "exam_start"]



# ---------------------------------------------------------------------------
# stale widget events (issue 35): a click that arrives after its paper was submitted
# ---------------------------------------------------------------------------
def run_confirm_first(at: AppTest) -> AppTest:
    """Rerun with the widget changes made in the test, the 提出を確定する click FIRST.

    What the server sees when the learner confirms and, before the page has redrawn, clicks
    a pill, an answer or a button (or the ticking clock's run interrupts): the submit's run is
    cut short and the next one replays the later events, whose widgets are still registered,
    after the exam state is already None. AppTest sends a page's widgets in page order (the
    confirm button last), so the message is reordered here (AppTest's own ElementTree and
    runner: there is no public way to order the events)."""
    ws = at._tree.get_widget_states()
    widgets = sorted(ws.widgets, key=lambda w: not w.id.endswith("-exam_confirm"))
    del ws.widgets[:]
    ws.widgets.extend(widgets)
    return at._tree._runner._run(ws)


def _confirm_step(at: AppTest) -> None:
    at.button(key="exam_submit").click()
    no_exception(at.run())
    assert at.button(key="exam_confirm")


@pytest.mark.usefixtures("fakes")
@pytest.mark.parametrize("stale", ["nav", "answer", "flag", "next", "cancel"])
def test_a_click_arriving_after_the_submit_does_nothing(stale):
    at, paper = start_exam(10)
    qs, run = ex.questions(paper), paper["run"]
    at.radio(key=f"exam_{run}_q0").set_value(qs[0].answer)
    no_exception(at.run())
    _confirm_step(at)
    at.button(key="exam_confirm").click()
    if stale == "nav":
        at.pills(key=f"exam_{run}_nav").set_value(3)
    elif stale == "answer":
        at.radio(key=f"exam_{run}_q0").set_value(wrong(qs[0]))
    elif stale == "flag":
        at.checkbox(key=f"exam_{run}_flag0").check()
    elif stale == "next":
        at.button(key="exam_next_q0").click()
    else:
        at.button(key="exam_cancel").click()
    no_exception(run_confirm_first(at))   # before the fix: TypeError in on_nav / on_answer / on_flag / go
    assert at.session_state["exam"] is None
    assert metric(at, "得点") == "1 / 10"
    assert not at.session_state["exam__confirm"]
    assert len(at.session_state["progress"]["exams"]) == 1


@pytest.mark.usefixtures("fakes")
def test_an_event_of_a_submitted_paper_leaves_the_next_paper_alone():
    at, paper = start_exam(10)
    qs, run = ex.questions(paper), paper["run"]
    _confirm_step(at)
    # meanwhile another paper is running (submitted, もう一度受ける, started again)
    other = ex.new_exam(10, 40, 99, time.time(), run="0badcafe")
    other = ex.answer(other, 0, ex.questions(other)[0].answer, time.time())
    at.session_state["exam"] = other
    at.radio(key=f"exam_{run}_q0").set_value(wrong(qs[0]))      # events of the old paper
    at.checkbox(key=f"exam_{run}_flag0").check()
    at.pills(key=f"exam_{run}_nav").set_value(4)
    at.button(key="exam_confirm").click()
    no_exception(at.run())
    assert at.session_state["exam"] == other                    # not answered, flagged, moved or submitted
    assert not at.session_state["progress"]["exams"]
    assert ex.questions(other)[0].stem in page_text(at)



def test_a_tab_that_only_showed_a_paper_does_not_submit_it_at_the_deadline(monkeypatch):
    """A paper another tab runs (this tab never touched it) reaches its deadline here: this tab
    does not grade it with the answers it happens to hold; the learner can, with 採点する."""
    with fake_registry():
        paper = ex.validate_state(ex.new_exam(10, 30, 8, time.time() - 10))
        at = no_exception(open_page(EXAM, session={"exam": paper}))   # shown, not over, never touched
        assert at.session_state["exam"]["run"] == paper["run"]
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + paper["limit"] + 60)
        no_exception(at.run())
        assert at.session_state["exam"] is not None and at.session_state["progress"]["exams"] == []
        assert any("時間切れです" in i.value for i in at.info)
        at.button(key="exam_grade").click()
        no_exception(at.run())
        assert at.session_state["exam"] is None and len(at.session_state["progress"]["exams"]) == 1
        assert at.session_state["progress"]["exams"][0]["run"] == paper["run"]


def test_a_paper_submitted_in_another_tab_ends_here_with_a_note():
    with fake_registry():
        paper = ex.validate_state(ex.new_exam(10, 30, 9, time.time() - 10))
        at = no_exception(open_page(EXAM, session={"exam": paper}))
        at.session_state["exam"] = None                                # what ui.state._follow_exam does …
        at.session_state["exam__ended_elsewhere"] = True              # … after the other tab's record arrives
        no_exception(at.run())
        assert any("別のタブで提出された" in i.value for i in at.info)
        assert "試験を始める" in [b.label for b in at.button]


# ---------------------------------------------------------------------------
# dropping an abandoned paper: ends it without scoring or recording anything
# ---------------------------------------------------------------------------
@pytest.mark.usefixtures("fakes")
def test_dropping_a_paper_asks_first_then_ends_it_without_scoring_or_recording():
    at, paper = start_exam(10)
    qs, run = ex.questions(paper), paper["run"]
    at.radio(key=f"exam_{run}_q0").set_value(wrong(qs[0]))               # a wrong answer, not recorded either
    no_exception(at.run())
    before = at.session_state["progress"]
    at.button(key="exam_drop").click()
    no_exception(at.run())
    assert at.session_state["exam"]["run"] == run                         # only asked so far
    assert "この試験をやめると、採点はせず" in at.warning[0].value
    assert not [b for b in at.button if b.key == "exam_submit"]
    at.button(key="exam_drop_cancel").click()                            # 問題に戻る
    no_exception(at.run())
    assert at.session_state["exam"]["run"] == run and at.button(key="exam_submit")
    at.button(key="exam_drop").click()
    no_exception(at.run())
    at.button(key="exam_drop_confirm").click()
    no_exception(at.run())
    assert at.session_state["exam"] is None and at.session_state["exam__result"] is None
    progress = at.session_state["progress"]
    assert progress["exams"] == before["exams"] == []                     # no result in the history
    assert progress["attempts"] == before["attempts"] == []               # no answers recorded
    assert progress["review"] == {} and progress["exam_in_progress"] is None
    assert any("模擬試験をやめました。採点はせず" in i.value for i in at.info)
    assert at.button(key="exam_start")                                    # back to the setup screen
    no_exception(at.run())
    assert not any("模擬試験をやめました" in i.value for i in at.info)    # said once


@pytest.mark.usefixtures("fakes")
def test_opening_the_submit_step_closes_the_drop_step_and_the_other_way_round():
    at, paper = start_exam(10)
    at.button(key="exam_drop").click()
    no_exception(at.run())
    assert at.session_state["exam__drop"] and not at.session_state["exam__confirm"]
    at.button(key="exam_drop_cancel").click()
    no_exception(at.run())
    _confirm_step(at)
    assert not at.session_state["exam__drop"]
    assert not [b for b in at.button if b.key == "exam_drop"]            # while confirming a submit


@pytest.mark.usefixtures("fakes")
@pytest.mark.parametrize("then", ["submitted", "replaced"])
def test_a_drop_click_for_a_paper_that_ended_meanwhile_does_nothing(then):
    """The drop step of paper A is open; before 「やめる」 arrives, A was submitted (here or in another
    tab: the session holds no paper) or another paper B took its place. The click does nothing."""
    at, paper = start_exam(10)
    at.button(key="exam_drop").click()
    no_exception(at.run())
    other = ex.new_exam(10, 40, 99, time.time(), run="0badcafe")
    at.session_state["exam"] = None if then == "submitted" else other
    at.button(key="exam_drop_confirm").click()                            # drawn for paper A
    no_exception(at.run())
    assert at.session_state["exam"] == (None if then == "submitted" else other)
    assert not any("模擬試験をやめました" in i.value for i in at.info)
    assert at.session_state["progress"]["exams"] == [] and at.session_state["progress"]["attempts"] == []
