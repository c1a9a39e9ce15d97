"""The glossary (用語集): every exam term the learning pages teach, as data, and its search.

File: ``quizzes/data/glossary.json``::

    {"version": 1,
     "terms": [
       {"term": "Self-Attention",                 # as the pages write it; unique (after normalize)
        "reading": "セルフアテンション",           # optional: kana, for a search typed in kana
        "aliases": ["自己注意"],                  # optional: other names the pages and questions use
        "definition": "...",                      # one line, the team's own Japanese
        "page": "naive",                          # the learning page that teaches it (quizzes.core.TOPICS)
        "section": "aim",                         # its section there: aim / hand / visual / try (ui.sections)
        "questions": ["kb.naive.k02"]}]}          # optional: generator ids of questions that test it

Which questions test a term (:func:`question_ids`): the ``questions`` named in the entry first,
then every knowledge item whose text names the term or one of its aliases (so an item added to the
bank later is found without touching this file). The page links to the first one
(:func:`practice_id`). No streamlit here: pages/23_glossary.py draws what :func:`search` returns.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .core import GENERATOR_INFO, GENERATORS, TOPICS, QuizError

PATH = Path(__file__).with_name("data") / "glossary.json"
SECTIONS = ("aim", "hand", "visual", "try")       # the sections of a learning page (ui.sections)
KEYS = {"term", "definition", "page", "section"}
OPTIONAL = {"reading": str, "aliases": list, "questions": list}
DEFINITION_CHARS = (12, 110)                      # one line: at least a phrase, at most a long sentence
MAX_QUERY = 40                                    # characters of a query that are read (the box's max_chars)
SEED = 0                                          # the seed of a term's practice question: same link every time

# What a search ignores: spaces and the joiners people type or leave out (Multi-Head = multihead,
# d_k = dk, クエリ・キー = クエリキー). ー (the long-vowel mark) is a letter and stays.
_IGNORED = re.compile(r"[\s\-‐‑‒–—―・･·_/／]+")
_KATAKANA = re.compile(r"[ァ-ヶ]")


@dataclass(frozen=True)
class Term:
    term: str
    definition: str
    page: str
    section: str
    reading: str = ""
    aliases: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The term and its aliases: what a question must say to be found as testing it."""
        return (self.term, *self.aliases)


def normalize(text: str) -> str:
    """What a search compares: NFKC (full-width → half-width, ｸｴﾘ → クエリ), lower case, katakana
    as hiragana (クエリ = くえり), spaces and joiners dropped. normalize("Multi-Head") == "multihead"."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", str(text)).casefold())
    text = _IGNORED.sub("", _KATAKANA.sub(lambda m: chr(ord(m.group()) - 0x60), text))
    return unicodedata.normalize("NFKC", text)    # again: a dropped space may leave a mark to compose (U¨ → ü)


def _term(item: object, where: str) -> Term:
    if not isinstance(item, dict) or not KEYS <= set(item) or not set(item) <= KEYS | set(OPTIONAL):
        raise QuizError(f"{where}: 項目のキーは {sorted(KEYS)}（と任意の {sorted(OPTIONAL)}）です")
    for key in KEYS:
        if not isinstance(item[key], str) or not item[key].strip():
            raise QuizError(f"{where}: {key} は空でない文字列です")
    for key, kind in OPTIONAL.items():
        if key in item and not isinstance(item[key], kind):
            raise QuizError(f"{where}: {key} の型が違います")
    lists = {k: item.get(k, []) for k in ("aliases", "questions")}
    if not all(isinstance(s, str) and s.strip() for v in lists.values() for s in v):
        raise QuizError(f"{where}: aliases と questions は空でない文字列のリストです")
    if item["page"] not in TOPICS:
        raise QuizError(f"{where}: page {item['page']!r} は学習ページのキーではありません")
    if item["section"] not in SECTIONS:
        raise QuizError(f"{where}: section {item['section']!r} は {SECTIONS} のどれかです")
    lo, hi = DEFINITION_CHARS
    if not lo <= len(item["definition"]) <= hi or "\n" in item["definition"]:
        raise QuizError(f"{where}: 定義は 1 行、{lo}〜{hi} 文字です")
    return Term(term=item["term"].strip(), definition=item["definition"].strip(), page=item["page"],
                section=item["section"], reading=item.get("reading", "").strip(),
                aliases=tuple(a.strip() for a in lists["aliases"]),
                questions=tuple(q.strip() for q in lists["questions"]))


@lru_cache(maxsize=1)
def terms() -> tuple[Term, ...]:
    """Every term of quizzes/data/glossary.json, checked, in the file's order."""
    data = json.loads(PATH.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
        raise QuizError(f"{PATH.name}: {{\"terms\": [...]}} の形ではありません")
    out = [_term(item, f"{PATH.name}[{i}]") for i, item in enumerate(data["terms"])]
    seen: dict[str, str] = {}
    for t in out:
        key = normalize(t.term)
        if key in seen:
            raise QuizError(f"{PATH.name}: 用語「{t.term}」が重複しています（「{seen[key]}」）")
        seen[key] = t.term
    return tuple(out)


def in_course_order(entries) -> list[tuple[str, list[Term]]]:
    """[(page key, its terms)] in the order of the learning path (TOPICS), pages without a term left
    out; within a page, the file's order."""
    groups: dict[str, list[Term]] = {key: [] for key in TOPICS}
    for t in entries:
        groups[t.page].append(t)
    return [(key, ts) for key, ts in groups.items() if ts]


def search(query: str, entries=None) -> list[Term]:
    """The terms that match every word of ``query`` (split on spaces; each word normalized) in their
    name, an alias, the reading or the definition. The query is read up to MAX_QUERY characters;
    an empty query (or one of spaces and joiners only) matches every term. Names before definitions,
    and among the names the closest first: a name that is the query, then one that starts with it,
    then one that holds it (「BERT」 lists BERT before RoBERTa); each group in the file's order."""
    entries = terms() if entries is None else entries
    words = [w for w in (normalize(part) for part in str(query)[:MAX_QUERY].split()) if w]
    if not words:
        return list(entries)
    whole = "".join(words)                       # the query as one name ("multi head attention")
    ranked: list[tuple[int, int, Term]] = []
    for order, t in enumerate(entries):
        names = [normalize(n) for n in (*t.names, t.reading) if n]
        text = " ".join(names + [normalize(t.definition)])
        if not all(w in text for w in words):
            continue
        rank = (0 if whole in names else 1 if any(n.startswith(whole) for n in names)
                else 2 if any(w in n for w in words for n in names) else 3)
        ranked.append((rank, order, t))
    return [t for _, _, t in sorted(ranked, key=lambda r: (r[0], r[1]))]


def query_is_blank(query: str) -> bool:
    """True if ``query`` has nothing a search can use (empty, spaces, joiners only)."""
    return not any(normalize(part) for part in str(query)[:MAX_QUERY].split())


@lru_cache(maxsize=1)
def _knowledge_texts() -> dict[str, str]:
    """{generator id: normalized stem + choices + explanation} of every knowledge item (seed 0:
    the seed only shuffles a knowledge item's choices)."""
    out = {}
    for gid, info in GENERATOR_INFO.items():
        if info[1] == "knowledge":
            q = GENERATORS[gid](SEED)
            out[gid] = normalize("\n".join((q.stem, *q.choices, q.explanation)))
    return out


def mentions(term: Term, gid: str) -> bool:
    """Whether the knowledge item ``gid`` names ``term`` (or an alias) in its stem, choices or explanation."""
    text = _knowledge_texts().get(gid, "")
    return any(normalize(n) in text for n in term.names)


@lru_cache(maxsize=512)   # one entry per term (159 today)
def question_ids(term: Term) -> tuple[str, ...]:
    """Generator ids of the questions that test ``term``: the entry's own ``questions`` that exist,
    then the knowledge items that name it — those of its own page first, items beyond the syllabus
    (発展) after the others."""
    named = [gid for gid in term.questions if gid in GENERATORS]
    found = [gid for gid in _knowledge_texts() if gid not in named and mentions(term, gid)]
    found.sort(key=lambda gid: (GENERATOR_INFO[gid][0] != term.page, GENERATOR_INFO[gid][2],
                                list(TOPICS).index(GENERATOR_INFO[gid][0]), gid))
    return tuple(named + found)


def practice_id(term: Term) -> str | None:
    """The question id ("<generator>#<seed>") of the term's practice link; None if no question tests it."""
    ids = question_ids(term)
    return f"{ids[0]}#{SEED}" if ids else None


__all__ = ["Term", "terms", "search", "normalize", "query_is_blank", "in_course_order", "question_ids",
           "practice_id", "mentions", "SECTIONS", "MAX_QUERY", "PATH"]
