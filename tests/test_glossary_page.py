"""AppTest of 用語集 /glossary (pages/23_glossary.py; issue 37 §4).

Every term is listed once, under the label of the page that teaches it, in course order, with its
definition, a link to that section (ui.section_url) and a link to a question that tests it (the
question's own page and ?q=<id>: ui.quiz.question_link). The search box filters (name, kana reading,
definition), keeps its text while the learner visits other pages, and answers a blank, odd, hostile
or unmatched query with a Japanese message, never a traceback, never the learner's text as live
Markdown. Read from the learning pages themselves: every term is named in the section it links to,
so a term that moves off its section (or never lands there) fails here.
"""
from __future__ import annotations

import re
from collections import defaultdict
from urllib.parse import parse_qsl

import pytest

import ui
from practice.store import PAGE_KEYS, export_bytes, parse_progress_text
from quizzes import glossary as g
from quizzes.core import GENERATOR_INFO
from ui.quiz import question_link
from ui.sections import label as tab_label
from ui.state import PROGRESS_KEY

from apphelpers import lesson_text, open_page, sections_of, show_section

GLOSSARY = "pages/23_glossary.py"
QUERY_K = "glossary__query"
TERMS = g.terms()
ITEM = re.compile(r"^- \*\*(.+?)\*\*", re.M)


def unescape(text: str) -> str:
    """Markdown source as the learner reads it: backslash escapes resolved, word joiners dropped."""
    return re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")


def listed(at) -> list[str]:
    """The term names on the page, in order."""
    return [unescape(name) for md in at.markdown for name in ITEM.findall(md.value)]


def item_of(at, term: g.Term) -> str:
    """The Markdown source of one term's list item."""
    for md in at.markdown:
        for item in md.value.split("\n- "):
            m = ITEM.search(item if item.startswith("- ") else "- " + item)
            if m and unescape(m.group(1)) == term.term:
                return item
    raise AssertionError(f"「{term.term}」 is not on the page")


def in_course_order(found) -> list[str]:
    return [t.term for _, ts in g.in_course_order(found) for t in ts]


@pytest.fixture(scope="module")
def page():
    at = open_page(GLOSSARY)
    assert not at.exception, at.exception
    return at


def test_the_glossary_is_in_the_sidebar_after_the_drill():
    keys = [p.key for p in ui.PAGES]
    assert keys[keys.index("drill") + 1] == "glossary"
    info = ui.PAGE_BY_KEY["glossary"]
    assert (info.label, info.section, info.icon, info.url) == ("用語集", "演習", ":material/menu_book:", "/glossary")
    at = open_page("app.py")
    assert "glossary" in {p.proto.page for p in at.sidebar.get("page_link")}


def test_every_term_once_under_its_page_in_course_order(page):
    assert page.title[0].value == "用語集"
    groups = g.in_course_order(TERMS)
    assert [s.value for s in page.subheader] == [ui.PAGE_BY_KEY[key].label for key, _ in groups]
    assert listed(page) == in_course_order(TERMS)
    assert len(set(listed(page))) == len(TERMS) >= 120
    assert any(f"全 {len(TERMS)} 語" in c.value for c in page.caption)


def test_each_term_shows_its_definition_and_both_links(page):
    for t in TERMS:
        item = item_of(page, t)
        assert unescape(t.definition) in unescape(item), t.term
        section = f"[「{tab_label(t.section)}」で学ぶ]({ui.section_url(t.page, t.section)})"
        assert section in item, t.term
        qid = g.practice_id(t)
        topic = GENERATOR_INFO[qid.partition("#")[0]][0]
        practice = f"]({ui.PAGE_BY_KEY[topic].url}{question_link(qid)})"
        assert "[問題を解く" in item and practice in item, t.term
        if topic != t.page:                                        # the quiz of another page says so
            assert f"（{ui.PAGE_BY_KEY[topic].label.split()[0]} の確認クイズ）" in item, t.term


def test_a_practice_link_opens_that_question_on_its_page():
    t = next(t for t in TERMS if t.term == "Source-Target Attention")
    qid = g.practice_id(t)
    topic = GENERATOR_INFO[qid.partition("#")[0]][0]
    at = open_page(ui.PAGE_BY_KEY[topic].path, query={"q": qid})
    assert sections_of(at)[-1] == "確認クイズ"
    from ui.quiz import question_link
    assert not at.warning and question_link(qid) in "\n".join(c.value for c in at.caption)   # the card's own link


def test_search_filters_by_name_reading_and_definition():
    at = open_page(GLOSSARY)
    box = at.text_input(key=QUERY_K)
    assert box.label == "用語を探す" and box.max_chars == g.MAX_QUERY
    box.input("LSTM").run()
    assert not at.exception
    assert listed(at) == in_course_order(g.search("LSTM")) and "LSTM" in listed(at)
    assert "クエリ" not in listed(at) and "Transformer" not in listed(at)
    assert listed(at).index("LSTM") < listed(at).index("GRU")          # GRU: its definition names LSTM
    assert any("「LSTM」" in c.value and f"{len(g.search('LSTM'))} 語" in c.value for c in at.caption)
    at.text_input(key=QUERY_K).input("そうせいきか").run()           # the reading, typed in hiragana
    assert listed(at) == ["層正規化"]
    at.text_input(key=QUERY_K).input("くえり").run()                 # katakana term, hiragana query
    assert "クエリ" in listed(at)
    at.text_input(key=QUERY_K).input("直交").run()                   # a word of a definition
    assert "one-hot 表現" in listed(at)


def test_the_query_is_kept_while_the_learner_visits_other_pages():
    at = open_page(GLOSSARY)
    at.text_input(key=QUERY_K).input("BPE").run()
    at.switch_page("pages/1_naive.py").run()
    assert not at.exception
    at.switch_page(GLOSSARY).run()
    assert at.text_input(key=QUERY_K).value == "BPE"
    assert listed(at) == in_course_order(g.search("BPE"))


@pytest.mark.parametrize("query", ["・・・", " - ／ ", "＿＿"])
def test_a_query_of_joiners_only_says_so_in_japanese_and_lists_every_term(query):
    at = open_page(GLOSSARY)
    at.text_input(key=QUERY_K).input(query).run()
    assert not at.exception and not at.error
    assert any("記号だけでは探せません" in i.value for i in at.info)
    assert len(listed(at)) == len(TERMS)


def test_clearing_the_query_lists_every_term_again():
    at = open_page(GLOSSARY)
    at.text_input(key=QUERY_K).input("LSTM").run()
    at.text_input(key=QUERY_K).input("").run()
    assert not at.info and len(listed(at)) == len(TERMS)


HOSTILE = ["<script>alert(1)</script>", "[x](javascript:alert(1))", "![x](https://evil.example/p.png)",
           "https://evil.example/login", "**太字** `code` $x$", "zzqqxx"]


@pytest.mark.parametrize("query", HOSTILE)
def test_an_unmatched_or_hostile_query_gets_a_japanese_message_never_live_markdown(query):
    at = open_page(GLOSSARY)
    at.text_input(key=QUERY_K).input(query).run()
    assert not at.exception and not at.error
    assert listed(at) == [] and not at.subheader
    (message,) = [i.value for i in at.info]
    assert "見つかりませんでした" in message
    assert query in unescape(message)                                  # the learner sees what they typed
    bare = re.sub(r"\\.", "", message)                                # … as text: every ASCII mark escaped
    assert not re.search(r"[<>\[\]()*`$!_]", bare), bare
    assert "https://" not in re.sub(r"\\(.)", r"\1", message)        # a bare URL is split (ui.state.plain)


def test_a_query_longer_than_the_box_allows_is_read_up_to_its_limit():
    """max_chars stops typing at MAX_QUERY; a longer value set another way is cut, not an error."""
    at = open_page(GLOSSARY)
    at.session_state[QUERY_K] = "LSTM" + " " * 300 + "zz"
    at.run()
    assert not at.exception
    assert listed(at) == in_course_order(g.search("LSTM"))


def test_visiting_the_glossary_keeps_the_progress_record_valid():
    """ui.page records the visit; the stored record must still pass the validator (practice.store)."""
    assert "glossary" in PAGE_KEYS
    at = open_page(GLOSSARY)
    progress = at.session_state[PROGRESS_KEY]
    assert progress["visited"].get("glossary") is True
    assert parse_progress_text(export_bytes(progress).decode("utf-8"))["visited"]["glossary"] is True


# ---------------------------------------------------------------------------
# the link targets, read from the learning pages
# ---------------------------------------------------------------------------
def _section_texts() -> dict[tuple[str, str], str]:
    """{(page, section key): the normalized text that section of the page shows} for every section
    a term links to (each learning page opened once, section by section, expanders unfolded)."""
    wanted = defaultdict(set)
    for t in TERMS:
        wanted[t.page].add(t.section)
    out = {}
    for key, sections in wanted.items():
        at = open_page(ui.PAGE_BY_KEY[key].path)
        labels = sections_of(at)
        for section in sections:
            assert tab_label(section) in labels, (key, section, labels)
            out[(key, section)] = g.normalize(lesson_text(show_section(at, section)))
    return out


def test_every_term_is_named_in_the_section_it_links_to():
    texts = _section_texts()
    missing = [f"{t.term} → {ui.PAGE_BY_KEY[t.page].label}「{tab_label(t.section)}」" for t in TERMS
               if not any(g.normalize(n) in texts[(t.page, t.section)] for n in t.names)]
    assert missing == []


def test_each_learning_page_links_its_first_section_to_its_terms():
    """ねらい・解説 ends with a link to the glossary showing that page's terms (?page=<key>)."""
    for key in ("naive", "llm"):
        at = open_page(ui.PAGE_BY_KEY[key].path)
        links = [p for p in at.main.get("page_link") if p.proto.page == "glossary"]
        assert [dict(parse_qsl(p.proto.query_string)) for p in links] == [{"page": key}], links


def test_the_glossary_opened_from_a_page_shows_that_pages_terms_only():
    at = open_page(GLOSSARY, query={"page": "naive"})
    mine = [t.term for t in TERMS if t.page == "naive"]
    assert mine and listed(at) == in_course_order([t for t in TERMS if t.page == "naive"])
    assert any(f"{len(mine)} 語" in c.value for c in at.caption)
    at = open_page(GLOSSARY, query={"page": "<b>x</b>"})         # not a page: every term, nothing echoed
    assert listed(at) == in_course_order(TERMS)
    assert "<b>x</b>" not in " ".join(m.value for m in [*at.markdown, *at.caption])
