"""The bridge to the learner's browser storage (localStorage): fixed JavaScript, data only.

One ``st.components.v2`` component, mounted by ``ui.page()`` on every page. Python hands it a
small command object as ``data`` (never as code); its JavaScript (ui/storage.js) is this
repository's own fixed code and never evaluates or renders what it stores. It reports back with
``setTriggerValue("stored", …)``, which reruns the script (``on_stored_change``). A trigger, not
a state value: a state value rides along with every later rerun request of the session, so the
stored record read at the start (up to 1 MB) would travel to the server again with every click.

- ``read`` (once per server session, tagged with the session's nonce): the stored text, whether
  storage works at all, the size of a record kept aside, and the last backup's note (BACKUP_KEY).
  A report that carries the stored text (``read``, ``conflict``, ``changed``) sends a long one
  gzipped (``gz``: a phone's uplink is slow, and a record of weeks compresses ≈ 10×). A gzip that
  does not unpack (a script in the page, a broken CompressionStream) is a failed transport, not an
  unreadable record: Python asks once more with ``plain`` set, and the text comes uncompressed;
- ``write`` {seq, text or patch, expect}: compare-and-swap, under a Web Lock on the record's key
  (one tab at a time) where the browser has Web Locks (a secure context: https or localhost; a
  plain-http address has none, and the steps run unlocked). It writes only if the stored text is
  still the one Python last saw (hash ``expect``) or this tab's own last write; otherwise another
  tab wrote in between, and it reports ``conflict`` with the stored text (Python merges, writes
  again). Chromium keeps a copy of localStorage per tab, so a tab may still read a stale text now
  and then and write over another tab's answer (and without Web Locks two tabs' steps may
  interleave): the tab that lost its write hears of the other's at once (below) and the merge
  (practice.progress.merge) recovers it, since the record it meets does not hold its last write.
  The write travels once, as a patch of the text the browser holds when there is one
  (practice.wire.patch); later commands name it without its text (``ui.state._command``). A browser
  that has not run it, or holds another text than the patch is for, reports ``resend`` and the
  next run sends the whole text. Every command carries a new ``run`` number, so the JS is called
  on every run and asks again as long as it lacks a write (a run interrupted by the next click
  may never reach the browser);
- ``changed`` (the main instance only, ``watch``): another tab wrote the record (the "storage"
  event, settled for 250 ms, never for this tab's own writes): the stored text, for the merge, so an
  open tab's counts follow and a tab whose write was lost writes it again at once;
- ``aside`` {expect, or size for a text too long to send}: moves an unusable stored text to
  ASIDE_KEY before a fresh start, the ones kept before it one place down (ASIDE_KEYS: three side
  by side; the oldest gives way, and the report says so: ``gave_way``); the commands queued behind
  it (this tab's record, written again) run in the same turn, and then it reports ``asided``;
  ``clear``: removes the record (「この端末の記録を消す」); ``backup``: notes the backup file just
  saved (BACKUP_KEY);
- ``persist`` (the main instance, once the record holds an answer): asks navigator.storage.persist()
  (at most once a week: a browser may prompt) and reports what it answered; every report says
  whether this browser is Safari and has Web Locks.
- A stored text longer than any record (PACK_UP_TO) is never sent: the report carries its length
  (``oversize``), and the aside names it by that length.

A failure (storage disabled, quota) is reported as ``failed``; the app then keeps the progress
for this tab only.

An answer's verdict waits for its write (:func:`saved_marker`, ui/storage_saved.js): a tab closed
the moment the verdict shows has stored that answer. Not stored after 6 s, the verdict shows with
保存できていません and the marker asks for the write again (``retry``).

The write travels as a patch and the read as gzip because the benchmark showed both matter for a
record of weeks: docs/performance.md, "A learner after weeks: the size of the stored record".
"""
from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from practice import wire

STORE_KEY = "attention-tutor/progress"          # localStorage keys (ui/storage.js has the same)
ASIDE_KEY = "attention-tutor/progress-unreadable"
ASIDE_KEYS = (ASIDE_KEY, ASIDE_KEY + "/2", ASIDE_KEY + "/3")   # kept aside side by side, newest first
BACKUP_KEY = "attention-tutor/backup"           # the last backup file: {"at", "answers"} (practice.store)
COMPONENT_KEY = "progress_store"                # the mounted instance's session-state key
TAIL_KEY = "progress_store_tail"                # a second instance for ui.state.flush()
PACK_UP_TO = wire.PACK_UP_TO                     # (ui/storage.js has the same number)


_DOWNLOAD_HTML = """<div class="at-aside"><button type="button" class="at-dl">読めなかった記録をダウンロード</button></div>"""
_DOWNLOAD_CSS = """
.at-dl { font: inherit; padding: 0.35rem 0.8rem; border-radius: 0.5rem; cursor: pointer;
         border: 1px solid var(--st-border-color, #b0b0b0); background: var(--st-background-color, #fff);
         color: var(--st-text-color, #222); }
.at-dl:focus-visible { outline: 2px solid var(--st-primary-color, #1f5fa6); outline-offset: 2px; }
"""

_HERE = Path(__file__).parent


def _compact(js: str) -> str:
    """The component's source without its comments and indentation: Streamlit sends a component's
    JavaScript with every mount (the bridge on every page run, the marker with every answered
    card), and the comments are most of it (the bridge: ≈ 19 kB → 9 kB). Only whole-line comments
    and comments after two spaces go (no string or regular expression here holds "  //")."""
    lines = (re.sub(r"\s{2,}//.*$", "", line).strip() for line in js.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


_JS = _compact((_HERE / "storage.js").read_text(encoding="utf-8"))
_DOWNLOAD_JS = _compact((_HERE / "storage_download.js").read_text(encoding="utf-8"))
_SAVED_JS = _compact((_HERE / "storage_saved.js").read_text(encoding="utf-8"))
_SAVED_HTML = '<p class="at-save at-saving" role="status">保存しています…</p>'
RESULT_PREFIX, VERDICT_PREFIX = "at-result-", "at-verdict-"   # container keys the marker's CSS pairs

_store = st.components.v2.component("attention_tutor_store", js=_JS)
_download = st.components.v2.component("attention_tutor_aside_download", html=_DOWNLOAD_HTML,
                                       css=_DOWNLOAD_CSS, js=_DOWNLOAD_JS)
_saved = st.components.v2.component("attention_tutor_saved", html=_SAVED_HTML,
                                    css=(_HERE / "storage_saved.css").read_text(encoding="utf-8"),
                                    js=_SAVED_JS, isolate_styles=False)


def mount(data: dict, on_report, key: str = COMPONENT_KEY) -> None:
    """Mount the storage bridge (invisible) with this run's command object."""
    _store(key=key, data=data, on_stored_change=on_report, height=0)


def last_report(key: str = COMPONENT_KEY):
    """What the browser reported last (read before mounting: the callback's input)."""
    value = st.session_state.get(key)
    if value is None:
        return None
    try:
        return value.get("stored") if hasattr(value, "get") else getattr(value, "stored", None)
    except Exception:  # noqa: BLE001 - an unexpected shape is treated as no report
        return None


def saved_marker(nonce: str, seq: int, key: str) -> None:
    """保存しています… until the write ``seq`` of session ``nonce`` is in the browser's storage
    (then ✓ 保存しました, or that it could not be saved). Drawn first in a container keyed
    RESULT_PREFIX + …, it keeps the verdict beside it (keyed VERDICT_PREFIX + …) hidden till then;
    after 6 s it shows the verdict with 保存できていません and asks for the write again
    (ui.state._on_retry), until the write is stored."""
    from . import state   # (ui.state imports this module: the callback is looked up when drawn)
    _saved(key=key, data={"nonce": nonce, "seq": seq}, height="content", on_retry_change=state._on_retry)


def download_aside_button(slot: int = 0, label: str = "読めなかった記録をダウンロード") -> None:
    """A button that downloads the record kept aside in ASIDE_KEYS[slot], straight from the
    browser's storage."""
    _download(key=f"progress_aside_download_{slot}", data={"slot": slot, "label": label}, height="content")
