"""A question id names the same question in every version: `<generator>#<seed>` is what the
review schedule and exported progress files keep, so a generator may get faster, or say the
same thing in better words, but must not change what a seed draws.

tests/data/question_digests.json holds, per generator, a SHA-256 over what its questions for seeds
0 … 39 put in front of the learner (:func:`fingerprint`):

- the id and the kind;
- the four choices as displayed, in their order, and the index of the answer;
- the misconception NAME behind each choice (the text before 「：」, "" for the answer): a
  distractor that now comes from another mistake is another question;
- for a calculation item, the numbers written in its stem, in order: the drawn matrices, sizes,
  probabilities, indices and hints. A Question keeps no separate record of its drawn inputs, and
  they are the numbers of the stem; the instruction 「1つ選べ」 is left out (it is not drawn).

Left out on purpose: the wording of the stem and of the explanation and the reason after 「：」
in each misconception. A clearer sentence keeps every id, and the digests stay as they are.

Knowledge items (kb.<bank key>, quizzes/data/*.json): the id is the bank item's key and the seed
only shuffles the choices. Their choices are sentences, not numbers, so the choice texts, the answer
and the misconception names are what identifies the question; a changed stem sentence (or a number
quoted in it from the engine's facts) is wording, while a changed choice is another question.

A change to a digest means old ids now show another question. When that is meant (a fixed
distractor, a new range of draws) the digest is renewed with

    UPDATE_QUESTION_DIGESTS=1 python -m pytest tests/test_question_ids.py

and the commit and CHANGELOG.md name the ids whose question changed. A wording fix that edits a
fixed number of the stem (e.g. 論文の表 1) also moves the digest: renew it, and say it is wording.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Callable

import pytest

import quizzes
from quizzes.core import Question
from quizzes.misconceptions import distractor_name

DIGESTS = Path(__file__).parent / "data" / "question_digests.json"
SEEDS = range(40)
CALC_ID = "naive.weight"          # a calculation item: a drawn 3×4 matrix, e^s hints
KNOWLEDGE_ID = "kb.block.k01"     # a knowledge item: four sentences
_INSTRUCTION = re.compile(r"1\s*つ選べ")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def stem_numbers(stem: str) -> list[str]:
    """The numbers written in a stem, in order, without the instruction's 「1つ選べ」."""
    return _NUMBER.findall(_INSTRUCTION.sub("", stem.replace("−", "-")))


def fingerprint(q: Question) -> list:
    """What makes a question the question it is for the learner (see the module docstring)."""
    out = [q.id, q.kind, list(q.choices), q.answer, [distractor_name(m) for m in q.misconceptions]]
    if q.kind == "calc":
        out.append(stem_numbers(q.stem))
    return out


def digest(generator_id: str, make: Callable[[int], Question] | None = None) -> str:
    make = make or quizzes.GENERATORS[generator_id]
    h = hashlib.sha256()
    for seed in SEEDS:
        h.update(json.dumps(fingerprint(make(seed)), ensure_ascii=False).encode("utf-8"))
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


# ---------------------------------------------------------------------------
# the digest follows the content, not the wording
# ---------------------------------------------------------------------------
def _changed(generator_id: str, change: Callable[[Question], Question]) -> Callable[[int], Question]:
    """The real generator, with ``change`` applied to every question it makes."""
    make = quizzes.GENERATORS[generator_id]
    return lambda seed: change(make(seed))


def _reworded(q: Question) -> Question:
    stem = (q.stem.replace("最も適切なもの", "正しいもの").replace("として", "の値として")
            .replace("の", "の ") + "\n\n（言い回しを改めた版）")
    notes = tuple(m.replace("：", "：言い換えると、", 1) if m else m for m in q.misconceptions)
    return dataclasses.replace(q, stem=stem, explanation="手順を書き直した解説。" + q.explanation,
                               misconceptions=notes)


@pytest.mark.parametrize("generator_id", [CALC_ID, KNOWLEDGE_ID])
def test_a_wording_change_keeps_the_digest(generator_id):
    """Another stem sentence, explanation and reason after 「：」, same draws: same ids."""
    original, reworded = quizzes.GENERATORS[generator_id](0), _changed(generator_id, _reworded)(0)
    assert reworded.stem != original.stem and reworded.explanation != original.explanation
    assert reworded.misconceptions != original.misconceptions
    assert stem_numbers(reworded.stem) == stem_numbers(original.stem)
    assert digest(generator_id, _changed(generator_id, _reworded)) == digest(generator_id) == STORED[generator_id]


def _other_draw(generator_id: str) -> Callable[[int], Question]:
    """The same generator drawing for seed s what it draws for seed s + 1, under the id of seed s."""
    make = quizzes.GENERATORS[generator_id]
    return lambda seed: dataclasses.replace(make(seed + 1), id=f"{generator_id}#{seed}")


def _one_number_changed(q: Question) -> Question:
    """The first drawn number of the stem changed (an entry of X for naive.weight); choices as before."""
    if not q.id.endswith("#7"):
        return q
    digits = re.search(r"\\begin\{pmatrix\}\s*(\d+)", q.stem)
    stem = q.stem[:digits.start(1)] + str(int(digits.group(1)) + 1) + q.stem[digits.end(1):]
    return dataclasses.replace(q, stem=stem)


def _one_choice_changed(q: Question) -> Question:
    if not q.id.endswith("#7"):
        return q
    wrong = (q.answer + 1) % 4
    choices = tuple(c + "（別の値）" if i == wrong else c for i, c in enumerate(q.choices))
    return dataclasses.replace(q, choices=choices)


def _other_mistake_named(q: Question) -> Question:
    if not q.id.endswith("#7"):
        return q
    wrong = (q.answer + 1) % 4
    notes = tuple("別の誤解：" + m.split("：", 1)[-1] if i == wrong else m for i, m in enumerate(q.misconceptions))
    return dataclasses.replace(q, misconceptions=notes)


def _answer_moved(q: Question) -> Question:
    if not q.id.endswith("#7"):
        return q
    order = [1, 0, 2, 3]
    return dataclasses.replace(q, choices=tuple(q.choices[i] for i in order), answer=order.index(q.answer),
                               misconceptions=tuple(q.misconceptions[i] for i in order))


@pytest.mark.parametrize("generator_id", [CALC_ID, KNOWLEDGE_ID])
def test_another_draw_changes_the_digest(generator_id):
    """The real generator drawing other inputs (its next seed's) for the same ids: another digest."""
    assert fingerprint(_other_draw(generator_id)(0))[2:] != fingerprint(quizzes.GENERATORS[generator_id](0))[2:]
    assert digest(generator_id, _other_draw(generator_id)) != digest(generator_id)


@pytest.mark.parametrize("change", [_one_choice_changed, _other_mistake_named, _answer_moved], ids=lambda f: f.__name__)
@pytest.mark.parametrize("generator_id", [CALC_ID, KNOWLEDGE_ID])
def test_one_changed_question_changes_the_digest(generator_id, change):
    """One question of forty with a choice, a misconception name or the answer's place changed."""
    assert digest(generator_id, _changed(generator_id, change)) != digest(generator_id)


def test_a_changed_number_in_the_stem_changes_the_digest():
    """A calculation item whose drawn matrix differs by one entry, choices unchanged: another digest."""
    q = quizzes.GENERATORS[CALC_ID](7)
    assert stem_numbers(_one_number_changed(q).stem) != stem_numbers(q.stem)
    assert _one_number_changed(q).choices == q.choices
    assert digest(CALC_ID, _changed(CALC_ID, _one_number_changed)) != digest(CALC_ID)
