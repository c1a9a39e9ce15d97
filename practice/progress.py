"""The learner's progress as plain JSON-able data, and the pure functions that update it.

Schema (version 3; versions 1 and 2 are migrated by practice.store)::

    {"version": 3,
     "visited":  {"<page key>": true, ...},
     "attempts": [{"qid": str, "topic": str, "correct": bool, "choice": int,
                   "at": "YYYY-MM-DDTHH:MM:SS+09:00",   # the learner's wall-clock time and offset (ui.clock);
                                                        # records before 2026-12 have no offset (with_zone)
                   "source": "page" | "exam" | "review" | "drill"}, ...],
     "exams":    [...],     # mock-exam results (practice.exam.history_record)
     "review":   {"<skill key>": {...}},   # FSRS cards of the skills to review (practice.review), keyed
                                          # by practice.skill.key: a generator or a knowledge fact
                                          # (schema 2 keyed them by question id: practice.skill.rekey)
     "settings": {"exam_date": "YYYY-MM-DD" | null, "retention": 0.8 | 0.85 | 0.9 | 0.95,
                  "daily_review_limit": 10 | 20 | 30 | 50 | 100},   # added 2026-12 (older records: 30)
     "exam_in_progress": null | {...}}   # the unfinished mock exam (st.session_state["exam"])

Functions never mutate their input: they return a new dict (the session keeps one
reference and swaps it), so an interrupted update can never leave half-written progress.
The new dict shares with the old one every part it does not change (an answer copies the list
of attempts and the schedule's top level, not the 2,000 attempts and 1,000 cards in them):
no value inside a record is ever changed in place, here or by a caller.

Every answer anywhere goes through :func:`apply_answer`: it records the attempt (the exact
question id shown) AND rates the card of the question's skill (practice.skill.key; practice.review:
FSRS, wrong → Again, right → Good).

:func:`merge` joins what two tabs of one browser wrote (a three-way merge against the
record both started from), so an answer given in either tab is never dropped.
"""
from __future__ import annotations

import copy
from collections import Counter
from datetime import date, datetime, timezone, tzinfo

from . import review as _review
from . import scope as _scope
from . import skill as _skill
from .record import DAILY_MINUTES, DEFAULT_DAILY_MINUTES

SCHEMA_VERSION = 3       # 3: review cards keyed by skill (2: by question id; 1: Leitner boxes)
SOURCES = ("page", "exam", "review", "drill")
MAX_ATTEMPTS_KEPT = 2000   # oldest attempts are dropped beyond this (keeps files small)
MAX_EXAMS_KEPT = 200         # mock-exam history entries kept in the progress record
MASTERY_WINDOW = 5      # the last N answers of a topic
MASTERY_CORRECT = 4     # … of which at least this many are correct


def new_progress() -> dict:
    return {"version": SCHEMA_VERSION, "visited": {}, "attempts": [], "exams": [], "review": {},
            "settings": {"exam_date": None, "retention": _review.DEFAULT_RETENTION,
                         "daily_review_limit": _review.DEFAULT_DAILY_LIMIT, "advanced": False,
                         "daily_minutes": DEFAULT_DAILY_MINUTES}, "exam_in_progress": None}


def retention(progress: dict) -> float:
    return progress["settings"]["retention"]


def daily_review_limit(progress: dict) -> int:
    """The most questions today's review holds (practice.review.todays_share)."""
    return progress["settings"].get("daily_review_limit", _review.DEFAULT_DAILY_LIMIT)


def daily_minutes(progress: dict) -> int:
    """The minutes a day the learner has for study (practice.plan); the default for a record without it."""
    return progress["settings"].get("daily_minutes", DEFAULT_DAILY_MINUTES)


def set_setting(progress: dict, name: str, value) -> dict:
    """A copy with one setting changed ("exam_date": "YYYY-MM-DD" or None; "retention": one of RETENTIONS;
    "daily_review_limit": one of DAILY_LIMITS; "advanced": practise 発展 too; "daily_minutes": one of
    practice.record.DAILY_MINUTES)."""
    if name == "exam_date":
        if value is not None:
            value = date.fromisoformat(str(value)).isoformat()
    elif name == "retention":
        if value not in _review.RETENTIONS:
            raise ValueError(f"記憶の目標 {value!r} は選べません")
    elif name == "daily_review_limit":
        if isinstance(value, bool) or value not in _review.DAILY_LIMITS:
            raise ValueError(f"1 日の復習の上限 {value!r} は選べません")
        value = int(value)
    elif name == "advanced":
        if not isinstance(value, bool):
            raise ValueError(f"発展の設定 {value!r} は True か False です")
    elif name == "daily_minutes":
        if isinstance(value, bool) or value not in DAILY_MINUTES:
            raise ValueError(f"1 日の学習時間 {value!r} 分は選べません")
        value = int(value)
    else:
        raise ValueError(f"未知の設定 {name!r}")
    if progress["settings"].get(name) == value:
        return progress
    return {**progress, "settings": {**progress["settings"], name: value}}


def set_exam_in_progress(progress: dict, state) -> dict:
    """A copy holding the unfinished mock exam (a JSON-able dict) or None."""
    if progress["exam_in_progress"] == state:
        return progress
    return {**progress, "exam_in_progress": copy.deepcopy(state)}


def record_visit(progress: dict, page_key: str) -> dict:
    if progress["visited"].get(page_key):
        return progress
    return {**progress, "visited": {**progress["visited"], page_key: True}}


def _check_answer(source: str, choice: int) -> None:
    if source not in SOURCES:
        raise ValueError(f"未知の回答元 {source!r}")
    if not 0 <= int(choice) <= 3:
        raise ValueError(f"選択肢の番号 {choice!r} は 0〜3 ではありません")


def _append_attempt(out: dict, qid: str, topic: str, correct: bool, choice: int,
                    source: str, now: datetime) -> None:
    """In place, on a copy the caller owns: ``out`` and its list ``out["attempts"]``."""
    out["attempts"].append({
        "qid": qid, "topic": topic, "correct": bool(correct), "choice": int(choice),
        "at": now.replace(microsecond=0).isoformat(), "source": source,
    })
    del out["attempts"][:-MAX_ATTEMPTS_KEPT]


def record_attempt(progress: dict, qid: str, topic: str, correct: bool, choice: int,
                   source: str = "page", now: datetime | None = None) -> dict:
    """Only the attempt (no review update): prefer :func:`apply_answer`."""
    _check_answer(source, choice)
    out = {**progress, "attempts": list(progress["attempts"])}
    _append_attempt(out, qid, topic, correct, choice, source, now or datetime.now().astimezone())
    return out


def apply_answers(progress: dict, answers: list[tuple[str, str, bool, int]], source: str = "page",
                  now: datetime | None = None) -> dict:
    """Several answers ``(qid, topic, correct, choice)`` at once (one copy of the progress).

    Each answer is recorded as an attempt (``qid``: the exact question shown) and rates the card
    of its skill (practice.skill.key: the generator, or the knowledge item's fact):

    - a skill already in the schedule (any source, any instance of it) is reviewed: wrong → Again,
      right → Good;
    - otherwise a wrong answer enters the schedule (Again), a right one leaves it as it is.
    """
    now = now or datetime.now().astimezone()
    for _, _, _, choice in answers:
        _check_answer(source, choice)
    out = {**progress, "attempts": list(progress["attempts"])}   # rate() returns a new schedule
    for qid, topic, correct, choice in answers:
        _append_attempt(out, qid, topic, correct, choice, source, now)
        skill = _skill.key(qid)
        out["review"] = _review.rate(out["review"], skill, _skill.topic(skill, topic) or topic, correct, now, retention(out))
    return out


def apply_answer(progress: dict, qid: str, topic: str, correct: bool, choice: int,
                 source: str = "page", now: datetime | None = None) -> dict:
    """One answer anywhere: the attempt recorded AND its skill's review card rated."""
    return apply_answers(progress, [(qid, topic, correct, choice)], source, now)


def topic_stats(progress: dict) -> dict[str, dict]:
    """{topic: {"answered", "correct", "accuracy", "recent_accuracy", "recent", "mastered"}} over the
    answers to the exam's items (practice.scope: a 発展 answer neither earns nor costs a page's ✓)."""
    by_topic: dict[str, list[bool]] = {}
    for a in progress["attempts"]:
        if _scope.in_scope(a["qid"]):
            by_topic.setdefault(a["topic"], []).append(a["correct"])
    stats = {}
    for topic, results in by_topic.items():
        recent = results[-MASTERY_WINDOW:]
        stats[topic] = {
            "answered": len(results),
            "correct": sum(results),
            "accuracy": sum(results) / len(results),
            "recent_accuracy": sum(recent) / len(recent),
            "recent": len(recent),
            "recent_correct": sum(recent),
            "mastered": _mastered(results),
        }
    return stats


def is_mastered(progress: dict, topic: str) -> bool:
    return topic_stats(progress).get(topic, {}).get("mastered", False)


def _mastered(results: list[bool]) -> bool:
    """The mastery rule on a topic's answers, oldest first (topic_stats' "mastered")."""
    recent = results[-MASTERY_WINDOW:]
    return len(recent) >= MASTERY_WINDOW and sum(recent) >= MASTERY_CORRECT


def to_master(progress: dict, topic: str) -> int:
    """How many more right answers in a row earn ``topic``'s mastery (✓): 0 when it is mastered.

    No answers yet: MASTERY_WINDOW (the rule judges the last 5 answers, so 5 are needed); a wrong
    answer among the last ones counts until it has left the window. Answers from anywhere count
    (page, exam, review, drill), to the exam's items only, as they do for topic_stats."""
    results = [a["correct"] for a in progress["attempts"] if a["topic"] == topic and _scope.in_scope(a["qid"])]
    for more in range(MASTERY_WINDOW + 1):
        if _mastered(results + [True] * more):
            return more
    return MASTERY_WINDOW  # unreachable while MASTERY_CORRECT <= MASTERY_WINDOW


WEAK_EVIDENCE = 2       # answers a topic needs before it can be called weak (one miss in a mock exam is not)


def weak_topics(progress: dict, limit: int | None = None) -> list[tuple[str, dict]]:
    """Topics whose recent accuracy is below the mastery bar (4 of 5), weakest first.

    Ranked by recent accuracy (last MASTERY_WINDOW answers), then by fewer recent
    answers (less evidence first), then by topic key for a stable order. A topic answered
    right every time so far is not weak, even before it has enough answers to be mastered; nor is
    one with fewer than WEAK_EVIDENCE answers (a single miss, say in a mock exam, tells too little).
    """
    stats = topic_stats(progress)
    bar = MASTERY_CORRECT / MASTERY_WINDOW
    rows = [(t, s) for t, s in stats.items()
            if not s["mastered"] and s["recent_accuracy"] < bar and s["answered"] >= WEAK_EVIDENCE]
    rows.sort(key=lambda ts: (ts[1]["recent_accuracy"], ts[1]["recent"], ts[0]))
    return rows if limit is None else rows[:limit]


def overall(progress: dict) -> dict:
    """Totals for the dashboard: answers, correct, accuracy (None without answers)."""
    answered = len(progress["attempts"])
    correct = sum(a["correct"] for a in progress["attempts"])
    return {"answered": answered, "correct": correct,
            "accuracy": correct / answered if answered else None}


def due_today(progress: dict, today: date, tz: tzinfo | None = None) -> int:
    """Reviews due on the learner's ``today`` (their time zone ``tz``; None: the server's)."""
    return _review.due_count(_scope.practised_review(progress), today, tz)


def drop_review(progress: dict, skill: str) -> dict:
    """A copy without the review card of ``skill`` (a skill key, or a question id of that skill)."""
    return {**progress, "review": _review.drop(progress["review"], _skill.key(skill))}


def suggest_page(progress: dict, keys) -> str | None:
    """The next learning page: the first one not visited yet, else the first not mastered."""
    keys = list(keys)
    stats = topic_stats(progress)
    for k in keys:
        if not progress["visited"].get(k):
            return k
    for k in keys:
        if not stats.get(k, {}).get("mastered"):
            return k
    return None


def path_counts(progress: dict, keys) -> dict:
    """{"total", "visited", "mastered"} over the given learning-page keys."""
    keys = list(keys)
    stats = topic_stats(progress)
    return {"total": len(keys),
            "visited": sum(1 for k in keys if progress["visited"].get(k)),
            "mastered": sum(1 for k in keys if stats.get(k, {}).get("mastered"))}


# ---------------------------------------------------------------------------
# two tabs of one browser: three-way merge
# ---------------------------------------------------------------------------
def instant(at: str) -> datetime:
    """A stored time as the moment it names, for ordering: an offset's time in UTC (naive); a time
    without one (an old record) as it is. Two answers in two time zones sort by when they came."""
    dt = datetime.fromisoformat(at)
    return dt if dt.utcoffset() is None else dt.astimezone(timezone.utc).replace(tzinfo=None)


def with_zone(progress: dict, tz: tzinfo) -> dict:
    """``progress`` with every attempt and exam time that has no offset (records before times were
    kept with their zone) read as a time in ``tz``, the learner's zone now: the best guess there is."""
    def zoned(item: dict) -> dict:
        at = datetime.fromisoformat(item["at"])
        return item if at.utcoffset() is not None else {**item, "at": at.replace(tzinfo=tz).isoformat()}

    attempts, exams = [zoned(a) for a in progress["attempts"]], [zoned(e) for e in progress["exams"]]
    if attempts == progress["attempts"] and exams == progress["exams"]:
        return progress                # (nothing to read: the same record)
    return {**progress, "attempts": attempts, "exams": exams}


def _attempt_key(a: dict) -> tuple:
    return (instant(a["at"]), a["qid"], a["choice"], a["correct"], a["source"], a["topic"])


def _exam_key(e: dict) -> tuple:
    return (instant(e["at"]), e["total"], e["score"], e["seconds"], e["pace"],
            tuple(sorted((k, tuple(v)) for k, v in e["by_topic"].items())))


def _list_merge(base: list, mine: list, theirs: list, key, limit: int) -> list:
    """theirs + what mine added since base (as multisets), oldest first, the newest ``limit`` kept."""
    added = Counter(map(key, mine)) - Counter(map(key, base))
    out = list(theirs)
    for item in mine:
        k = key(item)
        if added[k] > 0:
            out.append(item)
            added[k] -= 1
    out = sorted(out, key=key)  # stable, by time first
    return copy.deepcopy(out[-limit:])


def _missing(base: list, theirs: list, key) -> Counter:
    """What base holds and theirs lacks (as multisets of keys)."""
    return Counter(map(key, base)) - Counter(map(key, theirs))


def _grew_from(base: dict, theirs: dict) -> bool:
    """Whether theirs holds every visit, attempt and exam of base, but those the limits dropped
    (older than all theirs keeps, when it keeps the most it can)."""
    if not set(base["visited"]) <= set(theirs["visited"]):
        return False
    for name, key, limit in (("attempts", _attempt_key, MAX_ATTEMPTS_KEPT), ("exams", _exam_key, MAX_EXAMS_KEPT)):
        gone = _missing(base[name], theirs[name], key)
        if gone and (len(theirs[name]) < limit or max(gone) >= min(map(key, theirs[name]))):
            return False
    return True


def _is_empty(progress: dict) -> bool:
    """An empty record: what 「この端末の記録を消す」 leaves (every record a tab writes has a visit)."""
    return not (progress["attempts"] or progress["exams"] or progress["review"] or progress["visited"])


def _common(base: dict, theirs: dict) -> dict:
    """The part of base that theirs holds too: attempts and exams in both (as multisets), the
    visits and review cards equal in both; settings and the unfinished exam as in base."""
    out = dict(base)
    out["visited"] = {k: v for k, v in base["visited"].items() if k in theirs["visited"]}
    for name, key in (("attempts", _attempt_key), ("exams", _exam_key)):
        out[name] = _less(base[name], _missing(base[name], theirs[name], key), key)
    out["review"] = {k: card for k, card in base["review"].items() if theirs["review"].get(k) == card}
    return out


def _run(paper: dict | None) -> str | None:
    return None if paper is None else paper["run"]


def _merge_paper(base: dict | None, mine: dict | None, theirs: dict | None) -> dict | None:
    """The unfinished mock exam after two tabs: each paper is named by its ``run``.

    - untouched here: theirs (it may have been answered, submitted or started there);
    - the paper this tab had at base ended there (theirs holds no paper or another one): it stays
      ended, whatever this tab did to it meanwhile (a submitted paper never comes back);
    - ended here (submitted or dropped): ended, unless theirs started another paper;
    - the same paper changed in both tabs: each question's answer and check from the tab that
      changed it since base (theirs where neither did), the current question this tab's;
    - else (a paper started here): mine."""
    if mine == base:
        return theirs
    if base is not None and _run(theirs) != base["run"] and _run(mine) in (base["run"], None):
        return theirs                  # base's paper ended there: this tab only went on with it (or ended it too)
    if mine is None:
        return None                    # ended here
    if theirs is not None and theirs["run"] == mine["run"]:
        b = base if base is not None and base["run"] == mine["run"] else theirs
        answers = [m if m != o else t for m, t, o in zip(mine["answers"], theirs["answers"], b["answers"])]
        added, removed = set(mine["flags"]) - set(b["flags"]), set(b["flags"]) - set(mine["flags"])
        flags = sorted((set(theirs["flags"]) | added) - removed)
        return {**mine, "answers": answers, "flags": flags}
    return mine


def _drop_second_submissions(base: dict, mine: dict, theirs: dict, out: dict) -> None:
    """In place on ``out``: a paper submitted in this tab that the other tab had submitted too
    (its result names the same ``run``) counts once, as theirs: this tab's result and the exam
    answers it recorded with it (source "exam", at the result's time) are left out."""
    their_runs = {e["run"] for e in theirs["exams"] if "run" in e}
    mine_new = _less(mine["exams"], Counter(map(_exam_key, base["exams"])), _exam_key)
    second = [e for e in mine_new if e.get("run") in their_runs]
    if not second:
        return
    drop_times = {instant(e["at"]) for e in second}
    out["exams"] = _less(out["exams"], Counter(map(_exam_key, second)), _exam_key)
    mine_added = Counter(map(_attempt_key, mine["attempts"])) - Counter(map(_attempt_key, base["attempts"]))
    gone = Counter({k: n for k, n in mine_added.items() if k[4] == "exam" and k[0] in drop_times})
    out["attempts"] = _less(out["attempts"], gone, _attempt_key)


def _less(items: list, drop: Counter, key) -> list:
    """``items`` less ``drop`` (a multiset of keys), in order: each key dropped as often as counted."""
    drop, kept = Counter(drop), []
    for item in items:
        if drop[key(item)] > 0:
            drop[key(item)] -= 1
        else:
            kept.append(item)
    return kept


def _later_review(a: dict, b: dict) -> dict:
    """Of two cards of one skill, the one reviewed last (more reviews on a tie)."""
    return max((a, b), key=lambda c: (c["last_review"] or "", c["reps"]))


def merge(base: dict, mine: dict, theirs: dict) -> dict:
    """Join two records that both grew from ``base`` (this tab's ``mine``, another tab's ``theirs``).

    - attempts, exam history: theirs plus everything mine added since base (nothing dropped);
    - visited pages: theirs plus the pages mine visited since base;
    - review cards (one per skill; both records are of this schema, so their keys are skill keys):
      a card mine changed since base is mine's, otherwise theirs' (a card both changed: the one
      reviewed last); a card mine removed since base is removed;
    - settings: mine's value if mine changed it since base, else theirs';
    - the unfinished mock exam (:func:`_merge_paper`): one paper answered in both tabs keeps the
      answers of both; a paper submitted (or replaced) in the other tab stays ended here;
    - a paper submitted in both tabs counts once: theirs (:func:`_drop_second_submissions`).
    ``merge(base, base, theirs) == theirs``; ``merge(base, mine, base)`` has mine's content.

    ``base`` is what this tab last wrote, and a browser can lose that write to another tab's
    (localStorage is not one atomic store across tabs: each tab reads a cached copy). Then
    theirs did not grow from base: it lacks answers base has. Whatever theirs lacks is then
    taken as never seen there, not as removed (:func:`_common`), so no answer of either side is
    dropped. Two things remove on purpose, and stay removed: the attempt limit (the oldest go)
    and 「この端末の記録を消す」 in the other tab (theirs is then an empty record).
    """
    if not _grew_from(base, theirs) and not _is_empty(theirs):
        base = _common(base, theirs)
    out = new_progress()
    out["attempts"] = _list_merge(base["attempts"], mine["attempts"], theirs["attempts"], _attempt_key,
                                  MAX_ATTEMPTS_KEPT)
    out["exams"] = _list_merge(base["exams"], mine["exams"], theirs["exams"], _exam_key, MAX_EXAMS_KEPT)
    out["visited"] = {**theirs["visited"], **{k: True for k in mine["visited"] if k not in base["visited"]}}
    review = copy.deepcopy(theirs["review"])
    for skill in set(mine["review"]) | set(base["review"]):
        m, b = mine["review"].get(skill), base["review"].get(skill)
        if m == b:
            continue                       # untouched here: theirs decides
        if m is None:
            review.pop(skill, None)        # removed here
        elif skill in review and review[skill] != b:
            review[skill] = copy.deepcopy(_later_review(m, review[skill]))  # changed on both sides
        else:
            review[skill] = copy.deepcopy(m)
    out["review"] = _review._bounded(review, "")
    # (a setting a record lacks — one added since it was written — counts as its default)
    mine_s, base_s, theirs_s = ({**out["settings"], **r["settings"]} for r in (mine, base, theirs))
    out["settings"] = {k: (mine_s[k] if mine_s[k] != base_s[k] else theirs_s[k]) for k in out["settings"]}
    out["exam_in_progress"] = copy.deepcopy(_merge_paper(base["exam_in_progress"], mine["exam_in_progress"],
                                                         theirs["exam_in_progress"]))
    _drop_second_submissions(base, mine, theirs, out)
    return out


def _union(mine: list, theirs: list, key, limit: int) -> list:
    """mine + what theirs has beyond it (as multisets), in time order (one instant keeps mine's
    order, then theirs'), the newest ``limit`` kept."""
    extra = Counter(map(key, theirs)) - Counter(map(key, mine))
    out = list(mine)
    for item in theirs:
        if extra[key(item)] > 0:
            out.append(item)
            extra[key(item)] -= 1
    out.sort(key=lambda item: instant(item["at"]))
    return copy.deepcopy(out[-limit:])


def join(mine: dict, theirs: dict) -> dict:
    """Two records of one learner from two devices (this browser's ``mine``, a file's ``theirs``),
    with no record they both grew from: every answer and exam of either, once (those in both —
    the same time, question and choice — count once), every visit, each skill's card reviewed last,
    a setting the file changed from its default, and the file's unfinished mock exam (else this
    browser's). Only the limits drop anything (the oldest attempts and exams beyond them)."""
    out = merge(_common(mine, theirs), mine, theirs)
    out["attempts"] = _union(mine["attempts"], theirs["attempts"], _attempt_key, MAX_ATTEMPTS_KEPT)
    out["exams"] = _union(mine["exams"], theirs["exams"], _exam_key, MAX_EXAMS_KEPT)
    default, theirs_s = new_progress()["settings"], {**new_progress()["settings"], **theirs["settings"]}
    mine_s = {**default, **mine["settings"]}
    out["settings"] = {k: theirs_s[k] if theirs_s[k] != default[k] else mine_s[k] for k in default}
    paper = theirs["exam_in_progress"] if theirs["exam_in_progress"] is not None else mine["exam_in_progress"]
    out["exam_in_progress"] = copy.deepcopy(paper)
    return out


def join_counts(mine: dict, joined: dict) -> dict[str, int]:
    """What :func:`join` adds to ``mine``: {"attempts", "exams", "review", "visited", "dropped"}
    ("dropped": attempts of mine the limit let go, when the joined record is full)."""
    kept = Counter(map(_attempt_key, joined["attempts"]))
    dropped = sum((Counter(map(_attempt_key, mine["attempts"])) - kept).values())
    return {"attempts": len(joined["attempts"]) - len(mine["attempts"]) + dropped,
            "exams": max(0, len(joined["exams"]) - len(mine["exams"])),
            "review": sum(1 for k, card in joined["review"].items() if mine["review"].get(k) != card),
            "visited": len(set(joined["visited"]) - set(mine["visited"])),
            "dropped": dropped}
