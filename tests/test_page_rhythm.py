"""Pages ①–④ run with the section rhythm (ねらい … 確認クイズ) and link every page in the sidebar."""
import pytest

import ui

from apphelpers import open_page


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"


@pytest.mark.parametrize("path", [NAIVE, QKV, SCALING, FORMULA])
def test_page_runs_with_rhythm_and_sidebar(path):
    at = open_page(path)
    assert not at.exception and not at.error
    headers = [h.value for h in at.header]
    for name in ("ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ"):
        assert name in headers
    assert [h for h in headers if h in ("ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ")] == \
        ["ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    links = {p.proto.page for p in at.sidebar.get("page_link")}
    assert {p.url.lstrip("/") for p in ui.available_pages()} <= links
