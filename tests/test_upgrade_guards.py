"""Where the app leans on Streamlit's internals, and what tells us when an upgrade moved them.

docs/design.md (「Streamlit の内部に頼っている箇所」) lists each place and its guard:

1. ``ui.widgets`` converts Altair charts with Streamlit's private
   ``streamlit.elements.vega_charts._convert_altair_to_vega_lite_spec`` (kept: Altair's public
   ``chart.to_dict()`` gives another spec, checked below);
2. ``ui.widgets.PAGE_CSS`` and the .js/.css files of ui/ select Streamlit's own elements by their
   ``data-testid`` (no public hook exists): each one must still be in Streamlit's front-end bundle;
3. ``gc.freeze()`` is no longer a side effect of ``import ui``: the first page run of a process
   calls it (``ui.page`` → ``ui.freeze_imports``).

Each test fails with a message that says what changed and where to look.
``.ci/try-newest-streamlit`` runs the fast tests against the newest Streamlit (not run by CI).
"""
from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit

ROOT = Path(__file__).resolve().parent.parent
STREAMLIT_DIR = Path(streamlit.__file__).parent
PRIVATE_MODULE, PRIVATE_NAME = "streamlit.elements.vega_charts", "_convert_altair_to_vega_lite_spec"
WHERE = f"(Streamlit {streamlit.__version__}, {STREAMLIT_DIR})"


# ---------------------------------------------------------------------------
# 1. the private Altair → Vega-Lite conversion
# ---------------------------------------------------------------------------
def _chart():
    from ui import figures

    return figures.training_curve_chart([0, 1, 2], [1.0, 0.5, 0.2], [0.3, 0.6, 0.9], "損失")


def test_the_private_altair_conversion_still_exists_with_one_argument():
    import importlib

    module = importlib.import_module(PRIVATE_MODULE)
    fn = getattr(module, PRIVATE_NAME, None)
    assert callable(fn), (
        f"{PRIVATE_MODULE}.{PRIVATE_NAME} is gone {WHERE}: ui.widgets.cached_chart now falls back to "
        "Altair's to_dict() (same picture, no spec cache, ≈ 25 ms per chart per rerun). Find where "
        "st.altair_chart converts a chart now and point ui.widgets at it, or drop the cache.")
    params = list(inspect.signature(fn).parameters.values())
    required = [p for p in params if p.default is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    assert len(required) == 1 and required[0].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD), (
        f"{PRIVATE_MODULE}.{PRIVATE_NAME} now takes {inspect.signature(fn)} {WHERE}; "
        "ui.widgets.cached_chart calls it with the chart alone")
    import ui.widgets

    assert ui.widgets._to_vega_lite is fn, "ui.widgets did not pick up the private conversion"


def test_the_private_conversion_gives_the_spec_cached_chart_keeps():
    """A Vega-Lite dict without a theme config, its data as Arrow bytes under "datasets" (what the
    spec cache weighs, and what st.vega_lite_chart moves out of the spec)."""
    import ui.widgets

    if ui.widgets._to_vega_lite is None:
        pytest.fail(f"{PRIVATE_NAME} is missing {WHERE} (see the test above)")
    spec = ui.widgets._to_vega_lite(_chart())
    assert isinstance(spec, dict) and spec.get("mark") and spec.get("encoding"), (
        f"{PRIVATE_NAME} no longer returns a Vega-Lite dict {WHERE}: {type(spec).__name__}")
    datasets = spec.get("datasets")
    assert isinstance(datasets, dict) and datasets and all(isinstance(d, bytes) for d in datasets.values()), (
        f"{PRIVATE_NAME} no longer puts the data as Arrow bytes under 'datasets' {WHERE}: "
        f"{ {k: type(v).__name__ for k, v in (datasets or {}).items()} }; ui.widgets._SPECS weighs them")
    assert spec["data"] == {"name": next(iter(datasets))}
    assert "config" not in spec, f"{PRIVATE_NAME} now adds a theme config {WHERE}: {spec['config']}"


def test_altairs_public_to_dict_is_not_the_same_spec():
    """Why the private function is kept: Altair's own to_dict() adds the default theme's fixed
    300 × 300 view and writes the data as JSON records. If this fails, the public call now gives
    Streamlit's spec: replace the private import in ui.widgets by chart.to_dict()."""
    public = _chart().to_dict()
    assert public.get("config", {}).get("view", {}).get("continuousWidth") == 300
    assert all(isinstance(d, list) for d in public["datasets"].values())


def test_without_the_private_conversion_a_chart_is_the_same_picture(monkeypatch):
    """The fallback (ui.widgets._public_spec): the same marks, encodings, sizes and titles; only
    the way the data travels differs (JSON records instead of Arrow)."""
    import ui.widgets

    private = ui.widgets._to_vega_lite(_chart())
    public = ui.widgets._public_spec(_chart())

    def picture(spec: dict) -> dict:
        return {k: v for k, v in spec.items() if k not in ("data", "datasets")}

    assert picture(public) == picture(private)
    drawn = []
    monkeypatch.setattr(ui.widgets, "_to_vega_lite", None)
    monkeypatch.setattr(ui.widgets.st, "vega_lite_chart", lambda spec, **kw: drawn.append(spec))
    from ui import figures

    ui.widgets.cached_chart(figures.training_curve_chart, (0, 1, 2), (1.0, 0.5, 0.2), (0.3, 0.6, 0.9), "損失")
    assert len(drawn) == 1 and "continuousWidth" not in str(drawn[0].get("config", {}))
    assert picture({k: v for k, v in drawn[0].items() if k != "config"}) == picture(private)


# ---------------------------------------------------------------------------
# 2. CSS and JavaScript on Streamlit's data-testid attributes
# ---------------------------------------------------------------------------
_TESTID = re.compile(r"""data-testid=["']([A-Za-z0-9_-]+)["']""")


def _our_testids() -> dict[str, str]:
    """{test id: where we use it} for every data-testid in our CSS and JavaScript."""
    import ui.widgets

    out = {}
    ours = [("ui.widgets.PAGE_CSS", ui.widgets.PAGE_CSS)]
    ours += [(f"ui/{f.name}", f.read_text(encoding="utf-8")) for f in sorted((ROOT / "ui").glob("*.[jc]s*"))]
    for where, text in ours:
        for tid in _TESTID.findall(text):
            out.setdefault(tid, where)
    return out


def test_the_testids_we_style_are_known():
    """The list in docs/design.md: a new selector on a Streamlit element is guarded by the next
    test at once; this one only keeps the list in the docs honest."""
    assert set(_our_testids()) == {"stCaptionContainer", "stSliderThumbValue", "stMarkdownContainer", "stMain",
                                   "stRadioGroup", "stSidebar", "stSidebarCollapseButton", "stLayoutWrapper",
                                   "stDateInputField", "stDateInputCalendar", "stFullScreenFrame",
                                   "stElementToolbar", "stApp", "InputInstructions", "stTextInput",
                                   "stNumberInput", "stTextArea", "stFileUploaderDropzone",
                                   "stFileUploaderDropzoneInstructions", "stPageLink-NavLink", "stHeader"}, (
        "the data-testids in ui/ changed: update docs/design.md (Streamlit の内部に頼っている箇所)")


@pytest.fixture(scope="module")
def frontend_bundle() -> str:
    files = sorted((STREAMLIT_DIR / "static").rglob("*.js"))
    assert files, f"no JavaScript under {STREAMLIT_DIR / 'static'} {WHERE}: the bundle moved"
    return "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files)


@pytest.mark.parametrize("testid", sorted(_our_testids()))
def test_every_testid_we_select_is_still_in_streamlits_front_end(frontend_bundle, testid):
    """Streamlit sets each test id as a string literal in its bundle (``"data-testid":`stSlider```)."""
    where = _our_testids()[testid]
    assert re.search(rf"""[`"']{re.escape(testid)}[`"']""", frontend_bundle), (
        f'data-testid "{testid}" (used by {where}) is no longer in Streamlit\'s front end {WHERE}: '
        "its rule now matches nothing. Find the element's new test id (or class) and change the "
        "selector; see docs/design.md, Streamlit の内部に頼っている箇所")


# ---------------------------------------------------------------------------
# 3. gc.freeze(): at the start of the first page run, not at import
# ---------------------------------------------------------------------------
def _python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_importing_ui_freezes_nothing_and_freeze_imports_freezes_once():
    """Python's own full collection then scans only what the runs create (ui.freeze_imports)."""
    code = ("import gc, ui; before = gc.get_freeze_count(); first = ui.freeze_imports(); "
            "frozen, tracked = gc.get_freeze_count(), len(gc.get_objects()); again = ui.freeze_imports(); "
            "print(before, int(first), frozen, tracked, int(again), gc.get_freeze_count())")
    before, first, frozen, tracked, again, after = map(int, _python(code))
    assert before == 0, f"importing ui froze {before} objects: gc.freeze belongs to the first page run"
    assert first == 1 and frozen > 100_000 and tracked < frozen / 20, (first, frozen, tracked)
    assert again == 0 and after == frozen, "a second page run must not freeze again"


def test_the_first_page_run_freezes():
    """The start path: app.py's ui.page("home") (a deep link runs a page's ui.page(...) instead)."""
    code = ("import gc; from streamlit.testing.v1 import AppTest; "
            f"at = AppTest.from_file({str(ROOT / 'app.py')!r}, default_timeout=60); "
            "before = gc.get_freeze_count(); at.run(); print(before, gc.get_freeze_count(), len(at.exception))")
    before, after, exceptions = map(int, _python(code))
    assert exceptions == 0
    assert before == 0 and after > 100_000, (before, after)


def test_every_page_calls_ui_page_first():
    """So whichever page a fresh server runs first, the freeze happens before its body: the first
    statement after the imports (and the docstring) of app.py and of every page is ui.page(…)."""
    import ast

    from ui.nav import PAGES

    for info in (p for p in PAGES if p.exists):
        tree = ast.parse((ROOT / info.path).read_text(encoding="utf-8"))
        body = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))
                and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        first = body[0]
        assert (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
                and ast.unparse(first.value.func) == "ui.page"), (info.path, ast.unparse(first)[:80])
