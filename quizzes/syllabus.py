"""The syllabus map (シラバスの地図): every G検定 2024 詳細キーワード around attention, where the app
teaches it and which questions ask it (issue 43). No streamlit: the app can show learners what it
covers (:func:`coverage`), and a mock exam can weight or filter by keyword (:func:`keywords_of`,
:func:`in_scope`).

File: ``quizzes/data/syllabus.json`` (how the list was made, with its sources: docs/syllabus-research.md)::

    {"version": 1, "edition": "...", "document": "...", "url": "...", "checked": "2026-12-07",
     "sources": {"S1": {"title": "...", "url": "..."}, ...},      # what settles a keyword's scope
     "outside": ["機械学習の概要", ...],                           # the syllabus's parts the app leaves out
     "sections": {"5-attention": {"major": "...", "middle": "Attention", "goal": "...",
                                  "part": "..."}, ...},          # part: only this part of the 中項目 is covered
     "planned_pages": {"newkey": "⑫ ...", ...},                  # optional: pages being written (not in TOPICS
                                                                 #   yet); none today, every page the map named exists
     "keywords": [
       {"keyword": "Source-Target Attention",   # JDLA's spelling; unique with its aliases (normalized)
        "aliases": ["交差注意"],
        "section": "5-attention",                # the syllabus section (大項目 › 中項目) it sits in / extends
        "scope": "syllabus" | "advanced",        # advanced = 発展: named in standard texts, not in the syllabus
        "settled": false,                        # optional (default true): the sources could not settle the scope
        "source": ["B", "C"],                    # the sources (keys of "sources") that settle it
        "note": "...",                           # optional; required when not settled
        "plan": "encdec" | null,                 # the page that should teach it (a TOPICS or planned key; once a
                                                 #   page teaches it, that page: tests/test_syllabus.py);
                                                 #   null: the app does not plan to (not the attention family)
        "page": "encdec" | null,                 # coverage: the page that teaches it today ...
        "page_section": "aim" | null,            #   ... its section (ui.sections: aim/explain/hand/visual/try)
        "items": ["kb.encdec.k01", "encdec.cross_output"],   # generator ids of the questions that ask it
        "glossary": "Source-Target Attention" | null,        # its glossary term
        "worst_or_blank": true}]}                # a 不適切 or 穴埋め item is natural for it (tests/test_syllabus.py)

A keyword no page teaches yet has ``page``/``page_section``/``glossary`` null and no ``items``; the lead
fills them in when its page lands. Whether the named pages, sections, items and glossary terms exist,
and whether the items' 発展 tags agree with the scope, is checked in tests/test_syllabus.py.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from .core import GENERATOR_INFO, GENERATORS, TOPICS, QuizError
from .glossary import normalize
from .knowledge import bank

PATH = Path(__file__).with_name("data") / "syllabus.json"
SCOPES = ("syllabus", "advanced")
PAGE_SECTIONS = ("aim", "explain", "hand", "visual", "try")   # ui.sections.TABS (tests/test_syllabus.py)
KEYS = {"keyword", "aliases", "section", "scope", "source", "plan", "page", "page_section", "items",
        "glossary", "worst_or_blank"}
OPTIONAL = {"settled", "note"}


@dataclass(frozen=True)
class Keyword:
    keyword: str
    aliases: tuple[str, ...]
    section: str
    scope: str
    source: tuple[str, ...]
    plan: str | None
    page: str | None
    page_section: str | None
    items: tuple[str, ...]
    glossary: str | None
    worst_or_blank: bool
    settled: bool = True
    note: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.keyword, *self.aliases)

    @property
    def in_scope(self) -> bool:
        """In the syllabus (a mock exam may ask it); an unsettled keyword counts by its provisional scope."""
        return self.scope == "syllabus"

    @property
    def covered(self) -> bool:
        """A page teaches it today and at least one question asks it."""
        return bool(self.page and self.items)


class Syllabus(NamedTuple):
    meta: dict            # version, edition, applies_from, document, url, checked, caveat
    sources: dict         # {code: {"title", "url"}}
    sections: dict        # {section id: {"major", "middle", "goal"}}
    planned_pages: dict   # {page key: label} of pages being written
    keywords: tuple[Keyword, ...]


class Coverage(NamedTuple):
    covered: tuple[Keyword, ...]                # in the syllabus, settled, taught and asked today
    missing: dict[str, tuple[Keyword, ...]]     # in the syllabus, settled, planned, not yet: {plan: keywords}
    unplanned: tuple[Keyword, ...]              # in the syllabus; the app does not plan to teach it
    unsettled: tuple[Keyword, ...]              # the scope could not be settled from the sources


def _optional_str(item: dict, key: str, where: str) -> str | None:
    value = item[key]
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise QuizError(f"{where}: {key} は空でない文字列か null です")
    return value


def parse(data: object, known_pages=TOPICS) -> Syllabus:
    """The map from its JSON data, checked for shape (not against the app: tests/test_syllabus.py)."""
    if not isinstance(data, dict) or not isinstance(data.get("keywords"), list):
        raise QuizError(f"{PATH.name}: {{\"keywords\": [...]}} の形ではありません")
    sources, sections = data.get("sources", {}), data.get("sections", {})
    planned = data.get("planned_pages", {})
    pages = set(known_pages) | set(planned)
    out, seen = [], {}
    for i, item in enumerate(data["keywords"]):
        where = f"{PATH.name} keywords[{i}]"
        if not isinstance(item, dict) or not KEYS <= set(item) or not set(item) <= KEYS | OPTIONAL:
            raise QuizError(f"{where}: キーは {sorted(KEYS)}（と任意の {sorted(OPTIONAL)}）です")
        name = item["keyword"]
        if not isinstance(name, str) or not name.strip():
            raise QuizError(f"{where}: keyword は空でない文字列です")
        where = f"{PATH.name}「{name}」"
        lists = [item[k] for k in ("aliases", "source", "items")]
        if not all(isinstance(v, list) and all(isinstance(s, str) and s.strip() for s in v) for v in lists):
            raise QuizError(f"{where}: aliases・source・items は空でない文字列のリストです")
        if item["section"] not in sections:
            raise QuizError(f"{where}: section {item['section']!r} が sections にありません")
        if item["scope"] not in SCOPES:
            raise QuizError(f"{where}: scope は {SCOPES} のどれかです")
        if not item["source"] or not set(item["source"]) <= set(sources):
            raise QuizError(f"{where}: source は sources のキーを 1 つ以上並べます")
        settled, note = item.get("settled", True), item.get("note", "")
        if not isinstance(settled, bool) or not isinstance(note, str) or (not settled and not note.strip()):
            raise QuizError(f"{where}: settled は真偽値、決められない語には note で理由を書きます")
        if not isinstance(item["worst_or_blank"], bool):
            raise QuizError(f"{where}: worst_or_blank は真偽値です")
        plan, page = _optional_str(item, "plan", where), _optional_str(item, "page", where)
        page_section, glossary = _optional_str(item, "page_section", where), _optional_str(item, "glossary", where)
        if plan is not None and plan not in pages:
            raise QuizError(f"{where}: plan {plan!r} はページのキーでも planned_pages でもありません")
        if page is not None and (page not in known_pages or page_section not in PAGE_SECTIONS):
            raise QuizError(f"{where}: page はいまある学習ページ、page_section は {PAGE_SECTIONS} のどれかです")
        if page is None and (page_section or item["items"] or glossary):
            raise QuizError(f"{where}: page の無い語に page_section・items・glossary は書けません")
        if page is not None and plan is None:
            raise QuizError(f"{where}: いま教えているページがある語は plan も書きます")
        for n in (name, *item["aliases"]):
            key = normalize(n)
            if key in seen:
                raise QuizError(f"{where}: 名前「{n}」が「{seen[key]}」と重なっています")
            seen[key] = name
        out.append(Keyword(keyword=name, aliases=tuple(item["aliases"]), section=item["section"],
                           scope=item["scope"], source=tuple(item["source"]), plan=plan, page=page,
                           page_section=page_section, items=tuple(item["items"]), glossary=glossary,
                           worst_or_blank=item["worst_or_blank"], settled=settled, note=note))
    meta = {k: v for k, v in data.items() if k not in ("sources", "sections", "planned_pages", "keywords")}
    return Syllabus(meta, sources, sections, planned, tuple(out))


@lru_cache(maxsize=1)
def load() -> Syllabus:
    """The map of quizzes/data/syllabus.json, checked for shape."""
    return parse(json.loads(PATH.read_text(encoding="utf-8")))


def scope_summary(syllabus: Syllabus | None = None) -> tuple[list[tuple[str, list[str]]], tuple[str, ...]]:
    """What the app covers of the syllabus, for learners (home): [(大項目, [中項目, or 中項目（the part
    covered）…])] in the syllabus's order, and the parts it leaves out (the map's ``outside``)."""
    syllabus = syllabus or load()
    covered: dict[str, list[str]] = {}
    for section in syllabus.sections.values():
        middle = section["middle"] + (f"（{section['part']}）" if section.get("part") else "")
        covered.setdefault(section["major"], []).append(middle)
    return list(covered.items()), tuple(syllabus.meta.get("outside", ()))


def keywords(scope: str | None = None) -> tuple[Keyword, ...]:
    """Every keyword in the file's order; with ``scope``, only "syllabus" or only "advanced"."""
    if scope is not None and scope not in SCOPES:
        raise QuizError(f"scope は {SCOPES} のどれかです: {scope!r}")
    return tuple(k for k in load().keywords if scope is None or k.scope == scope)


@lru_cache(maxsize=1)
def _by_name() -> dict[str, Keyword]:
    return {normalize(n): k for k in load().keywords for n in k.names}


def find(name: str) -> Keyword | None:
    """The keyword named ``name`` or one of its aliases (compared as the glossary's search does), or None."""
    return _by_name().get(normalize(name))


def in_scope(name: str) -> bool:
    """Whether the keyword (or alias) ``name`` is in the syllabus; an unknown name raises QuizError."""
    kw = find(name)
    if kw is None:
        raise QuizError(f"シラバスの地図にない語です: {name!r}")
    return kw.in_scope


@lru_cache(maxsize=1)
def _by_item() -> dict[str, tuple[Keyword, ...]]:
    out: dict[str, list[Keyword]] = {}
    for k in load().keywords:
        for gid in k.items:
            out.setdefault(gid, []).append(k)
    return {gid: tuple(ks) for gid, ks in out.items()}


def keywords_of(generator_id: str) -> tuple[Keyword, ...]:
    """The keywords whose ``items`` name the generator (a question id "<gen>#<seed>" works too)."""
    return _by_item().get(str(generator_id).rsplit("#", 1)[0], ())


def coverage(syllabus: Syllabus | None = None) -> Coverage:
    """What the app covers of the syllabus keywords (advanced keywords are left out)."""
    ks = [k for k in (syllabus or load()).keywords if k.in_scope]
    settled = [k for k in ks if k.settled]
    missing: dict[str, list[Keyword]] = {}
    for k in settled:
        if not k.covered and k.plan:
            missing.setdefault(k.plan, []).append(k)
    return Coverage(covered=tuple(k for k in settled if k.covered),
                    missing={p: tuple(v) for p, v in missing.items()},
                    unplanned=tuple(k for k in settled if not k.covered and not k.plan),
                    unsettled=tuple(k for k in ks if not k.settled))


@lru_cache(maxsize=1024)   # one entry a generator (about 400 today)
def item_form(generator_id: str) -> str:
    """"best", "worst" or "blank": a bank item's form; a calculation generator's, read from its stem
    (seed 0: 不適切 → worst, （ア） → blank). An unknown id raises QuizError."""
    if generator_id not in GENERATOR_INFO:
        raise QuizError(f"問題の生成器がありません: {generator_id!r}")
    if generator_id.startswith("kb."):
        item_id = generator_id[3:]
        for items in bank().values():
            for item in items:
                if item["id"] == item_id:
                    return item["form"]
    stem = GENERATORS[generator_id](0).stem
    return "worst" if "不適切" in stem else "blank" if "（ア）" in stem else "best"


def is_advanced(generator_id: str) -> bool:
    """The generator's 発展 tag (quizzes.core.GENERATOR_INFO)."""
    return GENERATOR_INFO[generator_id].advanced


__all__ = ["PATH", "SCOPES", "PAGE_SECTIONS", "Keyword", "Syllabus", "Coverage", "parse", "load", "keywords",
           "find", "in_scope", "keywords_of", "coverage", "item_form", "is_advanced"]
