"""The type check (issue 42): mypy, pinned in requirements-dev.txt, over practice/ and ui/state.py
as mypy.ini says (the session's sync state is a typed ui.state.Sync; every function of ui/state.py
is annotated). A few seconds on a cold cache: libraries are read as Any."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_practice_and_the_sync_state_type_check():
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("CI"):
            pytest.fail("mypy is not installed: CI installs requirements-dev.txt", pytrace=False)
        pytest.skip("mypy is not installed here: pip install -r requirements-dev.txt")
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "mypy.ini")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_sync_state_is_a_dataclass_the_functions_take():
    import dataclasses
    import inspect
    import typing

    import ui.state as state

    assert dataclasses.is_dataclass(state.Sync)
    for name in ("_queue", "_queue_write", "_command", "_on_read", "_on_theirs", "_facts", "_unusable"):
        hints = typing.get_type_hints(getattr(state, name))
        assert hints["s"] is state.Sync, name
    assert "s" not in inspect.signature(state.sync).parameters
