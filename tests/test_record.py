"""practice.record defines each part of the progress record once: what the practice functions
make has exactly those keys, and the validator checks exactly those keys."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import quizzes
from practice import exam as ex
from practice import record, store
from practice.progress import apply_answer, new_progress
from practice.record import Attempt, Card, ExamResult, ExamState, Progress, Settings, optional, required
from practice.review import ITEM_KEYS

from practice_fakes import fake_registry

T0 = datetime(2026, 3, 1, 9, tzinfo=timezone(timedelta(hours=9)))


def test_what_the_practice_functions_make_has_the_defined_keys():
    with fake_registry():
        p = apply_answer(new_progress(), "zz.qkv.calc0#1", "qkv", False, 1, "page", T0)
        paper = ex.new_exam(10, 40, 3, time.time())
        qs = [quizzes.from_id(q) for q in paper["qids"]]
        result = ex.history_record(ex.score_exam(qs, {0: qs[0].answer}), T0, T0 + timedelta(minutes=3), 40,
                                   paper["run"])
    assert set(p) == required(Progress) and set(p["settings"]) == required(Settings)
    assert set(p["attempts"][0]) == required(Attempt)
    assert set(p["review"]["zz.qkv.calc0"]) == required(Card)        # keyed by skill (practice.skill)
    assert set(paper) == required(ExamState)
    assert required(ExamResult) <= set(result) <= required(ExamResult) | optional(ExamResult)


def test_the_validator_checks_the_defined_keys():
    assert store.TOP_KEYS == required(Progress) and store.SETTINGS_KEYS == required(Settings)
    assert store.ATTEMPT_KEYS == required(Attempt) and ITEM_KEYS == required(Card)
    assert store.EXAM_KEYS == required(ExamResult) and store.EXAM_OPTIONAL_KEYS == {"run"}
    assert ex.STATE_KEYS == required(ExamState)
