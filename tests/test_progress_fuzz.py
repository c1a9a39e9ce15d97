"""Hostile and corrupt progress files: every one is refused with a Japanese ProgressError and
the learner's current progress stays exactly as it was.

Each case goes through the app's own import path (ui.backup.import_progress_bytes, with a plain
dict standing in for st.session_state), so "refused" means: the function reports failure, the
session still holds the very same progress object, unchanged, and the message shown is Japanese
and inert as Markdown (ui.state.plain escapes every < and >).
"""
from __future__ import annotations

import copy
import json
import re
import time
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quizzes
import ui.backup as backup
import ui.state as state
from practice import exam as ex
from practice import review as rv
from practice import store
from practice.progress import MAX_ATTEMPTS_KEPT, apply_answer, apply_answers, new_progress, record_visit
from practice.store import ProgressError, export_bytes, parse_progress_bytes

from practice_fakes import fake_registry

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=timezone(timedelta(hours=9)))   # as ui.clock.now() gives it
FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                         HealthCheck.too_slow])


@pytest.fixture(scope="module", autouse=True)
def fakes():
    with fake_registry():
        yield


def make_base() -> dict:
    """A valid progress with every kind of record (what a learner would export)."""
    p = new_progress()
    for k in ("home", "naive", "qkv", "review"):
        p = record_visit(p, k)
    p = apply_answers(p, [("zz.qkv.calc0#1", "qkv", True, 2), ("zz.qkv.calc1#2", "qkv", False, 0)], "page", T0)
    p = apply_answer(p, "zz.mask.know0#3", "mask", False, 1, "page", T0)
    p = apply_answer(p, "zz.mask.know0#3", "mask", True, 3, "review", T0)
    qs = [quizzes.from_id(q) for q in ex.build_exam(10, 5)]
    r = ex.score_exam(qs, {i: q.answer for i, q in enumerate(qs) if i % 2})
    return ex.record_exam(p, r, T0, T0 + timedelta(minutes=4), 40)


def make_current() -> dict:
    """The learner's progress in the session (different from the file, so a wrong import would show)."""
    return apply_answer(record_visit(new_progress(), "mask"), "zz.naive.calc0#9", "naive", False, 3, "page", T0)


def import_into_session(raw) -> tuple[bool, dict, dict, tuple]:
    """Run the app's import on a stand-in session; returns (ok, progress before, session, message)."""
    current = make_current()
    session = {state.PROGRESS_KEY: current}
    fake_st = SimpleNamespace(session_state=session, warning=lambda *a, **k: None)
    real_st = state.st
    state.st = backup.st = fake_st
    try:
        ok = backup.import_progress_bytes(raw)
        if backup.IMPORT_PENDING_KEY in session:   # the session has answers: the file waits to be joined
            backup.apply_import()                 # (合わせて読み込む: issue 42 row 6)
    finally:
        state.st = backup.st = real_st
    return ok, current, session, session.get(backup.IMPORT_MSG_KEY)


def assert_refused(raw) -> None:
    with pytest.raises(ProgressError) as err:
        parse_progress_bytes(raw)
    assert JAPANESE.search(str(err.value)), str(err.value)
    snapshot = make_current()
    ok, current, session, msg = import_into_session(raw)
    assert ok is False
    assert session[state.PROGRESS_KEY] is current and current == snapshot  # untouched
    kind, text, _ = msg
    assert kind == "error" and JAPANESE.search(text) and "今の進捗はそのままです" in text
    shown = state.plain(text)
    assert not re.search(r"(?<!\\)[<>]", shown), shown  # no live HTML / Markdown tag survives


def dump(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def test_base_file_is_accepted_and_joined_with_the_progress():
    """A file is joined with the session's record (issue 42 row 6): every answer of both stays."""
    raw = export_bytes(make_base())
    ok, current, session, msg = import_into_session(raw)
    joined = session[state.PROGRESS_KEY]
    assert ok is True and joined != current
    assert all(a in joined["attempts"] for a in make_base()["attempts"] + current["attempts"])
    assert len(joined["attempts"]) == len(make_base()["attempts"]) + len(current["attempts"])
    assert msg[0] == "success" and "読み込みました" in msg[1]


def test_a_file_with_parts_this_version_cannot_use_keeps_the_rest_and_says_what_it_left_out():
    """An answer and a review card of a question that no longer exists, and an unfinished mock exam
    whose deadline passed weeks ago: each is left out with a Japanese note, the rest is imported."""
    p = copy.deepcopy(make_base())
    p["attempts"].insert(0, {**p["attempts"][0], "qid": "removed.gen#1"})
    p["review"]["qkv.gone"] = next(iter(p["review"].values()))         # a skill whose generator was removed
    stale = ex.new_exam(10, 40, seed=3, now=T0.timestamp())          # started March 2026, never finished
    p["exam_in_progress"] = stale
    notes = []
    got = parse_progress_bytes(dump(p), notes)
    base = make_base()
    assert got["attempts"] == base["attempts"] and got["review"] == base["review"]
    assert got["exam_in_progress"] is None and got["exams"] == base["exams"]
    assert len(notes) == 3 and all(JAPANESE.search(n) for n in notes)
    assert "解答記録 1 件" in notes[0] and "復習予定 1 問" in notes[1] and "模擬試験" in notes[2]
    ok, current, session, msg = import_into_session(dump(p))
    from practice.progress import join
    assert ok is True and session[state.PROGRESS_KEY] == join(current, got)   # joined with the session's
    assert msg[0] == "success" and "外しました" in msg[1] and "解答記録 1 件" in msg[1]


def test_an_imported_file_keeps_its_unfinished_mock_exam():
    """The paper in progress travels with the file: after the import it is the session's exam."""
    p = copy.deepcopy(make_base())
    paper = ex.new_exam(10, 40, seed=4, now=time.time() - 60)
    p["exam_in_progress"] = paper
    ok, current, session, msg = import_into_session(dump(p))
    assert ok is True and session[state.EXAM_KEY] == paper
    assert session[state.PROGRESS_KEY]["exam_in_progress"] == paper
    assert "途中の模擬試験 1 つ" in msg[1]


def test_a_malformed_id_is_still_refused_not_left_out():
    for qid in ("removed.gen#007", "<b>x</b>#1", "removed.gen"):
        p = copy.deepcopy(make_base())
        p["attempts"][0]["qid"] = qid
        assert_refused(dump(p))


# ---------------------------------------------------------------------------
# explicit hostile files
# ---------------------------------------------------------------------------
def edit(fn):
    """A case built by editing a copy of the valid base."""
    def build():
        p = copy.deepcopy(make_base())
        fn(p)
        return dump(p)
    return build


def _setitem(path, value):
    def fn(p):
        obj = p
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return fn


def _delitem(path):
    def fn(p):
        obj = p
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]
    return fn


def _first_review_key(p):
    return next(iter(p["review"]))


SCRIPT = "<script>alert('x')</script>"
CASES = {
    # not JSON / not text
    "empty": lambda: b"",
    "whitespace": lambda: b"   \n\t ",
    "null": lambda: b"null",
    "list": lambda: b"[]",
    "string": lambda: b'"progress"',
    "number": lambda: b"42",
    "plain text": lambda: "これは進捗ファイルではありません".encode(),
    "trailing comma": lambda: b'{"version": 1,}',
    "truncated": lambda: export_bytes(make_base())[:-7],
    "invalid utf-8": lambda: b'{"version": 1, "visited": {"\xff\xfe": true}}',
    "utf-16": lambda: export_bytes(make_base()).decode("utf-8").encode("utf-16"),
    "latin-1": lambda: '{"version": 1, "note": "é"}'.encode("latin-1"),
    "binary": lambda: bytes(range(256)) * 4,
    "html page": lambda: f"<html><body>{SCRIPT}</body></html>".encode(),
    "bom + garbage": lambda: b"\xef\xbb\xbf{{{",
    # size and nesting
    "over the size cap": lambda: export_bytes(make_base()) + b" " * store.MAX_BYTES,
    "huge string": lambda: dump({**make_base(), "visited": {"x" * (store.MAX_BYTES + 10): True}}),
    "deep lists": lambda: b"[" * 100_000 + b"]" * 100_000,
    "deep dicts": lambda: b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
    "nested in visited": edit(_setitem(["visited", "qkv"], [[[[[[[True]]]]]]])),
    "too many attempts": edit(lambda p: p["attempts"].extend([p["attempts"][0]] * MAX_ATTEMPTS_KEPT)),
    "too many review items": edit(lambda p: p["review"].update(
        {f"zz.qkv.calc0#{i}": rv.from_box("qkv", 1, "2026-03-01", 0) for i in range(rv.MAX_ITEMS)})),
    "too many exams": edit(lambda p: p["exams"].extend([p["exams"][0]] * store.MAX_EXAMS)),
    # numbers JSON allows but we do not
    "NaN choice": lambda: export_bytes(make_base()).replace(b'"choice": 2', b'"choice": NaN', 1),
    "Infinity seconds": lambda: export_bytes(make_base()).replace(b'"seconds": 240', b'"seconds": Infinity', 1),
    "1e999 total": lambda: export_bytes(make_base()).replace(b'"total": 10', b'"total": 1e999', 1),
    "5000-digit integer": lambda: export_bytes(make_base()).replace(b'"lapses": 0', b'"lapses": ' + b"9" * 5000, 1),
    # top level
    "version 4": edit(_setitem(["version"], 4)),
    "version 0": edit(_setitem(["version"], 0)),
    "version as text": edit(_setitem(["version"], "2")),
    "version true": edit(_setitem(["version"], True)),
    "version 1.0": edit(_setitem(["version"], 1.0)),
    "no version": edit(_delitem(["version"])),
    "no attempts": edit(_delitem(["attempts"])),
    "unknown top key": edit(_setitem(["config"], {})),
    "schema-1 keys with version 2": lambda: dump({"version": 2, "visited": {}, "attempts": [], "exams": [], "review": {}}),
    "schema-2 keys with version 1": edit(_setitem(["version"], 1)),
    # settings and the unfinished exam
    "settings unknown key": edit(_setitem(["settings", SCRIPT], 1)),
    "exam date not a date": edit(_setitem(["settings", "exam_date"], "2026-02-30")),
    "exam date script": edit(_setitem(["settings", "exam_date"], SCRIPT)),
    "retention 0.5": edit(_setitem(["settings", "retention"], 0.5)),
    "retention true": edit(_setitem(["settings", "retention"], True)),
    "daily limit 25": edit(_setitem(["settings", "daily_review_limit"], 25)),
    "daily limit huge": edit(_setitem(["settings", "daily_review_limit"], 10**9)),
    "daily limit 30.0": edit(_setitem(["settings", "daily_review_limit"], 30.0)),
    "daily limit true": edit(_setitem(["settings", "daily_review_limit"], True)),
    "daily limit text": edit(_setitem(["settings", "daily_review_limit"], "30")),
    "daily limit null": edit(_setitem(["settings", "daily_review_limit"], None)),
    "settings with only the daily limit": edit(_setitem(["settings"], {"daily_review_limit": 30})),
    "exam in progress list": edit(_setitem(["exam_in_progress"], [])),
    "exam in progress script": edit(_setitem(["exam_in_progress"], {"run": SCRIPT})),
    "script as top key": edit(_setitem([SCRIPT], 1)),
    # visited
    "visited unknown page": edit(_setitem(["visited", "admin"], True)),
    "visited script page": edit(_setitem(["visited", SCRIPT], True)),
    "visited false": edit(_setitem(["visited", "qkv"], False)),
    "visited 1": edit(_setitem(["visited", "qkv"], 1)),
    "visited list": edit(_setitem(["visited"], ["qkv"])),
    # attempts
    "attempts dict": edit(_setitem(["attempts"], {})),
    "attempt not a dict": edit(_setitem(["attempts", 0], "zz.qkv.calc0#1")),
    "attempt missing key": edit(_delitem(["attempts", 0, "source"])),
    "attempt extra key": edit(_setitem(["attempts", 0, "html"], SCRIPT)),
    "attempt script id": edit(_setitem(["attempts", 0, "qid"], f"{SCRIPT}#1")),
    "attempt id without #": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0")),
    "attempt id two #": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0#1#2")),
    "attempt seed letters": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0#abc")),
    "attempt seed leading zeros": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0#007")),
    "attempt seed superscript": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0#²")),
    "attempt seed arabic digits": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0#١٢")),
    "attempt id too long": edit(_setitem(["attempts", 0, "qid"], "zz.qkv.calc0#" + "1" * 100)),
    "attempt topic mismatch": edit(_setitem(["attempts", 0, "topic"], "naive")),
    "attempt topic script": edit(_setitem(["attempts", 0, "topic"], SCRIPT)),
    "attempt correct text": edit(_setitem(["attempts", 0, "correct"], "yes")),
    "attempt correct 1": edit(_setitem(["attempts", 0, "correct"], 1)),
    "attempt choice 4": edit(_setitem(["attempts", 0, "choice"], 4)),
    "attempt choice -1": edit(_setitem(["attempts", 0, "choice"], -1)),
    "attempt choice true": edit(_setitem(["attempts", 0, "choice"], True)),
    "attempt choice 1.5": edit(_setitem(["attempts", 0, "choice"], 1.5)),
    "attempt at words": edit(_setitem(["attempts", 0, "at"], "yesterday")),
    "attempt at html": edit(_setitem(["attempts", 0, "at"], "<img src=x onerror=alert(1)>")),
    "attempt at long": edit(_setitem(["attempts", 0, "at"], "2026-03-01T09:00:00" + "0" * 40)),
    "attempt source": edit(_setitem(["attempts", 0, "source"], "hack")),
    # exams
    "exams not list": edit(_setitem(["exams"], {"0": {}})),
    "exam score > total": edit(_setitem(["exams", 0, "score"], 11)),
    "exam total 0": edit(_setitem(["exams", 0, "total"], 0)),
    "exam seconds negative": edit(_setitem(["exams", 0, "seconds"], -5)),
    "exam seconds > a day": edit(_setitem(["exams", 0, "seconds"], 86_401)),
    "exam pace 0": edit(_setitem(["exams", 0, "pace"], 0)),
    "exam by_topic list": edit(_setitem(["exams", 0, "by_topic"], [])),
    "exam by_topic unknown topic": edit(_setitem(["exams", 0, "by_topic", "admin"], [1, 1])),
    "exam by_topic script topic": edit(_setitem(["exams", 0, "by_topic", SCRIPT], [1, 1])),
    "exam by_topic triple": edit(_setitem(["exams", 0, "by_topic", "qkv"], [1, 1, 1])),
    "exam by_topic correct > n": edit(_setitem(["exams", 0, "by_topic", "qkv"], [5, 1])),
    "exam by_topic n > total": edit(_setitem(["exams", 0, "by_topic", "qkv"], [1, 11])),
    "exam at bad": edit(_setitem(["exams", 0, "at"], "2026-02-30T00:00:00")),
    # review
    "review list": edit(_setitem(["review"], [])),
    "review script id": edit(_setitem(["review", f"{SCRIPT}#1"], rv.from_box("qkv", 1, "2026-03-01", 0))),
    "review schema-1 item": edit(_setitem(["review", "zz.qkv.calc0#1"], {"topic": "qkv", "box": 1, "due": "2026-03-01", "lapses": 0})),
    "review state 4": edit(lambda p: p["review"][_first_review_key(p)].update(state=4)),
    "review state 0": edit(lambda p: p["review"][_first_review_key(p)].update(state=0)),
    "review stability NaN": lambda: export_bytes(make_base()).replace(b'"stability": ', b'"stability": NaN, "x": ', 1),
    "review stability negative": edit(lambda p: p["review"][_first_review_key(p)].update(stability=-1.0)),
    "review difficulty 11": edit(lambda p: p["review"][_first_review_key(p)].update(difficulty=11.0)),
    "review due invalid date": edit(lambda p: p["review"][_first_review_key(p)].update(due="2026-13-45T00:00:00+00:00")),
    "review due without offset": edit(lambda p: p["review"][_first_review_key(p)].update(due="2026-03-01T00:00")),
    "review due date only": edit(lambda p: p["review"][_first_review_key(p)].update(due="2026-03-01")),
    "review topic mismatch": edit(lambda p: p["review"][_first_review_key(p)].update(topic="naive")),
    "review lapses -1": edit(lambda p: p["review"][_first_review_key(p)].update(lapses=-1)),
    "review extra key": edit(lambda p: p["review"][_first_review_key(p)].update({SCRIPT: 1})),
    "review item missing key": edit(lambda p: p["review"][_first_review_key(p)].pop("due")),
}


def test_there_are_at_least_fifty_hostile_files():
    assert len(CASES) >= 50


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_file_is_refused(name):
    assert_refused(CASES[name]())


# ---------------------------------------------------------------------------
# hypothesis: mutations of a valid file that must each be refused
# ---------------------------------------------------------------------------
FIXED_KEYS = {(): store.TOP_KEYS}


def nodes(obj, path=()):
    """(path, value) of every node below the root."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path + (k,), v
            yield from nodes(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield path + (i,), v
            yield from nodes(v, path + (i,))


def json_class(v) -> str:
    return {bool: "bool", int: "int", float: "float", str: "str", type(None): "null", list: "list",
            dict: "dict"}[type(v)]


JSON_VALUES = st.one_of(
    st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20),
    st.none(), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.just(SCRIPT),
)


NULLABLE = {"stability", "difficulty", "step", "last_review", "exam_date", "exam_in_progress"}


def set_path(obj, path, value):
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def fixed_key_dicts(p):
    """Paths of dicts whose keys are fixed by the schema, with the allowed keys."""
    out = [((), store.TOP_KEYS)]
    out += [(("attempts", i), store.ATTEMPT_KEYS) for i in range(len(p["attempts"]))]
    out += [(("exams", i), store.EXAM_KEYS) for i in range(len(p["exams"]))]
    out += [(("review", k), store.REVIEW_KEYS) for k in p["review"]]
    out += [(("settings",), store.SETTINGS_KEYS)]
    return out


@FUZZ
@given(data=st.data())
def test_a_value_of_the_wrong_json_type_anywhere_is_refused(data):
    p = make_base()
    # (nullable numbers and dates are checked by value in CASES: an int for a float is valid there)
    all_nodes = [(path, v) for path, v in nodes(p) if path[-1] not in NULLABLE]
    path, old = data.draw(st.sampled_from(all_nodes), label="node")
    new = data.draw(JSON_VALUES.filter(lambda v: json_class(v) != json_class(old)), label="new value")
    set_path(p, path, new)
    assert_refused(dump(p))


@FUZZ
@given(data=st.data())
def test_an_unknown_key_in_any_record_is_refused(data):
    p = make_base()
    path, allowed = data.draw(st.sampled_from(fixed_key_dicts(p)), label="record")
    key = data.draw(st.one_of(st.text(min_size=1, max_size=30), st.just(SCRIPT)).filter(lambda k: k not in allowed))
    target = p
    for k in path:
        target = target[k]
    target[key] = data.draw(JSON_VALUES)
    assert_refused(dump(p))


@FUZZ
@given(data=st.data())
def test_a_missing_key_in_any_record_is_refused(data):
    p = make_base()
    path, allowed = data.draw(st.sampled_from(fixed_key_dicts(p)), label="record")
    # (a setting added since schema 2 came out may be missing: test_a_record_without_a_newer_setting…)
    key = data.draw(st.sampled_from(sorted(allowed - (store.SETTINGS_ADDED.keys() if path == ("settings",) else set()))))
    target = p
    for k in path:
        target = target[k]
    del target[key]
    assert_refused(dump(p))


@pytest.mark.parametrize("name", sorted(store.SETTINGS_ADDED))
def test_a_record_without_a_newer_setting_is_read_with_its_default(name):
    """Older files and browser records lack the settings added since: migrated, never refused."""
    p = make_base()
    del p["settings"][name]
    got = parse_progress_bytes(dump(p))
    assert got["settings"] == {**p["settings"], name: store.SETTINGS_ADDED[name]} == new_progress()["settings"]
    assert {k: v for k, v in got.items() if k != "settings"} == {k: v for k, v in p.items() if k != "settings"}
    ok, _, session, _ = import_into_session(dump(p))
    assert ok and session[state.PROGRESS_KEY]["settings"][name] == store.SETTINGS_ADDED[name]


RANGES = {"choice": (0, 3), "state": (1, 3), "lapses": (0, 1_000_000), "reps": (0, 1_000_000),
          "seconds": (0, 86_400), "pace": (1, 3600)}


@FUZZ
@given(data=st.data())
def test_an_out_of_range_integer_is_refused(data):
    p = make_base()
    candidates = [(path, path[-1]) for path, v in nodes(p) if path and path[-1] in RANGES]
    path, name = data.draw(st.sampled_from(candidates), label="field")
    lo, hi = RANGES[name]
    bad = data.draw(st.one_of(st.integers(max_value=lo - 1), st.integers(min_value=hi + 1)), label="value")
    set_path(p, path, bad)
    assert_refused(dump(p))


@FUZZ
@given(cut=st.integers(min_value=0, max_value=10**9))
def test_a_truncated_file_is_refused(cut):
    raw = export_bytes(make_base())
    assert_refused(raw[: cut % len(raw)])


@FUZZ
@given(data=st.data())
def test_random_byte_damage_never_crashes(data):
    """Flipping bytes may keep a file valid (a digit of a seed…); it must never raise anything
    but ProgressError, and whatever is accepted is a valid progress."""
    raw = bytearray(export_bytes(make_base()))
    for _ in range(data.draw(st.integers(1, 5))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    try:
        result = parse_progress_bytes(bytes(raw))
    except ProgressError as exc:
        assert JAPANESE.search(str(exc))
        assert_refused(bytes(raw))
    else:
        assert store.validate_progress(result) is result


def test_plain_escapes_markdown_and_html():
    assert state.plain(SCRIPT) == "\\<script\\>alert\\(\\'x\\'\\)\\</script\\>"
    assert state.plain("a\n\n# b") == "a \\# b"
    assert state.plain("[link](javascript:x) ![img](http://x/y.png) $x$") == (
        "\\[link\\]\\(javascript\\:x\\) \\!\\[img\\]\\(http\\:\u2060//x/y\\.png\\) \\$x\\$")  # \u2060: no autolink
