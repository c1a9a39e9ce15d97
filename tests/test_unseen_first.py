"""Practice draws what the learner has not met first (issue 37, item bank): an hour of page
quizzes, drill and mock exams does not repeat a knowledge item while unseen ones remain."""
import random

from hypothesis import given, strategies as hs

import quizzes
from practice import exam as ex
from practice.drill import drill_ids, generators_for
from practice.skill import key, seen, unseen_first
from quizzes.core import GENERATOR_INFO
from quizzes.misconceptions import catalogue

from apphelpers import open_page


@given(hs.lists(hs.sampled_from(sorted(GENERATOR_INFO)), unique=True, max_size=30), hs.data())
def test_unseen_first_is_a_stable_partition(gids, data):
    met = frozenset(data.draw(hs.lists(hs.sampled_from(gids), unique=True)) if gids else [])
    out = unseen_first(gids, met)
    assert sorted(out) == sorted(gids)
    fresh = [g for g in out if key(g) not in met]
    assert out[:len(fresh)] == [g for g in gids if key(g) not in met]      # first, in their order
    assert out[len(fresh):] == [g for g in gids if key(g) in met]


def _each_topic_took_its_unseen_first(picked: list[str], met: frozenset[str], pool: list[str]) -> None:
    for topic in {GENERATOR_INFO[g].topic for g in picked}:
        mine = [g for g in picked if GENERATOR_INFO[g].topic == topic]
        unseen_left = [g for g in pool if GENERATOR_INFO[g].topic == topic and key(g) not in met and g not in mine]
        if any(key(g) in met for g in mine):
            assert not unseen_left, (topic, unseen_left)


def test_a_mock_exam_asks_the_unseen_knowledge_items_of_a_topic_before_the_seen_ones():
    _calc, know = ex.exam_pool(False)
    rng = random.Random(3)
    for seed in range(20):
        met = frozenset(g for g in know if rng.random() < 0.7)
        paper = [q.partition("#")[0] for q in ex.build_exam(40, seed, seen=met)]
        _each_topic_took_its_unseen_first([g for g in paper if g in know], met, know)


def test_an_hour_of_mock_exams_repeats_no_knowledge_item_while_unseen_ones_remain():
    _calc, know = ex.exam_pool(False)
    attempts: list[dict] = []
    for seed in range(40):
        met = seen(attempts)
        unseen_before = [g for g in know if key(g) not in met]
        paper = ex.build_exam(20, seed, seen=met)
        asked = [q.partition("#")[0] for q in paper if q.partition("#")[0] in know]
        repeated = [g for g in asked if key(g) in met]
        if repeated:                       # only once every unseen item of that topic was asked
            _each_topic_took_its_unseen_first(asked, met, know)
        assert len({g for g in asked if g in unseen_before}) == min(len(unseen_before), len(asked)) or repeated
        attempts += [{"qid": q} for q in paper]
    assert not [g for g in know if key(g) not in seen(attempts)]          # every item was met


def test_a_drill_set_prefers_skills_not_met_yet():
    """A second set of a drill brings the skills the first set did not, before any of the first."""
    mid = next(m.id for m in catalogue().values() if len(generators_for(m.id)) >= 10)
    first = drill_ids(mid, 5, random.Random(1))
    met = seen([{"qid": q} for q in first])
    second = drill_ids(mid, 5, random.Random(1), seen=met)
    assert not {key(q) for q in second} & met, (first, second)


def test_the_page_quiz_draws_knowledge_items_not_met_yet():
    """② : with every knowledge item but one answered, a new set of cards brings that one."""
    know = quizzes.by_topic("qkv", "knowledge")
    left = know[-1]
    from practice.progress import apply_answers, new_progress
    p = apply_answers(new_progress(), [(f"{g}#1", "qkv", True, quizzes.from_id(f"{g}#1").answer) for g in know[:-1]])
    at = open_page("pages/2_qkv.py", session={"progress": p}, section="quiz")
    ids = at.session_state["quiz_qkv__ids"]
    assert [i for i in ids if i.startswith("kb.")] == [i for i in ids if i.partition("#")[0] == left]
