"""Real browser: a wrong answer with a chosen misconception on a learning page shows up at the top
of the profile on /drill; practising it there (5 right answers) clears it."""
from __future__ import annotations

import re
import urllib.parse

import pytest

import quizzes
from quizzes import misconceptions as M
from browserhelpers import (assert_healthy, link_to, new_page, shown_qids, streamlit_server,  # noqa: F401
                            wait_until_rendered)
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser

QID = "naive.weight#3"          # one of its wrong choices is 列方向の softmax


def _card(page, qid: str):
    """The innermost block holding both the question's link (?q=<id>: a page card's 「この問題へのリンク」,
    a drill card's link to its page) and a radio: its card."""
    link = link_to(page.locator('[data-testid="stMain"]'), qid).first
    link.wait_for(timeout=20_000)
    return link.locator('xpath=ancestor::div[@data-testid="stVerticalBlock"][.//*[@data-testid="stRadio"]][1]')


def _answer(page, qid: str, choice: int) -> None:
    card = _card(page, qid)
    card.scroll_into_view_if_needed()
    card.locator('[data-testid="stRadio"]').get_by_text(re.compile("^" + "ABCD"[choice] + r"\. ")).first.click()
    wait_until_rendered(page)
    card.get_by_role("button", name="回答する").click()
    wait_until_rendered(page)


def test_a_misconception_reaches_the_profile_and_is_practised_away(browser):  # noqa: F811
    q = quizzes.from_id(QID)
    choice = M.choice_ids(q).index("softmax_over_columns")
    with streamlit_server() as base, new_page(browser, "profile-drill") as page:
        page.goto(base + "/naive?q=" + urllib.parse.quote(QID, safe=""), wait_until="domcontentloaded")
        wait_until_rendered(page)
        _answer(page, QID, choice)
        # the feedback names it (waited for: the card's fragment may draw after the script state settles)
        expect(page.locator('[data-testid="stMain"]')).to_contain_text("列方向の softmax", timeout=20_000)

        page.locator('[data-testid="stSidebar"]').get_by_text("つまずき練習").click()   # same session
        page.wait_for_url(re.compile(r"/drill"), timeout=20_000)
        wait_until_rendered(page)
        page.get_by_text("あなたのつまずき").first.wait_for(timeout=20_000)
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "1. 列方向の softmax" in main and "1 回" in main
        assert_healthy(page)

        page.locator('[data-testid="stMain"]').get_by_text("このつまずきを練習する").first.click()
        page.get_by_text("練習：列方向の softmax").first.wait_for(timeout=20_000)
        wait_until_rendered(page)
        main = page.locator('[data-testid="stMain"]').inner_text()
        ids = shown_qids(page.locator('[data-testid="stMain"]'))
        assert len(ids) == 5, (ids, main[-800:])
        for qid in ids:
            assert "softmax_over_columns" in M.question_ids(quizzes.from_id(qid))
            _answer(page, qid, quizzes.from_id(qid).answer)
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert main.count("正解です") == 5
        assert "いま目立つつまずきはありません" in main
        assert "1. 列方向の softmax" not in main
        assert_healthy(page)
