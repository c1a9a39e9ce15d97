"""The misconception catalogue: one stable id for each kind of mistake behind a wrong choice.

Every wrong choice of every question names its misconception as ``"<名前>：<なぜ>"``
(quizzes.calc.mc for calculation items, ``why`` of a knowledge item). The catalogue
``quizzes/data/misconceptions.json`` groups those names into entries::

    {"version": 1,
     "entries": [
       {"id": "forgot_sqrt_dk",               # stable snake_case key (in links ?m=<id>, and may be
                                              #   kept in learners' records): added, never renamed
        "name": "√d_k で割り忘れ",             # one Japanese name
        "explanation": "...",                 # one paragraph, the team's own words
        "kind": "topic" | "form",             # what it is about (below)
        "page": "scaling" | null,             # topic: the page key that teaches it (ui.nav); form: null
        "form": "worst",                      # form only: the question form it is about (QUESTION_FORMS)
        "section": "explain",                 # the page-rhythm section (a key of ui.sections.HEADINGS)
        "heading": "..." | null,              # a sub-heading inside that section, or null
        "distractors": ["√d_k で割り忘れ", ...]}]}   # the names (text before 「：」) it covers

Two kinds (issue 35, item 4):

- ``"form"``: a reading skill — how a question of one form is read, whatever its topic (e.g.
  choosing a TRUE statement on a 不適切 item). It is practised with items of that form across
  topics (practice.drill), not on a page. Its ``page`` is null and ``form`` names the form.
- ``"topic"``: a formula or a concept. ``page`` is the page that teaches it, derived from the
  generators that can show it (quizzes.core.GENERATOR_INFO gives each one's topic): the topic with
  the most such generators, a tie going to the earlier page in the course (TOPICS order); where
  that page only reuses a concept introduced elsewhere, the page whose section explains it, which
  is always one of those topics (tests/test_misconceptions.py lists these cases with a reason).

A name belongs to exactly one entry. No streamlit here.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .core import TOPICS, Question

__all__ = ["Misconception", "catalogue", "misconception_id", "misconception_ids", "choice_ids", "question_ids",
           "distractor_name", "id_for_name", "question_form", "CATALOGUE_PATH", "SECTION_KEYS", "KINDS",
           "QUESTION_FORMS"]

CATALOGUE_PATH = Path(__file__).with_name("data") / "misconceptions.json"
SECTION_KEYS = ("aim", "explain", "hand", "visual", "try")   # = ui.sections.HEADINGS (the page rhythm)
ENTRY_KEYS = {"id", "name", "explanation", "kind", "page", "section", "heading", "distractors"}
FORM_KEYS = ENTRY_KEYS | {"form"}       # a "form" entry also names its question form
KINDS = ("form", "topic")
# question form → (the phrase its stem contains, what practising it is called). 「不適切なものを1つ選べ」
# is in quizzes.calc.WORST and in every knowledge item of form "worst" (= ui.quiz.WORST_PHRASE).
QUESTION_FORMS = {"worst": ("不適切なものを1つ選べ", "『不適切なもの』を選ぶ問題")}
PAGE_KEYS = frozenset(TOPICS)            # learning pages only: every entry is taught on one
_ID = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


@dataclass(frozen=True)
class Misconception:
    id: str
    name: str
    explanation: str
    page: str | None          # topic: the page key that teaches it; form: None
    section: str
    heading: str | None
    distractors: tuple[str, ...]
    kind: str = "topic"       # "topic" (a formula or concept) or "form" (how a question form is read)
    form: str | None = None   # form: the question form (a QUESTION_FORMS key); topic: None

    @property
    def practice_label(self) -> str:
        """What form practice practises (「『不適切なもの』を選ぶ問題」); "" for a topic entry."""
        return QUESTION_FORMS[self.form][1] if self.form in QUESTION_FORMS else ""


def question_form(question: Question) -> str | None:
    """The form a question asks in, of those QUESTION_FORMS knows ("worst"), or None."""
    return next((f for f, (phrase, _) in QUESTION_FORMS.items() if phrase in question.stem), None)


def distractor_name(label: str) -> str:
    """'√d_k で割り忘れ：スケーリングを…' → '√d_k で割り忘れ' (the name before 「：」)."""
    return str(label).split("：", 1)[0].strip()


def validate_catalogue(data) -> dict[str, Misconception]:
    """The parsed JSON → {id: Misconception} in file order; ValueError (Japanese) if it breaks the schema."""
    if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("entries"), list):
        raise ValueError("誤解カタログの形が正しくありません（version 1 と entries のリストが必要です）。")
    out: dict[str, Misconception] = {}
    owner: dict[str, str] = {}
    for e in data["entries"]:
        keys = FORM_KEYS if isinstance(e, dict) and e.get("kind") == "form" else ENTRY_KEYS
        if not isinstance(e, dict) or set(e) != keys:
            raise ValueError(f"誤解カタログの項目のキーが {sorted(keys)} と一致しません: {str(e)[:60]}")
        mid = e["id"]
        if not isinstance(mid, str) or not _ID.fullmatch(mid) or mid in out:
            raise ValueError(f"誤解の id {mid!r} が snake_case でないか、重複しています。")
        for key in ("name", "explanation"):
            if not isinstance(e[key], str) or not e[key].strip():
                raise ValueError(f"{mid}: {key} が空です。")
        if e["kind"] not in KINDS:
            raise ValueError(f"{mid}: kind は {KINDS} のどれかです。")
        if e["kind"] == "topic" and e["page"] not in PAGE_KEYS:
            raise ValueError(f"{mid}: ページ {e['page']!r} は学習ページではありません（topic の項目には教えるページが要ります）。")
        if e["kind"] == "form" and (e["page"] is not None or e["form"] not in QUESTION_FORMS):
            raise ValueError(f"{mid}: form の項目は page が null で、form は {sorted(QUESTION_FORMS)} のどれかです。")
        if e["section"] not in SECTION_KEYS:
            raise ValueError(f"{mid}: 節 {e['section']!r} は {SECTION_KEYS} のどれかです。")
        if e["heading"] is not None and (not isinstance(e["heading"], str) or not e["heading"].strip()):
            raise ValueError(f"{mid}: heading は空でない文字列か null です。")
        names = e["distractors"]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
            raise ValueError(f"{mid}: distractors は空でない文字列のリストです。")
        for n in names:
            if n in owner:
                raise ValueError(f"誤解の名前「{n}」が {owner[n]} と {mid} の両方にあります。")
            owner[n] = mid
        out[mid] = Misconception(mid, e["name"], e["explanation"], e["page"], e["section"], e["heading"],
                                 tuple(names), e["kind"], e.get("form"))
    return out


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Misconception]:
    """{id: Misconception}, in the catalogue's order (read once)."""
    return validate_catalogue(json.loads(CATALOGUE_PATH.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _by_name() -> dict[str, str]:
    return {n: m.id for m in catalogue().values() for n in m.distractors}


def id_for_name(name: str) -> str | None:
    """The catalogue id of a distractor name, or None if no entry lists it."""
    return _by_name().get(name)


def misconception_ids(question: Question, choice: int) -> tuple[str, ...]:
    """The catalogue ids behind choosing ``choice``: one per slip, two for a wrong combination of
    a 穴埋め item named 「A＋B」 (quizzes.calc.two_slips). Empty for the answer, an index outside
    0–3, or a name the catalogue does not list (e.g. a generator renamed it)."""
    if not isinstance(choice, int) or isinstance(choice, bool) or not 0 <= choice < len(question.choices):
        return ()
    if choice == question.answer:
        return ()
    ids = tuple(id_for_name(part.strip()) for part in distractor_name(question.misconceptions[choice]).split("＋"))
    return () if None in ids else tuple(dict.fromkeys(ids))


def misconception_id(question: Question, choice: int) -> str | None:
    """The catalogue id behind choosing ``choice`` (for a combination 「A＋B」, A's); None where
    misconception_ids is empty."""
    ids = misconception_ids(question, choice)
    return ids[0] if ids else None


def choice_ids(question: Question) -> tuple[str | None, ...]:
    """misconception_id of every choice (None at the answer)."""
    return tuple(misconception_id(question, c) for c in range(len(question.choices)))


def question_ids(question: Question) -> frozenset[str]:
    """The ids a question can reveal: every slip behind its wrong choices."""
    return frozenset(m for c in range(len(question.choices)) for m in misconception_ids(question, c))
