"""practice.profile (the misconception profile from stored attempts) and practice.drill
(fresh questions aimed at one misconception)."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
from practice import drill
from practice import profile as P
from practice.progress import apply_answer, new_progress
from practice.store import validate_progress
from quizzes import misconceptions as M
from quizzes.core import GENERATOR_INFO

T0 = datetime(2026, 12, 1, 9, 0, 0)


def find(mid: str, skip: int = 0) -> tuple[str, int, int]:
    """(qid, the wrong choice naming mid, the answer) of a question offering mid."""
    n = 0
    for gid in drill.generators_for(mid):
        for seed in range(40):
            q = quizzes.from_id(f"{gid}#{seed}")
            ids = M.choice_ids(q)
            if mid in ids:
                if n == skip:
                    return q.id, ids.index(mid), q.answer
                n += 1
    raise AssertionError(mid)


def att(qid: str, choice: int, i: int = 0) -> dict:
    q = quizzes.from_id(qid)
    return {"qid": qid, "topic": q.topic, "correct": choice == q.answer, "choice": choice,
            "at": (T0 + timedelta(minutes=i)).isoformat(), "source": "page"}


def progress(attempts: list[dict]) -> dict:
    return {**new_progress(), "attempts": attempts}


def wrong(mid: str, i: int = 0, skip: int = 0) -> dict:
    qid, c, _ = find(mid, skip)
    return att(qid, c, i)


def right(mid: str, i: int = 0, skip: int = 0) -> dict:
    qid, _, a = find(mid, skip)
    return att(qid, a, i)


def ids(p: dict, limit=None) -> list[str]:
    return [r.id for r in P.top_misconceptions(p, limit)]


def test_empty_record():
    assert P.top_misconceptions(new_progress()) == []
    assert P.top_misconceptions({}) == []
    assert P.weights([]) == {}


def test_one_wrong_answer_is_at_the_top_with_count_and_recency():
    a = wrong("softmax_over_columns", 0)
    rows = P.top_misconceptions(progress([a]))
    assert [(r.id, r.count, r.last_at, r.since, r.last_topic) for r in rows] == \
        [("softmax_over_columns", 1, a["at"], 0, "naive")]
    assert rows[0].name == "列方向の softmax" and rows[0].weight == pytest.approx(1.0)


def test_counts_and_order():
    att_ = [wrong("forgot_sqrt_dk", 0), wrong("mask_after_softmax", 1), wrong("forgot_sqrt_dk", 2, skip=1)]
    rows = P.top_misconceptions(progress(att_))
    assert [(r.id, r.count) for r in rows] == [("forgot_sqrt_dk", 2), ("mask_after_softmax", 1)]
    assert rows[0].since == 0 and rows[1].since == 1


def test_an_unrepeated_mistake_fades_by_half_life():
    first = wrong("forgot_sqrt_dk", 0)
    other = [right("rnn_confusion", i) for i in range(1, P.HALF_LIFE + 1)]   # unrelated questions
    w = P.weights([first] + other)
    assert w["forgot_sqrt_dk"]["weight"] == pytest.approx(0.5)
    # long enough and it leaves the profile, though it was never answered right
    many = [right("rnn_confusion", i) for i in range(1, 3 * P.HALF_LIFE + 1)]
    assert "forgot_sqrt_dk" not in ids(progress([first] + many))


def test_a_recent_mistake_outranks_an_older_one_of_the_same_count():
    old, new = wrong("mask_after_softmax", 0), wrong("forgot_sqrt_dk", 1)
    assert ids(progress([old, new])) == ["forgot_sqrt_dk", "mask_after_softmax"]
    assert ids(progress([new, old])) == ["mask_after_softmax", "forgot_sqrt_dk"]


def test_ties_are_broken_by_recency_then_id():
    # the same question twice with a choice naming a different misconception each time is rare;
    # two mistakes in ONE weight walk tie only when made at the same index, so test the sort key
    # directly on equal weights and recency: the id decides
    rows = {"b_id": {"weight": 1.0, "count": 1, "last_at": "", "last_topic": "", "last_index": 0, "since": 0},
            "a_id": {"weight": 1.0, "count": 1, "last_at": "", "last_topic": "", "last_index": 0, "since": 0}}
    order = sorted(rows.items(), key=lambda item: (-round(item[1]["weight"], 9), item[1]["since"], item[0]))
    assert [k for k, _ in order] == ["a_id", "b_id"]
    # and the real function is deterministic: same record → same list
    rec = progress([wrong("forgot_sqrt_dk", 0), wrong("mask_after_softmax", 1), wrong("rnn_confusion", 2)])
    assert ids(rec) == ids(rec) == ["rnn_confusion", "mask_after_softmax", "forgot_sqrt_dk"]


def test_right_answers_on_questions_that_offer_it_clear_it():
    start = [wrong("softmax_over_columns", 0), wrong("forgot_sqrt_dk", 1)]
    assert ids(progress(start))[0] == "forgot_sqrt_dk"
    cleared = start + [right("forgot_sqrt_dk", 2 + k, skip=k) for k in range(3)]
    rows = ids(progress(cleared))
    assert rows[0] == "softmax_over_columns" and "forgot_sqrt_dk" not in rows
    w = P.weights(cleared)["forgot_sqrt_dk"]
    assert w["weight"] == pytest.approx(P.DECAY ** 3 * P.RIGHT_FACTOR ** 3)
    assert w["count"] == 1                         # the history stays: it was chosen once


def test_unknown_ids_from_old_files_are_skipped():
    good = wrong("mask_after_softmax", 5)
    old = [{"qid": "gone.generator#3", "topic": "naive", "correct": False, "choice": 1, "at": "2025-01-01T00:00:00",
            "source": "page"},
           {"qid": "naive.weight#x", "topic": "naive", "correct": False, "choice": 0, "at": "", "source": "page"},
           {"qid": 42, "choice": 1}, {"qid": good["qid"], "choice": 9}, {"qid": good["qid"], "choice": True},
           "not a dict", {}]
    rows = P.top_misconceptions(progress(old + [good]))
    assert [r.id for r in rows] == ["mask_after_softmax"]


def test_the_stored_format_is_unchanged():
    p = new_progress()
    qid, c, _ = find("forgot_sqrt_dk")
    q = quizzes.from_id(qid)
    p = apply_answer(p, qid, q.topic, False, c, "page", now=T0)
    before = repr(p)
    assert ids(p) == ["forgot_sqrt_dk"]
    assert repr(p) == before                       # nothing added or changed
    validate_progress(p)


def test_only_the_window_is_read():
    first = wrong("forgot_sqrt_dk", 0)
    filler = [right("rnn_confusion", i) for i in range(1, P.WINDOW + 1)]
    assert "forgot_sqrt_dk" not in P.weights([first] + filler)


def test_exam_misconceptions():
    q1, c1, a1 = find("forgot_sqrt_dk")
    q2, c2, _ = find("forgot_sqrt_dk", 1)
    q3, c3, _ = find("mask_after_softmax")
    got = P.exam_misconceptions([q1, q2, q3, q1, "gone#1"], [c1, c2, c3, a1, 0])
    assert got == [("forgot_sqrt_dk", 2), ("mask_after_softmax", 1)]
    assert P.exam_misconceptions([q1, q3], [None, a1 if a1 != c3 else None]) in ([], [("mask_after_softmax", 1)])
    assert P.exam_misconceptions([], []) == []


MIDS = ["forgot_sqrt_dk", "mask_after_softmax", "softmax_over_columns", "rnn_confusion", "self_vs_source_target"]


@st.composite
def records(draw):
    n = draw(st.integers(0, 25))
    return [(wrong if draw(st.booleans()) else right)(draw(st.sampled_from(MIDS)), i, draw(st.integers(0, 1)))
            for i in range(n)]


@settings(max_examples=40)
@given(records())
def test_weights_are_bounded_and_the_list_is_sorted(rec):
    w = P.weights(rec)
    assert all(0 <= r["weight"] <= r["count"] for r in w.values())
    rows = P.top_misconceptions(progress(rec), None)
    keys = [(-round(r.weight, 9), r.since, r.id) for r in rows]
    assert keys == sorted(keys) and all(r.weight >= P.MIN_WEIGHT for r in rows)
    assert len({r.id for r in rows}) == len(rows)


@settings(max_examples=30)
@given(records(), st.sampled_from(MIDS))
def test_a_right_answer_never_raises_a_weight_and_a_wrong_one_adds(rec, mid):
    before = P.weights(rec)
    after_right = P.weights(rec + [right(mid, 99)])
    after_wrong = P.weights(rec + [wrong(mid, 99)])
    for k, r in after_right.items():
        assert r["weight"] <= before[k]["weight"] * P.DECAY + 1e-12
    assert after_wrong[mid]["weight"] == pytest.approx(before.get(mid, {"weight": 0})["weight"] * P.DECAY + 1)
    assert after_wrong[mid]["since"] == 0


# ---------------------------------------------------------------------------
# drill
# ---------------------------------------------------------------------------
def test_the_index_covers_every_entry_with_two_generators():
    index = drill.misconception_index()
    assert set(index) == set(M.catalogue())
    assert all(len(g) >= 2 for g in index.values())
    for mid, gens in index.items():
        for gid, seeds in gens.items():
            assert mid in M.question_ids(quizzes.from_id(f"{gid}#{seeds[0]}"))


@pytest.mark.parametrize("mid", ["forgot_sqrt_dk", "softmax_over_columns", "self_vs_source_target",
                                 "true_statement_judged_false", "teacher_forcing"])
def test_drill_ids_offer_the_misconception_across_topics(mid):
    got = drill.drill_ids(mid, 5, random.Random(7), advanced=True)   # the whole pool (scope: test_scope.py)
    gens = drill.generators_for(mid)
    calc = [g for g in gens if GENERATOR_INFO[g].kind == "calc"]
    assert len(got) == len(set(got)) == (5 if len(gens) >= 5 or calc else len(gens))
    for qid in got:
        assert mid in M.question_ids(quizzes.from_id(qid))
    topics = {GENERATOR_INFO[g].topic for g in gens}
    used = {GENERATOR_INFO[q.rsplit("#", 1)[0]].topic for q in got}
    assert len(used) == min(len(topics), 5)                 # one topic after another
    if len(gens) >= 5:
        assert len({q.rsplit("#", 1)[0] for q in got}) == 5  # no generator twice while others are left
    assert drill.drill_ids(mid, 5, random.Random(7), advanced=True) == got  # a passed rng decides everything


def test_drill_refuses_unknown_ids_and_uses_fresh_seeds():
    with pytest.raises(ValueError):
        drill.drill_ids("not_an_id")
    seeds = {int(q.rsplit("#", 1)[1]) for _ in range(3) for q in drill.drill_ids("forgot_sqrt_dk", 5)}
    assert max(seeds) >= drill.INDEX_SEEDS                # SystemRandom seeds, not only the index's
    assert drill.drill_ids("forgot_sqrt_dk", 0) == []


def test_practising_a_drill_right_clears_it_from_the_profile():
    rec = [wrong("softmax_over_columns", 0), wrong("forgot_sqrt_dk", 1)]
    assert ids(progress(rec))[0] == "forgot_sqrt_dk"
    for i, qid in enumerate(drill.drill_ids("forgot_sqrt_dk", 5, random.Random(3)), start=2):
        rec.append(att(qid, quizzes.from_id(qid).answer, i))
    assert "forgot_sqrt_dk" not in ids(progress(rec))
    assert ids(progress(rec)) == ["softmax_over_columns"]


# ---------------------------------------------------------------------------
# where a misconception is fixed (issue 35, item 4) and no repeats in a set
# ---------------------------------------------------------------------------
def test_relearn_routes_by_kind():
    form = P.relearn("true_statement_judged_false")
    assert form == P.Relearn("form", None, "worst", "『不適切なもの』を選ぶ問題")
    for m in M.catalogue().values():
        r = P.relearn(m.id)
        assert r.kind == m.kind
        if m.kind == "topic":
            assert r == P.Relearn("topic", m.page, None, "") and r.page is not None, m.id
    assert P.relearn("forgot_sqrt_dk").page == "scaling" and P.relearn("mask_after_softmax").page == "mask"
    for bad in ("not_an_id", "scaling", "", None, 3):
        assert P.relearn(bad) is None


def test_a_topic_misconception_routes_to_its_teaching_page_not_where_it_happened():
    """√d_k で割り忘れ made on ④'s calculations: the profile keeps ④ as the last topic, re-learning
    is on ③, where the scaling is taught."""
    elsewhere = next(g for g in drill.generators_for("forgot_sqrt_dk") if GENERATOR_INFO[g].topic == "formula")
    seed = next(s for s in range(60) if "forgot_sqrt_dk" in M.choice_ids(quizzes.from_id(f"{elsewhere}#{s}")))
    q = quizzes.from_id(f"{elsewhere}#{seed}")
    row = P.top_misconceptions(progress([att(q.id, M.choice_ids(q).index("forgot_sqrt_dk"))]))[0]
    assert (row.id, row.last_topic) == ("forgot_sqrt_dk", "formula")
    assert P.relearn(row.id).page == "scaling"


def test_the_form_misconception_is_practised_with_items_of_its_form_across_topics():
    got = drill.drill_ids("true_statement_judged_false", 5, random.Random(11))
    assert len(got) == 5
    for qid in got:
        q = quizzes.from_id(qid)
        assert M.question_form(q) == "worst" and "不適切なものを1つ選べ" in q.stem
        assert "true_statement_judged_false" in M.question_ids(q)          # answering it right clears it
    assert len({GENERATOR_INFO[q.rsplit("#", 1)[0]].topic for q in got}) == 5
    worst = set(drill.generators_for("true_statement_judged_false"))
    assert worst == set(drill.form_index()["worst"])
    assert {g for g in GENERATOR_INFO if GENERATOR_INFO[g].kind == "knowledge"} & worst   # knowledge items too
    assert {g for g in GENERATOR_INFO if GENERATOR_INFO[g].kind == "calc"} & worst        # and calculations


def test_a_small_pool_of_knowledge_items_gives_a_shorter_set_not_a_repeat():
    gens = drill.generators_for("teacher_forcing")
    assert gens and all(GENERATOR_INFO[g].kind == "knowledge" for g in gens) and len(gens) < 5
    got = drill.drill_ids("teacher_forcing", 5, random.Random(0), advanced=True)
    assert sorted(q.rsplit("#", 1)[0] for q in got) == sorted(gens)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(M.catalogue())), st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_a_set_never_repeats_an_item(mid, seed, n):
    got = drill.drill_ids(mid, n, random.Random(seed), advanced=True)
    gens = [q.rsplit("#", 1)[0] for q in got]
    pool = set(drill.generators_for(mid))
    calc = {g for g in pool if GENERATOR_INFO[g].kind == "calc"}
    assert len(got) == len(set(got))                                  # never the identical id
    knowledge_items = [g for g in gens if GENERATOR_INFO[g].kind == "knowledge"]
    assert len(knowledge_items) == len(set(knowledge_items))          # never one knowledge item twice
    stems = [quizzes.from_id(q).stem for q in got]
    assert len(stems) == len(set(stems))                              # nor a question shown twice
    if len(gens) != len(set(gens)):                                   # a calculation comes back only
        assert set(gens) == pool and n > len(pool)                    #   when every generator is used
    assert set(gens) <= pool
    assert len(got) == (n if calc or n <= len(pool) else len(pool))


def test_when_a_misconception_last_happened_reads_as_a_day_with_its_year_when_not_this_year():
    """The stored wall-clock time, as the dates elsewhere read (tutor.numfmt.day): a mistake of last
    December does not read like one of this December."""
    from datetime import date
    from practice.profile import ProfileRow
    from ui.profile import when_text
    for last_at, today, text in (("2026-12-01T09:02:00+09:00", date(2026, 12, 5), "最後は 12月1日（火） 09:02（直前の問題）"),
                                 ("2025-12-01T09:02:00+09:00", date(2026, 12, 5), "最後は 2025年12月1日（月） 09:02（直前の問題）"),
                                 ("2199-12-31T23:59:00-11:00", date(2026, 12, 5), "最後は 2199年12月31日（火） 23:59（直前の問題）")):
        row = ProfileRow("forgot_sqrt_dk", "√d_k で割り忘れ", 1.0, 1, last_at, "scaling", 0)
        assert when_text(row, today) == text
