"""AppTest: the profile section (あなたのつまずき) with a crafted progress and where its links lead
(a topic misconception: its teaching page; a form one: practice of that form), the つまずき練習 flow
on /drill (?m= link, practice until it clears), and the mock exam's list of misconceptions."""
from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

import pytest

import quizzes
from apphelpers import open_page, page_text
from practice import drill
from practice.progress import new_progress
from quizzes import misconceptions as M
from quizzes.core import GENERATOR_INFO
from test_profile import T0, att, find, wrong
from tutor import numfmt
from ui import clock
from ui.nav import PAGE_BY_KEY
from ui.sections import label as section_label

AT_EXPLAIN = urlencode({"section": section_label("explain")})   # the link opens the section that teaches it

DRILL = "pages/22_drill.py"


def _session(attempts):
    return {"progress": {**new_progress(), "attempts": attempts}}


def _links(at):
    return [(el.proto.label, el.proto.page, el.proto.query_string) for el in at.get("page_link")]


def _main_links(at):
    """The page links drawn in the page itself (the sidebar's navigation left out), in order."""
    return [(el.proto.label, el.proto.page, el.proto.query_string) for el in at.main.get("page_link")]


def test_the_profile_shows_the_top_misconceptions_with_links():
    rec = [wrong("mask_after_softmax", 0), wrong("forgot_sqrt_dk", 1), wrong("forgot_sqrt_dk", 2, skip=1),
           wrong("true_statement_judged_false", 3)]
    at = open_page(DRILL, session=_session(rec))
    assert not at.exception
    text = page_text(at)
    assert "あなたのつまずき" in text
    heads = [m.value for m in at.markdown if m.value.startswith("**") and " 回・" in m.value]
    last = numfmt.day((T0 + timedelta(minutes=2)).date(), clock.today())   # the year only when not this year
    assert heads[0].startswith(f"**1. √d_k で割り忘れ**　2 回・最後は {last} 09:02（1 問前）")
    assert heads[1].startswith("**2. 正しい記述を誤りと判断**　1 回") and heads[2].startswith("**3. softmax の後でマスク**")
    assert len(heads) == 3                                   # limit=3
    links = _main_links(at)
    captions = [c.value for c in at.caption]
    assert ("③ √dₖ スケーリング", "scaling", AT_EXPLAIN) in links and "学び直す場所：③ √dₖ スケーリング の「解説」" in captions
    assert ("⑥ 因果マスク", "mask", urlencode({"section": section_label("try")})) in links
    assert "学び直す場所：⑥ 因果マスク の「よくある間違い：softmax の後でマスクする」" in captions
    # the form misconception: practice of 不適切 items, not the page where it happened
    assert "学び直す場所：ページではなく、問題の読み方です。『不適切なもの』を選ぶ問題を、いろいろなページから集めて練習します。" in captions
    assert links == [("③ √dₖ スケーリング", "scaling", AT_EXPLAIN), ("このつまずきを練習する", "drill", "m=forgot_sqrt_dk"),
                     ("『不適切なもの』を選ぶ問題を練習する", "drill", "m=true_statement_judged_false"),
                     ("⑥ 因果マスク", "mask", urlencode({"section": section_label("try")})), ("このつまずきを練習する", "drill", "m=mask_after_softmax")]


def _made_on(mid: str, topic: str) -> dict:
    """A wrong answer naming ``mid`` on a question of ``topic``."""
    for gid in drill.generators_for(mid):
        if GENERATOR_INFO[gid].topic == topic:
            for seed in range(60):
                q = quizzes.from_id(f"{gid}#{seed}")
                if mid in M.choice_ids(q):
                    return att(q.id, M.choice_ids(q).index(mid))
    raise AssertionError((mid, topic))


def test_links_lead_where_the_misconception_is_fixed_not_where_it_happened():
    """不適切 misread on ⑧, √d_k forgotten on ④: the first leads to practice of 不適切 items, the
    second to ③, the page that teaches it (issue 35, item 4)."""
    rec = [_made_on("true_statement_judged_false", "training"), _made_on("forgot_sqrt_dk", "formula")]
    at = open_page(DRILL, session=_session(rec))
    assert not at.exception
    links = _main_links(at)
    scaling, formula, training = PAGE_BY_KEY["scaling"], PAGE_BY_KEY["formula"], PAGE_BY_KEY["training"]
    assert (scaling.label, scaling.url.lstrip("/"), AT_EXPLAIN) in links
    assert not [ln for ln in links if ln[1] in (formula.url.lstrip("/"), training.url.lstrip("/"))]
    form = [ln for ln in links if ln[2] == "m=true_statement_judged_false"]
    assert form == [("『不適切なもの』を選ぶ問題を練習する", PAGE_BY_KEY["drill"].url.lstrip("/"), "m=true_statement_judged_false")]

    # following the form link: a set of 不適切 items across topics, named for what is practised
    at = open_page(DRILL, query={"m": "true_statement_judged_false"}, session=_session(rec))
    assert not at.exception
    assert "練習：『不適切なもの』を選ぶ問題" in [h.value for h in at.header]
    ids = at.session_state["drill__ids"]
    assert len(ids) == 5 and len({quizzes.from_id(q).topic for q in ids}) == 5
    assert all(M.question_form(quizzes.from_id(q)) == "worst" for q in ids)
    assert any(c.value.startswith("どれも『不適切なもの』を選ぶ問題です") for c in at.caption)


def test_a_set_of_few_distinct_items_says_why_it_is_short():
    at = open_page(DRILL, query={"m": "teacher_forcing"}, session=_session([]))
    assert not at.exception
    ids = at.session_state["drill__ids"]
    in_scope = [g for g in drill.generators_for("teacher_forcing") if not quizzes.is_advanced(g)]   # 発展 is opt-in
    assert len(in_scope) < len(drill.generators_for("teacher_forcing"))
    assert len(ids) == len({q.rsplit("#", 1)[0] for q in ids}) == len(in_scope) < 5
    assert f"この練習に使える問題は {len(ids)} 種類なので、同じ問題をくり返さないよう {len(ids)} 問にしています。" \
        in [c.value for c in at.caption]


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
