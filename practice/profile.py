"""The learner's misconception profile, computed from the stored attempts (pure Python).

Nothing new is stored: an attempt ``{"qid", "choice", "correct", "at", ...}`` is enough, because
the question id reproduces the question (quizzes.from_id) and so the misconception of the
chosen choice (quizzes.misconceptions). Old records stay readable; an attempt whose question no
longer exists (a removed generator, a bad id) is skipped.

The rule, walked in the order the attempts were stored (oldest first):

- every attempt (any question) multiplies every weight by ``DECAY`` = 2^(−1/HALF_LIFE): a mistake
  not repeated fades to half after HALF_LIFE further attempts;
- a wrong answer whose choice names misconception m adds 1 to m's weight (and to its count);
- a right answer on a question whose wrong choices include m multiplies m's weight by
  ``RIGHT_FACTOR`` (0.5): answering such questions right a few times clears m;
- only the last ``WINDOW`` attempts are read (older ones weigh < 0.1 % anyway).

The profile lists the misconceptions with weight ≥ ``MIN_WEIGHT``, heaviest first; ties go to
the more recent mistake, then to the id (a fixed order). Never mutates its input.

Where to re-learn one (``relearn``) follows the catalogue's kind, never the page where the mistake
happened: a topic misconception → the page that teaches it; a form misconception (how a question
form is read) → practice of that form (practice.drill), since no page's topic is the cure.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from quizzes.core import QuizError, from_id
from quizzes.misconceptions import catalogue, choice_ids

from .scope import practised_attempts

HALF_LIFE = 20          # attempts until an unrepeated mistake weighs half
DECAY = 0.5 ** (1 / HALF_LIFE)
RIGHT_FACTOR = 0.5      # a right answer on a question that could show m halves m
MIN_WEIGHT = 0.3        # below this a misconception is no longer listed
WINDOW = 400            # attempts read (the newest)


@dataclass(frozen=True)
class ProfileRow:
    id: str               # catalogue id
    name: str             # its Japanese name
    weight: float         # current weight (decayed)
    count: int            # how often it was chosen within the window
    last_at: str          # "YYYY-MM-DDTHH:MM:SS" of the last time it was chosen
    last_topic: str       # topic of that question (shown nowhere: re-learning follows relearn())
    since: int            # attempts answered after that mistake (0 = the very last one)


@lru_cache(maxsize=4096)
def _choices(qid: str) -> tuple[tuple[str | None, ...], int] | None:
    """(misconception id per choice, answer index) of a question id; None if it names no question."""
    try:
        q = from_id(qid)
    except (QuizError, ValueError, TypeError):
        return None
    return choice_ids(q), q.answer


def attempt_misconception(attempt: dict) -> str | None:
    """The misconception a stored attempt reveals (None: right, unknown question, unlisted name)."""
    info = _choices(attempt.get("qid")) if isinstance(attempt.get("qid"), str) else None
    choice = attempt.get("choice")
    if info is None or not isinstance(choice, int) or isinstance(choice, bool) or not 0 <= choice < len(info[0]):
        return None
    return info[0][choice]


def weights(attempts: list[dict]) -> dict[str, dict]:
    """{id: {"weight", "count", "last_at", "last_topic", "last_index"}} after walking the attempts."""
    rows: dict[str, dict] = {}
    recent = list(attempts)[-WINDOW:]
    for index, a in enumerate(recent):
        for row in rows.values():
            row["weight"] *= DECAY
        if not isinstance(a, dict) or not isinstance(a.get("qid"), str):
            continue
        info = _choices(a["qid"])
        choice = a.get("choice")
        if info is None or not isinstance(choice, int) or isinstance(choice, bool) or not 0 <= choice < len(info[0]):
            continue
        ids, answer = info
        if choice == answer:
            for mid in set(ids) - {None}:
                if mid in rows:
                    rows[mid]["weight"] *= RIGHT_FACTOR
            continue
        mid = ids[choice]
        if mid is None:
            continue
        row = rows.setdefault(mid, {"weight": 0.0, "count": 0})
        row["weight"] += 1.0
        row["count"] += 1
        row["last_at"] = str(a.get("at", ""))
        row["last_topic"] = str(a.get("topic", ""))
        row["last_index"] = index
    for row in rows.values():
        row["since"] = len(recent) - 1 - row["last_index"]
    return rows


@dataclass(frozen=True)
class Relearn:
    kind: str             # "topic": re-read a page; "form": practise questions of one form
    page: str | None      # topic: the page key that teaches it (ui.nav.PAGE_BY_KEY); form: None
    form: str | None      # form: the question form practised (quizzes.misconceptions.QUESTION_FORMS)
    practice: str         # form: what is practised, 「『不適切なもの』を選ぶ問題」; topic: ""


def relearn(mid: str) -> Relearn | None:
    """Where misconception ``mid`` is fixed (see the module docstring); None for an unknown id."""
    m = catalogue().get(mid) if isinstance(mid, str) else None
    if m is None:
        return None
    if m.kind == "form":
        return Relearn("form", None, m.form, m.practice_label)
    return Relearn("topic", m.page, None, "")


def top_misconceptions(progress: dict, limit: int | None = 3) -> list[ProfileRow]:
    """The learner's current misconceptions, heaviest first (see the module docstring)."""
    cat = catalogue()
    rows = weights(practised_attempts(progress) if isinstance(progress, dict) else [])
    listed = [(mid, r) for mid, r in rows.items() if r["weight"] >= MIN_WEIGHT and mid in cat]
    listed.sort(key=lambda item: (-round(item[1]["weight"], 9), item[1]["since"], item[0]))
    out = [ProfileRow(mid, cat[mid].name, r["weight"], r["count"], r["last_at"], r["last_topic"], r["since"])
           for mid, r in listed]
    return out if limit is None else out[:limit]


def exam_misconceptions(qids: list[str], answers: list[int | None]) -> list[tuple[str, int]]:
    """The misconceptions behind a mock exam's wrong answers: [(id, how many)], most first, then id.
    Unanswered questions and choices whose name is not in the catalogue name none."""
    counts: dict[str, int] = {}
    for qid, choice in zip(qids, answers):
        mid = attempt_misconception({"qid": qid, "choice": choice}) if choice is not None else None
        if mid is not None:
            counts[mid] = counts.get(mid, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
