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

Retired ids: a generator id that is gone (removed, or moved to another page: quizzes.core.MOVED) is
still in learners' records, so it must never name another question. The file keeps them under the
key "#retired" (no generator id can hold "#"), with what became of each; renewing the digests keeps
that section and adds every id that has left since (:func:`renewed`), and no registered generator may
carry a retired id (:func:`reused`). A generator removed in a branch that renewed the digests without
this section is not known here: name it under "#retired" by hand.

Seeds: an id's seed is 0 … quizzes.core.MAX_SEED (2³² − 1); a larger one would alias a smaller
one, and quizzes.core.parse_id refuses it.
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
from quizzes import core
from quizzes.core import MOVED, Question
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


RETIRED = "#retired"   # the file's section of retired ids: {id: what became of it}; never a generator id


def renewed(stored: dict, digests: dict[str, str], moved: dict[str, str]) -> dict:
    """The digest file as renewing writes it: ``digests`` (every generator's), and the retired
    section of ``stored`` with every id added that left since ("moved to <id>" for a former id in
    ``moved``, else "removed") and every former id of ``moved``. Nothing once retired is dropped."""
    retired = dict(stored.get(RETIRED, {}))
    for gid in [g for g in stored if g != RETIRED and g not in digests] + list(moved):
        retired.setdefault(gid, f"moved to {moved[gid]}" if gid in moved else "removed")
    return {**digests, RETIRED: dict(sorted(retired.items()))}


def reused(retired, registered) -> list[str]:
    """Retired ids that name a registered generator again (each would show another question)."""
    return sorted(set(retired) & set(registered))


def _write(data: dict) -> None:
    DIGESTS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if os.environ.get("UPDATE_QUESTION_DIGESTS") == "1":  # pragma: no cover - maintainer's tool
    _write(renewed(json.loads(DIGESTS.read_text(encoding="utf-8")), current(), MOVED))

FILE: dict = json.loads(DIGESTS.read_text(encoding="utf-8"))
STORED: dict[str, str] = {gid: d for gid, d in FILE.items() if gid != RETIRED}


def test_every_generator_has_a_stored_digest():
    assert sorted(STORED) == sorted(quizzes.GENERATORS)


def test_no_retired_id_is_registered_again():
    """kb.multihead.k04–k06 moved to ⑦-2 (kb.block.k10–k12): their ids stay in learners' records
    and must never show another question."""
    assert {"kb.multihead.k04", "kb.multihead.k05", "kb.multihead.k06"} <= set(FILE.get(RETIRED, {}))
    assert reused(FILE.get(RETIRED, {}), quizzes.GENERATORS) == []


def test_the_file_is_what_renewing_it_would_write():
    """Every moved-from id is retired already, and the section is in the written form: renewing the
    digests now would change nothing but digests that moved."""
    assert renewed(FILE, STORED, MOVED) == FILE
    assert DIGESTS.read_text(encoding="utf-8") == json.dumps(FILE, indent=1, sort_keys=True) + "\n"


def test_renewing_keeps_every_retired_id_and_retires_what_left():
    stored = {"t.a": "1", "t.b": "2", "t.c": "3", RETIRED: {"t.old": "removed"}}
    got = renewed(stored, {"t.a": "1", "t.new": "9"}, {"t.c": "u.c"})
    assert got == {"t.a": "1", "t.new": "9",
                   RETIRED: {"t.b": "removed", "t.c": "moved to u.c", "t.old": "removed"}}
    assert renewed(got, {"t.a": "1", "t.new": "9"}, {}) == got          # renewing again forgets nothing
    assert renewed({"t.a": "1"}, {"t.a": "1"}, {"t.z": "t.a"})[RETIRED] == {"t.z": "moved to t.a"}


def test_the_reuse_check_catches_a_retired_id_registered_again():
    assert reused({"t.old": "removed", "t.b": "moved to u.b"}, {"t.a": None, "t.old": None}) == ["t.old"]
    assert reused({"t.old": "removed"}, {"t.a": None}) == []


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


# ---------------------------------------------------------------------------
# the seed of an id, and the stream it draws from
# ---------------------------------------------------------------------------
def test_a_seed_past_max_seed_would_alias_a_smaller_one_and_is_refused():
    """_seed_rng keeps the low 32 bits of the seed: seed 2³² draws what seed 0 draws. parse_id reads
    0 … MAX_SEED only (a record holding a larger one: tests/test_practice.py, salvaged)."""
    make = quizzes.GENERATORS[CALC_ID]
    assert fingerprint(make(2**32))[1:] == fingerprint(make(0))[1:]        # the alias, under another id
    assert core.MAX_SEED == 2**32 - 1 and core.SEED_SPACE - 1 <= core.MAX_SEED
    assert core.parse_id(f"{CALC_ID}#{core.MAX_SEED}") == (CALC_ID, core.MAX_SEED)
    for seed in (core.MAX_SEED + 1, 2**32 + 5, 999_999_999_999):
        with pytest.raises(quizzes.QuizError):
            core.parse_id(f"{CALC_ID}#{seed}")


def test_the_seeds_the_app_draws_are_defined_once():
    """SEED_SPACE (ids "<generator>#<0 … 999999>") lives in quizzes.core; the places that draw a seed
    import it."""
    import ast

    root = DIGESTS.parent.parent.parent
    defined = [str(p.relative_to(root)) for d in ("app.py", "pages", "ui", "practice", "quizzes", "tutor")
               for p in ([root / d] if d.endswith(".py") else sorted((root / d).rglob("*.py")))
               if any(isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "SEED_SPACE" for t in n.targets)
                      for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))))]
    assert defined == ["quizzes/core.py"]


def _stream_groups() -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for gid in sorted(quizzes.GENERATORS):
        groups.setdefault(core._tag(gid), []).append(gid)
    return [ids for ids in groups.values() if len(ids) > 1]


def test_generators_agreeing_in_their_first_8_bytes_share_a_stream():
    """What quizzes.core._tag's docstring says, pinned: the stream depends on the id's first 8 bytes
    only (changing that would change every stored question)."""
    assert core._tag("scaling.divisor") == core._tag("scaling.variance_blank")
    for seed in (0, 7, 123_456):
        a, b = core._seed_rng("scaling.divisor", seed, 0), core._seed_rng("scaling.variance_blank", seed, 0)
        assert a.integers(1 << 62, size=4).tolist() == b.integers(1 << 62, size=4).tolist()
        c = core._seed_rng("scaling.weight_ln", seed, 0)
        assert core._seed_rng("naive.weight", seed, 0).integers(1 << 62) != c.integers(1 << 62)
    # same seed, same image and patch size, same letter: two questions on one draw
    for seed in SEEDS:
        tokens, worst = quizzes.GENERATORS["pretrain.vit_tokens"](seed), quizzes.GENERATORS["pretrain.vit_worst"](seed)
        assert tokens.answer == worst.answer and stem_numbers(tokens.stem)[:4] == stem_numbers(worst.stem)[:4]
        assert tokens.choices != worst.choices
    # knowledge items of one bank: the stream only shuffles, so one seed puts every answer at one letter
    bank = [g for g in quizzes.GENERATORS if g.startswith("kb.seq2seq.")]
    assert len({core._tag(g) for g in bank}) == 1
    for seed in SEEDS:
        assert len({quizzes.GENERATORS[g](seed).answer for g in bank}) == 1
    assert sum(len(ids) for ids in _stream_groups()) > len(quizzes.GENERATORS) // 2


def test_generators_sharing_a_stream_still_make_different_questions():
    """What keeps them apart is the draft: for every seed 0–39, no two generators of a shared stream
    show the same stem with the same choices."""
    for ids in _stream_groups():
        for seed in SEEDS:
            shown = {(q.stem, q.choices) for q in (quizzes.GENERATORS[g](seed) for g in ids)}
            assert len(shown) == len(ids), (ids, seed)
