"""A question id names the same question in every version: `<generator>#<seed>` is what the
review schedule and exported progress files keep, so a generator may get faster but must not
change what a seed draws.

tests/data/question_digests.json holds, per generator, a SHA-256 over its questions for seeds
0 … 39 (stem, choices, answer, explanation, misconceptions, kind). A generator whose content
is changed on purpose (a better wording, a fixed distractor) gets its digest renewed with

    UPDATE_QUESTION_DIGESTS=1 python -m pytest tests/test_question_ids.py

and the commit says why old ids now show a different question.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import quizzes

DIGESTS = Path(__file__).parent / "data" / "question_digests.json"
SEEDS = range(40)


def digest(generator_id: str) -> str:
    h = hashlib.sha256()
    for seed in SEEDS:
        q = quizzes.GENERATORS[generator_id](seed)
        h.update(json.dumps([q.id, q.stem, q.choices, q.answer, q.explanation, q.misconceptions, q.kind],
                            ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def current() -> dict[str, str]:
    return {gid: digest(gid) for gid in sorted(quizzes.GENERATORS)}


if os.environ.get("UPDATE_QUESTION_DIGESTS") == "1":  # pragma: no cover - maintainer's tool
    DIGESTS.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n", encoding="utf-8")

STORED: dict[str, str] = json.loads(DIGESTS.read_text(encoding="utf-8"))


def test_every_generator_has_a_stored_digest():
    assert sorted(STORED) == sorted(quizzes.GENERATORS)


@pytest.mark.parametrize("generator_id", sorted(quizzes.GENERATORS))
def test_seeds_still_draw_the_same_questions(generator_id):
    assert digest(generator_id) == STORED.get(generator_id), (
        f"{generator_id}: seeds 0–39 now give other questions than before; saved review ids would "
        "change meaning (see this file's docstring)")


def test_the_digest_sees_a_change():
    """The check is not blind: another seed range gives another digest."""
    gid = "naive.weight"
    q0, q1 = quizzes.GENERATORS[gid](0), quizzes.GENERATORS[gid](1)
    assert (q0.stem, q0.choices) != (q1.stem, q1.choices)
    assert digest(gid) == STORED[gid]
