"""Where progress is kept, said plainly, and the file that carries it elsewhere (issue 42 rows 5–6).

- :func:`section`: the review page's 「進捗の保存と読み込み」: what this browser keeps and may lose
  (persistent storage granted or not, Safari's seven-day rule, a plain-http address), the backup
  download (its time is noted in the browser: ui.state.mark_backup), and the import that JOINS a
  file with this browser's record after showing what it adds (ui.state.pending_import).
- :func:`home_notice`: on home, a fresh browser is told how to bring progress over (and can read a
  file right there: one tap, nothing to lose); on Safari, a reminder when the last backup file is a
  week or BACKUP_EVERY_ANSWERS answers old (practice.store.backup_due).

What Safari does is quoted from WebKit's own sources in README「保存について約束できること・できないこと」.
"""
from __future__ import annotations

from datetime import date

import streamlit as st

from practice.store import BACKUP_EVERY_ANSWERS, BACKUP_EVERY_DAYS, ProgressError, export_bytes
from tutor import numfmt

from . import state

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
    st.file_uploader(label, key=key, on_change=state.import_uploaded, args=(key,),
                     max_upload_size=state.UPLOAD_LIMIT_MB)


def _pending(key: str) -> None:
    """What the waiting file adds, and the two buttons."""
    pending = state.pending_import(key)
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
        row.button("合わせて読み込む", key="import_apply", type="primary", on_click=state.apply_import)
        row.button("やめる", key="import_cancel", on_click=state.cancel_import)


def _message(key: str) -> None:
    msg = state.import_message(key)
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
    uploader(state.UPLOAD_KEY, "進捗ファイルを読み込む（このブラウザの進捗と合わせます）")
    # the uploader's own button reads ファイルを選ぶ (ui/page.css); its size-limit error stays Streamlit's English
    st.caption(f"「ファイルを選ぶ」を押して、この教材で保存した JSON ファイル（{state.UPLOAD_LIMIT_MB} MB まで）を"
               "選んでください。このブラウザに解答があるときは、足されるものを見せてから合わせます（置き換えません）。"
               "読めないファイルには、その理由をこの下に表示します。"
               f"{state.UPLOAD_LIMIT_MB} MB を超えるファイルは、ファイル名の下に英語の赤い印"
               "（「File must be … or smaller」など）が付いて読み込まれません（今の進捗はそのままです）。")
    _pending(state.UPLOAD_KEY)
    _message(state.UPLOAD_KEY)


HOME_UPLOAD_KEY = "home_progress_upload"


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
