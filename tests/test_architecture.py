"""The architecture rules of docs/design.md (「層と、それぞれが import してよいもの」), checked on the
source with ``ast``.

- tutor/, quizzes/ and practice/ never import streamlit or pandas (any form: ``import x``,
  ``import x.y``, ``from x import y``, ``from x.y import z``, importlib/__import__);
- imports run one way: pages/ and app.py → ui/ → practice/ → quizzes/ → tutor/ (a layer imports
  only layers below it, never bench/); inside tutor/, the kernel (core, textbook, vocab, handcalc, numfmt)
  imports no topic module, and tutor/__init__.py names what it re-exports (no star import);
- pages/, app.py (and ui/) never pass ``unsafe_allow_html=True`` and never call
  ``st.navigation``;
- tutor/ takes randomness only from a passed ``np.random.Generator``: no ``random`` module,
  no NumPy global-state functions (``np.random.seed``, ``np.random.rand``/``randn``/
  ``randint``/…), no OS-entropy ``default_rng()``;
- a module never imports a name from its own package's face (``from . import X`` where X is not a
  module, ``import ui`` inside ui/): it imports the module that defines X;
- the app's code never imports ``ast`` (ast.parse is not thread-safe on CPython 3.11);
- no file of code (app.py, pages/, ui/ with its .js and .css, practice/, quizzes/, tutor/) is over
  600 lines, except those named in OVER_THE_LINE_LIMIT (each with a ceiling and a reason).

Parsing (not grepping) means a docstring that says "no st.navigation" is fine, while
``import numpy.random as npr; npr.seed(0)`` is still caught. Each checker is first shown to
catch violations on small snippets, so the repository checks cannot pass vacuously.
"""
from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

from ui.nav import PAGES

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_ENGINE = ("streamlit", "pandas")
# numpy.random attributes that do not touch NumPy's global random state
NUMPY_RANDOM_ALLOWED = {"Generator", "default_rng", "BitGenerator", "SeedSequence",
                        "PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937"}


def py_files(*parts: str) -> list[Path]:
    base = ROOT.joinpath(*parts)
    if base.is_file():
        return [base]
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def parse(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _top(module: str) -> str:
    return module.split(".", 1)[0]


# ---------------------------------------------------------------------------
# checkers: source text → list of violations ("line: what")
# ---------------------------------------------------------------------------
def forbidden_imports(source: str, forbidden=FORBIDDEN_IN_ENGINE) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _top(alias.name) in forbidden:
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and _top(node.module) in forbidden:
                found.append(f"{node.lineno}: from {node.module} import …")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _top(arg.value) in forbidden:
                    found.append(f"{node.lineno}: {name}({arg.value!r})")
    return found


def _streamlit_aliases(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Names bound to the streamlit module, and names bound to streamlit.navigation itself."""
    modules, navigation = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "streamlit":
                    modules.add(alias.asname or "streamlit")
        elif isinstance(node, ast.ImportFrom) and node.module == "streamlit":
            for alias in node.names:
                if alias.name == "navigation":
                    navigation.add(alias.asname or "navigation")
    return modules, navigation


def streamlit_violations(source: str) -> list[str]:
    tree = ast.parse(source)
    modules, navigation = _streamlit_aliases(tree)
    modules |= {"st", "streamlit"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "unsafe_allow_html":
            if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                found.append(f"{node.value.lineno}: unsafe_allow_html=…")
        elif isinstance(node, ast.Attribute) and node.attr == "navigation":
            if isinstance(node.value, ast.Name) and node.value.id in modules:
                found.append(f"{node.lineno}: {node.value.id}.navigation")
        elif isinstance(node, ast.Name) and node.id in navigation:
            found.append(f"{node.lineno}: navigation (from streamlit)")
        elif isinstance(node, ast.ImportFrom) and node.module == "streamlit":
            if any(a.name == "navigation" for a in node.names):
                found.append(f"{node.lineno}: from streamlit import navigation")
    return found


def global_random_violations(source: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    # names that refer to numpy / numpy.random, however they were imported
    numpy_names, np_random_names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _top(alias.name) == "random":
                    found.append(f"{node.lineno}: import {alias.name}")
                elif alias.name == "numpy":
                    numpy_names.add(alias.asname or "numpy")
                elif alias.name == "numpy.random":
                    if alias.asname:
                        np_random_names.add(alias.asname)
                    else:
                        numpy_names.add("numpy")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _top(node.module) == "random":
                found.append(f"{node.lineno}: from {node.module} import …")
            elif node.module == "numpy":
                for alias in node.names:
                    if alias.name == "random":
                        np_random_names.add(alias.asname or "random")
            elif node.module == "numpy.random":
                for alias in node.names:
                    if alias.name not in NUMPY_RANDOM_ALLOWED:
                        found.append(f"{node.lineno}: from numpy.random import {alias.name}")

    def is_np_random(expr: ast.AST) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in np_random_names
        return (isinstance(expr, ast.Attribute) and expr.attr == "random"
                and isinstance(expr.value, ast.Name) and expr.value.id in numpy_names)

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_np_random(node.value):
            if node.attr not in NUMPY_RANDOM_ALLOWED:
                found.append(f"{node.lineno}: numpy.random.{node.attr}")
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "default_rng" and is_np_random(f.value):
                no_seed = not node.args and not node.keywords
                none_seed = (len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                             and node.args[0].value is None)
                if no_seed or none_seed:
                    found.append(f"{node.lineno}: default_rng() without a seed (OS entropy)")
    return found


def code_without_prose(source: str) -> str:
    """The source with comments and string literals (docstrings included) removed."""
    prose = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    toks = tokenize.generate_tokens(io.StringIO(source).readline)
    return " ".join(tok.string for tok in toks if tok.type not in prose)


# What draws a widget on a page: Streamlit's input widgets (called on st or on a column/container)
# and the ui functions that wrap them. ui.quiz_section and ui.lazy_expander are fragments of their own.
WIDGETS = {"button", "checkbox", "color_picker", "data_editor", "date_input", "download_button",
           "feedback", "file_uploader", "form_submit_button", "multiselect", "number_input", "pills",
           "radio", "segmented_control", "select_slider", "selectbox", "slider", "text_area",
           "text_input", "time_input", "toggle", "matrix_editor", "weight_editors", "rounding_toggle"}


def widgets_outside_fragments(source: str) -> list[str]:
    """Widget calls not inside a function decorated with ``@st.fragment`` (or a function such a
    function defines): on a page those rerun the whole page, not their section."""
    found = []

    def is_fragment(fn) -> bool:
        return any(isinstance(d, (ast.Attribute, ast.Name)) and ast.unparse(d).split(".")[-1] == "fragment"
                   or isinstance(d, ast.Call) and ast.unparse(d.func).split(".")[-1] == "fragment"
                   for d in fn.decorator_list)

    def visit(node, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            here = inside
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                here = inside or is_fragment(child)
            elif (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                  and child.func.attr in WIDGETS and not inside):
                found.append(f"{child.lineno}: {ast.unparse(child.func)}")
            visit(child, here)

    visit(ast.parse(source), False)
    return found


def test_code_without_prose():
    src = '"""never st.navigation"""\nst.markdown("x", unsafe_allow_html = True)  # st.navigation\n'
    code = code_without_prose(src).replace(" ", "")
    assert "unsafe_allow_html=True" in code and "st.navigation" not in code


# ---------------------------------------------------------------------------
# the checkers catch what they should (and nothing more)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("src", [
    "import streamlit",
    "import streamlit as st",
    "import streamlit.components.v1 as components",
    "import pandas",
    "import pandas as pd",
    "import numpy as np, pandas",
    "from streamlit import session_state",
    "from streamlit.testing.v1 import AppTest",
    "from pandas import DataFrame",
    "from pandas.api.types import is_numeric_dtype",
    "def f():\n    import pandas as pd\n    return pd",
    "try:\n    import streamlit\nexcept ImportError:\n    pass",
    "import importlib\nst = importlib.import_module('streamlit')",
    "pd = __import__('pandas')",
])
def test_import_checker_catches(src):
    assert forbidden_imports(src)


@pytest.mark.parametrize("src", [
    "import numpy as np",
    "from . import streamlit_helpers",       # relative: our own module, not the package
    "from .pandas_like import table",
    "import streamlitish",                   # only the exact top-level package counts
    "'''we never import streamlit here'''",
    "# import pandas",
])
def test_import_checker_allows(src):
    assert forbidden_imports(src) == []


@pytest.mark.parametrize("src", [
    "import streamlit as st\nst.markdown('<b>x</b>', unsafe_allow_html=True)",
    "import streamlit as st\nst.write('x', unsafe_allow_html=flag)",
    "import streamlit as st\nst.navigation([])",
    "import streamlit as st\npg = st.navigation({'a': []})\npg.run()",
    "import streamlit\nstreamlit.navigation([])",
    "import streamlit as S\nS.navigation([])",
    "from streamlit import navigation\nnavigation([])",
    "from streamlit import navigation as nav",
])
def test_streamlit_checker_catches(src):
    assert streamlit_violations(src)


@pytest.mark.parametrize("src", [
    "'''No st.navigation here, and never unsafe_allow_html=True.'''",
    "import streamlit as st\nst.markdown('x', unsafe_allow_html=False)",
    "import streamlit as st\nst.page_link('app.py', label='ホーム')",
    "import streamlit as st\nst.switch_page('pages/1_naive.py')",
])
def test_streamlit_checker_allows(src):
    assert streamlit_violations(src) == []


@pytest.mark.parametrize("src", [
    "import random",
    "import random as r",
    "from random import choice",
    "import numpy as np\nnp.random.seed(0)",
    "import numpy as np\nx = np.random.rand(3)",
    "import numpy as np\nx = np.random.randn(3, 2)",
    "import numpy as np\ni = np.random.randint(5)",
    "import numpy as np\nnp.random.shuffle(a)",
    "import numpy as np\nx = np.random.normal(size=3)",
    "import numpy as np\nrs = np.random.RandomState(0)",
    "import numpy\nnumpy.random.seed(1)",
    "import numpy.random\nnumpy.random.rand()",
    "import numpy.random as npr\nnpr.randn()",
    "from numpy import random as R\nR.seed(0)",
    "from numpy.random import randn",
    "import numpy as np\nrng = np.random.default_rng()",
    "import numpy as np\nrng = np.random.default_rng(None)",
])
def test_random_checker_catches(src):
    assert global_random_violations(src)


@pytest.mark.parametrize("src", [
    "import numpy as np\ndef f(rng: np.random.Generator):\n    return rng.standard_normal(3)",
    "import numpy as np\nrng = np.random.default_rng(0)",
    "import numpy as np\nrng = np.random.default_rng(seed)",
    "import numpy as np\nok = isinstance(r, np.random.Generator)",
    "from numpy.random import Generator, default_rng",
    "import numpy as np\nx = rng.random(3)",             # a Generator method, not the global one
    "def random_embeddings(rng):\n    return rng.integers(0, 3, 2)",
])
def test_random_checker_allows(src):
    assert global_random_violations(src) == []


@pytest.mark.parametrize("src", [
    "import streamlit as st\nst.slider('a', 0, 1)",
    "import streamlit as st\nc1, c2 = st.columns(2)\nc1.button('go')",
    "import ui\nx = ui.matrix_editor('k', m, r, c)",
    "import streamlit as st\ndef part():\n    st.selectbox('a', [1])\npart()",
    "import streamlit as st\n@st.cache_data\ndef part():\n    st.toggle('a')",
])
def test_fragment_checker_catches(src):
    assert widgets_outside_fragments(src)


@pytest.mark.parametrize("src", [
    "import streamlit as st\n@st.fragment\ndef part():\n    st.slider('a', 0, 1)\npart()",
    "import streamlit as st\n@st.fragment(run_every=None)\ndef part():\n    st.button('go')",
    "import streamlit as st\n@st.fragment\ndef part():\n    def inner():\n        st.radio('a', [1])\n    inner()",
    "import streamlit as st\nst.markdown('slider')\nst.metric('button', 1)",
    "import ui\nui.quiz_section('naive')",
])
def test_fragment_checker_allows(src):
    assert widgets_outside_fragments(src) == []


# ---------------------------------------------------------------------------
# the repository
# ---------------------------------------------------------------------------
ENGINE_FILES = py_files("tutor") + py_files("quizzes") + py_files("practice")
VIEW_FILES = py_files("app.py") + py_files("pages") + py_files("ui")
TUTOR_FILES = py_files("tutor")


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def test_there_is_something_to_scan():
    names = {_rel(p) for p in ENGINE_FILES}
    assert {"tutor/core.py", "tutor/textbook.py", "quizzes/core.py", "practice/progress.py"} <= names
    assert "app.py" in {_rel(p) for p in VIEW_FILES}
    assert {"pages/0_seq2seq.py", "pages/4_formula.py", "pages/13_pretrain.py"} <= {_rel(p) for p in LEARNING_PAGES}


@pytest.mark.parametrize("path", ENGINE_FILES, ids=_rel)
def test_engine_quizzes_and_practice_do_not_import_streamlit_or_pandas(path):
    assert forbidden_imports(path.read_text(encoding="utf-8")) == [], _rel(path)


@pytest.mark.parametrize("path", ENGINE_FILES + VIEW_FILES, ids=_rel)
def test_the_app_never_builds_syntax_trees(path):
    """CPython 3.11's ast.parse fails at random ("AST constructor recursion depth mismatch",
    python/cpython#106905) when threads build syntax trees at once; each session runs in a thread of its
    own and Streamlit parses page scripts in others (a CI run caught home failing so, 20 learners at once)."""
    assert forbidden_imports(path.read_text(encoding="utf-8"), forbidden=("ast",)) == [], _rel(path)


@pytest.mark.parametrize("path", VIEW_FILES, ids=_rel)
def test_views_use_no_unsafe_html_and_no_st_navigation(path):
    source = path.read_text(encoding="utf-8")
    assert streamlit_violations(source) == [], _rel(path)
    # the literal spelling too, in the code itself (comments and strings are prose, not code)
    code = code_without_prose(source).replace(" ", "")
    assert "unsafe_allow_html=True" not in code, _rel(path)
    assert "st.navigation" not in code, _rel(path)


@pytest.mark.parametrize("path", TUTOR_FILES, ids=_rel)
def test_tutor_uses_no_global_random_state(path):
    assert global_random_violations(path.read_text(encoding="utf-8")) == [], _rel(path)


def test_engine_import_does_not_pull_in_streamlit_or_pandas():
    # the runtime view of the same rule: importing the engine and the quizzes must not load them
    import subprocess
    import sys

    code = ("import sys; import tutor, quizzes; "
            "bad = [m for m in ('streamlit', 'pandas') if m in sys.modules]; "
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("path", VIEW_FILES, ids=_rel)
def test_read_only_tables_are_static(path):
    """Read-only tables go through ui.show_table / ui.cached_table (Markdown tables): st.dataframe's
    toolbar is always shown on a touch screen and covers the caption that names the table, and an
    st.table costs a page switch ≈ 4× what a Markdown table does (docs/performance.md)."""
    code = code_without_prose(path.read_text(encoding="utf-8")).replace(" ", "")
    assert "st.dataframe(" not in code and "st.table(" not in code, _rel(path)


@pytest.mark.parametrize("path", [p for p in VIEW_FILES if "ui/inputs.py" not in _rel(p)], ids=_rel)
def test_number_boxes_go_through_ui_number_input(path):
    """A number out of range is replaced and explained in Japanese by ui.number_input; Streamlit's
    own range check shows English and quietly keeps the old value (only ui.inputs may call it)."""
    assert "st.number_input(" not in code_without_prose(path.read_text(encoding="utf-8")).replace(" ", ""), _rel(path)



LEARNING_PAGES = [ROOT / info.path for info in PAGES if info.section == "学習"]


@pytest.mark.parametrize("path", LEARNING_PAGES, ids=_rel)
def test_every_widget_of_a_learning_page_sits_in_a_fragment(path):
    """A widget outside a fragment reruns and redraws the whole page (≈ 100–150 elements, ≈ 6× the
    floor of a Streamlit click); inside one it reruns its own section (docs/performance.md)."""
    assert widgets_outside_fragments(path.read_text(encoding="utf-8")) == [], _rel(path)


# ---------------------------------------------------------------------------
# the direction of imports: pages → ui → practice → quizzes → tutor
# ---------------------------------------------------------------------------
LAYERS = {"tutor": 1, "quizzes": 2, "practice": 3, "ui": 4, "pages": 5, "app": 5}
KERNEL = {"core", "textbook", "vocab", "handcalc", "numfmt"}


def _layer_of(rel: str) -> str:
    """'pages/1_naive.py' → 'pages', 'app.py' → 'app', 'tutor/training/loop.py' → 'tutor'."""
    return Path(rel).parts[0].removesuffix(".py")


def imported_packages(source: str, level_base: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """(line, dotted module) of every absolute import, and of relative ones resolved against
    ``level_base`` (the importing module's package path, e.g. ("tutor", "training"))."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append((node.lineno, node.module or ""))
            else:
                base = level_base[: len(level_base) - (node.level - 1)] if node.level > 1 else level_base
                mod = ".".join(base + ((node.module,) if node.module else ()))
                if node.module is None:     # from . import a, b
                    found += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
                else:
                    found.append((node.lineno, mod))
    return found


def direction_violations(source: str, layer: str) -> list[str]:
    """Imports of our own layers at or above ``layer`` (its own package excepted), or of bench."""
    mine = LAYERS[layer]
    found = []
    for line, mod in imported_packages(source):
        top = _top(mod)
        if top == "bench":
            found.append(f"{line}: import of bench ({mod})")
        elif top in LAYERS and top != layer and LAYERS[top] >= mine:
            found.append(f"{line}: {layer} imports {mod} (not below it)")
    return found


@pytest.mark.parametrize("src, layer", [
    ("import ui", "practice"),
    ("from practice.progress import record_visit", "quizzes"),
    ("import quizzes", "tutor"),
    ("from ui.handcalc import vector", "practice"),
    ("import pages", "ui"),
    ("from bench.fast import fast_attention", "tutor"),
    ("def f():\n    import practice\n    return practice", "tutor"),
])
def test_direction_checker_catches(src, layer):
    assert direction_violations(src, layer)


@pytest.mark.parametrize("src, layer", [
    ("import tutor\nfrom quizzes.core import Question", "practice"),
    ("from practice.progress import topic_stats\nimport tutor", "ui"),
    ("import ui\nimport tutor\nfrom ui.handcalc import vector", "pages"),
    ("from . import core\nfrom .core import softmax", "tutor"),
    ("import numpy as np", "tutor"),
])
def test_direction_checker_allows(src, layer):
    assert direction_violations(src, layer) == []


LAYERED_FILES = ENGINE_FILES + VIEW_FILES


@pytest.mark.parametrize("path", LAYERED_FILES, ids=_rel)
def test_imports_run_downwards(path):
    assert direction_violations(path.read_text(encoding="utf-8"), _layer_of(_rel(path))) == [], _rel(path)


def _modules_of_packages() -> dict[str, set[str]]:
    """{dotted package: the names of its modules and subpackages}, for every package of the layers."""
    out = {}
    for init in sorted(p for d in ("tutor", "quizzes", "practice", "ui") for p in (ROOT / d).rglob("__init__.py")):
        here = init.parent
        out[".".join(here.relative_to(ROOT).parts)] = (
            {p.stem for p in here.glob("*.py") if p.stem != "__init__"} | {p.parent.name for p in here.glob("*/__init__.py")})
    return out


def face_imports(source: str, package: str, modules: dict[str, set[str]]) -> list[str]:
    """Imports, in a module of ``package`` (dotted: "ui", "tutor.training"), of a name from the face of
    its own package or of one enclosing it: ``import ui``, ``from ui import PAGES`` or ``from . import
    SECTIONS`` (anything that is not one of that package's modules, per ``modules``). The face imports
    its modules, so such an import runs back up and works only because the face happens to be loaded."""
    parts = package.split(".")
    own = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name in own]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            names = [a.name for a in node.names if a.name not in modules.get(base, set())]
            if base in own and names:
                found.append(f"{node.lineno}: from {base} import {', '.join(names)}")
    return found


_FACE_FAKE = {"ui": {"state", "sections", "storage"}, "tutor": {"core", "training"}, "tutor.training": {"loop"}}


@pytest.mark.parametrize("src, package", [
    ("def _label(m):\n    from . import SECTIONS\n    return SECTIONS[m]", "ui"),
    ("import ui", "ui"),
    ("from ui import PAGES", "ui"),
    ("from . import state, SECTIONS", "ui"),
    ("from .. import softmax", "tutor.training"),
    ("from tutor import softmax", "tutor.training"),
    ("from . import run", "tutor.training"),
])
def test_face_import_checker_catches(src, package):
    assert face_imports(src, package, _FACE_FAKE)


@pytest.mark.parametrize("src, package", [
    ("from . import state, storage", "ui"),
    ("from .sections import HEADINGS", "ui"),
    ("from ui.sections import HEADINGS", "ui"),
    ("from .. import core", "tutor.training"),
    ("from . import loop\nfrom .loop import train", "tutor.training"),
    ("import ui", "practice"),            # another layer's face: the direction check's business
])
def test_face_import_checker_allows(src, package):
    assert face_imports(src, package, _FACE_FAKE) == []


@pytest.mark.parametrize("path", [p for p in ENGINE_FILES + py_files("ui") if p.name != "__init__.py"], ids=_rel)
def test_modules_import_their_siblings_never_their_package_face(path):
    package = ".".join(path.relative_to(ROOT).parent.parts)
    assert face_imports(path.read_text(encoding="utf-8"), package, _modules_of_packages()) == [], _rel(path)


def _tutor_imports(path: Path) -> set[str]:
    """The tutor modules (first level: 'core', 'training', …) a tutor file imports."""
    rel = path.relative_to(ROOT).with_suffix("")
    package = rel.parts[:-1]
    out = set()
    for _, mod in imported_packages(path.read_text(encoding="utf-8"), tuple(package)):
        parts = mod.split(".")
        if parts[0] == "tutor" and len(parts) > 1:
            out.add(parts[1])
    return out


@pytest.mark.parametrize("name", sorted(KERNEL))
def test_the_kernel_imports_no_topic_module(name):
    """core, textbook, vocab, handcalc and numfmt are what every topic builds on: they import only each other."""
    assert _tutor_imports(ROOT / "tutor" / f"{name}.py") <= KERNEL, name


def test_tutor_modules_form_no_cycle():
    graph = {}
    for path in TUTOR_FILES:
        rel = path.relative_to(ROOT / "tutor")
        if rel.parts[0] == "__init__.py":
            continue
        graph.setdefault(rel.parts[0].removesuffix(".py"), set()).update(_tutor_imports(path))
    for node in graph:
        graph[node].discard(node)                      # inside the training package
    done = set()

    def visit(n, trail):
        assert n not in trail, " → ".join(trail + [n])
        if n in done:
            return
        for m in graph.get(n, ()):
            visit(m, trail + [n])
        done.add(n)

    for n in graph:
        visit(n, [])
    assert {"core", "naive", "formula", "training"} <= set(graph)


def test_tutor_init_names_what_it_exports():
    """No star import: every tutor.X is a module of tutor/ or a name imported by name from one."""
    import tutor

    tree = parse(ROOT / "tutor" / "__init__.py")
    starred = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
    assert starred == []
    modules = ({p.stem for p in (ROOT / "tutor").glob("*.py") if p.stem != "__init__"}
               | {p.parent.name for p in (ROOT / "tutor").glob("*/__init__.py")})
    for name in (n for n in dir(tutor) if not n.startswith("_")):
        obj = getattr(tutor, name)
        if name in modules:
            assert obj.__name__ == f"tutor.{name}"
        else:
            assert any(getattr(getattr(tutor, m), name, None) is obj for m in ("core", "position", "block")), name


MAX_LINES = 600
# Every file of code a maintainer reads — app.py, pages/, ui/ (its .js and .css too), practice/,
# quizzes/ (not its data), tutor/ — found by globbing, so a new file is covered when it appears.
SIZED_FILES = sorted(py_files("app.py") + [p for d in ("pages", "ui", "practice", "quizzes", "tutor")
                                           for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".js", ".css")
                                           and "__pycache__" not in p.parts])
# The files allowed past MAX_LINES: path → (ceiling, why). A new file over the limit fails; so does an
# allowed one that grows past its ceiling or drops back under the limit (then remove its line).
OVER_THE_LINE_LIMIT: dict[str, tuple[int, str]] = {
    "tutor/block.py": (620, "one page key ⑦-2 = one module: norms, activations, FFN, residual blocks "
                            "and their parameter counts sit together"),
    "ui/state.py": (650, "the only module that may touch the record and the bridge's bookkeeping in the session "
                         "(test_only_ui_state_touches_the_record_in_the_session): the browser bridge's state machine "
                         "(the reports, the merge with another tab's record, the queued writes) is one piece; the "
                         "file import already lives in ui/backup.py"),
}


def _line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def line_limit_problems(counts: dict[str, int], allowed: dict[str, tuple[int, str]], limit: int = MAX_LINES) -> list[str]:
    """What is wrong with ``counts`` (file → lines) against ``limit`` and the named ``allowed`` ones."""
    long = {f: n for f, n in counts.items() if n > limit}
    problems = [f"{f}: {n} lines, over {limit}: split it, or name it in OVER_THE_LINE_LIMIT with a ceiling "
                "and a reason" for f, n in sorted(long.items()) if f not in allowed]
    for f, (ceiling, why) in sorted(allowed.items()):
        if f not in long:
            problems.append(f"{f}: {counts.get(f, 0)} lines, no longer over {limit}: drop its allowance")
        elif long[f] > ceiling:
            problems.append(f"{f}: {long[f]} lines, allowed {ceiling}")
        if not why.strip():
            problems.append(f"{f}: an allowance needs its reason")
    return problems


def test_the_line_limit_checker_catches():
    allowed = {"tutor/big.py": (620, "one key, one module")}
    assert line_limit_problems({"tutor/big.py": 610, "pages/1_x.py": 599, "ui/y.js": 600}, allowed) == []
    assert line_limit_problems({"tutor/big.py": 610, "pages/1_x.py": 601}, allowed) == [
        "pages/1_x.py: 601 lines, over 600: split it, or name it in OVER_THE_LINE_LIMIT with a ceiling and a reason"]
    assert line_limit_problems({"tutor/big.py": 621}, allowed) == ["tutor/big.py: 621 lines, allowed 620"]
    assert line_limit_problems({"tutor/big.py": 580}, allowed) == [
        "tutor/big.py: 580 lines, no longer over 600: drop its allowance"]
    assert line_limit_problems({"ui/z.css": 700}, {"ui/z.css": (700, " ")}) == ["ui/z.css: an allowance needs its reason"]


def test_every_sized_folder_is_scanned():
    names = {_rel(p) for p in SIZED_FILES}
    assert {"app.py", "pages/0_seq2seq.py", "ui/widgets.py", "ui/storage.js", "ui/sections.css",
            "practice/store.py", "quizzes/core.py", "tutor/block.py", "tutor/training/loop.py"} <= names


def test_no_file_is_over_600_lines_but_the_named_allowances():
    assert line_limit_problems({_rel(p): _line_count(p) for p in SIZED_FILES}, OVER_THE_LINE_LIMIT) == []


# ---------------------------------------------------------------------------
# the record in the session: only ui/state.py holds it (docs/design.md, 「進捗の保存」)
# ---------------------------------------------------------------------------
def record_key_uses(source: str, keys: dict[str, str]) -> list[str]:
    """Uses of the record's session keys (``keys``: constant name → value): the constant itself
    (``PROGRESS_KEY``, ``ui.state.PROGRESS_KEY``), or its value as a session-state key
    (``st.session_state["progress"]``, ``.get("progress")``, ``"progress" in st.session_state``)."""
    values = set(keys.values())

    def session(e) -> bool:
        return isinstance(e, ast.Attribute) and e.attr == "session_state" or isinstance(e, ast.Name) and e.id == "session_state"

    def key(e) -> bool:
        return isinstance(e, ast.Constant) and e.value in values

    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Name) and node.id in keys) or (isinstance(node, ast.Attribute) and node.attr in keys):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and any(a.name in keys for a in node.names):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Subscript) and session(node.value) and key(node.slice):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and session(node.func.value)
              and node.func.attr in ("get", "pop", "setdefault") and node.args and key(node.args[0])):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Compare) and key(node.left) and len(node.ops) == 1
              and isinstance(node.ops[0], (ast.In, ast.NotIn)) and session(node.comparators[0])):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


_FAKE_KEYS = {"PROGRESS_KEY": "progress", "SYNC_KEY": "progress__sync"}


@pytest.mark.parametrize("src", [
    "import streamlit as st\nst.session_state['progress'] = {}",
    "import ui\np = ui.state.PROGRESS_KEY",
    "from ui.state import SYNC_KEY",
    "import streamlit as st\nsync = st.session_state.get('progress__sync')",
    "import streamlit as st\nif 'progress' not in st.session_state:\n    pass",
    "from streamlit import session_state\nsession_state['progress'] = None",
])
def test_record_key_checker_catches(src):
    assert record_key_uses(src, _FAKE_KEYS)


@pytest.mark.parametrize("src", [
    "import ui\np = ui.state.get_progress()",
    "import streamlit as st\nst.session_state['progress_upload'] = None",
    "import streamlit as st\nx = st.session_state.get('exam__error')",
    "d = {'progress': 1}\nv = d['progress']",
])
def test_record_key_checker_allows(src):
    assert record_key_uses(src, _FAKE_KEYS) == []


def _state_keys(values) -> dict[str, str]:
    from ui import state
    return {name: getattr(state, name) for name in dir(state)
            if name.isupper() and name.endswith("_KEY") and getattr(state, name) in values}


@pytest.mark.parametrize("path", [p for p in VIEW_FILES if _rel(p) != "ui/state.py"], ids=_rel)
def test_only_ui_state_touches_the_record_in_the_session(path):
    """The record and the bridge's bookkeeping: ui/state.py alone; the mock exam in progress: ui/state.py
    and the exam page (ui.state.RECORD_KEYS, EXAM_KEYS)."""
    from ui import state

    record, exam = _state_keys(state.RECORD_KEYS), _state_keys(state.EXAM_KEYS)
    assert len(record) == len(state.RECORD_KEYS) == 4 and len(exam) == len(state.EXAM_KEYS) == 2
    keys = record if _rel(path) == "pages/20_exam.py" else {**record, **exam}
    assert record_key_uses(path.read_text(encoding="utf-8"), keys) == [], _rel(path)
