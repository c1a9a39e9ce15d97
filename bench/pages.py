"""Page rerun time via AppTest, side by side with an empty Streamlit page.

Every existing page of ``ui.nav.PAGES`` is opened the way the tests do (start from app.py,
``switch_page``), run once to warm caches, then re-run; the samples of all pages and of the
empty page are taken in turn (round robin), so they share the same machine load.
"""
from __future__ import annotations

import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from .common import ROOT, Config, Row, median, ratio_samples

EMPTY_SCRIPT = 'import streamlit as st\n\nst.title("empty")\n'
# The app's own frame and nothing else: page config, session state, the sidebar with its links to
# every page, the page title. Every page pays it: the floor under every page's rerun time.
SHELL_SCRIPT = 'import ui\n\nui.page("review")\n'
# The price of one element, for the README's argument: the empty page plus N links to the app's pages
# (the sidebar's element) and plus N Markdown paragraphs (the commonest element); (row − empty) / N.
N_ELEMENTS = 15
LINKS_SCRIPT = ('import streamlit as st\n\nfrom ui.nav import PAGES\n\nst.title("empty")\n'
                f'for info in PAGES[:{N_ELEMENTS}]:\n    st.page_link(info.path, label=info.label)\n')
MARKDOWN_SCRIPT = EMPTY_SCRIPT + f'for k in range({N_ELEMENTS}):\n    st.markdown(f"段落 {{k}}")\n'
TARGET_MS = 50.0   # a rerun a learner does not wait for; the ratio to an empty page is reported, not judged


def _open(path: str, timeout: float):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if path != "app.py":
        at.switch_page(path).run()
    at.run()  # warm: module imports and st.cache_* filled
    return at


@contextmanager
def _removed_after(path: Path):
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def run(cfg: Config) -> list[Row]:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui.nav import PAGES

    reps = cfg.reps(full=15, quick=2)
    st.cache_data.clear()
    st.cache_resource.clear()
    apps: list[tuple[str, str, object, str]] = []  # (label, path, AppTest, error)
    # a page of the app (the sidebar's links are resolved against app.py); AppTest reads the script
    # again on every run, so it stays until the samples are taken
    shell_path = ROOT / "pages" / f"_bench_shell_{os.getpid()}.py"
    links_path = ROOT / "pages" / f"_bench_links_{os.getpid()}.py"
    shell_path.write_text(SHELL_SCRIPT, encoding="utf-8")
    links_path.write_text(LINKS_SCRIPT, encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp, _removed_after(shell_path), _removed_after(links_path):
        for label, script in (("empty page", EMPTY_SCRIPT), ("markdown", MARKDOWN_SCRIPT)):
            path = Path(tmp) / f"{label.replace(' ', '_')}.py"
            path.write_text(script, encoding="utf-8")
            at = AppTest.from_file(str(path), default_timeout=30)
            at.run()
            apps.append((label, "", at, ""))
        for label, path in (("links", links_path), ("app shell only", shell_path)):
            at = _open(str(path.relative_to(ROOT)), timeout=30)
            apps.append((label, "", at, "; ".join(str(e.value)[:80] for e in at.exception)))
        n_references = len(apps)
        for info in PAGES:
            if not info.exists:
                continue
            cfg.log(f"  pages: opening {info.path}")
            try:
                at = _open(info.path, timeout=60)
                err = "; ".join(str(e.value)[:80] for e in at.exception) if at.exception else ""
            except Exception as exc:  # a page that does not even run: reported, not fatal
                at, err = None, f"{type(exc).__name__}: {exc}"[:120]
            apps.append((f"{info.url} {info.label}", info.path, at, err))

        samples: dict[str, list[float]] = {label: [] for label, *_ in apps}
        cpu: dict[str, list[float]] = {label: [] for label, *_ in apps}  # process CPU time (all threads)
        for rep in range(reps):
            for label, _path, at, err in apps:
                if at is None:
                    continue
                c, t = time.process_time(), time.perf_counter()
                at.run()
                samples[label].append((time.perf_counter() - t) * 1e3)
                cpu[label].append((time.process_time() - c) * 1e3)

    rows = []
    empty_ms = samples["empty page"]
    rows.append(Row("pages", "empty Streamlit page (AppTest rerun)", empty_ms, "ms",
                    note=f"reference; CPU {median(cpu['empty page']):.1f} ms"))
    for label, what in (("links", "st.page_link"), ("markdown", "st.markdown")):
        per = [(a - b) / N_ELEMENTS * 1e3 for a, b in zip(cpu[label], cpu["empty page"])]   # µs CPU per element
        rows.append(Row("pages", f"empty page + {N_ELEMENTS} × {what} (reference)", samples[label], "ms",
                        ratio=f"{median(ratio_samples(samples[label], empty_ms)):.2f}× empty",
                        note=f"CPU {median(cpu[label]):.1f} ms, ≈ {median(per):.0f} µs CPU per {what}"))
    shell_ms, shell_err = samples["app shell only"], apps[n_references - 1][3]
    rows.append(Row("pages", "app shell only: ui.page() = page config, sidebar with a link to each of the "
                    f"{sum(p.exists for p in PAGES)} pages, title (reference)", shell_ms, "ms",
                    ratio=f"{median(ratio_samples(shell_ms, empty_ms)):.2f}× empty",
                    note=(f"exception: {shell_err}; " if shell_err else "") + f"CPU {median(cpu['app shell only']):.1f} ms"))
    for label, path, at, err in apps[n_references:]:
        ms = samples[label]
        if not ms:
            rows.append(Row("pages", f"{label} rerun", [], "ms", target=f"≤ {TARGET_MS:.0f} ms",
                            ok=False, note=f"did not run: {err}"))
            continue
        ratio = median(ratio_samples(ms, empty_ms))
        rows.append(Row("pages", f"{label} rerun", ms, "ms", ratio=f"{ratio:.2f}× empty",
                        target=f"≤ {TARGET_MS:.0f} ms", ok=median(ms) <= TARGET_MS and not err,
                        note=(f"exception: {err}; " if err else "") + f"CPU {median(cpu[label]):.1f} ms"))
    return rows
