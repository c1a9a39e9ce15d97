"""Helpers for AppTest-based page tests (shared by every page test)."""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

from ui.sections import QUERY as SECTION_KEY, QUIZ, label as section_label
from ui.widgets import LABELS_ALIGN, LAZY_PREFIX

TIMEOUT = 30
ROOT = Path(__file__).resolve().parent.parent


def open_page(path: str, query: dict | None = None, session: dict | None = None, *,
              unfold: bool = True, section: str | None = None) -> AppTest:
    """Start from app.py (the entrypoint) and switch to ``path`` ("pages/2_qkv.py"). ``section``:
    then open that section of a learning page ("hand", "quiz" or a tab's label; ui.sections) as a
    tap on its tab would. ``unfold``: then open every expander that draws its content only while
    open (ui.lazy_expander), as a learner who opens every step would, so that a test reads the whole
    section."""
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
    if section is not None:
        return show_section(at, section, unfold=unfold)
    if unfold:
        unfold_all(at)
    return at


def show_section(at: AppTest, name: str, *, unfold: bool = True) -> AppTest:
    """Open section ``name`` of the page ("hand", "try", "quiz" or a tab's own label), as a tap on
    its tab does (one rerun; ui.sections draws only the open tab)."""
    at.session_state[SECTION_KEY] = QUIZ if name == "quiz" else section_label(name)
    at.run()
    assert not at.exception, at.exception
    return unfold_all(at) if unfold else at


def section_tabs(at: AppTest) -> list:
    """The page's section tabs (ui.sections: the tab container keyed ``section``), in order;
    [] on a page without sections. Tabs inside a section are not among them."""
    stack = [at.main]
    while stack:
        node = stack.pop()
        children = getattr(node, "children", None)
        if children is None:
            continue
        if getattr(node, "type", None) == "tab_container" and node.proto.id.endswith(f"-{SECTION_KEY}"):
            return list(children.values() if isinstance(children, dict) else children)
        stack.extend(children.values() if isinstance(children, dict) else children)
    return []


def sections_of(at: AppTest) -> list[str]:
    """The labels of the page's section tabs, in order (the last is 確認クイズ)."""
    labels = [t.label for t in section_tabs(at)]
    assert labels and labels[-1] == QUIZ, labels
    return labels


def each_section(at: AppTest, *, unfold: bool = True):
    """Open every section of the page in turn (yields its label, with ``at`` showing it): a test
    that reads the whole page reads it section by section, as a learner does."""
    labels = sections_of(at)
    for name in labels:
        show_section(at, name, unfold=unfold)
        yield name


def folded(at: AppTest) -> list[str]:
    """Keys of the page's lazy expanders (ui.lazy_expander) that are closed now."""
    return [k for k in at.session_state.keys() if k.startswith(LAZY_PREFIX) and not at.session_state[k]]


def expander(at: AppTest, key: str):
    """The lazy expander (ui.lazy_expander) named ``key`` ("open_naive_z") on the page."""
    (box,) = [e for e in at.expander if e.proto.id.endswith(f"-{key}")]
    return box


def unfold_all(at: AppTest) -> AppTest:
    """Open every closed lazy expander on the page (one rerun), as a learner's clicks would."""
    keys = folded(at)
    if keys:
        for k in keys:
            at.session_state[k] = True
        at.run()
    return at



def open_pages(paths) -> dict:
    """Several pages (a module fixture's worth), each run without an exception: a learning page
    read whole (WholePage: every section), any other page as its AppTest."""
    ats = {path: open_page(path) for path in paths}
    for path, at in ats.items():
        assert not at.exception, (path, at.exception)
    return {path: WholePage(at) if section_tabs(at) else at for path, at in ats.items()}

def editors_on_screen(at: AppTest) -> list[str]:
    """Keys of the ui.matrix_editor tables drawn in the last run (their current widget is in the state)."""
    from ui.inputs import EPOCH_K, editor_widget_key
    keys = set(at.session_state._state.filtered_state)
    epoch = at.session_state[EPOCH_K] if EPOCH_K in keys else 0
    return sorted(k[:-5] for k in keys if k.endswith("__raw")
                  and editor_widget_key(k[:-5], at.session_state[k[:-5] + "__ver"], epoch) in keys)


def edit_matrix(at: AppTest, key: str, rows: list[list[str]]) -> AppTest:
    """What a learner's edit of a ui.matrix_editor produces, then a rerun."""
    at.session_state[f"{key}__raw"] = rows
    at.session_state[f"{key}__ver"] = at.session_state[f"{key}__ver"] + 1
    return at.run()


_ESCAPED = re.compile(r"\\(.)")


def _cells(line: str) -> list[str]:
    """The cells of one Markdown table row written by ui.widgets.table_markdown ("| a | b |"),
    unescaped (ui.state.plain's backslashes and word joiners removed)."""
    inner = line.strip()[2:-2]
    return [_ESCAPED.sub(r"\1", c).replace("\u2060", "").strip() for c in inner.split(" | ")]


def table_frame(el) -> pd.DataFrame | None:
    """The DataFrame of formatted cells behind a read-only table (a Markdown table drawn by
    ui.show_table / ui.cached_table), or None if ``el`` is not one. Row labels, when shown, are
    the index (the first column is aligned LABELS_ALIGN), named by the table's corner."""
    if getattr(el, "type", "") != "markdown" or not str(el.value).startswith("| "):
        return None
    lines = str(el.value).split("\n")
    if len(lines) < 2 or not re.fullmatch(r"\|(:?-+:?\|)+", lines[1]):
        return None
    return _frame(_cells(lines[0]), [_cells(line) for line in lines[2:]], lines[1].startswith("|" + LABELS_ALIGN + "|"))


def _frame(head: list[str], rows: list[list[str]], labelled: bool) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=head)
    return frame.set_index(head[0]) if labelled else frame


@dataclass
class Stepper:
    """A slider answered in the browser (ui.stepper) as the browser gets it: its label, the
    options' texts, the one it starts at, and what it shows at each option (tables as frames,
    as table_frame reads them, and lines of text)."""
    key: str
    label: str
    options: list[str]
    value: int
    panels: list[list[pd.DataFrame | str]]

    def at(self, option: str) -> list[pd.DataFrame | str]:
        return self.panels[self.options.index(option)]

    def tables(self, option: str) -> list[pd.DataFrame]:
        return [b for b in self.at(option) if isinstance(b, pd.DataFrame)]


def _stepper(el) -> Stepper | None:
    proto = getattr(el, "proto", None)
    if getattr(proto, "component_name", "") != "attention_tutor_stepper":
        return None
    d = json.loads(proto.json)

    def blocks(panel):
        out = []
        for b in panel:
            out += [b[k] for k in ("caption",) if k in b]
            if "table" in b:
                t = b["table"]
                out.append(_frame(t["head"], t["rows"], t["align"][0] == LABELS_ALIGN))
            out += [b[k] for k in ("text",) if k in b]
        return out

    return Stepper(d["key"], d["label"], d["options"], d["value"], [blocks(p) for p in d["panels"]])


def steppers(at: AppTest) -> dict[str, Stepper]:
    """Every ui.stepper on the page, by its key."""
    return {s.key: s for s in map(_stepper, at.get("bidi_component")) if s is not None}


def tables(at: AppTest) -> list[pd.DataFrame]:
    """Every read-only table on the page, in order (see table_frame)."""
    return [f for f in (table_frame(el) for el in at.markdown) if f is not None]


def page_text(at: AppTest) -> str:
    """Every markdown/caption/latex/alert/metric/dataframe text on the page, joined."""
    parts = []
    for kind in ("markdown", "caption", "latex", "success", "info", "warning", "error", "title",
                 "header", "subheader", "text", "metric", "code"):
        for el in at.get(kind):
            frame = table_frame(el)
            # a table as its cells (to_string: str() of a wide frame elides cells, depending on pandas' options)
            parts.append(frame.to_string() if frame is not None else str(getattr(el, "value", "")))
            if kind == "metric":
                parts.append(str(el.label))
    for df in at.dataframe:
        parts.append(df.value.to_string())
    parts += [element_text(el) for el in at.get("bidi_component") if _stepper(el) is not None]
    return "\n".join(parts)


def chart_data(at: AppTest, index: int = 0) -> pd.DataFrame:
    """The data behind the index-th altair/vega-lite chart on the page."""
    proto = at.get("vega_lite_chart")[index].proto
    frames = [pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pandas() for ds in proto.datasets]
    assert frames, "chart has no dataset"
    return frames[0]


def charts_with(at: AppTest, column: str) -> list[pd.DataFrame]:
    """The data of every chart on the page that has ``column``."""
    return [df for df in (chart_data(at, i) for i in range(len(at.get("vega_lite_chart")))) if column in df.columns]


def chart_series(at: AppTest) -> list[list[str]]:
    """The series names of every line chart (ui.figures.lines_chart) on the open section."""
    out = []
    for i in range(len(at.get("vega_lite_chart"))):
        df = chart_data(at, i)
        if "系列" in df.columns:
            out.append(sorted(set(df["系列"])))
    return out


QUIZ_HEADER = "確認クイズ"


def lesson_elements(at: AppTest) -> list:
    """The page's main elements in display order, up to its quiz (the quiz is drawn at random and
    checked in the quiz tests); a labelled block (expander, tab) counts as an element too."""
    out: list = []

    if isinstance(at, WholePage):
        return [el for tree in at.lesson_trees for el in _lesson_walk(tree.main)]
    return _lesson_walk(at.main)


def _lesson_walk(main) -> list:
    out: list = []

    def walk(node) -> bool:
        if isinstance(node, Block):
            if getattr(node, "label", None) == QUIZ:      # ui.sections' quiz tab
                return False
            if getattr(node, "label", None):
                out.append(node)
            children = node.children.values() if isinstance(node.children, dict) else node.children
            return all(walk(ch) for ch in children)
        if getattr(node, "type", "") == "header" and node.value == QUIZ_HEADER:
            return False
        out.append(node)
        return True

    walk(main)
    return out


def element_text(el) -> str:
    """What one element shows as text (a table as its formatted cells)."""
    if isinstance(el, Block):
        return str(el.label)
    frame = table_frame(el)
    if frame is not None:
        return frame.to_string()
    body = getattr(getattr(el, "proto", None), "body", None)
    if isinstance(body, str) and body.startswith('<figure class="hm'):   # a heatmap: its words and numbers
        h = parse_heatmap(body)
        return "\n".join([h.title, h.x_title, " ".join([h.y_title, *h.cols]),
                          *(" ".join([r, *t]) for r, t in zip(h.rows, h.texts)), h.key])
    stepper = _stepper(el)
    if stepper is not None:        # what it shows before the learner moves it
        shown = stepper.panels[stepper.value]
        return "\n".join([f"{stepper.label} {stepper.options[stepper.value]}",
                          *(b.to_string() if isinstance(b, pd.DataFrame) else b for b in shown)])
    if getattr(el, "type", "") == "dataframe":
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



# --- shared by several page-test files -------------------------------------------------------
E_NOTATION = re.compile(r"\d(?:\.\d+)?e[-+]?\d")
CELL_ERRORS = ("数値として読めません", "が空です", "は使えません", "大きすぎます")


def no_exception(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def rows_of(matrix, changes=None):
    """Editor rows (text) of ``matrix`` with {(i, j): "text"} replaced."""
    rows = [[f"{float(v):g}" for v in r] for r in np.asarray(matrix)]
    for (i, j), text in (changes or {}).items():
        rows[i][j] = text
    return rows


def flat_tex(text):
    """LaTeX with the line breaking of ui.handcalc.fit removed (aligned/gathered, &, \\\\, \\quad)."""
    for token in (r"\begin{aligned}", r"\end{aligned}", r"\begin{gathered}", r"\end{gathered}", r"\quad", "&"):
        text = text.replace(token, " ")
    text = text.replace("\\\\", " ")
    return re.sub(r"\s+", " ", text)


def metric(at, label):
    """The value of the metric labelled exactly ``label``."""
    return next(m.value for m in at.metric if m.label == label)


def metric_part(at, label_part: str) -> str:
    """The value of the first metric whose label contains ``label_part``."""
    hits = [m.value for m in at.metric if label_part in m.label]
    assert hits, f"metric {label_part!r} not found in {[m.label for m in at.metric]}"
    return hits[0]


@dataclass
class Heatmap:
    """A heatmap as the learner's browser gets it (ui.widgets.heatmap_html, parsed back)."""
    title: str = ""
    x_title: str = ""
    y_title: str = ""
    cols: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    texts: list[list[str]] = field(default_factory=list)       # what each cell says
    colours: list[list[str]] = field(default_factory=list)     # its background
    inks: list[list[str]] = field(default_factory=list)        # its text colour
    key: str = ""                                               # the line mapping colours to values


class _HeatmapParser(HTMLParser):
    """heatmap_html's parts: the caption, the header rows (x_title; y_title and the column labels),
    one row per matrix row (its label, then the cells with their inline colours), the key."""

    def __init__(self):
        super().__init__()
        self.h, self.open, self.text, self.cells = Heatmap(), None, "", []

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.cells = []
        if tag in ("figcaption", "th", "td", "p"):
            self.open, self.text = (tag, dict(attrs)), ""

    def handle_data(self, data):
        self.text += data

    def handle_endtag(self, tag):
        h = self.h
        if self.open is not None and tag == self.open[0]:
            (name, attrs), text, self.open = self.open, self.text.strip(), None
            if name == "figcaption":
                h.title = text
            elif name == "p":
                h.key = text
            else:
                self.cells.append((attrs, text))
        elif tag == "tr":
            scopes = [a.get("scope") for a, _ in self.cells]
            if "colgroup" in scopes:
                h.x_title = self.cells[scopes.index("colgroup")][1].removesuffix(" →")
            elif scopes and all(sc == "col" for sc in scopes):
                h.y_title, h.cols = self.cells[0][1].removesuffix(" ↓"), [t for _, t in self.cells[1:]]
            elif self.cells:
                styles = [dict(p.split(":") for p in a["style"].split(";")) for a, _ in self.cells[1:]]
                h.rows.append(self.cells[0][1])
                h.texts.append([t for _, t in self.cells[1:]])
                h.colours.append([css["background"] for css in styles])
                h.inks.append([css["color"] for css in styles])


def parse_heatmap(text: str) -> Heatmap:
    parser = _HeatmapParser()
    parser.feed(text)
    return parser.h


def heatmaps(at: AppTest) -> list[Heatmap]:
    """Every heatmap on the page, in order."""
    return [parse_heatmap(el.proto.body) for el in at.get("html") if el.proto.body.startswith('<figure class="hm')]


def heatmap_numbers(at, index: int) -> np.ndarray:
    """The numbers the index-th heatmap writes in its cells (−∞ as -inf)."""
    return np.array([[float(t.replace("−", "-").replace("∞", "inf")) for t in row]
                     for row in heatmaps(at)[index].texts])


def assert_heatmap_is(at, index, weights, rows, cols, digits: int = 3, domain=None):
    """The index-th heatmap shows ``weights``: each cell's value written as the app rounds it and
    its colour where the exact value lies between the matrix's smallest and largest (or within
    ``domain``, the range heatmaps compared side by side share: ui.figures.side_by_side)."""
    from ui.validate import format_number
    from ui.widgets import MASKED, colour_domain, viridis
    h = heatmaps(at)[index]
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    assert (h.rows, h.cols) == (list(rows), list(cols))
    assert h.texts == [[format_number(v, digits) for v in r] for r in w]
    lo, hi = colour_domain(w) if domain is None else domain
    assert h.colours == [[viridis((v - lo) / (hi - lo)) if np.isfinite(v) else MASKED for v in r] for r in w]


def assert_cell_error(at):
    errors = [e.value for e in at.error]
    assert errors and any(any(msg in e for msg in CELL_ERRORS) for e in errors), errors
    assert any("最後に正しかった値" in e for e in errors), errors
    assert not at.exception


def check_quiz(at, topic: str) -> None:
    """The page ends with 3 questions of its own topic (calculation and knowledge mixed)."""
    import quizzes
    if isinstance(at, WholePage):
        at = at.at                                   # left on the quiz section
    if f"quiz_{topic}__ids" not in at.session_state:
        show_section(at, "quiz")
    ids = at.session_state[f"quiz_{topic}__ids"]
    assert len(ids) == 3 and all(quizzes.from_id(i).topic == topic for i in ids)
    assert len([r for r in at.radio if r.key.startswith(f"quiz_{topic}_")]) == 3


def frames_after(at, caption: str) -> list[pd.DataFrame]:
    """Every table shown right after a caption containing ``caption``."""
    els, found = lesson_elements(at), []
    for i, el in enumerate(els):
        if getattr(el, "type", "") == "caption" and caption in el.value:
            nxt = next((f for f in map(table_frame, els[i + 1:]) if f is not None), None)
            if nxt is not None:
                found.append(nxt)
    return found


def frame_after(at, caption: str) -> pd.DataFrame:
    """The table shown right after the caption that contains ``caption``."""
    els = lesson_elements(at)
    for i, el in enumerate(els):
        if getattr(el, "type", "") == "caption" and caption in el.value:
            for nxt in map(table_frame, els[i + 1:]):
                if nxt is not None:
                    return nxt
    raise AssertionError(f"no table after caption {caption!r}")


def numbers(frame: pd.DataFrame) -> np.ndarray:
    return frame.to_numpy(dtype=float)


def wrong(q) -> int:
    """A wrong choice of question ``q``."""
    return (q.answer + 1) % 4


def answer_card(at: AppTest, number: int, choice: int) -> AppTest:
    """Choose option ``choice`` on quiz card ``number`` (1, 2, 3) and press its 回答する, then rerun.
    The card is a form: the choice reaches the app with the submit."""
    next(r for r in at.radio if r.key.endswith(f"_{number}__choice")).set_value(choice)
    next(b for b in at.button if b.key.endswith(f"_{number}__submit")).click()
    return at.run()


def first_quiz_card(at: AppTest):
    """(radio key prefix, Question) of the first quiz card on a learning page."""
    import quizzes
    radios = [r for r in at.radio if r.key and r.key.startswith("quiz_") and r.key.endswith("__choice")]
    assert radios, "no quiz card on the page"
    key = radios[0].key[: -len("__choice")]
    topic = key.split("_")[1]
    qid = at.session_state[f"quiz_{topic}__ids"][0]
    return key, quizzes.from_id(qid)


def learning_page_with_quiz() -> tuple[AppTest, str]:
    """② opened at its quiz (its three cards drawn)."""
    path = "pages/2_qkv.py"
    at = open_page(path, section="quiz")
    assert not at.exception and any((r.key or "").startswith("quiz_") for r in at.radio), at.exception
    return at, path


class WholePage:
    """A learning page read whole: every section (ui.sections) opened in turn — one AppTest, one
    run per section — and what each drew kept. The read-only helpers (page_text, lesson_text,
    lesson_elements, tables, heatmaps…) and ``.markdown``-style lists read it as one page; ``.at``
    is the AppTest itself, left on the last section (the quiz)."""

    def __init__(self, at: AppTest):
        self.at = at
        self.trees: dict[str, object] = {}
        for name in sections_of(at):
            show_section(at, name)
            self.trees[name] = at._tree

    @property
    def lesson_trees(self) -> list:
        """The sections before the quiz."""
        return [t for name, t in self.trees.items() if name != QUIZ]

    def get(self, kind: str) -> list:
        return [el for t in self.trees.values() for el in t.get(kind)]

    def __getattr__(self, name: str) -> list:
        if name.startswith("_") or name in ("at", "trees"):
            raise AttributeError(name)
        return [el for t in self.trees.values() for el in getattr(t, name)]


class OpenedPages(dict):
    """path → that page opened (without an exception) on first use and kept: a learning page as a
    WholePage (every section read), any other page as its AppTest."""

    def __missing__(self, path: str):
        at = open_page(path)
        assert not at.exception, (path, at.exception)
        self[path] = WholePage(at) if section_tabs(at) else at
        return self[path]
