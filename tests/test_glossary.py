"""The glossary's data and search (quizzes/glossary.py, quizzes/data/glossary.json; issue 37 §4).

Every term: a one-line definition in our own Japanese, the learning page and a section of it that
exist (the page's own ui.sections table of contents), at least one existing question that tests it,
no duplicate names. The search: by name, alias, reading (kana either way), definition; NFKC, case,
spaces and joiners ignored; blank and odd queries never raise. Whether each term is really named in
the section it links to is read from the pages themselves in tests/test_glossary_page.py.
"""
from __future__ import annotations

import ast
import json
import re

import pytest
from hypothesis import given, strategies as hs

import quizzes
from quizzes import glossary as g
from quizzes.core import GENERATOR_INFO, TOPICS, QuizError
from apphelpers import ROOT
from seedtext import copied_runs, needs_seeds, norm
from ui.nav import LEARNING_KEYS, PAGE_BY_KEY

TERMS = g.terms()
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# the terms issue 37 names, with the page that must teach them (some land with other helpers' work)
NAMED_IN_THE_ISSUE = {
    "LSTM": "seq2seq", "GRU": "seq2seq", "BPTT": "seq2seq", "露出バイアス": "seq2seq",
    "スケジュールドサンプリング": "seq2seq", "ソフトな注意": "seq2seq", "ハードな注意": "seq2seq",
    "グローバルな注意": "seq2seq", "ローカルな注意": "seq2seq", "ELMo": "wordvec", "word2vec": "wordvec",
    "中間層": "seq2seq", "warm-up": "training", "学習率のスケジュール": "training", "Adam": "training",
    "Adam の β1・β2・ε": "training", "ラベル平滑化": "training", "ドロップアウト": "block",
    "GPT-3": "llm", "スケーリング則": "llm", "Chinchilla": "llm", "RLHF": "adapt", "ChatGPT": "adapt",
    "ハルシネーション": "llm", "基盤モデル": "adapt", "Chain-of-Thought": "llm", "KV キャッシュ": "efficient",
    "GQA": "efficient", "BPE": "llm", "Swin Transformer": "llm", "MAE": "llm", "CLIP": "multimodal",
}


def by_name(name: str) -> g.Term:
    (term,) = [t for t in TERMS if t.term == name]
    return term


def sections_of_page(key: str) -> list[str]:
    """The section keys a learning page passes to ui.sections (its table of contents), read from its source."""
    tree = ast.parse((ROOT / PAGE_BY_KEY[key].path).read_text(encoding="utf-8"))
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "sections"]
    return [part.elts[0].value for part in call.args[1].elts]


# ---------------------------------------------------------------------------
# the data
# ---------------------------------------------------------------------------
def test_the_glossary_covers_every_learning_page_with_many_terms():
    assert len(TERMS) >= 120
    per_page = {key: [t.term for t in TERMS if t.page == key] for key in LEARNING_KEYS}
    assert all(per_page.values()), [k for k, v in per_page.items() if not v]
    assert set(t.page for t in TERMS) <= set(LEARNING_KEYS)
    for name, page in NAMED_IN_THE_ISSUE.items():
        assert by_name(name).page == page, name


def test_every_term_links_to_a_section_its_page_draws():
    tables = {key: sections_of_page(key) for key in LEARNING_KEYS}
    for t in TERMS:
        assert PAGE_BY_KEY[t.page].exists, t.term
        assert t.section in tables[t.page] and t.section in g.SECTIONS, (t.term, t.section, tables[t.page])


def test_every_term_has_at_least_one_existing_question_and_a_working_practice_link():
    for t in TERMS:
        assert all(gid in quizzes.GENERATORS for gid in t.questions), (t.term, t.questions)  # no stale id
        ids = g.question_ids(t)
        assert ids, f"no question tests 「{t.term}」"
        qid = g.practice_id(t)
        assert qid == f"{ids[0]}#{g.SEED}"
        q = quizzes.from_id(qid)                                     # the link's question really exists
        assert q.topic == GENERATOR_INFO[ids[0]][0] and PAGE_BY_KEY[q.topic].exists


def test_questions_found_by_text_name_the_term():
    """Beyond the ids an entry names, a knowledge item is found because it names the term or an
    alias; those of the term's own page come first."""
    for t in TERMS:
        found = [gid for gid in g.question_ids(t) if gid not in t.questions]
        assert all(g.mentions(t, gid) for gid in found), t.term
        own = [GENERATOR_INFO[gid][0] == t.page for gid in found]
        assert own == sorted(own, reverse=True), t.term
    # an item added to the bank later is found without touching the glossary: BPTT names no id
    bptt = by_name("BPTT")
    assert not bptt.questions and g.question_ids(bptt)
    assert all(GENERATOR_INFO[gid][1] == "knowledge" for gid in g.question_ids(bptt))


def test_no_two_terms_share_a_name():
    names = [g.normalize(t.term) for t in TERMS]
    assert len(names) == len(set(names))
    aliases = {g.normalize(a): t.term for t in TERMS for a in t.aliases}
    clashes = {a: (term, other.term) for a, term in aliases.items() for other in TERMS
               if other.term != term and g.normalize(other.term) == a}
    assert clashes == {}
    readings = [g.normalize(t.reading) for t in TERMS if t.reading]
    assert len(readings) == len(set(readings))


def test_definitions_are_one_japanese_line_each():
    lo, hi = 12, 110
    for t in TERMS:
        d = t.definition
        assert lo <= len(d) <= hi and "\n" not in d, t.term
        assert JAPANESE.search(d) and d.endswith("。"), t.term
        assert "G検定" not in d and "試験に出る" not in d and "頻出" not in d, t.term   # no claim about the exam
    assert all(re.fullmatch(r"[ぁ-んー]+", t.reading) for t in TERMS if t.reading)     # readings in hiragana


def test_definitions_are_not_the_pages_or_bank_sentences():
    """A one-line definition is written for the glossary: it is not one of the app's own sentences
    copied over (a page can change; the glossary would then repeat stale prose)."""
    bank_texts = []
    for items in quizzes.knowledge.bank().values():
        for item in items:
            bank_texts += [item["stem"], item["answer"], item["explanation"]]
    joined = "\n".join(bank_texts)
    for t in TERMS:
        assert t.definition.rstrip("。") not in joined, t.term


@needs_seeds
def test_definitions_are_our_own_words():
    """Nothing in the glossary copies a sentence of the source documents (tests/test_own_words.py style)."""
    texts = [(t.term, s) for t in TERMS for s in (t.term, t.definition, *t.aliases)]
    assert [f"{term} ⇒ {run}" for term, text in texts for run in copied_runs(norm(text))] == []


def test_the_file_keeps_its_format():
    """One item per term, written as json.dump(..., ensure_ascii=False, indent=1) + newline."""
    raw = g.PATH.read_text(encoding="utf-8")
    data = json.loads(raw)
    assert raw == json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    assert data["version"] == 1 and len(data["terms"]) == len(TERMS)


@pytest.mark.parametrize("bad, message", [
    ({"term": "x", "definition": "十分に長い定義の文章です。", "page": "nowhere", "section": "aim"}, "学習ページ"),
    ({"term": "x", "definition": "十分に長い定義の文章です。", "page": "naive", "section": "quiz"}, "section"),
    ({"term": "x", "definition": "短い。", "page": "naive", "section": "aim"}, "定義"),
    ({"term": "x", "definition": "十分に長い定義の文章です。\n二行目。", "page": "naive", "section": "aim"}, "定義"),
    ({"term": "", "definition": "十分に長い定義の文章です。", "page": "naive", "section": "aim"}, "空でない"),
    ({"term": "x", "definition": "十分に長い定義の文章です。", "page": "naive", "section": "aim", "extra": 1}, "キー"),
    ({"term": "x", "definition": "十分に長い定義の文章です。", "page": "naive", "section": "aim", "aliases": [""]}, "aliases"),
])
def test_a_bad_entry_is_refused_in_japanese(bad, message):
    with pytest.raises(QuizError, match=message):
        g._term(bad, "test")


def test_the_glossary_is_no_knowledge_bank_file():
    assert g.PATH.name in quizzes.knowledge.NOT_BANK
    assert "glossary" not in quizzes.knowledge.bank() and "glossary" not in TOPICS


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------
def names(found) -> list[str]:
    return [t.term for t in found]


def test_search_by_name_alias_and_reading():
    assert names(g.search("LSTM"))[0] == "LSTM"
    assert "層正規化" in names(g.search("LayerNorm"))                  # an alias
    assert names(g.search("そうせいきか")) == ["層正規化"]              # the reading, in hiragana
    assert names(g.search("ソウセイキカ")) == ["層正規化"]              # … or in katakana
    assert names(g.search("くえり")) == names(g.search("クエリ")) and "クエリ" in names(g.search("くえり"))
    assert "Self-Attention" in names(g.search("自己注意"))


def test_search_ignores_width_case_spaces_and_joiners():
    assert names(g.search("ＬＳＴＭ")) == names(g.search("lstm")) == names(g.search("LSTM"))
    assert names(g.search("multihead"))[0] == "Multi-Head Attention"
    assert names(g.search("multi head attention"))[0] == "Multi-Head Attention"
    assert "Source-Target Attention" in names(g.search("エンコーダデコーダ注意"))
    assert "d_k" in names(g.search("dk"))


def test_search_by_a_word_of_the_definition_after_the_names():
    found = names(g.search("直交"))
    assert "one-hot 表現" in found and "コサイン類似度" in found        # found by their definitions
    found = names(g.search("正規化"))
    named = [n for n in found if "正規化" in n]
    assert found[:len(named)] == named and "RMSNorm" in found[len(named):]   # names first, definitions after


def test_every_word_of_a_query_must_match():
    found = names(g.search("勾配 しきい値"))
    assert found == ["勾配クリッピング"]
    assert g.search("LSTM トランスフォーマー") == []


def test_every_term_is_found_by_its_own_name_and_reading():
    for t in TERMS:
        assert t in g.search(t.term), t.term
        if t.reading:
            assert t in g.search(t.reading), t.term


def test_blank_odd_and_unmatched_queries():
    assert g.search("") == list(TERMS) and g.search("   ") == list(TERMS)
    assert g.search("・・・") == list(TERMS) and g.query_is_blank("・ - ／")
    assert not g.query_is_blank("a")
    assert g.search("zzqqxx") == []
    assert g.search("<script>alert(1)</script>") == []
    long = "LSTM" + "あ" * 500
    assert g.search(long) == []                                     # read up to MAX_QUERY characters
    assert g.search("LSTM" + " " * 500 + "zz") == g.search("LSTM")


@given(hs.text(max_size=80))
def test_search_never_raises_and_returns_terms_of_the_glossary(query):
    found = g.search(query)
    assert all(t in TERMS for t in found) and len(found) == len(set(found))
    if g.query_is_blank(query):
        assert found == list(TERMS)


@given(hs.text(max_size=30))
def test_normalize_is_idempotent_and_drops_spaces(text):
    once = g.normalize(text)
    assert g.normalize(once) == once
    assert not re.search(r"\s", once)


def test_normalize_folds_katakana_width_and_case():
    assert g.normalize("クエリ") == g.normalize("くえり") == g.normalize("ｸｴﾘ")
    assert g.normalize("Multi-Head") == "multihead"
    assert g.normalize("Ａｄａｍ の β１") == g.normalize("adamのβ1")
    assert g.normalize("ソフトマックス") == "そふとまっくす"                 # ー stays: it is a letter


def test_course_order_groups():
    groups = g.in_course_order(TERMS)
    assert [key for key, _ in groups] == [k for k in TOPICS if any(t.page == k for t in TERMS)]
    assert sum(len(ts) for _, ts in groups) == len(TERMS)
    assert g.in_course_order(g.search("そうせいきか")) == [("block", [by_name("層正規化")])]


def test_a_terms_own_name_finds_it_first():
    """Issue 41 row 10: 「BERT」 listed the BERT entry 6th, after terms that merely contain the name or
    mention it. Every term's own name now finds that term first."""
    assert g.search("BERT")[0].term == "BERT" and g.search("GPT")[0].term == "GPT"
    misses = [t.term for t in g.terms() if g.search(t.term)[0].term != t.term]
    assert misses == []
