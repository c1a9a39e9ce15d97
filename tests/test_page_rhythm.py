"""Every learning page runs with the section rhythm (ねらい・解説 … 確認クイズ, ui.sections), links
every page in the sidebar, and ends with three questions of its own that confirm a right answer."""
import pytest

import quizzes
import ui

from apphelpers import answer_card, check_quiz, open_page, page_text, section_tabs


@pytest.mark.parametrize("path", [ui.PAGE_BY_KEY[k].path for k in ui.LEARNING_KEYS])
def test_page_runs_with_rhythm_and_sidebar(path):
    at = open_page(path)
    assert not at.exception and not at.error
    links = {p.proto.page for p in at.sidebar.get("page_link")}
    assert {p.url.lstrip("/") for p in ui.available_pages()} <= links
    assert [t.label for t in section_tabs(at)] == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]


@pytest.mark.parametrize("key", ui.LEARNING_KEYS)
def test_the_quiz_section_asks_the_pages_own_questions_and_confirms_a_right_answer(key):
    at = open_page(ui.PAGE_BY_KEY[key].path, section="quiz")
    check_quiz(at, key)
    q = quizzes.from_id(at.session_state[f"quiz_{key}__ids"][0])
    answer_card(at, 1, q.answer)
    assert not at.exception
    assert any("正解です" in s.value for s in at.success)
    assert q.explanation[:20] in page_text(at)
