"""Shared Streamlit pieces: tables, heatmaps, cached charts, lazy expanders, the page-wide style and script,
guarded engine calls. (What a learner types — the matrix editor, number fields — is ui.inputs.)"""
from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from .memo import Memo
from .state import plain
from .validate import format_number


# ---------------------------------------------------------------------------
# labels and tables
# ---------------------------------------------------------------------------
def unique_labels(labels: Sequence[str]) -> list[str]:
    """Make repeated token labels distinct ("を", "を②") so that chart axes keep every row."""
    seen: dict[str, int] = {}
    out = []
    for label in map(str, labels):
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}({seen[label]})")
    return out


# The header of the row-label column (the table's top-left cell). Left empty, a screen reader announces
# the column of row labels with no name (axe-core: empty-table-header).
CORNER = "行"


def matrix_frame(matrix, row_labels=None, col_labels=None, digits: int = 3, corner: str = CORNER) -> pd.DataFrame:
    """A labelled DataFrame of formatted numbers (strings, so −∞ prints as −∞); ``corner`` names the
    row labels (the header of the top-left cell)."""
    m = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    rows = unique_labels(row_labels) if row_labels is not None else [str(i + 1) for i in range(m.shape[0])]
    cols = unique_labels(col_labels) if col_labels is not None else [str(j + 1) for j in range(m.shape[1])]
    return pd.DataFrame([[format_number(v, digits) for v in r] for r in m],
                        index=pd.Index(rows, name=corner or CORNER), columns=cols)


def show_matrix(matrix, row_labels=None, col_labels=None, *, digits: int = 3, caption: str | None = None,
                corner: str = CORNER) -> None:
    """A matrix as a static table; ``corner``: the header of the row labels (the top-left cell)."""
    if caption:
        st.caption(caption)
    cached_table(matrix_frame, np.asarray(matrix, dtype=np.float64),
                 None if row_labels is None else tuple(map(str, row_labels)),
                 None if col_labels is None else tuple(map(str, col_labels)), int(digits), corner=corner)


# ---------------------------------------------------------------------------
# page-wide style
# ---------------------------------------------------------------------------
# KaTeX hangs every sub-/superscript block 2 px past its own box (margin-right: -2px, a Safari
# workaround). A display formula ending in one (x², W_O) then overflowed its scroll box by 2 px: a
# sideways-scrolling region that a keyboard cannot reach (axe-core: scrollable-region-focusable).
# Streamlit fades a caption by drawing it at 60 % opacity, links and `code` in it too: a link came
# out at 3.0:1 on white, below WCAG AA's 4.5:1. At 85 % the caption still reads as secondary and its
# link is 5.2:1 (the theme's text colour: .streamlit/config.toml).
# A slider's value is written in the accent colour: #2E6F9E is 5.3:1 on white but 3.3:1 on the dark
# background, and no single accent passes both there and under white button text; the value takes
# the text colour of the theme instead.
# Read-only tables are Markdown tables (show_table): drawn at st.table's size, so a matrix keeps its
# compact look on a phone; one wider than the column scrolls inside its own box, never the page,
# and ui/page.js lets the keyboard reach that box (a focus ring shows where it is).

# viridis at ten even steps (matplotlib's samples), a cell's colour interpolated between them:
# readable in the light and the dark theme and for colour-blind readers. A −∞ cell (masked) is grey.
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58",
           "#b5de2b", "#fde725")
MASKED = "#9e9e9e"


# The page-wide style: ui/page.css, the heatmap key's colour ramp (VIRIDIS) and ui.sections' tabs
# (ui/sections.css: in reach while a section scrolls, one row on a phone).
PAGE_CSS = ("<style>" + Path(__file__).with_name("page.css").read_text(encoding="utf-8")
            + f".hm-ramp {{ background: linear-gradient(to right, {', '.join(VIRIDIS)}); }}\n"
            + Path(__file__).with_name("sections.css").read_text(encoding="utf-8") + "</style>")

# The page-wide script (ui/page.js): tables that scroll sideways reachable by the keyboard, the
# sidebar closed after a page is chosen in it on a phone, and Enter in a date field saving its date.
PAGE_JS = (Path(__file__).with_name("page.js")).read_text(encoding="utf-8")
_page_js = st.components.v2.component("attention_tutor_page", js=PAGE_JS)


def text_color() -> str:
    """The learner's theme's text colour (light or dark: st.context.theme), for the text a Vega
    chart draws as a mark (cached_chart → themed)."""
    dark = getattr(st.context.theme, "type", None) == "dark"
    return (st.get_option("theme.dark.textColor") or "#fafafa") if dark else (
        st.get_option("theme.light.textColor") or "#111111")


_scroll = st.components.v2.component("attention_tutor_scroll",
                                     js=(Path(__file__).with_name("scroll.js")).read_text(encoding="utf-8"))


def scroll_to(target: str, *, key: str) -> None:
    """Bring the container keyed ``target`` into view (ui/scroll.js), once: call it only in the run
    after the step that should show it (a component mounted again in a later run would scroll again).
    ``key``: this call's own component key (no "__")."""
    _scroll(key=key, data={"key": target}, height=0)


def sticky(name: str):
    """A container that stays in view at the top while the page scrolls (the mock exam's remaining
    time). Use as ``with ui.widgets.sticky("exam_clock"): …``."""
    return st.container(key=f"sticky_{name}")


def page_style() -> None:
    """The page-wide CSS (ui.page calls it on every run; a <style>-only st.html adds no element)
    and the page-wide script (PAGE_JS: tables that scroll reachable by the keyboard, the sidebar
    closed after a page is chosen on a phone, Enter saving a typed date)."""
    st.html(PAGE_CSS)
    _page_js(key="scroll_tables", height=0)


# ---------------------------------------------------------------------------
# heatmap
# ---------------------------------------------------------------------------
def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def viridis(f: float) -> str:
    """The viridis colour at ``f`` in [0, 1] (clipped), as #rrggbb."""
    x = min(max(float(f), 0.0), 1.0) * (len(VIRIDIS) - 1)
    i = min(int(x), len(VIRIDIS) - 2)
    a, b = _rgb(VIRIDIS[i]), _rgb(VIRIDIS[i + 1])
    return "#" + "".join(f"{round(p + (q - p) * (x - i)):02x}" for p, q in zip(a, b))


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of #rrggbb."""
    def lin(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(lin, _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink(background: str) -> str:
    """Black or white text, whichever contrasts more with ``background``: on any colour that is
    at least 4.58 : 1 (WCAG AA asks 4.5 : 1)."""
    lum = luminance(background)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


def colour_domain(m: np.ndarray) -> tuple[float, float]:
    """The values the colours span: the finite cells' min and max; a constant matrix (uniform
    weights) gets a range around its value, so that its cells still have a colour."""
    finite = m[np.isfinite(m)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi <= lo:
        lo, hi = (min(lo, 0.0), max(hi, 0.0)) if lo != 0 else (0.0, 1.0)
    return lo, hi


def heatmap_html(matrix, row_labels, col_labels, *, digits: int = 3,
                 x_title: str = "キー（見られる側）", y_title: str = "クエリ（見る側）",
                 title: str | None = None, small: bool = False,
                 domain: tuple[float, float] | None = None) -> str:
    """The heatmap as an HTML table: each cell coloured by its value (viridis over the finite
    cells' range, grey where the matrix is −∞) and its value written in it, in black or white,
    whichever reads better on that colour. Row and column labels are table headers (a screen
    reader names each cell by them), ``x_title`` spans the columns, ``y_title`` heads the row
    labels, and a key under the table maps the colours to values. ``small``: for heatmaps side
    by side in st.columns. ``domain``: the values the colours span (default: this matrix's own
    range; heatmaps compared side by side share one: ui.figures.side_by_side).

    A table, not a Vega chart: a page of heatmaps no longer loads Vega at all, and a new matrix
    (a cell edit, a slider step) is new text, not a new Vega view. Every label is escaped."""
    m = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    rows, cols = unique_labels(row_labels), unique_labels(col_labels)
    lo, hi = colour_domain(m) if domain is None else domain
    esc = html.escape
    out = [f'<figure class="hm{" hm-small" if small else ""}">']
    if title:
        out.append(f"<figcaption>{esc(title)}</figcaption>")
    out.append("<table><thead>")
    if x_title:
        out.append(f'<tr><td></td><th scope="colgroup" colspan="{len(cols)}">{esc(x_title)} →</th></tr>')
    out.append(f'<tr><th scope="col">{esc(y_title) + " ↓" if y_title else CORNER}</th>')
    out += [f'<th scope="col">{esc(c)}</th>' for c in cols]
    out.append("</tr></thead><tbody>")
    for i, r in enumerate(rows):
        out.append(f'<tr><th scope="row">{esc(r)}</th>')
        for j in range(len(cols)):
            v = m[i, j]
            bg = viridis((v - lo) / (hi - lo) if hi > lo else 0.5) if np.isfinite(v) else MASKED
            out.append(f'<td style="background:{bg};color:{ink(bg)}">{esc(format_number(v, digits))}</td>')
        out.append("</tr>")
    masked = "、灰色は −∞（隠した位置）" if (m == -np.inf).any() else ""
    out.append(f'</tbody></table><p class="hm-key">色：{esc(format_number(lo, digits))} '
               f'<span class="hm-ramp"></span> {esc(format_number(hi, digits))}{masked}</p></figure>')
    return "".join(out)


def heatmap(matrix, row_labels, col_labels, **kwargs) -> None:
    """Draw heatmap_html(matrix, row_labels, col_labels, **kwargs) (st.html: sanitised by the
    browser's DOMPurify, which keeps the cells' inline colours)."""
    st.html(heatmap_html(matrix, [str(r) for r in row_labels], [str(c) for c in col_labels], **kwargs))


def _title_lines(title: str, max_width: float = 22.0) -> str | list[str]:
    """A chart title cut into lines (a Vega title never wraps): after a closing bracket or at a
    space, so that no line is wider than ``max_width`` full-width characters (ASCII counts half)."""
    def width(text: str) -> float:
        return sum(0.55 if ord(ch) < 128 else 1.0 for ch in text)

    if width(title) <= max_width:
        return title
    lines, line = [], ""
    for piece in re.split(r"(?<=[）)])|(?<= )(?![\u3040-\u309f])", title):   # never before a particle
        if line and width(line + piece) > max_width:
            lines.append(line.strip())
            line = ""
        line += piece
    return [*lines, line.strip()] if line.strip() else lines


# Streamlit's own Altair → Vega-Lite conversion: the very spec st.altair_chart sends (the "none" theme,
# the data as Arrow datasets). A PRIVATE function, kept because no public one gives that spec: Altair's
# chart.to_dict() adds its default theme's 300 × 300 view and writes the data as JSON records.
# tests/test_upgrade_guards.py fails, naming what changed, if it moves or takes other arguments.
try:
    from streamlit.elements.vega_charts import _convert_altair_to_vega_lite_spec as _to_vega_lite
except ImportError:  # pragma: no cover - another Streamlit version: no caching, same picture (_public_spec)
    _to_vega_lite = None


def _public_spec(chart) -> dict:
    """Without the private conversion: Altair's own spec under the "none" theme, as Streamlit asks
    for (the same picture; the data written inline as JSON records instead of Arrow)."""
    import altair as alt

    with alt.theme.enable("none"):
        return chart.to_dict()


# Finished Vega-Lite specs: building an Altair chart and validating it against the Vega-Lite schema
# took ~25 ms per chart on every rerun (python -m bench). One dict per input, shared read-only:
# st.vega_lite_chart clones the spec before it moves the datasets out (Streamlit 1.67,
# _prepare_vega_lite_spec; tests/test_widgets.py checks that showing a chart leaves it intact).
_SPECS = Memo(maxsize=1024, max_bytes=32 << 20, weigh=lambda spec: 2048 + sum(
    len(d) if isinstance(d, bytes) else int(d.memory_usage(deep=True).sum()) if isinstance(d, pd.DataFrame) else 0
    for d in spec.get("datasets", {}).values()))


# ---------------------------------------------------------------------------
# expanders drawn only while open
# ---------------------------------------------------------------------------
LAZY_PREFIX = "open_"   # session-state key of a lazy expander: LAZY_PREFIX + its key (True = open)


def lazy_expander(label: str, draw: Callable[[], None], *, key: str, expanded: bool = False) -> None:
    """An st.expander whose content ``draw()`` is drawn only while it is open.

    Streamlit's state tracking (``on_change="rerun"``): a closed expander sends nothing, and
    opening it reruns this expander alone (it is its own st.fragment; inside another fragment it
    reruns with that fragment's latest numbers). The step-by-step working folded into expanders is
    most of a learning page — thousands of KaTeX nodes — and every first paint, slider step and
    answer paid for it while it sat unseen. No widget may live inside (a closed expander would drop
    its value)."""
    _lazy_fragment(label, draw, LAZY_PREFIX + key, expanded)


def folded_topics(heading: str, topics, *, key: str) -> None:
    """A heading and one lazy expander per topic ``(title, draw, name)``: the later topics of a long
    解説 cost nothing until tapped, so a page's first section stays short on a phone
    (docs/performance.md, "Phone"). Keys are ``<key>_<name>``."""
    st.subheader(heading)
    st.caption("見出しをタップすると説明が開きます（開いた分だけが読み込まれます）。")
    for title, draw, name in topics:
        lazy_expander(title, draw, key=f"{key}_{name}")


LAZY_KEPT_K = "ui__lazy_open"   # {lazy expander key: open?} kept while its section is not drawn


@st.fragment
def _lazy_fragment(label: str, draw: Callable[[], None], key: str, expanded: bool) -> None:
    # A step the learner opened stays open when they come back to its section (ui.sections draws
    # one section at a time, and Streamlit forgets the state of an expander that was not drawn).
    kept = st.session_state.setdefault(LAZY_KEPT_K, {})
    if key not in st.session_state and key in kept:
        st.session_state[key] = kept[key]
    box = st.expander(label, expanded=expanded, key=key, on_change="rerun")
    kept[key] = bool(box.open)
    if box.open:
        with box:
            draw()


def cached_chart(build: Callable, *args, width="content", **kwargs) -> None:
    """The chart ``build(*args, **kwargs)`` — an Altair chart or a Vega-Lite dict — with the
    finished Vega-Lite spec kept per input: a rerun with the same numbers skips building (and, for
    Altair, schema-validating) the chart."""
    def spec():
        chart = build(*args, **kwargs)
        return chart if isinstance(chart, dict) else _to_vega_lite(chart)

    if _to_vega_lite is None:
        chart = build(*args, **kwargs)
        chart = chart if isinstance(chart, dict) else _public_spec(chart)
    else:
        chart = _SPECS.get((_build_id(build), args, kwargs), spec)
    if chart.get("width") == "container":    # a chart drawn as wide as the column (ui.figures.lines_chart)
        width = "stretch"
    st.vega_lite_chart(themed(chart, text_color()), width=width)


def themed(spec: dict, colour: str) -> dict:
    """``spec`` whose text marks are drawn in ``colour`` unless they name their own (a label on a
    coloured cell does): Streamlit themes a chart's axes and titles, not its text marks, which
    stayed black on the dark theme's background. A shallow copy: the kept spec is shared."""
    config = spec.get("config", {})
    return {**spec, "config": {**config, "text": {"color": colour, **config.get("text", {})}}}


def _build_id(build: Callable) -> str:
    # the builder's name AND where its code lives: two pages may both define a `_chart` of their own
    code = getattr(getattr(build, "__wrapped__", build), "__code__", None)
    where = f"@{code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{getattr(build, '__module__', '')}.{getattr(build, '__qualname__', repr(build))}{where}"


_TABLES = Memo(maxsize=2048, max_bytes=16 << 20, weigh=len)  # Markdown text per input

# The column alignments of table_markdown: the row labels left, numbers right, other text as written.
# tests/apphelpers.py reads a table back by them (":--" first: the row labels).
LABELS_ALIGN, NUMBER_ALIGN, TEXT_ALIGN = ":--", "--:", "---"
_NUMBER = re.compile(r"[−+-]?(\d|∞)")       # starts like a number of tutor.numfmt: 0.665, −∞, 4.5×10⁻⁵
_SHAPE = re.compile(r"\d+(×\d+)+")           # a shape such as 3×4: sizes, not a quantity (left as text)


def _numeric(cell: str) -> bool:
    return bool(_NUMBER.match(cell)) and not _SHAPE.fullmatch(cell)


def table_cells(data, *, hide_index: bool | None = None) -> tuple[list[str], list[str], list[list[str]]]:
    """``data`` (a DataFrame or what pd.DataFrame accepts) as the header, the alignment of each
    column (LABELS_ALIGN for the row labels, NUMBER_ALIGN, TEXT_ALIGN) and the rows, all text.
    ``hide_index``: None hides a plain RangeIndex; shown row labels get a header (CORNER) if they
    have none."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    if hide_index is None:
        hide_index = isinstance(frame.index, pd.RangeIndex)
    columns = [[str(v) for v in frame.iloc[:, j]] for j in range(frame.shape[1])]
    head = [str(c) for c in frame.columns]
    align = [NUMBER_ALIGN if col and all(map(_numeric, col)) else TEXT_ALIGN for col in columns]
    if not hide_index:
        columns = [[str(v) for v in frame.index]] + columns
        head = [CORNER if frame.index.name in (None, "") else str(frame.index.name)] + head
        align = [LABELS_ALIGN] + align
    return head, align, [list(r) for r in zip(*columns)]


def table_markdown(data, *, hide_index: bool | None = None) -> str:
    """``data`` as a Markdown table (table_cells), every cell made inert (``plain``: a label may be
    the learner's text)."""
    head, align, rows = table_cells(data, hide_index=hide_index)

    def row(cells) -> str:
        return "| " + " | ".join(plain(c) or " " for c in cells) + " |"

    return "\n".join([row(head), "|" + "|".join(align) + "|"] + [row(r) for r in rows])


def cached_table(build: Callable[..., pd.DataFrame], *args, **kwargs) -> None:
    """Show the DataFrame ``build(*args)`` as a static table (``hide_index`` from kwargs), its
    Markdown kept per input: a rerun with the same numbers skips building the frame of formatted
    strings and writing it out."""
    hide_index = kwargs.pop("hide_index", None)
    text = _TABLES.get((_build_id(build), args, kwargs, hide_index),
                       lambda: table_markdown(build(*args, **kwargs), hide_index=hide_index))
    st.markdown(text)


def show_table(data, *, hide_index: bool | None = None) -> None:
    """A read-only table, drawn as a Markdown table: the app's tables are a few formatted cells to
    read and recompute. Not st.dataframe: its toolbar (search, download, full screen) has nothing
    to offer there, and on a touch screen it is always shown and covers the caption above the table.
    Not st.table: drawing a page anew (a page switch, a first visit), each st.table costs the
    browser ≈ 11 ms and a Markdown table ≈ 2.5 ms (docs/performance.md)."""
    st.markdown(table_markdown(data, hide_index=hide_index))


# ---------------------------------------------------------------------------
# engine calls that may refuse the input
# ---------------------------------------------------------------------------
def compute(key: str, fn: Callable, *args, **kwargs):
    """Call the engine; on ValueError show the Japanese message and return the last valid
    result for ``key`` (None if there never was one). Never lets a traceback reach the page."""
    last_k = f"{key}__last_result"
    try:
        result = fn(*args, **kwargs)
    except ValueError as exc:
        st.error(plain(exc), icon=":material/warning:")  # engine messages may quote learner text: inert Markdown
        if last_k in st.session_state:
            st.caption("直前の正しい入力での結果を表示しています。")
        return st.session_state.get(last_k)
    st.session_state[last_k] = result
    return result
