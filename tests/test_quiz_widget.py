"""The quiz section every learning page ends with (ui.quiz_section), driven through AppTest."""
import quizzes
from apphelpers import open_page, page_text

QKV = "pages/2_qkv.py"


def _card(at, i: int):
    radio = next(r for r in at.radio if r.key.endswith(f"_{i}__choice"))
    submit = next(b for b in at.button if b.key.endswith(f"_{i}__submit"))
    return radio, submit


def _question_ids(at, topic: str) -> list[str]:
    return list(at.session_state[f"quiz_{topic}__ids"])


def test_fresh_questions_belong_to_the_page_and_start_unanswered():
    at = open_page(QKV)
    ids = _question_ids(at, "qkv")
    assert len(ids) == 3 and len({i.split("#")[0] for i in ids}) == 3
    assert all(quizzes.from_id(q).topic == "qkv" for q in ids)
    assert any(quizzes.from_id(q).kind == "calc" for q in ids)
    radio, submit = _card(at, 1)
    assert radio.value is None          # nothing preselected
    # cannot answer before choosing: 回答する is a form's submit button (clickable at once, so a
    # fast click after a choice is never lost); pressed without a choice it records nothing
    assert submit.form_id and not submit.disabled
    submit.click().run()
    assert not at.exception
    assert at.session_state["progress"]["attempts"] == []
    assert any("選択肢を 1 つ選んでから" in w.value for w in at.warning)
    radio, submit = _card(at, 1)
    assert radio.value is None and not radio.disabled and not submit.disabled   # still open


def test_right_answer_is_confirmed_with_the_explanation_and_recorded():
    at = open_page(QKV)
    q = quizzes.from_id(_question_ids(at, "qkv")[0])
    radio, submit = _card(at, 1)
    radio.set_value(q.answer)           # a form: the choice is sent with 回答する, in one run
    submit.click().run()
    assert not at.exception
    assert any("正解です" in s.value for s in at.success)
    assert q.explanation in page_text(at)
    attempts = at.session_state["progress"]["attempts"]
    assert [(a["qid"], a["correct"], a["source"]) for a in attempts] == [(q.id, True, "page")]
    assert q.id not in at.session_state["progress"]["review"]
    radio, submit = _card(at, 1)
    assert radio.value == q.answer and radio.disabled and submit.disabled   # locked, the choice still shown


def test_wrong_answer_names_the_mistake_and_schedules_a_review():
    at = open_page(QKV)
    q = quizzes.from_id(_question_ids(at, "qkv")[1])
    wrong = (q.answer + 1) % 4
    radio, submit = _card(at, 2)
    radio.set_value(wrong)
    submit.click().run()
    assert not at.exception
    assert any("不正解" in e.value and q.choices[q.answer] in e.value for e in at.error)
    assert any(q.misconceptions[wrong] in w.value for w in at.warning)
    assert at.session_state["progress"]["review"][q.id]["state"] == 1  # FSRS: rated Again, due today


def test_link_reopens_exactly_that_question():
    qid = quizzes.by_topic("qkv", "calc")[0] + "#12345"
    q = quizzes.from_id(qid)
    at = open_page(QKV, query={"q": qid})
    assert not at.exception
    assert _question_ids(at, "qkv")[0] == qid
    assert q.stem in page_text(at)
    assert f"?q={qid.replace('#', '%23')}" in page_text(at)   # the link shown under the card


def test_bad_or_foreign_links_fall_back_to_fresh_questions():
    for bad in ("nonsense", "qkv.nope#1", quizzes.by_topic("mask")[0] + "#3"):
        at = open_page(QKV, query={"q": bad})
        assert not at.exception
        assert any("リンクの問題を開けませんでした" in w.value for w in at.warning)
        assert all(quizzes.from_id(q).topic == "qkv" for q in _question_ids(at, "qkv"))


def test_bad_link_warning_stays_until_the_link_is_left():
    """Any rerun (opening a folded step, a slider) keeps saying why the linked question is not
    there; 新しい問題 leaves the link (the ?q= is removed) and the warning goes."""
    at = open_page(QKV, query={"q": "qkv.nope#1"}, unfold=False)
    at.run()
    assert any("リンクの問題を開けませんでした" in w.value for w in at.warning)
    next(b for b in at.button if b.key == "quiz_qkv__new").click().run()
    assert not any("リンクの問題を開けませんでした" in w.value for w in at.warning)
    assert "q" not in at.query_params


def test_new_questions_button_draws_a_new_round():
    at = open_page(QKV)
    before = _question_ids(at, "qkv")
    next(b for b in at.button if b.key == "quiz_qkv__new").click().run()
    assert not at.exception
    after = _question_ids(at, "qkv")
    assert after != before and len(after) == 3
    assert all(_card(at, i)[0].value is None for i in (1, 2, 3))


def test_answer_that_earns_the_mark_redraws_the_sidebar():
    """A card is a fragment (an answer reruns the card only); when the answer changes the page's ✓
    the callback asks for a full rerun, so the sidebar shows the new mark at once. AppTest always
    runs the whole script: this checks that the callback's st.rerun(scope="app") is accepted and
    the mark is right; that an answer otherwise reruns the card only is tests/test_felt.py's."""
    from practice.progress import apply_answer, is_mastered, new_progress

    p = new_progress()
    for seed in range(4):   # 4 right answers: one more right one makes 5 of 5 (✓)
        p = apply_answer(p, f"zz.qkv.calc0#{seed}", "qkv", True, 0, "page")
    assert not is_mastered(p, "qkv")
    at = open_page(QKV, session={"progress": p})
    label = ui_label("qkv")
    assert label in _sidebar_labels(at) and label + " ✓" not in _sidebar_labels(at)
    q = quizzes.from_id(_question_ids(at, "qkv")[0])
    radio, submit = _card(at, 1)
    radio.set_value(q.answer)
    submit.click().run()
    assert not at.exception
    assert is_mastered(at.session_state["progress"], "qkv")
    assert label + " ✓" in _sidebar_labels(at)
    assert any("正解です" in s.value for s in at.success)


def ui_label(key: str) -> str:
    import ui
    return ui.PAGE_BY_KEY[key].label


def _sidebar_labels(at) -> list[str]:
    return [pl.label for pl in at.sidebar.get("page_link")]
