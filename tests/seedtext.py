"""The source texts, and a check that a text does not copy their sentences.

The source texts are the Japanese documents this course was written from (plain ``*.txt`` files).
They are NOT part of the repository and the app never reads them: only the own-words checks do
(tests/test_own_words.py and the glossary's), which make sure every sentence the app shows is the
team's own. A clone without them is complete; the checks are then skipped and say so. Looked for in

- the folder named by ``ATTENTION_TUTOR_SEEDS``, when it is set;
- else ``../shared/seeds/`` beside the checkout: where the project's own machines and its CI keep them.

``copied_runs`` finds what a text shares with them: maximal runs of at least ``k`` characters
(after NFKC and with white space removed) that also occur in a source text and hold at least
``min_japanese`` kana/kanji and are not mostly digits — formulas, tables of given numbers and
English terms may match, prose may not.

Whether the checks ran is said in pytest's header (:func:`status_line`). Where the texts are absent
the tests marked ``needs_seeds`` are skipped with the reason and the folder looked in — except under
``CI=true``: CI has the texts, so there their absence fails every such test instead of hiding the
checks behind a skip. Reading the texts (:func:`copied_runs`) without any found is a failure too, so
no check can pass by comparing against nothing.
"""
from __future__ import annotations

import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ENV = "ATTENTION_TUTOR_SEEDS"
SEEDS_DIR = Path(os.environ[ENV]) if os.environ.get(ENV) else REPO.parent / "shared" / "seeds"
SEED_FILES = sorted(SEEDS_DIR.glob("*.txt")) if SEEDS_DIR.is_dir() else []
ON_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
WHERE = f"{SEEDS_DIR} ({'from ' + ENV if os.environ.get(ENV) else 'beside the checkout; set ' + ENV + ' to look elsewhere'})"
ABSENT = (f"own-words checks skipped: no source texts (*.txt) at {WHERE}. They are the Japanese documents "
          "the course was written from, kept outside the repository; the app does not need them")
ABSENT_ON_CI = f"own-words checks FAILED: CI=true but no source texts (*.txt) at {WHERE}; CI must have them"
needs_seeds = pytest.mark.skipif(not SEED_FILES and not ON_CI, reason=ABSENT)


def status_line() -> str:
    """One line for pytest's header: whether the own-words checks run, and against what."""
    if SEED_FILES:
        return f"own-words checks: run against {len(SEED_FILES)} source texts (*.txt) at {SEEDS_DIR}"
    return ABSENT_ON_CI if ON_CI else ABSENT


RUN = 15            # characters
MIN_JAPANESE = 8    # kana/kanji in a run for it to count as prose
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
DIGITS = re.compile(r"[0-9]")


def norm(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=None)
def _seeds(k: int) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each seed's normalised text and the set of its k-character windows (a failure when there are
    none: a check against nothing would pass)."""
    if not SEED_FILES:
        pytest.fail(ABSENT_ON_CI if ON_CI else ABSENT, pytrace=False)
    out = []
    for path in SEED_FILES:
        s = norm(path.read_text(encoding="utf-8"))
        out.append((s, frozenset(s[i:i + k] for i in range(len(s) - k + 1))))
    return tuple(out)


def copied_runs(text: str, *, k: int = RUN, min_japanese: int = MIN_JAPANESE) -> list[str]:
    """The maximal runs of ``text`` (≥ k characters, ≥ min_japanese kana/kanji, under a third
    digits) found in a seed."""
    t, found = norm(text), []
    for seed, grams in _seeds(k):
        j = 0
        while j <= len(t) - k:
            if t[j:j + k] in grams:
                end = j + k
                while end < len(t) and t[j:end + 1] in seed:
                    end += 1
                run = t[j:end]
                if len(JAPANESE.findall(run)) >= min_japanese and 3 * len(DIGITS.findall(run)) < len(run):
                    found.append(run)
                j = end
            else:
                j += 1
    return found


def a_seed_sentence(length: int = 24) -> str:
    """A run of Japanese prose taken from the first seed (for checking that the check is not blind)."""
    seed = _seeds(RUN)[0][0]
    start = next(i for i in range(len(seed)) if len(JAPANESE.findall(seed[i:i + length])) == length)
    return seed[start:start + length]
