"""One definition of the progress record and its parts (schema version 3), for every layer.

The record is plain JSON-able data: the session holds it, practice.progress and its neighbours
return new ones, practice.store validates what comes from a file or the browser, and practice.wire
carries its text to the browser. The keys of each part are defined here once; the validator takes
its exact-key checks from these definitions (``required`` / ``optional``), so a field added here is
a field the validator knows.

Ranges: a number field whose values lie between two fixed ends has them written here, on the field
(``Annotated[int, Range(0, 3)]``), and the validator reads them (:func:`bounds`): Attempt.choice;
Card.state, step, stability, difficulty, lapses, reps; ExamResult.total, seconds, pace. So are the
years every date lies in (:data:`YEARS`). The other number fields are checked by a rule that is not
two fixed ends, named in :data:`CHECKED_ELSEWHERE` with where it is (a score up to its paper's total,
a setting from a list, the exam in progress by practice.exam). Formats (ids, dates) and the Japanese
messages are practice.store's.
"""

# (no "from __future__ import annotations" here: TypedDict must see NotRequired to tell optional keys)
from functools import lru_cache
from typing import Annotated, Literal, NamedTuple, NotRequired, TypedDict, get_type_hints


class Range(NamedTuple):
    """The values a number field may take: lo ≤ x ≤ hi (lo < x when ``lo_open``)."""
    lo: float
    hi: float
    lo_open: bool = False


# Every date and time a record keeps lies in these years: far from the ends of what Python's datetime
# holds (year 1 … 9999), so any of them can be shifted into any time zone, and within what the home
# page's date input shows (it widens its range to hold the saved exam date).
YEARS = (2000, 2199)
MAX_COUNT = 1_000_000    # a card's lapses and reps (practice.skill caps a merged card's sums here)
DAILY_MINUTES = (15, 20, 30, 45, 60, 90, 120)   # the study time a day a learner can choose (practice.plan)
DEFAULT_DAILY_MINUTES = 30


class Attempt(TypedDict):
    """One answer anywhere (practice.progress.apply_answer)."""
    qid: str                 # "<generator>#<seed>": the exact question shown (its skill: practice.skill.key)
    topic: str               # the page key the question belongs to
    correct: bool
    choice: Annotated[int, Range(0, 3)]
    at: str                  # the learner's wall-clock time with its offset, "2026-03-01T10:00:00+09:00"
    source: Literal["page", "exam", "review", "drill"]


class Card(TypedDict):
    """A skill in the review schedule: an FSRS card (practice.review), kept in Progress["review"]
    under its skill key (practice.skill.key): a calculation generator ("naive.score_element") or a
    knowledge item's fact ("kb.naive.k02"); never a question id "<generator>#<seed>" (schema 2
    did that: practice.skill.rekey merges such cards). Any instance of the skill answered anywhere
    rates this card; the review shows a fresh instance (practice.skill.draw)."""
    topic: str               # the skill's page key
    state: Annotated[int, Range(1, 3)]       # 1 learning, 2 review, 3 relearning
    step: Annotated[int | None, Range(0, 100)]
    stability: Annotated[float | None, Range(0, 1e6, lo_open=True)]
    difficulty: Annotated[float | None, Range(0, 10.0, lo_open=True)]
    due: str                 # ISO datetime, UTC
    last_review: str | None
    lapses: Annotated[int, Range(0, MAX_COUNT)]
    reps: Annotated[int, Range(0, MAX_COUNT)]


class ExamState(TypedDict):
    """The mock exam in progress (practice.exam.new_exam)."""
    v: int
    run: str                 # 8 hex digits naming the paper
    qids: list[str]
    pace: int                # seconds per question
    limit: int               # len(qids) × pace
    started_at: float        # epoch seconds
    answers: list[int | None]
    flags: list[int]
    cur: int


class ExamResult(TypedDict):
    """A finished mock exam in the history (practice.exam.history_record)."""
    at: str
    total: Annotated[int, Range(1, 1000)]
    score: int                          # 0 … total
    seconds: Annotated[int, Range(0, 86_400)]
    pace: Annotated[int, Range(1, 3600)]
    by_topic: dict[str, list[int]]      # topic → [correct, total] (1 ≤ total ≤ the paper's)
    run: NotRequired[str]               # the paper (results before 2026-12 have none)


class Settings(TypedDict):
    exam_date: str | None    # "YYYY-MM-DD"
    retention: float         # one of practice.review.RETENTIONS
    daily_review_limit: int  # one of practice.review.DAILY_LIMITS (a record before 2026-12 lacks it:
                             # practice.store fills the default, practice.store.SETTINGS_ADDED)
    advanced: bool           # practise 発展 too (practice.scope); False for a record written before it
    daily_minutes: int       # the minutes a day the learner has (practice.plan.DAILY_MINUTES)


class Progress(TypedDict):
    version: int             # SCHEMA_VERSION (practice.progress)
    visited: dict[str, bool]
    attempts: list[Attempt]
    exams: list[ExamResult]
    review: dict[str, Card]  # skill key → card (practice.skill.key), at most practice.review.MAX_ITEMS
    settings: Settings
    exam_in_progress: ExamState | None


# The number fields without a Range, and the rule that checks each (tests/test_record.py: every number
# field has a Range or a line here)
CHECKED_ELSEWHERE: dict[tuple[str, str], str] = {
    ("ExamResult", "score"): "0 … total (practice.store)",
    ("ExamResult", "by_topic"): "[correct, total] with 0 ≤ correct ≤ total, 1 ≤ total ≤ the paper's total (practice.store)",
    ("Settings", "retention"): "one of practice.review.RETENTIONS (practice.store)",
    ("Settings", "daily_review_limit"): "one of practice.review.DAILY_LIMITS (practice.store)",
    ("Settings", "daily_minutes"): "one of practice.record.DAILY_MINUTES (practice.store)",
    ("Progress", "version"): "one of practice.store.VERSIONS, older ones migrated",
    **{("ExamState", name): "practice.exam.validate_state" for name in
       ("v", "pace", "limit", "started_at", "answers", "flags", "cur")},
}


def required(part: type) -> frozenset[str]:
    """The keys every ``part`` (one of the TypedDicts above) must have."""
    return frozenset(getattr(part, "__required_keys__"))


def optional(part: type) -> frozenset[str]:
    """The keys a ``part`` may have besides the required ones."""
    return frozenset(getattr(part, "__optional_keys__"))


@lru_cache(maxsize=16)   # (one entry per part: a handful)
def ranged(part: type) -> dict[str, Range]:
    """Every field of ``part`` that has a Range (read once per part: the validator asks per value)."""
    return {name: meta for name, hint in get_type_hints(part, include_extras=True).items()
            for meta in getattr(hint, "__metadata__", ()) if isinstance(meta, Range)}


def bounds(part: type, name: str) -> Range:
    """The Range written on field ``name`` of ``part`` (KeyError: the field has none)."""
    return ranged(part)[name]
