"""A learning page, one section at a time (phone first).

A learning page is a short table of contents::

    ui.sections("naive", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)])

Each section is drawn by its own function, under one of Streamlit's lazy tabs (``st.tabs`` with
``bind="query-params"``): only the open tab's function runs, so only its elements are sent to the
browser (a learning page sent 100–160 elements at once, and every element has a fixed cost in a
phone's browser: docs/performance.md). The quiz is always the last tab, one tap away; every other
section ends with a 「次へ：…」 button that opens the next one.

- **By link**: the open tab is the URL's ``?section=<label>`` (``/naive?section=手計算``;
  :func:`url`), so a section can be linked from the glossary, the misconception profile or a bookmark.
- **Kept, per page**: the open section of every page is remembered for the session (``OPEN_K``), so a
  learner who goes to the review page and comes back finds the section they left; a page never opens
  at the section another page had open (a page seen for the first time opens at ねらい・解説), and the
  learning path's links (「次へ：…」, home's next page) open a page at its lesson: :func:`query`.
- **Inputs**: a section's inputs live in session state, not in the section that happens to be drawn
  (ui.matrix_editor keeps its cells under plain keys, ``ui.matrix_value`` reads them without drawing
  the editor; Streamlit widgets take ``persist_state="session"``), so an edit in 試してみよう is what
  手計算 computes with when it is opened next.
"""
from __future__ import annotations

import urllib.parse
from typing import Callable, Sequence

import streamlit as st

from .nav import PAGE_BY_KEY
from .inputs import remount_editors
from .widgets import scroll_to

QUERY = "section"               # the URL's query parameter and the tabs' session-state key
OPEN_K = "ui__open_sections"    # {page key: the label of its open section}, for this session
SCROLL_K = "ui__section_scroll"  # set by 「次へ」: the next run scrolls back up to the tabs
DRAWN_K = "ui__sections_page"   # the page whose sections the last full run drew (arriving = another page)
SHOWN_K = "ui__section_shown"   # (page, section) the last run of the tabs drew; forgotten on other pages
QUIZ = "確認クイズ"
GLOSSARY = PAGE_BY_KEY["glossary"]
# a section key of the page rhythm → its tab. aim and explain share one tab; quizzes.misconceptions'
# SECTION_KEYS name where a misconception is taught, and :func:`label` turns one into its tab.
TABS = {"aim": "ねらい・解説", "explain": "ねらい・解説", "hand": "手計算", "visual": "可視化",
        "try": "試してみよう"}
HEADINGS = {"aim": "ねらい", "explain": "解説", "hand": "手計算", "visual": "可視化", "try": "試してみよう"}

Part = tuple[str, Callable[[], None]]


def label(name: str) -> str:
    """The tab label of a section key ("hand" → 手計算, "quiz" → 確認クイズ); any other name is its own label."""
    return QUIZ if name == "quiz" else TABS.get(name, name)


def query(name: str) -> dict[str, str]:
    """The query of a link that opens a learning page at one section, whatever section the learner had
    open there before: ``st.page_link(path, query_params=query("aim"))`` opens its lesson."""
    return {QUERY: label(name)}


def url(page_url: str, name: str) -> str:
    """A link that opens a page at one section: url("/naive", "hand") → /naive?section=%E6%89%8B…"""
    return f"{page_url}?{urllib.parse.urlencode({QUERY: label(name)})}"


def heading(name: str) -> None:
    """A heading inside a section ("aim" → ねらい): kept so that a long tab reads in parts."""
    st.subheader(HEADINGS.get(name, name), divider="gray")


def _go(target: str) -> None:
    """on_click of 「次へ」: open ``target`` (bound tabs are set through session state)."""
    st.session_state[QUERY] = target
    st.session_state[SCROLL_K] = True


def _restore(page: str, labels: list[str]) -> None:
    """Choose the open section on a page's full run, before the tabs exist. Every page binds its tabs
    to the one key ``section`` (the URL's parameter), so the key still holds the section of the page
    the learner came from: a learner who finished ⓪-2's quiz would open ① at its quiz, unread.

    - arriving from another page (or a new session), a link wins: the URL's ``?section=`` (a section
      link, the learning path, the glossary) or ``?q=`` (a question's link opens the quiz); without one,
      the section this page had open earlier in the session (``OPEN_K``), or its first (ねらい・解説);
    - a rerun of the same page keeps the section the tabs (and 「次へ」) set, whatever the URL still says."""
    arriving = st.session_state.get(DRAWN_K) != page
    st.session_state[DRAWN_K] = page
    if not arriving and st.session_state.get(QUERY) in labels:
        return
    linked = st.query_params.get(QUERY)
    if linked in labels:
        st.session_state[QUERY] = linked
    elif st.query_params.get("q"):          # a question's link (ui.quiz.question_link) opens the quiz
        st.session_state[QUERY] = QUIZ
    else:
        kept = st.session_state.get(OPEN_K, {}).get(page)
        st.session_state[QUERY] = kept if kept in labels else labels[0]


def sections(page: str, parts: Sequence[Part], *, quiz: Callable[[], None] | None = None,
             after_quiz: Callable[[], None] | None = None) -> None:
    """Draw the page's sections as tabs, only the open one; the quiz (``quiz``: ui.quiz_section's
    cards for ``page``) is the last tab, followed by ``after_quiz`` (the 次のページ link)."""
    from .quiz import quiz_cards  # ui.quiz imports ui.state; kept local like the sidebar's imports

    labels = [label(name) for name, _ in parts] + [QUIZ]
    if len(set(labels)) != len(labels):
        raise ValueError(f"two sections with one label: {labels}")
    draws = [draw for _, draw in parts] + [quiz or (lambda: quiz_cards(page))]
    _restore(page, labels)
    _tabs(page, labels, draws, after_quiz)


@st.fragment
def _tabs(page: str, labels: list[str], draws: list[Callable[[], None]],
          after_quiz: Callable[[], None] | None) -> None:
    """The tabs and the open section, as a fragment: a tap on a tab (or 「次へ」) reruns this part
    only — not ui.page()'s progress sync and sidebar above it."""
    tabs = st.tabs(labels, key=QUERY, bind="query-params")
    shown = next((labels[i] for i, tab in enumerate(tabs) if tab.open), labels[0])
    if st.session_state.get(SHOWN_K) != (page, shown):   # a section (re)appears: its editors start afresh
        remount_editors()
        st.session_state[SHOWN_K] = (page, shown)
    for i, tab in enumerate(tabs):
        if not tab.open:
            continue
        with tab:
            draws[i]()
            if i == 0 and GLOSSARY.exists:           # the words of the page, explained in one line each
                st.page_link(GLOSSARY.path, label="このページの用語を用語集で見る", query_params={"page": page},
                             icon=":material/menu_book:")
            if i + 1 < len(labels):
                st.button(f"次へ：{labels[i + 1]}", key=f"{QUERY}__next", on_click=_go, args=(labels[i + 1],),
                          icon=":material/arrow_forward:", type="primary" if i + 2 == len(labels) else "secondary")
            elif after_quiz is not None:
                after_quiz()
    st.session_state.setdefault(OPEN_K, {})[page] = shown
    if st.session_state.pop(SCROLL_K, False):   # in this run only: the new section opens at its top
        scroll_to(QUERY, key=f"{QUERY}_scroll")


def leave() -> None:
    """A page without sections runs (ui.page): the next learning page counts as arrived at, and its
    editors start afresh."""
    st.session_state.pop(DRAWN_K, None)
    st.session_state.pop(SHOWN_K, None)


__all__ = ["sections", "label", "url", "query", "leave", "heading", "QUERY", "QUIZ", "TABS", "OPEN_K"]
