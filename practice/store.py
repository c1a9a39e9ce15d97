"""Progress files: export, strict import, and optional local SQLite persistence. Pure Python.

Import validates everything before anything is used: size cap, UTF-8, JSON syntax, nesting
depth, schema version, exact keys (unknown keys refused), types, value ranges, and question
ids that no longer exist. Any problem raises ProgressError with a Japanese message; the
caller keeps the current progress untouched. Nothing read from a file is ever rendered as
HTML (the pages show it through Streamlit's escaped text elements only).
"""
from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import date, datetime
from pathlib import Path

from quizzes.core import GENERATOR_INFO, TOPICS, QuizError, parse_id

from .exam import MAX_EXAMS_KEPT as MAX_EXAMS
from .progress import MAX_ATTEMPTS_KEPT, SCHEMA_VERSION, SOURCES
from .review import MAX_ITEMS as MAX_REVIEW_ITEMS
from .review import N_BOXES

# The largest valid file (MAX_ATTEMPTS_KEPT attempts, MAX_REVIEW_ITEMS review items and
# MAX_EXAMS exams, ids of MAX_QID_LEN characters) stays under this cap (tested), and the cap
# stays under Streamlit's upload limit (.streamlit/config.toml: server.maxUploadSize = 1 MB).
MAX_BYTES = 1_000_000
MAX_DEPTH = 6
MAX_QID_LEN = 80
PAGE_KEYS = frozenset(TOPICS) | {"home", "exam", "review"}
TOP_KEYS = {"version", "visited", "attempts", "exams", "review"}
ATTEMPT_KEYS = {"qid", "topic", "correct", "choice", "at", "source"}
EXAM_KEYS = {"at", "total", "score", "seconds", "pace", "by_topic"}
REVIEW_KEYS = {"topic", "box", "due", "lapses"}
ENV_DB = "ATTENTION_TUTOR_DB"


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


def _keys(obj, expected: set, where: str) -> None:
    if not isinstance(obj, dict):
        raise ProgressError(f"{where} は辞書（オブジェクト）でなければなりません。")
    unknown, missing = set(obj) - expected, expected - set(obj)
    if unknown:
        raise ProgressError(f"{where} に知らない項目があります：{', '.join(sorted(map(str, unknown)))[:200]}")
    if missing:
        raise ProgressError(f"{where} に必要な項目がありません：{', '.join(sorted(missing))}")


def _timestamp(x, where: str) -> None:
    if not isinstance(x, str) or len(x) > 32:
        raise ProgressError(f"{where} は日時の文字列でなければなりません。")
    try:
        datetime.fromisoformat(x)
    except ValueError:
        raise ProgressError(f"{where} の日時「{x[:32]}」が読めません。") from None


def _day(x, where: str) -> None:
    if not isinstance(x, str) or len(x) != 10:
        raise ProgressError(f"{where} は YYYY-MM-DD 形式の日付でなければなりません。")
    try:
        date.fromisoformat(x)
    except ValueError:
        raise ProgressError(f"{where} の日付「{x}」が読めません。") from None


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


def _depth(obj, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(obj, dict):
        return max([_depth(v, level + 1) for v in obj.values()], default=level + 1)
    if isinstance(obj, list):
        return max([_depth(v, level + 1) for v in obj], default=level + 1)
    return level


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
def validate_progress(data) -> dict:
    """Return ``data`` if it is a valid progress dict; raise ProgressError otherwise."""
    if _depth(data) > MAX_DEPTH:
        raise ProgressError("入れ子が深すぎます。進捗ファイルではありません。")
    _keys(data, TOP_KEYS, "ファイル全体")
    if data["version"] != SCHEMA_VERSION or not _is_int(data["version"]):
        raise ProgressError(f"形式のバージョンが違います（このアプリは {SCHEMA_VERSION}、ファイルは {str(data['version'])[:20]}）。")

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
        _int_in(a["choice"], 0, 3, f"{where} の choice")
        _timestamp(a["at"], f"{where} の at")
        if a["source"] not in SOURCES:
            raise ProgressError(f"{where}: source は {', '.join(SOURCES)} のどれかです。")

    exams = data["exams"]
    if not isinstance(exams, list) or len(exams) > MAX_EXAMS:
        raise ProgressError(f"exams は {MAX_EXAMS} 件までのリストでなければなりません。")
    for i, e in enumerate(exams, start=1):
        where = f"模擬試験の記録 {i} 件目"
        _keys(e, EXAM_KEYS, where)
        _timestamp(e["at"], f"{where} の at")
        total = _int_in(e["total"], 1, 1000, f"{where} の total")
        _int_in(e["score"], 0, total, f"{where} の score")
        _int_in(e["seconds"], 0, 86_400, f"{where} の seconds")
        _int_in(e["pace"], 1, 3600, f"{where} の pace")
        if not isinstance(e["by_topic"], dict):
            raise ProgressError(f"{where}: by_topic は辞書でなければなりません。")
        for t, pair in e["by_topic"].items():
            _topic(t, f"{where} の by_topic")
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ProgressError(f"{where}: by_topic の値は [正解数, 問題数] です。")
            n = _int_in(pair[1], 1, total, f"{where} の問題数")
            _int_in(pair[0], 0, n, f"{where} の正解数")

    review = data["review"]
    if not isinstance(review, dict) or len(review) > MAX_REVIEW_ITEMS:
        raise ProgressError(f"review は {MAX_REVIEW_ITEMS} 件までの辞書でなければなりません。")
    for qid, item in review.items():
        where = f"復習予定 {str(qid)[:60]}"
        topic = _qid(qid, where)
        _keys(item, REVIEW_KEYS, where)
        if item["topic"] != topic:
            raise ProgressError(f"{where}: 問題 id とトピックが一致しません。")
        _int_in(item["box"], 1, N_BOXES, f"{where} の box")
        _day(item["due"], f"{where} の due")
        _int_in(item["lapses"], 0, 1_000_000, f"{where} の lapses")
    return data


def parse_progress_bytes(raw: bytes) -> dict:
    """Bytes of an uploaded file → validated progress, or ProgressError (Japanese)."""
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
    return validate_progress(data)


def export_bytes(progress: dict) -> bytes:
    """The download: pretty, UTF-8 JSON with the schema version inside."""
    return json.dumps(validate_progress(progress), ensure_ascii=False, indent=1).encode("utf-8")


# ---------------------------------------------------------------------------
# optional local persistence (one learner on their own machine; off unless named)
# ---------------------------------------------------------------------------
def db_path_from_env(environ) -> Path | None:
    value = environ.get(ENV_DB, "").strip()
    return Path(value) if value else None


def sqlite_load(path: Path) -> dict | None:
    """The saved progress, or None if there is none yet. ProgressError if it is unusable.

    The file is opened read-only, so loading never changes (or creates) it.
    """
    path = Path(path)
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return None
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as con:
            row = con.execute("SELECT json FROM progress WHERE id = 1").fetchone()
    except sqlite3.Error as exc:
        raise ProgressError(f"保存ファイル {path.name} を読めません（{exc}）。") from None
    if row is None:
        return None
    if not isinstance(row[0], str):
        raise ProgressError(f"保存ファイル {path.name} の中身が進捗の形式ではありません。")
    try:
        return parse_progress_bytes(row[0].encode("utf-8"))
    except ProgressError as exc:
        raise ProgressError(f"保存ファイル {path.name} の進捗が使えません：{exc}") from None
    except UnicodeEncodeError:
        raise ProgressError(f"保存ファイル {path.name} の中身が進捗の形式ではありません。") from None


def sqlite_save(path: Path, progress: dict) -> None:
    """Write the progress (one row). sqlite3.Error / OSError propagate to the caller."""
    text = json.dumps(validate_progress(progress), ensure_ascii=False)
    with closing(sqlite3.connect(Path(path))) as con, con:
        con.execute("CREATE TABLE IF NOT EXISTS progress (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)")
        con.execute("INSERT INTO progress (id, json) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json", (text,))
