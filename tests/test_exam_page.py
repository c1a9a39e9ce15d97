"""AppTest of /exam beyond tests/test_pages_practice.py: the calculation-share setting, 発展 items
only on request, a paper restored into st.session_state["exam"] (as the browser storage does),
and the 発展 label on a page's quiz card."""
from __future__ import annotations

import json
import re
import time

import pytest

import quizzes
from practice import exam as ex
from quizzes.core import Draft, register

from apphelpers import open_page, page_text
from practice_fakes import fake_registry

EXAM = "pages/20_exam.py"


def no_exception(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


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
        assert "（知識問題・② Q・K・V・発展）" in page_text(at)


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


@pytest.mark.parametrize("qid, label", [("output.top_p_blank#7", True), ("output.top_k#7", False)])
def test_quiz_card_labels_advanced_questions(qid, label):
    assert quizzes.is_advanced(qid) is label
    at = no_exception(open_page("pages/10_output.py", query={"q": qid}))
    assert at.session_state["quiz_output__ids"][0] == qid
    heads = [m.value for m in at.markdown if m.value.startswith("**問**（")]
    assert heads[0] == "**問**（計算問題）" + ("　:orange-badge[発展]" if label else "")
