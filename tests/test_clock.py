"""ui.clock: the learner's time zone from the browser's offset, and the review page on the learner's day."""
from datetime import datetime, timedelta, timezone

import pytest

from practice import review as rv
from practice.progress import apply_answer, new_progress
import quizzes
import ui.clock as clock

from apphelpers import metric, no_exception, open_page, page_text, wrong

REVIEW = "pages/21_review.py"
HONOLULU = timezone(-timedelta(hours=10))    # JavaScript's getTimezoneOffset() there: +600


@pytest.mark.parametrize("offset, hours", [(-540, 9), (0, 0), (600, -10), (-345, 5.75), (-840, 14)])
def test_the_browsers_offset_is_minutes_behind_utc(offset, hours):
    assert clock.zone(offset) == timezone(timedelta(hours=hours))


@pytest.mark.parametrize("offset", [float("nan"), float("inf"), 10**6, -10**6, "-540", True, [1]])
def test_an_offset_that_is_not_one_means_the_servers_zone(offset):
    assert clock.zone(offset) is None


def test_outside_a_browser_run_the_servers_clock_is_used():
    assert clock.zone() is None                              # no request behind this call
    local = datetime.now().astimezone()
    assert clock.now().utcoffset() == local.utcoffset() and abs(clock.now() - local) < timedelta(seconds=5)


def test_review_page_counts_the_learners_day_and_keeps_a_late_miss_in_it(monkeypatch, fakes):
    """23:59 in Honolulu is 09:59 UTC the next day on the server: the page works on the learner's day."""
    late = datetime(2026, 3, 1, 23, 59, tzinfo=HONOLULU)
    monkeypatch.setattr(clock, "zone", lambda offset_min=None: HONOLULU)
    monkeypatch.setattr(clock, "now", lambda: late)
    q1, q2 = quizzes.from_id("zz.qkv.calc0#11"), quizzes.from_id("zz.mask.know1#4")
    p = apply_answer(new_progress(), q1.id, q1.topic, False, wrong(q1), "page", late - timedelta(minutes=5))
    card = rv.from_box(q2.topic, 3, "2026-03-02", 0)        # due 00:00 UTC on 2 March = 14:00 on 1 March here
    p["review"][q2.generator_id] = card                     # a card is a skill (practice.skill)
    at = no_exception(open_page(REVIEW, session={"progress": p}))
    assert metric(at, "今日が期限の問題") == "2 問"
    assert "明日から 7 日以内に出る問題：0 問" in page_text(at)
    for q in (q2, q1):                                        # earliest due first; both answered right
        assert at.session_state["review__cur"] == q.generator_id
        shown = quizzes.from_id(at.session_state["review__drawn"][q.generator_id])   # a fresh instance
        assert shown.generator_id == q.generator_id and shown.id != q.id
        key = [r for r in at.radio if (r.key or "").startswith("review_")][0].key[: -len("__choice")]
        at.radio(key=f"{key}__choice").set_value(shown.answer)
        at.button(key=f"{key}__submit").click()
        no_exception(at.run())
        if q is q2:
            assert "次は 3月" in page_text(at)           # a review card: days on, on the learner's calendar
            at.button(key="review_next").click()
            no_exception(at.run())
    item = at.session_state["progress"]["review"][q1.generator_id]
    assert item["state"] == 1 and datetime.fromisoformat(item["due"]).astimezone(HONOLULU).date().day == 2
    assert "今日のうちにもう一度出ます。" in page_text(at)      # its next step is 00:09 tomorrow: still today's
    assert metric(at, "今日が期限の問題") == "1 問"
    assert at.session_state["progress"]["attempts"][-1]["at"] == "2026-03-01T23:59:00-10:00"   # the learner's time
