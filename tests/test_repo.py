"""The repository keeps its promises: README commands, CI entry point, config."""
import re
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
    # its counterpart, gc.freeze() at the first page run: tests/test_upgrade_guards.py


def test_requirements_are_pinned():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][0-9A-Za-z.]*", line), line


_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text outside its fenced code blocks."""
    return re.sub(r"```.*?```", "", text, flags=re.S).splitlines()


def test_readme_headings_are_japanese():
    """The README is written in Japanese throughout (code names and commands stay as they are)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = [line for line in _prose_lines(text) if line.startswith("#")]
    assert len(headings) > 10
    assert [h for h in headings if not _JAPANESE.search(h)] == []


def test_readme_points_maintainers_to_the_design_and_performance_docs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## 開発者向け", 1)[1].split("\n## ", 1)[0]
    for doc in ("docs/design.md", "docs/performance.md", ".ci/try-newest-streamlit"):
        assert doc in section and (ROOT / doc).is_file(), doc
    assert re.search(r"2 コアのマシンで\s*約 [\d.]+ (秒|分)", section), "the inner loop's measured time"
    assert 'not browser and not slow and not app' in section, "the inner loop's command"


def test_design_doc_maps_every_page_to_its_label_and_url():
    """docs/design.md's table of pages (file | key | label | URL | …) is ui.nav.PAGES, row by row."""
    from ui.nav import PAGES

    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `((?:app|pages/\w+)\.py)` \| `(\w+)` \| ([^|]+?) \| `(/\w*)` \|", text, flags=re.M)
    assert rows == [(p.path, p.key, p.label, p.url) for p in PAGES]


# ---------------------------------------------------------------------------
# .ci/try-newest-streamlit: everything CI runs (browser tests too) on the newest Streamlit, or --fast
# ---------------------------------------------------------------------------
TRY_NEWEST = ROOT / ".ci" / "try-newest-streamlit"


def _dry_run(script: Path, *args: str) -> str:
    import subprocess

    out = subprocess.run(["bash", str(script), "--dry-run", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _pytest_args(dry_output: str) -> list[str] | None:
    """The arguments after ``-m pytest`` of the pytest command a dry run prints (None: no such command)."""
    import shlex

    for line in dry_output.splitlines():
        words = shlex.split(line[2:]) if line.startswith("+ ") else []
        if words[1:3] == ["-m", "pytest"]:             # <python> -m pytest …
            return words[3:]
    return None


def try_newest_problems(whole: str, fast: str) -> list[str]:
    """What is wrong with what the script would run, from its dry runs without and with --fast:
    by default the browser is installed and no marker leaves a test out; --fast runs exactly the fast
    selection and needs no browser."""
    problems = []
    if "+ bash .ci/install-browser" not in whole.splitlines():
        problems.append("the whole run does not install the browser (.ci/install-browser)")
    args = _pytest_args(whole)
    if args is None or "-m" in args or "-k" in args:
        problems.append(f"the whole run selects tests: {args}")
    if "+ bash .ci/install-browser" in fast.splitlines():
        problems.append("--fast installs the browser")
    args = _pytest_args(fast) or []
    if "-m" not in args or args[args.index("-m") + 1] != "not browser and not slow":
        problems.append(f"--fast does not run the fast selection: {args}")
    return problems


def test_try_newest_streamlit_runs_the_browser_tests_too_or_with_fast_the_fast_selection():
    assert try_newest_problems(_dry_run(TRY_NEWEST), _dry_run(TRY_NEWEST, "--fast")) == []
    assert _pytest_args(_dry_run(TRY_NEWEST, "tests/test_upgrade_guards.py", "-x"))[-2:] == [
        "tests/test_upgrade_guards.py", "-x"]                           # extra arguments go to pytest


def test_the_try_newest_check_catches_a_script_that_leaves_the_browser_out(tmp_path):
    (tmp_path / ".ci").mkdir()
    source = TRY_NEWEST.read_text(encoding="utf-8")
    assert source.count("  SELECT=()\n") == 1 and source.count("run bash .ci/install-browser\n") == 1
    planted = {"fast by default": source.replace("  SELECT=()\n", '  SELECT=(-m "not browser and not slow")\n'),
               "no browser installed": source.replace("run bash .ci/install-browser\n", "true\n")}
    for name, text in planted.items():
        script = tmp_path / ".ci" / name.replace(" ", "-")
        script.write_text(text, encoding="utf-8")
        assert try_newest_problems(_dry_run(script), _dry_run(script, "--fast")), name


# ---------------------------------------------------------------------------
# the own-words checks run wherever the source texts are, and say so (tests/seedtext.py)
# ---------------------------------------------------------------------------
_SEEDTEXT_PROBE = """
import seedtext
try:
    seedtext.copied_runs("前置きの文。")
    read = "read"
except BaseException as exc:          # pytest.fail raises an exception pytest reports as a failure
    read = "failed: " + str(exc)
print(seedtext.status_line())
print("skip" if seedtext.needs_seeds.args[0] else "no skip")
print(read)
"""


def _seedtext_says(seeds: Path, ci: bool) -> list[str]:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("CI", "ATTENTION_TUTOR_SEEDS")}
    env.update(ATTENTION_TUTOR_SEEDS=str(seeds), PYTHONPATH=str(ROOT / "tests"))
    if ci:
        env["CI"] = "true"
    out = subprocess.run([sys.executable, "-c", _SEEDTEXT_PROBE], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_the_own_words_checks_run_where_the_texts_are_skip_elsewhere_and_fail_on_ci(tmp_path):
    texts = tmp_path / "seeds"
    texts.mkdir()
    (texts / "a.txt").write_text("これは元資料の文です。", encoding="utf-8")
    header, skip, read = _seedtext_says(texts, ci=True)
    assert header == f"own-words checks: run against 1 source texts (*.txt) at {texts}" and skip == "no skip"
    assert read == "read"
    header, skip, read = _seedtext_says(tmp_path / "none", ci=False)   # a clone without them: a plain skip
    assert header.startswith(f"own-words checks skipped: no source texts (*.txt) at {tmp_path / 'none'}")
    assert "outside the repository" in header and skip == "skip" and read.startswith("failed")
    header, skip, read = _seedtext_says(tmp_path / "none", ci=True)    # CI has them: their absence fails
    assert header.startswith("own-words checks FAILED: CI=true") and skip == "no skip" and read.startswith("failed")


# ---------------------------------------------------------------------------
# the README's account of the code that runs in the browser
# ---------------------------------------------------------------------------
def _components_in_code() -> set[str]:
    """The names of the st.components.v2 components that ui/ registers."""
    return {name for p in (ROOT / "ui").rglob("*.py")
            for name in re.findall(r"components\.v2\.component\(\s*\"(\w+)\"", p.read_text(encoding="utf-8"))}


def browser_code_drift(readme: str, components: set[str], scripts: dict[str, int]) -> list[str]:
    """Where the README's list of components (one bullet each: `name`（`ui/file.js`）), their count and
    the JavaScript's size (「N つの .js、合わせて約 L 行」) disagree with the code: ``components``
    registered, ``scripts`` (ui/*.js → lines)."""
    listed = dict(re.findall(r"^\s*- `(attention_tutor_\w+)`（`(ui/[\w/]+\.js)`）", readme, flags=re.M))
    problems = []
    if set(listed) != components:
        problems.append(f"components listed {sorted(listed)}, registered {sorted(components)}")
    if set(listed.values()) != set(scripts):
        problems.append(f"scripts listed {sorted(set(listed.values()))}, in ui/ {sorted(scripts)}")
    said = re.search(r"(\d+) つの部品.*?(\d+) つの \.js、合わせて約 (\d+) 行", readme, flags=re.S)
    if not said:
        return problems + ["the README does not say how many components and lines of JavaScript there are"]
    n_components, n_scripts, lines = map(int, said.groups())
    if (n_components, n_scripts) != (len(components), len(scripts)):
        problems.append(f"README: {n_components} components, {n_scripts} scripts; code: {len(components)}, {len(scripts)}")
    if abs(lines - sum(scripts.values())) > 0.15 * sum(scripts.values()):
        problems.append(f"README: about {lines} lines of JavaScript; ui/*.js: {sum(scripts.values())}")
    return problems


def test_the_readme_names_every_component_and_says_how_much_javascript_runs_in_the_browser():
    scripts = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
               for p in (ROOT / "ui").rglob("*.js")}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(_components_in_code()) >= 6
    assert browser_code_drift(readme, _components_in_code(), scripts) == []


def test_the_browser_code_drift_check_catches_the_old_wording():
    scripts, names = {"ui/a.js": 300, "ui/b.js": 100}, {"attention_tutor_a", "attention_tutor_b"}
    good = ("2 つの部品で、JavaScript（`ui/` の 2 つの .js、合わせて約 400 行）\n"
            "  - `attention_tutor_a`（`ui/a.js`）：…\n  - `attention_tutor_b`（`ui/b.js`）：…\n")
    assert browser_code_drift(good, names, scripts) == []
    assert browser_code_drift("ブラウザへの保存は `st.components.v2.component`（数行の固定 JavaScript）で", names, scripts)
    assert browser_code_drift(good.replace("約 400 行", "約 40 行"), names, scripts)
    assert browser_code_drift(good, names | {"attention_tutor_c"}, {**scripts, "ui/c.js": 10})
