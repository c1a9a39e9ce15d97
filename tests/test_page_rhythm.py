"""Every learning page runs with the section rhythm (ねらい・解説 … 確認クイズ, ui.sections) and links
every page in the sidebar."""
import pytest

import ui

from apphelpers import open_page, section_tabs


@pytest.mark.parametrize("path", [ui.PAGE_BY_KEY[k].path for k in ui.LEARNING_KEYS])
def test_page_runs_with_rhythm_and_sidebar(path):
    at = open_page(path)
    assert not at.exception and not at.error
    links = {p.proto.page for p in at.sidebar.get("page_link")}
    assert {p.url.lstrip("/") for p in ui.available_pages()} <= links
    assert [t.label for t in section_tabs(at)] == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
