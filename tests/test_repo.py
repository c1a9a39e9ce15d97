"""The repository keeps its promises: README commands, CI entry point, config."""
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## はじめる", 1)[1].split("\n## ", 1)[0]
    return [c.strip() for c in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_readme_has_exactly_two_setup_commands():
    commands = _readme_commands()
    assert len(commands) == 2
    app_cmd, test_cmd = commands
    assert "requirements.txt" in app_cmd and "streamlit run app.py" in app_cmd
    assert "requirements-dev.txt" in test_cmd and "pytest" in test_cmd and "install-browser" in test_cmd


def test_ci_runs_the_readme_test_command():
    test_cmd = _readme_commands()[1]
    assert test_cmd in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_streamlit_config():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert cfg["client"]["showSidebarNavigation"] is False
    assert cfg["client"]["toolbarMode"] == "minimal"
    assert cfg["server"]["maxUploadSize"] <= 2
    assert cfg["server"].get("enableXsrfProtection", True) is True
    # no full gc.collect(2) after every script run (25–60 ms on every click; docs/performance.md)
    assert cfg["runner"]["postScriptGC"] is False


def test_importing_ui_freezes_what_lives_as_long_as_the_server():
    """Python's own full collection then scans only what the runs create (ui/__init__.py)."""
    code = ("import gc, ui; frozen, tracked = gc.get_freeze_count(), len(gc.get_objects()); "
            "print(frozen, tracked)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    frozen, tracked = map(int, out.stdout.split())
    assert frozen > 100_000 and tracked < frozen / 20, (frozen, tracked)


def test_requirements_are_pinned():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][0-9A-Za-z.]*", line), line
