"""Shared pytest setup.

AppTest adds only the script's folder to sys.path, so the project root is put there
explicitly: pages can then `import ui`, `import tutor`, `import quizzes`.

Also here: the one hypothesis settings profile (each test keeps its own ``max_examples``),
the page fuzzer's seed for this run (shown in pytest's header, so a failed log can be replayed
with ``FUZZ_SEED=<n>``), and the fixtures shared by several page-test files.
"""
import ast
import os
import random
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# AppTest-driven and NumPy-heavy examples vary in time on a shared machine: no deadline, no
# too_slow health check; print_blob lets a failing example be replayed with @reproduce_failure.
settings.register_profile("project", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          print_blob=True)
settings.load_profile("project")

# The page fuzzer (tests/test_fuzz_pages.py) reads FUZZ_SEED; fixing it here, before collection,
# lets the header below show the very seed the fuzzer uses.
os.environ.setdefault("FUZZ_SEED", str(random.SystemRandom().randrange(2**31)))


# The inner loop (README: `-m "not browser and not slow and not app"`) leaves out the tests that run the
# app's pages through AppTest. Marked here from the code, so a new page test is never left in it by
# mistake: a test is `app` when its module calls the page helpers (or AppTest itself) or it asks for
# the `pages` fixture.
APP_NAMES = {"AppTest", "open_page", "open_pages", "each_section", "show_section", "WholePage"}


@lru_cache(maxsize=None)
def _drives_the_app(path: str) -> bool:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    used |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    return bool(used & APP_NAMES)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "pages" in getattr(item, "fixturenames", ()) or _drives_the_app(str(item.path)):
            if not item.get_closest_marker("browser"):
                item.add_marker(pytest.mark.app)


def pytest_report_header(config):
    import seedtext   # the own-words checks: whether they run (tests/seedtext.py)
    seed = os.environ["FUZZ_SEED"]
    return [f"fuzz seed: {seed} (FUZZ_SEED={seed} replays it)", seedtext.status_line()]


@pytest.fixture(scope="module")
def pages():
    """The page AppTests a module checks, each opened once on first use (path → AppTest)."""
    from apphelpers import OpenedPages
    return OpenedPages()


@pytest.fixture
def fakes():
    """The known fake question registry (tests/practice_fakes.py) for the test's duration."""
    from practice_fakes import fake_registry
    with fake_registry():
        yield


@pytest.fixture(scope="module")
def base():
    """The base URL of one fresh `streamlit run app.py` per browser-test module that asks for it."""
    from browserhelpers import streamlit_server
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """One headless Debian Chromium per browser-test module (tests/browserhelpers.py)."""
    from browserhelpers import launch   # imported here: the non-browser tests need no Playwright
    with launch() as b:
        yield b
