"""Links in ①/② name the next pages by their real titles."""
import ui

from apphelpers import lesson_text


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"


def test_links_name_the_pages_by_their_titles(pages):
    assert f"「{ui.PAGE_BY_KEY['qkv'].label}」" in lesson_text(pages[NAIVE])
    assert f"「{ui.PAGE_BY_KEY['scaling'].label}」" in lesson_text(pages[QKV])
