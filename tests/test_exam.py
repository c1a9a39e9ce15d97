"""practice.exam: the exam in progress as a JSON-able dict (start, deadline, answers, flags,
submit), its strict validation when read back from the browser, the paper's mix (a handful
of calculations as in the real exam; 発展 items left out by default)."""
from __future__ import annotations

import copy
import json
import math
import re
from collections import Counter
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
from practice import exam as ex
from practice.progress import new_progress
from practice.store import validate_progress
from quizzes import knowledge
from quizzes.core import GENERATOR_INFO, Draft, QuizError, generator, register

from practice_fakes import fake_registry

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
NOW = 1_764_604_800.25          # 2026-12-01T16:00:00.25Z, epoch seconds
ADVANCED_CALC = {"training.softmax_grad", "training.bias_sgd", "output.top_p_blank", "cost.memory"}


def _adv_draft(k: int):
    def draft(rng) -> Draft:
        return Draft(stem=f"（発展 {k}）正しいものを1つ選べ。", correct=f"正しい発展 {k}",
                     wrong=tuple((f"誤った発展 {k}-{w}", f"誤解{w}：テスト用") for w in range(3)),
                     explanation=f"テスト用の発展問題 {k} の解説です。")
    return draft


@pytest.fixture
def fakes():
    with fake_registry():
        yield


def kinds(qids):
    return Counter(GENERATOR_INFO[q.split("#")[0]].kind for q in qids)


def started(n=10, pace=40, seed=7, now=NOW, **kw) -> dict:
    return ex.new_exam(n, pace, seed, now, **kw)


# ---------------------------------------------------------------------------
# start
# ---------------------------------------------------------------------------
def test_new_exam_is_a_plain_json_dict(fakes):
    s = started(10, 30, seed=3)
    assert set(s) == ex.STATE_KEYS
    assert json.loads(json.dumps(s)) == s                       # nothing that JSON cannot hold
    assert s["v"] == ex.STATE_VERSION and re.fullmatch(r"[0-9a-f]{8}", s["run"])
    assert len(s["qids"]) == 10 and s["qids"] == ex.build_exam(10, 3)
    assert (s["pace"], s["limit"], s["started_at"]) == (30, 300, NOW)
    assert s["answers"] == [None] * 10 and s["flags"] == [] and s["cur"] == 0
    assert ex.deadline(s) == NOW + 300
    assert [q.id for q in ex.questions(s)] == s["qids"]
    assert started(10, 30, seed=3) == s                         # same seed, same paper and run id
    assert started(10, 30, seed=4)["qids"] != s["qids"]


def test_new_exam_refuses_what_it_cannot_run(fakes):
    for pace in (0, 9, 601, True, 40.0):
        with pytest.raises(ValueError, match="1 問あたりの時間"):
            started(pace=pace)
    with pytest.raises(ValueError, match="識別子"):
        started(run="<script>")
    with fake_registry(topics=[]):
        with pytest.raises(ValueError, match="出題できる問題がありません"):
            started()


def test_new_exam_leaves_out_a_generator_that_fails(fakes):
    def broken(rng):
        raise QuizError("作れません")
    for t in quizzes.core.TOPICS:
        register(f"zz.{t}.broken", t, broken, kind="knowledge")
    s = started(40, seed=1)
    assert s["qids"] and not any("broken" in q for q in s["qids"])
    assert s["limit"] == len(s["qids"]) * 40 and len(s["answers"]) == len(s["qids"])


# ---------------------------------------------------------------------------
# the clock: deadline arithmetic on epoch seconds
# ---------------------------------------------------------------------------
def test_deadline_arithmetic(fakes):
    s = started(10, 40)                        # limit 400 s
    assert ex.seconds_left(s, NOW) == 400
    assert ex.seconds_left(s, NOW + 0.4) == 400          # whole seconds, rounded up
    assert ex.seconds_left(s, NOW + 399.5) == 1
    assert not ex.is_over(s, NOW + 399.9)
    assert ex.is_over(s, NOW + 400) and ex.is_over(s, NOW + 10_000)
    assert ex.seconds_left(s, NOW - 30) == 400           # a clock that stepped back: never more than the limit
    assert ex.fraction_left(s, NOW + 100) == 0.75
    assert ex.fraction_left(s, NOW + 500) == 0.0


# ---------------------------------------------------------------------------
# answers, flags, navigation: new dicts, the argument untouched
# ---------------------------------------------------------------------------
def test_answer_flag_and_navigate_return_new_states(fakes):
    s0 = started(10)
    before = copy.deepcopy(s0)
    s1 = ex.answer(s0, 0, 2, NOW + 5)
    s2 = ex.set_flag(ex.answer(s1, 3, 0, NOW + 9), 3, True)
    s3 = ex.go_to(ex.set_flag(s2, 1, True), 3)
    assert s0 == before                                   # never mutated
    assert s1["answers"][:2] == [2, None] and s2["answers"][3] == 0
    assert s3["flags"] == [1, 3] and s3["cur"] == 3
    assert ex.answer(s3, 0, None, NOW + 10)["answers"][0] is None   # cleared
    assert ex.set_flag(s3, 3, False)["flags"] == [1]
    assert ex.set_flag(s3, 3, True)["flags"] == [1, 3]               # flagging twice keeps one flag
    assert ex.go_to(s3, -4)["cur"] == 0 and ex.go_to(s3, 99)["cur"] == 9
    assert json.loads(json.dumps(s3)) == s3
    assert ex.status(s3) == {"answered": 2, "unanswered": [1, 2, 4, 5, 6, 7, 8, 9], "flagged": [1, 3], "total": 10}


def test_next_flagged_goes_forward_and_wraps(fakes):
    s = ex.set_flag(ex.set_flag(started(10), 2, True), 7, True)
    assert ex.next_flagged(s) == 2
    assert ex.next_flagged(ex.go_to(s, 2)) == 7
    assert ex.next_flagged(ex.go_to(s, 8)) == 2
    assert ex.next_flagged(started(10)) is None


def test_answer_after_the_deadline_does_not_count(fakes):
    s = started(10, 30)                                   # deadline NOW + 300
    assert ex.answer(s, 0, 1, NOW + 299.9)["answers"][0] == 1
    late = ex.answer(s, 0, 1, NOW + 300)
    assert late["answers"][0] is None and late == s


@pytest.mark.parametrize("i, choice", [(-1, 0), (10, 0), (True, 0), ("0", 0), (0, 4), (0, -1), (0, True), (0, 1.0)])
def test_answer_rejects_bad_indices(fakes, i, choice):
    with pytest.raises(ValueError) as err:
        ex.answer(started(10), i, choice, NOW)
    assert JAPANESE.search(str(err.value))


# ---------------------------------------------------------------------------
# submit
# ---------------------------------------------------------------------------
def test_submit_scores_unanswered_as_wrong_and_caps_the_time(fakes):
    s = started(5, 40)
    qs = ex.questions(s)
    s = ex.answer(ex.answer(s, 0, qs[0].answer, NOW + 3), 1, (qs[1].answer + 1) % 4, NOW + 4)
    rec = ex.submit(s, NOW + 95.7)
    assert json.loads(json.dumps(rec)) == rec
    assert rec["qids"] == s["qids"] and rec["answers"] == s["answers"]
    r = rec["result"]
    assert (r["score"], r["wrong"], r["unanswered"], r["total"]) == (1, 1, 3, 5)
    assert [it["correct"] for it in r["items"]] == [True, False, False, False, False]
    assert (rec["seconds"], rec["limit"], rec["pace"], rec["auto"]) == (95, 200, 40, False)
    assert rec["finished_at"] == NOW + 95.7
    late = ex.submit(s, NOW + 86_400, auto=True)          # the tab slept through the deadline
    assert late["finished_at"] == ex.deadline(s) and late["seconds"] == 200 and late["auto"]
    # the history record the progress file keeps agrees with it (float noise of epoch → datetime)
    hist = ex.history_record(late["result"], ex.local_time(late["started_at"]),
                             ex.local_time(late["finished_at"]), late["pace"])
    assert hist["seconds"] == 200 and hist["score"] == 1


@given(start=st.floats(1.75e9, 1.9e9), pace=st.sampled_from(ex.PACE_CHOICES), n=st.integers(1, 40))
@settings(max_examples=200)
def test_time_used_at_the_deadline_is_exactly_the_limit(start, pace, n):
    limit = n * pace
    end = start + limit
    assert ex._whole_seconds(ex.elapsed_s(start, end)) == limit
    assert ex._whole_seconds(ex.elapsed_s(ex.local_time(start), ex.local_time(end))) == limit


# ---------------------------------------------------------------------------
# reload: the state survives JSON and validate_state, the timer does not restart
# ---------------------------------------------------------------------------
def test_reloaded_state_gives_the_same_paper_answers_and_deadline(fakes):
    s = started(20, 40, seed=11)
    qs = ex.questions(s)
    s = ex.answer(s, 0, qs[0].answer, NOW + 20)
    s = ex.answer(s, 5, (qs[5].answer + 2) % 4, NOW + 61)
    s = ex.go_to(ex.set_flag(s, 5, True), 5)
    stored = json.dumps(s)                              # what the browser keeps
    later = NOW + 300                                   # the learner reloads the tab five minutes in
    back = ex.validate_state(json.loads(stored), now=later)
    assert back == s
    assert [q for q in ex.questions(back)] == qs        # the same questions, choices in the same order
    assert back["answers"] == s["answers"] and back["flags"] == [5] and back["cur"] == 5
    assert ex.deadline(back) == ex.deadline(s) == NOW + 800
    assert ex.seconds_left(back, later) == 500          # the clock went on while the tab was closed
    rec = ex.submit(back, later)
    assert rec["result"]["score"] == 1 and rec["seconds"] == 300


def test_a_reloaded_paper_past_its_deadline_is_submitted_with_its_answers(fakes):
    s = started(10, 30)
    s = ex.answer(s, 2, ex.questions(s)[2].answer, NOW + 10)
    back = ex.validate_state(json.loads(json.dumps(s)), now=NOW + 3_600)   # came back an hour later
    assert ex.is_over(back, NOW + 3_600)
    rec = ex.submit(back, NOW + 3_600, auto=True)
    assert rec["result"]["score"] == 1 and rec["seconds"] == 300 and rec["finished_at"] == NOW + 300


def test_validate_state_returns_a_fresh_normalised_copy(fakes):
    s = ex.set_flag(ex.set_flag(started(10), 4, True), 1, True)
    raw = json.loads(json.dumps(s))
    raw["flags"] = [4, 1]
    raw["started_at"] = int(NOW)                        # an integer epoch is fine too
    back = ex.validate_state(raw, now=NOW)
    assert back["flags"] == [1, 4] and back["started_at"] == float(int(NOW))
    back["answers"][0] = 3
    back["qids"].append("x")
    assert raw["answers"][0] is None and len(raw["qids"]) == 10


def _edit(path, value):
    def f(s):
        target = s
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
        return s
    return f


def _drop(key):
    def f(s):
        del s[key]
        return s
    return f


def _extra(s):
    s["admin"] = True
    return s


CORRUPT = {
    "not a dict": lambda s: [s],
    "a string": lambda s: json.dumps(s),
    "none": lambda s: None,
    "missing key": _drop("started_at"),
    "extra key": _extra,
    "version 2": _edit(["v"], 2),
    "version true": _edit(["v"], True),
    "run not hex": _edit(["run"], "<b>xx</b>"),
    "run number": _edit(["run"], 12345678),
    "qids empty": lambda s: {**s, "qids": [], "answers": [], "limit": 0},
    "qids not list": _edit(["qids"], "kb.qkv.k01#1"),
    "qid unknown generator": _edit(["qids", 0], "no.such.generator#1"),
    "qid without seed": _edit(["qids", 0], "zz.qkv.calc0"),
    "qid bad seed": _edit(["qids", 0], "zz.qkv.calc0#-1"),
    "qid huge seed": _edit(["qids", 0], "zz.qkv.calc0#" + "9" * 13),
    "qid script": _edit(["qids", 0], "<script>alert(1)</script>#1"),
    "qid not str": _edit(["qids", 0], 7),
    "too many qids": lambda s: {**s, "qids": s["qids"] * 21, "answers": s["answers"] * 21,
                                "limit": s["limit"] * 21},
    "pace bool": _edit(["pace"], True),
    "pace float": _edit(["pace"], 40.0),
    "pace too small": lambda s: {**s, "pace": 1, "limit": 10},
    "pace too large": lambda s: {**s, "pace": 10_000, "limit": 100_000},
    "limit mismatch": _edit(["limit"], 10_000),
    "limit string": _edit(["limit"], "400"),
    "started string": _edit(["started_at"], "2026-12-01T16:00:00"),
    "started nan": _edit(["started_at"], float("nan")),
    "started inf": _edit(["started_at"], float("inf")),
    "started bool": _edit(["started_at"], True),
    "started in the future": _edit(["started_at"], NOW + 3_600),
    "started before the app": _edit(["started_at"], 0),
    "deadline long past": _edit(["started_at"], NOW - 8 * 86_400),
    "answers short": _edit(["answers"], [None] * 9),
    "answers not list": _edit(["answers"], {"0": 1}),
    "answer 4": _edit(["answers", 0], 4),
    "answer negative": _edit(["answers", 0], -1),
    "answer bool": _edit(["answers", 0], True),
    "answer float": _edit(["answers", 0], 1.0),
    "answer string": _edit(["answers", 0], "A"),
    "flags not list": _edit(["flags"], {"1": True}),
    "flag out of range": _edit(["flags"], [10]),
    "flag negative": _edit(["flags"], [-1]),
    "flag duplicate": _edit(["flags"], [1, 1]),
    "flag bool": _edit(["flags"], [True]),
    "cur out of range": _edit(["cur"], 10),
    "cur bool": _edit(["cur"], False),
    "cur string": _edit(["cur"], "0"),
}


@pytest.mark.parametrize("name", CORRUPT)
def test_validate_state_rejects_corrupt_storage(fakes, name):
    good = json.loads(json.dumps(started(10)))
    ex.validate_state(copy.deepcopy(good), now=NOW)     # the untouched state passes
    bad = CORRUPT[name](copy.deepcopy(good))
    with pytest.raises(ValueError) as err:
        ex.validate_state(bad, now=NOW)
    assert JAPANESE.search(str(err.value)), str(err.value)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**15, 10**15) | st.floats(allow_nan=True)
                    | st.text(max_size=20), lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                    max_leaves=10)


@given(key=st.sampled_from(sorted(ex.STATE_KEYS)), value=JSON)
@settings(max_examples=300)
def test_validate_state_either_accepts_a_valid_state_or_raises_valueerror(key, value):
    with fake_registry():
        s = json.loads(json.dumps(started(10)))
        s[key] = value
        try:
            back = ex.validate_state(s, now=NOW)
        except ValueError as exc:
            assert JAPANESE.search(str(exc))
            return
        # whatever passed is a state the page can run
        assert set(back) == ex.STATE_KEYS and len(back["answers"]) == len(back["qids"])
        assert all(a is None or a in range(4) for a in back["answers"])
        assert 0 <= back["cur"] < len(back["qids"]) and ex.questions(back)


# ---------------------------------------------------------------------------
# the paper's mix: a handful of calculations, 発展 left out by default
# ---------------------------------------------------------------------------
def test_calc_count_rounds_half_up_and_checks_the_share():
    assert [ex.calc_count(n) for n in ex.LENGTHS] == [0, 1, 1]       # 10 × 0.03 = 0.3, 20 → 0.6, 40 → 1.2
    assert [ex.calc_count(n, 0.2) for n in ex.LENGTHS] == [2, 4, 8]
    assert ex.calc_count(145) == 4                                   # the real exam: 2–4 in ~145
    assert ex.calc_count(50, 0.1) == 5 and ex.calc_count(5, 0.1) == 1   # 0.5 rounds up
    for bad in (-0.1, 1.5, float("nan"), "0.2"):
        with pytest.raises(ValueError, match="割合"):
            ex.calc_count(10, bad)
    assert ex.DEFAULT_CALC_SHARE in ex.CALC_SHARE_CHOICES and set(ex.CALC_SHARE_LABELS) == set(ex.CALC_SHARE_CHOICES)
    assert ex.DEFAULT_CALC_SHARE == min(ex.CALC_SHARE_CHOICES) < 0.05


SYLLABUS_CALC = {"naive.weight", "qkv.projection", "scaling.divisor", "formula.g_weight", "multihead.head_dim",
                 "mask.causal_weight", "position.pe_angle", "block.layer_norm", "block.ffn_params",
                 "encdec.cross_shape", "output.temperature", "cost.self_attention_ops", "training.cross_entropy"}


def test_the_four_calc_generators_tagged_advanced():
    tagged = {g for g, i in GENERATOR_INFO.items() if i.kind == "calc" and i.advanced}
    assert ADVANCED_CALC <= tagged              # softmax Jacobian, p − y step of the ⑧ demo, top-p, tiling memory
    assert not SYLLABUS_CALC & tagged and SYLLABUS_CALC <= set(GENERATOR_INFO)
    assert all(quizzes.is_advanced(g + "#3") for g in ADVANCED_CALC)
    assert not quizzes.is_advanced("qkv.projection#3") and not quizzes.is_advanced("no.such#1")


def test_knowledge_items_carry_their_advanced_field():
    for topic, items in knowledge.bank().items():
        for item in items:
            assert GENERATOR_INFO[f"kb.{item['id']}"] == (topic, "knowledge", item.get("advanced", False))


def test_knowledge_loader_accepts_only_a_boolean_advanced_field():
    good = copy.deepcopy(knowledge.bank()["naive"][0])
    good.pop("advanced", None)
    knowledge.validate_item(good, "naive")
    knowledge.validate_item({**good, "advanced": True}, "naive")
    knowledge.validate_item({**good, "advanced": False}, "naive")
    for bad in ("true", 1, None):
        with pytest.raises(QuizError, match="advanced"):
            knowledge.validate_item({**good, "advanced": bad}, "naive")
    with pytest.raises(QuizError, match="キー"):
        knowledge.validate_item({**good, "level": "発展"}, "naive")


def test_register_and_generator_take_the_advanced_flag(fakes):
    register("zz.qkv.adv", "qkv", _adv_draft(0), kind="knowledge", advanced=True)
    generator("zz.mask.adv", "mask", kind="calc", advanced=True)(_adv_draft(1))
    register("zz.cost.plain", "cost", _adv_draft(2), kind="knowledge")
    assert GENERATOR_INFO["zz.qkv.adv"] == ("qkv", "knowledge", True) and GENERATOR_INFO["zz.qkv.adv"].advanced
    assert GENERATOR_INFO["zz.mask.adv"].advanced and not GENERATOR_INFO["zz.cost.plain"].advanced
    with pytest.raises(QuizError, match="advanced"):
        register("zz.cost.bad", "cost", _adv_draft(3), advanced="yes")


@pytest.mark.parametrize("n", ex.LENGTHS)
def test_default_paper_has_no_advanced_item_and_the_real_exams_share(n):
    """The real registry, many seeds: never a 発展 item, calculations = n × 3 % rounded half up."""
    n_calc, n_know = ex.planned_mix(n)
    assert n_calc == ex.calc_count(n) and n_calc + n_know == n
    for seed in range(300):
        ids = ex.build_exam(n, seed)
        assert not [q for q in ids if quizzes.is_advanced(q)], seed
        assert (kinds(ids)["calc"], kinds(ids)["knowledge"]) == (n_calc, n_know)


def test_a_setting_raises_the_calc_share_and_one_lets_advanced_items_in():
    calc_default = sum(kinds(ex.build_exam(40, s))["calc"] for s in range(50))
    calc_more = sum(kinds(ex.build_exam(40, s, calc_share=0.2))["calc"] for s in range(50))
    assert calc_default == 50 * 1 and calc_more == 50 * 8
    drawn = Counter(q.split("#")[0] for s in range(200) for q in ex.build_exam(40, s, calc_share=0.2, advanced=True))
    assert ADVANCED_CALC <= set(drawn)                  # each 発展 calc generator is drawn at some seed
    assert ex.planned_mix(40, 0.2, advanced=True) == (8, 32)


def test_advanced_knowledge_is_left_out_unless_asked(fakes):
    for k, t in enumerate(quizzes.core.TOPICS):
        register(f"zz.{t}.adv", t, _adv_draft(k), kind="knowledge", advanced=True)
    for seed in range(100):
        assert not [q for q in ex.build_exam(40, seed) if ".adv#" in q]
    with_adv = {q.split("#")[0] for seed in range(100) for q in ex.build_exam(40, seed, advanced=True)}
    assert {f"zz.{t}.adv" for t in quizzes.core.TOPICS} <= with_adv
    # only 発展 items exist: nothing to ask by default, a paper when the learner asks for them
    with fake_registry(topics=[]):
        register("zz.qkv.adv", "qkv", _adv_draft(0), kind="knowledge", advanced=True)
        assert ex.build_exam(10, 1) == []
        ids = ex.build_exam(10, 1, advanced=True)
        assert len(ids) == 1 and ids[0].startswith("zz.qkv.adv#")
        s = started(10, advanced=True)
        assert len(s["qids"]) == 1 and math.isclose(ex.deadline(s), NOW + 40)


# ---------------------------------------------------------------------------
# recording a finished exam: wrong answers are scheduled for review, unanswered ones are not
# ---------------------------------------------------------------------------
def test_record_exam_schedules_the_wrong_answers_but_not_the_unanswered(fakes):
    s = started(10, 40)
    qs = ex.questions(s)
    s = ex.answer(ex.answer(s, 0, qs[0].answer, NOW + 3), 1, (qs[1].answer + 1) % 4, NOW + 4)
    r = ex.submit(s, NOW + 60)["result"]
    t0 = datetime(2026, 12, 1, 16)
    p0 = new_progress()
    p = ex.record_exam(p0, r, t0, t0 + timedelta(minutes=1), 40)
    assert p0 == new_progress()
    assert list(p["review"]) == [qs[1].generator_id]        # the wrong answer's skill only, not the 8 unanswered
    assert [(a["qid"], a["correct"]) for a in p["attempts"]] == [(qs[0].id, True), (qs[1].id, False)]
    assert [(e["score"], e["total"]) for e in p["exams"]] == [(1, 10)]   # unanswered still count as wrong
    assert (r["wrong"], r["unanswered"]) == (1, 8)
    validate_progress(p)
    assert ex.review_note(r) == ("間違えた 1 問は復習の予定に入りました。"
                                 "未回答の 8 問は復習の予定に入れていません（解説は下の振り返りで読めます）。")


def test_an_abandoned_paper_adds_no_review_card(fakes):
    s = started(40, 40)
    r = ex.submit(s, NOW + 5)["result"]
    t0 = datetime(2026, 12, 1, 16)
    p = ex.record_exam(new_progress(), r, t0, t0 + timedelta(seconds=5), 40)
    assert p["review"] == {} and p["attempts"] == []
    assert [(e["score"], e["total"]) for e in p["exams"]] == [(0, 40)]
    assert ex.review_note(r) == "未回答の 40 問は復習の予定に入れていません（解説は下の振り返りで読めます）。"
