"""復習と進捗: wrong answers come back on a Leitner schedule; weak topics; progress file export/import."""
from datetime import date

import pandas as pd
import streamlit as st

import quizzes
import ui
from practice import review as rv
from practice.progress import drop_review, due_today, weak_topics
from practice.store import ProgressError, export_bytes
from quizzes.core import TOPICS, QuizError

ui.page("review")

DONE = "review__done"     # qids answered in the current round of today's session
CUR = "review__cur"       # the qid on screen (kept until 次の問題へ, so feedback stays visible)
CUR_INFO = "review__cur_info"  # its box and today's count when it was put on screen
ROUND = "review__round"   # makes widget keys fresh when a question comes back in a new round

st.session_state.setdefault(DONE, set())
st.session_state.setdefault(CUR, None)
st.session_state.setdefault(ROUND, 0)


def next_item() -> None:
    if st.session_state[CUR] is not None:
        st.session_state[DONE].add(st.session_state[CUR])
    st.session_state[CUR] = None


def new_round() -> None:
    st.session_state[DONE] = set()
    st.session_state[CUR] = None
    st.session_state[ROUND] += 1


def drop_current() -> None:
    qid = st.session_state[CUR]
    ui.state.set_progress(drop_review(ui.state.get_progress(), qid))
    st.session_state[CUR] = None


progress = ui.state.get_progress()
today = date.today()
sched = progress["review"]

st.markdown(
    "まちがえた問題は、ここに **間隔をあけて** 戻ってきます（ライトナー方式）。"
    "どこで間違えても箱 1 に入り、復習で正解するたびに次の箱へ進んで、出てくる間隔がのびます。"
    f"箱 {rv.N_BOXES} で正解すると「覚えた」として予定から外れます。復習で間違えると箱 1 に戻ります。"
)

# ---------------------------------------------------------------------------
st.header("今日の復習", divider="gray")
metrics = st.container()  # filled after the card, so an answer given in this run is counted

pending = [q for q in rv.due_items(sched, today) if q not in st.session_state[DONE]]
if st.session_state[CUR] is None and pending:
    st.session_state[CUR] = pending[0]
    st.session_state[CUR_INFO] = {"box": sched[pending[0]]["box"], "left": len(pending)}
cur = st.session_state[CUR]

if cur is not None:
    try:
        question = quizzes.from_id(cur)
    except QuizError as exc:
        st.warning(f"この問題はもう作れません（{ui.state.plain(exc)}）。")
        st.button("この問題を復習予定から外す", key="review_drop", on_click=drop_current)
    else:
        info = st.session_state.get(CUR_INFO) or {}
        st.caption(f"箱 {info.get('box', '?')} の問題・{TOPICS[question.topic]}・この回の残り {info.get('left', '?')} 問")
        with st.container(border=True):
            ui.question_card(question, key=f"review_{st.session_state[ROUND]}_{cur}", source="review", link=False)
        answered = f"review_{st.session_state[ROUND]}_{cur}__answered" in st.session_state
        if answered:
            moved = ui.state.get_progress()["review"].get(cur)
            if moved is None:
                st.success("覚えました。この問題は復習予定から外れます。", icon=":material/celebration:")
            elif moved["box"] == 1:
                st.caption("箱 1 に戻りました。今日のうちにもう一度出ます。")
            else:
                st.caption(f"箱 {moved['box']} に進みました。次は {moved['due']} に出ます。")
        st.button("次の問題へ", key="review_next", on_click=next_item, disabled=not answered, type="primary")
elif due_today(progress, today):
    st.info(f"この回の復習は終わりました。まちがえた {due_today(progress, today)} 問が、今日の予定にまだ残っています。")
    st.button("もう一周する", key="review_again", on_click=new_round, icon=":material/replay:")
elif sched:
    st.success(f"今日の復習はすべて終わりました。次の復習は {rv.next_due(sched)} です。", icon=":material/check_circle:")
else:
    st.info("復習する問題はまだありません。各ページの確認クイズや模擬試験でまちがえた問題（模擬試験で答えられなかった問題も）が、ここに入ります。")

progress = ui.state.get_progress()  # again: the card above may have recorded an answer
sched = progress["review"]
with metrics:
    c1, c2 = st.columns(2)
    c1.metric("今日が期限の問題", f"{due_today(progress, today)} 問")
    c2.metric("復習予定の全体", f"{len(sched)} 問")

st.subheader("箱ごとの問題数")
counts = rv.box_counts(sched)
ui.show_table(pd.DataFrame({
    "箱": [f"箱 {b}" for b in range(1, rv.N_BOXES + 1)],
    "正解したら次に出るまで": [f"{d} 日後" for d in rv.INTERVAL_DAYS[1:]] + ["卒業（予定から外れる）"],
    "問題数": counts,
}), hide_index=True, width="stretch")

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
        st.caption(f"直近 {s['recent']} 問中 {s['recent_correct']} 問正解（{s['recent_accuracy']:.0%}）")

# ---------------------------------------------------------------------------
st.header("進捗の保存と読み込み", divider="gray")
st.markdown(
    "進捗はこのブラウザのセッションの中にだけあり、**再読み込みすると消えます**。"
    "続きから学ぶには、進捗をファイルに書き出しておき、次回ここで読み込んでください。"
)
try:
    data = export_bytes(progress)
except ProgressError as exc:
    st.error(f"進捗を書き出せませんでした：{ui.state.plain(exc)}")
else:
    st.download_button("進捗を書き出す（JSON）", data=data, key="progress_download",
                       file_name=f"attention-tutor-progress-{today.isoformat()}.json",
                       mime="application/json", icon=":material/download:", on_click="ignore")

st.file_uploader("進捗ファイルを読み込む（今の進捗と置き換わります）", type=["json"],
                 key=ui.state.UPLOAD_KEY, on_change=ui.state.import_uploaded)
# the uploader's own button and hint are Streamlit's English ("Upload", "1MB per file • JSON")
st.caption("「Upload」を押して、このページで書き出した JSON ファイル（1 MB まで）を選んでください。")
msg = st.session_state.get(ui.state.IMPORT_MSG_KEY)
if msg is not None:
    kind, text = msg
    (st.success if kind == "success" else st.error)(ui.state.plain(text))

db = ui.state.db_status()
if db["path"]:
    if db["ok"]:
        st.caption(f"この端末の保存ファイルにも自動で保存しています：{ui.state.plain(db['path'])}")
    else:
        st.warning(ui.state.plain(db["message"]), icon=":material/warning:")
