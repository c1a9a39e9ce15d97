"""Where progress is kept, said plainly, and the file that carries it elsewhere (issue 42 rows 5–6).

- :func:`section`: the review page's 「進捗の保存と読み込み」: what this browser keeps and may lose
  (persistent storage granted or not, Safari's seven-day rule, a plain-http address), the backup
  download (its time is noted in the browser: ui.state.mark_backup), and the import that JOINS a
  file with this browser's record after showing what it adds (ui.pending_import).
- :func:`home_notice`: on home, a fresh browser is told how to bring progress over (and can read a
  file right there: one tap, nothing to lose); on Safari, a reminder when the last backup file is a
  week or BACKUP_EVERY_ANSWERS answers old (practice.store.backup_due).

What Safari does is quoted from WebKit's own sources in README「保存について約束できること・できないこと」.
"""
from __future__ import annotations

from datetime import date
from typing import TypedDict

import streamlit as st

from practice.progress import join, join_counts, with_zone
from practice.store import BACKUP_EVERY_ANSWERS, BACKUP_EVERY_DAYS, ProgressError, export_bytes, parse_progress_bytes
from tutor import numfmt

from . import clock, state

SAFARI = ("Safari は、このサイトで一度も操作しないまま Safari を 7 日分使うと（Safari を使わなかった日は数えません）、"
          "このサイトがブラウザに保存したもの（この教材の進捗を含む）をすべて消します。"
          "消えても戻せるように、進捗をファイルに書き出して、ブラウザの外（「ファイル」アプリなど）に置いておいてください。"
          "新しい記録のときは、ホームでそのファイルを選ぶだけで戻ります。")
PERSIST = {
    "granted": "このブラウザは、容量が足りなくなっても、このサイトの記録を自動では消さないことを認めています（永続ストレージ）。",
    "denied": ("このブラウザは、このサイトの記録を残し続けること（永続ストレージ）を認めていません。"
               "容量が足りなくなったときなどに、ブラウザが記録を消すことがあります。"),
    "unsupported": "このブラウザは、記録を残し続けるよう頼む仕組み（永続ストレージ）に対応していません。",
}
UNLOCKED = ("このアドレスは https ではないため、ブラウザがタブ同士の順番待ち（Web Locks）を使わせません。"
            "2 つのタブで同時に解いても、上書きに気づいたタブが解答を書き直すので、タブを開いている限り解答は残ります。"
            "ただし、2 つのタブがほぼ同時に書き込んだ直後にタブを閉じると、その解答が失われることがあります。")


IMPORT_MSG_KEY = "progress__import_msg"   # (kind, text, file id) of the last import, for the page
IMPORT_PENDING_KEY = "progress__import_pending"   # a file read and shown, not joined yet (PendingImport)
IMPORT_FROM_KEY = "progress__import_from"   # the uploader (its key) the last import message is about
UPLOAD_KEY = "progress_upload"            # the review page's uploader
HOME_UPLOAD_KEY = "home_progress_upload"  # home's uploader (a fresh browser)
UPLOAD_LIMIT_MB = 1     # the uploader's limit (the server refuses more: .streamlit/config.toml maxUploadSize)


# ---------------------------------------------------------------------------
# the import: read a file, show what joining it adds, join it (ui.state.join_file)
# ---------------------------------------------------------------------------
def _say(kind: str, text: str, file_id: object, key: str) -> None:
    """The outcome of an import, for the page (kind, text, the file's id), and which uploader it is about."""
    st.session_state[IMPORT_MSG_KEY] = (kind, text, file_id)
    st.session_state[IMPORT_FROM_KEY] = key


def tell(kind: str, text: str) -> None:
    """A message for the review page's import/export section (e.g. what 「この端末の記録を消す」 did)."""
    _say(kind, text, None, UPLOAD_KEY)


def import_progress_bytes(raw: bytes, file_id: object = None, name: str = "", key: str = UPLOAD_KEY) -> bool:
    """Read a progress file (strictly: practice.store) and join it with this browser's record
    (practice.progress.join: every answer of both, once). A browser with no answers takes it at
    once; otherwise the file waits (IMPORT_PENDING_KEY) until the learner has seen what it adds
    (:func:`pending_import`) and pressed 合わせて読み込む (:func:`apply_import`). Never replaces.

    The outcome is kept for the page as (kind, message, file id); the message may quote the
    file, so the page shows it through :func:`plain` (never as HTML)."""
    which = f"「{name[:80]}」は" if name else ""
    notes: list[str] = []
    st.session_state.pop(IMPORT_PENDING_KEY, None)
    try:
        data = with_zone(parse_progress_bytes(raw, notes), clock.zone_or_local())
    except ProgressError as exc:
        _say("error", f"{which}読み込めませんでした。今の進捗はそのままです。理由：{exc}", file_id, key)
        return False
    left_out = f"ファイルのうち、この版では使えない部分を外しました：{' '.join(notes)}" if notes else ""
    if state.has_work(state.with_session_exam()):
        st.session_state[IMPORT_PENDING_KEY] = {"data": data, "name": name[:80], "file_id": file_id,
                                                "left_out": left_out, "key": key}
        st.session_state.pop(IMPORT_MSG_KEY, None)
        return True
    state.join_file(data)
    paper = "・途中の模擬試験 1 つ" if data["exam_in_progress"] is not None else ""
    _say("success", f"{'「' + name[:80] + '」から' if name else ''}進捗を読み込みました（解答 {len(data['attempts'])} 件・"
                    f"模擬試験 {len(data['exams'])} 回・復習予定 {len(data['review'])} 問{paper}）。{left_out}", file_id, key)
    return True


class PendingImport(TypedDict):
    """A file read and waiting for the learner's 合わせて読み込む: what joining it adds."""
    name: str
    attempts: int        # answers of the file this browser lacks
    exams: int
    review: int          # review cards added or changed
    dropped: int         # answers of this browser the attempt limit would let go
    mine: int            # answers this browser holds now (all kept)
    paper: bool          # the file's unfinished mock exam goes on here
    left_out: str


def pending_import(key: str = UPLOAD_KEY) -> PendingImport | None:
    """The file waiting to be joined (read by uploader ``key``), with what it adds; None when there
    is none (or the uploader holds another file now)."""
    pending = st.session_state.get(IMPORT_PENDING_KEY)
    if not pending or pending.get("key", UPLOAD_KEY) != key:
        return None
    if pending["file_id"] is not None and getattr(st.session_state.get(key), "file_id", None) != pending["file_id"]:
        return None
    mine = state.with_session_exam()
    counts = join_counts(mine, join(mine, pending["data"]))
    return {"name": pending["name"], "attempts": counts["attempts"], "exams": counts["exams"],
            "review": counts["review"], "dropped": counts["dropped"], "mine": len(mine["attempts"]),
            "paper": pending["data"]["exam_in_progress"] is not None, "left_out": pending["left_out"]}


def apply_import() -> None:
    """合わせて読み込む (a callback): join the waiting file with this browser's record."""
    pending = st.session_state.get(IMPORT_PENDING_KEY)
    summary = pending_import(pending.get("key", UPLOAD_KEY)) if pending else None
    if not pending or summary is None:
        return
    st.session_state.pop(IMPORT_PENDING_KEY, None)
    before = len(state.get_progress()["attempts"])
    state.join_file(pending["data"])
    name = f"「{pending['name']}」の" if pending["name"] else "ファイルの"
    paper = "・途中の模擬試験 1 つ" if summary["paper"] else ""
    _say("success", f"{name}進捗を読み込みました。このブラウザの進捗と合わせてあります（足した解答 {summary['attempts']} 件・"
                    f"模擬試験 {summary['exams']} 回・復習予定 {summary['review']} 問{paper}。"
                    f"このブラウザにあった解答 {before} 件はそのまま残っています）。{pending['left_out']}",
         pending["file_id"], pending.get("key", UPLOAD_KEY))


def cancel_import() -> None:
    """やめる (a callback): the waiting file is not joined; nothing changes."""
    pending = st.session_state.pop(IMPORT_PENDING_KEY, None)
    if pending:
        _say("info", "読み込みをやめました。今の進捗はそのままです。", pending["file_id"], pending.get("key", UPLOAD_KEY))


def import_uploaded(key: str = UPLOAD_KEY) -> None:
    """on_change callback of a progress file uploader (st.file_uploader(key=key), args=(key,))."""
    uploaded = st.session_state.get(key)
    if uploaded is None:  # the learner removed the file: the message about it goes too
        st.session_state.pop(IMPORT_MSG_KEY, None)
        st.session_state.pop(IMPORT_PENDING_KEY, None)
        return
    file_id = getattr(uploaded, "file_id", None)
    name = str(getattr(uploaded, "name", "") or "")
    try:
        raw = uploaded.getvalue()
    except Exception:  # noqa: BLE001 - any unreadable upload is a plain Japanese message
        _say("error", "ファイルを読めませんでした。今の進捗はそのままです。", file_id, key)
        return
    import_progress_bytes(raw, file_id, name, key)


def import_message(key: str = UPLOAD_KEY) -> tuple[str, str] | None:
    """(kind, text) of the last import by uploader ``key``, or None when it is about a file no longer
    in the uploader (a stale message never describes the file now shown there)."""
    msg = st.session_state.get(IMPORT_MSG_KEY)
    if not msg:
        return None
    kind, text, *rest = msg
    file_id = rest[0] if rest else None
    if st.session_state.get(IMPORT_FROM_KEY, UPLOAD_KEY) != key:
        return None
    if file_id is not None:
        current = st.session_state.get(key)
        if getattr(current, "file_id", None) != file_id:
            return None
    return kind, text


# ---------------------------------------------------------------------------
# what the learner sees
# ---------------------------------------------------------------------------
def _backup_line(status: state.StorageStatus, today: date) -> str:
    at = status["backup_at"]
    return ("このブラウザで保存した進捗ファイルは、まだありません。" if at is None
            else f"最後に進捗ファイルを保存した日：{numfmt.day(at.date(), today)}")


def download_button(progress: dict, today: date, key: str, label: str = "進捗を書き出す（JSON）") -> None:
    """The export: a file the learner keeps outside the browser (its time is noted: a reminder)."""
    try:
        data = export_bytes(progress)
    except ProgressError as exc:
        st.error(f"進捗を書き出せませんでした：{state.plain(str(exc))}")
        return
    st.download_button(label, data=data, key=key, file_name=f"attention-tutor-progress-{today.isoformat()}.json",
                       mime="application/json", icon=":material/download:", on_click=state.mark_backup)


def uploader(key: str, label: str) -> None:
    """A progress file to read (no type filter: every file up to the size limit reaches the app, so a
    wrong one gets a reason in Japanese); joined with this browser's record (ui.state)."""
    st.file_uploader(label, key=key, on_change=import_uploaded, args=(key,),
                     max_upload_size=UPLOAD_LIMIT_MB)


def _pending(key: str) -> None:
    """What the waiting file adds, and the two buttons."""
    pending = pending_import(key)
    if pending is None:
        return
    name = f"「{pending['name']}」" if pending["name"] else "このファイル"
    items = [f"解答 {pending['attempts']:,} 件（このブラウザにない分）", f"模擬試験の記録 {pending['exams']:,} 回",
             f"復習予定の追加・更新 {pending['review']:,} 問"]
    if pending["paper"]:
        items.append("途中の模擬試験 1 つ（このブラウザで途中の試験があれば、ファイルのものに替わります）")
    kept = f"このブラウザの解答 {pending['mine']:,} 件はすべて残ります。"
    if pending["dropped"]:
        kept = (f"解答の記録は最新の 2,000 件までのため、このブラウザの古い解答 {pending['dropped']:,} 件が外れます"
                "（残りはすべて残ります）。")
    with st.container(border=True, key="import_pending"):
        st.markdown(state.plain(f"{name}をこのブラウザの進捗と合わせると、次のものが足されます。") + "\n\n"
                    + "\n".join("- " + state.plain(item) for item in items))
        st.caption(kept + " 同じ解答（同じ時刻・同じ問題・同じ選択）は 1 回として数えます。" + pending["left_out"])
        row = st.container(horizontal=True)
        row.button("合わせて読み込む", key="import_apply", type="primary", on_click=apply_import)
        row.button("やめる", key="import_cancel", on_click=cancel_import)


def _message(key: str) -> None:
    msg = import_message(key)
    if msg is not None:
        kind, text = msg
        {"success": st.success, "error": st.error}.get(kind, st.info)(state.plain(text))


def section(progress: dict, today: date) -> None:
    """The review page's 「進捗の保存と読み込み」 (under its header)."""
    status = state.storage_status()
    st.markdown(
        "進捗（解答・訪問したページ・復習予定・模擬試験の記録・試験日）は、**このブラウザの中だけ**に自動で保存され、"
        "サーバーには残りません。ほかのブラウザや端末からは見えず、ブラウザの「サイトデータの削除」をすると消えます。"
        "別の端末で続けるときは、ファイルに書き出して、そちらで読み込んでください（読み込むと、そちらの進捗と合わさります）。"
    )
    if status["notice"]:
        st.caption(status["notice"])
    if status["safari"]:
        st.warning(SAFARI, icon=":material/warning:")
    if status["persist"] in PERSIST:
        st.caption(PERSIST[status["persist"]])
    if status["locks"] is False:
        st.caption(UNLOCKED)
    download_button(progress, today, key="progress_download")
    st.caption(_backup_line(status, today))
    uploader(UPLOAD_KEY, "進捗ファイルを読み込む（このブラウザの進捗と合わせます）")
    # the uploader's own button reads ファイルを選ぶ (ui/page.css); its size-limit error stays Streamlit's English
    st.caption(f"「ファイルを選ぶ」を押して、この教材で保存した JSON ファイル（{UPLOAD_LIMIT_MB} MB まで）を"
               "選んでください。このブラウザに解答があるときは、足されるものを見せてから合わせます（置き換えません）。"
               "読めないファイルには、その理由をこの下に表示します。"
               f"{UPLOAD_LIMIT_MB} MB を超えるファイルは、ファイル名の下に英語の赤い印"
               "（「File must be … or smaller」など）が付いて読み込まれません（今の進捗はそのままです）。")
    _pending(UPLOAD_KEY)
    _message(UPLOAD_KEY)



def home_notice(progress: dict, today: date) -> None:
    """On home: a fresh browser is told that progress lives in one browser and how to bring it over
    (a file read here joins at once: there is nothing to lose); Safari, when a backup file is due,
    says what Safari does and offers the download."""
    status = state.storage_status()
    if not status["loaded"]:
        return
    fresh = not (progress["attempts"] or progress["exams"])
    if fresh or st.session_state.get(HOME_UPLOAD_KEY) is not None:   # (and after its file was read)
        with st.container(border=True, key="home_bring_over"):
            st.markdown("進捗は、このブラウザの中だけに保存されます。ほかの端末やブラウザで学んだことがあれば、"
                        "そちらの「復習と進捗」で進捗をファイルに書き出し、ここで読み込むと続きから始められます。"
                        + (" Safari で記録が消えたときも、保存しておいたファイルを選ぶだけで戻ります。"
                           if status["safari"] else ""))
            uploader(HOME_UPLOAD_KEY, "進捗ファイルを読み込む")
            _pending(HOME_UPLOAD_KEY)    # (answers arrived from another tab meanwhile: shown before joining)
            _message(HOME_UPLOAD_KEY)
    elif status["safari"] and status["backup_due"]:
        with st.container(border=True, key="home_backup_due"):
            st.markdown(SAFARI)
            st.caption(_backup_line(status, today) + f"（{BACKUP_EVERY_DAYS} 日か {BACKUP_EVERY_ANSWERS} 問ごとの保存をおすすめします）")
            download_button(progress, today, key="home_progress_download")
