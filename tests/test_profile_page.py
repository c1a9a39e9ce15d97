"""AppTest: the profile section (あなたのつまずき) with a crafted progress, the つまずき練習 flow on
/drill (?m= link, practice until it clears), and the mock exam's list of misconceptions."""
from __future__ import annotations

import pytest

import quizzes
from apphelpers import open_page, page_text
from practice.progress import new_progress
from quizzes import misconceptions as M
from test_profile import find, wrong
from ui.nav import PAGE_BY_KEY

DRILL = "pages/22_drill.py"


def _session(attempts):
    return {"progress": {**new_progress(), "attempts": attempts}}


def _links(at):
    return [(el.proto.label, el.proto.page, el.proto.query_string) for el in at.get("page_link")]


def test_the_profile_shows_the_top_misconceptions_with_links():
    rec = [wrong("mask_after_softmax", 0), wrong("forgot_sqrt_dk", 1), wrong("forgot_sqrt_dk", 2, skip=1),
           wrong("true_statement_judged_false", 3)]
    at = open_page(DRILL, session=_session(rec))
    assert not at.exception
    text = page_text(at)
    assert "あなたのつまずき" in text
    heads = [m.value for m in at.markdown if m.value.startswith("**") and " 回・" in m.value]
    assert heads[0].startswith("**1. √d_k で割り忘れ**　2 回・最後は 12/01 09:02（1 問前）")
    assert heads[1].startswith("**2. 正しい記述を誤りと判断**　1 回") and heads[2].startswith("**3. softmax の後でマスク**")
    assert len(heads) == 3                                   # limit=3
    links = _links(at)
    labels = [label for label, _, _ in links]
    captions = [c.value for c in at.caption]
    assert "③ √d_k スケーリング" in labels and "学び直す場所：③ √d_k スケーリング の「解説」" in captions
    assert "⑥ 因果マスク" in labels
    assert "学び直す場所：⑥ 因果マスク の「よくある間違い：softmax の後でマスクする」" in captions
    own = quizzes.from_id(rec[3]["qid"]).topic                 # no page of its own: the question's page
    assert f"学び直す場所：{PAGE_BY_KEY[own].label} の「解説」" in captions and PAGE_BY_KEY[own].label in labels
    drills = [q for label, _, q in links if label == "このつまずきを練習する"]
    assert drills[:3] == ["m=forgot_sqrt_dk", "m=true_statement_judged_false", "m=mask_after_softmax"]


def test_an_empty_record_shows_no_misconception():
    at = open_page(DRILL, session=_session([]))
    assert not at.exception
    assert "いま目立つつまずきはありません" in page_text(at)
    assert not [ln for ln in _links(at) if ln[0] == "このつまずきを練習する"]


def test_a_link_starts_a_set_and_practising_clears_it():
    rec = [wrong("softmax_over_columns", 0), wrong("forgot_sqrt_dk", 1)]
    at = open_page(DRILL, query={"m": "forgot_sqrt_dk"}, session=_session(rec))
    assert not at.exception
    assert at.selectbox(key="drill__choice").value == "forgot_sqrt_dk"
    ids = at.session_state["drill__ids"]
    assert len(ids) == 5 and all("forgot_sqrt_dk" in M.question_ids(quizzes.from_id(q)) for q in ids)
    assert "練習：√d_k で割り忘れ" in [h.value for h in at.header]
    rnd = at.session_state["drill__round"]
    for i, qid in enumerate(ids, start=1):
        at.radio(key=f"drill_{rnd}_{i}__choice").set_value(quizzes.from_id(qid).answer)
        at.button(key=f"drill_{rnd}_{i}__submit").click().run()
        assert not at.exception
    assert "5 問中 5 問に回答、5 問正解。" in [c.value for c in at.caption]
    attempts = at.session_state["progress"]["attempts"]
    assert [a["qid"] for a in attempts[-5:]] == ids and all(a["correct"] for a in attempts[-5:])
    assert {a["source"] for a in attempts[-5:]} == {"drill"}
    heads = [m.value for m in at.markdown if m.value.startswith("**1. ")]
    assert heads and heads[0].startswith("**1. 列方向の softmax**")
    assert "√d_k で割り忘れ**" not in "".join(m.value for m in at.markdown if " 回・" in m.value)


@pytest.mark.parametrize("payload", ["<b>evil</b>", "[evil](https://evil.example)", "evil" * 500,
                                     "forgot_sqrt_dk\nevil", "FORGOT_SQRT_DK evil", "__class__ evil"])
def test_a_bad_link_is_not_echoed(payload):
    at = open_page(DRILL, query={"m": payload}, session=_session([]))
    assert not at.exception
    assert [w.value for w in at.warning] == ["リンクのつまずきが見つかりませんでした。下の一覧から選んでください。"]
    assert "evil" not in page_text(at)
    assert "drill__ids" not in at.session_state


def test_choosing_a_misconception_and_starting():
    at = open_page(DRILL, session=_session([]))
    at.selectbox(key="drill__choice").set_value("mask_after_softmax").run()
    at.button(key="drill__start").click().run()
    assert not at.exception
    ids = at.session_state["drill__ids"]
    assert len(ids) == 5 and all("mask_after_softmax" in M.question_ids(quizzes.from_id(q)) for q in ids)
    # a wrong answer with that misconception puts it at the top
    rnd = at.session_state["drill__round"]
    q = quizzes.from_id(ids[0])
    c = M.choice_ids(q).index("mask_after_softmax")
    at.radio(key=f"drill_{rnd}_1__choice").set_value(c)
    at.button(key=f"drill_{rnd}_1__submit").click().run()
    heads = [m.value for m in at.markdown if m.value.startswith("**1. ")]
    assert heads[0].startswith("**1. softmax の後でマスク**　1 回")
    assert "5 問中 1 問に回答、0 問正解。" in [c.value for c in at.caption]


def test_the_exam_result_lists_the_misconceptions_behind_wrong_answers():
    q1, c1, _ = find("forgot_sqrt_dk")
    q2, c2, _ = find("forgot_sqrt_dk", 1)
    q3, _, a3 = find("mask_after_softmax")
    qids, answers = [q1, q2, q3], [c1, c2, a3]
    from practice.exam import score_exam
    result = score_exam([quizzes.from_id(q) for q in qids], answers)
    res = {"qids": qids, "answers": answers, "result": result, "started_at": 0.0, "finished_at": 60.0,
           "seconds": 60, "limit": 300, "pace": 100, "auto": False}
    at = open_page("pages/20_exam.py", session={"exam__result": res})
    assert not at.exception
    assert "誤答につながったつまずき" in [s.value for s in at.subheader]
    assert "- √d_k で割り忘れ（2 問）" in [m.value for m in at.markdown]
    assert ("このつまずきを練習する", "m=forgot_sqrt_dk") in [(label, q) for label, _, q in _links(at)]
    assert "m=mask_after_softmax" not in [q for _, _, q in _links(at)]     # answered right
