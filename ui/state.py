"""Session state: one place that creates, hands out, changes and (optionally) saves progress.

- ``record_answer`` is THE way an answer is stored anywhere (page quiz, exam, review): it
  records the attempt and updates the review schedule (practice.progress.apply_answer).
- Optional local persistence: when the environment variable ``ATTENTION_TUTOR_DB`` names a
  file, the progress is loaded from that SQLite file at session start and saved after each
  change. Off by default, so a hosted app never mixes learners. A file that cannot be used
  → a Japanese warning, a fresh start, and the file is never overwritten in this session.
- ``import_uploaded`` is the on_change callback of the progress file uploader.
"""
from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime

import streamlit as st

from practice.exam import record_exam
from practice.progress import apply_answer, new_progress
from practice.store import ProgressError, db_path_from_env, parse_progress_bytes, sqlite_load, sqlite_save

PROGRESS_KEY = "progress"
DB_KEY = "progress__db"          # {"path": str | None, "ok": bool, "message": str}
IMPORT_MSG_KEY = "progress__import_msg"   # ("success" | "error", text) for the review page
UPLOAD_KEY = "progress_upload"


def init() -> None:
    """Once per session: the progress (from the SQLite file when ATTENTION_TUTOR_DB is set)."""
    if DB_KEY in st.session_state and PROGRESS_KEY in st.session_state:
        return
    db = {"path": None, "ok": False, "message": ""}
    loaded = None
    path = db_path_from_env(os.environ)
    if path is not None:
        db["path"] = str(path)
        try:
            loaded = sqlite_load(path)
        except ProgressError as exc:
            db["message"] = (f"保存ファイル（{path.name}）を読み込めなかったため、新しい進捗で始めます。"
                             f"ファイルはそのまま残し、上書きしません。理由：{exc}")
            st.warning(plain(db["message"]), icon=":material/warning:")
        else:
            db["ok"] = True
    st.session_state[DB_KEY] = db
    if PROGRESS_KEY not in st.session_state:  # (a test may have put one there already)
        st.session_state[PROGRESS_KEY] = loaded if loaded is not None else new_progress()


def get_progress() -> dict:
    init()
    return st.session_state[PROGRESS_KEY]


def db_status() -> dict:
    """{"path": str | None, "ok": bool, "message": str} of the optional SQLite file."""
    init()
    return dict(st.session_state[DB_KEY])


def set_progress(progress: dict) -> None:
    """Swap in a new progress dict (the practice functions never mutate the old one), and
    save it when local persistence is on."""
    init()
    changed = st.session_state[PROGRESS_KEY] is not progress
    st.session_state[PROGRESS_KEY] = progress
    db = st.session_state[DB_KEY]
    if changed and db["path"] and db["ok"]:
        try:
            sqlite_save(db["path"], progress)
        except (sqlite3.Error, OSError, ProgressError) as exc:
            db["ok"] = False
            db["message"] = f"保存ファイルに書き込めなかったため、保存を止めました（{exc}）。書き出しで進捗を残してください。"
            st.warning(plain(db["message"]), icon=":material/warning:")


def record_answer(question, choice: int, source: str) -> bool:
    """Store one answer (attempt + review schedule); returns whether it was right."""
    correct = int(choice) == question.answer
    set_progress(apply_answer(get_progress(), question.id, question.topic, correct, int(choice), source))
    after_change()
    return correct


def after_change() -> None:
    """Called after every recorded answer (record_answer), also when the answer was given inside
    an st.fragment (the quiz cards of ui.quiz_section): a fragment rerun does not run ui.page(),
    so anything that must follow a change of the progress cannot live there alone.
    The persistence bridge hooks in here (save the progress record). Today it does nothing."""


def record_finished_exam(result: dict, started_at: datetime, finished_at: datetime, pace_s: int) -> None:
    """A submitted mock exam: answers as attempts (source "exam"), wrong ones scheduled, history saved."""
    set_progress(record_exam(get_progress(), result, started_at, finished_at, pace_s))


def import_progress_bytes(raw) -> bool:
    """Replace the progress by a file's content if (and only if) it is valid.

    The outcome is kept for the page as (kind, message); the message may quote the file,
    so the page shows it through :func:`plain` (never as HTML).
    """
    try:
        data = parse_progress_bytes(raw)
    except ProgressError as exc:
        st.session_state[IMPORT_MSG_KEY] = ("error", f"読み込めませんでした。今の進捗はそのままです。理由：{exc}")
        return False
    set_progress(data)
    st.session_state[IMPORT_MSG_KEY] = (
        "success", f"進捗を読み込みました（解答 {len(data['attempts'])} 件・模擬試験 {len(data['exams'])} 回・"
                   f"復習予定 {len(data['review'])} 問）。")
    return True


def import_uploaded() -> None:
    """on_change callback of st.file_uploader(key=UPLOAD_KEY)."""
    uploaded = st.session_state.get(UPLOAD_KEY)
    if uploaded is None:  # the learner removed the file: nothing to do
        return
    try:
        raw = uploaded.getvalue()
    except Exception:  # noqa: BLE001 - any unreadable upload is a plain Japanese message
        st.session_state[IMPORT_MSG_KEY] = ("error", "ファイルを読めませんでした。今の進捗はそのままです。")
        return
    import_progress_bytes(raw)


_MD_SPECIAL = set("\\`*_{}[]()<>#+-.!|~:$&=\"'")


_WORD_JOINER = "\u2060"  # invisible; breaks GFM's bare-URL autolinks, which ignore backslash escapes


def plain(text: str) -> str:
    """Text (possibly from a file) made inert for Streamlit's Markdown: every Markdown/HTML
    punctuation character is backslash-escaped and line breaks become spaces. Bare URLs and
    e-mail addresses ("https://…", "www.…", "a@b.c") would still become links (GFM autolinks
    are found after escapes are resolved), so an invisible word joiner splits them."""
    text = " ".join(str(text).split())
    text = "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)
    # "http\://" → "http\:" + WJ + "//", "www\." → "www" + WJ + "\.", "a@b" → "a@" + WJ + "b"
    return re.sub(r"(?i)(?<=:)(?=//)|(?<=www)(?=\\\.)|(?<=@)", _WORD_JOINER, text)
