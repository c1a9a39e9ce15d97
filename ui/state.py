"""Session state: one place that creates, hands out, changes and saves progress.

- ``record_answer`` is THE way an answer is stored anywhere (page quiz, exam, review): it
  records the attempt and updates the review schedule (practice.progress.apply_answer).
- Saving: the progress lives in the learner's own browser (localStorage, through the bridge in
  ui.storage). ``sync()`` — called by ``ui.page()`` on every page — loads it once per session
  (the page waits for it: nothing is drawn or recorded before the stored record is known) and
  queues a write after every change. What the browser hands back is untrusted and goes through
  practice.store's strict validator, exactly like an imported file. An unusable record → a
  Japanese message, a fresh start, and the record moved aside (kept, never overwritten).
  Another tab wrote in between → the two records are merged (practice.progress.merge).
  Storage refused → a one-line notice; the progress then lasts for this tab only.
- A session with no browser behind it (AppTest) keeps its progress in the session only.
- ``import_uploaded`` is the on_change callback of the progress file uploader.
"""
from __future__ import annotations

import functools

import copy
import json
import re
import secrets
from datetime import datetime

import streamlit as st

from practice.exam import record_exam
from practice.progress import apply_answer, merge, new_progress, set_exam_in_progress, set_setting, with_zone
from practice import wire
from practice.store import MAX_BYTES, ProgressError, dumps, parse_progress_bytes, parse_progress_text, validate_exam_state

from . import clock, storage

PROGRESS_KEY = "progress"
SYNC_KEY = "progress__sync"       # the bridge's bookkeeping (see _new_sync)
EXAM_KEY = "exam"                 # the unfinished mock exam: a JSON-able dict (practice.exam), or None
EXAM_ENDED_KEY = "exam__ended_elsewhere"   # this tab's paper was submitted (or replaced) in another tab
TOUCHED_KEY = "exam__touched"     # runs of the papers the learner worked on in this tab (may_auto_submit)
SEEN_KEY = "exam__seen"           # runs of the papers this tab has shown (saw_exam)
IMPORT_MSG_KEY = "progress__import_msg"   # ("success" | "error", text) for the review page
UPLOAD_KEY = "progress_upload"
# The session keys of the record and of the bridge's bookkeeping: no module but this one reads or writes
# them (the others call its functions). The mock exam in progress and the note that it ended in another
# tab are shared with the exam page, which changes the paper (practice.exam) and shows the note; this
# module saves the paper with the record and replaces it when another tab's arrives.
# (tests/test_architecture.py::test_only_ui_state_touches_the_record_in_the_session)
RECORD_KEYS = (PROGRESS_KEY, SYNC_KEY, TOUCHED_KEY, SEEN_KEY)
EXAM_KEYS = (EXAM_KEY, EXAM_ENDED_KEY)
UPLOAD_LIMIT_MB = 1     # the uploader's limit (the server refuses more: .streamlit/config.toml maxUploadSize)
MAX_SENT = 20

NOTICE = {
    "unavailable": "このブラウザでは記録を保存できないため（プライベートモードや保存の無効化など）、進捗はこのタブを閉じるまでしか残りません。",
    "quota": ("ブラウザの保存容量がいっぱいで、記録を保存できていません。容量が空けば、次の解答のときに"
              "このタブの進捗をまとめて保存します。それまでにタブを閉じると、保存できなかった分は失われます"
              "（「復習と進捗」で書き出しておけます）。"),
    "aside": "読めなかった記録を退避できなかったため（保存容量の不足など）、その記録を守るために、このタブでは進捗を保存しません。",
    "silent": "ブラウザから保存した記録が届かなかったため、進捗はこのタブを閉じるまでしか残りません。",
}


def _new_sync() -> dict:
    return {
        "nonce": secrets.token_hex(8),  # tags this session's read request
        "loaded": False,        # the stored record has been read (or there is no storage)
        "browser": True,        # a browser is behind this session
        "ok": True,             # writing to the browser's storage works
        "failure": "",          # NOTICE key when it does not
        "confirmed": None,      # the last record known to be in storage, and its fingerprint
        "confirmed_fp": "none",
        "sent": {},             # seq → record queued for writing (ancestors for a merge)
        "seq": 0,
        "ops": [],              # commands for the browser (the JS runs each seq once)
        "text_out": set(),      # seqs of writes whose text has gone out in a command (see _command)
        "base": None,           # the text the browser's storage holds if it ran what went out
        "written": None,        # the record last queued (identity / equality)
        "aside": 0,             # size of the records kept aside in this browser (characters)
        "asides": 0,            # how many (at most len(storage.ASIDE_KEYS))
        "problem": "",          # why the stored record could not be used (this session)
        "ticks": 0,
        "plain": False,         # reports carry the stored text uncompressed (its gzip came back broken)
        "runs": 0,              # commands made (each is new: see _command)
    }


def _sync_state() -> dict:
    if SYNC_KEY not in st.session_state:
        s = _new_sync()
        if not _has_browser():  # AppTest: the progress lives in the session only
            s["loaded"], s["browser"], s["ok"] = True, False, False
        st.session_state[SYNC_KEY] = s
    s = st.session_state[SYNC_KEY]
    if "text_out" not in s:  # a session older than the fields (the app's code was updated under it)
        s["text_out"], s["base"] = {op["seq"] for op in s["ops"]}, None
    s.setdefault("plain", False)
    s.setdefault("runs", 0)
    return s


def init() -> None:
    """The progress exists in the session (fresh until the browser's record arrives)."""
    _sync_state()
    if PROGRESS_KEY not in st.session_state:  # (a test may have put one there already)
        st.session_state[PROGRESS_KEY] = new_progress()


def get_progress() -> dict:
    init()
    return st.session_state[PROGRESS_KEY]


def set_progress(progress: dict) -> None:
    """Swap in a new progress dict (the practice functions never mutate the old one); it is
    written to the browser at the next ``sync()`` (every page's ``ui.page()``, or ``flush()``)."""
    init()
    st.session_state[PROGRESS_KEY] = progress


def storage_status() -> dict:
    """{"browser", "loaded", "ok", "notice", "problem", "salvaged", "aside", "asides"} for the pages' messages
    ("salvaged": what of the stored record this version left out, practice.store.salvage)."""
    s = _sync_state()
    return {"browser": s["browser"], "loaded": s["loaded"], "ok": s["ok"],
            "notice": NOTICE.get(s["failure"], "") if s["browser"] else "",
            "problem": s["problem"], "salvaged": s.get("salvaged", ""), "aside": s["aside"],
            "asides": s.get("asides", 1 if s["aside"] else 0)}


# ---------------------------------------------------------------------------
# the browser bridge
# ---------------------------------------------------------------------------
def _has_browser() -> bool:
    try:
        return bool(st.context.headers)
    except Exception:  # noqa: BLE001 - no request behind this run (AppTest)
        return False


def _queue(s: dict, op: dict) -> None:
    s["seq"] += 1
    op = {**op, "seq": s["seq"]}
    if op["op"] in ("clear", "aside"):
        s["base"] = None      # (the browser's storage is empty after it)
    if op["op"] == "write":   # an older write is superseded by this one
        s["ops"] = [o for o in s["ops"] if o["op"] != "write"][-3:]
    s["ops"] = (s["ops"] + [op])[-4:]


def _unusable(s: dict, text: str, exc: Exception, oversize: int | None = None) -> None:
    """The stored text cannot be used: say why, move it aside, start from an empty record. The
    browser says whether it could keep it aside ("asided", then the home page offers the
    download; or "failed", then nothing is written over it): the message claims neither.
    ``oversize``: the browser sent only the length of a text longer than any record."""
    s["problem"] = (f"このブラウザに保存されていた記録を読めなかったため、新しい記録で始めます。"
                    f"読めなかった記録は消さずに残します。理由：{exc}")
    _queue(s, {"op": "aside", "size": oversize} if oversize is not None else
              {"op": "aside", "expect": wire.fingerprint(text)})


def _oversize(rep: dict) -> int | None:
    size = rep.get("oversize")
    return size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None


def _restore_exam(progress: dict) -> None:
    if progress["exam_in_progress"] is not None and st.session_state.get(EXAM_KEY) is None:
        st.session_state[EXAM_KEY] = copy.deepcopy(progress["exam_in_progress"])


def _follow_exam(progress: dict) -> None:
    """After a merge with another tab's record, this tab's paper is the merged one: the same paper
    with both tabs' answers, or none when it ended there (EXAM_ENDED_KEY tells the exam page)."""
    paper, current = progress["exam_in_progress"], st.session_state.get(EXAM_KEY)
    if current is not None and (paper is None or paper["run"] != current.get("run")):
        st.session_state[EXAM_ENDED_KEY] = True
    if paper != current:
        st.session_state[EXAM_KEY] = copy.deepcopy(paper)


def touch_exam(run: str) -> None:
    """The learner works on paper ``run`` in this tab (started it, answered, moved, checked)."""
    st.session_state.setdefault(TOUCHED_KEY, set()).add(run)


def saw_exam(paper: dict, over: bool) -> None:
    """The exam page shows ``paper`` (on every run): a paper already past its deadline the first
    time this tab shows it is one the learner came back to, and this tab may submit it."""
    seen = st.session_state.setdefault(SEEN_KEY, set())
    if paper["run"] not in seen:
        seen.add(paper["run"])
        if over:
            touch_exam(paper["run"])


def may_auto_submit(run: str) -> bool:
    """Whether this tab submits paper ``run`` by itself at its deadline: a tab the learner worked
    in, or came back to after the deadline. A tab that merely showed a paper another tab ran never
    submits it for them (with answers it may not have)."""
    return run in st.session_state.get(TOUCHED_KEY, ())


class _BrokenPack(ProgressError):
    """A report's gzip does not unpack (within the size cap): the transport failed, not the record."""


def _read_text(rep: dict) -> str | None:
    """The stored text a read or conflict report carries, as text or gzipped (None: nothing is
    stored), or ProgressError (_BrokenPack when only its gzip is broken)."""
    size = _oversize(rep)
    if size is not None:
        raise ProgressError(f"記録が大きすぎます（{size:,} 文字。上限 {MAX_BYTES:,} バイト）。")
    if "gz" in rep:
        try:
            return wire.unpacked(rep["gz"])
        except ValueError as exc:
            raise _BrokenPack(str(exc)) from None
    text = rep.get("text")
    if text is not None and not isinstance(text, str):
        raise ProgressError("記録が文字列ではありません。")
    return text


def _on_report(key: str = storage.COMPONENT_KEY) -> None:
    """on_stored_change: the browser answered (runs before the page is drawn)."""
    init()
    s = _sync_state()
    rep = storage.last_report(key)
    if not isinstance(rep, dict) or rep.get("nonce") != s["nonce"]:
        return  # an answer for an older session (the server restarted under this tab)
    kind = rep.get("kind")
    size, count = rep.get("aside"), rep.get("asides")
    if isinstance(size, int) and not isinstance(size, bool) and size >= 0:
        s["aside"] = size
    if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= len(storage.ASIDE_KEYS):
        s["asides"] = count
    if kind == "read" and (not s["loaded"] or s["failure"] == "silent"):
        # (a read that arrives after _waiting gave up is still taken: merged with this tab's answers)
        s["loaded"], s["ok"], s["failure"] = True, True, ""
        if rep.get("ok") is not True:
            s["ok"], s["failure"] = False, "unavailable"
            return
        if rep.get("full") is True:   # it reads, but has no room: writes are tried (and may get through)
            s["failure"] = "quota"
        text, notes = None, []
        try:
            text = _read_text(rep)
            stored = new_progress() if text is None else with_zone(parse_progress_text(text, notes),
                                                                   clock.zone_or_local())
            s["salvaged"] = " ".join(notes)
        except ProgressError as exc:
            if isinstance(exc, _BrokenPack) and not s["plain"]:
                s["loaded"], s["plain"] = False, True   # read again, uncompressed, before judging the record
                return
            _unusable(s, text or "", exc, _oversize(rep))
            stored = new_progress()
        else:
            if text is not None:
                s["confirmed_fp"], s["base"] = wire.fingerprint(text), text
        s["confirmed"] = stored
        mine = st.session_state[PROGRESS_KEY]
        st.session_state[PROGRESS_KEY] = stored if mine == new_progress() else merge(new_progress(), mine, stored)
        s["written"] = stored if s["confirmed_fp"] != "none" else None
        _restore_exam(st.session_state[PROGRESS_KEY])
    elif kind == "conflict" and s["loaded"]:
        own = rep.get("own_seq")
        ancestor = s["sent"].get(own) if isinstance(own, int) else None
        if ancestor is None:
            ancestor = s["confirmed"] or new_progress()
        theirs, fp, base, text = new_progress(), "none", None, None
        try:
            text = _read_text(rep)
            if text is not None:
                theirs = with_zone(parse_progress_text(text), clock.zone_or_local())
                fp, base = wire.fingerprint(text), text
        except ProgressError as exc:
            if isinstance(exc, _BrokenPack) and not s["plain"]:
                s["plain"], s["written"] = True, None   # the write meets the conflict again, reported plainly
                return
            _unusable(s, text or "", exc, _oversize(rep))
        s["confirmed"], s["confirmed_fp"], s["sent"], s["base"] = theirs, fp, {}, base
        st.session_state[PROGRESS_KEY] = merge(ancestor, _with_session_exam(), theirs)
        s["written"] = None  # write the merged record
        _follow_exam(st.session_state[PROGRESS_KEY])
    elif kind == "failed":
        op = next((o for o in s["ops"] if o["seq"] == rep.get("seq")), None)
        if (op["op"] == "aside") if op is not None else bool(s["problem"]):
            s["ok"], s["failure"] = False, "aside"   # the unreadable record stays: never write over it
        elif "quota" in str(rep.get("error", "")).lower():
            s["failure"] = "quota"     # writes go on being tried: the first after space is freed gets through
        else:
            s["ok"], s["failure"] = False, "unavailable"
    elif kind == "saved":              # a write got through after a failure (space was freed)
        if s["failure"] == "quota":
            s["failure"] = ""
    elif kind == "asided" and rep.get("dropped") is True:
        s["problem"] += (f" 退避しておける記録は {len(storage.ASIDE_KEYS)} つまでのため、"
                         "いちばん古い退避記録を削除しました。")
    elif kind == "dropped":
        s["aside"], s["asides"] = 0, 0
    elif kind == "resend" and isinstance(rep.get("seq"), int):
        s["text_out"].discard(rep["seq"])  # this report's rerun mounts the bridge with the text,
        s["base"] = None                   # whole: what the browser holds is not known


def _with_session_exam() -> dict:
    """The session's progress holding the session's paper (st.session_state[EXAM_KEY]), if storable."""
    progress = st.session_state[PROGRESS_KEY]
    exam = st.session_state.get(EXAM_KEY)
    if exam != progress["exam_in_progress"]:
        try:
            json.dumps(exam)
            exam = None if exam is None else validate_exam_state(copy.deepcopy(exam))
        except (TypeError, ValueError):
            exam = progress["exam_in_progress"]  # not (yet) a storable exam: keep the last good one
        progress = set_exam_in_progress(progress, exam)
        st.session_state[PROGRESS_KEY] = progress
    return progress


def _queue_write(s: dict) -> None:
    """A write of the session's progress if it changed since the last one queued."""
    progress = _with_session_exam()
    if not (s["loaded"] and s["ok"] and s["browser"]):
        return
    if progress is s["written"] or progress == s["written"]:
        return
    try:
        text = dumps(progress)
    except ProgressError:
        return  # (cannot happen: the practice functions keep records valid) never write a bad one
    if len(text.encode("utf-8")) > MAX_BYTES:
        return
    s["written"] = progress
    _queue(s, {"op": "write", "text": text, "expect": s["confirmed_fp"]})
    s["sent"][s["seq"]] = progress
    for old in sorted(s["sent"])[:-MAX_SENT]:
        del s["sent"][old]


def _command(s: dict) -> dict:
    """The command for the next mount of a bridge instance. A write's text (the whole record, up
    to 1 MB) goes out once, in the first command that holds the write, and as a patch of the
    text the browser holds when there is one (wire.patch: an answer changes a few hundred
    bytes); later commands name the write by its seq only, since every later full-page run mounts
    the bridge again. A browser that has not run that write (its command never arrived) or holds
    another text than the patch is for asks for the whole text (report "resend")."""
    ops = []
    for op in s["ops"]:
        if op["op"] == "write":
            text, op = op["text"], {k: v for k, v in op.items() if k != "text"}
            if op["seq"] not in s["text_out"]:
                hunks = wire.patch(s["base"], text)
                if hunks is None:
                    op["text"] = text
                else:
                    op["patch"] = {"base": wire.fingerprint(s["base"]), "fp": wire.fingerprint(text),
                                   "hunks": hunks}
                s["text_out"].add(op["seq"])
                s["base"] = text
        ops.append(op)
    s["text_out"] &= {op["seq"] for op in ops}   # (a superseded write is never asked for again)
    # "run" makes every command new, so the bridge's JS runs on every run. The browser shows only a
    # run's last command: when quick clicks interrupt the run whose command held the text, the
    # browser asks for it again ("resend"), and the run that sends it may be interrupted too. The next
    # command then names the write exactly as one the JS already ran, the frontend would not call
    # the JS for it, and the write would stay unsaved until the learner's next change.
    s["runs"] += 1
    return {"nonce": s["nonce"], "read": not s["loaded"], "plain": s["plain"], "ops": ops, "run": s["runs"]}


def _text_pending(s: dict) -> bool:
    """A write in the command whose text has not gone out (yet, or again after a "resend")."""
    return any(op["op"] == "write" and op["seq"] not in s["text_out"] for op in s["ops"])


@st.fragment(run_every=5)
def _waiting() -> None:
    """While the browser's record has not arrived: after two ticks (≈ 10 s) give up waiting and
    go on with a record for this tab only (a browser whose components never answer)."""
    s = _sync_state()
    s["ticks"] += 1
    if s["ticks"] > 2 and not s["loaded"]:
        s["loaded"], s["ok"], s["failure"] = True, False, "silent"
        st.rerun(scope="app")


def sync() -> bool:
    """Load (once) and save the progress; mount the bridge. False while the stored record is
    still on its way (the caller then draws only a short loading line and stops)."""
    init()
    s = _sync_state()
    _queue_write(s)
    if s["browser"]:
        storage.mount(_command(s), _on_report)
    if not s["loaded"]:
        st.caption("記録を読み込んでいます…")
        _waiting()
        return False
    return True


def flush(key: str = storage.TAIL_KEY) -> None:
    """Write what changed since ``ui.page()`` ran: at the end of a page whose body — not a
    callback — changes the progress or st.session_state["exam"], and at the end of an
    st.fragment whose rerun recorded an answer (a fragment rerun does not run ``ui.page()``).
    ``key`` names the bridge instance mounted here (one per place that calls flush). It also
    mounts when a write's text is to go out again (the browser asked for it from this place)."""
    s = _sync_state()
    before = s["seq"]
    _queue_write(s)
    if s["browser"] and (s["seq"] != before or _text_pending(s)):
        storage.mount(_command(s), functools.partial(_on_report, key), key=key)


def last_write() -> tuple[str, int] | None:
    """(session nonce, seq) of the newest write queued for the browser, or None when nothing is
    saved there (no browser, storage refused, not loaded yet): what a verdict waits for
    (ui.storage.saved_marker)."""
    s = _sync_state()
    if not (s["browser"] and s["ok"] and s["loaded"]):
        return None
    seqs = [op["seq"] for op in s["ops"] if op["op"] == "write"]
    return (s["nonce"], max(seqs)) if seqs else None


CLEARED = "この端末の記録を消しました。"
NOT_CLEARED = ("このタブの進捗を消しました。ただし、このブラウザには保存できない状態のため、ブラウザの中に"
               "残っている記録（あれば）は消せていません。ブラウザの設定でこのサイトのデータを消すと消えます。")


def clear_device() -> str:
    """「この端末の記録を消す」 (a callback): an empty record here and in this browser's storage.
    Returns what happened, in Japanese, for the page to say (never a removal that did not happen).

    A store that is full, or whose unreadable record could not be moved aside, can still be
    cleared (removing frees space): saving starts again with the cleared record, and should the
    browser refuse even that, its report brings the notice back. A browser that keeps nothing
    (private mode, storage off, a bridge that never answered) is not asked."""
    s = _sync_state()
    st.session_state[PROGRESS_KEY] = new_progress()
    st.session_state.pop(EXAM_KEY, None)
    if not s["browser"]:
        return CLEARED            # (no browser behind the session: the record is the session's)
    if not s["loaded"] or s["failure"] in ("unavailable", "silent"):
        return NOT_CLEARED
    if s["failure"] == "aside":   # the unreadable record stayed where it was: this removes it
        s["problem"] = ""
    _queue(s, {"op": "clear"})
    s.update(ok=True, failure="", confirmed=new_progress(), confirmed_fp="none", sent={}, written=None)
    return CLEARED


def drop_aside() -> None:
    """Remove the record kept aside (a callback on the home page)."""
    s = _sync_state()
    if s["browser"] and s["loaded"]:
        _queue(s, {"op": "drop_aside"})
    s["problem"] = ""


def set_settings(**values) -> None:
    """Change settings (exam_date, retention) of the progress."""
    progress = get_progress()
    for name, value in values.items():
        progress = set_setting(progress, name, value)
    set_progress(progress)


def record_answer(question, choice: int, source: str) -> bool:
    """Store one answer (the attempt with the exact question id shown + the review card of its
    skill, practice.skill.key); returns whether it was right."""
    correct = int(choice) == question.answer
    set_progress(apply_answer(get_progress(), question.id, question.topic, correct, int(choice), source,
                              clock.now()))
    return correct


def record_finished_exam(result: dict, started_at: datetime, finished_at: datetime, pace_s: int,
                         run: str | None = None) -> None:
    """A submitted mock exam: answers as attempts (source "exam"), wrong ones scheduled, history
    saved (named by the paper's ``run``)."""
    set_progress(record_exam(get_progress(), result, started_at, finished_at, pace_s, run))


def import_progress_bytes(raw, file_id=None, name: str = "") -> bool:
    """Replace the progress by a file's content if (and only if) it is valid.

    The outcome is kept for the page as (kind, message, file id); the message may quote the
    file, so the page shows it through :func:`plain` (never as HTML).
    """
    which = f"「{name[:80]}」は" if name else ""
    notes: list[str] = []
    try:
        data = with_zone(parse_progress_bytes(raw, notes), clock.zone_or_local())
    except ProgressError as exc:
        st.session_state[IMPORT_MSG_KEY] = ("error", f"{which}読み込めませんでした。今の進捗はそのままです。理由：{exc}",
                                            file_id)
        return False
    set_progress(data)
    # the file's unfinished mock exam (if any) continues here; a paper open in this tab gives way
    if data["exam_in_progress"] is None:
        st.session_state.pop(EXAM_KEY, None)
    else:
        st.session_state[EXAM_KEY] = copy.deepcopy(data["exam_in_progress"])
    paper = "・途中の模擬試験 1 つ" if data["exam_in_progress"] is not None else ""
    left_out = f"ファイルのうち、この版では使えない部分を外しました：{' '.join(notes)}" if notes else ""
    st.session_state[IMPORT_MSG_KEY] = (
        "success", f"{'「' + name[:80] + '」から' if name else ''}進捗を読み込みました（解答 {len(data['attempts'])} 件・模擬試験 {len(data['exams'])} 回・"
                   f"復習予定 {len(data['review'])} 問{paper}）。{left_out}", file_id)
    return True


def import_uploaded() -> None:
    """on_change callback of st.file_uploader(key=UPLOAD_KEY)."""
    uploaded = st.session_state.get(UPLOAD_KEY)
    if uploaded is None:  # the learner removed the file: the message about it goes too
        st.session_state.pop(IMPORT_MSG_KEY, None)
        return
    file_id = getattr(uploaded, "file_id", None)
    name = str(getattr(uploaded, "name", "") or "")
    try:
        raw = uploaded.getvalue()
    except Exception:  # noqa: BLE001 - any unreadable upload is a plain Japanese message
        st.session_state[IMPORT_MSG_KEY] = ("error", "ファイルを読めませんでした。今の進捗はそのままです。", file_id)
        return
    import_progress_bytes(raw, file_id, name)


def import_message() -> tuple[str, str] | None:
    """(kind, text) of the last import, or None when it is about a file no longer in the uploader
    (a stale message never describes the file now shown there)."""
    msg = st.session_state.get(IMPORT_MSG_KEY)
    if not msg:
        return None
    kind, text, *rest = msg
    file_id = rest[0] if rest else None
    if file_id is not None:
        current = st.session_state.get(UPLOAD_KEY)
        if getattr(current, "file_id", None) != file_id:
            return None
    return kind, text


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
