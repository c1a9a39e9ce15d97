"""practice.record defines each part of the progress record once: what the practice functions
make has exactly those keys, and the validator checks exactly those keys."""
from __future__ import annotations

import copy
import time
from datetime import datetime, timedelta, timezone
from typing import Annotated, TypedDict

import pytest

import quizzes
from practice import exam as ex
from practice import record, store
from practice.progress import apply_answer, new_progress
from practice.record import Attempt, Card, ExamResult, ExamState, Progress, Settings, optional, required
from practice.review import ITEM_KEYS, STATES

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


def _record_with_every_part() -> dict:
    """A valid record holding an attempt, a review card and an exam result (each with its ranged fields)."""
    p = apply_answer(new_progress(), "naive.weight#1", "naive", False, 1, "page", T0)
    p = {**p, "exams": [{"at": "2026-03-01T10:00:00+09:00", "total": 10, "score": 7, "seconds": 300, "pace": 30,
                         "by_topic": {"naive": [7, 10]}}]}
    return store.validate_progress(p)


def _places(p: dict) -> dict:
    """part → the dict in ``p`` that holds that part's fields."""
    return {Attempt: p["attempts"][0], Card: next(iter(p["review"].values())), ExamResult: p["exams"][0]}


def test_the_validator_takes_every_range_from_the_record_definition():
    """Each Range written on a field in practice.record is exactly what the validator accepts: both
    ends pass, one step beyond either end is refused with a Japanese message. A range changed there
    is the validator's range, with nothing to keep in step."""
    ranged = {part: record.ranged(part) for part in (Attempt, Card, ExamResult)}
    assert set(ranged[Attempt]) == {"choice"} and set(ranged[ExamResult]) == {"total", "seconds", "pace"}
    assert set(ranged[Card]) == {"state", "step", "stability", "difficulty", "lapses", "reps"}
    base = _record_with_every_part()
    for part, fields in ranged.items():
        for name, r in fields.items():
            step = 1 if isinstance(r.hi, int) else 1e-9 * max(1.0, abs(r.hi))
            inside = [r.hi] + ([] if r.lo_open else [r.lo]) + ([r.lo + step] if r.lo_open else [])
            outside = [r.hi + step, r.lo if r.lo_open else r.lo - step]
            for value, ok in [(v, True) for v in inside] + [(v, False) for v in outside]:
                p = copy.deepcopy(base)
                place = _places(p)[part]
                place[name] = value
                if part is ExamResult and name == "total":
                    place["score"], place["by_topic"] = 0, {"naive": [0, max(1, int(value))]} if value >= 1 else {}
                if ok:
                    store.validate_progress(p)
                else:
                    with pytest.raises(store.ProgressError, match=name):
                        store.validate_progress(p)
    assert store.YEARS == record.YEARS
    assert record.bounds(Card, "state")[:2] == (min(STATES), max(STATES))   # practice.review's card states


def _numbers_in(hint) -> bool:
    """Whether a field's type holds numbers (int or float, also in a list, a dict's values or an Optional)."""
    from typing import get_args, get_origin

    if hint in (int, float):
        return True
    return any(_numbers_in(a) for a in get_args(hint) if a is not type(None)) if get_origin(hint) else False


def unchecked_numbers(parts, elsewhere: dict) -> list[str]:
    """Number fields of ``parts`` with neither a Range nor a line in ``elsewhere``, and lines of
    ``elsewhere`` that name no number field without a Range."""
    from typing import get_type_hints

    plain = {(part.__name__, name) for part in parts
             for name, hint in get_type_hints(part).items()
             if _numbers_in(hint) and name not in record.ranged(part)}
    return sorted(f"{p}.{n}: no Range and no rule named" for p, n in plain - set(elsewhere)) + \
        sorted(f"{p}.{n}: named, but not a number field without a Range" for p, n in set(elsewhere) - plain)


def test_every_number_field_has_a_range_or_names_the_rule_that_checks_it():
    """What practice.record's docstring says about ranges: the fields with a Range are these, and
    every other number field names where it is checked (practice.record.CHECKED_ELSEWHERE)."""
    parts = (Attempt, Card, ExamState, ExamResult, Settings, Progress)
    assert unchecked_numbers(parts, record.CHECKED_ELSEWHERE) == []
    assert all(why.strip() for why in record.CHECKED_ELSEWHERE.values())


class Part(TypedDict):      # a planted part: one ranged field, two number fields with neither, a text
    ranged: Annotated[int, record.Range(0, 3)]
    counted: int
    scores: list[float]
    label: str


def test_the_range_check_catches_a_number_field_with_neither():
    assert unchecked_numbers([Part], {}) == ["Part.counted: no Range and no rule named",
                                             "Part.scores: no Range and no rule named"]
    assert unchecked_numbers([Part], {("Part", "counted"): "x", ("Part", "scores"): "y"}) == []
    assert unchecked_numbers([Part], {("Part", "counted"): "x", ("Part", "scores"): "y", ("Part", "label"): "z"}) == [
        "Part.label: named, but not a number field without a Range"]
