"""ui: the only non-page code that imports streamlit.

Every page starts with ``ui.page("<key>")``: page config, the progress loaded from (and saved to)
the learner's browser (ui.state.sync), our own sidebar (classic pages/ multipage mode, our own
links: docs/design.md, 「ページ：ファイル・ラベル・URL」), and the visit recorded for the dashboard.
"""
from __future__ import annotations

import gc
import urllib.parse

import streamlit as st

from practice.progress import record_visit

from . import clock, figures, handcalc, state, widgets
from .figures import side_by_side, small_heatmap
from .nav import LEARNING_KEYS, PAGE_BY_KEY, PAGES, available_pages, learning_minutes, next_page, sidebar
from .quiz import advanced_switch as quiz_advanced_switch, feedback, question_card, quiz_section
from . import sections as _sections
from .sections import sections
from .stepper import stepper, table_block
from .handcalc import rounding_toggle
from . import profile  # noqa: E402  (ui.profile.profile_section: あなたのつまずき)
from .inputs import (TEXTBOOK_RESET, matrix_editor, matrix_value, number_input, set_matrix, weight_editors,
                     weight_values)
from .widgets import (cached_chart, cached_table, compute, folded_topics, heatmap, heatmap_html, lazy_expander,
                      matrix_frame, show_matrix, show_table, unique_labels)

__all__ = [
    "page", "section", "next_link", "PAGES", "PAGE_BY_KEY", "LEARNING_KEYS", "available_pages",
    "next_page", "learning_minutes", "quiz_section", "question_card", "feedback", "quiz_advanced_switch", "compute", "cached_chart", "cached_table",
    "heatmap", "heatmap_html", "lazy_expander", "folded_topics", "matrix_editor", "matrix_frame", "number_input",
    "set_matrix", "TEXTBOOK_RESET", "show_matrix", "show_table", "unique_labels", "weight_editors", "matrix_value", "weight_values",
    "sections", "section_url", "section_query",
    "state", "clock", "handcalc", "rounding_toggle", "profile", "figures", "small_heatmap", "side_by_side", "stepper", "table_block",
]

def page(key: str) -> None:
    """The one shared call at the top of every page (and app.py)."""
    freeze_imports()   # the process's first page run: what is imported by now lives as long as the server
    info = PAGE_BY_KEY[key]
    st.set_page_config(page_title=f"{info.label} | アテンション・チューター",
                       page_icon=info.icon or ":material/school:", layout="centered",
                       initial_sidebar_state="auto")
    widgets.page_style()
    state.init()
    if key not in LEARNING_KEYS:
        _sections.leave()
    if MISTYPED_K not in st.session_state:
        st.session_state[MISTYPED_K] = key == "home" and _opened_at_unknown_path()
    if state.storage_status()["loaded"]:  # never into the empty record before the stored one arrived
        state.set_progress(record_visit(state.get_progress(), key))
    if not state.sync():  # the browser's record is on its way: a loading line, nothing else
        st.stop()
    status = state.storage_status()
    if status["notice"]:
        st.info(status["notice"], icon=":material/info:")
    if status["problem"]:
        st.warning(state.plain(status["problem"]), icon=":material/warning:")
    if status["salvaged"]:
        st.info("このブラウザの記録のうち、この版では使えない部分を外して続けます："
                + state.plain(status["salvaged"]), icon=":material/info:")
    sidebar(key)
    if key != "home":
        st.session_state[MISTYPED_K] = False   # the learner has moved on: the note is not shown again
        st.title(info.label)
    else:
        unknown_path_notice()


MISTYPED_K = "ui__mistyped_url"   # the session opened at a URL that names no page (set on its first run)


def _opened_at_unknown_path() -> bool:
    """Whether this browser tab asked for a URL that names no page (/qvk): Streamlit then runs
    app.py under its own English "Page not found" dialog. Read on the session's first run: the
    browser's address is back at / by the run after the stored progress arrives."""
    try:
        url = st.context.url
    except Exception:  # noqa: BLE001 - no browser context (AppTest, bare mode): nothing to say
        return False
    if not url:
        return False
    rest = urllib.parse.unquote(urllib.parse.urlsplit(url).path).strip("/")
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    if base and (rest == base or rest.startswith(base + "/")):
        rest = rest[len(base):].strip("/")
    return bool(rest)


def unknown_path_notice() -> None:
    """Under Streamlit's English dialog (classic multipage mode has no custom 404), the home page
    says the same in Japanese. The address itself is not quoted: whoever wrote the link chose it,
    and no sentence of theirs goes into the app's own warning box."""
    if st.session_state.get(MISTYPED_K):
        st.warning("開こうとしたアドレスのページはありません。代わりにホームを表示しています"
                   "（英語の「Page not found」の表示は閉じてかまいません）。学ぶページは左のメニュー"
                   "（スマートフォンでは左上の »）から選べます。", icon=":material/travel_explore:")


def section(name: str) -> None:
    """A heading of the page rhythm inside a section's tab (ui.sections): ui.section("aim") → ねらい.
    quizzes.misconceptions names these keys as where a misconception is taught."""
    _sections.heading(name)


def section_query(name: str) -> dict[str, str]:
    """``query_params`` of a link that opens a learning page at section ``name`` ("aim", "hand", …,
    "quiz"), whatever section was open there before."""
    return _sections.query(name)


def section_url(key: str, name: str) -> str:
    """The link that opens page ``key`` at section ``name`` ("hand" or a tab's own label)."""
    return _sections.url(PAGE_BY_KEY[key].url, name)


def next_link(key: str) -> None:
    """'次へ' link at the bottom of a learning page: the next page, opened at its lesson."""
    nxt = next_page(key)
    if nxt is not None:
        st.page_link(nxt.path, label=f"次へ：{nxt.label}", icon=":material/arrow_forward:",
                     query_params=_sections.query("aim"))


# What is loaded when a process's first page run reaches ui.page() — Streamlit, NumPy, pandas, Altair,
# the engine, the question generators and the page's own imports — lives as long as the server.
# Frozen, it is out of the garbage collector's sight: Python's own full collection, which comes every
# so many clicks, then scans only what the runs create (3 ms instead of ≈ 70 ms on a click that happens
# to trigger it). The counterpart of runner.postScriptGC = false in .streamlit/config.toml.
# Called from page(), not at import and not from app.py: in the classic pages/ mode a deep link
# (/qkv) on a fresh server runs the page script and never app.py, while every page (app.py too)
# calls ui.page() first; every rerun runs the page script again, so it acts once per process.
_FROZEN = False


def freeze_imports() -> bool:
    """gc.freeze() the first time a page run starts in this process; True if it froze now."""
    global _FROZEN
    if _FROZEN:
        return False
    _FROZEN = True
    gc.freeze()
    return True
