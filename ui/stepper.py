"""A try-it slider answered in the browser (the lever of ③'s and ⑦-4's explorers, for tables).

The page computes, with the engine, what the part shows at *every* position of the slider (a
few small tables: ⑤'s blend at 21 values of t, ⑦-1's RoPE table at 16 offsets, …) and hands them
to one fixed ``st.components.v2`` component as data. The browser draws the slider, a native range
input, and shows the tables of its position: a step sends nothing to the server and redraws
nothing else, so it is as quick as the browser (Streamlit's own slider makes a round trip and a
fragment rerun for every step, 1.6–1.9× the floor of a one-slider app: docs/performance.md).

What the learner sees is built from text only (``textContent``, never markup), so a label from
anywhere cannot become HTML. The position is kept in the tab's sessionStorage under the part's
key, as ``persist_state="session"`` keeps a Streamlit widget's: it is still there after a page
switch or a reload, and gone when the tab is closed. The server never learns it (nothing on the
server depends on it).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import streamlit as st

from .widgets import table_cells

STORE_PREFIX = "attention-tutor/try/"        # sessionStorage key of a part's position (the JS's STORE)


_HERE = Path(__file__).parent
_stepper = st.components.v2.component("attention_tutor_stepper", css=(_HERE / "stepper.css").read_text(encoding="utf-8"),
                                      js=(_HERE / "stepper.js").read_text(encoding="utf-8"),
                                      isolate_styles=False)


def table_block(data, *, hide_index: bool | None = None, caption: str | None = None) -> dict:
    """One table of a panel (``data`` as ui.show_table takes it: widgets.table_cells), with an
    optional caption above it."""
    head, align, rows = table_cells(data, hide_index=hide_index)
    block = {"table": {"head": head, "align": align, "rows": rows}}
    if caption:
        block["caption"] = caption
    return block


def stepper(label: str, options: Sequence, panels: Sequence[Sequence[dict]], *, value, key: str,
            text: Callable[[object], str] = str) -> None:
    """A slider over ``options`` (shown as ``text(option)``), starting at ``value`` (or where the
    learner left it in this tab), that shows ``panels[i]`` (blocks made by table_block, or
    {"text": …}) at ``options[i]``; all in the browser. ``key`` names the part (no "__")."""
    options = list(options)
    if len(panels) != len(options) or not options:
        raise ValueError("one panel per option")
    _stepper(key=key, height="content",
             data={"key": key, "label": label, "options": [text(o) for o in options],
                   "value": options.index(value), "panels": [list(p) for p in panels]})


__all__ = ["stepper", "table_block", "STORE_PREFIX"]
