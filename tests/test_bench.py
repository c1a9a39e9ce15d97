"""Smoke test of the benchmark script (`python -m bench`): it imports and its quick sections run.

No timing is asserted (the machine's load decides those); what is checked is that the
sections produce well-formed rows, that the engine rows compare equal outputs, and that the
table and the command line work.
"""
import re

import pytest

import bench
from bench.common import Config, Row, format_table


def _cfg():
    return Config(quick=True, repeat=1, log=lambda msg: None)


def test_engine_and_tiled_sections_run_quick():
    rows = bench.run(["engine", "tiled"], _cfg())
    assert all(isinstance(r, Row) for r in rows)
    assert not [r for r in rows if r.what == "section crashed"], [r.note for r in rows]
    fast = [r for r in rows if r.section == "engine" and r.what.startswith("bench.fast.fast_attention")]
    assert len(fast) == 4  # n = 64, 128 × (no mask, causal)
    for r in fast + [r for r in rows if r.what.startswith("tutor.cost.tiled_attention")]:
        assert len(r.samples) == 1 and r.samples[0] > 0
        err = float(re.search(r"max abs Δ ([0-9.e+-]+)", r.note).group(1))
        assert err <= 1e-12  # the fast/tiled outputs equal the reference's
        assert r.ratio.endswith(("reference", "plain"))
    mem = [r for r in rows if r.what.startswith("peak memory tiled")]
    assert len(mem) == 2 and all(r.ok for r in mem)  # O(n·block) holds at any size


def test_questions_section_covers_every_generator():
    import quizzes

    details: list[str] = []
    rows = bench.run(["questions"], _cfg(), details)
    assert rows[0].what.startswith(f"all {len(quizzes.GENERATORS)} generators")
    table_rows = [line for line in details if line.startswith("| ") and "generator" not in line]
    assert {line.split(" | ")[0][2:] for line in table_rows} == set(quizzes.GENERATORS)


def test_training_section_measures_default_and_largest_quick():
    rows = bench.run(["training"], _cfg())
    assert [r.what.split(" (")[0] for r in rows] == ["⑧ train default", "⑧ train largest", "⑧ train experiment scaling"]
    assert all(len(r.samples) == 1 and r.samples[0] > 0 and "CPU" in r.note and "taskset -c 0" in r.note
               for r in rows)
    assert rows[0].target == "≤ 5 s on one core" and rows[1].ok is None


def test_table_and_cli(capsys):
    text = format_table([Row("x", "a", [1.0, 3.0, 2.0], "ms", target="≤ 5 ms", ok=True),
                         Row("x", "b", [], "s", ok=False, note="skipped")])
    assert "| x | a | 2.00 ms | 1.00 – 3.00 | 3 |  | ≤ 5 ms | PASS |" in text
    assert "**FAIL**" in text
    with pytest.raises(SystemExit):
        bench.main(["--only", "nosuchsection"])
    assert "unknown section" in capsys.readouterr().err


@pytest.mark.parametrize("script, title", [("floor_app.py", "floor"), ("floor_editor_app.py", "floor: editor"),
                                           ("floor_pages_app.py", "floor: page 1")])
def test_floor_apps_draw_their_one_result(script, title):
    """The felt section's reference apps run as they are measured (a broken floor would make
    every ratio meaningless): a title, and the one number the benchmark waits for."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(bench.__file__).parent / script), default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == title
    if script == "floor_editor_app.py":
        assert at.metric[0].label == "それ → 猫" and at.metric[0].value == "6.0"
    else:
        assert at.markdown[-1].value == "結果: **100**"
        at.slider[0].set_value(10).run()
        assert at.markdown[-1].value == "結果: **20**"


def test_every_try_it_slider_the_felt_section_times_is_on_its_page():
    """`felt` steps each round-tripping try-it slider by its label and reads what the step changes
    (a metric, the table after it, a caption): a renamed slider or result would stall the run."""
    from bench.felt import CAPTION_JS, METRIC_JS, STEPPER_JS, STEPPER_SLIDER, TRY_SLIDERS
    from apphelpers import open_page, steppers, tables
    from ui.nav import PAGE_BY_KEY

    for key, label, slider, read_js, arg in TRY_SLIDERS:
        at = open_page(PAGE_BY_KEY[key].path, section="try")     # bench.felt opens each at 試してみよう (TRY)
        if slider == STEPPER_SLIDER:       # answered in the browser: its label, and a table at each position
            assert read_js == STEPPER_JS and label in arg
            (found,) = [s for s in steppers(at).values() if label in s.label]
            assert all(any(not isinstance(b, str) for b in p) for p in found.panels), (key, label)
            continue
        sliders = [s.label for s in [*at.slider, *at.select_slider]]
        assert any(label in s for s in sliders), (key, label, sliders)
        if read_js == METRIC_JS:
            assert any(m.label == arg for m in at.metric), (key, arg)
        elif read_js == CAPTION_JS:
            assert any(arg in c.value for c in at.caption), (key, arg)
        else:
            assert tables(at), key


def test_every_section_switch_the_phone_section_times_is_on_its_page():
    """`phone` taps a learning page's section tabs by their labels (ui.sections): a renamed tab or a
    page without tabs would leave its row empty. No browser here: the tabs as AppTest sees them."""
    from apphelpers import open_page, sections_of
    from bench.phone import SWITCHES
    from ui.nav import PAGE_BY_KEY

    for key, before, tapped in SWITCHES:
        labels = sections_of(open_page(PAGE_BY_KEY[key].path, unfold=False))
        assert len(labels) >= 2, (key, labels)
        for name in (before, tapped):
            assert name is None or name in labels, (key, name, labels)
        assert before != tapped or before is None
