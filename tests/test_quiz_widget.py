"""The quiz section every learning page ends with (ui.quiz_section), driven through AppTest."""
import quizzes
import ui
from apphelpers import open_page, page_text

QKV = "pages/2_qkv.py"


def _card(at, i: int):
    radio = next(r for r in at.radio if r.key.endswith(f"_{i}__choice"))
    submit = next(b for b in at.button if b.key.endswith(f"_{i}__submit"))
    return radio, submit


def _question_ids(at, topic: str) -> list[str]:
    return list(at.session_state[f"quiz_{topic}__ids"])


def test_fresh_questions_belong_to_the_page_and_start_unanswered():
    at = open_page(QKV, section="quiz")
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
    at = open_page(QKV, section="quiz")
    q = quizzes.from_id(_question_ids(at, "qkv")[0])
    radio, submit = _card(at, 1)
    radio.set_value(q.answer)           # a form: the choice is sent with 回答する, in one run
    submit.click().run()
    assert not at.exception
    assert any("正解です" in s.value for s in at.success)
    assert q.explanation in page_text(at)
    attempts = at.session_state["progress"]["attempts"]
    assert [(a["qid"], a["correct"], a["source"]) for a in attempts] == [(q.id, True, "page")]
    assert q.generator_id not in at.session_state["progress"]["review"]   # cards are skills (practice.skill)
    # locked (one answer per card): the radio and 回答する give way to the choices as text, the
    # right one marked in words, and marked as the learner's too
    assert not any(r.key.endswith("_1__choice") for r in at.radio)
    assert not any(b.key.endswith("_1__submit") for b in at.button)
    right = "✓ 正解（誤っている記述）" if ui.quiz.asks_for_incorrect(q) else "✓ 正解"   # a 不適切 item says so
    assert _marked(at, q) == {q.answer: f"　**{right}**　← あなたの解答"}


def test_wrong_answer_names_the_mistake_and_schedules_a_review():
    at = open_page(QKV, section="quiz")
    q = quizzes.from_id(_question_ids(at, "qkv")[1])
    wrong = (q.answer + 1) % 4
    radio, submit = _card(at, 2)
    radio.set_value(wrong)
    submit.click().run()
    assert not at.exception
    assert any("不正解" in e.value and q.choices[q.answer] in e.value for e in at.error)
    assert any(q.misconceptions[wrong] in w.value for w in at.warning)
    assert at.session_state["progress"]["review"][q.generator_id]["state"] == 1  # FSRS: its skill rated Again, due today
    # in place: the right choice and the learner's, marked with an icon and words; the others as they were
    right = "✓ 正解（誤っている記述）" if ui.quiz.asks_for_incorrect(q) else "✓ 正解"   # a 不適切 item says so
    assert _marked(at, q) == {q.answer: f"　**{right}**", wrong: "　← あなたの解答"}
    assert q.explanation in page_text(at)


def _marked(at, q) -> dict[int, str]:
    """The answered card's list of choices (one Markdown list, A〜D in order): {choice: its marks}."""
    [shown] = [m.value for m in at.markdown if m.value.startswith(f"- A. {q.choices[0]}")]
    lines = shown.split("\n")
    assert len(lines) == 4
    marks = {}
    for i, line in enumerate(lines):
        head = f"- {'ABCD'[i]}. {q.choices[i]}"
        assert line.startswith(head), (line, head)
        if line != head:
            marks[i] = line[len(head):]
    return marks


def test_an_item_asking_for_the_incorrect_statement_marks_it_with_the_exams_words():
    """On a 不適切 item the right choice is the WRONG statement: marked as the exam's result screen
    marks it (ui.quiz.answer_tag)."""
    qid = "kb.qkv.k04#5"
    q = quizzes.from_id(qid)
    assert ui_quiz().asks_for_incorrect(q)
    at = open_page(QKV, query={"q": qid})
    assert _question_ids(at, "qkv")[0] == qid
    wrong = (q.answer + 2) % 4
    radio, submit = _card(at, 1)
    radio.set_value(wrong)
    submit.click().run()
    assert not at.exception
    assert _marked(at, q) == {q.answer: "　**✓ 正解（誤っている記述）**", wrong: "　← あなたの解答"}
    assert any(q.misconceptions[wrong] in w.value for w in at.warning)    # the mistake line stays


def ui_quiz():
    import ui.quiz
    return ui.quiz


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
    at = open_page(QKV, section="quiz")
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
    at = open_page(QKV, session={"progress": p}, section="quiz")
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


def _mastery_line(at) -> str:
    [line] = [m.value for m in at.markdown if "習得" in m.value]
    return line


def test_mastery_is_earned_on_the_page_counting_down_with_one_more_question():
    """From no answers: 5 right answers in a row earn ✓ (the rule judges the last 5). The line under
    the cards counts down after every answer; when the 3 cards are used up, 「もう 1 問」 adds a card
    of the page's topic, from a generator none of the cards uses."""
    at = open_page(QKV, section="quiz")
    label = ui_label("qkv")
    assert _mastery_line(at) == "あと 5 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）"
    for n, left in zip(range(1, 6), (4, 3, 2, 1, 0)):
        if n > len(_question_ids(at, "qkv")):
            assert "「もう 1 問」で続けられます" in _mastery_line(at)
            next(b for b in at.button if b.key == "quiz_qkv__more").click().run()
            assert not at.exception
        ids = _question_ids(at, "qkv")
        assert len(ids) == max(3, n) and len({i.split("#")[0] for i in ids}) == len(ids)
        assert all(quizzes.from_id(i).topic == "qkv" for i in ids)
        q = quizzes.from_id(ids[n - 1])
        radio, submit = _card(at, n)
        assert radio.value is None
        radio.set_value(q.answer)
        submit.click().run()
        assert not at.exception
        want = f"あと {left} 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）" if left else "このページは習得済みです（✓）"
        assert _mastery_line(at).startswith(want), (n, _mastery_line(at))
        assert (label + " ✓" in _sidebar_labels(at)) == (left == 0)
    assert "✓ 習得：そのページの試験範囲の問題の直近 5 問で 4 問以上正解" in [c.value for c in at.sidebar.get("caption")]


def test_the_count_follows_wrong_answers_too():
    """One wrong answer among the last 5 is allowed (it counts as one of the 5); a second one puts
    the count back up."""
    at = open_page(QKV, section="quiz")
    ids = _question_ids(at, "qkv")
    for n, right, left in ((1, True, 4), (2, False, 3), (3, False, 4)):
        q = quizzes.from_id(ids[n - 1])
        radio, submit = _card(at, n)
        radio.set_value(q.answer if right else (q.answer + 1) % 4)
        submit.click().run()
        assert _mastery_line(at).startswith(f"あと {left} 問続けて正解すれば習得（✓：直近 5 問のうち 4 問以上が正解）"), (n, _mastery_line(at))


def test_one_more_question_stops_at_ten_cards():
    at = open_page(QKV, section="quiz")
    from ui.quiz import MAX_CARDS
    for _ in range(MAX_CARDS - 3):
        next(b for b in at.button if b.key == "quiz_qkv__more").click().run()
        assert not at.exception
    ids = _question_ids(at, "qkv")
    assert len(ids) == MAX_CARDS and len({i.split("#")[0] for i in ids}) == MAX_CARDS   # qkv has 11 generators
    assert len([r for r in at.radio if r.key.startswith("quiz_qkv_")]) == MAX_CARDS
    assert not any(b.key == "quiz_qkv__more" for b in at.button)
    assert any("10 問まで" in c.value for c in at.caption)
    next(b for b in at.button if b.key == "quiz_qkv__new").click().run()
    assert len(_question_ids(at, "qkv")) == 3 and any(b.key == "quiz_qkv__more" for b in at.button)


def test_one_more_id_repeats_a_generator_only_when_all_are_used():
    from ui.quiz import _one_more_id
    gens = quizzes.by_topic("qkv")
    ids = [f"{g}#1" for g in gens[:-1]]
    assert all(_one_more_id("qkv", ids).split("#")[0] == gens[-1] for _ in range(20))
    ids = [f"{g}#1" for g in gens]
    picks = {_one_more_id("qkv", ids).split("#")[0] for _ in range(50)}
    assert picks <= set(gens) and gens[-1] not in picks      # not the last card's generator again
