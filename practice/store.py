"""Progress records: export, strict import — of a file or of what the browser kept. Pure Python.

The same validator reads an uploaded progress file and the record read back from the learner's
browser storage (ui.storage): both are untrusted. Import validates everything before anything is used: size cap, UTF-8, JSON syntax, nesting
depth, schema version, exact keys (unknown keys refused), types, value ranges. Any problem raises
ProgressError with a Japanese message; the caller keeps the current progress untouched. Parts
that are sound but that this version cannot use — answers to a question that no longer exists,
an unfinished mock exam too old to resume — are left out with a note (:func:`salvage`), never the
reason to refuse the whole record. Nothing read from a file is ever rendered as
HTML (the pages show it through Streamlit's escaped text elements only).

Older schemas are read and migrated, never refused: 1 (Leitner boxes, :func:`migrate_v1`) and 2
(FSRS cards keyed by question id, :func:`migrate_v2`) become 3, whose review cards are keyed by
skill (practice.skill: the cards of one skill merged, every attempt kept as it was).
"""
from __future__ import annotations

import json
import math
from collections.abc import Set as AbstractSet
import re
from datetime import date, datetime

from quizzes.core import GENERATOR_INFO, MAX_SEED, TOPICS, QuizError, parse_id
from quizzes.knowledge import renamed_ids

from . import exam as _exam
from . import skill as _skill
from .progress import MAX_ATTEMPTS_KEPT, SCHEMA_VERSION, SOURCES, new_progress
from .progress import MAX_EXAMS_KEPT as MAX_EXAMS
from .record import (DAILY_MINUTES, DEFAULT_DAILY_MINUTES, YEARS, Attempt, Card, ExamResult, Progress, Settings,
                     bounds, optional, required)
from .review import ITEM_KEYS as REVIEW_KEYS
from .review import DAILY_LIMITS, DEFAULT_DAILY_LIMIT, LEGACY_N_BOXES, RETENTIONS, from_box
from .review import MAX_ITEMS as MAX_REVIEW_ITEMS

# The largest valid file (MAX_ATTEMPTS_KEPT attempts, MAX_REVIEW_ITEMS review cards and
# MAX_EXAMS exams, ids of MAX_QID_LEN characters) stays under this cap (tested), and the cap
# stays under Streamlit's upload limit (.streamlit/config.toml: server.maxUploadSize = 1 MB).
MAX_BYTES = 1_000_000
MAX_DEPTH = 6
MAX_QID_LEN = 80
PAGE_KEYS = frozenset(TOPICS) | {"home", "exam", "review", "drill", "glossary"}
TOP_KEYS = required(Progress)
TOP_KEYS_V1 = {"version", "visited", "attempts", "exams", "review"}
VERSIONS = (1, 2, SCHEMA_VERSION)   # 1: Leitner boxes; 2: FSRS cards keyed by question id; 3: by skill
SETTINGS_KEYS = required(Settings)
# settings added after schema 2 came out: a record without one (an older file or browser record)
# is read with its default, never refused
SETTINGS_ADDED = {"daily_review_limit": DEFAULT_DAILY_LIMIT, "advanced": False, "daily_minutes": DEFAULT_DAILY_MINUTES}
ATTEMPT_KEYS = required(Attempt)
EXAM_KEYS = required(ExamResult)
EXAM_OPTIONAL_KEYS = optional(ExamResult)   # "run" (the paper), since 2026-12
REVIEW_KEYS_V1 = {"topic", "box", "due", "lapses"}


class ProgressError(ValueError):
    """The file is not a progress file this version can use (message in Japanese)."""


# ---------------------------------------------------------------------------
# small typed checks
# ---------------------------------------------------------------------------
def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_in(x, lo: int, hi: int, where: str) -> int:
    if not _is_int(x) or not lo <= x <= hi:
        raise ProgressError(f"{where} は {lo} 以上 {hi} 以下の整数でなければなりません。")
    return x


def _field(obj: dict, part: type, name: str, where: str, optional: bool = False):
    """``obj[name]``, in the Range that practice.record writes on that field of ``part`` (an int
    unless the range's ends are floats; ``optional``: None passes too)."""
    x, r = obj[name], bounds(part, name)
    if x is None and optional:
        return x
    if isinstance(r.hi, int):
        return _int_in(x, int(r.lo), r.hi, where)
    if not (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            and (r.lo < x if r.lo_open else r.lo <= x) and x <= r.hi):
        low = f"{r.lo:g} より大きく" if r.lo_open else f"{r.lo:g} 以上"
        raise ProgressError(f"{where} は {low} {r.hi:g} 以下の数{'か null ' if optional else ''}です。")
    return x


def _keys(obj, expected: AbstractSet[str], where: str) -> None:
    if not isinstance(obj, dict):
        raise ProgressError(f"{where} は辞書（オブジェクト）でなければなりません。")
    unknown, missing = set(obj) - expected, expected - set(obj)
    if unknown:
        raise ProgressError(f"{where} に知らない項目があります：{', '.join(sorted(map(str, unknown)))[:200]}")
    if missing:
        raise ProgressError(f"{where} に必要な項目がありません：{', '.join(sorted(missing))}")


def _timestamp(x, where: str, aware: bool = False) -> None:
    if not isinstance(x, str) or len(x) > 32:
        raise ProgressError(f"{where} は日時の文字列でなければなりません。")
    try:
        dt = datetime.fromisoformat(x)
    except ValueError:
        raise ProgressError(f"{where} の日時「{x[:32]}」が読めません。") from None
    if aware and dt.utcoffset() is None:
        raise ProgressError(f"{where} の日時「{x[:32]}」に時差（+00:00 など）がありません。")
    _in_years(dt.year, where, x)


def _in_years(year: int, where: str, x: str) -> None:
    if not YEARS[0] <= year <= YEARS[1]:
        raise ProgressError(f"{where} の日付「{x[:32]}」は {YEARS[0]}〜{YEARS[1]} 年の範囲にありません。")


def _day(x, where: str) -> None:
    if not isinstance(x, str) or len(x) != 10:
        raise ProgressError(f"{where} は YYYY-MM-DD 形式の日付でなければなりません。")
    try:
        day = date.fromisoformat(x)
    except ValueError:
        raise ProgressError(f"{where} の日付「{x}」が読めません。") from None
    _in_years(day.year, where, x)


def _qid(x, where: str) -> str:
    if not isinstance(x, str) or len(x) > MAX_QID_LEN:
        raise ProgressError(f"{where} の問題 id が文字列ではないか、長すぎます。")
    try:
        gid, seed = parse_id(x)
    except QuizError as exc:
        raise ProgressError(f"{where}: {exc}") from None
    if x != f"{gid}#{seed}":  # e.g. "gen#007": would name the same question as "gen#7"
        raise ProgressError(f"{where}: 問題 id の書き方が正しくありません。")
    return GENERATOR_INFO[gid][0]


def _topic(x, where: str) -> None:
    if x not in TOPICS:
        raise ProgressError(f"{where} のトピック「{str(x)[:40]}」はありません。")


def _depth(obj) -> int:
    """How many levels of containers (dicts, lists) nest in ``obj``: 0 for a scalar, 1 for
    {"a": 1}; counted one level at a time and only to MAX_DEPTH + 1 (a hostile file may nest
    thousands deep)."""
    depth, layer = 0, [obj]
    while depth <= MAX_DEPTH:
        containers = [o for o in layer if isinstance(o, (dict, list))]
        if not containers:
            break
        depth += 1
        layer = [v for o in containers for v in (o.values() if isinstance(o, dict) else o)]
    return depth


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
def _version(data) -> int:
    if not isinstance(data, dict):
        raise ProgressError("ファイル全体 は辞書（オブジェクト）でなければなりません。")
    v = data.get("version")
    if not _is_int(v) or v not in VERSIONS:
        raise ProgressError(f"形式のバージョンが違います（このアプリが読めるのは 1〜{SCHEMA_VERSION}、"
                            f"ファイルは {str(v)[:20]}）。")
    return v


def _skill_topic(x, where: str) -> str:
    """A review card's key in schema 3: a skill key (practice.skill) → its generator's topic.
    A generator of a knowledge fact that is not the fact's first is accepted too (the caller
    rekeys it): a bank that gives two items one fact later must not make a record unreadable."""
    if not isinstance(x, str) or len(x) > MAX_QID_LEN:
        raise ProgressError(f"{where} の名前が文字列ではないか、長すぎます。")
    if "#" in x:
        raise ProgressError(f"{where}: 復習予定は問題の種類（生成器）ごとで、問題 id（「#」つき）では持ちません。")
    if x not in GENERATOR_INFO:
        raise ProgressError(f"{where}: この問題はもうありません（生成器 {x[:60]!r} が見つかりません）。")
    return GENERATOR_INFO[x].topic


def _cards(review, key_topic) -> None:
    """The review cards: at most MAX_REVIEW_ITEMS, each with a key that ``key_topic`` accepts (it
    returns the key's topic) and the fields of practice.record.Card in range."""
    if not isinstance(review, dict) or len(review) > MAX_REVIEW_ITEMS:
        raise ProgressError(f"review は {MAX_REVIEW_ITEMS} 件までの辞書でなければなりません。")
    for k, item in review.items():
        where = f"復習予定 {str(k)[:60]}"
        topic = key_topic(k, where)
        _keys(item, REVIEW_KEYS, where)
        if item["topic"] != topic:
            raise ProgressError(f"{where}: 問題とトピックが一致しません。")
        _field(item, Card, "state", f"{where} の state")
        for name in ("step", "stability", "difficulty"):
            _field(item, Card, name, f"{where} の {name}", optional=True)
        _timestamp(item["due"], f"{where} の due", aware=True)
        if item["last_review"] is not None:
            _timestamp(item["last_review"], f"{where} の last_review", aware=True)
        _field(item, Card, "lapses", f"{where} の lapses")
        _field(item, Card, "reps", f"{where} の reps")


def validate_progress(data) -> dict:
    """Return ``data`` if it is a valid progress dict of the current schema; ProgressError otherwise.
    A record that lacks a setting added since (SETTINGS_ADDED), or whose review cards of one fact
    are kept apart (practice.skill.rekey), is returned as a copy with the default / merged cards."""
    if _depth(data) > MAX_DEPTH:
        raise ProgressError("入れ子が深すぎます。進捗ファイルではありません。")
    if _version(data) != SCHEMA_VERSION:
        raise ProgressError(f"形式のバージョンが違います（このアプリは {SCHEMA_VERSION}、ファイルは {data['version']}）。")
    _keys(data, TOP_KEYS, "ファイル全体")
    _common(data)
    if isinstance(data["settings"], dict) and not SETTINGS_ADDED.keys() <= data["settings"].keys():
        data = {**data, "settings": {**SETTINGS_ADDED, **data["settings"]}}   # an older record
    _settings(data["settings"])
    _cards(data["review"], _skill_topic)
    review = _skill.rekey(data["review"])
    if review is not data["review"]:
        data = {**data, "review": review}
    if data["exam_in_progress"] is not None:
        data = {**data, "exam_in_progress": validate_exam_state(data["exam_in_progress"])}
    return data


def _settings(settings) -> None:
    _keys(settings, SETTINGS_KEYS, "settings")
    if settings["exam_date"] is not None:
        _day(settings["exam_date"], "settings の exam_date（試験日）")
    if settings["retention"] not in RETENTIONS or isinstance(settings["retention"], bool):
        raise ProgressError(f"settings の retention は {', '.join(map(str, RETENTIONS))} のどれかです。")
    limit = settings["daily_review_limit"]
    if not _is_int(limit) or limit not in DAILY_LIMITS:
        raise ProgressError(f"settings の daily_review_limit（1 日の復習の上限）は "
                            f"{', '.join(map(str, DAILY_LIMITS))} のどれかです。")
    if not isinstance(settings["advanced"], bool):
        raise ProgressError("settings の advanced（発展も練習する）は true か false です。")
    minutes = settings["daily_minutes"]
    if not _is_int(minutes) or minutes not in DAILY_MINUTES:
        raise ProgressError(f"settings の daily_minutes（1 日に使える時間）は "
                            f"{', '.join(map(str, DAILY_MINUTES))} のどれかです。")


def validate_exam_state(obj) -> dict:
    """The unfinished mock exam, checked by practice.exam.validate_state (ProgressError here)."""
    try:
        return _exam.validate_state(obj)
    except ProgressError:
        raise
    except ValueError as exc:
        raise ProgressError(f"途中の模擬試験が使えません：{exc}") from None


def _common(data) -> None:
    """visited, attempts, exams: the same in schema 1 and 2."""

    visited = data["visited"]
    if not isinstance(visited, dict):
        raise ProgressError("visited は辞書でなければなりません。")
    for k, v in visited.items():
        if k not in PAGE_KEYS:
            raise ProgressError(f"visited に知らないページ「{str(k)[:40]}」があります。")
        if v is not True:
            raise ProgressError("visited の値は true でなければなりません。")

    attempts = data["attempts"]
    if not isinstance(attempts, list) or len(attempts) > MAX_ATTEMPTS_KEPT:
        raise ProgressError(f"attempts は {MAX_ATTEMPTS_KEPT} 件までのリストでなければなりません。")
    for i, a in enumerate(attempts, start=1):
        where = f"解答記録 {i} 件目"
        _keys(a, ATTEMPT_KEYS, where)
        if _qid(a["qid"], where) != a["topic"]:
            raise ProgressError(f"{where}: 問題 id とトピックが一致しません。")
        if not isinstance(a["correct"], bool):
            raise ProgressError(f"{where}: correct は true / false でなければなりません。")
        _field(a, Attempt, "choice", f"{where} の choice")
        _timestamp(a["at"], f"{where} の at")
        if a["source"] not in SOURCES:
            raise ProgressError(f"{where}: source は {', '.join(SOURCES)} のどれかです。")

    exams = data["exams"]
    if not isinstance(exams, list) or len(exams) > MAX_EXAMS:
        raise ProgressError(f"exams は {MAX_EXAMS} 件までのリストでなければなりません。")
    for i, e in enumerate(exams, start=1):
        where = f"模擬試験の記録 {i} 件目"
        _keys(e, EXAM_KEYS | (EXAM_OPTIONAL_KEYS & set(e)) if isinstance(e, dict) else EXAM_KEYS, where)
        if "run" in e and not (isinstance(e["run"], str) and _exam.RUN_ID.fullmatch(e["run"])):
            raise ProgressError(f"{where} の run は 16 進 8 桁の文字列です。")
        _timestamp(e["at"], f"{where} の at")
        total = _field(e, ExamResult, "total", f"{where} の total")
        _int_in(e["score"], 0, total, f"{where} の score")
        _field(e, ExamResult, "seconds", f"{where} の seconds")
        _field(e, ExamResult, "pace", f"{where} の pace")
        if not isinstance(e["by_topic"], dict):
            raise ProgressError(f"{where}: by_topic は辞書でなければなりません。")
        for t, pair in e["by_topic"].items():
            _topic(t, f"{where} の by_topic")
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ProgressError(f"{where}: by_topic の値は [正解数, 問題数] です。")
            n = _int_in(pair[1], 1, total, f"{where} の問題数")
            _int_in(pair[0], 0, n, f"{where} の正解数")



def migrate_v1(data) -> dict:
    """A valid schema-1 record (Leitner boxes) as a current record: FSRS cards (practice.review.from_box)
    merged by skill (practice.skill.rekey), default settings; visits, attempts and exams as they were."""
    if _depth(data) > MAX_DEPTH:
        raise ProgressError("入れ子が深すぎます。進捗ファイルではありません。")
    _keys(data, TOP_KEYS_V1, "ファイル全体")
    _common(data)
    review = data["review"]
    if not isinstance(review, dict) or len(review) > MAX_REVIEW_ITEMS:
        raise ProgressError(f"review は {MAX_REVIEW_ITEMS} 件までの辞書でなければなりません。")
    cards = {}
    for qid, item in review.items():
        where = f"復習予定 {str(qid)[:60]}"
        topic = _qid(qid, where)
        _keys(item, REVIEW_KEYS_V1, where)
        if item["topic"] != topic:
            raise ProgressError(f"{where}: 問題 id とトピックが一致しません。")
        _int_in(item["box"], 1, LEGACY_N_BOXES, f"{where} の box")
        _day(item["due"], f"{where} の due")
        _int_in(item["lapses"], 0, 1_000_000, f"{where} の lapses")
        cards[qid] = from_box(topic, item["box"], item["due"], item["lapses"])
    out = new_progress()
    out.update(visited=data["visited"], attempts=data["attempts"], exams=data["exams"], review=_skill.rekey(cards))
    return validate_progress(out)


def migrate_v2(data) -> dict:
    """A valid schema-2 record (one FSRS card per question id) as a current one (one card per skill).

    Everything but the review schedule is kept as it is (every attempt with the exact question id
    it showed, the exams, settings, the unfinished paper). The cards are checked as strictly as
    schema 2 checked them, then merged by skill (practice.skill.rekey; the rule of merging is
    practice.skill.merged: the weakest memory, the earliest due time, the counts added up), so no
    card is lost: each skill that had a card has one."""
    if _depth(data) > MAX_DEPTH:
        raise ProgressError("入れ子が深すぎます。進捗ファイルではありません。")
    _keys(data, TOP_KEYS, "ファイル全体")
    _cards(data["review"], _qid)
    return validate_progress({**data, "version": SCHEMA_VERSION, "review": _skill.rekey(data["review"])})


def follow_renames(data):
    """A copy of ``data`` in which question ids of bank items that moved to another topic
    (``quizzes.knowledge.renamed_ids``, e.g. kb.multihead.k04 → kb.block.k10) carry their new id
    and topic. Only the record's own places for ids are touched; validation comes after."""
    moved = {old: new for old, new in renamed_ids().items() if new in GENERATOR_INFO}
    if not moved or not isinstance(data, dict):
        return data

    def new_id(qid):   # a question id "<old>#<seed>", or a review card's skill key "<old>" (schema 3)
        gid, sep, seed = qid.rpartition("#") if isinstance(qid, str) else ("", "", "")
        if not sep:
            return moved.get(qid, qid) if isinstance(qid, str) else qid
        return f"{moved[gid]}#{seed}" if gid in moved else qid

    def topic_of(qid, old_topic):
        gid = qid.partition("#")[0] if isinstance(qid, str) else ""
        return GENERATOR_INFO[gid].topic if gid in moved.values() else old_topic

    out = dict(data)
    if isinstance(data.get("attempts"), list):
        out["attempts"] = [{**a, "qid": new_id(a["qid"]), "topic": topic_of(new_id(a["qid"]), a.get("topic"))}
                           if isinstance(a, dict) and new_id(a.get("qid")) != a.get("qid") else a
                           for a in data["attempts"]]
    if isinstance(data.get("review"), dict):
        out["review"] = {new_id(q): ({**item, "topic": topic_of(new_id(q), item.get("topic"))}
                                     if isinstance(item, dict) and new_id(q) != q else item)
                         for q, item in data["review"].items()}
    exam = data.get("exam_in_progress")
    if isinstance(exam, dict) and isinstance(exam.get("qids"), list):
        out["exam_in_progress"] = {**exam, "qids": [new_id(q) for q in exam["qids"]]}
    return out


# A question id as every version wrote or accepted it. The seed has up to 12 digits: before 2026-12
# parse_id took any such seed, so a record may hold one above MAX_SEED (an answer to a link's ?q=);
# it named the question of seed & 0xFFFFFFFF under another id, parse_id now refuses it, and
# salvage leaves such ids out (:func:`_aliased`) rather than refusing the whole record.
_WELL_FORMED_ID = re.compile(r"[a-z0-9_.]{1,60}#(0|[1-9][0-9]{0,11})")
_NAME_PART = re.compile(r"[a-z0-9_]+")


def _skill_form(k: str) -> bool:
    """A skill key has no "#" to tell it from any dotted text: it is well formed when it reads as a
    generator id this app writes, "<topic>.<name>" or "<prefix>.<topic>.<name>" (kb.naive.k01)."""
    parts = k.split(".")
    return (len(k) <= 60 and len(parts) >= 2 and all(_NAME_PART.fullmatch(p) for p in parts)
            and (parts[0] in TOPICS or (len(parts) >= 3 and parts[1] in TOPICS)))


def _gone(qid, skill: bool = False) -> bool:
    """A well-formed question id (or, with ``skill``, also a review card's skill key, schema 3)
    whose generator this version no longer has (removed since the record was written). A malformed
    id is not "gone": the validator refuses it."""
    if not isinstance(qid, str) or len(qid) > MAX_QID_LEN:
        return False
    form = _WELL_FORMED_ID.fullmatch(qid) is not None or (skill and _skill_form(qid))
    return form and qid.partition("#")[0] not in GENERATOR_INFO


def _aliased(qid) -> bool:
    """A well-formed question id whose seed is above quizzes.core.MAX_SEED: an older version kept
    it, this one reads no such id (it would name the question of a smaller seed)."""
    return (isinstance(qid, str) and len(qid) <= MAX_QID_LEN and _WELL_FORMED_ID.fullmatch(qid) is not None
            and int(qid.partition("#")[2]) > MAX_SEED)


# why salvage leaves an id out → the start of its note
_LEFT_OUT = {"gone": "もうない問題の", "aliased": f"この版では読めない問題 id（シードが {MAX_SEED:,} を超えるもの）の"}


def _why_unusable(qid, skill: bool = False) -> str | None:
    """"gone" (:func:`_gone`), "aliased" (:func:`_aliased`), or None: a usable id, or one for the validator."""
    return "gone" if _gone(qid, skill) else "aliased" if _aliased(qid) else None


def _leave_out(items: list, why, what: str, notes: list[str]) -> list:
    """``items`` less those ``why`` gives a reason for; a note per reason, ``what`` naming how many."""
    reasons = [why(x) for x in items]
    for reason, start in _LEFT_OUT.items():
        if n := reasons.count(reason):
            notes.append(f"{start}{what.format(n=n)}を外しました。")
    return [x for x, reason in zip(items, reasons) if reason is None]


def salvage(data, notes: list[str]) -> object:
    """``data`` less the parts this version cannot use though nothing is wrong with them: attempts
    and review cards of questions that no longer exist or whose id carries a seed above
    quizzes.core.MAX_SEED (an older version accepted one), and an unfinished mock exam that cannot
    be resumed (its deadline passed long ago, or one of its questions is gone or has such a seed).
    Each part left out adds a Japanese note to ``notes``. Anything else is left for the validator to judge: a record
    is never refused whole for a part it can do without (and never kept with a part it cannot)."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    attempts = data.get("attempts")
    if isinstance(attempts, list):
        kept = _leave_out(attempts, lambda a: _why_unusable(a.get("qid") if isinstance(a, dict) else None),
                          "解答記録 {n} 件", notes)
        if len(kept) != len(attempts):
            out["attempts"] = kept
    review = data.get("review")
    if isinstance(review, dict):   # keyed by skill (schema 3) or by question id (schema 2)
        keys = _leave_out(list(review), lambda q: _why_unusable(q, skill=True), "復習予定 {n} 問", notes)
        if len(keys) != len(review):
            out["review"] = {q: review[q] for q in keys}
    exam = data.get("exam_in_progress")
    if isinstance(exam, dict) and set(exam) == _exam.STATE_KEYS:
        try:
            _exam.validate_state(exam)
        except ValueError as exc:
            notes.append(f"途中の模擬試験は再開できないため外しました（{exc}）。")
            out["exam_in_progress"] = None
    return out


def load_progress(data, notes: list[str] | None = None) -> dict:
    """Any readable schema (1 and 2 are migrated) → a valid current record; ProgressError otherwise.
    What :func:`salvage` leaves out is said in ``notes``."""
    if _depth(data) > MAX_DEPTH:
        raise ProgressError("入れ子が深すぎます。進捗ファイルではありません。")
    data = salvage(follow_renames(data), [] if notes is None else notes)
    version = _version(data)
    return migrate_v1(data) if version == 1 else migrate_v2(data) if version == 2 else validate_progress(data)


def parse_progress_bytes(raw: bytes, notes: list[str] | None = None) -> dict:
    """Bytes of an uploaded file → validated progress, or ProgressError (Japanese); what was left
    out (:func:`salvage`) is said in ``notes``."""
    if len(raw) > MAX_BYTES:
        raise ProgressError(f"ファイルが大きすぎます（{len(raw):,} バイト。上限 {MAX_BYTES:,} バイト）。")
    if not isinstance(raw, (bytes, bytearray)):
        raise ProgressError("ファイルの中身を読めませんでした。")
    try:
        text = bytes(raw).decode("utf-8-sig")  # a BOM added by an editor is tolerated
    except UnicodeDecodeError:
        raise ProgressError("UTF-8 のテキストではありません。書き出した JSON ファイルを選んでください。") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise ProgressError("入れ子が深すぎます。進捗ファイルではありません。") from None
    except json.JSONDecodeError as exc:
        raise ProgressError(f"JSON として読めません（{exc.lineno} 行 {exc.colno} 文字目）。") from None
    except ValueError:  # e.g. an integer with thousands of digits
        raise ProgressError("JSON の中に扱えない値（桁数の多すぎる数など）があります。") from None
    return load_progress(data, notes)


def parse_progress_text(text, notes: list[str] | None = None) -> dict:
    """The string the browser kept → validated progress, or ProgressError (Japanese); what was
    left out (:func:`salvage`) is said in ``notes``."""
    if not isinstance(text, str):
        raise ProgressError("ブラウザに残っていた記録が文字列ではありません。")
    if len(text) > MAX_BYTES:  # characters ≤ bytes: a cheap first cap before encoding
        raise ProgressError(f"記録が大きすぎます（{len(text):,} 文字。上限 {MAX_BYTES:,} バイト）。")
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        raise ProgressError("記録に UTF-8 にできない文字があります。") from None
    return parse_progress_bytes(raw, notes)


def dumps(progress: dict) -> str:
    """The compact JSON text kept in the browser (validated first)."""
    return json.dumps(validate_progress(progress), ensure_ascii=False, separators=(",", ":"))


def export_bytes(progress: dict) -> bytes:
    """The download: pretty, UTF-8 JSON with the schema version inside."""
    return json.dumps(validate_progress(progress), ensure_ascii=False, indent=1).encode("utf-8")


# ---------------------------------------------------------------------------
# the backup file the learner keeps outside the browser (Safari deletes a site's storage after
# seven days of use without a visit: README「保存について約束できること・できないこと」)
# ---------------------------------------------------------------------------
BACKUP_EVERY_DAYS = 7      # a backup older than this is old
BACKUP_EVERY_ANSWERS = 50  # … and so is one this many answers ago


def backup_text(at: datetime, answers: int) -> str:
    """What the browser keeps about the last backup file (ui.storage.BACKUP_KEY)."""
    return json.dumps({"at": at.isoformat(timespec="seconds"), "answers": int(answers)})


def parse_backup(text: object) -> tuple[datetime, int] | None:
    """(when, how many answers the record held) of the last backup, from what the browser kept;
    None for anything else (never an error: it is a reminder, not the record)."""
    if not isinstance(text, str) or len(text) > 200:
        return None
    try:
        data = json.loads(text)
        at, answers = datetime.fromisoformat(data["at"]), data["answers"]
    except (ValueError, TypeError, KeyError):
        return None
    if at.utcoffset() is None or not isinstance(answers, int) or isinstance(answers, bool) or answers < 0:
        return None
    return at, answers


def backup_due(answers: int, last: tuple[datetime, int] | None, now: datetime) -> bool:
    """Whether to remind the learner to save a backup file: there are answers and no backup yet,
    or the last one is BACKUP_EVERY_DAYS old (with answers since) or BACKUP_EVERY_ANSWERS answers ago."""
    if answers == 0:
        return False
    if last is None:
        return True
    at, then = last
    since = answers - then
    return since >= BACKUP_EVERY_ANSWERS or (since != 0 and (now - at).days >= BACKUP_EVERY_DAYS)
