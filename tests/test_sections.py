"""ui.sections: a learning page shows one section at a time (only the open tab is drawn), a link
opens a section, a question's link opens the quiz, 「次へ」 opens the next section, and the open
section is kept while the learner moves around the app. Read from every learning page's source:
each section is a named function, and no page function is long."""
import ast
import urllib.parse

import pytest

import ui
from ui.sections import QUERY, QUIZ, TABS

from apphelpers import ROOT, open_page, section_tabs, sections_of, show_section

PAGES = {key: ui.PAGE_BY_KEY[key].path for key in ui.LEARNING_KEYS}


def uses_sections(path: str) -> bool:
    return "ui.sections(" in (ROOT / path).read_text(encoding="utf-8")


SECTIONED = [p for p in PAGES.values() if uses_sections(p)]


def test_every_learning_page_is_drawn_in_sections():
    assert SECTIONED == list(PAGES.values())
LONGEST_FUNCTION = 80     # lines: a page reads as its table of contents (today's lesson() ran 90–110)


def open_tabs(at) -> list[str]:
    """The section tabs that drew something in this run."""
    return [t.label for t in section_tabs(at) if len(t.children) > 0]


@pytest.mark.parametrize("path", SECTIONED)
def test_only_the_open_section_is_drawn(path):
    at = open_page(path)
    labels = sections_of(at)
    assert labels[-1] == QUIZ and len(labels) >= 3
    assert open_tabs(at) == [labels[0]]
    sizes = {}
    for label in labels:
        show_section(at, label)
        assert open_tabs(at) == [label], (label, open_tabs(at))
        sizes[label] = len(at.main.children) + sum(1 for _ in _elements(at))
    assert all(n < sum(sizes.values()) for n in sizes.values())


def _elements(at):
    stack = [at.main]
    while stack:
        node = stack.pop()
        children = getattr(node, "children", None)
        if children is None:
            yield node
        else:
            stack.extend(children.values() if isinstance(children, dict) else children)


@pytest.mark.parametrize("path", SECTIONED)
def test_every_section_but_the_quiz_ends_with_a_step_to_the_next(path):
    at = open_page(path)
    labels = sections_of(at)
    for here, nxt in zip(labels, labels[1:]):
        show_section(at, here)
        (step,) = [b for b in at.button if b.key == f"{QUERY}__next"]
        assert step.label == f"次へ：{nxt}"
        step.click().run()
        assert not at.exception and open_tabs(at) == [nxt]
    show_section(at, QUIZ)
    assert not [b for b in at.button if b.key == f"{QUERY}__next"]


@pytest.mark.parametrize("path", SECTIONED[:1])
def test_a_link_opens_its_section_and_a_question_link_the_quiz(path):
    at = open_page(path, query={QUERY: "手計算"})
    assert open_tabs(at) == ["手計算"]
    at = open_page(path, query={"q": "no-such-question"})
    assert open_tabs(at) == [QUIZ]
    assert any("リンクの問題を開けませんでした" in w.value for w in at.warning)


def test_the_open_section_is_kept_while_the_learner_moves_around():
    path = SECTIONED[0]
    at = open_page(path, section="visual")
    at.switch_page("pages/21_review.py").run()
    assert not at.exception
    at.switch_page(path).run()
    assert open_tabs(at) == [TABS["visual"]]


def test_a_page_never_opens_at_the_section_another_page_had_open():
    """Issue 41 row 1: every page binds its tabs to the one key ``section``. Finishing ⓪-2's quiz and
    going on to ① opened ① at its quiz, unread; a page seen for the first time opens at its lesson,
    and each page comes back at its own section."""
    first, second = SECTIONED[0], SECTIONED[1]
    at = open_page(first, section="quiz")
    assert open_tabs(at) == [QUIZ]
    at.switch_page(second).run()
    assert not at.exception
    assert open_tabs(at) == [TABS["aim"]]            # not the quiz the page before had open
    show_section(at, "visual")
    at.switch_page(first).run()
    assert open_tabs(at) == [QUIZ]                   # its own section, kept
    at.switch_page(second).run()
    assert open_tabs(at) == [TABS["visual"]]


def test_the_learning_paths_links_open_the_next_page_at_its_lesson():
    """「次へ：…」 under the quiz and home's 「次のページに進む」 name the lesson in their link: a page the
    learner left at its quiz earlier in the session still opens at ねらい・解説 from the path."""
    at = open_page(SECTIONED[0], section="quiz")
    links = [el for el in at.main.get("page_link") if el.proto.label.startswith("次へ：")]
    assert links, "no 次へ link under the quiz"
    assert urllib.parse.parse_qs(links[0].proto.query_string) == {QUERY: [TABS["aim"]]}
    assert ui.section_query("aim") == {QUERY: TABS["aim"]} and ui.section_query("quiz") == {QUERY: QUIZ}


def test_section_urls_name_a_tab():
    assert ui.section_url("naive", "hand") == "/naive?section=%E6%89%8B%E8%A8%88%E7%AE%97"
    assert ui.section_url("naive", "explain") == ui.section_url("naive", "aim")


@pytest.mark.parametrize("path", SECTIONED)
def test_a_page_reads_as_its_table_of_contents(path):
    """Each section is a named function of the page, and no function of the page is long."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "sections")
    names = [part.elts[1].id for part in call.args[1].elts]
    assert names and all(name in funcs for name in names), names
    for name, fn in funcs.items():
        assert fn.end_lineno - fn.lineno + 1 <= LONGEST_FUNCTION, (path, name, fn.end_lineno - fn.lineno + 1)
