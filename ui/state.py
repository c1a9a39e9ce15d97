"""Session state: one place that creates, hands out, changes and saves progress.

- ``record_answer`` is THE way an answer is stored anywhere (page quiz, exam, review): it
  records the attempt and updates the review schedule (practice.progress.apply_answer).
- Saving: the progress lives in the learner's own browser (localStorage, through the bridge in
  ui.storage). ``sync()`` — called by ``ui.page()`` on every page — loads it once per session
  (the page waits for it: nothing is drawn or recorded before the stored record is known) and
  queues a write after every change. What the browser hands back is untrusted and goes through
  practice.store's strict validator, exactly like an imported file. An unusable record → a
  Japanese message, a fresh start, and the record moved aside (kept, never overwritten).
  Another tab wrote in between, or while this tab was open (the bridge hears of it: "changed")
  → the two records are merged (practice.progress.merge). A record another tab left unreadable is
  moved aside and this tab's own record written again: it is never taken for an empty one.
  Storage refused → a one-line notice; the progress then lasts for this tab only.
- The bridge's bookkeeping is one typed :class:`Sync` per session.
- A session with no browser behind it (AppTest) keeps its progress in the session only.
- ``join_file`` joins a progress file's record with this tab's (practice.progress.join); reading the
  file and showing what it adds first is ui.backup's import.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypedDict

import streamlit as st

from practice import wire
from practice.exam import record_exam
from practice.progress import (apply_answer, join, merge, new_progress, set_exam_in_progress, set_setting,
                               with_zone)
from quizzes.core import Question
from practice.store import (MAX_BYTES, ProgressError, backup_due, backup_text, dumps, parse_backup,
                            parse_progress_text, validate_exam_state)

from . import clock, storage

Record = dict[str, Any]           # a progress record (practice.record.Progress, as the practice functions pass it)

PROGRESS_KEY = "progress"
SYNC_KEY = "progress__sync"       # the bridge's bookkeeping (a Sync)
EXAM_KEY = "exam"                 # the unfinished mock exam: a JSON-able dict (practice.exam), or None
EXAM_ENDED_KEY = "exam__ended_elsewhere"   # this tab's paper was submitted (or replaced) in another tab
TOUCHED_KEY = "exam__touched"     # runs of the papers the learner worked on in this tab (may_auto_submit)
SEEN_KEY = "exam__seen"           # runs of the papers this tab has shown (saw_exam)
# The session keys of the record and of the bridge's bookkeeping: no module but this one reads or writes
# them (the others call its functions). The mock exam in progress and the note that it ended in another
# tab are shared with the exam page, which changes the paper (practice.exam) and shows the note; this
# module saves the paper with the record and replaces it when another tab's arrives.
# (tests/test_architecture.py::test_only_ui_state_touches_the_record_in_the_session)
RECORD_KEYS = (PROGRESS_KEY, SYNC_KEY, TOUCHED_KEY, SEEN_KEY)
EXAM_KEYS = (EXAM_KEY, EXAM_ENDED_KEY)
MAX_SENT = 20

Failure = Literal["", "unavailable", "quota", "aside", "silent"]
NOTICE: dict[str, str] = {
    "unavailable": "このブラウザでは記録を保存できないため（プライベートモードや保存の無効化など）、進捗はこのタブを閉じるまでしか残りません。",
    "quota": ("ブラウザの保存容量がいっぱいで、記録を保存できていません。容量が空けば、次の解答のときに"
              "このタブの進捗をまとめて保存します。それまでにタブを閉じると、保存できなかった分は失われます"
              "（「復習と進捗」で書き出しておけます）。"),
    "aside": "読めなかった記録を退避できなかったため（保存容量の不足など）、その記録を守るために、このタブでは進捗を保存しません。",
    "silent": "ブラウザから保存した記録が届かなかったため、進捗はこのタブを閉じるまでしか残りません。",
}
# what navigator.storage said about keeping this site's data (ui/storage.js "persist")
Persist = Literal["", "asking", "not-asked", "granted", "denied", "unsupported"]


class Op(TypedDict, total=False):
    """A command for the bridge (ui/storage.js runs each ``seq`` once)."""
    op: Literal["write", "aside", "clear", "drop_aside", "backup"]
    seq: int
    text: str            # write: the whole record (see _command); backup: BACKUP_KEY's text
    patch: dict          # write: hunks of the text the browser holds (practice.wire.patch)
    expect: str          # write/aside: the fingerprint of the stored text it is for
    size: int            # aside: the length of a text too long to send


@dataclass
class Sync:
    """The bridge's bookkeeping for one session (st.session_state[SYNC_KEY])."""
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))   # tags this session's reports
    loaded: bool = False          # the stored record has been read (or there is no storage)
    browser: bool = True          # a browser is behind this session
    ok: bool = True               # writing to the browser's storage works
    failure: Failure = ""         # NOTICE key when it does not
    confirmed: Record | None = None   # the last record known to be in storage …
    confirmed_fp: str = "none"        # … and its fingerprint
    sent: dict[int, Record] = field(default_factory=dict)   # seq → record queued (ancestors for a merge)
    seq: int = 0
    ops: list[Op] = field(default_factory=list)             # commands for the browser
    text_out: set[int] = field(default_factory=set)         # writes whose text has gone out (see _command)
    base: str | None = None       # the text the browser's storage holds if it ran what went out
    written: Record | None = None     # the record last queued (identity / equality)
    aside: int = 0                # size of the records kept aside in this browser (characters)
    asides: int = 0               # how many (at most len(storage.ASIDE_KEYS))
    problem: str = ""             # why the stored record could not be used (this session)
    salvaged: str = ""            # what of the stored record this version left out (practice.store.salvage)
    ticks: int = 0
    plain: bool = False           # reports carry the stored text uncompressed (its gzip came back broken)
    runs: int = 0                 # commands made (each is new: see _command)
    locks: bool | None = None     # the browser has Web Locks (a secure context); None: not told yet
    safari: bool = False          # the browser is Safari (its tracking prevention deletes storage)
    persist: Persist = ""         # what navigator.storage said about keeping this site's data
    backup: tuple[datetime, int] | None = None   # the last backup file: when, and the answers then

    @classmethod
    def from_old(cls, old: object) -> Sync:
        """A session older than this class (a dict, or a Sync of an earlier import of this module)."""
        values = old if isinstance(old, dict) else dict(vars(old))
        names = {f.name for f in dataclasses.fields(cls)}
        s = cls(**{k: v for k, v in values.items() if k in names})
        if "text_out" not in values:   # older than the text bookkeeping: what is queued has gone out
            s.text_out, s.base = {op["seq"] for op in s.ops}, None
        return s


class StorageStatus(TypedDict):
    """What the pages say about saving (storage_status)."""
    browser: bool
    loaded: bool
    ok: bool
    notice: str
    problem: str
    salvaged: str
    aside: int
    asides: int
    locks: bool | None
    safari: bool
    persist: Persist
    backup_due: bool
    backup_at: datetime | None


def _new_sync() -> Sync:
    return Sync()


def _sync_state() -> Sync:
    if SYNC_KEY not in st.session_state:
        s = _new_sync()
        if not _has_browser():  # AppTest: the progress lives in the session only
            s.loaded, s.browser, s.ok = True, False, False
        st.session_state[SYNC_KEY] = s
    s = st.session_state[SYNC_KEY]
    if not isinstance(s, Sync):  # a session older than the class (the app's code was updated under it)
        s = st.session_state[SYNC_KEY] = Sync.from_old(s)
    return s


def init() -> None:
    """The progress exists in the session (fresh until the browser's record arrives)."""
    _sync_state()
    if PROGRESS_KEY not in st.session_state:  # (a test may have put one there already)
        st.session_state[PROGRESS_KEY] = new_progress()


def get_progress() -> Record:
    init()
    return st.session_state[PROGRESS_KEY]


def set_progress(progress: Record) -> None:
    """Swap in a new progress dict (the practice functions never mutate the old one); it is
    written to the browser at the next ``sync()`` (every page's ``ui.page()``, or ``flush()``)."""
    init()
    st.session_state[PROGRESS_KEY] = progress


def storage_status() -> StorageStatus:
    """What the pages say about saving: notices, the unusable record, the records kept aside, Web
    Locks, Safari, persistent storage, and whether a backup file is due (practice.store.backup_due)."""
    s = _sync_state()
    saving = s.browser and s.loaded and s.ok
    return {"browser": s.browser, "loaded": s.loaded, "ok": s.ok,
            "notice": NOTICE.get(s.failure, "") if s.browser else "",
            "problem": s.problem, "salvaged": s.salvaged, "aside": s.aside, "asides": s.asides,
            "locks": s.locks, "safari": s.safari, "persist": s.persist,
            "backup_due": saving and backup_due(len(get_progress()["attempts"]), s.backup, clock.now()),
            "backup_at": None if s.backup is None else s.backup[0]}


# ---------------------------------------------------------------------------
# the browser bridge
# ---------------------------------------------------------------------------
def _has_browser() -> bool:
    try:
        return bool(st.context.headers)
    except Exception:  # noqa: BLE001 - no request behind this run (AppTest)
        return False


def _queue(s: Sync, op: Op) -> None:
    s.seq += 1
    op = {**op, "seq": s.seq}
    if op["op"] in ("clear", "aside"):
        s.base = None      # (the browser's storage is empty after it)
    if op["op"] == "write":   # an older write is superseded by this one
        s.ops = [o for o in s.ops if o["op"] != "write"][-3:]
    s.ops = (s.ops + [op])[-4:]


def _unusable(s: Sync, text: str, exc: Exception, oversize: int | None = None, kept: int | None = None) -> None:
    """The stored text cannot be used: say why and move it aside (the browser says whether it could
    keep it aside: "asided", then the home page offers the download; or "failed", then nothing is
    written over it: the message claims neither). ``oversize``: the browser sent only the length of
    a text longer than any record. ``kept``: met while this tab was open (another tab wrote it):
    this tab's record, with ``kept`` answers, is written again after the move — it is not a fresh
    start, and the unreadable text is never read as an empty record."""
    if kept is None:
        s.problem = (f"このブラウザに保存されていた記録を読めなかったため、新しい記録で始めます。"
                     f"読めなかった記録は消さずに残します。理由：{exc}")
    else:
        s.problem = (f"このブラウザに、読めない記録が書き込まれていました（別のタブや別の版のアプリなど）。"
                     f"その記録は消さずに残し、このタブの進捗（解答 {kept:,} 件）をまとめて保存し直します。理由：{exc}")
    _queue(s, {"op": "aside", "size": oversize} if oversize is not None else
              {"op": "aside", "expect": wire.fingerprint(text)})


def _oversize(rep: dict) -> int | None:
    size = rep.get("oversize")
    return size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None


def _restore_exam(progress: Record) -> None:
    if progress["exam_in_progress"] is not None and st.session_state.get(EXAM_KEY) is None:
        st.session_state[EXAM_KEY] = copy.deepcopy(progress["exam_in_progress"])


def _follow_exam(progress: Record) -> None:
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
    """The stored text a read, conflict or changed report carries, as text or gzipped (None: nothing
    is stored), or ProgressError (_BrokenPack when only its gzip is broken)."""
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


def _count(value: object, top: int) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top else None


def _facts(s: Sync, rep: dict) -> None:
    """What every report says about the browser: the records kept aside, Web Locks, Safari,
    persistent storage."""
    size, count = _count(rep.get("aside"), 10 ** 9), _count(rep.get("asides"), len(storage.ASIDE_KEYS))
    if size is not None:
        s.aside = size
    if count is not None:
        s.asides = count
    if isinstance(rep.get("locks"), bool):
        s.locks = rep["locks"]
    if isinstance(rep.get("safari"), bool):
        s.safari = rep["safari"]
    if rep.get("persist") in ("asking", "not-asked", "granted", "denied", "unsupported"):
        s.persist = rep["persist"]
    if rep.get("gave_way") is True:
        s.problem += (f" 退避しておける記録は {len(storage.ASIDE_KEYS)} つまでのため、"
                      "いちばん古い退避記録を削除しました。")


def _on_report(key: str = storage.COMPONENT_KEY) -> None:
    """on_stored_change: the browser answered (runs before the page is drawn)."""
    init()
    s = _sync_state()
    rep = storage.last_report(key)
    if not isinstance(rep, dict) or rep.get("nonce") != s.nonce:
        return  # an answer for an older session (the server restarted under this tab)
    kind = rep.get("kind")
    _facts(s, rep)
    if kind == "read" and (not s.loaded or s.failure == "silent"):
        _on_read(s, rep)
    elif kind in ("conflict", "changed") and s.loaded and s.ok:
        _on_theirs(s, rep, kind)
    elif kind == "failed":
        op = next((o for o in s.ops if o["seq"] == rep.get("seq")), None)
        if (op["op"] == "aside") if op is not None else bool(s.problem):
            s.ok, s.failure = False, "aside"   # the unreadable record stays: never write over it
        elif "quota" in str(rep.get("error", "")).lower():
            s.failure = "quota"     # writes go on being tried: the first after space is freed gets through
        else:
            s.ok, s.failure = False, "unavailable"
    elif kind == "saved":              # a write got through after a failure (space was freed)
        if s.failure == "quota":
            s.failure = ""
    elif kind == "dropped":
        s.aside, s.asides = 0, 0
    elif kind == "resend" and isinstance(rep.get("seq"), int):
        s.text_out.discard(rep["seq"])  # this report's rerun mounts the bridge with the text,
        s.base = None                   # whole: what the browser holds is not known


def _on_read(s: Sync, rep: dict) -> None:
    # (a read that arrives after _waiting gave up is still taken: merged with this tab's answers)
    s.loaded, s.ok, s.failure = True, True, ""
    if rep.get("ok") is not True:
        s.ok, s.failure = False, "unavailable"
        return
    if rep.get("full") is True:   # it reads, but has no room: writes are tried (and may get through)
        s.failure = "quota"
    s.backup = parse_backup(rep.get("backup"))
    text: str | None = None
    notes: list[str] = []
    try:
        text = _read_text(rep)
        stored = new_progress() if text is None else with_zone(parse_progress_text(text, notes),
                                                               clock.zone_or_local())
        s.salvaged = " ".join(notes)
    except ProgressError as exc:
        if isinstance(exc, _BrokenPack) and not s.plain:
            s.loaded, s.plain = False, True   # read again, uncompressed, before judging the record
            return
        _unusable(s, text or "", exc, _oversize(rep))
        stored = new_progress()
    else:
        if text is not None:
            s.confirmed_fp, s.base = wire.fingerprint(text), text
    s.confirmed = stored
    mine = st.session_state[PROGRESS_KEY]
    st.session_state[PROGRESS_KEY] = stored if mine == new_progress() else merge(new_progress(), mine, stored)
    s.written = stored if s.confirmed_fp != "none" else None
    _restore_exam(st.session_state[PROGRESS_KEY])


def _on_theirs(s: Sync, rep: dict, kind: str) -> None:
    """Another tab's record: met by this tab's write ("conflict"), or heard of while this tab was
    open ("changed", the storage event). Merged with this tab's record (the ancestor is what this
    tab wrote last, or else the last record it knew); a "changed" record that already holds all of
    this tab's is taken as it is (nothing written back: no tab answers another's write with one of
    its own). An unreadable one is moved aside and this tab's record written again."""
    own = rep.get("own_seq")
    ancestor = s.sent.get(own) if isinstance(own, int) else None
    if ancestor is None:
        ancestor = s.confirmed or new_progress()
    text: str | None = None
    try:
        text = _read_text(rep)
        theirs = new_progress() if text is None else with_zone(parse_progress_text(text), clock.zone_or_local())
    except ProgressError as exc:
        if isinstance(exc, _BrokenPack) and not s.plain:
            s.plain, s.written = True, None   # the write meets the other record again, reported plainly
            return
        mine = with_session_exam()
        _unusable(s, text or "", exc, _oversize(rep), kept=len(mine["attempts"]))
        # after the move the browser holds nothing: this tab's whole record is written (expect "none")
        s.confirmed, s.confirmed_fp, s.sent, s.written = new_progress(), "none", {}, None
        return
    s.confirmed, s.confirmed_fp, s.sent, s.base = theirs, wire.fingerprint(text), {}, text
    merged = merge(ancestor, with_session_exam(), theirs)
    st.session_state[PROGRESS_KEY] = merged
    s.written = theirs if kind == "changed" and merged == theirs else None   # None: write the merged record
    _follow_exam(merged)


def _on_retry() -> None:
    """on_retry_change of a card's saving marker (ui/storage_saved.js): its answer is still not
    stored after a few seconds. The write is queued anew, whole (the command that carried it may
    have been lost, and a report lost with it): the marker waits for any later write."""
    s = _sync_state()
    if s.browser and s.loaded and s.ok:
        s.written, s.base = None, None


def with_session_exam() -> Record:
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


def _queue_write(s: Sync) -> None:
    """A write of the session's progress if it changed since the last one queued."""
    progress = with_session_exam()
    if not (s.loaded and s.ok and s.browser):
        return
    if progress is s.written or progress == s.written:
        return
    try:
        text = dumps(progress)
    except ProgressError:
        return  # (cannot happen: the practice functions keep records valid) never write a bad one
    if len(text.encode("utf-8")) > MAX_BYTES:
        return
    s.written = progress
    _queue(s, {"op": "write", "text": text, "expect": s.confirmed_fp})
    s.sent[s.seq] = progress
    for old in sorted(s.sent)[:-MAX_SENT]:
        del s.sent[old]


def _command(s: Sync, watch: bool = False) -> dict[str, Any]:
    """The command for the next mount of a bridge instance. A write's text (the whole record, up
    to 1 MB) goes out once, in the first command that holds the write, and as a patch of the
    text the browser holds when there is one (wire.patch: an answer changes a few hundred
    bytes); later commands name the write by its seq only, since every later full-page run mounts
    the bridge again. A browser that has not run that write (its command never arrived) or holds
    another text than the patch is for asks for the whole text (report "resend").
    ``watch``: the main instance (ui.page), which listens for other tabs' writes; ``persist``
    asks the browser to keep this site's data (once the record holds an answer)."""
    ops: list[Op] = []
    for op in s.ops:
        if op["op"] == "write":
            text = op["text"]
            op = {k: v for k, v in op.items() if k != "text"}   # type: ignore[assignment]
            if op["seq"] not in s.text_out:
                hunks = wire.patch(s.base, text)
                if hunks is None:
                    op["text"] = text
                else:
                    op["patch"] = {"base": wire.fingerprint(s.base), "fp": wire.fingerprint(text),
                                   "hunks": hunks}
                s.text_out.add(op["seq"])
                s.base = text
        ops.append(op)
    s.text_out &= {op["seq"] for op in ops}   # (a superseded write is never asked for again)
    # "run" makes every command new, so the bridge's JS runs on every run. The browser shows only a
    # run's last command: when quick clicks interrupt the run whose command held the text, the
    # browser asks for it again ("resend"), and the run that sends it may be interrupted too. The next
    # command then names the write exactly as one the JS already ran, the frontend would not call
    # the JS for it, and the write would stay unsaved until the learner's next change.
    s.runs += 1
    cmd: dict[str, Any] = {"nonce": s.nonce, "read": not s.loaded, "plain": s.plain, "ops": ops, "run": s.runs}
    if watch:
        cmd["watch"] = True
        cmd["persist"] = s.loaded and s.ok and bool(get_progress()["attempts"])
    return cmd


def _text_pending(s: Sync) -> bool:
    """A write in the command whose text has not gone out (yet, or again after a "resend")."""
    return any(op["op"] == "write" and op["seq"] not in s.text_out for op in s.ops)


@st.fragment(run_every=5)
def _waiting() -> None:
    """While the browser's record has not arrived: after two ticks (≈ 10 s) give up waiting and
    go on with a record for this tab only (a browser whose components never answer)."""
    s = _sync_state()
    s.ticks += 1
    if s.ticks > 2 and not s.loaded:
        s.loaded, s.ok, s.failure = True, False, "silent"
        st.rerun(scope="app")


def sync() -> bool:
    """Load (once) and save the progress; mount the bridge. False while the stored record is
    still on its way (the caller then draws only a short loading line and stops)."""
    init()
    s = _sync_state()
    _queue_write(s)
    if s.browser:
        storage.mount(_command(s, watch=True), _on_report)
    if not s.loaded:
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
    before = s.seq
    _queue_write(s)
    if s.browser and (s.seq != before or _text_pending(s)):
        storage.mount(_command(s), functools.partial(_on_report, key), key=key)


def last_write() -> tuple[str, int] | None:
    """(session nonce, seq) of the newest write queued for the browser, or None when nothing is
    saved there (no browser, storage refused, not loaded yet): what a verdict waits for
    (ui.storage.saved_marker)."""
    s = _sync_state()
    if not (s.browser and s.ok and s.loaded):
        return None
    seqs = [op["seq"] for op in s.ops if op["op"] == "write"]
    return (s.nonce, max(seqs)) if seqs else None


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
    if not s.browser:
        return CLEARED            # (no browser behind the session: the record is the session's)
    if not s.loaded or s.failure in ("unavailable", "silent"):
        return NOT_CLEARED
    if s.failure == "aside":      # the unreadable record stayed where it was: this removes it
        s.problem = ""
    _queue(s, {"op": "clear"})
    s.ok, s.failure, s.confirmed, s.confirmed_fp, s.sent, s.written = True, "", new_progress(), "none", {}, None
    return CLEARED


def drop_aside() -> None:
    """Remove the record kept aside (a callback on the home page)."""
    s = _sync_state()
    if s.browser and s.loaded:
        _queue(s, {"op": "drop_aside"})
    s.problem = ""


def mark_backup() -> None:
    """The learner saved a backup file (on_click of the download button): the browser keeps when,
    and how many answers it held (practice.store.backup_due reminds from it)."""
    s = _sync_state()
    now, answers = clock.now(), len(get_progress()["attempts"])
    s.backup = (now, answers)
    if s.browser and s.loaded and s.ok:
        _queue(s, {"op": "backup", "text": backup_text(now, answers)})


def set_settings(**values: object) -> None:
    """Change settings (exam_date, retention) of the progress."""
    progress = get_progress()
    for name, value in values.items():
        progress = set_setting(progress, name, value)
    set_progress(progress)


def record_answer(question: Question, choice: int, source: str) -> bool:
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


def has_work(progress: Record) -> bool:
    """Whether a record holds anything an import could cost: answers, exams, review cards, a paper."""
    return bool(progress["attempts"] or progress["exams"] or progress["review"] or progress["exam_in_progress"])


def join_file(data: Record) -> None:
    """Join ``data`` (a file's record, read by ui.backup's import) with this tab's record; the file's
    unfinished mock exam (if any) goes on here (a paper open in this tab gives way to it)."""
    mine = with_session_exam()
    if has_work(mine):
        set_progress(join(mine, data))
    else:                  # nothing to join with: the file as it is (its order kept), with this tab's visits
        set_progress({**data, "visited": {**data["visited"], **mine["visited"]}})
    if data["exam_in_progress"] is not None:
        st.session_state[EXAM_KEY] = copy.deepcopy(data["exam_in_progress"])


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
