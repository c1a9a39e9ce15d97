"""Security review, as tests (findings and decisions: notes/SECURITY.md → README「セキュリティ」).

1. Markdown/HTML injection. Every text path a learner, a link or a file controls — matrix
   cells (→ cell errors), text inputs (→ engine errors), the quiz id in ``?q=`` (→ warning),
   progress-file fields (→ import errors on the review page) — gets ``<script>``, ``<img
   onerror>``, a ``javascript:`` link, an external image and a phishing link. Streamlit never
   renders raw HTML without ``unsafe_allow_html`` (banned, see test_architecture), but it DOES
   render Markdown links and images in st.error/st.warning/st.markdown — so every echo of
   such text must reach Markdown escaped (ui.state.plain). The check reads the Markdown
   SOURCE of every element that Streamlit renders as Markdown: after dropping backslash
   escapes and code spans, no payload fragment may remain; and the learner must still see
   what they typed (the de-escaped text quotes it).
2. No eval/exec/compile/pickle/marshal/shelve/yaml/subprocess/os.system in app code; the browser
   code (every .js and .css file under ui/) never renders data as HTML, runs text as code or loads
   anything from elsewhere.
3. Config: XSRF protection on, CORS not opened, upload size capped and ≥ the progress-file
   cap, no error details sent to browsers, no secrets used or committed.
"""
from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import quizzes
from apphelpers import editors_on_screen, open_page, section_tabs, sections_of, show_section
from practice.progress import apply_answer, new_progress, record_visit
from practice.store import MAX_BYTES, export_bytes
from ui import backup, state
from ui.nav import PAGES
from ui.validate import parse_cell, CellError

ROOT = Path(__file__).resolve().parent.parent
EXISTING = [p for p in PAGES if p.exists]
LEARNING = [p for p in EXISTING if p.section == "学習"]

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "![x](https://evil.example/p.png)",
    "[ログイン](https://evil.example/login)",
    "https://evil.example/login",   # a bare URL: GFM autolinks it even when every ':' and '.' is escaped
    "www.evil.example",
    "me@evil.example",
]
# GFM autolink literals, looked for in the text AFTER escapes are resolved (that is where the
# renderer finds them); ui.state.plain splits them with an invisible word joiner
AUTOLINK = re.compile(r"(?i)(https?://|www\.|@)evil")
# what must never survive un-escaped in Markdown: an HTML tag, a link/image target, a URL
DANGER = re.compile(r"<\s*(script|img)|\]\(\s*(javascript|https?)|!\[|javascript:|evil\.example", re.I)


# ---------------------------------------------------------------------------
# reading Markdown source the way the renderer does
# ---------------------------------------------------------------------------
_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def live_markdown(md: str) -> str:
    """The parts of a Markdown source that the renderer interprets: backslash-escaped ASCII
    punctuation and code spans (shown literally) are removed."""
    out, i, n = [], 0, len(md)
    while i < n:
        ch = md[i]
        if ch == "\\" and i + 1 < n and md[i + 1] in _PUNCT:
            out.append(" ")
            i += 2
            continue
        if ch == "`":
            run = len(md[i:]) - len(md[i:].lstrip("`"))
            close = md.find("`" * run, i + run)
            if close != -1:
                out.append(" ")
                i = close + run
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def shown_text(md: str) -> str:
    """What the renderer sees after escapes are resolved (the word joiner is kept: it is what
    stops a bare URL from being linked)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)


def what_learner_reads(md: str) -> str:
    return shown_text(md).replace("\u2060", "")


def test_table_cells_are_shown_as_text():
    """A read-only table is Markdown (ui.show_table): a label or cell holding a payload is shown as
    the payload's text, and the table still has its columns (an escaped | splits no cell)."""
    from apphelpers import table_frame
    from ui.widgets import table_markdown
    frame = pd.DataFrame({"値 | 列": PAYLOADS}, index=pd.Index([f"{i} | {p}" for i, p in enumerate(PAYLOADS)], name="行"))
    md = table_markdown(frame)
    live = live_markdown(md)
    assert not DANGER.search(live) and not AUTOLINK.search(shown_text(md)), md
    back = table_frame(type("Md", (), {"type": "markdown", "value": md})())
    assert list(back.columns) == ["値 | 列"] and list(back["値 | 列"]) == PAYLOADS
    assert list(back.index) == list(frame.index)


def test_live_markdown_helper_can_fail():
    assert AUTOLINK.search(shown_text(r"see https\://evil\.example"))  # escaping alone does not stop it
    assert not AUTOLINK.search(shown_text(state.plain("see https://evil.example www.evil.example a@evil.example")))
    assert DANGER.search(live_markdown("see [x](javascript:alert(1))"))
    assert DANGER.search(live_markdown("<img src=x onerror=alert(1)>"))
    assert DANGER.search(live_markdown("![x](https://evil.example/p.png)"))
    assert not DANGER.search(live_markdown(state.plain("![x](https://evil.example/p.png) <script>")))
    assert not DANGER.search(live_markdown("code: `<script>alert(1)</script>`"))
    assert DANGER.search(live_markdown("`ok` then <script>"))
    assert shown_text(state.plain("[x](javascript:alert(1))")) == "[x](javascript:alert(1))"


def markdown_sources(at) -> list[tuple[str, str]]:
    """(where, Markdown source) of everything on the page that Streamlit renders as Markdown:
    prose, captions, alerts, headings, metric and widget labels, expander labels."""
    out = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header",
                 "subheader", "toast"):
        for el in at.get(kind):
            out.append((kind, str(el.value)))
    for m in at.metric:
        out.append(("metric", f"{m.label} {m.value}"))
    for el in at.get("expandable"):
        out.append(("expander", str(getattr(el.proto, "label", ""))))
    from streamlit.testing.v1.element_tree import Widget
    for node in at._tree:
        if isinstance(node, Widget):
            out.append((f"{node.type} label", str(getattr(node, "label", ""))))
            for opt in getattr(node, "options", []) or []:
                out.append((f"{node.type} option", str(opt)))
    for el in at.latex:  # KaTeX: no learner text may reach a formula at all
        out.append(("latex", str(el.value)))
    return out


def assert_inert(at, payload: str) -> None:
    assert not at.exception, at.exception
    for where, md in markdown_sources(at):
        live = live_markdown(md)
        m = DANGER.search(live) or AUTOLINK.search(shown_text(md))
        assert not m, f"{where}: un-escaped {m.group(0)!r} in Markdown {md[:300]!r}"
        if where == "latex":
            assert payload[:8] not in md, f"learner text inside a formula: {md[:200]!r}"


def alert_texts(at) -> list[str]:
    return [what_learner_reads(str(e.value)) for kind in ("error", "warning") for e in at.get(kind)]


# ---------------------------------------------------------------------------
# 1a. matrix cells → the cell error
# ---------------------------------------------------------------------------
EDITOR_PAGES = []
for _p in EXISTING:
    _src = (ROOT / _p.path).read_text(encoding="utf-8")
    if "matrix_editor(" in _src or "weight_editors(" in _src:   # ui.weight_editors = three matrix editors
        EDITOR_PAGES.append(_p)


def test_some_pages_have_matrix_editors():
    assert {"naive", "qkv"} <= {p.key for p in EDITOR_PAGES}


@pytest.mark.parametrize("info", EDITOR_PAGES, ids=[p.key for p in EDITOR_PAGES])
def test_matrix_cell_payloads_are_shown_as_text(info):
    at = open_page(info.path, section="try")           # the editors are in 試してみよう
    editors = editors_on_screen(at)
    assert editors, f"{info.path} calls ui.matrix_editor but none is on screen"
    for key in editors:
        for payload in PAYLOADS:
            raw = [list(r) for r in at.session_state[f"{key}__raw"]]
            good = raw[0][0]
            raw[0][0] = payload
            at.session_state[f"{key}__raw"] = raw
            at.session_state[f"{key}__ver"] += 1
            at.run()
            assert_inert(at, payload)
            # the learner sees (the start of) what they typed, as text, in a Japanese cell error
            assert any(payload[:20] in t and ("数値として読めません" in t or "使えません" in t)
                       for t in alert_texts(at)), alert_texts(at)
            raw[0][0] = good
            at.session_state[f"{key}__raw"] = raw
            at.session_state[f"{key}__ver"] += 1
            at.run()
            assert not at.exception


# ---------------------------------------------------------------------------
# 1b. text inputs → engine errors (ui.compute)
# ---------------------------------------------------------------------------
TEXT_PAGES = [p for p in EXISTING if re.search(r"text_(input|area)\(", (ROOT / p.path).read_text(encoding="utf-8"))]
SEARCH_PAGES = {"glossary"}   # pages whose text box searches a list (用語集) instead of feeding the engine


def _text_boxes(at) -> list:
    """The text inputs and areas on screen."""
    return [*at.text_input, *at.get("text_area")]


def _section_with_text_boxes(at):
    """Open the section of a learning page that holds its text boxes (ui.sections: one at a time).
    ⑧'s sentence box appears in 試してみよう once a model was trained in 可視化 (~2 s)."""
    for name in sections_of(at) if section_tabs(at) else [None]:
        if name is not None:
            show_section(at, name)
        if any(b.key == "training_run" for b in at.button):
            at.button(key="training_run").click()
            at.run(timeout=120)
        if _text_boxes(at):
            return at
    return at


@pytest.mark.parametrize("info", TEXT_PAGES, ids=[p.key for p in TEXT_PAGES])
def test_text_input_payloads_are_shown_as_text(info):
    at = _section_with_text_boxes(open_page(info.path))
    boxes = _text_boxes(at)
    assert boxes, f"{info.path}: no text box on screen in any section"
    for i in range(len(boxes)):
        for payload in PAYLOADS + ["それ " + p for p in PAYLOADS]:
            _text_boxes(at)[i].set_value(payload)
            at.run()
            assert_inert(at, payload)
            if info.key in SEARCH_PAGES:   # a search box: no term matches, said in an st.info (not an input error)
                answers = [what_learner_reads(str(i.value)) for i in at.info]
                assert any(payload in t for t in answers), f"{info.path}: {payload!r} not quoted back"
            else:
                answers = alert_texts(at)
                assert at.error, f"{info.path}: {payload!r} was accepted"
            assert any(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", t) for t in answers)


def test_text_inputs_reach_the_engine_escaped_on_the_encdec_page():
    """The learner's unknown word is quoted back (as text) in the Japanese error."""
    at = open_page(next(p for p in EXISTING if p.key == "encdec").path, section="try")
    at.text_input(key="encdec_src").set_value("[ログイン](https://evil.example/login)")
    at.run()
    assert_inert(at, "[ログイン]")
    assert any("[ログイン](https://evil.example/login)" in t for t in alert_texts(at)), alert_texts(at)


# ---------------------------------------------------------------------------
# 1c. the quiz id in ?q= (anyone can send a learner such a link)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("payload", PAYLOADS + [
    "naive.calc#<script>alert(1)</script>", "![x](https://evil.example/p.png)#1",
    "[ログイン](https://evil.example/login)#12", "このアプリは移転しました 新しいURL evil.example"])
def test_query_param_quiz_id_is_never_echoed(payload):
    """Anyone can send a learner a link: its ?q= value is not quoted back at all (no link, no
    image, no spoofed sentence inside the app's own warning box)."""
    info = LEARNING[0]
    at = open_page(info.path, query={"q": payload})
    assert_inert(at, payload)
    warnings = [what_learner_reads(w.value) for w in at.warning]
    assert any("リンクの問題を開けませんでした" in w for w in warnings), warnings
    assert not any("evil" in w or "script" in w or "移転" in w for w in warnings), warnings
    # the quiz still works: fresh questions instead of the link's
    assert len([r for r in at.radio if r.key and r.key.endswith("__choice")]) == 3


@pytest.mark.parametrize("info", LEARNING, ids=[p.key for p in LEARNING])
def test_query_param_on_every_learning_page(info):
    at = open_page(info.path, query={"q": "[x](javascript:alert(1))<img src=x onerror=alert(1)>"})
    assert_inert(at, "<img src=x")
    assert any("リンクの問題を開けませんでした" in w.value for w in at.warning)


def test_a_valid_linked_question_still_opens():
    topic = LEARNING[0].key
    qid = f"{quizzes.by_topic(topic)[0]}#123"
    at = open_page(LEARNING[0].path, query={"q": qid})
    assert not at.exception and not at.warning
    assert at.session_state[f"quiz_{topic}__ids"][0] == qid


# ---------------------------------------------------------------------------
# 1d. progress-file fields → the review page (and the dashboard)
# ---------------------------------------------------------------------------
def _valid_progress() -> dict:
    p = record_visit(new_progress(), "naive")
    qid = f"{quizzes.by_topic('naive')[0]}#5"
    p = apply_answer(p, qid, "naive", False, 1, "page")
    return json.loads(export_bytes(p))


def _string_slots(data) -> list[tuple]:
    """Paths to every string (and every dict key) in the progress JSON."""
    slots = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                slots.append(("key", path, k))
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + (i,))
        elif isinstance(node, str):
            slots.append(("value", path, None))
    walk(data, ())
    return slots


def _inject(data, slot, payload):
    kind, path, key = slot
    data = json.loads(json.dumps(data))
    node = data
    for step in path[:-1] if kind == "value" else path:
        node = node[step]
    if kind == "value":
        node[path[-1]] = payload
    else:
        node[payload] = node.pop(key)
    return data


def test_progress_file_fields_are_shown_as_text():
    base = _valid_progress()
    slots = _string_slots(base)
    assert len(slots) >= 10  # visited keys, attempt fields, review keys and fields
    review = next(p for p in EXISTING if p.key == "review")
    at = open_page(review.path)
    current = at.session_state["progress"]
    upload = at.file_uploader(key=backup.UPLOAD_KEY)
    n = 0
    for slot in slots:
        for payload in PAYLOADS:
            evil = json.dumps(_inject(base, slot, payload), ensure_ascii=False).encode()
            at.file_uploader(key=backup.UPLOAD_KEY).set_value((f"p{n}.json", evil, "application/json"))
            at.run()
            n += 1
            assert_inert(at, payload)
            assert any("読み込めませんでした" in t for t in alert_texts(at)), (slot, payload, alert_texts(at))
            assert at.session_state["progress"] == current
    assert upload is not None and n == len(slots) * len(PAYLOADS)
    for page in ("app.py", "pages/20_exam.py"):
        if (ROOT / page).exists():
            at.switch_page(page).run()
            assert_inert(at, "")


# ---------------------------------------------------------------------------
# 2. no code execution or unsafe deserialisation in app code
# ---------------------------------------------------------------------------
APP_FILES = sorted([ROOT / "app.py"] + [p for d in ("tutor", "quizzes", "practice", "ui", "pages")
                                        for p in (ROOT / d).rglob("*.py")])
BANNED_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "subprocess", "yaml", "jsonpickle",
                  "code", "codeop", "pty", "ctypes"}
BANNED_CALLS = {"eval", "exec", "compile", "__import__", "execfile", "input", "breakpoint"}
BANNED_ATTRS = {("os", "system"), ("os", "popen"), ("os", "execv"), ("os", "execve"), ("os", "spawnl"),
                ("yaml", "load"), ("pickle", "loads"), ("pickle", "load"), ("np", "load"),
                ("numpy", "load"), ("pd", "read_pickle"), ("pandas", "read_pickle"),
                ("st", "html"), ("components", "html"), ("components", "iframe"), ("st", "secrets")}


def _allowed_html_calls(tree) -> set[int]:
    """The two st.html calls allowed: st.html(PAGE_CSS), ui.widgets' constant page style (a <style>
    block only, checked by test_page_css_is_only_a_style_block), and st.html(heatmap_html(…)), a
    table whose every label and number is escaped (test_heatmap_labels_are_text_never_markup)."""
    def allowed(arg) -> bool:
        return (isinstance(arg, ast.Name) and arg.id == "PAGE_CSS") or (
            isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "heatmap_html")
    return {id(node.func) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) == ("st", "html")
            and len(node.args) == 1 and not node.keywords and allowed(node.args[0])}


def execution_risks(source: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    allowed = _allowed_html_calls(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] in BANNED_MODULES]
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith("streamlit.components")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in BANNED_MODULES or node.module.startswith("streamlit.components"):
                found.append(f"{node.lineno}: from {node.module} import …")
            if node.module == "os" and any(a.name in {"system", "popen"} for a in node.names):
                found.append(f"{node.lineno}: from os import system/popen")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BANNED_CALLS:
            found.append(f"{node.lineno}: {node.func.id}(…)")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in BANNED_ATTRS and id(node) not in allowed:
                found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg == "allow_pickle":
            found.append(f"{node.lineno}: allow_pickle=…")
    return found


def test_execution_scan_can_fail():
    bad = ("import pickle\nfrom subprocess import run\nimport yaml\nx = eval('1')\nexec('x')\n"
           "os.system('ls')\nnp.load(f, allow_pickle=True)\nst.html('<b>')\nst.secrets['k']\n"
           "import streamlit.components.v1 as components\n")
    assert len(execution_risks(bad)) >= 10
    assert execution_risks("import json\nx = json.loads('1')\nre.compile('x')\n") == []
    assert execution_risks("st.html(PAGE_CSS)\n") == []
    assert execution_risks("st.html(heatmap_html(m, rows, cols, title=t))\n") == []
    assert len(execution_risks("st.html(css)\nst.html(PAGE_CSS, unsafe_allow_javascript=True)\n")) == 2
    assert len(execution_risks("st.html(f'<b>{x}</b>')\nst.html(heatmap_html(m) + x)\nst.html(my_html(m))\n")) == 3


@pytest.mark.parametrize("payload", PAYLOADS)
def test_heatmap_labels_are_text_never_markup(payload):
    """A heatmap is the one place the app hands st.html text it did not write itself (token
    labels; today from fixed vocabularies, since a sentence with an unknown word is refused): every
    label and title reaches the browser escaped and reads back exactly as given."""
    import numpy as np

    from apphelpers import parse_heatmap
    from ui.widgets import heatmap_html

    text = heatmap_html(np.eye(2), [payload, "猫"], ["魚", payload], title=payload, x_title=payload, y_title=payload)
    assert not re.search(r"<\s*(script|img)", text, re.I), text
    h = parse_heatmap(text)
    assert h.rows[0] == h.cols[1] == h.title == h.x_title == h.y_title == payload


def test_page_css_is_only_a_style_block():
    """The page style that st.html adds on every page is a constant <style> block: no markup, no script
    (no "<" inside, so no tag can open; ">" is CSS's child combinator)."""
    from ui.widgets import PAGE_CSS
    assert re.fullmatch(r"<style>[^<]*</style>", PAGE_CSS), PAGE_CSS


def test_app_code_is_scanned():
    names = {str(p.relative_to(ROOT)) for p in APP_FILES}
    assert {"app.py", "ui/widgets.py", "ui/quiz.py", "practice/store.py", "tutor/core.py"} <= names


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_code_execution_or_unsafe_deserialisation(path):
    assert execution_risks(path.read_text(encoding="utf-8")) == [], path


def unbounded_caches(source: str) -> list[str]:
    """st.cache_data / st.cache_resource without max_entries: caches are shared by every
    session on the server, so a learner trying many inputs must not grow them without end."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for deco in getattr(node, "decorator_list", []):
            call = deco if isinstance(deco, ast.Call) else None
            target = call.func if call else deco
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in ("cache_data", "cache_resource"):
                if call is None or not any(k.arg == "max_entries" for k in call.keywords):
                    found.append(f"{node.lineno}: {name} without max_entries")
            elif name in ("lru_cache", "cache") and isinstance(node, ast.FunctionDef) and node.col_offset == 0:
                size = next((k.value for k in (call.keywords if call else []) if k.arg == "maxsize"), None)
                if call is None or (isinstance(size, ast.Constant) and size.value is None):
                    found.append(f"{node.lineno}: module-level {name} without a size")
    return found


def test_cache_scan_can_fail():
    bad = "@st.cache_data\ndef f(x): pass\n@st.cache_resource(show_spinner=False)\ndef g(x): pass\n" \
          "@lru_cache(maxsize=None)\ndef h(x): pass\n"
    assert len(unbounded_caches(bad)) == 3
    assert unbounded_caches("@st.cache_data(max_entries=8)\ndef f(x): pass\n@lru_cache(maxsize=1)\ndef g(): pass\n") == []


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_caches_are_bounded(path):
    assert unbounded_caches(path.read_text(encoding="utf-8")) == [], path


def test_url_parameters_are_read_in_one_reviewed_place():
    """st.query_params is read only by the quiz link (ui/quiz.py), whose value is validated by
    quizzes.core.parse_id and echoed escaped (test above), and by the つまずき練習 link ?m=
    (ui/profile.py), used only if it is a catalogue id and never echoed (tests/test_profile_page.py),
    and by the section link ?section= (ui/sections.py), used only if it is one of the page's own
    section labels and never echoed (its bound tabs drop any other value themselves), and by the
    glossary's ?page= (pages/23_glossary.py), used only if it is a learning page's key, never echoed."""
    def reads(path) -> bool:       # st.query_params itself (a link's own query_params= only writes its URL)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        return any(isinstance(n, ast.Attribute) and n.attr == "query_params" for n in ast.walk(tree))
    users = [str(p.relative_to(ROOT)) for p in APP_FILES if reads(p)]
    assert sorted(users) == ["pages/23_glossary.py", "ui/profile.py", "ui/quiz.py", "ui/sections.py"], users


# ---------------------------------------------------------------------------
# 2b. the browser code: every .js and .css file under ui/ (found by globbing, so a new one is checked)
# is fixed code that never turns data into markup or code, and never loads anything from elsewhere
# ---------------------------------------------------------------------------
BROWSER_FILES = sorted(p for p in (ROOT / "ui").rglob("*") if p.suffix in (".js", ".css"))
JS_RISKS = {
    "innerHTML": r"\binnerHTML\b", "outerHTML": r"\bouterHTML\b", "insertAdjacentHTML": r"\binsertAdjacentHTML\b",
    "document.write": r"\bdocument\s*\.\s*write(ln)?\b", "eval": r"\beval\s*\(",
    "Function constructor": r"\bFunction\s*\(", "timer given code": r"\bset(Timeout|Interval)\s*\(\s*[\"'`]",
    "dynamic import": r"\bimport\s*\(", "HTML parser": r"\b(createContextualFragment|parseFromString|setHTMLUnsafe)\b",
    "srcdoc": r"\bsrcdoc\b", "inline handler": r"setAttribute\s*\(\s*[\"'`]on", "javascript: URL": r"javascript\s*:",
}
CSS_RISKS = {
    "@import": r"@import\b", "url()": r"\burl\s*\(", "expression()": r"\bexpression\s*\(",
    "javascript: URL": r"javascript\s*:", "-moz-binding": r"-moz-binding", "behavior": r"\bbehavior\s*:",
}


def browser_code_risks(source: str, kind: str) -> list[str]:
    """What in JavaScript (``kind`` "js") or CSS ("css") could render data as HTML, run text as code or
    fetch from elsewhere: "line: what". Comments are prose (a comment may say "never innerHTML"): block
    comments and whole-line // comments are left out."""
    risks = JS_RISKS if kind == "js" else CSS_RISKS
    code = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), source, flags=re.S)
    found = []
    for n, line in enumerate(code.splitlines(), start=1):
        if kind == "js" and line.lstrip().startswith("//"):
            continue
        found += [f"{n}: {name}" for name, pattern in risks.items() if re.search(pattern, line)]
    return found


@pytest.mark.parametrize("src", [
    "el.innerHTML = data.label;", "p.outerHTML = x;", "t.insertAdjacentHTML('beforeend', row);",
    "document.write(text);", "const v = eval(data.code);", "const f = new Function('a', body);",
    "setTimeout(\"go()\", 10);", "setInterval(`tick(${n})`, 5);", "import(data.module).then(run);",
    "range.createContextualFragment(html);", "new DOMParser().parseFromString(s, 'text/html');",
    "frame.srcdoc = page;", "a.setAttribute('onclick', handler);", "a.href = 'javascript:alert(1)';",
    "const x = 1; // fine\nb.innerHTML = t; // a trailing comment does not hide the code",
])
def test_js_checker_catches(src):
    assert browser_code_risks(src, "js")


@pytest.mark.parametrize("src", [
    "el.textContent = data.label;", "t.setAttribute('aria-label', LABEL);", "setTimeout(() => close.click(), 0);",
    "// never innerHTML: the label is set as text", "/* no eval(\n   here) */ const n = Number(v);",
    "export default function ({ data }) { return undefined; }", "a.href = url; a.download = name;",
])
def test_js_checker_allows(src):
    assert browser_code_risks(src, "js") == []


@pytest.mark.parametrize("src", [
    "@import 'https://evil.example/x.css';", ".a { background: url(https://evil.example/p.png); }",
    ".a { width: expression(alert(1)); }", ".a { background-image: url( 'javascript:alert(1)' ); }",
    ".a { -moz-binding: url(x.xml#b); }", ".a { behavior: url(x.htc); }",
])
def test_css_checker_catches(src):
    assert browser_code_risks(src, "css")


@pytest.mark.parametrize("src", [
    ".st-key-section [role=\"tablist\"] { position: sticky; top: 3.75rem; }",
    "/* no url() here */ .a { color: var(--st-text-color, #222); }",
    "@media (max-width: 480px) { .a { padding: 0.2rem; } }", "@keyframes at-reveal { to { visibility: visible; } }",
])
def test_css_checker_allows(src):
    assert browser_code_risks(src, "css") == []


def test_every_browser_file_is_scanned():
    """The glob finds the files the Python reads (a .js or .css file named in ui/*.py that is not under
    ui/ would escape it), and at least the six components' scripts and the three style sheets."""
    names = {p.name for p in BROWSER_FILES}
    assert len([n for n in names if n.endswith(".js")]) >= 6 and len([n for n in names if n.endswith(".css")]) >= 3
    named = {m for p in (ROOT / "ui").rglob("*.py")
             for m in re.findall(r"[\"']([\w./-]+\.(?:js|css))[\"']", p.read_text(encoding="utf-8"))}
    assert named and {Path(m).name for m in named} <= names, named


@pytest.mark.parametrize("path", BROWSER_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_browser_code_never_renders_data_or_runs_text(path):
    assert browser_code_risks(path.read_text(encoding="utf-8"), path.suffix[1:]) == [], path


def test_inline_style_sheets_load_nothing():
    """The two style sheets written in Python rather than in a file: the page style and the
    download button's."""
    from ui import storage
    from ui.widgets import PAGE_CSS
    for css in (PAGE_CSS, storage._DOWNLOAD_CSS):
        assert browser_code_risks(css, "css") == []


# ---------------------------------------------------------------------------
# 3. configuration and secrets
# ---------------------------------------------------------------------------
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))


def test_xsrf_protection_on_and_cors_not_opened():
    server = CONFIG.get("server", {})
    assert server.get("enableXsrfProtection") is True
    assert server.get("enableCORS", True) is True  # default: on
    assert server.get("enableStaticServing", False) is False


def test_upload_size_capped_and_fits_the_progress_file():
    mb = CONFIG["server"]["maxUploadSize"]
    assert isinstance(mb, int) and 1 <= mb <= 5
    assert MAX_BYTES <= mb * 1_000_000  # the largest valid progress file can be uploaded


def test_no_error_details_sent_to_browsers():
    assert CONFIG.get("client", {}).get("showErrorDetails") in ("none", False)


def test_no_secrets_needed_or_committed():
    assert not (ROOT / ".streamlit" / "secrets.toml").exists()
    for p in APP_FILES:
        code = p.read_text(encoding="utf-8")
        assert "st.secrets" not in code and "secrets.toml" not in code, p
    # the app reads no environment variable (progress lives in the learner's browser, ui.storage)
    readers = sorted(str(p.relative_to(ROOT)) for p in APP_FILES
                     if re.search(r"\benviron\b|getenv", p.read_text(encoding="utf-8")))
    assert readers == [], readers


def test_parse_cell_never_evaluates_text():
    """Cells are parsed with float(), never evaluated: an expression is refused."""
    for text in ("__import__('os').system('true')", "1+1", "2**10", "(1)", "[1]", "{}"):
        with pytest.raises(CellError):
            parse_cell(text, "x")
