"""The source documents and a check that a text does not copy their sentences.

The seeds (Japanese texts the course is built from) live next to the repository in
``../shared/seeds/`` and are NOT part of it: every sentence the app shows must be the team's own
words. ``copied_runs`` finds what a text shares with them: maximal runs of at least ``k``
characters (after NFKC and with white space removed) that also occur in a seed and hold at least
``min_japanese`` kana/kanji and are not mostly digits — formulas, tables of given numbers and
English terms may match, prose may not.

Where the seeds are not on disk (a fresh CI machine has only the repository) the tests that need
them are skipped (``needs_seeds``); set ATTENTION_TUTOR_SEEDS to point at another copy.
"""
from __future__ import annotations

import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEEDS_DIR = Path(os.environ.get("ATTENTION_TUTOR_SEEDS", REPO.parent / "shared" / "seeds"))
SEED_FILES = sorted(SEEDS_DIR.glob("*.txt")) if SEEDS_DIR.is_dir() else []
needs_seeds = pytest.mark.skipif(not SEED_FILES, reason=f"the source documents are not on this machine ({SEEDS_DIR})")

RUN = 15            # characters
MIN_JAPANESE = 8    # kana/kanji in a run for it to count as prose
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
DIGITS = re.compile(r"[0-9]")


def norm(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=None)
def _seeds(k: int) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each seed's normalised text and the set of its k-character windows."""
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
