"""Helpers for AppTest-based page tests (shared by every page test)."""
from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

TIMEOUT = 30
ROOT = Path(__file__).resolve().parent.parent


def open_page(path: str, query: dict | None = None, session: dict | None = None) -> AppTest:
    """Start from app.py (the entrypoint) and switch to ``path`` ("pages/2_qkv.py")."""
    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for k, v in (session or {}).items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, at.exception
    if query:
        for k, v in query.items():
            at.query_params[k] = v
    at.switch_page(path).run()
    return at



def open_pages(paths) -> dict[str, AppTest]:
    """open_page for several pages (a module fixture's worth), each run without an exception."""
    ats = {path: open_page(path) for path in paths}
    for path, at in ats.items():
        assert not at.exception, (path, at.exception)
    return ats

def edit_matrix(at: AppTest, key: str, rows: list[list[str]]) -> AppTest:
    """What a learner's edit of a ui.matrix_editor produces, then a rerun."""
    at.session_state[f"{key}__raw"] = rows
    at.session_state[f"{key}__ver"] = at.session_state[f"{key}__ver"] + 1
    return at.run()


def page_text(at: AppTest) -> str:
    """Every markdown/caption/latex/alert/metric/dataframe text on the page, joined."""
    parts = []
    for kind in ("markdown", "caption", "latex", "success", "info", "warning", "error", "title",
                 "header", "subheader", "text", "metric", "code"):
        for el in at.get(kind):
            parts.append(str(getattr(el, "value", "")))
            if kind == "metric":
                parts.append(str(el.label))
    for df in at.dataframe:
        parts.append(df.value.to_string())
    for t in at.get("table"):   # to_string: str() of a wide frame elides cells, depending on pandas' options
        parts.append(t.value.to_string() if hasattr(t.value, "to_string") else str(t.value))
    return "\n".join(parts)


def chart_data(at: AppTest, index: int = 0) -> pd.DataFrame:
    """The data behind the index-th altair/vega-lite chart on the page."""
    proto = at.get("vega_lite_chart")[index].proto
    frames = [pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pandas() for ds in proto.datasets]
    assert frames, "chart has no dataset"
    return frames[0]


QUIZ_HEADER = "確認クイズ"


def lesson_elements(at: AppTest) -> list:
    """The page's main elements in display order, up to its quiz (the quiz is drawn at random and
    checked in the quiz tests); a labelled block (expander, tab) counts as an element too."""
    out: list = []

    def walk(node) -> bool:
        if isinstance(node, Block):
            if getattr(node, "label", None):
                out.append(node)
            children = node.children.values() if isinstance(node.children, dict) else node.children
            return all(walk(ch) for ch in children)
        if getattr(node, "type", "") == "header" and node.value == QUIZ_HEADER:
            return False
        out.append(node)
        return True

    walk(at.main)
    return out


def element_text(el) -> str:
    """What one element shows as text (a table as its formatted cells)."""
    if isinstance(el, Block):
        return str(el.label)
    if getattr(el, "type", "") in ("dataframe", "table"):
        value = el.value
        value = value if isinstance(value, pd.DataFrame) else getattr(value, "data", value)
        return value.to_string() if hasattr(value, "to_string") else str(value)
    parts = []
    for attr in ("label", "value", "body"):
        try:
            v = getattr(el, attr)
        except Exception:       # noqa: BLE001 — elements differ in what they carry
            continue
        if isinstance(v, str) and v and v not in parts:
            parts.append(v)
    return " ".join(parts)


def lesson_text(at: AppTest) -> str:
    """Everything the page shows above its quiz, in order."""
    return "\n".join(element_text(el) for el in lesson_elements(at))

