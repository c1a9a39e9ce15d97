"""The syllabus map (quizzes/syllabus.py, quizzes/data/syllabus.json; issue 43 items 1 and 5).

Checked against the app: every page, section (the page's own ui.sections table), question and glossary
term the map names exists; every syllabus keyword a page teaches is asked by ≥ 2 questions, one of them
不適切 or 穴埋め where the map says that is natural; questions listed under a syllabus keyword are not
tagged 発展, and questions listed only under 発展 keywords are. Keywords whose scope the sources could not
settle (``settled: false``) are left out of the tag check. Every settled syllabus keyword is planned and taught (the
last unplanned ones, GAN and its kin, NeRF and 音声生成, are taught on ⑪-2), and a keyword's plan is the page that
teaches it. Gaps may be listed below with their reason while a fix is under way: the
check fails when a listed gap is fixed (take it off the list) or a new one appears. Both lists are empty.
Each checker is first shown to catch a planted fault, so the repository checks cannot pass vacuously.
"""
from __future__ import annotations

import ast
import dataclasses
import json

import pytest

import quizzes  # noqa: F401  (registers every generator)
from quizzes import glossary, knowledge
from quizzes import syllabus as S
from quizzes.core import GENERATOR_INFO, QuizError
from apphelpers import ROOT
from ui.nav import LEARNING_KEYS, PAGE_BY_KEY
from ui.sections import TABS

MAP = S.load()

# Questions whose 発展 tag disagrees with the map, with the reason it is left so for now (none: issue 43).
KNOWN_TAG_DISAGREEMENTS: dict[str, str] = {}
# Syllabus keywords a page teaches with too few questions, with the reason (none: issue 43).
KNOWN_THIN: dict[str, str] = {}


# ---------------------------------------------------------------------------
# checkers: a map (and lookups into the app) → {what: problem}
# ---------------------------------------------------------------------------
def page_table(key: str) -> list[str]:
    """The section keys a learning page passes to ui.sections (as tests/test_glossary.py reads them)."""
    tree = ast.parse((ROOT / PAGE_BY_KEY[key].path).read_text(encoding="utf-8"))
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "sections"]
    return [part.elts[0].value for part in call.args[1].elts]


TABLES = {key: page_table(key) for key in LEARNING_KEYS if PAGE_BY_KEY[key].exists}
TERMS = {t.term for t in glossary.terms()}


def reference_problems(syl: S.Syllabus, *, tables=TABLES, generators=GENERATOR_INFO, terms=TERMS) -> dict:
    """Names that point at nothing: a page that is not a learning page, a section its page does not draw
    (explain shares the aim tab), a question id no generator has, a glossary term that is not there."""
    out = {}
    for k in syl.keywords:
        if k.page is not None:
            tab = "aim" if k.page_section == "explain" else k.page_section
            if k.page not in tables:
                out[k.keyword] = f"page {k.page!r} は学習ページではない"
            elif tab not in tables[k.page]:
                out[k.keyword] = f"{k.page} は節 {k.page_section!r} を描かない（{tables[k.page]}）"
        stale = [gid for gid in k.items if gid not in generators]
        if stale:
            out[k.keyword] = f"ない問題 {stale}"
        if k.glossary is not None and k.glossary not in terms:
            out[k.keyword] = f"用語集に「{k.glossary}」がない"
    return out


def thin_problems(syl: S.Syllabus, *, form_of=S.item_form) -> dict:
    """Settled syllabus keywords a page teaches with < 2 questions, or with no 不適切/穴埋め one where natural."""
    out = {}
    for k in syl.keywords:
        if not (k.in_scope and k.settled and k.page):
            continue
        if len(k.items) < 2:
            out[k.keyword] = f"問う問題が {len(k.items)} 問"
        elif k.worst_or_blank and not any(form_of(gid) in ("worst", "blank") for gid in k.items):
            out[k.keyword] = "不適切・穴埋めの形の問題がない"
    return out


def tag_problems(syl: S.Syllabus, *, advanced_of=S.is_advanced) -> dict:
    """{question id: problem} where its 発展 tag disagrees with the settled keywords that list it."""
    listed: dict[str, list[S.Keyword]] = {}
    for k in syl.keywords:
        if k.settled:
            for gid in k.items:
                listed.setdefault(gid, []).append(k)
    out = {}
    for gid, ks in listed.items():
        inside = [k.keyword for k in ks if k.in_scope]
        if inside and advanced_of(gid):
            out[gid] = f"発展 の印があるが、シラバスの語 {inside} を問う"
        elif not inside and not advanced_of(gid):
            out[gid] = f"発展 の語 {[k.keyword for k in ks]} だけを問うのに 発展 の印がない"
    return out


def uncovered(syl: S.Syllabus) -> dict:
    """{plan page: [keywords]} of settled syllabus keywords no page teaches yet."""
    return {page: [k.keyword for k in ks] for page, ks in S.coverage(syl).missing.items()}


def with_keyword(syl: S.Syllabus, name: str, **changes) -> S.Syllabus:
    """The map with one keyword changed (a planted fault)."""
    ks = tuple(dataclasses.replace(k, **changes) if k.keyword == name else k for k in syl.keywords)
    assert ks != syl.keywords, name
    return syl._replace(keywords=ks)


# ---------------------------------------------------------------------------
# each checker catches a planted fault
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, changes, found", [
    ("Attention", {"page": "exam"}, "学習ページではない"),
    ("Attention", {"page": "glossary"}, "学習ページではない"),           # a page, but not a learning page
    ("Attention", {"items": ("kb.naive.k99",)}, "ない問題"),
    ("Attention", {"items": ("naive.no_such_generator", "kb.naive.k01")}, "ない問題"),
    ("Attention", {"glossary": "存在しない用語"}, "用語集"),
])
def test_reference_checker_catches(name, changes, found):
    assert not reference_problems(MAP).get(name)
    assert found in reference_problems(with_keyword(MAP, name, **changes))[name]


def test_reference_checker_reads_a_section_a_page_does_not_draw():
    tables = {**TABLES, "naive": ["aim", "hand"]}                    # a page without 可視化
    syl = with_keyword(MAP, "Attention", page_section="visual")
    assert "節" in reference_problems(syl, tables=tables)["Attention"]
    assert "Attention" not in reference_problems(with_keyword(MAP, "Attention", page_section="explain"), tables=tables)


@pytest.mark.parametrize("name, changes, found", [
    ("Attention", {"items": ("kb.naive.k01",)}, "1 問"),
    ("Attention", {"items": ("kb.naive.k01", "kb.naive.k03")}, "不適切・穴埋め"),
])
def test_thin_checker_catches(name, changes, found):
    assert name not in thin_problems(MAP)
    assert found in thin_problems(with_keyword(MAP, name, **changes))[name]
    # a keyword where 不適切・穴埋め is not natural passes with two 最も適切 items; 発展 and unsettled ones are not counted
    assert name not in thin_problems(with_keyword(MAP, name, items=("kb.naive.k01", "kb.naive.k03"), worst_or_blank=False))
    assert name not in thin_problems(with_keyword(MAP, name, items=("kb.naive.k01",), scope="advanced"))
    assert name not in thin_problems(with_keyword(MAP, name, items=("kb.naive.k01",), settled=False))


def test_tag_checker_catches():
    base = tag_problems(MAP)
    assert "kb.llm.k06" not in base and "kb.naive.k01" not in base
    # an in-scope keyword listing a 発展 question
    syl = with_keyword(MAP, "Attention", items=("kb.naive.k01", "kb.llm.k06"))
    assert "シラバスの語" in tag_problems(syl)["kb.llm.k06"]
    # a 発展 keyword listing a question that is not 発展 (and no in-scope keyword lists it)
    syl = with_keyword(MAP, "Chinchilla", items=("kb.llm.k06", "kb.naive.k01"))
    syl = with_keyword(syl, "Attention", items=("kb.naive.k03", "kb.seq2seq.k02"))
    assert "だけを問う" in tag_problems(syl)["kb.naive.k01"]
    # an unsettled keyword is not used to judge
    syl = with_keyword(MAP, "Chinchilla", settled=False)
    assert "kb.llm.k06" not in tag_problems(syl) and "llm.optimal_tokens" not in tag_problems(syl)


def test_uncovered_lists_a_keyword_whose_page_is_taken_away():
    assert "Attention" not in sum(uncovered(MAP).values(), [])
    syl = with_keyword(MAP, "Attention", page=None, page_section=None, items=(), glossary=None)
    assert "Attention" in uncovered(syl)["naive"]
    syl = with_keyword(MAP, "Attention", page=None, page_section=None, items=(), glossary=None, plan=None)
    assert "Attention" not in sum(uncovered(syl).values(), []) and S.coverage(syl).unplanned[0].keyword == "Attention"


def _raw() -> dict:
    return json.loads(S.PATH.read_text(encoding="utf-8"))


@pytest.mark.parametrize("change, found", [
    (lambda k: k.update(scope="maybe"), "scope"),
    (lambda k: k.update(settled=False, note=""), "note"),
    (lambda k: k.update(aliases=["アテンション", "Self-Attention"]), "重なって"),
    (lambda k: k.update(plan="nosuchpage"), "plan"),
    (lambda k: k.update(page_section="quiz"), "page_section"),
    (lambda k: k.update(page=None), "page の無い語"),
    (lambda k: k.update(source=["Z"]), "source"),
    (lambda k: k.update(section="9-law"), "section"),
    (lambda k: k.pop("worst_or_blank"), "キー"),
])
def test_the_loader_rejects_a_malformed_map(change, found):
    data = _raw()
    change(data["keywords"][0])                       # "Attention"
    with pytest.raises(QuizError, match=found):
        S.parse(data)


# ---------------------------------------------------------------------------
# the repository's map
# ---------------------------------------------------------------------------
def test_the_map_names_its_edition_and_sources():
    meta = MAP.meta
    assert "2024" in meta["edition"] and "2024 #6" in meta["applies_from"] and meta["checked"]
    assert meta["url"].startswith("https://www.jdla.org/")
    used = {s for k in MAP.keywords for s in k.source}
    assert used == set(MAP.sources)                                # every source is used, no unknown one
    assert set(S.PAGE_SECTIONS) == set(TABS)                       # the section keys of ui.sections
    assert S.PATH.name in knowledge.NOT_BANK


def test_every_page_section_question_and_glossary_term_the_map_names_exists():
    assert reference_problems(MAP) == {}


def test_every_taught_syllabus_keyword_is_asked_twice_with_a_worst_or_blank_where_natural():
    assert set(thin_problems(MAP)) == set(KNOWN_THIN), thin_problems(MAP)


def test_the_advanced_tags_agree_with_the_map():
    assert set(tag_problems(MAP)) == set(KNOWN_TAG_DISAGREEMENTS), tag_problems(MAP)


def test_the_lookups_the_app_uses():
    assert S.in_scope("ChatGPT") and S.in_scope("自己注意") and not S.in_scope("Chinchilla")
    with pytest.raises(QuizError):
        S.in_scope("存在しない語")
    assert S.find("multi head attention").keyword == "Multi-Head Attention"   # compared as the glossary search does
    assert [k.keyword for k in S.keywords_of("kb.efficient.k02#7")] == ["Multi-Query Attention（MQA）",
                                                                         "Grouped-Query Attention（GQA）"]
    assert S.keywords_of("no.such#1") == ()
    assert set(S.keywords("syllabus")) | set(S.keywords("advanced")) == set(S.keywords())
    cov = S.coverage()
    assert all(k.in_scope and k.settled and k.covered for k in cov.covered)
    assert all(not k.settled for k in cov.unsettled) and all(k.plan is None for k in cov.unplanned)
    assert S.item_form("kb.naive.k04") == "worst" and S.item_form("naive.chain_blank") == "blank"
    assert S.item_form("naive.weight") == "best" and S.item_form("kb.seq2seq.k02") == "blank"


GENERATION = {"敵対的生成ネットワーク（GAN）", "DCGAN", "Pix2Pix", "CycleGAN", "NeRF", "音声生成"}   # taught on ⑪-2


def test_every_syllabus_keyword_is_taught():
    """Every settled syllabus keyword is taught on a page and asked (≥ 2 questions: the test above),
    none is left unplanned (⑪-2 took the last six); a keyword's plan is the page that teaches it."""
    assert uncovered(MAP) == {}
    assert S.coverage(MAP).unplanned == ()
    assert {k.keyword for k in MAP.keywords if k.page == "generation"} == GENERATION
    assert [k.keyword for k in MAP.keywords if k.page and k.plan != k.page] == []
    assert not MAP.planned_pages                                   # every page the map planned exists
