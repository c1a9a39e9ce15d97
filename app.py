"""ホーム: what this tutor is, where the learner stands (per page, exams, reviews), today's plan."""

import pandas as pd
import streamlit as st

import ui
import ui.backup
from tutor import numfmt
from ui.figures import exam_history_chart
from practice.exam import history_rows
from practice.plan import REVIEW_PACE_S, daily_plan, exam_date_bounds
from practice.progress import daily_review_limit, overall, path_counts, topic_stats, weak_topics
from practice.record import DAILY_MINUTES
from quizzes.syllabus import scope_summary

ui.page("home")

st.title("アテンション・チューター")
st.markdown(
    "Transformer の心臓部である **Attention（注意機構）** を、小さな数値例を自分の手で"
    "計算しながら理解し、G検定の関連問題を解けるようになるための教材です。"
    "画面の数字はすべて、その場で NumPy の計算エンジンが出したものです。"
    "入力を変えれば結果も変わるので、納得がいくまで試してください。"
)

covered, outside = scope_summary()
with st.container(border=True):
    st.markdown("**このチューターが扱う G検定の範囲**")
    st.markdown("\n".join(f"- {major}：{'、'.join(middles)}" for major, middles in covered))
    st.caption("扱わない範囲（ほかの教材で）：" + "、".join(outside) + "。本番はこれらを含む全範囲から出ます。")

progress = ui.state.get_progress()
stats = topic_stats(progress)
learning = [p for p in ui.available_pages() if p.section == "学習"]
today, zone = ui.clock.today(), ui.clock.zone()
minutes = ui.learning_minutes()
plan = daily_plan(progress, [p.key for p in learning], today, zone, minutes)

storage = ui.state.storage_status()
if storage["aside"]:
    with st.container(border=True):
        count = max(1, storage["asides"])
        st.markdown(f"このブラウザには、読めなかった以前の記録（{count} つ、合わせて {storage['aside']:,} 文字）が"
                    "退避してあります。中身を確かめたいときはダウンロードしてください。要らなければ削除できます。")
        for slot in range(count):
            ui.storage.download_aside_button(slot, "読めなかった記録をダウンロード" if count == 1
                                             else f"読めなかった記録 {slot + 1}（新しい順）をダウンロード")
        st.button("退避した記録を削除する", key="home_drop_aside", on_click=ui.state.drop_aside,
                  icon=":material/delete:")
ui.backup.home_notice(progress, today)   # a fresh browser: how to bring progress over; Safari: the backup file


def _set_daily_minutes() -> None:
    ui.state.set_settings(daily_minutes=st.session_state["home_daily_minutes"])


def _set_exam_date() -> None:
    value = st.session_state.get("home_exam_date")
    ui.state.set_settings(exam_date=None if value is None else value.isoformat())


# ---------------------------------------------------------------------------
st.header("今日の計画", divider="gray")
todo_key = plan["next"]
# a topic to relearn is one the learner has read (a page never opened comes as the next page instead)
weak = [(k, s) for k, s in weak_topics(progress) if progress["visited"].get(k)][:1]
shown = False
if plan["due"]:
    st.page_link(ui.PAGE_BY_KEY["review"].path, label=f"今日の復習 {plan['due']} 問（約 {plan['minutes']} 分）",
                 icon=":material/replay:")
    st.caption(f"1 問 {REVIEW_PACE_S} 秒として見積もっています。"
               + (f"期限が来ているのは {plan['due_all']} 問で、1 日の上限（{daily_review_limit(progress)} 問）を"
                  f"超えた {plan['due_later']} 問は明日からの分に回ります。" if plan["due_later"] else ""))
    shown = True
# a link's label does not wrap: on a 390 px phone it must stay short, the details go in a caption
if weak and ui.PAGE_BY_KEY[weak[0][0]].exists:
    w = ui.PAGE_BY_KEY[weak[0][0]]
    st.caption(f"いちばん弱いトピックを学び直す（直近の正答率 {numfmt.percent(weak[0][1]['recent_accuracy'])}）：")
    st.page_link(w.path, label=w.label, icon=":material/menu_book:")
    shown = True
if todo_key is not None:
    todo = ui.PAGE_BY_KEY[todo_key]
    if not progress["visited"].get(todo_key):    # a page not read yet opens at its lesson, a read one at its quiz
        st.caption("次のページに進む：")
        st.page_link(todo.path, label=todo.label, icon=":material/arrow_forward:", query_params=ui.section_query("aim"))
    else:
        st.caption("確認クイズで習得をめざす：")
        st.page_link(todo.path, label=todo.label, icon=":material/arrow_forward:",
                     query_params=ui.section_query("quiz"))
    shown = True
elif learning:
    st.success("すべてのページを習得しました。模擬試験で仕上げましょう。")
exam_info = ui.PAGE_BY_KEY["exam"]
if exam_info.exists:
    st.caption("時間を計って、全トピックから出題します：")
    st.page_link(exam_info.path, label="模擬試験を受ける", icon=":material/timer:")
if not shown and not learning:
    st.info("学習ページは準備中です。")

st.subheader("試験日までの計画")
if plan["exam_date"] is None:
    st.caption("試験日を入れると、残りのページを 1 日に使える時間に合わせて試験日までに割り振り、"
               "最後の数日を模擬試験と復習にあてます。")
elif plan["days_left"] < 0:
    st.warning(f"試験日（{numfmt.day(plan['exam_date'], today)}）は過ぎています。次の試験日を入れてください。")
elif plan["days_left"] == 0:
    st.info("試験日は今日です。新しいページより、今日の復習と弱いトピックの見直しを優先しましょう。")
else:
    st.markdown(f"試験日 **{numfmt.day(plan['exam_date'], today)}** まで、あと **{plan['days_left']} 日**です。")
    if not plan["schedule"]:
        st.success("学ぶページはすべて習得済みです。残りの日は復習と模擬試験にあてましょう。")
    else:
        mock_span = numfmt.span(plan["mock_days"], today)
        last_day = plan["schedule"][-1][0]
        st.markdown(f"未習得のページは {plan['pages_left']} ページ、読んで解くのに合わせて約 {plan['left_minutes']} 分です。"
                    f"1 日 {plan['daily']} 分のうち約 {plan['per_day']} 分を新しいページに、残りを復習に使うと、"
                    f"{numfmt.day(last_day, today)} に学び終わります。")
        if not plan["fits"]:
            st.warning("このままでは、試験の前に模擬試験と復習の日が残りません。" + (
                f"1 日 {plan['needed']} 分にすると間に合います。" if plan["needed"] else
                "1 日の時間を最大にしても足りないので、弱いトピックと模擬試験を優先しましょう。"), icon=":material/schedule:")
        elif plan["mock_days"]:
            st.markdown(f"最後の {len(plan['mock_days'])} 日（{mock_span}）は、模擬試験と復習にあてます。")
        st.caption("今日のページ：")
        for key in plan["today"]:
            st.page_link(ui.PAGE_BY_KEY[key].path, label=f"{ui.PAGE_BY_KEY[key].label}（約 {minutes[key]} 分）",
                         icon=":material/event:", query_params=ui.section_query("aim"))
        if len(plan["schedule"]) > 1:
            with st.expander("日ごとの予定"):
                ui.show_table(pd.DataFrame({
                    # the mock-exam days are one row: an exam date years ahead gives thousands of them
                    "日付": [numfmt.day(d, today) for d, _ in plan["schedule"]] + ([mock_span] if plan["mock_days"] else []),
                    "すること": ["、".join(ui.PAGE_BY_KEY[k].label for k in ps) for _, ps in plan["schedule"]]
                               + ([f"模擬試験と復習（{len(plan['mock_days'])} 日）"] if plan["mock_days"] else []),
                }), hide_index=True)
st.select_slider("1 日に使える時間", options=list(DAILY_MINUTES), value=plan["daily"], key="home_daily_minutes",
                 on_change=_set_daily_minutes, format_func=lambda m: f"{m} 分")
saved = plan["exam_date"]
low, high = exam_date_bounds(today, saved)
st.date_input("試験日", value=saved, min_value=low, max_value=high, key="home_exam_date", on_change=_set_exam_date,
              format="YYYY/MM/DD", help="空にすると、試験日なしの計画（今日の復習と次のページ）に戻ります。")
# Streamlit's date field keeps a typed date until the field loses focus or its calendar closes;
# ui/page.js makes Enter do that (Streamlit 1.67 ignores Enter there): say that Enter saves it
st.caption("日付を入力したら、Enter キーで保存されます。")

# ---------------------------------------------------------------------------
st.header("あなたの進み具合", divider="gray")
tot = overall(progress)
counts = path_counts(progress, [p.key for p in learning])
m1, m2, m3, m4 = st.columns(4)
m1.metric("訪問したページ", f"{counts['visited']} / {counts['total']}")
m2.metric("解いた問題", f"{tot['answered']} 問")
m3.metric("正答率", "—" if tot["accuracy"] is None else numfmt.percent(tot["accuracy"]))
m4.metric("習得したページ", f"{counts['mastered']} / {counts['total']}")
ui.profile.profile_section(progress)

st.subheader("学習の道すじ")
st.caption("各ページは「ねらい → 解説 → 手計算 → 可視化 → 試してみよう → 確認クイズ」の順に進みます。"
           "習得 ✓ は、そのページの直近 5 問中 4 問以上に正解したしるしです。")
for p in learning:
    s = stats.get(p.key)
    seen = progress["visited"].get(p.key)
    if s is None:
        status = "訪問済み・未解答" if seen else "未学習"
    else:
        status = (f"{'訪問済み・' if seen else ''}{s['correct']}/{s['answered']} 問正解（{numfmt.percent(s['accuracy'])}）"
                  + ("・習得 ✓" if s["mastered"] else ""))
    c1, c2 = st.columns([3, 2])
    with c1:
        st.page_link(p.path, label=p.label)
    with c2:
        st.caption(status)

# ---------------------------------------------------------------------------
st.subheader("模擬試験の記録")
rows = history_rows(progress["exams"])
if not rows:
    st.caption("まだ模擬試験を受けていません。受けると、ここに正答率の推移が出ます。")
else:
    ui.cached_chart(exam_history_chart, rows, width="stretch")
    last = rows[-1]
    st.caption(f"直近：{last['日時']} に {last['得点']} 問正解（所要時間 {last['所要時間']}）・全 {len(rows)} 回")
