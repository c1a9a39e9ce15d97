"""All prose of the app is the team's own: nothing the learner reads copies a sentence of the
source texts (tests/seedtext.py: what they are and where they are looked for; without them these
tests are skipped with the folder looked in, and fail under CI=true; pytest's header says which).

Checked: what every page shows above its quiz (AppTest, default inputs), the string literals of
the code that writes text (pages, app, ui, tutor, quizzes), the knowledge bank, and the texts of
every calculation question for seeds 0–19. The running example sentence of the course is data,
shared on purpose.
"""
from __future__ import annotations

import ast
import json

import pytest

import quizzes
from quizzes import knowledge
from quizzes.core import GENERATOR_INFO
from apphelpers import ROOT, lesson_text, open_page
from seedtext import a_seed_sentence, copied_runs, needs_seeds, norm
from ui.nav import PAGES

pytestmark = needs_seeds

EXAMPLE_SENTENCE = "猫は魚を見つけた。それを食べた"   # the course's running example (data)
CODE_DIRS = ("app.py", "pages", "ui", "tutor", "quizzes")


def _prose_copies(text: str) -> list[str]:
    return copied_runs(norm(text).replace(norm(EXAMPLE_SENTENCE), "|"))


def test_the_check_is_not_blind():
    sentence = a_seed_sentence()
    assert copied_runs("前置き。" + sentence + "。後書き") == [sentence]
    assert copied_runs("Attention(Q,K,V) = softmax(QK^T / √d_k) V, d_k = 64") == []   # formulas may match
    assert copied_runs("猫 魚 それ 猫 0.90 0.05 0.05 魚 0.80 0.10 0.10 それ 0.10 0.80 0.10") == []   # given numbers too


@pytest.mark.parametrize("info", [p for p in PAGES if p.exists], ids=lambda p: p.key)
def test_page_text_is_our_own(info):
    at = open_page(info.path)
    assert not at.exception
    assert _prose_copies(lesson_text(at)) == []


def _literals(path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_strings_in_the_code_are_our_own():
    files = [p for d in CODE_DIRS for p in ([ROOT / d] if d.endswith(".py") else sorted((ROOT / d).rglob("*.py")))]
    assert len(files) > 30
    copies = [f"{path.relative_to(ROOT)}:{line} ⇒ {run}" for path in files for line, text in _literals(path)
              for run in _prose_copies(text)]
    assert copies == []


def _strings(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def test_knowledge_bank_is_our_own():
    texts = [(f.name, s) for f in sorted(knowledge.DATA_DIR.glob("*.json"))
             for s in _strings(json.loads(f.read_text(encoding="utf-8")))]
    assert len(texts) > 500
    assert [f"{name} ⇒ {run}" for name, text in texts for run in _prose_copies(text)] == []


def test_calculation_questions_are_our_own():
    copies = []
    for gid, (_, kind, _) in sorted(GENERATOR_INFO.items()):
        if kind != "calc":
            continue
        for seed in range(20):
            q = quizzes.GENERATORS[gid](seed)
            text = "\n".join((q.stem, *q.choices, q.explanation, *q.misconceptions))
            copies += [f"{q.id} ⇒ {run}" for run in _prose_copies(text)]
    assert copies == []


def test_misconception_catalogue_is_our_own():
    """quizzes/data/misconceptions.json: every name and explanation (also covered by the glob above,
    named here so that moving the catalogue out of data/ cannot drop the check)."""
    from quizzes.misconceptions import catalogue
    texts = [(m.id, t) for m in catalogue().values() for t in (m.name, m.explanation, *m.distractors)]
    assert len(texts) > 400
    assert [f"{mid} ⇒ {run}" for mid, text in texts for run in _prose_copies(text)] == []
