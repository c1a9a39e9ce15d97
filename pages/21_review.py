"""復習と進捗: wrong answers come back on an FSRS schedule; weak topics; where progress is kept,
the backup file and the import that joins it (ui.backup), erasing this browser's record.

A review card is a skill (practice.skill): each due card is shown as a fresh instance of its skill
(practice.skill.draw: new numbers, or the choices in a new order, never the question last shown),
drawn once per round and kept in the session (DRAWN), so a rerun never swaps the question."""

import secrets

import pandas as pd
import streamlit as st

import quizzes
import ui
import ui.backup
from practice import review as rv
from practice.plan import REVIEW_PACE_S, review_minutes, todays_reviews
from practice.progress import daily_review_limit, drop_review, due_today, weak_topics
from practice.scope import practised_review
from practice.skill import draw, last_shown
from quizzes.core import TOPICS, QuizError
from tutor import numfmt

ui.page("review")

DONE = "review__done"     # skill keys answered in the current round of today's session
CUR = "review__cur"       # the skill on screen (kept until 次の問題へ, so feedback stays visible)
DRAWN = "review__drawn"   # {skill key: the question id drawn for it in this round}
CUR_INFO = "review__cur_info"  # its state and today's count when it was put on screen
CONFIRM_CLEAR = "review__confirm_clear"
ROUND = "review__round"   # makes widget keys fresh when a question comes back in a new round

st.session_state.setdefault(DONE, set())
st.session_state.setdefault(CUR, None)
st.session_state.setdefault(ROUND, 0)
st.session_state.setdefault(DRAWN, {})


def next_item() -> None:
    if st.session_state[CUR] is not None:
        st.session_state[DONE].add(st.session_state[CUR])
    st.session_state[CUR] = None


def new_round() -> None:
    st.session_state[DONE] = set()
    st.session_state[CUR] = None
    st.session_state[DRAWN] = {}   # a skill that comes back in the new round gets another instance
    st.session_state[ROUND] += 1


def drop_current() -> None:
    skill = st.session_state[CUR]
    if skill is not None:          # (a second click after the first one dropped it: nothing to do)
        ui.state.set_progress(drop_review(ui.state.get_progress(), skill))
    st.session_state[CUR] = None


def drawn_for(skill: str) -> str:
    """The question shown for ``skill`` in this round: drawn once (a fresh instance, never the one
    last answered for it), then the same on every rerun. QuizError when the skill is gone."""
    drawn = st.session_state[DRAWN]
    if skill not in drawn:
        drawn[skill] = draw(skill, secrets.randbits(64), last_shown(ui.state.get_progress()["attempts"], skill))
    return drawn[skill]


progress = ui.state.get_progress()
today, zone = ui.clock.today(), ui.clock.zone()
sched = practised_review(progress)   # 発展 skills only if the learner includes them (practice.scope)



def how_it_works() -> None:
    st.markdown(
        "まちがえた問題は、ここに **間隔をあけて** 戻ってきます。出すタイミングは、Anki でも使われている"
        "記憶のモデル **FSRS** が決めます。まちがえた問題はその日のうちにもう一度出て、正解するたびに"
        "「どれだけ覚えていられそうか」を見積もり直し、思い出せる確率が下の目標まで下がる頃に次の出番が来ます。"
        "戻ってくるのは同じ問題そのものではなく、**同じ種類の新しい問題**です（計算問題は数値が変わり、"
        "知識問題は選択肢の並びが変わります）。答えの記号を覚えていても解けません。"
    )


# ---------------------------------------------------------------------------
# the question first (a phone showed the explanation and two metrics before it, below the first screen)
st.header("今日の復習", divider="gray")
count_line = st.container()  # filled once the card is drawn: it counts the answer given in this run

# today's share of the due pile: at most the daily limit (less what was reviewed today), most overdue first
share = todays_reviews(progress, today, zone)
pending = [q for q in share if q not in st.session_state[DONE]]
if st.session_state[CUR] is None and pending:
    st.session_state[CUR] = pending[0]
    st.session_state[CUR_INFO] = {"state": rv.STATES[sched[pending[0]]["state"]], "left": len(pending)}
cur = st.session_state[CUR]   # a skill key

if cur is not None:
    try:
        qid = drawn_for(cur)
        question = quizzes.from_id(qid)
    except QuizError as exc:
        st.warning(f"この問題はもう作れません（{ui.state.plain(exc)}）。")
        st.button("この問題を復習予定から外す", key="review_drop", on_click=drop_current)
    else:
        info = st.session_state.get(CUR_INFO) or {}
        st.caption(f"{info.get('state', '?')}の問題・{TOPICS[question.topic]}")
        with st.container(border=True):
            ui.question_card(question, key=f"review_{st.session_state[ROUND]}_{qid}", source="review", link=False)
        answered = f"review_{st.session_state[ROUND]}_{qid}__answered" in st.session_state
        with count_line:   # this round's count, the card on screen counted until it is answered
            st.markdown(f"この回 あと **{rv.round_left(pending, cur, answered)} 問**")
        if answered:
            moved = ui.state.get_progress()["review"].get(cur)
            if moved is not None:
                day = rv.due_date(moved, zone)
                if day <= today:
                    st.caption("今日のうちにもう一度出ます。")
                else:
                    st.caption(f"次は {numfmt.day(day, today)}（{(day - today).days} 日後）に出ます。")
        st.button("次の問題へ", key="review_next", on_click=next_item, disabled=not answered, type="primary")
elif share:
    st.info(f"この回の復習は終わりました。今日の分にまだ {len(share)} 問残っています"
            "（まちがえた問題と学び始めの問題は、その日のうちにもう一度出ます）。")
    st.button("もう一周する", key="review_again", on_click=new_round, icon=":material/replay:")
elif due_today(progress, today, zone):
    st.success(f"今日の分は終わりました。期限が来ている残りの {due_today(progress, today, zone)} 問は、"
               "明日からの分に回ります。もっと解きたいときは、下の「1 日の復習の上限」を上げてください。",
               icon=":material/check_circle:")
elif sched:
    st.success(f"今日の復習はすべて終わりました。次の復習は {numfmt.day(rv.next_due(sched, zone), today)} です。",
               icon=":material/check_circle:")
else:
    st.info("復習する問題はまだありません。各ページの確認クイズや模擬試験でまちがえた問題が、ここに入ります（模擬試験で答えなかった問題は入りません）。")

progress = ui.state.get_progress()  # again: the card above may have recorded an answer
sched = practised_review(progress)   # 発展 skills only if the learner includes them (practice.scope)
share, started = todays_reviews(progress, today, zone), rv.reviewed_on(progress["attempts"], today, zone)
with st.container():
    n_due = due_today(progress, today, zone)
    if n_due:
        st.markdown(f"今日の分{' あと' if started else ''} {len(share)} 問（期限が来ている {n_due} 問のうち）")
        if n_due > len(share):
            st.caption(f"1 日の上限は {daily_review_limit(progress)} 問です"
                       + (f"（今日はもう {len(started)} 問を復習しました）" if started else "")
                       + "。期限を過ぎてから長い問題ほど忘れやすいので先に出し、残りは明日からの分に回します。")
    c1, c2 = st.columns(2)
    c1.metric("今日が期限の問題", f"{due_today(progress, today, zone)} 問")
    c2.metric("復習予定の全体", f"{len(sched)} 問")

ui.lazy_expander("復習のしくみ（FSRS）", how_it_works, key="review_how")
st.subheader("復習予定の内訳")
counts = rv.state_counts(sched)
ui.show_table(pd.DataFrame({
    "段階": ["学習中（まちがえたばかり）", "復習（間隔をのばし中）", "再学習（復習でまちがえた）"],
    "問題数": [counts[1], counts[2], counts[3]],
}), hide_index=True)
st.caption(f"明日から 7 日以内に出る問題：{rv.due_within(sched, today, 7, zone)} 問")


def _set_retention() -> None:
    ui.state.set_settings(retention=st.session_state["review_retention"])


st.select_slider("記憶の目標（次に出るときに思い出せる確率）", options=list(rv.RETENTIONS),
                 value=progress["settings"]["retention"], key="review_retention", on_change=_set_retention,
                 format_func=numfmt.percent)
st.caption("目標を上げると復習の間隔が短くなり（問題が多く出る）、下げると長くなります。ふつうは 90% です。")


def _set_limit() -> None:
    ui.state.set_settings(daily_review_limit=st.session_state["review_limit"])


st.select_slider("1 日の復習の上限", options=list(rv.DAILY_LIMITS), value=daily_review_limit(progress),
                 key="review_limit", on_change=_set_limit, format_func=lambda n: f"{n} 問")
limit = daily_review_limit(progress)
st.caption(f"今日の復習に出すのは 1 日 {limit} 問まで（1 問 {REVIEW_PACE_S} 秒として約 {review_minutes(limit)} 分）。"
           "期限の来た問題がもっと多い日は、期限を過ぎてから長い問題を先に出し、残りは次の日に回します。")

ui.quiz_advanced_switch("review_advanced")

# ---------------------------------------------------------------------------
st.header("弱いトピック", divider="gray")
weak = weak_topics(progress, limit=5)
if not weak:
    st.info("まだ弱いトピックはありません（解答がないか、解いたトピックはすべて習得済みです）。")
else:
    st.caption("直近 5 問の正答率が低い順です。ページに戻って解説と手計算を見直しましょう。")
    for rank, (topic, s) in enumerate(weak, start=1):
        info = ui.PAGE_BY_KEY.get(topic)
        if info is not None and info.exists:
            st.page_link(info.path, label=f"{rank}. {TOPICS[topic]}", icon=":material/menu_book:")
        else:
            st.markdown(f"**{rank}. {TOPICS[topic]}**")
        st.caption(f"直近 {s['recent']} 問中 {s['recent_correct']} 問正解（{numfmt.percent(s['recent_accuracy'])}）")
ui.profile.profile_section(progress, limit=5)

# ---------------------------------------------------------------------------
st.header("進捗の保存と読み込み", divider="gray")
ui.backup.section(progress, today)   # where progress is kept, the backup file, the joining import

st.subheader("この端末の記録を消す")
if not st.session_state.get(CONFIRM_CLEAR):
    st.button("この端末の記録を消す", key="review_clear", icon=":material/delete:",
              on_click=lambda: st.session_state.__setitem__(CONFIRM_CLEAR, True))
else:
    st.warning("このブラウザに保存した解答・復習予定・模擬試験の記録・試験日をすべて消します。元には戻せません。"
               "残したいときは、先に「進捗を書き出す」でファイルにしてください。", icon=":material/warning:")
    row = st.container(horizontal=True)

    def _clear() -> None:
        said = ui.state.clear_device()
        st.session_state[CONFIRM_CLEAR] = False
        ui.backup.tell("success" if said == ui.state.CLEARED else "error", said)

    row.button("消す", key="review_clear_confirm", type="primary", on_click=_clear)
    row.button("やめる", key="review_clear_cancel",
               on_click=lambda: st.session_state.__setitem__(CONFIRM_CLEAR, False))
