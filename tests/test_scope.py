"""practice.scope: 発展 is opt-in wherever a learner practises (issue 41 row 3). With the setting off (the
default), a page's quiz draws the exam's items first, a 発展 answer neither earns nor costs a page's
✓, and the review, the misconception profile and its drills leave 発展 out; turned on, they come back
(nothing was deleted). Checked on the real bank: ⑩-1's and ⑦-4's 発展 generators."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

import quizzes
from practice import drill, scope
from practice.profile import top_misconceptions
from practice.progress import apply_answer, due_today, new_progress, set_setting, to_master, topic_stats
from quizzes.core import GENERATOR_INFO
from quizzes.misconceptions import question_ids

from apphelpers import open_page

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=timezone.utc)


def topic_with_both() -> tuple[str, list[str], list[str]]:
    """A learning topic with at least 3 in-scope and 1 発展 generator, and the two lists."""
    for topic in quizzes.core.TOPICS:
        gens = quizzes.by_topic(topic)
        inside = [g for g in gens if not GENERATOR_INFO[g].advanced]
        beyond = [g for g in gens if GENERATOR_INFO[g].advanced]
        if len(inside) >= 3 and beyond:
            return topic, inside, beyond
    pytest.fail("no topic has both 発展 and in-scope items")


def answered(progress: dict, gid: str, correct: bool, seed: int = 1) -> dict:
    q = quizzes.from_id(f"{gid}#{seed}")
    choice = q.answer if correct else (q.answer + 1) % 4
    return apply_answer(progress, q.id, q.topic, correct, choice, "page", NOW)


def test_the_setting_is_off_by_default_and_orders_the_exams_items_first():
    topic, inside, beyond = topic_with_both()
    p = new_progress()
    assert not scope.includes_advanced(p)
    mixed = [beyond[0], inside[0], beyond[-1], inside[1]]
    assert scope.scope_first(mixed, p) == [inside[0], inside[1], beyond[0], beyond[-1]]
    assert scope.scope_first(mixed, set_setting(p, "advanced", True)) == mixed


def test_a_page_check_mark_counts_the_exams_items_only():
    """Five right answers to 発展 items earn no ✓; four of five in-scope ones do, with the 発展 misses
    in between costing nothing."""
    topic, inside, beyond = topic_with_both()
    p = new_progress()
    for k in range(5):
        p = answered(p, beyond[0], True, k)
    assert topic not in topic_stats(p) and to_master(p, topic) == 5
    for k, g in enumerate([inside[0], inside[1], inside[2], inside[0]]):
        p = answered(p, g, True, k)
        p = answered(p, beyond[0], False, k)
    assert to_master(p, topic) == 1 and not topic_stats(p)[topic]["mastered"]
    p = answered(p, inside[1], True, 9)
    assert topic_stats(p)[topic]["mastered"] and topic_stats(p)[topic]["answered"] == 5


def test_review_leaves_advanced_skills_out_until_the_learner_includes_them():
    topic, inside, beyond = topic_with_both()
    p = answered(answered(new_progress(), beyond[0], False), inside[0], False)
    assert set(p["review"]) >= {beyond[0], inside[0]}                # both missed: both cards kept
    assert beyond[0] not in scope.practised_review(p) and inside[0] in scope.practised_review(p)
    later = NOW.date()
    assert due_today(p, later) == 1
    on = set_setting(p, "advanced", True)
    assert due_today(on, later) == 2 and scope.practised_review(on) is on["review"]


def test_the_profile_and_its_drills_leave_advanced_out_until_included():
    """A misconception met only on 発展 items is no つまずき while 発展 is off; a drill of a misconception
    named by both kinds draws only the exam's items."""
    index = drill.misconception_index()
    mixed = next(mid for mid, gens in sorted(index.items())
                 if any(GENERATOR_INFO[g].advanced for g in gens) and any(not GENERATOR_INFO[g].advanced for g in gens))
    beyond = next(g for g in sorted(index[mixed]) if GENERATOR_INFO[g].advanced)
    p = new_progress()
    for seed in sorted(index[mixed][beyond])[:3]:
        q = quizzes.from_id(f"{beyond}#{seed}")
        wrong = next(i for i, ids in enumerate(question_ids(q)) if mixed in ids)
        p = apply_answer(p, q.id, q.topic, False, wrong, "page", NOW)
    assert mixed not in [row.id for row in top_misconceptions(p, None)]
    assert mixed in [row.id for row in top_misconceptions(set_setting(p, "advanced", True), None)]
    for _ in range(5):
        ids = drill.drill_ids(mixed, 5)
        assert ids and not any(quizzes.is_advanced(q) for q in ids)
    assert any(quizzes.is_advanced(q) for _ in range(20) for q in drill.drill_ids(mixed, 8, advanced=True))


def test_a_page_quiz_draws_the_exams_items_first():
    """On a page with enough in-scope items, the three cards and 「もう 1 問」 up to their count are the
    exam's; a learner who includes 発展 gets them mixed in (over many draws)."""
    topic, inside, beyond = topic_with_both()
    from ui.nav import PAGE_BY_KEY
    at = open_page(PAGE_BY_KEY[topic].path, section="quiz")
    ids = at.session_state[f"quiz_{topic}__ids"]
    assert len(ids) == 3 and not any(quizzes.is_advanced(q) for q in ids)
    for _ in range(min(len(inside), 10) - 3):
        at.button(key=f"quiz_{topic}__more").click().run()
    assert not any(quizzes.is_advanced(q) for q in at.session_state[f"quiz_{topic}__ids"])
