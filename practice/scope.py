"""What a learner practises: the exam's scope, and 発展 only when they ask for it. Pure Python.

Items tagged 発展 (``quizzes.is_advanced``: beyond the G検定 syllabus, quizzes/data/syllabus.json) stay
on the pages, but they are opt-in wherever a learner practises, by one setting saved with the progress
(``settings["advanced"]``, off by default):

- a page's quiz draws the exam's items first (:func:`scope_first`); 発展 items come only once those
  are used up, marked 発展;
- a page's ✓ counts answers to the exam's items only, whatever the setting (practice.progress.topic_stats);
- the review shows, and the misconception profile and its drills count, 発展 skills only when the
  learner includes them (:func:`practised_review`, :func:`practised_attempts`, :func:`includes`);
- the mock exam draws them only then (practice.exam.exam_pool).

Nothing is deleted when the setting is off: the attempts and cards stay in the record and come back
when it is turned on.
"""
from __future__ import annotations

from quizzes.core import is_advanced


def includes_advanced(progress: dict) -> bool:
    """Whether the learner practises 発展 items too (the setting; a record without it: no)."""
    settings = progress.get("settings") if isinstance(progress, dict) else None
    return bool(settings.get("advanced", False)) if isinstance(settings, dict) else False


def in_scope(qid: str) -> bool:
    """Whether a question id or generator (skill) id is within the exam's scope (not 発展)."""
    return not is_advanced(qid)


def includes(progress: dict, qid: str) -> bool:
    """Whether practice shows or counts ``qid`` (a question, generator or skill id) for this learner."""
    return in_scope(qid) or includes_advanced(progress)


def practised_review(progress: dict) -> dict:
    """The review cards practice schedules for this learner: every card, or without the 発展 skills."""
    review = progress["review"]
    if includes_advanced(progress):
        return review
    return {skill: card for skill, card in review.items() if in_scope(skill)}


def practised_attempts(progress: dict) -> list:
    """The attempts the misconception profile counts: every one, or without answers to 発展 items
    (anything that is not an attempt is left for the profile to skip)."""
    attempts = progress.get("attempts", []) if isinstance(progress, dict) else []
    if includes_advanced(progress) or not isinstance(attempts, list):
        return attempts
    return [a for a in attempts if not isinstance(a, dict) or in_scope(str(a.get("qid")))]


def scope_first(gids: list[str], progress: dict) -> list[str]:
    """``gids`` with the exam's items before the 発展 ones (each part in its order) — unless the learner
    includes 発展, when the order is kept as it is."""
    if includes_advanced(progress):
        return list(gids)
    return [g for g in gids if in_scope(g)] + [g for g in gids if not in_scope(g)]
