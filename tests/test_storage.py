"""The pure parts of browser persistence: the three-way merge of two tabs' records (hypothesis),
and ui.state's side of the storage protocol (what it does with each report of the browser,
what it asks the browser to do). The browser itself: tests/test_storage_browser.py."""
from __future__ import annotations

import base64
import copy
import shutil
import gzip
import json
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ui.state as state
import ui.storage as storage
from practice import wire
from practice.progress import (apply_answer, drop_review, merge, new_progress, record_visit, set_exam_in_progress,
                               set_setting, with_zone)
from practice.store import dumps, validate_progress

from practice_fakes import fake_registry

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=timezone(timedelta(hours=9)))   # as ui.clock.now() gives it
QIDS = [f"zz.{t}.calc{k}#{s}" for t in ("qkv", "mask") for k in (0, 1) for s in (1, 2)]
PAGES = ["home", "naive", "qkv", "mask", "review"]


@pytest.fixture(autouse=True, scope="module")
def fakes():
    with fake_registry():
        yield


def exam_state(n: int, **changes) -> dict:
    """An unfinished mock exam as practice.exam keeps it in st.session_state["exam"]."""
    state = {"v": 1, "run": "9f3a0c1e", "qids": QIDS[:n], "pace": 40, "limit": 40 * n,
             "started_at": float(int(time.time()) - 30), "answers": [None] * n, "flags": [], "cur": 0}
    return {**state, **changes}


# ---------------------------------------------------------------------------
# merge: hypothesis over histories that fork from a common record
# ---------------------------------------------------------------------------
OPS = st.one_of(
    st.tuples(st.just("answer"), st.sampled_from(QIDS), st.booleans(), st.integers(0, 3)),
    st.tuples(st.just("visit"), st.sampled_from(PAGES)),
    st.tuples(st.just("retention"), st.sampled_from([0.8, 0.85, 0.9, 0.95])),
    st.tuples(st.just("exam_date"), st.sampled_from([None, "2026-04-01", "2026-05-01"])),
    st.tuples(st.just("daily_review_limit"), st.sampled_from([10, 20, 30, 50, 100])),
    st.tuples(st.just("drop"), st.sampled_from(QIDS)),
)


def play(p: dict, ops, clock: list) -> dict:
    for op in ops:
        clock[0] += timedelta(minutes=7)
        if op[0] == "answer":
            _, qid, ok, choice = op
            p = apply_answer(p, qid, qid.split(".")[1], ok, choice, "page", clock[0])
        elif op[0] == "visit":
            p = record_visit(p, op[1])
        elif op[0] == "drop":
            p = drop_review(p, op[1])
        else:
            p = set_setting(p, op[0], op[1])
    return p


def attempts(p) -> Counter:
    return Counter(json.dumps(a, sort_keys=True) for a in p["attempts"])


HISTORIES = st.tuples(st.lists(OPS, max_size=8), st.lists(OPS, max_size=8), st.lists(OPS, max_size=8))


@settings(max_examples=150)
@given(HISTORIES)
def test_merge_keeps_every_answer_of_both_tabs(h):
    base_ops, mine_ops, theirs_ops = h
    base = play(new_progress(), base_ops, [T0])
    mine = play(base, mine_ops, [T0 + timedelta(days=1)])
    theirs = play(base, theirs_ops, [T0 + timedelta(days=1, seconds=1)])
    out = merge(base, mine, theirs)
    validate_progress(out)
    assert attempts(out) == attempts(theirs) + (attempts(mine) - attempts(base))   # nothing dropped, nothing twice
    assert set(out["visited"]) == set(mine["visited"]) | set(theirs["visited"])
    for qid in set(mine["review"]) | set(theirs["review"]) | set(base["review"]):
        m, t, b = (r["review"].get(qid) for r in (mine, theirs, base))
        if m == b:
            assert out["review"].get(qid) == t            # untouched here: theirs
        elif t == b:
            assert out["review"].get(qid) == m            # untouched there: mine
        else:
            assert out["review"].get(qid) in (m, t)       # both: one of them, never a mix
    for k in ("retention", "exam_date", "daily_review_limit"):
        expected = mine["settings"][k] if mine["settings"][k] != base["settings"][k] else theirs["settings"][k]
        assert out["settings"][k] == expected
    assert [a["at"] for a in out["attempts"]] == sorted(a["at"] for a in out["attempts"])


@settings(max_examples=100)
@given(st.lists(OPS, max_size=8), st.lists(OPS, max_size=8))
def test_merge_with_an_unchanged_side_is_the_other_side(base_ops, ops):
    base = play(new_progress(), base_ops, [T0])
    other = play(base, ops, [T0 + timedelta(days=1)])
    for out in (merge(base, base, other), merge(base, other, base)):
        assert attempts(out) == attempts(other)
        assert (out["visited"], out["review"], out["settings"], out["exams"]) == (
            other["visited"], other["review"], other["settings"], other["exams"])


def test_merge_with_a_record_written_before_the_daily_limit_existed():
    """A record another tab (or this one, before an update) wrote without daily_review_limit counts
    as holding the default: a limit changed here is kept, one changed nowhere is the default."""
    base = play(new_progress(), [("answer", QIDS[0], False, 1)], [T0])
    old = lambda p: {**p, "settings": {k: v for k, v in p["settings"].items() if k != "daily_review_limit"}}
    mine = set_setting(base, "daily_review_limit", 50)
    theirs = set_setting(base, "retention", 0.8)
    for b, t in ((old(base), old(theirs)), (base, old(theirs)), (old(base), theirs)):
        out = merge(b, mine, t)
        assert out["settings"] == {"exam_date": None, "retention": 0.8, "daily_review_limit": 50,
                                   "advanced": False, "daily_minutes": 30}
        validate_progress(out)
    assert merge(old(base), old(base), old(theirs))["settings"]["daily_review_limit"] == 30


NON_EMPTY = st.lists(OPS, max_size=8).map(lambda ops: [("visit", "home")] + ops)   # a tab's write has a visit


@settings(max_examples=150)
@given(st.lists(OPS, max_size=6), NON_EMPTY, st.lists(OPS, max_size=6), NON_EMPTY)
def test_merge_after_this_tabs_write_was_lost_keeps_every_answer_exactly_once(start_ops, lost_ops, mine_ops,
                                                                             theirs_ops):
    """This tab wrote ``base`` (start + lost), but the other tab, reading a stale copy, wrote over
    it a record grown from ``start``: base is not an ancestor of theirs. Every answer of both
    sides is in the merge exactly once, and every review card of either side is there."""
    start = play(new_progress(), start_ops, [T0])
    base = play(start, lost_ops, [T0 + timedelta(days=1)])            # written, then overwritten
    mine = play(base, mine_ops, [T0 + timedelta(days=2)])
    theirs = play(start, theirs_ops, [T0 + timedelta(days=1, seconds=1)])
    out = merge(base, mine, theirs)
    validate_progress(out)
    assert attempts(out) == attempts(mine) | attempts(theirs)         # union: nothing dropped, nothing twice
    assert set(out["visited"]) == set(mine["visited"]) | set(theirs["visited"])
    for qid in set(mine["review"]) - set(theirs["review"]):           # a card of mine theirs never saw
        if mine["review"][qid] != start["review"].get(qid):
            assert out["review"].get(qid) == mine["review"][qid]


@settings(max_examples=100)
@given(st.lists(st.lists(st.tuples(st.sampled_from("AB"), st.sampled_from(QIDS), st.booleans()), max_size=4),
                min_size=1, max_size=6), st.lists(st.booleans(), min_size=6, max_size=6))
def test_two_writers_interleaved_with_lost_writes_keep_every_attempt_exactly_once(rounds, stale):
    """Two tabs follow ui.state's protocol against one store: answer, then write if the store
    still holds what this tab last saw or wrote, else merge what is stored (ancestor: this tab's
    last write) and write that. A stale read (``stale[i]``) lets a tab overwrite the other's
    write unseen, as Chromium's per-tab copy of localStorage can. At the end each tab merges
    once more; every answer given in either tab is stored exactly once."""
    store = {"record": None}
    tabs = {t: {"progress": record_visit(new_progress(), "home"), "seen": None, "sent": None}
            for t in "AB"}
    given_answers = Counter()
    clock = [T0]

    def write(tab: dict, stale_read: bool) -> None:
        stored_now = store["record"]
        if stored_now is not None and stored_now != tab["seen"] and not stale_read:   # another tab wrote
            ancestor = tab["sent"] or new_progress()
            tab["progress"] = merge(ancestor, tab["progress"], stored_now)
        store["record"] = tab["seen"] = tab["sent"] = tab["progress"]

    for i, batch in enumerate(rounds):
        for who, qid, ok in batch:
            clock[0] += timedelta(seconds=61)
            tab = tabs[who]
            tab["progress"] = apply_answer(tab["progress"], qid, qid.split(".")[1], ok, 0, "page", clock[0])
            given_answers[json.dumps(tab["progress"]["attempts"][-1], sort_keys=True)] += 1
            write(tab, stale[i % len(stale)] and who == "B")
    for who in "AB":                                                   # each tab writes once more
        write(tabs[who], False)
    assert attempts(store["record"]) == given_answers


def test_answers_in_two_time_zones_are_ordered_by_when_they_came():
    """10:00 in Tokyo (01:00 UTC) came before 21:00 the evening before in New York (02:00 UTC):
    the merged record keeps that order, so the last five answers of a topic are the last five."""
    tokyo, new_york = timezone(timedelta(hours=9)), timezone(timedelta(hours=-5))
    base = record_visit(new_progress(), "home")
    mine = apply_answer(base, QIDS[0], "qkv", False, 0, "page", datetime(2026, 3, 1, 10, tzinfo=tokyo))
    theirs = apply_answer(base, QIDS[1], "qkv", True, 1, "page", datetime(2026, 2, 28, 21, tzinfo=new_york))
    for out in (merge(base, mine, theirs), merge(base, theirs, mine)):
        assert [a["qid"] for a in out["attempts"]] == [QIDS[0], QIDS[1]]
        assert out["attempts"][0]["at"] == "2026-03-01T10:00:00+09:00"


def test_times_of_an_old_record_are_read_in_the_learners_zone_once():
    """Records written before times carried their zone: each such time is taken as the learner's
    wall-clock time in their zone now; a time with an offset is left as it is."""
    tokyo = timezone(timedelta(hours=9))
    old = apply_answer(new_progress(), QIDS[0], "qkv", False, 0, "page", datetime(2026, 3, 1, 10))
    assert old["attempts"][0]["at"] == "2026-03-01T10:00:00"
    zoned = with_zone(old, tokyo)
    assert zoned["attempts"][0]["at"] == "2026-03-01T10:00:00+09:00" and old["attempts"][0]["at"].endswith("00")
    assert with_zone(zoned, timezone.utc) is zoned                      # nothing left to read
    later = apply_answer(zoned, QIDS[1], "qkv", True, 1, "page", datetime(2026, 3, 1, 10, 30, tzinfo=tokyo))
    assert [a["qid"] for a in merge(zoned, later, zoned)["attempts"]] == [QIDS[0], QIDS[1]]
    validate_progress(zoned)


def test_merge_after_the_record_was_erased_in_the_other_tab_keeps_only_the_new_answers():
    base = play(new_progress(), [("answer", QIDS[0], False, 1), ("visit", "qkv")], [T0])
    mine = play(base, [("answer", QIDS[2], True, 0)], [T0 + timedelta(days=1)])   # another skill
    out = merge(base, mine, new_progress())              # 「この端末の記録を消す」 in another tab
    assert [a["qid"] for a in out["attempts"]] == [QIDS[2]] and out["visited"] == {}
    assert list(base["review"]) == ["zz.qkv.calc0"] and out["review"] == {}   # the card of QIDS[0]'s skill is gone too


def test_one_paper_answered_in_two_tabs_keeps_the_answers_of_both():
    exam = exam_state(4)
    base = set_exam_in_progress(new_progress(), exam)
    mine = set_exam_in_progress(base, {**exam, "answers": [2, None, None, 1], "flags": [3], "cur": 3})
    theirs = set_exam_in_progress(base, {**exam, "answers": [None, 0, None, 3], "flags": [1], "cur": 1})
    out = merge(base, mine, theirs)["exam_in_progress"]
    assert out["answers"] == [2, 0, None, 1]              # each from the tab that answered it (both: this tab's)
    assert out["flags"] == [1, 3] and out["cur"] == 3


def test_a_paper_submitted_in_the_other_tab_stays_ended_here():
    """This tab answered on after the other tab submitted: the paper does not come back."""
    exam = exam_state(2)
    base = set_exam_in_progress(record_visit(new_progress(), "exam"), exam)
    mine = set_exam_in_progress(base, {**exam, "answers": [1, None]})
    theirs = set_exam_in_progress(base, None)
    theirs = {**theirs, "exams": [{"at": "2026-03-01T09:10:00+09:00", "total": 2, "score": 1, "seconds": 60,
                                   "pace": 40, "by_topic": {"qkv": [1, 2]}, "run": exam["run"]}]}
    out = merge(base, mine, theirs)
    assert out["exam_in_progress"] is None and len(out["exams"]) == 1


def test_a_paper_submitted_in_both_tabs_counts_once():
    exam = exam_state(2)
    base = set_exam_in_progress(record_visit(new_progress(), "exam"), exam)

    def submitted(score: int, minute: int) -> dict:
        at = datetime(2026, 3, 1, 9, minute, tzinfo=timezone.utc)
        p = set_exam_in_progress(base, None)
        p = apply_answer(p, exam["qids"][0], "qkv", score > 0, 0, "exam", at)
        return {**p, "exams": [{"at": at.isoformat(), "total": 2, "score": score, "seconds": 60, "pace": 40,
                                "by_topic": {"qkv": [score, 2]}, "run": exam["run"]}]}

    mine, theirs = submitted(0, 12), submitted(1, 10)
    out = merge(base, mine, theirs)
    assert out["exams"] == theirs["exams"] and out["exam_in_progress"] is None
    assert out["attempts"] == theirs["attempts"]               # this tab's exam answers left out with its result
    other = {**submitted(1, 10), "exams": [{**theirs["exams"][0], "run": "00000000"}]}   # another paper
    assert len(merge(base, mine, other)["exams"]) == 2


def test_merge_of_the_unfinished_exam_takes_the_side_that_changed_it():
    exam = exam_state(1)
    base = set_exam_in_progress(new_progress(), exam)
    answered = set_exam_in_progress(base, {**exam, "answers": [2]})
    assert merge(base, base, answered)["exam_in_progress"] == answered["exam_in_progress"]
    assert merge(base, answered, base)["exam_in_progress"] == answered["exam_in_progress"]
    finished = set_exam_in_progress(base, None)
    assert merge(base, base, finished)["exam_in_progress"] is None


# ---------------------------------------------------------------------------
# ui.state and the browser's reports (a dict stands in for st.session_state)
# ---------------------------------------------------------------------------
FINGERPRINT_VECTORS = ["", "a", "foobar", "試験", "𝑄𝐾ᵀ/√d", '{"version":2,"visited":{"naive":true}}', "x" * 70_000]


def _node(script: str, payload) -> object:
    """Run ``script`` (an ES module importing ui/storage.js's exports) on ``payload`` (JSON on stdin)."""
    import subprocess
    out = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(payload),
                         capture_output=True, text=True, timeout=60, check=True,
                         cwd=Path(storage.__file__).parent)
    return json.loads(out.stdout)


NODE = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed (.ci/install-browser)")
READ_STDIN = "let raw = ''; for await (const c of process.stdin) raw += c; const input = JSON.parse(raw);"


@NODE
def test_the_javascript_fingerprint_is_the_python_one_on_shared_vectors():
    """One CRC-32 per language: ui/storage.js's fingerprint() and ui.wire.fingerprint agree."""
    got = _node("import { fingerprint } from './storage.js';" + READ_STDIN
                + "console.log(JSON.stringify(input.map(fingerprint)));", FINGERPRINT_VECTORS)
    assert got == [wire.fingerprint(t) for t in FINGERPRINT_VECTORS]


@NODE
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(QIDS), st.booleans(), st.integers(0, 3)), max_size=12),
       st.lists(st.tuples(st.sampled_from(QIDS), st.booleans(), st.integers(0, 3)), min_size=1, max_size=3))
def test_the_browser_applies_a_python_patch_to_the_exact_new_text(before, after):
    """ui.wire.patch (Python) makes hunks; ui/storage.js's patched() applies them: the new text."""
    old = dumps(play(new_progress(), [("answer", *a) for a in before], [T0]))
    new = dumps(play(json.loads(old), [("answer", *a) for a in after], [T0 + timedelta(days=1)]))
    hunks = wire.patch(old, new)
    if hunks is None:
        return
    got = _node("import { patched } from './storage.js';" + READ_STDIN
                + "console.log(JSON.stringify(patched(input.old, input.hunks)));", {"old": old, "hunks": hunks})
    assert got == new


def test_fingerprint_is_crc32_of_the_utf8_bytes():
    assert wire.fingerprint(None) == "none"
    assert wire.fingerprint("") == "00000000:0"
    assert wire.fingerprint("a") == "e8b7be43:1"
    assert wire.fingerprint("foobar") == "9ef61f95:6"
    assert wire.fingerprint("試験") == "f7099c42:6"
    assert wire.fingerprint("a\ud800b") == wire.fingerprint("a\ufffdb")   # as JavaScript's TextEncoder


def patched(text: str, hunks) -> str:
    """What the bridge's JavaScript patched() does with the hunks."""
    out, at = [], 0
    for start, end, piece in hunks:
        out += [text[at:start], piece]
        at = end
    return "".join(out + [text[at:]])


WEEKS = play(new_progress(), [("answer", QIDS[n % len(QIDS)], n % 3 == 0, n % 4) for n in range(80)], [T0])


@settings(max_examples=80, deadline=None)
@given(st.lists(OPS, max_size=12), st.lists(OPS, min_size=1, max_size=3))
def test_a_patch_turns_the_stored_text_into_the_new_one(before, after):
    start = play(WEEKS, before, [T0 + timedelta(days=5)])
    old, new = dumps(start), dumps(play(start, after, [T0 + timedelta(days=9)]))
    hunks = wire.patch(old, new)
    assert hunks is not None and patched(old, hunks) == new
    assert all(0 <= a <= b <= len(old) for a, b, _ in hunks)
    assert all(b <= c for (_, b, _), (c, _, _) in zip(hunks, hunks[1:]))   # in order, not overlapping


PIECES = st.lists(st.sampled_from(["{a},", "{b},", "{c},", "{a}", "x", "},", "試},", "{\ud800},"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(PIECES, PIECES)
def test_any_patch_made_gives_the_new_text_exactly(old, new):
    """Whatever the two texts (repeated objects, moved ones, a lone surrogate, none in common):
    a patch, when one is made, turns the old text into the new one, hunks in order."""
    old, new = "".join(old), "".join(new)
    hunks = wire.patch(old, new)
    if hunks is not None:
        assert patched(old, hunks) == new
        assert all(0 <= a <= b <= len(old) for a, b, _ in hunks)
        assert all(b <= c for (_, b, _), (c, _, _) in zip(hunks, hunks[1:]))
    assert wire.patch(old, old) == []


def test_an_answer_on_a_full_record_is_a_patch_of_a_few_hundred_bytes():
    progress = new_progress()
    for n in range(2_100):   # past the kept maximum: each answer also drops the oldest one
        qid = QIDS[n % len(QIDS)] + f"{n}"
        progress = apply_answer(progress, qid, qid.split(".")[1], n % 3 == 0, n % 4, "page", T0 + timedelta(minutes=n))
    old = dumps(progress)
    new = dumps(apply_answer(progress, QIDS[0], "qkv", True, 0, "page", T0 + timedelta(days=9)))
    hunks = wire.patch(old, new)
    assert patched(old, hunks) == new and len(json.dumps(hunks)) < 1_500 < len(new) // 100
    assert wire.patch(None, new) is None                       # nothing stored: the whole text
    assert wire.patch(old, new.replace("qkv", "q\U0001F600kv")) is None   # counted otherwise in JavaScript


@pytest.fixture
def session(monkeypatch):
    s: dict = {}
    fake = SimpleNamespace(session_state=s, context=SimpleNamespace(headers={"Host": "127.0.0.1"}))
    monkeypatch.setattr(state, "st", fake)
    monkeypatch.setattr(storage, "st", fake)
    state.init()
    return s


def gz(raw: bytes) -> str:
    """What the bridge's JavaScript reports for a long stored text: base64 of its gzip (mtime 0:
    the same bytes, so the same test ids, in every pytest process)."""
    return base64.b64encode(gzip.compress(raw, mtime=0)).decode("ascii")


def report(s: dict, **rep) -> None:
    sync = s[state.SYNC_KEY]
    s[storage.COMPONENT_KEY] = {"stored": {"nonce": sync.nonce, "ok": True, "aside": 0, **rep}}
    state._on_report()


def saved() -> dict:
    return play(new_progress(), [("answer", QIDS[0], False, 1), ("visit", "naive")], [T0])


def test_nothing_is_written_before_the_stored_record_arrived(session):
    sync = session[state.SYNC_KEY]
    assert sync.loaded is False and sync.browser is True
    state.set_progress(record_visit(state.get_progress(), "home"))   # (ui.page never does this before loading)
    state._queue_write(sync)
    assert sync.ops == []


def test_a_valid_stored_record_is_loaded_and_the_next_write_expects_it(session):
    text = dumps(saved())
    report(session, kind="read", text=text)
    sync = session[state.SYNC_KEY]
    assert sync.loaded and session[state.PROGRESS_KEY] == saved() and sync.ops == []
    state._queue_write(sync)
    assert sync.ops == []                                        # unchanged: nothing to write
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)
    (op,) = sync.ops
    assert op["op"] == "write" and op["expect"] == wire.fingerprint(text)
    assert json.loads(op["text"])["visited"] == {"naive": True, "home": True}


@pytest.mark.parametrize("text", ["{", json.dumps({**new_progress(), "version": 99}), "[" * 3000 + "]" * 3000,
                                  json.dumps({"version": 2, "pad": "x" * 1_100_000}), 42])
def test_an_unusable_stored_record_is_moved_aside_then_a_fresh_one_written(session, text):
    report(session, kind="read", text=text)
    sync = session[state.SYNC_KEY]
    assert "記録を読めなかったため、新しい記録で始めます" in sync.problem
    assert session[state.PROGRESS_KEY] == new_progress()
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)
    aside, write = sync.ops
    assert aside["op"] == "aside" and aside["expect"] == wire.fingerprint(text if isinstance(text, str) else "")
    assert write["op"] == "write" and write["expect"] == "none" and write["seq"] > aside["seq"]


def test_storage_refused_gives_the_notice_and_never_writes(session):
    report(session, kind="read", ok=False, text=None)
    sync = session[state.SYNC_KEY]
    assert sync.loaded and "このタブを閉じるまでしか残りません" in state.storage_status()["notice"]
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)
    assert sync.ops == []


def test_a_report_for_another_session_is_ignored(session):
    session[storage.COMPONENT_KEY] = {"stored": {"nonce": "old", "kind": "read", "ok": True, "text": dumps(saved())}}
    state._on_report()
    assert session[state.SYNC_KEY].loaded is False


@pytest.mark.parametrize("packed", [False, True])
def test_a_conflict_merges_the_other_tabs_record_and_writes_again(session, packed):
    base_text = dumps(saved())
    report(session, kind="read", text=base_text)
    sync = session[state.SYNC_KEY]
    state.set_progress(apply_answer(state.get_progress(), QIDS[1], "qkv", True, 0, "page", T0 + timedelta(hours=1)))
    state._queue_write(sync)
    first = sync.seq
    theirs = apply_answer(saved(), QIDS[4], "mask", False, 2, "page", T0 + timedelta(hours=2))
    carried = {"gz": gz(dumps(theirs).encode())} if packed else {"text": dumps(theirs)}   # (the JS gzips a long one)
    report(session, kind="conflict", seq=first, own_seq=None, **carried)
    assert sync.base == dumps(theirs)                            # what the browser holds now
    merged = session[state.PROGRESS_KEY]
    assert [a["qid"] for a in merged["attempts"]] == [QIDS[0], QIDS[1], QIDS[4]]
    state._queue_write(sync)
    op = sync.ops[-1]
    assert op["op"] == "write" and op["seq"] > first and op["expect"] == wire.fingerprint(dumps(theirs))
    assert len(json.loads(op["text"])["attempts"]) == 3


def test_a_conflict_brings_the_other_tabs_answers_to_this_tabs_paper_and_its_end(session):
    exam = exam_state(2)
    report(session, kind="read", text=dumps(set_exam_in_progress(saved(), exam)))
    sync = session[state.SYNC_KEY]
    assert session[state.EXAM_KEY] == exam
    session[state.EXAM_KEY] = {**exam, "answers": [1, None]}          # answered here
    state._queue_write(sync)
    theirs = set_exam_in_progress(saved(), {**exam, "answers": [None, 3]})    # answered there meanwhile
    report(session, kind="conflict", seq=sync.seq, own_seq=None, text=dumps(theirs))
    assert session[state.EXAM_KEY]["answers"] == [1, 3] and state.EXAM_ENDED_KEY not in session
    state._queue_write(sync)
    ended = set_exam_in_progress(saved(), None)                        # then submitted there
    report(session, kind="conflict", seq=sync.seq, own_seq=sync.seq, text=dumps(ended))
    assert session[state.EXAM_KEY] is None and session[state.EXAM_ENDED_KEY] is True
    assert session[state.PROGRESS_KEY]["exam_in_progress"] is None


@pytest.mark.parametrize("kind", ["conflict", "changed"])
def test_an_unreadable_record_of_another_tab_is_moved_aside_and_this_tabs_whole_record_written(session, kind):
    """Issue 42 row 1: met by this tab's write (conflict) or heard of from another tab (changed),
    an unreadable record is never taken for an empty one ("cleared"): this tab keeps every answer,
    the text is moved aside, and this tab's whole record is written next, over nothing (expect none)."""
    report(session, kind="read", text=dumps(saved()))
    sync = session[state.SYNC_KEY]
    state.set_progress(apply_answer(state.get_progress(), QIDS[1], "qkv", True, 0, "page", T0 + timedelta(hours=1)))
    state._queue_write(sync)
    mine = state.get_progress()
    report(session, kind=kind, seq=sync.seq, text="{", own_seq=None)
    assert "読めない記録が書き込まれていました" in sync.problem and "解答 2 件" in sync.problem
    assert sync.base is None and sync.confirmed_fp == "none"
    assert sync.ops[-1] == {"op": "aside", "expect": wire.fingerprint("{"), "seq": sync.seq}
    assert state.get_progress() == mine                                # nothing dropped, nothing "cleared"
    state._queue_write(sync)                                           # the report's rerun
    write = sync.ops[-1]
    assert write["op"] == "write" and write["expect"] == "none" and write["seq"] > sync.ops[-2]["seq"]
    assert [a["qid"] for a in json.loads(write["text"])["attempts"]] == [QIDS[0], QIDS[1]]
    assert "patch" not in state._command(sync)["ops"][-1]              # whole: nothing to patch against


def test_another_tabs_write_heard_of_is_merged_and_not_written_back(session):
    """Issue 42 row 4: "changed" (the storage event) brings another tab's record into this tab's view;
    a record that holds all of this tab's is taken as it is (no write back: no ping-pong between
    tabs); one that dropped this tab's last write (a stale copy written over it) is merged and
    written again at once (row 3)."""
    report(session, kind="read", text=dumps(saved()))
    sync = session[state.SYNC_KEY]
    theirs = apply_answer(saved(), QIDS[4], "mask", False, 2, "page", T0 + timedelta(hours=2))
    report(session, kind="changed", text=dumps(theirs), own_seq=None)
    assert state.get_progress() == theirs and sync.confirmed_fp == wire.fingerprint(dumps(theirs))
    state._queue_write(sync)
    assert sync.ops == []                                              # nothing written back
    state.set_progress(apply_answer(state.get_progress(), QIDS[1], "qkv", True, 0, "page", T0 + timedelta(hours=3)))
    state._queue_write(sync)
    own = sync.seq                                                     # written (the browser says so in own_seq)
    report(session, kind="changed", text=dumps(saved()), own_seq=own)  # a stale copy written over it
    kept = [a["qid"] for a in state.get_progress()["attempts"]]
    assert kept == [QIDS[0], QIDS[4], QIDS[1]]
    state._queue_write(sync)
    assert sync.ops[-1]["seq"] > own and json.loads(sync.ops[-1]["text"])["attempts"] == state.get_progress()["attempts"]


def test_a_retry_from_a_late_card_queues_the_write_again_whole(session):
    """Issue 42 row 2: the card's marker asks again after 6 s (its command or the report may have
    been lost): a new write of the same record, sent whole, for which the card waits."""
    report(session, kind="read", text=dumps(saved()))
    sync = session[state.SYNC_KEY]
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)
    state._command(sync)
    first = sync.seq
    state._on_retry()
    state._queue_write(sync)
    op = state._command(sync)["ops"][-1]
    assert op["seq"] > first and "text" in op and json.loads(op["text"])["visited"]["home"] is True


def test_a_conflict_after_own_writes_uses_the_last_own_write_as_the_common_record(session):
    report(session, kind="read", text=None)
    sync = session[state.SYNC_KEY]
    state.set_progress(apply_answer(state.get_progress(), QIDS[0], "qkv", True, 0, "page", T0))
    state._queue_write(sync)
    own = sync.seq                                    # written (the browser says so in own_seq)
    written = copy.deepcopy(state.get_progress())
    state.set_progress(apply_answer(state.get_progress(), QIDS[1], "qkv", True, 0, "page", T0 + timedelta(hours=1)))
    state._queue_write(sync)
    theirs = apply_answer(written, QIDS[4], "mask", True, 0, "page", T0 + timedelta(hours=2))
    report(session, kind="conflict", seq=sync.seq, text=dumps(theirs), own_seq=own)
    assert [a["qid"] for a in session[state.PROGRESS_KEY]["attempts"]] == [QIDS[0], QIDS[1], QIDS[4]]  # not twice


def test_quota_failure_gives_the_quota_notice_and_saving_resumes_when_space_is_freed(session):
    report(session, kind="read", text=None)
    sync = session[state.SYNC_KEY]
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)
    report(session, kind="failed", seq=sync.seq, error="QuotaExceededError")
    assert "保存容量がいっぱい" in state.storage_status()["notice"]
    state.set_progress(record_visit(state.get_progress(), "naive"))
    state._queue_write(sync)                                   # the next change is tried again
    assert sync.ops[-1]["op"] == "write" and json.loads(sync.ops[-1]["text"])["visited"] == {
        "home": True, "naive": True}
    report(session, kind="saved", seq=sync.seq)             # it got through: space was freed
    assert state.storage_status()["notice"] == ""


def test_a_full_store_is_read_and_said_to_be_full_not_private(session):
    """A store with no room left still reads: the record in it is loaded (a new tab sees it)."""
    report(session, kind="read", text=dumps(saved()), full=True)
    assert state.get_progress()["attempts"] == saved()["attempts"]
    status = state.storage_status()
    assert "保存容量がいっぱい" in status["notice"] and "プライベート" not in status["notice"]


def test_a_failed_move_aside_stops_writing_over_the_unreadable_record(session):
    report(session, kind="read", text="{")
    aside = session[state.SYNC_KEY].ops[-1]
    report(session, kind="failed", seq=aside["seq"], error="QuotaExceededError")
    sync = session[state.SYNC_KEY]
    assert sync.failure == "aside" and sync.ok is False
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)
    assert all(op["op"] != "write" for op in sync.ops)


def test_the_unfinished_exam_is_saved_and_restored(session):
    exam = exam_state(2, answers=[1, None], flags=[1], cur=1)
    report(session, kind="read", text=dumps(set_exam_in_progress(saved(), exam)))
    assert session[state.EXAM_KEY] == exam                      # back in st.session_state["exam"]
    sync = session[state.SYNC_KEY]
    session[state.EXAM_KEY] = {**exam, "answers": [1, 3]}
    state._queue_write(sync)
    assert json.loads(sync.ops[-1]["text"])["exam_in_progress"]["answers"] == [1, 3]
    session[state.EXAM_KEY] = {"started_at": datetime.now()}    # not a storable state: the last good one stays
    state._queue_write(sync)
    assert state.get_progress()["exam_in_progress"]["answers"] == [1, 3]
    session[state.EXAM_KEY] = {**exam, "v": 7}                 # not a valid one either
    state._queue_write(sync)
    assert state.get_progress()["exam_in_progress"]["answers"] == [1, 3]
    session[state.EXAM_KEY] = None                              # finished
    state._queue_write(sync)
    assert json.loads(sync.ops[-1]["text"])["exam_in_progress"] is None


def test_clearing_the_device_empties_the_record_and_asks_the_browser_to_remove_it(session):
    report(session, kind="read", text=dumps(saved()))
    assert state.clear_device() == state.CLEARED
    sync = session[state.SYNC_KEY]
    assert session[state.PROGRESS_KEY] == new_progress() and sync.ops[-1]["op"] == "clear"
    assert sync.confirmed_fp == "none"


def test_clearing_where_the_browser_keeps_nothing_says_so_and_asks_nothing(session):
    report(session, kind="read", ok=False)                        # private mode / storage off
    assert state.clear_device() == state.NOT_CLEARED
    assert session[state.PROGRESS_KEY] == new_progress()          # this tab's progress is cleared
    assert all(op["op"] != "clear" for op in session[state.SYNC_KEY].ops)


@pytest.mark.parametrize("error", ["QuotaExceededError", "aside"])
def test_clearing_a_full_store_removes_the_record_and_saving_starts_again(session, error):
    report(session, kind="read", text="{")                        # unreadable: moved aside …
    report(session, kind="failed", seq=1, error=error)            # … but the store was full
    sync = session[state.SYNC_KEY]
    assert sync.ok is False and sync.failure in ("quota", "aside")
    assert state.clear_device() == state.CLEARED
    assert sync.ops[-1]["op"] == "clear" and sync.ok is True and sync.failure == ""
    state.set_progress(record_visit(state.get_progress(), "home"))
    state._queue_write(sync)                                      # the next change is written again
    assert sync.ops[-1]["op"] == "write"


def test_the_bridge_javascript_is_fixed_code_that_never_runs_or_renders_data():
    """What the browser keeps is handed around as data: no eval, no HTML built from it (every .js
    file under ui/: tests/test_security.py::test_browser_code_never_renders_data_or_runs_text)."""
    assert storage.STORE_KEY in storage._JS and storage.ASIDE_KEY in storage._JS and storage.ASIDE_KEY in storage._DOWNLOAD_JS
    assert f"PACK_UP_TO = {storage.PACK_UP_TO};" in storage._JS      # what the JS gzips, Python unpacks
    # the mounted data is a plain command object: the record travels as a JSON string, never as code
    session = {}
    fake = SimpleNamespace(session_state=session, context=SimpleNamespace(headers={"Host": "x"}))
    state.st, storage.st, saved_st = fake, fake, state.st
    try:
        state.init()
        cmd = state._command(session[state.SYNC_KEY])
    finally:
        state.st = storage.st = saved_st
    assert set(cmd) == {"nonce", "read", "plain", "ops", "run"} and cmd["read"] is True


def test_a_read_that_arrives_after_giving_up_is_still_merged_in(session):
    sync = session[state.SYNC_KEY]
    sync.loaded, sync.ok, sync.failure = True, False, "silent"      # what _waiting does
    state.set_progress(apply_answer(state.get_progress(), QIDS[1], "qkv", True, 0, "page", T0 + timedelta(hours=1)))
    report(session, kind="read", text=dumps(saved()))
    assert sync.ok and sync.failure == ""
    assert [a["qid"] for a in session[state.PROGRESS_KEY]["attempts"]] == [QIDS[0], QIDS[1]]


def test_a_write_goes_out_once_as_a_patch_and_whole_only_when_the_browser_asks(session, monkeypatch):
    """Every full-page run mounts the bridge again: a record of hundreds of kB must not ride
    along with each of them. The first command holding a write carries it — as a patch of the
    text the browser holds — later ones name it by seq; a browser that never ran it, or holds
    another text, reports "resend" and gets the whole text."""
    mounts = []
    monkeypatch.setattr(storage, "mount", lambda data, on_report, key=storage.COMPONENT_KEY: mounts.append((key, data)))
    stored = dumps(WEEKS)
    report(session, kind="read", text=stored)
    sync = session[state.SYNC_KEY]
    state.set_progress(record_visit(state.get_progress(), "home"))
    state.flush(key="card_store")                                   # an answer in a card's fragment
    (key, first), = mounts
    (write,) = first["ops"]
    now = dumps(state.get_progress())
    assert key == "card_store" and "text" not in write and write["expect"] == wire.fingerprint(stored)
    assert write["patch"]["base"] == wire.fingerprint(stored) and write["patch"]["fp"] == wire.fingerprint(now)
    assert patched(stored, write["patch"]["hunks"]) == now and len(json.dumps(write)) < len(now) // 10
    assert state.sync() is True                                     # the next full-page run
    named = {"op": "write", "seq": write["seq"], "expect": write["expect"]}
    assert mounts[-1][0] == storage.COMPONENT_KEY and mounts[-1][1]["ops"] == [named]
    state.flush(key="card_store")                                   # nothing new: the card mounts nothing
    assert len(mounts) == 2
    report(session, kind="resend", seq=write["seq"])                # this browser never ran it
    state.flush(key="card_store")                                   # (the report's rerun, in the card)
    assert mounts[-1][0] == "card_store" and mounts[-1][1]["ops"] == [{**named, "text": now}]
    assert state.sync() and mounts[-1][1]["ops"] == [named]         # and once only
    # The browser keeps only a run's last command, and quick clicks can interrupt the run that sent
    # the text again. Each command is new all the same ("run"), so the bridge runs on every run, meets
    # the write it still lacks and asks again; the same command twice would not reach it.
    assert state.sync() and mounts[-1][1]["ops"] == mounts[-2][1]["ops"] == [named]
    assert mounts[-1][1]["run"] > mounts[-2][1]["run"] > mounts[-3][1]["run"]
    state.set_progress(record_visit(state.get_progress(), "qkv"))
    assert state.sync()                                             # a newer write supersedes it
    (newer,) = mounts[-1][1]["ops"]
    assert newer["seq"] > write["seq"] and newer["patch"]["base"] == wire.fingerprint(now)
    assert json.loads(patched(now, newer["patch"]["hunks"]))["visited"]["qkv"] is True
    assert sync.text_out == {newer["seq"]}
    report(session, kind="resend", seq=write["seq"])                # a late ask for the superseded one
    assert state.sync() and mounts[-1][1]["ops"] == [{k: v for k, v in newer.items() if k != "patch"}]
    state.set_progress(record_visit(state.get_progress(), "mask"))
    assert state.sync() and "text" in mounts[-1][1]["ops"][0]       # (what the browser holds is not known now)


def test_a_session_older_than_the_text_bookkeeping_goes_on_without_sending_again(session, monkeypatch):
    monkeypatch.setattr(storage, "mount", lambda *a, **k: None)
    report(session, kind="read", text=dumps(saved()))
    state.set_progress(record_visit(state.get_progress(), "home"))
    state.sync()
    old = dict(vars(session[state.SYNC_KEY]))                    # the app's code updated under the session:
    del old["text_out"]                                             # a dict older than the text bookkeeping
    session[state.SYNC_KEY] = old
    assert "text" not in state._command(state._sync_state())["ops"][0]
    assert isinstance(session[state.SYNC_KEY], state.Sync)



def test_a_long_stored_record_read_gzipped_is_loaded_as_it_was(session):
    """The browser gzips a long stored text before reporting it (a phone's uplink is slow)."""
    text = dumps(WEEKS)
    packed = gz(text.encode("utf-8"))
    assert len(packed) < len(text) // 4
    report(session, kind="read", gz=packed)
    sync = session[state.SYNC_KEY]
    assert sync.loaded and not sync.problem and session[state.PROGRESS_KEY] == WEEKS
    assert sync.confirmed_fp == wire.fingerprint(text) and sync.base == text


@pytest.mark.parametrize("packed, reason", [
    (42, "文字列ではありません"),
    ("not base64!", "展開できませんでした"),
    (base64.b64encode(b"plain text").decode(), "展開できませんでした"),
    (gz(b'{"version": 2}')[:-12], "途中で切れています"),
    (gz(b" " * 3_000_001), "大きすぎる"),
    (gz(b"\xff\xfe{}"), "UTF-8 ではありません"),
    (gz(b'{"version": 2}'), "記録を読めなかったため"),
])
def test_a_gzipped_read_that_is_not_a_usable_record_gives_a_reason_and_a_fresh_start(session, packed, reason):
    """A gzip that does not unpack is first taken for a broken transport (a script in the page can
    fake CompressionStream): the record is asked for again, uncompressed, and only a second broken
    report is judged. A gzip that unpacks to an unusable record is judged at once."""
    sync = session[state.SYNC_KEY]
    report(session, kind="read", gz=packed)
    if reason != "記録を読めなかったため":
        assert not sync.loaded and sync.plain and sync.problem == ""
        assert state._command(sync)["read"] is True and state._command(sync)["plain"] is True
        report(session, kind="read", gz=packed)
    assert sync.loaded and reason in sync.problem and session[state.PROGRESS_KEY] == new_progress()
    assert sync.base is None and sync.confirmed_fp == "none"


def test_a_broken_gzip_then_the_plain_record_loads_it_with_no_message(session):
    sync = session[state.SYNC_KEY]
    report(session, kind="read", gz="not base64!")
    report(session, kind="read", text=dumps(WEEKS))
    assert sync.loaded and sync.problem == "" and session[state.PROGRESS_KEY] == WEEKS
    assert sync.ops == []                                        # nothing was moved aside


def test_a_conflict_with_a_broken_gzip_is_met_again_plainly_and_then_merged(session):
    report(session, kind="read", text=dumps(saved()))
    sync = session[state.SYNC_KEY]
    state.set_progress(apply_answer(state.get_progress(), QIDS[1], "qkv", True, 0, "page", T0 + timedelta(hours=1)))
    state._queue_write(sync)
    first = sync.seq
    report(session, kind="conflict", seq=first, own_seq=None, gz="not base64!")
    assert sync.problem == "" and sync.plain and [o["op"] for o in sync.ops] == ["write"]
    state._queue_write(sync)                                        # the report's rerun writes again…
    assert sync.ops[-1]["seq"] > first
    theirs = apply_answer(saved(), QIDS[4], "mask", False, 2, "page", T0 + timedelta(hours=2))
    report(session, kind="conflict", seq=sync.seq, own_seq=None, text=dumps(theirs))   # …and meets it plainly
    assert [a["qid"] for a in session[state.PROGRESS_KEY]["attempts"]] == [QIDS[0], QIDS[1], QIDS[4]]


# ---------------------------------------------------------------------------
# issue 42 row 6: a file from another device is joined, never put in place of this record
# ---------------------------------------------------------------------------
@settings(max_examples=60)
@given(HISTORIES)
def test_join_keeps_every_answer_of_both_devices_once(h):
    """Two devices that share some history (a file exported from one and read on the other, then
    both went on): the join holds each answer as often as the side that has it most."""
    from practice.progress import join, join_counts
    shared, a_ops, b_ops = h
    clock = [T0]
    start = play(new_progress(), shared, clock)
    laptop = play(start, a_ops, clock)
    phone = play(start, b_ops, clock)
    joined = join(laptop, phone)
    got = attempts(joined)
    assert got == attempts(laptop) | attempts(phone)
    assert set(joined["visited"]) == set(laptop["visited"]) | set(phone["visited"])
    assert validate_progress(copy.deepcopy(joined)) == joined
    counts = join_counts(laptop, joined)
    assert counts["attempts"] == sum((attempts(phone) - attempts(laptop)).values()) and counts["dropped"] == 0
    assert join(laptop, laptop)["attempts"] == laptop["attempts"]        # a file of this very record adds nothing


def test_join_takes_the_files_changed_settings_and_its_unfinished_exam():
    from practice.progress import join
    laptop = set_setting(saved(), "exam_date", "2026-05-01")
    phone = set_exam_in_progress(set_setting(new_progress(), "retention", 0.95), exam_state(2))
    joined = join(laptop, phone)
    assert joined["settings"]["retention"] == 0.95 and joined["settings"]["exam_date"] == "2026-05-01"
    assert joined["exam_in_progress"]["run"] == exam_state(2)["run"]
    assert join(phone, laptop)["exam_in_progress"]["run"] == exam_state(2)["run"]   # (none in the file: kept)


# ---------------------------------------------------------------------------
# issue 42 row 5: the backup file's reminder
# ---------------------------------------------------------------------------
def test_a_backup_is_due_with_answers_and_none_yet_or_a_week_or_fifty_answers_old():
    from practice.store import BACKUP_EVERY_ANSWERS, backup_due, backup_text, parse_backup
    now = T0 + timedelta(days=30)
    assert backup_due(0, None, now) is False                           # nothing to lose yet
    assert backup_due(1, None, now) is True
    recent = parse_backup(backup_text(now - timedelta(days=2), 10))
    assert recent == (now - timedelta(days=2), 10)
    assert backup_due(10, recent, now) is False and backup_due(11, recent, now) is False
    assert backup_due(10 + BACKUP_EVERY_ANSWERS, recent, now) is True
    week = parse_backup(backup_text(now - timedelta(days=7), 10))
    assert backup_due(10, week, now) is False and backup_due(12, week, now) is True   # a week, and answers since
    for junk in [None, 3, "", "{", '{"at": "2026-03-01T09:00:00", "answers": 1}', '{"at": "x", "answers": 1}',
                 '{"at": "2026-03-01T09:00:00+09:00", "answers": -1}', '{"at": "2026-03-01T09:00:00+09:00"}',
                 '{"at": "2026-03-01T09:00:00+09:00", "answers": true}', "x" * 500]:
        assert parse_backup(junk) is None


def test_a_saved_backup_is_noted_in_the_browser_and_read_back(session):
    report(session, kind="read", text=dumps(saved()), backup=None)
    assert state.storage_status()["backup_due"] is True               # an answer, no backup yet
    state.mark_backup()
    sync = session[state.SYNC_KEY]
    op = sync.ops[-1]
    assert op["op"] == "backup" and json.loads(op["text"])["answers"] == 1
    assert state.storage_status()["backup_due"] is False
    other = {}
    fake = SimpleNamespace(session_state=other, context=SimpleNamespace(headers={"Host": "127.0.0.1"}))
    saved_st = state.st
    state.st = storage.st = fake
    try:
        state.init()
        report(other, kind="read", text=dumps(saved()), backup=op["text"], safari=True, locks=False, persist="denied")
        status = state.storage_status()
    finally:
        state.st = storage.st = saved_st
    assert status["backup_due"] is False and status["safari"] and status["locks"] is False
    assert status["persist"] == "denied"
