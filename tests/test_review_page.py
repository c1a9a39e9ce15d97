"""AppTest of /review: review sessions, weak topics, progress export/import, retention, clearing the device."""
from datetime import datetime, timedelta, timezone
import json
from pathlib import Path
import tomllib
from types import SimpleNamespace

import pytest

from practice import exam as ex, review as rv
from practice.progress import apply_answer, apply_answers, new_progress, set_setting
from practice.store import export_bytes
import quizzes
from tutor import numfmt
import ui.backup as backup
import ui.state as state

from apphelpers import (
    first_quiz_card, learning_page_with_quiz, metric, no_exception, open_page, page_text, tables, wrong
)
from practice_fakes import fake_registry


EXAM, REVIEW = "pages/20_exam.py", "pages/21_review.py"
pytestmark = pytest.mark.usefixtures("fakes")     # the known fake question registry


def saved_progress() -> dict:
    q = quizzes.from_id("zz.formula.know2#8")
    p = apply_answer(new_progress(), q.id, q.topic, False, wrong(q), "page", datetime(2026, 3, 1, 9, tzinfo=timezone.utc))
    qs = [quizzes.from_id(i) for i in ex.build_exam(10, 4)]
    r = ex.score_exam(qs, {i: qs[i].answer for i in range(7)})
    return ex.record_exam(p, r, datetime(2026, 3, 1, 10, tzinfo=timezone.utc), datetime(2026, 3, 1, 10, 5, tzinfo=timezone.utc), 40)


def shown(at, skill: str):
    """The question /review draws for the due card of ``skill`` (a fresh instance, kept for the round)."""
    return quizzes.from_id(at.session_state["review__drawn"][skill])


def answer_review_card(at, question, right: bool = True) -> None:
    card = [r for r in at.radio if (r.key or "").startswith("review_")][0].key[: -len("__choice")]
    assert card.endswith(question.id)
    at.radio(key=f"{card}__choice").set_value(question.answer if right else wrong(question))
    at.button(key=f"{card}__submit").click()
    no_exception(at.run())


class FakeUpload:
    def __init__(self, data: bytes | Exception):
        self.data = data

    def getvalue(self) -> bytes:
        if isinstance(self.data, Exception):
            raise self.data
        return self.data


def test_review_session_wrong_on_page_then_due_then_fsrs_moves_it():
    at, path = learning_page_with_quiz()
    key, q = first_quiz_card(at)
    at.radio(key=f"{key}__choice").set_value(wrong(q))  # a form: sent with the submit
    at.button(key=f"{key}__submit").click()
    no_exception(at.run())
    skill = q.generator_id                              # the card is the skill (practice.skill.key)
    assert at.session_state["progress"]["review"][skill]["state"] == 1
    # one answer per card: the choices are shown as text from now on, the right one and the learner's marked
    assert not any(r.key == f"{key}__choice" for r in at.radio)
    assert any(m.value.startswith("- A. ") and "← あなたの解答" in m.value for m in at.markdown)

    no_exception(at.switch_page(REVIEW).run())
    assert metric(at, "今日が期限の問題") == "1 問"
    again = shown(at, skill)                            # a fresh instance of the same skill, not the item answered
    assert again.id != q.id and (again.stem, again.choices) != (q.stem, q.choices) and again.answer != q.answer
    assert again.stem in page_text(at)
    answer_review_card(at, again)
    item = at.session_state["progress"]["review"][skill]
    assert item["reps"] == 2 and item["lapses"] == 0   # FSRS: Again, then Good (its second learning step)
    assert "今日のうちにもう一度出ます。" in page_text(at)
    assert list(tables(at)[0]["問題数"]) == ["1", "0", "0"]
    assert [a["source"] for a in at.session_state["progress"]["attempts"]] == ["page", "review"]
    at.button(key="review_next").click()
    no_exception(at.run())
    assert "この回の復習は終わりました" in page_text(at)
    # right once more (the next round): the question graduates to days
    at.button(key="review_again").click()
    no_exception(at.run())
    third = shown(at, skill)                            # the next round: another instance again
    assert third.id not in (q.id, again.id) and third.generator_id == skill
    answer_review_card(at, third)
    item = at.session_state["progress"]["review"][skill]
    day = rv.due_date(item)
    assert item["state"] == 2 and day > datetime.now().date()
    assert f"次は {numfmt.day(day, datetime.now().date())}（{(day - datetime.now().date()).days} 日後）に出ます。" in page_text(at)
    assert metric(at, "今日が期限の問題") == "0 問"
    at.button(key="review_next").click()
    no_exception(at.run())
    assert "今日の復習はすべて終わりました" in page_text(at) and numfmt.day(day, datetime.now().date()) in page_text(at)


def test_review_wrong_answer_stays_due_and_comes_back_next_round():
    q1, q2 = quizzes.from_id("zz.qkv.calc0#11"), quizzes.from_id("zz.mask.know1#4")
    now = datetime.now() - timedelta(minutes=30)
    p = apply_answer(new_progress(), q1.id, q1.topic, False, wrong(q1), "page", now)
    p = apply_answer(p, q2.id, q2.topic, False, wrong(q2), "exam", now)
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    assert metric(at, "今日が期限の問題") == "2 問"
    s1, s2 = q1.generator_id, q2.generator_id
    assert at.session_state["review__cur"] == s2  # due at the same time: ordered by skill key
    first_round = {}
    for q, right in ((q2, True), (q1, False)):
        instance = first_round[q.generator_id] = shown(at, q.generator_id)
        assert instance.generator_id == q.generator_id and instance.id != q.id
        assert instance.stem in page_text(at)
        answer_review_card(at, instance, right)
        at.button(key="review_next").click()
        no_exception(at.run())
    review = at.session_state["progress"]["review"]
    assert review[s1]["lapses"] == 1 and review[s2]["lapses"] == 0 and review[s2]["reps"] == 2
    assert "今日の分にまだ 2 問残っています" in page_text(at)
    at.button(key="review_again").click()
    no_exception(at.run())
    back = shown(at, s1)                                # missed in review: back as yet another instance
    assert back.id not in (q1.id, first_round[s1].id) and back.stem in page_text(at)


@pytest.mark.parametrize("qid", ["zz.qkv.calc0#11", "zz.mask.know1#4"])
def test_after_a_wrong_answer_on_a_page_the_review_shows_another_instance_of_the_same_skill(qid):
    """Issue 35: the item missed on a page is not the item reviewed minutes later (same matrix, same
    A–D order: answerable by remembering the letter). A calculation comes back with new numbers, a
    knowledge item with its choices in a new order and the right one at another letter."""
    q = quizzes.from_id(qid)
    p = apply_answer(new_progress(), q.id, q.topic, False, wrong(q), "page", datetime.now() - timedelta(minutes=3))
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    assert at.session_state["review__cur"] == q.generator_id
    again = shown(at, q.generator_id)
    assert again.generator_id == q.generator_id and again.id != q.id
    assert again.answer != q.answer and again.choices != q.choices
    assert again.stem in page_text(at) and again.choices[again.answer] == q.choices[q.answer] or q.kind == "calc"
    for _ in range(2):                                    # a rerun never swaps the question under the learner
        no_exception(at.run())
        assert shown(at, q.generator_id).id == again.id
    answer_review_card(at, again)
    log = at.session_state["progress"]["attempts"]
    assert [(a["qid"], a["source"]) for a in log] == [(q.id, "page"), (again.id, "review")]   # the exact ids shown
    assert list(at.session_state["progress"]["review"]) == [q.generator_id]                    # one card, rated twice
    assert at.session_state["progress"]["review"][q.generator_id]["reps"] == 2
    assert shown(at, q.generator_id).id == again.id      # the answered card stays on screen with its feedback


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
    before = at.session_state["progress"]
    at.file_uploader(key=backup.UPLOAD_KEY).set_value(("progress.json", export_bytes(good), "application/json"))
    no_exception(at.run())
    now = at.session_state["progress"]
    assert {k: v for k, v in now.items() if k != "visited"} == {k: v for k, v in good.items() if k != "visited"}
    assert now["visited"] == {**good["visited"], **before["visited"], "review": True}  # the file's and this browser's
    assert any("進捗を読み込みました（解答 8 件・模擬試験 1 回・復習予定 1 問）" in s.value for s in at.success)
    assert metric(at, "復習予定の全体") == "1 問"  # the page's wrong answer (unanswered exam items are not scheduled)
    no_exception(at.switch_page("app.py").run())
    assert "7/10" in page_text(at)  # the imported exam is on the dashboard


def test_import_bad_file_through_the_uploader_leaves_progress_untouched():
    at = no_exception(open_page(REVIEW, session={"progress": saved_progress()}))
    current = at.session_state["progress"]
    hostile = json.dumps({"version": 1, "visited": {"<script>alert(1)</script>": True}, "attempts": [],
                          "exams": [], "review": {}}).encode()
    at.file_uploader(key=backup.UPLOAD_KEY).set_value(("evil.json", hostile, "application/json"))
    no_exception(at.run())
    assert at.session_state["progress"] == current
    err = at.error[0].value
    assert "読み込めませんでした" in err and "今の進捗はそのままです" in err
    assert "\\<script\\>" in err and "<script>" not in err.replace("\\<script\\>", "")
    # then a good one still works: it is joined with this browser's answers after the learner saw
    # what it adds (issue 42 row 6: an import never replaces)
    other = apply_answer(new_progress(), "zz.qkv.calc0#9", "qkv", True, 0, "page")
    at.file_uploader(key=backup.UPLOAD_KEY).set_value(("ok.json", export_bytes(other), "application/json"))
    no_exception(at.run())
    assert at.session_state["progress"] == current                       # nothing yet
    assert "解答 1 件（このブラウザにない分）" in page_text(at)
    assert f"このブラウザの解答 {len(current['attempts'])} 件はすべて残ります" in page_text(at)
    at.button(key="import_apply").click()
    no_exception(at.run())
    kept = at.session_state["progress"]["attempts"]
    assert len(kept) == len(current["attempts"]) + 1 and all(a in kept for a in current["attempts"])
    assert any("このブラウザの進捗と合わせてあります" in s.value for s in at.success)


@pytest.mark.parametrize("upload, ok", [
    (FakeUpload(export_bytes(new_progress())), True),
    (FakeUpload(b"{not json"), False),
    (FakeUpload(b"\xff" * 10), False),
    (FakeUpload(OSError("gone")), False),
    (None, None),
])
def test_import_callback_directly(monkeypatch, upload, ok):
    current = saved_progress()
    session = {state.PROGRESS_KEY: current, backup.UPLOAD_KEY: upload}
    fake_st = SimpleNamespace(session_state=session, warning=lambda *a, **k: None)
    monkeypatch.setattr(state, "st", fake_st)
    monkeypatch.setattr(backup, "st", fake_st)
    backup.import_uploaded()
    if ok is None:  # the learner removed the file: nothing happens
        assert backup.IMPORT_MSG_KEY not in session and session[state.PROGRESS_KEY] is current
    elif ok:   # this browser has answers: the file waits to be joined (issue 42 row 6), then joins
        assert session[state.PROGRESS_KEY] is current and backup.IMPORT_PENDING_KEY in session
        backup.apply_import()
        assert session[state.PROGRESS_KEY] == current and session[backup.IMPORT_MSG_KEY][0] == "success"
    else:
        assert session[state.PROGRESS_KEY] is current and session[backup.IMPORT_MSG_KEY][0] == "error"
    # the page shows the outcome
    if ok is not None:
        monkeypatch.undo()
        with fake_registry():
            at = no_exception(open_page(REVIEW, session={"progress": session[state.PROGRESS_KEY],
                                                         backup.IMPORT_MSG_KEY: session[backup.IMPORT_MSG_KEY]}))
            shown = (at.success if ok else at.error)[0].value
            assert ("読み込みました" if ok else "今の進捗はそのままです") in shown


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


# ---------------------------------------------------------------------------
# a daily limit: today's share of the due pile
# ---------------------------------------------------------------------------
def pile_skills(n: int) -> list[str]:
    """n skill keys of the fake registry (one review card per skill)."""
    skills = sorted(quizzes.GENERATOR_INFO)
    assert len(skills) >= n
    return skills[:n]


def overdue_pile(n: int) -> dict:
    """A record with n review cards (n skills), card i due i + 1 days ago (the last the most overdue)."""
    today = datetime.now().date()
    p = new_progress()
    p["review"] = {g: rv.from_box(quizzes.GENERATOR_INFO[g].topic, 3, (today - timedelta(days=i + 1)).isoformat(), 0)
                   for i, g in enumerate(pile_skills(n))}
    return p


def test_62_due_questions_make_a_share_of_30_the_most_overdue_first():
    at = no_exception(open_page(REVIEW, session={"progress": overdue_pile(62)}))
    text = page_text(at)
    assert "今日の分 30 問（期限が来ている 62 問のうち）" in text
    assert "1 日の上限は 30 問です。期限を過ぎてから長い問題ほど忘れやすいので先に出し" in text
    assert metric(at, "今日が期限の問題") == "62 問"
    assert at.session_state["review__cur"] == pile_skills(62)[61]           # the most overdue first
    assert "この回 あと **30 問**" in text
    assert at.select_slider(key="review_limit").value == 30
    assert any(c.value.startswith("今日の復習に出すのは 1 日 30 問まで（1 問 40 秒として約 20 分）。") for c in at.caption)
    # answered right: one place of today's 30 is used, the pile shrinks by one
    answer_review_card(at, shown(at, pile_skills(62)[61]))
    text = page_text(at)
    assert "今日の分 あと 29 問（期限が来ている 61 問のうち）" in text
    assert "（今日はもう 1 問を復習しました）" in text
    assert "この回 あと **29 問**" in text                                       # the round's count moved too


def test_changing_the_daily_limit_changes_todays_share():
    at = no_exception(open_page(REVIEW, session={"progress": overdue_pile(62)}))
    at.select_slider(key="review_limit").set_value(10)
    no_exception(at.run())
    assert at.session_state["progress"]["settings"]["daily_review_limit"] == 10
    assert "今日の分 10 問（期限が来ている 62 問のうち）" in page_text(at)
    assert any(c.value.startswith("今日の復習に出すのは 1 日 10 問まで（1 問 40 秒として約 7 分）。") for c in at.caption)
    at.select_slider(key="review_limit").set_value(100)
    no_exception(at.run())
    text = page_text(at)
    assert "今日の分 62 問（期限が来ている 62 問のうち）" in text and "1 日の上限は" not in text
    assert at.session_state["progress"]["settings"]["daily_review_limit"] == 100


def test_a_finished_share_says_the_rest_waits_and_how_to_do_more():
    p = overdue_pile(12)
    p = set_setting(p, "daily_review_limit", 10)
    share = rv.todays_share(p["review"], datetime.now().date(), None, 10)
    p = apply_answers(p, [(f"{q}#{i}", quizzes.GENERATOR_INFO[q].topic, True, 0) for i, q in enumerate(share)],
                      "review", datetime.now().astimezone())
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    assert at.session_state["review__cur"] is None
    text = page_text(at)
    assert "今日の分は終わりました。期限が来ている残りの 2 問は、明日からの分に回ります。" in text
    assert "今日の分 あと 0 問（期限が来ている 2 問のうち）" in text
    at.select_slider(key="review_limit").set_value(20)                   # more today
    no_exception(at.run())
    assert at.session_state["review__cur"] in set(p["review"]) - set(share)


def test_the_review_starts_with_the_question_and_its_count_moves_as_the_learner_answers():
    """Issue 41 row 7: on a phone the review began with a paragraph and two metrics (the question below
    the first screen), 「…あと 5 問」 stayed put during a round, and a right answer had to show its 解説
    as a wrong one does. Now: the header, this round's count, the card; the count drops as each card
    is answered; the explanation of how review works is folded below."""
    at = no_exception(open_page(REVIEW, session={"progress": overdue_pile(3)}, unfold=False))
    md = [m.value for m in at.markdown]
    assert md.index("この回 あと **3 問**") < next(i for i, m in enumerate(md) if m.startswith("**問**"))
    assert "まちがえた問題は、ここに" not in page_text(at)                    # folded (ui.lazy_expander)
    first = at.session_state["review__cur"]
    q = shown(at, first)
    answer_review_card(at, q)
    assert "この回 あと **2 問**" in page_text(at)
    assert any(i.value.startswith("**解説**") for i in at.info)              # a right answer explains too
    at.button(key="review_next").click()
    no_exception(at.run())
    assert "この回 あと **2 問**" in page_text(at)                             # the next card, not yet answered
    answer_review_card(at, shown(at, at.session_state["review__cur"]), right=False)
    assert "この回 あと **1 問**" in page_text(at)
    assert any(i.value.startswith("**解説**") for i in at.info)
