"""What a learner types into a page: the matrix editor (cells as text, checked, the last valid matrix kept),
the number field that says in Japanese which number it uses, and the epoch that renews every editor
when a section comes back on screen (ui.sections)."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from .memo import Memo
from .state import plain
from .validate import CellError, format_number, parse_matrix
from .widgets import CORNER, unique_labels

_EDITOR_FRAMES = Memo(maxsize=512)  # a few cells each; st.data_editor copies its input before applying edits


# ---------------------------------------------------------------------------
# matrix editor
# ---------------------------------------------------------------------------
def _keys(key: str) -> tuple[str, str, str, str]:
    return f"{key}__raw", f"{key}__ver", f"{key}__valid", f"{key}__base"


def _to_text_rows(matrix) -> list[list[str]]:
    return [[format_number(float(v), 6).rstrip("0").rstrip(".") or "0" for v in row]
            for row in np.asarray(matrix, dtype=np.float64)]


# Each value column of the matrix editor is this wide: sized by their content (a header, its pencil
# icon and padding) four columns and the row labels were 374 px, and a 390 px phone leaves 358 px;
# the last column was cut. 72 px holds a header like 次元1 and a number like -0.25.
EDITOR_COLUMN_PX = 72
EDITOR_CHAR_PX = 14        # a full-width character of a header (14 px type) …
EDITOR_HEADER_PAD_PX = 34  # … plus the column's pencil icon, its gap and the cell's padding


def editor_column_px(header: str) -> int:
    """A column wide enough to show its whole header (「食べ物」, never 「食べ」), and never
    narrower than EDITOR_COLUMN_PX. A full-width character counts as one EDITOR_CHAR_PX, a
    half-width one as about half of it, a space as less."""
    units = sum(1.0 if ord(ch) > 0x2E7F else 0.25 if ch == " " else 0.55 for ch in header)
    return max(EDITOR_COLUMN_PX, round(units * EDITOR_CHAR_PX + EDITOR_HEADER_PAD_PX))


TEXTBOOK_RESET = "教科書の値に戻す"   # on ① ② ④, whose editors start from the worked example ① calls 教科書
EPOCH_K = "ui__editor_epoch"   # part of every editor's widget key: remount_editors() renews them all


def editor_widget_key(key: str, version: int, epoch: int) -> str:
    """The Streamlit widget key of matrix editor ``key``: its content version (set_matrix) and the
    remount epoch (remount_editors). Tests find the editors on screen with it."""
    return f"{key}__editor{version}_{epoch}"


def remount_editors() -> None:
    """Every matrix editor drawn from now on is a new widget whose base is the learner's current cells.
    Called when the editors come back on screen after a run that did not draw them (ui.sections: a
    page or section change), so that the grid shows exactly what the results use."""
    st.session_state[EPOCH_K] = st.session_state.get(EPOCH_K, 0) + 1


def set_matrix(key: str, matrix) -> None:
    """Replace an editor's content (the reset button; tests use it as a learner's edit)."""
    raw_k, ver_k, valid_k, _ = _keys(key)
    st.session_state[raw_k] = _to_text_rows(matrix) if not isinstance(matrix, list) else matrix
    st.session_state[ver_k] = st.session_state.get(ver_k, 0) + 1
    st.session_state.pop(valid_k, None)


def matrix_editor(key: str, default, row_labels: Sequence[str], col_labels: Sequence[str], *,
                  label: str | None = None, reset_label: str = "最初の値に戻す") -> np.ndarray:
    """An editable matrix. Returns the current matrix if every cell is valid; otherwise shows a
    Japanese error under the table and returns the LAST VALID matrix (the default at first).

    Cells are text so that anything typed reaches our validation (full-width digits and "−"
    are accepted). The content survives page switches: it lives in a plain session key and
    the editor is re-created from it whenever it was not on screen.
    """
    raw_k, ver_k, valid_k, base_k = _keys(key)
    rows, cols = unique_labels(row_labels), unique_labels(col_labels)
    default = np.asarray(default, dtype=np.float64)
    if raw_k not in st.session_state or np.shape(st.session_state[raw_k]) != default.shape:
        st.session_state[raw_k] = _to_text_rows(default)
        st.session_state[valid_k] = default.copy()
    version = st.session_state.setdefault(ver_k, 0)
    # a new widget whenever the editor comes back on screen (remount_editors): the browser's grid
    # starts again from its base cells and forgets the edits it showed, while Streamlit would keep
    # applying those edits to the returned frame — a grid showing the textbook values while every
    # result used the edit, and the next cell edit dropping the hidden one (issue 41 row 2)
    editor_key = editor_widget_key(key, version, st.session_state.get(EPOCH_K, 0))
    if editor_key not in st.session_state:  # first show, after a reset, or back on screen
        st.session_state[base_k] = [list(r) for r in st.session_state[raw_k]]

    if label:
        st.markdown(f"**{label}**")
    cells = st.session_state[base_k]
    # building this string frame on every rerun cost ~1 ms per editor (python -m bench)
    base = _EDITOR_FRAMES.get((cells, rows, cols),
                              lambda: pd.DataFrame(cells, index=pd.Index(rows, name=CORNER), columns=cols,
                                                   dtype="string"))
    edited = st.data_editor(
        base, key=editor_key, num_rows="fixed", width="content",
        column_config={c: st.column_config.TextColumn(c, max_chars=24, width=editor_column_px(c)) for c in cols},
    )
    st.session_state[raw_k] = [[None if pd.isna(v) else str(v) for v in r] for r in edited.to_numpy(dtype=object)]
    st.button(reset_label, key=f"{key}__reset", on_click=set_matrix, args=(key, default))
    try:
        value = parse_matrix(st.session_state[raw_k], rows, cols)
    except CellError as exc:
        # the message quotes what was typed: escaped, so "[x](url)" or "![x](url)" stays text
        st.error(f"{plain(exc)} いまは最後に正しかった値で計算しています。", icon=":material/warning:")
        return st.session_state.get(valid_k, default).copy()
    st.session_state[valid_k] = value
    return value.copy()


def matrix_value(key: str, default) -> np.ndarray:
    """What ``matrix_editor(key, default, …)`` returns, without drawing the editor: the learner's
    last valid matrix (kept in session state), or ``default`` before any edit. A section that shows
    what another section edits (手計算 after 試してみよう: ui.sections) reads it with this."""
    _, _, valid_k, _ = _keys(key)
    default = np.asarray(default, dtype=np.float64)
    value = st.session_state.get(valid_k)
    if value is None or np.shape(value) != default.shape:
        return default.copy()
    return np.array(value, dtype=np.float64)


def weight_values(prefix: str, defaults) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What ``weight_editors(prefix, defaults, …)`` returns, without drawing the editors."""
    wq, wk, wv = (matrix_value(f"{prefix}_{name}", d) for name, d in zip(("wq", "wk", "wv"), defaults))
    return wq, wk, wv


def weight_editors(prefix: str, defaults, row_labels: Sequence[str], col_labels: Sequence[str],
                   labels: Sequence[str] = ("$W_Q$", "$W_K$", "$W_V$"), *,
                   reset_label: str = "最初の値に戻す") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V side by side (editor keys <prefix>_wq, _wk, _wv); each as matrix_editor returns it."""
    out = []
    for column, name, default, label in zip(st.columns(3), ("wq", "wk", "wv"), defaults, labels):
        with column:
            out.append(matrix_editor(f"{prefix}_{name}", default, row_labels, col_labels, label=label,
                                     reset_label=reset_label))
    return out[0], out[1], out[2]


# ---------------------------------------------------------------------------
# number input with a Japanese range message
# ---------------------------------------------------------------------------
def _clamp_to_range(key: str, note_key: str, lo, hi) -> None:
    """on_change of ``number_input``: an out-of-range number becomes the nearest end of the range."""
    typed = st.session_state.get(key)
    if typed is None:
        return
    used = min(max(typed, lo), hi)
    if used != typed:
        st.session_state[key] = used
        st.session_state[note_key] = (typed, used)
    else:
        st.session_state.pop(note_key, None)


def _num(v) -> str:
    return f"{v:,}" if isinstance(v, int) or float(v).is_integer() and abs(v) < 1e15 else f"{v:,.6g}"


def number_input(label: str, *, min_value, max_value, value, step=1, key: str, **kwargs):
    """st.number_input whose range is enforced here rather than by Streamlit.

    With min_value / max_value on the widget, Streamlit shows an English error for a number out of
    range and quietly keeps using the previous value. Here the widget takes any number; one out of
    range is replaced by the nearest end of the range, and a Japanese note says which number is used.
    Returns the number in use (always within [min_value, max_value]).
    """
    note_key = f"{key}__range_note"
    shown = {} if key in st.session_state else {"value": value}  # a set key and a default would clash
    typed = st.number_input(label, step=step, key=key, on_change=_clamp_to_range,
                            args=(key, note_key, min_value, max_value), **shown, **kwargs)
    if typed is None:
        typed = value
    used = min(max(typed, min_value), max_value)
    if used != typed:  # e.g. set without the callback
        st.session_state[note_key] = (typed, used)
    note = st.session_state.get(note_key)
    if note is not None and note[1] == used:
        st.warning(f"「{plain(label)}」に使える数は {_num(min_value)}〜{_num(max_value)} です。"
                   f"入力された {_num(note[0])} の代わりに {_num(used)} を使っています。", icon=":material/info:")
    return used
