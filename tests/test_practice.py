"""practice/: the FSRS review schedule, mock-exam assembly, scoring and clock,
the progress schema, export → import, and the migration of schema-1 (Leitner) files. Pure Python."""
from __future__ import annotations

import copy
import json
import time
import re
from collections import Counter
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import quizzes
from practice import exam as ex
from practice import review as rv
from practice import store
from practice.progress import (MAX_ATTEMPTS_KEPT, apply_answer, apply_answers, drop_review, is_mastered,
                               new_progress, overall, path_counts, record_attempt, record_visit,
                               set_exam_in_progress, suggest_page, to_master, topic_stats, set_setting,
                               weak_topics)
from practice.store import ProgressError, export_bytes, parse_progress_bytes
from quizzes.core import GENERATOR_INFO, TOPICS

from practice_fakes import CALC_PER_TOPIC, KNOW_PER_TOPIC, _know_draft, fake_registry

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
D0 = date(2026, 3, 1)
T0 = datetime(2026, 3, 1, 9, 0, 0)


@pytest.fixture(autouse=True)
def fakes(request):
    """Every test runs on the known fake registry, except test_real_* (the real questions)."""
    if request.node.name.startswith("test_real_"):
        yield
        return
    with fake_registry():
        yield


def day(n: int) -> date:
    return D0 + timedelta(days=n)


# ---------------------------------------------------------------------------
# FSRS schedule
# ---------------------------------------------------------------------------
def due_day(item) -> date:
    return rv.due_date(item)


def test_fsrs_wrong_answer_is_due_today_and_right_reviews_push_it_further_out():
    qid = "zz.qkv.calc0#1"
    sched = rv.schedule_wrong({}, qid, "qkv", T0)
    item = sched[qid]
    assert item["topic"] == "qkv" and item["state"] == 1 and item["reps"] == 1 and item["lapses"] == 0
    assert due_day(item) == D0 and rv.due_items(sched, D0) == [qid]   # part of today's review
    # right in review, day after day when due: each interval is longer than the one before
    when, gaps = T0, []
    for _ in range(6):
        when = max(when + timedelta(minutes=1), datetime.fromisoformat(sched[qid]["due"]).replace(tzinfo=None))
        sched = rv.review_answer(sched, qid, True, when)
        gaps.append(datetime.fromisoformat(sched[qid]["due"]).replace(tzinfo=None) - when)
    assert gaps == sorted(gaps) and gaps[-1] > timedelta(days=14) and sched[qid]["state"] == 2
    assert sched[qid]["lapses"] == 0 and sched[qid]["reps"] == 7


JST = timezone(timedelta(hours=9))


def test_a_question_missed_just_before_midnight_is_that_days_review_until_it_is_answered():
    qid = "zz.qkv.calc0#1"
    late = datetime(2026, 3, 1, 23, 59, 30, tzinfo=JST)
    sched = rv.schedule_wrong({}, qid, "qkv", late)       # Again: due one minute later, past midnight
    assert datetime.fromisoformat(sched[qid]["due"]).astimezone(JST).date() == day(1)
    assert rv.due_date(sched[qid], JST) == D0 and rv.due_items(sched, D0, JST) == [qid]
    assert rv.due_within(sched, D0, 7, JST) == 0          # never listed as "due tomorrow"
    assert rv.due_items(sched, day(3), JST) == [qid]      # not answered that night: due until it is
    # right at 23:55 on the first learning step: the next step is ten minutes later, still that day's
    sched = rv.review_answer(rv.schedule_wrong({}, qid, "qkv", late - timedelta(minutes=9)), qid, True,
                             late - timedelta(minutes=4, seconds=30))
    assert sched[qid]["state"] == 1 and sched[qid]["step"] == 1
    assert datetime.fromisoformat(sched[qid]["due"]).astimezone(JST).date() == day(1)
    assert rv.due_date(sched[qid], JST) == D0 and rv.due_count(sched, D0, JST) == 1


def test_due_days_are_the_learners_calendar_days_not_the_servers():
    item = rv.from_box("qkv", 3, "2026-03-02", 0)         # a review card due at 00:00 UTC on 2 March
    new_york, sched = timezone(-timedelta(hours=5)), {"zz.qkv.calc0#1": item}
    assert rv.due_date(item, timezone.utc) == day(1) and rv.due_date(item, JST) == day(1)
    assert rv.due_date(item, new_york) == D0                # 19:00 on 1 March there
    assert rv.due_items(sched, D0, new_york) == ["zz.qkv.calc0#1"] and rv.due_items(sched, D0, timezone.utc) == []
    assert rv.due_within(sched, D0, 7, timezone.utc) == 1 and rv.due_within(sched, D0, 7, new_york) == 0
    assert rv.next_due(sched, new_york) == date(2026, 3, 1) and rv.next_due(sched, JST) == date(2026, 3, 2)


def test_fsrs_wrong_in_review_counts_a_lapse_and_comes_back_today():
    qid = "zz.mask.calc0#1"
    sched = rv.schedule_wrong({}, qid, "mask", T0)
    for k in range(3):
        sched = rv.review_answer(sched, qid, True, T0 + timedelta(days=k, minutes=20))
    assert sched[qid]["state"] == 2 and due_day(sched[qid]) > day(3)
    after = rv.review_answer(sched, qid, False, T0 + timedelta(days=4))
    assert after[qid]["lapses"] == 1 and after[qid]["state"] == 3 and due_day(after[qid]) == day(4)
    assert after[qid]["stability"] < sched[qid]["stability"]
    assert sched[qid]["lapses"] == 0  # the input is not changed


def test_fsrs_mapping_is_again_for_wrong_good_for_right():
    assert rv.rating_for(False) == rv.Rating.Again and rv.rating_for(True) == rv.Rating.Good
    qid = "zz.qkv.calc0#1"
    base = rv.schedule_wrong({}, qid, "qkv", T0)
    base = rv.review_answer(base, qid, True, T0 + timedelta(minutes=5))
    base = rv.review_answer(base, qid, True, T0 + timedelta(minutes=20))
    when = T0 + timedelta(days=2)
    sched = rv._scheduler(rv.DEFAULT_RETENTION)
    for correct, rating in ((True, rv.Rating.Good), (False, rv.Rating.Again)):
        card, _ = sched.review_card(rv._card(base[qid]), rating, rv.as_utc(when))
        ours = rv.review_answer(base, qid, correct, when)[qid]
        assert ours["due"] == rv._iso(card.due) and ours["state"] == int(card.state)


def test_higher_desired_retention_means_shorter_intervals():
    qid = "zz.qkv.calc0#1"
    dues = []
    for r in rv.RETENTIONS:
        s = rv.schedule_wrong({}, qid, "qkv", T0, r)
        for k in range(4):
            s = rv.review_answer(s, qid, True, T0 + timedelta(days=k, minutes=20), r)
        dues.append(s[qid]["due"])
    assert dues == sorted(dues, reverse=True) and len(set(dues)) == len(dues)


def test_due_items_order_and_state_counts():
    s = rv.schedule_wrong({}, "zz.qkv.calc0#2", "qkv", T0)
    s = rv.schedule_wrong(s, "zz.qkv.calc0#1", "qkv", T0 + timedelta(days=2))
    s = rv.schedule_wrong(s, "zz.naive.calc1#3", "naive", T0 + timedelta(hours=1))
    assert rv.state_counts(s) == {1: 3, 2: 0, 3: 0}
    assert rv.due_items(s, D0) == ["zz.qkv.calc0#2", "zz.naive.calc1#3"]   # earliest due first
    assert rv.due_items(s, day(2))[-1] == "zz.qkv.calc0#1" and rv.due_count(s, day(2)) == 3
    assert rv.next_due(s) == D0 and rv.next_due({}) is None
    assert rv.drop(s, "zz.qkv.calc0#2").keys() == {"zz.qkv.calc0#1", "zz.naive.calc1#3"}


def test_review_answer_unknown_item_raises():
    with pytest.raises(KeyError):
        rv.review_answer({}, "zz.qkv.calc0#1", True, D0)


def test_schedule_is_capped_and_keeps_the_new_wrong_answer():
    s = {}
    for i in range(rv.MAX_ITEMS):
        s[f"zz.qkv.calc0#{i}"] = rv.from_box("qkv", 1 + i % 5, "2026-03-01", 0)
    out = rv.schedule_wrong(s, "zz.naive.calc0#1", "naive", D0)
    assert len(out) == rv.MAX_ITEMS and "zz.naive.calc0#1" in out
    gone = set(s) - set(out)
    assert len(gone) == 1 and s[gone.pop()]["stability"] == 14.0  # the best-remembered left, not a weak one


@pytest.mark.parametrize("box", range(1, 6))
def test_schema_1_box_maps_onto_an_fsrs_card_keeping_its_due_day(box):
    item = rv.from_box("qkv", box, "2026-03-10", 2)
    assert rv.due_date(item) == date(2026, 3, 10) and item["lapses"] == 2
    if box == 1:
        assert item["state"] == 1 and item["stability"] is None
    else:
        assert item["state"] == 2 and item["stability"] == rv.LEGACY_INTERVAL_DAYS[box - 1]
    # FSRS can review it: right on its due day pushes it out by more than its old box interval
    after = rv.review_answer({"zz.qkv.calc0#1": item}, "zz.qkv.calc0#1", True, datetime(2026, 3, 10, 9))
    assert rv.due_date(after["zz.qkv.calc0#1"]) >= date(2026, 3, 10) + timedelta(days=rv.LEGACY_INTERVAL_DAYS[box - 1])


# ---------------------------------------------------------------------------
# today's share: at most the daily limit, the most overdue first
# ---------------------------------------------------------------------------
def _pile(days_overdue: dict[str, int]) -> dict:
    """Review cards due ``days`` before D0 (negative: after D0), each a schema-1 box-3 card."""
    return {qid: rv.from_box(qid.split(".")[1], 3, (D0 - timedelta(days=d)).isoformat(), 0)
            for qid, d in days_overdue.items()}


_SHARE_QIDS = [f"zz.{t}.calc{k}#{s}" for t in ("qkv", "mask") for k in (0, 1) for s in range(10)]


@settings(max_examples=200, deadline=None)
@given(overdue=hs.dictionaries(hs.sampled_from(_SHARE_QIDS), hs.integers(-5, 60), max_size=len(_SHARE_QIDS)),
       limit=hs.integers(0, 45), started=hs.sets(hs.sampled_from(_SHARE_QIDS), max_size=12),
       shuffle=hs.randoms(use_true_random=False))
def test_todays_share_never_exceeds_the_limit_and_takes_the_most_overdue_first(overdue, limit, started, shuffle):
    pile = _pile(overdue)
    due = rv.due_items(pile, D0)
    share = rv.todays_share(pile, D0, None, limit, started)
    assert len(share) <= limit
    assert share == [q for q in due if q in set(share)]                  # a part of the pile, in its order
    fresh = [q for q in share if q not in started]
    rest = [q for q in due if q not in started]
    assert fresh == rest[:len(fresh)]                                     # the most overdue of the others
    if len(started) <= limit:                                            # each question reviewed today takes a place
        assert len(fresh) == min(limit - len(started), len(rest))
        assert set(due) & started <= set(share)                          # one that came back is finished today
    if not started:
        assert share == due[:limit]
    items = list(pile.items())
    shuffle.shuffle(items)
    assert rv.todays_share(dict(items), D0, None, limit, started) == share   # stable: not the dict's order
    assert set(share) <= set(rv.todays_share(pile, D0, None, limit + 10, started))   # a higher limit only adds


def test_62_overdue_questions_are_spread_over_three_days_oldest_first():
    skills = sorted(GENERATOR_INFO)[:62]                     # one card per skill (practice.skill)
    pile = _pile({g: 10 + (i * 7) % 40 for i, g in enumerate(skills)})
    assert rv.due_count(pile, D0) == 62
    share = rv.todays_share(pile, D0, None, 30)
    assert len(share) == 30 == rv.DEFAULT_DAILY_LIMIT and share == rv.due_items(pile, D0)[:30]
    oldest_left = min(datetime.fromisoformat(pile[q]["due"]) for q in pile if q not in share)
    assert all(datetime.fromisoformat(pile[q]["due"]) <= oldest_left for q in share)
    # answered right today (a fresh instance of each skill): today's share is done, the other 32 wait
    p = new_progress()
    p["review"] = pile
    p = apply_answers(p, [(f"{q}#{i}", q.split(".")[1], True, 0) for i, q in enumerate(share)], "review", T0)
    done = rv.reviewed_on(p["attempts"], D0)
    assert done == set(share) and rv.todays_share(p["review"], D0, None, 30, done) == []
    assert rv.due_count(p["review"], D0) == 32
    # the next day: the next 30, oldest first; the day after: the last 2
    tomorrow = rv.todays_share(p["review"], day(1), None, 30, rv.reviewed_on(p["attempts"], day(1)))
    assert tomorrow == [q for q in rv.due_items(pile, D0) if q not in share][:30]
    p = apply_answers(p, [(f"{q}#7", q.split(".")[1], True, 0) for q in tomorrow], "review", T0 + timedelta(days=1))
    assert len(rv.todays_share(p["review"], day(2), None, 30, rv.reviewed_on(p["attempts"], day(2)))) == 2


def test_a_question_missed_in_review_stays_in_todays_share():
    pile = _pile({g: 5 for g in ("zz.qkv.calc0", "zz.qkv.calc1", "zz.qkv.know0", "zz.qkv.know1")})
    p = new_progress()
    p["review"] = pile
    first = rv.todays_share(pile, D0, None, 2)
    assert first == ["zz.qkv.calc0", "zz.qkv.calc1"]
    p = apply_answers(p, [(first[0] + "#11", "qkv", False, 1), (first[1] + "#12", "qkv", True, 0)], "review", T0)
    done = rv.reviewed_on(p["attempts"], D0)
    assert done == set(first)                                                # skills, not the instances shown
    assert rv.todays_share(p["review"], D0, None, 2, done) == [first[0]]     # back within minutes; no new one
    assert rv.todays_share(p["review"], D0, None, 3, done) == ["zz.qkv.know0", first[0]]


def test_reviewed_on_counts_review_answers_of_the_learners_day():
    at = lambda dt, src="review", qid="zz.qkv.calc0#1": {"qid": qid, "topic": "qkv", "correct": True, "choice": 0,
                                                        "at": dt.isoformat(), "source": src}
    attempts = [at(datetime(2026, 3, 1, 23, 30, tzinfo=JST)),                       # 1 March in Tokyo
                at(datetime(2026, 3, 1, 15, 0, tzinfo=timezone.utc), qid="zz.qkv.calc1#2"),   # 2 March 00:00 in Tokyo
                at(datetime(2026, 3, 1, 10, 0, tzinfo=JST), "page", "zz.qkv.know0#3"),  # not in 今日の復習
                at(datetime(2026, 3, 1, 8, 0), qid="zz.qkv.know1#4"),                  # no offset: wall clock
                at(datetime(2026, 3, 1, 9, 0), qid="zz.qkv.calc0#9")]                  # another instance of calc0
    assert rv.reviewed_on(attempts, D0, JST) == {"zz.qkv.calc0", "zz.qkv.know1"}      # skill keys
    assert rv.reviewed_on(attempts, day(1), JST) == {"zz.qkv.calc1"}
    assert rv.reviewed_on([], D0, JST) == set()


# ---------------------------------------------------------------------------
# settings: the daily review limit
# ---------------------------------------------------------------------------
def test_daily_review_limit_setting():
    from practice.progress import daily_review_limit
    p = new_progress()
    assert p["settings"]["daily_review_limit"] == rv.DEFAULT_DAILY_LIMIT == daily_review_limit(p) == 30
    assert rv.DEFAULT_DAILY_LIMIT in rv.DAILY_LIMITS and list(rv.DAILY_LIMITS) == sorted(rv.DAILY_LIMITS)
    for n in rv.DAILY_LIMITS:
        q = set_setting(p, "daily_review_limit", n)
        assert daily_review_limit(q) == n and store.validate_progress(q) is q
    assert set_setting(p, "daily_review_limit", 30) is p                  # unchanged: the same record
    assert p["settings"]["daily_review_limit"] == 30                     # the input is not changed
    for bad in (25, 0, -10, True, "30", None, 1000):
        with pytest.raises(ValueError):
            set_setting(p, "daily_review_limit", bad)


def test_the_advanced_and_daily_minutes_settings():
    """Issue 41: 発展 is opt-in (one switch saved with the progress) and the plan takes the minutes a day
    the learner has; a record written before either loads with the defaults (off, 30 minutes)."""
    from practice.record import DAILY_MINUTES, DEFAULT_DAILY_MINUTES
    p = new_progress()
    assert p["settings"]["advanced"] is False and p["settings"]["daily_minutes"] == DEFAULT_DAILY_MINUTES == 30
    on = set_setting(p, "advanced", True)
    assert on["settings"]["advanced"] is True and p["settings"]["advanced"] is False
    assert store.validate_progress(on) is on and set_setting(on, "advanced", True) is on
    for bad in (1, 0, "true", None):
        with pytest.raises(ValueError):
            set_setting(p, "advanced", bad)
    for m in DAILY_MINUTES:
        assert store.validate_progress(set_setting(p, "daily_minutes", m))["settings"]["daily_minutes"] == m
    for bad in (25, 0, -30, True, "30", None, 10_000):
        with pytest.raises(ValueError):
            set_setting(p, "daily_minutes", bad)
    for bad in ({"advanced": 1}, {"advanced": "yes"}, {"daily_minutes": 31}, {"daily_minutes": True}):
        with pytest.raises(store.ProgressError):
            store.validate_progress({**p, "settings": {**p["settings"], **bad}})


def test_an_older_record_without_a_daily_limit_loads_with_the_default():
    old = {**rich_progress(), "settings": {"exam_date": "2026-12-31", "retention": 0.85}}
    got = parse_progress_bytes(json.dumps(old).encode("utf-8"))
    assert got["settings"] == {"exam_date": "2026-12-31", "retention": 0.85, "daily_review_limit": 30,
                               "advanced": False, "daily_minutes": 30}
    assert {k: v for k, v in got.items() if k != "settings"} == {k: v for k, v in old.items() if k != "settings"}
    checked = store.validate_progress(old)
    assert checked["settings"]["daily_review_limit"] == 30 and "daily_review_limit" not in old["settings"]
    assert store.validate_progress(checked) is checked
    assert json.loads(store.dumps(old))["settings"]["daily_review_limit"] == 30   # kept with it from now on


def test_the_daily_limit_round_trips_and_is_checked():
    p = set_setting(rich_progress(), "daily_review_limit", 50)
    assert parse_progress_bytes(export_bytes(p)) == p
    assert store.parse_progress_text(store.dumps(p)) == p
    for bad in (25, 30.0, True, "30", None, [30]):
        with pytest.raises(ProgressError, match="1 日の復習の上限"):
            store.validate_progress({**p, "settings": {**p["settings"], "daily_review_limit": bad}})
    with pytest.raises(ProgressError, match="知らない項目"):
        store.validate_progress({**p, "settings": {**p["settings"], "daily_limit": 30}})
    with pytest.raises(ProgressError, match="必要な項目"):                  # only the new setting may be missing
        store.validate_progress({**p, "settings": {"daily_review_limit": 30, "retention": 0.9}})


# ---------------------------------------------------------------------------
# one place for answers: attempt + schedule
# ---------------------------------------------------------------------------
_QIDS = ["zz.qkv.calc0#1", "zz.qkv.calc0#2", "zz.mask.know1#4", "zz.naive.calc1#3"]
_STEP = hs.one_of(
    hs.tuples(hs.just("answer"), hs.sampled_from(_QIDS), hs.booleans(), hs.integers(0, 3),
              hs.sampled_from(["page", "exam", "review", "drill"])),
    hs.tuples(hs.just("visit"), hs.sampled_from(["naive", "qkv", "mask"])),
    hs.tuples(hs.just("retention"), hs.sampled_from(rv.RETENTIONS)),
    hs.tuples(hs.just("daily_review_limit"), hs.sampled_from(rv.DAILY_LIMITS)),
    hs.tuples(hs.just("drop"), hs.sampled_from(_QIDS)),
    hs.tuples(hs.just("exam"), hs.one_of(hs.none(), hs.fixed_dictionaries({"answers": hs.lists(hs.integers(0, 3), max_size=3)}))),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=hs.lists(_STEP, min_size=1, max_size=25))
def test_every_earlier_record_stays_as_it_was_while_later_ones_share_its_parts(steps):
    """Copy on write: each update returns a new record that shares what it did not change; no
    update may change a value inside an earlier record (the session keeps earlier records as
    the ancestors of a two-tab merge)."""
    versions = [new_progress()]
    snapshots = [json.dumps(versions[0], sort_keys=True)]    # each record as it was when made
    for i, step in enumerate(steps):
        p, kind = versions[-1], step[0]
        if kind == "answer":
            qid = step[1]
            p = apply_answer(p, qid, qid.split(".")[1], step[2], step[3], step[4], T0 + timedelta(minutes=7 * i))
        elif kind == "visit":
            p = record_visit(p, step[1])
        elif kind in ("retention", "daily_review_limit"):
            p = set_setting(p, kind, step[1])
        elif kind == "drop":
            p = drop_review(p, step[1])
        else:
            p = set_exam_in_progress(p, step[1])
        versions.append(p)
        snapshots.append(json.dumps(p, sort_keys=True))
    assert [json.dumps(v, sort_keys=True) for v in versions] == snapshots   # none changed afterwards
    answers = [s for s in steps if s[0] == "answer"]
    assert [a["qid"] for a in versions[-1]["attempts"]] == [s[1] for s in answers]


def test_apply_answer_wrong_on_page_schedules_right_does_not():
    p0 = new_progress()
    p1 = apply_answer(p0, "zz.qkv.calc0#5", "qkv", False, 2, "page", T0)
    assert p0 == new_progress()  # not mutated
    assert p1["attempts"] == [{"qid": "zz.qkv.calc0#5", "topic": "qkv", "correct": False, "choice": 2,
                               "at": "2026-03-01T09:00:00", "source": "page"}]   # the exact id shown
    assert p1["review"] == rv.schedule_wrong({}, "zz.qkv.calc0", "qkv", T0)    # the card: its skill
    assert rv.due_items(p1["review"], D0) == ["zz.qkv.calc0"]
    p2 = apply_answer(p1, "zz.qkv.calc1#5", "qkv", True, 0, "exam", T0)
    assert len(p2["attempts"]) == 2 and p2["review"] == p1["review"]
    p3 = apply_answer(p2, "zz.qkv.calc0#6", "qkv", False, 1, "page", T0)       # another instance: the same card
    assert list(p3["review"]) == ["zz.qkv.calc0"] and p3["review"]["zz.qkv.calc0"]["reps"] == 2


def test_apply_answer_in_review_is_an_fsrs_review():
    q, skill = "zz.qkv.calc0#5", "zz.qkv.calc0"
    p = apply_answer(new_progress(), q, "qkv", False, 2, "page", T0)
    p = apply_answer(p, "zz.qkv.calc0#8", "qkv", True, 1, "review", T0 + timedelta(minutes=5))   # a new instance
    assert p["review"][skill] == rv.review_answer(rv.schedule_wrong({}, skill, "qkv", T0), skill, True,
                                                  T0 + timedelta(minutes=5))[skill]
    assert [a["source"] for a in p["attempts"]] == ["page", "review"]
    p = apply_answer(p, "zz.qkv.calc0#9", "qkv", False, 3, "review", T0 + timedelta(days=1))
    assert p["review"][skill]["lapses"] == 1 and rv.due_date(p["review"][skill]) == day(1)
    # the desired retention of the settings is the one used
    p9 = apply_answer(set_setting(new_progress(), "retention", 0.95), q, "qkv", False, 2, "page", T0)
    assert p9["settings"]["retention"] == 0.95


def test_apply_answer_rejects_bad_source_and_choice():
    with pytest.raises(ValueError):
        apply_answer(new_progress(), "zz.qkv.calc0#5", "qkv", False, 2, "browser", T0)
    with pytest.raises(ValueError):
        record_attempt(new_progress(), "zz.qkv.calc0#5", "qkv", False, 4, "page", T0)


def test_attempts_are_capped():
    p = new_progress()
    p["attempts"] = [{"qid": "zz.qkv.calc0#1", "topic": "qkv", "correct": True, "choice": 0,
                      "at": "2026-03-01T09:00:00", "source": "page"}] * MAX_ATTEMPTS_KEPT
    p = apply_answers(p, [("zz.naive.calc0#1", "naive", True, 1)], "page", T0)
    assert len(p["attempts"]) == MAX_ATTEMPTS_KEPT and p["attempts"][-1]["topic"] == "naive"


# ---------------------------------------------------------------------------
# progress statistics
# ---------------------------------------------------------------------------
def _answers(p, topic, results):
    return apply_answers(p, [(f"zz.{topic}.calc0#{i}", topic, r, 0) for i, r in enumerate(results)], "page", T0)


def test_topic_stats_mastery_and_weak_topics():
    p = _answers(new_progress(), "qkv", [False, True, True, True, True])      # 4 of last 5: mastered
    p = _answers(p, "naive", [True, False, False])                            # 1/3
    p = _answers(p, "mask", [True, True, False, True, False, False, True])    # last 5: 2/5
    st = topic_stats(p)
    assert st["qkv"]["mastered"] and is_mastered(p, "qkv")
    assert st["naive"] == {"answered": 3, "correct": 1, "accuracy": 1 / 3, "recent_accuracy": 1 / 3,
                           "recent": 3, "recent_correct": 1, "mastered": False}
    assert st["mask"]["recent_accuracy"] == pytest.approx(0.4) and st["mask"]["accuracy"] == pytest.approx(4 / 7)
    assert [t for t, _ in weak_topics(p)] == ["naive", "mask"]  # mastered qkv is not weak
    assert overall(p) == {"answered": 15, "correct": 9, "accuracy": 9 / 15}
    assert overall(new_progress())["accuracy"] is None
    p = _answers(p, "formula", [True, True])                 # 2/2: not mastered yet …
    assert not topic_stats(p)["formula"]["mastered"] and "formula" not in dict(weak_topics(p))  # … nor weak


@pytest.mark.parametrize(("results", "left"), [
    ([], 5),                                        # nothing answered: the rule judges 5 answers
    ([True] * 3, 2),                                # 3 of 3: two more make 5 of 5
    ([True] * 4, 1),
    ([True] * 5, 0),                                # mastered
    ([False, True, True, True, True], 0),           # 4 of the last 5: mastered
    ([True] * 5 + [False], 0),                      # one wrong answer keeps it: still 4 of the last 5
    ([True] * 5 + [False, False], 4),               # 3 of the last 5: lost until one wrong one has left
    ([True, True, True, False], 1),                 # a wrong one among the last five: it may stay
    ([False, False], 4),                            # two wrong ones: the window needs 4 right after them
    ([False] * 9, 4),
    ([True, False, True, False, True], 2),
])
def test_to_master_counts_the_right_answers_in_a_row_still_needed(results, left):
    p = _answers(new_progress(), "qkv", results)
    p = _answers(p, "naive", [False] * 5)          # another topic's answers do not count
    assert to_master(p, "qkv") == left
    assert (left == 0) == is_mastered(p, "qkv")
    for _ in range(left):                           # and that many right answers do earn it, not fewer
        assert not is_mastered(p, "qkv")
        p = _answers(p, "qkv", [True])
    assert is_mastered(p, "qkv") and to_master(p, "qkv") == 0


def test_to_master_counts_answers_from_every_source():
    p = apply_answers(new_progress(), [("zz.qkv.calc0#1", "qkv", True, 0)] * 2, "exam", T0)
    p = apply_answers(p, [("zz.qkv.calc0#2", "qkv", True, 0)], "review", T0)
    assert to_master(p, "qkv") == 2 and to_master(p, "mask") == 5


def test_suggest_page_and_path_counts():
    keys = ["naive", "qkv", "scaling"]
    p = record_visit(record_visit(new_progress(), "naive"), "qkv")
    assert suggest_page(p, keys) == "scaling"
    p = record_visit(p, "scaling")
    assert suggest_page(p, keys) == "naive"            # all visited: first not mastered
    p = _answers(p, "naive", [True] * 5)
    assert suggest_page(p, keys) == "qkv"
    assert path_counts(p, keys) == {"total": 3, "visited": 3, "mastered": 1}
    p = _answers(_answers(p, "qkv", [True] * 5), "scaling", [True] * 5)
    assert suggest_page(p, keys) is None


def test_record_visit_returns_same_object_when_unchanged():
    p = record_visit(new_progress(), "qkv")
    assert record_visit(p, "qkv") is p
    assert record_visit(p, "mask")["visited"] == {"qkv": True, "mask": True}


# ---------------------------------------------------------------------------
# mock exam: assembly
# ---------------------------------------------------------------------------
def _kinds(ids):
    return Counter(GENERATOR_INFO[i.split("#")[0]][1] for i in ids)


@pytest.mark.parametrize("n", ex.LENGTHS)
def test_build_exam_length_mix_and_calc_minority(n):
    ids = ex.build_exam(n, seed=11)
    assert len(ids) == n
    kinds = _kinds(ids)
    assert kinds["calc"] == round(n * ex.CALC_SHARE) and kinds["calc"] < kinds["knowledge"]
    for qid in ids:  # every id regenerates a question
        assert quizzes.from_id(qid).id == qid
    gens = [i.split("#")[0] for i in ids]
    know = [g for g in gens if GENERATOR_INFO[g][1] == "knowledge"]
    assert len(set(know)) == len(know)  # a knowledge question never twice in one paper


def test_build_exam_is_deterministic_and_seed_dependent():
    assert ex.build_exam(20, 5) == ex.build_exam(20, 5)
    assert ex.build_exam(20, 5) != ex.build_exam(20, 6)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_build_exam_gives_each_topic_its_share_of_the_pool(seed):
    """Issue 43: the paper draws from the new pages in proportion to the map — each topic's share of
    the in-scope pool (which the syllabus map shapes), within one question of n × share."""
    n = 40
    calc, know = ex.exam_pool()
    n_calc, n_know = ex.exam_mix(n, len(calc), len(know), ex.DEFAULT_CALC_SHARE)
    ids = ex.build_exam(n, seed)
    for pool, k, kind in ((calc, n_calc, "calc"), (know, n_know, "knowledge")):
        got = Counter(GENERATOR_INFO[i.split("#")[0]][0] for i in ids if GENERATOR_INFO[i.split("#")[0]][1] == kind)
        share = Counter(GENERATOR_INFO[g][0] for g in pool)
        for topic, m in share.items():
            assert abs(got.get(topic, 0) - k * m / len(pool)) < 1.0 + 1e-9, (kind, topic, got.get(topic, 0), k * m / len(pool))
    big = Counter(GENERATOR_INFO[i.split("#")[0]][0] for i in ex.build_exam(len(calc) + len(know), seed))
    assert set(big) == set(TOPICS)                            # a paper as long as the pool asks every topic
    # over many papers, a small topic is asked as often as its share of the pool says
    small = min(Counter(GENERATOR_INFO[g][0] for g in know).items(), key=lambda kv: kv[1])[0]
    asked = sum(GENERATOR_INFO[i.split("#")[0]][0] == small for s in range(300) for i in ex.build_exam(n, s)
                if GENERATOR_INFO[i.split("#")[0]][1] == "knowledge")
    share = sum(GENERATOR_INFO[g][0] == small for g in know) / len(know)
    assert abs(asked - 300 * n_know * share) <= 0.2 * 300 * n_know * share + 5


def test_spread_does_not_repeat_a_small_topic_while_others_have_unused_ids():
    import random
    pool = ["zz.qkv.know0"] + [f"zz.naive.know{k}" for k in range(4)]
    out = ex._spread(pool, 5, random.Random(0))
    assert sorted(out) == sorted(pool)  # the old round-robin picked zz.qkv.know0 three times
    out = ex._spread(pool, 7, random.Random(0))
    assert Counter(out)["zz.qkv.know0"] <= 2 and set(out) == set(pool)


def test_exam_mix_edge_cases():
    assert ex.exam_mix(10, 24, 48) == (0, 10)       # the real exam's share: a handful in ~145
    assert ex.exam_mix(40, 24, 48) == (1, 39)
    assert ex.exam_mix(10, 24, 48, calc_share=0.2) == (2, 8)   # a setting raises it
    assert ex.exam_mix(40, 24, 48, calc_share=0.2) == (8, 32)
    assert ex.exam_mix(10, 0, 48) == (0, 10)
    assert ex.exam_mix(10, 5, 0) == (10, 0)         # only calculations exist
    assert ex.exam_mix(10, 0, 4) == (0, 4)          # a small bank is not repeated
    assert ex.exam_mix(10, 5, 3) == (7, 3)          # calculations fill in for a small bank
    assert ex.exam_mix(1, 5, 5, calc_share=0.5) == (1, 0)
    assert ex.exam_mix(10, 0, 0) == (0, 0)
    with pytest.raises(ValueError, match="問題数"):
        ex.exam_mix(0, 5, 5)


def test_build_exam_copes_with_an_empty_or_partial_registry():
    with fake_registry(topics=[]):
        assert ex.build_exam(10, 1) == []
    with fake_registry(topics=["qkv", "mask"], calc_per_topic=0, know_per_topic=3):
        ids = ex.build_exam(10, 1)
        assert len(ids) == 6 and _kinds(ids) == Counter(knowledge=6)


def test_real_registry_exam():
    """The real questions: the paper is valid and mixed."""
    ids = ex.build_exam(40, 2026)
    assert len(ids) == 40
    kinds = _kinds(ids)
    n_calc, n_know = ex.exam_mix(40, *map(len, ex.exam_pool()))   # 発展 items are not drawn by default
    assert (kinds["calc"], kinds["knowledge"]) == (n_calc, n_know)
    if n_know >= 10:
        assert kinds["calc"] < kinds["knowledge"]
    know_topics = {t for t, k, adv in GENERATOR_INFO.values() if k == "knowledge" and not adv}
    if n_know >= len(know_topics):  # every topic that has knowledge questions is asked
        assert know_topics <= {GENERATOR_INFO[i.split("#")[0]][0] for i in ids}
    for qid in ids:
        q = quizzes.from_id(qid)
        assert q.id == qid and len(set(q.choices)) == 4


# ---------------------------------------------------------------------------
# mock exam: clock and scoring
# ---------------------------------------------------------------------------
def test_clock():
    limit = ex.time_limit_s(10, 40)
    assert limit == 400
    assert ex.remaining_s(T0, T0, limit) == 400
    assert ex.remaining_s(T0, T0 + timedelta(seconds=0.4), limit) == 400  # rounds up
    assert ex.remaining_s(T0, T0 + timedelta(seconds=399.5), limit) == 1
    assert not ex.is_time_up(T0, T0 + timedelta(seconds=399.9), limit)
    assert ex.is_time_up(T0, T0 + timedelta(seconds=400), limit)
    assert ex.remaining_s(T0, T0 + timedelta(hours=3), limit) == 0
    assert ex.time_fraction_left(T0, T0 + timedelta(seconds=100), limit) == 0.75
    assert [ex.format_clock(s) for s in (0, 9, 400, 1600, 3600, 3725.2)] == ["0:00", "0:09", "6:40", "26:40",
                                                                            "1:00:00", "1:02:06"]


def _paper(n=5, seed=1):
    return [quizzes.from_id(qid) for qid in ex.build_exam(n, seed)]


def test_score_exam_and_topic_rows():
    qs = _paper(5, 4)
    wrong_choice = (qs[1].answer + 1) % 4
    answers = {0: qs[0].answer, 1: wrong_choice, 3: qs[3].answer}  # 2, 4 unanswered
    r = ex.score_exam(qs, answers)
    assert (r["score"], r["total"], r["percent"], r["wrong"], r["unanswered"]) == (2, 5, 40.0, 1, 2)
    assert r["items"][1]["misconception"] == qs[1].misconceptions[wrong_choice] != ""
    assert r["items"][2] == {"qid": qs[2].id, "topic": qs[2].topic, "choice": None, "answer": qs[2].answer,
                             "correct": False, "misconception": ""}
    by = Counter(q.topic for q in qs)
    assert {t: v["total"] for t, v in r["by_topic"].items()} == dict(by)
    rows = ex.topic_rows(r)
    assert [row["topic"] for row in rows] == [t for t in TOPICS if t in by]  # learning-path order
    assert sum(row["correct"] for row in rows) == 2
    weakest = ex.weakest_topic(r)
    assert weakest in by and min(row["percent"] for row in rows) == next(
        row["percent"] for row in rows if row["topic"] == weakest)


def test_weakest_topic_none_when_all_right():
    qs = _paper(3, 9)
    assert ex.weakest_topic(ex.score_exam(qs, {i: q.answer for i, q in enumerate(qs)})) is None


def test_history_record_and_record_exam():
    qs = _paper(5, 8)
    answers = {0: qs[0].answer, 1: (qs[1].answer + 1) % 4}
    r = ex.score_exam(qs, answers)
    rec = ex.history_record(r, T0, T0 + timedelta(seconds=95, microseconds=5), 40)
    assert rec == {"at": "2026-03-01T09:01:35", "total": 5, "score": 1, "seconds": 95, "pace": 40,
                   "by_topic": {t: [v["correct"], v["total"]] for t, v in r["by_topic"].items()}}
    late = ex.history_record(r, T0, T0 + timedelta(days=3), 40)  # the limit, not three days
    assert late["seconds"] == 200
    p0 = new_progress()
    p = ex.record_exam(p0, r, T0, T0 + timedelta(seconds=95), 40)
    assert p0 == new_progress()
    assert [(a["qid"], a["correct"], a["source"]) for a in p["attempts"]] == [(qs[0].id, True, "exam"),
                                                                             (qs[1].id, False, "exam")]
    # only the wrong answer is due today: the three unanswered questions are neither cards nor attempts
    assert sorted(p["review"]) == [qs[1].generator_id]      # the card of its skill
    assert {v["state"] for v in p["review"].values()} == {1}
    assert {rv.due_date(v) for v in p["review"].values()} == {D0}
    assert p["exams"] == [ex.history_record(r, T0, T0 + timedelta(seconds=95), 40)]
    store.validate_progress(p)
    assert ex.review_note(r) == ("間違えた 1 問は復習の予定に入りました。"
                                 "未回答の 3 問は復習の予定に入れていません（解説は下の振り返りで読めます）。")
    assert ex.review_note(ex.score_exam(qs, {i: q.answer for i, q in enumerate(qs)})) == ""
    assert ex.history_rows(p["exams"]) == [{"回": 1, "日時": "2026-03-01 09:01", "正答率": 20.0, "得点": "1/5",
                                            "所要時間": "1:35"}]


# ---------------------------------------------------------------------------
# progress files
# ---------------------------------------------------------------------------
def rich_progress() -> dict:
    p = new_progress()
    for k in ("home", "naive", "qkv", "exam", "review"):
        p = record_visit(p, k)
    p = _answers(p, "qkv", [True, False, True])
    p = apply_answer(p, "zz.mask.know2#77", "mask", False, 3, "page", T0)
    p = apply_answer(p, "zz.mask.know2#77", "mask", True, 1, "review", T0)
    qs = _paper(10, 21)
    r = ex.score_exam(qs, {i: q.answer for i, q in enumerate(qs) if i % 3})
    return ex.record_exam(p, r, T0, T0 + timedelta(minutes=5), 40)


def test_new_and_rich_progress_are_valid():
    assert store.validate_progress(new_progress()) == new_progress()
    p = rich_progress()
    assert store.validate_progress(p) is p


def test_export_import_round_trip():
    p = rich_progress()
    raw = export_bytes(p)
    assert json.loads(raw.decode("utf-8"))["version"] == 3
    assert parse_progress_bytes(raw) == p
    assert parse_progress_bytes(b"\xef\xbb\xbf" + raw) == p  # an editor's BOM is fine


def test_the_largest_valid_progress_fits_the_size_cap_and_round_trips():
    # as many skills as the schedule keeps (one card each), with generator ids as long as a stored
    # id may have (store.MAX_QID_LEN: 67 characters + "#" + a 12-digit seed; the largest seed read
    # today, quizzes.core.MAX_SEED, has 10 digits)
    long_ids = [f"zz.training.{'x' * 48}{i:07d}" for i in range(rv.MAX_ITEMS)]
    for gid in long_ids:
        quizzes.core.register(gid, "training", _know_draft("training", 9), kind="knowledge")
    assert len(long_ids[0]) + 13 == store.MAX_QID_LEN
    qid = f"{long_ids[0]}#{quizzes.core.MAX_SEED}"
    p = new_progress()
    p["visited"] = {k: True for k in store.PAGE_KEYS}
    p["attempts"] = [{"qid": qid, "topic": "training", "correct": False, "choice": 3,
                      "at": "2026-12-31T23:59:59", "source": "review"}] * MAX_ATTEMPTS_KEPT
    p["review"] = {gid: {
        "topic": "training", "state": 3, "step": 99, "stability": 123456.7891, "difficulty": 9.8765,
        "due": "2026-12-31T23:59:59+00:00", "last_review": "2026-12-31T23:59:59+00:00",
        "lapses": 999_999, "reps": 999_999} for gid in long_ids}
    p["settings"] = {"exam_date": "2026-12-31", "retention": 0.85, "daily_review_limit": 100, "advanced": False,
                     "daily_minutes": 120}
    p["exam_in_progress"] = {"v": 1, "run": "ffffffff", "qids": [qid] * 200, "pace": 600, "limit": 120_000,
                             "started_at": float(int(time.time())),
                             "answers": [3] * 200, "flags": list(range(200)), "cur": 199}
    p["exams"] = [{"at": "2026-12-31T23:59:59", "total": 40, "score": 40, "seconds": 86_400, "pace": 3600,
                   "by_topic": {t: [3, 4] for t in TOPICS}}] * store.MAX_EXAMS
    raw = export_bytes(p)
    assert len(raw) <= store.MAX_BYTES
    assert parse_progress_bytes(raw) == p


def test_validation_messages_are_japanese():
    p = rich_progress()
    p["attempts"][0]["choice"] = 9
    with pytest.raises(ProgressError) as e:
        store.validate_progress(p)
    assert JAPANESE.search(str(e.value)) and "choice" in str(e.value)


def test_unknown_question_id_is_named_by_the_validator_and_left_out_by_the_reader():
    p = new_progress()
    p["review"] = {"qkv.gone": rv.from_box("qkv", 1, "2026-03-01", 0)}     # a skill whose generator was removed
    with pytest.raises(ProgressError, match="もうありません"):
        store.validate_progress(p)                       # the strict check names it
    notes = []
    assert parse_progress_bytes(json.dumps(p).encode(), notes)["review"] == {}   # a file keeps the rest
    assert notes == ["もうない問題の復習予定 1 問を外しました。"]
    old = {**p, "version": 2, "review": {"gone.gen#1": p["review"]["qkv.gone"]}}   # the same in schema 2
    notes = []
    assert parse_progress_bytes(json.dumps(old).encode(), notes)["review"] == {}
    assert notes == ["もうない問題の復習予定 1 問を外しました。"]


def test_an_id_whose_seed_would_alias_a_smaller_one_is_left_out_with_a_note():
    """Seeds above quizzes.core.MAX_SEED name the question of seed & 0xFFFFFFFF under another id, so
    parse_id refuses them; before 2026-12 it read any 12-digit seed, and a record may hold an answer to
    such a link (?q=). Those answers, schema-2 cards and an unfinished exam holding one are left out
    with a note; the rest of the record loads (never refused whole, never a crash)."""
    from quizzes.core import MAX_SEED, QuizError, parse_id

    gid = "zz.qkv.calc0"
    big, last = f"{gid}#{MAX_SEED + 1}", f"{gid}#{MAX_SEED}"
    assert parse_id(last) == (gid, 2**32 - 1)
    for qid in (big, f"{gid}#999999999999"):
        with pytest.raises(QuizError, match="大きすぎ"):
            parse_id(qid)

    def attempt(qid):
        return {"qid": qid, "topic": "qkv", "correct": True, "choice": 0, "at": "2026-11-30T10:00:00",
                "source": "page"}

    p = new_progress()
    p["attempts"] = [attempt(big), attempt(last), attempt(f"{gid}#999999999999")]
    with pytest.raises(ProgressError, match="大きすぎ"):
        store.validate_progress(p)                       # the strict check names it
    notes = []
    assert [a["qid"] for a in parse_progress_bytes(json.dumps(p).encode(), notes)["attempts"]] == [last]
    assert notes == ["この版では読めない問題 id（シードが 4,294,967,295 を超えるもの）の解答記録 2 件を外しました。"]

    old = {**new_progress(), "version": 2, "review": {big: rv.from_box("qkv", 1, "2026-03-01", 0)}}
    notes = []
    assert parse_progress_bytes(json.dumps(old).encode(), notes)["review"] == {}
    assert notes == ["この版では読めない問題 id（シードが 4,294,967,295 を超えるもの）の復習予定 1 問を外しました。"]

    paper = ex.new_exam(5, 40, 3, time.time())
    p = {**new_progress(), "exam_in_progress": {**paper, "qids": [big] + paper["qids"][1:]}}
    notes = []
    assert parse_progress_bytes(json.dumps(p).encode(), notes)["exam_in_progress"] is None
    assert len(notes) == 1 and notes[0].startswith("途中の模擬試験は再開できないため外しました") and "大きすぎ" in notes[0]


# ---------------------------------------------------------------------------
# schema 1 (Leitner boxes) files still import
# ---------------------------------------------------------------------------
def v1_file() -> dict:
    p = rich_progress()
    return {"version": 1, "visited": p["visited"], "attempts": p["attempts"], "exams": p["exams"],
            "review": {"zz.mask.know2#77": {"topic": "mask", "box": 2, "due": "2026-03-02", "lapses": 1},
                       "zz.qkv.calc0#1": {"topic": "qkv", "box": 1, "due": "2026-03-01", "lapses": 0},
                       "zz.qkv.calc1#3": {"topic": "qkv", "box": 5, "due": "2026-03-20", "lapses": 4}}}


def test_schema_1_file_imports_with_boxes_mapped_and_nothing_else_changed():
    old = v1_file()
    p = parse_progress_bytes(json.dumps(old).encode("utf-8"))
    assert p["version"] == 3 and store.validate_progress(p) is p
    assert (p["visited"], p["attempts"], p["exams"]) == (old["visited"], old["attempts"], old["exams"])
    assert p["settings"] == new_progress()["settings"] and p["exam_in_progress"] is None
    for qid, item in old["review"].items():          # one skill each: the card keyed by its generator
        assert p["review"][qid.split("#")[0]] == rv.from_box(item["topic"], item["box"], item["due"], item["lapses"])
    assert parse_progress_bytes(export_bytes(p)) == p   # and it exports as schema 3


def test_schema_1_boxes_of_one_skill_merge_into_one_card():
    old = v1_file()
    old["review"]["zz.qkv.calc0#9"] = {"topic": "qkv", "box": 4, "due": "2026-02-20", "lapses": 2}
    p = parse_progress_bytes(json.dumps(old).encode("utf-8"))
    assert sorted(p["review"]) == ["zz.mask.know2", "zz.qkv.calc0", "zz.qkv.calc1"]
    card = p["review"]["zz.qkv.calc0"]
    box4 = rv.from_box("qkv", 4, "2026-02-20", 2)              # the one reviewed (box 1 never was)
    assert card == {**box4, "due": box4["due"], "lapses": 2, "reps": 3}


@pytest.mark.parametrize("bad", [
    {"box": 6}, {"box": 0}, {"due": "2026-02-30"}, {"lapses": -1}, {"state": 2}, {"topic": "naive"}])
def test_schema_1_file_is_validated_as_strictly_as_before(bad):
    old = v1_file()
    item = old["review"]["zz.qkv.calc0#1"]
    item.update(bad)
    with pytest.raises(ProgressError) as e:
        parse_progress_bytes(json.dumps(old).encode("utf-8"))
    assert JAPANESE.search(str(e.value))


@pytest.mark.parametrize("version", [0, 4, 999, "2", "3", None, True])
def test_unknown_versions_are_refused_in_japanese(version):
    p = {**new_progress(), "version": version}
    with pytest.raises(ProgressError, match="バージョン"):
        parse_progress_bytes(json.dumps(p).encode("utf-8"))


def test_schema_2_fields_are_checked():
    for change in ({"settings": {"exam_date": "2026-13-01", "retention": 0.9}},
                   {"settings": {"exam_date": None, "retention": 0.7}},
                   {"settings": {"exam_date": None}},
                   {"exam_in_progress": {"run": "x"}},
                   {"exam_in_progress": {"v": 1, "run": "9f3a0c1e", "qids": ["zz.qkv.calc0#1"], "pace": 40,
                                         "limit": 41, "started_at": float(int(time.time())), "answers": [None],
                                         "flags": [], "cur": 0}},
                   {"exam_in_progress": {"v": 1, "run": "9f3a0c1e", "qids": ["zz.qkv.calc0#1"], "pace": 40,
                                         "limit": 40, "started_at": 1_000.0, "answers": [None],
                                         "flags": [], "cur": 0}},
                   {"exam_in_progress": []}):
        with pytest.raises(ProgressError):
            store.validate_progress({**new_progress(), **change})
    p = rich_progress()
    item = next(iter(p["review"].values()))
    for field, value in (("due", "2026-03-01T09:00:00"), ("stability", float("nan")), ("difficulty", 11.0),
                         ("state", 4), ("reps", -1)):
        bad = copy.deepcopy(p)
        next(iter(bad["review"].values()))[field] = value
        with pytest.raises(ProgressError):
            store.validate_progress(bad)
    assert item["due"].endswith("+00:00")


def test_a_moved_calculation_generator_is_read_under_its_new_id_and_topic(fakes):
    """A calculation generator registered with moved_from (quizzes.calc.calc_generator) takes its old
    id's attempts, cards and exam questions along, and a link to the old id opens the new one."""
    from practice import store
    from practice_fakes import _calc_draft
    from quizzes.core import MOVED, register

    register("zz.block.moved", "block", _calc_draft("block", 9), kind="calc", moved_from="zz.naive.gone")
    assert MOVED["zz.naive.gone"] == "zz.block.moved"
    assert quizzes.core.parse_id("zz.naive.gone#4") == ("zz.block.moved", 4)
    with pytest.raises(quizzes.QuizError):          # the old id is never registered again
        register("zz.naive.gone", "naive", _calc_draft("naive", 9))
    old = {"version": 1, "visited": {"naive": True},
           "attempts": [{"qid": "zz.naive.gone#7", "topic": "naive", "correct": False, "choice": 1,
                         "at": "2026-11-30T10:00:00", "source": "page"}],
           "exams": [], "review": {"zz.naive.gone#3": {"topic": "naive", "box": 2, "due": "2026-12-01", "lapses": 1}}}
    got = store.parse_progress_bytes(json.dumps(old).encode())
    assert [(a["qid"], a["topic"]) for a in got["attempts"]] == [("zz.block.moved#7", "block")]
    assert list(got["review"]) == ["zz.block.moved"] and got["review"]["zz.block.moved"]["topic"] == "block"


def test_real_file_naming_a_moved_bank_item_is_read_with_its_new_id_and_topic():
    """kb.multihead.k04–k06 moved to ⑦-2 (block.k10–k12): old files and stored records still load."""
    from practice import store
    from quizzes.knowledge import renamed_ids

    assert renamed_ids()["kb.multihead.k04"] == "kb.block.k10"
    old = {"version": 1, "visited": {"multihead": True},
           "attempts": [{"qid": "kb.multihead.k04#7", "topic": "multihead", "correct": False, "choice": 1,
                         "at": "2026-11-30T10:00:00", "source": "page"}],
           "exams": [],
           "review": {"kb.multihead.k05#3": {"topic": "multihead", "box": 2, "due": "2026-12-01", "lapses": 1}}}
    got = store.parse_progress_bytes(json.dumps(old).encode())
    assert [(a["qid"], a["topic"]) for a in got["attempts"]] == [("kb.block.k10#7", "block")]
    assert list(got["review"]) == ["kb.block.k11"] and got["review"]["kb.block.k11"]["topic"] == "block"
    assert quizzes.from_id("kb.block.k11#3").topic == "block"
    # the same in a record of schema 2 (a card per question id) and of schema 3 (a card per skill)
    card = got["review"]["kb.block.k11"]
    v2 = {**got, "version": 2, "review": {"kb.multihead.k05#3": {**card, "topic": "multihead"}},
          "attempts": old["attempts"]}
    v3 = {**got, "review": {"kb.multihead.k05": {**card, "topic": "multihead"}}, "attempts": old["attempts"]}
    for record in (v2, v3):
        back = store.parse_progress_bytes(json.dumps(record).encode())
        assert back["review"] == {"kb.block.k11": card} and back["attempts"] == got["attempts"]
