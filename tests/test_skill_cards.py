"""Issue 35, item 1: a review card is a skill, not a printed item (practice.skill).

- the card is keyed by the skill: a calculation generator, or a knowledge item's fact (siblings
  that share a ``fact`` in the bank share one card);
- answering ANY instance, anywhere, rates the one card; the attempt log keeps the exact id shown;
- the review draws a fresh instance: never the id last shown, its right answer at another letter;
  deterministic given the seed or generator passed in;
- records from before (schema 2: a card per question id) migrate without losing a card or an
  attempt, from a file and from browser storage; the cards of one skill merge by a stated rule
  (practice.skill.merged). tests/data/progress_v2_question_cards.json was written by the code of
  that time (practice.progress.apply_answer on real questions, then practice.store.export_bytes):
  12 answers on page, exam, review and drill, leaving 7 cards of 4 skills (three printed
  naive.score_element items, two kb.naive.k02 orders); it is never rewritten;
- two tabs' records with skill cards merge; the schedule never grows without bound.
The page (/review) is tested in tests/test_review_page.py."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizzes
from practice import review as rv
from practice import skill, store
from practice.progress import (SCHEMA_VERSION, apply_answer, apply_answers, drop_review, merge, new_progress,
                               record_visit)
from practice.store import ProgressError, export_bytes, parse_progress_bytes, parse_progress_text
from quizzes import knowledge
from quizzes.core import GENERATOR_INFO, QuizError

from practice_fakes import fake_registry

DATA = Path(__file__).parent / "data"
V2_FILE = DATA / "progress_v2_question_cards.json"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=9)))
REAL_CALC = sorted(g for g, i in GENERATOR_INFO.items() if i.kind == "calc")
REAL_KNOW = sorted(g for g, i in GENERATOR_INFO.items() if i.kind == "knowledge")


def siblings(monkeypatch, *groups: tuple[str, ...]) -> None:
    """Pretend the bank names facts shared by these items (the real bank has none yet)."""
    monkeypatch.setattr(knowledge, "fact_groups",
                        lambda: {f"fact{i}": tuple(sorted(g)) for i, g in enumerate(groups)})


# ---------------------------------------------------------------------------
# the skill key
# ---------------------------------------------------------------------------
def test_the_skill_of_a_calculation_is_its_generator_and_of_a_knowledge_item_the_item():
    calc, know = REAL_CALC[0], REAL_KNOW[0]
    assert skill.key(f"{calc}#42") == calc == skill.key(f"{calc}#7") == skill.key(calc)
    assert skill.key(f"{know}#3") == know == skill.key(know)
    assert skill.is_skill(calc) and skill.is_skill(know)
    assert not skill.is_skill(f"{calc}#42") and not skill.is_skill("gone.gen") and not skill.is_skill(3)
    assert skill.topic(calc) == GENERATOR_INFO[calc].topic and skill.topic("gone.gen", "qkv") == "qkv"
    assert skill.key("gone.gen#1") == "gone.gen"           # an unknown generator keeps its name (store decides)
    assert knowledge.fact_groups() == {}                    # the bank names no shared facts (yet)


@settings(max_examples=200)
@given(gid=st.sampled_from(REAL_CALC + REAL_KNOW), seed=st.integers(0, 10**12))
def test_every_question_id_has_one_skill_key_that_is_its_own_key(gid, seed):
    k = skill.key(f"{gid}#{seed}")
    assert skill.is_skill(k) and skill.key(k) == k and "#" not in k
    assert skill.topic(k) == GENERATOR_INFO[gid].topic


def test_siblings_on_one_fact_share_one_key(monkeypatch):
    with fake_registry():
        siblings(monkeypatch, ("zz.qkv.know2", "zz.qkv.know1"))
        assert skill.instances("zz.qkv.know2") == ("zz.qkv.know1", "zz.qkv.know2")
        assert skill.key("zz.qkv.know2#5") == skill.key("zz.qkv.know1#9") == "zz.qkv.know1"
        assert skill.is_skill("zz.qkv.know1") and not skill.is_skill("zz.qkv.know2")
        assert skill.key("zz.qkv.know0#1") == "zz.qkv.know0"          # not in a group: its own fact
        # a sibling missing from this version: the fact lives on in the other one
        siblings(monkeypatch, ("zz.qkv.gone", "zz.qkv.know1"))
        assert skill.key("zz.qkv.gone#3") == "zz.qkv.know1"


def test_the_bank_accepts_a_fact_name_and_refuses_a_bad_one():
    good = {"id": "naive.k99", "form": "best", "stem": "問", "answer": "正しい", "keywords": [],
            "wrong": [{"text": f"誤り{i}", "why": "誤解：理由"} for i in range(3)],
            "explanation": "解説" * 25}
    knowledge.validate_item({**good, "fact": "softmax_rows"}, "naive")
    for bad in ("Softmax", "", "a b", "x" * 41, 3):
        with pytest.raises(QuizError):
            knowledge.validate_item({**good, "fact": bad}, "naive")


# ---------------------------------------------------------------------------
# drawing the question to show for a due card
# ---------------------------------------------------------------------------
@settings(max_examples=120)
@given(gid=st.sampled_from(REAL_CALC + REAL_KNOW), shown=st.integers(0, 999_999), seed=st.integers(0, 2**63))
def test_the_review_draws_another_instance_with_the_answer_at_another_letter(gid, shown, seed):
    last = f"{gid}#{shown}"
    before = quizzes.from_id(last)
    qid = skill.draw(gid, seed, last)
    q = quizzes.from_id(qid)
    assert qid != last and skill.key(qid) == skill.key(last) == gid
    assert q.answer != before.answer and (q.stem, q.choices) != (before.stem, before.choices)
    if before.kind == "knowledge":                                 # the same fact, the choices reordered
        assert q.stem == before.stem and sorted(q.choices) == sorted(before.choices)
    assert skill.draw(gid, seed, last) == qid                      # deterministic given the seed
    assert skill.draw(gid, np.random.default_rng(seed), last) == skill.draw(gid, np.random.default_rng(seed), last)


def test_draw_without_a_last_question_and_for_a_gone_skill():
    gid = REAL_CALC[0]
    assert skill.key(skill.draw(gid, 5)) == gid
    assert skill.draw(gid, 5, "gone.gen#3").startswith(gid + "#")   # a last id that cannot be made: ignored
    rng = np.random.default_rng(1)
    assert len({skill.draw(gid, rng) for _ in range(20)}) > 1       # a Generator is advanced
    with pytest.raises(QuizError):
        skill.draw("gone.gen", 1)
    with pytest.raises(TypeError):
        skill.draw(gid, "seed")


def test_a_fact_with_a_sibling_is_reviewed_through_the_other_item(monkeypatch):
    with fake_registry():
        siblings(monkeypatch, ("zz.qkv.know1", "zz.qkv.know2"))
        for seed in range(30):
            assert skill.draw("zz.qkv.know1", seed, "zz.qkv.know1#4").startswith("zz.qkv.know2#")
            assert skill.draw("zz.qkv.know1", seed, "zz.qkv.know2#4").startswith("zz.qkv.know1#")
        # answering either sibling rates the one card of the fact
        p = apply_answer(new_progress(), "zz.qkv.know2#4", "qkv", False, 1, "page", T0)
        p = apply_answer(p, "zz.qkv.know1#8", "qkv", True, 0, "review", T0 + timedelta(minutes=5))
        assert list(p["review"]) == ["zz.qkv.know1"] and p["review"]["zz.qkv.know1"]["reps"] == 2
        assert [a["qid"] for a in p["attempts"]] == ["zz.qkv.know2#4", "zz.qkv.know1#8"]


def test_a_skill_with_one_small_form_still_never_repeats_the_last_id(monkeypatch):
    """A generator whose every seed prints the same question (a worst case): the draw still moves
    to another id, and prefers another letter when there is one."""
    with fake_registry(topics=[]):
        quizzes.core.register("zz.one.form", "qkv", lambda rng: quizzes.core.Draft(
            "同じ問い", "正", (("誤1", "a：a"), ("誤2", "b：b"), ("誤3", "c：c")), "解説"), kind="knowledge")
        for seed in range(20):
            qid = skill.draw("zz.one.form", seed, "zz.one.form#0")
            assert qid != "zz.one.form#0"
            assert quizzes.from_id(qid).answer != quizzes.from_id("zz.one.form#0").answer


# ---------------------------------------------------------------------------
# answering any instance rates the one card; the log keeps the exact id
# ---------------------------------------------------------------------------
SKILLS = ["zz.qkv.calc0", "zz.qkv.know1", "zz.mask.calc1"]
ANSWERS = st.lists(st.tuples(st.sampled_from(SKILLS), st.integers(0, 999_999), st.booleans(),
                             st.sampled_from(["page", "exam", "review", "drill"])), max_size=30)


@settings(max_examples=150)
@given(answers=ANSWERS)
def test_answering_any_instance_rates_the_one_card_of_its_skill(answers):
    with fake_registry():
        p = new_progress()
        for i, (g, seed, ok, source) in enumerate(answers):
            p = apply_answer(p, f"{g}#{seed}", g.split(".")[1], ok, 0, source, T0 + timedelta(minutes=9 * i))
        assert [a["qid"] for a in p["attempts"]] == [f"{g}#{s}" for g, s, _, _ in answers]   # exact ids shown
        assert all(skill.is_skill(k) for k in p["review"])
        for g in SKILLS:
            mine = [ok for gg, _, ok, _ in answers if gg == g]
            first_wrong = next((i for i, ok in enumerate(mine) if not ok), None)
            if first_wrong is None:
                assert g not in p["review"]                          # never missed: no card
            else:
                card = p["review"][g]                                # one card, every answer since the miss
                assert card["reps"] == len(mine) - first_wrong
                assert card["lapses"] == sum(1 for ok in mine[first_wrong + 1:] if not ok)
        store.validate_progress(p)


def test_answering_one_skill_a_thousand_times_keeps_one_card_and_the_schedule_stays_bounded(monkeypatch):
    with fake_registry():
        p = apply_answers(new_progress(), [(f"zz.qkv.calc0#{s}", "qkv", s % 3 == 0, 1) for s in range(1000)],
                          "page", T0)
        assert list(p["review"]) == ["zz.qkv.calc0"] and len(p["attempts"]) == 1000
        monkeypatch.setattr(rv, "MAX_ITEMS", 5)                      # the bound holds for skills too
        skills = sorted(GENERATOR_INFO)[:20]
        p = new_progress()
        for i, g in enumerate(skills):
            p = apply_answer(p, f"{g}#{i}", GENERATOR_INFO[g].topic, False, 1, "page", T0 + timedelta(minutes=i))
            assert len(p["review"]) <= 5 and f"{g}" in p["review"]   # the card just missed is kept


def test_drop_review_takes_a_skill_or_an_instance_of_it():
    with fake_registry():
        p = apply_answer(new_progress(), "zz.qkv.calc0#1", "qkv", False, 1, "page", T0)
        assert drop_review(p, "zz.qkv.calc0")["review"] == {} == drop_review(p, "zz.qkv.calc0#77")["review"]
        assert drop_review(p, "zz.qkv.calc1")["review"] == p["review"]


# ---------------------------------------------------------------------------
# merging the cards of one skill (the migration rule)
# ---------------------------------------------------------------------------
def card(due: str, last: str | None, stability: float | None, lapses: int = 0, reps: int = 1, state: int = 1,
         topic: str = "qkv") -> dict:
    return {"topic": topic, "state": state, "step": 0 if state != 2 else None, "stability": stability,
            "difficulty": None if stability is None else 5.0, "due": due,
            "last_review": last, "lapses": lapses, "reps": reps}


def test_merged_keeps_the_last_reviewed_memory_the_earliest_due_and_adds_the_counts():
    old_right = card("2026-03-20T00:00:00+00:00", "2026-03-01T00:00:00+00:00", 19.0, lapses=1, reps=4, state=2)
    fresh_miss = card("2026-03-10T00:10:00+00:00", "2026-03-10T00:00:00+00:00", 0.2, lapses=0, reps=1)
    never = card("2026-03-05T00:00:00+00:00", None, None, reps=0)
    got = skill.merged([old_right, fresh_miss, never], "qkv")
    assert {k: got[k] for k in ("state", "step", "stability", "difficulty", "last_review")} == {
        k: fresh_miss[k] for k in ("state", "step", "stability", "difficulty", "last_review")}
    assert got["due"] == never["due"] and got["lapses"] == 1 and got["reps"] == 5
    assert skill.merged([old_right]) is old_right and skill.merged([old_right], "mask")["topic"] == "mask"
    huge = card("2026-03-05T00:00:00+00:00", None, None, lapses=skill.MAX_COUNT, reps=skill.MAX_COUNT)
    assert skill.merged([huge, huge])["lapses"] == skill.MAX_COUNT      # still within what the store accepts
    with pytest.raises(ValueError):
        skill.merged([])


V2_CARDS = st.dictionaries(
    st.builds(lambda g, s: f"{g}#{s}", st.sampled_from(["zz.qkv.calc0", "zz.qkv.calc1", "zz.mask.know2"]),
              st.integers(0, 50)),
    st.builds(lambda box, day, lapses: (box, f"2026-03-{day:02d}", lapses),
              st.integers(1, 5), st.integers(1, 28), st.integers(0, 9)),
    max_size=25)


@settings(max_examples=150)
@given(old=V2_CARDS)
def test_rekey_keeps_a_card_for_every_skill_that_had_one(old):
    with fake_registry():
        review = {q: rv.from_box(q.split(".")[1], box, day, lapses) for q, (box, day, lapses) in old.items()}
        got = skill.rekey(review)
        assert set(got) == {skill.key(q) for q in review} and len(got) <= len(review)
        for s, c in got.items():
            mine = [v for q, v in review.items() if skill.key(q) == s]
            assert c["due"] == min(v["due"] for v in mine)
            assert c["lapses"] == sum(v["lapses"] for v in mine) and c["reps"] == sum(v["reps"] for v in mine)
        assert skill.rekey(got) is got                               # skill keys already: unchanged
        store.validate_progress({**new_progress(), "review": got})


# ---------------------------------------------------------------------------
# migration: a record written before skill cards (schema 2)
# ---------------------------------------------------------------------------
def v2_record() -> dict:
    return json.loads(V2_FILE.read_text(encoding="utf-8"))


def test_the_fixture_is_a_schema_2_record_with_several_cards_of_one_skill():
    old = v2_record()
    assert old["version"] == 2 == SCHEMA_VERSION - 1
    assert all("#" in k for k in old["review"])
    by_skill = {}
    for q in old["review"]:
        by_skill.setdefault(skill.key(q), []).append(q)
    assert max(len(v) for v in by_skill.values()) == 3 and len(by_skill) < len(old["review"])


@pytest.mark.parametrize("where", ["file", "browser"])
def test_a_schema_2_record_migrates_without_losing_a_card_or_an_attempt(where):
    old = v2_record()
    raw = V2_FILE.read_bytes()
    notes = []
    got = (parse_progress_bytes(raw, notes) if where == "file"
           else parse_progress_text(json.dumps(old, ensure_ascii=False, separators=(",", ":")), notes))
    assert notes == [] and got["version"] == SCHEMA_VERSION
    for part in ("visited", "attempts", "exams", "exam_in_progress"):
        assert got[part] == old[part], part                          # every attempt with its exact id
    assert got["settings"] == {**store.SETTINGS_ADDED, **old["settings"]}   # settings added since: defaults
    assert set(got["review"]) == {skill.key(q) for q in old["review"]}   # every skill that had a card has one
    for s, c in got["review"].items():
        cards = [v for q, v in old["review"].items() if skill.key(q) == s]
        assert c == skill.merged(cards, GENERATOR_INFO[s].topic)
        assert c["due"] == min((v["due"] for v in cards), key=datetime.fromisoformat)
    assert got["review"]["naive.score_element"]["reps"] == 5 and got["review"]["kb.naive.k02"]["reps"] == 3
    assert store.validate_progress(got) is got
    assert parse_progress_bytes(export_bytes(got)) == got            # and it is written back as schema 3
    assert json.loads(store.dumps(got))["version"] == SCHEMA_VERSION


def test_a_migrated_record_reviews_each_skill_once_with_a_new_instance():
    got = parse_progress_bytes(V2_FILE.read_bytes())
    due = rv.due_items(got["review"], datetime(2026, 12, 1).date())
    assert len(due) == len(set(due)) == len(got["review"]) == 4          # one review per skill, not per item
    last = skill.last_shown(got["attempts"], "naive.score_element")
    assert last == "naive.score_element#42"
    assert skill.draw("naive.score_element", 3, last) != last


def test_a_schema_2_record_with_renamed_and_gone_items_keeps_the_rest():
    old = v2_record()
    cards = old["review"]
    cards["kb.multihead.k04#5"] = {**cards["kb.block.k10#9"], "topic": "multihead",
                                   "due": "2026-11-21T00:00:00+00:00", "lapses": 2}
    cards["gone.gen#1"] = cards["qkv.projection#8"]
    notes = []
    got = parse_progress_bytes(json.dumps(old).encode(), notes)
    assert notes == ["もうない問題の復習予定 1 問を外しました。"]
    merged = got["review"]["kb.block.k10"]                           # the moved item joined its new id's card
    assert merged["due"] == "2026-11-21T00:00:00+00:00" and merged["lapses"] == 2 and merged["topic"] == "block"


def test_schema_3_cards_are_checked_as_skills():
    with fake_registry():
        p = apply_answer(new_progress(), "zz.qkv.calc0#1", "qkv", False, 1, "page", T0)
        c = p["review"]["zz.qkv.calc0"]
        with pytest.raises(ProgressError, match="問題 id"):
            store.validate_progress({**p, "review": {"zz.qkv.calc0#1": c}})   # a question id is not a skill key
        with pytest.raises(ProgressError, match="トピック"):
            store.validate_progress({**p, "review": {"zz.qkv.calc0": {**c, "topic": "mask"}}})
        with pytest.raises(ProgressError, match="もうありません"):
            store.validate_progress({**p, "review": {"zz.gone": c}})
        notes = []
        assert parse_progress_bytes(json.dumps({**p, "review": {"zz.qkv.gone": c}}).encode(), notes)["review"] == {}
        assert notes == ["もうない問題の復習予定 1 問を外しました。"]   # a removed generator is salvaged away
        for text in ("www.evil.example", "gone", "zz.gone", "zz.qkv.Gone"):   # not a generator's name: refused
            with pytest.raises(ProgressError):
                parse_progress_bytes(json.dumps({**p, "review": {text: c}}).encode())


def test_a_record_whose_cards_became_siblings_is_merged_when_read(monkeypatch):
    """The bank later gives two items one fact: a record with a card for each reads as one card."""
    with fake_registry():
        p = apply_answer(new_progress(), "zz.qkv.know1#1", "qkv", False, 1, "page", T0)
        p = apply_answer(p, "zz.qkv.know2#1", "qkv", False, 1, "page", T0 + timedelta(hours=1))
        assert sorted(p["review"]) == ["zz.qkv.know1", "zz.qkv.know2"]
        siblings(monkeypatch, ("zz.qkv.know1", "zz.qkv.know2"))
        got = store.validate_progress(p)
        assert list(got["review"]) == ["zz.qkv.know1"] and got is not p and len(p["review"]) == 2
        assert got["review"]["zz.qkv.know1"]["reps"] == 2
        assert parse_progress_bytes(json.dumps(p).encode()) == got


# ---------------------------------------------------------------------------
# two tabs
# ---------------------------------------------------------------------------
def test_two_tabs_answering_instances_of_one_skill_merge_into_one_card():
    with fake_registry():
        base = record_visit(apply_answer(new_progress(), "zz.qkv.calc0#1", "qkv", False, 1, "page", T0), "qkv")
        mine = apply_answer(base, "zz.qkv.calc0#2", "qkv", True, 0, "review", T0 + timedelta(minutes=10))
        theirs = apply_answer(base, "zz.qkv.calc0#3", "qkv", False, 2, "page", T0 + timedelta(minutes=20))
        theirs = apply_answer(theirs, "zz.mask.know1#3", "mask", False, 2, "page", T0 + timedelta(minutes=21))
        out = merge(base, mine, theirs)
        assert sorted(out["review"]) == ["zz.mask.know1", "zz.qkv.calc0"]
        assert out["review"]["zz.qkv.calc0"] == theirs["review"]["zz.qkv.calc0"]   # reviewed last
        assert [a["qid"] for a in out["attempts"]] == ["zz.qkv.calc0#1", "zz.qkv.calc0#2", "zz.qkv.calc0#3",
                                                       "zz.mask.know1#3"]
        assert store.validate_progress(out) is not None
        assert merge(base, mine, base)["review"] == mine["review"]


@settings(max_examples=80)
@given(a=ANSWERS, b=ANSWERS)
def test_merged_records_keep_skill_keys_and_every_card_either_tab_changed(a, b):
    with fake_registry():
        def play(p, answers, start):
            for i, (g, seed, ok, source) in enumerate(answers):
                p = apply_answer(p, f"{g}#{seed}", g.split(".")[1], ok, 0, source, start + timedelta(minutes=3 * i))
            return p
        base = play(new_progress(), a[:3], T0)
        mine, theirs = play(base, a[3:], T0 + timedelta(days=1)), play(base, b, T0 + timedelta(days=2))
        out = merge(base, mine, theirs)
        assert all(skill.is_skill(k) for k in out["review"]) and len(out["review"]) <= len(SKILLS)
        assert set(out["review"]) == (set(mine["review"]) | set(theirs["review"]))
        store.validate_progress(out)

